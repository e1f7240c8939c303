"""Pretty (custom) forms of operations, printed: elementwise ops and the other
``operands attr-dict : types`` forms, keyword forms (``dims = [...]``), constants,
compare, slice, dot / dot_general, calls, custom_call, composite and convolution.

Each printer returns None when the op's IR does not fit its form exactly (the generic
form is then written).  Sources: StablehloOps.td assembly formats and
AssemblyFormat.cpp's custom directives, as exercised by
stablehlo/tests/verifier/print_stablehlo.mlir.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from .ir import (
    ArrayAttr,
    Attribute,
    BoolAttr,
    ComplexType,
    ConvDimensionNumbers,
    DenseArrayAttr,
    DenseElementsAttr,
    DenseResourceAttr,
    DotAlgorithm,
    DotDimensionNumbers,
    EnumAttr,
    FloatAttr,
    IntegerAttr,
    IntegerType,
    Operation,
    StringAttr,
    SymbolRefAttr,
    TensorType,
    TupleType,
)
from .opdecl import keyword_attrs
from .printer_core import (
    BasePrinter,
    _ints,
    _names,
    _symbol,
    conv_dimensions,
    escape_string,
)

_ELEMENTWISE_UNARY = frozenset(
    "abs cbrt ceil convert count_leading_zeros cosine exponential exponential_minus_one "
    "floor imag log log_plus_one logistic not negate popcnt real round_nearest_afz "
    "round_nearest_even rsqrt sign sine sqrt tan tanh uniform_quantize uniform_dequantize".split()
)
_ELEMENTWISE_BINARY = frozenset(
    "add atan2 divide maximum minimum multiply power remainder shift_left "
    "shift_right_arithmetic shift_right_logical subtract and or xor".split()
)
_FUNCTIONAL_OPERANDS = frozenset(
    "is_finite bitcast_convert reshape dynamic_reshape dynamic_update_slice "
    "real_dynamic_slice dynamic_pad".split()
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


def _i64_array(a: Attribute | None) -> tuple[int, ...] | None:
    """The values of an ``array<i64: ...>`` attribute, else None."""
    if (
        isinstance(a, DenseArrayAttr)
        and isinstance(a.element_type, IntegerType)
        and a.element_type.width == 64
        and a.element_type.signedness == "signless"
    ):
        return tuple(int(v) for v in a.values)
    return None


def _typed_int(a: Attribute | None, width: int) -> int | None:
    """The value of ``N : i<width>``, else None."""
    if (
        isinstance(a, IntegerAttr)
        and isinstance(a.type, IntegerType)
        and a.type.width == width
        and a.type.signedness == "signless"
    ):
        return a.value
    return None


def _enum(a: Attribute | None, kind: str) -> str | None:
    """The case of a short-form ``#stablehlo<kind CASE>`` enum whose case is a keyword."""
    if (
        isinstance(a, EnumAttr)
        and a.dialect == "stablehlo"
        and a.kind == kind
        and a.short
        and _KEYWORD.match(a.value)
    ):
        return a.value
    return None


_KEYWORD = re.compile(r"[A-Za-z_][A-Za-z0-9_$]*\Z")


def _operands(op: Operation) -> str:
    return _names(op.operands)


# ---- elementwise and other `operands attr-dict : types` forms ----------------------------


def _simple_form(n_operands: int | None, types: str) -> PrettyFn:
    """`$operands attr-dict : <types>`; ``types`` is "same" (custom<SameOperandsAndResult
    Type>) or "functional"."""

    def fn(p: BasePrinter, op: Operation, depth: int) -> str | None:
        if not _fits(op, n_operands=n_operands, n_results=1):
            return None
        if n_operands is None and not op.operands:
            return None
        sig = p.same_type(op) if types == "same" else p.functional(op)
        return f"{op.name} {_operands(op)}{p.attr_dict(op)} : {sig}"

    return fn


for _n in _ELEMENTWISE_UNARY:
    FORMS[f"stablehlo.{_n}"] = _simple_form(1, "same")
for _n in _ELEMENTWISE_BINARY:
    FORMS[f"stablehlo.{_n}"] = _simple_form(2, "same")
for _n in _FUNCTIONAL_OPERANDS:
    FORMS[f"stablehlo.{_n}"] = _simple_form(None, "functional")
FORMS["stablehlo.clamp"] = _simple_form(3, "same")


