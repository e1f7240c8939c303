"""The GPU linear-algebra custom-call targets from before the FFI (engine/kernels/
solver_gpu.py, "before FFI"): api_version 2 calls whose parameters are the bytes of a
C descriptor in backend_config.  The programs are written here with jaxlib's
conventions (jaxlib-v0.4.20: jaxlib/gpu_solver.py, gpu_sparse.py, gpu_linalg.py for the
operands, results and layouts; jaxlib/gpu/{solver,blas,sparse}_kernels.h and
lu_pivot_kernels.h for the structs, packed here with ``struct``), and the expected
values come from NumPy / SciPy or from identities (P A = L U, Q R = A, U S V^H = A)."""

from __future__ import annotations

import struct

import numpy as np
import pytest
import scipy.linalg

from hlorun.parser.errors import InterpreterError
from tests.support.custom_call import col_major, ct, householder_q, rand, row_major, run

# SolverType / BlasType: enum class {F32, F64, C64, C128}
TYPE = {np.float32: 0, np.float64: 1, np.complex64: 2, np.complex128: 3}
REAL = {np.float32: np.float32, np.float64: np.float64, np.complex64: np.float32}
REAL[np.complex128] = np.float64
TOL = {np.float32: 1e-4, np.complex64: 1e-4, np.float64: 1e-10, np.complex128: 1e-10}
# gpusolverFillMode_t: CUBLAS_FILL_MODE_LOWER = 0, UPPER = 1; hipSOLVER UPPER = 121,
# LOWER = 122
FILL = {("cusolver", True): 0, ("cusolver", False): 1}
FILL.update({("hipsolver", True): 122, ("hipsolver", False): 121})
LWORK = 5  # any workspace length: the result is scratch


def opaque(fmt: str, *fields: int) -> str:
    """The descriptor's bytes as an MLIR string literal."""
    return "".join(f"\\{b:02X}" for b in struct.pack(fmt, *fields))


def lay(shapes, matrix_rank: int, row: bool = False) -> str:
    """jaxlib's layouts: matrices column-major (row-major with ``row``), the rest
    row-major (the descending layout)."""
    out = []
    for s in shapes:
        is_matrix = len(s) == matrix_rank
        out.append(col_major(len(s)) if is_matrix and not row else row_major(len(s)))
    return "[" + ", ".join(out) + "]"


def legacy(name, operands, results, descriptor, row=False):
    rank = max(a.ndim for a in operands)
    attrs = (
        f'backend_config = "{descriptor}", api_version = 2 : i32, '
        f"operand_layouts = {lay([a.shape for a in operands], rank, row)}, "
        f"result_layouts = {lay([tuple(s) for s, _ in results], rank, row)}"
    )
    return run(name, operands, results, attrs)


def batch_of(a: np.ndarray) -> int:
    return int(np.prod(a.shape[:-2]))


def apply_pivots(a: np.ndarray, piv: np.ndarray) -> np.ndarray:
    """P A for LAPACK's 1-based row swaps."""
    out = a.copy()
    for i, p in enumerate(piv):
        out[[i, p - 1]] = out[[p - 1, i]]
    return out


# ----------------------------------------------------------------------------- getrf


@pytest.mark.parametrize("solver", ["cusolver", "hipsolver"])
@pytest.mark.parametrize("dtype", [np.float32, np.complex128])
@pytest.mark.parametrize("shape", [(4, 3), (2, 3, 3), (2, 3, 5)])
def test_getrf(solver, dtype, shape):
    """_getrf_hlo: (a) -> (lu, pivots (1-based), info, workspace); GetrfDescriptor
    {type, batch, m, n, lwork}."""
    a = rand(shape, dtype)
    *bd, m, n = shape
    k = min(m, n)
    results = [(shape, dtype), ((*bd, k), np.int32), (tuple(bd), np.int32), ((LWORK,), dtype)]
    desc = opaque("<5i", TYPE[dtype], batch_of(a), m, n, LWORK)
    lu, piv, info, work = legacy(f"{solver}_getrf", [a], results, desc)
    for x, f, p in zip(a.reshape(-1, m, n), lu.reshape(-1, m, n), piv.reshape(-1, k)):
        low = np.tril(f, -1)[:, :k] + np.eye(m, k)
        np.testing.assert_allclose(low @ np.triu(f)[:k], apply_pivots(x, p), atol=TOL[dtype] * 10)
        # partial pivoting: |L| <= 1 (complex: the pivot maximises |re| + |im|)
        assert np.all(np.abs(low) <= (np.sqrt(2) if np.iscomplexobj(a) else 1) + 1e-6)
    assert not info.any() and work.shape == (LWORK,)


