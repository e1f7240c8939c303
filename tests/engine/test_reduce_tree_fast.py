"""The fast float-sum schedule (engine/kernels/reduction_tree.py) against the documented
tree written out here independently (engine/kernels/reduction.py, module docstring):

* ``T``: adjacent pairs level by level, an odd last element carried to the next level;
* one reduced dimension that is not the last: ``T`` over left folds of blocks of 32;
* the result is ``body(init, T(...))``.

The reference computes every pair in float64 and rounds it to the operand's type with
``astype`` (for f16 / bf16 / f32 summands the float64 sum rounded once more is the
correctly rounded sum: 53 >= 2p + 2 bits); float64 adds directly.  It never touches the
complex-multiply trick, the rows-of-8 reduction or the kernel's code.  Comparisons are
bitwise (signed zeros included); any NaN matches any NaN (payloads are unspecified).
"""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import hlorun.engine.kernels  # noqa: F401  (fills the kernel column)
from hlorun import shape_inference  # noqa: F401
from hlorun.engine.kernels import reduction_tree
from hlorun.engine.region_analysis import RegionSummary
from hlorun.engine.values import RegionFn
from hlorun.parser.ir import FloatType, TensorType
from hlorun.shape_inference.optable import OP_TABLE

F64 = np.dtype(np.float64)
DTYPES = {
    np.dtype(np.float32): FloatType("f32"),
    np.dtype(np.float64): FloatType("f64"),
    np.dtype(np.float16): FloatType("f16"),
    np.dtype(ml_dtypes.bfloat16): FloatType("bf16"),
}
BLOCK = 32
kernel = OP_TABLE["stablehlo.reduce"].kernel


# ---- the reference ----------------------------------------------------------------------


def _round(v: np.ndarray, dt: np.dtype) -> np.ndarray:
    """float64 values rounded to ``dt`` (and held in float64 again)."""
    return v if dt == F64 else v.astype(dt).astype(F64)


def ref_tree(v: np.ndarray, dt: np.dtype) -> np.ndarray:
    """The adjacent-pair tree along the last axis of float64 values of type ``dt``."""
    while v.shape[-1] > 1:
        h = v.shape[-1] // 2
        pairs = _round(v[..., 0 : 2 * h : 2] + v[..., 1 : 2 * h : 2], dt)
        v = np.concatenate([pairs, v[..., 2 * h :]], axis=-1)  # the odd one is carried
    return v[..., 0]


def ref_blocked(v: np.ndarray, dt: np.dtype) -> np.ndarray:
    """``T`` over left folds of ``BLOCK`` consecutive entries along the last axis."""
    k = v.shape[-1]
    leaves = []
    for start in range(0, k, BLOCK):
        acc = v[..., start]
        for j in range(start + 1, min(start + BLOCK, k)):
            acc = _round(acc + v[..., j], dt)
        leaves.append(acc)
    return ref_tree(np.stack(leaves, axis=-1), dt)


def ref_reduce(x: np.ndarray, init: float, axis: int) -> np.ndarray:
    """The documented schedule of ``reduce(x, init, add)`` over one dimension."""
    dt = x.dtype
    moved = np.moveaxis(x.astype(F64), axis, -1)
    with np.errstate(all="ignore"):
        t = ref_tree(moved, dt) if axis == x.ndim - 1 else ref_blocked(moved, dt)
        return _round(np.float64(dt.type(init)) + t, dt).astype(dt)


def _round_scalar(v: np.float64, dt: np.dtype) -> np.float64:
    return np.float64(dt.type(v))


def same_bits(got: np.ndarray, want: np.ndarray) -> None:
    assert got.dtype == want.dtype and got.shape == want.shape
    g, w = np.atleast_1d(got), np.atleast_1d(want)
    nan = np.isnan(w.astype(F64))
    assert np.array_equal(np.isnan(g.astype(F64)), nan)
    bits = np.dtype(f"u{got.dtype.itemsize}")
    np.testing.assert_array_equal(g[~nan].view(bits), w[~nan].view(bits))


