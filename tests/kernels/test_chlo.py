"""chlo kernels (docs/chlo.md), run directly.

References are independent of the kernels: mpmath at 120 bits (when installed), Python's
``math`` module, exact identities (digamma(1) = -euler_gamma, zeta(2, 1) = pi^2/6...),
series written here, C's nextafter through NumPy, Python big integers, and loop
references for top_k / ragged_dot / scan.

Accuracy bounds (ULPs of the result type, measured against mpmath):

=================  =====  =====
op                 f32    f64
=================  =====  =====
erf, erf_inv       0.5+   4
erfc               0.5+   6
lgamma (x > 0)     0.5+   4
digamma            0.5+   16  (negative x: reflection cancels near the roots;
                              3 within 0.1 of a pole)
bessel_i1e         0.5+   6
zeta, polygamma    0.5+   8
acos ... tan       0.5+   4   (real; NumPy's SIMD float64 functions claim <= 4 ULP,
                              measured <= 0.7); complex: 1 eps (c64), 4 eps (c128),
                              normwise
=================  =====  =====

"0.5+" means correctly rounded but for float64 ties: the tests allow 0.51 ULP.
"""

from __future__ import annotations

import decimal
import functools
import math
import struct
from decimal import Decimal
from fractions import Fraction
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

import hlorun.engine.kernels  # noqa: F401  (fills the kernel column)
from hlorun import shape_inference  # noqa: F401
from hlorun.engine.kernels.chlo import asin_acos_kernel_f64, broadcast_pair, round_from_f64
from hlorun.engine.values import RegionFn
from hlorun.parser.errors import UnsupportedError
from hlorun.parser.ir import (
    ArrayAttr,
    ComplexType,
    DialectAttr,
    FloatType,
    IntegerAttr,
    IntegerType,
    TensorType,
)
from hlorun.shape_inference.optable import OP_TABLE

F16 = FloatType("f16")
F32 = FloatType("f32")
F64 = FloatType("f64")
BF16 = FloatType("bf16")
C64 = ComplexType(F32)
C128 = ComplexType(F64)
I1 = IntegerType(1)
I32 = IntegerType(32)
FTYPE = {np.float32: F32, np.float64: F64, np.float16: F16, ml_dtypes.bfloat16: BF16}
DATA = Path(__file__).parent / "data"


def T(shape, et):
    return TensorType(tuple(shape), et)


def K(name):
    return OP_TABLE[name].kernel


def run1(op, *xs, et=None):
    x0 = np.asarray(xs[0])
    et = et or FTYPE[x0.dtype.type]
    return K(op)(*xs, result_type=T(x0.shape, et))


def mpmath_or_skip():
    return pytest.importorskip("mpmath", reason="mpmath is the high-precision reference")


# ---- accuracy against mpmath ---------------------------------------------------------------


def max_ulps(got: np.ndarray, ref: list, dt) -> float:
    """Largest |got - ref| in ULPs of the result format (ref: mpmath numbers)."""
    import mpmath as mp

    worst = 0.0
    for g, r in zip(got.tolist(), ref):
        if not mp.isfinite(r):
            assert g == float(r) or (math.isnan(g) and mp.isnan(r)), (g, r)
            continue
        ulp = float(np.spacing(np.abs(dt(float(r)))))
        worst = max(worst, float(abs(mp.mpf(g) - r) / ulp))
    return worst


RNG = np.random.default_rng(1234)


def _mp_cases():
    import mpmath as mp

    return {
        "chlo.erf": (mp.erf, np.concatenate([np.linspace(-6, 6, 97), [1e-30, -3e-5]]), 4),
        "chlo.erfc": (mp.erfc, np.linspace(-6, 27, 111), 6),
        "chlo.erf_inv": (
            mp.erfinv,
            np.concatenate([np.linspace(-0.999, 0.999, 77), 1 - np.logspace(-7, -1, 9)]),
            4,
        ),
        "chlo.lgamma": (
            lambda x: mp.log(abs(mp.gamma(x))),
            np.concatenate(
                [
                    np.linspace(0.01, 3.5, 71),
                    np.linspace(3.5, 1000, 31),
                    1 + np.logspace(-12, -1, 8),
                    2 - np.logspace(-12, -1, 8),
                ]
            ),
            4,
        ),
        "chlo.digamma": (
            mp.digamma,
            np.concatenate(
                [np.linspace(0.01, 1.3, 31), np.linspace(1.7, 100, 41), [-0.5, -1.3, -3.7, -10.3]]
            ),
            16,
        ),
        "chlo.bessel_i1e": (
            lambda x: mp.besseli(1, x) * mp.exp(-abs(x)),
            np.linspace(-60, 60, 97),
            6,
        ),
        "chlo.acos": (mp.acos, np.linspace(-1, 1, 61), 4),
        "chlo.asin": (mp.asin, np.linspace(-1, 1, 61), 4),
        "chlo.atan": (mp.atan, np.linspace(-100, 100, 61), 4),
        "chlo.acosh": (mp.acosh, np.linspace(1, 1e5, 61), 4),
        "chlo.asinh": (mp.asinh, np.linspace(-100, 100, 61), 4),
        "chlo.atanh": (mp.atanh, np.linspace(-0.999, 0.999, 61), 4),
        "chlo.cosh": (mp.cosh, np.linspace(-80, 80, 61), 4),
        "chlo.sinh": (mp.sinh, np.linspace(-80, 80, 61), 4),
        "chlo.tan": (mp.tan, np.concatenate([np.linspace(-10, 10, 61), [1e4, 1e10, 1e30]]), 4),
    }


UNARY_ACCURACY = [
    "chlo.erf",
    "chlo.erfc",
    "chlo.erf_inv",
    "chlo.lgamma",
    "chlo.digamma",
    "chlo.bessel_i1e",
    "chlo.acos",
    "chlo.asin",
    "chlo.atan",
    "chlo.acosh",
    "chlo.asinh",
    "chlo.atanh",
    "chlo.cosh",
    "chlo.sinh",
    "chlo.tan",
]


@pytest.mark.parametrize("op", UNARY_ACCURACY)
@pytest.mark.parametrize("dt", [np.float32, np.float64])
def test_unary_accuracy(op, dt):
    mp = mpmath_or_skip()
    mp.mp.prec = 120
    fn, xs, f64_bound = _mp_cases()[op]
    x = xs.astype(dt)
    got = run1(op, x)
    assert got.dtype == np.dtype(dt)
    ref = [fn(mp.mpf(float(v))) for v in x]
    bound = 0.51 if dt == np.float32 else f64_bound
    assert max_ulps(got, ref, dt) <= bound


