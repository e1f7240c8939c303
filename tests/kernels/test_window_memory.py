"""reduce_window's in-place fold (known combiners on native dtypes): bit-for-bit against a
loop reference written from the spec, against the region-call path, and its memory
(no padded copy of the operand)."""

from __future__ import annotations

import itertools
import tracemalloc

import numpy as np
import pytest

import hlorun.engine.kernels  # noqa: F401  (fills the op table)
import hlorun.engine.kernels.reduction as red
import hlorun.engine.kernels.window as win
from hlorun import shape_inference  # noqa: F401
from hlorun.engine.region_analysis import RegionSummary
from hlorun.engine.values import RegionFn
from hlorun.parser.ir import FloatType, IntegerType, TensorType
from hlorun.shape_inference.optable import OP_TABLE

reduce_window = OP_TABLE["stablehlo.reduce_window"].kernel

ELEM = {
    np.dtype(np.float16): FloatType("f16"),
    np.dtype(np.float32): FloatType("f32"),
    np.dtype(np.float64): FloatType("f64"),
    np.dtype(np.int32): IntegerType(32),
    np.dtype(np.int8): IntegerType(8),
    np.dtype(np.uint8): IntegerType(8, "unsigned"),
    np.dtype(np.bool_): IntegerType(1),
}


def _ieee_max(a, b):
    if np.isnan(a):
        return a
    if np.isnan(b):
        return b
    if a == 0 and b == 0:
        return a if np.signbit(b) else b  # -0 only when both are -0
    return a if a > b else b


def _ieee_min(a, b):
    if np.isnan(a):
        return a
    if np.isnan(b):
        return b
    if a == 0 and b == 0:
        return b if np.signbit(b) else a  # -0 when either is -0
    return a if a < b else b


def _ufunc_scalar(uf):
    def f(a, b):
        with np.errstate(all="ignore"):
            return uf(np.array(a), np.array(b))[()]

    return f


SCALAR = {
    "stablehlo.maximum": _ieee_max,
    "stablehlo.minimum": _ieee_min,
    "stablehlo.add": _ufunc_scalar(np.add),
    "stablehlo.multiply": _ufunc_scalar(np.multiply),
    "stablehlo.and": _ufunc_scalar(np.bitwise_and),
    "stablehlo.or": _ufunc_scalar(np.bitwise_or),
    "stablehlo.xor": _ufunc_scalar(np.bitwise_xor),
}
INT_MINMAX = {
    "stablehlo.maximum": _ufunc_scalar(np.maximum),
    "stablehlo.minimum": _ufunc_scalar(np.minimum),
}
BOOL = {
    "stablehlo.add": np.logical_or,
    "stablehlo.multiply": np.logical_and,
    "stablehlo.maximum": np.logical_or,
    "stablehlo.minimum": np.logical_and,
    "stablehlo.and": np.logical_and,
    "stablehlo.or": np.logical_or,
    "stablehlo.xor": np.logical_xor,
}


def _scalar_op(op, dtype):
    if dtype == np.bool_:
        return _ufunc_scalar(BOOL[op])
    if dtype.kind in "iu" and op in INT_MINMAX:
        return INT_MINMAX[op]
    return SCALAR[op]


