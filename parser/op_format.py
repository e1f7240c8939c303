"""Declarative text forms: an op's custom syntax as one format string, read by one generic
parser and one generic printer.

The language follows MLIR ODS ``assemblyFormat`` (mlir.llvm.org/docs/DefiningDialects/
Operations/#declarative-assembly-format; StableHLO's formats in StablehloOps.td, its
custom directives in StablehloOps.cpp / AssemblyFormat.cpp); the code is hlorun's own.
A format is a sequence of elements separated by spaces:

- `` `lit` ``: punctuation or a keyword, written and expected as is; the empty
  literal ````` `` ````` (ODS's) writes no space before the next element;
- ``operands``: the op's operands, comma-separated (their number as opdecl declares);
- ``$name``: the attribute ``name``, spelled by its declared kind (``AttrDecl.kind``:
  ``[1, 2]`` for "i64_array", ``N`` for "i64", an enum's case...); or, when the op
  declares no such attribute, its operand (group) ``name`` (``$dest``, ``$indices``);
- ``attr-dict``: the attributes no other element spells, as ``{...}``;
- ``type(KIND)``: the type signature after ``:``; KIND is ``same``
  (custom<SameOperandsAndResultType>: one type when operands and result agree, else
  the functional type), ``functional``, ``select`` (custom<SelectOpType>), ``complex``
  (custom<ComplexOpType>; ``real`` for real / imag), ``tuple``
  (custom<TupleOpType>), ``operands`` (the operands' types, comma-separated),
  ``results`` (the results' types, after ``type(operands)``: casts' `a to b`),
  ``result`` (`type($result)` of an op whose operands have its one result's type);
- ``custom<Name>``: a named directive (parser/format_directives.py and
  region_directives.py ``DIRECTIVES``, or a plug-in dialect's), the forms upstream
  writes in C++, each one object that parses and prints its syntax;
  ``custom<Name(opt, ...)>`` passes it options (``custom<Constant(scalars)>``),
  ``custom<Name>($a, $b)`` the attributes (or regions) it spells, and
  ``custom<Name>($a)^`` anchors an optional group on ``$a``;
- ``( ... )?``: an optional group, printed when its anchor is present (``$name^``: the
  attribute; ``type(operands)^``: any operand), parsed when the text starts with the
  group's leading literals.

Printed elements stand one space apart, except after `(` / `[` and before `,`, `)`,
`]` and a `(` / `[` literal (MLIR's generated printers space them so).

Each element is one object with ``parse`` and ``print``; ``OpFormat`` runs them in order.
The printer gives None when an op's IR does not fit its form (the generic form is then
written); the parser builds exactly the Operation the generic form gives (the spelled
attributes as properties).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, cast

from .format_codegen import compile_printer
from .format_directives import DIRECTIVES as _ATTRIBUTE_DIRECTIVES
from .format_elements import (
    AttrDict,
    AttrValue,
    Element,
    Literal,
    OperandGroup,
    Operands,
    OptionalGroup,
    ParseState,
    PrintState,
    Types,
    assign_types,
    render,
    spaced,
)
from .ir import Operation
from .mixed_ops import MIXED_OP_DECLS
from .op_syntax import OpParser, sort_attrs
from .opdecl import OP_DECLS, AttrDecl, OpDecl
from .region_directives import DIRECTIVES as _REGION_DIRECTIVES
from .region_directives import FunctionOp, ModuleOp

if TYPE_CHECKING:  # the printer loads only to print (startup)
    from .printer_core import BasePrinter

_TOKEN = re.compile(
    r"\s*(?:`([^`]*)`|(\$[A-Za-z_][A-Za-z0-9_]*\^?)|type\(([a-z]+)\)(\^?)"
    r"|custom<([A-Za-z]+)(?:\(([a-z, -]*)\))?>"
    r"(?:\((\$[A-Za-z_]\w*(?:\s*,\s*\$[A-Za-z_]\w*)*)\)(\^?))?"
    r"|(attr-dict|operands)|(\()|(\)\?))"
)


# The named directives (``custom<Name>``): name -> the Element class, built with the
# attributes (or regions) the directive spells, then its options.
DIRECTIVES: dict[str, Callable[..., Element]] = {**_ATTRIBUTE_DIRECTIVES, **_REGION_DIRECTIVES}


def compile_format(
    decl: OpDecl,
    directives: Mapping[str, Callable[..., Element]] = DIRECTIVES,
    kinds: Mapping[str, Callable[[AttrDecl, bool], Element]] | None = None,
) -> OpFormat:
    """The elements of ``decl.format`` (a ValueError names what does not read).

    A plug-in dialect (parser/dialects.py) compiles its ops' formats with its own
    ``directives`` (the core's and its own) and ``kinds``: the element spelling an
    attribute of a kind the core does not know, ``kinds[kind](attribute, is_anchor)``."""
    text = decl.format or ""
    stack: list[list[Element]] = [[]]
    pos = 0
    while text[pos:].strip():
        m = _TOKEN.match(text, pos)
        if m is None:
            raise ValueError(f"{decl.name}: cannot read format at {text[pos:]!r}")
        pos = m.end()
        lit, var, types, anchor, custom, options, args, custom_anchor, word, open_, close = (
            m.groups()
        )
        el: Element
        if lit is not None:
            el = Literal(lit)
        elif var is not None:
            a = decl.attr(var[1:].rstrip("^"))
            groups = [o.rstrip("*+") for o in decl.operands]
            if a is not None and kinds is not None and a.kind in kinds:
                el = kinds[a.kind](a, var.endswith("^"))
            elif a is not None:
                el = AttrValue(a, var.endswith("^"))
            elif var[1:] in groups:
                varying = [i for i, o in enumerate(decl.operands) if o.endswith(("*", "+"))]
                if len(varying) > 1:
                    raise ValueError(f"{decl.name}: {var} among several variadic groups")
                v = varying[0] if varying else None
                fewest = sum(not o.endswith("*") for o in decl.operands)
                el = OperandGroup(var[1:], groups.index(var[1:]), len(groups), v, fewest)
            else:
                raise ValueError(f"{decl.name}: format names undeclared attribute {var}")
        elif types is not None:
            el = Types(types, bool(anchor))
        elif custom is not None:
            if custom not in directives:
                raise ValueError(f"{decl.name}: unknown directive custom<{custom}>")
            names = [n.strip()[1:] for n in args.split(",")] if args else []
            opts = [o.strip() for o in options.split(",")] if options else []
            el = directives[custom](*names, *opts)
            el.bind(decl)
            if custom_anchor:
                el.anchor = names[0]
        elif word == "attr-dict":
            el = AttrDict()
        elif word == "operands":
            variadic = any(o.endswith(("*", "+")) for o in decl.operands)
            el = Operands(sum(not o.endswith("*") for o in decl.operands), variadic)
        elif open_:
            stack.append([])
            continue
        else:
            if len(stack) < 2:
                raise ValueError(f"{decl.name}: unbalanced `)?` in format")
            el = OptionalGroup(tuple(stack.pop()))
        stack[-1].append(el)
    if len(stack) != 1:
        raise ValueError(f"{decl.name}: unclosed `(` in format")
    if not any(e.writes_attributes for e in stack[0]):
        # an op's attributes the format does not spell would be lost in print
        raise ValueError(f"{decl.name}: a format needs attr-dict")
    return OpFormat(decl, tuple(stack[0]))


@dataclass
class OpFormat:
    """One op's compiled format: its parser and its printer."""

    decl: OpDecl
    elements: tuple[Element, ...]

    def __post_init__(self) -> None:
        self.spells = frozenset(n for e in self.elements for n in e.spells)
        self.regions = any(e.regions for e in self.elements)
        results = self.decl.results
        self.n_results = None if any(r.endswith(("*", "+")) for r in results) else len(results)
        self.pairs = spaced(self.elements, " ")
        self._compiled: Callable[..., str | None] | None = None

    def parse(self, p: OpParser, name: str, defs, start: int) -> Operation:
        """The op the text at the cursor spells (after its name)."""
        st = ParseState(p, name, self.decl, defs, start)
        for e in self.elements:
            e.parse(st)
            if st.whole is not None:
                return st.whole
        if st.values is not None:
            operands, results = st.values
        elif st.types is None:
            operands = p.operand_types_known(st.operands, start)
            results = p.make_results(defs, (), start)
        else:
            ins, outs = st.types
            operands, results = assign_types(p, st.operands, defs, ins, outs, start, st.type_kind)
        return Operation(
            name,
            operands,
            results,
            sort_attrs(tuple(st.attrs) + tuple(st.dict_attrs)),
            tuple(st.regions),
            (),
            frozenset(k for k, _ in st.attrs),
            None,
            p.c.location(start),
        )

    def print(self, p: BasePrinter, op: Operation, depth: int) -> str | None:
        """The op's text in this form, None when its IR does not fit the form."""
        if op.regions and not self.regions:
            return None
        if self.n_results is not None and len(op.results) != self.n_results:
            return None
        out = [op.name]
        return (
            "".join(out) if render(self.pairs, PrintState(p, op, self.spells, depth), out) else None
        )

    def printer(self) -> Callable[..., str | None]:
        """``print``, as format_codegen writes it out (generated on the first call)."""
        if self._compiled is None:
            self._compiled = compile_printer(
                self.pairs, self.spells, self.n_results, self.regions, self.decl.name
            )
        return self._compiled


# Names an op goes by where its dialect is the default one (func's, in a func.func:
# OpAsmOpInterface::getDefaultDialect): parsed as the full name.
ALIASES = {"call": "func.call", "return": "func.return"}


def _aliased(parse: Callable[..., Operation], full: str) -> Callable[..., Operation]:
    def parse_alias(p: OpParser, name: str, defs, start: int) -> Operation:
        return parse(p, full, defs, start)

    return parse_alias


def _formats() -> dict[str, OpFormat]:
    """Each declared op's compiled format (ops declared alike, the elementwise ones...,
    share one)."""
    out: dict[str, OpFormat] = {}
    compiled: dict[tuple, OpFormat] = {}
    for name, decl in (*OP_DECLS.items(), *MIXED_OP_DECLS.items()):
        if decl.format is not None:
            key = (decl.format, decl.attrs, decl.operands, decl.results, decl.prints_format)
            out[name] = compiled.get(key) or compiled.setdefault(key, compile_format(decl))
    return out


FORMATS: Mapping[str, OpFormat] = _formats()

# func.func's and builtin.module's forms: directives that read and write the module's
# ``Function`` and ``Module`` records, not Operations (grammar.py reads, printer.py
# writes through them)
FUNCTION_FORM = cast(FunctionOp, FORMATS["func.func"].elements[0])
MODULE_FORM = cast(ModuleOp, FORMATS["builtin.module"].elements[0])


def _parse_forms() -> dict[str, Callable[..., Operation]]:
    parse: dict[str, Callable[..., Operation]] = {n: f.parse for n, f in FORMATS.items()}
    for alias, full in ALIASES.items():
        if full in parse:
            parse[alias] = _aliased(parse[full], full)
    return parse


@functools.cache
def print_forms() -> dict[str, Callable[..., str | None]]:
    """The printed forms' generated printers by op name, ``fn(printer, op, depth)``:
    generated on the first call (printer.py's import; parsing never pays for them)."""
    return {name: f.printer() for name, f in FORMATS.items() if f.decl.prints_format}


# The form of an op with no declared one (parser/default_form.py), for any name.
parse_default = compile_format(
    OpDecl("", "", operands=("operands*",), results=("results*",), format="custom<KeywordItems>")
).parse

# The declarative forms' readers by op name (grammar.Parser's; a plug-in dialect's join
# them through parser/dialects.py, as its printers join ``print_forms()``).
PARSE_FORMS: Mapping[str, Callable[..., Operation]] = _parse_forms()
