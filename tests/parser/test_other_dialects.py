"""Custom forms of the other dialects' ops that StableHLO's test files use: scf.for,
scf.yield, tensor.insert, arith.constant and binary ops,
builtin.unrealized_conversion_cast and vhlo.func_v1.

The custom and generic spellings are written from MLIR's definitions (SCF.cpp ForOp::parse
/ print, SCFOps.td, TensorOps.td, ArithOps.td, BuiltinOps.td, VhloOps.td / VhloOps.cpp
FunctionBody), not from our output.
"""

from __future__ import annotations

import pytest

from hlorun.parser.errors import ParseError
from hlorun.parser.grammar import parse_module
from hlorun.parser.ir import (
    BoolAttr,
    FloatAttr,
    FloatType,
    IndexType,
    IntegerAttr,
    IntegerType,
    LocationAttr,
    Operation,
    TensorType,
    UnitAttr,
    Value,
)
from hlorun.parser.printer import print_module
from hlorun.parser.vhlo.ir import VhloAttr, VhloType

F32 = FloatType("f32")
T2 = TensorType((2,), F32)
INDEX = IndexType()


def body_ops(text: str, args: str):
    m = parse_module(f"func.func @f({args}) {{\n{text}\n  func.return\n}}")
    return m.body[0].body.entry.operations


def first_op(text: str, args: str) -> Operation:
    return body_ops(text, args)[0]


def roundtrips(text: str) -> str:
    """The printed text of ``text``'s module, after checking parse(print(m)) == m and
    that printing is a fixed point."""
    m = parse_module(text)
    printed = print_module(m)
    again = parse_module(printed)
    assert again == m
    assert print_module(again) == printed
    return printed


BOUNDS = "%lb: index, %ub: index, %st: index"

# ---- scf.for ------------------------------------------------------------------------------

FOR_CUSTOM = """  %r = scf.for %i = %lb to %ub step %st iter_args(%acc = %x) -> tensor<2xf32> {
    %y = tensor.insert %c into %acc[%i] : tensor<2xf32>
    scf.yield %y : tensor<2xf32>
  }"""
FOR_GENERIC = """  %r = "scf.for"(%lb, %ub, %st, %x) ({
  ^bb0(%i: index, %acc: tensor<2xf32>):
    %y = "tensor.insert"(%c, %acc, %i) : (f32, tensor<2xf32>, index) -> tensor<2xf32>
    "scf.yield"(%y) : (tensor<2xf32>) -> ()
  }) : (index, index, index, tensor<2xf32>) -> tensor<2xf32>"""
FOR_ARGS = BOUNDS + ", %x: tensor<2xf32>, %c: f32"


def test_scf_for_custom_equals_generic():
    a = first_op(FOR_CUSTOM, FOR_ARGS)
    b = first_op(FOR_GENERIC, FOR_ARGS)
    assert a == b
    assert a.name == "scf.for"
    assert a.operands == (
        Value("%lb", INDEX),
        Value("%ub", INDEX),
        Value("%st", INDEX),
        Value("%x", T2),
    )
    assert a.results == (Value("%r", T2),)
    entry = a.regions[0].entry
    assert entry.arguments == (Value("%i", INDEX), Value("%acc", T2))
    assert [o.name for o in entry.operations] == ["tensor.insert", "scf.yield"]


def test_scf_for_prints_its_custom_form():
    printed = roundtrips(
        f"func.func @f({FOR_ARGS}) -> tensor<2xf32> {{\n{FOR_GENERIC}\n"
        "  func.return %r : tensor<2xf32>\n}\n"
    )
    # ForOp::print: the result types always in parentheses, terminators kept
    assert (
        "%r = scf.for %i = %lb to %ub step %st iter_args(%acc = %x) -> (tensor<2xf32>) {\n"
        "    %y = tensor.insert %c into %acc[%i] : tensor<2xf32>\n"
        "    scf.yield %y : tensor<2xf32>\n  }\n"
    ) in printed


