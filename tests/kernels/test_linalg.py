"""linalg kernels: dot_general, dot, fft, triangular_solve, cholesky, batch_norm_*.

Expected values come from the spec's examples, exact integer arithmetic, or slow
references written here from the spec's formulas with explicit loops.
"""

from __future__ import annotations

import itertools

import ml_dtypes
import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

import hlorun.engine.kernels  # noqa: F401  (fills the kernel column)
from hlorun import shape_inference  # noqa: F401
from hlorun.parser.errors import UnsupportedError
from hlorun.parser.ir import ComplexType, FloatType, IntegerType, QuantizedType, TensorType
from hlorun.shape_inference.optable import OP_TABLE

I1 = IntegerType(1)
I8 = IntegerType(8)
I32 = IntegerType(32)
I64 = IntegerType(64)
UI8 = IntegerType(8, "unsigned")
F32 = FloatType("f32")
F64 = FloatType("f64")
BF16 = FloatType("bf16")
C64 = ComplexType(F32)
C128 = ComplexType(F64)


def K(name):
    return OP_TABLE[f"stablehlo.{name}"].kernel


def T(shape, et):
    return TensorType(tuple(shape), et)


# --------------------------------------------------------------------------------------
# dot_general
# --------------------------------------------------------------------------------------


def ref_dot_general(lhs, rhs, lb, rb, lc, rc, wrap_bits=None):
    """Spec formula with explicit loops; python ints / floats; optional wraparound."""
    lf = [d for d in range(lhs.ndim) if d not in lb and d not in lc]
    rf = [d for d in range(rhs.ndim) if d not in rb and d not in rc]
    shape = [lhs.shape[d] for d in lb] + [lhs.shape[d] for d in lf] + [rhs.shape[d] for d in rf]
    out = np.zeros(shape, dtype=object)
    csizes = [lhs.shape[d] for d in lc]
    for idx in itertools.product(*[range(s) for s in shape]):
        bi = idx[: len(lb)]
        li = idx[len(lb) : len(lb) + len(lf)]
        ri = idx[len(lb) + len(lf) :]
        acc = 0
        for ci in itertools.product(*[range(s) for s in csizes]):
            lidx = [0] * lhs.ndim
            ridx = [0] * rhs.ndim
            for d, v in zip(lb, bi):
                lidx[d] = v
            for d, v in zip(rb, bi):
                ridx[d] = v
            for d, v in zip(lf, li):
                lidx[d] = v
            for d, v in zip(rf, ri):
                ridx[d] = v
            for d, v in zip(lc, ci):
                lidx[d] = v
            for d, v in zip(rc, ci):
                ridx[d] = v
            acc += lhs[tuple(lidx)].item() * rhs[tuple(ridx)].item()
        if wrap_bits:
            acc = (acc + 2 ** (wrap_bits - 1)) % 2**wrap_bits - 2 ** (wrap_bits - 1)
        out[idx] = acc
    return out


def dg(lhs, rhs, result_type, lb=(), rb=(), lc=(), rc=(), **kw):
    return K("dot_general")(
        lhs,
        rhs,
        result_type=result_type,
        lhs_batching_dimensions=lb,
        rhs_batching_dimensions=rb,
        lhs_contracting_dimensions=lc,
        rhs_contracting_dimensions=rc,
        **kw,
    )


def test_dot_general_spec_example():
    lhs = np.array([[[1, 2], [3, 4]], [[5, 6], [7, 8]]], dtype=np.int64)
    rhs = np.array([[[1, 0], [0, 1]], [[1, 0], [0, 1]]], dtype=np.int64)
    r = dg(
        lhs, rhs, T((2, 2, 2), I64), (0,), (0,), (2,), (1,), precision_config=("DEFAULT", "DEFAULT")
    )
    assert r.dtype == np.int64
    np.testing.assert_array_equal(r, lhs)


def test_dot_general_empty_dims_is_outer_product():
    lhs = np.array([[1, 2], [3, 4]], dtype=np.int64)
    rhs = np.array([[1, 0], [0, 1]], dtype=np.int64)
    r = dg(lhs, rhs, T((2, 2, 2, 2), I64))
    np.testing.assert_array_equal(r, lhs[:, :, None, None] * rhs[None, None])