@pytest.mark.parametrize("dt", [np.float32, np.float64])
def test_digamma_near_its_poles(dt):
    """Within 0.1 of the poles 0, -1, ..., -40 (and at -0.99, 20 ULP once in float64),
    digamma is within 3 ULP of mpmath: the reflection reduces pi x exactly."""
    mp = mpmath_or_skip()
    mp.mp.prec = 120
    rng = np.random.default_rng(99)
    lowest = 12 if dt == np.float64 else 6
    d = np.concatenate([10.0 ** -rng.uniform(1, lowest, 150), rng.uniform(0.0, 0.1, 150)])
    x = -rng.integers(0, 41, d.size) + rng.choice([-1.0, 1.0], d.size) * d
    x = np.concatenate([x, [-0.99, -0.01, -1.01, -1.99, 0.01, -39.99, -1e-9]]).astype(dt)
    x = x[~((x <= 0) & (x == np.floor(x)))]
    got = run1("chlo.digamma", x)
    assert max_ulps(got, [mp.digamma(mp.mpf(float(v))) for v in x], dt) <= 3


@pytest.mark.parametrize("op", ["chlo.zeta", "chlo.polygamma"])
@pytest.mark.parametrize("dt", [np.float32, np.float64])
def test_binary_accuracy(op, dt):
    mp = mpmath_or_skip()
    mp.mp.prec = 120
    if op == "chlo.zeta":
        a = RNG.uniform(1.5, 10, 60).astype(dt)
        fn = mp.zeta
    else:
        a = RNG.integers(0, 6, 60).astype(dt)
        fn = lambda n, x: mp.polygamma(int(n), x)  # noqa: E731
    b = RNG.uniform(0.1, 20, 60).astype(dt)
    got = run1(op, a, b)
    ref = [fn(mp.mpf(float(u)), mp.mpf(float(v))) for u, v in zip(a, b)]
    assert max_ulps(got, ref, dt) <= (0.51 if dt == np.float32 else 8)


@pytest.mark.parametrize(
    "op",
    [
        "chlo.acos",
        "chlo.asin",
        "chlo.atan",
        "chlo.acosh",
        "chlo.asinh",
        "chlo.atanh",
        "chlo.tan",
        "chlo.cosh",
        "chlo.sinh",
    ],
)
@pytest.mark.parametrize("dt", [np.complex64, np.complex128])
def test_complex_accuracy(op, dt):
    mp = mpmath_or_skip()
    mp.mp.prec = 120
    fn = getattr(mp, op.split(".")[1])
    z = (RNG.uniform(-3, 3, 40) + 1j * RNG.uniform(-3, 3, 40)).astype(dt)
    et = C64 if dt == np.complex64 else C128
    got = K(op)(z, result_type=T(z.shape, et))
    assert got.dtype == np.dtype(dt)
    eps = np.finfo(dt).eps
    bound = 1 if dt == np.complex64 else 4
    for a, b in zip(z.tolist(), got.tolist()):
        r = fn(mp.mpc(a))
        assert float(abs(mp.mpc(b) - r) / abs(r)) <= bound * eps, (op, a, b, r)


# ---- references without mpmath -------------------------------------------------------------


def close_ulps(got: float, want: float, dt, n: float) -> bool:
    return abs(got - want) <= n * float(np.spacing(np.abs(dt(want))))


@pytest.mark.parametrize("x", [-5.0, -2.0, -0.7, -1e-8, 0.3, 1.0, 2.5, 4.0])
def test_erf_erfc_vs_math(x):
    for dt in (np.float32, np.float64):
        e = float(run1("chlo.erf", np.array([x], dt))[0])
        c = float(run1("chlo.erfc", np.array([x], dt))[0])
        xv = float(dt(x))
        assert close_ulps(e, math.erf(xv), dt, 1 if dt == np.float32 else 4)
        assert close_ulps(c, math.erfc(xv), dt, 1 if dt == np.float32 else 6)


@pytest.mark.parametrize("x", [0.5, 1.5, 3.0, 10.25, 100.0, -0.5, -2.5, -7.25])
def test_lgamma_f32_vs_math(x):
    got = float(run1("chlo.lgamma", np.array([x], np.float32))[0])
    assert close_ulps(got, math.lgamma(x), np.float32, 1)


def test_lgamma_f64_identities():
    # glibc's lgamma (math.lgamma) is off by 15-40 ulps at some of these points, so
    # float64 is checked against exact Gamma values, evaluated in 40-digit decimals.
    with decimal.localcontext() as ctx:
        ctx.prec = 40
        sp = Decimal("3.14159265358979323846264338327950288419716939937510").sqrt()
        cases = {
            0.5: sp,
            1.5: sp / 2,
            3.0: Decimal(2),
            -0.5: 2 * sp,
            -2.5: 8 * sp / 15,
            5.5: 945 * sp / 32,
            1.25: None,
        }
        cases.pop(1.25)
        want = [float(v.ln()) for v in cases.values()]
    got = run1("chlo.lgamma", np.array(list(cases), np.float64))
    for x, g, w in zip(cases, got.tolist(), want):
        if x > 0:
            assert close_ulps(g, w, np.float64, 2), (x, g, w)
        else:  # reflection: absolute accuracy, relative to the terms that cancel
            scale = abs(math.log(math.pi)) + abs(math.lgamma(1 - x))
            assert abs(g - w) <= 4 * 2.0**-52 * scale, (x, g, w)


def test_known_values():
    g = 0.57721566490153286060651209
    d = run1("chlo.digamma", np.array([1.0, 0.5, 2.0], np.float64))
    assert close_ulps(d[0], -g, np.float64, 2)
    assert close_ulps(d[1], -g - 2 * math.log(2), np.float64, 2)
    assert close_ulps(d[2], 1 - g, np.float64, 2)
    z = run1("chlo.zeta", np.array([2.0, 4.0, 2.0]), np.array([1.0, 1.0, 2.0]))
    assert close_ulps(z[0], math.pi**2 / 6, np.float64, 4)
    assert close_ulps(z[1], math.pi**4 / 90, np.float64, 4)
    assert close_ulps(z[2], math.pi**2 / 6 - 1, np.float64, 4)
    p = run1("chlo.polygamma", np.array([1.0, 1.0, 2.0, 0.0]), np.array([1.0, 0.5, 1.0, 1.0]))
    assert close_ulps(p[0], math.pi**2 / 6, np.float64, 4)
    assert close_ulps(p[1], math.pi**2 / 2, np.float64, 4)
    assert close_ulps(p[2], -2 * 1.2020569031595942854, np.float64, 4)  # -2 zeta(3)
    assert close_ulps(p[3], -g, np.float64, 2)


def test_erf_inv_inverts_erf():
    x = np.linspace(-3, 3, 101)
    back = run1("chlo.erf_inv", run1("chlo.erf", x))
    assert np.allclose(back, x, rtol=1e-12, atol=1e-15)


def _i1e_series(x: float) -> float:
    """I1(x) e^-|x| from the power series sum (x/2)^(2k+1) / (k! (k+1)!), in Fractions."""
    xf = Fraction(x)
    term = xf / 2
    total = Fraction(0)
    for k in range(80):
        total += term
        term = term * (xf / 2) ** 2 / ((k + 1) * (k + 2))
    return float(total) * math.exp(-abs(x))


