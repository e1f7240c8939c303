"""Data-movement kernels (spec: constant, iota, broadcast_in_dim, reshape, transpose,
reverse, get_dimension_size and the dynamic_* shape forms; slice, concatenate, pad are in
``slicing``, gather and scatter in ``gather_scatter``).

Every kernel here moves or selects elements without arithmetic on them, so it works for
every element type (bool, all integers incl. ml_dtypes int2/int4, all floats incl. the
narrow ml_dtypes ones, complex, quantized storage arrays): NumPy slicing, fancy
indexing, ``np.pad``-free padding and ``np.concatenate`` all work on ml_dtypes arrays.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ...parser.errors import InterpreterError, UnsupportedError
from ...parser.ir import (
    ComplexType,
    DenseElementsAttr,
    FloatType,
    IntegerType,
    Operation,
    QuantizedType,
    TensorType,
    Type,
)
from ...shape_inference.optable import kernel, register_kernel
from ..dtypes import dtype_of, static_shape
from ..memory import reserve
from ..plan import INPLACE_MIN_ELEMENTS, plain_dtype, static_size

_I64_MAX = np.iinfo(np.int64).max
_ndarray = np.ndarray


# --------------------------------------------------------------------------------------
# helpers
# --------------------------------------------------------------------------------------


def int_tuple(values: Any) -> tuple[int, ...]:
    """A dimension list (tuple, DenseArrayAttr values, or dense array) -> tuple of ints."""
    if values is None:
        return ()
    if type(values) is tuple and all(type(v) is int for v in values):
        return values
    if isinstance(values, np.ndarray):
        return tuple(int(v) for v in values.reshape(-1))
    return tuple(int(v) for v in values)


def as_i64(a: np.ndarray) -> np.ndarray:
    """Integer index values -> int64, saturating unsigned values above int64's range
    (they only ever get clamped down afterwards)."""
    a = np.asarray(a)
    if a.dtype == np.int64:
        return a
    if a.dtype.kind == "u" and a.dtype.itemsize == 8:
        return np.minimum(a, np.uint64(_I64_MAX)).astype(np.int64)
    return a.astype(np.int64)


def scalar_index(a: Any) -> int:
    """A 0-d integer index as a Python int (exact for every integer type: callers clamp)."""
    if isinstance(a, np.ndarray) and a.ndim:
        a = a.reshape(())
    return int(a)


def _result_dtype(result_type: Type | None, fallback: np.dtype) -> np.dtype:
    if isinstance(result_type, TensorType):
        return dtype_of(result_type)
    return fallback


def runtime_shape(values: np.ndarray, result_type: Type | None, op: str) -> tuple[int, ...]:
    """A shape operand's runtime values, checked against the static dims of the result."""
    shape = tuple(int(v) for v in as_i64(values).reshape(-1))
    if any(d < 0 for d in shape):
        raise InterpreterError(f"'stablehlo.{op}': negative dimension size in {list(shape)}")
    if isinstance(result_type, TensorType) and result_type.shape is not None:
        declared = result_type.shape
        if len(declared) != len(shape) or any(
            d is not None and d != s for d, s in zip(declared, shape)
        ):
            raise InterpreterError(
                f"'stablehlo.{op}': runtime shape {list(shape)} does not match the result "
                f"type's shape {['?' if d is None else d for d in declared]}"
            )
    if isinstance(result_type, TensorType):
        reserve(shape, dtype_of(result_type))  # the memory budget, before allocating
    return shape


# --------------------------------------------------------------------------------------
# constant, iota
# --------------------------------------------------------------------------------------


def constant(*, result_type: Type, value: Any, value_type: Type | None = None, **_: Any):
    """spec: constant.  The attribute's array already holds the result's storage dtype."""
    if isinstance(value, DenseElementsAttr):
        value = value.array
    if not isinstance(value, np.ndarray):
        raise UnsupportedError(
            f"'stablehlo.constant' with a {type(value).__name__} value is not supported"
        )
    dtype = _result_dtype(result_type, value.dtype)
    if value.dtype != dtype:
        if value.dtype.itemsize == dtype.itemsize:
            return value.view(dtype)
        raise InterpreterError(
            f"'stablehlo.constant': value of dtype {value.dtype} for a result of dtype {dtype}"
        )
    return value


CONSTANT = register_kernel("stablehlo.constant", constant, quantized="native")


