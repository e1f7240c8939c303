"""One program per input / output type label of the data-movement family (spec: each
op's Inputs / Outputs tables, ``<op>_i<N>`` / ``<op>_o1``), and the C-labels
test_movement_shapes.py leaves out, each violating exactly that constraint as the spec
(or, for the dialect-only ops, the StableHLO dialect) states it; and valid programs
that must verify cleanly."""

from __future__ import annotations

import pytest

from tests.shape_inference.labelcheck import assert_label, assert_verifies, func

TOKEN = "!stablehlo.token"
F2, F23, F4 = "tensor<2xf32>", "tensor<2x3xf32>", "tensor<4xf32>"
I64, V1 = "tensor<i64>", "tensor<1xi64>"
PER_AXIS = "tensor<2x!quant.uniform<i8:f32:0, {1.0:0, 2.0:0}>>"
PER_AXIS_4 = "tensor<4x!quant.uniform<i8:f32:0, {1.0:0, 2.0:0, 3.0:0, 4.0:0}>>"


def op(name: str, operands: list[str], result: str, attrs: str = "", regions: str = "") -> str:
    """``%r = "stablehlo.<name>"(%a0, ...) regions {attrs} : (operands) -> result``."""
    names = [f"%a{i}" for i in range(len(operands))]
    args = ", ".join(f"{n}: {t}" for n, t in zip(names, operands))
    attrs = f" {{{attrs}}}" if attrs else ""
    regions = f" {regions}" if regions else ""
    return func(
        args,
        f'%r = "stablehlo.{name}"({", ".join(names)}){regions}{attrs} : '
        f"({', '.join(operands)}) -> {result}",
    )


def iota(result: str = F4) -> str:
    return op("iota", [], result, "iota_dimension = 0 : i64")


def dynamic_iota(result: str = "tensor<?xf32>") -> str:
    return op("dynamic_iota", [V1], result, "iota_dimension = 0 : i64")


def broadcast_in_dim(operand: str = F2) -> str:
    return op(
        "broadcast_in_dim", [operand], "tensor<3x2xf32>", "broadcast_dimensions = array<i64: 1>"
    )


def dynamic_broadcast_in_dim(operand: str = F2, result: str = "tensor<?x2xf32>") -> str:
    return op(
        "dynamic_broadcast_in_dim",
        [operand, "tensor<2xi64>"],
        result,
        "broadcast_dimensions = array<i64: 1>",
    )


def transpose(operand: str = F23, result: str = "tensor<3x2xf32>") -> str:
    return op("transpose", [operand], result, "permutation = array<i64: 1, 0>")


def set_dimension_size(operand: str = F23, size: str = "tensor<i32>", dimension: int = 1) -> str:
    return op(
        "set_dimension_size", [operand, size], "tensor<2x?xf32>", f"dimension = {dimension} : i64"
    )


SLICE = "start_indices = array<i64: 0>, limit_indices = array<i64: 1>, strides = array<i64: 1>"


def dynamic_slice(operand: str = F23, index: str = I64) -> str:
    return op(
        "dynamic_slice",
        [operand, index, index],
        "tensor<1x2xf32>",
        "slice_sizes = array<i64: 1, 2>",
    )


def dynamic_update_slice(
    operand: str = F23, update: str = "tensor<1x2xf32>", index: str = I64
) -> str:
    return op("dynamic_update_slice", [operand, update, index, index], F23)


def real_dynamic_slice(operand: str = F4, result: str = "tensor<?xf32>") -> str:
    return op("real_dynamic_slice", [operand, V1, V1, V1], result)


PAD = (
    "edge_padding_low = array<i64: 1>, edge_padding_high = array<i64: 1>, "
    "interior_padding = array<i64: 0>"
)


def dynamic_pad(
    operand: str = F2,
    low: str = V1,
    high: str = V1,
    interior: str = V1,
    result: str = "tensor<?xf32>",
) -> str:
    return op("dynamic_pad", [operand, "tensor<f32>", low, high, interior], result)


GATHER = (
    "dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = "
    "[0], start_index_map = [0], index_vector_dim = 1>"
)
G_OPERAND, G_INDICES, G_RESULT = "tensor<4x2xf32>", "tensor<3x1xi64>", "tensor<3x2xf32>"


def gather(operand: str = G_OPERAND) -> str:
    return op("gather", [operand, G_INDICES], G_RESULT, f"{GATHER}, slice_sizes = array<i64: 1, 2>")


