"""gather and scatter shape functions and verifiers (spec "gather", "dynamic_gather",
"scatter").

Each check carries the spec's constraint label (``<op>_c<N>``; ``<op>_i<N>`` for the
type of input N).  Dynamic (``?``, None) dimensions are compatible with any size.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..parser.ir import (
    TensorType,
    Type,
)
from .movement import (
    check_range,
    check_sorted,
    check_unique,
    declared_result,
    dim_bounds,
    dims_compatible,
    int_tuple,
    is_integer_tensor,
    is_per_axis,
    one_d_size,
    operand_value,
    tensor_operand,
    tensor_with_bounds,
)
from .optable import REQUIRED, ShapeContext, shape_function
from .typeutil import is_promotable, ranked_shape

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


def _check_index_vector(
    ctx: ShapeContext,
    op: str,
    idx: TensorType,
    index_vector_dim: int,
    index_map: tuple[int, ...],
    c_ivd: str,
    c_map: str,
    map_name: str,
) -> None:
    if not 0 <= index_vector_dim <= idx.rank:  # <op>_c2 / c22
        raise ctx.error(
            c_ivd,
            f"Expects index_vector_dim to be in range [0, rank-of("
            f"'start_indices')] i.e. [0, {idx.rank}]. got: "
            f"{index_vector_dim}.",
        )
    n = ranked_shape(idx)[index_vector_dim] if index_vector_dim < idx.rank else 1
    if n is not None and len(index_map) != n:  # <op>_c3 / c19
        raise ctx.error(
            c_map,
            f"{map_name} size ({len(index_map)}) is not equal to size of "
            f"index dimension ({index_vector_dim}) of start_indices ({n})",
        )


def _check_batching(
    ctx: ShapeContext,
    op: str,
    operand: TensorType,
    idx: TensorType,
    operand_batching: tuple[int, ...],
    idx_batching: tuple[int, ...],
    index_vector_dim: int,
    labels: dict[str, str],
    names: tuple[str, str],
):
    ob, ib = names
    check_unique(ctx, labels["unique"], ib, idx_batching)
    check_range(ctx, labels["range"], ib, idx_batching, idx.rank, "rank-of('start_indices')")
    if index_vector_dim in idx_batching:
        raise ctx.error(
            labels["ivd"], f"expects {ib} not to include index_vector_dim {index_vector_dim}"
        )
    if len(operand_batching) != len(idx_batching):
        raise ctx.error(labels["size"], f"{ob} and {ib} should have the same size")
    for i, (a, b) in enumerate(zip(operand_batching, idx_batching)):
        if not dims_compatible(ranked_shape(operand)[a], ranked_shape(idx)[b]):
            raise ctx.error(
                labels["dims"],
                f"{ob}[{i}] and {ib}[{i}] must have compatible "
                f"sizes, but got {ranked_shape(operand)[a]} and "
                f"{ranked_shape(idx)[b]}",
            )


def _gather_common(
    ctx: ShapeContext,
    op: str,
    operand: TensorType,
    idx: TensorType,
    dn: dict[str, Any],
    slice_sizes: tuple[int, ...] | None,
    result_rank: int,
) -> None:
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
    if not is_integer_tensor(idx):
        raise ctx.error(f"{op}_i2", f"start_indices must be an integer tensor, got {idx}")
    if is_per_axis(operand):
        raise ctx.error(f"{op}_i1", "expects a tensor or per-tensor quantized tensor")
    if len(offset) + len(collapsed) + len(obatch) != operand.rank:  # gather_c1
        raise ctx.error(
            lab(1),
            f"offset_dims size ({len(offset)}) plus collapse_slice_dims "
            f"size ({len(collapsed)}) plus operand_batching_dims size "
            f"({len(obatch)}) is not equal to operand rank "
            f"({operand.rank})",
        )
    _check_index_vector(ctx, op, idx, ivd, smap, lab(2), lab(3), "start_index_map")  # c2, c3
    check_sorted(ctx, lab(4), "offset_dims", offset)  # gather_c4
    check_unique(ctx, lab(4), "offset_dims", offset)  # gather_c4
    check_range(
        ctx,
        lab(5),
        "offset_dims",
        offset,
        result_rank,  # gather_c5
        "implied-result-rank",
    )
    if gather:
        both = collapsed + obatch
        for d in both:  # gather_c6
            if both.count(d) > 1:
                raise ctx.error(
                    lab(6),
                    f"has duplicated dimension from collapsed_slice_dims "
                    f"and operand_batching_dims: {d}",
                )
        check_sorted(ctx, lab(7), "collapsed_slice_dims", collapsed)  # gather_c7
        check_range(
            ctx,
            lab(8),
            "collapsed_slice_dims",
            collapsed,
            operand.rank,  # c8
            "rank-of('operand')",
        )
        check_sorted(ctx, lab(10), "operand_batching_dims", obatch)  # gather_c10
        check_range(
            ctx,
            lab(11),
            "operand_batching_dims",
            obatch,
            operand.rank,  # c11
            "rank-of('operand')",
        )
        # gather_c13 .. gather_c17
        _check_batching(
            ctx,
            op,
            operand,
            idx,
            obatch,
            ibatch,
            ivd,
            {"unique": lab(13), "range": lab(14), "ivd": lab(15), "size": lab(16), "dims": lab(17)},
            ("operand_batching_dims", "start_indices_batching_dims"),
        )
        both = smap + obatch
        for d in both:  # gather_c18
            if both.count(d) > 1:
                raise ctx.error(
                    lab(18),
                    f"has duplicated dimension from start_index_map and operand_batching_dims: {d}",
                )
        check_range(
            ctx,
            lab(19),
            "start_index_map",
            smap,
            operand.rank,  # gather_c19
            "rank-of('operand')",
        )
    else:
        check_unique(ctx, lab(6), "collapsed_slice_dims", collapsed)  # dynamic_gather_c6
        check_sorted(ctx, lab(6), "collapsed_slice_dims", collapsed)  # dynamic_gather_c6
        check_range(
            ctx,
            lab(7),
            "collapsed_slice_dims",
            collapsed,
            operand.rank,  # c7
            "rank-of('operand')",
        )
        check_unique(ctx, lab(9), "start_index_map", smap)  # dynamic_gather_c9
        check_range(
            ctx,
            lab(10),
            "start_index_map",
            smap,
            operand.rank,  # c10
            "rank-of('operand')",
        )
        if obatch or ibatch:
            _check_batching(
                ctx,
                op,
                operand,
                idx,
                obatch,
                ibatch,
                ivd,
                {k: lab(1) for k in ("unique", "range", "ivd", "size", "dims")},
                ("operand_batching_dims", "start_indices_batching_dims"),
            )
    if slice_sizes is None:
        return
    if len(slice_sizes) != operand.rank:  # gather_c20
        raise ctx.error(
            lab(20),
            f"slice_sizes size ({len(slice_sizes)}) not equal to operand rank ({operand.rank})",
        )
    for i, (k, n) in enumerate(zip(slice_sizes, ranked_shape(operand))):  # gather_c21
        if k < 0 or (n is not None and k > n):
            raise ctx.error(
                lab(21),
                f"slice size ({k}) is out of bounds for operand dimension ({n}) at index {i}",
            )
    for d in collapsed:  # gather_c9
        if slice_sizes[d] > 1:
            raise ctx.error(
                lab(9),
                f"Expects that for each dim in collapsed_slice_dims, "
                f"slice_sizes[dim] should be <= 1, but got "
                f"{slice_sizes[d]}",
            )
    for d in obatch:  # gather_c12
        if slice_sizes[d] > 1:
            raise ctx.error(
                lab(12),
                f"Expects that for each dim in operand_batching_dims, "
                f"slice_sizes[dim] should be <= 1, but got "
                f"{slice_sizes[d]}",
            )


def _gather_dn(attrs: dict[str, Any]) -> dict[str, Any]:
    dn: dict[str, Any] = {
        k: int_tuple(attrs[k])
        for k in (
            "offset_dims",
            "collapsed_slice_dims",
            "operand_batching_dims",
            "start_indices_batching_dims",
            "start_index_map",
        )
    }
    dn["index_vector_dim"] = int(attrs["index_vector_dim"])
    return dn


def _gather_batch_shape(idx: TensorType, ivd: int) -> tuple[int | None, ...]:
    return tuple(n for d, n in enumerate(ranked_shape(idx)) if d != ivd)


def _gather_result(
    t: TensorType, idx: TensorType, dn: dict[str, Any], sizes: Sequence[int]
) -> TensorType:
    """gather_c22, gather_c23: batch dimensions (with their bounds) from start_indices,
    offset dimensions from slice_sizes."""
    ivd = dn["index_vector_dim"]
    batch = [(n, b) for d, (n, b) in enumerate(zip(ranked_shape(idx), dim_bounds(idx))) if d != ivd]
    dropped = set(dn["collapsed_slice_dims"]) | set(dn["operand_batching_dims"])
    window = [(sizes[d], None) for d in range(t.rank) if d not in dropped]
    dims: list[tuple[int | None, int | None]] = []
    bi, wi = iter(batch), iter(window)
    for r in range(len(batch) + len(dn["offset_dims"])):
        dims.append(next(wi) if r in dn["offset_dims"] else next(bi))
    return tensor_with_bounds([d for d, _ in dims], t.element_type, [b for _, b in dims])


@shape_function(
    "stablehlo.gather",
    result_labels=("gather_c22", "gather_c23"),
    attrs={**_GATHER_ATTRS, "slice_sizes": REQUIRED},
)
def gather(ctx: ShapeContext, operand: Type, start_indices: Type, *, slice_sizes, **attrs: Any):
    """spec: gather: shape(result) = combine(batch_dim_sizes, offset_dim_sizes)."""
    t = tensor_operand(ctx, operand, "operand", "gather_i1")
    idx = tensor_operand(ctx, start_indices, "start_indices", "gather_i2")
    dn = _gather_dn(attrs)
    sizes = int_tuple(slice_sizes)
    batch = _gather_batch_shape(idx, dn["index_vector_dim"])
    result_rank = len(batch) + len(dn["offset_dims"])
    _gather_common(ctx, "gather", t, idx, dn, sizes, result_rank)
    return _gather_result(t, idx, dn, sizes)  # gather_c22, gather_c23


@shape_function(
    "stablehlo.dynamic_gather",
    result_labels=("dynamic_gather_c13", "dynamic_gather_c14"),
    attrs=dict(_GATHER_ATTRS),
)
def dynamic_gather(
    ctx: ShapeContext, operand: Type, start_indices: Type, slice_sizes: Type, **attrs: Any
):
    """spec: dynamic_gather (slice sizes are a runtime value: the result type is given)."""
    t = tensor_operand(ctx, operand, "operand", "dynamic_gather_i1")
    idx = tensor_operand(ctx, start_indices, "start_indices", "dynamic_gather_i2")
    n = one_d_size(ctx, slice_sizes, "slice_sizes", "dynamic_gather_i3")
    if n is not None and n != t.rank:  # dynamic_gather_c11
        raise ctx.error(
            "dynamic_gather_c11", f"slice_sizes size ({n}) not equal to operand rank ({t.rank})"
        )
    dn = _gather_dn(attrs)
    batch = _gather_batch_shape(idx, dn["index_vector_dim"])
    result_rank = len(batch) + len(dn["offset_dims"])
    _gather_common(ctx, "dynamic_gather", t, idx, dn, None, result_rank)
    sizes = operand_value(ctx, 2)
    if sizes is not None and len(sizes) == t.rank:
        for d in dn["collapsed_slice_dims"]:  # dynamic_gather_c8
            if sizes[d] > 1:
                raise ctx.error(
                    "dynamic_gather_c8",
                    f"Expects that for each dim in "
                    f"collapsed_slice_dims, slice_sizes[dim] "
                    f"should be <= 1, but got {sizes[d]}",
                )
        for d in dn["operand_batching_dims"]:  # as gather_c12 (dialect batching dims)
            if 0 <= d < t.rank and sizes[d] > 1:
                raise ctx.error(
                    "dynamic_gather_c8",
                    f"Expects that for each dim in "
                    f"operand_batching_dims, slice_sizes[dim] "
                    f"should be <= 1, but got {sizes[d]}",
                )
        for i, (k, n) in enumerate(zip(sizes, ranked_shape(t))):  # dynamic_gather_c12
            if k < 0 or (n is not None and k > n):
                raise ctx.error(
                    "dynamic_gather_c12",
                    f"slice size ({k}) is out of bounds for operand dimension ({n}) at index {i}",
                )
    result = declared_result(ctx, "dynamic_gather_o1")
    if result is not None:
        if result.rank != result_rank:  # dynamic_gather_c13
            raise ctx.error(
                "dynamic_gather_c13",
                f"result rank {result.rank} does not match the implied rank {result_rank}",
            )
        b = iter(batch)
        for r in range(result_rank):  # dynamic_gather_c13
            if r not in dn["offset_dims"] and not dims_compatible(next(b), ranked_shape(result)[r]):
                raise ctx.error(
                    "dynamic_gather_c13",
                    f"result dimension {r} does not match the start_indices batch dimension",
                )
        if result.element_type != t.element_type:  # dynamic_gather_c14
            raise ctx.error(
                "dynamic_gather_c14", "result element type does not match the operand's"
            )
    if sizes is not None and len(sizes) == t.rank:  # constant slice_sizes: as gather
        return _gather_result(t, idx, dn, sizes)
    return None


# --------------------------------------------------------------------------------------
# scatter
# --------------------------------------------------------------------------------------


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
        raise ctx.error(
            "scatter_c23",
            f"Reduction-region must take {2 * n} parameters, but takes {len(args)} parameter(s)",
        )
    ret = block.operations[-1] if block.operations else None
    if ret is None or not ret.name.endswith("return"):
        raise ctx.error("scatter_c23", "The reduction-region expected to return some value(s)")
    rtypes = [v.type for v in ret.operands]
    if len(rtypes) != n:
        raise ctx.error(
            "scatter_c23",
            f"Reduction-region here must produce {n} tensors, but produces {len(rtypes)} instead",
        )
    out: list[Type] = []
    for i, rt in enumerate(rtypes):
        if not isinstance(rt, TensorType) or rt.shape != ():
            raise ctx.error(
                "scatter_c23",
                f"Reduction-region here must produce 0-d tensor "
                f"results, but produces '{rt}' instead",
            )
        for j in (i, i + n):
            if args[j].type != rt:
                raise ctx.error(
                    "scatter_c23",
                    f"The type of reduction-region's parameter at "
                    f"index {j} is different than the "
                    f"corresponding result type: '{args[j].type}' "
                    f"vs '{rt}'",
                )
        if not is_promotable(elements[i], rt.element_type):
            raise ctx.error(
                "scatter_c23",
                f"The element-type of reduction-region's result type "
                f"at index {i} is expected to be promotable from "
                f"the op's corresponding input element-type: "
                f"'{rt}' vs '{elements[i]}'",
            )
        out.append(rt.element_type)
    return out


@shape_function(
    "stablehlo.scatter",
    result_labels=("scatter_c24", "scatter_c25"),
    attrs={
        "scatter_dimension_numbers": REQUIRED,
        "update_window_dims": (),
        "inserted_window_dims": (),
        "input_batching_dims": (),
        "scatter_indices_batching_dims": (),
        "scatter_dims_to_operand_dims": (),
        "index_vector_dim": 0,
        "indices_are_sorted": False,
        "unique_indices": False,
    },
    regions=("update_computation",),
    multi_result=True,
)
def scatter(ctx: ShapeContext, *operands: Type, **attrs: Any):
    """spec: scatter: results have the inputs' shapes and the region's element types."""
    if len(operands) < 3 or len(operands) % 2 != 1:  # scatter_c5
        raise ctx.error("scatter_c5", "expects N inputs, scatter_indices and N updates, N > 0")
    n = len(operands) // 2
    inputs = [
        tensor_operand(ctx, x, f"input {i}", "scatter_i1") for i, x in enumerate(operands[:n])
    ]
    idx = tensor_operand(ctx, operands[n], "scatter_indices", "scatter_i2")
    updates = [
        tensor_operand(ctx, x, f"update {i}", "scatter_i3") for i, x in enumerate(operands[n + 1 :])
    ]
    uwd = int_tuple(attrs["update_window_dims"])
    iwd = int_tuple(attrs["inserted_window_dims"])
    ibd = int_tuple(attrs["input_batching_dims"])
    sibd = int_tuple(attrs["scatter_indices_batching_dims"])
    sdod = int_tuple(attrs["scatter_dims_to_operand_dims"])
    ivd = int(attrs["index_vector_dim"])
    t0, u0 = inputs[0], updates[0]
    if not is_integer_tensor(idx):
        raise ctx.error("scatter_i2", f"scatter_indices must be an integer tensor, got {idx}")
    for t in inputs + updates:
        if is_per_axis(t):
            raise ctx.error("scatter_i1", "expects tensors or per-tensor quantized tensors")
    for t in inputs[1:]:  # scatter_c1
        if t.rank != t0.rank or any(
            not dims_compatible(a, b) for a, b in zip(ranked_shape(t), ranked_shape(t0))
        ):
            raise ctx.error("scatter_c1", "expects all inputs to have the same shape")
    if len(uwd) + len(iwd) + len(ibd) != t0.rank:  # scatter_c2
        raise ctx.error(
            "scatter_c2",
            f"Expects rank-of operand to match size-of('"
            f"update_window_dims') + size-of('inserted_window_dims') "
            f"+ size-of('input_batching_dims') i.e. "
            f"{len(uwd) + len(iwd) + len(ibd)} but got {t0.rank}.",
        )
    for u in updates[1:]:  # scatter_c3
        if u.rank != u0.rank or any(
            not dims_compatible(a, b) for a, b in zip(ranked_shape(u), ranked_shape(u0))
        ):
            raise ctx.error("scatter_c3", "expects all updates to have the same shape")
    for i, (t, u) in enumerate(zip(inputs, updates)):  # scatter_c6
        if t.element_type != u.element_type:
            raise ctx.error(
                "scatter_c6",
                f"update {i} element type {u.element_type} does not "
                f"match input element type {t.element_type}",
            )
    check_sorted(ctx, "scatter_c7", "update_window_dims", uwd)  # scatter_c7
    check_unique(ctx, "scatter_c7", "update_window_dims", uwd)  # scatter_c7
    check_range(
        ctx,
        "scatter_c8",
        "update_window_dims",
        uwd,
        u0.rank,  # scatter_c8
        "rank-of('updates')",
    )
    both = iwd + ibd
    for d in both:  # scatter_c9
        if both.count(d) > 1:
            raise ctx.error(
                "scatter_c9",
                f"has duplicated dimension from inserted_window_dims and input_batching_dims: {d}",
            )
    check_sorted(ctx, "scatter_c10", "inserted_window_dims", iwd)  # scatter_c10
    check_range(
        ctx,
        "scatter_c11",
        "inserted_window_dims",
        iwd,
        t0.rank,  # scatter_c11
        "rank-of('operand')",
    )
    check_sorted(ctx, "scatter_c12", "input_batching_dims", ibd)  # scatter_c12
    check_range(
        ctx,
        "scatter_c13",
        "input_batching_dims",
        ibd,
        t0.rank,  # scatter_c13
        "rank-of('operand')",
    )
    if not 0 <= ivd <= idx.rank:  # scatter_c22
        raise ctx.error(
            "scatter_c22",
            f"Expects index_vector_dim to be in range [0, rank-of("
            f"'scatter_indices')] i.e. [0, {idx.rank}]. got: {ivd}.",
        )
    # scatter_c14 .. scatter_c18
    _check_batching(
        ctx,
        "scatter",
        t0,
        idx,
        ibd,
        sibd,
        ivd,
        {
            "unique": "scatter_c14",
            "range": "scatter_c15",
            "ivd": "scatter_c16",
            "size": "scatter_c17",
            "dims": "scatter_c18",
        },
        ("input_batching_dims", "scatter_indices_batching_dims"),
    )
    _check_index_vector(
        ctx, "scatter", idx, ivd, sdod, "scatter_c22", "scatter_c19", "scatter_dims_to_operand_dims"
    )  # scatter_c19
    both = sdod + ibd
    for d in both:  # scatter_c20
        if both.count(d) > 1:
            raise ctx.error(
                "scatter_c20",
                f"has duplicated dimension from "
                f"scatter_dims_to_operand_dims and "
                f"input_batching_dims: {d}",
            )
    check_range(
        ctx,
        "scatter_c21",
        "scatter_dims_to_operand_dims",
        sdod,
        t0.rank,  # c21
        "rank-of('operand')",
    )
    # scatter_c4: shape(updates[0]) = combine(update_scatter_dim_sizes, window sizes)
    scatter_sizes = [s for d, s in enumerate(ranked_shape(idx)) if d != ivd]
    update_scatter_dims = [d for d in range(u0.rank) if d not in uwd]
    if len(update_scatter_dims) != len(scatter_sizes):
        raise ctx.error(
            "scatter_c4",
            f"expects updates to have {len(scatter_sizes)} scatter "
            f"dimensions (from scatter_indices), got "
            f"{len(update_scatter_dims)}",
        )
    for d, s in zip(update_scatter_dims, scatter_sizes):
        if not dims_compatible(ranked_shape(u0)[d], s):
            raise ctx.error(
                "scatter_c4",
                f"expects update dimension {d} to have size {s}, got {ranked_shape(u0)[d]}",
            )
    window_input_dims = [d for d in range(t0.rank) if d not in set(iwd) | set(ibd)]
    for ud, idim in zip(uwd, window_input_dims):
        a, b = ranked_shape(u0)[ud], ranked_shape(t0)[idim]
        if a is not None and b is not None and a > b:
            raise ctx.error(
                "scatter_c4",
                f"expects update window dimension {ud} (size {a}) to "
                f"be at most input dimension {idim} (size {b})",
            )
    elements = _check_scatter_region(ctx, inputs)  # scatter_c23
    # scatter_c24, scatter_c25
    return tuple(TensorType(t.shape, e, t.encoding) for t, e in zip(inputs, elements))
