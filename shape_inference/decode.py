"""Decode IR attributes into the Python values that shape functions and kernels take.

Generic, table-driven: each attribute becomes a plain Python value (ints, floats,
bools, strings for enum cases, tuples, NumPy arrays for dense elements, types);
StableHLO's structured attributes (dimension numbers) are flattened into their fields,
which carry the spec's names (``offset_dims``, ``lhs_batching_dimensions``...).
"""

from __future__ import annotations

from typing import Any

from ..parser import opdecl
from ..parser.errors import UnsupportedError, VerificationError
from ..parser.ir import (
    ArrayAttr,
    Attribute,
    BoolAttr,
    ChannelHandle,
    ConvDimensionNumbers,
    DenseArrayAttr,
    DenseElementsAttr,
    DenseResourceAttr,
    DialectAttr,
    DictionaryAttr,
    DotAlgorithm,
    DotDimensionNumbers,
    EnumAttr,
    FloatAttr,
    GatherDimensionNumbers,
    IntegerAttr,
    OpaqueAttr,
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


# What each value kind of parser/opdecl.py must be in the IR, so that shape functions
# and kernels may rely on it ("array", "any" and the kinds not listed: anything).
KIND_CLASSES: dict[str, tuple[type, ...]] = {
    "i64": (IntegerAttr,),
    "i32": (IntegerAttr,),
    "ui64": (IntegerAttr,),
    "i64_array": (DenseArrayAttr,),
    "bool_array": (DenseArrayAttr,),
    "bool": (BoolAttr,),
    "unit": (UnitAttr,),
    "string": (StringAttr, OpaqueAttr),  # a typed string ``"foo" : tensor<3xf32>``
    "f32": (FloatAttr,),
    "dense": (DenseElementsAttr, DenseResourceAttr),
    "i64_elements": (DenseElementsAttr, DialectAttr),  # or replica_group_mesh_axes
    "precision_config": (ArrayAttr,),
    "channel_handle": (ChannelHandle,),
    "result_accuracy": (ResultAccuracy,),
    "dot_algorithm": (DotAlgorithm,),
    "dot_dimension_numbers": (DotDimensionNumbers,),
    "gather_dimension_numbers": (GatherDimensionNumbers,),
    "scatter_dimension_numbers": (ScatterDimensionNumbers,),
    "conv_dimension_numbers": (ConvDimensionNumbers,),
    "dict": (DictionaryAttr,),
    "symbol": (SymbolRefAttr,),
}


# Index data (replica groups, source-target pairs, paddings) is read element by element
# by the verifier and kernels: more elements than this (only a splat can have them
# without as much text) are refused rather than materialized.
MAX_INDEX_ELEMENTS = 1 << 24


def check_attribute_kinds(op: Operation) -> None:
    """Each attribute ``op`` declares (parser/opdecl.py) is of its declared kind: a
    ``channel_handle`` is a ``#stablehlo.channel_handle``, an ``i64`` an integer, an
    enum a case of that enum...  Raises ``VerificationError`` naming the attribute."""
    decl = opdecl.OP_DECLS.get(op.name)
    if decl is None:
        return
    for name, attr in op.attributes:
        a = decl.attr(name)
        if a is None:
            continue
        kind = a.kind
        if kind.startswith("enum:"):
            ok = isinstance(attr, EnumAttr) and attr.kind == kind[5:]
        else:
            classes = KIND_CLASSES.get(kind)
            ok = classes is None or isinstance(attr, classes)
        if not ok:
            raise VerificationError(
                f"attribute '{name}' must be {_kind_text(kind)}, got {_attr_text(attr)}",
                op.pos,
                op=op.name,
                label="attribute_kind",
            )
        if kind == "i64_elements" and isinstance(attr, DenseElementsAttr):
            n = attr.array.size
            if n > MAX_INDEX_ELEMENTS:  # e.g. a splat: one element in memory, 1e12 ids
                raise UnsupportedError(
                    f"attribute '{name}' holds {n} elements; index attributes of more than "
                    f"{MAX_INDEX_ELEMENTS} elements are not supported",
                    op.pos,
                    op=op.name,
                )


def _kind_text(kind: str) -> str:
    if kind.startswith("enum:"):
        return f"a #stablehlo<{kind[5:]} ...> case"
    return {"channel_handle": "a #stablehlo.channel_handle"}.get(kind, f"of kind {kind}")


def _attr_text(attr: Attribute) -> str:
    # imported here, on the error path: the printer (and the VHLO op table it reads) is
    # not needed to verify a correct program (startup, issue 19)
    from ..parser.printer import print_attribute

    try:
        return print_attribute(attr)
    except Exception:  # noqa: BLE001  (a hand-built attribute that does not print)
        return type(attr).__name__


def _fields(attr: Attribute) -> dict[str, Any]:
    return {k: v for k, v in vars(attr).items() if not k.startswith("_") and k != "raw"}


def decode_op_attributes(op: Operation, row: OpDef) -> dict[str, Any]:
    """All keyword arguments of ``op`` for ``row``: declared attributes, decoded, with
    defaults filled in.  Attributes the row does not declare (discardable ones such as
    ``mhlo.sharding``) are dropped.  A missing required attribute is a
    ``VerificationError``."""
    check_attribute_kinds(op)
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
