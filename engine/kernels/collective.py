"""Collective and I/O kernels (spec "Collective ops", "Parallel execution" and the op
sections), plus ``interpreter.run_parallel`` (docs/test-dialects.md).

Every kernel here receives ``context`` (its process: ``context.process``, see
``engine.grid``) and ``op`` (for naming the op in deadlock reports).  Processes meet
through ``ProcessGrid.rendezvous``; each process then computes its own result from all
members' values, so no kernel loops over elements (only over processes and operands).

Conventions where the spec is silent (documented choices):

* ``replica_groups`` with no ids (e.g. ``dense<> : tensor<0x0xi64>``) means one group of
  every id (XLA's convention).
* ``collective_reduce`` with ``use_global_device_ids`` uses ``flattened_ids``, like
  ``all_reduce``; otherwise cross_replica / cross_partition as its spec section says.
* ``send`` / ``recv`` without ``source_target_pairs`` (and every host transfer) use one
  FIFO queue per ``channel_id`` shared by the grid: the n-th ``recv`` on a channel takes
  the n-th value sent on it.  Host transfers on a channel listed in
  ``engine.run(host_channels={channel_id: list})`` talk to that list instead (send
  appends a tuple of its inputs, recv pops the first entry).  With ``source_target_pairs`` (device transfers), process
  groups follow collective_permute's rule (cross_replica if ``channel_id <= 0``, else
  cross_partition); a process that is no pair's target receives zeros.
* ``infeed`` takes entries from ``context.infeed`` (a list shared by the grid's
  processes unless each has its own); ``outfeed`` appends a tuple of its inputs to
  ``context.outfeed``.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ...parser.errors import InterpreterError, UnsupportedError
from ...parser.ir import Operation, QuantizedType, TensorType, Type
from ...shape_inference.collective import channel_id_of
from ...shape_inference.decode import decode_op_attributes
from ...shape_inference.optable import OP_TABLE, kernel, register_kernel
from ..dtypes import dtype_of, static_shape
from ..grid import ProcessGrid, ProcessHandle, ProcessId, process_of, run_grid
from ..memory import MemoryBudget
from ..options import RunOptions
from ..values import RegionFn

_FEED_LOCK = threading.Lock()

# ------------------------------------------------------------------ process groups


def _group_ids(replica_groups: Any, op: Operation | None) -> list[list[int]]:
    """The rows of ``replica_groups`` without their -1 padding."""
    if not isinstance(replica_groups, np.ndarray):
        raise UnsupportedError(
            "replica_groups given as ReplicaGroupMeshAxes are not supported",
            op=op.name if op else None,
        )
    arr = np.asarray(replica_groups)
    if arr.ndim != 2:
        raise InterpreterError("replica groups should be a rank 2 tensor")
    return [[int(x) for x in row if x != -1] for row in arr.tolist()]


def grid_label(op: Operation | None) -> str | None:
    """The spec label of ``op``'s "ids within the process grid" constraint (its row's
    ``grid_label``: all_gather_c3, collective_permute_c4...)."""
    row = OP_TABLE.get(op.name) if op is not None else None
    return row.grid_label if row is not None else None


def process_groups(
    strategy: str, groups: list[list[int]], grid: ProcessGrid, label: str | None = None
) -> list[tuple[ProcessId, ...]]:
    """spec "Collective ops": cross_replica, cross_partition,
    cross_replica_and_partition, flattened_ids.  An id outside the grid breaks the op's
    ``label`` constraint (all_gather_c3...): known only now, with the grid."""
    nr, np_ = grid.num_replicas, grid.num_partitions
    bound = {
        "cross_replica": nr,
        "cross_replica_and_partition": nr,
        "cross_partition": np_,
        "flattened_ids": nr * np_,
    }[strategy]
    groups = [g for g in groups if g]
    if not groups:
        groups = [list(range(bound))]
    for g in groups:
        for i in g:
            if not 0 <= i < bound:
                what = {"cross_partition": "partition", "flattened_ids": "flattened process"}.get(
                    strategy, "replica"
                )
                raise InterpreterError(
                    f"{what} id {i} in the process groups is out of range for a grid of "
                    f"{nr} replicas x {np_} partitions ({strategy})",
                    label=label,
                )
    if strategy == "cross_replica":
        return [tuple((r, p) for r in g) for g in groups for p in range(np_)]
    if strategy == "cross_partition":
        return [tuple((r, p) for p in g) for g in groups for r in range(nr)]
    if strategy == "cross_replica_and_partition":
        return [tuple((r, p) for p in range(np_) for r in g) for g in groups]
    return [tuple(divmod(f, np_) for f in g) for g in groups]


def _strategy_grouped(channel_id: int, use_global_device_ids: bool) -> str:
    """all_gather / all_reduce / reduce_scatter."""
    if channel_id <= 0 and not use_global_device_ids:
        return "cross_replica"
    if channel_id > 0 and not use_global_device_ids:
        return "cross_replica_and_partition"
    if channel_id > 0:
        return "flattened_ids"
    raise InterpreterError("use_global_device_ids requires a positive channel_id")


def strategy_split(channel_id: int) -> str:
    """all_to_all / collective_broadcast / collective_permute / collective_reduce."""
    return "cross_replica" if channel_id <= 0 else "cross_partition"


def _find_group(
    groups: list[tuple[ProcessId, ...]], pid: ProcessId
) -> tuple[ProcessId, ...] | None:
    for g in groups:
        if pid in g:
            return g
    return None


def _my_group_or_none(
    handle: ProcessHandle, strategy: str, replica_groups: Any, op: Operation | None
) -> tuple[ProcessId, ...] | None:
    """This process's group, or None when it is in none."""
    groups = process_groups(strategy, _group_ids(replica_groups, op), handle.grid, grid_label(op))
    return _find_group(groups, handle.pid)


