"""Module-level checks of shape_inference/verifier.py, written from MLIR's rules:
SSA dominance and scoping, redefinitions, operand / result / region counts, terminators,
func.call and composite symbols, duplicate symbols, unknown ops; plus collect_errors and
``hlorun verify``."""

from __future__ import annotations

import pytest

from hlorun import shape_inference  # noqa: F401  (fills the op table)
from hlorun.engine.cli import main as cli_main
from hlorun.parser.errors import ParseError, VerificationError
from hlorun.parser.grammar import parse_module
from hlorun.parser.ir import FloatType, TensorType, TypeExtensions
from hlorun.shape_inference.optable import OP_TABLE, OpDef
from hlorun.shape_inference.verifier import collect_errors, compatible, verify_module

F32 = "tensor<2xf32>"


def errors(text: str) -> list[VerificationError]:
    return collect_errors(parse_module(text, "t.mlir"))


def labels(text: str) -> list[str | None]:
    return [e.label for e in errors(text)]


def ok(text: str) -> None:
    assert errors(text) == []
    verify_module(parse_module(text, "t.mlir"))


def fn(body: str, args: str = f"%a: {F32}, %b: {F32}", results: str = F32) -> str:
    return f"func.func @main({args}) -> {results} {{\n{body}\n}}\n"


REDUCE = """\
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %r = "stablehlo.reduce"(%a, %z) ({{
  ^bb0(%x: tensor<f32>, %y: tensor<f32>):
    {inner}
  }}) {{dimensions = array<i64: 0>}} : ({F32}, tensor<f32>) -> tensor<f32>"""

SUM_RETURN = """%s = stablehlo.add %x, %y : tensor<f32>
    "stablehlo.return"(%s) : (tensor<f32>) -> ()"""


# ---- positive cases ------------------------------------------------------------------


def test_straight_line_function_verifies():
    ok(
        fn(
            f"  %0 = stablehlo.add %a, %b : {F32}\n  %1 = stablehlo.multiply %0, %0 : {F32}\n"
            f"  func.return %1 : {F32}"
        )
    )


def test_region_sees_values_of_enclosing_scopes():
    # %a, %b (function arguments) and %c (defined before the op) are visible in the body.
    body = "  %c = stablehlo.constant dense<1.0> : tensor<f32>\n" + REDUCE.format(
        inner="%s = stablehlo.add %x, %c : tensor<f32>\n"
        '    "stablehlo.return"(%s) : (tensor<f32>) -> ()',
        F32=F32,
    )
    ok(fn(body + "\n  func.return %r : tensor<f32>", results="tensor<f32>"))


def test_sibling_regions_may_reuse_names():
    one = REDUCE.format(inner=SUM_RETURN, F32=F32)
    two = one.replace("%z =", "%z2 =").replace("%r =", "%r2 =").replace("(%a, %z)", "(%b, %z2)")
    body = one + "\n" + two + "\n  %t = stablehlo.add %r, %r2 : tensor<f32>"
    ok(fn(body + "\n  func.return %t : tensor<f32>", results="tensor<f32>"))


def test_multi_result_names():
    # %0 and %0#0 both name the first result of "%0:2 = ...".
    text = fn(
        f'  %0:2 = "stablehlo.optimization_barrier"(%a, %b) : ({F32}, {F32}) -> '
        f"({F32}, {F32})\n"
        f"  %1 = stablehlo.add %0, %0#1 : {F32}\n  %2 = stablehlo.add %1, %0#0 : {F32}\n"
        f"  func.return %2 : {F32}"
    )
    ok(text)


def test_valid_call_and_declaration():
    text = (
        fn(f"  %0 = func.call @g(%a) : ({F32}) -> {F32}\n  func.return %0 : {F32}")
        + f"func.func private @g(%x: {F32}) -> {F32}\n"
    )
    ok(text)


def test_other_dialects_are_left_alone():
    ok(fn(f'  %0 = "mydialect.frob"(%a) : ({F32}) -> {F32}\n  func.return %0 : {F32}'))


