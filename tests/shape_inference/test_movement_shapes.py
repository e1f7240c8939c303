"""Shape functions / verifiers of the data-movement ops: inferred types for the spec's
examples, and one failing program per constraint label that we enforce."""

from __future__ import annotations

import numpy as np
import pytest

from hlorun import shape_inference  # noqa: F401  (fills the op table)
from hlorun.parser.errors import VerificationError
from hlorun.parser.ir import (
    Block,
    FloatType,
    IntegerType,
    Operation,
    QuantizedType,
    Region,
    TensorType,
    TypeExtensions,
    Value,
)
from hlorun.shape_inference.optable import OP_TABLE, ShapeContext

I8, I32, I64 = IntegerType(8), IntegerType(32), IntegerType(64)
F32 = FloatType("f32")


def T(shape, elem=I32):
    return TensorType(tuple(shape), elem)


def infer(op, *operands, result_types=(), regions=(), operand_values=None, **attrs):
    name = f"stablehlo.{op}"
    row = OP_TABLE[name]
    full = {k: v for k, v in row.attrs.items() if k != "value_type"}
    full.update(attrs)
    ctx = ShapeContext(name, result_types=tuple(result_types), regions=tuple(regions))
    if operand_values is not None:  # what the verifier knows of constant operands
        ctx.operand_values = operand_values
    return row.shape(ctx, *operands, **full)


def region(arg_types, ret_indices):
    args = tuple(Value(f"%a{i}", t) for i, t in enumerate(arg_types))
    ret = Operation("stablehlo.return", operands=tuple(args[i] for i in ret_indices))
    return Region((Block(args, (ret,)),))


# ---- inferred types -------------------------------------------------------------------


def test_spec_example_types():
    assert infer("transpose", T((2, 3, 2)), permutation=(2, 1, 0)) == T((2, 3, 2))
    assert infer("transpose", T((1, 2, 3)), permutation=(2, 0, 1)) == T((3, 1, 2))
    assert infer(
        "slice", T((3, 4), I64), start_indices=(1, 2), limit_indices=(3, 4), strides=(1, 1)
    ) == T((2, 2), I64)
    assert infer("slice", T((7,)), start_indices=(1,), limit_indices=(7,), strides=(3,)) == T((2,))
    assert infer(
        "pad",
        T((2, 3)),
        T(()),
        edge_padding_low=(0, 1),
        edge_padding_high=(2, 1),
        interior_padding=(1, 2),
    ) == T((5, 9))
    assert infer(
        "pad",
        T((5, 4)),
        T(()),
        edge_padding_low=(1, -1),
        edge_padding_high=(1, -1),
        interior_padding=(0, 1),
    ) == T((7, 5))
    assert infer("concatenate", T((3, 2), I64), T((1, 2), I64), dimension=0) == T((4, 2), I64)
    assert infer("reverse", T((3, 2)), dimensions=(1,)) == T((3, 2))
    assert infer("broadcast", T((2, 3)), broadcast_sizes=(1,)) == T((1, 2, 3))
    assert infer("get_dimension_size", T((2, 3), I64), dimension=1) == T((), I32)
    assert infer("dynamic_slice", T((4, 4)), T((), I64), T((), I64), slice_sizes=(2, 2)) == T(
        (2, 2)
    )
    assert infer("dynamic_update_slice", T((4, 4)), T((2, 2)), T((), I64), T((), I64)) == T((4, 4))


def test_dynamic_dimensions():
    assert infer("concatenate", T((None, 2)), T((3, None)), dimension=0) == T((None, 2))
    assert infer("concatenate", T((2, None)), T((3, 4)), dimension=0) == T((5, 4))
    assert infer(
        "pad",
        T((None, 3)),
        T(()),
        edge_padding_low=(1, 1),
        edge_padding_high=(1, 1),
        interior_padding=(0, 0),
    ) == T((None, 5))
    assert infer("slice", T((None,)), start_indices=(1,), limit_indices=(5,), strides=(2,)) == T(
        (2,)
    )
    assert infer("transpose", T((None, 3)), permutation=(1, 0)) == T((3, None))


