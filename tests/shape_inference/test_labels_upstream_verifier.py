"""Constraints upstream's verifier enforces beyond what the spec's text spells out, each
from a program of our own violating exactly that rule (the source of each rule: the
comment above it), and programs upstream's verifier accepts that hlorun once rejected.

Sources: openxla/stablehlo stablehlo/dialect/ChloOps.cpp (ScanOp inference,
inferRaggedDotOp), StablehloBroadcastLowering.cpp (getNumpyBroadcastShape, which
ChloOps.cpp's broadcasting ops call on static-or-bounded operands), StablehloOps.td
(``HLO_Tensor`` operands: no per-axis quantization; ``HLO_Static2DIntTensor``),
TypeInference.cpp (verifyReducerShape, verifySelectAndScatterOp), StablehloOps.cpp
(ReplicaGroupMeshAxesAttr::verify) and MLIR's quant dialect (storage width, scale
range).
"""

from __future__ import annotations

import pytest

from hlorun.parser import parse_module, print_module
from hlorun.parser.ir import IntegerType, QuantizedType
from tests.shape_inference.labelcheck import assert_label, assert_verifies, func

S32 = "tensor<i32>"
QA = "!quant.uniform<i8:f32:0, {1.0, 2.0}>"  # per-axis, along dimension 0
TA = f"tensor<2x2x{QA}>"
B3 = "tensor<?xf32, #stablehlo.bounds<3>>"


def scan(results: list[str], returned: str, types: list[str], attrs: str = "") -> str:
    """A scan over ``tensor<4xi32>`` with one i32 carry; the body returns ``returned``
    (``%b0``/``%b1`` are the input slice and the carry; ``%c`` is a tensor<2xi32>)."""
    lhs = "%r = " if len(results) == 1 else f"%r:{len(results)} = "
    return func(
        "%in: tensor<4xi32>, %init: tensor<i32>",
        f"{lhs}chlo.scan(%in) inits(%init) dimension=0 {attrs}{{\n"
        f"  ^bb0(%b0: {S32}, %b1: {S32}):\n"
        "    %c = stablehlo.constant dense<[1, 2]> : tensor<2xi32>\n"
        f"    stablehlo.return {returned} : {', '.join(types)}\n"
        f"  }} : (tensor<4xi32>, {S32}) -> ({', '.join(results)})",
    )


def ragged_dot(precision: str) -> str:
    t = "(tensor<4x3xf32>, tensor<2x3x2xf32>, tensor<2xi64>) -> tensor<4x2xf32>"
    return func(
        "%l: tensor<4x3xf32>, %r: tensor<2x3x2xf32>, %g: tensor<2xi64>",
        '%0 = "chlo.ragged_dot"(%l, %r, %g) {ragged_dot_dimension_numbers = '
        "#chlo.ragged_dot<lhs_batching_dimensions = [], rhs_batching_dimensions = [], "
        "lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], "
        "lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]>, "
        f"precision_config = [{precision}]}} : {t}",
    )


def binary(op: str, lhs: str, rhs: str, result: str) -> str:
    return func(f"%a: {lhs}, %b: {rhs}", f"%0 = {op} %a, %b : ({lhs}, {rhs}) -> {result}")


def quant_arg(qtype: str) -> str:
    return func(f"%a: tensor<2x{qtype}>")


def per_axis(op: str) -> str:
    return func(f"%a: {TA}", "%i = stablehlo.constant dense<0> : tensor<i64>", op)


def dot_general(lhs: str, rhs: str, result: str) -> str:
    return binary("stablehlo.dot_general", lhs, rhs, result).replace(
        "%a, %b :", "%a, %b, contracting_dims = [1] x [0] :"
    )


