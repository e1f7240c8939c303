"""One program per constraint label of the linalg family (spec "dot_general",
"convolution", "dynamic_conv", "fft", "triangular_solve", "cholesky", "batch_norm_*";
the StableHLO dialect's legacy "dot"), each violating exactly that constraint as the
spec states it; and valid programs that must verify cleanly.  More C-constraints are
covered by test_linalg_shapes.py."""

from __future__ import annotations

from dataclasses import replace

import pytest

from hlorun.parser import parse_module
from hlorun.parser.errors import ParseError, VerificationError
from hlorun.parser.ir import DotAlgorithm
from hlorun.shape_inference.verifier import verify_operation
from tests.shape_inference.labelcheck import assert_label, assert_verifies, func

TOKEN = "!stablehlo.token"


def op(name: str, operands: list[str], results: list[str], attrs: str = "") -> str:
    """``%r = "stablehlo.<name>"(%a0, ...) {attrs} : (operands) -> (results)``."""
    names = [f"%a{i}" for i in range(len(operands))]
    args = ", ".join(f"{n}: {t}" for n, t in zip(names, operands))
    attrs = f" {{{attrs}}}" if attrs else ""
    lhs = "%r = " if len(results) == 1 else f"%r:{len(results)} = "
    return func(
        args,
        f'{lhs}"stablehlo.{name}"({", ".join(names)}){attrs} : '
        f"({', '.join(operands)}) -> ({', '.join(results)})",
    )


BATCHED = (
    "dot_dimension_numbers = #stablehlo.dot<lhs_batching_dimensions = [0], "
    "rhs_batching_dimensions = [0], lhs_contracting_dimensions = [2], "
    "rhs_contracting_dimensions = [1]>"
)


def algorithm(lhs: int = 1, rhs: int = 1, ops: int = 1) -> str:
    return (
        ", algorithm = #stablehlo.dot_algorithm<lhs_precision_type = f32, "
        f"rhs_precision_type = f32, accumulation_type = f32, lhs_component_count = {lhs}, "
        f"rhs_component_count = {rhs}, num_primitive_operations = {ops}, "
        "allow_imprecise_accumulation = false>"
    )


def dot_general(
    lhs: str = "tensor<2x3x4xf32>",
    rhs: str = "tensor<2x4x5xf32>",
    attrs: str = BATCHED,
    result: str = "tensor<2x3x5xf32>",
) -> str:
    return op("dot_general", [lhs, rhs], [result], attrs)


CONV = (
    "dimension_numbers = #stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>, "
    "feature_group_count = 1 : i64, batch_group_count = 1 : i64"
)
CONV_LHS, CONV_RHS, CONV_OUT = "tensor<1x4x4x2xf32>", "tensor<3x3x2x1xf32>", "tensor<1x2x2x1xf32>"


def conv(lhs: str = CONV_LHS, rhs: str = CONV_RHS, result: str = CONV_OUT) -> str:
    return op("convolution", [lhs, rhs], [result], f"{CONV}, window_strides = array<i64: 1, 1>")


def dynamic_conv(
    lhs: str = CONV_LHS,
    rhs: str = CONV_RHS,
    padding: str = "tensor<2x2xi64>",
    result: str = "tensor<1x?x?x1xf32>",
) -> str:
    return op("dynamic_conv", [lhs, rhs, padding], [result], CONV)


FFT = "fft_type = #stablehlo<fft_type FFT>, fft_length = array<i64: 4>"
C4 = "tensor<4xcomplex<f32>>"
TRI = (
    "left_side = true, lower = true, unit_diagonal = false, "
    "transpose_a = #stablehlo<transpose NO_TRANSPOSE>"
)
M = "tensor<3x3xf32>"
BN = "epsilon = 1.0e-03 : f32, feature_index = 2 : i64"
X, V = "tensor<2x2x2xf32>", "tensor<2xf32>"


def bn_inference(*vectors: str, operand: str = X) -> str:
    scale, offset, mean, variance = vectors or (V, V, V, V)
    return op("batch_norm_inference", [operand, scale, offset, mean, variance], [operand], BN)


