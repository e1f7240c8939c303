"""In-memory stand-ins for the file-level reader/writer, to run one dialect codec alone.

The writer side numbers every attribute/type/string a codec writes (in a list); the
reader side resolves those numbers back, so ``decode(encode(x)) == x`` exercises one
codec's read and write without the rest of the bytecode format.
"""

from __future__ import annotations

from typing import Any

from hlorun.parser.bytecode.dialect_api import DialectCodec, DialectReader, DialectWriter
from hlorun.parser.bytecode.encoding import Cursor, Emitter


class Tables:
    """Attribute / type / string tables shared by one encode and its decode."""

    def __init__(self) -> None:
        self.attrs: list[Any] = []
        self.types: list[Any] = []
        self.strings: list[str] = []
        self.versions: dict[str, Any] = {}

    @staticmethod
    def _index(table: list, value: Any) -> int:
        for i, v in enumerate(table):
            if type(v) is type(value) and v == value:
                return i
        table.append(value)
        return len(table) - 1

    # writer side
    def attribute_index(self, a: Any) -> int:
        return self._index(self.attrs, a)

    def type_index(self, t: Any) -> int:
        return self._index(self.types, t)

    def string_index(self, s: str) -> int:
        return self._index(self.strings, s)

    def dialect_version(self, name: str) -> Any:
        return self.versions.get(name)

    # reader side
    def attribute(self, idx: int, c: Cursor) -> Any:
        return self.attrs[idx]

    def type(self, idx: int, c: Cursor) -> Any:
        return self.types[idx]

    def string(self, idx: int, c: Cursor) -> str:
        return self.strings[idx]


def encode(codec: DialectCodec, value: Any, tables: Tables, *, is_type: bool) -> bytes | None:
    """The codec's bytes for ``value`` (None when it has no custom encoding)."""
    em = Emitter()
    w = DialectWriter(em, tables, 6)
    ok = codec.write_type(w, value) if is_type else codec.write_attribute(w, value)
    return bytes(em.buf) if ok else None


def decode(codec: DialectCodec, data: bytes, tables: Tables, *, is_type: bool) -> Any:
    """Read one value back; every byte must be consumed."""
    c = Cursor(data, 0, len(data), "<test>", "AttrType")
    r = DialectReader(c, tables, 6)
    value = codec.read_type(r) if is_type else codec.read_attribute(r)
    assert c.at_end(), f"{c.remaining()} bytes left after {value!r}"
    return value


def roundtrip(codec: DialectCodec, value: Any, *, is_type: bool) -> tuple[bytes, Any]:
    tables = Tables()
    data = encode(codec, value, tables, is_type=is_type)
    assert data is not None, f"no custom encoding for {value!r}"
    return data, decode(codec, data, tables, is_type=is_type)


def first_varint(data: bytes) -> int:
    """The leading prefix varint (the kind's code) of an encoding."""
    c = Cursor(data, 0, len(data), "<test>", "AttrType")
    return c.varint()
