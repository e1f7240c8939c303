"""Numerics of the elementwise kernels (``elementwise``): the integer, float and complex
functions its rows are made of (spec "Ops": the integer division / shift / power rules,
round-half-away, sign, and the complex formulas of the reference interpreter; the
module docstring of ``elementwise`` states them).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from . import _bits as B

# ---------------------------------------------------------------------------------------
# Integer functions: (compute-dtype arrays..., dt=original dtype) -> integer array
# ---------------------------------------------------------------------------------------


def int_divide(a: np.ndarray, b: np.ndarray, dt: np.dtype) -> np.ndarray:
    """Truncating division; x/0 = -1 (all ones), INT_MIN/-1 = INT_MIN."""
    zero = b == 0
    if a.dtype.kind == "i":
        ovf = (a == np.iinfo(a.dtype).min) & (b == -1)
        safe = np.where(zero | ovf, 1, b).astype(a.dtype)
        r = np.fmod(a, safe)
        q = (a - r) // safe  # exact division: floor == truncation
        q = np.where(ovf, a, q)
    else:
        safe = np.where(zero, 1, b).astype(a.dtype)
        q = a // safe
    return np.where(zero, ~np.zeros_like(a), q)


def int_remainder(a: np.ndarray, b: np.ndarray, dt: np.dtype) -> np.ndarray:
    """Remainder with the dividend's sign; x%0 = x, INT_MIN%-1 = 0."""
    zero = b == 0
    if a.dtype.kind == "i":
        ovf = (a == np.iinfo(a.dtype).min) & (b == -1)
        safe = np.where(zero | ovf, 1, b).astype(a.dtype)
        r = np.fmod(a, safe)
        r = np.where(ovf, 0, r)
    else:
        safe = np.where(zero, 1, b).astype(a.dtype)
        r = a % safe
    return np.where(zero, a, r)


def int_power(a: np.ndarray, b: np.ndarray, dt: np.dtype) -> np.ndarray:
    """Exponentiation by squaring, modulo 2**width; negative exponents give 0 unless
    |base| = 1 (then the exponent's magnitude is used)."""
    width, signed = B.int_info(dt)
    zero_result = np.zeros(np.broadcast(a, b).shape, dtype=bool)
    e = b
    if signed:
        neg = b < 0
        unit = (a == 1) | (a == -1)
        e = np.where(neg & unit, -b, b)  # -INT_MIN wraps; its bit pattern is still right
        zero_result = neg & ~unit
    bits = np.asarray(e.astype(np.int64).view(np.uint64) & np.uint64((1 << width) - 1))
    base = np.broadcast_to(a, bits.shape).copy()
    result = np.ones(bits.shape, dtype=a.dtype)
    for i in range(width):
        shifted = bits >> np.uint64(i)
        if not shifted.any():
            break
        result = np.where((shifted & np.uint64(1)) != 0, result * base, result)
        base = base * base
    return np.where(zero_result, 0, result).astype(a.dtype)


def _shift_amount(b: np.ndarray, dt: np.dtype) -> tuple[np.ndarray, np.ndarray]:
    """(amount out of range, safe amount) for a shift of ``dt`` values: the amount is
    read as an unsigned ``width``-bit number, so negative amounts are out of range."""
    width, _ = B.int_info(dt)
    amount = B.to_bits(b).astype(np.uint64)
    big = amount >= np.uint64(width)
    return big, np.where(big, np.uint64(0), amount)


def _signed_pattern(a: np.ndarray, dt: np.dtype) -> np.ndarray:
    """The bit pattern of ``a`` read as a signed ``width``-bit number (int8..int64)."""
    width, _ = B.int_info(dt)
    if dt in B.SUBBYTE_INT:
        p = B.to_bits(a).astype(np.int8)
        half = np.int8(1 << (width - 1))
        return (p ^ half) - half
    return B.contiguous(a).view(B.signed_view_dtype(dt))


