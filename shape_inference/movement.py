"""Data-movement shape functions and verifiers (spec: constant, iota, broadcast_in_dim,
reshape, transpose, reverse, get_dimension_size and the dynamic_* forms; slice,
concatenate, pad are in ``slicing``, gather and scatter in ``gather_scatter``).

Each check carries the spec's constraint label (``<op>_c<N>``; ``<op>_i<N>`` for the
type of input N).  Dynamic (``?``, None) dimensions are compatible with any size.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import numpy as np

from ..parser.errors import VerificationError
from ..parser.ir import (
    DenseElementsAttr,
    DenseResourceAttr,
    IntegerType,
    Operation,
    QuantizedType,
    TensorType,
    Type,
    TypeExtensions,
)
from .optable import REQUIRED, ShapeContext, shape_function
from .typeutil import ranked_shape, require_per_tensor, type_text

# --------------------------------------------------------------------------------------
# helpers
# --------------------------------------------------------------------------------------


def int_tuple(values: Any) -> tuple[int, ...]:
    if values is None:
        return ()
    if isinstance(values, np.ndarray):
        return tuple(int(v) for v in values.reshape(-1))
    return tuple(int(v) for v in values)


def format_dims(dims: Sequence[int | None]) -> str:
    return "[" + ", ".join("?" if d is None else str(d) for d in dims) + "]"


def tensor_operand(ctx: ShapeContext, t: Type, what: str, label: str) -> TensorType:
    """``t`` as a ranked tensor type, or a verification error."""
    if not isinstance(t, TensorType) or t.shape is None:
        raise ctx.error(label, f"expects {what} to be a ranked tensor, got {type_text(t)}")
    return t


def declared_result(ctx: ShapeContext, label: str) -> TensorType | None:
    """The declared (single) result type, when the context knows it."""
    if not ctx.result_types:
        return None
    return tensor_operand(ctx, ctx.result_types[0], "the result", label)


def dim_bounds(t: TensorType) -> tuple[int | None, ...]:
    """The bound of each dimension of ``t`` (None where it has none)."""
    return t.bounds or (None,) * t.rank


def tensor_with_bounds(
    shape: Sequence[int | None], element: Type, bounds: Sequence[int | None]
) -> TensorType:
    """A tensor type carrying ``#stablehlo.bounds`` for its bounded dynamic dimensions."""
    bounds = tuple(b if d is None else None for d, b in zip(shape, bounds))
    encoding = TypeExtensions(bounds) if any(b is not None for b in bounds) else None
    return TensorType(tuple(shape), element, encoding)


def dims_compatible(a: int | None, b: int | None) -> bool:
    return a is None or b is None or a == b


def is_integer_tensor(t: TensorType) -> bool:
    e = t.element_type
    return isinstance(e, IntegerType) and not e.is_bool or type(e).__name__ == "IndexType"


def is_per_axis(t: Type) -> bool:
    e = t.element_type if isinstance(t, TensorType) else t
    return isinstance(e, QuantizedType) and e.is_per_axis


def _same_element_type_modulo_axis(a: Type, b: Type) -> bool:
    """spec (broadcast_in_dim_c1, reshape_c1, transpose_c1): equal element types, except
    that per-axis quantization parameters may differ."""
    if a == b:
        return True
    if isinstance(a, QuantizedType) and isinstance(b, QuantizedType) and a.is_per_axis:
        return (a.storage_type, a.expressed_type, a.storage_min, a.storage_max) == (
            b.storage_type,
            b.expressed_type,
            b.storage_min,
            b.storage_max,
        )
    return False


def check_unique(ctx: ShapeContext, label: str, name: str, dims: Sequence[int]) -> None:
    if len(set(dims)) != len(dims):
        raise ctx.error(label, f"expects {name} to not repeat, got: {list(dims)}")


def check_sorted(ctx: ShapeContext, label: str, name: str, dims: Sequence[int]) -> None:
    if list(dims) != sorted(dims):
        raise ctx.error(label, f"expects {name} to be sorted, got: {list(dims)}")


def check_range(
    ctx: ShapeContext, label: str, name: str, dims: Sequence[int], bound: int, what: str
) -> None:
    for d in dims:
        if not 0 <= d < bound:
            raise ctx.error(
                label,
                f"expects each element of {name} to be in range "
                f"[0, {what}) i.e. [0, {bound}), got: {d}",
            )