def test_stablehlo_return_may_end_a_function():
    # As in MLIR (print_stablehlo.mlir relies on it).
    ok(fn(f'  "stablehlo.return"(%a) : ({F32}) -> ()'))


def test_compatible_respects_bounds():
    bounded = TensorType((None,), FloatType("f32"), TypeExtensions((4,)))
    assert compatible(bounded, TensorType((3,), FloatType("f32")))
    assert compatible(bounded, TensorType((4,), FloatType("f32")))
    assert not compatible(bounded, TensorType((5,), FloatType("f32")))
    assert compatible(bounded, TensorType((None,), FloatType("f32")))


# ---- SSA -----------------------------------------------------------------------------


def test_use_of_undefined_value():
    (e,) = errors(fn(f"  %0 = stablehlo.add %a, %nope : {F32}\n  func.return %0 : {F32}"))
    assert e.label == "ssa_undefined" and e.op == "stablehlo.add"
    assert e.pos.line == 2 and "%nope" in e.message


def test_use_before_definition_does_not_dominate():
    (e,) = errors(
        fn(
            f"  %0 = stablehlo.add %a, %1 : {F32}\n  %1 = stablehlo.add %a, %b : {F32}\n"
            f"  func.return %0 : {F32}"
        )
    )
    assert e.label == "ssa_dominance" and e.pos.line == 2
    assert e.message == "operand #1 ('%1') does not dominate this use"


def test_values_of_a_region_are_not_visible_outside():
    body = REDUCE.format(inner=SUM_RETURN, F32=F32)
    text = fn(
        body + "\n  %t = stablehlo.add %s, %s : tensor<f32>\n  func.return %t : tensor<f32>",
        results="tensor<f32>",
    )
    assert labels(text) == ["ssa_dominance", "ssa_dominance"]


def test_block_arguments_of_a_region_are_not_visible_outside():
    body = REDUCE.format(inner=SUM_RETURN, F32=F32)
    text = fn(body + "\n  func.return %x : tensor<f32>", results="tensor<f32>")
    assert labels(text) == ["ssa_dominance"]


def test_op_results_are_not_visible_in_its_own_region():
    body = REDUCE.format(
        inner="%s = stablehlo.add %x, %r : tensor<f32>\n"
        '    "stablehlo.return"(%s) : (tensor<f32>) -> ()',
        F32=F32,
    )
    text = fn(body + "\n  func.return %r : tensor<f32>", results="tensor<f32>")
    assert labels(text) == ["ssa_dominance"]


def test_functions_are_isolated():
    text = (
        fn(f"  %0 = stablehlo.add %a, %b : {F32}\n  func.return %0 : {F32}")
        + f"func.func @other() -> {F32} {{\n  func.return %0 : {F32}\n}}\n"
    )
    (e,) = errors(text)
    assert e.label == "ssa_undefined" and e.op == "func.return"


def test_redefinition_in_one_block():
    (e,) = errors(
        fn(
            f"  %0 = stablehlo.add %a, %b : {F32}\n  %0 = stablehlo.add %a, %a : {F32}\n"
            f"  func.return %0 : {F32}"
        )
    )
    assert e.label == "ssa_redefinition" and e.pos.line == 3
    assert e.message == "redefinition of SSA value '%0'"


def test_redefinition_of_a_function_argument():
    (e,) = errors(fn(f"  %a = stablehlo.add %b, %b : {F32}\n  func.return %a : {F32}"))
    assert e.label == "ssa_redefinition"


def test_region_may_not_shadow_an_enclosing_value():
    body = REDUCE.format(inner=SUM_RETURN, F32=F32).replace("^bb0(%x:", "^bb0(%a:")
    body = body.replace("stablehlo.add %x, %y", "stablehlo.add %a, %y")
    text = fn(body + "\n  func.return %r : tensor<f32>", results="tensor<f32>")
    assert labels(text) == ["ssa_redefinition"]


