"""engine.region_analysis: what a region computes (its combiners and their operand
order, a pure replace, a comparator's lexicographic keys), from hand-built IR; expected
answers from the spec's definitions of the ops (not from the analysis' own output)."""

from __future__ import annotations

import numpy as np
import pytest

import hlorun.engine.kernels  # noqa: F401  (fills the op table: key transforms run its kernels)
from hlorun import engine
from hlorun.engine.region_analysis import Combiner, RegionSummary, SortKey, summarize
from hlorun.parser.ir import (
    ComplexType,
    DenseElementsAttr,
    FloatType,
    IntegerType,
    TensorType,
)
from tests.support.regions import F32, I1, cmp, complex_comparator, planned_comparator, region

I64 = TensorType((), IntegerType(64))


def fold_ops(r):
    return summarize(r).fold_ops


def sort_keys(r):
    return summarize(r).sort_keys


def test_single_combiner():
    r = region([I64, I64], [("stablehlo.add", ["%arg0", "%arg1"], I64, {})], ["%0"])
    assert fold_ops(r) == ("stablehlo.add",)


def test_swapped_commutative_and_not_commutative():
    r = region([I64, I64], [("stablehlo.maximum", ["%arg1", "%arg0"], I64, {})], ["%0"])
    assert fold_ops(r) == ("stablehlo.maximum",)
    r = region([I64, I64], [("stablehlo.subtract", ["%arg1", "%arg0"], I64, {})], ["%0"])
    assert fold_ops(r) is None


def test_variadic_combiners():
    r = region(
        [I64, F32, I64, F32],
        [
            ("stablehlo.add", ["%arg0", "%arg2"], I64, {}),
            ("stablehlo.minimum", ["%arg1", "%arg3"], F32, {}),
        ],
        ["%0", "%1"],
    )
    assert fold_ops(r) == ("stablehlo.add", "stablehlo.minimum")


def test_argmax_body_is_not_a_combiner():
    r = region(
        [F32, I64, F32, I64],
        [
            ("stablehlo.compare", ["%arg0", "%arg2"], I1, cmp("GT")),
            ("stablehlo.select", ["%0", "%arg0", "%arg2"], F32, {}),
            ("stablehlo.select", ["%0", "%arg1", "%arg3"], I64, {}),
        ],
        ["%1", "%2"],
    )
    assert fold_ops(r) is None


def test_sort_single_lt_gt():
    r = region(
        [F32, F32], [("stablehlo.compare", ["%arg0", "%arg1"], I1, cmp("LT", "TOTALORDER"))], ["%0"]
    )
    assert sort_keys(r) == (SortKey(0, False, "TOTALORDER"),)
    r = region([I64, I64], [("stablehlo.compare", ["%arg0", "%arg1"], I1, cmp("GT"))], ["%0"])
    assert sort_keys(r) == (SortKey(0, True, None),)
    # LT with swapped arguments is GT
    r = region(
        [I64, I64], [("stablehlo.compare", ["%arg1", "%arg0"], I1, cmp("LT", "SIGNED"))], ["%0"]
    )
    assert sort_keys(r) == (SortKey(0, True, "SIGNED"),)


def test_sort_key_on_second_operand():
    r = region(
        [I64, I64, F32, F32], [("stablehlo.compare", ["%arg2", "%arg3"], I1, cmp("LT"))], ["%0"]
    )
    assert sort_keys(r) == (SortKey(1, False, None),)


def test_sort_lexicographic_jax_style():
    # jax: lt(k0) | (eq(k0) & lt(k1))
    r = region(
        [I64, I64, F32, F32],
        [
            ("stablehlo.compare", ["%arg0", "%arg1"], I1, cmp("EQ", "SIGNED")),
            ("stablehlo.compare", ["%arg2", "%arg3"], I1, cmp("LT", "TOTALORDER")),
            ("stablehlo.and", ["%0", "%1"], I1, {}),
            ("stablehlo.compare", ["%arg0", "%arg1"], I1, cmp("LT", "SIGNED")),
            ("stablehlo.or", ["%3", "%2"], I1, {}),
        ],
        ["%4"],
    )
    assert sort_keys(r) == (SortKey(0, False, "SIGNED"), SortKey(1, False, "TOTALORDER"))


