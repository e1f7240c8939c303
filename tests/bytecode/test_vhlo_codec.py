"""The VHLO dialect codec: every attribute and type code of VhloBytecode.cpp.

Expected codes are those of upstream's ``vhlo_encoding`` enums (stablehlo
``stablehlo/dialect/VhloBytecode.cpp``), written out here independently of the codec's
table; sample values are spelled as MLIR prints them (the CHECK lines of
``stablehlo/tests/vhlo``).
"""

from __future__ import annotations

import pytest

from hlorun.parser.bytecode.dialect_api import get_codec
from hlorun.parser.errors import ParseError
from hlorun.parser.ir import OpaqueAttr, StringAttr
from hlorun.parser.vhlo.bytecode_codes import ATTR_CODES, TYPE_CODES
from hlorun.parser.vhlo.ir import VhloAttr, VhloType
from hlorun.parser.vhlo.text import parse_vhlo_attr_text, parse_vhlo_type_text
from tests.bytecode.codec_fakes import Tables, decode, encode, first_varint, roundtrip

CODEC = get_codec("vhlo")
F32 = "!vhlo.f32_v1"
T = f"!vhlo.tensor_v1<{F32}>"

# (VhloBytecode.cpp AttributeCode, an attribute of that kind)
ATTRS = [
    (1, '#vhlo.array_v1<[#vhlo.string_v1<"a">, #vhlo.bool_v1<false>]>'),
    (1, "#vhlo.array_v1<[]>"),
    (2, "#vhlo.bool_v1<true>"),
    (2, "#vhlo.bool_v1<false>"),
    (3, "#vhlo<comparison_direction_v1 LT>"),
    (4, "#vhlo<comparison_type_v1 TOTALORDER>"),
    (5, "#vhlo<api_version_v1 API_VERSION_TYPED_FFI>"),
    (6, '#vhlo.dict_v1<{#vhlo.string_v1<"k"> = #vhlo.integer_v1<42 : i32>}>'),
    (6, "#vhlo.dict_v1<{}>"),
    (7, "#vhlo<fft_type_v1 IRFFT>"),
    (8, f"#vhlo.float_v1<1.000000e-03 : {F32}>"),
    (8, "#vhlo.float_v1<-2.500000e+00 : !vhlo.bf16_v1>"),
    (8, "#vhlo.float_v1<0x7FF8000000000001 : !vhlo.f64_v1>"),
    (8, "#vhlo.float_v1<1.500000e+00 : !vhlo.f8E4M3FN_v1>"),
    (8, "#vhlo.float_v1<1.000000e+00 : !vhlo.tf31_v1>"),
    (9, "#vhlo.integer_v1<-1 : i64>"),
    (9, "#vhlo.integer_v1<255 : ui8>"),
    (9, "#vhlo.integer_v1<-8 : i4>"),
    (9, "#vhlo.integer_v1<7 : index>"),
    (
        10,
        "#vhlo.output_operand_alias_v1<outputTupleIndices = [0, 1], operandIndex = 2, "
        "operandTupleIndices = []>",
    ),
    (11, "#vhlo<precision_v1 HIGHEST>"),
    (12, "#vhlo<rng_algorithm_v1 PHILOX>"),
    (13, "#vhlo<rng_distribution_v1 NORMAL>"),
    (14, '#vhlo.string_v1<"with \\22quotes\\22 and \\0A">'),
    (15, "#vhlo.tensor_v1<dense<[[1, 2], [3, 4]]> : tensor<2x2xi32>>"),
    (15, "#vhlo.tensor_v1<dense<[true, false, true]> : tensor<3xi1>>"),
    (15, "#vhlo.tensor_v1<dense<false> : tensor<4xi1>>"),
    (15, "#vhlo.tensor_v1<dense<true> : tensor<20xi1>>"),
    (15, "#vhlo.tensor_v1<dense<(1.000000e+00,-2.000000e+00)> : tensor<2xcomplex<f32>>>"),
    (15, "#vhlo.tensor_v1<dense<> : tensor<0xindex>>"),
    (15, "#vhlo.tensor_v1<dense<[1.000000e+00, -2.000000e+00]> : tensor<2xtf32>>"),
    (15, "#vhlo.tensor_v1<dense<[-1, 7, -8]> : tensor<3xi4>>"),
    (15, "#vhlo.tensor_v1<dense<[-1.500000e+00, 6.000000e+00]> : tensor<2xf4E2M1FN>>"),
    (15, "#vhlo.tensor_v1<dense<0x7FC00000> : tensor<f32>>"),
    (15, "#vhlo.tensor_v1<dense<[1, 2]> : tensor<2x!quant.uniform<i8:f32, 3.400000e+01:16>>>"),
    (16, "#vhlo<transpose_v1 ADJOINT>"),
    (17, f"#vhlo.type_v1<!vhlo.func_v1<({T}) -> {T}>>"),
    (18, "#vhlo.type_extensions_v1<bounds = [16, ?]>"),
    (19, "#vhlo<result_accuracy_mode_v1 TOLERANCE>"),
    (
        20,
        "#vhlo.result_accuracy_v1<atol = 1.000000e-05, rtol = 0.000000e+00, ulps = 2, "
        "mode = #vhlo<result_accuracy_mode_v1 TOLERANCE>>",
    ),
    (21, "#vhlo.sub_axis_info_v1<pre_size = 1, size = 2>"),
    (
        22,
        '#vhlo.axis_ref_v1<name = #vhlo.string_v1<"x">, '
        "sub_axis_info = #vhlo.sub_axis_info_v1<pre_size = 1, size = 2>>",
    ),
    (22, '#vhlo.axis_ref_v1<name = #vhlo.string_v1<"y">>'),
    (
        23,
        '#vhlo.replica_group_mesh_axes_v1<mesh = #vhlo.string_v1<"mesh">, '
        'axes = #vhlo.array_v1<[#vhlo.axis_ref_v1<name = #vhlo.string_v1<"y">>]>>',
    ),
    (24, '#vhlo.mesh_axis_v1<name = #vhlo.string_v1<"x">, size = 4>'),
    (
        25,
        '#vhlo.mesh_v1<axes = #vhlo.array_v1<[#vhlo.mesh_axis_v1<name = #vhlo.string_v1<"x">, '
        "size = 2>]>, device_ids = #vhlo.tensor_v1<dense<[1, 0]> : tensor<2xi64>>>",
    ),
    (25, "#vhlo.mesh_v1<axes = #vhlo.array_v1<[]>>"),
]

