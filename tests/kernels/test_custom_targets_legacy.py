"""The CPU custom-call targets of older jaxlibs (engine/kernels/solver_lapack_legacy.py,
fft_targets.py): hand-written StableHLO programs in the convention jaxlib emitted
(jax-ml/jax jaxlib/lapack.py and jaxlib/cpu/lapack_kernels.cc at 8e8dc263bc; jaxlib's
ducc_fft.py / pocketfft.py, ducc_fft.fbs), scalar operands as constants, results checked
against NumPy / SciPy (np.linalg.cholesky, eigvalsh, svd, scipy.linalg.lu, np.fft)."""

from __future__ import annotations

import flatbuffers
import numpy as np
import pytest
import scipy.linalg

from hlorun import engine
from hlorun.engine.cli import main
from hlorun.parser.errors import HloError, InterpreterError
from tests.support.custom_call import col_major, ct, rand, row_major, ttype

_SCALAR = {np.dtype(np.int32): "i32", np.dtype(np.uint8): "ui8"}


def spd(shape, dtype):
    a = rand(shape, dtype)
    return (a @ np.conj(np.swapaxes(a, -1, -2)) + shape[-1] * np.eye(shape[-1])).astype(dtype)


def i32(v):
    return np.int32(v)


def u8(c):
    return np.uint8(ord(c))


def program(target, operands, results, *, tuple_result=False, alias=None, layouts=True):
    """@main(arrays...) calling ``target``: numpy scalars become stablehlo.constant
    operands (jaxlib's hlo_s32 / hlo_u8), arrays are arguments; matrices column-major
    (jaxlib's ``layout = (nb, nb + 1, nb - 1, ..., 0)``), other operands row-major."""
    args, lines, uses, in_types = [], [], [], []
    for i, x in enumerate(operands):
        if isinstance(x, np.generic):
            t = f"tensor<{_SCALAR[x.dtype]}>"
            lines.append(f"    %c{i} = stablehlo.constant dense<{int(x)}> : {t}")
            uses.append(f"%c{i}")
        else:
            t = ttype(x.shape, x.dtype)
            args.append((f"%arg{len(args)}", t, x))
            uses.append(args[-1][0])
        in_types.append(t)
    outs = [ttype(s, d) for s, d in results]
    rank = max(np.ndim(x) for x in operands)
    attrs = ["api_version = 2 : i32"]
    if layouts:

        def lay(shape):
            return col_major(len(shape)) if len(shape) == rank else row_major(len(shape))

        attrs.append(f"operand_layouts = [{', '.join(lay(np.shape(x)) for x in operands)}]")
        attrs.append(f"result_layouts = [{', '.join(lay(tuple(s)) for s, _ in results)}]")
    if alias is not None:
        idx = "[0]" if len(outs) > 1 else "[]"
        attrs.append(
            "output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = "
            f"{idx}, operand_index = {alias}, operand_tuple_indices = []>]"
        )
    sig = f"({', '.join(in_types)})"
    call = f"stablehlo.custom_call @{target}({', '.join(uses)}) {{{', '.join(attrs)}}} : {sig}"
    if tuple_result:
        tup = f"tuple<{', '.join(outs)}>"
        lines.append(f"    %t = {call} -> {tup}")
        for i, o in enumerate(outs):
            lines.append(f"    %r{i} = stablehlo.get_tuple_element %t[{i}] : ({tup}) -> {o}")
        rets = [f"%r{i}" for i in range(len(outs))]
    else:
        n = f":{len(outs)}" if len(outs) > 1 else ""
        lines.append(f"    %r{n} = {call} -> ({', '.join(outs)})")
        rets = [f"%r#{i}" for i in range(len(outs))] if len(outs) > 1 else ["%r"]
    params = ", ".join(f"{a}: {t}" for a, t, _ in args)
    body = "\n".join(lines)
    text = (
        f"module {{\n  func.func public @main({params}) -> ({', '.join(outs)}) {{\n{body}\n"
        f"    return {', '.join(rets)} : {', '.join(outs)}\n  }}\n}}\n"
    )
    return text, [x for _, _, x in args]


