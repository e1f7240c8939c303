"""GPU solver custom-call targets (cuSOLVER / hipSOLVER / cuSPARSE), run on CPU
through the LAPACK routine of the same decomposition (solver_lapack.py).

Operands, results and attributes as jax lowers them (jax/_src/lax/linalg.py
``*_cpu_gpu_lowering`` / ``_svd_gpu_sub_lowering``, jaxlib/gpu_solver.py,
jaxlib/gpu/solver_kernels_ffi.cc): boolean FFI attributes (``lower``,
``full_matrices``, ``compute_uv``, ``transposed``), LAPACK's 1-based getrf pivots and
info outputs.  The layouts say what the routine sees: gesvd with ``transposed`` gets
row-major operands, i.e. the transpose, which ``Call.operand`` / ``Call.batched``
apply.  The section "before FFI" runs the api_version 2 targets of jaxlib <= 0.4.32,
whose parameters are a C descriptor in backend_config.
"""

from __future__ import annotations

import struct
from typing import Any

import numpy as np

from .custom_targets import Call, static_shape, target, zeros
from .solver_lapack import (
    geqrf_matrix,
    getrf_matrix,
    gtsv_matrix,
    orgqr_matrix,
    potrf_matrix,
    svd_matrix,
    syevd_matrix,
    sytrd_matrix,
    trsm_matrix,
)

_SOLVERS = ("cusolver", "hipsolver")


def _names(routine: str) -> list[str]:
    return [f"{s}_{routine}_ffi" for s in _SOLVERS]


def _nb(call: Call, x: np.ndarray) -> int:
    return call.num_batch_dims(x.ndim - 2)


@target(*_names("potrf"))
def potrf(call: Call, a: Any) -> tuple[np.ndarray, ...]:
    """(a) -> (factor, info); attribute lower."""
    lower = call.flag("lower", True)
    x = call.operand(0, a)
    return call.batched(lambda m: potrf_matrix(m, lower), [x], _nb(call, x))


@target(*_names("getrf"))
def getrf(call: Call, a: Any) -> tuple[np.ndarray, ...]:
    """(a) -> (lu, pivots (1-based), info)."""
    x = call.operand(0, a)
    return call.batched(getrf_matrix, [x], _nb(call, x))


@target(*_names("geqrf"))
def geqrf(call: Call, a: Any) -> tuple[np.ndarray, ...]:
    """(a) -> (householder form, tau)."""
    x = call.operand(0, a)
    return call.batched(geqrf_matrix, [x], _nb(call, x))


@target(*_names("orgqr"))
def orgqr(call: Call, a: Any, tau: Any) -> tuple[np.ndarray, ...]:
    """(householder form, tau) -> Q."""
    x = call.operand(0, a)
    return call.batched(orgqr_matrix, [x, np.asarray(tau)], _nb(call, x))


@target(*_names("syevd"))
def syevd(call: Call, a: Any) -> tuple[np.ndarray, ...]:
    """(a) -> (eigenvectors, eigenvalues ascending, info); attributes lower,
    algorithm (QR / Jacobi / default: the same decomposition)."""
    lower = call.flag("lower", True)
    x = call.operand(0, a)
    return call.batched(lambda m: syevd_matrix(m, lower, True), [x], _nb(call, x))


@target(*_names("sytrd"))
def sytrd(call: Call, a: Any) -> tuple[np.ndarray, ...]:
    """(a) -> (a reduced, d, e, tau, info); attribute lower."""
    lower = call.flag("lower", True)
    x = call.operand(0, a)
    return call.batched(lambda m: sytrd_matrix(m, lower), [x], _nb(call, x))


def _svd_one(full: bool, uv: bool, v_not_vt: bool, routine: str = "gesdd") -> Any:
    """The per-matrix SVD of the gesvd* targets: (a, s, u, vt or v, info); ``full``
    false is the economy form; without ``uv`` the u / v results are left zero."""

    def one(m: np.ndarray) -> tuple[Any, ...]:
        _, s, u, vt, i = svd_matrix(m, ("A" if full else "S") if uv else "N", routine)
        if not uv:
            return m, s, 0, 0, i
        return m, s, u, (np.conj(vt.T) if v_not_vt else vt), i

    return one


