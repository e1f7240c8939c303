"""conversion kernels (spec: convert, bitcast_convert, reduce_precision).

convert, where the spec says "TBD" (#180), does what LLVM's APFloat (the reference
interpreter) and XLA do:

* integer -> integer: two's-complement wraparound (sign- or zero-extend, truncate);
* integer/float -> float: round to nearest, ties to even, ONE rounding (see
  ``_bits.round_float``); overflow gives +-inf, or NaN for formats without infinity
  (f8E4M3FN...), or the largest finite value for f4/f6 (ml_dtypes' choice; those
  formats have neither inf nor NaN, and NaN becomes what ml_dtypes gives);
* float -> integer: truncation toward zero, saturating to the type's range, NaN -> 0;
* any -> bool: value != 0 (NaN -> true); complex -> real types: the real part;
  real -> complex: imaginary part 0.

bitcast_convert reinterprets bits little-endian: the first element of the innermost
dimension holds the least significant bits (and a complex number is real part in the
low half, imaginary part in the high half), as the reference interpreter does.
Sub-byte and boolean element types go through whole-array shifts and masks.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

import numpy as np

from ...parser.errors import UnsupportedError
from ...parser.ir import Operation, TensorType, Type
from ...shape_inference.optable import register_kernel
from ..dtypes import dtype_of
from ..plan import plain_dtype
from . import _bits as B
from .elementwise import is_tf32, reject_quantized

_COMPONENT: dict[np.dtype, np.dtype] = {B.C64: B.F32, B.C128: B.F64}


def _element(t: Type) -> Type:
    return t.element_type if isinstance(t, TensorType) else t


def _float_to_float(x: np.ndarray, dst: np.dtype, tf32: bool) -> np.ndarray:
    """One correctly rounded conversion between float formats."""
    if x.dtype == dst and not tf32:
        return x.copy()  # exactly representable: the same value, NaN payloads included
    if x.dtype == B.F64 or tf32 or dst == B.E8M0:
        return B.round_float(x, dst, tf32=tf32)
    # Every other source is exact in float32, so ml_dtypes/NumPy round just once
    # (and ml_dtypes has no direct casts between some of its narrow formats).
    with np.errstate(over="ignore", invalid="ignore"):
        return x.astype(B.F32).astype(dst)


def _to_real(x: np.ndarray, dst: np.dtype, tf32: bool) -> np.ndarray:
    """bool/int/float values -> real dtype ``dst`` (bool, int or float)."""
    src = B.dtype_family(x.dtype, "stablehlo.convert")
    dst_family = B.dtype_family(dst, "stablehlo.convert")
    if dst_family == "bool":
        if src == "float" and x.dtype not in (B.F32, B.F64):
            x = x.astype(B.F64)
        return np.asarray(x != 0)
    if src == "bool":
        x = x.astype(np.int8)
        src = "int"
    if src == "int":
        if dst_family == "int":
            return B.wrap_int(B.int_compute(x), dst)
        return B.int_to_float(x, dst, tf32=tf32)
    if dst_family == "int":
        return B.float_to_int(x, dst)
    return _float_to_float(x, dst, tf32)


def convert(operand: np.ndarray, *, result_type: Type, operand_types=None) -> np.ndarray:
    """spec: convert (element-wise conversion to the result's element type)."""
    reject_quantized("convert", result_type, operand_types)
    dst = dtype_of(result_type)
    tf32 = is_tf32(result_type)
    x = np.asarray(operand)
    if operand_types and _element(operand_types[0]) == _element(result_type):
        return x.astype(dst, copy=True)  # same type: every value (NaN payloads too) is exact
    if dst.kind == "c":
        if x.dtype.kind == "c":
            return x.astype(dst)  # per component, correctly rounded by NumPy
        real = _to_real(x, _COMPONENT[dst], False)
        out = np.zeros(x.shape, dtype=dst)
        out.real = real
        return out
    if x.dtype.kind == "c":
        if dst == B.BOOL:
            return np.asarray(x.real != 0)  # the imaginary part is ignored
        x = B.contiguous(x.real)
    return np.asarray(_to_real(x, dst, tf32)).astype(dst, copy=False)


# Conversions NumPy's ``astype`` (and the scalar constructor) does exactly as the spec's
# convert: integers of up to 32 bits and f32 are exact in f64, so whatever path NumPy
# takes rounds once to nearest even; integer narrowing wraps; x -> bool is x != 0.
_EXACT_INTO = {
    "f": lambda src, dst: src.kind in "bf" or (src.kind in "iu" and src.itemsize <= 4),
    "i": lambda src, dst: src.kind in "biu",
    "u": lambda src, dst: src.kind in "biu",
}


def _convert_fast(
    op: Operation, rt: Type, dt: np.dtype, kwargs: dict[str, Any]
) -> Callable[..., Any] | None:
    (x,) = op.operands
    src = plain_dtype(x.type)
    if src is None or getattr(x.type, "shape", None) != getattr(rt, "shape", ()):
        return None
    if src == dt:
        return lambda a: a.copy()
    if dt.kind == "b":
        if src.kind not in "biuf":
            return None
        return lambda a: a != 0
    exact = _EXACT_INTO.get(dt.kind)
    if exact is None or not exact(src, dt):
        return None
    scalar = dt.type
    return lambda a: a.astype(dt) if a.__class__ is np.ndarray else scalar(a)


register_kernel("stablehlo.convert", convert, operand_types=True, fast_plan=_convert_fast)


def _byte_sized(dt: np.dtype) -> bool:
    return B.num_bits(dt) == dt.itemsize * 8 and dt != B.BOOL


def bitcast_convert(operand: np.ndarray, *, result_type: Type, operand_types=None) -> np.ndarray:
    """spec: bitcast_convert (same bits, other element type; widths may differ, then
    the smaller type has one more, innermost, dimension)."""
    if is_tf32(result_type) or any(is_tf32(t) for t in operand_types or ()):
        raise UnsupportedError(
            "bitcast_convert of tf32 (19-bit) values", op="stablehlo.bitcast_convert"
        )
    if sys.byteorder != "little":  # pragma: no cover
        raise UnsupportedError(
            "bitcast_convert needs a little-endian host", op="stablehlo.bitcast_convert"
        )
    src = operand.dtype
    dst = dtype_of(result_type)
    x = B.contiguous(operand)
    sb, db = B.num_bits(src), B.num_bits(dst)
    if _byte_sized(src) and _byte_sized(dst):
        if sb == db:
            return x.view(dst).reshape(x.shape).copy()
        if sb > db:
            return x.reshape(x.shape + (1,)).view(dst).reshape(x.shape + (sb // db,)).copy()
        return x.view(dst).reshape(x.shape[:-1]).copy()
    # A complex number against a sub-byte type: its two parts (real = low half).
    if src.kind == "c":
        part = _COMPONENT[src]
        parts = x.reshape(x.shape + (1,)).view(part).reshape(x.shape + (2,))
        r = _bitcast_bits(parts, part, dst)
        return r.reshape(x.shape + (sb // db,))
    if dst.kind == "c":
        part = _COMPONENT[dst]
        k = x.shape[-1]
        r = _bitcast_bits(x.reshape(x.shape[:-1] + (2, k // 2)), src, part)
        return B.contiguous(r).view(dst).reshape(x.shape[:-1])
    return _bitcast_bits(x, src, dst)


def _bitcast_bits(x: np.ndarray, src: np.dtype, dst: np.dtype) -> np.ndarray:
    """bitcast_convert through whole-array shifts and masks of the bit patterns (for
    the element types whose width is not a whole number of bytes)."""
    sb, db = B.num_bits(src), B.num_bits(dst)
    u = B.to_bits(x).astype(np.uint64)
    if sb == db:
        return B.from_bits(u, dst)
    if sb > db:
        k = sb // db
        shifts = np.arange(k, dtype=np.uint64) * np.uint64(db)
        parts = (u[..., None] >> shifts) & np.uint64((1 << db) - 1)
        return B.from_bits(parts, dst)
    k = db // sb
    shifts = np.arange(k, dtype=np.uint64) * np.uint64(sb)
    combined = np.bitwise_or.reduce(u << shifts, axis=-1)
    return B.from_bits(combined, dst)


register_kernel(
    "stablehlo.bitcast_convert", bitcast_convert, operand_types=True, quantized="native"
)


def reduce_precision(
    operand: np.ndarray,
    *,
    exponent_bits: int,
    mantissa_bits: int,
    result_type: Type,
    operand_types=None,
) -> np.ndarray:
    """spec: reduce_precision, by value, for every float format:

    1. the significand is rounded to ``mantissa_bits`` fraction bits with
       roundToIntegralTiesToEven, at the operand's own quantum (a subnormal operand
       keeps its format's smallest exponent) -- for IEEE formats this is the reference
       interpreter's add-a-bias-and-truncate on the bits, except that with
       ``mantissa_bits = 0`` a tie goes to the even significand (up), not to the even
       encoding;
    2. when ``exponent_bits`` is below the operand format's, results beyond the normal
       range of an IEEE format with ``exponent_bits`` (bias 2**(exponent_bits-1) - 1,
       no subnormals) overflow to +-inf / underflow to +-0, keeping the sign;
    3. the value goes back to the operand's type (+-inf becomes NaN in formats without
       infinity, the largest value in f4/f6; -0 becomes +0 in FNUZ formats).

    NaN stays the same NaN, except that with ``mantissa_bits = 0`` it becomes +inf (the
    reference interpreter's rule: no NaN is representable)."""
    reject_quantized("reduce_precision", result_type, operand_types)
    x = B.contiguous(operand)
    dt = x.dtype
    if not B.is_float_dtype(dt):
        raise UnsupportedError(f"reduce_precision of dtype {dt}", op="stablehlo.reduce_precision")
    # tf32 values (held in float32) go through float32's steps: a value of at most 10
    # significand bits rounded to more bits is unchanged, to fewer (or to fewer exponent
    # bits) it stays a tf32 value, so the result needs no second rounding
    info = B.float_info(dt)
    src_m, src_e, emin = int(info.nmant), int(info.nexp), int(info.minexp)
    v = x.astype(B.F64)  # exact for every format
    with np.errstate(over="ignore", invalid="ignore"):
        a = np.abs(v)
        nan = np.isnan(v)
        finite = np.isfinite(v) & (a > 0)
        if mantissa_bits < src_m:
            exp = np.frexp(np.where(finite, a, 1.0))[1] - 1  # floor(log2 |x|)
            q = (np.maximum(exp, emin) - mantissa_bits).astype(np.int64)
            rounded = np.ldexp(np.rint(np.ldexp(a, -q)), q)  # each step exact
            a = np.where(finite, rounded, a)
        if exponent_bits < src_e:
            bias = (1 << (exponent_bits - 1)) - 1
            a = np.where(a >= 2.0 ** (bias + 1), np.inf, a)
            a = np.where(a < 2.0 ** (1 - bias), 0.0, a)
        r = np.where(np.signbit(v), -a, a)
    out = B.round_float(r, dt) if dt != B.F64 else r
    if nan.any():
        keep = x if mantissa_bits > 0 else B.round_float(np.full(x.shape, np.inf), dt)
        out = np.where(nan, keep, out)
    return np.asarray(out, dtype=dt).reshape(x.shape)


register_kernel(
    "stablehlo.reduce_precision", reduce_precision, operand_types=True, quantized="dequantize"
)