def bn_training(scale: str = V, offset: str = V, operand: str = X) -> str:
    return op("batch_norm_training", [operand, scale, offset], [operand, V, V], BN)


def bn_grad(
    scale: str = V, mean: str = V, variance: str = V, grad_output: str = X, operand: str = X
) -> str:
    return op("batch_norm_grad", [operand, scale, mean, variance, grad_output], [operand, V, V], BN)


VALID = {
    "dot_general": dot_general(),
    "dot_general_algorithm": dot_general(attrs=BATCHED + algorithm()),
    "dot": op("dot", ["tensor<2x3xf32>", "tensor<3x4xf32>"], ["tensor<2x4xf32>"]),
    "dot_vector": op("dot", ["tensor<3xf32>", "tensor<3xf32>"], ["tensor<f32>"]),
    "convolution": conv(),
    "dynamic_conv": dynamic_conv(),
    "fft": op("fft", [C4], [C4], FFT),
    "triangular_solve": op("triangular_solve", [M, "tensor<3x5xf32>"], ["tensor<3x5xf32>"], TRI),
    "cholesky": op("cholesky", [M], [M], "lower = true"),
    "batch_norm_inference": bn_inference(),
    "batch_norm_training": bn_training(),
    "batch_norm_grad": bn_grad(),
}

NEGATIVE = [
    # dot_general (I1) lhs, (I2) rhs: tensors
    ("dot_general_i1", dot_general(lhs=TOKEN)),
    ("dot_general_i2", dot_general(rhs=TOKEN)),
    # dot (the dialect's legacy op): tensors of rank 1 or 2
    ("dot_i1", op("dot", [TOKEN, "tensor<3xf32>"], ["tensor<f32>"])),
    ("dot_i2", op("dot", ["tensor<3xf32>", TOKEN], ["tensor<f32>"])),
    ("dot_c1", op("dot", ["tensor<2x2x3xf32>", "tensor<3xf32>"], ["tensor<2x2xf32>"])),
    # convolution (I1) lhs, (I2) rhs: tensors
    ("convolution_i1", conv(lhs=TOKEN)),
    ("convolution_i2", conv(rhs=TOKEN)),
    # dynamic_conv (I1) lhs, (I2) rhs, (I3) padding: tensors
    ("dynamic_conv_i1", dynamic_conv(lhs=TOKEN)),
    ("dynamic_conv_i2", dynamic_conv(rhs=TOKEN)),
    ("dynamic_conv_i3", dynamic_conv(padding=TOKEN)),
    # fft (I1) operand: tensor
    ("fft_i1", op("fft", [TOKEN], [C4], FFT)),
    # triangular_solve (I1) a, (I2) b: tensors of floating-point or complex type
    ("triangular_solve_i1", op("triangular_solve", [TOKEN, M], [M], TRI)),
    ("triangular_solve_i1", op("triangular_solve", ["tensor<3x3xi32>", M], [M], TRI)),
    ("triangular_solve_i2", op("triangular_solve", [M, TOKEN], [M], TRI)),
    ("triangular_solve_i2", op("triangular_solve", [M, "tensor<3x3xi32>"], [M], TRI)),
    # triangular_solve (I6) transpose_a: enum of NO_TRANSPOSE, TRANSPOSE, and ADJOINT
    (
        "triangular_solve_i6",
        op(
            "triangular_solve",
            [M, M],
            [M],
            TRI.replace("transpose NO_TRANSPOSE", "transpose CONJUGATE"),
        ),
    ),
    # ... a case of another enum: the attribute is not of its declared kind
    (
        "attribute_kind",
        op("triangular_solve", [M, M], [M], TRI.replace("transpose NO_TRANSPOSE", "fft_type FFT")),
    ),
    # cholesky (I1) a: tensor of floating-point or complex type
    ("cholesky_i1", op("cholesky", [TOKEN], [M], "lower = true")),
    ("cholesky_i1", op("cholesky", ["tensor<3x3xi32>"], ["tensor<3x3xi32>"], "lower = true")),
    # batch_norm_inference (I1)-(I5): tensors, operand of floating-point type
    ("batch_norm_inference_i1", bn_inference(operand=TOKEN)),
    (
        "batch_norm_inference_i1",
        bn_inference(
            "tensor<2xi32>",
            "tensor<2xi32>",
            "tensor<2xi32>",
            "tensor<2xi32>",
            operand="tensor<2x2x2xi32>",
        ),
    ),
    ("batch_norm_inference_i2", bn_inference(TOKEN, V, V, V)),
    ("batch_norm_inference_i3", bn_inference(V, TOKEN, V, V)),
    ("batch_norm_inference_i4", bn_inference(V, V, TOKEN, V)),
    ("batch_norm_inference_i5", bn_inference(V, V, V, TOKEN)),
    # batch_norm_inference (C4) size(offset) = dim(operand, feature_index);
    # (C5) size(mean) = dim(operand, feature_index)
    ("batch_norm_inference_c4", bn_inference(V, "tensor<3xf32>", V, V)),
    ("batch_norm_inference_c5", bn_inference(V, V, "tensor<3xf32>", V)),
    # batch_norm_training (I1)-(I3)
    ("batch_norm_training_i1", bn_training(operand=TOKEN)),
    ("batch_norm_training_i2", bn_training(scale=TOKEN)),
    ("batch_norm_training_i3", bn_training(offset=TOKEN)),
    # batch_norm_training (C3) size(scale) = dim(operand, feature_index)
    ("batch_norm_training_c3", bn_training(scale="tensor<3xf32>")),
    # batch_norm_grad (I1)-(I5)
    ("batch_norm_grad_i1", bn_grad(operand=TOKEN)),
    ("batch_norm_grad_i2", bn_grad(scale=TOKEN)),
    ("batch_norm_grad_i3", bn_grad(mean=TOKEN)),
    ("batch_norm_grad_i4", bn_grad(variance=TOKEN)),
    ("batch_norm_grad_i5", bn_grad(grad_output=TOKEN)),
    # batch_norm_grad (C4) scale, mean, variance have the same shape
    ("batch_norm_grad_c4", bn_grad(mean="tensor<3xf32>")),
    ("batch_norm_grad_c4", bn_grad(variance="tensor<2x1xf32>")),
]


