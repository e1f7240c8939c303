"""Error measures of ``hlorun diff``: max abs, max rel and max ULP error of one result,
and the default tolerances per element type.

An element of ``got`` (the other engine) passes against ``exp`` (hlorun, the spec's
value) when ``|got - exp| <= atol + rtol * scale`` or when it is at most ``ulp`` units
in the last place away; ``scale`` is the largest magnitude of the result (normwise: a
value got by subtracting nearly equal numbers carries its inputs' absolute error;
``elementwise=True``: ``|exp|`` itself), and for ``dot_general``, ``convolution`` and
``reduce`` (an ``add`` body) at least the sum of the magnitudes of the terms the
element adds up.  NaN matches NaN (any payload); an infinity matches only itself.

Defaults (``TOLERANCES``; the README's table says the same):

- f64: ``rtol = 1e-13``, ``atol = 0``, ``ulp = 2``;
- f32: ``rtol = 1e-6`` (about 8 ulp of the result's largest element: libraries'
  ``exp``, ``tanh``... differ by a few ulp), ``atol = 1e-37`` (subnormals flushed to
  zero), ``ulp = 2``;
- f16, bf16 and the 8-bit and smaller float types: ``rtol`` a quarter of the type's
  epsilon, ``ulp = 0``: compilers compute these types in f32 and round once, so a one
  ulp difference means that a different value was rounded (excess precision,
  reassociation) rather than a different approximation;
- integers, booleans: exact.

``--rtol``, ``--atol``, ``--ulp`` replace the default of every type.  An op over
tolerance whose value is within it when hlorun computes the op from the other side's
operands, all within tolerance, only passes on their tolerated error (engine/diff.py
``_passed_on``): it is not a divergence.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable
from dataclasses import dataclass

import ml_dtypes
import numpy as np

from ..parser.ir import ComplexType, FloatType, Type
from .dtypes import dtype_of, element_type
from .element import ulp_distance


@dataclass(frozen=True)
class Tolerance:
    rtol: float
    atol: float
    ulp: int


# element type name -> default tolerance (the module docstring says why)
TOLERANCES: dict[str, Tolerance] = {
    "f64": Tolerance(1e-13, 0.0, 2),
    "f32": Tolerance(1e-6, 1e-37, 2),
    "tf32": Tolerance(2.0**-12, 1e-37, 0),
}
EXACT = Tolerance(0.0, 0.0, 0)

# the scale of each element of a result: an array, or a function of flat indices
Scale = np.ndarray | Callable[[np.ndarray], np.ndarray] | None


def default_tolerance(t: Type) -> Tolerance:
    """The default tolerance of values of type ``t`` (a tensor type or element type)."""
    e = element_type(t)
    if isinstance(e, ComplexType):
        e = e.element_type
    if not isinstance(e, FloatType):
        return EXACT
    if e.name in TOLERANCES:
        return TOLERANCES[e.name]
    eps = float(ml_dtypes.finfo(dtype_of(e)).eps)
    return Tolerance(eps / 4, 0.0, 0)


def tolerance(t: Type, rtol: float | None, atol: float | None, ulp: int | None) -> Tolerance:
    d = default_tolerance(t)
    return Tolerance(
        d.rtol if rtol is None else rtol,
        d.atol if atol is None else atol,
        d.ulp if ulp is None else ulp,
    )


class Errors:
    """The errors of one result: max abs, max rel, max ULP, and how many elements are
    over the tolerance (``bad``) of how many (``size``).  ``measure`` tells the verdict
    (``bad``, ``worst``) at once and the three maxima when they are first read (a
    report that shows only the rows over tolerance never computes the others')."""

    __slots__ = ("_maxima", "_stats", "bad", "size", "worst")

    def __init__(
        self,
        max_abs: float = 0.0,
        max_rel: float = 0.0,
        max_ulp: float = 0.0,
        bad: int = 0,
        size: int = 0,
        worst: int = -1,  # flat index of the worst element over tolerance (max abs), or -1
        stats: Callable[[], Errors] | None = None,
    ) -> None:
        self._maxima = (max_abs, max_rel, max_ulp)
        self._stats = stats  # computes the maxima on first use
        self.bad, self.size, self.worst = bad, size, worst

    def _max(self) -> tuple[float, float, float]:
        if self._stats is not None:
            self._maxima, self._stats = self._stats()._maxima, None
        return self._maxima

    @property
    def max_abs(self) -> float:
        return self._max()[0]

    @property
    def max_rel(self) -> float:
        return self._max()[1]

    @property
    def max_ulp(self) -> float:
        return self._max()[2]

    @property
    def over(self) -> bool:
        return self.bad > 0

    @staticmethod
    def settle(errors: list[Errors]) -> None:
        """Compute the maxima not computed yet of many results, on the machine's threads
        (NumPy releases the GIL on whole arrays)."""
        pending = [e for e in errors if e._stats is not None]
        if len(pending) > 1:
            from concurrent.futures import ThreadPoolExecutor

            with ThreadPoolExecutor(max(1, min(4, os.cpu_count() or 1))) as pool:
                list(pool.map(Errors._max, pending))

    def __repr__(self) -> str:
        a, r, u = self._max()
        return (
            f"Errors(max_abs={a!r}, max_rel={r!r}, max_ulp={u!r}, bad={self.bad}, "
            f"size={self.size}, worst={self.worst})"
        )


def _float_view(a: np.ndarray) -> np.ndarray:
    return a.astype(np.float64) if a.dtype != np.float64 else a


def measure(
    got: np.ndarray,
    exp: np.ndarray,
    tol: Tolerance,
    scale: Scale = None,
    elementwise: bool = False,
) -> Errors:
    """The errors of ``got`` against ``exp`` (arrays of one dtype and shape);
    ``scale``: each element's scale (an array, or a function of flat indices)."""
    got = np.asarray(got)
    exp = np.asarray(exp)
    if got.shape != exp.shape:
        return Errors(np.inf, np.inf, np.inf, max(exp.size, 1), exp.size)
    if got.dtype.kind == "c":
        parts = [
            measure(g, e, tol, scale, elementwise)
            for g, e in ((got.real, exp.real), (got.imag, exp.imag))
        ]
        a, b = parts
        return Errors(
            max(a.max_abs, b.max_abs),
            max(a.max_rel, b.max_rel),
            max(a.max_ulp, b.max_ulp),
            max(a.bad, b.bad),
            exp.size,
            a.worst if a.bad else b.worst,
        )
    if got.dtype.kind in "biu" or got.dtype == np.bool_:
        if np.array_equal(got, exp):
            return Errors(size=exp.size)
        g = got.astype(np.float64)
        e = exp.astype(np.float64)
        d = np.abs(g - e)
        bad = d > 0
        rel = np.divide(d, np.abs(e), out=np.zeros_like(d), where=e != 0)
        return _errors(d, rel, d, bad)
    if not elementwise:
        verdict = _normwise_verdict(got, exp, tol, scale)
        if verdict is not None:
            return Errors(
                bad=verdict[0],
                size=exp.size,
                worst=verdict[1],
                stats=lambda: _measure_floats(got, exp, tol, None, False),  # (maxima)
            )
    return _measure_floats(got, exp, tol, scale, elementwise)


def _measure_floats(
    got: np.ndarray, exp: np.ndarray, tol: Tolerance, scale: Scale, elementwise: bool
) -> Errors:
    """Every error of float ``got`` against ``exp``."""
    size = exp.size
    view = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}[got.dtype.itemsize]
    # only the elements whose bits differ carry an error: the rest are skipped (one
    # pass over the bits; a bitwise-equal result costs nothing more)
    differ = np.flatnonzero((got.view(view) != exp.view(view)).ravel())
    if differ.size == 0:
        return Errors(size=size)
    d, rel, ulps, bad = _pointwise(got, exp, differ, tol, _scale_at(scale, differ), elementwise)
    err = _errors(d, rel, ulps, bad)
    err.size = size
    if err.worst >= 0:
        err.worst = int(differ[err.worst])
    return err


