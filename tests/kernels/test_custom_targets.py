"""GPU and TPU solver targets, the GPU threefry and pivot kernels, ApproxTopK and the
dynamic_* targets, AllocateBuffer, sharding annotations, shape_assertion, shape operands
(indices_of_shape_operands) and the targets
that cannot run (engine/kernels/custom_targets.py, solver_gpu.py, solver_tpu.py,
dynamic_targets.py), from MLIR text with jax's conventions, against independent facts.
Also two bugs the jax.export fixtures found: a relu fast path on a 0-d value, and a
mixed f32 x i32 dot_general (upstream's verifier accepts it)."""

from __future__ import annotations

import numpy as np
import pytest

from hlorun import engine
from hlorun.parser.errors import InterpreterError, UnsupportedError
from tests.support.custom_call import ct, ffi_attrs, rand, row_major, run


def gpu(name, operands, results, config="", nb=0):
    return run(name, operands, results, ffi_attrs(config, operands, results, nb))


# ----------------------------------------------------------------------------- threefry

# Random123's known-answer vectors for threefry2x32_20 (kat_vectors; also in jax's
# tests/random_test.py testThreefry2x32): (key0, key1, ctr0, ctr1) -> (out0, out1).
KAT = [
    ((0, 0, 0, 0), (0x6B200159, 0x99BA4EFE)),
    ((0xFFFFFFFF,) * 4, (0x1CB996FC, 0xBB002BE7)),
    ((0x13198A2E, 0x03707344, 0x243F6A88, 0x85A308D3), (0xC4923A9C, 0x483DF7A0)),
]


@pytest.mark.parametrize("name", ["cu_threefry2x32_ffi", "hip_threefry2x32_ffi"])
def test_threefry_known_answers(name):
    ops = [np.array([k[i] for k, _ in KAT], np.uint32) for i in range(4)]
    out = gpu(name, ops, [((3,), np.uint32)] * 2)
    assert out[0].tolist() == [w[0] for _, w in KAT]
    assert out[1].tolist() == [w[1] for _, w in KAT]


# ----------------------------------------------------------------------------- gpu solvers


@pytest.mark.parametrize("solver", ["cusolver", "hipsolver"])
@pytest.mark.parametrize("dtype", [np.float32, np.complex128])
def test_gesvdj_returns_v(solver, dtype):
    a = rand((2, 4, 3), dtype)
    rdt = np.float32 if dtype == np.float32 else np.float64
    results = [
        (a.shape, dtype),
        ((2, 3), rdt),
        ((2, 4, 4), dtype),
        ((2, 3, 3), dtype),
        ((2,), np.int32),
    ]
    cfg = "compute_uv = true, full_matrices = true"
    _, s, u, v, info = gpu(f"{solver}_gesvdj_ffi", [a], results, cfg, 1)
    tol = 1e-4 if dtype == np.float32 else 1e-10
    np.testing.assert_allclose((u[..., :, :3] * s[..., None, :]) @ ct(v), a, atol=tol)
    np.testing.assert_allclose(s, np.linalg.svd(a, compute_uv=False), rtol=tol)
    np.testing.assert_array_equal(info, 0)


def test_gesvd_transposed_row_major():
    """m < n: jax passes the operand row-major (the routine sees A^T) and takes
    (vt, u) from results 2, 3 (linalg.py _svd_gpu_sub_lowering, transposed)."""
    a = rand((3, 5))
    lay = f"[{row_major(2)}]"
    res = [
        (a.shape, a.dtype),
        ((3,), np.float64),
        ((5, 5), a.dtype),
        ((3, 3), a.dtype),
        ((), np.int32),
    ]
    attrs = (
        "mhlo.backend_config = {compute_uv = true, full_matrices = true, transposed = true}, "
        f"operand_layouts = {lay}, result_layouts = [{row_major(2)}, {row_major(1)}, "
        f"{row_major(2)}, {row_major(2)}, {row_major(0)}]"
    )
    _, s, vt, u, info = run("cusolver_gesvd_ffi", [a], res, attrs)
    np.testing.assert_allclose((u * s) @ vt[:3], a, atol=1e-12)
    np.testing.assert_allclose(vt @ vt.T, np.eye(5), atol=1e-12)
    assert int(info) == 0


