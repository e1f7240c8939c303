"""The named directives of ops with regions (parser/op_format.py's ``custom<Name>``):
each one ``Element`` that parses and prints an op's whole syntax, its operands,
results and regions included (``ParseState.values``), as upstream's C++ does.

Sources: StablehloOps.cpp (parseWhileOp / printWhileOp, parseReduceOp /
printReduceOp), AssemblyFormat.cpp (isReduceEligibleForCompactPrint), ChloOps.td
(ScanOp's assemblyFormat), SCF.cpp (ForOp::parse / ForOp::print), FuncOps.cpp and
FunctionImplementation.cpp (FuncOp::parse / print), BuiltinOps.td (ModuleOp).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

from . import lexer as lx
from .attr_syntax import _symbol_name
from .format_directives import _pc
from .format_elements import (
    GLUE,
    I32,
    Element,
    ParseState,
    PrintState,
    assign_types,
    i64_array,
    parse_signature,
)
from .ir import (
    VISIBILITIES,
    Block,
    DenseArrayAttr,
    DictionaryAttr,
    Function,
    FunctionType,
    IndexType,
    IntegerAttr,
    Operation,
    Region,
    TensorType,
    Type,
    UnitAttr,
    Value,
)
from .type_syntax import I64


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


class ForLoop(Element):
    """scf.for's form before its attribute dictionary (SCF.cpp, ForOp::parse /
    ForOp::print): `[unsigned] %iv = %lb to %ub step %step [iter_args(%a = %init, ...)
    -> (types)] [: type] {body}`.  The induction variable, bounds and step have
    ``type`` (``index`` when left out); the iteration arguments, their initial values
    and the results have the result types; the generic form is ``"scf.for"(%lb, %ub,
    %step, %init...) ({^bb0(%iv, %a...): ...})``.  Without iteration arguments the
    body's ``scf.yield`` is left out (ensureTerminator puts it back)."""

    spells = ("unsignedCmp",)
    regions = True

    def parse(self, st: ParseState) -> None:
        p = st.p
        c = p.c
        start = st.start
        if c.accept_keyword("unsigned"):
            st.attrs.append(("unsignedCmp", UnitAttr()))
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
                    arg = c.expect_match(lx.VALUE_DEF_RE, "an iteration argument").group(0)
                    iter_names.append(arg)
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
        region = p.parse_region(block_args, locs)
        block = region.blocks[0]
        if not (block.operations and block.operations[-1].name == "scf.yield"):
            terminator = Operation("scf.yield", pos=p.c.location(start))
            fixed = dataclasses.replace(block, operations=block.operations + (terminator,))
            region = Region((fixed,) + region.blocks[1:])
        st.regions.append(region)
        st.values = (
            p.make_operands(bounds + inits, (iv_type,) * 3 + types, start),
            p.make_results(st.defs, types, start),
        )

    def print(self, st: PrintState) -> str | None:
        p, op = st.p, st.op
        if len(op.regions) != 1 or len(op.operands) < 3 or len(op.regions[0].blocks) != 1:
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
            # only an operand-less, attribute-less yield may be left out (and put back)
            if ops[-1] != Operation("scf.yield") or (len(ops) > 1 and ops[-2].name == "scf.yield"):
                return None
            body = Region((Block(block.arguments, ops[:-1]),))
        unsigned = op.attr("unsignedCmp")
        if unsigned is not None and not isinstance(unsigned, UnitAttr):
            return None
        lb, ub, step = op.operands[:3]
        s = "unsigned " if unsigned is not None else ""
        s += f"{iv.name} = {lb.name} to {ub.name} step {step.name}"
        if n_iter:
            pairs = ", ".join(f"{a.name} = {v.name}" for a, v in zip(iters, op.operands[3:]))
            s += f" iter_args({pairs}) -> (" + ", ".join(p.type(t) for t in types) + ")"
        if not isinstance(iv.type, IndexType):
            s += " : " + p.type(iv.type)
        return s + " " + p.region(body, st.depth, entry_args=False)


