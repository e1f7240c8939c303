"""engine.kernels.patterns: recognising reduction combiners and sort comparators."""

from __future__ import annotations

import numpy as np

from engine.kernels.patterns import SortKey, reduction_combiners, sort_keys
from parser.ir import (
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
    r = region([F32, F32], [("stablehlo.compare", ["%arg0", "%arg1"], I1, cmp("LT", "TOTALORDER"))], ["%0"])
    assert sort_keys(r, 1) == (SortKey(0, False, "TOTALORDER"),)
    r = region([I64, I64], [("stablehlo.compare", ["%arg0", "%arg1"], I1, cmp("GT"))], ["%0"])
    assert sort_keys(r, 1) == (SortKey(0, True, None),)
    # LT with swapped arguments is GT
    r = region([I64, I64], [("stablehlo.compare", ["%arg1", "%arg0"], I1, cmp("LT", "SIGNED"))], ["%0"])
    assert sort_keys(r, 1) == (SortKey(0, True, "SIGNED"),)


def test_sort_key_on_second_operand():
    r = region([I64, I64, F32, F32], [("stablehlo.compare", ["%arg2", "%arg3"], I1, cmp("LT"))], ["%0"])
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
    r = region([I64, I64, I64, I64], [("stablehlo.compare", ["%arg0", "%arg3"], I1, cmp("LT"))], ["%0"])
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
