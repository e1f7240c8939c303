"""Convolution as a sum of shifted matrix products (the "direct" algorithm), for
float32 / float64 convolutions without groups or lhs dilation.

The padded input is stored channels-last and flattened to rows of C features: with the
window strides split into phases (row ``j`` of phase ``ph`` holds padded position
``j * stride + ph``), the input rows a kernel tap reads for consecutive output positions
are consecutive rows of one phase buffer, at a fixed row offset.  So each tap is ONE
BLAS gemm of a contiguous slice of the buffer (no im2col copy) with the tap's (C, O)
kernel matrix, accumulated into the result by the gemm itself (``beta = 1``): the
result has a row for every phase row, and the rows past the output's extent in a
spatial dimension (they mix neighbouring rows) are dropped at the end.

Every product and sum is in the compute dtype (float32, or float64 for long f32
contractions and exact integers: engine/kernels/linalg.py's arithmetic policy); only
the summation order differs from im2col's single matmul.  BLAS comes from
``scipy.linalg.blas`` (gemm with beta: NumPy's matmul cannot accumulate into its
output), imported on first use, on BLAS's own threads (one thread was 1.5x slower on
a quiet 2-core machine, 3x3 over 1x64x56x56 -> 64: 3.9 ms against 2.5 ms), one thread
on a busy machine (blas_threads.py).  NumPy's BLAS (matmul into a scratch and an add
per tap) was slower: 8x256x32x32 -> 256 f64, 345 ms CPU against 265.  The kernel
(convolution.conv_arrays) takes this algorithm where ``direct_applies`` says; im2col
otherwise.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from ..memory import reserve
from ..parallel import forget_blas_controls
from .blas_threads import one_blas_thread_when_busy

DIRECT_MIN_FEATURES = 128
"""Input features per kernel tap below which one im2col matmul is faster: a gemm with
a short contraction runs far below BLAS's peak, and nine of them synchronize BLAS's
threads nine times (measured, least CPU time of 15 interleaved runs, 2 cores at load
6-8, batch 8, 3x3, stride 1: 32x64x64 -> 32 f32 direct 39 ms, im2col 31; 64x32x32 ->
64 f32 21 / 7.1; 128x32x32 -> 128 f64 115 / 112; 256x32x32 -> 256 f64 318 / 494)."""

DIRECT_MAX_WASTE = 1.2
"""Largest ratio of computed rows (one per phase row) to output positions: padding rows
and columns are computed and dropped, so a small image with a wide window pays more
than an im2col copy would (measured, CPU time on one thread: 3x3 over 32x32 padded to
34x34, 1.13: direct 6.2 ms, im2col 9.3 of which 6.3 matmul, even on 2 cores; 16x16 to
18x18, 1.27, f64: 14.0 / 16.0 of which 14 matmul, im2col faster on 2 cores; 8x8 to
10x10, 1.56: direct 30% slower)."""

_GEMM: dict[str, object] = {}


def _gemm(dtype: np.dtype):
    g = _GEMM.get(dtype.char)
    if g is None:
        from scipy.linalg import blas  # noqa: PLC0415 (scipy is heavy: first use only)

        g = _GEMM[dtype.char] = blas.sgemm if dtype == np.float32 else blas.dgemm
        forget_blas_controls()  # SciPy's own OpenBLAS: its threads follow the same rule
    return g


def _phase_sizes(padded: Sequence[int], strides: Sequence[int]) -> tuple[int, ...]:
    return tuple(-(-p // s) for p, s in zip(padded, strides))


def direct_applies(
    x: np.ndarray,
    w: np.ndarray,
    *,
    padded: Sequence[int],
    out_sp: Sequence[int],
    window_strides: Sequence[int],
    lhs_dilation: Sequence[int],
    groups: int,
) -> bool:
    """Whether ``conv_direct`` runs this convolution (canonical x (N, C, sp...), w (O, I,
    k...)) faster than im2col: one group, no lhs dilation, window strides 1,
    w float32/float64 (x the same, or float32 widened by the copy into the phase
    buffers), at least ``DIRECT_MIN_FEATURES`` input features, at most
    ``DIRECT_MAX_WASTE`` rows computed per output position.

    Strided windows stay im2col: its copy shrinks with the stride (taps / stride**2
    times the input) while its one matmul runs on BLAS's threads (measured, 3x3
    stride 2, 8x64x64x32 -> 64: direct 4.3 ms on one thread, im2col 4.7 ms CPU time of
    which 3.7 ms is a matmul that two cores halve)."""
    if groups != 1 or any(d != 1 for d in lhs_dilation) or any(s != 1 for s in window_strides):
        return False
    if w.dtype not in (np.float32, np.float64) or x.dtype not in (np.float32, w.dtype):
        return False
    if x.shape[1] < DIRECT_MIN_FEATURES or math.prod(w.shape[2:]) < 2:
        return False
    rows = math.prod(_phase_sizes(padded, window_strides))
    return rows <= DIRECT_MAX_WASTE * math.prod(out_sp)


def _phase_buffers(
    x: np.ndarray,
    padding: np.ndarray,
    padded: Sequence[int],
    strides: Sequence[int],
    phases: Sequence[tuple[int, ...]],
    tail: int,
    dtype: np.dtype,
) -> dict[tuple[int, ...], np.ndarray]:
    """For each phase (one index per spatial dimension): the rows (N * prod(Q), C) of
    the padded input at positions ``j * stride + phase`` (zeros where padded), channels
    last, in ``dtype``, followed by ``tail`` zero rows; Q the phase sizes."""
    n, c = x.shape[:2]
    q = _phase_sizes(padded, strides)
    rows = n * math.prod(q)
    out: dict[tuple[int, ...], np.ndarray] = {}
    xl = np.moveaxis(x, 1, -1)  # (N, sp..., C) view
    for ph in phases:
        reserve((rows + tail, c), dtype, "the padded input")  # before allocating
        flat = np.zeros((rows + tail, c), dtype=dtype)
        view = flat[:rows].reshape((n, *q, c))
        dst: list[slice] = [slice(None)]
        src: list[slice] = [slice(None)]
        for size, (lo, _), p, s, f, qd in zip(x.shape[2:], padding, padded, strides, ph, q):
            lo = int(lo)
            # phase row j holds padded position j*s + f = input position j*s + f - lo
            j0 = max(0, -((f - lo) // s))
            j1 = min((size - 1 + lo - f) // s, (p - 1 - f) // s, qd - 1)
            if j1 < j0:
                dst.append(slice(0, 0))
                src.append(slice(0, 0))
            else:
                dst.append(slice(j0, j1 + 1))
                start = j0 * s + f - lo
                src.append(slice(start, start + (j1 - j0) * s + 1, s))
        view[tuple(dst)] = xl[tuple(src)]
        out[ph] = flat
    return out


def conv_direct(
    x: np.ndarray,
    w: np.ndarray,
    *,
    padding: np.ndarray,
    padded: Sequence[int],
    out_sp: Sequence[int],
    window_strides: Sequence[int],
    rhs_dilation: Sequence[int],
) -> np.ndarray:
    """x (N, C, sp...), w (O, C, k...) (window reversal already applied), padding (lo,
    hi) per spatial dimension -> (N, O, out_sp...), a view of the gemms' (rows, O)
    result; the caller copies it into the result's layout (for a channels-first
    result, that transposing copy and this gemm orientation are faster than gemms
    writing (O, rows): 7.6 vs 10.0 ms, 8x32x64x64, one thread)."""
    n, c = x.shape[:2]
    o = w.shape[0]
    ksp = w.shape[2:]
    q = _phase_sizes(padded, window_strides)
    row_stride = [math.prod(q[d + 1 :]) for d in range(len(q))]
    taps = []  # (phase, row offset, kernel index)
    # one gemm per kernel tap: the taps' indices in row-major order
    for k in map(tuple, np.indices(ksp).reshape(len(ksp), -1).T.tolist()) if ksp else [()]:
        pos = [kd * r for kd, r in zip(k, rhs_dilation)]
        ph = tuple(p % s for p, s in zip(pos, window_strides))
        off = sum((p // s) * rs for p, s, rs in zip(pos, window_strides, row_stride))
        taps.append((ph, off, k))
    tail = max(off for _, off, _ in taps)
    phases = sorted({t[0] for t in taps})
    bufs = _phase_buffers(x, padding, padded, window_strides, phases, tail, w.dtype)
    rows = n * math.prod(q)
    wt = np.ascontiguousarray(np.moveaxis(w, (0, 1), (-1, -2)))  # (k..., C, O)
    y = np.empty((rows, o), dtype=w.dtype)
    gemm = _gemm(w.dtype)
    with one_blas_thread_when_busy():
        for i, (ph, off, k) in enumerate(taps):  # (O, rows) += W_k^T (O, C) @ X^T (C, rows)
            xs = bufs[ph][off : off + rows]
            gemm(1.0, wt[k].T, xs.T, beta=float(i > 0), c=y.T, overwrite_c=1)
    full = y.reshape((n, *q, o))
    return np.moveaxis(full[(slice(None), *(slice(0, m) for m in out_sp), slice(None))], -1, 1)
