"""Bounded dynamism (docs/dynamism.md, ``#stablehlo.bounds``): the type's own rules
(one bound per dimension, none on a static dimension; label ``type_bounds``, the
StableHLO verifier's), and ops that take bounded operands: a declared result that fits
the bounds verifies, one whose static size exceeds a bound is refused under the op's
result label."""

from __future__ import annotations

import pytest

from tests.shape_inference.labelcheck import assert_label, assert_verifies, func

B = "tensor<?x3xf32, #stablehlo.bounds<4, ?>>"


def unary(name: str, operand: str, result: str, attrs: str = "") -> str:
    attrs = f" {{{attrs}}}" if attrs else ""
    return func(
        f"%a: {operand}",
        f'%r = "stablehlo.{name}"(%a){attrs} : ({operand}) -> {result}',
        results=result,
        returns=f"%r : {result}",
    )


@pytest.mark.parametrize(
    "t",
    ["tensor<?x3xf32, #stablehlo.bounds<4, 5>>", "tensor<?x3xf32, #stablehlo.bounds<4>>"],
)
def test_type_bounds(t):
    assert_label(func(f"%a: {t}"), "type_bounds")


VALID = [
    unary("abs", B, B),
    unary("abs", B, "tensor<4x3xf32>"),  # a static size within the bound
    unary(
        "transpose", B, "tensor<3x?xf32, #stablehlo.bounds<?, 4>>", "permutation = array<i64: 1, 0>"
    ),
    unary("reshape", B, "tensor<?x3xf32, #stablehlo.bounds<4, ?>>"),
    unary(
        "broadcast_in_dim",
        B,
        "tensor<2x?x3xf32, #stablehlo.bounds<?, 4, ?>>",
        "broadcast_dimensions = array<i64: 1, 2>",
    ),
    unary("convert", B, "tensor<?x3xf64, #stablehlo.bounds<4, ?>>"),
    func(
        f"%a: {B}, %b: tensor<3x5xf32>",
        '%r = "stablehlo.dot_general"(%a, %b) {dot_dimension_numbers = #stablehlo.dot<'
        "lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>} : "
        f"({B}, tensor<3x5xf32>) -> tensor<?x5xf32, #stablehlo.bounds<4, ?>>",
    ),
    func(
        f"%a: {B}, %b: {B}",
        f'%r = "stablehlo.concatenate"(%a, %b) {{dimension = 1 : i64}} : ({B}, {B}) -> '
        "tensor<?x6xf32, #stablehlo.bounds<4, ?>>",
    ),
]


@pytest.mark.parametrize("text", VALID)
def test_bounded_operands_verify(text):
    assert_verifies(text)


def test_static_size_over_the_bound():
    assert_label(unary("abs", B, "tensor<5x3xf32>"), "abs_c1")
    assert_label(
        unary("transpose", B, "tensor<3x5xf32>", "permutation = array<i64: 1, 0>"),
        "transpose_c3",
    )
