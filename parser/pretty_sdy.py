"""The Shardy (``sdy``) ops' custom forms: parsing (``FORMS``), printing (``PRINT_FORMS``).

Syntax: openxla/shardy ``shardy/dialect/sdy/ir/ops.td`` (assembly formats) and
``parsers.cc`` / ``printers.cc`` (``SingleBlockRegionNoBlockId``,
``StrippedTensorShardingPerValueAttr``), as the ``*_parse_print.mlir`` tests there show:

- ``sdy.mesh @mesh = <["x"=2]> {attrs}``
- ``%r = sdy.sharding_constraint %x <@mesh, [{"x"}]> : tensor<8xf32>`` (and ``reshard``)
- ``sdy.manual_computation(%x) in_shardings=[...] out_shardings=[...] manual_axes={"x"}
  (%arg: t) { ... sdy.return ... } : (T) -> R``
- ``sdy.named_computation<"name">(%x) [in_shardings=[...]] [out_shardings=[...]] (%a: t)
  {...} : (T) -> R``
- ``sdy.return %a : t``, ``sdy.constant dense<...> : t``,
  ``sdy.propagation_barrier %x allowed_direction=BOTH : t``, ``sdy.sharding_group %x
  group_id=0 : t``, ``sdy.data_flow_edge %x sharding=<...> : t``,
  ``sdy.func_data_flow_edge %x : t``
- the explicit collectives: ``sdy.all_gather [{"x"}, {}] %x out_sharding=<...> : t`` ...

Each builds the Operation the generic form gives (the op's ODS attributes as
properties); enum attributes (PropagationDirection, ReductionOp) are ``i32``
IntegerAttrs, as I32EnumAttr stores them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from . import lexer as lx
from . import sdy
from .attr_syntax import _symbol_name
from .ir import (
    DenseElementsAttr,
    FunctionType,
    IntegerAttr,
    IntegerType,
    Operation,
    Region,
    StringAttr,
    Type,
    Value,
)
from .op_syntax import OpParser
from .pretty_ops import _finish, _opt_attr_dict, parse_constant
from .printer_core import _keyword_or_string, escape_string

I32 = IntegerType(32)
I64 = IntegerType(64)


def _no_results(p: OpParser, name: str, defs, start: int) -> None:
    if defs:
        raise p.error(f"'{name}' has no results", start)


def parse_mesh(p: OpParser, name: str, defs, start: int) -> Operation:
    """``$sym_name `=` $mesh attr-dict``."""
    c = p.c
    _no_results(p, name, defs, start)
    sym = c.expect_match(lx.SYMBOL_RE, "the mesh's @name").group(0)
    c.expect("=", "after the mesh name")
    mesh = sdy.parse_mesh(c)
    attrs = _opt_attr_dict(p)
    custom = [("sym_name", StringAttr(_symbol_name(sym, c))), ("mesh", mesh)]
    return _finish(p, name, (), (), custom, attrs, start)


def _typed_unary(p: OpParser, name: str, defs, start: int, opname: str, custom) -> Operation:
    """The tail ``attr-dict : type($result)`` of a one-operand op whose result type is the
    operand's."""
    c = p.c
    attrs = _opt_attr_dict(p)
    c.expect(":", f"and the type of '{name}'")
    t = p.parse_type()
    results = p.make_results(defs, [t], start) if defs else ()
    return _finish(p, name, (Value(opname, t),), results, custom, attrs, start)


def parse_sharding_op(p: OpParser, name: str, defs, start: int) -> Operation:
    """``$input $sharding attr-dict : type($result)`` (sharding_constraint, reshard)."""
    x = p.value_use()
    sharding = sdy.parse_sharding(p.c)
    return _typed_unary(p, name, defs, start, x, [("sharding", sharding)])


def _keyword_eq(p: OpParser, word: str) -> None:
    p.c.expect_keyword(word)
    p.c.expect("=", f"after '{word}'")


