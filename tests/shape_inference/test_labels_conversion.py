"""One program per input / output type label of the conversion family (spec "convert",
"bitcast_convert", "reduce_precision"), each violating exactly that constraint; and
valid programs that must verify cleanly."""

from __future__ import annotations

import pytest

from tests.shape_inference.labelcheck import assert_label, assert_verifies, func

F = "tensor<2xf32>"
TOKEN = "!stablehlo.token"
Q = "tensor<2x!quant.uniform<i8:f32, 1.0:0>>"
RP = "exponent_bits = 5 : i32, mantissa_bits = 10 : i32"


def op(name: str, operand: str, result: str, attrs: str = "") -> str:
    attrs = f" {{{attrs}}}" if attrs else ""
    return func(f"%a: {operand}", f'%r = "stablehlo.{name}"(%a){attrs} : ({operand}) -> {result}')


VALID = {
    "convert": op("convert", F, "tensor<2xi32>"),
    "bitcast_convert": op("bitcast_convert", F, "tensor<2xi32>"),
    "bitcast_convert_narrower": op("bitcast_convert", F, "tensor<2x2xf16>"),
    "reduce_precision": op("reduce_precision", F, F, RP),
    "reduce_precision_quantized": op("reduce_precision", Q, Q, RP),
}

NEGATIVE = [
    # convert (I1) operand: tensor (not quantized); result: tensor (not quantized)
    ("convert_i1", op("convert", TOKEN, F)),
    ("convert_i1", op("convert", Q, F)),
    ("convert_o1", op("convert", F, TOKEN)),
    ("convert_o1", op("convert", F, Q)),
    # bitcast_convert (I1) operand: tensor; result: tensor
    ("bitcast_convert_i1", op("bitcast_convert", TOKEN, F)),
    ("bitcast_convert_o1", op("bitcast_convert", F, TOKEN)),
    # reduce_precision (I1) operand: tensor of floating-point type
    ("reduce_precision_i1", op("reduce_precision", TOKEN, F, RP)),
    ("reduce_precision_i1", op("reduce_precision", "tensor<2xi32>", "tensor<2xi32>", RP)),
    # a quantized operand: the result is a tensor of the same baseline type
    ("reduce_precision_o1", op("reduce_precision", Q, TOKEN, RP)),
]


@pytest.mark.parametrize("name", sorted(VALID))
def test_valid_program_verifies(name):
    assert_verifies(VALID[name])


@pytest.mark.parametrize(
    ("label", "text"), NEGATIVE, ids=[f"{label}-{i}" for i, (label, _) in enumerate(NEGATIVE)]
)
def test_violation_carries_its_label(label, text):
    assert_label(text, label)
