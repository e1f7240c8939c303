"""sort kernel: spec examples, recognised comparators (NumPy keys) and the generic
merge sort, against loop references (Python's stable ``sorted``)."""

from __future__ import annotations

import functools
import struct

import ml_dtypes
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import hlorun.engine.kernels  # noqa: F401  (fills the op table)
from hlorun import shape_inference  # noqa: F401
from hlorun.engine.values import RegionFn
from hlorun.parser.errors import InterpreterError
from hlorun.parser.ir import (
    FloatType,
    IntegerType,
    TensorType,
)
from hlorun.shape_inference.optable import OP_TABLE
from tests.support.regions import I1, cmp, complex_comparator, region

sort = OP_TABLE["stablehlo.sort"].kernel
SETTINGS = settings(max_examples=30, deadline=None)


def total_key(v: float) -> int:
    """IEEE totalOrder key of an f32, with struct (independent of the kernel's trick)."""
    (b,) = struct.unpack("<i", struct.pack("<f", v))
    return b if b >= 0 else -(b & 0x7FFFFFFF) - 1


NP_CMP = {"LT": np.less, "GT": np.greater}


def simple_comparator(etype, direction, ctype=None, n_operands=1, key=0, with_region=True):
    """compare(arg_{2key}, arg_{2key+1}) as an IR region plus a NumPy call."""
    s = TensorType((), etype)
    args = [s] * (2 * n_operands)
    r = region(
        args,
        [
            (
                "stablehlo.compare",
                [f"%arg{2 * key}", f"%arg{2 * key + 1}"],
                I1,
                cmp(direction, ctype),
            )
        ],
        ["%0"],
    )

    def call(*a):
        x, y = a[2 * key], a[2 * key + 1]
        if ctype == "TOTALORDER":
            kx = np.vectorize(total_key)(np.asarray(x, np.float32)) if np.size(x) else np.zeros(0)
            ky = np.vectorize(total_key)(np.asarray(y, np.float32)) if np.size(y) else np.zeros(0)
            return (NP_CMP[direction](kx, ky),)
        return (NP_CMP[direction](x, y),)

    return RegionFn(region=r if with_region else None, call=call)


def ref_sort(arrays, dim, less):
    """Loop reference: Python's stable sort of every 1-D slice with comparator ``less``."""
    dim = dim % arrays[0].ndim
    outs = [np.empty_like(a) for a in arrays]
    moved = [np.moveaxis(a, dim, -1) for a in arrays]
    moved_out = [np.moveaxis(o, dim, -1) for o in outs]
    n = moved[0].shape[-1]
    for idx in np.ndindex(*moved[0].shape[:-1]):
        rows = [tuple(m[idx][j] for m in moved) for j in range(n)]

        def cmp3(a, b):
            return -1 if less(a, b) else (1 if less(b, a) else 0)

        rows = sorted(rows, key=functools.cmp_to_key(cmp3))
        for k, mo in enumerate(moved_out):
            mo[idx] = [r[k] for r in rows]
    return outs


# ---- spec examples --------------------------------------------------------------------


def test_spec_example():
    i64 = IntegerType(64)
    t = TensorType((2, 3), i64)
    for with_region in (True, False):
        comp = simple_comparator(i64, "GT", n_operands=2, with_region=with_region)
        r0, r1 = sort(
            np.array([[1, 2, 3], [3, 2, 1]]),
            np.array([[3, 2, 1], [1, 2, 3]]),
            result_types=(t, t),
            dimension=0,
            is_stable=True,
            comparator=comp,
        )
        assert r0.tolist() == [[3, 2, 3], [1, 2, 1]]
        assert r1.tolist() == [[1, 2, 1], [3, 2, 3]]


