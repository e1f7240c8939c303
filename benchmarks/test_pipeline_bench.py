"""The pipeline: ``run()`` of an already-run module against calling its Program.

Target (issue 14): within 10% (ratio <= 1.1) for a small gather and a transformer
block, given as text and as a parsed Module: the cache means a run never re-parses,
re-verifies or re-plans an unchanged module.
"""

from __future__ import annotations

import numpy as np
import pytest
from conftest import rand

import hlorun
from hlorun import engine, parser

SMALL_GATHER = """
func.func @main(%x: tensor<64x8xf32>, %i: tensor<16x1xi32>) -> tensor<16x8xf32> {
  %r = "stablehlo.gather"(%x, %i) {dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, indices_are_sorted = false, slice_sizes = array<i64: 1, 8>} : (tensor<64x8xf32>, tensor<16x1xi32>) -> tensor<16x8xf32>
  func.return %r : tensor<16x8xf32>
}
"""


def transformer_types(s: int, d: int, f: int) -> tuple[str, str, str, str]:
    """The block's tensor types: activations, square weights, scores, hidden."""
    return (
        f"tensor<{s}x{d}xf32>",
        f"tensor<{d}x{d}xf32>",
        f"tensor<{s}x{s}xf32>",
        f"tensor<{s}x{f}xf32>",
    )


def transformer_ops(s: int = 16, d: int = 32, f: int = 64) -> str:
    """The ops of one pre-softmax-scaled attention layer plus a ReLU MLP, with
    residuals, on ``%x``, ``%wq``, ``%wk``, ``%wv``, ``%w1``, ``%w2``, through the
    function's return (benchmarks/test_fold_bench.py defines them as constants)."""
    x, w, m, h = transformer_types(s, d, f)
    dot = "stablehlo.dot_general {a}, {b}, contracting_dims = [1] x [0] : ({ta}, {tb}) -> {tr}"
    return f"""  %q = {dot.format(a="%x", b="%wq", ta=x, tb=w, tr=x)}
  %k = {dot.format(a="%x", b="%wk", ta=x, tb=w, tr=x)}
  %v = {dot.format(a="%x", b="%wv", ta=x, tb=w, tr=x)}
  %s = stablehlo.dot_general %q, %k, contracting_dims = [1] x [1] : ({x}, {x}) -> {m}
  %c = stablehlo.constant dense<0.176776695> : {m}
  %ss = stablehlo.multiply %s, %c : {m}
  %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %mx = stablehlo.reduce(%ss init: %ninf) applies stablehlo.maximum across dimensions = [1] : ({m}, tensor<f32>) -> tensor<{s}xf32>
  %mxb = stablehlo.broadcast_in_dim %mx, dims = [0] : (tensor<{s}xf32>) -> {m}
  %sh = stablehlo.subtract %ss, %mxb : {m}
  %e = stablehlo.exponential %sh : {m}
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %sum = stablehlo.reduce(%e init: %zero) applies stablehlo.add across dimensions = [1] : ({m}, tensor<f32>) -> tensor<{s}xf32>
  %sumb = stablehlo.broadcast_in_dim %sum, dims = [0] : (tensor<{s}xf32>) -> {m}
  %p = stablehlo.divide %e, %sumb : {m}
  %a = {dot.format(a="%p", b="%v", ta=m, tb=x, tr=x)}
  %r1 = stablehlo.add %x, %a : {x}
  %h = {dot.format(a="%r1", b="%w1", ta=x, tb=f"tensor<{d}x{f}xf32>", tr=h)}
  %zh = stablehlo.constant dense<0.0> : {h}
  %relu = stablehlo.maximum %h, %zh : {h}
  %o = {dot.format(a="%relu", b="%w2", ta=h, tb=f"tensor<{f}x{d}xf32>", tr=x)}
  %r2 = stablehlo.add %r1, %o : {x}
  func.return %r2 : {x}
"""


def transformer_block(s: int = 16, d: int = 32, f: int = 64) -> str:
    """``transformer_ops`` on the function's arguments."""
    x, w, _, _ = transformer_types(s, d, f)
    args = (
        f"%x: {x}, %wq: {w}, %wk: {w}, %wv: {w}, %w1: tensor<{d}x{f}xf32>, %w2: tensor<{f}x{d}xf32>"
    )
    return f"\nfunc.func @main({args}) -> {x} {{\n{transformer_ops(s, d, f)}}}\n"


def _cases():
    rng = np.random.default_rng(0)
    gather_inputs = [rand((64, 8)), rng.integers(0, 64, (16, 1)).astype(np.int32)]
    s, d, f = 16, 32, 64
    block_inputs = [
        rand((s, d)),
        *(rand((d, d)) * 0.1 for _ in range(3)),
        rand((d, f)) * 0.1,
        rand((f, d)) * 0.1,
    ]
    return {
        "gather": (SMALL_GATHER, gather_inputs),
        "transformer": (transformer_block(), block_inputs),
    }


CASES = _cases()


@pytest.mark.parametrize("form", ["text", "module"])
@pytest.mark.parametrize("case", sorted(CASES))
def test_run_of_a_run_module_vs_its_program(versus, case, form):
    text, inputs = CASES[case]
    source = text if form == "text" else parser.parse_module(text)
    program = engine.compile(source)
    want = program(*inputs)
    got = hlorun.run(source, inputs)  # the first run fills the cache
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g, w)
    versus(lambda: hlorun.run(source, inputs), lambda: program(*inputs), ratio=1.1)