def _pointwise(
    got: np.ndarray,
    exp: np.ndarray,
    at: np.ndarray,
    tol: Tolerance,
    scale: np.ndarray | None,
    elementwise: bool,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """abs, rel and ULP errors, and which are over tolerance, of the elements at flat
    indices ``at`` (``scale``: theirs)."""
    gs, es = got.ravel()[at], exp.ravel()[at]
    g = _float_view(gs)
    e = _float_view(es)
    with np.errstate(invalid="ignore", over="ignore"):
        d = np.abs(g - e)
    ulps = ulp_distance(gs, es)  # 0 where both are NaN; inf where a non-finite differs
    ae = np.abs(e)
    with np.errstate(divide="ignore", invalid="ignore"):
        rel = d / ae
    if not np.isfinite(d).all() or not np.isfinite(rel).all():  # NaN, inf, or +-0 pairs
        gn, en = np.isnan(g), np.isnan(e)
        same = (g == e) | (gn & en)
        d = np.where(same, 0.0, d)
        d[np.isnan(d)] = np.inf
        rel = np.where(same, 0.0, rel)
        rel[np.isnan(rel)] = np.inf
    s = ae if scale is None else np.abs(_float_view(scale))
    if not elementwise:
        s = np.maximum(s, largest_magnitude(exp))
    with np.errstate(invalid="ignore", over="ignore"):
        limit = tol.atol + tol.rtol * s
    return d, rel, ulps, (d > limit) & (ulps > tol.ulp)


def _scale_at(scale: Scale, at: np.ndarray) -> np.ndarray | None:
    if scale is None:
        return None
    return scale(at) if callable(scale) else np.asarray(scale).ravel()[at]


# a difference computed in f32 (or f64) is within this factor of the exact one
_PREFILTER = 1.0 - 2.0**-6


def candidates(got: np.ndarray, exp: np.ndarray, tol: Tolerance) -> np.ndarray | None:
    """The flat indices of the elements whose difference, computed in the values' own
    float type (narrow ones in f32), exceeds the tolerance of the largest magnitude:
    every element over a normwise tolerance is among them.  None when that tolerance
    is not finite."""
    limit = tol.atol + tol.rtol * largest_magnitude(exp)
    if not math.isfinite(limit):
        return None
    g, e = got, exp
    if g.dtype not in (np.float32, np.float64):
        g, e = g.astype(np.float32), e.astype(np.float32)
    with np.errstate(invalid="ignore", over="ignore"):
        d = np.asarray(np.subtract(g, e))  # (a 0-d result is a scalar)
        np.abs(d, out=d)
    return np.flatnonzero(~(d.ravel() <= limit * _PREFILTER))  # (NaN: a candidate)


def _normwise_verdict(
    got: np.ndarray, exp: np.ndarray, tol: Tolerance, scale: Scale = None
) -> tuple[int, int] | None:
    """(elements over, the worst one) of a normwise comparison, from the few elements
    whose difference, computed in the values' own float type (narrow ones in f32),
    exceeds the tolerance of the largest magnitude: every element over it is among
    them (the tolerance of each element is at least that one, with or without
    ``scale``).  None when that tolerance is not finite."""
    cand = candidates(got, exp, tol)
    if cand is None:
        return None
    if cand.size == 0:
        return 0, -1
    dd, _, _, bad = _pointwise(got, exp, cand, tol, _scale_at(scale, cand), False)
    if not bad.any():
        return 0, -1
    return int(bad.sum()), int(cand[int(np.argmax(np.where(bad, dd, -1.0)))])


def largest_magnitude(a: np.ndarray) -> float:
    """The largest finite magnitude of ``a``'s elements (0 for none)."""
    v = a.ravel()
    if v.size == 0:
        return 0.0
    with np.errstate(invalid="ignore"):  # (NaN: bfloat16's max warns)
        m = max(float(v.max()), -float(v.min()))
    if math.isfinite(m):
        return m
    finite = np.abs(v[np.isfinite(v)])
    return float(finite.max(initial=0)) if finite.size else 0.0


def _errors(d: np.ndarray, rel: np.ndarray, ulps: np.ndarray, bad: np.ndarray) -> Errors:
    """The maxima of elementwise abs / rel / ULP errors and the elements over."""
    return Errors(
        float(d.max(initial=0.0)),
        float(rel.max(initial=0.0)),
        float(ulps.max(initial=0.0)),
        int(bad.sum()),
        d.size,
        int(np.argmax(np.where(bad, d, -1.0).ravel())) if bad.any() else -1,
    )
