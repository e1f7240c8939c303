"""The adjacent-pair tree of a known float combiner along an operand's LAST axis: the
level-by-level NumPy schedule behind ``reduction._tree_serial`` (the association order
itself is documented in ``reduction``'s module docstring and never changes here; this
module only decides HOW its levels are computed, with the same bits).

A level is ``ufunc(x_0, x_1), ufunc(x_2, x_3), ...`` with an odd last element carried.
Each level is one whole-array NumPy call, whichever of these forms is cheapest:

* f32 / f64 add, contiguous pairs: the pairs viewed as complex numbers ``a + bi`` and
  multiplied by ``1 - i``: the real part ``a*1 - b*(-1)`` is ``a + b`` rounded once
  (products by +-1 are exact), in NumPy's vectorised complex loop.  The sums come out
  every other float of the complex buffer, so the next level is the plain form.
* otherwise ``ufunc`` on the two strided views of even and odd elements.
* the last levels of a small f32 / f64 sum (at most ``_TAIL_ROWS`` rows of 8 left):
  three levels per call, as ``np.add.reduce`` over rows of 8 with ``initial=-0.0``.
  NumPy's float add reduction sums a row of exactly 8 values as
  ``((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))`` (its pairwise summation,
  numpy/_core/src/umath/loops_utils.h.src), which is the adjacent-pair tree of an
  aligned block of 8, and ``-0.0 + s == s`` for every s (NaN aside, bit for bit).  A
  level that is not a multiple of 8 is padded with -0.0 at its end: where the tree
  carries an odd last node up unchanged, the padded tree adds it to -0.0 (or to a sum
  of -0.0s, which is -0.0), which gives the same value.  ``_rows_of_8_is_pair_tree``
  checks the NumPy behaviour once per process (tests/engine/test_reduce_tree_fast.py
  pins it); if it ever fails, the tail runs level by level.

Along the last axis every level is independent of how the array is split into rows, so
the lead dimensions ride along in every call.
"""

from __future__ import annotations

import functools

import numpy as np

# Float dtypes whose adjacent pairs (a, b) NumPy can add as one complex number z = a + bi:
# re(z * (1 - i)) = a*1 - b*(-1) is a + b rounded ONCE (products by +-1 are exact), and
# NumPy's complex multiply is vectorised where strided float adds are not.
_PAIR_AS_COMPLEX: dict[np.dtype, tuple[np.dtype, np.complexfloating]] = {
    np.dtype(np.float32): (np.dtype(np.complex64), np.complex64(1 - 1j)),
    np.dtype(np.float64): (np.dtype(np.complex128), np.complex128(1 - 1j)),
}
_PAIR_AS_COMPLEX_MIN = 16  # pairs per row below which the plain strided add is as fast

# Rows of 8 (all lead rows together) from which the tail runs as rows of 8: NumPy's
# reduce costs ~20 ns per row of 8 (more with lead rows), a level ~1.5-3 us per call.
# Measured (f32, process time, 2-core VM), plain levels -> rows of 8: 1-D 64 values
# 13.4 -> 8.0 us, 1000 values 17.6 -> 15 us; 20x20 along axis 1 13.5 -> 11.0 us,
# 16x16 17.5 -> 9.4 us; but 64x16 (128 rows) 11.7 -> 15.6 us and 64x3 5.6 -> 6.9 us,
# hence at most 64 rows and, with lead rows, at least 3 levels (k >= 8) at once.
_TAIL_ROWS = 64
_TAIL_DTYPES = (np.dtype(np.float32), np.dtype(np.float64))


