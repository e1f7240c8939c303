"""Write hlorun's IR as MLIR bytecode, byte for byte as MLIR's writer does
(llvm-project ``mlir/lib/Bytecode/Writer/BytecodeWriter.cpp``; numbering in
``numbering.py``).

Section order: Dialect, AttrTypeOffset, AttrType, IR, ResourceOffset, Resource,
String, Properties (v5+).  Strings are numbered in first-insertion order.
"""

from __future__ import annotations

from typing import Any

from ..errors import HloError
from ..ir import (
    Block,
    DictionaryAttr,
    Function,
    LocationAttr,
    Module,
    Operation,
    Region,
    StringAttr,
)
from ..mixed_ops import function_op
from .dialect_api import DialectWriter, get_codec
from .encoding import (
    MAGIC,
    MAX_SUPPORTED_VERSION,
    OP_HAS_ATTRS,
    OP_HAS_INLINE_REGIONS,
    OP_HAS_OPERANDS,
    OP_HAS_PROPERTIES,
    OP_HAS_RESULTS,
    OP_HAS_SUCCESSORS,
    OP_HAS_USE_LIST_ORDERS,
    S_ATTRTYPE,
    S_ATTRTYPE_OFFSET,
    S_DIALECT,
    S_DIALECT_VERSIONS,
    S_IR,
    S_PROPERTIES,
    S_RESOURCE,
    S_RESOURCE_OFFSET,
    S_STRING,
    V_DIALECT_VERSIONING,
    V_ELIDE_UNKNOWN_BLOCK_ARG_LOCATION,
    V_LAZY_LOADING,
    V_NATIVE_PROPERTIES,
    V_USE_LIST_ORDERING,
    Emitter,
    encode_varint,
)
from .numbering import (
    UNKNOWN_LOC,
    Numbering,
    WBlock,
    WOp,
    WRegion,
    WValue,
    canonical_attr,
    compute_isolation,
)
from .properties import property_spec
from .uselists import range_orders

# Dialects whose ops the writer flags registered (bytecode v5+): those loaded by
# stablehlo-opt / stablehlo-translate and jax's serializer.
KNOWN_DIALECTS = frozenset(
    {
        "builtin",
        "func",
        "vhlo",
        "stablehlo",
        "chlo",
        "quant",
        "check",
        "sdy",
        "mhlo",
        "shape",
        "tensor",
        "arith",
    }
)


class WriteError(HloError):
    """The module cannot be written as bytecode."""


# ---- IR -> writer records ---------------------------------------------------------------


def module_op(m: Module) -> Operation:
    """The ``builtin.module`` operation of a Module (func.func ops for Functions)."""
    attrs = dict(m.attributes)
    if m.name is not None:
        attrs["sym_name"] = StringAttr(m.name)
    body = tuple(function_op(f) if isinstance(f, Function) else f for f in m.body)
    return Operation(
        "builtin.module",
        (),
        (),
        tuple(sorted(attrs.items())),
        (Region((Block((), body),)),),
        (),
        frozenset(),
        m.location,
    )


