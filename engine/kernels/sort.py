"""sort kernel (spec "sort").

sort: lexicographic comparators (``RegionSummary.sort_keys``) become NumPy sorts of integer keys
(stable); FLOAT compares treat -0 == +0 and, since a comparator that meets NaN is not a
strict weak order and the spec's sort is then undefined, hlorun puts NaN keys last (as
NumPy does), for LT and GT alike.  Other comparators run a stable merge sort that calls
the comparator on whole arrays, O(log^2 n) calls.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ...parser.errors import InterpreterError
from ...parser.ir import ComplexType, FloatType, IntegerType, QuantizedType, Type
from ...shape_inference.optable import kernel
from ..dtypes import dtype_of
from ..region_analysis import SortKey
from ..values import RegionFn
from .reduction import Arrays, call_region, element_type_of

# --------------------------------------------------------------------------------------
# sort
# --------------------------------------------------------------------------------------

# float element types whose bit patterns order like IEEE totalOrder under the
# sign-magnitude -> two's-complement trick (all bits used, IEEE-style sign bit).
_TOTALORDER_BITS = {
    "f16": 16,
    "bf16": 16,
    "f32": 32,
    "tf32": 32,
    "f64": 64,
    "f8E4M3": 8,
    "f8E4M3FN": 8,
    "f8E5M2": 8,
    "f8E3M4": 8,
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
            tw = _TOTALORDER_BITS.get(etype.name)
            if tw is None:
                return None
            k = _total_order_key(x.view(np.dtype(f"u{tw // 8}")), tw)
            bits = tw
        elif ctype in (None, "FLOAT"):
            # IEEE comparisons: -0 == +0; NaN is unordered and goes last (hlorun's choice,
            # as in NumPy: the spec's sort is undefined for such comparators).
            wide = np.float64 if etype.name == "f64" else np.float32
            xf: np.ndarray = x.astype(wide, copy=False)
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
            (r,) = call_region(comparator, *args)[:1]
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


def _exact_keys(
    comparator: RegionFn,
    plan: tuple[SortKey, ...],
    moved: list[np.ndarray],
    result_types: Sequence[Type],
) -> list[tuple[np.ndarray, int]] | None:
    """The integer keys (``_sort_key``) of a lexicographic comparator's ``plan``, or
    None when some key has no exact integer form."""
    keys = []
    for k, sk in enumerate(plan):
        got = comparator.key_input(k, moved[sk.operand], element_type_of(result_types[sk.operand]))
        if got is None:
            return None
        x, et = got
        if sk.part is not None:
            if not isinstance(et, ComplexType):
                return None
            et = et.element_type
            x = np.real(x) if sk.part == "real" else np.imag(x)
        if isinstance(et, QuantizedType):
            return None
        kk = _sort_key(x, et, sk)
        if kk is None:
            return None
        keys.append(kk)
    return keys


def comparator_keys(comparator: RegionFn, n: int) -> tuple[SortKey, ...] | None:
    """The lexicographic keys of a comparator of ``n`` operands (``2n`` arguments), as
    its ``RegionSummary`` records them, or None."""
    summary = comparator.summary
    return summary.sort_keys if summary.arguments == 2 * n else None


@kernel("stablehlo.sort", quantized="native")
def sort(
    *inputs: np.ndarray,
    result_types: tuple[Type, ...],
    dimension: int = -1,
    is_stable: bool = False,
    comparator: RegionFn,
) -> Arrays:
    """spec "sort".  A lexicographic comparator over compares of ``arg_{2i}`` with
    ``arg_{2i+1}`` (``RegionSummary.sort_keys``) becomes integer keys sorted by NumPy (always
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
    plan = comparator_keys(comparator, len(inputs))
    keys = None if plan is None else _exact_keys(comparator, plan, moved, result_types)
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
