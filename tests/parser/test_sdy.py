"""The Shardy (``sdy``) dialect's text: attributes and ops.

Expected spellings are the CHECK lines of openxla/shardy's
``shardy/dialect/sdy/ir/test/*_parse_print.mlir`` (what ``sdy_opt`` prints for the
input beside each), copied here; the IR values follow ``attrs.td`` / ``ops.td``.
"""

from __future__ import annotations

import pytest

from hlorun.parser import parse_module, print_module
from hlorun.parser.errors import ParseError
from hlorun.parser.grammar import Parser
from hlorun.parser.ir import IntegerAttr, IntegerType, StringAttr, SymbolRefAttr
from hlorun.parser.printer import print_attribute
from hlorun.parser.sdy import (
    AxisRef,
    DimensionSharding,
    DimMapping,
    ManualAxes,
    Mesh,
    MeshAxis,
    OpShardingRule,
    SubAxisInfo,
    TensorMapping,
    TensorSharding,
    TensorShardingPerValue,
    factor_symbol,
)


def attr(text: str):
    p = Parser(text)
    a = p.parse_attribute()
    assert p.c.at_end()
    return a


# (input, what sdy_opt prints): tensor_sharding_parse_print.mlir, mesh_parse_print.mlir,
# sharding_rule_parse_print.mlir.
PRINTED = [
    ("#sdy.sharding_per_value<[]>", None),
    ('#sdy.sharding_per_value<[<@foo, [], replicated={"b"}>]>', None),
    ('#sdy.sharding_per_value<[<@foo, [{}, {}], replicated={"a", "b"}>]>', None),
    ('#sdy.sharding_per_value<[<@foo, [{}, {}], unreduced=max{"a"}>]>', None),
    (
        '#sdy.sharding_per_value<[<@foo, [{}, {}], unreduced={"b"}, replicated={"a"}>]>',
        '#sdy.sharding_per_value<[<@foo, [{}, {}], replicated={"a"}, unreduced={"b"}>]>',
    ),
    ('#sdy.sharding_per_value<[<mesh<["x"=2, "y"=2]>, [{"x"}, {}]>]>', None),
    ('#sdy.sharding_per_value<[<mesh<["x"=2], device_ids=[1, 0]>, [{"x"}, {}]>]>', None),
    (
        '#sdy.sharding_per_value<[<mesh<["x"=2], device_ids=[0, 1]>, [{"x"}, {}]>]>',
        '#sdy.sharding_per_value<[<mesh<["x"=2]>, [{"x"}, {}]>]>',
    ),
    ('#sdy.sharding_per_value<[<@foo, [{"a", ?}, {?}]>]>', None),
    ('#sdy.sharding_per_value<[<@foo, [{"a", "b", ?}, {}]>]>', None),
    ('#sdy.sharding_per_value<[<@foo, [{"a"}, {"b":(2)2}]>]>', None),
    ('#sdy.sharding_per_value<[<@bar, [{"a":(1)2, "b", "a":(2)2}, {}]>]>', None),
    ('#sdy.sharding_per_value<[<@foo, [{"a"}p0, {"b"}p1]>]>', None),
    ("#sdy.sharding_per_value<[<@maximal_mesh, []>]>", None),
    (
        '#sdy.sharding_per_value<[<@mesh, [{"a",?}]>]>',
        '#sdy.sharding_per_value<[<@mesh, [{"a", ?}]>]>',
    ),
    ("#sdy.op_sharding_rule<([], [])->([])>", None),
    ("#sdy.op_sharding_rule<([i, j])->([ij]) {i=2, j=4}>", None),
    ("#sdy.op_sharding_rule<([i, j])->([i, j]) {i=16, j=32}, custom>", None),
    ("#sdy.op_sharding_rule<([i])->([i]) {i=8589934592}, custom>", None),
    (
        "#sdy.op_sharding_rule<([i, j, k, l])->([i, k, l]) {i=2, j=3, k=5, l=7} reduction={j} "
        "need_replication={i, l} permutation={k}, custom>",
        None,
    ),
    (
        "#sdy.op_sharding_rule<([i, j, k, l])->([i, k, l]) {i=2, j=3, k=5, l=7} reduction={j} "
        "need_replication={i, l} permutation={k} blocked_propagation={l}>",
        None,
    ),
    ('#sdy.mesh<["a"=2], device_ids=[1, 0]>', None),
    ("#sdy.mesh<[], device_ids=[3]>", None),
    ('#sdy.mesh<["a"=1], device_ids=[0]>', '#sdy.mesh<["a"=1]>'),
    ('#sdy<manual_axes{"x", "y"}>', None),
]