@pytest.mark.parametrize("x", [0.25, -1.0, 3.5, 7.0, -12.0])
def test_bessel_i1e_vs_series(x):
    got = float(run1("chlo.bessel_i1e", np.array([x]))[0])
    assert close_ulps(got, _i1e_series(x), np.float64, 8)


def bits(a):
    a = np.asarray(a)
    return a.view({1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}[a.dtype.itemsize])


def same(got, want):
    """Bitwise equality (NaN payloads aside) and same dtype."""
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype
    gn = np.isnan(got.astype(np.float64)) if got.dtype.kind != "c" else np.isnan(got)
    wn = np.isnan(want.astype(np.float64)) if want.dtype.kind != "c" else np.isnan(want)
    assert np.array_equal(gn, wn)
    assert np.array_equal(bits(got)[~gn], bits(want)[~wn])


def test_special_values():
    inf, nan = np.inf, np.nan
    x = np.array([0.0, -0.0, -1.0, -2.0, inf, -inf, nan], np.float32)
    same(run1("chlo.lgamma", x), np.array([inf, inf, inf, inf, inf, inf, nan], np.float32))
    same(run1("chlo.digamma", x), np.array([nan, nan, nan, nan, inf, nan, nan], np.float32))
    same(
        run1("chlo.erf", x),
        np.array([0.0, -0.0, math.erf(-1), math.erf(-2), 1, -1, nan], np.float32),
    )
    same(
        run1("chlo.erfc", np.array([inf, -inf, 0.0, 30.0], np.float32)),
        np.array([0.0, 2.0, 1.0, 0.0], np.float32),
    )
    same(
        run1("chlo.erf_inv", np.array([1, -1, 0.0, -0.0, 1.5, nan], np.float32)),
        np.array([inf, -inf, 0.0, -0.0, nan, nan], np.float32),
    )
    same(
        run1("chlo.bessel_i1e", np.array([0.0, -0.0, inf, -inf, nan], np.float32)),
        np.array([0.0, -0.0, 0.0, -0.0, nan], np.float32),
    )
    same(
        run1("chlo.acosh", np.array([1.0, 0.5, inf], np.float32)),
        np.array([0.0, nan, inf], np.float32),
    )
    same(
        run1("chlo.atanh", np.array([1.0, -1.0, 2.0, -0.0], np.float32)),
        np.array([inf, -inf, nan, -0.0], np.float32),
    )
    same(
        run1("chlo.cosh", np.array([0.0, inf, -inf, 89.5], np.float32)),
        np.array([1.0, inf, inf, inf], np.float32),
    )
    same(run1("chlo.tan", np.array([-0.0, inf], np.float32)), np.array([-0.0, nan], np.float32))


def test_zeta_polygamma_xla_conventions():
    inf, nan = np.inf, np.nan
    x = np.array([1.0, 0.5, 2.0, 3.0, 2.5, 2.0, 0.0])
    q = np.array([1.0, 1.0, 0.0, -1.0, -1.5, -1.5, 0.0])
    z = run1("chlo.zeta", x, q)
    # zeta(2, -1.5) = sum over n of (n - 1.5)^-2: 1/2.25 + 4 + 4 + 1/2.25 + zeta(2, 2.5)
    z2_25 = math.pi**2 / 6 - 1 - 1 / 2.25 + (math.pi**2 / 2 - 4 - 4 / 9 - 4 / 25) * 0
    del z2_25
    tail = sum((n + 2.5) ** -2 for n in range(200000)) + 1 / (200000 + 2.5)
    expect = [inf, nan, inf, nan, nan, 2 / 2.25 + 8 + tail, inf]
    for g, e in zip(z[:5], expect[:5]):
        assert (math.isnan(g) and math.isnan(e)) or g == e
    assert abs(z[5] - expect[5]) < 1e-9
    assert z[6] == inf  # x = 0 is even, q = 0 a pole: XLA's rule
    p = run1(
        "chlo.polygamma", np.array([1.5, -1.0, 1.0, 2.0, inf]), np.array([1.0, 1.0, 0.0, 0.0, 1.0])
    )
    assert np.isnan(p[0]) and np.isnan(p[1]) and p[2] == inf and np.isnan(p[3])
    assert np.isnan(p[4])


def test_polygamma_large_order_does_not_overflow_early():
    # polygamma(200, 50) = 200! zeta(201, 50) ~ 200! / 50^201 (finite in float64)
    p = float(run1("chlo.polygamma", np.array([200.0]), np.array([50.0]))[0])
    scaled = math.fsum((50 / (50 + k)) ** 201 for k in range(5000))  # 50^201 zeta(201, 50)
    ref = -math.exp(math.lgamma(201) - 201 * math.log(50)) * scaled
    assert math.isfinite(p) and abs(p - ref) / abs(ref) < 1e-12


# ---- narrow float formats: one correct rounding -----------------------------------------------


@functools.cache
def _format_values(dt) -> list[tuple[Fraction, int]]:
    """All finite values of a float format as (exact value, bit pattern)."""
    n = np.dtype(dt).itemsize
    u = {1: np.uint8, 2: np.uint16}[n]
    pats = np.arange(2 ** (8 * n), dtype=u)
    with np.errstate(invalid="ignore"):
        vals = pats.view(dt).astype(np.float64)
    out = {}
    for p, v in zip(pats.tolist(), vals.tolist()):
        if math.isfinite(v) and not (v == 0 and math.copysign(1, v) < 0):
            out[Fraction(v)] = p
    return sorted(out.items())


@functools.cache
def _format_keys(dt) -> list[Fraction]:
    return [k for k, _ in _format_values(dt)]


def _round_exact(value: Fraction, table, dt) -> float:
    """Nearest value of the format, ties to the even bit pattern (overflow not covered)."""
    import bisect

    keys = _format_keys(dt)
    i = bisect.bisect_left(keys, value)
    if i < len(keys) and keys[i] == value:
        return float(keys[i])
    lo, hi = table[i - 1], table[i]
    dlo, dhi = value - lo[0], hi[0] - value
    if dlo < dhi or (dlo == dhi and lo[1] % 2 == 0):
        return float(lo[0])
    return float(hi[0])


@pytest.mark.parametrize("dt", [ml_dtypes.bfloat16, ml_dtypes.float8_e4m3fn, np.float16])
def test_square_rounds_once(dt):
    table = _format_values(dt)
    xs = np.array([float(k) for k, _ in table], dtype=np.float64)
    big = float(max(k for k, _ in table))
    xs = xs[np.abs(xs) ** 2 < big].astype(dt)
    got = K("chlo.square")(
        xs,
        result_type=T(
            xs.shape,
            FloatType(
                {
                    np.dtype(ml_dtypes.bfloat16): "bf16",
                    np.dtype(ml_dtypes.float8_e4m3fn): "f8E4M3FN",
                    np.dtype(np.float16): "f16",
                }[np.dtype(dt)]
            ),
        ),
    )
    for x, g in zip(xs.astype(np.float64).tolist(), got.astype(np.float64).tolist()):
        want = _round_exact(Fraction(x) ** 2, table, dt)
        assert g == want, (x, g, want)