# ---- the kernel -------------------------------------------------------------------------


def run(x: np.ndarray, init: float, axis: int) -> np.ndarray:
    body = RegionFn(
        region=None,
        call=lambda a, b: (np.add(a, b),),
        summary=RegionSummary.folding("stablehlo.add"),
    )
    out_shape = tuple(s for i, s in enumerate(x.shape) if i != axis)
    with np.errstate(all="ignore"):
        (got,) = kernel(
            x,
            np.array(init, dtype=x.dtype),
            result_types=(TensorType(out_shape, DTYPES[x.dtype]),),
            dimensions=(axis,),
            body=body,
        )
    return got


def check(x: np.ndarray, init: float = -0.0) -> None:
    for axis in range(x.ndim):
        same_bits(run(x, init, axis), ref_reduce(x, init, axis))


SPECIALS = [-0.0, 0.0, np.inf, -np.inf, np.nan, 1e-45, -1e-45, 3e38, -3e38, 6e4, 1.0, -1.0]


def nasty(rng: np.random.Generator, shape, dtype, specials: bool = True) -> np.ndarray:
    """Wide magnitudes and exact cancellations (the sum depends on the order), signed
    zeros, subnormals, and optionally inf / NaN."""
    v = rng.standard_normal(shape) * 10.0 ** rng.integers(-8, 9, size=shape)
    flat = v.reshape(-1)
    n = flat.size
    flat[rng.integers(0, n, n // 5 + 1)] *= -1e7
    idx = rng.integers(0, max(n - 1, 1), n // 6 + 1)
    flat[idx] = -flat[np.minimum(idx + 1, n - 1)]  # neighbours that cancel
    flat[rng.integers(0, n, n // 16 + 1)] = -0.0
    if specials:
        flat[rng.integers(0, n, n // 64 + 1)] = rng.choice(SPECIALS, n // 64 + 1)
    with np.errstate(over="ignore"):
        return v.astype(dtype)


# ---- the reference itself can fail ------------------------------------------------------


def test_reference_is_order_sensitive_and_matches_a_scalar_loop():
    """The data used here changes bits under another association order, and the
    vectorised reference equals an element-by-element loop over the same tree."""
    x = nasty(np.random.default_rng(0), (1001,), np.float32, specials=False)
    want = ref_reduce(x, -0.0, 0)
    assert want != np.add.reduce(x)  # NumPy's own (different) pairwise order
    acc = np.float32(-0.0)
    for v in x:  # the left fold
        acc = np.float32(np.float64(acc) + np.float64(v))
    assert want != acc
    vals = [np.float64(v) for v in x]
    while len(vals) > 1:
        nxt = [_round_scalar(vals[i] + vals[i + 1], x.dtype) for i in range(0, len(vals) - 1, 2)]
        vals = nxt + vals[len(vals) - 1 :] if len(vals) % 2 else nxt
    assert np.float32(vals[0]) == want


# ---- properties -------------------------------------------------------------------------


@st.composite
def cases(draw):
    dtype = draw(st.sampled_from(list(DTYPES)))
    if draw(st.booleans()):
        shape = (draw(st.integers(1, 1100)),)
    else:
        shape = (draw(st.integers(1, 70)), draw(st.integers(1, 70)))
    seed = draw(st.integers(0, 2**32 - 1))
    x = nasty(np.random.default_rng(seed), shape, dtype, specials=draw(st.booleans()))
    # a few exact values placed by hypothesis (shrinks to the offending element)
    for _ in range(draw(st.integers(0, 3))):
        i = draw(st.integers(0, x.size - 1))
        with np.errstate(over="ignore"):
            x.reshape(-1)[i] = dtype.type(draw(st.sampled_from(SPECIALS)))
    init = draw(st.sampled_from([-0.0, 0.0, 0.25, -3.5, np.inf]))
    return x, init


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cases())
def test_fast_schedule_is_the_documented_tree(case):
    x, init = case
    check(x, init)


@pytest.mark.parametrize("dtype", list(DTYPES))
@pytest.mark.parametrize("n", [(1 << 17) + 3, 1_000_000])
def test_large_sums(dtype, n):
    x = nasty(np.random.default_rng(n), (n,), dtype)
    same_bits(run(x, 0.0, 0), ref_reduce(x, 0.0, 0))


@pytest.mark.parametrize(
    "n", [1, 2, 3, 7, 8, 9, 15, 16, 17, 31, 33, 63, 64, 65, 1023, 1024, 1025, 2047, 2049, 4099]
)
def test_sizes_around_the_tail_and_pair_thresholds(n):
    """Odd lengths at every level, the rows-of-8 tail taking over from 512 values down,
    and the complex pairing from 16 pairs up."""
    for dtype in (np.float32, np.float64):
        check(nasty(np.random.default_rng(n), (n,), dtype, specials=False))


@pytest.mark.parametrize("shape", [(3, 37), (16, 64), (128, 9), (129, 9), (1, 1000), (300, 5)])
def test_rows_along_each_axis(shape):
    """Lead rows ride along every level (tail: when the rows of 8 are few enough)."""
    for dtype in DTYPES:
        check(nasty(np.random.default_rng(sum(shape)), shape, dtype))


def test_all_negative_zero_and_specials():
    for dtype in DTYPES:
        for n in (5, 8, 40, 1000, 5000):
            z = np.full(n, -0.0, dtype)
            got = run(z, -0.0, 0)
            assert got == 0 and np.signbit(got)
            assert not np.signbit(run(z, 0.0, 0))
        x = np.array([1.0, np.inf, -np.inf, 2.0] * 9, dtype)
        assert np.isnan(run(x, 0.0, 0))
        check(nasty(np.random.default_rng(3), (999,), dtype))


def test_non_contiguous_operands():
    """Strided and transposed views take the plain strided level (no complex view)."""
    rng = np.random.default_rng(5)
    base = nasty(rng, (40, 300), np.float32)
    for x in (base[:, ::3], base[::-1, ::2], base.T, base[:, 1:]):
        check(x)


# ---- the NumPy behaviour the tail relies on ---------------------------------------------


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_numpy_rows_of_8_reduce_is_the_pair_tree(dtype):
    """``np.add.reduce`` over rows of 8 with ``initial=-0.0`` is the adjacent-pair tree
    of each row (NumPy's pairwise summation); a NumPy change must fail here (and the
    kernel's one-time self-check then turns the tail off)."""
    rng = np.random.default_rng(8)
    rows = nasty(rng, (4000, 8), dtype).astype(F64)
    rows[::5] = np.where(rng.random((800, 8)) < 0.5, -0.0, rows[::5])
    x = rows.astype(dtype)
    with np.errstate(all="ignore"):
        got = np.add.reduce(x, axis=-1, initial=-0.0)
        want = ref_tree(x.astype(F64), np.dtype(dtype)).astype(dtype)
    same_bits(got, want)
    assert reduction_tree._rows_of_8_is_pair_tree()


def test_tail_off_gives_the_same_bits(monkeypatch):
    """With the rows-of-8 tail disabled (as if NumPy's reduce had changed), every level
    runs as a plain level, with the same bits."""
    rng = np.random.default_rng(6)
    xs = [nasty(rng, (n,), np.float32) for n in (9, 100, 1000, 5000)]
    xs.append(nasty(rng, (7, 60), np.float64))
    with_tail = [run(x, 0.0, x.ndim - 1) for x in xs]
    monkeypatch.setattr(reduction_tree, "_rows_of_8_is_pair_tree", lambda: False)
    for x, want in zip(xs, with_tail):
        same_bits(run(x, 0.0, x.ndim - 1), want)
        same_bits(want, ref_reduce(x, 0.0, x.ndim - 1))
