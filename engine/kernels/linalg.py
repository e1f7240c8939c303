"""linalg kernels: dot_general, dot, fft, triangular_solve, cholesky (spec: see each
function; convolution and dynamic_conv are in convolution.py, batch_norm_* in
batch_norm.py).

Arithmetic policy (shared by dot_general and convolution):

* integer results: operands are converted to the result type first (spec: the
  products and sums are in ``element_type(result)``), then multiplied in int64 /
  uint64, which NumPy computes exactly modulo 2**64; wrapping to the result width
  gives exactly the spec's wraparound result.  When ``k * max|lhs| * max|rhs| <
  2**53`` (k = contraction length) the same integers go through float64 BLAS
  instead: every partial sum is then an integer below 2**53, so every float64
  operation is exact whatever the summation order; the result is identical, faster.
* bool (i1) results: ``and`` then ``or``: the count of true products, ``!= 0``.
* f32 / f64 results: operands converted to the result type, one BLAS matmul
  (summation order is BLAS's, as the spec leaves it unspecified; a convolution that
  conv_shifted.py takes is one gemm per kernel tap, accumulated by BLAS); f32
  convolutions of more than ``CONV_F64_K`` terms per result element compute in
  float64, rounded once.
* complex results: up to ``COMPLEX_IN_ORDER_K`` (4096) contracted terms, the reference
  interpreter's in-order schedule per result element (``complex_matmul_in_order``:
  products and sums rounded to the element type one by one, vectorized over the
  result); longer contractions one BLAS matmul.
* narrow floats (bf16, f16, f8*, f6*, f4*) and tf32: computed in float64 and rounded
  ONCE to the result type (float64 -> float32 rounding to odd, then to the narrow
  type: no double rounding).  Each product of two narrow values is exact in float64;
  the float64 sum is exact too unless the terms span more than ~53 bits of
  magnitude, so the result is the correctly rounded exact dot product except in
  that (rare) case, where it is within the float64 sum's error of it.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from functools import lru_cache
from typing import Any

import ml_dtypes
import numpy as np

from ...parser.errors import UnsupportedError
from ...parser.ir import (
    ComplexType,
    FloatType,
    IntegerType,
    Operation,
    QuantizedType,
    TensorType,
    Type,
)
from ...shape_inference.optable import kernel, register_kernel
from ..dtypes import dtype_of, static_shape
from ..parallel import blas_controls, blas_threads_chosen, workers
from ..plan import plain_dtype
from . import _bits as B
from .blas_threads import matmul as blas_matmul

# --------------------------------------------------------------------------------------
# helpers
# --------------------------------------------------------------------------------------

_NATIVE_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))


def _element(t: Type) -> Type:
    return t.element_type if isinstance(t, TensorType) else t


def _check_not_quantized(op: str, result_type: Type, *operands: np.ndarray) -> None:
    if (
        len(operands) == 2
        and operands[0].dtype == operands[1].dtype
        and not isinstance(_element(result_type), QuantizedType)
    ):
        return
    if isinstance(_element(result_type), QuantizedType):
        raise UnsupportedError(f"quantized '{op}' is not supported", op=f"stablehlo.{op}")
    # Mixed non-quantized operands (f32 x i32: jax's TPU svd; upstream's verifier accepts
    # them) are converted to the result type; quantized operands never get here
    # (quantization.py dequantizes them first).


@lru_cache(maxsize=256)
def _compute_dtype(result_type: Type) -> tuple[np.dtype, np.dtype]:
    """(result dtype, dtype the products and sums are computed in)."""
    out = dtype_of(result_type)
    et = _element(result_type)
    if isinstance(et, IntegerType):
        if et.is_bool:
            return out, np.dtype(np.int64)
        return out, np.dtype(np.uint64 if et.is_unsigned else np.int64)
    if isinstance(et, ComplexType):
        return out, out
    if isinstance(et, FloatType):
        if out in _NATIVE_FLOATS and et.name != "tf32":
            return out, out
        return out, np.dtype(np.float64)
    raise UnsupportedError(f"element type {et} is not supported")


def _to_compute(x: np.ndarray, out: np.dtype, work: np.dtype, tf32: bool = False) -> np.ndarray:
    """Convert an operand to the result type (spec: the computation is in the result
    type), then to the dtype the arithmetic runs in."""
    if x.dtype != out or tf32:
        x = _from_compute(x, out, tf32)  # integer narrowing wraps, as convert does
    if x.dtype != work:
        x = x.astype(work)
    return x


def _exact_in_float64(a: np.ndarray, b: np.ndarray, k: int) -> bool:
    """True when an integer dot product of length ``k`` of values of ``a`` and ``b`` can
    run in float64 BLAS exactly: every partial sum is an integer of magnitude at most
    ``k * max|a| * max|b| < 2**53``, so every float64 operation (in any order, with or
    without FMA) is exact."""
    if a.size == 0 or b.size == 0:
        return True
    ma = max(abs(int(a.min())), abs(int(a.max())))
    mb = max(abs(int(b.min())), abs(int(b.max())))
    return max(k, 1) * ma * mb < 2**53


_SUBBYTE = {
    np.dtype(ml_dtypes.int2): (2, True),
    np.dtype(ml_dtypes.int4): (4, True),
    np.dtype(ml_dtypes.uint2): (2, False),
    np.dtype(ml_dtypes.uint4): (4, False),
}


def _from_compute(y: np.ndarray, out: np.dtype, tf32: bool = False) -> np.ndarray:
    """Compute dtype -> result dtype: integers wrap modulo 2**width, floats are rounded
    ONCE (float64 -> narrow formats through float32 rounded to odd)."""
    if out == np.bool_:
        return y != 0
    if tf32:
        y32 = B.round_to_odd_f32(y) if y.dtype == np.float64 else y.astype(np.float32)
        return B.round_tf32(y32)  # (NaNs keep sign and payload, as tf32 holds them)
    if y.dtype == out:
        return y
    if out in _SUBBYTE:
        width, signed = _SUBBYTE[out]
        u = y.astype(np.int64) & ((1 << width) - 1)
        if signed:
            u = (u ^ (1 << (width - 1))) - (1 << (width - 1))
        return u.astype(out)
    if y.dtype == np.float64 and out not in (np.float32, np.float16) and out.kind != "c":
        with np.errstate(over="ignore", invalid="ignore"):
            return B.round_to_odd_f32(y).astype(out)
    return y.astype(out)


def _finish(y: np.ndarray, out: np.dtype, tf32: bool = False) -> np.ndarray:
    if not tf32 and type(y) is np.ndarray and y.dtype == out:
        return y
    return np.asarray(_from_compute(np.asarray(y), out, tf32))


def _is_tf32(t: Type) -> bool:
    e = _element(t)
    return isinstance(e, FloatType) and e.name == "tf32"


# --------------------------------------------------------------------------------------
# dot_general / dot
# --------------------------------------------------------------------------------------


COMPLEX_IN_ORDER_K = 4096
"""Complex contractions of up to this many terms run the reference interpreter's
schedule (``complex_matmul_in_order``); longer ones one BLAS matmul."""


def complex_matmul_in_order(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """(B, M, K) x (B, K, N) complex products as StableHLO's reference interpreter
    computes each result element (stablehlo/reference/Ops.cpp dotGeneralOp): starting
    from 0, add the products in contracting-index order, every product
    ``(ar*br - ai*bi) + i(ar*bi + ai*br)`` and every sum rounded to the element type,
    no fused multiply-add.  Vectorized over the result elements (one step per k);
    BLAS's blocking and FMAs would reassociate the sum, which can leave a cancelling
    sum outside 3-ULP / 1e-4 checks computed this way."""
    part = a.real.dtype
    acc_re = np.zeros((a.shape[0], a.shape[1], b.shape[2]), dtype=part)
    acc_im = np.zeros_like(acc_re)
    ar, ai = np.ascontiguousarray(a.real), np.ascontiguousarray(a.imag)
    br, bi = np.ascontiguousarray(b.real), np.ascontiguousarray(b.imag)
    with np.errstate(all="ignore"):
        for t in range(a.shape[2]):
            xr, xi = ar[:, :, t, None], ai[:, :, t, None]
            yr, yi = br[:, None, t, :], bi[:, None, t, :]
            acc_re += xr * yr - xi * yi
            acc_im += xr * yi + xi * yr
    out = np.empty(acc_re.shape, dtype=a.dtype)
    out.real, out.imag = acc_re, acc_im
    return out


def dot_general_plan(
    lhs_shape: Sequence[int],
    rhs_shape: Sequence[int],
    lhs_batching_dimensions: Sequence[int],
    rhs_batching_dimensions: Sequence[int],
    lhs_contracting_dimensions: Sequence[int],
    rhs_contracting_dimensions: Sequence[int],
) -> Callable[[np.ndarray, np.ndarray], np.ndarray]:
    """dot_general of operands of these shapes, worked out once: ``(lhs, rhs) ->``
    transpose + reshape to (B, M, K) x (B, K, N), one ``np.matmul``, reshape to batch +
    lhs free + rhs free (the interpreter plans it once for static shapes)."""
    lb, rb = tuple(lhs_batching_dimensions), tuple(rhs_batching_dimensions)
    lc, rc = tuple(lhs_contracting_dimensions), tuple(rhs_contracting_dimensions)
    lrank, rrank = len(lhs_shape), len(rhs_shape)
    lf = tuple(d for d in range(lrank) if d not in lb and d not in lc)
    rf = tuple(d for d in range(rrank) if d not in rb and d not in rc)
    batch_shape = tuple(lhs_shape[d] for d in lb)
    out_shape = batch_shape + tuple(lhs_shape[d] for d in lf) + tuple(rhs_shape[d] for d in rf)
    b = math.prod(batch_shape)
    m = math.prod(lhs_shape[d] for d in lf)
    n = math.prod(rhs_shape[d] for d in rf)
    k = math.prod(lhs_shape[d] for d in lc)
    lperm, rperm = lb + lf + lc, rb + rc + rf
    lperm_ = None if lperm == tuple(range(lrank)) else lperm
    rperm_ = None if rperm == tuple(range(rrank)) else rperm
    # no batch: plain 2-D matrix product (BLAS-friendly views)
    lmat, rmat = ((m, k), (k, n)) if not lb else ((b, m, k), (b, k, n))
    nb = len(lb)
    first = (0,) * nb
    matmul = blas_matmul  # (one BLAS thread while the machine is busy: blas_threads.py)

    def run(lhs: np.ndarray, rhs: np.ndarray) -> np.ndarray:
        if lperm_ is not None:
            lhs = lhs.transpose(lperm_)
        if rperm_ is not None:
            rhs = rhs.transpose(rperm_)
        if lhs.dtype.kind == "c" and k <= COMPLEX_IN_ORDER_K:
            y = complex_matmul_in_order(lhs.reshape((b, m, k)), rhs.reshape((b, k, n)))
            return y.reshape(out_shape)
        if nb and b > 1 and not any(rhs.strides[:nb]):
            # rhs is one matrix broadcast over the batch (a weight torch_xla expands
            # for bmm): one (B*M, K) x (K, N) product instead of B small ones
            return matmul(lhs.reshape((b * m, k)), rhs[first].reshape((k, n))).reshape(out_shape)
        return matmul(lhs.reshape(lmat), rhs.reshape(rmat)).reshape(out_shape)

    return run


def dot_general_arrays(
    lhs: np.ndarray,
    rhs: np.ndarray,
    lhs_batching_dimensions: Sequence[int],
    rhs_batching_dimensions: Sequence[int],
    lhs_contracting_dimensions: Sequence[int],
    rhs_contracting_dimensions: Sequence[int],
) -> np.ndarray:
    """dot_general on arrays already in the compute dtype (``dot_general_plan``)."""
    return dot_general_plan(
        lhs.shape,
        rhs.shape,
        lhs_batching_dimensions,
        rhs_batching_dimensions,
        lhs_contracting_dimensions,
        rhs_contracting_dimensions,
    )(lhs, rhs)


def _dot_general_fast(
    op: Operation, rt: Type, dt: np.dtype, kwargs: dict[str, Any]
) -> Callable[..., Any] | None:
    """dot_general on f32/f64 operands of the result's dtype and static shapes: the
    kernel's own ``dot_general_plan`` (same calls, same bits), worked out once."""
    if dt.kind != "f" or len(op.operands) != 2:
        return None
    lt, rt_ = (v.type for v in op.operands)
    if not all(
        isinstance(t, TensorType) and t.is_static and plain_dtype(t) == dt for t in (lt, rt_, rt)
    ):
        return None
    dims = [
        tuple(kwargs.get(name) or ())
        for name in (
            "lhs_batching_dimensions",
            "rhs_batching_dimensions",
            "lhs_contracting_dimensions",
            "rhs_contracting_dimensions",
        )
    ]
    lb, rb, lc, rc = dims
    ls, rs = static_shape(lt), static_shape(rt_)
    want = (
        tuple(ls[d] for d in lb)
        + tuple(n for d, n in enumerate(ls) if d not in lb and d not in lc)
        + tuple(n for d, n in enumerate(rs) if d not in rb and d not in rc)
    )
    if static_shape(rt) != want:
        return None  # the kernel reports it
    run = dot_general_plan(ls, rs, *dims)
    if 2 * math.prod(want) * math.prod(ls[d] for d in lc) < BLAS_CHOICE_MIN_FLOPS:
        return run
    if not blas_controls() or workers() < 2:
        return run
    return blas_threads_chosen(run)


