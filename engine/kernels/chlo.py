"""chlo kernels (source of truth: stablehlo docs/chlo.md), run directly without lowering.

Accuracy.  Real functions of f32, f16, bf16 and narrower floats are computed in float64
(NumPy / scipy.special) and rounded once to the result type; bf16 and the 8/6/4-bit
formats go through float32 with round-to-odd, so that rounding is a single correct
round-to-nearest-even of the float64 value (measured: <= 0.5 ULP + float64 noise for
every op at f32).  f64 inputs get float64 library accuracy, measured against mpmath:
erf, erf_inv, lgamma (x > 0) <= 2.5 ULP, erfc <= 3 (scipy's own erfc loses ~400 ULP for
x > 20; here erfcx(x) * exp(-x²) with an exact x² split), bessel_i1e, zeta, polygamma
<= 3.5, digamma <= 8 (negative x: the reflection formula cancels), acos...tan <= 0.7;
lgamma of negative non-integers has absolute, not relative, float64 accuracy near its
zeros.  Complex functions of complex64 are computed in complex128 (NumPy's C99
functions: the C99 / NumPy branch cuts and signed-zero conventions) and rounded per
component.

Special values follow XLA's CHLO decompositions (what JAX programs expect):
``lgamma(±inf) = +inf``, ``lgamma`` of a non-positive integer is ``+inf``, and of a
negative non-integer ``log|Γ(x)|``; ``digamma`` is NaN at its poles (0, -1, -2...,
-inf); ``zeta(x, q)`` is ``+inf`` at ``x == 1``, NaN for ``x < 1``, NaN for ``q <= 0``
with non-integer ``x``, and at the poles ``q ∈ {0, -1, ...}`` ``+inf`` if ``x`` is an
even integer, else NaN; ``polygamma(n, x)`` is NaN unless ``n`` is a natural number,
``digamma(x)`` for ``n == 0``, else ``(-1)^(n+1) n! zeta(n+1, x)``; ``next_after`` is
the bit-level algorithm of XLA's ``NextAfter`` (C's ``nextafter`` for IEEE formats).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from functools import cache
from typing import Any

import ml_dtypes
import numpy as np

from ...parser.errors import InterpreterError, UnsupportedError
from ...parser.ir import QuantizedType, TensorType, Type
from ...shape_inference.elementwise import COMPARE
from ...shape_inference.optable import OP_TABLE, OpDef, kernel, register_kernel
from ..dtypes import dtype_of
from . import elementwise as E
from ._numerics import make_complex

F16, F32, F64 = np.dtype(np.float16), np.dtype(np.float32), np.dtype(np.float64)
C64, C128 = np.dtype(np.complex64), np.dtype(np.complex128)
_ML_SIGNED = (np.dtype(ml_dtypes.int2), np.dtype(ml_dtypes.int4))
_ML_UNSIGNED = (np.dtype(ml_dtypes.uint2), np.dtype(ml_dtypes.uint4))


def int_kind(dt: np.dtype) -> str | None:
    """ "i" for signed integers (NumPy or ml_dtypes int2/int4), "u" for unsigned, else None."""
    if dt.kind in "iu":
        return dt.kind
    if dt in _ML_SIGNED:
        return "i"
    if dt in _ML_UNSIGNED:
        return "u"
    return None


# --------------------------------------------------------------------------------------
# Rounding helpers
# --------------------------------------------------------------------------------------


def round_from_f64(y: np.ndarray, dt: np.dtype) -> np.ndarray:
    """Round float64 values once (to nearest, ties to even) to the float dtype ``dt``.

    f16 and f32 conversions from float64 are direct.  ml_dtypes converts float64 to
    bf16 / f8 / f6 / f4 through float32 (double rounding), so we first round to float32
    with round-to-odd: float32 keeps at least p + 2 bits of every narrower format (also
    for their subnormals), which makes the second rounding correct.
    """
    y = np.asarray(y, dtype=F64)
    if dt == F64:
        return y
    if dt in (F32, F16):
        with np.errstate(all="ignore"):
            return y.astype(dt)
    with np.errstate(all="ignore"):
        r = y.astype(F32)
        back = r.astype(F64)
        inexact = (back != y) & ~np.isnan(y)
        trunc = np.where(np.abs(back) > np.abs(y), np.nextafter(r, np.float32(0)), r)
        bits = trunc.view(np.uint32) | inexact.astype(np.uint32)
        return bits.view(F32).astype(dt)


def out_dtype(result_type: Type) -> np.dtype:
    return dtype_of(result_type)


def _real(fn: Callable[[np.ndarray], np.ndarray], x: np.ndarray, dt: np.dtype) -> np.ndarray:
    with np.errstate(all="ignore"):
        y = fn(x.astype(F64))
    return round_from_f64(y, dt)


def _complex(fn: Callable[[np.ndarray], np.ndarray], x: np.ndarray, dt: np.dtype) -> np.ndarray:
    with np.errstate(all="ignore"):
        y = fn(x.astype(C128))
    return np.asarray(y, dtype=C128).astype(dt)


# --------------------------------------------------------------------------------------
# Special functions on float64 arrays (XLA conventions, see the module docstring)
# --------------------------------------------------------------------------------------


class _LazySpecial:
    """``scipy.special``, imported on first use: it costs ~0.1 s, which a program
    without these ops should not pay at startup."""

    def __getattr__(self, name: str) -> Any:
        from scipy import special as module  # on first use, to keep startup cheap

        return getattr(module, name)


special: Any = _LazySpecial()


# Taylor coefficients of lgamma(1 + e) = -euler_gamma e + sum_k (-1)^k zeta(k) / k e^k and
# lgamma(2 + e) = (1 - euler_gamma) e + sum_k (-1)^k (zeta(k) - 1) / k e^k, k >= 2.
_LGAMMA_TERMS = 60


@cache
def _lgamma_coeffs() -> tuple[np.ndarray, np.ndarray]:
    """The Taylor coefficients of lgamma about 1 and about 2 (computed once)."""
    near1 = np.array(
        [0.0, -np.euler_gamma]
        + [(-1) ** k * float(special.zeta(k)) / k for k in range(2, _LGAMMA_TERMS)]
    )
    near2 = np.array(
        [0.0, 1 - np.euler_gamma]
        + [(-1) ** k * float(special.zetac(k)) / k for k in range(2, _LGAMMA_TERMS)]
    )
    return near1, near2


def _horner(coeffs: np.ndarray, e: np.ndarray) -> np.ndarray:
    acc = np.zeros_like(e)
    for c in coeffs[::-1]:
        acc = acc * e + c
    return acc


def _lgamma(x: np.ndarray) -> np.ndarray:
    """log|Gamma(x)|.  On [0.5, 2.5), around the zeros at 1 and 2, Taylor series keep the
    relative accuracy that scipy's gammaln loses there by cancellation."""
    y = special.gammaln(x)
    near1 = (x >= 0.5) & (x < 1.5)
    near2 = (x >= 1.5) & (x < 2.5)
    if near1.any():
        y = np.where(near1, _horner(_lgamma_coeffs()[0], np.where(near1, x - 1, 0.0)), y)
    if near2.any():
        y = np.where(near2, _horner(_lgamma_coeffs()[1], np.where(near2, x - 2, 0.0)), y)
    # |x| < 2**-30: log|Gamma(x)| = -log|x| - euler_gamma x + O(x**2) (scipy's gammaln
    # overflows Gamma(x) ~ 1/x first for subnormal x)
    tiny = (np.abs(x) < 2.0**-30) & (x != 0)
    if tiny.any():
        with np.errstate(divide="ignore"):
            t = np.where(tiny, x, 1.0)
            y = np.where(tiny, -np.log(np.abs(t)) - np.euler_gamma * t, y)
    return np.where(np.isinf(x), np.inf, y)