def run(target, operands, results, **kw):
    text, args = program(target, operands, results, **kw)
    return [np.asarray(r) for r in engine.run(text, args)]


def real_of(dtype):
    return np.float32 if np.dtype(dtype) in (np.float32, np.complex64) else np.float64


P = {np.float32: "s", np.float64: "d", np.complex64: "c", np.complex128: "z"}
TOL = {np.float32: 1e-4, np.float64: 1e-10, np.complex64: 1e-4, np.complex128: 1e-10}
DTYPES = [np.float32, np.float64, np.complex64, np.complex128]


def same_set(w, want, atol):
    """The same eigenvalues per batch, in any order (each within ``atol`` of one)."""
    d = np.abs(w[..., :, None] - want[..., None, :])
    assert d.min(-1).max() < atol and d.min(-2).max() < atol, (w, want)


# ----------------------------------------------------------------------------- potrf


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("tuple_result", [False, True])
def test_potrf(dtype, tuple_result):
    """jaxlib potrf_hlo: (lower, batch, n, a) -> (a, info[batch])."""
    a = spd((2, 3, 4, 4), dtype)
    results = [(a.shape, dtype), ((2, 3), np.int32)]
    ops = [i32(1), i32(6), i32(4), a]
    c, info = run(f"lapack_{P[dtype]}potrf", ops, results, tuple_result=tuple_result, alias=3)
    want = np.linalg.cholesky(a.astype(np.complex128))
    np.testing.assert_allclose(np.tril(c), want, atol=TOL[dtype] * 10)
    assert info.tolist() == [[0] * 3] * 2


def test_potrf_upper_and_not_positive_definite():
    a = spd((4, 4), np.float64)
    bad = -np.eye(3)
    (c, info) = run(
        "lapack_dpotrf", [i32(0), i32(1), i32(4), a], [(a.shape, a.dtype), ((), np.int32)]
    )
    np.testing.assert_allclose(np.triu(c), np.linalg.cholesky(a).T, atol=1e-12)
    (_, info) = run(
        "lapack_dpotrf", [i32(1), i32(1), i32(3), bad], [((3, 3), np.float64), ((), np.int32)]
    )
    assert int(info) == 1


# ----------------------------------------------------------------------------- getrf


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(2, 4, 3), (3, 5)])
def test_getrf(dtype, shape):
    """jaxlib getrf_hlo: (batch, m, n, a) -> (lu, ipiv[..., min(m, n)] 1-based, info)."""
    a = rand(shape, dtype)
    bd, (m, n) = shape[:-2], shape[-2:]
    results = [(shape, dtype), ((*bd, min(m, n)), np.int32), (bd, np.int32)]
    ops = [i32(int(np.prod(bd))), i32(m), i32(n), a]
    lu, piv, info = run(f"lapack_{P[dtype]}getrf", ops, results, tuple_result=bool(bd))
    for idx in np.ndindex(*bd):
        p, low, up = scipy.linalg.lu(a[idx])  # a = p @ low @ up
        k = min(m, n)
        np.testing.assert_allclose(np.tril(lu[idx], -1)[:, :k] + np.eye(m, k), low, atol=TOL[dtype])
        np.testing.assert_allclose(np.triu(lu[idx])[:k], up, atol=TOL[dtype])
        perm = np.arange(m)
        for i, j in enumerate(piv[idx] - 1):
            perm[[i, j]] = perm[[j, i]]
        np.testing.assert_array_equal(p[perm], np.eye(m))  # a[perm] = L U
    assert (info == 0).all()


# ----------------------------------------------------------------------------- qr


