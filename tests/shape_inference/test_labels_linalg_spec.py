"""Negative tests for the linalg family's remaining spec labels: dynamic_conv's C1-C34
(the constraints it shares with convolution, with ``padding`` an operand), the result
shape / rank of convolution (C25 / C26), the quantized forms of dot_general (C15-C20)
and convolution (C29-C34), the dot algorithms known to be supported (I8-I10), and the
batch_norm ops' result types."""

from __future__ import annotations

import pytest

from hlorun.parser.ir import DotAlgorithm, FloatType, IntegerType, QuantizedType
from tests.shape_inference.labelcheck import assert_label, assert_verifies, func
from tests.shape_inference.test_linalg_shapes import F32, F64, I8, NHWC, T, _nhwc, fails, infer

PAD = T((2, 2), IntegerType(64))


@pytest.mark.parametrize(
    "label,lhs,rhs,attrs",
    [
        ("dynamic_conv_c1", (1, 4, 4, 2), (3, 3, 2), {}),
        ("dynamic_conv_c2", (1, 4, 4, 2), (3, 3, 2, 1), dict(window_strides=(1,))),
        ("dynamic_conv_c3", (1, 4, 4, 2), (3, 3, 2, 1), dict(window_strides=(1, 0))),
        ("dynamic_conv_c5", (1, 4, 4, 2), (3, 3, 2, 1), dict(lhs_dilation=(1,))),
        ("dynamic_conv_c6", (1, 4, 4, 2), (3, 3, 2, 1), dict(lhs_dilation=(1, 0))),
        ("dynamic_conv_c7", (1, 4, 4, 2), (3, 3, 2, 1), dict(rhs_dilation=(1, 1, 1))),
        ("dynamic_conv_c8", (1, 4, 4, 2), (3, 3, 2, 1), dict(rhs_dilation=(-1, 1))),
        ("dynamic_conv_c9", (1, 4, 4, 2), (3, 3, 2, 1), dict(window_reversal=(True,))),
        ("dynamic_conv_c10", (3, 4, 4, 2), (3, 3, 2, 4), dict(batch_group_count=2)),
        ("dynamic_conv_c11", (1, 4, 4, 3), (3, 3, 1, 2), dict(feature_group_count=2)),
        ("dynamic_conv_c12", (1, 4, 4, 2), (3, 3, 2, 1), dict(input_spatial_dimensions=(1,))),
        ("dynamic_conv_c13", (1, 4, 4, 2), (3, 3, 2, 1), dict(input_spatial_dimensions=(1, 0))),
        ("dynamic_conv_c14", (1, 4, 4, 2), (3, 3, 3, 1), {}),
        ("dynamic_conv_c15", (2, 4, 4, 2), (3, 3, 2, 3), dict(batch_group_count=2)),
        ("dynamic_conv_c16", (1, 4, 4, 4), (3, 3, 2, 3), dict(feature_group_count=2)),
        ("dynamic_conv_c17", (1, 4, 4, 2), (3, 3, 2, 1), dict(kernel_spatial_dimensions=(0,))),
        ("dynamic_conv_c18", (1, 4, 4, 2), (3, 3, 2, 1), dict(kernel_spatial_dimensions=(0, 2))),
        ("dynamic_conv_c19", (1, 4, 4, 2), (3, 3, 2, 1), dict(output_spatial_dimensions=(1, 2, 3))),
        ("dynamic_conv_c20", (1, 4, 4, 2), (3, 3, 2, 1), dict(output_spatial_dimensions=(1, 4))),
        ("dynamic_conv_c21", (1, 4, 4, 2), (3, 3, 2, 1), dict(feature_group_count=0)),
        ("dynamic_conv_c22", (1, 4, 4, 2), (3, 3, 2, 1), dict(batch_group_count=0)),
        (
            "dynamic_conv_c23",
            (2, 4, 4, 2),
            (3, 3, 1, 2),
            dict(feature_group_count=2, batch_group_count=2),
        ),
        ("dynamic_conv_c24", (1, 4, 4, 2), (3, 3, 2, 1), dict(precision_config=("DEFAULT",) * 3)),
    ],
)
def test_dynamic_conv_constraints(label, lhs, rhs, attrs):
    """The convolution table's cases, on dynamic_conv (padding: an operand)."""
    fails(label, "dynamic_conv", T(lhs), T(rhs), PAD, **_nhwc(**attrs))


def test_dynamic_conv_c27_element_types():
    fails("dynamic_conv_c27", "dynamic_conv", T((1, 4, 4, 2)), T((3, 3, 2, 1), F64), PAD, **NHWC)


# --------------------------------------------------------------------------------------
# convolution / dynamic_conv: the result (C25, C26) and quantized operands (C28-C34)
# --------------------------------------------------------------------------------------