def test_dot_general_f32_to_f64_result():
    lhs = np.arange(8, dtype=np.float32).reshape(2, 2, 2)
    rhs = np.stack([np.eye(2, dtype=np.float32)] * 2)
    r = dg(lhs, rhs, T((2, 2, 2), F64), (0,), (0,), (2,), (1,))
    assert r.dtype == np.float64
    np.testing.assert_array_equal(r, lhs.astype(np.float64))


def test_dot_general_i8_to_i32_exact():
    lhs = np.full((3, 100), 127, dtype=np.int8)
    rhs = np.full((100, 2), -128, dtype=np.int8)
    r = dg(lhs, rhs, T((3, 2), I32), lc=(1,), rc=(0,))
    assert r.dtype == np.int32
    assert (r == 127 * -128 * 100).all()


def test_dot_general_int_wraps_in_result_type():
    lhs = np.array([100, 100], dtype=np.int8)
    r = dg(lhs, lhs, T((), I8), lc=(0,), rc=(0,))
    assert r.dtype == np.int8 and int(r) == (20000 + 128) % 256 - 128


def test_dot_general_int64_exact_beyond_float():
    big = np.array([2**62 + 1, 3], dtype=np.int64)
    r = dg(big, np.array([1, 1], dtype=np.int64), T((), I64), lc=(0,), rc=(0,))
    assert int(r) == 2**62 + 4  # a float64 round trip would lose the low bits


def test_dot_general_uint8_wraps():
    a = np.array([200, 200], dtype=np.uint8)
    r = dg(a, a, T((), UI8), lc=(0,), rc=(0,))
    assert r.dtype == np.uint8 and int(r) == (2 * 200 * 200) % 256


def test_dot_general_bool_is_or_of_and():
    lhs = np.array([[True, False], [False, False]])
    rhs = np.array([[True, True], [True, False]])
    r = dg(lhs, rhs, T((2, 2), I1), lc=(1,), rc=(0,))
    assert r.dtype == np.bool_
    np.testing.assert_array_equal(r, [[True, True], [False, False]])


def test_dot_general_bf16_rounds_once():
    a = np.array([1.0, 2.0**-8, 2.0**-8], dtype=ml_dtypes.bfloat16)
    b = np.ones(3, dtype=ml_dtypes.bfloat16)
    r = dg(a, b, T((), BF16), lc=(0,), rc=(0,))
    # the exact sum 1 + 2**-7 is representable in bf16 (8 significant bits);
    # sequential bf16 accumulation would round 1 + 2**-8 to 1.0 (ties to even) twice.
    assert r.dtype == ml_dtypes.bfloat16 and float(r) == 1.0 + 2.0**-7


def test_dot_general_bf16_no_double_rounding():
    a = np.array([1.0, 2.0**-8, 2.0**-40], dtype=ml_dtypes.bfloat16)
    r = dg(a, np.ones(3, dtype=ml_dtypes.bfloat16), T((), BF16), lc=(0,), rc=(0,))
    # exact 1 + 2**-8 + 2**-40 is just above the bf16 tie between 1 and 1 + 2**-7;
    # float64 -> float32 -> bf16 would land on the tie and round to 1.0
    assert float(r) == 1.0 + 2.0**-7


def test_dot_general_tf32_result_is_rounded_to_tf32():
    tf32 = FloatType("tf32")
    a = np.array([1.0, 2.0**-11, 2.0**-20], dtype=np.float32)
    r = dg(a, np.ones(3, np.float32), T((), tf32), lc=(0,), rc=(0,))
    assert r.dtype == np.float32 and float(r) == 1.0 + 2.0**-10
    a = np.array([1.0, 2.0**-11], dtype=np.float32)
    r = dg(a, np.ones(2, np.float32), T((), tf32), lc=(0,), rc=(0,))
    assert float(r) == 1.0  # tie, to even


def test_dot_general_f8_conformance_values():
    x = np.array([0, 1, 2, 3, 4, 5, 6, 7], dtype=ml_dtypes.float8_e4m3)
    r = dg(x, x, T((), FloatType("f8E4M3")), lc=(0,), rc=(0,))
    # exact 140, correctly rounded to f8E4M3 (spacing 16 in [128, 256)) is 144
    assert r.dtype == ml_dtypes.float8_e4m3 and float(r) == 144.0


