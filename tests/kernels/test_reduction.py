"""reduce, reduce_window, select_and_scatter, map kernels: spec examples and loop
references written from the spec's formulas."""

from __future__ import annotations

import math

import ml_dtypes
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import hlorun.engine.kernels  # noqa: F401  (fills the op table)
from hlorun import shape_inference  # noqa: F401
from hlorun.engine.region_analysis import RegionSummary
from hlorun.engine.values import RegionFn
from hlorun.parser.ir import ComplexType, FloatType, IntegerType, TensorType
from hlorun.shape_inference.optable import OP_TABLE

I64 = IntegerType(64)
I32 = IntegerType(32)
F32 = FloatType("f32")


def T(shape, e=I64):
    return TensorType(tuple(shape), e)


def fn(call, combiner=None):
    summary = RegionSummary() if combiner is None else RegionSummary.folding(combiner)
    return RegionFn(region=None, call=call, summary=summary)


ADD = fn(lambda a, b: (np.add(a, b),), "stablehlo.add")
ADD_GENERIC = fn(lambda a, b: (np.add(a, b),))
MAX = fn(lambda a, b: (np.maximum(a, b),), "stablehlo.maximum")
MAX_GENERIC = fn(lambda a, b: (np.maximum(a, b),))
GE = fn(lambda a, b: (np.greater_equal(a, b),))

reduce = OP_TABLE["stablehlo.reduce"].kernel
reduce_window = OP_TABLE["stablehlo.reduce_window"].kernel
select_and_scatter = OP_TABLE["stablehlo.select_and_scatter"].kernel
map_ = OP_TABLE["stablehlo.map"].kernel

SETTINGS = settings(max_examples=30, deadline=None)


# ---- spec examples --------------------------------------------------------------------


def test_reduce_spec_example():
    (r,) = reduce(
        np.array([[0, 1, 2, 3, 4, 5]]),
        np.array(0),
        result_types=(T([1]),),
        dimensions=(1,),
        body=ADD,
    )
    assert r.dtype == np.int64 and r.tolist() == [15]


def test_reduce_window_spec_examples():
    x = np.array([[1, 2], [3, 4], [5, 6]])
    kw = dict(
        window_strides=(4, 1),
        base_dilations=(2, 1),
        window_dilations=(3, 1),
        padding=np.array([[2, 1], [0, 0]]),
    )
    for body in (ADD, ADD_GENERIC):
        (r,) = reduce_window(
            x, np.array(0), result_types=(T([2, 2]),), window_dimensions=(2, 1), body=body, **kw
        )
        assert r.tolist() == [[0, 0], [3, 4]]
        (r,) = reduce_window(
            x, np.array(0), result_types=(T([1, 2]),), window_dimensions=(3, 1), body=body, **kw
        )
        assert r.tolist() == [[5, 6]]


def test_select_and_scatter_spec_example():
    r = select_and_scatter(
        np.array([[1, 5], [2, 5], [3, 6], [4, 4]]),
        np.array([[5, 6], [7, 8]]),
        np.array(0),
        result_type=T([4, 2]),
        window_dimensions=(3, 1),
        window_strides=(2, 1),
        padding=np.array([[0, 1], [0, 0]]),
        select=GE,
        scatter=ADD,
    )
    assert r.dtype == np.int64 and r.tolist() == [[0, 0], [0, 0], [5, 14], [7, 0]]


def test_map_spec_example():
    r = map_(
        np.array([[0, 1], [2, 3]]),
        np.array([[4, 5], [6, 7]]),
        result_type=T([2, 2]),
        dimensions=(0, 1),
        computation=fn(lambda a, b: (np.multiply(a, b),)),
    )
    assert r.tolist() == [[0, 5], [12, 21]]


def test_map_constant_body_broadcasts():
    r = map_(
        np.zeros((2, 3), np.float32),
        result_type=T([2, 3], I32),
        dimensions=(0, 1),
        computation=fn(lambda a: (np.array(7, np.int32),)),
    )
    assert r.shape == (2, 3) and r.dtype == np.int32 and (r == 7).all()


# ---- reduce ---------------------------------------------------------------------------