@pytest.mark.parametrize("dtype", DTYPES)
def test_geqrf_orgqr(dtype):
    """jaxlib geqrf_hlo (batch, m, n, lwork, a) -> (a, tau, info, work) and orgqr_hlo
    (batch, m, n, k, lwork, a, tau) -> (q, info, work): Q R = a."""
    a = rand((2, 5, 3), dtype)
    lwork = 17
    results = [(a.shape, dtype), ((2, 3), dtype), ((2,), np.int32), ((lwork,), dtype)]
    qr, tau, info, work = run(
        f"lapack_{P[dtype]}geqrf", [i32(2), i32(5), i32(3), i32(lwork), a], results, alias=4
    )
    assert info.tolist() == [0, 0] and work.shape == (lwork,)
    name = "ungqr" if np.dtype(dtype).kind == "c" else "orgqr"
    results = [(a.shape, dtype), ((2,), np.int32), ((lwork,), dtype)]
    ops = [i32(2), i32(5), i32(3), i32(3), i32(lwork), qr, tau]
    q, info, _ = run(f"lapack_{P[dtype]}{name}", ops, results, alias=5)
    r = np.triu(qr[..., :3, :])
    np.testing.assert_allclose(q @ r, a, atol=TOL[dtype] * 10)
    np.testing.assert_allclose(
        ct(q) @ q, np.broadcast_to(np.eye(3), (2, 3, 3)), atol=TOL[dtype] * 10
    )
    # independent: |R| as numpy's (R unique up to the signs/phases of its rows)
    want = np.linalg.qr(a.astype(np.complex128), mode="r")
    np.testing.assert_allclose(np.abs(r), np.abs(want), atol=TOL[dtype] * 10)


# ----------------------------------------------------------------------------- gesdd


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("full", [True, False])
def test_gesdd(dtype, full):
    """jaxlib gesdd_hlo: (full_matrices, compute_uv, batch, m, n, lwork, a) -> (a, s, u,
    vt, info, iwork, [rwork,] work)."""
    a = rand((2, 4, 3), dtype)
    rt = real_of(dtype)
    u_shape = (2, 4, 4 if full else 3)
    work = [((8 * 3,), np.int32)]
    if np.dtype(dtype).kind == "c":
        work.append(((40,), rt))
    work.append(((30,), dtype))
    results = [
        (a.shape, dtype),
        ((2, 3), rt),
        (u_shape, dtype),
        ((2, 3, 3), dtype),
        ((2,), np.int32),
    ]
    ops = [i32(int(full)), i32(1), i32(2), i32(4), i32(3), i32(30), a]
    out = run(f"lapack_{P[dtype]}gesdd", ops, results + work, alias=6)
    _, s, u, vt, info = out[:5]
    np.testing.assert_allclose(s, np.linalg.svd(a, compute_uv=False), rtol=TOL[dtype] * 10)
    np.testing.assert_allclose((u[..., :3] * s[..., None, :]) @ vt, a, atol=TOL[dtype] * 10)
    assert info.tolist() == [0, 0] and len(out) == len(results) + len(work)


def test_gesdd_values_only():
    a = rand((3, 5))
    results = [(a.shape, a.dtype), ((3,), np.float64), ((3, 3), a.dtype), ((5, 5), a.dtype)]
    results += [((), np.int32), ((24,), np.int32), ((50,), a.dtype)]
    out = run("lapack_dgesdd", [i32(1), i32(0), i32(1), i32(3), i32(5), i32(50), a], results)
    np.testing.assert_allclose(out[1], np.linalg.svd(a, compute_uv=False), rtol=1e-12)


# ----------------------------------------------------------------------------- syevd


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("lower", [True, False])
def test_syevd(dtype, lower):
    """jaxlib syevd_hlo: (lower, batch, n, a) -> (v, w, info, work, [rwork,] iwork); only
    the ``lower`` triangle is read."""
    sym = rand((2, 4, 4), dtype)
    sym = sym + ct(sym)
    keep = np.tril(np.ones((4, 4), bool)) if lower else np.triu(np.ones((4, 4), bool))
    a = np.where(keep, sym, 100).astype(dtype)
    rt = real_of(dtype)
    work = [((50,), dtype)] + ([((30,), rt)] if np.dtype(dtype).kind == "c" else [])
    results = [(a.shape, dtype), ((2, 4), rt), ((2,), np.int32), *work, ((20,), np.int32)]
    out = run(
        f"lapack_{P[dtype]}{'heevd' if np.dtype(dtype).kind == 'c' else 'syevd'}",
        [i32(int(lower)), i32(2), i32(4), a],
        results,
        tuple_result=True,
    )
    v, w, info = out[:3]
    np.testing.assert_allclose(w, np.linalg.eigvalsh(sym), atol=TOL[dtype] * 100)
    np.testing.assert_allclose(sym @ v, v * w[..., None, :], atol=TOL[dtype] * 100)
    assert info.tolist() == [0, 0]