def _svd(call: Call, a: Any, *, v_not_vt: bool) -> tuple[np.ndarray, ...]:
    """gesvd / gesdd: (a) -> (a, s, u, vt, info); gesvdj / gesvdp return V, not V^H;
    attributes full_matrices, compute_uv."""
    one = _svd_one(call.flag("full_matrices", True), call.flag("compute_uv", True), v_not_vt)
    x = call.operand(0, a)
    return call.batched(one, [x], _nb(call, x))


@target(*_names("gesvd"), "hipsolver_gesdd_ffi")
def gesvd(call: Call, a: Any) -> tuple[np.ndarray, ...]:
    """(a) -> (a, s, u, vt, info); attributes full_matrices, compute_uv, transposed
    (the transposition is in the layouts)."""
    return _svd(call, a, v_not_vt=False)


@target(*_names("gesvdj"), *_names("gesvdp"))
def gesvdj(call: Call, a: Any) -> tuple[np.ndarray, ...]:
    """(a) -> (a, s, u, v, info): V itself (jax transposes and conjugates it)."""
    return _svd(call, a, v_not_vt=True)


@target("cusparse_gtsv2_ffi", "hipsparse_gtsv2_ffi")
def gtsv2(call: Call, dl: Any, d: Any, du: Any, b: Any) -> tuple[np.ndarray, ...]:
    """(dl, d, du, b) -> x, with dl[0] = du[n-1] = 0 (cusparse<t>gtsv2)."""
    y = call.operand(3, b)
    return call.batched(_gtsv_x, [np.asarray(dl), np.asarray(d), np.asarray(du), y], _nb(call, y))


def _gtsv_x(dl: np.ndarray, d: np.ndarray, du: np.ndarray, b: np.ndarray) -> tuple[np.ndarray]:
    """The solution of one tridiagonal system (gtsv2 overwrites b with it)."""
    return (gtsv_matrix(dl, d, du, b)[3],)


# ----------------------------------------------------------------------------- before FFI

# jaxlib's targets before the FFI ones (api_version 2, jaxlib <= 0.4.32: jaxlib/gpu_solver.py,
# gpu_sparse.py; registered in jaxlib/gpu/{solver,blas,sparse}.cc) take their parameters
# as the raw bytes of a C descriptor in backend_config (kernel_pybind11_helpers.h
# PackDescriptor: the struct's sizeof(T) bytes; UnpackDescriptor refuses any other
# size).  The structs (jaxlib/gpu/solver_kernels.h, blas_kernels.h, sparse_kernels.h,
# unchanged from jaxlib 0.4.1 to 0.4.32) hold 32-bit ints and enums, little-endian:
# ``struct`` formats below, "x" for the compiler's padding.  Their results end with
# the routine's workspace, returned as zeros.  Operand and result layouts are
# column-major matrices except where noted (gesvd with m < n).  Read at tag
# jaxlib-v0.4.20 (commit e22b8bbc0a; "jaxlib-v0.4.20" in the docstrings below), the
# same from jaxlib-v0.4.1 (c4d590b1b6) to jaxlib-v0.4.32 (1594d2f30f) but where noted.
_DESCRIPTORS = {
    "GetrfDescriptor": ("<5i", "type batch m n lwork"),
    "GeqrfDescriptor": ("<5i", "type batch m n lwork"),
    "OrgqrDescriptor": ("<6i", "type batch m n k lwork"),
    "SyevdDescriptor": ("<5i", "type uplo batch n lwork"),
    "GesvdDescriptor": ("<5i2b2x", "type batch m n lwork jobu jobvt"),
    "GesvdjDescriptor": ("<7i", "type batch m n lwork jobz econ"),
    "SytrdDescriptor": ("<6i", "type uplo batch n lda lwork"),
    "GetrfBatchedDescriptor": ("<3i", "type batch n"),
    "GeqrfBatchedDescriptor": ("<4i", "type batch m n"),
    "Gtsv2Descriptor": ("<4i", "batch m n ldb"),
    "CsrlsvqrDescriptor": ("<4id", "type n nnz reorder tol"),
}
# SolverType / BlasType (enum class F32, F64, C64, C128); the fill modes: cuBLAS's
# CUBLAS_FILL_MODE_LOWER = 0, UPPER = 1, hipSOLVER's HIPSOLVER_FILL_MODE_UPPER = 121,
# LOWER = 122; cusolverEigMode_t NOVECTOR = 0, VECTOR = 1.
_TYPES = (
    np.dtype(np.float32),
    np.dtype(np.float64),
    np.dtype(np.complex64),
    np.dtype(np.complex128),
)
_FILL_MODES = {"cusolver": {0: True, 1: False}, "hipsolver": {122: True, 121: False}}