def ref_tree(vals, body):
    """hlorun's documented schedule, with explicit loops: adjacent pairs level by level."""
    vals = list(vals)
    while len(vals) > 1:
        nxt = [body(vals[i], vals[i + 1]) for i in range(0, len(vals) - 1, 2)]
        if len(vals) % 2:
            nxt.append(vals[-1])
        vals = nxt
    return vals


def ref_reduce(x, init, dims, body):
    """spec "reduce" with explicit loops over result indices and slice elements."""
    keep = [d for d in range(x.ndim) if d not in dims]
    out_shape = tuple(x.shape[d] for d in keep)
    out = []
    for ridx in np.ndindex(*out_shape) if out_shape else [()]:
        elems = []
        for sidx in np.ndindex(*[x.shape[d] for d in sorted(dims)]):
            full = [0] * x.ndim
            for d, i in zip(keep, ridx):
                full[d] = i
            for d, i in zip(sorted(dims), sidx):
                full[d] = i
            elems.append(x[tuple(full)])
        t = ref_tree(elems, body)
        out.append(body(init, t[0]) if t else init)
    return np.array(out, dtype=x.dtype).reshape(out_shape)


shapes = st.lists(st.integers(0, 4), min_size=1, max_size=3)


@st.composite
def reduce_case(draw):
    shape = draw(shapes)
    dims = draw(st.lists(st.integers(0, len(shape) - 1), unique=True, max_size=len(shape)))
    return tuple(shape), tuple(dims)


@SETTINGS
@given(reduce_case(), st.integers(0, 2**32))
def test_reduce_int_wraparound_matches_reference(case, seed):
    shape, dims = case
    rng = np.random.default_rng(seed)
    x = rng.integers(-128, 128, size=shape).astype(np.int8)
    init = np.int8(rng.integers(-128, 128))
    out_shape = tuple(s for i, s in enumerate(shape) if i not in dims)
    for name, body in (
        ("stablehlo.add", np.add),
        ("stablehlo.multiply", np.multiply),
        ("stablehlo.maximum", np.maximum),
        ("stablehlo.xor", np.bitwise_xor),
    ):
        want = ref_reduce(x, init, dims, lambda a, b, body=body: body(np.int8(a), np.int8(b)))
        for combiner in (name, None):
            (got,) = reduce(
                x,
                np.array(init),
                result_types=(T(out_shape, IntegerType(8)),),
                dimensions=dims,
                body=fn(lambda a, b, body=body: (body(a, b),), combiner),
            )
            assert got.dtype == np.int8 and got.shape == out_shape
            np.testing.assert_array_equal(got, want)


@SETTINGS
@given(reduce_case(), st.integers(0, 2**32))
def test_reduce_float_sum_is_the_documented_tree(case, seed):
    shape, dims = case
    rng = np.random.default_rng(seed)
    x = (rng.standard_normal(shape) * 10.0 ** rng.integers(-5, 5, size=shape)).astype(np.float32)
    init = np.float32(0.25)
    out_shape = tuple(s for i, s in enumerate(shape) if i not in dims)
    add = lambda a, b: np.float32(a) + np.float32(b)  # noqa: E731
    if len(dims) == 1 and dims[0] != len(shape) - 1:
        # one reduced dimension, not the last: left folds of 32 consecutive inputs are
        # the leaves of the tree (here every slice has <= 4 inputs: one left fold)
        want = np.full(out_shape, init, np.float32)
        for ridx in np.ndindex(*out_shape):
            idx = list(ridx)
            idx.insert(dims[0], slice(None))
            vals = list(x[tuple(idx)])
            if vals:
                acc = vals[0]
                for v in vals[1:]:
                    acc = add(acc, v)
                want[ridx] = add(init, acc)
    else:
        want = ref_reduce(x, init, dims, add)
    for body in (ADD, ADD_GENERIC):
        (got,) = reduce(
            x, np.array(init), result_types=(T(out_shape, F32),), dimensions=dims, body=body
        )
        assert got.dtype == np.float32
        np.testing.assert_array_equal(got.view(np.int32), want.view(np.int32))


def test_reduce_bf16_sum_rounds_every_step():
    x = np.array([1.0, 2.0**-8, 2.0**-8, 2.0**-8], dtype=ml_dtypes.bfloat16)
    (got,) = reduce(
        x,
        np.array(0, ml_dtypes.bfloat16),
        result_types=(T([], FloatType("bf16")),),
        dimensions=(0,),
        body=ADD,
    )
    # tree: (1 + 2^-8) -> 1 (tie to even), (2^-8 + 2^-8) = 2^-7, 1 + 2^-7 = 1.0078125;
    # a left fold would give 1.0 and an f32 accumulator 1.015625
    assert got.dtype == ml_dtypes.bfloat16 and float(got) == 1.0078125


