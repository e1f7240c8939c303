"""CPU LAPACK custom-call targets (``lapack_{s,d,c,z}<routine>_ffi``) through the same
LAPACK routines, from scipy.linalg.lapack (imported on first use).

Operand/result order and FFI attributes are jax's (jax/_src/lax/linalg.py lowerings,
jaxlib/cpu/lapack_kernels.cc); the FFI attributes are LAPACK character flags stored
as ui8 (``uplo = 76`` is 'L').  Every matrix operand is column-major
(``operand_layouts``), and leading dimensions are batch dimensions
(``num_batch_dims``): each matrix of the batch goes through the routine once.  The
``info`` results are LAPACK's.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...parser.errors import UnsupportedError
from .custom_targets import Call, target

# The LAPACK dtype prefix of each target name (jaxlib/lapack.py LAPACK_DTYPE_PREFIX).
PREFIXES = {"s": np.float32, "d": np.float64, "c": np.complex64, "z": np.complex128}


def lapack(name: str, dtype: Any) -> Any:
    """The scipy.linalg.lapack routine ``name`` (no prefix) for ``dtype``."""
    try:
        from scipy.linalg import lapack as _lapack
    except ImportError as e:  # pragma: no cover (scipy is a dependency of this family)
        raise UnsupportedError(f"LAPACK targets need scipy: {e}") from None
    (fn,) = _lapack.get_lapack_funcs((name,), dtype=np.dtype(dtype))
    return fn


def blas(name: str, dtype: Any) -> Any:
    """The scipy.linalg.blas routine ``name`` for ``dtype``."""
    from scipy.linalg import blas as _blas

    (fn,) = _blas.get_blas_funcs((name,), dtype=np.dtype(dtype))
    return fn


def names(
    base: str,
    real: str | None = None,
    complex_: str | None = None,
    *,
    lib: str = "lapack",
    suffix: str = "_ffi",
) -> list[str]:
    """The four target names of a routine: ``lapack_sgeqrf_ffi``...; ``real`` /
    ``complex_`` name the routine when it differs by field (orgqr / ungqr); ``lib`` and
    ``suffix``: jaxlib's targets before the FFI (``blas_strsm``, solver_lapack_legacy)."""
    out = []
    for p in PREFIXES:
        r = (complex_ if p in "cz" else real) or base
        out.append(f"{lib}_{p}{r}{suffix}")
    return out


def info(i: Any) -> np.int32:
    return np.int32(int(i))


# ----------------------------------------------------------------------------- cholesky


def potrf_matrix(m: np.ndarray, lower: bool) -> tuple[np.ndarray, np.int32]:
    """xPOTRF on one matrix: the factor in the ``lower`` triangle, the other triangle
    as given (LAPACK leaves it), info > 0 when not positive definite."""
    c, i = lapack("potrf", m.dtype)(m, lower=int(lower), clean=0)
    return c, info(i)


@target(*names("potrf"))
def potrf(call: Call, a: Any) -> tuple[np.ndarray, ...]:
    """(a) -> (factor, info); attribute uplo."""
    lower = call.char("uplo", "L") == "L"
    x = call.operand(0, a)
    return call.batched(lambda m: potrf_matrix(m, lower), [x], call.num_batch_dims(x.ndim - 2))


# ----------------------------------------------------------------------------- qr