def test_sort_lexicographic_select_spelling():
    # select(eq(k1), gt(k0), lt(k1)): key 1 ascending first, then key 0 descending
    r = region(
        [I64, I64, I64, I64],
        [
            ("stablehlo.compare", ["%arg2", "%arg3"], I1, cmp("EQ")),
            ("stablehlo.compare", ["%arg0", "%arg1"], I1, cmp("GT")),
            ("stablehlo.compare", ["%arg2", "%arg3"], I1, cmp("LT")),
            ("stablehlo.select", ["%0", "%1", "%2"], I1, {}),
        ],
        ["%3"],
    )
    assert sort_keys(r) == (SortKey(1, False, None), SortKey(0, True, None))


def test_sort_constant_false_means_all_equal():
    const = DenseElementsAttr(I1, np.array(False))
    r = region([I64, I64], [("stablehlo.constant", [], I1, {"value": const})], ["%0"])
    assert sort_keys(r) == ()


def test_sort_not_recognised():
    # LE is not a strict order
    r = region([I64, I64], [("stablehlo.compare", ["%arg0", "%arg1"], I1, cmp("LE"))], ["%0"])
    assert sort_keys(r) is None
    # a compare across different operands
    r = region(
        [I64, I64, I64, I64], [("stablehlo.compare", ["%arg0", "%arg3"], I1, cmp("LT"))], ["%0"]
    )
    assert sort_keys(r) is None
    # a computation on the keys
    r = region(
        [I64, I64],
        [
            ("stablehlo.abs", ["%arg0"], I64, {}),
            ("stablehlo.abs", ["%arg1"], I64, {}),
            ("stablehlo.compare", ["%0", "%1"], I1, cmp("LT")),
        ],
        ["%2"],
    )
    assert summarize(r).sort_keys[0].transform is not None  # |a| < |b|: a transform key
    # mixed compare types on one key
    r = region(
        [F32, F32],
        [
            ("stablehlo.compare", ["%arg0", "%arg1"], I1, cmp("LT", "FLOAT")),
            ("stablehlo.compare", ["%arg0", "%arg1"], I1, cmp("EQ", "TOTALORDER")),
            ("stablehlo.or", ["%0", "%1"], I1, {}),
        ],
        ["%2"],
    )
    assert sort_keys(r) is None


def test_sort_complex_keys_jax_style():
    c64 = TensorType((), ComplexType(FloatType("f32")))
    r = complex_comparator()
    assert sort_keys(r) == (
        SortKey(0, False, "TOTALORDER", "real"),
        SortKey(0, False, "TOTALORDER", "imag"),
    )
    # real of one side against imag of the other is not a key
    r = region(
        [c64, c64],
        [
            ("stablehlo.real", ["%arg0"], F32, {}),
            ("stablehlo.imag", ["%arg1"], F32, {}),
            ("stablehlo.compare", ["%0", "%1"], I1, cmp("LT")),
        ],
        ["%2"],
    )
    assert sort_keys(r) is None


# ---- per-operand key transforms ------------------------------------------------------


def const(t, value):
    return (
        "stablehlo.constant",
        [],
        t,
        {"value": DenseElementsAttr(t, np.array(value, dtype=np.float32))},
    )


def jax_canonical_ops(arg, base, nan=np.nan):
    """-0 -> +0, NaN -> one NaN, on ``arg``; constants are ops ``base`` and ``base + 1``;
    the result is ``%{base + 5}``."""
    z, q = f"%{base}", f"%{base + 1}"
    return [
        const(F32, 0.0),
        const(F32, nan),
        ("stablehlo.compare", [arg, z], I1, cmp("EQ", "FLOAT")),
        ("stablehlo.select", [f"%{base + 2}", z, arg], F32, {}),
        ("stablehlo.compare", [arg, arg], I1, cmp("NE", "FLOAT")),
        ("stablehlo.select", [f"%{base + 4}", q, f"%{base + 3}"], F32, {}),
    ]


