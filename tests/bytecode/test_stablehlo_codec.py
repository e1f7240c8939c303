"""The stablehlo and chlo dialect codecs: every code of StablehloBytecode.cpp and
ChloBytecode.cpp; the decoded value equals what the text parser builds from MLIR's
printed form of the same attribute.

Expected codes are upstream's ``stablehlo_encoding`` / ``chlo_encoding`` enums, written
out here independently of the codec's table.
"""

from __future__ import annotations

import pytest

from hlorun.parser.bytecode.dialect_api import DialectReader, DialectWriter, get_codec
from hlorun.parser.bytecode.encoding import Cursor, Emitter
from hlorun.parser.errors import ParseError
from hlorun.parser.grammar import Parser
from hlorun.parser.ir import (
    ConvDimensionNumbers,
    DialectAttr,
    EnumAttr,
    IntegerAttr,
    StringAttr,
    TokenType,
)
from tests.bytecode.codec_fakes import Tables, decode, encode, first_varint, roundtrip

SHLO = get_codec("stablehlo")
CHLO = get_codec("chlo")


def attr(text: str):
    return Parser(text).parse_attribute()


def type_(text: str):
    return Parser(text).parse_type()


# (StablehloBytecode.cpp AttributeCode, MLIR's printed form)
ATTRS = [
    (1, "#stablehlo.channel_handle<handle = 1, type = 2>"),
    (2, "#stablehlo<comparison_direction LT>"),
    (3, "#stablehlo<comparison_type FLOAT>"),
    (4, "#stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>"),
    (
        4,
        "#stablehlo.conv<raw input_batch_dimension = 0, input_feature_dimension = 0, "
        "input_spatial_dimensions = [], kernel_input_feature_dimension = 0, "
        "kernel_output_feature_dimension = 1, kernel_spatial_dimensions = [], "
        "output_batch_dimension = 0, output_feature_dimension = 1, "
        "output_spatial_dimensions = []>",
    ),
    (
        5,
        "#stablehlo.dot<lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], "
        "lhs_contracting_dimensions = [2], rhs_contracting_dimensions = [1]>",
    ),
    (6, "#stablehlo<fft_type RFFT>"),
    (
        7,
        "#stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], "
        "operand_batching_dims = [2], start_indices_batching_dims = [0], "
        "start_index_map = [0], index_vector_dim = 1>",
    ),
    (8, "#stablehlo<precision HIGH>"),
    (9, "#stablehlo<rng_algorithm THREE_FRY>"),
    (10, "#stablehlo<rng_distribution NORMAL>"),
    (
        11,
        "#stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], "
        "scatter_dims_to_operand_dims = [0], index_vector_dim = 1>",
    ),
    (12, "#stablehlo<transpose NO_TRANSPOSE>"),
    (13, "#stablehlo.bounds<?, 4>"),
    (
        14,
        "#stablehlo.output_operand_alias<output_tuple_indices = [0], operand_index = 1, "
        "operand_tuple_indices = []>",
    ),
    (
        15,
        "#stablehlo.dot_algorithm<lhs_precision_type = tf32, rhs_precision_type = tf32, "
        "accumulation_type = f32, lhs_component_count = 1, rhs_component_count = 1, "
        "num_primitive_operations = 3, allow_imprecise_accumulation = true>",
    ),
    (16, "#stablehlo.result_accuracy_mode<HIGHEST>"),
    (
        17,
        "#stablehlo.result_accuracy<atol = 1.000000e-05, ulps = 1, "
        "mode = #stablehlo.result_accuracy_mode<TOLERANCE>>",
    ),
    (
        18,
        '#stablehlo.replica_group_mesh_axes<mesh = @mesh, axes = [#stablehlo.axis_ref<name = "y">]>',
    ),
    (20, '#stablehlo.axis_ref<name = "x", sub_axis_info = (1)2>'),
    (20, '#stablehlo.axis_ref<name = "y">'),
    (21, '#stablehlo.mesh_axis<name = "x", size = 2>'),
    (22, '#stablehlo.mesh<axes = [#stablehlo.mesh_axis<name = "x", size = 2>]>'),
    (
        22,
        '#stablehlo.mesh<axes = [#stablehlo.mesh_axis<name = "x", size = 2>], '
        "device_ids = dense<[1, 0]> : tensor<2xi64>>",
    ),
]


