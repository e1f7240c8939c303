"""The parser on every construct of MLIR's syntax that StableHLO programs use.

Expected values are written from MLIR's LangRef / builtin dialect docs and the StableHLO
spec, never from our own output.
"""

from __future__ import annotations

import math
import struct
from decimal import Decimal

import ml_dtypes
import numpy as np
import pytest

from hlorun.parser.errors import ParseError
from hlorun.parser.grammar import parse_module
from hlorun.parser.ir import (
    ArrayAttr,
    BoolAttr,
    ChannelHandle,
    ComplexType,
    DenseArrayAttr,
    DenseElementsAttr,
    DenseResourceAttr,
    DialectAttr,
    DictionaryAttr,
    DotAlgorithm,
    DotDimensionNumbers,
    EnumAttr,
    FloatAttr,
    FloatType,
    FunctionType,
    GatherDimensionNumbers,
    IndexType,
    IntegerAttr,
    IntegerType,
    LocationAttr,
    OpaqueAttr,
    OpaqueType,
    OutputOperandAlias,
    QuantizedType,
    ResultAccuracy,
    ScatterDimensionNumbers,
    StringAttr,
    SymbolRefAttr,
    TensorType,
    TokenType,
    TupleType,
    TypeAttr,
    TypeExtensions,
    UnitAttr,
)

I64 = IntegerType(64)
F32 = FloatType("f32")


def arg_type(type_text: str):
    m = parse_module(f"func.func @f(%x: {type_text}) {{\n  func.return\n}}")
    return m.body[0].type.inputs[0]


def attr(attr_text: str):
    """The attribute ``a`` of a generic op carrying it."""
    m = parse_module(f'"test.op"() {{a = {attr_text}}} : () -> ()')
    return m.body[0].attr("a")


def dense(body: str, type_text: str) -> np.ndarray:
    a = attr(f"dense<{body}> : {type_text}")
    assert isinstance(a, DenseElementsAttr)
    return a.array


# ---- types ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "name",
    [
        "f4E2M1FN",
        "f6E2M3FN",
        "f6E3M2FN",
        "f8E3M4",
        "f8E4M3",
        "f8E4M3FN",
        "f8E4M3FNUZ",
        "f8E4M3B11FNUZ",
        "f8E5M2",
        "f8E5M2FNUZ",
        "f8E8M0FNU",
        "bf16",
        "f16",
        "f32",
        "f64",
        "tf32",
    ],
)
def test_float_element_types(name):
    assert arg_type(f"tensor<2x{name}>") == TensorType((2,), FloatType(name))


@pytest.mark.parametrize(
    "text,width,sign",
    [
        ("i1", 1, "signless"),
        ("i2", 2, "signless"),
        ("i4", 4, "signless"),
        ("si8", 8, "signed"),
        ("ui16", 16, "unsigned"),
        ("i64", 64, "signless"),
    ],
)
def test_integer_element_types(text, width, sign):
    assert arg_type(f"tensor<{text}>") == TensorType((), IntegerType(width, sign))


def test_shapes_dynamic_and_unranked():
    assert arg_type("tensor<4x?x0xf32>") == TensorType((4, None, 0), F32)
    assert arg_type("tensor<*xf32>") == TensorType(None, F32)
    assert arg_type("tensor<index>") == TensorType((), IndexType())


def test_bounds_encoding():
    t = arg_type("tensor<?x4xf32, #stablehlo.bounds<8, ?>>")
    assert t.shape == (None, 4)
    assert t.encoding == TypeExtensions((8, None), "bounds")
    assert t.bounds == (8, None)
    t2 = arg_type("tensor<?xf32, #stablehlo.type_extensions<bounds = [3]>>")
    assert t2.encoding == TypeExtensions((3,), "type_extensions")


def test_complex_tuple_token_function_types():
    assert arg_type("tensor<2xcomplex<f64>>").element_type == ComplexType(FloatType("f64"))
    assert arg_type("tuple<tensor<i32>, tuple<>>") == TupleType(
        (TensorType((), IntegerType(32)), TupleType(()))
    )
    assert arg_type("!stablehlo.token") == TokenType()
    m = parse_module('"test.op"() {t = (tensor<f32>, i32) -> (f64)} : () -> ()')
    assert m.body[0].attr("t") == TypeAttr(
        FunctionType((TensorType((), F32), IntegerType(32)), (FloatType("f64"),))
    )