def test_scf_for_typed_bounds_and_implicit_yield():
    """`: i32` after the step types the bounds and the induction variable; without
    iter_args the body's `scf.yield` may be left out (ensureTerminator adds it)."""
    args = "%a: i32, %b: i32, %s: i32"
    custom = '  scf.for %i = %a to %b step %s : i32 {\n    %z = "test.use"(%i) : (i32) -> i32\n  }'
    generic = (
        '  "scf.for"(%a, %b, %s) ({\n  ^bb0(%i: i32):\n'
        '    %z = "test.use"(%i) : (i32) -> i32\n'
        '    "scf.yield"() : () -> ()\n  }) : (i32, i32, i32) -> ()'
    )
    a = first_op(custom, args)
    assert a == first_op(generic, args)
    i32 = IntegerType(32)
    assert a.operand_types == (i32, i32, i32)
    assert a.results == ()
    assert a.regions[0].entry.arguments == (Value("%i", i32),)
    assert a.regions[0].entry.operations[-1] == Operation("scf.yield")
    printed = roundtrips(f"func.func @f({args}) {{\n{generic}\n  func.return\n}}\n")
    # no iteration arguments: the terminator is not printed
    assert "scf.for %i = %a to %b step %s : i32 {\n" in printed
    assert "scf.yield" not in printed


def test_scf_for_empty_body():
    a = first_op("  scf.for %i = %lb to %ub step %st {\n  }", BOUNDS)
    assert a.regions[0].entry.arguments == (Value("%i", INDEX),)
    assert a.regions[0].entry.operations == (Operation("scf.yield"),)


def test_scf_for_unsigned_and_attributes():
    custom = "  scf.for unsigned %i = %lb to %ub step %st {\n  } {foo = 1 : i32}"
    generic = (
        '  "scf.for"(%lb, %ub, %st) <{unsignedCmp}> ({\n  ^bb0(%i: index):\n'
        '    "scf.yield"() : () -> ()\n  }) {foo = 1 : i32} : (index, index, index) -> ()'
    )
    a = first_op(custom, BOUNDS)
    assert a == first_op(generic, BOUNDS)
    assert a.attr("unsignedCmp") == UnitAttr()
    assert a.attr("foo") == IntegerAttr(1, IntegerType(32))
    printed = roundtrips(f"func.func @f({BOUNDS}) {{\n{generic}\n  func.return\n}}\n")
    assert "scf.for unsigned %i = %lb to %ub step %st {\n  } {foo = 1 : i32}\n" in printed


def test_scf_for_several_iteration_arguments():
    args = BOUNDS + ", %x: tensor<2xf32>, %n: i64"
    custom = (
        "  %r:2 = scf.for %i = %lb to %ub step %st iter_args(%p = %x, %q = %n)"
        " -> (tensor<2xf32>, i64) {\n    scf.yield %p, %q : tensor<2xf32>, i64\n  }"
    )
    generic = (
        '  %r:2 = "scf.for"(%lb, %ub, %st, %x, %n) ({\n'
        "  ^bb0(%i: index, %p: tensor<2xf32>, %q: i64):\n"
        '    "scf.yield"(%p, %q) : (tensor<2xf32>, i64) -> ()\n'
        "  }) : (index, index, index, tensor<2xf32>, i64) -> (tensor<2xf32>, i64)"
    )
    a = first_op(custom, args)
    assert a == first_op(generic, args)
    assert a.results == (Value("%r#0", T2), Value("%r#1", IntegerType(64)))
    printed = roundtrips(f"func.func @f({args}) {{\n{generic}\n  func.return\n}}\n")
    assert "iter_args(%p = %x, %q = %n) -> (tensor<2xf32>, i64) {\n" in printed