def _opaque(call: Call) -> bytes:
    """backend_config's bytes: a string attribute holds them as UTF-8 with
    "surrogateescape" (parser/lexer.py unescape_string; the bytecode reader alike)."""
    raw = call.attrs.get("backend_config")
    return raw.encode("utf-8", "surrogateescape") if isinstance(raw, str) else bytes(raw or b"")


def _descriptor(call: Call, struct_name: str, fmt: str = "", names: str = "") -> dict[str, int]:
    """The fields of the descriptor in backend_config, by name."""
    if not fmt:
        fmt, names = _DESCRIPTORS[struct_name]
    data = _opaque(call)
    size = struct.calcsize(fmt)
    if len(data) != size:
        raise call.fail(
            f"expects its {size}-byte {struct_name} in backend_config, got {len(data)} bytes"
        )
    return dict(zip(names.split(), struct.unpack(fmt, data)))


def _check(call: Call, desc: dict[str, int], x: np.ndarray, **want: int) -> None:
    """The descriptor agrees with the operand ``x`` (as the routine sees it): its
    element type, and each field of ``want``."""
    if "type" in desc:
        want = {"type": _TYPES.index(x.dtype) if x.dtype in _TYPES else -1, **want}
    for key, value in want.items():
        if desc[key] != value:
            raise call.fail(f"its descriptor has {key} = {desc[key]}, the operand needs {value}")


def _legacy(
    call: Call, fn: Any, operands: list[np.ndarray], nb: int, computed: int
) -> tuple[Any, ...]:
    """Run ``fn`` per matrix for the first ``computed`` results; the others (the
    workspaces) are zeros."""
    if len(call.result_types) != computed + (n_work := _WORKSPACES[call.name]):
        raise call.fail(f"expects {computed + n_work} results, got {len(call.result_types)}")
    head = Call(call.name, call.result_types[:computed], call.context, call.attrs)
    out = head.batched(fn, operands, nb)
    return (*out, *(zeros(t) for t in call.result_types[computed:]))


def _lower(call: Call, desc: dict[str, int]) -> bool:
    modes = _FILL_MODES[call.name.split("_", 1)[0]]
    if desc["uplo"] not in modes:
        raise call.fail(f"unknown fill mode {desc['uplo']} in its descriptor")
    return modes[desc["uplo"]]


def _batch(x: np.ndarray) -> int:
    return int(np.prod(x.shape[:-2], dtype=np.int64))


def _legacy_names(*routines: str, solvers: tuple[str, ...] = _SOLVERS) -> list[str]:
    return [f"{s}_{r}" for s in solvers for r in routines]


# target -> how many workspace results end its results
_WORKSPACES = {
    **dict.fromkeys(
        _legacy_names("getrf", "geqrf", "orgqr", "syevd", "syevj", "gesvd", "sytrd"), 1
    ),
    **dict.fromkeys(_legacy_names("gesvdj", solvers=("cusolver",)), 1),
    **dict.fromkeys(_legacy_names("getrf_batched", solvers=("cublas", "hipblas")), 1),
    **dict.fromkeys(_legacy_names("geqrf_batched", solvers=("cublas", "hipblas")), 2),
    **dict.fromkeys(_legacy_names("gtsv2_f32", "gtsv2_f64", solvers=("cusparse", "hipsparse")), 1),
}


