"""Constant folding with the interpreter (issue 22): ``fold(module) -> FoldResult``.

Every op whose operands (and the values its regions read) are all constants is
replaced by ``stablehlo.constant`` ops holding its results, computed by running the op
through the interpreter's planned execution: the same kernels, the same plan, so a
folded value is bit for bit what ``run`` gives.  Regions fold with their op (while,
case, if, reduce, sort, map...; a while loop when it ends within ``max_loop_steps``
interpreted steps), and so do calls with constant arguments.  Dead ops and unused
private functions are removed afterwards.

Never folded (``fold_report`` has the reasons): ops with the op table's
``side_effects`` or ``no_fold`` trait, here or anywhere in their regions or callees;
results that are not static tensors or have more than ``max_elements`` elements; ops
whose run raises (they stay as they are).

How: the ops that can fold are found in one walk (phase 1); runs of loop-free ones
are evaluated together as one generated function of no arguments (one plan, one run;
when one of them raises, it is found by its location, or each is run alone), loops and
calls one at a time with the loop budget (phase 2); then the functions are
rebuilt with the constants in place (identical constants of a block shared, as MLIR's
folder does), dead ops dropped and unreachable private functions removed (phase 3).
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Collection, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..parser.errors import UNKNOWN_POS, HloError
from ..parser.ir import (
    ArrayAttr,
    Attribute,
    Block,
    DenseElementsAttr,
    DictionaryAttr,
    Function,
    FunctionType,
    Module,
    Operation,
    Region,
    SymbolRefAttr,
    TensorType,
    Type,
    Value,
    numpy_dtype,
)
from ..shape_inference.optable import OP_TABLE
from .fold_report import (
    DROPPABLE,
    NO_FOLD,
    NOT_CONSTANT,
    NOT_STATIC,
    RAISED,
    SIDE_EFFECTS,
    TOO_LARGE,
    TOO_LONG,
    UNSUPPORTED,
    FoldReport,
    ReportBuilder,
)
from .interpreter import Interpreter
from .kernels.movement import CONSTANT as CONSTANT_ROW
from .loading import prepare
from .plan import CALL_OPS, RETURN_OPS

__all__ = ["FoldResult", "FoldReport", "fold"]

CONSTANT = CONSTANT_ROW.name
HEX_ABOVE = 100  # MLIR's AsmPrinter: a non-splat of more elements prints as "0x..."
_SEVERITY: dict[str | None, int] = {None: 0, NO_FOLD: 1, UNSUPPORTED: 2, SIDE_EFFECTS: 3}


@dataclass(frozen=True)
class FoldResult:
    """The folded module and what folding did (``report.text()`` is a table)."""

    module: Module
    report: FoldReport


def fold(
    module: str | bytes | os.PathLike | Module,
    *,
    max_elements: int = 65536,
    max_loop_steps: int = 100_000,
    functions: Collection[str] | None = None,
    verify: bool = True,
) -> FoldResult:
    """Fold the constant parts of ``module`` (text, bytes, a path or a ``Module``; verified
    first unless ``verify=False``): in every function, or in ``functions``."""
    mod = prepare(module, verify=verify)
    effects = _Effects(mod)
    report = ReportBuilder()
    folder = _Folder(mod, effects, report, max_elements, max_loop_steps)
    names = [
        f.name
        for f in mod.functions.values()
        if f.body is not None and (functions is None or f.name in functions)
    ]
    for name in names:
        fn_body = mod.functions[name].body
        assert fn_body is not None
        for block in fn_body.blocks:
            folder.analyze_block(block, _Scope())
    folder.evaluate()
    new_fns: dict[str, Function] = {}
    for name in names:
        fn = mod.functions[name]
        assert fn.body is not None
        folder.taken = _names_in(fn.body)
        region = _map_blocks(fn.body, lambda b: folder.rebuild_block(b, _Scope()))
        region = _map_blocks(region, lambda b: _dce_block(b, effects, report, folder.sticky)[0])
        new_fns[name] = dataclasses.replace(fn, body=region)
    items = tuple(new_fns.get(x.name, x) if isinstance(x, Function) else x for x in mod.body)
    items = _drop_unused_private(items, report)
    return FoldResult(dataclasses.replace(mod, body=items), report.build(_present(items)))


def _present(items: Sequence[Function | Operation]) -> set[tuple[str, object]]:
    """(name, position) of every op of the folded module, regions included."""
    found: set[tuple[str, object]] = set()
    stack: list[Region] = [x.body for x in items if isinstance(x, Function) and x.body]
    stack += [r for x in items if isinstance(x, Operation) for r in x.regions]
    while stack:
        for block in stack.pop().blocks:
            for op in block.operations:
                found.add((op.name, op.pos))
                stack.extend(op.regions)
    return found


# ------------------------------------------------------------------------- effects
def _symbol_refs(attrs: Iterable[Attribute]) -> Iterator[str]:
    """The root names of the symbol references in ``attrs`` (callee, decomposition,
    called_computations...)."""
    for a in attrs:
        if isinstance(a, SymbolRefAttr):
            yield a.root
        elif isinstance(a, ArrayAttr):
            yield from _symbol_refs(a.elements)
        elif isinstance(a, DictionaryAttr):
            yield from _symbol_refs(v for _, v in a.entries)


_REF_ATTRS = (SymbolRefAttr, ArrayAttr, DictionaryAttr)


def _has_refs(op: Operation) -> bool:
    """Might ``op`` hold a symbol reference (cheap test before ``_symbol_refs``)?"""
    return any(isinstance(a, _REF_ATTRS) for _, a in op.attributes) and any(
        True for _ in _symbol_refs(a for _, a in op.attributes)
    )


def _may_loop(op: Operation) -> bool:
    """Can running ``op`` take unbounded steps: a while loop or a call, here or in its
    regions?  (Those run alone, within ``max_loop_steps``.)"""
    row = OP_TABLE.get(op.name)
    if (row is not None and "loop" in row.traits) or op.name in CALL_OPS or _has_refs(op):
        return True
    return any(_may_loop(inner) for inner in _nested(op))


def _nested(op: Operation) -> Iterator[Operation]:
    for r in op.regions:
        for b in r.blocks:
            yield from b.operations


def _worst(a: str | None, b: str | None) -> str | None:
    return a if _SEVERITY[a] >= _SEVERITY[b] else b


class _Effects:
    """Why an op or function may not fold (None: it may), from the op table's traits
    ``side_effects`` / ``no_fold`` and its kernel column, through regions and symbol
    references (calls, composites); functions solved as a fixed point (recursion)."""

    def __init__(self, module: Module):
        self.functions = module.functions
        self._ops: dict[int, tuple[Operation, str | None]] = {}
        self._fns: dict[str, str | None] = {}
        local: dict[str, str | None] = {}
        calls: dict[str, set[str]] = {}
        for name, fn in self.functions.items():
            local[name], calls[name] = self._local(fn)
        verdict = dict(local)
        changed = True
        while changed:
            changed = False
            for name, callees in calls.items():
                v = verdict[name]
                for c in callees:
                    v = _worst(v, verdict.get(c, UNSUPPORTED))
                if v != verdict[name]:
                    verdict[name], changed = v, True
        self._fns = verdict

    def _local(self, fn: Function) -> tuple[str | None, set[str]]:
        """A function's own verdict (its ops, callees left out) and its callees."""
        if fn.body is None:
            return UNSUPPORTED, set()
        v: str | None = None
        callees: set[str] = set()
        stack = [op for b in fn.body.blocks for op in b.operations]
        while stack:
            op = stack.pop()
            v = _worst(v, self._own(op))
            callees.update(_symbol_refs(a for _, a in op.attributes))
            stack.extend(_nested(op))
        return v, {c for c in callees if c in self.functions or c == fn.name}

    @staticmethod
    def _own(op: Operation) -> str | None:
        name = op.name
        if name in RETURN_OPS or name in CALL_OPS:
            return None
        row = OP_TABLE.get(name)
        if row is None or row.kernel is None:
            return UNSUPPORTED
        if "side_effects" in row.traits:
            return SIDE_EFFECTS
        if "no_fold" in row.traits:
            return NO_FOLD
        return None

    def function(self, name: str) -> str | None:
        return self._fns.get(name, UNSUPPORTED)

    def op(self, op: Operation) -> str | None:
        """The op's verdict: its own, its regions', its callees'."""
        hit = self._ops.get(id(op))
        if hit is not None and hit[0] is op:
            return hit[1]
        v = self._own(op)
        if _has_refs(op):
            for ref in _symbol_refs(a for _, a in op.attributes):
                if ref in self.functions:
                    v = _worst(v, self.function(ref))
                elif op.name in CALL_OPS:
                    v = _worst(v, UNSUPPORTED)
        if op.regions:
            for inner in _nested(op):
                v = _worst(v, self.op(inner))
        self._ops[id(op)] = (op, v)
        return v


