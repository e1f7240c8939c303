"""The steps of a scan body (lax.scan as JAX exports it, TensorFlow's RNN loops):
slice, dynamic_slice, dynamic_update_slice, transpose, dot and mhlo.copy planned once
(``fast_plan``: static bounds, start indices clamped in Python ints); a
dynamic_update_slice written into its dying operand's buffer; a while body's
loop-invariant steps run once per loop.

Expected values come from the spec's index formulas written here with NumPy
(``clamp(0, start, dim - size)``, spec "dynamic_slice" / "dynamic_update_slice"),
exact integer arithmetic, or plain loops, never from hlorun's own output.
"""

from __future__ import annotations

import tracemalloc

import numpy as np
import pytest

from hlorun import engine
from hlorun.engine.interpreter import Interpreter
from hlorun.engine.plan import INPLACE_MIN_ELEMENTS
from hlorun.parser import parse_module


def same(x, y) -> bool:
    x, y = np.asarray(x), np.asarray(y)
    return x.dtype == y.dtype and x.shape == y.shape and x.tobytes() == y.tobytes()


def kinds(text: str) -> dict[str, str]:
    """The step kind of each op of @main's block."""
    return {st.op.name: st.kind for st in Interpreter(parse_module(text)).plan("main").block.steps}


def clamp(start: int, dim: int, size: int) -> int:
    return min(max(start, 0), dim - size)


INDEX_CASES = [
    ("i32", np.int32, [-5, 2]),
    ("i8", np.int8, [127, -128]),
    ("i64", np.int64, [-(2**62), 2**62]),
    ("ui64", np.uint64, [2**64 - 1, 1]),
    ("ui8", np.uint8, [0, 255]),
]


@pytest.mark.parametrize(("ity", "idt", "starts"), INDEX_CASES)
@pytest.mark.parametrize(("ety", "edt"), [("f32", np.float32), ("i16", np.int16)])
def test_dynamic_slice_clamps_every_index_type(ity, idt, starts, ety, edt):
    text = f"""func.func @main(%x: tensor<7x9x{ety}>, %i: tensor<{ity}>, %j: tensor<{ity}>)
    -> tensor<3x4x{ety}> {{
  %0 = stablehlo.dynamic_slice %x, %i, %j, sizes = [3, 4]
    : (tensor<7x9x{ety}>, tensor<{ity}>, tensor<{ity}>) -> tensor<3x4x{ety}>
  func.return %0 : tensor<3x4x{ety}>
}}"""
    assert kinds(text)["stablehlo.dynamic_slice"] == "fast"
    x = np.arange(63).reshape(7, 9).astype(edt)
    i, j = (idt(s) for s in starts)
    (r,) = engine.run(text, [x, np.array(i), np.array(j)])
    a, b = clamp(int(i), 7, 3), clamp(int(j), 9, 4)
    assert same(r, x[a : a + 3, b : b + 4])


@pytest.mark.parametrize(("ity", "idt", "starts"), INDEX_CASES)
def test_dynamic_update_slice_clamps_and_leaves_the_inputs(ity, idt, starts):
    n = 4 * INPLACE_MIN_ELEMENTS  # big enough to be written in place when it dies
    text = f"""func.func @main(%x: tensor<4x{n}xf32>, %u: tensor<2x3xf32>,
    %i: tensor<{ity}>, %j: tensor<{ity}>) -> (tensor<4x{n}xf32>, tensor<4x{n}xf32>) {{
  %0 = stablehlo.negate %x : tensor<4x{n}xf32>
  %1 = stablehlo.dynamic_update_slice %0, %u, %i, %j
    : (tensor<4x{n}xf32>, tensor<2x3xf32>, tensor<{ity}>, tensor<{ity}>) -> tensor<4x{n}xf32>
  %2 = stablehlo.dynamic_update_slice %x, %u, %j, %i
    : (tensor<4x{n}xf32>, tensor<2x3xf32>, tensor<{ity}>, tensor<{ity}>) -> tensor<4x{n}xf32>
  func.return %1, %2 : tensor<4x{n}xf32>, tensor<4x{n}xf32>
}}"""
    assert kinds(text)["stablehlo.dynamic_update_slice"] == "fast"
    x = np.arange(4 * n, dtype=np.float32).reshape(4, n)
    x0 = x.copy()
    u = -np.arange(1, 7, dtype=np.float32).reshape(2, 3)
    i, j = (idt(s) for s in starts)
    r1, r2 = engine.run(text, [x, u, np.array(i), np.array(j)])
    w1 = -x0
    a, b = clamp(int(i), 4, 2), clamp(int(j), n, 3)
    w1[a : a + 2, b : b + 3] = u
    w2 = x0.copy()
    a, b = clamp(int(j), 4, 2), clamp(int(i), n, 3)
    w2[a : a + 2, b : b + 3] = u
    assert same(r1, w1) and same(r2, w2)
    assert same(x, x0)  # the caller's array is never written


