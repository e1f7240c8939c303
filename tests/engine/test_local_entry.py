"""Program's plain call with every step written out on local variables (engine/entry.py
``local_entry``): same results and rules as the general path (results never alias
inputs or each other, issue 21 item 4; float errors give the spec's values and no
warning; errors name the failing op), and anything unusual takes the general path.
Expected values come from float64 NumPy (an f32 add, multiply or negate rounded once
from float64 is the correctly rounded f32 result) or exact arithmetic."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from hlorun.engine.program import Program
from hlorun.parser.errors import InterpreterError

N = 10_000
F32 = f"tensor<{N}xf32>"
F64 = f"tensor<{N}xf64>"

ADD = f"""func.func @main(%a: {F32}, %b: {F32}) -> {F32} {{
  %0 = stablehlo.add %a, %b : {F32}
  func.return %0 : {F32}
}}"""


def _local(text: str, **kw) -> Program:
    """A Program whose plain call is the written-out one (what these tests exercise)."""
    prog = Program(text, **kw)
    fast = prog._run_plain
    assert fast is not None
    run = getattr(fast, "args", (None,))[0]
    assert getattr(run, "__code__", None) is not None
    assert run.__code__.co_filename == "<hlorun local entry>"
    return prog


def _f32(seed: int, n: int = N) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal(n).astype(np.float32)


def test_add_1e4_matches_float64_rounded_once():
    prog = _local(ADD)
    a, b = _f32(1), _f32(2)
    a0, b0 = a.copy(), b.copy()
    (r,) = prog(a, b)
    want = (a.astype(np.float64) + b.astype(np.float64)).astype(np.float32)
    assert r.__class__ is np.ndarray and r.dtype == np.float32 and r.shape == (N,)
    assert np.array_equal(r.view(np.uint32), want.view(np.uint32))
    assert np.array_equal(a, a0) and np.array_equal(b, b0)
    assert not np.shares_memory(r, a) and not np.shares_memory(r, b)
    (r2,) = prog(a, b)
    assert r2 is not r and not np.shares_memory(r, r2)


def test_an_input_passed_twice_is_never_written():
    prog = _local(ADD)
    a = _f32(3)
    a0 = a.copy()
    (r,) = prog(a, a)
    assert np.array_equal(a, a0)
    assert np.array_equal(r, (2 * a0.astype(np.float64)).astype(np.float32))
    assert not np.shares_memory(r, a)


def test_results_that_are_inputs_or_repeated_are_the_callers_own():
    prog = _local(
        f"""func.func @main(%a: {F32}, %b: {F32}) -> ({F32}, {F32}, {F32}, {F32}) {{
      %0 = stablehlo.add %a, %b : {F32}
      func.return %a, %0, %0, %b : {F32}, {F32}, {F32}, {F32}
    }}"""
    )
    a, b = _f32(4), _f32(5)
    ra, r1, r2, rb = prog(a, b)
    for x in (ra, r1, r2, rb):
        assert x.__class__ is np.ndarray
        assert not np.shares_memory(x, a) and not np.shares_memory(x, b)
    assert not np.shares_memory(r1, r2)
    assert np.array_equal(ra, a) and np.array_equal(rb, b) and np.array_equal(r1, r2)


def test_select_of_a_scalar_predicate_returning_an_input_is_copied():
    """``select`` on a 0-d predicate hands back an operand itself: here an input."""
    prog = _local(
        """func.func @main(%p: tensor<i1>, %a: tensor<4xf32>, %b: tensor<4xf32>)
            -> (tensor<4xf32>, tensor<4xf32>) {
      %0 = stablehlo.select %p, %a, %b : tensor<i1>, tensor<4xf32>
      %1 = stablehlo.add %a, %b : tensor<4xf32>
      func.return %0, %1 : tensor<4xf32>, tensor<4xf32>
    }"""
    )
    a = np.arange(4, dtype=np.float32)
    b = np.full(4, 10, np.float32)
    s, t = prog(np.array(True), a, b)
    assert not np.shares_memory(s, a) and s.tolist() == [0.0, 1.0, 2.0, 3.0]
    assert t.tolist() == [10.0, 11.0, 12.0, 13.0]


def test_0d_results_are_arrays():
    prog = _local(
        """func.func @main(%a: tensor<f32>, %b: tensor<f32>) -> (tensor<f32>, tensor<f32>) {
      %0 = stablehlo.multiply %a, %b : tensor<f32>
      %1 = stablehlo.add %0, %b : tensor<f32>
      func.return %0, %1 : tensor<f32>, tensor<f32>
    }"""
    )
    r0, r1 = prog(np.array(1.5, np.float32), np.array(3.0, np.float32))
    for r, want in ((r0, 4.5), (r1, 7.5)):
        assert r.__class__ is np.ndarray and r.dtype == np.float32 and r.shape == ()
        assert float(r) == want


def test_a_dying_intermediate_buffer_is_reused_and_inputs_are_not():
    """negate may write into the product's buffer (nobody else holds it); the inputs
    and the results stay right."""
    prog = _local(
        f"""func.func @main(%a: {F32}, %b: {F32}) -> {F64} {{
      %0 = stablehlo.add %a, %b : {F32}
      %1 = stablehlo.convert %0 : ({F32}) -> {F64}
      %2 = stablehlo.multiply %1, %1 : {F64}
      %3 = stablehlo.negate %2 : {F64}
      func.return %3 : {F64}
    }}"""
    )
    a, b = _f32(6), _f32(7)
    a0, b0 = a.copy(), b.copy()
    s = (a.astype(np.float64) + b.astype(np.float64)).astype(np.float32).astype(np.float64)
    for _ in range(2):
        (r,) = prog(a, b)
        assert r.dtype == np.float64 and np.array_equal(r, -(s * s))
        assert np.array_equal(a, a0) and np.array_equal(b, b0)


@pytest.mark.parametrize("n", [N, None], ids=["1e4", "0d"])
def test_float_errors_give_spec_values_and_no_warning(n):
    """inf - inf is NaN, overflow is inf, x / 0 is inf: with warnings as errors and
    NumPy set to warn, nothing escapes, and the caller's NumPy error state is kept."""
    ty = f"tensor<{n}xf32>" if n else "tensor<f32>"
    prog = _local(
        f"""func.func @main(%a: {ty}, %b: {ty}) -> ({ty}, {ty}, {ty}) {{
      %0 = stablehlo.subtract %a, %a : {ty}
      %1 = stablehlo.multiply %b, %b : {ty}
      %z = stablehlo.subtract %b, %b : {ty}
      %2 = stablehlo.divide %b, %z : {ty}
      func.return %0, %1, %2 : {ty}, {ty}, {ty}
    }}"""
    )
    shape = (n,) if n else ()
    a = np.full(shape, np.inf, np.float32)
    b = np.full(shape, 3e38, np.float32)
    with warnings.catch_warnings(), np.errstate(all="warn"):
        warnings.simplefilter("error")
        before = np.geterr()
        nan, big, inf = prog(a, b)
        assert np.geterr() == before
    assert np.isnan(nan).all() and np.isposinf(big).all() and np.isposinf(inf).all()


