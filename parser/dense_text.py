"""Decimal ``dense<[...]>`` bodies decoded in a few passes over their text (no token
per element in the grammar): the bracket skeleton of the text (every number, blank
and sign deleted from its ASCII bytes with one ``bytes.translate``) must equal the
skeleton of the tensor's shape, and the numbers are read in C by one
``np.fromstring`` (or, for bodies with hexadecimal words, split on brackets and commas
and converted with ``float`` / ``int``); ``true`` / ``false`` bodies are matched
against the skeleton with one character per element.  Values are the slow path's
(``attributes.decode_dense``) bit for bit: floats go through the same ``round_floats``
with the literal texts (exact rounding of values that may have been rounded twice),
integers through the same range check.  Anything else (non-ASCII text, hex blobs and
hex elements with signs, ``inf`` / ``nan`` words, sub-byte integers, an irregular or
malformed body) returns None and the slow path decides, errors included.
"""

from __future__ import annotations

import functools
import math

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
# brackets and parentheses to blanks (complex elements read as two numbers each)
_UNBRACKET = bytes.maketrans(b"[]()", b"    ")
# digits to "0", "." kept, everything else a blank (``_leading_dot``)
_DOT_CONTEXT = bytes(
    0x30 if chr(b).isdigit() and b < 128 else 0x2E if b == 0x2E else 0x20 for b in range(256)
)
_BLANK_BYTES = _BLANKS.encode()
# with the skeleton matched, an element is blank where (blanks deleted) an opener or a
# comma stands right before a comma or a closer (np.fromstring reads one as -1.0)
_SLOT_BITS = bytes(
    1 if c in b"[(" else 3 if c == ord(",") else 2 if c in b"])" else 0 for c in range(256)
)


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
    raw = body.encode("ascii")  # UnicodeEncodeError (a ValueError): the caller
    if isinstance(elem, IntegerType) and elem.is_bool:
        return _bools(raw, shape, n)
    leaf = "(,)" if isinstance(elem, ComplexType) else ""
    if raw.translate(None, _DROP_NUMBERS) != _skeleton(shape, leaf):
        return None
    if _leading_dot(raw):
        return None
    if b"x" not in raw and b"X" not in raw:
        quick = _c_numbers(raw, n, elem)
        if quick is not None:
            return quick
    texts = body.translate(_SPLIT).split()
    # the count alone misses a blank element beside a two-word one ("[, 1 2]")
    if len(texts) != n * (2 if leaf else 1) or _has_empty_slot(raw):
        return None
    if isinstance(elem, (IntegerType, IndexType)):
        return _integers(texts, elem)
    if isinstance(elem, FloatType):
        return _floats(texts, elem, _may_have_hex(body))
    if isinstance(elem, ComplexType) and isinstance(elem.element_type, FloatType):
        parts = _floats(texts, elem.element_type, _may_have_hex(body))
        return None if parts is None else _complex(parts, elem, n)
    return None


def _bools(raw: bytes, shape: tuple[int, ...], n: int) -> np.ndarray | None:
    """``true`` / ``false`` elements: with each word replaced by one character and the
    blanks deleted, the text must be the shape's skeleton with one such character per
    element (a word split by a blank, two words in one place or an empty place do not
    line up with it)."""
    if raw.translate(None, _DROP_BOOLS) != _skeleton(shape, ""):
        return None  # another character than the words' letters, blanks and brackets
    packed = raw.replace(b"true", b"1").replace(b"false", b"0").translate(None, _BLANK_BYTES)
    template = _skeleton(shape, "_")
    if len(packed) != len(template):
        return None
    got = np.frombuffer(packed, dtype=np.uint8)
    want = np.frombuffer(template, dtype=np.uint8)
    slot = want == 0x5F  # "_"
    vals = got[slot]
    if not (got[~slot] == want[~slot]).all() or not ((vals == 0x30) | (vals == 0x31)).all():
        return None
    return vals == 0x31


