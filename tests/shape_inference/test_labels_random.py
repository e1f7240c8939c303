"""One program per input / output type label of the random family (spec "rng",
"rng_bit_generator"), each violating exactly that constraint as the spec states it;
and valid programs that must verify cleanly.  The C-constraints are covered by
test_random_shapes.py."""

from __future__ import annotations

import pytest

from tests.shape_inference.labelcheck import assert_label, assert_verifies, func

F, TOKEN = "tensor<f32>", "!stablehlo.token"
UNIFORM = "rng_distribution = #stablehlo<rng_distribution UNIFORM>"


def rng(
    a: str = F,
    b: str = F,
    shape: str = "tensor<2xi64>",
    result: str = "tensor<3x2xf32>",
    attrs: str = UNIFORM,
) -> str:
    return func(
        f"%a: {a}, %b: {b}",
        f"%s = stablehlo.constant dense<[3, 2]> : {shape}"
        if shape == "tensor<2xi64>"
        else f"%s = stablehlo.constant dense<3> : {shape}",
        f'%r = "stablehlo.rng"(%a, %b, %s) {{{attrs}}} : ({a}, {b}, {shape}) -> {result}',
    )


def rng_bit_generator(
    algorithm: str = "THREE_FRY", state: str = "tensor<2xui64>", output: str = "tensor<2x2xui32>"
) -> str:
    return func(
        f"%s: {state}",
        f'%r:2 = "stablehlo.rng_bit_generator"(%s) {{rng_algorithm = '
        f"#stablehlo<rng_algorithm {algorithm}>}} : ({state}) -> "
        f"({state}, {output})",
    )


VALID = {
    "rng": rng(),
    "rng_normal": rng(attrs="rng_distribution = #stablehlo<rng_distribution NORMAL>"),
    "rng_integer": rng("tensor<i32>", "tensor<i32>", result="tensor<3x2xi32>"),
    "rng_bit_generator": rng_bit_generator(),
    "rng_bit_generator_philox": rng_bit_generator("PHILOX", "tensor<3xui64>", "tensor<4xf32>"),
}

NEGATIVE = [
    # rng (I1) a, (I2) b: 0-dimensional tensors of integer, boolean or floating-point type
    ("rng_i1", rng(a="tensor<1xf32>")),
    ("rng_i1", rng(a=TOKEN)),
    ("rng_i2", rng(b="tensor<complex<f32>>")),
    # rng (I3) shape: 1-dimensional tensor constant of type si64
    ("rng_i3", rng(shape="tensor<2x1xi64>")),
    # rng (I4) rng_distribution: enum of UNIFORM and NORMAL
    ("rng_i4", rng(attrs="rng_distribution = #stablehlo<rng_distribution BERNOULLI>")),
    # ... a case of another enum: the attribute is not of its declared kind
    ("attribute_kind", rng(attrs="rng_distribution = #stablehlo<rng_algorithm PHILOX>")),
    # rng_bit_generator (I1) rng_algorithm: enum of DEFAULT, THREE_FRY, and PHILOX
    ("rng_bit_generator_i1", rng_bit_generator("NORMAL")),
    # rng_bit_generator (I2) initial_state: a tensor of integer (or, as MLIR allows,
    # floating-point) type
    ("rng_bit_generator_i2", rng_bit_generator(state="tensor<2xcomplex<f32>>")),
    ("rng_bit_generator_i2", rng_bit_generator(state=TOKEN)),
    # rng_bit_generator: output is a tensor of integer or floating-point type
    ("rng_bit_generator_o2", rng_bit_generator(output="tensor<2xi1>")),
    ("rng_bit_generator_o2", rng_bit_generator(output=TOKEN)),
]


@pytest.mark.parametrize("name", sorted(VALID))
def test_valid_program_verifies(name):
    assert_verifies(VALID[name])


@pytest.mark.parametrize(
    ("label", "text"), NEGATIVE, ids=[f"{label}-{i}" for i, (label, _) in enumerate(NEGATIVE)]
)
def test_violation_carries_its_label(label, text):
    assert_label(text, label)
