"""Literal decoding: numbers of a given element type and ``dense<...>`` bodies -> NumPy.

MLIR semantics (mlir.llvm.org/docs/Dialects/Builtin, DenseIntOrFPElementsAttr):

* ``dense<"0x...">`` is the raw little-endian storage of every element (or of one
  element, which is then splatted).  Elements narrower than a byte (i1, i2, i4, f4, f6)
  take one byte each; the value sits in the low bits.  (Older MLIR packed i1 eight to a
  byte; a blob of exactly ceil(n/8) bytes is read that way.)
* ``dense<[[1, 2], [3, 4]]>`` nested lists, ``dense<1>`` a splat, ``dense<(1.0, 2.0)>``
  a complex element, ``dense<0x7FC00000>`` a hex literal which, for a float element
  type, is the element's bit pattern.
* Signless integers accept any value in [-2^(n-1), 2^n - 1] (two's complement wrap);
  signed ones [-2^(n-1), 2^(n-1) - 1]; unsigned ones [0, 2^n - 1].
* Decimal floats round once, to nearest-even, straight to the element type (no double
  rounding through f64).
"""

from __future__ import annotations

import functools
import math
import re
from typing import NamedTuple, Protocol

import ml_dtypes
import numpy as np

from .ir import (
    ComplexType,
    FloatType,
    IndexType,
    IntegerType,
    QuantizedType,
    TensorType,
    Type,
    numpy_dtype,
)
from .tf32 import round_tf32


class LiteralError(ValueError):
    """A literal that does not fit its type; the parser turns it into a ParseError."""


MAX_NESTING = 256

_SUB_BYTE = {"f4E2M1FN": 0xF, "f6E2M3FN": 0x3F, "f6E3M2FN": 0x3F}


def _sub_byte_bits(name: str) -> int:
    return {"f4E2M1FN": 4, "f6E2M3FN": 6, "f6E3M2FN": 6}.get(name, 0)


def _storage_type(t: Type) -> Type:
    return t.storage_type if isinstance(t, QuantizedType) else t


def int_range(t: IntegerType) -> tuple[int, int]:
    n = t.width
    if t.signedness == "unsigned":
        return 0, (1 << n) - 1
    if t.signedness == "signed":
        return -(1 << (n - 1)), (1 << (n - 1)) - 1
    if n == 1:
        return 0, 1
    return -(1 << (n - 1)), (1 << n) - 1


def wrap_int(value: int, t: Type) -> int:
    """Check ``value`` fits integer type ``t`` and return it as the type holds it."""
    if isinstance(t, IndexType):
        t = IntegerType(64)
    assert isinstance(t, IntegerType)
    lo, hi = int_range(t)
    if not lo <= value <= hi:
        raise LiteralError(f"integer value {value} does not fit in type {t}")
    n = t.width
    value &= (1 << n) - 1
    if t.signedness != "unsigned" and n > 1 and value >= 1 << (n - 1):
        value -= 1 << n
    return value


# ---- floats ---------------------------------------------------------------------------

_FLOAT_SPECIAL = {
    "inf": math.inf,
    "+inf": math.inf,
    "-inf": -math.inf,
    "nan": math.nan,
    "+nan": math.nan,
    "-nan": -math.nan,
}


def float_dtype(t: FloatType) -> np.dtype:
    return numpy_dtype(t)


class ElementTexts(Protocol):
    """The decimal text of element ``i`` (a list, or a body split on demand)."""

    def __getitem__(self, i: int, /) -> str: ...


class _TieBits(NamedTuple):
    """Per-format constants of ``round_floats`` (see ``_tie_bits``)."""

    below_half: np.uint64  # the f64 mantissa bits below half a unit in the last place
    finite_max: float


@functools.lru_cache(maxsize=64)
def _tie_bits(dtype: np.dtype) -> _TieBits:
    """The f64 bits that are zero in every value half-way between two neighbours of
    ``dtype`` (normal or subnormal: subnormals are spaced wider), and its largest
    finite value."""
    info = ml_dtypes.finfo(dtype)
    return _TieBits(np.uint64((1 << (52 - info.nmant - 1)) - 1), float(info.max))


