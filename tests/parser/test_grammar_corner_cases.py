"""Corners of the text grammar: hex float literals in ``array<...>``, block-argument
locations in the pretty ``stablehlo.reduce``, attribute dictionaries before the operands
(``optimization_barrier``), parse-time errors of StableHLO's attribute and type parsers,
the hex-blob fast path, and ``parser.print_module`` options.

Expected values come from MLIR's / StableHLO's syntax and semantics (LangRef,
StablehloOps.td assembly formats, the attribute verifiers), computed independently here
(``struct`` for bit patterns), never copied from our own output.
"""

from __future__ import annotations

import math
import re
import struct

import numpy as np
import pytest

from hlorun import parser as hlo_parser
from hlorun.parser.errors import ParseError
from hlorun.parser.grammar import parse_module
from hlorun.parser.ir import (
    DenseArrayAttr,
    DenseElementsAttr,
    DotDimensionNumbers,
    FloatType,
    GatherDimensionNumbers,
    LocationAttr,
    OpaqueType,
    Operation,
    TensorType,
    Value,
)
from hlorun.parser.printer import print_module


def attr(attr_text: str):
    """The attribute ``a`` of a generic op carrying it."""
    m = parse_module(f'"test.op"() {{a = {attr_text}}} : () -> ()')
    return m.body[0].attr("a")


def f32_bits(x: float) -> int:
    return struct.unpack("<I", struct.pack("<f", x))[0]


def f32_from_bits(b: int) -> float:
    return struct.unpack("<f", struct.pack("<I", b))[0]


def f16_from_bits(b: int) -> float:
    return struct.unpack("<e", struct.pack("<H", b))[0]


# ---- 1. array<f32: 0x...>: a hex literal is the element's bit pattern ---------------------


def test_dense_array_f32_hex_is_bit_pattern():
    a = attr("array<f32: 0x3F800000, 0x40490FDB, 0xFF800000>")
    assert isinstance(a, DenseArrayAttr) and a.element_type == FloatType("f32")
    assert a.values == (1.0, f32_from_bits(0x40490FDB), -math.inf)


def test_dense_array_f32_hex_nan_keeps_its_bits():
    (v,) = attr("array<f32: 0x7FC00000>").values
    assert math.isnan(v)
    assert f32_bits(v) == 0x7FC00000  # not the number 2143289344.0


def test_dense_array_narrow_and_wide_float_hex():
    assert attr("array<f16: 0x3C00, 0x7BFF>").values == (1.0, f16_from_bits(0x7BFF))
    # bf16 is the top half of an f32
    assert attr("array<bf16: 0x3FC0, 0xC040>").values == (
        f32_from_bits(0x3FC00000),
        f32_from_bits(0xC0400000),
    )
    assert attr("array<f64: 0x400921FB54442D18>").values == (math.pi,)


def test_tf32_hex_literals_are_19_bit_patterns():
    # tf32: 1 sign, 8 exponent, 10 mantissa bits (MLIR's APFloat FloatTF32 semantics)
    assert attr("array<tf32: 0x3FC00, 0x1FE00>").values == (math.inf, 1.5)
    assert attr("0x1FE00 : tf32").value == 1.5
    np.testing.assert_array_equal(
        attr("dense<[0x3FC00, 0x20000]> : tensor<2xtf32>").array,
        np.array([math.inf, 2.0], dtype=np.float32),
    )
    with pytest.raises(ParseError):
        attr("0x7F800000 : tf32")  # an f32 pattern does not fit in 19 bits


def test_dense_array_float_decimals_unchanged():
    assert attr("array<f32: 1.5, -2, 3>").values == (1.5, -2.0, 3.0)
    assert attr("array<f32: 0.1>").values == (f32_from_bits(f32_bits(0.1)),)


@pytest.mark.parametrize(
    "text",
    [
        "array<f32: -0x3F800000>",  # a hex float literal takes no sign
        "array<f16: 0x10000>",  # wider than the element type
        "array<f32: 0x1FFFFFFFF>",
    ],
)
def test_dense_array_bad_hex_float_literals(text):
    with pytest.raises(ParseError):
        attr(text)