def shift_left(a: np.ndarray, b: np.ndarray, dt: np.dtype) -> np.ndarray:
    big, amount = _shift_amount(b, dt)
    u = B.to_bits(a)
    r = np.left_shift(u, amount.astype(u.dtype))
    return np.where(big, 0, r).astype(u.dtype)


def shift_right_logical(a: np.ndarray, b: np.ndarray, dt: np.dtype) -> np.ndarray:
    big, amount = _shift_amount(b, dt)
    u = B.to_bits(a)
    r = np.right_shift(u, amount.astype(u.dtype))
    return np.where(big, 0, r).astype(u.dtype)


def shift_right_arithmetic(a: np.ndarray, b: np.ndarray, dt: np.dtype) -> np.ndarray:
    big, amount = _shift_amount(b, dt)
    s = _signed_pattern(a, dt)
    r = np.right_shift(s, amount.astype(s.dtype))
    return np.where(big, np.where(s < 0, -1, 0), r).astype(s.dtype)


def clz(a: np.ndarray, dt: np.dtype) -> np.ndarray:
    width, _ = B.int_info(dt)
    return B.clz(B.to_bits(a), width)


def popcnt(a: np.ndarray, dt: np.dtype) -> np.ndarray:
    return B.popcount(B.to_bits(a))


def binary_int(fn: Callable) -> Callable:
    return lambda a, b, dt: fn(a, b)


def unary_int(fn: Callable) -> Callable:
    return lambda a, dt: fn(a)


# ---------------------------------------------------------------------------------------
# Float functions (on float32/float64 arrays)
# ---------------------------------------------------------------------------------------


def round_afz(x: np.ndarray) -> np.ndarray:
    """roundToIntegralTiesToAway: x - trunc(x) is exact, so the tie test is exact."""
    t = np.trunc(x)
    return np.where(np.abs(x - t) >= 0.5, t + np.sign(x), t)


def fsign(x: np.ndarray) -> np.ndarray:
    """NaN -> NaN, +-0 -> +-0, else +-1."""
    one = np.ones_like(x)
    return np.where(np.isnan(x) | (x == 0), x, np.where(x < 0, -one, one))


def logistic(x: np.ndarray) -> np.ndarray:
    """1 / (1 + exp(-x)); for x < 0 as exp(x) / (1 + exp(x)), so that a (subnormal)
    result below the float range's bottom does not become 1 / inf = 0."""
    with np.errstate(over="ignore"):
        e = np.exp(np.where(x < 0, x, -x))
    return np.where(x < 0, e / (1.0 + e), 1.0 / (1.0 + e))


def rsqrt(x: np.ndarray) -> np.ndarray:
    return 1.0 / np.sqrt(x)


# ---------------------------------------------------------------------------------------
# Complex functions (on complex64/complex128 arrays)
# ---------------------------------------------------------------------------------------


def make_complex(re: np.ndarray, im: np.ndarray, dtype=np.complex128) -> np.ndarray:
    """re + i*im without the inf*0 = NaN of complex multiplication."""
    re, im = np.broadcast_arrays(re, im)
    out = np.empty(re.shape, dtype=dtype)
    out.real = re
    out.imag = im
    return out


