"""CPU LAPACK / BLAS custom-call targets before the FFI: ``lapack_{s,d,c,z}<routine>``
and ``blas_{s,d,c,z}trsm`` (api_version 2, jaxlib's status-returning API), which
exports made by jaxlib 0.4.30 and older call.  Each runs the ``*_matrix`` routine of
solver_lapack.py (the same math as the ``_ffi`` targets); here only the operands and
flags are unpacked and the results packed.

The convention is jax-ml/jax's jaxlib/lapack.py (``*_hlo``) and
jaxlib/cpu/lapack_kernels.cc (``Kernel(void* out_tuple, void** data, ...)``) at commit
8e8dc263bc (2023-11, jaxlib 0.4.20; unchanged until the FFI activations of 2024-07 to
2024-12, e.g. ae40c87919 for potrf, 1256153200 for trsm), the same operand order as
a1480c454e (2022-12, the first StableHLO jaxlib):

* the leading operands are 0-d scalars: ``i32`` flags (lower, full_matrices,
  compute_uv, left_side, trans_a 0/1/2, diag) and dimensions (batch size, m, n, k,
  lda, ilo / ihi, lwork), ``ui8`` LAPACK characters ('V' / 'N') for geev's jobvl /
  jobvr and gees's jobvs / sort; then the matrices, column-major (``operand_layouts``
  ``(nb, nb + 1, nb - 1, ..., 0)``) with every leading dimension a batch dimension;
* the results are the overwritten matrix, the routine's outputs, ``info`` (one i32 per
  matrix) and workspace buffers (returned as zeros);
* jaxlib's custom_call (jaxlib/hlo_helpers.py) wrapped several results in one tuple
  result (read with get_tuple_element) until 6dfd248e74 (2023-05, jaxlib 0.4.10);
  after it they are the op's results.  Both forms run (``with_tuple_result``).

The scalar dimensions must agree with the matrix and result shapes: a disagreement is
an error naming the target.  gtsv had no target before the FFI (c1de7c733d, 2025-01,
added ``lapack_?gtsv_ffi`` only).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ...parser.errors import UnsupportedError
from .custom_targets import Call, static_shape, target, zeros
from .solver_lapack import (
    gees_matrix,
    geev_matrix,
    gehrd_matrix,
    geqrf_matrix,
    getrf_matrix,
    names,
    orgqr_matrix,
    potrf_matrix,
    svd_matrix,
    syevd_matrix,
    sytrd_matrix,
    trsm_matrix,
)

# ``lapack_sgeqrf``...: the FFI targets' names without their suffix
_names = functools.partial(names, suffix="")


def _operands(call: Call, operands: Sequence[Any], count: int) -> tuple[Call, list[Any]]:
    """The call and the ``count`` operands of the convention.  (With dynamic shapes
    jaxlib appended one result-shape operand per result, named by
    ``indices_of_shape_operands``: the custom_call kernel has taken them off and made
    the result types static, ``custom_targets.split_shape_operands``.)"""
    ops = list(operands)
    if len(ops) != count:
        raise call.fail(f"expects {count} operands, got {len(ops)}")
    return call, ops


def _int(call: Call, x: Any, what: str) -> int:
    """A scalar operand (a 0-d i32 / ui8 tensor) as an int."""
    a = np.asarray(x)
    if a.size != 1 or a.dtype.kind not in "iu":
        raise call.fail(f"expects the scalar {what}, got a {a.dtype} array of shape {a.shape}")
    return int(a.reshape(-1)[0])


def _char(call: Call, x: Any, what: str) -> str:
    return chr(_int(call, x, what))


def _matrix(call: Call, i: int, x: Any, batch: int, m: int, n: int) -> np.ndarray:
    """Operand ``i`` as the routine sees it, checked against its scalar dimensions."""
    a = call.operand(i, x, np.ndim(x) - 2)
    if a.ndim < 2 or math.prod(a.shape[:-2]) != batch or a.shape[-2:] != (m, n):
        raise call.fail(
            f"operand {i} of shape {np.shape(x)} does not match its scalar operands "
            f"(batch {batch}, {m}x{n} matrices)"
        )
    return a


def _results(call: Call, expected: Sequence[tuple[int, ...] | None]) -> None:
    """The result count and each result's shape (None: a workspace of any size)."""
    if len(call.result_types) != len(expected):
        raise call.fail(f"expects {len(expected)} results, got {len(call.result_types)}")
    for i, (t, want) in enumerate(zip(call.result_types, expected)):
        if want is not None and static_shape(t) != tuple(want):
            raise call.fail(f"result {i} has type {t}, expected shape {tuple(want)}")


