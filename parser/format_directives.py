"""The named directives of parser/op_format.py's format language (``custom<Name>``) that
spell attributes, operands and types: the text forms upstream writes in C++
(StablehloOps.cpp, AssemblyFormat.cpp; TensorOps.td's type constraints), each one
``Element`` that parses and prints its syntax together.  (The directives of ops with
regions are parser/region_directives.py's.)  A directive that stands for a whole op's
syntax (``Constant``) makes its operands and results itself (``ParseState.values`` /
``whole``).
"""

from __future__ import annotations

import re
from collections.abc import Callable

import numpy as np

from . import lexer as lx
from .default_form import KeywordItems
from .format_elements import (
    GLUE,
    I32,
    Element,
    ParseState,
    PrintState,
    assign_types,
    i64_array,
    parse_signature,
    typed_int,
)
from .ir import (
    BoolAttr,
    ConvDimensionNumbers,
    DenseArrayAttr,
    DenseElementsAttr,
    DenseResourceAttr,
    DotDimensionNumbers,
    FloatAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    StringAttr,
    SymbolRefAttr,
    TensorType,
    Type,
)
from .opdecl import OpDecl
from .type_syntax import I64

I1 = IntegerType(1)


_PRINTER_CORE: list = []


def _pc():
    """parser/printer_core, imported on first use: the printer loads only to print
    (startup; parsing needs none of it)."""
    if not _PRINTER_CORE:
        from . import printer_core

        _PRINTER_CORE.append(printer_core)
    return _PRINTER_CORE[0]


# ---- named directives (upstream's C++ custom<...> parsers and printers) ----------------


class SliceRanges(Element):
    """custom<SliceRanges>: `[start:limit(:stride)?, ...]`, the stride left out when 1."""

    spells = ("start_indices", "limit_indices", "strides")

    def parse(self, st: ParseState) -> None:
        p = st.p
        c = p.c
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
        st.attrs.extend(
            (name, DenseArrayAttr(I64, tuple(v)))
            for name, v in zip(self.spells, (starts, limits, strides))
        )

    def print(self, st: PrintState) -> str | None:
        start, limit, strides = (i64_array(st.op.attr(n)) for n in self.spells)
        if start is None or limit is None or strides is None:
            return None
        if not len(start) == len(limit) == len(strides):
            return None
        return (
            "["
            + ", ".join(
                f"{a}:{b}" + (f":{c}" if c != 1 else "") for a, b, c in zip(start, limit, strides)
            )
            + "]"
        )


class ExponentMantissa(Element):
    """custom<ExponentMantissa>: `e8m10` (exponent_bits, mantissa_bits)."""

    spells = ("exponent_bits", "mantissa_bits")

    def parse(self, st: ParseState) -> None:
        p = st.p
        start = p.c.pos
        m = re.fullmatch(r"e([0-9]+)m([0-9]+)", p.c.keyword() or "")
        if m is None:
            raise p.error("expected a format like e8m10", start)
        st.attrs.append(("exponent_bits", IntegerAttr(int(m.group(1)), I32)))
        st.attrs.append(("mantissa_bits", IntegerAttr(int(m.group(2)), I32)))

    def print(self, st: PrintState) -> str | None:
        e = typed_int(st.op.attr("exponent_bits"), 32)
        m = typed_int(st.op.attr("mantissa_bits"), 32)
        if e is None or m is None or e < 0 or m < 0:
            return None
        return f"e{e}m{m}"


class DotDimensions(Element):
    """custom<DotDimensionNumbers>: `(batching_dims = [..] x [..], )? contracting_dims =
    [..] x [..]` (the batching part only when either side has one)."""

    spells = ("dot_dimension_numbers",)

    def parse(self, st: ParseState) -> None:
        p = st.p
        c = p.c
        pairs: dict[str, tuple[tuple[int, ...], tuple[int, ...]]] = {}
        while True:
            key = c.keyword()
            if key not in ("batching_dims", "contracting_dims") or key in pairs:
                raise p.error(f"expected batching_dims or contracting_dims, found {key!r}")
            c.expect("=")
            lhs = p.int_list()
            c.expect_keyword("x")
            pairs[key] = (lhs, p.int_list())
            save = c.pos
            if not c.accept(","):
                break
            m = lx.KEYWORD_RE.match(c.text, c.skip())
            if m is None or m.group(0) not in ("batching_dims", "contracting_dims"):
                c.pos = save
                break
        b = pairs.get("batching_dims", ((), ()))
        k = pairs.get("contracting_dims", ((), ()))
        st.attrs.append(("dot_dimension_numbers", DotDimensionNumbers(b[0], b[1], k[0], k[1])))

    def print(self, st: PrintState) -> str | None:
        dn = st.op.attr("dot_dimension_numbers")
        if not isinstance(dn, DotDimensionNumbers):
            return None
        s = ""
        if dn.lhs_batching_dimensions or dn.rhs_batching_dimensions:
            s = (
                f"batching_dims = {_pc()._ints(dn.lhs_batching_dimensions)} x "
                f"{_pc()._ints(dn.rhs_batching_dimensions)}, "
            )
        return (
            f"{s}contracting_dims = {_pc()._ints(dn.lhs_contracting_dimensions)} x "
            f"{_pc()._ints(dn.rhs_contracting_dimensions)}"
        )


