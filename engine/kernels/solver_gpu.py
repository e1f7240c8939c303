"""GPU solver custom-call targets (cuSOLVER / hipSOLVER / cuSPARSE), run on CPU
through the LAPACK routine of the same decomposition (solver_lapack.py).

Operands, results and attributes as jax lowers them (jax/_src/lax/linalg.py
``*_cpu_gpu_lowering`` / ``_svd_gpu_sub_lowering``, jaxlib/gpu_solver.py,
jaxlib/gpu/solver_kernels_ffi.cc): boolean FFI attributes (``lower``,
``full_matrices``, ``compute_uv``, ``transposed``), LAPACK's 1-based getrf pivots and
info outputs.  The layouts say what the routine sees: gesvd with ``transposed`` gets
row-major operands, i.e. the transpose, which ``Call.operand`` / ``Call.batched``
apply.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .custom_targets import Call, target, zeros
from .solver_lapack import (
    geqrf_matrix,
    getrf_matrix,
    gtsv_matrix,
    orgqr_matrix,
    potrf_matrix,
    svd_matrix,
    syevd_matrix,
    sytrd_matrix,
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


def _svd(call: Call, a: Any, *, v_not_vt: bool) -> tuple[np.ndarray, ...]:
    """gesvd / gesdd: (a) -> (a, s, u, vt, info); gesvdj / gesvdp return V, not V^H.
    ``full_matrices`` false is the economy form; without ``compute_uv`` the u / v
    results are left zero."""
    full = call.flag("full_matrices", True)
    uv = call.flag("compute_uv", True)
    x = call.operand(0, a)

    def one(m: np.ndarray) -> tuple[Any, ...]:
        _, s, u, vt, i = svd_matrix(m, ("A" if full else "S") if uv else "N")
        if not uv:
            return m, s, 0, 0, i
        return m, s, u, (np.conj(vt.T) if v_not_vt else vt), i

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

    def one(*ops: np.ndarray) -> tuple[np.ndarray]:
        return (gtsv_matrix(*ops)[3],)

    return call.batched(one, [np.asarray(dl), np.asarray(d), np.asarray(du), y], _nb(call, y))


# ----------------------------------------------------------------------------- before FFI

# jaxlib's legacy (api_version 2) eigh targets take their parameters as the raw bytes of
# a descriptor in backend_config (jaxlib/gpu/solver_kernels.h SyevdDescriptor /
# SyevjDescriptor: SolverType type; gpusolverFillMode_t uplo; int batch, n, lwork: five
# little-endian int32).  The fill-mode values: cuBLAS's CUBLAS_FILL_MODE_LOWER = 0,
# UPPER = 1; hipSOLVER's HIPSOLVER_FILL_MODE_UPPER = 121, LOWER = 122.
_FILL_MODES = {"cusolver": {0: True, 1: False}, "hipsolver": {122: True, 121: False}}


def _legacy_lower(call: Call) -> bool:
    raw = call.attrs.get("backend_config")
    data = raw.encode("latin-1") if isinstance(raw, str) else bytes(raw or b"")
    if len(data) < 8:
        raise call.fail(f"expects a 20-byte descriptor in backend_config, got {len(data)}")
    uplo = int.from_bytes(data[4:8], "little", signed=True)
    modes = _FILL_MODES[call.name.split("_", 1)[0]]
    if uplo not in modes:
        raise call.fail(f"unknown fill mode {uplo} in its descriptor")
    return modes[uplo]


@target(*(f"{s}_{r}" for s in _SOLVERS for r in ("syevd", "syevj")))
def syevd_legacy(call: Call, a: Any, *batch_size: Any) -> tuple[np.ndarray, ...]:
    """jaxlib/gpu_solver.py ``_syevd_hlo`` before the FFI targets: (a[, batch size when
    the batch is dynamic]) -> (eigenvectors, eigenvalues ascending, info, workspace);
    the triangle read is the descriptor's fill mode."""
    lower = _legacy_lower(call)
    if len(call.result_types) != 4:
        raise call.fail(f"expects 4 results, got {len(call.result_types)}")
    x = call.operand(0, a)
    head = Call(call.name, call.result_types[:3], call.context, call.attrs)
    v, w, info = head.batched(lambda m: syevd_matrix(m, lower, True), [x], x.ndim - 2)
    return v, w, info, zeros(call.result_types[3])
