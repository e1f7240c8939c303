"""Bit-level helpers shared by the elementwise and conversion kernels.

Everything here works on whole arrays (no per-element Python loops):

* integer facts and two's-complement wraparound for every StableHLO integer width,
  including the sub-byte ``ml_dtypes`` types (int2/int4/uint2/uint4), whose own NumPy
  arithmetic does not always wrap (``np.negative(int4(-8))`` gives 8), so kernels
  compute in int8/uint8 and wrap explicitly;
* raw bit patterns of any element type (for bitcast_convert, clz, popcnt, reduce_precision);
* correctly rounded (round-to-nearest-even, ONE rounding) conversion of real values to
  every float format.  ml_dtypes converts float64 -> bf16/f8/f6/f4 through float32
  (double rounding), so float64 values go through float32 with round-to-odd first:
  rounding to odd in a format with >= p+2 bits and then to nearest-even gives the
  correctly rounded result (Boldo & Melquiond, "When double rounding is odd").
"""

from __future__ import annotations

import ml_dtypes
import numpy as np

from ...parser.errors import UnsupportedError
from ...parser.tf32 import round_tf32 as round_tf32  # the one home; kernels use B.round_tf32

F16 = np.dtype(np.float16)
F32 = np.dtype(np.float32)
F64 = np.dtype(np.float64)
C64 = np.dtype(np.complex64)
C128 = np.dtype(np.complex128)
BOOL = np.dtype(np.bool_)

_UINT_BY_BYTES: dict[int, np.dtype] = {
    1: np.dtype(np.uint8),
    2: np.dtype(np.uint16),
    4: np.dtype(np.uint32),
    8: np.dtype(np.uint64),
}
_INT_BY_BYTES: dict[int, np.dtype] = {
    1: np.dtype(np.int8),
    2: np.dtype(np.int16),
    4: np.dtype(np.int32),
    8: np.dtype(np.int64),
}

# Sub-byte integer dtypes: dtype -> (width, signed).
SUBBYTE_INT: dict[np.dtype, tuple[int, bool]] = {
    np.dtype(ml_dtypes.int2): (2, True),
    np.dtype(ml_dtypes.int4): (4, True),
    np.dtype(ml_dtypes.uint2): (2, False),
    np.dtype(ml_dtypes.uint4): (4, False),
}

# Float formats whose width is not 8 * itemsize.
_NARROW_FLOAT_BITS: dict[np.dtype, int] = {
    np.dtype(ml_dtypes.float4_e2m1fn): 4,
    np.dtype(ml_dtypes.float6_e2m3fn): 6,
    np.dtype(ml_dtypes.float6_e3m2fn): 6,
}


def contiguous(x) -> np.ndarray:
    """A C-contiguous array with ``x``'s shape (np.ascontiguousarray makes 0-d arrays 1-d)."""
    a = np.asarray(x)
    return a if a.flags.c_contiguous else np.ascontiguousarray(a).reshape(a.shape)


# ---------------------------------------------------------------------------------------
# Classification
# ---------------------------------------------------------------------------------------


def is_int_dtype(dt: np.dtype) -> bool:
    """Integer (not bool) dtype, including the sub-byte ml_dtypes ones."""
    return dt in SUBBYTE_INT or dt.kind in "iu"


def is_float_dtype(dt: np.dtype) -> bool:
    """Real floating dtype: NumPy floats and every ml_dtypes float."""
    if dt.kind == "f":
        return True
    if dt in SUBBYTE_INT or dt.kind in "iubc":
        return False
    try:
        ml_dtypes.finfo(dt)
    except (ValueError, TypeError):
        return False
    return True


def int_info(dt: np.dtype) -> tuple[int, bool]:
    """(bit width, signed) of an integer dtype."""
    if dt in SUBBYTE_INT:
        return SUBBYTE_INT[dt]
    return dt.itemsize * 8, dt.kind == "i"


def int_min_max(dt: np.dtype) -> tuple[int, int]:
    width, signed = int_info(dt)
    if signed:
        return -(1 << (width - 1)), (1 << (width - 1)) - 1
    return 0, (1 << width) - 1


def num_bits(dt: np.dtype) -> int:
    """``num_bits`` of the element type held in ``dt`` (i1 -> 1, int4 -> 4, f6 -> 6...)."""
    if dt == BOOL:
        return 1
    if dt in SUBBYTE_INT:
        return SUBBYTE_INT[dt][0]
    if dt in _NARROW_FLOAT_BITS:
        return _NARROW_FLOAT_BITS[dt]
    return dt.itemsize * 8


def float_info(dt: np.dtype):
    """``finfo`` for NumPy and ml_dtypes floats alike."""
    return ml_dtypes.finfo(dt)


def has_sign_bit(dt: np.dtype) -> bool:
    """Does the float format have a sign bit?  (Not f8E8M0FNU.)  Compared as a Python
    float: f8E8M0FNU has no zero, so ``finfo.min >= 0`` in its own type is NaN-false."""
    return float(ml_dtypes.finfo(dt).min) < 0


# ---------------------------------------------------------------------------------------
# Integers: compute dtype and wraparound
# ---------------------------------------------------------------------------------------


