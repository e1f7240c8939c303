"""gather and scatter kernels (spec "gather", "dynamic_gather", "scatter").

Like the other data-movement kernels (``movement``) they select or place elements
without arithmetic on them (scatter's update_computation aside), for every element
type.  They build whole index arrays with broadcasting and index once.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...parser.errors import InterpreterError
from ...parser.ir import (
    Operation,
    TensorType,
    Type,
)
from ...shape_inference.optable import OP_TABLE, kernel
from ..dtypes import dtype_of, static_shape
from ..plan import plain_dtype
from ..ufunc import Ufunc
from ..values import RegionFn
from .movement import as_i64, int_tuple, runtime_shape
from .quantization import scatter_targets

_I64_MAX = np.iinfo(np.int64).max

# --------------------------------------------------------------------------------------
# gather
# --------------------------------------------------------------------------------------


def _index_vectors(indices: np.ndarray, index_vector_dim: int) -> np.ndarray:
    """start/scatter indices with the index vector as the last axis (spec: an implicit
    trailing 1 when index_vector_dim == rank)."""
    idx = as_i64(indices)
    if index_vector_dim == idx.ndim:
        return idx[..., None]
    return np.moveaxis(idx, index_vector_dim, -1)


def _batch_coordinate(batch_shape: tuple[int, ...], axis: int, extra: int) -> np.ndarray:
    """arange along batch axis ``axis``, shaped to broadcast over batch + ``extra`` axes."""
    view = [1] * (len(batch_shape) + extra)
    view[axis] = batch_shape[axis]
    return np.arange(batch_shape[axis], dtype=np.int64).reshape(view)


def _gather(
    operand: np.ndarray,
    start_indices: np.ndarray,
    *,
    offset_dims: tuple[int, ...],
    collapsed_slice_dims: tuple[int, ...],
    operand_batching_dims: tuple[int, ...],
    start_indices_batching_dims: tuple[int, ...],
    start_index_map: tuple[int, ...],
    index_vector_dim: int,
    slice_sizes: tuple[int, ...],
) -> np.ndarray:
    """spec: gather, with ONE indexing call (np.take when one dim is indexed, else one
    fancy-indexing call).

    Operand dims whose slice covers the whole dimension (offset dims with
    slice_sizes[d] == dim(operand, d), whose clamped start is always 0) are moved last and
    taken whole; every other dim gets a broadcast index array of shape batch + window
    (clamped start + batching coordinate + window offset, per the spec's formula).  The
    result is then transposed into offset_dims / batch order.
    """
    rank = operand.ndim
    idx = _index_vectors(start_indices, index_vector_dim)
    batch_shape = idx.shape[:-1]
    nb = len(batch_shape)
    non_offset = set(collapsed_slice_dims) | set(operand_batching_dims)
    window_dims = [d for d in range(rank) if d not in non_offset]  # <-> offset_dims
    full = [d for d in window_dims if slice_sizes[d] == operand.shape[d]]
    adv_window = [d for d in window_dims if d not in full]
    advanced = [d for d in range(rank) if d not in full]
    nw = len(adv_window)

    arrays = []
    for d in advanced:
        parts = []
        if d in start_index_map:
            k = start_index_map.index(d)
            hi = operand.shape[d] - slice_sizes[d]
            start = np.clip(idx[..., k], 0, hi)
            parts.append(start.reshape(batch_shape + (1,) * nw))
        if d in operand_batching_dims:
            d_start = start_indices_batching_dims[operand_batching_dims.index(d)]
            axis = d_start - (0 if d_start < index_vector_dim else 1)
            parts.append(_batch_coordinate(batch_shape, axis, nw))
        if d in adv_window:
            view = [1] * (nb + nw)
            view[nb + adv_window.index(d)] = slice_sizes[d]
            parts.append(np.arange(slice_sizes[d], dtype=np.int64).reshape(view))
        if not parts:
            parts.append(np.zeros((1,) * (nb + nw), dtype=np.int64))
        total = parts[0]
        for p in parts[1:]:
            total = total + p
        arrays.append(total)

    target = batch_shape + tuple(slice_sizes[d] for d in adv_window)
    empty = 0 in target or any(operand.shape[d] == 0 for d in full)
    if any(slice_sizes[d] == 0 for d in non_offset) and not empty:
        raise InterpreterError(
            "'stablehlo.gather': a collapsed or batching dimension with "
            "slice size 0 leaves result elements with no operand element"
        )
    arrays = [a if a.shape == target else np.broadcast_to(a, target) for a in arrays]
    try:
        if len(advanced) == 1:
            # One indexed dim (the row-gather case): np.take is ~3x faster than fancy
            # indexing; the indices are in range by construction, so mode="clip" is exact.
            d = advanced[0]
            taken = np.take(operand, arrays[0], axis=d, mode="clip")
            nt = len(target)
            taken = np.transpose(
                taken, list(range(d, d + nt)) + list(range(d)) + list(range(d + nt, taken.ndim))
            )
        elif arrays:
            moved = np.transpose(operand, advanced + full) if full else operand
            taken = moved[tuple(arrays) + (Ellipsis,)]
        else:
            taken = np.broadcast_to(operand, target + operand.shape)
    except IndexError as e:  # only for degenerate zero-size slices of empty dimensions
        raise InterpreterError(f"'stablehlo.gather': {e}") from e
    # taken: batch + adv_window + full-window axes; window axes are in operand order
    # after sorting adv_window and full back together.
    taken = taken.reshape(
        batch_shape
        + tuple(slice_sizes[d] for d in adv_window)
        + tuple(operand.shape[d] for d in full)
    )
    window_order = adv_window + full  # current order of the window axes
    result_rank = nb + len(window_dims)
    # result axis offset_dims[j] <- window dim window_dims[j]; the other axes <- batch axes
    perm = [0] * result_rank
    batch_axes = iter(range(nb))
    offset_pos = {r: j for j, r in enumerate(offset_dims)}
    for r in range(result_rank):
        if r in offset_pos:
            perm[r] = nb + window_order.index(window_dims[offset_pos[r]])
        else:
            perm[r] = next(batch_axes)
    return np.transpose(taken, perm)


_GATHER_FIELDS = (
    "offset_dims",
    "collapsed_slice_dims",
    "operand_batching_dims",
    "start_indices_batching_dims",
    "start_index_map",
)


def _gather_kwargs(attrs: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {k: int_tuple(attrs.get(k, ())) for k in _GATHER_FIELDS}
    out["index_vector_dim"] = int(attrs["index_vector_dim"])
    return out


_NATIVE_INDEX = frozenset(
    np.dtype(t) for t in (np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32)
)


def _row_batch_shape(
    oshape: tuple[int, ...],
    ishape: tuple[int, ...],
    slice_sizes: tuple[int, ...],
    kw: dict[str, Any],
) -> tuple[int, ...] | None:
    """The embedding lookup (whole rows of dim 0: collapsed_slice_dims = start_index_map =
    [0], slice_sizes = [1, dims 1...], offset_dims trailing, no batching dims): the
    batch shape its indices take, or None when not that case.  With slice size 1 the
    spec's clamp of the start index to [0, dim(operand, 0) - 1] is exactly NumPy's clip
    mode, so the gather is one ``np.take(operand, indices, axis=0, mode="clip")``."""
    rank = len(oshape)
    ivd = kw["index_vector_dim"]
    if (
        rank == 0
        or oshape[0] == 0
        or kw["collapsed_slice_dims"] != (0,)
        or kw["start_index_map"] != (0,)
        or kw["operand_batching_dims"]
        or slice_sizes != (1,) + oshape[1:]
    ):
        return None
    if ivd < len(ishape):
        if ishape[ivd] != 1:
            return None
        batch_shape = ishape[:ivd] + ishape[ivd + 1 :]
    else:
        batch_shape = ishape
    nb = len(batch_shape)
    if kw["offset_dims"] != tuple(range(nb, nb + rank - 1)):
        return None
    return batch_shape


def _row_gather(
    operand: np.ndarray, start_indices: np.ndarray, slice_sizes: tuple[int, ...], kw: dict[str, Any]
) -> np.ndarray | None:
    """``_row_batch_shape``'s case as one ``np.take``; None when not that case."""
    batch_shape = _row_batch_shape(operand.shape, start_indices.shape, slice_sizes, kw)
    if batch_shape is None:
        return None
    idx = start_indices.reshape(batch_shape)  # dropping a size-1 axis keeps the order
    if idx.dtype not in _NATIVE_INDEX:
        idx = as_i64(idx)  # uint64 saturates (then clips high), ml_dtypes ints widen
    return np.take(operand, idx, axis=0, mode="clip")


def _gather_fast(op: Operation, rt: Type, dt: np.dtype, kwargs: dict[str, Any]) -> Any:
    """A row gather between static shapes with native integer indices (embedding
    lookups: JAX's ``x[idx]``), recognized once at plan time: the kernel's ``np.take``
    without decoding the dimension numbers per call."""
    operand, indices = op.operands
    ot, it = operand.type, indices.type
    if not all(isinstance(t, TensorType) and t.is_static for t in (ot, it, rt)):
        return None
    if plain_dtype(ot) != dt or plain_dtype(it) not in _NATIVE_INDEX:
        return None
    oshape, ishape = static_shape(ot), static_shape(it)
    sizes = int_tuple(kwargs.get("slice_sizes"))
    batch_shape = _row_batch_shape(oshape, ishape, sizes, _gather_kwargs(kwargs))
    if batch_shape is None or static_shape(rt) != batch_shape + oshape[1:]:
        return None
    take = np.take
    return lambda a, i: take(a, i.reshape(batch_shape), axis=0, mode="clip")


@kernel("stablehlo.gather", fast_plan=_gather_fast, quantized="storage")
def gather(operand, start_indices, *, slice_sizes, result_type=None, **attrs: Any):
    """spec: gather (the row lookup takes a one-call fast path, ``_row_gather``)."""
    sizes = int_tuple(slice_sizes)
    kw = _gather_kwargs(attrs)
    fast = _row_gather(operand, start_indices, sizes, kw)
    if fast is not None:
        return fast
    return _gather(operand, start_indices, slice_sizes=sizes, **kw)


@kernel("stablehlo.dynamic_gather", quantized="storage")
def dynamic_gather(operand, start_indices, slice_sizes, *, result_type=None, **attrs: Any):
    """spec: dynamic_gather (slice_sizes is an operand)."""
    sizes = tuple(int(v) for v in as_i64(slice_sizes).reshape(-1))
    if len(sizes) != operand.ndim or any(not 0 <= k <= n for k, n in zip(sizes, operand.shape)):
        raise InterpreterError(
            f"'stablehlo.dynamic_gather': slice_sizes {list(sizes)} invalid for operand shape "
            f"{list(operand.shape)}"
        )
    kw = _gather_kwargs(attrs)
    for d in kw["collapsed_slice_dims"] + kw["operand_batching_dims"]:
        if sizes[d] > 1:
            raise InterpreterError(f"'stablehlo.dynamic_gather': slice_sizes[{d}] must be <= 1")
    out = _gather(operand, start_indices, slice_sizes=sizes, **kw)
    if isinstance(result_type, TensorType) and result_type.shape is not None:
        runtime_shape(np.array(out.shape), result_type, "dynamic_gather")
    return out


# --------------------------------------------------------------------------------------
# scatter
# --------------------------------------------------------------------------------------

_NATIVE = {
    np.dtype(t)
    for t in (
        np.bool_,
        np.int8,
        np.int16,
        np.int32,
        np.int64,
        np.uint8,
        np.uint16,
        np.uint32,
        np.uint64,
        np.float16,
        np.float32,
        np.float64,
        np.complex64,
        np.complex128,
    )
}


def _is_replace(region_fn: RegionFn, n: int) -> bool:
    """True when the body is just ``return %updates...`` (the last n block arguments)."""
    summary = region_fn.summary
    return summary.replace and summary.arguments == 2 * n


def _region_element_types(region_fn: RegionFn, n: int) -> list[Type | None]:
    """Ei of spec scatter_c23: the element types of the update arguments of the region."""
    region = region_fn.region
    if region is None or not region.blocks or len(region.blocks[0].arguments) != 2 * n:
        return [None] * n
    out: list[Type | None] = []
    for v in region.blocks[0].arguments[n:]:
        out.append(v.type.element_type if isinstance(v.type, TensorType) else None)
    return out


def _scatter_positions(
    input_shape: tuple[int, ...],
    scatter_indices: np.ndarray,
    update_shape: tuple[int, ...],
    *,
    update_window_dims: tuple[int, ...],
    inserted_window_dims: tuple[int, ...],
    input_batching_dims: tuple[int, ...],
    scatter_indices_batching_dims: tuple[int, ...],
    scatter_dims_to_operand_dims: tuple[int, ...],
    index_vector_dim: int,
) -> tuple[np.ndarray, np.ndarray | None]:
    """spec: scatter's result_index for every update_index, vectorized.

    Returns the linear result index of each in-bounds update element, in row-major
    update_index order, and which update elements are in bounds (a flat mask), or None
    when all are.  Only the start index can leave the bounds (batching coordinates are
    in range by C18, window offsets by C4), so one min/max per start-index component
    decides whether the per-element mask is needed at all.
    """
    rank = len(input_shape)
    idx = _index_vectors(scatter_indices, index_vector_dim)
    batch_shape = idx.shape[:-1]
    nb = len(batch_shape)
    update_scatter_dims = [d for d in range(len(update_shape)) if d not in update_window_dims]
    non_window = set(inserted_window_dims) | set(input_batching_dims)
    window_dims = [d for d in range(rank) if d not in non_window]  # <-> update_window_dims
    window_sizes = tuple(update_shape[d] for d in update_window_dims)
    nw = len(window_sizes)
    full_shape = batch_shape + window_sizes
    size = int(np.prod(full_shape, dtype=np.int64))
    need_mask = False
    if size:
        for k, d in enumerate(scatter_dims_to_operand_dims):
            reach = window_sizes[window_dims.index(d)] - 1 if d in window_dims else 0
            col = idx[..., k]
            if int(col.min()) < 0 or int(col.max()) + reach >= input_shape[d]:
                need_mask = True
                break
    strides = np.ones(rank, dtype=np.int64)
    for d in range(rank - 2, -1, -1):
        strides[d] = strides[d + 1] * input_shape[d + 1]
    linear = np.zeros((1,) * (nb + nw), dtype=np.int64)
    in_bounds = np.ones((1,) * (nb + nw), dtype=bool)
    for d in range(rank):
        total = np.zeros((1,) * (nb + nw), dtype=np.int64)
        if d in scatter_dims_to_operand_dims:
            k = scatter_dims_to_operand_dims.index(d)
            total = total + idx[..., k].reshape(batch_shape + (1,) * nw)
        if d in input_batching_dims:
            d_start = scatter_indices_batching_dims[input_batching_dims.index(d)]
            axis = d_start - (0 if d_start < index_vector_dim else 1)
            total = total + _batch_coordinate(batch_shape, axis, nw)
        if d in window_dims:
            j = window_dims.index(d)
            view = [1] * (nb + nw)
            view[nb + j] = window_sizes[j]
            total = total + np.arange(window_sizes[j], dtype=np.int64).reshape(view)
        if need_mask:
            in_bounds = in_bounds & (total >= 0) & (total < input_shape[d])
        linear = linear + total * strides[d]
    # Back from batch + window order to the updates' own axis order, so that colliding
    # updates apply in row-major update_index order.
    inverse = np.argsort(update_scatter_dims + list(update_window_dims))
    linear = np.transpose(np.broadcast_to(linear, full_shape), inverse).reshape(-1)
    if not need_mask:
        return linear, None
    mask = np.transpose(np.broadcast_to(in_bounds, full_shape), inverse).reshape(-1)
    return linear[mask], mask


def _row_scatter_indices(
    input_shape: tuple[int, ...],
    scatter_indices: np.ndarray,
    update_shape: tuple[int, ...],
    dims: dict[str, Any],
) -> tuple[np.ndarray, np.ndarray | None, tuple[int, ...]] | None:
    """The row scatter (``x[idx] += rows``: inserted_window_dims = scatter_dims_to_operand_dims
    = [0], no batching dims, update_window_dims trailing): the row index of every update
    row (1-D, row-major update_scatter_index order), which rows are in bounds (None when
    all are: one min/max check) and the window sizes.  Window offsets start at 0 and fit
    (C4), so only the row index can be out of bounds, and a row out of bounds skips all
    its elements.  None when not that case."""
    rank = len(input_shape)
    ivd = dims["index_vector_dim"]
    if (
        rank == 0
        or dims["inserted_window_dims"] != (0,)
        or dims["scatter_dims_to_operand_dims"] != (0,)
        or dims["input_batching_dims"]
    ):
        return None
    if ivd < scatter_indices.ndim:
        if scatter_indices.shape[ivd] != 1:
            return None
        batch_shape = scatter_indices.shape[:ivd] + scatter_indices.shape[ivd + 1 :]
    else:
        batch_shape = scatter_indices.shape
    nb = len(batch_shape)
    window = tuple(update_shape[nb:])
    if (
        dims["update_window_dims"] != tuple(range(nb, nb + rank - 1))
        or update_shape[:nb] != batch_shape
        or any(w > s for w, s in zip(window, input_shape[1:]))
    ):
        return None
    # Dropping a size-1 axis keeps the order.  int64 (= intp) up front: ufunc.at is
    # faster with intp indices than converting narrower ones itself; uint64 saturates
    # (stays out of bounds), ml_dtypes ints widen.
    idx = as_i64(scatter_indices.reshape(-1))
    keep = None
    # one pass: viewed as unsigned, negative indices become huge (out of bounds too)
    as_unsigned = idx.view(f"u{idx.itemsize}") if idx.dtype.kind == "i" else idx
    if idx.size and int(as_unsigned.max()) >= input_shape[0]:
        keep = (idx >= 0) & (idx < input_shape[0])
        idx = idx[keep]
    return idx, keep, window


def _rounds(positions: np.ndarray) -> list[np.ndarray]:
    """Split update elements into rounds in which no result position repeats; element i
    goes to round (number of earlier elements with the same position), so colliding
    updates apply in update_index order."""
    n = positions.size
    if n == 0:
        return []
    order = np.argsort(positions, kind="stable")
    sorted_pos = positions[order]
    new_group = np.empty(n, dtype=bool)
    new_group[0] = True
    new_group[1:] = sorted_pos[1:] != sorted_pos[:-1]
    group_start = np.maximum.accumulate(np.where(new_group, np.arange(n), 0))
    rank = np.empty(n, dtype=np.int64)
    rank[order] = np.arange(n) - group_start
    by_round = np.argsort(rank, kind="stable")
    counts = np.bincount(rank)
    return np.split(by_round, np.cumsum(counts)[:-1])


def _ufunc_at(
    update_computation: RegionFn, n: int, target: np.dtype, val: np.dtype
) -> np.ufunc | None:
    """The ``ufunc`` whose ``.at`` is exactly the body (one input, a combiner whose
    ``ufunc`` column lists the dtype's kind under ``at``, a native dtype), or None."""
    ops = update_computation.summary.fold_ops
    row = OP_TABLE.get(ops[0]) if n == 1 and ops is not None and len(ops) == 1 else None
    uf: Ufunc | None = row.ufunc if row is not None else None
    if uf is None or target not in _NATIVE or target != val or target.kind not in uf.at:
        return None
    return uf.ufunc


def _row_elements(rows: np.ndarray, shape: tuple[int, ...], window: tuple[int, ...]) -> np.ndarray:
    """Linear result indices of the elements of each row scatter window (row-major within
    a window, windows in order): 1-D ``ufunc.at`` is much faster than the row form."""
    offsets = np.zeros((), dtype=np.int64)
    stride = 1
    for d in range(len(shape) - 1, 0, -1):
        w = window[d - 1]
        offsets = offsets + (np.arange(w, dtype=np.int64) * stride).reshape(
            (w,) + (1,) * (len(shape) - 1 - d)
        )
        stride *= shape[d]
    return (rows.astype(np.int64)[:, None] * stride + offsets.reshape(-1)).reshape(-1)


def _apply_updates(
    targets: list[np.ndarray],
    positions: np.ndarray,
    vals: list[np.ndarray],
    update_computation: RegionFn,
) -> None:
    """Fold ``vals[i][j]`` into ``targets[i][positions[j]]`` (an element, or a row of a
    row-shaped target) in order of j, in place."""
    n = len(targets)
    if not positions.size:
        return
    if _is_replace(update_computation, n):
        # colliding updates: the last one in update_index order wins
        _, first_in_reversed = np.unique(positions[::-1], return_index=True)
        last = positions.size - 1 - first_in_reversed
        for r, v in zip(targets, vals):
            r[positions[last]] = v[last]
    elif ufunc := _ufunc_at(update_computation, n, targets[0].dtype, vals[0].dtype):
        # ufunc.at applies the updates one index at a time, in index order
        ufunc.at(targets[0], positions, vals[0])
    else:
        for sel in _rounds(positions):
            pos = positions[sel]
            new = update_computation(*[r[pos] for r in targets], *[v[sel] for v in vals])
            if len(new) != n:
                raise InterpreterError(
                    f"'stablehlo.scatter': update_computation returned {len(new)} values, "
                    f"expected {n}"
                )
            for r, x in zip(targets, new):
                r[pos] = np.broadcast_to(np.asarray(x), pos.shape + r.shape[1:])


@kernel("stablehlo.scatter", quantized="native", quantized_targets=scatter_targets)
def scatter(*operands, result_types, update_computation: RegionFn, **attrs: Any):
    """spec: scatter.  Update elements whose result_index is out of bounds are skipped
    (the spec's per-element rule).  Colliding updates apply in row-major update_index
    order (the spec leaves the schedule implementation-defined).  Known combiners run as
    one ``ufunc.at`` call; any other body runs on whole vectors, one call per round of
    non-colliding updates.  The row scatter (``_row_scatter_indices``) updates whole
    rows of the result, indexed by the scatter indices as they are."""
    if len(operands) % 2 != 1:
        raise InterpreterError("'stablehlo.scatter' expects inputs, scatter_indices, updates")
    n = len(operands) // 2
    inputs, scatter_indices, updates = operands[:n], operands[n], operands[n + 1 :]
    dims: dict[str, Any] = {
        k: int_tuple(attrs.get(k, ()))
        for k in (
            "update_window_dims",
            "inserted_window_dims",
            "input_batching_dims",
            "scatter_indices_batching_dims",
            "scatter_dims_to_operand_dims",
        )
    }
    dims["index_vector_dim"] = int(attrs["index_vector_dim"])
    shape = inputs[0].shape

    out_dtypes = [dtype_of(t) for t in result_types]
    region_types = _region_element_types(update_computation, n)
    upd_dtypes = [dtype_of(t) if t is not None else o for t, o in zip(region_types, out_dtypes)]
    results = [np.array(x, dtype=dt, order="C", copy=True) for x, dt in zip(inputs, out_dtypes)]

    rows = _row_scatter_indices(shape, scatter_indices, updates[0].shape, dims)
    if rows is not None:
        positions, keep, window = rows
        window_view = (slice(None),) + tuple(slice(0, w) for w in window)
        targets = [r if r.shape[1:] == window else r[window_view] for r in results]
        nrows = scatter_indices.size  # one index per row (the index vector has size 1)
        vals = [u.reshape((nrows,) + window) for u in updates]
        if keep is not None:
            vals, keep = [v[keep] for v in vals], None
        if (
            window
            and not _is_replace(update_computation, n)
            and _ufunc_at(update_computation, n, results[0].dtype, np.dtype(upd_dtypes[0]))
        ):
            positions = _row_elements(positions, shape, window)
            targets = [r.reshape(-1) for r in results]
            vals = [v.reshape(-1) for v in vals]
    else:
        positions, keep = _scatter_positions(shape, scatter_indices, updates[0].shape, **dims)
        targets = [r.reshape(-1) for r in results]  # C-contiguous: views
        vals = [u.reshape(-1) for u in updates]
    if keep is not None:
        vals = [v[keep] for v in vals]
    vals = [v if v.dtype == dt else v.astype(dt) for v, dt in zip(vals, upd_dtypes)]
    _apply_updates(targets, positions, vals, update_computation)
    return tuple(results)
