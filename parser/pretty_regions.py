"""Custom (pretty) forms of ops with regions: StableHLO's ``while`` and ``reduce``,
chlo's ``scan``, and the other dialects' (scf, tensor, vhlo), each parsed into exactly
the Operation its generic form gives.

Syntax sources: StablehloOps.td / StablehloOps.cpp (``parseWhileOp``,
``parseReduceOp``), ChloOps.td, SCF.cpp (``ForOp::parse``), TensorOps.td and VhloOps.td.
A handler is ``fn(parser, op_name, result_defs, start) -> Operation`` as in
parser/op_format.py's.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

from . import lexer as lx
from .attr_syntax import _symbol_name
from .default_form import finish as _finish
from .default_form import opt_attr_dict as _opt_attr_dict
from .ir import (
    Attribute,
    IndexType,
    Operation,
    Region,
    TensorType,
    Type,
    UnitAttr,
    Value,
)
from .op_syntax import OpParser
from .vhlo.ir import VhloAttr, VhloType

# ---- other dialects: scf, tensor, vhlo (their ops' custom parsers in MLIR) ------------------


def _type_list(p: OpParser, n: int) -> tuple[Type, ...]:
    """``t1, t2, ...``: exactly ``n`` comma-separated types."""
    types: list[Type] = []
    for i in range(n):
        if i:
            p.c.expect(",", "and the next type")
        types.append(p.parse_type())
    return tuple(types)


def parse_scf_yield(p: OpParser, name: str, defs, start: int) -> Operation:
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


def _ensure_yield(region: Region, p: OpParser, start: int) -> Region:
    """scf.for's ``ensureTerminator``: a body block that does not end with ``scf.yield``
    gets an operand-less one (the custom form may leave it out)."""
    block = region.blocks[0]
    if block.operations and block.operations[-1].name == "scf.yield":
        return region
    yield_op = Operation("scf.yield", pos=p.c.location(start))
    fixed = dataclasses.replace(block, operations=block.operations + (yield_op,))
    return Region((fixed,) + region.blocks[1:])


def parse_scf_for(p: OpParser, name: str, defs, start: int) -> Operation:
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


def parse_tensor_insert(p: OpParser, name: str, defs, start: int) -> Operation:
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


_VHLO_FUNC_PROPS = frozenset(
    {"sym_name", "function_type", "sym_visibility", "arg_attrs", "res_attrs"}
)


def parse_vhlo_func(p: OpParser, name: str, defs, start: int) -> Operation:
    """``vhlo.func_v1 @name(%arg0: t0, ...) -> (r0, ...) {body} {attrs}`` (VhloOps.td:
    ``custom<FunctionBody>($sym_name, $body, $function_type) attr-dict``).

    The Operation has ``sym_name`` = ``#vhlo.string_v1<"name">``, ``function_type`` =
    ``#vhlo.type_v1<!vhlo.func_v1<...>>`` (as MLIR holds them and its generic form
    spells them), the dictionary's attributes, and the body region whose entry block
    has the arguments."""
    c = p.c
    if defs:
        raise p.error(f"'{name}' has no results", start)
    sym = c.expect_match(lx.SYMBOL_RE, "the function's @name").group(0)
    fname = _symbol_name(sym, c)
    c.expect("(", "and the function's arguments")
    args, arg_locs = p.typed_arguments("a function argument", "function arguments")
    c.expect("->", "and the result types")
    outs = p._type_list_parens() if c.peek() == "(" else (p.parse_type(),)
    region = p.parse_region(args if args else None, arg_locs)
    dict_attrs = _opt_attr_dict(p)
    ftype = VhloType("func_v1", (tuple(v.type for v in args), tuple(outs)))
    custom = [
        ("sym_name", VhloAttr("string_v1", (fname,))),
        ("function_type", VhloAttr("type_v1", (ftype,))),
    ]
    op = _finish(p, name, (), (), custom, dict_attrs, start, (region,))
    props = frozenset(k for k, _ in op.attributes if k in _VHLO_FUNC_PROPS)
    return dataclasses.replace(op, property_names=props)


# Custom forms of this family, by op name (grammar.Parser merges the families).
FORMS: dict[str, Callable] = {
    "scf.for": parse_scf_for,
    "scf.yield": parse_scf_yield,
    "tensor.insert": parse_tensor_insert,
    "vhlo.func_v1": parse_vhlo_func,
}
