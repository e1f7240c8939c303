"""Declarative text forms: an op's custom syntax as one format string, read by one generic
parser and one generic printer.

The language follows MLIR ODS ``assemblyFormat`` (mlir.llvm.org/docs/DefiningDialects/
Operations/#declarative-assembly-format; StableHLO's formats in StablehloOps.td, its
custom directives in StablehloOps.cpp / AssemblyFormat.cpp); the code is hlorun's own.
A format is a sequence of elements separated by spaces:

- `` `lit` ``: punctuation or a keyword, written and expected as is;
- ``operands``: the op's operands, comma-separated (their number as opdecl declares);
- ``$name``: the attribute ``name``, spelled by its declared kind (``AttrDecl.kind``:
  ``[1, 2]`` for "i64_array", ``N`` for "i64", an enum's case...);
- ``attr-dict``: the attributes no other element spells, as ``{...}``;
- ``type(KIND)``: the type signature after ``:``; KIND is ``same``
  (custom<SameOperandsAndResultType>: one type when operands and result agree, else
  the functional type), ``functional``, ``select`` (custom<SelectOpType>), ``complex``
  (custom<ComplexOpType>), ``tuple`` (custom<TupleOpType>);
- ``custom<Name>``: a named directive (``DIRECTIVES``), the forms upstream writes in C++,
  each one object that parses and prints its syntax;
- ``( ... )?``: an optional group, printed when its anchor attribute (``$name^``) is
  present, parsed when the text starts with the group's leading literals.

Each element is one object with ``parse`` and ``print``; ``OpFormat`` runs them in order.
The printer gives None when an op's IR does not fit its form (the generic form is then
written); the parser builds exactly the Operation the generic form gives (the spelled
attributes as properties).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from . import lexer as lx
from .ir import (
    ArrayAttr,
    Attribute,
    BoolAttr,
    ComplexType,
    DenseArrayAttr,
    DotAlgorithm,
    DotDimensionNumbers,
    EnumAttr,
    IntegerAttr,
    IntegerType,
    Operation,
    StringAttr,
    TensorType,
    TupleType,
    Type,
)
from .op_syntax import OpParser, sort_attrs
from .opdecl import OP_DECLS, AttrDecl, OpDecl
from .printer_core import BasePrinter, _ints, _names, escape_string
from .type_syntax import I64

I32 = IntegerType(32)
UI64 = IntegerType(64, "unsigned")
_KEYWORD = re.compile(r"[A-Za-z_][A-Za-z0-9_$]*\Z")
# after a keyword in a type list: `name =` (but not `==`) starts the next item, not a type
_ASSIGNED = re.compile(r"\s*=(?!=)")


# ---- parse and print state ------------------------------------------------------------


@dataclass
class ParseState:
    """What a format's elements read: operand names, spelled attributes, the dictionary
    and the type signature."""

    p: OpParser
    decl: OpDecl
    start: int
    operands: list[str] = field(default_factory=list)
    attrs: list[tuple[str, Attribute]] = field(default_factory=list)
    dict_attrs: tuple = ()
    types: tuple[tuple[Type, ...], tuple[Type, ...] | None] | None = None
    type_kind: str = "same"


@dataclass
class PrintState:
    """What a format's elements write: text pieces (``None`` once the op does not fit)."""

    p: BasePrinter
    op: Operation
    consumed: frozenset[str]
    pieces: list[str] = field(default_factory=list)


# ---- attribute values by declared kind --------------------------------------------------


def i64_array(a: Attribute | None) -> tuple[int, ...] | None:
    """The values of an ``array<i64: ...>`` attribute, else None."""
    if (
        isinstance(a, DenseArrayAttr)
        and isinstance(a.element_type, IntegerType)
        and a.element_type.width == 64
        and a.element_type.signedness == "signless"
    ):
        return tuple(int(v) for v in a.values)
    return None


def _typed_int(a: Attribute | None, width: int) -> int | None:
    """The value of ``N : i<width>``, else None."""
    if (
        isinstance(a, IntegerAttr)
        and isinstance(a.type, IntegerType)
        and a.type.width == width
        and a.type.signedness == "signless"
    ):
        return a.value
    return None


