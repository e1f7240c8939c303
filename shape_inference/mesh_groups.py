"""``replica_groups`` given as mesh axes (spec "Replica groups", "StableHLO Mesh"):
``#stablehlo.replica_group_mesh_axes<mesh = #stablehlo.mesh<...>, axes = [...]>`` names
the mesh axes a collective communicates over; its groups are the devices that differ
only along those axes, so it flattens to the list-of-lists form every collective
reads.

The devices, ``device_ids`` or the coordinates in lexicographical order, form an array
of the mesh's shape.  Each axis splits into the sub-axes the references name
(``sub_axis_info = (pre_size)size``: the part of the axis after the major ``pre_size``,
of ``size``); a group is the array transposed to (the axes not communicated over, in
mesh order; the communicated ones, in the order ``axes`` lists them) and read as rows.
A mesh given by symbol (``mesh = @name``) is left to the interpreter.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import TypeGuard

import numpy as np

from ..parser.ir import (
    ArrayAttr,
    Attribute,
    DenseArrayAttr,
    DenseElementsAttr,
    DialectAttr,
    Function,
    IntegerAttr,
    Module,
    OpaqueAttr,
    Operation,
    Region,
    StringAttr,
    SymbolRefAttr,
)

_SUB_AXIS = re.compile(
    r'#stablehlo\.axis_ref<\s*name\s*=\s*"([^"]*)"\s*,\s*sub_axis_info\s*=\s*\((\d+)\)(\d+)\s*>'
)


class MeshAxesError(ValueError):
    """A ``replica_group_mesh_axes`` that names no valid set of axes."""


@dataclass(frozen=True)
class AxisRef:
    """An axis reference: the whole axis (``sub`` None) or the sub-axis (pre_size, size)."""

    name: str
    sub: tuple[int, int] | None = None


def is_mesh_axes(attr: object) -> TypeGuard[DialectAttr]:
    return (
        isinstance(attr, DialectAttr)
        and attr.dialect == "stablehlo"
        and attr.name == "replica_group_mesh_axes"
    )


def _param(attr: DialectAttr, key: str) -> Attribute | None:
    for k, v in attr.params:
        if k == key:
            return v
    return None


def _ints(attr: Attribute | None) -> list[int] | None:
    if isinstance(attr, DenseArrayAttr):
        return [int(x) for x in attr.values]
    if isinstance(attr, DenseElementsAttr):
        return [int(x) for x in np.asarray(attr.array).reshape(-1).tolist()]
    return None


def _mesh(mesh: DialectAttr) -> tuple[list[tuple[str, int]], list[int] | None]:
    """(axes as (name, size), device_ids or None) of ``#stablehlo.mesh<...>``."""
    axes_attr = _param(mesh, "axes")
    axes: list[tuple[str, int]] = []
    for a in axes_attr.elements if isinstance(axes_attr, ArrayAttr) else ():
        name = _param(a, "name") if isinstance(a, DialectAttr) else None
        size = _param(a, "size") if isinstance(a, DialectAttr) else None
        if not (isinstance(name, StringAttr) and isinstance(size, IntegerAttr)):
            raise MeshAxesError(f"expected #stablehlo.mesh_axis<name, size>, got {a}")
        if size.value <= 0:
            raise MeshAxesError(f"mesh axis '{name.value}' has size {size.value}")
        axes.append((name.value, size.value))
    if len({n for n, _ in axes}) != len(axes):
        raise MeshAxesError("mesh axis names must be unique")
    return axes, _ints(_param(mesh, "device_ids"))


def _refs(attr: Attribute | None) -> list[AxisRef]:
    out = []
    for a in attr.elements if isinstance(attr, ArrayAttr) else ():
        if isinstance(a, DialectAttr) and a.name == "axis_ref":
            name = _param(a, "name")
            if not isinstance(name, StringAttr):
                raise MeshAxesError(f"expected an axis name in {a}")
            out.append(AxisRef(name.value))
        elif isinstance(a, OpaqueAttr) and (m := _SUB_AXIS.fullmatch(a.text)):
            out.append(AxisRef(m.group(1), (int(m.group(2)), int(m.group(3)))))
        else:
            raise MeshAxesError(f"expected #stablehlo.axis_ref in axes, got {a}")
    return out


def _factors(size: int, refs: list[AxisRef], name: str) -> list[int]:
    """The cut points 1 = c0 < c1 < ... = size splitting an axis into the sub-axes its
    references name (major first)."""
    cuts = {1, size}
    for r in refs:
        if r.sub is not None:
            pre, n = r.sub
            if pre <= 0 or n <= 0 or size % (pre * n):
                raise MeshAxesError(f"sub-axis ({pre}){n} does not split axis '{name}' of {size}")
            cuts |= {pre, pre * n}
    points = sorted(cuts)
    for a, b in zip(points, points[1:]):
        if b % a:
            raise MeshAxesError(f"the sub-axes of '{name}' overlap")
    return points