# ------------------------------------------------------------------------- analysis
def _uses_and_defs(op: Operation) -> tuple[list[str], set[str]]:
    """The value names read inside ``op``'s regions, and those defined there."""
    used: list[str] = []
    defined: set[str] = set()
    stack = [op]
    while stack:
        o = stack.pop()
        for r in o.regions:
            for b in r.blocks:
                defined.update(a.name for a in b.arguments)
                for inner in b.operations:
                    used.extend(v.name for v in inner.operands)
                    defined.update(v.name for v in inner.results)
                    stack.append(inner)
    return used, defined


def _free_names(op: Operation) -> list[str]:
    """Values of enclosing blocks that ``op``'s regions read (MLIR regions of StableHLO
    ops are not isolated from above)."""
    used, defined = _uses_and_defs(op)
    return list(dict.fromkeys(n for n in used if n not in defined))


@dataclass(eq=False)
class _Candidate:
    """An op whose inputs are all constants: ``inputs`` maps the names it reads to value
    ids; ``results`` are the ids of its results; ``reason`` is set when it stays."""

    op: Operation
    inputs: dict[str, int]
    results: tuple[int, ...]
    heavy: bool  # loops or calls: evaluated alone, within the loop budget
    reason: str | None = None
    error: str | None = None


class _Scope(dict):
    """Value name -> what is known of it (a value id while analysing, a replacement
    value while rebuilding; None: nothing), seeing its enclosing scopes."""

    __slots__ = ("parent",)

    def __init__(self, parent: _Scope | None = None):
        super().__init__()
        self.parent = parent

    def __missing__(self, name: str) -> Any:
        return None if self.parent is None else self.parent[name]

    def child(self) -> _Scope:
        return _Scope(self)


