"""The labels of the ``check`` test dialect's verifiers (docs/test-dialects.md): the
two operands of ``check.expect_eq`` have one type, and the constant of
``check.expect_eq_const`` has the operand's shape; and valid programs."""

from __future__ import annotations

import pytest

from tests.shape_inference.labelcheck import assert_label, assert_verifies, func

F = "tensor<2xf32>"

VALID = {
    "expect_eq": func(f"%a: {F}, %b: {F}", f'"check.expect_eq"(%a, %b) : ({F}, {F}) -> ()'),
    "expect_eq_const": func(
        f"%a: {F}", "check.expect_eq_const %a, dense<[1.0, 2.0]> : tensor<2xf32>"
    ),
    "expect_almost_eq_const": func(
        f"%a: {F}", f'"check.expect_almost_eq_const"(%a) {{value = dense<1.0> : {F}}} : ({F}) -> ()'
    ),
}

NEGATIVE = [
    (
        "check_same_type",
        func(
            f"%a: {F}, %b: tensor<2xi32>", f'"check.expect_eq"(%a, %b) : ({F}, tensor<2xi32>) -> ()'
        ),
    ),
    (
        "check_same_type",
        func(
            f"%a: {F}, %b: tensor<3xf32>",
            f'"check.expect_almost_eq"(%a, %b) : ({F}, tensor<3xf32>) -> ()',
        ),
    ),
    (
        "check_same_shape",
        func(
            f"%a: {F}",
            '"check.expect_eq_const"(%a) {value = dense<[1.0, '
            f"2.0, 3.0]> : tensor<3xf32>}} : ({F}) -> ()",
        ),
    ),
]


@pytest.mark.parametrize("name", sorted(VALID))
def test_valid_program_verifies(name):
    assert_verifies(VALID[name])


@pytest.mark.parametrize(
    ("label", "text"), NEGATIVE, ids=[f"{label}-{i}" for i, (label, _) in enumerate(NEGATIVE)]
)
def test_violation_carries_its_label(label, text):
    assert_label(text, label)
