"""The Shardy (``sdy``) dialect's bytecode encodings.

Codes and field orders: openxla/shardy ``shardy/dialect/sdy/ir/bytecode.td`` (the
``SdyDialectTypes`` list: an attribute's code is its index there) and ``bytecode.cc``
(TensorSharding / TensorShardingPerValue versions, ``writeOptionalVarInt``, the dialect
version as three varints).  BytecodeBase.td spells the field kinds: ``String`` is a
string-table index, ``SignedVarInt`` a zigzag varint, ``Array<SignedVarIntList>`` one
list of zigzag varints, ``Array<X>`` of an attribute a list of attribute indices,
``Bool`` one byte, ``OptionalVarInt`` a varint with a low presence flag.

Values are parser/sdy's classes, equal to what the text parser builds.  Each op's
properties (its inherent attributes) are the attributes its declaration
(parser/sdy/ops.py) lists.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..bytecode.dialect_api import DialectCodec, DialectReader, DialectWriter, register_codec
from ..ir import Attribute, StringAttr, SymbolRefAttr
from . import (
    REDUCTION_OPS,
    AllToAllParam,
    AllToAllParamList,
    AxisRef,
    AxisRefList,
    DimensionSharding,
    DimMapping,
    ListOfAxisRefLists,
    ManualAxes,
    Mesh,
    MeshAxis,
    OpShardingRule,
    SdyAttr,
    SubAxisInfo,
    TensorMapping,
    TensorSharding,
    TensorShardingPerValue,
)
from .ops import SDY_OPS

# bytecode.td SdyDialectTypes: code -> what it encodes.
ATTR_CODES: dict[int, str] = {
    0: "manual_axes",
    1: "mesh_axis",
    2: "mesh",
    3: "sub_axis_info",
    4: "axis_ref",
    5: "dimension_sharding",
    6: "sharding_v1",  # no unreduced axes
    7: "sharding_per_value_v1",  # no sharding with unreduced axes
    8: "dim_mapping",
    9: "tensor_mapping",
    10: "op_sharding_rule",
    11: "axis_ref_list",
    12: "list_of_axis_ref_lists",
    13: "all_to_all_param",
    14: "all_to_all_param_list",
    15: "sharding_v2",  # unreduced axes, reduction sum
    16: "sharding_per_value_v2",  # some sharding has unreduced axes
    17: "sharding_v3",  # unreduced axes, reduction max/min
}
ATTR_CODE = {v: k for k, v in ATTR_CODES.items()}


def _attr_of(r: DialectReader, cls: type, what: str) -> Any:
    a = r.read_attribute()
    if not isinstance(a, cls):
        raise r.error(f"sdy {what}: expected a {cls.__name__}, found {type(a).__name__}")
    return a


def _attrs(r: DialectReader, cls: type, what: str) -> tuple:
    return r.read_list(lambda: _attr_of(r, cls, what))


def _ints(r: DialectReader) -> tuple[int, ...]:
    return r.read_list(r.read_signed_varint)


def _string(r: DialectReader) -> str:
    a = r.read_attribute()
    if not isinstance(a, StringAttr):
        raise r.error(f"sdy manual_axes: expected a StringAttr, found {type(a).__name__}")
    return a.value


def _sharding(r: DialectReader, version: int) -> TensorSharding:
    mesh = r.read_attribute()
    if not isinstance(mesh, (Mesh, SymbolRefAttr)) or (
        isinstance(mesh, SymbolRefAttr) and mesh.nested
    ):
        raise r.error("sdy sharding: mesh_or_ref is neither a mesh nor a flat symbol reference")
    dims = _attrs(r, DimensionSharding, "sharding")
    replicated = _attrs(r, AxisRef, "sharding")
    unreduced: tuple = () if version == 1 else _attrs(r, AxisRef, "sharding")
    op = "sum"
    if version == 3:
        k = r.read_signed_varint()
        if not 0 <= k < len(REDUCTION_OPS):
            raise r.error(f"sdy sharding: unknown reduction op {k}")
        op = REDUCTION_OPS[k]
    return TensorSharding(mesh, dims, replicated, unreduced, op)


def _axis_ref(r: DialectReader) -> AxisRef:
    name = r.read_string()
    sub = r.read_optional_attribute()
    if sub is not None and not isinstance(sub, SubAxisInfo):
        raise r.error("sdy axis_ref: sub_axis_info is not a SubAxisInfo")
    return AxisRef(name, sub)


def _dim_sharding(r: DialectReader) -> DimensionSharding:
    axes = _attrs(r, AxisRef, "dimension_sharding")
    closed = r.read_bool()
    value, present = r.cursor.varint_with_flag()
    return DimensionSharding(axes, closed, value if present else None)


def _rule(r: DialectReader) -> OpShardingRule:
    sizes = _ints(r)
    operands = _attrs(r, TensorMapping, "op_sharding_rule")
    results = _attrs(r, TensorMapping, "op_sharding_rule")
    lists = (_ints(r), _ints(r), _ints(r), _ints(r))
    return OpShardingRule(sizes, operands, results, *lists, r.read_bool())


_READERS: dict[str, Callable[[DialectReader], Attribute]] = {
    "manual_axes": lambda r: ManualAxes(r.read_list(lambda: _string(r))),
    "mesh_axis": lambda r: MeshAxis(r.read_string(), r.read_signed_varint()),
    "mesh": lambda r: Mesh(_attrs(r, MeshAxis, "mesh"), _ints(r)),
    "sub_axis_info": lambda r: SubAxisInfo(r.read_signed_varint(), r.read_signed_varint()),
    "axis_ref": _axis_ref,
    "dimension_sharding": _dim_sharding,
    "sharding_v1": lambda r: _sharding(r, 1),
    "sharding_v2": lambda r: _sharding(r, 2),
    "sharding_v3": lambda r: _sharding(r, 3),
    "sharding_per_value_v1": lambda r: TensorShardingPerValue(
        _attrs(r, TensorSharding, "sharding_per_value")
    ),
    "sharding_per_value_v2": lambda r: TensorShardingPerValue(
        _attrs(r, TensorSharding, "sharding_per_value")
    ),
    "dim_mapping": lambda r: DimMapping(_ints(r)),
    "tensor_mapping": lambda r: TensorMapping(_attrs(r, DimMapping, "tensor_mapping")),
    "op_sharding_rule": _rule,
    "axis_ref_list": lambda r: AxisRefList(_attrs(r, AxisRef, "axis_ref_list")),
    "list_of_axis_ref_lists": lambda r: ListOfAxisRefLists(
        _attrs(r, AxisRefList, "list_of_axis_ref_lists")
    ),
    "all_to_all_param": lambda r: AllToAllParam(
        _attrs(r, AxisRef, "all_to_all_param"), r.read_signed_varint(), r.read_signed_varint()
    ),
    "all_to_all_param_list": lambda r: AllToAllParamList(
        _attrs(r, AllToAllParam, "all_to_all_param_list")
    ),
}


# ---- writing ----------------------------------------------------------------------------


def code_of(a: Attribute) -> int | None:
    """The code sdy writes ``a`` with (the printerPredicates of bytecode.td)."""
    if isinstance(a, TensorSharding):
        if not a.unreduced_axes:
            return ATTR_CODE["sharding_v1"]
        return ATTR_CODE["sharding_v2" if a.reduction_op == "sum" else "sharding_v3"]
    if isinstance(a, TensorShardingPerValue):
        v2 = any(s.unreduced_axes for s in a.shardings)
        return ATTR_CODE["sharding_per_value_v2" if v2 else "sharding_per_value_v1"]
    if isinstance(a, SdyAttr) and a.mnemonic in ATTR_CODE:
        return ATTR_CODE[a.mnemonic]
    return None


def _write_attrs(w: DialectWriter, items) -> None:
    w.write_list(items, w.write_attribute)


def _write_ints(w: DialectWriter, xs) -> None:
    w.write_list(xs, w.write_signed_varint)


def write_fields(w: DialectWriter, a: Attribute) -> None:
    """The fields of ``a`` after its code, in bytecode.td's order."""
    s = w.write_signed_varint
    if isinstance(a, ManualAxes):
        _write_attrs(w, [StringAttr(v) for v in a.value])
    elif isinstance(a, MeshAxis):
        w.write_string(a.name)
        s(a.size)
    elif isinstance(a, Mesh):
        _write_attrs(w, a.axes)
        _write_ints(w, a.device_ids)
    elif isinstance(a, SubAxisInfo):
        s(a.pre_size)
        s(a.size)
    elif isinstance(a, AxisRef):
        w.write_string(a.name)
        w.write_optional_attribute(a.sub_axis_info)
    elif isinstance(a, DimensionSharding):
        _write_attrs(w, a.axes)
        w.write_bool(a.is_closed)
        w.emitter.varint_with_flag(a.priority or 0, a.priority is not None)
    elif isinstance(a, TensorSharding):
        w.write_attribute(a.mesh_or_ref)
        _write_attrs(w, a.dim_shardings)
        _write_attrs(w, a.replicated_axes)
        if a.unreduced_axes:
            _write_attrs(w, a.unreduced_axes)
            if a.reduction_op != "sum":
                s(REDUCTION_OPS.index(a.reduction_op))
    elif isinstance(a, TensorShardingPerValue):
        _write_attrs(w, a.shardings)
    elif isinstance(a, DimMapping):
        _write_ints(w, a.factor_indices)
    elif isinstance(a, TensorMapping):
        _write_attrs(w, a.dim_mappings)
    elif isinstance(a, OpShardingRule):
        _write_ints(w, a.factor_sizes)
        _write_attrs(w, a.operand_mappings)
        _write_attrs(w, a.result_mappings)
        for xs in a.factor_lists():
            _write_ints(w, xs)
        w.write_bool(a.is_custom_rule)
    elif isinstance(a, (AxisRefList, ListOfAxisRefLists, AllToAllParamList)):
        _write_attrs(w, a.value)
    elif isinstance(a, AllToAllParam):
        _write_attrs(w, a.axes)
        s(a.src_dim)
        s(a.tgt_dim)


