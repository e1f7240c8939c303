"""spec maximum / minimum on floats as a fused run calls them (``ieee_max_into``,
``ieee_min_into``, out= possibly an operand) against an element-wise reading of the
spec: IEEE 754 maximum / minimum, NaN propagates and -0 < +0."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hlorun.engine.ufunc import ieee_max_into, ieee_min_into

VALUES = [0.0, -0.0, 1.5, -1.5, math.inf, -math.inf, math.nan, 1e-45, -3.0]


def _reference(x: float, y: float, is_max: bool) -> float:
    """One element, from the spec's words (no NumPy)."""
    if math.isnan(x) or math.isnan(y):
        return math.nan
    if x == y == 0.0:  # zeros: the sign decides (-0 < +0)
        neg_x, neg_y = math.copysign(1, x) < 0, math.copysign(1, y) < 0
        negative = (neg_x and neg_y) if is_max else (neg_x or neg_y)
        return -0.0 if negative else 0.0
    return max(x, y) if is_max else min(x, y)


def _check(a: np.ndarray, b: np.ndarray, is_max: bool, into: str) -> None:
    want = [_reference(float(x), float(y), is_max) for x, y in zip(a, b)]
    a, b = a.copy(), b.copy()
    out = {"a": a, "b": b, "new": np.empty_like(a)}[into]
    fn = ieee_max_into if is_max else ieee_min_into
    with np.errstate(all="ignore"):  # (the engine runs kernels so too)
        got = fn(a, b, out=out)
    assert got is out
    for g, w in zip(got.tolist(), want):
        if math.isnan(w):
            assert math.isnan(g)
        else:
            assert g == w and math.copysign(1, g) == math.copysign(1, w), (g, w)


@pytest.mark.parametrize("into", ["a", "b", "new"])
@pytest.mark.parametrize("is_max", [True, False])
@settings(max_examples=60, deadline=None)
@given(pairs=st.lists(st.tuples(st.sampled_from(VALUES), st.sampled_from(VALUES)), max_size=40))
def test_extremum_into_matches_the_spec(pairs, is_max, into):
    a = np.array([p[0] for p in pairs], dtype=np.float32)
    b = np.array([p[1] for p in pairs], dtype=np.float32)
    _check(a, b, is_max, into)


@pytest.mark.parametrize("is_max", [True, False])
def test_zeros_only_in_one_operand_and_opposite_zeros(is_max):
    # no zero in a (the one-pass test), zeros in b; then opposite zeros in both
    _check(
        np.array([1.0, -2.0, 3.0], np.float32), np.array([0.0, -0.0, 0.0], np.float32), is_max, "a"
    )
    _check(
        np.array([0.0, -0.0, -0.0, 0.0], np.float32),
        np.array([-0.0, 0.0, -0.0, 0.0], np.float32),
        is_max,
        "a",
    )
    _check(
        np.array([0.0, -0.0, -0.0, 0.0], np.float32),
        np.array([-0.0, 0.0, -0.0, 0.0], np.float32),
        is_max,
        "b",
    )
