"""Slicing shape functions and verifiers (spec: slice, dynamic_slice, dynamic_update_slice,
real_dynamic_slice, concatenate, pad, dynamic_pad).

Each check carries the spec's constraint label (``<op>_c<N>``; ``<op>_i<N>`` for the
type of input N).  Dynamic (``?``, None) dimensions are compatible with any size.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..parser.ir import (
    TensorType,
    Type,
)
from .movement import (
    declared_result,
    dim_bounds,
    dims_compatible,
    format_dims,
    int_tuple,
    is_integer_tensor,
    is_per_axis,
    one_d_size,
    operand_value,
    tensor_operand,
    tensor_with_bounds,
)
from .optable import REQUIRED, ShapeContext, shape_function
from .typeutil import ranked_shape, require_per_tensor, type_text

# --------------------------------------------------------------------------------------
# slice, dynamic_slice, dynamic_update_slice, real_dynamic_slice
# --------------------------------------------------------------------------------------


@shape_function(
    "stablehlo.slice",
    result_labels=("slice_c5", "slice_c1"),
    attrs={"start_indices": REQUIRED, "limit_indices": REQUIRED, "strides": REQUIRED},
    traits={"foldable"},
)
def slice_(ctx: ShapeContext, operand: Type, *, start_indices, limit_indices, strides):
    """spec: slice: shape(result) = ceil((limit_indices - start_indices) / strides)."""
    t = tensor_operand(ctx, operand, "operand", "slice_i1")
    if is_per_axis(t):
        raise ctx.error("slice_i1", "expects a tensor or per-tensor quantized tensor")
    starts, limits, steps = int_tuple(start_indices), int_tuple(limit_indices), int_tuple(strides)
    if not len(starts) == len(limits) == len(steps) == t.rank:  # slice_c2
        raise ctx.error(
            "slice_c2",
            f"the number of elements in start_indices "
            f"({len(starts)}), limit_indices ({len(limits)}) and "
            f"strides ({len(steps)}) must equal the operand rank "
            f"({t.rank})",
        )
    shape = []
    for d, (s, l, st) in enumerate(zip(starts, limits, steps)):
        n = ranked_shape(t)[d]
        if s < 0:  # slice_c3
            raise ctx.error("slice_c3", f"negative start index {s} in dimension {d}")
        if s > l:  # slice_c3
            raise ctx.error(
                "slice_c3", f"start index {s} is larger than limit index {l} in dimension {d}"
            )
        if n is not None and l > n:  # slice_c3
            raise ctx.error(
                "slice_c3", f"limit index {l} is larger than dimension size {n} in dimension {d}"
            )
        bound = dim_bounds(t)[d]
        if n is None and bound is not None and l > bound:  # slice_c3 (bounded dimension)
            raise ctx.error(
                "slice_c3",
                f"limit index {l} is larger than dimension bound {bound} in dimension {d}",
            )
        if st <= 0:  # slice_c4
            raise ctx.error("slice_c4", f"stride must be positive but got {st} in dimension {d}")
        shape.append(-(-(l - s) // st))  # slice_c5
    return TensorType(tuple(shape), t.element_type)


def _check_start_indices(
    ctx: ShapeContext,
    starts: Sequence[Type],
    rank: int,
    type_label: str,
    rank_label: str,
    same_label: str,
) -> None:
    if len(starts) != rank:
        raise ctx.error(
            rank_label, f"has {len(starts)} start indices for an operand of rank {rank}"
        )
    for s in starts:
        if not (isinstance(s, TensorType) and s.shape == () and is_integer_tensor(s)):
            raise ctx.error(
                type_label,
                f"start indices must be 0-dimensional integer tensors, got {type_text(s)}",
            )
    if len(set(starts)) > 1:  # <op>_c3 / _c5: same(type(start_indices...))
        raise ctx.error(same_label, "start indices must all have the same type")


@shape_function(
    "stablehlo.dynamic_slice",
    result_labels=("dynamic_slice_c5", "dynamic_slice_c1"),
    attrs={"slice_sizes": REQUIRED},
)
def dynamic_slice(ctx: ShapeContext, operand: Type, *start_indices: Type, slice_sizes):
    """spec: dynamic_slice: shape(result) = slice_sizes."""
    t = tensor_operand(ctx, operand, "operand", "dynamic_slice_i1")
    require_per_tensor(ctx, t, "dynamic_slice_i1")
    sizes = int_tuple(slice_sizes)
    if len(sizes) != t.rank:  # dynamic_slice_c2
        raise ctx.error(
            "dynamic_slice_c2",
            f"has mismatched number of slice sizes ({len(sizes)}) and operand rank ({t.rank})",
        )
    # dynamic_slice_c2, dynamic_slice_c3
    _check_start_indices(
        ctx, start_indices, t.rank, "dynamic_slice_i2", "dynamic_slice_c2", "dynamic_slice_c3"
    )
    for d, (k, n) in enumerate(zip(sizes, ranked_shape(t))):  # dynamic_slice_c4
        if k < 0:
            raise ctx.error("dynamic_slice_c4", f"has negative size index to dynamic slice: {k}")
        if n is not None and k > n:
            raise ctx.error(
                "dynamic_slice_c4",
                f"has slice size {k} greater than dimension size {n} in dimension {d} of operand",
            )
    return TensorType(sizes, t.element_type)  # dynamic_slice_c1, dynamic_slice_c5


@shape_function(
    "stablehlo.dynamic_update_slice",
    result_labels=("dynamic_update_slice_c1", "dynamic_update_slice_c1"),
)
def dynamic_update_slice(ctx: ShapeContext, operand: Type, update: Type, *start_indices: Type):
    """spec: dynamic_update_slice: type(result) = type(operand)."""
    t = tensor_operand(ctx, operand, "operand", "dynamic_update_slice_i1")
    u = tensor_operand(ctx, update, "update", "dynamic_update_slice_i2")
    require_per_tensor(ctx, t, "dynamic_update_slice_i1")
    require_per_tensor(ctx, u, "dynamic_update_slice_i2")
    if u.element_type != t.element_type:  # dynamic_update_slice_c2
        raise ctx.error(
            "dynamic_update_slice_c2",
            f"update element type {u.element_type} does not match operand {t.element_type}",
        )
    if u.rank != t.rank:  # dynamic_update_slice_c3
        raise ctx.error(
            "dynamic_update_slice_c3",
            f"update rank does not match operand rank: {u.rank} vs {t.rank}.",
        )
    # dynamic_update_slice_c4, dynamic_update_slice_c5
    _check_start_indices(
        ctx,
        start_indices,
        t.rank,
        "dynamic_update_slice_i3",
        "dynamic_update_slice_c4",
        "dynamic_update_slice_c5",
    )
    for d, (k, n) in enumerate(zip(ranked_shape(u), ranked_shape(t))):  # dynamic_update_slice_c6
        if k is not None and n is not None and k > n:
            raise ctx.error(
                "dynamic_update_slice_c6",
                f"expects size at dimension {d} of update to be in range [0, {n}]. Got: {k}.",
            )
    return operand  # dynamic_update_slice_c1


@shape_function("stablehlo.real_dynamic_slice")
def real_dynamic_slice(
    ctx: ShapeContext, operand: Type, start_indices: Type, limit_indices: Type, strides: Type
):
    """StableHLO dialect op (not in the spec): slice with index lists as 1-d operands."""
    t = tensor_operand(ctx, operand, "operand", "real_dynamic_slice_i1")
    require_per_tensor(ctx, t, "real_dynamic_slice_i1")
    sizes = [
        one_d_size(ctx, x, name, "real_dynamic_slice_c1")
        for x, name in (
            (start_indices, "start_indices"),
            (limit_indices, "limit_indices"),
            (strides, "strides"),
        )
    ]
    for s in sizes:
        if s is not None and s != t.rank:
            raise ctx.error(
                "real_dynamic_slice_c1",
                f"start_indices, limit_indices and strides must have {t.rank} elements, got {s}",
            )
    result = declared_result(ctx, "real_dynamic_slice_o1")
    if result is not None:
        if result.rank != t.rank or result.element_type != t.element_type:
            raise ctx.error(
                "real_dynamic_slice_c2", "result must have the operand's rank and element type"
            )
    return None


# --------------------------------------------------------------------------------------
# concatenate, pad, dynamic_pad
# --------------------------------------------------------------------------------------


@shape_function(
    "stablehlo.concatenate",
    result_labels=("concatenate_c6", "concatenate_c5"),
    attrs={"dimension": REQUIRED},
    traits={"foldable"},
)
def concatenate(ctx: ShapeContext, *inputs: Type, dimension: int):
    """spec: concatenate."""
    if not inputs:  # concatenate_c3
        raise ctx.error("concatenate_c3", "expects at least one input")
    ts = [tensor_operand(ctx, x, f"input {i}", "concatenate_i1") for i, x in enumerate(inputs)]
    first = ts[0]
    for t in ts:
        if is_per_axis(t):
            raise ctx.error("concatenate_i1", "expects tensors or per-tensor quantized tensors")
    if any(t.element_type != first.element_type for t in ts):  # concatenate_c1
        raise ctx.error("concatenate_c1", "expects all inputs to have the same element type")
    if first.rank == 0:
        raise ctx.error("concatenate_c4", "rank-0 values cannot be concatenated")
    if not 0 <= dimension < first.rank:  # concatenate_c4
        raise ctx.error(
            "concatenate_c4", f"dimension {dimension} is out-of-bounds for input rank {first.rank}"
        )
    shape: list[int | None] = list(ranked_shape(first))
    bounds: list[int | None] = list(dim_bounds(first))
    for i, t in enumerate(ts[1:], 1):
        if t.rank != first.rank:  # concatenate_c2
            raise ctx.error("concatenate_c2", f"operands (0) and ({i}) do not match rank")
        tshape = ranked_shape(t)
        for d in range(first.rank):
            if d == dimension:
                continue
            if not dims_compatible(shape[d], tshape[d]):  # concatenate_c2
                raise ctx.error(
                    "concatenate_c2",
                    f"shapes of operand (0) and ({i}) are not "
                    f"compatible at non-concat index {d}: "
                    f"{format_dims(ranked_shape(first))} != {format_dims(tshape)}",
                )
            shape[d], bounds[d] = _most_specific(shape[d], tshape[d], bounds[d], dim_bounds(t)[d])
    # concatenate_c6: the sizes add up; a dynamic size makes the result dynamic, bounded
    # by the sum of sizes-or-bounds when every input has one.
    dims = [ranked_shape(t)[dimension] for t in ts]
    sizes = [n if n is not None else dim_bounds(t)[dimension] for n, t in zip(dims, ts)]
    static_dims = [n for n in dims if n is not None]
    static_sizes = [n for n in sizes if n is not None]
    shape[dimension] = sum(static_dims) if len(static_dims) == len(dims) else None
    bounds[dimension] = (
        sum(static_sizes)
        if len(static_dims) < len(dims) and len(static_sizes) == len(sizes)
        else None
    )
    return tensor_with_bounds(shape, first.element_type, bounds)  # concatenate_c5


def _most_specific(
    a: int | None, b: int | None, abound: int | None, bbound: int | None
) -> tuple[int | None, int | None]:
    """Of two compatible dimensions, the most specific: a static size if either has
    one, else dynamic with the smaller bound."""
    if a is not None or b is not None:
        return (a if a is not None else b), None
    if abound is None or bbound is None:
        return None, abound if bbound is None else bbound
    return None, min(abound, bbound)


def _check_pad_elements(ctx: ShapeContext, op: str, t: TensorType, pv: Type) -> None:
    pv = tensor_operand(ctx, pv, "padding_value", f"{op}_i2")
    if pv.rank != 0:
        raise ctx.error(f"{op}_i2", f"padding_value must be 0-dimensional, got {pv}")
    if pv.element_type != t.element_type:  # <op>_c1
        raise ctx.error(
            f"{op}_c1",
            f"padding_value element type {pv.element_type} does not "
            f"match operand element type {t.element_type}",
        )
    if is_per_axis(t):
        raise ctx.error(f"{op}_i1", "expects a tensor or per-tensor quantized tensor")


@shape_function(
    "stablehlo.pad",
    attrs={
        "edge_padding_low": REQUIRED,
        "edge_padding_high": REQUIRED,
        "interior_padding": REQUIRED,
    },
    traits={"foldable"},
)
def pad(
    ctx: ShapeContext,
    operand: Type,
    padding_value: Type,
    *,
    edge_padding_low,
    edge_padding_high,
    interior_padding,
):
    """spec: pad: shape(result) = shape(operand) + low + max(shape - 1, 0) * interior + high."""
    t = tensor_operand(ctx, operand, "operand", "pad_i1")
    _check_pad_elements(ctx, "pad", t, padding_value)  # pad_c1
    low, high, interior = (
        int_tuple(edge_padding_low),
        int_tuple(edge_padding_high),
        int_tuple(interior_padding),
    )
    for name, v in (
        ("edge_padding_low", low),
        ("edge_padding_high", high),
        ("interior_padding", interior),
    ):
        if len(v) != t.rank:  # pad_c2
            raise ctx.error(
                "pad_c2", f"{name} length ({len(v)}) must match operand rank ({t.rank})"
            )
    shape: list[int | None] = []
    bounds: list[int | None] = []
    for d, (n, b, lo, hi, it) in enumerate(
        zip(ranked_shape(t), dim_bounds(t), low, high, interior)
    ):
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
    return tensor_with_bounds(shape, t.element_type, bounds)


@shape_function("stablehlo.dynamic_pad")
def dynamic_pad(
    ctx: ShapeContext,
    operand: Type,
    padding_value: Type,
    edge_padding_low: Type,
    edge_padding_high: Type,
    interior_padding: Type,
):
    """spec: dynamic_pad."""
    t = tensor_operand(ctx, operand, "operand", "dynamic_pad_i1")
    _check_pad_elements(ctx, "dynamic_pad", t, padding_value)  # dynamic_pad_c1
    for x, name, label in (
        (edge_padding_low, "edge_padding_low", "dynamic_pad_i3"),
        (edge_padding_high, "edge_padding_high", "dynamic_pad_i4"),
        (interior_padding, "interior_padding", "dynamic_pad_i5"),
    ):
        size = one_d_size(ctx, x, name, label, 2)
        if size is not None and size != t.rank:  # dynamic_pad_c2
            raise ctx.error(
                "dynamic_pad_c2",
                f"padding operands size ({size}) must match operand rank ({t.rank})",
            )
    result = declared_result(ctx, "dynamic_pad_o1")
    if result is not None:
        if result.rank != t.rank:  # dynamic_pad_c4
            raise ctx.error(
                "dynamic_pad_c4", f"result rank {result.rank} does not match operand rank {t.rank}"
            )
        if result.element_type != t.element_type:  # dynamic_pad_c1
            raise ctx.error("dynamic_pad_c1", "result element type does not match the operand's")
    low, high, interior = (operand_value(ctx, i) for i in (2, 3, 4))
    for it in interior or ():
        if it < 0:  # dynamic_pad_c3
            raise ctx.error(
                "dynamic_pad_c3", f"interior_padding must be non-negative, but got {it}"
            )
    if result is not None and low is not None and high is not None and interior is not None:
        shapes = zip(ranked_shape(t), low, high, interior, ranked_shape(result))
        for d, (n, lo, hi, it, r) in enumerate(shapes):
            if n is None or r is None:
                continue
            want = n + lo + max(n - 1, 0) * it + hi
            if want != r:  # dynamic_pad_c4
                raise ctx.error(
                    "dynamic_pad_c4",
                    f"expected output dimension at index {d} to equal {want}, but got {r}",
                )
    return None