def _digamma(x: np.ndarray) -> np.ndarray:
    """psi(x); NaN at the poles (0, -1, -2, ...).  For x < 0 by the reflection
    psi(x) = psi(1 - x) - pi / tan(pi x), with tan(pi x) = tan(pi r) for r = x - round(x)
    (exact): scipy reduces pi * x after rounding it, which near a pole loses the
    digits that remain (20 ULP at -0.99, millions at -4 + 1e-10)."""
    pole = (x <= 0) & (x == np.floor(x))
    neg = (x < 0) & ~pole
    r = np.where(neg, x - np.round(x), 0.5)
    a = np.abs(r)
    with np.errstate(all="ignore"):
        # pi cot(pi r): for |r| > 1/4 as pi tan(pi (1/2 - |r|)) (1/2 - |r| is exact), so
        # that cot(pi / 2) is 0, not 1e-16
        cot = np.where(
            a > 0.25, np.copysign(np.pi * np.tan(np.pi * (0.5 - a)), r), np.pi / np.tan(np.pi * r)
        )
        reflected = special.psi(np.where(neg, 1.0 - x, 1.0)) - cot
        y = np.where(neg, reflected, special.psi(np.where(neg, 1.0, x)))
    return np.where(pole, np.nan, y)


def _erfc(x: np.ndarray) -> np.ndarray:
    """erfc; for 2 <= x < 30, erfcx(x) * exp(-x²) with x² split exactly into hi + lo
    (Dekker), since scipy's erfc loses ~400 ulps there (its exp(-x*x) rounds x*x)."""
    mid = (x >= 2) & (x < 30)
    xm = np.where(mid, x, 2.0)
    hi = xm * xm
    c = 134217729.0 * xm  # 2^27 + 1: splits xm into 26-bit halves
    xh = c - (c - xm)
    xl = xm - xh
    lo = ((xh * xh - hi) + 2 * xh * xl) + xl * xl
    large = special.erfcx(xm) * np.exp(-hi) * (1 - lo)
    return np.where(mid, large, special.erfc(x))