@pytest.mark.parametrize(
    ("shape", "start", "limit", "strides"),
    [
        ((16, 1024), (0, 256), (16, 512), (1, 1)),
        ((5, 7), (1, 0), (5, 7), (2, 3)),
        ((5, 7), (2, 3), (2, 3), (1, 1)),  # empty
        ((3, 4, 5), (0, 1, 4), (3, 4, 5), (1, 2, 1)),
    ],
)
def test_slice_takes_the_spec_elements(shape, start, limit, strides):
    rs = tuple(len(range(s, e, k)) for s, e, k in zip(start, limit, strides))

    def ty(s):
        return "tensor<" + "".join(f"{d}x" for d in s) + "f64>"

    text = f"""func.func @main(%x: {ty(shape)}) -> {ty(rs)} {{
  %0 = stablehlo.slice %x [{", ".join(f"{s}:{e}:{k}" for s, e, k in zip(start, limit, strides))}]
    : ({ty(shape)}) -> {ty(rs)}
  func.return %0 : {ty(rs)}
}}"""
    assert kinds(text)["stablehlo.slice"] == "fast"
    x = np.arange(np.prod(shape), dtype=np.float64).reshape(shape)
    (r,) = engine.run(text, [x])
    want = np.empty(rs)
    for idx in np.ndindex(*rs):  # spec: operand_index = start + result_index * strides
        want[idx] = x[tuple(s + i * k for s, i, k in zip(start, idx, strides))]
    assert same(r, want)


SCAN = """func.func @main(%xs: tensor<{t}x4x{h}xf32>, %init: tensor<{t}x4x{h}xf32>)
    -> ({types}) {{
  %c0 = stablehlo.constant dense<0> : tensor<i32>
  %c1 = stablehlo.constant dense<1> : tensor<i32>
  %ct = stablehlo.constant dense<{t}> : tensor<i32>
  %z = stablehlo.constant dense<0.0> : tensor<4x{h}xf32>
  {start}
  %r:3 = stablehlo.while(%i = %c0, %s = %z, %out = %o) : tensor<i32>, tensor<4x{h}xf32>, tensor<{t}x4x{h}xf32>
   cond {{
    %p = stablehlo.compare LT, %i, %ct, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %p : tensor<i1>
  }} do {{
    %x3 = stablehlo.dynamic_slice %xs, %i, %c0, %c0, sizes = [1, 4, {h}]
      : (tensor<{t}x4x{h}xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x4x{h}xf32>
    %x = stablehlo.reshape %x3 : (tensor<1x4x{h}xf32>) -> tensor<4x{h}xf32>
    %s2 = stablehlo.add %s, %x : tensor<4x{h}xf32>
    %u = stablehlo.broadcast_in_dim %s2, dims = [1, 2] : (tensor<4x{h}xf32>) -> tensor<1x4x{h}xf32>
    %o2 = stablehlo.dynamic_update_slice %out, %u, %i, %c0, %c0
      : (tensor<{t}x4x{h}xf32>, tensor<1x4x{h}xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<{t}x4x{h}xf32>
    %j = stablehlo.add %i, %c1 : tensor<i32>
    stablehlo.return %j, %s2, %o2 : tensor<i32>, tensor<4x{h}xf32>, tensor<{t}x4x{h}xf32>
  }}
  func.return {results} : {types}
}}"""


