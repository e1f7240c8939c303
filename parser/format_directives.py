"""The named directives of parser/op_format.py's format language (``custom<Name>``): the
text forms upstream writes in C++ (StablehloOps.cpp, AssemblyFormat.cpp), each one
``Element`` that parses and prints its syntax together.  A directive that stands for
a whole op's syntax (``While``, ``Reduce``, ``Constant``) makes its operands, results
and regions itself (``ParseState.values`` / ``whole``).
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
    Block,
    BoolAttr,
    ConvDimensionNumbers,
    DenseArrayAttr,
    DenseElementsAttr,
    DenseResourceAttr,
    DotDimensionNumbers,
    FloatAttr,
    IntegerAttr,
    IntegerType,
    Operation,
    Region,
    StringAttr,
    SymbolRefAttr,
    TensorType,
    Type,
    Value,
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
    result's), arith's `{attrs} 1 : i32` / `true`; and for a ``stablehlo.constant``
    whose value's type is not its result's (quantized results) stablehlo-opt's
    fallback: the name, then the rest of the generic form (`stablehlo.constant()
    <{value = ...}> : () -> type`), which the parser reads back."""

    writes_attributes = True

    spells = ("value",)

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
        if t is None and isinstance(value, BoolAttr) and name == "arith.constant":
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
        if op.name == "arith.constant" and (
            isinstance(value, (IntegerAttr, FloatAttr))
            and value.type is not None
            and value.type == res
            or isinstance(value, BoolAttr)
            and res == I1
        ):
            # arith's `attr-dict $value`: a scalar value carries the result type
            return GLUE + f"{attrs} {p.attr(value)}"
        if op.name != "stablehlo.constant":
            return None
        return GLUE + p.generic(op, st.depth, name=op.name)[len(op.name) :]


class While(Element):
    """stablehlo.while's whole form (StablehloOps.cpp parseWhileOp / printWhileOp):
    `(%iterArg = %init, ...) : types attributes {...}` then, on a new line at the op's
    indentation, `cond {...} do {...}`; both regions take the iteration arguments'
    names (so they must agree), whose types are the operands' and results'."""

    writes_attributes = True

    regions = True

    def parse(self, st: ParseState) -> None:
        p = st.p
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
            raise p.error(f"{len(args)} iteration arguments but {len(types)} types", st.start)
        if c.accept_keyword("attributes"):
            st.dict_attrs = p.parse_attr_dict()
        block_args = tuple(Value(a, t) for a, t in zip(args, types))
        for v in block_args:
            p.value_types[v.name] = v.type
        c.expect_keyword("cond")
        st.regions.append(p.parse_region(block_args))
        c.expect_keyword("do")
        st.regions.append(p.parse_region(block_args))
        st.values = (
            p.make_operands(inits, types, st.start),
            p.make_results(st.defs, types, st.start),
        )

    def print(self, st: PrintState) -> str | None:
        p, op = st.p, st.op
        if len(op.regions) != 2:
            return None
        cond, body = op.regions
        if len(cond.blocks) != 1 or len(body.blocks) != 1:
            return None
        cb, bb = cond.blocks[0], body.blocks[0]
        n = len(op.operands)
        if len(cb.arguments) != n or len(bb.arguments) != n or len(op.results) != n:
            return None
        if cb.label or bb.label or cb.arg_locations or bb.arg_locations or n == 0:
            return None
        types = op.operand_types
        if (
            tuple(a.type for a in cb.arguments) != types
            or tuple(a.type for a in bb.arguments) != types
            or op.result_types != types
            or [a.name for a in cb.arguments] != [a.name for a in bb.arguments]
            or any("#" in a.name for a in bb.arguments)
        ):
            return None
        pairs = ", ".join(f"{a.name} = {v.name}" for a, v in zip(bb.arguments, op.operands))
        s = f"({pairs}) : " + ", ".join(p.type(t) for t in types)
        if op.attributes:
            s += " attributes " + p.dict(op.attributes)
        ind = "  " * st.depth
        return (
            f"{GLUE}{s}\n{ind}cond {p.region(cond, st.depth, entry_args=False)} do "
            f"{p.region(body, st.depth, entry_args=False)}"
        )