GATHER_DN = dict(
    offset_dims=(3, 4),
    collapsed_slice_dims=(1,),
    operand_batching_dims=(0,),
    start_indices_batching_dims=(1,),
    start_index_map=(2, 1),
    index_vector_dim=3,
    slice_sizes=(1, 1, 2, 2),
    dimension_numbers=None,
)
G_OPERAND, G_INDICES = T((2, 3, 4, 2)), T((2, 2, 3, 2), I64)


def test_gather_spec_example_type():
    assert infer("gather", G_OPERAND, G_INDICES, **GATHER_DN) == T((2, 2, 3, 2, 2))
    # dynamic batch dims flow into the result
    assert infer("gather", G_OPERAND, T((None, 2, 3, 2), I64), **GATHER_DN) == T((None, 2, 3, 2, 2))


def test_gather_implicit_index_vector_dim():
    t = infer(
        "gather",
        T((5, 4)),
        T((7,), I64),
        offset_dims=(1,),
        collapsed_slice_dims=(0,),
        start_index_map=(0,),
        index_vector_dim=1,
        slice_sizes=(1, 4),
        dimension_numbers=None,
    )
    assert t == T((7, 4))


SCATTER_DN = dict(
    update_window_dims=(3, 4),
    inserted_window_dims=(1,),
    input_batching_dims=(0,),
    scatter_indices_batching_dims=(1,),
    scatter_dims_to_operand_dims=(2, 1),
    index_vector_dim=3,
    scatter_dimension_numbers=None,
)
S_INPUT, S_INDICES, S_UPDATE = T((2, 3, 4, 2), I64), T((2, 2, 3, 2), I64), T((2, 2, 3, 2, 2), I64)
ADD_I64 = region([T((), I64)] * 2, [1])


def test_scatter_spec_example_type():
    assert infer("scatter", S_INPUT, S_INDICES, S_UPDATE, regions=(ADD_I64,), **SCATTER_DN) == (
        S_INPUT,
    )


def test_scatter_result_takes_the_promoted_region_type():
    r = region([T((), I32)] * 2, [1])
    got = infer(
        "scatter",
        T((2, 3, 4, 2), I8),
        S_INDICES,
        T((2, 2, 3, 2, 2), I8),
        regions=(r,),
        **SCATTER_DN,
    )
    assert got == (T((2, 3, 4, 2), I32),)


def test_scatter_two_inputs():
    r = region([T((), I64), T((), F32)] * 2, [2, 3])
    got = infer(
        "scatter",
        S_INPUT,
        T((2, 3, 4, 2), F32),
        S_INDICES,
        S_UPDATE,
        T((2, 2, 3, 2, 2), F32),
        regions=(r,),
        **SCATTER_DN,
    )
    assert got == (S_INPUT, T((2, 3, 4, 2), F32))


def test_verifiers_accept_valid_results():
    assert infer("reshape", T((2, 3)), result_types=[T((3, 2))]) is None
    # a dynamic result dimension must be the one bounded one (StablehloOps.td: reshape's
    # result is HLO_StaticShapeTensorPerAxisQuantizedTensorOrBoundedTensor)
    bounded = TensorType((3, None), I32, TypeExtensions((None, 4)))
    assert infer("reshape", T((None, 3)), result_types=[bounded]) is None
    with pytest.raises(VerificationError, match="reshape_o1"):
        infer("reshape", T((None, 3)), result_types=[T((3, None))])
    assert (
        infer(
            "broadcast_in_dim", T((1, 3)), result_types=[T((2, 3, 2))], broadcast_dimensions=(2, 1)
        )
        is None
    )
    assert infer("iota", result_types=[T((4, 5))], iota_dimension=1) is None
    assert (
        infer("dynamic_iota", T((2,), I64), result_types=[T((None, 5))], iota_dimension=0) is None
    )
    assert infer("dynamic_reshape", T((2, 3)), T((2,), I64), result_types=[T((3, 2))]) is None
    assert (
        infer(
            "dynamic_broadcast_in_dim",
            T((1, 3), I64),
            T((3,), I64),
            result_types=[T((2, 3, 2), I64)],
            broadcast_dimensions=(2, 1),
            known_expanding_dimensions=(0,),
            known_nonexpanding_dimensions=(1,),
        )
        is None
    )
    assert (
        infer(
            "dynamic_pad",
            T((2, 3)),
            T(()),
            T((2,), I64),
            T((2,), I64),
            T((2,), I64),
            result_types=[T((None, None))],
        )
        is None
    )
    assert (
        infer(
            "dynamic_gather",
            T((3, 4, 2)),
            T((2, 3, 2), I64),
            T((3,), I64),
            result_types=[T((2, 3, 2, 2))],
            offset_dims=(2, 3),
            collapsed_slice_dims=(0,),
            start_index_map=(1, 0),
            index_vector_dim=2,
            dimension_numbers=None,
        )
        is None
    )
    assert (
        infer(
            "real_dynamic_slice",
            T((None,)),
            T((1,), I64),
            T((1,), I64),
            T((1,), I64),
            result_types=[T((None,))],
        )
        is None
    )