# ----------------------------------------------------------------------------- geev


@pytest.mark.parametrize("dtype", DTYPES)
def test_geev(dtype):
    """jaxlib geev_hlo: (batch, n, jobvl, jobvr, a) -> real: (3 workspaces, wr, wi, vl,
    vr, info); complex: (a work, rwork, w, vl, vr, info)."""
    a = rand((2, 4, 4), dtype, seed=3)
    ct_ = np.complex64 if real_of(dtype) == np.float32 else np.complex128
    vecs = [(a.shape, ct_), (a.shape, ct_), ((2,), np.int32)]
    if np.dtype(dtype).kind == "c":
        results = [((4, 4), dtype), ((8,), real_of(dtype)), ((2, 4), dtype), *vecs]
    else:
        results = [((4, 4), dtype)] * 3 + [((2, 4), dtype)] * 2 + vecs
    out = run(f"lapack_{P[dtype]}geev", [i32(2), i32(4), u8("V"), u8("V"), a], results)
    if np.dtype(dtype).kind == "c":
        w, vl, vr, info = out[2:]
    else:
        w = out[3] + 1j * out[4]
        vl, vr, info = out[5:]
    want = np.linalg.eigvals(a.astype(np.complex128))
    same_set(w, want, TOL[dtype] * 100)
    np.testing.assert_allclose(a @ vr, vr * w[..., None, :], atol=TOL[dtype] * 100)
    np.testing.assert_allclose(ct(vl) @ a, w[..., :, None] * ct(vl), atol=TOL[dtype] * 100)
    assert info.tolist() == [0, 0]


# ----------------------------------------------------------------------------- gees


@pytest.mark.parametrize("dtype", DTYPES)
def test_gees(dtype):
    """jaxlib gees_hlo: (batch, n, jobvs, sort, a) -> (T, [wr, wi] | [rwork, w], vs, sdim,
    info): a = vs T vs^H."""
    a = rand((2, 4, 4), dtype, seed=5)
    if np.dtype(dtype).kind == "c":
        mid = [((4,), real_of(dtype)), ((2, 4), dtype)]
    else:
        mid = [((2, 4), dtype)] * 2
    results = [(a.shape, dtype), *mid, (a.shape, dtype), ((2,), np.int32), ((2,), np.int32)]
    out = run(f"lapack_{P[dtype]}gees", [i32(2), i32(4), u8("V"), u8("N"), a], results, alias=4)
    t, vs, info = out[0], out[3], out[5]
    np.testing.assert_allclose(vs @ t @ ct(vs), a, atol=TOL[dtype] * 100)
    w = out[2] if np.dtype(dtype).kind == "c" else out[1] + 1j * out[2]
    want = np.linalg.eigvals(a.astype(np.complex128))
    same_set(w, want, TOL[dtype] * 100)
    if np.dtype(dtype).kind == "c":  # complex Schur form: upper triangular, the eigenvalues on it
        np.testing.assert_allclose(np.tril(t, -1), 0, atol=TOL[dtype] * 100)
        ref_t, _ = scipy.linalg.schur(a[0].astype(np.complex128), output="complex")
        same_set(np.diag(t[0]), np.diag(ref_t), TOL[dtype] * 100)
    else:  # real Schur form: quasi-triangular (nothing below the first subdiagonal)
        np.testing.assert_allclose(np.tril(t, -2), 0, atol=TOL[dtype] * 100)
    assert info.tolist() == [0, 0]


# ----------------------------------------------------------------------------- gehrd / sytrd


