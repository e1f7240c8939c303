"""Decode IR attributes into the Python values that shape functions and kernels take.

Generic, table-driven: each attribute becomes a plain Python value (ints, floats,
bools, strings for enum cases, tuples, NumPy arrays for dense elements, types);
StableHLO's structured attributes (dimension numbers) are flattened into their fields,
which carry the spec's names (``offset_dims``, ``lhs_batching_dimensions``...).
"""

from __future__ import annotations

from typing import Any

from ..parser.errors import VerificationError
from ..parser.ir import (
    ArrayAttr,
    Attribute,
    BoolAttr,
    ChannelHandle,
    ConvDimensionNumbers,
    DenseArrayAttr,
    DenseElementsAttr,
    DialectAttr,
    DictionaryAttr,
    DotAlgorithm,
    DotDimensionNumbers,
    EnumAttr,
    FloatAttr,
    GatherDimensionNumbers,
    IntegerAttr,
    Operation,
    OutputOperandAlias,
    ResultAccuracy,
    ScatterDimensionNumbers,
    StringAttr,
    SymbolRefAttr,
    TypeAttr,
    UnitAttr,
)
from .optable import REQUIRED, OpDef

# Structured attributes whose fields become keyword arguments of their own.
FLATTENED = (
    GatherDimensionNumbers,
    ScatterDimensionNumbers,
    DotDimensionNumbers,
    ConvDimensionNumbers,
)


def decode_attribute(attr: Attribute) -> Any:
    """One attribute -> a plain Python value."""
    if isinstance(attr, IntegerAttr):
        return attr.value
    if isinstance(attr, FloatAttr):
        return attr.value
    if isinstance(attr, BoolAttr):
        return attr.value
    if isinstance(attr, UnitAttr):
        return True
    if isinstance(attr, StringAttr):
        return attr.value
    if isinstance(attr, EnumAttr):
        return attr.value
    if isinstance(attr, DenseArrayAttr):
        return tuple(attr.values)
    if isinstance(attr, DenseElementsAttr):
        return attr.array
    if isinstance(attr, ArrayAttr):
        return tuple(decode_attribute(a) for a in attr.elements)
    if isinstance(attr, DictionaryAttr):
        return {k: decode_attribute(v) for k, v in attr.entries}
    if isinstance(attr, SymbolRefAttr):
        return attr.root
    if isinstance(attr, TypeAttr):
        return attr.type
    if isinstance(attr, ChannelHandle | OutputOperandAlias | DotAlgorithm | ResultAccuracy):
        return attr  # frozen records with spec-named fields
    if isinstance(attr, DialectAttr):
        return attr
    return attr


def _fields(attr: Attribute) -> dict[str, Any]:
    return {k: v for k, v in vars(attr).items() if not k.startswith("_") and k != "raw"}


def decode_op_attributes(op: Operation, row: OpDef) -> dict[str, Any]:
    """All keyword arguments of ``op`` for ``row``: declared attributes, decoded, with
    defaults filled in.  Attributes the row does not declare (discardable ones such as
    ``mhlo.sharding``) are dropped.  A missing required attribute is a
    ``VerificationError``."""
    if row.decode is not None:
        return row.decode(op)
    declared = row.attrs
    out: dict[str, Any] = {}
    for name, attr in op.attributes:
        if isinstance(attr, FLATTENED):
            for k, v in _fields(attr).items():
                if k in declared:
                    out[k] = v
            if name in declared:
                out[name] = attr
        elif name in declared:
            out[name] = decode_attribute(attr)
    for name, default in declared.items():
        if name not in out:
            if default is REQUIRED:
                raise VerificationError(
                    f"requires attribute '{name}'", op.pos, op=op.name, label=None
                )
            out[name] = default
    return out
