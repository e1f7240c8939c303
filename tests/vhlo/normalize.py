"""What MLIR does not distinguish, made equal, so that two parsed modules compare as
``stablehlo-opt`` outputs would: ``--strip-debuginfo`` (no locations), dictionaries
sorted by name (DictionaryAttr), an untyped integer / float literal is i64 / f64,
the spelling of dense constants and enums (hex blob or not, ``#d<kind V>`` or
``#d.kind<V>``) is the printer's business."""

from __future__ import annotations

import dataclasses

from hlorun.parser.ir import (
    ArrayAttr,
    Block,
    BoolAttr,
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


# StablehloOps.td DefaultValued(Optional|Str)Attr: MLIR's printer elides them at their
# default, so the text cannot tell "absent" from "default".
_RESULT_ACCURACY_OPS = frozenset(
    "cbrt cosine exponential exponential_minus_one log log_plus_one logistic rsqrt sine "
    "sqrt tan tanh".split()
)
_DEFAULT_ACCURACY = ResultAccuracy(
    0.0, 0.0, 0, EnumAttr("stablehlo", "result_accuracy_mode", "DEFAULT", False)
)
_FALSE = BoolAttr(False)
_ODS_DEFAULTS = {
    "infeed": {"infeed_config": StringAttr("")},
    "outfeed": {"outfeed_config": StringAttr("")},
    "send": {"is_host_transfer": _FALSE},
    "recv": {"is_host_transfer": _FALSE},
    "cholesky": {"lower": _FALSE},
    "composite": {
        "composite_attributes": DictionaryAttr(()),
        "version": IntegerAttr(0, IntegerType(32)),
    },
    "custom_call": {
        "api_version": IntegerAttr(1, IntegerType(32)),
        "has_side_effect": _FALSE,
        "backend_config": StringAttr(""),
        "called_computations": ArrayAttr(()),
    },
    "gather": {"indices_are_sorted": _FALSE},
    "dynamic_gather": {"indices_are_sorted": _FALSE},
    "scatter": {"indices_are_sorted": _FALSE, "unique_indices": _FALSE},
    "sort": {"dimension": IntegerAttr(-1, IntegerType(64)), "is_stable": _FALSE},
}


def _is_default(op_name: str, name: str, a) -> bool:
    base = op_name.removeprefix("stablehlo.")
    if base in _RESULT_ACCURACY_OPS and name == "result_accuracy":
        return a == _DEFAULT_ACCURACY
    default = _ODS_DEFAULTS.get(base, {}).get(name)
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
