"""Decimal ``dense<[...]>`` bodies decoded in a few passes over their text (no token
per element in the grammar): the bracket skeleton of the text (every number, blank
and sign deleted from its ASCII bytes with one ``bytes.translate``) must equal the
skeleton of the tensor's shape, the numbers are the text split on brackets and commas,
and each converts with ``float`` / ``int``.  Values are the slow path's
(``attributes.decode_dense``) bit for bit: floats go through the same ``round_floats``
with the literal texts (exact rounding of values that may have been rounded twice),
integers through the same range check.  Anything else (non-ASCII text, hex blobs and
hex elements with signs, ``inf`` / ``nan`` words, sub-byte integers, an irregular or
malformed body) returns None and the slow path decides, errors included.
"""

from __future__ import annotations

import functools
import math
import re

import numpy as np

from .attributes import _storage_type, int_range, round_floats, splat_array, static_shape
from .ir import ComplexType, FloatType, IndexType, IntegerType, TensorType, Type, numpy_dtype

_BLANKS = " \t\r\n"
# what the skeleton keeps: brackets, parentheses and commas
# (deleted from the ASCII bytes of the body: ``bytes.translate`` is a table lookup)
_DROP_NUMBERS = b"0123456789.eE+-xXabcdfABCDF" + _BLANKS.encode()
_DROP_BOOLS = b"truefals" + _BLANKS.encode()
_SPLIT = str.maketrans("[](),", "     ")
_I1 = IntegerType(1)
# a number may not start with '.' (MLIR's lexer; Python's float accepts ".5"): a '.'
# that does not follow a digit
_LEADING_DOT = re.compile(r"\.(?<![0-9]\.)")


def _skeleton(shape: tuple[int, ...], leaf: str) -> bytes:
    """``[[l,l],[l,l]]`` for shape (2, 2), memoized for small shapes (they recur)."""
    if math.prod(shape) <= 1 << 16:
        return _small_skeleton(shape, leaf)
    return _build_skeleton(shape, leaf)


@functools.lru_cache(maxsize=256)
def _small_skeleton(shape: tuple[int, ...], leaf: str) -> bytes:
    return _build_skeleton(shape, leaf)


def _build_skeleton(shape: tuple[int, ...], leaf: str) -> bytes:
    """Built from the innermost dimension out."""
    text = leaf.encode()
    for d in reversed(shape):
        text = b"[" + b",".join([text] * d) + b"]"
    return text


def decode(body: str, ttype: TensorType) -> np.ndarray | None:
    """The read-only array of ``dense<body> : ttype`` for a nested list of decimal
    numbers (or ``true`` / ``false``) or one such element (a splat, as the slow path
    returns it: a zero-stride view), or None for the slow path."""
    body = body.strip()
    try:
        shape = static_shape(ttype)
    except ValueError:
        return None
    splat = not body.startswith("[")
    if 0 in shape or not (shape or splat) or body.startswith('"') or not body:
        return None
    elem = _storage_type(ttype.element_type)
    try:
        if splat and (body == "true" or body == "false") and elem == _I1:
            arr: np.ndarray | None = np.array([body == "true"])  # `dense<true>`: common
        else:
            arr = _decode("[" + body + "]" if splat else body, (1,) if splat else shape, elem)
    except (ValueError, OverflowError, TypeError):
        return None
    if arr is None:
        return None
    if splat and math.prod(shape) != 1:
        return splat_array(arr.reshape(()), shape)
    arr = arr.reshape(shape)
    arr.setflags(write=False)
    return arr


def _decode(body: str, shape: tuple[int, ...], elem: Type) -> np.ndarray | None:
    n = 1
    for d in shape:
        n *= d
    if n > len(body):  # every element takes a character at least: the text cannot match
        return None  # (and the skeleton of a huge shape must never be built)
    if isinstance(elem, IntegerType) and elem.is_bool:
        if body.encode("ascii").translate(None, _DROP_BOOLS) != _skeleton(shape, ""):
            return None
        words = np.array(body.translate(_SPLIT).split())
        true = words == "true"
        if words.size != n or not (true | (words == "false")).all():
            return None
        return true
    leaf = "(,)" if isinstance(elem, ComplexType) else ""
    if body.encode("ascii").translate(None, _DROP_NUMBERS) != _skeleton(shape, leaf):
        return None
    if _LEADING_DOT.search(body) is not None:
        return None
    texts = body.translate(_SPLIT).split()
    if len(texts) != n * (2 if leaf else 1):
        return None
    if isinstance(elem, (IntegerType, IndexType)):
        return _integers(texts, elem)
    if isinstance(elem, FloatType):
        return _floats(texts, elem, _may_have_hex(body))
    if isinstance(elem, ComplexType) and isinstance(elem.element_type, FloatType):
        parts = _floats(texts, elem.element_type, _may_have_hex(body))
        if parts is None:
            return None
        out = np.empty(n, dtype=numpy_dtype(elem))
        out.real = parts[0::2]
        out.imag = parts[1::2]
        return out
    return None


def _may_have_hex(body: str) -> bool:
    """Whether a word may be ``0x...`` (a one-character search is a memchr; words with
    an ``x`` that are not hexadecimal fail ``float`` later)."""
    return "x" in body or "X" in body


def _integers(texts: list[str], elem: IntegerType | IndexType) -> np.ndarray | None:
    """Decimal integers that fit the type (else None: the slow path reports it)."""
    t = elem if isinstance(elem, IntegerType) else IntegerType(64)
    if t.width < 8 or t.width > 64:
        return None
    vals = np.array(list(map(int, texts)), dtype=np.int64)  # OverflowError: slow path
    lo, hi = int_range(t)
    if int(vals.min()) < lo or int(vals.max()) > hi:
        return None
    return vals.astype(numpy_dtype(t))


def _floats(texts: list[str], t: FloatType, has_hex: bool) -> np.ndarray | None:
    """Decimal (or unsigned hexadecimal bit pattern) floats, rounded as the slow path
    rounds them (``round_floats`` with the texts)."""
    hexes: list[tuple[int, int]] = []
    if has_hex:
        for i, s in enumerate(texts):
            if s[:2] in ("0x", "0X"):
                hexes.append((i, int(s, 16)))
                texts[i] = "0"
    x64 = np.fromiter(map(float, texts), dtype=np.float64, count=len(texts))  # ValueError
    out = round_floats(x64, t, texts)
    if hexes:
        return _place_bits(out, hexes, t)
    return out


def _place_bits(out: np.ndarray, hexes: list[tuple[int, int]], t: FloatType) -> np.ndarray | None:
    """Hexadecimal elements are bit patterns of ``t`` (tf32 and sub-byte formats: the
    slow path)."""
    if t.name == "tf32" or out.dtype.itemsize * 8 not in (8, 16, 32, 64):
        return None
    nbits = out.dtype.itemsize * 8
    if t.name.startswith(("f4", "f6")):
        return None
    u = out.view(np.dtype(f"u{out.dtype.itemsize}"))
    for i, bits in hexes:
        if bits >= 1 << nbits:
            return None
        u[i] = bits
    return out