def round_floats(x64: np.ndarray, t: FloatType, texts: ElementTexts | None = None) -> np.ndarray:
    """Round f64 values (the nearest f64 of decimal literals ``texts``) to element type ``t``.

    When a value might have been double-rounded (it lies exactly half-way between two
    values of ``t``) and its decimal text is known, it is rounded again exactly.
    """
    name = t.name
    if name == "f64":
        return x64.astype(np.float64)
    if name == "tf32":
        return round_tf32(x64)
    dtype = float_dtype(t)
    tb = _tie_bits(dtype)
    finite_max = tb.finite_max
    src = x64
    if name != "f32" and name != "f16" and name != "f8E8M0FNU":
        # ml_dtypes casts f64 through f32 (rounding twice); f32 rounded to odd keeps the
        # sticky bit, so its cast rounds once
        src = _f32_round_to_odd(x64)
    # small arrays: two reductions cost less than np.errstate (about 4 us), and when
    # nothing overflows and no NaN is there (max would be NaN) the cast warns of nothing
    small = 0 < x64.size <= 1024 and name != "f8E8M0FNU"
    if small and -finite_max <= x64.min() and x64.max() <= finite_max:
        r = src.astype(dtype)
    else:
        with np.errstate(over="ignore", invalid="ignore"):
            r = src.astype(dtype)
    if name == "f8E8M0FNU" and (x64 == 0).any():
        # no zero in this format: APFloat makes a zero the smallest normal (2^-127, 0x00)
        r = r.copy()
        r.view(np.uint8)[x64 == 0] = 0
    if texts is None:
        return r
    # a tie of ``dtype`` (normal or subnormal) has the f64 bits below half its unit in
    # the last place zero: rare for long decimals, common for short ones (exact values)
    flat_x = x64.reshape(-1)
    tie = (flat_x.view(np.uint64) & tb.below_half) == 0
    count = np.count_nonzero(tie)
    if not count:
        return r
    if 8 * count < tie.size:  # a few candidates: checked apart
        idx = tie.nonzero()[0]
        xs = flat_x[idx]
        back = r.reshape(-1)[idx].astype(np.float64)
        suspect = idx[(back != xs) & np.isfinite(xs) & (xs != 0)]
    else:
        back = r.reshape(-1).astype(np.float64)
        suspect = (tie & (back != flat_x) & np.isfinite(flat_x) & (flat_x != 0)).nonzero()[0]
    if suspect.size:
        r = r.copy()
        flat = r.reshape(-1)
        for i in suspect.tolist():
            flat[i] = _round_exact(texts[i], float(flat_x[i]), dtype)
    return r


def _f32_round_to_odd(x64: np.ndarray) -> np.ndarray:
    """f64 -> f32 rounded to odd (truncated toward zero, lowest bit set when inexact):
    a second rounding to any format with at most 22 mantissa bits then equals one
    rounding of the f64 (Boldo & Melquiond, "Emulation of FMA and correctly rounded sums:
    proved algorithms using rounding to odd", 2008).  Infinities and NaN stay."""
    with np.errstate(over="ignore", invalid="ignore"):
        r = x64.astype(np.float32)
        back = r.astype(np.float64)
    inexact = (back != x64) & np.isfinite(x64)
    if not inexact.any():
        return r
    bits = r.view(np.uint32).copy()
    # rounded away from zero (magnitude above |x|, or to infinity): one step back
    away = inexact & (np.abs(back) > np.abs(x64))
    bits[away] -= np.uint32(1)
    bits[inexact] |= np.uint32(1)
    return bits.view(np.float32)


def _uint_view_dtype(dtype: np.dtype) -> np.dtype:
    return np.dtype({1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}[dtype.itemsize])


def _round_exact(text: str, x: float, dtype: np.dtype):
    """Correctly rounded (nearest-even) value of decimal ``text`` in ``dtype``."""
    from fractions import Fraction  # on first use (rare ties): keeps startup cheap

    try:
        exact = Fraction(text)
    except (ValueError, ZeroDivisionError):
        return np.array(x).astype(dtype)
    with np.errstate(over="ignore"):  # a tie above the largest finite: infinity
        r = np.array([x]).astype(dtype)
    udt = _uint_view_dtype(dtype)
    bits = int(r.view(udt)[0])
    back = float(r.astype(np.float64)[0])
    step = 1 if abs(x) > abs(back) else -1
    if not 0 <= bits + step < 1 << (8 * dtype.itemsize):
        return r[0]
    other = np.array([bits + step], dtype=udt).view(dtype)
    ob = float(other.astype(np.float64)[0])
    if not (math.isfinite(back) and math.isfinite(ob)):
        return r[0]
    d1 = abs(exact - Fraction(back))
    d2 = abs(exact - Fraction(ob))
    if d2 < d1 or (d1 == d2 and (bits + step) % 2 == 0):
        return other[0]
    return r[0]


