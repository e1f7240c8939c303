"""convolution / dynamic_conv kernels against the spec's examples and a slow loop
reference written from the spec's formulas (padding incl. negative, dilations, window
reversal, feature and batch groups, every dimension layout)."""

from __future__ import annotations

import itertools
from unittest import mock

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import hlorun.engine.kernels  # noqa: F401
from hlorun import shape_inference  # noqa: F401
from hlorun.engine.kernels import blas_threads
from hlorun.parser.errors import InterpreterError
from hlorun.parser.ir import FloatType, IntegerType, TensorType
from hlorun.shape_inference.optable import OP_TABLE

I8 = IntegerType(8)
I32 = IntegerType(32)
I64 = IntegerType(64)
F64 = FloatType("f64")

NHWC = dict(
    input_batch_dimension=0,
    input_feature_dimension=3,
    input_spatial_dimensions=(1, 2),
    kernel_input_feature_dimension=2,
    kernel_output_feature_dimension=3,
    kernel_spatial_dimensions=(0, 1),
    output_batch_dimension=0,
    output_feature_dimension=3,
    output_spatial_dimensions=(1, 2),
)

NCHW = dict(
    input_batch_dimension=0,
    input_feature_dimension=1,
    input_spatial_dimensions=(2, 3),
    kernel_input_feature_dimension=1,
    kernel_output_feature_dimension=0,
    kernel_spatial_dimensions=(2, 3),
    output_batch_dimension=0,
    output_feature_dimension=1,
    output_spatial_dimensions=(2, 3),
)

SPEC_LHS = np.array(
    [
        [
            [[1], [2], [5], [6]],
            [[3], [4], [7], [8]],
            [[10], [11], [14], [15]],
            [[12], [13], [16], [17]],
        ]
    ],
    dtype=np.int64,
)


def conv(lhs, rhs, result_type, **kw):
    return OP_TABLE["stablehlo.convolution"].kernel(lhs, rhs, result_type=result_type, **kw)


def test_convolution_spec_example_si64():
    r = conv(
        SPEC_LHS,
        np.ones((3, 3, 1, 1), np.int64),
        TensorType((1, 2, 2, 1), I64),
        window_strides=(4, 4),
        padding=np.zeros((2, 2), np.int64),
        lhs_dilation=(2, 2),
        rhs_dilation=(1, 1),
        window_reversal=(False, False),
        feature_group_count=1,
        batch_group_count=1,
        precision_config=("DEFAULT", "DEFAULT"),
        **NHWC,
    )
    np.testing.assert_array_equal(r.reshape(2, 2), [[10, 26], [46, 62]])


def test_convolution_i8_to_i32_result():
    r = conv(
        SPEC_LHS.astype(np.int8),
        np.full((3, 3, 1, 1), 10, np.int8),
        TensorType((1, 2, 2, 1), I32),
        window_strides=(4, 4),
        lhs_dilation=(2, 2),
        **NHWC,
    )
    assert r.dtype == np.int32
    np.testing.assert_array_equal(r.reshape(2, 2), [[100, 260], [460, 620]])


def test_dynamic_conv_conformance_example():
    r = OP_TABLE["stablehlo.dynamic_conv"].kernel(
        SPEC_LHS,
        np.ones((3, 3, 1, 1), np.int64),
        np.ones((2, 2), np.int64),
        result_type=TensorType((1, 2, 2, 1), I64),
        window_strides=(4, 4),
        lhs_dilation=(2, 2),
        rhs_dilation=(1, 1),
        window_reversal=(False, False),
        feature_group_count=1,
        batch_group_count=1,
        **NHWC,
    )
    np.testing.assert_array_equal(r.reshape(2, 2), [[1, 5], [10, 14]])


def test_dynamic_conv_bad_padding_shape():
    with pytest.raises(InterpreterError):
        OP_TABLE["stablehlo.dynamic_conv"].kernel(
            SPEC_LHS,
            np.ones((3, 3, 1, 1), np.int64),
            np.ones((3, 2), np.int64),
            result_type=TensorType((1, 2, 2, 1), I64),
            **NHWC,
        )