@pytest.mark.parametrize("blas", ["cublas", "hipblas"])
def test_getrf_batched(blas):
    """The batch of small square matrices: {cu,hip}blas_getrf_batched, the workspace
    bytes of the pointer array (i8), GetrfBatchedDescriptor {type, batch, n}; the same
    results as scipy's getrf (both LAPACK's partial pivoting)."""
    a = rand((3, 4, 4), np.float64, seed=2)
    results = [(a.shape, a.dtype), ((3, 4), np.int32), ((3,), np.int32), ((24,), np.int8)]
    lu, piv, info, _ = legacy(f"{blas}_getrf_batched", [a], results, opaque("<3i", 1, 3, 4))
    for x, f, p in zip(a, lu, piv):
        ref_lu, ref_piv = scipy.linalg.lu_factor(x)
        np.testing.assert_allclose(f, ref_lu, atol=1e-12)
        assert p.tolist() == (ref_piv + 1).tolist()
    assert info.tolist() == [0, 0, 0]


def test_getrf_singular_info():
    a = np.array([[1.0, 2.0], [2.0, 4.0]])
    results = [(a.shape, a.dtype), ((2,), np.int32), ((), np.int32), ((LWORK,), a.dtype)]
    _, _, info, _ = legacy("cusolver_getrf", [a], results, opaque("<5i", 1, 1, 2, 2, LWORK))
    assert int(info) == 2  # U[1, 1] is exactly zero


# ----------------------------------------------------------------------------- qr


@pytest.mark.parametrize("name", ["cusolver_geqrf", "hipsolver_geqrf"])
@pytest.mark.parametrize("dtype", [np.float64, np.complex64])
def test_geqrf(name, dtype):
    """_geqrf_hlo: (a) -> (householder form, tau, info, workspace); GeqrfDescriptor
    {type, batch, m, n, lwork}."""
    a = rand((2, 5, 3), dtype)
    results = [(a.shape, dtype), ((2, 3), dtype), ((2,), np.int32), ((LWORK,), dtype)]
    qr, tau, info, _ = legacy(name, [a], results, opaque("<5i", TYPE[dtype], 2, 5, 3, LWORK))
    for x, f, t in zip(a, qr, tau):
        q = householder_q(f, t)
        np.testing.assert_allclose(q[:, :3] @ np.triu(f)[:3], x, atol=TOL[dtype] * 10)
        np.testing.assert_allclose(ct(q) @ q, np.eye(5), atol=TOL[dtype] * 10)
    assert info.tolist() == [0, 0]


@pytest.mark.parametrize("blas", ["cublas", "hipblas"])
def test_geqrf_batched(blas):
    """_geqrf_batched_hlo: (a) -> (householder form, tau, two i8 workspaces);
    GeqrfBatchedDescriptor {type, batch, m, n}."""
    a = rand((4, 3, 2), np.float32)
    results = [(a.shape, a.dtype), ((4, 2), a.dtype), ((32,), np.int8), ((32,), np.int8)]
    qr, tau, w1, w2 = legacy(f"{blas}_geqrf_batched", [a], results, opaque("<4i", 0, 4, 3, 2))
    for x, f, t in zip(a, qr, tau):
        np.testing.assert_allclose(householder_q(f, t)[:, :2] @ np.triu(f)[:2], x, atol=1e-5)
    assert w1.shape == w2.shape == (32,)


