"""One engine in every mode: a run with limits, or with a callback, runs the code a
plain run runs (engine/emit.py), plus its hooks.

Every program of the interpret suite (../shared/stablehlo/tests/interpret) and every
jax fixture runs three ways: plain; with limits only (``timeout`` and ``max_steps``,
the COUNT mode the conformance suites run in); with a callback (OBSERVE).  The
results must be bit-identical; with limits only, the sequence of kernel calls must be
the plain run's too (a callback sees every value whole, so fused runs split into their
steps there: same values, other calls).
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

from hlorun import HloError, engine
from hlorun.engine import emit
from hlorun.engine.cli import entry_points
from hlorun.engine.interpreter import Interpreter
from hlorun.parser import parse_module
from tests.conformance.suite import interpret_cases
from tests.support.jax_fixtures import fixture_names, load_fixture

CASES = interpret_cases()
FILES = sorted({c.id.split("::")[0] for c in CASES})
FIXTURES = fixture_names()

LIMITS = {"timeout": 600.0, "max_steps": 10**12}


@pytest.fixture
def kernel_calls(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[tuple[int, str]]]:
    """(thread, op name) of each kernel call, in order (planning's folds excluded); a
    process grid runs its processes on threads."""
    calls: list[tuple[int, str]] = []
    original = Interpreter._compile_kernel

    def recording(self: Interpreter, st: Any) -> Any:
        fn, name = st.fn, st.op.name

        @functools.wraps(fn)
        def kernel(*args: Any, **kwargs: Any) -> Any:
            calls.append((threading.get_ident(), name))
            return fn(*args, **kwargs)

        st.fn = kernel
        return original(self, st)

    monkeypatch.setattr(Interpreter, "_compile_kernel", recording)
    engine.clear_cache()
    yield calls
    engine.clear_cache()


def _same(a: Any, b: Any) -> bool:
    """Bit for bit: dtype, shape and bytes (NaN payloads and signed zeros included)."""
    if isinstance(a, tuple | list):
        return isinstance(b, tuple | list) and len(a) == len(b) and all(map(_same, a, b))
    if isinstance(a, np.ndarray | np.generic):
        b = np.asarray(b)
        a = np.asarray(a)
        return a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()
    return type(a) is type(b)


def _calls(calls: list[tuple[int, str]]) -> list[str]:
    """The kernel calls in order; a process grid (its processes run on threads, which
    interleave as they will) in sorted order."""
    if len({ident for ident, _name in calls}) > 1:
        return sorted(name for _ident, name in calls)
    return [name for _ident, name in calls]


def _three_ways(calls: list[tuple[int, str]], run: Any) -> None:
    """``run(**options)`` plain, with limits, with a callback: the same results; the
    plain and the limits run make the same kernel calls."""
    calls.clear()
    plain = run()
    plain_calls = _calls(calls)
    calls.clear()
    limited = run(**LIMITS)
    assert _same(plain, limited), "limits changed the results"
    assert _calls(calls) == plain_calls, "limits changed the kernel calls"
    seen: list[str] = []
    observed = run(callback=lambda name, pos, values: seen.append(name))
    assert _same(plain, observed), "a callback changed the results"


@pytest.mark.skipif(not CASES, reason="../shared/stablehlo/tests/interpret not found")
@pytest.mark.parametrize("file", FILES)
def test_interpret_suite_file_in_every_mode(
    file: str, kernel_calls: list[tuple[int, str]], tmp_path
):
    for case in (c for c in CASES if c.id.split("::")[0] == file):
        module = parse_module(case.text, str(case.path))
        if not module.functions:
            continue
        inputs: list[Any] = []
        if case.args:
            from hlorun.engine.cli import _parse_args_attr

            inputs = _parse_args_attr(case.args)
        for fn in entry_points(module):
            args = inputs if fn.type.inputs else []

            def run(fn: Any = fn, args: Any = args, module: Any = module, **options: Any) -> Any:
                engine.clear_cache()
                return engine.run(module, args, function=fn.name, probe_dir=tmp_path, **options)

            _three_ways(kernel_calls, run)


@pytest.mark.parametrize("name", FIXTURES)
def test_jax_fixture_in_every_mode(name: str, kernel_calls: list[tuple[int, str]]):
    text, _bc, _exp, inputs, _outputs, _entry = load_fixture(name)
    module = parse_module(text.read_text(), str(text))

    def run(**options: Any) -> Any:
        engine.clear_cache()
        try:
            return engine.run(module, inputs, **options)
        except HloError as e:  # a fixture hlorun refuses: refused alike
            return type(e).__name__ + e.message

    _three_ways(kernel_calls, run)


def test_the_suites_run_the_compiled_code(monkeypatch: pytest.MonkeyPatch, tmp_path):
    """The conformance suites pass ``timeout``: their runs are the blocks' compiled
    functions in the COUNT mode, the code a plain run runs plus its step count."""
    compiled: list[int] = []
    original = emit.compile_block

    def counting(bp: Any, mode: int, interp: Any) -> Any:
        compiled.append(mode)
        return original(bp, mode, interp)

    monkeypatch.setattr(emit, "compile_block", counting)
    engine.clear_cache()
    program = """func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %c = stablehlo.constant dense<0> : tensor<i32>
  %r:2 = stablehlo.while(%i = %c, %v = %x) : tensor<i32>, tensor<4xf32>
   cond {
    %n = stablehlo.constant dense<3> : tensor<i32>
    %p = stablehlo.compare LT, %i, %n : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %p : tensor<i1>
  } do {
    %one = stablehlo.constant dense<1> : tensor<i32>
    %j = stablehlo.add %i, %one : tensor<i32>
    %w = stablehlo.multiply %v, %v : tensor<4xf32>
    stablehlo.return %j, %w : tensor<i32>, tensor<4xf32>
  }
  func.return %r#1 : tensor<4xf32>
}"""
    x = np.array([1.0, 2.0, 0.5, -1.0], np.float32)
    (got,) = engine.run(program, [x], timeout=60)
    assert got.tobytes() == (x**8).tobytes()
    assert compiled == [emit.COUNT]  # one function: the loop is written out in it
    compiled.clear()
    (again,) = engine.run(program, [x])
    assert again.tobytes() == got.tobytes() and set(compiled) == {emit.PLAIN}
    engine.clear_cache()