@pytest.mark.parametrize("name", sorted(VALID))
def test_valid_program_verifies(name):
    assert_verifies(VALID[name])


@pytest.mark.parametrize(
    ("label", "text"), NEGATIVE, ids=[f"{label}-{i}" for i, (label, _) in enumerate(NEGATIVE)]
)
def test_violation_carries_its_label(label, text):
    assert_label(text, label)


@pytest.mark.parametrize(
    ("label", "field", "counts"),
    [
        ("dot_general_c22", "lhs_component_count", dict(lhs=0)),
        ("dot_general_c23", "rhs_component_count", dict(rhs=0)),
        ("dot_general_c24", "num_primitive_operations", dict(ops=-1)),
    ],
)
def test_dot_algorithm_counts_are_positive(label, field, counts):
    """dot_general (C22)-(C24): 0 < lhs_component_count, rhs_component_count,
    num_primitive_operations.  The parser already rejects such a
    ``#stablehlo.dot_algorithm`` (as MLIR's attribute verifier does); the shape function
    checks IR built by hand."""
    with pytest.raises(ParseError):
        parse_module(dot_general(attrs=BATCHED + algorithm(**counts)))
    module = parse_module(dot_general(attrs=BATCHED + algorithm()))
    op = module.body[0].body.blocks[0].operations[0]
    attrs = tuple(
        (k, replace(v, **{field: counts.popitem()[1]}) if isinstance(v, DotAlgorithm) else v)
        for k, v in op.attributes
    )
    with pytest.raises(VerificationError) as info:
        verify_operation(replace(op, attributes=attrs))
    assert info.value.label == label, str(info.value)
