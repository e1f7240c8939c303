"""stablehlo.reduce: the documented association order (engine/kernels/reduction.py, module
docstring) computed by every fast path, the region path and the thread split, bit for
bit against an explicit reference written here with Python loops:

* ``T``: adjacent pairs level by level, an odd last element carried;
* one reduced dimension that is not the last: ``T`` over left folds of blocks of 32;
* ``body(init, ...)`` at the end.

Every addition of the reference is computed in float64 and rounded once to the dtype
(exact for f16 / bf16 / f32 summands: 53 >= 2p + 2 bits); f64 adds directly.  The data
is adversarial: wide magnitudes, cancellations, signed zeros, subnormals, inf / NaN, so
that a different association order (or a NumPy loop that stops folding in index order)
changes the bits.
"""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

import hlorun.engine.kernels  # noqa: F401  (fills the op table)
from hlorun import shape_inference  # noqa: F401
from hlorun.engine import parallel
from hlorun.engine.kernels import reduction
from hlorun.engine.region_analysis import RegionSummary
from hlorun.engine.values import RegionFn
from hlorun.parser.ir import ComplexType, FloatType, IntegerType, TensorType
from hlorun.shape_inference.optable import OP_TABLE
from tests.support.reduce_schedule import leaves, left_fold, pair_tree

ETYPES = {
    np.dtype(np.float16): FloatType("f16"),
    np.dtype(ml_dtypes.bfloat16): FloatType("bf16"),
    np.dtype(np.float32): FloatType("f32"),
    np.dtype(np.float64): FloatType("f64"),
    np.dtype(np.complex64): ComplexType(FloatType("f32")),
    np.dtype(np.complex128): ComplexType(FloatType("f64")),
}
kernel = OP_TABLE["stablehlo.reduce"].kernel


# ---- the reference ----------------------------------------------------------------------


def rounded(dt: np.dtype, op):
    """``op`` on two values of ``dt``, rounded once to ``dt``."""

    def f(a, b):
        with np.errstate(all="ignore"):
            if dt.kind == "c":
                return dt.type(op(a, b))
            if dt == np.float64:
                return op(np.float64(a), np.float64(b))
            return dt.type(op(np.float64(a), np.float64(b)))

    return f


def ref_reduce(x: np.ndarray, init, dims: tuple[int, ...], op) -> np.ndarray:
    """The documented schedule with explicit loops over result indices."""
    dims = tuple(sorted(dims))
    blocked = len(dims) == 1 and dims[0] != x.ndim - 1
    keep = [d for d in range(x.ndim) if d not in dims]
    moved = np.transpose(x, keep + list(dims))
    out_shape = moved.shape[: len(keep)]
    flat = moved.reshape((int(np.prod(out_shape, dtype=np.int64)), -1))
    res = []
    for row in flat:
        vals = list(row)
        if blocked:
            vals = leaves(vals, op, blocked)
        res.append(op(x.dtype.type(init), pair_tree(vals, op)) if vals else x.dtype.type(init))
    return np.array(res, dtype=x.dtype).reshape(out_shape)


def same_bits(got: np.ndarray, want: np.ndarray) -> None:
    """Bitwise equal; any NaN matches any NaN (payloads are not specified)."""
    assert got.dtype == want.dtype and got.shape == want.shape
    if got.dtype.kind == "c":
        same_bits(np.ascontiguousarray(got.real), np.ascontiguousarray(want.real))
        same_bits(np.ascontiguousarray(got.imag), np.ascontiguousarray(want.imag))
        return
    g, w = got.astype(np.float64), want.astype(np.float64)
    assert np.array_equal(np.isnan(g), np.isnan(w))
    ok = ~np.isnan(w)
    bits = np.dtype(f"u{got.dtype.itemsize}")
    np.testing.assert_array_equal(got[ok].view(bits), want[ok].view(bits))


