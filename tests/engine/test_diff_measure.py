"""``hlorun diff``'s measure (engine/diff_metrics.py): its verdict, taken from the
candidate elements alone, against the tolerance's formula written out element by
element here (README: ``|got - exp| <= atol + rtol * scale``, ``scale`` at least the
result's largest magnitude; NaN matches NaN); and a dot's sums of the magnitudes of
its terms at chosen elements against ``np.einsum`` over all of them."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

from hlorun.engine.diff_metrics import Tolerance, candidates, measure
from hlorun.parser import parse_module


def _reference_bad(got, exp, tol, scale=None):
    """Elements over tolerance, with ``tol.ulp == 0``: in f64, one by one."""
    g = np.asarray(got, np.float64).ravel()
    e = np.asarray(exp, np.float64).ravel()
    largest = max((abs(x) for x in e if np.isfinite(x)), default=0.0)
    bad = []
    for i, (x, y) in enumerate(zip(g, e)):
        if x == y or (np.isnan(x) and np.isnan(y)):
            continue
        d = abs(x - y) if np.isfinite(x) and np.isfinite(y) else np.inf
        s = abs(y) if scale is None else abs(float(np.ravel(scale)[i]))
        if d > tol.atol + tol.rtol * max(s, largest):
            bad.append(i)
    return bad


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16, ml_dtypes.bfloat16])
def test_verdict_is_the_tolerance_element_by_element(dtype):
    rng = np.random.default_rng(7)
    tols = [Tolerance(1e-6, 1e-37, 0), Tolerance(1e-3, 0.0, 0), Tolerance(0.0, 0.0, 0)]
    checked = over = 0
    for trial in range(200):
        exp = (rng.standard_normal(64) * rng.choice([1e-3, 1.0, 1e3])).astype(dtype)
        if rng.random() < 0.2:
            exp[rng.integers(0, 64)] = np.nan
        got = exp.copy()
        idx = rng.integers(0, 64, rng.integers(0, 6))
        got[idx] = (
            exp[idx].astype(np.float64) * (1 + rng.choice([1e-7, 1e-4, 1e-2], idx.size))
        ).astype(dtype)
        specials = rng.choice([np.nan, np.inf, -np.inf, -0.0], rng.integers(0, 3))
        got[rng.integers(0, 64, specials.size)] = specials.astype(dtype)
        scale = None if trial % 2 else np.abs(rng.standard_normal(64)) * 1e3
        for tol in tols:
            err = measure(got, exp, tol, scale)
            ref = _reference_bad(got, exp, tol, scale)
            assert err.bad == len(ref), (trial, tol)
            over += bool(ref)
            checked += 1
            if ref:
                d = np.abs(got.astype(np.float64) - exp.astype(np.float64))
                d[~np.isfinite(d)] = np.inf
                worst = max(ref, key=lambda i: (d[i], -i))
                assert err.worst == worst
    assert over > checked // 10  # the cases do cross the tolerance


def test_every_element_over_tolerance_is_a_candidate():
    rng = np.random.default_rng(3)
    exp = rng.standard_normal(10_000).astype(np.float32)
    got = (exp * (1 + rng.standard_normal(exp.size) * 3e-7)).astype(np.float32)
    tol = Tolerance(1e-6, 0.0, 0)
    cand = set(candidates(got, exp, tol).tolist())
    assert set(_reference_bad(got, exp, tol)) <= cand
    assert len(cand) < exp.size // 2  # few: the point of them


def test_maxima_when_read():
    exp = np.array([1.0, 2.0, 4.0], np.float32)
    got = np.array([1.0, 2.5, 4.0], np.float32)
    err = measure(got, exp, Tolerance(1e-6, 0.0, 0))
    assert err.bad == 1 and err.worst == 1
    assert err.max_abs == 0.5 and err.max_rel == 0.25 and err.max_ulp == 2**21


def test_dot_terms_at_chosen_elements():
    from hlorun.engine.diff import _dot_terms_at
    from hlorun.engine.diff_instrument import instrument

    text = """func.func @main(%a: tensor<2x3x5xf32>, %b: tensor<2x5x4xf32>) -> tensor<2x3x4xf32> {
  %0 = stablehlo.dot_general %a, %b, batching_dims = [0] x [0], contracting_dims = [2] x [1] : (tensor<2x3x5xf32>, tensor<2x5x4xf32>) -> tensor<2x3x4xf32>
  return %0 : tensor<2x3x4xf32>
}"""
    (info,) = instrument(parse_module(text)).ops
    rng = np.random.default_rng(0)
    a = rng.standard_normal((2, 3, 5)).astype(np.float32)
    b = rng.standard_normal((2, 5, 4)).astype(np.float32)
    at = np.array([0, 5, 13, 23])
    mags = np.einsum("bmk,bkn->bmn", np.abs(a.astype(np.float64)), np.abs(b.astype(np.float64)))
    terms = np.einsum("bmk,bkn->bmn", a.astype(np.float64), b.astype(np.float64))
    np.testing.assert_allclose(_dot_terms_at(info, [a, b])(at), mags.ravel()[at], rtol=1e-15)
    np.testing.assert_allclose(
        _dot_terms_at(info, [a, b], magnitudes=False)(at), terms.ravel()[at], rtol=1e-12
    )