def _quantize_indices(idx: np.ndarray, q: QuantizedType) -> np.ndarray:
    """spec: quantize(x, type) for x = index values, computed in the expressed type."""
    if q.is_per_axis:
        raise UnsupportedError("iota with a per-axis quantized result is not supported")
    etype = dtype_of(q.expressed_type)
    storage = dtype_of(q.storage_type)
    info_min, info_max = _storage_range(q)
    x = idx.astype(etype)
    scaled = x / np.asarray(q.scales[0]).astype(etype)
    scaled = scaled + np.asarray(q.zero_points[0]).astype(etype)
    clamped = np.clip(
        scaled, np.asarray(info_min).astype(etype), np.asarray(info_max).astype(etype)
    )
    rounded = np.rint(clamped.astype(np.float64))
    return rounded.astype(np.int64).astype(storage)


def _storage_range(q: QuantizedType) -> tuple[int, int]:
    st = q.storage_type
    w = st.width
    if st.is_unsigned:
        lo, hi = 0, (1 << w) - 1
    else:
        lo, hi = -(1 << (w - 1)), (1 << (w - 1)) - 1
    return (
        lo if q.storage_min is None else q.storage_min,
        hi if q.storage_max is None else q.storage_max,
    )


def _iota_values(n: int, elem: Type, dtype: np.dtype) -> np.ndarray:
    """The values 0..n-1 converted to the element type (spec: constant(i, element_type))."""
    idx = np.arange(n, dtype=np.int64)
    if isinstance(elem, QuantizedType):
        return _quantize_indices(idx, elem)
    if isinstance(elem, IntegerType) and elem.is_bool:
        return idx != 0
    if isinstance(elem, FloatType | ComplexType):
        return idx.astype(np.float64).astype(dtype)
    return idx.astype(dtype)  # integers: wraparound, as convert does


def _iota(shape: Sequence[int], iota_dimension: int, result_type: TensorType) -> np.ndarray:
    dtype = dtype_of(result_type)
    rank = len(shape)
    if not 0 <= iota_dimension < rank:
        raise InterpreterError(f"iota_dimension {iota_dimension} out of range for rank {rank}")
    values = _iota_values(shape[iota_dimension], result_type.element_type, dtype)
    view = [1] * rank
    view[iota_dimension] = shape[iota_dimension]
    return np.broadcast_to(values.reshape(view), tuple(shape))


@kernel("stablehlo.iota", quantized="dequantize")
def iota(*, result_type: TensorType, iota_dimension: int, **_: Any) -> np.ndarray:
    """spec: iota."""
    if not result_type.is_static:
        raise InterpreterError("'stablehlo.iota' needs a static result shape")
    return _iota(static_shape(result_type), iota_dimension, result_type)


@kernel("stablehlo.dynamic_iota", quantized="dequantize")
def dynamic_iota(output_shape, *, result_type: TensorType, iota_dimension: int, **_: Any):
    """spec: dynamic_iota."""
    shape = runtime_shape(output_shape, result_type, "dynamic_iota")
    return _iota(shape, iota_dimension, result_type)


# --------------------------------------------------------------------------------------
# broadcast_in_dim, reshape, transpose, reverse, get_dimension_size
# --------------------------------------------------------------------------------------


def broadcast_layout(
    operand_shape: Sequence[int], shape: Sequence[int], dims: Sequence[int]
) -> tuple[tuple[int, ...] | None, tuple[int, ...]]:
    """spec broadcast_in_dim as NumPy views: the transpose that puts the operand's axes in
    result order (None: already are) and the shape with size-1 axes inserted, which then
    broadcasts to ``shape``.  InterpreterError when an operand dimension cannot."""
    for d, n in enumerate(operand_shape):
        if n not in (1, shape[dims[d]]):
            raise InterpreterError(
                f"operand dimension {d} of size {n} cannot broadcast to "
                f"result dimension {dims[d]} of size {shape[dims[d]]}"
            )
    order = sorted(range(len(operand_shape)), key=lambda d: dims[d])
    view = [1] * len(shape)
    for d in order:
        view[dims[d]] = operand_shape[d]
    perm = tuple(order) if order != sorted(order) else None
    return perm, tuple(view)


def _broadcast_in_dim(operand: np.ndarray, shape: tuple[int, ...], dims: tuple[int, ...]):
    perm, view = broadcast_layout(operand.shape, shape, dims)
    moved = operand if perm is None else np.transpose(operand, perm)
    return np.broadcast_to(moved.reshape(view), shape)


