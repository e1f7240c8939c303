"""chlo kernels of the ops that are not elementwise: top_k, ragged_dot, scan (source of
truth: stablehlo docs/chlo.md).  The elementwise and broadcasting chlo ops are in
``chlo``."""

from __future__ import annotations

from typing import Any

import ml_dtypes
import numpy as np

from ...parser.errors import InterpreterError, UnsupportedError
from ...parser.ir import IntegerType, QuantizedType, TensorType, Type
from ...shape_inference.chlo_structured import (
    ragged_dot_fields,
    ragged_dot_mode,
    scan_num_inputs,
)
from ...shape_inference.optable import kernel
from ..dtypes import static_shape
from ..values import RegionFn
from .chlo import out_dtype, round_from_f64

F16, F32, F64 = np.dtype(np.float16), np.dtype(np.float32), np.dtype(np.float64)
C64, C128 = np.dtype(np.complex64), np.dtype(np.complex128)
_ML_SIGNED = (np.dtype(ml_dtypes.int2), np.dtype(ml_dtypes.int4))
_ML_UNSIGNED = (np.dtype(ml_dtypes.uint2), np.dtype(ml_dtypes.uint4))


def int_kind(dt: np.dtype) -> str | None:
    """ "i" for signed integers (NumPy or ml_dtypes int2/int4), "u" for unsigned, else None."""
    if dt.kind in "iu":
        return dt.kind
    if dt in _ML_SIGNED:
        return "i"
    if dt in _ML_UNSIGNED:
        return "u"
    return None


# --------------------------------------------------------------------------------------
# top_k
# --------------------------------------------------------------------------------------


def _descending_key(x: np.ndarray) -> np.ndarray:
    """An array whose ascending order is the descending total order of ``x`` (floats:
    -NaN < -inf < ... < -0 < +0 < ... < +inf < +NaN, as XLA's float comparators)."""
    if x.dtype == np.bool_:
        return ~x
    kind = int_kind(x.dtype)
    if kind is not None:
        return ~(x if x.dtype.kind in "iu" else x.astype(np.int64))
    if x.dtype.kind == "c":
        raise UnsupportedError("chlo.top_k of complex values is not supported", op="chlo.top_k")
    bits = x.astype(F64).view(np.int64)
    # sign-magnitude -> two's complement: negative values flip their magnitude bits.
    key = np.where(bits < 0, bits ^ np.int64(0x7FFFFFFFFFFFFFFF), bits)
    return ~key