def test_redefinition_of_a_multi_result_name():
    text = fn(
        f"  %0 = stablehlo.add %a, %b : {F32}\n"
        f'  %0:2 = "stablehlo.optimization_barrier"(%a, %b) : ({F32}, {F32}) -> '
        f"({F32}, {F32})\n  func.return %0 : {F32}"
    )
    assert labels(text) == ["ssa_redefinition"]


def test_use_with_another_type_than_the_definition():
    text = fn(
        "  %0 = stablehlo.add %a, %b : tensor<2xf32>\n"
        '  %1 = "stablehlo.negate"(%0) : (tensor<2xi32>) -> tensor<2xi32>\n'
        f"  func.return %0 : {F32}"
    )
    (e,) = errors(text)
    assert e.label == "ssa_type" and e.op == "stablehlo.negate"
    assert e.message == (
        "use of value '%0' expects different type than prior uses: "
        "'tensor<2xi32>' vs 'tensor<2xf32>'"
    )


# ---- counts --------------------------------------------------------------------------


def test_operand_count():
    text = fn(
        f'  %0 = "stablehlo.add"(%a, %b, %a) : ({F32}, {F32}, {F32}) -> {F32}\n'
        f"  func.return %0 : {F32}"
    )
    (e,) = errors(text)
    assert e.label == "operand_count" and e.message == "expected 2 operands, but found 3"


def test_operand_count_of_a_unary_op():
    text = fn(
        f'  %0 = "stablehlo.reverse"(%a, %b) {{dimensions = array<i64: 0>}} : '
        f"({F32}, {F32}) -> {F32}\n  func.return %0 : {F32}"
    )
    (e,) = errors(text)
    assert e.label == "operand_count" and e.message == "expected 1 operands, but found 2"


def test_result_count():
    text = fn(
        f'  %0:2 = "stablehlo.add"(%a, %b) : ({F32}, {F32}) -> ({F32}, {F32})\n'
        f"  func.return %0#0 : {F32}"
    )
    assert labels(text) == ["result_count"]


def test_region_count():
    body = REDUCE.format(inner=SUM_RETURN, F32=F32).replace(
        "  }) {dimensions",
        "  }, {\n  ^bb0(%p: tensor<f32>, %q: tensor<f32>):\n"
        '    "stablehlo.return"(%p) : (tensor<f32>) -> ()\n  }) {dimensions',
    )
    text = fn(body + "\n  func.return %r : tensor<f32>", results="tensor<f32>")
    assert labels(text) == ["region_count"]


def test_regions_on_an_op_without_any():
    text = fn(
        f'  %0 = "stablehlo.add"(%a, %b) ({{\n    "stablehlo.return"() : () -> ()\n  }}) : '
        f"({F32}, {F32}) -> {F32}\n  func.return %0 : {F32}"
    )
    assert labels(text) == ["region_count"]


# ---- terminators ---------------------------------------------------------------------


def test_return_operand_count():
    text = fn(f"  func.return %a : {F32}", results=f"({F32}, {F32})")
    (e,) = errors(text)
    assert e.label == "func_return" and e.op == "func.return"
    assert e.message == "has 1 operands, but enclosing function (@main) returns 2"
    assert str(e) == (
        "t.mlir:2:3: error: 'func.return' op has 1 operands, but enclosing "
        "function (@main) returns 2 (func_return)"
    )


def test_return_type():
    (e,) = errors(fn("  func.return %a : tensor<2xf32>", results="tensor<2xi32>"))
    assert e.label == "func_return"
    assert e.message == (
        "type of return operand 0 ('tensor<2xf32>') doesn't match function "
        "result type ('tensor<2xi32>') in function @main"
    )


def test_missing_terminator():
    (e,) = errors(fn(f"  %0 = stablehlo.add %a, %b : {F32}"))
    assert e.label == "terminator" and e.op == "stablehlo.add"


