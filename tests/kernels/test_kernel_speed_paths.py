"""Behaviour of the kernels' fast paths (benchmarks/test_kernel_speed.py): each one gives
exactly what the general path (or an explicit loop reference) gives, edge cases included.

* gather: the row lookup (``gather_scatter._row_gather``) vs the general ``gather_scatter._gather``,
  with out-of-range, negative and unsigned 64-bit indices (spec: starts are clamped);
* reduce: the adjacent-pair tree of float sums, computed level by level with NumPy
  tricks (``reduction_tree.tree_last``, ``reduction._pair_level``), vs an explicit loop over the same tree in the
  same dtype, on values whose sums depend on the association order.
"""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

import hlorun.engine.kernels  # noqa: F401  (fills the kernel column)
from hlorun import (
    engine,
    shape_inference,  # noqa: F401
)
from hlorun.engine.kernels import gather_scatter
from hlorun.parser.ir import FloatType, TensorType
from hlorun.shape_inference.optable import OP_TABLE
from tests.support.reduce_schedule import leaves, pair_tree

F32 = FloatType("f32")
F64 = FloatType("f64")

# --------------------------------------------------------------------------------------
# gather: row lookup
# --------------------------------------------------------------------------------------

ROW_DN = dict(offset_dims=(1,), collapsed_slice_dims=(0,), start_index_map=(0,), index_vector_dim=1)


def _gather(operand, idx, **kw):
    return OP_TABLE["stablehlo.gather"].kernel(operand, idx, result_type=None, **kw)


def _general_gather(operand, idx, slice_sizes, **dn):
    kw = gather_scatter._gather_kwargs(dn)
    return gather_scatter._gather(operand, idx, slice_sizes=tuple(slice_sizes), **kw)


@pytest.mark.parametrize(
    "idx_dtype",
    [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint32, np.uint64, ml_dtypes.int4],
)
def test_row_gather_equals_general_path_with_clamping(idx_dtype):
    rng = np.random.default_rng(1)
    table = rng.standard_normal((7, 5)).astype(np.float32)
    info = ml_dtypes.iinfo(idx_dtype) if idx_dtype is ml_dtypes.int4 else np.iinfo(idx_dtype)
    raw = rng.integers(max(int(info.min), -20), min(int(info.max), 20), size=(40, 1))
    idx = raw.astype(idx_dtype)
    if np.dtype(idx_dtype) == np.uint64:
        idx[:3, 0] = [2**64 - 1, 2**63, 6]  # above int64's range: clamp to the last row
    got = _gather(table, idx, slice_sizes=(1, 5), **ROW_DN)
    want = _general_gather(table, idx, (1, 5), **ROW_DN)
    assert got.dtype == table.dtype and got.shape == (40, 5)
    np.testing.assert_array_equal(got, want)
    # and against the spec's clamp written out
    clamped = np.clip(idx[:, 0].astype(np.int64), 0, 6)
    if np.dtype(idx_dtype) == np.uint64:
        clamped[:2] = 6
    np.testing.assert_array_equal(got, table[clamped])


@pytest.mark.parametrize("idx_type", ["i32", "ui8", "i64"])
def test_planned_row_gather_is_a_fast_step_with_the_spec_clamp(idx_type):
    """A row gather between static types is planned as a fast call (decided once, not
    per run); its result is the spec's, indices clamped to [0, rows - 1]."""
    text = f"""func.func @main(%x: tensor<7x5xf32>, %i: tensor<3x4x1x{idx_type}>) -> tensor<3x4x5xf32> {{
  %r = "stablehlo.gather"(%x, %i) {{dimension_numbers = #stablehlo.gather<offset_dims = [2],
    collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 2>,
    slice_sizes = array<i64: 1, 5>}} : (tensor<7x5xf32>, tensor<3x4x1x{idx_type}>) -> tensor<3x4x5xf32>
  func.return %r : tensor<3x4x5xf32>
}}"""
    prog = engine.compile(text)
    kinds = [st.kind for st in prog.interpreter.plan(prog.function.name).block.steps]
    assert kinds == ["fast"]
    rng = np.random.default_rng(2)
    table = rng.standard_normal((7, 5)).astype(np.float32)
    dt = {"i32": np.int32, "ui8": np.uint8, "i64": np.int64}[idx_type]
    lo = 0 if idx_type == "ui8" else -9
    idx = rng.integers(lo, 12, size=(3, 4, 1)).astype(dt)
    (got,) = prog(table, idx)
    np.testing.assert_array_equal(got, table[np.clip(idx[..., 0].astype(np.int64), 0, 6)])


