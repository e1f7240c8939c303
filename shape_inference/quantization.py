"""Quantization shape functions and verifiers (spec: uniform_quantize,
uniform_dequantize; the quantized element type constraints of spec "Types").

Each check carries the spec's label (``<op>_c<N>``; ``<op>_i1`` / ``<op>_o1`` when the
operand / result is not of the type the op's Inputs / Outputs table names, including a
quantized element type that breaks the type's own constraints C1-C13).
"""

from __future__ import annotations

import numpy as np

from ..parser.ir import FloatType, QuantizedType, TensorType, Type, numpy_dtype
from .optable import ShapeContext, shape_function


def _int_range(width: int, unsigned: bool) -> tuple[int, int]:
    if unsigned:
        return 0, (1 << width) - 1
    return -(1 << (width - 1)), (1 << (width - 1)) - 1


def quantized_type_problem(t: TensorType) -> str | None:
    """What breaks spec "Quantized element types" C1-C13 in tensor type ``t`` (None when
    nothing does)."""
    found = quantized_type_violation(t)
    return None if found is None else found[1]


def quantized_type_violation(t: TensorType) -> tuple[str, str] | None:
    """(label, message) of the first of spec "Types" quantized element / tensor type
    constraints C3-C13 that tensor type ``t`` breaks (None when none does).  C1, C2
    and C8 (the types of storage_min, storage_max and the zero points) hold by
    construction: the syntax gives them the storage type."""
    q = t.element_type
    assert isinstance(q, QuantizedType)
    st = q.storage_type
    if st.is_bool:
        return "quantized_type_c3", f"storage type {st} is not an integer type"
    if st.width > 32:  # MLIR's QuantizedType::verifyInvariants: MaxStorageBits = 32
        return "quantized_type_c3", f"illegal storage type size: {st.width}"
    lo, hi = _int_range(st.width, st.is_unsigned)
    smin = lo if q.storage_min is None else q.storage_min
    smax = hi if q.storage_max is None else q.storage_max
    if not lo <= smin < smax <= hi:
        return "quantized_type_c3", (
            f"storage_min {smin} and storage_max {smax} must satisfy "
            f"{lo} <= storage_min < storage_max <= {hi}"
        )
    if not isinstance(q.expressed_type, FloatType):  # scales have the expressed type
        return (
            "quantized_type_c4",
            f"expressed type {q.expressed_type} is not a floating-point type",
        )
    if any(not s > 0 for s in q.scales):
        return "quantized_type_c5", f"scales must be positive, got {list(q.scales)}"
    with np.errstate(over="ignore"):
        as_expressed = np.asarray(q.scales, dtype=numpy_dtype(q.expressed_type))
    if not (as_expressed.astype(np.float64) > 0).all():  # C4 with C5: rounds to 0
        return "quantized_type_c5", (
            f"scales must be positive in {q.expressed_type}, got {list(q.scales)}"
        )
    if not np.isfinite(as_expressed.astype(np.float64)).all():
        return "quantized_type_c6", (
            f"scales must be finite in {q.expressed_type}, got {list(q.scales)}"
        )
    if any(not smin <= z <= smax for z in q.zero_points):
        return "quantized_type_c7", (
            f"zero points must be in [{smin}, {smax}], got {list(q.zero_points)}"
        )
    if len(q.scales) != len(q.zero_points):
        return "quantized_type_c9", "scales and zero points differ in number"
    if q.quantized_dimension is None:
        if len(q.scales) != 1:
            return "quantized_type_c10", "per-tensor quantization takes exactly one scale"
        return None
    d = q.quantized_dimension
    if d < 0:
        return "quantized_type_c11", f"quantization dimension {d} is negative"
    if t.shape is not None:
        if d >= len(t.shape):
            return "quantized_type_c12", (
                f"quantization dimension {d} is not less than the rank {len(t.shape)}"
            )
        n = t.shape[d]
        if n is not None and n != len(q.scales):
            return "quantized_type_c13", (
                f"dimension {d} has size {n} but the type has {len(q.scales)} scales"
            )
    return None


def _quantized_tensor(
    ctx: ShapeContext, t: Type, what: str, label: str
) -> tuple[TensorType, QuantizedType]:
    """``t`` as a ranked tensor of quantized type, with that element type."""
    if not (
        isinstance(t, TensorType)
        and t.shape is not None
        and isinstance(t.element_type, QuantizedType)
    ):
        raise ctx.error(label, f"expects {what} to be a ranked quantized tensor, got {t}")
    problem = quantized_type_problem(t)
    if problem is not None:
        raise ctx.error(label, f"invalid quantized type of {what}: {problem}")
    return t, t.element_type


