"""The default custom form: the form of an op that declares no format (the check /
interpreter test dialects, other dialects' ops, unknown ops), parsed into exactly the
Operation its generic form gives: ``operands and key = value items, {attr-dict} :
signature``, each ``key`` being the keyword parser/opdecl.py declares for one of the
op's attributes (``KEYS``), or any attribute.  Sources: docs/test-dialects.md, and the
StableHLO forms this form reads as well.  The declared forms are parser/op_format.py's.
"""

from __future__ import annotations

from . import lexer as lx
from .format_elements import assign_types, n_results, parse_signature, parse_value
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
from .opdecl import OP_DECLS, AttrDecl
from .type_syntax import I64

I32 = IntegerType(32)
I1 = IntegerType(1)
F64 = FloatType("f64")

# Each op's `key = value` items not in a declared format (check.expect_close's ULP
# bounds): keyword -> attribute declaration.
KEYS: dict[str, dict[str, AttrDecl]] = {
    name: {a.key: a for a in decl.keyword_attrs if a.key is not None}
    for name, decl in OP_DECLS.items()
    if decl.keyword_attrs and decl.format is None
}


def _finish(
    p: OpParser, name: str, operands, results, custom_attrs, dict_attrs, start: int, regions=()
) -> Operation:
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


def _opt_attr_dict(p: OpParser) -> tuple:
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


# ---- the default pretty parser ------------------------------------------------------------

_ATTR_START = frozenset('"#[@-+0123456789')


def parse_items(
    p: OpParser,
    name: str,
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


def parse_default(p: OpParser, name: str, defs, start: int) -> Operation:
    c = p.c
    keys = KEYS.get(name, {})
    opnames: list[str] = []
    attrs: list = []
    positional: list = []
    parse_items(p, name, keys, opnames, attrs, positional)
    dict_attrs = _opt_attr_dict(p)
    ins = outs = None
    if c.accept(":"):
        ins, outs = parse_signature(p)
        if c.accept(","):
            parse_items(p, name, keys, opnames, attrs, positional)
    if len(positional) > 1:
        raise p.error(f"'{name}': unexpected attribute", start)
    if positional:
        attrs.append(("value", positional[0]))
    if ins is None:
        vt = getattr(positional[0], "type", None) if positional else None
        n_res = n_results(defs)
        if isinstance(vt, Type) and (n_res or opnames):
            operands = p.make_operands(opnames, [vt] * len(opnames), start)
            results = p.make_results(defs, [vt] * n_res, start)
        else:
            operands = p.operand_types_known(opnames, start)
            results = p.make_results(defs, (), start)
    else:
        operands, results = assign_types(p, opnames, defs, ins, outs, start)
    return _finish(p, name, operands, results, attrs, dict_attrs, start)