class _Builder:
    """ir.Operation tree -> WOp tree, resolving operands by name through the scopes."""

    def __init__(
        self, version: int, registered: dict[str, bool], late_ops=(), property_layouts=None
    ):
        self.version = version
        self.registered = registered
        self.property_layouts = property_layouts or {}
        self.late = {id(op): rank for rank, op in enumerate(late_ops)}

    def is_registered(self, name: str) -> bool:
        r = self.registered.get(name)
        if r is not None:
            return r
        return name.split(".", 1)[0] in KNOWN_DIALECTS

    def op(self, op: Operation, path: tuple) -> WOp:
        reg = self.is_registered(op.name)
        attrs = dict(op.attributes)
        props: tuple[Any, ...] | None = None  # the shapes of WOp.props
        dict_attrs = attrs
        if self.version >= V_NATIVE_PROPERTIES:
            spec = (self.property_layouts.get(op.name) or property_spec(op.name)) if reg else None
            if spec is not None:
                names = {n for n, _ in spec}
                missing = [n for n, opt in spec if not opt and n not in attrs]
                if missing:
                    raise WriteError(
                        f"'{op.name}' lacks its inherent attribute(s) {', '.join(missing)}",
                        op.pos,
                    )
                props = ("ods", spec, {k: v for k, v in attrs.items() if k in names})
                dict_attrs = {k: v for k, v in attrs.items() if k not in names}
            elif not reg and op.property_names:
                p = {k: v for k, v in attrs.items() if k in op.property_names}
                props = ("dict", DictionaryAttr(tuple(sorted(p.items()))))
                dict_attrs = {k: v for k, v in attrs.items() if k not in op.property_names}
        return WOp(
            op.name,
            op.location or UNKNOWN_LOC,
            tuple(sorted(dict_attrs.items())),
            props,
            tuple(v.type for v in op.results),
            [WValue() for _ in op.results],
            [],
            (),
            [],
            path,
            reg,
            self.late.get(id(op)),
        )

    def build(self, op: Operation, path: tuple, scopes: list[dict]) -> WOp:
        """The WOp tree of top-level ``op`` (which uses no values)."""
        w = self.op(op, path)
        for ri, region in enumerate(op.regions):
            w.regions.append(self.region(region, path + (ri,), scopes))
        return w

    def region(self, region: Region, path: tuple, scopes: list[dict]) -> WRegion:
        names: dict[str, WValue] = {}
        labels = {}
        blocks: list[WBlock] = []
        pending: list[tuple[Block, WBlock, tuple]] = []
        for bi, b in enumerate(region.blocks):
            if b.label is not None:
                labels[b.label] = bi
            locs = b.arg_locations or ()
            args = []
            for i, v in enumerate(b.arguments):
                wv = WValue()
                names[v.name] = wv
                loc = locs[i] if i < len(locs) and locs[i] is not None else UNKNOWN_LOC
                args.append((wv, v.type, loc))
            wb = WBlock(args, [], path + (bi,))
            blocks.append(wb)
            pending.append((b, wb, path + (bi,)))
        inner = scopes + [names]
        ops_by_block = []
        for b, wb, bpath in pending:
            ws = []
            for oi, op in enumerate(b.operations):
                w = self.op(op, bpath + (oi,))
                for v, wv in zip(op.results, w.results):
                    names[v.name] = wv
                ws.append((op, w))
            ops_by_block.append((wb, ws, bpath))
        for wb, ws, bpath in ops_by_block:
            for oi, (op, w) in enumerate(ws):
                for i, v in enumerate(op.operands):
                    wv = _lookup(inner, v.name, op.name)
                    w.operands.append(wv)
                    wv.uses.append((w, i))
                w.successors = tuple(_block_index(labels, s, op.name) for s in op.successors)
                for ri, r in enumerate(op.regions):
                    w.regions.append(self.region(r, bpath + (oi, ri), inner))
                wb.ops.append(w)
        return WRegion(blocks)


def _block_index(labels: dict[str, int], label: str, opname: str) -> int:
    if label not in labels:
        raise WriteError(f"successor {label} of '{opname}' is not a block of its region")
    return labels[label]


def _lookup(scopes: list[dict], name: str, opname: str) -> WValue:
    for s in reversed(scopes):
        v = s.get(name)
        if v is not None:
            return v
    raise WriteError(f"operand {name} of '{opname}' is not defined")


# ---- writer -----------------------------------------------------------------------------


class _Strings:
    def __init__(self) -> None:
        self.index: dict[str, int] = {}

    def insert(self, s: str) -> int:
        i = self.index.get(s)
        if i is None:
            i = self.index[s] = len(self.index)
        return i

    def encode(self) -> bytes:
        e = Emitter()
        e.varint(len(self.index))
        raw = [_str_bytes(s) for s in self.index]
        for b in reversed(raw):
            e.varint(len(b) + 1)
        for b in raw:
            e.bytes(b)
            e.byte(0)
        return e.getvalue()


def _str_bytes(s: str) -> bytes:
    """An MLIR string's bytes (held as UTF-8 with ``surrogateescape``: lexer.unescape_string)."""
    try:
        return s.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:
        return s.encode("utf-8", "surrogatepass")


class _Ctx:
    """Index lookups for DialectWriter (numbering + string table)."""

    def __init__(self, num: Numbering, strings: _Strings):
        self.num = num
        self.strings = strings

    def string_index(self, s: str) -> int:
        return self.strings.insert(s)

    def attribute_index(self, a) -> int:
        return self.num.attrs[canonical_attr(a)].number

    def type_index(self, t) -> int:
        return self.num.types[t].number

    def resource_index(self, dialect: str, key: str) -> int:
        return self.num.resources[(dialect, key)]


