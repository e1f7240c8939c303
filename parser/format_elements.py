"""The elements of parser/op_format.py's format language: literals, operands, attributes
by declared kind, the attribute dictionary, type signatures and optional groups, each
one object that parses and prints its piece of an op's text (``Element``), and the
parse / print state they share.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from . import lexer as lx
from .ir import (
    ArrayAttr,
    Attribute,
    BoolAttr,
    ComplexType,
    DenseArrayAttr,
    DotAlgorithm,
    EnumAttr,
    IntegerAttr,
    IntegerType,
    Operation,
    Region,
    StringAttr,
    SymbolRefAttr,
    TensorType,
    TupleType,
    Type,
    Value,
)
from .op_syntax import OpParser
from .opdecl import AttrDecl, OpDecl
from .type_syntax import I64

if TYPE_CHECKING:  # the printer loads only to print (startup: parsing needs none of it)
    from .printer_core import BasePrinter

I32 = IntegerType(32)
UI64 = IntegerType(64, "unsigned")
_KEYWORD = re.compile(r"[A-Za-z_][A-Za-z0-9_$]*\Z")
# after a keyword in a type list: `name =` (but not `==`) starts the next item, not a type
_ASSIGNED = re.compile(r"\s*=(?!=)")


# ---- parse and print state ------------------------------------------------------------


@dataclass(slots=True)
class ParseState:
    """What a format's elements read: operand names, spelled attributes, the dictionary,
    the type signature and regions (or the operands and results themselves, when a
    directive makes them: ``values``)."""

    p: OpParser
    name: str  # the op's name (a form may stand for several ops: constants)
    decl: OpDecl
    defs: list
    start: int
    operands: list[str] = field(default_factory=list)
    attrs: list[tuple[str, Attribute]] = field(default_factory=list)
    dict_attrs: tuple = ()
    types: tuple[tuple[Type, ...], tuple[Type, ...] | None] | None = None
    type_kind: str = "same"
    regions: list[Region] = field(default_factory=list)
    values: tuple[tuple[Value, ...], tuple[Value, ...]] | None = None
    whole: Operation | None = None  # the op itself (a form that reads the generic one)


@dataclass(slots=True)
class PrintState:
    """What a format's elements write from: the op, the attributes the format spells
    (left out of its attribute dictionary) and the op's nesting depth."""

    p: BasePrinter
    op: Operation
    consumed: frozenset[str]
    depth: int


# A piece of printed text that follows the previous one with no space (`(`, `[`).
GLUE = "\0"
# what a piece that follows the previous one at once starts with
_GLUE_START = frozenset((",", "]", ")", GLUE))
_GLUE_AFTER = ("[", "(")


def spaced(elements: Sequence[Element], first: str) -> tuple[tuple[str, Any], ...]:
    """Each element with what stands before its text: one space, except after a ``(`` /
    ``[`` literal or an empty one (``first`` before the first element; the empty
    literal itself stands for nothing); a literal as its text (``render``
    writes it as is), its space included or not as ``render`` would."""
    out: list[tuple[str, Any]] = []
    prev: Element | None = None
    glue = False
    for e in elements:
        if isinstance(e, Literal) and not e.text:  # ODS's `` `` ``: no space before the next
            glue = True
            continue
        if glue:
            sep, glue = "", False
        elif prev is None:
            sep = first
        else:
            sep = "" if isinstance(prev, Literal) and prev.text in _GLUE_AFTER else " "
        if isinstance(e, Literal):
            text = e.text
            out.append(("", text if text[0] in _GLUE_START or text in _GLUE_AFTER else sep + text))
        elif isinstance(e, OptionalGroup):
            e.inner = spaced(e.elements, sep)  # rendered in place when present
            out.append((sep, e))
        else:
            out.append((sep, e))
        prev = e
    return tuple(out)


def render(pairs: tuple[tuple[str, Any], ...], st: PrintState, out: list[str]) -> bool:
    """Append the elements' texts to ``out``, each after its space unless it starts with
    ``,``, ``)``, ``]`` or ``GLUE``; False when one does not fit (prints None).  (A
    literal's text, space included, is a string in ``pairs``: written as is.)"""
    for sep, e in pairs:
        cls = e.__class__
        if cls is str:
            out.append(e)
            continue
        if cls is OptionalGroup:
            if e.anchor_element.present(st.op) and not render(e.inner, st, out):
                return False
            continue
        s = e.print(st)
        if s is None:
            return False
        if s:
            c = s[0]
            if c in _GLUE_START:
                out.append(s[1:] if c == GLUE else s)
            else:
                out.append(sep)
                out.append(s)
    return True


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


