"""Buffers: ``memref`` values in StableHLO programs (the dialect's ``HLO_Buffer``).

StableHLO lets a few ops carry memref buffers (stablehlo/dialect/Base.td ``HLO_Buffer``,
``MemRefOf<[HLO_Float, HLO_Pred, HLO_Int, HLO_Complex, HLO_QuantizedInt]>``): the
operands and results of ``while``, ``tuple``'s operands and tuple types (``HLO_Tuple``
nests buffers), ``get_tuple_element``'s result, ``return``'s operands and every value of
``custom_call`` (``HLO_CustomCallValue``), where the ``CreateBuffer`` / ``Pin`` /
``Unpin`` targets make and convert them (shape_inference/control_flow.py).  The op
table's ``buffers`` column names these ops.  Every other StableHLO and CHLO op's ODS type
constraints take tensors (and tokens, tuples) only, and MLIR's generated verifier rejects
a memref before the op's own verifier runs: ``operand #0 must be ranked tensor of ...
values, but got 'memref<4xf32>'`` (``value_type_violation``).

hlorun verifies buffer programs; it does not run them (a memref value stays an
``OpaqueType``, which no kernel takes).
"""

from __future__ import annotations

from typing import TypeGuard

from ..parser.errors import ParseError
from ..parser.ir import OpaqueType, Operation, TensorType, Type
from ..parser.opdecl import OP_DECLS
from ..parser.type_syntax import TypeParser
from .optable import OpDef
from .typeutil import type_text

# The ODS summary of HLO_Tensor (Base.td: RankedTensorOf<[HLO_Float, HLO_Pred, HLO_Int,
# HLO_Complex, HLO_QuantizedInt]>, each element constraint's summary joined by " or "),
# the constraint most StableHLO operands and results have.  An op whose constraint is
# wider (per-axis quantized tensors, tokens) is named with this summary too: the message
# names the memref exactly, the tensor kinds only as StableHLO's usual ones.
TENSOR_SUMMARY = (
    "ranked tensor of 4/6/8/16/32/64-bit float or bool or 2/4/8/16/32/64-bit integer or "
    "complex type with 32/64-bit float elements or per-tensor integer quantized values"
)

# Dialects whose ops' ODS type constraints take no memref unless the row says so.
_TENSOR_DIALECTS = ("stablehlo.", "chlo.")


def is_buffer(t: Type) -> TypeGuard[OpaqueType]:
    """``t`` is a memref type (MLIR's MemRefType; hlorun keeps its text)."""
    return isinstance(t, OpaqueType) and t.text.startswith("memref<")


def buffer_tensor(t: Type) -> TensorType | None:
    """The tensor type of the buffer ``t``'s shape and element type (its layout and
    memory space left out), or None if ``t`` is not a well-formed memref."""
    if not (is_buffer(t) and t.text.endswith(">")):
        return None
    body = t.text[len("memref<") : -1]
    depth = 0
    for i, ch in enumerate(body):  # the shape and element type end at a top-level ','
        if ch in "<([{":
            depth += 1
        elif ch in ">)]}":
            depth -= 1
        elif ch == "," and depth == 0:
            body = body[:i]
            break
    try:
        tensor = TypeParser(f"tensor<{body.strip()}>").parse_type()
    except (ParseError, NotImplementedError):  # (an attribute inside: not a memref's)
        return None
    return tensor if isinstance(tensor, TensorType) else None


def _variadic_groups(names: tuple[str, ...], count: int) -> list[bool]:
    """For each of ``count`` values of an op whose ODS ``names`` are ``names`` (``*`` /
    ``+``: variadic), whether it belongs to a variadic group (several variadic groups
    share the values beyond the single ones evenly, as ODS SameVariadicOperandSize)."""
    variadic = [n.endswith(("*", "+")) for n in names]
    if not any(variadic):
        return [False] * count
    each = max(count - variadic.count(False), 0) // variadic.count(True)
    out: list[bool] = []
    for v in variadic:
        out.extend([v] * (each if v else 1))
    return (out + [True] * count)[:count]


def value_type_violation(op: Operation, row: OpDef) -> str | None:
    """MLIR's ODS value-type check of a StableHLO / CHLO op that takes no buffers: the
    message naming its first memref operand or result (numbered among all operands /
    results, ``variadic of`` when its group is variadic), else None."""
    if row.buffers or not op.name.startswith(_TENSOR_DIALECTS):
        return None
    for what, types in (("operand", op.operand_types), ("result", op.result_types)):
        if not any(is_buffer(t) for t in types):
            continue
        decl = OP_DECLS.get(op.name)
        names = () if decl is None else decl.operands if what == "operand" else decl.results
        variadic = _variadic_groups(names, len(types))
        for i, t in enumerate(types):
            if is_buffer(t):
                summary = f"variadic of {TENSOR_SUMMARY}" if variadic[i] else TENSOR_SUMMARY
                return f"{what} #{i} must be {summary}, but got '{type_text(t)}'"
    return None