CONV_ATTRS = (
    "window_strides = array<i64: 1, 1>, "
    "dimension_numbers = #stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>, "
    "feature_group_count = 1 : i64, batch_group_count = 1 : i64"
)


def conv(lhs: str, rhs: str, result: str, op: str = "convolution") -> str:
    if op == "dynamic_conv":
        return func(
            f"%a: {lhs}, %b: {rhs}, %p: tensor<2x2xi64>",
            f'%r = "stablehlo.dynamic_conv"(%a, %b, %p) {{{CONV_ATTRS}}} : '
            f"({lhs}, {rhs}, tensor<2x2xi64>) -> {result}",
        )
    return func(
        f"%a: {lhs}, %b: {rhs}",
        f'%r = "stablehlo.convolution"(%a, %b) {{{CONV_ATTRS}}} : ({lhs}, {rhs}) -> {result}',
    )


Q = "!quant.uniform<i8:f32, 0.5:0>"
Q16 = "!quant.uniform<i16:f32, 0.5:0>"
QF16 = "!quant.uniform<i8:f16, 0.5:0>"
QAXIS3 = "!quant.uniform<i8:f32:3, {0.5:0, 0.25:0}>"  # per-axis on dimension 3 (2 slices)
QAXIS2 = "!quant.uniform<i8:f32:2, {0.5:0, 0.25:0}>"  # per-axis on dimension 2 (2 slices)


def t(shape: str, e: str) -> str:
    return f"tensor<{shape}x{e}>"


@pytest.mark.parametrize("op", ["convolution", "dynamic_conv"])
def test_conv_result_shape_and_rank(op):
    lhs, rhs = t("1x4x4x2", "f32"), t("3x3x2x2", "f32")
    if op == "convolution":  # padding 0: 4 - 3 + 1 = 2 windows
        assert_verifies(conv(lhs, rhs, t("1x2x2x2", "f32")))
        assert_label(conv(lhs, rhs, t("1x3x2x2", "f32")), "convolution_c25")
        assert_label(conv(lhs, rhs, t("1x2x2", "f32")), "convolution_c26")
    else:  # the padding operand: spatial sizes are dynamic, batch / feature are not
        assert_verifies(conv(lhs, rhs, t("1x2x2x2", "f32"), op))
        assert_label(conv(lhs, rhs, t("3x2x2x2", "f32"), op), "dynamic_conv_c25")
        assert_label(conv(lhs, rhs, t("1x2x2", "f32"), op), "dynamic_conv_c26")


@pytest.mark.parametrize("op", ["convolution", "dynamic_conv"])
def test_conv_quantized_valid(op):
    lhs, out = t("1x4x4x2", Q), t("1x2x2x2", Q)
    assert_verifies(conv(lhs, t("3x3x2x2", Q), out, op))
    # per-axis rhs on kernel_output_feature_dimension (3), per-axis result on 3
    assert_verifies(conv(lhs, t("3x3x2x2", QAXIS3), t("1x2x2x2", QAXIS3), op))
    # hybrid: float lhs, quantized rhs, float result
    assert_verifies(conv(t("1x4x4x2", "f32"), t("3x3x2x2", Q), t("1x2x2x2", "f32"), op))


QUANT_CONV_CASES = [
    # (C28) is_quantized(lhs) = is_quantized(result) and is_quantized(rhs)
    ("c28", t("1x4x4x2", Q), t("3x3x2x2", Q), t("1x2x2x2", "f32")),
    # (C29) per-axis rhs: quantization_dimension(rhs) = kernel_output_feature_dimension
    ("c29", t("1x4x4x2", Q), t("3x3x2x2", QAXIS2), t("1x2x2x2", Q)),
    # (C30) per-axis result: quantization_dimension(result) = output_feature_dimension
    ("c30", t("1x4x4x2", Q), t("3x3x2x2", Q), t("1x2x2x2", QAXIS2.replace(":2,", ":1,"))),
    # (C31) storage_type(lhs) = storage_type(rhs)
    ("c31", t("1x4x4x2", Q), t("3x3x2x2", Q16), t("1x2x2x2", Q)),
    # (C32) expressed_type(lhs) = expressed_type(rhs) = expressed_type(result)
    ("c32", t("1x4x4x2", Q), t("3x3x2x2", QF16), t("1x2x2x2", Q)),
    # (C33) per-tensor rhs -> per-tensor result
    ("c33", t("1x4x4x2", Q), t("3x3x2x2", Q), t("1x2x2x2", QAXIS3)),
    # (C34) !is_quantized(lhs): element_type(lhs) = expressed_type(rhs) = element_type(result)
    ("c34", t("1x4x4x2", "f16"), t("3x3x2x2", Q), t("1x2x2x2", "f16")),
]

