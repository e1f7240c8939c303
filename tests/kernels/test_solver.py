"""The solver custom-call targets of jax.export (engine/kernels/solver_*.py), each run
from MLIR text with jax's operand/result conventions and checked against independent
facts: reconstructions (L L^H = A, Q R = A, U S V^H = A, P A = L U...), numpy.linalg's
eigenvalues / singular values / solutions of the same input, LAPACK's info for singular
and non-positive-definite input.  Batched cases run each matrix."""

from __future__ import annotations

import numpy as np
import pytest

from tests.support.custom_call import ffi_attrs, run

DTYPES = {"s": np.float32, "d": np.float64, "c": np.complex64, "z": np.complex128}
TOL = {"s": 1e-4, "d": 1e-10, "c": 1e-4, "z": 1e-10}
L, U, V, N, A, S = 76, 85, 86, 78, 65, 83  # LAPACK flags as jax's ui8 attributes


def rand(shape, p, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(shape)
    if p in "cz":
        x = x + 1j * rng.standard_normal(shape)
    return x.astype(DTYPES[p])


def ct(a):
    return np.conj(np.swapaxes(a, -1, -2))


def spd(shape, p):
    a = rand(shape, p)
    return (a @ ct(a) + shape[-1] * np.eye(shape[-1])).astype(DTYPES[p])


def assert_same_eigenvalues(got, want, tol):
    """Equal as multisets (per matrix): each value has a close partner both ways."""
    got, want = np.asarray(got), np.asarray(want)
    for idx in np.ndindex(*got.shape[:-1]):
        d = np.abs(got[idx][:, None] - want[idx][None, :])
        assert np.all(d.min(axis=1) <= tol * (1 + np.abs(got[idx]))), (got[idx], want[idx])
        assert np.all(d.min(axis=0) <= tol * (1 + np.abs(want[idx]))), (got[idx], want[idx])


def real_of(p):
    return np.float32 if p in "sc" else np.float64


def lapack(routine, p, operands, results, config="", nb=0):
    name = f"lapack_{p}{routine}_ffi"
    return run(name, operands, results, ffi_attrs(config, operands, results, nb))


PS = list(DTYPES)
BATCHES = [(), (3,)]


# ----------------------------------------------------------------------------- potrf


@pytest.mark.parametrize("p", PS)
@pytest.mark.parametrize("batch", BATCHES)
def test_potrf_factor(p, batch):
    a = spd((*batch, 4, 4), p)
    c, info = lapack(
        "potrf", p, [a], [(a.shape, a.dtype), (batch, np.int32)], f"uplo = {L} : ui8", len(batch)
    )
    low = np.tril(c)
    np.testing.assert_allclose(low @ ct(low), a, rtol=TOL[p], atol=TOL[p] * 10)
    np.testing.assert_array_equal(info, 0)
    # LAPACK leaves the other triangle as given
    np.testing.assert_array_equal(np.triu(c, 1), np.triu(a, 1))


def test_potrf_not_positive_definite_info():
    a = np.stack([np.eye(3), np.diag([1.0, -1.0, 1.0])])
    _, info = lapack(
        "potrf", "d", [a], [(a.shape, a.dtype), ((2,), np.int32)], f"uplo = {L} : ui8", 1
    )
    assert info.tolist() == [0, 2]  # the leading minor of order 2 is not positive


def test_potrf_upper():
    a = spd((4, 4), "d")
    c, _ = lapack("potrf", "d", [a], [(a.shape, a.dtype), ((), np.int32)], f"uplo = {U} : ui8")
    up = np.triu(c)
    np.testing.assert_allclose(ct(up) @ up, a, rtol=1e-12)


# ----------------------------------------------------------------------------- qr


@pytest.mark.parametrize("p", PS)
@pytest.mark.parametrize("batch", BATCHES)
@pytest.mark.parametrize("mn", [(4, 4), (5, 3)])
def test_geqrf_orgqr_reconstruct(p, batch, mn):
    m, n = mn
    a = rand((*batch, m, n), p)
    k = min(m, n)
    h, tau = lapack("geqrf", p, [a], [(a.shape, a.dtype), ((*batch, k), a.dtype)], nb=len(batch))
    routine = "ungqr" if p in "cz" else "orgqr"
    (q,) = lapack(routine, p, [h, tau], [(a.shape, a.dtype)], nb=len(batch))
    r = np.triu(h)[..., :k, :]
    np.testing.assert_allclose(q @ r, a, rtol=TOL[p], atol=TOL[p] * 10)
    np.testing.assert_allclose(
        ct(q) @ q, np.broadcast_to(np.eye(n), (*batch, n, n)), atol=TOL[p] * 10
    )


# ----------------------------------------------------------------------------- eigh


@pytest.mark.parametrize("p", PS)
@pytest.mark.parametrize("batch", BATCHES)
def test_syevd_heevd(p, batch):
    a = rand((*batch, 4, 4), p)
    a = ((a + ct(a)) / 2).astype(a.dtype)
    routine = "heevd" if p in "cz" else "syevd"
    results = [(a.shape, a.dtype), ((*batch, 4), real_of(p)), (batch, np.int32)]
    v, w, info = lapack(routine, p, [a], results, f"mode = {V} : ui8, uplo = {L} : ui8", len(batch))
    np.testing.assert_allclose(
        w, np.linalg.eigvalsh(a.astype(np.complex128)), rtol=TOL[p], atol=TOL[p]
    )
    np.testing.assert_allclose(a @ v, v * w[..., None, :], atol=TOL[p] * 10)
    np.testing.assert_array_equal(info, 0)


# ----------------------------------------------------------------------------- geev


def _eig_input(p, batch):
    # a rotation block gives a complex-conjugate pair for the real routines
    a = rand((*batch, 4, 4), p, seed=3)
    a[..., 0, 1] += 3
    a[..., 1, 0] -= 3
    return a


@pytest.mark.parametrize("p", PS)
@pytest.mark.parametrize("batch", BATCHES)
def test_geev(p, batch):
    a = _eig_input(p, batch)
    cdt = np.complex64 if p in "sc" else np.complex128
    vecs = [((*batch, 4, 4), cdt)] * 2
    if p in "sd":
        results = [((*batch, 4), a.dtype)] * 2 + vecs + [(batch, np.int32)]
        wr, wi, vl, vr, info = lapack(
            "geev",
            p,
            [a],
            results,
            f"compute_left = {V} : ui8, compute_right = {V} : ui8",
            len(batch),
        )
        w = wr + 1j * wi
    else:
        results = [((*batch, 4), a.dtype)] + vecs + [(batch, np.int32)]
        w, vl, vr, info = lapack(
            "geev",
            p,
            [a],
            results,
            f"compute_left = {V} : ui8, compute_right = {V} : ui8",
            len(batch),
        )
    want = np.linalg.eigvals(a.astype(np.complex128))
    assert_same_eigenvalues(w, want, TOL[p] * 10)
    assert np.any(np.abs(w.imag) > 1)  # a complex pair really was unpacked
    np.testing.assert_allclose(a @ vr, vr * w[..., None, :], atol=TOL[p] * 100)
    np.testing.assert_allclose(ct(vl) @ a, w[..., :, None] * ct(vl), atol=TOL[p] * 100)
    np.testing.assert_array_equal(info, 0)


# ----------------------------------------------------------------------------- svd


@pytest.mark.parametrize("p", PS)
@pytest.mark.parametrize("batch", BATCHES)
@pytest.mark.parametrize(("mn", "mode"), [((4, 4), A), ((5, 3), A), ((3, 5), S)])
def test_gesdd(p, batch, mn, mode):
    m, n = mn
    k = min(m, n)
    a = rand((*batch, m, n), p)
    ushape = (m, m) if mode == A else (m, k)
    vshape = (n, n) if mode == A else (k, n)
    results = [
        (a.shape, a.dtype),
        ((*batch, k), real_of(p)),
        ((*batch, *ushape), a.dtype),
        ((*batch, *vshape), a.dtype),
        (batch, np.int32),
    ]
    _, s, u, vt, info = lapack("gesdd", p, [a], results, f"mode = {mode} : ui8", len(batch))
    np.testing.assert_allclose(
        s, np.linalg.svd(a.astype(np.complex128), compute_uv=False), rtol=TOL[p] * 10, atol=TOL[p]
    )
    rec = (u[..., :, :k] * s[..., None, :]) @ vt[..., :k, :]
    np.testing.assert_allclose(rec, a, atol=TOL[p] * 10)
    np.testing.assert_array_equal(info, 0)


# ----------------------------------------------------------------------------- getrf


def _perm_from_pivots(piv0):
    p = np.arange(len(piv0))
    for i, j in enumerate(piv0):
        p[[i, j]] = p[[j, i]]
    return p


@pytest.mark.parametrize("p", PS)
@pytest.mark.parametrize("batch", BATCHES)
def test_getrf(p, batch):
    a = rand((*batch, 4, 4), p)
    results = [(a.shape, a.dtype), ((*batch, 4), np.int32), (batch, np.int32)]
    lu, piv, info = lapack("getrf", p, [a], results, nb=len(batch))
    assert piv.min() >= 1  # LAPACK's 1-based pivots
    for idx in np.ndindex(*batch):
        perm = _perm_from_pivots(piv[idx] - 1)
        low = np.tril(lu[idx], -1) + np.eye(4)
        np.testing.assert_allclose(low @ np.triu(lu[idx]), a[idx][perm], atol=TOL[p] * 10)
    np.testing.assert_array_equal(info, 0)


def test_getrf_singular_info():
    a = np.array([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [1.0, 0.0, 1.0]])
    _, _, info = lapack("getrf", "d", [a], [(a.shape, a.dtype), ((3,), np.int32), ((), np.int32)])
    assert int(info) == 3  # U[2, 2] is exactly zero


# ----------------------------------------------------------------------------- sytrd / gehrd


@pytest.mark.parametrize("p", PS)
@pytest.mark.parametrize("batch", BATCHES)
def test_sytrd_keeps_eigenvalues(p, batch):
    a = rand((*batch, 4, 4), p)
    a = ((a + ct(a)) / 2).astype(a.dtype)
    routine = "hetrd" if p in "cz" else "sytrd"
    rt = real_of(p)
    results = [
        (a.shape, a.dtype),
        ((*batch, 4), rt),
        ((*batch, 3), rt),
        ((*batch, 3), a.dtype),
        (batch, np.int32),
    ]
    _, d, e, _, info = lapack(routine, p, [a], results, f"uplo = {L} : ui8", len(batch))
    t = np.zeros(a.shape, np.float64)
    i = np.arange(4)
    t[..., i, i] = d
    t[..., i[1:], i[:-1]] = e
    t[..., i[:-1], i[1:]] = e
    want = np.linalg.eigvalsh(a.astype(np.complex128))
    np.testing.assert_allclose(np.linalg.eigvalsh(t), want, rtol=TOL[p] * 10, atol=TOL[p] * 10)
    np.testing.assert_array_equal(info, 0)


@pytest.mark.parametrize("p", PS)
def test_gehrd_keeps_eigenvalues(p):
    a = rand((2, 5, 5), p)
    results = [(a.shape, a.dtype), ((2, 4), a.dtype), ((2,), np.int32)]
    h, _, info = lapack("gehrd", p, [a], results, "high = 5 : i32, low = 1 : i32", 1)
    hess = np.triu(h, -1)
    got = np.linalg.eigvals(hess.astype(np.complex128))
    assert_same_eigenvalues(got, np.linalg.eigvals(a.astype(np.complex128)), TOL[p] * 100)
    np.testing.assert_array_equal(info, 0)


# ----------------------------------------------------------------------------- gees


@pytest.mark.parametrize("p", PS)
def test_gees(p):
    a = _eig_input(p, (2,))
    if p in "sd":
        results = [(a.shape, a.dtype)] * 2 + [((2, 4), a.dtype)] * 2 + [((2,), np.int32)] * 2
        t, vs, wr, wi, sdim, info = lapack(
            "gees", p, [a], results, f"mode = {V} : ui8, sort = {N} : ui8", 1
        )
        w = wr + 1j * wi
        below = -2
    else:
        results = [(a.shape, a.dtype)] * 2 + [((2, 4), a.dtype)] + [((2,), np.int32)] * 2
        t, vs, w, sdim, info = lapack(
            "gees", p, [a], results, f"mode = {V} : ui8, sort = {N} : ui8", 1
        )
        below = -1
    np.testing.assert_allclose(vs @ t @ ct(vs), a, atol=TOL[p] * 100)
    np.testing.assert_allclose(np.tril(t, below), 0, atol=0)
    want = np.linalg.eigvals(a.astype(np.complex128))
    assert_same_eigenvalues(w, want, TOL[p] * 100)
    np.testing.assert_array_equal(info, 0)
    np.testing.assert_array_equal(sdim, 0)


# ----------------------------------------------------------------------------- trsm / gtsv


@pytest.mark.parametrize("p", PS)
@pytest.mark.parametrize(
    ("side", "uplo", "trans"), [(L, L, N), (L, U, 84), (82, L, N), (82, U, 67)]
)
def test_trsm(p, side, uplo, trans):
    a = rand((2, 4, 4), p) + 4 * np.eye(4, dtype=DTYPES[p])
    b = rand((2, 4, 5) if side == L else (2, 5, 4), p, seed=1)
    cfg = f"diag = {N} : ui8, side = {side} : ui8, trans_x = {trans} : ui8, uplo = {uplo} : ui8"
    (x,) = lapack("trsm", p, [a, b], [(b.shape, b.dtype)], cfg, 1)
    tri = np.tril(a) if uplo == L else np.triu(a)
    op = {N: tri, 84: np.swapaxes(tri, -1, -2), 67: ct(tri)}[trans]
    want = np.linalg.solve(op, b) if side == L else ct(np.linalg.solve(ct(op), ct(b)))
    np.testing.assert_allclose(x, want, rtol=TOL[p] * 10, atol=TOL[p] * 10)


@pytest.mark.parametrize("p", PS)
@pytest.mark.parametrize("batch", BATCHES)
def test_gtsv(p, batch):
    n = 5
    dl, d, du = (rand((*batch, n), p, seed=s) for s in (1, 2, 3))
    d = (d + 4).astype(DTYPES[p])
    dl[..., 0] = 0
    du[..., -1] = 0
    b = rand((*batch, n, 2), p, seed=4)
    ops = [dl, d, du, b]
    results = [(x.shape, x.dtype) for x in ops] + [(batch, np.int32)]
    *_, x, info = lapack("gtsv", p, ops, results, nb=len(batch))
    dense = np.zeros((*batch, n, n), DTYPES[p])
    i = np.arange(n)
    dense[..., i, i] = d
    dense[..., i[1:], i[:-1]] = dl[..., 1:]
    dense[..., i[:-1], i[1:]] = du[..., :-1]
    np.testing.assert_allclose(x, np.linalg.solve(dense, b), rtol=TOL[p] * 10, atol=TOL[p] * 10)
    np.testing.assert_array_equal(info, 0)


def test_gtsv_singular_info():
    dl = np.array([0.0, 0.0, 0.0])
    d = np.array([1.0, 0.0, 1.0])
    du = np.array([0.0, 0.0, 0.0])
    b = np.ones((3, 1))
    ops = [dl, d, du, b]
    *_, info = lapack("gtsv", "d", ops, [(x.shape, x.dtype) for x in ops] + [((), np.int32)])
    assert int(info) == 2


def test_ffi_attributes_in_backend_config_api_version_4():
    """The typed-FFI form: ``backend_config = {...}`` with api_version 4 (uplo = 'U')."""
    a = spd((3, 3), "d")
    attrs = (
        "api_version = 4 : i32, backend_config = {uplo = 85 : ui8}, "
        "operand_layouts = [dense<[0, 1]> : tensor<2xindex>], "
        "result_layouts = [dense<[0, 1]> : tensor<2xindex>, dense<> : tensor<0xindex>]"
    )
    c, info = run("lapack_dpotrf_ffi", [a], [(a.shape, a.dtype), ((), np.int32)], attrs)
    np.testing.assert_allclose(ct(np.triu(c)) @ np.triu(c), a, rtol=1e-12)
    assert int(info) == 0
