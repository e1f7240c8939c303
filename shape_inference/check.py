"""The ``check`` and ``interpreter`` test dialects (docs/test-dialects.md)."""

from __future__ import annotations

from ..parser.ir import TensorType, Type
from .optable import REQUIRED, ShapeContext, define_op
from .typeutil import type_text
from .verifier import compatible


def _pair(ctx: ShapeContext, actual: Type, expected: Type, **_):
    """expect_eq / expect_almost_eq / expect_close: both operands of one type."""
    if not compatible(actual, expected):
        raise ctx.error(
            "check_same_type",
            f"operands have different types {type_text(actual)} and {type_text(expected)}",
        )
    return ()


def _const(ctx: ShapeContext, actual: Type, *, value, **_):
    """expect_*_const: the constant has the operand's shape."""
    if isinstance(actual, TensorType) and actual.shape is not None and value is not None:
        if tuple(value.shape) != tuple(d for d in actual.shape):
            raise ctx.error(
                "check_same_shape",
                f"constant of shape {list(value.shape)} for operand type {type_text(actual)}",
            )
    return ()


def _probe(ctx: ShapeContext, operand: Type, **_):
    return operand


def _none(ctx: ShapeContext, *operands: Type, **_):
    return ()


# Checks and probes report or write outside their operands: never folded or dropped.
_EFFECTS = {"side_effects"}

define_op("check.expect_eq", _pair, traits=_EFFECTS, results=0)
define_op("check.expect_eq_const", _const, attrs={"value": REQUIRED}, traits=_EFFECTS, results=0)
define_op("check.expect_almost_eq", _pair, attrs={"tolerance": 1e-4}, traits=_EFFECTS, results=0)
define_op(
    "check.expect_almost_eq_const",
    _const,
    attrs={"value": REQUIRED, "tolerance": 1e-4},
    traits=_EFFECTS,
    results=0,
)
define_op(
    "check.expect_close",
    _pair,
    attrs={"max_ulp_difference": 1, "min_ulp_difference": 0},
    traits=_EFFECTS,
    results=0,
)
define_op(
    "check.expect_serialized_eq",
    _none,
    attrs={"probe_id": REQUIRED, "iter": 0, "iteration": None},
    traits=_EFFECTS,
    results=0,
)
define_op("interpreter.probe", _probe, attrs={"probe_id": REQUIRED}, traits=_EFFECTS)
define_op(
    "interpreter.print",
    _none,
    decode=lambda op: {"operand_name": op.operands[0].name if op.operands else ""},
    traits=_EFFECTS,
    results=0,
)
