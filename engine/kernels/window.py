"""Window kernels: reduce_window and select_and_scatter (spec "reduce_window",
"select_and_scatter"); the reduction helpers they share live in ``reduction``.

reduce_window folds every window from its init value over the window positions in
ascending order (another valid schedule): one NumPy op (known combiner) or region call
per position on strided views of all windows at once; windows of 32+ positions use the
adjacent-pair tree on a copy instead.  Known combiners on native dtypes fold in place
into the output buffer, reading the operand itself (no padded copy): padding positions
are skipped for idempotent ops (max/min/and/or) and folded as ``init`` otherwise.
Windows of ``window_scan.SCAN_MIN_WINDOW`` (16)+ positions along some dimension take
scans instead (``window_scan``: the same bits, O(n) or O(n log w) whole-array passes
instead of one per position): exact combiners in any geometry without base dilation,
float add / multiply only for prefix windows (cumsum / cumprod) where the fold above
is the in-order one (not the pair tree: up to 2**26 window elements the pair tree's
bits stay).

select_and_scatter scans each window in position order (one region call per
position), or, for a plain ``compare`` select and 16+ positions, picks the same
element by doubling (``window_scan.select_positions``); an ``add`` scatter on native
types is one ``np.add.at`` (in source order, as the rounds of region calls fold).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np

from ...parser.errors import InterpreterError, UnsupportedError
from ...parser.ir import QuantizedType, Type
from ...shape_inference.optable import OP_TABLE, kernel
from ..dtypes import dtype_of
from ..values import RegionFn
from . import window_scan
from .quantization import reduce_targets, select_and_scatter_targets
from .reduction import (
    Arrays,
    as_dtype,
    call_region,
    combiners,
    element_type_of,
    exact_binary,
    ieee_extremum,
    is_native_int,
    promote,
    reduce_ufunc,
    tree_region,
    ufunc_of,
)
from .window_scan import (
    exact_scan,
    ordered_scan,
    select_direction,
    select_positions,
    worth_scanning,
)

# --------------------------------------------------------------------------------------
# reduce_window
# --------------------------------------------------------------------------------------


def _pad(
    x: np.ndarray,
    value: np.ndarray,
    low: Sequence[int],
    high: Sequence[int],
    interior: Sequence[int],
) -> np.ndarray:
    """spec "pad" with a scalar value; negative padding crops."""
    dilated = [0 if s == 0 else (s - 1) * (i + 1) + 1 for s, i in zip(x.shape, interior)]
    full = [max(lo, 0) + d + max(hi, 0) for lo, d, hi in zip(low, dilated, high)]
    out = np.full(full, value, dtype=x.dtype)
    dst = tuple(
        slice(max(lo, 0), max(lo, 0) + d, i + 1) for lo, d, i in zip(low, dilated, interior)
    )
    out[dst] = x
    crop = tuple(
        slice(max(-lo, 0), max(f - max(-hi, 0), max(-lo, 0))) for lo, hi, f in zip(low, high, full)
    )
    return out[crop]


def _windows(
    padded: np.ndarray,
    window_dimensions: Sequence[int],
    strides: Sequence[int],
    dilations: Sequence[int],
) -> np.ndarray:
    """View of shape ``num_windows + window_dimensions`` (spec reduce_window C15)."""
    nw = []
    for p, w, s, d in zip(padded.shape, window_dimensions, strides, dilations):
        span = (w - 1) * d + 1
        nw.append(0 if p == 0 or span > p else (p - span) // s + 1)
    if 0 in nw or padded.size == 0:
        return np.empty(tuple(nw) + tuple(window_dimensions), dtype=padded.dtype)
    st = padded.strides
    # as_strided rebuilds the array from its __array_interface__, whose type string
    # ('<f1') names no dtype for ml_dtypes' types (f8, f4, int4, bf16...): stride their
    # bytes as same-width unsigned integers and view the result back.
    odd = padded.dtype.isbuiltin != 1  # 2: a user-defined (ml_dtypes) type
    base = padded.view(np.dtype(f"u{padded.dtype.itemsize}")) if odd else padded
    view = np.lib.stride_tricks.as_strided(
        base,
        shape=tuple(nw) + tuple(window_dimensions),
        strides=tuple(a * s for a, s in zip(st, strides))
        + tuple(a * d for a, d in zip(st, dilations)),
        writeable=False,
    )
    return view.view(padded.dtype) if odd else view


def _window_positions(window_dimensions: Sequence[int]) -> list[tuple[int, ...]]:
    if not window_dimensions:
        return [()]
    k = int(np.prod(window_dimensions))
    idx = np.unravel_index(np.arange(k), tuple(window_dimensions))
    return [tuple(int(a[j]) for a in idx) for j in range(k)]


def _norm(v: Sequence[int] | None, rank: int, default: int = 1) -> tuple[int, ...]:
    return tuple(int(a) for a in v) if v is not None else (default,) * rank


def _padding(padding: Any, rank: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
    if padding is None:
        return (0,) * rank, (0,) * rank
    p = np.asarray(padding, dtype=np.int64).reshape(rank, 2) if rank else np.zeros((0, 2), np.int64)
    return tuple(int(a) for a in p[:, 0]), tuple(int(a) for a in p[:, 1])


_WINDOW_TREE_MIN = 32  # windows with more positions reduce as a tree over a copy
_WINDOW_TREE_MAX_ELEMS = 1 << 26


@kernel("stablehlo.reduce_window", quantized="native", quantized_targets=reduce_targets)
def reduce_window(
    *operands: np.ndarray,
    result_types: tuple[Type, ...],
    window_dimensions: Sequence[int],
    window_strides: Sequence[int] | None = None,
    base_dilations: Sequence[int] | None = None,
    window_dilations: Sequence[int] | None = None,
    padding: Any = None,
    body: RegionFn,
) -> Arrays:
    """spec "reduce_window": pad with init values and dilate, view the windows as strided
    views, and fold each window from its init value: ``body(...body(body(init, w_0),
    w_1)..., w_{k-1})`` over window positions in ascending order (a valid in-order
    schedule, XLA's), one region call per position on whole tensors.  Windows with many
    positions of a body that folds (``_folds_as_tree``) use the adjacent-pair tree of
    ``reduce`` instead."""
    n = len(operands) // 2
    if any(v.ndim for v in operands[n:]):
        # the verifier accepts them, as upstream's does; spec (I2) says 0-dimensional
        raise UnsupportedError(
            "init values of rank > 0 (spec reduce_window (I2): init_values are "
            "0-dimensional tensors)",
            op="stablehlo.reduce_window",
            label="reduce_window_i2",
        )
    dtypes = [dtype_of(t) for t in result_types]
    xs = promote("stablehlo.reduce_window", operands[:n], result_types)
    inits = [v.reshape(()) for v in promote("stablehlo.reduce_window", operands[n:], result_types)]
    rank = xs[0].ndim
    wd = _norm(window_dimensions, rank)
    ws = _norm(window_strides, rank)
    bd = _norm(base_dilations, rank)
    wdil = _norm(window_dilations, rank)
    low, high = _padding(padding, rank)
    geo = _WindowGeometry(tuple(xs[0].shape), wd, ws, bd, wdil, low, high)
    scanned = _scan(body, n, result_types, geo, xs, inits)
    if scanned is not None:
        return scanned
    fast = _inplace_fold_plan(body, n, result_types, geo)
    if fast is not None:
        return tuple(_fold_inplace(x, v, geo, uf, op) for x, v, (uf, op) in zip(xs, inits, fast))
    interior = tuple(b - 1 for b in bd)
    wins = [_windows(_pad(x, v, low, high, interior), wd, ws, wdil) for x, v in zip(xs, inits)]
    out_shape = wins[0].shape[:rank]
    k = int(np.prod(wd)) if rank else 1
    size = int(np.prod(out_shape)) if rank else 1
    if size == 0:
        return tuple(np.empty(out_shape, dtype=dt) for dt in dtypes)
    step = _fold_step(body, n, result_types)
    if _uses_pair_tree(k, size) and _folds_as_tree(body, n):
        flat = tuple(np.ascontiguousarray(w).reshape(out_shape + (k,)) for w in wins)
        ts = tree_region(flat, rank, step, dtypes)
        ts = tuple(np.squeeze(t, axis=rank) for t in ts)
        res = step(tuple(np.broadcast_to(v, out_shape) for v in inits), ts)
        return tuple(
            np.array(np.broadcast_to(as_dtype(r, dt), out_shape)) for r, dt in zip(res, dtypes)
        )
    acc: Arrays = tuple(np.broadcast_to(v, out_shape) for v in inits)
    lead = (slice(None),) * rank
    for pos in _window_positions(wd):
        acc = step(acc, tuple(w[lead + pos] for w in wins))
        acc = tuple(np.broadcast_to(as_dtype(a, dt), out_shape) for a, dt in zip(acc, dtypes))
    return tuple(np.array(a) for a in acc)


_NATIVE_FLOATS = (np.dtype(np.float16), np.dtype(np.float32), np.dtype(np.float64))
_SIGN_INT: dict[int, np.dtype] = {
    2: np.dtype(np.int16),
    4: np.dtype(np.int32),
    8: np.dtype(np.int64),
}
Box = tuple[tuple[int, int], ...]  # per dimension a half-open range of windows
_INPLACE_MIN_WINDOWS = 1 << 12  # with 32+ positions, fewer windows use the pair tree


@dataclass(frozen=True)
class _WindowGeometry:
    """Shapes of spec reduce_window (C15): the operand, window attributes and padding."""

    shape: tuple[int, ...]
    wd: tuple[int, ...]
    ws: tuple[int, ...]
    bd: tuple[int, ...]
    wdil: tuple[int, ...]
    low: tuple[int, ...]
    high: tuple[int, ...]

    @cached_property
    def out_shape(self) -> tuple[int, ...]:
        out = []
        for n, w, s, b, d, lo, hi in zip(
            self.shape, self.wd, self.ws, self.bd, self.wdil, self.low, self.high
        ):
            size = max(lo + (0 if n == 0 else (n - 1) * b + 1) + hi, 0)
            span = (w - 1) * d + 1
            out.append(0 if size == 0 or span > size else (size - span) // s + 1)
        return tuple(out)

    def axis(self, d: int) -> tuple[int, int, int, int, int]:
        """Output size, window size, stride, window dilation, low padding of ``d``."""
        return self.out_shape[d], self.wd[d], self.ws[d], self.wdil[d], self.low[d]

    @cached_property
    def lattice(self) -> tuple[tuple[tuple[int, int, int, int, int] | None, ...], ...]:
        """Per dimension and window position ``j``: the windows whose element ``j`` is an
        operand element (not padding nor a base-dilation hole), ``first, last, period``,
        and their operand elements ``start, step``; None when there is none."""
        table = []
        for dim, nw in enumerate(self.out_shape):
            n, s, b = self.shape[dim], self.ws[dim], self.bd[dim]
            row: list[tuple[int, int, int, int, int] | None] = []
            for j in range(self.wd[dim]):
                c = j * self.wdil[dim] - self.low[dim]  # window o holds dilated o * s + c
                o_min, o_max = max(0, -(c // s)), min(nw - 1, ((n - 1) * b - c) // s)
                first = next((o for o in range(o_min, o_min + b) if (o * s + c) % b == 0), None)
                if n == 0 or first is None or first > o_max:
                    row.append(None)
                    continue
                period = b // math.gcd(s, b)
                last = first + (o_max - first) // period * period
                row.append((first, last, period, (first * s + c) // b, period * s // b))
            table.append(tuple(row))
        return tuple(table)

    @cached_property
    def positions(self) -> list[tuple[int, ...]]:
        return _window_positions(self.wd)

    def slices(self, dim: int, j: int, lo: int, hi: int) -> tuple[slice, slice] | None:
        """Window position ``j`` along ``dim``, windows ``lo <= o < hi``: the windows
        of ``lattice`` among them, relative to ``lo``, and their operand elements, as
        two slices of equal length; None when there is none."""
        entry = self.lattice[dim][j]
        if entry is None:
            return None
        first, last, period, i0, istep = entry
        if lo > first:
            skip = -((first - lo) // period)
            first, i0 = first + skip * period, i0 + skip * istep
        last = min(last, hi - 1)
        if first > last:
            return None
        count = (last - first) // period + 1
        return (
            slice(first - lo, first - lo + (count - 1) * period + 1, period),
            slice(i0, i0 + (count - 1) * istep + 1, istep),
        )

    @cached_property
    def boxes(self) -> list[Box]:
        """Disjoint boxes of windows covering the output: first the interior (windows
        whose every position is an operand element, along dimensions without base
        dilation), then the border boxes around it."""
        whole = tuple((0, w) for w in self.out_shape)
        inner = []
        for d, nw in enumerate(self.out_shape):
            if self.bd[d] != 1:
                inner.append((0, nw))
                continue
            found = [self.slices(d, j, 0, nw) for j in range(self.wd[d])]
            sl = [s for s in found if s is not None]
            if len(sl) != len(found):
                return [whole]
            a, b = max(s[0].start for s in sl), min(s[0].stop for s in sl)
            if a >= b:
                return [whole]
            inner.append((a, b))
        return [tuple(inner)] + _outside_boxes(tuple(inner), self.out_shape)


def _outside_boxes(inner: Box, shape: tuple[int, ...]) -> list[Box]:
    """Disjoint boxes covering ``shape`` minus the box ``inner`` (non-empty)."""
    boxes = []
    for d, (a, b) in enumerate(inner):
        rest = tuple((0, n) for n in shape[d + 1 :])
        if a > 0:
            boxes.append(inner[:d] + ((0, a),) + rest)
        if b < shape[d]:
            boxes.append(inner[:d] + ((b, shape[d]),) + rest)
    return boxes


def _uses_pair_tree(k: int, size: int) -> bool:
    """Does the general fold combine a window's ``k`` positions as the adjacent-pair tree
    (``size`` windows), rather than left to right?  The fast paths follow the same
    schedule, so they read it here."""
    return k >= _WINDOW_TREE_MIN and size * k <= _WINDOW_TREE_MAX_ELEMS


def _folds_as_tree(body: RegionFn, n: int) -> bool:
    """May a window's positions combine as a tree?  Only when every result's combiner
    is an op that folds (the op table's ufunc column: add, multiply, max, min, and, or,
    xor), so the schedule changes no more than rounding.  Any other body (subtract, or
    a region that is not one op per result) folds in order from the init value, as
    XLA's HloEvaluator does: ``acc = body(acc, element)`` over the window's positions,
    row-major (a non-commutative reducer's result depends on it)."""
    ops = combiners(body, n)
    return ops is not None and all(
        any(reduce_ufunc(op, kind) is not None for kind in "bifc") for op in ops
    )


def _native_combiners(
    body: RegionFn, n: int, result_types: Sequence[Type]
) -> tuple[str, ...] | None:
    """The body's per-operand combiners when every one is known and no result is
    quantized (the fast paths work on native dtypes), else None."""
    if any(isinstance(element_type_of(t), QuantizedType) for t in result_types):
        return None
    ops = combiners(body, n)
    if not ops or len(ops) != n:
        return None
    return ops


def _inplace_fold_plan(
    body: RegionFn, n: int, result_types: Sequence[Type], geo: _WindowGeometry
) -> list[tuple[np.ufunc, str]] | None:
    """Per operand (ufunc, op) when every operand's combiner is a NumPy ufunc that is the
    spec op on its (native) dtype and folding in place gives the old path's bits: always
    for idempotent ops (max/min/and/or: padding equals init, already folded in) and
    exact integer/bool ops; float/complex add/multiply only where the old path folds
    sequentially (not the pair tree); non-idempotent ops without base dilation."""
    ops = _native_combiners(body, n, result_types)
    if ops is None:
        return None
    k, size = math.prod(geo.wd), math.prod(geo.out_shape)
    tree = _uses_pair_tree(k, size)
    if tree and size < _INPLACE_MIN_WINDOWS:
        return None  # few windows of many positions: the tree's log2(k) calls are faster
    plan = []
    for op, t in zip(ops, result_types):
        dt = dtype_of(t)
        if exact_binary(op, t) is None:
            return None
        if dt == np.bool_:
            uf = reduce_ufunc(op, "b")
        elif is_native_int(dt):
            uf = reduce_ufunc(op, "i")
        elif dt in _NATIVE_FLOATS and ieee_extremum(op):
            uf = _extremum_ufunc(op)  # zeros fixed later
        elif dt in _NATIVE_FLOATS or (dt.kind == "c" and reduce_ufunc(op, "c") is not None):
            uf = reduce_ufunc(op, "f")
            if tree:
                return None
        else:
            return None
        if uf is None or (not _idempotent(op, dt) and any(b != 1 for b in geo.bd)):
            return None
        plan.append((uf, op))
    return plan


def _scan(
    body: RegionFn,
    n: int,
    result_types: Sequence[Type],
    geo: _WindowGeometry,
    xs: Sequence[np.ndarray],
    inits: Sequence[np.ndarray],
) -> Arrays | None:
    """reduce_window by scans (``window_scan``) for large windows of known combiners
    on native dtypes, or None: exact combiners (integer / boolean ops, float max / min)
    in any geometry without base dilation; float add / multiply (complex add) only
    where the fold runs in order (not the pair tree) and the windows are prefixes."""
    if not worth_scanning(geo):
        return None
    ops = _native_combiners(body, n, result_types)
    if ops is None:
        return None
    k, size = math.prod(geo.wd), math.prod(geo.out_shape)
    tree = _uses_pair_tree(k, size)
    out = []
    for x, v, op, t in zip(xs, inits, ops, result_types):
        dt = dtype_of(t)
        if exact_binary(op, t) is None:
            return None
        r: np.ndarray | None = None
        if dt == np.bool_ or is_native_int(dt):
            uf = reduce_ufunc(op, "b" if dt == np.bool_ else "i")
            r = None if uf is None else exact_scan(x, v, geo, uf, _idempotent(op, dt))
        elif dt in _NATIVE_FLOATS and ieee_extremum(op):
            uf = _extremum_ufunc(op)
            r = exact_scan(x, v, geo, uf, True)
            if r is not None:
                _fix_zero_signs(r, x, v, geo, uf, scan=True)
        elif not tree and (
            dt in _NATIVE_FLOATS or (dt.kind == "c" and reduce_ufunc(op, "c") is not None)
        ):
            uf = reduce_ufunc(op, "f")
            r = None if uf is None else ordered_scan(x, v, geo, uf)
        if r is None:
            return None
        out.append(r)
    return tuple(out)


def _idempotent(op: str, dtype: np.dtype) -> bool:
    """``f(f(a, b), b) == f(a, b)``: folding ``init`` again changes nothing (the row's
    ``idempotent`` trait; on i1 also an op whose boolean fold is ``and`` / ``or``)."""
    row = OP_TABLE.get(op)
    return (row is not None and "idempotent" in row.traits) or (
        dtype == np.bool_ and reduce_ufunc(op, "b") in (np.logical_and, np.logical_or)
    )


def _extremum_ufunc(op: str) -> np.ufunc:
    """np.maximum / np.minimum of IEEE maximum / minimum: the op on floats but for the
    sign of a zero result (``_fix_zero_signs``)."""
    uf = ufunc_of(op)
    assert uf is not None and uf.extremum
    return uf.ufunc


def _fold_inplace(
    x: np.ndarray, init: np.ndarray, geo: _WindowGeometry, uf: np.ufunc, op: str
) -> np.ndarray:
    """spec reduce_window for one operand with a known combiner, folded into ONE output
    buffer: ``uf(acc, x_view, out=acc)`` per window position in ascending order, where
    the view holds the windows whose element at that position is an operand element.
    Padding / dilation positions fold ``init`` (idempotent ops: skipped, since ``init``
    already is in every window's fold).  No padded copy of the operand (``_fold_boxes``
    splits the windows into the interior and border boxes)."""
    acc = np.full(geo.out_shape, init, dtype=x.dtype)
    if acc.size == 0:
        return acc
    _fold_boxes(acc, x, init, geo, uf, None if _idempotent(op, x.dtype) else init)
    if x.dtype in _NATIVE_FLOATS and ieee_extremum(op):
        _fix_zero_signs(acc, x, init, geo, uf)
    return acc


def _fold_boxes(
    acc: np.ndarray,
    x: np.ndarray,
    init: np.ndarray,
    geo: _WindowGeometry,
    uf: np.ufunc,
    pad_value: np.ndarray | None,
) -> None:
    """Fold every box of ``geo.boxes`` into ``acc`` (initialised to ``init``): the
    whole output in place when it is one box, else each box in a contiguous buffer
    copied into place (NumPy copies a strided ``out`` that is also an input, and its
    loops are much slower on one).  Not split over threads: the strided loads are
    memory-bound, and two threads measured no faster on the 2-core machine."""
    boxes = geo.boxes
    if len(boxes) == 1:
        _fold_box(acc, x, geo, boxes[0], uf, pad_value)
        return
    for box in boxes:
        if any(b <= a for a, b in box):
            continue
        buf = np.full(tuple(b - a for a, b in box), init, dtype=acc.dtype)
        _fold_box(buf, x, geo, box, uf, pad_value)
        acc[tuple(slice(a, b) for a, b in box)] = buf


def _fold_box(
    buf: np.ndarray,
    x: np.ndarray,
    geo: _WindowGeometry,
    box: Box,
    uf: np.ufunc,
    pad_value: np.ndarray | None,
) -> None:
    """``buf = uf(buf, w_p)`` over the windows of ``box`` for each window position p
    (ascending); where ``w_p`` is padding, ``uf(buf, pad_value)`` (skipped when
    ``pad_value`` is None; else there is no base dilation and the valid windows of a
    position are a box)."""
    per_dim = [
        [geo.slices(d, j, a, b) for j in range(w)] for d, (w, (a, b)) in enumerate(zip(geo.wd, box))
    ]
    for pos in geo.positions:
        found = [per_dim[d][j] for d, j in enumerate(pos)]
        sl = [s for s in found if s is not None]
        valid = len(sl) == len(found)
        if valid:
            view = buf[_index(s[0] for s in sl)]  # the Ellipsis keeps 0-d views
            uf(view, x[_index(s[1] for s in sl)], out=view)
        if pad_value is None:
            continue
        rest = (
            _outside_boxes(tuple((s[0].start, s[0].stop) for s in sl), buf.shape)
            if valid
            else [tuple((0, n) for n in buf.shape)]
        )
        for r in rest:
            view = buf[_index(slice(a, b) for a, b in r)]
            uf(view, pad_value, out=view)


def _index(slices: Iterable[slice]) -> tuple[Any, ...]:
    """A basic index of ``slices`` then an Ellipsis (which keeps 0-d results views)."""
    return (*slices, ...)


def _fix_zero_signs(
    acc: np.ndarray,
    x: np.ndarray,
    init: np.ndarray,
    geo: _WindowGeometry,
    uf: np.ufunc,
    scan: bool = False,
) -> None:
    """IEEE maximum / minimum order -0 < +0, ``np.maximum`` / ``np.minimum`` do not.  A
    window whose result is zero holds no NaN and no value of the other sign, so the
    same fold on the bits as signed integers is negative exactly when the zero is -0
    (max: no +0 in the window; min: some -0)."""
    zero = acc == 0
    if not zero.any():
        return
    it = _SIGN_INT[x.dtype.itemsize]
    scanned = exact_scan(x.view(it), init.view(it), geo, uf, True) if scan else None
    if scanned is not None:
        bits = scanned
    else:
        bits = np.full(geo.out_shape, init.view(it), dtype=it)
        _fold_boxes(bits, x.view(it), init.view(it), geo, uf, None)
    np.bitwise_and(bits, np.iinfo(it).min, out=bits)  # the sign bit: -0 or +0
    np.copyto(acc.view(it), bits, where=zero)


def _fold_step(
    body: RegionFn, n: int, result_types: Sequence[Type]
) -> Callable[[Arrays, Arrays], Arrays]:
    """``(acc, x) -> body(acc, x)``: NumPy functions for known combiners (exactly the
    body's semantics), else a region call."""
    ops = _native_combiners(body, n, result_types)
    fns = [exact_binary(op, t) for op, t in zip(ops, result_types)] if ops else []
    exact = [f for f in fns if f is not None]
    if fns and len(exact) == len(fns):
        return lambda acc, xs: tuple(f(a, x) for f, a, x in zip(exact, acc, xs))
    return lambda acc, xs: call_region(body, *acc, *xs)


# --------------------------------------------------------------------------------------
# select_and_scatter
# --------------------------------------------------------------------------------------


@kernel(
    "stablehlo.select_and_scatter", quantized="native", quantized_targets=select_and_scatter_targets
)
def select_and_scatter(
    operand: np.ndarray,
    source: np.ndarray,
    init_value: np.ndarray,
    *,
    result_type: Type,
    window_dimensions: Sequence[int] | None = None,
    window_strides: Sequence[int] | None = None,
    padding: Any = None,
    select: RegionFn,
    scatter: RegionFn,
) -> np.ndarray:
    """spec "select_and_scatter".

    Selection: for every window at once, a running (value, position) pair starts at the
    window's first operand position and, for each later one ``p`` in ascending order,
    keeps the current one where ``select(current, w_p)`` is true (one region call per
    window position).  Padding positions are never selected (the spec's
    ``reduce_window_without_init``: no padding value takes part, as in the StableHLO
    reference interpreter and XLA); a window of padding only scatters nowhere.
    Scatter: each result element is ``init_value`` folded with the source values that
    selected it, in ascending source-index order (rounds of one region call, one round
    per multiplicity).
    """
    dtype = dtype_of(result_type)
    rank = operand.ndim
    wd = _norm(window_dimensions, rank)
    ws = _norm(window_strides, rank)
    low, high = _padding(padding, rank)
    init, source = promote("stablehlo.select_and_scatter", (init_value, source), (result_type,) * 2)
    init = init.reshape(())
    padded = _pad(operand, as_dtype(init_value, operand.dtype).reshape(()), low, high, (0,) * rank)
    wins = _windows(padded, wd, ws, (1,) * rank)
    nw = wins.shape[:rank]
    result = np.full(operand.shape, init, dtype=dtype)
    if rank == 0:  # one window holding the operand itself
        (new,) = call_region(scatter, init, as_dtype(source, dtype))[:1]
        return np.array(as_dtype(new, dtype)).reshape(())
    if int(np.prod(nw)) == 0 or operand.size == 0:
        return result
    # Where the operand is (padding positions are False): None without padding.
    real = None
    if any(lo > 0 for lo in low) or any(hi > 0 for hi in high):
        real = _pad(np.ones(operand.shape, bool), np.array(False), low, high, (0,) * rank)
    cur_pos = _selected(padded, wins, wd, ws, select, real)
    offs = np.unravel_index(cur_pos, wd)
    starts = np.indices(nw, dtype=np.int64) if rank else np.zeros((0,), np.int64)
    target = []
    valid = np.ones(nw, dtype=bool)
    for d in range(rank):
        t = starts[d] * ws[d] + offs[d] - low[d]
        valid &= (t >= 0) & (t < operand.shape[d])
        target.append(t)
    if source.shape != tuple(nw):
        raise InterpreterError(
            f"'stablehlo.select_and_scatter' op source shape {source.shape} != windows {tuple(nw)}"
        )
    src = as_dtype(source, dtype)
    flat_t = (
        np.ravel_multi_index([t[valid] for t in target], operand.shape)
        if rank
        else np.zeros(int(valid.sum()), np.int64)
    )
    vals = src[valid]  # row-major = ascending source index
    if (uf := _scatter_ufunc(scatter, result_type, dtype)) is not None:
        out = result.reshape(-1)
        uf.at(out, flat_t, vals)  # one target after another, in source order
        return out.reshape(operand.shape)
    step = _fold_step(scatter, 1, (result_type,))
    return _scatter_rounds(result.reshape(-1), flat_t, vals, step, dtype).reshape(operand.shape)


def _selected(
    padded: np.ndarray,
    wins: np.ndarray,
    wd: tuple[int, ...],
    ws: tuple[int, ...],
    select: RegionFn,
    real: np.ndarray | None = None,
) -> np.ndarray:
    """Per window the flat position that select_and_scatter's in-order scan keeps:
    a running (value, position) pair from the first operand position, replaced by each
    later operand position ``p`` where ``select(current, w_p)`` is false; ``real``
    (padded like the operand, False on padding) keeps padding out of the scan.  Windows
    of 16+ positions along a dimension with a plain ``compare`` select take
    ``select_positions`` (the same choice, by doubling; padding then holds a value that
    loses every compare, when no operand element equals it); else one region call per
    position."""
    rank = padded.ndim
    nw = wins.shape[:rank]
    direction = select_direction(select.summary, padded.dtype)
    k, levels = math.prod(wd), max(wd).bit_length()
    work = window_scan.SCAN_WORK_RATIO * padded.size * levels * (1 + rank)
    scan_pays = k * math.prod(nw) * 4 > work  # element work of the two schedules
    if direction is not None and max(wd) >= window_scan.SCAN_MIN_WINDOW and scan_pays:
        fast = padded if real is None else _losing_padding(padded, real, direction)
        pos = None if fast is None else select_positions(fast, wd, ws, direction)
        if pos is not None:
            return pos
    lead = (slice(None),) * rank
    positions = _window_positions(wd)
    cur_val = wins[lead + positions[0]]
    cur_pos = np.zeros(nw, dtype=np.int64)
    real_wins = None if real is None else _windows(real, wd, ws, (1,) * rank)
    cur_real = None if real_wins is None else real_wins[lead + positions[0]]
    for j, p in enumerate(positions[1:], start=1):
        cand = wins[lead + p]
        (keep,) = call_region(select, cur_val, cand)[:1]
        take = ~np.broadcast_to(np.asarray(keep, dtype=bool), nw)
        if real_wins is not None and cur_real is not None:
            cand_real = real_wins[lead + p]
            take = cand_real & (take | ~cur_real)  # a real candidate beats padding
            cur_real = cur_real | cand_real
        cur_val = np.where(take, cand, cur_val)
        cur_pos = np.where(take, j, cur_pos)
    return cur_pos


def _losing_padding(padded: np.ndarray, real: np.ndarray, direction: str) -> np.ndarray | None:
    """``padded`` with its padding replaced by the value every ``compare(direction)``
    select drops (the lowest for GE / GT, the highest for LE / LT), or None when an
    operand element equals that value (a tie the doubling could resolve to padding)."""
    kind = padded.dtype.kind
    if kind == "f":
        worst = -np.inf if direction in ("GE", "GT") else np.inf
    elif kind in "iu":
        info = np.iinfo(padded.dtype)
        worst = info.min if direction in ("GE", "GT") else info.max
    else:
        return None
    fill = np.asarray(worst).astype(padded.dtype)
    if np.any(padded[real] == fill):
        return None
    return np.where(real, padded, fill)


def _scatter_ufunc(scatter: RegionFn, result_type: Type, dtype: np.dtype) -> np.ufunc | None:
    """The ufunc whose ``.at`` applies the values one by one in order, as the rounds'
    fold does: the scatter body is one op whose ufunc column lists the dtype's kind
    under ``at`` (add, multiply...), on a native float / integer type; else None."""
    if isinstance(element_type_of(result_type), QuantizedType):
        return None
    ops = combiners(scatter, 1)
    uf = ufunc_of(ops[0]) if ops is not None else None
    if uf is None or dtype.kind not in uf.at:
        return None
    return uf.ufunc if dtype in _NATIVE_FLOATS or is_native_int(dtype) else None


def _scatter_rounds(
    acc: np.ndarray,
    targets: np.ndarray,
    vals: np.ndarray,
    step: Callable[[Arrays, Arrays], Arrays],
    dtype: np.dtype,
) -> np.ndarray:
    """``acc[t] = fn(acc[t], v)`` for each (t, v) in order; round r applies the r-th value
    of every target at once."""
    if targets.size == 0:
        return acc
    order = np.argsort(targets, kind="stable")
    ts = targets[order]
    vs = vals[order]
    first = np.r_[True, ts[1:] != ts[:-1]]
    group_start = np.maximum.accumulate(np.where(first, np.arange(ts.size), 0))
    rank_in_group = np.arange(ts.size) - group_start
    acc = acc.copy()
    for r in range(int(rank_in_group.max()) + 1):
        sel = rank_in_group == r
        t = ts[sel]
        (new,) = step((acc[t],), (vs[sel],))[:1]
        acc[t] = np.broadcast_to(as_dtype(new, dtype), t.shape)
    return acc