def test_scf_for_iteration_count_mismatch_is_an_error():
    with pytest.raises(ParseError, match="loop-carried"):
        body_ops(
            "  %r = scf.for %i = %lb to %ub step %st iter_args(%a = %x) -> (f32, f32) {\n  }",
            BOUNDS + ", %x: f32",
        )


def test_scf_for_without_a_yield_prints_generic():
    """A generic body without its terminator cannot take the custom form (the parser
    would add one): it stays generic and still round-trips."""
    generic = (
        '  "scf.for"(%lb, %ub, %st) ({\n  ^bb0(%i: index):\n'
        '    %z = "test.use"(%i) : (index) -> index\n  }) : (index, index, index) -> ()'
    )
    printed = roundtrips(f"func.func @f({BOUNDS}) {{\n{generic}\n  func.return\n}}\n")
    assert '"scf.for"(%lb, %ub, %st)' in printed


# ---- scf.yield, tensor.insert, arith, builtin ------------------------------------------------


@pytest.mark.parametrize(
    "custom, generic",
    [
        ("scf.yield", '"scf.yield"() : () -> ()'),
        ("scf.yield %a : f32", '"scf.yield"(%a) : (f32) -> ()'),
        (
            "scf.yield %a, %t : f32, tensor<2xf32>",
            '"scf.yield"(%a, %t) : (f32, tensor<2xf32>) -> ()',
        ),
        ("scf.yield {k = 2 : i32} %a : f32", '"scf.yield"(%a) {k = 2 : i32} : (f32) -> ()'),
    ],
)
def test_scf_yield(custom: str, generic: str):
    custom_equals_generic(custom, generic, "%a: f32, %t: tensor<2xf32>")


@pytest.mark.parametrize(
    "custom, generic, args",
    [
        (
            "%y = tensor.insert %c into %t[%i] : tensor<2xf32>",
            '%y = "tensor.insert"(%c, %t, %i) : (f32, tensor<2xf32>, index) -> tensor<2xf32>',
            "%c: f32, %t: tensor<2xf32>, %i: index",
        ),
        (
            "%y = tensor.insert %c into %t[%i, %j] : tensor<2x?xi8>",
            '%y = "tensor.insert"(%c, %t, %i, %j) : (i8, tensor<2x?xi8>, index, index) -> tensor<2x?xi8>',
            "%c: i8, %t: tensor<2x?xi8>, %i: index, %j: index",
        ),
        (
            "%y = tensor.insert %c into %t[] {k} : tensor<f32>",
            '%y = "tensor.insert"(%c, %t) {k} : (f32, tensor<f32>) -> tensor<f32>',
            "%c: f32, %t: tensor<f32>",
        ),
    ],
)
def test_tensor_insert(custom: str, generic: str, args: str):
    custom_equals_generic(custom, generic, args)


def custom_equals_generic(custom: str, generic: str, args: str) -> None:
    """``custom`` parses into the op ``generic`` spells, which prints as ``custom``."""
    a = first_op("  " + custom, args)
    assert a == first_op("  " + generic, args)
    printed = roundtrips(f"func.func @f({args}) {{\n  {generic}\n  func.return\n}}\n")
    assert f"  {custom}\n" in printed


def test_tensor_insert_needs_a_tensor_type():
    with pytest.raises(ParseError, match="tensor type"):
        body_ops("  %y = tensor.insert %c into %t[] : f32", "%c: f32, %t: f32")


@pytest.mark.parametrize(
    "custom, generic, args",
    [
        (
            "%y = arith.addf %a, %b : f32",
            '%y = "arith.addf"(%a, %b) : (f32, f32) -> f32',
            "%a: f32, %b: f32",
        ),
        (
            "%y = arith.maxsi %a, %b {k} : i32",
            '%y = "arith.maxsi"(%a, %b) {k} : (i32, i32) -> i32',
            "%a: i32, %b: i32",
        ),
        (
            # BuiltinOps.td: `($inputs^ : type($inputs))? to type($outputs) attr-dict`
            "%y:2 = builtin.unrealized_conversion_cast %a, %b : f32, i32 to i64, index {k}",
            '%y:2 = "builtin.unrealized_conversion_cast"(%a, %b) {k} : (f32, i32) -> (i64, index)',
            "%a: f32, %b: i32",
        ),
    ],
)
def test_arith_binary_and_casts(custom: str, generic: str, args: str):
    custom_equals_generic(custom, generic, args)


