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
level unchanged.  That tree is a valid spec schedule, so float sums are the spec's,
with every partial result rounded to the body's type.  (NumPy's own float sum, pairwise
with 8 interleaved accumulators, is not an in-order tree, so it is never used; each
level of ``T`` is one or two NumPy calls on whole arrays, see ``_pair_level``.)
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
adjacent-pair tree on a copy instead.

sort: lexicographic comparators (patterns.sort_keys) become NumPy sorts of integer keys
(stable); FLOAT compares treat -0 == +0 and, since a comparator that meets NaN is not a
strict weak order and the spec's sort is then undefined, hlorun puts NaN keys last (as
NumPy does), for LT and GT alike.  Other comparators run a stable merge sort that calls
the comparator on whole arrays, O(log^2 n) calls.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from parser.errors import InterpreterError, UnsupportedError
from parser.ir import ComplexType, FloatType, IntegerType, QuantizedType, TensorType, Type
from shape_inference.optable import kernel

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
    """In-order adjacent-pair tree of ``ufunc`` along ``axis`` (size >= 1); the axis is kept."""
    while x.shape[axis] > 1:
        x = _pair_level(x, axis, ufunc)
    return x


# Float dtypes whose adjacent pairs (a, b) NumPy can add as one complex number z = a + bi:
# re(z * (1 - i)) = a*1 - b*(-1) is a + b rounded ONCE (products by +-1 are exact), and
# NumPy's complex multiply is vectorised where strided float adds are not.
_PAIR_AS_COMPLEX = {
    np.dtype(np.float32): (np.dtype(np.complex64), np.complex64(1 - 1j)),
    np.dtype(np.float64): (np.dtype(np.complex128), np.complex128(1 - 1j)),
}
_PAIR_AS_COMPLEX_MIN = 16  # pairs per row below which the plain strided add is as fast


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
        if last:
            ufunc(_slice(x, axis, 0, 2 * half, 2), _slice(x, axis, 1, 2 * half, 2), out=dst)
        else:
            # rows of pairs: a reduction over an inserted axis of length 2 (= x_2i op
            # x_2i+1) runs longer inner loops than the ufunc on two strided views
            pairs = _slice(x, axis, 0, 2 * half, 1)
            pairs = pairs.reshape(x.shape[:axis] + (half, 2) + x.shape[axis + 1 :])
            ufunc.reduce(pairs, axis=axis + 1, out=dst)
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


def _ieee_minmax_reduce(x: np.ndarray, init: np.ndarray, axes: tuple[int, ...], is_max: bool,
                        dtype: np.dtype) -> np.ndarray:
    """IEEE maximum/minimum reduction: NaN propagates, -0 < +0."""
    wide = np.dtype(np.float64 if dtype.itemsize * 8 > 32 else np.float32)
    xw = x if x.dtype == wide else x.astype(wide)
    iw = np.asarray(init).astype(wide)
    uf = np.maximum if is_max else np.minimum
    r = uf.reduce(xw, axis=axes, initial=iw[()])
    zero = r == 0
    if zero.any():
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


def _float_tree(x: np.ndarray, init: np.ndarray, axes: tuple[int, ...], uf: np.ufunc,
                dtype: np.dtype) -> np.ndarray:
    y, axis = _collapse_axes(x, axes)
    if y.shape[axis] == 0:
        out_shape = tuple(s for i, s in enumerate(y.shape) if i != axis)
        return np.full(out_shape, init, dtype=dtype)
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
    ts = _tree_region(ys, axis, body, dtypes)
    ts = [np.squeeze(t, axis=axis) for t in ts]
    res = _call(body, *[np.broadcast_to(v, out_shape) for v in inits], *ts)
    return tuple(np.array(np.broadcast_to(_as(r, dt), out_shape)) for r, dt in zip(res, dtypes))


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

