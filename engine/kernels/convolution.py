"""Convolution kernels: convolution, dynamic_conv (spec "convolution",
"dynamic_conv"), with the arithmetic policy of linalg.py's module docstring: integer
results exact modulo 2**64, narrow floats in float64 rounded once, f32 convolutions of
more than ``CONV_F64_K`` terms per result element in float64 rounded once; the layout
and algorithm per shape (im2col over a channels-last padded buffer, or conv_shifted.py's
shifted gemms), BLAS threads as blas_threads.py decides.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from ...parser.errors import InterpreterError
from ...parser.ir import (
    Type,
)
from ...shape_inference.linalg import conv_num_windows
from ...shape_inference.optable import kernel, register_kernel
from ..memory import reserve
from . import blas_threads
from .conv_shifted import conv_direct, direct_applies
from .linalg import (
    _check_not_quantized,
    _compute_dtype,
    _exact_in_float64,
    _finish,
    _is_tf32,
    _to_compute,
)


def _padded_buffer(
    xg: np.ndarray, lhs_dilation, padding, channels_last: bool, dtype: np.dtype
) -> np.ndarray:
    """Grouped lhs (G, Nb, Cg, spatial...) -> interior zeros (lhs_dilation - 1) and edge
    padding (negative padding crops), in ONE fresh buffer of ``dtype``; returned as a
    (G, Nb, Cg, padded spatial...) view whose memory is channels-last or channels-first."""
    spatial = xg.shape[3:]
    src: list[slice] = []
    dst: list[slice] = []
    padded_shape = []
    for size, d, (lo, hi) in zip(spatial, lhs_dilation, padding):
        lo, hi = int(lo), int(hi)
        dilated = 0 if size == 0 else (size - 1) * d + 1
        padded = max(lo + dilated + hi, 0)
        padded_shape.append(padded)
        # element j lands at lo + j * d; keep it when 0 <= lo + j * d < padded
        j0 = (-lo + d - 1) // d if lo < 0 else 0
        j1 = min(size - 1, (padded - 1 - lo) // d) if padded > 0 else -1
        if j1 < j0:
            src.append(slice(0, 0))
            dst.append(slice(0, 0))
        else:
            src.append(slice(j0, j1 + 1))
            start = lo + j0 * d
            dst.append(slice(start, start + (j1 - j0) * d + 1, d))
    g, nb, cg = xg.shape[:3]
    reserve((g, nb, *padded_shape, cg), dtype, "the padded input")  # before allocating
    # without interior zeros (lhs dilation 1) only the edges are zeroed: the copy
    # writes the rest (8x32x64x64 f32 padded by 1: 0.60 against 0.77 ms)
    edges_only = all(d == 1 for d in lhs_dilation)
    alloc = np.empty if edges_only else np.zeros
    if channels_last:
        buf = alloc((g, nb, *padded_shape, cg), dtype=dtype)
        view = np.moveaxis(buf, -1, 2)
    else:
        buf = alloc((g, nb, cg, *padded_shape), dtype=dtype)
        view = buf
    lead = (slice(None),) * 3
    if edges_only:
        for i, (kept, size) in enumerate(zip(dst, padded_shape)):
            before = lead + (slice(None),) * i
            view[before + (slice(0, kept.start),)] = 0
            view[before + (slice(kept.stop, size),)] = 0
    view[lead + tuple(dst)] = xg[lead + tuple(src)]
    return view


IM2COL_PIECE_BYTES = 24 << 20
"""Largest im2col copy made at once; a larger one is made and multiplied in pieces of
whole images (or of output rows of one image).  glibc serves an allocation above 32 MiB
(its largest mmap threshold) with fresh pages every time, which the kernel zeroes
first: measured, the 8x32x64x64 -> 32 f32 layer of benchmarks/models' CNN (37.7 MB of
patches), the copy 6.6 ms fresh against 2.0 ms into reused memory; in two pieces of
four images the layer's copies and gemms took 5.7 ms against 9.3 at once, and the
model 49 against 54 ms.  Each result element has the same products; a piece is a block
of the gemm's rows or columns, which OpenBLAS sums as the whole gemm (the suite's CNN
layers: the same bits), though a piece of one row is a gemv and may round apart."""


def _im2col_pieces(
    nb: int, out_sp: tuple[int, ...], row_bytes: int
) -> list[tuple[int, int, int, int]]:
    """The pieces (images n0:n1, first output dimension r0:r1) in which to copy the
    patches of ``nb`` images of ``out_sp`` output positions, ``row_bytes`` each: whole
    images when one fits ``IM2COL_PIECE_BYTES``, else bands of output rows."""
    o1 = out_sp[0] if out_sp else 1
    image = row_bytes * int(np.prod(out_sp, dtype=np.int64))
    if nb * image <= IM2COL_PIECE_BYTES or not out_sp:
        return [(0, nb, 0, o1)]
    if image <= IM2COL_PIECE_BYTES:
        per = IM2COL_PIECE_BYTES // image
        k = -(-nb // per)  # pieces of equal size
        cuts = [nb * i // k for i in range(k + 1)]
        return [(a, b, 0, o1) for a, b in zip(cuts, cuts[1:])]
    band = max(1, IM2COL_PIECE_BYTES // max(1, image // o1))
    k = -(-o1 // band)
    cuts = [o1 * i // k for i in range(k + 1)]
    return [(n, n + 1, a, b) for n in range(nb) for a, b in zip(cuts, cuts[1:])]


def _view(a: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """``a.reshape(shape)`` that must be a view (a gemm writes through it)."""
    v = a.reshape(shape)
    if v.size and not np.may_share_memory(v, a):  # (never: pieces are whole rows)
        raise InterpreterError(f"convolution: im2col piece {a.shape} -> {shape} is no view")
    return v


def _num_windows(*args: int) -> int:
    """``conv_num_windows`` of static sizes (never None)."""
    n = conv_num_windows(*args)
    assert n is not None  # None only for a dynamic size
    return n


def _padded_sizes(x: np.ndarray, padding) -> list[int]:
    """The spatial sizes of x (N, C, spatial...) padded by ``padding`` (lo, hi pairs)."""
    pads = padding.tolist() if isinstance(padding, np.ndarray) else padding
    return [max(int(lo) + int(hi) + n, 0) for n, (lo, hi) in zip(x.shape[2:], pads)]


def conv_arrays(
    x: np.ndarray,
    w: np.ndarray,
    *,
    window_strides: Sequence[int],
    padding,
    lhs_dilation: Sequence[int],
    rhs_dilation: Sequence[int],
    window_reversal: Sequence[bool],
    feature_group_count: int,
    batch_group_count: int,
    channels_last: bool = False,
    reorder: bool = False,
) -> np.ndarray:
    """Convolution in canonical layouts: x (N, C, spatial...), w (O, I, spatial...)
    -> (N / batch_group_count, O, out_spatial...), in w's dtype, the compute dtype (x
    float32 with w float64 is converted by the one copy of x into its padded buffer).

    With ``reorder`` (the caller allows another summation order: an f32, f16 or bf16
    result, or exact integer sums), float32 / float64 convolutions that
    ``conv_shifted.direct_applies`` takes run as a sum of shifted gemms, one per kernel
    tap (no im2col copy); the others as below, channels-last whatever the input's
    layout: the one padding copy transposes, and rows of (K..., Cg) columns times the
    kernel matrix is the faster gemm (measured, CPU time, the 8x3x64x64 CNN's NCHW
    layers: (Og, Cg*K) @ (Cg*K, Nb*P) was 1.2-3.5x the channels-last time, which the
    NHWC layers take).  Without ``reorder`` the input's layout decides (f64 and other
    results keep their summation order, bit for bit).

    Window reversal reverses the lhs window; the dot product of a reversed window with
    the kernel equals that of the window with the reversed kernel, so the kernel is
    flipped.  The dilated + padded lhs is one fresh buffer; windows are strided views of
    it (sliding_window_view, subsampled by the window strides and the kernel dilation);
    one im2col copy, ordered to read the buffer sequentially (channels-last or
    channels-first, as the input's layout); one matmul per group batch.
    """
    nsp = x.ndim - 2
    n, c = x.shape[:2]
    o, i_ = w.shape[:2]
    ksp = w.shape[2:]
    out_sp = tuple(
        _num_windows(
            x.shape[2 + d],
            ksp[d],
            window_strides[d],
            int(padding[d][0]),
            int(padding[d][1]),
            lhs_dilation[d],
            rhs_dilation[d],
        )
        for d in range(nsp)
    )
    g = feature_group_count if feature_group_count > 1 else batch_group_count
    nb = n // batch_group_count
    og = o // g
    cg = c // feature_group_count
    result_shape = (nb, o) + out_sp
    if 0 in result_shape or cg == 0 or 0 in ksp:
        return np.zeros(result_shape, dtype=w.dtype)  # no windows, or empty dot products
    flips = tuple(2 + d for d in range(nsp) if d < len(window_reversal) and window_reversal[d])
    if flips:
        w = np.flip(w, axis=flips)
    if reorder:
        padded = _padded_sizes(x, padding)
        if direct_applies(
            x,
            w,
            padded=padded,
            out_sp=out_sp,
            window_strides=window_strides,
            lhs_dilation=lhs_dilation,
            groups=g,
        ):
            return conv_direct(
                x,
                w,
                padding=padding,
                padded=padded,
                out_sp=out_sp,
                window_strides=window_strides,
                rhs_dilation=rhs_dilation,
            )
    # group split: (G, Nb, Cg, spatial...)
    if feature_group_count > 1:
        xg = x.reshape((n, g, cg) + x.shape[2:]).swapaxes(0, 1)
    else:
        xg = x.reshape((g, nb, c) + x.shape[2:])
    channels_last = channels_last or reorder
    xp = _padded_buffer(xg, lhs_dilation, padding, channels_last, w.dtype)
    wg = w.reshape((g, og, i_) + ksp)
    dil_k = tuple((k - 1) * r + 1 for k, r in zip(ksp, rhs_dilation))
    sp_axes = tuple(range(3, 3 + nsp))
    win = np.lib.stride_tricks.sliding_window_view(xp, dil_k, axis=sp_axes)
    # win: (G, Nb, Cg, P1.., K1..) ; subsample windows by stride and kernel dilation
    sel: tuple[slice, ...] = (slice(None),) * 3
    sel += tuple(slice(0, s * (cnt - 1) + 1, s) for s, cnt in zip(window_strides, out_sp))
    sel += tuple(slice(None, None, r) for r in rhs_dilation)
    win = win[sel]
    p_axes = tuple(range(3, 3 + nsp))
    k_axes = tuple(range(3 + nsp, 3 + 2 * nsp))
    kk = cg * int(np.prod(ksp, dtype=np.int64))
    # a float32 input widened to float64 by the padding copy: the result is rounded (and
    # laid out) by one more copy, so the gemm may write (Og, rows), which double BLAS
    # runs faster than (rows, Og) (measured on 2 cores, 2048 rows x 1152 terms x 128
    # features: 4.5 against 5.7 ms; the same products, bit for bit)
    features_first = x.dtype != xp.dtype or not channels_last
    if channels_last:
        w_k = tuple(range(3, 3 + nsp))
        if wg.strides[1] >= wg.strides[2]:
            # output features outermost in memory (OIHW): the (Og, K..., Cg) copy moves
            # short runs within each output feature; BLAS reads its transpose as it is
            # (a (K..., Cg, Og) copy strides over the whole kernel: 256x256x3x3 f64
            # 4.3 ms against 0.9; the same products, bit for bit)
            kmat = wg.transpose((0, 1) + w_k + (2,)).reshape(g, og, kk).transpose(0, 2, 1)
        else:
            kmat = wg.transpose((0,) + w_k + (2, 1)).reshape(g, kk, og)
        # rows (Nb, P...), columns (K..., Cg): reads the channels-last buffer in order
        order = (0, 1) + p_axes + k_axes + (2,)
    else:
        # rows (Cg, K...), columns (Nb, P...): reads the channels-first buffer in order
        order = (0, 2) + k_axes + (1,) + p_axes
        kmat = wg.reshape(g, og, kk)
    kmat_o = kmat.transpose(0, 2, 1) if channels_last else kmat  # (G, Og, K)
    if features_first:
        y = np.empty((g, og, nb) + out_sp, dtype=xp.dtype)
    else:
        y = np.empty((g, nb) + out_sp + (og,), dtype=xp.dtype)
    for n0, n1, r0, r1 in _im2col_pieces(nb, out_sp, g * kk * xp.dtype.itemsize):
        band = (slice(n0, n1),) + ((slice(r0, r1),) if nsp else ())
        piece = win[(slice(None), band[0], slice(None)) + band[1:]]
        rows = piece.shape[1] * int(np.prod(piece.shape[3 : 3 + nsp], dtype=np.int64))
        reserve((g, rows, kk), xp.dtype, "the im2col patches")
        if channels_last:
            cols = piece.transpose(order).reshape(g, rows, kk)  # (G, rows, K)
            cols_k = cols.transpose(0, 2, 1)
        else:
            cols_k = cols = piece.transpose(order).reshape(g, kk, rows)  # (G, K, rows)
        if features_first:
            out = _view(y[(slice(None), slice(None)) + band], (g, og, rows))
            blas_threads.matmul(kmat_o, cols_k, out=out)  # (G, Og, rows)
        else:
            out = _view(y[(slice(None),) + band], (g, rows, og))
            blas_threads.matmul(cols, kmat, out=out)  # (G, rows, Og)
        del cols, cols_k
    if features_first:  # (G, Og, Nb, P...) -> (Nb, G, Og, P...)
        y = y.transpose((2, 0, 1) + tuple(range(3, 3 + nsp)))
    else:  # (G, Nb, P..., Og) -> (Nb, G, Og, P...)
        y = y.transpose((1, 0, 2 + nsp) + tuple(range(2, 2 + nsp)))
    return y.reshape(result_shape)


CONV_F64_K = 1024
"""f32 convolutions contracting more terms than this per result element (kernel input
features x window size) compute in float64 and round once: float32 BLAS's rounding
error grows with the contraction length (~7000 ULP measured at 2304 terms with
cancelling sums); below it, float32 BLAS (speed)."""


def _conv_terms(rhs: np.ndarray, kernel_output_feature_dimension: int) -> int:
    return math.prod(n for d, n in enumerate(rhs.shape) if d != kernel_output_feature_dimension)


def _convolution(
    lhs: np.ndarray,
    rhs: np.ndarray,
    padding,
    *,
    op: str,
    result_type: Type,
    window_strides=None,
    lhs_dilation=None,
    rhs_dilation=None,
    window_reversal=None,
    input_batch_dimension: int,
    input_feature_dimension: int,
    input_spatial_dimensions: Sequence[int],
    kernel_input_feature_dimension: int,
    kernel_output_feature_dimension: int,
    kernel_spatial_dimensions: Sequence[int],
    output_batch_dimension: int,
    output_feature_dimension: int,
    output_spatial_dimensions: Sequence[int],
    feature_group_count: int = 1,
    batch_group_count: int = 1,
) -> np.ndarray:
    _check_not_quantized(op, result_type, lhs, rhs)
    nsp = lhs.ndim - 2
    window_strides = tuple(window_strides) if window_strides is not None else (1,) * nsp
    lhs_dilation = tuple(lhs_dilation) if lhs_dilation is not None else (1,) * nsp
    rhs_dilation = tuple(rhs_dilation) if rhs_dilation is not None else (1,) * nsp
    window_reversal = tuple(window_reversal) if window_reversal is not None else (False,) * nsp
    if padding is None:
        padding = np.zeros((nsp, 2), dtype=np.int64)
    padding = np.asarray(padding, dtype=np.int64).reshape(nsp, 2)
    out, work = _compute_dtype(result_type)
    if (
        out == np.float32
        and work == np.float32
        and _conv_terms(rhs, kernel_output_feature_dimension) > CONV_F64_K
    ):
        work = np.dtype(np.float64)  # long f32 contractions: float64, rounded once
    x = lhs.transpose((input_batch_dimension, input_feature_dimension, *input_spatial_dimensions))
    w = rhs.transpose(
        (
            kernel_output_feature_dimension,
            kernel_input_feature_dimension,
            *kernel_spatial_dimensions,
        )
    )
    tf32 = _is_tf32(result_type)
    # a float32 input computed in float64 is converted by conv_arrays' padding copy
    widen_in_copy = work == np.float64 and x.dtype == out == np.float32 and not tf32
    xc = x if widen_in_copy else _to_compute(x, out, work, tf32)
    wc = _to_compute(w, out, work, tf32)
    exact_float = work.kind in "iu" and _exact_in_float64(xc, wc, math.prod(w.shape[1:]))
    if exact_float:  # integer products computed exactly by float64 BLAS
        xc, wc = xc.astype(np.float64), wc.astype(np.float64)
    y = conv_arrays(
        xc,
        wc,
        window_strides=window_strides,
        padding=padding,
        lhs_dilation=lhs_dilation,
        rhs_dilation=rhs_dilation,
        window_reversal=window_reversal,
        feature_group_count=feature_group_count,
        batch_group_count=batch_group_count,
        channels_last=input_feature_dimension == lhs.ndim - 1,
        # exact integer sums may change summation order; the others keep im2col's one
        # matmul in the input's layout: on a quiet 2-core machine an NCHW f32 CNN ran
        # 60.7 ms so against 73.9 ms through a channels-last copy (benchmarks/models
        # resnet_cnn_nchw; 1x64x56x56 * 64x64x3x3: 4.7 against 5.7 ms)
        reorder=exact_float,
    )
    if exact_float:
        y = y.astype(work)
    src = {output_batch_dimension: 0, output_feature_dimension: 1}
    for i, d in enumerate(output_spatial_dimensions):
        src[d] = 2 + i
    y = y.transpose([src[d] for d in range(y.ndim)])
    if y.dtype == np.float64 and out == np.float32 and not tf32:
        return y.astype(out, order="C")  # the one rounding and the layout copy: one pass
    return _finish(np.ascontiguousarray(y), out, tf32)


def convolution(
    lhs: np.ndarray,
    rhs: np.ndarray,
    *,
    result_type: Type,
    padding=None,
    precision_config: Sequence[str] = (),
    **attrs,
) -> np.ndarray:
    """spec: convolution (feature_group_count / batch_group_count as the spec's split +
    concatenate; precision_config does not change the result)."""
    return _convolution(lhs, rhs, padding, op="convolution", result_type=result_type, **attrs)


CONVOLUTION = register_kernel("stablehlo.convolution", convolution, quantized="dequantize")


@kernel("stablehlo.dynamic_conv", quantized="dequantize")
def dynamic_conv(
    lhs: np.ndarray,
    rhs: np.ndarray,
    padding: np.ndarray,
    *,
    result_type: Type,
    precision_config: Sequence[str] = (),
    **attrs,
) -> np.ndarray:
    """spec: dynamic_conv: convolution with ``padding`` an operand."""
    nsp = lhs.ndim - 2
    if padding.shape != (nsp, 2):
        raise InterpreterError(
            f"padding must have shape [{nsp}, 2], got {list(padding.shape)}",
            op="stablehlo.dynamic_conv",
        )
    return _convolution(lhs, rhs, padding, op="dynamic_conv", result_type=result_type, **attrs)