def parse_float_text(text: str) -> float:
    low = text.lower()
    if low in _FLOAT_SPECIAL:
        return _FLOAT_SPECIAL[low]
    return float(text)


def _hex_float_bits(t: FloatType) -> tuple[np.dtype, int, int]:
    """Storage dtype of ``t``, the width of its bit pattern as MLIR writes it in a hex
    literal (19 for tf32: sign, 8 exponent and 10 mantissa bits), and the left shift that
    places that pattern in the storage (13 for tf32, kept in float32 storage)."""
    if t.name == "tf32":
        return np.dtype(np.float32), 19, 13
    dtype = float_dtype(t)
    return dtype, _sub_byte_bits(t.name) or dtype.itemsize * 8, 0


def float_from_bits(bits: int, t: FloatType) -> float:
    dtype, nbits, shift = _hex_float_bits(t)
    if bits < 0 or bits >= 1 << nbits:
        raise LiteralError(f"hexadecimal float literal 0x{bits:X} does not fit in type {t}")
    u = _uint_view_dtype(dtype)
    return float(np.array([bits << shift], dtype=u).view(dtype).astype(np.float64)[0])


def float_attr_value(text: str, t: Type | None) -> float:
    """The value of a float literal, rounded to ``t`` when it is a float type."""
    if text.lower().lstrip("+-").startswith("0x"):
        if not isinstance(t, FloatType):
            raise LiteralError("hexadecimal float literal needs a float type")
        if text.startswith("-"):
            raise LiteralError("hexadecimal float literal should not have a sign")
        return float_from_bits(int(text, 16), t)
    x = parse_float_text(text)
    if isinstance(t, FloatType) and t.name != "f64":
        r = round_floats(np.array([x]), t, [text])
        return float(r.astype(np.float64)[0])
    return x


# ---- dense<...> -------------------------------------------------------------------------

_DENSE_TOKEN = re.compile(
    r"\s*(?:([\[\]\(\),])|(\"0x[0-9A-Fa-f]*\")|([-+]?(?:0x[0-9A-Fa-f]+|[0-9]+(?:\.[0-9]*)?"
    r"(?:[eE][-+]?[0-9]+)?|inf|nan))|(true|false))"
)


def _num_elements(shape: tuple[int, ...]) -> int:
    n = 1
    for d in shape:
        n *= d
    return n


def static_shape(ttype: TensorType) -> tuple[int, ...]:
    """The shape of ``ttype``, which a dense literal needs static."""
    shape = ttype.shape
    if shape is None or None in shape:
        raise LiteralError("dense literal needs a statically shaped tensor type")
    return tuple(d for d in shape if d is not None)


