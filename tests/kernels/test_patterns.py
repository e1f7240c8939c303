"""engine.kernels.patterns: recognising reduction combiners and sort comparators."""

from __future__ import annotations

import numpy as np

import hlorun.engine.kernels  # noqa: F401  (fills the op table: key transforms run its kernels)
from hlorun import shape_inference  # noqa: F401
from hlorun.engine.kernels.patterns import SortKey, reduction_combiners, sort_keys
from hlorun.parser.ir import (
    Block,
    ComplexType,
    DenseElementsAttr,
    EnumAttr,
    FloatType,
    IntegerType,
    Operation,
    Region,
    TensorType,
    Value,
)

I1 = TensorType((), IntegerType(1))
I64 = TensorType((), IntegerType(64))
F32 = TensorType((), FloatType("f32"))


def region(args, ops, ret) -> Region:
    """ops: (name, operand names, result type, attributes dict); results are %0, %1..."""
    values = {f"%arg{i}": Value(f"%arg{i}", t) for i, t in enumerate(args)}
    operations = []
    for k, (name, operands, rtype, attrs) in enumerate(ops):
        res = Value(f"%{k}", rtype)
        operations.append(
            Operation(name, tuple(values[n] for n in operands), (res,), tuple(attrs.items()))
        )
        values[res.name] = res
    operations.append(Operation("stablehlo.return", tuple(values[n] for n in ret)))
    block = Block(tuple(values[f"%arg{i}"] for i in range(len(args))), tuple(operations))
    return Region((block,))


def cmp(direction, ctype=None):
    attrs = {"comparison_direction": EnumAttr("stablehlo", "comparison_direction", direction)}
    if ctype:
        attrs["compare_type"] = EnumAttr("stablehlo", "comparison_type", ctype)
    return attrs


def test_single_combiner():
    r = region([I64, I64], [("stablehlo.add", ["%arg0", "%arg1"], I64, {})], ["%0"])
    assert reduction_combiners(r) == ("stablehlo.add",)


def test_swapped_commutative_and_not_commutative():
    r = region([I64, I64], [("stablehlo.maximum", ["%arg1", "%arg0"], I64, {})], ["%0"])
    assert reduction_combiners(r) == ("stablehlo.maximum",)
    r = region([I64, I64], [("stablehlo.subtract", ["%arg1", "%arg0"], I64, {})], ["%0"])
    assert reduction_combiners(r) is None


def test_variadic_combiners():
    r = region(
        [I64, F32, I64, F32],
        [
            ("stablehlo.add", ["%arg0", "%arg2"], I64, {}),
            ("stablehlo.minimum", ["%arg1", "%arg3"], F32, {}),
        ],
        ["%0", "%1"],
    )
    assert reduction_combiners(r) == ("stablehlo.add", "stablehlo.minimum")


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
    assert reduction_combiners(r) is None


def test_sort_single_lt_gt():
    r = region(
        [F32, F32], [("stablehlo.compare", ["%arg0", "%arg1"], I1, cmp("LT", "TOTALORDER"))], ["%0"]
    )
    assert sort_keys(r, 1) == (SortKey(0, False, "TOTALORDER"),)
    r = region([I64, I64], [("stablehlo.compare", ["%arg0", "%arg1"], I1, cmp("GT"))], ["%0"])
    assert sort_keys(r, 1) == (SortKey(0, True, None),)
    # LT with swapped arguments is GT
    r = region(
        [I64, I64], [("stablehlo.compare", ["%arg1", "%arg0"], I1, cmp("LT", "SIGNED"))], ["%0"]
    )
    assert sort_keys(r, 1) == (SortKey(0, True, "SIGNED"),)


def test_sort_key_on_second_operand():
    r = region(
        [I64, I64, F32, F32], [("stablehlo.compare", ["%arg2", "%arg3"], I1, cmp("LT"))], ["%0"]
    )
    assert sort_keys(r, 2) == (SortKey(1, False, None),)


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
    assert sort_keys(r, 2) == (SortKey(0, False, "SIGNED"), SortKey(1, False, "TOTALORDER"))


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
    assert sort_keys(r, 2) == (SortKey(1, False, None), SortKey(0, True, None))


def test_sort_constant_false_means_all_equal():
    const = DenseElementsAttr(I1, np.array(False))
    r = region([I64, I64], [("stablehlo.constant", [], I1, {"value": const})], ["%0"])
    assert sort_keys(r, 1) == ()


