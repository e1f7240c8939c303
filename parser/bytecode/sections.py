"""The file-level sections of MLIR bytecode: header, strings, dialects, attr/type
offsets, resources (BytecodeFormat.md; BytecodeReader.cpp ``parse*Section``)."""

from __future__ import annotations

from dataclasses import dataclass, field

from .encoding import (
    MAGIC,
    MAX_SUPPORTED_VERSION,
    S_ATTRTYPE,
    S_ATTRTYPE_OFFSET,
    S_DIALECT,
    S_DIALECT_VERSIONS,
    S_IR,
    S_PROPERTIES,
    S_STRING,
    SECTION_NAMES,
    V_DIALECT_VERSIONING,
    V_ELIDE_UNKNOWN_BLOCK_ARG_LOCATION,
    V_NATIVE_PROPERTIES,
    Cursor,
    byte_error,
)

# AsmResourceEntryKind (mlir/IR/AsmState.h).
RES_BLOB, RES_BOOL, RES_STRING = 0, 1, 2


@dataclass
class Header:
    version: int
    producer: str
    sections: dict[int, Cursor]


def read_section_header(c: Cursor) -> tuple[int, Cursor]:
    """One section: id byte (high bit: aligned), varint length, [alignment, padding]."""
    start = c.pos
    code = c.byte()
    sid = code & 0x7F
    length = c.varint()
    if code & 0x80:
        c.align(c.varint())
    name = SECTION_NAMES.get(sid)
    if name is None:
        raise c.error(f"invalid section id {sid}", start)
    return sid, c.sub(length, name)


def read_header(data, filename: str) -> Header:
    c = Cursor(data, 0, len(data), filename, "header")
    if len(data) < 4 or bytes(data[:4]) != MAGIC:
        raise c.error("not MLIR bytecode: bad magic (expected 'ML\\xefR')")
    c.pos = 4
    version = c.varint()
    if version > MAX_SUPPORTED_VERSION:
        raise c.error(
            f"bytecode version {version} is newer than the supported {MAX_SUPPORTED_VERSION}"
        )
    producer = c.cstring()
    sections: dict[int, Cursor] = {}
    while not c.at_end():
        start = c.pos
        sid, sub = read_section_header(c)
        if sid in sections or sid == S_DIALECT_VERSIONS:
            raise c.error(f"unexpected or duplicate section '{SECTION_NAMES[sid]}'", start)
        sections[sid] = sub
    for sid in (S_STRING, S_DIALECT, S_ATTRTYPE, S_ATTRTYPE_OFFSET, S_IR):
        if sid not in sections:
            raise byte_error(
                filename, len(data), "header", f"missing section '{SECTION_NAMES[sid]}'"
            )
    if version < V_NATIVE_PROPERTIES and S_PROPERTIES in sections:
        raise sections[S_PROPERTIES].error("properties section before bytecode version 5")
    return Header(version, producer, sections)


def read_strings(c: Cursor) -> list[str]:
    """String section: count, sizes (reversed), then NUL-terminated data at the end."""
    n = c.varint()
    if n > c.remaining():
        raise c.error(f"string count {n} exceeds the section size")
    sizes = [c.varint() for _ in range(n)]
    end = c.end
    data = c.data
    out: list[str] = [""] * n
    for i, size in enumerate(sizes):  # sizes[0] is the last string's
        j = n - 1 - i
        if size == 0 or end - size < c.pos:
            raise c.error(f"string {j} of size {size} overruns the section")
        raw = data[end - size : end]
        if raw[-1] != 0:
            raise c.error(f"string {j} is not NUL-terminated", end - 1)
        out[j] = bytes(raw[:-1]).decode("utf-8", "surrogateescape")  # lexer.unescape_string
        end -= size
    return out


@dataclass
class OpName:
    dialect: str
    name: str  # full name "dialect.op"
    registered: bool | None  # None before bytecode version 5


@dataclass
class DialectInfo:
    names: list[str]
    versions: dict[str, Cursor]
    op_names: list[OpName]