def _section(out: Emitter, sid: int, body: Emitter | bytes) -> None:
    if not isinstance(body, Emitter):
        e = Emitter()
        e.bytes(body)
        body = e
    out.section(sid, body)


class BytecodeWriter:
    def __init__(
        self,
        root: Operation,
        version: int,
        producer: str,
        use_list_orders: dict | None = None,
        registered: dict | None = None,
        resources: tuple = (),
        late_ops=(),
        property_layouts: dict | None = None,
    ):
        if not 0 <= version <= MAX_SUPPORTED_VERSION:
            raise WriteError(
                f"unsupported bytecode version {version}, must be in range "
                f"[0, {MAX_SUPPORTED_VERSION}]"
            )
        self.version = version
        self.producer = producer
        self.orders = use_list_orders or {}
        self.builder = _Builder(version, registered or {}, late_ops, property_layouts)
        self.compute_orders = bool(late_ops)
        self.root = self.builder.build(root, (), [])
        compute_isolation(self.root)
        self.num = Numbering(self.root, version)
        self.strings = _Strings()
        self.ctx = _Ctx(self.num, self.strings)
        self.props: list[bytes] = []
        self.props_index: dict[bytes, int] = {}
        self.resources = resources

    def write(self) -> bytes:
        out = Emitter()
        out.bytes(MAGIC)
        out.varint(self.version)
        out.cstring(self.producer)
        _section(out, S_DIALECT, self.dialect_section())
        offsets, data = self.attr_type_sections()
        _section(out, S_ATTRTYPE_OFFSET, offsets)
        _section(out, S_ATTRTYPE, data)
        ir = Emitter()
        ir.varint_with_flag(1, False)
        self.write_op(ir, self.root)
        _section(out, S_IR, ir)
        self.resource_sections(out)
        _section(out, S_STRING, self.strings.encode())
        if self.version >= V_NATIVE_PROPERTIES:
            p = Emitter()
            p.varint(len(self.props))
            for storage in self.props:
                p.bytes(storage)
            _section(out, S_PROPERTIES, p)
        return out.getvalue()

    # ---- dialects ------------------------------------------------------------------------
    def dialect_section(self) -> Emitter:
        e = Emitter()
        e.varint(len(self.num.dialects))
        for name in self.num.dialects:
            sid = self.strings.insert(name)
            if self.version < V_DIALECT_VERSIONING:
                e.varint(sid)
                continue
            ve = Emitter()
            codec = get_codec(name)
            if codec is not None:
                codec.write_version(DialectWriter(ve, self.ctx, self.version))
            e.varint_with_flag(sid, len(ve) > 0)
            if len(ve):
                _section(e, S_DIALECT_VERSIONS, ve)
        if self.version >= V_ELIDE_UNKNOWN_BLOCK_ARG_LOCATION:
            e.varint(len(self.num.ordered_ops))

        def emit_name(entry) -> None:
            sid = self.strings.insert(
                entry.value.split(".", 1)[1] if "." in entry.value else entry.value
            )
            if self.version < V_NATIVE_PROPERTIES:
                e.varint(sid)
            else:
                e.varint_with_flag(sid, self._registered(entry.value))

        _grouped(e, self.num.ordered_ops, emit_name)
        return e

    def _registered(self, name: str) -> bool:
        return self.builder.is_registered(name)

    # ---- attributes and types ------------------------------------------------------------
    def attr_type_sections(self) -> tuple[Emitter, Emitter]:
        from ..printer import print_attribute, print_type

        off = Emitter()
        data = Emitter()
        off.varint(len(self.num.ordered_attrs))
        off.varint(len(self.num.ordered_types))
        prev = 0
        dialect_names = list(self.num.dialects)

        def emit(entry, is_attr: bool) -> None:
            nonlocal prev
            custom = False
            codec = get_codec(dialect_names[entry.dialect])
            if entry.custom and codec is not None:
                w = DialectWriter(data, self.ctx, self.version)
                mark = data.mark()
                ok = (
                    codec.write_attribute(w, entry.value)
                    if is_attr
                    else codec.write_type(w, entry.value)
                )
                if ok:
                    custom = True
                else:
                    data.rollback(mark)
            if not custom:
                v = entry.value
                text = _attr_text(v, print_attribute) if is_attr else print_type(v)
                data.bytes(_str_bytes(text))
                data.byte(0)
            cur = len(data)
            off.varint_with_flag(cur - prev, custom)
            prev = cur

        _grouped(off, self.num.ordered_attrs, lambda en: emit(en, True))
        _grouped(off, self.num.ordered_types, lambda en: emit(en, False))
        return off, data

    # ---- IR --------------------------------------------------------------------------------
    def write_op(self, e: Emitter, op: WOp) -> None:
        num = self.num
        e.varint(num.op_names[op.name].number)
        mask_at = len(e)
        e.byte(0)
        mask = 0
        e.varint(num.attrs[canonical_attr(op.loc)].number)
        if op.dict_attrs:
            mask |= OP_HAS_ATTRS
            e.varint(num.attrs[canonical_attr(DictionaryAttr(op.dict_attrs))].number)
        if self.version >= V_NATIVE_PROPERTIES and op.props is not None:
            mask |= OP_HAS_PROPERTIES
            e.varint(self.emit_properties(op))
        if op.results:
            mask |= OP_HAS_RESULTS
            e.varint(len(op.results))
            for t in op.result_types:
                e.varint(num.types[t].number)
        if op.operands:
            mask |= OP_HAS_OPERANDS
            e.varint(len(op.operands))
            for v in op.operands:
                e.varint(v.id)
        if op.successors:
            mask |= OP_HAS_SUCCESSORS
            e.varint(len(op.successors))
            for s in op.successors:
                e.varint(s)
        if self.version >= V_USE_LIST_ORDERING:
            if self.write_use_lists(e, ("res", op.path), op.results):
                mask |= OP_HAS_USE_LIST_ORDERS
        if op.regions:
            mask |= OP_HAS_INLINE_REGIONS
        e.patch(mask_at, mask)
        if op.regions:
            e.varint_with_flag(len(op.regions), op.isolated)
            if op.isolated and self.version >= V_LAZY_LOADING:
                re_ = Emitter()
                for r in op.regions:
                    self.write_region(re_, r)
                _section(e, S_IR, re_)
            else:
                for r in op.regions:
                    self.write_region(e, r)

    def write_region(self, e: Emitter, r: WRegion) -> None:
        if not r.blocks:
            e.varint(0)
            return
        e.varint(len(r.blocks))
        e.varint(r.n_values)
        for b in r.blocks:
            self.write_block(e, b)

    def write_block(self, e: Emitter, b: WBlock) -> None:
        num = self.num
        e.varint_with_flag(len(b.ops), bool(b.args))
        if b.args:
            e.varint(len(b.args))
            for _v, t, loc in b.args:
                if self.version >= V_ELIDE_UNKNOWN_BLOCK_ARG_LOCATION:
                    known = loc != UNKNOWN_LOC
                    e.varint_with_flag(num.types[t].number, known)
                    if known:
                        e.varint(num.attrs[canonical_attr(loc)].number)
                else:
                    e.varint(num.types[t].number)
                    e.varint(num.attrs[canonical_attr(loc)].number)
            if self.version >= V_USE_LIST_ORDERING:
                at = len(e)
                e.byte(0)
                if self.write_use_lists(e, ("arg", b.path), [a[0] for a in b.args]):
                    e.patch(at, OP_HAS_USE_LIST_ORDERS)
        for op in b.ops:
            self.write_op(e, op)

    def write_use_lists(self, e: Emitter, key: tuple, values: list) -> bool:
        """Emit the use-list orders of a result/argument range: those stored when the
        file was read, else (with ``late_ops``) those the uses imply."""
        n_values = len(values)
        order = self.orders.get(key)
        if order is None and self.compute_orders:
            order = range_orders(values)
        if not order:
            return False
        if n_values != 1:
            e.varint(len(order))
        for idx, pairs, items in order:
            if n_values != 1:
                e.varint(idx)
            e.varint_with_flag(len(items), pairs)
            for it in items:
                e.varint(it)
        return True

    def emit_properties(self, op: WOp) -> int:
        body = Emitter()
        if op.props[0] == "ods":
            from .properties import write_properties

            write_properties(DialectWriter(body, self.ctx, self.version), op.props[1], op.props[2])
        else:
            body.varint(self.num.attrs[canonical_attr(op.props[1])].number)
        raw = body.getvalue()
        storage = encode_varint(len(raw)) + raw
        idx = self.props_index.get(storage)
        if idx is None:
            idx = self.props_index[storage] = len(self.props)
            self.props.append(storage)
        return idx

    # ---- resources -------------------------------------------------------------------------
    def resource_sections(self, out: Emitter) -> None:
        off = Emitter()
        data = Emitter()
        off.varint(0)  # external resource printers
        groups: dict[str, list] = {}
        for (dialect, key), _i in sorted(self.num.resources.items(), key=lambda kv: kv[1]):
            groups.setdefault(dialect, []).append(key)
        blobs = {(d, k): v for d, k, v in self.resources}
        prev = 0
        for dialect, keys in groups.items():
            entries = []
            for key in keys:
                blob = blobs.get((dialect, key))
                if blob is not None:
                    align, payload = blob
                    data.varint(align)
                    data.varint(len(payload))
                    data.align(align)
                    data.bytes(payload)
                cur = len(data)
                entries.append((key, cur - prev, 0))
                prev = cur
            off.varint(self.num.dialects[dialect])
            off.varint(len(entries))
            for key, size, kind in entries:
                off.varint(self.strings.insert(key))
                off.varint(size)
                off.byte(kind)
        _section(out, S_RESOURCE_OFFSET, off)
        _section(out, S_RESOURCE, data)


