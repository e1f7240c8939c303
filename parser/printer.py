"""MLIR text from hlorun's IR: ``print_module(module) -> str``.

The printer writes each op in the pretty (custom) form that ``stablehlo-opt`` uses where
StableHLO defines one (StablehloOps.td assembly formats, AssemblyFormat.cpp custom
directives) and the op's IR fits that form exactly; otherwise it writes MLIR's generic
form ``"dialect.op"(%a) <{props}> ({regions}) {attrs} : (t) -> t``, which is always
correct.  Everything the IR carries is written back (types, attributes, ``loc(...)``,
aliases, resources), so that ``parse_module(print_module(m)) == m``.

Numbers follow MLIR's AsmPrinter: floats as ``1.000000e+00`` when that reads back to the
same bits, else with enough digits to do so, and NaN / infinity as the bit pattern
``0x7FC00000``; integers in decimal (``i1`` as ``true`` / ``false``).

Layout: ``printer_core`` (generic syntax, ``BasePrinter``), ``number_text`` (floats and
dense data), ``op_format`` (the pretty forms opdecl and mixed_ops declare as format
strings; a plug-in dialect's join through parser/dialects.py); this module joins them.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable, Sequence

from .dialects import DialectForms
from .ir import (
    Attribute,
    DictionaryAttr,
    EnumAttr,
    Function,
    LocationAttr,
    Module,
    Operation,
    StringAttr,
    Type,
    TypeExtensions,
)
from .mixed_ops import function_op

# Re-exported (``import x as x``) for parser/vhlo, whose printer extends this one.
from .number_text import _format_floats as _format_floats
from .number_text import _hex_blob as _hex_blob
from .number_text import format_float as format_float
from .op_format import FUNCTION_FORM, MODULE_FORM, print_forms
from .opdecl import OP_DECLS
from .printer_core import BasePrinter
from .printer_core import _result_list as _result_list
from .printer_core import escape_string as escape_string

__all__ = [
    "CanonicalPrinter",
    "print_attribute",
    "print_module",
    "print_operation",
    "print_type",
]


# every pretty printer by op name: the declared formats (opdecl, mixed_ops, op_format;
# a plug-in dialect's load on first use)
_PRETTY: dict[str, Callable[..., str | None]] = DialectForms(print_forms(), "PRINT_FORMS")


class _Printer(BasePrinter):
    """The module printer: generic syntax plus every op family's pretty forms."""

    custom_forms = _PRETTY

    def module_lines(self, m: Module) -> list[str]:
        return MODULE_FORM.print_module(self, m)

    def function(self, f: Function, depth: int) -> str:
        return FUNCTION_FORM.print_function(self, f, depth)