def nasty(rng, shape, dtype, specials: bool = False) -> np.ndarray:
    dtype = np.dtype(dtype)
    if dtype.kind == "c":
        part = np.float32 if dtype == np.complex64 else np.float64
        z = np.empty(shape, dtype)
        z.real, z.imag = nasty(rng, shape, part, specials), nasty(rng, shape, part, specials)
        return z
    big = 6e4 if dtype == np.float16 else 3e38 if dtype != np.float64 else 1e300
    x = rng.standard_normal(shape) * 10.0 ** rng.integers(-8, 9, size=shape)
    flat = x.reshape(-1)
    n = flat.size
    if n >= 4:
        flat[rng.integers(0, n, size=n // 8 + 1)] = big / 3
        flat[rng.integers(0, n, size=n // 8 + 1)] = -big / 3
        flat[rng.integers(0, n, size=n // 16 + 1)] = -0.0
        flat[rng.integers(0, n, size=n // 16 + 1)] = 0.0
        flat[rng.integers(0, n, size=n // 16 + 1)] = np.finfo(np.float32).tiny / 4
        if specials:
            flat[rng.integers(0, n, size=n // 64 + 1)] = np.inf
            flat[rng.integers(0, n, size=n // 64 + 1)] = -np.inf
            flat[rng.integers(0, n, size=n // 128 + 1)] = np.nan
    with np.errstate(over="ignore"):
        return x.astype(dtype)


def body(op: str, fn, known: bool = True) -> RegionFn:
    summary = RegionSummary.folding(f"stablehlo.{op}") if known else RegionSummary()
    return RegionFn(region=None, call=lambda a, b: (fn(a, b),), summary=summary)


def run(x, init, dims, op="add", fn=np.add, known=True):
    out_shape = tuple(s for i, s in enumerate(x.shape) if i not in dims)
    with np.errstate(all="ignore"):
        (got,) = kernel(
            x,
            np.array(init, dtype=x.dtype),
            result_types=(TensorType(out_shape, ETYPES[x.dtype]),),
            dimensions=tuple(dims),
            body=body(op, fn, known),
        )
    return got


def check(x, init, dims, op="add", fn=np.add):
    """Fast path (known combiner) and region path (unrecognised body) vs the reference."""
    want = ref_reduce(x, init, dims, rounded(x.dtype, fn))
    same_bits(run(x, init, dims, op, fn, True), want)
    same_bits(run(x, init, dims, op, fn, False), want)


# ---- the adjacent-pair tree (last axis / several axes) ----------------------------------


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize(
    "n", [1, 2, 3, 7, 15, 16, 17, 31, 32, 33, 63, 64, 65, 255, 256, 257, 1023, 1025, 4099]
)
def test_1d_sizes_around_powers_of_two(dtype, n):
    x = nasty(np.random.default_rng(n), (n,), dtype)
    check(x, 0.25, (0,))


def test_1d_specials_and_signed_zero():
    rng = np.random.default_rng(1)
    check(nasty(rng, (1000,), np.float32, specials=True), -0.0, (0,))
    allneg = np.full(37, -0.0, np.float32)
    got = run(allneg, -0.0, (0,))
    assert got == 0 and np.signbit(got)


@pytest.mark.parametrize(
    "shape, dims",
    [
        ((5, 37), (1,)),
        ((3, 4, 70), (1, 2)),
        ((9, 3, 66), (0, 2)),
        ((6, 5, 4), (0, 1, 2)),
        ((33, 17), (0, 1)),
    ],
)
def test_pair_tree_multi_axis(shape, dims):
    rng = np.random.default_rng(sum(shape))
    for dtype in (np.float32, np.float64, np.float16, ml_dtypes.bfloat16, np.complex64):
        check(nasty(rng, shape, dtype), -0.0, dims)


# ---- the blocked schedule (one reduced dimension, not the last) -------------------------


@pytest.mark.parametrize(
    "k", [1, 2, 3, 15, 16, 17, 31, 32, 33, 48, 63, 64, 65, 96, 100, 128, 160, 1024, 1040]
)
@pytest.mark.parametrize("inner", [1, 2, 3, 64, 100])
def test_blocked_axis0_sizes(k, inner):
    rng = np.random.default_rng(k * 1000 + inner)
    check(nasty(rng, (k, inner), np.float32), 0.25, (0,))


@pytest.mark.parametrize(
    "dtype", [np.float16, ml_dtypes.bfloat16, np.float64, np.complex64, np.complex128]
)
@pytest.mark.parametrize(
    "shape, dims",
    [
        ((64, 7), (0,)),
        ((37, 70), (0,)),
        ((4, 96, 6), (1,)),
        ((2, 33, 3, 5), (1,)),
        ((256, 2, 2), (0,)),
    ],
)
def test_blocked_dtypes_and_ranks(dtype, shape, dims):
    rng = np.random.default_rng(sum(shape))
    check(nasty(rng, shape, dtype), -0.0, dims)


@pytest.mark.parametrize("shape", [(2048, 2), (4096, 1, 3), (16 * 96, 5)])
def test_blocked_many_full_blocks(shape):
    """Block counts with 2**6 and more as a factor (the bit-reversed leaf layout)."""
    check(nasty(np.random.default_rng(shape[0]), shape, np.float32), 0.5, (0,))


def test_blocked_specials_multiply_and_layouts():
    rng = np.random.default_rng(7)
    x = nasty(rng, (128, 40), np.float32, specials=True)
    check(x, 0.0, (0,))
    # multiply: values near 1 so the products stay finite and depend on the order
    m = (1 + rng.standard_normal((96, 33)) * 0.3).astype(np.float32)
    check(m, 1.5, (0,), op="multiply", fn=np.multiply)
    # non-C-contiguous operands (columns, reversed and strided rows) take other loops
    f = np.asfortranarray(nasty(rng, (64, 48), np.float32))
    check(f, 0.0, (0,))
    check(nasty(rng, (130, 40), np.float32)[::-2], 0.0, (0,))
    check(nasty(rng, (64, 80), np.float32)[:, ::3], 0.0, (0,))
    check(nasty(rng, (64, 2, 40), np.float32).transpose(0, 2, 1), 0.0, (0,))
    allneg = np.full((40, 3), -0.0, np.float32)
    got = run(allneg, -0.0, (0,))
    assert (got == 0).all() and np.signbit(got).all()


def test_numpy_reduce_folds_a_non_inner_axis_in_index_order():
    """The guard for ``_numpy_folds_in_order``: wherever it says yes, ``ufunc.reduce`` is
    the left fold in index order, bit for bit (a NumPy change must fail here)."""
    rng = np.random.default_rng(11)
    cases = [
        ((5, 32, 2), 1),
        ((3, 32, 7), 1),
        ((1, 16, 64), 1),
        ((2, 32, 1000), 1),
        ((2, 32, 3, 5), 1),
        ((2, 3, 32, 9), 2),
        ((16, 33), 0),
        ((1000, 8), 0),
    ]
    for dtype in (np.float32, np.float64, np.float16, ml_dtypes.bfloat16, np.complex64):
        for shape, axis in cases:
            v = nasty(rng, shape, dtype, specials=True)
            np.moveaxis(v, axis, 0)[:, 0] = -0.0  # a fold of -0 only is -0
            assert reduction._numpy_folds_in_order(v, axis)
            for fn in (np.add, np.multiply):
                with np.errstate(all="ignore"):  # exactly the engine's call
                    got = fn.reduce(v, axis=axis, initial=reduction._fold_start(fn, v.dtype))
                op = rounded(v.dtype, fn)
                moved = np.moveaxis(v, axis, -1)
                want = np.array(
                    [left_fold(list(r), op) for r in moved.reshape(-1, shape[axis])], dtype=v.dtype
                ).reshape(moved.shape[:-1])
                same_bits(got, want)
    # and where it says no, the kernel does not rely on NumPy's order
    assert not reduction._numpy_folds_in_order(np.zeros((16, 1), np.float32), 0)
    assert not reduction._numpy_folds_in_order(np.zeros((16, 8), np.float32).T, 1)
    assert not reduction._numpy_folds_in_order(np.zeros((16, 8), np.float32)[:, ::2], 0)


def test_region_path_calls_stay_few():
    """The region path runs the blocked schedule in <= 31 + 31 + log2(K/32) + 1 calls."""
    calls = []

    def add(a, b):
        calls.append(1)
        return (np.add(a, b),)

    x = nasty(np.random.default_rng(3), (1000, 4), np.float32)
    with np.errstate(all="ignore"):
        (got,) = kernel(
            x,
            np.array(0, np.float32),
            result_types=(TensorType((4,), FloatType("f32")),),
            dimensions=(0,),
            body=RegionFn(region=None, call=add),
        )
    same_bits(got, ref_reduce(x, 0, (0,), rounded(x.dtype, np.add)))
    assert len(calls) == 31 + 7 + 5 + 1  # 31 blocks + a block of 8, tree over 32 leaves


def test_variadic_region_path_blocked():
    """A two-operand body (sum, count) runs the same blocked schedule per operand."""
    rng = np.random.default_rng(4)
    x = nasty(rng, (50, 6), np.float32)
    c = rng.integers(-5, 5, size=(50, 6)).astype(np.int32)
    b = RegionFn(region=None, call=lambda a0, a1, b0, b1: (np.add(a0, b0), np.add(a1, b1)))
    f32, i32 = FloatType("f32"), IntegerType(32)
    with np.errstate(all="ignore"):
        got, cnt = kernel(
            x,
            c,
            np.array(0.5, np.float32),
            np.array(1, np.int32),
            result_types=(TensorType((6,), f32), TensorType((6,), i32)),
            dimensions=(0,),
            body=b,
        )
    same_bits(got, ref_reduce(x, 0.5, (0,), rounded(x.dtype, np.add)))
    assert cnt.tolist() == (c.sum(axis=0) + 1).tolist()


# ---- threads: same bits as one thread ----------------------------------------------------


@pytest.fixture
def split_everything(monkeypatch):
    """Split every tree (threshold 0) and restore the thread count afterwards."""
    monkeypatch.setattr(reduction, "_TREE_SPLIT_MIN", 0)
    old = parallel.set_workers(2)
    try:
        yield
    finally:
        parallel.set_workers(old)


@pytest.mark.parametrize(
    "shape, dims",
    [
        ((1000,), (0,)),
        ((1025,), (0,)),
        ((3, 513), (1,)),
        ((1, 4097), (1,)),
        ((70, 9), (0,)),
        ((100, 1), (0,)),
        ((5, 6, 7), (0, 2)),
        ((2, 300), (0, 1)),
    ],
)
def test_two_threads_same_bits(split_everything, shape, dims):
    rng = np.random.default_rng(sum(shape))
    for dtype in (np.float32, np.float64, np.float16):
        x = nasty(rng, shape, dtype)
        check(x, 0.25, dims)


@pytest.mark.parametrize("parts", [2, 3, 4, 8])
@pytest.mark.parametrize("k", [2, 3, 5, 16, 17, 100, 1024, 1025])
def test_tree_split_equals_serial(parts, k):
    """``_tree_split`` (slabs, or aligned subtrees when no kept axis is long enough) gives
    the serial tree's bits, for any number of pieces."""
    rng = np.random.default_rng(k + parts)
    old = parallel.set_workers(parts)
    try:
        for shape, axis in (((k,), 0), ((1, k), 1), ((k, 1), 0), ((3, k), 1), ((k, 5), 0)):
            x = nasty(rng, shape, np.float32)
            with np.errstate(all="ignore"):
                want = reduction._tree_serial(x, axis, np.add)
                same_bits(reduction._tree_split(x, axis, np.add, parts), want)
                if axis < x.ndim - 1 and x.shape[1 - axis] >= parts:
                    want = reduction._blocked_tree_serial(x, axis, np.add)
                    got = reduction._tree_split(
                        x, axis, np.add, parts, reduction._blocked_tree_serial
                    )
                    same_bits(got, want)
    finally:
        parallel.set_workers(old)


def test_large_reduction_one_vs_two_threads():
    """Above the real threshold: the kernel with 2 threads gives the 1-thread bits."""
    rng = np.random.default_rng(9)
    x = rng.standard_normal(reduction._TREE_SPLIT_MIN + 12345).astype(np.float32)
    x[::7] *= 1e6
    m = rng.standard_normal((reduction._TREE_SPLIT_MIN // 512, 512)).astype(np.float32)
    old = parallel.set_workers(1)
    try:
        one = [run(x, 0.0, (0,)), run(m, 0.0, (0,)), run(m, 0.0, (1,))]
        parallel.set_workers(2)
        two = [run(x, 0.0, (0,)), run(m, 0.0, (0,)), run(m, 0.0, (1,))]
    finally:
        parallel.set_workers(old)
    for a, b in zip(one, two):
        same_bits(b, a)
