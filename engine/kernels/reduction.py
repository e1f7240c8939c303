"""Reduction-family kernels: reduce, reduce_window, select_and_scatter, sort, map.

Every body / comparator region runs on whole tensors (``RegionFn``); no kernel loops
over tensor elements.  Loops are over tree levels (log2 n), window positions, scatter
rounds or merge-sort levels.

Association order (spec "reduce": the schedule is an implementation-defined binary tree
whose in-order traversal is the inputs in ascending index order, interspersed with init
values).  hlorun's schedule, for every body that is not an exactly-associative integer /
boolean op, is::

    body(init, T(x_0 .. x_{K-1}))

where ``T`` pairs *adjacent* elements level by level: ``T`` of a level is
``body(x_0, x_1), body(x_2, x_3), ...`` with an odd last element carried to the next
level unchanged.  When the reduction is over ONE dimension that is not the operand's
last (e.g. axis 0 of a matrix), the leaves of ``T`` are instead left folds of blocks of
``_FOLD_BLOCK`` = 32 consecutive inputs (the last block may be shorter)::

    body(init, T(F_0, F_1, ...)),  F_b = body(..body(body(x_32b, x_32b+1), x_32b+2).., x_32b+31)

Both are valid spec schedules (in-order trees), so float sums are the spec's, with every
partial result rounded to the body's type.  (NumPy's own float sum, pairwise with 8
interleaved accumulators, is not an in-order tree, so it is never used; each level of
``T`` is one or two NumPy calls on whole arrays, see ``_pair_level``.  The block folds
are one ``ufunc.reduce`` over a non-innermost axis, which NumPy runs as an elementwise
loop over the inner axis, once per fold step in index order; tests/kernels/
test_reduce_schedule.py pins that bit for bit.  The region path runs the same schedule
with at most 62 + ceil(log2(K/32)) + 1 region calls: each fold step is one call on all
blocks at once.)  Large trees split over threads into aligned subtrees or independent
output slabs, with the same bits (``_tree_split``).
Integer add/multiply (exact wraparound), and/or/xor and integer max/min are associative
and commutative, so NumPy's reductions give the same result as any schedule; float
max/min use NumPy's reductions and then fix the sign of zero (IEEE ``maximum`` orders
-0 < +0) and propagate NaN.
Known combiners on f16/bf16/f8 use NumPy/ml_dtypes ufuncs, which compute in f32 and
round once (correct for + and * of two values); tf32, quantized and complex
(except add) bodies always run the region.

reduce_window folds every window from its init value over the window positions in
ascending order (another valid schedule): one NumPy op (known combiner) or region call
per position on strided views of all windows at once; windows of 32+ positions use the
adjacent-pair tree on a copy instead.  Known combiners on native dtypes fold in place
into the output buffer, reading the operand itself (no padded copy): padding positions
are skipped for idempotent ops (max/min/and/or) and folded as ``init`` otherwise.

sort: lexicographic comparators (patterns.sort_keys) become NumPy sorts of integer keys
(stable); FLOAT compares treat -0 == +0 and, since a comparator that meets NaN is not a
strict weak order and the spec's sort is then undefined, hlorun puts NaN keys last (as
NumPy does), for LT and GT alike.  Other comparators run a stable merge sort that calls
the comparator on whole arrays, O(log^2 n) calls.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np

from ...parser.errors import InterpreterError, UnsupportedError
from ...parser.ir import ComplexType, FloatType, IntegerType, QuantizedType, TensorType, Type
from ...shape_inference.optable import kernel

from .. import parallel
from ..dtypes import dtype_of
from ..values import RegionFn
from .patterns import SortKey, reduction_combiners, sort_keys

Arrays = tuple[np.ndarray, ...]

# --------------------------------------------------------------------------------------
# helpers
# --------------------------------------------------------------------------------------


def _elem(t: Type) -> Type:
    return t.element_type if isinstance(t, TensorType) else t


def _as(x: Any, dtype: np.dtype) -> np.ndarray:
    """Exact conversion to ``dtype`` (widening within a kind: spec is_promotable)."""
    x = np.asarray(x)
    return x if x.dtype == dtype else x.astype(dtype)


def _promote(op: str, xs: Sequence[np.ndarray], types: Sequence[Type]) -> list[np.ndarray]:
    """spec to_destination_type for reduction inputs: widen to the body's types.  For
    quantized types that would be a requantization, which hlorun does not do here."""
    out = []
    for x, t in zip(xs, types):
        dt = dtype_of(t)
        if x.dtype != dt and isinstance(_elem(t), QuantizedType):
            raise UnsupportedError(
                f"promoting quantized storage {x.dtype} to the body's {_elem(t)} is not supported",
                op=op,
            )
        out.append(_as(x, dt))
    return out


def _call(fn: RegionFn, *values: np.ndarray) -> Arrays:
    out = fn(*values)
    return tuple(out) if isinstance(out, tuple | list) else (out,)


def _combiners(fn: RegionFn, n: int) -> tuple[str, ...] | None:
    if n == 1 and fn.combiner is not None:
        return (fn.combiner,)
    region = getattr(fn, "region", None)
    return reduction_combiners(region) if region is not None else None


_INT_UFUNCS: dict[str, np.ufunc] = {
    "stablehlo.add": np.add,
    "stablehlo.multiply": np.multiply,
    "stablehlo.maximum": np.maximum,
    "stablehlo.minimum": np.minimum,
    "stablehlo.and": np.bitwise_and,
    "stablehlo.or": np.bitwise_or,
    "stablehlo.xor": np.bitwise_xor,
}
_BOOL_UFUNCS: dict[str, np.ufunc] = {
    "stablehlo.add": np.logical_or,
    "stablehlo.multiply": np.logical_and,
    "stablehlo.maximum": np.logical_or,
    "stablehlo.minimum": np.logical_and,
    "stablehlo.and": np.logical_and,
    "stablehlo.or": np.logical_or,
    "stablehlo.xor": np.logical_xor,
}
# Float ops whose NumPy ufunc is the IEEE operation with one rounding to the storage
# type (f16/bf16/f8 are computed in f32, where +,* of two values round correctly).
_FLOAT_UFUNCS: dict[str, np.ufunc] = {"stablehlo.add": np.add, "stablehlo.multiply": np.multiply}


def _wrap(v: np.ndarray, width: int, unsigned: bool) -> np.ndarray:
    """int64 values -> their ``width``-bit two's-complement residue."""
    mask = (1 << width) - 1
    v = v & mask
    if not unsigned:
        v = np.where(v >= (1 << (width - 1)), v - (1 << width), v)
    return v


def _is_native_int(dtype: np.dtype) -> bool:
    return dtype.kind in "iu" and dtype.itemsize * 8 in (8, 16, 32, 64) and dtype.type in (
        np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64
    )