def test_quantized_per_tensor_and_per_axis():
    t = arg_type("tensor<2x!quant.uniform<i8:f32, 2.0:15>>")
    assert t.element_type == QuantizedType(IntegerType(8), F32, (2.0,), (15,))
    t = arg_type("tensor<2x!quant.uniform<i8<-127:127>:f32:1, {0.1:-30, 0.5:-20}>>")
    q = t.element_type
    assert q.quantized_dimension == 1 and q.scales == (0.1, 0.5) and q.zero_points == (-30, -20)
    assert (q.storage_min, q.storage_max) == (-127, 127)
    q = arg_type("tensor<!quant.uniform<ui8:f32, 1.0e-2>>").element_type
    assert q.storage_type == IntegerType(8, "unsigned") and q.zero_points == (0,)


def test_other_dialect_types_are_opaque():
    t = arg_type("!mydialect.tensor_v1<2x!mydialect.f32_v1>")
    assert t == OpaqueType("!mydialect.tensor_v1<2x!mydialect.f32_v1>")


def test_vhlo_types_parse_into_vhlo_types():
    from hlorun.parser.vhlo.ir import VhloType

    t = arg_type("!vhlo.tensor_v1<2x!vhlo.f32_v1>")
    assert t == VhloType("tensor_v1", ((2,), VhloType("f32_v1"), None))


def test_type_alias():
    m = parse_module("!t = tensor<4xf32>\nfunc.func @f(%x: !t) {\n  func.return\n}")
    assert m.body[0].type.inputs[0] == TensorType((4,), F32)
    assert m.aliases == (("!t", TensorType((4,), F32)),)


# ---- dense<...> ----------------------------------------------------------------------------


def test_dense_nested_list():
    a = dense("[[1, 2], [3, 4]]", "tensor<2x2xi32>")
    assert a.dtype == np.int32 and a.tolist() == [[1, 2], [3, 4]]


def test_dense_splat_is_stored_full_shape():
    a = attr("dense<7> : tensor<2x3xi64>")
    assert a.array.shape == (2, 3) and (a.array == 7).all() and a.is_splat


def test_dense_bool_and_complex():
    assert dense("[true, false]", "tensor<2xi1>").tolist() == [True, False]
    z = dense("[(1.0, 2.0), (-0.5, 0.0)]", "tensor<2xcomplex<f32>>")
    assert z.dtype == np.complex64 and z.tolist() == [1 + 2j, -0.5 + 0j]
    assert dense("(1.5, -2.0)", "tensor<2xcomplex<f64>>").tolist() == [1.5 - 2j, 1.5 - 2j]


def test_dense_hex_blob_is_little_endian_storage():
    a = attr('dense<"0x0000803F00000040"> : tensor<2xf32>')
    assert a.hex and a.array.tolist() == [1.0, 2.0]
    b = dense('"0x0100000002000000"', "tensor<2xi32>")
    assert b.tolist() == [1, 2]


def test_dense_hex_blob_splat():
    a = dense('"0x0000803F"', "tensor<3xf32>")
    assert a.tolist() == [1.0, 1.0, 1.0]


def test_dense_hex_blob_i1_and_int4_one_byte_per_element():
    assert dense('"0x010001"', "tensor<3xi1>").tolist() == [True, False, True]
    a = dense('"0x0F0807"', "tensor<3xi4>")
    assert a.dtype == ml_dtypes.int4 and a.astype(np.int8).tolist() == [-1, -8, 7]
    u = dense('"0x0F0807"', "tensor<3xui4>")
    assert u.astype(np.int8).tolist() == [15, 8, 7]


def test_dense_hex_blob_wrong_size_is_an_error():
    with pytest.raises(ParseError, match="hex blob"):
        attr('dense<"0x000080">: tensor<2xf32>')


def test_dense_hex_float_bit_patterns_in_lists():
    a = dense("[0x7FC00000, 1.0, 0x7F800000, 0xFF800000]", "tensor<4xf32>")
    assert math.isnan(a[0]) and a[1] == 1.0 and a[2] == math.inf and a[3] == -math.inf
    assert a.view(np.uint32)[0] == 0x7FC00000
    b = dense("0x7FF0000000000001", "tensor<f64>")
    assert b.view(np.uint64) == 0x7FF0000000000001


