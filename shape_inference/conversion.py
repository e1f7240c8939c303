"""conversion shape functions and verifiers (spec: convert, bitcast_convert,
reduce_precision).

convert and bitcast_convert cannot infer their result type: they check the declared
result (``ctx.result_types``) against the spec's constraints and return None.
Labels as in elementwise.py: ``<op>_c<N>`` for the numbered constraints, ``<op>_i<N>``
for operand element types the Inputs table does not allow.
"""

from __future__ import annotations

from ..parser.ir import ComplexType, FloatType, IntegerType, QuantizedType, TensorType, Type
from .elementwise import (
    FLOAT_ONLY,
    PER_TENSOR,
    baseline_element_type,
    check_element,
    merge_shapes,
    shapes_compatible,
)
from .optable import REQUIRED, ShapeContext, define_op
from .typeutil import bitwidth, require_tensor, type_text


def num_bits(e: Type) -> int:
    """spec ``num_bits`` of an element type: ``bitwidth`` (typeutil.py, the one home),
    twice the part's for a complex type."""
    if isinstance(e, ComplexType):
        return 2 * bitwidth(e.element_type)
    if isinstance(e, IntegerType | FloatType | QuantizedType):
        return bitwidth(e)
    raise TypeError(f"no bit width for {e}")


def _result(ctx: ShapeContext, label: str) -> TensorType:
    if len(ctx.result_types) != 1 or not isinstance(ctx.result_types[0], TensorType):
        raise ctx.error(label, "expects one tensor result")
    return ctx.result_types[0]


def convert_shape(ctx: ShapeContext, operand: Type) -> None:
    """spec: convert.  Operand and result are (non-quantized) tensors; (C1) same shape."""
    t = require_tensor(ctx, operand, "convert_i1", "operand")
    result = _result(ctx, "convert_o1")
    if isinstance(t.element_type, QuantizedType):
        raise ctx.error("convert_i1", "operand must be a tensor of a non-quantized type")
    if isinstance(result.element_type, QuantizedType):
        raise ctx.error("convert_o1", "result must be a tensor of a non-quantized type")
    if not shapes_compatible(t.shape, result.shape):  # (C1)
        raise ctx.error("convert_c1", f"requires the same shape, got {t.shape} and {result.shape}")
    return None


define_op("stablehlo.convert", convert_shape, traits={"elementwise", "foldable"})


def bitcast_convert_shape(ctx: ShapeContext, operand: Type) -> None:
    """spec: bitcast_convert.  (C1) shapes by bit widths (an extra / a dropped innermost
    dimension when the widths differ); (C2) complex only to complex."""
    t = require_tensor(ctx, operand, "bitcast_convert_i1", "operand")
    result = _result(ctx, "bitcast_convert_o1")
    e, e2 = t.element_type, result.element_type
    if isinstance(e, ComplexType) != isinstance(e2, ComplexType):  # (C2)
        raise ctx.error("bitcast_convert_c2", "cannot convert between real and complex types")
    bits, bits2 = num_bits(e), num_bits(e2)
    s, s2 = t.shape, result.shape
    if s is None or s2 is None:
        return None
    got = f"Got: '{type_text(t)}' and '{type_text(result)}'"
    if bits == bits2:
        if not shapes_compatible(s, s2):  # (C1)
            raise ctx.error(
                "bitcast_convert_c1",
                "operand and result shapes must match except for the innermost dimension "
                f"of the shape with the smaller element type. {got}.",
            )
        return None
    small, large = (s2, s) if bits2 < bits else (s, s2)
    small_bits, large_bits = min(bits, bits2), max(bits, bits2)
    if len(small) != len(large) + 1:  # (C1)
        raise ctx.error(
            "bitcast_convert_c1",
            f"rank of smaller element type ({len(small)}) should be 1 more than rank of "
            f"larger element type ({len(large)}), but {len(small)} != {len(large)} + 1.",
        )
    if not shapes_compatible(small[:-1], large):  # (C1)
        raise ctx.error(
            "bitcast_convert_c1",
            "operand and result shapes must match except for the innermost dimension of "
            f"the shape with the smaller element type. {got}.",
        )
    last = small[-1]
    if last is not None and last * small_bits != large_bits:  # (C1)
        raise ctx.error(
            "bitcast_convert_c1",
            f"requires compatible bit widths. {got}, but {small_bits} * {last} != {large_bits}.",
        )
    return None


# elementwise: on 0-d values of one bit width (the key transforms of sort comparators)
define_op("stablehlo.bitcast_convert", bitcast_convert_shape, traits={"elementwise", "foldable"})


def reduce_precision_shape(
    ctx: ShapeContext, operand: Type, *, exponent_bits: int, mantissa_bits: int
) -> TensorType | None:
    """spec: reduce_precision.  (C1) output type = operand type (baseline);
    (C2) 1 <= exponent_bits; (C3) 0 <= mantissa_bits."""
    t = require_tensor(ctx, operand, "reduce_precision_i1", "operand")
    check_element(ctx, "reduce_precision", 1, t.element_type, FLOAT_ONLY, PER_TENSOR)
    if exponent_bits < 1:  # (C2)
        raise ctx.error("reduce_precision_c2", f"exponent_bits must be >= 1, got {exponent_bits}")
    if mantissa_bits < 0:  # (C3)
        raise ctx.error("reduce_precision_c3", f"mantissa_bits must be >= 0, got {mantissa_bits}")
    if isinstance(t.element_type, QuantizedType):
        result = _result(ctx, "reduce_precision_o1")
        if not shapes_compatible(t.shape, result.shape) or baseline_element_type(
            result.element_type
        ) != baseline_element_type(t.element_type):  # (C1)
            raise ctx.error("reduce_precision_c1", "output must have the operand's baseline type")
        return None
    return TensorType(merge_shapes(t.shape), t.element_type)  # (C1)


define_op(
    "stablehlo.reduce_precision",
    reduce_precision_shape,
    attrs={"exponent_bits": REQUIRED, "mantissa_bits": REQUIRED},
    traits={"elementwise"},
)