def _ieee_minmax(is_max: bool) -> Callable[[np.ndarray, np.ndarray], np.ndarray]:
    """IEEE maximum / minimum (spec "maximum"/"minimum" for floats): NaN propagates and
    -0 < +0.  ``np.maximum`` propagates NaN but returns either zero for (-0, +0)."""
    uf = np.maximum if is_max else np.minimum

    def f(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        dtype = np.result_type(a, b)
        wide = dtype if dtype in (np.float16, np.float32, np.float64) else np.dtype(np.float32)
        aw, bw = np.asarray(a).astype(wide, copy=False), np.asarray(b).astype(wide, copy=False)
        r = uf(aw, bw)
        zero = r == 0
        if np.any(zero):
            sa, sb = np.signbit(aw), np.signbit(bw)
            neg = (sa & sb) if is_max else (sa | sb)
            r = np.where(zero, np.where(neg, wide.type(-0.0), wide.type(0.0)), r)
        return np.asarray(r).astype(dtype, copy=False)

    return f


def _exact_binary(op: str, t: Type) -> Callable[[np.ndarray, np.ndarray], np.ndarray] | None:
    """A NumPy function computing ``op`` exactly as the spec does for element type ``t``
    (no quantized, tf32 or sub-byte integer types), or None."""
    e = _elem(t)
    if isinstance(e, IntegerType):
        if e.is_bool:
            return _BOOL_UFUNCS.get(op)
        return _INT_UFUNCS.get(op) if _is_native_int(dtype_of(t)) else None
    if isinstance(e, FloatType) and e.name != "tf32":
        if op in ("stablehlo.maximum", "stablehlo.minimum"):
            return _ieee_minmax(op == "stablehlo.maximum")
        return _FLOAT_UFUNCS.get(op)
    if isinstance(e, ComplexType) and op == "stablehlo.add":
        return np.add
    return None


# --------------------------------------------------------------------------------------
# reduce
# --------------------------------------------------------------------------------------


def _tree_ufunc(x: np.ndarray, axis: int, ufunc: np.ufunc) -> np.ndarray:
    """In-order adjacent-pair tree of ``ufunc`` along ``axis`` (size >= 1); the axis is kept.
    Large trees run as independent pieces on threads (``_tree_split``), same bits."""
    parts = parallel.workers()
    if parts > 1 and x.size >= _TREE_SPLIT_MIN and x.shape[axis] > 1:
        return _tree_split(x, axis, ufunc, parts)
    return _tree_serial(x, axis, ufunc)


# A tree is a chain of ~log2(n) NumPy calls whose small tail levels hold the GIL; on the
# 2-core test machine two threads only won from ~4M elements (1M: 320 us -> 350-440 us;
# 8M: 9.0 ms -> 5.1 ms), so trees split later than single elementwise ops.
_TREE_SPLIT_MIN = max(parallel.PARALLEL_MIN_ELEMENTS, 1 << 22)


def _tree_serial(x: np.ndarray, axis: int, ufunc: np.ufunc) -> np.ndarray:
    while x.shape[axis] > 1:
        x = _pair_level(x, axis, ufunc)
    return x


def _tree_blocks(k: int, parts: int) -> int:
    """The largest aligned subtree size ``2**b`` of the adjacent-pair tree over ``k > 1``
    elements such that at most ``parts`` subtrees cover them.  The tree's level-b node j
    is the tree of exactly ``x[j*2**b : (j+1)*2**b]`` (the last one clipped), and the
    levels above b are the adjacent-pair tree over those nodes, so T(x) == T(T(block_0),
    T(block_1), ...)."""
    levels = (k - 1).bit_length()  # ceil(log2 k)
    depth = min(parts.bit_length() - 1, levels)  # 2**depth <= parts
    return 1 << (levels - depth)


def _tree_split(x: np.ndarray, axis: int, ufunc: np.ufunc, parts: int,
                serial: Callable[[np.ndarray, int, np.ufunc], np.ndarray] | None = None
                ) -> np.ndarray:
    """``serial`` (default ``_tree_serial``) split over ``parts`` threads into pieces that
    compute exactly what the whole does: slabs of the largest kept axis (independent
    outputs) or, when every kept axis is too short, aligned subtrees along ``axis`` (see
    ``_tree_blocks``; ``_tree_serial`` only)."""
    serial = serial or _tree_serial
    kept = [d for d in range(x.ndim) if d != axis and x.shape[d] >= parts]
    if kept:
        d = max(kept, key=lambda i: x.shape[i])
        cuts = parallel.split_points(x.shape[d], parts, align=16 if d == x.ndim - 1 else 1)
        pieces = [_slice(x, d, a, b, 1) for a, b in zip(cuts, cuts[1:]) if b > a]
        outs = parallel.run_all([functools.partial(serial, p, axis, ufunc) for p in pieces])
        return np.concatenate(outs, axis=d)
    assert serial is _tree_serial
    k = x.shape[axis]
    block = _tree_blocks(k, parts)
    pieces = [_slice(x, axis, a, min(a + block, k), 1) for a in range(0, k, block)]
    outs = parallel.run_all([functools.partial(_tree_serial, p, axis, ufunc) for p in pieces])
    return _tree_serial(np.concatenate(outs, axis=axis), axis, ufunc)


# Float dtypes whose adjacent pairs (a, b) NumPy can add as one complex number z = a + bi:
# re(z * (1 - i)) = a*1 - b*(-1) is a + b rounded ONCE (products by +-1 are exact), and
# NumPy's complex multiply is vectorised where strided float adds are not.
_PAIR_AS_COMPLEX = {
    np.dtype(np.float32): (np.dtype(np.complex64), np.complex64(1 - 1j)),
    np.dtype(np.float64): (np.dtype(np.complex128), np.complex128(1 - 1j)),
}
_PAIR_AS_COMPLEX_MIN = 16  # pairs per row below which the plain strided add is as fast
_PAIR_ROWS_MIN = 64  # inner row length from which a non-last-axis level adds whole rows


def _pair_level(x: np.ndarray, axis: int, ufunc: np.ufunc) -> np.ndarray:
    """One level of the adjacent-pair tree along ``axis``: ``ufunc(x_0, x_1),
    ufunc(x_2, x_3), ...`` with an odd last element carried unchanged.  ``ufunc`` is
    np.add or np.multiply (one IEEE operation per pair, whatever NumPy loop runs it)."""
    k = x.shape[axis]
    half, odd = divmod(k, 2)
    shape = x.shape[:axis] + (half + odd,) + x.shape[axis + 1 :]
    last = axis == x.ndim - 1
    if (ufunc is np.add and last and half >= _PAIR_AS_COMPLEX_MIN and x.dtype in _PAIR_AS_COMPLEX
            and x.strides[-1] == x.itemsize):
        cdt, one_minus_i = _PAIR_AS_COMPLEX[x.dtype]
        buf = np.empty(shape, dtype=cdt)
        np.multiply(x[..., : 2 * half].view(cdt), one_minus_i, out=buf[..., :half])
        out = buf.real  # a strided view: the next level reads it in pairs
    else:
        out = np.empty(shape, dtype=x.dtype)
        dst = _slice(out, axis, 0, half, 1)
        if last or math.prod(x.shape[axis + 1 :]) >= _PAIR_ROWS_MIN:
            # (non-last axis: whole rows of pairs, contiguous inner loops)
            ufunc(_slice(x, axis, 0, 2 * half, 2), _slice(x, axis, 1, 2 * half, 2), out=dst)
        else:
            # short rows of pairs: a reduction over an inserted axis of length 2 (= x_2i
            # op x_2i+1) runs longer inner loops than the ufunc on two strided views
            pairs = _slice(x, axis, 0, 2 * half, 1)
            pairs = pairs.reshape(x.shape[:axis] + (half, 2) + x.shape[axis + 1 :])
            ufunc.reduce(pairs, axis=axis + 1, out=dst, initial=_fold_start(ufunc, x.dtype))
    if odd:
        _slice(out, axis, half, half + 1, 1)[...] = _slice(x, axis, k - 1, k, 1)
    return out


def _slice(x: np.ndarray, axis: int, start: int, stop: int, step: int) -> np.ndarray:
    idx = [slice(None)] * x.ndim
    idx[axis] = slice(start, stop, step)
    return x[tuple(idx)]


def _tree_region(xs: Arrays, axis: int, body: RegionFn | Callable[[Arrays, Arrays], Arrays],
                 dtypes: Sequence[np.dtype]) -> Arrays:
    """In-order adjacent-pair tree of a (variadic) body along ``axis``; one region call
    (or ``_fold_step`` call) per level."""
    n = len(xs)
    step = body if not isinstance(body, RegionFn) else (lambda a, b: _call(body, *a, *b))
    while xs[0].shape[axis] > 1:
        k = xs[0].shape[axis]
        lhs = tuple(_slice(x, axis, 0, k - 1, 2) for x in xs)
        rhs = tuple(_slice(x, axis, 1, k, 2) for x in xs)
        ys = step(lhs, rhs)
        if len(ys) != n:
            raise InterpreterError(f"reduction body returned {len(ys)} values, expected {n}")
        shape = lhs[0].shape
        ys = [np.broadcast_to(_as(y, dt), shape) for y, dt in zip(ys, dtypes)]
        if k % 2:
            ys = [np.concatenate([y, _slice(x, axis, k - 1, k, 1)], axis=axis) for y, x in zip(ys, xs)]
        xs = tuple(ys)
    return xs


def _collapse_axes(x: np.ndarray, axes: tuple[int, ...]) -> tuple[np.ndarray, int]:
    """Move ``axes`` (ascending) to the end and merge them into one axis."""
    if len(axes) == 1:
        return x, axes[0]
    keep = [d for d in range(x.ndim) if d not in axes]
    y = np.transpose(x, keep + list(axes))
    merged = int(np.prod([x.shape[a] for a in axes]))
    return y.reshape(tuple(x.shape[d] for d in keep) + (merged,)), len(keep)


_MINMAX_NATIVE = (np.dtype(np.float32), np.dtype(np.float64))
_MINMAX_WIDE = {False: np.dtype(np.float32), True: np.dtype(np.float64)}


def _ieee_minmax_reduce(x: np.ndarray, init: np.ndarray, axes: tuple[int, ...], is_max: bool,
                        dtype: np.dtype) -> np.ndarray:
    """IEEE maximum/minimum reduction: NaN propagates, -0 < +0."""
    wide = x.dtype if x.dtype in _MINMAX_NATIVE else _MINMAX_WIDE[dtype.itemsize > 4]
    xw = x if x.dtype == wide else x.astype(wide)
    iw = init if init.dtype == wide else np.asarray(init).astype(wide)
    uf = np.maximum if is_max else np.minimum
    r = uf.reduce(xw, axis=axes, initial=iw[()])
    zero = r == 0
    if zero if np.ndim(zero) == 0 else zero.any():  # (one compare for a 0-d result)
        # max: +0 if any +0 occurs; min: -0 if any -0 occurs.
        want_neg = not is_max
        hit = (xw == 0) & (np.signbit(xw) == want_neg)
        hit = np.logical_or.reduce(hit, axis=axes) | bool(iw == 0 and np.signbit(iw) == want_neg)
        signed = np.where(hit == want_neg, np.array(-0.0, wide), np.array(0.0, wide))
        r = np.where(zero, signed, r)
    return np.asarray(r).astype(dtype, copy=False)


def _reduce_fast(op: str, x: np.ndarray, init: np.ndarray, axes: tuple[int, ...],
                 rtype: Type) -> np.ndarray | None:
    """A known combiner on a non-quantized type, or None."""
    e = _elem(rtype)
    dtype = dtype_of(rtype)
    if isinstance(e, IntegerType) and e.is_bool:
        uf = _BOOL_UFUNCS.get(op)
        if uf is None:
            return None
        return np.asarray(uf.reduce(x, axis=axes, initial=bool(init))).astype(dtype)
    if isinstance(e, IntegerType):
        uf = _INT_UFUNCS.get(op)
        if uf is None:
            return None
        if _is_native_int(dtype):
            return np.asarray(uf.reduce(x, axis=axes, dtype=dtype, initial=init[()]))
        w = e.width
        xi = x.astype(np.int64)
        r = uf.reduce(xi, axis=axes, initial=int(init))
        return np.asarray(_wrap(r, w, e.is_unsigned)).astype(dtype)
    if isinstance(e, FloatType) and e.name != "tf32":  # tf32 rounding is the body's job
        if op in ("stablehlo.maximum", "stablehlo.minimum"):
            return _ieee_minmax_reduce(x, init, axes, op == "stablehlo.maximum", dtype)
        uf = _FLOAT_UFUNCS.get(op)
        if uf is None:
            return None
        return _float_tree(x, init, axes, uf, dtype)
    if isinstance(e, ComplexType) and op == "stablehlo.add":
        return _float_tree(x, init, axes, np.add, dtype)
    return None


# Inputs per left-folded leaf of the blocked schedule (module docstring).  1024x1024 f32
# along axis 0 measured 1.06-1.2x np.sum with 32 and 1.1-1.45x with 16 (a larger tree
# over the leaves); K <= 32 is a single left fold, K - 1 region calls.
_FOLD_BLOCK = 32


def _index(x: np.ndarray, axis: int, i: int) -> np.ndarray:
    return x[(slice(None),) * axis + (i,)]


def _fold_blocks_views(y: np.ndarray, axis: int) -> list[np.ndarray]:
    """``y`` with its reduced ``axis`` split into (block, position in block): the full
    blocks of ``_FOLD_BLOCK`` inputs, then the shorter last block if any (views)."""
    k = y.shape[axis]
    nb, r = divmod(k, _FOLD_BLOCK)
    pre, post = y.shape[:axis], y.shape[axis + 1 :]
    views = []
    if nb:
        full = _slice(y, axis, 0, nb * _FOLD_BLOCK, 1)
        views.append(full.reshape(pre + (nb, _FOLD_BLOCK) + post))
    if r:
        views.append(_slice(y, axis, nb * _FOLD_BLOCK, k, 1).reshape(pre + (1, r) + post))
    return views


def _numpy_folds_in_order(v: np.ndarray, axis: int) -> bool:
    """Whether ``ufunc.reduce(v, axis)`` is a left fold in index order: the dimensions
    after ``axis`` are C-contiguous (at least 2 elements) and ``axis`` strides over whole
    rows of them, so NumPy's iterator keeps them as the inner loop (an elementwise loop,
    not its pairwise reduce loop) and steps ``axis`` forwards.  Pinned bit for bit by
    tests/kernels/test_reduce_schedule.py."""
    post = v.shape[axis + 1 :]
    inner = math.prod(post)
    if inner < 2:
        return False
    expect = v.itemsize
    for size, stride in zip(reversed(post), reversed(v.strides[axis + 1 :])):
        if size > 1 and stride != expect:
            return False
        expect *= size
    return v.strides[axis] >= expect


def _fold_start(uf: np.ufunc, dtype: np.dtype) -> Any:
    """A start value s with uf(s, x) == x bit for bit, for ``ufunc.reduce(initial=s)``:
    NumPy's float add.reduce otherwise starts from +0, and +0 + -0 is +0, so a fold of
    only -0 would come out +0."""
    if uf is np.multiply:
        return 1
    return complex(-0.0, -0.0) if dtype.kind == "c" else -0.0


def _fold_ufunc(v: np.ndarray, axis: int, uf: np.ufunc) -> np.ndarray:
    """Left fold of ``uf`` along ``axis`` in index order; the axis is removed."""
    k = v.shape[axis]
    if k == 1:
        return _index(v, axis, 0)
    if _numpy_folds_in_order(v, axis):
        return uf.reduce(v, axis=axis, initial=_fold_start(uf, v.dtype))
    acc = uf(_index(v, axis, 0), _index(v, axis, 1))
    for j in range(2, k):
        uf(acc, _index(v, axis, j), out=acc)
    return acc


_FOLD_REVERSED_LEVELS = 6  # tree levels over the leaves taken as contiguous halves


def _fold_bit_reversed(y: np.ndarray, axis: int, uf: np.ufunc, nb: int, m: int) -> np.ndarray:
    """Level ``m`` of ``T`` over the leaves of ``nb = q * 2**m`` full blocks.  The leaves
    are folded into a buffer whose block index b = q_i * 2**m + sum(t_j * 2**j) is stored
    at [t_0, .., t_{m-1}, q_i], so levels 1..m (pairs differing in t_0, then t_1, ...) add
    two contiguous halves instead of interleaved rows; level m comes out in natural order."""
    pre, post = y.shape[:axis], y.shape[axis + 1 :]
    q, a = nb >> m, axis
    v = y.reshape(pre + (q,) + (2,) * m + (_FOLD_BLOCK,) + post)  # bits high .. low
    buf = np.empty(pre + (2,) * m + (q,) + post, dtype=y.dtype)  # bits low .. high, q
    order = [*range(a), a + m, *(a + m - 1 - j for j in range(m)), *range(a + m + 1, buf.ndim)]
    uf.reduce(v, axis=a + 1 + m, out=buf.transpose(order), initial=_fold_start(uf, y.dtype))
    x = buf
    for _ in range(m):
        x = uf(_index(x, a, 0), _index(x, a, 1))
    return x


def _blocked_tree_serial(y: np.ndarray, axis: int, uf: np.ufunc) -> np.ndarray:
    """The blocked schedule's ``T(F_0, F_1, ...)`` along ``axis`` (kept, size 1)."""
    nb, r = divmod(y.shape[axis], _FOLD_BLOCK)
    m = min((nb & -nb).bit_length() - 1, _FOLD_REVERSED_LEVELS) if nb and not r else 0
    if m and _numpy_folds_in_order(y, axis):
        return _tree_serial(_fold_bit_reversed(y, axis, uf, nb, m), axis, uf)
    folds = [_fold_ufunc(v, axis + 1, uf) for v in _fold_blocks_views(y, axis)]
    leaves = folds[0] if len(folds) == 1 else np.concatenate(folds, axis=axis)
    return _tree_serial(leaves, axis, uf)


def _blocked_tree(y: np.ndarray, axis: int, uf: np.ufunc) -> np.ndarray:
    parts = parallel.workers()
    if parts > 1 and y.size >= _TREE_SPLIT_MIN:
        kept = [d for d in range(y.ndim) if d != axis and y.shape[d] >= parts]
        if kept:
            return _tree_split(y, axis, uf, parts, _blocked_tree_serial)
    return _blocked_tree_serial(y, axis, uf)


def _float_tree(x: np.ndarray, init: np.ndarray, axes: tuple[int, ...], uf: np.ufunc,
                dtype: np.dtype) -> np.ndarray:
    y, axis = _collapse_axes(x, axes)
    if y.shape[axis] == 0:
        out_shape = tuple(s for i, s in enumerate(y.shape) if i != axis)
        return np.full(out_shape, init, dtype=dtype)
    if axis < y.ndim - 1:  # one reduced dimension, not the last: blocked schedule
        t = _blocked_tree(y, axis, uf)
    else:
        t = _tree_ufunc(y, axis, uf)
    t = np.squeeze(t, axis=axis)
    return np.asarray(uf(np.asarray(init, dtype=dtype), t)).astype(dtype, copy=False)


@kernel("stablehlo.reduce")
def reduce(*operands: np.ndarray, result_types: tuple[Type, ...], dimensions: tuple[int, ...],
           body: RegionFn) -> Arrays:
    """spec "reduce": see the module docstring for the association order."""
    n = len(operands) // 2
    dtypes = [dtype_of(t) for t in result_types]
    xs, inits = operands[:n], operands[n:]
    if any(a.dtype != dt for a, dt in zip(operands, dtypes * 2)):
        xs = tuple(_promote("stablehlo.reduce", xs, result_types))
        inits = tuple(_promote("stablehlo.reduce", inits, result_types))
    axes = tuple(sorted(int(d) for d in dimensions))
    quantized = any(isinstance(_elem(t), QuantizedType) for t in result_types)
    # non-0-d init values (the MHLO generalisation) take the region path
    ops = None if quantized or any(v.ndim for v in inits) else _combiners(body, n)
    if ops is not None:
        outs = [_reduce_fast(op, x, v, axes, t) for op, x, v, t in zip(ops, xs, inits, result_types)]
        if all(o is not None for o in outs):
            return tuple(outs)
    return _reduce_region(xs, inits, axes, body, dtypes)


def _reduce_region(xs: Arrays, inits: Arrays, axes: tuple[int, ...], body: RegionFn,
                   dtypes: Sequence[np.dtype]) -> Arrays:
    out_shape = tuple(s for i, s in enumerate(xs[0].shape) if i not in axes)
    if not axes:
        ys = _call(body, *[np.broadcast_to(v, xs[0].shape) for v in inits], *xs)
        return tuple(np.broadcast_to(_as(y, dt), out_shape).copy() for y, dt in zip(ys, dtypes))
    collapsed = [_collapse_axes(x, axes) for x in xs]
    axis = collapsed[0][1]
    ys = tuple(c[0] for c in collapsed)
    if ys[0].shape[axis] == 0:
        return tuple(np.full(out_shape, v, dtype=dt) for v, dt in zip(inits, dtypes))
    if axis < ys[0].ndim - 1:  # one reduced dimension, not the last: blocked schedule
        ys = _fold_blocks_region(ys, axis, body, dtypes)
    ts = _tree_region(ys, axis, body, dtypes)
    ts = [np.squeeze(t, axis=axis) for t in ts]
    res = _call(body, *[np.broadcast_to(v, out_shape) for v in inits], *ts)
    return tuple(np.array(np.broadcast_to(_as(r, dt), out_shape)) for r, dt in zip(res, dtypes))


def _fold_blocks_region(ys: Arrays, axis: int, body: RegionFn, dtypes: Sequence[np.dtype]
                        ) -> Arrays:
    """The blocked schedule's leaves ``F_b`` (module docstring) along ``axis``: one region
    call per fold step, on all blocks at once (at most 2 * (_FOLD_BLOCK - 1) calls)."""
    n = len(ys)
    groups = list(zip(*[_fold_blocks_views(y, axis) for y in ys]))  # per block group
    leaves: list[Arrays] = []
    for views in groups:
        acc = tuple(_index(v, axis + 1, 0) for v in views)
        for j in range(1, views[0].shape[axis + 1]):
            res = _call(body, *acc, *[_index(v, axis + 1, j) for v in views])
            if len(res) != n:
                raise InterpreterError(f"reduction body returned {len(res)} values, expected {n}")
            shape = acc[0].shape
            acc = tuple(np.broadcast_to(_as(r, dt), shape) for r, dt in zip(res, dtypes))
        leaves.append(acc)
    if len(leaves) == 1:
        return leaves[0]
    return tuple(np.concatenate(parts, axis=axis) for parts in zip(*leaves))


# --------------------------------------------------------------------------------------
# reduce_window
# --------------------------------------------------------------------------------------


def _pad(x: np.ndarray, value: np.ndarray, low: Sequence[int], high: Sequence[int],
         interior: Sequence[int]) -> np.ndarray:
    """spec "pad" with a scalar value; negative padding crops."""
    dilated = [0 if s == 0 else (s - 1) * (i + 1) + 1 for s, i in zip(x.shape, interior)]
    full = [max(lo, 0) + d + max(hi, 0) for lo, d, hi in zip(low, dilated, high)]
    out = np.full(full, value, dtype=x.dtype)
    dst = tuple(slice(max(lo, 0), max(lo, 0) + d, i + 1) for lo, d, i in zip(low, dilated, interior))
    out[dst] = x
    crop = tuple(slice(max(-lo, 0), max(f - max(-hi, 0), max(-lo, 0)))
                 for lo, hi, f in zip(low, high, full))
    return out[crop]


def _windows(padded: np.ndarray, window_dimensions: Sequence[int], strides: Sequence[int],
             dilations: Sequence[int]) -> np.ndarray:
    """View of shape ``num_windows + window_dimensions`` (spec reduce_window C15)."""
    nw = []
    for p, w, s, d in zip(padded.shape, window_dimensions, strides, dilations):
        span = (w - 1) * d + 1
        nw.append(0 if p == 0 or span > p else (p - span) // s + 1)
    if 0 in nw or padded.size == 0:
        return np.empty(tuple(nw) + tuple(window_dimensions), dtype=padded.dtype)
    st = padded.strides
    return np.lib.stride_tricks.as_strided(
        padded,
        shape=tuple(nw) + tuple(window_dimensions),
        strides=tuple(a * s for a, s in zip(st, strides)) + tuple(a * d for a, d in zip(st, dilations)),
        writeable=False,
    )


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


@kernel("stablehlo.reduce_window")
def reduce_window(*operands: np.ndarray, result_types: tuple[Type, ...],
                  window_dimensions: Sequence[int], window_strides: Sequence[int] | None = None,
                  base_dilations: Sequence[int] | None = None,
                  window_dilations: Sequence[int] | None = None, padding: Any = None,
                  body: RegionFn) -> Arrays:
    """spec "reduce_window": pad with init values and dilate, view the windows as strided
    views, and fold each window from its init value: ``body(...body(body(init, w_0),
    w_1)..., w_{k-1})`` over window positions in ascending order (a valid in-order
    schedule), one region call per position on whole tensors.  Windows with many
    positions use the adjacent-pair tree of ``reduce`` instead."""
    n = len(operands) // 2
    dtypes = [dtype_of(t) for t in result_types]
    xs = _promote("stablehlo.reduce_window", operands[:n], result_types)
    inits = [v.reshape(()) for v in _promote("stablehlo.reduce_window", operands[n:], result_types)]
    rank = xs[0].ndim
    wd = _norm(window_dimensions, rank)
    ws = _norm(window_strides, rank)
    bd = _norm(base_dilations, rank)
    wdil = _norm(window_dilations, rank)
    low, high = _padding(padding, rank)
    geo = _WindowGeometry(tuple(xs[0].shape), wd, ws, bd, wdil, low, high)
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
    if k >= _WINDOW_TREE_MIN and size * k <= _WINDOW_TREE_MAX_ELEMS:
        flat = tuple(np.ascontiguousarray(w).reshape(out_shape + (k,)) for w in wins)
        ts = _tree_region(flat, rank, step, dtypes)
        ts = tuple(np.squeeze(t, axis=rank) for t in ts)
        res = step(tuple(np.broadcast_to(v, out_shape) for v in inits), ts)
        return tuple(np.array(np.broadcast_to(_as(r, dt), out_shape)) for r, dt in zip(res, dtypes))
    acc: Arrays = tuple(np.broadcast_to(v, out_shape) for v in inits)
    lead = (slice(None),) * rank
    for pos in _window_positions(wd):
        acc = step(acc, tuple(w[lead + pos] for w in wins))
        acc = tuple(np.broadcast_to(_as(a, dt), out_shape) for a, dt in zip(acc, dtypes))
    return tuple(np.array(a) for a in acc)


_IDEMPOTENT = frozenset({"stablehlo.maximum", "stablehlo.minimum", "stablehlo.and", "stablehlo.or"})
_NATIVE_FLOATS = (np.dtype(np.float16), np.dtype(np.float32), np.dtype(np.float64))
_SIGN_INT = {2: np.dtype(np.int16), 4: np.dtype(np.int32), 8: np.dtype(np.int64)}
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
        for n, w, s, b, d, lo, hi in zip(self.shape, self.wd, self.ws, self.bd, self.wdil,
                                         self.low, self.high):
            size = max(lo + (0 if n == 0 else (n - 1) * b + 1) + hi, 0)
            span = (w - 1) * d + 1
            out.append(0 if size == 0 or span > size else (size - span) // s + 1)
        return tuple(out)

    @cached_property
    def lattice(self) -> tuple[tuple[tuple[int, int, int, int, int] | None, ...], ...]:
        """Per dimension and window position ``j``: the windows whose element ``j`` is an
        operand element (not padding nor a base-dilation hole), ``first, last, period``,
        and their operand elements ``start, step``; None when there is none."""
        table = []
        for dim, nw in enumerate(self.out_shape):
            n, s, b = self.shape[dim], self.ws[dim], self.bd[dim]
            row = []
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
        return (slice(first - lo, first - lo + (count - 1) * period + 1, period),
                slice(i0, i0 + (count - 1) * istep + 1, istep))

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
            sl = [self.slices(d, j, 0, nw) for j in range(self.wd[d])]
            if any(s is None for s in sl):
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
        rest = tuple((0, n) for n in shape[d + 1:])
        if a > 0:
            boxes.append(inner[:d] + ((0, a),) + rest)
        if b < shape[d]:
            boxes.append(inner[:d] + ((b, shape[d]),) + rest)
    return boxes


def _inplace_fold_plan(body: RegionFn, n: int, result_types: Sequence[Type],
                       geo: _WindowGeometry) -> list[tuple[np.ufunc, str]] | None:
    """Per operand (ufunc, op) when every operand's combiner is a NumPy ufunc that is the
    spec op on its (native) dtype and folding in place gives the old path's bits: always
    for idempotent ops (max/min/and/or: padding equals init, already folded in) and
    exact integer/bool ops; float/complex add/multiply only where the old path folds
    sequentially (not the pair tree); non-idempotent ops without base dilation."""
    if any(isinstance(_elem(t), QuantizedType) for t in result_types):
        return None
    ops = _combiners(body, n)
    if not ops or len(ops) != n:
        return None
    k, size = math.prod(geo.wd), math.prod(geo.out_shape)
    tree = k >= _WINDOW_TREE_MIN and size * k <= _WINDOW_TREE_MAX_ELEMS
    if tree and size < _INPLACE_MIN_WINDOWS:
        return None  # few windows of many positions: the tree's log2(k) calls are faster
    plan = []
    for op, t in zip(ops, result_types):
        dt = dtype_of(t)
        if _exact_binary(op, t) is None:
            return None
        if dt == np.bool_:
            uf = _BOOL_UFUNCS.get(op)
        elif _is_native_int(dt):
            uf = _INT_UFUNCS.get(op)
        elif dt in _NATIVE_FLOATS and op in ("stablehlo.maximum", "stablehlo.minimum"):
            uf = np.maximum if op == "stablehlo.maximum" else np.minimum  # zeros fixed later
        elif dt in _NATIVE_FLOATS or (dt.kind == "c" and op == "stablehlo.add"):
            uf = _FLOAT_UFUNCS.get(op)
            if tree:
                return None
        else:
            return None
        if uf is None or (not _idempotent(op, dt) and any(b != 1 for b in geo.bd)):
            return None
        plan.append((uf, op))
    return plan


def _idempotent(op: str, dtype: np.dtype) -> bool:
    """``f(f(a, b), b) == f(a, b)``: folding ``init`` again changes nothing."""
    return op in _IDEMPOTENT or (dtype == np.bool_ and op != "stablehlo.xor")


def _fold_inplace(x: np.ndarray, init: np.ndarray, geo: _WindowGeometry, uf: np.ufunc,
                  op: str) -> np.ndarray:
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
    if x.dtype in _NATIVE_FLOATS and op in ("stablehlo.maximum", "stablehlo.minimum"):
        _fix_zero_signs(acc, x, init, geo, uf)
    return acc


def _fold_boxes(acc: np.ndarray, x: np.ndarray, init: np.ndarray, geo: _WindowGeometry,
                uf: np.ufunc, pad_value: np.ndarray | None) -> None:
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


def _fold_box(buf: np.ndarray, x: np.ndarray, geo: _WindowGeometry, box: Box, uf: np.ufunc,
              pad_value: np.ndarray | None) -> None:
    """``buf = uf(buf, w_p)`` over the windows of ``box`` for each window position p
    (ascending); where ``w_p`` is padding, ``uf(buf, pad_value)`` (skipped when
    ``pad_value`` is None; else there is no base dilation and the valid windows of a
    position are a box)."""
    per_dim = [[geo.slices(d, j, a, b) for j in range(w)]
               for d, (w, (a, b)) in enumerate(zip(geo.wd, box))]
    for pos in geo.positions:
        sl = [per_dim[d][j] for d, j in enumerate(pos)]
        valid = None not in sl
        if valid:
            view = buf[(*(s[0] for s in sl), ...)]  # the Ellipsis keeps 0-d views
            uf(view, x[(*(s[1] for s in sl), ...)], out=view)
        if pad_value is None:
            continue
        rest = _outside_boxes(tuple((s[0].start, s[0].stop) for s in sl), buf.shape) if valid \
            else [tuple((0, n) for n in buf.shape)]
        for r in rest:
            view = buf[(*(slice(a, b) for a, b in r), ...)]
            uf(view, pad_value, out=view)


def _fix_zero_signs(acc: np.ndarray, x: np.ndarray, init: np.ndarray, geo: _WindowGeometry,
                    uf: np.ufunc) -> None:
    """IEEE maximum / minimum order -0 < +0, ``np.maximum`` / ``np.minimum`` do not.  A
    window whose result is zero holds no NaN and no value of the other sign, so the
    same fold on the bits as signed integers is negative exactly when the zero is -0
    (max: no +0 in the window; min: some -0)."""
    zero = acc == 0
    if not zero.any():
        return
    it = _SIGN_INT[x.dtype.itemsize]
    bits = np.full(geo.out_shape, init.view(it), dtype=it)
    _fold_boxes(bits, x.view(it), init.view(it), geo, uf, None)
    np.bitwise_and(bits, np.iinfo(it).min, out=bits)  # the sign bit: -0 or +0
    np.copyto(acc.view(it), bits, where=zero)


def _fold_step(body: RegionFn, n: int, result_types: Sequence[Type]
               ) -> Callable[[Arrays, Arrays], Arrays]:
    """``(acc, x) -> body(acc, x)``: NumPy functions for known combiners (exactly the
    body's semantics), else a region call."""
    quantized = any(isinstance(_elem(t), QuantizedType) for t in result_types)
    ops = None if quantized else _combiners(body, n)
    fns = [_exact_binary(op, t) for op, t in zip(ops, result_types)] if ops else None
    if fns and all(f is not None for f in fns):
        return lambda acc, xs: tuple(f(a, x) for f, a, x in zip(fns, acc, xs))
    return lambda acc, xs: _call(body, *acc, *xs)


# --------------------------------------------------------------------------------------
# select_and_scatter
# --------------------------------------------------------------------------------------


@kernel("stablehlo.select_and_scatter")
def select_and_scatter(operand: np.ndarray, source: np.ndarray, init_value: np.ndarray, *,
                       result_type: Type, window_dimensions: Sequence[int] | None = None,
                       window_strides: Sequence[int] | None = None, padding: Any = None,
                       select: RegionFn, scatter: RegionFn) -> np.ndarray:
    """spec "select_and_scatter".

    Selection: for every window at once, a running (value, position) pair starts at the
    window's first position and, for each later position ``p`` in ascending order,
    keeps the current one where ``select(current, w_p)`` is true (one region call per
    window position; padding holds ``init_value``, and a selected padding position
    scatters nowhere).  Scatter: each result element is ``init_value`` folded with the
    source values that selected it, in ascending source-index order (rounds of one
    region call, one round per multiplicity).
    """
    dtype = dtype_of(result_type)
    rank = operand.ndim
    wd = _norm(window_dimensions, rank)
    ws = _norm(window_strides, rank)
    low, high = _padding(padding, rank)
    init, source = _promote("stablehlo.select_and_scatter", (init_value, source), (result_type,) * 2)
    init = init.reshape(())
    padded = _pad(operand, _as(init_value, operand.dtype).reshape(()), low, high, (0,) * rank)
    wins = _windows(padded, wd, ws, (1,) * rank)
    nw = wins.shape[:rank]
    result = np.full(operand.shape, init, dtype=dtype)
    if rank == 0:  # one window holding the operand itself
        (new,) = _call(scatter, init, _as(source, dtype))[:1]
        return np.array(_as(new, dtype)).reshape(())
    if int(np.prod(nw)) == 0 or operand.size == 0:
        return result
    lead = (slice(None),) * rank
    positions = _window_positions(wd)
    cur_val = wins[lead + positions[0]]
    cur_pos = np.zeros(nw, dtype=np.int64)
    for j, pos in enumerate(positions[1:], start=1):
        cand = wins[lead + pos]
        (keep,) = _call(select, cur_val, cand)[:1]
        keep = np.broadcast_to(np.asarray(keep, dtype=bool), nw)
        cur_val = np.where(keep, cur_val, cand)
        cur_pos = np.where(keep, cur_pos, j)
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
    src = _as(source, dtype)
    flat_t = np.ravel_multi_index([t[valid] for t in target], operand.shape) if rank else np.zeros(
        int(valid.sum()), np.int64)
    vals = src[valid]  # row-major = ascending source index
    step = _fold_step(scatter, 1, (result_type,))
    return _scatter_rounds(result.reshape(-1), flat_t, vals, step, dtype).reshape(operand.shape)


def _scatter_rounds(acc: np.ndarray, targets: np.ndarray, vals: np.ndarray,
                    step: Callable[[Arrays, Arrays], Arrays], dtype: np.dtype) -> np.ndarray:
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
        acc[t] = np.broadcast_to(_as(new, dtype), t.shape)
    return acc


# --------------------------------------------------------------------------------------
# sort
# --------------------------------------------------------------------------------------

# float element types whose bit patterns order like IEEE totalOrder under the
# sign-magnitude -> two's-complement trick (all bits used, IEEE-style sign bit).
_TOTALORDER_BITS = {
    "f16": 16, "bf16": 16, "f32": 32, "tf32": 32, "f64": 64,
    "f8E4M3": 8, "f8E4M3FN": 8, "f8E5M2": 8, "f8E3M4": 8,
}
_SINT = {8: np.int8, 16: np.int16, 32: np.int32, 64: np.int64}


def _total_order_key(bits: np.ndarray, width: int) -> np.ndarray:
    """Signed integers ordered like the floats whose bits they are (IEEE totalOrder)."""
    b = bits.view(_SINT[width])
    mag = np.array((1 << (width - 1)) - 1, dtype=_SINT[width])
    return (b ^ ((b >> (width - 1)) & mag)).astype(np.int64)


def _sort_key(x: np.ndarray, etype: Type, key: SortKey) -> tuple[np.ndarray, int] | None:
    """(int64 key, bits) whose ascending order is the key's order (ties = comparator
    ties), or None when hlorun has no exact key for this element/compare type."""
    ctype = key.compare_type
    if isinstance(etype, IntegerType):
        if ctype not in (None, "SIGNED", "UNSIGNED"):
            return None
        w = etype.width
        unsigned = etype.is_unsigned or etype.is_bool if ctype is None else ctype == "UNSIGNED"
        if w == 64:
            v = x.view(np.int64)
            k = v ^ np.int64(-(1 << 63)) if unsigned else v
            bits = 64
        else:
            v = x.astype(np.int64) & ((1 << w) - 1)
            if unsigned:
                k = v - (1 << (w - 1)) if w > 1 else v
            else:
                k = np.where(v >= (1 << (w - 1)), v - (1 << w), v) if w > 1 else -v
            bits = max(w, 2)
    elif isinstance(etype, FloatType):
        if ctype == "TOTALORDER":
            w = _TOTALORDER_BITS.get(etype.name)
            if w is None:
                return None
            k = _total_order_key(x.view(np.dtype(f"u{w // 8}")), w)
            bits = w
        elif ctype in (None, "FLOAT"):
            # IEEE comparisons: -0 == +0; NaN is unordered and goes last (hlorun's choice,
            # as in NumPy: the spec's sort is undefined for such comparators).
            wide = np.float64 if etype.name == "f64" else np.float32
            xf = x.astype(wide, copy=False)
            has_nan = bool(np.isnan(xf).any())  # no mask kept alive: fewer page faults
            w = 64 if wide is np.float64 else 32
            k = _total_order_key((xf + wide(0)).view(_SINT[w]), w)  # -0 + 0 = +0
            if key.descending:
                k = ~k
            if has_nan:
                k = np.where(np.isnan(xf), np.int64((1 << (w - 1)) - 1), k)
            return k, w
        else:
            return None
    else:
        return None
    if key.descending:
        k = ~k
    return k, bits


def _sort_perm_keys(keys: list[tuple[np.ndarray, int]], is_stable: bool) -> np.ndarray:
    """Permutation (along the last axis) that sorts by ``keys`` lexicographically."""
    n = keys[0][0].shape[-1]
    if len(keys) == 1:
        k, bits = keys[0]
        if bits <= 32 and n < (1 << 31):
            packed = (k << 32) | np.arange(n, dtype=np.int64)
            return np.sort(packed, axis=-1) & np.int64(0xFFFFFFFF)
        return np.argsort(k, axis=-1, kind="stable" if is_stable else None)
    return np.lexsort(tuple(k for k, _ in reversed(keys)), axis=-1)


def _merge_sort_perm(cols: list[np.ndarray], comparator: RegionFn) -> np.ndarray:
    """Stable bottom-up merge sort of the rows of 2-D ``cols`` (batch, n).

    At each level every element finds its place in the merged run by a binary search in
    the other run, all elements at once: one comparator call per search step, so
    O(log^2 n) region calls on whole (batch, n) arrays.  An element ``a`` of the left
    run goes after every ``b`` of the right run with ``comparator(b, a)``; an element
    ``b`` of the right run goes after every ``a`` with ``not comparator(b, a)``.
    """
    batch, n = cols[0].shape
    pos = np.arange(n, dtype=np.int64)
    perm = np.broadcast_to(pos, (batch, n)).copy()
    rows = np.arange(batch, dtype=np.int64)[:, None]
    w = 1
    while w < n:
        cur = [np.take_along_axis(c, perm, axis=1) for c in cols]
        run = pos // w
        is_a = (run % 2) == 0
        pair_start = (run // 2) * (2 * w)
        a_end = np.minimum(pair_start + w, n)
        b_end = np.minimum(pair_start + 2 * w, n)
        start = np.where(is_a, a_end, pair_start)
        lo = np.broadcast_to(start, (batch, n)).copy()
        hi = np.broadcast_to(np.where(is_a, b_end, a_end), (batch, n)).copy()
        while True:
            active = lo < hi
            if not active.any():
                break
            mid = np.minimum((lo + hi) // 2, n - 1)
            lhs_idx = np.where(is_a, mid, pos)
            rhs_idx = np.where(is_a, pos, mid)
            args = []
            for c in cur:
                args.append(c[rows, lhs_idx])
                args.append(c[rows, rhs_idx])
            (r,) = _call(comparator, *args)[:1]
            r = np.broadcast_to(np.asarray(r, dtype=bool), (batch, n))
            pred = np.where(is_a, r, ~r)
            lo = np.where(active & pred, mid + 1, lo)
            hi = np.where(active & ~pred, mid, hi)
        count = lo - start
        new_pos = np.where(is_a, pos + count, pair_start + count + (pos - a_end))
        flat = (rows * n + new_pos).reshape(-1)
        if np.bincount(flat, minlength=batch * n).max(initial=0) > 1:
            raise InterpreterError(
                "'stablehlo.sort' op comparator is not a strict weak ordering "
                "(the sorted order is undefined)"
            )
        new_perm = np.empty_like(perm)
        np.put_along_axis(new_perm, new_pos, perm, axis=1)
        perm = new_perm
        w *= 2
    return perm


@kernel("stablehlo.sort")
def sort(*inputs: np.ndarray, result_types: tuple[Type, ...], dimension: int = -1,
         is_stable: bool = False, comparator: RegionFn) -> Arrays:
    """spec "sort".  A lexicographic comparator over compares of ``arg_{2i}`` with
    ``arg_{2i+1}`` (patterns.sort_keys) becomes integer keys sorted by NumPy (always
    stable); FLOAT compares treat -0 == +0 and put NaN last.  Any other comparator runs
    a stable merge sort that calls it on whole arrays."""
    rank = inputs[0].ndim
    if rank == 0:
        return tuple(np.array(x) for x in inputs)
    dim = dimension + rank if dimension < 0 else dimension
    moved = [np.moveaxis(x, dim, -1) for x in inputs]
    n = moved[0].shape[-1]
    if n <= 1 or moved[0].size == 0:
        return tuple(np.array(x) for x in inputs)
    perm = None
    plan = sort_keys(getattr(comparator, "region", None), len(inputs), transforms=True)
    if plan is not None:
        keys = []
        for sk in plan:
            x, et = sk.key_input(moved[sk.operand], _elem(result_types[sk.operand]))
            if sk.part is not None:
                if not isinstance(et, ComplexType):
                    keys = None
                    break
                et = et.element_type
                x = np.real(x) if sk.part == "real" else np.imag(x)
            if isinstance(et, QuantizedType):
                keys = None
                break
            kk = _sort_key(x, et, sk)
            if kk is None:
                keys = None
                break
            keys.append(kk)
        if keys is not None:
            if not keys:
                perm = np.broadcast_to(np.arange(n), moved[0].shape)
            else:
                perm = _sort_perm_keys(keys, is_stable)
    if perm is None:
        lead = moved[0].shape[:-1]
        cols = [m.reshape(-1, n) for m in moved]
        perm = _merge_sort_perm(cols, comparator).reshape(lead + (n,))
    outs = []
    for m, t in zip(moved, result_types):
        s = np.take_along_axis(m, perm, axis=-1) if perm.ndim > 1 else np.take(m, perm)
        outs.append(np.ascontiguousarray(np.moveaxis(s, -1, dim)).astype(dtype_of(t), copy=False))
    return tuple(outs)


# --------------------------------------------------------------------------------------
# map
# --------------------------------------------------------------------------------------


@kernel("stablehlo.map")
def map_(*inputs: np.ndarray, result_type: Type, dimensions: Sequence[int] = (),
         computation: RegionFn) -> np.ndarray:
    """spec "map": the computation runs once on the whole inputs (elementwise bodies
    broadcast)."""
    (out,) = _call(computation, *inputs)[:1]
    shape = inputs[0].shape if inputs else tuple(result_type.shape)
    return np.array(np.broadcast_to(_as(out, dtype_of(result_type)), shape))

