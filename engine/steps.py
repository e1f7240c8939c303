"""Step execution: each planned ``Step`` becomes one ``run(frame)`` closure.

``StepCompiler`` is the half of ``engine.interpreter.Interpreter`` that turns a step
into the closure its block runs: fetch the operands from their slots, call the kernel
(or the fast path's NumPy call), check the result against the declared type (dtype and
static shape), store it, and release the slots whose last use this was.  while / if /
case run their region plans inline; large elementwise results go into a dying
operand's buffer (buffer reuse, ``INPLACE_MIN_ELEMENTS``) or over several threads
(``plan.PARALLEL_MIN_ELEMENTS``, read when a step is compiled).
"""

from __future__ import annotations

import operator
import sys
import time
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ..parser.errors import InterpreterError
from ..parser.ir import TensorType, Type
from . import plan as _plan
from .codegen import while_loop
from .dtypes import dtype_of, static_shape
from .fastpath import parallel, select
from .plan import (
    INPLACE_MIN_ELEMENTS,
    BlockPlan,
    FunctionPlan,
    Limits,
    Step,
    bad_result,
    conforms,
    describe,
    may_be_scalar,
    private_buffer,
    reraise,
    static_size,
)
from .ufunc import Ufunc

_ndarray = np.ndarray
_asarray = np.asarray
_getrefcount = sys.getrefcount


def _never_called(value: Any) -> Any:
    """The fixer of an op without results (no result to check)."""
    return value


_F32 = np.dtype(np.float32)
_F64 = np.dtype(np.float64)


