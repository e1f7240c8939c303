"""The interpreter: functions are prepared once into flat plans, then executed.

Preparing a function (spec "Program execution") resolves each op to its row of the op
table, decodes its attributes, checks its shape function, and assigns every SSA value a
slot in a frame.  Running it is then a loop of ``kernel(*operands, **kwargs)`` calls.
Regions (while/if/case bodies, reduce bodies, sort comparators...) become nested plans
wrapped as ``RegionFn`` objects that run on whole tensors in the enclosing frame.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from parser.errors import (
    HloError,
    InterpreterError,
    UnsupportedError,
    VerificationError,
)
from parser.ir import (
    Block,
    Function,
    Module,
    Operation,
    QuantizedType,
    Region,
    TensorType,
    TupleType,
    TokenType,
    Type,
)
from shape_inference.decode import decode_op_attributes
from shape_inference.optable import OP_TABLE, OpDef

from .dtypes import dtype_of
from .values import Token, RegionFn

RETURN_OPS = frozenset({"func.return", "stablehlo.return", "return", "chlo.return"})
CALL_OPS = frozenset({"func.call", "call"})

DEFAULT_MEMORY_CAP = 4 << 30  # bytes one tensor may take


@dataclass
class Limits:
    """Resource limits of one run: a bad program fails with a clear error, never hangs
    or exhausts memory."""

    memory_cap: int = DEFAULT_MEMORY_CAP
    max_steps: int | None = None
    timeout: float | None = None
    deadline: float | None = None  # set from timeout when a run starts
    steps: int = 0


@dataclass
class ExecutionContext:
    """What kernels registered with ``context=True`` receive as ``context=``."""

    interpreter: Interpreter
    float_eq: str = "bitwise"  # "bitwise" (spec) or "ieee" (official tool) for expect_eq
    probe_dir: str | None = None
    callback: Callable[..., Any] | None = None
    replica_id: int = 0
    partition_id: int = 0
    process: Any = None  # the process grid handle, for collectives
    infeed: list[Any] = field(default_factory=list)
    outfeed: list[Any] = field(default_factory=list)
    probe_counts: dict[str, int] = field(default_factory=dict)
    printed: list[str] = field(default_factory=list)


def _nbytes(t: Type) -> int | None:
    if isinstance(t, TensorType) and t.is_static:
        try:
            itemsize = dtype_of(t).itemsize
        except TypeError:
            return None
        n = 1
        for d in t.shape:
            n *= d
        return n * itemsize
    return None


def _conforms(value: Any, t: Type, in_region: bool = False) -> bool:
    """Does a kernel's result match its declared type (dtype, and static dims)?

    Inside regions, values may carry extra leading (batch) dimensions: reduce, sort and
    scatter bodies run on whole tensors at once, so only the dtype is checked there.
    """
    if isinstance(t, TensorType):
        if not isinstance(value, np.ndarray) or value.dtype != dtype_of(t):
            return False
        shape = t.shape
        if shape is None or in_region:
            return True
        if len(shape) != value.ndim:
            return False
        return all(d is None or d == s for d, s in zip(shape, value.shape))
    if isinstance(t, TokenType):
        return isinstance(value, Token)
    if isinstance(t, TupleType):
        return (
            isinstance(value, tuple)
            and len(value) == len(t.types)
            and all(_conforms(v, s) for v, s in zip(value, t.types))
        )
    return True


def _touches_quantized(op: Operation) -> bool:
    """Has the op a quantized operand or result (spec "quantized operation semantics")?"""
    for v in (*op.operands, *op.results):
        t = v.type
        if isinstance(t, TensorType) and isinstance(t.element_type, QuantizedType):
            return True
    return False


def describe(value: Any) -> str:
    if isinstance(value, np.ndarray):
        return f"array of shape {value.shape} and dtype {value.dtype}"
    return type(value).__name__


@dataclass(eq=False)
class Step:
    op: Operation
    fn: Callable[..., Any]
    operands: tuple[int, ...]
    results: tuple[int, ...]
    kwargs: dict[str, Any]
    multi: bool
    check_types: tuple[Type, ...]
    nbytes: int  # static size of the results, checked against the memory cap
    in_region: bool = False


@dataclass(eq=False)
class BlockPlan:
    steps: list[Step]
    args: tuple[int, ...]
    returns: tuple[int, ...]


@dataclass(eq=False)
class FunctionPlan:
    function: Function
    block: BlockPlan | None = None
    nslots: int = 0
    frames: list[list[Any]] = field(default_factory=list)  # the stack of live frames


class _Scope:
    """SSA name -> slot, with lexical nesting for regions (values from enclosing blocks
    are visible inside regions, as in MLIR)."""

    def __init__(self, plan: FunctionPlan, parent: _Scope | None = None):
        self.plan = plan
        self.parent = parent
        self.names: dict[str, int] = {}

    def define(self, name: str) -> int:
        slot = self.plan.nslots
        self.plan.nslots += 1
        self.names[name] = slot
        return slot

    def lookup(self, name: str, op: Operation) -> int:
        scope: _Scope | None = self
        while scope is not None:
            if name in scope.names:
                return scope.names[name]
            scope = scope.parent
        raise VerificationError(f"use of undefined value {name}", op.pos, op=op.name)


def _combiner(region: Region) -> str | None:
    """``op`` when the region is exactly ``return op(arg0, arg1)`` (a binary combiner)."""
    if len(region.blocks) != 1:
        return None
    block = region.blocks[0]
    if len(block.arguments) != 2 or len(block.operations) != 2:
        return None
    body, ret = block.operations
    if ret.name not in RETURN_OPS or len(ret.operands) != 1 or len(body.results) != 1:
        return None
    if ret.operands[0].name != body.results[0].name or body.regions:
        return None
    names = [v.name for v in body.operands]
    args = [v.name for v in block.arguments]
    if names == args or (names == args[::-1]):
        return body.name
    return None


class Interpreter:
    """Runs the functions of one module.  One instance per process of a process grid."""

    def __init__(
        self,
        module: Module,
        *,
        limits: Limits | None = None,
        context: dict[str, Any] | None = None,
    ):
        self.module = module
        self.limits = limits or Limits()
        self.context = ExecutionContext(self, **(context or {}))
        self._plans: dict[str, FunctionPlan] = {}

    # ---------------------------------------------------------------- preparing
    def plan(self, name: str) -> FunctionPlan:
        plan = self._plans.get(name)
        if plan is None:
            fn = self.module.functions.get(name)
            if fn is None:
                raise InterpreterError(f"no function named @{name} in the module")
            plan = self._plans[name] = FunctionPlan(fn)
            if fn.body is None:
                raise UnsupportedError(f"function @{name} is a declaration without a body", fn.pos)
            scope = _Scope(plan)
            plan.block = self._prepare_block(fn.body, scope, plan)
        return plan

    def _prepare_block(self, region: Region, scope: _Scope, plan: FunctionPlan) -> BlockPlan:
        if len(region.blocks) != 1:
            raise UnsupportedError(
                f"regions with {len(region.blocks)} blocks are not supported (StableHLO uses one)"
            )
        block: Block = region.blocks[0]
        args = tuple(scope.define(v.name) for v in block.arguments)
        steps: list[Step] = []
        ops = block.operations
        if not ops or ops[-1].name not in RETURN_OPS:
            where = ops[-1] if ops else None
            raise VerificationError(
                "block must end with a return op",
                where.pos if where else plan.function.pos,
                op=where.name if where else None,
            )
        for op in ops[:-1]:
            steps.append(self._prepare_op(op, scope, plan))
        ret = ops[-1]
        returns = tuple(scope.lookup(v.name, ret) for v in ret.operands)
        return BlockPlan(steps, args, returns)

    def _region_fn(self, region: Region, scope: _Scope, plan: FunctionPlan) -> RegionFn:
        inner = self._prepare_block(region, _Scope(plan, scope), plan)
        run_block = self._run_block
        args, returns = inner.args, inner.returns

        def call(*values: Any) -> tuple[Any, ...]:
            frame = plan.frames[-1]
            if len(values) != len(args):
                raise InterpreterError(
                    f"region takes {len(args)} arguments, got {len(values)}"
                )
            for slot, v in zip(args, values):
                frame[slot] = v
            run_block(inner, frame)
            return tuple([frame[s] for s in returns])

        return RegionFn(region=region, call=call, combiner=_combiner(region))

    def _prepare_op(self, op: Operation, scope: _Scope, plan: FunctionPlan) -> Step:
        operands = tuple(scope.lookup(v.name, op) for v in op.operands)
        if op.name in CALL_OPS:
            fn = self._call_kernel(op)
            kwargs: dict[str, Any] = {}
            multi = True
        else:
            row: OpDef | None = OP_TABLE.get(op.name)
            if row is None or row.kernel is None:
                raise UnsupportedError(f"op '{op.name}' is not supported", op.pos, op=op.name)
            kwargs = decode_op_attributes(op, row)
            if row.regions:
                fns = [self._region_fn(r, scope, plan) for r in op.regions]
                if row.variadic_regions:
                    kwargs[row.regions[0]] = tuple(fns)
                else:
                    if len(fns) != len(row.regions):
                        raise VerificationError(
                            f"expects {len(row.regions)} regions, got {len(fns)}",
                            op.pos,
                            op=op.name,
                        )
                    kwargs.update(zip(row.regions, fns))
            multi = row.multi_result
            if multi:
                kwargs["result_types"] = op.result_types
            elif len(op.results) == 1:
                kwargs["result_type"] = op.results[0].type
            elif len(op.results) == 0:
                kwargs["result_type"] = None
            else:
                raise VerificationError(
                    f"has {len(op.results)} results but its kernel returns one", op.pos, op=op.name
                )
            if row.kernel_options.get("context"):
                kwargs["context"] = self.context
            if row.kernel_options.get("operand_types"):
                kwargs["operand_types"] = op.operand_types
            fn = row.kernel
            if _touches_quantized(op):
                from .kernels.quantization import quantized_kernel

                fn = quantized_kernel(op, row, fn)
        results = tuple(scope.define(v.name) for v in op.results)
        nbytes = sum(_nbytes(v.type) or 0 for v in op.results)
        return Step(
            op, fn, operands, results, kwargs, multi, op.result_types, nbytes,
            in_region=scope.parent is not None,
        )

    def _call_kernel(self, op: Operation) -> Callable[..., Any]:
        callee = op.attr("callee")
        name = getattr(callee, "root", None)
        if name is None:
            raise VerificationError("requires a 'callee' symbol", op.pos, op=op.name)
        if name not in self.module.functions:
            raise VerificationError(f"'{name}' does not reference a valid function", op.pos, op=op.name)

        def call(*args: Any) -> tuple[Any, ...]:
            return self.call(name, args)

        return call

    # ---------------------------------------------------------------- running
    def call(self, name: str, args: Sequence[Any]) -> tuple[Any, ...]:
        plan = self.plan(name)
        block = plan.block
        assert block is not None
        if len(args) != len(block.args):
            raise InterpreterError(
                f"@{name} takes {len(block.args)} arguments, got {len(args)}",
                plan.function.pos,
            )
        if len(plan.frames) > 2000:
            raise InterpreterError(f"call depth limit exceeded in @{name}", plan.function.pos)
        frame: list[Any] = [None] * plan.nslots
        for slot, v in zip(block.args, args):
            frame[slot] = v
        plan.frames.append(frame)
        try:
            self._run_block(block, frame)
            return tuple([frame[s] for s in block.returns])
        finally:
            plan.frames.pop()

    def _run_block(self, block: BlockPlan, frame: list[Any]) -> None:
        limits = self.limits
        cap = limits.memory_cap
        for step in block.steps:
            if step.nbytes > cap:
                raise InterpreterError(
                    f"result would take {step.nbytes} bytes, more than the memory cap "
                    f"of {cap} bytes",
                    step.op.pos,
                    op=step.op.name,
                )
            limits.steps += 1
            if limits.max_steps is not None and limits.steps > limits.max_steps:
                raise InterpreterError(
                    f"step limit of {limits.max_steps} ops exceeded", step.op.pos, op=step.op.name
                )
            if limits.deadline is not None and (limits.steps & 255) == 0:
                if time.monotonic() > limits.deadline:
                    raise InterpreterError(
                        f"time limit of {limits.timeout} s exceeded", step.op.pos, op=step.op.name
                    )
            try:
                out = step.fn(*[frame[i] for i in step.operands], **step.kwargs)
            except HloError as e:
                if e.pos is None:
                    e = type(e)(e.message, step.op.pos, op=e.op or step.op.name, label=e.label)
                    raise e from None
                raise
            except RecursionError:
                raise InterpreterError("nesting too deep", step.op.pos, op=step.op.name) from None
            except (ValueError, TypeError, IndexError, ArithmeticError, MemoryError) as e:
                raise InterpreterError(
                    f"kernel failed: {type(e).__name__}: {e}", step.op.pos, op=step.op.name
                ) from e
            results = step.results
            if step.multi:
                if len(out) != len(results):
                    raise InterpreterError(
                        f"kernel returned {len(out)} values for {len(results)} results",
                        step.op.pos,
                        op=step.op.name,
                    )
                for slot, value, t in zip(results, out, step.check_types):
                    if type(value) is not np.ndarray and isinstance(value, np.generic):
                        value = np.asarray(value)
                    if not _conforms(value, t, step.in_region):
                        self._bad_result(step, value, t)
                    frame[slot] = value
            elif results:
                if type(out) is not np.ndarray and isinstance(out, np.generic):
                    out = np.asarray(out)
                if not _conforms(out, step.check_types[0], step.in_region):
                    self._bad_result(step, out, step.check_types[0])
                frame[results[0]] = out
            cb = self.context.callback
            if cb is not None and results:
                cb(step.op.name, step.op.pos, [frame[s] for s in results])

    @staticmethod
    def _bad_result(step: Step, value: Any, t: Type) -> None:
        raise InterpreterError(
            f"internal error: kernel produced {describe(value)} for declared type {t}",
            step.op.pos,
            op=step.op.name,
        )

    def check_limits_per_iteration(self, op_name: str = "stablehlo.while") -> None:
        """Called by looping kernels once per iteration."""
        limits = self.limits
        limits.steps += 1
        if limits.max_steps is not None and limits.steps > limits.max_steps:
            raise InterpreterError(f"step limit of {limits.max_steps} ops exceeded", op=op_name)
        if limits.deadline is not None and time.monotonic() > limits.deadline:
            raise InterpreterError(f"time limit of {limits.timeout} s exceeded", op=op_name)