@pytest.mark.parametrize(
    ("name", "op", "line"), [("F0", "stablehlo.add", 2), ("F1", "stablehlo.multiply", 3)]
)
def test_a_failing_step_is_reported_as_its_op(name, op, line):
    """The error of a written-out step names that op and its position (the line of
    the step is mapped back to it)."""
    text = """func.func @main(%a: tensor<f32>, %b: tensor<f32>) -> tensor<f32> {
  %0 = stablehlo.add %a, %b : tensor<f32>
  %1 = stablehlo.multiply %0, %b : tensor<f32>
  func.return %1 : tensor<f32>
}"""
    prog = _local(text)
    run = prog._run_plain.args[0]

    def boom(*args):
        raise ValueError("boom")

    run.__globals__[name] = boom  # that step's callable
    with pytest.raises(InterpreterError, match="boom") as info:
        prog(np.array(1.0, np.float32), np.array(2.0, np.float32))
    err = info.value
    assert err.op == op
    assert str(err).startswith(f"<string>:{line}:3: error: '{op}' op kernel failed")


def test_a_call_inside_its_own_quiet_context_takes_the_general_path():
    """The written-out call runs in a context of its own; entered already (another
    thread, or here: from inside it), the general path runs instead."""
    prog = _local(ADD)
    a, b = _f32(8), _f32(9)
    quiet = prog._run_plain.func  # the context's ``run``
    (r,) = quiet(lambda: prog(a, b))
    assert np.array_equal(r, (a.astype(np.float64) + b.astype(np.float64)).astype(np.float32))


def test_caps_lowered_after_compiling_still_apply():
    prog = _local(ADD)
    prog.interpreter.limits.memory_cap = 1000
    with pytest.raises(InterpreterError, match="memory cap"):
        prog(_f32(1), _f32(2))


def test_other_inputs_take_the_general_path():
    prog = _local(ADD)
    with pytest.raises(InterpreterError, match="takes 2 arguments, got 1"):
        prog(_f32(1))
    with pytest.raises(InterpreterError, match="dtype float64"):
        prog(np.zeros(N), np.zeros(N))
    (r,) = prog(np.ones(N, np.float32).reshape(1, N)[0], np.ones(N, np.float32))
    assert r.tolist() == [2.0] * N


def test_two_dying_operands_one_buffer():
    """add of two dying converts: one of their buffers takes the sum (either may);
    the values are the float64 sums of the inputs."""
    prog = _local(
        f"""func.func @main(%a: {F32}, %b: {F32}) -> {F64} {{
      %x = stablehlo.convert %a : ({F32}) -> {F64}
      %y = stablehlo.convert %b : ({F32}) -> {F64}
      %z = stablehlo.add %x, %y : {F64}
      func.return %z : {F64}
    }}"""
    )
    a, b = _f32(10), _f32(11)
    want = a.astype(np.float64) + b.astype(np.float64)  # float64 NumPy, one rounding
    for _ in range(2):
        (r,) = prog(a, b)
        assert r.dtype == np.float64 and np.array_equal(r, want)
        assert r.base is None or not np.shares_memory(r, a)