def test_constant_type_is_the_value_type():
    row = OP_TABLE["stablehlo.constant"]
    q = T((2,), QuantizedType(I8, F32, (2.0,), (15,)))
    t = row.shape(ShapeContext("stablehlo.constant"), value=np.zeros(2, np.int8), value_type=q)
    assert t == q


# ---- one failing case per constraint label --------------------------------------------

PER_AXIS = QuantizedType(I8, F32, (1.0, 2.0), (0, 0), quantized_dimension=0)


def gather_case(**over):
    attrs = dict(GATHER_DN)
    operand, indices = over.pop("operand", G_OPERAND), over.pop("indices", G_INDICES)
    attrs.update(over)
    return ("gather", (operand, indices), attrs, (), ())


def scatter_case(operands=None, reg=ADD_I64, **over):
    attrs = dict(SCATTER_DN)
    attrs.update(over)
    return ("scatter", operands or (S_INPUT, S_INDICES, S_UPDATE), attrs, (), (reg,))


DG_RESULT, DG_SIZES = T((2, 3, 2, 2)), T((3,), I64)


def dgather_case(result=DG_RESULT, sizes=DG_SIZES, **over):
    attrs = dict(
        offset_dims=(2, 3),
        collapsed_slice_dims=(0,),
        start_index_map=(1, 0),
        index_vector_dim=2,
        dimension_numbers=None,
    )
    attrs.update(over)
    return ("dynamic_gather", (T((3, 4, 2)), T((2, 3, 2), I64), sizes), attrs, (result,), ())