def _erf_inv(x: np.ndarray) -> np.ndarray:
    return np.where(x == 0, x, special.erfinv(x))  # keeps the sign of zero


def _i1e(x: np.ndarray) -> np.ndarray:
    return np.where(x == 0, x, special.i1e(x))  # odd function: i1e(-0) = -0


def _zeta(x: np.ndarray, q: np.ndarray) -> np.ndarray:
    y = special.zeta(x, q)
    y = np.where(x == 1, np.inf, y)
    y = np.where(x < 1, np.nan, y)
    q_le_zero = q <= 0
    x_int = x == np.floor(x)
    y = np.where(q_le_zero & ~x_int, np.nan, y)
    at_pole = q_le_zero & (q == np.floor(q))
    x_even = x_int & (np.fmod(x, 2) == 0)
    return np.where(at_pole, np.where(x_even, np.inf, np.nan), y)


# B_2j / (2j)! for the Euler-Maclaurin tail of the scaled Hurwitz zeta.
@cache
def _em_coeffs() -> list[float]:
    return [float(special.bernoulli(2 * j)[2 * j]) / math.factorial(2 * j) for j in range(1, 10)]


_EM_MAX_TERMS = 20000


def _log_scaled_zeta(s: np.ndarray, q: np.ndarray) -> np.ndarray:
    """log(q^s * zeta(s, q)) for q > 0, s > 1 by Euler-Maclaurin: the leading q^-s is
    factored out, so nothing underflows however large s is.  Sums N terms with
    q + N >= s / 2 + 10, which makes the Bernoulli tail converge fast."""
    need = int(np.max(np.ceil(s / 2 + 10 - q), initial=0.0))
    if need > _EM_MAX_TERMS:
        raise UnsupportedError(
            f"polygamma of order {int(np.max(s)) - 1} at these points needs more than "
            f"{_EM_MAX_TERMS} terms",
            op="chlo.polygamma",
        )
    n_terms = max(need, 10)
    total = np.zeros_like(q)
    for k in range(n_terms):
        total += np.exp(-s * np.log1p(k / q))  # (q / (q + k))^s
    a = q + n_terms
    r_n = np.exp(-s * np.log1p(n_terms / q))
    tail = a / (s - 1) + 0.5
    rising = s.copy()  # s (s+1) ... (s+2j-2)
    power = 1 / a  # a^-(2j-1)
    for j, c in enumerate(_em_coeffs()):
        tail = tail + c * rising * power
        rising = rising * (s + 2 * j + 1) * (s + 2 * j + 2)
        power = power / (a * a)
    return np.log(total + r_n * tail)