def test_dot_general_complex():
    a = np.array([[1 + 2j, 3 - 1j]], dtype=np.complex64)
    b = np.array([[2 - 1j], [1j]], dtype=np.complex64)
    r = dg(a, b, T((1, 1), C64), lc=(1,), rc=(0,))
    assert r.dtype == np.complex64
    assert r[0, 0] == (1 + 2j) * (2 - 1j) + (3 - 1j) * 1j


def test_dot_general_quantized_result_unsupported():
    q = QuantizedType(I8, F32, (0.5,), (0,))
    with pytest.raises(UnsupportedError):
        dg(np.ones(2, np.int8), np.ones(2, np.int8), T((), q), lc=(0,), rc=(0,))


@st.composite
def dot_cases(draw):
    nb = draw(st.integers(0, 2))
    nc = draw(st.integers(0, 2))
    nlf = draw(st.integers(0, 2))
    nrf = draw(st.integers(0, 2))
    sizes = lambda n: draw(st.lists(st.integers(0, 3), min_size=n, max_size=n))  # noqa: E731
    bs, cs, lfs, rfs = sizes(nb), sizes(nc), sizes(nlf), sizes(nrf)
    lrank, rrank = nb + nc + nlf, nb + nc + nrf
    lperm = draw(st.permutations(range(lrank)))
    rperm = draw(st.permutations(range(rrank)))
    lb, lc = list(lperm[:nb]), list(lperm[nb : nb + nc])
    lf_pos = sorted(lperm[nb + nc :])
    rb, rc = list(rperm[:nb]), list(rperm[nb : nb + nc])
    rf_pos = sorted(rperm[nb + nc :])
    lshape = [0] * lrank
    rshape = [0] * rrank
    for d, s in zip(lb, bs):
        lshape[d] = s
    for d, s in zip(rb, bs):
        rshape[d] = s
    for d, s in zip(lc, cs):
        lshape[d] = s
    for d, s in zip(rc, cs):
        rshape[d] = s
    for d, s in zip(lf_pos, lfs):
        lshape[d] = s
    for d, s in zip(rf_pos, rfs):
        rshape[d] = s
    seed = draw(st.integers(0, 2**31))
    return lshape, rshape, lb, rb, lc, rc, seed


@settings(max_examples=60, deadline=None)
@given(dot_cases())
# contracting dimensions listed out of order: lhs [2, 1] pairs with rhs [0, 1]
@example(([2, 3, 4], [4, 3, 2], [], [], [2, 1], [0, 1], 7))
@example(([3, 2, 4, 2], [2, 3, 4, 5], [0], [1], [3, 2], [0, 2], 11))
def test_dot_general_matches_loop_reference(case):
    lshape, rshape, lb, rb, lc, rc, seed = case
    rng = np.random.default_rng(seed)
    lhs = rng.integers(-128, 128, size=lshape).astype(np.int8)
    rhs = rng.integers(-128, 128, size=rshape).astype(np.int8)
    want = ref_dot_general(lhs, rhs, lb, rb, lc, rc, wrap_bits=8)
    got = dg(lhs, rhs, T(want.shape, I8), tuple(lb), tuple(rb), tuple(lc), tuple(rc))
    assert got.dtype == np.int8 and got.shape == want.shape
    np.testing.assert_array_equal(got.astype(np.int64), want.astype(np.int64))
    # float64 path against the same reference (small integers: exact)
    got_f = dg(
        lhs.astype(np.float64),
        rhs.astype(np.float64),
        T(want.shape, F64),
        tuple(lb),
        tuple(rb),
        tuple(lc),
        tuple(rc),
    )
    want_f = ref_dot_general(lhs, rhs, lb, rb, lc, rc)
    np.testing.assert_array_equal(got_f, want_f.astype(np.float64))
    # large int64 values: the int64 (not float64) path, wrapping modulo 2**64
    big_l = rng.integers(-(2**40), 2**40, size=lshape, dtype=np.int64)
    big_r = rng.integers(-(2**40), 2**40, size=rshape, dtype=np.int64)
    want_b = ref_dot_general(big_l, big_r, lb, rb, lc, rc, wrap_bits=64)
    got_b = dg(big_l, big_r, T(want.shape, I64), tuple(lb), tuple(rb), tuple(lc), tuple(rc))
    assert [int(v) for v in got_b.reshape(-1)] == [int(v) for v in want_b.reshape(-1)]


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32])
def test_dot_general_batch_of_one_broadcast_matrix(dtype):
    """A batched product whose rhs is one matrix broadcast over the batch (a stride-0
    view, as broadcast_in_dim makes it; torch_xla's bmm against a weight): the loop
    reference, on small integers (exact in every dtype), with lhs a transposed view."""
    rng = np.random.default_rng(3)
    x = rng.integers(-4, 5, (3, 5, 6)).astype(dtype)  # lhs is x transposed to (5, 3, 6)
    w = rng.integers(-4, 5, (6, 4)).astype(dtype)
    lhs = x.transpose(1, 0, 2)
    rhs = np.broadcast_to(w, (5, 6, 4))
    want = ref_dot_general(lhs, np.ascontiguousarray(rhs), [0], [0], [2], [1])
    et = {np.float32: F32, np.float64: F64, np.int32: I32}[dtype]
    got = dg(lhs, rhs, T((5, 3, 4), et), (0,), (0,), (2,), (1,))
    assert got.dtype == dtype and got.shape == (5, 3, 4)
    np.testing.assert_array_equal(got, want.astype(dtype))
    # contracting dimension first in the broadcast rhs (its transpose is read)
    rhs_t = np.broadcast_to(w.T, (5, 4, 6))
    got_t = dg(lhs, rhs_t, T((5, 3, 4), et), (0,), (0,), (2,), (2,))
    np.testing.assert_array_equal(got_t, want.astype(dtype))