class _Folder:
    def __init__(
        self,
        module: Module,
        effects: _Effects,
        report: ReportBuilder,
        max_elements: int,
        max_loop_steps: int,
    ):
        self.module = module
        self.effects = effects
        self.report = report
        self.max_elements = max_elements
        self.max_loop_steps = max_loop_steps
        self.types: list[TensorType] = []  # value id -> type
        self.const_ops: dict[int, Operation] = {}  # value id -> its stablehlo.constant
        self.values: dict[int, np.ndarray] = {}  # value id -> computed value
        self.candidates: list[_Candidate] = []
        self.by_op: dict[int, _Candidate] = {}
        self.taken: set[str] = set()
        # rebuilt ops whose run failed: kept even when unused (id -> op, held alive)
        self.sticky: dict[int, Operation] = {}
        self._fresh = 0
        eval_name = "__hlorun_fold__"
        while any(n.startswith(eval_name) for n in module.functions):
            eval_name += "_"
        self.eval_name = eval_name
        self._interp: Interpreter | None = None
        self._runs = 0

    def _value(self, i: int) -> Value:
        """Value ``i`` in the evaluation function (a name no program spells)."""
        return Value(f"%__hlorun_fold_{i}", self.types[i])

    def _new_id(self, t: TensorType) -> int:
        self.types.append(t)
        return len(self.types) - 1

    # ---- phase 1 -----------------------------------------------------------------
    def analyze_block(self, block: Block, env: _Scope) -> None:
        for a in block.arguments:
            env[a.name] = None
        for op in block.operations:
            self._analyze_op(op, env)

    def _analyze_op(self, op: Operation, env: _Scope) -> None:
        if op.name in RETURN_OPS:
            return
        if op.name == CONSTANT:
            value = op.attr("value")
            t = op.results[0].type if len(op.results) == 1 else None
            if isinstance(value, DenseElementsAttr) and _static_tensor(t):
                assert isinstance(t, TensorType)
                i = self._new_id(t)
                self.const_ops[i] = op
                env[op.results[0].name] = i
                return
            for r in op.results:  # dense_resource...: the kernel does not read it
                env[r.name] = None
            return
        reason, inputs = self._why_not(op, env)
        if reason is None:
            ids = tuple(self._new_id(r.type) for r in op.results)  # type: ignore[arg-type]
            cand = _Candidate(op, inputs, ids, _may_loop(op))
            self.candidates.append(cand)
            self.by_op[id(op)] = cand
            for r, i in zip(op.results, ids):
                env[r.name] = i
            return
        self.report.keep(op.name, reason, pos=op.pos)
        for r in op.results:
            env[r.name] = None
        for region in op.regions:
            for block in region.blocks:
                self.analyze_block(block, env.child())

    def _why_not(self, op: Operation, env: _Scope) -> tuple[str | None, dict[str, int]]:
        """Why ``op`` cannot fold (None: it can), and the ids of what it reads."""
        verdict = self.effects.op(op)
        if verdict is not None:
            return verdict, {}
        inputs: dict[str, int] = {}
        names = [v.name for v in op.operands]
        if op.regions:
            names += _free_names(op)
        for n in names:
            i = env[n]
            if i is None:
                return NOT_CONSTANT, {}
            inputs[n] = i
        if not op.results or not all(_static_tensor(r.type) for r in op.results):
            return NOT_STATIC, {}
        for r in op.results:
            assert isinstance(r.type, TensorType)
            if _size(r.type) > self.max_elements:
                return TOO_LARGE, {}
        return None, inputs

    # ---- phase 2 -----------------------------------------------------------------
    def evaluate(self) -> None:
        """Run the candidates in program order: loop-free runs of them together, loops
        and calls alone (within ``max_loop_steps``)."""
        cands = self.candidates
        i = 0
        while i < len(cands):
            if cands[i].heavy:
                self._run_alone(cands[i])
                i += 1
                continue
            j = i
            while j < len(cands) and not cands[j].heavy:
                j += 1
            self._run_batch(cands[i:j])
            i = j

    def _known(self, i: int) -> bool:
        return i in self.values or i in self.const_ops

    def _ready(self, group: list[_Candidate]) -> list[_Candidate]:
        """The candidates of ``group`` whose inputs are known or made earlier in it; the
        others stay (an op they read did not fold)."""
        made: set[int] = set()
        out = []
        for c in group:
            if c.reason is None and all(self._known(i) or i in made for i in c.inputs.values()):
                out.append(c)
                made.update(c.results)
            elif c.reason is None:
                c.reason = NOT_CONSTANT
        return out

    def _run_batch(self, group: list[_Candidate]) -> None:
        """Run ``group`` as one function; when it raises, take out the op the error
        names and run the rest again, or run each alone when no single op is named."""
        pending = self._ready(group)
        while pending:
            try:
                out = self._execute(pending, None)
            except Exception as e:  # noqa: BLE001  (any failure of a run: the op stays)
                culprit = _culprit(pending, e)
                if culprit is None:
                    for c in pending:
                        self._run_alone(c)
                    return
                _fail(culprit, e)
                pending = self._ready(pending)
                continue
            self._store(pending, out)
            return

    def _run_alone(self, c: _Candidate) -> None:
        """Run one candidate (a loop or call within the loop budget)."""
        if c.reason is not None:
            return
        if not all(self._known(i) for i in c.inputs.values()):
            c.reason = NOT_CONSTANT
            return
        try:
            out = self._execute([c], self.max_loop_steps if c.heavy else None)
        except Exception as e:  # noqa: BLE001  (any failure of a run: the op stays)
            _fail(c, e)
            return
        self._store([c], out)

    def _store(self, cands: list[_Candidate], out: Any) -> None:
        """Keep each candidate's results (checked against its declared types)."""
        k = 0
        for c in cands:
            vals = [np.array(v, copy=True, order="C") for v in out[k : k + len(c.results)]]
            k += len(c.results)
            bad = [
                (v, self.types[i])
                for v, i in zip(vals, c.results)
                if v.dtype != numpy_dtype(self.types[i])
                or v.shape != tuple(self.types[i].shape or ())
            ]
            if bad:
                v, t = bad[0]
                c.reason, c.error = RAISED, f"internal error: result {v.dtype}{v.shape} for {t}"
                continue
            for v in vals:
                v.flags.writeable = False
            self.values.update(zip(c.results, vals))

    def _execute(self, cands: list[_Candidate], budget: int | None) -> tuple[Any, ...]:
        """Run ``cands`` as one function of no arguments; their results, in order."""
        ops: list[Operation] = []
        defined: set[int] = set()
        for c in cands:
            for i in c.inputs.values():
                if i not in defined:
                    ops.append(self._constant_op(i))
                    defined.add(i)
            ops.append(self._renamed(c))
            defined.update(c.results)
        rets = tuple(self._value(i) for c in cands for i in c.results)
        ops.append(Operation("func.return", operands=rets))
        name = f"{self.eval_name}{self._runs}"
        self._runs += 1
        fn = Function(
            name,
            FunctionType((), tuple(v.type for v in rets)),
            Region((Block((), tuple(ops)),)),
            visibility="private",
        )
        mod = dataclasses.replace(self.module, body=(*self.module.body, fn))
        # One interpreter for the whole fold: the module's functions are planned once
        # (the plans are keyed by name, and only the new evaluation function is new);
        # its Limits object is the one the compiled steps read, so it is updated.
        interp = self._interp
        if interp is None:
            interp = self._interp = Interpreter(mod)
        else:
            interp.module = mod
        interp.limits.max_steps = None if budget is None else budget + len(ops)
        interp.limits.steps = 0
        return interp.call(name, [])

    def _constant_op(self, i: int) -> Operation:
        v = self._value(i)
        op = self.const_ops.get(i)
        if op is not None:
            return dataclasses.replace(op, results=(v,))
        attr = DenseElementsAttr(self.types[i], self.values[i])
        return Operation(CONSTANT, results=(v,), attributes=(("value", attr),))

    def _renamed(self, c: _Candidate) -> Operation:
        names = {n: self._value(i) for n, i in c.inputs.items()}
        op = c.op
        return dataclasses.replace(
            op,
            operands=tuple(names[v.name] for v in op.operands),
            results=tuple(self._value(i) for i in c.results),
            regions=tuple(_rename_region(r, names) for r in op.regions),
        )

    # ---- phase 3 -----------------------------------------------------------------
    def rebuild_block(self, block: Block, rename: _Scope) -> Block:
        """``block`` with folded ops replaced by constants (identical constants of the
        block shared) and uses renamed accordingly."""
        ops: list[Operation] = []
        seen: dict[DenseElementsAttr, Value] = {}
        for op in block.operations:
            c = self.by_op.get(id(op))
            if c is not None and c.op is op and c.reason is None:
                self.report.fold(op.name)
                for r, i in zip(op.results, c.results):
                    attr = _folded_attr(self.types[i], self.values[i])
                    v = seen.get(attr)
                    if v is None:
                        v = r if len(op.results) == 1 else Value(self._fresh_name(), r.type)
                        ops.append(
                            Operation(
                                CONSTANT,
                                results=(v,),
                                attributes=(("value", attr),),
                                property_names=frozenset({"value"}),
                                location=op.location,
                                pos=op.pos,
                            )
                        )
                        seen[attr] = v
                    if v.name != r.name:
                        rename[r.name] = v
                continue
            if c is not None and c.op is op:
                self.report.keep(op.name, c.reason or RAISED, c.error, op.pos)
                if c.reason in (RAISED, TOO_LONG):  # it fails when it runs: never dropped
                    new = self._rewrite(op, rename)
                    self.sticky[id(new)] = new
                    ops.append(new)
                    continue
            if op.name == CONSTANT and len(op.results) == 1:
                attr = op.attr("value")
                if isinstance(attr, DenseElementsAttr):
                    v = seen.get(attr)
                    if v is not None:
                        rename[op.results[0].name] = v
                        continue
                    seen[attr] = op.results[0]
            ops.append(self._rewrite(op, rename))
        return Block(block.arguments, tuple(ops), block.label, block.arg_locations)

    def _rewrite(self, op: Operation, rename: _Scope) -> Operation:
        operands = tuple(rename[v.name] or v for v in op.operands)
        if not op.regions and all(a is b for a, b in zip(operands, op.operands)):
            return op
        regions = tuple(
            _map_blocks(r, lambda b: self.rebuild_block(b, rename.child())) for r in op.regions
        )
        return dataclasses.replace(op, operands=operands, regions=regions)

    def _fresh_name(self) -> str:
        while True:
            name = f"%fold{self._fresh}"
            self._fresh += 1
            if name not in self.taken:
                self.taken.add(name)
                return name


