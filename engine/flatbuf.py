"""Bounds-checked reading of FlatBuffers tables (the ``flatbuffers`` package's Table API).

The ``flatbuffers`` runtime trusts its input: an offset past the end raises
``struct.error``, a negative one silently reads from the end of the buffer.  ``FbTable``
checks every vtable, offset, vector and string against the buffer first (as the C++
``flatbuffers::Verifier`` does, https://flatbuffers.dev/internals/) and raises a
``ParseError`` naming the byte offset and the table field; only then does it read through
``flatbuffers.table.Table``.  Offsets (``uoffset_t``) always point forward, so nested
tables cannot form a cycle.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from flatbuffers import number_types as N
from flatbuffers.table import Table

from ..parser.bytecode.encoding import byte_error
from ..parser.errors import ParseError

_UOFFSET = N.UOffsetTFlags.bytewidth  # 4
_VOFFSET = N.VOffsetTFlags.bytewidth  # 2


class FbTable:
    """One table of a FlatBuffer: ``name`` (for messages), checked field readers.

    Slots are the field ids of the schema, in declaration order (vtable entry
    ``4 + 2 * id``)."""

    __slots__ = ("table", "name", "filename", "_nbytes", "_vt", "_vt_size", "_obj_size")

    def __init__(
        self, buf: bytes | bytearray, pos: int, name: str, filename: str, ref: int | None = None
    ):
        """The table at ``pos``; ``ref``: where the offset to it is stored (for errors)."""
        self.name = name
        self.filename = filename
        self._nbytes = len(buf)
        self._need(pos, _UOFFSET, pos if ref is None else ref, "table")
        self.table = Table(buf, pos)
        vt = pos - self.table.Get(N.SOffsetTFlags, pos)
        self._need(vt, 2 * _VOFFSET, pos, "vtable")
        vt_size = self.table.Get(N.VOffsetTFlags, vt)
        obj_size = self.table.Get(N.VOffsetTFlags, vt + _VOFFSET)
        if vt_size < 2 * _VOFFSET or vt_size % 2:
            raise self.error(vt, f"vtable of {vt_size} bytes")
        self._need(vt, vt_size, vt, "vtable")
        self._need(pos, max(obj_size, _UOFFSET), pos, "table")
        self._vt, self._vt_size, self._obj_size = vt, vt_size, obj_size

    @classmethod
    def root(cls, buf: bytes | bytearray, name: str, filename: str) -> FbTable:
        """The root table (the buffer starts with its ``uoffset_t``)."""
        if len(buf) < _UOFFSET:
            raise byte_error(filename, 0, name, f"{len(buf)} bytes: not a FlatBuffer")
        start = int(np.frombuffer(buf, "<u4", 1, 0)[0])
        return cls(buf, start, name, filename, ref=0)

    # ------------------------------------------------------------------ checks

    def error(self, offset: int, msg: str, field: str | None = None) -> ParseError:
        where = self.name if field is None else f"{self.name}.{field}"
        return byte_error(self.filename, offset, where, msg)

    def _need(self, start: int, size: int, at: int, what: str, field: str | None = None) -> None:
        if start < 0 or size < 0 or start + size > self._nbytes:
            raise self.error(
                at,
                f"{what} at {start:#x} (+{size} bytes) outside the {self._nbytes}-byte buffer",
                field,
            )

    def _field(self, slot: int, size: int, field: str) -> int:
        """The absolute position of field ``slot`` (0 when absent), its bytes checked."""
        entry = 2 * _VOFFSET + _VOFFSET * slot
        if entry >= self._vt_size:
            return 0
        off = self.table.Offset(entry)
        if off == 0:
            return 0
        if off + size > self._obj_size:
            raise self.error(self.table.Pos + off, "field outside its table", field)
        return self.table.Pos + off

    def _target(self, slot: int, field: str) -> tuple[int, int] | None:
        """(position of the uoffset field, position it points to), or None when absent."""
        at = self._field(slot, _UOFFSET, field)
        if at == 0:
            return None
        rel = self.table.Get(N.UOffsetTFlags, at)
        if rel == 0:
            raise self.error(at, "offset 0 (points at itself)", field)
        self._need(at + rel, _UOFFSET, at, "target", field)
        return at, at + rel

    # ------------------------------------------------------------------ readers

    def scalar(self, slot: int, flags: Any, default: Any, field: str) -> Any:
        """A scalar field (``flags``: a flatbuffers number type) or its default."""
        at = self._field(slot, flags.bytewidth, field)
        return default if at == 0 else self.table.Get(flags, at)

    def has(self, slot: int) -> bool:
        entry = 2 * _VOFFSET + _VOFFSET * slot
        return entry < self._vt_size and self.table.Offset(entry) != 0

    def string(self, slot: int, field: str) -> str | None:
        """A string field (UTF-8), or None when absent."""
        t = self._target(slot, field)
        if t is None:
            return None
        return self._string_at(t[1], field)

    def _string_at(self, pos: int, field: str) -> str:
        n = self.table.Get(N.UOffsetTFlags, pos)
        self._need(pos + _UOFFSET, n, pos, "string", field)
        raw = bytes(self.table.Bytes[pos + _UOFFSET : pos + _UOFFSET + n])
        try:
            return raw.decode("utf-8")
        except UnicodeDecodeError as e:
            raise self.error(pos + _UOFFSET + e.start, "string is not UTF-8", field) from e

    def _vector(self, slot: int, elem_size: int, field: str) -> tuple[int, int] | None:
        """(start of the elements, count) of a vector field, or None when absent."""
        t = self._target(slot, field)
        if t is None:
            return None
        _, pos = t
        n = self.table.Get(N.UOffsetTFlags, pos)
        self._need(pos + _UOFFSET, n * elem_size, pos, f"vector of {n}", field)
        return pos + _UOFFSET, n

    def numbers(self, slot: int, dtype: str, field: str) -> np.ndarray:
        """A vector of scalars (``dtype``: a little-endian NumPy type such as ``<u2``)."""
        dt = np.dtype(dtype)
        v = self._vector(slot, dt.itemsize, field)
        if v is None:
            return np.zeros(0, dt)
        start, n = v
        return np.frombuffer(self.table.Bytes, dt, n, start).copy()

    def byte_string(self, slot: int, field: str) -> bytes | None:
        """A ``[byte]`` / ``[ubyte]`` vector as bytes, or None when absent."""
        v = self._vector(slot, 1, field)
        if v is None:
            return None
        start, n = v
        return bytes(self.table.Bytes[start : start + n])

    def _offsets(self, slot: int, field: str) -> list[tuple[int, int]]:
        """(where each offset of a vector of offsets is stored, where it points)."""
        v = self._vector(slot, _UOFFSET, field)
        if v is None:
            return []
        start, n = v
        at = start + _UOFFSET * np.arange(n, dtype=np.int64)
        target = at + np.frombuffer(self.table.Bytes, "<u4", n, start).astype(np.int64)
        bad = (target == at) | (target + _UOFFSET > self._nbytes)
        if bad.any():
            i = int(np.argmax(bad))
            if target[i] == at[i]:
                raise self.error(int(at[i]), "offset 0 (points at itself)", f"{field}[{i}]")
            self._need(int(target[i]), _UOFFSET, int(at[i]), "element", f"{field}[{i}]")
        return list(zip(at.tolist(), target.tolist()))

    def strings(self, slot: int, field: str) -> list[str]:
        return [
            self._string_at(p, f"{field}[{i}]")
            for i, (_, p) in enumerate(self._offsets(slot, field))
        ]

    def sub(self, slot: int, name: str, field: str) -> FbTable | None:
        """A table field, or None when absent."""
        t = self._target(slot, field)
        return None if t is None else FbTable(self.table.Bytes, t[1], name, self.filename, t[0])

    def subs(self, slot: int, name: str, field: str) -> list[FbTable]:
        """A vector of tables (``[]`` when absent)."""
        return [
            FbTable(self.table.Bytes, p, f"{name}[{i}]", self.filename, at)
            for i, (at, p) in enumerate(self._offsets(slot, field))
        ]