def _leading_dot(raw: bytes) -> bool:
    """Whether a ``.`` follows something other than a digit (MLIR's lexer wants a digit
    before it; Python's float accepts ".5"): with digits mapped to ``0`` and every other
    byte but ``.`` to a blank, a ``.`` at the start or after a blank (a ``.`` after a
    ``.`` follows a number that already has one: ``float`` rejects it)."""
    if b"." not in raw:
        return False
    t = raw.translate(_DOT_CONTEXT)
    return t.startswith(b".") or b" ." in t


def _complex(parts: np.ndarray, elem: ComplexType, n: int) -> np.ndarray:
    out = np.empty(n, dtype=numpy_dtype(elem))
    out.real = parts[0::2]
    out.imag = parts[1::2]
    return out


def _c_numbers(raw: bytes, n: int, elem: Type) -> np.ndarray | None:
    """All numbers of a checked decimal body read in C by ``np.fromstring`` (text mode:
    CPython's correctly rounded ``PyOS_string_to_double``; a complex element is two
    numbers), or None for the per-token path.  The body already has the shape's
    skeleton and only digits, ``.eE+-`` and blanks besides; what ``fromstring`` reads
    differently from ``float`` / ``int`` is excluded: an empty element (read as -1.0,
    no error), and integers are read as f64 (strtod, unlike strtol, rejects a sign
    without digits) below 2**53, where f64 is exact."""
    flat = raw.translate(_UNBRACKET)
    if isinstance(elem, ComplexType):
        inner = elem.element_type
        if not isinstance(inner, FloatType):
            return None
        parts = _c_floats(raw, flat, 2 * n, inner)
        return None if parts is None else _complex(parts, elem, n)
    if isinstance(elem, FloatType):
        return _c_floats(raw, flat, n, elem)
    if not isinstance(elem, (IntegerType, IndexType)):
        return None
    t = elem if isinstance(elem, IntegerType) else IntegerType(64)
    if t.width < 8 or t.width > 64 or b"." in raw or b"e" in raw or b"E" in raw:
        return None
    x64 = np.fromstring(flat, dtype=np.float64, sep=",")  # ValueError: caller
    if x64.size != n or (np.count_nonzero(x64 == -1.0) and _has_empty_slot(raw)):
        return None
    lo, hi = int_range(t)
    lo, hi = max(lo, -(1 << 53)), min(hi, 1 << 53)  # beyond: the per-token path
    if x64.min() < lo or x64.max() > hi:
        return None
    return x64.astype(np.int64).astype(numpy_dtype(t))  # signless: wraps


def _c_floats(raw: bytes, flat: bytes, n: int, t: FloatType) -> np.ndarray | None:
    x64 = np.fromstring(flat, dtype=np.float64, sep=",")  # ValueError: caller
    # an empty element reads as -1.0 (PyOS_string_to_double's failure value): only
    # then are the slots searched
    if x64.size != n or (np.count_nonzero(x64 == -1.0) and _has_empty_slot(raw)):
        return None
    return round_floats(x64, t, _LazyTexts(raw))


def _has_empty_slot(raw: bytes) -> bool:
    """Whether an element of a body with the shape's skeleton is blank: with blanks
    deleted, an opener or comma (bit 0 of ``_SLOT_BITS``) right before a comma or
    closer (bit 1), tested on all byte pairs at once as one big integer."""
    x = int.from_bytes(raw.translate(_SLOT_BITS, _BLANK_BYTES), "big")
    return ((x >> 8) << 1) & x != 0


class _LazyTexts:
    """The element texts of a body, split only when ``round_floats`` asks for one (the
    rare values that may have been rounded twice)."""

    def __init__(self, raw: bytes) -> None:
        self._raw = raw
        self._texts: list[str] | None = None

    def __getitem__(self, i: int) -> str:
        if self._texts is None:
            self._texts = self._raw.decode("ascii").translate(_SPLIT).split()
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
    if t.name.startswith(("f4E", "f6E")):  # the sub-byte formats (not f64)
        return None
    u = out.view(np.dtype(f"u{out.dtype.itemsize}"))
    for i, bits in hexes:
        if bits >= 1 << nbits:
            return None
        u[i] = bits
    return out
