"""Types print as MLIR spells them (issue 14, item 4): ``str(type)`` is the printer's
text, and error messages about types never show a dataclass repr.

Expected spellings come from MLIR's LangRef ("Builtin Types": ``tensor<2x?xf32>``,
``tensor<*xf32>``, ``complex<f32>``, ``tuple<...>``, function types), StableHLO's
``!stablehlo.token`` / ``#stablehlo.bounds<...>`` (StablehloTypes.td, StablehloAttrs.td)
and QuantOps' ``!quant.uniform<...>`` syntax, not from hlorun's own output.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

from hlorun.parser import HloError
from hlorun.parser.grammar import parse_module, split_input_file
from hlorun.parser.ir import (
    ComplexType,
    FloatType,
    FunctionType,
    IndexType,
    IntegerType,
    OpaqueType,
    QuantizedType,
    TensorType,
    TokenType,
    TupleType,
    TypeExtensions,
)
from hlorun.parser.printer import print_type
from tests.conftest import shared_dir

F32 = FloatType("f32")
I32 = IntegerType(32)

CASES = [
    (TensorType((2, 3), F32), "tensor<2x3xf32>"),
    (TensorType((), IntegerType(1)), "tensor<i1>"),
    (TensorType((None, 4), IntegerType(8, "unsigned")), "tensor<?x4xui8>"),
    (TensorType(None, F32), "tensor<*xf32>"),
    (TensorType((None,), F32, TypeExtensions((5,))), "tensor<?xf32, #stablehlo.bounds<5>>"),
    (TensorType((3,), ComplexType(FloatType("f64"))), "tensor<3xcomplex<f64>>"),
    (IntegerType(8, "signed"), "si8"),
    (IndexType(), "index"),
    (TokenType(), "!stablehlo.token"),
    (TupleType((I32, TokenType())), "tuple<i32, !stablehlo.token>"),
    (FunctionType((I32, F32), (F32,)), "(i32, f32) -> f32"),
    (FunctionType((I32,), (F32, F32)), "(i32) -> (f32, f32)"),
    (FunctionType((), ()), "() -> ()"),
    (OpaqueType("!foo.bar<1>"), "!foo.bar<1>"),
    (
        TensorType((2,), QuantizedType(IntegerType(8), F32, (0.5,), (3,))),
        "tensor<2x!quant.uniform<i8:f32, 5.000000e-01:3>>",
    ),
    (
        QuantizedType(IntegerType(8), F32, (0.5, 2.0), (0, -1), 0),
        "!quant.uniform<i8:f32:0, {5.000000e-01,2.000000e+00:-1}>",
    ),
]


@pytest.mark.parametrize("t, text", CASES, ids=[c[1] for c in CASES])
def test_str_is_mlir_text(t, text):
    assert str(t) == text
    assert f"{t}" == text
    assert print_type(t) == text  # the printer and str() are one implementation


@pytest.mark.parametrize(
    "text",
    [
        "tensor<2x?x3xbf16, #stablehlo.bounds<?, 4, ?>>",
        "tensor<4x!quant.uniform<i8<-127:127>:f32:0, {1.000000e-01:-30,5.000000e-01}>>",
        "tuple<tensor<f32>, tuple<>, !stablehlo.token>",
        "(tensor<2xi64>) -> (tensor<2xi64>, tensor<i1>)",
    ],
)
def test_parsed_type_prints_back(text):
    m = parse_module(f"func.func private @f(%a: {text})\n")
    (t,) = m.body[0].type.inputs
    assert str(t) == text


FAILING_PROGRAMS = [
    # result type does not match the operands (add_c1)
    """
func.func @main(%a: tensor<2x3xf32>, %b: tensor<2x3xf32>) -> tensor<3x2xf32> {
  %0 = "stablehlo.add"(%a, %b) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<3x2xf32>
  func.return %0 : tensor<3x2xf32>
}
""",
    # transpose to the wrong result type (transpose_c4)
    """
func.func @main(%a: tensor<2x3xi32>) -> tensor<2x3xi32> {
  %0 = stablehlo.transpose %a, dims = [1, 0] : (tensor<2x3xi32>) -> tensor<2x3xi32>
  func.return %0 : tensor<2x3xi32>
}
""",
    # the function returns a type other than its declared result
    """
func.func @main(%a: tensor<4xf32>) -> tensor<4xi32> {
  func.return %a : tensor<4xf32>
}
""",
]


@pytest.mark.parametrize("program", FAILING_PROGRAMS)
def test_error_messages_spell_types_as_mlir(program):
    from hlorun.shape_inference import verify_module

    with pytest.raises(HloError) as info:
        verify_module(parse_module(program))
    message = str(info.value)
    assert "tensor<" in message
    assert "TensorType(" not in message and "FloatType(" not in message


def test_input_mismatch_message_spells_types_as_mlir():
    from hlorun import engine

    program = """
func.func @main(%a: tensor<2x3xf32>) -> tensor<2x3xf32> {
  func.return %a : tensor<2x3xf32>
}
"""
    with pytest.raises(HloError) as info:
        engine.run(program, [np.zeros((2, 3), np.int32)])
    message = str(info.value)
    assert "f32" in message
    assert "TensorType(" not in message and "FloatType(" not in message


_REPR = re.compile(r"\b[A-Z][A-Za-z]*(?:Type|Attr)\(")


def test_verifier_suite_messages_spell_types_as_mlir():
    """Every error the verifier suites of ../shared/stablehlo provoke (parse or verify)
    names types as MLIR text, never as a dataclass repr."""
    from hlorun.shape_inference import verify_module

    files = sorted(shared_dir("tests", "verifier").glob("*.mlir"))
    messages = []
    for path in files:
        for chunk, offset in split_input_file(path.read_text()):
            try:
                verify_module(parse_module(chunk, str(path), line_offset=offset))
            except HloError as e:
                messages.append(str(e))
    assert len(messages) > 100  # the suites hold hundreds of expected errors
    assert sum("tensor<" in m for m in messages) > 10
    offenders = [m for m in messages if _REPR.search(m)]
    assert not offenders, offenders[:3]


def test_every_ir_type_spells_itself():
    """Each Type class of parser/ir.py defines ``__str__`` (not the dataclass repr)."""
    from hlorun.parser import ir

    classes = [c for c in vars(ir).values() if isinstance(c, type) and issubclass(c, ir.Type)]
    assert len(classes) > 10
    missing = [c.__name__ for c in classes if c is not ir.Type and "__str__" not in vars(c)]
    assert not missing
