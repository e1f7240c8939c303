"""MLIR text -> hlorun IR, part 3: operations, regions, blocks and functions.

MLIR's generic operation form (LangRef "Operations"): ``%r:2 = "dialect.op"(%a)
[^succ] <{properties}> ({regions}) {attributes} : (types) -> types``, regions of blocks
with ``^label(%arg: type)`` headers, and ``func.func`` (FuncOps.td, its custom form and
the generic one).  An op's custom (pretty) form is parsed by the handler that
``custom_forms`` maps its name to (the declared forms of ``op_format``, set by
``grammar.Parser``), else by ``default_form``.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Mapping

from . import lexer as lx
from .attr_syntax import AttrParser
from .errors import ParseError, SourcePos
from .ir import (
    Attribute,
    Block,
    Function,
    FunctionType,
    LocationAttr,
    Operation,
    Region,
    Value,
)
from .mixed_ops import function_of
from .opdecl import OP_DECLS, SAME_TYPE_FORMAT
from .type_syntax import _simple_tensor

CustomForm = Callable[..., Operation]  # fn(parser, op_name, result_defs, start) -> Operation

_RESULT_NAME = re.compile(r"(%(?:[0-9]+|[A-Za-z_$.\-][A-Za-z0-9_$.\-]*))(?::([0-9]+))?")
_OP_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_$.\-]*")
_NO_PROPS: frozenset[str] = frozenset()

# Fast path for the commonest line of all: `%r = stablehlo.add %a, %b : tensor<4xf32>`
# (an op whose custom form is `operands : type`, nothing else on the line).
_V = r"%(?:[0-9]+|[A-Za-z_$.\-][A-Za-z0-9_$.\-]*)"
_FAST_OP = re.compile(
    rf"({_V}) = (stablehlo\.[a-z_0-9]+) ({_V}(?:#[0-9]+)?(?:, {_V}(?:#[0-9]+)?)*) : "
    rf"tensor<((?:(?:[0-9]+|\?)x)*)({lx.SIMPLE_ELEMENT})>[ \t]*(?=\n|\r|//|$)"
)
# (the ops opdecl declares with that form, custom<SameOperandsAndResultType>: the line
# gives what op_format's generic parser would, sooner)
_FAST_OP_NAMES = frozenset(
    name
    for name, decl in OP_DECLS.items()
    if decl.format == SAME_TYPE_FORMAT and len(decl.results) == 1 and decl.operands
)


def sort_attrs(attrs) -> tuple[tuple[str, Attribute], ...]:
    """Attributes in MLIR's order (a DictionaryAttr is sorted by name); last one wins."""
    if not attrs:
        return ()
    d = dict(attrs)
    return tuple(sorted(d.items()))


def _with_location(op, loc: LocationAttr):
    if isinstance(op, Function):
        return dataclasses.replace(op, location=loc)
    return Operation(
        op.name,
        op.operands,
        op.results,
        op.attributes,
        op.regions,
        op.successors,
        op.property_names,
        loc,
        op.pos,
    )


def _known_op(name: str) -> bool:
    """Whether ``name`` is an op hlorun knows (a declaration, or a StableHLO op with a
    VHLO form), or one of a dialect it does not check (any name goes there)."""
    if name in OP_DECLS or not name.startswith("stablehlo."):
        return True
    from .vhlo import table

    return table.vhlo_op_for(name) is not None