QUANT_CONV_LABELS = {
    "convolution": [
        "convolution_c28",
        "convolution_c29",
        "convolution_c30",
        "convolution_c31",
        "convolution_c32",
        "convolution_c33",
        "convolution_c34",
    ],
    "dynamic_conv": [
        "dynamic_conv_c28",
        "dynamic_conv_c29",
        "dynamic_conv_c30",
        "dynamic_conv_c31",
        "dynamic_conv_c32",
        "dynamic_conv_c33",
        "dynamic_conv_c34",
    ],
}


@pytest.mark.parametrize("op", ["convolution", "dynamic_conv"])
@pytest.mark.parametrize("case", QUANT_CONV_CASES, ids=[c[0] for c in QUANT_CONV_CASES])
def test_conv_quantized_constraints(op, case):
    suffix, lhs, rhs, result = case
    (label,) = [x for x in QUANT_CONV_LABELS[op] if x.endswith("_" + suffix)]
    assert_label(conv(lhs, rhs, result, op), label)


# --------------------------------------------------------------------------------------
# dot_general: quantized operands (C15-C20) and the algorithm (I8-I10)
# --------------------------------------------------------------------------------------

DOT = (
    "dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [1], "
    "rhs_contracting_dimensions = [0]>"
)


def dot(lhs: str, rhs: str, result: str, extra: str = "") -> str:
    return func(
        f"%a: {lhs}, %b: {rhs}",
        f'%r = "stablehlo.dot_general"(%a, %b) {{{DOT}{extra}}} : ({lhs}, {rhs}) -> {result}',
    )


QAXIS1 = "!quant.uniform<i8:f32:1, {0.5:0, 0.25:0}>"  # per-axis on dimension 1 (2 slices)
QAXIS0 = "!quant.uniform<i8:f32:0, {0.5:0, 0.25:0, 0.5:0}>"  # dimension 0 (3 slices)


def test_dot_general_quantized_valid():
    assert_verifies(dot(t("2x3", Q), t("3x2", Q), t("2x2", Q)))
    assert_verifies(dot(t("2x3", Q), t("3x2", QAXIS1), t("2x2", QAXIS1)))
    assert_verifies(dot(t("2x3", "f32"), t("3x2", Q), t("2x2", "f32")))


@pytest.mark.parametrize(
    "label,lhs,rhs,result",
    [
        # (C15) zero_points(rhs) = 0
        ("dot_general_c15", t("2x3", Q), t("3x2", "!quant.uniform<i8:f32, 0.5:3>"), t("2x2", Q)),
        # (C16) per-axis rhs: quantization_dimension(rhs) not in rhs_contracting_dimensions
        ("dot_general_c16", t("2x3", Q), t("3x2", QAXIS0), t("2x2", Q)),
        # (C17) storage_type(lhs) = storage_type(rhs)
        ("dot_general_c17", t("2x3", Q), t("3x2", Q16), t("2x2", Q)),
        # (C18) expressed_type(lhs) = expressed_type(rhs) = expressed_type(result)
        ("dot_general_c18", t("2x3", Q), t("3x2", QF16), t("2x2", Q)),
        ("dot_general_c18", t("2x3", Q), t("3x2", Q), t("2x2", QF16)),
        # (C19) per-tensor rhs -> per-tensor result
        ("dot_general_c19", t("2x3", Q), t("3x2", Q), t("2x2", QAXIS1)),
        # (C20) !is_quantized(lhs): element_type(lhs) = expressed_type(rhs) = element_type(result)
        ("dot_general_c20", t("2x3", "f16"), t("3x2", Q), t("2x2", "f16")),
        ("dot_general_c20", t("2x3", "f32"), t("3x2", Q), t("2x2", "f16")),
    ],
)
def test_dot_general_quantized_constraints(label, lhs, rhs, result):
    assert_label(dot(lhs, rhs, result), label)


def algorithm(lhs: str, rhs: str, acc: str, ops: int = 1, imprecise: bool = False) -> str:
    return (
        f", algorithm = #stablehlo.dot_algorithm<lhs_precision_type = {lhs}, "
        f"rhs_precision_type = {rhs}, accumulation_type = {acc}, lhs_component_count = 1, "
        f"rhs_component_count = 1, num_primitive_operations = {ops}, "
        f"allow_imprecise_accumulation = {'true' if imprecise else 'false'}>"
    )


F = t("2x3", "f32"), t("3x2", "f32"), t("2x2", "f32")