def scan(t: int, h: int, start: str, second: str | None) -> str:
    """SCAN with the stacked output starting as ``start`` (a line defining %o), and a
    second result when ``second`` names one."""
    results = ["%r#2"] + ([second] if second else [])
    ty = f"tensor<{t}x4x{h}xf32>"
    return SCAN.format(
        t=t,
        h=h,
        start=start.format(t=t, h=h),
        results=", ".join(results),
        types=", ".join([ty] * len(results)),
    )


# where the stacked output starts: a constant (shared by every run), the caller's
# array (returned too), a fresh array nobody else holds
STARTS = {
    "constant": ("%o = stablehlo.constant dense<7.0> : tensor<{t}x4x{h}xf32>", "%o", 7.0),
    "argument": (
        "%o = stablehlo.reshape %init : (tensor<{t}x4x{h}xf32>) -> tensor<{t}x4x{h}xf32>",
        "%init",
        None,
    ),
    "fresh": ("%o = stablehlo.negate %init : tensor<{t}x4x{h}xf32>", "%xs", None),
}


@pytest.mark.parametrize("start", sorted(STARTS))
@pytest.mark.parametrize("h", [8, INPLACE_MIN_ELEMENTS])
def test_scan_stacks_its_steps_without_touching_shared_buffers(start, h):
    """A cumulative sum as lax.scan writes it: each step's slice read with
    dynamic_slice, the carry stacked with dynamic_update_slice into the loop-carried
    output (in place when nobody else holds it).  Constants, the caller's arrays and a
    second result holding the start buffer keep their values, run after run."""
    t = 6
    line, second, fill = STARTS[start]
    text = scan(t, h, line, second)
    rng = np.random.default_rng(0)
    xs = rng.integers(-8, 8, size=(t, 4, h)).astype(np.float32)
    init = rng.integers(-8, 8, size=(t, 4, h)).astype(np.float32)
    xs0, init0 = xs.copy(), init.copy()
    want = np.cumsum(xs.astype(np.float64), axis=0).astype(np.float32)  # exact: small ints
    want2 = {"constant": np.full_like(xs, fill or 0), "argument": init0, "fresh": xs0}[start]
    prog = engine.compile(text)
    for _ in range(3):
        r, r2 = prog(xs, init)
        assert same(r, want) and same(r2, want2)
        assert same(xs, xs0) and same(init, init0)


def test_a_dying_stacked_output_is_written_in_place():
    """The loop-carried output of a scan is written slice by slice into one buffer:
    the run's peak memory stays near one copy of it (a copy per step would double it)."""
    t, h = 64, 4 * INPLACE_MIN_ELEMENTS
    text = scan(t, h, STARTS["fresh"][0], None)
    xs = np.ones((t, 4, h), np.float32)
    prog = engine.compile(text)
    prog(xs, xs)
    nbytes = xs.nbytes
    tracemalloc.start()
    try:
        (r,) = prog(xs, xs)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert same(r[:, 0, 0], np.arange(1, t + 1, dtype=np.float32))
    assert peak < 1.5 * nbytes, (peak, nbytes)


