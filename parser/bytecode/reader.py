"""Read MLIR bytecode into hlorun's IR (bytecode versions 0 to 6).

Format: llvm-project ``mlir/docs/BytecodeFormat.md`` and
``mlir/lib/Bytecode/Reader/BytecodeReader.cpp``.  Attributes and types are decoded
lazily through the dialect codecs (``dialect_api``), or parsed from their textual
form with the project's text parser.  Every failure is a ``ParseError`` naming the
byte offset and the section.
"""

from __future__ import annotations

from typing import Any

from ..errors import HloError, ParseError
from ..ir import Attribute, LocationAttr, Module, OpaqueAttr, OpaqueType, Type
from .dialect_api import DialectReader, get_codec
from .encoding import (
    S_ATTRTYPE,
    S_ATTRTYPE_OFFSET,
    S_DIALECT,
    S_IR,
    S_PROPERTIES,
    S_RESOURCE,
    S_RESOURCE_OFFSET,
    S_STRING,
    Cursor,
    byte_error,
    is_bytecode,
)
from .ir_reader import BytecodeFile, IRReader
from .sections import (
    DialectInfo,
    Entry,
    Resources,
    read_attr_type_offsets,
    read_dialects,
    read_header,
    read_resources,
    read_strings,
)

MAX_NESTING = 64
# What a codec may raise on malformed input (turned into a ParseError at the entry).
_CODEC_ERRORS = (
    ValueError,
    TypeError,
    KeyError,
    IndexError,
    OverflowError,
    AttributeError,
    ArithmeticError,
    RecursionError,
    MemoryError,
    UnicodeError,
    LookupError,
)


class FileReader:
    """Owns the sections of one file and resolves indices for the dialect codecs."""

    def __init__(self, data, filename: str = "<bytecode>"):
        self.data = data
        self.filename = filename
        h = read_header(data, filename)
        self.version = h.version
        self.producer = h.producer
        s = h.sections
        self.strings = read_strings(s[S_STRING])
        self.dialect_info: DialectInfo = read_dialects(s[S_DIALECT], self.strings, h.version)
        self.attr_data = s[S_ATTRTYPE]
        self.attr_entries, self.type_entries = read_attr_type_offsets(
            s[S_ATTRTYPE_OFFSET], self.attr_data, self.dialect_info.names
        )
        self.attrs: list[Attribute | None] = [None] * len(self.attr_entries)
        self.types: list[Type | None] = [None] * len(self.type_entries)
        self._resolving: set[tuple[str, int]] = set()
        self._versions: dict[str, Any] = {}
        if (S_RESOURCE in s) != (S_RESOURCE_OFFSET in s):
            which = s[S_RESOURCE] if S_RESOURCE in s else s[S_RESOURCE_OFFSET]
            raise which.error("resource and resource-offset sections come together")
        self.resources = Resources()
        if S_RESOURCE_OFFSET in s:
            self.resources = read_resources(
                s[S_RESOURCE_OFFSET], s[S_RESOURCE], self.strings, self.dialect_info.names
            )
        self.properties: list[Cursor] = []
        if S_PROPERTIES in s:
            self.properties = _read_properties_table(s[S_PROPERTIES])
        self.ir = s[S_IR]
        self.last: Cursor | None = self.ir  # where the reader is (for error positions)

    # ---- index resolution (the ctx of DialectReader) ---------------------------------
    def string(self, idx: int, c: Cursor) -> str:
        if idx >= len(self.strings):
            raise c.error(f"string index {idx} out of range ({len(self.strings)} strings)")
        return self.strings[idx]

    def attribute(self, idx: int, c: Cursor) -> Attribute:
        if idx >= len(self.attrs):
            raise c.error(f"attribute index {idx} out of range ({len(self.attrs)} attributes)")
        a = self.attrs[idx]
        if a is None:
            a = self.attrs[idx] = self._resolve("attribute", idx, self.attr_entries[idx], c)
        return a

    def type(self, idx: int, c: Cursor) -> Type:
        if idx >= len(self.types):
            raise c.error(f"type index {idx} out of range ({len(self.types)} types)")
        t = self.types[idx]
        if t is None:
            t = self.types[idx] = self._resolve("type", idx, self.type_entries[idx], c)
        return t

    def resource_handle(self, idx: int, c: Cursor) -> tuple[str, str]:
        if idx >= len(self.resources.handles):
            raise c.error(
                f"resource index {idx} out of range ({len(self.resources.handles)} resources)"
            )
        return self.resources.handles[idx]

    def dialect_version(self, name: str) -> Any:
        if name in self._versions:
            return self._versions[name]
        vc = self.dialect_info.versions.get(name)
        value = None
        if vc is not None:
            codec = get_codec(name)
            if codec is not None:
                c = Cursor(self.data, vc.pos, vc.end, self.filename, "DialectVersions")
                try:
                    value = codec.read_version(DialectReader(c, self, self.version))
                except HloError:
                    raise
                except _CODEC_ERRORS as ex:
                    raise c.error(f"dialect '{name}' version: {type(ex).__name__}: {ex}") from None
        self._versions[name] = value
        return value

    def _resolve(self, what: str, idx: int, e: Entry, c: Cursor):
        key = (what, idx)
        if key in self._resolving or len(self._resolving) > MAX_NESTING:
            raise c.error(f"{what} {idx} refers to itself or nests too deeply")
        self._resolving.add(key)
        try:
            ec = Cursor(self.data, e.start, e.end, self.filename, "AttrType")
            if e.custom:
                value = self._custom(what, e, ec)
            else:
                value = self._textual(what, e, ec)
        finally:
            self._resolving.discard(key)
        return value

    def _custom(self, what: str, e: Entry, ec: Cursor):
        codec = get_codec(e.dialect)
        if codec is None:
            raise ec.error(f"no bytecode codec for dialect '{e.dialect}' ({what})")
        self.dialect_version(e.dialect)
        r = DialectReader(ec, self, self.version)
        try:
            value = codec.read_attribute(r) if what == "attribute" else codec.read_type(r)
        except HloError:
            raise
        except _CODEC_ERRORS as ex:
            raise ec.error(f"dialect '{e.dialect}' {what}: {type(ex).__name__}: {ex}") from None
        if value is None:
            raise ec.error(f"dialect '{e.dialect}' could not decode the {what}")
        if not ec.at_end():
            raise ec.error(f"dialect '{e.dialect}' {what} has {ec.remaining()} trailing bytes")
        return value

    def _textual(self, what: str, e: Entry, ec: Cursor):
        raw = bytes(ec.data[ec.pos : ec.end])
        if not raw or raw[-1] != 0:
            raise ec.error(f"textual {what} is not NUL-terminated")
        text = raw[:-1].decode("utf-8", "surrogateescape")
        return parse_text_entry(what, text, ec)


