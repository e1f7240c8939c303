"""The op table's ``ufunc`` column, and the one home of IEEE maximum / minimum.

An elementwise op's kernel row (``engine/kernels/elementwise.py``) may carry a
``Ufunc``: the NumPy ufunc that computes the op exactly as the spec does, and on which
dtype kinds it does so for each consumer (the interpreter's fast path, reduce,
scatter's ``ufunc.at``).  Consumers read ``OP_TABLE[name].ufunc``; no other table maps
op names to ufuncs.

Dtype kinds: ``b`` bool (i1), ``i``/``u`` 8..64-bit integers (wrapping), ``f`` floats,
``c`` complex.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

_ndarray = np.ndarray
_maximum = np.maximum
_minimum = np.minimum
_where = np.where


@dataclass(frozen=True)
class Ufunc:
    """How NumPy computes one elementwise op exactly (spec semantics).

    ``fast``: kinds on which ``ufunc`` (or ``op``, the Python operator with the same
    meaning on NumPy scalars and same-dtype arrays) is the op, for f32/f64 floats; with
    ``exact`` False, f32 computes in f64 and rounds once, as the elementwise kernel
    does.  ``reduce``: kinds on which ``ufunc`` folds a reduction exactly (``f`` for any
    float but tf32: f16/bf16/f8 fold in f32, where + and * round correctly);
    ``boolean``: the ufunc on i1 for reductions.  ``at``: kinds on which
    ``ufunc.at`` is scatter with this op as its combiner.  ``extremum``: ``"max"`` /
    ``"min"`` when the op is IEEE 754 maximum / minimum (spec maximum / minimum): on
    floats ``ufunc`` computes it except between zeros of opposite signs (-0 < +0),
    which ``ieee_max`` / ``ieee_min`` and the reductions' sign fixes get right.
    """

    ufunc: np.ufunc
    fast: str = ""
    op: Callable[..., Any] | None = None
    exact: bool = True
    reduce: str = ""
    boolean: np.ufunc | None = None
    at: str = ""
    extremum: str = ""


def ieee_max(a: Any, b: Any) -> Any:
    """spec maximum on floats (IEEE 754 maximum: NaN propagates, -0 < +0), on arrays
    and NumPy scalars of one float dtype.  NumPy's maximum propagates NaN; where both
    operands are zeros, ``a + b`` is +0 unless both are -0.  (One formula for scalars,
    0-d arrays and arrays: cheap on a 0-d value.)"""
    r = _maximum(a, b)
    if r.__class__ is _ndarray:
        both = (a == b) & (r == 0)
        return _where(both, a + b, r) if both.any() else r
    return a + b if r == 0 and a == b else r


def _extremum_into(
    extremum: np.ufunc, zeros: Callable[[Any, Any], Any], a: Any, b: Any, out: Any
) -> Any:
    """``extremum(a, b, out=out)`` with the sign of a result between zeros from
    ``zeros(a, b)``, computed before ``out``, which may be ``a`` or ``b``, is written.
    Only zeros in both operands need the fix: when ``a`` has none, one pass over it
    (a fused run's maximum of 128K f32: 40 against 85 us with the three passes of
    ``(a == b) & (a == 0)``) decides it."""
    zero = a == 0
    if not zero.any():
        return extremum(a, b, out=out)
    both = (a == b) & zero
    if both.any():
        fix = zeros(a, b)
        r = extremum(a, b, out=out)
        np.copyto(r, fix, where=both)
        return r
    return extremum(a, b, out=out)


def _max_of_zeros(a: Any, b: Any) -> Any:
    return a + b  # +0 unless both are -0 (ieee_max)


def _min_of_zeros(a: Any, b: Any) -> Any:
    return -(-a - b)  # -0 unless both are +0 (ieee_min)


def ieee_max_into(a: Any, b: Any, out: Any = None) -> Any:
    """``ieee_max`` as a binary ufunc is called (``out`` positional or keyword), so a
    large maximum can write into a dying operand's buffer and join a fused run
    (engine/fusion.py)."""
    return _extremum_into(_maximum, _max_of_zeros, a, b, out)


def ieee_min_into(a: Any, b: Any, out: Any = None) -> Any:
    """``ieee_min`` as ``ieee_max_into`` is ``ieee_max``."""
    return _extremum_into(_minimum, _min_of_zeros, a, b, out)


def ieee_min(a: Any, b: Any) -> Any:
    """spec minimum on floats: as ``ieee_max``; -(-a - b) is -0 unless both are +0."""
    r = _minimum(a, b)
    if r.__class__ is _ndarray:
        both = (a == b) & (r == 0)
        return _where(both, -(-a - b), r) if both.any() else r
    return -(-a - b) if r == 0 and a == b else r


# spec maximum / minimum on floats as the fast path's rows: ``op`` on small values,
# the ``_into`` form (with out=) on large ones and in fused runs
IEEE_MAX = Ufunc(ieee_max_into, fast="f", op=ieee_max)  # type: ignore[arg-type]
IEEE_MIN = Ufunc(ieee_min_into, fast="f", op=ieee_min)  # type: ignore[arg-type]
