"""Spec "Types": the constraints of quantized element types (C3-C13) and of quantized
tensor types (C12, C13), checked wherever a type appears (function signatures, op
results, region arguments) under the label ``quantized_type_c<N>``."""

from __future__ import annotations

import pytest

from hlorun.parser.ir import FloatType, IntegerType, QuantizedType, TensorType
from hlorun.shape_inference.verifier import type_violation
from tests.shape_inference.labelcheck import assert_label, assert_verifies, errors, func

I8 = IntegerType(8)
F32 = FloatType("f32")


def signature(q: str, shape: str = "2x3") -> str:
    """A function taking (and ignoring) a tensor of quantized type ``q``."""
    return func(f"%a: tensor<{shape}x!quant.uniform<{q}>>")


VALID = [
    "i8:f32, 0.5:0",
    "i8<-100:100>:f32, 0.5:100",
    "ui8:f32, 0.5:255",
    "i4:f16, 2.0:-8",
    "i8:f32:1, {0.5:0, 0.25:1, 1.0:-1}",
    "i16:bf16:0, {0.5:0, 0.5:0}",
]


@pytest.mark.parametrize("q", VALID)
def test_valid_quantized_types(q):
    assert_verifies(signature(q))


NEGATIVE = [
    # (C3) min_value(storage_type) <= storage_min < storage_max <= max_value(storage_type)
    ("quantized_type_c3", "i8<10:5>:f32, 0.5:7"),
    ("quantized_type_c3", "i8<-129:5>:f32, 0.5:0"),
    ("quantized_type_c3", "ui8<0:256>:f32, 0.5:0"),
    # (C4) type(scales...) = expressed_type: a floating-point type
    ("quantized_type_c4", "i8:i32, 0.5:0"),
    # (C5) 0 < scales
    ("quantized_type_c5", "i8:f32, 0.0:0"),
    ("quantized_type_c5", "i8:f32, -0.5:0"),
    # (C6) is_finite(scales...) (as values of the expressed type)
    ("quantized_type_c6", "i8:f32, 1.0e39:0"),
    ("quantized_type_c6", "i8:f16, 70000.0:0"),
    # (C7) storage_min <= zero_points <= storage_max
    ("quantized_type_c7", "i8:f32, 0.5:200"),
    ("quantized_type_c7", "i8<-10:10>:f32, 0.5:11"),
    # (C11) 0 <= quantization_dimension
    ("quantized_type_c11", "i8:f32:-1, {0.5:0, 0.5:0}"),
]


@pytest.mark.parametrize("label,q", NEGATIVE)
def test_invalid_quantized_element_types(label, q):
    assert_label(signature(q), label)


def test_quantized_tensor_type_constraints():
    # (C12) quantization_dimension < rank(self)
    assert_label(signature("i8:f32:2, {0.5:0, 0.5:0}"), "quantized_type_c12")
    # (C13) dim(self, quantization_dimension) = size(scales)
    assert_label(signature("i8:f32:1, {0.5:0, 0.5:0}"), "quantized_type_c13")


def test_checked_on_op_results_and_region_arguments():
    q = "tensor<2x!quant.uniform<i8:f32, 0.5:300>>"
    bad_result = func(
        "%a: tensor<2xi8>",
        f'%r = "stablehlo.bitcast_convert"(%a) : (tensor<2xi8>) -> {q}',
    )
    assert_label(bad_result, "quantized_type_c7")
    s = "tensor<!quant.uniform<i8:f32, -1.0:0>>"
    t = "tensor<4x!quant.uniform<i8:f32, 1.0:0>>"
    bad_region = func(
        f"%a: {t}, %i: tensor<!quant.uniform<i8:f32, 1.0:0>>",
        f'%r = "stablehlo.reduce"(%a, %i) ({{\n  ^bb0(%x: {s}, %y: {s}):\n'
        f'    "stablehlo.return"(%x) : ({s}) -> ()\n  }}) '
        f"{{dimensions = array<i64: 0>}} : ({t}, tensor<!quant.uniform<i8:f32, 1.0:0>>) "
        f"-> tensor<!quant.uniform<i8:f32, 1.0:0>>",
    )
    labels = [e.label for e in errors(bad_region)]
    assert "quantized_type_c5" in labels


def test_ir_level_constraints():
    """C9 / C10 cannot be written in the syntax (scales and zero points come in pairs;
    a per-tensor type has one pair): the IR can still hold them."""

    def label(q: QuantizedType, shape=(2, 3)):
        found = type_violation(TensorType(shape, q))
        return found[0] if found else None

    # (C9) size(scales) = size(zero_points)
    assert label(QuantizedType(I8, F32, (0.5, 0.5), (0,), 1)) == "quantized_type_c9"
    # (C10) per-tensor: size(scales) = 1
    assert label(QuantizedType(I8, F32, (0.5, 0.5), (0, 0))) == "quantized_type_c10"
    assert label(QuantizedType(I8, F32, (0.5,), (0,))) is None