def test_dense_array_integer_hex_still_integers():
    assert attr("array<i32: 0x10, -0x1>").values == (16, -1)


# ---- 2. reducer(%a: t loc(...), ...) keeps the block argument locations --------------------

_REDUCE_PRETTY = """
func.func @main(%x: tensor<1x6xi64>, %y: tensor<i64>) -> tensor<1xi64> {
  %0 = stablehlo.reduce(%x init: %y) across dimensions = [1] : (tensor<1x6xi64>, tensor<i64>) -> tensor<1xi64>
   reducer(%a: tensor<i64> loc("a.py":1:2), %b: tensor<i64> loc("b.py":3:4)) {
    %1 = stablehlo.add %a, %b : tensor<i64>
    stablehlo.return %1 : tensor<i64>
  }
  func.return %0 : tensor<1xi64>
}
"""

_REDUCE_GENERIC = """
func.func @main(%x: tensor<1x6xi64>, %y: tensor<i64>) -> tensor<1xi64> {
  %0 = "stablehlo.reduce"(%x, %y) ({
  ^bb0(%a: tensor<i64> loc("a.py":1:2), %b: tensor<i64> loc("b.py":3:4)):
    %1 = stablehlo.add %a, %b : tensor<i64>
    stablehlo.return %1 : tensor<i64>
  }) {dimensions = array<i64: 1>} : (tensor<1x6xi64>, tensor<i64>) -> tensor<1xi64>
  func.return %0 : tensor<1xi64>
}
"""


def _reduce_op(text: str) -> Operation:
    return parse_module(text).body[0].body.entry.operations[0]


def test_reduce_reducer_block_argument_locations():
    op = _reduce_op(_REDUCE_PRETTY)
    block = op.regions[0].blocks[0]
    assert block.arg_locations == (LocationAttr('"a.py":1:2'), LocationAttr('"b.py":3:4'))


def test_reduce_reducer_locations_same_as_generic_form():
    assert _reduce_op(_REDUCE_PRETTY) == _reduce_op(_REDUCE_GENERIC)


def test_reduce_two_inputs_locations_follow_block_argument_order():
    text = """
func.func @main(%x: tensor<4xf32>, %i: tensor<4xi32>, %y: tensor<f32>, %j: tensor<i32>) -> (tensor<f32>, tensor<i32>) {
  %0:2 = stablehlo.reduce(%x init: %y), (%i init: %j) across dimensions = [0] : (tensor<4xf32>, tensor<4xi32>, tensor<f32>, tensor<i32>) -> (tensor<f32>, tensor<i32>)
   reducer(%a0: tensor<f32> loc("a0"), %b0: tensor<f32> loc("b0")) (%a1: tensor<i32>, %b1: tensor<i32> loc("b1")) {
    stablehlo.return %a0, %a1 : tensor<f32>, tensor<i32>
  }
  func.return %0#0, %0#1 : tensor<f32>, tensor<i32>
}
"""
    block = _reduce_op(text).regions[0].blocks[0]
    # region arguments: the first of each pair, then the second of each pair
    assert [v.name for v in block.arguments] == ["%a0", "%a1", "%b0", "%b1"]
    assert block.arg_locations == (
        LocationAttr('"a0"'),
        None,
        LocationAttr('"b0"'),
        LocationAttr('"b1"'),
    )


def test_reduce_reducer_without_locations_has_none():
    text = _REDUCE_PRETTY.replace(' loc("a.py":1:2)', "").replace(' loc("b.py":3:4)', "")
    assert _reduce_op(text).regions[0].blocks[0].arg_locations == ()


# ---- 3. attr-dict before the operands: optimization_barrier ---------------------------------

_T = TensorType((4,), FloatType("f32"))


def _body_ops(text: str) -> tuple[Operation, ...]:
    return parse_module(text).body[0].body.entry.operations