@pytest.mark.parametrize("solver", ["cusolver", "hipsolver"])
def test_orgqr(solver):
    """_orgqr_hlo: (householder form, tau) -> (Q, info, workspace); OrgqrDescriptor
    {type, batch, m, n, k, lwork}; SciPy's economic QR is the reference."""
    a = rand((2, 4, 3), np.complex128, seed=3)
    raw = [scipy.linalg.qr(x, mode="raw")[0] for x in a]
    hh = np.stack([r[0] for r in raw])
    tau = np.stack([r[1] for r in raw])
    results = [(a.shape, a.dtype), ((2,), np.int32), ((LWORK,), a.dtype)]
    desc = opaque("<6i", 3, 2, 4, 3, 3, LWORK)
    q, info, _ = legacy(f"{solver}_orgqr", [hh, tau], results, desc)
    for x, got in zip(a, q):
        np.testing.assert_allclose(got, scipy.linalg.qr(x, mode="economic")[0], atol=1e-12)
    assert info.tolist() == [0, 0]


# ----------------------------------------------------------------------------- svd


@pytest.mark.parametrize("solver", ["cusolver", "hipsolver"])
@pytest.mark.parametrize("job", ["A", "S", "N"])
def test_gesvd_tall(solver, job):
    """m >= n: (a) -> (a, s, u, vt, info, workspace), column-major; GesvdDescriptor
    {type, batch, m, n, lwork, jobu, jobvt} (signed chars, 2 bytes of padding)."""
    a = rand((2, 4, 3), np.float64)
    k = 4 if job == "A" else 3
    results = [
        (a.shape, a.dtype),
        ((2, 3), np.float64),
        ((2, 4, k), a.dtype),
        ((2, 3, 3), a.dtype),
        ((2,), np.int32),
        ((LWORK,), a.dtype),
    ]
    desc = opaque("<5i2b2x", 1, 2, 4, 3, LWORK, ord(job), ord(job))
    _, s, u, vt, info, _ = legacy(f"{solver}_gesvd", [a], results, desc)
    np.testing.assert_allclose(s, np.linalg.svd(a, compute_uv=False), rtol=1e-12)
    if job != "N":
        np.testing.assert_allclose((u[..., :3] * s[..., None, :]) @ vt, a, atol=1e-12)
        np.testing.assert_allclose(ct(u) @ u, np.broadcast_to(np.eye(k), (2, k, k)), atol=1e-12)
    assert info.tolist() == [0, 0]


def test_gesvd_wide_row_major():
    """m < n: jaxlib passes a row-major (the routine factors A^T, the descriptor has
    m, n swapped) and reads (vt, u) from results 2, 3, row-major too."""
    a = rand((3, 5), np.complex64, seed=4)
    results = [
        (a.shape, a.dtype),
        ((3,), np.float32),
        ((5, 5), a.dtype),
        ((3, 3), a.dtype),
        ((), np.int32),
        ((LWORK,), a.dtype),
    ]
    desc = opaque("<5i2b2x", 2, 1, 5, 3, LWORK, ord("A"), ord("A"))
    _, s, vt, u, info, _ = legacy("cusolver_gesvd", [a], results, desc, row=True)
    np.testing.assert_allclose(s, np.linalg.svd(a, compute_uv=False), rtol=1e-5)
    np.testing.assert_allclose((u * s) @ vt[:3], a, atol=1e-5)
    np.testing.assert_allclose(vt @ ct(vt), np.eye(5), atol=1e-5)
    assert int(info) == 0


