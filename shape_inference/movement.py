"""Data-movement shape functions and verifiers (spec: constant, iota, broadcast_in_dim,
reshape, transpose, slice, dynamic_slice, dynamic_update_slice, concatenate, pad,
reverse, get_dimension_size, gather, dynamic_gather, scatter and the dynamic_* forms).

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
    FloatType,
    IntegerType,
    Operation,
    QuantizedType,
    TensorType,
    Type,
    TypeExtensions,
)

from .optable import REQUIRED, ShapeContext, shape_function
from .typeutil import type_text

# --------------------------------------------------------------------------------------
# helpers
# --------------------------------------------------------------------------------------


def _ints(values: Any) -> tuple[int, ...]:
    if values is None:
        return ()
    if isinstance(values, np.ndarray):
        return tuple(int(v) for v in values.reshape(-1))
    return tuple(int(v) for v in values)


def _fmt(dims: Sequence[int | None]) -> str:
    return "[" + ", ".join("?" if d is None else str(d) for d in dims) + "]"


def _tensor(ctx: ShapeContext, t: Type, what: str, label: str) -> TensorType:
    """``t`` as a ranked tensor type, or a verification error."""
    if not isinstance(t, TensorType) or t.shape is None:
        raise ctx.error(label, f"expects {what} to be a ranked tensor, got {type_text(t)}")
    return t


def _result(ctx: ShapeContext, label: str) -> TensorType | None:
    """The declared (single) result type, when the context knows it."""
    if not ctx.result_types:
        return None
    return _tensor(ctx, ctx.result_types[0], "the result", label)


def _bounds(t: TensorType) -> tuple[int | None, ...]:
    """The bound of each dimension of ``t`` (None where it has none)."""
    return t.bounds or (None,) * len(t.shape)


def _tensor_with_bounds(shape: Sequence[int | None], element: Type,
                        bounds: Sequence[int | None]) -> TensorType:
    """A tensor type carrying ``#stablehlo.bounds`` for its bounded dynamic dimensions."""
    bounds = tuple(b if d is None else None for d, b in zip(shape, bounds))
    encoding = TypeExtensions(bounds) if any(b is not None for b in bounds) else None
    return TensorType(tuple(shape), element, encoding)


def _compatible(a: int | None, b: int | None) -> bool:
    return a is None or b is None or a == b


def _is_integer_tensor(t: TensorType) -> bool:
    e = t.element_type
    return isinstance(e, IntegerType) and not e.is_bool or type(e).__name__ == "IndexType"


def _per_axis(t: Type) -> bool:
    e = t.element_type if isinstance(t, TensorType) else t
    return isinstance(e, QuantizedType) and e.is_per_axis


def _same_element_type_modulo_axis(a: Type, b: Type) -> bool:
    """spec (broadcast_in_dim_c1, reshape_c1, transpose_c1): equal element types, except
    that per-axis quantization parameters may differ."""
    if a == b:
        return True
    if isinstance(a, QuantizedType) and isinstance(b, QuantizedType) and a.is_per_axis:
        return (a.storage_type, a.expressed_type, a.storage_min, a.storage_max) == (
            b.storage_type, b.expressed_type, b.storage_min, b.storage_max)
    return False


def _check_unique(ctx: ShapeContext, label: str, name: str, dims: Sequence[int]) -> None:
    if len(set(dims)) != len(dims):
        raise ctx.error(label, f"expects {name} to not repeat, got: {list(dims)}")


def _check_sorted(ctx: ShapeContext, label: str, name: str, dims: Sequence[int]) -> None:
    if list(dims) != sorted(dims):
        raise ctx.error(label, f"expects {name} to be sorted, got: {list(dims)}")


def _check_range(ctx: ShapeContext, label: str, name: str, dims: Sequence[int], bound: int,
                 what: str) -> None:
    for d in dims:
        if not 0 <= d < bound:
            raise ctx.error(label, f"expects each element of {name} to be in range "
                                   f"[0, {what}) i.e. [0, {bound}), got: {d}")


def _one_d_size(ctx: ShapeContext, t: Type, what: str, label: str,
                operand_number: int | None = None) -> int | None:
    """Size of a 1-d shape operand (None when dynamic; with ``operand_number``, a
    dynamic size is an error, as the StableHLO dialect requires a static shape there)."""
    t = _tensor(ctx, t, what, label)
    if t.rank != 1 or not _is_integer_tensor(t):
        raise ctx.error(label, f"expects {what} to be a 1-dimensional integer tensor, got "
                               f"{type_text(t)}")
    if operand_number is not None and t.shape[0] is None:
        raise ctx.error(label, f"operand #{operand_number} must be statically shaped")
    return t.shape[0]


def _operand_value(ctx: ShapeContext, i: int) -> tuple[int, ...] | None:
    """The values of operand ``i`` when the verifier knows them (the operand is a
    ``stablehlo.constant``): ``ctx.operand_values[i]``, an array or None.  Lets the
    dynamic_* ops check their shape operands statically, as the spec's "Shape mismatches
    for ops that take their output shape as an operand" allows."""
    values = getattr(ctx, "operand_values", None)
    if not values or i >= len(values) or values[i] is None:
        return None
    return tuple(int(v) for v in np.asarray(values[i]).reshape(-1))


def _check_shape_values(ctx: ShapeContext, label: str, shape: tuple[int, ...] | None,
                        result: TensorType | None) -> None:
    """A constant output-shape operand must agree with the declared result type."""
    if shape is None or result is None:
        return
    if any(d < 0 for d in shape) or len(shape) != result.rank or any(
            r is not None and r != d for r, d in zip(result.shape, shape)):
        raise ctx.error(label, f"output shape {list(shape)} is incompatible with return type "
                               f"of operation '{type_text(result)}'")


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
    return {"value": attr, "value_type": getattr(attr, "type", None)
            if isinstance(attr, DenseResourceAttr) else None}


@shape_function("stablehlo.constant", attrs={"value": REQUIRED, "value_type": None},
                decode=_decode_constant)
def constant(ctx: ShapeContext, *, value: Any, value_type: Type | None = None):
    """spec: constant.  constant_c1: type(value) = type(output); as in the StableHLO
    dialect, a quantized output may take a value of its storage type."""
    if isinstance(value_type, TensorType) and ctx.result_types:
        out = ctx.result_types[0]
        if (isinstance(out, TensorType) and isinstance(out.element_type, QuantizedType)
                and out.shape == value_type.shape
                and out.element_type.storage_type == value_type.element_type):
            return out
    return value_type


def _check_iota_result(ctx: ShapeContext, t: TensorType, label: str) -> None:
    e = t.element_type
    if isinstance(e, QuantizedType) and e.is_per_axis:
        raise ctx.error(label, "expects a per-tensor quantized result, got per-axis")


@shape_function("stablehlo.iota", attrs={"iota_dimension": REQUIRED})
def iota(ctx: ShapeContext, *, iota_dimension: int):
    """spec: iota."""
    result = _result(ctx, "iota_o1")
    if result is None:
        return None
    _check_iota_result(ctx, result, "iota_o1")
    if not 0 <= iota_dimension < result.rank:  # iota_c1
        raise ctx.error("iota_c1", "iota dimension cannot go beyond the output rank "
                                   f"({iota_dimension} vs rank {result.rank})")
    return None