# (VhloBytecode.cpp TypeCode, a type of that kind)
TYPES = [
    (0, "!vhlo.bool_v1"),
    (1, f"!vhlo.complex_v1<{F32}>"),
    (2, "!vhlo.bf16_v1"),
    (3, "!vhlo.f16_v1"),
    (4, F32),
    (5, "!vhlo.f64_v1"),
    (6, "!vhlo.f8E4M3FN_v1"),
    (7, "!vhlo.f8E5M2_v1"),
    (8, f"!vhlo.func_v1<({T}, !vhlo.token_v1) -> {T}>"),
    (8, "!vhlo.func_v1<(()) -> ()>"),
    (9, "!vhlo.index_v1"),
    (10, "!vhlo.i4_v1"),
    (11, "!vhlo.i8_v1"),
    (12, "!vhlo.i16_v1"),
    (13, "!vhlo.i32_v1"),
    (14, "!vhlo.i64_v1"),
    (15, "!vhlo.ui4_v1"),
    (16, "!vhlo.ui8_v1"),
    (17, "!vhlo.ui16_v1"),
    (18, "!vhlo.ui32_v1"),
    (19, "!vhlo.ui64_v1"),
    (20, f"!vhlo.tensor_v1<2x?x{F32}>"),
    (20, T),
    (21, f"!vhlo.tensor_v1<?x{F32}, #vhlo.type_extensions_v1<bounds = [16]>>"),
    (22, "!vhlo.token_v1"),
    (23, f"!vhlo.tuple_v1<{T}, !vhlo.token_v1>"),
    (23, "!vhlo.tuple_v1<>"),
    (24, "!vhlo.quant_v1<!vhlo.i8_v1:!vhlo.f32_v1, 3.400000e+01:16, -128:127, 1>"),
    (25, f"!vhlo.unranked_tensor_v1<{F32}>"),
    (26, "!vhlo.witness_v1"),
    (27, "!vhlo.f8E4M3FNUZ_v1"),
    (28, "!vhlo.f8E5M2FNUZ_v1"),
    (29, "!vhlo.f8E4M3B11FNUZ_v1"),
    (
        30,
        "!vhlo.quant_per_axis_v1<!vhlo.i8_v1:!vhlo.f32_v1, 0, [3.400000e+01, 1.500000e+00], "
        "[16, -3], -128:127, 1>",
    ),
    (31, "!vhlo.i2_v1"),
    (32, "!vhlo.ui2_v1"),
    (33, "!vhlo.none_v1"),
    (34, "!vhlo.tf31_v1"),
    (35, "!vhlo.f8E4M3_v1"),
    (36, "!vhlo.f8E3M4_v1"),
    (37, "!vhlo.f4E2M1FN_v1"),
    (38, "!vhlo.f6E2M3FN_v1"),
    (39, "!vhlo.f6E3M2FN_v1"),
    (40, "!vhlo.f8E8M0FNU_v1"),
    (41, f"!vhlo.buffer_v1<2x{F32}>"),
    (42, f"!vhlo.future_v1<{T}, !vhlo.tensor_v1<!vhlo.i32_v1>>"),
]


