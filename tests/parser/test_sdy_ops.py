"""The Shardy ops' declarations (parser/sdy/ops.py): one row per op, its format compiled
into the parser and printer the dialect registry serves, its bytecode properties read
from its attributes; and the format language's pieces the sdy formats use (the empty
literal of ODS, ``custom<Name>($attr)^``, plug-in attribute kinds).

Expected layouts and spellings come from openxla/shardy ``shardy/dialect/sdy/ir/ops.td``
(``arguments``: names, ``OptionalAttr`` / ``DefaultValuedAttr``) and the CHECK lines of
its ``*_parse_print.mlir`` tests (what ``sdy_opt`` prints).
"""

from __future__ import annotations

import re

import pytest

from hlorun.parser import dialects, parse_module, print_module
from hlorun.parser.errors import ParseError
from hlorun.parser.ir import IntegerAttr, IntegerType
from hlorun.parser.sdy import TensorShardingPerValue
from hlorun.parser.sdy.bytecode_codec import SDY_CODEC
from hlorun.parser.sdy.ops import SDY_OPS

# ops.td: each op's attribute arguments, sorted by name as ODS lays out its properties
# (True: OptionalAttr, or DefaultValuedAttr, which the writer may leave out)
ODS_PROPERTIES = {
    "sdy.mesh": (("mesh", False), ("sym_name", False)),
    "sdy.sharding_constraint": (("sharding", False),),
    "sdy.reshard": (("sharding", False),),
    "sdy.manual_computation": (
        ("in_shardings", False),
        ("manual_axes", False),
        ("out_shardings", False),
    ),
    "sdy.sharding_group": (("group_id", False),),
    "sdy.constant": (("value", False),),
    "sdy.data_flow_edge": (("sharding", True),),
    "sdy.propagation_barrier": (("allowed_direction", False),),
    "sdy.named_computation": (("in_shardings", True), ("name", False), ("out_shardings", True)),
    "sdy.all_gather": (("gathering_axes", False), ("out_sharding", False)),
    "sdy.all_slice": (("out_sharding", False), ("slicing_axes", False)),
    "sdy.all_to_all": (("out_sharding", False), ("params", False)),
    "sdy.collective_permute": (("out_sharding", False),),
    "sdy.all_reduce": (("out_sharding", False), ("reduction_axes", False), ("reduction_op", True)),
    "sdy.reduce_scatter": (
        ("out_sharding", False),
        ("reduce_scatter_axes", False),
        ("reduction_op", True),
    ),
    "sdy.sharded_to_unreduced": (("axes", False), ("out_sharding", False)),
    "sdy.replicated_to_unreduced": (("axes", False), ("out_sharding", False)),
}

# the ops of ops.td with no attribute argument
NO_PROPERTIES = {"sdy.return", "sdy.func_data_flow_edge"}


def test_every_op_of_ops_td_is_declared_once():
    assert set(SDY_OPS) == set(ODS_PROPERTIES) | NO_PROPERTIES
    assert all(d.format for d in SDY_OPS.values())


def test_the_registry_serves_the_declared_forms():
    sdy = dialects.lookup("sdy")
    assert sdy is not None and sdy.ops == ".sdy.ops" and sdy.custom_forms is not None
    assert set(sdy.custom_forms("FORMS")) == set(SDY_OPS)
    assert set(sdy.custom_forms("PRINT_FORMS")) == set(SDY_OPS)


@pytest.mark.parametrize("name", sorted(ODS_PROPERTIES))
def test_bytecode_properties_are_the_declared_attributes(name):
    assert SDY_CODEC.property_spec(name) == ODS_PROPERTIES[name]


@pytest.mark.parametrize("name", sorted(NO_PROPERTIES))
def test_an_op_without_attributes_has_no_properties(name):
    assert SDY_CODEC.property_spec(name) is None


def _body(text: str) -> list:
    m = parse_module("func.func @f(%arg0: tensor<8xf32>) {\n" + text + "\n  func.return\n}\n")
    return m.functions["f"].body.blocks[0].operations


def _printed(text: str) -> str:
    m = parse_module("func.func @f(%arg0: tensor<8xf32>) {\n" + text + "\n  func.return\n}\n")
    return print_module(m).splitlines()[1].strip()


def test_spaces_around_the_equals_sign_are_read():
    """ODS `` `allowed_direction````=``` ``: keyword and `=` are tokens (MLIR's parser
    skips blanks between them); printed with none."""
    (op, _) = _body(
        "%0 = sdy.propagation_barrier %arg0 allowed_direction = FORWARD : tensor<8xf32>"
    )
    assert op.attr("allowed_direction") == IntegerAttr(1, IntegerType(32))
    assert _printed(
        "%0 = sdy.propagation_barrier %arg0 allowed_direction = FORWARD : tensor<8xf32>"
    ) == ("%0 = sdy.propagation_barrier %arg0 allowed_direction=FORWARD : tensor<8xf32>")


def test_an_optional_group_anchored_on_a_directive():
    """named_computation_parse_print.mlir: out_shardings alone, no in_shardings."""
    text = (
        'sdy.mesh @mesh = <["a"=2]>\n'
        "func.func @f(%arg0: tensor<8xf32>) -> tensor<8xf32> {\n"
        '  %0 = sdy.named_computation<"bar">(%arg0) out_shardings=[<@mesh, [{"a"}]>]'
        " (%arg1: tensor<8xf32>) {\n"
        "    sdy.return %arg1 : tensor<8xf32>\n"
        "  } : (tensor<8xf32>) -> tensor<8xf32>\n"
        "  return %0 : tensor<8xf32>\n}\n"
    )
    m = parse_module(text)
    nc = m.functions["f"].body.blocks[0].operations[0]
    assert nc.attr("in_shardings") is None
    assert isinstance(nc.attr("out_shardings"), TensorShardingPerValue)
    printed = print_module(m)
    assert (
        '%0 = sdy.named_computation<"bar">(%arg0) out_shardings=[<@mesh, [{"a"}]>]'
        " (%arg1: tensor<8xf32>) {" in printed
    )
    assert parse_module(printed) == m


