"""Module equality up to SSA value names (bytecode does not store names)."""

from __future__ import annotations

import dataclasses

from hlorun.parser.ir import (
    ArrayAttr,
    Block,
    BoolAttr,
    ConvDimensionNumbers,
    DenseElementsAttr,
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
)


def _norm(a):
    """An attribute as MLIR would hold it: untyped integers are i64 and untyped floats
    f64 (MLIR's defaults), i1 integers booleans; dense
    constants and convolution dimension numbers drop their text-only spelling flags."""
    if isinstance(a, IntegerAttr) and a.type is None:
        return IntegerAttr(a.value, IntegerType(64))
    if isinstance(a, IntegerAttr) and a.type == IntegerType(1):
        return BoolAttr(bool(a.value & 1))  # MLIR's BoolAttr is an i1 IntegerAttr
    if isinstance(a, FloatAttr) and a.type is None:
        return FloatAttr(a.value, FloatType("f64"))
    if isinstance(a, DenseElementsAttr):
        return DenseElementsAttr(a.type, a.array)
    if isinstance(a, ConvDimensionNumbers):  # ``raw``: how the text spelled it
        return dataclasses.replace(a, raw=False)
    if isinstance(a, ResultAccuracy) and a.mode is None:  # the default mode, spelled out
        mode = EnumAttr("stablehlo", "result_accuracy_mode", "DEFAULT", short=False)
        return dataclasses.replace(a, mode=mode)
    if isinstance(a, ArrayAttr):
        return ArrayAttr(tuple(_norm(x) for x in a.elements))
    if isinstance(a, DictionaryAttr):
        return DictionaryAttr(tuple(sorted((k, _norm(v)) for k, v in a.entries)))
    return a


def _loc(loc):
    """No location and ``loc(unknown)`` are the same (MLIR's UnknownLoc)."""
    return None if loc is None or loc.text == "unknown" else loc


def _attrs(entries):
    return tuple((k, _norm(v)) for k, v in entries)


class _Match:
    def __init__(self) -> None:
        self.scopes: list[dict[str, str]] = [{}]
        self.why = ""

    def fail(self, why: str) -> bool:
        self.why = self.why or why
        return False

    def value(self, a, b, where: str, define: bool) -> bool:
        if a.type != b.type:
            return self.fail(f"{where}: type {a.type} != {b.type}")
        if define:
            self.scopes[-1][a.name] = b.name
            return True
        for scope in reversed(self.scopes):
            if a.name in scope:
                seen = scope[a.name]
                break
        else:
            return self.fail(f"{where}: {a.name} used before it is defined")
        if seen != b.name:
            return self.fail(f"{where}: {a.name} maps to {seen} and {b.name}")
        return True

    def values(self, xs, ys, where: str, define: bool = False) -> bool:
        if len(xs) != len(ys):
            return self.fail(f"{where}: {len(xs)} values vs {len(ys)}")
        return all(self.value(x, y, where, define) for x, y in zip(xs, ys))

    def region(self, a: Region | None, b: Region | None, where: str) -> bool:
        if a is None or b is None:
            return a is b or self.fail(f"{where}: body presence differs")
        if len(a.blocks) != len(b.blocks):
            return self.fail(f"{where}: block count")
        self.scopes.append({})
        try:
            # Definitions first: a block may use values of blocks listed after it.
            for x, y in zip(a.blocks, b.blocks):
                if not self.values(x.arguments, y.arguments, where + " block args", True):
                    return False
                for p, q in zip(x.operations, y.operations):
                    if not self.values(p.results, q.results, p.name + " results", True):
                        return False
            return all(self.block(x, y, where) for x, y in zip(a.blocks, b.blocks))
        finally:
            self.scopes.pop()

    def block(self, a: Block, b: Block, where: str) -> bool:
        if tuple(map(_loc, a.arg_locations)) != tuple(map(_loc, b.arg_locations)) and any(
            map(_loc, a.arg_locations + b.arg_locations)
        ):
            return self.fail(f"{where}: block argument locations")
        if len(a.operations) != len(b.operations):
            return self.fail(f"{where}: op count {len(a.operations)} vs {len(b.operations)}")
        return all(self.op(x, y) for x, y in zip(a.operations, b.operations))

    def op(self, a: Operation, b: Operation) -> bool:
        w = a.name
        if (a.name, _attrs(a.attributes), _loc(a.location), len(a.successors)) != (
            b.name,
            _attrs(b.attributes),
            _loc(b.location),
            len(b.successors),
        ):
            return self.fail(f"{w}: name/attributes/location/successors differ:\n{a}\n{b}")
        return (
            len(a.results) == len(b.results)
            and self.values(a.operands, b.operands, w + " operands")
            and len(a.regions) == len(b.regions)
            and all(self.region(x, y, w) for x, y in zip(a.regions, b.regions))
        )

    def item(self, a, b) -> bool:
        if isinstance(a, Function) or isinstance(b, Function):
            if not (isinstance(a, Function) and isinstance(b, Function)):
                return self.fail("function vs operation")
            keys = (
                "name",
                "type",
                "visibility",
                "arg_attrs",
                "result_attrs",
                "attributes",
                "location",
            )
            for k in keys:
                x, y = getattr(a, k), getattr(b, k)
                if k == "attributes":
                    x, y = _attrs(x), _attrs(y)
                elif k == "location":
                    x, y = _loc(x), _loc(y)
                elif k in ("arg_attrs", "result_attrs"):
                    x = tuple(None if d is None else _norm(d) for d in x)
                    y = tuple(None if d is None else _norm(d) for d in y)
                if x != y:
                    return self.fail(f"@{a.name}: {k} differs")
            return self.region(a.body, b.body, "@" + a.name)
        return self.op(a, b)


def same_module(a: Module, b: Module) -> str:
    """'' when ``a`` and ``b`` agree up to value names (and the implicit-module flag),
    else what differs."""
    m = _Match()
    for k in ("name", "attributes", "resources", "location"):
        x, y = getattr(a, k), getattr(b, k)
        if k == "attributes":
            x, y = _attrs(x), _attrs(y)
        elif k == "location":
            x, y = _loc(x), _loc(y)
        if x != y:
            return f"module {k} differs: {x!r} vs {y!r}"
    if len(a.body) != len(b.body):
        return "top-level op count differs"
    for x, y in zip(a.body, b.body):
        if not m.item(x, y):
            return m.why or "differs"
    return ""