@pytest.mark.parametrize("dtype", DTYPES)
def test_gehrd(dtype):
    """jaxlib gehrd_hlo: (n, ilo, ihi, lda, batch, lwork, a) -> (a, tau[..., n-1], info,
    work): upper Hessenberg H with the reflectors below it; Q H Q^H = a."""
    a = rand((2, 5, 5), dtype, seed=7)
    results = [(a.shape, dtype), ((2, 4), dtype), ((2,), np.int32), ((64,), dtype)]
    h, tau, info, _ = run(
        f"lapack_{P[dtype]}gehrd", [i32(5), i32(1), i32(5), i32(5), i32(2), i32(64), a], results
    )
    for b in range(2):
        q = np.eye(5, dtype=np.complex128)
        for j in range(4):  # H_j = I - tau v v^H, v = (0..0, 1, h[j+2:, j])
            v = np.zeros(5, np.complex128)
            v[j + 1] = 1
            v[j + 2 :] = h[b, j + 2 :, j]
            q = q @ (np.eye(5) - tau[b, j] * np.outer(v, np.conj(v)))
        hh = np.triu(h[b], -1)
        np.testing.assert_allclose(q @ hh @ ct(q), a[b], atol=TOL[dtype] * 100)
        ref = scipy.linalg.hessenberg(a[b].astype(np.complex128))
        np.testing.assert_allclose(
            np.abs(np.diag(hh, -1)), np.abs(np.diag(ref, -1)), atol=TOL[dtype] * 100
        )
    assert info.tolist() == [0, 0]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("lower", [True, False])
def test_sytrd(dtype, lower):
    """jaxlib sytrd_hlo: (n, lower, lda, batch, lwork, a) -> (a, d, e, tau, info, work):
    the tridiagonal T (d, e) has the eigenvalues of a."""
    sym = rand((2, 4, 4), dtype, seed=9)
    sym = sym + ct(sym)
    rt = real_of(dtype)
    results = [(sym.shape, dtype), ((2, 4), rt), ((2, 3), rt), ((2, 3), dtype), ((2,), np.int32)]
    results.append(((32,), dtype))
    name = "hetrd" if np.dtype(dtype).kind == "c" else "sytrd"
    out = run(
        f"lapack_{P[dtype]}{name}", [i32(4), i32(int(lower)), i32(4), i32(2), i32(32), sym], results
    )
    _, d, e, _, info = out[:5]
    for b in range(2):
        tri = np.diag(d[b]) + np.diag(e[b], 1) + np.diag(e[b], -1)
        np.testing.assert_allclose(
            np.linalg.eigvalsh(tri), np.linalg.eigvalsh(sym[b]), atol=TOL[dtype] * 100
        )
    assert info.tolist() == [0, 0]


# ----------------------------------------------------------------------------- trsm


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize(("left", "lower", "trans"), [(1, 1, 0), (0, 0, 1), (1, 0, 2)])
def test_trsm(dtype, left, lower, trans):
    """jaxlib trsm_hlo: (left_side, lower, trans_a, diag, m, n, batch, alpha, a, b) -> x."""
    b = rand((2, 3, 4), dtype, seed=11)
    k = 3 if left else 4
    a = rand((2, k, k), dtype, seed=12) + 4 * np.eye(k, dtype=dtype)
    tri = np.tril(a) if lower else np.triu(a)
    op = {0: tri, 1: np.swapaxes(tri, -1, -2), 2: ct(tri)}[trans]
    alpha = np.asarray(2, dtype)
    ops = [i32(left), i32(lower), i32(trans), i32(0), i32(3), i32(4), i32(2), alpha, a, b]
    (x,) = run(f"blas_{P[dtype]}trsm", ops, [(b.shape, dtype)], alias=9)
    got = op @ x if left else x @ op
    np.testing.assert_allclose(got, 2 * b, atol=TOL[dtype] * 100)
    want = (
        np.linalg.solve(op, 2 * b)
        if left
        else np.swapaxes(
            np.linalg.solve(np.swapaxes(op, -1, -2), np.swapaxes(2 * b, -1, -2)), -1, -2
        )
    )
    np.testing.assert_allclose(x, want, atol=TOL[dtype] * 100)