def test_data_flow_edge_with_and_without_sharding():
    """edge_sharding_parse_print.mlir's forms."""
    text = (
        '%0 = sdy.data_flow_edge %arg0 sharding=<@mesh, [{"a"}]> : tensor<8xf32>\n'
        "%1 = sdy.data_flow_edge %0 : tensor<8xf32>"
    )
    a, b, _ = _body(text)
    assert a.attr("sharding") is not None and b.attr("sharding") is None
    m = parse_module("func.func @f(%arg0: tensor<8xf32>) {\n" + text + "\n  func.return\n}\n")
    lines = [line.strip() for line in print_module(m).splitlines()]
    assert '%0 = sdy.data_flow_edge %arg0 sharding=<@mesh, [{"a"}]> : tensor<8xf32>' in lines
    assert "%1 = sdy.data_flow_edge %0 : tensor<8xf32>" in lines


def test_mesh_return_and_sharding_group_forms():
    text = 'sdy.mesh @"my mesh" = <["x"=2]> {foo = 1 : i32}\n'
    m = parse_module(text)
    assert print_module(m).strip() == text.strip()
    assert _printed("sdy.sharding_group %arg0 group_id=7 : tensor<8xf32>") == (
        "sdy.sharding_group %arg0 group_id=7 : tensor<8xf32>"
    )


def test_a_reduction_given_as_the_default_is_written_generic():
    """``DefaultValuedAttr<Sdy_ReductionOp, SUM>``: the pretty form leaves ``sum`` out,
    so an op holding it prints in the generic form, which keeps it."""
    text = (
        '%0 = "sdy.all_reduce"(%arg0) <{out_sharding = #sdy.sharding<@mesh, [{}]>, '
        'reduction_axes = #sdy<axis_ref_list{"x"}>, reduction_op = 0 : i32}> '
        ": (tensor<8xf32>) -> tensor<8xf32>"
    )
    printed = _printed(text)
    assert printed.startswith('%0 = "sdy.all_reduce"(%arg0)')
    assert _printed(
        '%0 = sdy.all_reduce {"x"} %arg0 out_sharding=<@mesh, [{}]> : tensor<8xf32>'
    ) == ('%0 = sdy.all_reduce {"x"} %arg0 out_sharding=<@mesh, [{}]> : tensor<8xf32>')


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            "%0 = sdy.propagation_barrier %arg0 allowed_direction=SIDEWAYS : tensor<8xf32>",
            "expected a propagation direction, found 'SIDEWAYS'",
        ),
        (
            "%0 = sdy.reshard %arg0 [{}] : tensor<8xf32>",
            "expected '<' to open a tensor sharding",
        ),
        (
            "sdy.manual_computation() in_shardings=[] manual_axes={} () {\n"
            "  sdy.return\n} : () -> ()",
            "expected 'out_shardings'",
        ),
        (
            "%0 = sdy.sharding_group %arg0 group_id=1 : tensor<8xf32>",
            "'sdy.sharding_group' has 0 results, the text defines 1",
        ),
        (
            "%0, %1 = sdy.reshard %arg0 <@mesh, [{}]> : tensor<8xf32>",
            "'sdy.reshard' has 1 result, the text defines 2",
        ),
    ],
)
def test_a_form_that_does_not_read_is_a_parse_error(text, message):
    with pytest.raises(ParseError, match=message):
        _body(text)


@pytest.mark.parametrize(
    "text",
    [
        # type($result): operand and result types differ
        '%0 = "sdy.sharding_constraint"(%arg0) <{sharding = #sdy.sharding<@mesh, [{}]>}>'
        " : (tensor<8xf32>) -> tensor<8xi32>",
        # two operands where ops.td declares one
        '%0 = "sdy.reshard"(%arg0, %arg0) <{sharding = #sdy.sharding<@mesh, [{}]>}>'
        " : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>",
        # an attribute not of its declared kind (Sdy_ListOfAxisRefLists)
        '%0 = "sdy.all_gather"(%arg0) <{gathering_axes = #sdy<axis_ref_list{"x"}>, '
        "out_sharding = #sdy.sharding<@mesh, [{}]>}> : (tensor<8xf32>) -> tensor<8xf32>",
        # an enum case out of range, an enum of another integer type
        '%0 = "sdy.propagation_barrier"(%arg0) <{allowed_direction = 7 : i32}>'
        " : (tensor<8xf32>) -> tensor<8xf32>",
        '%0 = "sdy.propagation_barrier"(%arg0) <{allowed_direction = 1 : i64}>'
        " : (tensor<8xf32>) -> tensor<8xf32>",
        # an operand of an op declared without operands
        '"sdy.mesh"(%arg0) <{mesh = #sdy.mesh<["a"=2]>, sym_name = "m"}> : (tensor<8xf32>) -> ()',
        # a result of an op declared without results
        '%0 = "sdy.sharding_group"(%arg0) <{group_id = 1 : i64}> : (tensor<8xf32>) -> tensor<8xf32>',
    ],
)
def test_an_op_that_does_not_fit_its_form_prints_generic(text):
    printed = _printed(text)
    assert re.match(r'(%0 = )?"sdy\.[a-z_]+"\(%arg0', printed), printed
    m = parse_module("func.func @f(%arg0: tensor<8xf32>) {\n" + text + "\n  func.return\n}\n")
    assert parse_module(print_module(m)) == m
