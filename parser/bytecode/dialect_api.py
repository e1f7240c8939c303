"""The seam between the generic bytecode reader/writer and the dialect codecs.

Mirrors MLIR's ``DialectBytecodeReader`` / ``DialectBytecodeWriter``
(``mlir/include/mlir/Bytecode/BytecodeImplementation.h``) and the encodings their
implementations use in ``mlir/lib/Bytecode/Reader/BytecodeReader.cpp`` /
``Writer/BytecodeWriter.cpp``:

- attributes / types are varint indices into the file's attr/type table; an optional
  attribute is a varint with a low "present" flag bit (0 = absent);
- strings are varint indices into the string table;
- ``APInt`` of known width: one byte up to 8 bits, a zigzag varint up to 64 bits,
  else a varint word count then one zigzag varint per 64-bit word (low word first);
- ``APFloat``: the ``APInt`` of its bit pattern at the semantics' width;
- blobs: a varint size then the bytes; bools: one byte.

A codec (one per dialect, registered with ``register_codec``) turns custom-encoded
entries into IR values and back.  Its ``write_*`` methods must be pure and call
``write_attribute`` / ``write_type`` in exactly the encoding order: the writer's
numbering pass runs them with a recording writer to discover nested entries.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable, Mapping
from typing import Any, TypeVar

from ..dialects import all_dialects, lookup
from ..errors import ParseError
from ..ir import Attribute, Type
from .encoding import Cursor, Emitter

T = TypeVar("T")

# Bit widths of MLIR's float semantics (llvm/lib/Support/APFloat.cpp semantics tables),
# by the builtin float type's name.
FLOAT_BITWIDTHS: dict[str, int] = {
    "f4E2M1FN": 4,
    "f6E2M3FN": 6,
    "f6E3M2FN": 6,
    "f8E3M4": 8,
    "f8E4M3": 8,
    "f8E4M3FN": 8,
    "f8E4M3FNUZ": 8,
    "f8E4M3B11FNUZ": 8,
    "f8E5M2": 8,
    "f8E5M2FNUZ": 8,
    "f8E8M0FNU": 8,
    "bf16": 16,
    "f16": 16,
    "tf32": 19,
    "f32": 32,
    "f64": 64,
    "f80": 80,
    "f128": 128,
}

_MASK64 = (1 << 64) - 1


def float_bitwidth(name: str) -> int:
    """The storage width of an APFloat of MLIR float type ``name``."""
    try:
        return FLOAT_BITWIDTHS[name]
    except KeyError:
        raise ValueError(f"unknown float semantics '{name}'") from None


class DialectReader:
    """What a codec reads a custom-encoded attribute/type/version with.

    ``cursor`` is the byte cursor over the entry; ``ctx`` is the file-level reader
    that resolves attribute/type/string/resource indices (see ``reader.FileReader``).
    """

    def __init__(self, cursor: Cursor, ctx: Any, bytecode_version: int):
        self.cursor = cursor
        self.ctx = ctx
        self.bytecode_version = bytecode_version

    # -- errors ----------------------------------------------------------------------
    def error(self, msg: str) -> ParseError:
        """A ParseError naming the current byte offset and section."""
        return self.cursor.error(msg)

    # -- scalars ---------------------------------------------------------------------
    def read_varint(self) -> int:
        return self.cursor.varint()

    def read_signed_varint(self) -> int:
        return self.cursor.signed_varint()

    def read_byte(self) -> int:
        return self.cursor.byte()

    def read_bool(self) -> bool:
        return bool(self.cursor.byte())

    def read_blob(self) -> bytes:
        n = self.cursor.varint()
        return bytes(self.cursor.bytes(n))

    def read_string(self) -> str:
        return self.ctx.string(self.cursor.varint(), self.cursor)

    # -- references ------------------------------------------------------------------
    def read_attribute(self) -> Attribute:
        return self.ctx.attribute(self.cursor.varint(), self.cursor)

    def read_optional_attribute(self) -> Attribute | None:
        idx, present = self.cursor.varint_with_flag()
        if not present:
            return None
        return self.ctx.attribute(idx, self.cursor)

    def read_type(self) -> Type:
        return self.ctx.type(self.cursor.varint(), self.cursor)

    def read_resource_handle(self) -> tuple[str, str]:
        return self.ctx.resource_handle(self.cursor.varint(), self.cursor)

    def read_list(self, fn: Callable[[], Any]) -> tuple:
        n = self.cursor.varint()
        if n > self.cursor.remaining():  # every item takes one byte at least
            raise self.error(f"list length {n} exceeds the bytes left")
        return tuple(fn() for _ in range(n))

    # -- numbers ---------------------------------------------------------------------
    def read_apint(self, bitwidth: int) -> int:
        """readAPIntWithKnownWidth; returns the unsigned bit pattern of ``bitwidth`` bits."""
        if bitwidth <= 8:
            return self.cursor.byte() & ((1 << bitwidth) - 1)
        if bitwidth <= 64:
            return self.cursor.signed_varint() & ((1 << bitwidth) - 1)
        nwords = self.cursor.varint()
        if nwords > self.cursor.remaining():
            raise self.error(f"APInt word count {nwords} exceeds the bytes left")
        value = 0
        for i in range(nwords):
            value |= (self.cursor.signed_varint() & _MASK64) << (64 * i)
        return value & ((1 << bitwidth) - 1)

    def read_apfloat(self, float_type_name: str) -> int:
        """readAPFloatWithKnownSemantics; returns the bit pattern."""
        return self.read_apint(float_bitwidth(float_type_name))

    # -- dialect versions ------------------------------------------------------------
    def dialect_version(self, dialect_name: str) -> Any:
        """The decoded version payload of ``dialect_name`` (None if none was stored)."""
        return self.ctx.dialect_version(dialect_name)


class DialectWriter:
    """What a codec writes a custom encoding with (mirror of ``DialectReader``).

    ``ctx`` maps attributes/types/strings/resource handles to indices (the writer's
    numbering); a recording writer (``RecordingWriter``) stands in during numbering.
    """

    def __init__(self, emitter: Emitter, ctx: Any, bytecode_version: int):
        self.emitter = emitter
        self.ctx = ctx
        self.bytecode_version = bytecode_version

    def write_varint(self, value: int) -> None:
        self.emitter.varint(value)

    def write_signed_varint(self, value: int) -> None:
        self.emitter.signed_varint(value)

    def write_byte(self, value: int) -> None:
        self.emitter.byte(value & 0xFF)

    def write_bool(self, value: bool) -> None:
        self.emitter.byte(1 if value else 0)

    def write_blob(self, data: bytes | memoryview) -> None:
        self.emitter.varint(len(data))
        self.emitter.bytes(data)

    def write_string(self, s: str) -> None:
        self.emitter.varint(self.ctx.string_index(s))

    def write_attribute(self, attr: Attribute) -> None:
        self.emitter.varint(self.ctx.attribute_index(attr))

    def write_optional_attribute(self, attr: Attribute | None) -> None:
        if attr is None:
            self.emitter.varint(0)
        else:
            self.emitter.varint_with_flag(self.ctx.attribute_index(attr), True)

    def write_type(self, t: Type) -> None:
        self.emitter.varint(self.ctx.type_index(t))

    def write_resource_handle(self, dialect: str, key: str) -> None:
        self.emitter.varint(self.ctx.resource_index(dialect, key))

    def write_list(self, items: Iterable[Any], fn: Callable[[Any], None]) -> None:
        items = tuple(items)
        self.emitter.varint(len(items))
        for item in items:
            fn(item)

    def write_apint(self, value: int, bitwidth: int) -> None:
        """writeAPIntWithKnownWidth; ``value`` is the bit pattern (signed ints accepted)."""
        value &= (1 << bitwidth) - 1 if bitwidth else 0
        if bitwidth <= 8:
            self.emitter.byte(value)
            return
        if bitwidth <= 64:
            self.emitter.signed_varint(_as_signed(value, bitwidth))
            return
        nwords = (bitwidth + 63) // 64
        # MLIR writes getActiveWords(): the words up to the highest non-zero one.
        active = max(1, (value.bit_length() + 63) // 64)
        self.emitter.varint(min(active, nwords))
        for i in range(min(active, nwords)):
            self.emitter.signed_varint(_as_signed((value >> (64 * i)) & _MASK64, 64))

    def write_apfloat(self, bits: int, float_type_name: str) -> None:
        self.write_apint(bits, float_bitwidth(float_type_name))


def _as_signed(value: int, bitwidth: int) -> int:
    """Sign-extend an unsigned ``bitwidth``-bit pattern (APInt::getSExtValue)."""
    if value >> (bitwidth - 1) & 1:
        return value - (1 << bitwidth)
    return value


class RecordingWriter(DialectWriter):
    """A DialectWriter that records the attributes/types/strings/resources a codec
    writes, in order, without encoding them (the numbering pass, IRNumbering.cpp's
    NumberingDialectWriter)."""

    def __init__(self, bytecode_version: int):
        super().__init__(Emitter(), None, bytecode_version)
        self.refs: list[tuple[str, Any]] = []

    def write_string(self, s: str) -> None:
        self.refs.append(("string", s))

    def write_attribute(self, attr: Attribute) -> None:
        self.refs.append(("attr", attr))

    def write_optional_attribute(self, attr: Attribute | None) -> None:
        if attr is not None:
            self.refs.append(("attr", attr))

    def write_type(self, t: Type) -> None:
        self.refs.append(("type", t))

    def write_resource_handle(self, dialect: str, key: str) -> None:
        self.refs.append(("resource", (dialect, key)))


class DialectCodec:
    """One dialect's custom attribute/type encodings (MLIR's BytecodeDialectInterface).

    Subclasses set ``name`` and override what they encode.  ``write_attribute`` /
    ``write_type`` return False when they have no custom encoding for the value: the
    writer then stores MLIR's textual form, as MLIR does.
    """

    name: str = ""

    def read_code(self, r: DialectReader, codes: Mapping[int, T], what: str = "attribute") -> T:
        """A varint code and its entry in ``codes`` (an encoding table); a code the
        table lacks is an error at its byte offset."""
        code = r.read_varint()
        entry = codes.get(code)
        if entry is None:
            raise r.error(f"unknown {self.name} {what} code: {code}")
        return entry

    def read_attribute(self, r: DialectReader) -> Attribute:
        raise r.error(f"dialect '{self.name}' has no custom attribute encodings")

    def read_type(self, r: DialectReader) -> Type:
        raise r.error(f"dialect '{self.name}' has no custom type encodings")

    def write_attribute(self, w: DialectWriter, attr: Attribute) -> bool:
        return False

    def write_type(self, w: DialectWriter, t: Type) -> bool:
        return False

    def read_version(self, r: DialectReader) -> Any:
        """Decode the dialect's version payload (dialect section, bytecode v1+)."""
        raise r.error(f"dialect '{self.name}' has no version encoding")

    def write_version(self, w: DialectWriter) -> bool:
        """Write the dialect's version payload; False if the dialect has none."""
        return False

    def property_spec(self, op_name: str) -> tuple[tuple[str, bool], ...] | None:
        """The inherent attributes of registered op ``op_name`` as ODS encodes its
        properties (bytecode v5+): (name, optional) pairs sorted by name, each written
        with writeAttribute (required) or writeOptionalAttribute (optional).  None: the
        op has no properties storage (or the codec does not know the op)."""
        return None

    def knows_op(self, op_name: str) -> bool | None:
        """Whether ``op_name`` is one of the dialect's ops, when the codec has the
        dialect's op list (VHLO's table); None when it has none."""
        return None

    def attribute_dialect(self, attr: Attribute) -> str | None:
        """The dialect an attribute of this codec belongs to, if the codec claims it
        (the writer asks every codec; first claim wins)."""
        return None

    def type_dialect(self, t: Type) -> str | None:
        return None


