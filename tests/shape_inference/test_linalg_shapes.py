"""Shape functions of the linalg and random families: inferred types and one negative
test per constraint label enforced."""

from __future__ import annotations

import numpy as np
import pytest

from hlorun import shape_inference  # noqa: F401
from hlorun.parser.errors import VerificationError
from hlorun.parser.ir import (
    ComplexType,
    DotAlgorithm,
    FloatType,
    IntegerType,
    QuantizedType,
    TensorType,
    TypeExtensions,
)
from hlorun.shape_inference.optable import OP_TABLE, REQUIRED, ShapeContext

F32 = FloatType("f32")
F64 = FloatType("f64")
I8 = IntegerType(8)
I32 = IntegerType(32)
I64 = IntegerType(64)
UI64 = IntegerType(64, "unsigned")
C64 = ComplexType(F32)


def T(shape, et=F32):
    return TensorType(tuple(shape), et)


def TB(shape, bounds, et=F32):
    """A tensor type with ``#stablehlo.bounds<...>`` on its dynamic dimensions."""
    return TensorType(tuple(shape), et, TypeExtensions(tuple(bounds)))


def infer(op, *operands, result_types=(), **attrs):
    row = OP_TABLE[f"stablehlo.{op}"]
    kw = {k: v for k, v in row.attrs.items() if v is not REQUIRED}
    kw.update(attrs)
    return row.shape(ShapeContext(f"stablehlo.{op}", None, tuple(result_types)), *operands, **kw)


def fails(label, op, *operands, **kw):
    with pytest.raises(VerificationError) as e:
        infer(op, *operands, **kw)
    assert e.value.label == label, e.value


# --------------------------------------------------------------------------------------
# dot_general / dot
# --------------------------------------------------------------------------------------

DG = dict(
    lhs_batching_dimensions=(0,),
    rhs_batching_dimensions=(0,),
    lhs_contracting_dimensions=(2,),
    rhs_contracting_dimensions=(1,),
)


def test_dot_general_infers_batch_lhs_free_rhs_free():
    assert infer("dot_general", T((2, 3, 4)), T((2, 4, 5)), **DG) == T((2, 3, 5))
    # contracting dims in any order; dynamic sizes propagate
    r = infer(
        "dot_general",
        T((4, None, 2)),
        T((5, 2, 4)),
        lhs_batching_dimensions=(),
        rhs_batching_dimensions=(),
        lhs_contracting_dimensions=(0, 2),
        rhs_contracting_dimensions=(2, 1),
    )
    assert r == T((None, 5))


def test_dot_general_result_element_type_from_declared():
    r = infer(
        "dot_general",
        T((2, 3), I8),
        T((3, 4), I8),
        result_types=(T((2, 4), I32),),
        lhs_contracting_dimensions=(1,),
        rhs_contracting_dimensions=(0,),
    )
    assert r == T((2, 4), I32)


@pytest.mark.parametrize(
    "label,attrs",
    [
        ("dot_general_c1", dict(lhs_batching_dimensions=(0,), rhs_batching_dimensions=())),
        ("dot_general_c2", dict(lhs_contracting_dimensions=(2,), rhs_contracting_dimensions=())),
        (
            "dot_general_c3",
            dict(
                lhs_batching_dimensions=(0,),
                rhs_batching_dimensions=(0,),
                lhs_contracting_dimensions=(0,),
                rhs_contracting_dimensions=(1,),
            ),
        ),
        (
            "dot_general_c4",
            dict(
                lhs_batching_dimensions=(0,),
                rhs_batching_dimensions=(0,),
                lhs_contracting_dimensions=(2,),
                rhs_contracting_dimensions=(0,),
            ),
        ),
        ("dot_general_c5", dict(lhs_batching_dimensions=(3,), rhs_batching_dimensions=(0,))),
        ("dot_general_c6", dict(lhs_contracting_dimensions=(-1,), rhs_contracting_dimensions=(1,))),
        ("dot_general_c7", dict(lhs_batching_dimensions=(0,), rhs_batching_dimensions=(5,))),
        ("dot_general_c8", dict(lhs_contracting_dimensions=(2,), rhs_contracting_dimensions=(3,))),
        ("dot_general_c9", dict(lhs_batching_dimensions=(1,), rhs_batching_dimensions=(0,))),
        ("dot_general_c10", dict(lhs_contracting_dimensions=(1,), rhs_contracting_dimensions=(1,))),
        ("dot_general_c11", dict(precision_config=("DEFAULT",) * 3)),
    ],
)
def test_dot_general_constraints(label, attrs):
    fails(label, "dot_general", T((2, 3, 4)), T((2, 4, 5)), **attrs)


