"""batch_norm_* kernels (spec: batch_norm_inference, batch_norm_training,
batch_norm_grad): narrow floats computed in float32, f64 in float64, rounded once."""

from __future__ import annotations

import numpy as np

from ...parser.errors import UnsupportedError
from ...parser.ir import QuantizedType, Type
from ...shape_inference.optable import kernel
from ..dtypes import dtype_of, element_type


def _bn_work(dt: np.dtype) -> np.dtype:
    return np.dtype(np.float64) if dt == np.float64 else np.dtype(np.float32)


def _bcast(v: np.ndarray, ndim: int, feature_index: int) -> np.ndarray:
    shape = [1] * ndim
    shape[feature_index] = v.shape[0]
    return v.reshape(shape)


def _bn_check(op: str, result_types) -> None:
    for t in result_types if isinstance(result_types, tuple) else (result_types,):
        if isinstance(element_type(t), QuantizedType):
            raise UnsupportedError(f"quantized {op}", op=f"stablehlo.{op}")


@kernel("stablehlo.batch_norm_inference", quantized="dequantize")
def batch_norm_inference(
    operand,
    scale,
    offset,
    mean,
    variance,
    *,
    result_type: Type,
    epsilon: float,
    feature_index: int,
    **_: object,
) -> np.ndarray:
    """spec: batch_norm_inference (narrow floats computed in float32, rounded once)."""
    _bn_check("batch_norm_inference", result_type)
    out = dtype_of(result_type)
    wd = _bn_work(out)
    x = operand.astype(wd, copy=False)
    r = x.ndim
    sc, of, mu, var = (
        _bcast(v.astype(wd), r, feature_index) for v in (scale, offset, mean, variance)
    )
    stddev = np.sqrt(var + wd.type(epsilon))
    y = x - mu  # sc * ((x - mu) / stddev) + of, each step in place in one fresh buffer
    y /= stddev
    y *= sc
    y += of
    return y.astype(out, copy=False)


def _reduce_axes(ndim: int, feature_index: int) -> tuple[int, ...]:
    return tuple(i for i in range(ndim) if i != feature_index)


@kernel("stablehlo.batch_norm_training", quantized="dequantize")
def batch_norm_training(
    operand, scale, offset, *, result_types, epsilon: float, feature_index: int, **_: object
):
    """spec: batch_norm_training: (output, batch_mean, batch_var)."""
    _bn_check("batch_norm_training", tuple(result_types))
    out = dtype_of(result_types[0])
    wd = _bn_work(out)
    x = operand.astype(wd, copy=False)
    axes = _reduce_axes(x.ndim, feature_index)
    count = wd.type(x.size // x.shape[feature_index]) if x.shape[feature_index] else wd.type(0)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = np.sum(x, axis=axes) / count
        centered = x - _bcast(mean, x.ndim, feature_index)
        var = np.sum(centered * centered, axis=axes) / count
        stddev = np.sqrt(_bcast(var, x.ndim, feature_index) + wd.type(epsilon))
        y = centered  # scale * (centered / stddev) + offset, in place (centered dies here)
        y /= stddev
        y *= _bcast(scale.astype(wd), x.ndim, feature_index)
        y += _bcast(offset.astype(wd), x.ndim, feature_index)
    return (
        y.astype(dtype_of(result_types[0]), copy=False),
        mean.astype(dtype_of(result_types[1])),
        var.astype(dtype_of(result_types[2])),
    )


@kernel("stablehlo.batch_norm_grad", quantized="dequantize")
def batch_norm_grad(
    operand,
    scale,
    mean,
    variance,
    grad_output,
    *,
    result_types,
    epsilon: float,
    feature_index: int,
    **_: object,
):
    """spec: batch_norm_grad (the spec's decomposition, from XLA's batchnorm_expander):
    (grad_operand, grad_scale, grad_offset)."""
    _bn_check("batch_norm_grad", tuple(result_types))
    out = dtype_of(result_types[0])
    wd = _bn_work(out)
    x = operand.astype(wd)
    go = grad_output.astype(wd)
    r = x.ndim
    axes = _reduce_axes(r, feature_index)
    sc, mu, var = (_bcast(v.astype(wd), r, feature_index) for v in (scale, mean, variance))
    eps = wd.type(epsilon)
    with np.errstate(invalid="ignore", divide="ignore"):
        centered = x - mu
        stddev = np.sqrt(var + eps)
        normalized = centered / stddev
        n = wd.type(x.size // x.shape[feature_index]) if x.shape[feature_index] else wd.type(0)
        i1 = go * n
        i2 = _bcast(np.sum(go, axis=axes), r, feature_index)
        i3 = _bcast(np.sum(go * centered, axis=axes), r, feature_index)
        i4 = i3 * centered
        i5 = i4 / (var + eps)
        i6 = (i1 - i2) - i5
        grad_operand = ((sc / stddev) / n) * i6
        grad_scale = np.sum(go * normalized, axis=axes)
        grad_offset = np.sum(go, axis=axes)
    return (
        grad_operand.astype(dtype_of(result_types[0])),
        grad_scale.astype(dtype_of(result_types[1])),
        grad_offset.astype(dtype_of(result_types[2])),
    )
