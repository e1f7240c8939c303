"""reduce_window by scans (engine/kernels/window_scan.py): bit for bit against the loop
reference written from the spec (tests/kernels/test_window_memory.py: every window
folded from init in ascending position order, padding as init) and against the
position-by-position fold the kernel used before; the threshold that turns scans on
is lowered so that small geometries exercise them too.  Float add / multiply must be
the in-order left fold bit for bit: adversarial data (wide magnitudes, cancellations,
signed zeros) makes any other order visible."""

from __future__ import annotations

import numpy as np
import pytest

import hlorun.engine.kernels.window as win
import hlorun.engine.kernels.window_scan as scan
from tests.kernels.test_window_memory import (
    GEOMETRIES,
    _float_data,
    _kernel,
    _run,
    _same_bits,
    _scalar_op,
    ref_reduce_window,
)
from tests.support.reduce_schedule import left_fold

# shape, window_dimensions, window_strides, base_dilations, window_dilations, padding:
# prefixes (cumsum), suffixes (reverse cumsum), sliding windows, dilated and strided
SCAN_GEOMETRIES = [pytest.param(g, marks=pytest.mark.slow) for g in GEOMETRIES] + [
    ((9,), (9,), (1,), (1,), (1,), ((8, 0),)),
    ((9,), (9,), (1,), (1,), (1,), ((0, 8),)),
    ((3, 11), (1, 11), (1, 1), (1, 1), (1, 1), ((0, 0), (10, 0))),
    ((11, 3), (11, 1), (2, 1), (1, 1), (1, 1), ((10, 3), (0, 0))),
    ((11, 3), (11, 1), (1, 1), (1, 1), (1, 1), ((5, 0), (-1, 1))),
    ((13,), (5,), (1,), (1,), (1,), ((2, 2),)),
    ((13,), (7,), (2,), (1,), (2,), ((3, 4),)),
    ((4, 13), (3, 6), (1, 3), (1, 1), (2, 1), ((1, 1), (5, 0))),
    ((12,), (12,), (1,), (1,), (1,), ((11, 3),)),
    ((6, 5), (6, 5), (1, 1), (1, 1), (1, 1), ((5, 0), (4, 0))),
]


@pytest.fixture(autouse=True)
def _always_scan(monkeypatch):
    monkeypatch.setattr(scan, "SCAN_MIN_WINDOW", 1)
    monkeypatch.setattr(scan, "SCAN_WORK_RATIO", 0)


def _old(monkeypatch, x, init, attrs, op):
    with monkeypatch.context() as m:
        m.setattr(win, "_scan", lambda *a: None)
        return _run(x, init, attrs, op)