def test_dot_general_contracting_dimensions_out_of_order():
    """lhs contracting [2, 1] with rhs [0, 1]: lhs dim 2 pairs with rhs dim 0 and lhs
    dim 1 with rhs dim 1 (not sorted first: that would pair 1 with 0)."""
    rng = np.random.default_rng(0)
    lhs = rng.integers(-5, 6, (2, 3, 4)).astype(np.int32)
    rhs = rng.integers(-5, 6, (4, 3, 2)).astype(np.int32)
    want = np.einsum("akj,jkb->ab", lhs, rhs)  # lhs (a, k, j) . rhs (j, k, b)
    got = dg(lhs, rhs, T((2, 2), I32), lc=(2, 1), rc=(0, 1))
    np.testing.assert_array_equal(got, want)
    got_f = dg(lhs.astype(np.float32), rhs.astype(np.float32), T((2, 2), F32), lc=(2, 1), rc=(0, 1))
    np.testing.assert_array_equal(got_f, want.astype(np.float32))


def test_dot_legacy_matrix_vector():
    a = np.array([[1, 2], [3, 4]], dtype=np.int32)
    v = np.array([5, 6], dtype=np.int32)
    np.testing.assert_array_equal(K("dot")(a, v, result_type=T((2,), I32)), [17, 39])
    np.testing.assert_array_equal(K("dot")(a, a, result_type=T((2, 2), I32)), a @ a)
    assert int(K("dot")(v, v, result_type=T((), I32))) == 61


# --------------------------------------------------------------------------------------
# fft
# --------------------------------------------------------------------------------------


def ref_dft(x, inverse=False):
    n = len(x)
    sign = 1 if inverse else -1
    out = [sum(x[k] * np.exp(sign * 2j * np.pi * j * k / n) for k in range(n)) for j in range(n)]
    return np.array(out) / (n if inverse else 1)


def test_fft_spec_example():
    x = np.array([1, 0, 0, 0], dtype=np.complex64)
    r = K("fft")(x, result_type=T((4,), C64), fft_type="FFT", fft_length=(4,))
    assert r.dtype == np.complex64
    np.testing.assert_array_equal(r, np.ones(4, dtype=np.complex64))


def test_fft_conformance_values_1d_2d():
    x = np.array([1 + 2j, 3 - 4j])
    r = K("fft")(x, result_type=T((2,), C128), fft_type="FFT", fft_length=(2,))
    np.testing.assert_allclose(r, [4 - 2j, -2 + 6j])
    x2 = np.array([[1 + 2j, 3 - 4j], [-5 + 6j, -7 - 8j]])
    r2 = K("fft")(x2, result_type=T((2, 2), C128), fft_type="FFT", fft_length=(2, 2))
    np.testing.assert_allclose(r2, [[-8 - 4j, 20j], [16, -4 - 8j]], atol=1e-12)
    back = K("fft")(r2, result_type=T((2, 2), C128), fft_type="IFFT", fft_length=(2, 2))
    np.testing.assert_allclose(back, x2, atol=1e-12)


