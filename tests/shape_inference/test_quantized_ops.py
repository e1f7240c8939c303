"""Quantized element types through the ops that accept them (spec: each op's Inputs
table, "per-tensor quantized tensor"): every generic elementwise row verifies a
per-tensor quantized program and names its input label for a per-axis one; the ops
that take no quantized tensors name it for any; the result's quantization parameters
may differ from the operands' (dequantize_op_quantize), the storage / expressed types
may not (baseline_type, C1)."""

from __future__ import annotations

import pytest

from hlorun.shape_inference.elementwise import BINARY, PER_TENSOR, UNARY
from tests.shape_inference.labelcheck import assert_label, assert_verifies, func

Q = "tensor<2x!quant.uniform<i8:f32, 0.5:1>>"
Q2 = "tensor<2x!quant.uniform<i8:f32, 0.25:-3>>"  # other parameters, same baseline
Q16 = "tensor<2x!quant.uniform<i16:f32, 0.5:1>>"  # other storage type
QAXIS = "tensor<2x!quant.uniform<i8:f32:0, {0.5:1, 0.25:0}>>"


def program(op: str, arity: int, operand: str, result: str) -> str:
    names = ", ".join(f"%a{i}" for i in range(arity))
    args = ", ".join(f"%a{i}: {operand}" for i in range(arity))
    types = ", ".join([operand] * arity)
    return func(
        args,
        f'%r = "stablehlo.{op}"({names}) : ({types}) -> {result}',
        results=result,
        returns=f"%r : {result}",
    )


ROWS = [(op, 1, q) for op, _, q in UNARY] + [(op, 2, q) for op, _, q in BINARY]
TAKES_QUANT = [(op, n) for op, n, q in ROWS if q == PER_TENSOR]
NO_QUANT = [(op, n) for op, n, q in ROWS if q != PER_TENSOR]


def test_the_table_has_both_kinds():
    assert len(TAKES_QUANT) > 20 and len(NO_QUANT) >= 8


@pytest.mark.parametrize("op,arity", TAKES_QUANT)
def test_per_tensor_quantized(op, arity):
    assert_verifies(program(op, arity, Q, Q))
    assert_verifies(program(op, arity, Q, Q2))  # dequantize, op, quantize to Q2
    assert_label(program(op, arity, Q, Q16), f"{op}_c1")
    assert_label(program(op, arity, QAXIS, QAXIS), f"{op}_i1")


@pytest.mark.parametrize("op,arity", NO_QUANT)
def test_no_quantized_operands(op, arity):
    assert_label(program(op, arity, Q, Q), f"{op}_i1")