@pytest.mark.parametrize(
    ("shape", "perm"), [((3, 4), (1, 0)), ((2, 3, 5), (2, 0, 1)), ((4,), (0,))]
)
def test_transpose_takes_the_spec_elements(shape, perm):
    """A transpose (TF's RNN loop bodies have one per step) planned once."""

    def ty(s):
        return "tensor<" + "".join(f"{d}x" for d in s) + "i32>"

    rs = tuple(shape[d] for d in perm)
    text = f"""func.func @main(%x: {ty(shape)}) -> {ty(rs)} {{
  %0 = stablehlo.transpose %x, dims = {list(perm)} : ({ty(shape)}) -> {ty(rs)}
  func.return %0 : {ty(rs)}
}}"""
    assert kinds(text)["stablehlo.transpose"] == "fast"
    x = np.arange(np.prod(shape), dtype=np.int32).reshape(shape)
    (r,) = engine.run(text, [x])
    want = np.empty(rs, np.int32)
    for idx in np.ndindex(*shape):  # spec: result[i[perm[0]], ...] = operand[i]
        want[tuple(idx[d] for d in perm)] = x[idx]
    assert same(r, want)


# ------------------------------------------------------------- loop-invariant steps
# A scan's weights are loop-carried values the body returns unchanged; steps on them
# alone (a bias broadcast, a weight's convert) give the same value at every iteration.
INVARIANT = """func.func @main(%x: tensor<4xf32>, %w: tensor<4xf64>, %n: tensor<i32>)
    -> (tensor<4xf32>, tensor<4xf64>) {{
  %c0 = stablehlo.constant dense<0> : tensor<i32>
  %c1 = stablehlo.constant dense<1> : tensor<i32>
  %outer = stablehlo.negate %x : tensor<4xf32>
  %r:4 = stablehlo.while(%i = %c0, %acc = %x, %wc = %w, %o = %outer)
    : tensor<i32>, tensor<4xf32>, tensor<4xf64>, tensor<4xf32>
   cond {{
    %p = stablehlo.compare LT, %i, %n, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %p : tensor<i1>
  }} do {{
    %w32 = stablehlo.convert %wc : (tensor<4xf64>) -> tensor<4xf32>
    %b = stablehlo.multiply %w32, %outer : tensor<4xf32>
    %t = stablehlo.add %acc, %b : tensor<4xf32>
    %j = stablehlo.add %i, %c1 : tensor<i32>
    stablehlo.return %j, %t, %wc, %o : tensor<i32>, tensor<4xf32>, tensor<4xf64>, tensor<4xf32>
  }}
  func.return %r#1, %r#2 : tensor<4xf32>, tensor<4xf64>
}}"""


def invariant_want(x, w, n):
    b = (w.astype(np.float32) * -x).astype(np.float32)  # exact: small integers
    return x + np.float32(n) * b


def test_loop_invariant_steps_are_planned_once_per_loop():
    body = [st for st in Interpreter(parse_module(INVARIANT.format())).plan("main").block.steps]
    (wh,) = [st for st in body if st.kind == "while"]
    hoisted = [wh.blocks[1].steps[k].op.name for k in wh.blocks[1].hoisted]
    assert hoisted == ["stablehlo.convert", "stablehlo.multiply"]


@pytest.mark.parametrize("n", [0, 1, 5])
def test_loop_invariant_steps_run_once_and_only_when_the_loop_does(n):
    """The converted weight times an enclosing block's value: the same result, the two
    invariant steps run once (the profile counts what ran), never for a loop of no
    iteration; a callback still sees every step of every iteration."""
    x = np.arange(1, 5, dtype=np.float32)
    w = np.array([2, -1, 3, 0.5])
    args = [x, w, np.array(n, np.int32)]
    prof = engine.Profile()
    r, rw = engine.run(INVARIANT.format(), args, profile=prof)
    assert same(r, invariant_want(x, w, n)) and same(rw, w)

    def ran(op: str) -> int:
        return prof.ops[op].count if op in prof.ops else 0

    assert ran("stablehlo.add") == 2 * n
    assert ran("stablehlo.convert") == ran("stablehlo.multiply") == min(n, 1)
    seen: list[str] = []
    r2, _ = engine.run(INVARIANT.format(), args, callback=lambda name, pos, v: seen.append(name))
    assert same(r2, r) and seen.count("stablehlo.convert") == n
    r3, _ = engine.run(INVARIANT.format(), args, max_steps=10**6)
    assert same(r3, r)


