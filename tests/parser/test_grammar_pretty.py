"""Each pretty (custom) form parses into exactly the Operation of its generic form.

The generic spellings are written from MLIR / StableHLO's definitions (the generic forms
in stablehlo/tests/verifier/*.mlir and the ops' assembly formats), not from our output.
"""

from __future__ import annotations

import pytest

from hlorun.parser.grammar import parse_module
from hlorun.parser.ir import (
    ArrayAttr,
    Block,
    DenseArrayAttr,
    EnumAttr,
    IntegerAttr,
    IntegerType,
    Operation,
    TensorType,
)


def first_op(text: str, args: str = "") -> Operation:
    m = parse_module(f"func.func @f({args}) {{\n{text}\n  func.return\n}}")
    return m.body[0].body.entry.operations[0]


def same(pretty: str, generic: str, args: str) -> None:
    a = first_op(pretty, args)
    b = first_op(generic, args)
    assert a.name == b.name
    assert a.operands == b.operands
    assert a.results == b.results
    assert a.attributes == b.attributes
    assert a.regions == b.regions


T4 = "%a: tensor<4xf32>, %b: tensor<4xf32>"

CASES = [
    # (pretty, generic, function arguments)
    (
        "%0 = stablehlo.add %a, %b : tensor<4xf32>",
        '%0 = "stablehlo.add"(%a, %b) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>',
        T4,
    ),
    (
        "%0 = stablehlo.add %a, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>",
        '%0 = "stablehlo.add"(%a, %b) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>',
        T4,
    ),
    (
        "%0 = stablehlo.abs %a : tensor<4xf32>",
        '%0 = "stablehlo.abs"(%a) : (tensor<4xf32>) -> tensor<4xf32>',
        T4,
    ),
    (
        "%0 = stablehlo.convert %a : (tensor<4xf32>) -> tensor<4xi32>",
        '%0 = "stablehlo.convert"(%a) : (tensor<4xf32>) -> tensor<4xi32>',
        T4,
    ),
    (
        "%0 = stablehlo.compare LT, %a, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>",
        '%0 = "stablehlo.compare"(%a, %b) {comparison_direction = #stablehlo<comparison_direction LT>}'
        " : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>",
        T4,
    ),
    (
        "%0 = stablehlo.compare  GE, %a, %b,  TOTALORDER : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>",
        '%0 = "stablehlo.compare"(%a, %b) {compare_type = #stablehlo<comparison_type TOTALORDER>, '
        "comparison_direction = #stablehlo<comparison_direction GE>}"
        " : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>",
        T4,
    ),
    (
        "%0 = stablehlo.slice %x [1:3, 4:8:2] : (tensor<3x8xf32>) -> tensor<2x2xf32>",
        '%0 = "stablehlo.slice"(%x) <{limit_indices = array<i64: 3, 8>, start_indices = array<i64: 1, 4>,'
        " strides = array<i64: 1, 2>}> : (tensor<3x8xf32>) -> tensor<2x2xf32>",
        "%x: tensor<3x8xf32>",
    ),
    (
        "%0 = stablehlo.iota dim = 1 : tensor<1x10xf32>",
        '%0 = "stablehlo.iota"() {iota_dimension = 1 : i64} : () -> tensor<1x10xf32>',
        "",
    ),
    (
        "%0 = stablehlo.broadcast_in_dim %x, dims = [0, 1] : (tensor<1x2xf32>) -> tensor<1x2x3xf32>",
        '%0 = "stablehlo.broadcast_in_dim"(%x) {broadcast_dimensions = array<i64: 0, 1>}'
        " : (tensor<1x2xf32>) -> tensor<1x2x3xf32>",
        "%x: tensor<1x2xf32>",
    ),
    (
        "%0 = stablehlo.transpose %x, dims = [1, 0] : (tensor<1x2xf32>) -> tensor<2x1xf32>",
        '%0 = "stablehlo.transpose"(%x) {permutation = array<i64: 1, 0>}'
        " : (tensor<1x2xf32>) -> tensor<2x1xf32>",
        "%x: tensor<1x2xf32>",
    ),
    (
        "%0 = stablehlo.reverse %x, dims = [0, 1] : tensor<1x2xf32>",
        '%0 = "stablehlo.reverse"(%x) {dimensions = array<i64: 0, 1>}'
        " : (tensor<1x2xf32>) -> tensor<1x2xf32>",
        "%x: tensor<1x2xf32>",
    ),
    (
        "%0 = stablehlo.concatenate %a, %b, dim = 0 : (tensor<4xf32>, tensor<4xf32>) -> tensor<8xf32>",
        '%0 = "stablehlo.concatenate"(%a, %b) {dimension = 0 : i64}'
        " : (tensor<4xf32>, tensor<4xf32>) -> tensor<8xf32>",
        T4,
    ),
    (
        "%0 = stablehlo.pad %x, %p, low = [4], high = [4], interior = [0] : (tensor<8xf32>, tensor<f32>) -> tensor<16xf32>",
        '%0 = "stablehlo.pad"(%x, %p) {edge_padding_high = array<i64: 4>, edge_padding_low = array<i64: 4>,'
        " interior_padding = array<i64: 0>} : (tensor<8xf32>, tensor<f32>) -> tensor<16xf32>",
        "%x: tensor<8xf32>, %p: tensor<f32>",
    ),
    (
        "%0 = stablehlo.dynamic_slice %x, %i, %i, sizes = [1, 4] : (tensor<3x4xi32>, tensor<i64>, tensor<i64>) -> tensor<1x4xi32>",
        '%0 = "stablehlo.dynamic_slice"(%x, %i, %i) {slice_sizes = array<i64: 1, 4>}'
        " : (tensor<3x4xi32>, tensor<i64>, tensor<i64>) -> tensor<1x4xi32>",
        "%x: tensor<3x4xi32>, %i: tensor<i64>",
    ),
    (
        "%0 = stablehlo.fft %x, type = FFT, length = [16] : (tensor<16xcomplex<f32>>) -> tensor<16xcomplex<f32>>",
        '%0 = "stablehlo.fft"(%x) {fft_length = array<i64: 16>, fft_type = #stablehlo<fft_type FFT>}'
        " : (tensor<16xcomplex<f32>>) -> tensor<16xcomplex<f32>>",
        "%x: tensor<16xcomplex<f32>>",
    ),
    (
        "%0 = stablehlo.reduce_precision %x, format = e8m10 : tensor<3x4xf32>",
        '%0 = "stablehlo.reduce_precision"(%x) {exponent_bits = 8 : i32, mantissa_bits = 10 : i32}'
        " : (tensor<3x4xf32>) -> tensor<3x4xf32>",
        "%x: tensor<3x4xf32>",
    ),
    (
        "%0 = stablehlo.cholesky %x, lower = true : tensor<2x2xf32>",
        '%0 = "stablehlo.cholesky"(%x) {lower = true} : (tensor<2x2xf32>) -> tensor<2x2xf32>',
        "%x: tensor<2x2xf32>",
    ),
    (
        "%0 = stablehlo.select %p, %a, %b : tensor<4xi1>, tensor<4xf32>",
        '%0 = "stablehlo.select"(%p, %a, %b) : (tensor<4xi1>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>',
        "%p: tensor<4xi1>, " + T4,
    ),
    (
        "%0 = stablehlo.complex %a, %b : tensor<4xcomplex<f32>>",
        '%0 = "stablehlo.complex"(%a, %b) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xcomplex<f32>>',
        T4,
    ),
    (
        "%0 = stablehlo.real %z : tensor<4xcomplex<f32>>",
        '%0 = "stablehlo.real"(%z) : (tensor<4xcomplex<f32>>) -> tensor<4xf32>',
        "%z: tensor<4xcomplex<f32>>",
    ),
    (
        "%0 = stablehlo.tuple %a, %b : tuple<tensor<4xf32>, tensor<4xf32>>",
        '%0 = "stablehlo.tuple"(%a, %b) : (tensor<4xf32>, tensor<4xf32>) -> tuple<tensor<4xf32>, tensor<4xf32>>',
        T4,
    ),
    (
        "%0 = stablehlo.get_tuple_element %t[1] : (tuple<tensor<4xf32>, tensor<i32>>) -> tensor<i32>",
        '%0 = "stablehlo.get_tuple_element"(%t) {index = 1 : i32} : (tuple<tensor<4xf32>, tensor<i32>>) -> tensor<i32>',
        "%t: tuple<tensor<4xf32>, tensor<i32>>",
    ),
    (
        "%0:2 = stablehlo.optimization_barrier %a, %b : tensor<4xf32>, tensor<4xf32>",
        '%0:2 = "stablehlo.optimization_barrier"(%a, %b) : (tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)',
        T4,
    ),
    (
        "%0 = stablehlo.constant dense<[1, 2]> : tensor<2xi64>",
        '%0 = "stablehlo.constant"() <{value = dense<[1, 2]> : tensor<2xi64>}> : () -> tensor<2xi64>',
        "",
    ),
    (
        "%0 = stablehlo.replica_id : tensor<ui32>",
        '%0 = "stablehlo.replica_id"() : () -> tensor<ui32>',
        "",
    ),
    (
        "%0 = stablehlo.after_all %t, %t : !stablehlo.token",
        '%0 = "stablehlo.after_all"(%t, %t) : (!stablehlo.token, !stablehlo.token) -> !stablehlo.token',
        "%t: !stablehlo.token",
    ),
    (
        "%0 = stablehlo.dot %a, %b, precision = [DEFAULT, HIGHEST] : (tensor<4xf32>, tensor<4xf32>) -> tensor<f32>",
        '%0 = "stablehlo.dot"(%a, %b) {precision_config = [#stablehlo<precision DEFAULT>, '
        "#stablehlo<precision HIGHEST>]} : (tensor<4xf32>, tensor<4xf32>) -> tensor<f32>",
        T4,
    ),
    (
        "%0 = stablehlo.dot_general %x, %y, batching_dims = [0] x [0], contracting_dims = [2] x [1],"
        " algorithm = <lhs_precision_type = tf32, rhs_precision_type = tf32, accumulation_type = f32,"
        " lhs_component_count = 1, rhs_component_count = 1, num_primitive_operations = 1,"
        " allow_imprecise_accumulation = false> : (tensor<2x2x2xf32>, tensor<2x2x3xf32>) -> tensor<2x2x3xf32>",
        '%0 = "stablehlo.dot_general"(%x, %y) {algorithm = #stablehlo.dot_algorithm<lhs_precision_type = tf32,'
        " rhs_precision_type = tf32, accumulation_type = f32, lhs_component_count = 1, rhs_component_count = 1,"
        " num_primitive_operations = 1, allow_imprecise_accumulation = false>, dot_dimension_numbers ="
        " #stablehlo.dot<lhs_batching_dimensions = [0], rhs_batching_dimensions = [0],"
        " lhs_contracting_dimensions = [2], rhs_contracting_dimensions = [1]>}"
        " : (tensor<2x2x2xf32>, tensor<2x2x3xf32>) -> tensor<2x2x3xf32>",
        "%x: tensor<2x2x2xf32>, %y: tensor<2x2x3xf32>",
    ),
    (
        "%0 = stablehlo.rng_bit_generator %s, algorithm = PHILOX : (tensor<2xui64>) -> (tensor<2xui64>, tensor<4xui32>)".replace(
            "%0 =", "%0:2 ="
        ),
        '%0:2 = "stablehlo.rng_bit_generator"(%s) {rng_algorithm = #stablehlo<rng_algorithm PHILOX>}'
        " : (tensor<2xui64>) -> (tensor<2xui64>, tensor<4xui32>)",
        "%s: tensor<2xui64>",
    ),
    (
        '%0 = stablehlo.custom_call @foo(%a) {backend_config = "x"} : (tensor<4xf32>) -> tensor<4xf32>',
        '%0 = "stablehlo.custom_call"(%a) {backend_config = "x", call_target_name = "foo"}'
        " : (tensor<4xf32>) -> tensor<4xf32>",
        T4,
    ),
    (
        '%0 = stablehlo.composite "my.op" %a {decomposition = @g} : (tensor<4xf32>) -> tensor<4xf32>',
        '%0 = "stablehlo.composite"(%a) {decomposition = @g, name = "my.op"} : (tensor<4xf32>) -> tensor<4xf32>',
        T4,
    ),
    (
        "%0 = stablehlo.convolution(%x, %w) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f],"
        " window = {stride = [4, 4], pad = [[1, 1], [0, 0]], lhs_dilate = [2, 2], rhs_dilate = [1, 1],"
        " reverse = [false, true]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64}"
        " : (tensor<1x4x4x1xf32>, tensor<3x3x1x1xf32>) -> tensor<1x2x2x1xf32>",
        '%0 = "stablehlo.convolution"(%x, %w) {batch_group_count = 1 : i64, dimension_numbers ='
        " #stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>,"
        " feature_group_count = 1 : i64, lhs_dilation = array<i64: 2, 2>,"
        " padding = dense<[[1, 1], [0, 0]]> : tensor<2x2xi64>, rhs_dilation = array<i64: 1, 1>,"
        " window_reversal = array<i1: false, true>, window_strides = array<i64: 4, 4>}"
        " : (tensor<1x4x4x1xf32>, tensor<3x3x1x1xf32>) -> tensor<1x2x2x1xf32>",
        "%x: tensor<1x4x4x1xf32>, %w: tensor<3x3x1x1xf32>",
    ),
    (
        "%0 = chlo.erf %a : tensor<4xf32> -> tensor<4xf32>",
        '%0 = "chlo.erf"(%a) : (tensor<4xf32>) -> tensor<4xf32>',
        T4,
    ),
    (
        "%0 = chlo.broadcast_add %a, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>",
        '%0 = "chlo.broadcast_add"(%a, %b) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>',
        T4,
    ),
    (
        "%0 = chlo.mulhi %a, %b : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>",
        '%0 = "chlo.mulhi"(%a, %b) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>',
        T4,
    ),
    (
        "%0:2 = chlo.top_k(%a, k = 2) : tensor<4xf32> -> (tensor<2xf32>, tensor<2xi32>)",
        '%0:2 = "chlo.top_k"(%a) {k = 2 : i64} : (tensor<4xf32>) -> (tensor<2xf32>, tensor<2xi32>)',
        T4,
    ),
    (
        "%0 = func.call @g(%a) : (tensor<4xf32>) -> tensor<4xf32>",
        '%0 = "func.call"(%a) {callee = @g} : (tensor<4xf32>) -> tensor<4xf32>',
        T4,
    ),
    (
        "check.expect_eq_const %a, dense<1.0> : tensor<4xf32>",
        '"check.expect_eq_const"(%a) {value = dense<1.0> : tensor<4xf32>} : (tensor<4xf32>) -> ()',
        T4,
    ),
    (
        "check.expect_close %a, %b, max_ulp_difference = 3 : tensor<4xf32>, tensor<4xf32>",
        '"check.expect_close"(%a, %b) {max_ulp_difference = 3 : ui64} : (tensor<4xf32>, tensor<4xf32>) -> ()',
        T4,
    ),
    (
        "check.expect_almost_eq %a, %b, tolerance = 0.1 : tensor<4xf32>",
        '"check.expect_almost_eq"(%a, %b) {tolerance = 0.1 : f64} : (tensor<4xf32>, tensor<4xf32>) -> ()',
        T4,
    ),
    (
        '%0 = interpreter.probe %a, probe_id = "p0" : tensor<4xf32>',
        '%0 = "interpreter.probe"(%a) {probe_id = "p0"} : (tensor<4xf32>) -> tensor<4xf32>',
        T4,
    ),
    (
        "stablehlo.return %a, %b : tensor<4xf32>, tensor<4xf32>",
        '"stablehlo.return"(%a, %b) : (tensor<4xf32>, tensor<4xf32>) -> ()',
        T4,
    ),
]