def test_signed_lt_sorts_each_column_ascending():
    """Sorting a 5x7 int64 tensor along dimension 0 with a signed LT comparator (the
    example of openxla/stablehlo issue 2440): every column ascending."""
    x = np.array(
        [
            [0, 1, 1, -3, -3, -2, 0],
            [4, -1, 3, 0, 4, 0, -3],
            [1, 0, 0, 0, 0, 2, 3],
            [-3, -4, -4, -2, 0, 3, 3],
            [0, 5, 2, -2, 0, -2, 0],
        ]
    )
    want = [
        [-3, -4, -4, -3, -3, -2, -3],
        [0, -1, 0, -2, 0, -2, 0],
        [0, 0, 1, -2, 0, 0, 0],
        [1, 1, 2, 0, 0, 2, 3],
        [4, 5, 3, 0, 4, 3, 3],
    ]
    for with_region in (True, False):
        comp = simple_comparator(IntegerType(64), "LT", "SIGNED", with_region=with_region)
        (r,) = sort(
            x, result_types=(TensorType((5, 7), IntegerType(64)),), dimension=0, comparator=comp
        )
        assert r.tolist() == want


# ---- property tests -------------------------------------------------------------------


@st.composite
def int_case(draw):
    rank = draw(st.integers(1, 3))
    shape = tuple(draw(st.integers(0, 6)) for _ in range(rank))
    dim = draw(st.integers(-rank, rank - 1))
    return shape, dim


@SETTINGS
@given(int_case(), st.sampled_from(["LT", "GT"]), st.booleans(), st.integers(0, 2**32))
def test_single_key_matches_reference(case, direction, with_region, seed):
    shape, dim = case
    rng = np.random.default_rng(seed)
    keys = rng.integers(-3, 4, size=shape).astype(np.int32)
    payload = rng.integers(0, 100, size=shape).astype(np.uint8)
    comp = simple_comparator(IntegerType(32), direction, n_operands=2, with_region=with_region)
    types = (TensorType(shape, IntegerType(32)), TensorType(shape, IntegerType(8, "unsigned")))
    got = sort(keys, payload, result_types=types, dimension=dim, is_stable=True, comparator=comp)
    op = NP_CMP[direction]
    want = ref_sort([keys, payload], dim, lambda a, b: bool(op(a[0], b[0])))
    for g, w in zip(got, want):
        assert g.dtype == w.dtype
        np.testing.assert_array_equal(g, w)


@SETTINGS
@given(st.integers(0, 40), st.integers(0, 2**32))
def test_lexicographic_two_keys(n, seed):
    rng = np.random.default_rng(seed)
    k0 = rng.integers(0, 3, size=n).astype(np.uint16)
    k1 = rng.integers(-2, 3, size=n).astype(np.int64)
    s0, s1 = TensorType((), IntegerType(16, "unsigned")), TensorType((), IntegerType(64))
    # k0 descending, then k1 ascending: gt(k0) | (eq(k0) & lt(k1))
    r = region(
        [s0, s0, s1, s1],
        [
            ("stablehlo.compare", ["%arg0", "%arg1"], I1, cmp("EQ")),
            ("stablehlo.compare", ["%arg2", "%arg3"], I1, cmp("LT")),
            ("stablehlo.and", ["%0", "%1"], I1, {}),
            ("stablehlo.compare", ["%arg0", "%arg1"], I1, cmp("GT")),
            ("stablehlo.or", ["%3", "%2"], I1, {}),
        ],
        ["%4"],
    )

    def call(a0, a1, b0, b1):
        return ((a0 > a1) | ((a0 == a1) & (b0 < b1)),)

    def less(a, b):
        return a[0] > b[0] or (a[0] == b[0] and a[1] < b[1])

    want = ref_sort([k0, k1], 0, less)
    for reg in (r, None):
        got = sort(
            k0,
            k1,
            result_types=(TensorType((n,), s0.element_type), TensorType((n,), s1.element_type)),
            dimension=0,
            is_stable=True,
            comparator=RegionFn(region=reg, call=call),
        )
        np.testing.assert_array_equal(got[0], want[0])
        np.testing.assert_array_equal(got[1], want[1])


FLOATS = st.lists(
    st.sampled_from([0.0, -0.0, 1.5, -1.5, np.inf, -np.inf, np.nan, -np.nan, 2.0]), max_size=20
)


