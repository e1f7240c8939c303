"""mhlo ops that producers leave in their StableHLO, and their custom-call form.

Source of truth: the MHLO dialect (openxla/xla xla/mlir_hlo/mhlo/IR/hlo_ops.td) and the
HLO instruction each op stands for (xla/hlo docs, "operation semantics").

* TensorFlow's ``tf.function(jit_compile=True)`` StableHLO keeps ops as mhlo ops:
  ``mhlo.copy`` (inside the loops of Keras LSTM / GRU layers), ``mhlo.erf``.
* XLA's HLO-to-StableHLO legalization (torch_xla) writes an op StableHLO lacks as
  ``stablehlo.custom_call @mhlo.<op>(...) {mhlo.attributes = {...}, mhlo.version = 1}``,
  the op's own attributes inside ``mhlo.attributes``.  Such a call is the op: its
  verifier and kernel are the op's row (``mhlo_target_row``), its attributes decoded
  from ``mhlo.attributes`` (``call_attributes``).

Errors carry labels ``mhlo.<op>.<what>`` (hlo_ops.td has no numbered constraints).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..parser.ir import FloatType, TensorType, TupleType, Type
from .optable import OP_TABLE, REQUIRED, OpDef, ShapeContext, define_op
from .typeutil import require_tensor, type_text

MHLO_PREFIX = "mhlo."


def mhlo_target_row(call_target_name: str) -> OpDef | None:
    """The row of the mhlo op a ``stablehlo.custom_call @mhlo.<op>`` stands for, or None
    (not an ``mhlo.`` target, or an op hlorun does not declare)."""
    if not call_target_name.startswith(MHLO_PREFIX):
        return None
    row = OP_TABLE.get(call_target_name)
    return row if row is not None and row.shape is not None else None


def call_attributes(
    ctx: ShapeContext, row: OpDef, attributes: Mapping[str, Any] | None
) -> dict[str, Any]:
    """The op's keyword arguments from a custom call's decoded ``mhlo.attributes``: the
    attributes the row declares, defaults filled in; a missing required one is an error
    (``mhlo.<op>.attributes``)."""
    given = dict(attributes or {})
    out: dict[str, Any] = {}
    for name, default in row.attrs.items():
        if name in given:
            out[name] = given[name]
        elif default is REQUIRED:
            raise ctx.error(
                f"{row.name}.attributes",
                f"custom_call @{row.name} requires attribute '{name}' in mhlo.attributes",
            )
        else:
            out[name] = default
    return out


def custom_call_shape(
    ctx: ShapeContext, row: OpDef, operand_types: tuple[Type, ...], attributes: Any
) -> tuple[Type, ...] | None:
    """The result types of ``custom_call @mhlo.<op>``: those the op's own shape function
    infers from the operands and ``mhlo.attributes``."""
    op_ctx = ShapeContext(row.name, ctx.pos, ctx.result_types, ctx.regions, ctx.operand_values)
    shape = row.shape
    if shape is None:  # (mhlo_target_row returns rows with a shape function)
        return None
    inferred = shape(op_ctx, *operand_types, **call_attributes(op_ctx, row, attributes))
    if inferred is None or isinstance(inferred, tuple):
        return inferred
    return (inferred,)


# ----------------------------------------------------------------------------- the ops


def copy_shape(ctx: ShapeContext, operand: Type, **_: Any) -> Type:
    """mhlo.copy (HLO kCopy): a copy of the operand, a tensor or a tuple; the result has
    the operand's type (SameOperandsAndResultType)."""
    if not isinstance(operand, TensorType | TupleType):
        raise ctx.error(
            "mhlo.copy.type", f"operand must be a tensor or a tuple, got {type_text(operand)}"
        )
    return operand


def erf_shape(ctx: ShapeContext, operand: Type) -> Type:
    """mhlo.erf (HLO kErf): a floating-point tensor, the result of the same type
    (MHLO_FpTensor, SameOperandsAndResultType)."""
    t = require_tensor(ctx, operand, "mhlo.erf.type")
    e = t.element_type
    if not isinstance(e, FloatType) or e.name == "tf32":
        raise ctx.error(
            "mhlo.erf.element_type",
            f"operand must be a tensor of floating-point values, got element type {e}",
        )
    return t


define_op("mhlo.copy", copy_shape, traits={"foldable"})
define_op("mhlo.erf", erf_shape, traits={"elementwise", "foldable"})
