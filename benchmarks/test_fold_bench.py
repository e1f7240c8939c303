"""Folding runs at the speed of running (issue 22): ``fold(module)`` against
``run(module)`` on the same program, each on a fresh Module (so ``run`` verifies, plans
and executes, as ``fold`` does; parsing is not timed on either side).

Target: fold takes at most 2x the time run takes.  The "numpy" column of the session
table is ``run`` here.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from conftest import rand
from test_pipeline_bench import transformer_ops, transformer_types

from hlorun import engine, parser
from hlorun.engine.fold import fold
from hlorun.parser.ir import DenseElementsAttr, TensorType
from hlorun.parser.printer import print_attribute


def _dense(a: np.ndarray) -> str:
    t = TensorType(a.shape, parser.ir.FloatType("f32"))
    return print_attribute(DenseElementsAttr(t, a, hex=True))


def transformer_constant(s: int = 16, d: int = 32, f: int = 64) -> str:
    """One attention layer plus a ReLU MLP whose input and weights are all constants."""
    x, _, _, _ = transformer_types(s, d, f)
    consts = {
        "x": rand((s, d), 1),
        "wq": rand((d, d), 2) * 0.1,
        "wk": rand((d, d), 3) * 0.1,
        "wv": rand((d, d), 4) * 0.1,
        "w1": rand((d, f), 5) * 0.1,
        "w2": rand((f, d), 6) * 0.1,
    }
    lines = [f"  %{k} = stablehlo.constant {_dense(v)}" for k, v in consts.items()]
    body = "\n".join(lines)
    return f"\nfunc.func @main() -> {x} {{\n{body}\n{transformer_ops(s, d, f)}}}\n"


def chain(n: int = 300) -> str:
    """``n`` small elementwise ops on constants, one after another."""
    lines = ["  %v0 = stablehlo.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>"]
    lines.append("  %c = stablehlo.constant dense<0.5> : tensor<4xf32>")
    ops = ("add", "multiply", "subtract", "maximum")
    for i in range(n):
        op = ops[i % len(ops)]
        lines.append(f"  %v{i + 1} = stablehlo.{op} %v{i}, %c : tensor<4xf32>")
    body = "\n".join(lines)
    return f"func.func @main() -> tensor<4xf32> {{\n{body}\n  return %v{n} : tensor<4xf32>\n}}\n"


def loop(n: int = 1000) -> str:
    """A while loop of ``n`` iterations on constants (a scalar recurrence)."""
    return f"""func.func @main() -> (tensor<i64>, tensor<f32>) {{
  %c0 = stablehlo.constant dense<0> : tensor<i64>
  %c1 = stablehlo.constant dense<1> : tensor<i64>
  %n = stablehlo.constant dense<{n}> : tensor<i64>
  %x0 = stablehlo.constant dense<1.0> : tensor<f32>
  %h = stablehlo.constant dense<0.999> : tensor<f32>
  %w:2 = stablehlo.while(%i = %c0, %x = %x0) : tensor<i64>, tensor<f32>
    cond {{
      %p = stablehlo.compare LT, %i, %n : (tensor<i64>, tensor<i64>) -> tensor<i1>
      stablehlo.return %p : tensor<i1>
    }} do {{
      %j = stablehlo.add %i, %c1 : tensor<i64>
      %y = stablehlo.multiply %x, %h : tensor<f32>
      stablehlo.return %j, %y : tensor<i64>, tensor<f32>
    }}
  return %w#0, %w#1 : tensor<i64>, tensor<f32>
}}
"""


def calls(n: int = 20, length: int = 60) -> str:
    """``n`` chained calls of a private function of ``length`` elementwise ops."""
    body = "\n".join(
        f"  %t{i} = stablehlo.{'add' if i % 2 else 'multiply'} %t{i - 1}, %x : tensor<8xf32>"
        for i in range(1, length)
    )
    chain = "\n".join(
        f"  %r{i} = func.call @f(%r{i - 1}) : (tensor<8xf32>) -> tensor<8xf32>"
        for i in range(1, n + 1)
    )
    return f"""func.func @main() -> tensor<8xf32> {{
  %r0 = stablehlo.constant dense<0.5> : tensor<8xf32>
{chain}
  return %r{n} : tensor<8xf32>
}}
func.func private @f(%x: tensor<8xf32>) -> tensor<8xf32> {{
  %t0 = stablehlo.add %x, %x : tensor<8xf32>
{body}
  return %t{length - 1} : tensor<8xf32>
}}
"""


CASES = {
    "transformer": transformer_constant(),
    "chain300": chain(),
    "loop1000": loop(),
    "calls20": calls(),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_fold_vs_run(versus, case):
    module = parser.parse_module(CASES[case])

    def fresh():
        engine.clear_cache()
        return dataclasses.replace(module)  # a new Module: nothing cached on it

    folded = fold(fresh()).module
    for a, b in zip(engine.run(fresh()), engine.run(folded)):
        assert a.tobytes() == b.tobytes()
    versus(lambda: fold(fresh()), lambda: engine.run(fresh()), ratio=2.0, note="floor = run")