# --------------------------------------------------------------------------------------
# slow reference from the spec
# --------------------------------------------------------------------------------------


def ref_conv(lhs, rhs, strides, padding, lhs_dil, rhs_dil, reversal, dn, fgc, bgc, wrap_bits=None):
    ib, if_, isp = (
        dn["input_batch_dimension"],
        dn["input_feature_dimension"],
        dn["input_spatial_dimensions"],
    )
    ki, ko, ksp = (
        dn["kernel_input_feature_dimension"],
        dn["kernel_output_feature_dimension"],
        dn["kernel_spatial_dimensions"],
    )
    ob, of, osp = (
        dn["output_batch_dimension"],
        dn["output_feature_dimension"],
        dn["output_spatial_dimensions"],
    )
    n = lhs.ndim
    s = n - 2
    out_sp = []
    for d in range(s):
        size = lhs.shape[isp[d]]
        dil = 0 if size == 0 else (size - 1) * lhs_dil[d] + 1
        padded = padding[d][0] + dil + padding[d][1]
        ksize = rhs.shape[ksp[d]]
        win = 0 if ksize == 0 else (ksize - 1) * rhs_dil[d] + 1
        out_sp.append(0 if padded <= 0 or win > padded else (padded - win) // strides[d] + 1)
    nb = lhs.shape[ib] // bgc
    o = rhs.shape[ko]
    shape = [0] * n
    shape[ob], shape[of] = nb, o
    for d in range(s):
        shape[osp[d]] = out_sp[d]
    out = np.zeros(shape, dtype=object)
    groups = max(fgc, bgc)
    og = o // groups
    cin = rhs.shape[ki]

    def lhs_at(b, c, pos):
        idx = [0] * n
        idx[ib], idx[if_] = b, c
        for d in range(s):
            q = pos[d] - padding[d][0]
            if q < 0 or q % lhs_dil[d]:
                return 0
            j = q // lhs_dil[d]
            if j >= lhs.shape[isp[d]]:
                return 0
            idx[isp[d]] = j
        return lhs[tuple(idx)].item()

    for bo, fo, *sp in itertools.product(range(nb), range(o), *[range(v) for v in out_sp]):
        g = fo // og
        b = g * nb + bo if bgc > 1 else bo
        acc = 0
        for ci in range(cin):
            c = g * cin + ci if fgc > 1 else ci
            for k in itertools.product(*[range(rhs.shape[ksp[d]]) for d in range(s)]):
                kw = [rhs.shape[ksp[d]] - 1 - k[d] if reversal[d] else k[d] for d in range(s)]
                pos = [sp[d] * strides[d] + kw[d] * rhs_dil[d] for d in range(s)]
                ridx = [0] * n
                ridx[ki], ridx[ko] = ci, fo
                for d in range(s):
                    ridx[ksp[d]] = k[d]
                acc += lhs_at(b, c, pos) * rhs[tuple(ridx)].item()
        if wrap_bits:
            acc = (acc + 2 ** (wrap_bits - 1)) % 2**wrap_bits - 2 ** (wrap_bits - 1)
        oidx = [0] * n
        oidx[ob], oidx[of] = bo, fo
        for d in range(s):
            oidx[osp[d]] = sp[d]
        out[tuple(oidx)] = acc
    return out


@st.composite
def conv_cases(draw):
    s = draw(st.integers(1, 2))
    n = s + 2
    fgc = draw(st.integers(1, 3))
    bgc = 1 if fgc > 1 else draw(st.integers(1, 3))
    nb = draw(st.integers(1, 2))
    batch = nb * bgc
    cin = draw(st.integers(1, 2))
    feat = cin * fgc
    o = max(fgc, bgc) * draw(st.integers(1, 2))
    in_sp = draw(st.lists(st.integers(1, 5), min_size=s, max_size=s))
    k_sp = draw(st.lists(st.integers(1, 3), min_size=s, max_size=s))
    strides = draw(st.lists(st.integers(1, 3), min_size=s, max_size=s))
    padding = draw(
        st.lists(st.tuples(st.integers(-2, 2), st.integers(-2, 2)), min_size=s, max_size=s)
    )
    lhs_dil = draw(st.lists(st.integers(1, 3), min_size=s, max_size=s))
    rhs_dil = draw(st.lists(st.integers(1, 2), min_size=s, max_size=s))
    reversal = draw(st.lists(st.booleans(), min_size=s, max_size=s))
    ip = draw(st.permutations(range(n)))
    kp = draw(st.permutations(range(n)))
    op = draw(st.permutations(range(n)))
    dn = dict(
        input_batch_dimension=ip[0],
        input_feature_dimension=ip[1],
        input_spatial_dimensions=tuple(ip[2:]),
        kernel_input_feature_dimension=kp[0],
        kernel_output_feature_dimension=kp[1],
        kernel_spatial_dimensions=tuple(kp[2:]),
        output_batch_dimension=op[0],
        output_feature_dimension=op[1],
        output_spatial_dimensions=tuple(op[2:]),
    )
    lshape = [0] * n
    lshape[ip[0]], lshape[ip[1]] = batch, feat
    for d in range(s):
        lshape[ip[2 + d]] = in_sp[d]
    rshape = [0] * n
    rshape[kp[0]], rshape[kp[1]] = cin, o
    for d in range(s):
        rshape[kp[2 + d]] = k_sp[d]
    seed = draw(st.integers(0, 2**31))
    return lshape, rshape, strides, padding, lhs_dil, rhs_dil, reversal, dn, fgc, bgc, seed


def case_attributes(case) -> dict:
    """The kernel's keyword attributes of a ``conv_cases`` case."""
    _l, _r, strides, padding, lhs_dil, rhs_dil, reversal, dn, fgc, bgc, _seed = case
    return dict(
        window_strides=tuple(strides),
        padding=np.array(padding, dtype=np.int64),
        lhs_dilation=tuple(lhs_dil),
        rhs_dilation=tuple(rhs_dil),
        window_reversal=tuple(reversal),
        feature_group_count=fgc,
        batch_group_count=bgc,
        **dn,
    )


@settings(max_examples=80, deadline=None)
@given(conv_cases())
def test_convolution_matches_loop_reference(case):
    lshape, rshape, strides, padding, lhs_dil, rhs_dil, reversal, dn, fgc, bgc, seed = case
    rng = np.random.default_rng(seed)
    lhs = rng.integers(-128, 128, size=lshape).astype(np.int8)
    rhs = rng.integers(-128, 128, size=rshape).astype(np.int8)
    want = ref_conv(
        lhs, rhs, strides, padding, lhs_dil, rhs_dil, reversal, dn, fgc, bgc, wrap_bits=8
    )
    kw = case_attributes(case)
    got = conv(lhs, rhs, TensorType(want.shape, I8), **kw)
    assert got.dtype == np.int8 and got.shape == want.shape
    np.testing.assert_array_equal(got.astype(np.int64), want.astype(np.int64))
    got_f = conv(lhs.astype(np.float64), rhs.astype(np.float64), TensorType(want.shape, F64), **kw)
    want_f = ref_conv(lhs, rhs, strides, padding, lhs_dil, rhs_dil, reversal, dn, fgc, bgc)
    np.testing.assert_array_equal(got_f, want_f.astype(np.float64))
    # large int64 values: the int64 (not float64) path, wrapping modulo 2**64
    big_l = rng.integers(-(2**40), 2**40, size=lshape, dtype=np.int64)
    big_r = rng.integers(-(2**40), 2**40, size=rshape, dtype=np.int64)
    want_b = ref_conv(
        big_l, big_r, strides, padding, lhs_dil, rhs_dil, reversal, dn, fgc, bgc, wrap_bits=64
    )
    got_b = conv(big_l, big_r, TensorType(want.shape, I64), **kw)
    assert [int(v) for v in got_b.reshape(-1)] == [int(v) for v in want_b.reshape(-1)]


def test_convolution_empty_windows_give_empty_result():
    lhs = np.ones((1, 1, 2), np.int64)
    rhs = np.ones((1, 1, 3), np.int64)
    dn = dict(
        input_batch_dimension=0,
        input_feature_dimension=1,
        input_spatial_dimensions=(2,),
        kernel_input_feature_dimension=1,
        kernel_output_feature_dimension=0,
        kernel_spatial_dimensions=(2,),
        output_batch_dimension=0,
        output_feature_dimension=1,
        output_spatial_dimensions=(2,),
    )
    r = conv(lhs, rhs, TensorType((1, 1, 0), I64), **dn)
    assert r.shape == (1, 1, 0)
    # negative padding cropping everything
    r = conv(
        lhs,
        np.ones((1, 1, 1), np.int64),
        TensorType((1, 1, 0), I64),
        padding=np.array([[-1, -1]]),
        **dn,
    )
    assert r.shape == (1, 1, 0)


# --------------------------------------------------------------------------------------
# the shifted-gemm ("direct") algorithm: wide inputs, against the spec's formula
# --------------------------------------------------------------------------------------


def window_reference(x, w, strides, padding, rhs_dil, reversal):
    """x (N, C, sp...), w (O, C, k...) -> (N, O, out...) in float64 from the spec's
    formula: out[n, o, p] = sum over c, k of lhs_padded[n, c, p * s + k * r] * w[o, c,
    k'] (k' the reversed index where reversal), vectorized over n, c, o only."""
    nsp = x.ndim - 2
    ksp = w.shape[2:]
    out_sp = []
    for d in range(nsp):
        padded = padding[d][0] + x.shape[2 + d] + padding[d][1]
        win = (ksp[d] - 1) * rhs_dil[d] + 1
        out_sp.append(max(0, (padded - win) // strides[d] + 1) if padded >= win else 0)
    out = np.zeros((x.shape[0], w.shape[0], *out_sp))
    xd, wd = x.astype(np.float64), w.astype(np.float64)
    for p in itertools.product(*(range(v) for v in out_sp)):
        for k in itertools.product(*(range(v) for v in ksp)):
            src = [p[d] * strides[d] + k[d] * rhs_dil[d] - padding[d][0] for d in range(nsp)]
            if not all(0 <= src[d] < x.shape[2 + d] for d in range(nsp)):
                continue  # a padding zero
            kk = tuple(ksp[d] - 1 - k[d] if reversal[d] else k[d] for d in range(nsp))
            out[(slice(None), slice(None), *p)] += (
                xd[(slice(None), slice(None), *src)] @ wd[(slice(None), slice(None), *kk)].T
            )
    return out


DIRECT_CASES = [
    # spatial, kernel, strides, padding, rhs_dilation, reversal (each computes at most
    # DIRECT_MAX_WASTE rows per output position: the kernel runs the unit-stride ones
    # with the shifted gemms; the strided ones test conv_direct itself)
    ((24, 24), (3, 3), (1, 1), ((1, 1), (1, 1)), (1, 1), (False, False)),
    ((24, 23), (3, 3), (2, 2), ((0, 1), (1, 1)), (1, 1), (False, False)),
    ((33, 24), (3, 2), (2, 1), ((2, -1), (0, 1)), (2, 1), (True, False)),
    ((20, 26), (2, 3), (1, 3), ((-1, 2), (2, 2)), (1, 2), (False, True)),
    ((40,), (5,), (1,), ((2, 2),), (1,), (False,)),
    ((40,), (3,), (3,), ((4, 0),), (2,), (True,)),
    ((12, 24, 12), (2, 1, 2), (1, 1, 1), ((0, 0), (0, 0), (0, 0)), (1, 1, 1), (False, True, True)),
]


@pytest.mark.parametrize("case", DIRECT_CASES)
@pytest.mark.parametrize("layout", ["channels_first", "channels_last"])
def test_direct_convolution_matches_spec_formula(case, layout):
    """The shifted gemms (conv_shifted.conv_direct), on small integer values in float64
    (i32 operands: the kernel's exact integer path): every product and partial sum is
    exact, so the shifted gemms' result equals the formula's exactly whatever the
    order; float32: within the f32 rounding of a 32 * taps-term sum."""
    from hlorun.engine.kernels.conv_shifted import DIRECT_MIN_FEATURES, conv_direct, direct_applies

    spatial, ksp, strides, padding, rhs_dil, reversal = case
    nsp = len(spatial)
    rng = np.random.default_rng(len(spatial) * 100 + sum(spatial))
    n, c, o = 2, DIRECT_MIN_FEATURES, 5
    x = rng.integers(-4, 5, size=(n, c, *spatial)).astype(np.float64)
    w = rng.integers(-4, 5, size=(o, c, *ksp)).astype(np.float64)
    want = window_reference(x, w, strides, padding, rhs_dil, reversal)
    padded = [padding[d][0] + spatial[d] + padding[d][1] for d in range(nsp)]
    if any(s != 1 for s in strides):  # the kernel takes im2col: the algorithm itself
        flips = tuple(2 + d for d in range(nsp) if reversal[d])
        got = conv_direct(
            x,
            np.flip(w, flips) if flips else w,
            padding=np.array(padding),
            padded=padded,
            out_sp=want.shape[2:],
            window_strides=strides,
            rhs_dilation=rhs_dil,
        )
        np.testing.assert_array_equal(got, want)
        return
    assert direct_applies(
        x,
        w,
        padded=padded,
        out_sp=want.shape[2:],
        window_strides=strides,
        lhs_dilation=(1,) * nsp,
        groups=1,
    )
    last = layout == "channels_last"
    lhs = np.ascontiguousarray(np.moveaxis(x, 1, -1)) if last else x
    rhs = np.ascontiguousarray(np.moveaxis(w, (0, 1), (-1, -2))) if last else w
    sp_l = tuple(range(1, 1 + nsp)) if last else tuple(range(2, 2 + nsp))
    dn = dict(
        input_batch_dimension=0,
        input_feature_dimension=nsp + 1 if last else 1,
        input_spatial_dimensions=sp_l,
        kernel_input_feature_dimension=nsp if last else 1,
        kernel_output_feature_dimension=nsp + 1 if last else 0,
        kernel_spatial_dimensions=tuple(range(nsp)) if last else tuple(range(2, 2 + nsp)),
        output_batch_dimension=0,
        output_feature_dimension=nsp + 1 if last else 1,
        output_spatial_dimensions=sp_l,
    )
    want_l = np.moveaxis(want, 1, -1) if last else want
    kw = dict(
        window_strides=strides,
        padding=np.array(padding, dtype=np.int64),
        rhs_dilation=rhs_dil,
        window_reversal=reversal,
        **dn,
    )
    # i32 operands with exact float64 sums (the kernel's integer path through BLAS)
    got = conv(lhs.astype(np.int32), rhs.astype(np.int32), TensorType(want_l.shape, I32), **kw)
    assert got.dtype == np.int32
    np.testing.assert_array_equal(got, want_l)
    # f64 results keep im2col's one matmul (bit-identical to before): the same values
    got = conv(lhs, rhs, TensorType(want_l.shape, F64), **kw)
    np.testing.assert_array_equal(got, want_l)
    xf = rng.standard_normal(lhs.shape).astype(np.float32)
    wf = rng.standard_normal(rhs.shape).astype(np.float32)
    xf_c = np.moveaxis(xf, -1, 1) if last else xf
    wf_c = np.moveaxis(wf, (-1, -2), (0, 1)) if last else wf
    want_f = window_reference(xf_c, wf_c, strides, padding, rhs_dil, reversal)
    want_f = np.moveaxis(want_f, 1, -1) if last else want_f
    got_f = conv(xf, wf, TensorType(want_f.shape, FloatType("f32")), **kw)
    assert got_f.dtype == np.float32 and got_f.flags.c_contiguous
    np.testing.assert_allclose(got_f, want_f, rtol=1e-5, atol=1e-5 * np.abs(want_f).max())


@pytest.mark.parametrize(
    "channels, size",
    [(32, 40), (128, 40), (256, 20)],  # im2col f32, shifted gemms f64, im2col f64
)
def test_convolution_bits_do_not_depend_on_the_blas_thread_count(monkeypatch, channels, size):
    """engine/kernels/blas_threads.py: OpenBLAS splits a gemm's rows and columns
    between threads, never its contraction, so each result element is the same sum
    on one thread as on several."""
    rng = np.random.default_rng(channels)
    x = rng.standard_normal((4, channels, size, size)).astype(np.float32)
    w = rng.standard_normal((64, channels, 3, 3)).astype(np.float32)
    rt = TensorType((4, 64, size, size), FloatType("f32"))
    kw = dict(padding=np.array([[1, 1], [1, 1]]), **NCHW)
    monkeypatch.setattr(blas_threads, "busy", lambda: True)  # one thread
    one = conv(x, w, rt, **kw)
    monkeypatch.setattr(blas_threads, "busy", lambda: False)  # BLAS's threads
    many = conv(x, w, rt, **kw)
    np.testing.assert_array_equal(one.view(np.uint32), many.view(np.uint32))


@settings(max_examples=60, deadline=None)
@given(conv_cases(), st.sampled_from([1, 64, 512]), st.booleans())
def test_convolution_in_im2col_pieces_matches_loop_reference(case, piece_bytes, wide):
    """engine/kernels/convolution.py's ``IM2COL_PIECE_BYTES``: patches copied and
    multiplied in pieces (bands of output rows of one image at 1 byte, a few images at
    512) give the spec's sums (exact: small integers in float64), and f32 results
    within f32 rounding of the one gemm's (a one-row piece is a gemv, whose rounding
    may differ); ``wide`` takes the f32 path computed in float64."""
    from hlorun.engine.kernels import convolution

    lshape, rshape, strides, padding, lhs_dil, rhs_dil, reversal, dn, fgc, bgc, seed = case
    rng = np.random.default_rng(seed)
    lhs = rng.integers(-8, 8, size=lshape)
    rhs = rng.integers(-8, 8, size=rshape)
    want = ref_conv(lhs, rhs, strides, padding, lhs_dil, rhs_dil, reversal, dn, fgc, bgc)
    kw = case_attributes(case)
    xf = rng.standard_normal(lshape).astype(np.float32)
    wf = rng.standard_normal(rshape).astype(np.float32)
    f32 = TensorType(want.shape, FloatType("f32"))
    whole = conv(xf, wf, f32, **kw)
    with mock.patch.object(convolution, "IM2COL_PIECE_BYTES", piece_bytes):
        got = conv(
            lhs.astype(np.float64), rhs.astype(np.float64), TensorType(want.shape, F64), **kw
        )
        with mock.patch.object(convolution, "CONV_F64_K", 0 if wide else 1 << 30):
            pieces = conv(xf, wf, f32, **kw)
    np.testing.assert_array_equal(got, want.astype(np.float64))
    scale = (
        np.abs(xf).max(initial=0)
        * np.abs(wf).max(initial=0)
        * (wf.size // max(1, want.shape[dn["output_feature_dimension"]]) + 1)
    )
    np.testing.assert_allclose(pieces, whole, rtol=0, atol=4e-7 * scale + 1e-30)
