"""Writes complex_reference.npz: mpmath references of the complex element-wise functions
for tests/kernels/test_complex_accuracy.py (issue 18 item 3).

For complex<f32> and complex<f64>: a grid z = a + ib with a, b from +-{0, the smallest
subnormal, a subnormal, tiny, 1e-5, 0.1, 0.5, 0.9, 1, 1.1, 2, 3.14159, 10, near the exp
overflow, 1e10, huge, the largest finite}, and for every function the value mpmath
gives at 2400 (f64) / 500 (f32) bits, rounded to the part type.  On a branch cut the
sign of the zero part picks the side (C99 Annex G): mpmath is evaluated there at that
zero replaced by +-2**-3000.  Entries where mpmath raises are NaN + NaN i and skipped.

power: bases z from a grid of axes, diagonals and points between (|parts| 1e-3 .. 10),
exponents w with integer, half-integer and general parts; mpmath's principal branch,
parts below |z**w| 2**-(prec - 64) taken as the exact zeros they are.

Run: python tests/kernels/data/gen_complex_reference.py (a few minutes).
"""

from __future__ import annotations

from pathlib import Path

import mpmath
import numpy as np

FUNCS = {
    "stablehlo.exponential": mpmath.exp,
    "stablehlo.log": mpmath.log,
    "stablehlo.log_plus_one": mpmath.log1p,
    "stablehlo.exponential_minus_one": mpmath.expm1,
    "stablehlo.sqrt": mpmath.sqrt,
    "stablehlo.rsqrt": lambda w: 1 / mpmath.sqrt(w),
    "stablehlo.cbrt": mpmath.cbrt,
    "stablehlo.sine": mpmath.sin,
    "stablehlo.cosine": mpmath.cos,
    "stablehlo.tan": mpmath.tan,
    "stablehlo.tanh": mpmath.tanh,
    "stablehlo.logistic": lambda w: 1 / (1 + mpmath.exp(-w)),
    "chlo.asin": mpmath.asin,
    "chlo.acos": mpmath.acos,
    "chlo.atan": mpmath.atan,
    "chlo.asinh": mpmath.asinh,
    "chlo.acosh": mpmath.acosh,
    "chlo.atanh": mpmath.atanh,
    "chlo.sinh": mpmath.sinh,
    "chlo.cosh": mpmath.cosh,
    "chlo.tan": mpmath.tan,
}
# branch cuts: on the real axis where the predicate of re holds, or on the imaginary
# axis where |im| > 1
REAL_CUTS = {
    "chlo.asin": lambda x: abs(x) > 1,
    "chlo.acos": lambda x: abs(x) > 1,
    "chlo.atanh": lambda x: abs(x) > 1,
    "chlo.acosh": lambda x: x < 1,
    "stablehlo.log": lambda x: x < 0,
    "stablehlo.log_plus_one": lambda x: x < -1,
    "stablehlo.sqrt": lambda x: x < 0,
    "stablehlo.rsqrt": lambda x: x < 0,
    "stablehlo.cbrt": lambda x: x < 0,
}
IMAG_CUTS = {"chlo.asinh", "chlo.atan"}


def grid(ft) -> np.ndarray:
    fi = np.finfo(ft)
    f32 = ft == np.float32
    mags = [
        0.0,
        float(fi.smallest_subnormal),
        float(fi.smallest_normal) * 0.7,
        1e-30 if f32 else 1e-200,
        1e-5,
        0.1,
        0.5,
        0.9,
        1.0,
        1.1,
        2.0,
        3.14159,
        10.0,
        88.0 if f32 else 700.0,
        1e10,
        1e30 if f32 else 1e300,
        float(fi.max),
    ]
    vals = sorted({s * m for m in mags for s in (1.0, -1.0)})
    re, im = np.meshgrid(vals, vals)
    return (re + 1j * im).astype(np.complex64 if f32 else np.complex128).ravel()


def reference(name: str, z: complex, ft, prec: int) -> complex:
    x, y = float(z.real), float(z.imag)
    tiny = mpmath.mpf(2) ** -3000
    mx, my = mpmath.mpf(x), mpmath.mpf(y)
    cut = REAL_CUTS.get(name)
    if cut is not None and y == 0 and cut(x):
        my = -tiny if np.signbit(y) else tiny
    if name in IMAG_CUTS and x == 0 and abs(y) > 1:
        mx = -tiny if np.signbit(x) else tiny
    try:
        with mpmath.workprec(prec):
            r = FUNCS[name](mpmath.mpc(mx, my))
        return complex(ft(float(r.real)), ft(float(r.imag)))
    except (ValueError, ZeroDivisionError, OverflowError):
        return complex(np.nan, np.nan)


def power_grid(ft) -> tuple[np.ndarray, np.ndarray]:
    """Bases from 1e-3 to 10 on both axes, diagonals and in between; exponents with
    integer, half-integer and general real and imaginary parts."""
    vals = sorted({s * v for v in (0.0, 1e-3, 0.5, 1.0, 2.0, 3.0, 10.0) for s in (1.0, -1.0)})
    cdt = np.complex64 if ft == np.float32 else np.complex128
    zs = np.array([complex(a, b) for a in vals for b in vals], dtype=cdt)
    ws = np.array(
        [
            complex(a, b)
            for a in (-2.0, -0.5, 0.0, 0.5, 1.0, 2.0, 3.0, 0.3)
            for b in (-1.0, 0.0, 0.5)
        ],
        dtype=cdt,
    )
    z, w = np.meshgrid(zs, ws)
    keep = z.ravel() != 0
    return z.ravel()[keep], w.ravel()[keep]


def power_reference(z: complex, w: complex, ft, prec: int) -> complex:
    """z**w (principal branch); a part below |z**w| 2**-(prec - 64) is a zero that
    mpmath's finite-precision pi left nonzero (sin(3 pi) and the like)."""
    with mpmath.workprec(prec):
        r = mpmath.power(
            mpmath.mpc(float(z.real), float(z.imag)), mpmath.mpc(float(w.real), float(w.imag))
        )
        tiny = abs(r) * mpmath.mpf(2) ** -(prec - 64)
        re = 0 if abs(r.real) < tiny else r.real
        im = 0 if abs(r.imag) < tiny else r.imag
    return complex(ft(float(re)), ft(float(im)))


def main() -> None:
    out: dict[str, np.ndarray] = {}
    for tag, ft, cdt, prec in (
        ("c64", np.float32, np.complex64, 500),
        ("c128", np.float64, np.complex128, 2400),
    ):
        z = grid(ft)
        out[f"{tag}/z"] = z
        for name in FUNCS:
            with np.errstate(all="ignore"):
                vals = [reference(name, w, ft, prec) for w in z]
            out[f"{tag}/{name}"] = np.array(vals, dtype=cdt)
        pz, pw = power_grid(ft)
        out[f"{tag}/power_z"], out[f"{tag}/power_w"] = pz, pw
        out[f"{tag}/stablehlo.power"] = np.array(
            [power_reference(a, b, ft, prec) for a, b in zip(pz, pw)], dtype=cdt
        )
    path = Path(__file__).with_name("complex_reference.npz")
    np.savez_compressed(path, **out)
    print(f"wrote {path} ({path.stat().st_size} bytes)")


if __name__ == "__main__":
    main()