class CustomCallTarget(Element):
    """custom<CustomCallTarget>: `@target` (a symbol, nested ones joined by ``::``)."""

    spells = ("call_target_name",)

    def parse(self, st: ParseState) -> None:
        p = st.p
        sym = p.parse_attribute()
        if not isinstance(sym, SymbolRefAttr):
            raise p.error("expected a symbol @name")
        target = sym.root if not sym.nested else "::".join((sym.root,) + sym.nested)
        st.attrs.append(("call_target_name", StringAttr(target)))

    def print(self, st: PrintState) -> str | None:
        target = st.op.attr("call_target_name")
        return _pc()._symbol(target.value) if isinstance(target, StringAttr) else None


class PairwiseOperands(Element):
    """``($operand^ : custom<PairwiseOpType>):(`(` `)`)?`` (optimization_barrier):
    `%a, %b : t1, t2` (each result the type of its operand), or `()` without operands
    (right after the attribute dictionary; another dictionary may follow it)."""

    def parse(self, st: ParseState) -> None:
        p = st.p
        c = p.c
        if c.accept("("):
            c.expect(")")
            if c.peek() == "{":
                st.dict_attrs = tuple(st.dict_attrs) + tuple(p.parse_attr_dict())
            st.values = ((), p.make_results(st.defs, (), st.start))
            return
        names = [p.value_use()]
        while c.accept(","):
            names.append(p.value_use())
        c.expect(":", "and the type signature")
        ins, outs = parse_signature(p)
        st.values = assign_types(p, names, st.defs, ins, outs, st.start)

    def print(self, st: PrintState) -> str | None:
        op = st.op
        if op.operand_types != op.result_types:
            return None
        if not op.operands:
            return GLUE + "()"
        return f"{_pc()._names(op.operands)} : " + ", ".join(st.p.type(t) for t in op.operand_types)


class CompositeRegions(Element):
    """`` (` ` `(` $composite_regions^ `)`)? ``: the regions, when there are any."""

    regions = True

    def parse(self, st: ParseState) -> None:
        p = st.p
        c = p.c
        if c.accept("("):
            st.regions.append(p.parse_region())
            while c.accept(","):
                st.regions.append(p.parse_region())
            c.expect(")")

    def print(self, st: PrintState) -> str | None:
        if not st.op.regions:
            return ""
        return "(" + ", ".join(st.p.region(r, st.depth) for r in st.op.regions) + ")"


class ConvDimensions(Element):
    """custom<ConvolutionDimensions>: `[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]`."""

    spells = ("dimension_numbers",)

    def parse(self, st: ParseState) -> None:
        st.attrs.append(("dimension_numbers", st.p.conv_dims_text()))

    def print(self, st: PrintState) -> str | None:
        dn = st.op.attr("dimension_numbers")
        if not isinstance(dn, ConvDimensionNumbers) or dn.raw:
            return None
        return _pc().conv_dimensions(dn)


# custom<WindowAttributes>: attribute -> keyword
_WINDOW = (
    ("window_strides", "stride"),
    ("padding", "pad"),
    ("lhs_dilation", "lhs_dilate"),
    ("rhs_dilation", "rhs_dilate"),
    ("window_reversal", "reverse"),
)


class ConvWindow(Element):
    """`, window = {stride = [..], pad = [[l, h], ..], lhs_dilate = [..], rhs_dilate =
    [..], reverse = [true, ..]}` (custom<WindowAttributes>), each only when present."""

    spells = tuple(n for n, _ in _WINDOW)

    def bind(self, decl: OpDecl) -> None:
        """Only the window attributes ``decl`` declares (dynamic_conv's padding is an
        operand)."""
        self.spells = tuple(n for n, _ in _WINDOW if decl.attr(n) is not None)

    def parse(self, st: ParseState) -> None:
        p = st.p
        c = p.c
        if not c.accept(","):
            return
        c.expect_keyword("window")
        c.expect("=")
        c.expect("{")
        if c.accept("}"):
            return
        names = {k: n for n, k in _WINDOW if n in self.spells}
        while True:
            key = c.keyword()
            start = c.pos
            c.expect("=")
            if key not in names:
                raise p.error(f"unknown window parameter '{key}'", start)
            if key in ("stride", "lhs_dilate", "rhs_dilate"):
                st.attrs.append((names[key], DenseArrayAttr(I64, p.int_list())))
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
                st.attrs.append(
                    ("padding", DenseElementsAttr(TensorType((len(rows), 2), I64), arr))
                )
            else:  # reverse
                st.attrs.append(("window_reversal", DenseArrayAttr(I1, self._bools(st))))
            if c.accept("}"):
                return
            c.expect(",", "or '}' in window")

    @staticmethod
    def _bools(st: ParseState) -> tuple[bool, ...]:
        p = st.p
        c = p.c
        c.expect("[")
        vals: list[bool] = []
        if not c.accept("]"):
            while True:
                w = c.keyword()
                if w in ("true", "false"):
                    vals.append(w == "true")
                elif w is None:
                    vals.append(bool(p.integer()))
                else:
                    raise p.error("expected true, false, 0 or 1 in reverse")
                if c.accept("]"):
                    break
                c.expect(",")
        return tuple(vals)

    def print(self, st: PrintState) -> str | None:
        out = []
        for attr_name, key in _WINDOW:
            if attr_name not in self.spells:
                continue
            a = st.op.attr(attr_name)
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
                out.append(
                    "reverse = [" + ", ".join("true" if v else "false" for v in a.values) + "]"
                )
            else:
                vals = i64_array(a)
                if vals is None:
                    return None
                out.append(f"{key} = {_pc()._ints(vals)}")
        return ", window = {" + ", ".join(out) + "}"