@SETTINGS
@given(FLOATS, st.sampled_from(["LT", "GT"]))
def test_totalorder(vals, direction):
    x = np.array(vals, dtype=np.float32)
    idx = np.arange(x.size, dtype=np.int32)
    f32 = FloatType("f32")
    types = (TensorType(x.shape, f32), TensorType(x.shape, IntegerType(32)))
    got = sort(
        x,
        idx,
        result_types=types,
        dimension=0,
        is_stable=True,
        comparator=simple_comparator(f32, direction, "TOTALORDER", n_operands=2),
    )
    sign = 1 if direction == "LT" else -1
    want = sorted(range(x.size), key=lambda i: sign * total_key(float(x[i])))
    assert got[1].tolist() == want
    np.testing.assert_array_equal(got[0].view(np.int32), x[want].view(np.int32))


@SETTINGS
@given(FLOATS, st.sampled_from(["LT", "GT"]))
def test_float_compare_nan_last_zero_ties(vals, direction):
    """FLOAT compares: -0 == +0 (stable order kept); NaN unordered: hlorun puts NaN last."""
    x = np.array(vals, dtype=np.float32)
    idx = np.arange(x.size, dtype=np.int32)
    f32 = FloatType("f32")
    types = (TensorType(x.shape, f32), TensorType(x.shape, IntegerType(32)))
    got = sort(
        x,
        idx,
        result_types=types,
        dimension=0,
        is_stable=True,
        comparator=simple_comparator(f32, direction, "FLOAT", n_operands=2),
    )
    sign = 1.0 if direction == "LT" else -1.0
    want = sorted(
        range(x.size),
        key=lambda i: (bool(np.isnan(x[i])), 0.0 if np.isnan(x[i]) else sign * float(x[i])),
    )
    assert got[1].tolist() == want


def test_bf16_and_bool_keys():
    bf = np.array([3.0, -1.0, 2.0, -0.0, 0.0], dtype=ml_dtypes.bfloat16)
    t = TensorType((5,), FloatType("bf16"))
    (r,) = sort(
        bf,
        result_types=(t,),
        dimension=0,
        is_stable=True,
        comparator=simple_comparator(FloatType("bf16"), "LT"),
    )
    assert r.dtype == ml_dtypes.bfloat16 and r.astype(np.float32).tolist() == [
        -1.0,
        -0.0,
        0.0,
        2.0,
        3.0,
    ]
    assert np.signbit(r[1].astype(np.float32)) and not np.signbit(r[2].astype(np.float32))
    b = np.array([True, False, True, False])
    (r,) = sort(
        b,
        result_types=(TensorType((4,), IntegerType(1)),),
        dimension=0,
        comparator=simple_comparator(IntegerType(1), "LT"),
    )
    assert r.tolist() == [False, False, True, True]


def test_unsigned_compare_type_on_signed_keys():
    x = np.array([-1, 2, 0, -128], dtype=np.int8)
    (r,) = sort(
        x,
        result_types=(TensorType((4,), IntegerType(8)),),
        dimension=0,
        comparator=simple_comparator(IntegerType(8), "LT", "UNSIGNED"),
    )
    assert r.tolist() == [0, 2, -128, -1]  # as unsigned: 0, 2, 128, 255


@SETTINGS
@given(st.lists(st.integers(-5, 5), max_size=33), st.integers(1, 3))
def test_per_operand_transform_comparator(vals, batch):
    """A comparator with arithmetic in it (|a| < |b|): recognised as a per-operand key
    transform (abs), so it no longer needs the merge sort; the order must be the same."""
    x = np.array([vals] * batch, dtype=np.int64).reshape(batch, len(vals))
    x = x * (np.arange(batch)[:, None] % 2 * 2 - 1)  # vary the rows
    s = TensorType((), IntegerType(64))
    r = region(
        [s, s],
        [
            ("stablehlo.abs", ["%arg0"], s, {}),
            ("stablehlo.abs", ["%arg1"], s, {}),
            ("stablehlo.compare", ["%0", "%1"], I1, cmp("LT")),
        ],
        ["%2"],
    )
    calls = []

    def call(a, b):
        calls.append(1)
        return (np.abs(a) < np.abs(b),)

    (got,) = sort(
        x,
        result_types=(TensorType(x.shape, IntegerType(64)),),
        dimension=1,
        is_stable=True,
        comparator=RegionFn(region=r, call=call),
    )
    (want,) = ref_sort([x], 1, lambda a, b: abs(int(a[0])) < abs(int(b[0])))
    np.testing.assert_array_equal(got, want)
    n = len(vals)
    levels = max(n - 1, 0).bit_length()
    assert len(calls) <= levels * (levels + 1)