def _culprit(cands: list[_Candidate], e: BaseException) -> _Candidate | None:
    """The candidate an error names by its location, when exactly one does."""
    pos = getattr(e, "pos", None)
    if not isinstance(e, HloError) or pos is None or pos == UNKNOWN_POS:
        return None
    found = [c for c in cands if c.op.pos == pos and (e.op is None or e.op == c.op.name)]
    return found[0] if len(found) == 1 else None


def _fail(c: _Candidate, e: BaseException) -> None:
    msg = e.render() if isinstance(e, HloError) else f"{type(e).__name__}: {e}"
    c.reason = TOO_LONG if "step limit" in msg else RAISED
    c.error = msg


_STATIC: dict[Type, bool] = {}


def _static_tensor(t: Type | None) -> bool:
    """Can a ``stablehlo.constant`` hold a value of type ``t``?"""
    if not isinstance(t, TensorType):
        return False
    known = _STATIC.get(t)
    if known is None:
        known = t.is_static and t.encoding is None
        try:
            numpy_dtype(t)
        except (TypeError, KeyError):
            known = False
        if len(_STATIC) < 4096:
            _STATIC[t] = known
    return known


def _size(t: TensorType) -> int:
    n = 1
    for d in t.shape or ():
        n *= d or 0
    return n