def cmax(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Lexicographic maximum of (real, imag), as the reference interpreter."""
    pick_a = np.where(a.real == b.real, a.imag > b.imag, a.real > b.real)
    return np.where(pick_a, a, b)


def cmin(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    pick_a = np.where(a.real == b.real, a.imag < b.imag, a.real < b.real)
    return np.where(pick_a, a, b)


def csign(z: np.ndarray) -> np.ndarray:
    nan = np.isnan(z.real) | np.isnan(z.imag)
    zero = z == 0
    a = np.abs(z)
    r = make_complex(z.real / a, z.imag / a)  # real divisions: correctly rounded
    r = np.where(zero, 0, r)
    return np.where(nan, complex(np.nan, np.nan), r)


def cbrt(x: np.ndarray) -> np.ndarray:
    """Real cube root (spec ``cbrt``: IEEE ``rootn(x, 3)``).  NumPy's cbrt can be 1 ULP
    off even on exact cubes (27 -> 3.0000000000000004 on some builds); one Newton step
    in extended precision (x87 long double) brings f64 results to the nearest value in
    all but astronomically close ties.  f32 and narrower compute in f64 first."""
    r = np.cbrt(x)
    if r.dtype != np.float64 or np.finfo(np.longdouble).nmant <= 52:
        return r
    with np.errstate(all="ignore"):
        rl = r.astype(np.longdouble)
        better = (rl - (rl * rl * rl - x) / (3 * rl * rl)).astype(np.float64)
    return np.where(np.isfinite(better) & (r != 0), better, r)


def ccbrt(z: np.ndarray) -> np.ndarray:
    """Principal cube root in polar form.  |z| by hypot of the parts scaled by 2**k
    (k a multiple of 3) into the normal range: squaring them would underflow or
    overflow, and a subnormal |z| would keep only a few significant bits."""
    x, y = z.real, z.imag
    theta = np.arctan2(y, x) / 3.0
    m = np.maximum(np.abs(x), np.abs(y))
    ok = (m > 0) & np.isfinite(m)
    k = np.where(ok, -(np.frexp(np.where(ok, m, 1.0))[1] // 3) * 3, 0)
    mag = np.ldexp(np.cbrt(np.hypot(np.ldexp(x, k), np.ldexp(y, k))), -(k // 3))
    # near the positive real axis theta = atan2(y, x) / 3 can be subnormal (few bits):
    # there mag * sin(theta) = y / (3 mag**2) to within a rounding (theta < 2**-30)
    # (|z| = x there, to the last bit; float64 in x87 extended precision when there is one)
    thin = (x > 0) & (np.abs(y) < np.ldexp(x, -30)) & ok
    wide = x.dtype == np.float64 and np.finfo(np.longdouble).nmant > 52
    with np.errstate(all="ignore"):
        c = np.cbrt(x.astype(np.longdouble) if wide else x)
        im = np.where(thin, (y / (3.0 * c * c)).astype(x.dtype), mag * np.sin(theta))
    return make_complex(mag * np.cos(theta), im)


def crsqrt(z: np.ndarray) -> np.ndarray:
    """1 / sqrt(z) from the parts of z scaled by 4**k into [1, 4) (exact), with
    sqrt(z) = a + ib written as a = sqrt((|z| + |x|) / 2) and the other part y / (2a):
    1 / sqrt(z) = conj(sqrt(z)) / |z| then takes no subnormal intermediate (dividing
    sqrt's own subnormal part would keep only its few bits).  Zero and non-finite
    operands: C's 1 / csqrt(z)."""
    x, y = z.real, z.imag
    m = np.maximum(np.abs(x), np.abs(y))
    ok = (m > 0) & np.isfinite(m) & np.isfinite(x) & np.isfinite(y)
    k = np.where(ok, -(np.frexp(np.where(ok, m, 1.0))[1] // 2) * 2, 0)
    xs, ys = np.ldexp(x, k), np.ldexp(y, k)
    with np.errstate(all="ignore"):
        r = np.hypot(xs, ys)
        a = np.sqrt((r + np.abs(xs)) * 0.5)  # the part of sqrt(z) with no cancellation
        # (y / 2a) / |z|, with y lifted by 2**600 first (a subnormal y stays exact and
        # the quotient normal): one rounding when it is scaled back
        other = np.ldexp(ys, 600) / (2.0 * a * r)
        big = a / r
        pos = xs >= 0
        re = np.where(pos, np.ldexp(big, k // 2), np.ldexp(np.abs(other), k // 2 - 600))
        im = np.where(pos, -np.ldexp(other, k // 2 - 600), -np.ldexp(np.copysign(big, ys), k // 2))
        out = make_complex(re, im, z.dtype)
        special = 1.0 / np.sqrt(z)
    return np.where(ok, out, special)


def catan2(y: np.ndarray, x: np.ndarray) -> np.ndarray:
    """-i log((x + iy) / sqrt(x*x + y*y)), with x and y scaled by one power of two
    first (the quotient does not change) so that the squares neither underflow nor
    overflow."""
    parts = (np.abs(y.real), np.abs(y.imag), np.abs(x.real), np.abs(x.imag))
    m = np.maximum(np.maximum(parts[0], parts[1]), np.maximum(parts[2], parts[3]))
    ok = (m > 0) & np.isfinite(m)
    k = np.where(ok, -np.frexp(np.where(ok, m, 1.0))[1], 0)
    ys = make_complex(np.ldexp(y.real, k), np.ldexp(y.imag, k))
    xs = make_complex(np.ldexp(x.real, k), np.ldexp(x.imag, k))
    i = 1j
    return -i * np.log((xs + i * ys) / np.sqrt(xs * xs + ys * ys))


def _log_hypot(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """log(hypot(a, b)) with a and b scaled by a power of two into range first, so that
    huge parts (|z| past the float maximum) give a finite logarithm."""
    m = np.maximum(np.abs(a), np.abs(b))
    ok = (m > 0) & np.isfinite(m)
    k = np.where(ok, -np.frexp(np.where(ok, m, 1.0))[1], 0)
    return np.log(np.hypot(np.ldexp(a, k), np.ldexp(b, k))) - k * np.log(2.0)


_PI_LONG = np.longdouble("3.14159265358979323846264338327950288")


def _pi(a: np.ndarray):
    """pi at the precision of ``a``'s dtype (x87 extended: 64 bits, not float64's)."""
    return _PI_LONG if np.asarray(a).dtype == np.longdouble else np.pi


def sinpi(a: np.ndarray) -> np.ndarray:
    """sin(pi a), exactly 0 at integers and exactly +-1 at half-integers: a is reduced
    exactly to r in [-1, 1] (a - 2 round(a / 2)), then to an argument of |pi x| <= pi/4."""
    r = a - 2.0 * np.round(0.5 * a)
    s = np.sign(r)
    t = np.abs(r)
    v = np.where(
        t <= 0.25,
        np.sin(_pi(a) * t),
        np.where(t <= 0.75, np.cos(_pi(a) * (0.5 - t)), np.sin(_pi(a) * (1.0 - t))),
    )
    return s * v


def cospi(a: np.ndarray) -> np.ndarray:
    """cos(pi a), exactly 0 at half-integers and exactly +-1 at integers."""
    t = np.abs(a - 2.0 * np.round(0.5 * a))  # in [0, 1]
    return np.where(
        t <= 0.25,
        np.cos(_pi(a) * t),
        np.where(t <= 0.75, np.sin(_pi(a) * (0.5 - t)), -np.cos(_pi(a) * (1.0 - t))),
    )


def cpow(z: np.ndarray, w: np.ndarray) -> np.ndarray:
    """Complex power exp(w log z) for finite nonzero z and finite w, with
    arg(z) = pi q + d split exactly (q = 0, +-1/2 or +-1: the axis nearest z, +-1/4 or
    +-3/4 on a diagonal; the sign
    of a zero part choosing the side of the cut; |d| <= pi/4 comes from an atan2 with
    no cancellation):

        z**w = |z|**re(w) exp(-im(w) arg(z)) (cos + i sin)(pi a + b),
        a = q re(w) (exact), b = re(w) d + im(w) log|z|,

    and sin / cos of pi a + b by sinpi / cospi of a: no cancellation near the negative
    real axis (NumPy's cpow loses ~1e4 ULP there), and parts that are exactly zero
    ((-2)**3, (-1e-3)**-0.5, (-1)**(3 - i)) come out zero.  float64 parts compute in
    x87 extended precision where there is one.  Zero or non-finite operands: NumPy."""
    out = np.power(z, w)
    x, y = z.real, z.imag
    ok = np.isfinite(x) & np.isfinite(y) & np.isfinite(w.real) & np.isfinite(w.imag) & (z != 0)
    if not np.any(ok):
        return out
    wide: Any = np.longdouble if np.finfo(np.longdouble).nmant > 52 else np.float64
    xs = np.where(ok, x, 1.0).astype(wide)
    ys = np.where(ok, y, 0.0).astype(wide)
    wr = np.where(ok, w.real, 0.0).astype(wide)
    wi = np.where(ok, w.imag, 0.0).astype(wide)
    with np.errstate(all="ignore"):
        left = xs < 0
        q = np.where(left, np.copysign(1.0, ys), 0.0).astype(wide)
        d = np.where(left, -np.arctan2(ys, -xs), np.arctan2(ys, xs))
        # nearer the imaginary axis: arg = +-pi/2 + atan2(-+x, |y|)
        vertical = np.abs(xs) < np.abs(ys)
        sy = np.copysign(1.0, ys)
        q = np.where(vertical, 0.5 * sy, q).astype(wide)
        d = np.where(vertical, np.arctan2(-xs * sy, np.abs(ys)), d)
        # on a diagonal: arg = +-pi/4 or +-3pi/4 exactly
        diagonal = np.abs(xs) == np.abs(ys)
        q = np.where(diagonal, sy * np.where(xs > 0, 0.25, 0.75), q).astype(wide)
        d = np.where(diagonal, 0.0, d)
        m = np.maximum(np.abs(xs), np.abs(ys))
        k = -np.frexp(m.astype(np.float64))[1]
        r = np.hypot(np.ldexp(xs, k), np.ldexp(ys, k))  # |z| 2**k, in range
        log_r = np.log(r) - k * np.log(wide(2))
        # |z| near 1: log|z| = log1p((m - 1)(m + 1) + n**2) / 2 (m, n the larger and
        # smaller part), no cancellation in the logarithm
        n = np.minimum(np.abs(xs), np.abs(ys))
        t = (m - 1.0) * (m + 1.0) + n * n
        near = np.abs(t) < 0.5
        log_r = np.where(near, 0.5 * np.log1p(np.where(near, t, 0.0)), log_r)
        a = wr * q
        b = np.where(wi == 0, 0.0, wi * log_r) + np.where(wr == 0, 0.0, wr * d)
        arg = _pi(q) * q + d
        mag = np.exp(wr * log_r - np.where(wi == 0, 0.0, wi * arg))
        sa, ca = sinpi(a), cospi(a)
        cb, sb = np.cos(b), np.sin(b)
        re = mag * (ca * cb - sa * sb)
        im = mag * (sa * cb + ca * sb)
    part = out.real.dtype
    exact = make_complex(
        re.astype(np.float64).astype(part), im.astype(np.float64).astype(part), out.dtype
    )
    return np.where(ok, exact, out)


def clog1p(z: np.ndarray) -> np.ndarray:
    """spec: complex(log(hypot(re + 1, im)), atan2(im, re + 1)), evaluated without the
    cancellation of ``log(1 + z)`` near |1 + z| = 1: there log|1 + z| =
    log1p(re*(re + 2) + im**2) / 2 (re + 2 exact where it matters); elsewhere the
    hypot is scaled (no overflow for huge z).  Non-finite operands keep C's
    ``clog(z + 1)`` special values, the sign of a zero imaginary part included."""
    x, y = z.real, z.imag
    with np.errstate(over="ignore", invalid="ignore"):
        # |1 + z|**2 - 1; its two terms cancel near the circle: float64 parts combine
        # in x87 extended precision (64-bit significand) where there is one
        wide = x.dtype == np.float64 and np.finfo(np.longdouble).nmant > 52
        xw, yw = (x.astype(np.longdouble), y.astype(np.longdouble)) if wide else (x, y)
        d = (xw * (xw + 2.0) + yw * yw).astype(x.dtype)
        near = np.abs(d) < 0.75
    re = np.where(near, 0.5 * np.log1p(np.where(near, d, 0.0)), _log_hypot(x + 1.0, y))
    out = make_complex(re, np.arctan2(y, x + 1.0))
    finite = np.isfinite(x) & np.isfinite(y)
    return np.where(finite, out, np.log(make_complex(x + 1.0, y, z.dtype)))


def clogistic(z: np.ndarray) -> np.ndarray:
    """1 / (1 + exp(-z)).  For |re| < 1, where 1 + exp(-z) cancels near im = pi (mod
    2 pi), the same value as (1 + tanh(z / 2)) / 2 (tanh stays accurate there; for
    |re| >= 1 it is 1 + exp(-z) that has no cancellation).  complex128 computes in x87
    extended precision where there is one (what cancellation remains then costs no
    float64 bits).  Where exp(-z) is infinite the quotient is a (signed) zero, as C99
    Annex G's complex division gives (NumPy's gives NaN)."""
    wide = z.dtype == np.complex128 and np.finfo(np.longdouble).nmant > 52
    zw = z.astype(np.clongdouble) if wide else z
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        w = 1.0 + np.exp(-zw)
        r = 1.0 / w
        inf = np.isinf(w.real) | np.isinf(w.imag)
        zero = make_complex(
            np.copysign(0.0, np.nan_to_num(w.real)), np.copysign(0.0, -np.nan_to_num(w.imag))
        )
        t = np.tanh(0.5 * zw)
        mid = make_complex(0.5 + 0.5 * t.real, 0.5 * t.imag, zw.dtype)
    r = np.where(np.abs(z.real) < 1.0, mid, r).astype(z.dtype)
    return np.where(inf, zero.astype(z.dtype), r)


def cexp(z: np.ndarray) -> np.ndarray:
    """exp(z) as StableHLO's complex math expander writes it
    (stablehlo/transforms/StablehloComplexMathExpanderPatterns.td, the pattern XLA and
    upstream's accuracy tests assume), not C99 Annex G: with e = exp(x),
    real = e cos(y), imag = e sin(y), except imag = +0 when y = 0 (either sign), and,
    where e overflows, exp(x / 2) (cos y + i sin y) exp(x / 2).  So
    exp(-inf - inf i) = NaN + NaN i (Annex G: +-0 +- 0i)."""
    x, y = z.real, z.imag
    with np.errstate(all="ignore"):
        e = np.exp(x)
        big = e == np.inf
        half = np.exp(x * 0.5)
        cs, sn = np.cos(y), np.sin(y)
        re = np.where(big, (half * cs) * half, e * cs)
        im = np.where(y == 0, 0.0, np.where(big, (half * sn) * half, e * sn))
    return make_complex(re, im, z.dtype)


def cexpm1(z: np.ndarray) -> np.ndarray:
    """exp(z) - 1 without cancellation for small z: the real part is
    expm1(re) cos(im) - 2 sin(im/2)**2, the imaginary part exp(re) sin(im) (+-0 kept
    when im is +-0).  Non-finite operands keep C's ``cexp(z) - 1`` special values."""
    x, y = z.real, z.imag
    # the two terms of the real part cancel where exp(re) cos(im) is near 1: float64
    # parts combine in x87 extended precision (64-bit significand) where there is one
    wide = x.dtype == np.float64 and np.finfo(np.longdouble).nmant > 52
    xw, yw = (x.astype(np.longdouble), y.astype(np.longdouble)) if wide else (x, y)
    half = np.sin(0.5 * yw)
    re = (np.expm1(xw) * np.cos(yw) - 2.0 * half * half).astype(x.dtype)
    im = np.where(y == 0, y, np.exp(x) * np.sin(y))
    out = make_complex(re, im)
    finite = np.isfinite(x) & np.isfinite(y)
    return np.where(finite, out, np.exp(z) - 1.0)
