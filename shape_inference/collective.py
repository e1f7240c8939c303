"""Collective and I/O ops (spec "Collective ops", "Parallel execution", and the op
sections all_gather, all_reduce, all_to_all, collective_broadcast, collective_permute,
collective_reduce, reduce_scatter, replica_id, partition_id, send, recv, infeed,
outfeed) plus ``interpreter.run_parallel`` (docs/test-dialects.md).

Messages follow the StableHLO verifier's wording where it has one.  The process-grid
size is not known statically, so checks that depend on ``num_replicas`` /
``num_partitions`` (e.g. all_gather_c3, the exact all_gather_c6 size) run in the
kernels: a row's ``grid_label`` names the constraint "process ids within the grid".

Every row decodes its attributes with ``decode_with_op``, which adds ``op`` (the
``Operation``) so that kernels can name the op and its location in deadlock reports.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np

from ..parser.errors import VerificationError
from ..parser.ir import (
    ChannelHandle,
    IntegerType,
    Operation,
    TensorType,
    Type,
    TypeExtensions,
)
from .decode import decode_op_attributes
from .mesh_groups import MeshAxesError, flatten_mesh_axes, is_mesh_axes
from .optable import OP_TABLE, REQUIRED, ShapeContext, define_op
from .typeutil import is_promotable, require_per_tensor, require_tensor, type_text
from .verifier import compatible


def decode_with_op(op: Operation) -> dict[str, Any]:
    """The generic decoding of ``op``'s attributes, plus ``op`` itself; replica groups
    given as mesh axes become the groups they stand for (shape_inference/mesh_groups)."""
    row = replace(OP_TABLE[op.name], decode=None)
    kwargs = decode_op_attributes(op, row)
    kwargs["op"] = op
    groups = kwargs.get("replica_groups")
    if is_mesh_axes(groups):
        try:
            flat = flatten_mesh_axes(groups)
        except MeshAxesError as e:
            raise VerificationError(
                f"replica_groups: {e}", op.pos, op=op.name, label="replica_group_mesh_axes"
            ) from None
        if flat is not None:
            kwargs["replica_groups"] = flat
    return kwargs


def channel_id_of(channel_handle: ChannelHandle | None) -> int:
    """spec: ``channel_id`` is the handle of ``channel_handle`` (0 when absent)."""
    return channel_handle.handle if channel_handle is not None else 0


def _non_negative(ctx: ShapeContext, name: str, value: int, label: str) -> None:
    if value < 0:
        raise ctx.error(
            label,
            f"attribute '{name}' failed to satisfy constraint: 64-bit signless integer "
            "attribute whose value is non-negative",
        )


def check_replica_groups(
    ctx: ShapeContext,
    groups: Any,
    labels: dict[str, str],
    *,
    all_same_size: bool,
    use_global_device_ids: bool = False,
    expected_group_size: int | None = None,
) -> None:
    """The verifier's replica-group rules: rank 2, unique ids, ids cover [0, count),
    -1 (padding) only where groups may differ in size; ``labels`` maps "rank",
    "unique", "range" (and "size", with ``expected_group_size``) to the op's spec labels.
    The group size the spec's size(replica_groups) constraints need depends on the
    process grid: the kernels check it."""
    if not isinstance(groups, np.ndarray):
        return  # ReplicaGroupMeshAxes: checked (and rejected) by the kernel
    if groups.ndim != 2:
        raise ctx.error(labels["rank"], "replica groups should be a rank 2 tensor")
    if use_global_device_ids and groups.size == 0:
        raise ctx.error(
            labels["range"],
            "if `use_global_device_ids` is set, the replica groups cannot be empty",
        )
    seen: set[int] = set()
    for rid in groups.reshape(-1).tolist():  # attribute data, not a tensor operand
        if rid == -1:
            if not all_same_size:
                continue
            raise ctx.error(labels["range"], "Invalid replica id -1")
        if rid in seen:
            raise ctx.error(labels["unique"], f"replica id #{rid} seen more than once")
        seen.add(rid)
    for rid in range(len(seen)):
        if rid not in seen:
            raise ctx.error(labels["range"], f"replica id #{rid} not seen in replica groups")
    if (
        all_same_size
        and expected_group_size is not None
        and (groups.shape[0] == 0 or groups.shape[1] != expected_group_size)
    ):
        raise ctx.error(
            labels["size"], f"group size of replica_groups must be {expected_group_size}"
        )


def _check_global_ids(ctx: ShapeContext, label: str, channel_handle, use_global: bool) -> None:
    if use_global and channel_id_of(channel_handle) <= 0:
        raise ctx.error(
            label,
            "channel_id must be positive when useGlobalDeviceIds is set but got: "
            f"{channel_id_of(channel_handle)}",
        )


def check_computation(ctx: ShapeContext, label: str, operand_elements: list[Type]) -> Type:
    """``computation`` has type ``(tensor<E>, tensor<E>) -> (tensor<E>)`` with
    ``is_promotable(element_type(operand), E)`` for every operand; return ``E``."""
    if not ctx.regions or not ctx.regions[0].blocks:
        raise ctx.error(label, "expects a non-empty computation region")
    block = ctx.regions[0].blocks[0]
    args = [v.type for v in block.arguments]
    if len(args) != 2:
        raise ctx.error(
            label, f"Reduction-region must take 2 parameters, but takes {len(args)} parameter(s)"
        )
    rets = [v.type for v in block.operations[-1].operands] if block.operations else []
    if not rets:
        raise ctx.error(label, "The reduction-region expected to return some value(s)")
    if len(rets) != 1:
        raise ctx.error(
            label, f"Reduction-region here must produce 1 tensors, but produces {len(rets)} instead"
        )
    ret = rets[0]
    if not isinstance(ret, TensorType):
        raise ctx.error(
            label,
            "Reduction-region here must produce tensor-typed result(s), but produces "
            f"'{type_text(ret)}' instead",
        )
    for i, a in enumerate(args):
        if a != ret:
            raise ctx.error(
                label,
                f"The type of reduction-region's parameter at index {i} is different than "
                f"the corresponding result type: '{type_text(a)}' vs '{type_text(ret)}'",
            )
    e = ret.element_type
    for oe in operand_elements:
        init = TensorType((), oe)
        if ret.shape != ():
            raise ctx.error(
                label,
                "The shape of reduction-region's result type at index 0 differs from the "
                f"op's corresponding init-value type: '{type_text(ret)}' vs '{type_text(init)}'",
            )
        if not is_promotable(oe, e):
            raise ctx.error(
                label,
                "The element-type of reduction-region's result type at index 0 is expected "
                "to be promotable from the op's corresponding init-value element-type: "
                f"'{type_text(ret)}' vs '{type_text(init)}'",
            )
    return e


def _check_result_elements(ctx: ShapeContext, label: str, e: Type) -> None:
    for r in ctx.result_types:
        if isinstance(r, TensorType) and r.element_type != e:
            raise ctx.error(
                label,
                f"result element-type is expected to be '{type_text(e)}', but got "
                f"'{type_text(r.element_type)}'",
            )


def check_pairs(ctx: ShapeContext, pairs: Any, labels: dict[str, str]) -> None:
    """source_target_pairs: rank 2 of shape (N, 2), ids >= 0, unique sources and targets."""
    if not isinstance(pairs, np.ndarray):
        raise ctx.error(labels["shape"], "source_target_pairs must be a dense tensor constant")
    if pairs.ndim != 2:
        raise ctx.error(
            labels["shape"],
            f"expect source_target_pairs attribute to be of rank 2, but got rank {pairs.ndim}",
        )
    if pairs.shape[1] != 2:
        raise ctx.error(
            labels["shape"],
            "expect source_target_pairs attribute of shape (N, 2), but got "
            f"({pairs.shape[0]}, {pairs.shape[1]})",
        )
    if pairs.size and int(pairs.min()) < 0:
        raise ctx.error(labels["range"], "replica ids in source_target_pairs must be >= 0")
    if len(set(pairs[:, 0].tolist())) != pairs.shape[0]:
        raise ctx.error(labels["sources"], "duplicate sources not allowed")
    if len(set(pairs[:, 1].tolist())) != pairs.shape[0]:
        raise ctx.error(labels["targets"], "duplicate targets not allowed")


def _same_count(ctx: ShapeContext, label: str, n: int) -> None:
    if len(ctx.result_types) != n:
        raise ctx.error(label, "requires the same number of operands and results")


# ------------------------------------------------------------------ ops


def all_gather_shape(
    ctx: ShapeContext,
    *operands: Type,
    all_gather_dim: int,
    replica_groups,
    channel_handle=None,
    use_global_device_ids: bool = False,
    op=None,
):
    """spec "all_gather" (C1)-(C6); the exact result size (C6) needs the grid: kernel."""
    for t in operands:
        require_per_tensor(ctx, t, "all_gather_i1")
    _non_negative(ctx, "all_gather_dim", all_gather_dim, "all_gather_c1")
    check_replica_groups(
        ctx,
        replica_groups,
        {"rank": "all_gather_i3", "unique": "all_gather_c2", "range": "all_gather_c4"},
        all_same_size=True,
        use_global_device_ids=use_global_device_ids,
    )
    cid = channel_id_of(channel_handle)
    if use_global_device_ids and cid < 0:
        raise ctx.error(
            "all_gather_c5", "channel_id cannot be negative when useGlobalDeviceIds is set"
        )
    _check_global_ids(ctx, "all_gather_c5", channel_handle, use_global_device_ids)  # all_gather_c5
    _same_count(ctx, "all_gather_c6", len(operands))
    for i, (t, r) in enumerate(zip(operands, ctx.result_types)):
        t = require_tensor(ctx, t, "all_gather_i1", "operand")
        r = require_tensor(ctx, r, "all_gather_o1", "result")
        if t.shape is None or r.shape is None:
            continue
        if all_gather_dim >= len(t.shape):
            raise ctx.error("all_gather_c1", "all_gather_dim must be a valid index of operand")
        if t.shape[all_gather_dim] == 0:
            raise ctx.error(
                "all_gather_c6", "dimension size of operand at 'all_gather_dim' cannot be zero"
            )
        if len(r.shape) != len(t.shape):
            raise ctx.error("all_gather_c6", "operand and result must have the same rank")
        for d, (a, b) in enumerate(zip(t.shape, r.shape)):
            if d != all_gather_dim and a is not None and b is not None and a != b:
                raise ctx.error(
                    "all_gather_c6",
                    "operand and result should have the same shape except for the dimension "
                    "size at 'all_gather_dim'",
                )
        a, b = t.shape[all_gather_dim], r.shape[all_gather_dim]
        if a is not None and b is not None and b % a:
            raise ctx.error(
                "all_gather_c6",
                f"result gather dimension has size {b}, expected to be a multiple of operand "
                f"gather dimension size {a}",
            )
        if t.element_type != r.element_type:
            raise ctx.error(
                "all_gather_c6",
                f"result #{i} has element type {type_text(r.element_type)}, "
                f"expected {type_text(t.element_type)}",
            )
    return None


def all_reduce_shape(
    ctx: ShapeContext,
    *operands: Type,
    replica_groups,
    channel_handle=None,
    use_global_device_ids: bool = False,
    op=None,
):
    """spec "all_reduce" (C1)-(C7)."""
    check_replica_groups(
        ctx,
        replica_groups,
        {"rank": "all_reduce_i2", "unique": "all_reduce_c1", "range": "all_reduce_c3"},
        all_same_size=False,
        use_global_device_ids=use_global_device_ids,
    )
    _check_global_ids(ctx, "all_reduce_c4", channel_handle, use_global_device_ids)  # all_reduce_c4
    ts = [require_tensor(ctx, t, "all_reduce_i1", "operand") for t in operands]
    e = check_computation(ctx, "all_reduce_c5", [t.element_type for t in ts])  # all_reduce_c5
    _check_result_elements(ctx, "all_reduce_c7", e)  # all_reduce_c7
    return tuple(TensorType(t.shape, e, t.encoding) for t in ts)  # all_reduce_c6, c7


def reduce_scatter_shape(
    ctx: ShapeContext,
    operand: Type,
    *,
    scatter_dimension: int,
    replica_groups,
    channel_handle=None,
    use_global_device_ids: bool = False,
    op=None,
):
    """spec "reduce_scatter" (C1)-(C9); C1 needs the process-group size: kernel."""
    _non_negative(ctx, "scatter_dimension", scatter_dimension, "reduce_scatter_c2")
    check_replica_groups(
        ctx,
        replica_groups,
        {"rank": "reduce_scatter_i3", "unique": "reduce_scatter_c3", "range": "reduce_scatter_c5"},
        all_same_size=True,
        use_global_device_ids=use_global_device_ids,
    )
    _check_global_ids(ctx, "reduce_scatter_c6", channel_handle, use_global_device_ids)
    t = require_tensor(ctx, operand, "reduce_scatter_i1", "operand")
    e = check_computation(ctx, "reduce_scatter_c7", [t.element_type])  # reduce_scatter_c7
    if not ctx.result_types:
        raise ctx.error("reduce_scatter_o1", "expects one result")
    r = require_tensor(ctx, ctx.result_types[0], "reduce_scatter_o1", "result")
    _check_result_elements(ctx, "reduce_scatter_c9", e)  # reduce_scatter_c9
    if t.shape is None or r.shape is None:
        return None
    if len(t.shape) != len(r.shape):
        raise ctx.error("reduce_scatter_c8", "operand and result should have same rank")
    if scatter_dimension >= len(t.shape):
        raise ctx.error("reduce_scatter_c2", "scatter dim should be less than operand/result rank")
    a, b = t.shape[scatter_dimension], r.shape[scatter_dimension]
    if a == 0:
        raise ctx.error(
            "reduce_scatter_c8", "operand dimension size at scatter_dimension cannot be zero"
        )
    if b == 0:
        raise ctx.error(
            "reduce_scatter_c8", "result dimension size at scatter_dimension cannot be zero"
        )
    if a is not None and b is not None and a % b:
        raise ctx.error(
            "reduce_scatter_c1",
            f"operand scatter dimension has size {a}, expected to be a multiple of result "
            f"scatter dimension size {b}",
        )
    for d, (x, y) in enumerate(zip(t.shape, r.shape)):
        if d != scatter_dimension and x is not None and y is not None and x != y:
            raise ctx.error(
                "reduce_scatter_c8",
                f"non scatter dimensions should be same for operand ({x}) and result ({y})",
            )
    return None


def all_to_all_shape(
    ctx: ShapeContext,
    *operands: Type,
    split_dimension: int,
    concat_dimension: int,
    split_count: int,
    replica_groups,
    channel_handle=None,
    op=None,
):
    """spec "all_to_all" (C1)-(C9)."""
    for t in operands:
        require_per_tensor(ctx, t, "all_to_all_i1")
    _non_negative(ctx, "split_dimension", split_dimension, "all_to_all_c1")
    _non_negative(ctx, "concat_dimension", concat_dimension, "all_to_all_c3")
    if split_count <= 0:
        raise ctx.error(
            "all_to_all_c4",
            "attribute 'split_count' failed to satisfy constraint: 64-bit signless integer "
            "attribute whose value is positive",
        )
    _same_count(ctx, "all_to_all_c9", len(operands))
    check_replica_groups(
        ctx,
        replica_groups,
        {
            "rank": "all_to_all_i5",
            "unique": "all_to_all_c5",
            "range": "all_to_all_c7",
            "size": "all_to_all_c8",
        },
        all_same_size=True,
        expected_group_size=split_count,
    )
    out = []
    for i, t in enumerate(operands):
        t = require_tensor(ctx, t, "all_to_all_i1", "operand")
        r = ctx.result_types[i]
        if isinstance(r, TensorType) and r.element_type != t.element_type:
            raise ctx.error(
                "all_to_all_c9",
                f"requires the same element type for operand and result at index {i}",
            )
        if t.shape is None:
            out.append(t)
            continue
        rank = len(t.shape)
        if split_dimension >= rank:
            raise ctx.error(
                "all_to_all_c1",
                f"AllToAll split_dimension {split_dimension} is out-of-bounds for input rank {rank}",
            )
        if concat_dimension >= rank:
            raise ctx.error(
                "all_to_all_c3",
                f"AllToAll concat_dimension {concat_dimension} is out-of-bounds for input rank {rank}",
            )
        shape = list(t.shape)
        s = shape[split_dimension]
        if s is not None and s % split_count:
            raise ctx.error(
                "all_to_all_c2",
                f"split dimension has size {s}, expected to be a multiple of split_count "
                f"{split_count}",
            )
        bounds = list(t.bounds or (None,) * rank)
        split_bound = bounds[split_dimension]
        if s is not None:
            shape[split_dimension] = s // split_count
        elif split_bound is not None:
            bounds[split_dimension] = split_bound // split_count
        c, concat_bound = shape[concat_dimension], bounds[concat_dimension]
        if c is not None:
            shape[concat_dimension] = c * split_count
        elif concat_bound is not None:
            bounds[concat_dimension] = concat_bound * split_count
        encoding = TypeExtensions(tuple(bounds)) if any(b is not None for b in bounds) else None
        out.append(TensorType(tuple(shape), t.element_type, encoding))  # all_to_all_c9
    return tuple(out)


def _root_operands(
    ctx: ShapeContext, name: str, operands: tuple[Type, ...], has_dynamic_root: bool, label: str
) -> tuple[Type, ...]:
    """The data operands of collective_broadcast / collective_reduce (the root operand,
    when ``has_dynamic_root``, is checked and dropped)."""
    if not has_dynamic_root:
        if not operands:
            raise ctx.error(label, f"{name} requires at least one data operand")
        return operands
    if len(operands) < 2:
        raise ctx.error(
            label, f"{name} with has_dynamic_root=true requires at least two operands (data + root)"
        )
    root = operands[-1]
    data = operands[:-1]
    if not (
        isinstance(root, TensorType)
        and root.shape is not None
        and len(root.shape) == 1
        and isinstance(root.element_type, IntegerType)
        and root.element_type.width == 32
        and not root.element_type.is_unsigned
    ):
        raise ctx.error(
            label, f"last operand of {name} with has_dynamic_root=true must be a rank-1 i32 tensor"
        )
    if root.shape[0] is not None and root.shape[0] != len(data):
        raise ctx.error(
            label,
            f"last operand of {name} with has_dynamic_root=true must have the same number of "
            f"elements as data operands ({len(data)}), but got {root.shape[0]}",
        )
    return data


def _unique_groups(ctx: ShapeContext, groups: Any, labels: dict[str, str]) -> None:
    """(C1) is_unique(replica_groups); (C2) ids >= 0 (the upper bound needs the grid)."""
    if not isinstance(groups, np.ndarray):
        return
    if groups.ndim != 2:
        raise ctx.error(labels["rank"], "replica groups should be a rank 2 tensor")
    ids = [x for x in groups.reshape(-1).tolist() if x != -1]
    seen: set[int] = set()
    for rid in ids:
        if rid < 0:
            raise ctx.error(labels["range"], f"Invalid replica id {rid}")
        if rid in seen:
            raise ctx.error(labels["unique"], f"replica id #{rid} seen more than once")
        seen.add(rid)


def collective_broadcast_shape(
    ctx: ShapeContext,
    *operands: Type,
    replica_groups,
    channel_handle=None,
    has_dynamic_root: bool = False,
    op=None,
):
    """spec "collective_broadcast" (C1)-(C6)."""
    for t in operands:
        require_per_tensor(ctx, t, "collective_broadcast_i1")
    _unique_groups(
        ctx,
        replica_groups,
        {
            "rank": "collective_broadcast_i2",
            "unique": "collective_broadcast_c1",
            "range": "collective_broadcast_c2",
        },
    )
    data = _root_operands(
        ctx,
        "collective_broadcast",
        operands,
        has_dynamic_root,
        "collective_broadcast_c4" if has_dynamic_root else "collective_broadcast_c3",
    )
    for t in data:
        require_tensor(ctx, t, "collective_broadcast_i1", "operand")
    results = ctx.result_types
    if results and len(results) != len(data):  # collective_broadcast_c5
        raise ctx.error(
            "collective_broadcast_c5",
            f"expects {len(data)} results (one per data operand), got {len(results)}",
        )
    label = "collective_broadcast_c4" if has_dynamic_root else "collective_broadcast_c3"
    for j, (r, t) in enumerate(zip(results, data)):
        if not compatible(r, t):  # collective_broadcast_c3 / c4: type(results[j])
            raise ctx.error(
                label, f"result #{j} has type {type_text(r)}, operand #{j} {type_text(t)}"
            )
    return data


def collective_reduce_shape(
    ctx: ShapeContext,
    *operands: Type,
    replica_groups,
    channel_handle=None,
    has_dynamic_root: bool = False,
    use_global_device_ids: bool = False,
    op=None,
):
    """spec "collective_reduce" (C1)-(C4)."""
    _unique_groups(
        ctx,
        replica_groups,
        {
            "rank": "collective_reduce_i2",
            "unique": "collective_reduce_c1",
            "range": "collective_reduce_c2",
        },
    )
    _check_global_ids(ctx, "collective_reduce_c4", channel_handle, use_global_device_ids)
    data = _root_operands(
        ctx, "collective_reduce", operands, has_dynamic_root, "collective_reduce_c3"
    )
    ts = [require_tensor(ctx, t, "collective_reduce_i1", "operand") for t in data]
    e = check_computation(ctx, "collective_reduce_c4", [t.element_type for t in ts])
    return tuple(TensorType(t.shape, e, t.encoding) for t in ts)  # collective_reduce_c3


_PAIR_LABELS = {
    "collective_permute": {
        "shape": "collective_permute_c1",
        "sources": "collective_permute_c2",
        "targets": "collective_permute_c3",
        "range": "collective_permute_c4",
    },
}


def collective_permute_shape(
    ctx: ShapeContext, operand: Type, *, source_target_pairs, channel_handle=None, op=None
):
    """spec "collective_permute" (C1)-(C5)."""
    check_pairs(ctx, source_target_pairs, _PAIR_LABELS["collective_permute"])
    t = require_tensor(ctx, operand, "collective_permute_i1", "operand")
    require_per_tensor(ctx, t, "collective_permute_i1")
    if ctx.result_types and not compatible(ctx.result_types[0], t):  # collective_permute_c5
        raise ctx.error(
            "collective_permute_c5",
            f"result type {type_text(ctx.result_types[0])} "
            f"differs from the operand type {type_text(t)}",
        )
    return t


def process_id_shape(ctx: ShapeContext, op=None):
    """replica_id / partition_id: ``tensor<ui32>``."""
    return TensorType((), IntegerType(32, "unsigned"))


def run_parallel_shape(ctx: ShapeContext, *operands: Type, programs, infeed=None, op=None):
    """interpreter.run_parallel: ``programs`` is a non-empty rectangle of function names
    (the functions' types are checked against the operands when it runs)."""
    if not programs or not all(isinstance(row, tuple) and row for row in programs):
        raise ctx.error(
            "run_parallel_programs", "programs must be a non-empty list of non-empty lists"
        )
    if any(len(row) != len(programs[0]) for row in programs):
        raise ctx.error("run_parallel_programs", "every row of programs must have the same length")
    if any(not isinstance(name, str) for row in programs for name in row):
        raise ctx.error("run_parallel_programs", "programs must hold function symbols")
    if infeed is not None and any(not isinstance(name, str) for name in infeed):
        raise ctx.error("run_parallel_infeed", "infeed must be a list of function symbols")
    return None


_GROUPED = {"replica_groups": REQUIRED, "channel_handle": None}
# Collectives, channels, feeds and process ids communicate with or read the state of the
# process grid: never folded or dropped.
_EFFECTS = {"side_effects"}
_CROSS = {"side_effects", "cross_device"}
_PROCESS_ID = {"side_effects", "cross_device", "process_id"}

define_op(
    "stablehlo.all_gather",
    all_gather_shape,
    traits=_CROSS,
    multi_result=True,
    decode=decode_with_op,
    attrs={"all_gather_dim": REQUIRED, **_GROUPED, "use_global_device_ids": False},
    grid_label="all_gather_c3",
)
define_op(
    "stablehlo.all_reduce",
    all_reduce_shape,
    traits=_CROSS,
    multi_result=True,
    decode=decode_with_op,
    regions=("computation",),
    attrs={**_GROUPED, "use_global_device_ids": False},
    result_labels=("all_reduce_c6", "all_reduce_c7"),
    grid_label="all_reduce_c2",
)
define_op(
    "stablehlo.reduce_scatter",
    reduce_scatter_shape,
    traits=_CROSS,
    decode=decode_with_op,
    regions=("computation",),
    attrs={"scatter_dimension": REQUIRED, **_GROUPED, "use_global_device_ids": False},
    grid_label="reduce_scatter_c4",
)
define_op(
    "stablehlo.all_to_all",
    all_to_all_shape,
    traits=_CROSS,
    multi_result=True,
    decode=decode_with_op,
    attrs={
        "split_dimension": REQUIRED,
        "concat_dimension": REQUIRED,
        "split_count": REQUIRED,
        **_GROUPED,
    },
    grid_label="all_to_all_c6",
)
define_op(
    "stablehlo.collective_broadcast",
    collective_broadcast_shape,
    traits=_CROSS,
    multi_result=True,
    decode=decode_with_op,
    attrs={**_GROUPED, "has_dynamic_root": False},
    grid_label="collective_broadcast_c2",
)
define_op(
    "stablehlo.collective_reduce",
    collective_reduce_shape,
    traits=_CROSS,
    multi_result=True,
    decode=decode_with_op,
    regions=("computation",),
    attrs={**_GROUPED, "has_dynamic_root": False, "use_global_device_ids": False},
    grid_label="collective_reduce_c2",
)
define_op(
    "stablehlo.collective_permute",
    collective_permute_shape,
    traits=_CROSS,
    decode=decode_with_op,
    attrs={"source_target_pairs": REQUIRED, "channel_handle": None},
    grid_label="collective_permute_c4",
)
define_op("stablehlo.replica_id", process_id_shape, traits=_PROCESS_ID, decode=decode_with_op)
define_op("stablehlo.partition_id", process_id_shape, traits=_PROCESS_ID, decode=decode_with_op)
define_op(
    "interpreter.run_parallel",
    run_parallel_shape,
    traits=_EFFECTS,
    multi_result=True,
    decode=decode_with_op,
    attrs={"programs": REQUIRED, "infeed": None},
)