def int_compute(x: np.ndarray) -> np.ndarray:
    """The values of an integer array in a dtype NumPy computes with natively
    (sub-byte types widen to int8/uint8, exactly); other arrays are returned as is."""
    info = SUBBYTE_INT.get(x.dtype)
    if info is None:
        return x
    return x.astype(np.int8 if info[1] else np.uint8)


def wrap_int(y: np.ndarray, dt: np.dtype) -> np.ndarray:
    """Integer values -> ``dt`` with two's-complement wraparound (modulo 2**width)."""
    y = np.asarray(y)
    if dt not in SUBBYTE_INT:
        return y.astype(dt, copy=False)
    width, signed = SUBBYTE_INT[dt]
    mask = (1 << width) - 1
    u = y.astype(np.int64) & mask
    if signed:
        half = 1 << (width - 1)
        u = (u ^ half) - half
    return u.astype(dt)


def unsigned_dtype_for(width: int) -> np.dtype:
    """The smallest NumPy unsigned dtype with at least ``width`` bits."""
    for nbytes in (1, 2, 4, 8):
        if width <= nbytes * 8:
            return _UINT_BY_BYTES[nbytes]
    raise ValueError(f"no unsigned dtype with {width} bits")


def signed_view_dtype(dt: np.dtype) -> np.dtype:
    return _INT_BY_BYTES[dt.itemsize]


def unsigned_view_dtype(dt: np.dtype) -> np.dtype:
    return _UINT_BY_BYTES[dt.itemsize]


# ---------------------------------------------------------------------------------------
# Raw bit patterns
# ---------------------------------------------------------------------------------------


def to_bits(x: np.ndarray) -> np.ndarray:
    """The bit pattern of every element, in an unsigned array of ``num_bits`` bits
    (uint8 for widths <= 8).  Complex dtypes are not handled (use byte views)."""
    dt = x.dtype
    x = contiguous(x)
    if dt == BOOL:
        return x.astype(np.uint8)
    if dt in SUBBYTE_INT:
        width, signed = SUBBYTE_INT[dt]
        return (x.astype(np.int8).view(np.uint8) & ((1 << width) - 1)).astype(np.uint8)
    if dt.kind == "c":
        raise TypeError("to_bits does not handle complex dtypes")
    u = x.view(_UINT_BY_BYTES[dt.itemsize])
    if dt in _NARROW_FLOAT_BITS:
        u = u & ((1 << _NARROW_FLOAT_BITS[dt]) - 1)
    return u


def from_bits(u: np.ndarray, dt: np.dtype) -> np.ndarray:
    """Inverse of ``to_bits``: unsigned bit patterns (``num_bits(dt)`` low bits) -> ``dt``."""
    width = num_bits(dt)
    if dt == BOOL:
        return np.asarray(u != 0)
    mask = (1 << width) - 1
    if dt in SUBBYTE_INT:
        return wrap_int(np.asarray(u).astype(np.uint64) & np.uint64(mask), dt)
    storage = _UINT_BY_BYTES[dt.itemsize]
    v = contiguous(np.asarray(u).astype(storage))
    if dt in _NARROW_FLOAT_BITS:
        v = v & storage.type(mask)
    return v.view(dt)


def clz(u: np.ndarray, width: int) -> np.ndarray:
    """Count leading zeros of ``width``-bit unsigned values, for the whole array: the
    bit length is the binary exponent (``np.frexp``) of the value converted to float64,
    exact for values below 2**32; 64-bit values are split in two halves.  Returns int64."""
    x = np.asarray(u).astype(np.uint64) & np.uint64((1 << width) - 1)
    if width <= 32:
        length = np.frexp(x.astype(np.float64))[1]
    else:
        hi = (x >> np.uint64(32)).astype(np.float64)
        lo = (x & np.uint64(0xFFFFFFFF)).astype(np.float64)
        length = np.where(hi != 0, 32 + np.frexp(hi)[1], np.frexp(lo)[1])
    return (width - length).astype(np.int64)


def popcount(u: np.ndarray) -> np.ndarray:
    """Number of set bits of unsigned values."""
    return np.bitwise_count(np.asarray(u))


# ---------------------------------------------------------------------------------------
# Correctly rounded conversion to float formats
# ---------------------------------------------------------------------------------------


def round_to_odd_f32(x: np.ndarray) -> np.ndarray:
    """float64 -> float32 rounding to odd: the truncation toward zero, with the last bit
    forced to 1 when inexact.  Followed by a round-to-nearest-even to any format with
    at most 22 significand bits, this gives the correctly rounded value."""
    x = np.asarray(x, dtype=np.float64)
    with np.errstate(over="ignore", invalid="ignore"):
        f = x.astype(np.float32)
        back = f.astype(np.float64)
        finite = np.isfinite(x)
        inexact = (back != x) & finite
        away = inexact & (np.abs(back) > np.abs(x))
    bits = contiguous(f).view(np.uint32).copy()
    bits = np.where(away, bits - np.uint32(1), bits)
    bits = np.where(inexact, bits | np.uint32(1), bits).astype(np.uint32)
    return bits.view(np.float32)