@_pretty("stablehlo.complex")
def _p_complex(p: BasePrinter, op: Operation, depth: int) -> str | None:
    """custom<ComplexOpType>: the result type alone when the operands are its real form."""
    if not _fits(op, n_operands=2, n_results=1):
        return None
    res = op.results[0].type
    if (
        isinstance(res, TensorType)
        and isinstance(res.element_type, ComplexType)
        and all(
            v.type == TensorType(res.shape, res.element_type.element_type, res.encoding)
            for v in op.operands
        )
    ):
        sig = p.type(res)
    else:
        sig = p.functional(op)
    return f"{op.name} {_operands(op)}{p.attr_dict(op)} : {sig}"


@_pretty("stablehlo.select")
def _p_select(p: BasePrinter, op: Operation, depth: int) -> str | None:
    """custom<SelectOpType>: `pred_type, result_type` when both branches have the result type."""
    if not _fits(op, n_operands=3, n_results=1):
        return None
    res = op.results[0].type
    if op.operands[1].type == res and op.operands[2].type == res:
        sig = f"{p.type(op.operands[0].type)}, {p.type(res)}"
    else:
        sig = p.functional(op)
    return f"{op.name} {_operands(op)}{p.attr_dict(op)} : {sig}"


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


@_pretty("stablehlo.iota")
def _p_iota(p: BasePrinter, op: Operation, depth: int) -> str | None:
    dim = _typed_int(op.attr("iota_dimension"), 64)
    if dim is None or not _fits(op, ("iota_dimension",), n_operands=0, n_results=1):
        return None
    attrs = p.attr_dict(op, ("iota_dimension",))
    return f"{op.name} dim = {dim}{attrs} : {p.type(op.results[0].type)}"


@_pretty("stablehlo.create_token", "stablehlo.replica_id", "stablehlo.partition_id")
def _p_nullary(p: BasePrinter, op: Operation, depth: int) -> str | None:
    if not _fits(op, n_operands=0, n_results=1):
        return None
    return f"{op.name}{p.attr_dict(op)} : {p.type(op.results[0].type)}"


@_pretty("stablehlo.after_all")
def _p_after_all(p: BasePrinter, op: Operation, depth: int) -> str | None:
    """custom<VariadicSameOperandsAndResultType>."""
    if not _fits(op, n_results=1):
        return None
    operands = " " + _operands(op) if op.operands else ""
    return f"{op.name}{operands}{p.attr_dict(op)} : {p.same_type(op)}"


@_pretty("stablehlo.tuple")
def _p_tuple(p: BasePrinter, op: Operation, depth: int) -> str | None:
    """custom<TupleOpType>: the result tuple type only."""
    if not _fits(op, n_results=1):
        return None
    res = op.results[0].type
    if not isinstance(res, TupleType) or tuple(res.types) != op.operand_types:
        return None
    operands = " " + _operands(op) if op.operands else ""
    return f"{op.name}{operands}{p.attr_dict(op)} : {p.type(res)}"


@_pretty("stablehlo.get_tuple_element")
def _p_get_tuple_element(p: BasePrinter, op: Operation, depth: int) -> str | None:
    index = _typed_int(op.attr("index"), 32)
    if index is None or not _fits(op, ("index",), n_operands=1, n_results=1):
        return None
    attrs = p.attr_dict(op, ("index",))
    return f"{op.name} {op.operands[0].name}[{index}]{attrs} : {p.functional(op)}"


@_pretty("stablehlo.compare")
def _p_compare(p: BasePrinter, op: Operation, depth: int) -> str | None:
    """`$comparison_direction, $lhs, $rhs (, $compare_type)?`: each enum after
    ``BasePrinter.enum_gap`` (older stablehlo-opt's double spaces, or none)."""
    direction = _enum(op.attr("comparison_direction"), "comparison_direction")
    ctype_attr = op.attr("compare_type")
    ctype = _enum(ctype_attr, "comparison_type")
    custom = ("comparison_direction", "compare_type")
    if direction is None or (ctype_attr is not None and ctype is None):
        return None
    if not _fits(op, custom, n_operands=2, n_results=1):
        return None
    gap = p.enum_gap
    s = f"{op.name} {gap}{direction}, {_operands(op)}"
    if ctype is not None:
        s += f", {gap}{ctype}"
    return f"{s}{p.attr_dict(op, custom)} : {p.functional(op)}"