def _folded_attr(t: TensorType, value: np.ndarray) -> DenseElementsAttr:
    """The constant's attribute: printed as hex when MLIR would (a non-splat of more than
    ``HEX_ABOVE`` elements), whichever printer prints it."""
    attr = DenseElementsAttr(t, value)
    if value.size > HEX_ABOVE and not attr.is_splat:
        attr = DenseElementsAttr(t, value, hex=True)
    return attr


# ------------------------------------------------------------------------- IR helpers
def _map_blocks(region: Region, fn: Any) -> Region:
    return Region(tuple(fn(b) for b in region.blocks))


def _rename_region(region: Region, names: dict[str, Value]) -> Region:
    """``region`` with the uses of ``names`` (values of enclosing blocks) renamed."""

    def op_fn(op: Operation) -> Operation:
        return dataclasses.replace(
            op,
            operands=tuple(names.get(v.name, v) for v in op.operands),
            regions=tuple(_rename_region(r, names) for r in op.regions),
        )

    return _map_blocks(
        region,
        lambda b: Block(
            b.arguments, tuple(op_fn(o) for o in b.operations), b.label, b.arg_locations
        ),
    )


def _names_in(region: Region) -> set[str]:
    out: set[str] = set()
    for b in region.blocks:
        out.update(a.name for a in b.arguments)
        for op in b.operations:
            out.update(v.name for v in op.results)
            for r in op.regions:
                out |= _names_in(r)
    return out