@pytest.mark.parametrize(
    "pretty,generic,args", CASES, ids=[c[0].split("=")[-1][:40] for c in CASES]
)
def test_pretty_equals_generic(pretty: str, generic: str, args: str):
    same(pretty, generic, args)


def test_reduce_applies_expands_to_a_region():
    pretty = (
        "%0 = stablehlo.reduce(%x init: %y) applies stablehlo.add across dimensions = [1]"
        " : (tensor<1x6xi64>, tensor<i64>) -> tensor<1xi64>"
    )
    op = first_op(pretty, "%x: tensor<1x6xi64>, %y: tensor<i64>")
    assert op.attr("dimensions") == DenseArrayAttr(IntegerType(64), (1,))
    (block,) = op.regions[0].blocks
    assert isinstance(block, Block)
    scalar = TensorType((), IntegerType(64))
    assert [v.type for v in block.arguments] == [scalar, scalar]
    add, ret = block.operations
    assert add.name == "stablehlo.add" and add.operands == block.arguments
    assert ret.name == "stablehlo.return" and ret.operands == add.results
    # deterministic names
    again = first_op(pretty, "%x: tensor<1x6xi64>, %y: tensor<i64>")
    assert again.regions == op.regions


def test_reduce_with_reducer_block_pairs_args_as_generic():
    pretty = """%0:2 = stablehlo.reduce(%a init: %c), (%b init: %d) across dimensions = [0]
        : (tensor<4xf32>, tensor<4xf32>, tensor<f32>, tensor<f32>) -> (tensor<f32>, tensor<f32>)
      reducer(%p0: tensor<f32>, %q0: tensor<f32>) (%p1: tensor<f32>, %q1: tensor<f32>) {
        %s = stablehlo.add %p0, %q0 : tensor<f32>
        %t = stablehlo.add %p1, %q1 : tensor<f32>
        stablehlo.return %s, %t : tensor<f32>, tensor<f32>
      }"""
    generic = """%0:2 = "stablehlo.reduce"(%a, %b, %c, %d) ({
      ^bb0(%p0: tensor<f32>, %p1: tensor<f32>, %q0: tensor<f32>, %q1: tensor<f32>):
        %s = "stablehlo.add"(%p0, %q0) : (tensor<f32>, tensor<f32>) -> tensor<f32>
        %t = "stablehlo.add"(%p1, %q1) : (tensor<f32>, tensor<f32>) -> tensor<f32>
        "stablehlo.return"(%s, %t) : (tensor<f32>, tensor<f32>) -> ()
      }) {dimensions = array<i64: 0>}
      : (tensor<4xf32>, tensor<4xf32>, tensor<f32>, tensor<f32>) -> (tensor<f32>, tensor<f32>)"""
    same(pretty, generic, T4 + ", %c: tensor<f32>, %d: tensor<f32>")