def test_round_from_f64_avoids_double_rounding():
    y = np.array([1 + 2**-8 + 2**-40, 1 + 2**-8, -(1 + 2**-8 + 2**-40), 1e-50, np.nan, np.inf])
    got = round_from_f64(y, np.dtype(ml_dtypes.bfloat16)).astype(np.float64)
    assert got[0] == 1 + 2**-7  # above the midpoint: up (float32 first would give a tie)
    assert got[1] == 1.0  # exact tie: to even
    assert got[2] == -(1 + 2**-7)
    assert got[3] == 0.0 and np.isnan(got[4]) and got[5] == np.inf
    e4 = round_from_f64(np.array([1 + 2**-4 + 2**-40]), np.dtype(ml_dtypes.float8_e4m3fn))
    assert float(e4[0]) == 1.125


def test_bf16_erf_is_correctly_rounded():
    table = _format_values(ml_dtypes.bfloat16)
    xs = np.array([float(k) for k, _ in table if -4 <= k <= 4], np.float64)[::7]
    got = run1("chlo.erf", xs.astype(ml_dtypes.bfloat16))
    for x, g in zip(xs.tolist(), got.astype(np.float64).tolist()):
        want = _round_exact(Fraction(math.erf(x)), table, ml_dtypes.bfloat16)
        assert g == want, (x, g, want)


# ---- complex ---------------------------------------------------------------------------------


def test_complex_branch_cuts_c99():
    z = np.array([2 + 0j, complex(2, -0.0), -2 + 0j, complex(-2, -0.0)], np.complex128)
    acos = K("chlo.acos")(z, result_type=T((4,), C128))
    # C99: cacos(conj(z)) = conj(cacos(z)); on the cut x > 1 the sign of 0 picks the side.
    assert acos[0].imag < 0 < acos[1].imag
    assert acos[2].real == pytest.approx(math.pi) and acos[2].imag < 0 < acos[3].imag
    atanh = K("chlo.atanh")(z, result_type=T((4,), C128))
    assert atanh[0].imag == pytest.approx(math.pi / 2) and atanh[1].imag == pytest.approx(
        -math.pi / 2
    )


def test_conj_square_complex():
    z = np.array([1 + 2j, -3 - 0.5j], np.complex64)
    same(K("chlo.conj")(z, result_type=T((2,), C64)), np.conj(z))
    x = np.array([1.5, -2.0], np.float32)
    same(K("chlo.conj")(x, result_type=T((2,), F32)), x)
    sq = K("chlo.square")(z, result_type=T((2,), C64))
    same(sq, np.array([(1 - 4) + 4j, (9 - 0.25) + 3j], np.complex64))


@pytest.mark.parametrize(("dt", "ct"), [(np.float32, C64), (np.float64, C128)])
def test_complex_square_follows_chlo_decomposition(dt, ct):
    """ChloDecompositionPatternsMath.td: real = 0 when x is finite and |x| = |y|, else
    (x - y)(x + y); imag = 2xy (each operation in the operand's own precision)."""
    big, inf, nan = np.finfo(dt).max, np.inf, np.nan
    cases = [
        (big, big, 0.0, inf),  # |x| = |y|: real 0 (not inf - inf)
        (-inf, -big, inf, inf),  # x not finite: (-inf + max)(-inf - max) = inf
        (3.0, -3.0, 0.0, -18.0),
        (inf, inf, nan, inf),  # (inf - inf)(inf + inf) = NaN
        (2.0, 0.5, 3.75, 2.0),
    ]
    z = np.array([complex(x, y) for x, y, _, _ in cases], dtype=np.result_type(dt, np.complex64))
    got = K("chlo.square")(z, result_type=T((len(cases),), ct))
    for g, (x, y, re, im) in zip(got.tolist(), cases):
        for part, want in ((g.real, re), (g.imag, im)):
            assert (np.isnan(part) and np.isnan(want)) or part == want, (x, y, g)
    # the same parts as the decomposition's f32 arithmetic gives, bit for bit
    rng = np.random.default_rng(3)
    x, y = (rng.standard_normal(64) * 1e3).astype(dt), (rng.standard_normal(64) * 1e3).astype(dt)
    got = K("chlo.square")(
        x + 1j * y.astype(np.result_type(dt, np.complex64)), result_type=T((64,), ct)
    )
    assert np.array_equal(got.real, (x - y) * (x + y)) and np.array_equal(got.imag, dt(2) * (x * y))


def test_asin_acos_kernel_reconstructs_asin_and_acos():
    rng = np.random.default_rng(7)
    z = np.concatenate(
        [
            rng.uniform(-3, 3, 200) + 1j * rng.uniform(-3, 3, 200),
            rng.uniform(-1.5, 1.5, 50) + 1j * 10.0 ** rng.uniform(-300, -100, 50),
            1e200 * (rng.uniform(-3, 3, 20) + 1j * rng.uniform(-3, 3, 20)),
        ]
    )
    w = K("chlo._asin_acos_kernel")(z, result_type=T(z.shape, C128))
    asin = np.arctan2(z.real, w.real) + 1j * np.sign(z.imag) * w.imag
    acos = np.arctan2(w.real, z.real) - 1j * np.sign(z.imag) * w.imag
    for got, ref in ((asin, np.arcsin(z)), (acos, np.arccos(z))):
        for part in ("real", "imag"):
            g, r = getattr(got, part), getattr(ref, part)
            assert np.all(np.abs(g - r) <= 4 * np.spacing(np.abs(r)))
    # complex64 path: computed in float64, rounded once
    w64 = K("chlo._asin_acos_kernel")(z[:200].astype(np.complex64), result_type=T((200,), C64))
    re, im = asin_acos_kernel_f64(
        z[:200].astype(np.complex64).real.astype(np.float64),
        z[:200].astype(np.complex64).imag.astype(np.float64),
    )
    assert w64.dtype == np.complex64
    assert np.array_equal(w64.real, re.astype(np.float32))
    assert np.array_equal(w64.imag, im.astype(np.float32))


def test_complex_unsupported_for_real_only_function():
    with pytest.raises(UnsupportedError):
        K("chlo.bessel_i1e")(np.ones(2, np.complex64), result_type=T((2,), C64))


# ---- predicates ------------------------------------------------------------------------------


@pytest.mark.parametrize("dt", [np.float32, np.float64, ml_dtypes.bfloat16, np.float16])
def test_is_inf_family(dt):
    x = np.array([np.inf, -np.inf, np.nan, 0.0, 1e4], dt)
    rt = T((5,), I1)
    assert K("chlo.is_inf")(x, result_type=rt).tolist() == [True, True, False, False, False]
    assert K("chlo.is_pos_inf")(x, result_type=rt).tolist() == [True, False, False, False, False]
    assert K("chlo.is_neg_inf")(x, result_type=rt).tolist() == [False, True, False, False, False]


def test_is_inf_without_infinities():
    x = np.array([448.0, -448.0, np.nan], ml_dtypes.float8_e4m3fn)
    assert not K("chlo.is_inf")(x, result_type=T((3,), I1)).any()