@pytest.mark.parametrize(
    "generic, args",
    [
        # operand and result types that differ: no `type($result)` spells them
        ('%y = "arith.addi"(%a, %b) : (i32, i32) -> i64', "%a: i32, %b: i32"),
        ('%y = "arith.addi"(%a) : (i32) -> i32', "%a: i32"),
        # a cast of no operand or no result has no custom form here
        ('"builtin.unrealized_conversion_cast"(%a) : (i32) -> ()', "%a: i32"),
        (
            '%y = "tensor.insert"(%a, %t) : (i32, tensor<f32>) -> tensor<f32>',
            "%a: i32, %t: tensor<f32>",
        ),
    ],
)
def test_ops_that_do_not_fit_their_form_print_generic(generic: str, args: str):
    printed = roundtrips(f"func.func @f({args}) {{\n  {generic}\n  func.return\n}}\n")
    assert f"  {generic}\n" in printed


@pytest.mark.parametrize(
    "custom, generic, value",
    [
        (
            "%c = arith.constant 0 : index",
            '%c = "arith.constant"() <{value = 0 : index}> : () -> index',
            IntegerAttr(0, IndexType()),
        ),
        (
            "%c = arith.constant -3 : i32",
            '%c = "arith.constant"() <{value = -3 : i32}> : () -> i32',
            IntegerAttr(-3, IntegerType(32)),
        ),
        (
            "%c = arith.constant 1.500000e+00 : f32",
            '%c = "arith.constant"() <{value = 1.500000e+00 : f32}> : () -> f32',
            FloatAttr(1.5, F32),
        ),
        (
            "%c = arith.constant true",
            '%c = "arith.constant"() <{value = true}> : () -> i1',
            BoolAttr(True),
        ),
    ],
)
def test_arith_constant_scalars(custom: str, generic: str, value):
    a = first_op("  " + custom, "")
    assert a == first_op("  " + generic, "")
    assert a.attr("value") == value
    printed = roundtrips(f"func.func @f() {{\n  {generic}\n  func.return\n}}\n")
    assert f"  {custom}\n" in printed


def test_arith_constant_zero_point_zero():
    a = first_op("  %cst = arith.constant 0.0 : f32", "")
    assert a.attr("value") == FloatAttr(0.0, F32)
    assert a.results == (Value("%cst", F32),)


# ---- vhlo.func_v1 -------------------------------------------------------------------------

VT = "!vhlo.tensor_v1<!vhlo.f32_v1>"
VFUNC = f"""vhlo.func_v1 @main(%arg0: {VT}) -> ({VT}) {{
  "vhlo.return_v1"(%arg0) : ({VT}) -> ()
}} {{arg_attrs = #vhlo.array_v1<[]>, res_attrs = #vhlo.array_v1<[]>, sym_visibility = #vhlo.string_v1<"public">}}
"""


def test_vhlo_func_parses_into_its_attributes_and_body():
    op = parse_module(VFUNC).body[0]
    assert isinstance(op, Operation) and op.name == "vhlo.func_v1"
    vt = VhloType("tensor_v1", ((), VhloType("f32_v1"), None))
    assert op.attr("sym_name") == VhloAttr("string_v1", ("main",))
    assert op.attr("function_type") == VhloAttr("type_v1", (VhloType("func_v1", ((vt,), (vt,))),))
    assert op.attr("sym_visibility") == VhloAttr("string_v1", ("public",))
    assert op.attr("arg_attrs") == VhloAttr("array_v1", ((),))
    assert [k for k, _ in op.attributes] == [
        "arg_attrs",
        "function_type",
        "res_attrs",
        "sym_name",
        "sym_visibility",
    ]
    assert op.operands == () and op.results == ()
    (region,) = op.regions
    assert region.entry.arguments == (Value("%arg0", vt),)
    assert [o.name for o in region.entry.operations] == ["vhlo.return_v1"]