def _float_tensor(ctx: ShapeContext, t: Type, what: str, label: str) -> TensorType:
    if not (
        isinstance(t, TensorType) and t.shape is not None and isinstance(t.element_type, FloatType)
    ):
        raise ctx.error(label, f"expects {what} to be a ranked floating-point tensor, got {t}")
    return t


def _check_shapes(ctx: ShapeContext, label: str, a: TensorType, b: TensorType) -> None:
    """``shape(operand) = shape(result)`` (dynamic dimensions are compatible); both
    are ranked (the callers checked it)."""
    sa, sb = a.shape, b.shape
    if sa is None or sb is None:
        return
    if len(sa) != len(sb) or any(
        x is not None and y is not None and x != y for x, y in zip(sa, sb)
    ):
        raise ctx.error(
            label,
            f"expects operand and result to have the same shape, got {list(sa)} and {list(sb)}",
        )


@shape_function("stablehlo.uniform_quantize")
def uniform_quantize(ctx: ShapeContext, operand: Type):
    """spec: uniform_quantize.  The result type cannot be inferred (its quantization
    parameters are free): the declared one is checked."""
    if isinstance(operand, TensorType) and isinstance(operand.element_type, QuantizedType):
        operand, q = _quantized_tensor(ctx, operand, "operand", "uniform_quantize_i1")
        expressed = q.expressed_type
    else:
        operand = _float_tensor(ctx, operand, "operand", "uniform_quantize_i1")
        expressed = operand.element_type
    if not ctx.result_types:
        return None
    result, rq = _quantized_tensor(ctx, ctx.result_types[0], "result", "uniform_quantize_o1")
    _check_shapes(ctx, "uniform_quantize_c1", operand, result)  # uniform_quantize_c1
    if rq.expressed_type != expressed:  # uniform_quantize_c2
        raise ctx.error(
            "uniform_quantize_c2",
            f"expects the result's expressed type to be {expressed}, got {rq.expressed_type}",
        )
    return None


@shape_function("stablehlo.uniform_dequantize")
def uniform_dequantize(ctx: ShapeContext, operand: Type):
    """spec: uniform_dequantize.  Result: the operand's shape, of its expressed type."""
    operand, q = _quantized_tensor(ctx, operand, "operand", "uniform_dequantize_i1")
    expressed = q.expressed_type
    if ctx.result_types:
        result = ctx.result_types[0]
        if isinstance(result, TensorType) and result.shape is not None:
            _check_shapes(ctx, "uniform_dequantize_c1", operand, result)  # uniform_dequantize_c1
            if result.element_type != expressed:  # uniform_dequantize_c2
                raise ctx.error(
                    "uniform_dequantize_c2",
                    f"expects the result's element type to be {expressed}, got "
                    f"{result.element_type}",
                )
    return TensorType(operand.shape, expressed)


# --------------------------------------------------------------------------------------
# dot_general / convolution / dynamic_conv with quantized tensors
# --------------------------------------------------------------------------------------


def _per_tensor(e: Type) -> bool:
    return isinstance(e, QuantizedType) and e.quantized_dimension is None


def check_quantized_contraction(
    ctx: ShapeContext, labels: tuple[str, str, str, str], le: Type, re_: Type, res: Type | None
) -> None:
    """spec dot_general C17-C20 / convolution C31-C34 (``labels``: storage types,
    expressed types, per-tensor rhs -> per-tensor result, hybrid element types) on
    element types ``le``, ``re_`` and ``res`` (the declared result's; None: unknown)
    when rhs is quantized."""
    if not isinstance(re_, QuantizedType):
        return
    storage, expressed, per_tensor, hybrid = labels
    if isinstance(le, QuantizedType):
        if le.storage_type != re_.storage_type:
            raise ctx.error(
                storage,
                f"storage types of lhs and rhs differ: {le.storage_type} vs {re_.storage_type}",
            )
        rexp = res.expressed_type if isinstance(res, QuantizedType) else None
        if le.expressed_type != re_.expressed_type or (
            res is not None and rexp != le.expressed_type
        ):
            raise ctx.error(expressed, "expressed types of lhs, rhs and result must be the same")
        if res is not None and _per_tensor(re_) and not _per_tensor(res):
            raise ctx.error(
                per_tensor, "a per-tensor quantized rhs needs a per-tensor quantized result"
            )
        return
    if le != re_.expressed_type or (res is not None and res != le):
        raise ctx.error(
            hybrid,
            f"expects element_type(lhs) = expressed_type(rhs) = element_type(result), got "
            f"{le}, {re_.expressed_type} and {res}",
        )