def tree_last(x: np.ndarray, ufunc: np.ufunc) -> np.ndarray:
    """The adjacent-pair tree of ``ufunc`` along the last axis (size >= 1) of ``x``; the
    axis is kept (size 1).  ``ufunc`` is one IEEE operation per pair (np.add,
    np.multiply)."""
    pair = _PAIR_AS_COMPLEX.get(x.dtype) if ufunc is np.add else None
    tail = ufunc is np.add and x.dtype in _TAIL_DTYPES and _rows_of_8_is_pair_tree()
    if x.ndim == 1:
        return _tree_vector(x, ufunc, pair, tail)
    lead = x.shape[:-1]
    k = x.shape[-1]
    while k > 1:
        if tail and k >= 8 and (x.size // k) * ((k + 7) // 8) <= _TAIL_ROWS:
            return _tail_rows_of_8(x)
        half, odd = divmod(k, 2)
        n2 = 2 * half
        if pair is not None and half >= _PAIR_AS_COMPLEX_MIN and x.strides[-1] == x.itemsize:
            buf = np.empty(lead + (half + odd,), dtype=pair[0])
            np.multiply(x[..., :n2].view(pair[0]), pair[1], out=buf[..., :half])
            out = buf.real  # a strided view: the next level reads it in pairs
        else:
            out = np.empty(lead + (half + odd,), dtype=x.dtype)
            ufunc(x[..., 0:n2:2], x[..., 1:n2:2], out=out[..., :half])
        if odd:
            out[..., half] = x[..., k - 1]
        x = out
        k = half + odd
    return x


def _tree_vector(
    x: np.ndarray,
    ufunc: np.ufunc,
    pair: tuple[np.dtype, np.complexfloating] | None,
    tail: bool,
) -> np.ndarray:
    """``tree_last`` of a 1-D array: the same calls with plain (cheaper) indexing."""
    k = x.shape[0]
    while k > 1:
        if tail and 2 < k <= 8 * _TAIL_ROWS:
            return _tail_rows_of_8(x)
        half, odd = divmod(k, 2)
        if pair is not None and half >= _PAIR_AS_COMPLEX_MIN and x.strides[0] == x.itemsize:
            buf = np.empty(half + odd, dtype=pair[0])
            np.multiply(x[: 2 * half].view(pair[0]), pair[1], out=buf[:half])
            out = buf.real
        else:
            out = np.empty(half + odd, dtype=x.dtype)
            ufunc(x[0 : 2 * half : 2], x[1 : 2 * half : 2], out=out[:half])
        if odd:
            out[half] = x[k - 1]
        x = out
        k = half + odd
    return x


def _tail_rows_of_8(x: np.ndarray) -> np.ndarray:
    """The remaining levels of an f32 / f64 sum, three per ``np.add.reduce`` call over
    rows of 8 (module docstring); the last axis is kept (size 1)."""
    lead = x.shape[:-1]
    k = x.shape[-1]
    m = -(-k // 8)
    buf = np.full(lead + (8 * m,), -0.0, dtype=x.dtype)
    buf[..., :k] = x
    while True:
        rows = buf.reshape(lead + (m, 8))
        if m == 1:
            return np.add.reduce(rows, axis=-1, initial=-0.0)
        m2 = -(-m // 8)
        nxt = np.full(lead + (8 * m2,), -0.0, dtype=x.dtype)
        np.add.reduce(rows, axis=-1, out=nxt[..., :m], initial=-0.0)
        buf, m = nxt, m2


def pair_tree_levels(x: np.ndarray) -> np.ndarray:
    """Reference for the self-check: the tree along the last axis, one strided add per
    level (one IEEE addition per pair, nothing else)."""
    while x.shape[-1] > 1:
        k = x.shape[-1]
        half = k // 2
        out = np.add(x[..., 0 : 2 * half : 2], x[..., 1 : 2 * half : 2])
        x = np.concatenate([out, x[..., 2 * half :]], axis=-1)
    return x


@functools.cache
def _rows_of_8_is_pair_tree() -> bool:
    """Whether this NumPy's ``add.reduce`` over rows of 8 with ``initial=-0.0`` is the
    adjacent-pair tree of each row, bit for bit, for f32 and f64 (checked once, on
    values whose sums depend on the association order)."""
    i = np.arange(4096.0).reshape(512, 8)
    v = np.sin(i * 12.9898) * 10.0 ** ((i * 7) % 19 - 9)  # wide magnitudes, both signs
    v[::3, 3] = -v[::3, 2]  # exact cancellations: the sign of zero depends on order
    v[5] = -0.0
    for dtype in _TAIL_DTYPES:
        x = v.astype(dtype)
        with np.errstate(all="ignore"):
            got = np.add.reduce(x, axis=-1, initial=-0.0)
            want = pair_tree_levels(x)[:, 0]
        if got.tobytes() != want.tobytes():
            return False
    return True