def test_while_pretty_gives_two_regions_with_the_iter_args():
    pretty = """%r0, %r1 = stablehlo.while(%i = %x, %s = %y) : tensor<i64>, tensor<i64>
      cond {
        %c = stablehlo.compare LT, %i, %s : (tensor<i64>, tensor<i64>) -> tensor<i1>
        stablehlo.return %c : tensor<i1>
      } do {
        stablehlo.return %i, %s : tensor<i64>, tensor<i64>
      }"""
    generic = """%r0, %r1 = "stablehlo.while"(%x, %y) ({
      ^bb0(%i: tensor<i64>, %s: tensor<i64>):
        %c = "stablehlo.compare"(%i, %s) <{comparison_direction = #stablehlo<comparison_direction LT>}>
          : (tensor<i64>, tensor<i64>) -> tensor<i1>
        "stablehlo.return"(%c) : (tensor<i1>) -> ()
      }, {
      ^bb0(%i: tensor<i64>, %s: tensor<i64>):
        "stablehlo.return"(%i, %s) : (tensor<i64>, tensor<i64>) -> ()
      }) : (tensor<i64>, tensor<i64>) -> (tensor<i64>, tensor<i64>)"""
    same(pretty, generic, "%x: tensor<i64>, %y: tensor<i64>")
    op = first_op(pretty, "%x: tensor<i64>, %y: tensor<i64>")
    assert [r.name for r in op.results] == ["%r0", "%r1"]
    assert len(op.regions) == 2


