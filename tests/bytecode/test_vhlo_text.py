"""VHLO types and attributes as text: MLIR's printed form parses and prints back.

Spellings are those of the CHECK lines of stablehlo ``stablehlo/tests/vhlo`` (what
``stablehlo-opt --mlir-print-op-generic`` prints) and the assembly formats of
``VhloTypes.td`` / ``VhloAttrs.td``.
"""

from __future__ import annotations

import pytest

from hlorun.parser.errors import ParseError
from hlorun.parser.grammar import parse_module
from hlorun.parser.ir import FloatType, IntegerType, TensorType
from hlorun.parser.printer import print_attribute, print_module, print_type
from hlorun.parser.vhlo.builtin_view import DYNAMIC, to_builtin
from hlorun.parser.vhlo.ir import VhloAttr, VhloType
from hlorun.parser.vhlo.text import (
    parse_vhlo_attr_text,
    parse_vhlo_type_text,
    print_vhlo_attr,
    print_vhlo_type,
)
from tests.bytecode.test_vhlo_codec import ATTRS, TYPES

F32 = VhloType("f32_v1")


@pytest.mark.parametrize("text", [t for _, t in ATTRS])
def test_attribute_text_roundtrips(text: str):
    a = parse_vhlo_attr_text(text)
    assert isinstance(a, VhloAttr)
    assert print_vhlo_attr(a) == text
    assert print_attribute(a) == text


@pytest.mark.parametrize("text", [t for _, t in TYPES])
def test_type_text_roundtrips(text: str):
    t = parse_vhlo_type_text(text)
    assert isinstance(t, VhloType)
    assert print_vhlo_type(t) == text
    assert print_type(t) == text


def test_values_follow_the_ir_conventions():
    t = parse_vhlo_type_text("!vhlo.tensor_v1<2x?x!vhlo.f32_v1>")
    assert t == VhloType("tensor_v1", ((2, DYNAMIC), F32, None))
    i = parse_vhlo_attr_text("#vhlo.integer_v1<-1 : i64>")
    assert i == VhloAttr("integer_v1", (VhloType("i64_v1"), 2**64 - 1))  # APInt bit pattern
    f = parse_vhlo_attr_text("#vhlo.float_v1<1.000000e+00 : !vhlo.f32_v1>")
    assert f == VhloAttr("float_v1", (F32, 0x3F800000))  # APFloat bit pattern
    e = parse_vhlo_attr_text("#vhlo<comparison_direction_v1 GE>")
    assert e == VhloAttr("comparison_direction_v1", ("GE",))
    q = parse_vhlo_type_text(
        "!vhlo.quant_v1<!vhlo.i8_v1:!vhlo.f32_v1, 1.000000e+00:0, -128:127, 1>"
    )
    assert q.params == (1, VhloType("i8_v1"), F32, 0x3FF0000000000000, 0, -128, 127)
    ax = parse_vhlo_attr_text('#vhlo.axis_ref_v1<name = #vhlo.string_v1<"y">>')
    assert ax.params == (VhloAttr("string_v1", ("y",)), None)  # absent optional parameter


def test_integer_attribute_prints_through_the_builtin_type():
    """IntegerV1Attr::print: ``IntegerAttr(convertTypeToBuiltinForPrint(type), value)``."""
    for text in (
        "#vhlo.integer_v1<0 : i32>",
        "#vhlo.integer_v1<18446744073709551615 : ui64>",
        "#vhlo.integer_v1<-9223372036854775808 : i64>",
        "#vhlo.integer_v1<-2 : i2>",
    ):
        assert print_vhlo_attr(parse_vhlo_attr_text(text)) == text


def test_tensor_attribute_keeps_a_vhlo_encoding_in_its_builtin_type():
    text = (
        "#vhlo.tensor_v1<dense<1.000000e+00> : tensor<2xf32, "
        "#vhlo.type_extensions_v1<bounds = [?]>>>"
    )
    a = parse_vhlo_attr_text(text)
    assert a.params[0].params[2] == VhloAttr("type_extensions_v1", ((DYNAMIC,),))
    assert print_vhlo_attr(a) == text


