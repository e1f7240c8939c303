"""Reduction-family kernels: reduce and map (reduce_window and select_and_scatter are in
``window``, sort in ``sort``).

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
``T`` is one or two NumPy calls on whole arrays, see ``_pair_level`` and, along the last
axis, ``reduction_tree``.  The block folds are one ``ufunc.reduce`` over a
non-innermost axis, which NumPy runs as an elementwise loop over the inner axis, once
per fold step in index order; tests/kernels/test_reduce_schedule.py pins that bit for
bit.  The region path runs the same schedule with at most 62 + ceil(log2(K/32)) + 1
region calls: each fold step is one call on all blocks at once.)  Large trees split
over threads into aligned subtrees or independent output slabs, with the same bits
(``_tree_split``).
Integer add/multiply (exact wraparound), and/or/xor and integer max/min are associative
and commutative, so NumPy's reductions give the same result as any schedule; float
max/min use NumPy's reductions and then fix the sign of zero (IEEE ``maximum`` orders
-0 < +0) and propagate NaN.
Known combiners on f16/bf16/f8 use NumPy/ml_dtypes ufuncs, which compute in f32 and
round once (correct for + and * of two values); tf32, quantized and complex
(except add) bodies always run the region.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ...parser.errors import InterpreterError, UnsupportedError
from ...parser.ir import ComplexType, FloatType, IntegerType, QuantizedType, TensorType, Type
from ...shape_inference.optable import OP_TABLE, kernel, register_kernel
from .. import parallel
from ..dtypes import dtype_of, static_shape
from ..ufunc import Ufunc, ieee_max, ieee_min
from ..values import RegionFn
from .conversion import convert
from .elementwise import is_tf32
from .quantization import reduce_targets
from .reduction_tree import tree_last

Arrays = tuple[np.ndarray, ...]

# --------------------------------------------------------------------------------------
# helpers
# --------------------------------------------------------------------------------------


def element_type_of(t: Type) -> Type:
    return t.element_type if isinstance(t, TensorType) else t


def as_dtype(x: Any, dtype: np.dtype) -> np.ndarray:
    """Exact conversion to ``dtype`` (widening within a kind: spec is_promotable)."""
    x = np.asarray(x)
    return x if x.dtype == dtype else x.astype(dtype)


def promote(op: str, xs: Sequence[np.ndarray], types: Sequence[Type]) -> list[np.ndarray]:
    """spec to_destination_type for reduction inputs: widen to the body's types.  For
    quantized types that would be a requantization, which hlorun does not do here."""
    out = []
    for x, t in zip(xs, types):
        dt = dtype_of(t)
        if x.dtype != dt and isinstance(element_type_of(t), QuantizedType):
            raise UnsupportedError(
                f"promoting quantized storage {x.dtype} to the body's {element_type_of(t)} is not supported",
                op=op,
            )
        # spec to_destination_type is convert: is_promotable allows e.g. f6E3M2FN ->
        # f8E8M0FNU, which NumPy's astype between two ml_dtypes types cannot do
        out.append(x if x.dtype == dt and not is_tf32(t) else convert(x, result_type=t))
    return out


def call_region(fn: RegionFn, *values: np.ndarray) -> Arrays:
    out = fn(*values)
    return tuple(out) if isinstance(out, tuple | list) else (out,)


def combiners(fn: RegionFn, n: int) -> tuple[str, ...] | None:
    """Per result ``i`` of ``n`` the op of a body returning ``op_i(acc_i, x_i)``
    (``RegionSummary.fold_ops``), or None."""
    ops = fn.summary.fold_ops
    return ops if ops is not None and len(ops) == n else None


def _wrap(v: np.ndarray, width: int, unsigned: bool) -> np.ndarray:
    """int64 values -> their ``width``-bit two's-complement residue."""
    mask = (1 << width) - 1
    v = v & mask
    if not unsigned:
        v = np.where(v >= (1 << (width - 1)), v - (1 << width), v)
    return v


def is_native_int(dtype: np.dtype) -> bool:
    return (
        dtype.kind in "iu"
        and dtype.itemsize * 8 in (8, 16, 32, 64)
        and dtype.type
        in (np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64)
    )