NEGATIVE = {
    "iota_c1": ("iota", (), dict(iota_dimension=2), (T((4, 5)),), ()),
    "dynamic_iota_c1": ("dynamic_iota", (T((2,), I64),), dict(iota_dimension=2), (), ()),
    "dynamic_iota_c2": ("dynamic_iota", (T((2,), I64),), dict(iota_dimension=0), (T((4,)),), ()),
    "broadcast_in_dim_c1": (
        "broadcast_in_dim",
        (T((1, 3)),),
        dict(broadcast_dimensions=(0, 1)),
        (T((2, 3), F32),),
        (),
    ),
    "broadcast_in_dim_c2": (
        "broadcast_in_dim",
        (T((1, 3)),),
        dict(broadcast_dimensions=(0,)),
        (T((2, 3)),),
        (),
    ),
    "broadcast_in_dim_c3": (
        "broadcast_in_dim",
        (T((1, 3)),),
        dict(broadcast_dimensions=(0, 3)),
        (T((2, 3)),),
        (),
    ),
    "broadcast_in_dim_c4": (
        "broadcast_in_dim",
        (T((3, 3)),),
        dict(broadcast_dimensions=(1, 1)),
        (T((3, 3)),),
        (),
    ),
    "broadcast_in_dim_c5": (
        "broadcast_in_dim",
        (T((2, 3)),),
        dict(broadcast_dimensions=(0, 1)),
        (T((2, 4)),),
        (),
    ),
    "broadcast_in_dim_c6": (
        "broadcast_in_dim",
        (T((2,), PER_AXIS),),
        dict(broadcast_dimensions=(1,)),
        (T((3, 2), PER_AXIS),),
        (),
    ),
    "dynamic_broadcast_in_dim_c5": (
        "dynamic_broadcast_in_dim",
        (T((2,)), T((1,), I64)),
        dict(broadcast_dimensions=(0,)),
        (T((3,)),),
        (),
    ),
    "dynamic_broadcast_in_dim_c7": (
        "dynamic_broadcast_in_dim",
        (T((1,)), T((2,), I64)),
        dict(broadcast_dimensions=(0,)),
        (T((3,)),),
        (),
    ),
    "dynamic_broadcast_in_dim_c8": (
        "dynamic_broadcast_in_dim",
        (T((1,)), T((1,), I64)),
        dict(
            broadcast_dimensions=(0,),
            known_expanding_dimensions=(0,),
            known_nonexpanding_dimensions=(0,),
        ),
        (T((3,)),),
        (),
    ),
    "dynamic_broadcast_in_dim_c9": (
        "dynamic_broadcast_in_dim",
        (T((1,)), T((1,), I64)),
        dict(broadcast_dimensions=(0,), known_expanding_dimensions=(1,)),
        (T((3,)),),
        (),
    ),
    "dynamic_broadcast_in_dim_c10": (
        "dynamic_broadcast_in_dim",
        (T((1,)), T((1,), I64)),
        dict(broadcast_dimensions=(0,), known_nonexpanding_dimensions=(-1,)),
        (T((3,)),),
        (),
    ),
    "dynamic_broadcast_in_dim_c1": (
        "dynamic_broadcast_in_dim",
        (T((1,)), T((1,), I64)),
        dict(broadcast_dimensions=(0,)),
        (T((3,), F32),),
        (),
    ),
    "dynamic_broadcast_in_dim_c2": (
        "dynamic_broadcast_in_dim",
        (T((1, 3)), T((2,), I64)),
        dict(broadcast_dimensions=(0,)),
        (T((2, 3)),),
        (),
    ),
    "dynamic_broadcast_in_dim_c3": (
        "dynamic_broadcast_in_dim",
        (T((1, 3)), T((2,), I64)),
        dict(broadcast_dimensions=(0, 2)),
        (T((2, 3)),),
        (),
    ),
    "dynamic_broadcast_in_dim_c4": (
        "dynamic_broadcast_in_dim",
        (T((3, 3)), T((2,), I64)),
        dict(broadcast_dimensions=(1, 1)),
        (T((3, 3)),),
        (),
    ),
    # per-axis on operand dimension 0, broadcast to result dimension 1: the result's
    # quantization_dimension must be 1
    "dynamic_broadcast_in_dim_c6": (
        "dynamic_broadcast_in_dim",
        (T((2,), PER_AXIS), T((2,), I64)),
        dict(broadcast_dimensions=(1,)),
        (T((3, 2), PER_AXIS),),
        (),
    ),
    "dynamic_reshape_c1": ("dynamic_reshape", (T((2, 3)), T((1,), I64)), {}, (T((6,), F32),), ()),
    "dynamic_reshape_c3": (
        "dynamic_reshape",
        (T((2, 3), PER_AXIS), T((1,), I64)),
        {},
        (T((6,), QuantizedType(I8, F32, (1.0, 2.0), (0, 0), quantized_dimension=0)),),
        (),
    ),
    "reshape_c1": ("reshape", (T((2, 3)),), {}, (T((6,), F32),), ()),
    "reshape_c2": ("reshape", (T((2, 3)),), {}, (T((7,)),), ()),
    "reshape_c3": (
        "reshape",
        (T((2, 3), PER_AXIS),),
        {},
        (T((6,), QuantizedType(I8, F32, (1.0, 2.0), (0, 0), quantized_dimension=0)),),
        (),
    ),
    "dynamic_reshape_c2": ("dynamic_reshape", (T((2, 3)), T((1,), I64)), {}, (T((5,)),), ()),
    "dynamic_reshape_c4": ("dynamic_reshape", (T((2, 3)), T((2,), I64)), {}, (T((6,)),), ()),
    "transpose_c2": ("transpose", (T((2, 3)),), dict(permutation=(0, 2)), (), ()),
    "transpose_c4": (
        "transpose",
        (T((2, 3), PER_AXIS),),
        dict(permutation=(1, 0)),
        (T((3, 2), PER_AXIS),),
        (),
    ),
    "broadcast_c1": ("broadcast", (T((2,)),), dict(broadcast_sizes=(-1,)), (), ()),
    "reverse_c2": ("reverse", (T((2, 3)),), dict(dimensions=(1, 1)), (), ()),
    "reverse_c3": ("reverse", (T((2, 3)),), dict(dimensions=(2,)), (), ()),
    "get_dimension_size_c1": ("get_dimension_size", (T((2, 3)),), dict(dimension=2), (), ()),
    "slice_c2": (
        "slice",
        (T((3, 4)),),
        dict(start_indices=(0,), limit_indices=(1, 1), strides=(1, 1)),
        (),
        (),
    ),
    "slice_c3": (
        "slice",
        (T((3, 4)),),
        dict(start_indices=(0, 0), limit_indices=(1, 5), strides=(1, 1)),
        (),
        (),
    ),
    "slice_c4": (
        "slice",
        (T((3, 4)),),
        dict(start_indices=(0, 0), limit_indices=(1, 1), strides=(0, 1)),
        (),
        (),
    ),
    "dynamic_slice_c2": (
        "dynamic_slice",
        (T((4, 4)), T((), I64)),
        dict(slice_sizes=(2, 2)),
        (),
        (),
    ),
    "dynamic_slice_c3": (
        "dynamic_slice",
        (T((4, 4)), T((), I64), T((), I32)),
        dict(slice_sizes=(2, 2)),
        (),
        (),
    ),
    "dynamic_slice_c4": (
        "dynamic_slice",
        (T((4, 4)), T((), I64), T((), I64)),
        dict(slice_sizes=(2, 5)),
        (),
        (),
    ),
    "dynamic_update_slice_c2": (
        "dynamic_update_slice",
        (T((4, 4)), T((2, 2), F32), T((), I64), T((), I64)),
        {},
        (),
        (),
    ),
    "dynamic_update_slice_c3": (
        "dynamic_update_slice",
        (T((4, 4)), T((2,)), T((), I64), T((), I64)),
        {},
        (),
        (),
    ),
    "dynamic_update_slice_c4": (
        "dynamic_update_slice",
        (T((4, 4)), T((2, 2)), T((), I64)),
        {},
        (),
        (),
    ),
    "dynamic_update_slice_c5": (
        "dynamic_update_slice",
        (T((4, 4)), T((2, 2)), T((), I64), T((), I32)),
        {},
        (),
        (),
    ),
    "dynamic_update_slice_c6": (
        "dynamic_update_slice",
        (T((4, 4)), T((2, 5)), T((), I64), T((), I64)),
        {},
        (),
        (),
    ),
    "real_dynamic_slice_c1": (
        "real_dynamic_slice",
        (T((4,)), T((2,), I64), T((1,), I64), T((1,), I64)),
        {},
        (T((None,)),),
        (),
    ),
    "concatenate_c1": ("concatenate", (T((3, 2)), T((1, 2), F32)), dict(dimension=0), (), ()),
    "concatenate_c2": ("concatenate", (T((3, 2)), T((1, 3))), dict(dimension=0), (), ()),
    "concatenate_c3": ("concatenate", (), dict(dimension=0), (), ()),
    "concatenate_c4": ("concatenate", (T((3, 2)),), dict(dimension=2), (), ()),
    "pad_c1": (
        "pad",
        (T((2, 3)), T((), F32)),
        dict(edge_padding_low=(0, 0), edge_padding_high=(0, 0), interior_padding=(0, 0)),
        (),
        (),
    ),
    "pad_c2": (
        "pad",
        (T((2, 3)), T(())),
        dict(edge_padding_low=(0,), edge_padding_high=(0, 0), interior_padding=(0, 0)),
        (),
        (),
    ),
    "pad_c3": (
        "pad",
        (T((2, 3)), T(())),
        dict(edge_padding_low=(0, 0), edge_padding_high=(0, 0), interior_padding=(0, -1)),
        (),
        (),
    ),
    "pad_c4": (
        "pad",
        (T((2, 3)), T(())),
        dict(edge_padding_low=(0, -2), edge_padding_high=(0, -2), interior_padding=(0, 0)),
        (),
        (),
    ),
    "dynamic_pad_c1": (
        "dynamic_pad",
        (T((2, 3)), T((), F32), T((2,), I64), T((2,), I64), T((2,), I64)),
        {},
        (T((None, None)),),
        (),
    ),
    "dynamic_pad_c2": (
        "dynamic_pad",
        (T((2, 3)), T(()), T((3,), I64), T((2,), I64), T((2,), I64)),
        {},
        (T((None, None)),),
        (),
    ),
    "dynamic_pad_c4": (
        "dynamic_pad",
        (T((2, 3)), T(()), T((2,), I64), T((2,), I64), T((2,), I64)),
        {},
        (T((None,)),),
        (),
    ),
    "gather_i2": gather_case(indices=T((2, 2, 3, 2), F32)),
    "gather_c1": gather_case(offset_dims=(3,)),
    "gather_c2": gather_case(index_vector_dim=5),
    "gather_c3": gather_case(start_index_map=(2,)),
    "gather_c4": gather_case(offset_dims=(4, 3)),
    "gather_c5": gather_case(offset_dims=(3, 5)),
    "gather_c6": gather_case(offset_dims=(3, 4), collapsed_slice_dims=(0,)),
    "gather_c7": gather_case(
        offset_dims=(3,), collapsed_slice_dims=(3, 1), slice_sizes=(1, 1, 2, 1)
    ),
    "gather_c8": gather_case(collapsed_slice_dims=(7,)),
    "gather_c9": gather_case(slice_sizes=(1, 2, 2, 2)),
    "gather_c10": gather_case(
        offset_dims=(3, 4),
        collapsed_slice_dims=(),
        operand_batching_dims=(1, 0),
        start_indices_batching_dims=(1, 0),
    ),
    "gather_c11": gather_case(operand_batching_dims=(9,)),
    "gather_c12": gather_case(slice_sizes=(2, 1, 2, 2)),
    "gather_c13": gather_case(start_indices_batching_dims=(1, 1)),
    "gather_c14": gather_case(start_indices_batching_dims=(7,)),
    "gather_c15": gather_case(start_indices_batching_dims=(3,)),
    "gather_c16": gather_case(start_indices_batching_dims=(1, 0)),
    "gather_c17": gather_case(start_indices_batching_dims=(2,)),
    "gather_c18": gather_case(start_index_map=(2, 0)),
    "gather_c19": gather_case(start_index_map=(2, 9)),
    "gather_c20": gather_case(slice_sizes=(1, 1, 2)),
    "gather_c21": gather_case(slice_sizes=(1, 1, 2, 3)),
    "dynamic_gather_c1": dgather_case(offset_dims=(2,)),
    "dynamic_gather_c2": dgather_case(index_vector_dim=4),
    "dynamic_gather_c3": dgather_case(start_index_map=(1,)),
    "dynamic_gather_c4": dgather_case(offset_dims=(3, 2)),
    "dynamic_gather_c5": dgather_case(offset_dims=(2, 4)),
    "dynamic_gather_c6": dgather_case(
        offset_dims=(2,), collapsed_slice_dims=(1, 0), result=T((2, 3, 2))
    ),
    "dynamic_gather_c7": dgather_case(collapsed_slice_dims=(5,)),
    "dynamic_gather_c9": dgather_case(start_index_map=(1, 1)),
    "dynamic_gather_c10": dgather_case(start_index_map=(1, 3)),
    "dynamic_gather_c11": dgather_case(sizes=T((2,), I64)),
    "dynamic_gather_c13": dgather_case(result=T((2, 4, 2, 2))),
    "dynamic_gather_c14": dgather_case(result=T((2, 3, 2, 2), F32)),
    "scatter_i2": scatter_case((S_INPUT, T((2, 2, 3, 2), F32), S_UPDATE)),
    "scatter_c1": scatter_case(
        (S_INPUT, T((2, 3, 4, 3), I64), S_INDICES, S_UPDATE, S_UPDATE),
        reg=region([T((), I64)] * 4, [2, 3]),
    ),
    "scatter_c2": scatter_case(update_window_dims=(3,)),
    "scatter_c3": scatter_case(
        (S_INPUT, S_INPUT, S_INDICES, S_UPDATE, T((2, 2, 3, 2, 1), I64)),
        reg=region([T((), I64)] * 4, [2, 3]),
    ),
    "scatter_c4": scatter_case((S_INPUT, S_INDICES, T((2, 2, 4, 2, 2), I64))),
    "scatter_c5": scatter_case((S_INPUT, S_INDICES)),
    "scatter_c6": scatter_case((S_INPUT, S_INDICES, T((2, 2, 3, 2, 2)))),
    "scatter_c7": scatter_case(update_window_dims=(4, 3)),
    "scatter_c8": scatter_case(update_window_dims=(3, 5)),
    "scatter_c9": scatter_case(inserted_window_dims=(0,)),
    "scatter_c10": scatter_case(update_window_dims=(3,), inserted_window_dims=(3, 1)),
    "scatter_c11": scatter_case(inserted_window_dims=(7,)),
    "scatter_c12": scatter_case(
        inserted_window_dims=(), input_batching_dims=(1, 0), scatter_indices_batching_dims=(1, 0)
    ),
    "scatter_c13": scatter_case(input_batching_dims=(7,)),
    "scatter_c14": scatter_case(scatter_indices_batching_dims=(1, 1)),
    "scatter_c15": scatter_case(scatter_indices_batching_dims=(9,)),
    "scatter_c16": scatter_case(scatter_indices_batching_dims=(3,)),
    "scatter_c17": scatter_case(scatter_indices_batching_dims=(1, 0)),
    "scatter_c18": scatter_case(scatter_indices_batching_dims=(2,)),
    "scatter_c19": scatter_case(scatter_dims_to_operand_dims=(2,)),
    "scatter_c20": scatter_case(scatter_dims_to_operand_dims=(2, 0)),
    "scatter_c21": scatter_case(scatter_dims_to_operand_dims=(2, 9)),
    "scatter_c22": scatter_case(index_vector_dim=5),
    "scatter_c23": scatter_case(reg=region([T((), I64)] * 3, [2])),
}


