"""Quantization kernels (spec "uniform_quantize", "uniform_dequantize", and
"Execution semantics of quantized operations" / "Quantization computations").

A quantized tensor's value is its storage array; its quantization parameters live in
its type.  ``dequantize`` and ``quantize`` follow the spec's formulas step by step, each
arithmetic step rounded once to the expressed type E (f16/bf16/f32 values are combined
in float64, where + and / of two such values are exact or round correctly, then
rounded once to E; f64 computes natively):

* ``dequantize(x) = convert(x - zero_point, E) * scale``; the subtraction is exact
  (int64), the conversion rounds to nearest even;
* ``quantize(x) = convert(round_nearest_even(clamp(convert(storage_min, E),
  x / scale + convert(zero_point, E), convert(storage_max, E))), storage_type)``.
  A NaN becomes 0 and a value beyond the storage type's range (possible only when
  storage_min/max are not exact in E) saturates, as ``convert`` does.

Per-axis types broadcast their scales and zero points along ``quantized_dimension``.

``quantized_kernel`` gives every op with a quantized operand or result its spec
semantics:

* element-wise and linear-algebra ops: ``dequantize_op_quantize`` (also
  ``dequantize_batch_norm_grad_or_training_quantize``, ``dequantize_select_quantize``
  and the hybrid ``hybrid_dequantize_then_op`` of dot_general / convolution, whose float
  result is not quantized): the op's own kernel runs on the dequantized operands with
  float types ``TensorType(shape, expressed_type)``;
* compare: ``dequantize_compare`` (a FLOAT comparison of the dequantized operands);
* is_finite: true (spec);
* data movement (reshape, transpose, slice, gather, pad, concatenate...): the storage
  moves unchanged, as the spec's ``element_type(result) = element_type(operand)``
  allows; with differing parameters (not valid StableHLO) they dequantize and quantize;
* ops with regions (reduce, reduce_window, sort, map, scatter, select_and_scatter,
  collectives, control flow): the kernel runs the region on storage arrays, whose own
  ops are quantized ops in turn; inputs are first converted to the region's types
  (spec ``to_destination_type``, a requantization) where they differ;
* every other op (convert, bitwise ops, fft, chlo...): ``UnsupportedError``, as the spec
  does not allow quantized tensors there.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ...parser.errors import InterpreterError, UnsupportedError
from ...parser.ir import FloatType, Operation, QuantizedType, TensorType, Type
from ...shape_inference.optable import OpDef, kernel
from ..dtypes import dtype_of
from ..values import RegionFn
from . import _bits as B

# --------------------------------------------------------------------------------------
# quantize / dequantize
# --------------------------------------------------------------------------------------


def _quantized(t: Type | None) -> QuantizedType | None:
    e = t.element_type if isinstance(t, TensorType) else t
    return e if isinstance(e, QuantizedType) else None


def _expressed(q: QuantizedType) -> tuple[np.dtype, bool]:
    """(dtype of the expressed type, is it tf32)."""
    e = q.expressed_type
    if not isinstance(e, FloatType):
        raise UnsupportedError(f"quantized type with expressed type {e}")
    return dtype_of(e), e.name == "tf32"


def _round_to(y: np.ndarray, dt: np.dtype, tf32: bool) -> np.ndarray:
    """float64 values -> the nearest values of E (one rounding), held in float64."""
    if dt == B.F64:
        return y
    return B.round_float(y, dt, tf32=tf32).astype(B.F64)


def storage_range(q: QuantizedType) -> tuple[int, int]:
    """(storage_min, storage_max), with the storage type's range as defaults."""
    lo, hi = B.int_min_max(dtype_of(q.storage_type))
    return (
        lo if q.storage_min is None else q.storage_min,
        hi if q.storage_max is None else q.storage_max,
    )


def _axis_view(q: QuantizedType, rank: int, values: Sequence[Any], dtype: Any) -> np.ndarray:
    """Per-tensor: a scalar; per-axis: the per-slice values shaped to broadcast along
    ``quantized_dimension`` counted from the LAST axis (so arrays with extra leading
    batch dimensions, as region bodies see them, broadcast the same way)."""
    a = np.asarray(values, dtype=dtype)
    if q.quantized_dimension is None:
        return a.reshape(())
    d = q.quantized_dimension
    if not 0 <= d < rank:
        raise InterpreterError(f"quantization dimension {d} out of range for rank {rank}")
    return a.reshape((len(values),) + (1,) * (rank - 1 - d))


