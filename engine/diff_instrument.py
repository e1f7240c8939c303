"""The instrumented copy of a program that ``hlorun diff`` runs on another engine.

``instrument(module)`` rewrites the entry function so that every op's results are also
results of the function, after the original ones:

- ``func.call`` is inlined (a callee's ops are numbered at each call site);
- ops are numbered in program order (``OpInfo.index``), descending into the regions of
  ``stablehlo.while`` (its body), ``stablehlo.if`` and ``stablehlo.case``; the regions
  of other ops (a reduction's body, a sort's comparator, a while's condition) compute
  per element or per step and are not instrumented;
- a value defined in a while body leaves the loop as an extra loop-carried value (its
  last iteration; zeros before the first), or, with ``iterations``, stacked per
  iteration into a ``[trip count, ...]`` buffer written with ``dynamic_update_slice``;
- a value defined in one branch of an if / case is an extra result of the op (zeros
  when another branch ran);
- constants and results that are not statically shaped tensors are not instrumented.

``Instrumented.outputs`` names each extra result ``op{index}.r{result}`` (the key of
``--against VALUES.npz``); the module attribute ``hlorun.diff_outputs`` lists the same
keys, so an emitted copy describes itself.
"""

from __future__ import annotations

import dataclasses
import itertools
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..parser.errors import SourcePos, UnsupportedError
from ..parser.ir import (
    ArrayAttr,
    Block,
    DenseElementsAttr,
    FunctionType,
    IntegerType,
    Module,
    Operation,
    Region,
    StringAttr,
    TensorType,
    Type,
    Value,
)
from ..shape_inference import OP_TABLE
from .dtypes import dtype_of, static_shape
from .kernels.elementwise import ADD
from .kernels.movement import CONSTANT, RESHAPE
from .kernels.slicing import DYNAMIC_UPDATE_SLICE
from .loading import entry_function

DIFF_POS_FILE = "<hlorun diff>"
"""The file name of the positions the prepared copy's ops carry: line = op index + 1."""

_CALLS = ("func.call", "call")
_RETURNS = ("func.return", "stablehlo.return", "return")
_I64 = TensorType((), IntegerType(64))


@dataclass
class OpInfo:
    """One numbered op: the op as the user's program has it (``op``: its ``pos`` and
    ``location``), its results' types, and the indices of the ops defining its operands
    (None for a function argument or a block argument)."""

    index: int
    op: Operation
    result_types: tuple[Type, ...]
    # per operand: (op index, result index), ("arg", n) for the entry's argument n, or
    # None (a block argument)
    operand_ops: tuple[tuple[Any, int] | None, ...]
    loops: tuple[int, ...] = ()  # indices of the enclosing while ops, outermost first
    instrumented: bool = False
    end: int = -1  # the last op index of its regions (itself when it has none)
    constant: bool = False

    @property
    def completion(self) -> tuple[int, int]:
        """Sort key: the order ops finish in (an op after the ops of its regions)."""
        return (self.end, -self.index)

    @property
    def name(self) -> str:
        return self.op.name


@dataclass
class Output:
    """One extra result of the instrumented copy: op ``index``'s result ``result``,
    stacked over the iterations of ``loops`` (with ``iterations``) or not."""

    key: str
    index: int
    result: int
    type: Type
    stacked: tuple[int, ...] = ()  # trip counts of the stacked loops, outermost first


@dataclass
class Instrumented:
    """The prepared copy (calls inlined, each op's ``pos`` its index), the instrumented
    copy, the numbered ops and the extra outputs (after ``num_results`` original ones)."""

    prepared: Module
    module: Module
    ops: list[OpInfo]
    outputs: list[Output]
    num_results: int
    function: str = "main"


def control_kind(op: Operation) -> str | None:
    """``"while"`` / ``"if"`` / ``"case"`` for an op whose regions run in its block's
    control flow (its row's ``control`` kernel option), else None."""
    row = OP_TABLE.get(op.name)
    return None if row is None else row.kernel_options.get("control")


def is_recorded(t: Type) -> bool:
    return isinstance(t, TensorType) and t.shape is not None and None not in t.shape


