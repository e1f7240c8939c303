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
    BoolAttr,
    ConvDimensionNumbers,
    DenseArrayAttr,
    DenseElementsAttr,
    DenseResourceAttr,
    FloatAttr,
    IntegerAttr,
    IntegerType,
    Operation,
    StringAttr,
    SymbolRefAttr,
    TensorType,
)
from .op_format import i64_array
from .printer_core import (
    BasePrinter,
    _ints,
    _names,
    _symbol,
    conv_dimensions,
    escape_string,
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


@_pretty("stablehlo.constant", "arith.constant", "chlo.constant")
def _p_constant(p: BasePrinter, op: Operation, depth: int) -> str | None:
    """`stablehlo.constant {attrs} dense<...> : type`; when the value's type is not the
    result's (quantized results), stablehlo-opt's fallback: the name, then the rest of the
    generic form (`stablehlo.constant() <{value = ...}> : () -> type`)."""
    if op.operands or len(op.results) != 1 or op.regions:
        return None
    value = op.attr("value")
    if (
        _fits(op, ("value",))
        and isinstance(value, (DenseElementsAttr, DenseResourceAttr))
        and value.type == op.results[0].type
    ):
        return f"{op.name}{p.attr_dict(op, ('value',))} {p.attr(value)}"
    if (
        op.name == "arith.constant"
        and _fits(op, ("value",))
        and (
            isinstance(value, (IntegerAttr, FloatAttr))
            and value.type is not None
            and value.type == op.results[0].type
            or isinstance(value, BoolAttr)
            and op.results[0].type == IntegerType(1)
        )
    ):
        # arith's `attr-dict $value`: a scalar value carries the result type
        return f"{op.name}{p.attr_dict(op, ('value',))} {p.attr(value)}"
    if op.name != "stablehlo.constant":
        return None
    return p.generic(op, depth, name=op.name)


@_pretty("stablehlo.optimization_barrier")
def _p_optimization_barrier(p: BasePrinter, op: Operation, depth: int) -> str | None:
    """`attr-dict ($operand^ : custom<PairwiseOpType>):(`(` `)`)?`: the attribute
    dictionary first, then `%a, %b : t1, t2`, or `()` without operands (no space before
    it, as MLIR's generated printer writes a `(` after the dictionary)."""
    if not _fits(op) or op.operand_types != op.result_types:
        return None
    attrs = p.attr_dict(op)
    if not op.operands:
        return f"{op.name}{attrs}()"
    types = ", ".join(p.type(t) for t in op.operand_types)
    return f"{op.name}{attrs} {_operands(op)} : {types}"


@_pretty("stablehlo.return", "func.return")
def _p_return(p: BasePrinter, op: Operation, depth: int) -> str | None:
    """`$results attr-dict (: types)?`."""
    if not _fits(op, n_results=0):
        return None
    s = op.name
    if op.operands:
        s += " " + _operands(op)
    s += p.attr_dict(op)
    if op.operands:
        s += " : " + ", ".join(p.type(t) for t in op.operand_types)
    return s


@_pretty("func.call")
def _p_call(p: BasePrinter, op: Operation, depth: int) -> str | None:
    callee = op.attr("callee")
    if not isinstance(callee, SymbolRefAttr) or not _fits(op, ("callee",)):
        return None
    attrs = p.attr_dict(op, ("callee",))
    return f"{op.name} {p.attr(callee)}({_operands(op)}){attrs} : {p.functional(op)}"


@_pretty("stablehlo.custom_call")
def _p_custom_call(p: BasePrinter, op: Operation, depth: int) -> str | None:
    """custom<CustomCallTarget>: `@target(%a, ...)`."""
    target = op.attr("call_target_name")
    if not isinstance(target, StringAttr) or not _fits(op, ("call_target_name",)):
        return None
    attrs = p.attr_dict(op, ("call_target_name",))
    return f"{op.name} {_symbol(target.value)}({_operands(op)}){attrs} : {p.functional(op)}"


@_pretty("stablehlo.composite")
def _p_composite(p: BasePrinter, op: Operation, depth: int) -> str | None:
    """`$name operands (` ` `(` $composite_regions^ `)`)? attr-dict : functional-type`."""
    name = op.attr("name")
    if not isinstance(name, StringAttr) or not _fits(op, ("name",), n_regions=len(op.regions)):
        return None
    operands = " " + _operands(op) if op.operands else ""
    if op.regions:
        operands += " (" + ", ".join(p.region(r, depth) for r in op.regions) + ")"
    attrs = p.attr_dict(op, ("name",))
    return f"{op.name} {escape_string(name.value)}{operands}{attrs} : {p.functional(op)}"


_WINDOW = (
    ("window_strides", "stride"),
    ("padding", "pad"),
    ("lhs_dilation", "lhs_dilate"),
    ("rhs_dilation", "rhs_dilate"),
    ("window_reversal", "reverse"),
)


def _window_fields(op: Operation) -> list[str] | None:
    """custom<WindowAttributes>: `stride = [..], pad = [[l, h], ..], lhs_dilate = [..],
    rhs_dilate = [..], reverse = [true, ..]`, each only when present."""
    out = []
    for attr_name, key in _WINDOW:
        a = op.attr(attr_name)
        if a is None:
            continue
        if key == "pad":
            if not (
                isinstance(a, DenseElementsAttr)
                and not a.hex
                and a.array.ndim == 2
                and a.type == TensorType((a.array.shape[0], 2), IntegerType(64))
            ):
                return None
            pairs = ", ".join(f"[{int(x)}, {int(y)}]" for x, y in a.array.tolist())
            out.append(f"pad = [{pairs}]")
        elif key == "reverse":
            if not (
                isinstance(a, DenseArrayAttr)
                and isinstance(a.element_type, IntegerType)
                and a.element_type.is_bool
            ):
                return None
            out.append("reverse = [" + ", ".join("true" if v else "false" for v in a.values) + "]")
        else:
            vals = i64_array(a)
            if vals is None:
                return None
            out.append(f"{key} = {_ints(vals)}")
    return out


@_pretty("stablehlo.convolution")
def _p_convolution(p: BasePrinter, op: Operation, depth: int) -> str | None:
    """`(%lhs, %rhs) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {...}`."""
    dn = op.attr("dimension_numbers")
    if not isinstance(dn, ConvDimensionNumbers) or dn.raw:
        return None
    dims = conv_dimensions(dn)
    window = _window_fields(op)
    if dims is None or window is None:
        return None
    custom = ("dimension_numbers", *(n for n, _ in _WINDOW))
    if not _fits(op, custom, n_operands=2, n_results=1):
        return None
    attrs = p.attr_dict(op, custom)
    return (
        f"{op.name}({_operands(op)}) dim_numbers = {dims}, window = "
        f"{{{', '.join(window)}}}{attrs} : {p.functional(op)}"
    )


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
