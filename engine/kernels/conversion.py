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

import numpy as np

from engine.dtypes import dtype_of
from parser.errors import UnsupportedError
from parser.ir import Type
from shape_inference.optable import register_kernel

from . import _bits as B
from .elementwise import is_tf32, reject_quantized

_COMPONENT = {B.C64: B.F32, B.C128: B.F64}


def _family(dt: np.dtype) -> str:
    if dt == B.BOOL:
        return "bool"
    if B.is_int_dtype(dt):
        return "int"
    if dt.kind == "c":
        return "complex"
    if B.is_float_dtype(dt):
        return "float"
    raise UnsupportedError(f"convert: unsupported dtype {dt}", op="stablehlo.convert")


def _float_to_float(x: np.ndarray, dst: np.dtype, tf32: bool) -> np.ndarray:
    """One correctly rounded conversion between float formats."""
    if x.dtype == B.F64 or tf32:
        return B.round_float(x, dst, tf32=tf32)
    # Every other source is exact in float32, so ml_dtypes/NumPy round just once
    # (and ml_dtypes has no direct casts between some of its narrow formats).
    with np.errstate(over="ignore", invalid="ignore"):
        return x.astype(B.F32).astype(dst)


def _to_real(x: np.ndarray, dst: np.dtype, tf32: bool) -> np.ndarray:
    """bool/int/float values -> real dtype ``dst`` (bool, int or float)."""
    src = _family(x.dtype)
    dst_family = _family(dst)
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


register_kernel("stablehlo.convert", convert, operand_types=True)


def _byte_sized(dt: np.dtype) -> bool:
    return B.num_bits(dt) == dt.itemsize * 8 and dt != B.BOOL


def bitcast_convert(operand: np.ndarray, *, result_type: Type, operand_types=None) -> np.ndarray:
    """spec: bitcast_convert (same bits, other element type; widths may differ, then
    the smaller type has one more, innermost, dimension)."""
    if is_tf32(result_type) or any(is_tf32(t) for t in operand_types or ()):
        raise UnsupportedError("bitcast_convert of tf32 (19-bit) values", op="stablehlo.bitcast_convert")
    if sys.byteorder != "little":  # pragma: no cover
        raise UnsupportedError("bitcast_convert needs a little-endian host", op="stablehlo.bitcast_convert")
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


register_kernel("stablehlo.bitcast_convert", bitcast_convert, operand_types=True)


def reduce_precision(
    operand: np.ndarray,
    *,
    exponent_bits: int,
    mantissa_bits: int,
    result_type: Type,
    operand_types=None,
) -> np.ndarray:
    """spec: reduce_precision, on the bit pattern exactly as the reference interpreter:
    round the mantissa to ``mantissa_bits`` (ties to even, by adding a bias and
    truncating), then values whose exponent is out of the reduced range overflow to
    +-inf or underflow to +-0 (the reduced format has no subnormals).  NaN stays NaN,
    except that with ``mantissa_bits = 0`` it becomes +inf (no NaN is representable)."""
    reject_quantized("reduce_precision", result_type, operand_types)
    x = B.contiguous(operand)
    dt = x.dtype
    if not B.is_float_dtype(dt):
        raise UnsupportedError(f"reduce_precision of dtype {dt}", op="stablehlo.reduce_precision")
    width = B.num_bits(dt)
    src_m = int(B.float_info(dt).nmant)
    src_e = width - src_m - 1
    full = np.uint64((1 << width) - 1)
    u = B.to_bits(x).astype(np.uint64)
    with np.errstate(over="ignore"):
        if mantissa_bits < src_m:
            drop = src_m - mantissa_bits
            last = 1 << drop
            x_last = (u & np.uint64(last)) >> np.uint64(drop)
            u = u + x_last + np.uint64((last >> 1) - 1)
            u = u & np.uint64(((1 << 64) - 1) ^ (last - 1))
        if exponent_bits < src_e:
            sign_mask = np.uint64(1 << (width - 1))
            exp_mask = ((1 << src_e) - 1) << src_m
            bias = (1 << (src_e - 1)) - 1
            reduced_bias = (1 << (exponent_bits - 1)) - 1
            x_exp = u & np.uint64(exp_mask)
            over = x_exp > np.uint64((bias + reduced_bias) << src_m)
            under = x_exp <= np.uint64((bias - reduced_bias) << src_m)
            signed_zero = u & sign_mask
            u = np.where(over, signed_zero | np.uint64(exp_mask), u)
            u = np.where(under, signed_zero, u)
    out = B.from_bits(u & full, dt)
    with np.errstate(invalid="ignore"):
        nan = np.isnan(x.astype(B.F64))
    if nan.any():
        keep = x if mantissa_bits > 0 else np.full(x.shape, np.inf).astype(dt)
        out = np.where(nan, keep, out).astype(dt)
    return out.reshape(x.shape)


register_kernel("stablehlo.reduce_precision", reduce_precision, operand_types=True)
