"""One program per input-type label of the elementwise family (spec: every operand of
an elementwise op is a tensor, ``<op>_i<N>`` for operand N), each violating exactly that
constraint; and valid programs that must verify cleanly.  The elementwise ops'
C-constraints are covered by test_elementwise_shapes.py."""

from __future__ import annotations

import pytest

from tests.shape_inference.labelcheck import assert_label, assert_verifies, func

F = "tensor<2xf32>"
TOKEN = "!stablehlo.token"
I1 = "tensor<2xi1>"


def op(name: str, operands: list[str], result: str, attrs: str = "") -> str:
    """``%r = "stablehlo.<name>"(%a0, ...) {attrs} : (operands) -> result``."""
    names = [f"%a{i}" for i in range(len(operands))]
    args = ", ".join(f"{n}: {t}" for n, t in zip(names, operands))
    attrs = f" {{{attrs}}}" if attrs else ""
    return func(
        args,
        f'%r = "stablehlo.{name}"({", ".join(names)}){attrs} : ({", ".join(operands)}) -> {result}',
    )


LT = "comparison_direction = #stablehlo<comparison_direction LT>"

VALID = {
    "abs": op("abs", [F], F),
    "abs_complex": op("abs", ["tensor<2xcomplex<f32>>"], F),
    "negate": op("negate", [F], F),
    "add": op("add", [F, F], F),
    "subtract": op("subtract", [F, F], F),
    "compare": op("compare", [F, F], I1, LT),
    "clamp": op("clamp", ["tensor<f32>", F, "tensor<f32>"], F),
    "select": op("select", [I1, F, F], F),
    "select_scalar_pred": op("select", ["tensor<i1>", F, F], F),
    "complex": op("complex", [F, F], "tensor<2xcomplex<f32>>"),
    "real": op("real", ["tensor<2xcomplex<f32>>"], F),
    "is_finite": op("is_finite", [F], I1),
}

NEGATIVE = [
    # abs (I1) operand: tensor
    ("abs_i1", op("abs", [TOKEN], F)),
    # a table row, unary and binary: (I1) / (I2) operands are tensors
    ("negate_i1", op("negate", [TOKEN], F)),
    ("subtract_i1", op("subtract", [TOKEN, F], F)),
    ("subtract_i2", op("subtract", [F, TOKEN], F)),
    # add (I1), (I2)
    ("add_i1", op("add", [TOKEN, F], F)),
    ("add_i2", op("add", [F, "tuple<tensor<2xf32>>"], F)),
    # compare (I1), (I2)
    ("compare_i1", op("compare", [TOKEN, F], I1, LT)),
    ("compare_i2", op("compare", [F, TOKEN], I1, LT)),
    # clamp (I1) min, (I2) operand, (I3) max
    ("clamp_i1", op("clamp", [TOKEN, F, F], F)),
    ("clamp_i2", op("clamp", [F, TOKEN, F], F)),
    ("clamp_i3", op("clamp", [F, F, TOKEN], F)),
    # select (I1) pred, (I2) on_true, (I3) on_false
    ("select_i1", op("select", [TOKEN, F, F], F)),
    ("select_i1", op("select", ["tensor<2xi32>", F, F], F)),
    ("select_i2", op("select", [I1, TOKEN, F], F)),
    ("select_i3", op("select", [I1, F, TOKEN], F)),
    # complex (I1) lhs, (I2) rhs: tensors of f32 / f64
    ("complex_i1", op("complex", [TOKEN, F], "tensor<2xcomplex<f32>>")),
    ("complex_i2", op("complex", [F, TOKEN], "tensor<2xcomplex<f32>>")),
    ("complex_i2", op("complex", [F, "tensor<2xf16>"], "tensor<2xcomplex<f32>>")),
    # real (I1) operand
    ("real_i1", op("real", [TOKEN], F)),
    # is_finite (I1) x: tensor of floating-point type
    ("is_finite_i1", op("is_finite", [TOKEN], I1)),
    ("is_finite_i1", op("is_finite", ["tensor<2xi32>"], I1)),
]


@pytest.mark.parametrize("name", sorted(VALID))
def test_valid_program_verifies(name):
    assert_verifies(VALID[name])


@pytest.mark.parametrize(
    ("label", "text"), NEGATIVE, ids=[f"{label}-{i}" for i, (label, _) in enumerate(NEGATIVE)]
)
def test_violation_carries_its_label(label, text):
    assert_label(text, label)