def dynamic_conv(padding: str) -> str:
    lt, rt, ot = "tensor<1x4x4x1xf32>", "tensor<3x3x1x2xf32>", "tensor<1x2x2x2xf32>"
    return func(
        f"%a: {lt}, %b: {rt}, %p: {padding}",
        '%0 = "stablehlo.dynamic_conv"(%a, %b, %p) {dimension_numbers = '
        "#stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>, "
        "window_strides = array<i64: 1, 1>, feature_group_count = 1 : i64, "
        f"batch_group_count = 1 : i64}} : ({lt}, {rt}, {padding}) -> {ot}",
    )


def reduce(init: str, acc: str, result: str = "tensor<3xf32>") -> str:
    return func(
        f"%a: tensor<4x3xf32>, %i: {init}",
        f"%0 = stablehlo.reduce(%a init: %i) across dimensions = [0] : "
        f"(tensor<4x3xf32>, {init}) -> {result}\n"
        f"    reducer(%x: {acc}, %y: {acc}) {{\n"
        f"      %s = stablehlo.add %x, %y : {acc}\n"
        f"      stablehlo.return %s : {acc}\n"
        "    }",
    )


def reduce_window(init: str, result: str = "tensor<3x2xf32>", window: str = "2, 1") -> str:
    return func(
        f"%a: tensor<4x2xf32>, %i: {init}",
        '%0 = "stablehlo.reduce_window"(%a, %i) ({\n'
        f"    ^bb0(%x: {init}, %y: {init}):\n"
        f"      %s = stablehlo.add %x, %y : {init}\n"
        f"      stablehlo.return %s : {init}\n"
        f"    }}) {{window_dimensions = array<i64: {window}>}} : "
        f"(tensor<4x2xf32>, {init}) -> {result}",
    )


MESH = (
    '#stablehlo.mesh<axes = [#stablehlo.mesh_axis<name = "x", size = 2>, '
    '#stablehlo.mesh_axis<name = "y", size = 2>]>'
)


def all_gather(mesh: str) -> str:
    return func(
        "%a: tensor<16x8xf32>",
        '%0 = "stablehlo.all_gather"(%a) {all_gather_dim = 1 : i64, replica_groups = '
        f'#stablehlo.replica_group_mesh_axes<mesh = {mesh}, axes = [#stablehlo.axis_ref<name = "x">]>'
        "} : (tensor<16x8xf32>) -> tensor<16x16xf32>",
    )