def dynamic_gather(
    operand: str = G_OPERAND,
    indices: str = G_INDICES,
    sizes: str = "tensor<2xi64>",
    result: str = G_RESULT,
) -> str:
    return op("dynamic_gather", [operand, indices, sizes], result, GATHER)


KEEP_UPDATE = (
    "({\n  ^bb0(%x: tensor<f32>, %y: tensor<f32>):\n"
    '    "stablehlo.return"(%y) : (tensor<f32>) -> ()\n  })'
)
SCATTER = (
    "scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], "
    "inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], "
    "index_vector_dim = 1>"
)


def scatter(input_: str = G_OPERAND, update: str = G_RESULT) -> str:
    return op("scatter", [input_, G_INDICES, update], G_OPERAND, SCATTER, KEEP_UPDATE)


VALID = {
    "iota": iota(),
    "dynamic_iota": dynamic_iota(),
    "broadcast_in_dim": broadcast_in_dim(),
    "dynamic_broadcast_in_dim": dynamic_broadcast_in_dim(),
    "broadcast": op("broadcast", [F2], "tensor<3x2xf32>", "broadcast_sizes = array<i64: 3>"),
    "reshape": op("reshape", [F23], "tensor<6xf32>"),
    "dynamic_reshape": op("dynamic_reshape", [F23, V1], "tensor<?xf32>"),
    "transpose": transpose(),
    "reverse": op("reverse", [F23], F23, "dimensions = array<i64: 0>"),
    "get_dimension_size": op("get_dimension_size", [F23], "tensor<i32>", "dimension = 0 : i64"),
    "set_dimension_size": set_dimension_size(),
    "slice": op("slice", [F2], "tensor<1xf32>", SLICE),
    "dynamic_slice": dynamic_slice(),
    "dynamic_update_slice": dynamic_update_slice(),
    "real_dynamic_slice": real_dynamic_slice(),
    "concatenate": op("concatenate", [F2, "tensor<3xf32>"], "tensor<5xf32>", "dimension = 0 : i64"),
    "pad": op("pad", [F2, "tensor<f32>"], F4, PAD),
    "dynamic_pad": dynamic_pad(),
    "gather": gather(),
    "dynamic_gather": dynamic_gather(),
    "scatter": scatter(),
}

