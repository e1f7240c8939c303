"""Execution benchmarks: each prepared hlorun program against its NumPy floor.

Targets (ratio of medians, same session): large elementwise, reductions, matmul
<= 1.1x; add of 1e4 f32 <= 1.5x (a call's fixed cost); a compute-bound op on the
machine's threads (exp 1e6) <= 1.0x of one NumPy thread; the 10-op chain <= 1.0x
of one NumPy expression and <= 0.6x of one ufunc call per op (fusion,
engine/fusion.py); conv <= 1.5x of im2col + one matmul;
sort <= 1.3x argsort; gather <= 1.5x take; scatter-add <= 1.5x copy + np.add.at; the
1000-iteration scalar while loops (a counter; and 4 mixed f32/i32 ops besides it) <= 0.7x
the same loop in Python on 0-d NumPy arrays; 1000 scalar ops <= 1 ms (<= 1 us per op);
a small 20x20 program parsed, verified and run end to end <= 4 ms; peak memory of the
chain and the models <= 1.5x the largest live set.
Every benchmark also checks hlorun's result against the floor's.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from conftest import ROWS, rand

from hlorun import engine

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def t(shape: tuple[int, ...], ty: str = "f32") -> str:
    return "tensor<" + "x".join(map(str, shape)) + ("x" if shape else "") + ty + ">"


# ------------------------------------------------------------------ elementwise
@pytest.mark.parametrize("n", [10_000, 1_000_000], ids=["1e4", "1e6"])
def test_add_f32(versus, n):
    ty = t((n,))
    prog = engine.compile(f"""func.func @main(%a: {ty}, %b: {ty}) -> {ty} {{
  %0 = stablehlo.add %a, %b : {ty}
  func.return %0 : {ty}
}}""")
    a, b = rand(n, 1), rand(n, 2)
    # The 1.1x target is for large tensors; at 1e4 a call's fixed cost (input checks,
    # NumPy error state: the steps written out on locals, engine/entry.py) is held to
    # 1.5x (issue 19).
    big = n >= 1_000_000
    (r,) = versus(
        lambda: prog(a, b),
        lambda: np.add(a, b),
        ratio=1.1 if big else 1.5,
        note="" if big else "small: fixed per-call cost",
    )
    assert np.array_equal(r, a + b)


def test_exp_f32_1e6_threads(versus):
    """A compute-bound op splits over the cores (engine.parallel): below the one-thread
    floor.  f32 exp is computed in f64 and rounded once (NumPy's own f32 exp is not
    correctly rounded), so the floor does the same."""
    n = 1_000_000
    ty = t((n,))
    prog = engine.compile(f"""func.func @main(%a: {ty}) -> {ty} {{
  %0 = stablehlo.exponential %a : {ty}
  func.return %0 : {ty}
}}""")
    a = rand(n, 3)
    (r,) = versus(
        lambda: prog(a),
        lambda: np.exp(a, dtype=np.float64).astype(np.float32),
        ratio=1.0,
        note="2 threads vs 1",
    )
    assert np.array_equal(r, np.exp(a, dtype=np.float64).astype(np.float32))


CHAIN_OPS = [
    ("add", "%a, %b"),
    ("multiply", "{x}, %a"),
    ("subtract", "{x}, %b"),
    ("divide", "{x}, %b"),
    ("negate", "{x}"),
    ("abs", "{x}"),
    ("sqrt", "{x}"),
    ("multiply", "{x}, %a"),
    ("add", "{x}, %b"),
    ("subtract", "{x}, %a"),
]


def chain_program(n: int) -> str:
    ty = t((n,))
    lines = [f"func.func @main(%a: {ty}, %b: {ty}) -> {ty} {{"]
    for i, (op, args) in enumerate(CHAIN_OPS):
        lines.append(f"  %{i} = stablehlo.{op} {args.format(x=f'%{i - 1}')} : {ty}")
    lines += [f"  func.return %{len(CHAIN_OPS) - 1} : {ty}", "}"]
    return "\n".join(lines)


def chain_floor(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The chain as one NumPy expression (NumPy elides temporaries where it can)."""
    return np.sqrt(np.abs(-(((a + b) * a - b) / b))) * a + b - a