def test_reduce_max_nan_and_signed_zero():
    f = T([], F32)
    x = np.array([-0.0, 0.0, -0.0], np.float32)
    (got,) = reduce(x, np.array(-np.inf, np.float32), result_types=(f,), dimensions=(0,), body=MAX)
    assert got == 0 and not np.signbit(got)
    x = np.array([-0.0, -0.0], np.float32)
    (got,) = reduce(x, np.array(-np.inf, np.float32), result_types=(f,), dimensions=(0,), body=MAX)
    assert got == 0 and np.signbit(got)
    mn = fn(lambda a, b: (np.minimum(a, b),), "stablehlo.minimum")
    x = np.array([0.0, -0.0, 0.0], np.float32)
    (got,) = reduce(x, np.array(np.inf, np.float32), result_types=(f,), dimensions=(0,), body=mn)
    assert got == 0 and np.signbit(got)
    x = np.array([1.0, np.nan, 3.0], np.float32)
    (got,) = reduce(x, np.array(-np.inf, np.float32), result_types=(f,), dimensions=(0,), body=MAX)
    assert np.isnan(got)


def test_reduce_empty_and_no_dims():
    (got,) = reduce(
        np.zeros((2, 0), np.int32),
        np.array(5, np.int32),
        result_types=(T([2], I32),),
        dimensions=(1,),
        body=ADD_GENERIC,
    )
    assert got.tolist() == [5, 5]
    (got,) = reduce(
        np.array([1, 2], np.int32),
        np.array(5, np.int32),
        result_types=(T([2], I32),),
        dimensions=(),
        body=ADD_GENERIC,
    )
    assert got.tolist() == [6, 7]


def test_reduce_int4_wraps():
    x = np.array([7, 7, 7], dtype=ml_dtypes.int4)
    (got,) = reduce(
        x,
        np.array(0, ml_dtypes.int4),
        result_types=(T([], IntegerType(4)),),
        dimensions=(0,),
        body=ADD,
    )
    assert got.dtype == ml_dtypes.int4 and int(got) == 5  # 21 mod 16 -> 5


def argmax_body(v0, i0, v1, i1):
    """(value, index) max, ties to the smaller index; NaN-free."""
    take1 = (v1 > v0) | ((v1 == v0) & (i1 < i0))
    return np.where(take1, v1, v0), np.where(take1, i1, i0)


@SETTINGS
@given(st.integers(1, 3), st.integers(0, 9), st.integers(0, 2**32))
def test_reduce_argmax_two_inputs(rows, cols, seed):
    rng = np.random.default_rng(seed)
    x = rng.integers(-3, 4, size=(rows, cols)).astype(np.float32)
    idx = np.broadcast_to(np.arange(cols, dtype=np.int32), (rows, cols)).copy()
    calls = []

    def body(*a):
        calls.append(1)
        return argmax_body(*a)

    got_v, got_i = reduce(
        x,
        idx,
        np.array(-np.inf, np.float32),
        np.array(0, np.int32),
        result_types=(T([rows], F32), T([rows], I32)),
        dimensions=(1,),
        body=fn(body),
    )
    for r in range(rows):
        if cols == 0:
            assert got_v[r] == -np.inf and got_i[r] == 0
        else:
            assert got_v[r] == x[r].max() and got_i[r] == int(np.argmax(x[r]))
    assert len(calls) <= max(1, math.ceil(math.log2(max(cols, 1)))) + 1


# ---- reduce_window --------------------------------------------------------------------