NEGATIVE = [
    # iota: result "tensor of integer, floating-point, or complex type or per-tensor
    # quantized tensor"
    ("iota_o1", iota(PER_AXIS_4)),
    ("iota_o1", iota(TOKEN)),
    ("dynamic_iota_o1", dynamic_iota(TOKEN)),
    # broadcast_in_dim (I1) operand: tensor
    ("broadcast_in_dim_i1", broadcast_in_dim(TOKEN)),
    # dynamic_broadcast_in_dim (I1) operand; result: tensor; (C1) element types
    ("dynamic_broadcast_in_dim_i1", dynamic_broadcast_in_dim(TOKEN)),
    ("dynamic_broadcast_in_dim_o1", dynamic_broadcast_in_dim(result=TOKEN)),
    ("dynamic_broadcast_in_dim_c1", dynamic_broadcast_in_dim(result="tensor<?x2xi32>")),
    # broadcast (dialect op): operand is a tensor
    (
        "broadcast_i1",
        op("broadcast", [TOKEN], "tensor<3x2xf32>", "broadcast_sizes = array<i64: 3>"),
    ),
    # reshape (I1) operand; result: tensor
    ("reshape_i1", op("reshape", [TOKEN], "tensor<6xf32>")),
    ("reshape_o1", op("reshape", [F23], TOKEN)),
    # dynamic_reshape (I1) operand; result: tensor
    ("dynamic_reshape_i1", op("dynamic_reshape", [TOKEN, V1], "tensor<?xf32>")),
    ("dynamic_reshape_o1", op("dynamic_reshape", [F23, V1], TOKEN)),
    # transpose (I1) operand; result: tensor; (C1) element_type(result) =
    # element_type(operand)
    ("transpose_i1", transpose(TOKEN)),
    ("transpose_o1", transpose(result=TOKEN)),
    ("transpose_c1", transpose(result="tensor<3x2xi32>")),
    # reverse (I1), get_dimension_size (I1): operand is a tensor
    ("reverse_i1", op("reverse", [TOKEN], F23, "dimensions = array<i64: 0>")),
    (
        "get_dimension_size_i1",
        op("get_dimension_size", [TOKEN], "tensor<i32>", "dimension = 0 : i64"),
    ),
    # set_dimension_size (dialect op): a tensor operand, a 0-d size, a dimension in range
    ("set_dimension_size_i1", set_dimension_size(TOKEN)),
    ("set_dimension_size_i2", set_dimension_size(size=TOKEN)),
    ("set_dimension_size_i2", set_dimension_size(size="tensor<1xi32>")),
    ("set_dimension_size_c1", set_dimension_size(dimension=2)),
    ("set_dimension_size_c1", set_dimension_size(dimension=-1)),
    # slice (I1) operand: tensor or per-tensor quantized tensor
    ("slice_i1", op("slice", [TOKEN], "tensor<1xf32>", SLICE)),
    (
        "slice_i1",
        op("slice", [PER_AXIS], "tensor<1x!quant.uniform<i8:f32:0, {1.0:0, 2.0:0}>>", SLICE),
    ),
    # dynamic_slice (I1) operand; (I2) start_indices: 0-d integer tensors
    ("dynamic_slice_i1", dynamic_slice(TOKEN)),
    ("dynamic_slice_i2", dynamic_slice(index="tensor<f32>")),
    ("dynamic_slice_i2", dynamic_slice(index=V1)),
    # dynamic_update_slice (I1) operand, (I2) update, (I3) start_indices
    ("dynamic_update_slice_i1", dynamic_update_slice(TOKEN)),
    ("dynamic_update_slice_i2", dynamic_update_slice(update=TOKEN)),
    ("dynamic_update_slice_i3", dynamic_update_slice(index="tensor<f32>")),
    # real_dynamic_slice (dialect op): a tensor operand; a tensor result of its rank and
    # element type
    ("real_dynamic_slice_i1", real_dynamic_slice(TOKEN)),
    ("real_dynamic_slice_o1", real_dynamic_slice(result=TOKEN)),
    ("real_dynamic_slice_c2", real_dynamic_slice(result="tensor<?x?xf32>")),
    ("real_dynamic_slice_c2", real_dynamic_slice(result="tensor<?xi32>")),
    # concatenate (I1) inputs: tensors or per-tensor quantized tensors
    ("concatenate_i1", op("concatenate", [F2, TOKEN], "tensor<5xf32>", "dimension = 0 : i64")),
    ("concatenate_i1", op("concatenate", [PER_AXIS, PER_AXIS], PER_AXIS_4, "dimension = 0 : i64")),
    # pad (I1) operand: tensor
    ("pad_i1", op("pad", [TOKEN, "tensor<f32>"], F4, PAD)),
    # dynamic_pad (I1) operand; (I3)-(I5) 1-d integer tensors; result: tensor
    ("dynamic_pad_i1", dynamic_pad(TOKEN)),
    ("dynamic_pad_i3", dynamic_pad(low="tensor<1xf32>")),
    ("dynamic_pad_i4", dynamic_pad(high=TOKEN)),
    ("dynamic_pad_i5", dynamic_pad(interior="tensor<1x1xi64>")),
    ("dynamic_pad_o1", dynamic_pad(result=TOKEN)),
    # gather (I1) operand: tensor
    ("gather_i1", gather(TOKEN)),
    # dynamic_gather (I1) operand; (I2) start_indices; (I3) slice_sizes: 1-d integer
    # tensor; result: tensor
    ("dynamic_gather_i1", dynamic_gather(TOKEN)),
    ("dynamic_gather_i2", dynamic_gather(indices=TOKEN)),
    ("dynamic_gather_i3", dynamic_gather(sizes="tensor<2xf32>")),
    ("dynamic_gather_i3", dynamic_gather(sizes=TOKEN)),
    ("dynamic_gather_o1", dynamic_gather(result=TOKEN)),
    # scatter (I1) inputs: tensors or per-tensor quantized tensors; (I3) updates
    ("scatter_i1", scatter(TOKEN)),
    ("scatter_i3", scatter(update=TOKEN)),
]


@pytest.mark.parametrize("name", sorted(VALID))
def test_valid_program_verifies(name):
    assert_verifies(VALID[name])


@pytest.mark.parametrize(
    ("label", "text"), NEGATIVE, ids=[f"{label}-{i}" for i, (label, _) in enumerate(NEGATIVE)]
)
def test_violation_carries_its_label(label, text):
    assert_label(text, label)
