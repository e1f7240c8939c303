"""Shape functions of the Shardy (``sdy``) ops that a global (unpartitioned) program
holds: openxla/shardy ``shardy/dialect/sdy/ir/ops.td`` and ``verifiers.cc``.

On one device the sharding annotations change no value: ``sharding_constraint``,
``reshard``, ``propagation_barrier``, ``data_flow_edge`` and ``func_data_flow_edge``
return their operand (same type); ``manual_computation`` and ``named_computation``
return what their body returns, ``manual_computation``'s body on per-device local
shapes (the global shape divided along the manual axes, verifiers.cc
``verifyManualComputationOp``).  Attributes reach the shape functions and kernels as
parser/sdy's values (the ``decode`` below passes them through).
"""

from __future__ import annotations

from typing import Any

from ..parser.ir import Operation, Region, TensorType, Type
from .optable import ShapeContext, define_op


def raw_attrs(op: Operation) -> dict[str, Any]:
    """The op's attributes as they are (sdy attributes need no decoding)."""
    return {"attributes": op.attr_map}


def _same_type(ctx: ShapeContext, operand: Type, **_: Any) -> Type:
    """The result has the operand's type (ops.td: SameOperandsAndResultType / the
    sharding ops' verifiers)."""
    return operand


def _returned_types(region: Region) -> tuple[Type, ...]:
    return region.blocks[0].operations[-1].operand_types if region.blocks else ()


def _body_results(ctx: ShapeContext, *operand_types: Type, **_: Any):
    """named_computation: the body takes the operands and returns the results."""
    if not ctx.regions or not ctx.regions[0].blocks:
        raise ctx.error("sdy_body", "requires a body region with one block")
    body = ctx.regions[0].blocks[0]
    got = tuple(v.type for v in body.arguments)
    if got != tuple(operand_types):
        raise ctx.error("sdy_body_args", f"body argument types {got} differ from the operands'")
    returned = _returned_types(ctx.regions[0])
    if ctx.result_types and tuple(ctx.result_types) != returned:
        raise ctx.error("sdy_body_results", "body returns types that differ from the results'")
    return returned


def _manual_shape(ctx: ShapeContext, *operand_types: Type, attributes=None, **_: Any):
    """manual_computation: one in/out sharding per operand/result; body arguments /
    results of the operands' / results' rank and element type (the local shapes are
    checked against the mesh when the op runs)."""
    attributes = attributes or {}
    ins, outs = attributes.get("in_shardings"), attributes.get("out_shardings")
    if ins is None or outs is None or "manual_axes" not in attributes:
        raise ctx.error("sdy_manual_attrs", "requires in_shardings, out_shardings, manual_axes")
    if len(ins.shardings) != len(operand_types):
        raise ctx.error("sdy_manual_in", "needs one in_sharding per operand")
    if len(outs.shardings) != len(ctx.result_types):
        raise ctx.error("sdy_manual_out", "needs one out_sharding per result")
    if not ctx.regions or not ctx.regions[0].blocks:
        raise ctx.error("sdy_body", "requires a body region with one block")
    args = tuple(v.type for v in ctx.regions[0].blocks[0].arguments)
    for what, local, glob in (
        ("argument", args, operand_types),
        ("result", _returned_types(ctx.regions[0]), tuple(ctx.result_types)),
    ):
        if len(local) != len(glob):
            raise ctx.error("sdy_manual_count", f"body {what} count differs from the op's")
        for lt, gt in zip(local, glob):
            if isinstance(lt, TensorType) and isinstance(gt, TensorType):
                if lt.element_type != gt.element_type or (
                    lt.shape is not None and gt.shape is not None and len(lt.shape) != len(gt.shape)
                ):
                    raise ctx.error(
                        "sdy_manual_local", f"body {what} type {lt} does not match {gt}"
                    )
    return tuple(ctx.result_types)


def _no_result(ctx: ShapeContext, *operand_types: Type, **_: Any):
    return ()


def _constant(ctx: ShapeContext, *, attributes=None, **_: Any):
    value = (attributes or {}).get("value")
    t = getattr(value, "type", None)
    if t is None:
        raise ctx.error("sdy_constant", "requires an elements attribute 'value'")
    return t


for _name in (
    "sdy.sharding_constraint",
    "sdy.reshard",
    "sdy.propagation_barrier",
    "sdy.data_flow_edge",
    "sdy.func_data_flow_edge",
):
    define_op(_name, _same_type, decode=raw_attrs)
define_op("sdy.sharding_group", _no_result, decode=raw_attrs, traits={"side_effects"}, results=0)
define_op("sdy.constant", _constant, decode=raw_attrs, traits={"foldable"})
define_op(
    "sdy.manual_computation",
    _manual_shape,
    decode=raw_attrs,
    regions=("body",),
    multi_result=True,
    traits={"side_effects"},
)
define_op(
    "sdy.named_computation",
    _body_results,
    decode=raw_attrs,
    regions=("body",),
    multi_result=True,
)