@pytest.mark.parametrize("solver", ["cusolver", "hipsolver"])
def test_gpu_potrf_getrf_syevd_sytrd(solver):
    a = rand((4, 4))
    h = a @ a.T + 4 * np.eye(4)
    c, info = gpu(f"{solver}_potrf_ffi", [h], [(h.shape, h.dtype), ((), np.int32)], "lower = true")
    np.testing.assert_allclose(np.tril(c) @ np.tril(c).T, h, atol=1e-12)
    lu, piv, info = gpu(
        f"{solver}_getrf_ffi", [a], [(a.shape, a.dtype), ((4,), np.int32), ((), np.int32)]
    )
    assert piv.min() >= 1 and int(info) == 0
    v, w, info = gpu(
        f"{solver}_syevd_ffi",
        [h],
        [(h.shape, h.dtype), ((4,), np.float64), ((), np.int32)],
        "algorithm = 0 : ui8, lower = true",
    )
    np.testing.assert_allclose(w, np.linalg.eigvalsh(h), rtol=1e-12)
    np.testing.assert_allclose(h @ v, v * w, atol=1e-10)
    res = [
        (h.shape, h.dtype),
        ((4,), np.float64),
        ((3,), np.float64),
        ((3,), h.dtype),
        ((), np.int32),
    ]
    _, d, e, _, info = gpu(f"{solver}_sytrd_ffi", [h], res, "lower = true")
    t = np.diag(d) + np.diag(e, 1) + np.diag(e, -1)
    np.testing.assert_allclose(np.linalg.eigvalsh(t), np.linalg.eigvalsh(h), rtol=1e-12)


def test_gpu_qr_and_gtsv2():
    a = rand((2, 5, 3), np.complex64)
    h, tau = gpu("cusolver_geqrf_ffi", [a], [(a.shape, a.dtype), ((2, 3), a.dtype)], nb=1)
    (q,) = gpu("cusolver_orgqr_ffi", [h, tau], [(a.shape, a.dtype)], nb=1)
    np.testing.assert_allclose(q @ np.triu(h)[:, :3], a, atol=1e-5)
    dl, d, du = rand((3, 4), seed=1), rand((3, 4), seed=2) + 5, rand((3, 4), seed=3)
    dl[:, 0] = du[:, -1] = 0
    b = rand((3, 4, 2), seed=4)
    (x,) = gpu("cusparse_gtsv2_ffi", [dl, d, du, b], [(b.shape, b.dtype)], nb=1)
    dense = np.zeros((3, 4, 4))
    i = np.arange(4)
    dense[:, i, i] = d
    dense[:, i[1:], i[:-1]] = dl[:, 1:]
    dense[:, i[:-1], i[1:]] = du[:, :-1]
    np.testing.assert_allclose(x, np.linalg.solve(dense, b), atol=1e-12)


@pytest.mark.parametrize("name", ["cu_lu_pivots_to_permutation", "hip_lu_pivots_to_permutation"])
def test_lu_pivots_to_permutation(name):
    piv = np.array([[2, 2, 3], [0, 1, 2]], np.int32)  # 0-based row swaps
    (perm,) = gpu(name, [piv], [((2, 5), np.int32)], nb=1)
    # swaps applied in order to 0..4: [2,1,0,3,4] -> [2,0,1,3,4] -> [2,0,3,1,4]
    assert perm.tolist() == [[2, 0, 3, 1, 4], [0, 1, 2, 3, 4]]


def test_lu_pivots_out_of_range_leave_rows_in_place():
    """jaxlib/gpu/lu_pivot_kernels.cu.cc: a pivot < 0 or >= the permutation size swaps
    nothing (it is not clamped to the last row)."""
    piv = np.array([[5, 1, 9], [-1, 4, 0]], np.int32)
    (perm,) = gpu("cu_lu_pivots_to_permutation", [piv], [((2, 4), np.int32)], nb=1)
    # row 0: 0<->5 skipped, 1<->1, 2<->9 skipped; row 1: skipped, 1<->4 skipped, 2<->0
    assert perm.tolist() == [[0, 1, 2, 3], [2, 1, 0, 3]]


# jaxlib/gpu/solver_kernels.h Syev{d,j}Descriptor: type, uplo, batch, n, lwork (int32)
_FILL = {("cusolver", True): 0, ("cusolver", False): 1}
_FILL.update({("hipsolver", True): 122, ("hipsolver", False): 121})


def _descriptor_text(*fields: int) -> str:
    import struct

    return "".join(f"\\{b:02X}" for b in struct.pack("<5i", *fields))


