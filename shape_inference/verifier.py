"""Run the shape functions of the op table over ops, functions and modules.

``verify_op`` checks one op: its row's shape function runs on the operand types and the
decoded attributes, and the inferred result types must be compatible with the declared
ones (spec: "compatible" = same element type, same rank, equal or dynamic dimensions).
"""

from __future__ import annotations

from typing import Any

from parser.errors import VerificationError
from parser.ir import (
    Function,
    Module,
    Operation,
    QuantizedType,
    Region,
    TensorType,
    TupleType,
    Type,
)

from .decode import decode_op_attributes
from .optable import OP_TABLE, OpDef, ShapeContext


def compatible(a: Type, b: Type) -> bool:
    """Types are compatible when they could describe the same runtime value."""
    if a == b:
        return True
    if isinstance(a, TensorType) and isinstance(b, TensorType):
        if not compatible_element(a.element_type, b.element_type):
            return False
        if a.shape is None or b.shape is None:
            return True
        return len(a.shape) == len(b.shape) and all(
            x is None or y is None or x == y for x, y in zip(a.shape, b.shape)
        )
    if isinstance(a, TupleType) and isinstance(b, TupleType):
        return len(a.types) == len(b.types) and all(
            compatible(x, y) for x, y in zip(a.types, b.types)
        )
    return False


def compatible_element(a: Type, b: Type) -> bool:
    if a == b:
        return True
    return isinstance(a, QuantizedType) and isinstance(b, QuantizedType) and (
        a.storage_type == b.storage_type and a.expressed_type == b.expressed_type
    )


def verify_op(
    op: Operation,
    row: OpDef,
    attrs: dict[str, Any] | None = None,
    constants: dict[str, Any] | None = None,
) -> None:
    """Check ``op`` with its row's shape function; raise ``VerificationError``.

    ``constants`` maps SSA names defined by ``stablehlo.constant`` to their arrays."""
    if row.shape is None:
        return
    if attrs is None:
        attrs = decode_op_attributes(op, row)
    values = tuple(constants.get(v.name) for v in op.operands) if constants else ()
    ctx = ShapeContext(op.name, op.pos, op.result_types, op.regions, values)
    try:
        inferred = row.shape(ctx, *op.operand_types, **attrs)
    except VerificationError as e:
        if e.pos is None:
            raise VerificationError(e.message, op.pos, op=op.name, label=e.label) from None
        raise
    if inferred is None:
        return
    if isinstance(inferred, Type):
        inferred = (inferred,)
    declared = op.result_types
    if len(inferred) != len(declared):
        raise VerificationError(
            f"inferred {len(inferred)} results but the op declares {len(declared)}",
            op.pos,
            op=op.name,
        )
    for i, (got, want) in enumerate(zip(inferred, declared)):
        if not compatible(got, want):
            raise VerificationError(
                f"inferred type(s) {_fmt(inferred)} are incompatible with return type(s) "
                f"of operation {_fmt(declared)} (result #{i})",
                op.pos,
                op=op.name,
            )


def _fmt(types: tuple[Type, ...]) -> str:
    try:
        from parser.printer import print_type as format_type

        return "'" + "', '".join(format_type(t) for t in types) + "'"
    except Exception:  # the printer is optional here
        return repr(types)


def _walk_region(region: Region, constants: dict[str, Any]) -> None:
    for block in region.blocks:
        for op in block.operations:
            verify_operation(op, constants)


def verify_operation(op: Operation, constants: dict[str, Any] | None = None) -> None:
    if constants is None:
        constants = {}
    row = OP_TABLE.get(op.name)
    if row is not None:
        verify_op(op, row, constants=constants)
    if op.name == "stablehlo.constant" and len(op.results) == 1:
        value = op.attr("value")
        if value is not None and hasattr(value, "array"):
            constants[op.results[0].name] = value.array
    for r in op.regions:
        _walk_region(r, constants)


def verify_function(fn: Function) -> None:
    if fn.body is not None:
        _walk_region(fn.body, {})


def verify_module(module: Module) -> None:
    """Verify every function of ``module``; raise the first ``VerificationError``."""
    for item in module.body:
        if isinstance(item, Function):
            verify_function(item)
        elif isinstance(item, Operation):
            verify_operation(item)
