"""Numbers and dense element data as MLIR prints them.

Floats follow MLIR's AsmPrinter (``printFloatValue``): ``1.000000e+00`` when that reads
back to the same bits, else APFloat's shortest round-tripping digits, and NaN /
infinity as the bit pattern ``0x7FC00000``; ``dense<...>`` bodies nested by shape or as
a ``"0x..."`` hex blob (DenseElementsAttr's raw data, little-endian).
"""

from __future__ import annotations

import ml_dtypes
import numpy as np

from .errors import UnsupportedError
from .float_literals import decimal_literal
from .ir import (
    ComplexType,
    FloatType,
    IndexType,
    IntegerType,
    QuantizedType,
    Type,
    numpy_dtype,
)

# --------------------------------------------------------------------------------------
# Numbers
# --------------------------------------------------------------------------------------

_FLOAT_DTYPE: dict[str, np.dtype] = {}
_SUB_BYTE_FLOATS = {"f4E2M1FN": 0xF, "f6E2M3FN": 0x3F, "f6E3M2FN": 0x3F}
_SIG_BITS: dict[str, int] = {}


def _float_info(name: str) -> tuple[np.dtype, int]:
    """Storage dtype and significand precision (bits incl. the implicit one) of a format."""
    dt = _FLOAT_DTYPE.get(name)
    if dt is None:
        dt = numpy_dtype(FloatType(name))
        _FLOAT_DTYPE[name] = dt
        _SIG_BITS[name] = 11 if name == "tf32" else int(ml_dtypes.finfo(dt).nmant) + 1
    return dt, _SIG_BITS[name]


def _uint_view(a: np.ndarray) -> np.ndarray:
    return a.view({1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}[a.dtype.itemsize])


def _hex_bits(value: np.ndarray, name: str) -> str:
    """The bit pattern of one element of format ``name`` as MLIR writes it (``0x7FC00000``)."""
    bits = int(_uint_view(value.reshape(1))[0])
    if name == "tf32":
        bits >>= 13
    elif name in _SUB_BYTE_FLOATS:
        bits &= _SUB_BYTE_FLOATS[name]
    return f"0x{bits:X}"


_POW5 = [5**i for i in range(1080)]  # float64's smallest subnormal is 2^-1074


def _apfloat_digits(x: float, precision: int) -> tuple[str, int]:
    """APFloat::toString's digits of a finite ``x > 0`` (llvm/lib/Support/APFloat.cpp):
    the exact value as an integer times a power of ten, cut down to about
    ``precision`` digits by an integer division (a truncation: AdjustToPrecision on the
    APInt), then rounded half up to ``precision`` digits; trailing zeros dropped.
    Returns the digits (most significant first) and the exponent of the last one."""
    num, den = x.as_integer_ratio()
    k = den.bit_length() - 1
    sig, exp = (num * _POW5[k] if k else num), -k
    bits, required = sig.bit_length(), (precision * 196 + 58) // 59
    if bits > required:
        tens = (bits - required) * 59 // 196
        if tens:
            sig //= 10**tens
            exp += tens
    text = str(sig)
    digits = text.rstrip("0")
    exp += len(text) - len(digits)
    n = len(digits)
    if n > precision:
        if digits[precision] < "5":
            kept = digits[:precision].rstrip("0")
        else:
            kept = str(int(digits[:precision]) + 1)
            if len(kept) > precision:  # carried through every digit
                kept = "1"
            kept = kept.rstrip("0")
        return kept, exp + n - len(kept)
    return digits, exp


def _apfloat_scientific6(x: float) -> str:
    """APFloat::toString(str, 6, 0, false): ``9.499990e-01`` (printFloatValue's first try)."""
    if x == 0.0:
        return ("-" if np.signbit(x) else "") + "0.000000e+00"
    digits, exp = _apfloat_digits(abs(x), 6)
    e10 = exp + len(digits) - 1
    sign = "-" if x < 0 else ""
    return f"{sign}{digits[0]}.{digits[1:]:0<6}e{'+' if e10 >= 0 else '-'}{abs(e10):02d}"


def _apfloat_default(v: float, sig_bits: int) -> str:
    """APFloat::toString with its default arguments: just enough digits to read back,
    trailing zeros dropped, scientific (``E``) outside a 3-digit padding window."""
    prec = 2 + sig_bits * 59 // 196
    if v == 0.0:
        return "-0.0" if np.signbit(v) else "0.0"
    sign = "-" if v < 0 else ""
    digits, exp = _apfloat_digits(abs(v), prec)  # exp: of the least significant digit
    nd = len(digits)
    if exp >= 0:
        scientific = exp > 3 or nd + exp > prec
    else:
        msd = exp + nd - 1
        scientific = msd < 0 and -msd > 3
    if scientific:
        e10 = exp + nd - 1
        frac = digits[1:] or "0"
        return f"{sign}{digits[0]}.{frac}E{'+' if e10 >= 0 else '-'}{abs(e10)}"
    if exp >= 0:
        return sign + digits + "0" * exp  # no '.', the caller falls back to hex
    whole = nd + exp
    if whole > 0:
        return f"{sign}{digits[:whole]}.{digits[whole:]}"
    return f"{sign}0.{'0' * -whole}{digits}"