def test_dense_signless_integer_wraps_like_mlir():
    assert dense("[255, -1, 128]", "tensor<3xi8>").tolist() == [-1, -1, -128]
    with pytest.raises(ParseError):
        dense("[256]", "tensor<1xi8>")
    with pytest.raises(ParseError):
        dense("[-1]", "tensor<1xui8>")
    assert dense("[18446744073709551615]", "tensor<1xui64>").tolist() == [2**64 - 1]


def test_dense_f32_rounds_once_from_decimal():
    # 1 + 2^-24 + 2^-60 is just above the midpoint of 1 and 1 + 2^-23: the nearest f32 is
    # 1 + 2^-23, although the nearest f64 (1 + 2^-24) would round to even (1.0).
    d = Decimal(1) + Decimal(2) ** -24 + Decimal(2) ** -60
    text = format(d, "f")
    a = dense(f"[{text}]", "tensor<1xf32>")
    assert a.view(np.uint32)[0] == 0x3F800001
    long = dense("[" + ", ".join([text] * 40) + "]", "tensor<40xf32>")
    assert (long.view(np.uint32) == 0x3F800001).all()
    fa = attr(f"{text} : f32")
    assert fa == FloatAttr(struct.unpack("<f", struct.pack("<I", 0x3F800001))[0], F32)


def test_dense_bf16_and_f8():
    assert dense("[1.0, 0.1]", "tensor<2xbf16>").tolist() == [1.0, float(ml_dtypes.bfloat16(0.1))]
    assert dense("[448.0]", "tensor<1xf8E4M3FN>").astype(np.float32).tolist() == [448.0]


def test_dense_large_decimal_list_fast_path_matches_slow_path():
    vals = [i * 0.25 - 3 for i in range(1000)]
    body = "[" + ", ".join(repr(v) for v in vals) + "]"
    assert dense(body, "tensor<1000xf32>").tolist() == vals
    ints = list(range(-500, 500))
    assert dense(str(ints), "tensor<1000xi16>").tolist() == ints


def test_dense_shape_mismatch_is_an_error():
    with pytest.raises(ParseError, match="shape"):
        dense("[1, 2, 3]", "tensor<2xi32>")
    with pytest.raises(ParseError):
        dense("[[1, 2], [3]]", "tensor<2x2xi32>")


def test_dense_empty():
    assert dense("", "tensor<0xf32>").shape == (0,)
    assert dense("[]", "tensor<0xf32>").shape == (0,)


def test_dense_quantized_uses_storage_type():
    a = dense("[1, 2]", "tensor<2x!quant.uniform<i8:f32, 2.0:15>>")
    assert a.dtype == np.int8 and a.tolist() == [1, 2]


def test_dense_resource_and_resources_section():
    text = (
        '"test.op"() {a = dense_resource<blob1> : tensor<2xi32>} : () -> ()\n'
        '{-#\n  dialect_resources: {\n    builtin: {\n      blob1: "0x040000000100000002000000"\n'
        "    }\n  }\n#-}\n"
    )
    m = parse_module(text)
    assert m.body[0].attr("a") == DenseResourceAttr(TensorType((2,), IntegerType(32)), "blob1")
    assert m.resources == (("builtin", "blob1", "0x040000000100000002000000"),)


# ---- other attributes ----------------------------------------------------------------------


def test_scalar_attributes():
    assert attr("1 : i64") == IntegerAttr(1, I64)
    assert attr("-3") == IntegerAttr(-3, None)
    assert attr("1.5 : f32") == FloatAttr(1.5, F32)
    assert attr("true") == BoolAttr(True)
    assert attr("unit") == UnitAttr()
    nan = attr("0x7FC00000 : f32")
    assert isinstance(nan, FloatAttr) and math.isnan(nan.value) and nan.type == F32
    assert attr("0xFF800000 : f32") == FloatAttr(-math.inf, F32)


def test_strings_with_escapes():
    assert attr(r'"a\"b\\c\n\t\41"') == StringAttr('a"b\\c\n\tA')
    assert attr(r'"\08\03\1A"') == StringAttr("\x08\x03\x1a")


def test_symbol_refs():
    assert attr("@a") == SymbolRefAttr("a")
    assert attr("@a::@b::@c") == SymbolRefAttr("a", ("b", "c"))
    assert attr('@"foo-bar"') == SymbolRefAttr("foo-bar")