def test_samples_cover_every_upstream_code():
    assert sorted({c for c, _ in ATTRS}) == list(range(1, 26))
    assert sorted({c for c, _ in TYPES}) == list(range(0, 43))
    assert set(ATTR_CODES) == set(range(1, 26))
    assert set(TYPE_CODES) == set(range(0, 43))


@pytest.mark.parametrize("code,text", ATTRS)
def test_attribute_roundtrips_with_its_code(code: int, text: str):
    a = parse_vhlo_attr_text(text)
    assert isinstance(a, VhloAttr)
    data, back = roundtrip(CODEC, a, is_type=False)
    assert first_varint(data) == code
    assert back == a


@pytest.mark.parametrize("code,text", TYPES)
def test_type_roundtrips_with_its_code(code: int, text: str):
    t = parse_vhlo_type_text(text)
    assert isinstance(t, VhloType)
    data, back = roundtrip(CODEC, t, is_type=True)
    assert first_varint(data) == code
    assert back == t


def _prefix_varint(v: int) -> bytes:
    """MLIR's prefix varint for values below 128 (BytecodeFormat.md: ``(v << 1) | 1``)."""
    assert v < 128
    return bytes([(v << 1) | 1])


def test_bool_and_enum_bytes_follow_upstream_layout():
    # BooleanV1Attr { value: varint }; ComparisonDirectionV1Attr { value: varint enum }
    assert encode(CODEC, VhloAttr("bool_v1", (True,)), Tables(), is_type=False) == (
        _prefix_varint(2) + _prefix_varint(1)
    )
    lt = VhloAttr("comparison_direction_v1", ("LT",))  # LT = 5 in VhloEnums.td
    assert encode(CODEC, lt, Tables(), is_type=False) == _prefix_varint(3) + _prefix_varint(5)


def test_i1_tensor_data_is_bit_packed_and_splats_are_ff():
    """writeVhloTensorV1Attr: i1 data packed little-endian by bit; a true splat is 0xFF."""
    t = Tables()
    a = parse_vhlo_attr_text("#vhlo.tensor_v1<dense<[true, false, true]> : tensor<3xi1>>")
    data = encode(CODEC, a, t, is_type=False)
    assert data.endswith(_prefix_varint(1) + b"\x05")  # blob: size 1, bits 0 and 2 set
    splat = parse_vhlo_attr_text("#vhlo.tensor_v1<dense<true> : tensor<20xi1>>")
    assert encode(CODEC, splat, t, is_type=False).endswith(_prefix_varint(1) + b"\xff")


def test_tf32_data_takes_three_bytes_per_element():
    """DenseElementsAttr storage: ceil(19 / 8) bytes; 1.0 is 0x1FC00 (8-bit exponent 127)."""
    a = parse_vhlo_attr_text(
        "#vhlo.tensor_v1<dense<[1.000000e+00, 0.000000e+00]> : tensor<2xtf32>>"
    )
    assert a.params[1] == b"\x00\xfc\x01\x00\x00\x00"


def test_tensor_data_is_mlir_raw_storage():
    a = parse_vhlo_attr_text("#vhlo.tensor_v1<dense<[1, 258]> : tensor<2xi16>>")
    assert a.params[1] == b"\x01\x00\x02\x01"
    splat = parse_vhlo_attr_text("#vhlo.tensor_v1<dense<[7, 7, 7]> : tensor<3xi32>>")
    assert splat.params[1] == b"\x07\x00\x00\x00"  # all equal: MLIR keeps one element


def test_non_vhlo_values_have_no_custom_encoding():
    t = Tables()
    assert encode(CODEC, StringAttr("x"), t, is_type=False) is None
    assert encode(CODEC, VhloAttr("no_such_v9", ()), t, is_type=False) is None


def test_unknown_codes_are_parse_errors():
    t = Tables()
    with pytest.raises(ParseError, match="unknown vhlo attribute code: 99"):
        decode(CODEC, _prefix_varint(99), t, is_type=False)
    with pytest.raises(ParseError, match="unknown vhlo type code: 77"):
        decode(CODEC, _prefix_varint(77), t, is_type=True)
    with pytest.raises(ParseError, match="unsupported value: 2"):
        decode(CODEC, _prefix_varint(2) + _prefix_varint(2), t, is_type=False)


def test_truncated_entry_is_a_parse_error_naming_the_offset():
    t = Tables()
    data = encode(CODEC, parse_vhlo_attr_text("#vhlo.integer_v1<-1 : i64>"), t, is_type=False)
    with pytest.raises(ParseError, match="offset"):
        decode(CODEC, data[:-1], t, is_type=False)


def test_dict_keys_may_be_any_attribute():
    key = OpaqueAttr("affine_map<(d0) -> (d0)>")
    a = VhloAttr("dict_v1", (((key, VhloAttr("bool_v1", (True,))),),))
    assert roundtrip(CODEC, a, is_type=False)[1] == a