def parse_propagation_barrier(p: OpParser, name: str, defs, start: int) -> Operation:
    """``$input allowed_direction=$allowed_direction attr-dict : type($input)``."""
    c = p.c
    x = p.value_use()
    _keyword_eq(p, "allowed_direction")
    word = c.keyword()
    if word not in sdy.PROPAGATION_DIRECTIONS:
        raise c.error(f"expected a propagation direction, found '{word}'")
    direction = IntegerAttr(sdy.PROPAGATION_DIRECTIONS.index(word), I32)
    return _typed_unary(p, name, defs, start, x, [("allowed_direction", direction)])


def parse_sharding_group(p: OpParser, name: str, defs, start: int) -> Operation:
    """``$input group_id=$group_id attr-dict : type($input)`` (no results)."""
    _no_results(p, name, defs, start)
    x = p.value_use()
    _keyword_eq(p, "group_id")
    gid = sdy.parse_int(p.c, "the group id")
    return _typed_unary(p, name, [], start, x, [("group_id", IntegerAttr(gid, I64))])


def parse_data_flow_edge(p: OpParser, name: str, defs, start: int) -> Operation:
    """``$input (sharding=$sharding^)? attr-dict : type($result)``."""
    c = p.c
    x = p.value_use()
    custom = []
    if c.accept_keyword("sharding"):
        c.expect("=", "after 'sharding'")
        custom.append(("sharding", sdy.parse_sharding(c)))
    return _typed_unary(p, name, defs, start, x, custom)


def parse_func_data_flow_edge(p: OpParser, name: str, defs, start: int) -> Operation:
    """``$operand attr-dict : type($result)``."""
    return _typed_unary(p, name, defs, start, p.value_use(), [])


def parse_return(p: OpParser, name: str, defs, start: int) -> Operation:
    """``attr-dict ($results^ : type($results))?``."""
    c = p.c
    _no_results(p, name, defs, start)
    attrs = _opt_attr_dict(p)
    names: list[str] = []
    if c.peek() == "%":
        names.append(p.value_use())
        while c.accept(","):
            names.append(p.value_use())
        c.expect(":", "and the returned types")
        types = [p.parse_type()]
        while len(types) < len(names):
            c.expect(",", "and the next returned type")
            types.append(p.parse_type())
        operands = p.make_operands(names, types, start)
    else:
        operands = ()
    return _finish(p, name, operands, (), [], attrs, start)


def _region_no_block_id(p: OpParser) -> Region:
    """custom<SingleBlockRegionNoBlockId>: ``(%arg: t loc(...), ...) { ops }``."""
    p.c.expect("(", "and the body's arguments")
    args, arg_locs = p.typed_arguments("a body argument", "the body's arguments")
    return p.parse_region(args, arg_locs)


def _functional_tail(p: OpParser, name: str, defs, opnames, start: int):
    c = p.c
    attrs = _opt_attr_dict(p)
    c.expect(":", f"and the type of '{name}'")
    ft = p.parse_type()
    if not isinstance(ft, FunctionType):
        raise p.error(f"'{name}' needs a function type (operands) -> results", start)
    operands = p.make_operands(opnames, ft.inputs, start)
    results = p.make_results(defs, ft.results, start) if defs else ()
    if len(results) != len(ft.results):
        raise p.error(f"'{name}' defines {len(results)} results, its type {len(ft.results)}")
    return attrs, operands, results


def _sharding_list_item(p: OpParser, key: str, optional: bool):
    c = p.c
    save = c.pos
    if c.accept_keyword(key):
        c.expect("=", f"after '{key}'")
        return [(key, sdy.parse_sharding_list(c))]
    c.pos = save
    if not optional:
        raise c.error(f"expected '{key}=[...]', found {c.describe()}")
    return []