def one_d_size(
    ctx: ShapeContext, t: Type, what: str, label: str, operand_number: int | None = None
) -> int | None:
    """Size of a 1-d shape operand (None when dynamic; with ``operand_number``, a
    dynamic size is an error, as the StableHLO dialect requires a static shape there)."""
    t = tensor_operand(ctx, t, what, label)
    if t.rank != 1 or not is_integer_tensor(t):
        raise ctx.error(
            label, f"expects {what} to be a 1-dimensional integer tensor, got {type_text(t)}"
        )
    size = ranked_shape(t)[0]
    if operand_number is not None and size is None:
        raise ctx.error(label, f"operand #{operand_number} must be statically shaped")
    return size


def operand_value(ctx: ShapeContext, i: int) -> tuple[int, ...] | None:
    """The values of operand ``i`` when the verifier knows them (the operand is a
    ``stablehlo.constant``): ``ctx.operand_values[i]``, an array or None.  Lets the
    dynamic_* ops check their shape operands statically, as the spec's "Shape mismatches
    for ops that take their output shape as an operand" allows."""
    values = getattr(ctx, "operand_values", None)
    if not values or i >= len(values) or values[i] is None:
        return None
    return tuple(int(v) for v in np.asarray(values[i]).reshape(-1))


def _check_shape_values(
    ctx: ShapeContext, label: str, shape: tuple[int, ...] | None, result: TensorType | None
) -> None:
    """A constant output-shape operand must agree with the declared result type."""
    if shape is None or result is None:
        return
    if (
        any(d < 0 for d in shape)
        or len(shape) != result.rank
        or any(r is not None and r != d for r, d in zip(ranked_shape(result), shape))
    ):
        raise ctx.error(
            label,
            f"output shape {list(shape)} is incompatible with return type "
            f"of operation '{type_text(result)}'",
        )


# --------------------------------------------------------------------------------------
# constant, iota, dynamic_iota
# --------------------------------------------------------------------------------------


def _decode_constant(op: Operation) -> dict[str, Any]:
    """``value`` keeps its array and its type (spec constant_c1: type(value) = type(output))."""
    attr = op.attr("value")
    if attr is None:
        raise VerificationError("requires attribute 'value'", op.pos, op=op.name)
    if isinstance(attr, DenseElementsAttr):
        return {"value": attr.array, "value_type": attr.type}
    return {
        "value": attr,
        "value_type": getattr(attr, "type", None) if isinstance(attr, DenseResourceAttr) else None,
    }


@shape_function(
    "stablehlo.constant",
    result_labels=("constant_c1", "constant_c1"),
    traits={"constant_like"},
    attrs={"value": REQUIRED, "value_type": None},
    decode=_decode_constant,
)
def constant(ctx: ShapeContext, *, value: Any, value_type: Type | None = None):
    """spec: constant.  constant_c1: type(value) = type(output); as in the StableHLO
    dialect, a quantized output may take a value of its storage type."""
    if isinstance(value_type, TensorType) and ctx.result_types:
        out = ctx.result_types[0]
        if (
            isinstance(out, TensorType)
            and isinstance(out.element_type, QuantizedType)
            and out.shape == value_type.shape
            and out.element_type.storage_type == value_type.element_type
        ):
            return out
    return value_type


def _check_iota_result(ctx: ShapeContext, t: TensorType, label: str) -> None:
    e = t.element_type
    if isinstance(e, QuantizedType) and e.is_per_axis:
        raise ctx.error(label, "expects a per-tensor quantized result, got per-axis")


@shape_function("stablehlo.iota", attrs={"iota_dimension": REQUIRED}, traits={"foldable"})
def iota(ctx: ShapeContext, *, iota_dimension: int):
    """spec: iota."""
    result = declared_result(ctx, "iota_o1")
    if result is None:
        return None
    _check_iota_result(ctx, result, "iota_o1")
    if not result.is_static:  # ODS: HLO_StaticShapeIntFpComplexOrQuantizedTensor
        raise ctx.error("iota_o1", f"expects a statically shaped result, got {result}")
    if not 0 <= iota_dimension < result.rank:  # iota_c1
        raise ctx.error(
            "iota_c1",
            "iota dimension cannot go beyond the output rank "
            f"({iota_dimension} vs rank {result.rank})",
        )
    return None


