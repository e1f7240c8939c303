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

from ..parser.ir import (
    ComplexType,
    DenseElementsAttr,
    DialectAttr,
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
    return isinstance(e, ComplexType) and isinstance(e.element_type, FloatType) and (
        e.element_type.name in ("f32", "f64")
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


def _tensor(ctx: ShapeContext, t: Type, what: str) -> TensorType:
    """chlo has no constraint labels: a non-tensor is ``chlo.<op>.type``."""
    return require_tensor(ctx, t, f"chlo.{ctx.op.split('.', 1)[-1]}.type", what)


def _check_elem(ctx: ShapeContext, t: TensorType, pred: Any, what: str, kind: str) -> None:
    if not pred(t.element_type):
        name = ctx.op.split(".", 1)[-1]
        raise ctx.error(
            f"chlo.{name}.element_type",
            f"{what} must be a tensor of {kind} values, got element type {t.element_type}",
        )


def _merge_dim(a: int | None, b: int | None) -> int | None:
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
        shape = tuple(_merge_dim(a, b) for a, b in zip(shape, t.shape))
    return shape


# --------------------------------------------------------------------------------------
# Unary and binary elementwise ops
# --------------------------------------------------------------------------------------

_FLOAT_OR_COMPLEX = (lambda e: is_chlo_float(e) or is_chlo_complex(e), "float or complex")
_FLOAT = (is_chlo_float, "float")
_COMPLEX = (is_chlo_complex, "complex")
_INTEGER = (is_chlo_integer, "integer")

# op -> allowed operand element types (docs/chlo.md "Operands" tables).
UNARY_OPS: dict[str, tuple[Any, str]] = {
    "chlo._asin_acos_kernel": _COMPLEX,
    "chlo.acos": _FLOAT_OR_COMPLEX,
    "chlo.acosh": _FLOAT_OR_COMPLEX,
    "chlo.asin": _FLOAT_OR_COMPLEX,
    "chlo.asinh": _FLOAT_OR_COMPLEX,
    "chlo.atan": _FLOAT_OR_COMPLEX,
    "chlo.atanh": _FLOAT_OR_COMPLEX,
    "chlo.bessel_i1e": _FLOAT_OR_COMPLEX,
    "chlo.conj": _FLOAT_OR_COMPLEX,
    "chlo.cosh": _FLOAT_OR_COMPLEX,
    "chlo.sinh": _FLOAT_OR_COMPLEX,
    "chlo.tan": _FLOAT_OR_COMPLEX,
    "chlo.square": _FLOAT_OR_COMPLEX,
    "chlo.digamma": _FLOAT,
    "chlo.erf": _FLOAT,
    "chlo.erfc": _FLOAT,
    "chlo.erf_inv": _FLOAT,
    "chlo.lgamma": _FLOAT,
}

PREDICATE_OPS = ("chlo.is_inf", "chlo.is_neg_inf", "chlo.is_pos_inf")

# op -> allowed element types; operands and result share one type.
BINARY_OPS: dict[str, tuple[Any, str]] = {
    "chlo.next_after": _FLOAT,
    "chlo.polygamma": _FLOAT,
    "chlo.zeta": _FLOAT,
    "chlo.mulhi": _INTEGER,
    # Not in docs/chlo.md: the regularized incomplete gamma functions P(a, x) and
    # Q(a, x), which XLA clients emit under these names (lax.igamma / lax.igammac).
    "chlo.igamma": _FLOAT,
    "chlo.igammac": _FLOAT,
}


def _unary_shape(allowed: tuple[Any, str]):
    pred, kind = allowed

    def shape(ctx: ShapeContext, operand: Type) -> Type:
        """CompatibleOperandsAndResultType, Elementwise (docs/chlo.md)."""
        t = _tensor(ctx, operand, "operand")
        _check_elem(ctx, t, pred, "operand", kind)
        return t

    return shape


def _predicate_shape(ctx: ShapeContext, operand: Type) -> Type:
    """is_inf / is_neg_inf / is_pos_inf: float operand -> tensor of i1, same shape."""
    t = _tensor(ctx, operand, "operand")
    _check_elem(ctx, t, is_chlo_float, "operand", "float")
    return TensorType(t.shape, I1)


def _binary_shape(allowed: tuple[Any, str]):
    pred, kind = allowed

    def shape(ctx: ShapeContext, lhs: Type, rhs: Type) -> Type:
        """Two operands and the result of one type (docs/chlo.md)."""
        a = _tensor(ctx, lhs, "lhs")
        b = _tensor(ctx, rhs, "rhs")
        _check_elem(ctx, a, pred, "lhs", kind)
        _check_elem(ctx, b, pred, "rhs", kind)
        if a.element_type != b.element_type:
            name = ctx.op.split(".", 1)[-1]
            raise ctx.error(
                f"chlo.{name}.element_type",
                f"operands must have the same element type, got {a.element_type} and "
                f"{b.element_type}",
            )
        return TensorType(_same_shape(ctx, a, b), a.element_type)

    return shape


for _name, _allowed in UNARY_OPS.items():
    define_op(_name, _unary_shape(_allowed))
for _name in PREDICATE_OPS:
    define_op(_name, _predicate_shape)
for _name, _allowed in BINARY_OPS.items():
    define_op(_name, _binary_shape(_allowed))


# --------------------------------------------------------------------------------------
# Broadcasting binary ops
# --------------------------------------------------------------------------------------

# chlo op -> (stablehlo op it applies after broadcasting, or a chlo op, operand kind).
BROADCAST_OPS: dict[str, str] = {
    "chlo.broadcast_add": "stablehlo.add",
    "chlo.broadcast_and": "stablehlo.and",
    "chlo.broadcast_atan2": "stablehlo.atan2",
    "chlo.broadcast_compare": "stablehlo.compare",
    "chlo.broadcast_complex": "stablehlo.complex",
    "chlo.broadcast_divide": "stablehlo.divide",
    "chlo.broadcast_maximum": "stablehlo.maximum",
    "chlo.broadcast_minimum": "stablehlo.minimum",
    "chlo.broadcast_multiply": "stablehlo.multiply",
    "chlo.broadcast_next_after": "chlo.next_after",
    "chlo.broadcast_or": "stablehlo.or",
    "chlo.broadcast_polygamma": "chlo.polygamma",
    "chlo.broadcast_power": "stablehlo.power",
    "chlo.broadcast_remainder": "stablehlo.remainder",
    "chlo.broadcast_shift_left": "stablehlo.shift_left",
    "chlo.broadcast_shift_right_arithmetic": "stablehlo.shift_right_arithmetic",
    "chlo.broadcast_shift_right_logical": "stablehlo.shift_right_logical",
    "chlo.broadcast_subtract": "stablehlo.subtract",
    "chlo.broadcast_xor": "stablehlo.xor",
    "chlo.broadcast_zeta": "chlo.zeta",
}

_BOOL_OR_INT = (lambda e: is_chlo_bool(e) or is_chlo_integer(e), "bool or integer")
_ANY = (is_chlo_any, "float, bool, integer, complex or quantized")
_BROADCAST_OPERANDS: dict[str, tuple[Any, str]] = {
    "chlo.broadcast_and": _BOOL_OR_INT,
    "chlo.broadcast_or": _BOOL_OR_INT,
    "chlo.broadcast_xor": _BOOL_OR_INT,
    "chlo.broadcast_complex": (lambda e: isinstance(e, FloatType) and e.name in ("f32", "f64"),
                               "f32 or f64"),
    "chlo.broadcast_zeta": _FLOAT,
    "chlo.broadcast_polygamma": _FLOAT,
    "chlo.broadcast_next_after": _FLOAT,
}


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


def _broadcast_binary_shape(op: str):
    pred, kind = _BROADCAST_OPERANDS.get(op, _ANY)

    def shape(
        ctx: ShapeContext,
        lhs: Type,
        rhs: Type,
        *,
        broadcast_dimensions: tuple[int, ...] | None = None,
        **_: Any,
    ) -> Type | None:
        """CHLO_Broadcasting + InferTensorType (docs/chlo.md)."""
        a = _tensor(ctx, lhs, "lhs")
        b = _tensor(ctx, rhs, "rhs")
        _check_elem(ctx, a, pred, "lhs", kind)
        _check_elem(ctx, b, pred, "rhs", kind)
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
    if isinstance(r, TensorType) and r.shape is not None and (
        len(r.shape) != len(shape)
        or any(x is not None and y is not None and x != y for x, y in zip(r.shape, shape))
    ):
        name = ctx.op.split(".", 1)[-1]
        raise ctx.error(
            f"chlo.{name}.result",
            f"result shape {list(r.shape)} is incompatible with the inferred {list(shape)}",
        )


_BROADCAST_ATTRS: dict[str, Any] = {"broadcast_dimensions": None}
for _name in BROADCAST_OPS:
    _attrs = dict(_BROADCAST_ATTRS)
    if _name == "chlo.broadcast_compare":
        _attrs.update(comparison_direction=REQUIRED, compare_type=None)
    define_op(_name, _broadcast_binary_shape(_name), attrs=_attrs)


def _broadcast_select_shape(ctx: ShapeContext, pred: Type, on_true: Type, on_false: Type) -> Type:
    """broadcast_select: i1 pred; on_true and on_false of one element type; NumPy-style
    broadcasting of the three shapes."""
    p = _tensor(ctx, pred, "pred")
    t = _tensor(ctx, on_true, "on_true")
    f = _tensor(ctx, on_false, "on_false")
    _check_elem(ctx, p, is_chlo_bool, "pred", "bool")
    if t.element_type != f.element_type:
        raise ctx.error(
            "chlo.broadcast_select.element_type",
            f"on_true and on_false must have the same element type, got {t.element_type} "
            f"and {f.element_type}",
        )
    if p.shape is None or t.shape is None or f.shape is None:
        return TensorType(None, t.element_type)
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
    from ..parser.errors import VerificationError

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
    t = _tensor(ctx, operand, "operand")
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


# --------------------------------------------------------------------------------------
# top_k
# --------------------------------------------------------------------------------------


def _top_k_shape(ctx: ShapeContext, operand: Type, *, k: int, is_stable: bool = False):
    """chlo.top_k: values and i32 indices of shape ``operand.shape[:-1] + [k]``."""
    t = _tensor(ctx, operand, "operand")
    _check_elem(ctx, t, is_chlo_any, "operand", "float, bool, integer, complex or quantized")
    if k < 0:
        raise ctx.error("chlo.top_k.k", f"k must be non-negative, got {k}")  # chlo.top_k.k
    if t.shape is None:
        return (TensorType(None, t.element_type), TensorType(None, I32))
    if len(t.shape) < 1:  # chlo.top_k.rank
        raise ctx.error("chlo.top_k.rank", "operand's rank must be at least 1")
    last = t.shape[-1]
    if last is not None and last < k:  # chlo.top_k.k
        raise ctx.error(
            "chlo.top_k.k", f"operand's last dimension must be at least {k}, got {last}"
        )
    shape_ = tuple(t.shape[:-1]) + (k,)
    return (TensorType(shape_, t.element_type), TensorType(shape_, I32))


define_op(
    "chlo.top_k",
    _top_k_shape,
    attrs={"k": REQUIRED, "is_stable": False},
    multi_result=True,
)


# --------------------------------------------------------------------------------------
# ragged_dot
# --------------------------------------------------------------------------------------

RAGGED_FIELDS = (
    "lhs_batching_dimensions",
    "rhs_batching_dimensions",
    "lhs_contracting_dimensions",
    "rhs_contracting_dimensions",
    "lhs_ragged_dimensions",
    "rhs_group_dimensions",
)


def ragged_dot_fields(attr: Any) -> dict[str, tuple[int, ...]]:
    """The six dimension lists of a ``#chlo.ragged_dot<...>`` attribute, whatever form it
    arrives in (``DialectAttr``, a mapping, or a record with those fields).  Camel-case
    parameter names (``lhsBatchingDimensions``) are accepted too."""

    def get(name: str) -> Any:
        camel = name.split("_")[0] + "".join(w.title() for w in name.split("_")[1:])
        if isinstance(attr, DialectAttr):
            v = attr.get(name, attr.get(camel))
        elif isinstance(attr, dict):
            v = attr.get(name, attr.get(camel))
        else:
            v = getattr(attr, name, getattr(attr, camel, None))
        if v is None:
            return ()
        if not isinstance(v, tuple | list | int):
            v = decode_attribute(v)
        if isinstance(v, int):
            return (v,)
        return tuple(int(x) for x in v)

    return {name: get(name) for name in RAGGED_FIELDS}


def ragged_dot_mode(
    dims: dict[str, tuple[int, ...]], lhs_rank: int
) -> int:
    """1: ragged non-contracting dim; 2: ragged contracting dim; 3: ragged batch dim."""
    r = dims["lhs_ragged_dimensions"][0]
    if r in dims["lhs_contracting_dimensions"]:
        return 2
    if r in dims["lhs_batching_dimensions"]:
        return 3
    return 1


def ragged_dot_result_shape(
    ctx: ShapeContext,
    lhs: tuple[int | None, ...],
    rhs: tuple[int | None, ...],
    group_sizes: tuple[int | None, ...],
    dims: dict[str, tuple[int, ...]],
) -> tuple[int | None, ...]:
    """Check the constraints of docs/chlo.md "chlo.ragged_dot" and infer the result shape:
    ``[g]`` (mode 2 only) + batch dims + lhs free dims + rhs free dims (rhs free dims exclude
    the group dimension)."""
    lb, rb = dims["lhs_batching_dimensions"], dims["rhs_batching_dimensions"]
    lc, rc = dims["lhs_contracting_dimensions"], dims["rhs_contracting_dimensions"]
    lr, rg = dims["lhs_ragged_dimensions"], dims["rhs_group_dimensions"]

    def err(what: str, msg: str) -> Exception:
        return ctx.error(f"chlo.ragged_dot.{what}", msg)

    if len(lb) != len(rb):
        raise err("batching_dimensions", "lhs and rhs must have the same number of batching dims")
    if len(lc) != len(rc):
        raise err("contracting_dimensions",
                  "lhs and rhs must have the same number of contracting dims")
    if len(lr) != 1:
        raise err("ragged_dimensions", "there must be exactly one lhs ragged dimension")
    if len(rg) > 1:
        raise err("group_dimensions", "there can be at most one rhs group dimension")
    for side, rank, ds in (("lhs", len(lhs), lb + lc + lr), ("rhs", len(rhs), rb + rc + rg)):
        if any(d < 0 or d >= rank for d in ds):
            raise err("dimensions", f"{side} dimension out of range for rank {rank}")
    if len(set(lb + lc)) != len(lb + lc) or len(set(rb + rc + rg)) != len(rb + rc + rg):
        raise err("dimensions", "batching, contracting and group dimensions must be disjoint")
    for a, b in zip(lb + lc, rb + rc):
        if lhs[a] is not None and rhs[b] is not None and lhs[a] != rhs[b]:
            raise err("dimensions", f"lhs dimension {a} ({lhs[a]}) and rhs dimension {b} "
                      f"({rhs[b]}) must have the same size")
    mode = ragged_dot_mode(dims, len(lhs))
    if mode == 1 and len(rg) != 1:
        raise err("group_dimensions",
                  "the rhs must have a group dimension when the lhs ragged dimension is a "
                  "non-contracting dimension")
    if mode != 1 and rg:
        raise err("group_dimensions",
                  "the rhs must not have a group dimension when the lhs ragged dimension is "
                  "a batching or contracting dimension")
    g = rhs[rg[0]] if rg else None
    if len(group_sizes) < 1:
        raise err("group_sizes", "group_sizes must have rank at least 1")
    gs_g = group_sizes[-1]
    if g is not None and gs_g is not None and g != gs_g:
        raise err("group_sizes",
                  f"group_sizes has {gs_g} groups but the rhs group dimension has size {g}")
    g = g if g is not None else gs_g
    # Leading group_sizes dimensions: the lhs batching dims (mode 1 and 2).
    prefix = group_sizes[:-1]
    if prefix:
        want = [lhs[d] for d in lb]
        if mode == 3 or len(prefix) != len(want) or any(
            p is not None and w is not None and p != w for p, w in zip(prefix, want)
        ):
            raise err("group_sizes",
                      f"group_sizes shape {list(group_sizes)} must be [g] or the lhs batch "
                      f"dimensions followed by [g]")
    lfree = [lhs[d] for d in range(len(lhs)) if d not in lb and d not in lc]
    rfree = [rhs[d] for d in range(len(rhs)) if d not in rb and d not in rc and d not in rg]
    batch = [_merge_dim(lhs[a], rhs[b]) for a, b in zip(lb, rb)]
    out = batch + lfree + rfree
    if mode == 2:
        out = [g] + out
    return tuple(out)


def _ragged_dot_shape(
    ctx: ShapeContext,
    lhs: Type,
    rhs: Type,
    group_sizes: Type,
    *,
    ragged_dot_dimension_numbers: Any,
    precision_config: Any = None,
) -> Type | None:
    """chlo.ragged_dot (docs/chlo.md): modes 1-3; the result element type is declared."""
    a = _tensor(ctx, lhs, "lhs")
    b = _tensor(ctx, rhs, "rhs")
    gs = _tensor(ctx, group_sizes, "group_sizes")
    _check_elem(ctx, gs, is_chlo_integer, "group_sizes", "integer")
    dims = ragged_dot_fields(ragged_dot_dimension_numbers)
    if a.shape is None or b.shape is None or gs.shape is None:
        return None
    shape_ = ragged_dot_result_shape(ctx, a.shape, b.shape, gs.shape, dims)
    if not ctx.result_types or not isinstance(ctx.result_types[0], TensorType):
        return None
    return TensorType(shape_, ctx.result_types[0].element_type)


define_op(
    "chlo.ragged_dot",
    _ragged_dot_shape,
    attrs={"ragged_dot_dimension_numbers": REQUIRED, "precision_config": None},
)


# --------------------------------------------------------------------------------------
# scan
# --------------------------------------------------------------------------------------


def scan_num_inputs(
    operand_types: tuple[Type, ...],
    block_arg_types: tuple[Type, ...] | None,
    operand_segment_sizes: tuple[int, ...] | None,
) -> int | None:
    """How many of the scan's operands are ``inputs`` (the rest are ``inits``).

    From ``operandSegmentSizes`` when the op carries it; otherwise from the body: an
    input's block argument is a slice of it (one rank less), an init's block argument
    has the init's own type."""
    if operand_segment_sizes is not None and len(operand_segment_sizes) == 2:
        return int(operand_segment_sizes[0])
    if block_arg_types is None or len(block_arg_types) != len(operand_types):
        return None
    n = 0
    for ot, bt in zip(operand_types, block_arg_types):
        if not (isinstance(ot, TensorType) and isinstance(bt, TensorType)) or (
            ot.shape is None or bt.shape is None
        ):
            return None
        if len(bt.shape) == len(ot.shape) - 1:
            n += 1
        else:
            break
    return n


def _scan_shape(
    ctx: ShapeContext,
    *operands: Type,
    dimension: int,
    is_reverse: bool = False,
    is_associative: bool | None = None,
    scan_dim_size: int | None = None,
    operandSegmentSizes: tuple[int, ...] | None = None,  # noqa: N803 (MLIR's name)
    resultSegmentSizes: tuple[int, ...] | None = None,  # noqa: N803
) -> None:
    """chlo.scan (docs/chlo.md): ``body(input slices..., carries...) -> (output slices...,
    carries...)`` along ``dimension``; carries keep the inits' types."""
    block_types = None
    if ctx.regions:
        region = ctx.regions[0]
        if region.blocks:
            block_types = tuple(v.type for v in region.blocks[0].arguments)
    n_in = scan_num_inputs(operands, block_types, operandSegmentSizes)
    if n_in is None:
        return None
    inputs, inits = operands[:n_in], operands[n_in:]
    if dimension < 0:
        raise ctx.error("chlo.scan.dimension", f"dimension must be non-negative, got {dimension}")
    size: int | None = scan_dim_size
    for t in inputs:
        if not isinstance(t, TensorType) or t.shape is None:
            continue
        if dimension >= len(t.shape):  # chlo.scan.dimension
            raise ctx.error(
                "chlo.scan.dimension",
                f"dimension {dimension} is out of range for input of rank {len(t.shape)}",
            )
        d = t.shape[dimension]
        if size is not None and d is not None and d != size:
            raise ctx.error("chlo.scan.inputs", "inputs must have one size along dimension")
        size = _merge_dim(size, d)
    results = ctx.result_types
    if len(results) < len(inits):
        raise ctx.error("chlo.scan.results", "there must be one carry result per init")
    n_out = len(results) - len(inits)
    for i, (init, carry) in enumerate(zip(inits, results[n_out:])):
        if isinstance(init, TensorType) and isinstance(carry, TensorType) and (
            init.element_type != carry.element_type
            or (init.shape is not None and carry.shape is not None and len(init.shape) != len(
                carry.shape))
        ):
            raise ctx.error(
                "chlo.scan.carries", f"carry #{i} type {carry} does not match init type {init}"
            )
    for r in results[:n_out]:
        if isinstance(r, TensorType) and r.shape is not None:
            if dimension >= len(r.shape):
                raise ctx.error("chlo.scan.dimension",
                                f"dimension {dimension} is out of range for output {r}")
            d = r.shape[dimension]
            if d is not None and size is not None and d != size:
                raise ctx.error(
                    "chlo.scan.outputs",
                    f"outputs must have size {size} along dimension {dimension}, got {d}",
                )
    return None


define_op(
    "chlo.scan",
    _scan_shape,
    attrs={
        "dimension": REQUIRED,
        "is_reverse": False,
        "is_associative": None,
        "scan_dim_size": None,
        "operandSegmentSizes": None,
        "resultSegmentSizes": None,
    },
    regions=("body",),
    multi_result=True,
)