def test_row_gather_batch_shapes_and_implicit_index_vector_dim():
    rng = np.random.default_rng(2)
    table = np.arange(6 * 2 * 3, dtype=np.int32).reshape(6, 2, 3)
    sizes = (1, 2, 3)
    # index_vector_dim = rank (implicit trailing 1), 2-D batch
    idx = rng.integers(-3, 9, size=(4, 5)).astype(np.int32)
    dn = dict(
        offset_dims=(2, 3), collapsed_slice_dims=(0,), start_index_map=(0,), index_vector_dim=2
    )
    got = _gather(table, idx, slice_sizes=sizes, **dn)
    np.testing.assert_array_equal(got, _general_gather(table, idx, sizes, **dn))
    assert got.shape == (4, 5, 2, 3)
    # index vector in the middle of the indices: (4, 1, 5), index_vector_dim = 1
    idx3 = idx[:, None, :]
    dn1 = dict(dn, index_vector_dim=1)
    got1 = _gather(table, idx3, slice_sizes=sizes, **dn1)
    np.testing.assert_array_equal(got1, got)
    # empty batch
    empty = np.zeros((0, 1), np.int64)
    got0 = _gather(
        table, empty, slice_sizes=sizes, **dict(dn, offset_dims=(1, 2), index_vector_dim=1)
    )
    assert got0.shape == (0, 2, 3)


def test_row_gather_not_taken_for_other_layouts():
    """Offset dims before the batch dims, or a partial slice: the general path runs."""
    table = np.arange(20, dtype=np.float64).reshape(5, 4)
    idx = np.array([[4], [0], [9]], np.int32)
    dn = dict(offset_dims=(0,), collapsed_slice_dims=(0,), start_index_map=(0,), index_vector_dim=1)
    assert gather_scatter._row_gather(table, idx, (1, 4), gather_scatter._gather_kwargs(dn)) is None
    got = _gather(table, idx, slice_sizes=(1, 4), **dn)
    np.testing.assert_array_equal(got, table[[4, 0, 4]].T)
    assert (
        gather_scatter._row_gather(table, idx, (1, 2), gather_scatter._gather_kwargs(ROW_DN))
        is None
    )
    got = _gather(table, idx, slice_sizes=(1, 2), **ROW_DN)
    np.testing.assert_array_equal(got, table[[4, 0, 4], :2])


# --------------------------------------------------------------------------------------
# reduce: the adjacent-pair tree of float sums
# --------------------------------------------------------------------------------------


def _reduce_ref(x: np.ndarray, init, dims: tuple[int, ...]) -> np.ndarray:
    """spec "reduce" = add(init, tree(slice)) for every result index, one rounding to
    x.dtype per addition (computed in float64, exact for the two summands of f16 / bf16 /
    f32, then rounded once; f64 added directly)."""
    dt = x.dtype

    def add(a, b):
        with np.errstate(all="ignore"):
            return dt.type(np.float64(a) + np.float64(b)) if dt != np.float64 else a + b

    keep = [d for d in range(x.ndim) if d not in dims]
    moved = np.transpose(x, keep + sorted(dims))
    out_shape = moved.shape[: len(keep)]
    flat = moved.reshape((int(np.prod(out_shape)), -1))
    blocked = len(dims) == 1 and dims[0] != x.ndim - 1  # leaves: left folds of 32 inputs
    res = [add(dt.type(init), pair_tree(leaves(list(row), add, blocked), add)) for row in flat]
    return np.array(res, dtype=dt).reshape(out_shape)


def _reduce_sum(x: np.ndarray, init, dims, etype):
    from hlorun.engine.region_analysis import RegionSummary
    from hlorun.engine.values import RegionFn

    add = RegionSummary.folding("stablehlo.add")
    body = RegionFn(region=None, call=lambda a, b: (np.add(a, b),), summary=add)
    out_shape = tuple(s for i, s in enumerate(x.shape) if i not in dims)
    with np.errstate(all="ignore"):  # as the interpreter runs kernels
        (got,) = OP_TABLE["stablehlo.reduce"].kernel(
            x,
            np.array(init, dtype=x.dtype),
            result_types=(TensorType(out_shape, etype),),
            dimensions=tuple(dims),
            body=body,
        )
    return got