def test_dot_general_c13_and_algorithm_constraints():
    # C13 is not enforced, as upstream's verifier (verifyDotGeneralOp) does not: JAX's
    # TPU svd has an f32 x i32 dot_general; the result type is declared.
    assert infer(
        "dot_general",
        T((2,), F32),
        T((2,), F64),
        lhs_contracting_dimensions=(0,),
        rhs_contracting_dimensions=(0,),
    ) == T((), F32)
    alg = DotAlgorithm(FloatType("tf32"), FloatType("tf32"), F32, 1, 1, 1, False)
    fails(
        "dot_general_c21",
        "dot_general",
        T((2, 3, 4)),
        T((2, 4, 5)),
        precision_config=("HIGH", "DEFAULT"),
        algorithm=alg,
        **DG,
    )
    bad = DotAlgorithm(FloatType("tf32"), FloatType("tf32"), F32, 0, 1, 1, False)
    fails("dot_general_c22", "dot_general", T((2, 3, 4)), T((2, 4, 5)), algorithm=bad, **DG)
    assert infer("dot_general", T((2, 3, 4)), T((2, 4, 5)), algorithm=alg, **DG) == T((2, 3, 5))
    int_alg = DotAlgorithm(I8, F32, F32, 1, 1, 1, False)  # I8: a floating-point type
    fails("dot_general_i8", "dot_general", T((2, 3, 4)), T((2, 4, 5)), algorithm=int_alg, **DG)


def test_dot_general_c14_quantized_combination():
    q = QuantizedType(I8, F32, (0.5,), (0,))
    fails(
        "dot_general_c14",
        "dot_general",
        T((2, 3), q),
        T((3, 4), I8),
        result_types=(T((2, 4), q),),
        lhs_contracting_dimensions=(1,),
        rhs_contracting_dimensions=(0,),
    )
    fails(
        "dot_general_c14",
        "dot_general",
        T((2, 3), q),
        T((3, 4), q),
        result_types=(T((2, 4), F32),),
        lhs_contracting_dimensions=(1,),
        rhs_contracting_dimensions=(0,),
    )
    r = infer(
        "dot_general",
        T((2, 3), q),
        T((3, 4), q),
        result_types=(T((2, 4), q),),
        lhs_contracting_dimensions=(1,),
        rhs_contracting_dimensions=(0,),
    )
    assert r == T((2, 4), q)


def test_dot_general_precision_config_values():
    fails(
        "dot_general_c11",
        "dot_general",
        T((2, 3, 4)),
        T((2, 4, 5)),
        precision_config=("FOO", "HIGHEST"),
        **DG,
    )
    # MLIR (and the verifier suite) accept 0, 1 or 2 entries
    assert infer("dot_general", T((2, 3, 4)), T((2, 4, 5)), precision_config=("HIGH",), **DG) == T(
        (2, 3, 5)
    )


def test_dot_legacy():
    assert infer("dot", T((2, 3)), T((3,))) == T((2,))
    assert infer("dot", T((3,)), T((3,))) == T(())
    assert infer("dot", T((3,)), T((3,), F64)) == T(())  # no C13 check, as upstream
    fails("dot_c2", "dot", T((2, 3)), T((4, 5)))


def test_dot_results_carry_the_operands_bounds():
    # infer_stablehlo.mlir @dot_bounds / @dot_general_bounds(_another): a dynamic result
    # dimension keeps the bound of the operand dimension it comes from
    lhs, rhs = TB((None, 12), (64, None)), TB((12, None), (None, 64))
    assert infer("dot", lhs, rhs) == TB((None, None), (64, 64))
    assert infer(
        "dot_general", lhs, rhs, lhs_contracting_dimensions=(1,), rhs_contracting_dimensions=(0,)
    ) == TB((None, None), (64, 64))
    got = infer(
        "dot_general",
        TB((10, None, 12), (None, 64, None)),
        TB((10, 12, None), (None, None, 64)),
        **DG,
    )
    assert got == TB((10, None, None), (None, 64, 64))
    # a batching dimension: static on either side wins, else the tighter bound
    got = infer(
        "dot_general", TB((None, 3, 4), (8, None, None)), TB((None, 4, 5), (6, None, None)), **DG
    )
    assert got == TB((None, 3, 5), (6, None, None))
    assert infer("dot_general", TB((None, 3, 4), (8, None, None)), T((2, 4, 5)), **DG) == T(
        (2, 3, 5)
    )


# --------------------------------------------------------------------------------------
# convolution / dynamic_conv
# --------------------------------------------------------------------------------------

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