def jax_region(nan_rhs=np.nan, direction="LT"):
    ops = jax_canonical_ops("%arg0", 0) + jax_canonical_ops("%arg1", 6, nan_rhs)
    ops.append(("stablehlo.compare", ["%5", "%11"], I1, cmp(direction, "TOTALORDER")))
    return region([F32, F32], ops, ["%12"])


def test_sort_jax_canonicalised_totalorder():
    r = jax_region()
    (key,) = sort_keys(r)
    assert (key.operand, key.descending, key.compare_type, key.part) == (
        0,
        False,
        "TOTALORDER",
        None,
    )
    assert key.transform.key_type == FloatType("f32")
    assert key.transform.ops.count("stablehlo.select") == 2
    x = np.array([-0.0, 0.0, np.nan, -np.nan, 1.5, -np.inf], dtype=np.float32)
    x[3:4].view(np.uint32)[:] |= 0x1234  # a negative NaN with a payload
    with planned_comparator(r, (TensorType((6,), FloatType("f32")),)) as comparator:
        y, et = comparator.key_input(0, x, FloatType("f32"))
    assert et == FloatType("f32") and y.dtype == np.float32
    want = np.array([0, 0, 0x7FC00000, 0x7FC00000], np.uint32)
    assert y.view(np.uint32)[:4].tolist() == want.tolist()
    assert y[4:].tolist() == [1.5, -np.inf]
    (key,) = sort_keys(jax_region(direction="GT"))
    assert key.descending and key.transform is not None


def test_sort_transform_identity_keys_stay_plain():
    # untransformed keys keep transform None, so kernels that ignore transforms still work
    r = region(
        [F32, F32], [("stablehlo.compare", ["%arg0", "%arg1"], I1, cmp("LT", "TOTALORDER"))], ["%0"]
    )
    assert sort_keys(r) == (SortKey(0, False, "TOTALORDER"),)
    x = np.zeros(3, np.float32)
    with planned_comparator(r, (TensorType((3,), F32.element_type),)) as comparator:
        assert comparator.key_input(0, x, F32.element_type)[0] is x


def test_sort_transform_must_match_on_both_sides():
    # a different NaN constant on the rhs: not the same transform of both arguments
    assert sort_keys(jax_region(nan_rhs=1.0)) is None
    # canonicalise only the lhs
    ops = jax_canonical_ops("%arg0", 0)
    ops.append(("stablehlo.compare", ["%5", "%arg1"], I1, cmp("LT", "TOTALORDER")))
    assert sort_keys(region([F32, F32], ops, ["%6"])) is None


def test_sort_transform_of_one_argument_only():
    # |a| < |b| is a transform key ...
    r = region(
        [I64, I64],
        [
            ("stablehlo.abs", ["%arg0"], I64, {}),
            ("stablehlo.abs", ["%arg1"], I64, {}),
            ("stablehlo.compare", ["%0", "%1"], I1, cmp("LT")),
        ],
        ["%2"],
    )
    (key,) = sort_keys(r)
    assert key.transform.ops == ("stablehlo.abs",)
    with planned_comparator(r, (TensorType((2,), I64.element_type),)) as comparator:
        assert comparator.key_input(0, np.array([-3, 2]), I64.element_type)[0].tolist() == [3, 2]
    # ... a - b < 0 reads both arguments: not a key
    r = region(
        [I64, I64],
        [
            ("stablehlo.subtract", ["%arg0", "%arg1"], I64, {}),
            ("stablehlo.constant", [], I64, {"value": DenseElementsAttr(I64, np.array(0))}),
            ("stablehlo.compare", ["%0", "%1"], I1, cmp("LT")),
        ],
        ["%2"],
    )
    assert sort_keys(r) is None
    # a transform of arg0 compared with one of arg2's (another operand): not a key
    r = region(
        [I64, I64, I64, I64],
        [
            ("stablehlo.negate", ["%arg0"], I64, {}),
            ("stablehlo.negate", ["%arg3"], I64, {}),
            ("stablehlo.compare", ["%0", "%1"], I1, cmp("LT")),
        ],
        ["%2"],
    )
    assert sort_keys(r) is None