def test_vhlo_func_custom_equals_generic():
    """The generic form MLIR prints for the custom form (VhloOps.cpp parseFunctionBody:
    `#vhlo.string_v1<"main">` and `#vhlo.type_v1<!vhlo.func_v1<...>>`)."""
    generic = (
        f'"vhlo.func_v1"() <{{arg_attrs = #vhlo.array_v1<[]>, '
        f"function_type = #vhlo.type_v1<!vhlo.func_v1<({VT}) -> {VT}>>, "
        'res_attrs = #vhlo.array_v1<[]>, sym_name = #vhlo.string_v1<"main">, '
        f'sym_visibility = #vhlo.string_v1<"public">}}> ({{\n^bb0(%arg0: {VT}):\n'
        f'  "vhlo.return_v1"(%arg0) : ({VT}) -> ()\n}}) : () -> ()\n'
    )
    assert parse_module(generic) == parse_module(VFUNC)


def test_vhlo_func_prints_its_custom_form():
    assert roundtrips(VFUNC) == VFUNC


@pytest.mark.parametrize(
    "text",
    [
        # no arguments, no results, an empty entry block (printEmptyBlock: `^bb0:` is printed)
        "vhlo.func_v1 @e() -> () {\n^bb0:\n}\n",
        # no body at all
        "vhlo.func_v1 @e() -> () {\n}\n",
        # several results, an argument location, a quoted name, an op location
        f'vhlo.func_v1 @"a b"(%x: {VT} loc("f.py":1:2), %y: {VT}) -> ({VT}, {VT}) {{\n'
        f'  "vhlo.return_v1"(%x, %y) : ({VT}, {VT}) -> ()\n}} loc(unknown)\n',
        # an argument-less body inside a module
        f'module {{\n  vhlo.func_v1 @m() -> ({VT}) {{\n    %0 = "vhlo.c"() : () -> {VT}\n'
        f'    "vhlo.return_v1"(%0) : ({VT}) -> ()\n  }}\n}}\n',
    ],
)
def test_vhlo_func_forms_roundtrip(text: str):
    assert roundtrips(text) == text


def test_vhlo_func_empty_block_and_empty_region_differ():
    one_block = parse_module("vhlo.func_v1 @e() -> () {\n^bb0:\n}\n").body[0]
    no_block = parse_module("vhlo.func_v1 @e() -> () {\n}\n").body[0]
    assert len(one_block.regions[0].blocks) == 1
    assert no_block.regions[0].blocks == ()


def test_vhlo_func_argument_location_is_kept():
    op = parse_module(f'vhlo.func_v1 @f(%x: {VT} loc("f.py":1:2)) -> () {{\n}}\n').body[0]
    assert op.regions[0].entry.arg_locations == (LocationAttr('"f.py":1:2'),)


def test_vhlo_func_with_mismatched_body_prints_generic():
    """A body whose arguments disagree with function_type cannot take the custom form."""
    generic = (
        f'"vhlo.func_v1"() <{{function_type = () -> (), sym_name = "g"}}> ({{\n'
        f'^bb0(%a: {VT}):\n  "vhlo.return_v1"() : () -> ()\n}}) : () -> ()\n'
    )
    printed = roundtrips(generic)
    assert printed.startswith('"vhlo.func_v1"()')


def test_vhlo_func_needs_a_symbol_and_arrow():
    with pytest.raises(ParseError):
        parse_module("vhlo.func_v1 main() -> () {\n}\n")
    with pytest.raises(ParseError):
        parse_module("vhlo.func_v1 @main() {\n}\n")