def enum_case(a: Attribute | None, kind: str) -> str | None:
    """The case of a short-form ``#stablehlo<kind CASE>`` enum whose case is a keyword."""
    if (
        isinstance(a, EnumAttr)
        and a.dialect == "stablehlo"
        and a.kind == kind
        and a.short
        and _KEYWORD.match(a.value)
    ):
        return a.value
    return None


def _precision_list(a: Attribute | None) -> list[str] | None:
    if not isinstance(a, ArrayAttr):
        return None
    out = []
    for e in a.elements:
        v = enum_case(e, "precision")
        if v is None:
            return None
        out.append(v)
    return out


def value_text(p: BasePrinter, a: Attribute, kind: str) -> str | None:
    """An attribute's text in a custom form, by its opdecl kind (None: it does not fit)."""
    if kind == "i64_array":
        ints = i64_array(a)
        return None if ints is None else _ints(ints)
    if kind in ("i64", "i32"):
        n = _typed_int(a, int(kind[1:]))
        return None if n is None else str(n)
    if kind == "ui64":
        if isinstance(a, IntegerAttr) and a.type == UI64:
            return str(a.value) if 0 <= a.value < 1 << 64 else None
        return None
    if kind.startswith("enum:"):
        case = enum_case(a, kind[5:])
        return None if case is None else p.enum_gap + case
    if kind == "string":
        return escape_string(a.value) if isinstance(a, StringAttr) else None
    if kind == "bool":
        return ("true" if a.value else "false") if isinstance(a, BoolAttr) else None
    if kind == "precision_config":
        prec = _precision_list(a)
        return None if prec is None else "[" + ", ".join(prec) + "]"
    if kind == "dot_algorithm":
        return p._dot_algorithm_body(a) if isinstance(a, DotAlgorithm) else None
    raise ValueError(f"no custom-form syntax for attribute kind {kind!r}")


def parse_value(p: OpParser, a: AttrDecl) -> Attribute:
    """An attribute's custom-form text, by its opdecl kind (``value_text`` read back)."""
    c = p.c
    kind = a.kind
    if kind == "i64_array":
        return DenseArrayAttr(I64, p.int_list())
    if kind in ("i64", "i32"):
        return IntegerAttr(p.integer(), I64 if kind == "i64" else I32)
    if kind == "ui64":
        m = c.match(lx.INTEGER_RE)
        if m is None:
            raise c.error(f"expected an integer for '{a.name}', found {c.describe()}")
        text = m.group(0)
        value = int(text, 0) if "x" in text else int(text)
        if not 0 <= value < 1 << 64:
            raise c.error(f"integer value {value} does not fit in ui64", m.start())
        return IntegerAttr(value, UI64)
    if kind.startswith("enum:"):
        w = c.keyword()
        if w is None:
            raise p.error(f"expected a {kind[5:]} value, found {c.describe()}")
        return EnumAttr("stablehlo", kind[5:], w, True)
    if kind == "string":
        s = c.string()
        if s is None:
            raise p.error(f"expected a string for '{a.name}'")
        return StringAttr(s)
    if kind == "bool":
        w = c.keyword()
        if w not in ("true", "false"):
            raise p.error(f"expected true or false for '{a.name}'")
        return BoolAttr(w == "true")
    if kind == "precision_config":
        c.expect("[")
        items: list[Attribute] = []
        if not c.accept("]"):
            while True:
                w = c.keyword()
                if w is None:
                    raise p.error(
                        f"expected a precision (DEFAULT, HIGH, HIGHEST), found {c.describe()}"
                    )
                items.append(EnumAttr("stablehlo", "precision", w, True))
                if c.accept("]"):
                    break
                c.expect(",", "or ']' in precision list")
        return ArrayAttr(tuple(items))
    if kind == "dot_algorithm":
        start = c.pos
        c.expect("<")
        return p.parse_dot_algorithm_body(start)
    raise ValueError(f"no custom-form syntax for attribute kind {kind!r}")


# ---- type signatures --------------------------------------------------------------------


