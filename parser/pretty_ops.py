"""Custom (pretty) forms of operations, each parsed into exactly the Operation its generic
form gives (same attribute names and Attribute objects).

Syntax sources: StableHLO's op definitions (assembly formats and custom printers, as
exercised by stablehlo/tests/verifier/print_stablehlo.mlir and the interpret suite),
chlo's (docs/chlo.md), func's, and the check/interpreter test dialects
(docs/test-dialects.md).

A handler is ``fn(parser, op_name, result_defs, start) -> Operation``.  Most ops go
through ``parse_default``: ``operands and key = value items, {attr-dict} : signature``,
with a per-op table mapping each ``key`` to the generic attribute it spells.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

import numpy as np

from . import lexer as lx
from .grammar import I64, Parser, _symbol_name, sort_attrs
from .ir import (
    ArrayAttr,
    Attribute,
    Block,
    BoolAttr,
    ComplexType,
    DenseArrayAttr,
    DenseElementsAttr,
    DotDimensionNumbers,
    EnumAttr,
    FloatAttr,
    FloatType,
    FunctionType,
    IndexType,
    IntegerAttr,
    IntegerType,
    Operation,
    Region,
    StringAttr,
    SymbolRefAttr,
    TensorType,
    TupleType,
    Type,
    TypeAttr,
    UnitAttr,
    Value,
)

I32 = IntegerType(32)
I1 = IntegerType(1)
F64 = FloatType("f64")

Converter = Callable[[Parser, str], list[tuple[str, Attribute]]]


# ---- converters for `key = value` items ---------------------------------------------------

def i64_array(name: str) -> Converter:
    def conv(p: Parser, key: str):
        return [(name, DenseArrayAttr(I64, p.int_list()))]
    return conv


def i64_scalar(name: str) -> Converter:
    def conv(p: Parser, key: str):
        return [(name, IntegerAttr(p.integer(), I64))]
    return conv


def enum(name: str, kind: str, dialect: str = "stablehlo") -> Converter:
    def conv(p: Parser, key: str):
        w = p.c.keyword()
        if w is None:
            raise p.error(f"expected a {kind} value, found {p.c.describe()}")
        return [(name, EnumAttr(dialect, kind, w, True))]
    return conv


def string(name: str) -> Converter:
    def conv(p: Parser, key: str):
        s = p.c.string()
        if s is None:
            raise p.error(f"expected a string for '{key}'")
        return [(name, StringAttr(s))]
    return conv


def boolean(name: str) -> Converter:
    def conv(p: Parser, key: str):
        w = p.c.keyword()
        if w not in ("true", "false"):
            raise p.error(f"expected true or false for '{key}'")
        return [(name, BoolAttr(w == "true"))]
    return conv


def precision(p: Parser, key: str):
    c = p.c
    c.expect("[")
    items: list[Attribute] = []
    if not c.accept("]"):
        while True:
            w = c.keyword()
            if w is None:
                raise p.error(f"expected a precision (DEFAULT, HIGH, HIGHEST), found {c.describe()}")
            items.append(EnumAttr("stablehlo", "precision", w, True))
            if c.accept("]"):
                break
            c.expect(",", "or ']' in precision list")
    return [("precision_config", ArrayAttr(tuple(items)))]


def exponent_mantissa(p: Parser, key: str):
    start = p.c.pos
    w = p.c.keyword()
    import re

    m = re.fullmatch(r"e([0-9]+)m([0-9]+)", w or "")
    if m is None:
        raise p.error("expected a format like e8m10", start)
    return [("exponent_bits", IntegerAttr(int(m.group(1)), I32)),
            ("mantissa_bits", IntegerAttr(int(m.group(2)), I32))]


def dims_pair(which: str) -> Converter:
    def conv(p: Parser, key: str):
        lhs = p.int_list()
        p.c.expect_keyword("x")
        rhs = p.int_list()
        return [(f"__{which}", (lhs, rhs))]
    return conv


def dot_algorithm(p: Parser, key: str):
    c = p.c
    start = c.pos
    c.expect("<")
    return [("algorithm", p.parse_dot_algorithm_body(start))]


def default_value(p: Parser, key: str):
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


KEYS: dict[str, dict[str, Converter]] = {
    "stablehlo.iota": {"dim": i64_scalar("iota_dimension")},
    "stablehlo.dynamic_iota": {"dim": i64_scalar("iota_dimension")},
    "stablehlo.broadcast_in_dim": {"dims": i64_array("broadcast_dimensions")},
    "stablehlo.broadcast": {"sizes": i64_array("broadcast_sizes")},
    "stablehlo.dynamic_broadcast_in_dim": {
        "dims": i64_array("broadcast_dimensions"),
        "expanding_dimensions": i64_array("known_expanding_dimensions"),
        "nonexpanding_dimensions": i64_array("known_nonexpanding_dimensions"),
    },
    "stablehlo.transpose": {"dims": i64_array("permutation")},
    "stablehlo.reverse": {"dims": i64_array("dimensions")},
    "stablehlo.concatenate": {"dim": i64_scalar("dimension")},
    "stablehlo.pad": {
        "low": i64_array("edge_padding_low"),
        "high": i64_array("edge_padding_high"),
        "interior": i64_array("interior_padding"),
    },
    "stablehlo.dynamic_slice": {"sizes": i64_array("slice_sizes")},
    "stablehlo.get_dimension_size": {"dim": i64_scalar("dimension")},
    "stablehlo.set_dimension_size": {"dim": i64_scalar("dimension")},
    "stablehlo.einsum": {"config": string("einsum_config")},
    "stablehlo.unary_einsum": {"config": string("einsum_config")},
    "stablehlo.fft": {"type": enum("fft_type", "fft_type"), "length": i64_array("fft_length")},
    "stablehlo.rng": {"distribution": enum("rng_distribution", "rng_distribution")},
    "stablehlo.rng_bit_generator": {"algorithm": enum("rng_algorithm", "rng_algorithm")},
    "stablehlo.cholesky": {"lower": boolean("lower")},
    "stablehlo.dot": {"precision": precision},
    "stablehlo.dot_general": {
        "batching_dims": dims_pair("batching"),
        "contracting_dims": dims_pair("contracting"),
        "precision": precision,
        "algorithm": dot_algorithm,
    },
    "stablehlo.reduce_precision": {"format": exponent_mantissa},
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

def parse_signature(p: Parser) -> tuple[tuple[Type, ...], tuple[Type, ...] | None]:
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
        if c.text.startswith("%", c.pos) or (
                m and c.text[m.end():].lstrip().startswith("=")
                and not c.text[m.end():].lstrip().startswith("==")):
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


def assign_types(p: Parser, name: str, opnames: list[str], defs, ins, outs, start: int,
                 kind: str = "same"):
    """Operands and results of a pretty op from its signature."""
    n_res = _n_results(defs)
    nops = len(opnames)
    if outs is not None:
        return p.make_operands(opnames, ins, start), p.make_results(defs, outs, start)
    if kind == "select" and len(ins) == 2 and nops == 3:
        pred, t = ins
        return p.make_operands(opnames, (pred, t, t), start), p.make_results(defs, [t] * n_res, start)
    if kind == "tuple" and len(ins) == 1 and isinstance(ins[0], TupleType):
        tt = ins[0]
        return p.make_operands(opnames, tt.types, start), p.make_results(defs, [tt] * n_res, start)
    if kind == "complex" and len(ins) == 1:
        t = ins[0]
        et = t.element_type if isinstance(t, TensorType) else t
        inner = et.element_type if isinstance(et, ComplexType) else et
        if name == "stablehlo.complex":
            ot = _with_elem(t, inner)
            return p.make_operands(opnames, [ot] * nops, start), p.make_results(defs, [t] * n_res, start)
        rt = _with_elem(t, inner)
        return p.make_operands(opnames, [t] * nops, start), p.make_results(defs, [rt] * n_res, start)
    if len(ins) == 1:
        t = ins[0]
        return p.make_operands(opnames, [t] * nops, start), p.make_results(defs, [t] * n_res, start)
    if len(ins) == nops and n_res in (0, nops):
        return p.make_operands(opnames, ins, start), p.make_results(defs, ins if n_res else (), start)
    if nops == 0 and len(ins) == n_res:
        return (), p.make_results(defs, ins, start)
    raise p.error(f"cannot match the type signature ({len(ins)} types) to {nops} operands "
                  f"and {n_res} results", start)


def _finish(p: Parser, name: str, operands, results, custom_attrs, dict_attrs, start: int,
            regions=()) -> Operation:
    props = frozenset(k for k, _ in custom_attrs)
    return Operation(name, operands, results, sort_attrs(tuple(custom_attrs) + tuple(dict_attrs)),
                     tuple(regions), (), props, None, p.c.location(start))


def _opt_attr_dict(p: Parser) -> tuple:
    if p.c.peek() == "{":
        return p.parse_attr_dict()
    return ()


# ---- the default pretty parser ------------------------------------------------------------

_ATTR_START = frozenset('"#[@-+0123456789')


def parse_items(p: Parser, name: str, keys: dict[str, Converter], opnames: list[str],
                attrs: list, positional: list) -> None:
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


def parse_default(p: Parser, name: str, defs, start: int) -> Operation:
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
        operands, results = assign_types(p, name, opnames, defs, ins, outs, start,
                                         SIG_KIND.get(name, "same"))
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
    out.append(("dot_dimension_numbers", DotDimensionNumbers(
        batching[0], batching[1], contracting[0], contracting[1])))
    return out


# ---- ops with their own syntax --------------------------------------------------------------

def parse_constant(p: Parser, name: str, defs, start: int) -> Operation:
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


def parse_compare(p: Parser, name: str, defs, start: int) -> Operation:
    c = p.c
    direction = c.keyword()
    if direction is None:
        raise p.error(f"expected a comparison direction (EQ, NE, ...), found {c.describe()}")
    c.expect(",")
    a = p.value_use()
    c.expect(",")
    b = p.value_use()
    attrs: list = [("comparison_direction",
                    EnumAttr("stablehlo", "comparison_direction", direction, True))]
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


def parse_slice(p: Parser, name: str, defs, start: int) -> Operation:
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
    attrs = [("start_indices", DenseArrayAttr(I64, tuple(starts))),
             ("limit_indices", DenseArrayAttr(I64, tuple(limits))),
             ("strides", DenseArrayAttr(I64, tuple(strides)))]
    dict_attrs = _opt_attr_dict(p)
    c.expect(":", "and the type signature")
    ins, outs = parse_signature(p)
    operands, results = assign_types(p, name, [x], defs, ins, outs, start)
    return _finish(p, name, operands, results, attrs, dict_attrs, start)


def parse_get_tuple_element(p: Parser, name: str, defs, start: int) -> Operation:
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
    return _finish(p, name, operands, results, [("index", IntegerAttr(idx, I32))], dict_attrs,
                   start)


def _callee_and_operands(p: Parser) -> tuple[SymbolRefAttr, list[str]]:
    c = p.c
    sym = p.parse_attribute()
    if not isinstance(sym, SymbolRefAttr):
        raise p.error("expected a symbol @name")
    c.expect("(")
    return sym, p.value_uses(")")


def _functional_tail(p: Parser, name: str, opnames, defs, start: int):
    dict_attrs = _opt_attr_dict(p)
    p.c.expect(":", "and the type signature")
    ins, outs = parse_signature(p)
    operands, results = assign_types(p, name, opnames, defs, ins, outs, start)
    return dict_attrs, operands, results


def parse_custom_call(p: Parser, name: str, defs, start: int) -> Operation:
    sym, opnames = _callee_and_operands(p)
    target = sym.root if not sym.nested else "::".join((sym.root,) + sym.nested)
    dict_attrs, operands, results = _functional_tail(p, name, opnames, defs, start)
    return _finish(p, name, operands, results, [("call_target_name", StringAttr(target))],
                   dict_attrs, start)


def parse_call(p: Parser, name: str, defs, start: int) -> Operation:
    sym, opnames = _callee_and_operands(p)
    dict_attrs, operands, results = _functional_tail(p, name, opnames, defs, start)
    return _finish(p, "func.call", operands, results, [("callee", sym)], dict_attrs, start)


def parse_composite(p: Parser, name: str, defs, start: int) -> Operation:
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
    dict_attrs, operands, results = _functional_tail(p, name, opnames, defs, start)
    return _finish(p, name, operands, results, [("name", StringAttr(comp))], dict_attrs, start)


def parse_return(p: Parser, name: str, defs, start: int) -> Operation:
    canonical = "func.return" if name == "return" else name
    op = parse_default(p, canonical, defs, start)
    return op


def parse_optimization_barrier(p: Parser, name: str, defs, start: int) -> Operation:
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


def parse_while(p: Parser, name: str, defs, start: int) -> Operation:
    c = p.c
    c.expect("(")
    args: list[str] = []
    inits: list[str] = []
    if not c.accept(")"):
        while True:
            args.append(c.expect_match(lx.VALUE_DEF_RE, "an iteration argument").group(0))
            c.expect("=")
            inits.append(p.value_use())
            if c.accept(")"):
                break
            c.expect(",", "or ')'")
    types: list[Type] = []
    if args:
        c.expect(":", "and the iteration types")
        types.append(p.parse_type())
        while c.accept(","):
            types.append(p.parse_type())
    if len(types) != len(args):
        raise p.error(f"{len(args)} iteration arguments but {len(types)} types", start)
    dict_attrs: tuple = ()
    if c.accept_keyword("attributes"):
        dict_attrs = p.parse_attr_dict()
    block_args = tuple(Value(a, t) for a, t in zip(args, types))
    for v in block_args:
        p.value_types[v.name] = v.type
    c.expect_keyword("cond")
    cond = p.parse_region(block_args)
    c.expect_keyword("do")
    body = p.parse_region(block_args)
    operands = p.make_operands(inits, types, start)
    results = p.make_results(defs, types, start)
    return _finish(p, name, operands, results, [], dict_attrs, start, (cond, body))


def parse_reduce(p: Parser, name: str, defs, start: int) -> Operation:
    c = p.c
    inputs: list[str] = []
    inits: list[str] = []
    while True:
        c.expect("(")
        inputs.append(p.value_use())
        c.expect_keyword("init")
        c.expect(":")
        inits.append(p.value_use())
        c.expect(")")
        if not c.accept(","):
            break
    applies = None
    if c.accept_keyword("applies"):
        m = c.match(lx.BARE_ID_RE)
        if m is None:
            raise p.error("expected an operation name after 'applies'")
        applies = m.group(0)
    c.expect_keyword("across")
    c.expect_keyword("dimensions")
    c.expect("=")
    dims = p.int_list()
    dict_attrs = _opt_attr_dict(p)
    c.expect(":", "and the type signature")
    ins, outs = parse_signature(p)
    opnames = inputs + inits
    operands, results = assign_types(p, name, opnames, defs, ins, outs, start)
    n = len(inputs)
    if applies is not None:
        if n != 1:
            raise p.error("'applies' needs a single input", start)
        init_t = operands[n].type
        et = init_t.element_type if isinstance(init_t, TensorType) else init_t
        st = TensorType((), et)
        a0, a1 = Value("%reduce.lhs", st), Value("%reduce.rhs", st)
        r = Value("%reduce.result", st)
        pos = p.c.location(start)
        inner = Operation(applies, (a0, a1), (r,), (), (), (), frozenset(), None, pos)
        ret = Operation("stablehlo.return", (r,), (), (), (), (), frozenset(), None, pos)
        region = Region((Block((a0, a1), (inner, ret)),))
    else:
        c.expect_keyword("reducer")
        # `reducer(%a: t loc(...), %b: t loc(...)) (%c: t, %d: t)`: pair i gives block
        # arguments i and n + i (and their locations, as the generic form's block header).
        firsts: list[Value] = []
        seconds: list[Value] = []
        first_locs: list = []
        second_locs: list = []
        for _ in range(n):
            c.expect("(")
            for lst, locs in ((firsts, first_locs), (seconds, second_locs)):
                an = c.expect_match(lx.VALUE_DEF_RE, "a block argument").group(0)
                c.expect(":")
                t = p.parse_type()
                locs.append(p.trailing_location())
                lst.append(Value(an, t))
                p.value_types[an] = t
                if lst is firsts:
                    c.expect(",")
            c.expect(")")
        arg_locs = tuple(first_locs + second_locs)
        if all(x is None for x in arg_locs):
            arg_locs = ()
        region = p.parse_region(tuple(firsts + seconds), arg_locs)
    attrs = [("dimensions", DenseArrayAttr(I64, dims))]
    return _finish(p, name, operands, results, attrs, dict_attrs, start, (region,))


def _window(p: Parser) -> list:
    c = p.c
    c.expect("{")
    out: list = []
    names = {"stride": "window_strides", "lhs_dilate": "lhs_dilation",
             "rhs_dilate": "rhs_dilation"}
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


def parse_convolution(p: Parser, name: str, defs, start: int) -> Operation:
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


def parse_top_k(p: Parser, name: str, defs, start: int) -> Operation:
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


def parse_scan(p: Parser, name: str, defs, start: int) -> Operation:
    c = p.c
    c.expect("(")
    inputs = p.value_uses(")")
    c.expect_keyword("inits")
    c.expect("(")
    inits = p.value_uses(")")
    c.expect_keyword("dimension")
    c.expect("=")
    attrs: list = [("dimension", IntegerAttr(p.integer(), I64))]
    dict_attrs: tuple = ()
    if c.accept_keyword("attributes"):
        dict_attrs = p.parse_attr_dict()
    region = p.parse_region()
    c.expect(":", "and the type signature")
    ins, outs = parse_signature(p)
    operands, results = assign_types(p, name, inputs + inits, defs, ins, outs, start)
    n_out = len(results) - len(inits)
    attrs.append(("operandSegmentSizes", DenseArrayAttr(I32, (len(inputs), len(inits)))))
    attrs.append(("resultSegmentSizes", DenseArrayAttr(I32, (max(n_out, 0), len(inits)))))
    return _finish(p, name, operands, results, attrs, dict_attrs, start, (region,))


# ---- other dialects: scf, tensor, vhlo (their ops' custom parsers in MLIR) ------------------

def _type_list(p: Parser, n: int) -> tuple[Type, ...]:
    """``t1, t2, ...``: exactly ``n`` comma-separated types."""
    types: list[Type] = []
    for i in range(n):
        if i:
            p.c.expect(",", "and the next type")
        types.append(p.parse_type())
    return tuple(types)


def parse_scf_yield(p: Parser, name: str, defs, start: int) -> Operation:
    """``scf.yield {attrs} %a, %b : t1, t2`` (SCFOps.td: ``attr-dict ($results^ `:`
    type($results))?``)."""
    c = p.c
    dict_attrs = _opt_attr_dict(p)
    opnames: list[str] = []
    if c.peek() == "%":
        opnames.append(p.value_use())
        while c.accept(","):
            opnames.append(p.value_use())
        c.expect(":", "and the yielded values' types")
    types = _type_list(p, len(opnames))
    operands = p.make_operands(opnames, types, start)
    return _finish(p, name, operands, p.make_results(defs, (), start), [], dict_attrs, start)


def _ensure_yield(region: Region, p: Parser, start: int) -> Region:
    """scf.for's ``ensureTerminator``: a body block that does not end with ``scf.yield``
    gets an operand-less one (the custom form may leave it out)."""
    block = region.blocks[0]
    if block.operations and block.operations[-1].name == "scf.yield":
        return region
    yield_op = Operation("scf.yield", pos=p.c.location(start))
    fixed = dataclasses.replace(block, operations=block.operations + (yield_op,))
    return Region((fixed,) + region.blocks[1:])


def parse_scf_for(p: Parser, name: str, defs, start: int) -> Operation:
    """``scf.for [unsigned] %iv = %lb to %ub step %step [iter_args(%a = %init, ...) ->
    (types)] [: type] {body} {attrs}`` (SCF.cpp, ForOp::parse): the induction variable,
    bounds and step have ``type`` (``index`` when omitted); the iteration arguments,
    their initial values and the results have the result types.  The generic form is
    ``"scf.for"(%lb, %ub, %step, %init...) ({^bb0(%iv, %a...): ...})``."""
    c = p.c
    attrs: list[tuple[str, Attribute]] = []
    if c.accept_keyword("unsigned"):
        attrs.append(("unsignedCmp", UnitAttr()))
    iv = c.expect_match(lx.VALUE_DEF_RE, "the induction variable").group(0)
    c.expect("=", "after the induction variable")
    bounds = [p.value_use()]
    c.expect_keyword("to")
    bounds.append(p.value_use())
    c.expect_keyword("step")
    bounds.append(p.value_use())
    iter_names: list[str] = []
    iter_locs: list = []
    inits: list[str] = []
    types: tuple[Type, ...] = ()
    if c.accept_keyword("iter_args"):
        c.expect("(")
        if not c.accept(")"):
            while True:
                iter_names.append(c.expect_match(lx.VALUE_DEF_RE, "an iteration argument").group(0))
                iter_locs.append(p.trailing_location())
                c.expect("=")
                inits.append(p.value_use())
                if c.accept(")"):
                    break
                c.expect(",", "or ')' in iter_args")
        c.expect("->", "and the result types after iter_args")
        types = p._type_list_parens() if c.peek() == "(" else (p.parse_type(),)
    if len(types) != len(iter_names):
        raise p.error("mismatch in number of loop-carried values and defined values", start)
    iv_type: Type = p.parse_type() if c.accept(":") else IndexType()
    block_args = (Value(iv, iv_type),) + tuple(Value(a, t) for a, t in zip(iter_names, types))
    for v in block_args:
        p.value_types[v.name] = v.type
    locs = (None, *iter_locs) if any(x is not None for x in iter_locs) else ()
    region = _ensure_yield(p.parse_region(block_args, locs), p, start)
    dict_attrs = _opt_attr_dict(p)
    operands = p.make_operands(bounds + inits, (iv_type,) * 3 + types, start)
    results = p.make_results(defs, types, start)
    return _finish(p, name, operands, results, attrs, dict_attrs, start, (region,))


def parse_tensor_insert(p: Parser, name: str, defs, start: int) -> Operation:
    """``tensor.insert %scalar into %dest[%i, ...] {attrs} : tensor<...>`` (TensorOps.td):
    the result and ``dest`` have the written type, ``scalar`` its element type, the
    indices are ``index``."""
    c = p.c
    scalar = p.value_use()
    c.expect_keyword("into")
    dest = p.value_use()
    c.expect("[", "and the indices")
    indices = p.value_uses("]")
    dict_attrs = _opt_attr_dict(p)
    c.expect(":", "and the destination type")
    t = p.parse_type()
    if not isinstance(t, TensorType):
        raise p.error(f"'{name}' expects a tensor type, found {t}", start)
    types = (t.element_type, t) + (IndexType(),) * len(indices)
    operands = p.make_operands([scalar, dest, *indices], types, start)
    return _finish(p, name, operands, p.make_results(defs, (t,), start), [], dict_attrs, start)


_VHLO_FUNC_PROPS = frozenset({"sym_name", "function_type", "sym_visibility", "arg_attrs",
                              "res_attrs"})


def parse_vhlo_func(p: Parser, name: str, defs, start: int) -> Operation:
    """``vhlo.func_v1 @name(%arg0: t0, ...) -> (r0, ...) {body} {attrs}`` (VhloOps.td:
    ``custom<FunctionBody>($sym_name, $body, $function_type) attr-dict``).

    hlorun's Operation has ``sym_name`` = StringAttr, ``function_type`` = TypeAttr of a
    FunctionType, the dictionary's attributes, and the body region whose entry block has
    the arguments.  (MLIR holds these two as ``#vhlo.string_v1<"name">`` and
    ``#vhlo.type_v1<!vhlo.func_v1<...>>``, which is how its generic form spells them.)"""
    c = p.c
    if defs:
        raise p.error(f"'{name}' has no results", start)
    sym = c.expect_match(lx.SYMBOL_RE, "the function's @name").group(0)
    fname = _symbol_name(sym, c)
    c.expect("(", "and the function's arguments")
    args: list[Value] = []
    locs: list = []
    if not c.accept(")"):
        while True:
            an = c.expect_match(lx.VALUE_DEF_RE, "a function argument").group(0)
            c.expect(":", "after the argument's name")
            v = Value(an, p.parse_type())
            args.append(v)
            p.value_types[an] = v.type
            locs.append(p.trailing_location())
            if c.accept(")"):
                break
            c.expect(",", "or ')' in function arguments")
    c.expect("->", "and the result types")
    outs = p._type_list_parens() if c.peek() == "(" else (p.parse_type(),)
    arg_locs = tuple(locs) if any(x is not None for x in locs) else ()
    region = p.parse_region(tuple(args) if args else None, arg_locs)
    dict_attrs = _opt_attr_dict(p)
    ftype = FunctionType(tuple(v.type for v in args), outs)
    custom = [("sym_name", StringAttr(fname)), ("function_type", TypeAttr(ftype))]
    op = _finish(p, name, (), (), custom, dict_attrs, start, (region,))
    props = frozenset(k for k, _ in op.attributes if k in _VHLO_FUNC_PROPS)
    return dataclasses.replace(op, property_names=props)


PRETTY: dict[str, Callable] = {
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
    "stablehlo.while": parse_while,
    "stablehlo.reduce": parse_reduce,
    "stablehlo.convolution": parse_convolution,
    "stablehlo.dynamic_conv": parse_convolution,
    "chlo.top_k": parse_top_k,
    "chlo.scan": parse_scan,
    "scf.for": parse_scf_for,
    "scf.yield": parse_scf_yield,
    "tensor.insert": parse_tensor_insert,
    "vhlo.func_v1": parse_vhlo_func,
}

_ = (BoolAttr, FloatType)