@_pretty("stablehlo.slice")
def _p_slice(p: BasePrinter, op: Operation, depth: int) -> str | None:
    """custom<SliceRanges>: `[start:limit(:stride)?, ...]`, the stride left out when 1."""
    custom = ("start_indices", "limit_indices", "strides")
    start, limit, strides = (_i64_array(op.attr(n)) for n in custom)
    if start is None or limit is None or strides is None:
        return None
    if not (len(start) == len(limit) == len(strides)):
        return None
    if not _fits(op, custom, n_operands=1, n_results=1):
        return None
    ranges = ", ".join(
        f"{a}:{b}" + (f":{c}" if c != 1 else "") for a, b, c in zip(start, limit, strides)
    )
    attrs = p.attr_dict(op, custom)
    return f"{op.name} {op.operands[0].name} [{ranges}]{attrs} : {p.functional(op)}"


def _keyword_form(op_name: str, n_operands: int | None, types: str = "functional") -> PrettyFn:
    """`$operands, key = value, ... attr-dict : <types>`, the items being the keyword
    attributes opdecl declares for ``op_name`` (an optional one may be absent; one the
    form does not print goes to the attribute dictionary)."""
    items = tuple(a for a in keyword_attrs(op_name) if a.printed)
    custom = tuple(a.name for a in items)

    def fn(p: BasePrinter, op: Operation, depth: int) -> str | None:
        if n_operands is not None and len(op.operands) != n_operands:
            return None
        if not _fits(op, custom, n_results=1):
            return None
        parts = [_operands(op)] if op.operands else []
        for decl in items:
            a = op.attr(decl.name)
            if a is None:
                if decl.optional:
                    continue
                return None
            text = _item_text(a, decl.kind, p.enum_gap)
            if text is None:
                return None
            parts.append(f"{decl.key} = {text}")
        sig = p.same_type(op) if types == "same" else p.functional(op)
        return f"{op.name} {', '.join(parts)}{p.attr_dict(op, custom)} : {sig}"

    return fn


def _item_text(a: Attribute, kind: str, gap: str) -> str | None:
    """A keyword item's value by opdecl kind: "i64_array", "i64" (``N : i64`` printed as
    N), "i32", "ui64", "enum:<kind>" (after ``gap``: ``BasePrinter.enum_gap``), "string", "bool"."""
    if kind == "i64_array":
        ints = _i64_array(a)
        return None if ints is None else _ints(ints)
    if kind in ("i64", "i32"):
        n = _typed_int(a, int(kind[1:]))
        return None if n is None else str(n)
    if kind == "ui64":
        if isinstance(a, IntegerAttr) and a.type == IntegerType(64, "unsigned"):
            return str(a.value) if 0 <= a.value < 1 << 64 else None
        return None
    if kind.startswith("enum:"):
        case = _enum(a, kind[5:])
        return None if case is None else gap + case
    if kind == "string":
        return escape_string(a.value) if isinstance(a, StringAttr) else None
    if kind == "bool":
        return ("true" if a.value else "false") if isinstance(a, BoolAttr) else None
    raise AssertionError(kind)


# Ops printed in the keyword form: (operand count, type style) of StablehloOps.td's
# assemblyFormat; the keywords and attributes come from opdecl.
_KEYWORD_FORMS: dict[str, tuple[int | None, str]] = {
    "stablehlo.dynamic_iota": (1, "functional"),
    "stablehlo.broadcast_in_dim": (1, "functional"),
    "stablehlo.broadcast": (1, "functional"),
    "stablehlo.transpose": (1, "functional"),
    "stablehlo.reverse": (1, "same"),
    "stablehlo.dynamic_broadcast_in_dim": (2, "functional"),
    "stablehlo.pad": (2, "functional"),
    "stablehlo.get_dimension_size": (1, "functional"),
    "stablehlo.set_dimension_size": (2, "functional"),
    "stablehlo.einsum": (2, "functional"),
    "stablehlo.unary_einsum": (1, "functional"),
    "stablehlo.fft": (1, "functional"),
    "stablehlo.rng": (3, "functional"),
    "stablehlo.cholesky": (1, "same"),
}
FORMS.update({name: _keyword_form(name, n, types) for name, (n, types) in _KEYWORD_FORMS.items()})