def test_optimization_barrier_attr_dict_first():
    # StablehloOps.td: attr-dict ($operand^ `:` custom<PairwiseOpType>(...)):(`(` `)`)?
    pretty = _body_ops("""
func.func @f(%arg0: tensor<4xf32>) {
  %0 = stablehlo.optimization_barrier {foo = 1 : i32} %arg0 : tensor<4xf32>
  %1:2 = stablehlo.optimization_barrier {bar} %0, %arg0 : tensor<4xf32>, tensor<4xf32>
  stablehlo.optimization_barrier {baz = "x"}()
  func.return
}""")
    generic = _body_ops("""
func.func @f(%arg0: tensor<4xf32>) {
  %0 = "stablehlo.optimization_barrier"(%arg0) {foo = 1 : i32} : (tensor<4xf32>) -> tensor<4xf32>
  %1:2 = "stablehlo.optimization_barrier"(%0, %arg0) {bar} : (tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
  "stablehlo.optimization_barrier"() {baz = "x"} : () -> ()
  func.return
}""")
    assert pretty == generic
    assert pretty[0].operands == (Value("%arg0", _T),)
    assert pretty[0].results == (Value("%0", _T),)
    assert [k for k, _ in pretty[1].attributes] == ["bar"]


def test_optimization_barrier_empty_parens_with_space_after_dict():
    ops = _body_ops("""
func.func @f() {
  stablehlo.optimization_barrier {a} ()
  func.return
}""")
    assert ops[0].name == "stablehlo.optimization_barrier" and not ops[0].operands
    assert [k for k, _ in ops[0].attributes] == ["a"]


def test_printer_writes_attr_dict_first_for_optimization_barrier():
    src = """func.func @f(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "stablehlo.optimization_barrier"(%arg0) {foo = 1 : i32} : (tensor<4xf32>) -> tensor<4xf32>
  "stablehlo.optimization_barrier"() {bar} : () -> ()
  func.return %0 : tensor<4xf32>
}"""
    m = parse_module(src)
    text = print_module(m)
    # the lines stablehlo-opt writes for these ops (attr-dict, then the operands, or `()`
    # straight after the dictionary, as MLIR's generated printer puts no space before `(`)
    assert "  %0 = stablehlo.optimization_barrier {foo = 1 : i32} %arg0 : tensor<4xf32>\n" in text
    assert "  stablehlo.optimization_barrier {bar}()\n" in text
    assert parse_module(text) == m


@pytest.mark.parametrize(
    "line",
    [
        "%0 = stablehlo.create_token {a = 1 : i32} : !stablehlo.token",
        "%0 = stablehlo.replica_id {a = 1 : i32} : tensor<ui32>",
        "%0 = stablehlo.partition_id {a = 1 : i32} : tensor<ui32>",
        "%0 = stablehlo.constant {a = 1 : i32} dense<[-2, 4]> : tensor<2xi64>",
        "%0 = stablehlo.after_all {a = 1 : i32} : !stablehlo.token",
    ],
)
def test_other_attr_dict_first_forms_parse_and_print_back(line):
    src = f"func.func @f() {{\n  {line}\n  func.return\n}}"
    m = parse_module(src)
    op = m.body[0].body.entry.operations[0]
    assert dict(op.attributes)["a"].value == 1
    text = print_module(m)
    assert parse_module(text) == m
    assert f"  {line}\n" in text  # printed in that same pretty form


# ---- 4. errors MLIR's attribute / type parsers raise ------------------------------------------


def _module_attr(text: str):
    return parse_module(f"module attributes {{x = {text}}} {{}}")


@pytest.mark.parametrize(
    "text, key",
    [
        ("#stablehlo.scatter<index_vector_dim = 1, index_vector_dim = 1>", "index_vector_dim"),
        (
            "#stablehlo.gather<collapsed_slice_dims = [0], collapsed_slice_dims = [0]>",
            "collapsed_slice_dims",
        ),
        (
            "#stablehlo.dot<rhs_batching_dimensions = [1], rhs_batching_dimensions = [3]>",
            "rhs_batching_dimensions",
        ),
        ("#stablehlo.channel_handle<handle = 1, handle = 2, type = 0>", "handle"),
    ],
)
def test_duplicated_struct_entry(text, key):
    with pytest.raises(ParseError, match=re.escape(f"duplicated `{key}` entry")):
        _module_attr(text)