def _broadcast_in_dim_fast(
    op: Operation, rt: Type, dt: np.dtype, kwargs: dict[str, Any]
) -> Callable[..., Any] | None:
    """spec broadcast_in_dim between static shapes of one plain dtype, laid out once by
    the kernel's ``broadcast_layout`` (small results are materialised: cheaper than
    NumPy's broadcast_to, and later ops read them faster)."""
    (x,) = op.operands
    xt = x.type
    if (
        not (
            isinstance(rt, TensorType)
            and rt.is_static
            and isinstance(xt, TensorType)
            and xt.is_static
        )
        or plain_dtype(xt) != dt
    ):
        return None
    dims = tuple(int(d) for d in kwargs.get("broadcast_dimensions") or ())
    shape, xshape = static_shape(rt), static_shape(xt)
    if len(dims) != len(xshape) or any(not 0 <= r < len(shape) for r in dims):
        return None  # the kernel reports it
    try:
        perm, view = broadcast_layout(xshape, shape, dims)
    except InterpreterError:
        return None  # the kernel reports it, at run time
    if perm is None and math.prod(view) == math.prod(shape):  # unit axes inserted
        return lambda a: a.reshape(shape)  # a view, as reshape's
    if (static_size(rt) or 0) > INPLACE_MIN_ELEMENTS:
        if perm is None:  # a contiguous operand: the read-only view made directly
            strides = [0] * len(shape)
            step = dt.itemsize
            for d in reversed(range(len(shape))):
                if view[d] != 1:
                    strides[d] = step
                    step *= view[d]
            made = _ndarray
            size = math.prod(view)

            def big(a: Any) -> Any:
                if a.__class__ is made and a.flags.c_contiguous and a.size == size:
                    r = made(shape, dt, a, 0, strides)
                    r.flags.writeable = False
                    return r
                return np.broadcast_to(a.reshape(view), shape)

            return big

        def big_moved(a: Any) -> Any:
            return np.broadcast_to(a.transpose(perm).reshape(view), shape)

        return big_moved

    def small(a: Any) -> Any:
        out = np.empty(shape, dt)
        out[...] = (a if perm is None else a.transpose(perm)).reshape(view)
        return out

    return small


@kernel("stablehlo.broadcast_in_dim", fast_plan=_broadcast_in_dim_fast, quantized="storage")
def broadcast_in_dim(operand, *, result_type: TensorType, broadcast_dimensions, **_: Any):
    """spec: broadcast_in_dim.  A dynamic (bounded) result dimension takes the size of
    the operand dimension mapped to it."""
    dims = int_tuple(broadcast_dimensions)
    if result_type.shape is None:
        raise InterpreterError("'stablehlo.broadcast_in_dim': the result type is unranked")
    shape = list(result_type.shape)
    for d, rd in enumerate(dims):
        if shape[rd] is None and operand.shape[d] != 1:
            shape[rd] = operand.shape[d]
    sizes = tuple(n for n in shape if n is not None)
    if len(sizes) != len(shape):
        raise InterpreterError(
            "'stablehlo.broadcast_in_dim': cannot tell the size of a dynamic result dimension"
        )
    return _broadcast_in_dim(operand, sizes, dims)


@kernel("stablehlo.broadcast", quantized="storage")
def broadcast(operand, *, broadcast_sizes, **_: Any) -> np.ndarray:
    """Deprecated op: result[i..., j...] = operand[j...] with i over broadcast_sizes."""
    return np.broadcast_to(operand, int_tuple(broadcast_sizes) + operand.shape)


@kernel("stablehlo.dynamic_broadcast_in_dim", quantized="storage")
def dynamic_broadcast_in_dim(
    operand, output_dimensions, *, result_type: TensorType, broadcast_dimensions, **_: Any
):
    """spec: dynamic_broadcast_in_dim."""
    shape = runtime_shape(output_dimensions, result_type, "dynamic_broadcast_in_dim")
    return _broadcast_in_dim(operand, shape, int_tuple(broadcast_dimensions))


def _reshape(operand: np.ndarray, shape: Sequence[int | None]) -> np.ndarray:
    dims = [-1 if d is None else d for d in shape]
    if dims.count(-1) > 1:
        raise InterpreterError(
            f"cannot reshape {operand.shape} to a shape with several dynamic dimensions"
        )
    try:
        return operand.reshape(dims)
    except ValueError as e:
        raise InterpreterError(f"cannot reshape {operand.shape} to {list(shape)}") from e