def _run(
    call: Call,
    picks: Sequence[int],
    fn: Callable[..., Sequence[Any]],
    operands: Sequence[np.ndarray],
    nb: int,
) -> tuple[np.ndarray, ...]:
    """``fn`` per matrix of the batch (``Call.batched``) for the results ``picks``, in
    that order; the other results (workspaces) are zeros."""
    attrs = dict(call.attrs)
    layouts = attrs.get("result_layouts")
    if layouts:
        attrs["result_layouts"] = [layouts[i] for i in picks]
    sub = Call(call.name, tuple(call.result_types[i] for i in picks), call.context, attrs)
    got = sub.batched(fn, operands, nb)
    out: list[np.ndarray] = [zeros(t) for t in call.result_types]
    for i, g in zip(picks, got):
        out[i] = g
    return tuple(out)


# ----------------------------------------------------------------------------- potrf


@target(*_names("potrf"))
def potrf(call: Call, *operands: Any) -> tuple[np.ndarray, ...]:
    """(lower, batch, n, a) -> (factor, info)."""
    call, (lower_, b_, n_, a) = _operands(call, operands, 4)
    lower = bool(_int(call, lower_, "lower"))
    b, n = _int(call, b_, "batch size"), _int(call, n_, "n")
    x = _matrix(call, 3, a, b, n, n)
    bd = x.shape[:-2]
    _results(call, [np.shape(a), bd])
    return _run(call, [0, 1], lambda m: potrf_matrix(m, lower), [x], len(bd))


# ----------------------------------------------------------------------------- getrf


@target(*_names("getrf"))
def getrf(call: Call, *operands: Any) -> tuple[np.ndarray, ...]:
    """(batch, m, n, a) -> (lu, pivots (1-based), info)."""
    call, (b_, m_, n_, a) = _operands(call, operands, 4)
    b, m, n = (_int(call, v, w) for v, w in ((b_, "batch size"), (m_, "m"), (n_, "n")))
    x = _matrix(call, 3, a, b, m, n)
    bd = x.shape[:-2]
    _results(call, [np.shape(a), (*bd, min(m, n)), bd])
    return _run(call, [0, 1, 2], getrf_matrix, [x], len(bd))


# ----------------------------------------------------------------------------- qr


@target(*_names("geqrf"))
def geqrf(call: Call, *operands: Any) -> tuple[np.ndarray, ...]:
    """(batch, m, n, lwork, a) -> (householder form, tau, info, work)."""
    call, (b_, m_, n_, _lwork, a) = _operands(call, operands, 5)
    b, m, n = (_int(call, v, w) for v, w in ((b_, "batch size"), (m_, "m"), (n_, "n")))
    x = _matrix(call, 4, a, b, m, n)
    bd = x.shape[:-2]
    _results(call, [np.shape(a), (*bd, min(m, n)), bd, None])

    def one(mat: np.ndarray) -> tuple[Any, ...]:
        return (*geqrf_matrix(mat), 0)

    return _run(call, [0, 1, 2], one, [x], len(bd))


@target(*_names("", real="orgqr", complex_="ungqr"))
def orgqr(call: Call, *operands: Any) -> tuple[np.ndarray, ...]:
    """(batch, m, n, k, lwork, a, tau) -> (q, info, work)."""
    call, (b_, m_, n_, k_, _lwork, a, tau) = _operands(call, operands, 7)
    b, m, n = (_int(call, v, w) for v, w in ((b_, "batch size"), (m_, "m"), (n_, "n")))
    k = _int(call, k_, "k")
    x = _matrix(call, 5, a, b, m, n)
    bd = x.shape[:-2]
    t = np.asarray(tau)
    if t.shape != (*bd, k):
        raise call.fail(f"operand 6 (tau) of shape {t.shape}, expected {(*bd, k)}")
    _results(call, [np.shape(a), bd, None])

    def one(mat: np.ndarray, tv: np.ndarray) -> tuple[Any, ...]:
        return (*orgqr_matrix(mat, tv), 0)

    return _run(call, [0, 1], one, [x, t], len(bd))