def _my_group(
    handle: ProcessHandle, strategy: str, replica_groups: Any, op: Operation | None
) -> tuple[ProcessId, ...]:
    """This process's group; being in none is an error."""
    group = _my_group_or_none(handle, strategy, replica_groups, op)
    if group is None:
        raise InterpreterError(
            f"process {handle.pid} is in no process group ({strategy} of the replica_groups)"
        )
    return group


def zeros_of(t: Type, like: np.ndarray | None = None) -> np.ndarray:
    """``broadcast_in_dim(constant(is_quantized ? quantize(0) : 0), [], type)``; dynamic
    dimensions take their size from ``like`` (an operand of the same shape)."""
    e = t.element_type if isinstance(t, TensorType) else t
    if isinstance(t, TensorType) and t.is_static:
        shape = static_shape(t)
    elif like is None:
        raise UnsupportedError("a zero result of dynamic shape with no operand to size it")
    else:
        shape = tuple(like.shape)
    dtype = dtype_of(t)
    if not isinstance(e, QuantizedType):
        return np.zeros(shape, dtype=dtype)
    if e.quantized_dimension is None:  # per-tensor
        return np.full(shape, e.zero_points[0], dtype=dtype)
    zp = np.asarray(e.zero_points, dtype=dtype)
    view = [1] * len(shape)
    view[e.quantized_dimension] = -1
    return np.array(np.broadcast_to(zp.reshape(view), shape))


def _to_destination(x: np.ndarray, src: Type, dst: Type) -> np.ndarray:
    """spec ``to_destination_type`` for is_promotable conversions (exact widening)."""
    se = src.element_type if isinstance(src, TensorType) else src
    de = dst.element_type if isinstance(dst, TensorType) else dst
    if se == de:
        return x
    if isinstance(se, QuantizedType) or isinstance(de, QuantizedType):
        if not (
            isinstance(se, QuantizedType)
            and isinstance(de, QuantizedType)
            and se.scales == de.scales
            and se.zero_points == de.zero_points
            and se.quantized_dimension == de.quantized_dimension
        ):
            raise UnsupportedError(
                "promoting between quantized types with different scales or zero points"
            )
    return x.astype(dtype_of(dst))