# ----------------------------------------------------------------------------- errors


def test_shape_mismatch_is_an_error_naming_the_target():
    a = spd((2, 4, 4), np.float64)
    results = [(a.shape, a.dtype), ((2,), np.int32)]
    with pytest.raises(InterpreterError, match=r"lapack_dpotrf.*batch 3, 4x4"):
        run("lapack_dpotrf", [i32(1), i32(3), i32(4), a], results)
    with pytest.raises(InterpreterError, match=r"lapack_dgetrf.*result 1"):
        run(
            "lapack_dgetrf",
            [i32(2), i32(4), i32(4), a],
            [(a.shape, a.dtype), ((2, 3), np.int32), ((2,), np.int32)],
        )
    with pytest.raises(InterpreterError, match=r"lapack_dsyevd.*expects 5 results"):
        run(
            "lapack_dsyevd",
            [i32(1), i32(2), i32(4), a],
            [(a.shape, a.dtype), ((2, 4), np.float64), ((2,), np.int32)],
        )


@pytest.mark.parametrize("dynamic", [False, True])
def test_dynamic_shape_operands(dynamic):
    """With shape polymorphism jaxlib's custom_call appended one result-shape operand per
    result (hlo_helpers.py ``result_shapes``, ``indices_of_shape_operands``); each must
    agree with its result type, and gives its ``?`` dimensions."""
    a = spd((2, 3, 3), np.float64)
    b = None if dynamic else 2
    results = [((b, 3, 3), a.dtype), ((b,), np.int32)]
    shapes = [np.asarray(a.shape, np.int32), np.asarray([2], np.int32)]
    text, args = program("lapack_dpotrf", [i32(1), i32(2), i32(3), a, *shapes], results)
    text = text.replace(
        "api_version = 2 : i32",
        "api_version = 2 : i32, indices_of_shape_operands = dense<[4, 5]> : tensor<2xi64>",
    )
    c, info = engine.run(text, args)
    np.testing.assert_allclose(np.tril(c), np.linalg.cholesky(a), atol=1e-12)
    args[1] = np.asarray([2, 3, 4], np.int32)
    with pytest.raises(
        InterpreterError, match=r"lapack_dpotrf.*shape operand #4 holds \[2, 3, 4\]"
    ):
        engine.run(text, args)


# ----------------------------------------------------------------------------- fft


def ducc_descriptor(dtype, fft_type, shape, strides_in, strides_out, axes, forward, scale):
    """A DuccFftDescriptor / PocketFftDescriptor (jaxlib ducc_fft.fbs: dtype, fft_type,
    shape, strides_in, strides_out, axes, forward, scale), written with the flatbuffers
    package."""
    b = flatbuffers.Builder(0)
    vecs = []
    for vals, kind in ((shape, "u8"), (strides_in, "u8"), (strides_out, "u8"), (axes, "u4")):
        b.StartVector(8 if kind == "u8" else 4, len(vals), 8 if kind == "u8" else 4)
        for v in reversed(vals):
            (b.PrependUint64 if kind == "u8" else b.PrependUint32)(int(v))
        vecs.append(b.EndVector())
    b.StartObject(8)
    b.PrependInt8Slot(0, dtype, 0)
    b.PrependInt8Slot(1, fft_type, 0)
    for slot, v in zip((2, 3, 4, 5), vecs):
        b.PrependUOffsetTRelativeSlot(slot, v, 0)
    b.PrependBoolSlot(6, forward, False)
    b.PrependFloat64Slot(7, scale, 0.0)
    b.Finish(b.EndObject())
    return np.frombuffer(bytes(b.Output()), np.uint8)