def parse_manual_computation(p: OpParser, name: str, defs, start: int) -> Operation:
    """``(operands) in_shardings=[..] out_shardings=[..] manual_axes={..}
    custom<SingleBlockRegionNoBlockId>($body) attr-dict : functional-type``."""
    c = p.c
    c.expect("(", f"after '{name}'")
    opnames = p.value_uses(")")
    custom = _sharding_list_item(p, "in_shardings", False)
    custom += _sharding_list_item(p, "out_shardings", False)
    _keyword_eq(p, "manual_axes")
    custom.append(("manual_axes", sdy.parse_manual_axes(c)))
    region = _region_no_block_id(p)
    attrs, operands, results = _functional_tail(p, name, defs, opnames, start)
    return _finish(p, name, operands, results, custom, attrs, start, (region,))


def parse_named_computation(p: OpParser, name: str, defs, start: int) -> Operation:
    """``<$name>(operands) (in_shardings=[..])? (out_shardings=[..])?
    custom<SingleBlockRegionNoBlockId>($body) attr-dict : functional-type``."""
    c = p.c
    c.expect("<", f"after '{name}'")
    cname = c.string()
    if cname is None:
        raise c.error(f"expected the computation's name (a string), found {c.describe()}")
    c.expect(">")
    c.expect("(")
    opnames = p.value_uses(")")
    custom = [("name", StringAttr(cname))]
    custom += _sharding_list_item(p, "in_shardings", True)
    custom += _sharding_list_item(p, "out_shardings", True)
    region = _region_no_block_id(p)
    attrs, operands, results = _functional_tail(p, name, defs, opnames, start)
    return _finish(p, name, operands, results, custom, attrs, start, (region,))


# ---- explicit collectives (ops.td, `$axes $tensor out_sharding=$out_sharding ...`) ------


def _reduction(p: OpParser) -> list:
    c = p.c
    save = c.pos
    word = c.keyword()
    if word in sdy.REDUCTION_OPS:
        return [("reduction_op", IntegerAttr(sdy.REDUCTION_OPS.index(word), I32))]
    c.pos = save
    return []


def _collective(key: str | None, parse_axes, reduction: bool = False) -> Callable:
    def parse(p: OpParser, name: str, defs, start: int) -> Operation:
        c = p.c
        custom = _reduction(p) if reduction else []
        if key is not None:
            custom.append((key, parse_axes(c)))
        x = p.value_use()
        _keyword_eq(p, "out_sharding")
        custom.append(("out_sharding", sdy.parse_sharding(c)))
        return _typed_unary(p, name, defs, start, x, custom)

    return parse


def _axis_ref_list(c: lx.Cursor) -> sdy.AxisRefList:
    return sdy.AxisRefList(sdy.parse_axis_list(c))


FORMS: dict[str, Callable] = {
    "sdy.mesh": parse_mesh,
    "sdy.sharding_constraint": parse_sharding_op,
    "sdy.reshard": parse_sharding_op,
    "sdy.return": parse_return,
    "sdy.manual_computation": parse_manual_computation,
    "sdy.named_computation": parse_named_computation,
    "sdy.constant": parse_constant,
    "sdy.propagation_barrier": parse_propagation_barrier,
    "sdy.sharding_group": parse_sharding_group,
    "sdy.data_flow_edge": parse_data_flow_edge,
    "sdy.func_data_flow_edge": parse_func_data_flow_edge,
    "sdy.all_gather": _collective("gathering_axes", sdy.parse_list_of_axis_ref_lists),
    "sdy.all_slice": _collective("slicing_axes", sdy.parse_list_of_axis_ref_lists),
    "sdy.all_to_all": _collective("params", sdy.parse_all_to_all_params),
    "sdy.collective_permute": _collective(None, None),
    "sdy.all_reduce": _collective("reduction_axes", _axis_ref_list, reduction=True),
    "sdy.reduce_scatter": _collective(
        "reduce_scatter_axes", sdy.parse_list_of_axis_ref_lists, reduction=True
    ),
    "sdy.sharded_to_unreduced": _collective("axes", sdy.parse_list_of_axis_ref_lists),
    "sdy.replicated_to_unreduced": _collective("axes", _axis_ref_list),
}


# ---- printing: the same forms, as sdy_opt prints them -------------------------------------

PrintFn = Callable[..., "str | None"]
PRINT_FORMS: dict[str, PrintFn] = {}