@shape_function("stablehlo.dynamic_iota", attrs={"iota_dimension": REQUIRED})
def dynamic_iota(ctx: ShapeContext, output_shape: Type, *, iota_dimension: int):
    """spec: dynamic_iota."""
    size = _one_d_size(ctx, output_shape, "output_shape", "dynamic_iota_i1", 0)
    if size is not None and not 0 <= iota_dimension < size:  # dynamic_iota_c1
        raise ctx.error("dynamic_iota_c1", f"iota dimension {iota_dimension} cannot go beyond "
                                           f"the output rank {size}")
    result = _result(ctx, "dynamic_iota_o1")
    if result is not None:
        _check_iota_result(ctx, result, "dynamic_iota_o1")
        if size is not None and result.rank != size:  # dynamic_iota_c2
            raise ctx.error("dynamic_iota_c2", f"result rank {result.rank} does not match "
                                               f"size(output_shape) = {size}")
        if not 0 <= iota_dimension < result.rank:  # dynamic_iota_c1
            raise ctx.error("dynamic_iota_c1", "iota dimension cannot go beyond the output "
                                               f"rank ({iota_dimension} vs {result.rank})")
        # dynamic_iota_c2 (with a constant output_shape)
        _check_shape_values(ctx, "dynamic_iota_c2", _operand_value(ctx, 0), result)
    return None


# --------------------------------------------------------------------------------------
# broadcast_in_dim, dynamic_broadcast_in_dim
# --------------------------------------------------------------------------------------


def _check_broadcast(ctx: ShapeContext, op: str, operand: TensorType, result: TensorType | None,
                     dims: tuple[int, ...]) -> None:
    if len(dims) != operand.rank:  # <op>_c2
        raise ctx.error(f"{op}_c2", f"broadcast_dimensions size ({len(dims)}) does not match "
                                    f"operand rank ({operand.rank})")
    _check_unique(ctx, f"{op}_c4", "broadcast_dimensions", dims)  # <op>_c4
    if result is None:
        return
    if not _same_element_type_modulo_axis(operand.element_type, result.element_type):
        raise ctx.error(f"{op}_c1", f"expects result element type {result.element_type} to "
                                    f"match operand element type {operand.element_type}")
    for d in dims:  # <op>_c3
        if not 0 <= d < result.rank:
            raise ctx.error(f"{op}_c3", f"broadcast_dimensions contains invalid value {d} for "
                                        f"result with rank {result.rank}")
    for d, rd in enumerate(dims):  # <op>_c5
        n = operand.shape[d]
        if n != 1 and not _compatible(n, result.shape[rd]):
            raise ctx.error(f"{op}_c5", f"size of operand dimension {d} ({n}) is not equal to "
                                        f"1 or size of result dimension {rd} "
                                        f"({result.shape[rd]})")
    re = result.element_type
    if isinstance(re, QuantizedType) and re.is_per_axis:  # <op>_c6
        oe = operand.element_type
        if not (isinstance(oe, QuantizedType) and oe.is_per_axis):
            raise ctx.error(f"{op}_c6", "per-axis quantized result needs a per-axis operand")
        qd = oe.quantized_dimension
        if re.quantized_dimension != dims[qd]:
            raise ctx.error(f"{op}_c6", f"result quantization_dimension {re.quantized_dimension}"
                                        f" must be broadcast_dimensions[{qd}] = {dims[qd]}")
        if operand.shape[qd] == 1:
            n = len(re.scales)
            if (re.scales != (oe.scales[0],) * n
                    or re.zero_points != (oe.zero_points[0],) * len(re.zero_points)):
                raise ctx.error(f"{op}_c6", "scales/zero_points of a broadcast quantization "
                                            "dimension must repeat the operand's")


@shape_function("stablehlo.broadcast_in_dim", attrs={"broadcast_dimensions": REQUIRED})
def broadcast_in_dim(ctx: ShapeContext, operand: Type, *, broadcast_dimensions):
    """spec: broadcast_in_dim (verifier: the result type is given)."""
    operand = _tensor(ctx, operand, "operand", "broadcast_in_dim_i1")
    result = _result(ctx, "broadcast_in_dim_o1")
    if result is not None and not result.is_static and result.bounds is None:
        raise ctx.error("broadcast_in_dim_o1", "result must be statically shaped or single "
                                               "bounded dimension tensor")
    _check_broadcast(ctx, "broadcast_in_dim", operand, result, _ints(broadcast_dimensions))
    return None


@shape_function("stablehlo.dynamic_broadcast_in_dim",
                attrs={"broadcast_dimensions": REQUIRED, "known_expanding_dimensions": (),
                       "known_nonexpanding_dimensions": ()})
def dynamic_broadcast_in_dim(ctx: ShapeContext, operand: Type, output_dimensions: Type, *,
                             broadcast_dimensions, known_expanding_dimensions=(),
                             known_nonexpanding_dimensions=()):
    """spec: dynamic_broadcast_in_dim."""
    operand = _tensor(ctx, operand, "operand", "dynamic_broadcast_in_dim_i1")
    size = _one_d_size(ctx, output_dimensions, "output_dimensions",
                       "dynamic_broadcast_in_dim_i2", 1)
    result = _result(ctx, "dynamic_broadcast_in_dim_o1")
    _check_broadcast(ctx, "dynamic_broadcast_in_dim", operand, result,
                     _ints(broadcast_dimensions))
    if result is not None and size is not None and size != result.rank:
        # dynamic_broadcast_in_dim_c7
        raise ctx.error("dynamic_broadcast_in_dim_c7", f"size of output_dimensions ({size}) "
                                                       f"does not match result rank "
                                                       f"({result.rank})")
    shape = _operand_value(ctx, 1)
    dims = _ints(broadcast_dimensions)
    if shape is not None:
        for d, rd in enumerate(dims):  # dynamic_broadcast_in_dim_c5
            n = operand.shape[d]
            if rd < len(shape) and n is not None and n != 1 and n != shape[rd]:
                raise ctx.error("dynamic_broadcast_in_dim_c5",
                                f"size of operand dimension {d} ({n}) is not equal to 1 or "
                                f"value of shape at index {rd} ({shape[rd]})")
        # dynamic_broadcast_in_dim_c7 (with a constant output_dimensions)
        _check_shape_values(ctx, "dynamic_broadcast_in_dim_c7", shape, result)
    expanding = _ints(known_expanding_dimensions)
    nonexpanding = _ints(known_nonexpanding_dimensions)
    # dynamic_broadcast_in_dim_c8
    _check_unique(ctx, "dynamic_broadcast_in_dim_c8",
                  "known_expanding_dimensions + known_nonexpanding_dimensions",
                  expanding + nonexpanding)
    # dynamic_broadcast_in_dim_c9 / _c10
    _check_range(ctx, "dynamic_broadcast_in_dim_c9", "known_expanding_dimensions", expanding,
                 operand.rank, "rank-of('operand')")
    _check_range(ctx, "dynamic_broadcast_in_dim_c10", "known_nonexpanding_dimensions",
                 nonexpanding, operand.rank, "rank-of('operand')")
    return None