def test_scan_pretty_synthesizes_segment_sizes():
    pretty = """%0:2 = chlo.scan(%x) inits(%y) dimension=0 {
      ^bb0(%a: tensor<i32>, %b: tensor<i32>):
        %1 = stablehlo.add %a, %b : tensor<i32>
        stablehlo.return %1, %1 : tensor<i32>, tensor<i32>
      } : (tensor<4xi32>, tensor<i32>) -> (tensor<4xi32>, tensor<i32>)"""
    op = first_op(pretty, "%x: tensor<4xi32>, %y: tensor<i32>")
    assert op.attr("dimension") == IntegerAttr(0, IntegerType(64))
    assert op.attr("operandSegmentSizes") == DenseArrayAttr(IntegerType(32), (1, 1))
    assert [v.name for v in op.results] == ["%0#0", "%0#1"]


def test_compare_enum_attrs():
    op = first_op(
        "%0 = stablehlo.compare LT, %a, %b, FLOAT : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>",
        T4,
    )
    assert op.attr("comparison_direction") == EnumAttr("stablehlo", "comparison_direction", "LT")
    assert op.attr("compare_type") == EnumAttr("stablehlo", "comparison_type", "FLOAT")


def test_precision_list_is_array_of_enums():
    op = first_op(
        "%0 = stablehlo.dot %a, %b, precision = [HIGH] : (tensor<4xf32>, tensor<4xf32>) -> tensor<f32>",
        T4,
    )
    assert op.attr("precision_config") == ArrayAttr((EnumAttr("stablehlo", "precision", "HIGH"),))