def _ieee_minmax(is_max: bool) -> Callable[[np.ndarray, np.ndarray], np.ndarray]:
    """spec maximum / minimum on floats (``engine.ufunc.ieee_max``), narrow formats
    computed in float32 (exact: max and min round nothing)."""
    fn = ieee_max if is_max else ieee_min

    def f(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        dtype = np.result_type(a, b)
        wide = dtype if dtype in (np.float16, np.float32, np.float64) else np.dtype(np.float32)
        aw, bw = np.asarray(a).astype(wide, copy=False), np.asarray(b).astype(wide, copy=False)
        return np.asarray(fn(aw, bw)).astype(dtype, copy=False)

    return f


@functools.cache  # (read at every reduce: the op table's rows are fixed once loaded)
def ufunc_of(op: str) -> Ufunc | None:
    """The op table's ``ufunc`` column of ``op`` (``engine.ufunc.Ufunc``), or None."""
    row = OP_TABLE.get(op)
    return row.ufunc if row is not None else None


@functools.cache
def ieee_extremum(op: str) -> str:
    """``"max"`` / ``"min"`` when ``op`` is IEEE maximum / minimum (the ufunc column's
    ``extremum``), else ``""``."""
    uf = ufunc_of(op)
    return uf.extremum if uf is not None else ""


def reduce_ufunc(op: str, kind: str) -> np.ufunc | None:
    """The ufunc that folds ``op`` exactly on values of dtype kind ``kind`` (``b``: i1,
    its boolean ufunc; ``i`` integers; ``f`` floats; ``c`` complex): the op table's
    ``ufunc`` column (``engine.ufunc.Ufunc.reduce``), or None."""
    uf = ufunc_of(op)
    if uf is None:
        return None
    if kind == "b":
        return uf.boolean
    return uf.ufunc if kind in uf.reduce else None


def exact_binary(op: str, t: Type) -> Callable[[np.ndarray, np.ndarray], np.ndarray] | None:
    """A NumPy function computing ``op`` exactly as the spec does for element type ``t``
    (no quantized, tf32 or sub-byte integer types), or None."""
    e = element_type_of(t)
    if isinstance(e, IntegerType):
        if e.is_bool:
            return reduce_ufunc(op, "b")
        return reduce_ufunc(op, "i") if is_native_int(dtype_of(t)) else None
    if isinstance(e, FloatType) and e.name != "tf32":
        if extremum := ieee_extremum(op):
            return _ieee_minmax(extremum == "max")
        return reduce_ufunc(op, "f")
    if isinstance(e, ComplexType):
        return reduce_ufunc(op, "c")
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
    if axis == x.ndim - 1:
        return tree_last(x, ufunc)
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


def _tree_split(
    x: np.ndarray,
    axis: int,
    ufunc: np.ufunc,
    parts: int,
    serial: Callable[[np.ndarray, int, np.ufunc], np.ndarray] | None = None,
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


_PAIR_ROWS_MIN = 64  # inner row length from which a non-last-axis level adds whole rows


def _pair_level(x: np.ndarray, axis: int, ufunc: np.ufunc) -> np.ndarray:
    """One level of the adjacent-pair tree along ``axis``, not the last (the last axis:
    ``reduction_tree.tree_last``): ``ufunc(x_0, x_1), ufunc(x_2, x_3), ...`` with an odd
    last element carried unchanged.  ``ufunc`` is np.add or np.multiply (one IEEE
    operation per pair, whatever NumPy loop runs it)."""
    k = x.shape[axis]
    half, odd = divmod(k, 2)
    shape = x.shape[:axis] + (half + odd,) + x.shape[axis + 1 :]
    out = np.empty(shape, dtype=x.dtype)
    dst = _slice(out, axis, 0, half, 1)
    if math.prod(x.shape[axis + 1 :]) >= _PAIR_ROWS_MIN:
        # whole rows of pairs, contiguous inner loops
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


def tree_region(
    xs: Arrays,
    axis: int,
    body: RegionFn | Callable[[Arrays, Arrays], Arrays],
    dtypes: Sequence[np.dtype],
) -> Arrays:
    """In-order adjacent-pair tree of a (variadic) body along ``axis``; one region call
    (or ``_fold_step`` call) per level."""
    n = len(xs)
    step = body if not isinstance(body, RegionFn) else (lambda a, b: call_region(body, *a, *b))
    while xs[0].shape[axis] > 1:
        k = xs[0].shape[axis]
        lhs = tuple(_slice(x, axis, 0, k - 1, 2) for x in xs)
        rhs = tuple(_slice(x, axis, 1, k, 2) for x in xs)
        ys = step(lhs, rhs)
        if len(ys) != n:
            raise InterpreterError(f"reduction body returned {len(ys)} values, expected {n}")
        shape = lhs[0].shape
        zs = [np.broadcast_to(as_dtype(y, dt), shape) for y, dt in zip(ys, dtypes)]
        if k % 2:
            zs = [
                np.concatenate([z, _slice(x, axis, k - 1, k, 1)], axis=axis) for z, x in zip(zs, xs)
            ]
        xs = tuple(zs)
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
_MINMAX_WIDE: dict[bool, np.dtype] = {False: np.dtype(np.float32), True: np.dtype(np.float64)}


def _ieee_minmax_reduce(
    x: np.ndarray, init: np.ndarray, axes: tuple[int, ...], is_max: bool, dtype: np.dtype
) -> np.ndarray:
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


def _reduce_fast(
    op: str, x: np.ndarray, init: np.ndarray, axes: tuple[int, ...], rtype: Type
) -> np.ndarray | None:
    """A known combiner on a non-quantized type, or None."""
    e = element_type_of(rtype)
    dtype = dtype_of(rtype)
    if isinstance(e, IntegerType) and e.is_bool:
        uf = reduce_ufunc(op, "b")
        if uf is None:
            return None
        return np.asarray(uf.reduce(x, axis=axes, initial=bool(init))).astype(dtype)
    if isinstance(e, IntegerType):
        uf = reduce_ufunc(op, "i")
        if uf is None:
            return None
        if is_native_int(dtype):
            return np.asarray(uf.reduce(x, axis=axes, dtype=dtype, initial=init[()]))
        w = e.width
        xi = x.astype(np.int64)
        r = uf.reduce(xi, axis=axes, initial=int(init))
        return np.asarray(_wrap(r, w, e.is_unsigned)).astype(dtype)
    if isinstance(e, FloatType) and e.name != "tf32":  # tf32 rounding is the body's job
        if extremum := ieee_extremum(op):
            return _ieee_minmax_reduce(x, init, axes, extremum == "max", dtype)
        uf = reduce_ufunc(op, "f")
        if uf is None:
            return None
        return _float_tree(x, init, axes, uf, dtype)
    if isinstance(e, ComplexType):
        uf = reduce_ufunc(op, "c")
        return None if uf is None else _float_tree(x, init, axes, uf, dtype)
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


def _float_tree(
    x: np.ndarray, init: np.ndarray, axes: tuple[int, ...], uf: np.ufunc, dtype: np.dtype
) -> np.ndarray:
    y, axis = _collapse_axes(x, axes)
    if y.shape[axis] == 0:
        out_shape = tuple(s for i, s in enumerate(y.shape) if i != axis)
        return np.full(out_shape, init, dtype=dtype)
    if axis < y.ndim - 1:  # one reduced dimension, not the last: blocked schedule
        t = _blocked_tree(y, axis, uf)
    else:
        t = _tree_ufunc(y, axis, uf)
    out_shape = y.shape[:axis] + y.shape[axis + 1 :]
    res = np.empty(out_shape, dtype=dtype)
    uf(np.asarray(init, dtype=dtype), t.reshape(out_shape), out=res)  # body(init, T(...))
    return res


def reduce(
    *operands: np.ndarray,
    result_types: tuple[Type, ...],
    dimensions: tuple[int, ...],
    body: RegionFn,
) -> Arrays:
    """spec "reduce": see the module docstring for the association order."""
    n = len(operands) // 2
    dtypes = [dtype_of(t) for t in result_types]
    xs, inits = operands[:n], operands[n:]
    if any(a.dtype != dt for a, dt in zip(operands, dtypes * 2)):
        xs = tuple(promote("stablehlo.reduce", xs, result_types))
        inits = tuple(promote("stablehlo.reduce", inits, result_types))
    axes = tuple(sorted(int(d) for d in dimensions))
    quantized = any(isinstance(element_type_of(t), QuantizedType) for t in result_types)
    # non-0-d init values (the MHLO generalisation) take the region path
    ops = None if quantized or any(v.ndim for v in inits) else combiners(body, n)
    if ops is not None:
        outs = [
            _reduce_fast(op, x, v, axes, t) for op, x, v, t in zip(ops, xs, inits, result_types)
        ]
        done = [o for o in outs if o is not None]
        if len(done) == len(outs):
            return tuple(done)
    return _reduce_region(xs, inits, axes, body, dtypes)


REDUCE = register_kernel(
    "stablehlo.reduce", reduce, quantized="native", quantized_targets=reduce_targets
)


def _reduce_region(
    xs: Arrays, inits: Arrays, axes: tuple[int, ...], body: RegionFn, dtypes: Sequence[np.dtype]
) -> Arrays:
    out_shape = tuple(s for i, s in enumerate(xs[0].shape) if i not in axes)
    if not axes:
        ys = call_region(body, *[np.broadcast_to(v, xs[0].shape) for v in inits], *xs)
        return tuple(
            np.broadcast_to(as_dtype(y, dt), out_shape).copy() for y, dt in zip(ys, dtypes)
        )
    collapsed = [_collapse_axes(x, axes) for x in xs]
    axis = collapsed[0][1]
    ys = tuple(c[0] for c in collapsed)
    if ys[0].shape[axis] == 0:
        return tuple(np.full(out_shape, v, dtype=dt) for v, dt in zip(inits, dtypes))
    if axis < ys[0].ndim - 1:  # one reduced dimension, not the last: blocked schedule
        ys = _fold_blocks_region(ys, axis, body, dtypes)
    ts = [np.squeeze(t, axis=axis) for t in tree_region(ys, axis, body, dtypes)]
    res = call_region(body, *[np.broadcast_to(v, out_shape) for v in inits], *ts)
    return tuple(
        np.array(np.broadcast_to(as_dtype(r, dt), out_shape)) for r, dt in zip(res, dtypes)
    )


def _fold_blocks_region(
    ys: Arrays, axis: int, body: RegionFn, dtypes: Sequence[np.dtype]
) -> Arrays:
    """The blocked schedule's leaves ``F_b`` (module docstring) along ``axis``: one region
    call per fold step, on all blocks at once (at most 2 * (_FOLD_BLOCK - 1) calls)."""
    n = len(ys)
    groups = list(zip(*[_fold_blocks_views(y, axis) for y in ys]))  # per block group
    leaves: list[Arrays] = []
    for views in groups:
        acc = tuple(_index(v, axis + 1, 0) for v in views)
        for j in range(1, views[0].shape[axis + 1]):
            res = call_region(body, *acc, *[_index(v, axis + 1, j) for v in views])
            if len(res) != n:
                raise InterpreterError(f"reduction body returned {len(res)} values, expected {n}")
            shape = acc[0].shape
            acc = tuple(np.broadcast_to(as_dtype(r, dt), shape) for r, dt in zip(res, dtypes))
        leaves.append(acc)
    if len(leaves) == 1:
        return leaves[0]
    return tuple(np.concatenate(parts, axis=axis) for parts in zip(*leaves))


# --------------------------------------------------------------------------------------
# map
# --------------------------------------------------------------------------------------


@kernel("stablehlo.map", quantized="native")
def map_(
    *inputs: np.ndarray, result_type: Type, dimensions: Sequence[int] = (), computation: RegionFn
) -> np.ndarray:
    """spec "map": the computation runs once on the whole inputs (elementwise bodies
    broadcast)."""
    (out,) = call_region(computation, *inputs)[:1]
    shape = inputs[0].shape if inputs else static_shape(result_type)
    return np.array(np.broadcast_to(as_dtype(out, dtype_of(result_type)), shape))