def _format_floats(arr: np.ndarray, name: str) -> list[str]:
    """MLIR's printFloatValue for each element of ``arr`` (stored as format ``name``):
    APFloat's 6-digit scientific text when it reads back to the same bits, else its
    default text.  Integers of up to 6 digits are exact in both and take a fast path."""
    dt, sig = _float_info(name)
    with np.errstate(all="ignore"):
        flat = np.ascontiguousarray(arr, dtype=dt).reshape(-1)
        wide = flat.astype(np.float64)
        finite = np.isfinite(wide)
        simple = finite & (wide == np.rint(wide)) & (np.abs(wide) < 1e6)
        out = [
            f"{x:.5e}".replace("e", "0e", 1) if s else _apfloat_scientific6(x) if f else ""
            for x, s, f in zip(wide.tolist(), simple.tolist(), finite.tolist())
        ]
        back = np.array([float(s) if f else 0.0 for s, f in zip(out, finite.tolist())])
        if name == "tf32":  # tf32 values live in float32 storage: round to 11 bits
            m, e = np.frexp(back)
            same = np.ldexp(np.rint(np.ldexp(m, 11)), e - 11) == wide
        else:
            same = _uint_view(back.astype(dt)) == _uint_view(flat)
    bad = np.flatnonzero(~(same & finite))
    for i in bad.tolist():
        x = wide[i]
        s = _apfloat_default(float(x), sig) if finite[i] else ""
        if "." not in s:
            s = _hex_bits(flat[i : i + 1], name)
        out[i] = s
    return out


def format_float(value: float, type_: Type | None) -> str:
    """A float literal as MLIR prints a FloatAttr of that type (f64 when untyped)."""
    name = type_.name if isinstance(type_, FloatType) else "f64"
    return _format_floats(np.array([value], dtype=np.float64), name)[0]


def _untyped_float(x: float) -> str:
    """A FloatAttr without a type (f64 in MLIR): a bit pattern would read back as an
    integer, so a finite value keeps a decimal point (``1000001.0``) and infinities and
    the default NaNs are spelled ``inf`` / ``nan``."""
    text = format_float(x, None)
    if not text.startswith("0x"):
        return text
    if np.isfinite(x):
        return decimal_literal(x)
    bits = np.float64(x).tobytes()
    for word in ("inf", "-inf", "nan", "-nan"):
        if np.float64(float(word)).tobytes() == bits:
            return word
    return text + " : f64"


# ---- dense elements -------------------------------------------------------------------


def _format_elements(flat: np.ndarray, elem: Type) -> list[str]:
    """Decimal text of each element (MLIR's printDenseIntElement / printFloatValue)."""
    if isinstance(elem, QuantizedType):
        elem = elem.storage_type
    if isinstance(elem, IntegerType):
        if elem.is_bool:
            return ["true" if v else "false" for v in flat.astype(bool).tolist()]
        if flat.dtype.kind not in "iu":  # ml_dtypes' int2/int4/uint2/uint4
            flat = flat.astype(np.uint8 if elem.is_unsigned else np.int8)
        return [str(v) for v in flat.tolist()]
    if isinstance(elem, IndexType):
        return [str(v) for v in flat.astype(np.int64).tolist()]
    if isinstance(elem, FloatType):
        return _format_floats(flat, elem.name)
    if isinstance(elem, ComplexType):
        inner = elem.element_type
        name = inner.name if isinstance(inner, FloatType) else "f64"
        re_ = _format_floats(flat.real, name)
        im_ = _format_floats(flat.imag, name)
        return [f"({r},{i})" for r, i in zip(re_, im_)]
    raise UnsupportedError(f"the printer cannot write dense elements of type {elem}")


def _nest(strs: list[str], shape: tuple[int, ...]) -> str:
    items = strs
    for d in reversed(shape):
        items = ["[" + ", ".join(items[k : k + d]) + "]" for k in range(0, len(items), d)]
    return items[0]


def _hex_blob(arr: np.ndarray, elem: Type) -> str:
    """``"0x..."``: the little-endian raw data as MLIR stores it."""
    return '"0x' + raw_data(arr, elem).hex().upper() + '"'


def raw_data(arr: np.ndarray, elem: Type) -> bytes:
    """The little-endian raw data of dense elements as MLIR stores it (one byte per i1
    and per sub-byte element, complex as (real, imag) pairs, tf32 in 3 bytes)."""
    if isinstance(elem, QuantizedType):
        elem = elem.storage_type
    a = np.ascontiguousarray(arr).reshape(-1)
    if isinstance(elem, IntegerType):
        if elem.is_bool:
            data = a.astype(np.uint8).tobytes()
        elif elem.width < 8:
            data = (a.view(np.uint8) & ((1 << elem.width) - 1)).tobytes()
        else:
            data = a.astype(a.dtype.newbyteorder("<")).tobytes()
    elif isinstance(elem, FloatType) and elem.name == "tf32":
        bits = (a.astype(np.float32).view(np.uint32) >> 13).astype("<u4")
        data = bits.view(np.uint8).reshape(-1, 4)[:, :3].tobytes()
    elif isinstance(elem, FloatType) and elem.name in _SUB_BYTE_FLOATS:
        data = (a.view(np.uint8) & _SUB_BYTE_FLOATS[elem.name]).tobytes()
    else:
        data = a.astype(a.dtype.newbyteorder("<"), copy=False).tobytes()
    return data
