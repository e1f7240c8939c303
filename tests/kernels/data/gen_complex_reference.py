"""Writes complex_reference.npz: mpmath references of the complex element-wise functions
for tests/kernels/test_complex_accuracy.py (issue 18 item 3).

For complex<f32> and complex<f64>: a grid z = a + ib with a, b from +-{0, the smallest
subnormal, a subnormal, tiny, 1e-5, 0.1, 0.5, 0.9, 1, 1.1, 2, 3.14159, 10, near the exp
overflow, 1e10, huge, the largest finite}, and for every function the value mpmath
gives at 2400 (f64) / 500 (f32) bits, rounded to the part type.  On a branch cut the
sign of the zero part picks the side (C99 Annex G): mpmath is evaluated there at that
zero replaced by +-2**-3000.  Entries where mpmath raises are NaN + NaN i and skipped.

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
    path = Path(__file__).with_name("complex_reference.npz")
    np.savez_compressed(path, **out)
    print(f"wrote {path} ({path.stat().st_size} bytes)")


if __name__ == "__main__":
    main()