def _rank(t: Type) -> int:
    return t.rank if isinstance(t, TensorType) and t.shape is not None else 0


def _scales(q: QuantizedType, rank: int) -> np.ndarray:
    """``constant(scale, expressed_type)`` for every slice, as float64."""
    dt, tf32 = _expressed(q)
    return _round_to(_axis_view(q, rank, q.scales, B.F64), dt, tf32)


def dequantize(x: np.ndarray, t: Type) -> np.ndarray:
    """spec ``dequantize``: storage values of quantized type ``t`` -> expressed type."""
    q = _quantized(t)
    if q is None:
        raise InterpreterError(f"dequantize of a non-quantized type {t}")
    dt, tf32 = _expressed(q)
    rank = _rank(t)
    diff = B.int_compute(np.asarray(x)).astype(np.int64) - _axis_view(
        q, rank, q.zero_points, np.int64
    )
    with np.errstate(over="ignore", invalid="ignore", under="ignore"):
        if dt == B.F64 and not tf32:
            return diff.astype(B.F64) * _scales(q, rank)
        converted = B.int_to_float(diff, dt, tf32=tf32).astype(B.F64)
        return B.round_float(converted * _scales(q, rank), dt, tf32=tf32).astype(dt, copy=False)


def quantize(x: np.ndarray, t: Type) -> np.ndarray:
    """spec ``quantize``: values of the expressed type -> storage values of ``t``."""
    q = _quantized(t)
    if q is None:
        raise InterpreterError(f"quantize to a non-quantized type {t}")
    dt, tf32 = _expressed(q)
    rank = _rank(t)
    storage = dtype_of(q.storage_type)
    lo, hi = storage_range(q)
    zps = _round_to(_axis_view(q, rank, q.zero_points, np.int64).astype(B.F64), dt, tf32)
    bounds = _round_to(np.asarray([lo, hi], dtype=B.F64), dt, tf32)
    x64 = np.asarray(x).astype(B.F64)
    with np.errstate(over="ignore", invalid="ignore", under="ignore", divide="ignore"):
        scaled = _round_to(x64 / _scales(q, rank), dt, tf32)
        shifted = _round_to(scaled + zps, dt, tf32)
        clamped = np.minimum(np.maximum(shifted, bounds[0]), bounds[1])  # NaN stays NaN
        rounded = np.rint(clamped)
    return B.float_to_int(rounded, storage).astype(storage, copy=False)


def requantize(x: np.ndarray, src: Type, dst: Type) -> np.ndarray:
    """spec ``to_destination_type`` between (quantized) types: storage of ``src`` ->
    storage of ``dst`` (dequantize, then quantize; unchanged when the types agree)."""
    qs, qd = _quantized(src), _quantized(dst)
    if qs == qd:
        return x
    if qs is not None and qd is not None:
        return quantize(dequantize(x, src), dst)
    if qs is not None:
        return dequantize(x, src)
    if qd is not None:
        return quantize(x, dst)
    raise InterpreterError(f"no conversion from {src} to {dst}")


# --------------------------------------------------------------------------------------
# uniform_quantize, uniform_dequantize
# --------------------------------------------------------------------------------------


@kernel("stablehlo.uniform_quantize", operand_types=True, quantized=True)
def uniform_quantize(
    operand: np.ndarray, *, result_type: Type, operand_types: Sequence[Type] = ()
) -> np.ndarray:
    """spec: uniform_quantize (float -> quantized, or quantized -> quantized)."""
    src = operand_types[0] if operand_types else None
    if src is not None and _quantized(src) is not None:
        operand = dequantize(operand, src)
    return quantize(operand, result_type)


@kernel("stablehlo.uniform_dequantize", operand_types=True, quantized=True)
def uniform_dequantize(
    operand: np.ndarray, *, result_type: Type, operand_types: Sequence[Type] = ()
) -> np.ndarray:
    """spec: uniform_dequantize."""
    if not operand_types or _quantized(operand_types[0]) is None:
        raise InterpreterError(
            "uniform_dequantize needs a quantized operand type", op="stablehlo.uniform_dequantize"
        )
    out = dequantize(operand, operand_types[0])
    return out.astype(dtype_of(result_type), copy=False)


# --------------------------------------------------------------------------------------
# quantized_kernel: the spec's semantics of ops on quantized tensors
# --------------------------------------------------------------------------------------