def test_sort_transform_ops_are_elementwise_only():
    # an op outside the elementwise set (here a reshape to rank 1) is not a transform
    t1 = TensorType((1,), IntegerType(64))
    r = region(
        [I64, I64],
        [
            ("stablehlo.reshape", ["%arg0"], t1, {}),
            ("stablehlo.reshape", ["%arg1"], t1, {}),
            ("stablehlo.compare", ["%0", "%1"], TensorType((1,), IntegerType(1)), cmp("LT")),
        ],
        ["%2"],
    )
    assert sort_keys(r) is None


def test_sort_transform_lexicographic_with_boolean_constants():
    # true & (lt(-k0) | (eq(-k0) & gt(k1)))
    true = DenseElementsAttr(I1, np.array(True))
    r = region(
        [I64, I64, I64, I64],
        [
            ("stablehlo.negate", ["%arg0"], I64, {}),
            ("stablehlo.negate", ["%arg1"], I64, {}),
            ("stablehlo.compare", ["%0", "%1"], I1, cmp("LT", "SIGNED")),
            ("stablehlo.compare", ["%0", "%1"], I1, cmp("EQ", "SIGNED")),
            ("stablehlo.compare", ["%arg2", "%arg3"], I1, cmp("GT", "SIGNED")),
            ("stablehlo.and", ["%3", "%4"], I1, {}),
            ("stablehlo.or", ["%2", "%5"], I1, {}),
            ("stablehlo.constant", [], I1, {"value": true}),
            ("stablehlo.and", ["%7", "%6"], I1, {}),
        ],
        ["%8"],
    )
    k0, k1 = sort_keys(r)
    assert (k0.operand, k0.descending, k0.transform.ops) == (0, False, ("stablehlo.negate",))
    assert k1 == SortKey(1, True, "SIGNED")


def test_summary_cached_per_region():
    r = jax_region()
    assert summarize(r) is summarize(r)
    assert summarize(jax_region()) is not summarize(r)


# ---- combiners: the op, its operand order, whether it commutes -------------------------


def test_non_commutative_combiner_keeps_its_operand_order():
    # reduce-style body (acc, x): subtract(%x, %acc) is x - acc, not acc - x
    r = region([I64, I64], [("stablehlo.subtract", ["%arg1", "%arg0"], I64, {})], ["%0"])
    s = summarize(r)
    assert s.combiners == (Combiner("stablehlo.subtract", swapped=True, commutative=False),)
    assert s.fold_ops is None  # not op(acc, x): no fast path may treat it as one
    assert not s.replace and s.sort_keys is None
    r = region([I64, I64], [("stablehlo.subtract", ["%arg0", "%arg1"], I64, {})], ["%0"])
    assert summarize(r).combiners == (Combiner("stablehlo.subtract", False, False),)
    assert summarize(r).fold_ops == ("stablehlo.subtract",)


def test_commutative_combiner_may_swap():
    # spec: add, multiply, maximum, minimum, and, or, xor commute (the op table's trait)
    for name in ("add", "multiply", "maximum", "minimum", "and", "or", "xor"):
        op = f"stablehlo.{name}"
        r = region([I64, I64], [(op, ["%arg1", "%arg0"], I64, {})], ["%0"])
        (c,) = summarize(r).combiners
        assert (c.op, c.swapped, c.commutative, c.folds) == (op, True, True, True)
        assert c.row is not None and c.row.name == op
    for name in ("subtract", "divide", "remainder", "power", "shift_left", "atan2"):
        t = F32 if name == "atan2" else I64
        r = region([t, t], [(f"stablehlo.{name}", ["%arg1", "%arg0"], t, {})], ["%0"])
        (c,) = summarize(r).combiners
        assert not c.commutative and not c.folds