# ----------------------------------------------------------------------------- svd


@target(*_names("gesdd"))
def gesdd(call: Call, *operands: Any) -> tuple[np.ndarray, ...]:
    """(full_matrices, compute_uv, batch, m, n, lwork, a) -> (a, s, u, vt, info, iwork,
    [rwork (complex),] work)."""
    call, (full_, uv_, b_, m_, n_, _lwork, a) = _operands(call, operands, 7)
    full = bool(_int(call, full_, "full_matrices"))
    uv = bool(_int(call, uv_, "compute_uv"))
    b, m, n = (_int(call, v, w) for v, w in ((b_, "batch size"), (m_, "m"), (n_, "n")))
    x = _matrix(call, 6, a, b, m, n)
    bd, k = x.shape[:-2], min(m, n)
    u_shape = (*bd, m, m if full else k)
    vt_shape = (*bd, n if full else k, n)
    work = [None] * (3 if x.dtype.kind == "c" else 2)
    _results(call, [np.shape(a), (*bd, k), u_shape, vt_shape, bd, *work])
    mode = ("A" if full else "S") if uv else "N"
    return _run(call, [0, 1, 2, 3, 4], lambda mat: svd_matrix(mat, mode), [x], len(bd))


# ----------------------------------------------------------------------------- eigh


@target(*_names("", real="syevd", complex_="heevd"))
def syevd(call: Call, *operands: Any) -> tuple[np.ndarray, ...]:
    """(lower, batch, n, a) -> (eigenvectors, eigenvalues ascending, info, work,
    [rwork (complex),] iwork)."""
    call, (lower_, b_, n_, a) = _operands(call, operands, 4)
    lower = bool(_int(call, lower_, "lower"))
    b, n = _int(call, b_, "batch size"), _int(call, n_, "n")
    x = _matrix(call, 3, a, b, n, n)
    bd = x.shape[:-2]
    work = [None] * (3 if x.dtype.kind == "c" else 2)
    _results(call, [np.shape(a), (*bd, n), bd, *work])
    return _run(call, [0, 1, 2], lambda m: syevd_matrix(m, lower, True), [x], len(bd))


# ----------------------------------------------------------------------------- eig


@target(*_names("geev"))
def geev(call: Call, *operands: Any) -> tuple[np.ndarray, ...]:
    """(batch, n, jobvl, jobvr, a) -> real: (a work, vl work, vr work, wr, wi, vl, vr,
    info); complex: (a work, rwork, w, vl, vr, info).  vl / vr are complex."""
    call, (b_, n_, jobvl, jobvr, a) = _operands(call, operands, 5)
    b, n = _int(call, b_, "batch size"), _int(call, n_, "n")
    left = _char(call, jobvl, "jobvl") == "V"
    right = _char(call, jobvr, "jobvr") == "V"
    x = _matrix(call, 4, a, b, n, n)
    bd = x.shape[:-2]
    vecs = (*bd, n, n)
    if x.dtype.kind == "c":
        _results(call, [None, None, (*bd, n), vecs, vecs, bd])
        picks = [2, 3, 4, 5]
    else:
        _results(call, [None] * 3 + [(*bd, n)] * 2 + [vecs, vecs, bd])
        picks = [3, 4, 5, 6, 7]
    return _run(call, picks, lambda m: geev_matrix(m, left, right), [x], len(bd))


# ----------------------------------------------------------------------------- schur


@target(*_names("gees"))
def gees(call: Call, *operands: Any) -> tuple[np.ndarray, ...]:
    """(batch, n, jobvs, sort, a) -> real: (T, wr, wi, vs, sdim, info); complex: (T,
    rwork, w, vs, sdim, info).  Sorting ('S') had no select function upstream."""
    call, (b_, n_, jobvs, sort, a) = _operands(call, operands, 5)
    b, n = _int(call, b_, "batch size"), _int(call, n_, "n")
    vectors = _char(call, jobvs, "jobvs") == "V"
    if _char(call, sort, "sort") != "N":
        raise UnsupportedError(f"custom_call target '{call.name}': sorted Schur form")
    x = _matrix(call, 4, a, b, n, n)
    bd = x.shape[:-2]
    if x.dtype.kind == "c":
        _results(call, [np.shape(a), None, (*bd, n), np.shape(a), bd, bd])
        picks = [0, 3, 2, 4, 5]  # gees_matrix: t, vs, w, sdim, info
    else:
        _results(call, [np.shape(a), (*bd, n), (*bd, n), np.shape(a), bd, bd])
        picks = [0, 3, 1, 2, 4, 5]  # gees_matrix: t, vs, wr, wi, sdim, info
    return _run(call, picks, lambda m: gees_matrix(m, vectors), [x], len(bd))


