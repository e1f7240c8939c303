"""random shape functions and verifiers: rng, rng_bit_generator (spec: see each)."""

from __future__ import annotations

from math import prod

import numpy as np

from ..parser.ir import FloatType, IntegerType, TensorType, Type
from .optable import REQUIRED, ShapeContext, shape_function
from .typeutil import type_text


def _elem(t: Type) -> Type:
    return t.element_type if isinstance(t, TensorType) else t


@shape_function(
    "stablehlo.rng",
    attrs={"rng_distribution": REQUIRED},
    traits={"side_effects"},  # hidden state
)
def rng(ctx: ShapeContext, a: Type, b: Type, shape: Type, *, rng_distribution: str) -> Type | None:
    """spec: rng (C1-C3).  The result's dimensions are the values of ``shape``: known
    when a ``stablehlo.constant`` defines it (``ctx.operand_values``), dynamic
    otherwise (the inferred type then only has the right rank)."""
    for i, t in enumerate((a, b)):  # rng_i1, rng_i2
        e = _elem(t)
        if (
            not isinstance(t, TensorType)
            or not isinstance(e, IntegerType | FloatType)
            or (t.shape is not None and len(t.shape) != 0)
        ):
            raise ctx.error(
                "rng_i2" if i else "rng_i1",
                f"operand #{i} must be 0D tensor of integer, boolean or "
                f"floating-point type, but got {type_text(t)}",
            )
    if _elem(a) != _elem(b):  # rng_c1
        raise ctx.error("rng_c1", "a and b must have the same element type")
    if rng_distribution not in ("UNIFORM", "NORMAL"):
        raise ctx.error("rng_i4", f"unknown rng_distribution {rng_distribution}")
    if rng_distribution == "NORMAL" and not isinstance(_elem(a), FloatType):  # rng_c2
        raise ctx.error("rng_c2", "NORMAL distribution requires a floating-point type")
    dims_shape = shape.shape if isinstance(shape, TensorType) else None
    if dims_shape is None or len(dims_shape) != 1 or dims_shape[0] is None:  # rng_i3
        raise ctx.error(
            "rng_i3",
            "operand #2 must be statically shaped 1-dimensional tensor, "
            f"but got {type_text(shape)}",
        )
    if not isinstance(_elem(shape), IntegerType):  # rng_i3
        raise ctx.error("rng_i3", "shape must be an integer tensor")
    rank = dims_shape[0]
    declared = ctx.result_types[0] if ctx.result_types else None
    if isinstance(declared, TensorType) and declared.shape is not None:
        if len(declared.shape) != rank:  # rng_c3 (checked first: rank may be huge)
            raise ctx.error(
                "rng_c3",
                f"result must have rank {rank} (the size of shape), got {type_text(declared)}",
            )
    value = ctx.operand_values[2] if len(ctx.operand_values) > 2 else None
    if value is None:
        return TensorType((None,) * rank, _elem(a))  # rng_c1, rng_c3
    dims = tuple(int(v) for v in np.asarray(value).reshape(-1))
    if len(dims) != rank or any(d < 0 for d in dims):  # rng_c3
        raise ctx.error("rng_c3", f"shape must hold {rank} non-negative sizes, got {list(dims)}")
    return TensorType(dims, _elem(a))  # rng_c1, rng_c3: shape(result) = shape


_STATE_SIZES = {"THREE_FRY": (2,), "PHILOX": (2, 3), "DEFAULT": (2, 3)}


def _int_or_float(e: Type) -> bool:
    return (isinstance(e, IntegerType) and not e.is_bool) or isinstance(e, FloatType)


@shape_function(
    "stablehlo.rng_bit_generator",
    attrs={"rng_algorithm": REQUIRED},
    multi_result=True,
    traits={"no_fold"},  # implementation-defined bits
)
def rng_bit_generator(ctx: ShapeContext, initial_state: Type, *, rng_algorithm: str) -> None:
    """spec: rng_bit_generator (C1, C2).  DEFAULT is PHILOX here (as XLA on CPU), so
    its state has 2 or 3 elements.

    The spec types ``initial_state`` as a 1-D ``ui64`` tensor; MLIR's verifier (and the
    producers the verifier suite reflects, e.g. print_stablehlo.mlir's
    ``tensor<1x2xf32>`` state) takes any integer or floating-point tensor whose
    shape matches ``output_state``'s.  We follow MLIR there, and check (C2) on the
    number of elements of the state (the spec's ``size``)."""
    if rng_algorithm not in _STATE_SIZES:
        raise ctx.error("rng_bit_generator_i1", f"unknown rng_algorithm {rng_algorithm}")
    st = initial_state
    e = _elem(st)
    if not isinstance(st, TensorType) or not _int_or_float(e):  # rng_bit_generator_i2
        raise ctx.error(
            "rng_bit_generator_i2",
            "initial_state must be a tensor of integer or "
            f"floating-point type, got {type_text(st)}",
        )
    static = [d for d in st.shape or () if d is not None]
    if st.shape is not None and len(static) == len(st.shape):
        size = prod(static)
        if size not in _STATE_SIZES[rng_algorithm]:  # rng_bit_generator_c2
            raise ctx.error(
                "rng_bit_generator_c2",
                f"{rng_algorithm} takes a state of "
                f"{' or '.join(map(str, _STATE_SIZES[rng_algorithm]))} elements, got {size}",
            )
    if len(ctx.result_types) == 2:
        out_state, output = ctx.result_types
        ok = (
            isinstance(out_state, TensorType)
            and _elem(out_state) == e
            and (
                st.shape is None
                or out_state.shape is None
                or (
                    len(out_state.shape) == len(st.shape)
                    and all(
                        x is None or y is None or x == y for x, y in zip(out_state.shape, st.shape)
                    )
                )
            )
        )
        if not ok:  # rng_bit_generator_c1
            raise ctx.error(
                "rng_bit_generator_c1",
                f"output state shape must be compatible with initial state shape. Got: "
                f"{type_text(st)} and {type_text(out_state)}",
            )
        oe = _elem(output)
        if not isinstance(output, TensorType) or not _int_or_float(oe):  # the output's type
            raise ctx.error(
                "rng_bit_generator_o2",
                "output must be a tensor of integer or "
                f"floating-point type, got {type_text(output)}",
            )
    return None