def flatten_mesh_axes(attr: DialectAttr) -> np.ndarray | None:
    """The replica groups (an int64 array, one row per group) a mesh-axes attribute
    stands for; None when the mesh is a symbol (resolved by the interpreter, if ever).
    Raises ``MeshAxesError`` when the axes are not the mesh's."""
    mesh = _param(attr, "mesh")
    if isinstance(mesh, SymbolRefAttr):
        return None
    if not (isinstance(mesh, DialectAttr) and mesh.name == "mesh"):
        # ReplicaGroupMeshAxesAttr::verify (StablehloOps.cpp)
        raise MeshAxesError("mesh must be a FlatSymbolRefAttr or MeshAttr")
    axes, device_ids = _mesh(mesh)
    refs = _refs(_param(attr, "axes"))
    sizes = dict(axes)
    for r in refs:
        if r.name not in sizes:
            raise MeshAxesError(f"axis '{r.name}' not found in mesh definition")
    total = int(np.prod([s for _, s in axes], dtype=np.int64))
    devices = np.arange(total, dtype=np.int64) if device_ids is None else np.array(device_ids)
    if devices.size != total:
        raise MeshAxesError(f"device_ids has {devices.size} ids for a mesh of {total}")
    # fine axes: (axis, cut) -> index in the reshaped device array
    fine: list[tuple[str, int, int]] = []  # (axis name, lower cut, upper cut)
    for name, size in axes:
        points = _factors(size, [r for r in refs if r.name == name], name)
        fine += [(name, a, b) for a, b in zip(points, points[1:])]
    grid = devices.reshape([b // a for _, a, b in fine] or [1])
    comm: list[int] = []
    for r in refs:
        lo, hi = (1, sizes[r.name]) if r.sub is None else (r.sub[0], r.sub[0] * r.sub[1])
        part = [i for i, (n, a, b) in enumerate(fine) if n == r.name and lo <= a and b <= hi]
        if any(i in comm for i in part):
            raise MeshAxesError(f"axis '{r.name}' is named twice")
        comm += part
    rest = [i for i in range(len(fine)) if i not in comm]
    group = int(np.prod([grid.shape[i] for i in comm], dtype=np.int64)) if comm else 1
    if not fine:
        return grid.reshape(1, 1)
    return grid.transpose(rest + comm).reshape(-1, group)


def _symbol_meshes(module: Module) -> dict[str, DialectAttr]:
    """The meshes module-level symbols hold: the ``mesh`` or ``stablehlo.mesh``
    attribute of the symbol (a function, or an op with ``sym_name``), as the reference
    interpreter resolves ``mesh = @name`` (stablehlo/reference/Ops.cpp)."""
    found: dict[str, DialectAttr] = {}
    for item in module.body:
        if isinstance(item, Function):
            name: str | None = item.name
        else:
            sym = item.attr("sym_name")
            name = sym.value if isinstance(sym, StringAttr) else None
        if name is None:
            continue
        attrs = dict(item.attributes)
        for key in ("mesh", "stablehlo.mesh"):
            mesh = attrs.get(key)
            if isinstance(mesh, DialectAttr) and mesh.name == "mesh":
                found[name] = mesh
                break
    return found


def inline_mesh_symbols(module: Module) -> Module:
    """``module`` with every ``replica_group_mesh_axes<mesh = @name, ...>`` whose symbol
    holds a mesh given that mesh inline (the module itself when there is none)."""
    meshes = _symbol_meshes(module)
    if not meshes:
        return module

    def attr(a: Attribute) -> Attribute:
        mesh = _param(a, "mesh") if is_mesh_axes(a) else None
        if isinstance(mesh, SymbolRefAttr) and not mesh.nested and mesh.root in meshes:
            assert isinstance(a, DialectAttr)
            params = tuple((k, meshes[mesh.root] if k == "mesh" else v) for k, v in a.params)
            return replace(a, params=params)
        return a

    def op(o: Operation) -> Operation:
        attrs = tuple((k, attr(v)) for k, v in o.attributes)
        regions = tuple(region(r) for r in o.regions)
        if attrs == o.attributes and all(a is b for a, b in zip(regions, o.regions)):
            return o
        return replace(o, attributes=attrs, regions=regions)

    def region(r: Region) -> Region:
        blocks = tuple(replace(b, operations=tuple(op(o) for o in b.operations)) for b in r.blocks)
        if all(
            all(x is y for x, y in zip(nb.operations, b.operations))
            for nb, b in zip(blocks, r.blocks)
        ):
            return r
        return replace(r, blocks=blocks)

    body = tuple(
        replace(item, body=region(item.body))
        if isinstance(item, Function) and item.body is not None
        else item
        for item in module.body
    )
    return replace(module, body=body)