# ODS properties of the sdy ops: the attributes each declares (parser/sdy/ops.py, the
# ops.td arguments that are attributes), sorted by name; True marks an optional one.
PROPERTIES: dict[str, tuple[tuple[str, bool], ...]] = {
    name: tuple(sorted((a.name, a.optional) for a in decl.attrs))
    for name, decl in SDY_OPS.items()
    if decl.attrs
}


class SdyCodec(DialectCodec):
    """SdyDialectBytecodeInterface."""

    name = "sdy"

    def read_attribute(self, r: DialectReader) -> Attribute:
        return _READERS[self.read_code(r, ATTR_CODES)](r)

    def write_attribute(self, w: DialectWriter, attr: Attribute) -> bool:
        code = code_of(attr)
        if code is None:
            return False
        w.write_varint(code)
        write_fields(w, attr)
        return True

    def read_type(self, r: DialectReader):
        raise r.error(f"unknown sdy type code: {r.read_varint()}")

    def read_version(self, r: DialectReader) -> tuple[int, int, int]:
        """readVersion: major, minor, patch as varints."""
        return (r.read_varint(), r.read_varint(), r.read_varint())

    def write_version(self, w: DialectWriter) -> bool:
        get = getattr(w.ctx, "dialect_version", None)
        version = get("sdy") if callable(get) else None
        if version is None:
            return False
        for part in tuple(version)[:3]:
            w.write_varint(int(part))
        return True

    def property_spec(self, op_name: str) -> tuple[tuple[str, bool], ...] | None:
        return PROPERTIES.get(op_name)

    def attribute_dialect(self, attr: Attribute) -> str | None:
        return "sdy" if code_of(attr) is not None else None


SDY_CODEC = SdyCodec()
register_codec(SDY_CODEC)