@shape_function("stablehlo.broadcast", attrs={"broadcast_sizes": REQUIRED})
def broadcast(ctx: ShapeContext, operand: Type, *, broadcast_sizes):
    """Deprecated StableHLO op (not in the spec): shape(result) = broadcast_sizes ++
    shape(operand)."""
    t = _tensor(ctx, operand, "operand", "broadcast_i1")
    sizes = _ints(broadcast_sizes)
    if any(n < 0 for n in sizes):
        raise ctx.error("broadcast_c1", f"broadcast_sizes must be non-negative, got "
                                        f"{list(sizes)}")
    return TensorType(sizes + tuple(t.shape), t.element_type)


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
        raise ctx.error(f"{op}_c1", f"expects result element type {result.element_type} to "
                                    f"match operand element type {operand.element_type}")
    a, b = _num_elements(operand.shape), _num_elements(result.shape)
    if a is not None and b is not None and a != b:  # <op>_c2
        raise ctx.error(f"{op}_c2", f"number of output elements ({b}) doesn't match expected "
                                    f"number of elements ({a})")
    oe, re = operand.element_type, result.element_type
    if isinstance(oe, QuantizedType) and oe.is_per_axis:  # <op>_c3
        if not (isinstance(re, QuantizedType) and re.is_per_axis):
            raise ctx.error(f"{op}_c3", "expects a per-axis quantized result")
        qo, qr = oe.quantized_dimension, re.quantized_dimension
        checks = [
            (_num_elements(operand.shape[:qo]), _num_elements(result.shape[:qr])),
            (operand.shape[qo], result.shape[qr]),
            (_num_elements(operand.shape[qo + 1:]), _num_elements(result.shape[qr + 1:])),
        ]
        if any(not _compatible(x, y) for x, y in checks):
            raise ctx.error(f"{op}_c3", "reshape must keep the quantization dimension and the "
                                        "products of the dimensions before and after it")


@shape_function("stablehlo.reshape")
def reshape(ctx: ShapeContext, operand: Type):
    """spec: reshape (verifier: the result type is given)."""
    operand = _tensor(ctx, operand, "operand", "reshape_i1")
    result = _result(ctx, "reshape_o1")
    if result is not None:
        _check_reshape(ctx, "reshape", operand, result)
    return None


@shape_function("stablehlo.dynamic_reshape")
def dynamic_reshape(ctx: ShapeContext, operand: Type, output_shape: Type):
    """spec: dynamic_reshape."""
    operand = _tensor(ctx, operand, "operand", "dynamic_reshape_i1")
    size = _one_d_size(ctx, output_shape, "output_shape", "dynamic_reshape_i2", 1)
    shape = _operand_value(ctx, 1)
    n = _num_elements(operand.shape)
    if shape is not None and n is not None and all(d >= 0 for d in shape) \
            and _num_elements(shape) != n:  # dynamic_reshape_c2
        raise ctx.error("dynamic_reshape_c2", f"output_shape is incompatible with input type "
                                              f"of operation: input has {n} elements, but "
                                              f"output_shape has {_num_elements(shape)}")
    result = _result(ctx, "dynamic_reshape_o1")
    if result is not None:
        _check_reshape(ctx, "dynamic_reshape", operand, result)
        if size is not None and size != result.rank:  # dynamic_reshape_c4
            raise ctx.error("dynamic_reshape_c4", f"output_shape size ({size}) does not match "
                                                  f"result rank ({result.rank})")
        _check_shape_values(ctx, "dynamic_reshape_c4", shape, result)  # dynamic_reshape_c4
    return None


@shape_function("stablehlo.transpose", attrs={"permutation": REQUIRED})
def transpose(ctx: ShapeContext, operand: Type, *, permutation):
    """spec: transpose: shape(result) = dim(operand, permutation...)."""
    operand = _tensor(ctx, operand, "operand", "transpose_i1")
    declared = _result(ctx, "transpose_o1")
    if declared is not None and not _same_element_type_modulo_axis(
            operand.element_type, declared.element_type):  # transpose_c1
        raise ctx.error("transpose_c1", f"expects result element type {declared.element_type} "
                                        f"to match operand element type {operand.element_type}")
    perm = _ints(permutation)
    if sorted(perm) != list(range(operand.rank)):  # transpose_c2
        raise ctx.error("transpose_c2", f"permutation must be a permutation of "
                                        f"{list(range(operand.rank))} but got {list(perm)}")
    shape = tuple(operand.shape[p] for p in perm)  # transpose_c3
    element = operand.element_type
    if isinstance(element, QuantizedType) and element.is_per_axis:  # transpose_c4
        qd = perm.index(element.quantized_dimension)
        if declared is not None and isinstance(declared.element_type, QuantizedType):
            re = declared.element_type
            if re.quantized_dimension is not None and perm[re.quantized_dimension] != \
                    element.quantized_dimension:
                raise ctx.error("transpose_c4", "quantization_dimension(operand) must be "
                                                "permutation[quantization_dimension(result)]")
        element = replace(element, quantized_dimension=qd)
    bounds = _bounds(operand)
    return _tensor_with_bounds(shape, element, [bounds[p] for p in perm])


@shape_function("stablehlo.reverse", attrs={"dimensions": REQUIRED})
def reverse(ctx: ShapeContext, operand: Type, *, dimensions):
    """spec: reverse: type(result) = type(operand)."""
    t = _tensor(ctx, operand, "operand", "reverse_i1")
    dims = _ints(dimensions)
    _check_unique(ctx, "reverse_c2", "dimensions", dims)  # reverse_c2
    _check_range(ctx, "reverse_c3", "dimensions", dims, t.rank, "rank-of('result')")  # c3
    return operand


@shape_function("stablehlo.get_dimension_size", attrs={"dimension": REQUIRED})
def get_dimension_size(ctx: ShapeContext, operand: Type, *, dimension: int):
    """spec: get_dimension_size: result is tensor<i32>."""
    t = _tensor(ctx, operand, "operand", "get_dimension_size_i1")
    if not 0 <= dimension < t.rank:  # get_dimension_size_c1
        raise ctx.error("get_dimension_size_c1", f"requires dimension attribute in range "
                                                 f"[0, {t.rank}); found ({dimension})")
    return TensorType((), IntegerType(32))


@shape_function("stablehlo.set_dimension_size", attrs={"dimension": REQUIRED})
def set_dimension_size(ctx: ShapeContext, operand: Type, size: Type, *, dimension: int):
    """set_dimension_size (not in the spec; the StableHLO dialect's rule, from XLA): a
    0-d integer ``size``; the result has dimension ``dimension`` = the constant size, or
    else dynamic with the operand's size (or bound) as its bound."""
    t = _tensor(ctx, operand, "operand", "set_dimension_size_i1")
    s = _tensor(ctx, size, "size", "set_dimension_size_i2")
    if s.rank != 0:
        raise ctx.error("set_dimension_size_i2", "size operand should be of rank-0")
    if dimension < 0:
        raise ctx.error("set_dimension_size_c1", "attribute 'dimension' failed to satisfy "
                        "constraint: 64-bit signless integer attribute whose value is "
                        "non-negative")
    if dimension >= t.rank:
        raise ctx.error("set_dimension_size_c1", f"requires dimension attribute in range "
                                                 f"[0, {t.rank}); found ({dimension})")
    shape = list(t.shape)
    bounds = list(t.bounds or (None,) * t.rank)
    value = _operand_value(ctx, 1)
    if value is not None and len(value) == 1:
        shape[dimension], bounds[dimension] = value[0], None
    else:
        if shape[dimension] is not None:
            bounds[dimension] = shape[dimension]
        shape[dimension] = None
    encoding = TypeExtensions(tuple(bounds)) if any(b is not None for b in bounds) else None
    return TensorType(tuple(shape), t.element_type, encoding)


# --------------------------------------------------------------------------------------
# slice, dynamic_slice, dynamic_update_slice, real_dynamic_slice
# --------------------------------------------------------------------------------------