def dynamic_descriptor(ndims, dtype, fft_type, axes, forward):
    b = flatbuffers.Builder(0)
    b.StartVector(4, len(axes), 4)
    for v in reversed(axes):
        b.PrependUint32(int(v))
    ax = b.EndVector()
    b.StartObject(5)
    b.PrependUint32Slot(0, ndims, 0)
    b.PrependInt8Slot(1, dtype, 0)
    b.PrependInt8Slot(2, fft_type, 0)
    b.PrependUOffsetTRelativeSlot(3, ax, 0)
    b.PrependBoolSlot(4, forward, False)
    b.Finish(b.EndObject())
    return np.frombuffer(bytes(b.Output()), np.uint8)


def strides(shape, itemsize=1):
    out, s = [], itemsize
    for d in reversed(shape):
        out.append(s)
        s *= d
    return list(reversed(out))


def fft_program(target, descriptor, x, out_shape, out_dtype, extra=()):
    """jaxlib ducc_fft_hlo: the descriptor a ui8 constant, x row-major."""
    n = x.ndim
    vals = ", ".join(str(int(v)) for v in descriptor)
    dt = f"tensor<{descriptor.size}xui8>"
    lines = [f"    %d = stablehlo.constant dense<[{vals}]> : {dt}"]
    uses, types = ["%d", "%arg0"], [dt, ttype(x.shape, x.dtype)]
    for i, e in enumerate(extra):
        t = ttype(e.shape, e.dtype)
        lit = ", ".join(repr(float(v)) if e.dtype.kind == "f" else str(int(v)) for v in e)
        lines.append(f"    %e{i} = stablehlo.constant dense<[{lit}]> : {t}")
        uses.append(f"%e{i}")
        types.append(t)
    out = ttype(out_shape, out_dtype)
    lays = ", ".join([row_major(1), row_major(n)] + [row_major(1)] * len(extra))
    # dynamic_ducc_fft's last operand is its result's shape (jaxlib custom_call
    # result_shapes=..., which names it in indices_of_shape_operands)
    shapes = f"indices_of_shape_operands = dense<{len(uses) - 1}> : tensor<1xi64>, "
    lines.append(
        f"    %r = stablehlo.custom_call @{target}({', '.join(uses)}) {{api_version = 2 : i32, "
        f"{shapes if target == 'dynamic_ducc_fft' else ''}operand_layouts = [{lays}], result_layouts = [{row_major(n)}]}} : "
        f"({', '.join(types)}) -> {out}"
    )
    body = "\n".join(lines)
    return (
        f"module {{\n  func.func public @main(%arg0: {ttype(x.shape, x.dtype)}) -> {out} {{\n"
        f"{body}\n    return %r : {out}\n  }}\n}}\n"
    )


def _cases():
    x = rand((2, 3, 8), np.complex64, seed=1)
    r = rand((2, 3, 8), np.float64, seed=2)
    h = np.fft.rfftn(rand((2, 4, 6), np.float32, seed=3), axes=(1, 2)).astype(np.complex64)
    return [
        # (input, fft_type, fft_lengths, jax's np reference, result shape, result dtype)
        (x, 0, [8], True, np.fft.fft(x), x.shape, np.complex64),
        (x, 0, [3, 8], False, np.fft.ifftn(x, axes=(1, 2)), x.shape, np.complex64),
        (r, 2, [3, 8], True, np.fft.rfftn(r, axes=(1, 2)), (2, 3, 5), np.complex128),
        (h, 1, [4, 6], False, np.fft.irfftn(h, s=(4, 6), axes=(1, 2)), (2, 4, 6), np.float32),
    ]