@shape_function("stablehlo.dynamic_iota", attrs={"iota_dimension": REQUIRED})
def dynamic_iota(ctx: ShapeContext, output_shape: Type, *, iota_dimension: int):
    """spec: dynamic_iota."""
    size = one_d_size(ctx, output_shape, "output_shape", "dynamic_iota_i1", 0)
    if size is not None and not 0 <= iota_dimension < size:  # dynamic_iota_c1
        raise ctx.error(
            "dynamic_iota_c1",
            f"iota dimension {iota_dimension} cannot go beyond the output rank {size}",
        )
    result = declared_result(ctx, "dynamic_iota_o1")
    if result is not None:
        _check_iota_result(ctx, result, "dynamic_iota_o1")
        if size is not None and result.rank != size:  # dynamic_iota_c2
            raise ctx.error(
                "dynamic_iota_c2",
                f"result rank {result.rank} does not match size(output_shape) = {size}",
            )
        if not 0 <= iota_dimension < result.rank:  # dynamic_iota_c1
            raise ctx.error(
                "dynamic_iota_c1",
                "iota dimension cannot go beyond the output "
                f"rank ({iota_dimension} vs {result.rank})",
            )
        # dynamic_iota_c2 (with a constant output_shape)
        _check_shape_values(ctx, "dynamic_iota_c2", operand_value(ctx, 0), result)
    return None


# --------------------------------------------------------------------------------------
# broadcast_in_dim, dynamic_broadcast_in_dim
# --------------------------------------------------------------------------------------


def _check_broadcast(
    ctx: ShapeContext,
    op: str,
    operand: TensorType,
    result: TensorType | None,
    dims: tuple[int, ...],
) -> None:
    if len(dims) != operand.rank:  # <op>_c2
        raise ctx.error(
            f"{op}_c2",
            f"broadcast_dimensions size ({len(dims)}) does not match operand rank ({operand.rank})",
        )
    check_unique(ctx, f"{op}_c4", "broadcast_dimensions", dims)  # <op>_c4
    if result is None:
        return
    if not _same_element_type_modulo_axis(operand.element_type, result.element_type):
        raise ctx.error(
            f"{op}_c1",
            f"expects result element type {result.element_type} to "
            f"match operand element type {operand.element_type}",
        )
    for d in dims:  # <op>_c3
        if not 0 <= d < result.rank:
            raise ctx.error(
                f"{op}_c3",
                f"broadcast_dimensions contains invalid value {d} for "
                f"result with rank {result.rank}",
            )
    oshape, rshape = ranked_shape(operand), ranked_shape(result)
    for d, rd in enumerate(dims):  # <op>_c5
        n = oshape[d]
        if n != 1 and not dims_compatible(n, rshape[rd]):
            raise ctx.error(
                f"{op}_c5",
                f"size of operand dimension {d} ({n}) is not equal to "
                f"1 or size of result dimension {rd} "
                f"({rshape[rd]})",
            )
    re = result.element_type
    if isinstance(re, QuantizedType) and re.is_per_axis:  # <op>_c6
        oe = operand.element_type
        if not (isinstance(oe, QuantizedType) and oe.quantized_dimension is not None):
            raise ctx.error(f"{op}_c6", "per-axis quantized result needs a per-axis operand")
        qd = oe.quantized_dimension  # (QuantizedType.is_per_axis: it has one)
        if re.quantized_dimension != dims[qd]:
            raise ctx.error(
                f"{op}_c6",
                f"result quantization_dimension {re.quantized_dimension}"
                f" must be broadcast_dimensions[{qd}] = {dims[qd]}",
            )
        if oshape[qd] == 1:
            n = len(re.scales)
            if re.scales != (oe.scales[0],) * n or re.zero_points != (oe.zero_points[0],) * len(
                re.zero_points
            ):
                raise ctx.error(
                    f"{op}_c6",
                    "scales/zero_points of a broadcast quantization "
                    "dimension must repeat the operand's",
                )


def require_static_or_single_bounded(ctx: ShapeContext, t: TensorType | None, label: str) -> None:
    """ODS ``HLO_StaticShapeTensorPerAxisQuantizedTensorOrBoundedTensor`` (the results of
    broadcast_in_dim and reshape): static, or one dynamic dimension and it bounded
    (Base.cpp hasSingleBoundedDimension)."""
    if t is None or t.is_static:
        return
    dynamic = [i for i, d in enumerate(ranked_shape(t)) if d is None]
    bounds = t.bounds or ()
    if len(dynamic) != 1 or sum(b is not None for b in bounds) != 1:
        raise ctx.error(
            label, "result must be statically shaped or single bounded dimension tensor"
        )