def typed_int(a: Attribute | None, width: int) -> int | None:
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


def _i64_array_text(p: BasePrinter, a: Attribute) -> str | None:
    ints = i64_array(a)
    return None if ints is None else "[" + ", ".join(map(str, ints)) + "]"


def _int_text(width: int) -> Callable[[BasePrinter, Attribute], str | None]:
    def text(p: BasePrinter, a: Attribute) -> str | None:
        n = typed_int(a, width)
        return None if n is None else str(n)

    return text


def _ui64_text(p: BasePrinter, a: Attribute) -> str | None:
    if isinstance(a, IntegerAttr) and a.type == UI64:
        return str(a.value) if 0 <= a.value < 1 << 64 else None
    return None


def _enum_text(kind: str) -> Callable[[BasePrinter, Attribute], str | None]:
    def text(p: BasePrinter, a: Attribute) -> str | None:
        case = enum_case(a, kind)
        return None if case is None else p.enum_gap + case

    return text


def _precision_text(p: BasePrinter, a: Attribute) -> str | None:
    prec = _precision_list(a)
    return None if prec is None else "[" + ", ".join(prec) + "]"


# An attribute's text in a custom form by its opdecl kind: fn(printer, attribute) ->
# text, or None when the attribute does not fit the kind ("enum:<kind>": value_writer).
VALUE_TEXT: dict[str, Callable[[BasePrinter, Attribute], str | None]] = {
    "i64_array": _i64_array_text,
    "i64": _int_text(64),
    "i32": _int_text(32),
    "ui64": _ui64_text,
    "string": lambda p, a: p.attr(a) if isinstance(a, StringAttr) else None,
    "bool": lambda p, a: ("true" if a.value else "false") if isinstance(a, BoolAttr) else None,
    "precision_config": _precision_text,
    "dot_algorithm": lambda p, a: p._dot_algorithm_body(a) if isinstance(a, DotAlgorithm) else None,
    "symbol": lambda p, a: p.attr(a) if isinstance(a, SymbolRefAttr) else None,
}


def value_writer(kind: str) -> Callable[[BasePrinter, Attribute], str | None]:
    """``VALUE_TEXT``'s function for ``kind`` (a ValueError for a kind with no syntax)."""
    if kind.startswith("enum:"):
        return _enum_text(kind[5:])
    if kind not in VALUE_TEXT:
        raise ValueError(f"no custom-form syntax for attribute kind {kind!r}")
    return VALUE_TEXT[kind]


def parse_value(p: OpParser, a: AttrDecl) -> Attribute:
    """An attribute's custom-form text, by its opdecl kind (``VALUE_TEXT`` read back)."""
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
    if kind == "symbol":
        sym = p.parse_attribute()
        if not isinstance(sym, SymbolRefAttr):
            raise p.error("expected a symbol @name")
        return sym
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
    types = parse_type_list(p)
    if c.accept("->"):
        return types, p._result_types()
    if c.accept_keyword("to"):  # casts: `: a to b`
        return types, (p.parse_type(),)
    return types, None


def parse_type_list(p: OpParser) -> tuple[Type, ...]:
    """``a, b, ...``: one type or more, up to a ``,`` that starts an operand or a
    ``key = value`` item."""
    c = p.c
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
    return tuple(types)


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
    anchor: str | None = None  # `$name^`: what, present, prints the group it is in
    regions = False  # True for an element that reads and writes the op's regions
    # True for attr-dict, and for a directive that writes the op's other attributes
    writes_attributes = False

    def bind(self, decl: OpDecl) -> None:
        """Adapt to the op whose format holds the element (a directive shared by ops)."""

    def present(self, op: Operation) -> bool:
        """Whether the op has what this anchor stands for."""
        return False

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
        return GLUE + self.text if self.text in _GLUE_AFTER else self.text


def _value_uses(st: ParseState) -> None:
    """``%a, %b, ...`` when the text continues with a value (none, else): up to a ``,``
    that starts something else."""
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


@dataclass
class Operands(Element):
    """All operands, comma-separated; as many as the declaration's ``operands`` allow."""

    fixed: int
    variadic: bool

    parse = staticmethod(_value_uses)  # (no method frame: every op's form reads them)

    def print(self, st: PrintState) -> str | None:
        n = len(st.op.operands)
        if n < self.fixed or (n > self.fixed and not self.variadic):
            return None
        from .printer_core import _names

        return _names(st.op.operands)