@kernel("chlo.top_k", operand_types=True)
def top_k(
    operand: np.ndarray,
    *,
    result_types: tuple[Type, ...],
    k: int,
    is_stable: bool = False,
    operand_types: tuple[Type, ...] | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """chlo.top_k: the ``k`` largest entries along the last dimension, largest first; ties
    keep the lower index first (a stable order, whatever ``is_stable`` says)."""
    t = operand_types[0] if operand_types else None
    e = t.element_type if isinstance(t, TensorType) else None
    if isinstance(e, QuantizedType) and e.is_per_axis and e.quantized_dimension == operand.ndim - 1:
        raise UnsupportedError(
            "chlo.top_k over a per-axis quantized dimension is not supported", op="chlo.top_k"
        )
    if operand.ndim == 0 or operand.shape[-1] < k:
        raise InterpreterError(f"top_k: k = {k} exceeds the last dimension", op="chlo.top_k")
    key = _descending_key(operand)
    order = np.argsort(key, axis=-1, kind="stable")[..., :k]
    values = np.take_along_axis(operand, order, axis=-1)
    vdt, idt = out_dtype(result_types[0]), out_dtype(result_types[1])
    return values.astype(vdt, copy=False), order.astype(idt)


# --------------------------------------------------------------------------------------
# ragged_dot
# --------------------------------------------------------------------------------------

_LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"


def _accumulation_dtype(dt: np.dtype) -> np.dtype:
    if dt.kind == "c":
        return C128
    if dt == np.bool_:
        return np.dtype(np.int64)
    kind = int_kind(dt)
    if kind == "u":
        return np.dtype(np.uint64)
    if kind == "i":
        return np.dtype(np.int64)
    return F64


def _finish(acc: np.ndarray, dt: np.dtype) -> np.ndarray:
    """Round (floats) or wrap modulo 2^N (integers) the accumulator to the result type."""
    if dt == np.bool_:
        return acc != 0
    if acc.dtype == F64:
        return round_from_f64(acc, dt)
    with np.errstate(all="ignore"):
        return acc.astype(dt)


def _dot(lhs: np.ndarray, rhs: np.ndarray, lb, rb, lc, rc) -> np.ndarray:
    """dot_general via einsum: result dims = batch, lhs free, rhs free."""
    lsub = [""] * lhs.ndim
    rsub = [""] * rhs.ndim
    it = iter(_LETTERS)
    for a, b in zip(lb, rb):
        lsub[a] = rsub[b] = next(it)
    for a, b in zip(lc, rc):
        lsub[a] = rsub[b] = next(it)
    for i in range(lhs.ndim):
        if not lsub[i]:
            lsub[i] = next(it)
    for i in range(rhs.ndim):
        if not rsub[i]:
            rsub[i] = next(it)
    out = [lsub[a] for a in lb]
    out += [lsub[i] for i in range(lhs.ndim) if i not in lb and i not in lc]
    out += [rsub[i] for i in range(rhs.ndim) if i not in rb and i not in rc]
    spec = f"{''.join(lsub)},{''.join(rsub)}->{''.join(out)}"
    return np.einsum(spec, lhs, rhs)


def _dot_shape(lhs, rhs, lb, rb, lc, rc, skip) -> tuple[int, ...]:
    """The shape of _dot's result (rhs dims in ``skip`` left out)."""
    return (
        tuple(lhs.shape[d] for d in lb)
        + tuple(lhs.shape[i] for i in range(lhs.ndim) if i not in lb and i not in lc)
        + tuple(
            rhs.shape[i] for i in range(rhs.ndim) if i not in rb and i not in rc and i not in skip
        )
    )


def _place(mask: np.ndarray, positions: list[int], ndim: int) -> np.ndarray:
    """A mask with dims in ``positions`` order, reshaped to broadcast in an ndim array."""
    order = np.argsort(positions)
    m = np.transpose(mask, order)
    shape = [1] * ndim
    for i, p in enumerate(sorted(positions)):
        shape[p] = m.shape[i]
    return m.reshape(shape)


def _group_masks(group_sizes: np.ndarray, n: int) -> np.ndarray:
    """[..., g, n] booleans: index i (0 <= i < n) lies in group j."""
    gs = group_sizes.astype(np.int64)
    ends = np.cumsum(gs, axis=-1)
    starts = ends - gs
    i = np.arange(n)
    return (starts[..., None] <= i) & (i < ends[..., None])


@kernel("chlo.ragged_dot", operand_types=True)
def ragged_dot(
    lhs: np.ndarray,
    rhs: np.ndarray,
    group_sizes: np.ndarray,
    *,
    result_type: Type,
    ragged_dot_dimension_numbers: Any,
    precision_config: Any = None,
    operand_types: tuple[Type, ...] | None = None,
) -> np.ndarray:
    """chlo.ragged_dot (docs/chlo.md), modes 1-3.  Mode 1 (ragged non-contracting dim m):
    row m of group j uses rhs group j; rows past the last group are 0.  Mode 2 (ragged
    contracting dim k): one dot per group over its k-range, stacked in front.  Mode 3
    (ragged batch dim): a batched dot.  Products accumulate in float64 / complex128 /
    64-bit integers, rounded once."""
    for t in (result_type, *(operand_types or ())):
        if isinstance(t, TensorType) and isinstance(t.element_type, QuantizedType):
            raise UnsupportedError(
                "chlo.ragged_dot of quantized tensors is not supported", op="chlo.ragged_dot"
            )
    dims = ragged_dot_fields(ragged_dot_dimension_numbers)
    lb, rb = dims["lhs_batching_dimensions"], dims["rhs_batching_dimensions"]
    lc, rc = dims["lhs_contracting_dimensions"], dims["rhs_contracting_dimensions"]
    r = dims["lhs_ragged_dimensions"][0]
    rg = dims["rhs_group_dimensions"]
    dt = out_dtype(result_type)
    acc = _accumulation_dtype(dt)
    a = lhs.astype(acc)
    b = rhs.astype(acc)
    mode = ragged_dot_mode(dims, lhs.ndim)
    gs = np.asarray(group_sizes)
    if mode == 3:
        return _finish(_dot(a, b, lb, rb, lc, rc), dt)
    if mode == 1:
        g_dim = rg[0]
        n = lhs.shape[r]
        masks = _group_masks(gs, n)  # [batch..., g, n] or [g, n]
        lfree = [i for i in range(lhs.ndim) if i not in lb and i not in lc]
        out_ndim = len(lb) + len(lfree) + (rhs.ndim - len(rb) - len(rc) - 1)
        r_pos = len(lb) + lfree.index(r)
        out = None
        rb_j = tuple(d if d < g_dim else d - 1 for d in rb)
        rc_j = tuple(d if d < g_dim else d - 1 for d in rc)
        for j in range(rhs.shape[g_dim]):
            d = _dot(a, np.take(b, j, axis=g_dim), lb, rb_j, lc, rc_j)
            mj = masks[..., j, :]
            positions = list(range(gs.ndim - 1)) + [r_pos]
            m = _place(mj, positions, out_ndim)
            if out is None:
                out = np.zeros(d.shape, dtype=acc)
            out = np.where(m, d, out)
        if out is None:  # no groups: every row is outside all groups
            out = np.zeros(_dot_shape(lhs, rhs, lb, rb, lc, rc, (g_dim,)), dtype=acc)
        return _finish(out, dt)
    # mode 2: ragged contracting dimension.
    k = lhs.shape[r]
    rk = rc[lc.index(r)]
    masks = _group_masks(gs, k)  # [batch..., g, k]
    ng = masks.shape[-2]
    lpos = list(lb[: gs.ndim - 1]) + [r]
    rpos = list(rb[: gs.ndim - 1]) + [rk]
    outs = []
    for j in range(ng):
        mj = masks[..., j, :]
        aj = np.where(_place(mj, lpos, lhs.ndim), a, 0)
        bj = np.where(_place(mj, rpos, rhs.ndim), b, 0)
        outs.append(_dot(aj, bj, lb, rb, lc, rc))
    if not outs:
        return _finish(np.zeros((0, *_dot_shape(lhs, rhs, lb, rb, lc, rc, ())), acc), dt)
    return _finish(np.stack(outs, axis=0), dt)


# --------------------------------------------------------------------------------------
# scan
# --------------------------------------------------------------------------------------


@kernel("chlo.scan", operand_types=True)
def scan(
    *operands: np.ndarray,
    result_types: tuple[Type, ...],
    body: RegionFn,
    dimension: int,
    is_reverse: bool = False,
    is_associative: bool | None = None,
    scan_dim_size: int | None = None,
    operandSegmentSizes: tuple[int, ...] | None = None,  # noqa: N803 (MLIR's name)
    resultSegmentSizes: tuple[int, ...] | None = None,  # noqa: N803
    operand_types: tuple[Type, ...] | None = None,
) -> tuple[np.ndarray, ...]:
    """chlo.scan (docs/chlo.md, XLA "Scan"): for each index along ``dimension`` (last to
    first when ``is_reverse``), ``body(input slices..., carries...)`` returns the output
    slices at that index and the next carries.  Returns (outputs..., final carries...)."""
    region = getattr(body, "region", None)
    block_types = None
    if region is not None and region.blocks:
        block_types = tuple(v.type for v in region.blocks[0].arguments)
    types = operand_types or tuple(TensorType(tuple(o.shape), IntegerType(32)) for o in operands)
    n_in = scan_num_inputs(types, block_types, operandSegmentSizes)
    if n_in is None:
        raise UnsupportedError(
            "cannot tell the scan's inputs from its inits (no operandSegmentSizes)",
            op="chlo.scan",
        )
    inputs, carries = list(operands[:n_in]), list(operands[n_in:])
    n_out = len(result_types) - len(carries)
    size = inputs[0].shape[dimension] if inputs else (scan_dim_size or 0)
    steps = range(size - 1, -1, -1) if is_reverse else range(size)
    slices: list[list[np.ndarray]] = [[None] * size for _ in range(n_out)]  # type: ignore[list-item]
    for i in steps:
        args = [np.take(x, i, axis=dimension) for x in inputs]
        res = body(*args, *carries)
        if len(res) != n_out + len(carries):
            raise InterpreterError(
                f"scan body returned {len(res)} values, expected {n_out + len(carries)}",
                op="chlo.scan",
            )
        for j in range(n_out):
            slices[j][i] = np.asarray(res[j])
        carries = [np.asarray(c) for c in res[n_out:]]
    outs = []
    for j in range(n_out):
        dt = out_dtype(result_types[j])
        if size == 0:
            t = result_types[j]
            if not (isinstance(t, TensorType) and t.is_static):
                raise UnsupportedError("empty scan with a dynamic output shape", op="chlo.scan")
            outs.append(np.zeros(static_shape(t), dtype=dt))
        else:
            outs.append(np.stack(slices[j], axis=dimension).astype(dt, copy=False))
    finals = [
        np.asarray(c).astype(out_dtype(t), copy=False)
        for c, t in zip(carries, result_types[n_out:])
    ]
    return tuple(outs + finals)