def _printer(*names: str) -> Callable[[PrintFn], PrintFn]:
    def register(fn: PrintFn) -> PrintFn:
        for n in names:
            PRINT_FORMS[n] = fn
        return fn

    return register


def _unary_type(op: Operation) -> Type | None:
    """The one type of a one-operand op whose results (if any) have the operand's type."""
    if len(op.operands) != 1 or op.regions or len(op.results) > 1:
        return None
    t = op.operands[0].type
    if op.results and op.results[0].type != t:
        return None
    return t


def _tail(p: Any, op: Operation, consumed: tuple[str, ...], t: Type) -> str:
    return f"{p.attr_dict(op, consumed)} : {p.type(t)}"


@_printer("sdy.mesh")
def print_mesh(p: Any, op: Operation, depth: int) -> str | None:
    """``sdy.mesh @name = <...> {attrs}``."""
    name, mesh = op.attr("sym_name"), op.attr("mesh")
    if op.operands or op.results or op.regions:
        return None
    if not (isinstance(name, StringAttr) and isinstance(mesh, sdy.Mesh)):
        return None
    return f"sdy.mesh @{_keyword_or_string(name.value)} = {mesh.stripped()}" + p.attr_dict(
        op, ("sym_name", "mesh")
    )


@_printer("sdy.sharding_constraint", "sdy.reshard")
def print_sharding_op(p: Any, op: Operation, depth: int) -> str | None:
    t, s = _unary_type(op), op.attr("sharding")
    if t is None or len(op.results) != 1 or not isinstance(s, sdy.TensorSharding):
        return None
    return f"{op.name} {op.operands[0].name} {s.stripped()}" + _tail(p, op, ("sharding",), t)


@_printer("sdy.propagation_barrier")
def print_propagation_barrier(p: Any, op: Operation, depth: int) -> str | None:
    t, d = _unary_type(op), op.attr("allowed_direction")
    if t is None or len(op.results) != 1 or not isinstance(d, IntegerAttr) or d.type != I32:
        return None
    if not 0 <= d.value < len(sdy.PROPAGATION_DIRECTIONS):
        return None
    word = sdy.PROPAGATION_DIRECTIONS[d.value]
    return f"{op.name} {op.operands[0].name} allowed_direction={word}" + _tail(
        p, op, ("allowed_direction",), t
    )


@_printer("sdy.sharding_group")
def print_sharding_group(p: Any, op: Operation, depth: int) -> str | None:
    t, g = _unary_type(op), op.attr("group_id")
    if t is None or op.results or not isinstance(g, IntegerAttr) or g.type != I64:
        return None
    return f"{op.name} {op.operands[0].name} group_id={g.value}" + _tail(p, op, ("group_id",), t)


@_printer("sdy.data_flow_edge", "sdy.func_data_flow_edge")
def print_data_flow_edge(p: Any, op: Operation, depth: int) -> str | None:
    t, s = _unary_type(op), op.attr("sharding")
    if t is None or len(op.results) != 1:
        return None
    if op.name == "sdy.func_data_flow_edge" or s is None:
        return f"{op.name} {op.operands[0].name}" + _tail(p, op, (), t)
    if not isinstance(s, sdy.TensorSharding):
        return None
    return f"{op.name} {op.operands[0].name} sharding={s.stripped()}" + _tail(
        p, op, ("sharding",), t
    )


@_printer("sdy.return")
def print_return(p: Any, op: Operation, depth: int) -> str | None:
    """``sdy.return {attrs} %a, %b : t1, t2``."""
    if op.results or op.regions:
        return None
    s = op.name + p.attr_dict(op)
    if op.operands:
        s += " " + ", ".join(v.name for v in op.operands)
        s += " : " + ", ".join(p.type(t) for t in op.operand_types)
    return s