def read_dialects(c: Cursor, strings: list[str], version: int) -> DialectInfo:
    def string(idx: int) -> str:
        if idx >= len(strings):
            raise c.error(f"string index {idx} out of range ({len(strings)} strings)")
        return strings[idx]

    n = c.varint()
    if n > c.remaining():
        raise c.error(f"dialect count {n} exceeds the section size")
    names: list[str] = []
    versions: dict[str, Cursor] = {}
    for _ in range(n):
        if version < V_DIALECT_VERSIONING:
            names.append(string(c.varint()))
            continue
        idx, has_version = c.varint_with_flag()
        name = string(idx)
        names.append(name)
        if has_version:
            start = c.pos
            sid, sub = read_section_header(c)
            if sid != S_DIALECT_VERSIONS:
                raise c.error(f"expected a dialect version section, found section id {sid}", start)
            versions[name] = sub
    if version >= V_ELIDE_UNKNOWN_BLOCK_ARG_LOCATION:
        c.varint()  # number of op names (a reservation hint)
    op_names: list[OpName] = []
    while not c.at_end():
        d = c.varint()
        if d >= len(names):
            raise c.error(f"dialect index {d} out of range ({len(names)} dialects)")
        count = c.varint()
        if count > c.remaining():
            raise c.error(f"op name count {count} exceeds the section size")
        for _ in range(count):
            if version < V_NATIVE_PROPERTIES:
                op_names.append(OpName(names[d], f"{names[d]}.{string(c.varint())}", None))
            else:
                idx, reg = c.varint_with_flag()
                op_names.append(OpName(names[d], f"{names[d]}.{string(idx)}", reg))
    return DialectInfo(names, versions, op_names)


@dataclass
class Entry:
    dialect: str
    custom: bool
    start: int
    end: int


def read_attr_type_offsets(c: Cursor, data_c: Cursor, dialects: list[str]):
    """Attribute and type entries: per dialect group, (size, has-custom-encoding)."""
    n_attrs = c.varint()
    n_types = c.varint()
    if n_attrs + n_types > c.remaining():
        raise c.error("attribute/type counts exceed the section size")
    offset = data_c.pos

    def group(total: int) -> list[Entry]:
        nonlocal offset
        out: list[Entry] = []
        while len(out) < total:
            d = c.varint()
            if d >= len(dialects):
                raise c.error(f"dialect index {d} out of range ({len(dialects)} dialects)")
            count = c.varint()
            if count > total - len(out):
                raise c.error(f"attr/type group of {count} entries overruns the count")
            for _ in range(count):
                size, custom = c.varint_with_flag()
                if size > data_c.end - offset:
                    raise c.error(f"attr/type entry of {size} bytes overruns the AttrType section")
                out.append(Entry(dialects[d], custom, offset, offset + size))
                offset += size
        return out

    attrs = group(n_attrs)
    types = group(n_types)
    if not c.at_end():
        raise c.error("unexpected data after the attribute/type offsets")
    if offset != data_c.end:
        raise data_c.error("AttrType section has trailing data", offset)
    return attrs, types


@dataclass
class Resources:
    """Dialect resource handles in file order, and their data."""

    handles: list[tuple[str, str]] = field(default_factory=list)
    # (dialect or external group, key, kind, value: (alignment, memoryview) | bool | str)
    entries: list[tuple[str, str, int, object]] = field(default_factory=list)
    external_groups: list[str] = field(default_factory=list)

    @property
    def handle_set(self) -> set[tuple[str, str]]:
        return set(self.handles)


def read_resources(off: Cursor, data: Cursor, strings: list[str], dialects: list[str]) -> Resources:
    def string(idx: int) -> str:
        if idx >= len(strings):
            raise off.error(f"string index {idx} out of range ({len(strings)} strings)")
        return strings[idx]

    res = Resources()

    def group(owner: str, is_dialect: bool) -> None:
        n = off.varint()
        if n > off.remaining():
            raise off.error(f"resource count {n} exceeds the section size")
        for _ in range(n):
            key = string(off.varint())
            size = off.varint()
            kind = off.byte()
            entry = data.sub(size, "Resource")
            value: object
            if kind == RES_BLOB:
                align = entry.varint()
                length = entry.varint()
                entry.align(align if align else 1)
                value = (align, entry.bytes(length))
            elif kind == RES_BOOL:
                value = bool(entry.byte())
            elif kind == RES_STRING:
                value = string(entry.varint())
            else:
                raise off.error(f"unknown resource kind {kind}")
            if is_dialect:
                res.handles.append((owner, key))
            res.entries.append((owner, key, kind, value))

    n_ext = off.varint()
    if n_ext > off.remaining():
        raise off.error(f"external resource group count {n_ext} exceeds the section")
    for _ in range(n_ext):
        name = string(off.varint())
        res.external_groups.append(name)
        group(name, False)
    while not off.at_end():
        d = off.varint()
        if d >= len(dialects):
            raise off.error(f"dialect index {d} out of range ({len(dialects)} dialects)")
        group(dialects[d], True)
    return res