def ref_reduce_window(x, init, wd, ws, bd, wdil, pad, body):
    """spec "reduce_window" with loops: pad+dilate, slice each window, fold from init."""
    rank = x.ndim
    dil = [0 if s == 0 else (s - 1) * b + 1 for s, b in zip(x.shape, bd)]
    pshape = [lo + d + hi for (lo, hi), d in zip(pad, dil)]
    padded = np.full(pshape, init, dtype=x.dtype)
    for idx in np.ndindex(*x.shape):
        padded[tuple(lo + i * b for (lo, _), i, b in zip(pad, idx, bd))] = x[idx]
    nw = []
    for p, w, s, d in zip(pshape, wd, ws, wdil):
        span = (w - 1) * d + 1
        nw.append(0 if p == 0 or span > p else (p - span) // s + 1)
    out = np.empty(nw, dtype=x.dtype)
    for ridx in np.ndindex(*nw):
        acc = init
        for widx in np.ndindex(*wd):
            acc = body(
                acc, padded[tuple(r * s + w * d for r, s, w, d in zip(ridx, ws, widx, wdil))]
            )
        out[ridx] = acc
    assert out.ndim == rank
    return out


@st.composite
def window_case(draw):
    rank = draw(st.integers(1, 2))
    shape = tuple(draw(st.integers(0, 5)) for _ in range(rank))
    wd = tuple(draw(st.integers(1, 3)) for _ in range(rank))
    ws = tuple(draw(st.integers(1, 3)) for _ in range(rank))
    bd = tuple(draw(st.integers(1, 2)) for _ in range(rank))
    wdil = tuple(draw(st.integers(1, 2)) for _ in range(rank))
    pad = tuple((draw(st.integers(0, 2)), draw(st.integers(0, 2))) for _ in range(rank))
    return shape, wd, ws, bd, wdil, pad


@SETTINGS
@given(window_case(), st.integers(0, 2**32))
def test_reduce_window_matches_reference(case, seed):
    shape, wd, ws, bd, wdil, pad = case
    rng = np.random.default_rng(seed)
    x = rng.integers(-50, 50, size=shape).astype(np.int32)
    for body, init, np_body in ((ADD, 3, np.add), (MAX_GENERIC, -7, np.maximum)):
        want = ref_reduce_window(
            x,
            np.int32(init),
            wd,
            ws,
            bd,
            wdil,
            pad,
            lambda a, b, f=np_body: f(np.int32(a), np.int32(b)),
        )
        (got,) = reduce_window(
            x,
            np.array(init, np.int32),
            result_types=(T(want.shape, I32),),
            window_dimensions=wd,
            window_strides=ws,
            base_dilations=bd,
            window_dilations=wdil,
            padding=np.array(pad),
            body=body,
        )
        assert got.dtype == np.int32
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("body", [ADD, ADD_GENERIC])
def test_reduce_window_large_window_tree_path(body):
    rng = np.random.default_rng(0)
    x = rng.integers(-100, 100, size=(3, 9, 9)).astype(np.int64)
    want = ref_reduce_window(
        x,
        np.int64(0),
        (1, 6, 6),
        (1, 1, 1),
        (1, 1, 1),
        (1, 1, 1),
        ((0, 0), (0, 0), (0, 0)),
        lambda a, b: a + b,
    )
    (got,) = reduce_window(
        x, np.array(0), result_types=(T(want.shape),), window_dimensions=(1, 6, 6), body=body
    )
    np.testing.assert_array_equal(got, want)


def test_reduce_window_two_operands_argmax():
    x = np.array([3.0, 1.0, 4.0, 1.0, 5.0, 9.0, 2.0], np.float32)
    i = np.arange(7, dtype=np.int32)
    v, k = reduce_window(
        x,
        i,
        np.array(-np.inf, np.float32),
        np.array(0, np.int32),
        result_types=(T([3], F32), T([3], I32)),
        window_dimensions=(3,),
        window_strides=(2,),
        body=fn(argmax_body),
    )
    assert v.tolist() == [4.0, 5.0, 9.0] and k.tolist() == [2, 4, 5]


def test_reduce_window_negative_padding_crops():
    x = np.arange(6, dtype=np.int64)
    (got,) = reduce_window(
        x,
        np.array(0),
        result_types=(T([2]),),
        window_dimensions=(2,),
        window_strides=(2,),
        padding=np.array([[-1, -1]]),
        body=ADD,
    )
    assert got.tolist() == [1 + 2, 3 + 4]


# ---- select_and_scatter ---------------------------------------------------------------


def ref_select_and_scatter(operand, source, init, wd, ws, pad, select, scatter):
    """Loops: per window, over its operand positions only (padding is never selected:
    the spec's reduce_window_without_init, as the StableHLO reference interpreter skips
    it), pick the first position p with select(cur, w_p) keeping cur; scatter source
    values in source order; a window of padding only scatters nowhere."""
    result = np.full(operand.shape, init, dtype=operand.dtype)
    for sidx in np.ndindex(*source.shape):
        best = None
        for widx in np.ndindex(*wd):
            p = tuple(s * st_ + w - lo for s, st_, w, (lo, _) in zip(sidx, ws, widx, pad))
            if not all(0 <= t < n for t, n in zip(p, operand.shape)):
                continue
            if best is None or not select(operand[best], operand[p]):
                best = p
        if best is not None:
            result[best] = scatter(result[best], source[sidx])
    return result


@SETTINGS
@given(window_case(), st.integers(0, 2**32))
def test_select_and_scatter_matches_reference(case, seed):
    shape, wd, ws, _, _, pad = case
    rng = np.random.default_rng(seed)
    operand = rng.integers(-5, 5, size=shape).astype(np.int64)
    nw = []
    for s, w, st_, (lo, hi) in zip(shape, wd, ws, pad):
        p = lo + s + hi
        nw.append(0 if p == 0 or w > p else (p - w) // st_ + 1)
    source = rng.integers(-9, 9, size=nw).astype(np.int64)
    for sel in (GE, fn(lambda a, b: (np.less(a, b),))):
        want = ref_select_and_scatter(
            operand,
            source,
            np.int64(1),
            wd,
            ws,
            pad,
            lambda a, b, s=sel: bool(s(a, b)[0]),
            lambda a, b: a + b,
        )
        got = select_and_scatter(
            operand,
            source,
            np.array(1),
            result_type=T(shape),
            window_dimensions=wd,
            window_strides=ws,
            padding=np.array(pad),
            select=sel,
            scatter=ADD_GENERIC,
        )
        np.testing.assert_array_equal(got, want)


def test_select_and_scatter_overlapping_windows_float():
    operand = np.array([1.0, 3.0, 2.0, 0.5], np.float32)
    source = np.array([0.1, 0.2, 0.4], np.float32)
    got = select_and_scatter(
        operand,
        source,
        np.array(0.0, np.float32),
        result_type=T([4], F32),
        window_dimensions=(2,),
        window_strides=(1,),
        select=GE,
        scatter=ADD,
    )
    want = np.zeros(4, np.float32)
    want[1] = np.float32(np.float32(0) + np.float32(0.1)) + np.float32(0.2)
    want[2] = np.float32(0.4)
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize(
    "op",
    [
        "stablehlo.reduce",
        "stablehlo.reduce_window",
        "stablehlo.sort",
        "stablehlo.select_and_scatter",
        "stablehlo.map",
    ],
)
def test_rows_registered(op):
    row = OP_TABLE[op]
    assert row.kernel is not None and row.shape is not None


def test_reduce_variadic_known_combiners():
    x = np.array([[1, 5, -2], [4, 0, 3]], np.int32)
    y = np.array([[1.5, -2.0, 0.25], [3.0, 1.0, -1.0]], np.float32)
    both = RegionFn(
        region=None,
        call=lambda a0, a1, b0, b1: (np.add(a0, b0), np.minimum(a1, b1)),
    )
    s, m = reduce(
        x,
        y,
        np.array(10, np.int32),
        np.array(np.inf, np.float32),
        result_types=(T([2], I32), T([2], F32)),
        dimensions=(1,),
        body=both,
    )
    assert s.tolist() == [14, 17] and m.tolist() == [-2.0, -1.0]


def test_reduce_bool_and_complex():
    b = np.array([[True, False], [True, True]])
    and_ = fn(lambda a, c: (np.logical_and(a, c),), "stablehlo.and")
    (r,) = reduce(
        b, np.array(True), result_types=(T([2], IntegerType(1)),), dimensions=(1,), body=and_
    )
    assert r.dtype == np.bool_ and r.tolist() == [False, True]
    c = np.array([1 + 2j, 3 - 1j], np.complex64)
    (r,) = reduce(
        c,
        np.array(0j, np.complex64),
        result_types=(T([], ComplexType(F32)),),
        dimensions=(0,),
        body=ADD,
    )
    assert r.dtype == np.complex64 and r == 4 + 1j


def test_reduce_vector_accumulator():
    """Non-0-d init values (accepted by the StableHLO verifier) take the region path."""
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    init = np.array([0.5, 0.5, 0.5, 0.5], np.float32)
    (r,) = reduce(x, init, result_types=(T([4], F32),), dimensions=(0,), body=ADD)
    assert r.tolist() == [12.5, 15.5, 18.5, 21.5]


def test_rank0_operands():
    s = T([], I64)
    (r,) = reduce_window(
        np.array(3), np.array(4), result_types=(s,), window_dimensions=(), body=ADD_GENERIC
    )
    assert r.tolist() == 7
    r = select_and_scatter(
        np.array(3),
        np.array(5),
        np.array(4),
        result_type=s,
        window_dimensions=(),
        select=GE,
        scatter=ADD_GENERIC,
    )
    assert r.tolist() == 9


def ieee_max(a, b):
    a, b = float(a), float(b)
    if math.isnan(a) or math.isnan(b):
        return math.nan
    if a == b == 0:
        return 0.0 if not (math.copysign(1, a) < 0 and math.copysign(1, b) < 0) else -0.0
    return max(a, b)


def ieee_min(a, b):
    a, b = float(a), float(b)
    if math.isnan(a) or math.isnan(b):
        return math.nan
    if a == b == 0:
        return -0.0 if (math.copysign(1, a) < 0 or math.copysign(1, b) < 0) else 0.0
    return min(a, b)


SPECIALS = st.lists(
    st.sampled_from([0.0, -0.0, 1.0, -1.0, math.nan, math.inf]), min_size=1, max_size=12
)


@SETTINGS
@given(SPECIALS, st.integers(1, 3), st.sampled_from(["f32", "bf16", "f16"]))
def test_float_max_min_signed_zero_nan(vals, window, ftype):
    dt = {"f32": np.float32, "bf16": ml_dtypes.bfloat16, "f16": np.float16}[ftype]
    x = np.array(vals, dtype=dt)
    window = min(window, len(vals))
    e = FloatType(ftype)
    for name, ref, uf in (
        ("stablehlo.maximum", ieee_max, np.maximum),
        ("stablehlo.minimum", ieee_min, np.minimum),
    ):
        body = fn(lambda a, b, uf=uf: (uf(a, b),), name)
        init = np.array(-0.0 if name.endswith("maximum") else 0.0, dtype=dt)
        want = ref_reduce_window(
            x.astype(np.float64), float(init), (window,), (1,), (1,), (1,), ((0, 0),), ref
        )
        (got,) = reduce_window(
            x, init, result_types=(T(want.shape, e),), window_dimensions=(window,), body=body
        )
        assert got.dtype == dt
        g = got.astype(np.float64)
        assert np.array_equal(np.isnan(g), np.isnan(want))
        ok = ~np.isnan(want)
        assert np.array_equal(g[ok], want[ok]) and np.array_equal(
            np.signbit(g[ok]), np.signbit(want[ok])
        )
        # reduce over everything agrees with the fold
        (r,) = reduce(x, init, result_types=(T([], e),), dimensions=(0,), body=body)
        w = float(init)
        for v in vals:
            w = ref(w, v)
        assert (math.isnan(w) and np.isnan(float(r))) or (
            float(r) == w and np.signbit(float(r)) == (math.copysign(1, w) < 0)
        )


@SETTINGS
@given(window_case(), st.integers(0, 2**32))
def test_reduce_window_float_sum_is_the_left_fold(case, seed):
    """Small windows fold from the init value in ascending window order (bitwise)."""
    shape, wd, ws, bd, wdil, pad = case
    rng = np.random.default_rng(seed)
    x = (rng.standard_normal(shape) * 10.0 ** rng.integers(-4, 4, size=shape)).astype(np.float32)
    init = np.float32(0.1)
    want = ref_reduce_window(
        x, init, wd, ws, bd, wdil, pad, lambda a, b: np.float32(a) + np.float32(b)
    )
    for body in (ADD, ADD_GENERIC):
        (got,) = reduce_window(
            x,
            np.array(init),
            result_types=(T(want.shape, F32),),
            window_dimensions=wd,
            window_strides=ws,
            base_dilations=bd,
            window_dilations=wdil,
            padding=np.array(pad),
            body=body,
        )
        np.testing.assert_array_equal(got.view(np.int32), want.view(np.int32))