BLAS_CHOICE_MIN_FLOPS = 1 << 26
"""From this many floating-point operations (~0.6 ms on one core), a planned
dot_general learns whether BLAS's threads pay (``parallel.blas_threads_chosen``: on a
busy machine they do not; the same bits either way).  Smaller products, like every
convolution's gemm, follow the load rule of ``blas_threads.matmul`` alone: what the
learned choice costs per call (its timing, and a one-thread retry every 64 calls)
showed there (an LSTM scan's 128 matmuls of 4-8M flops per run: +5%; a
256x256 f32 matmul, 34M flops, at load < 1: 170 against 161 us)."""


def dot_general(
    lhs: np.ndarray,
    rhs: np.ndarray,
    *,
    result_type: Type,
    lhs_batching_dimensions: Sequence[int] = (),
    rhs_batching_dimensions: Sequence[int] = (),
    lhs_contracting_dimensions: Sequence[int] = (),
    rhs_contracting_dimensions: Sequence[int] = (),
    precision_config: Sequence[str] = (),
    algorithm: object = None,
    **_: object,
) -> np.ndarray:
    """spec: dot_general.  ``precision_config`` and ``algorithm`` do not change the
    result here: every product is computed at (at least) the result type's precision."""
    _check_not_quantized("dot_general", result_type, lhs, rhs)
    out, work = _compute_dtype(result_type)
    tf32 = _is_tf32(result_type)
    a = _to_compute(lhs, out, work, tf32)
    b = _to_compute(rhs, out, work, tf32)
    exact_float = work.kind in "iu" and _exact_in_float64(
        a, b, math.prod(lhs.shape[d] for d in lhs_contracting_dimensions)
    )
    if exact_float:  # integer products computed exactly by float64 BLAS
        a, b = a.astype(np.float64), b.astype(np.float64)
    y = dot_general_arrays(
        a,
        b,
        lhs_batching_dimensions,
        rhs_batching_dimensions,
        lhs_contracting_dimensions,
        rhs_contracting_dimensions,
    )
    if exact_float:
        y = y.astype(work)
    return _finish(y, out, _is_tf32(result_type))