def _same_floats(got: np.ndarray, want: np.ndarray) -> None:
    """Bitwise equal, except that any NaN matches any NaN (payloads are not specified)."""
    assert got.dtype == want.dtype and got.shape == want.shape
    g = got.astype(np.float64)
    w = want.astype(np.float64)
    assert np.array_equal(np.isnan(g), np.isnan(w))
    ok = ~np.isnan(w)
    bits = np.dtype(f"u{got.dtype.itemsize}")
    np.testing.assert_array_equal(got[ok].view(bits), want[ok].view(bits))


def _nasty(rng, shape, dtype) -> np.ndarray:
    """Values whose sums depend on the association order: wide magnitudes, exact
    cancellations, signed zeros and subnormals."""
    x = rng.standard_normal(shape) * 10.0 ** rng.integers(-8, 9, size=shape)
    flat = x.reshape(-1)
    n = flat.size
    if n >= 8:
        flat[rng.integers(0, n, size=n // 8)] = 1e30 if dtype != np.float16 else 6e4
        flat[rng.integers(0, n, size=n // 8)] = -1e30 if dtype != np.float16 else -6e4
        flat[rng.integers(0, n, size=n // 16)] = -0.0
        tiny = np.finfo(np.float32 if dtype != np.float64 else np.float64).tiny
        flat[rng.integers(0, n, size=n // 16)] = tiny / 4
    with np.errstate(over="ignore"):  # f16: large values become +-inf, also fine
        return x.astype(dtype)


@pytest.mark.parametrize("dtype, etype", [(np.float32, F32), (np.float64, F64)])
@pytest.mark.parametrize("n", [1, 2, 3, 31, 32, 33, 34, 35, 64, 127, 1000, 4097])
def test_reduce_sum_1d_is_the_pair_tree(dtype, etype, n):
    rng = np.random.default_rng(n)
    x = _nasty(rng, (n,), dtype)
    _same_floats(_reduce_sum(x, 0.25, (0,), etype), _reduce_ref(x, 0.25, (0,)))


@pytest.mark.parametrize(
    "shape, dims",
    [
        ((5, 37), (1,)),
        ((6, 200), (1,)),
        ((37, 5), (0,)),
        ((101, 40), (0,)),
        ((3, 4, 70), (1, 2)),
        ((9, 3, 66), (0, 2)),
        ((4, 33, 6), (1,)),
    ],
)
def test_reduce_sum_axes_is_the_pair_tree(shape, dims):
    rng = np.random.default_rng(sum(shape))
    for dtype, etype in ((np.float32, F32), (np.float64, F64)):
        x = _nasty(rng, shape, dtype)
        _same_floats(_reduce_sum(x, -0.0, dims, etype), _reduce_ref(x, -0.0, dims))
        # a non-contiguous operand (rows with a stride) gives the same
        xt = np.ascontiguousarray(np.swapaxes(x, 0, -1)).swapaxes(0, -1)
        _same_floats(_reduce_sum(xt, -0.0, dims, etype), _reduce_ref(x, -0.0, dims))


def test_reduce_sum_special_values():
    x = np.array(
        [np.inf, -np.inf, 1.0, np.nan] + [1.0] * 40 + [-0.0, -0.0, np.inf, 2.0], dtype=np.float32
    )
    _same_floats(_reduce_sum(x, 0.0, (0,), F32), _reduce_ref(x, 0.0, (0,)))
    allneg = np.full(40, -0.0, np.float32)
    got = _reduce_sum(allneg, -0.0, (0,), F32)
    assert got == 0 and np.signbit(got)  # -0 + -0 + ... = -0, as in the tree
    x2 = np.array([3.0e38, 3.0e38, -3.0e38, -3.0e38] * 10, np.float32)  # overflow in pairs
    _same_floats(_reduce_sum(x2, 0.0, (0,), F32), _reduce_ref(x2, 0.0, (0,)))


@pytest.mark.parametrize(
    "dtype, etype", [(np.float16, FloatType("f16")), (ml_dtypes.bfloat16, FloatType("bf16"))]
)
def test_reduce_sum_narrow_floats_rows_and_columns(dtype, etype):
    rng = np.random.default_rng(5)
    x = _nasty(rng, (21, 34), np.dtype(dtype))
    for dims in ((0,), (1,), (0, 1)):
        _same_floats(_reduce_sum(x, 0.5, dims, etype), _reduce_ref(x, 0.5, dims))