def test_chain10_f32_1e6(versus, peak_vs_live):
    n = 1_000_000
    prog = engine.compile(chain_program(n))
    a, b = rand(n, 1), rand(n, 2) + 4
    peak_vs_live(prog, a, b)
    (r,) = versus(lambda: prog(a, b), lambda: chain_floor(a, b), ratio=1.0)
    assert np.array_equal(r, chain_floor(a, b))


def chain_naive(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The chain as one NumPy ufunc call per op, each into a new array (the naive
    floor: what an unfused interpreter does at best)."""
    x = np.add(a, b)
    x = np.multiply(x, a)
    x = np.subtract(x, b)
    x = np.divide(x, b)
    x = np.negative(x)
    x = np.absolute(x)
    x = np.sqrt(x)
    x = np.multiply(x, a)
    x = np.add(x, b)
    return np.subtract(x, a)


def test_chain10_f32_1e6_fused_vs_naive(versus):
    """engine.fusion: the 10 ops in one pass over cache-sized blocks (on the machine's
    threads), bit-identical to one op at a time."""
    n = 1_000_000
    prog = engine.compile(chain_program(n))
    a, b = rand(n, 1), rand(n, 2) + 4
    (r,) = versus(lambda: prog(a, b), lambda: chain_naive(a, b), ratio=0.6, note="fused")
    assert np.array_equal(r.view(np.uint32), chain_naive(a, b).view(np.uint32))


# ------------------------------------------------------------------ reductions, linalg
def test_reduce_sum_1e6(versus):
    n = 1_000_000
    prog = engine.compile(f"""func.func @main(%a: {t((n,))}) -> tensor<f32> {{
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %r = stablehlo.reduce(%a init: %z) applies stablehlo.add across dimensions = [0] : ({t((n,))}, tensor<f32>) -> tensor<f32>
  func.return %r : tensor<f32>
}}""")
    a = rand(n, 3)
    # the documented f32 schedule, not NumPy's (issue 19: reduce_sum <= 2.0x); its cost
    # per level: benchmarks/test_kernel_speed.py, module docstring
    (r,) = versus(lambda: prog(a), lambda: np.add.reduce(a), ratio=2.0)
    assert float(r) == pytest.approx(float(a.astype(np.float64).sum()), rel=1e-4, abs=1e-2)


@pytest.mark.parametrize("n", [256, 1024])
def test_matmul(versus, n):
    ty = t((n, n))
    prog = engine.compile(f"""func.func @main(%a: {ty}, %b: {ty}) -> {ty} {{
  %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : ({ty}, {ty}) -> {ty}
  func.return %0 : {ty}
}}""")
    a, b = rand((n, n), 4), rand((n, n), 5)
    (r,) = versus(lambda: prog(a, b), lambda: np.matmul(a, b), ratio=1.1)
    np.testing.assert_allclose(r, a @ b, rtol=1e-4, atol=1e-3)


def im2col_conv(x: np.ndarray, w: np.ndarray) -> np.ndarray:
    """NCHW x OIHW, stride 1, pad 1: im2col (one copy) + one matmul."""
    n, c, h, wd = x.shape
    o, _, kh, kw = w.shape
    xp = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)))
    win = np.lib.stride_tricks.sliding_window_view(xp, (kh, kw), axis=(2, 3))  # n,c,h,w,kh,kw
    cols = win.transpose(1, 4, 5, 0, 2, 3).reshape(c * kh * kw, n * h * wd)
    return (w.reshape(o, -1) @ cols).reshape(o, n, h, wd).transpose(1, 0, 2, 3)


def test_conv_1x64x56x56_64x64x3x3(versus):
    xs, ws = (1, 64, 56, 56), (64, 64, 3, 3)
    prog = engine.compile(f"""func.func @main(%x: {t(xs)}, %w: {t(ws)}) -> {t(xs)} {{
  %0 = stablehlo.convolution(%x, %w) dim_numbers = [b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1], window = {{stride = [1, 1], pad = [[1, 1], [1, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1]}} {{batch_group_count = 1 : i64, feature_group_count = 1 : i64}} : ({t(xs)}, {t(ws)}) -> {t(xs)}
  func.return %0 : {t(xs)}
}}""")
    x, w = rand(xs, 6), rand(ws, 7) / 24
    (r,) = versus(lambda: prog(x, w), lambda: im2col_conv(x, w), ratio=1.5)
    np.testing.assert_allclose(r, im2col_conv(x, w), rtol=1e-4, atol=1e-4)


# ------------------------------------------------------------------ sort, gather, scatter
LT = """^bb0(%x: tensor<f32>, %y: tensor<f32>):
      %c = stablehlo.compare LT, %x, %y, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      stablehlo.return %c : tensor<i1>"""

# jnp.sort's comparator (JAX lowering): -0 -> +0, NaN -> one NaN, then totalOrder LT.
JAX_TOTAL_ORDER = """^bb0(%x: tensor<f32>, %y: tensor<f32>):
      %z = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %nan = stablehlo.constant dense<0x7FC00000> : tensor<f32>
      %0 = stablehlo.compare EQ, %x, %z, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %1 = stablehlo.select %0, %z, %x : tensor<i1>, tensor<f32>
      %2 = stablehlo.compare NE, %x, %x, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %3 = stablehlo.select %2, %nan, %1 : tensor<i1>, tensor<f32>
      %4 = stablehlo.compare EQ, %y, %z, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %5 = stablehlo.select %4, %z, %y : tensor<i1>, tensor<f32>
      %6 = stablehlo.compare NE, %y, %y, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %7 = stablehlo.select %6, %nan, %5 : tensor<i1>, tensor<f32>
      %8 = stablehlo.compare LT, %3, %7, TOTALORDER : (tensor<f32>, tensor<f32>) -> tensor<i1>
      stablehlo.return %8 : tensor<i1>"""


@pytest.mark.parametrize("comparator", ["lt", "jax_total_order"])
def test_sort_1e5(versus, comparator):
    n = 100_000
    ty = t((n,))
    body = LT if comparator == "lt" else JAX_TOTAL_ORDER
    prog = engine.compile(f"""func.func @main(%a: {ty}) -> {ty} {{
  %r = "stablehlo.sort"(%a) ({{
    {body}
  }}) {{dimension = 0 : i64, is_stable = true}} : ({ty}) -> {ty}
  func.return %r : {ty}
}}""")
    a = rand(n, 8)
    (r,) = versus(lambda: prog(a), lambda: np.argsort(a, kind="stable"), ratio=1.3)
    assert np.array_equal(r, np.sort(a))


def test_gather_1e4_rows_of_1e5x16(versus):
    xs, n = (100_000, 16), 10_000
    prog = engine.compile(f"""func.func @main(%x: {t(xs)}, %i: {t((n, 1), "i32")}) -> {t((n, 16))} {{
  %r = "stablehlo.gather"(%x, %i) {{dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, indices_are_sorted = false, slice_sizes = array<i64: 1, 16>}} : ({t(xs)}, {t((n, 1), "i32")}) -> {t((n, 16))}
  func.return %r : {t((n, 16))}
}}""")
    x = rand(xs, 9)
    idx = np.random.default_rng(10).integers(0, xs[0], (n, 1)).astype(np.int32)
    flat = idx[:, 0]
    (r,) = versus(lambda: prog(x, idx), lambda: np.take(x, flat, axis=0), ratio=1.5)
    assert np.array_equal(r, x[flat])


def test_scatter_add_1e5(versus):
    n = 100_000
    prog = engine.compile(f"""func.func @main(%x: {t((n,))}, %i: {t((n, 1), "i32")}, %u: {t((n,))}) -> {t((n,))} {{
  %r = "stablehlo.scatter"(%x, %i, %u) ({{
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %s = stablehlo.add %a, %b : tensor<f32>
      stablehlo.return %s : tensor<f32>
  }}) {{scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>, indices_are_sorted = false, unique_indices = false}} : ({t((n,))}, {t((n, 1), "i32")}, {t((n,))}) -> {t((n,))}
  func.return %r : {t((n,))}
}}""")
    x, u = rand(n, 11), rand(n, 12)
    idx = np.random.default_rng(13).integers(0, n, (n, 1)).astype(np.int32)
    flat = idx[:, 0]

    def floor():
        out = x.copy()
        np.add.at(out, flat, u)
        return out

    (r,) = versus(lambda: prog(x, idx, u), floor, ratio=1.5)
    np.testing.assert_allclose(r, floor(), rtol=1e-5, atol=1e-5)


def test_scatter_add_rows_1e4_of_1e5x16(versus):
    xs, n = (100_000, 16), 10_000
    prog = engine.compile(f"""func.func @main(%x: {t(xs)}, %i: {t((n, 1), "i32")}, %u: {t((n, 16))}) -> {t(xs)} {{
  %r = "stablehlo.scatter"(%x, %i, %u) ({{
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %s = stablehlo.add %a, %b : tensor<f32>
      stablehlo.return %s : tensor<f32>
  }}) {{scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>, indices_are_sorted = false, unique_indices = false}} : ({t(xs)}, {t((n, 1), "i32")}, {t((n, 16))}) -> {t(xs)}
  func.return %r : {t(xs)}
}}""")
    x, rows = rand(xs, 14), rand((n, 16), 15)
    idx = np.random.default_rng(16).integers(0, xs[0] // 10, (n, 1)).astype(np.int32)  # duplicates
    flat = idx[:, 0]

    def floor():
        out = x.copy()
        np.add.at(out, flat, rows)
        return out

    (r,) = versus(lambda: prog(x, idx, rows), floor, ratio=1.5)
    assert np.array_equal(r, floor())


def maxpool_floor(x: np.ndarray) -> np.ndarray:
    """3x3 stride-2 max pool, padding 1 (-inf): the max of 9 strided views."""
    xp = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)), constant_values=-np.inf)
    h = (xp.shape[2] - 3) // 2 + 1
    w = (xp.shape[3] - 3) // 2 + 1
    out = xp[:, :, 0 : 2 * h : 2, 0 : 2 * w : 2].copy()
    for i in range(3):
        for j in range(3):
            if i or j:
                np.maximum(out, xp[:, :, i : i + 2 * h : 2, j : j + 2 * w : 2], out=out)
    return out


def test_reduce_window_max_3x3_s2_1x64x112x112(versus):
    xs, ys = (1, 64, 112, 112), (1, 64, 56, 56)
    prog = engine.compile(f"""func.func @main(%x: {t(xs)}) -> {t(ys)} {{
  %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %r = "stablehlo.reduce_window"(%x, %ninf) ({{
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %m = stablehlo.maximum %a, %b : tensor<f32>
      stablehlo.return %m : tensor<f32>
  }}) {{window_dimensions = array<i64: 1, 1, 3, 3>, window_strides = array<i64: 1, 1, 2, 2>, padding = dense<[[0, 0], [0, 0], [1, 1], [1, 1]]> : tensor<4x2xi64>}} : ({t(xs)}, tensor<f32>) -> {t(ys)}
  func.return %r : {t(ys)}
}}""")
    x = rand(xs, 14)
    (r,) = versus(lambda: prog(x), lambda: maxpool_floor(x), ratio=1.5)
    assert np.array_equal(r, maxpool_floor(x))


# ------------------------------------------------------------------ control flow
WHILE = """func.func @main(%n: tensor<i32>) -> tensor<i32> {
  %c0 = stablehlo.constant dense<0> : tensor<i32>
  %c1 = stablehlo.constant dense<1> : tensor<i32>
  %r = stablehlo.while(%i = %c0) : tensor<i32>
   cond {
    %p = stablehlo.compare LT, %i, %n, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %p : tensor<i1>
  } do {
    %j = stablehlo.add %i, %c1 : tensor<i32>
    stablehlo.return %j : tensor<i32>
  }
  func.return %r : tensor<i32>
}"""


def test_while_1000_scalar_adds(versus):
    prog = engine.compile(WHILE)
    n = np.array(1000, np.int32)

    def floor():  # the same loop in Python on 0-d NumPy arrays
        i = np.array(0, np.int32)
        one = np.array(1, np.int32)
        while np.less(i, n):
            i = np.add(i, one)
        return i

    (r,) = versus(lambda: prog(n), floor, ratio=0.7, note="floor: Python loop, 0-d ufuncs")
    assert int(r) == 1000


WHILE_MIXED = """func.func @main(%n: tensor<i32>, %x0: tensor<f32>, %k0: tensor<i32>)
    -> (tensor<i32>, tensor<f32>, tensor<i32>) {
  %c1 = stablehlo.constant dense<1> : tensor<i32>
  %c3 = stablehlo.constant dense<3> : tensor<i32>
  %h = stablehlo.constant dense<0.5> : tensor<f32>
  %q = stablehlo.constant dense<1.25> : tensor<f32>
  %i0 = stablehlo.constant dense<0> : tensor<i32>
  %r:3 = stablehlo.while(%i = %i0, %x = %x0, %k = %k0) : tensor<i32>, tensor<f32>, tensor<i32>
   cond {
    %p = stablehlo.compare LT, %i, %n, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %p : tensor<i1>
  } do {
    %x1 = stablehlo.multiply %x, %h : tensor<f32>
    %x2 = stablehlo.add %x1, %q : tensor<f32>
    %k1 = stablehlo.multiply %k, %c3 : tensor<i32>
    %k2 = stablehlo.add %k1, %i : tensor<i32>
    %j = stablehlo.add %i, %c1 : tensor<i32>
    stablehlo.return %j, %x2, %k2 : tensor<i32>, tensor<f32>, tensor<i32>
  }
  func.return %r#0, %r#1, %r#2 : tensor<i32>, tensor<f32>, tensor<i32>
}"""


def test_while_1000_mixed_body(versus):
    """A body of 4 mixed f32/i32 ops besides the counter (issue 19 item 4)."""
    prog = engine.compile(WHILE_MIXED)
    n, x0, k0 = np.array(1000, np.int32), np.array(3, np.float32), np.array(7, np.int32)

    def floor():  # the same loop in Python on 0-d NumPy arrays
        i, x, k = np.array(0, np.int32), x0, k0
        one, three = np.array(1, np.int32), np.array(3, np.int32)
        h, q = np.array(0.5, np.float32), np.array(1.25, np.float32)
        while np.less(i, n):
            x = np.add(np.multiply(x, h), q)
            k = np.add(np.multiply(k, three), i)
            i = np.add(i, one)
        return i, x, k

    with np.errstate(over="ignore"):
        got = versus(lambda: prog(n, x0, k0), floor, ratio=0.7, note="floor: Python loop")
        want = floor()
    assert all(g.tobytes() == np.asarray(w).tobytes() for g, w in zip(got, want))


# One round of scalar ops (0-d f32): (hlorun lines, NumPy floor step); 10 ops a round.
SCALAR_ROUND = [
    ("%{o}a = stablehlo.add %{x}, %b : tensor<f32>", lambda x, b: np.add(x, b)),
    ("%{o}b = stablehlo.multiply %{o}a, %b : tensor<f32>", lambda x, b: np.multiply(x, b)),
    ("%{o}c = stablehlo.maximum %{o}b, %b : tensor<f32>", lambda x, b: np.maximum(x, b)),
    (
        "%{o}d = stablehlo.compare LT, %{o}c, %b, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>",
        None,
    ),
    (
        "%{o}e = stablehlo.select %{o}d, %b, %{o}c : tensor<i1>, tensor<f32>",
        lambda x, b: np.where(np.less(x, b), b, x),
    ),
    (
        "%{o}f = stablehlo.convert %{o}e : (tensor<f32>) -> tensor<f64>",
        lambda x, b: x.astype(np.float64),
    ),
    (
        "%{o}g = stablehlo.convert %{o}f : (tensor<f64>) -> tensor<f32>",
        lambda x, b: x.astype(np.float32),
    ),
    ("%{o}h = stablehlo.divide %{o}g, %b : tensor<f32>", lambda x, b: np.divide(x, b)),
    ("%{o}i = stablehlo.reshape %{o}h : (tensor<f32>) -> tensor<1xf32>", lambda x, b: x.reshape(1)),
    (
        "%{o}j = stablehlo.reshape %{o}i : (tensor<1xf32>) -> tensor<f32>",
        lambda x, b: x.reshape(()),
    ),
]


def test_dispatch_1000_scalar_ops(versus, benchmark):
    """Per-op dispatch: 100 rounds of 10 scalar ops (add, multiply, maximum, compare,
    select, two converts, divide, two reshapes) in one function; floor: the same NumPy
    calls on 0-d arrays in straight-line Python."""
    rounds = 100
    lines = ["func.func @main(%x: tensor<f32>, %b: tensor<f32>) -> tensor<f32> {"]
    prev = "x"
    for r in range(rounds):
        for text, _ in SCALAR_ROUND:
            lines.append("  " + text.format(o=f"r{r}", x=prev))
        prev = f"r{r}j"
    lines += [f"  func.return %{prev} : tensor<f32>", "}"]
    prog = engine.compile("\n".join(lines))
    x0, b = np.array(1.25, np.float32), np.array(1.0009765625, np.float32)
    steps = [f for _, f in SCALAR_ROUND if f is not None]

    def floor():
        x = x0
        for _ in range(rounds):
            for f in steps:
                x = np.asarray(f(x, b))
        return x

    (r,) = versus(
        lambda: prog(x0, b), floor, absolute=1e-3, note="1000 ops: <= 1 us per op, work included"
    )
    assert np.array_equal(r, floor())
    per_op = benchmark.extra_info["hlorun_median_s"] / (rounds * len(SCALAR_ROUND))
    benchmark.extra_info["per_op_s"] = per_op
    ROWS["dispatch_1000_scalar_ops"].note = f"{per_op * 1e6:.2f} us per op, work included"


# ------------------------------------------------------------------ models, end to end
def mlp_floor(x, w1, b1, w2, b2):
    h = np.maximum(x @ w1 + b1, np.float32(0))
    z = h @ w2 + b2
    e = np.exp(z - z.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def _mlp_weights():
    rng = np.random.default_rng(0)  # as examples/make_examples.py
    x = rng.standard_normal((4, 8)).astype(np.float32)
    w1 = (rng.standard_normal((8, 16)) * 0.5).astype(np.float32)
    b1 = (rng.standard_normal(16) * 0.1).astype(np.float32)
    w2 = (rng.standard_normal((16, 3)) * 0.5).astype(np.float32)
    b2 = (rng.standard_normal(3) * 0.1).astype(np.float32)
    return x, w1, b1, w2, b2


def test_model_mlp_forward(versus, peak_vs_live):
    prog = engine.compile(EXAMPLES / "mlp.mlir", "forward")
    x, *params = _mlp_weights()
    # the example's constants print 7 significant digits: the floor uses the same values
    params = [
        np.float32(np.format_float_scientific(v, 6))
        if v.ndim == 0
        else np.array([float(f"{e:.6e}") for e in v.ravel()], np.float32).reshape(v.shape)
        for v in params
    ]
    x = np.array([float(f"{e:.6e}") for e in x.ravel()], np.float32).reshape(x.shape)
    # peak memory on the same model with a batch of 65536 (MBs: above Python's own objects)
    text = (EXAMPLES / "mlp.mlir").read_text()
    big = "module {\n" + text[text.index("  func.func private @forward") :]  # not @main's x
    big = big.replace("tensor<4x", "tensor<65536x")
    big = big.replace("tensor<4xf32>", "tensor<65536xf32>")
    xb = rand((65536, 8), 17)
    peak_vs_live(engine.compile(big, "forward"), xb)
    (r,) = versus(
        lambda: prog(x),
        lambda: mlp_floor(x, *params),
        ratio=None,
        absolute=None,
        note="tiny model: per-op overhead",
    )
    np.testing.assert_allclose(r, mlp_floor(x, *params), rtol=1e-5, atol=1e-6)


def _cnn_params(batch: int):
    import make_examples as ex

    p = ex.cnn_weights(batch)
    # the example prints small constants with 7 significant digits (w2 and x are exact hex)
    for k in ("w1", "b1", "b2"):
        p[k] = np.array([float(f"{e:.6e}") for e in p[k].ravel()], np.float32).reshape(p[k].shape)
    return p


def test_model_cnn_forward(versus, peak_vs_live):
    import make_examples as ex

    prog = engine.compile(EXAMPLES / "cnn.mlir", "forward")
    p = _cnn_params(ex.CNN_BATCH)
    x = p.pop("x")
    # peak memory on a batch of 64 (1 MB tensors: above Python's own allocations)
    p64 = _cnn_params(64)
    peak_vs_live(engine.compile(ex.cnn(64), "forward"), p64["x"])
    (r,) = versus(
        lambda: prog(x),
        lambda: ex.cnn_reference(x, **p),
        ratio=None,
        note="floor: im2col conv, reshape-max pool",
    )
    np.testing.assert_allclose(r, ex.cnn_reference(x, **p), rtol=1e-4, atol=1e-6)


SMALL = """func.func @main(%a: tensor<20x20xf32>, %b: tensor<20x20xf32>) -> (tensor<20xf32>, tensor<20x20xf32>) {
  %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<20x20xf32>, tensor<20x20xf32>) -> tensor<20x20xf32>
  %1 = stablehlo.add %0, %a : tensor<20x20xf32>
  %cst = stablehlo.constant dense<0.0> : tensor<f32>
  %2 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<20x20xf32>
  %3 = stablehlo.maximum %1, %2 : tensor<20x20xf32>
  %4 = stablehlo.transpose %3, dims = [1, 0] : (tensor<20x20xf32>) -> tensor<20x20xf32>
  %5 = stablehlo.reshape %4 : (tensor<20x20xf32>) -> tensor<400xf32>
  %6 = stablehlo.slice %5 [0:400:2] : (tensor<400xf32>) -> tensor<200xf32>
  %7 = stablehlo.reshape %6 : (tensor<200xf32>) -> tensor<10x20xf32>
  %8 = stablehlo.concatenate %7, %7, dim = 0 : (tensor<10x20xf32>, tensor<10x20xf32>) -> tensor<20x20xf32>
  %9 = stablehlo.compare GT, %8, %b : (tensor<20x20xf32>, tensor<20x20xf32>) -> tensor<20x20xi1>
  %10 = stablehlo.select %9, %8, %b : tensor<20x20xi1>, tensor<20x20xf32>
  %11 = stablehlo.exponential %10 : tensor<20x20xf32>
  %12 = stablehlo.convert %11 : (tensor<20x20xf32>) -> tensor<20x20xf64>
  %13 = stablehlo.convert %12 : (tensor<20x20xf64>) -> tensor<20x20xf32>
  %14 = stablehlo.reduce(%13 init: %cst) applies stablehlo.add across dimensions = [1] : (tensor<20x20xf32>, tensor<f32>) -> tensor<20xf32>
  %15 = stablehlo.multiply %13, %a : tensor<20x20xf32>
  %16 = stablehlo.iota dim = 0 : tensor<20x20xi32>
  %17 = stablehlo.convert %16 : (tensor<20x20xi32>) -> tensor<20x20xf32>
  %18 = stablehlo.subtract %15, %17 : tensor<20x20xf32>
  func.return %14, %18 : tensor<20xf32>, tensor<20x20xf32>
}"""


def small_floor(a, b):
    x = np.maximum(a @ b + a, np.float32(0)).T.reshape(-1)[::2].reshape(10, 20)
    x = np.concatenate([x, x])
    x = np.exp(np.where(x > b, x, b).astype(np.float64)).astype(np.float32)
    iota = np.broadcast_to(np.arange(20, dtype=np.float32)[:, None], (20, 20))
    return x.sum(axis=1), x * a - iota


def test_small_20x20_program_end_to_end(versus):
    a, b = rand((20, 20), 15), rand((20, 20), 16)
    r = versus(
        lambda: engine.run(SMALL, [a, b]),
        lambda: small_floor(a, b),
        absolute=4e-3,
        note="parse + verify + run",
    )
    s, y = small_floor(a, b)
    np.testing.assert_allclose(r[0], s, rtol=1e-5)
    np.testing.assert_allclose(r[1], y, rtol=1e-5, atol=1e-5)