# ---- next_after: bit-exact ----------------------------------------------------------------------

SPECIALS = [0.0, -0.0, 1.0, -1.0, np.inf, -np.inf, np.nan, 1e-45, -1e-45, 3.4e38, 2.5, -7.0]


@pytest.mark.parametrize("dt", [np.float32, np.float64])
def test_next_after_ieee_matches_c(dt):
    vals = np.array(SPECIALS, dtype=dt)
    x = np.repeat(vals, len(vals))
    y = np.tile(vals, len(vals))
    got = run1("chlo.next_after", x, y)
    same(got, np.nextafter(x, y))  # NumPy's nextafter is C's


@functools.cache
def _sorted_values(dt) -> list[float]:
    values = [float(k) for k, _ in _format_values(dt)]
    if np.isinf(np.array(np.inf, dt).astype(np.float64)):
        values = [-math.inf] + values + [math.inf]
    return values


def _next_after_ref(xv: float, yv: float, dt) -> float | None:
    """C's nextafter over the values of a narrow format (None: NaN)."""
    if math.isnan(xv) or math.isnan(yv):
        return None
    if xv == yv:
        return yv
    values = _sorted_values(dt)
    if xv == 0:
        tiny = min(v for v in values if v > 0)
        return math.copysign(tiny, yv)
    i = values.index(xv)
    want = values[i + 1] if yv > xv else values[i - 1]
    return math.copysign(0.0, xv) if want == 0 else want


@pytest.mark.parametrize(
    "dt",
    [
        np.float16,
        ml_dtypes.bfloat16,
        ml_dtypes.float8_e4m3fn,
        ml_dtypes.float8_e5m2,
        ml_dtypes.float8_e4m3fnuz,
    ],
)
def test_next_after_narrow_formats(dt):
    # (float16 is here too: NumPy's float16 nextafter returns x, not y, when x == y.)
    rng = np.random.default_rng(3)
    n = np.dtype(dt).itemsize
    u = {1: np.uint8, 2: np.uint16}[n]
    xb = rng.integers(0, 2 ** (8 * n), 60).astype(u)
    yb = rng.integers(0, 2 ** (8 * n), 60).astype(u)
    specials = np.array([0.0, -0.0, 1.0, -1.0], dt).view(u)
    xb = np.concatenate([xb, np.repeat(specials, 4)])
    yb = np.concatenate([yb, np.tile(specials, 4)])
    name = {
        np.dtype(np.float16): "f16",
        np.dtype(ml_dtypes.bfloat16): "bf16",
        np.dtype(ml_dtypes.float8_e4m3fn): "f8E4M3FN",
        np.dtype(ml_dtypes.float8_e5m2): "f8E5M2",
        np.dtype(ml_dtypes.float8_e4m3fnuz): "f8E4M3FNUZ",
    }[np.dtype(dt)]
    got = K("chlo.next_after")(xb.view(dt), yb.view(dt), result_type=T(xb.shape, FloatType(name)))
    fnuz = "fnuz" in np.dtype(dt).name
    xs, ys = xb.view(dt).astype(np.float64), yb.view(dt).astype(np.float64)
    for a, b, g in zip(xs.tolist(), ys.tolist(), got.astype(np.float64).tolist()):
        want = _next_after_ref(a, b, dt)
        if want is None:
            assert math.isnan(g), (a, b, g)
        else:
            assert g == want, (a, b, g, want)
            if want == 0 and not fnuz:
                assert math.copysign(1, g) == math.copysign(1, want), (a, b, g, want)


def test_next_after_f32_exact_cases():
    f = np.float32
    x = np.array([1.0, 0.0, -0.0, 3.4028235e38, np.inf, -0.0, 1.0], f)
    y = np.array([2.0, -1.0, 1.0, np.inf, 0.0, 0.0, 1.0], f)
    want = np.array([1 + 2**-23, -(2.0**-149), 2.0**-149, np.inf, 3.4028235e38, 0.0, 1.0], f)
    same(run1("chlo.next_after", x, y), want)


# ---- mulhi ---------------------------------------------------------------------------------------


def _wrap(v: int, width: int, signed: bool) -> int:
    v &= (1 << width) - 1
    if signed and v >= 1 << (width - 1):
        v -= 1 << width
    return v


@pytest.mark.parametrize(
    "dt,width,signed,et",
    [
        (np.int8, 8, True, IntegerType(8)),
        (np.uint8, 8, False, IntegerType(8, "unsigned")),
        (np.int16, 16, True, IntegerType(16)),
        (np.uint16, 16, False, IntegerType(16, "unsigned")),
        (np.int32, 32, True, IntegerType(32)),
        (np.uint32, 32, False, IntegerType(32, "unsigned")),
        (np.int64, 64, True, IntegerType(64)),
        (np.uint64, 64, False, IntegerType(64, "unsigned")),
        (ml_dtypes.int4, 4, True, IntegerType(4)),
        (ml_dtypes.uint4, 4, False, IntegerType(4, "unsigned")),
    ],
)
def test_mulhi_vs_big_int(dt, width, signed, et):
    lo = -(1 << (width - 1)) if signed else 0
    hi = (1 << (width - 1)) - 1 if signed else (1 << width) - 1
    rng = np.random.default_rng(width)
    vals = [lo, hi, 0, 1, -1 if signed else 2, lo + 1, hi - 1]
    rand = [lo + int(v) for v in rng.integers(0, 2**62, 200)]
    rand = [lo + (r * 7919) % (hi - lo + 1) for r in rand]
    a = vals * len(vals) + rand[:100]
    b = [v for v in vals for _ in vals] + rand[100:]
    wide = np.int64 if signed else np.uint64
    got = K("chlo.mulhi")(
        np.array(a, wide).astype(dt), np.array(b, wide).astype(dt), result_type=T((len(a),), et)
    )
    assert got.dtype == np.dtype(dt)
    want = [_wrap((x * y) >> width, width, signed) for x, y in zip(a, b)]
    assert [int(v) for v in got.tolist()] == want


# ---- top_k ---------------------------------------------------------------------------------------


def _float_key(v: float) -> int:
    (b,) = struct.unpack(">q", struct.pack(">d", v))
    return b if b >= 0 else -(b & 0x7FFFFFFFFFFFFFFF) - 1


def _top_k_ref(row, k, key):
    order = sorted(range(len(row)), key=lambda i: (-key(row[i]), i))[:k]
    return [row[i] for i in order], order