DOT_GENERAL = register_kernel(
    "stablehlo.dot_general", dot_general, fast_plan=_dot_general_fast, quantized="dequantize"
)


def _dot_fast(
    op: Operation, rt: Type, dt: np.dtype, kwargs: dict[str, Any]
) -> Callable[..., Any] | None:
    """Legacy dot as the dot_general it is (``_dot_general_fast``)."""
    lt = op.operands[0].type if op.operands else None
    if not (isinstance(lt, TensorType) and lt.is_static and lt.shape):
        return None
    dims = {"lhs_contracting_dimensions": (len(lt.shape) - 1,), "rhs_contracting_dimensions": (0,)}
    return _dot_general_fast(op, rt, dt, dims)


def dot(
    lhs: np.ndarray,
    rhs: np.ndarray,
    *,
    result_type: Type,
    precision_config: Sequence[str] = (),
    **_: object,
) -> np.ndarray:
    """Legacy stablehlo.dot: vector/matrix products, contracting the last dimension of
    ``lhs`` with the first of ``rhs`` (= dot_general with no batching dimensions)."""
    return dot_general(
        lhs,
        rhs,
        result_type=result_type,
        lhs_contracting_dimensions=(lhs.ndim - 1,),
        rhs_contracting_dimensions=(0,),
    )


