"""The interpreter: functions are prepared once into flat plans, then executed.

Preparing a function (spec "Program execution") resolves each op to its row of the op
table, decodes its attributes, checks its shape function, and assigns every SSA value a
slot in a frame.  Each op becomes a ``Step``: its kernel (or the fast path's NumPy
call), operand and result slots, and the slots whose last use it is.  Each block is
then compiled into one Python function of its frame (engine/emit.py, in the run's
mode); running a function is calling its block's function on a fresh frame.

What the plan decides once, so that running costs the kernels and little else:

* constants, and pure ops of constants (ops with the ``foldable`` trait in the op table:
  broadcasts, reshapes, converts, elementwise ops...; results up to
  ``FOLD_MAX_BYTES``) are evaluated at plan time and
  pre-filled in every new frame (their arrays are shared across runs, so they are
  handed out read-only; a function result that is one is the caller's copy);
* liveness: each value's last use is computed per block (a use inside a nested region
  counts as a use by the op that owns the region); its slot is cleared right after, so
  peak memory stays near the largest live set;
* common elementwise ops on plain dtypes (``engine.fastpath``: the ``ufunc`` and
  ``fast_plan`` columns of the op table; add, multiply, compare, reshape, ...) call
  a NumPy ufunc or operator directly: on 0-d values that is NumPy scalar arithmetic,
  and 0-d values may be kept in frames as NumPy scalars (converted back to 0-d arrays
  for every other kernel, region caller and function result);
* ``maximum(x, 0.0)`` (relu) on f32/f64 is ``max(x + 0, 0)``: exact, -0 < +0 included;
* buffer reuse: a large elementwise result (>= ``INPLACE_MIN_ELEMENTS``) is written into
  the buffer of an operand that dies at this op when nothing else can see that buffer
  (``ownership.sole_reference`` proves no other slot, view, tuple, caller or constant
  holds it); so is a large dynamic_update_slice into its dying operand (a scan's stacked
  output, written slice by slice in place: ``FastCall.into``).
  Kernels that take ``out=`` (an ``out`` parameter, or register option ``out=True``)
  get such a buffer, or None;
* elementwise ops of at least ``PARALLEL_MIN_ELEMENTS`` run as one contiguous piece
  per thread (``engine.parallel``; ``HLORUN_THREADS=1``: one thread);
* while / if / case run their region plans written out in their block's function,
  without ``RegionFn`` calls; a while body's loop-invariant fast steps (on the weights a
  scan carries unchanged: a bias broadcast, a weight's convert) run once per loop, at
  its first iteration (``plan.loop_invariant``; not when a callback sees every step).

Limits (memory cap, step limit, time limit) and the per-op ``callback`` and profile
add their lines to the same compiled code (engine/emit.py's modes).  Every kernel
result is checked against the declared type (dtype and static shape), so a wrong
kernel is an error, never a silently wrong answer.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from itertools import islice
from typing import Any

import numpy as np

from ..parser.errors import HloError, InterpreterError, UnsupportedError, VerificationError
from ..parser.ir import Block, Module, Operation, Region, TensorType
from ..parser.vhlo.walk import iter_ops
from ..shape_inference.decode import decode_op_attributes
from ..shape_inference.optable import OP_TABLE, OpDef
from .emit import CAPS, COUNT, OBSERVE, PLAIN, PROFILE, block_function
from .entry import plain_entry
from .fastpath import fast_op, relu_op
from .fusion import fuse, fusible
from .kernels.quantization import quantized_kernel
from .memory import (
    DEFAULT_BUDGET,
    MemoryBudget,
    held_nbytes,
    reset_current,
    set_current,
    tensor_cap_error,
)
from .plan import (
    CALL_OPS,
    DEFAULT_MEMORY_CAP,
    RETURN_OPS,
    BlockPlan,
    ExecutionContext,
    FunctionPlan,
    Limits,
    Profile,
    Scope,
    Step,
    accepts_out,
    as_array,
    conforms,
    loop_invariant,
    plain_dtype,
    quiet_errors,
    restore_errors,
    static_nbytes,
    touches_quantized,
    value_nbytes,
)
from .region_analysis import KeyTransform, summarize
from .steps import StepCompiler
from .values import RegionFn

__all__ = ["DEFAULT_MEMORY_CAP", "Interpreter", "Limits", "Profile"]

_ndarray = np.ndarray


def _budget(per_tensor: int, live: int) -> MemoryBudget:
    """The run's budget; the default one itself when it applies (then a run finds it
    already current and sets nothing: engine.memory.set_current)."""
    if per_tensor == DEFAULT_BUDGET.per_tensor and live == DEFAULT_BUDGET.live:
        return DEFAULT_BUDGET
    return MemoryBudget(per_tensor, live)


# Constant folding: pure ops whose operands are all constants run once, at plan time,
# when their result takes at most FOLD_MAX_BYTES.
FOLD_MAX_BYTES = 4 << 20

# Calls to functions of at most this many ops (nested regions' ops counted) are planned
# inline: JAX's closed_call, _where, _cumsum, remat and pjit functions, which loop
# bodies call once per iteration.
INLINE_MAX_OPS = 256


class Interpreter(StepCompiler):
    """Runs the functions of one module.  One instance per process of a process grid."""

    def __init__(
        self,
        module: Module,
        *,
        limits: Limits | None = None,
        context: dict[str, Any] | None = None,
        profile: Profile | None = None,
        inplace: bool = True,
        fast_ops: bool = True,
        inline_calls: bool = True,
    ):
        self.module = module
        self.limits = limits or Limits()
        self.context = ExecutionContext(self, **(context or {}))
        self.profile = profile
        self.inplace = inplace  # buffer reuse (off: every result is a new array)
        self.fast_ops = fast_ops  # engine.fastpath (off: every op calls its kernel)
        self._plans: dict[tuple[str, bool], FunctionPlan] = {}
        # calls to small functions planned as the callee's steps (no per-call frame);
        # the names of the callees being inlined (recursion is never inlined)
        self.inline_calls = inline_calls
        self._inlining: list[str] = []
        self._depth = 0
        self.mode = PLAIN  # of the blocks' compiled functions (engine/emit.py)
        self.profile_timers: list[tuple[float, float]] = []  # the profile's clocks
        self._budget_memo = _budget(self.limits.memory_cap, self.limits.live_cap)

    # ---------------------------------------------------------------- preparing
    def plan(self, name: str, batched: bool = False) -> FunctionPlan:
        """The plan of function ``name``; ``batched``: the plan a call from inside a
        region that a kernel runs on whole tensors uses (its values may carry extra
        leading dimensions, as the region's own do)."""
        key = (name, batched)
        plan = self._plans.get(key)
        if plan is None:
            fn = self.module.functions.get(name)
            if fn is None:
                raise InterpreterError(f"no function named @{name} in the module")
            if fn.body is None:
                raise UnsupportedError(f"function @{name} is a declaration without a body", fn.pos)
            plan = self._plans[key] = FunctionPlan(fn)  # callees may refer to it (recursion)
            try:
                scope = Scope(plan, batched=batched)
                plan.block = self._prepare_block(fn.body, scope, plan, top=True)
            except BaseException:
                del self._plans[key]
                raise
            template = [None] * plan.nslots
            for slot, value in plan.consts.items():
                template[slot] = value
            plan.template = template
            assert plan.block.args == tuple(range(len(plan.block.args)))
            plan.returns_consts = any(s in plan.consts for s in plan.block.returns)
            plan.scalar_args = tuple(
                k
                for k, t in enumerate(fn.type.inputs)
                if isinstance(t, TensorType) and t.shape == () and plain_dtype(t) is not None
            )
        return plan

    def _prepare_block(
        self,
        region: Region,
        scope: Scope,
        plan: FunctionPlan,
        top: bool = False,
        loop: bool = False,
    ) -> BlockPlan:
        """The plan of ``region``'s block (``loop``: a while body, whose loop-invariant
        steps are marked ``hoisted``)."""
        if len(region.blocks) != 1:
            raise UnsupportedError(
                f"regions with {len(region.blocks)} blocks are not supported (StableHLO uses one)"
            )
        block: Block = region.blocks[0]
        args = tuple(scope.define(v.name) for v in block.arguments)
        ops = block.operations
        if not ops or ops[-1].name not in RETURN_OPS:
            where = ops[-1] if ops else None
            raise VerificationError(
                "block must end with a return op",
                where.pos if where else plan.function.pos,
                op=where.name if where else None,
            )
        ret = ops[-1]
        names = [v.name for v in ret.operands]
        return self._plan_steps(ops[:-1], args, block.arguments, names, ret, scope, plan, top, loop)

    def _plan_steps(
        self,
        ops: Sequence[Operation],
        args: tuple[int, ...],
        arguments: Sequence[Any],
        names: Sequence[str],
        ret: Operation,
        scope: Scope,
        plan: FunctionPlan,
        top: bool = False,
        loop: bool = False,
    ) -> BlockPlan:
        """The plan of ``ops`` as a block: its arguments in slots ``args`` (the block
        argument values ``arguments``), returning the values ``names`` (read at ``ret``;
        ``loop``: a while body, its loop-invariant steps ``hoisted``)."""
        steps: list[Step] = []
        self._prepare_ops(ops, scope, plan, steps)
        returns = tuple(scope.lookup(n, ret) for n in names)
        bp = BlockPlan(steps, args, returns)
        if loop:  # (a fused run's steps stay in the loop: fusion sees the block whole)
            bp.hoisted = loop_invariant(bp, plan.consts, lambda st: not fusible(st))
            bp.kept = frozenset(steps[k].results[0] for k in bp.hoisted)
        self._liveness(bp, plan, top)
        for st in steps:
            st.run = self._compile(st, plan)
        if self.inplace:  # (off: every op runs alone, each result a new array)
            bp.fused = fuse(bp)  # runs of big elementwise steps: one blocked pass
        bp.max_nbytes = max((st.nbytes for st in steps), default=0)
        bp.max_live = self._live_bytes(bp, arguments)
        for st in steps:  # regions run inline count as this block's (engine/emit.py)
            if st.kind in ("while", "if", "case"):
                for inner in st.blocks:
                    bp.max_nbytes = max(bp.max_nbytes, inner.max_nbytes)
                    bp.max_live = max(bp.max_live, inner.max_live)
        return bp

    def _prepare_ops(
        self, ops: Sequence[Operation], scope: Scope, plan: FunctionPlan, steps: list[Step]
    ) -> None:
        for op in ops:
            callee = self._inline_callee(op) if op.name in CALL_OPS else None
            if callee is None:
                steps.append(self._prepare_op(op, scope, plan))
                continue
            name, body = callee
            # a call inlined at plan time: the callee's ops become steps of this block,
            # its arguments the call's operand slots, the call's results its returns
            operands = [scope.lookup(v.name, op) for v in op.operands]
            inner = Scope(plan, None, scope.batched)  # a callee sees only its arguments
            inner.names.update((a.name, s) for a, s in zip(body.arguments, operands))
            self._inlining.append(name)
            try:
                self._prepare_ops(body.operations[:-1], inner, plan, steps)
            finally:
                self._inlining.pop()
            ret = body.operations[-1]
            for r, v in zip(op.results, ret.operands):
                scope.names[r.name] = inner.lookup(v.name, ret)

    def _inline_callee(self, op: Operation) -> tuple[str, Block] | None:
        """The callee's name and block when a ``func.call`` is inlined at plan time: a
        callee of one block of at most ``INLINE_MAX_OPS`` ops (nested ones counted), not already
        being inlined (recursion), whose signature matches the call (the verifier
        checked it; a mismatch is left to the call step's error)."""
        name = getattr(op.attr("callee"), "root", None)
        if not self.inline_calls or not isinstance(name, str):
            return None
        fn = self.module.functions.get(name)
        if fn is None or fn.body is None or len(fn.body.blocks) != 1 or name in self._inlining:
            return None
        body = fn.body.blocks[0]
        ops = body.operations
        if (
            not ops
            or ops[-1].name not in RETURN_OPS
            or len(body.arguments) != len(op.operands)
            or len(ops[-1].operands) != len(op.results)
            or [a.type for a in body.arguments] != list(op.operand_types)
            or list(ops[-1].operand_types) != list(op.result_types)
            or sum(1 for _ in islice(iter_ops(ops), INLINE_MAX_OPS + 1)) > INLINE_MAX_OPS
        ):
            return None
        return name, body

    @staticmethod
    def _live_bytes(bp: BlockPlan, arguments: Sequence[Any]) -> int:
        """Each step's ``live``: the static bytes of the block's tensors live once it
        ran (arguments, results not yet released; engine/memory.py's live cap); returns
        the largest.  Constants (held by the module already) do not count."""
        size = {s: static_nbytes(v.type) or 0 for s, v in zip(bp.args, arguments)}
        live = peak = sum(size.values())
        for st in bp.steps:
            if st.kind == "constant":
                continue
            for s, t in zip(st.results, st.check_types):
                size[s] = static_nbytes(t) or 0
            live += st.nbytes
            st.live = live
            peak = max(peak, live)
            live -= sum(size.get(s, 0) for s in st.kills)
        return peak

    def _liveness(self, bp: BlockPlan, plan: FunctionPlan, top: bool) -> None:
        """Last uses: each step's ``kills``; the block's ``bind``, ``clear`` and ``free``."""
        steps = bp.steps
        defined = set(bp.args)
        for st in steps:
            defined.update(st.results)
        last: dict[int, int] = {}
        used: set[int] = set(bp.returns)
        for i, st in enumerate(steps):
            for s in st.uses:
                last[s] = i
            used |= st.uses
        returned = set(bp.returns) | bp.kept  # (kept: live through the whole loop)
        consts = plan.consts
        kills: list[list[int]] = [[] for _ in steps]
        for s, i in last.items():
            if s in defined and s not in returned and s not in consts:
                kills[i].append(s)
        for i, st in enumerate(steps):
            for r in st.results:
                if r in last or r in returned or r in consts:
                    continue
                # never read: released by the next step that runs (constants do not)
                nxt = next(
                    (j for j in range(i + 1, len(steps)) if steps[j].kind != "constant"), None
                )
                if nxt is not None:
                    kills[nxt].append(r)
        for st, k in zip(steps, kills):
            st.kills = tuple(sorted(set(k)))
        bp.free = frozenset(used - defined)
        bp.bind = tuple((k, s) for k, s in enumerate(bp.args) if s in used)
        if not top:
            bp.clear = tuple(
                s for s in dict.fromkeys(bp.returns) if s in defined and s not in consts
            )

    def _prepare_region(
        self,
        region: Region,
        scope: Scope,
        plan: FunctionPlan,
        batched: bool = True,
        loop: bool = False,
    ) -> BlockPlan:
        return self._prepare_block(region, Scope(plan, scope, batched), plan, loop=loop)

    def _region_fn(
        self, inner: BlockPlan, region: Region, scope: Scope, plan: FunctionPlan
    ) -> RegionFn:
        block_fn = self.block_fn
        nargs, bind, returns = len(inner.args), inner.bind, inner.returns
        clear = (*inner.clear, *sorted(inner.kept))  # (kept: a while body's hoisted values)

        def call(*values: Any) -> tuple[Any, ...]:
            frame = plan.frames[-1]
            if len(values) != nargs:
                raise InterpreterError(f"region takes {nargs} arguments, got {len(values)}")
            for k, slot in bind:
                frame[slot] = values[k]
            block_fn(inner)(frame)
            out = tuple([frame[s] for s in returns])
            for s in clear:
                frame[s] = None
            return tuple([as_array(v) for v in out])

        summary = summarize(region)
        keys = tuple(
            self._key_fn(sk.transform, region, scope, plan) if sk.transform else None
            for sk in summary.sort_keys or ()
        )
        return RegionFn(region=region, call=call, summary=summary, keys=keys)

    def _key_fn(
        self, transform: KeyTransform, region: Region, scope: Scope, plan: FunctionPlan
    ) -> Callable[[Any], Any]:
        """A comparator's sort key transform (``region_analysis.KeyTransform``): its ops
        planned as a block of their own, compiled like any block, called on a whole
        operand (``RegionFn.key_input``)."""
        block = region.blocks[0]
        inner = Scope(plan, scope, batched=True)
        arg = inner.define(transform.arg)
        argument = next(v for v in block.arguments if v.name == transform.arg)
        ops = [block.operations[k] for k in transform.indices]
        bp = self._plan_steps(ops, (arg,), (argument,), (transform.out,), ops[-1], inner, plan)
        block_fn = self.block_fn
        (out,) = bp.returns

        def key(x: Any) -> Any:
            frame = plan.frames[-1]
            frame[arg] = x
            block_fn(bp)(frame)
            value = frame[out]
            frame[arg] = None
            for s in bp.clear:
                frame[s] = None
            return as_array(value)

        return key

    def _prepare_op(self, op: Operation, scope: Scope, plan: FunctionPlan) -> Step:
        operands = tuple(scope.lookup(v.name, op) for v in op.operands)
        in_region = scope.batched
        blocks: tuple[BlockPlan, ...] = ()
        kind = "kernel"
        fast = None
        if op.name in CALL_OPS:
            fn = self._call_kernel(op, in_region)
            kwargs: dict[str, Any] = {}
            multi = True
            kind = "call"
        else:
            row: OpDef | None = OP_TABLE.get(op.name)
            if row is None or row.kernel is None:
                raise UnsupportedError(
                    "is not supported (hlorun has no kernel for it)", op.pos, op=op.name
                )
            kwargs = decode_op_attributes(op, row)
            quantized = touches_quantized(op)
            if row.regions:
                control = row.kernel_options.get("control")  # while / if / case
                inline = control is not None
                blocks = tuple(
                    self._prepare_region(
                        r, scope, plan, batched=not inline, loop=control == "while" and i == 1
                    )
                    for i, r in enumerate(op.regions)
                )
                fns = [self._region_fn(b, r, scope, plan) for b, r in zip(blocks, op.regions)]
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
                if not quantized and control is not None:
                    kind = control
            multi = row.multi_result
            if not quantized and not row.regions and self.fast_ops:
                maximum = row.ufunc is not None and row.ufunc.extremum == "max"
                relu = relu_op(op, operands, plan.consts) if maximum else None
                fast = fast_op(op, row, kwargs) if relu is None else None
                if relu is not None:
                    fast, operands = relu
                    kind = "fast"
                elif fast is not None:
                    kind = "fast"
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
            if quantized:
                fn = quantized_kernel(op, row, fn)
            elif kind == "kernel" and self.inplace and accepts_out(row):
                kind = "kernel_out"
        results = tuple(scope.define(v.name) for v in op.results)
        nbytes = sum(static_nbytes(v.type) or 0 for v in op.results)
        uses = frozenset(operands).union(*(b.free for b in blocks))
        step = Step(
            op,
            fn,
            operands,
            results,
            kwargs,
            multi,
            op.result_types,
            nbytes,
            in_region=in_region,
            kind=kind,
            blocks=blocks,
            uses=uses,
            fast=fast,
        )
        if not op.regions:
            self._fold(step, plan)
        return step

    def _fold(self, step: Step, plan: FunctionPlan) -> None:
        """Constant folding: a constant, or a pure op (trait ``foldable``) of constants, is
        evaluated once; its slot is pre-filled in every frame.  One whose kernel fails
        stays a step (it fails when, and only if, it runs)."""
        op = step.op
        row = OP_TABLE.get(op.name)
        constant = row is not None and "constant_like" in row.traits
        if constant:
            if len(step.results) != 1:
                return
        elif (
            row is None
            or "foldable" not in row.traits
            or len(step.results) != 1
            or step.kind not in ("kernel", "fast")
            or not all(s in plan.consts for s in step.operands)
            or not 0 < step.nbytes <= FOLD_MAX_BYTES
            or touches_quantized(op)
        ):
            return
        try:
            args = [as_array(plan.consts[s]) for s in step.operands]
            with np.errstate(all="ignore"):
                value = step.fn(*args, **step.kwargs)
        except Exception:
            return
        t = step.check_types[0]
        value = as_array(value)
        if not conforms(value, t):
            return
        if isinstance(value, np.ndarray):
            if value.ndim == 0 and plain_dtype(t) is not None:
                value = value[()]  # a NumPy scalar: fast ops on it are scalar arithmetic
            else:
                if not constant and not value.flags.c_contiguous and any(value.strides):
                    # e.g. a broadcast bias: contiguous, ops on it run at full speed (a
                    # splat stays one element: NumPy reads it as a scalar, and a fused
                    # run or a matmul's neighbour does not stream a full-size copy)
                    value = value.copy(order="C")
                value = value.view()
                value.flags.writeable = False  # shared by every run: never written
        step.kind = "constant"
        step.const = value
        step.nbytes = held_nbytes(value)  # a lazy splat holds one element (engine/memory.py)
        plan.consts[step.results[0]] = value

    def _call_kernel(self, op: Operation, batched: bool = False) -> Callable[..., Any]:
        callee = op.attr("callee")
        name = getattr(callee, "root", None)
        if name is None:
            raise VerificationError("requires a 'callee' symbol", op.pos, op=op.name)
        if name not in self.module.functions:
            raise VerificationError(
                f"'{name}' does not reference a valid function", op.pos, op=op.name
            )
        try:
            self.plan(name, batched)  # prepared now; a callee that cannot be fails when called
        except HloError:
            pass

        def call(*args: Any) -> tuple[Any, ...]:
            return self.call(name, args, batched)

        return call

    # ---------------------------------------------------------------- running
    def _update_mode(self) -> None:
        """The mode of the blocks' compiled functions for the next run (engine/emit.py):
        OBSERVE with a callback and PROFILE with a profile (each with COUNT), COUNT
        with a step or time limit, else PLAIN."""
        limits = self.limits
        observe = OBSERVE if self.context.callback is not None else PLAIN
        if self.profile is not None:
            observe |= PROFILE
        if observe:
            self.mode = observe | COUNT
        elif (
            limits.max_steps is not None
            or limits.timeout is not None
            or limits.deadline is not None
        ):
            self.mode = COUNT
        else:
            self.mode = PLAIN

    def start_run(self, timeout: float | None) -> None:
        """A run starts (Program.execute, engine/entry.py's entries): its step count,
        its deadline ``timeout`` seconds from now, the profile's run."""
        limits = self.limits
        limits.steps = 0
        limits.check_at = 0
        limits.deadline = time.monotonic() + timeout if timeout is not None else None
        self.profile_timers.clear()
        if self.profile is not None:
            self.profile.runs += 1

    def block_fn(self, bp: BlockPlan) -> Callable[[list[Any]], None]:
        """The compiled function of ``bp`` for this run: its mode's, with CAPS for COUNT
        when its static bytes exceed a memory cap (a hook per step then names the op)."""
        mode = self.mode
        if bp.max_nbytes > self.limits.memory_cap or bp.max_live > self.limits.live_cap:
            mode = (mode & (OBSERVE | PROFILE)) | CAPS
        fn = bp.compiled.get(mode)
        return fn if fn is not None else block_function(bp, mode, self)

    def call(self, name: str, args: Sequence[Any], batched: bool = False) -> tuple[Any, ...]:
        plan = self._plans.get((name, batched))
        if plan is None or plan.block is None:
            plan = self.plan(name, batched)
        block = plan.block
        assert block is not None
        nargs = len(block.args)
        if len(args) != nargs:
            raise InterpreterError(
                f"@{name} takes {nargs} arguments, got {len(args)}",
                plan.function.pos,
            )
        frames = plan.frames
        if len(frames) > 2000:
            raise InterpreterError(f"call depth limit exceeded in @{name}", plan.function.pos)
        frame = plan.template.copy()
        frame[:nargs] = args  # a function's arguments take its first slots
        for k in plan.scalar_args:
            a = frame[k]
            if a.__class__ is _ndarray:
                frame[k] = a[()]
        frames.append(frame)
        top = self._depth == 0
        self._depth += 1
        try:
            if top:
                self._update_mode()
                self.profile_timers.clear()
                self.limits.check_at = 0  # the first step's count is checked
                token = quiet_errors()  # NumPy float warnings: the spec defines these results
                budget = set_current(self._budget())
                try:
                    self.block_fn(block)(frame)
                except HloError:
                    raise
                except Exception as e:  # the outermost safety net: a bug, said as one
                    raise InterpreterError(
                        f"internal error: {type(e).__name__}: {e}", plan.function.pos
                    ) from e
                finally:
                    reset_current(budget)
                    restore_errors(token)
            else:
                self.block_fn(block)(frame)
            out = [frame[s] for s in block.returns]
        finally:
            self._depth -= 1
            frames.pop()
        del frame
        return tuple(self._outputs(plan, out, top))

    def _outputs(self, plan: FunctionPlan, out: list[Any], top: bool) -> list[Any]:
        """A function's results as arrays; a caller outside the interpreter (``top``)
        gets its own copy of a result that is a shared constant."""
        if top and plan.returns_consts:
            consts, block = plan.consts, plan.block
            assert block is not None  # a planned function
            self._check_result_copies(plan, [v for s, v in zip(block.returns, out) if s in consts])
            return [
                self._result_copy(v) if s in consts else as_array(v)
                for s, v in zip(block.returns, out)
            ]
        return [v if v.__class__ is _ndarray else as_array(v) for v in out]

    def plain_runner(
        self,
        plan: FunctionPlan,
        sig: Sequence[tuple[np.dtype, tuple[int, ...]]],
        timeout: float | None = None,
    ) -> Callable[[Sequence[Any]], list[Any] | None]:
        """``call`` of ``plan`` as one generated function for ``engine.compile``'s common
        call (engine/entry.py), in this run's mode: its results, or None when it does
        not apply."""
        return plain_entry(self, plan, sig, timeout)

    def _budget(self) -> MemoryBudget:
        """The memory budget kernels check (``engine.memory.reserve``) during a run."""
        limits = self.limits
        budget = self._budget_memo
        if budget.per_tensor != limits.memory_cap or budget.live != limits.live_cap:
            budget = self._budget_memo = _budget(limits.memory_cap, limits.live_cap)
        return budget

    def _check_result_copies(self, plan: FunctionPlan, values: list[Any]) -> None:
        """A returned constant becomes the caller's copy: a lazy splat materializes
        then, so its bytes are checked against the per-tensor cap first."""
        cap = self.limits.memory_cap
        for v in values:
            nbytes = value_nbytes(v)
            if nbytes > cap:
                body = plan.function.body
                ret = body.blocks[0].operations[-1] if body and body.blocks[0].operations else None
                raise InterpreterError(
                    tensor_cap_error(nbytes, cap),
                    ret.pos if ret is not None else plan.function.pos,
                    op=ret.name if ret is not None else None,
                )

    @staticmethod
    def _result_copy(v: Any) -> Any:
        """A function result that is a (shared, read-only) constant: the caller's copy."""
        if isinstance(v, np.ndarray | np.generic):
            return np.array(v)
        return v

    def check_limits_per_iteration(self, op_name: str) -> None:
        """Called by looping kernels once per iteration."""
        limits = self.limits
        limits.steps += 1
        if limits.max_steps is not None and limits.steps > limits.max_steps:
            raise InterpreterError(f"step limit of {limits.max_steps} ops exceeded", op=op_name)
        if limits.deadline is not None and time.monotonic() > limits.deadline:
            raise InterpreterError(f"time limit of {limits.timeout} s exceeded", op=op_name)
