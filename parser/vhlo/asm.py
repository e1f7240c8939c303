"""Printing modules that hold VHLO ops (``stablehlo-opt`` output after
``--stablehlo-legalize-to-vhlo``), generic (``--mlir-print-op-generic``) or not.

The VHLO type / attribute syntax follows the assembly formats of VhloTypes.td /
VhloAttrs.td (and the custom printers of VhloTypes.cpp / VhloAttrs.cpp: ``TypeArray``,
``Shape``, ``Encoding``, ``AttributeArray``, ``AttributeDictionary``, integer_v1 and
tensor_v1 printed through their builtin counterparts), as ``parser/vhlo/text.py``
writes them; this module adds the ops: MLIR's SSA names, the generic form of every op
and of ``builtin.module``, and the custom forms of ``vhlo.func_v1`` and of the ops a
mixed (allow-other-dialects) module holds.
"""

from __future__ import annotations

from ..ir import (
    Attribute,
    Block,
    Module,
    Operation,
    Region,
    StringAttr,
    Type,
    Value,
)
from ..printer import _Printer
from .common import unwrap_generic_module
from .ir import VhloAttr, VhloType
from .text import print_vhlo_attr, print_vhlo_type

__all__ = ["print_vhlo_module", "vhlo_attr_text", "vhlo_type_text"]


class VhloPrinter(_Printer):
    """The module printer, taught VHLO types and attributes; ``generic`` prints every
    op (and the module) in MLIR's generic form.  Locations are not printed (as
    stablehlo-opt without ``--mlir-print-debuginfo``)."""

    def __init__(self, *, generic: bool = False, hex_above: int | None = 100) -> None:
        super().__init__(hex_above)
        self.generic_ops = generic
        self._attr_dispatch[VhloAttr] = self.vhlo_attr

    # ---- types ---------------------------------------------------------------------

    def _type_uncached(self, t: Type) -> str:
        if isinstance(t, VhloType):
            return self.vhlo_type(t)
        return super()._type_uncached(t)

    def vhlo_type(self, t: VhloType) -> str:
        return print_vhlo_type(t, self.attr, self.type)

    def vhlo_attr(self, a: VhloAttr) -> str:
        return print_vhlo_attr(a, self.attr, self.type)

    # ---- ops -----------------------------------------------------------------------

    def operation(self, op: Operation, depth: int) -> str:
        from ..printer import _PRETTY, _result_list

        text = None
        if not self.generic_ops:
            text = _other_pretty(self, op)
        if text is None and not self.generic_ops:
            pretty = _PRETTY.get(op.name)
            if pretty is not None and not op.successors:
                text = pretty(self, op, depth)
        if text is None:
            text = self.generic(op, depth)
        return "  " * depth + _result_list(op.results) + text

    def module(self, m: Module) -> str:
        m = Module(
            tuple(_Renamer().top(x) for x in m.body),
            m.name,
            m.attributes,
            m.aliases,
            m.resources,
            m.implicit,
            m.location,
        )
        if not self.generic_ops:
            stripped = Module(m.body, m.name, m.attributes, m.aliases, (), False, None)
            return super().module(stripped)
        lines = []
        for item in m.body:
            lines.append(self.operation(item, 1))
        attrs = list(m.attributes)
        if m.name is not None:
            attrs.append(("sym_name", _StrAttr(m.name)))
        head = '"builtin.module"() ({'
        tail = "}) : () -> ()"
        if attrs:
            tail = "}) " + self.dict(sorted(attrs, key=lambda kv: kv[0])) + " : () -> ()"
        return "\n".join([head, *lines, tail]) + "\n"


# arith ops whose assembly format is ``$lhs, $rhs attr-dict : type($result)`` (ArithOps.td)
_ARITH_BINARY = frozenset(
    "addf subf mulf divf remf maximumf minimumf maxnumf minnumf addi subi muli divsi divui "
    "remsi remui andi ori xori shli shrsi shrui maxsi maxui minsi minui".split()
)


def _other_pretty(p: VhloPrinter, op: Operation) -> str | None:
    """Custom forms of the non-VHLO ops a mixed module holds: the unrealized casts
    (BuiltinOps.td) and arith's binary ops."""
    names = ", ".join(v.name for v in op.operands)
    if op.name == "builtin.unrealized_conversion_cast" and not op.attributes and op.operands:
        ins = ", ".join(p.type(t) for t in op.operand_types)
        outs = ", ".join(p.type(t) for t in op.result_types)
        return f"{op.name} {names} : {ins} to {outs}"
    dialect, _, mnemonic = op.name.partition(".")
    if (
        dialect == "arith"
        and mnemonic in _ARITH_BINARY
        and len(op.operands) == 2
        and len(op.results) == 1
        and not op.attributes
        and not op.regions
        and op.operand_types[0] == op.operand_types[1] == op.result_types[0]
    ):
        return f"{op.name} {names} : {p.type(op.result_types[0])}"
    return None


class _Renamer:
    """MLIR's SSA names (SSANameState): results ``%N`` (``%N#i`` for several), entry
    block arguments ``%argN``, numbered through the nested (non-isolated) regions."""

    def __init__(self) -> None:
        self.map: dict[str, str] = {}
        self.next_value = 0
        self.next_arg = 0

    def top(self, item):
        if isinstance(item, Operation):
            return self.op(item)
        return item

    def val(self, v: Value) -> Value:
        return Value(self.map.get(v.name, v.name), v.type)

    def op(self, op: Operation) -> Operation:
        operands = tuple(self.val(v) for v in op.operands)
        results = op.results
        if results:
            n = self.next_value
            self.next_value += 1
            if len(results) == 1:
                names = [f"%{n}"]
            else:
                names = [f"%{n}#{i}" for i in range(len(results))]
            for v, nm in zip(results, names):
                self.map[v.name] = nm
            results = tuple(Value(nm, v.type) for v, nm in zip(results, names))
        regions = tuple(self.region(r) for r in op.regions)
        return Operation(
            op.name,
            operands,
            results,
            op.attributes,
            regions,
            op.successors,
            op.property_names,
            op.location,
            op.pos,
        )

    def region(self, r: Region) -> Region:
        for i, b in enumerate(r.blocks):
            for a in b.arguments:
                if i == 0:
                    self.map[a.name] = f"%arg{self.next_arg}"
                    self.next_arg += 1
                else:
                    self.map[a.name] = f"%{self.next_value}"
                    self.next_value += 1
        blocks = []
        for i, b in enumerate(r.blocks):
            args = tuple(self.val(a) for a in b.arguments)
            ops = tuple(self.op(o) for o in b.operations)
            blocks.append(Block(args, ops, None if i == 0 else f"^bb{i}", b.arg_locations))
        return Region(tuple(blocks))


def _StrAttr(s: str) -> Attribute:  # noqa: N802
    return StringAttr(s)


def print_vhlo_module(module: Module, *, generic: bool = False) -> str:
    """``stablehlo-opt`` text of a module holding VHLO (or StableHLO) ops."""
    return VhloPrinter(generic=generic).module(unwrap_generic_module(module))


def vhlo_type_text(t: Type) -> str:
    return VhloPrinter().type(t)


def vhlo_attr_text(a: Attribute) -> str:
    return VhloPrinter().attr(a)
