"""Pretty (custom) forms of operations not yet declared as formats (opdecl, op_format),
printed: constants, optimization_barrier, return, calls, custom_call, composite,
convolution, and the arith / builtin ops mixed modules hold.

Each printer returns None when the op's IR does not fit its form exactly (the generic
form is then written).  Sources: StablehloOps.td assembly formats and
AssemblyFormat.cpp's custom directives, as exercised by
stablehlo/tests/verifier/print_stablehlo.mlir.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from .ir import (
    Operation,
)
from .printer_core import (
    BasePrinter,
    _names,
)

# --------------------------------------------------------------------------------------
# Pretty forms (StablehloOps.td assembly formats)
# --------------------------------------------------------------------------------------

PrettyFn = Callable[[BasePrinter, Operation, int], "str | None"]
# This family's pretty printers by op name (printer.py merges the families).
FORMS: dict[str, PrettyFn] = {}


def _pretty(*names: str) -> Callable[[PrettyFn], PrettyFn]:
    def register(fn: PrettyFn) -> PrettyFn:
        for n in names:
            FORMS[n] = fn
        return fn

    return register


def _fits(
    op: Operation,
    custom: Sequence[str] = (),
    *,
    n_operands: int | None = None,
    n_results: int | None = None,
    n_regions: int = 0,
) -> bool:
    """Whether ``op`` may take a pretty form whose custom syntax spells the attributes
    ``custom`` (every other attribute going to its attribute dictionary).

    The parser rebuilds ``op`` from the text: the custom syntax spells the ``custom``
    attributes and the dictionary holds the rest.  Whether the source wrote them as
    properties does not matter (``property_names`` is a spelling, not part of equality).
    (Attribute order needs no check: the parser keeps every op's attributes sorted.)"""
    if len(op.regions) != n_regions:
        return False
    if n_operands is not None and len(op.operands) != n_operands:
        return False
    if n_results is not None and len(op.results) != n_results:
        return False
    return True


_KEYWORD = re.compile(r"[A-Za-z_][A-Za-z0-9_$]*\Z")


def _operands(op: Operation) -> str:
    return _names(op.operands)


# ---- other dialects' ops that mixed (allow-other-dialects) modules hold ------------------

# arith ops whose assembly format is `$lhs, $rhs attr-dict : type($result)` (ArithOps.td;
# the float ones' optional `fastmath` is left to the generic form)
_ARITH_BINARY = frozenset(
    "addf subf mulf divf remf maximumf minimumf maxnumf minnumf addi subi muli divsi divui "
    "remsi remui andi ori xori shli shrsi shrui maxsi maxui minsi minui".split()
)


def _p_arith_binary(p: BasePrinter, op: Operation, depth: int) -> str | None:
    if not _fits(op, n_operands=2, n_results=1) or op.attributes:
        return None
    if not op.operand_types[0] == op.operand_types[1] == op.result_types[0]:
        return None
    return f"{op.name} {_operands(op)} : {p.type(op.result_types[0])}"


for _n in _ARITH_BINARY:
    FORMS[f"arith.{_n}"] = _p_arith_binary


@_pretty("builtin.unrealized_conversion_cast")
def _p_unrealized_cast(p: BasePrinter, op: Operation, depth: int) -> str | None:
    """`($inputs^ `:` type($inputs))? `to` type($outputs) attr-dict` (BuiltinOps.td)."""
    if not _fits(op) or not op.operands or not op.results:
        return None
    ins = ", ".join(p.type(t) for t in op.operand_types)
    outs = ", ".join(p.type(t) for t in op.result_types)
    return f"{op.name} {_operands(op)} : {ins} to {outs}{p.attr_dict(op)}"