def test_duplicated_entry_reported_at_the_repeated_key():
    text = (
        "module attributes {\n x = #stablehlo.dot<\n  lhs_batching_dimensions = [0],\n"
        "  lhs_batching_dimensions = [0]\n >} {}"
    )
    with pytest.raises(ParseError) as info:
        parse_module(text, "t.mlir")
    assert str(info.value).startswith("t.mlir:4:3: error: duplicated")


def test_unknown_dot_key_lists_the_expected_ones_at_the_key():
    text = "module attributes {\n x = #stablehlo.dot<\n  lhs_batching_dimensions = [0],\n  foo = [0]>\n} {}"
    with pytest.raises(ParseError) as info:
        parse_module(text, "t.mlir")
    msg = str(info.value)
    assert msg.startswith(
        "t.mlir:4:3: error: expected one of: `lhs_batching_dimensions`, "
        "`rhs_batching_dimensions`, `lhs_contracting_dimensions`, "
        "`rhs_contracting_dimensions`"
    )


def test_struct_attributes_in_any_order_with_trailing_comma_still_parse():
    m = _module_attr(
        "#stablehlo.dot<rhs_batching_dimensions = [1], rhs_contracting_dimensions "
        "= [3], lhs_contracting_dimensions = [2], lhs_batching_dimensions = [0],>"
    )
    assert dict(m.attributes)["x"] == DotDimensionNumbers((0,), (1,), (2,), (3,))
    m = _module_attr("#stablehlo.gather<>")
    assert dict(m.attributes)["x"] == GatherDimensionNumbers()


def test_unknown_stablehlo_type():
    with pytest.raises(ParseError, match="unknown stablehlo type: foobar"):
        parse_module("func.func private @f() -> !stablehlo.foobar")


def test_known_stablehlo_types_still_parse():
    m = parse_module("func.func private @f(%a: !stablehlo.token) -> !stablehlo.future<tensor<f32>>")
    res = m.body[0].type.results[0]
    assert isinstance(res, OpaqueType) and res.text == "!stablehlo.future<tensor<f32>>"
    # other dialects' types stay opaque
    assert isinstance(
        parse_module("func.func private @g() -> !foo.bar").body[0].type.results[0], OpaqueType
    )


_ALGO = (
    "#stablehlo.dot_algorithm<lhs_precision_type = {l}, rhs_precision_type = {r}, "
    "accumulation_type = {acc}, lhs_component_count = {lc}, rhs_component_count = {rc}, "
    "num_primitive_operations = {n}, allow_imprecise_accumulation = false>"
)


def _algo(l="tf32", r="tf32", acc="f32", lc=1, rc=1, n=1) -> str:
    return _ALGO.format(l=l, r=r, acc=acc, lc=lc, rc=rc, n=n)


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"lc": -1}, "lhs component count must be positive"),
        ({"rc": 0}, "rhs component count must be positive"),
        ({"n": 0}, "num primitive operations must be positive"),
        ({"l": "i8", "r": "f32"}, "dot algorithm not known to be supported on any hardware"),
        ({"l": "f32", "r": "i8"}, "dot algorithm not known to be supported on any hardware"),
        (
            {"l": "f32", "r": "f32", "acc": "i8"},
            "dot algorithm not known to be supported on any hardware",
        ),
    ],
)
def test_dot_algorithm_verified_when_parsed(kwargs, message):
    text = (
        "func.func @f(%a: tensor<2x2xf32>, %b: tensor<2x2xf32>) -> tensor<2x2xf32> {\n"
        '  %0 = "stablehlo.dot_general"(%a, %b) <{\n'
        "    dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [1], "
        "rhs_contracting_dimensions = [0]>,\n"
        f"    algorithm = {_algo(**kwargs)}\n"
        "  }> : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>\n"
        "  func.return %0 : tensor<2x2xf32>\n}"
    )
    with pytest.raises(ParseError) as info:
        parse_module(text, "t.mlir")
    # reported where the attribute stands (line 4), as MLIR does
    assert str(info.value).startswith(f"t.mlir:4:17: error: {message}")