@pytest.mark.parametrize("target", ["ducc_fft", "pocketfft", "dynamic_ducc_fft"])
@pytest.mark.parametrize("case", range(4))
def test_fft_targets(target, case):
    """jaxlib ducc_fft.py / pocketfft.py _*_descriptor: shape (the real one for C2R),
    row-major strides (pocketfft: bytes), axes the trailing len(fft_lengths), scale 1 or
    1/prod(fft_lengths); dynamic_ducc_fft (jax/_src/lax/fft.py at b9c0658fcf) passes
    shape / strides / scale / result shape as operands."""
    x, kind, lengths, forward, want, out_shape, out_dtype = _cases()[case]
    shape = list(out_shape) if kind == 1 else list(x.shape)
    n = x.ndim
    axes = list(range(n - len(lengths), n))
    scale = 1.0 if forward else 1.0 / np.prod(lengths)
    dtype = 0 if np.dtype(out_dtype) in (np.complex64, np.float32) else 1
    in_item = x.dtype.itemsize if target == "pocketfft" else 1
    out_item = np.dtype(out_dtype).itemsize if target == "pocketfft" else 1
    s_in, s_out = strides(x.shape, in_item), strides(out_shape, out_item)
    extra = ()
    if target == "dynamic_ducc_fft":
        d = dynamic_descriptor(n, dtype, kind, axes, forward)
        extra = tuple(np.asarray(v, np.int32) for v in (shape, s_in, s_out))
        extra += (np.asarray([scale]), np.asarray(out_shape, np.int32))
    else:
        d = ducc_descriptor(dtype, kind, shape, s_in, s_out, axes, forward, scale)
    text = fft_program(target, d, x, out_shape, out_dtype, extra)
    (got,) = engine.run(text, [x])
    got = np.asarray(got)
    assert got.dtype == np.dtype(out_dtype) and got.shape == tuple(out_shape)
    tol = 1e-5 if dtype == 0 else 1e-12
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol * 10)


def test_fft_descriptor_mismatch_is_an_error():
    x = rand((2, 8), np.complex64)
    d = ducc_descriptor(0, 0, [2, 4], [4, 1], [4, 1], [1], True, 1.0)
    with pytest.raises(HloError, match="ducc_fft.*C2C of shape \\[2, 4\\]"):
        engine.run(fft_program("ducc_fft", d, x, x.shape, np.complex64), [x])
    d = ducc_descriptor(1, 0, [2, 8], [8, 1], [8, 1], [1], True, 1.0)  # complex128 for c64
    with pytest.raises(HloError, match="ducc_fft.*complex128"):
        engine.run(fft_program("ducc_fft", d, x, x.shape, np.complex64), [x])
    d = dynamic_descriptor(2, 0, 0, [1], True)
    extra = [np.asarray(v, np.int32) for v in ([2, 8], [8, 1], [8, 1])]
    extra += [np.asarray([1.0]), np.asarray([2, 9], np.int32)]
    with pytest.raises(HloError, match=r"dynamic_ducc_fft.*shape operand #6 holds \[2, 9\]"):
        engine.run(fft_program("dynamic_ducc_fft", d, x, x.shape, np.complex64, extra), [x])
    bad = np.zeros(3, np.uint8)
    with pytest.raises(HloError, match="DuccFftDescriptor"):
        engine.run(fft_program("ducc_fft", bad, x, x.shape, np.complex64), [x])


# ----------------------------------------------------------------------------- verify


def test_hlorun_verify_accepts_the_programs(tmp_path, capsys):
    """`hlorun verify` (parser + shape functions): multi-result and tuple-result forms,
    with output_operand_aliases, and an FFT program."""
    a = spd((2, 4, 4), np.float32)
    texts = [
        program(
            "lapack_spotrf",
            [i32(1), i32(2), i32(4), a],
            [(a.shape, a.dtype), ((2,), np.int32)],
            alias=3,
        )[0],
        program(
            "lapack_ssyevd",
            [i32(1), i32(2), i32(4), a],
            [
                (a.shape, a.dtype),
                ((2, 4), np.float32),
                ((2,), np.int32),
                ((9,), a.dtype),
                ((5,), np.int32),
            ],
            tuple_result=True,
            alias=3,
        )[0],
    ]
    x = rand((2, 8), np.complex64)
    d = ducc_descriptor(0, 0, [2, 8], [8, 1], [8, 1], [1], True, 1.0)
    texts.append(fft_program("ducc_fft", d, x, x.shape, np.complex64))
    for i, text in enumerate(texts):
        path = tmp_path / f"p{i}.mlir"
        path.write_text(text)
        assert main(["verify", str(path)]) == 0, capsys.readouterr()