def _adversarial(shape, dtype, rng):
    x = rng.standard_normal(shape) * 10.0 ** rng.integers(-6, 7, size=shape)
    flat = x.reshape(-1)
    if flat.size >= 4:
        flat[rng.integers(0, flat.size, size=flat.size // 6 + 1)] = -0.0
        flat[rng.integers(0, flat.size, size=flat.size // 6 + 1)] = 0.0
    with np.errstate(over="ignore"):
        return x.astype(dtype)


@pytest.mark.parametrize("geometry", SCAN_GEOMETRIES)
@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
@pytest.mark.parametrize("op", ["stablehlo.maximum", "stablehlo.minimum"])
def test_float_minmax(monkeypatch, geometry, dtype, op):
    dtype = np.dtype(dtype)
    shape, *attrs = geometry
    rng = np.random.default_rng(sum(shape) + 11)
    x = _float_data(shape, dtype, rng)
    for init in [-np.inf, np.inf, -0.0, 0.0, np.nan]:
        init = dtype.type(init)
        want = ref_reduce_window(x, init, *attrs, _scalar_op(op, dtype))
        _same_bits(_run(x, init, tuple(attrs), op), want)


@pytest.mark.parametrize("geometry", SCAN_GEOMETRIES)
@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
@pytest.mark.parametrize("op", ["stablehlo.add", "stablehlo.multiply"])
def test_float_add_multiply_left_fold(monkeypatch, geometry, dtype, op):
    dtype = np.dtype(dtype)
    shape, *attrs = geometry
    rng = np.random.default_rng(sum(shape) + 5)
    x = _adversarial(shape, dtype, rng)
    if op == "stablehlo.multiply":  # no NaN operands: which of two NaNs a product keeps
        x = np.where(rng.random(shape) < 0.1, np.inf, x).astype(dtype)
    inits = [0.0, -0.0, 1.0, -1.5] if op == "stablehlo.add" else [1.0, -1.0, 0.0, 2.0]
    for init in inits:
        init = dtype.type(init)
        want = ref_reduce_window(x, init, *attrs, _scalar_op(op, dtype))
        _same_bits(_run(x, init, tuple(attrs), op), want)
        _same_bits(_run(x, init, tuple(attrs), op), _old(monkeypatch, x, init, tuple(attrs), op))


@pytest.mark.parametrize("geometry", SCAN_GEOMETRIES)
@pytest.mark.parametrize("dtype", [np.int32, np.int8, np.uint8, np.bool_])
@pytest.mark.parametrize(
    "op",
    [
        "stablehlo.maximum",
        "stablehlo.minimum",
        "stablehlo.add",
        "stablehlo.multiply",
        "stablehlo.and",
        "stablehlo.or",
        "stablehlo.xor",
    ],
)
def test_integer(geometry, dtype, op):
    dtype = np.dtype(dtype)
    shape, *attrs = geometry
    rng = np.random.default_rng(sum(shape) + 7)
    if dtype == np.bool_:
        x, inits = rng.integers(0, 2, size=shape).astype(bool), [False, True]
    else:
        info = np.iinfo(dtype)
        x = rng.integers(info.min, info.max, size=shape, endpoint=True).astype(dtype)
        inits = [0, 3, info.max]
    for init in inits:
        init = dtype.type(init)
        want = ref_reduce_window(x, init, *attrs, _scalar_op(op, dtype))
        _same_bits(_run(x, init, tuple(attrs), op), want)


def test_cumsum_is_the_left_fold():
    """jnp.cumsum's export (window N, padding [[N-1, 0]]) over 9,000 adversarial f32:
    each prefix is the left fold from +0, written out with Python floats rounded to
    f32 after every addition (exact: both summands are f32).  (Up to N*N <= 2**26 the
    kernel keeps its pair tree of 32+ position windows: window.py.)"""
    n = 9000
    x = _adversarial((n,), np.dtype(np.float32), np.random.default_rng(9))
    got = _kernel(x, np.float32(0.0), (n,), (1,), (1,), (1,), ((n - 1, 0),), "stablehlo.add")
    acc, want = np.float32(0.0), []
    for v in x.tolist():
        acc = np.float32(float(acc) + v)
        want.append(acc)
    _same_bits(got, np.array(want, np.float32))
    assert (
        left_fold([np.float32(0.0), *x[:5]], lambda a, b: np.float32(float(a) + float(b)))
        == (got[4])
    )


def test_large_sliding_max_and_int_sum(monkeypatch):
    """A 100-wide sliding window (doubling) on 5,000 elements: max (f32, NaN and zeros)
    and i32 sum against NumPy's sliding_window_view."""
    rng = np.random.default_rng(2)
    x = rng.standard_normal(5000).astype(np.float32)
    x[::7] = -0.0
    attrs = ((100,), (3,), (1,), (1,), ((10, 20),))
    got = _run(x, np.float32(-np.inf), attrs, "stablehlo.maximum")
    padded = np.pad(x, (10, 20), constant_values=-np.inf)
    want = np.lib.stride_tricks.sliding_window_view(padded, 100)[::3].max(axis=1)
    np.testing.assert_array_equal(got, want)
    xi = rng.integers(-(2**31), 2**31 - 1, size=5000).astype(np.int32)
    got = _run(xi, np.int32(0), attrs, "stablehlo.add")
    padded = np.pad(xi, (10, 20))
    win_ = np.lib.stride_tricks.sliding_window_view(padded, 100)[::3]
    np.testing.assert_array_equal(got, win_.sum(axis=1, dtype=np.int32))
    _same_bits(got, _old(monkeypatch, xi, np.int32(0), attrs, "stablehlo.add"))


@pytest.mark.parametrize("op", ["stablehlo.maximum", "stablehlo.minimum"])
@pytest.mark.parametrize("dtype", [np.float16, np.float32])
def test_sliding_without_nan_matches_loop_reference(op, dtype):
    """Windows inside the operand by blocks (van Herk / Gil-Werman), the border ones by
    doubling: float data without NaN (signed zeros, infinities), against the loop
    reference."""
    dtype = np.dtype(dtype)
    rng = np.random.default_rng(12)
    x = rng.choice(np.array([-0.0, 0.0, 1.5, -2.25, np.inf, -np.inf, 3.0], dtype), size=(3, 200))
    x[1] = rng.standard_normal(200).astype(dtype)
    attrs = ((1, 20), (1, 3), (1, 1), (1, 1), ((0, 0), (5, 7)))
    for init in [-np.inf, 0.0, -0.0, np.nan]:
        init = dtype.type(init)
        want = ref_reduce_window(x, init, *attrs, _scalar_op(op, dtype))
        _same_bits(_run(x, init, attrs, op), want)