def test_arrays_dicts_dense_arrays():
    assert attr("[1, [2]]") == ArrayAttr((IntegerAttr(1), ArrayAttr((IntegerAttr(2),))))
    assert attr("{x = 1, y}") == DictionaryAttr((("x", IntegerAttr(1)), ("y", UnitAttr())))
    assert attr("array<i64: 1, 2>") == DenseArrayAttr(I64, (1, 2))
    assert attr("array<i64>") == DenseArrayAttr(I64, ())
    assert attr("array<i1: true, false>") == DenseArrayAttr(IntegerType(1), (True, False))
    assert attr("array<f32: 1.5>") == DenseArrayAttr(F32, (1.5,))


def test_stablehlo_enums_short_and_long():
    assert attr("#stablehlo<comparison_direction LT>") == EnumAttr(
        "stablehlo", "comparison_direction", "LT", True
    )
    assert attr("#stablehlo.result_accuracy_mode<DEFAULT>") == EnumAttr(
        "stablehlo", "result_accuracy_mode", "DEFAULT", False
    )
    assert attr("#chlo<comparison_direction GT>") == EnumAttr("chlo", "comparison_direction", "GT")


def test_stablehlo_structs():
    g = attr(
        "#stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0],"
        " start_index_map = [0], index_vector_dim = 1>"
    )
    assert g == GatherDimensionNumbers(
        offset_dims=(1,), collapsed_slice_dims=(0,), start_index_map=(0,), index_vector_dim=1
    )
    s = attr(
        "#stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0],"
        " input_batching_dims = [2], scatter_indices_batching_dims = [0],"
        " scatter_dims_to_operand_dims = [0], index_vector_dim = 1>"
    )
    assert s == ScatterDimensionNumbers((1,), (0,), (2,), (0,), (0,), 1)
    d = attr("#stablehlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>")
    assert d == DotDimensionNumbers((), (), (1,), (0,))
    assert attr("#stablehlo.channel_handle<handle = 1, type = 2>") == ChannelHandle(1, 2)
    assert attr(
        "#stablehlo.output_operand_alias<output_tuple_indices = [0], operand_index = 1,"
        " operand_tuple_indices = []>"
    ) == OutputOperandAlias((0,), 1, ())
    ra = attr(
        "#stablehlo.result_accuracy<atol = 1.0e-05, ulps = 2,"
        " mode = #stablehlo.result_accuracy_mode<TOLERANCE>>"
    )
    assert ra == ResultAccuracy(
        1.0e-05, 0.0, 2, EnumAttr("stablehlo", "result_accuracy_mode", "TOLERANCE", False)
    )
    da = attr(
        "#stablehlo.dot_algorithm<lhs_precision_type = bf16, rhs_precision_type = bf16,"
        " accumulation_type = f32, lhs_component_count = 1, rhs_component_count = 1,"
        " num_primitive_operations = 1, allow_imprecise_accumulation = false>"
    )
    assert da == DotAlgorithm(FloatType("bf16"), FloatType("bf16"), F32, 1, 1, 1, False)


def test_other_dialect_attributes_are_kept_verbatim():
    assert attr("#mydialect<comparison_direction_v1 EQ>") == OpaqueAttr(
        "#mydialect<comparison_direction_v1 EQ>"
    )
    text = "#sparse_tensor.encoding<{ map = (d0, d1) -> (d0 : dense, d1 : compressed) }>"
    assert attr(text) == OpaqueAttr(text)


def test_unknown_stablehlo_attribute_with_params_is_dialect_attr():
    a = attr("#stablehlo.some_thing<a = 1, [2]>")
    assert a == DialectAttr(
        "stablehlo", "some_thing", (("a", IntegerAttr(1)), ("", ArrayAttr((IntegerAttr(2),))))
    )


def test_attribute_alias_resolved_and_kept():
    m = parse_module('#a = {x = 1}\n"test.op"() {y = #a} : () -> ()')
    assert m.body[0].attr("y") == DictionaryAttr((("x", IntegerAttr(1)),))
    assert m.aliases[0][0] == "#a"


# ---- operations, functions, modules ----------------------------------------------------------


def test_multi_results_and_uses():
    m = parse_module("""func.func @f(%x: tensor<f32>) -> tensor<f32> {
  %0:2 = "test.two"(%x) : (tensor<f32>) -> (tensor<f32>, tensor<i32>)
  %a, %b = "test.two"(%0#1) : (tensor<i32>) -> (tensor<f32>, tensor<i32>)
  func.return %0#0 : tensor<f32>
}""")
    ops = m.body[0].body.entry.operations
    assert [v.name for v in ops[0].results] == ["%0#0", "%0#1"]
    assert ops[1].operands[0].name == "%0#1"
    assert ops[1].operands[0].type == TensorType((), IntegerType(32))
    assert [v.name for v in ops[1].results] == ["%a", "%b"]
    assert ops[2].name == "func.return" and ops[2].operands[0].name == "%0#0"


