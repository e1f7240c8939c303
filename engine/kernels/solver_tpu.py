"""TPU linear-algebra custom-call targets, run on CPU as the same math.

Their conventions are those of jax's TPU lowerings and XLA's expanders for them:

* ``Eigh`` (jax/_src/tpu/linalg/eigh.py, Jacobi): backend_config
  ``"lower,sort_eigenvalues,max_iter,tol"``; (a) -> (eigenvectors, eigenvalues),
  eigenvalues ascending;
* ``Qr`` (jax/_src/lax/linalg.py _geqrf_lowering_rule): (a) -> (householder form,
  taus), as xGEQRF;
* ``ProductOfElementaryHouseholderReflectors`` (_householder_product_lowering):
  (a, taus) -> Q, as xORGQR;
* ``LuDecomposition`` (_lu_tpu_lowering_rule): (a) -> (lu, 0-based pivots,
  permutation), the outputs of lax.linalg.lu_p.

XLA's builder libraries (xla/hlo/builder/lib/qr.cc, self_adjoint_eig.cc,
lu_decomposition.cc), as TensorFlow and PyTorch/XLA use them, write the same targets
with one result of tuple type: ``Qr`` -> tuple<a's type, taus (batch..., min(m, n)) of
a's element type>, ``Eigh`` (opaque "lower,sort,max_iter,tol") -> tuple<a's type,
eigenvalues (batch..., n) of the real component type>, ``LuDecomposition`` ->
tuple<a's type, pivots (batch..., min(m, n)) s32, permutation (batch..., m) s32>; the
custom_call kernel runs these targets on the tuple's elements (control_flow.py).

Batch dimensions are all but the last two; each matrix goes through the LAPACK
routine of the same decomposition (solver_lapack.py).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .custom_targets import Call, pivots_to_permutation, target
from .solver_lapack import geqrf_matrix, getrf_matrix, orgqr_matrix, syevd_matrix


def _eigh_config(raw: Any) -> tuple[bool, bool]:
    """(lower, sort) from ``"1,1,100,1e-6"``; defaults lower, sorted."""
    parts = str(raw or "").split(",")
    try:
        lower = bool(int(parts[0])) if parts[0].strip() else True
    except ValueError:
        lower = True
    return lower, True


@target("Eigh")
def eigh(call: Call, a: Any) -> tuple[np.ndarray, ...]:
    """(a) -> (v, w) with A v = v diag(w), w ascending (sorted or not, a valid order)."""
    lower, _ = _eigh_config(call.attrs.get("backend_config"))
    x = np.asarray(a)

    def one(m: np.ndarray) -> tuple[Any, ...]:
        v, w, _ = syevd_matrix(m, lower, True)
        return v, w

    return call.batched(one, [x], x.ndim - 2)


@target("Qr")
def qr(call: Call, a: Any) -> tuple[np.ndarray, ...]:
    """(a) -> (householder form, taus)."""
    x = np.asarray(a)
    return call.batched(geqrf_matrix, [x], x.ndim - 2)


@target("ProductOfElementaryHouseholderReflectors")
def householder_product(call: Call, a: Any, taus: Any) -> tuple[np.ndarray, ...]:
    """(a, taus) -> the first n columns of H(1)...H(k)."""
    x = np.asarray(a)
    return call.batched(orgqr_matrix, [x, np.asarray(taus)], x.ndim - 2)


@target("LuDecomposition")
def lu_decomposition(call: Call, a: Any) -> tuple[np.ndarray, ...]:
    """(a) -> (lu, pivots (0-based), permutation)."""
    x = np.asarray(a)
    m = x.shape[-2]

    def one(mat: np.ndarray) -> tuple[Any, ...]:
        lu, piv, _ = getrf_matrix(mat)
        piv = piv - 1
        return lu, piv, pivots_to_permutation(piv, m)

    return call.batched(one, [x], x.ndim - 2)