def test_sort_not_recognised():
    # LE is not a strict order
    r = region([I64, I64], [("stablehlo.compare", ["%arg0", "%arg1"], I1, cmp("LE"))], ["%0"])
    assert sort_keys(r, 1) is None
    # a compare across different operands
    r = region(
        [I64, I64, I64, I64], [("stablehlo.compare", ["%arg0", "%arg3"], I1, cmp("LT"))], ["%0"]
    )
    assert sort_keys(r, 2) is None
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
    assert sort_keys(r, 1) is None
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
    assert sort_keys(r, 1) is None
    assert sort_keys(None, 1) is None


def test_sort_complex_keys_jax_style():
    c64 = TensorType((), ComplexType(FloatType("f32")))
    r = region(
        [c64, c64],
        [
            ("stablehlo.real", ["%arg0"], F32, {}),
            ("stablehlo.real", ["%arg1"], F32, {}),
            ("stablehlo.imag", ["%arg0"], F32, {}),
            ("stablehlo.imag", ["%arg1"], F32, {}),
            ("stablehlo.compare", ["%2", "%3"], I1, cmp("LT", "TOTALORDER")),
            ("stablehlo.compare", ["%0", "%1"], I1, cmp("EQ", "TOTALORDER")),
            ("stablehlo.and", ["%5", "%4"], I1, {}),
            ("stablehlo.compare", ["%0", "%1"], I1, cmp("LT", "TOTALORDER")),
            ("stablehlo.or", ["%7", "%6"], I1, {}),
        ],
        ["%8"],
    )
    assert sort_keys(r, 1) == (
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
    assert sort_keys(r, 1) is None


# ---- per-operand key transforms (sort_keys(..., transforms=True)) ---------------------


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
    assert sort_keys(r, 1) is None  # transforms are opt-in
    (key,) = sort_keys(r, 1, transforms=True)
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
    y, et = key.key_input(x, FloatType("f32"))
    assert et == FloatType("f32") and y.dtype == np.float32
    want = np.array([0, 0, 0x7FC00000, 0x7FC00000], np.uint32)
    assert y.view(np.uint32)[:4].tolist() == want.tolist()
    assert y[4:].tolist() == [1.5, -np.inf]
    (key,) = sort_keys(jax_region(direction="GT"), 1, transforms=True)
    assert key.descending and key.transform is not None


def test_sort_transform_identity_keys_stay_plain():
    # untransformed keys keep transform None, so kernels that ignore transforms still work
    r = region(
        [F32, F32], [("stablehlo.compare", ["%arg0", "%arg1"], I1, cmp("LT", "TOTALORDER"))], ["%0"]
    )
    assert sort_keys(r, 1, transforms=True) == (SortKey(0, False, "TOTALORDER"),)
    x = np.zeros(3, np.float32)
    assert sort_keys(r, 1, transforms=True)[0].key_input(x, F32.element_type)[0] is x


def test_sort_transform_must_match_on_both_sides():
    # a different NaN constant on the rhs: not the same transform of both arguments
    assert sort_keys(jax_region(nan_rhs=1.0), 1, transforms=True) is None
    # canonicalise only the lhs
    ops = jax_canonical_ops("%arg0", 0)
    ops.append(("stablehlo.compare", ["%5", "%arg1"], I1, cmp("LT", "TOTALORDER")))
    assert sort_keys(region([F32, F32], ops, ["%6"]), 1, transforms=True) is None


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
    (key,) = sort_keys(r, 1, transforms=True)
    assert key.transform.ops == ("stablehlo.abs",)
    assert key.key_input(np.array([-3, 2]), I64.element_type)[0].tolist() == [3, 2]
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
    assert sort_keys(r, 1, transforms=True) is None
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
    assert sort_keys(r, 2, transforms=True) is None


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
    assert sort_keys(r, 1, transforms=True) is None


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
    k0, k1 = sort_keys(r, 2, transforms=True)
    assert (k0.operand, k0.descending, k0.transform.ops) == (0, False, ("stablehlo.negate",))
    assert k1 == SortKey(1, True, "SIGNED")


def test_sort_keys_cached_per_region():
    r = jax_region()
    assert sort_keys(r, 1, transforms=True) is sort_keys(r, 1, transforms=True)
