"""random shape functions and verifiers: rng, rng_bit_generator (spec: see each)."""

from __future__ import annotations

from parser.ir import ComplexType, FloatType, IntegerType, TensorType, Type

from .optable import REQUIRED, ShapeContext, shape_function


def _elem(t: Type) -> Type:
    return t.element_type if isinstance(t, TensorType) else t


def _ranked(t: Type) -> bool:
    return isinstance(t, TensorType) and t.shape is not None


@shape_function("stablehlo.rng", attrs={"rng_distribution": REQUIRED})
def rng(ctx: ShapeContext, a: Type, b: Type, shape: Type, *, rng_distribution: str) -> Type | None:
    """spec: rng (C1-C3).  The result's dimensions come from the values of ``shape``,
    unknown here: the inferred type has the right rank and dynamic dimensions."""
    for i, t in enumerate((a, b)):
        e = _elem(t)
        if not isinstance(e, IntegerType | FloatType) or (_ranked(t) and len(t.shape) != 0):
            raise ctx.error("rng_c1", f"operand #{i} must be 0D tensor of integer, boolean or "
                            f"floating-point type, but got {t}")
    if _elem(a) != _elem(b):  # rng_c1
        raise ctx.error("rng_c1", "a and b must have the same element type")
    if rng_distribution not in ("UNIFORM", "NORMAL"):
        raise ctx.error("rng_c2", f"unknown rng_distribution {rng_distribution}")
    if rng_distribution == "NORMAL" and not isinstance(_elem(a), FloatType):  # rng_c2
        raise ctx.error("rng_c2", "NORMAL distribution requires a floating-point type")
    if not _ranked(shape) or len(shape.shape) != 1 or shape.shape[0] is None:  # rng_c3
        raise ctx.error("rng_c3", f"operand #2 must be statically shaped 1-dimensional tensor, but got {shape}")
    if not isinstance(_elem(shape), IntegerType):  # rng_c3
        raise ctx.error("rng_c3", "shape must be an integer tensor")
    return TensorType((None,) * shape.shape[0], _elem(a))  # rng_c1, rng_c3


_STATE_SIZES = {"THREE_FRY": (2,), "PHILOX": (2, 3), "DEFAULT": (2, 3)}


@shape_function(
    "stablehlo.rng_bit_generator", attrs={"rng_algorithm": REQUIRED}, multi_result=True
)
def rng_bit_generator(ctx: ShapeContext, initial_state: Type, *, rng_algorithm: str) -> None:
    """spec: rng_bit_generator (C1, C2).  DEFAULT is PHILOX here (as XLA on CPU), so
    its state has 2 or 3 elements."""
    if rng_algorithm not in _STATE_SIZES:
        raise ctx.error("rng_bit_generator_c2", f"unknown rng_algorithm {rng_algorithm}")
    st = initial_state
    e = _elem(st)
    if not (isinstance(e, IntegerType) and e.width == 64 and e.is_unsigned) or (
        _ranked(st) and len(st.shape) != 1
    ):
        raise ctx.error("rng_bit_generator_c1", f"initial_state must be a 1-D tensor of ui64, got {st}")
    if _ranked(st) and st.shape[0] is not None and st.shape[0] not in _STATE_SIZES[rng_algorithm]:
        raise ctx.error(  # rng_bit_generator_c2
            "rng_bit_generator_c2",
            f"{rng_algorithm} takes a state of {' or '.join(map(str, _STATE_SIZES[rng_algorithm]))} "
            f"elements, got {st.shape[0]}",
        )
    if len(ctx.result_types) == 2:
        out_state, output = ctx.result_types
        ok = isinstance(out_state, TensorType) and _elem(out_state) == e and (
            not _ranked(st) or not _ranked(out_state) or (
                len(out_state.shape) == len(st.shape)
                and all(x is None or y is None or x == y for x, y in zip(out_state.shape, st.shape))
            )
        )
        if not ok:  # rng_bit_generator_c1
            raise ctx.error(
                "rng_bit_generator_c1",
                f"output state shape must be compatible with initial state shape. Got: "
                f"{st} and {out_state}",
            )
        oe = _elem(output)
        if isinstance(oe, ComplexType) or not isinstance(oe, IntegerType | FloatType):
            raise ctx.error("rng_bit_generator_c1", f"output must be integer or floating-point, got {oe}")
    return None