@shape_function("stablehlo.slice",
                attrs={"start_indices": REQUIRED, "limit_indices": REQUIRED,
                       "strides": REQUIRED})
def slice_(ctx: ShapeContext, operand: Type, *, start_indices, limit_indices, strides):
    """spec: slice: shape(result) = ceil((limit_indices - start_indices) / strides)."""
    t = _tensor(ctx, operand, "operand", "slice_i1")
    if _per_axis(t):
        raise ctx.error("slice_i1", "expects a tensor or per-tensor quantized tensor")
    starts, limits, steps = _ints(start_indices), _ints(limit_indices), _ints(strides)
    if not len(starts) == len(limits) == len(steps) == t.rank:  # slice_c2
        raise ctx.error("slice_c2", f"the number of elements in start_indices "
                                    f"({len(starts)}), limit_indices ({len(limits)}) and "
                                    f"strides ({len(steps)}) must equal the operand rank "
                                    f"({t.rank})")
    shape = []
    for d, (s, l, st) in enumerate(zip(starts, limits, steps)):
        n = t.shape[d]
        if s < 0:  # slice_c3
            raise ctx.error("slice_c3", f"negative start index {s} in dimension {d}")
        if s > l:  # slice_c3
            raise ctx.error("slice_c3", f"start index {s} is larger than limit index {l} in "
                                        f"dimension {d}")
        if n is not None and l > n:  # slice_c3
            raise ctx.error("slice_c3", f"limit index {l} is larger than dimension size {n} "
                                        f"in dimension {d}")
        bound = _bounds(t)[d]
        if n is None and bound is not None and l > bound:  # slice_c3 (bounded dimension)
            raise ctx.error("slice_c3", f"limit index {l} is larger than dimension bound "
                                        f"{bound} in dimension {d}")
        if st <= 0:  # slice_c4
            raise ctx.error("slice_c4", f"stride must be positive but got {st} in dimension {d}")
        shape.append(-(-(l - s) // st))  # slice_c5
    return TensorType(tuple(shape), t.element_type)


def _check_start_indices(ctx: ShapeContext, starts: Sequence[Type], rank: int,
                         type_label: str, rank_label: str, same_label: str) -> None:
    if len(starts) != rank:
        raise ctx.error(rank_label, f"has {len(starts)} start indices for an operand of rank "
                                    f"{rank}")
    for s in starts:
        if not (isinstance(s, TensorType) and s.shape == () and _is_integer_tensor(s)):
            raise ctx.error(type_label, "start indices must be 0-dimensional integer tensors, got "
                                        f"{type_text(s)}")
    if len(set(starts)) > 1:  # <op>_c3 / _c5: same(type(start_indices...))
        raise ctx.error(same_label, "start indices must all have the same type")


@shape_function("stablehlo.dynamic_slice", attrs={"slice_sizes": REQUIRED})
def dynamic_slice(ctx: ShapeContext, operand: Type, *start_indices: Type, slice_sizes):
    """spec: dynamic_slice: shape(result) = slice_sizes."""
    t = _tensor(ctx, operand, "operand", "dynamic_slice_i1")
    sizes = _ints(slice_sizes)
    if len(sizes) != t.rank:  # dynamic_slice_c2
        raise ctx.error("dynamic_slice_c2", f"has mismatched number of slice sizes "
                                            f"({len(sizes)}) and operand rank ({t.rank})")
    # dynamic_slice_c2, dynamic_slice_c3
    _check_start_indices(ctx, start_indices, t.rank, "dynamic_slice_i2", "dynamic_slice_c2",
                         "dynamic_slice_c3")
    for d, (k, n) in enumerate(zip(sizes, t.shape)):  # dynamic_slice_c4
        if k < 0:
            raise ctx.error("dynamic_slice_c4", f"has negative size index to dynamic slice: {k}")
        if n is not None and k > n:
            raise ctx.error("dynamic_slice_c4", f"has slice size {k} greater than dimension "
                                                f"size {n} in dimension {d} of operand")
    return TensorType(sizes, t.element_type)  # dynamic_slice_c1, dynamic_slice_c5


@shape_function("stablehlo.dynamic_update_slice")
def dynamic_update_slice(ctx: ShapeContext, operand: Type, update: Type, *start_indices: Type):
    """spec: dynamic_update_slice: type(result) = type(operand)."""
    t = _tensor(ctx, operand, "operand", "dynamic_update_slice_i1")
    u = _tensor(ctx, update, "update", "dynamic_update_slice_i2")
    if u.element_type != t.element_type:  # dynamic_update_slice_c2
        raise ctx.error("dynamic_update_slice_c2", f"update element type {u.element_type} does "
                                                   f"not match operand {t.element_type}")
    if u.rank != t.rank:  # dynamic_update_slice_c3
        raise ctx.error("dynamic_update_slice_c3", f"update rank does not match operand rank: "
                                                   f"{u.rank} vs {t.rank}.")
    # dynamic_update_slice_c4, dynamic_update_slice_c5
    _check_start_indices(ctx, start_indices, t.rank, "dynamic_update_slice_i3",
                         "dynamic_update_slice_c4", "dynamic_update_slice_c5")
    for d, (k, n) in enumerate(zip(u.shape, t.shape)):  # dynamic_update_slice_c6
        if k is not None and n is not None and k > n:
            raise ctx.error("dynamic_update_slice_c6", f"expects size at dimension {d} of "
                                                       f"update to be in range [0, {n}]. Got: "
                                                       f"{k}.")
    return operand  # dynamic_update_slice_c1


@shape_function("stablehlo.real_dynamic_slice")
def real_dynamic_slice(ctx: ShapeContext, operand: Type, start_indices: Type,
                       limit_indices: Type, strides: Type):
    """StableHLO dialect op (not in the spec): slice with index lists as 1-d operands."""
    t = _tensor(ctx, operand, "operand", "real_dynamic_slice_i1")
    sizes = [_one_d_size(ctx, x, name, "real_dynamic_slice_c1") for x, name in
             ((start_indices, "start_indices"), (limit_indices, "limit_indices"),
              (strides, "strides"))]
    for s in sizes:
        if s is not None and s != t.rank:
            raise ctx.error("real_dynamic_slice_c1", f"start_indices, limit_indices and strides "
                                                     f"must have {t.rank} elements, got {s}")
    result = _result(ctx, "real_dynamic_slice_o1")
    if result is not None:
        if result.rank != t.rank or result.element_type != t.element_type:
            raise ctx.error("real_dynamic_slice_c2", "result must have the operand's rank and "
                                                     "element type")
    return None


# --------------------------------------------------------------------------------------
# concatenate, pad, dynamic_pad
# --------------------------------------------------------------------------------------


@shape_function("stablehlo.concatenate", attrs={"dimension": REQUIRED})
def concatenate(ctx: ShapeContext, *inputs: Type, dimension: int):
    """spec: concatenate."""
    if not inputs:  # concatenate_c3
        raise ctx.error("concatenate_c3", "expects at least one input")
    ts = [_tensor(ctx, x, f"input {i}", "concatenate_i1") for i, x in enumerate(inputs)]
    first = ts[0]
    for t in ts:
        if _per_axis(t):
            raise ctx.error("concatenate_i1", "expects tensors or per-tensor quantized tensors")
    if any(t.element_type != first.element_type for t in ts):  # concatenate_c1
        raise ctx.error("concatenate_c1", "expects all inputs to have the same element type")
    if first.rank == 0:
        raise ctx.error("concatenate_c4", "rank-0 values cannot be concatenated")
    if not 0 <= dimension < first.rank:  # concatenate_c4
        raise ctx.error("concatenate_c4", f"dimension {dimension} is out-of-bounds for input "
                                          f"rank {first.rank}")
    shape: list[int | None] = list(first.shape)
    bounds: list[int | None] = list(_bounds(first))
    for i, t in enumerate(ts[1:], 1):
        if t.rank != first.rank:  # concatenate_c2
            raise ctx.error("concatenate_c2", f"operands (0) and ({i}) do not match rank")
        for d in range(first.rank):
            if d == dimension:
                continue
            if not _compatible(shape[d], t.shape[d]):  # concatenate_c2
                raise ctx.error("concatenate_c2", f"shapes of operand (0) and ({i}) are not "
                                                  f"compatible at non-concat index {d}: "
                                                  f"{_fmt(first.shape)} != {_fmt(t.shape)}")
            shape[d], bounds[d] = _most_specific(shape[d], t.shape[d], bounds[d],
                                                 _bounds(t)[d])
    # concatenate_c6: the sizes add up; a dynamic size makes the result dynamic, bounded
    # by the sum of sizes-or-bounds when every input has one.
    sizes = [t.shape[dimension] if t.shape[dimension] is not None else _bounds(t)[dimension]
             for t in ts]
    dims = [t.shape[dimension] for t in ts]
    shape[dimension] = None if None in dims else sum(dims)
    bounds[dimension] = sum(sizes) if None in dims and None not in sizes else None
    return _tensor_with_bounds(shape, first.element_type, bounds)  # concatenate_c5


def _most_specific(a: int | None, b: int | None, abound: int | None,
                   bbound: int | None) -> tuple[int | None, int | None]:
    """Of two compatible dimensions, the most specific: a static size if either has
    one, else dynamic with the smaller bound."""
    if a is not None or b is not None:
        return (a if a is not None else b), None
    if abound is None or bbound is None:
        return None, abound if bbound is None else bbound
    return None, min(abound, bbound)


def _check_pad_elements(ctx: ShapeContext, op: str, t: TensorType, pv: Type) -> None:
    pv = _tensor(ctx, pv, "padding_value", f"{op}_i2")
    if pv.rank != 0:
        raise ctx.error(f"{op}_i2", f"padding_value must be 0-dimensional, got {pv}")
    if pv.element_type != t.element_type:  # <op>_c1
        raise ctx.error(f"{op}_c1", f"padding_value element type {pv.element_type} does not "
                                    f"match operand element type {t.element_type}")
    if _per_axis(t):
        raise ctx.error(f"{op}_i1", "expects a tensor or per-tensor quantized tensor")


@shape_function("stablehlo.pad", attrs={"edge_padding_low": REQUIRED,
                                        "edge_padding_high": REQUIRED,
                                        "interior_padding": REQUIRED})
def pad(ctx: ShapeContext, operand: Type, padding_value: Type, *, edge_padding_low,
        edge_padding_high, interior_padding):
    """spec: pad: shape(result) = shape(operand) + low + max(shape - 1, 0) * interior + high."""
    t = _tensor(ctx, operand, "operand", "pad_i1")
    _check_pad_elements(ctx, "pad", t, padding_value)  # pad_c1
    low, high, interior = (_ints(edge_padding_low), _ints(edge_padding_high),
                           _ints(interior_padding))
    for name, v in (("edge_padding_low", low), ("edge_padding_high", high),
                    ("interior_padding", interior)):
        if len(v) != t.rank:  # pad_c2
            raise ctx.error("pad_c2", f"{name} length ({len(v)}) must match operand rank "
                                      f"({t.rank})")
    shape: list[int | None] = []
    bounds: list[int | None] = []
    for d, (n, b, lo, hi, it) in enumerate(zip(t.shape, _bounds(t), low, high, interior)):
        if it < 0:  # pad_c3
            raise ctx.error("pad_c3", f"Interior padding cannot be negative: {it}")
        if n is None:
            shape.append(None)
            bound = None if b is None else b + lo + max(b - 1, 0) * it + hi
            if bound is not None and bound < 0:  # pad_c4 (bounded dimension)
                raise ctx.error("pad_c4", f"Padding result in negative bound for dimension {d}")
            bounds.append(bound)
            continue
        size = n + lo + max(n - 1, 0) * it + hi  # pad_c4
        if size < 0:  # pad_c4
            raise ctx.error("pad_c4", f"Padding result in negative size for dimension {d}")
        shape.append(size)
        bounds.append(None)
    return _tensor_with_bounds(shape, t.element_type, bounds)


@shape_function("stablehlo.dynamic_pad")
def dynamic_pad(ctx: ShapeContext, operand: Type, padding_value: Type, edge_padding_low: Type,
                edge_padding_high: Type, interior_padding: Type):
    """spec: dynamic_pad."""
    t = _tensor(ctx, operand, "operand", "dynamic_pad_i1")
    _check_pad_elements(ctx, "dynamic_pad", t, padding_value)  # dynamic_pad_c1
    for x, name, label in ((edge_padding_low, "edge_padding_low", "dynamic_pad_i3"),
                           (edge_padding_high, "edge_padding_high", "dynamic_pad_i4"),
                           (interior_padding, "interior_padding", "dynamic_pad_i5")):
        size = _one_d_size(ctx, x, name, label, 2)
        if size is not None and size != t.rank:  # dynamic_pad_c2
            raise ctx.error("dynamic_pad_c2", f"padding operands size ({size}) must match "
                                              f"operand rank ({t.rank})")
    result = _result(ctx, "dynamic_pad_o1")
    if result is not None:
        if result.rank != t.rank:  # dynamic_pad_c4
            raise ctx.error("dynamic_pad_c4", f"result rank {result.rank} does not match "
                                              f"operand rank {t.rank}")
        if result.element_type != t.element_type:  # dynamic_pad_c1
            raise ctx.error("dynamic_pad_c1", "result element type does not match the operand's")
    low, high, interior = (_operand_value(ctx, i) for i in (2, 3, 4))
    for it in interior or ():
        if it < 0:  # dynamic_pad_c3
            raise ctx.error("dynamic_pad_c3", f"interior_padding must be non-negative, but got "
                                              f"{it}")
    if result is not None and None not in (low, high, interior):
        for d, (n, lo, hi, it, r) in enumerate(zip(t.shape, low, high, interior, result.shape)):
            if n is None or r is None:
                continue
            want = n + lo + max(n - 1, 0) * it + hi
            if want != r:  # dynamic_pad_c4
                raise ctx.error("dynamic_pad_c4", f"expected output dimension at index {d} to "
                                                  f"equal {want}, but got {r}")
    return None


# --------------------------------------------------------------------------------------
# gather, dynamic_gather
# --------------------------------------------------------------------------------------

_GATHER_ATTRS = {
    "dimension_numbers": REQUIRED,
    "offset_dims": (),
    "collapsed_slice_dims": (),
    "operand_batching_dims": (),
    "start_indices_batching_dims": (),
    "start_index_map": (),
    "index_vector_dim": 0,
    "indices_are_sorted": False,
}


def _check_index_vector(ctx: ShapeContext, op: str, idx: TensorType, index_vector_dim: int,
                        index_map: tuple[int, ...], c_ivd: str, c_map: str,
                        map_name: str) -> None:
    if not 0 <= index_vector_dim <= idx.rank:  # <op>_c2 / c22
        raise ctx.error(c_ivd, f"Expects index_vector_dim to be in range [0, rank-of("
                               f"'start_indices')] i.e. [0, {idx.rank}]. got: "
                               f"{index_vector_dim}.")
    n = idx.shape[index_vector_dim] if index_vector_dim < idx.rank else 1
    if n is not None and len(index_map) != n:  # <op>_c3 / c19
        raise ctx.error(c_map, f"{map_name} size ({len(index_map)}) is not equal to size of "
                               f"index dimension ({index_vector_dim}) of start_indices ({n})")


def _check_batching(ctx: ShapeContext, op: str, operand: TensorType, idx: TensorType,
                    operand_batching: tuple[int, ...], idx_batching: tuple[int, ...],
                    index_vector_dim: int, labels: dict[str, str], names: tuple[str, str]):
    ob, ib = names
    _check_unique(ctx, labels["unique"], ib, idx_batching)
    _check_range(ctx, labels["range"], ib, idx_batching, idx.rank, "rank-of('start_indices')")
    if index_vector_dim in idx_batching:
        raise ctx.error(labels["ivd"], f"expects {ib} not to include index_vector_dim "
                                       f"{index_vector_dim}")
    if len(operand_batching) != len(idx_batching):
        raise ctx.error(labels["size"], f"{ob} and {ib} should have the same size")
    for i, (a, b) in enumerate(zip(operand_batching, idx_batching)):
        if not _compatible(operand.shape[a], idx.shape[b]):
            raise ctx.error(labels["dims"], f"{ob}[{i}] and {ib}[{i}] must have compatible "
                                            f"sizes, but got {operand.shape[a]} and "
                                            f"{idx.shape[b]}")


def _gather_common(ctx: ShapeContext, op: str, operand: TensorType, idx: TensorType,
                   dn: dict[str, Any], slice_sizes: tuple[int, ...] | None,
                   result_rank: int) -> None:
    """Every statically checkable gather constraint (dynamic_gather: those without the
    slice sizes, which are a runtime value there)."""
    gather = op == "gather"
    lab = (lambda n: f"gather_c{n}") if gather else (lambda n: f"dynamic_gather_c{n}")
    offset = dn["offset_dims"]
    collapsed = dn["collapsed_slice_dims"]
    obatch = dn["operand_batching_dims"]
    ibatch = dn["start_indices_batching_dims"]
    smap = dn["start_index_map"]
    ivd = dn["index_vector_dim"]
    if not _is_integer_tensor(idx):
        raise ctx.error(f"{op}_i2", f"start_indices must be an integer tensor, got {idx}")
    if _per_axis(operand):
        raise ctx.error(f"{op}_i1", "expects a tensor or per-tensor quantized tensor")
    if len(offset) + len(collapsed) + len(obatch) != operand.rank:  # gather_c1
        raise ctx.error(lab(1), f"offset_dims size ({len(offset)}) plus collapse_slice_dims "
                                f"size ({len(collapsed)}) plus operand_batching_dims size "
                                f"({len(obatch)}) is not equal to operand rank "
                                f"({operand.rank})")
    _check_index_vector(ctx, op, idx, ivd, smap, lab(2), lab(3), "start_index_map")  # c2, c3
    _check_sorted(ctx, lab(4), "offset_dims", offset)  # gather_c4
    _check_unique(ctx, lab(4), "offset_dims", offset)  # gather_c4
    _check_range(ctx, lab(5), "offset_dims", offset, result_rank,  # gather_c5
                 "implied-result-rank")
    if gather:
        both = collapsed + obatch
        for d in both:  # gather_c6
            if both.count(d) > 1:
                raise ctx.error(lab(6), f"has duplicated dimension from collapsed_slice_dims "
                                        f"and operand_batching_dims: {d}")
        _check_sorted(ctx, lab(7), "collapsed_slice_dims", collapsed)  # gather_c7
        _check_range(ctx, lab(8), "collapsed_slice_dims", collapsed, operand.rank,  # c8
                     "rank-of('operand')")
        _check_sorted(ctx, lab(10), "operand_batching_dims", obatch)  # gather_c10
        _check_range(ctx, lab(11), "operand_batching_dims", obatch, operand.rank,  # c11
                     "rank-of('operand')")
        # gather_c13 .. gather_c17
        _check_batching(ctx, op, operand, idx, obatch, ibatch, ivd,
                        {"unique": lab(13), "range": lab(14), "ivd": lab(15), "size": lab(16),
                         "dims": lab(17)},
                        ("operand_batching_dims", "start_indices_batching_dims"))
        both = smap + obatch
        for d in both:  # gather_c18
            if both.count(d) > 1:
                raise ctx.error(lab(18), f"has duplicated dimension from start_index_map and "
                                         f"operand_batching_dims: {d}")
        _check_range(ctx, lab(19), "start_index_map", smap, operand.rank,  # gather_c19
                     "rank-of('operand')")
    else:
        _check_unique(ctx, lab(6), "collapsed_slice_dims", collapsed)  # dynamic_gather_c6
        _check_sorted(ctx, lab(6), "collapsed_slice_dims", collapsed)  # dynamic_gather_c6
        _check_range(ctx, lab(7), "collapsed_slice_dims", collapsed, operand.rank,  # c7
                     "rank-of('operand')")
        _check_unique(ctx, lab(9), "start_index_map", smap)  # dynamic_gather_c9
        _check_range(ctx, lab(10), "start_index_map", smap, operand.rank,  # c10
                     "rank-of('operand')")
        if obatch or ibatch:
            _check_batching(ctx, op, operand, idx, obatch, ibatch, ivd,
                            {k: lab(1) for k in ("unique", "range", "ivd", "size", "dims")},
                            ("operand_batching_dims", "start_indices_batching_dims"))
    if slice_sizes is None:
        return
    if len(slice_sizes) != operand.rank:  # gather_c20
        raise ctx.error(lab(20), f"slice_sizes size ({len(slice_sizes)}) not equal to operand "
                                 f"rank ({operand.rank})")
    for i, (k, n) in enumerate(zip(slice_sizes, operand.shape)):  # gather_c21
        if k < 0 or (n is not None and k > n):
            raise ctx.error(lab(21), f"slice size ({k}) is out of bounds for operand "
                                     f"dimension ({n}) at index {i}")
    for d in collapsed:  # gather_c9
        if slice_sizes[d] > 1:
            raise ctx.error(lab(9), f"Expects that for each dim in collapsed_slice_dims, "
                                    f"slice_sizes[dim] should be <= 1, but got "
                                    f"{slice_sizes[d]}")
    for d in obatch:  # gather_c12
        if slice_sizes[d] > 1:
            raise ctx.error(lab(12), f"Expects that for each dim in operand_batching_dims, "
                                     f"slice_sizes[dim] should be <= 1, but got "
                                     f"{slice_sizes[d]}")


def _gather_dn(attrs: dict[str, Any]) -> dict[str, Any]:
    dn = {k: _ints(attrs[k]) for k in ("offset_dims", "collapsed_slice_dims",
                                       "operand_batching_dims", "start_indices_batching_dims",
                                       "start_index_map")}
    dn["index_vector_dim"] = int(attrs["index_vector_dim"])
    return dn


def _gather_batch_shape(idx: TensorType, ivd: int) -> tuple[int | None, ...]:
    return tuple(n for d, n in enumerate(idx.shape) if d != ivd)


def _gather_result(t: TensorType, idx: TensorType, dn: dict[str, Any],
                   sizes: Sequence[int]) -> TensorType:
    """gather_c22, gather_c23: batch dimensions (with their bounds) from start_indices,
    offset dimensions from slice_sizes."""
    ivd = dn["index_vector_dim"]
    batch = [(n, b) for d, (n, b) in enumerate(zip(idx.shape, _bounds(idx))) if d != ivd]
    dropped = set(dn["collapsed_slice_dims"]) | set(dn["operand_batching_dims"])
    window = [(sizes[d], None) for d in range(t.rank) if d not in dropped]
    dims: list[tuple[int | None, int | None]] = []
    bi, wi = iter(batch), iter(window)
    for r in range(len(batch) + len(dn["offset_dims"])):
        dims.append(next(wi) if r in dn["offset_dims"] else next(bi))
    return _tensor_with_bounds([d for d, _ in dims], t.element_type, [b for _, b in dims])


@shape_function("stablehlo.gather", attrs={**_GATHER_ATTRS, "slice_sizes": REQUIRED})
def gather(ctx: ShapeContext, operand: Type, start_indices: Type, *, slice_sizes,
           **attrs: Any):
    """spec: gather: shape(result) = combine(batch_dim_sizes, offset_dim_sizes)."""
    t = _tensor(ctx, operand, "operand", "gather_i1")
    idx = _tensor(ctx, start_indices, "start_indices", "gather_i2")
    dn = _gather_dn(attrs)
    sizes = _ints(slice_sizes)
    batch = _gather_batch_shape(idx, dn["index_vector_dim"])
    result_rank = len(batch) + len(dn["offset_dims"])
    _gather_common(ctx, "gather", t, idx, dn, sizes, result_rank)
    return _gather_result(t, idx, dn, sizes)  # gather_c22, gather_c23


@shape_function("stablehlo.dynamic_gather", attrs=dict(_GATHER_ATTRS))
def dynamic_gather(ctx: ShapeContext, operand: Type, start_indices: Type, slice_sizes: Type,
                   **attrs: Any):
    """spec: dynamic_gather (slice sizes are a runtime value: the result type is given)."""
    t = _tensor(ctx, operand, "operand", "dynamic_gather_i1")
    idx = _tensor(ctx, start_indices, "start_indices", "dynamic_gather_i2")
    n = _one_d_size(ctx, slice_sizes, "slice_sizes", "dynamic_gather_i3")
    if n is not None and n != t.rank:  # dynamic_gather_c11
        raise ctx.error("dynamic_gather_c11", f"slice_sizes size ({n}) not equal to operand "
                                              f"rank ({t.rank})")
    dn = _gather_dn(attrs)
    batch = _gather_batch_shape(idx, dn["index_vector_dim"])
    result_rank = len(batch) + len(dn["offset_dims"])
    _gather_common(ctx, "dynamic_gather", t, idx, dn, None, result_rank)
    sizes = _operand_value(ctx, 2)
    if sizes is not None and len(sizes) == t.rank:
        for d in dn["collapsed_slice_dims"]:  # dynamic_gather_c8
            if sizes[d] > 1:
                raise ctx.error("dynamic_gather_c8", f"Expects that for each dim in "
                                                     f"collapsed_slice_dims, slice_sizes[dim] "
                                                     f"should be <= 1, but got {sizes[d]}")
        for d in dn["operand_batching_dims"]:  # as gather_c12 (dialect batching dims)
            if 0 <= d < t.rank and sizes[d] > 1:
                raise ctx.error("dynamic_gather_c8", f"Expects that for each dim in "
                                                     f"operand_batching_dims, slice_sizes[dim] "
                                                     f"should be <= 1, but got {sizes[d]}")
        for i, (k, n) in enumerate(zip(sizes, t.shape)):  # dynamic_gather_c12
            if k < 0 or (n is not None and k > n):
                raise ctx.error("dynamic_gather_c12", f"slice size ({k}) is out of bounds for "
                                                      f"operand dimension ({n}) at index {i}")
    result = _result(ctx, "dynamic_gather_o1")
    if result is not None:
        if result.rank != result_rank:  # dynamic_gather_c13
            raise ctx.error("dynamic_gather_c13", f"result rank {result.rank} does not match "
                                                  f"the implied rank {result_rank}")
        b = iter(batch)
        for r in range(result_rank):  # dynamic_gather_c13
            if r not in dn["offset_dims"] and not _compatible(next(b), result.shape[r]):
                raise ctx.error("dynamic_gather_c13", f"result dimension {r} does not match "
                                                      f"the start_indices batch dimension")
        if result.element_type != t.element_type:  # dynamic_gather_c14
            raise ctx.error("dynamic_gather_c14", "result element type does not match the "
                                                  "operand's")
    if sizes is not None and len(sizes) == t.rank:  # constant slice_sizes: as gather
        return _gather_result(t, idx, dn, sizes)
    return None


# --------------------------------------------------------------------------------------
# scatter
# --------------------------------------------------------------------------------------


def _float_width(t: FloatType) -> int:
    if t.name in ("f64",):
        return 64
    if t.name in ("f32", "tf32"):
        return 32
    if t.name in ("f16", "bf16"):
        return 16
    return 8


def is_promotable(a: Type, b: Type) -> bool:
    """spec: is_promotable(x, y): y can hold every value of x (same kind, no narrowing)."""
    if a == b:
        return True
    if isinstance(a, IntegerType) and isinstance(b, IntegerType):
        if a.is_bool or b.is_bool:
            return False
        return a.signedness == b.signedness and b.width >= a.width
    if isinstance(a, FloatType) and isinstance(b, FloatType):
        return _float_width(b) >= _float_width(a)
    if isinstance(a, QuantizedType) and isinstance(b, QuantizedType):
        return (is_promotable(a.storage_type, b.storage_type)
                and a.expressed_type == b.expressed_type
                and a.scales == b.scales and a.zero_points == b.zero_points
                and a.quantized_dimension == b.quantized_dimension)
    return False


def _check_scatter_region(ctx: ShapeContext, inputs: Sequence[TensorType]) -> list[Type]:
    """scatter_c23: update_computation has type (tensor<E0>, ..., tensor<E0>, ...) ->
    (tensor<E0>, ...) with is_promotable(element_type(inputs[i]), Ei).  Returns the Ei."""
    elements = [t.element_type for t in inputs]
    if not ctx.regions:
        return elements
    region = ctx.regions[0]
    if not region.blocks:
        raise ctx.error("scatter_c23", "update_computation must have a body")
    block = region.blocks[0]
    n = len(inputs)
    args = block.arguments
    if len(args) != 2 * n:
        raise ctx.error("scatter_c23", f"Reduction-region must take {2 * n} parameters, but "
                                       f"takes {len(args)} parameter(s)")
    ret = block.operations[-1] if block.operations else None
    if ret is None or not ret.name.endswith("return"):
        raise ctx.error("scatter_c23", "The reduction-region expected to return some value(s)")
    rtypes = [v.type for v in ret.operands]
    if len(rtypes) != n:
        raise ctx.error("scatter_c23", f"Reduction-region here must produce {n} tensors, but "
                                       f"produces {len(rtypes)} instead")
    out: list[Type] = []
    for i, rt in enumerate(rtypes):
        if not isinstance(rt, TensorType) or rt.shape != ():
            raise ctx.error("scatter_c23", f"Reduction-region here must produce 0-d tensor "
                                           f"results, but produces '{rt}' instead")
        for j in (i, i + n):
            if args[j].type != rt:
                raise ctx.error("scatter_c23", f"The type of reduction-region's parameter at "
                                               f"index {j} is different than the "
                                               f"corresponding result type: '{args[j].type}' "
                                               f"vs '{rt}'")
        if not is_promotable(elements[i], rt.element_type):
            raise ctx.error("scatter_c23", f"The element-type of reduction-region's result type "
                                           f"at index {i} is expected to be promotable from "
                                           f"the op's corresponding input element-type: "
                                           f"'{rt}' vs '{elements[i]}'")
        out.append(rt.element_type)
    return out


@shape_function(
    "stablehlo.scatter",
    attrs={"scatter_dimension_numbers": REQUIRED, "update_window_dims": (),
           "inserted_window_dims": (), "input_batching_dims": (),
           "scatter_indices_batching_dims": (), "scatter_dims_to_operand_dims": (),
           "index_vector_dim": 0, "indices_are_sorted": False, "unique_indices": False},
    regions=("update_computation",),
    multi_result=True,
)
def scatter(ctx: ShapeContext, *operands: Type, **attrs: Any):
    """spec: scatter: results have the inputs' shapes and the region's element types."""
    if len(operands) < 3 or len(operands) % 2 != 1:  # scatter_c5
        raise ctx.error("scatter_c5", "expects N inputs, scatter_indices and N updates, N > 0")
    n = len(operands) // 2
    inputs = [_tensor(ctx, x, f"input {i}", "scatter_i1") for i, x in enumerate(operands[:n])]
    idx = _tensor(ctx, operands[n], "scatter_indices", "scatter_i2")
    updates = [_tensor(ctx, x, f"update {i}", "scatter_i3")
               for i, x in enumerate(operands[n + 1:])]
    uwd = _ints(attrs["update_window_dims"])
    iwd = _ints(attrs["inserted_window_dims"])
    ibd = _ints(attrs["input_batching_dims"])
    sibd = _ints(attrs["scatter_indices_batching_dims"])
    sdod = _ints(attrs["scatter_dims_to_operand_dims"])
    ivd = int(attrs["index_vector_dim"])
    t0, u0 = inputs[0], updates[0]
    if not _is_integer_tensor(idx):
        raise ctx.error("scatter_i2", f"scatter_indices must be an integer tensor, got {idx}")
    for t in inputs + updates:
        if _per_axis(t):
            raise ctx.error("scatter_i1", "expects tensors or per-tensor quantized tensors")
    for t in inputs[1:]:  # scatter_c1
        if t.rank != t0.rank or any(not _compatible(a, b) for a, b in zip(t.shape, t0.shape)):
            raise ctx.error("scatter_c1", "expects all inputs to have the same shape")
    if len(uwd) + len(iwd) + len(ibd) != t0.rank:  # scatter_c2
        raise ctx.error("scatter_c2", f"Expects rank-of operand to match size-of('"
                                      f"update_window_dims') + size-of('inserted_window_dims') "
                                      f"+ size-of('input_batching_dims') i.e. "
                                      f"{len(uwd) + len(iwd) + len(ibd)} but got {t0.rank}.")
    for u in updates[1:]:  # scatter_c3
        if u.rank != u0.rank or any(not _compatible(a, b) for a, b in zip(u.shape, u0.shape)):
            raise ctx.error("scatter_c3", "expects all updates to have the same shape")
    for i, (t, u) in enumerate(zip(inputs, updates)):  # scatter_c6
        if t.element_type != u.element_type:
            raise ctx.error("scatter_c6", f"update {i} element type {u.element_type} does not "
                                          f"match input element type {t.element_type}")
    _check_sorted(ctx, "scatter_c7", "update_window_dims", uwd)  # scatter_c7
    _check_unique(ctx, "scatter_c7", "update_window_dims", uwd)  # scatter_c7
    _check_range(ctx, "scatter_c8", "update_window_dims", uwd, u0.rank,  # scatter_c8
                 "rank-of('updates')")
    both = iwd + ibd
    for d in both:  # scatter_c9
        if both.count(d) > 1:
            raise ctx.error("scatter_c9", f"has duplicated dimension from inserted_window_dims "
                                          f"and input_batching_dims: {d}")
    _check_sorted(ctx, "scatter_c10", "inserted_window_dims", iwd)  # scatter_c10
    _check_range(ctx, "scatter_c11", "inserted_window_dims", iwd, t0.rank,  # scatter_c11
                 "rank-of('operand')")
    _check_sorted(ctx, "scatter_c12", "input_batching_dims", ibd)  # scatter_c12
    _check_range(ctx, "scatter_c13", "input_batching_dims", ibd, t0.rank,  # scatter_c13
                 "rank-of('operand')")
    if not 0 <= ivd <= idx.rank:  # scatter_c22
        raise ctx.error("scatter_c22", f"Expects index_vector_dim to be in range [0, rank-of("
                                       f"'scatter_indices')] i.e. [0, {idx.rank}]. got: {ivd}.")
    # scatter_c14 .. scatter_c18
    _check_batching(ctx, "scatter", t0, idx, ibd, sibd, ivd,
                    {"unique": "scatter_c14", "range": "scatter_c15", "ivd": "scatter_c16",
                     "size": "scatter_c17", "dims": "scatter_c18"},
                    ("input_batching_dims", "scatter_indices_batching_dims"))
    _check_index_vector(ctx, "scatter", idx, ivd, sdod, "scatter_c22", "scatter_c19",
                        "scatter_dims_to_operand_dims")  # scatter_c19
    both = sdod + ibd
    for d in both:  # scatter_c20
        if both.count(d) > 1:
            raise ctx.error("scatter_c20", f"has duplicated dimension from "
                                           f"scatter_dims_to_operand_dims and "
                                           f"input_batching_dims: {d}")
    _check_range(ctx, "scatter_c21", "scatter_dims_to_operand_dims", sdod, t0.rank,  # c21
                 "rank-of('operand')")
    # scatter_c4: shape(updates[0]) = combine(update_scatter_dim_sizes, window sizes)
    scatter_sizes = [s for d, s in enumerate(idx.shape) if d != ivd]
    update_scatter_dims = [d for d in range(u0.rank) if d not in uwd]
    if len(update_scatter_dims) != len(scatter_sizes):
        raise ctx.error("scatter_c4", f"expects updates to have {len(scatter_sizes)} scatter "
                                      f"dimensions (from scatter_indices), got "
                                      f"{len(update_scatter_dims)}")
    for d, s in zip(update_scatter_dims, scatter_sizes):
        if not _compatible(u0.shape[d], s):
            raise ctx.error("scatter_c4", f"expects update dimension {d} to have size {s}, got "
                                          f"{u0.shape[d]}")
    window_input_dims = [d for d in range(t0.rank) if d not in set(iwd) | set(ibd)]
    for ud, idim in zip(uwd, window_input_dims):
        a, b = u0.shape[ud], t0.shape[idim]
        if a is not None and b is not None and a > b:
            raise ctx.error("scatter_c4", f"expects update window dimension {ud} (size {a}) to "
                                          f"be at most input dimension {idim} (size {b})")
    elements = _check_scatter_region(ctx, inputs)  # scatter_c23
    # scatter_c24, scatter_c25
    return tuple(TensorType(t.shape, e, t.encoding) for t, e in zip(inputs, elements))
