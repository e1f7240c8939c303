"""The block compiler's emitter: any block plan, in any mode, as one Python function.

Planning (``engine.interpreter``) turns each block into a ``BlockPlan`` of steps
(``plan.Step``: the op, its kernel or inline expression, its operand and result slots,
the slots whose last use it is) and ``engine.fusion`` marks its fused runs.  This
module writes a block out as the body of one generated function, the one place in
engine/ that writes Python source (``Source``):

* a small fast step with an ``inline`` description (the fast path's NumPy call, select,
  a planned slice or dot): fetch the operands, call, release the slots whose last use
  it is, check the result's class and dtype (else its fixer), store;
* a large step with a ``big`` description (an elementwise op, a dynamic_update_slice):
  the same, written into the buffer of a dying operand that nobody else holds
  (``ownership.sole_reference``);
* a fused run (``engine.fusion``): one call of its closure;
* ``stablehlo.while``: a Python loop over its cond's and body's compiled functions,
  the loop-carried values in locals (no copies: the body's slots alone hold them while
  it runs, so their buffers stay reusable), the body's loop-invariant steps
  (``BlockPlan.hoisted``) run at the first iteration only, except in OBSERVE;
  ``if`` / ``case``: the chosen branch's compiled function;
* any other step: a call of its closure (``engine.steps``: the kernel call, the result
  check).

Modes are options of this one emitter, as flags: PLAIN, the steps alone; COUNT
(``max_steps``, ``timeout``), the same code plus a step count per step
(``L.steps += 1``) whose hook runs only when the count reaches the step limit or the
next time to read the clock; CAPS (a block whose static bytes exceed a memory cap), a
hook before each step instead (the caps, the count, the clock); PROFILE (with COUNT or CAPS), the
profile's clock around each step, a fused run timed as the one pass it is; OBSERVE (a
callback, with COUNT or CAPS), each step alone (a fused run split into its steps: a
callback sees every value whole) and the callback's call after it. Results are
bit-identical in every mode: the same calls on the same values in the same order.

Each generated line belongs to a step (the line table ``LINE_STEPS``, line -> step): a
failing line is reported as its step's op (``plan.reraise``) and a Ctrl-C names the op
whose line was running (engine/interrupt.py), at no per-step cost.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from types import CodeType
from typing import TYPE_CHECKING, Any

import numpy as np

from ..parser.errors import InterpreterError
from ..shape_inference.optable import OP_TABLE
from .memory import live_cap_error, tensor_cap_error
from .ownership import sole_reference
from .plan import (
    INPLACE_MIN_ELEMENTS,
    Step,
    as_array,
    may_be_scalar,
    reraise,
    static_size,
    value_nbytes,
)

if TYPE_CHECKING:
    from .interpreter import Interpreter
    from .plan import BlockPlan, Limits

PLAIN, COUNT, CAPS, OBSERVE, PROFILE = 0, 1, 2, 4, 8  # the modes' flags (module docstring)

# while / if / case regions nested deeper than this are calls of their own functions
# (Python allows 20 nested blocks in a function; a loop takes 3 with its try)
INLINE_DEPTH = 4


# Compiled code by source text: blocks of the same shape (a conformance folder's
# programs, a model's repeated layers) write the same text, their values differing
# only in the names the code reads (its globals); compiling costs more than the run of
# a small block, so each text is compiled once (the oldest dropped past the size).
CODE_CACHE_SIZE = 4096
_CODE: dict[tuple[str, str], CodeType] = {}


def clear_code_cache() -> None:
    """Forget the compiled code (``engine.clear_cache``: the next run of any block
    compiles its text again, as a first run in a fresh process does)."""
    _CODE.clear()


class Source:
    """The lines of one generated module, each owned by a step or by none, and the
    names its code reads (its globals)."""

    def __init__(self, env: dict[str, Any] | None = None) -> None:
        self.lines: list[str] = []
        self.owner: list[Step | None] = []
        self.env: dict[str, Any] = {"ND": np.ndarray, "FAILED": step_failed}
        if env:
            self.env.update(env)

    def add(self, line: str, step: Step | None = None) -> None:
        self.lines.append(line)
        self.owner.append(step)

    def compile(self, name: str, filename: str) -> Callable[..., Any]:
        """The function ``name`` the lines define; ``LINE_STEPS[n]``: line n's step."""
        env = self.env
        env["LINE_STEPS"] = (None, *self.owner)
        text = "\n".join(self.lines)
        code = _CODE.get((text, filename))
        if code is None:
            try:
                code = compile(text, filename, "exec")
            except SyntaxError as e:  # a bug of this module: say it with the code
                raise InterpreterError(f"internal error: generated code: {e}\n{text}") from e
            if len(_CODE) >= CODE_CACHE_SIZE:
                del _CODE[next(iter(_CODE))]
            _CODE[text, filename] = code
        exec(code, env)  # noqa: S102
        fn: Callable[..., Any] = env[name]
        return fn