NEGATIVE = [
    # ScanOp::inferReturnTypeComponents: one result per value the body returns ...
    ("chlo.scan.results", scan(["tensor<4xi32>", S32], "%b0, %b1, %b1", [S32, S32, S32])),
    # ... a carry result of the returned carry's shape ...
    ("chlo.scan.results", scan(["tensor<4xi32>", S32], "%b0, %c", [S32, "tensor<2xi32>"])),
    # ... an output of the returned slice's shape with the scanned dimension inserted
    ("chlo.scan.results", scan(["tensor<4xi32>", S32], "%c, %b1", ["tensor<2xi32>", S32])),
    # ChloOps.td: scan_dim_size is ConfinedAttr<I64Attr, [IntNonNegative]>
    (
        "chlo.scan.dimension",
        scan(["tensor<4xi32>", S32], "%b0, %b1", [S32, S32], "attributes {scan_dim_size = -1} "),
    ),
    # inferRaggedDotOp -> hlo::verifyPrecisionConfig: at most 2 entries
    ("chlo.ragged_dot.precision_config", ragged_dot(", ".join(["#chlo<precision DEFAULT>"] * 3))),
    # getNumpyBroadcastShape: a bounded and a static dimension do not broadcast ...
    ("chlo.broadcast.bounds", binary("chlo.broadcast_add", B3, "tensor<3xf32>", B3)),
    # ... nor a bound and a size that differ, neither of them 1
    ("chlo.broadcast.shape", binary("chlo.broadcast_add", B3, "tensor<4xf32>", "tensor<4xf32>")),
    (
        "chlo.broadcast.shape",
        binary("chlo.broadcast_add", B3, "tensor<?xf32, #stablehlo.bounds<4>>", B3),
    ),
    # MLIR's QuantizedType::verifyInvariants: storage of at most 32 bits
    ("quantized_type_c3", quant_arg("!quant.uniform<i64:f32, 1.0>")),
    # (C4) scales have the expressed type, (C5) positive: 1e-50 is 0 in f32
    ("quantized_type_c5", quant_arg("!quant.uniform<i8:f32, 1.0e-50>")),
    # StablehloOps.td: HLO_Tensor operands are not per-axis quantized
    (
        "dot_general_i1",
        dot_general(
            TA,
            "tensor<2x2x!quant.uniform<i8:f32, 3.0>>",
            "tensor<2x2x!quant.uniform<i32:f32, 6.0>>",
        ),
    ),
    ("reverse_i1", per_axis(f"%0 = stablehlo.reverse %a, dims = [1] : {TA}")),
    (
        "dynamic_slice_i1",
        per_axis(
            f"%0 = stablehlo.dynamic_slice %a, %i, %i, sizes = [2, 2] : "
            f"({TA}, tensor<i64>, tensor<i64>) -> {TA}"
        ),
    ),
    (
        "dynamic_update_slice_i1",
        per_axis(
            f"%0 = stablehlo.dynamic_update_slice %a, %a, %i, %i : "
            f"({TA}, {TA}, tensor<i64>, tensor<i64>) -> {TA}"
        ),
    ),
    ("optimization_barrier_i1", per_axis(f"%0 = stablehlo.optimization_barrier %a : {TA}")),
    (
        "collective_permute_i1",
        per_axis(
            '%0 = "stablehlo.collective_permute"(%a) {source_target_pairs = '
            f"dense<[[0, 0]]> : tensor<1x2xi64>}} : ({TA}) -> {TA}"
        ),
    ),
    (
        "all_to_all_i1",
        per_axis(
            '%0 = "stablehlo.all_to_all"(%a) {split_dimension = 0 : i64, concat_dimension = '
            "0 : i64, split_count = 1 : i64, replica_groups = dense<[[0]]> : tensor<1x1xi64>} "
            f": ({TA}) -> {TA}"
        ),
    ),
    # dynamic_conv (I3): padding is a 2-d integer tensor (ODS HLO_Static2DIntTensor: static)
    ("dynamic_conv_i3", dynamic_conv("tensor<2x2xf32>")),
    ("dynamic_conv_i3", dynamic_conv("tensor<?x?xi64>")),
    # verifyReducerShape: an accumulator's dimensions are a subsequence of the result's
    ("reduce_c6", reduce("tensor<5xf32>", "tensor<5xf32>")),
    ("reduce_c6", reduce("tensor<3x3xf32>", "tensor<3x3xf32>")),
    # ... and, for reduce_window, of the window dimensions
    ("reduce_window_c13", reduce_window("tensor<5xf32>")),
    # verifySelectAndScatterOp: an absent window_dimensions is empty (C4 for rank 1)
    (
        "select_and_scatter_c4",
        func(
            "%a: tensor<4xf32>, %s: tensor<4xf32>, %i: tensor<f32>",
            '%0 = "stablehlo.select_and_scatter"(%a, %s, %i) ({\n'
            "    ^bb0(%x: tensor<f32>, %y: tensor<f32>):\n"
            "      %c = stablehlo.compare GE, %x, %y : (tensor<f32>, tensor<f32>) -> tensor<i1>\n"
            "      stablehlo.return %c : tensor<i1>\n"
            "    }, {\n"
            "    ^bb0(%x: tensor<f32>, %y: tensor<f32>):\n"
            "      %t = stablehlo.add %x, %y : tensor<f32>\n"
            "      stablehlo.return %t : tensor<f32>\n"
            "    }) : (tensor<4xf32>, tensor<4xf32>, tensor<f32>) -> tensor<4xf32>",
        ),
    ),
    # ReplicaGroupMeshAxesAttr::verify: the mesh is a symbol or a #stablehlo.mesh
    ("replica_group_mesh_axes", all_gather("5 : i64")),
    # StablehloOps.td result types: iota's is static (bounds on its result are refused)
    ("iota_o1", func("", f"%0 = stablehlo.iota dim = 0 : {B3}")),
    ("iota_o1", func("", "%0 = stablehlo.iota dim = 0 : tensor<?xf32>")),
    # ... reshape's and broadcast_in_dim's static or with one dynamic dimension, bounded
    (
        "reshape_o1",
        func("%a: tensor<4xf32>", "%0 = stablehlo.reshape %a : (tensor<4xf32>) -> tensor<?xf32>"),
    ),
    (
        "broadcast_in_dim_o1",
        func(
            "%a: tensor<4xf32>",
            "%0 = stablehlo.broadcast_in_dim %a, dims = [2] : (tensor<4xf32>) -> "
            "tensor<?x?x4xf32, #stablehlo.bounds<3, ?, ?>>",
        ),
    ),
]