class Constant(Element):
    """A constant's whole form: `{attrs} dense<...> : type` (the value's type is the
    result's).  Options (``custom<Constant(scalars, fallback)>``): ``scalars``, a
    scalar value too (arith's `attr-dict $value`: `{attrs} 1 : i32`, `true`);
    ``fallback``, a value whose type is not the result's (quantized results) in
    stablehlo-opt's fallback, the name then the rest of the generic form
    (`stablehlo.constant() <{value = ...}> : () -> type`: StablehloOps.cpp
    ConstantOp::print), else the op is written in the generic form.  The parser reads
    all of them back."""

    writes_attributes = True

    spells = ("value",)

    def __init__(self, *options: str) -> None:
        unknown = set(options) - {"scalars", "fallback"}
        if unknown:
            raise ValueError(f"custom<Constant>: unknown options {sorted(unknown)}")
        self.scalars = "scalars" in options
        self.fallback = "fallback" in options

    def parse(self, st: ParseState) -> None:
        p = st.p
        c = p.c
        name = st.name
        if c.peek() == "(":
            st.whole = p.generic_body(name, st.defs, st.start)
            return
        if c.peek() == "{":
            st.dict_attrs = tuple(p.parse_attr_dict())
        value = p.parse_attribute()
        t = getattr(value, "type", None)
        if t is None and isinstance(value, BoolAttr) and self.scalars:
            t = I1  # `arith.constant true`: MLIR's `true` is an i1 attribute
        if c.accept(":"):
            t = p.parse_type()
        if not isinstance(t, Type):
            raise p.error(f"'{name}' needs a typed value", st.start)
        st.attrs.append(("value", value))
        st.values = ((), p.make_results(st.defs, [t], st.start))

    def print(self, st: PrintState) -> str | None:
        p, op = st.p, st.op
        if op.operands or len(op.results) != 1:
            return None
        value = op.attr("value")
        res = op.results[0].type
        attrs = p.attr_dict(op, self.spells)
        if isinstance(value, (DenseElementsAttr, DenseResourceAttr)) and value.type == res:
            return GLUE + f"{attrs} {p.attr(value)}"
        if self.scalars and (
            isinstance(value, (IntegerAttr, FloatAttr))
            and value.type is not None
            and value.type == res
            or isinstance(value, BoolAttr)
            and res == I1
        ):
            # arith's `attr-dict $value`: a scalar value carries the result type
            return GLUE + f"{attrs} {p.attr(value)}"
        if not self.fallback:
            return None
        return GLUE + p.generic(op, st.depth, name=op.name)[len(op.name) :]


class InsertTypes(Element):
    """TensorOps.td InsertOp's `type($dest)`: the destination's tensor type, which is
    also the result's; the scalar has its element type (``TypesMatchWith``) and the
    indices are ``index``."""

    def parse(self, st: ParseState) -> None:
        p = st.p
        t = p.parse_type()
        if not isinstance(t, TensorType):
            raise p.error(f"'{st.name}' expects a tensor type, found {t}", st.start)
        n = len(st.operands)
        types = (t.element_type, t) + (IndexType(),) * max(n - 2, 0)
        st.values = (
            p.make_operands(st.operands, types, st.start),
            p.make_results(st.defs, (t,), st.start),
        )

    def print(self, st: PrintState) -> str | None:
        op = st.op
        if len(op.operands) < 2 or len(op.results) != 1:
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
        return st.p.type(t)


DIRECTIVES: dict[str, Callable[..., Element]] = {
    "SliceRanges": SliceRanges,
    "ExponentMantissa": ExponentMantissa,
    "DotDimensionNumbers": DotDimensions,
    "CustomCallTarget": CustomCallTarget,
    "PairwiseOperands": PairwiseOperands,
    "CompositeRegions": CompositeRegions,
    "ConvolutionDimensions": ConvDimensions,
    "WindowAttributes": ConvWindow,
    "Constant": Constant,
    "InsertTypes": InsertTypes,
    "KeywordItems": KeywordItems,
}