@target(*_legacy_names("getrf"), *_legacy_names("getrf_batched", solvers=("cublas", "hipblas")))
def getrf_legacy(call: Call, a: Any) -> tuple[np.ndarray, ...]:
    """jaxlib/gpu_solver.py ``_getrf_hlo`` (jaxlib 0.4.1 .. 0.4.32, e.g. jaxlib-v0.4.20):
    (a) -> (lu, pivots (1-based), info, workspace); ``{cu,hip}blas_getrf_batched``
    (GetrfBatchedDescriptor; square matrices, the batch of small ones) or
    ``{cu,hip}solver_getrf`` (GetrfDescriptor)."""
    x = call.operand(0, a)
    if "blas" in call.name:
        desc = _descriptor(call, "GetrfBatchedDescriptor")
        if x.shape[-1] != x.shape[-2]:
            raise call.fail(f"factors square matrices, got {x.shape[-2]}x{x.shape[-1]}")
        _check(call, desc, x, batch=_batch(x), n=x.shape[-1])
    else:
        desc = _descriptor(call, "GetrfDescriptor")
        _check(call, desc, x, batch=_batch(x), m=x.shape[-2], n=x.shape[-1])
    return _legacy(call, getrf_matrix, [x], x.ndim - 2, 3)


@target(*_legacy_names("geqrf"), *_legacy_names("geqrf_batched", solvers=("cublas", "hipblas")))
def geqrf_legacy(call: Call, a: Any) -> tuple[np.ndarray, ...]:
    """jaxlib/gpu_solver.py ``_geqrf_hlo``: (a) -> (householder form, tau, info,
    workspace) (GeqrfDescriptor); ``_geqrf_batched_hlo``: (a) -> (householder form,
    tau, two workspaces) (GeqrfBatchedDescriptor).  jaxlib-v0.4.20."""
    x = call.operand(0, a)
    shape = {"batch": _batch(x), "m": x.shape[-2], "n": x.shape[-1]}
    if "blas" in call.name:
        _check(call, _descriptor(call, "GeqrfBatchedDescriptor"), x, **shape)
        return _legacy(call, geqrf_matrix, [x], x.ndim - 2, 2)
    _check(call, _descriptor(call, "GeqrfDescriptor"), x, **shape)
    return _legacy(call, lambda m: (*geqrf_matrix(m), 0), [x], x.ndim - 2, 3)


@target(*_legacy_names("orgqr"))
def orgqr_legacy(call: Call, a: Any, tau: Any) -> tuple[np.ndarray, ...]:
    """jaxlib/gpu_solver.py ``_orgqr_hlo`` (OrgqrDescriptor, k = tau's length):
    (householder form, tau) -> (Q, info, workspace).  jaxlib-v0.4.20."""
    x, t = call.operand(0, a), np.asarray(tau)
    desc = _descriptor(call, "OrgqrDescriptor")
    _check(call, desc, x, batch=_batch(x), m=x.shape[-2], n=x.shape[-1], k=t.shape[-1])
    return _legacy(call, lambda m, v: (*orgqr_matrix(m, v), 0), [x, t], x.ndim - 2, 2)


@target(*_legacy_names("syevd", "syevj"))
def syevd_legacy(call: Call, a: Any, *batch_size: Any) -> tuple[np.ndarray, ...]:
    """jaxlib/gpu_solver.py ``_syevd_hlo`` (SyevdDescriptor / SyevjDescriptor, the same
    fields): (a[, batch size when the batch is dynamic: the descriptor's batch is -1])
    -> (eigenvectors, eigenvalues ascending, info, workspace); the triangle read is the
    descriptor's fill mode.  jaxlib-v0.4.20."""
    x = call.operand(0, a)
    desc = _descriptor(call, "SyevdDescriptor")
    lower = _lower(call, desc)
    want = {"n": x.shape[-1]} if desc["batch"] == -1 else {"batch": _batch(x), "n": x.shape[-1]}
    _check(call, desc, x, **want)
    return _legacy(call, lambda m: syevd_matrix(m, lower, True), [x], x.ndim - 2, 3)