@pytest.mark.parametrize(
    ("shape", "econ", "jobz"), [((2, 4, 3), 0, 1), ((3, 5), 1, 1), ((3, 2), 0, 0)]
)
def test_gesvdj(shape, econ, jobz):
    """cusolver_gesvdj: (a) -> (a, s, u, v, info, workspace), V itself;
    GesvdjDescriptor {type, batch, m, n, lwork, jobz, econ}."""
    a = rand(shape, np.float32, seed=5)
    *bd, m, n = shape
    k = min(m, n)
    bd = tuple(bd)
    results = [
        (shape, a.dtype),
        ((*bd, k), np.float32),
        ((*bd, m, k if econ else m), a.dtype),
        ((*bd, n, k if econ else n), a.dtype),
        (bd, np.int32),
        ((LWORK,), a.dtype),
    ]
    desc = opaque("<7i", 0, batch_of(a), m, n, LWORK, jobz, econ)
    _, s, u, v, info, _ = legacy("cusolver_gesvdj", [a], results, desc)
    np.testing.assert_allclose(s, np.linalg.svd(a, compute_uv=False), rtol=1e-5)
    if jobz:
        usv = (u[..., :k] * s[..., None, :]) @ ct(v[..., :k])
        np.testing.assert_allclose(usv, a, atol=1e-5)
    else:
        assert not u.any() and not v.any()
    assert not info.any()


# ----------------------------------------------------------------------------- sytrd


def tridiagonal_eigvals(d: np.ndarray, e: np.ndarray) -> np.ndarray:
    return np.linalg.eigvalsh(np.diag(d) + np.diag(e, -1) + np.diag(np.conj(e), 1))


@pytest.mark.parametrize("solver", ["cusolver", "hipsolver"])
@pytest.mark.parametrize("lower", [True, False])
def test_sytrd(solver, lower):
    """_sytrd_hlo: (a) -> (a reduced, d, e, tau, info, workspace); SytrdDescriptor
    {type, uplo, batch, n, lda, lwork}: the fill mode picks the triangle read, and the
    tridiagonal (d, e) has the eigenvalues of a; SciPy's hetrd is the reference."""
    h = rand((2, 4, 4), np.complex128, seed=6)
    h = h + ct(h)
    keep = np.tril(np.ones((4, 4), bool)) if lower else np.triu(np.ones((4, 4), bool))
    a = np.where(keep, h, 99.0)  # the other triangle is noise
    results = [
        (a.shape, a.dtype),
        ((2, 4), np.float64),
        ((2, 3), np.float64),
        ((2, 3), a.dtype),
        ((2,), np.int32),
        ((LWORK,), a.dtype),
    ]
    desc = opaque("<6i", 3, FILL[solver, lower], 2, 4, 4, LWORK)
    c, d, e, tau, info, _ = legacy(f"{solver}_sytrd", [a], results, desc)
    for x, cc, dd, ee, tt in zip(h, c, d, e, tau):
        np.testing.assert_allclose(tridiagonal_eigvals(dd, ee), np.linalg.eigvalsh(x), atol=1e-10)
        ref_c, ref_d, ref_e, ref_tau, _ = scipy.linalg.lapack.zhetrd(x, lower=int(lower))
        np.testing.assert_allclose(dd, ref_d, atol=1e-12)
        np.testing.assert_allclose(ee, ref_e, atol=1e-12)
        np.testing.assert_allclose(tt, ref_tau, atol=1e-12)
        tri = np.tril(np.ones((4, 4), bool)) if lower else np.triu(np.ones((4, 4), bool))
        np.testing.assert_allclose(cc[tri], ref_c[tri], atol=1e-12)
    assert info.tolist() == [0, 0]


# ----------------------------------------------------------------------------- gtsv2


def tridiagonal(dl, d, du) -> np.ndarray:
    return np.diag(d) + np.diag(dl[1:], -1) + np.diag(du[:-1], 1)


def diagonals(shape, dtype, seed):
    rng = np.random.default_rng(seed)
    dl, du = rng.standard_normal(shape), rng.standard_normal(shape)
    d = 4 + rng.standard_normal(shape)  # diagonally dominant
    dl[..., 0] = du[..., -1] = 0
    return [x.astype(dtype) for x in (dl, d, du)]