class FunctionOp(Element):
    """func.func's whole form (FuncOps.cpp FuncOp::parse / print, through MLIR's
    function_interface_impl parseFunctionOp / printFunctionOp): `[visibility] @name(
    %a: type {attrs} loc(...), ...) -> (type {attrs}, ...) attributes {...} {body}`;
    a declaration (no body) lists its argument types unnamed, and one result without
    attributes is written bare.  What it reads and writes is the module's ``Function``
    record (``ParseState.whole``), not an Operation; a func.func that is not one (an
    unknown visibility) keeps the generic form."""

    writes_attributes = True
    regions = True
    spells = ("sym_name", "function_type", "sym_visibility", "arg_attrs", "res_attrs")

    def parse(self, st: ParseState) -> None:
        p = st.p
        c = p.c
        start = st.start
        if st.defs:
            raise c.error("func.func has no results", start)
        save = c.pos
        visibility = c.keyword()
        if visibility not in VISIBILITIES:
            visibility = None
            c.pos = save
        name = _symbol_name(c.expect_match(lx.SYMBOL_RE, "the function's @name").group(0), c)
        p.value_types = {}
        c.expect("(", "after the function name")
        args: list[Value] = []
        arg_types: list[Type] = []
        arg_attrs: list[DictionaryAttr | None] = []
        arg_locs: list = []
        if not c.accept(")"):
            while True:
                c.skip()
                if c.text.startswith("%", c.pos):
                    an = c.expect_match(lx.VALUE_DEF_RE, "an argument name").group(0)
                    c.expect(":", "after argument name")
                    t = p.parse_type()
                    args.append(Value(an, t))
                    p.value_types[an] = t
                else:
                    t = p.parse_type()
                arg_types.append(t)
                arg_attrs.append(DictionaryAttr(p.parse_attr_dict()) if c.peek() == "{" else None)
                arg_locs.append(p.trailing_location())
                if c.accept(")"):
                    break
                c.expect(",", "or ')' in function arguments")
        if args and len(args) != len(arg_types):
            raise c.error("either every argument of a function is named or none is", start)
        res_types, res_attrs = self._results(p)
        attributes: tuple = ()
        if c.accept_keyword("attributes"):
            attributes = p.parse_attr_dict()
        body = None
        if c.peek() == "{":
            if not args and arg_types:
                raise c.error("a function with a body must name its arguments")
            locs = tuple(arg_locs) if any(x is not None for x in arg_locs) else ()
            body = p.parse_region(tuple(args), locs)
        st.whole = Function(  # type: ignore[assignment]
            name,
            FunctionType(tuple(arg_types), tuple(res_types)),
            body,
            visibility,
            tuple(arg_attrs) if any(a is not None for a in arg_attrs) else (),
            tuple(res_attrs) if any(a is not None for a in res_attrs) else (),
            attributes,
            p.trailing_location(),
            c.location(start),
        )

    @staticmethod
    def _results(p) -> tuple[list[Type], list[DictionaryAttr | None]]:
        """`-> type`, `-> (type {attrs}, ...)` or nothing (a parenthesized function
        type is one result)."""
        c = p.c
        res_types: list[Type] = []
        res_attrs: list[DictionaryAttr | None] = []
        if not c.accept("->"):
            return res_types, res_attrs
        if c.peek() != "(":
            return [p.parse_type()], [None]
        save = c.pos
        c.expect("(")
        if not c.accept(")"):
            while True:
                res_types.append(p.parse_type())
                res_attrs.append(DictionaryAttr(p.parse_attr_dict()) if c.peek() == "{" else None)
                if c.accept(")"):
                    break
                c.expect(",", "or ')' in function results")
        if c.startswith("->"):  # `-> (a) -> b`: the one result is a function type
            c.pos = save
            return [p._function_type()], [None]
        return res_types, res_attrs

    def print(self, st: PrintState) -> str | None:
        return None  # an Operation named func.func: not a Function, the generic form

    @staticmethod
    def print_function(p, f: Function, depth: int) -> str:
        """The function's text at ``depth`` (its indentation included)."""
        pc = _pc()
        head = "  " * depth + "func.func "
        if f.visibility is not None:
            head += f.visibility + " "
        head += pc._symbol(f.name)
        args = []
        if f.body is None or not f.body.blocks:
            for i, t in enumerate(f.type.inputs):
                args.append(p.type(t) + p._opt_dict(f.arg_attrs, i))
        else:
            entry = f.body.entry
            for i, v in enumerate(entry.arguments):
                args.append(
                    f"{v.name}: {p.type(v.type)}"
                    + p._opt_dict(f.arg_attrs, i)
                    + p._loc(pc._at(entry.arg_locations, i))
                )
        head += "(" + ", ".join(args) + ")"
        results = f.type.results
        if results:
            if (
                len(results) == 1
                and pc._at(f.result_attrs, 0) is None
                and not isinstance(results[0], FunctionType)
            ):
                head += " -> " + p.type(results[0])
            else:
                res = [p.type(t) + p._opt_dict(f.result_attrs, i) for i, t in enumerate(results)]
                head += " -> (" + ", ".join(res) + ")"
        if f.attributes:
            head += " attributes " + p.dict(f.attributes)
        if f.body is not None:
            head += " " + p.region(f.body, depth, entry_args=False)
        return head + p._loc(f.location)