_REGISTRY: dict[str, DialectCodec] = {}


def register_codec(codec: DialectCodec) -> None:
    """Register ``codec`` under ``codec.name`` (replacing any previous one)."""
    _REGISTRY[codec.name] = codec


def get_codec(dialect: str) -> DialectCodec | None:
    """The codec of ``dialect`` (importing the module its registry entry names,
    parser/dialects.py, on first use), or None."""
    codec = _REGISTRY.get(dialect)
    if codec is None and dialect not in _ASKED:
        _ASKED.add(dialect)
        d = lookup(dialect)
        if d is not None and d.codec is not None:
            _import_codec(d.codec)
        codec = _REGISTRY.get(dialect)
    return codec


def all_codecs() -> dict[str, DialectCodec]:
    """Every known dialect's codec (imports them all)."""
    for d in all_dialects():
        get_codec(d.name)
    return dict(_REGISTRY)


_ASKED: set[str] = set()  # dialects whose codec module was looked up


def _import_codec(mod: str) -> None:
    pkg = __name__.rsplit(".", 2)[0]  # the ``parser`` package (``hlorun.parser``)
    try:
        importlib.import_module(mod, pkg)
    except ModuleNotFoundError as e:
        if not (e.name or "").endswith(mod.rsplit(".", 1)[1]):
            raise
