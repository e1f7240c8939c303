"""One program per input-type label of the reduction family (spec "reduce",
"reduce_window", "select_and_scatter", "sort", "map"), each violating exactly that
constraint as the spec states it; and valid programs that must verify cleanly.  The
C-constraints are covered by test_reduction_shapes.py."""

from __future__ import annotations

import pytest

from tests.shape_inference.labelcheck import assert_label, assert_verifies, func

F, S = "tensor<4xf32>", "tensor<f32>"
TOKEN = "!stablehlo.token"


def region(n: int, body: str, ret_type: str) -> str:
    args = ", ".join(f"%x{i}: {S}" for i in range(n))
    return (
        f"({{\n  ^bb0({args}):\n    %s = {body}\n"
        f'    "stablehlo.return"(%s) : ({ret_type}) -> ()\n  }})'
    )


ADD = region(2, f"stablehlo.add %x0, %x1 : {S}", S)
GE = region(2, f"stablehlo.compare GE, %x0, %x1 : ({S}, {S}) -> tensor<i1>", "tensor<i1>")


def op(name: str, operands: list[str], result: str, regions: str, attrs: str) -> str:
    names = [f"%a{i}" for i in range(len(operands))]
    args = ", ".join(f"{n}: {t}" for n, t in zip(names, operands))
    return func(
        args,
        f'%r = "stablehlo.{name}"({", ".join(names)}) {regions} {{{attrs}}} : '
        f"({', '.join(operands)}) -> {result}",
    )


def reduce(input_: str = F, init: str = S) -> str:
    return op("reduce", [input_, init], S, ADD, "dimensions = array<i64: 0>")


def reduce_window(input_: str = F, init: str = S) -> str:
    return op(
        "reduce_window", [input_, init], "tensor<3xf32>", ADD, "window_dimensions = array<i64: 2>"
    )


def select_and_scatter(operand: str = F, source: str = "tensor<2xf32>", init: str = S) -> str:
    return op(
        "select_and_scatter",
        [operand, source, init],
        F,
        f"{GE[:-1]}, {ADD[1:]}",
        "window_dimensions = array<i64: 2>, window_strides = array<i64: 2>",
    )


def sort(input_: str = F) -> str:
    return op("sort", [input_], F, GE, "dimension = 0 : i64")


def map_(lhs: str = F, rhs: str = F) -> str:
    return op("map", [lhs, rhs], F, ADD, "dimensions = array<i64: 0>")


VALID = {
    "reduce": reduce(),
    "reduce_window": reduce_window(),
    "select_and_scatter": select_and_scatter(),
    "sort": sort(),
    "map": map_(),
}

NEGATIVE = [
    # reduce (I1) inputs: tensors; (I2) init_values: 0-dimensional tensors
    ("reduce_i1", reduce(input_=TOKEN)),
    ("reduce_i2", reduce(init=TOKEN)),
    # reduce_window (I1) inputs; (I2) init_values: tensors (upstream's verifier accepts
    # rank > 0 ones of the body's accumulator shape; this body's is 0-d: C13)
    ("reduce_window_i1", reduce_window(input_=TOKEN)),
    ("reduce_window_c13", reduce_window(init="tensor<1xf32>")),
    ("reduce_window_i2", reduce_window(init=TOKEN)),
    # select_and_scatter (I1) operand, (I2) source: tensors; (I3) init_value: 0-d tensor
    ("select_and_scatter_i1", select_and_scatter(operand=TOKEN)),
    ("select_and_scatter_i2", select_and_scatter(source=TOKEN)),
    ("select_and_scatter_i3", select_and_scatter(init="tensor<1xf32>")),
    ("select_and_scatter_i3", select_and_scatter(init=TOKEN)),
    # sort (I1) inputs: tensors
    ("sort_i1", sort(input_=TOKEN)),
    # map (I1) inputs: tensors
    ("map_i1", map_(rhs=TOKEN)),
]


@pytest.mark.parametrize("name", sorted(VALID))
def test_valid_program_verifies(name):
    assert_verifies(VALID[name])


@pytest.mark.parametrize(
    ("label", "text"), NEGATIVE, ids=[f"{label}-{i}" for i, (label, _) in enumerate(NEGATIVE)]
)
def test_violation_carries_its_label(label, text):
    assert_label(text, label)