def _attr_text(a, print_attribute) -> str:
    if isinstance(a, LocationAttr):
        return f"loc({a.text})"
    return print_attribute(a)


def _grouped(e: Emitter, entries: list, fn) -> None:
    """writeDialectGrouping: runs of entries with the same dialect, each as
    (dialect number, count, entries...)."""
    i = 0
    n = len(entries)
    while i < n:
        d = entries[i].dialect
        j = i + 1
        while j < n and entries[j].dialect == d:
            j += 1
        e.varint(d)
        e.varint(j - i)
        for k in range(i, j):
            fn(entries[k])
        i = j


def write_bytecode(
    module: Module | Operation,
    version: int = 6,
    producer: str = "MLIR",
    *,
    use_list_orders: dict | None = None,
    registered: dict[str, bool] | None = None,
    resources: tuple = (),
    late_ops: tuple = (),
    property_layouts: dict | None = None,
) -> bytes:
    """MLIR bytecode of ``module`` at bytecode ``version`` with ``producer``.

    ``use_list_orders`` / ``registered`` come from ``BytecodeFile`` when rewriting a
    file that was read (so that the bytes are reproduced).  ``late_ops``: operations of
    ``module`` that a rewrite created after all others, oldest first (e.g. ops a
    version downgrade replaced): their uses are the newest in MLIR's use-lists, and
    the writer records the orders this implies, as MLIR's does (see uselists.py).
    ``property_layouts``: {op name: (name, optional) fields} for ops whose properties
    are to be written in another layout than the default (``BytecodeFile``'s)."""
    root = module_op(module) if isinstance(module, Module) else module
    if isinstance(module, Module) and not resources:
        resources = blob_resources(module.resources)
    w = BytecodeWriter(
        root,
        version,
        producer,
        use_list_orders,
        registered,
        resources,
        late_ops=late_ops,
        property_layouts=property_layouts,
    )
    return w.write()


def blob_resources(texts) -> tuple:
    """(dialect, key, (alignment, data)) of each hex blob of ``Module.resources``."""
    out = []
    for dialect, key, text in texts:
        if not (text.startswith("0x") and len(text) >= 10):
            continue
        try:
            raw = bytes.fromhex(text[2:])
        except ValueError:
            continue
        out.append((dialect, key, (int.from_bytes(raw[:4], "little"), raw[4:])))
    return tuple(out)


def rewrite(bf: Any) -> bytes:
    """Write a ``BytecodeFile`` back with its own version, producer and use-lists."""
    return write_bytecode(
        bf.module,
        bf.version,
        bf.producer,
        use_list_orders=bf.use_list_orders,
        registered=bf.registered_ops,
        property_layouts=bf.property_layouts,
    )
