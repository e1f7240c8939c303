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
_UNBRACKET = str.maketrans("[]", "  ")
_BLANK_BYTES = _BLANKS.encode()
# with the skeleton matched, these pairs (blanks removed) occur only around an empty
# element: np.fromstring reads one without complaint
_EMPTY_SLOTS = (b"[,", b",,", b",]", b"[]", b"(,", b",)")
# a sign not followed by a digit: np.fromstring reads "-" as 0 and "- 1" as -1
_BAD_INT_BYTES = tuple(
    s + c for s in (b"-", b"+") for c in (b" ", b"\t", b"\r", b"\n", b",", b"]", b"-", b"+")
)
_BAD_INT_BYTES += (b".", b"e", b"E")
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
    if not leaf and "x" not in body and "X" not in body:
        quick = _c_numbers(body, n, elem)
        if quick is not None:
            return quick
    texts = body.translate(_SPLIT).split()
    # the count alone misses a blank element beside a two-word one ("[, 1 2]")
    if len(texts) != n * (2 if leaf else 1) or _has_empty_slot(body):
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


def _c_numbers(body: str, n: int, elem: Type) -> np.ndarray | None:
    """All numbers of a checked decimal body read in C by ``np.fromstring`` (text mode:
    CPython's correctly rounded ``PyOS_string_to_double`` for floats), or None for the
    per-token path.  The body already has the shape's skeleton and only digits, ``.eE+-``
    and blanks besides; what ``fromstring`` would read differently from ``float`` /
    ``int`` is excluded first: an empty element (read as -1 or 0, no error), and for
    integers a sign without digits (read as 0) and values that saturate int64."""
    flat = body.translate(_UNBRACKET)
    if isinstance(elem, FloatType):
        x64 = np.fromstring(flat, dtype=np.float64, sep=",")  # ValueError: caller
        # an empty element reads as -1.0 (PyOS_string_to_double's failure value): only
        # then are the slots searched (a slow search: commas are frequent)
        if x64.size != n or ((x64 == -1.0).any() and _has_empty_slot(body)):
            return None
        return round_floats(x64, elem, _LazyTexts(body))
    if not isinstance(elem, (IntegerType, IndexType)):
        return None
    t = elem if isinstance(elem, IntegerType) else IntegerType(64)
    raw = body.encode("ascii")
    if t.width < 8 or t.width > 64 or any(p in raw for p in _BAD_INT_BYTES):
        return None
    if _has_empty_slot(body):
        return None
    vals = np.fromstring(flat, dtype=np.int64, sep=",")  # ValueError: caller
    if vals.size != n:
        return None
    lo, hi = int_range(t)
    # int64's bounds: saturated reads (or true bounds: then the per-token path decides)
    lo, hi = max(lo, -(1 << 63) + 1), min(hi, (1 << 63) - 2)
    if int(vals.min()) < lo or int(vals.max()) > hi:
        return None
    return vals.astype(numpy_dtype(t))


def _has_empty_slot(body: str) -> bool:
    """Whether an element of a body with the shape's skeleton is blank."""
    packed = body.encode("ascii").translate(None, _BLANK_BYTES)
    return any(p in packed for p in _EMPTY_SLOTS)


class _LazyTexts:
    """The element texts of a body, split only when ``round_floats`` asks for one (the
    rare values that may have been rounded twice)."""

    def __init__(self, body: str) -> None:
        self._body = body
        self._texts: list[str] | None = None

    def __getitem__(self, i: int) -> str:
        if self._texts is None:
            self._texts = self._body.translate(_SPLIT).split()
        return self._texts[i]


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