@pytest.mark.parametrize("name", ["cusparse_gtsv2_f64", "hipsparse_gtsv2_f32"])
def test_gtsv2_batched(name):
    """jaxlib >= 0.4.15: (dl, d, du, b) -> (x, i8 workspace), b batch x (ldb, n)
    column-major; Gtsv2Descriptor {batch, m, n, ldb}."""
    dtype = np.float64 if name.endswith("f64") else np.float32
    dl, d, du = diagonals((2, 4), dtype, 7)
    b = rand((2, 4, 3), dtype, seed=8)
    results = [(b.shape, dtype), ((16,), np.int8)]
    x, _ = legacy(name, [dl, d, du, b], results, opaque("<4i", 2, 4, 3, 4))
    for i in range(2):
        ref = np.linalg.solve(tridiagonal(dl[i], d[i], du[i]).astype(np.float64), b[i])
        np.testing.assert_allclose(x[i], ref, rtol=1e-4 if dtype == np.float32 else 1e-12)


@pytest.mark.parametrize("n", [1, 2])
def test_gtsv2_before_batching(n):
    """jaxlib 0.4.1 .. 0.4.14: Gtsv2Descriptor {m, n, ldb} and b one (ldb, n) matrix
    laid out row-major ([1, 0]); cuSPARSE reads its buffer as the column-major
    ldb x n matrix and writes x back the same way, which for n > 1 is not b's
    columns: the expectation follows the buffer."""
    dl, d, du = diagonals((4,), np.float64, 9)
    b = rand((4, n), np.float64, seed=10)
    attrs = (
        f'backend_config = "{opaque("<3i", 4, n, 4)}", api_version = 2 : i32, '
        f"operand_layouts = [{row_major(1)}, {row_major(1)}, {row_major(1)}, {row_major(2)}], "
        f"result_layouts = [{row_major(2)}, {row_major(1)}]"
    )
    x, _ = run("cusparse_gtsv2_f64", [dl, d, du, b], [(b.shape, b.dtype), ((8,), np.int8)], attrs)
    seen = b.reshape(-1).reshape(n, 4).T  # the buffer as a column-major 4 x n matrix
    solved = np.linalg.solve(tridiagonal(dl, d, du), seen)
    np.testing.assert_allclose(x, solved.T.reshape(-1).reshape(4, n), rtol=1e-12)
    if n == 1:
        np.testing.assert_allclose(x, np.linalg.solve(tridiagonal(dl, d, du), b), rtol=1e-12)


# ----------------------------------------------------------------------------- pivots


def test_lu_pivots_to_permutation_with_descriptor():
    """jaxlib-v0.4.20 gpu_linalg.py: the same operand and result, plus an opaque
    LuPivotsToPermutationDescriptor {int64 batch_size; int32 pivot_size,
    permutation_size}; 0-based pivots."""
    piv = np.array([[2, 2, 2], [1, 1, 2]], np.int32)
    attrs = (
        f'backend_config = "{opaque("<q2i", 2, 3, 4)}", api_version = 2 : i32, '
        f"operand_layouts = [{row_major(2)}], result_layouts = [{row_major(2)}]"
    )
    (perm,) = run("cu_lu_pivots_to_permutation", [piv], [((2, 4), np.int32)], attrs)
    ref = []
    for p in piv:  # the row swaps, one after the other
        order = list(range(4))
        for i, j in enumerate(p):
            order[i], order[j] = order[j], order[i]
        ref.append(order)
    assert perm.tolist() == ref


# ----------------------------------------------------------------------------- malformed


def _getrf_results(a):
    return [(a.shape, a.dtype), ((2,), np.int32), ((), np.int32), ((LWORK,), a.dtype)]


def test_descriptor_of_the_wrong_size_is_refused():
    a = np.eye(2)
    with pytest.raises(InterpreterError, match=r"cusolver_getrf.*20-byte GetrfDescriptor.*16"):
        legacy("cusolver_getrf", [a], _getrf_results(a), opaque("<4i", 1, 1, 2, 2))


