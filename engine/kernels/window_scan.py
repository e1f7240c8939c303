"""reduce_window by scans (spec "reduce_window"): O(n) prefix scans and O(n log w)
doubling instead of one pass per window position, for large windows of known combiners
on native dtypes.  ``window`` decides when a scan applies and falls back to its fold
when this module returns None.

Two kinds of combiner:

* exact (integer / boolean ops, float maximum / minimum): any schedule gives the same
  bits, so the window is reduced one dimension at a time (last dimension first), each
  dimension by ``ufunc.accumulate`` where every window is a prefix (or, for integers,
  a suffix), idempotent ops (max / min / and / or) on windows inside the operand by
  van Herk / Gil-Werman blocks (integers, floats without NaN: three passes), and else
  by doubling: level ``k`` folds ``2**k`` consecutive window elements, each window is
  the in-order fold of the levels of its count's bits.  Every fold is left-biased, so
  float max / min keep the first NaN in position order, as the in-order fold does
  (the sign of a zero result is fixed by the caller).
* ordered (float add / multiply, complex add): the in-order left fold from ``init``
  over the window positions, padding folded as ``init``, bit for bit.  Computed only
  for prefix windows along one dimension (the cumsum / cumprod pattern: every window
  starts in the low padding or at element 0): ``ufunc.accumulate`` is that left fold,
  started from the folded leading padding (the same bits for every window, else no
  scan); trailing padding folds ``init`` a few more times.

select_and_scatter's selection with a plain ``compare`` select (``select_positions``)
is the same kind of left-biased doubling over (value, index) pairs.
"""

from __future__ import annotations

import math
from typing import Protocol

import numpy as np

from ..region_analysis import RegionSummary

SCAN_MIN_WINDOW = 16  # windows with fewer positions along every dimension keep the fold
SCAN_WORK_RATIO = 4  # scan when the fold's element work exceeds this many operand passes


class _Geometry(Protocol):
    """What this module reads of ``window._WindowGeometry``."""

    @property
    def shape(self) -> tuple[int, ...]: ...

    @property
    def out_shape(self) -> tuple[int, ...]: ...

    @property
    def wd(self) -> tuple[int, ...]: ...

    @property
    def bd(self) -> tuple[int, ...]: ...

    @property
    def wdil(self) -> tuple[int, ...]: ...

    def axis(self, d: int) -> tuple[int, int, int, int, int]:
        """Output size, window size, stride, window dilation, low padding of ``d``."""
        ...