VALID = {
    # upstream's verifier (verifyReducerShape) accepts init values and accumulators of
    # rank > 0 in reduce_window (running one is another matter: the kernel refuses)
    "reduce_window_rank1_init": reduce_window("tensor<2xf32>"),
    "reduce_window_rank1_init_in_window": reduce_window(
        "tensor<4xf32>", "tensor<1x2xf32>", window="4, 1"
    ),
    "reduce_rank1_accumulator": reduce("tensor<3xf32>", "tensor<3xf32>"),
    # a bound broadcasts with 1
    "broadcast_bounded_with_one": binary("chlo.broadcast_add", B3, "tensor<1xf32>", B3),
    "reshape_single_bounded": func(
        "%a: tensor<4xf32>",
        "%0 = stablehlo.reshape %a : (tensor<4xf32>) -> tensor<?xf32, #stablehlo.bounds<4>>",
    ),
    "mesh_inline": all_gather(MESH),
    "mesh_symbol": all_gather("@mesh"),
    # i8<-128:127> is i8: one type (MLIR prints the bounds only when they narrow)
    "quantized_default_storage_bounds": func(
        "%a: tensor<2x!quant.uniform<i8<-128:127>:f32, 1.0>>",
        "%0 = stablehlo.add %a, %a : tensor<2x!quant.uniform<i8:f32, 1.0>>",
    ),
}


@pytest.mark.parametrize(
    ("label", "text"), NEGATIVE, ids=[f"{label}-{i}" for i, (label, _) in enumerate(NEGATIVE)]
)
def test_violation_carries_its_label(label, text):
    assert_label(text, label)


@pytest.mark.parametrize("name", sorted(VALID))
def test_upstream_accepts(name):
    assert_verifies(VALID[name])


@pytest.mark.parametrize(
    ("storage", "lo", "hi"),
    [("i8", -128, 127), ("u8", 0, 255), ("i4", -8, 7), ("i16", -32768, 32767)],
)
def test_default_storage_bounds_are_the_type_without_them(storage, lo, hi):
    """MLIR canonicalizes: the full range is not spelled out, and both spellings are one
    type (equal, hashed alike, printed alike)."""
    bare = parse_module(quant_arg(f"!quant.uniform<{storage}:f32, 1.0>"))
    spelled = parse_module(quant_arg(f"!quant.uniform<{storage}<{lo}:{hi}>:f32, 1.0>"))
    assert spelled == bare
    assert print_module(spelled) == print_module(bare)
    assert f"<{lo}:{hi}>" not in print_module(spelled)
    t = bare.functions["main"].type.inputs[0].element_type
    assert isinstance(t, QuantizedType) and hash(t) == hash(
        spelled.functions["main"].type.inputs[0].element_type
    )


def test_narrowed_storage_bounds_stay():
    """A narrowed range is another type, and prints its bounds."""
    q = QuantizedType(IntegerType(8), IntegerType(8), (1.0,), (0,), None, -127, 127)
    assert (q.storage_min, q.storage_max) == (-127, 127)
    text = print_module(parse_module(quant_arg("!quant.uniform<i8<-127:127>:f32, 1.0>")))
    assert "i8<-127:127>" in text