def test_rfft_irfft_against_loop_dft():
    x = np.array([1.0, 2.0, 3.0, 4.0, -1.5])
    r = K("fft")(x, result_type=T((3,), C128), fft_type="RFFT", fft_length=(5,))
    np.testing.assert_allclose(r, ref_dft(x)[:3], atol=1e-12)
    back = K("fft")(r, result_type=T((5,), F64), fft_type="IRFFT", fft_length=(5,))
    assert back.dtype == np.float64
    np.testing.assert_allclose(back, x, atol=1e-12)
    r4 = K("fft")(
        np.array([1.0, 2, 3, 4]), result_type=T((3,), C128), fft_type="RFFT", fft_length=(4,)
    )
    np.testing.assert_allclose(r4, [10, -2 + 2j, -2], atol=1e-12)


def test_fft_batched_trailing_dims_f32():
    rng = np.random.default_rng(0)
    x = (rng.standard_normal((2, 3, 4)) + 1j * rng.standard_normal((2, 3, 4))).astype(np.complex64)
    r = K("fft")(x, result_type=T((2, 3, 4), C64), fft_type="FFT", fft_length=(3, 4))
    assert r.dtype == np.complex64
    want = np.array([[ref_dft(row) for row in m] for m in x])  # last axis
    want = np.swapaxes(
        np.array([[ref_dft(col) for col in np.swapaxes(m, 0, 1)] for m in want]), 1, 2
    )
    np.testing.assert_allclose(r, want, rtol=1e-5, atol=1e-5)


# --------------------------------------------------------------------------------------
# triangular_solve / cholesky
# --------------------------------------------------------------------------------------


def ts(a, b, left_side=True, lower=True, unit_diagonal=False, transpose_a="NO_TRANSPOSE", et=F32):
    return K("triangular_solve")(
        a,
        b,
        result_type=T(b.shape, et),
        left_side=left_side,
        lower=lower,
        unit_diagonal=unit_diagonal,
        transpose_a=transpose_a,
    )


def test_triangular_solve_spec_example():
    a = np.array([[1.0, 0, 0], [2.0, 4.0, 0], [3.0, 5.0, 6.0]], dtype=np.float32)
    b = np.array([[2.0, 0, 0], [4.0, 8.0, 0], [6.0, 10.0, 12.0]], dtype=np.float32)
    r = ts(a, b)
    assert r.dtype == np.float32
    np.testing.assert_array_equal(r, 2 * np.eye(3, dtype=np.float32))


def test_triangular_solve_ignores_other_triangle_and_unit_diagonal():
    a = np.array([[2.0, 9.0], [3.0, 4.0]])
    b = np.array([[2.0], [11.0]])
    np.testing.assert_allclose(ts(a, b, et=F64), [[1.0], [2.0]])  # upper 9.0 ignored
    np.testing.assert_allclose(ts(a, b, unit_diagonal=True, et=F64), [[2.0], [5.0]])


@pytest.mark.parametrize("left_side", [True, False])
@pytest.mark.parametrize("lower", [True, False])
@pytest.mark.parametrize("transpose_a", ["NO_TRANSPOSE", "TRANSPOSE", "ADJOINT"])
def test_triangular_solve_all_modes_complex_batched(left_side, lower, transpose_a):
    rng = np.random.default_rng(1)
    n, k = 4, 3
    a = rng.standard_normal((2, n, n)) + 1j * rng.standard_normal((2, n, n))
    a = a + 4 * np.eye(n)  # well conditioned
    b = rng.standard_normal((2, n, k) if left_side else (2, k, n)) + 0j
    x = ts(a, b, left_side, lower, False, transpose_a, et=C128)
    tri = np.tril(a) if lower else np.triu(a)
    op = {
        "NO_TRANSPOSE": tri,
        "TRANSPOSE": np.swapaxes(tri, -1, -2),
        "ADJOINT": np.swapaxes(tri, -1, -2).conj(),
    }[transpose_a]
    got = op @ x if left_side else x @ op
    np.testing.assert_allclose(got, b, atol=1e-10)