def test_generic_op_with_properties_regions_attrs_and_location():
    m = parse_module("""func.func @f(%x: tensor<4xi64>, %y: tensor<i64>) {
  %r = "stablehlo.reduce"(%x, %y) <{dimensions = array<i64: 0>}> ({
  ^bb0(%a: tensor<i64> loc("a.py":1:2), %b: tensor<i64>):
    %s = "stablehlo.add"(%a, %b) : (tensor<i64>, tensor<i64>) -> tensor<i64>
    "stablehlo.return"(%s) : (tensor<i64>) -> ()
  }) {extra = "x"} : (tensor<4xi64>, tensor<i64>) -> tensor<i64> loc(#loc3)
  func.return
}""")
    op = m.body[0].body.entry.operations[0]
    assert op.property_names == frozenset({"dimensions"})
    assert op.attr("extra") == StringAttr("x")
    assert op.location == LocationAttr("#loc3")
    blk = op.regions[0].entry
    assert blk.arg_locations == (LocationAttr('"a.py":1:2'), None)
    assert op.pos.line == 2 and op.pos.col == 3


def test_function_signature_features():
    m = parse_module("""module @jit_f attributes {mhlo.num_partitions = 1 : i32} {
  func.func public @main(%arg0: tensor<f32> {jax.arg_info = "x"} loc("x"), %arg1: tensor<i32>)
      -> (tensor<f32> {jax.result_info = ""}, tensor<i32>) attributes {foo} {
    func.return %arg0, %arg1 : tensor<f32>, tensor<i32>
  }
  func.func private @decl(tensor<f32>) -> tensor<f32>
}
#loc = loc("f.py":1:1)
""")
    assert m.name == "jit_f" and not m.implicit
    assert m.attr("mhlo.num_partitions") == IntegerAttr(1, IntegerType(32))
    f, decl = m.body
    assert f.visibility == "public" and f.name == "main"
    assert f.arg_attrs == (DictionaryAttr((("jax.arg_info", StringAttr("x")),)), None)
    assert f.result_attrs[0] == DictionaryAttr((("jax.result_info", StringAttr("")),))
    assert f.attributes == (("foo", UnitAttr()),)
    assert [a.name for a in f.arguments] == ["%arg0", "%arg1"]
    assert decl.body is None and decl.visibility == "private"
    assert m.aliases == (("#loc", LocationAttr('"f.py":1:1')),)


def test_implicit_module_with_several_functions():
    m = parse_module("func.func @a() {\n  return\n}\nfunc.func @b() {\n  func.return\n}\n")
    assert m.implicit and [f.name for f in m.body] == ["a", "b"]
    assert m.body[0].body.entry.operations[0].name == "func.return"


def test_multiple_blocks_with_successors():
    m = parse_module("""func.func @f(%x: tensor<i1>) {
  "test.br"()[^bb1] : () -> ()
^bb1:
  func.return
}""")
    blocks = m.body[0].body.blocks
    assert len(blocks) == 2 and blocks[1].label == "^bb1"
    assert blocks[0].operations[0].successors == ("^bb1",)


# ---- errors --------------------------------------------------------------------------------


def _err(text: str) -> str:
    with pytest.raises(ParseError) as info:
        parse_module(text, "t.mlir")
    return str(info.value)


def test_error_bad_token_has_position():
    msg = _err("func.func @f() {\n  %0 = stablehlo.add %a, ; tensor<f32>\n}")
    assert msg.startswith("t.mlir:2:")


def test_error_unterminated_region():
    msg = _err("func.func @f() {\n  func.return\n")
    assert "t.mlir:" in msg and "unterminated" in msg


def test_error_unknown_type():
    msg = _err("func.func @f(%x: tensor<4xfoo32>) {\n  func.return\n}")
    assert msg.startswith("t.mlir:1:") and "type" in msg


def test_error_wrong_attribute():
    msg = _err('"test.op"() {a = #stablehlo.gather<offset_dims = 1>} : () -> ()')
    assert msg.startswith("t.mlir:1:")
    msg = _err('"test.op"() {a = dense<[1, 2]> : tensor<3xi32>} : () -> ()')
    assert "shape" in msg