@shape_function(
    "stablehlo.broadcast_in_dim",
    attrs={"broadcast_dimensions": REQUIRED},
    traits={"foldable", "reshape_like"},
)
def broadcast_in_dim(ctx: ShapeContext, operand: Type, *, broadcast_dimensions):
    """spec: broadcast_in_dim (verifier: the result type is given)."""
    operand = tensor_operand(ctx, operand, "operand", "broadcast_in_dim_i1")
    result = declared_result(ctx, "broadcast_in_dim_o1")
    require_static_or_single_bounded(ctx, result, "broadcast_in_dim_o1")
    _check_broadcast(ctx, "broadcast_in_dim", operand, result, int_tuple(broadcast_dimensions))
    return None


@shape_function(
    "stablehlo.dynamic_broadcast_in_dim",
    attrs={
        "broadcast_dimensions": REQUIRED,
        "known_expanding_dimensions": (),
        "known_nonexpanding_dimensions": (),
    },
)
def dynamic_broadcast_in_dim(
    ctx: ShapeContext,
    operand: Type,
    output_dimensions: Type,
    *,
    broadcast_dimensions,
    known_expanding_dimensions=(),
    known_nonexpanding_dimensions=(),
):
    """spec: dynamic_broadcast_in_dim."""
    operand = tensor_operand(ctx, operand, "operand", "dynamic_broadcast_in_dim_i1")
    size = one_d_size(ctx, output_dimensions, "output_dimensions", "dynamic_broadcast_in_dim_i2", 1)
    result = declared_result(ctx, "dynamic_broadcast_in_dim_o1")
    _check_broadcast(
        ctx, "dynamic_broadcast_in_dim", operand, result, int_tuple(broadcast_dimensions)
    )
    if result is not None and size is not None and size != result.rank:
        # dynamic_broadcast_in_dim_c7
        raise ctx.error(
            "dynamic_broadcast_in_dim_c7",
            f"size of output_dimensions ({size}) does not match result rank ({result.rank})",
        )
    shape = operand_value(ctx, 1)
    dims = int_tuple(broadcast_dimensions)
    if shape is not None:
        for d, rd in enumerate(dims):  # dynamic_broadcast_in_dim_c5
            n = ranked_shape(operand)[d]
            if rd < len(shape) and n is not None and n != 1 and n != shape[rd]:
                raise ctx.error(
                    "dynamic_broadcast_in_dim_c5",
                    f"size of operand dimension {d} ({n}) is not equal to 1 or "
                    f"value of shape at index {rd} ({shape[rd]})",
                )
        # dynamic_broadcast_in_dim_c7 (with a constant output_dimensions)
        _check_shape_values(ctx, "dynamic_broadcast_in_dim_c7", shape, result)
    expanding = int_tuple(known_expanding_dimensions)
    nonexpanding = int_tuple(known_nonexpanding_dimensions)
    # dynamic_broadcast_in_dim_c8
    check_unique(
        ctx,
        "dynamic_broadcast_in_dim_c8",
        "known_expanding_dimensions + known_nonexpanding_dimensions",
        expanding + nonexpanding,
    )
    # dynamic_broadcast_in_dim_c9 / _c10
    check_range(
        ctx,
        "dynamic_broadcast_in_dim_c9",
        "known_expanding_dimensions",
        expanding,
        operand.rank,
        "rank-of('operand')",
    )
    check_range(
        ctx,
        "dynamic_broadcast_in_dim_c10",
        "known_nonexpanding_dimensions",
        nonexpanding,
        operand.rank,
        "rank-of('operand')",
    )
    return None


@shape_function("stablehlo.broadcast", attrs={"broadcast_sizes": REQUIRED}, traits={"foldable"})
def broadcast(ctx: ShapeContext, operand: Type, *, broadcast_sizes):
    """Deprecated StableHLO op (not in the spec): shape(result) = broadcast_sizes ++
    shape(operand)."""
    t = tensor_operand(ctx, operand, "operand", "broadcast_i1")
    sizes = int_tuple(broadcast_sizes)
    if any(n < 0 for n in sizes):
        raise ctx.error("broadcast_c1", f"broadcast_sizes must be non-negative, got {list(sizes)}")
    return TensorType(sizes + ranked_shape(t), t.element_type)