@pytest.mark.parametrize("label", sorted(NEGATIVE))
def test_constraint_violation_is_reported_with_its_label(label):
    op, operands, attrs, results, regions = NEGATIVE[label]
    with pytest.raises(VerificationError) as info:
        infer(op, *operands, result_types=results, regions=regions, **attrs)
    assert info.value.label == label, str(info.value)


@pytest.mark.parametrize(
    "reg",
    [
        region([T((), I64)] * 2, [0, 1]),  # returns two values for one input
        region([T((), I64), T((), I32)], [1]),  # argument types differ
        region([T((), I8)] * 2, [1]),  # i64 is not promotable to i8
        region([T((2,), I64)] * 2, [1]),  # not 0-d
    ],
)
def test_scatter_region_signature_c23(reg):
    with pytest.raises(VerificationError) as info:
        infer("scatter", S_INPUT, S_INDICES, S_UPDATE, regions=(reg,), **SCATTER_DN)
    assert info.value.label == "scatter_c23"


# ---- shape operands that are constants (ctx.operand_values) ---------------------------

A = np.array
CONSTANT_OPERAND_CASES = {
    "dynamic_broadcast_in_dim_c5": (
        "dynamic_broadcast_in_dim",
        (T((1, 3)), T((3,), I32)),
        dict(broadcast_dimensions=(1, 2)),
        T((None, None, None)),
        (None, A([2, 1, 1])),
    ),
    "dynamic_broadcast_in_dim_c7": (
        "dynamic_broadcast_in_dim",
        (T((4,), F32), T((2,), I64)),
        dict(broadcast_dimensions=(1,)),
        T((3, 4), F32),
        (None, A([-1, 4])),
    ),
    "dynamic_reshape_c2": (
        "dynamic_reshape",
        (T((2, 5)), T((3,), I32)),
        {},
        T((None, None, None)),
        (None, A([2, 3, 4])),
    ),
    "dynamic_reshape_c4": (
        "dynamic_reshape",
        (T((4,)), T((2,), I64)),
        {},
        T((1, 4)),
        (None, A([2, 2])),
    ),
    "dynamic_iota_c2": (
        "dynamic_iota",
        (T((1,), I64),),
        dict(iota_dimension=0),
        T((4,), F32),
        (A([-1]),),
    ),
    "dynamic_pad_c3": (
        "dynamic_pad",
        (T((4,)), T(()), T((1,)), T((1,)), T((1,))),
        {},
        T((None,)),
        (None, None, A([0]), A([0]), A([-1])),
    ),
    "dynamic_pad_c4": (
        "dynamic_pad",
        (T((4,)), T(()), T((1,)), T((1,)), T((1,))),
        {},
        T((4,)),
        (None, None, A([1]), A([1]), A([1])),
    ),
    "dynamic_gather_c8": (
        "dynamic_gather",
        (T((3, 4, 2)), T((2, 3, 2), I64), T((3,), I64)),
        dict(
            offset_dims=(2, 3),
            collapsed_slice_dims=(0,),
            start_index_map=(1, 0),
            index_vector_dim=2,
        ),
        T((2, 3, 2, 2)),
        (None, None, A([2, 2, 2])),
    ),
    "dynamic_gather_c12": (
        "dynamic_gather",
        (T((3, 4, 2)), T((2, 3, 2), I64), T((3,), I64)),
        dict(
            offset_dims=(2, 3),
            collapsed_slice_dims=(0,),
            start_index_map=(1, 0),
            index_vector_dim=2,
        ),
        T((2, 3, 2, 2)),
        (None, None, A([1, 2, 3])),
    ),
}