def _reshape_fast(
    op: Operation, rt: Type, dt: np.dtype, kwargs: dict[str, Any]
) -> Callable[..., Any] | None:
    """spec reshape (row-major) between static shapes of one plain dtype."""
    (x,) = op.operands
    if not (isinstance(rt, TensorType) and rt.is_static) or plain_dtype(x.type) != dt:
        return None
    shape = static_shape(rt)
    return lambda a: a.reshape(shape)


def reshape(operand, *, result_type: TensorType, **_: Any) -> np.ndarray:
    """spec: reshape (row-major order is kept)."""
    if result_type.shape is None:
        raise InterpreterError("'stablehlo.reshape': the result type is unranked")
    return _reshape(operand, result_type.shape)


RESHAPE = register_kernel(
    "stablehlo.reshape", reshape, fast_plan=_reshape_fast, quantized="storage"
)


@kernel("stablehlo.dynamic_reshape", quantized="storage")
def dynamic_reshape(operand, output_shape, *, result_type: TensorType, **_: Any):
    """spec: dynamic_reshape."""
    shape = runtime_shape(output_shape, result_type, "dynamic_reshape")
    return _reshape(operand, shape)


def _transpose_fast(
    op: Operation, rt: Type, dt: np.dtype, kwargs: dict[str, Any]
) -> Callable[..., Any] | None:
    """spec transpose between static shapes of one plain dtype: a view, its axes
    permuted (as the kernel's)."""
    (x,) = op.operands
    xt = x.type
    if not (
        isinstance(rt, TensorType)
        and rt.is_static
        and isinstance(xt, TensorType)
        and xt.is_static
        and xt.shape
        and plain_dtype(xt) == dt
    ):
        return None
    perm = int_tuple(kwargs.get("permutation"))
    xshape = static_shape(xt)
    if sorted(perm) != list(range(len(xshape))) or tuple(xshape[d] for d in perm) != static_shape(
        rt
    ):
        return None  # the kernel reports it
    return lambda a: a.transpose(perm)


@kernel("stablehlo.transpose", fast_plan=_transpose_fast, quantized="storage")
def transpose(operand, *, permutation, **_: Any) -> np.ndarray:
    """spec: transpose: result_index[d] = operand_index[permutation[d]]."""
    return np.transpose(operand, int_tuple(permutation))


@kernel("stablehlo.reverse", quantized="storage")
def reverse(operand, *, dimensions, **_: Any) -> np.ndarray:
    """spec: reverse."""
    dims = set(int_tuple(dimensions))
    return operand[
        tuple(slice(None, None, -1) if d in dims else slice(None) for d in range(operand.ndim))
    ]


@kernel("stablehlo.get_dimension_size", quantized="native")
def get_dimension_size(operand, *, dimension: int, result_type: Type | None = None, **_: Any):
    """spec: get_dimension_size (result si32)."""
    return np.array(operand.shape[dimension], dtype=_result_dtype(result_type, np.dtype(np.int32)))


@kernel("stablehlo.set_dimension_size", quantized="native")
def set_dimension_size(operand, size, *, dimension: int, result_type: Type, **_: Any):
    """set_dimension_size (not in the spec; XLA's SetDimensionSize): dimension
    ``dimension`` gets the runtime size ``size``, at most the operand's; the elements up
    to it are the operand's (XLA leaves the rest as padding, which a static array has
    no room for: the result holds the first ``size``).  A result type whose dimension is
    static must have that size."""
    n = int(size)
    full = operand.shape[dimension]
    if not 0 <= n <= full:
        raise InterpreterError(
            f"set_dimension_size: size {n} is outside [0, {full}] (dimension {dimension})",
            op="stablehlo.set_dimension_size",
        )
    shape = result_type.shape if isinstance(result_type, TensorType) else None
    declared = shape[dimension] if shape is not None else None
    if declared is not None and declared != n:
        raise InterpreterError(
            f"set_dimension_size: size {n} differs from the result's static dimension "
            f"{dimension} of size {declared}",
            op="stablehlo.set_dimension_size",
        )
    if n == full:
        return operand
    index = [slice(None)] * operand.ndim
    index[dimension] = slice(0, n)
    return operand[tuple(index)]
