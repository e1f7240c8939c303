"""Kernels of the Shardy (``sdy``) ops, run as a global program on one device.

openxla/shardy ``shardy/dialect/sdy/ir/ops.td``: sharding annotations change no value,
so ``sharding_constraint`` / ``reshard`` / ``propagation_barrier`` / ``data_flow_edge`` /
``func_data_flow_edge`` return their operand, ``sharding_group`` does nothing,
``named_computation`` runs its body once.

``manual_computation`` runs its body once per device of the mesh, on that device's
local pieces (attrs.td TensorShardingAttr: a dimension sharded along axes
``[a, b]`` splits into ``size(a) * size(b)`` pieces, ``a`` major; a sub-axis
``"a":(pre)size`` is the digit ``(i // pre) % size`` of axis ``a``'s index ``i``); only the
manual axes split the body's values.  Devices that differ only along the free axes
compute the same values, so a body without collectives runs once per manual shard;
a body with collectives runs on a process grid of one partition per mesh device (the
device id: the mesh's ``device_ids``, else the row-major index), where its
``replica_groups`` name those devices.  The results are put together by the
out_shardings.  A manual_computation nested in a body that runs on the grid runs on
the device that process is: only the devices agreeing with it on the axes the nested
op leaves free give pieces of its result.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from ...parser.errors import InterpreterError, UnsupportedError
from ...parser.ir import (
    Block,
    DenseElementsAttr,
    Function,
    FunctionType,
    Module,
    Operation,
    Region,
    SymbolRefAttr,
    UnitAttr,
)
from ...shape_inference.optable import OP_TABLE, kernel
from ..grid import ops_reachable, run_grid
from ..options import RunOptions
from ..values import RegionFn

if TYPE_CHECKING:
    from ...parser.sdy import Mesh, TensorSharding


def _identity(x: Any, **_: Any) -> Any:
    return x


for _name in (
    "sdy.sharding_constraint",
    "sdy.reshard",
    "sdy.propagation_barrier",
    "sdy.data_flow_edge",
    "sdy.func_data_flow_edge",
):
    kernel(_name)(_identity)


@kernel("sdy.sharding_group")
def sharding_group(*_: Any, **__: Any) -> None:
    """A propagation hint: no value."""
    return None


@kernel("sdy.constant")
def constant(*, attributes: dict, result_type: Any, **_: Any) -> np.ndarray:
    value = attributes.get("value")
    if not isinstance(value, DenseElementsAttr):
        raise UnsupportedError(f"'sdy.constant' with a {type(value).__name__} value")
    return value.array


@kernel("sdy.named_computation")
def named_computation(*operands: Any, body: RegionFn, **_: Any) -> tuple:
    return tuple(body(*operands))


# ---- the mesh -----------------------------------------------------------------------------


def find_mesh(module: Module, sharding: TensorSharding) -> Mesh:
    """The mesh a sharding names (an ``sdy.mesh`` symbol of the module) or holds."""
    # imported on first use, to keep startup cheap: parser.sdy loads its grammars
    from ...parser.sdy import Mesh

    ref = sharding.mesh_or_ref
    if isinstance(ref, Mesh):
        return ref
    name = ref.root if isinstance(ref, SymbolRefAttr) else None
    for item in module.body:
        if isinstance(item, Operation) and item.name == "sdy.mesh":
            sym = item.attr("sym_name")
            if getattr(sym, "value", None) == name and isinstance(item.attr("mesh"), Mesh):
                return item.attr("mesh")
    raise InterpreterError(f"no sdy.mesh @{name} in the module")


class MeshGrid:
    """The devices of a mesh: coordinates (row-major over its axes) and device ids."""

    def __init__(self, mesh: Mesh):
        self.mesh = mesh
        self.names = tuple(a.name for a in mesh.axes)
        self.sizes = {a.name: a.size for a in mesh.axes}
        # device -> its coordinate on each mesh axis, row-major (one row per device)
        sizes = tuple(a.size for a in mesh.axes)
        n = int(np.prod(sizes, dtype=np.int64))
        grid = np.indices(sizes).reshape(len(sizes), n).T  # (n, axes); one row for ()
        self.coords = [tuple(int(c) for c in row) for row in grid]
        ids = mesh.device_ids or tuple(range(n))
        if len(ids) != n:
            raise InterpreterError(f"mesh device_ids has {len(ids)} ids for {n} devices")
        self.device_ids = tuple(ids)

    def coord(self, device: int) -> dict[str, int]:
        return dict(zip(self.names, self.coords[device]))

    def axis_digit(self, coord: dict[str, int], ref: Any) -> tuple[int, int]:
        """(index, size) of a device along one axis ref (an axis or a sub-axis)."""
        if ref.name not in self.sizes:
            raise InterpreterError(f"axis '{ref.name}' is not in the mesh")
        i = coord[ref.name]
        sub = ref.sub_axis_info
        if sub is None:
            return i, self.sizes[ref.name]
        return (i // sub.pre_size) % sub.size, sub.size


def _pieces(grid: MeshGrid, sharding: TensorSharding, manual: frozenset[str], coord, rank: int):
    """Per dimension: (piece index, piece count) of this device along the manual axes."""
    out = []
    dims = sharding.dim_shardings
    for k in range(rank):
        idx, count = 0, 1
        for ref in dims[k].axes if k < len(dims) else ():
            if ref.name in manual:
                i, n = grid.axis_digit(coord, ref)
                idx, count = idx * n + i, count * n
        out.append((idx, count))
    return out


def _local_slice(shape: Sequence[int], pieces) -> tuple[slice, ...]:
    out = []
    for d, (idx, count) in zip(shape, pieces):
        if d % count:
            raise InterpreterError(f"dimension {d} does not split into {count} pieces")
        m = d // count
        out.append(slice(idx * m, (idx + 1) * m))
    return tuple(out)


# ---- manual_computation ----------------------------------------------------------------------


def _has_collectives(region: Region, module: Module) -> bool:
    """Does the body run a collective, itself or in a function it calls?"""
    for op in ops_reachable(module, (o for b in region.blocks for o in b.operations)):
        row = OP_TABLE.get(op.name)
        if (row is not None and "cross_device" in row.traits) or op.name.startswith("sdy.all_"):
            return True
    return False


def _body_function(region: Region, name: str) -> Function:
    """The body as a function (its ``sdy.return`` a ``func.return``), for the grid."""
    block = region.blocks[0]
    ret = block.operations[-1]
    ops = block.operations[:-1] + (Operation("func.return", ret.operands),)
    ftype = FunctionType(tuple(v.type for v in block.arguments), ret.operand_types)
    return Function(name, ftype, Region((Block(block.arguments, ops),)), visibility="private")


# Marks the module a manual body runs in on the grid: there process p is mesh device p.
_ON_DEVICE = "hlorun.sdy_manual_body"


def _current_device(context: Any) -> int | None:
    """The mesh device running this op when it is inside a manual body run on the
    device grid (a nested manual_computation), else None."""
    if context.interpreter.module.attr(_ON_DEVICE) is None:
        return None
    return int(context.partition_id)


def _run_on_grid(context: Any, region: Region, per_device: list[list[np.ndarray]]) -> list:
    """Run the body as a 1 x N process grid, partition p being device p (each process
    an interpreter of the running one's class)."""
    interp = context.interpreter
    module = interp.module
    name = "__sdy_manual_computation_body"
    body = _body_function(region, name)
    # the module's functions (callees) and meshes (nested manual computations)
    rest = tuple(x for x in module.body if not (isinstance(x, Function) and x.name == name))
    inner = Module((*rest, body), attributes=((_ON_DEVICE, UnitAttr()),))
    opts = RunOptions(float_eq=context.float_eq)
    n = len(per_device)
    return run_grid(inner, [[name] * n], per_device, interpreter=type(interp), options=opts)


@kernel("sdy.manual_computation", context=True)
def manual_computation(
    *operands: Any, attributes: dict, body: RegionFn, result_types: tuple, context: Any, **_: Any
) -> tuple:
    ins = attributes["in_shardings"].shardings
    outs = attributes["out_shardings"].shardings
    manual = frozenset(attributes["manual_axes"].value)
    shardings = (*ins, *outs)
    if not shardings:
        return tuple(body())
    module = context.interpreter.module
    grid = MeshGrid(find_mesh(module, shardings[0]))
    missing = manual - set(grid.names)
    if missing:
        raise InterpreterError(f"manual axes {sorted(missing)} are not in the mesh")
    collectives = _has_collectives(body.region, module)
    # Nested in a manual body running as device ``me``: this device holds only its own
    # values of the enclosing manual axes, so only the devices agreeing with it on every
    # axis this op leaves free give pieces of the result (others of a grid run on this
    # device's values and are left out).  At the top level, the devices whose free
    # coordinates are 0 stand for the others.
    me = _current_device(context)
    here = None if me is None else grid.coord(grid.device_ids.index(me))

    def agrees(d: int) -> bool:
        c = grid.coord(d)
        return all(c[a] == (0 if here is None else here[a]) for a in grid.names if a not in manual)

    # a device per distinct manual shard, unless collectives need every device
    devices = [d for d in range(len(grid.coords)) if collectives or agrees(d)]
    keep = [here is None or agrees(d) for d in devices]
    args = []
    for d in devices:
        coord = grid.coord(d)
        local = []
        for x, s in zip(operands, ins):
            x = np.asarray(x)
            local.append(x[_local_slice(x.shape, _pieces(grid, s, manual, coord, x.ndim))])
        args.append(local)
    if collectives:
        order = sorted(range(len(devices)), key=lambda k: grid.device_ids[devices[k]])
        if [grid.device_ids[devices[k]] for k in order] != list(range(len(devices))):
            raise UnsupportedError("a mesh whose device ids are not 0..N-1")
        ran = _run_on_grid(context, body.region, [args[k] for k in order])
        results: list[Any] = [None] * len(devices)
        for k, r in zip(order, ran):
            results[k] = r
    else:
        results = [body(*a) for a in args]
    out = []
    for j, (s, t) in enumerate(zip(outs, result_types)):
        shape = tuple(t.shape)
        first = np.asarray(results[0][j])
        full = np.empty(shape, dtype=first.dtype)
        for d, r, k in zip(devices, results, keep):
            if not k:
                continue
            coord = grid.coord(d)
            piece = np.asarray(r[j])
            sl = _local_slice(shape, _pieces(grid, s, manual, coord, len(shape)))
            if piece.shape != full[sl].shape:
                raise InterpreterError(
                    f"manual_computation result #{j}: body gave shape {piece.shape} for a "
                    f"piece of shape {full[sl].shape}"
                )
            full[sl] = piece
        out.append(full)
    return tuple(out)
