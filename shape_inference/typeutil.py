"""Facts about types that several families' shape functions share (spec "Types")."""

from __future__ import annotations

from ..parser.ir import ComplexType, FloatType, IntegerType, QuantizedType, TensorType, Type
from .optable import ShapeContext


def type_text(t: Type) -> str:
    """MLIR type text, for messages (``parser.printer.print_type``)."""
    # imported on first use, to keep startup cheap: the printer pulls in its grammars
    from ..parser.printer import print_type

    return print_type(t)


# tf32 is a 19-bit type (1 sign, 8 exponent, 10 mantissa bits: MLIR FloatTF32Type), held
# in float32 storage; bitwidth is the type's own width, not its storage's.
_FLOAT_BITS = {"bf16": 16, "f16": 16, "tf32": 19, "f32": 32, "f64": 64}


def element_type(t: Type) -> Type:
    return t.element_type if isinstance(t, TensorType) else t


def bitwidth(e: Type) -> int:
    """spec "bitwidth": the bits of an element type (the storage type's, for quantized;
    a complex type's part type's).  The one home of this fact: import it."""
    if isinstance(e, IntegerType):
        return e.width
    if isinstance(e, FloatType):
        if e.name in _FLOAT_BITS:
            return _FLOAT_BITS[e.name]
        return int(e.name[1])  # f4E2M1FN, f6E3M2FN, f8E4M3FN...
    if isinstance(e, ComplexType):
        return bitwidth(e.element_type)
    if isinstance(e, QuantizedType):
        return e.storage_type.width
    return 0


def is_promotable(x: Type, y: Type) -> bool:
    """spec "is_promotable": same kind and ``bitwidth(x) <= bitwidth(y)``; booleans only
    to booleans; quantized types must also share their expressed type."""
    x, y = element_type(x), element_type(y)
    if x == y:
        return True
    if isinstance(x, IntegerType) and isinstance(y, IntegerType):
        if x.is_bool or y.is_bool:
            return False
        return x.width <= y.width
    if isinstance(x, FloatType) and isinstance(y, FloatType):
        return bitwidth(x) <= bitwidth(y)
    if isinstance(x, ComplexType) and isinstance(y, ComplexType):
        return bitwidth(x) <= bitwidth(y)
    if isinstance(x, QuantizedType) and isinstance(y, QuantizedType):
        return x.expressed_type == y.expressed_type and bitwidth(x) <= bitwidth(y)
    return False


def ranked_shape(t: TensorType) -> tuple[int | None, ...]:
    """The dimensions of ``t``, a tensor type the caller knows to be ranked (an unranked
    one is a bug there: ValueError, like ``TensorType.rank``)."""
    if t.shape is None:
        raise ValueError("unranked tensor has no shape")
    return t.shape


def require_tensor(ctx: ShapeContext, t: Type, label: str, what: str = "operand") -> TensorType:
    """``t`` is a tensor type, else the spec's input/output type constraint ``label``."""
    if not isinstance(t, TensorType):
        raise ctx.error(label, f"{what} must be a tensor, got '{type_text(t)}'")
    return t


def require_tensors(ctx: ShapeContext, *operands: tuple[Type, str]) -> tuple[TensorType, ...]:
    """Each ``(type, label)`` operand is a tensor (the spec's ``<op>_i<N>`` input types);
    return them as tensor types."""
    return tuple(require_tensor(ctx, t, label) for t, label in operands)


def require_per_tensor(ctx: ShapeContext, t: Type, label: str) -> None:
    """``t`` is not per-axis quantized: the spec's Inputs / Outputs tables say "tensor or
    per-tensor quantized tensor" for it (ODS ``HLO_Tensor`` in StablehloOps.td, which
    only the ops listing ``HLO_TensorOrPerAxisQuantizedTensor`` widen)."""
    e = t.element_type if isinstance(t, TensorType) else t
    if isinstance(e, QuantizedType) and e.quantized_dimension is not None:
        raise ctx.error(label, f"expects a tensor or per-tensor quantized tensor, got {t}")