class OpParser(AttrParser):
    """Operations, regions, blocks and functions, over ``AttrParser``."""

    # Custom forms by op name, and the handler of a dotted name without an entry: set by
    # grammar.Parser (the op syntax does not know the op families).
    custom_forms: Mapping[str, CustomForm] = {}
    default_form: CustomForm | None = None

    # ---- operations --------------------------------------------------------------------
    def value_use(self) -> str:
        m = self.c.match(lx.VALUE_ID_RE)
        if m is None:
            raise self.c.expected("an SSA value")
        return m.group(0)

    def value_uses(self, close: str = ")") -> list[str]:
        """``%a, %b`` up to (and consuming) ``close``."""
        c = self.c
        names: list[str] = []
        if c.accept(close):
            return names
        while True:
            names.append(self.value_use())
            if c.accept(close):
                return names
            c.expect(",", f"or '{close}' in operand list")

    def make_operands(self, names: list[str], types, pos: int) -> tuple[Value, ...]:
        if len(names) != len(types):
            raise self.error(
                f"{len(names)} operands but the type signature gives {len(types)} types", pos
            )
        # ``TypeParser._value`` inlined: an equal Value already built is shared
        values = self.values
        out = []
        for n, t in zip(names, types):
            v = values.get(n)
            if v is None or v.type is not t:
                v = values[n] = Value(n, t)
            out.append(v)
        return tuple(out)

    def _trailing_location(self) -> LocationAttr | None:
        """``trailing_location``, after a cheap look at the next character."""
        c = self.c
        p = c.skip()
        return self.trailing_location() if p < c.n and c.text[p] == "l" else None

    # Line counting for ``here`` (class defaults; set per parser as it goes)
    _lc_pos = 0
    _lc_line = 0

    def here(self, pos: int) -> SourcePos:
        """``self.c.location(pos)`` for a position at or after the last one asked: the
        lines are counted from there (no table of every line start of the text)."""
        c = self.c
        last = self._lc_pos
        if pos < last:
            return c.location(pos)
        text = c.text
        line = self._lc_line
        nl = text.find("\n", last, pos)  # a memchr per line: no pass over long literals
        while nl >= 0:
            line += 1
            nl = text.find("\n", nl + 1, pos)
        self._lc_pos = pos
        self._lc_line = line
        return SourcePos(c.filename, line + 1 + c.line_offset, pos - text.rfind("\n", 0, pos))

    def operand_types_known(self, names: list[str], pos: int) -> tuple[Value, ...]:
        out = []
        for n in names:
            t = self.value_types.get(n)
            if t is None:
                raise self.error(f"use of undefined value '{n}' (its type is unknown)", pos)
            out.append(Value(n, t))
        return tuple(out)

    def make_results(
        self, defs: list[tuple[str, int | None]], types, pos: int
    ) -> tuple[Value, ...]:
        if len(defs) == 1 and defs[0][1] is None and len(types) == 1:
            name = defs[0][0]
            t = types[0]
            self.value_types[name] = t
            return (self._value(name, t),)
        total = sum(1 if k is None else k for _, k in defs)
        if total != len(types):
            raise self.error(
                f"operation defines {total} results but its type gives {len(types)}", pos
            )
        out: list[Value] = []
        it = iter(types)
        vt = self.value_types
        for name, k in defs:
            if k is None:
                t = next(it)
                out.append(Value(name, t))
                vt[name] = t
            else:
                for i in range(k):
                    t = next(it)
                    v = Value(f"{name}#{i}", t)
                    out.append(v)
                    vt[v.name] = t
        return tuple(out)

    def result_defs(self) -> list[tuple[str, int | None]]:
        c = self.c
        defs: list[tuple[str, int | None]] = []
        while True:
            m = c.match(_RESULT_NAME)
            if m is None:
                raise c.expected("a result name")
            defs.append((m.group(1), int(m.group(2)) if m.group(2) else None))
            if c.accept("="):
                return defs
            c.expect(",", "or '=' after result names")

    def parse_operation(self) -> Operation | Function:
        c = self.c
        start = c.skip()
        text = c.text
        m = _FAST_OP.match(text, start)
        if m is not None and m.group(2) in _FAST_OP_NAMES:
            t = _simple_tensor(m.group(4), m.group(5))
            if t is not None:
                c.pos = m.end()
                name = m.group(1)
                self.value_types[name] = t
                loc = self.trailing_location() if c.peek() == "l" else None
                return Operation(
                    m.group(2),
                    tuple(self._value(u, t) for u in m.group(3).split(", ")),
                    (self._value(name, t),),
                    (),
                    (),
                    (),
                    _NO_PROPS,
                    loc,
                    self.here(start),
                )
        defs: list[tuple[str, int | None]] = []
        if text.startswith("%", start):
            defs = self.result_defs()
            c.skip()
        pos = c.pos
        op: Operation | Function
        if text.startswith('"', pos):
            name = c.string() or ""  # the cursor is at '"': a string (or a ParseError)
            op = self.generic_body(name, defs, start)
            if name == "func.func":
                op = function_of(op)
        else:
            m = _OP_NAME.match(text, pos)
            if m is None:
                raise c.expected("an operation")
            name = m.group(0)
            c.pos = m.end()
            handler = self.custom_forms.get(name)
            if handler is None:
                if "." not in name or self.default_form is None:
                    raise c.error(
                        f"unknown operation '{name}' (a custom-form operation is "
                        f"written dialect.op)",
                        pos,
                    )
                try:
                    op = self.default_form(self, name, defs, start)
                except ParseError:
                    if _known_op(name):
                        raise
                    raise self._unknown_custom_op(name, pos) from None
            else:
                op = handler(self, name, defs, start)
        loc = self.trailing_location()
        if loc is not None:
            op = _with_location(op, loc)
        return op

    def _unknown_custom_op(self, name: str, pos: int) -> ParseError:
        """An op name with no custom form whose text the generic reading could not take
        either (a misspelled op with attributes): MLIR's "custom op ... is unknown",
        with the close names of the dialect."""
        import difflib

        close = difflib.get_close_matches(name, {*self.custom_forms, *OP_DECLS}, n=3)
        hint = f"; did you mean {' or '.join(repr(c) for c in close)}?" if close else ""
        return self.c.error(
            f"custom op '{name}' is unknown (tried 'func.{name}' as well){hint}", pos
        )

    def generic_body(self, name: str, defs, start: int) -> Operation:
        """After the quoted name: ``(operands) [successors] <{props}> (regions) {attrs} : type``."""
        c = self.c
        c.expect("(", f'after "{name}"')
        operand_names = self.value_uses(")")
        successors: tuple[str, ...] = ()
        if c.accept("["):
            succ: list[str] = []
            while True:
                succ.append(c.expect_match(lx.CARET_ID_RE, "a block label").group(0))
                if c.accept("]"):
                    break
                c.expect(",", "or ']'")
            successors = tuple(succ)
        props: tuple = ()
        if c.accept("<"):
            props = self.parse_attr_dict()
            c.expect(">", "after properties")
        regions: list[Region] = []
        if c.peek() == "(":
            c.expect("(")
            while True:
                regions.append(self.parse_region())
                if c.accept(")"):
                    break
                c.expect(",", "or ')' after region")
        attrs: tuple = ()
        if c.peek() == "{":
            attrs = self.parse_attr_dict()
        c.expect(":", "and the operation's function type")
        ftype = self.parse_type()
        if not isinstance(ftype, FunctionType):
            raise c.error("expected a function type (inputs) -> results", start)
        operands = self.make_operands(operand_names, ftype.inputs, start)
        results = self.make_results(defs, ftype.results, start)
        all_attrs = props + attrs
        return Operation(
            name,
            operands,
            results,
            sort_attrs(all_attrs),
            tuple(regions),
            successors,
            frozenset(k for k, _ in props),
            None,
            c.location(start),
        )

    # ---- regions and blocks -------------------------------------------------------------
    def parse_region(
        self, entry_args: tuple[Value, ...] | None = None, entry_locs: tuple = ()
    ) -> Region:
        c = self.c
        start = c.pos
        c.expect("{")
        self.enter()
        try:
            blocks: list[Block] = []
            c.skip()
            if c.accept("}"):
                if entry_args:
                    return Region((Block(entry_args, (), None, entry_locs),))
                return Region(())
            first = True
            while True:
                c.skip()
                label = None
                args: tuple[Value, ...] = ()
                locs: tuple = ()
                if c.text.startswith("^", c.pos):
                    label, args, locs = self._block_header()
                    if first and entry_args is not None:
                        raise c.error("the entry block of a function body takes no label")
                elif first and entry_args is not None:
                    args, locs = entry_args, entry_locs
                elif not first:
                    raise c.error("expected a block label")
                ops: list[Operation] = []
                while True:
                    c.skip()
                    if c.pos >= c.n:
                        raise c.error("unterminated region: expected '}'", start)
                    ch = c.text[c.pos]
                    if ch == "}" or ch == "^":
                        break
                    op = self.parse_operation()
                    if isinstance(op, Function):
                        raise c.error("func.func is only supported at module level")
                    ops.append(op)
                if first:
                    label = None  # the entry block cannot be branched to: its label is noise
                blocks.append(Block(args, tuple(ops), label, locs))
                first = False
                if c.accept("}"):
                    return Region(tuple(blocks))
        finally:
            self.leave()

    def _block_header(self):
        c = self.c
        label = c.expect_match(lx.CARET_ID_RE, "a block label").group(0)
        args: tuple[Value, ...] = ()
        locs: tuple = ()
        if c.accept("("):
            args, locs = self.typed_arguments("a block argument", "block arguments")
        c.expect(":", "after block label")
        return label, args, locs

    def typed_arguments(self, what: str, where: str) -> tuple[tuple[Value, ...], tuple]:
        """``%a: t loc(...), ...)`` after an opening ``(``: the arguments (defined for the
        ops that follow) and their locations (``()`` when none is written)."""
        c = self.c
        args: list[Value] = []
        locs: list = []
        if not c.accept(")"):
            while True:
                name = c.expect_match(lx.VALUE_DEF_RE, what).group(0)
                c.expect(":", "after the argument's name")
                t = self.parse_type()
                args.append(Value(name, t))
                self.value_types[name] = t
                locs.append(self.trailing_location())
                if c.accept(")"):
                    break
                c.expect(",", f"or ')' in {where}")
        return tuple(args), (tuple(locs) if any(x is not None for x in locs) else ())
