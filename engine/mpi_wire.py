"""What the MPI grid (``engine.grid_mpi``) puts on the wire, and how it waits.

Arrays travel as their raw bytes (``ml_dtypes`` element types too), described by a
small JSON header that names each array's dtype and shape, so both sides know the
dtype and nothing is pickled.  Errors travel as JSON too and are rebuilt as the same
``HloError`` class on every rank.  Waiting is polling: a rank that waits sleeps between
polls (backing off to 1 ms), so on an oversubscribed machine the ranks that wait leave
the cores to those that compute.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable, Sequence
from functools import cache
from typing import Any

import numpy as np

from ..parser import errors as _errors
from ..parser.errors import HloError, InterpreterError, SourcePos, UnsupportedError
from .values import TOKEN, Token

Meta = list  # [dtype name, shape]

MAX_SLEEP = 1e-3  # seconds between two polls of a wait, at most


# ------------------------------------------------------------------ arrays


@cache
def dtype_named(name: str) -> np.dtype:
    """The dtype a header names (NumPy's and ml_dtypes' names: 'float32', 'bfloat16')."""
    return np.dtype(name)


def describe(arrays: Sequence[np.ndarray]) -> list[Meta]:
    return [[a.dtype.name, list(a.shape)] for a in arrays]


def raw(a: np.ndarray) -> np.ndarray:
    """``a``'s bytes as a flat uint8 array (no copy when ``a`` is C-contiguous)."""
    flat = np.ascontiguousarray(a).reshape(-1)
    return flat.view(np.uint8)


def nbytes(meta: Meta) -> int:
    return int(np.prod(meta[1], dtype=np.int64)) * dtype_named(meta[0]).itemsize


def from_raw(buf: np.ndarray, meta: Meta) -> np.ndarray:
    """The array ``meta`` describes, viewing ``buf`` (uint8) without a copy."""
    dt = dtype_named(meta[0])
    return buf.view(dt).reshape(meta[1])


def split_raw(buf: np.ndarray, metas: Sequence[Meta]) -> list[np.ndarray]:
    """Arrays packed one after another in ``buf``."""
    out, off = [], 0
    for m in metas:
        n = nbytes(m)
        out.append(from_raw(buf[off : off + n], m))
        off += n
    return out


def pack(arrays: Sequence[np.ndarray]) -> np.ndarray:
    """Arrays' bytes one after another in one uint8 buffer."""
    if not arrays:
        return np.empty(0, np.uint8)
    return np.concatenate([raw(a) for a in arrays])


def encode_values(values: Sequence[Any]) -> tuple[list, list[np.ndarray]]:
    """Values (arrays, tokens, tuples of values) as JSON-able metas and the arrays in
    them, in order."""
    arrays: list[np.ndarray] = []

    def enc(v: Any) -> Any:
        if isinstance(v, Token):
            return ["!token"]
        if isinstance(v, tuple | list):
            return ["!tuple", [enc(x) for x in v]]
        a = np.asarray(v)
        if a.dtype == object:
            raise UnsupportedError(f"a {type(v).__name__} value cannot go between MPI ranks")
        arrays.append(a)
        return [a.dtype.name, list(a.shape)]

    return [enc(v) for v in values], arrays


def decode_values(metas: list, buf: np.ndarray) -> list[Any]:
    """The values ``encode_values`` described, their arrays viewing ``buf``."""
    off = 0

    def dec(m: list) -> Any:
        nonlocal off
        if m[0] == "!token":
            return TOKEN
        if m[0] == "!tuple":
            return tuple(dec(x) for x in m[1])
        n = nbytes(m)
        a = from_raw(buf[off : off + n], m)
        off += n
        return a

    return [dec(m) for m in metas]


def values_nbytes(metas: list) -> int:
    """Bytes of the arrays in values ``encode_values`` described."""
    total = 0
    for m in metas:
        if m[0] == "!tuple":
            total += values_nbytes(m[1])
        elif m[0] != "!token":
            total += nbytes(m)
    return total


def as_arrays(values: Any) -> list[np.ndarray]:
    return [np.asarray(v) for v in values]


def dumps(obj: Any) -> np.ndarray:
    return np.frombuffer(json.dumps(obj).encode(), np.uint8)


def loads(buf: Any) -> Any:
    return json.loads(bytes(buf).decode())


# ------------------------------------------------------------------ errors


def error_record(e: BaseException, primary: bool) -> dict[str, Any]:
    """A JSON-able description of ``e`` (``primary``: the grid's own failure, not a
    process stopped because another one failed)."""
    if isinstance(e, HloError):
        pos = e.pos
        return {
            "cls": type(e).__name__,
            "message": e.message,
            "pos": [pos.filename, pos.line, pos.col] if pos is not None else None,
            "op": e.op,
            "label": e.label,
            "primary": primary,
        }
    return {
        "cls": "InterpreterError",
        "message": f"internal error: {type(e).__name__}: {e}",
        "pos": None,
        "op": None,
        "label": None,
        "primary": primary,
    }


def rebuild_error(rec: dict[str, Any]) -> HloError:
    cls = getattr(_errors, rec["cls"], InterpreterError)
    if not (isinstance(cls, type) and issubclass(cls, HloError)):
        cls = InterpreterError
    pos = SourcePos(*rec["pos"]) if rec["pos"] is not None else None
    return cls(rec["message"], pos, op=rec["op"], label=rec["label"])


# ------------------------------------------------------------------ waiting


def poll_until(
    done: Callable[[], bool],
    check: Callable[[], None],
    *,
    busy: bool = False,
) -> None:
    """Call ``done()`` until it is true; ``check()`` between polls (it raises to stop
    waiting).  ``busy``: peers are known to be there (a transfer in progress), so poll
    without sleeping, only yielding the core."""
    delay = 2e-5
    n = 0
    while not done():
        n += 1
        if busy:
            if n & 63 == 0:
                check()
            os.sched_yield()
            continue
        check()
        time.sleep(delay)
        delay = min(delay * 1.5, MAX_SLEEP)
