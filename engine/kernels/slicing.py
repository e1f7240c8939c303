"""Slicing kernels (spec: slice, dynamic_slice, dynamic_update_slice, real_dynamic_slice,
concatenate, pad, dynamic_pad): data movement without arithmetic, for every element type,
as in ``movement``."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ...parser.errors import InterpreterError
from ...parser.ir import Operation, TensorType, Type
from ...shape_inference.optable import kernel, register_kernel
from ..dtypes import static_shape
from ..memory import reserve
from ..plan import FastCall, plain_dtype
from .movement import as_i64, int_tuple, runtime_shape, scalar_index

_I64_MAX = np.iinfo(np.int64).max

# --------------------------------------------------------------------------------------
# slice, dynamic_slice, dynamic_update_slice, real_dynamic_slice
# --------------------------------------------------------------------------------------


def _static_shapes(
    values: Sequence[Any], rt: Type, dt: np.dtype
) -> tuple[tuple[int, ...], ...] | None:
    """The static shapes of ``values`` (an operand, an update) and of the result when all
    are of the result's plain dtype ``dt`` and of rank at least 1 (0-d values may be held
    as NumPy scalars, which the kernels convert); else None."""
    types = [v.type for v in values] + [rt]
    if not all(isinstance(t, TensorType) and t.is_static and t.shape for t in types):
        return None
    if any(plain_dtype(t) != dt for t in types[:-1]):
        return None
    return tuple(static_shape(t) for t in types)


def _slice_fast(op: Operation, rt: Type, dt: np.dtype, kwargs: dict[str, Any]) -> Any:
    """spec slice between static shapes: its index tuple made once."""
    shapes = _static_shapes(op.operands[:1], rt, dt)
    if shapes is None:
        return None
    xshape, shape = shapes
    try:
        bounds = tuple(
            zip(
                int_tuple(kwargs["start_indices"]),
                int_tuple(kwargs["limit_indices"]),
                int_tuple(kwargs["strides"]),
            )
        )
    except (KeyError, TypeError, ValueError):
        return None
    if len(bounds) != len(xshape) or not all(
        0 <= s <= l <= n and st > 0 for (s, l, st), n in zip(bounds, xshape)
    ):
        return None  # the kernel reports it
    if tuple(len(range(s, l, st)) for s, l, st in bounds) != shape:
        return None
    idx = tuple(slice(s, l, st) for s, l, st in bounds)
    return lambda a: a[idx]


def _window(shape: Sequence[int], sizes: Sequence[int]) -> Callable[[Sequence[Any]], tuple]:
    """``starts -> index``: the index tuple of the window of ``sizes`` at ``starts`` in an
    array of ``shape``, each start clamped to ``[0, dim - size]`` in Python ints (spec
    dynamic_slice / dynamic_update_slice: adjusted_start_indices = clamp(0,
    start_indices, shape(operand) - sizes)), the bounds worked out once."""
    dims = tuple((n - k, k) for n, k in zip(shape, sizes))

    def index(starts: Sequence[Any]) -> tuple:
        idx = []
        for i, (hi, k) in zip(starts, dims):
            s = scalar_index(i)
            s = 0 if s < 0 else hi if s > hi else s
            idx.append(slice(s, s + k))
        return tuple(idx)

    return index


def _dynamic_slice_fast(op: Operation, rt: Type, dt: np.dtype, kwargs: dict[str, Any]) -> Any:
    """spec dynamic_slice between static shapes (``_window``)."""
    shapes = _static_shapes(op.operands[:1], rt, dt)
    if shapes is None:
        return None
    xshape, shape = shapes
    sizes = int_tuple(kwargs.get("slice_sizes"))
    if (
        sizes != shape
        or len(op.operands) != 1 + len(shape)
        or any(k > n for k, n in zip(sizes, xshape))
    ):
        return None  # the kernel reports it
    index = _window(xshape, sizes)

    def dynamic_slice_planned(a: np.ndarray, *starts: Any) -> np.ndarray:
        return a[index(starts)]

    return dynamic_slice_planned


def _dynamic_update_slice_fast(
    op: Operation, rt: Type, dt: np.dtype, kwargs: dict[str, Any]
) -> Any:
    """spec dynamic_update_slice between static shapes (``_window``); into the operand's
    own buffer when it dies there and nobody else holds it (``FastCall.into``: the
    emitted step checks that and passes it as ``out``)."""
    shapes = _static_shapes(op.operands[:2], rt, dt)
    if shapes is None:
        return None
    xshape, ushape, shape = shapes
    if (
        xshape != shape
        or len(ushape) != len(shape)
        or len(op.operands) != 2 + len(shape)
        or any(k > n for k, n in zip(ushape, shape))
    ):
        return None  # the kernel reports it
    index = _window(shape, ushape)

    def dynamic_update_slice_planned(
        a: np.ndarray, update: np.ndarray, *starts: Any, out: np.ndarray | None = None
    ) -> np.ndarray:
        result = out if out is a else a.copy()
        result[index(starts)] = update
        return result

    return FastCall(dynamic_update_slice_planned, None, dt, (0,))


@kernel("stablehlo.slice", fast_plan=_slice_fast, quantized="storage")
def slice_(operand, *, start_indices, limit_indices, strides, **_: Any) -> np.ndarray:
    """spec: slice: operand_index = start_indices + result_index * strides."""
    return operand[
        tuple(
            slice(s, l, st)
            for s, l, st in zip(
                int_tuple(start_indices), int_tuple(limit_indices), int_tuple(strides)
            )
        )
    ]


@kernel("stablehlo.real_dynamic_slice", quantized="storage")
def real_dynamic_slice(
    operand, start_indices, limit_indices, strides, *, result_type=None, **_: Any
):
    """StableHLO dialect op: slice with the three index lists given as 1-d operands."""
    starts, limits, steps = (
        tuple(int(v) for v in as_i64(a).reshape(-1))
        for a in (start_indices, limit_indices, strides)
    )
    if not len(starts) == len(limits) == len(steps) == operand.ndim:
        raise InterpreterError(
            "'stablehlo.real_dynamic_slice': index lists must have one "
            f"entry per operand dimension ({operand.ndim})"
        )
    for d, (s, l, st) in enumerate(zip(starts, limits, steps)):
        if st <= 0 or not 0 <= s <= l <= operand.shape[d]:
            raise InterpreterError(
                f"'stablehlo.real_dynamic_slice': invalid slice [{s}:{l}:{st}] of dimension "
                f"{d} of size {operand.shape[d]}"
            )
    out = operand[tuple(slice(s, l, st) for s, l, st in zip(starts, limits, steps))]
    if isinstance(result_type, TensorType) and result_type.shape is not None:
        runtime_shape(np.array(out.shape), result_type, "real_dynamic_slice")
    return out


@kernel("stablehlo.dynamic_slice", fast_plan=_dynamic_slice_fast, quantized="storage")
def dynamic_slice(operand, *start_indices, slice_sizes, **_: Any) -> np.ndarray:
    """spec: dynamic_slice (start indices clamped)."""
    return operand[_window(operand.shape, int_tuple(slice_sizes))(start_indices)]


def dynamic_update_slice(
    operand, update, *start_indices, out: np.ndarray | None = None, **_: Any
) -> np.ndarray:
    """spec: dynamic_update_slice (start indices clamped).  When the interpreter hands
    over the dying operand's own buffer as ``out``, the update is written in place (a
    loop filling a buffer slice by slice then costs O(slice) per step, not O(buffer))."""
    result = out if out is not None and out is operand else operand.copy()
    result[_window(operand.shape, update.shape)(start_indices)] = update
    return result


DYNAMIC_UPDATE_SLICE = register_kernel(
    "stablehlo.dynamic_update_slice",
    dynamic_update_slice,
    fast_plan=_dynamic_update_slice_fast,
    quantized="storage",
)


# --------------------------------------------------------------------------------------
# concatenate, pad
# --------------------------------------------------------------------------------------


@kernel("stablehlo.concatenate", quantized="storage")
def concatenate(*inputs, dimension: int, **_: Any) -> np.ndarray:
    """spec: concatenate."""
    return np.concatenate(inputs, axis=dimension)


def _pad(operand: np.ndarray, padding_value: np.ndarray, low, high, interior) -> np.ndarray:
    """spec: pad: result[low + i * (interior + 1)] = operand[i]; negative edges crop."""
    tmp_shape, place, crop = [], [], []
    for n, lo, hi, it in zip(operand.shape, low, high, interior):
        if it < 0:
            raise InterpreterError(f"interior padding must be non-negative, got {it}")
        inner = n + max(n - 1, 0) * it
        lo_pos, hi_pos = max(lo, 0), max(hi, 0)
        size = lo_pos + inner + hi_pos
        if lo + inner + hi < 0:
            raise InterpreterError("padding gives a negative dimension size")
        tmp_shape.append(size)
        place.append(slice(lo_pos, lo_pos + inner, it + 1))
        crop.append(slice(max(-lo, 0), size - max(-hi, 0)))
    reserve(tmp_shape, operand.dtype)  # the memory budget, before allocating
    out = np.full(tmp_shape, np.asarray(padding_value).reshape(()), dtype=operand.dtype)
    out[tuple(place)] = operand
    return out[tuple(crop)]


@kernel("stablehlo.pad", quantized="storage")
def pad(
    operand, padding_value, *, edge_padding_low, edge_padding_high, interior_padding, **_: Any
) -> np.ndarray:
    """spec: pad."""
    return _pad(
        operand,
        padding_value,
        int_tuple(edge_padding_low),
        int_tuple(edge_padding_high),
        int_tuple(interior_padding),
    )


@kernel("stablehlo.dynamic_pad", quantized="storage")
def dynamic_pad(
    operand,
    padding_value,
    edge_padding_low,
    edge_padding_high,
    interior_padding,
    *,
    result_type=None,
    **_: Any,
) -> np.ndarray:
    """spec: dynamic_pad."""
    lists = [
        tuple(int(v) for v in as_i64(a).reshape(-1))
        for a in (edge_padding_low, edge_padding_high, interior_padding)
    ]
    if any(len(x) != operand.ndim for x in lists):
        raise InterpreterError(
            "'stablehlo.dynamic_pad': padding operands must have one entry "
            f"per operand dimension ({operand.ndim})"
        )
    out = _pad(operand, padding_value, *lists)
    if isinstance(result_type, TensorType) and result_type.shape is not None:
        runtime_shape(np.array(out.shape), result_type, "dynamic_pad")
    return out