def parse_signature(p: OpParser) -> tuple[tuple[Type, ...], tuple[Type, ...] | None]:
    """After ``:``: ``(a, b) -> c``, ``a, b -> c``, ``a -> (b, c)`` or ``a, b``."""
    c = p.c
    if c.peek() == "(":
        save = c.pos
        ins = p._type_list_parens()
        if c.accept("->"):
            return ins, p._result_types()
        c.pos = save
    types = [p.parse_type()]
    while True:
        save = c.pos
        if not c.accept(","):
            break
        c.skip()
        m = lx.KEYWORD_RE.match(c.text, c.pos)
        if c.text.startswith("%", c.pos) or (m and _ASSIGNED.match(c.text, m.end())):
            c.pos = save
            break
        types.append(p.parse_type())
    if c.accept("->"):
        return tuple(types), p._result_types()
    if c.accept_keyword("to"):  # casts: `: a to b`
        return tuple(types), (p.parse_type(),)
    return tuple(types), None


def n_results(defs) -> int:
    return sum(1 if k is None else k for _, k in defs)


def _with_elem(t: Type, elem: Type) -> Type:
    if isinstance(t, TensorType):
        return TensorType(t.shape, elem, t.encoding)
    return elem


def assign_types(p: OpParser, opnames: list[str], defs, ins, outs, start: int, kind: str = "same"):
    """Operands and results of a custom form from its signature: a functional type
    gives both; one type is every operand's and result's (``same``), or stands for them
    as custom<SelectOpType> / <TupleOpType> / <ComplexOpType> say."""
    n_res = n_results(defs)
    nops = len(opnames)
    if outs is not None:
        return p.make_operands(opnames, ins, start), p.make_results(defs, outs, start)
    if kind == "select" and len(ins) == 2 and nops == 3:
        pred, t = ins
        return p.make_operands(opnames, (pred, t, t), start), p.make_results(
            defs, [t] * n_res, start
        )
    if kind == "tuple" and len(ins) == 1 and isinstance(ins[0], TupleType):
        tt = ins[0]
        return p.make_operands(opnames, tt.types, start), p.make_results(defs, [tt] * n_res, start)
    if kind in ("complex", "real") and len(ins) == 1:
        t = ins[0]
        et = t.element_type if isinstance(t, TensorType) else t
        part = _with_elem(t, et.element_type if isinstance(et, ComplexType) else et)
        if kind == "complex":  # the result type: the operands are its real form
            return p.make_operands(opnames, [part] * nops, start), p.make_results(
                defs, [t] * n_res, start
            )
        return p.make_operands(opnames, [t] * nops, start), p.make_results(
            defs, [part] * n_res, start
        )
    if len(ins) == 1:
        t = ins[0]
        return p.make_operands(opnames, [t] * nops, start), p.make_results(defs, [t] * n_res, start)
    if len(ins) == nops and n_res in (0, nops):
        return p.make_operands(opnames, ins, start), p.make_results(
            defs, ins if n_res else (), start
        )
    if nops == 0 and len(ins) == n_res:
        return (), p.make_results(defs, ins, start)
    raise p.error(
        f"cannot match the type signature ({len(ins)} types) to {nops} operands "
        f"and {n_res} results",
        start,
    )


# ---- elements ----------------------------------------------------------------------------


class Element:
    """One element of a format: parses and prints its piece of the syntax."""

    spells: tuple[str, ...] = ()  # the attributes it writes (left out of attr-dict)
    anchor: str | None = None  # `$name^`: the attribute whose presence prints a group

    def parse(self, st: ParseState) -> None:
        raise NotImplementedError

    def print(self, st: PrintState) -> str | None:
        """The element's text ("" for nothing), None when the op does not fit."""
        raise NotImplementedError


@dataclass
class Literal(Element):
    text: str

    def parse(self, st: ParseState) -> None:
        c = st.p.c
        if _KEYWORD.match(self.text):
            c.expect_keyword(self.text)
        else:
            c.expect(self.text)

    def accepts(self, st: ParseState) -> bool:
        """Whether the text continues with this literal (consumed if so)."""
        c = st.p.c
        return c.accept_keyword(self.text) if _KEYWORD.match(self.text) else c.accept(self.text)

    def print(self, st: PrintState) -> str | None:
        return self.text