# --------------------------------------------------------------------------------------
# reshape, dynamic_reshape, transpose, reverse, get_dimension_size
# --------------------------------------------------------------------------------------


def _num_elements(dims: Sequence[int | None]) -> int | None:
    n = 1
    for d in dims:
        if d is None:
            return None
        n *= d
    return n


def _check_reshape(ctx: ShapeContext, op: str, operand: TensorType, result: TensorType) -> None:
    if not _same_element_type_modulo_axis(operand.element_type, result.element_type):
        raise ctx.error(
            f"{op}_c1",
            f"expects result element type {result.element_type} to "
            f"match operand element type {operand.element_type}",
        )
    oshape, rshape = ranked_shape(operand), ranked_shape(result)
    a, b = _num_elements(oshape), _num_elements(rshape)
    if a is not None and b is not None and a != b:  # <op>_c2
        raise ctx.error(
            f"{op}_c2",
            f"number of output elements ({b}) doesn't match expected number of elements ({a})",
        )
    oe, re = operand.element_type, result.element_type
    qo = oe.quantized_dimension if isinstance(oe, QuantizedType) else None
    if qo is not None:  # <op>_c3 (a per-axis operand)
        qr = re.quantized_dimension if isinstance(re, QuantizedType) else None
        if qr is None:
            raise ctx.error(f"{op}_c3", "expects a per-axis quantized result")
        checks = [
            (_num_elements(oshape[:qo]), _num_elements(rshape[:qr])),
            (oshape[qo], rshape[qr]),
            (_num_elements(oshape[qo + 1 :]), _num_elements(rshape[qr + 1 :])),
        ]
        if any(not dims_compatible(x, y) for x, y in checks):
            raise ctx.error(
                f"{op}_c3",
                "reshape must keep the quantization dimension and the "
                "products of the dimensions before and after it",
            )


@shape_function("stablehlo.reshape", traits={"foldable", "reshape_like"})
def reshape(ctx: ShapeContext, operand: Type):
    """spec: reshape (verifier: the result type is given)."""
    operand = tensor_operand(ctx, operand, "operand", "reshape_i1")
    result = declared_result(ctx, "reshape_o1")
    require_static_or_single_bounded(ctx, result, "reshape_o1")
    if result is not None:
        _check_reshape(ctx, "reshape", operand, result)
    return None


@shape_function("stablehlo.dynamic_reshape")
def dynamic_reshape(ctx: ShapeContext, operand: Type, output_shape: Type):
    """spec: dynamic_reshape."""
    operand = tensor_operand(ctx, operand, "operand", "dynamic_reshape_i1")
    size = one_d_size(ctx, output_shape, "output_shape", "dynamic_reshape_i2", 1)
    shape = operand_value(ctx, 1)
    n = _num_elements(ranked_shape(operand))
    if (
        shape is not None
        and n is not None
        and all(d >= 0 for d in shape)
        and _num_elements(shape) != n
    ):  # dynamic_reshape_c2
        raise ctx.error(
            "dynamic_reshape_c2",
            f"output_shape is incompatible with input type "
            f"of operation: input has {n} elements, but "
            f"output_shape has {_num_elements(shape)}",
        )
    result = declared_result(ctx, "dynamic_reshape_o1")
    if result is not None:
        _check_reshape(ctx, "dynamic_reshape", operand, result)
        if size is not None and size != result.rank:  # dynamic_reshape_c4
            raise ctx.error(
                "dynamic_reshape_c4",
                f"output_shape size ({size}) does not match result rank ({result.rank})",
            )
        _check_shape_values(ctx, "dynamic_reshape_c4", shape, result)  # dynamic_reshape_c4
    return None


