"""Parser fast paths: ``tensor<...xcomplex<f32>>`` in the one-line fast paths
(function headers, calls, constants, same-type ops) and the process-wide memo of plain
attribute dictionaries.  Expected values are the IR the
MLIR builtin syntax denotes (mlir.llvm.org/docs/Dialects/Builtin: ComplexType,
DictionaryAttr), built by hand, and the general parser's result on the same program
spelled so that no fast path applies."""

from __future__ import annotations

import numpy as np
import pytest

from hlorun.parser.errors import ParseError
from hlorun.parser.grammar import parse_module
from hlorun.parser.ir import ComplexType, FloatType, IntegerType, TensorType

C64 = TensorType((2,), ComplexType(FloatType("f32")))

FAST = """
func.func private @f(%a: tensor<2xcomplex<f32>>) -> (tensor<2xcomplex<f32>> {m.x = "d"}) {
  %cst = stablehlo.constant dense<[(1.5, -2.0), (0.0, 3.25)]> : tensor<2xcomplex<f32>>
  %0 = stablehlo.add %a, %cst : tensor<2xcomplex<f32>>
  %1 = call @f(%0) : (tensor<2xcomplex<f32>>) -> tensor<2xcomplex<f32>>
  stablehlo.custom_call @check.expect_close(%1, %a) {has_side_effect = true} : (tensor<2xcomplex<f32>>, tensor<2xcomplex<f32>>) -> ()
  %2 = stablehlo.custom_call @t(%1) {call_target_name = "u", api_version = 2 : i32} : (tensor<2xcomplex<f32>>) -> tensor<2xcomplex<f32>>
  return %2 : tensor<2xcomplex<f32>>
}
"""
# the same program where no one-line fast path matches (blanks inside the types,
# the generic op form with a line break)
SLOW = """
func.func private @f(%a: tensor<2xcomplex< f32 >>) -> (tensor<2xcomplex< f32>> {m.x = "d"}) {
  %cst = stablehlo.constant dense<[(1.5, -2.0), (0.0, 3.25)]> : tensor<2xcomplex<f32 >>
  %0 = stablehlo.add %a, %cst : tensor<2xcomplex<f32 >>
  %1 = "func.call"(%0) <{callee = @f}>
     : (tensor<2xcomplex<f32>>) -> tensor<2xcomplex<f32>>
  stablehlo.custom_call @check.expect_close(%1, %a) {has_side_effect = true}
     : (tensor<2xcomplex<f32>>, tensor<2xcomplex<f32>>) -> ()
  %2 = stablehlo.custom_call @t(%1) {call_target_name = "u", api_version = 2 : i32}
     : (tensor<2xcomplex<f32>>) -> tensor<2xcomplex<f32>>
  "func.return"(%2) : (tensor<2xcomplex<f32>>) -> ()
}
"""


def _ops(text: str):
    f = parse_module(text).body[0]
    return f, f.body.entry.operations


def test_complex_tensor_fast_paths_match_general_parser():
    fast_f, fast = _ops(FAST)
    slow_f, slow = _ops(SLOW)
    assert fast_f.type.inputs == (C64,) and fast_f.type.results == (C64,)
    assert (fast_f.type, fast_f.result_attrs) == (slow_f.type, slow_f.result_attrs)
    assert [o.name for o in fast] == [
        "stablehlo.constant",
        "stablehlo.add",
        "func.call",
        "stablehlo.custom_call",
        "stablehlo.custom_call",
        "func.return",
    ]
    for a, b in zip(fast, slow, strict=True):
        assert (a.name, a.operands, a.results, a.property_names) == (
            b.name,
            b.operands,
            b.results,
            b.property_names,
        )
        assert [k for k, _ in a.attributes] == [k for k, _ in b.attributes]
        if a.name != "stablehlo.constant":
            assert a.attributes == b.attributes
    slow_value = slow[0].attributes[0][1].array
    value = fast[0].attributes[0][1].array
    assert value.dtype == np.complex64
    np.testing.assert_array_equal(value, np.array([1.5 - 2.0j, 3.25j], dtype=np.complex64))
    assert value.tobytes() == slow_value.tobytes()
    # the dictionary's later `call_target_name` wins (a DictionaryAttr keeps one entry)
    target = dict(fast[4].attributes)["call_target_name"]
    assert target.value == "u" and fast[4].property_names == {"call_target_name"}
    assert dict(fast[3].attributes)["call_target_name"].value == "check.expect_close"


def test_complex_element_beyond_f32_f64_is_not_a_fast_type():
    """complex<f16> is legal MLIR: the general type parser reads it (the fast regex
    only names complex<f32> / complex<f64>)."""
    f, _ = _ops("func.func @g(%a: tensor<3xcomplex<f16>>) {\n  return\n}\n")
    assert f.type.inputs == (TensorType((3,), ComplexType(FloatType("f16"))),)


def _module_attrs(body: str):
    return parse_module(body).attributes


def test_plain_attribute_dictionary_memo_returns_equal_values():
    text = 'module attributes {a.n = 1 : i32, b = "s", c, d = [true, 2.5 : f32]} {\n}\n'
    first = _module_attrs(text)
    again = _module_attrs(text)
    assert first == again
    names = [k for k, _ in first]
    assert names == ["a.n", "b", "c", "d"]
    n = dict(first)["a.n"]
    assert n.value == 1 and n.type == IntegerType(32)


def test_dictionary_with_an_alias_is_read_in_its_own_module():
    """``{x = #a}`` means what ``#a`` is defined as in that text: never memoized."""
    body = "module attributes {x = #a} {\n}\n"
    one = dict(_module_attrs("#a = 1 : i32\n" + body))["x"]
    two = dict(_module_attrs("#a = 2 : i32\n" + body))["x"]
    assert (one.value, two.value) == (1, 2)


@pytest.mark.parametrize("bad", ["{a = }", "{a = 1 : i32 b = 2}", "{a = 1 : i99999}"])
def test_invalid_plain_dictionary_errors_every_time(bad):
    for _ in range(2):
        with pytest.raises(ParseError):
            parse_module(f"module attributes {bad} {{\n}}\n")


def test_pretty_signature_keyword_lookahead():
    """``a, b`` signatures: a keyword followed by ``=`` ends the type list (the next
    item is an attribute), one followed by ``==`` does not start an assignment."""
    f, ops = _ops(
        "func.func @h(%p: tensor<i1>, %x: tensor<4xf32>) {\n"
        "  %0 = stablehlo.select %p, %x, %x : tensor<i1>, tensor<4xf32>\n"
        "  return\n}\n"
    )
    assert [v.type for v in ops[0].operands] == [
        TensorType((), IntegerType(1)),
        TensorType((4,), FloatType("f32")),
        TensorType((4,), FloatType("f32")),
    ]