@dataclass
class Operands(Element):
    """All operands, comma-separated; as many as the declaration's ``operands`` allow."""

    fixed: int
    variadic: bool

    def parse(self, st: ParseState) -> None:
        p = st.p
        c = p.c
        if not c.text.startswith("%", c.skip()):
            return
        st.operands.append(p.value_use())
        while True:
            save = c.pos
            if not c.accept(","):
                return
            if not c.text.startswith("%", c.skip()):
                c.pos = save
                return
            st.operands.append(p.value_use())

    def print(self, st: PrintState) -> str | None:
        n = len(st.op.operands)
        if n < self.fixed or (n > self.fixed and not self.variadic):
            return None
        return _names(st.op.operands)


@dataclass
class AttrValue(Element):
    """``$name``: one declared attribute, spelled by its kind."""

    decl: AttrDecl
    is_anchor: bool = False

    def __post_init__(self) -> None:
        self.spells = (self.decl.name,)
        self.anchor = self.decl.name if self.is_anchor else None

    def parse(self, st: ParseState) -> None:
        st.attrs.append((self.decl.name, parse_value(st.p, self.decl)))

    def print(self, st: PrintState) -> str | None:
        a = st.op.attr(self.decl.name)
        return None if a is None else value_text(st.p, a, self.decl.kind)


class AttrDict(Element):
    def parse(self, st: ParseState) -> None:
        if st.p.c.peek() == "{":
            st.dict_attrs = tuple(st.dict_attrs) + tuple(st.p.parse_attr_dict())

    def print(self, st: PrintState) -> str | None:
        return st.p.attr_dict(st.op, st.consumed).lstrip()


@dataclass
class Types(Element):
    """``type(KIND)``: the signature after ``:`` (module docstring)."""

    kind: str

    def parse(self, st: ParseState) -> None:
        st.types = parse_signature(st.p)
        st.type_kind = self.kind

    def print(self, st: PrintState) -> str | None:
        p, op = st.p, st.op
        kind = self.kind
        if kind == "functional":
            return p.functional(op)
        if len(op.results) != 1:
            return None
        res = op.results[0].type
        if kind in ("same", "real"):  # real / imag: parsed as custom<ComplexOpType>
            return p.same_type(op)
        if kind == "select":
            if len(op.operands) == 3 and op.operands[1].type == res == op.operands[2].type:
                return f"{p.type(op.operands[0].type)}, {p.type(res)}"
            return p.functional(op)
        if kind == "complex":
            if (
                isinstance(res, TensorType)
                and isinstance(res.element_type, ComplexType)
                and all(
                    v.type == TensorType(res.shape, res.element_type.element_type, res.encoding)
                    for v in op.operands
                )
            ):
                return p.type(res)
            return p.functional(op)
        if kind == "tuple":
            if isinstance(res, TupleType) and tuple(res.types) == op.operand_types:
                return p.type(res)
            return None
        raise AssertionError(kind)


@dataclass
class OptionalGroup(Element):
    """``( ... )?``: printed when its anchor attribute is present; parsed when the text
    starts with its leading literals."""

    elements: tuple[Element, ...]

    def __post_init__(self) -> None:
        self.spells = tuple(n for e in self.elements for n in e.spells)
        anchors = [e.anchor for e in self.elements if e.anchor is not None]
        if len(anchors) != 1:
            raise ValueError("an optional group needs one anchor `$name^`")
        self.anchor = anchors[0]
        self.lead: list[Literal] = []
        for e in self.elements:
            if not isinstance(e, Literal):
                break
            self.lead.append(e)
        if not self.lead:
            raise ValueError("an optional group starts with a literal")

    def parse(self, st: ParseState) -> None:
        c = st.p.c
        save = c.pos
        for lit in self.lead:
            if not lit.accepts(st):
                c.pos = save
                return
        for e in self.elements[len(self.lead) :]:
            e.parse(st)

    def print(self, st: PrintState) -> str | None:
        if st.op.attr(self.anchor or "") is None:
            return ""
        return _join([e.print(st) for e in self.elements])


# ---- named directives (upstream's C++ custom<...> parsers and printers) ----------------


