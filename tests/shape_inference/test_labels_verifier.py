"""Module-level labels of shape_inference/verifier.py that test_module_checks.py leaves
out: the entry block of a function takes the function's argument types, a region of an
op has a block, and a function signature names only the StableHLO dialect's types."""

from __future__ import annotations

from dataclasses import replace

import pytest

from hlorun.parser import parse_module
from hlorun.parser.errors import ParseError, VerificationError
from hlorun.parser.ir import Block, FunctionType, OpaqueType, Region, Value
from hlorun.shape_inference.verifier import verify_module
from tests.shape_inference.labelcheck import assert_label, assert_verifies, func

GENERIC_FUNC = (
    '"func.func"() ({{\n^bb0(%a: {arg}):\n  "func.return"() : () -> ()\n}}) '
    '{{function_type = ({param}) -> (), sym_name = "main"}} : () -> ()\n'
)
IF = (
    '"stablehlo.if"(%p) ({first}, {{\n    "stablehlo.return"() : () -> ()\n  }}) : '
    "(tensor<i1>) -> ()"
)
EMPTY_RETURN = '{\n    "stablehlo.return"() : () -> ()\n  }'

VALID = {
    "generic_func": GENERIC_FUNC.format(arg="tensor<f32>", param="tensor<f32>"),
    "if_without_results": func("%p: tensor<i1>", IF.format(first=EMPTY_RETURN)),
    "token_signature": func("%t: !stablehlo.token"),
}

NEGATIVE = [
    # MLIR: the entry block's arguments have the function's argument types
    ("func_signature", GENERIC_FUNC.format(arg="tensor<i32>", param="tensor<f32>")),
    # a region of a StableHLO op has one block
    ("region_structure", func("%p: tensor<i1>", IF.format(first="{\n  }"))),
]


@pytest.mark.parametrize("name", sorted(VALID))
def test_valid_program_verifies(name):
    assert_verifies(VALID[name])


@pytest.mark.parametrize(
    ("label", "text"), NEGATIVE, ids=[f"{label}-{i}" for i, (label, _) in enumerate(NEGATIVE)]
)
def test_violation_carries_its_label(label, text):
    assert_label(text, label)


def test_unknown_stablehlo_type_in_a_signature():
    """The parser already rejects ``!stablehlo.foo`` (as the StableHLO dialect's type
    parser does); the verifier checks the signatures of IR built by hand."""
    with pytest.raises(ParseError):
        parse_module(func("%a: !stablehlo.foo"))
    module = parse_module(func("%a: tensor<f32>"))
    fn = module.body[0]
    foo = OpaqueType("!stablehlo.foo")
    block = fn.body.blocks[0]
    body = Region((Block((Value(block.arguments[0].name, foo),), block.operations, block.label),))
    fn = replace(fn, type=FunctionType((foo,), ()), body=body)
    with pytest.raises(VerificationError) as info:
        verify_module(replace(module, body=(fn,)))
    assert info.value.label == "unknown_type", str(info.value)