def line_step(tb: Any) -> Step | None:
    """The step whose generated line a traceback entry is at (its function's line
    table; engine/interrupt.py names the op of a Ctrl-C with it)."""
    table = tb.tb_frame.f_globals.get("LINE_STEPS")
    line = tb.tb_lineno
    if isinstance(table, tuple) and 0 < line < len(table):
        st = table[line]
        return st if isinstance(st, Step) else None
    return None


def step_failed(e: BaseException) -> None:
    """Raise ``e`` as the error of the step whose generated line raised it (the line
    table of the function that caught it); return when the line belongs to no step."""
    tb = e.__traceback__
    st = line_step(tb) if tb is not None else None
    if st is not None:
        reraise(st, e)


# ------------------------------------------------------------------------ hooks
_NEVER = 1 << 62  # ``Limits.check_at`` when no limit is to be checked by count


class Hooks:
    """The per-step lines of the checked modes, as calls on one run's limits, context
    and profile (read when they run: a program's options may change between runs).

    COUNT counts steps in the generated code (``L.steps += 1``) and calls a hook only
    when the count passes ``Limits.check_at``: the step limit, or the next multiple of
    256 steps when the clock is to be read; CAPS calls one per step, which also checks
    the caps; OBSERVE with a profile calls one before and one after each step."""

    def __init__(self, interp: Interpreter, steps: Sequence[Step]) -> None:
        self.interp = interp
        self.steps = steps
        self.timers: list[tuple[float, float]] = interp.profile_timers

    @staticmethod
    def _check(st: Step, limits: Limits, every: int = 255) -> None:
        """The step count against ``max_steps``; the clock against the deadline when
        the count is a multiple of ``every`` + 1."""
        n = limits.steps
        if limits.max_steps is not None and n > limits.max_steps:
            raise InterpreterError(
                f"step limit of {limits.max_steps} ops exceeded", st.op.pos, op=st.op.name
            )
        if limits.deadline is not None and (n & every) == 0 and time.monotonic() > limits.deadline:
            raise InterpreterError(
                f"time limit of {limits.timeout} s exceeded", st.op.pos, op=st.op.name
            )

    @staticmethod
    def _next_check(limits: Limits) -> None:
        at = limits.max_steps if limits.max_steps is not None else _NEVER
        if limits.deadline is not None:
            at = min(at, limits.steps | 255)
        limits.check_at = at

    def limits(self, k: int) -> None:
        """Before step ``k`` (CAPS): its static bytes against the caps, then one more
        step counted and checked."""
        st = self.steps[k]
        limits = self.interp.limits
        if st.nbytes > limits.memory_cap:
            raise InterpreterError(
                tensor_cap_error(st.nbytes, limits.memory_cap), st.op.pos, op=st.op.name
            )
        if st.live > limits.live_cap:
            raise InterpreterError(
                live_cap_error(st.live, limits.live_cap), st.op.pos, op=st.op.name
            )
        limits.steps += 1
        self._check(st, limits)

    def counted(self, k: int) -> None:
        """COUNT: the count passed ``check_at`` at step ``k``."""
        limits = self.interp.limits
        self._check(self.steps[k], limits)
        self._next_check(limits)

    def group(self, ks: Sequence[int]) -> None:
        """``limits`` of each step of a fused run, before it runs (CAPS)."""
        for k in ks:
            self.limits(k)

    def group_counted(self, ks: Sequence[int]) -> None:
        """COUNT: the count passed ``check_at`` within a fused run: each of its steps
        checked at its own count."""
        limits = self.interp.limits
        end = limits.steps
        for n, k in enumerate(ks, end - len(ks) + 1):
            limits.steps = n
            self._check(self.steps[k], limits)
        self._next_check(limits)

    def iteration(self, k: int) -> None:
        """Each iteration of the loop of step ``k`` counts as a step; the clock is read
        at every one (CAPS)."""
        limits = self.interp.limits
        limits.steps += 1
        self._check(self.steps[k], limits, every=0)

    def clock(self, k: int) -> None:
        """Before step ``k``: the profile's clock (nested steps' time is kept apart:
        ``Profile._child``)."""
        prof = self.interp.profile
        assert prof is not None
        self.timers.append((prof._child, time.perf_counter()))
        prof._child = 0.0

    def record(self, name: str, ks: Sequence[int], frame: list[Any]) -> None:
        """After step(s) ``ks`` (one step, or a fused run's): the profile's record
        ``name`` (``profile_name``), at the first one's op."""
        self._record(name, [self.steps[k] for k in ks], frame)

    def _record(self, name: str, steps: Sequence[Step], frame: list[Any]) -> None:
        prof = self.interp.profile
        if prof is None or not self.timers:
            return
        saved, t0 = self.timers.pop()
        dt = time.perf_counter() - t0
        inner = prof._child
        prof._child = saved + dt
        nbytes = sum(value_nbytes(frame[s]) for st in steps for s in st.results)
        prof.record(name, dt - inner, dt, nbytes, steps[0].op, t0)


