"""The IR section: operations, regions, blocks, values, use-list orders
(BytecodeReader.cpp ``parseRegions`` / ``parseOpWithoutRegions`` / ``parseBlockHeader``
/ ``parseUseListOrderForRange``), and the conversion to hlorun's Module/Function."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, cast

from ..ir import (
    Attribute,
    Block,
    DictionaryAttr,
    LocationAttr,
    Module,
    Operation,
    Region,
    StringAttr,
    Type,
    Value,
)
from ..mixed_ops import function_of
from .dialect_api import DialectReader
from .encoding import (
    OP_HAS_ATTRS,
    OP_HAS_INLINE_REGIONS,
    OP_HAS_OPERANDS,
    OP_HAS_PROPERTIES,
    OP_HAS_RESULTS,
    OP_HAS_SUCCESSORS,
    OP_HAS_USE_LIST_ORDERS,
    S_IR,
    V_ELIDE_UNKNOWN_BLOCK_ARG_LOCATION,
    V_LAZY_LOADING,
    V_USE_LIST_ORDERING,
    Cursor,
)
from .properties import has_layouts, property_spec, read_some_layout, unknown_op
from .properties import read_properties as read_ods_properties
from .sections import read_section_header

if TYPE_CHECKING:
    from .reader import FileReader

MAX_DEPTH = 120


class Slot:
    """A value while reading: its type once defined, its name, its use-list key."""

    __slots__ = ("type", "name", "key", "value")

    def __init__(self) -> None:
        self.type: Type | None = None
        self.name = ""
        self.key: tuple = ()
        self.value: Value | None = None


class Scope:
    """Values visible in one isolated-from-above region tree (ValueScope)."""

    def __init__(self) -> None:
        self.values: list[Slot | None] = []
        self.next: list[int] = []
        self.limit: list[int] = []
        self.n_results = 0
        self.n_args = 0

    def define(self, c: Cursor) -> Slot:
        i = self.next[-1]
        if i >= self.limit[-1]:
            raise c.error("more values defined than the region declares")
        self.next[-1] = i + 1
        s = self.values[i]
        if s is None:
            s = self.values[i] = Slot()
        return s

    def use(self, idx: int, c: Cursor) -> Slot:
        if idx >= len(self.values):
            raise c.error(f"value index {idx} out of range ({len(self.values)} values)")
        s = self.values[idx]
        if s is None:
            s = self.values[idx] = Slot()  # forward reference
        return s


class OpRec:
    """One operation while reading, before its values are named and its ir.Operation
    is built (``regions``: per region its blocks, each ``(args, ops)`` with ``args`` a
    list of ``(Slot, LocationAttr | None)`` and ``ops`` a list of OpRec)."""

    __slots__ = (
        "name",
        "loc",
        "attrs",
        "props",
        "results",
        "operands",
        "successors",
        "regions",
        "path",
        "isolated",
    )
    name: str
    loc: LocationAttr
    attrs: tuple[tuple[str, Attribute], ...]
    props: tuple[tuple[str, Attribute], ...] | None
    results: tuple[Slot, ...]
    operands: tuple[Slot, ...]
    successors: tuple[int, ...]
    regions: tuple
    path: tuple
    isolated: bool


@dataclass
class BytecodeFile:
    """What a bytecode file holds besides the module: the facts the writer needs to
    reproduce it byte for byte."""

    module: Module
    version: int
    producer: str
    dialect_versions: dict[str, Any] = field(default_factory=dict)
    # Use-list orders as stored, by value range: {("res", op path) | ("arg", block
    # path): ((value index, index-pair encoding, items), ...)}; a path indexes
    # region/block/op from the top-level op.
    use_list_orders: dict[tuple, tuple] = field(default_factory=dict)
    # Op names flagged registered (bytecode v5+).
    registered_ops: dict[str, bool] = field(default_factory=dict)
    # Dialect resource blobs, zero-copy: {(dialect, key): (alignment, memoryview)}.
    resource_blobs: dict[tuple[str, str], tuple[int, memoryview]] = field(default_factory=dict)
    external_resources: tuple = ()
    # Property layouts (name, optional) the file wrote that are not the ones the writer
    # writes by default, by op name (an older or newer LLVM's func.func...).
    property_layouts: dict[str, tuple] = field(default_factory=dict)


class IRReader:
    def __init__(self, fr: FileReader) -> None:
        self.fr = fr
        self.version = fr.version
        self.use_list_orders: dict[tuple, tuple] = {}
        self.property_layouts: dict[str, tuple] = {}
        self.slots: list[Slot] = []

    # ---- structure -------------------------------------------------------------------
    def read(self) -> BytecodeFile:
        c = self.fr.ir
        n_ops, has_args = c.varint_with_flag()
        if n_ops != 1 or has_args:
            raise c.error("the IR section must hold exactly one top-level operation")
        scope = Scope()
        scope.next.append(0)
        scope.limit.append(1 << 62)
        root = self.read_op(c, scope, (), 0)
        if not c.at_end():
            raise c.error("unexpected data after the top-level operation")
        for s in self.slots:
            if s.type is None:
                raise c.error(f"use of a value that is never defined ({s.name or 'unnamed'})")
        module = to_module(self.build(root), resource_texts(self.fr.resources))
        versions = {d: self.fr.dialect_version(d) for d in self.fr.dialect_info.versions}
        registered = {
            o.name: o.registered for o in self.fr.dialect_info.op_names if o.registered is not None
        }
        blobs = {  # kind 0 entries are blobs: (alignment, data)
            (d, k): cast("tuple[int, memoryview]", v)
            for d, k, kind, v in self.fr.resources.entries
            if kind == 0
        }
        return BytecodeFile(
            module,
            self.version,
            self.fr.producer,
            versions,
            self.use_list_orders,
            registered,
            blobs,
            tuple(self.fr.resources.external_groups),
            self.property_layouts,
        )

    def read_op(self, c: Cursor, scope: Scope, path: tuple, depth: int) -> OpRec:
        fr = self.fr
        if depth > MAX_DEPTH:
            raise c.error(f"operations nested deeper than {MAX_DEPTH} levels")
        fr.last = c
        start = c.pos
        idx = c.varint()
        ops = fr.dialect_info.op_names
        if idx >= len(ops):
            raise c.error(f"op name index {idx} out of range ({len(ops)} names)", start)
        opname = ops[idx]
        if unknown_op(opname.name):
            raise c.error(
                f"unregistered operation '{opname.name}' found in dialect "
                f"('{opname.dialect}') that does not allow unknown operations; in bytecode "
                f"version {fr.version} produced by: {fr.producer}",
                start,
            )
        mask = c.byte()
        if mask & 0x80:
            raise c.error(f"invalid op encoding mask {mask:#x}")
        op = OpRec()
        op.name = opname.name
        op.path = path
        loc = fr.attribute(c.varint(), c)
        if not isinstance(loc, LocationAttr):
            raise c.error(f"op '{op.name}': location is not a location attribute")
        op.loc = loc
        op.attrs = ()
        if mask & OP_HAS_ATTRS:
            d = fr.attribute(c.varint(), c)
            if not isinstance(d, DictionaryAttr):
                raise c.error(f"op '{op.name}': attributes are not a dictionary")
            op.attrs = d.entries
        op.props = None
        if mask & OP_HAS_PROPERTIES:
            op.props = self.read_properties(c, opname)
        result_types: tuple[Type, ...] = ()
        if mask & OP_HAS_RESULTS:
            n = c.varint()
            if n > c.remaining():
                raise c.error(f"result count {n} exceeds the bytes left")
            result_types = tuple(fr.type(c.varint(), c) for _ in range(n))
        op.operands = ()
        if mask & OP_HAS_OPERANDS:
            n = c.varint()
            if n > c.remaining():
                raise c.error(f"operand count {n} exceeds the bytes left")
            op.operands = tuple(self._use(scope, c.varint(), c) for _ in range(n))
        op.successors = ()
        if mask & OP_HAS_SUCCESSORS:
            n = c.varint()
            if n > c.remaining():
                raise c.error(f"successor count {n} exceeds the bytes left")
            op.successors = tuple(c.varint() for _ in range(n))
        if mask & OP_HAS_USE_LIST_ORDERS:
            if self.version < V_USE_LIST_ORDERING:
                raise c.error("use-list orders before bytecode version 3")
            self.read_use_lists(c, len(result_types), ("res", path))
        # Results are defined before the regions are read.
        res_slots = []
        for i, t in enumerate(result_types):
            s = scope.define(c)
            s.type = t
            s.key = ("res", path, i)
            res_slots.append(s)
        op.results = tuple(res_slots)
        op.regions = ()
        op.isolated = False
        if mask & OP_HAS_INLINE_REGIONS:
            op.isolated = self._peek_isolated(c)
            op.regions = self.read_regions(c, scope, path, depth, op.name)
        return op

    def _use(self, scope: Scope, idx: int, c: Cursor) -> Slot:
        s = scope.use(idx, c)
        if s.type is None and not s.key:
            s.key = ("forward",)
            self.slots.append(s)
        return s

    @staticmethod
    def _peek_isolated(c: Cursor) -> bool:
        save = c.pos
        _n, isolated = c.varint_with_flag()
        c.pos = save
        return isolated

    def read_regions(self, c: Cursor, scope: Scope, path: tuple, depth: int, name: str):
        n, isolated = c.varint_with_flag()
        if n > c.remaining() + 1:
            raise c.error(f"region count {n} exceeds the bytes left")
        rc = c
        if isolated and self.version >= V_LAZY_LOADING:
            start = c.pos
            sid, rc = read_section_header(c)
            if sid != S_IR:
                raise c.error(f"expected an IR section for the regions of '{name}'", start)
        inner = Scope() if isolated else scope
        regions = []
        for r in range(n):
            regions.append(self.read_region(rc, inner, path + (r,), depth))
        if rc is not c and not rc.at_end():
            raise rc.error(f"unexpected data after the regions of '{name}'")
        return tuple(regions)

    def read_region(self, c: Cursor, scope: Scope, path: tuple, depth: int):
        n_blocks = c.varint()
        if n_blocks == 0:
            return ()
        n_values = c.varint()
        if n_blocks > c.remaining() or n_values > c.remaining():
            raise c.error("region block/value counts exceed the bytes left")
        base = len(scope.values)
        scope.values.extend([None] * n_values)
        scope.next.append(base)
        scope.limit.append(base + n_values)
        blocks = []
        try:
            for b in range(n_blocks):
                blocks.append(self.read_block(c, scope, path + (b,), depth))
        finally:
            del scope.values[base:]
            scope.next.pop()
            scope.limit.pop()
        return tuple(blocks)

    def read_block(self, c: Cursor, scope: Scope, path: tuple, depth: int):
        fr = self.fr
        n_ops, has_args = c.varint_with_flag()
        if n_ops > c.remaining():
            raise c.error(f"block op count {n_ops} exceeds the bytes left")
        args = []
        if has_args:
            n = c.varint()
            if n > c.remaining():
                raise c.error(f"block argument count {n} exceeds the bytes left")
            for i in range(n):
                if self.version >= V_ELIDE_UNKNOWN_BLOCK_ARG_LOCATION:
                    tidx, has_loc = c.varint_with_flag()
                    t = fr.type(tidx, c)
                    loc = fr.attribute(c.varint(), c) if has_loc else None
                else:
                    t = fr.type(c.varint(), c)
                    loc = fr.attribute(c.varint(), c)
                if loc is not None and not isinstance(loc, LocationAttr):
                    raise c.error("block argument location is not a location attribute")
                s = scope.define(c)
                s.type = t
                s.key = ("arg", path, i)
                args.append((s, loc))
            if self.version >= V_USE_LIST_ORDERING:
                mask = c.byte()
                if mask & ~OP_HAS_USE_LIST_ORDERS:
                    raise c.error(f"invalid block encoding mask {mask:#x}")
                if mask & OP_HAS_USE_LIST_ORDERS:
                    self.read_use_lists(c, n, ("arg", path))
        ops = [self.read_op(c, scope, path + (i,), depth + 1) for i in range(n_ops)]
        return (args, ops)

    def read_use_lists(self, c: Cursor, n_values: int, key: tuple) -> None:
        entries: list[tuple[int, bool, tuple[int, ...]]] = []
        count = 1 if n_values == 1 else c.varint()
        if count > max(n_values, 0):
            raise c.error(f"use-list order count {count} exceeds the {n_values} values")
        for _ in range(count):
            idx = 0 if n_values == 1 else c.varint()
            if idx >= n_values:
                raise c.error(f"use-list order for value {idx} of {n_values}")
            n, pairs = c.varint_with_flag()
            if n > c.remaining():
                raise c.error(f"use-list of {n} entries exceeds the bytes left")
            items = tuple(c.varint() for _ in range(n))
            entries.append((idx, pairs, items))
        self.use_list_orders[key] = tuple(entries)

    def read_properties(self, c: Cursor, opname) -> tuple:
        fr = self.fr
        idx = c.varint()
        if idx >= len(fr.properties):
            raise c.error(f"properties index {idx} out of range ({len(fr.properties)})")
        p = fr.properties[idx]
        pc = Cursor(p.data, p.pos, p.end, p.filename, "Properties")
        if opname.registered is False:
            a = fr.attribute(pc.varint(), pc)
            if not isinstance(a, DictionaryAttr):
                raise pc.error(f"op '{opname.name}': properties are not a dictionary")
            return a.entries
        if has_layouts(opname.name):
            return self._read_some_layout(p, opname.name)
        r = DialectReader(pc, fr, self.version)
        entries = read_ods_properties(r, opname.name)
        if not pc.at_end():
            raise pc.error(f"op '{opname.name}': {pc.remaining()} trailing property bytes")
        return tuple(entries)

    def _read_some_layout(self, p: Cursor, name: str) -> tuple:
        """A builtin / func op (whose layout may have changed across LLVM releases):
        the layout its blob decodes with (properties.read_some_layout), else an error
        naming the producer; recorded when it is not the one the writer writes, so
        that a rewrite reproduces the file."""
        fr = self.fr

        def open_reader() -> DialectReader:
            c = Cursor(p.data, p.pos, p.end, p.filename, "Properties")
            return DialectReader(c, fr, self.version)

        found = read_some_layout(open_reader, name)
        if found is None:
            raise Cursor(p.data, p.pos, p.end, p.filename, "Properties").error(
                f"op '{name}': its {p.end - p.pos} property bytes decode with none of "
                f"the layouts known for it (file produced by: {fr.producer})"
            )
        entries, spec = found
        if spec != property_spec(name):
            self.property_layouts[name] = spec
        return entries

    # ---- building the IR ---------------------------------------------------------------
    def build(self, root: OpRec) -> Operation:
        name_values(root)
        return _Builder().op(root)


# Ops whose regions start a fresh value-name scope (IsolatedFromAbove by trait).
_NAME_SCOPE_OPS = frozenset({"builtin.module", "func.func", "vhlo.func_v1"})


def name_values(root: OpRec) -> None:
    """Name every value as MLIR's printer does (AsmPrinter.cpp SSANameState): in each
    region, block arguments ``%argN`` and results ``%N`` (``%N#i`` for several) in
    order; nested regions continue from the numbers their parent region reached,
    sibling regions from the same ones; a function starts again at 0."""
    work = [(root.regions, 0, 0)]
    while work:
        regions, vid0, aid0 = work.pop()
        for blocks in regions:
            vid, aid = vid0, aid0
            nested = []
            for args, ops in blocks:
                for slot, _loc in args:
                    slot.name = f"%arg{aid}"
                    aid += 1
                for op in ops:
                    if op.results:
                        if len(op.results) == 1:
                            op.results[0].name = f"%{vid}"
                        else:
                            for i, r in enumerate(op.results):
                                r.name = f"%{vid}#{i}"
                        vid += 1
                    if op.regions:
                        nested.append(op)
            for op in reversed(nested):
                fresh = op.isolated and op.name in _NAME_SCOPE_OPS
                work.append((op.regions, 0 if fresh else vid, 0 if fresh else aid))


class _Builder:
    """OpRec tree -> ir.Operation tree (values named by ``name_values`` first)."""

    def value(self, s: Slot) -> Value:
        v = s.value
        if v is None:
            assert s.type is not None  # IRReader.read rejected values never defined
            v = s.value = Value(s.name or "%?", s.type)
        return v

    def op(self, r: OpRec) -> Operation:
        props = r.props or ()
        attrs = dict(r.attrs)
        attrs.update(props)
        loc = None if r.loc.text == "unknown" else r.loc
        return Operation(
            r.name,
            tuple(self.value(s) for s in r.operands),
            tuple(self.value(s) for s in r.results),
            tuple(sorted(attrs.items())),
            tuple(self.region(reg) for reg in r.regions),
            tuple(f"^bb{i}" for i in r.successors),
            frozenset(k for k, _ in props),
            loc,
        )

    def region(self, blocks) -> Region:
        out = []
        for bi, (args, ops) in enumerate(blocks):
            locs = tuple(
                None if (loc is None or loc.text == "unknown") else loc for _s, loc in args
            )
            out.append(
                Block(
                    tuple(self.value(s) for s, _ in args),
                    tuple(self.op(o) for o in ops),
                    None if bi == 0 else f"^bb{bi}",
                    locs if any(x is not None for x in locs) else (),
                )
            )
        return Region(tuple(out))


def resource_texts(res) -> tuple[tuple[str, str, str], ...]:
    """Dialect resources as the text form keeps them: a blob is ``"0x"`` + hex of its
    alignment (uint32 LE) and data, as MLIR prints ``dialect_resources``."""
    out = []
    for owner, key, kind, value in res.entries:
        if (owner, key) not in res.handle_set:
            continue
        if kind == 0:
            align, data = value
            text = "0x" + (align.to_bytes(4, "little") + bytes(data)).hex().upper()
        elif kind == 1:
            text = "true" if value else "false"
        else:
            text = value
        out.append((owner, key, text))
    return tuple(out)


def to_module(root: Operation, resources: tuple = ()) -> Module:
    """The top-level ``builtin.module`` operation as an ir.Module."""
    if root.name != "builtin.module" or len(root.regions) != 1:
        return Module((root,), None, (), (), resources, True, None)
    attrs = dict(root.attributes)
    name = attrs.pop("sym_name", None)
    blocks = root.regions[0].blocks
    ops = blocks[0].operations if blocks else ()
    body = tuple(function_of(o) if o.name == "func.func" else o for o in ops)
    return Module(
        body,
        name.value if isinstance(name, StringAttr) else None,
        tuple(attrs.items()),
        (),
        resources,
        False,
        root.location,
    )