class SliceRanges(Element):
    """custom<SliceRanges>: `[start:limit(:stride)?, ...]`, the stride left out when 1."""

    spells = ("start_indices", "limit_indices", "strides")

    def parse(self, st: ParseState) -> None:
        p = st.p
        c = p.c
        c.expect("[", "for slice ranges")
        starts: list[int] = []
        limits: list[int] = []
        strides: list[int] = []
        if not c.accept("]"):
            while True:
                starts.append(p.integer())
                c.expect(":")
                limits.append(p.integer())
                strides.append(p.integer() if c.accept(":") else 1)
                if c.accept("]"):
                    break
                c.expect(",", "or ']' in slice ranges")
        st.attrs.extend(
            (name, DenseArrayAttr(I64, tuple(v)))
            for name, v in zip(self.spells, (starts, limits, strides))
        )

    def print(self, st: PrintState) -> str | None:
        start, limit, strides = (i64_array(st.op.attr(n)) for n in self.spells)
        if start is None or limit is None or strides is None:
            return None
        if not len(start) == len(limit) == len(strides):
            return None
        return (
            "["
            + ", ".join(
                f"{a}:{b}" + (f":{c}" if c != 1 else "") for a, b, c in zip(start, limit, strides)
            )
            + "]"
        )


class ExponentMantissa(Element):
    """custom<ExponentMantissa>: `e8m10` (exponent_bits, mantissa_bits)."""

    spells = ("exponent_bits", "mantissa_bits")

    def parse(self, st: ParseState) -> None:
        p = st.p
        start = p.c.pos
        m = re.fullmatch(r"e([0-9]+)m([0-9]+)", p.c.keyword() or "")
        if m is None:
            raise p.error("expected a format like e8m10", start)
        st.attrs.append(("exponent_bits", IntegerAttr(int(m.group(1)), I32)))
        st.attrs.append(("mantissa_bits", IntegerAttr(int(m.group(2)), I32)))

    def print(self, st: PrintState) -> str | None:
        e = _typed_int(st.op.attr("exponent_bits"), 32)
        m = _typed_int(st.op.attr("mantissa_bits"), 32)
        if e is None or m is None or e < 0 or m < 0:
            return None
        return f"e{e}m{m}"


class DotDimensions(Element):
    """custom<DotDimensionNumbers>: `(batching_dims = [..] x [..], )? contracting_dims =
    [..] x [..]` (the batching part only when either side has one)."""

    spells = ("dot_dimension_numbers",)

    def parse(self, st: ParseState) -> None:
        p = st.p
        c = p.c
        pairs: dict[str, tuple[tuple[int, ...], tuple[int, ...]]] = {}
        while True:
            key = c.keyword()
            if key not in ("batching_dims", "contracting_dims") or key in pairs:
                raise p.error(f"expected batching_dims or contracting_dims, found {key!r}")
            c.expect("=")
            lhs = p.int_list()
            c.expect_keyword("x")
            pairs[key] = (lhs, p.int_list())
            save = c.pos
            if not c.accept(","):
                break
            m = lx.KEYWORD_RE.match(c.text, c.skip())
            if m is None or m.group(0) not in ("batching_dims", "contracting_dims"):
                c.pos = save
                break
        b = pairs.get("batching_dims", ((), ()))
        k = pairs.get("contracting_dims", ((), ()))
        st.attrs.append(("dot_dimension_numbers", DotDimensionNumbers(b[0], b[1], k[0], k[1])))

    def print(self, st: PrintState) -> str | None:
        dn = st.op.attr("dot_dimension_numbers")
        if not isinstance(dn, DotDimensionNumbers):
            return None
        s = ""
        if dn.lhs_batching_dimensions or dn.rhs_batching_dimensions:
            s = (
                f"batching_dims = {_ints(dn.lhs_batching_dimensions)} x "
                f"{_ints(dn.rhs_batching_dimensions)}, "
            )
        return (
            f"{s}contracting_dims = {_ints(dn.lhs_contracting_dimensions)} x "
            f"{_ints(dn.rhs_contracting_dimensions)}"
        )