def test_error_undefined_alias_and_arity():
    assert "alias" in _err('"test.op"() {a = #nope} : () -> ()')
    assert "operands" in _err(
        'func.func @f(%x: tensor<f32>) {\n  "t.op"(%x, %x) : (tensor<f32>) -> ()\n}'
    )


def test_line_offset():
    with pytest.raises(ParseError) as info:
        parse_module("\n\n  bogus", "x.mlir", line_offset=10)
    assert str(info.value).startswith("x.mlir:13:3:")


# ---- robustness ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        '"t.op"() {a = dense<' + "[" * 10000 + "1" + "]" * 10000 + "> : tensor<1xi32>} : () -> ()",
        '"t.op"() {a = ' + "[" * 10000 + "]" * 10000 + "} : () -> ()",
        "func.func @f(%x: " + "tuple<" * 10000 + ">" * 10000 + ") {\n  func.return\n}",
        "func.func @f() {\n"
        + '"t.op"() ({\n' * 10000
        + "}) : () -> ()\n" * 10000
        + "func.return\n}",
        '"t.op"() {a = ' + "{b = " * 10000 + "1" + "}" * 10000 + "} : () -> ()",
        '"t.op"() {a = #foo.bar<' + "<" * 10000 + ">" * 10000 + ">} : () -> ()",
    ],
)
def test_deep_nesting_gives_parse_error_not_crash(text):
    with pytest.raises(ParseError):
        parse_module(text)


def test_moderate_nesting_parses():
    text = "func.func @f() {\n" + '"t.op"() ({\n' * 50 + "}) : () -> ()\n" * 50 + "func.return\n}"
    m = parse_module(text)
    depth, ops = 0, m.functions["f"].body.blocks[0].operations
    while ops and ops[0].name == "t.op":  # 50 nested regions, one op each
        depth += 1
        blocks = ops[0].regions[0].blocks if ops[0].regions else ()
        ops = blocks[0].operations if blocks else ()
    assert depth == 50


def test_generic_func_func_is_a_function():
    generic = parse_module(""""func.func"() <{function_type = (tensor<f32>) -> tensor<f32>, sym_name = "f",
      sym_visibility = "private", arg_attrs = [{a = 1}]}> ({
    ^bb0(%x: tensor<f32>):
      "func.return"(%x) : (tensor<f32>) -> ()
    }) : () -> ()""")
    pretty = parse_module("""func.func private @f(%x: tensor<f32> {a = 1}) -> tensor<f32> {
      "func.return"(%x) : (tensor<f32>) -> ()
    }""")
    assert generic.body[0] == pretty.body[0]


def test_dense_narrow_float_formats():
    # f8E8M0FNU has no zero: APFloat turns 0.0 into the smallest normal, 2^-127 (0x00).
    a = dense("[0.0, 1.0, 0.1]", "tensor<3xf8E8M0FNU>")
    assert a.view(np.uint8).tolist() == [0x00, 0x7F, 0x7C]
    # f4E2M1FN from a hex blob: one byte per element, value in the low four bits.
    f4 = dense('"0x01020FF7"', "tensor<4xf4E2M1FN>")
    assert f4.astype(np.float32).tolist() == [0.5, 1.0, -6.0, 6.0]


def test_tf32_rounds_to_ten_mantissa_bits():
    # 1 + 2^-11 is half-way between 1 and 1 + 2^-10: ties to even gives 1.0;
    # 1 + 3 * 2^-11 is half-way between 1 + 2^-10 and 1 + 2^-9: gives 1 + 2^-9.
    a = dense(f"[{1 + 2**-11!r}, {1 + 3 * 2**-11!r}, 3.0]", "tensor<3xtf32>")
    assert a.dtype == np.float32 and a.tolist() == [1.0, 1 + 2**-9, 3.0]


def test_hex_blob_old_packed_i1_and_complex():
    # one byte for several i1 elements is a splat; ceil(n/8) bytes is the old packed form
    assert dense('"0x01"', "tensor<3xi1>").tolist() == [True, True, True]
    assert dense('"0x0501"', "tensor<9xi1>").tolist() == [True, False, True] + [False] * 5 + [True]
    z = dense('"0x0000803F00000040"', "tensor<1xcomplex<f32>>")
    assert z.tolist() == [1 + 2j]