@pytest.mark.parametrize("label", sorted(CONSTANT_OPERAND_CASES))
def test_constant_shape_operands_are_checked(label):
    op, operands, attrs, result, values = CONSTANT_OPERAND_CASES[label]
    attrs = {"dimension_numbers": None, **attrs} if op == "dynamic_gather" else attrs
    # without the values the op verifies ...
    infer(op, *operands, result_types=[result], **attrs)
    # ... with them, the mismatch is found
    with pytest.raises(VerificationError) as info:
        infer(op, *operands, result_types=[result], operand_values=values, **attrs)
    assert info.value.label == label, str(info.value)


@pytest.mark.parametrize(
    "case",
    [
        (
            "broadcast_in_dim_o1",
            "broadcast_in_dim",
            (T((3,)),),
            dict(broadcast_dimensions=(1,)),
            T((None, 3)),
        ),
        (
            "dynamic_broadcast_in_dim_i2",
            "dynamic_broadcast_in_dim",
            (T((3,)), T((None,), I64)),
            dict(broadcast_dimensions=(0,)),
            T((3,)),
        ),
        ("dynamic_reshape_i2", "dynamic_reshape", (T((None,)), T((None,), I64)), {}, T((1, 4))),
        ("dynamic_iota_i1", "dynamic_iota", (T((None,), I64),), dict(iota_dimension=0), T((4,))),
    ],
)
def test_static_shape_requirements(case):
    label, op, operands, attrs, result = case
    with pytest.raises(VerificationError) as info:
        infer(op, *operands, result_types=[result], **attrs)
    assert info.value.label == label