@pytest.mark.parametrize(("text", "printed"), PRINTED)
def test_attribute_prints_as_sdy_opt(text: str, printed: str | None) -> None:
    a = attr(text)
    assert print_attribute(a) == (printed or text)
    assert attr(print_attribute(a)) == a


def test_sharding_values() -> None:
    a = attr('#sdy.sharding<@mesh, [{"x", ?}p2, {}], replicated={"y":(1)2}>')
    assert a == TensorSharding(
        SymbolRefAttr("mesh"),
        (DimensionSharding((AxisRef("x"),), False, 2), DimensionSharding()),
        (AxisRef("y", SubAxisInfo(1, 2)),),
    )
    assert a.mesh_name == "mesh"


def test_rule_values() -> None:
    """``zz_1`` is the factors z (17) and z_1 (18); ``z_8z_9z_10`` three factors."""
    a = attr("#sdy.op_sharding_rule<([i, jk])->([zz_1, z_8z_9z_10]) {i=2, j=3, k=4}>")
    assert isinstance(a, OpShardingRule)
    assert a.operand_mappings == (TensorMapping((DimMapping((0,)), DimMapping((1, 2)))),)
    assert a.result_mappings == (TensorMapping((DimMapping((17, 18)), DimMapping((25, 26, 27)))),)
    assert a.factor_sizes == (2, 3, 4)
    assert [factor_symbol(i) for i in (0, 17, 18, 27)] == ["i", "z", "z_1", "z_10"]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('#sdy.sharding<@foo, [{"a"}p01]>', "priority"),
        ('#sdy.sharding<@foo, [{"a"}px]>', "priority"),
        ('#sdy.sharding<foo, [{"a"}]>', "MeshAttr or FlatSymbolRefAttr"),
        ("#sdy.op_sharding_rule<([A])->([i])>", "from 'i' to 'z'"),
        ("#sdy.op_sharding_rule<([i])->([i]) {j=2}>", "in order"),
        ('#sdy.sharding<@foo, [{"a"}], bogus={"b"}>', "replicated"),
        ("#sdy.nonsense<1>", "unknown sdy attribute"),
    ],
)
def test_bad_attribute_is_a_parse_error(text: str, message: str) -> None:
    with pytest.raises(ParseError, match=message):
        attr(text)


# ---- ops -------------------------------------------------------------------------------

MESHES = """
sdy.mesh @meshA = <["a"=2, "b"=2]>
sdy.mesh @maximal_mesh_0 = <[], device_ids=[0]>
"""


def test_mesh_op() -> None:
    m = parse_module(MESHES)
    a, b = m.body
    assert a.name == "sdy.mesh" and not a.results
    assert a.attr("sym_name") == StringAttr("meshA")
    assert a.attr("mesh") == Mesh((MeshAxis("a", 2), MeshAxis("b", 2)))
    assert b.attr("mesh") == Mesh((), (0,))
    assert a.property_names == frozenset({"sym_name", "mesh"})
    assert parse_module(print_module(m)) == m


MANUAL = (
    MESHES
    + """
func.func @f(%arg0: tensor<16x32xf32>) -> tensor<16x32xf32> {
  %0 = sdy.manual_computation(%arg0) in_shardings=[<@meshA, [{"a"}, {}]>] out_shardings=[<@meshA, [{"a"}, {}]>] manual_axes={"a"} (%arg1: tensor<8x32xf32>) {
    %1 = sdy.sharding_constraint %arg1 <@meshA, [{}, {"b"}]> : tensor<8x32xf32>
    %2 = sdy.reshard %1 <@meshA, [{}, {}]> : tensor<8x32xf32>
    %3 = sdy.propagation_barrier %2 allowed_direction=BACKWARD : tensor<8x32xf32>
    sdy.return %3 : tensor<8x32xf32>
  } : (tensor<16x32xf32>) -> tensor<16x32xf32>
  return %0 : tensor<16x32xf32>
}
"""
)