def profile_name(steps: Sequence[Step]) -> str:
    """The profile's row of one step (its op; a constant folded from another op is
    ``"<op> (folded)"``) or of a fused run (``fused run (add, multiply, ...)``: its ops
    run together, block by block, so none has a time of its own)."""
    if len(steps) > 1:
        return f"fused run ({', '.join(st.op.name.rpartition('.')[2] for st in steps)})"
    (st,) = steps
    row = OP_TABLE.get(st.op.name)
    if st.kind == "constant" and (row is None or "constant_like" not in row.traits):
        return st.op.name + " (folded)"
    return st.op.name


def clear_each(st: Step) -> bool:
    """Are a while loop's body result slots cleared every iteration?  For big
    loop-carried values (their buffers are then reused in place); for small ones that
    costs more than it saves."""
    return any(
        (static_size(t) or INPLACE_MIN_ELEMENTS) >= INPLACE_MIN_ELEMENTS for t in st.check_types
    )


# ------------------------------------------------------------------------ steps
class BlockEmitter:
    """Writes the steps of one block into a ``Source``, its values in a frame
    (``frame[slot]``) or, for an entry function whose steps are all written out, in
    local variables (``local``: engine/entry.py's ``LocalValues``)."""

    def __init__(
        self, src: Source, mode: int = PLAIN, interp: Interpreter | None = None, local: Any = None
    ) -> None:
        self.src = src
        self.mode = mode
        self.interp = interp
        self.local = local  # entry.LocalValues, or None: values in ``frame``
        # how many of a0, a1, .. (and r) hold values of inline steps (released before
        # closure calls, which check who holds a buffer)
        self.temps = 0
        self.numbers: dict[int, int] = {}  # id(step) -> its number in this function
        self.steps: list[Step] = []  # the steps by number (what the hooks read)
        self.hooks: Hooks | None = None
        if mode:
            assert interp is not None
            self.hooks = Hooks(interp, self.steps)
            src.env["L"] = interp.limits
        self.depth = 0  # loops written out inside loops (Python nests 20 blocks at most)

    def number(self, st: Step) -> int:
        """The step's number in this function (its generated names end with it)."""
        k = self.numbers.get(id(st))
        if k is None:
            k = self.numbers[id(st)] = len(self.steps)
            self.steps.append(st)
        return k

    def body(self, bp: BlockPlan, pad: str, skip: frozenset[int] = frozenset()) -> None:
        """The steps of ``bp`` in order (but those at indices ``skip``), with the mode's
        lines: a fused run as one call, except in OBSERVE (each step alone: a callback
        sees every value)."""
        add, mode, hooks = self.src.add, self.mode, self.hooks
        fused = bp.fused if not mode & OBSERVE else {}
        member = {k for ks, _run in fused.values() for k in ks}
        for k, st in enumerate(bp.steps):
            if k in skip:
                continue
            n = self.number(st)
            if k in fused:
                ks, run = fused[k]
                self.release_temps(st, pad)
                if hooks is not None:  # (every mode but PLAIN has its hooks)
                    group = self.bind(f"KS{n}", tuple(self.number(bp.steps[j]) for j in ks))
                    if mode & CAPS:
                        add(f"{pad}{self.bind('G', hooks.group)}({group})", st)
                    else:
                        add(f"{pad}L.steps += {len(ks)}", st)
                        add(f"{pad}if L.steps > L.check_at:", st)
                        add(f"{pad}    {self.bind('GC', hooks.group_counted)}({group})", st)
                if hooks is not None and mode & PROFILE:
                    add(f"{pad}{self.bind('CLOCK', hooks.clock)}({n})", st)
                add(f"{pad}{self.bind(f'FR{n}', run)}(frame)", st)
                if hooks is not None and mode & PROFILE:
                    name = self.bind(f"PN{n}", profile_name([bp.steps[j] for j in ks]))
                    add(f"{pad}{self.bind('RECORD', hooks.record)}({name}, {group}, frame)", st)
                continue
            if k in member or (mode == PLAIN and st.kind == "constant"):
                continue
            self.one(st, n, pad)

    def one(self, st: Step, n: int, pad: str) -> None:
        """Step ``n`` alone, with the mode's lines."""
        self.count(st, n, pad)
        if self.mode & (OBSERVE | PROFILE):
            self.observe(st, n, pad)
        else:
            self.step(st, pad)

    def count(self, st: Step, n: int, pad: str, loop: bool = False) -> None:
        """The limit line(s) before step ``n`` (``loop``: of an iteration of its loop)."""
        hooks, add = self.hooks, self.src.add
        if hooks is None:
            return
        if self.mode & CAPS:
            hook = hooks.iteration if loop else hooks.limits
            add(f"{pad}{self.bind('I' if loop else 'H', hook)}({n})", st)
        else:
            add(f"{pad}L.steps += 1", st)
            add(f"{pad}if L.steps > L.check_at:", st)
            add(f"{pad}    {self.bind('HC', hooks.counted)}({n})", st)

    def observe(self, st: Step, n: int, pad: str) -> None:
        """Step ``n`` with the profile's clock around it and the callback after it (on
        its results as arrays, as the spec's values)."""
        add, hooks = self.src.add, self.hooks
        assert hooks is not None and self.interp is not None
        profile = bool(self.mode & PROFILE)
        if profile:
            add(f"{pad}{self.bind('CLOCK', hooks.clock)}({n})", st)
        self.step(st, pad)
        self.release_temps(st, pad)
        if profile:
            name = self.bind(f"PN{n}", profile_name([st]))
            add(f"{pad}{self.bind('RECORD', hooks.record)}({name}, ({n},), frame)", st)
        if self.mode & OBSERVE and st.results:
            self.src.env["CB"] = self.interp.context.callback
            self.src.env["AS"] = as_array
            vals = ", ".join(
                f"AS(frame[{s}])" if may_be_scalar(t) else f"frame[{s}]"
                for s, t in zip(st.results, st.check_types)
            )
            name, pos = self.bind(f"N{n}", st.op.name), self.bind(f"Q{n}", st.op.pos)
            add(f"{pad}CB({name}, {pos}, [{vals}])", st)

    # values
    def put(self, slot: int, expr: str, st: Step, pad: str) -> None:
        if self.local is None:
            self.src.add(f"{pad}frame[{slot}] = {expr}", st)
        elif expr != f"v{slot}":
            self.src.add(f"{pad}v{slot} = {expr}", st)

    def kill(self, slot: int, st: Step, pad: str) -> None:
        if self.local is None:
            self.src.add(f"{pad}frame[{slot}] = None", st)
        else:
            self.local.kill(slot, st, pad)

    def release_temps(self, st: Step, pad: str) -> None:
        """Drop the inline temporaries before a call that checks who holds a buffer."""
        if self.temps and self.local is None:
            names = [f"a{j}" for j in range(self.temps)]
            self.src.add(f"{pad}{' = '.join(names)} = r = None", st)
            self.temps = 0

    def bind(self, name: str, value: Any) -> str:
        self.src.env[name] = value
        return name

    # one step
    def step(self, st: Step, pad: str) -> None:
        k = self.number(st)
        if st.kind == "constant":
            return  # pre-filled in every frame
        if st.kind == "while" and st.blocks:
            self.while_(st, k, pad)
        elif st.kind in ("if", "case") and st.blocks:
            self.branch(st, k, pad)
        elif st.big is not None:
            self.big(st, k, pad)
        elif st.inline is not None:
            self.inline(st, k, pad)
        else:
            self.release_temps(st, pad)
            self.src.add(f"{pad}{self.bind(f'R{k}', st.run)}(frame)", st)

    def inline(self, st: Step, k: int, pad: str) -> None:
        """A small elementwise step (``Step.inline``)."""
        assert st.inline is not None
        fn, dt, sct, fix = st.inline
        add = self.src.add
        f, d, t, x = (self.bind(f"{c}{k}", v) for c, v in zip("FDTX", (fn, dt, sct, fix)))
        if self.local is None:
            names = [f"a{j}" for j in range(len(st.operands))]
            for name, slot in zip(names, st.operands):
                add(f"{pad}{name} = frame[{slot}]", st)
            r = "r"
            self.temps = max(self.temps, len(names), 1)
        else:
            names = [self.local.ref(s) for s in st.operands]
            r = f"v{st.results[0]}"
            self.local.dtypes[st.results[0]] = dt
        add(f"{pad}{r} = {f}({', '.join(names)})", st)
        for s in st.kills:
            self.kill(s, st, pad)
        add(
            f"{pad}if {r}.__class__ is not {t} and ({r}.__class__ is not ND or {r}.dtype != {d}):",
            st,
        )
        add(f"{pad}    {r} = {x}({r})", st)
        self.put(st.results[0], r, st, pad)

    def big(self, st: Step, k: int, pad: str) -> None:
        """A large elementwise step (``Step.big``): into a dying operand's buffer that
        nobody else holds, else a new array."""
        assert st.big is not None
        ufunc, kw, dt, cands, shape, fix = st.big
        add, local = self.src.add, self.local
        self.release_temps(st, pad)
        u, d, x = self.bind(f"U{k}", ufunc), self.bind(f"D{k}", dt), self.bind(f"X{k}", fix)
        p = self.bind(f"P{k}", shape)
        self.src.env.setdefault("SOLE", sole_reference)
        self.src.env.setdefault("EMPTY", np.empty)
        ops = st.operands
        if local is None:
            reuse = list(cands)
            args = [f"a{j}" for j in range(len(ops))]
            for j, s in enumerate(ops):
                add(f"{pad}a{j} = frame[{s}]", st)
            for s in st.kills:  # released before the call: the locals alone hold them
                self.kill(s, st, pad)
        else:  # an argument (the caller holds it) or a constant is never a dying buffer
            reuse = [j for j in cands if local.ref(ops[j]).startswith("v")]
            args = [f"a{j}" if j in reuse else local.ref(s) for j, s in enumerate(ops)]
            for j in reuse:
                add(f"{pad}a{j} = {local.ref(ops[j])}", st)
            direct = {s for j, s in enumerate(ops) if j not in reuse}
            for s in st.kills:
                if s not in direct:
                    self.kill(s, st, pad)
        kws = f", **{self.bind(f'K{k}', kw)})" if kw else ")"
        call = f"{u}({', '.join(args)}"
        r = "r" if local is None else f"v{st.results[0]}"
        for n, j in enumerate(reuse):
            add(f"{pad}{'elif' if n else 'if'} SOLE(a{j}):", st)
            add(f"{pad}    {r} = {call}, out=a{j}{kws}", st)
        new = f"{call}, out=EMPTY({p}, {d}){kws}" if kw else f"{call})"
        if reuse:
            add(f"{pad}else:", st)
            add(f"{pad}    {r} = {new}", st)
        else:
            add(f"{pad}{r} = {new}", st)
        if local is None:
            add(f"{pad}{', '.join(args)} = {', '.join('None' for _ in args)}", st)
        else:
            if reuse:
                add(f"{pad}{' = '.join(f'a{j}' for j in reuse)} = None", st)
            for s in st.kills:
                if s in direct:
                    self.kill(s, st, pad)
            if not reuse and local.certain(ufunc, kw, dt, ops):
                local.fresh.add(st.results[0])  # a new base-class array of dtype ``dt``
                local.dtypes[st.results[0]] = dt
                return
            local.dtypes[st.results[0]] = dt
        add(f"{pad}if {r}.__class__ is not ND or {r}.dtype != {d}:", st)
        add(f"{pad}    {r} = {x}({r})", st)
        self.put(st.results[0], r, st, pad)
        if local is None:  # the slot alone holds the result (its buffer reusable)
            add(f"{pad}r = None", st)

    def region(
        self, bp: BlockPlan, k: int, name: str, pad: str, st: Step, hoist: bool = False
    ) -> None:
        """The steps of a while / if / case region: written out here, or, nested more
        than ``INLINE_DEPTH`` loops deep, a call of its own compiled function.
        ``hoist``: a while body whose loop-invariant steps (``BlockPlan.hoisted``) run
        at the first iteration only (while the flag ``h<k>`` is set)."""
        if self.depth < INLINE_DEPTH:
            self.depth += 1
            skip: frozenset[int] = frozenset()
            if hoist:
                skip = frozenset(bp.hoisted)
                self.src.add(f"{pad}if h{k}:", st)
                for j in bp.hoisted:
                    self.one(bp.steps[j], self.number(bp.steps[j]), pad + "    ")
                self.src.add(f"{pad}    h{k} = False", st)
            self.body(bp, pad, skip)
            self.release_temps(st, pad)
            self.src.add(f"{pad}pass", st)  # (a region of no steps)
            self.depth -= 1
        else:
            assert self.interp is not None
            fn = self.bind(f"{name}{k}", block_function(bp, self.mode, self.interp))
            self.src.add(f"{pad}{fn}(frame)", st)

    def while_(self, st: Step, k: int, pad: str) -> None:
        """spec "while": a Python loop over its cond's and body's steps."""
        cond, body = st.blocks
        add = self.src.add
        self.release_temps(st, pad)
        carried = [f"c{k}_{j}" for j in range(len(st.operands))]
        kills = st.kills
        early = [s for s in kills if s in st.operands and s not in cond.free | body.free]
        for cj, s in zip(carried, st.operands):
            add(f"{pad}{cj} = frame[{s}]", st)
        for s in early:  # the loop alone holds the carried values
            add(f"{pad}frame[{s}] = None", st)
        # loop-invariant steps run once (not when a callback must see every step run)
        hoist = bool(body.hoisted) and self.depth < INLINE_DEPTH and not self.mode & OBSERVE
        if hoist:
            add(f"{pad}h{k} = True", st)
        add(f"{pad}try:", st)
        add(f"{pad}    while True:", st)
        inner = pad + " " * 8
        self.count(st, k, inner, loop=True)
        for j, s in cond.bind:
            add(f"{inner}frame[{s}] = {carried[j]}", st)
        self.region(cond, k, "WC", inner, st)
        add(f"{inner}if not frame[{cond.returns[0]}]:", st)
        add(f"{inner}    break", st)
        for j, s in body.bind:
            add(f"{inner}frame[{s}] = {carried[j]}", st)
        add(f"{inner}{' = '.join(carried)} = None", st)  # the body's slots alone hold them
        self.region(body, k, "WB", inner, st, hoist)
        for cj, s in zip(carried, body.returns):
            add(f"{inner}{cj} = frame[{s}]", st)
        if clear_each(st):  # big loop-carried buffers: reused in place when slots clear
            for s in body.clear:
                add(f"{inner}frame[{s}] = None", st)
        add(f"{pad}finally:", st)
        for s in (*cond.clear, *body.clear, *sorted(body.kept)):
            add(f"{pad}    frame[{s}] = None", st)
        for s, cj in zip(st.results, carried):
            add(f"{pad}frame[{s}] = {cj}", st)
        add(f"{pad}{' = '.join(carried)} = None", st)
        for s in kills:
            if s not in early:
                add(f"{pad}frame[{s}] = None", st)

    def branch(self, st: Step, k: int, pad: str) -> None:
        """spec "if" / "case": the chosen branch's steps (``case``: an index out of
        range takes the last branch)."""
        add = self.src.add
        self.release_temps(st, pad)
        blocks = st.blocks
        (i0,) = st.operands
        i = f"i{k}"
        if st.kind == "if":
            add(f"{pad}{i} = 0 if frame[{i0}] else 1", st)
        else:
            add(f"{pad}{i} = int(frame[{i0}])", st)
        res = [f"b{k}_{n}" for n in range(len(st.results))]
        last = len(blocks) - 1
        for j, bp in enumerate(blocks):
            test = f"{'if' if j == 0 else 'elif'} {i} == {j}" if j < last else "else"
            if last == 0:
                test = "if True"
            add(f"{pad}{test}:", st)
            self.region(bp, k, f"BR{j}_", pad + "    ", st)
            for c, s in zip(res, bp.returns):
                add(f"{pad}    {c} = frame[{s}]", st)
            for s in bp.clear:
                add(f"{pad}    frame[{s}] = None", st)
        for s, c in zip(st.results, res):
            add(f"{pad}frame[{s}] = {c}", st)
        if res:
            add(f"{pad}{' = '.join(res)} = None", st)
        for s in st.kills:
            add(f"{pad}frame[{s}] = None", st)