def test_return_in_the_middle_of_a_block():
    text = fn(
        f"  func.return %a : {F32}\n  %0 = stablehlo.add %a, %b : {F32}\n  func.return %0 : {F32}"
    )
    (e,) = errors(text)
    assert e.label == "terminator" and e.pos.line == 2
    assert e.message == "must be the last operation in the parent block"


def test_region_must_end_with_stablehlo_return():
    body = REDUCE.format(inner="%s = stablehlo.add %x, %y : tensor<f32>", F32=F32)
    text = fn(body + "\n  func.return %r : tensor<f32>", results="tensor<f32>")
    (e,) = errors(text)
    assert e.label == "terminator" and e.op == "stablehlo.add"


def test_func_return_inside_a_region():
    body = REDUCE.format(
        inner="%s = stablehlo.add %x, %y : tensor<f32>\n    func.return %s : tensor<f32>", F32=F32
    )
    text = fn(body + "\n  func.return %r : tensor<f32>", results="tensor<f32>")
    (e,) = errors(text)
    assert e.label == "terminator" and e.message == "expects parent op 'func.func'"


def test_empty_region_block():
    text = fn(
        f'  %0 = "stablehlo.while"(%a) ({{\n  ^bb0(%x: {F32}):\n  }}, {{\n'
        f'  ^bb0(%y: {F32}):\n    "stablehlo.return"(%y) : ({F32}) -> ()\n'
        f"  }}) : ({F32}) -> {F32}\n  func.return %0 : {F32}"
    )
    assert labels(text) == ["terminator"]


# ---- symbols -------------------------------------------------------------------------


def test_call_of_an_unknown_function():
    (e,) = errors(fn(f"  %0 = func.call @nope(%a) : ({F32}) -> {F32}\n  func.return %0 : {F32}"))
    assert e.label == "call_callee" and e.message == "'nope' does not reference a valid function"


def test_call_operand_count():
    text = (
        fn(f"  %0 = func.call @g(%a, %b) : ({F32}, {F32}) -> {F32}\n  func.return %0 : {F32}")
        + f"func.func private @g(%x: {F32}) -> {F32}\n"
    )
    (e,) = errors(text)
    assert e.label == "call_signature" and e.message == "incorrect number of operands for callee"


def test_call_operand_type():
    text = (
        fn(f"  %0 = func.call @g(%a) : ({F32}) -> {F32}\n  func.return %0 : {F32}")
        + f"func.func private @g(%x: tensor<2xf64>) -> {F32}\n"
    )
    (e,) = errors(text)
    assert e.label == "call_signature"
    assert e.message == (
        "operand type mismatch: expected operand type 'tensor<2xf64>', but "
        "provided 'tensor<2xf32>' for operand number 0"
    )


def test_call_result_count_and_type():
    text = (
        fn(f"  %0 = func.call @g(%a) : ({F32}) -> {F32}\n  func.return %0 : {F32}")
        + f"func.func private @g(%x: {F32}) -> ({F32}, {F32})\n"
    )
    assert labels(text) == ["call_signature"]
    text = (
        fn(f"  %0 = func.call @g(%a) : ({F32}) -> {F32}\n  func.return %0 : {F32}")
        + f"func.func private @g(%x: {F32}) -> tensor<2xf64>\n"
    )
    (e,) = errors(text)
    assert e.label == "call_signature" and e.message.startswith("result type mismatch at index 0")


def test_duplicate_function():
    text = fn(f"  func.return %a : {F32}") + fn(f"  func.return %b : {F32}")
    (e,) = errors(text)
    assert e.label == "symbol_redefinition" and e.message == "redefinition of symbol named 'main'"


