"""Data-movement kernels: the spec's examples, every element type, and random shapes
checked against slow references written from the spec's index formulas."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import hlorun.engine.kernels  # noqa: F401  (fills the kernel column)
from hlorun import shape_inference  # noqa: F401
from hlorun.parser.errors import InterpreterError
from hlorun.parser.ir import ComplexType, FloatType, IntegerType, QuantizedType, TensorType
from hlorun.shape_inference.optable import OP_TABLE

I1, I32, I64 = IntegerType(1), IntegerType(32), IntegerType(64)
F32 = FloatType("f32")


def k(name):
    return OP_TABLE[f"stablehlo.{name}"].kernel


def T(shape, elem=I32):
    return TensorType(tuple(shape), elem)


ALL_DTYPES = [
    np.bool_,
    np.int8,
    np.uint64,
    ml_dtypes.int2,
    ml_dtypes.int4,
    ml_dtypes.uint4,
    ml_dtypes.float4_e2m1fn,
    ml_dtypes.float6_e3m2fn,
    ml_dtypes.float8_e4m3fn,
    ml_dtypes.float8_e5m2,
    ml_dtypes.bfloat16,
    np.float16,
    np.float64,
    np.complex64,
    np.complex128,
]


def sample(shape, dtype, seed=0):
    rng = np.random.default_rng(seed)
    return (rng.integers(0, 2, size=shape)).astype(dtype)


def same_bits(a, b):
    assert a.dtype == b.dtype and a.shape == b.shape
    np.testing.assert_array_equal(
        np.ascontiguousarray(a).view(np.uint8), np.ascontiguousarray(b).view(np.uint8)
    )


# ---- spec examples --------------------------------------------------------------------


def test_constant_spec_example():
    value = np.array([[0.0, 1.0], [2.0, 3.0]], np.float32)
    value.setflags(write=False)
    out = k("constant")(result_type=T((2, 2), F32), value=value, value_type=T((2, 2), F32))
    np.testing.assert_array_equal(out, value)
    assert out.dtype == np.float32


def test_iota_spec_examples():
    out0 = k("iota")(result_type=T((4, 5)), iota_dimension=0)
    out1 = k("iota")(result_type=T((4, 5)), iota_dimension=1)
    np.testing.assert_array_equal(out0, [[i] * 5 for i in range(4)])
    np.testing.assert_array_equal(out1, [list(range(5))] * 4)
    assert out0.dtype == np.int32


@pytest.mark.parametrize(
    "elem,dtype",
    [
        (IntegerType(4), ml_dtypes.int4),
        (IntegerType(2, "unsigned"), ml_dtypes.uint2),
        (IntegerType(64, "unsigned"), np.uint64),
        (FloatType("bf16"), ml_dtypes.bfloat16),
        (FloatType("f8E4M3FN"), ml_dtypes.float8_e4m3fn),
        (FloatType("f16"), np.float16),
        (ComplexType(F32), np.complex64),
        (ComplexType(FloatType("f64")), np.complex128),
    ],
)
def test_iota_element_types(elem, dtype):
    out = k("iota")(result_type=T((2, 3), elem), iota_dimension=1)
    assert out.dtype == np.dtype(dtype)
    np.testing.assert_array_equal(
        out.astype(np.float64).real if out.dtype.kind != "c" else out.real, [[0, 1, 2]] * 2
    )


def test_iota_wraps_like_convert_for_narrow_ints():
    out = k("iota")(result_type=T((10,), IntegerType(4)), iota_dimension=0)
    np.testing.assert_array_equal(out.astype(np.int64), [0, 1, 2, 3, 4, 5, 6, 7, -8, -7])


def test_iota_quantized_uses_quantize():
    q = QuantizedType(IntegerType(8), F32, scales=(0.5,), zero_points=(3,))
    out = k("iota")(result_type=T((4,), q), iota_dimension=0)
    assert out.dtype == np.int8
    np.testing.assert_array_equal(out, [3, 5, 7, 9])  # i / 0.5 + 3


def test_broadcast_in_dim_spec_example():
    out = k("broadcast_in_dim")(
        np.array([[1, 2, 3]], np.int32), result_type=T((2, 3, 2)), broadcast_dimensions=(2, 1)
    )
    np.testing.assert_array_equal(out, [[[1, 1], [2, 2], [3, 3]]] * 2)


def test_broadcast_in_dim_bounded_dynamic_result_takes_operand_size():
    out = k("broadcast_in_dim")(
        np.array([1, 2, 3], np.int32), result_type=T((2, None)), broadcast_dimensions=(1,)
    )
    np.testing.assert_array_equal(out, [[1, 2, 3]] * 2)
    with pytest.raises(InterpreterError):
        k("broadcast_in_dim")(
            np.array([1], np.int32), result_type=T((2, None)), broadcast_dimensions=(1,)
        )


def test_deprecated_broadcast():
    out = k("broadcast")(np.array([1, 2], np.int32), result_type=T((3, 2)), broadcast_sizes=(3,))
    np.testing.assert_array_equal(out, [[1, 2]] * 3)


def test_dynamic_broadcast_in_dim_spec_example():
    out = k("dynamic_broadcast_in_dim")(
        np.array([[1, 2, 3]], np.int64),
        np.array([2, 3, 2]),
        result_type=T((2, 3, 2), I64),
        broadcast_dimensions=(2, 1),
        known_expanding_dimensions=(0,),
        known_nonexpanding_dimensions=(1,),
    )
    np.testing.assert_array_equal(out, [[[1, 1], [2, 2], [3, 3]]] * 2)


def test_dynamic_broadcast_in_dim_dynamic_result_and_mismatch():
    out = k("dynamic_broadcast_in_dim")(
        np.array([7], np.int64),
        np.array([4]),
        result_type=T((None,), I64),
        broadcast_dimensions=(0,),
    )
    np.testing.assert_array_equal(out, [7, 7, 7, 7])
    with pytest.raises(InterpreterError):
        k("dynamic_broadcast_in_dim")(
            np.array([7], np.int64),
            np.array([4]),
            result_type=T((3,), I64),
            broadcast_dimensions=(0,),
        )


def test_reshape_and_dynamic_reshape_spec_examples():
    x = np.array([[1, 2, 3], [4, 5, 6]], np.int32)
    np.testing.assert_array_equal(k("reshape")(x, result_type=T((3, 2))), [[1, 2], [3, 4], [5, 6]])
    np.testing.assert_array_equal(
        k("dynamic_reshape")(x, np.array([3, 2]), result_type=T((None, 2))),
        [[1, 2], [3, 4], [5, 6]],
    )


def test_transpose_spec_example():
    x = np.arange(1, 13, dtype=np.int32).reshape(2, 3, 2)
    out = k("transpose")(x, result_type=T((2, 3, 2)), permutation=(2, 1, 0))
    np.testing.assert_array_equal(out, [[[1, 7], [3, 9], [5, 11]], [[2, 8], [4, 10], [6, 12]]])


def test_slice_spec_example():
    x = np.array([[0, 0, 0, 0], [0, 0, 1, 1], [0, 0, 1, 1]], np.int64)
    out = k("slice")(
        x, result_type=T((2, 2), I64), start_indices=(1, 2), limit_indices=(3, 4), strides=(1, 1)
    )
    np.testing.assert_array_equal(out, [[1, 1], [1, 1]])


def test_dynamic_slice_spec_example_clamps():
    x = np.array([[0, 0, 1, 1], [0, 0, 1, 1], [0, 0, 0, 0], [0, 0, 0, 0]], np.int32)
    out = k("dynamic_slice")(
        x, np.array(-1), np.array(3), result_type=T((2, 2)), slice_sizes=(2, 2)
    )
    np.testing.assert_array_equal(out, [[1, 1], [1, 1]])


def test_dynamic_slice_unsigned_and_narrow_index_types():
    x = np.arange(16).reshape(4, 4)
    out = k("dynamic_slice")(
        x,
        np.array(2**64 - 1, np.uint64),
        np.array(-8, ml_dtypes.int4),
        result_type=None,
        slice_sizes=(1, 2),
    )
    np.testing.assert_array_equal(out, [[12, 13]])


def test_dynamic_update_slice_spec_example_clamps():
    x = np.array([[1, 1, 0, 0], [1, 1, 0, 0], [1, 1, 1, 1], [1, 1, 1, 1]], np.int32)
    before = x.copy()
    out = k("dynamic_update_slice")(
        x, np.ones((2, 2), np.int32), np.array(-1), np.array(3), result_type=T((4, 4))
    )
    np.testing.assert_array_equal(out, np.ones((4, 4)))
    np.testing.assert_array_equal(x, before)


def test_concatenate_spec_example():
    out = k("concatenate")(
        np.array([[1, 2], [3, 4], [5, 6]], np.int64),
        np.array([[7, 8]], np.int64),
        result_type=T((4, 2), I64),
        dimension=0,
    )
    np.testing.assert_array_equal(out, [[1, 2], [3, 4], [5, 6], [7, 8]])


PAD_EXPECTED = [[0, 1, 0, 0, 2, 0, 0, 3, 0], [0] * 9, [0, 4, 0, 0, 5, 0, 0, 6, 0], [0] * 9, [0] * 9]


def test_pad_spec_example():
    out = k("pad")(
        np.array([[1, 2, 3], [4, 5, 6]], np.int32),
        np.array(0, np.int32),
        result_type=T((5, 9)),
        edge_padding_low=(0, 1),
        edge_padding_high=(2, 1),
        interior_padding=(1, 2),
    )
    np.testing.assert_array_equal(out, PAD_EXPECTED)


def test_dynamic_pad_spec_example_and_negative_padding():
    out = k("dynamic_pad")(
        np.array([[1, 2, 3], [4, 5, 6]], np.int64),
        np.array(0),
        np.array([0, 1]),
        np.array([2, 1]),
        np.array([1, 2]),
        result_type=T((5, 9), I64),
    )
    np.testing.assert_array_equal(out, PAD_EXPECTED)
    # tests/interpret/dynamic_pad.mlir
    operand = np.array([[0, 0, 0, 0], [0, 1, 2, 0], [0, 3, 4, 0], [0, 5, 6, 0], [0, 0, 0, 0]])
    out = k("dynamic_pad")(
        operand,
        np.array(-1),
        np.array([1, -1]),
        np.array([1, -1]),
        np.array([0, 1]),
        result_type=T((7, 5), I64),
    )
    np.testing.assert_array_equal(
        out,
        [
            [-1] * 5,
            [-1, 0, -1, 0, -1],
            [-1, 1, -1, 2, -1],
            [-1, 3, -1, 4, -1],
            [-1, 5, -1, 6, -1],
            [-1, 0, -1, 0, -1],
            [-1] * 5,
        ],
    )


def test_reverse_spec_example():
    out = k("reverse")(
        np.array([[1, 2], [3, 4], [5, 6]], np.int32), result_type=T((3, 2)), dimensions=(1,)
    )
    np.testing.assert_array_equal(out, [[2, 1], [4, 3], [6, 5]])


def test_get_dimension_size_spec_example():
    out = k("get_dimension_size")(np.zeros((2, 3), np.int64), result_type=T((), I32), dimension=1)
    assert out.dtype == np.int32 and out.shape == () and int(out) == 3


def test_dynamic_iota_spec_example():
    out = k("dynamic_iota")(np.array([4, 5]), result_type=T((None, 5), I64), iota_dimension=0)
    np.testing.assert_array_equal(out, [[i] * 5 for i in range(4)])
    assert out.dtype == np.int64


def test_real_dynamic_slice():
    x = np.arange(10)
    out = k("real_dynamic_slice")(
        x, np.array([1]), np.array([8]), np.array([3]), result_type=T((None,), I64)
    )
    np.testing.assert_array_equal(out, [1, 4, 7])
    with pytest.raises(InterpreterError):
        k("real_dynamic_slice")(
            x, np.array([1]), np.array([11]), np.array([3]), result_type=T((None,), I64)
        )


@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_every_element_type_moves_bit_exactly(dtype):
    x = sample((3, 4), dtype)
    pv = sample((), dtype, seed=1)
    same_bits(k("transpose")(x, permutation=(1, 0)), x.T)
    same_bits(k("reverse")(x, dimensions=(0, 1)), x[::-1, ::-1])
    same_bits(
        k("slice")(x, start_indices=(1, 0), limit_indices=(3, 4), strides=(1, 2)), x[1:3, 0:4:2]
    )
    same_bits(k("concatenate")(x, x[:1], dimension=0), np.concatenate([x, x[:1]]))
    same_bits(k("reshape")(x, result_type=TensorType((12,), I32)).astype(dtype), x.reshape(12))
    padded = k("pad")(
        x, pv, edge_padding_low=(1, -1), edge_padding_high=(0, 1), interior_padding=(1, 0)
    )
    assert padded.dtype == np.dtype(dtype) and padded.shape == (6, 4)
    same_bits(padded[1::2, :3], x[:, 1:])
    same_bits(k("dynamic_update_slice")(x, x[:1, :2], np.array(5), np.array(1))[2, 1:3], x[0, :2])
    same_bits(k("dynamic_slice")(x, np.array(1), np.array(3), slice_sizes=(2, 2)), x[1:3, 2:4])


# ---- random shapes vs the spec's formulas --------------------------------------------

shapes = st.lists(st.integers(0, 4), min_size=0, max_size=3)
small = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def arr(shape, seed=0):
    return np.random.default_rng(seed).integers(-50, 50, size=shape).astype(np.int32)


@small
@given(shapes, st.data())
def test_pad_matches_formula(shape, data):
    x = arr(shape)
    lo = [data.draw(st.integers(-2, 2)) for _ in shape]
    interior = [data.draw(st.integers(0, 2)) for _ in shape]
    inner = [n + max(n - 1, 0) * it for n, it in zip(shape, interior)]
    hi = [data.draw(st.integers(max(-2, -(i + l)), 2)) for i, l in zip(inner, lo)]
    out_shape = [i + a + b for i, a, b in zip(inner, lo, hi)]
    expected = np.full(out_shape, -99, np.int32)
    for idx in np.ndindex(*shape):  # result[lo + i * (interior + 1)] = operand[i]
        r = tuple(l + i * (it + 1) for l, i, it in zip(lo, idx, interior))
        if all(0 <= a < n for a, n in zip(r, out_shape)):
            expected[r] = x[idx]
    out = k("pad")(
        x,
        np.array(-99, np.int32),
        edge_padding_low=tuple(lo),
        edge_padding_high=tuple(hi),
        interior_padding=tuple(interior),
    )
    np.testing.assert_array_equal(out, expected)


@small
@given(shapes, st.data())
def test_slice_matches_formula(shape, data):
    x = arr(shape)
    start = [data.draw(st.integers(0, n)) for n in shape]
    limit = [data.draw(st.integers(s, n)) for s, n in zip(start, shape)]
    stride = [data.draw(st.integers(1, 3)) for _ in shape]
    out_shape = [-(-(lm - s) // st_) for s, lm, st_ in zip(start, limit, stride)]
    expected = np.zeros(out_shape, np.int32)
    for r in np.ndindex(*out_shape):
        expected[r] = x[tuple(s + i * st_ for s, i, st_ in zip(start, r, stride))]
    out = k("slice")(
        x, start_indices=tuple(start), limit_indices=tuple(limit), strides=tuple(stride)
    )
    np.testing.assert_array_equal(out, expected)


@small
@given(shapes, st.data())
def test_transpose_matches_formula(shape, data):
    x = arr(shape)
    perm = data.draw(st.permutations(list(range(len(shape)))))
    out_shape = [shape[p] for p in perm]
    expected = np.zeros(out_shape, np.int32)
    for oi in np.ndindex(*shape):  # result_index[d] = operand_index[permutation[d]]
        expected[tuple(oi[p] for p in perm)] = x[oi]
    np.testing.assert_array_equal(k("transpose")(x, permutation=tuple(perm)), expected)


@small
@given(shapes, st.data())
def test_reverse_matches_formula(shape, data):
    x = arr(shape)
    dims = data.draw(st.lists(st.sampled_from(range(len(shape))), unique=True)) if shape else []
    expected = np.zeros(shape, np.int32)
    for r in np.ndindex(*shape):
        expected[r] = x[
            tuple(n - i - 1 if d in dims else i for d, (i, n) in enumerate(zip(r, shape)))
        ]
    np.testing.assert_array_equal(k("reverse")(x, dimensions=tuple(dims)), expected)


@small
@given(shapes, st.data())
def test_broadcast_in_dim_matches_formula(shape, data):
    extra = data.draw(st.lists(st.integers(0, 3), max_size=2))
    rank = len(shape) + len(extra)
    dims = data.draw(st.permutations(list(range(rank))))[: len(shape)]
    out_shape = [0] * rank
    it = iter(extra)
    for d in range(rank):
        out_shape[d] = shape[dims.index(d)] if d in dims else next(it)
    operand_shape = [1 if data.draw(st.booleans()) else n for n in shape]
    for d, n in enumerate(operand_shape):
        if n == 1:
            out_shape[dims[d]] = data.draw(st.integers(0, 3))
    x = arr(operand_shape)
    expected = np.zeros(out_shape, np.int32)
    for r in np.ndindex(*out_shape):
        expected[r] = x[
            tuple(0 if operand_shape[d] == 1 else r[dims[d]] for d in range(len(shape)))
        ]
    out = k("broadcast_in_dim")(x, result_type=T(out_shape), broadcast_dimensions=tuple(dims))
    np.testing.assert_array_equal(out, expected)


@small
@given(st.lists(st.integers(0, 3), min_size=1, max_size=3), st.data())
def test_concatenate_matches_formula(shape, data):
    dim = data.draw(st.integers(0, len(shape) - 1))
    sizes = data.draw(st.lists(st.integers(0, 3), min_size=1, max_size=3))
    inputs = []
    for j, s in enumerate(sizes):
        sh = list(shape)
        sh[dim] = s
        inputs.append(arr(sh, seed=j))
    out_shape = list(shape)
    out_shape[dim] = sum(sizes)
    expected = np.zeros(out_shape, np.int32)
    for r in np.ndindex(*out_shape):  # i_d = d0 + ... + d_{k-1} + k_d
        kd, j = r[dim], 0
        while kd >= sizes[j]:
            kd -= sizes[j]
            j += 1
        expected[r] = inputs[j][r[:dim] + (kd,) + r[dim + 1 :]]
    np.testing.assert_array_equal(k("concatenate")(*inputs, dimension=dim), expected)


@small
@given(st.lists(st.integers(0, 4), min_size=1, max_size=3), st.data())
def test_dynamic_slice_and_update_clamp(shape, data):
    x = arr(shape)
    sizes = [data.draw(st.integers(0, n)) for n in shape]
    starts = [data.draw(st.integers(-3, 6)) for _ in shape]
    adj = [min(max(s, 0), n - z) for s, n, z in zip(starts, shape, sizes)]
    expected = np.zeros(sizes, np.int32)
    for r in np.ndindex(*sizes):
        expected[r] = x[tuple(a + i for a, i in zip(adj, r))]
    idx = [np.array(s, np.int64) for s in starts]
    np.testing.assert_array_equal(k("dynamic_slice")(x, *idx, slice_sizes=tuple(sizes)), expected)
    upd = arr(sizes, seed=3)
    expected2 = x.copy()
    for r in np.ndindex(*sizes):
        expected2[tuple(a + i for a, i in zip(adj, r))] = upd[r]
    np.testing.assert_array_equal(k("dynamic_update_slice")(x, upd, *idx), expected2)