@pytest.mark.parametrize(
    "dt,et",
    [
        (np.float32, F32),
        (np.int32, I32),
        (np.uint8, IntegerType(8, "unsigned")),
        (np.bool_, I1),
        (ml_dtypes.bfloat16, BF16),
    ],
)
def test_top_k_vs_loop(dt, et):
    rng = np.random.default_rng(5)
    if dt is np.bool_:
        x = rng.integers(0, 2, (3, 4, 9)).astype(dt)
    else:
        x = rng.integers(0, 6, (3, 4, 9)).astype(dt)  # many ties
    if dt in (np.float32, ml_dtypes.bfloat16):
        x[0, 0, :4] = np.array([np.nan, -0.0, 0.0, -np.inf], dt)
        x[0, 1, 2] = np.array(-np.nan, dt)
    k = 4
    vals, idx = K("chlo.top_k")(x, result_types=(T((3, 4, k), et), T((3, 4, k), I32)), k=k)
    assert vals.dtype == x.dtype and idx.dtype == np.int32
    key = (
        (lambda v: _float_key(float(v)))
        if x.dtype.kind != "b" and dt not in (np.int32, np.uint8)
        else int
    )
    for i in range(3):
        for j in range(4):
            row = x[i, j].tolist()
            wv, wi = _top_k_ref(row, k, key)
            assert idx[i, j].tolist() == wi
            same(vals[i, j], np.array(wv, dt))


def test_top_k_k_zero_and_full():
    x = np.array([3, 1, 2], np.int32)
    v, i = K("chlo.top_k")(x, result_types=(T((0,), I32), T((0,), I32)), k=0)
    assert v.shape == (0,) and i.shape == (0,)
    v, i = K("chlo.top_k")(x, result_types=(T((3,), I32), T((3,), I32)), k=3)
    assert v.tolist() == [3, 2, 1] and i.tolist() == [0, 2, 1]


# ---- ragged_dot -------------------------------------------------------------------------------


def ragged_attr(lb, rb, lc, rc, lr, rg):
    def arr(v):
        return ArrayAttr(tuple(IntegerAttr(i) for i in v))

    return DialectAttr(
        "chlo",
        "ragged_dot",
        tuple(
            (k, arr(v))
            for k, v in zip(
                (
                    "lhs_batching_dimensions",
                    "rhs_batching_dimensions",
                    "lhs_contracting_dimensions",
                    "rhs_contracting_dimensions",
                    "lhs_ragged_dimensions",
                    "rhs_group_dimensions",
                ),
                (lb, rb, lc, rc, lr, rg),
            )
        ),
    )


def _groups(sizes):
    out, start = [], 0
    for s in sizes:
        out.append(range(start, start + s))
        start += s
    return out


def test_ragged_dot_mode1_vs_loop():
    rng = np.random.default_rng(11)
    b, m, k, n, g = 2, 9, 4, 3, 3
    lhs = rng.integers(-3, 4, (b, m, k)).astype(np.float32)
    rhs = rng.integers(-3, 4, (g, b, k, n)).astype(np.float32)
    sizes = [3, 4, 1]  # sum 8 < m: the last row belongs to no group -> 0
    out = K("chlo.ragged_dot")(
        lhs,
        rhs,
        np.array(sizes, np.int64),
        result_type=T((b, m, n), F32),
        ragged_dot_dimension_numbers=ragged_attr((0,), (1,), (2,), (2,), (1,), (0,)),
    )
    want = np.zeros((b, m, n), np.float32)
    for gi, rows in enumerate(_groups(sizes)):
        for bi in range(b):
            for mi in rows:
                for ni in range(n):
                    want[bi, mi, ni] = sum(lhs[bi, mi, ki] * rhs[gi, bi, ki, ni] for ki in range(k))
    assert np.array_equal(out, want)


def test_ragged_dot_mode1_per_batch_group_sizes_and_inf():
    lhs = np.array([[[1.0], [2.0], [3.0]], [[4.0], [5.0], [6.0]]], np.float32)  # [b=2,m=3,k=1]
    rhs = np.array([[[10.0]], [[np.inf]]], np.float32)  # [g=2, k=1, n=1]
    gs = np.array([[1, 2], [3, 0]], np.int32)  # [b, g]
    out = K("chlo.ragged_dot")(
        lhs,
        rhs,
        gs,
        result_type=T((2, 3, 1), F32),
        ragged_dot_dimension_numbers=ragged_attr((0,), (), (2,), (1,), (1,), (0,)),
    )
    # Per batch: b=0 rows 0 | 1,2 ; b=1 rows 0,1,2 | none.  (no NaN from 0 * inf)
    assert out[:, :, 0].tolist() == [[10.0, np.inf, np.inf], [40.0, 50.0, 60.0]]


def test_ragged_dot_mode2_vs_loop():
    rng = np.random.default_rng(12)
    b, m, k, n = 2, 3, 7, 2
    lhs = rng.integers(-3, 4, (b, m, k)).astype(np.int32)
    rhs = rng.integers(-3, 4, (b, k, n)).astype(np.int32)
    sizes = [2, 0, 4]
    out = K("chlo.ragged_dot")(
        lhs,
        rhs,
        np.array(sizes, np.int32),
        result_type=T((3, b, m, n), I32),
        ragged_dot_dimension_numbers=ragged_attr((0,), (0,), (2,), (1,), (2,), ()),
    )
    want = np.zeros((3, b, m, n), np.int64)
    for gi, ks in enumerate(_groups(sizes)):
        for bi in range(b):
            for mi in range(m):
                for ni in range(n):
                    want[gi, bi, mi, ni] = sum(
                        int(lhs[bi, mi, ki]) * int(rhs[bi, ki, ni]) for ki in ks
                    )
    assert out.dtype == np.int32 and np.array_equal(out, want)


def test_ragged_dot_mode3_is_a_batched_dot():
    rng = np.random.default_rng(13)
    lhs = rng.integers(-3, 4, (3, 2, 4)).astype(np.float64)
    rhs = rng.integers(-3, 4, (3, 4, 5)).astype(np.float64)
    out = K("chlo.ragged_dot")(
        lhs,
        rhs,
        np.array([1, 2], np.int64),
        result_type=T((3, 2, 5), F64),
        ragged_dot_dimension_numbers=ragged_attr((0,), (0,), (2,), (1,), (0,), ()),
    )
    want = np.array(
        [
            [
                [sum(lhs[b, i, t] * rhs[b, t, j] for t in range(4)) for j in range(5)]
                for i in range(2)
            ]
            for b in range(3)
        ]
    )
    assert np.array_equal(out, want)


# ---- scan ----------------------------------------------------------------------------------------


def test_scan_cumsum_forward_and_reverse():
    x = np.array([1, 2, 3, 4], np.int32)
    body = RegionFn(region=None, call=lambda a, c: (a + c, a + c))
    kw = dict(
        result_types=(T((4,), I32), T((), I32)), body=body, dimension=0, operandSegmentSizes=(1, 1)
    )
    out, carry = K("chlo.scan")(x, np.array(0, np.int32), **kw)
    assert out.tolist() == [1, 3, 6, 10] and int(carry) == 10
    out, carry = K("chlo.scan")(x, np.array(0, np.int32), is_reverse=True, **kw)
    assert out.tolist() == [10, 9, 7, 4] and int(carry) == 10