def test_variadic_combiner_order_per_result():
    # (acc0, acc1, x0, x1) -> (x0 - acc0, max(acc1, x1))
    r = region(
        [I64, I64, I64, I64],
        [
            ("stablehlo.subtract", ["%arg2", "%arg0"], I64, {}),
            ("stablehlo.maximum", ["%arg1", "%arg3"], I64, {}),
        ],
        ["%0", "%1"],
    )
    s = summarize(r)
    assert [(c.op, c.swapped) for c in s.combiners] == [
        ("stablehlo.subtract", True),
        ("stablehlo.maximum", False),
    ]
    assert s.fold_ops is None
    # a result reading the other pair's arguments is no combiner
    r = region(
        [I64, I64, I64, I64],
        [
            ("stablehlo.add", ["%arg0", "%arg3"], I64, {}),
            ("stablehlo.add", ["%arg1", "%arg2"], I64, {}),
        ],
        ["%0", "%1"],
    )
    assert summarize(r).combiners is None


def test_reduce_kernels_see_no_combiner_for_a_swapped_subtract():
    from hlorun.engine.kernels.reduction import combiners
    from hlorun.engine.values import RegionFn

    r = region([I64, I64], [("stablehlo.subtract", ["%arg1", "%arg0"], I64, {})], ["%0"])
    assert combiners(RegionFn(region=r, call=None), 1) is None
    r = region([I64, I64], [("stablehlo.add", ["%arg1", "%arg0"], I64, {})], ["%0"])
    assert combiners(RegionFn(region=r, call=None), 1) == ("stablehlo.add",)


# ---- replace ----------------------------------------------------------------------------


def test_replace_bodies():
    assert summarize(region([I64, I64], [], ["%arg1"])).replace
    assert not summarize(region([I64, I64], [], ["%arg0"])).replace
    assert summarize(region([I64, F32, I64, F32], [], ["%arg2", "%arg3"])).replace
    assert not summarize(region([I64, I64, I64, I64], [], ["%arg3", "%arg2"])).replace
    assert not summarize(region([I64, I64, I64, I64], [], ["%arg2"])).replace
    # computing the update is not a replace
    r = region([I64, I64], [("stablehlo.negate", ["%arg1"], I64, {})], ["%0"])
    assert not summarize(r).replace and summarize(r).combiners is None


def test_summary_on_the_region_fn_and_without_combiners():
    from hlorun.engine.values import RegionFn

    r = region([I64, I64], [("stablehlo.add", ["%arg0", "%arg1"], I64, {})], ["%0"])
    fn = RegionFn(region=r, call=None)
    assert fn.summary is summarize(r)
    assert RegionFn(region=None, call=None).summary.combiners is None
    plain = fn.summary.without_combiners()
    assert plain.combiners is None and plain.arguments == 2
    assert RegionFn(region=r, call=None, summary=plain).summary is plain
    assert RegionSummary.folding("stablehlo.add").fold_ops == ("stablehlo.add",)
    assert RegionSummary.replacing(2) == RegionSummary(4, replace=True)


# ---- comparators with several keys -------------------------------------------------------