class CanonicalPrinter(_Printer):
    """What ``stablehlo-opt`` prints (MLIR's canonical output), not the source's spelling:

    - MLIR's value and block names (``ssa_names``: ``%0``, ``%arg0``, ``%c``, ``%cst_0``,
      ``%iterArg``, ``^bb1``);
    - the ``module { }`` wrapper always; no locations (``stablehlo-opt`` without
      ``--mlir-print-debuginfo``), no alias definitions (the values are written in place);
    - dictionaries sorted by name (MLIR's DictionaryAttr keeps them so), empty argument
      and result dictionaries left out;
    - in a custom form's attribute dictionary, an attribute holding its .td
      ``DefaultValued`` default is left out (ODS-generated printers; the defaults are
      ``AttrDecl.ods_default`` in opdecl.py);
    - the op's dialect prefix is left out where it is the default dialect (``return``,
      ``call`` directly in a ``func.func``: OpAsmOpInterface::getDefaultDialect of
      FuncOp; ops in any other op's regions keep it, AsmPrinter's defaultDialectStack);
    - bounds as ``#stablehlo.bounds<16, ?>``, enums as their dialect prints them,
      elements attributes of more than ``hex_above`` elements as hex.

    ``generic=True`` writes every op, and the module, in MLIR's generic form
    (``--mlir-print-op-generic``: values numbered, no op-given names)."""

    canonical = True
    enum_gap = ""

    def __init__(self, *, generic: bool = False, hex_above: int | None = 100) -> None:
        super().__init__(hex_above)
        self.generic_ops = generic
        self._dialects = [""]
        self._attr_dispatch[EnumAttr] = _canonical_enum
        self._attr_dispatch[TypeExtensions] = _bounds

    # ---- spelling ------------------------------------------------------------------

    @staticmethod
    def _loc(loc: LocationAttr | None) -> str:
        return ""

    def dict(self, entries: Sequence[tuple[str, Attribute]]) -> str:
        return super().dict(sorted(entries, key=lambda kv: kv[0]))

    def _opt_dict(self, attrs: Sequence[DictionaryAttr | None], i: int) -> str:
        d = attrs[i] if i < len(attrs) else None
        return "" if d is None or not d.entries else " " + self.dict(d.entries)

    def attr_dict(self, op: Operation, consumed: Sequence[str] | frozenset[str] = ()) -> str:
        decl = OP_DECLS.get(op.name)
        rest = []
        for k, v in op.attributes:
            if k in consumed:
                continue
            a = decl.attr(k) if decl is not None else None
            if a is not None and a.ods_default is not None and self.attr(v) == a.ods_default:
                continue
            rest.append((k, v))
        return " " + self.dict(rest) if rest else ""

    def generic(self, op: Operation, depth: int, *, name: str | None = None) -> str:
        """MLIR's generic form: the inherent attributes (the op's declared ones, opdecl;
        else those the source wrote so) as properties ``<{...}>``, the populated
        defaults among them (``AttrDecl.ods_populated``) written when absent."""
        attrs = dict(op.attributes)
        decl = OP_DECLS.get(op.name)
        for a in decl.attrs if decl is not None else ():
            if a.ods_populated and a.name not in attrs and a.ods_default is not None:
                attrs[a.name] = _default_attr(a.ods_default)
        if len(attrs) != len(op.attributes):
            op = _with_properties(dataclasses.replace(op, attributes=tuple(attrs.items())))
        return super().generic(op, depth, name=name)

    # ---- module, functions, ops ----------------------------------------------------

    def module(self, m: Module) -> str:
        from .ssa_names import rename_module  # canonical printing only: cheap startup

        m = rename_module(m, asm_names=not self.generic_ops)
        m = dataclasses.replace(m, aliases=(), location=None, implicit=False)
        if not self.generic_ops:
            return super().module(m)
        lines = [
            self.function(x, 1) if isinstance(x, Function) else self.operation(x, 1) for x in m.body
        ]
        attrs = list(m.attributes)
        if m.name is not None:
            attrs.append(("sym_name", StringAttr(m.name)))
        tail = "}) " + self.dict(attrs) + " : () -> ()" if attrs else "}) : () -> ()"
        out = "\n".join(['"builtin.module"() ({', *lines, tail]) + "\n"
        if m.resources:
            out += self._resources(m.resources) + "\n"
        return out

    def function(self, f: Function, depth: int) -> str:
        if self.generic_ops:
            return self.operation(function_op(f), depth)
        self._dialects.append("func")
        try:
            return super().function(f, depth)
        finally:
            self._dialects.pop()

    def operation(self, op: Operation, depth: int) -> str:
        op = _with_properties(op)
        text = None
        self._dialects.append("")
        try:
            pretty = None if self.generic_ops else self.custom_forms.get(op.name)
            if pretty is not None and not op.successors:
                text = pretty(self, op, depth)
                default = self._dialects[-2]
                if text is not None and default and op.name.count(".") == 1:
                    text = text.removeprefix(default + ".")
            if text is None:
                text = self.generic(op, depth)
        finally:
            self._dialects.pop()
        return "  " * depth + _result_list(op.results) + text


def _with_properties(op: Operation) -> Operation:
    """``op`` with its inherent attributes marked as properties (MLIR keeps them so,
    however the source or the bytecode wrote them)."""
    props = frozenset(k for k, _ in op.attributes if k in op.property_names or _inherent(op, k))
    return op if props == op.property_names else dataclasses.replace(op, property_names=props)


# AttrSizedOperandSegments / AttrSizedResultSegments: always properties in MLIR.
_SEGMENT_SIZES = frozenset({"operandSegmentSizes", "resultSegmentSizes"})