def ref_reduce_window(x, init, wd, ws, bd, wdil, pad, f):
    """spec "reduce_window" with loops: interior dilation and edge padding with init
    (negative padding crops), each window folded from init in ascending position order."""
    dil = [0 if s == 0 else (s - 1) * b + 1 for s, b in zip(x.shape, bd)]
    full = [max(lo, 0) + d + max(hi, 0) for (lo, hi), d in zip(pad, dil)]
    padded = np.full(full, init, dtype=x.dtype)
    for idx in itertools.product(*(range(s) for s in x.shape)):
        padded[tuple(max(lo, 0) + i * b for (lo, _), i, b in zip(pad, idx, bd))] = x[idx]
    padded = padded[
        tuple(
            slice(max(-lo, 0), max(f - max(-hi, 0), max(-lo, 0))) for (lo, hi), f in zip(pad, full)
        )
    ]
    nw = []
    for p, w, s, d in zip(padded.shape, wd, ws, wdil):
        span = (w - 1) * d + 1
        nw.append(0 if p == 0 or span > p else (p - span) // s + 1)
    out = np.empty(nw, dtype=x.dtype)
    for r in itertools.product(*(range(n) for n in nw)):
        acc = init
        for w in itertools.product(*(range(k) for k in wd)):
            acc = f(acc, padded[tuple(a * s + b * d for a, s, b, d in zip(r, ws, w, wdil))])
        out[r] = acc
    return out


def _region(op, dtype):
    uf = (
        BOOL[op]
        if dtype == np.bool_
        else {
            "stablehlo.maximum": np.maximum,
            "stablehlo.minimum": np.minimum,
            "stablehlo.add": np.add,
            "stablehlo.multiply": np.multiply,
            "stablehlo.and": np.bitwise_and,
            "stablehlo.or": np.bitwise_or,
            "stablehlo.xor": np.bitwise_xor,
        }[op]
    )
    return RegionFn(region=None, call=lambda a, b: (uf(a, b),), summary=RegionSummary.folding(op))


def _run(x, init, geometry, op):
    wd, ws, bd, wdil, pad = geometry
    with np.errstate(all="ignore"):  # as the interpreter runs kernels
        return _kernel(x, init, wd, ws, bd, wdil, pad, op)


def _kernel(x, init, wd, ws, bd, wdil, pad, op):
    (r,) = reduce_window(
        x,
        np.asarray(init, x.dtype),
        result_types=(TensorType((None,) * x.ndim, ELEM[x.dtype]),),
        window_dimensions=wd,
        window_strides=ws,
        base_dilations=bd,
        window_dilations=wdil,
        padding=np.array(pad, np.int64).reshape(x.ndim, 2),
        body=_region(op, x.dtype),
    )
    return r


def _same_bits(a, b):
    assert a.dtype == b.dtype and a.shape == b.shape
    assert a.tobytes() == b.tobytes(), (a, b)


# shape, window_dimensions, window_strides, base_dilations, window_dilations, padding
GEOMETRIES = [
    ((7,), (3,), (2,), (1,), (1,), ((1, 1),)),
    ((6, 5), (2, 3), (1, 2), (1, 1), (1, 1), ((0, 0), (2, 1))),
    ((5, 4), (2, 2), (2, 1), (2, 1), (1, 2), ((1, -1), (0, 2))),
    ((4, 6), (1, 1), (1, 1), (1, 1), (1, 1), ((0, 0), (0, 0))),
    ((3, 4, 5), (2, 1, 3), (1, 2, 2), (1, 3, 1), (2, 1, 1), ((-1, 2), (0, 0), (1, -2))),
    ((8,), (3,), (3,), (2,), (2,), ((-2, 3),)),
    ((2, 3), (4, 4), (1, 1), (1, 1), (1, 1), ((2, 2), (3, 3))),
    ((0, 3), (1, 2), (1, 1), (1, 1), (1, 1), ((1, 1), (0, 0))),
    ((9,), (3,), (2,), (3,), (1,), ((2, 2),)),
    ((4, 9), (2, 3), (2, 2), (1, 1), (1, 1), ((1, 1), (1, 1))),
    ((7,), (1,), (3,), (1,), (1,), ((0, 0),)),
    ((), (), (), (), (), ()),
]


def _float_data(shape, dtype, rng):
    vals = np.array([-0.0, 0.0, 1.5, -2.25, np.inf, -np.inf, 3.0, -0.0, 0.0], dtype)
    x = rng.choice(vals, size=shape).astype(dtype)
    nan_bits = {
        2: [0x7E01, 0xFE02],
        4: [0x7FC00001, 0xFFC00002],
        8: [0x7FF8000000000001, 0xFFF8000000000002],
    }[dtype.itemsize]
    it = np.dtype(f"u{dtype.itemsize}")
    flat = x.reshape(-1)
    for k, pos in enumerate(rng.choice(flat.size, size=min(2, flat.size // 7), replace=False)):
        flat[pos] = np.array(nan_bits[k % 2], it).view(dtype)
    return x


@pytest.mark.parametrize("geometry", GEOMETRIES)
@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
@pytest.mark.parametrize("op", ["stablehlo.maximum", "stablehlo.minimum", "stablehlo.add"])
def test_float_matches_loop_reference(geometry, dtype, op):
    dtype = np.dtype(dtype)
    shape, *attrs = geometry
    rng = np.random.default_rng(len(shape) * 7 + sum(shape))
    x = _float_data(shape, dtype, rng)
    inits = [-np.inf, np.inf, -0.0, 0.0, np.nan] if op != "stablehlo.add" else [0.0, -0.0]
    for init in inits:
        init = dtype.type(init)
        want = ref_reduce_window(x, init, *attrs, _scalar_op(op, dtype))
        _same_bits(_run(x, init, tuple(attrs), op), want)


@pytest.mark.parametrize("geometry", GEOMETRIES)
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
def test_integer_matches_loop_reference(geometry, dtype, op):
    dtype = np.dtype(dtype)
    shape, *attrs = geometry
    rng = np.random.default_rng(sum(shape) + 3)
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


def _old_path(monkeypatch, *args):
    with monkeypatch.context() as m:
        m.setattr(win, "_inplace_fold_plan", lambda *a: None)
        return _run(*args)


@pytest.mark.parametrize(
    "case",
    [
        (
            (2, 8, 20, 20),
            (1, 1, 3, 3),
            (1, 1, 2, 2),
            (1, 1, 1, 1),
            (1, 1, 1, 1),
            ((0, 0), (0, 0), (1, 1), (1, 1)),
        ),
        ((2, 16, 16, 8), (1, 2, 2, 1), (1, 2, 2, 1), (1, 1, 1, 1), (1, 1, 1, 1), ((0, 0),) * 4),
        ((3, 12, 12), (1, 6, 6), (1, 1, 1), (1, 1, 1), (1, 1, 1), ((0, 0), (2, 3), (-1, 2))),
        ((4, 40, 40), (1, 6, 6), (1, 1, 1), (1, 1, 1), (1, 1, 1), ((0, 0), (2, 3), (-1, 2))),
        ((3, 12, 12), (1, 3, 2), (1, 2, 1), (1, 2, 1), (1, 2, 1), ((0, 0), (1, 0), (0, 1))),
    ],
)
@pytest.mark.parametrize("op", ["stablehlo.maximum", "stablehlo.minimum", "stablehlo.add"])
def test_matches_region_path(monkeypatch, case, op):
    """Float max/min (NaN payloads, signed zeros), float add and integer add agree
    bit-for-bit with the region-call path, also for 32+ position windows (pair tree):
    the 4x40x40 case folds them in place (many windows)."""
    shape, *attrs = case
    rng = np.random.default_rng(1)
    x = _float_data(shape, np.dtype(np.float32), rng)
    if op == "stablehlo.add":
        x = rng.standard_normal(shape).astype(np.float32)
    for init in [-np.inf, 0.0, -0.0, np.nan] if op != "stablehlo.add" else [0.0, -0.0]:
        init = np.float32(init)
        _same_bits(
            _run(x, init, tuple(attrs), op), _old_path(monkeypatch, x, init, tuple(attrs), op)
        )
    xi = rng.integers(-(2**31), 2**31 - 1, size=shape).astype(np.int32)
    _same_bits(
        _run(xi, np.int32(5), tuple(attrs), op),
        _old_path(monkeypatch, xi, np.int32(5), tuple(attrs), op),
    )


def test_no_padded_copy_of_the_operand():
    """Max pool 3x3 / 2, padding 1 (output 1/4 of the operand): the output, the
    interior buffer, the sign-fix bits and NumPy's iteration buffers, but no padded copy
    of the operand (the region path peaked at 9x the output)."""
    x = np.random.default_rng(3).standard_normal((1, 16, 64, 64)).astype(np.float32)
    x[:, :, ::3] = 0.0  # zero results: the signed-zero fix runs too
    attrs = (
        (1, 1, 3, 3),
        (1, 1, 2, 2),
        (1, 1, 1, 1),
        (1, 1, 1, 1),
        ((0, 0), (0, 0), (1, 1), (1, 1)),
    )
    _run(x, np.float32(-np.inf), attrs, "stablehlo.maximum")
    tracemalloc.start()
    try:
        base, _ = tracemalloc.get_traced_memory()
        r = _run(x, np.float32(-np.inf), attrs, "stablehlo.maximum")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak - base <= 5 * r.nbytes


TWO_OPERANDS = """func.func @main(%x: tensor<5x7xf32>, %y: tensor<5x7xi32>) -> (tensor<3x4xf32>, tensor<3x4xi32>) {
  %a = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %b = stablehlo.constant dense<2> : tensor<i32>
  %r:2 = "stablehlo.reduce_window"(%x, %y, %a, %b) ({
    ^bb0(%p: tensor<f32>, %q: tensor<i32>, %s: tensor<f32>, %t: tensor<i32>):
      %m = stablehlo.maximum %p, %s : tensor<f32>
      %n = stablehlo.add %q, %t : tensor<i32>
      stablehlo.return %m, %n : tensor<f32>, tensor<i32>
  }) {window_dimensions = array<i64: 2, 3>, window_strides = array<i64: 2, 2>,
      padding = dense<[[1, 0], [1, 1]]> : tensor<2x2xi64>}
    : (tensor<5x7xf32>, tensor<5x7xi32>, tensor<f32>, tensor<i32>) -> (tensor<3x4xf32>, tensor<3x4xi32>)
  func.return %r#0, %r#1 : tensor<3x4xf32>, tensor<3x4xi32>
}"""


def test_two_operands_with_known_combiners(monkeypatch):
    """A variadic body of per-operand ops (max on f32, add on i32) takes the in-place
    fold per operand: equal to the loop reference and to the region path."""
    from hlorun import engine

    rng = np.random.default_rng(4)
    x = _float_data((5, 7), np.dtype(np.float32), rng)
    y = rng.integers(-(2**31), 2**31 - 1, size=(5, 7)).astype(np.int32)
    attrs = ((2, 3), (2, 2), (1, 1), (1, 1), ((1, 0), (1, 1)))
    assert red.combiners(RegionFn(region=None, call=None), 2) is None
    got = engine.compile(TWO_OPERANDS)(x, y)
    _same_bits(got[0], ref_reduce_window(x, np.float32(-np.inf), *attrs, _ieee_max))
    _same_bits(got[1], ref_reduce_window(y, np.int32(2), *attrs, _ufunc_scalar(np.add)))
    monkeypatch.setattr(win, "_inplace_fold_plan", lambda *a: None)
    old = engine.compile(TWO_OPERANDS)(x, y)
    for a, b in zip(got, old):
        _same_bits(a, b)


def test_complex_add_matches_loop_reference():
    rng = np.random.default_rng(5)
    x = (rng.standard_normal((6, 5)) + 1j * rng.standard_normal((6, 5))).astype(np.complex64)
    attrs = ((2, 3), (1, 2), (1, 1), (1, 1), ((1, 0), (2, 1)))
    want = ref_reduce_window(x, np.complex64(0.5 - 0.25j), *attrs, _ufunc_scalar(np.add))
    from hlorun.parser.ir import ComplexType

    (got,) = reduce_window(
        x,
        np.asarray(0.5 - 0.25j, np.complex64),
        result_types=(TensorType((None, None), ComplexType(FloatType("f32"))),),
        window_dimensions=attrs[0],
        window_strides=attrs[1],
        base_dilations=attrs[2],
        window_dilations=attrs[3],
        padding=np.array(attrs[4]),
        body=_region("stablehlo.add", x.dtype),
    )
    _same_bits(got, want)