def test_valid_dot_algorithms_still_parse():
    for kw in ({}, {"l": "bf16", "r": "bf16", "n": 6}, {"l": "f8E5M2", "r": "f8E4M3FN"}):
        assert attr(_algo(**kw)).num_primitive_operations == kw.get("n", 1)


def test_result_accuracy_highest_needs_zero_tolerances():
    bad = (
        "#stablehlo.result_accuracy<atol = 1.0, rtol = 0.0, ulps = 4, "
        "mode = #stablehlo.result_accuracy_mode<HIGHEST>>"
    )
    with pytest.raises(
        ParseError,
        match="Invalid tolerances for ResultAccuracyAttr with mode HIGHEST, must be all zero.",
    ):
        attr(bad)
    for ok in (
        "#stablehlo.result_accuracy<atol = 0.0, rtol = 0.0, ulps = 0, "
        "mode = #stablehlo.result_accuracy_mode<HIGHEST>>",
        "#stablehlo.result_accuracy<mode = #stablehlo.result_accuracy_mode<HIGHEST>>",
        "#stablehlo.result_accuracy<atol = 1.0e-5, rtol = 1.0e-4, ulps = 2, "
        "mode = #stablehlo.result_accuracy_mode<TOLERANCE>>",
    ):
        attr(ok)


# ---- 5. the hex-blob fast path gives what the slow path gave ----------------------------------


def test_hex_blob_fast_path_values():
    a = attr('dense<"0x0000803F000000C0"> : tensor<2xf32>')
    assert isinstance(a, DenseElementsAttr) and a.hex
    np.testing.assert_array_equal(a.array, np.array([1.0, -2.0], dtype=np.float32))
    splat = attr('dense<"0x0000803F"> : tensor<3xf32>').array
    np.testing.assert_array_equal(splat, np.ones(3, dtype=np.float32))


@pytest.mark.parametrize(
    "text",
    [
        'dense<"0x0000 803F"> : tensor<f32>',  # bytes.fromhex would skip the blank: MLIR does not
        'dense<"0x0000803G"> : tensor<f32>',
        'dense<"0x0000803"> : tensor<f32>',
        'dense<"0x0000803F"> : tensor<?xf32>',  # a dense literal needs a static shape
        'dense<"0x0000803F0000803F"> : tensor<3xf32>',
        'dense<"0x0000803F">',  # no type
    ],
)
def test_hex_blob_errors(text):
    with pytest.raises(ParseError):
        attr(text)


def test_error_position_after_a_long_hex_line():
    blob = "00" * 4000
    text = (
        f'"test.op"() {{a = dense<"0x{blob}"> : tensor<1000xf32>}} : () -> ()\n'
        '"test.op"() {a = dense<"0x00"> : tensor<3xf32>} : () -> ()\n'
    )
    with pytest.raises(ParseError) as info:
        parse_module(text, "t.mlir")
    assert str(info.value).startswith("t.mlir:2:")


# ---- 6. parser.print_module passes options to the printer -------------------------------------


def test_print_module_passes_hex_above():
    m = parse_module(
        "func.func @f() {\n"
        "  %0 = stablehlo.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>\n"
        "  func.return\n}"
    )
    blob = struct.pack("<3f", 1.0, 2.0, 3.0).hex().upper()
    assert f'dense<"0x{blob}"> : tensor<3xf32>' in hlo_parser.print_module(m, hex_above=2)
    assert "dense<[1.000000e+00, 2.000000e+00, 3.000000e+00]>" in hlo_parser.print_module(m)
