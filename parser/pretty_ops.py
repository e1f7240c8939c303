"""Custom (pretty) forms of operations, each parsed into exactly the Operation its generic
form gives (same attribute names and Attribute objects).

Syntax sources: StableHLO's op definitions (assembly formats and custom printers, as
exercised by stablehlo/tests/verifier/print_stablehlo.mlir and the interpret suite),
chlo's (docs/chlo.md), func's, and the check/interpreter test dialects
(docs/test-dialects.md).

A handler is ``fn(parser, op_name, result_defs, start) -> Operation``.  Most ops go
through ``parse_default``: ``operands and key = value items, {attr-dict} : signature``,
each ``key`` being the keyword parser/opdecl.py declares for one of the op's attributes
(``KEYS``, derived from that declaration, which the printer reads too).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable

import numpy as np

from . import lexer as lx
from .ir import (
    ArrayAttr,
    Attribute,
    BoolAttr,
    ComplexType,
    DenseArrayAttr,
    DenseElementsAttr,
    DotDimensionNumbers,
    EnumAttr,
    FloatAttr,
    FloatType,
    IntegerAttr,
    IntegerType,
    Operation,
    StringAttr,
    SymbolRefAttr,
    TensorType,
    TupleType,
    Type,
)
from .op_syntax import OpParser, sort_attrs
from .opdecl import OP_DECLS, AttrDecl
from .type_syntax import I64

I32 = IntegerType(32)
I1 = IntegerType(1)
F64 = FloatType("f64")
# after a keyword in a type list: `name =` (but not `==`) starts the next item, not a type
# (a match at a position: no copy of the rest of the text)
_ASSIGNED = re.compile(r"\s*=(?!=)")

Converter = Callable[[OpParser, str], list[tuple[str, Attribute]]]


# ---- converters for `key = value` items ---------------------------------------------------


def i64_array(name: str) -> Converter:
    def conv(p: OpParser, key: str):
        return [(name, DenseArrayAttr(I64, p.int_list()))]

    return conv


def i64_scalar(name: str) -> Converter:
    def conv(p: OpParser, key: str):
        return [(name, IntegerAttr(p.integer(), I64))]

    return conv


UI64 = IntegerType(64, "unsigned")


def ui64_scalar(name: str) -> Converter:
    """``key = N`` of a ``UI64Attr`` (check.expect_close's ULP bounds): 0 to 2^64 - 1."""

    def conv(p: OpParser, key: str):
        c = p.c
        m = c.match(lx.INTEGER_RE)
        if m is None:
            raise c.error(f"expected an integer for '{key}', found {c.describe()}")
        text = m.group(0)
        value = int(text, 0) if "x" in text else int(text)
        if not 0 <= value < 1 << 64:
            raise c.error(f"integer value {value} does not fit in ui64", m.start())
        return [(name, IntegerAttr(value, UI64))]

    return conv


def enum(name: str, kind: str, dialect: str = "stablehlo") -> Converter:
    def conv(p: OpParser, key: str):
        w = p.c.keyword()
        if w is None:
            raise p.error(f"expected a {kind} value, found {p.c.describe()}")
        return [(name, EnumAttr(dialect, kind, w, True))]

    return conv


def string(name: str) -> Converter:
    def conv(p: OpParser, key: str):
        s = p.c.string()
        if s is None:
            raise p.error(f"expected a string for '{key}'")
        return [(name, StringAttr(s))]

    return conv


def boolean(name: str) -> Converter:
    def conv(p: OpParser, key: str):
        w = p.c.keyword()
        if w not in ("true", "false"):
            raise p.error(f"expected true or false for '{key}'")
        return [(name, BoolAttr(w == "true"))]

    return conv


def precision(name: str) -> Converter:
    def conv(p: OpParser, key: str):
        c = p.c
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
        return [(name, ArrayAttr(tuple(items)))]

    return conv


def exponent_mantissa(p: OpParser, key: str):
    start = p.c.pos
    w = p.c.keyword()
    m = re.fullmatch(r"e([0-9]+)m([0-9]+)", w or "")
    if m is None:
        raise p.error("expected a format like e8m10", start)
    return [
        ("exponent_bits", IntegerAttr(int(m.group(1)), I32)),
        ("mantissa_bits", IntegerAttr(int(m.group(2)), I32)),
    ]


def dims_pair(which: str) -> Converter:
    def conv(p: OpParser, key: str):
        lhs = p.int_list()
        p.c.expect_keyword("x")
        rhs = p.int_list()
        return [(f"__{which}", (lhs, rhs))]

    return conv


def dot_algorithm(name: str) -> Converter:
    def conv(p: OpParser, key: str):
        c = p.c
        start = c.pos
        c.expect("<")
        return [(name, p.parse_dot_algorithm_body(start))]

    return conv


def default_value(p: OpParser, key: str):
    p.scalar_suffix_only = True
    try:
        a = p.parse_attribute()
    finally:
        p.scalar_suffix_only = False
    if isinstance(a, IntegerAttr) and a.type is None:
        a = IntegerAttr(a.value, I64)
    elif isinstance(a, FloatAttr) and a.type is None:
        a = FloatAttr(a.value, F64)
    return [(key, a)]


def _converter(a: AttrDecl) -> Converter:
    """How the custom form's ``key = value`` item of attribute ``a`` is parsed (by kind)."""
    kind = a.kind
    if kind == "i64":
        return i64_scalar(a.name)
    if kind == "ui64":
        return ui64_scalar(a.name)
    if kind == "i64_array":
        return i64_array(a.name)
    if kind == "string":
        return string(a.name)
    if kind == "bool":
        return boolean(a.name)
    if kind.startswith("enum:"):
        return enum(a.name, kind[5:])
    if kind == "precision_config":
        return precision(a.name)
    if kind == "dot_algorithm":
        return dot_algorithm(a.name)
    raise ValueError(f"no custom-form syntax for attribute kind {kind!r}")


# Keywords whose syntax spells other than one attribute's value: dot_general's
# `batching_dims = [..] x [..]` / `contracting_dims` (together dot_dimension_numbers) and
# reduce_precision's `format = e8m10` (exponent_bits and mantissa_bits).
_COMPOUND_KEYS: dict[str, dict[str, Converter]] = {
    "stablehlo.dot_general": {
        "batching_dims": dims_pair("batching"),
        "contracting_dims": dims_pair("contracting"),
    },
    "stablehlo.reduce_precision": {"format": exponent_mantissa},
}

# Each op's `key = value` items: the keywords opdecl declares, plus the compound ones.
KEYS: dict[str, dict[str, Converter]] = {
    name: {a.key: _converter(a) for a in decl.keyword_attrs if a.key is not None}
    | _COMPOUND_KEYS.get(name, {})
    for name, decl in OP_DECLS.items()
    if decl.keyword_attrs or name in _COMPOUND_KEYS
}

# How a signature without `->` assigns types (see assign_types).
SIG_KIND: dict[str, str] = {
    "stablehlo.select": "select",
    "stablehlo.tuple": "tuple",
    "stablehlo.complex": "complex",
    "stablehlo.real": "complex",
    "stablehlo.imag": "complex",
}


# ---- signatures ---------------------------------------------------------------------------


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


def _n_results(defs) -> int:
    return sum(1 if k is None else k for _, k in defs)


def _with_elem(t: Type, elem: Type) -> Type:
    if isinstance(t, TensorType):
        return TensorType(t.shape, elem, t.encoding)
    return elem


def assign_types(
    p: OpParser, name: str, opnames: list[str], defs, ins, outs, start: int, kind: str = "same"
):
    """Operands and results of a pretty op from its signature."""
    n_res = _n_results(defs)
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
    if kind == "complex" and len(ins) == 1:
        t = ins[0]
        et = t.element_type if isinstance(t, TensorType) else t
        inner = et.element_type if isinstance(et, ComplexType) else et
        if name == "stablehlo.complex":
            ot = _with_elem(t, inner)
            return p.make_operands(opnames, [ot] * nops, start), p.make_results(
                defs, [t] * n_res, start
            )
        rt = _with_elem(t, inner)
        return p.make_operands(opnames, [t] * nops, start), p.make_results(
            defs, [rt] * n_res, start
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


# ---- the default pretty parser ------------------------------------------------------------

_ATTR_START = frozenset('"#[@-+0123456789')


def parse_items(
    p: OpParser,
    name: str,
    keys: dict[str, Converter],
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
                    conv = keys.get(key, default_value)
                    attrs.extend(conv(p, key))
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
    # dot_general's `batching_dims = [..] x [..], contracting_dims = ...`
    if any(k.startswith("__") for k, _ in attrs):
        attrs = _dot_dims(attrs)
    if ins is None:
        vt = getattr(positional[0], "type", None) if positional else None
        n_res = _n_results(defs)
        if isinstance(vt, Type) and (n_res or opnames):
            operands = p.make_operands(opnames, [vt] * len(opnames), start)
            results = p.make_results(defs, [vt] * n_res, start)
        else:
            operands = p.operand_types_known(opnames, start)
            results = p.make_results(defs, (), start)
    else:
        operands, results = assign_types(
            p, name, opnames, defs, ins, outs, start, SIG_KIND.get(name, "same")
        )
    return _finish(p, name, operands, results, attrs, dict_attrs, start)


def _dot_dims(attrs: list) -> list:
    batching = ((), ())
    contracting = ((), ())
    out = []
    for k, v in attrs:
        if k == "__batching":
            batching = v
        elif k == "__contracting":
            contracting = v
        else:
            out.append((k, v))
    out.append(
        (
            "dot_dimension_numbers",
            DotDimensionNumbers(batching[0], batching[1], contracting[0], contracting[1]),
        )
    )
    return out


# ---- ops with their own syntax --------------------------------------------------------------


def parse_constant(p: OpParser, name: str, defs, start: int) -> Operation:
    c = p.c
    if c.peek() == "(":
        return p.generic_body(name, defs, start)
    dict_attrs = _opt_attr_dict(p)
    value = p.parse_attribute()
    t = getattr(value, "type", None)
    if t is None and isinstance(value, BoolAttr) and name == "arith.constant":
        t = I1  # `arith.constant true`: MLIR's `true` is an i1 attribute
    if c.accept(":"):
        t = p.parse_type()
    if not isinstance(t, Type):
        raise p.error(f"'{name}' needs a typed value", start)
    results = p.make_results(defs, [t], start)
    return _finish(p, name, (), results, [("value", value)], dict_attrs, start)


def parse_compare(p: OpParser, name: str, defs, start: int) -> Operation:
    c = p.c
    direction = c.keyword()
    if direction is None:
        raise p.error(f"expected a comparison direction (EQ, NE, ...), found {c.describe()}")
    c.expect(",")
    a = p.value_use()
    c.expect(",")
    b = p.value_use()
    attrs: list = [
        ("comparison_direction", EnumAttr("stablehlo", "comparison_direction", direction, True))
    ]
    if c.accept(","):
        ct = c.keyword()
        if ct is None:
            raise p.error(f"expected a comparison type, found {c.describe()}")
        attrs.append(("compare_type", EnumAttr("stablehlo", "comparison_type", ct, True)))
    dict_attrs = _opt_attr_dict(p)
    c.expect(":", "and the type signature")
    ins, outs = parse_signature(p)
    if outs is None and len(ins) == 1:
        raise p.error("compare needs a functional type (lhs, rhs) -> result", start)
    operands, results = assign_types(p, name, [a, b], defs, ins, outs, start)
    return _finish(p, name, operands, results, attrs, dict_attrs, start)


def parse_slice(p: OpParser, name: str, defs, start: int) -> Operation:
    c = p.c
    x = p.value_use()
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
    attrs = [
        ("start_indices", DenseArrayAttr(I64, tuple(starts))),
        ("limit_indices", DenseArrayAttr(I64, tuple(limits))),
        ("strides", DenseArrayAttr(I64, tuple(strides))),
    ]
    dict_attrs = _opt_attr_dict(p)
    c.expect(":", "and the type signature")
    ins, outs = parse_signature(p)
    operands, results = assign_types(p, name, [x], defs, ins, outs, start)
    return _finish(p, name, operands, results, attrs, dict_attrs, start)


def parse_get_tuple_element(p: OpParser, name: str, defs, start: int) -> Operation:
    c = p.c
    x = p.value_use()
    c.expect("[")
    idx = p.integer()
    c.expect("]")
    dict_attrs = _opt_attr_dict(p)
    c.expect(":", "and the type signature")
    ins, outs = parse_signature(p)
    if outs is None:
        raise p.error("get_tuple_element needs a functional type", start)
    operands, results = assign_types(p, name, [x], defs, ins, outs, start)
    return _finish(
        p, name, operands, results, [("index", IntegerAttr(idx, I32))], dict_attrs, start
    )


def _callee_and_operands(p: OpParser) -> tuple[SymbolRefAttr, list[str]]:
    c = p.c
    sym = p.parse_attribute()
    if not isinstance(sym, SymbolRefAttr):
        raise p.error("expected a symbol @name")
    c.expect("(")
    return sym, p.value_uses(")")


def _functional_tail(p: OpParser, name: str, opnames, defs, start: int):
    dict_attrs = _opt_attr_dict(p)
    p.c.expect(":", "and the type signature")
    ins, outs = parse_signature(p)
    operands, results = assign_types(p, name, opnames, defs, ins, outs, start)
    return dict_attrs, operands, results


def parse_custom_call(p: OpParser, name: str, defs, start: int) -> Operation:
    sym, opnames = _callee_and_operands(p)
    target = sym.root if not sym.nested else "::".join((sym.root,) + sym.nested)
    dict_attrs, operands, results = _functional_tail(p, name, opnames, defs, start)
    return _finish(
        p, name, operands, results, [("call_target_name", StringAttr(target))], dict_attrs, start
    )


def parse_call(p: OpParser, name: str, defs, start: int) -> Operation:
    sym, opnames = _callee_and_operands(p)
    dict_attrs, operands, results = _functional_tail(p, name, opnames, defs, start)
    return _finish(p, "func.call", operands, results, [("callee", sym)], dict_attrs, start)


def parse_composite(p: OpParser, name: str, defs, start: int) -> Operation:
    c = p.c
    comp = c.string()
    if comp is None:
        raise p.error("expected the composite's name as a string")
    opnames: list[str] = []
    c.skip()
    if c.text.startswith("%", c.pos):
        opnames.append(p.value_use())
        while c.accept(","):
            opnames.append(p.value_use())
    regions = []  # `(` $composite_regions^ `)` (StablehloOps.td)
    if c.accept("("):
        regions.append(p.parse_region())
        while c.accept(","):
            regions.append(p.parse_region())
        c.expect(")")
    dict_attrs, operands, results = _functional_tail(p, name, opnames, defs, start)
    return _finish(
        p, name, operands, results, [("name", StringAttr(comp))], dict_attrs, start, regions
    )


def parse_return(p: OpParser, name: str, defs, start: int) -> Operation:
    canonical = "func.return" if name == "return" else name
    op = parse_default(p, canonical, defs, start)
    return op


def parse_optimization_barrier(p: OpParser, name: str, defs, start: int) -> Operation:
    """``attr-dict ($operand^ : custom<PairwiseOpType>):(`(` `)`)?`` (StablehloOps.td):
    the attribute dictionary comes first, then ``%a, %b : t1, t2`` or ``()``."""
    c = p.c
    lead = _opt_attr_dict(p)
    if c.peek() == "(":
        c.expect("(")
        c.expect(")")
        dict_attrs = tuple(lead) + tuple(_opt_attr_dict(p))
        return _finish(p, name, (), p.make_results(defs, (), start), [], dict_attrs, start)
    op = parse_default(p, name, defs, start)
    if lead:
        op = dataclasses.replace(op, attributes=sort_attrs(tuple(lead) + op.attributes))
    return op


def _window(p: OpParser) -> list:
    c = p.c
    c.expect("{")
    out: list = []
    names = {"stride": "window_strides", "lhs_dilate": "lhs_dilation", "rhs_dilate": "rhs_dilation"}
    if c.accept("}"):
        return out
    while True:
        key = c.keyword()
        start = c.pos
        c.expect("=")
        if key in names:
            out.append((names[key], DenseArrayAttr(I64, p.int_list())))
        elif key == "pad":
            c.expect("[")
            rows: list[tuple[int, ...]] = []
            if not c.accept("]"):
                while True:
                    rows.append(p.int_list())
                    if c.accept("]"):
                        break
                    c.expect(",")
            if any(len(r) != 2 for r in rows):
                raise p.error("padding entries are [low, high] pairs", start)
            arr = np.array(rows, dtype=np.int64).reshape(len(rows), 2)
            arr.setflags(write=False)
            out.append(("padding", DenseElementsAttr(TensorType((len(rows), 2), I64), arr)))
        elif key == "reverse":
            c.expect("[")
            vals: list[bool] = []
            if not c.accept("]"):
                while True:
                    w = c.keyword()
                    if w in ("true", "false"):
                        vals.append(w == "true")
                    elif w is None:
                        v = p.integer()
                        vals.append(bool(v))
                    else:
                        raise p.error("expected true, false, 0 or 1 in reverse")
                    if c.accept("]"):
                        break
                    c.expect(",")
            out.append(("window_reversal", DenseArrayAttr(I1, tuple(vals))))
        else:
            raise p.error(f"unknown window parameter '{key}'", start)
        if c.accept("}"):
            return out
        c.expect(",", "or '}' in window")


def parse_convolution(p: OpParser, name: str, defs, start: int) -> Operation:
    c = p.c
    c.expect("(")
    opnames = p.value_uses(")")
    c.expect_keyword("dim_numbers")
    c.expect("=")
    attrs: list = [("dimension_numbers", p.conv_dims_text())]
    if c.accept(","):
        c.expect_keyword("window")
        c.expect("=")
        attrs.extend(_window(p))
    dict_attrs, operands, results = _functional_tail(p, name, opnames, defs, start)
    return _finish(p, name, operands, results, attrs, dict_attrs, start)


def parse_top_k(p: OpParser, name: str, defs, start: int) -> Operation:
    c = p.c
    c.expect("(")
    x = p.value_use()
    c.expect(",")
    c.expect_keyword("k")
    c.expect("=")
    attrs: list = [("k", IntegerAttr(p.integer(), I64))]
    if c.accept(","):
        c.expect_keyword("is_stable")
        c.expect("=")
        attrs.extend(boolean("is_stable")(p, "is_stable"))
    c.expect(")")
    dict_attrs, operands, results = _functional_tail(p, name, [x], defs, start)
    return _finish(p, name, operands, results, attrs, dict_attrs, start)


# Custom forms of this family, by op name (grammar.OpParser merges the families).
FORMS: dict[str, Callable] = {
    "stablehlo.constant": parse_constant,
    "chlo.constant": parse_constant,
    "arith.constant": parse_constant,
    "stablehlo.compare": parse_compare,
    "stablehlo.slice": parse_slice,
    "stablehlo.get_tuple_element": parse_get_tuple_element,
    "stablehlo.custom_call": parse_custom_call,
    "stablehlo.composite": parse_composite,
    "func.call": parse_call,
    "call": parse_call,
    "func.return": parse_return,
    "return": parse_return,
    "stablehlo.optimization_barrier": parse_optimization_barrier,
    "stablehlo.convolution": parse_convolution,
    "stablehlo.dynamic_conv": parse_convolution,
    "chlo.top_k": parse_top_k,
}
