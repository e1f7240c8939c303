"""What MLIR does not distinguish, made equal, so that two parsed modules compare as
``stablehlo-opt`` outputs would: ``--strip-debuginfo`` (no locations), dictionaries
sorted by name (DictionaryAttr), an untyped integer / float literal is i64 / f64,
the spelling of dense constants and enums (hex blob or not, ``#d<kind V>`` or
``#d.kind<V>``) is the printer's business."""

from __future__ import annotations

import dataclasses
import functools

from hlorun.parser import parse_module
from hlorun.parser.ir import (
    ArrayAttr,
    Block,
    DenseElementsAttr,
    DialectAttr,
    DictionaryAttr,
    EnumAttr,
    FloatAttr,
    FloatType,
    Function,
    IntegerAttr,
    IntegerType,
    Module,
    Operation,
    Region,
    ResultAccuracy,
    StringAttr,
)
from hlorun.parser.opdecl import OP_DECLS

_LONG_ENUMS = {"result_accuracy_mode"}


def attr(a):
    if isinstance(a, ArrayAttr):
        return ArrayAttr(tuple(attr(e) for e in a.elements))
    if isinstance(a, DictionaryAttr):
        return DictionaryAttr(tuple(sorted((k, attr(v)) for k, v in a.entries)))
    if isinstance(a, IntegerAttr) and a.type is None:
        return IntegerAttr(a.value, IntegerType(64))
    if isinstance(a, FloatAttr) and a.type is None:
        return FloatAttr(a.value, FloatType("f64"))
    if isinstance(a, DenseElementsAttr) and a.hex:
        return DenseElementsAttr(a.type, a.array, False)
    if isinstance(a, EnumAttr):
        return EnumAttr(a.dialect, a.kind, a.value, a.kind not in _LONG_ENUMS)
    if isinstance(a, ResultAccuracy):
        mode = a.mode or EnumAttr("stablehlo", "result_accuracy_mode", "DEFAULT", False)
        return ResultAccuracy(float(a.atol), float(a.rtol), int(a.ulps), attr(mode))
    if isinstance(a, DialectAttr):
        return DialectAttr(a.dialect, a.name, tuple((k, attr(v)) for k, v in a.params))
    return a


def attrs(items):
    return tuple(sorted((k, attr(v)) for k, v in items))


def region(r: Region) -> Region:
    return Region(
        tuple(Block(b.arguments, tuple(op(o) for o in b.operations), b.label, ()) for b in r.blocks)
    )


def _parsed(text: str):
    """The attribute ``text`` spells, as hlorun's parser reads it."""
    item = parse_module(f'"x.y"() {{d = {text}}} : () -> ()').body[0]
    assert isinstance(item, Operation)
    return attr(item.attributes[0][1])


@functools.cache
def _defaults(op_name: str) -> dict[str, object]:
    """The attributes whose value the text cannot tell from their absence: the .td
    ``DefaultValued(Optional|Str)Attr`` defaults (parser/opdecl.py ``ods_default``;
    MLIR's printer elides them at that value), and custom_call's ``backend_config = ""``
    (no .td default, but StablehloLegalizeToVhlo.cpp writes it when absent and
    VhloLegalizeToStablehlo.cpp erases it when empty)."""
    decl = OP_DECLS.get(op_name)
    out: dict[str, object] = {}
    for a in decl.attrs if decl is not None else ():
        if a.ods_default is not None:
            out[a.name] = _parsed(a.ods_default)
    if op_name == "stablehlo.custom_call":
        out["backend_config"] = StringAttr("")
    return out


def _is_default(op_name: str, name: str, a) -> bool:
    default = _defaults(op_name).get(name)
    return default is not None and a == default


def op(o: Operation) -> Operation:
    kept = [(k, v) for k, v in attrs(o.attributes) if not _is_default(o.name, k, v)]
    return Operation(
        o.name,
        o.operands,
        o.results,
        tuple(kept),
        tuple(region(r) for r in o.regions),
        o.successors,
    )


def function(f: Function) -> Function:
    def dicts(ds):
        out = tuple(None if d is None or not d.entries else attr(d) for d in ds)
        return out if any(d is not None for d in out) else ()

    return dataclasses.replace(
        f,
        body=None if f.body is None else region(f.body),
        visibility=None if f.visibility in (None, "public") else f.visibility,
        arg_attrs=dicts(f.arg_attrs),
        result_attrs=dicts(f.result_attrs),
        attributes=attrs(f.attributes),
        location=None,
    )


def normalize(m: Module) -> Module:
    body = tuple(function(x) if isinstance(x, Function) else op(x) for x in m.body)
    return Module(body, m.name, attrs(m.attributes), (), m.resources, True, None)
