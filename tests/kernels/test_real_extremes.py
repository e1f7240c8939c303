"""Real element-wise and CHLO functions near the ends of each float range (issue 18
item 3): within 3 ULP of mpmath (300 bits, rounded once to the type) from subnormal
operands to operands whose result is near overflow -- cosh / sinh / exp just below the
overflow threshold (where exp(x) / 2 must not overflow first), logistic far left (a
subnormal result, not 1 / inf), lgamma of tiny operands (-log|x|, not inf), acosh /
asinh of huge operands (no x*x overflow)."""

from __future__ import annotations

import ml_dtypes
import mpmath
import numpy as np
import pytest

import hlorun
from hlorun.engine.element import ulp_distance

FUNCS = {
    "chlo.cosh": mpmath.cosh,
    "chlo.sinh": mpmath.sinh,
    "chlo.asinh": mpmath.asinh,
    "chlo.acosh": mpmath.acosh,
    "chlo.atanh": mpmath.atanh,
    "chlo.lgamma": lambda x: mpmath.log(abs(mpmath.gamma(x))),
    "stablehlo.exponential": mpmath.exp,
    "stablehlo.exponential_minus_one": mpmath.expm1,
    "stablehlo.logistic": lambda x: 1 / (1 + mpmath.exp(-x)),
    "stablehlo.tanh": mpmath.tanh,
}
TYPES = {
    "f16": np.float16,
    "bf16": ml_dtypes.bfloat16,
    "f32": np.float32,
    "f64": np.float64,
}


def _operands(dt) -> np.ndarray:
    fi = ml_dtypes.finfo(dt)
    mx = float(fi.max)
    ln_max = float(np.log(mx))
    base = [
        float(fi.smallest_subnormal),
        float(fi.smallest_normal),
        1e-3,
        0.5,
        1.0,
        2.0,
        ln_max - 1.0,
        ln_max,
        ln_max + 0.5,  # cosh / sinh still finite here (e**x / 2 <= max)
        float(np.sqrt(mx)),
        mx / 2,
        mx,
    ]
    x = np.array(sorted({s * v for v in base for s in (1.0, -1.0)}))
    with np.errstate(over="ignore"):
        x = x.astype(dt)
    return x[np.isfinite(x.astype(np.float64))]


def _reference(fn, x: np.ndarray, dt) -> np.ndarray:
    out = []
    with mpmath.workprec(300):
        for v in x.astype(np.float64):
            try:
                r = fn(mpmath.mpf(float(v)))
            except (ValueError, ZeroDivisionError):
                out.append(np.nan)
                continue
            out.append(float(r) if not isinstance(r, mpmath.mpc) else np.nan)
    with np.errstate(over="ignore"):
        return np.array(out).astype(dt)


@pytest.mark.parametrize("tname", sorted(TYPES))
@pytest.mark.parametrize("op", sorted(FUNCS))
def test_within_3_ulp_at_the_extremes(op, tname):
    dt = TYPES[tname]
    x = _operands(dt)
    t = f"tensor<{x.size}x{tname}>"
    text = f'func.func @main(%x: {t}) -> {t} {{\n  %r = "{op}"(%x) : ({t}) -> {t}\n  func.return %r : {t}\n}}\n'
    (got,) = hlorun.run(text, [x])
    want = _reference(FUNCS[op], x, dt)
    known = ~np.isnan(want.astype(np.float64))
    d = np.where(known, ulp_distance(np.asarray(got), want), 0)
    i = int(np.argmax(d))
    assert d[i] <= 3, (
        f"{op} {tname}: {d[i]:.3g} ULP at {float(x[i])!r}: got {float(got[i])!r}, want {float(want[i])!r}"
    )