class ModuleOp(Element):
    """builtin.module's form (BuiltinOps.td ModuleOp: `($sym_name^)? attr-dict-with-keyword
    $bodyRegion`, its region's one block unlabelled): `module @name attributes {...} {
    ops } loc(...)`.  What it reads and writes is the ``Module`` record's name,
    attributes, body and location (the file's aliases and resources around it are the
    file's, grammar.Parser's and BasePrinter.module's); a module nested in an op is
    refused, as hlorun runs one module per program."""

    writes_attributes = True
    regions = True
    spells = ("sym_name", "sym_visibility")

    def parse(self, st: ParseState) -> None:
        raise st.p.c.error("nested modules are not supported", st.start)

    def print(self, st: PrintState) -> str | None:
        return None  # an Operation named builtin.module: the generic form

    @staticmethod
    def parse_module(p, start: int) -> tuple:
        """After `module`: ``(name, attributes, body items, location, position)``."""
        c = p.c
        where = p.here(start)
        name = None
        m = c.match(lx.SYMBOL_RE)
        if m:
            name = _symbol_name(m.group(0), c)
        attrs: tuple = ()
        if c.accept_keyword("attributes"):
            attrs = p.parse_attr_dict()
        c.expect("{", "to open the module body")
        items = ModuleOp.items(p, start)
        return name, attrs, items, p.trailing_location(), where

    @staticmethod
    def items(p, start: int) -> tuple:
        """A module body's operations, up to and including its closing ``}``; a nested
        module (either form) is an error."""
        c = p.c
        items: list = []
        while True:
            c.skip()
            if c.pos >= c.n:
                raise c.error("unterminated module: expected '}'", start)
            if c.accept("}"):
                return tuple(items)
            s = c.pos
            if c.text.startswith('"builtin.module"', s):
                raise c.error("nested modules are not supported", s)
            if c.text.startswith(("module", "builtin.module"), s):
                w = c.bare_id()
                if w in ("module", "builtin.module"):
                    raise c.error("nested modules are not supported", s)
                c.pos = s
            items.append(p.parse_operation())

    @staticmethod
    def print_module(p, m) -> list[str]:
        """The module's lines: `module @name attributes {...} {`, its items one level
        in, `} loc(...)`; the items alone, unindented, for a file that had no wrapper
        and nothing to keep in one."""
        out: list[str] = []
        wrapped = not m.implicit or m.name is not None or m.attributes or m.location
        if wrapped:
            head = "module"
            if m.name is not None:
                head += " " + _pc()._symbol(m.name)
            if m.attributes:
                head += " attributes " + p.dict(m.attributes)
            out.append(head + " {")
        depth = 1 if wrapped else 0
        for item in m.body:
            if isinstance(item, Function):
                out.append(p.function(item, depth))
            else:
                out.append(p.operation(item, depth))
        if wrapped:
            out.append("}" + p._loc(m.location))
        return out


DIRECTIVES: dict[str, Callable[..., Element]] = {
    "While": While,
    "Reduce": Reduce,
    "Scan": Scan,
    "ForLoop": ForLoop,
    "FunctionOp": FunctionOp,
    "ModuleOp": ModuleOp,
}