def test_manual_computation_op() -> None:
    m = parse_module(MANUAL)
    f = m.functions["f"]
    mc = f.body.blocks[0].operations[0]
    assert mc.name == "sdy.manual_computation"
    assert mc.attr("manual_axes") == ManualAxes(("a",))
    assert mc.attr("in_shardings") == TensorShardingPerValue(
        (
            TensorSharding(
                SymbolRefAttr("meshA"), (DimensionSharding((AxisRef("a"),)), DimensionSharding())
            ),
        )
    )
    body = mc.regions[0].blocks[0]
    assert [v.name for v in body.arguments] == ["%arg1"]
    names = [op.name for op in body.operations]
    assert names == [
        "sdy.sharding_constraint",
        "sdy.reshard",
        "sdy.propagation_barrier",
        "sdy.return",
    ]
    barrier = body.operations[2]
    assert barrier.attr("allowed_direction") == IntegerAttr(2, IntegerType(32))
    assert body.operations[-1].operands[0].name == "%3"
    assert parse_module(print_module(m)) == m


def test_generic_and_pretty_forms_agree() -> None:
    pretty = parse_module(
        'sdy.mesh @m = <["x"=2]>\n'
        "func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {\n"
        '  %0 = sdy.sharding_constraint %a <@m, [{"x"}]> : tensor<4xf32>\n'
        "  return %0 : tensor<4xf32>\n}\n"
    )
    generic = parse_module(
        '"sdy.mesh"() <{mesh = #sdy.mesh<["x"=2]>, sym_name = "m"}> : () -> ()\n'
        "func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {\n"
        '  %0 = "sdy.sharding_constraint"(%a) <{sharding = #sdy.sharding<@m, [{"x"}]>}>'
        " : (tensor<4xf32>) -> tensor<4xf32>\n"
        "  return %0 : tensor<4xf32>\n}\n"
    )
    assert pretty == generic


NAMED = """
sdy.mesh @mesh = <["a"=2, "b"=2]>
func.func @g(%arg0: tensor<8x2xi32>, %arg1: tensor<4x2xi32>) -> (tensor<8x2xi32>, tensor<4x2xi32>) {
  %0:2 = sdy.named_computation<"named_computation">(%arg0, %arg1) in_shardings=[<@mesh, [{"b"}, {}]>, <@mesh, [{}, {}]>] (%arg2: tensor<8x2xi32>, %arg3: tensor<4x2xi32>) {
    sdy.return %arg2, %arg3 : tensor<8x2xi32>, tensor<4x2xi32>
  } : (tensor<8x2xi32>, tensor<4x2xi32>) -> (tensor<8x2xi32>, tensor<4x2xi32>)
  %1 = sdy.constant dense<1> : tensor<8x2xi32>
  sdy.sharding_group %1 group_id=3 : tensor<8x2xi32>
  return %0#0, %0#1 : tensor<8x2xi32>, tensor<4x2xi32>
}
"""


def test_named_computation_constant_sharding_group() -> None:
    m = parse_module(NAMED)
    ops = m.functions["g"].body.blocks[0].operations
    nc, const, group = ops[0], ops[1], ops[2]
    assert nc.attr("name") == StringAttr("named_computation")
    assert nc.attr("out_shardings") is None
    assert len(nc.attr("in_shardings").shardings) == 2
    assert len(nc.results) == 2
    assert const.name == "sdy.constant" and const.attr("value").array.tolist() == [[1, 1]] * 8
    assert group.attr("group_id") == IntegerAttr(3, IntegerType(64)) and not group.results
    assert parse_module(print_module(m)) == m


def test_collective_ops() -> None:
    text = (
        'sdy.mesh @mesh = <["x"=2, "y"=2]>\n'
        "func.func @c(%a: tensor<8x8xf32>) -> tensor<8x8xf32> {\n"
        '  %0 = sdy.all_gather [{"y"}, {}] %a out_sharding=<@mesh, [{"x"}, {}]> : tensor<8x8xf32>\n'
        '  %1 = sdy.all_reduce max {"x"} %0 out_sharding=<@mesh, [{}, {}]> : tensor<8x8xf32>\n'
        '  %2 = sdy.all_to_all [{"x"}: 0->1] %1 out_sharding=<@mesh, [{}, {"x"}]> : tensor<8x8xf32>\n'
        "  return %2 : tensor<8x8xf32>\n}\n"
    )
    m = parse_module(text)
    ops = m.functions["c"].body.blocks[0].operations
    assert ops[1].attr("reduction_op") == IntegerAttr(1, IntegerType(32))
    assert print_attribute(ops[0].attr("gathering_axes")) == (
        '#sdy<list_of_axis_ref_lists[{"y"}, {}]>'
    )
    assert print_attribute(ops[2].attr("params")) == '#sdy<all_to_all_param_list[{"x"}: 0->1]>'
    assert parse_module(print_module(m)) == m


