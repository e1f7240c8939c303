"""gather / dynamic_gather / scatter kernels: the spec's examples, and random dimension
numbers checked against slow references written from the spec's index formulas."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

import hlorun.engine.kernels  # noqa: F401  (fills the kernel column)
from hlorun import shape_inference  # noqa: F401
from hlorun.engine.region_analysis import RegionSummary
from hlorun.engine.values import RegionFn
from hlorun.parser.errors import InterpreterError
from hlorun.parser.ir import IntegerType, TensorType
from hlorun.shape_inference.optable import OP_TABLE

I64 = IntegerType(64)
I32 = IntegerType(32)


def gather(operand, start_indices, **kw):
    kw.setdefault("dimension_numbers", None)
    kw.setdefault("indices_are_sorted", False)
    for k in (
        "offset_dims",
        "collapsed_slice_dims",
        "operand_batching_dims",
        "start_indices_batching_dims",
        "start_index_map",
    ):
        kw.setdefault(k, ())
    return OP_TABLE["stablehlo.gather"].kernel(operand, start_indices, result_type=None, **kw)


def scatter(inputs, scatter_indices, updates, region, result_types=None, **kw):
    for k in (
        "update_window_dims",
        "inserted_window_dims",
        "input_batching_dims",
        "scatter_indices_batching_dims",
        "scatter_dims_to_operand_dims",
    ):
        kw.setdefault(k, ())
    kw.setdefault("scatter_dimension_numbers", None)
    kw.setdefault("indices_are_sorted", False)
    kw.setdefault("unique_indices", False)
    if result_types is None:
        result_types = tuple(TensorType(x.shape, _elem_of(x.dtype)) for x in inputs)
    return OP_TABLE["stablehlo.scatter"].kernel(
        *inputs,
        scatter_indices,
        *updates,
        result_types=result_types,
        update_computation=region,
        **kw,
    )


def _elem_of(dtype):
    from hlorun.parser.ir import FloatType

    table = {
        np.dtype(np.int64): I64,
        np.dtype(np.int32): I32,
        np.dtype(np.float32): FloatType("f32"),
        np.dtype(ml_dtypes.bfloat16): FloatType("bf16"),
        np.dtype(np.int8): IntegerType(8),
        np.dtype(np.bool_): IntegerType(1),
    }
    return table[np.dtype(dtype)]


ADD = RegionFn(
    region=None, call=lambda a, b: (np.add(a, b),), summary=RegionSummary.folding("stablehlo.add")
)
REPLACE = RegionFn(region=None, call=lambda a, b: (b,), summary=RegionSummary.replacing())

# The operand / indices of the spec's gather and scatter examples.
SPEC_OPERAND = np.arange(1, 49, dtype=np.int64).reshape(2, 3, 4, 2)
SPEC_INDICES = np.array(
    [
        [[[0, 0], [1, 0], [2, 1]], [[0, 1], [1, 1], [0, 9]]],
        [[[0, 0], [2, 1], [2, 2]], [[1, 2], [0, 1], [1, 0]]],
    ],
    dtype=np.int64,
)


def test_gather_spec_example():
    out = gather(
        SPEC_OPERAND.astype(np.int32),
        SPEC_INDICES,
        offset_dims=(3, 4),
        collapsed_slice_dims=(1,),
        operand_batching_dims=(0,),
        start_indices_batching_dims=(1,),
        start_index_map=(2, 1),
        index_vector_dim=3,
        slice_sizes=(1, 1, 2, 2),
    )
    expected = np.array(
        [
            [
                [[[1, 2], [3, 4]], [[3, 4], [5, 6]], [[13, 14], [15, 16]]],
                [[[33, 34], [35, 36]], [[35, 36], [37, 38]], [[41, 42], [43, 44]]],
            ],
            [
                [[[1, 2], [3, 4]], [[13, 14], [15, 16]], [[21, 22], [23, 24]]],
                [[[43, 44], [45, 46]], [[33, 34], [35, 36]], [[27, 28], [29, 30]]],
            ],
        ],
        dtype=np.int32,
    )
    assert out.dtype == np.int32
    np.testing.assert_array_equal(out, expected)


DG_OPERAND = np.arange(1, 25, dtype=np.int64).reshape(3, 4, 2)
DG_INDICES = np.array([[[0, 0], [1, 0], [2, 1]], [[0, 1], [1, 1], [0, 2]]], dtype=np.int64)
DG_EXPECTED = np.array(
    [
        [[[1, 2], [3, 4]], [[3, 4], [5, 6]], [[13, 14], [15, 16]]],
        [[[9, 10], [11, 12]], [[11, 12], [13, 14]], [[17, 18], [19, 20]]],
    ]
)


def test_dynamic_gather_spec_example():
    out = OP_TABLE["stablehlo.dynamic_gather"].kernel(
        DG_OPERAND,
        DG_INDICES,
        np.array([1, 2, 2]),
        result_type=None,
        offset_dims=(2, 3),
        collapsed_slice_dims=(0,),
        operand_batching_dims=(),
        start_indices_batching_dims=(),
        start_index_map=(1, 0),
        index_vector_dim=2,
        indices_are_sorted=False,
        dimension_numbers=None,
    )
    np.testing.assert_array_equal(out, DG_EXPECTED)


def test_dynamic_gather_rejects_bad_slice_sizes():
    with pytest.raises(InterpreterError):
        OP_TABLE["stablehlo.dynamic_gather"].kernel(
            DG_OPERAND,
            DG_INDICES,
            np.array([1, 9, 2]),
            result_type=None,
            offset_dims=(2, 3),
            collapsed_slice_dims=(0,),
            start_index_map=(1, 0),
            index_vector_dim=2,
        )


def test_gather_conformance_example_with_clamping():
    # tests/interpret/gather.mlir: index [0, 9] clamps to the last valid start.
    out = gather(
        DG_OPERAND,
        DG_INDICES.copy() * 0 + np.array([0, 9]),
        offset_dims=(2, 3),
        collapsed_slice_dims=(0,),
        start_index_map=(1, 0),
        index_vector_dim=2,
        slice_sizes=(1, 2, 2),
    )
    np.testing.assert_array_equal(out[0, 0], DG_OPERAND[2, 0:2, :])


def test_gather_rows_like_take_all_dtypes():
    for dtype in (
        np.bool_,
        ml_dtypes.int4,
        ml_dtypes.uint2,
        ml_dtypes.float8_e4m3fn,
        ml_dtypes.float4_e2m1fn,
        ml_dtypes.bfloat16,
        np.complex64,
        np.uint64,
    ):
        table = (np.arange(40) % 3).astype(dtype).reshape(10, 4)
        idx = np.array(
            [[3], [0], [9], [12], [-4]], dtype=np.int8 if dtype is np.bool_ else np.int32
        )
        out = gather(
            table,
            idx,
            offset_dims=(1,),
            collapsed_slice_dims=(0,),
            start_index_map=(0,),
            index_vector_dim=1,
            slice_sizes=(1, 4),
        )
        clamped = np.clip(idx[:, 0].astype(np.int64), 0, 9)
        assert out.dtype == np.dtype(dtype)
        np.testing.assert_array_equal(out.view(np.uint8), table[clamped].view(np.uint8))


def test_gather_unsigned_64_bit_indices_clamp_high():
    table = np.arange(12).reshape(6, 2)
    idx = np.array([2**64 - 1, 1], dtype=np.uint64)
    out = gather(
        table,
        idx,
        offset_dims=(1,),
        collapsed_slice_dims=(0,),
        start_index_map=(0,),
        index_vector_dim=1,
        slice_sizes=(1, 2),
    )
    np.testing.assert_array_equal(out, table[[5, 1]])


def test_gather_zero_size_collapsed_slice_is_an_error():
    with pytest.raises(InterpreterError):
        gather(
            np.zeros((2, 3)),
            np.array([[0]]),
            offset_dims=(1,),
            collapsed_slice_dims=(0,),
            start_index_map=(0,),
            index_vector_dim=1,
            slice_sizes=(0, 3),
        )


def test_gather_full_slices_broadcast_over_batch():
    operand = np.arange(6).reshape(2, 3)
    idx = np.zeros((4, 1), dtype=np.int32) + 1
    out = gather(
        operand,
        idx,
        offset_dims=(1, 2),
        start_index_map=(0,),
        index_vector_dim=1,
        slice_sizes=(2, 3),
    )
    assert out.shape == (4, 2, 3)
    np.testing.assert_array_equal(out, np.broadcast_to(operand, (4, 2, 3)))


# ---- scatter -------------------------------------------------------------------------

SPEC_SCATTER_EXPECTED = np.array(
    [
        [
            [[3, 4], [6, 7], [6, 7], [7, 8]],
            [[9, 10], [11, 12], [15, 16], [17, 18]],
            [[17, 18], [19, 20], [22, 23], [24, 25]],
        ],
        [
            [[25, 26], [28, 29], [30, 31], [31, 32]],
            [[35, 36], [38, 39], [38, 39], [39, 40]],
            [[41, 42], [44, 45], [46, 47], [47, 48]],
        ],
    ]
)

SPEC_SCATTER_DN = dict(
    update_window_dims=(3, 4),
    inserted_window_dims=(1,),
    input_batching_dims=(0,),
    scatter_indices_batching_dims=(1,),
    scatter_dims_to_operand_dims=(2, 1),
    index_vector_dim=3,
)


def test_scatter_spec_example():
    inputs = SPEC_OPERAND.copy()
    (out,) = scatter(
        [inputs], SPEC_INDICES, [np.ones((2, 2, 3, 2, 2), np.int64)], ADD, **SPEC_SCATTER_DN
    )
    np.testing.assert_array_equal(out, SPEC_SCATTER_EXPECTED)
    np.testing.assert_array_equal(inputs, SPEC_OPERAND)  # inputs are not modified


def test_scatter_spec_example_general_region_path():
    region = RegionFn(region=None, call=lambda a, b: (np.add(a, b),))
    (out,) = scatter(
        [SPEC_OPERAND],
        SPEC_INDICES,
        [np.ones((2, 2, 3, 2, 2), np.int64)],
        region,
        **SPEC_SCATTER_DN,
    )
    np.testing.assert_array_equal(out, SPEC_SCATTER_EXPECTED)


def test_scatter_conformance_example():
    inputs = DG_OPERAND
    idx = np.array([[[0, 2], [1, 0], [2, 1]], [[0, 1], [1, 0], [0, 9]]])
    (out,) = scatter(
        [inputs],
        idx,
        [np.ones((2, 3, 2, 2), np.int64)],
        ADD,
        update_window_dims=(2, 3),
        inserted_window_dims=(0,),
        scatter_dims_to_operand_dims=(1, 0),
        index_vector_dim=2,
    )
    expected = [
        [[1, 2], [5, 6], [7, 8], [7, 8]],
        [[10, 11], [12, 13], [14, 15], [16, 17]],
        [[18, 19], [20, 21], [21, 22], [23, 24]],
    ]
    np.testing.assert_array_equal(out, expected)


def test_scatter_multiple_inputs_and_partial_out_of_bounds():
    a = np.zeros(5, np.int32)
    b = np.full(5, -100, np.float32)
    idx = np.array([[1], [3], [1], [4]])
    ua = np.array([[1, 1], [2, 2], [4, 4], [8, 8]], np.int32)
    ub = np.array([[5, 6], [7, 8], [1, 9], [3, 4]], np.float32)
    region = RegionFn(region=None, call=lambda a0, a1, b0, b1: (a0 + b0, np.maximum(a1, b1)))
    ra, rb = scatter(
        [a, b],
        idx,
        [ua, ub],
        region,
        update_window_dims=(1,),
        scatter_dims_to_operand_dims=(0,),
        index_vector_dim=1,
    )
    # Windows [1,2], [3,4], [1,2], [4,5]: element 5 of the last window is out of bounds
    # and is skipped on its own (the spec's per-element rule).
    np.testing.assert_array_equal(ra, [0, 5, 5, 2, 10])
    np.testing.assert_array_equal(rb, [-100, 5, 9, 7, 8])
    assert ra.dtype == np.int32 and rb.dtype == np.float32


def test_scatter_replace_last_update_wins():
    (out,) = scatter(
        [np.zeros(4, np.int64)],
        np.array([[2], [2], [0], [2]]),
        [np.array([1, 2, 3, 4])],
        REPLACE,
        inserted_window_dims=(0,),
        scatter_dims_to_operand_dims=(0,),
        index_vector_dim=1,
    )
    np.testing.assert_array_equal(out, [3, 0, 4, 0])


def test_scatter_bf16_add_rounds_each_step():
    # 1 + 2**-8 + 2**-8 in bf16: each step rounds back to 1 (ties to even).
    one = np.ones(1, ml_dtypes.bfloat16)
    upd = np.array([2**-8, 2**-8], ml_dtypes.bfloat16)
    region = RegionFn(
        region=None,
        call=lambda a, b: ((a + b).astype(ml_dtypes.bfloat16),),
        summary=RegionSummary.folding("stablehlo.add"),
    )
    (out,) = scatter(
        [one],
        np.array([[0], [0]]),
        [upd],
        region,
        inserted_window_dims=(0,),
        scatter_dims_to_operand_dims=(0,),
        index_vector_dim=1,
    )
    assert out.dtype == ml_dtypes.bfloat16
    assert float(out[0]) == 1.0


# ---- random dimension numbers vs the spec's formulas ---------------------------------


def ref_gather(operand, si, offset_dims, collapsed, obd, sibd, smap, ivd, sizes):
    """spec: gather, element by element."""
    batch_shape = [n for d, n in enumerate(si.shape) if d != ivd]
    window = [sizes[d] for d in range(operand.ndim) if d not in collapsed and d not in obd]
    rrank = len(batch_shape) + len(window)
    shape, b, w = [], iter(batch_shape), iter(window)
    for r in range(rrank):
        shape.append(next(w) if r in offset_dims else next(b))
    out = np.zeros(shape, operand.dtype)
    batch_dims = [d for d in range(rrank) if d not in offset_dims]
    for ri in np.ndindex(*shape):
        bi = [ri[d] for d in batch_dims]
        if ivd < si.ndim:
            start = [si[tuple(bi[:ivd]) + (k,) + tuple(bi[ivd:])] for k in range(si.shape[ivd])]
        else:
            start = [si[tuple(bi)]]
        full_start = [0] * operand.ndim
        for k, d in enumerate(smap):
            full_start[d] = min(max(int(start[k]), 0), operand.shape[d] - sizes[d])
        full_batch = [0] * operand.ndim
        for dop, dst in zip(obd, sibd):
            full_batch[dop] = bi[dst - (0 if dst < ivd else 1)]
        oi = iter([ri[d] for d in offset_dims])
        full_off = [0 if (d in collapsed or d in obd) else next(oi) for d in range(operand.ndim)]
        idx = tuple(a + b + c for a, b, c in zip(full_start, full_batch, full_off))
        out[ri] = operand[idx]
    return out


@st.composite
def gather_case(draw):
    rank = draw(st.integers(1, 3))
    shape = [draw(st.integers(1, 4)) for _ in range(rank)]
    dims = list(range(rank))
    roles = [draw(st.sampled_from(["batch", "collapsed", "offset", "offset"])) for _ in dims]
    obd = [d for d in dims if roles[d] == "batch"]
    collapsed = [d for d in dims if roles[d] == "collapsed"]
    offset_operand = [d for d in dims if roles[d] == "offset"]
    smap = draw(st.permutations([d for d in dims if d not in obd]))
    smap = smap[: draw(st.integers(0, len(smap)))]
    implicit = len(smap) == 1 and draw(st.booleans())
    nb = len(obd) + draw(st.integers(0, 2))
    batch_shape = [draw(st.integers(1, 3)) for _ in range(nb)]
    positions = draw(st.permutations(list(range(nb))))[: len(obd)]
    for p, d in zip(positions, obd):
        batch_shape[p] = shape[d]
    if implicit:
        ivd = nb
        si_shape = batch_shape
        sibd = list(positions)
    else:
        ivd = draw(st.integers(0, nb))
        si_shape = batch_shape[:ivd] + [len(smap)] + batch_shape[ivd:]
        sibd = [p if p < ivd else p + 1 for p in positions]
    sizes = [1 if roles[d] != "offset" else draw(st.integers(0, shape[d])) for d in dims]
    rrank = nb + len(offset_operand)
    offset_dims = sorted(draw(st.permutations(list(range(rrank))))[: len(offset_operand)])
    hi = max(shape) + 2
    si = np.array(
        draw(
            st.lists(
                st.integers(-2, hi),
                min_size=int(np.prod(si_shape)),
                max_size=int(np.prod(si_shape)),
            )
        ),
        dtype=np.int64,
    )
    operand = np.arange(int(np.prod(shape)), dtype=np.int32).reshape(shape)
    return dict(
        operand=operand,
        si=si.reshape(si_shape),
        offset_dims=tuple(offset_dims),
        collapsed=tuple(collapsed),
        obd=tuple(obd),
        sibd=tuple(sibd),
        smap=tuple(smap),
        ivd=ivd,
        sizes=tuple(sizes),
    )


def _gather_example(shape, si, sizes, offset_dims):
    """A gather case whose start indices index every operand dimension in order."""
    rank = len(shape)
    return dict(
        operand=np.arange(int(np.prod(shape)), dtype=np.int32).reshape(shape),
        si=np.array(si, dtype=np.int64),
        offset_dims=offset_dims,
        collapsed=(),
        obd=(),
        sibd=(),
        smap=tuple(range(rank)),
        ivd=1,
        sizes=sizes,
    )


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(gather_case())
# start indices between dim - slice_size and dim - 1: clamped to dim - slice_size
@example(_gather_example((5,), [[3], [4], [2], [5]], (3,), (1,)))
@example(_gather_example((4, 6), [[3, 5], [2, 3], [1, 2]], (2, 4), (1, 2)))
def test_gather_matches_spec_formula(c):
    expected = ref_gather(
        c["operand"],
        c["si"],
        c["offset_dims"],
        c["collapsed"],
        c["obd"],
        c["sibd"],
        c["smap"],
        c["ivd"],
        c["sizes"],
    )
    out = gather(
        c["operand"],
        c["si"],
        offset_dims=c["offset_dims"],
        collapsed_slice_dims=c["collapsed"],
        operand_batching_dims=c["obd"],
        start_indices_batching_dims=c["sibd"],
        start_index_map=c["smap"],
        index_vector_dim=c["ivd"],
        slice_sizes=c["sizes"],
    )
    assert out.shape == expected.shape
    np.testing.assert_array_equal(out, expected)
    # The static side infers the same result shape.
    from hlorun.parser.ir import TensorType as T
    from hlorun.shape_inference.optable import ShapeContext

    t = OP_TABLE["stablehlo.gather"].shape(
        ShapeContext("stablehlo.gather"),
        T(c["operand"].shape, I32),
        T(c["si"].shape, I64),
        dimension_numbers=None,
        offset_dims=c["offset_dims"],
        collapsed_slice_dims=c["collapsed"],
        operand_batching_dims=c["obd"],
        start_indices_batching_dims=c["sibd"],
        start_index_map=c["smap"],
        index_vector_dim=c["ivd"],
        slice_sizes=c["sizes"],
        indices_are_sorted=False,
    )
    assert t.shape == expected.shape


def ref_scatter(inputs, si, updates, fn, uwd, iwd, ibd, sibd, sdod, ivd):
    """spec: scatter, one update element at a time in row-major update_index order."""
    results = [x.copy() for x in inputs]
    rank = inputs[0].ndim
    usd = [d for d in range(updates[0].ndim) if d not in uwd]
    for ui in np.ndindex(*updates[0].shape):
        usi = [ui[d] for d in usd]
        if ivd < si.ndim:
            start = [si[tuple(usi[:ivd]) + (k,) + tuple(usi[ivd:])] for k in range(si.shape[ivd])]
        else:
            start = [si[tuple(usi)]]
        full_start = [0] * rank
        for k, d in enumerate(sdod):
            full_start[d] = int(start[k])
        full_batch = [0] * rank
        for dop, dst in zip(ibd, sibd):
            full_batch[dop] = usi[dst - (0 if dst < ivd else 1)]
        wi = iter([ui[d] for d in uwd])
        full_win = [0 if (d in iwd or d in ibd) else next(wi) for d in range(rank)]
        ri = tuple(a + b + c for a, b, c in zip(full_start, full_batch, full_win))
        if all(0 <= i < n for i, n in zip(ri, inputs[0].shape)):
            new = fn(*[r[ri] for r in results], *[u[ui] for u in updates])
            for r, v in zip(results, new):
                r[ri] = v
    return results


@st.composite
def scatter_case(draw):
    rank = draw(st.integers(1, 3))
    shape = [draw(st.integers(1, 4)) for _ in range(rank)]
    dims = list(range(rank))
    roles = [draw(st.sampled_from(["batch", "inserted", "window", "window"])) for _ in dims]
    ibd = [d for d in dims if roles[d] == "batch"]
    iwd = [d for d in dims if roles[d] == "inserted"]
    win = [d for d in dims if roles[d] == "window"]
    sdod = draw(st.permutations([d for d in dims if d not in ibd]))
    sdod = sdod[: draw(st.integers(0, len(sdod)))]
    implicit = len(sdod) == 1 and draw(st.booleans())
    nb = len(ibd) + draw(st.integers(0, 2))
    batch_shape = [draw(st.integers(1, 3)) for _ in range(nb)]
    positions = draw(st.permutations(list(range(nb))))[: len(ibd)]
    for p, d in zip(positions, ibd):
        batch_shape[p] = shape[d]
    if implicit:
        ivd, si_shape, sibd = nb, batch_shape, list(positions)
    else:
        ivd = draw(st.integers(0, nb))
        si_shape = batch_shape[:ivd] + [len(sdod)] + batch_shape[ivd:]
        sibd = [p if p < ivd else p + 1 for p in positions]
    wsizes = [draw(st.integers(0, shape[d])) for d in win]
    urank = nb + len(win)
    uwd = sorted(draw(st.permutations(list(range(urank))))[: len(win)])
    ushape, b, w = [], iter(batch_shape), iter(wsizes)
    for r in range(urank):
        ushape.append(next(w) if r in uwd else next(b))
    n = int(np.prod(si_shape))
    si = np.array(
        draw(st.lists(st.integers(-1, max(shape)), min_size=n, max_size=n)), dtype=np.int32
    ).reshape(si_shape)
    kind = draw(st.sampled_from(["add", "replace", "general", "multi"]))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    inputs = rng.integers(-5, 5, size=shape).astype(np.int64)
    updates = rng.integers(-5, 5, size=ushape).astype(np.int64)
    return dict(
        inputs=inputs,
        si=si,
        updates=updates,
        uwd=tuple(uwd),
        iwd=tuple(iwd),
        ibd=tuple(ibd),
        sibd=tuple(sibd),
        sdod=tuple(sdod),
        ivd=ivd,
        kind=kind,
    )


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(scatter_case())
def test_scatter_matches_spec_formula(c):
    dn = dict(
        update_window_dims=c["uwd"],
        inserted_window_dims=c["iwd"],
        input_batching_dims=c["ibd"],
        scatter_indices_batching_dims=c["sibd"],
        scatter_dims_to_operand_dims=c["sdod"],
        index_vector_dim=c["ivd"],
    )
    ref_dn = (c["uwd"], c["iwd"], c["ibd"], c["sibd"], c["sdod"], c["ivd"])
    x, u = c["inputs"], c["updates"]
    if c["kind"] == "add":
        got = scatter([x], c["si"], [u], ADD, **dn)
        want = ref_scatter([x], c["si"], [u], lambda a, b: (a + b,), *ref_dn)
    elif c["kind"] == "replace":
        got = scatter([x], c["si"], [u], REPLACE, **dn)
        want = ref_scatter([x], c["si"], [u], lambda a, b: (b,), *ref_dn)
    elif c["kind"] == "general":  # not commutative: the order of colliding updates shows
        region = RegionFn(region=None, call=lambda a, b: (a * 3 + b,))
        got = scatter([x], c["si"], [u], region, **dn)
        want = ref_scatter([x], c["si"], [u], lambda a, b: (a * 3 + b,), *ref_dn)
    else:
        x2, u2 = x.astype(np.float32) * 0.5, u.astype(np.float32)
        region = RegionFn(region=None, call=lambda a, b, c_, d: (a - c_, np.minimum(b, d)))
        got = scatter([x, x2], c["si"], [u, u2], region, **dn)
        want = ref_scatter(
            [x, x2], c["si"], [u, u2], lambda a, b, c_, d: (a - c_, min(b, d)), *ref_dn
        )
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert g.dtype == w.dtype
        np.testing.assert_array_equal(g, w)


# ---- scatter fast paths (row scatter, in-bounds shortcut) vs the spec loop -----------

BF16 = np.dtype(ml_dtypes.bfloat16)
_ROW_DTYPES = [np.dtype(t) for t in (np.int32, np.int8, np.float32, np.float64, np.bool_)]
_ROW_DTYPES.append(BF16)


def _elem_any(dtype):
    from hlorun.parser.ir import FloatType

    dtype = np.dtype(dtype)
    if dtype == BF16:
        return FloatType("bf16")
    if dtype.kind == "f":
        return FloatType(f"f{8 * dtype.itemsize}")
    if dtype.kind == "b":
        return IntegerType(1)
    return IntegerType(8 * dtype.itemsize, "unsigned" if dtype.kind == "u" else "signless")


def _same_dtype(f):
    """A scalar/array combiner whose result keeps the operand dtype (as a region does)."""

    def call(a, b):
        with np.errstate(all="ignore"):
            return (np.asarray(f(a, b)).astype(np.asarray(a).dtype),)

    return call


# name -> (combiner name, a b -> new value); the scalar reference uses the same function
_COMBINERS = {
    "add": ("stablehlo.add", np.add),
    "multiply": ("stablehlo.multiply", np.multiply),
    "maximum": ("stablehlo.maximum", np.maximum),
    "minimum": ("stablehlo.minimum", np.minimum),
    "or": ("stablehlo.or", np.bitwise_or),
    "xor": ("stablehlo.xor", np.bitwise_xor),
    "noncommutative": (None, lambda a, b: a * 3 + b),
    "replace": ("replace", lambda a, b: b),
}


def _region(name):
    combiner, f = _COMBINERS[name]
    return RegionFn(region=None, call=_same_dtype(f), summary=_summary(combiner, 1)), _same_dtype(f)


def _summary(combiner, n):
    """What a hand-made region computes: an op (one operand), a replace, or nothing known."""
    if combiner == "replace":
        return RegionSummary.replacing(n)
    return RegionSummary.folding(combiner) if combiner is not None and n == 1 else RegionSummary()


def _check_scatter(inputs, si, updates, name, dn):
    region, f = _region(name)
    rts = tuple(TensorType(x.shape, _elem_any(x.dtype)) for x in inputs)
    before = [x.copy() for x in inputs]
    got = scatter(list(inputs), si, list(updates), region, result_types=rts, **dn)
    want = ref_scatter(
        inputs,
        si,
        updates,
        f,
        dn["update_window_dims"],
        dn["inserted_window_dims"],
        dn.get("input_batching_dims", ()),
        dn.get("scatter_indices_batching_dims", ()),
        dn["scatter_dims_to_operand_dims"],
        dn["index_vector_dim"],
    )
    for x, b in zip(inputs, before):
        np.testing.assert_array_equal(x, b)  # inputs are not modified
    for g, w in zip(got, want):
        assert g.dtype == w.dtype and g.shape == w.shape
        assert g.tobytes() == w.tobytes()  # bit for bit (NaN, -0, rounding order)
    return got


def _values(rng, shape, dtype):
    dtype = np.dtype(dtype)
    if dtype.kind == "b":
        return rng.integers(0, 2, shape).astype(bool)
    if dtype.kind == "f" or dtype == BF16:
        # magnitudes far apart: float sums depend on the order of colliding updates
        v = rng.standard_normal(shape) * 10.0 ** rng.integers(-3, 8, shape)
        return v.astype(dtype)
    return rng.integers(-100, 100, shape).astype(dtype)


@st.composite
def row_scatter_case(draw):
    """x[idx] (+)= rows: inserted_window_dims = scatter_dims_to_operand_dims = [0], the
    update windows trailing (whole or partial rows), any index_vector_dim form."""
    rank = draw(st.integers(1, 3))
    shape = [draw(st.integers(1, 5))] + [draw(st.integers(0, 3)) for _ in range(rank - 1)]
    batch = [draw(st.integers(0, 6 if k == 0 else 2)) for k in range(draw(st.integers(0, 2)))]
    form = draw(st.sampled_from(["implicit", "explicit"]))
    if form == "implicit":
        ivd, si_shape = len(batch), batch
    else:
        ivd = draw(st.integers(0, len(batch)))
        si_shape = batch[:ivd] + [1] + batch[ivd:]
    window = [draw(st.integers(0, n)) for n in shape[1:]]
    dtype = draw(st.sampled_from(_ROW_DTYPES))
    name = draw(st.sampled_from(sorted(_COMBINERS)))
    if dtype.kind == "f" and name in ("or", "xor"):
        name = "add"
    if dtype == BF16 and name in ("or", "xor"):
        name = "multiply"
    idx_dtype = draw(st.sampled_from([np.int32, np.int64, np.uint8, np.int8]))
    lo = 0 if np.dtype(idx_dtype).kind == "u" else -2
    n = int(np.prod(si_shape))
    si = np.array(
        draw(st.lists(st.integers(lo, shape[0] + 1), min_size=n, max_size=n)), dtype=idx_dtype
    ).reshape(si_shape)
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    x = _values(rng, shape, dtype)
    u = _values(rng, batch + window, dtype)
    dn = dict(
        update_window_dims=tuple(range(len(batch), len(batch) + rank - 1)),
        inserted_window_dims=(0,),
        scatter_dims_to_operand_dims=(0,),
        index_vector_dim=ivd,
    )
    return x, si, u, name, dn


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(row_scatter_case())
def test_row_scatter_matches_spec_loop(c):
    x, si, u, name, dn = c
    _check_scatter([x], si, [u], name, dn)


@pytest.mark.parametrize("name", ["add", "multiply", "noncommutative", "replace"])
def test_row_scatter_two_inputs(name):
    rng = np.random.default_rng(3)
    x = _values(rng, (6, 3), np.int32)
    y = _values(rng, (6, 3), np.float32)
    si = np.array([[5], [0], [5], [-1], [6], [0], [5]])
    ux, uy = _values(rng, (7, 2), np.int32), _values(rng, (7, 2), np.float32)
    combiner, f = _COMBINERS[name]
    call = _same_dtype(f)
    region = RegionFn(
        region=None,
        call=lambda a, b, c, d: call(a, c) + call(b, d),
        summary=_summary(combiner, 2),
    )
    dn = dict(
        update_window_dims=(1,),
        inserted_window_dims=(0,),
        scatter_dims_to_operand_dims=(0,),
        index_vector_dim=1,
    )
    got = scatter([x, y], si, [ux, uy], region, **dn)
    want = ref_scatter(
        [x, y],
        si,
        [ux, uy],
        lambda a, b, c, d: call(a, c) + call(b, d),
        (1,),
        (0,),
        (),
        (),
        (0,),
        1,
    )
    for g, w in zip(got, want):
        assert g.dtype == w.dtype and g.tobytes() == w.tobytes()


def test_scatter_float_add_applies_duplicates_in_update_order():
    # 1e20 + -1e20 + 1 == 1 only when the updates apply in update_index order.
    for x, idx, dn in [
        (
            np.zeros(3, np.float32),
            np.array([[1], [1], [1]]),
            dict(update_window_dims=(), inserted_window_dims=(0,)),
        ),
        (
            np.zeros((3, 1), np.float32),
            np.array([[1], [1], [1]]),
            dict(update_window_dims=(1,), inserted_window_dims=(0,)),
        ),
    ]:
        u = np.array([1e20, -1e20, 1], np.float32).reshape((3,) + x.shape[1:])
        (out,) = scatter(
            [x], idx, [u], ADD, scatter_dims_to_operand_dims=(0,), index_vector_dim=1, **dn
        )
        assert out.reshape(-1)[1] == 1.0 and out.reshape(-1)[0] == 0.0


def test_row_scatter_1e4_duplicates_bitwise_vs_loop():
    rng = np.random.default_rng(7)
    x = _values(rng, (50, 4), np.float32)
    si = rng.integers(-3, 53, (2000, 1)).astype(np.int32)  # many duplicates, some OOB
    u = _values(rng, (2000, 4), np.float32)
    _check_scatter(
        [x],
        si,
        [u],
        "add",
        dict(
            update_window_dims=(1,),
            inserted_window_dims=(0,),
            scatter_dims_to_operand_dims=(0,),
            index_vector_dim=1,
        ),
    )


@pytest.mark.parametrize("idx_dtype", [np.uint64, np.uint32, np.int64, ml_dtypes.int4])
def test_row_scatter_index_dtypes(idx_dtype):
    x = np.arange(6, dtype=np.int32)
    raw = (
        [5, 0, 7, 5, 2]
        if np.dtype(idx_dtype).kind == "u" or idx_dtype is np.int64
        else [5, 0, -1, 5, 7]
    )
    si = np.array(raw).astype(idx_dtype)
    if np.dtype(idx_dtype) == np.uint64:
        si[2] = np.uint64(2**64 - 1)  # saturates high: out of bounds, skipped
    u = np.array([1, 10, 100, 1000, 10000], np.int32)
    got = _check_scatter(
        [x],
        si.astype(np.int64) if np.dtype(idx_dtype) == np.uint64 else si,
        [u],
        "add",
        dict(
            update_window_dims=(),
            inserted_window_dims=(0,),
            scatter_dims_to_operand_dims=(0,),
            index_vector_dim=1,
        ),
    )
    (direct,) = scatter(
        [x],
        si,
        [u],
        ADD,
        update_window_dims=(),
        inserted_window_dims=(0,),
        scatter_dims_to_operand_dims=(0,),
        index_vector_dim=1,
    )
    np.testing.assert_array_equal(direct, got[0])


def test_row_scatter_noncontiguous_operand():
    base = np.arange(40, dtype=np.float32).reshape(8, 5)
    x = base[::2, ::2]  # (4, 3), strided
    si = np.array([3, 3, 0])
    u = np.ones((3, 3), np.float32)
    (out,) = scatter(
        [x],
        si,
        [u],
        ADD,
        update_window_dims=(1,),
        inserted_window_dims=(0,),
        scatter_dims_to_operand_dims=(0,),
        index_vector_dim=1,
    )
    want = x.copy()
    want[3] += 2
    want[0] += 1
    np.testing.assert_array_equal(out, want)
    assert base[0, 0] == 0  # the operand's buffer is untouched


@pytest.mark.parametrize("name", ["add", "noncommutative", "replace"])
def test_multi_dim_scatter_in_bounds_shortcut_and_window_reach(name):
    """Two scattered dims with a window on one: all in bounds (no mask), then a start
    whose window reaches past the end (the elements beyond are skipped on their own)."""
    rng = np.random.default_rng(11)
    x = _values(rng, (4, 5), np.float32)
    dn = dict(
        update_window_dims=(1,),
        inserted_window_dims=(0,),
        scatter_dims_to_operand_dims=(0, 1),
        index_vector_dim=1,
    )
    inside = np.array([[0, 0], [3, 3], [0, 0], [2, 1]])
    reach = np.array([[0, 4], [3, 3], [1, -1], [2, 1]])
    u = _values(rng, (4, 2), np.float32)
    for si in (inside, reach):
        _check_scatter([x], si, [u], name, dn)
    # index_vector_dim = 0 (index vectors as columns)
    _check_scatter([x], reach.T.copy(), [u], name, dict(dn, index_vector_dim=0))


def test_scatter_batching_dims_in_bounds():
    rng = np.random.default_rng(12)
    x = _values(rng, (2, 5, 3), np.int32)
    si = np.array([[[1], [4], [1]], [[0], [0], [2]]])  # batch (2, 3), index vector last
    u = _values(rng, (2, 3, 3), np.int32)
    dn = dict(
        update_window_dims=(2,),
        inserted_window_dims=(1,),
        input_batching_dims=(0,),
        scatter_indices_batching_dims=(0,),
        scatter_dims_to_operand_dims=(1,),
        index_vector_dim=2,
    )
    for name in ("add", "noncommutative", "replace"):
        _check_scatter([x], si, [u], name, dn)


@pytest.mark.parametrize("dtype", [np.int32, np.float32])
@pytest.mark.parametrize("window", [(3, 4), (2, 3), (3, 1), (1, 4)])
def test_row_scatter_rank3_windows(dtype, window):
    """Whole and partial 2-D windows of a rank-3 operand (the element-index form)."""
    rng = np.random.default_rng(13)
    x = _values(rng, (5, 3, 4), dtype)
    si = np.array([[4], [0], [4], [5], [2], [0]])
    u = _values(rng, (6,) + window, dtype)
    for name in ("add", "maximum", "replace", "noncommutative"):
        _check_scatter(
            [x],
            si,
            [u],
            name,
            dict(
                update_window_dims=(1, 2),
                inserted_window_dims=(0,),
                scatter_dims_to_operand_dims=(0,),
                index_vector_dim=1,
            ),
        )