# How each op treats quantized tensors is the ``quantized`` option of its kernel, set
# where the kernel is registered (``@kernel(..., quantized=...)``):
#
# * ``"dequantize"``: spec dequantize_op_quantize (and its batch_norm / select / hybrid
#   variants); iota too (spec: constant(quantize(index)), the float iota, quantized);
# * ``"compare"``: compare of the dequantized values; ``"is_finite"``: always true;
# * ``"storage"``: data movement, element_type(result) = element_type(operand) (modulo
#   per-axis quantization dimension / repeated parameters): the storage moves as is;
# * ``"native"``: the kernel takes quantized storage as it is (values pass through, or
#   the op's regions run, their ops being quantized ops in turn); region ops whose
#   inputs convert to the region's element types (spec is_promotable /
#   to_destination_type) name the conversion with ``quantized_targets``: a function
#   (operand_types, result_types) -> the type each operand converts to (None: as is);
# * ``True``: the kernel handles quantized types itself (uniform_quantize...).
# Ops without the option do not take quantized tensors.


def reduce_targets(ins: Sequence[Type], outs: Sequence[Type]) -> list[Type | None]:
    n = len(outs)
    return [_retype(t, outs[i % n]) for i, t in enumerate(ins[: 2 * n])]


def scatter_targets(ins: Sequence[Type], outs: Sequence[Type]) -> list[Type | None]:
    n = len(outs)
    inputs = [_retype(t, o) for t, o in zip(ins[:n], outs)]
    updates = [_retype(t, o) for t, o in zip(ins[n + 1 :], outs)]
    return [*inputs, None, *updates]


def select_and_scatter_targets(ins: Sequence[Type], outs: Sequence[Type]) -> list[Type | None]:
    return [None, _retype(ins[1], outs[0]), _retype(ins[2], outs[0])]


def _retype(t: Type, like: Type) -> Type | None:
    """``t``'s shape with ``like``'s element type, when the element types differ and one
    of them is quantized (a requantization); None otherwise."""
    if not isinstance(t, TensorType) or not isinstance(like, TensorType):
        return None
    if t.element_type == like.element_type:
        return None
    if _quantized(t) is None and _quantized(like) is None:
        return None
    return TensorType(t.shape, like.element_type)


def float_type(t: Type) -> Type:
    """A quantized tensor type -> ``TensorType(shape, expressed_type)``; others as is."""
    q = _quantized(t)
    if q is None or not isinstance(t, TensorType):
        return t
    return TensorType(t.shape, q.expressed_type)


def quantized_kernel(op: Operation, row: OpDef, kernel: Callable[..., Any]) -> Callable[..., Any]:
    """The kernel to run for ``op`` when it has quantized operands or results: by the
    ``quantized`` option of its kernel (the notes above)."""
    policy = row.kernel_options.get("quantized")
    if policy is True:
        return kernel
    if policy == "dequantize":
        return _dequantize_op_quantize(op, row, kernel)
    if policy == "compare":
        return _dequantize_compare(op, kernel)
    if policy == "is_finite":
        return _is_finite_quantized
    if policy == "storage":
        if _moves_storage(op):
            return kernel
        return _dequantize_op_quantize(op, row, kernel)
    if policy == "native":
        if row.regions:
            return _native_regions(op, row, kernel)
        return kernel
    raise UnsupportedError(
        "does not take quantized tensors (spec: not in its Inputs / Outputs)", op.pos, op=op.name
    )


def _same_parameters_modulo_axis(a: QuantizedType, b: QuantizedType) -> bool:
    """Equal, or both per-axis with the same storage / expressed types, ranges and
    parameters, or ``a`` has one (scale, zero point) that ``b`` repeats: the spec lets
    reshape / transpose / broadcast_in_dim move the quantization dimension and repeat
    the parameters of a size-1 dimension (broadcast_in_dim_c6)."""
    if a == b:
        return True
    if not (a.is_per_axis and b.is_per_axis):
        return False
    if (a.storage_type, a.expressed_type, a.storage_min, a.storage_max) != (
        b.storage_type,
        b.expressed_type,
        b.storage_min,
        b.storage_max,
    ):
        return False
    pa, pb = list(zip(a.scales, a.zero_points)), list(zip(b.scales, b.zero_points))
    return pa == pb or (len(pa) == 1 and all(p == pa[0] for p in pb))


def _moves_storage(op: Operation) -> bool:
    """Do all quantized operands and results of a data-movement op share their
    quantization (so the storage values mean the same in the result)?"""
    qs = [_quantized(t) for t in (*op.operand_types, *op.result_types)]
    if any(q is None for q, t in zip(qs, (*op.operand_types, *op.result_types)) if _is_data(t)):
        return False  # a float operand with a quantized result, or the other way round
    present = [q for q in qs if q is not None]
    return all(_same_parameters_modulo_axis(present[0], q) for q in present[1:])