def _inherent(op: Operation, name: str) -> bool:
    """Whether ``name`` is an inherent attribute of ``op`` (a property): one opdecl
    declares (save the discardable ones it lists for an op's readers, which MLIR names
    with their dialect: ``mhlo.*``), else an attribute of the op's VHLO counterpart
    (VhloOps.td lists every StableHLO op's attributes, the obsolete ops' too), or of
    the VHLO op itself."""
    if name in op.property_names or name in _SEGMENT_SIZES:
        return True  # read as a property (bytecode), or the segment sizes ODS stores so
    decl = OP_DECLS.get(op.name)
    if decl is not None and decl.attr(name) is not None:
        return "." not in name
    # imported here: the VHLO op table loads only to print an attribute no opdecl
    # declares (startup, issue 19)
    from .vhlo.table import op_info, vhlo_op_for

    if op.dialect == "stablehlo":
        info = vhlo_op_for(op.name)
    elif op.dialect == "vhlo":
        info = op_info(op.name.partition(".")[2])
    else:
        return False
    return info is not None and name in info.attributes


@functools.cache
def _default_attr(text: str) -> Attribute:
    """The attribute an ``ods_default`` text spells (read by hlorun's parser)."""
    from .grammar import parse_module

    op = parse_module(f'"x.y"() {{d = {text}}} : () -> ()').body[0]
    assert isinstance(op, Operation)
    return op.attributes[0][1]


# Enum attributes whose dialect prints them `#dialect.kind<CASE>` (an assemblyFormat of
# `<` $value `>`: StablehloEnums.td, ResultAccuracyModeAttr); the others print
# `#dialect<kind CASE>` (EnumAttr's default format).
_LONG_ENUMS = frozenset({("stablehlo", "result_accuracy_mode")})


def _canonical_enum(a: EnumAttr) -> str:
    if (a.dialect, a.kind) in _LONG_ENUMS:
        return f"#{a.dialect}.{a.kind}<{a.value}>"
    return f"#{a.dialect}<{a.kind} {a.value}>"


def _bounds(a: TypeExtensions) -> str:
    """StablehloAttrs.td TypeExtensions: `#stablehlo.bounds<16, ?>`."""
    return "#stablehlo.bounds<" + ", ".join("?" if b is None else str(b) for b in a.bounds) + ">"


# --------------------------------------------------------------------------------------
# Public API
# --------------------------------------------------------------------------------------


def print_module(
    module: Module,
    *,
    hex_above: int | None = None,
    canonical: bool = False,
    generic: bool = False,
) -> str:
    """The MLIR text of ``module``.

    By default the text is faithful to the module: its names, locations, aliases and
    attributes as they are, so that ``parse_module(print_module(m)) == m``.  A
    ``dense<...>`` constant is written as a ``"0x..."`` blob when its ``hex`` flag says
    the text had it so.  ``hex_above=N`` also writes every non-splat constant of more than
    N elements that way, as stablehlo-opt does with N = 100 (MLIR's default for
    ``--mlir-print-elementsattrs-with-hex-if-larger``); the parsed-back attribute then
    has ``hex=True``, so that module no longer compares equal to the original.

    ``canonical=True`` writes what ``stablehlo-opt`` writes (``CanonicalPrinter``: MLIR's
    names, no locations, defaults left out...; ``hex_above`` defaults to 100 there);
    ``generic=True`` (canonical) is ``stablehlo-opt --mlir-print-op-generic``.
    """
    if canonical or generic:
        return CanonicalPrinter(
            generic=generic, hex_above=100 if hex_above is None else hex_above
        ).module(module)
    return _Printer(hex_above).module(module)


def print_operation(op: Operation, depth: int = 0) -> str:
    """The MLIR text of one operation (and its regions), indented ``depth`` levels."""
    return _Printer().operation(op, depth)


def print_type(t: Type) -> str:
    return _Printer().type(t)


def print_attribute(a: Attribute, *, canonical: bool = False) -> str:
    return (CanonicalPrinter() if canonical else _Printer()).attr(a)
