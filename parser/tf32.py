"""TensorFloat-32 rounding: the one home of it (literals, conversions, dot_general's
tf32 algorithms all round here).

tf32 (spec "Types": ``tf32``) has f32's sign and 8 exponent bits and 10 explicit
mantissa bits; hlorun holds tf32 values in float32 storage with the low 13 mantissa
bits zero.  Rounding is to nearest, ties to even; overflow gives infinity; subnormals
keep tf32's own spacing (2**-136).
"""

from __future__ import annotations

import numpy as np

__all__ = ["round_tf32"]


def _from_float32(x: np.ndarray) -> np.ndarray:
    """float32 -> nearest tf32 by its bits.  NaN keeps the sign and payload bits tf32
    has (abs and negate of a signalling NaN must not quiet it); quieted only when the
    payload lived entirely in the dropped low bits, which would otherwise leave an
    infinity."""
    x = np.asarray(x, dtype=np.float32)
    if not x.flags.c_contiguous:  # (np.ascontiguousarray would make a 0-d array 1-d)
        x = x.copy(order="C")
    bits = x.view(np.uint32)
    lsb = (bits >> np.uint32(13)) & np.uint32(1)
    with np.errstate(over="ignore"):
        r = ((bits + np.uint32(0xFFF) + lsb) & np.uint32(0xFFFFE000)).astype(np.uint32)
    kept = (bits & np.uint32(0xFFFFE000)).astype(np.uint32)
    lost = (kept & np.uint32(0x007FFFFF)) == 0
    nan = np.where(lost, kept | np.uint32(0x00400000), kept).astype(np.uint32)
    return np.where(np.isnan(x), nan.view(np.float32), r.view(np.float32))


def _from_float64(x: np.ndarray) -> np.ndarray:
    """float64 -> nearest tf32, rounded once (no detour through float32, which would
    round twice)."""
    m, e = np.frexp(x)
    # 11 significant bits at f32's normal exponents; below 2**-126 the spacing stays
    # 2**-136, so fewer bits
    scale_bits = np.maximum(np.where(e >= -125, 11, 11 - (-125 - e)), 0)
    with np.errstate(over="ignore", invalid="ignore"):
        r = np.ldexp(np.rint(np.ldexp(m, scale_bits)), e - scale_bits).astype(np.float32)
    nan = np.isnan(x)
    if nan.any():
        with np.errstate(invalid="ignore"):
            r = np.where(nan, _from_float32(x.astype(np.float32)), r)
    return r


def round_tf32(x: np.ndarray) -> np.ndarray:
    """Real values (float64 rounded once; anything else through float32, exact for
    every narrower float) -> the nearest tf32 value, held in float32."""
    x = np.asarray(x)
    if x.dtype == np.float64:
        return _from_float64(x)
    return _from_float32(x.astype(np.float32))