def _dce_block(
    block: Block, effects: _Effects, report: ReportBuilder, sticky: Mapping[int, Operation]
) -> tuple[Block, set[str]]:
    """``block`` without the ops whose results nobody reads and that may be dropped (no
    side effects, not ``sticky``: a run that fails stays); also the names of enclosing
    values it reads."""
    live: set[str] = set()
    kept: list[Operation] = []
    for op in reversed(block.operations):
        if (
            op.results
            and op.name not in RETURN_OPS
            and not any(r.name in live for r in op.results)
            and effects.op(op) in DROPPABLE
            and sticky.get(id(op)) is not op
        ):
            report.removed_ops += 1
            continue
        if op.regions:
            regions = []
            for r in op.regions:
                blocks = []
                for b in r.blocks:
                    nb, used = _dce_block(b, effects, report, sticky)
                    blocks.append(nb)
                    live |= used
                regions.append(Region(tuple(blocks)))
            op = dataclasses.replace(op, regions=tuple(regions))
        live.update(v.name for v in op.operands)
        kept.append(op)
    kept.reverse()
    defined = {a.name for a in block.arguments} | {v.name for op in kept for v in op.results}
    new = Block(block.arguments, tuple(kept), block.label, block.arg_locations)
    return new, live - defined


def _drop_unused_private(
    body: tuple[Function | Operation, ...], report: ReportBuilder
) -> tuple[Function | Operation, ...]:
    """``body`` without the private functions no public function or other top-level op
    reaches through symbol references."""
    fns = {x.name: x for x in body if isinstance(x, Function)}
    roots = [x for x in body if not (isinstance(x, Function) and x.visibility == "private")]
    reached: set[str] = {x.name for x in roots if isinstance(x, Function)}
    stack = list(roots)
    while stack:
        item = stack.pop()
        if isinstance(item, Function):
            ops = [op for b in item.body.blocks for op in b.operations] if item.body else []
            refs = set(_symbol_refs(a for _, a in item.attributes))
        else:
            ops, refs = [item], set()
        while ops:
            op = ops.pop()
            refs.update(_symbol_refs(a for _, a in op.attributes))
            ops.extend(_nested(op))
        for name in refs:
            if name in fns and name not in reached:
                reached.add(name)
                stack.append(fns[name])
    out = []
    for x in body:
        if isinstance(x, Function) and x.name not in reached:
            report.removed_functions.append(x.name)
            continue
        out.append(x)
    return tuple(out)
