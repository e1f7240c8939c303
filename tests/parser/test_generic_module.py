"""A module in MLIR's generic op form (``mlir-opt --mlir-print-op-generic``):
``"builtin.module"() ({ ... }) {attrs} : () -> ()``, its name in ``sym_name`` (an
attribute, or a property in ``<{...}>`` as newer MLIR prints it)."""

from __future__ import annotations

import numpy as np
import pytest

from hlorun.engine import run
from hlorun.parser import parse_module
from hlorun.parser.errors import ParseError
from hlorun.parser.ir import IntegerAttr
from hlorun.parser.printer import print_module

GENERIC = """"builtin.module"() ({
  "func.func"() <{function_type = (tensor<2xf32>) -> tensor<2xf32>, sym_name = "main"}> ({
  ^bb0(%arg0: tensor<2xf32>):
    %0 = "stablehlo.add"(%arg0, %arg0) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    "func.return"(%0) : (tensor<2xf32>) -> ()
  }) : () -> ()
}) {foo.bar = 1 : i32, sym_name = "m"} : () -> ()
"""

PRETTY = """module @m attributes {foo.bar = 1 : i32} {
  func.func @main(%arg0: tensor<2xf32>) -> tensor<2xf32> {
    %0 = stablehlo.add %arg0, %arg0 : tensor<2xf32>
    func.return %0 : tensor<2xf32>
  }
}
"""


def test_generic_module_reads_as_its_pretty_form():
    m = parse_module(GENERIC)
    assert m.name == "m" and not m.implicit
    assert m.attributes == (("foo.bar", IntegerAttr(1, m.attributes[0][1].type)),)
    assert print_module(m) == print_module(parse_module(PRETTY))
    assert [float(v) for v in run(m, [np.array([1.0, -2.5], np.float32)])[0]] == [2.0, -5.0]


def test_generic_print_reads_back():
    m = parse_module(PRETTY)
    again = parse_module(print_module(m, generic=True))
    assert print_module(again) == print_module(m)


def test_properties_label_and_location():
    text = """"builtin.module"() <{sym_name = "x"}> ({
^bb0:
  "func.func"() <{function_type = () -> (), sym_name = "main"}> ({
    "func.return"() : () -> ()
  }) : () -> ()
}) : () -> () loc("f.mlir":1:1)"""
    m = parse_module(text)
    assert m.name == "x" and m.attributes == ()
    assert m.location is not None and "f.mlir" in print_module(m)
    assert list(m.functions) == ["main"]


@pytest.mark.parametrize(
    "text,message",
    [
        ('"builtin.module"() ({ "builtin.module"() ({}) : () -> () }) : () -> ()', "nested"),
        ('"builtin.module"() ({}) : () ->', r"'\(\) -> \(\)'"),
        ('"builtin.module"() <{sym_name = 1 : i32}> ({}) : () -> ()', "sym_name"),
        ('"builtin.module"() ({})', "':'"),
    ],
)
def test_malformed_generic_module(text, message):
    with pytest.raises(ParseError, match=message):
        parse_module(text)