def _polygamma(n: np.ndarray, x: np.ndarray) -> np.ndarray:
    natural = np.isfinite(n) & (n >= 0) & (n == np.floor(n))
    n1 = np.where(natural, n, 0.0) + 1.0
    z = _zeta(n1, x)
    fact = special.gamma(n1)
    sign = np.where(np.fmod(n1, 2) == 0, 1.0, -1.0)  # (-1)^(n+1)
    value = sign * fact * z
    # n! overflows or zeta(n+1, x) underflows float64 while their product need not:
    # exp(lgamma(n+1) - (n+1) log x + log(x^(n+1) zeta(n+1, x))).
    hard = (
        natural
        & (n >= 1)
        & (x > 0)
        & np.isfinite(x)
        & (np.isinf(fact) | (np.abs(z) < np.finfo(F64).tiny))
    )
    if hard.any():
        s_h, q_h = n1[hard], x[hard]
        log_mag = special.gammaln(s_h) - s_h * np.log(q_h) + _log_scaled_zeta(s_h, q_h)
        value = value.copy() if value.ndim else np.array(value)
        value[hard] = sign[hard] * np.exp(log_mag)
    value = np.where(n == 0, _digamma(x), value)
    return np.where(natural, value, np.nan)


def _complex_square(z: np.ndarray) -> np.ndarray:
    """CHLO's decomposition (stablehlo/transforms/ChloDecompositionPatternsMath.td), in
    the operand's own precision: real = 0 when x is finite and |x| = |y|, else
    (x - y) * (x + y); imag = 2 * (x * y).  So square(max + max*i) = 0 + inf*i and
    square(-inf - max*i) = inf + inf*i."""
    x, y = z.real, z.imag
    with np.errstate(all="ignore"):
        zero = np.isfinite(x) & (np.abs(x) == np.abs(y))
        re = np.where(zero, x.dtype.type(0), (x - y) * (x + y))
        im = x.dtype.type(2) * (x * y)
    return make_complex(re, im, z.dtype)


def _identity(x: np.ndarray) -> np.ndarray:
    return x


# --------------------------------------------------------------------------------------
# Unary elementwise ops
# --------------------------------------------------------------------------------------


def _unary_kernel(name: str, real_fn: Callable, complex_fn: Callable | None) -> Callable:
    def run(operand: np.ndarray, *, result_type: Type) -> np.ndarray:
        dt = out_dtype(result_type)
        if dt.kind == "c":
            if complex_fn is None:
                raise UnsupportedError(f"'{name}' of a complex operand is not supported", op=name)
            return _complex(complex_fn, operand, dt)
        return _real(real_fn, operand, dt)

    run.__name__ = name.replace("chlo.", "")
    run.__doc__ = f"{name} element-wise (docs/chlo.md)."
    return run


def unary(name: str, real_fn: Callable, complex_fn: Callable | None) -> OpDef:
    """Register the kernel of the chlo unary op ``name``: its float64 function and its
    complex128 function (None: complex operands are not supported); return its row."""
    return register_kernel(name, _unary_kernel(name, real_fn, complex_fn))


unary("chlo.acos", np.arccos, np.arccos)
unary("chlo.acosh", np.arccosh, np.arccosh)
unary("chlo.asin", np.arcsin, np.arcsin)
unary("chlo.asinh", np.arcsinh, np.arcsinh)
unary("chlo.atan", np.arctan, np.arctan)
unary("chlo.atanh", np.arctanh, np.arctanh)
unary("chlo.cosh", np.cosh, np.cosh)
unary("chlo.sinh", np.sinh, np.sinh)
unary("chlo.tan", np.tan, np.tan)


@kernel("chlo.square")
def square(operand: np.ndarray, *, result_type: Type) -> np.ndarray:
    """chlo.square: x * x; complex operands by CHLO's decomposition, in their precision."""
    dt = out_dtype(result_type)
    if dt.kind == "c":
        return _complex_square(np.asarray(operand, dtype=dt))
    return _real(np.square, operand, dt)


unary("chlo.conj", _identity, np.conj)
unary("chlo.bessel_i1e", _i1e, None)
unary("chlo.digamma", _digamma, None)
ERF = unary("chlo.erf", lambda x: special.erf(x), None)
unary("chlo.erfc", _erfc, None)
unary("chlo.erf_inv", _erf_inv, None)
unary("chlo.lgamma", _lgamma, None)


def _as_float(x: np.ndarray) -> np.ndarray:
    return x if x.dtype in (F16, F32, F64) else x.astype(F32)