@SETTINGS
@given(st.lists(st.integers(-5, 5), max_size=33))
def test_comparator_mixing_both_arguments_runs_the_merge_sort(vals):
    """(a - b) < (b - a) reads both arguments in one key, so no key mapping exists: the
    stable merge sort calls the region on whole vectors, O(log^2 n) times."""
    x = np.array(vals, dtype=np.int64)
    s = TensorType((), IntegerType(64))
    r = region(
        [s, s],
        [
            ("stablehlo.subtract", ["%arg0", "%arg1"], s, {}),
            ("stablehlo.subtract", ["%arg1", "%arg0"], s, {}),
            ("stablehlo.compare", ["%0", "%1"], I1, cmp("LT")),
        ],
        ["%2"],
    )
    calls = []

    def call(a, b):
        calls.append(1)
        return ((a - b) < (b - a),)

    (got,) = sort(
        x,
        result_types=(TensorType(x.shape, IntegerType(64)),),
        dimension=0,
        is_stable=True,
        comparator=RegionFn(region=r, call=call),
    )
    assert got.tolist() == sorted(vals)
    levels = max(len(vals) - 1, 0).bit_length()
    assert 0 < len(calls) <= max(levels * (levels + 1), 1) or len(vals) < 2


@SETTINGS
@given(st.integers(1, 40), st.integers(0, 2**32))
def test_inconsistent_comparator_permutes_or_raises(n, seed):
    """A comparator that is not a strict weak order has no defined result; hlorun then
    returns some permutation of the input or raises, never loses or duplicates elements."""
    x = np.arange(n, dtype=np.int64)
    t = TensorType((n,), IntegerType(64))
    table = np.random.default_rng(seed).integers(0, 2, size=(n, n)).astype(bool)
    comp = RegionFn(region=None, call=lambda a, b: (table[a, b],))
    try:
        (r,) = sort(x, result_types=(t,), dimension=0, comparator=comp)
    except InterpreterError:
        return
    assert sorted(r.tolist()) == list(range(n))


def test_inconsistent_comparator_raises():
    x = np.arange(4, dtype=np.int64)
    t = TensorType((4,), IntegerType(64))
    table = np.array([[0, 1, 1, 1], [0, 0, 1, 1], [0, 0, 1, 0], [0, 1, 0, 0]], dtype=bool)
    with pytest.raises(InterpreterError):
        sort(
            x,
            result_types=(t,),
            dimension=0,
            comparator=RegionFn(region=None, call=lambda a, b: (table[a, b],)),
        )


def test_rank0_and_size1():
    t = TensorType((), IntegerType(64))
    (r,) = sort(np.array(3), result_types=(t,), comparator=simple_comparator(IntegerType(64), "LT"))
    assert r.tolist() == 3


def test_complex_keys_real_then_imag():
    from hlorun.parser.ir import ComplexType

    r = complex_comparator()
    x = np.array(
        [1 + 2j, -1 + 5j, 1 - 3j, complex(-0.0, 1.0), complex(0.0, -1.0), 1 + 2j], np.complex64
    )
    (got,) = sort(
        x,
        result_types=(TensorType((6,), ComplexType(FloatType("f32"))),),
        dimension=0,
        is_stable=True,
        comparator=RegionFn(region=r, call=None),
    )
    want = sorted(x.tolist(), key=lambda v: (total_key(v.real), total_key(v.imag)))
    assert got.tolist() == want
    assert np.signbit(got[1].real)  # -0.0 before +0.0 in total order