# ----------------------------------------------------------------------------- hessenberg


@target(*_names("gehrd"))
def gehrd(call: Call, *operands: Any) -> tuple[np.ndarray, ...]:
    """(n, ilo, ihi, lda, batch, lwork, a) -> (a reduced, tau, info, work)."""
    call, (n_, ilo_, ihi_, lda_, b_, _lwork, a) = _operands(call, operands, 7)
    n, b = _int(call, n_, "n"), _int(call, b_, "batch size")
    low, high = _int(call, ilo_, "ilo"), _int(call, ihi_, "ihi")
    if _int(call, lda_, "lda") != max(n, 1):
        raise call.fail("a leading dimension (lda) other than n")
    x = _matrix(call, 6, a, b, n, n)
    bd = x.shape[:-2]
    _results(call, [np.shape(a), (*bd, max(n - 1, 0)), bd, None])
    return _run(call, [0, 1, 2], lambda m: gehrd_matrix(m, low, high), [x], len(bd))


# ----------------------------------------------------------------------------- tridiagonal


@target(*_names("", real="sytrd", complex_="hetrd"))
def sytrd(call: Call, *operands: Any) -> tuple[np.ndarray, ...]:
    """(n, lower, lda, batch, lwork, a) -> (a reduced, d, e, tau, info, work)."""
    call, (n_, lower_, lda_, b_, _lwork, a) = _operands(call, operands, 6)
    n, b = _int(call, n_, "n"), _int(call, b_, "batch size")
    lower = bool(_int(call, lower_, "lower"))
    if _int(call, lda_, "lda") != max(n, 1):
        raise call.fail("a leading dimension (lda) other than n")
    x = _matrix(call, 5, a, b, n, n)
    bd = x.shape[:-2]
    off = (*bd, max(n - 1, 0))
    _results(call, [np.shape(a), (*bd, n), off, off, bd, None])
    return _run(call, [0, 1, 2, 3, 4], lambda m: sytrd_matrix(m, lower), [x], len(bd))


# ----------------------------------------------------------------------------- trsm

_TRANS = {0: "N", 1: "T", 2: "C"}


@target(*_names("trsm", lib="blas"))
def trsm(call: Call, *operands: Any) -> tuple[np.ndarray, ...]:
    """(left_side, lower, trans_a (0 N, 1 T, 2 C), diag, m, n, batch, alpha, a, b) -> x:
    op(a) x = alpha b (left side) or x op(a) = alpha b, b of shape m x n."""
    call, (side_, lower_, trans_, diag_, m_, n_, b_, alpha, a, rhs) = _operands(call, operands, 10)
    left = bool(_int(call, side_, "left_side"))
    lower = bool(_int(call, lower_, "lower"))
    t = _int(call, trans_, "trans_a")
    if t not in _TRANS:
        raise call.fail(f"trans_a {t} (0, 1 or 2 expected)")
    unit = bool(_int(call, diag_, "diag"))
    m, n, b = _int(call, m_, "m"), _int(call, n_, "n"), _int(call, b_, "batch size")
    k = m if left else n
    y = _matrix(call, 9, rhs, b, m, n)
    x = _matrix(call, 8, a, b, k, k)
    bd = y.shape[:-2]
    _results(call, [np.shape(rhs)])
    scale = np.asarray(alpha).reshape(-1)[0].item()
    side = "L" if left else "R"

    def one(mat: np.ndarray, r: np.ndarray) -> tuple[np.ndarray]:
        return trsm_matrix(mat, r, scale, side, lower, _TRANS[t], unit)

    return _run(call, [0], one, [x, y], len(bd))