def test_cholesky_spec_example_lower_and_upper():
    a = np.array([[1.0, 2.0, 3.0], [2.0, 20.0, 26.0], [3.0, 26.0, 70.0]])
    want = np.array([[1.0, 0, 0], [2.0, 4.0, 0], [3.0, 5.0, 6.0]])
    r = K("cholesky")(a.astype(np.float32), result_type=T((3, 3), F32), lower=True)
    assert r.dtype == np.float32
    np.testing.assert_array_equal(r, want)
    # only the relevant triangle is read: garbage in the other one is ignored
    a_lower_only = np.tril(a) + np.triu(np.full((3, 3), 99.0), 1)
    np.testing.assert_array_equal(
        K("cholesky")(a_lower_only, result_type=T((3, 3), F64), lower=True), want
    )
    a_upper_only = np.triu(a) + np.tril(np.full((3, 3), -7.0), -1)
    np.testing.assert_array_equal(
        K("cholesky")(a_upper_only, result_type=T((3, 3), F64), lower=False), want.T
    )


def test_cholesky_batched_complex_hermitian():
    rng = np.random.default_rng(2)
    m = rng.standard_normal((3, 4, 4)) + 1j * rng.standard_normal((3, 4, 4))
    a = m @ np.swapaxes(m, -1, -2).conj() + 4 * np.eye(4)
    l_ = K("cholesky")(a.astype(np.complex64), result_type=T((3, 4, 4), C64), lower=True)
    assert l_.dtype == np.complex64
    np.testing.assert_allclose(l_ @ np.swapaxes(l_, -1, -2).conj(), a, rtol=1e-4, atol=1e-4)
    assert np.all(np.triu(l_, 1) == 0)


# --------------------------------------------------------------------------------------
# batch_norm_*
# --------------------------------------------------------------------------------------

BN_OPERAND = np.array([[[1.0, 2.0], [3.0, 4.0]], [[3.0, 4.0], [1.0, 2.0]]])


def test_batch_norm_inference_spec_example():
    r = K("batch_norm_inference")(
        BN_OPERAND,
        np.ones(2),
        np.ones(2),
        np.array([2.0, 3.0]),
        np.ones(2),
        result_type=T((2, 2, 2), F64),
        epsilon=0.0,
        feature_index=2,
    )
    np.testing.assert_array_equal(r, [[[0.0, 0.0], [2.0, 2.0]], [[2.0, 2.0], [0.0, 0.0]]])


def test_batch_norm_training_spec_example():
    out, mean, var = K("batch_norm_training")(
        BN_OPERAND,
        np.ones(2),
        np.ones(2),
        result_types=(T((2, 2, 2), F64), T((2,), F64), T((2,), F64)),
        epsilon=0.0,
        feature_index=2,
    )
    np.testing.assert_array_equal(out, [[[0.0, 0.0], [2.0, 2.0]], [[2.0, 2.0], [0.0, 0.0]]])
    np.testing.assert_array_equal(mean, [2.0, 3.0])
    np.testing.assert_array_equal(var, [1.0, 1.0])


def test_batch_norm_grad_spec_example():
    go, gs, gb = K("batch_norm_grad")(
        BN_OPERAND,
        np.ones(2),
        np.array([2.0, 3.0]),
        np.ones(2),
        np.full((2, 2, 2), 0.1),
        result_types=(T((2, 2, 2), F64), T((2,), F64), T((2,), F64)),
        epsilon=0.0,
        feature_index=2,
    )
    np.testing.assert_allclose(go, np.zeros((2, 2, 2)), atol=1e-15)
    np.testing.assert_allclose(gs, [0.0, 0.0], atol=1e-15)
    np.testing.assert_allclose(gb, [0.4, 0.4])


def test_batch_norm_training_feature_index_0_f32():
    x = np.array([[1.0, 3.0], [10.0, 30.0]], dtype=np.float32)
    out, mean, var = K("batch_norm_training")(
        x,
        np.array([2.0, 1.0], np.float32),
        np.array([0.0, 5.0], np.float32),
        result_types=(T((2, 2), F32), T((2,), F32), T((2,), F32)),
        epsilon=0.0,
        feature_index=0,
    )
    assert out.dtype == np.float32
    np.testing.assert_allclose(mean, [2.0, 20.0])
    np.testing.assert_allclose(var, [1.0, 100.0])
    np.testing.assert_allclose(out, [[-2.0, 2.0], [4.0, 6.0]])
