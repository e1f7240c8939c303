"""Low-level MLIR bytecode encoding: prefix varints, sections, byte cursors.

Format facts from llvm-project ``mlir/docs/BytecodeFormat.md`` and
``mlir/lib/Bytecode/Encoding.h`` (section ids, op encoding mask, alignment byte), and
the reader/emitter in ``mlir/lib/Bytecode/Reader/BytecodeReader.cpp`` /
``Writer/BytecodeWriter.cpp``.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import ParseError, SourcePos

MAGIC = b"ML\xefR"
ALIGNMENT_BYTE = 0xCB
MAX_SUPPORTED_VERSION = 6


def is_bytecode(data: object) -> bool:
    """Whether ``data`` is MLIR bytecode: bytes starting with the magic ``ML\\xefR``."""
    return isinstance(data, bytes | bytearray | memoryview) and bytes(data[:4]) == MAGIC


# Encoding.h `Section::ID`; kProperties (8) arrived with bytecode version 5.
SECTION_NAMES = {
    0: "String",
    1: "Dialect",
    2: "AttrType",
    3: "AttrTypeOffset",
    4: "IR",
    5: "Resource",
    6: "ResourceOffset",
    7: "DialectVersions",
    8: "Properties",
}
S_STRING, S_DIALECT, S_ATTRTYPE, S_ATTRTYPE_OFFSET, S_IR = 0, 1, 2, 3, 4
S_RESOURCE, S_RESOURCE_OFFSET, S_DIALECT_VERSIONS, S_PROPERTIES = 5, 6, 7, 8

# Encoding.h `OpEncodingMask`.
OP_HAS_ATTRS = 0x01
OP_HAS_RESULTS = 0x02
OP_HAS_OPERANDS = 0x04
OP_HAS_SUCCESSORS = 0x08
OP_HAS_INLINE_REGIONS = 0x10
OP_HAS_USE_LIST_ORDERS = 0x20
OP_HAS_PROPERTIES = 0x40

# Bytecode versions (Encoding.h `BytecodeVersion`).
V_DIALECT_VERSIONING = 1
V_LAZY_LOADING = 2
V_USE_LIST_ORDERING = 3
V_ELIDE_UNKNOWN_BLOCK_ARG_LOCATION = 4
V_NATIVE_PROPERTIES = 5
V_ALIGNMENT_AND_SMALL_INTS = 6  # (informational: what 6 added is handled by callers)


@dataclass(frozen=True)
class BytePos(SourcePos):
    """Where a bytecode error happened: file, byte offset and section."""

    offset: int = 0
    section: str = ""

    def __str__(self) -> str:
        where = f" (section '{self.section}')" if self.section else ""
        return f"{self.filename}:offset {self.offset:#x}{where}"


def byte_error(filename: str, offset: int, section: str, msg: str) -> ParseError:
    """A ParseError whose position names the byte offset and the section."""
    return ParseError(msg, BytePos(filename, 0, 0, offset, section))


class Cursor:
    """A read cursor over ``data[start:end]`` (absolute offsets into the file).

    Every read checks bounds first, so nothing is allocated from a declared length
    before the bytes exist.
    """

    __slots__ = ("data", "pos", "end", "filename", "section")

    def __init__(self, data, start: int, end: int, filename: str, section: str):
        self.data = data
        self.pos = start
        self.end = end
        self.filename = filename
        self.section = section

    def error(self, msg: str, offset: int | None = None) -> ParseError:
        return byte_error(self.filename, self.pos if offset is None else offset, self.section, msg)

    def at_end(self) -> bool:
        return self.pos >= self.end

    def remaining(self) -> int:
        return self.end - self.pos

    def byte(self) -> int:
        p = self.pos
        if p >= self.end:
            raise self.error("unexpected end of data reading a byte")
        self.pos = p + 1
        return self.data[p]

    def bytes(self, n: int) -> bytes | memoryview:
        p = self.pos
        if n < 0 or n > self.end - p:
            raise self.error(f"declared length {n} exceeds the {self.end - p} bytes left")
        self.pos = p + n
        if n > 256:  # large payloads (dense data, blobs) are not copied
            return memoryview(self.data)[p : p + n]
        return self.data[p : p + n]

    def varint(self) -> int:
        """A prefix varint (BytecodeFormat.md "Variable-Width Integers")."""
        p = self.pos
        data = self.data
        if p >= self.end:
            raise self.error("unexpected end of data reading a varint")
        first = data[p]
        if first & 1:
            self.pos = p + 1
            return first >> 1
        if first == 0:
            if self.end - p < 9:
                raise self.error("unexpected end of data reading a varint")
            self.pos = p + 9
            return int.from_bytes(data[p + 1 : p + 9], "little")
        n = (first & -first).bit_length()  # trailing zeros + 1 = byte count
        if self.end - p < n:
            raise self.error("unexpected end of data reading a varint")
        self.pos = p + n
        return int.from_bytes(data[p : p + n], "little") >> n

    def signed_varint(self) -> int:
        v = self.varint()
        return (v >> 1) ^ -(v & 1)

    def varint_with_flag(self) -> tuple[int, bool]:
        v = self.varint()
        return v >> 1, bool(v & 1)

    def cstring(self) -> str:
        """A NUL-terminated string (the producer and the string table's data)."""
        data = self.data
        idx = (
            bytes(data[self.pos : self.end]).find(b"\0")
            if not isinstance(data, bytes)
            else data.find(b"\0", self.pos, self.end)
        )
        if idx < 0:
            raise self.error("string is not NUL-terminated")
        s = bytes(data[self.pos : idx]).decode("utf-8", "surrogateescape")
        self.pos = idx + 1
        return s

    def align(self, alignment: int) -> None:
        """Skip padding (kAlignmentByte) up to ``alignment`` (absolute file offset)."""
        if alignment <= 0 or alignment & (alignment - 1):
            raise self.error(f"alignment {alignment} is not a power of two")
        pad = (-self.pos) % alignment
        if pad > self.end - self.pos:
            raise self.error("unexpected end of data in alignment padding")
        for i in range(pad):
            if self.data[self.pos + i] != ALIGNMENT_BYTE:
                raise self.error("bad alignment padding byte", self.pos + i)
        self.pos += pad

    def sub(self, length: int, section: str) -> Cursor:
        """A cursor over the next ``length`` bytes (consumed from this one)."""
        if length < 0 or length > self.end - self.pos:
            raise self.error(
                f"declared length {length} exceeds the {self.end - self.pos} bytes left"
            )
        c = Cursor(self.data, self.pos, self.pos + length, self.filename, section)
        self.pos += length
        return c


class Emitter:
    """An append-only byte buffer with MLIR's encodings (BytecodeWriter.cpp
    EncodingEmitter).  Like MLIR's, it keeps large payloads and nested sections as
    separate parts, so that writing copies them once (in ``getvalue``)."""

    __slots__ = ("buf", "parts", "before", "required_alignment")

    BIG = 1 << 14

    def __init__(self) -> None:
        self.buf = bytearray()  # the current (small-item) buffer
        self.parts: list = []  # finished parts before ``buf``
        self.before = 0  # total size of ``parts``
        self.required_alignment = 1

    def __len__(self) -> int:
        return self.before + len(self.buf)

    def _push(self, part) -> None:
        if self.buf:
            self.parts.append(self.buf)
            self.before += len(self.buf)
            self.buf = bytearray()
        self.parts.append(part)
        self.before += len(part)

    def getvalue(self) -> bytes:
        if not self.parts:
            return bytes(self.buf)
        return b"".join([*self.parts, self.buf])

    def mark(self) -> tuple[int, int, int]:
        return (len(self.parts), self.before, len(self.buf))

    def rollback(self, m: tuple[int, int, int]) -> None:
        """Drop everything emitted since ``mark()`` returned ``m``."""
        n, before, size = m
        if len(self.parts) != n:
            self.buf = self.parts[n] if len(self.parts) > n else self.buf
            del self.parts[n:]
            self.before = before
            if not isinstance(self.buf, bytearray):
                self.buf = bytearray(self.buf)
        del self.buf[size:]

    def patch(self, offset: int, value: int) -> None:
        """Set the byte at ``offset`` (which must be in the current buffer)."""
        self.buf[offset - self.before] = value

    def byte(self, b: int) -> None:
        self.buf.append(b)

    def bytes(self, data) -> None:
        if len(data) >= self.BIG:
            self._push(data)
        else:
            self.buf += data

    def varint(self, value: int) -> None:
        if 0 <= value < 0x80:
            self.buf.append((value << 1) | 1)
        else:
            self.buf += encode_varint(value)

    def signed_varint(self, value: int) -> None:
        self.varint(((value << 1) ^ (value >> 63)) & 0xFFFFFFFFFFFFFFFF)

    def varint_with_flag(self, value: int, flag: bool) -> None:
        v = (value << 1) | (1 if flag else 0)
        if v < 0x80:
            self.buf.append((v << 1) | 1)
        else:
            self.buf += encode_varint(v)

    def cstring(self, s: str) -> None:
        self.buf += s.encode("utf-8", "surrogateescape") + b"\0"

    def align(self, alignment: int) -> None:
        """alignTo: pad with kAlignmentByte to a multiple of ``alignment`` from this
        emitter's start, and remember the alignment the start itself needs."""
        if alignment < 2:
            return
        pad = (-len(self)) % alignment
        self.buf += bytes([ALIGNMENT_BYTE]) * pad
        self.required_alignment = max(self.required_alignment, alignment)

    def section(self, sid: int, body: Emitter) -> None:
        """emitSection: id, size, and (if the body needs an alignment this offset does
        not have) the alignment and padding, flagged by the id's high bit."""
        code_at = len(self.buf)
        self.byte(sid)
        self.varint(len(body))
        align = body.required_alignment
        if align > 1:
            if len(self) & (align - 1):
                self.varint(align)
                self.align(align)
                self.buf[code_at] |= 0x80
            else:
                self.required_alignment = max(self.required_alignment, align)
        if len(body) >= self.BIG:
            for part in body.parts:
                self._push(part)
            self._push(body.buf)
        else:
            self.buf += body.getvalue()


def encode_varint(value: int) -> bytes:
    """MLIR's prefix varint: n bytes hold 7n bits, tagged by n-1 trailing zeros."""
    if value < 0:
        value &= 0xFFFFFFFFFFFFFFFF
    if value < 0x80:
        return bytes(((value << 1) | 1,))
    for n in range(2, 9):
        if value >> (7 * n) == 0:
            return (((value << 1) | 1) << (n - 1)).to_bytes(n, "little")
    return b"\0" + value.to_bytes(8, "little")