def test_convolution_spec_example_shape():
    r = infer(
        "convolution",
        T((1, 4, 4, 1), I64),
        T((3, 3, 1, 1), I64),
        window_strides=(4, 4),
        padding=np.zeros((2, 2), np.int64),
        lhs_dilation=(2, 2),
        rhs_dilation=(1, 1),
        **NHWC,
    )
    assert r == T((1, 2, 2, 1), I64)


def test_convolution_padding_dilation_groups_shape():
    # 7 -> pad (1, -2) -> 6; window (3-1)*2+1 = 5 -> (6-5)//1+1 = 2
    r = infer(
        "convolution",
        T((4, 7, 7, 6)),
        T((3, 3, 3, 8)),
        padding=np.array([[1, -2], [0, 0]]),
        rhs_dilation=(2, 1),
        feature_group_count=2,
        **NHWC,
    )
    assert r == T((4, 2, 5, 8))
    r = infer("convolution", T((4, 5, 5, 3)), T((1, 1, 3, 8)), batch_group_count=2, **NHWC)
    assert r == T((2, 5, 5, 8))


def test_convolution_declared_wider_result_type():
    r = infer(
        "convolution",
        T((1, 4, 4, 1), I8),
        T((3, 3, 1, 1), I8),
        result_types=(T((1, 2, 2, 1), I32),),
        window_strides=(4, 4),
        lhs_dilation=(2, 2),
        **NHWC,
    )
    assert r == T((1, 2, 2, 1), I32)


def _nhwc(**over):
    d = dict(NHWC)
    d.update(over)
    return d


@pytest.mark.parametrize(
    "label,lhs,rhs,attrs",
    [
        ("convolution_c1", (1, 4, 4, 2), (3, 3, 2), {}),
        ("convolution_c2", (1, 4, 4, 2), (3, 3, 2, 1), dict(window_strides=(1,))),
        ("convolution_c3", (1, 4, 4, 2), (3, 3, 2, 1), dict(window_strides=(1, 0))),
        ("convolution_c4", (1, 4, 4, 2), (3, 3, 2, 1), dict(padding=np.zeros((3, 2), np.int64))),
        ("convolution_c5", (1, 4, 4, 2), (3, 3, 2, 1), dict(lhs_dilation=(1,))),
        ("convolution_c6", (1, 4, 4, 2), (3, 3, 2, 1), dict(lhs_dilation=(1, 0))),
        ("convolution_c7", (1, 4, 4, 2), (3, 3, 2, 1), dict(rhs_dilation=(1, 1, 1))),
        ("convolution_c8", (1, 4, 4, 2), (3, 3, 2, 1), dict(rhs_dilation=(-1, 1))),
        ("convolution_c9", (1, 4, 4, 2), (3, 3, 2, 1), dict(window_reversal=(True,))),
        ("convolution_c10", (3, 4, 4, 2), (3, 3, 2, 4), dict(batch_group_count=2)),
        ("convolution_c11", (1, 4, 4, 3), (3, 3, 1, 2), dict(feature_group_count=2)),
        ("convolution_c12", (1, 4, 4, 2), (3, 3, 2, 1), dict(input_spatial_dimensions=(1,))),
        ("convolution_c13", (1, 4, 4, 2), (3, 3, 2, 1), dict(input_spatial_dimensions=(1, 0))),
        ("convolution_c14", (1, 4, 4, 2), (3, 3, 3, 1), {}),
        ("convolution_c15", (2, 4, 4, 2), (3, 3, 2, 3), dict(batch_group_count=2)),
        ("convolution_c16", (1, 4, 4, 4), (3, 3, 2, 3), dict(feature_group_count=2)),
        ("convolution_c17", (1, 4, 4, 2), (3, 3, 2, 1), dict(kernel_spatial_dimensions=(0,))),
        ("convolution_c18", (1, 4, 4, 2), (3, 3, 2, 1), dict(kernel_spatial_dimensions=(0, 2))),
        ("convolution_c19", (1, 4, 4, 2), (3, 3, 2, 1), dict(output_spatial_dimensions=(1, 2, 3))),
        ("convolution_c20", (1, 4, 4, 2), (3, 3, 2, 1), dict(output_spatial_dimensions=(1, 4))),
        ("convolution_c21", (1, 4, 4, 2), (3, 3, 2, 1), dict(feature_group_count=0)),
        ("convolution_c22", (1, 4, 4, 2), (3, 3, 2, 1), dict(batch_group_count=0)),
        (
            "convolution_c23",
            (2, 4, 4, 2),
            (3, 3, 1, 2),
            dict(feature_group_count=2, batch_group_count=2),
        ),
        ("convolution_c24", (1, 4, 4, 2), (3, 3, 2, 1), dict(precision_config=("DEFAULT",) * 3)),
    ],
)
def test_convolution_constraints(label, lhs, rhs, attrs):
    fails(label, "convolution", T(lhs), T(rhs), **_nhwc(**attrs))