DOT = register_kernel("stablehlo.dot", dot, fast_plan=_dot_fast, quantized="dequantize")


# --------------------------------------------------------------------------------------
# fft
# --------------------------------------------------------------------------------------


@kernel("stablehlo.fft")
def fft(
    operand: np.ndarray, *, result_type: Type, fft_type: str, fft_length: Sequence[int], **_: object
) -> np.ndarray:
    """spec: fft over the trailing ``len(fft_length)`` dimensions, computed in
    complex128 / float64 and rounded once to the result type."""
    out = dtype_of(result_type)
    length = tuple(int(v) for v in fft_length)
    axes = tuple(range(operand.ndim - len(length), operand.ndim))
    if fft_type in ("FFT", "IFFT"):
        res_shape = operand.shape
    elif fft_type == "RFFT":
        last = operand.shape[-1]
        res_shape = operand.shape[:-1] + (0 if last == 0 else last // 2 + 1,)
    elif fft_type == "IRFFT":
        res_shape = operand.shape[: operand.ndim - len(length)] + length
    else:
        raise UnsupportedError(f"fft_type {fft_type}", op="stablehlo.fft")
    if isinstance(result_type, TensorType) and result_type.is_static:
        res_shape = static_shape(result_type)
    if operand.size == 0 or 0 in res_shape or 0 in length:
        return np.zeros(res_shape, dtype=out)
    y: np.ndarray
    if fft_type == "FFT":
        y = np.fft.fftn(operand.astype(np.complex128), axes=axes)
    elif fft_type == "IFFT":
        y = np.fft.ifftn(operand.astype(np.complex128), axes=axes)
    elif fft_type == "RFFT":
        y = np.fft.rfftn(operand.astype(np.float64), s=length, axes=axes)
    else:
        y = np.fft.irfftn(operand.astype(np.complex128), s=length, axes=axes)
    return y.astype(out)


# --------------------------------------------------------------------------------------
# triangular_solve / cholesky
# --------------------------------------------------------------------------------------


def _wide(dt: np.dtype) -> np.dtype:
    return np.dtype(np.complex128) if dt.kind == "c" else np.dtype(np.float64)


def _solve_left(m: np.ndarray, b: np.ndarray, lower: bool, unit_diagonal: bool) -> np.ndarray:
    """Solve m @ x = b for triangular m (..., n, n), b (..., n, k) by substitution:
    one loop over the n rows, each step a whole-batch vector operation."""
    n = m.shape[-1]
    x = np.zeros(np.broadcast_shapes(m.shape[:-2], b.shape[:-2]) + b.shape[-2:], dtype=b.dtype)
    rows = range(n) if lower else range(n - 1, -1, -1)
    for i in rows:
        done = slice(0, i) if lower else slice(i + 1, n)
        acc = b[..., i, :] - np.matmul(m[..., i : i + 1, done], x[..., done, :])[..., 0, :]
        x[..., i, :] = acc if unit_diagonal else acc / m[..., i, i][..., None]
    return x


@kernel("stablehlo.triangular_solve", quantized="dequantize")
def triangular_solve(
    a: np.ndarray,
    b: np.ndarray,
    *,
    result_type: Type,
    left_side: bool,
    lower: bool,
    unit_diagonal: bool,
    transpose_a: str,
    **_: object,
) -> np.ndarray:
    """spec: triangular_solve.  Only the ``lower`` (or upper) triangle of ``a`` is read;
    with ``unit_diagonal`` the diagonal is taken as 1.  Computed in float64 /
    complex128 and rounded once to the result type."""
    if isinstance(_element(result_type), QuantizedType):
        raise UnsupportedError("quantized triangular_solve", op="stablehlo.triangular_solve")
    out = dtype_of(result_type)
    wd = _wide(out)
    a = a.astype(wd)
    b = b.astype(wd)
    tri = np.tril(a) if lower else np.triu(a)
    is_lower = lower
    if transpose_a in ("TRANSPOSE", "ADJOINT"):
        tri = np.swapaxes(tri, -1, -2)
        if transpose_a == "ADJOINT":
            tri = tri.conj()
        is_lower = not is_lower
    elif transpose_a != "NO_TRANSPOSE":
        raise UnsupportedError(f"transpose_a {transpose_a}", op="stablehlo.triangular_solve")
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        if left_side:
            x = _solve_left(tri, b, is_lower, unit_diagonal)
        else:
            # x @ A = b  <=>  A^T @ x^T = b^T
            xt = _solve_left(
                np.swapaxes(tri, -1, -2), np.swapaxes(b, -1, -2), not is_lower, unit_diagonal
            )
            x = np.swapaxes(xt, -1, -2)
    return _from_compute(np.ascontiguousarray(x), out)


@kernel("stablehlo.cholesky", quantized="dequantize")
def cholesky(a: np.ndarray, *, result_type: Type, lower: bool = False, **_: object) -> np.ndarray:
    """spec: cholesky.  Only the ``lower`` (or upper) triangle of ``a`` is read (the
    matrix is taken as Hermitian).  The other triangle of the result is zero (spec:
    implementation-defined).  A matrix that is not positive definite gives NaNs from
    the first failing column on (spec: undefined behaviour).  Computed column by column
    (one loop over n, whole-batch vector operations) in float64 / complex128."""
    if isinstance(_element(result_type), QuantizedType):
        raise UnsupportedError("quantized cholesky", op="stablehlo.cholesky")
    out = dtype_of(result_type)
    wd = _wide(out)
    x = a.astype(wd)
    if not lower:
        x = np.swapaxes(x, -1, -2).conj()  # read the upper triangle as the lower one
    n = x.shape[-1]
    l_ = np.zeros_like(x)
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        for j in range(n):
            lj = l_[..., j, :j]
            d = x[..., j, j] - np.sum(lj * lj.conj(), axis=-1)
            d = np.real(d) if wd.kind == "c" else d
            djj = np.sqrt(d)
            l_[..., j, j] = djj
            if j + 1 < n:
                below = (
                    x[..., j + 1 :, j]
                    - np.matmul(l_[..., j + 1 :, :j], lj.conj()[..., None])[..., 0]
                )
                l_[..., j + 1 :, j] = below / djj[..., None]
    if not lower:
        l_ = np.swapaxes(l_, -1, -2).conj()
    return _from_compute(np.ascontiguousarray(l_), out)
