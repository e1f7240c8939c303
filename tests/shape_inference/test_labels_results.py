"""One program per spec label that states an op's result type (``shape(result) = ...``,
``element_type(result) = ...``, ``type(results...) = type(operands...)``): a declared
result type the spec's formula does not give must be reported under that label (the
row's ``result_labels``), and the same program with the right result type verifies.

Each row: (label, operand types, attributes / regions text, the right result type, a
wrong one); the expected types come from the constraint's formula applied by hand.
"""

from __future__ import annotations

import pytest

from tests.shape_inference.labelcheck import assert_label, assert_verifies, func

F = "tensor<2x3xf32>"
S = "tensor<f32>"
C = "tensor<2x3xcomplex<f32>>"
I = "tensor<2x3xi32>"
SHAPE = "tensor<3x2xf32>"  # same element type, other shape
F64 = "tensor<2x3xf64>"  # same shape, other element type


def op(name: str, operands: list[str], result: str, attrs: str = "", regions: str = "") -> str:
    """``%r = "stablehlo.<name>"(%a0, ...) regions {attrs} : (operands) -> result``."""
    names = [f"%a{i}" for i in range(len(operands))]
    args = ", ".join(f"{n}: {t}" for n, t in zip(names, operands))
    attrs = f" {{{attrs}}}" if attrs else ""
    regions = f" {regions}" if regions else ""
    n = result.count("tensor<") if result.startswith("(") else 1
    lhs = "%r = " if n == 1 else f"%r:{n} = "
    return func(
        args,
        f'{lhs}"stablehlo.{name}"({", ".join(names)}){regions}{attrs} : '
        f"({', '.join(operands)}) -> {result}",
    )


def body(n: int, ret: str = "", elem: str = "f32") -> str:
    """A region adding ``n`` pairs of scalars (reduce-like bodies)."""
    t = f"tensor<{elem}>"
    args = ", ".join(f"%x{i}: {t}" for i in range(2 * n))
    sums = "\n".join(f"    %s{i} = stablehlo.add %x{i}, %x{i + n} : {t}" for i in range(n))
    rets = ", ".join(f"%s{i}" for i in range(n))
    types = ", ".join([t] * n)
    return f"({{\n  ^bb0({args}):\n{sums}\n    stablehlo.return {rets} : {types}\n  }})"


GE = (
    "({\n  ^bb0(%x0: tensor<f32>, %x1: tensor<f32>):\n"
    "    %p = stablehlo.compare GE, %x0, %x1 : (tensor<f32>, tensor<f32>) -> tensor<i1>\n"
    "    stablehlo.return %p : tensor<i1>\n  })"
)

UNARY_FLOAT = [
    "cbrt_c1",
    "ceil_c1",
    "cosine_c1",
    "exponential_c1",
    "exponential_minus_one_c1",
    "floor_c1",
    "log_c1",
    "log_plus_one_c1",
    "logistic_c1",
    "negate_c1",
    "round_nearest_afz_c1",
    "round_nearest_even_c1",
    "rsqrt_c1",
    "sign_c1",
    "sine_c1",
    "sqrt_c1",
    "tan_c1",
    "tanh_c1",
]
BINARY_FLOAT = [
    "atan2_c1",
    "divide_c1",
    "maximum_c1",
    "minimum_c1",
    "multiply_c1",
    "power_c1",
    "remainder_c1",
    "subtract_c1",
]
UNARY_INT = [
    "count_leading_zeros_c1",
    "not_c1",
    "popcnt_c1",
]
BINARY_INT = [
    "and_c1",
    "or_c1",
    "xor_c1",
    "shift_left_c1",
    "shift_right_arithmetic_c1",
    "shift_right_logical_c1",
]