def test_convolution_c27_element_types():
    fails("convolution_c27", "convolution", T((1, 4, 4, 2), F32), T((3, 3, 2, 1), F64), **NHWC)


def test_dynamic_conv_shape_and_c4():
    r = infer(
        "dynamic_conv",
        T((1, 4, 4, 1)),
        T((3, 3, 1, 1)),
        T((2, 2), I64),
        window_strides=(4, 4),
        lhs_dilation=(2, 2),
        **NHWC,
    )
    assert r == T((1, None, None, 1))
    fails(
        "dynamic_conv_c4", "dynamic_conv", T((1, 4, 4, 1)), T((3, 3, 1, 1)), T((3, 2), I64), **NHWC
    )


# --------------------------------------------------------------------------------------
# fft
# --------------------------------------------------------------------------------------


def test_fft_shapes():
    assert infer("fft", T((3, 4), C64), fft_type="FFT", fft_length=(4,)) == T((3, 4), C64)
    assert infer("fft", T((3, 4), F32), fft_type="RFFT", fft_length=(3, 4)) == T((3, 3), C64)
    assert infer("fft", T((3, 3), C64), fft_type="IRFFT", fft_length=(3, 4)) == T((3, 4), F32)
    assert infer("fft", T((2, 3), ComplexType(F64)), fft_type="IRFFT", fft_length=(5,)) == T(
        (2, 5), F64
    )


def test_fft_results_keep_the_operands_bounds():
    # infer_stablehlo.mlir @fft_bound, @rfft_with_bound, @irfft_with_bound
    assert infer("fft", TB((None, 9), (3, None), C64), fft_type="FFT", fft_length=(9,)) == TB(
        (None, 9), (3, None), C64
    )
    # RFFT: the last dimension is fft_length[-1] / 2 + 1 = 5 (C4: the operand's is 9)
    got = infer("fft", TB((3, None, None), (None, 3, 10)), fft_type="RFFT", fft_length=(9,))
    assert got == TB((3, None, 5), (None, 3, None), C64)
    got = infer("fft", TB((3, None, None), (None, 3, 17), C64), fft_type="IRFFT", fft_length=(9,))
    assert got == TB((3, None, 9), (None, 3, None))
    # RFFT with a dynamic operand and fft_length 8: the last dimension is 8 / 2 + 1 = 5
    assert infer("fft", T((None, None)), fft_type="RFFT", fft_length=(4, 8)) == T((4, 5), C64)


def test_fft_constraints():
    fails("fft_c1", "fft", T((4,), C64), fft_type="FFT", fft_length=(4, 4))
    fails("fft_c2", "fft", T((4,), F32), fft_type="FFT", fft_length=(4,))
    fails("fft_c2", "fft", T((4,), C64), fft_type="RFFT", fft_length=(4,))
    fails("fft_c3", "fft", T((2, 2, 2, 2), C64), fft_type="FFT", fft_length=(2, 2, 2, 2))
    fails("fft_c4", "fft", T((8,), F32), fft_type="RFFT", fft_length=(4,))
    fails("fft_c5", "fft", T((4,), C64), fft_type="IRFFT", fft_length=(4,))


# --------------------------------------------------------------------------------------
# triangular_solve / cholesky / batch_norm
# --------------------------------------------------------------------------------------


def test_triangular_solve():
    kw = dict(left_side=True, lower=True, unit_diagonal=False, transpose_a="NO_TRANSPOSE")
    assert infer("triangular_solve", T((2, 3, 3)), T((2, 3, 5)), **kw) == T((2, 3, 5))
    kw_r = dict(kw, left_side=False)
    assert infer("triangular_solve", T((3, 3)), T((5, 3)), **kw_r) == T((5, 3))
    fails("triangular_solve_c1", "triangular_solve", T((3, 3)), T((3, 3), F64), **kw)
    fails("triangular_solve_i1", "triangular_solve", T((3, 3), I32), T((3, 3), I32), **kw)
    fails("triangular_solve_c2", "triangular_solve", T((3,)), T((3,)), **kw)
    fails("triangular_solve_c3", "triangular_solve", T((3, 3)), T((4, 3)), **kw)
    fails("triangular_solve_c3", "triangular_solve", T((2, 3, 3)), T((4, 3, 3)), **kw)


