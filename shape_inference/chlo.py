"""chlo shape functions and verifiers (source of truth: stablehlo docs/chlo.md).

CHLO has no numbered constraints like the StableHLO spec, so errors carry descriptive
labels of the form ``chlo.<op>.<what>`` (``chlo.top_k.k``, ``chlo.broadcast.shape``,
``chlo.ragged_dot.group_sizes``...); the ``<op>`` part is the op's short name, or
``broadcast`` for the checks shared by every ``chlo.broadcast_*`` op.

Element types are checked against the operand tables of docs/chlo.md: "4/6/8/16/32/64-bit
float" admits every ``FloatType`` except ``tf32`` (a 19-bit type); "complex type with
32/64-bit float elements" admits ``complex<f32>`` and ``complex<f64>``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..parser.errors import VerificationError
from ..parser.ir import (
    ComplexType,
    DenseElementsAttr,
    FloatAttr,
    FloatType,
    IntegerAttr,
    IntegerType,
    Operation,
    QuantizedType,
    TensorType,
    Type,
)
from .decode import decode_attribute
from .optable import REQUIRED, ShapeContext, define_op
from .typeutil import require_tensor

I1 = IntegerType(1)
I32 = IntegerType(32)

# --------------------------------------------------------------------------------------
# Element type predicates (docs/chlo.md operand tables)
# --------------------------------------------------------------------------------------


def _elem(t: Type) -> Type:
    return t.element_type if isinstance(t, TensorType) else t


def is_chlo_float(e: Type) -> bool:
    """'4/6/8/16/32/64-bit float' (tf32 is 19-bit, so not in the set)."""
    return isinstance(e, FloatType) and e.name != "tf32"


def is_chlo_complex(e: Type) -> bool:
    """'complex type with 32/64-bit float elements'."""
    return (
        isinstance(e, ComplexType)
        and isinstance(e.element_type, FloatType)
        and (e.element_type.name in ("f32", "f64"))
    )


def is_chlo_integer(e: Type) -> bool:
    """'2/4/8/16/32/64-bit integer' (not i1)."""
    return isinstance(e, IntegerType) and e.width in (2, 4, 8, 16, 32, 64)


def is_chlo_bool(e: Type) -> bool:
    return isinstance(e, IntegerType) and e.is_bool


def is_chlo_any(e: Type) -> bool:
    """float, bool, integer, complex or quantized: the widest operand set of chlo ops."""
    return (
        is_chlo_float(e)
        or is_chlo_bool(e)
        or is_chlo_integer(e)
        or is_chlo_complex(e)
        or isinstance(e, QuantizedType)
    )


def tensor_operand(ctx: ShapeContext, t: Type, what: str) -> TensorType:
    """chlo has no constraint labels: a non-tensor is ``chlo.<op>.type``."""
    return require_tensor(ctx, t, f"chlo.{ctx.op.split('.', 1)[-1]}.type", what)


def check_elem(ctx: ShapeContext, t: TensorType, pred: Any, what: str, kind: str) -> None:
    if not pred(t.element_type):
        name = ctx.op.split(".", 1)[-1]
        raise ctx.error(
            f"chlo.{name}.element_type",
            f"{what} must be a tensor of {kind} values, got element type {t.element_type}",
        )


def merge_dim(a: int | None, b: int | None) -> int | None:
    """The more static of two compatible dimension sizes."""
    return b if a is None else a


def _same_shape(ctx: ShapeContext, *types: TensorType) -> tuple[int | None, ...] | None:
    """SameOperandsAndResultShape over operand types: ranks equal, dims compatible."""
    shape: tuple[int | None, ...] | None = None
    for t in types:
        if t.shape is None:
            continue
        if shape is None:
            shape = t.shape
            continue
        if len(shape) != len(t.shape) or any(
            a is not None and b is not None and a != b for a, b in zip(shape, t.shape)
        ):
            name = ctx.op.split(".", 1)[-1]
            raise ctx.error(
                f"chlo.{name}.shape",
                f"operands must have compatible shapes, got {types[0].shape} and {t.shape}",
            )
        shape = tuple(merge_dim(a, b) for a, b in zip(shape, t.shape))
    return shape


# --------------------------------------------------------------------------------------
# Unary and binary elementwise ops
# --------------------------------------------------------------------------------------

_FLOAT_OR_COMPLEX = (lambda e: is_chlo_float(e) or is_chlo_complex(e), "float or complex")
_FLOAT = (is_chlo_float, "float")
_COMPLEX = (is_chlo_complex, "complex")
_INTEGER = (is_chlo_integer, "integer")


def _unary_shape(allowed: tuple[Any, str]):
    pred, kind = allowed

    def shape(ctx: ShapeContext, operand: Type) -> Type:
        """CompatibleOperandsAndResultType, Elementwise (docs/chlo.md)."""
        t = tensor_operand(ctx, operand, "operand")
        check_elem(ctx, t, pred, "operand", kind)
        return t

    return shape


def _predicate_shape(ctx: ShapeContext, operand: Type) -> Type:
    """is_inf / is_neg_inf / is_pos_inf: float operand -> tensor of i1, same shape."""
    t = tensor_operand(ctx, operand, "operand")
    check_elem(ctx, t, is_chlo_float, "operand", "float")
    return TensorType(t.shape, I1)


def _binary_shape(allowed: tuple[Any, str]):
    pred, kind = allowed

    def shape(ctx: ShapeContext, lhs: Type, rhs: Type) -> Type:
        """Two operands and the result of one type (docs/chlo.md)."""
        a = tensor_operand(ctx, lhs, "lhs")
        b = tensor_operand(ctx, rhs, "rhs")
        check_elem(ctx, a, pred, "lhs", kind)
        check_elem(ctx, b, pred, "rhs", kind)
        if a.element_type != b.element_type:
            name = ctx.op.split(".", 1)[-1]
            raise ctx.error(
                f"chlo.{name}.element_type",
                f"operands must have the same element type, got {a.element_type} and "
                f"{b.element_type}",
            )
        return TensorType(_same_shape(ctx, a, b), a.element_type)

    return shape


# Element types from docs/chlo.md's "Operands" tables.
define_op("chlo._asin_acos_kernel", _unary_shape(_COMPLEX))
define_op("chlo.acos", _unary_shape(_FLOAT_OR_COMPLEX))
define_op("chlo.acosh", _unary_shape(_FLOAT_OR_COMPLEX))
define_op("chlo.asin", _unary_shape(_FLOAT_OR_COMPLEX))
define_op("chlo.asinh", _unary_shape(_FLOAT_OR_COMPLEX))
define_op("chlo.atan", _unary_shape(_FLOAT_OR_COMPLEX))
define_op("chlo.atanh", _unary_shape(_FLOAT_OR_COMPLEX))
define_op("chlo.bessel_i1e", _unary_shape(_FLOAT_OR_COMPLEX))
define_op("chlo.conj", _unary_shape(_FLOAT_OR_COMPLEX))
define_op("chlo.cosh", _unary_shape(_FLOAT_OR_COMPLEX))
define_op("chlo.sinh", _unary_shape(_FLOAT_OR_COMPLEX))
define_op("chlo.tan", _unary_shape(_FLOAT_OR_COMPLEX))
define_op("chlo.square", _unary_shape(_FLOAT_OR_COMPLEX))
define_op("chlo.digamma", _unary_shape(_FLOAT))
define_op("chlo.erf", _unary_shape(_FLOAT))
define_op("chlo.erfc", _unary_shape(_FLOAT))
define_op("chlo.erf_inv", _unary_shape(_FLOAT))
define_op("chlo.lgamma", _unary_shape(_FLOAT))
define_op("chlo.is_inf", _predicate_shape)
define_op("chlo.is_neg_inf", _predicate_shape)
define_op("chlo.is_pos_inf", _predicate_shape)
# Two operands and the result of one type.
define_op("chlo.next_after", _binary_shape(_FLOAT))
define_op("chlo.polygamma", _binary_shape(_FLOAT))
define_op("chlo.zeta", _binary_shape(_FLOAT))
define_op("chlo.mulhi", _binary_shape(_INTEGER))
# Not in docs/chlo.md: the regularized incomplete gamma functions P(a, x) and
# Q(a, x), which XLA clients emit under these names (lax.igamma / lax.igammac).
define_op("chlo.igamma", _binary_shape(_FLOAT))
define_op("chlo.igammac", _binary_shape(_FLOAT))


# --------------------------------------------------------------------------------------
# Broadcasting binary ops
# --------------------------------------------------------------------------------------

_BOOL_OR_INT = (lambda e: is_chlo_bool(e) or is_chlo_integer(e), "bool or integer")
_ANY = (is_chlo_any, "float, bool, integer, complex or quantized")
_F32_OR_F64 = (lambda e: isinstance(e, FloatType) and e.name in ("f32", "f64"), "f32 or f64")


def broadcast_shapes(
    ctx: ShapeContext,
    lhs: tuple[int | None, ...],
    rhs: tuple[int | None, ...],
    broadcast_dimensions: tuple[int, ...] | None,
) -> tuple[int | None, ...]:
    """The result shape of a chlo broadcasting op (XLA's "broadcasting semantics").

    Without ``broadcast_dimensions`` the shapes are aligned on their trailing dimensions
    (NumPy style); with it, dimension ``i`` of the lower-rank operand maps to dimension
    ``broadcast_dimensions[i]`` of the higher-rank one.  Then every pair of dimensions
    must be equal, or one of them 1.  ``None`` (``?``) stands for an unknown size.
    """
    big, small = (lhs, rhs) if len(lhs) >= len(rhs) else (rhs, lhs)
    if not broadcast_dimensions:  # absent or empty: NumPy-style trailing alignment
        dims = tuple(range(len(big) - len(small), len(big)))
    else:
        dims = tuple(broadcast_dimensions)
        # chlo.broadcast.dimensions
        if len(dims) != len(small):
            raise ctx.error(
                "chlo.broadcast.dimensions",
                f"broadcast_dimensions {list(dims)} must have one entry per dimension of "
                f"the lower-rank operand (rank {len(small)})",
            )
        if any(d < 0 or d >= len(big) for d in dims) or len(set(dims)) != len(dims):
            raise ctx.error(
                "chlo.broadcast.dimensions",
                f"broadcast_dimensions {list(dims)} must be distinct dimensions of the "
                f"higher-rank operand (rank {len(big)})",
            )
        if len(big) == len(small) and dims != tuple(range(len(big))):
            raise ctx.error(
                "chlo.broadcast.dimensions",
                "broadcast_dimensions must be the identity when the operands have equal rank",
            )
    out = list(big)
    for i, d in enumerate(dims):
        out[d] = _broadcast_dim(ctx, big[d], small[i])
    return tuple(out)


def check_bounded_broadcast(ctx: ShapeContext, *types: TensorType) -> None:
    """NumPy-style broadcasting of operands that are all static or bounded
    (getNumpyBroadcastShape, stablehlo/transforms/StablehloBroadcastLowering.cpp, which
    ChloOps.cpp's getNumpyBroadcastType calls): a dimension's size is its static size
    or its bound; two sizes other than 1 must be equal, and both bounded or both
    static."""
    dims_of: list[list[tuple[int, bool]]] = []  # (size or bound, bounded) per dim
    for t in types:
        if t.shape is None:
            return
        bounds = t.bounds or (None,) * len(t.shape)
        dims: list[tuple[int, bool]] = []
        for d, bound in zip(t.shape, bounds):
            if d is not None:
                dims.append((d, False))
            elif bound is not None:
                dims.append((bound, True))
            else:
                return  # an unbounded dynamic dimension: the lenient rule applies
        dims_of.append(dims)
    acc = dims_of[0]
    for dims in dims_of[1:]:
        rank = max(len(acc), len(dims))
        lhs = [(1, False)] * (rank - len(acc)) + acc
        rhs = [(1, False)] * (rank - len(dims)) + dims
        out: list[tuple[int, bool]] = []
        for x, y in zip(lhs, rhs):
            if x[0] == 1:
                out.append(y)
            elif y[0] == 1:
                out.append(x)
            elif x[0] != y[0]:
                raise ctx.error(
                    "chlo.broadcast.shape",
                    f"incompatible shapes for broadcasting {x[0]} and {y[0]}",
                )
            elif x[1] != y[1]:
                raise ctx.error(
                    "chlo.broadcast.bounds",
                    "cannot mix bounded and static dimensions in broadcast",
                )
            else:
                out.append(x)
        acc = out


def _broadcast_dim(ctx: ShapeContext, a: int | None, b: int | None) -> int | None:
    if a == 1:
        return b
    if b == 1:
        return a
    if a is None:
        return b
    if b is None or a == b:
        return a
    # chlo.broadcast.shape
    raise ctx.error(
        "chlo.broadcast.shape", f"dimension sizes {a} and {b} are not broadcast-compatible"
    )


def _broadcast_binary_shape(op: str, operands: tuple[Any, str]):
    pred, kind = operands

    def shape(
        ctx: ShapeContext,
        lhs: Type,
        rhs: Type,
        *,
        broadcast_dimensions: tuple[int, ...] | None = None,
        **_: Any,
    ) -> Type | None:
        """CHLO_Broadcasting + InferTensorType (docs/chlo.md)."""
        a = tensor_operand(ctx, lhs, "lhs")
        b = tensor_operand(ctx, rhs, "rhs")
        check_elem(ctx, a, pred, "lhs", kind)
        check_elem(ctx, b, pred, "rhs", kind)
        ea, eb = a.element_type, b.element_type
        quantized = isinstance(ea, QuantizedType) or isinstance(eb, QuantizedType)
        if not quantized and ea != eb:
            # chlo.broadcast.element_type (SameOperandsAndResultElementType and friends)
            raise ctx.error(
                "chlo.broadcast.element_type",
                f"operands must have the same element type, got {ea} and {eb}",
            )
        if a.shape is None or b.shape is None:
            shape_: tuple[int | None, ...] | None = None
        else:
            if broadcast_dimensions is None:
                check_bounded_broadcast(ctx, a, b)
            shape_ = broadcast_shapes(ctx, a.shape, b.shape, broadcast_dimensions)
        if op == "chlo.broadcast_compare":
            return TensorType(shape_, I1)
        if op == "chlo.broadcast_complex":
            return TensorType(shape_, ComplexType(ea))
        if quantized:  # result element type may carry other quantization parameters
            _check_declared_shape(ctx, shape_)
            return None
        return TensorType(shape_, ea)

    return shape


def _check_declared_shape(ctx: ShapeContext, shape: tuple[int | None, ...] | None) -> None:
    if not ctx.result_types or shape is None:
        return
    r = ctx.result_types[0]
    if (
        isinstance(r, TensorType)
        and r.shape is not None
        and (
            len(r.shape) != len(shape)
            or any(x is not None and y is not None and x != y for x, y in zip(r.shape, shape))
        )
    ):
        name = ctx.op.split(".", 1)[-1]
        raise ctx.error(
            f"chlo.{name}.result",
            f"result shape {list(r.shape)} is incompatible with the inferred {list(shape)}",
        )


def broadcast_op(name: str, operands: tuple[Any, str] = _ANY, **attrs: Any) -> None:
    """Register a chlo broadcasting binary op: its operand element types and its
    attributes besides ``broadcast_dimensions``."""
    define_op(
        name, _broadcast_binary_shape(name, operands), attrs={"broadcast_dimensions": None, **attrs}
    )


broadcast_op("chlo.broadcast_add")
broadcast_op("chlo.broadcast_and", _BOOL_OR_INT)
broadcast_op("chlo.broadcast_atan2")
broadcast_op("chlo.broadcast_compare", comparison_direction=REQUIRED, compare_type=None)
broadcast_op("chlo.broadcast_complex", _F32_OR_F64)
broadcast_op("chlo.broadcast_divide")
broadcast_op("chlo.broadcast_maximum")
broadcast_op("chlo.broadcast_minimum")
broadcast_op("chlo.broadcast_multiply")
broadcast_op("chlo.broadcast_next_after", _FLOAT)
broadcast_op("chlo.broadcast_or", _BOOL_OR_INT)
broadcast_op("chlo.broadcast_polygamma", _FLOAT)
broadcast_op("chlo.broadcast_power")
broadcast_op("chlo.broadcast_remainder")
broadcast_op("chlo.broadcast_shift_left")
broadcast_op("chlo.broadcast_shift_right_arithmetic")
broadcast_op("chlo.broadcast_shift_right_logical")
broadcast_op("chlo.broadcast_subtract")
broadcast_op("chlo.broadcast_xor", _BOOL_OR_INT)
broadcast_op("chlo.broadcast_zeta", _FLOAT)


def _broadcast_select_shape(ctx: ShapeContext, pred: Type, on_true: Type, on_false: Type) -> Type:
    """broadcast_select: i1 pred; on_true and on_false of one element type; NumPy-style
    broadcasting of the three shapes."""
    p = tensor_operand(ctx, pred, "pred")
    t = tensor_operand(ctx, on_true, "on_true")
    f = tensor_operand(ctx, on_false, "on_false")
    check_elem(ctx, p, is_chlo_bool, "pred", "bool")
    if t.element_type != f.element_type:
        raise ctx.error(
            "chlo.broadcast_select.element_type",
            f"on_true and on_false must have the same element type, got {t.element_type} "
            f"and {f.element_type}",
        )
    if p.shape is None or t.shape is None or f.shape is None:
        return TensorType(None, t.element_type)
    check_bounded_broadcast(ctx, p, t, f)
    shape_ = broadcast_shapes(ctx, t.shape, f.shape, None)
    shape_ = broadcast_shapes(ctx, shape_, p.shape, None)
    return TensorType(shape_, t.element_type)


define_op("chlo.broadcast_select", _broadcast_select_shape)


# --------------------------------------------------------------------------------------
# constant, constant_like
# --------------------------------------------------------------------------------------


def _constant_shape(ctx: ShapeContext, *, value: Any) -> None:
    """chlo.constant: the result is the type of ``value`` (statically shaped)."""
    if not isinstance(value, np.ndarray):
        raise ctx.error("chlo.constant.value", "value must be a dense elements attribute")
    if ctx.result_types:
        r = ctx.result_types[0]
        if not isinstance(r, TensorType) or r.shape is None or tuple(r.shape) != value.shape:
            raise ctx.error(
                "chlo.constant.value",
                f"result type {r} does not match the shape {list(value.shape)} of value",
            )
    return None


define_op("chlo.constant", _constant_shape, attrs={"value": REQUIRED})


def _decode_constant_like(op: Operation) -> dict[str, Any]:
    """constant_like keeps the type of its ``value`` attribute (the result element type)."""
    attr = op.attr("value")
    if attr is None:
        raise VerificationError("requires attribute 'value'", op.pos, op=op.name)
    value_type: Type | None = None
    if isinstance(attr, IntegerAttr | FloatAttr):
        value_type = attr.type
    elif isinstance(attr, DenseElementsAttr):
        value_type = attr.type.element_type
    return {"value": decode_attribute(attr), "value_type": value_type}


def _constant_like_shape(
    ctx: ShapeContext, operand: Type, *, value: Any, value_type: Type | None
) -> Type | None:
    """chlo.constant_like: a splat of ``value`` with the operand's shape."""
    t = tensor_operand(ctx, operand, "operand")
    if isinstance(value, np.ndarray) and value.size != 1:
        raise ctx.error("chlo.constant_like.value", "value must be a scalar (or splat of one)")
    if value_type is None:
        _check_declared_shape(ctx, t.shape)
        return None
    return TensorType(t.shape, value_type)


define_op(
    "chlo.constant_like",
    _constant_like_shape,
    attrs={"value": REQUIRED, "value_type": None},
    decode=_decode_constant_like,
)