def test_scan_dim1_multi_input():
    x = np.array([[3, 1, 4, 1, 5], [2, 7, 1, 8, 2]], np.int32)
    iota = np.broadcast_to(np.arange(5, dtype=np.int32), (2, 5)).copy()

    def body(v, i, rv, ri):
        new_v = np.maximum(rv, v)
        new_i = np.where(rv > v, ri, np.where(rv == v, np.maximum(ri, i), i))
        return new_v, new_i, new_v, new_i

    vals, idxs, cv, ci = K("chlo.scan")(
        x,
        iota,
        np.full(2, -(2**31), np.int32),
        np.zeros(2, np.int32),
        result_types=(T((2, 5), I32),) * 2 + (T((2,), I32),) * 2,
        body=RegionFn(region=None, call=body),
        dimension=1,
        operandSegmentSizes=(2, 2),
    )
    want_v, want_i = [], []
    for row in x.tolist():
        best, bi, rv, ri = -(2**31), 0, [], []
        for j, v in enumerate(row):
            if v >= best:
                best, bi = v, j
            rv.append(best)
            ri.append(bi)
        want_v.append(rv)
        want_i.append(ri)
    assert vals.tolist() == want_v and idxs.tolist() == want_i
    assert cv.tolist() == [5, 8] and ci.tolist() == [4, 3]


# ---- broadcasting ops --------------------------------------------------------------------------


def test_broadcast_pair():
    a, b = broadcast_pair(np.ones((2, 3, 4)), np.arange(3.0), (1,))
    assert a.shape == b.shape == (2, 3, 4) and b[1, 2, 3] == 2.0
    a, b = broadcast_pair(np.arange(4.0), np.ones((2, 3, 4)), None)
    assert a.shape == (2, 3, 4) and a[1, 1, 3] == 3.0
    a, b = broadcast_pair(np.arange(6.0).reshape(2, 3), np.ones((3, 4, 2)), (2, 0))
    assert a.shape == (3, 4, 2) and a[2, 1, 1] == 5.0  # a[i, j] lands at [j, :, i]


def test_broadcast_ops_own_kernels():
    x = np.array([[1.0], [0.0]], np.float32)
    y = np.array([2.0, -1.0, 1.0], np.float32)
    got = K("chlo.broadcast_next_after")(x, y, result_type=T((2, 3), F32))
    same(got, np.nextafter(*np.broadcast_arrays(x, y)))
    z = K("chlo.broadcast_zeta")(np.array([2.0]), np.array([1.0, 2.0]), result_type=T((2,), F64))
    assert close_ulps(z[0], math.pi**2 / 6, np.float64, 4)


def test_broadcast_select():
    pred = np.array([[True], [False]])
    got = K("chlo.broadcast_select")(
        pred, np.array([1, 2, 3], np.int32), np.int32(-1), result_type=T((2, 3), I32)
    )
    assert got.tolist() == [[1, 2, 3], [-1, -1, -1]]


def _needs(op):
    row = OP_TABLE.get(op)
    assert row is not None and row.kernel is not None, f"{op} has no kernel"


def test_broadcast_add_and_compare_reuse_stablehlo():
    _needs("stablehlo.add")
    _needs("stablehlo.compare")
    x = np.array([[1, 2, 3], [4, 5, 6]], np.int32)
    y = np.array([10, 20], np.int32)
    got = K("chlo.broadcast_add")(x, y, result_type=T((2, 3), I32), broadcast_dimensions=(0,))
    assert got.tolist() == [[11, 12, 13], [24, 25, 26]]
    big = np.array([2**31 - 1], np.int32)
    assert K("chlo.broadcast_add")(
        big, np.array([1], np.int32), result_type=T((1,), I32)
    ).tolist() == [-(2**31)]
    u = np.array([1, 255], np.uint8)
    got = K("chlo.broadcast_compare")(
        u,
        np.array([128], np.uint8),
        result_type=T((2,), I1),
        comparison_direction="GT",
        compare_type=None,
    )
    assert got.tolist() == [False, True]


def test_broadcast_complex_and_divide():
    _needs("stablehlo.complex")
    _needs("stablehlo.divide")
    got = K("chlo.broadcast_complex")(
        np.array([1.0, 2.0], np.float32), np.array([3.0], np.float32), result_type=T((2,), C64)
    )
    same(got, np.array([1 + 3j, 2 + 3j], np.complex64))
    got = K("chlo.broadcast_divide")(
        np.array([7, -7], np.int32), np.array([2], np.int32), result_type=T((2,), I32)
    )
    assert got.tolist() == [3, -3]  # truncating integer division (spec)


# ---- constants -----------------------------------------------------------------------------------


def test_constant_and_constant_like():
    v = np.array([[1, 2]], np.int32)
    assert K("chlo.constant")(result_type=T((1, 2), I32), value=v).tolist() == [[1, 2]]
    x = np.zeros((2, 3), np.float32)
    got = K("chlo.constant_like")(x, result_type=T((2, 3), BF16), value=0.1, value_type=BF16)
    assert got.dtype == np.dtype(ml_dtypes.bfloat16) and got.shape == (2, 3)
    assert float(got[0, 0]) == float(np.array(0.1, np.float32).astype(ml_dtypes.bfloat16))
    got = K("chlo.constant_like")(x, result_type=T((2, 3), I32), value=7, value_type=I32)
    assert got.dtype == np.int32 and (got == 7).all()


# ---- end to end -----------------------------------------------------------------------------------


def _run(path, inputs):
    from hlorun.engine import run

    return run(path, inputs)


def test_mlir_special_functions_end_to_end():
    x = np.array([0.5, -2.5, 3.0, -1.0], np.float32)
    erf, lgamma, is_inf, dig = _run(DATA / "chlo_special.mlir", [x])
    assert erf.dtype == np.float32 and erf.tolist() == [
        float(np.float32(math.erf(float(v)))) for v in x
    ]
    assert [float(v) for v in lgamma[:3]] == [
        float(np.float32(math.lgamma(float(v)))) for v in x[:3]
    ]
    assert lgamma[3] == np.inf and is_inf.tolist() == [False, False, False, True]
    assert np.isnan(dig[3]) and abs(dig[2] - (1.5 - 0.5772156649)) < 1e-6


def test_mlir_top_k_end_to_end():
    x = np.array([[1, 5, 3, 5, 0], [9, 9, 9, 1, 2]], np.float32)
    vals, idx = _run(DATA / "chlo_top_k.mlir", [x])
    assert vals.tolist() == [[5, 5], [9, 9]] and idx.tolist() == [[1, 3], [0, 1]]


def test_mlir_integer_ops_end_to_end():
    a = np.array([2**31 - 1, -(2**31), 12345], np.int32)
    b = np.array([2**31 - 1, 3, -7], np.int32)
    x = np.array([1.0, 0.0], np.float32)
    y = np.array([2.0, -1.0], np.float32)
    hi, nxt = _run(DATA / "chlo_mulhi_next_after.mlir", [a, b, x, y])
    assert hi.tolist() == [(int(p) * int(q)) >> 32 for p, q in zip(a, b)]
    same(nxt, np.nextafter(x, y))