def _combine_fn(
    computation: RegionFn, t: Type, context: Any
) -> Callable[[np.ndarray, np.ndarray], np.ndarray]:
    """``(a, b) -> computation(a, b)`` on whole arrays.  When the body is one binary op
    (``computation.summary.combiners``), that op's kernel runs directly with whole-array
    types, its operands in the body's order; otherwise the region is called."""
    combiners = computation.summary.combiners
    if combiners is not None and len(combiners) == 1 and combiners[0].operation is not None:
        body, swapped = combiners[0].operation, combiners[0].swapped
        row = combiners[0].row
        fn = row.kernel if row is not None and not row.multi_result else None
        if row is not None and fn is not None:
            kwargs = decode_op_attributes(body, row)
            if row.kernel_options.get("context"):
                kwargs["context"] = context
            e = t.element_type if isinstance(t, TensorType) else t

            def apply(a: np.ndarray, b: np.ndarray) -> np.ndarray:
                whole = TensorType(tuple(a.shape), e)
                kw = dict(kwargs, result_type=whole)
                if row.kernel_options.get("operand_types"):
                    kw["operand_types"] = (whole, whole)
                return np.asarray(fn(b, a, **kw) if swapped else fn(a, b, **kw))

            return apply

    def call(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        out = computation(a, b)
        if len(out) != 1:
            raise InterpreterError(f"computation returned {len(out)} values, expected 1")
        return np.asarray(out[0])

    return call


def _fold(parts: Sequence[np.ndarray], computation: RegionFn, t: Type, context: Any) -> np.ndarray:
    """``computation`` over ``parts`` in order (a left-leaning schedule, whose in-order
    traversal is the group order), one call per process, on whole arrays."""
    combine = _combine_fn(computation, t, context)
    acc = parts[0]
    for x in parts[1:]:
        acc = combine(acc, x)
    dtype = dtype_of(t)
    if acc.dtype != dtype:
        acc = acc.astype(dtype)
    if acc.shape != parts[0].shape:
        acc = np.array(np.broadcast_to(acc, parts[0].shape))
    return acc


def _reduce_all(
    values: dict,
    group: Sequence[ProcessId],
    computation: RegionFn,
    operand_types: Sequence[Type],
    result_types: Sequence[Type],
    context: Any,
) -> list[np.ndarray]:
    out = []
    for i, (src, dst) in enumerate(zip(operand_types, result_types)):
        parts = [_to_destination(values[q][i], src, dst) for q in group]
        out.append(_fold(parts, computation, dst, context))
    return out


# ------------------------------------------------------------------ replica_id / partition_id


@kernel("stablehlo.replica_id", context=True)
def replica_id(*, result_type, context, op=None):
    """spec "replica_id"."""
    return np.asarray(context.replica_id, dtype=dtype_of(result_type))


@kernel("stablehlo.partition_id", context=True)
def partition_id(*, result_type, context, op=None):
    """spec "partition_id"."""
    return np.asarray(context.partition_id, dtype=dtype_of(result_type))


# ------------------------------------------------------------------ collectives


@kernel("stablehlo.all_gather", context=True, quantized="native")
def all_gather(
    *operands,
    all_gather_dim: int,
    replica_groups,
    channel_handle=None,
    use_global_device_ids: bool = False,
    result_types,
    context,
    op=None,
):
    """spec "all_gather": concatenate the group's operands along all_gather_dim."""
    h = process_of(context)
    cid = channel_id_of(channel_handle)
    group = _my_group(h, _strategy_grouped(cid, use_global_device_ids), replica_groups, op)
    values = h.grid.rendezvous(h.pid, "all_gather", cid, group, operands, op)
    out = []
    for i, t in enumerate(result_types):
        r = np.concatenate([values[q][i] for q in group], axis=all_gather_dim)
        _check_shape(r, t, "all_gather_c6")
        out.append(r)
    return tuple(out)


def _check_shape(value: np.ndarray, t: Type, label: str) -> None:
    if (
        isinstance(t, TensorType)
        and t.shape is not None
        and (
            len(t.shape) != value.ndim
            or any(d is not None and d != s for d, s in zip(t.shape, value.shape))
        )
    ):
        raise InterpreterError(
            f"the result has shape {list(value.shape)} for this process grid, but its "
            f"declared type has shape {list(t.shape)}",
            label=label,
        )


@kernel("stablehlo.all_reduce", context=True, operand_types=True, quantized="native")
def all_reduce(
    *operands,
    replica_groups,
    channel_handle=None,
    use_global_device_ids: bool = False,
    computation: RegionFn,
    result_types,
    context,
    operand_types,
    op=None,
):
    """spec "all_reduce": reduce the group's operands with ``computation``."""
    h = process_of(context)
    cid = channel_id_of(channel_handle)
    group = _my_group(h, _strategy_grouped(cid, use_global_device_ids), replica_groups, op)
    values = h.grid.rendezvous(h.pid, "all_reduce", cid, group, operands, op)
    return tuple(_reduce_all(values, group, computation, operand_types, result_types, context))


@kernel("stablehlo.reduce_scatter", context=True, operand_types=True, quantized="native")
def reduce_scatter(
    operand,
    *,
    scatter_dimension: int,
    replica_groups,
    channel_handle=None,
    use_global_device_ids: bool = False,
    computation: RegionFn,
    result_type,
    context,
    operand_types,
    op=None,
):
    """spec "reduce_scatter": all_reduce, then this process's part along scatter_dimension."""
    h = process_of(context)
    cid = channel_id_of(channel_handle)
    group = _my_group(h, _strategy_grouped(cid, use_global_device_ids), replica_groups, op)
    values = h.grid.rendezvous(h.pid, "reduce_scatter", cid, group, (operand,), op)
    (reduced,) = _reduce_all(values, group, computation, operand_types, (result_type,), context)
    n = len(group)
    if reduced.shape[scatter_dimension] % n:
        raise InterpreterError(
            f"dimension {scatter_dimension} of size {reduced.shape[scatter_dimension]} is not a "
            f"multiple of the process-group size {n}",
            label="reduce_scatter_c1",
        )
    part = np.split(reduced, n, axis=scatter_dimension)[group.index(h.pid)]
    _check_shape(part, result_type, "reduce_scatter_c8")
    return np.ascontiguousarray(part)


@kernel("stablehlo.all_to_all", context=True, quantized="native")
def all_to_all(
    *operands,
    split_dimension: int,
    concat_dimension: int,
    split_count: int,
    replica_groups,
    channel_handle=None,
    result_types,
    context,
    op=None,
):
    """spec "all_to_all": split, scatter the parts over the group, concatenate."""
    h = process_of(context)
    cid = channel_id_of(channel_handle)
    group = _my_group(h, strategy_split(cid), replica_groups, op)
    if len(group) != split_count:
        raise InterpreterError(
            f"process group of size {len(group)} for split_count {split_count}",
            label="all_to_all_c8",
        )
    values = h.grid.rendezvous(h.pid, "all_to_all", cid, group, operands, op)
    me = group.index(h.pid)
    out = []
    for i in range(len(operands)):
        parts = [np.split(values[q][i], split_count, axis=split_dimension)[me] for q in group]
        out.append(np.concatenate(parts, axis=concat_dimension))
    return tuple(out)


def _root_indices(
    operands: tuple, has_dynamic_root: bool, n_data: int, group_size: int, what: str
) -> list[int]:
    if not has_dynamic_root:
        return [0] * n_data
    root = np.asarray(operands[-1]).reshape(-1)
    idx = [int(v) for v in root.tolist()]  # one root per data operand
    for v in idx:
        if not 0 <= v < group_size:
            raise InterpreterError(
                f"root index {v} is out of range for a process group of size {group_size}",
                label=f"{what}_c6" if what == "collective_broadcast" else f"{what}_c3",
            )
    return idx


@kernel("stablehlo.collective_broadcast", context=True, quantized="native")
def collective_broadcast(
    *operands,
    replica_groups,
    channel_handle=None,
    has_dynamic_root: bool = False,
    result_types,
    context,
    op=None,
):
    """spec "collective_broadcast": every group member gets its source's operands;
    processes in no group get zeros."""
    h = process_of(context)
    cid = channel_id_of(channel_handle)
    group = _my_group_or_none(h, strategy_split(cid), replica_groups, op)
    if group is None:
        return tuple(zeros_of(t, x) for t, x in zip(result_types, operands))
    n = len(result_types)
    values = h.grid.rendezvous(h.pid, "collective_broadcast", cid, group, operands[:n], op)
    roots = _root_indices(operands, has_dynamic_root, n, len(group), "collective_broadcast")
    return tuple(values[group[roots[j]]][j] for j in range(n))


@kernel("stablehlo.collective_reduce", context=True, operand_types=True, quantized="native")
def collective_reduce(
    *operands,
    replica_groups,
    channel_handle=None,
    has_dynamic_root: bool = False,
    use_global_device_ids: bool = False,
    computation: RegionFn,
    result_types,
    context,
    operand_types,
    op=None,
):
    """spec "collective_reduce": the group's reduction lands on its root process; the
    other processes (and processes in no group) get zeros."""
    h = process_of(context)
    cid = channel_id_of(channel_handle)
    strategy = "flattened_ids" if use_global_device_ids else strategy_split(cid)
    group = _my_group_or_none(h, strategy, replica_groups, op)
    if group is None:
        return tuple(zeros_of(t, x) for t, x in zip(result_types, operands))
    n = len(result_types)
    values = h.grid.rendezvous(h.pid, "collective_reduce", cid, group, operands[:n], op)
    roots = _root_indices(operands, has_dynamic_root, n, len(group), "collective_reduce")
    out = []
    for j, t in enumerate(result_types):
        if group[roots[j]] != h.pid:
            out.append(zeros_of(t, operands[j]))
            continue
        parts = [_to_destination(values[q][j], operand_types[j], t) for q in group]
        out.append(_fold(parts, computation, t, context))
    return tuple(out)


def pair_groups(
    pairs: Any, strategy: str, grid: ProcessGrid, op: Operation | None = None
) -> list[tuple[ProcessId, ProcessId]]:
    """source_target_pairs -> (source, target) process pairs (spec collective_permute)."""
    arr = np.asarray(pairs).reshape(-1, 2)
    ids = [[int(s), int(t)] for s, t in arr.tolist()]
    groups = process_groups(strategy, ids, grid, grid_label(op))
    return [(g[0], g[1]) for g in groups]


@kernel("stablehlo.collective_permute", context=True, quantized="native")
def collective_permute(
    operand, *, source_target_pairs, channel_handle=None, result_type, context, op=None
):
    """spec "collective_permute": the target of a pair gets its source's operand; other
    processes get zeros.  All processes named by the pairs of this process's slice of
    the grid meet in one rendezvous."""
    h = process_of(context)
    cid = channel_id_of(channel_handle)
    strategy = strategy_split(cid)
    if not np.asarray(source_target_pairs).size:
        return zeros_of(result_type, operand)
    pairs = pair_groups(source_target_pairs, strategy, h.grid, op)
    same_slice = (
        (lambda q: q[1] == h.pid[1])
        if strategy == "cross_replica"
        else (lambda q: q[0] == h.pid[0])
    )
    members = sorted({q for pair in pairs for q in pair if same_slice(q)})
    if h.pid not in members:
        return zeros_of(result_type, operand)
    values = h.grid.rendezvous(h.pid, "collective_permute", cid, members, operand, op)
    for s, t in pairs:
        if t == h.pid:
            return values[s]
    return zeros_of(result_type, operand)


# ------------------------------------------------------------------ interpreter.run_parallel


def grid_options(context: Any) -> RunOptions:
    """A child grid inherits the limits and settings of the process that starts it
    (its deadline too: ``context.interpreter.limits.deadline``)."""
    lim = context.interpreter.limits
    parent = context.process
    return RunOptions(
        memory_cap=MemoryBudget(lim.memory_cap, lim.live_cap),
        max_steps=lim.max_steps,
        timeout=lim.timeout,
        float_eq=context.float_eq,
        probe_dir=context.probe_dir,
        callback=context.callback,
        deadlock_timeout=parent.grid.deadlock_timeout if parent is not None else None,
        host_channels=parent.grid.host_channels if parent is not None else None,
    )


def run_parallel(*inputs, programs, infeed=None, result_types, context, op=None):
    """docs/test-dialects.md: run ``programs[r][p]`` as process (r, p) of a new grid;
    inputs and results are flattened row-major over the grid; the results of each
    ``infeed`` function (called in order) form one entry of the grid's shared infeed."""
    interp = context.interpreter
    funcs = interp.module.functions
    flat = [name for row in programs for name in row]
    for name in flat + list(infeed or ()):
        if name not in funcs:
            raise InterpreterError(f"'{name}' does not reference a valid function")
    per_process, k = [], 0
    n_results = 0
    for name in flat:
        fn = funcs[name]
        n = len(fn.type.inputs)
        per_process.append(list(inputs[k : k + n]))
        k += n
        n_results += len(fn.type.results)
    if k != len(inputs):
        raise InterpreterError(
            f"the programs take {k} inputs in all, but run_parallel has {len(inputs)} operands"
        )
    if n_results != len(result_types):
        raise InterpreterError(
            f"the programs return {n_results} results in all, but run_parallel has "
            f"{len(result_types)} results"
        )
    queue: list[Any] = [interp.call(name, ()) for name in (infeed or ())]
    n = len(flat)
    outs = run_grid(
        interp.module,
        programs,
        per_process,
        interpreter=type(interp),
        options=grid_options(context),
        deadline=interp.limits.deadline,
        infeed=[queue] * n,
        outfeed=[context.outfeed] * n,
    )
    return tuple(v for out in outs for v in out)


RUN_PARALLEL = register_kernel(
    "interpreter.run_parallel", run_parallel, context=True, quantized="native"
)