# (label, op, operands, attrs, regions, right result, wrong result): the elementwise lists hold labels
CASES: list[tuple[str, str, list[str], str, str, str, str]] = [
    # the elementwise rows: (C1) baseline_type(operands...) = baseline_type(result)
    *[(lab, lab[:-3], [F], "", "", F, SHAPE) for lab in UNARY_FLOAT],
    *[(lab, lab[:-3], [F, F], "", "", F, F64) for lab in BINARY_FLOAT],
    *[(lab, lab[:-3], [I], "", "", I, "tensor<3x2xi32>") for lab in UNARY_INT],
    *[(lab, lab[:-3], [I, I], "", "", I, "tensor<2x3xi64>") for lab in BINARY_INT],
    # abs (C1) shape(result) = shape(operand); (C2) complex -> its part type
    ("abs_c1", "abs", [F], "", "", F, SHAPE),
    ("abs_c2", "abs", [C], "", "", F, C),
    # real / imag: (C1) shape, (C2) element type
    ("real_c1", "real", [C], "", "", F, SHAPE),
    ("real_c2", "real", [C], "", "", F, F64),
    ("imag_c1", "imag", [C], "", "", F, SHAPE),
    ("imag_c2", "imag", [C], "", "", F, C),
    # complex (C2) shape(result) = shape(lhs); (C3) complex<element_type(lhs)>
    ("complex_c2", "complex", [F, F], "", "", C, "tensor<3x2xcomplex<f32>>"),
    ("complex_c3", "complex", [F, F], "", "", C, "tensor<2x3xcomplex<f64>>"),
    # reverse (C1), dynamic_update_slice (C1): type(operand) = type(result)
    ("reverse_c1", "reverse", [F], "dimensions = array<i64: 0>", "", F, F64),
    (
        "dynamic_update_slice_c1",
        "dynamic_update_slice",
        [F, "tensor<1x3xf32>", "tensor<i32>", "tensor<i32>"],
        "",
        "",
        F,
        SHAPE,
    ),
    # slice (C1) element type, (C5) shape = ceil((limit - start) / strides)
    (
        "slice_c1",
        "slice",
        [F],
        "start_indices = array<i64: 0, 0>, limit_indices = array<i64: 2, 3>, "
        "strides = array<i64: 1, 2>",
        "",
        "tensor<2x2xf32>",
        "tensor<2x2xf64>",
    ),
    (
        "slice_c5",
        "slice",
        [F],
        "start_indices = array<i64: 0, 0>, limit_indices = array<i64: 2, 3>, "
        "strides = array<i64: 1, 2>",
        "",
        "tensor<2x2xf32>",
        "tensor<2x3xf32>",
    ),
    # dynamic_slice (C1) element type, (C5) shape(result) = slice_sizes
    (
        "dynamic_slice_c1",
        "dynamic_slice",
        [F, "tensor<i32>", "tensor<i32>"],
        "slice_sizes = array<i64: 1, 2>",
        "",
        "tensor<1x2xf32>",
        "tensor<1x2xf64>",
    ),
    (
        "dynamic_slice_c5",
        "dynamic_slice",
        [F, "tensor<i32>", "tensor<i32>"],
        "slice_sizes = array<i64: 1, 2>",
        "",
        "tensor<1x2xf32>",
        "tensor<2x2xf32>",
    ),
    # transpose (C1) element type, (C3) shape(result) = dim(operand, permutation...)
    (
        "transpose_c1",
        "transpose",
        [F],
        "permutation = array<i64: 1, 0>",
        "",
        SHAPE,
        "tensor<3x2xf64>",
    ),
    ("transpose_c3", "transpose", [F], "permutation = array<i64: 1, 0>", "", SHAPE, F),
    # concatenate (C5) element type, (C6) shape: sizes along dimension add up
    (
        "concatenate_c5",
        "concatenate",
        [F, F],
        "dimension = 0 : i64",
        "",
        "tensor<4x3xf32>",
        "tensor<4x3xf64>",
    ),
    (
        "concatenate_c6",
        "concatenate",
        [F, F],
        "dimension = 0 : i64",
        "",
        "tensor<4x3xf32>",
        "tensor<5x3xf32>",
    ),
    # cholesky (C1), triangular_solve (C4): baseline_type(a / b) = baseline_type(result)
    ("cholesky_c1", "cholesky", ["tensor<3x3xf32>"], "", "", "tensor<3x3xf32>", "tensor<3x3xf64>"),
    (
        "triangular_solve_c4",
        "triangular_solve",
        ["tensor<3x3xf32>", "tensor<3x2xf32>"],
        "left_side = true, lower = true, unit_diagonal = false, "
        "transpose_a = #stablehlo<transpose NO_TRANSPOSE>",
        "",
        "tensor<3x2xf32>",
        "tensor<2x3xf32>",
    ),
    # dot_general (C12) shape(result) = batch + lhs free + rhs free dims
    (
        "dot_general_c12",
        "dot_general",
        ["tensor<2x3xf32>", "tensor<3x4xf32>"],
        "dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [1], "
        "rhs_contracting_dimensions = [0]>",
        "",
        "tensor<2x4xf32>",
        "tensor<4x2xf32>",
    ),
    # reduce (C7) shape: the reduced dims dropped; (C8) element_type(results[i]) = Ei
    (
        "reduce_c7",
        "reduce",
        [F, S],
        "dimensions = array<i64: 1>",
        body(1),
        "tensor<2xf32>",
        "tensor<3xf32>",
    ),
    (
        "reduce_c8",
        "reduce",
        [F, S],
        "dimensions = array<i64: 1>",
        body(1),
        "tensor<2xf32>",
        "tensor<2xf64>",
    ),
    # reduce_window (C15) shape = num_windows; (C16) element_type(results[i]) = Ei
    (
        "reduce_window_c15",
        "reduce_window",
        [F, S],
        "window_dimensions = array<i64: 1, 2>",
        body(1),
        "tensor<2x2xf32>",
        "tensor<2x3xf32>",
    ),
    (
        "reduce_window_c16",
        "reduce_window",
        [F, S],
        "window_dimensions = array<i64: 1, 2>",
        body(1),
        "tensor<2x2xf32>",
        "tensor<2x2xf64>",
    ),
    # reduce_window (C14) same(shape(results...)): the second result's shape
    (
        "reduce_window_c14",
        "reduce_window",
        [F, F, S, S],
        "window_dimensions = array<i64: 1, 2>",
        body(2),
        "(tensor<2x2xf32>, tensor<2x2xf32>)",
        "(tensor<2x2xf32>, tensor<2x3xf32>)",
    ),
    # sort (C2) type(inputs...) = type(results...)
    ("sort_c2", "sort", [F], "dimension = 0 : i64", GE, F, F64),
    # select_and_scatter (C11) shape(operand) = shape(result); (C12) element type
    (
        "select_and_scatter_c11",
        "select_and_scatter",
        ["tensor<4xf32>", "tensor<2xf32>", S],
        "window_dimensions = array<i64: 2>, window_strides = array<i64: 2>",
        f"{GE[:-1]}, {body(1)[1:]}",
        "tensor<4xf32>",
        "tensor<5xf32>",
    ),
    (
        "select_and_scatter_c12",
        "select_and_scatter",
        ["tensor<4xf32>", "tensor<2xf32>", S],
        "window_dimensions = array<i64: 2>, window_strides = array<i64: 2>",
        f"{GE[:-1]}, {body(1)[1:]}",
        "tensor<4xf32>",
        "tensor<4xf64>",
    ),
    # scatter (C24) shape(inputs...) = shape(results...); (C25) element types
    *[
        (
            label,
            "scatter",
            ["tensor<4xf32>", "tensor<1x1xi32>", "tensor<1xf32>"],
            "scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0], "
            "scatter_dims_to_operand_dims = [0], index_vector_dim = 1>",
            body(1),
            "tensor<4xf32>",
            wrong,
        )
        for label, wrong in (("scatter_c24", "tensor<5xf32>"), ("scatter_c25", "tensor<4xf64>"))
    ],
    # gather (C22) shape = combine(batch dims, offset dims); (C23) element type
    *[
        (
            label,
            "gather",
            ["tensor<4x3xf32>", "tensor<2x1xi32>"],
            "dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], "
            "start_index_map = [0], index_vector_dim = 1>, slice_sizes = array<i64: 1, 3>",
            "",
            "tensor<2x3xf32>",
            wrong,
        )
        for label, wrong in (("gather_c22", "tensor<3x2xf32>"), ("gather_c23", "tensor<2x3xf64>"))
    ],
    # all_reduce (C6) shape(results...) = shape(operands...); (C7) element type = E
    *[
        (
            label,
            "all_reduce",
            [F],
            "replica_groups = dense<[[0]]> : tensor<1x1xi64>",
            body(1),
            F,
            wrong,
        )
        for label, wrong in (("all_reduce_c6", SHAPE), ("all_reduce_c7", F64))
    ],
    # batch_norm_inference (C7) baseline_type(operand) = baseline_type(result)
    (
        "batch_norm_inference_c7",
        "batch_norm_inference",
        [F, "tensor<3xf32>", "tensor<3xf32>", "tensor<3xf32>", "tensor<3xf32>"],
        "epsilon = 1.0e-3 : f32, feature_index = 1 : i64",
        "",
        F,
        SHAPE,
    ),
    # is_finite (C1) shape(x) = shape(y); (O1) y is a tensor of boolean type
    ("is_finite_c1", "is_finite", [F], "", "", "tensor<2x3xi1>", "tensor<3x2xi1>"),
    ("is_finite_o1", "is_finite", [F], "", "", "tensor<2x3xi1>", "tensor<2x3xi8>"),
    # optimization_barrier (C1) type(operand...) = type(result...)
    ("optimization_barrier_c1", "optimization_barrier", [F], "", "", F, F64),
    # tuple (C1) result is tuple<type(val)...>; get_tuple_element (C2)
    ("tuple_c1", "tuple", [F, S], "", "", f"tuple<{F}, {S}>", f"tuple<{S}, {F}>"),
    (
        "get_tuple_element_c2",
        "get_tuple_element",
        [f"tuple<{F}, {S}>"],
        "index = 1 : i32",
        "",
        S,
        F,
    ),
]


@pytest.mark.parametrize(
    "label, name, operands, attrs, regions, right, wrong",
    CASES,
    ids=[c[0] for c in CASES],
)
def test_declared_result_type(label, name, operands, attrs, regions, right, wrong):
    assert_verifies(op(name, operands, right, attrs, regions))
    assert_label(op(name, operands, wrong, attrs, regions), label)


def test_constant_c1():
    """constant (C1) type(value) = type(output)."""
    good = '%r = "stablehlo.constant"() {value = dense<1.0> : tensor<2xf32>} : () -> tensor<2xf32>'
    bad = '%r = "stablehlo.constant"() {value = dense<1.0> : tensor<2xf32>} : () -> tensor<3xf32>'
    assert_verifies(func("", good))
    assert_label(func("", bad), "constant_c1")