class StepCompiler:
    """Compiles steps into closures (mixed into ``Interpreter``, which provides
    ``limits``, ``inplace``, ``_fast`` and ``_run_block``)."""

    limits: Limits
    inplace: bool
    _fast: bool

    def _run_block(self, block: BlockPlan, frame: list[Any]) -> None:
        raise NotImplementedError

    def _compile(self, st: Step, plan: FunctionPlan) -> Callable[[list[Any]], None]:
        kind = st.kind
        if kind == "constant":
            return self._compile_constant(st)
        if kind == "fast":
            return self._compile_fast(st)
        if kind == "select":
            return self._compile_select(st)
        if kind == "while":
            return self._compile_while(st)
        if kind in ("if", "case"):
            return self._compile_branch(st)
        return self._compile_kernel(st)

    @staticmethod
    def _compile_constant(st: Step) -> Callable[[list[Any]], None]:
        slot, value = st.results[0], st.const

        def run(frame: list[Any]) -> None:
            frame[slot] = value

        return run

    def _fixer(self, st: Step, t: Type) -> Callable[[Any], Any]:
        """The slow path of the result check: a NumPy scalar becomes a 0-d array; a value
        that does not conform to ``t`` is an internal error."""
        in_region = st.in_region

        def fix(value: Any) -> Any:
            if value.__class__ is not _ndarray and isinstance(value, np.generic):
                value = _asarray(value)
            if not conforms(value, t, in_region):
                bad_result(st, value, t)
            return value

        return fix

    @staticmethod
    def _fast_check(st: Step, t: Type) -> tuple[Any, Any]:
        """(dtype, shape) a result is compared with on the fast path (``shape`` None: not
        checked there); (None, None) when only the slow path can check ``t``."""
        if not isinstance(t, TensorType):
            return None, None
        try:
            dt = dtype_of(t)
        except (TypeError, ValueError):
            return None, None
        shape = static_shape(t) if t.is_static and not st.in_region else None
        return dt, shape

    def _compile_kernel(self, st: Step) -> Callable[[list[Any]], None]:
        fn, kw, ops, res = st.fn, st.kwargs, st.operands, st.results
        kills = st.kills
        after = bool(st.blocks) or st.kind == "call"
        conv = tuple(k for k, v in enumerate(st.op.operands) if may_be_scalar(v.type))
        if st.kind == "call":
            conv = ()  # callee frames may hold scalars
        multi = st.multi
        nres = len(res)
        if multi:
            fixers = tuple(self._fixer(st, t) for t in st.check_types)
            checks = tuple(self._fast_check(st, t) for t in st.check_types)
            items = tuple(zip(res, checks, fixers))
        else:
            t = st.check_types[0] if res else None
            fix = self._fixer(st, t) if t is not None else _never_called
            dt, shape = self._fast_check(st, t) if t is not None else (None, None)
            slot = res[0] if res else None
        out_slots: tuple[tuple[int, int], ...] = ()
        if st.kind == "kernel_out" and res and not multi and shape is not None:
            size = static_size(st.check_types[0])
            if size is not None and size >= INPLACE_MIN_ELEMENTS:
                out_slots = tuple(
                    (k, s)
                    for k, s in enumerate(ops)
                    if s in kills
                    and st.op.operands[k].type == st.check_types[0]
                    and ops.count(s) == 1
                )
        step = st

        def run(frame: list[Any]) -> None:
            args = [frame[i] for i in ops]
            for k in conv:
                a = args[k]
                if a.__class__ is not _ndarray and isinstance(a, np.generic):
                    args[k] = _asarray(a)
            if not after:
                for s in kills:
                    frame[s] = None
            try:
                if out_slots:
                    buf = None
                    for k, _s in out_slots:
                        a = args[k]
                        # the args list, ``a`` and getrefcount's argument: nobody else
                        if (
                            _getrefcount(a) == 3
                            and a.__class__ is _ndarray
                            and a.shape == shape
                            and private_buffer(a)
                        ):
                            buf = a
                            break
                    a = None
                    out = fn(*args, out=buf, **kw)
                else:
                    out = fn(*args, **kw)
            except Exception as e:
                reraise(step, e)
            if multi:
                if out.__class__ not in (tuple, list) or len(out) != nres:
                    got = f"{len(out)} values" if isinstance(out, tuple | list) else describe(out)
                    raise InterpreterError(
                        f"kernel returned {got} for {nres} results",
                        step.op.pos,
                        op=step.op.name,
                    )
                for (s, (cdt, cshape), cfix), value in zip(items, out):
                    if (
                        value.__class__ is not _ndarray
                        or value.dtype != cdt
                        or (cshape is not None and value.shape != cshape)
                    ):
                        value = cfix(value)
                    frame[s] = value
            elif slot is not None:
                if (
                    out.__class__ is not _ndarray
                    or out.dtype != dt
                    or (shape is not None and out.shape != shape)
                ):
                    out = fix(out)
                frame[slot] = out
            if after:
                for s in kills:
                    frame[s] = None

        return run

    def _compile_fast(self, st: Step) -> Callable[[list[Any]], None]:
        fn, row, dt = st.fast
        ops, kills, slot = st.operands, st.kills, st.results[0]
        sct = dt.type
        t = st.check_types[0]
        fix = self._fixer(st, t)
        step = st
        size = static_size(t)
        shape = static_shape(t) if size is not None else None
        cands: tuple[int, ...] = ()
        if row is not None and self.inplace and size is not None and size >= INPLACE_MIN_ELEMENTS:
            cands = tuple(k for k, s in enumerate(ops) if s in kills and ops.count(s) == 1)
        # only compute-bound ops split: a memory-bound add is no faster on two threads
        par = (
            row is not None
            and not row.exact
            and size is not None
            and (par_min := _plan.PARALLEL_MIN_ELEMENTS) is not None
            and size >= par_min
        )
        if shape is not None and (cands or par):  # (both need a static size)
            return self._compile_fast_big(st, row, dt, cands, shape, par, fix)
        if len(ops) <= 3:
            st.inline = (fn, dt, sct, fix)  # engine.codegen may write this step out
        if len(ops) == 2:
            i0, i1 = ops

            def run2(frame: list[Any]) -> None:
                a = frame[i0]
                b = frame[i1]
                for s in kills:
                    frame[s] = None
                try:
                    r = fn(a, b)
                except Exception as e:
                    reraise(step, e)
                if r.__class__ is not sct and (r.__class__ is not _ndarray or r.dtype != dt):
                    r = fix(r)
                frame[slot] = r

            return run2
        if len(ops) == 1:
            (i0,) = ops

            def run1(frame: list[Any]) -> None:
                a = frame[i0]
                for s in kills:
                    frame[s] = None
                try:
                    r = fn(a)
                except Exception as e:
                    reraise(step, e)
                if r.__class__ is not sct and (r.__class__ is not _ndarray or r.dtype != dt):
                    r = fix(r)
                frame[slot] = r

            return run1

        def runn(frame: list[Any]) -> None:
            args = [frame[i] for i in ops]
            for s in kills:
                frame[s] = None
            try:
                r = fn(*args)
            except Exception as e:
                reraise(step, e)
            if r.__class__ is not sct and (r.__class__ is not _ndarray or r.dtype != dt):
                r = fix(r)
            frame[slot] = r

        return runn

    def _compile_fast_big(
        self,
        st: Step,
        row: Ufunc,
        dt: np.dtype,
        cands: tuple[int, ...],
        shape: tuple[int, ...],
        par: bool,
        fix: Callable[[Any], Any],
    ) -> Callable[[list[Any]], None]:
        """A large elementwise op: into a dying operand's buffer when nobody else can see
        it, else into a new array; on two threads when ``par``."""
        ufunc = row.ufunc
        kw = {} if row.exact or dt != _F32 else {"dtype": _F64}
        ops, kills, slot = st.operands, st.kills, st.results[0]
        batched = st.in_region
        step = st
        if not batched and not par:
            st.big = (ufunc, kw, dt, cands, shape, fix)  # engine.entry may write this out
        if len(ops) == 2 and not batched and not par:
            return self._fast_big2(st, ufunc, kw, dt, cands, shape, fix)

        def run(frame: list[Any]) -> None:
            args = [frame[i] for i in ops]
            for s in kills:
                frame[s] = None
            buf = None
            for k in cands:
                a = args[k]
                # the args list, ``a`` and getrefcount's argument: nobody else holds it
                if (
                    _getrefcount(a) == 3
                    and a.__class__ is _ndarray
                    and (not batched or a.shape == shape)
                    and private_buffer(a)
                ):
                    buf = a
                    break
            a = None
            try:
                if batched and any(x.__class__ is not _ndarray or x.shape != shape for x in args):
                    r = ufunc(*args, **kw)  # extra (batch) dimensions
                    if kw:
                        r = r.astype(dt)
                elif par and all(x.flags.c_contiguous for x in args):
                    r = parallel(ufunc, args, buf if buf is not None else np.empty(shape, dt), **kw)
                elif buf is not None:
                    r = ufunc(*args, out=buf, **kw)
                elif kw:
                    r = ufunc(*args, out=np.empty(shape, dt), **kw)
                else:
                    r = ufunc(*args)
            except Exception as e:
                reraise(step, e)
            if r.__class__ is not _ndarray or r.dtype != dt:
                r = fix(r)
            frame[slot] = r

        return run

    @staticmethod
    def _fast_big2(
        st: Step,
        ufunc: Any,
        kw: dict[str, Any],
        dt: np.dtype,
        cands: tuple[int, ...],
        shape: tuple[int, ...],
        fix: Callable[[Any], Any],
    ) -> Callable[[list[Any]], None]:
        """``_compile_fast_big`` of a binary op outside regions, on one thread: the same
        choices with the operands in locals (no argument list)."""
        (i0, i1), kills, slot = st.operands, st.kills, st.results[0]
        c0, c1 = 0 in cands, 1 in cands
        step = st

        def run(frame: list[Any]) -> None:
            a = frame[i0]
            b = frame[i1]
            for s in kills:
                frame[s] = None
            buf = None
            # ``a`` (or ``b``) and getrefcount's argument: nobody else holds it
            if c0 and _getrefcount(a) == 2 and a.__class__ is _ndarray and private_buffer(a):
                buf = a
            elif c1 and _getrefcount(b) == 2 and b.__class__ is _ndarray and private_buffer(b):
                buf = b
            try:
                if buf is not None:
                    r = ufunc(a, b, out=buf, **kw)
                elif kw:
                    r = ufunc(a, b, out=np.empty(shape, dt), **kw)
                else:
                    r = ufunc(a, b)
            except Exception as e:
                reraise(step, e)
            if r.__class__ is not _ndarray or r.dtype != dt:
                r = fix(r)
            frame[slot] = r

        return run

    def _compile_select(self, st: Step) -> Callable[[list[Any]], None]:
        i0, i1, i2 = st.operands
        kills, slot = st.kills, st.results[0]
        dt = dtype_of(st.check_types[0])
        sct = dt.type
        fix = self._fixer(st, st.check_types[0])
        step = st
        st.inline = (select, dt, sct, fix)  # engine.codegen may write this step out

        def run(frame: list[Any]) -> None:
            p = frame[i0]
            a = frame[i1]
            b = frame[i2]
            for s in kills:
                frame[s] = None
            try:
                r = select(p, a, b)
            except Exception as e:
                reraise(step, e)
            if r.__class__ is not sct and (r.__class__ is not _ndarray or r.dtype != dt):
                r = fix(r)
            frame[slot] = r

        return run

    def _compile_while(self, st: Step) -> Callable[[list[Any]], None]:
        """spec "while", with its cond and body plans run inline."""
        cond, body = st.blocks
        ops, res, kills = st.operands, st.results, st.kills
        nvals = len(ops)
        if len(cond.args) != nvals or len(body.args) != nvals or len(body.returns) != nvals:
            return self._compile_kernel(st)
        if len(cond.returns) != 1 or len(res) != nvals or nvals == 0:
            return self._compile_kernel(st)
        cbind, bbind = cond.bind, body.bind
        cret = cond.returns[0]
        cclear, bclear = cond.clear, body.clear
        # Big loop-carried buffers are reused in place when the body's result slots are
        # cleared every iteration; for small values that is not worth its cost.
        clear_each = any(
            (static_size(t) or INPLACE_MIN_ELEMENTS) >= INPLACE_MIN_ELEMENTS for t in st.check_types
        )
        get_vals: Callable[[list[Any]], tuple[Any, ...]]
        if nvals == 1:
            (r0,) = body.returns

            def get_one(frame: list[Any]) -> tuple[Any, ...]:
                return (frame[r0],)

            get_vals = get_one
        else:
            get_vals = operator.itemgetter(*body.returns)

        cruns, bruns = cond.runs, body.runs
        # operands that die here and that the regions do not read: released before the
        # loop, so the loop-carried values are held by the loop alone
        early = tuple(s for s in kills if s in ops and s not in cond.free | body.free)
        kills = tuple(s for s in kills if s not in early)
        cap_bytes = max(cond.max_nbytes, body.max_nbytes)
        live_bytes = max(cond.max_live, body.max_live)
        limits = self.limits
        run_block = self._run_block
        step = st

        def run(frame: list[Any]) -> None:
            vals: Sequence[Any] = [frame[i] for i in ops]
            for s in early:
                frame[s] = None
            fast = self._fast and cap_bytes <= limits.memory_cap and live_bytes <= limits.live_cap
            max_steps = limits.max_steps
            n = 0
            try:
                while True:
                    if max_steps is not None:
                        limits.steps += 1
                        if limits.steps > max_steps:
                            raise InterpreterError(
                                f"step limit of {max_steps} ops exceeded", op=step.op.name
                            )
                    else:
                        n += 1
                    if limits.deadline is not None and time.monotonic() > limits.deadline:
                        raise InterpreterError(
                            f"time limit of {limits.timeout} s exceeded", op=step.op.name
                        )
                    for k, s in cbind:
                        frame[s] = vals[k]
                    if fast:
                        for r in cruns:
                            r(frame)
                    else:
                        run_block(cond, frame)
                    if not frame[cret]:
                        break
                    for k, s in bbind:
                        frame[s] = vals[k]
                    vals = ()  # the body's slots alone hold the values: buffers reusable
                    if fast:
                        for r in bruns:
                            r(frame)
                    else:
                        run_block(body, frame)
                    vals = get_vals(frame)
                    if clear_each:
                        for s in bclear:
                            frame[s] = None
            except Exception as e:
                reraise(step, e)
            finally:
                limits.steps += n
                for s in cclear:
                    frame[s] = None
                for s in bclear:
                    frame[s] = None
            for s, v in zip(res, vals):
                frame[s] = v
            for s in kills:
                frame[s] = None

        # the same loop generated as one function, for runs without limits to check
        return while_loop(st, run, self, limits, early, kills, clear_each)

    def _compile_branch(self, st: Step) -> Callable[[list[Any]], None]:
        """spec "if" / "case": the chosen branch's plan runs inline."""
        blocks = st.blocks
        res, kills = st.results, st.kills
        if any(b.args or len(b.returns) != len(res) for b in blocks):
            return self._compile_kernel(st)
        (i0,) = st.operands
        is_if = st.kind == "if"
        if is_if and len(blocks) != 2:
            return self._compile_kernel(st)
        run_block = self._run_block
        last = len(blocks) - 1
        step = st

        def run(frame: list[Any]) -> None:
            x = frame[i0]
            try:
                if is_if:
                    b = blocks[0] if x else blocks[1]
                else:
                    i = int(x)
                    b = blocks[i if 0 <= i < last else last]
                run_block(b, frame)
            except Exception as e:
                reraise(step, e)
            vals = [frame[s] for s in b.returns]
            for s in b.clear:
                frame[s] = None
            for s, v in zip(res, vals):
                frame[s] = v
            for s in kills:
                frame[s] = None

        return run