def test_builtin_view_of_vhlo_types():
    t = parse_vhlo_type_text("!vhlo.tensor_v1<3x!vhlo.ui8_v1>")
    assert to_builtin(t) == TensorType((3,), IntegerType(8, "unsigned"))
    assert to_builtin(VhloType("tf31_v1")) == FloatType("tf32")


@pytest.mark.parametrize(
    "bad",
    [
        "!vhlo.nope_v1",
        "!vhlo.tensor_v1<2x!vhlo.f32_v1",
        "!vhlo.func_v1<!vhlo.f32_v1>",
        "!vhlo.quant_v1<!vhlo.i8_v1:!vhlo.f32_v1, x:0, -128:127, 1>",
    ],
)
def test_bad_types_are_parse_errors(bad: str):
    with pytest.raises(ParseError):
        parse_vhlo_type_text(bad)


@pytest.mark.parametrize(
    "bad",
    [
        "#vhlo<comparison_direction_v1 XX>",
        "#vhlo<nope_v1 EQ>",
        "#vhlo.bool_v1<1>",
        "#vhlo.integer_v1<1>",
        "#vhlo.sub_axis_info_v1<pre_size = 1>",
        "#vhlo.sub_axis_info_v1<pre_size = 1, pre_size = 1, size = 2>",
        "#vhlo.output_operand_alias_v1<outputTupleIndices = [], operandIndex = 0, bogus = 1>",
        '#vhlo.string_v1<"a"',
        "#vhlo.nope_v1<1>",
        "#vhlo.comparison_direction_v1<EQ>",
        "#vhlo<nope_v1<1>>",
        "#vhlo.integer_v1<1 : i7>",
        "#vhlo.tensor_v1<dense<1> : tensor<2xi7>>",
    ],
)
def test_bad_attributes_are_parse_errors(bad: str):
    with pytest.raises(ParseError):
        parse_vhlo_attr_text(bad)


GENERIC = """module {
  "vhlo.func_v1"() <{arg_attrs = #vhlo.array_v1<[]>, function_type = #vhlo.type_v1<!vhlo.func_v1<(!vhlo.tensor_v1<!vhlo.f32_v1>, !vhlo.tensor_v1<!vhlo.f32_v1>) -> !vhlo.tensor_v1<!vhlo.bool_v1>>>, res_attrs = #vhlo.array_v1<[]>, sym_name = #vhlo.string_v1<"main">, sym_visibility = #vhlo.string_v1<"">}> ({
  ^bb0(%arg0: !vhlo.tensor_v1<!vhlo.f32_v1>, %arg1: !vhlo.tensor_v1<!vhlo.f32_v1>):
    %0 = "vhlo.compare_v1"(%arg0, %arg1) <{compare_type = #vhlo<comparison_type_v1 NOTYPE>, comparison_direction = #vhlo<comparison_direction_v1 EQ>}> : (!vhlo.tensor_v1<!vhlo.f32_v1>, !vhlo.tensor_v1<!vhlo.f32_v1>) -> !vhlo.tensor_v1<!vhlo.bool_v1>
    "vhlo.return_v1"(%0) : (!vhlo.tensor_v1<!vhlo.bool_v1>) -> ()
  }) : () -> ()
}
"""


def test_vhlo_module_parses_into_vhlo_values_and_prints_back():
    m = parse_module(GENERIC)
    func = m.body[0]
    assert func.attr("sym_name") == VhloAttr("string_v1", ("main",))
    cmp_op = func.regions[0].entry.operations[0]
    assert cmp_op.attr("comparison_direction") == VhloAttr("comparison_direction_v1", ("EQ",))
    assert cmp_op.results[0].type == VhloType("tensor_v1", ((), VhloType("bool_v1"), None))
    assert parse_module(print_module(m)) == m


def test_opaque_dialect_spelling_is_the_same_attribute():
    """``#vhlo<integer_v1<...>>`` is MLIR's other spelling of ``#vhlo.integer_v1<...>``."""
    a = parse_vhlo_attr_text("#vhlo<integer_v1<3 : i32>>")
    assert a == parse_vhlo_attr_text("#vhlo.integer_v1<3 : i32>")