# StableHLO's commutative binary ops (HLO_Commutative in StablehloOps.td: add, maximum,
# minimum, multiply and the bitwise / logical and, or, xor)
_COMMUTATIVE = frozenset(
    f"stablehlo.{n}" for n in "add maximum minimum multiply and or xor".split()
)


def _reduce_eligible(op: Operation) -> str | None:
    """The inner op's name when MLIR prints ``reduce`` as `applies <op>`
    (AssemblyFormat.cpp, isReduceEligibleForCompactPrint E1-E5): the body's one op
    before its terminator is a commutative binary op of the reduce's dialect whose
    operands and result share one type, the 0-d tensor of the first input's element
    type; its operands are the block's arguments, in order, and the terminator returns
    its result."""
    if not op.operands or not op.regions[0].blocks:
        return None
    block = op.regions[0].blocks[0]
    if len(block.operations) != 2:
        return None
    inner, ret = block.operations
    first = op.operands[0].type
    if (
        inner.name not in _COMMUTATIVE
        or op.dialect != inner.dialect
        or len(inner.operands) != 2
        or len(inner.results) != 1
        or inner.regions
        or not isinstance(first, TensorType)
    ):
        return None
    t = inner.results[0].type
    if any(v.type != t for v in inner.operands) or t != TensorType((), first.element_type):
        return None
    if [a.name for a in block.arguments] != [v.name for v in inner.operands]:
        return None
    if ret.name.partition(".")[2] != "return":
        return None
    return inner.name if [v.name for v in ret.operands] == [inner.results[0].name] else None


def _reduce_body(name: str, st: TensorType, pos=None) -> Block:
    """The body the `applies <op>` form stands for, as hlorun's parser builds it: the
    block arguments ``%reduce.lhs``, ``%reduce.rhs``, the op's result
    ``%reduce.result``, returned."""
    a0, a1, r = Value("%reduce.lhs", st), Value("%reduce.rhs", st), Value("%reduce.result", st)
    return Block(
        (a0, a1),
        (
            Operation(name, (a0, a1), (r,), pos=pos),
            Operation("stablehlo.return", (r,), pos=pos),
        ),
    )


def _reduce_applies(op: Operation) -> str | None:
    """The inner op's name when ``reduce`` may print as `applies <op>`.

    stablehlo-opt uses that form when the body is one commutative binary op of the same
    dialect on the block arguments (AssemblyFormat.cpp, isReduceEligibleForCompactPrint).
    The form drops the body's value names, and hlorun's parser rebuilds the body with
    the names ``%reduce.lhs``, ``%reduce.rhs`` and ``%reduce.result``: so the printer
    uses it only for a body that is exactly that rebuilt body (a body that came from
    this form); any other body is printed in full with the `reducer` form."""
    if len(op.operands) != 2:
        return None
    init = op.operands[1].type
    block = op.regions[0].blocks[0] if len(op.regions[0].blocks) == 1 else None
    if block is None or len(block.operations) != 2 or not isinstance(init, TensorType):
        return None
    inner = block.operations[0]
    if not _pc()._BARE_ID.match(inner.name):
        return None
    expected = _reduce_body(inner.name, TensorType((), init.element_type))
    return inner.name if block == expected else None