def test_descriptor_disagreeing_with_the_operand_is_refused():
    a = np.eye(2)
    with pytest.raises(InterpreterError, match=r"hipsolver_getrf.*m = 3, the operand needs 2"):
        legacy("hipsolver_getrf", [a], _getrf_results(a), opaque("<5i", 1, 1, 3, 2, LWORK))
    with pytest.raises(InterpreterError, match=r"type = 0, the operand needs 1"):
        legacy("hipsolver_getrf", [a], _getrf_results(a), opaque("<5i", 0, 1, 2, 2, LWORK))


def test_unknown_svd_job_and_fill_mode_are_refused():
    a = np.eye(2)
    results = [
        (a.shape, a.dtype),
        ((2,), a.dtype),
        ((2, 2), a.dtype),
        ((2, 2), a.dtype),
        ((), np.int32),
        ((LWORK,), a.dtype),
    ]
    desc = opaque("<5i2b2x", 1, 1, 2, 2, LWORK, ord("X"), ord("X"))
    with pytest.raises(InterpreterError, match=r"cusolver_gesvd.*jobu"):
        legacy("cusolver_gesvd", [a], results, desc)
    results = [(a.shape, a.dtype), ((2,), a.dtype), ((1,), a.dtype), ((1,), a.dtype)]
    results += [((), np.int32), ((LWORK,), a.dtype)]
    with pytest.raises(InterpreterError, match=r"hipsolver_sytrd.*fill mode 0"):
        legacy("hipsolver_sytrd", [a], results, opaque("<6i", 1, 0, 1, 2, 2, LWORK))


def test_missing_workspace_result_is_refused():
    a = np.eye(2)
    with pytest.raises(InterpreterError, match=r"cusolver_getrf.*expects 4 results, got 3"):
        legacy("cusolver_getrf", [a], _getrf_results(a)[:3], opaque("<5i", 1, 1, 2, 2, LWORK))


def test_gtsv2_of_the_other_precision_is_refused():
    dl, d, du = diagonals((3,), np.float64, 11)
    b = np.ones((3, 1))
    results = [(b.shape, b.dtype), ((8,), np.int8)]
    with pytest.raises(InterpreterError, match=r"cusparse_gtsv2_f32.*float32 systems"):
        legacy("cusparse_gtsv2_f32", [dl, d, du, b], results, opaque("<4i", 1, 3, 1, 3))


# ----------------------------------------------------------------------------- csrlsvqr


def csr(a: np.ndarray):
    """(data, indptr, indices) of ``a``'s nonzeros, row by row (int32 indices)."""
    rows, cols = np.nonzero(a)
    indptr = np.searchsorted(rows, np.arange(a.shape[0] + 1)).astype(np.int32)
    return a[rows, cols], indptr, cols.astype(np.int32)


def spsolve(a, b, tol=1e-6, reorder=1):
    data, indptr, indices = csr(a)
    desc = opaque("<4id", TYPE[a.dtype.type], a.shape[0], data.size, reorder, tol)
    attrs = (
        f'backend_config = "{desc}", api_version = 2 : i32, '
        f"operand_layouts = [{', '.join([row_major(1)] * 4)}], result_layouts = [{row_major(1)}]"
    )
    (x,) = run("cusolver_csrlsvqr", [data, indptr, indices, b], [(b.shape, b.dtype)], attrs)
    return x


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex128])
def test_csrlsvqr(dtype):
    """_csrlsvqr_hlo: (data, indptr, indices, b) -> x; CsrlsvqrDescriptor {type, n,
    nnz, reorder, double tol}; NumPy's dense solve is the reference."""
    rng = np.random.default_rng(12)
    a = rand((6, 6), dtype, seed=13) * (rng.random((6, 6)) < 0.4) + 3 * np.eye(6, dtype=dtype)
    b = rand((6,), dtype, seed=14)
    tol = 1e-4 if dtype == np.float32 else 1e-11
    np.testing.assert_allclose(spsolve(a, b), np.linalg.solve(a, b), rtol=tol, atol=tol)