@target(*_legacy_names("gesvd"))
def gesvd_legacy(call: Call, a: Any) -> tuple[np.ndarray, ...]:
    """jaxlib/gpu_solver.py ``_gesvd_hlo`` (GesvdDescriptor, jobu = jobvt: 'A' full,
    'S' economy, 'N' values only): (a) -> (a, s, u, vt, info, workspace).  For m < n
    jax passes the operand and results row-major: the routine factors A^T (the
    descriptor's m, n are swapped) and jax reads (vt, u) from results 2, 3.
    jaxlib-v0.4.20."""
    x = call.operand(0, a)
    desc = _descriptor(call, "GesvdDescriptor")
    _check(call, desc, x, batch=_batch(x), m=x.shape[-2], n=x.shape[-1])
    job = chr(desc["jobu"] & 0xFF)
    if job not in "ASN" or desc["jobvt"] != desc["jobu"]:
        raise call.fail(f"unknown jobu / jobvt {desc['jobu']} / {desc['jobvt']} in its descriptor")
    one = _svd_one(job == "A", job != "N", v_not_vt=False)
    return _legacy(call, one, [x], x.ndim - 2, 5)


@target("cusolver_gesvdj")
def gesvdj_legacy(call: Call, a: Any) -> tuple[np.ndarray, ...]:
    """jaxlib/gpu_solver.py ``_gesvd_hlo``, m, n < 32 (GesvdjDescriptor: jobz
    CUSOLVER_EIG_MODE_VECTOR = 1 computes u, v; econ = 1 the economy form, single
    matrices only): (a) -> (a, s, u, v, info, workspace), V itself (jax transposes and
    conjugates it).  jaxlib-v0.4.20."""
    x = call.operand(0, a)
    desc = _descriptor(call, "GesvdjDescriptor")
    _check(call, desc, x, batch=_batch(x), m=x.shape[-2], n=x.shape[-1])
    if desc["jobz"] not in (0, 1) or desc["econ"] not in (0, 1):
        raise call.fail(f"unknown jobz / econ {desc['jobz']} / {desc['econ']} in its descriptor")
    one = _svd_one(not desc["econ"], bool(desc["jobz"]), v_not_vt=True)
    return _legacy(call, one, [x], x.ndim - 2, 5)


@target(*_legacy_names("sytrd"))
def sytrd_legacy(call: Call, a: Any) -> tuple[np.ndarray, ...]:
    """jaxlib/gpu_solver.py ``_sytrd_hlo`` (SytrdDescriptor, lda = n): (a) -> (a
    reduced, d, e, tau, info, workspace); the triangle is the descriptor's fill mode.
    (jax's fix-up of cuSOLVER's superdiagonal for upper follows the call in the
    program.)  jaxlib-v0.4.20."""
    x = call.operand(0, a)
    desc = _descriptor(call, "SytrdDescriptor")
    lower = _lower(call, desc)
    _check(call, desc, x, batch=_batch(x), n=x.shape[-1], lda=x.shape[-2])
    return _legacy(call, lambda m: sytrd_matrix(m, lower), [x], x.ndim - 2, 5)