def test_three_keys_nested_select():
    # select(ne(k2), gt(k2), select(ne(k0), lt(k0), lt(k1))): k2 descending, k0, k1
    r = region(
        [I64] * 6,
        [
            ("stablehlo.compare", ["%arg4", "%arg5"], I1, cmp("NE")),
            ("stablehlo.compare", ["%arg4", "%arg5"], I1, cmp("GT")),
            ("stablehlo.compare", ["%arg0", "%arg1"], I1, cmp("NE")),
            ("stablehlo.compare", ["%arg0", "%arg1"], I1, cmp("LT")),
            ("stablehlo.compare", ["%arg2", "%arg3"], I1, cmp("LT")),
            ("stablehlo.select", ["%2", "%3", "%4"], I1, {}),
            ("stablehlo.select", ["%0", "%1", "%5"], I1, {}),
        ],
        ["%6"],
    )
    assert sort_keys(r) == (
        SortKey(2, True, None),
        SortKey(0, False, None),
        SortKey(1, False, None),
    )
    # the same without the last tie-break is a two-key order; true on equal keys (LE
    # on the last key) is no strict order
    for last, want in [("LT", (SortKey(2, True, None), SortKey(0, False, None))), ("LE", None)]:
        r = region(
            [I64] * 6,
            [
                ("stablehlo.compare", ["%arg4", "%arg5"], I1, cmp("NE")),
                ("stablehlo.compare", ["%arg4", "%arg5"], I1, cmp("GT")),
                ("stablehlo.compare", ["%arg0", "%arg1"], I1, cmp(last)),
                ("stablehlo.select", ["%0", "%1", "%2"], I1, {}),
            ],
            ["%3"],
        )
        assert sort_keys(r) == want


# ---- end to end: the kernels read the summary ------------------------------------------

_ALL_REDUCE = """
func.func @main(%x: tensor<3xi64>) -> tensor<3xi64> {
  %r = "stablehlo.all_reduce"(%x) ({
    ^bb0(%a: tensor<i64>, %b: tensor<i64>):
      %0 = stablehlo.subtract BODY : tensor<i64>
      stablehlo.return %0 : tensor<i64>
  }) {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<3xi64>) -> tensor<3xi64>
  func.return %r : tensor<3xi64>
}
"""


@pytest.mark.parametrize("body", ["%a, %b", "%b, %a"])
def test_all_reduce_non_commutative_body_keeps_operand_order(body):
    """spec all_reduce: the schedule's in-order traversal is the group's processes in
    order, so two processes give ``body(x@0, x@1)``: ``x@0 - x@1`` for subtract(%a, %b),
    ``x@1 - x@0`` for subtract(%b, %a)."""
    x0, x1 = np.array([10, 20, 30]), np.array([1, 2, 7])
    out = engine.run(
        _ALL_REDUCE.replace("BODY", body), [[x0], [x1]], num_replicas=2, deadlock_timeout=20
    )
    want = (x0 - x1) if body == "%a, %b" else (x1 - x0)
    for per_process in out:
        assert np.asarray(per_process[0]).tolist() == want.tolist()


_SCATTER = """
func.func @main(%x: tensor<5xi64>, %i: tensor<2x1xi64>, %u: tensor<2xi64>) -> tensor<5xi64> {
  %r = "stablehlo.scatter"(%x, %i, %u) ({
    ^bb0(%cur: tensor<i64>, %upd: tensor<i64>):
      BODY
  }) {scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0],
      scatter_dims_to_operand_dims = [0], index_vector_dim = 1>,
      indices_are_sorted = false, unique_indices = false}
    : (tensor<5xi64>, tensor<2x1xi64>, tensor<2xi64>) -> tensor<5xi64>
  func.return %r : tensor<5xi64>
}
"""


@pytest.mark.parametrize(
    "body, want",
    [
        # spec scatter: results[i] = update_computation(results[i], updates[j])
        (
            "%0 = stablehlo.subtract %upd, %cur : tensor<i64>\n stablehlo.return %0 : tensor<i64>",
            [100, 1 - 101, 102, 2 - 103, 104],
        ),
        (
            "%0 = stablehlo.subtract %cur, %upd : tensor<i64>\n stablehlo.return %0 : tensor<i64>",
            [100, 101 - 1, 102, 103 - 2, 104],
        ),
        ("stablehlo.return %upd : tensor<i64>", [100, 1, 102, 2, 104]),
        ("stablehlo.return %cur : tensor<i64>", [100, 101, 102, 103, 104]),
    ],
)
def test_scatter_reads_the_operand_order_and_replace(body, want):
    x = np.arange(100, 105)
    (out,) = engine.run(_SCATTER.replace("BODY", body), [x, np.array([[1], [3]]), np.array([1, 2])])
    assert np.asarray(out).tolist() == want