DIRECTIVES: dict[str, Callable[[], Element]] = {
    "SliceRanges": SliceRanges,
    "ExponentMantissa": ExponentMantissa,
    "DotDimensionNumbers": DotDimensions,
}


# ---- formats -------------------------------------------------------------------------------

# pieces written right after the previous one (those starting so, and a `[` literal),
# and pieces after which the next follows at once
_GLUE_START = (",", "]", ")")
_GLUE_AFTER = ("[", "(")


def _join(pieces: Sequence[str | None]) -> str | None:
    out = ""
    for s in pieces:
        if s is None:
            return None
        if not s:
            continue
        if out and not s.startswith(_GLUE_START) and s != "[" and not out.endswith(_GLUE_AFTER):
            out += " "
        out += s
    return out


_TOKEN = re.compile(
    r"\s*(?:`([^`]+)`|(\$[A-Za-z_][A-Za-z0-9_]*\^?)|type\(([a-z]+)\)|custom<([A-Za-z]+)>"
    r"|(attr-dict|operands)|(\()|(\)\?))"
)


def compile_format(decl: OpDecl) -> OpFormat:
    """The elements of ``decl.format`` (a ValueError names what does not read)."""
    text = decl.format or ""
    stack: list[list[Element]] = [[]]
    pos = 0
    while text[pos:].strip():
        m = _TOKEN.match(text, pos)
        if m is None:
            raise ValueError(f"{decl.name}: cannot read format at {text[pos:]!r}")
        pos = m.end()
        lit, var, types, custom, word, open_, close = m.groups()
        el: Element
        if lit is not None:
            el = Literal(lit)
        elif var is not None:
            a = decl.attr(var[1:].rstrip("^"))
            if a is None:
                raise ValueError(f"{decl.name}: format names undeclared attribute {var}")
            el = AttrValue(a, var.endswith("^"))
        elif types is not None:
            el = Types(types)
        elif custom is not None:
            el = DIRECTIVES[custom]()
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
            group = stack.pop()
            el = OptionalGroup(tuple(group))
        stack[-1].append(el)
    if len(stack) != 1:
        raise ValueError(f"{decl.name}: unclosed `(` in format")
    return OpFormat(decl, tuple(stack[0]))


@dataclass
class OpFormat:
    """One op's compiled format: its parser and its printer."""

    decl: OpDecl
    elements: tuple[Element, ...]

    def __post_init__(self) -> None:
        self.spells = frozenset(n for e in self.elements for n in e.spells)

    def parse(self, p: OpParser, name: str, defs, start: int) -> Operation:
        st = ParseState(p, self.decl, start)
        for e in self.elements:
            e.parse(st)
        if st.types is None:
            operands = p.operand_types_known(st.operands, start)
            results = p.make_results(defs, (), start)
        else:
            ins, outs = st.types
            operands, results = assign_types(p, st.operands, defs, ins, outs, start, st.type_kind)
        props = frozenset(k for k, _ in st.attrs)
        return Operation(
            name,
            operands,
            results,
            sort_attrs(tuple(st.attrs) + tuple(st.dict_attrs)),
            (),
            (),
            props,
            None,
            p.c.location(start),
        )

    def print(self, p: BasePrinter, op: Operation, depth: int) -> str | None:
        if op.regions or len(op.results) != len(self.decl.results):
            return None
        st = PrintState(p, op, self.spells)
        body = _join([e.print(st) for e in self.elements])
        if body is None:
            return None
        return f"{op.name} {body}" if body else op.name


def _formats() -> tuple[dict[str, Callable[..., Operation]], dict[str, Callable[..., Any]]]:
    parse: dict[str, Callable[..., Operation]] = {}
    print_: dict[str, Callable[..., Any]] = {}
    for name, decl in OP_DECLS.items():
        if decl.format is not None:
            f = compile_format(decl)
            parse[name] = f.parse
            print_[name] = f.print
    return parse, print_


# The declarative forms, by op name (grammar.Parser and printer._Printer merge them
# with the hand-written families not moved yet).
PARSE_FORMS: Mapping[str, Callable[..., Operation]]
PRINT_FORMS: Mapping[str, Callable[..., Any]]
PARSE_FORMS, PRINT_FORMS = _formats()