@target(*_legacy_names("gtsv2_f32", "gtsv2_f64", solvers=("cusparse", "hipsparse")))
def gtsv2_legacy(call: Call, dl: Any, d: Any, du: Any, b: Any) -> tuple[np.ndarray, ...]:
    """jaxlib/gpu_sparse.py ``_gtsv2_hlo``: (dl, d, du, b) -> (x, workspace), the rows
    of b past m left as they are.  Since jaxlib 0.4.15 (7dfc8ff49d) Gtsv2Descriptor
    is {batch, m, n, ldb} and b is batch x (ldb, n), column-major; before (jaxlib
    0.4.1 .. 0.4.14) it is {m, n, ldb} and b one (ldb, n) matrix laid out row-major,
    whose buffer cuSPARSE reads as the column-major ldb x n matrix (the two agree for
    n = 1): that is what runs here too."""
    ops = [np.asarray(v) for v in (dl, d, du)]
    dtype = np.dtype(np.float32 if call.name.endswith("f32") else np.float64)
    y = np.asarray(b)
    if y.dtype != dtype:
        raise call.fail(f"solves {dtype} systems, got {y.dtype}")
    if y.ndim < 2 or y.shape[-2] < ops[1].shape[-1]:
        raise call.fail(f"expects b of shape (..., ldb >= {ops[1].shape[-1]}, n), got {y.shape}")
    old = len(_opaque(call)) == 12
    if old:
        desc = _descriptor(call, "Gtsv2Descriptor", "<3i", "m n ldb")
        if y.ndim != 2:
            raise call.fail(f"expects one (ldb, n) right-hand side, got shape {y.shape}")
        want = {"m": ops[1].shape[-1], "n": y.shape[-1], "ldb": y.shape[-2]}
        y = np.reshape(y, (y.shape[-1], y.shape[-2])).T  # the buffer, column-major
    else:
        desc = _descriptor(call, "Gtsv2Descriptor")
        want = {"batch": _batch(y), "m": ops[1].shape[-1], "n": y.shape[-1], "ldb": y.shape[-2]}
        y = call.operand(3, y)
    _check(call, desc, y, **want)
    m = desc["m"]

    def one(dl: np.ndarray, d: np.ndarray, du: np.ndarray, rhs: np.ndarray) -> tuple[np.ndarray]:
        x = rhs.copy()
        x[:m] = _gtsv_x(dl, d, du, rhs[:m])[0]
        return (x,)

    if old:
        if len(call.result_types) != 2:
            raise call.fail(f"expects 2 results, got {len(call.result_types)}")
        x = one(ops[0], ops[1], ops[2], y)[0]
        shape = static_shape(call.result_types[0])
        return np.reshape(x.T, shape), zeros(call.result_types[1])
    return _legacy(call, one, [*ops, y], y.ndim - 2, 1)


@target("cusolver_csrlsvqr")
def csrlsvqr_legacy(call: Call, data: Any, indptr: Any, indices: Any, b: Any) -> np.ndarray:
    """jaxlib/gpu_solver.py ``_csrlsvqr_hlo`` (jax.experimental.sparse.linalg.spsolve,
    CUDA only; jaxlib d5de596d17 .. 0.4.32): (CSR data, indptr, indices, b) -> x with
    A x = b, by QR (cusolverSp<t>csrlsvqr); CsrlsvqrDescriptor {type, n, nnz, reorder,
    double tol}.  jaxlib's kernel fails with "Singular matrix in linear solve." when
    cuSOLVER finds |R[j, j]| <= tol; here R is that of A's own column order (the
    fill-reducing ``reorder`` permutes the columns first, which changes no solution
    but can move a nearly singular matrix across the tolerance)."""
    vals, ptr, cols, rhs = (np.asarray(v) for v in (data, indptr, indices, b))
    desc = _descriptor(call, "CsrlsvqrDescriptor")
    n = rhs.shape[0] if rhs.ndim == 1 else -1
    _check(call, desc, vals, n=n, nnz=vals.shape[0] if vals.ndim == 1 else -1)
    if ptr.shape != (n + 1,) or cols.shape != vals.shape:
        raise call.fail(f"expects indptr of {n + 1} and indices of {vals.shape[0]} entries")
    counts: np.ndarray = np.diff(ptr).astype(np.int64)
    if ptr[0] != 0 or (counts < 0).any() or ptr[-1] != vals.shape[0]:
        raise call.fail("has an indptr that is not a CSR row pointer")
    if ((cols < 0) | (cols >= n)).any():
        raise call.fail(f"has a column index outside [0, {n})")
    a = np.zeros((n, n), vals.dtype)
    np.add.at(a, (np.repeat(np.arange(n), counts), cols), vals)
    if n == 0:
        return np.zeros_like(rhs)
    qr, tau = geqrf_matrix(a)
    if np.abs(np.diagonal(qr)).min() <= desc["tol"]:
        raise call.fail("Singular matrix in linear solve.")
    (q,) = orgqr_matrix(qr, tau)
    qhb = np.conj(q.T) @ rhs[:, None]
    return trsm_matrix(np.triu(qr), qhb, 1, "L", False, "N", False)[0][:, 0]