@pytest.mark.parametrize(
    "alg",
    [
        algorithm("f32", "f32", "f32"),
        algorithm("tf32", "tf32", "f32", 3),
        algorithm("bf16", "bf16", "f32", 9),
        algorithm("f16", "f16", "f16"),
        algorithm("f64", "f64", "f64"),
        algorithm("f8E4M3FN", "f8E5M2", "f32", 1, imprecise=True),
    ],
)
def test_dot_general_known_algorithms(alg):
    assert_verifies(dot(*F, alg))


@pytest.mark.parametrize(
    "alg",
    [
        algorithm("f32", "f32", "f32", 3),  # no f32 x3
        algorithm("bf16", "bf16", "f32", 4),
        algorithm("f16", "f16", "f64"),
        algorithm("f32", "f32", "f32", 1, imprecise=True),  # imprecise: f8 only
        algorithm("f8E4M3FN", "f8E5M2", "f16"),
    ],
)
def test_dot_general_unknown_algorithms(alg):
    assert_label(dot(*F, alg), "dot_general_i8")


def test_dot_general_algorithm_component_counts():
    alg = DotAlgorithm(FloatType("f32"), F32, F32, 2, 1, 1, False)
    fails(
        "dot_general_i8",
        "dot_general",
        T((2, 3)),
        T((3, 2)),
        algorithm=alg,
        lhs_contracting_dimensions=(1,),
        rhs_contracting_dimensions=(0,),
    )


def test_quantized_ir_level():
    """The same checks on IR built by hand (no declared result)."""
    q = QuantizedType(I8, F32, (0.5,), (1,))
    fails(
        "dot_general_c15",
        "dot_general",
        T((2, 3), q),
        T((3, 2), q),
        lhs_contracting_dimensions=(1,),
        rhs_contracting_dimensions=(0,),
    )
    ok = QuantizedType(I8, F32, (0.5,), (0,))
    got = infer(
        "dot_general",
        T((2, 3), ok),
        T((3, 2), ok),
        result_types=(T((2, 2), ok),),
        lhs_contracting_dimensions=(1,),
        rhs_contracting_dimensions=(0,),
    )
    assert got == T((2, 2), ok)


# --------------------------------------------------------------------------------------
# batch_norm_*: feature_index and the result types
# --------------------------------------------------------------------------------------

X, V = "tensor<2x3xf32>", "tensor<3xf32>"
BN = "epsilon = 1.0e-3 : f32, feature_index = 1 : i64"


def bn(name: str, operands: list[str], results: list[str], attrs: str = BN) -> str:
    names = [f"%a{i}" for i in range(len(operands))]
    args = ", ".join(f"{n}: {ty}" for n, ty in zip(names, operands))
    return func(
        args,
        f'%r:{len(results)} = "stablehlo.{name}"({", ".join(names)}) {{{attrs}}} : '
        f"({', '.join(operands)}) -> ({', '.join(results)})",
    )


TRAINING = [X, V, V]
GRAD = [X, V, V, V, X]


def test_batch_norm_valid():
    assert_verifies(bn("batch_norm_training", TRAINING, [X, V, V]))
    assert_verifies(bn("batch_norm_grad", GRAD, [X, V, V]))


@pytest.mark.parametrize(
    "label,name,operands,results,attrs",
    [
        # (C1) 0 <= feature_index < rank(operand)
        (
            "batch_norm_grad_c1",
            "batch_norm_grad",
            GRAD,
            [X, V, V],
            BN.replace("1 : i64", "2 : i64"),
        ),
        # batch_norm_training (C2) same baseline element type, results included
        ("batch_norm_training_c2", "batch_norm_training", TRAINING, [X, "tensor<3xf64>", V], BN),
        # (C5) size(batch_mean), (C6) size(batch_var) = dim(operand, feature_index)
        ("batch_norm_training_c5", "batch_norm_training", TRAINING, [X, "tensor<2xf32>", V], BN),
        ("batch_norm_training_c6", "batch_norm_training", TRAINING, [X, V, "tensor<2xf32>"], BN),
        # (C7) baseline_type(output) = baseline_type(operand)
        ("batch_norm_training_c7", "batch_norm_training", TRAINING, ["tensor<3x2xf32>", V, V], BN),
        # batch_norm_grad (C2) element types, (C3) grad_operand's shape, (C4) grad_scale's
        ("batch_norm_grad_c2", "batch_norm_grad", GRAD, [X, V, "tensor<3xf64>"], BN),
        ("batch_norm_grad_c3", "batch_norm_grad", GRAD, ["tensor<3x2xf32>", V, V], BN),
        ("batch_norm_grad_c4", "batch_norm_grad", GRAD, [X, "tensor<2xf32>", V], BN),
    ],
)
def test_batch_norm_labels(label, name, operands, results, attrs):
    assert_label(bn(name, operands, results, attrs), label)
