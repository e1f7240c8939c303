"""stablehlo.cbrt is IEEE rootn(x, 3): exact cubes give exact roots, and other inputs
the nearest double (checked against mpmath at 200 bits)."""

from __future__ import annotations

import mpmath
import numpy as np
import pytest

from hlorun import run


def _cbrt(x: np.ndarray) -> np.ndarray:
    n = x.size
    text = f"""func.func @main(%x: tensor<{n}xf64>) -> tensor<{n}xf64> {{
  %0 = stablehlo.cbrt %x : tensor<{n}xf64>
  func.return %0 : tensor<{n}xf64>
}}"""
    return run(text, [x])[0]


def _nearest(v: float) -> float:
    mpmath.mp.prec = 200
    root = mpmath.cbrt(mpmath.mpf(abs(v)))
    return float(root) if v >= 0 else -float(root)


def test_exact_cubes_are_exact():
    roots = np.arange(-300, 301, dtype=np.float64)
    got = _cbrt(roots**3)
    np.testing.assert_array_equal(got, roots)


@pytest.mark.parametrize("scale", [1e-300, 1e-5, 1.0, 1e3, 1e300])
def test_nearest_double(scale):
    x = np.random.default_rng(7).standard_normal(2000) * scale
    got = _cbrt(x)
    want = np.array([_nearest(v) for v in x])
    ulps = np.abs(got.view(np.int64) - want.view(np.int64))
    assert ulps.max() <= 1
    assert (ulps == 0).mean() >= 0.999, f"{(ulps != 0).sum()} of {x.size} not the nearest"


def test_special_values():
    x = np.array([0.0, -0.0, np.inf, -np.inf, np.nan])
    got = _cbrt(x)
    assert np.signbit(got[1]) and got[0] == 0 and got[2] == np.inf and got[3] == -np.inf
    assert np.isnan(got[4])
