"""The float nearest an exact rational: the independent reference the literal tests
compare the parser's decimal conversion against (round to nearest, ties to even)."""

from __future__ import annotations

from fractions import Fraction

import numpy as np


def nearest_bits(exact: Fraction, d: np.dtype) -> int:
    """Bits of the value of ``d`` nearest to ``exact`` (ties to the even one), by exact
    distances to the neighbours of a candidate (finite, in-range values only; a zero
    candidate keeps its sign)."""
    u = np.dtype(f"u{d.itemsize}")
    with np.errstate(over="ignore"):
        c = int(np.array([float(exact)]).astype(d).view(u)[0])
    best: tuple[Fraction, int, int] | None = None
    for b in (c - 1, c, c + 1):
        if not 0 <= b < 1 << (8 * d.itemsize):
            continue
        v = float(np.array([b], dtype=u).view(d).astype(np.float64)[0])
        if not np.isfinite(v):
            continue
        if v == 0 and b != c:  # -0.0 / +0.0 neighbours: the candidate's sign stands
            continue
        key = (abs(Fraction(v) - exact), b & 1, b)
        if best is None or key[:2] < best[:2]:
            best = key
    assert best is not None
    return best[2]