NESTED = """func.func @main(%x: tensor<3xf32>) -> tensor<3xf32> {
  %c0 = stablehlo.constant dense<0> : tensor<i32>
  %c1 = stablehlo.constant dense<1> : tensor<i32>
  %c3 = stablehlo.constant dense<3> : tensor<i32>
  %r:2 = stablehlo.while(%i = %c0, %acc = %x) : tensor<i32>, tensor<3xf32>
   cond {
    %p = stablehlo.compare LT, %i, %c3, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %p : tensor<i1>
  } do {
    %f = stablehlo.convert %i : (tensor<i32>) -> tensor<f32>
    %s:3 = stablehlo.while(%k = %c0, %a = %acc, %g = %f) : tensor<i32>, tensor<3xf32>, tensor<f32>
     cond {
      %q = stablehlo.compare LT, %k, %c3, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %q : tensor<i1>
    } do {
      %gb = stablehlo.broadcast_in_dim %g, dims = [] : (tensor<f32>) -> tensor<3xf32>
      %a2 = stablehlo.add %a, %gb : tensor<3xf32>
      %k2 = stablehlo.add %k, %c1 : tensor<i32>
      stablehlo.return %k2, %a2, %g : tensor<i32>, tensor<3xf32>, tensor<f32>
    }
    %j = stablehlo.add %i, %c1 : tensor<i32>
    stablehlo.return %j, %s#1 : tensor<i32>, tensor<3xf32>
  }
  func.return %r#1 : tensor<3xf32>
}"""


def test_an_inner_loops_invariants_follow_the_outer_iteration():
    """The inner loop's broadcast of an outer-iteration value is recomputed each time
    the inner loop starts: x + 3 * (0 + 1 + 2)."""
    x = np.array([1, 2, 3], np.float32)
    (r,) = engine.run(NESTED, [x])
    assert same(r, x + np.float32(9))


@pytest.mark.parametrize(
    ("ls", "rs"), [((2, 4), (4, 3)), ((2, 4), (4,)), ((4,), (4, 3)), ((4,), (4,))]
)
def test_legacy_dot_takes_the_fast_path(ls, rs):
    """TF's RNN loop bodies multiply by stablehlo.dot each step: planned as the
    dot_general it is (integer-valued floats: the sums are exact)."""

    def ty(s):
        return "tensor<" + "".join(f"{d}x" for d in s) + "f32>"

    out = ls[:-1] + rs[1:]
    text = f"""func.func @main(%a: {ty(ls)}, %b: {ty(rs)}) -> {ty(out)} {{
  %0 = stablehlo.dot %a, %b : ({ty(ls)}, {ty(rs)}) -> {ty(out)}
  func.return %0 : {ty(out)}
}}"""
    assert kinds(text)["stablehlo.dot"] == "fast"
    rng = np.random.default_rng(1)
    a = rng.integers(-5, 5, size=ls).astype(np.float32)
    b = rng.integers(-5, 5, size=rs).astype(np.float32)
    (r,) = engine.run(text, [a, b])
    want = np.tensordot(a.astype(np.int64), b.astype(np.int64), axes=(len(ls) - 1, 0))
    assert same(r, want.astype(np.float32))


def test_mhlo_copy_is_planned_and_returns_a_new_array():
    """TensorFlow's RNN loop bodies copy each step: planned once, a copy still."""
    text = """func.func @main(%x: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>) {
  %0 = stablehlo.negate %x : tensor<2x3xf32>
  %1 = mhlo.copy %0 : tensor<2x3xf32>
  func.return %0, %1 : tensor<2x3xf32>, tensor<2x3xf32>
}"""
    assert kinds(text)["mhlo.copy"] == "fast"
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    a, b = engine.run(text, [x])
    assert same(a, -x) and same(b, -x) and not np.shares_memory(a, b)