@_pretty("stablehlo.dynamic_slice")
def _p_dynamic_slice(p: BasePrinter, op: Operation, depth: int) -> str | None:
    """`$operand, $start_indices..., sizes = [..]` (at least one start index)."""
    if len(op.operands) < 2:
        return None
    return _DYNAMIC_SLICE(p, op, depth)


_DYNAMIC_SLICE = _keyword_form("stablehlo.dynamic_slice", None)


@_pretty("stablehlo.concatenate")
def _p_concatenate(p: BasePrinter, op: Operation, depth: int) -> str | None:
    if not op.operands:
        return None
    return _CONCATENATE(p, op, depth)


_CONCATENATE = _keyword_form("stablehlo.concatenate", None)


@_pretty("stablehlo.rng_bit_generator")
def _p_rng_bit_generator(p: BasePrinter, op: Operation, depth: int) -> str | None:
    algo = _enum(op.attr("rng_algorithm"), "rng_algorithm")
    if algo is None or not _fits(op, ("rng_algorithm",), n_operands=1, n_results=2):
        return None
    attrs = p.attr_dict(op, ("rng_algorithm",))
    gap = p.enum_gap
    return f"{op.name} {op.operands[0].name}, algorithm = {gap}{algo}{attrs} : {p.functional(op)}"


@_pretty("stablehlo.reduce_precision")
def _p_reduce_precision(p: BasePrinter, op: Operation, depth: int) -> str | None:
    """custom<ExponentMantissa>: `format = e8m10`."""
    custom = ("exponent_bits", "mantissa_bits")
    e = _typed_int(op.attr("exponent_bits"), 32)
    m = _typed_int(op.attr("mantissa_bits"), 32)
    if e is None or m is None or e < 0 or m < 0:
        return None
    if not _fits(op, custom, n_operands=1, n_results=1):
        return None
    attrs = p.attr_dict(op, custom)
    return f"{op.name} {op.operands[0].name}, format = e{e}m{m}{attrs} : {p.same_type(op)}"


def _precision_list(a: Attribute | None) -> list[str] | None:
    if not isinstance(a, ArrayAttr):
        return None
    out = []
    for e in a.elements:
        v = _enum(e, "precision")
        if v is None:
            return None
        out.append(v)
    return out


@_pretty("stablehlo.dot")
def _p_dot(p: BasePrinter, op: Operation, depth: int) -> str | None:
    """custom<PrecisionConfig>: `, precision = [DEFAULT, ...]` when present."""
    prec_attr = op.attr("precision_config")
    prec = _precision_list(prec_attr)
    if prec_attr is not None and prec is None:
        return None
    if not _fits(op, ("precision_config",), n_operands=2, n_results=1):
        return None
    s = f"{op.name} {_operands(op)}"
    if prec is not None:
        s += f", precision = [{', '.join(prec)}]"
    return f"{s}{p.attr_dict(op, ('precision_config',))} : {p.functional(op)}"


@_pretty("stablehlo.dot_general")
def _p_dot_general(p: BasePrinter, op: Operation, depth: int) -> str | None:
    """custom<DotDimensionNumbers> then custom<PrecisionConfigAndAlgorithm>."""
    custom = ("dot_dimension_numbers", "precision_config", "algorithm")
    dn = op.attr("dot_dimension_numbers")
    prec_attr = op.attr("precision_config")
    prec = _precision_list(prec_attr)
    algo = op.attr("algorithm")
    if not isinstance(dn, DotDimensionNumbers) or (prec_attr is not None and prec is None):
        return None
    if algo is not None and not isinstance(algo, DotAlgorithm):
        return None
    if not _fits(op, custom, n_operands=2, n_results=1):
        return None
    s = f"{op.name} {_operands(op)}, "
    if dn.lhs_batching_dimensions or dn.rhs_batching_dimensions:
        s += (
            f"batching_dims = {_ints(dn.lhs_batching_dimensions)} x "
            f"{_ints(dn.rhs_batching_dimensions)}, "
        )
    s += (
        f"contracting_dims = {_ints(dn.lhs_contracting_dimensions)} x "
        f"{_ints(dn.rhs_contracting_dimensions)}"
    )
    if prec is not None:
        s += f", precision = [{', '.join(prec)}]"
    if algo is not None:
        s += ", algorithm = " + p._dot_algorithm_body(algo)
    return f"{s}{p.attr_dict(op, custom)} : {p.functional(op)}"


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
            vals = _i64_array(a)
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