def test_fixture_text_parses() -> None:
    from pathlib import Path

    path = Path(__file__).resolve().parents[1] / "fixtures" / "jax" / "shard_map_psum.mlir"
    m = parse_module(path.read_text())
    assert m.body[0].name == "sdy.mesh"
    assert parse_module(print_module(m)) == m


# (a function body, lines sdy_opt prints for it: the CHECK lines of
# manual_computation_parse_print.mlir, named_computation_parse_print.mlir,
# propagation_barrier_parse_print.mlir, constant_parse_print.mlir,
# collective_parse_print.mlir)
PRINTED_OPS = [
    (
        "sdy.manual_computation() in_shardings=[] out_shardings=[] manual_axes={} () {\n"
        "  sdy.return\n} : () -> ()",
        [
            "sdy.manual_computation() in_shardings=[] out_shardings=[] manual_axes={} () {",
            "sdy.return",
            "} : () -> ()",
        ],
    ),
    (
        '%0 = sdy.named_computation<"foo">(%arg0) (%arg1: tensor<8x2xi32>) {\n'
        "  sdy.return %arg1 : tensor<8x2xi32>\n} : (tensor<8x2xi32>) -> tensor<8x2xi32>",
        [
            '%0 = sdy.named_computation<"foo">(%arg0) (%arg1: tensor<8x2xi32>) {',
            "sdy.return %arg1 : tensor<8x2xi32>",
            "} : (tensor<8x2xi32>) -> tensor<8x2xi32>",
        ],
    ),
    (
        "%0 = sdy.propagation_barrier %arg0 allowed_direction=BACKWARD : tensor<8x2xi32>",
        ["%0 = sdy.propagation_barrier %arg0 allowed_direction=BACKWARD : tensor<8x2xi32>"],
    ),
    (
        "%0 = sdy.constant dense<1.000000e+00> : tensor<8x16xf32>",
        ["%0 = sdy.constant dense<1.000000e+00> : tensor<8x16xf32>"],
    ),
    (
        '%0 = sdy.all_gather [{}, {"x"}] %arg0 out_sharding=<@mesh1, [{"y"}, {}]> :'
        " tensor<8x2xi32>",
        ['%0 = sdy.all_gather [{}, {"x"}] %arg0 out_sharding=<@mesh1, [{"y"}, {}]>'],
    ),
    (
        '%0 = sdy.all_to_all [{"x"}: 0->1] %arg0 out_sharding=<@mesh1, [{}, {"x"}]> :'
        " tensor<8x2xi32>",
        ['%0 = sdy.all_to_all [{"x"}: 0->1] %arg0 out_sharding=<@mesh1, [{}, {"x"}]>'],
    ),
    (
        '%0 = sdy.all_reduce max {"y"} %arg0 out_sharding=<@mesh1, [{}, {"x"}]> :  tensor<8x2xi32>',
        ['%0 = sdy.all_reduce max {"y"} %arg0 out_sharding=<@mesh1, [{}, {"x"}]>'],
    ),
    (
        '%0 = sdy.reduce_scatter [{}, {"y"}] %arg0 out_sharding=<@mesh1, [{"x"}, {"y"}]>'
        " : tensor<8x2xi32>",
        ['%0 = sdy.reduce_scatter [{}, {"y"}] %arg0 out_sharding=<@mesh1, [{"x"}, {"y"}]>'],
    ),
    (
        '%0 = sdy.collective_permute %arg0 out_sharding=<@mesh2, [{"z", "x", "y", ?}, {}]>'
        " : tensor<8x2xi32>",
        ['%0 = sdy.collective_permute %arg0 out_sharding=<@mesh2, [{"z", "x", "y", ?}, {}]>'],
    ),
]


@pytest.mark.parametrize(("body", "lines"), PRINTED_OPS)
def test_op_prints_as_sdy_opt(body: str, lines: list[str]) -> None:
    text = "func.func @f(%arg0: tensor<8x2xi32>) {\n" + body + "\n  func.return\n}\n"
    m = parse_module(text)
    printed = [line.strip() for line in print_module(m).splitlines()]
    for want in lines:
        assert any(line.startswith(want) for line in printed), (want, printed)
    assert parse_module(print_module(m)) == m