def zeros_constant(t: TensorType, name: str) -> Operation:
    """``stablehlo.constant dense<0> : t`` defining ``name``."""
    array = np.zeros(static_shape(t), dtype_of(t.element_type))
    return Operation(
        CONSTANT.name,
        results=(Value(name, t),),
        attributes=(("value", DenseElementsAttr(t, array)),),
        property_names=frozenset({"value"}),
    )


@dataclass
class _Extra:
    value: Value
    output: Output


@dataclass
class _Rewriter:
    module: Module
    instrument: bool
    trip_counts: dict[int, int] | None  # while op index -> trip count (iterations)
    ops: list[OpInfo] = field(default_factory=list)
    _names: Any = field(default_factory=lambda: itertools.count())

    def fresh(self) -> str:
        return f"%v{next(self._names)}"

    def results(self, types: tuple[Type, ...]) -> tuple[Value, ...]:
        base = self.fresh()
        if len(types) == 1:
            return (Value(base, types[0]),)
        return tuple(Value(f"{base}#{i}", t) for i, t in enumerate(types))

    def op(self, name: str, operands: tuple[Value, ...], t: Type, **kw: Any) -> Operation:
        return Operation(name, operands=operands, results=(Value(self.fresh(), t),), **kw)

    # ------------------------------------------------------------------ blocks

    def block(
        self, ops: tuple[Operation, ...], env: dict, loops: tuple[int, ...], record: bool
    ) -> tuple[list[Operation], list[_Extra], tuple[tuple[Value, Any], ...]]:
        """The rewritten ops of a block (without its terminator), the values to carry
        out of it, and the terminator's operands (renamed, each with its producer)."""
        out: list[Operation] = []
        extras: list[_Extra] = []
        for op in ops:
            if op.name in _RETURNS:
                return out, extras, tuple(env[v.name] for v in op.operands)
            if op.name in _CALLS:
                self.inline(op, env, loops, record, out, extras)
                continue
            self.one(op, env, loops, record, out, extras)
        return out, extras, ()

    def inline(self, op, env, loops, record, out, extras) -> None:
        callee = op.attr("callee")
        name = getattr(callee, "root", None)
        fn = self.module.functions.get(name or "")
        if fn is None or fn.body is None:
            raise UnsupportedError(f"hlorun diff: cannot inline a call of @{name}", op.pos)
        inner = {a.name: env[v.name] for a, v in zip(fn.body.entry.arguments, op.operands)}
        body, more, returned = self.block(fn.body.entry.operations, inner, loops, record)
        out.extend(body)
        extras.extend(more)
        for r, entry in zip(op.results, returned):
            env[r.name] = entry

    def one(self, op, env, loops, record, out, extras) -> None:
        index = len(self.ops)
        operands = tuple(env[v.name][0] for v in op.operands)
        info = OpInfo(
            index,
            op,
            op.result_types,
            tuple(env[v.name][1] for v in op.operands),
            loops,
        )
        self.ops.append(info)
        results = self.results(op.result_types)
        for k, (old, new) in enumerate(zip(op.results, results)):
            env[old.name] = (new, (index, k))
        pos = SourcePos(DIFF_POS_FILE, index + 1, 1)
        body_extras: list[_Extra] = []
        if control_kind(op) is not None and record:
            regions, body_extras = self.control_flow(op, index, env, loops)
        else:
            regions = tuple(self.plain_region(r, env) for r in op.regions)
        new_results = results + tuple(e.value for e in body_extras)
        if body_extras:
            new_results = self.results(tuple(v.type for v in new_results))
            for k, (old, new) in enumerate(zip(op.results, new_results)):
                env[old.name] = (new, (index, k))
        out.append(
            dataclasses.replace(
                op, operands=operands, results=new_results, regions=regions, pos=pos
            )
        )
        # ``regions`` may have added carried operands (while): set by control_flow
        if body_extras:
            out[-1] = self._carried(out[-1], body_extras, operands, out)
            for e, v in zip(body_extras, new_results[len(results) :]):
                if e.output.index >= 0:  # (not a loop's iteration counter)
                    extras.append(_Extra(v, e.output))
        info.end = len(self.ops) - 1
        info.constant = op.name == CONSTANT.name
        if record and not info.constant:
            for k, (r, t) in enumerate(zip(new_results[: len(results)], op.result_types)):
                if is_recorded(t):
                    info.instrumented = True
                    extras.append(_Extra(r, Output(f"op{index}.r{k}", index, k, t)))

    def _carried(self, op: Operation, extras: list[_Extra], operands, out) -> Operation:
        """A while op gets the initial values of its extra carried values."""
        if control_kind(op) != "while":
            return op
        inits = []
        for e in extras:
            name = self.fresh()
            out.insert(len(out) - 1, zeros_constant(e.value.type, name))  # type: ignore[arg-type]
            inits.append(Value(name, e.value.type))
        return dataclasses.replace(op, operands=operands + tuple(inits))

    def plain_region(self, region: Region, env: dict, extra_args: tuple[Value, ...] = ()) -> Region:
        """A region renamed, not instrumented (its calls are left as they are);
        ``extra_args`` are appended to its entry block's arguments."""
        blocks = []
        for i, b in enumerate(region.blocks):
            inner = dict(env)
            args = self._args(b, inner) + (extra_args if i == 0 else ())
            ops = []
            for o in b.operations:
                operands = tuple(inner[v.name][0] for v in o.operands)
                if o.name in _RETURNS:
                    ops.append(dataclasses.replace(o, operands=operands))
                    continue
                res = self.results(o.result_types)
                regions = tuple(self.plain_region(r, inner) for r in o.regions)
                for old, n in zip(o.results, res):
                    inner[old.name] = (n, None)
                ops.append(dataclasses.replace(o, operands=operands, results=res, regions=regions))
            blocks.append(dataclasses.replace(b, arguments=args, operations=tuple(ops)))
        return Region(tuple(blocks))

    # ------------------------------------------------------------ control flow

    def control_flow(self, op, index, env, loops) -> tuple[tuple[Region, ...], list[_Extra]]:
        if control_kind(op) == "while":
            return self.while_regions(op, index, env, loops)
        return self.branch_regions(op, env, loops)

    def _args(self, block: Block, inner: dict) -> tuple[Value, ...]:
        args = tuple(Value(self.fresh(), a.type) for a in block.arguments)
        for a, n in zip(block.arguments, args):
            inner[a.name] = (n, None)
        return args

    def while_regions(self, op, index, env, loops):
        cond, body = op.regions
        inner = dict(env)
        body_args = self._args(body.entry, inner)
        ops, extras, entries = self.block(body.entry.operations, inner, (*loops, index), True)
        returned: tuple[Value, ...] = tuple(e[0] for e in entries)
        if not self.instrument:
            extras = []
        trip = None
        if self.trip_counts is not None and extras:
            trip = self.trip_counts.get(index)
            if trip is None:
                raise UnsupportedError(
                    "hlorun diff --iterations: the loop's trip count varies between its "
                    "runs (per-iteration values need one trip count)",
                    op.pos,
                )
        carried: list[_Extra] = []
        extra_args: list[Value] = []
        if trip is not None:
            counter = Value(self.fresh(), _I64)
            one = self.fresh()
            ops.append(
                Operation(
                    CONSTANT.name,
                    results=(Value(one, _I64),),
                    attributes=(("value", DenseElementsAttr(_I64, np.array(1, np.int64))),),
                    property_names=frozenset({"value"}),
                )
            )
            nxt = self.op(ADD.op.name, (counter, Value(one, _I64)), _I64)
            ops.append(nxt)
            zero = self.fresh()
            ops.append(zeros_constant(_I64, zero))
            new_extras = []
            for e in extras:
                t = e.value.type
                assert isinstance(t, TensorType) and t.shape is not None
                stacked_t = TensorType((trip, *t.shape), t.element_type)
                buf = Value(self.fresh(), stacked_t)
                one_t = TensorType((1, *t.shape), t.element_type)
                row = self.op(RESHAPE.name, (e.value,), one_t)
                starts = (counter, *([Value(zero, _I64)] * len(t.shape)))
                upd = self.op(DYNAMIC_UPDATE_SLICE.name, (buf, row.results[0], *starts), stacked_t)
                ops += [row, upd]
                extra_args.append(buf)
                o = e.output
                out_o = Output(o.key, o.index, o.result, o.type, (trip, *o.stacked))
                new_extras.append(_Extra(upd.results[0], out_o))
            extra_args.insert(0, counter)
            returned = (*returned, nxt.results[0], *(e.value for e in new_extras))
            carried = [_Extra(Value("", _I64), Output("", -1, -1, _I64))] + new_extras
        else:
            extra_args = [Value(self.fresh(), e.value.type) for e in extras]
            returned = (*returned, *(e.value for e in extras))
            carried = extras
        ret = Operation("stablehlo.return", operands=returned)
        new_body = Block((*body_args, *extra_args), (*ops, ret))
        cond_extra = tuple(Value(self.fresh(), e.value.type) for e in carried)
        regions = (self.plain_region(cond, env, cond_extra), Region((new_body,)))
        return regions, carried

    def branch_regions(self, op, env, loops):
        done = []
        per_branch: list[list[_Extra]] = []
        for region in op.regions:
            inner = dict(env)
            ops, extras, entries = self.block(region.entry.operations, inner, loops, True)
            if not self.instrument:
                extras = []
            done.append((ops, tuple(e[0] for e in entries)))
            per_branch.append(extras)
        all_extras = [e for extras in per_branch for e in extras]
        regions = []
        for b, (ops, returned) in enumerate(done):
            values = []
            for other, extras in enumerate(per_branch):
                for e in extras:
                    if other == b:
                        values.append(e.value)
                    else:
                        name = self.fresh()
                        ops.append(zeros_constant(e.value.type, name))  # type: ignore[arg-type]
                        values.append(Value(name, e.value.type))
            ret = Operation("stablehlo.return", operands=(*returned, *values))
            regions.append(Region((Block((), (*ops, ret)),)))
        return tuple(regions), all_extras


