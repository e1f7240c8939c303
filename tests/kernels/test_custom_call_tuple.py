"""custom_call with one result of tuple type, as XLA's builder libraries write them
(xla/hlo/builder/lib/qr.cc ``Qr`` -> (a, taus), self_adjoint_eig.cc ``Eigh`` -> (v, w),
lu_decomposition.cc ``LuDecomposition`` -> (lu, pivots, permutation)) and TensorFlow,
torch_xla and JAX's 2023 TPU exports keep: the elements are read with
get_tuple_element.  Expected values: NumPy / SciPy, compared up to the decomposition's
freedom (by reconstruction, or eigenvalues and A v = v w)."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.linalg

from hlorun import engine
from hlorun.engine.kernels.custom_targets import USER_TARGETS
from tests.support.custom_call import householder_q, rand, ttype


def tuple_module(target, a, elems, config=""):
    """@main(a) = the elements of ``target``'s one tuple result."""
    tin = ttype(a.shape, a.dtype)
    touts = [ttype(s, d) for s, d in elems]
    tup = f"tuple<{', '.join(touts)}>"
    attr = f' {{backend_config = "{config}"}}' if config else ""
    lines = [f"    %t = stablehlo.custom_call @{target}(%a){attr} : ({tin}) -> {tup}"]
    for i, t in enumerate(touts):
        lines.append(f"    %r{i} = stablehlo.get_tuple_element %t[{i}] : ({tup}) -> {t}")
    rets = ", ".join(f"%r{i}" for i in range(len(touts)))
    return (
        f"func.func @main(%a: {tin}) -> ({', '.join(touts)}) {{\n"
        + "\n".join(lines)
        + f"\n    return {rets} : {', '.join(touts)}\n}}\n"
    )


def run(target, a, elems, config=""):
    return [np.asarray(r) for r in engine.run(tuple_module(target, a, elems, config), [a])]


def tol(dtype):
    return 1e-4 if np.dtype(dtype) in (np.float32, np.complex64) else 1e-10


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex64, np.complex128])
@pytest.mark.parametrize("shape", [(5, 5), (5, 3), (3, 5)])
def test_qr_tuple(dtype, shape):
    a = rand(shape, dtype)
    m, n = shape
    k = min(m, n)
    h, taus = run("Qr", a, [(shape, dtype), ((k,), dtype)])
    assert h.dtype == dtype and taus.dtype == dtype and taus.shape == (k,)
    q = householder_q(h.astype(np.complex128), taus.astype(np.complex128))
    r = np.triu(h)
    scale = np.abs(a).max()
    np.testing.assert_allclose(q @ r, a, atol=tol(dtype) * scale * 10)
    np.testing.assert_allclose(q.conj().T @ q, np.eye(m), atol=tol(dtype) * 10)
    # R agrees with LAPACK's (scipy) up to the sign/phase of each row
    r_ref = scipy.linalg.qr(a.astype(np.complex128), mode="r")[0][:k]
    np.testing.assert_allclose(np.abs(r[:k]), np.abs(r_ref), atol=tol(dtype) * scale * 10)


def test_qr_tuple_batched():
    a = rand((2, 3, 4, 3), np.float64)
    h, taus = run("Qr", a, [(a.shape, a.dtype), ((2, 3, 3), a.dtype)])
    for idx in np.ndindex(2, 3):
        q = householder_q(h[idx].astype(complex), taus[idx].astype(complex)).real
        np.testing.assert_allclose(q @ np.triu(h[idx]), a[idx], atol=1e-12)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex64, np.complex128])
def test_eigh_tuple(dtype):
    a = rand((2, 5, 5), dtype)
    a = (a + np.swapaxes(a, -1, -2).conj()) / 2
    real = np.float32 if np.dtype(dtype) in (np.float32, np.complex64) else np.float64
    # XLA SelfAdjointEig's opaque: "lower,sort_eigenvalues,max_iter,tol"
    v, w = run("Eigh", a, [(a.shape, dtype), ((2, 5), real)], config="1,1,100,0.000001")
    assert v.dtype == dtype and w.dtype == real  # eigenvalues of the component type
    np.testing.assert_allclose(w, np.linalg.eigvalsh(a), atol=tol(dtype) * 10)
    assert np.all(np.diff(w, axis=-1) >= 0)
    np.testing.assert_allclose(a @ v, v * w[..., None, :], atol=tol(dtype) * 10)
    np.testing.assert_allclose(
        np.swapaxes(v, -1, -2).conj() @ v, np.broadcast_to(np.eye(5), v.shape), atol=tol(dtype) * 10
    )


def test_eigh_tuple_upper_triangle():
    """lower = 0: only the upper triangle is read."""
    a = rand((4, 4), np.float64)
    sym = np.triu(a) + np.triu(a, 1).T
    garbage = np.triu(a) + 100 * np.tril(np.ones((4, 4)), -1)
    v, w = run("Eigh", garbage, [((4, 4), np.float64), ((4,), np.float64)], config="0,1,100,1e-6")
    np.testing.assert_allclose(w, np.linalg.eigvalsh(sym), atol=1e-10)


def _perm_of(piv, m):
    p = np.arange(m)
    for i, j in enumerate(piv):
        p[[i, j]] = p[[j, i]]
    return p


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex64, np.complex128])
@pytest.mark.parametrize("shape", [(4, 4), (5, 3), (3, 5)])
def test_lu_decomposition_tuple(dtype, shape):
    a = rand((2, *shape), dtype)
    m, n = shape
    k = min(m, n)
    lu, piv, perm = run(
        "LuDecomposition", a, [((2, m, n), dtype), ((2, k), np.int32), ((2, m), np.int32)]
    )
    assert piv.dtype == np.int32 and perm.dtype == np.int32
    for b in range(2):
        assert 0 <= piv[b].min() and piv[b].max() < m  # 0-based
        assert perm[b].tolist() == _perm_of(piv[b], m).tolist()
        low = (np.tril(lu[b], -1) + np.eye(m, n))[:, :k]
        up = np.triu(lu[b])[:k]
        np.testing.assert_allclose(low @ up, a[b][perm[b]], atol=tol(dtype) * 10)
        # partial pivoting (|L| <= 1 for real types; complex pivots by |re| + |im|),
        # the same permutation as SciPy's xGETRF
        if np.dtype(dtype).kind == "f":
            assert np.abs(low).max() <= 1 + 1e-6
        p_ref, _, _ = scipy.linalg.lu(a[b].astype(np.complex128))
        assert np.argmax(p_ref, axis=0).tolist() == perm[b].tolist()


def test_user_target_with_a_tuple_result():
    def pair(x, result_types):
        assert len(result_types) == 2  # the tuple's elements
        return x + 1, x.sum(keepdims=True)[0]

    engine.register_custom_call("test.pair", pair)
    try:
        text = (
            "func.func @main(%a: tensor<3xf32>) -> tensor<f32> {\n"
            "  %t = stablehlo.custom_call @test.pair(%a) : (tensor<3xf32>) -> "
            "tuple<tensor<3xf32>, tensor<f32>>\n"
            "  %s = stablehlo.get_tuple_element %t[1] : (tuple<tensor<3xf32>, tensor<f32>>) "
            "-> tensor<f32>\n"
            "  return %s : tensor<f32>\n}\n"
        )
        (s,) = engine.run(text, [np.array([1, 2, 3], np.float32)])
        assert float(s) == 6.0
    finally:
        USER_TARGETS.pop("test.pair", None)