# ------------------------------------------------------------------------ blocks
def compile_block(bp: BlockPlan, mode: int, interp: Interpreter) -> Callable[[list[Any]], None]:
    """``bp`` as one function of its frame in ``mode`` (module docstring)."""
    src = Source()
    em = BlockEmitter(src, mode, interp)
    src.add("def block(frame):")
    src.add("    try:")
    em.body(bp, " " * 8)
    src.add("        pass")
    src.add("    except Exception as e:")
    src.add("        FAILED(e)")
    src.add("        raise")
    return src.compile("block", f"<hlorun block{' checked' if mode else ''}>")


def block_function(bp: BlockPlan, mode: int, interp: Interpreter) -> Callable[[list[Any]], None]:
    """The compiled function of ``bp`` in ``mode``, compiled on first use."""
    fn = bp.compiled.get(mode)
    if fn is None:
        fn = bp.compiled[mode] = compile_block(bp, mode, interp)
    return fn


# ------------------------------------------------------------------------ fused runs
def fused_loop(
    plan: Sequence[tuple[Any, dict[str, Any], tuple[tuple[str, int], ...], tuple[str, int]]],
    nexternal: int,
    materialize: Sequence[int],
    nbufs: int,
) -> Callable[..., None]:
    """``blocks(externals, materialized, buffers, size, step)`` of a fused run
    (engine/fusion.py): its steps over each ``step`` elements in turn, one ufunc call
    per op and block, the out= operand positional, nothing looked up per block."""
    src = Source()
    m_index = {s: i for i, s in enumerate(materialize)}

    def name(ref: tuple[str, int]) -> str:
        kind, j = ref
        return f"x{j}" if kind == "x" else f"m{m_index[j]}" if kind == "m" else f"t{j}"

    lines = ["def blocks(X, M, T, size, step):"]
    lines += [f"    X{j} = X[{j}]" for j in range(nexternal)]
    lines += [f"    M{i} = M[{i}]" for i in range(len(materialize))]
    lines += [f"    t{b} = T{b} = T[{b}]" for b in range(nbufs)]
    lines += ["    for lo in range(0, size, step):", "        hi = lo + step"]
    lines += ["        if hi > size:", "            hi = size"]
    lines += [f"            t{b} = T{b}[: hi - lo]" for b in range(nbufs)]
    lines += [f"        x{j} = X{j}[lo:hi]" for j in range(nexternal)]
    lines += [f"        m{i} = M{i}[lo:hi]" for i in range(len(materialize))]
    for k, (fn, kw, args, res) in enumerate(plan):
        src.env[f"U{k}"] = fn
        call = f"U{k}({', '.join(map(name, args))}, {name(res)}"
        if kw:
            src.env[f"K{k}"] = kw
            call += f", **K{k}"
        lines.append(f"        {call})")
    for line in lines:
        src.add(line)
    return src.compile("blocks", "<hlorun fused run>")