class Reduce(Element):
    """stablehlo.reduce's whole form (StablehloOps.cpp parseReduceOp / printReduceOp):
    `(%x init: %y), ... applies stablehlo.add across dimensions = [1] {attrs} : type`,
    or `... across dimensions = [1] : type` then ` reducer(%a: t, %b: t) ... {body}`
    (pair i of the reducer's arguments: block arguments i and n + i)."""

    writes_attributes = True

    spells = ("dimensions",)
    regions = True

    def parse(self, st: ParseState) -> None:
        p = st.p
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
        st.attrs.append(("dimensions", DenseArrayAttr(I64, p.int_list())))
        if c.peek() == "{":
            st.dict_attrs = p.parse_attr_dict()
        c.expect(":", "and the type signature")
        ins, outs = parse_signature(p)
        operands, results = assign_types(p, inputs + inits, st.defs, ins, outs, st.start)
        st.values = (operands, results)
        n = len(inputs)
        if applies is not None:
            if n != 1:
                raise p.error("'applies' needs a single input", st.start)
            init_t = operands[n].type
            et = init_t.element_type if isinstance(init_t, TensorType) else init_t
            block = _reduce_body(applies, TensorType((), et), p.c.location(st.start))
            st.regions.append(Region((block,)))
            return
        c.expect_keyword("reducer")
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
        st.regions.append(p.parse_region(tuple(firsts + seconds), arg_locs))

    def print(self, st: PrintState) -> str | None:
        p, op = st.p, st.op
        dims = i64_array(op.attr("dimensions"))
        n = len(op.operands)
        if dims is None or n == 0 or n % 2 or len(op.regions) != 1:
            return None
        body = op.regions[0]
        if len(body.blocks) != 1:
            return None
        block = body.blocks[0]
        half = n // 2
        if len(block.arguments) != n or block.label is not None or block.arg_locations:
            return None
        if any("#" in a.name for a in block.arguments):
            return None
        pairs = ", ".join(
            f"({op.operands[i].name} init: {op.operands[i + half].name})" for i in range(half)
        )
        attrs = p.attr_dict(op, self.spells)
        sig = p.functional(op)
        applies = _reduce_eligible(op) if p.canonical else _reduce_applies(op)
        if applies is not None:
            return f"{GLUE}{pairs} applies {applies} across dimensions = {_pc()._ints(dims)}{attrs} : {sig}"
        reducer = "".join(f"({p.block_args(block, (i, i + half))}) " for i in range(half))
        ind = "  " * st.depth
        return (
            f"{GLUE}{pairs} across dimensions = {_pc()._ints(dims)}{attrs} : {sig}\n"
            f"{ind} reducer{reducer} {p.region(body, st.depth, entry_args=False)}"
        )


class Scan(Element):
    """chlo.scan's whole form (ChloOps.td): `(%inputs) inits(%inits) dimension = N
    (attributes {...})? {body} : type`, with its ``operandSegmentSizes`` and
    ``resultSegmentSizes`` (the results past the carries are the outputs).  Read only:
    hlorun writes chlo.scan in the generic form (``OpDecl.prints_format``)."""

    writes_attributes = True

    spells = ("dimension", "operandSegmentSizes", "resultSegmentSizes")
    regions = True

    def parse(self, st: ParseState) -> None:
        p = st.p
        c = p.c
        c.expect("(")
        inputs = p.value_uses(")")
        c.expect_keyword("inits")
        c.expect("(")
        inits = p.value_uses(")")
        c.expect_keyword("dimension")
        c.expect("=")
        st.attrs.append(("dimension", IntegerAttr(p.integer(), I64)))
        if c.accept_keyword("attributes"):
            st.dict_attrs = p.parse_attr_dict()
        st.regions.append(p.parse_region())
        c.expect(":", "and the type signature")
        ins, outs = parse_signature(p)
        operands, results = assign_types(p, inputs + inits, st.defs, ins, outs, st.start)
        st.values = (operands, results)
        n_out = max(len(results) - len(inits), 0)
        st.attrs.append(("operandSegmentSizes", DenseArrayAttr(I32, (len(inputs), len(inits)))))
        st.attrs.append(("resultSegmentSizes", DenseArrayAttr(I32, (n_out, len(inits)))))

    def print(self, st: PrintState) -> str | None:
        return None


DIRECTIVES: dict[str, Callable[[], Element]] = {
    "SliceRanges": SliceRanges,
    "ExponentMantissa": ExponentMantissa,
    "DotDimensionNumbers": DotDimensions,
    "CustomCallTarget": CustomCallTarget,
    "PairwiseOperands": PairwiseOperands,
    "CompositeRegions": CompositeRegions,
    "ConvolutionDimensions": ConvDimensions,
    "WindowAttributes": ConvWindow,
    "Constant": Constant,
    "While": While,
    "Reduce": Reduce,
    "Scan": Scan,
    "KeywordItems": KeywordItems,
}
