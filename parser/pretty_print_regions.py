"""Pretty (custom) forms of operations with regions, printed: StableHLO's ``while``
and ``reduce``, the check / interpreter test dialects, and the other dialects' (scf,
tensor, vhlo).  Sources: StablehloOps.cpp (printWhileOp, printReduceOp),
docs/test-dialects.md, SCF.cpp (ForOp::print), TensorOps.td, VhloOps.cpp.
"""

from __future__ import annotations

from collections.abc import Callable

from .ir import (
    Block,
    IndexType,
    Operation,
    Region,
    TensorType,
    UnitAttr,
)
from .pretty_print import PrettyFn, _fits, _operands
from .printer_core import (
    BasePrinter,
    _keyword_or_string,
    _names,
)
from .vhlo.ir import VhloAttr, VhloType

# This family's pretty printers by op name (printer.py merges the families).
FORMS: dict[str, PrettyFn] = {}


def _pretty(*names: str) -> Callable[[PrettyFn], PrettyFn]:
    def register(fn: PrettyFn) -> PrettyFn:
        for n in names:
            FORMS[n] = fn
        return fn

    return register


# ---- other dialects: scf, tensor, vhlo ----------------------------------------------------


@_pretty("scf.for")
def _p_scf_for(p: BasePrinter, op: Operation, depth: int) -> str | None:
    """`scf.for [unsigned] %iv = %lb to %ub step %s [iter_args(%a = %init) -> (types)]
    [: type] {body} {attrs}` (SCF.cpp, ForOp::print): the body's terminator is left out
    when there are no iteration arguments (the parser puts it back)."""
    if not _fits(op, n_regions=1) or len(op.operands) < 3 or len(op.regions[0].blocks) != 1:
        return None
    block = op.regions[0].blocks[0]
    n_iter = len(op.operands) - 3
    if len(block.arguments) != n_iter + 1 or block.arg_locations:
        return None
    iv, *iters = block.arguments
    types = op.result_types
    if (
        len(types) != n_iter
        or op.operand_types != (iv.type,) * 3 + types
        or tuple(a.type for a in iters) != types
        or any("#" in a.name for a in block.arguments)
    ):
        return None
    ops = block.operations
    if not ops or ops[-1].name != "scf.yield":
        return None
    body = op.regions[0]
    if not n_iter:
        if ops[-1] != Operation("scf.yield") or (len(ops) > 1 and ops[-2].name == "scf.yield"):
            return None
        body = Region((Block(block.arguments, ops[:-1]),))
    unsigned = op.attr("unsignedCmp")
    if unsigned is not None and not isinstance(unsigned, UnitAttr):
        return None
    lb, ub, step = op.operands[:3]
    s = op.name + (" unsigned" if unsigned is not None else "")
    s += f" {iv.name} = {lb.name} to {ub.name} step {step.name}"
    if n_iter:
        pairs = ", ".join(f"{a.name} = {v.name}" for a, v in zip(iters, op.operands[3:]))
        s += f" iter_args({pairs}) -> (" + ", ".join(p.type(t) for t in types) + ")"
    if not isinstance(iv.type, IndexType):
        s += " : " + p.type(iv.type)
    s += " " + p.region(body, depth, entry_args=False)
    return s + p.attr_dict(op, ("unsignedCmp",))


@_pretty("scf.yield")
def _p_scf_yield(p: BasePrinter, op: Operation, depth: int) -> str | None:
    """`scf.yield {attrs} %a, %b : t1, t2` (SCFOps.td: `attr-dict ($results^ `:`
    type($results))?`)."""
    if not _fits(op, n_results=0):
        return None
    s = op.name + p.attr_dict(op)
    if op.operands:
        s += f" {_operands(op)} : " + ", ".join(p.type(t) for t in op.operand_types)
    return s


@_pretty("tensor.insert")
def _p_tensor_insert(p: BasePrinter, op: Operation, depth: int) -> str | None:
    """`tensor.insert %scalar into %dest[%i, ...] {attrs} : type` (TensorOps.td)."""
    if not _fits(op, n_results=1) or len(op.operands) < 2:
        return None
    scalar, dest, *indices = op.operands
    t = dest.type
    if (
        not isinstance(t, TensorType)
        or op.results[0].type != t
        or scalar.type != t.element_type
        or not all(isinstance(v.type, IndexType) for v in indices)
    ):
        return None
    return (
        f"{op.name} {scalar.name} into {dest.name}[{_names(indices)}]{p.attr_dict(op)}"
        f" : {p.type(t)}"
    )


@_pretty("vhlo.func_v1")
def _p_vhlo_func(p: BasePrinter, op: Operation, depth: int) -> str | None:
    """`vhlo.func_v1 @name(%arg0: t0, ...) -> (r0, ...) {body} {attrs}` (VhloOps.cpp,
    printFunctionBody, then the attribute dictionary)."""
    name, ftype = op.attr("sym_name"), op.attr("function_type")
    fn = ftype.params[0] if isinstance(ftype, VhloAttr) and ftype.name == "type_v1" else None
    if not (
        isinstance(name, VhloAttr)
        and name.name == "string_v1"
        and isinstance(fn, VhloType)
        and fn.name == "func_v1"
        and _fits(op, n_operands=0, n_results=0, n_regions=1)
    ):
        return None
    region = op.regions[0]
    ins, results = fn.params
    args = ""
    if region.blocks:
        entry = region.blocks[0]
        if tuple(a.type for a in entry.arguments) != ins or any(
            "#" in a.name for a in entry.arguments
        ):
            return None
        args = p.block_args(entry)
    elif ins:
        return None
    outs = ", ".join(p.type(t) for t in results)
    body = p.region(region, depth, entry_args=False, empty_entry_label=not ins)
    attrs = p.attr_dict(op, ("sym_name", "function_type"))
    return f"{op.name} @{_keyword_or_string(name.params[0])}({args}) -> ({outs}) {body}{attrs}"