def test_sort_with_three_keys_end_to_end():
    """A three-key comparator (k2 descending, then k0, then k1) sorts as Python's sorted
    by the tuple (-k2, k0, k1), stably."""
    text = """
func.func @main(%a: tensor<40xi64>, %b: tensor<40xi64>, %c: tensor<40xi64>)
    -> (tensor<40xi64>, tensor<40xi64>, tensor<40xi64>) {
  %r:3 = "stablehlo.sort"(%a, %b, %c) ({
    ^bb0(%a0: tensor<i64>, %a1: tensor<i64>, %b0: tensor<i64>, %b1: tensor<i64>,
         %c0: tensor<i64>, %c1: tensor<i64>):
      %0 = stablehlo.compare NE, %c0, %c1 : (tensor<i64>, tensor<i64>) -> tensor<i1>
      %1 = stablehlo.compare GT, %c0, %c1 : (tensor<i64>, tensor<i64>) -> tensor<i1>
      %2 = stablehlo.compare NE, %a0, %a1 : (tensor<i64>, tensor<i64>) -> tensor<i1>
      %3 = stablehlo.compare LT, %a0, %a1 : (tensor<i64>, tensor<i64>) -> tensor<i1>
      %4 = stablehlo.compare LT, %b0, %b1 : (tensor<i64>, tensor<i64>) -> tensor<i1>
      %5 = stablehlo.select %2, %3, %4 : tensor<i1>, tensor<i1>
      %6 = stablehlo.select %0, %1, %5 : tensor<i1>, tensor<i1>
      stablehlo.return %6 : tensor<i1>
  }) {dimension = 0 : i64, is_stable = true}
    : (tensor<40xi64>, tensor<40xi64>, tensor<40xi64>)
    -> (tensor<40xi64>, tensor<40xi64>, tensor<40xi64>)
  func.return %r#0, %r#1, %r#2 : tensor<40xi64>, tensor<40xi64>, tensor<40xi64>
}
"""
    rng = np.random.default_rng(5)
    a, b, c = (rng.integers(0, 3, 40) for _ in range(3))
    order = sorted(range(40), key=lambda j: (-c[j], a[j], b[j]))
    got = engine.run(text, [a, b, c])
    for g, x in zip(got, (a, b, c)):
        assert np.asarray(g).tolist() == x[order].tolist()


# ---- a single compare of the two arguments (select_and_scatter's select) ----------------


def test_compare_body_direction_in_argument_order():
    r = region([F32, F32], [("stablehlo.compare", ["%arg0", "%arg1"], I1, cmp("GE"))], ["%0"])
    assert summarize(r).compare == ("GE", None)
    # compare(b, a) LT is compare(a, b) GT
    r = region(
        [I64, I64], [("stablehlo.compare", ["%arg1", "%arg0"], I1, cmp("LT", "SIGNED"))], ["%0"]
    )
    assert summarize(r).compare == ("GT", "SIGNED")
    r = region([I64, I64], [("stablehlo.compare", ["%arg0", "%arg0"], I1, cmp("GE"))], ["%0"])
    assert summarize(r).compare is None
    r = region(
        [I64, I64],
        [
            ("stablehlo.compare", ["%arg0", "%arg1"], I1, cmp("GE")),
            ("stablehlo.not", ["%0"], I1, {}),
        ],
        ["%1"],
    )
    assert summarize(r).compare is None


_SELECT_AND_SCATTER = """
func.func @main(%x: tensor<256xi32>, %s: tensor<225xi32>) -> tensor<256xi32> {
  %init = stablehlo.constant dense<INIT> : tensor<i32>
  %r = "stablehlo.select_and_scatter"(%x, %s, %init) ({
    ^bb0(%a: tensor<i32>, %b: tensor<i32>):
      %0 = stablehlo.compare SELECT : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %0 : tensor<i1>
  }, {
    ^bb0(%a: tensor<i32>, %b: tensor<i32>):
      %0 = stablehlo.SCATTER %a, %b : tensor<i32>
      stablehlo.return %0 : tensor<i32>
  }) {window_dimensions = array<i64: 32>, window_strides = array<i64: 1>}
    : (tensor<256xi32>, tensor<225xi32>, tensor<i32>) -> tensor<256xi32>
  func.return %r : tensor<256xi32>
}
"""