def test_cholesky():
    assert infer("cholesky", T((2, 3, 3)), lower=True) == T((2, 3, 3))
    fails("cholesky_i1", "cholesky", T((3, 3), I32))
    fails("cholesky_c2", "cholesky", T((3,)))
    fails("cholesky_c3", "cholesky", T((3, 4)))


def test_batch_norm():
    x, v = T((2, 2, 2)), T((2,))
    bn = dict(epsilon=0.0, feature_index=2)
    assert infer("batch_norm_inference", x, v, v, v, v, **bn) == x
    assert infer("batch_norm_training", x, v, v, **bn) == (x, v, v)
    assert infer("batch_norm_grad", x, v, v, v, x, **bn) == (x, v, v)
    fails(
        "batch_norm_inference_c1",
        "batch_norm_inference",
        x,
        v,
        v,
        v,
        v,
        epsilon=0.0,
        feature_index=3,
    )
    fails("batch_norm_inference_c2", "batch_norm_inference", x, v, T((2,), F64), v, v, **bn)
    fails("batch_norm_inference_c3", "batch_norm_inference", x, T((3,)), v, v, v, **bn)
    fails("batch_norm_inference_c6", "batch_norm_inference", x, v, v, v, T((3,)), **bn)
    fails("batch_norm_training_c1", "batch_norm_training", x, v, v, epsilon=0.0, feature_index=-1)
    fails("batch_norm_training_c4", "batch_norm_training", x, v, T((5,)), **bn)
    fails("batch_norm_grad_c3", "batch_norm_grad", x, v, v, v, T((2, 2, 3)), **bn)
    fails("batch_norm_grad_c5", "batch_norm_grad", x, T((3,)), v, v, x, **bn)
    fails("batch_norm_grad_c2", "batch_norm_grad", x, v, v, v, T((2, 2, 2), F64), **bn)


def test_batch_norm_vectors_take_the_operands_feature_dimension():
    # spec batch_norm_training C5..C7 / batch_norm_grad C4: size(mean) = dim(operand,
    # feature_index); infer_stablehlo.mlir @batch_norm_training: it is `?` when the
    # operand's is, even if scale is static, and it keeps the operand's bound
    x = T((2, None, 2, 2))
    v = T((2,))
    _, mean, var = infer("batch_norm_training", x, v, v, epsilon=0.001, feature_index=1)
    assert mean == var == T((None,))
    xb, vb = TB((2, None), (None, 64)), TB((None,), (64,))
    bn = dict(epsilon=0.001, feature_index=1)
    assert infer("batch_norm_training", xb, vb, vb, **bn) == (xb, vb, vb)
    assert infer("batch_norm_grad", xb, vb, vb, vb, xb, **bn) == (xb, vb, vb)


# --------------------------------------------------------------------------------------
# rng / rng_bit_generator
# --------------------------------------------------------------------------------------


def test_rng():
    s = T((), F32)
    assert infer("rng", s, s, T((3,), I64), rng_distribution="NORMAL") == T((None,) * 3)
    fails("rng_i1", "rng", T((1,)), s, T((3,), I64), rng_distribution="UNIFORM")
    fails("rng_c1", "rng", s, T((), F64), T((3,), I64), rng_distribution="UNIFORM")
    fails("rng_i1", "rng", T((), C64), s, T((3,), I64), rng_distribution="UNIFORM")
    fails("rng_c2", "rng", T((), I32), T((), I32), T((3,), I64), rng_distribution="NORMAL")
    fails("rng_i3", "rng", s, s, T((1, 3), I64), rng_distribution="UNIFORM")


def test_rng_bit_generator():
    st = T((2,), UI64)
    ok = (st, T((10, 12), IntegerType(32, "unsigned")))
    assert infer("rng_bit_generator", st, result_types=ok, rng_algorithm="DEFAULT") is None
    assert (
        infer(
            "rng_bit_generator",
            T((None,), UI64),
            result_types=(T((None,), UI64), ok[1]),
            rng_algorithm="DEFAULT",
        )
        is None
    )
    fails(
        "rng_bit_generator_c1",
        "rng_bit_generator",
        st,
        result_types=(T((3,), UI64), ok[1]),
        rng_algorithm="DEFAULT",
    )
    fails(
        "rng_bit_generator_c2",
        "rng_bit_generator",
        T((3,), UI64),
        result_types=(T((3,), UI64), ok[1]),
        rng_algorithm="THREE_FRY",
    )
    fails(
        "rng_bit_generator_c2",
        "rng_bit_generator",
        T((4,), UI64),
        result_types=(T((4,), UI64), ok[1]),
        rng_algorithm="PHILOX",
    )