@pytest.mark.parametrize("code,text", ATTRS)
def test_stablehlo_attribute_roundtrips_to_the_text_parse(code: int, text: str):
    a = attr(text)
    data, back = roundtrip(SHLO, a, is_type=False)
    assert first_varint(data) == code
    assert back == a


def test_sub_axis_info_has_code_19():
    a = DialectAttr(
        "stablehlo", "sub_axis_info", (("pre_size", IntegerAttr(1)), ("size", IntegerAttr(2)))
    )
    data, back = roundtrip(SHLO, a, is_type=False)
    assert first_varint(data) == 19 and back == a


def test_every_attribute_code_is_sampled():
    assert sorted({c for c, _ in ATTRS} | {19}) == list(range(1, 23))


def test_enum_spellings_match_the_text_parser():
    assert roundtrip(SHLO, attr("#stablehlo<precision DEFAULT>"), is_type=False)[1] == (
        EnumAttr("stablehlo", "precision", "DEFAULT", True)
    )
    assert roundtrip(SHLO, attr("#stablehlo.result_accuracy_mode<DEFAULT>"), is_type=False)[1] == (
        EnumAttr("stablehlo", "result_accuracy_mode", "DEFAULT", False)
    )


def test_expressible_conv_numbers_read_as_the_compact_form():
    raw = attr(
        "#stablehlo.conv<raw input_batch_dimension = 0, input_feature_dimension = 1, "
        "input_spatial_dimensions = [2], kernel_input_feature_dimension = 0, "
        "kernel_output_feature_dimension = 1, kernel_spatial_dimensions = [2], "
        "output_batch_dimension = 0, output_feature_dimension = 1, "
        "output_spatial_dimensions = [2]>"
    )
    assert isinstance(raw, ConvDimensionNumbers) and raw.raw
    back = roundtrip(SHLO, raw, is_type=False)[1]
    assert back == attr("#stablehlo.conv<[b, f, 0]x[i, o, 0]->[b, f, 0]>")


@pytest.mark.parametrize(
    "code,text", [(0, "!stablehlo.token"), (1, "!stablehlo.future<tensor<f32>, tensor<2xi32>>")]
)
def test_stablehlo_types_roundtrip(code: int, text: str):
    t = type_(text)
    data, back = roundtrip(SHLO, t, is_type=True)
    assert first_varint(data) == code and back == t


@pytest.mark.parametrize(
    "code,text", [(0, "#chlo<comparison_direction GE>"), (1, "#chlo<comparison_type SIGNED>")]
)
def test_chlo_attributes_roundtrip(code: int, text: str):
    a = attr(text)
    data, back = roundtrip(CHLO, a, is_type=False)
    assert first_varint(data) == code and back == a


def test_version_payload_is_three_varints():
    tables = Tables()
    tables.versions["stablehlo"] = (1, 20, 3)
    em = Emitter()
    assert SHLO.write_version(DialectWriter(em, tables, 6))
    data = bytes(em.buf)
    assert data == bytes([(1 << 1) | 1, (20 << 1) | 1, (3 << 1) | 1])
    r = DialectReader(Cursor(data, 0, len(data), "<t>", "DialectVersions"), tables, 6)
    assert SHLO.read_version(r) == (1, 20, 3)
    assert not SHLO.write_version(DialectWriter(Emitter(), Tables(), 6))


def test_foreign_values_have_no_custom_encoding():
    t = Tables()
    assert encode(SHLO, StringAttr("x"), t, is_type=False) is None
    assert encode(SHLO, EnumAttr("chlo", "comparison_direction", "EQ"), t, is_type=False) is None
    assert (
        encode(CHLO, EnumAttr("stablehlo", "comparison_direction", "EQ"), t, is_type=False) is None
    )
    assert encode(SHLO, TokenType(), t, is_type=True) is not None


def test_unknown_codes_are_parse_errors():
    with pytest.raises(ParseError, match="unknown stablehlo attribute code: 30"):
        decode(SHLO, bytes([(30 << 1) | 1]), Tables(), is_type=False)
    with pytest.raises(ParseError, match="unknown chlo attribute code: 2"):
        decode(CHLO, bytes([(2 << 1) | 1]), Tables(), is_type=False)
    with pytest.raises(ParseError, match="unknown enum value 9"):
        decode(SHLO, bytes([(2 << 1) | 1, (9 << 1) | 1]), Tables(), is_type=False)