def test_mlir_ragged_dot_end_to_end():
    lhs = np.arange(12, dtype=np.float32).reshape(4, 3)
    rhs = np.stack([np.eye(3, 2, dtype=np.float32), 2 * np.eye(3, 2, dtype=np.float32)])
    gs = np.array([1, 3], np.int64)
    (out,) = _run(DATA / "chlo_ragged_dot.mlir", [lhs, rhs, gs])
    want = np.concatenate([lhs[:1] @ rhs[0], lhs[1:] @ rhs[1]])
    assert np.array_equal(out, want)


def test_mlir_broadcast_end_to_end():
    a = np.array([[1, 5, 3], [4, 2, 6]], np.int32)
    b = np.array([2, 2, 7], np.int32)
    c = np.array([1, 10], np.int32)
    add, gt, sub = _run(DATA / "chlo_broadcast.mlir", [a, b, c])
    assert add.tolist() == [[3, 7, 10], [6, 4, 13]]
    assert gt.tolist() == [[False, True, False], [True, False, False]]
    assert sub.tolist() == [[0, 4, 2], [-6, -8, -4]]


def test_mlir_scan_end_to_end():
    x = np.array([[1, 2, 3, 4], [0.5, 0.25, 0.125, 1]], np.float32)
    out, carry = _run(DATA / "chlo_scan.mlir", [x])
    assert out.tolist() == [[1, 3, 6, 10], [0.5, 0.75, 0.875, 1.875]]
    assert carry.tolist() == [10, 1.875]


BROADCAST_CASES = {
    "add": "i",
    "and": "b",
    "atan2": "f",
    "divide": "i",
    "maximum": "f",
    "minimum": "i",
    "multiply": "i",
    "or": "b",
    "power": "f",
    "remainder": "i",
    "shift_left": "i",
    "shift_right_arithmetic": "i",
    "shift_right_logical": "i",
    "subtract": "f",
    "xor": "i",
}


@pytest.mark.parametrize("name", sorted(BROADCAST_CASES))
def test_broadcast_op_equals_stablehlo_on_broadcast_operands(name):
    _needs(f"stablehlo.{name}")
    rng = np.random.default_rng(len(name))
    kind = BROADCAST_CASES[name]
    if kind == "b":
        lhs, rhs, et = (
            rng.integers(0, 2, (2, 3, 4)).astype(bool),
            rng.integers(0, 2, (3, 1)).astype(bool),
            I1,
        )
    elif kind == "i":
        lhs = rng.integers(-40, 40, (2, 3, 4)).astype(np.int32)
        rhs = rng.integers(1, 9, (3, 1)).astype(np.int32)
        et = I32
    else:
        lhs = rng.uniform(0.5, 3, (2, 3, 4)).astype(np.float32)
        rhs = rng.uniform(-2, 2, (3, 1)).astype(np.float32)
        et = F32
    got = K(f"chlo.broadcast_{name}")(lhs, rhs, result_type=T((2, 3, 4), et))
    a, b = np.broadcast_arrays(lhs, rhs)
    want = K(f"stablehlo.{name}")(a, b, result_type=T((2, 3, 4), et))
    same(got, want)
    # the same with explicit broadcast_dimensions (rhs dims -> result dims 1 and 2)
    got2 = K(f"chlo.broadcast_{name}")(
        lhs, rhs, result_type=T((2, 3, 4), et), broadcast_dimensions=(1, 2)
    )
    same(got2, want)


def test_mlir_misc_end_to_end():
    x = np.array([1.0, 2.0, 0.5], np.float32)
    z = np.array([0.5 + 0.5j, 2 + 0j], np.complex64)
    n = np.array([1.0, 2.0, 3.0], np.float32)
    cl, i1e, acos, pg, zt, cst, cl16, pinf, w = _run(DATA / "chlo_misc.mlir", [x, z, n])
    assert cl.dtype == np.float32 and cl.tolist() == [0.25] * 3
    for g, v in zip(i1e.tolist(), x.tolist()):
        assert close_ulps(g, _i1e_series(v), np.float32, 1)
    ref = np.arccos(z.astype(np.complex128))
    assert acos.dtype == np.complex64 and np.allclose(acos, ref, rtol=2e-7, atol=0)
    assert acos[1].imag < 0  # C99: cacos(2 + 0i) = 0 - i acosh(2)
    zeta3 = 1.2020569031595942854
    for g, want in zip(pg.tolist(), [math.pi**2 / 6, -2 * (zeta3 - 1), math.pi**4]):
        assert close_ulps(g, want, np.float32, 1)
    assert zt[0] == np.inf
    assert close_ulps(zt[1], math.pi**2 / 6 - 1, np.float32, 1)
    assert close_ulps(zt[2], 7 * zeta3, np.float32, 1)
    assert cst.tolist() == [[1, 2], [3, 4]]
    assert cl16.dtype == np.dtype(ml_dtypes.bfloat16) and float(cl16[0]) == 0.10009765625
    assert pinf.tolist() == [True, False, False]
    assert w.dtype == np.complex64 and w[1] == np.complex64(complex(0, math.acosh(2)))


def test_ragged_dot_zero_groups_gives_zeros():
    lhs = np.ones((3, 2), np.float32)
    out = K("chlo.ragged_dot")(
        lhs,
        np.ones((0, 2, 4), np.float32),
        np.zeros((0,), np.int32),
        result_type=T((3, 4), F32),
        ragged_dot_dimension_numbers=ragged_attr((), (), (1,), (1,), (0,), (0,)),
    )
    assert out.shape == (3, 4) and not out.any()
    out = K("chlo.ragged_dot")(
        lhs,
        np.ones((2, 4), np.float32),
        np.zeros((0,), np.int32),
        result_type=T((0, 3, 4), F32),
        ragged_dot_dimension_numbers=ragged_attr((), (), (1,), (0,), (1,), ()),
    )
    assert out.shape == (0, 3, 4)


def test_igamma_igammac_against_closed_forms():
    """P(1, x) = 1 - exp(-x); P(a, x) + Q(a, x) = 1; P(1/2, x) = erf(sqrt(x))."""
    import math

    from hlorun import engine  # noqa: F401  (fills the op table)
    from hlorun.shape_inference.optable import OP_TABLE

    x = np.array([0.0, 0.5, 1.0, 3.0, 10.0], np.float64)
    t = TensorType((5,), FloatType("f64"))
    one = np.ones(5)
    p = OP_TABLE["chlo.igamma"].kernel(one, x, result_type=t)
    q = OP_TABLE["chlo.igammac"].kernel(one, x, result_type=t)
    np.testing.assert_allclose(p, [1 - math.exp(-v) for v in x], rtol=1e-14, atol=1e-16)
    np.testing.assert_allclose(p + q, 1.0, rtol=1e-15)
    half = OP_TABLE["chlo.igamma"].kernel(np.full(5, 0.5), x, result_type=t)
    np.testing.assert_allclose(half, [math.erf(math.sqrt(v)) for v in x], rtol=1e-14, atol=1e-16)