def test_conv_raw_spelling_has_the_same_fields():
    import dataclasses

    raw = first_op(
        '%0 = "stablehlo.convolution"(%x, %w) {dimension_numbers = #stablehlo.conv<raw'
        " input_batch_dimension = 0, input_feature_dimension = 3,"
        " input_spatial_dimensions = [1, 2], kernel_input_feature_dimension = 2,"
        " kernel_output_feature_dimension = 3, kernel_spatial_dimensions = [0, 1],"
        " output_batch_dimension = 0, output_feature_dimension = 3,"
        " output_spatial_dimensions = [1, 2]>}"
        " : (tensor<1x4x4x1xf32>, tensor<3x3x1x1xf32>) -> tensor<1x2x2x1xf32>",
        "%x: tensor<1x4x4x1xf32>, %w: tensor<3x3x1x1xf32>",
    ).attr("dimension_numbers")
    pretty = first_op(
        "%0 = stablehlo.convolution(%x, %w) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]"
        "->[b, 0, 1, f] : (tensor<1x4x4x1xf32>, tensor<3x3x1x1xf32>)"
        " -> tensor<1x2x2x1xf32>",
        "%x: tensor<1x4x4x1xf32>, %w: tensor<3x3x1x1xf32>",
    ).attr("dimension_numbers")
    assert raw.raw and not pretty.raw
    assert dataclasses.replace(raw, raw=False) == pretty


def test_fast_path_line_equals_general_path():
    # The one-line form takes a fast path; with a trailing comment, or split over lines,
    # it takes the general one.  Both give the same Operation.
    fast = first_op("%0 = stablehlo.add %a, %b : tensor<4xf32>", T4)
    slow = first_op("%0 = stablehlo.add %a,\n  %b : tensor<4xf32>", T4)
    assert fast == slow
    with_loc = first_op('%0 = stablehlo.add %a, %b : tensor<4xf32>\n  loc("x.py":1:1)', T4)
    assert with_loc.location is not None and with_loc.location.text == '"x.py":1:1'