@dataclass
class OperandGroup(Element):
    """``$name``: one operand the declaration names (``operands``), or the operands of
    its variadic group, comma-separated (a declaration has one variadic group at most:
    the groups before it take one operand each from the front, those after it from the
    back)."""

    name: str
    index: int  # the group's place among the declaration's operands
    groups: int  # how many groups the declaration has
    variadic: int | None  # the place of its variadic group, if any
    fewest: int  # the fewest operands the op has (a ``+`` group has one at least)

    def parse(self, st: ParseState) -> None:
        p = st.p
        if self.index != self.variadic:
            st.operands.append(p.value_use())
        else:
            _value_uses(st)

    def values(self, op: Operation) -> tuple[Value, ...] | None:
        """The operands of this group, None when the op has too few."""
        n = len(op.operands)
        if n < self.fewest or (self.variadic is None and n != self.fewest):
            return None
        i, v = self.index, self.variadic
        if v is None or i < v:
            return op.operands[i : i + 1]
        if i > v:
            return op.operands[n - (self.groups - i) : n - (self.groups - i) + 1]
        return op.operands[v : n - (self.groups - 1 - v)]

    def print(self, st: PrintState) -> str | None:
        vals = self.values(st.op)
        return None if vals is None else ", ".join(x.name for x in vals)


@dataclass
class AttrValue(Element):
    """``$name``: one declared attribute, spelled by its kind."""

    decl: AttrDecl
    is_anchor: bool = False

    def __post_init__(self) -> None:
        self.text = value_writer(self.decl.kind)
        self.spells = (self.decl.name,)
        self.anchor = self.decl.name if self.is_anchor else None

    def parse(self, st: ParseState) -> None:
        st.attrs.append((self.decl.name, parse_value(st.p, self.decl)))

    def print(self, st: PrintState) -> str | None:
        a = st.op.attr(self.decl.name)
        return None if a is None else self.text(st.p, a)

    def present(self, op: Operation) -> bool:
        return op.attr(self.decl.name) is not None


class AttrDict(Element):
    writes_attributes = True

    def parse(self, st: ParseState) -> None:
        if st.p.c.peek() == "{":
            st.dict_attrs = tuple(st.dict_attrs) + tuple(st.p.parse_attr_dict())

    def print(self, st: PrintState) -> str | None:
        if not st.op.attributes:
            return ""
        return st.p.attr_dict(st.op, st.consumed).lstrip()


@dataclass
class Types(Element):
    """``type(KIND)``: the signature after ``:`` (module docstring); ``type(operands)^``
    anchors an optional group on the op having operands."""

    kind: str
    is_anchor: bool = False

    def __post_init__(self) -> None:
        self.anchor = "operands" if self.is_anchor else None

    def present(self, op: Operation) -> bool:
        return bool(op.operands)

    def parse(self, st: ParseState) -> None:
        if self.kind == "results":  # after type(operands): `: ins to outs` (casts)
            st.types = (st.types[0] if st.types else (), parse_type_list(st.p))
            return
        st.types = (
            (parse_type_list(st.p), None) if self.kind == "operands" else parse_signature(st.p)
        )
        st.type_kind = self.kind

    def print(self, st: PrintState) -> str | None:
        p, op = st.p, st.op
        kind = self.kind
        if kind == "same" and len(op.results) == 1:  # the commonest: first
            return p.same_type(op)
        if kind == "functional":
            return p.functional(op)
        if kind == "operands":
            return ", ".join(p.type(t) for t in op.operand_types)
        if kind == "results":
            return ", ".join(p.type(t) for t in op.result_types) if op.results else None
        if kind == "result":  # `type($result)` of SameOperandsAndResultType: one type
            if len(op.results) != 1 or any(t != op.results[0].type for t in op.operand_types):
                return None
            return p.type(op.results[0].type)
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
        anchors = [e for e in self.elements if e.anchor is not None]
        if len(anchors) != 1:
            raise ValueError("an optional group needs one anchor `$name^`")
        self.anchor_element = anchors[0]
        self.pairs = spaced(self.elements, "")
        self.inner = self.pairs  # set again by the enclosing format's spaced()
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
        if not self.anchor_element.present(st.op):
            return ""
        out: list[str] = []
        return "".join(out) if render(self.pairs, st, out) else None