def _is_data(t: Type) -> bool:
    """Is ``t`` a data operand (float or quantized), not an index / shape operand?"""
    e = t.element_type if isinstance(t, TensorType) else t
    return isinstance(e, QuantizedType | FloatType)


def _dequantize_op_quantize(
    op: Operation, row: OpDef, kernel: Callable[..., Any]
) -> Callable[..., Any]:
    """spec dequantize_op_quantize: dequantize the quantized operands, run the float op
    with float types, quantize the results whose declared type is quantized."""
    in_types = op.operand_types
    out_types = op.result_types
    f_in = tuple(float_type(t) for t in in_types)
    f_out = tuple(float_type(t) for t in out_types)
    deq = [_quantized(t) is not None for t in in_types]
    req = [_quantized(t) is not None for t in out_types]
    multi = row.multi_result

    def run(*operands: Any, **kwargs: Any) -> Any:
        xs = [dequantize(x, t) if d else x for x, t, d in zip(operands, in_types, deq)]
        if "operand_types" in kwargs:
            kwargs["operand_types"] = f_in
        if multi:
            kwargs["result_types"] = f_out
            outs = kernel(*xs, **kwargs)
            return tuple(quantize(o, t) if r else o for o, t, r in zip(outs, out_types, req))
        kwargs["result_type"] = f_out[0] if f_out else None
        out = kernel(*xs, **kwargs)
        return quantize(out, out_types[0]) if req and req[0] else out

    run.__name__ = f"quantized_{op.name.split('.')[-1]}"
    return run


def _dequantize_compare(op: Operation, kernel: Callable[..., Any]) -> Callable[..., Any]:
    """spec dequantize_compare: a FLOAT comparison of the dequantized operands."""
    in_types = op.operand_types
    f_in = tuple(float_type(t) for t in in_types)

    def run(lhs: np.ndarray, rhs: np.ndarray, **kwargs: Any) -> np.ndarray:
        a = dequantize(lhs, in_types[0]) if _quantized(in_types[0]) else lhs
        b = dequantize(rhs, in_types[1]) if _quantized(in_types[1]) else rhs
        kwargs["compare_type"] = "FLOAT"
        if "operand_types" in kwargs:
            kwargs["operand_types"] = f_in
        return kernel(a, b, **kwargs)

    return run


def _is_finite_quantized(x: np.ndarray, **_: Any) -> np.ndarray:
    """spec is_finite: "For quantized types, the result is always true"."""
    return np.ones(np.shape(x), dtype=np.bool_)


def _plain_region(fn: Any) -> Any:
    """A RegionFn whose summary has no combiners, so that kernels run the region (whose
    quantized ops dequantize and quantize) instead of a NumPy ufunc on storage values."""
    if isinstance(fn, RegionFn) and fn.summary.combiners is not None:
        return RegionFn(
            region=fn.region, call=fn.call, summary=fn.summary.without_combiners(), keys=fn.keys
        )
    if isinstance(fn, tuple):
        return tuple(_plain_region(f) for f in fn)
    return fn


def _native_regions(op: Operation, row: OpDef, kernel: Callable[..., Any]) -> Callable[..., Any]:
    """A region op on quantized storage: regions without combiner hints, and operands
    converted to the region's types first (spec to_destination_type)."""
    names = row.regions
    targets_of = row.kernel_options.get("quantized_targets")
    targets: list[Type | None] = []
    if targets_of is not None:
        try:
            targets = targets_of(op.operand_types, op.result_types)
        except IndexError:
            targets = []
    conversions = [(i, op.operand_types[i], t) for i, t in enumerate(targets) if t is not None]
    converted_types = list(op.operand_types)
    for i, _, t in conversions:
        converted_types[i] = t

    def run(*operands: Any, **kwargs: Any) -> Any:
        for n in names:
            if n in kwargs:
                kwargs[n] = _plain_region(kwargs[n])
        if conversions:
            xs = list(operands)
            for i, src, dst in conversions:
                xs[i] = requantize(xs[i], src, dst)
            operands = tuple(xs)
            if "operand_types" in kwargs:
                kwargs["operand_types"] = tuple(converted_types)
        return kernel(*operands, **kwargs)

    run.__name__ = f"quantized_{op.name.split('.')[-1]}"
    return run