def _ranges(
    n: int, nw: int, w: int, s: int, wdil: int, low: int, windows: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per window ``o`` along one dimension (no base dilation; all windows or those of
    ``windows``): the first window position holding an operand element, that
    element's index, and how many do (at operand index steps of ``wdil``)."""
    o = np.arange(nw, dtype=np.int64) if windows is None else windows
    c = o * s - low  # operand index of position 0
    j_lo = np.clip(-(c // wdil), 0, None)  # ceil(-c / wdil), at least 0
    j_hi = np.minimum(w - 1, np.floor_divide(n - 1 - c, wdil))
    count = np.clip(j_hi - j_lo + 1, 0, None)
    return j_lo, c + j_lo * wdil, count


def _bits(a: np.ndarray) -> np.ndarray:
    """Raw bits of ``a`` as unsigned integers (complex as pairs of parts)."""
    if a.dtype.kind == "c":
        a = a.view(np.float32 if a.dtype == np.complex64 else np.float64)
    return a.view(np.dtype(f"u{a.dtype.itemsize}"))


def _same(a: np.ndarray, b: np.ndarray) -> bool:
    return bool(np.array_equal(_bits(np.ascontiguousarray(a)), _bits(np.ascontiguousarray(b))))


# ---- one dimension ------------------------------------------------------------------------


def _prefix(n: int, nw: int, w: int, s: int, low: int) -> tuple[int, int, int] | None:
    """Windows along one dimension (window dilation 1; window ``o`` holds operand
    elements ``o * s - low .. + w - 1``, clipped) of which every one holding an element
    starts in the low padding or at element 0: the first such window, the last one
    ending inside the operand (may be before the first), the last one; else None."""
    if n == 0:
        return None
    lo = max(0, -((w - 1 - low) // s))
    hi = min(nw - 1, (n - 1 + low) // s)
    if lo > hi or hi * s - low > 0:
        return None
    return lo, min(hi, (n - w + low) // s), hi


def _place(
    acc: np.ndarray,
    geometry: tuple[int, int, int, int],
    pre: tuple[int, int, int],
    empty: np.ndarray,
) -> np.ndarray:
    """Prefix windows (``_prefix``) from the running folds ``acc`` (axis 0): strided
    rows of ``acc``, its last row for windows reaching past the operand, ``empty`` for
    windows without element."""
    nw, w, s, low = geometry
    lo, full, hi = pre
    end = lo * s - low + w - 1  # window lo's last element when it ends inside
    if lo == 0 and full == nw - 1:
        return acc[end : end + (nw - 1) * s + 1 : s]
    out = np.empty((nw,) + acc.shape[1:], dtype=acc.dtype)
    out[:lo] = empty
    out[hi + 1 :] = empty
    if full >= lo:
        out[lo : full + 1] = acc[end : end + (full - lo) * s + 1 : s]
    if max(full + 1, lo) <= hi:
        out[max(full + 1, lo) : hi + 1] = acc[-1]
    return out


def _doubling(
    z: np.ndarray,
    uf: np.ufunc,
    start: np.ndarray,
    count: np.ndarray,
    step: int,
    empty: np.ndarray,
) -> np.ndarray:
    """Window ``o`` folds ``z[start_o + i * step]`` for ``i < count_o`` (axis 0), in
    order: level ``k`` holds folds of ``2**k`` elements, and bit ``k`` of ``count_o``
    (low bits first) appends one of them.  ``empty`` starts every fold (``init`` for
    idempotent ops, else the identity)."""
    out = np.empty((start.size,) + z.shape[1:], dtype=z.dtype)
    out[...] = empty
    pos = start.copy()
    level = z
    k = 0
    top = int(count.max(initial=0))
    while top >> k:
        span = (1 << k) * step
        sel = np.flatnonzero((count >> k) & 1)
        if sel.size:
            out[sel] = uf(out[sel], level[pos[sel]])
            pos[sel] += span
        if not top >> (k + 1):
            break
        level = uf(level[:-span], level[span:]) if level.shape[0] > span else level[:0]
        k += 1
    return out


def _reduce_axis(
    z: np.ndarray,
    axis: int,
    geometry: tuple[int, int, int, int, int],
    uf: np.ufunc,
    empty: np.ndarray,
    reorderable: bool,
    idempotent: bool = False,
) -> np.ndarray:
    """The folds of the windows of one dimension (``geometry``: output size, window
    size, stride, window dilation, low padding; windows without element: ``empty``).
    ``reorderable``: the op's bits do not depend on the order (integers)."""
    nw, w, s, wdil, low = geometry
    n = z.shape[axis]
    if w == 1 and s == 1 and low == 0 and nw == n:
        return z
    zz = np.moveaxis(z, axis, 0)
    out: np.ndarray | None = None
    if wdil == 1 and w > 1:
        pre = _prefix(n, nw, w, s, low)
        if pre is not None:
            out = _place(uf.accumulate(zz, axis=0, dtype=zz.dtype), (nw, w, s, low), pre, empty)
        elif reorderable:  # suffixes: prefixes of the reversed axis
            low_r = (nw - 1) * s - n + w - low
            pre = _prefix(n, nw, w, s, low_r)
            if pre is not None:
                acc = uf.accumulate(zz[::-1], axis=0, dtype=zz.dtype)
                out = _place(acc, (nw, w, s, low_r), pre, empty)[::-1]
    if out is None and w == 1:
        out = np.empty((nw,) + zz.shape[1:], dtype=z.dtype)
        out[...] = empty
        _, start, count = _ranges(n, nw, w, s, wdil, low)
        live = count > 0
        out[live] = zz[start[live]]
    elif out is None and idempotent and wdil == 1 and (reorderable or not np.isnan(zz).any()):
        out = _sliding(zz, uf, geometry, empty)
    elif out is None:
        _, start, count = _ranges(n, nw, w, s, wdil, low)
        out = _doubling(zz, uf, start, count, wdil, empty)
    return np.moveaxis(out, 0, axis)


def _sliding(
    zz: np.ndarray,
    uf: np.ufunc,
    geometry: tuple[int, int, int, int, int],
    empty: np.ndarray,
) -> np.ndarray:
    """Windows of an idempotent op (max / min / and / or; floats without NaN, so that
    the order cannot pick a NaN) along axis 0, window dilation 1: the windows inside
    the operand by van Herk / Gil-Werman (blocks of ``w``: a window is the fold of a
    block suffix and the next block's prefix, two ``accumulate`` passes), the others
    by doubling."""
    nw, w, s, _, low = geometry
    n = zz.shape[0]
    lo, hi = _inside(n, nw, w, s, 1, low)
    out = np.empty((nw,) + zz.shape[1:], dtype=zz.dtype)
    if lo <= hi:
        prefix, suffix = np.empty_like(zz), np.empty_like(zz)
        full = n // w * w
        for rows in (slice(0, full), slice(full, n)):
            part = zz[rows]
            if part.shape[0] == 0:
                continue
            width = min(w, part.shape[0])
            shape = (part.shape[0] // width, width) + zz.shape[1:]
            grid = part.reshape(shape)
            uf.accumulate(grid, axis=1, out=prefix[rows].reshape(shape))
            uf.accumulate(grid[:, ::-1], axis=1, out=suffix[rows].reshape(shape)[:, ::-1])
        a = lo * s - low
        stop = a + (hi - lo) * s + 1
        uf(suffix[a:stop:s], prefix[a + w - 1 : stop + w - 1 : s], out=out[lo : hi + 1])
    border = _border(nw, lo, hi)
    if border.size:
        _, start, count = _ranges(n, nw, w, s, 1, low, border)
        out[border] = _doubling(zz, uf, start, count, 1, empty)
    return out


def _inside(n: int, nw: int, w: int, s: int, wdil: int, low: int) -> tuple[int, int]:
    """The windows (a range, empty when ``lo > hi``) whose every position is an operand
    element."""
    lo = max(0, -(-low // s))
    hi = min(nw - 1, (n - 1 - (w - 1) * wdil + low) // s)
    return lo, hi


def _border(nw: int, lo: int, hi: int) -> np.ndarray:
    if lo > hi:
        return np.arange(nw)
    return np.concatenate([np.arange(0, lo), np.arange(hi + 1, nw)])


# ---- whole windows ------------------------------------------------------------------------


def _power(init: np.ndarray, times: np.ndarray, uf: np.ufunc, identity: np.ndarray) -> np.ndarray:
    """``init`` folded ``times`` times (``identity`` for 0), by squaring: exact for the
    integer ops it is used for (add, multiply, xor wrap around)."""
    out = np.full(times.shape, identity, dtype=init.dtype)
    base = np.full(times.shape, init, dtype=init.dtype)
    t = times.copy()
    while t.any():
        odd = (t & 1).astype(bool)
        out[odd] = uf(out[odd], base[odd])
        base = uf(base, base)
        t >>= 1
    return out


def _identity(init: np.ndarray, uf: np.ufunc) -> bool:
    """``uf(init, v) == v`` for every integer / boolean ``v``: for the bitwise,
    arithmetic and min / max ops, checking 0, 1, all ones, the minimum and the maximum
    decides it."""
    if init.dtype == np.bool_:
        probes = np.array([False, True])
    else:
        info = np.iinfo(init.dtype)
        probes = np.array([0, 1, info.min, info.max, info.max], dtype=init.dtype)
        probes[4] = ~probes[0]  # all ones
    return bool(np.array_equal(uf(init, probes), probes))


def exact_scan(
    x: np.ndarray,
    init: np.ndarray,
    geo: _Geometry,
    uf: np.ufunc,
    idempotent: bool,
) -> np.ndarray | None:
    """reduce_window of an exact combiner ``uf`` (integers, booleans, float max / min
    before the sign-of-zero fix): every dimension in turn, last first; padding folds
    ``init`` (idempotent ops: nothing, ``init`` starts the fold).  None when the window
    is small or there is base dilation."""
    if not worth_scanning(geo):
        return None
    reorderable = x.dtype.kind in "biu"
    if idempotent:
        empty = init
    else:
        empty = np.asarray(1 if uf is np.multiply else 0, dtype=x.dtype)
    z = x
    for d in reversed(range(x.ndim)):
        z = _reduce_axis(z, d, geo.axis(d), uf, empty, reorderable, idempotent)
    if reorderable and _identity(init, uf):  # folding init in changes nothing
        return np.asarray(z, dtype=x.dtype)
    if idempotent:
        return np.asarray(uf(init, z), dtype=x.dtype)
    if _same(uf(init, init), init):  # init folded k >= 1 times is init: pads add nothing
        return np.asarray(uf(init, z), dtype=x.dtype)
    valid = np.ones((), dtype=np.int64)
    for d in range(x.ndim):
        nw, w, s, wdil, low = geo.axis(d)
        valid = np.multiply.outer(valid, _ranges(x.shape[d], nw, w, s, wdil, low)[2])
    pads = math.prod(geo.wd) - valid
    folded = uf(init, _power(init, pads, uf, empty))
    return np.asarray(uf(folded, z), dtype=x.dtype)


def ordered_scan(
    x: np.ndarray,
    init: np.ndarray,
    geo: _Geometry,
    uf: np.ufunc,
) -> np.ndarray | None:
    """reduce_window of float add / multiply (complex add) as the in-order left fold
    from ``init``, padding folded as ``init``; prefix windows along one dimension only
    (else None)."""
    if not worth_scanning(geo):
        return None
    big = [d for d, w in enumerate(geo.wd) if w > 1]
    if len(big) != 1 or geo.wdil[big[0]] != 1:
        return None
    d = big[0]
    nw, w, s, _, low = geo.axis(d)
    n = x.shape[d]
    folds = _init_folds(init, w + 1, uf)
    pre = _prefix(n, nw, w, s, low)
    if pre is None:
        if n and max(0, -((w - 1 - low) // s)) <= min(nw - 1, (n - 1 + low) // s):
            return None  # some window holds elements but starts inside the operand
        out = np.empty(geo.out_shape, dtype=x.dtype)  # no window holds an element
        out[...] = folds[w]
        return out
    lo, full, hi = pre
    first, last = low - hi * s, low - lo * s  # leading padding positions of the windows
    lead = folds[first]
    if folds.strides[0] and not _same(folds[first : last + 1], np.full(last + 1 - first, lead)):
        return None  # windows would start from different folds of init
    z = x
    for e in range(x.ndim):  # the other dimensions: windows of one position
        if e != d:
            z = _reduce_axis(z, e, geo.axis(e), uf, folds[w], False)
    zz = np.moveaxis(z, d, 0)
    head = uf(lead, zz[0])
    if not _same(head, zz[0]):
        zz = np.array(zz)
        zz[0] = head
    out = _place(uf.accumulate(zz, axis=0), (nw, w, s, low), pre, folds[w])
    tail = max(full + 1, lo)
    if tail <= hi:
        out = np.array(out)
        past = np.arange(tail, hi + 1) * s - low + w - n  # trailing padding positions
        if not _fold_trailing(out[tail : hi + 1], past, init, uf):
            return None
    out = np.moveaxis(out, 0, d)
    return _blank_other_dims(out, x, d, geo, folds[w])


def _init_folds(init: np.ndarray, m: int, uf: np.ufunc) -> np.ndarray:
    """``init`` folded 1, 2, ..., ``m`` times (in order); one value repeated when
    folding ``init`` into itself changes no bit (+0 / -0 for add, 1 for multiply)."""
    if _same(uf(init, init), init):
        return np.broadcast_to(init, (m,))  # stride 0: the caller checks nothing
    return uf.accumulate(np.full(m, init, dtype=init.dtype))


def _fold_trailing(out: np.ndarray, trail: np.ndarray, init: np.ndarray, uf: np.ufunc) -> bool:
    """``out[o] = uf(out[o], init)`` ``trail[o]`` times, in place; False when that does
    not settle after a few rounds (then the caller folds instead)."""
    for t in range(1, int(trail.max(initial=0)) + 1):
        sel = np.flatnonzero(trail >= t)
        new = uf(out[sel], init)
        if _same(new, out[sel]):
            return True  # a fixed point: further rounds change nothing
        out[sel] = new
        if t >= 4:
            return bool(int(trail.max()) <= t)
    return True


def _blank_other_dims(
    out: np.ndarray, x: np.ndarray, d: int, geo: _Geometry, value: np.ndarray
) -> np.ndarray:
    """Windows lying in the padding of another (one-position) dimension: all ``w + 1``
    folds of ``init``."""
    for e in range(x.ndim):
        nw, w, s, _, low = geo.axis(e)
        if e == d or (s == 1 and low == 0 and nw == x.shape[e]):
            continue
        _, _, count = _ranges(x.shape[e], nw, w, s, 1, low)
        dead = count == 0
        if dead.any():
            idx = [slice(None)] * x.ndim
            idx[e] = dead
            out[tuple(idx)] = value
    return out


def worth_scanning(geo: _Geometry) -> bool:
    """A window of ``SCAN_MIN_WINDOW`` positions along some dimension, no base
    dilation, some output, and more element work in the position-by-position fold
    (window positions x windows) than in a few passes over the operand per dimension
    (strided windows that barely overlap fold faster position by position)."""
    k, size = math.prod(geo.wd), math.prod(geo.out_shape)
    return (
        all(b == 1 for b in geo.bd)
        and max(geo.wd, default=1) >= SCAN_MIN_WINDOW
        and size > 0
        and k * size > SCAN_WORK_RATIO * len(geo.wd) * math.prod(geo.shape)
    )


# ---- select_and_scatter ----------------------------------------------------------------

_KEEP = {"GE": np.greater_equal, "GT": np.greater, "LE": np.less_equal, "LT": np.less}


def select_direction(summary: RegionSummary, dtype: np.dtype) -> str | None:
    """The direction ``d`` when a select region is exactly ``return compare(d, a, b)``
    of its two arguments (``RegionSummary.compare``, either order) with a compare type
    that NumPy's comparisons of ``dtype`` implement (FLOAT on floats; SIGNED / UNSIGNED
    on matching integers), and ``d`` is GE / GT / LE / LT; else None."""
    if summary.compare is None:
        return None
    direction, ctype = summary.compare
    want = {"f": "FLOAT", "i": "SIGNED", "u": "UNSIGNED"}.get(dtype.kind)
    if direction not in _KEEP or want is None or ctype not in (None, want):
        return None
    return direction


def select_positions(
    padded: np.ndarray, wd: tuple[int, ...], ws: tuple[int, ...], direction: str
) -> np.ndarray | None:
    """select_and_scatter's selection for every window of ``padded`` (no window
    dilation): the flat (row-major) window position that the in-order scan keeps,
    where ``select(current, candidate)`` is ``compare(direction)``: for a total order
    (integers, floats without NaN) that is the first (GE / LE) or last (GT / LT) extreme
    of the window in position order.  One dimension at a time, last first, by doubling
    with left-biased combines.  None for floats with NaN."""
    if padded.dtype.kind == "f" and np.isnan(padded).any():
        return None
    keep = _KEEP[direction]
    vals = padded
    index: list[np.ndarray] = []  # per reduced dimension (last first): the chosen index
    for d in reversed(range(padded.ndim)):
        vals, index = _select_axis(vals, index, d, wd[d], ws[d], keep)
    pos = np.zeros(vals.shape, dtype=np.int64)
    for d, idx in zip(range(padded.ndim), reversed(index)):
        o = np.arange(vals.shape[d], dtype=np.int64).reshape((-1,) + (1,) * (vals.ndim - d - 1))
        pos = pos * wd[d] + (idx - o * ws[d])
    return pos


def _select_axis(
    vals: np.ndarray, index: list[np.ndarray], axis: int, w: int, s: int, keep: np.ufunc
) -> tuple[np.ndarray, list[np.ndarray]]:
    """Windows of ``w`` (stride ``s``) along ``axis``: the kept (value, indices) pair,
    the indices along ``axis`` appended."""
    n = vals.shape[axis]
    nw = (n - w) // s + 1
    here = np.broadcast_to(
        np.arange(n, dtype=np.int64).reshape((-1,) + (1,) * (vals.ndim - axis - 1)), vals.shape
    )
    level = [np.moveaxis(a, axis, 0) for a in [vals, *index, here]]
    out: list[np.ndarray] | None = None
    span = 1
    while True:
        if w & span:
            offset = 0 if out is None else _taken(w, span)
            part = [a[offset : offset + (nw - 1) * s + 1 : s] for a in level]
            out = part if out is None else _combine(out, part, keep)
        if span * 2 > w:
            break
        level = _combine([a[:-span] for a in level], [a[span:] for a in level], keep)
        span *= 2
    assert out is not None
    moved = [np.moveaxis(a, 0, axis) for a in out]
    return moved[0], moved[1:]


def _taken(w: int, span: int) -> int:
    """Window positions already folded before the level of ``span`` (lower bits)."""
    return w & (span - 1)


def _combine(left: list[np.ndarray], right: list[np.ndarray], keep: np.ufunc) -> list[np.ndarray]:
    """Left-biased: the left pair where ``keep(left value, right value)``."""
    k = keep(left[0], right[0])
    return [np.where(k, a, b) for a, b in zip(left, right)]