def test_csrlsvqr_singular_matrix_fails_as_jaxlib_does():
    a = np.array([[1.0, 2.0, 0.0], [2.0, 4.0, 0.0], [0.0, 0.0, 1.0]])
    with pytest.raises(InterpreterError, match=r"cusolver_csrlsvqr.*Singular matrix"):
        spsolve(a, np.ones(3))


# ----------------------------------------------------------------------------- bytes


def test_descriptor_bytes_that_are_not_ascii():
    """A real lwork fills bytes >= 0x80, some of them valid UTF-8 (C3 A9 is 'e'
    acute): the descriptor is the string's bytes, not its characters."""
    a = rand((3, 3), np.float64, seed=15)
    lwork = 0xA9C3
    results = [(a.shape, a.dtype), ((3,), np.int32), ((), np.int32), ((lwork,), a.dtype)]
    desc = opaque("<5i", 1, 1, 3, 3, lwork)
    assert "\\C3\\A9" in desc
    lu, piv, _, work = legacy("cusolver_getrf", [a], results, desc)
    ref_lu, ref_piv = scipy.linalg.lu_factor(a)
    np.testing.assert_allclose(lu, ref_lu, atol=1e-12)
    assert piv.tolist() == (ref_piv + 1).tolist() and work.shape == (lwork,)


def test_syevd_dynamic_batch():
    """A symbolic batch: the descriptor's batch is -1 (bytes FF FF FF FF) and the batch
    size is a second (scalar) operand."""
    sym = rand((2, 3, 3), np.float64, seed=16)
    sym = sym + np.swapaxes(sym, -1, -2)
    count = np.array(2, np.int32)
    results = [(sym.shape, sym.dtype), ((2, 3), np.float64), ((2,), np.int32), ((9,), sym.dtype)]
    attrs = (
        f'backend_config = "{opaque("<5i", 1, 0, -1, 3, 9)}", api_version = 2 : i32, '
        f"operand_layouts = [{col_major(3)}, {row_major(0)}], "
        f"result_layouts = [{col_major(3)}, {row_major(2)}, {row_major(1)}, {row_major(1)}]"
    )
    v, w, info, _ = run("cusolver_syevd", [sym, count], results, attrs)
    np.testing.assert_allclose(w, np.linalg.eigvalsh(sym), atol=1e-12)
    np.testing.assert_allclose(sym @ v, v * w[..., None, :], atol=1e-12)
    assert info.tolist() == [0, 0]


def test_descriptor_survives_a_portable_artifact():
    """In a jax.export artifact the descriptor is a VHLO string attribute: its bytes
    are written as they are (found verbatim in the artifact) and read back as bytes."""
    from hlorun import engine
    from hlorun.parser.vhlo.artifact import serialize_portable_artifact
    from tests.support.custom_call import module

    a = rand((3, 3), np.float64, seed=17)
    lwork = 0xA9C3
    raw = struct.pack("<5i", 1, 1, 3, 3, lwork)
    attrs = (
        f'backend_config = "{opaque("<5i", 1, 1, 3, 3, lwork)}", api_version = 2 : i32, '
        f"operand_layouts = [{col_major(2)}], "
        f"result_layouts = [{col_major(2)}, {row_major(1)}, {row_major(0)}, {row_major(1)}]"
    )
    results = [(a.shape, a.dtype), ((3,), np.int32), ((), np.int32), ((lwork,), a.dtype)]
    data = serialize_portable_artifact(module("cusolver_getrf", [a], results, attrs), "1.0.0")
    assert raw in data
    lu, piv, _, _ = engine.run(data, [a])
    ref_lu, ref_piv = scipy.linalg.lu_factor(a)
    np.testing.assert_allclose(lu, ref_lu, atol=1e-12)
    assert np.asarray(piv).tolist() == (ref_piv + 1).tolist()