def test_composite_decomposition():
    composite = (
        f'  %0 = stablehlo.composite "my.op" %a {{decomposition = @{{callee}}}} : '
        f"({F32}) -> {F32}\n  func.return %0 : {F32}"
    )
    good = fn(composite.replace("{callee}", "d"), args=f"%a: {F32}")
    ok(good + f"func.func private @d(%x: {F32}) -> {F32} {{\n  func.return %x : {F32}\n}}\n")
    assert labels(fn(composite.replace("{callee}", "nope"), args=f"%a: {F32}")) == ["composite_c2"]
    wrong = good + (
        f"func.func private @d(%x: tensor<2xf64>) -> {F32} {{\n"
        f"  %0 = stablehlo.convert %x : (tensor<2xf64>) -> {F32}\n"
        f"  func.return %0 : {F32}\n}}\n"
    )
    (e,) = errors(wrong)
    assert e.label == "composite_c3"
    assert e.message == (
        "operand at index 0 has type 'tensor<2xf32>', but decomposition has type 'tensor<2xf64>'"
    )


# ---- unknown ops and types -----------------------------------------------------------


@pytest.mark.parametrize(
    "name",
    ["stablehlo.frobnicate", "chlo.frobnicate", "check.frobnicate", "interpreter.frobnicate"],
)
def test_unknown_op_of_a_verified_dialect(name):
    (e,) = errors(fn(f'  %0 = "{name}"(%a) : ({F32}) -> {F32}\n  func.return %0 : {F32}'))
    assert e.label == "unknown_op" and e.op == name
    dialect = name.split(".")[0]
    assert e.message == (
        f"unregistered operation '{name}' found in dialect ('{dialect}') that "
        "does not allow unknown operations"
    )


def test_unknown_stablehlo_type():
    # MLIR rejects an unknown StableHLO type while parsing, at the type
    with pytest.raises(ParseError) as e:
        parse_module("func.func private @f() -> !stablehlo.foobar\n", "t.mlir")
    assert e.value.pos.line == 1 and "unknown stablehlo type: foobar" in e.value.message


# ---- the shape functions, and reporting ----------------------------------------------


def test_shape_function_errors_carry_op_position_and_label():
    (e,) = errors(
        fn(
            f'  %0 = "stablehlo.add"(%a, %b) : ({F32}, {F32}) -> tensor<3xf32>\n'
            f"  func.return %a : {F32}"
        )
    )
    assert e.op == "stablehlo.add" and e.pos.line == 2 and e.label


def test_a_crashing_shape_function_is_reported(monkeypatch):
    def crash(ctx, lhs, rhs):
        raise IndexError("boom")

    monkeypatch.setitem(OP_TABLE, "stablehlo.add", OpDef("stablehlo.add", shape=crash))
    (e,) = errors(fn(f"  %0 = stablehlo.add %a, %b : {F32}\n  func.return %0 : {F32}"))
    assert e.label == "shape_function" and "IndexError: boom" in e.message


BAD = (
    fn(
        f"  %0 = stablehlo.add %a, %nope : {F32}\n"
        f'  %1 = "stablehlo.frobnicate"(%0) : ({F32}) -> {F32}\n'
        f"  func.return %1, %1 : {F32}, {F32}"
    )
    + f"func.func @f() -> {F32} {{\n  %0 = func.call @nope() : () -> {F32}\n"
    f"  func.return %0 : {F32}\n}}\n"
)


def test_collect_errors_goes_on_after_an_error():
    got = errors(BAD)
    assert [(e.label, e.pos.line) for e in got] == [
        ("ssa_undefined", 2),
        ("unknown_op", 3),
        ("func_return", 4),
        ("call_callee", 7),
    ]


def test_verify_module_raises_the_first_error():
    with pytest.raises(VerificationError) as info:
        verify_module(parse_module(BAD, "t.mlir"))
    assert info.value.label == "ssa_undefined"


def test_cli_verify_prints_every_error(tmp_path, capsys):
    path = tmp_path / "bad.mlir"
    path.write_text(BAD + "// -----\n" + fn(f"  func.return %a : {F32}"))
    assert cli_main(["verify", "--split-input-file", str(path)]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 4 and all(f"{path}:" in line and "error:" in line for line in err)
    assert "(call_callee)" in err[3]
    good = tmp_path / "good.mlir"
    good.write_text(fn(f"  func.return %a : {F32}"))
    assert cli_main(["verify", str(good)]) == 0
