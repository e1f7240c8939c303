"""The default custom form, as one format directive (``custom<KeywordItems>``): the
form of the check / interpreter test dialects' ops (docs/test-dialects.md) and the
form an op with no format of its own is read in (``parse_default``: other dialects'
ops, unknown ops).

`%a, %b, dense<...>, key = value, ... {attr-dict} : types`: operands, the ``value``
attribute written bare, the other properties as `key = value` items (the keyword an
attribute's ``AttrDecl.key`` declares, else its name; any attribute), then the
dictionary, then the types: none when the value's type gives them all, one when all
agree, the operands' when the op has no results (or results of the operands' types),
else the functional type.  Each op built is exactly the one the generic form gives.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from . import lexer as lx
from .format_elements import (
    _KEYWORD,
    GLUE,
    Element,
    ParseState,
    PrintState,
    assign_types,
    n_results,
    parse_signature,
    parse_value,
)
from .ir import (
    Attribute,
    FloatAttr,
    FloatType,
    IntegerAttr,
    IntegerType,
    Operation,
    Type,
)
from .op_syntax import OpParser, sort_attrs
from .opdecl import AttrDecl, OpDecl
from .type_syntax import I64

if TYPE_CHECKING:  # the printer loads only to print (startup)
    from .printer_core import BasePrinter

F64 = FloatType("f64")
_ATTR_START = frozenset('"#[@-+0123456789')


def finish(
    p: OpParser, name: str, operands, results, custom_attrs, dict_attrs, start: int, regions=()
) -> Operation:
    """The Operation a custom form read: ``custom_attrs`` as properties."""
    props = frozenset(k for k, _ in custom_attrs)
    return Operation(
        name,
        operands,
        results,
        sort_attrs(tuple(custom_attrs) + tuple(dict_attrs)),
        tuple(regions),
        (),
        props,
        None,
        p.c.location(start),
    )


def opt_attr_dict(p: OpParser) -> tuple:
    """An attribute dictionary when one comes next."""
    if p.c.peek() == "{":
        return p.parse_attr_dict()
    return ()


def _default_value(p: OpParser) -> Attribute:
    """The value of a ``key = value`` item no declaration names: an attribute, its
    untyped numbers as ``i64`` / ``f64``."""
    p.scalar_suffix_only = True
    try:
        a = p.parse_attribute()
    finally:
        p.scalar_suffix_only = False
    if isinstance(a, IntegerAttr) and a.type is None:
        a = IntegerAttr(a.value, I64)
    elif isinstance(a, FloatAttr) and a.type is None:
        a = FloatAttr(a.value, F64)
    return a


def parse_items(
    p: OpParser,
    keys: dict[str, AttrDecl],
    opnames: list[str],
    attrs: list,
    positional: list,
) -> None:
    """Comma-separated operands, ``key = value`` items and positional attributes."""
    c = p.c
    while True:
        c.skip()
        pos = c.pos
        text = c.text
        ch = text[pos] if pos < c.n else ""
        if ch == "%":
            opnames.append(p.value_use())
        else:
            m = lx.KEYWORD_RE.match(text, pos)
            if m:
                c.pos = m.end()
                if c.accept("=") and not text.startswith("=", c.pos):
                    key = m.group(0)
                    decl = keys.get(key)
                    if decl is None:
                        attrs.append((key, _default_value(p)))
                    else:
                        attrs.append((decl.name, parse_value(p, decl)))
                else:
                    c.pos = pos
                    word = m.group(0)
                    if word in ("dense", "array", "true", "false", "dense_resource", "unit"):
                        positional.append(p.parse_attribute())
                    else:
                        return
            elif ch in _ATTR_START and ch:
                positional.append(p.parse_attribute())
            else:
                return
        if not c.accept(","):
            return


class KeywordItems(Element):
    """``custom<KeywordItems>``: the whole form (module docstring), read and written."""

    writes_attributes = True

    keys: dict[str, AttrDecl] = {}

    def bind(self, decl: OpDecl) -> None:
        self.keys = {a.key: a for a in decl.attrs if a.key is not None}

    def parse(self, st: ParseState) -> None:
        p = st.p
        c = p.c
        start = st.start
        opnames: list[str] = []
        attrs: list = []
        positional: list = []
        parse_items(p, self.keys, opnames, attrs, positional)
        st.dict_attrs = opt_attr_dict(p)
        ins = outs = None
        if c.accept(":"):
            ins, outs = parse_signature(p)
            if c.accept(","):
                parse_items(p, self.keys, opnames, attrs, positional)
        if len(positional) > 1:
            raise p.error(f"'{st.name}': unexpected attribute", start)
        if positional:
            attrs.append(("value", positional[0]))
        st.attrs.extend(attrs)
        if ins is None:
            vt = getattr(positional[0], "type", None) if positional else None
            n_res = n_results(st.defs)
            if isinstance(vt, Type) and (n_res or opnames):
                operands = p.make_operands(opnames, [vt] * len(opnames), start)
                results = p.make_results(st.defs, [vt] * n_res, start)
            else:
                operands = p.operand_types_known(opnames, start)
                results = p.make_results(st.defs, (), start)
        else:
            operands, results = assign_types(p, opnames, st.defs, ins, outs, start)
        st.values = (operands, results)

    def print(self, st: PrintState) -> str | None:
        text = _print_items(st.p, st.op)
        return None if text is None else GLUE + text[len(st.op.name) :]


_UI64 = IntegerType(64, "unsigned")


def _test_item(p: BasePrinter, v: Attribute) -> str:
    """A ``key = value`` item's value: a UI64Attr (check.expect_close's ULP bounds) as
    its bare number, as CheckOps.td's assembly format spells it; others in full."""
    if isinstance(v, IntegerAttr) and v.type == _UI64:
        return str(v.value)
    return p.attr(v)


def _print_items(p: BasePrinter, op: Operation) -> str | None:
    """`check.expect_eq_const %a, dense<...> : tensor<...>`, `check.expect_almost_eq %a, %b,
    tolerance = 1.000000e-03 : f64 : tensor<...>`, `interpreter.probe %x, probe_id = "p" :
    tensor<...>` ...: operands, the `value` attribute, `key = attribute` items for the other
    properties (written in full, with their types), the attribute dictionary, then the
    operand and result types (none when the value's type gives them)."""
    if op.regions:
        return None
    custom = [(k, v) for k, v in op.attributes if k in op.property_names]
    for k, v in custom:
        if not _KEYWORD.match(k) or (isinstance(v, (IntegerAttr, FloatAttr)) and v.type is None):
            return None
    value = op.attr("value") if "value" in op.property_names else None
    parts = [v.name for v in op.operands]
    if value is not None:
        parts.append(p.attr(value))
    parts += [f"{k} = {_test_item(p, v)}" for k, v in custom if k != "value"]
    s = op.name + (" " + ", ".join(parts) if parts else "")
    s += p.attr_dict(op, op.property_names)
    ins, outs = op.operand_types, op.result_types
    everything = (*ins, *outs)
    if value is not None:
        vt = getattr(value, "type", None)
        if all(t == vt for t in everything):
            return s
    elif not everything:
        return s
    if everything and all(t == everything[0] for t in everything):
        return f"{s} : {p.type(everything[0])}"
    if not outs or (outs == ins and op.operands):
        return f"{s} : " + ", ".join(p.type(t) for t in ins)
    return f"{s} : {p.functional(op)}"
