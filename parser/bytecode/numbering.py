"""The writer's numbering pass (llvm-project ``mlir/lib/Bytecode/Writer/IRNumbering.cpp``).

Walks the op tree as MLIR does (the root op, then regions from a LIFO worklist),
counting references to op names, attributes and types; nested attributes/types are
discovered by running the dialect codecs with a recording writer.  Entries are then
ordered by reference count (stable) and grouped by dialect within each varint-width
band (``groupByDialectPerByte``).  Also computes value ids, per-region block/value
counts and which ops are (effectively) isolated from above.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from ..ir import (
    ArrayAttr,
    Attribute,
    BoolAttr,
    ChannelHandle,
    ConvDimensionNumbers,
    DialectAttr,
    DictionaryAttr,
    DotAlgorithm,
    DotDimensionNumbers,
    EnumAttr,
    FloatAttr,
    FloatType,
    GatherDimensionNumbers,
    IntegerAttr,
    IntegerType,
    LocationAttr,
    OpaqueAttr,
    OpaqueType,
    OutputOperandAlias,
    QuantizedType,
    ResultAccuracy,
    ScatterDimensionNumbers,
    TokenType,
    Type,
    TypeExtensions,
)
from .dialect_api import RecordingWriter, all_codecs, get_codec

UNKNOWN_LOC = LocationAttr("unknown")

_STABLEHLO_ATTRS = (
    TypeExtensions,
    GatherDimensionNumbers,
    ScatterDimensionNumbers,
    DotDimensionNumbers,
    ConvDimensionNumbers,
    ChannelHandle,
    OutputOperandAlias,
    DotAlgorithm,
    ResultAccuracy,
)
_PREFIX = re.compile(r"[#!]([A-Za-z_][A-Za-z0-9_$]*)")


def attribute_dialect(a: Attribute) -> str:
    """The dialect an attribute belongs to (its namespace in MLIR)."""
    for codec in all_codecs().values():
        d = codec.attribute_dialect(a)
        if d is not None:
            return d
    if isinstance(a, EnumAttr | DialectAttr):
        return a.dialect
    if isinstance(a, _STABLEHLO_ATTRS):
        return "stablehlo"
    if isinstance(a, OpaqueAttr):
        m = _PREFIX.match(a.text)
        return m.group(1) if m else "builtin"
    return "builtin"


def type_dialect(t: Type) -> str:
    for codec in all_codecs().values():
        d = codec.type_dialect(t)
        if d is not None:
            return d
    if isinstance(t, TokenType):
        return "stablehlo"
    if isinstance(t, QuantizedType):
        return "quant"
    if isinstance(t, OpaqueType):
        m = _PREFIX.match(t.text)
        return m.group(1) if m else "builtin"
    return "builtin"


def canonical_attr(a: Attribute) -> Attribute:
    """The attribute MLIR would unique ``a`` to: hlorun's IR spells some attributes
    more than one way (``1`` vs ``1 : i64``, ``false`` vs ``0 : i1``, a dictionary in
    text order), MLIR has one (IntegerAttr defaults to i64, FloatAttr to f64, BoolAttr
    is an i1 IntegerAttr, DictionaryAttr is sorted by name)."""
    if type(a) is IntegerAttr:
        if a.type is None:
            return IntegerAttr(a.value, IntegerType(64))
        if a.type == _I1:
            return BoolAttr(bool(a.value & 1))
    elif type(a) is FloatAttr:
        if a.type is None:
            return FloatAttr(a.value, FloatType("f64"))
    elif type(a) is ArrayAttr:
        elems = tuple(canonical_attr(x) for x in a.elements)
        if any(x is not y for x, y in zip(elems, a.elements)):
            return ArrayAttr(elems)
    elif type(a) is DictionaryAttr:
        entries = tuple(
            sorted(((k, canonical_attr(v)) for k, v in a.entries), key=lambda kv: _bytes(kv[0]))
        )
        if entries != a.entries:
            return DictionaryAttr(entries)
    return a


def _bytes(s: str) -> bytes:
    return s.encode("utf-8", "surrogateescape")


_I1 = IntegerType(1)


@dataclass(eq=False)
class Entry:
    """One numbered attribute, type or op name."""

    value: Any
    dialect: int
    refs: int = 1
    number: int = -1
    custom: bool = False


@dataclass(eq=False)
class WValue:
    id: int = -1
    uses: list = field(default_factory=list)


@dataclass(eq=False)
class WBlock:
    args: list  # [(WValue, type, loc)]
    ops: list  # [WOp]
    path: tuple = ()


@dataclass(eq=False)
class WRegion:
    blocks: list  # [WBlock]
    n_values: int = 0


@dataclass(eq=False)
class WOp:
    name: str
    loc: Attribute
    dict_attrs: tuple  # discardable (or all) attributes, sorted
    props: Any  # None | ("ods", spec, attrs) | ("dict", DictionaryAttr)
    result_types: tuple
    results: list  # [WValue]
    operands: list  # [WValue]
    successors: tuple  # block indices
    regions: list  # [WRegion]
    path: tuple
    registered: bool = True
    late: int | None = None  # rank among ops created by rewrites (see uselists.py)
    op_id: int = -1
    isolated: bool = True
    parent: WOp | None = None


OpaqueKind = type[OpaqueAttr] | type[OpaqueType]  # kept as text: no dialect encoding


class Numbering:
    """IRNumberingState."""

    def __init__(self, root: WOp, version: int):
        self.version = version
        self.dialects: dict[str, int] = {}
        self.attrs: dict[Any, Entry] = {}
        self.types: dict[Any, Entry] = {}
        self.op_names: dict[str, Entry] = {}
        self.ordered_attrs: list[Entry] = []
        self.ordered_types: list[Entry] = []
        self.ordered_ops: list[Entry] = []
        self.resources: dict[tuple[str, str], int] = {}
        self.next_value = 0
        self.number_op(root)
        work: list[tuple[WRegion, int]] = []
        self._push_regions(root, work)
        while work:
            region, self.next_value = work.pop()
            self.number_region(region)
            for b in region.blocks:
                for op in b.ops:
                    self._push_regions(op, work)
        for lst in (self.ordered_attrs, self.ordered_ops, self.ordered_types):
            lst.sort(key=lambda e: -e.refs)
            _group_by_dialect_per_byte(lst)
        for i, key in enumerate(self.resources):
            self.resources[key] = i

    # ---- dialects and entries ----------------------------------------------------------
    def dialect(self, name: str) -> int:
        d = self.dialects.get(name)
        if d is None:
            d = self.dialects[name] = len(self.dialects)
        return d

    def attribute(self, a: Attribute) -> None:
        a = canonical_attr(a)
        self._number(a, self.attrs, self.ordered_attrs, attribute_dialect(a), OpaqueAttr, True)

    def type(self, t: Type) -> None:
        self._number(t, self.types, self.ordered_types, type_dialect(t), OpaqueType, False)

    def _number(
        self, x: Any, table: dict, ordered: list, dname: str, opaque: OpaqueKind, is_attr: bool
    ) -> None:
        """Count a use of attribute / type ``x``; on its first use give it an entry
        and number what its dialect encoding refers to (IRNumbering's numbering of
        nested attributes and types through the dialect writer)."""
        e = table.get(x)
        if e is not None:
            e.refs += 1
            return
        e = table[x] = Entry(x, -1)
        ordered.append(e)
        e.dialect = self.dialect(dname)
        codec = get_codec(dname)
        if codec is not None and not isinstance(x, opaque):
            rec = RecordingWriter(self.version)
            written = codec.write_attribute(rec, x) if is_attr else codec.write_type(rec, x)
            if written:
                e.custom = True
                self._replay(rec)

    def _replay(self, rec: RecordingWriter) -> None:
        for kind, v in rec.refs:
            if kind == "attr":
                self.attribute(v)
            elif kind == "type":
                self.type(v)
            elif kind == "resource":
                self.resources.setdefault(v, -1)

    def op_name(self, name: str) -> None:
        e = self.op_names.get(name)
        if e is not None:
            e.refs += 1
            return
        e = self.op_names[name] = Entry(name, self.dialect(name.split(".", 1)[0]))
        self.ordered_ops.append(e)

    # ---- IR walk -----------------------------------------------------------------------
    def _push_regions(self, op: WOp, work: list) -> None:
        if not op.regions:
            return
        first = 0 if op.isolated else self.next_value
        for r in op.regions:
            work.append((r, first))

    def number_op(self, op: WOp) -> None:
        self.op_name(op.name)
        for v, t in zip(op.results, op.result_types):
            v.id = self.next_value
            self.next_value += 1
            self.type(t)
        if op.dict_attrs:
            from ..ir import DictionaryAttr

            self.attribute(DictionaryAttr(op.dict_attrs))
        if op.props is not None:
            if op.props[0] == "ods":
                rec = RecordingWriter(self.version)
                from .properties import write_properties

                write_properties(rec, op.props[1], op.props[2])
                self._replay(rec)
            else:
                self.attribute(op.props[1])
        self.attribute(op.loc)

    def number_region(self, region: WRegion) -> None:
        if not region.blocks:
            return
        first = self.next_value
        for b in region.blocks:
            for v, t, loc in b.args:
                v.id = self.next_value
                self.next_value += 1
                self.attribute(loc)
                self.type(t)
            for op in b.ops:
                self.number_op(op)
        region.n_values = self.next_value - first


def _group_by_dialect_per_byte(entries: list[Entry]) -> None:
    """groupByDialectPerByte: stable-sort each varint-width band by dialect, with the
    previous band's last dialect first; then number entries by position."""
    if not entries:
        return
    first_dialect = 0
    in_group = 0
    pos = 0
    for i in range(1, 9):
        in_group = (1 << (7 * i)) - in_group
        band = entries[pos : pos + in_group]
        fd = first_dialect
        band.sort(key=lambda e: (e.dialect != fd, e.dialect))
        entries[pos : pos + len(band)] = band
        pos += len(band)
        first_dialect = band[-1].dialect
        if pos >= len(entries):
            break
    for i, e in enumerate(entries):
        e.number = i


def compute_isolation(root: WOp) -> None:
    """An op with regions is isolated unless something inside uses a value defined
    outside it (IRNumbering.cpp computeGlobalNumberingState)."""
    def_owner: dict[int, WOp] = {}  # id(WValue) -> op whose region defines it (or the def op)
    order: list[WOp] = []

    stack = [root]
    root.parent = None
    # iterative pre-order (deep programs must not hit Python's recursion limit)
    while stack:
        op = stack.pop()
        op.op_id = len(order)
        order.append(op)
        children = []
        for r in op.regions:
            for b in r.blocks:
                for v, _t, _l in b.args:
                    def_owner[id(v)] = op
                for inner in b.ops:
                    inner.parent = op
                    for v in inner.results:
                        def_owner[id(v)] = op
                    children.append(inner)
        stack.extend(reversed(children))
    for op in order:
        for v in op.operands:
            owner = def_owner.get(id(v))
            p = op.parent
            while p is not None and p is not owner:
                p.isolated = False
                p = p.parent