def geqrf_matrix(m: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """xGEQRF: R above the diagonal, the Householder vectors below, and tau."""
    qr, tau, _, _ = lapack("geqrf", m.dtype)(m)
    return qr, tau


def orgqr_matrix(m: np.ndarray, tau: np.ndarray) -> tuple[np.ndarray]:
    """xORGQR / xUNGQR: the first n columns of the product of the reflectors."""
    name = "ungqr" if np.iscomplexobj(m) else "orgqr"
    if tau.shape[-1] == 0:
        out = np.zeros_like(m)
        k = min(m.shape)
        out[np.arange(k), np.arange(k)] = 1
        return (out,)
    q, _, _ = lapack(name, m.dtype)(m, tau)
    return (q,)


@target(*names("geqrf"))
def geqrf(call: Call, a: Any) -> tuple[np.ndarray, ...]:
    """(a) -> (householder form, tau)."""
    x = call.operand(0, a)
    return call.batched(geqrf_matrix, [x], call.num_batch_dims(x.ndim - 2))


@target(*names("", real="orgqr", complex_="ungqr"))
def orgqr(call: Call, a: Any, tau: Any) -> tuple[np.ndarray, ...]:
    """(householder form, tau) -> Q."""
    x = call.operand(0, a)
    return call.batched(orgqr_matrix, [x, np.asarray(tau)], call.num_batch_dims(x.ndim - 2))


# ----------------------------------------------------------------------------- eigh


def syevd_matrix(m: np.ndarray, lower: bool, vectors: bool) -> tuple[Any, ...]:
    """xSYEVD / xHEEVD: eigenvectors (columns) and ascending eigenvalues."""
    name = "heevd" if np.iscomplexobj(m) else "syevd"
    w, v, i = lapack(name, m.dtype)(m, compute_v=int(vectors), lower=int(lower))
    return (v if vectors else m), w, info(i)


@target(*names("", real="syevd", complex_="heevd"))
def syevd(call: Call, a: Any) -> tuple[np.ndarray, ...]:
    """(a) -> (eigenvectors, eigenvalues, info); attributes mode ('V'/'N'), uplo."""
    lower = call.char("uplo", "L") == "L"
    vectors = call.char("mode", "V") == "V"
    x = call.operand(0, a)
    return call.batched(
        lambda m: syevd_matrix(m, lower, vectors), [x], call.num_batch_dims(x.ndim - 2)
    )


# ----------------------------------------------------------------------------- eig


def unpack_real_eigenvectors(wi: np.ndarray, v: np.ndarray) -> np.ndarray:
    """LAPACK's real packing of complex eigenvectors: for a conjugate pair at j, j+1
    (wi[j] > 0), v[:, j] + i v[:, j+1] and its conjugate (xGEEV documentation)."""
    out = v.astype(np.result_type(v.dtype, np.complex64))
    js = np.flatnonzero(wi[:-1] > 0)  # wi[j] > 0 starts a pair; wi[j+1] = -wi[j]
    if js.size:
        re, im = v[:, js], v[:, js + 1]
        out[:, js] = re + 1j * im
        out[:, js + 1] = re - 1j * im
    return out


def geev_matrix(m: np.ndarray, left: bool, right: bool) -> tuple[Any, ...]:
    """xGEEV: eigenvalues (real: wr, wi), left and right eigenvectors (complex)."""
    fn = lapack("geev", m.dtype)
    if np.iscomplexobj(m):
        w, vl, vr, i = fn(m, compute_vl=int(left), compute_vr=int(right))
        return w, vl, vr, info(i)
    wr, wi, vl, vr, i = fn(m, compute_vl=int(left), compute_vr=int(right))
    vl = unpack_real_eigenvectors(wi, vl) if left else vl
    vr = unpack_real_eigenvectors(wi, vr) if right else vr
    return wr, wi, vl, vr, info(i)


@target(*names("geev"))
def geev(call: Call, a: Any) -> tuple[np.ndarray, ...]:
    """(a) -> ([wr, wi] | w, vl, vr, info); attributes compute_left, compute_right."""
    left = call.char("compute_left", "V") == "V"
    right = call.char("compute_right", "V") == "V"
    x = call.operand(0, a)
    return call.batched(lambda m: geev_matrix(m, left, right), [x], call.num_batch_dims(x.ndim - 2))


# ----------------------------------------------------------------------------- svd


def svd_matrix(m: np.ndarray, mode: str, routine: str = "gesdd") -> tuple[Any, ...]:
    """xGESDD / xGESVD: (a as left by LAPACK, s, u, vt, info) for job ``mode``
    ('A' full, 'S' reduced, 'N' values only; 'O' as 'S')."""
    fn = lapack(routine, m.dtype)
    uv = mode != "N"
    full = mode == "A"
    u, s, vt, i = fn(m, compute_uv=int(uv), full_matrices=int(full))
    return m, s, u, vt, info(i)


@target(*names("gesdd"), *names("gesvd"))
def gesdd(call: Call, a: Any) -> tuple[np.ndarray, ...]:
    """(a) -> (a, s, u, vt, info); attribute mode (a LAPACK jobz character)."""
    mode = call.char("mode", "A")
    routine = "gesvd" if "gesvd" in call.name else "gesdd"
    x = call.operand(0, a)
    return call.batched(
        lambda m: svd_matrix(m, mode, routine), [x], call.num_batch_dims(x.ndim - 2)
    )


# ----------------------------------------------------------------------------- lu


def getrf_matrix(m: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.int32]:
    """xGETRF: L\\U and the 1-based pivots (scipy gives them 0-based)."""
    lu, piv, i = lapack("getrf", m.dtype)(m)
    return lu, np.asarray(piv, np.int32) + 1, info(i)


@target(*names("getrf"))
def getrf(call: Call, a: Any) -> tuple[np.ndarray, ...]:
    """(a) -> (lu, pivots (1-based, LAPACK's), info)."""
    x = call.operand(0, a)
    return call.batched(getrf_matrix, [x], call.num_batch_dims(x.ndim - 2))


# ----------------------------------------------------------------------------- tridiagonal


def sytrd_matrix(m: np.ndarray, lower: bool) -> tuple[Any, ...]:
    """xSYTRD / xHETRD: reflectors in the ``lower`` triangle, d, e, tau, info."""
    name = "hetrd" if np.iscomplexobj(m) else "sytrd"
    if m.shape[-1] == 0:
        return m, np.zeros(0), np.zeros(0), np.zeros(0), info(0)
    c, d, e, tau, i = lapack(name, m.dtype)(m, lower=int(lower))
    return c, d, e, tau, info(i)


@target(*names("", real="sytrd", complex_="hetrd"))
def sytrd(call: Call, a: Any) -> tuple[np.ndarray, ...]:
    """(a) -> (a reduced, d, e, tau, info); attribute uplo."""
    lower = call.char("uplo", "L") == "L"
    x = call.operand(0, a)
    return call.batched(lambda m: sytrd_matrix(m, lower), [x], call.num_batch_dims(x.ndim - 2))


# ----------------------------------------------------------------------------- hessenberg


def gehrd_matrix(m: np.ndarray, low: int, high: int) -> tuple[Any, ...]:
    """xGEHRD with 1-based ilo = ``low``, ihi = ``high`` (scipy takes them 0-based)."""
    n = m.shape[-1]
    if n == 0:
        return m, np.zeros(0), info(0)
    ht, tau, i = lapack("gehrd", m.dtype)(m, lo=max(low - 1, 0), hi=min(high, n) - 1)
    return ht, tau, info(i)


@target(*names("gehrd"))
def gehrd(call: Call, a: Any) -> tuple[np.ndarray, ...]:
    """(a) -> (a reduced, tau, info); attributes low, high (ilo, ihi)."""
    x = call.operand(0, a)
    low = int(call.config.get("low") or 1)
    high = int(call.config.get("high") or x.shape[-1])
    return call.batched(lambda m: gehrd_matrix(m, low, high), [x], call.num_batch_dims(x.ndim - 2))


# ----------------------------------------------------------------------------- schur


def _no_select(*_: Any) -> int:
    return 0


def gees_matrix(m: np.ndarray, vectors: bool) -> tuple[Any, ...]:
    """xGEES without sorting: T, Schur vectors, eigenvalues, sdim, info."""
    fn = lapack("gees", m.dtype)
    if np.iscomplexobj(m):
        t, sdim, w, vs, _, i = fn(_no_select, m, compute_v=int(vectors), sort_t=0)
        return t, vs, w, info(sdim), info(i)
    t, sdim, wr, wi, vs, _, i = fn(_no_select, m, compute_v=int(vectors), sort_t=0)
    return t, vs, wr, wi, info(sdim), info(i)


@target(*names("gees"))
def gees(call: Call, a: Any) -> tuple[np.ndarray, ...]:
    """(a) -> (T, vs, [wr, wi] | w, sdim, info); attributes mode, sort ('N' only)."""
    if call.char("sort", "N") != "N":
        raise UnsupportedError(f"custom_call target '{call.name}': sorted Schur form")
    vectors = call.char("mode", "V") == "V"
    x = call.operand(0, a)
    return call.batched(lambda m: gees_matrix(m, vectors), [x], call.num_batch_dims(x.ndim - 2))


# ----------------------------------------------------------------------------- trsm


def trsm_matrix(
    a: np.ndarray, b: np.ndarray, alpha: Any, side: str, lower: bool, trans: str, unit: bool
) -> tuple[np.ndarray]:
    """xTRSM: op(A) X = alpha B (side 'L') or X op(A) = alpha B (side 'R')."""
    fn = blas("trsm", a.dtype)
    t = {"N": 0, "T": 1, "C": 2}[trans]
    x = fn(alpha, a, b, side=int(side == "R"), lower=int(lower), trans_a=t, diag=int(unit))
    return (x,)


@target(*names("trsm"))
def trsm(call: Call, a: Any, b: Any, *alpha: Any) -> tuple[np.ndarray, ...]:
    """(a, b[, alpha]) -> x; attributes side, uplo, trans_x, diag."""
    side = call.char("side", "L")
    lower = call.char("uplo", "L") == "L"
    trans = call.char("trans_x", "N")
    unit = call.char("diag", "N") == "U"
    x = call.operand(0, a)
    y = call.operand(1, b)
    scale = np.asarray(alpha[0]).item() if alpha else 1.0
    nb = call.num_batch_dims(y.ndim - 2)
    return call.batched(lambda m, r: trsm_matrix(m, r, scale, side, lower, trans, unit), [x, y], nb)


# ----------------------------------------------------------------------------- gtsv


def gtsv_matrix(dl: np.ndarray, d: np.ndarray, du: np.ndarray, b: np.ndarray) -> tuple[Any, ...]:
    """xGTSV on jax's convention: dl[0] and du[n-1] are padding (LAPACK's DL is
    dl[1:], DU is du[:-1])."""
    n = d.shape[-1]
    if n == 0:
        return dl, d, du, b, info(0)
    du2, d2, du_out, x, i = lapack("gtsv", b.dtype)(dl[1:], d, du[:-1], b)
    dl_out, du_full = dl.copy(), du.copy()
    dl_out[1:] = du2
    du_full[:-1] = du_out
    return dl_out, d2, du_full, x, info(i)


@target(*names("gtsv"))
def gtsv(call: Call, dl: Any, d: Any, du: Any, b: Any) -> tuple[np.ndarray, ...]:
    """(dl, d, du, b) -> (dl, d, du, x, info)."""
    y = call.operand(3, b)
    ops = [np.asarray(dl), np.asarray(d), np.asarray(du), y]
    return call.batched(gtsv_matrix, ops, call.num_batch_dims(y.ndim - 2))
