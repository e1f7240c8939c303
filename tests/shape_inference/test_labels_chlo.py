"""chlo labels (``chlo.<op>.<what>``, docs/chlo.md) that test_chlo_shapes.py leaves
out, each from a program violating exactly that rule; and valid programs."""

from __future__ import annotations

import pytest

from tests.shape_inference.labelcheck import assert_label, assert_verifies, func

S32 = "tensor<i32>"


def constant_like(value: str) -> str:
    return func(
        "%a: tensor<2xf32>",
        f'%r = "chlo.constant_like"(%a) {{value = {value}}} : (tensor<2xf32>) -> tensor<2xf32>',
    )


def scan(
    inputs: list[str],
    inits: list[str],
    results: list[str],
    body_args: list[str],
    returned: str,
    returned_types: list[str],
) -> str:
    args = [f"%in{i}: {t}" for i, t in enumerate(inputs)] + [
        f"%init{i}: {t}" for i, t in enumerate(inits)
    ]
    names_in = ", ".join(f"%in{i}" for i in range(len(inputs)))
    names_init = ", ".join(f"%init{i}" for i in range(len(inits)))
    block = ", ".join(f"%b{i}: {t}" for i, t in enumerate(body_args))
    lhs = "%r = " if len(results) == 1 else f"%r:{len(results)} = "
    return func(
        ", ".join(args),
        f"{lhs}chlo.scan({names_in}) inits({names_init}) dimension=0 {{\n"
        f"  ^bb0({block}):\n"
        f"    stablehlo.return {returned} : {', '.join(returned_types)}\n"
        f"  }} : ({', '.join(inputs + inits)}) -> ({', '.join(results)})",
    )


VALID = {
    "constant_like_scalar": constant_like("1.0 : f32"),
    "constant_like_splat": constant_like("dense<1.0> : tensor<f32>"),
    # cumulative "sum" that keeps the carry: one output, one carry
    "scan": scan(
        ["tensor<4xi32>"], [S32], ["tensor<4xi32>", S32], [S32, S32], "%b0, %b1", [S32, S32]
    ),
}

NEGATIVE = [
    # chlo.constant_like: the value is a scalar (or a splat of one)
    ("chlo.constant_like.value", constant_like("dense<[1.0, 2.0]> : tensor<2xf32>")),
    # chlo.scan: the inputs have one size along dimension
    (
        "chlo.scan.inputs",
        scan(
            ["tensor<4xi32>", "tensor<3xi32>"],
            [S32],
            ["tensor<4xi32>", S32],
            [S32, S32, S32],
            "%b0, %b2",
            [S32, S32],
        ),
    ),
    # chlo.scan (ScanOp::verify): one body argument per operand
    (
        "chlo.scan.body",
        scan(["tensor<4xi32>"], [S32], ["tensor<4xi32>", S32], [S32], "%b0, %b0", [S32, S32]),
    ),
    # ... each compatible with its operand (an input's slice along dimension)
    (
        "chlo.scan.body",
        scan(
            ["tensor<4xi32>"],
            [S32],
            ["tensor<4xi32>", S32],
            ["tensor<f32>", S32],
            "%b1, %b1",
            [S32, S32],
        ),
    ),
    # chlo.scan: at least one of inputs or outputs
    ("chlo.scan.empty", scan([], [S32], [S32], [S32], "%b0", [S32])),
    # chlo.scan: one carry result per init
    (
        "chlo.scan.results",
        scan(["tensor<4xi32>"], [S32, S32], [S32], [S32, S32, S32], "%b1", [S32]),
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