def instrument(
    module: Module, function: str | None = None, trip_counts: dict[int, int] | None = None
) -> Instrumented:
    """The prepared and the instrumented copies of ``module``'s entry function;
    ``trip_counts`` (while op index -> trip count) stacks values per iteration."""
    fn = entry_function(module, function)
    if fn.body is None:
        raise UnsupportedError(f"hlorun diff: @{fn.name} has no body", fn.pos)
    # the copies' entry is @main (jax.export and IREE call it so) unless that is taken
    name = "main" if "main" not in module.functions else fn.name
    copies: list[tuple[Module, list[OpInfo], list[Output]]] = []
    for on in (False, True):
        rw = _Rewriter(module, on, trip_counts if on else None)
        env: dict = {}
        args = tuple(Value(rw.fresh(), a.type) for a in fn.body.entry.arguments)
        for i, (a, n) in enumerate(zip(fn.body.entry.arguments, args)):
            env[a.name] = (n, ("arg", i))
        body_ops, extras, entries = rw.block(fn.body.entry.operations, env, (), True)
        if not on:
            extras = []
        outputs = [e.output for e in extras]
        returned = tuple(e[0] for e in entries)
        ret = Operation("func.return", operands=(*returned, *(e.value for e in extras)))
        ftype = FunctionType(fn.type.inputs, (*fn.type.results, *(e.value.type for e in extras)))
        new_fn = dataclasses.replace(
            fn,
            name=name,
            type=ftype,
            body=Region((Block(args, (*body_ops, ret)),)),
            result_attrs=fn.result_attrs + (None,) * len(extras) if fn.result_attrs else (),
            visibility=None,
        )
        attrs = tuple((k, v) for k, v in module.attributes if k != "hlorun.diff_outputs") + (
            (("hlorun.diff_outputs", ArrayAttr(tuple(StringAttr(o.key) for o in outputs))),)
            if on
            else ()
        )
        body = tuple(new_fn if x is fn else x for x in module.body)
        copies.append((dataclasses.replace(module, body=body, attributes=attrs), rw.ops, outputs))
    (prepared, ops, _), (instrumented, _, outputs) = copies
    return Instrumented(prepared, instrumented, ops, outputs, len(fn.type.results), name)