E8M0 = np.dtype(ml_dtypes.float8_e8m0fnu)


def round_e8m0(y: np.ndarray) -> np.ndarray:
    """Real values -> f8E8M0FNU (powers of two 2**-127 .. 2**127, no sign, no zero,
    0xFF = NaN), nearest with ties up (its one-digit significand is odd, so round to
    nearest even takes the larger neighbour): a value m * 2**e with m in [0.5, 1)
    becomes 2**e when m >= 0.75, else 2**(e-1).  Positive values below 2**-127 give
    2**-127; zero, negative values, NaN, infinity and results above 2**127 give NaN.
    (ml_dtypes rounds float32 subnormals up: 2**-127 + 2**-149 gave 2**-126.)"""
    y = np.asarray(y).astype(np.float64)  # exact for every float input
    with np.errstate(invalid="ignore"):
        m, e = np.frexp(y)
        k = np.where(m >= 0.75, e, e - 1).astype(np.int64)
        k = np.maximum(k, -127)
        nan = ~(y > 0) | ~np.isfinite(y) | (k > 127)
    bits = np.where(nan, 0xFF, k + 127).astype(np.uint8)
    return bits.view(E8M0)


def round_float(y: np.ndarray, dt: np.dtype, *, tf32: bool = False) -> np.ndarray:
    """Real values (any float dtype, usually float64 or float32) -> ``dt`` with ONE
    round-to-nearest-even.  ``tf32`` rounds to TensorFloat-32 (``dt`` is float32).
    Overflow, NaN and infinity follow ml_dtypes for formats without infinity / NaN
    (e4m3fn: NaN; f4/f6: saturate to the largest finite value)."""
    y = np.asarray(y)
    with np.errstate(over="ignore", invalid="ignore", under="ignore"):
        if tf32:
            y32 = round_to_odd_f32(y) if y.dtype == F64 else y.astype(np.float32)
            return round_tf32(y32)
        if dt == y.dtype:
            return y
        if dt == E8M0:
            return round_e8m0(y)
        if dt in (F64, F32) or (dt == F16 and y.dtype in (F64, F32)):
            return y.astype(dt)  # NumPy rounds these directly and correctly
        if y.dtype == F64:
            y = round_to_odd_f32(y)
        return y.astype(dt)


def int_to_float(x: np.ndarray, dt: np.dtype, *, tf32: bool = False) -> np.ndarray:
    """Integer values -> float ``dt``, correctly rounded (one rounding)."""
    x = int_compute(x)
    width, _ = int_info(x.dtype)
    if not tf32 and dt in (F64, F32):
        return x.astype(dt)  # a single correctly rounded C conversion
    if width <= 16:
        return round_float(x.astype(np.float32), dt, tf32=tf32)  # exact in float32
    # Round to odd at 24 significand bits in integer arithmetic, then one RNE.
    signed = x.dtype.kind == "i"
    v = x.astype(np.int64 if signed else np.uint64)
    if signed:
        neg = v < 0
        mag: np.ndarray = np.where(neg, -v, v).view(np.uint64)  # -INT64_MIN wraps to 2**63: right
    else:
        neg = np.zeros(v.shape, dtype=bool)
        mag = v
    length = 64 - clz(mag, 64)
    shift = np.maximum(length - 24, 0).astype(np.uint64)
    kept = mag >> shift
    sticky = (mag & ((np.uint64(1) << shift) - np.uint64(1))) != 0
    odd = kept | sticky.astype(np.uint64)
    f = np.ldexp(odd.astype(np.float64), shift.astype(np.int64))
    f = np.where(neg, -f, f).astype(np.float32)  # exact: at most 24 significant bits
    return round_float(f, dt, tf32=tf32)


def float_to_int(x: np.ndarray, dt: np.dtype) -> np.ndarray:
    """Floats -> integer ``dt``: truncation toward zero; out-of-range values saturate to
    the type's min/max and NaN gives 0 (what LLVM's ``APFloat::convertToInteger`` and
    XLA produce; the spec leaves this case TBD, #180)."""
    x64 = np.asarray(x).astype(np.float64)
    width, signed = int_info(dt)
    lo_v, hi_v = int_min_max(dt)
    lo = float(lo_v)
    hi = 2.0 ** (width - 1) if signed else 2.0**width  # first value out of range
    with np.errstate(invalid="ignore"):
        t = np.trunc(np.where(np.isnan(x64), 0.0, x64))
        clipped = np.clip(t, lo, np.nextafter(hi, 0.0))
    container = np.int64 if signed else np.uint64
    vals = clipped.astype(container)
    vals = np.where(t >= hi, container(hi_v), vals).astype(container)
    return wrap_int(vals, dt)


def dtype_family(dt: np.dtype, op: str | None = None) -> str:
    """ "bool", "int", "complex" or "float": which kind of arithmetic ``dt`` takes."""
    if dt == BOOL:
        return "bool"
    if is_int_dtype(dt):
        return "int"
    if dt.kind == "c":
        return "complex"
    if is_float_dtype(dt):
        return "float"
    raise UnsupportedError(f"no kernel for arrays of dtype {dt}", op=op)