def splat_array(element: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """A splat as a read-only zero-stride view of its one element: ``dense<0> :
    tensor<1000000000xi64>`` costs one element, not 8 GB (the memory budget,
    engine/memory.py, applies when an op materializes it)."""
    arr = np.broadcast_to(np.asarray(element).reshape(()), shape)
    arr.flags.writeable = False  # broadcast_to views are read-only already; be explicit
    return arr


def first_element(arr: np.ndarray) -> np.ndarray:
    """The first element of ``arr`` as a 1-element array (no copy of the rest: a lazy
    splat's reshape(-1) would materialize it)."""
    return np.asarray(arr[(0,) * arr.ndim]).reshape(1)


def decode_hex_blob(hexdigits: str, ttype: TensorType) -> np.ndarray:
    """``dense<"0x...">``: raw little-endian storage (or one element, splatted)."""
    if len(hexdigits) % 2:
        raise LiteralError("hex blob has an odd number of digits")
    try:
        raw = bytes.fromhex(hexdigits)
    except ValueError:
        raise LiteralError("malformed hex blob") from None
    if 2 * len(raw) != len(hexdigits):  # bytes.fromhex skips whitespace; MLIR does not
        raise LiteralError("malformed hex blob")
    return decode_raw_data(raw, ttype)


def decode_raw_data(raw: bytes, ttype: TensorType) -> np.ndarray:
    """An array from MLIR's raw storage of dense elements (``DenseElementsAttr::getRawData``:
    little-endian, one byte per i1 or bit-packed, one byte per sub-byte element), or one
    element, splatted."""
    shape = static_shape(ttype)
    n = _num_elements(shape)
    elem = _storage_type(ttype.element_type)
    dtype = numpy_dtype(elem)
    if isinstance(elem, IntegerType) and elem.is_bool:
        if len(raw) == n:
            arr = np.frombuffer(raw, dtype=np.uint8) != 0
        elif len(raw) == 1:
            return splat_array(np.array(raw[0] != 0), shape)
        elif len(raw) == (n + 7) // 8:
            arr = np.unpackbits(np.frombuffer(raw, dtype=np.uint8), bitorder="little")[:n] != 0
        else:
            raise LiteralError(
                f"hex blob of {len(raw)} bytes does not match {n} elements of type i1"
            )
        return arr.reshape(shape)
    itemsize = dtype.itemsize
    if len(raw) == n * itemsize:
        count = n
    elif len(raw) == itemsize and n != 1:
        count = 1
    else:
        raise LiteralError(
            f"hex blob of {len(raw)} bytes does not match {n} elements of {itemsize} "
            f"byte(s) for {ttype.element_type}"
        )
    if isinstance(elem, IntegerType) and elem.width < 8:
        u = np.frombuffer(raw, dtype=np.uint8) & ((1 << elem.width) - 1)
        if elem.signedness != "unsigned":
            half = 1 << (elem.width - 1)
            u = ((u.astype(np.int16) ^ half) - half).astype(np.int8)
        arr = u.astype(dtype)
    elif isinstance(elem, FloatType) and elem.name in _SUB_BYTE:
        arr = (np.frombuffer(raw, dtype=np.uint8) & _SUB_BYTE[elem.name]).view(dtype)
    else:
        arr = np.frombuffer(raw, dtype=dtype.newbyteorder("<")).astype(dtype, copy=False)
    if count == 1 and n != 1:
        return splat_array(arr.reshape(()), shape)
    return np.ascontiguousarray(arr).reshape(shape)


def _tokens_to_tree(body: str):
    """Nested lists of literal strings (complex elements as 2-tuples), without recursion."""
    stack: list[list] = [[]]
    pos = 0
    n = len(body)
    expect_item = True
    while True:
        while pos < n and body[pos] in " \t\r\n":
            pos += 1
        if pos >= n:
            break
        m = _DENSE_TOKEN.match(body, pos)
        if m is None:
            raise LiteralError(f"unexpected '{body[pos : pos + 20]}' in dense literal")
        pos = m.end()
        punct = m.group(1)
        if punct is None:
            tok = m.group(2) or m.group(3) or m.group(4)
            if not expect_item:
                raise LiteralError(f"expected ',' before '{tok}' in dense literal")
            stack[-1].append(tok)
            expect_item = False
        elif punct in "[(":
            if not expect_item:
                raise LiteralError("expected ',' in dense literal")
            if len(stack) > MAX_NESTING:
                raise LiteralError("dense literal nested too deeply")
            stack.append([] if punct == "[" else ["("])
            expect_item = True
        elif punct == ",":
            if expect_item:
                raise LiteralError("expected an element before ',' in dense literal")
            expect_item = True
        else:
            top = stack.pop() if len(stack) > 1 else None
            if top is None:
                raise LiteralError(f"unbalanced '{punct}' in dense literal")
            is_paren = bool(top) and top[0] == "("
            if (punct == ")") != is_paren:
                raise LiteralError(f"mismatched '{punct}' in dense literal")
            if is_paren:
                if len(top) != 3 or isinstance(top[1], list) or isinstance(top[2], list):
                    raise LiteralError("a complex element is written (real, imaginary)")
                stack[-1].append((top[1], top[2]))
            else:
                if expect_item and top:
                    raise LiteralError("expected an element after ',' in dense literal")
                stack[-1].append(top)
            expect_item = False
    if len(stack) != 1:
        raise LiteralError("unterminated '[' in dense literal")
    if len(stack[0]) != 1:
        raise LiteralError("a dense literal holds one element or one list")
    return stack[0][0]


def _tree_shape(tree) -> tuple[tuple[int, ...], list]:
    """Shape of a regular nested list and its leaves in row-major order (iterative)."""
    if not isinstance(tree, list):
        return (), [tree]
    shape: list[int] = []
    node = tree
    while isinstance(node, list):
        shape.append(len(node))
        if not node:
            break
        node = node[0]
    leaves: list = []
    level = [tree]
    for depth, size in enumerate(shape):
        nxt: list = []
        for node in level:
            if not isinstance(node, list) or len(node) != size:
                raise LiteralError("dense literal is not a regular (rectangular) nested list")
            nxt.extend(node)
        level = nxt
        if size == 0:
            break
        if depth == len(shape) - 1:
            for leaf in level:
                if isinstance(leaf, list):
                    raise LiteralError("dense literal is not a regular nested list")
    leaves = level
    return tuple(shape), leaves


def _check_shape(lit_shape: tuple[int, ...], shape: tuple[int, ...], nleaves: int) -> bool:
    """True for a splat; raise if the literal's shape does not match the type."""
    if lit_shape == ():
        return True
    if tuple(lit_shape) != shape:
        if _num_elements(shape) == 0 and nleaves == 0:
            return False
        raise LiteralError(
            f"dense literal has shape [{', '.join(map(str, lit_shape))}] but the type is "
            f"[{', '.join(map(str, shape))}]"
        )
    return False


def _int_leaves(leaves: list, elem: Type) -> np.ndarray:
    dtype = numpy_dtype(elem)
    out = []
    is_bool = isinstance(elem, IntegerType) and elem.is_bool
    for leaf in leaves:
        if isinstance(leaf, tuple):
            raise LiteralError(f"complex literal for integer type {elem}")
        if leaf in ("true", "false"):
            if not is_bool:
                raise LiteralError(f"boolean literal for integer type {elem}")
            out.append(1 if leaf == "true" else 0)
            continue
        if leaf.startswith('"'):
            raise LiteralError("a hex blob must be the whole dense literal")
        try:
            v = int(leaf, 0) if leaf.lstrip("+-").lower().startswith("0x") else int(leaf)
        except ValueError:
            raise LiteralError(
                f"expected an integer literal for type {elem}, found '{leaf}'"
            ) from None
        out.append(wrap_int(v, elem if not isinstance(elem, IndexType) else IntegerType(64)))
    if is_bool:
        return np.array(out, dtype=np.bool_)
    if dtype.itemsize < 8 or dtype == np.int64:
        return np.array(out, dtype=np.int64).astype(dtype)
    return np.array(out, dtype=object).astype(dtype)


def _float_leaf_values(leaves: list, t: FloatType) -> np.ndarray:
    texts: list[str] = []
    hex_bits: dict[int, int] = {}
    vals = np.empty(len(leaves), dtype=np.float64)
    for i, leaf in enumerate(leaves):
        if isinstance(leaf, tuple):
            raise LiteralError(f"complex literal for float type {t}")
        if leaf in ("true", "false") or leaf.startswith('"'):
            raise LiteralError(f"expected a float literal for type {t}, found {leaf}")
        if leaf.lower().lstrip("+-").startswith("0x"):
            if leaf.startswith("-"):
                raise LiteralError("hexadecimal float literal should not have a sign")
            hex_bits[i] = int(leaf, 16)
            vals[i] = 0.0
            texts.append("0")
        else:
            vals[i] = parse_float_text(leaf)
            texts.append(leaf)
    out = round_floats(vals, t, texts)
    if hex_bits:
        u = out.view(_uint_view_dtype(out.dtype))
        _, nbits, shift = _hex_float_bits(t)
        for i, b in hex_bits.items():
            if b >= 1 << nbits:
                raise LiteralError(f"hexadecimal float literal 0x{b:X} does not fit in type {t}")
            u[i] = b << shift
    return out


def _leaves_to_array(leaves: list, elem: Type) -> np.ndarray:
    elem = _storage_type(elem)
    if isinstance(elem, (IntegerType, IndexType)):
        return _int_leaves(leaves, elem)
    if isinstance(elem, FloatType):
        return _float_leaf_values(leaves, elem)
    if isinstance(elem, ComplexType):
        inner = elem.element_type
        if not isinstance(inner, FloatType):
            raise LiteralError(f"unsupported complex element type {elem}")
        parts: list = []
        for leaf in leaves:
            if not isinstance(leaf, tuple):
                raise LiteralError(f"expected a complex literal (re, im) for type {elem}")
            parts.extend(leaf)
        flat = _float_leaf_values(parts, inner)
        dtype = numpy_dtype(elem)
        out = np.empty(len(leaves), dtype=dtype)
        out.real = flat[0::2]
        out.imag = flat[1::2]
        return out
    raise LiteralError(f"dense literal of element type {elem} is not supported")


_JSON_OK = re.compile(r"^[\s\[\],0-9eE.+\-truefals]*$")


_NEGATIVE_INT_ZERO = re.compile(r"-0+(?![0-9.eE])")


def _json_fast(body: str, ttype: TensorType) -> np.ndarray | None:
    """Fast path for plain decimal lists via the C JSON decoder; None if not applicable."""
    elem = _storage_type(ttype.element_type)
    if not isinstance(elem, (IntegerType, FloatType, IndexType)) or len(body) < 64:
        return None
    if not _JSON_OK.match(body):
        return None
    import json  # on first use (a long literal): keeps startup cheap

    try:
        tree = json.loads(body)
    except (ValueError, RecursionError):
        return None
    try:
        arr = np.array(tree)
    except (ValueError, OverflowError):
        return None
    if arr.dtype == object or arr.shape != static_shape(ttype):
        return None
    if isinstance(elem, FloatType):
        if arr.dtype.kind not in "fi" or elem.name not in ("f64", "f32", "f16", "bf16"):
            return None
        if "-0" in body and _NEGATIVE_INT_ZERO.search(body):
            return None  # JSON reads the integer -0 as 0: the float literal is -0.0
        x64 = arr.astype(np.float64)
        r = round_floats(x64, elem, None)
        back = r.astype(np.float64)
        if elem.name != "f64":
            nmant = ml_dtypes.finfo(r.dtype).nmant
            bits = x64.view(np.uint64)
            low = np.uint64((1 << (52 - nmant - 1)) - 1)
            if ((back != x64) & ((bits & low) == 0)).any():
                return None  # possible double rounding: take the exact path
        return r
    if isinstance(elem, IntegerType) and elem.is_bool:
        if arr.dtype != np.bool_:
            return None
        return arr
    if arr.dtype.kind != "i":
        return None
    t = elem if isinstance(elem, IntegerType) else IntegerType(64)
    lo, hi = int_range(t)
    if arr.size and (int(arr.min()) < lo or int(arr.max()) > hi):
        return None
    dtype = numpy_dtype(t)
    if t.width < 8:
        mask = (1 << t.width) - 1
        a = arr & mask
        if t.signedness != "unsigned":
            half = 1 << (t.width - 1)
            a = (a ^ half) - half
        return a.astype(dtype)
    return arr.astype(dtype)


def decode_dense(body: str, ttype: TensorType) -> tuple[np.ndarray, bool]:
    """The array of ``dense<body> : ttype`` (full shape) and whether it was a hex blob."""
    shape = static_shape(ttype)
    stripped = body.strip()
    if stripped.startswith('"'):
        if not (stripped.endswith('"') and stripped[1:3] in ("0x", "0X")):
            raise LiteralError('expected a hex blob "0x..." in dense literal')
        return decode_hex_blob(stripped[3:-1], ttype), True
    if stripped == "":
        if _num_elements(shape) != 0:
            raise LiteralError("empty dense literal for a non-empty tensor type")
        return np.zeros(shape, dtype=numpy_dtype(_storage_type(ttype.element_type))), False
    fast = _json_fast(stripped, ttype)
    if fast is not None:
        fast.setflags(write=False)
        return fast, False
    tree = _tokens_to_tree(stripped)
    lit_shape, leaves = _tree_shape(tree)
    splat = _check_shape(lit_shape, shape, len(leaves))
    arr = _leaves_to_array(leaves, ttype.element_type)
    if splat and _num_elements(shape) != 1:
        return splat_array(arr.reshape(()), shape), False
    arr = arr.reshape(shape)
    arr.setflags(write=False)
    return arr, False