def _body(p: Any, op: Operation, depth: int) -> str | None:
    """custom<SingleBlockRegionNoBlockId>: ``(%arg: t, ...) {ops}``."""
    if len(op.regions) != 1 or len(op.regions[0].blocks) != 1:
        return None
    block = op.regions[0].blocks[0]
    if block.label is not None or any("#" in a.name for a in block.arguments):
        return None
    region = p.region(op.regions[0], depth, entry_args=False)
    return f"({p.block_args(block)}) {region}"


@_printer("sdy.manual_computation")
def print_manual_computation(p: Any, op: Operation, depth: int) -> str | None:
    ins, outs, axes = (op.attr(k) for k in ("in_shardings", "out_shardings", "manual_axes"))
    body = _body(p, op, depth)
    if body is None or not isinstance(axes, sdy.ManualAxes):
        return None
    if not all(isinstance(x, sdy.TensorShardingPerValue) for x in (ins, outs)):
        return None
    consumed = ("in_shardings", "out_shardings", "manual_axes")
    return (
        f"{op.name}({', '.join(v.name for v in op.operands)}) in_shardings={ins.list_text()}"
        f" out_shardings={outs.list_text()} manual_axes={axes.stripped()} {body}"
        f"{p.attr_dict(op, consumed)} : {p.functional(op)}"
    )


@_printer("sdy.named_computation")
def print_named_computation(p: Any, op: Operation, depth: int) -> str | None:
    name, ins, outs = (op.attr(k) for k in ("name", "in_shardings", "out_shardings"))
    body = _body(p, op, depth)
    if body is None or not isinstance(name, StringAttr):
        return None
    s = f"{op.name}<{escape_string(name.value)}>({', '.join(v.name for v in op.operands)})"
    for key, value in (("in_shardings", ins), ("out_shardings", outs)):
        if value is not None:
            if not isinstance(value, sdy.TensorShardingPerValue):
                return None
            s += f" {key}={value.list_text()}"
    consumed = ("name", "in_shardings", "out_shardings")
    return f"{s} {body}{p.attr_dict(op, consumed)} : {p.functional(op)}"


@_printer("sdy.constant")
def print_constant(p: Any, op: Operation, depth: int) -> str | None:
    """hlo::printConstantOp: ``sdy.constant {attrs} dense<...> : type``."""
    value = op.attr("value")
    if op.operands or op.regions or len(op.results) != 1:
        return None
    if not isinstance(value, DenseElementsAttr) or value.type != op.results[0].type:
        return None
    return f"{op.name}{p.attr_dict(op, ('value',))} {p.attr(value)}"


def _collective_printer(key: str | None, reduction: bool = False) -> PrintFn:
    def print_op(p: Any, op: Operation, depth: int) -> str | None:
        t, out = _unary_type(op), op.attr("out_sharding")
        if t is None or len(op.results) != 1 or not isinstance(out, sdy.TensorSharding):
            return None
        s = op.name
        consumed = ["out_sharding"]
        if reduction and op.attr("reduction_op") is not None:
            r = op.attr("reduction_op")
            if not isinstance(r, IntegerAttr) or r.type != I32:
                return None
            if not 0 < r.value < len(sdy.REDUCTION_OPS):  # sum is the default: not spelled
                return None
            s += " " + sdy.REDUCTION_OPS[r.value]
            consumed.append("reduction_op")
        if key is not None:
            axes = op.attr(key)
            if not isinstance(axes, sdy.SdyAttr):
                return None
            s += " " + axes.stripped()
            consumed.append(key)
        s += f" {op.operands[0].name} out_sharding={out.stripped()}"
        return s + _tail(p, op, tuple(consumed), t)

    return print_op


for _name, _key, _red in (
    ("sdy.all_gather", "gathering_axes", False),
    ("sdy.all_slice", "slicing_axes", False),
    ("sdy.all_to_all", "params", False),
    ("sdy.collective_permute", None, False),
    ("sdy.all_reduce", "reduction_axes", True),
    ("sdy.reduce_scatter", "reduce_scatter_axes", True),
    ("sdy.sharded_to_unreduced", "axes", False),
    ("sdy.replicated_to_unreduced", "axes", False),
):
    PRINT_FORMS[_name] = _collective_printer(_key, _red)