@kernel("chlo.is_inf")
def is_inf(operand: np.ndarray, *, result_type: Type) -> np.ndarray:
    """chlo.is_inf: +inf or -inf (formats without infinities give all false)."""
    return np.isinf(_as_float(operand))


@kernel("chlo.is_pos_inf")
def is_pos_inf(operand: np.ndarray, *, result_type: Type) -> np.ndarray:
    """chlo.is_pos_inf."""
    return np.isposinf(_as_float(operand))


@kernel("chlo.is_neg_inf")
def is_neg_inf(operand: np.ndarray, *, result_type: Type) -> np.ndarray:
    """chlo.is_neg_inf."""
    return np.isneginf(_as_float(operand))


# --------------------------------------------------------------------------------------
# _asin_acos_kernel
# --------------------------------------------------------------------------------------


def asin_acos_kernel_f64(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``w = _asin_acos_kernel(z)`` for z = x + iy, float64, following Hull, Fairgrieve &
    Tang (1997): with a = (|z+1| + |z-1|) / 2, ``w.real = sqrt(a² - |x|²)`` and
    ``w.imag = acosh(a)``, each computed without cancellation, so that (docs/chlo.md)
    ``asin(z) = complex(atan2(z.real, w.real), sign(z.imag) * w.imag)``."""
    x, y = np.abs(x), np.abs(y)
    safe_max = np.sqrt(np.finfo(F64).max) / 8
    tiny_y = 1e-100  # below it y*y underflows relative to (1 - x) for x < 1
    with np.errstate(all="ignore"):
        xp1, xm1 = x + 1, x - 1
        r = np.hypot(xp1, y)
        s = np.hypot(xm1, y)
        a = 0.5 * (r + s)
        yy = y * y
        rpxp1 = r + xp1
        smxm1 = s - xm1  # s + (1 - x), used when x <= 1
        spxm1 = s + xm1  # s + (x - 1), used when x > 1
        half_apx = 0.5 * (a + x)
        re_le1 = np.sqrt(half_apx * (yy / rpxp1 + smxm1))
        re_gt1 = y * np.sqrt(half_apx / rpxp1 + half_apx / spxm1)
        real = np.where(x <= 1, re_le1, re_gt1)
        am1 = np.where(x < 1, 0.5 * (yy / rpxp1 + yy / smxm1), 0.5 * (yy / rpxp1 + spxm1))
        imag_small = np.log1p(am1 + np.sqrt(am1 * (a + 1)))
        imag_big = np.log(a + np.sqrt((a - 1) * (a + 1)))
        imag = np.where(a <= 1.5, imag_small, imag_big)
        # y so small that y*y underflows: first-order terms (x < 1).
        small = (y < tiny_y) & (x < 1)
        one_m_xx = np.sqrt((1 - x) * (1 + x))
        real = np.where(small, one_m_xx, real)
        imag = np.where(small, y / one_m_xx, imag)
        # |z| huge: a = hypot(x, y) (to relative 1e-300), w.real = y.
        huge = np.maximum(x, y) >= safe_max
        mx, mn = np.maximum(x, y), np.minimum(x, y)
        ratio = np.where(mx > 0, mn / np.where(mx > 0, mx, 1), 0)
        imag_huge = np.log(2.0) + np.log(mx) + 0.5 * np.log1p(ratio * ratio)
        real = np.where(huge, y, real)
        imag = np.where(huge, imag_huge, imag)
        nan = np.isnan(x) | np.isnan(y)
        real = np.where(nan, np.nan, real)
        imag = np.where(nan, np.nan, imag)
    return real, imag


@kernel("chlo._asin_acos_kernel")
def asin_acos_kernel(operand: np.ndarray, *, result_type: Type) -> np.ndarray:
    """chlo._asin_acos_kernel (docs/chlo.md), computed in float64."""
    dt = out_dtype(result_type)
    z = operand.astype(C128)
    re, im = asin_acos_kernel_f64(z.real, z.imag)
    out = np.empty(z.shape, dtype=C128)
    out.real, out.imag = re, im
    return out.astype(dt)


# --------------------------------------------------------------------------------------
# Binary elementwise ops
# --------------------------------------------------------------------------------------


def _binary_real(fn: Callable, lhs: np.ndarray, rhs: np.ndarray, dt: np.dtype) -> np.ndarray:
    with np.errstate(all="ignore"):
        y = fn(lhs.astype(F64), rhs.astype(F64))
    return round_from_f64(y, dt)


@kernel("chlo.zeta")
def zeta(x: np.ndarray, q: np.ndarray, *, result_type: Type) -> np.ndarray:
    """chlo.zeta: Hurwitz zeta(x, q) = sum_n (q + n)^-x."""
    return _binary_real(_zeta, x, q, out_dtype(result_type))


@kernel("chlo.igamma")
def igamma(a: np.ndarray, x: np.ndarray, *, result_type: Type) -> np.ndarray:
    """chlo.igamma(a, x): the regularized lower incomplete gamma function P(a, x)."""
    return _binary_real(special.gammainc, a, x, out_dtype(result_type))


@kernel("chlo.igammac")
def igammac(a: np.ndarray, x: np.ndarray, *, result_type: Type) -> np.ndarray:
    """chlo.igammac(a, x): the regularized upper incomplete gamma function Q(a, x)."""
    return _binary_real(special.gammaincc, a, x, out_dtype(result_type))


@kernel("chlo.polygamma")
def polygamma(n: np.ndarray, x: np.ndarray, *, result_type: Type) -> np.ndarray:
    """chlo.polygamma(n, x): the n-th derivative of digamma."""
    return _binary_real(_polygamma, n, x, out_dtype(result_type))


def _float_bits(dt: np.dtype) -> int:
    if dt in (F16, F32, F64):
        return dt.itemsize * 8
    return int(ml_dtypes.finfo(dt).bits)


_UINT = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}


@kernel("chlo.next_after")
def next_after(x: np.ndarray, y: np.ndarray, *, result_type: Type) -> np.ndarray:
    """chlo.next_after: the next representable value of ``x`` towards ``y`` (C++
    std::nextafter), by XLA's bit-level algorithm, for every float format."""
    dt = out_dtype(result_type)
    x = np.asarray(x, dtype=dt)
    y = np.asarray(y, dtype=dt)
    u = _UINT[dt.itemsize]
    fx = x.view(u).astype(np.uint64)
    fy = y.view(u).astype(np.uint64)
    one = np.uint64(1)
    nan = np.isnan(_as_float(x)) | np.isnan(_as_float(y))
    nan_bits = np.uint64(np.array(np.nan, dtype=dt).view(u)) if _has_nan(dt) else np.uint64(0)
    if dt == np.dtype(ml_dtypes.float8_e8m0fnu):
        # No sign bit and no zero: step the exponent; off either end is NaN.
        up = _as_float(x) < _as_float(y)
        res = np.where(up, fx + one, fx - one) & np.uint64(0xFF)
        res = np.where(fx == fy, fy, res)
        res = np.where(nan, nan_bits, res)
        return res.astype(u).view(dt)
    width = _float_bits(dt)
    sign_mask = np.uint64(1 << (width - 1))
    mag_mask = np.uint64((1 << (width - 1)) - 1)
    ax, ay = fx & mag_mask, fy & mag_mask
    sx, sy = fx & sign_mask, fy & sign_mask
    smaller = (ax > ay) | (sx != sy)
    res = np.where(smaller, fx - one, fx + one)
    from_zero = sy | one  # the smallest subnormal, signed like y
    res = np.where(ax == 0, np.where(ay == 0, fy, from_zero), res)
    res = np.where(fx == fy, fy, res)
    if "fnuz" in dt.name:  # the pattern "-0" is NaN there: stepping to it gives 0
        res = np.where(res == sign_mask, np.uint64(0), res)
    res = np.where(nan, nan_bits, res)
    return res.astype(u).view(dt)


def _has_nan(dt: np.dtype) -> bool:
    return dt in (F16, F32, F64) or bool(np.isnan(np.array(np.nan, dtype=dt).astype(F32)))


@kernel("chlo.mulhi")
def mulhi(lhs: np.ndarray, rhs: np.ndarray, *, result_type: Type) -> np.ndarray:
    """chlo.mulhi: the high N bits of the 2N-bit product of two N-bit integers."""
    dt = out_dtype(result_type)
    info = ml_dtypes.iinfo(dt) if dt.kind not in "iu" else np.iinfo(dt)
    width = int(info.bits)
    signed = int(info.min) < 0
    if width <= 32:
        wide = np.int64 if signed else np.uint64
        p = lhs.astype(wide) * rhs.astype(wide)
        return (p >> wide(width)).astype(dt)
    a = lhs.view(np.uint64)
    b = rhs.view(np.uint64)
    hi = _umulhi64(a, b)
    if signed:
        hi = hi - np.where(lhs < 0, b, np.uint64(0)) - np.where(rhs < 0, a, np.uint64(0))
        return hi.view(np.int64)
    return hi


def _umulhi64(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """High 64 bits of the 128-bit product, from 32-bit halves (no element loops)."""
    m = np.uint64(0xFFFFFFFF)
    s = np.uint64(32)
    a0, a1 = a & m, a >> s
    b0, b1 = b & m, b >> s
    p00, p01, p10, p11 = a0 * b0, a0 * b1, a1 * b0, a1 * b1
    mid = (p00 >> s) + (p01 & m) + (p10 & m)
    return p11 + (p01 >> s) + (p10 >> s) + (mid >> s)


# --------------------------------------------------------------------------------------
# Broadcasting ops
# --------------------------------------------------------------------------------------


def broadcast_pair(
    lhs: np.ndarray, rhs: np.ndarray, broadcast_dimensions: tuple[int, ...] | None
) -> tuple[np.ndarray, np.ndarray]:
    """Both operands broadcast to their common shape (XLA broadcasting semantics: trailing
    alignment, or ``broadcast_dimensions`` mapping the lower-rank operand's dims)."""
    if broadcast_dimensions and lhs.ndim != rhs.ndim:
        big, small = (lhs, rhs) if lhs.ndim > rhs.ndim else (rhs, lhs)
        dims = list(broadcast_dimensions)
        order = np.argsort(dims)
        small_t = np.transpose(small, order)
        shape = [1] * big.ndim
        for i, d in enumerate(sorted(dims)):
            shape[d] = small_t.shape[i]
        small_t = small_t.reshape(shape)
        lhs, rhs = (big, small_t) if lhs.ndim > rhs.ndim else (small_t, big)
    try:
        a, b = np.broadcast_arrays(lhs, rhs)
    except ValueError as e:
        raise InterpreterError(
            f"operand shapes {lhs.shape} and {rhs.shape} are not broadcast-compatible"
        ) from e
    return a, b


def _default_compare_type(x: np.ndarray) -> str:
    """docs/chlo.md: FLOAT for floats, SIGNED for signed, UNSIGNED for unsigned (and i1)."""
    if x.dtype == np.bool_:
        return "UNSIGNED"
    kind = int_kind(x.dtype)
    if kind == "i":
        return "SIGNED"
    if kind == "u":
        return "UNSIGNED"
    return "FLOAT"


def _operand_types_for(
    target: OpDef, operand_types: tuple[Type, ...] | None, shape: tuple[int, ...]
) -> dict[str, Any]:
    if not target.kernel_options.get("operand_types"):
        return {}
    types = tuple(
        TensorType(shape, t.element_type) if isinstance(t, TensorType) else t
        for t in (operand_types or ())
    )
    return {"operand_types": types}


def _broadcast_kernel(op: str, target: OpDef) -> Callable[..., Any]:
    def run(
        lhs: np.ndarray,
        rhs: np.ndarray,
        *,
        result_type: Type,
        broadcast_dimensions: tuple[int, ...] | None = None,
        operand_types: tuple[Type, ...] | None = None,
        **attrs: Any,
    ) -> np.ndarray:
        if target.kernel is None:
            raise UnsupportedError(
                f"'{op}' needs the kernel of '{target.name}', which is missing", op=op
            )
        a, b = broadcast_pair(lhs, rhs, broadcast_dimensions)
        if target is COMPARE:
            ct = attrs.get("compare_type")
            if ct in (None, "NOTYPE"):
                ct = _default_compare_type(lhs)
            attrs = {"comparison_direction": attrs["comparison_direction"], "compare_type": ct}
        extra = _operand_types_for(target, operand_types, a.shape)
        rt = result_type
        if isinstance(rt, TensorType):
            rt = TensorType(a.shape, rt.element_type, rt.encoding)
        return target.kernel(a, b, result_type=rt, **attrs, **extra)

    run.__name__ = op.replace("chlo.", "")
    run.__doc__ = f"{op}: broadcast the operands, then {target.name} (docs/chlo.md)."
    return run


def broadcast_op(name: str, target: OpDef) -> None:
    """Register the kernel of a chlo broadcasting op: broadcast, then ``target``'s
    kernel (its op table row, the constant beside that kernel)."""
    register_kernel(name, _broadcast_kernel(name, target), operand_types=True)


broadcast_op("chlo.broadcast_add", E.ADD.op)
broadcast_op("chlo.broadcast_and", E.AND.op)
broadcast_op("chlo.broadcast_atan2", E.ATAN2.op)
broadcast_op("chlo.broadcast_compare", COMPARE)
broadcast_op("chlo.broadcast_complex", E.COMPLEX)
broadcast_op("chlo.broadcast_divide", E.DIVIDE.op)
broadcast_op("chlo.broadcast_maximum", E.MAXIMUM.op)
broadcast_op("chlo.broadcast_minimum", E.MINIMUM.op)
broadcast_op("chlo.broadcast_multiply", E.MULTIPLY.op)
broadcast_op("chlo.broadcast_next_after", OP_TABLE["chlo.next_after"])
broadcast_op("chlo.broadcast_or", E.OR.op)
broadcast_op("chlo.broadcast_polygamma", OP_TABLE["chlo.polygamma"])
broadcast_op("chlo.broadcast_power", E.POWER.op)
broadcast_op("chlo.broadcast_remainder", E.REMAINDER.op)
broadcast_op("chlo.broadcast_shift_left", E.SHIFT_LEFT.op)
broadcast_op("chlo.broadcast_shift_right_arithmetic", E.SHIFT_RIGHT_ARITHMETIC.op)
broadcast_op("chlo.broadcast_shift_right_logical", E.SHIFT_RIGHT_LOGICAL.op)
broadcast_op("chlo.broadcast_subtract", E.SUBTRACT.op)
broadcast_op("chlo.broadcast_xor", E.XOR.op)
broadcast_op("chlo.broadcast_zeta", OP_TABLE["chlo.zeta"])


@kernel("chlo.broadcast_select")
def broadcast_select(
    pred: np.ndarray, on_true: np.ndarray, on_false: np.ndarray, *, result_type: Type
) -> np.ndarray:
    """chlo.broadcast_select: NumPy-style broadcasting of the three operands, then select."""
    try:
        p, t, f = np.broadcast_arrays(pred, on_true, on_false)
    except ValueError as e:
        raise InterpreterError(
            f"shapes {pred.shape}, {on_true.shape}, {on_false.shape} are not broadcast-compatible",
            op="chlo.broadcast_select",
        ) from e
    return np.where(p, t, f).astype(out_dtype(result_type), copy=False)


# --------------------------------------------------------------------------------------
# constant, constant_like
# --------------------------------------------------------------------------------------


@kernel("chlo.constant")
def constant(*, result_type: Type, value: np.ndarray) -> np.ndarray:
    """chlo.constant: the value of the ``value`` attribute."""
    return np.array(value, dtype=out_dtype(result_type))


@kernel("chlo.constant_like")
def constant_like(
    operand: np.ndarray, *, result_type: Type, value: Any, value_type: Type | None = None
) -> np.ndarray:
    """chlo.constant_like: a splat of ``value`` with the shape of ``operand``."""
    dt = out_dtype(result_type)
    if isinstance(value_type, QuantizedType) or (
        isinstance(result_type, TensorType) and isinstance(result_type.element_type, QuantizedType)
    ):
        raise UnsupportedError(
            "quantized chlo.constant_like is not supported", op="chlo.constant_like"
        )
    v = np.asarray(value)
    if v.size != 1:
        raise InterpreterError("constant_like value must be a scalar", op="chlo.constant_like")
    scalar = v.reshape(()).item()
    if dt.kind == "c":
        return np.full(operand.shape, complex(scalar), dtype=dt)
    if dt == np.bool_ or int_kind(dt) is not None:
        return np.full(operand.shape, scalar, dtype=dt)
    return np.full(operand.shape, round_from_f64(np.array(float(scalar)), dt), dtype=dt)