_NP_CMP = {"GE": np.greater_equal, "GT": np.greater, "LE": np.less_equal, "LT": np.less}
_SCATTER_OPS = {
    "add": (0, lambda a, b: a + b),
    "multiply": (1, lambda a, b: a * b),
    "maximum": (-5, max),
    "subtract": (0, lambda a, b: a - b),
}


@pytest.mark.parametrize(
    "select, direction",
    [("GE, %a, %b", "GE"), ("LE, %b, %a", "GE"), ("GT, %b, %a", "LT"), ("LT, %a, %b", "LT")],
)
@pytest.mark.parametrize("scatter", list(_SCATTER_OPS))
def test_select_and_scatter_reads_the_compare_in_argument_order(select, direction, scatter):
    """spec select_and_scatter: in each window the scan keeps the current element while
    ``select(current, candidate)`` is true; the source value is combined (in source
    order) into the kept one, starting from ``init_value``.  Written here as that loop,
    for windows of 32 (the scan path's size)."""
    rng = np.random.default_rng(7)
    x = rng.integers(0, 6, 256).astype(np.int32)  # many ties: first vs last extreme
    s = rng.integers(1, 3, 225).astype(np.int32)
    init, op = _SCATTER_OPS[scatter]
    want = [init] * 256
    keep = _NP_CMP[direction]
    for w in range(225):
        cur = w
        for p in range(w + 1, w + 32):
            if not keep(x[cur], x[p]):
                cur = p
        want[cur] = op(want[cur], int(s[w]))
    text = _SELECT_AND_SCATTER.replace("SELECT", select).replace("SCATTER", scatter)
    (got,) = engine.run(text.replace("INIT", str(init)), [x, s])
    assert np.asarray(got).tolist() == np.array(want, np.int64).astype(np.int32).tolist()


def test_comparator_connectives_run_by_their_kernels():
    """Any elementwise op on i1 values joins compares (here not, xor with a constant
    true): not(a >= b) and xor(a >= b, true) are both a < b."""
    true = DenseElementsAttr(I1, np.array(True))
    r = region(
        [I64, I64],
        [
            ("stablehlo.compare", ["%arg0", "%arg1"], I1, cmp("GE")),
            ("stablehlo.not", ["%0"], I1, {}),
        ],
        ["%1"],
    )
    assert sort_keys(r) == (SortKey(0, False, None),)
    r = region(
        [I64, I64],
        [
            ("stablehlo.compare", ["%arg0", "%arg1"], I1, cmp("GE")),
            ("stablehlo.constant", [], I1, {"value": true}),
            ("stablehlo.xor", ["%0", "%1"], I1, {}),
        ],
        ["%2"],
    )
    assert sort_keys(r) == (SortKey(0, False, None),)
    # and(a < b, not(true)) is always false: every element equal
    r = region(
        [I64, I64],
        [
            ("stablehlo.compare", ["%arg0", "%arg1"], I1, cmp("LT")),
            ("stablehlo.constant", [], I1, {"value": true}),
            ("stablehlo.not", ["%1"], I1, {}),
            ("stablehlo.and", ["%0", "%2"], I1, {}),
        ],
        ["%3"],
    )
    assert sort_keys(r) == ()
    # a connective on non-boolean values is no formula
    r = region(
        [I64, I64],
        [
            ("stablehlo.compare", ["%arg0", "%arg1"], I1, cmp("LT")),
            ("stablehlo.convert", ["%0"], I64, {}),
            ("stablehlo.convert", ["%1"], I1, {}),
        ],
        ["%2"],
    )
    assert sort_keys(r) is None