def parse_text_entry(what: str, text: str, ec: Cursor):
    """An attribute/type from its textual form (OpaqueAttr/OpaqueType if our text
    parser cannot model it)."""
    from ..grammar import Parser

    if what == "attribute" and text.startswith("loc(") and text.endswith(")"):
        return LocationAttr(text[4:-1].strip())
    p = Parser(text, "<bytecode attr>")
    try:
        value = p.parse_attribute() if what == "attribute" else p.parse_type()
        p.c.skip()
        if p.c.pos == len(text):
            return value
    except (HloError, ValueError, TypeError, KeyError, IndexError, RecursionError):
        pass
    return OpaqueAttr(text) if what == "attribute" else OpaqueType(text)


def _read_properties_table(c: Cursor) -> list[Cursor]:
    n = c.varint()
    if n > c.remaining() + 1:
        raise c.error(f"properties count {n} exceeds the section size")
    out = []
    for _ in range(n):
        size = c.varint()
        out.append(c.sub(size, "Properties"))
    return out


def read_bytecode_file(data, filename: str = "<bytecode>") -> BytecodeFile:
    """Read a whole bytecode file: the module and the facts needed to rewrite it."""
    data = bytes(data) if not isinstance(data, bytes) else data
    fr = None
    try:
        fr = FileReader(data, filename)
        return IRReader(fr).read()
    except HloError:
        raise
    except RecursionError:
        raise _fallback(fr, filename, "bytecode nested too deeply") from None
    except MemoryError:
        raise _fallback(fr, filename, "bytecode declares more data than fits") from None
    except _CODEC_ERRORS as ex:  # a bug's last line of defence: still a ParseError
        raise _fallback(fr, filename, f"malformed bytecode ({type(ex).__name__}: {ex})") from None


def _fallback(fr, filename: str, msg: str) -> ParseError:
    c = getattr(fr, "last", None) if fr is not None else None
    if c is not None:
        return c.error(msg)
    return byte_error(filename, 0, "header", msg)


def read_bytecode(data, filename: str = "<bytecode>") -> Module:
    """The Module of MLIR bytecode ``data``."""
    return read_bytecode_file(data, filename).module


__all__ = [
    "BytecodeFile",
    "FileReader",
    "ParseError",
    "is_bytecode",
    "read_bytecode",
    "read_bytecode_file",
]