@shape_function(
    "stablehlo.transpose",
    result_labels=("transpose_c3", "transpose_c1"),
    attrs={"permutation": REQUIRED},
    traits={"foldable"},
)
def transpose(ctx: ShapeContext, operand: Type, *, permutation):
    """spec: transpose: shape(result) = dim(operand, permutation...)."""
    operand = tensor_operand(ctx, operand, "operand", "transpose_i1")
    declared = declared_result(ctx, "transpose_o1")
    if declared is not None and not _same_element_type_modulo_axis(
        operand.element_type, declared.element_type
    ):  # transpose_c1
        raise ctx.error(
            "transpose_c1",
            f"expects result element type {declared.element_type} "
            f"to match operand element type {operand.element_type}",
        )
    perm = int_tuple(permutation)
    if sorted(perm) != list(range(operand.rank)):  # transpose_c2
        raise ctx.error(
            "transpose_c2",
            f"permutation must be a permutation of "
            f"{list(range(operand.rank))} but got {list(perm)}",
        )
    operand_shape = ranked_shape(operand)
    shape = tuple(operand_shape[p] for p in perm)  # transpose_c3
    element = operand.element_type
    if isinstance(element, QuantizedType) and element.is_per_axis:  # transpose_c4
        qd = perm.index(element.quantized_dimension)
        if declared is not None and isinstance(declared.element_type, QuantizedType):
            re = declared.element_type
            if (
                re.quantized_dimension is not None
                and perm[re.quantized_dimension] != element.quantized_dimension
            ):
                raise ctx.error(
                    "transpose_c4",
                    "quantization_dimension(operand) must be "
                    "permutation[quantization_dimension(result)]",
                )
        element = replace(element, quantized_dimension=qd)
    bounds = dim_bounds(operand)
    return tensor_with_bounds(shape, element, [bounds[p] for p in perm])


@shape_function(
    "stablehlo.reverse",
    result_labels=("reverse_c1", "reverse_c1"),
    attrs={"dimensions": REQUIRED},
    traits={"foldable"},
)
def reverse(ctx: ShapeContext, operand: Type, *, dimensions):
    """spec: reverse: type(result) = type(operand)."""
    t = tensor_operand(ctx, operand, "operand", "reverse_i1")
    require_per_tensor(ctx, t, "reverse_i1")
    dims = int_tuple(dimensions)
    check_unique(ctx, "reverse_c2", "dimensions", dims)  # reverse_c2
    check_range(ctx, "reverse_c3", "dimensions", dims, t.rank, "rank-of('result')")  # c3
    return operand


@shape_function("stablehlo.get_dimension_size", attrs={"dimension": REQUIRED})
def get_dimension_size(ctx: ShapeContext, operand: Type, *, dimension: int):
    """spec: get_dimension_size: result is tensor<i32>."""
    t = tensor_operand(ctx, operand, "operand", "get_dimension_size_i1")
    if not 0 <= dimension < t.rank:  # get_dimension_size_c1
        raise ctx.error(
            "get_dimension_size_c1",
            f"requires dimension attribute in range [0, {t.rank}); found ({dimension})",
        )
    return TensorType((), IntegerType(32))


@shape_function("stablehlo.set_dimension_size", attrs={"dimension": REQUIRED})
def set_dimension_size(ctx: ShapeContext, operand: Type, size: Type, *, dimension: int):
    """set_dimension_size (not in the spec; the StableHLO dialect's rule, from XLA): a
    0-d integer ``size``; the result has dimension ``dimension`` = the constant size, or
    else dynamic with the operand's size (or bound) as its bound."""
    t = tensor_operand(ctx, operand, "operand", "set_dimension_size_i1")
    s = tensor_operand(ctx, size, "size", "set_dimension_size_i2")
    if s.rank != 0:
        raise ctx.error("set_dimension_size_i2", "size operand should be of rank-0")
    if dimension < 0:
        raise ctx.error(
            "set_dimension_size_c1",
            "attribute 'dimension' failed to satisfy "
            "constraint: 64-bit signless integer attribute whose value is "
            "non-negative",
        )
    if dimension >= t.rank:
        raise ctx.error(
            "set_dimension_size_c1",
            f"requires dimension attribute in range [0, {t.rank}); found ({dimension})",
        )
    shape = list(ranked_shape(t))
    bounds = list(t.bounds or (None,) * t.rank)
    value = operand_value(ctx, 1)
    if value is not None and len(value) == 1:
        shape[dimension], bounds[dimension] = value[0], None
    else:
        if shape[dimension] is not None:
            bounds[dimension] = shape[dimension]
        shape[dimension] = None
    encoding = TypeExtensions(tuple(bounds)) if any(b is not None for b in bounds) else None
    return TensorType(tuple(shape), t.element_type, encoding)