@pytest.mark.parametrize("solver", ["hipsolver", "cusolver"])
@pytest.mark.parametrize("routine", ["syevd", "syevj"])
@pytest.mark.parametrize("lower", [True, False])
def test_legacy_eigh_targets(solver, routine, lower):
    """The targets before the FFI names (api_version 2, an opaque descriptor): the
    triangle read is the descriptor's fill mode; results v, w ascending, info, work."""
    from tests.support.custom_call import col_major

    sym = rand((2, 4, 4), np.float32)
    sym = sym + np.swapaxes(sym, -1, -2)
    keep = np.tril(np.ones((4, 4), bool)) if lower else np.triu(np.ones((4, 4), bool))
    a = np.where(keep, sym, np.float32(100)).astype(np.float32)  # the other half: noise
    lwork = 7
    config = _descriptor_text(0, _FILL[solver, lower], 2, 4, lwork)
    attrs = (
        f'backend_config = "{config}", api_version = 2 : i32, '
        f"operand_layouts = [{col_major(3)}], "
        f"result_layouts = [{col_major(3)}, {row_major(2)}, {row_major(1)}, {row_major(1)}]"
    )
    results = [(a.shape, a.dtype), ((2, 4), np.float32), ((2,), np.int32), ((lwork,), a.dtype)]
    v, w, info, work = run(f"{solver}_{routine}", [a], results, attrs)
    np.testing.assert_allclose(w, np.linalg.eigvalsh(sym), rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(sym @ v, v * w[..., None, :], atol=1e-3)
    assert info.tolist() == [0, 0] and work.shape == (lwork,)


def test_legacy_eigh_unknown_fill_mode_is_refused():
    a = np.eye(2, dtype=np.float32)
    attrs = f'backend_config = "{_descriptor_text(0, 7, 1, 2, 1)}", api_version = 2 : i32'
    results = [(a.shape, a.dtype), ((2,), np.float32), ((), np.int32), ((1,), a.dtype)]
    with pytest.raises(InterpreterError, match="fill mode 7"):
        run("hipsolver_syevd", [a], results, attrs)


# ----------------------------------------------------------------------------- tpu


def test_tpu_eigh():
    a = rand((2, 4, 4), np.complex64)
    a = (a + ct(a)) / 2
    v, w = run(
        "Eigh", [a], [(a.shape, a.dtype), ((2, 4), np.float32)], 'backend_config = "1,1,100,1e-6"'
    )
    np.testing.assert_allclose(w, np.linalg.eigvalsh(a), rtol=1e-4, atol=1e-5)
    assert np.all(np.diff(w, axis=-1) >= 0)
    np.testing.assert_allclose(a @ v, v * w[..., None, :], atol=1e-4)


def test_tpu_qr_householder_product():
    a = rand((4, 3))
    h, tau = run("Qr", [a], [(a.shape, a.dtype), ((3,), a.dtype)])
    (q,) = run("ProductOfElementaryHouseholderReflectors", [h, tau], [(a.shape, a.dtype)])
    np.testing.assert_allclose(q @ np.triu(h)[:3], a, atol=1e-12)
    np.testing.assert_allclose(q.T @ q, np.eye(3), atol=1e-12)


def test_tpu_lu_decomposition():
    a = rand((2, 4, 4))
    lu, piv, perm = run(
        "LuDecomposition",
        [a],
        [(a.shape, a.dtype), ((2, 4), np.int32), ((2, 4), np.int32)],
        "api_version = 2 : i32",
    )
    assert piv.min() >= 0 and piv.max() <= 3  # 0-based
    for b in range(2):
        low = np.tril(lu[b], -1) + np.eye(4)
        np.testing.assert_allclose(low @ np.triu(lu[b]), a[b][perm[b]], atol=1e-12)
        p = np.arange(4)
        for i, j in enumerate(piv[b]):
            p[[i, j]] = p[[j, i]]
        assert p.tolist() == perm[b].tolist()


# ----------------------------------------------------------------------------- top-k

_CMP = """  func.func private @cmp(%a: tensor<f32>, %b: tensor<f32>, %c: tensor<i32>, %d: tensor<i32>) -> tensor<i1> {
    %0 = stablehlo.compare {dir}, %a, %b, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    return %0 : tensor<i1>
  }
"""


@pytest.mark.parametrize(("is_max", "dim"), [(True, 1), (False, 1), (True, 0)])
def test_approx_top_k_is_exact_top_k(is_max, dim):
    x = np.array([[3, 1, 4, 1, 5, 9, 2, 6], [2, 7, 1, 8, 2, 8, 1, 8]], np.float32)
    iota = np.broadcast_to(
        np.arange(x.shape[dim], dtype=np.int32).reshape((-1, 1) if dim == 0 else (1, -1)), x.shape
    ).copy()
    init = np.array(-np.inf if is_max else np.inf, np.float32)
    k = 3 if dim == 1 else 1
    shape = (2, k) if dim == 1 else (k, 8)
    attrs = (
        "called_computations = [@cmp], mhlo.backend_config = {aggregate_to_topk = true, "
        f"is_fallback = true, recall_target = 0.95 : f32, reduction_dim = {dim} : i64, "
        f"reduction_input_size_override = -1 : i64, top_k = {k} : i64}}"
    )
    extra = _CMP.replace("{dir}", "GT" if is_max else "LT")
    vals, idx = run(
        "ApproxTopK",
        [x, iota, init, np.array(-1, np.int32)],
        [(shape, np.float32), (shape, np.int32)],
        attrs,
        extra,
    )
    order = np.argsort(-x if is_max else x, axis=dim, kind="stable")
    want_idx = np.take(order, np.arange(k), axis=dim)
    np.testing.assert_array_equal(idx, want_idx)
    np.testing.assert_array_equal(vals, np.take_along_axis(x, want_idx, axis=dim))


def test_dynamic_top_k():
    x = np.array([[3, 1, 4, 1, 5], [9, 2, 6, 5, 3]], np.float32)
    vals, idx = run(
        "stablehlo.dynamic_top_k",
        [x, np.array(2, np.int32)],
        [((2, None), np.float32), ((2, None), np.int32)],
        "api_version = 2 : i32",
    )
    assert vals.tolist() == [[5, 4], [9, 6]] and idx.tolist() == [[4, 2], [0, 2]]


# ----------------------------------------------------------------------------- the rest


def test_allocate_buffer_and_sharding_identity():
    (z,) = run("AllocateBuffer", [], [((2, 3), np.float32)])
    assert z.shape == (2, 3) and z.dtype == np.float32 and not z.any()
    x = rand((8, 3))
    for name in (
        "Sharding",
        "SPMDFullToShardShape",
        "annotate_device_placement",
        "xla.sdy.FuncResultSharding",
    ):
        (y,) = run(name, [x], [(x.shape, x.dtype)], 'mhlo.sharding = "{replicated}"')
        np.testing.assert_array_equal(y, x)


def test_shape_assertion():
    msg = 'error_message = "Expected value >= 1 for b. Obtained b = {0} from (= {1}).", has_side_effect = true, api_version = 2 : i32'
    ok = [np.array(True), np.array(3, np.int32), np.array(7, np.int32)]
    assert run("shape_assertion", ok, [], msg) == []
    bad = [np.array(False), np.array(0, np.int32), np.array(4, np.int32)]
    with pytest.raises(InterpreterError, match=r"Obtained b = 0 from \(= 4\)\."):
        run("shape_assertion", bad, [], msg)


@pytest.mark.parametrize(
    "name", ["tpu_custom_call", "mosaic_gpu_v2", "tf.call_tf_function", "__gpu$xla.gpu.triton"]
)
def test_foreign_targets_are_unsupported(name):
    x = np.ones(2, np.float32)
    with pytest.raises(UnsupportedError) as e:
        run(name, [x], [((2,), np.float32)], 'backend_config = "opaque"')
    assert name in str(e.value) and ":3:" in str(e.value)  # the op's line


def test_user_registration_takes_precedence():
    x = np.ones(2, np.float32)
    engine.register_custom_call("Sharding", lambda a, result_types: a + 1, replace=True)
    try:
        (y,) = run("Sharding", [x], [((2,), np.float32)])
    finally:
        from hlorun.engine.kernels.control_flow import CUSTOM_CALLS

        CUSTOM_CALLS.pop("Sharding", None)
    np.testing.assert_array_equal(y, x + 1)


# A shape-polymorphic call as jax's mlir.custom_call writes it (result_shapes): one shape
# operand per result, named by indices_of_shape_operands, after the real operands.
SHAPE_OPERAND_PROGRAM = """
func.func @main(%x: tensor<?x3xf32>) -> tensor<?x3xf32> {
  %d = stablehlo.get_dimension_size %x, dim = 0 : (tensor<?x3xf32>) -> tensor<i32>
  %d1 = stablehlo.reshape %d : (tensor<i32>) -> tensor<1xi32>
  %c = stablehlo.constant dense<3> : tensor<1xi32>
  %s = stablehlo.concatenate %d1, %c, dim = 0 : (tensor<1xi32>, tensor<1xi32>) -> tensor<2xi32>
  %y = stablehlo.custom_call @TARGET(%x, %s) {indices_of_shape_operands = dense<1> : tensor<1xi64>, mhlo.sharding = "{replicated}"} : (tensor<?x3xf32>, tensor<2xi32>) -> tensor<?x3xf32>
  return %y : tensor<?x3xf32>
}
"""


def test_shape_operands_give_result_shapes_and_are_not_passed_on():
    x = rand((5, 3), np.float32)
    (y,) = engine.run(SHAPE_OPERAND_PROGRAM.replace("TARGET", "Sharding"), [x])
    np.testing.assert_array_equal(y, x)  # the identity of one operand, not two
    seen = []

    def probe(*operands, result_types):
        seen.append((len(operands), result_types[0].shape))
        return operands[0] * 2

    engine.register_custom_call("hlorun_tests.probe", probe)
    try:
        (y,) = engine.run(SHAPE_OPERAND_PROGRAM.replace("TARGET", "hlorun_tests.probe"), [x])
    finally:
        from hlorun.engine.kernels.control_flow import CUSTOM_CALLS

        CUSTOM_CALLS.pop("hlorun_tests.probe", None)
    assert seen == [(1, (5, 3))]
    np.testing.assert_array_equal(y, x * 2)


def test_shape_operand_that_does_not_fit_the_result_type():
    bad = SHAPE_OPERAND_PROGRAM.replace("TARGET", "Sharding").replace("dense<3>", "dense<4>")
    with pytest.raises(InterpreterError, match="does not fit its result type"):
        engine.run(bad, [rand((5, 3), np.float32)])


# ----------------------------------------------------------------------------- two bugs


def test_relu_of_a_0d_value():
    """maximum(reduce(...), 0) on a 0-d f32: the relu fast path got a NumPy scalar."""
    text = """module {
  func.func public @main(%x: tensor<4xf32>) -> tensor<f32> {
    %z = stablehlo.constant dense<0.0> : tensor<f32>
    %m = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %r = stablehlo.reduce(%x init: %m) applies stablehlo.maximum across dimensions = [0] : (tensor<4xf32>, tensor<f32>) -> tensor<f32>
    %y = stablehlo.maximum %z, %r : tensor<f32>
    return %y : tensor<f32>
  }
}
"""
    (y,) = engine.run(text, [np.array([-3, -1, -2, -5], np.float32)])
    assert float(y) == 0.0 and not np.signbit(y)
    (y,) = engine.run(text, [np.array([-3, 2.5, -2, -5], np.float32)])
    assert float(y) == 2.5


def test_mixed_dot_general_f32_i32():
    """jax's TPU svd multiplies an f32 matrix by an i32 diagonal; computed in f32."""
    text = """module {
  func.func public @main(%a: tensor<2x2xf32>, %b: tensor<2x2xi32>) -> tensor<2x2xf32> {
    %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0], precision = [HIGHEST, HIGHEST] : (tensor<2x2xf32>, tensor<2x2xi32>) -> tensor<2x2xf32>
    return %0 : tensor<2x2xf32>
  }
}
"""
    a = np.array([[1.5, 2.0], [3.0, -1.0]], np.float32)
    b = np.array([[1, 0], [0, -1]], np.int32)
    (y,) = engine.run(text, [a, b])
    np.testing.assert_array_equal(y, np.array([[1.5, -2.0], [3.0, 1.0]], np.float32))


def test_gesvd_values_only_placeholders():
    """compute_uv false: jax gives u and vt as 0-d placeholders without batch dims."""
    a = rand((2, 4, 3))
    res = [(a.shape, a.dtype), ((2, 3), a.dtype), ((), a.dtype), ((), a.dtype), ((2,), np.int32)]
    cfg = "compute_uv = false, full_matrices = false, transposed = false"
    _, s, u, vt, info = gpu("cusolver_gesvd_ffi", [a], res, cfg, 1)
    np.testing.assert_allclose(s, np.linalg.svd(a, compute_uv=False), rtol=1e-12)
    assert u.shape == vt.shape == () and info.tolist() == [0, 0]
