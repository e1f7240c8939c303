"""Step closures: the steps a block's compiled function calls rather than writes out.

``StepCompiler`` is the half of ``engine.interpreter.Interpreter`` that gives each
planned ``Step`` what engine/emit.py needs to run it: a small elementwise step gets an
``inline`` description and a large one on one thread a ``big`` one (the emitter writes
them out); a while / if / case whose regions fit runs inline in the emitted code; any
other step becomes one ``run(frame)`` closure: fetch the operands from their slots,
call the kernel (or the fast path's NumPy call), check the result against the declared
type (dtype and static shape), store it, and release the slots whose last use this
was.  Large elementwise results go into a dying operand's buffer when nobody else holds
it (``ownership.sole_reference``, ``INPLACE_MIN_ELEMENTS``) or over several threads
(``plan.PARALLEL_MIN_ELEMENTS``, read when a step is compiled).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ..parser.errors import InterpreterError
from ..parser.ir import TensorType, Type
from . import plan as _plan
from .dtypes import dtype_of, static_shape
from .fastpath import parallel
from .ownership import sole_reference
from .plan import (
    INLINE_MAX_OPERANDS,
    INPLACE_MIN_ELEMENTS,
    BigCall,
    FunctionPlan,
    InlineCall,
    Limits,
    Step,
    bad_result,
    conforms,
    describe,
    may_be_scalar,
    reraise,
    static_size,
)
from .ufunc import Ufunc

_ndarray = np.ndarray
_asarray = np.asarray


def _emitted(frame: list[Any]) -> None:
    """``Step.run`` of a step that the block's compiled function writes out."""
    raise InterpreterError("internal error: a written-out step was called")


def _runs_inline(st: Step) -> bool:
    """Does a while / if / case run its region plans inline (engine/emit.py)?  Its
    regions' arity must match its operands and results; else its kernel runs them."""
    blocks, ops, res = st.blocks, st.operands, st.results
    if st.kind == "while":
        cond, body = blocks
        n = len(ops)
        return (
            n > 0
            and len(cond.args) == n
            and len(body.args) == n
            and len(body.returns) == n
            and len(cond.returns) == 1
            and len(res) == n
        )
    if any(b.args or len(b.returns) != len(res) for b in blocks) or len(ops) != 1:
        return False
    return st.kind == "case" or len(blocks) == 2


def _never_called(value: Any) -> Any:
    """The fixer of an op without results (no result to check)."""
    return value


_F32 = np.dtype(np.float32)
_F64 = np.dtype(np.float64)


class StepCompiler:
    """Compiles steps (mixed into ``Interpreter``, which provides ``limits`` and
    ``inplace``)."""

    limits: Limits
    inplace: bool

    def _compile(self, st: Step, plan: FunctionPlan) -> Callable[[list[Any]], None]:
        kind = st.kind
        if kind == "constant":
            return self._compile_constant(st)
        if kind == "fast":
            return self._compile_fast(st)
        if kind in ("while", "if", "case"):
            if _runs_inline(st):
                return _emitted
            st.kind = "kernel"  # its kernel runs the regions (RegionFn)
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
                        args[k] = None  # ``a`` alone holds it while it is checked
                        if a.__class__ is _ndarray and a.shape == shape and sole_reference(a):
                            buf = a
                        args[k] = a
                        if buf is not None:
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
        assert st.fast is not None  # (a fast step)
        fn, row, dt, into = st.fast
        ops, kills, slot = st.operands, st.kills, st.results[0]
        sct = dt.type
        t = st.check_types[0]
        fix = self._fixer(st, t)
        step = st
        size = static_size(t)
        shape = static_shape(t) if size is not None else None
        cands: tuple[int, ...] = ()
        if self.inplace and size is not None and size >= INPLACE_MIN_ELEMENTS:
            places = range(len(ops)) if row is not None else into
            cands = tuple(k for k in places if ops[k] in kills and ops.count(ops[k]) == 1)
        if row is None and cands and shape is not None and not st.in_region:
            # a planned call that may write into a dying operand (``FastCall.into``)
            st.big = BigCall(fn, {}, dt, cands, shape, fix)  # engine.emit writes it out
            return _emitted
        # only compute-bound ops split: a memory-bound add is no faster on two threads
        par = (
            row is not None
            and not row.exact
            and size is not None
            and (par_min := _plan.PARALLEL_MIN_ELEMENTS) is not None
            and size >= par_min
        )
        if row is not None and shape is not None and (cands or par):  # (a static size)
            return self._compile_fast_big(st, row, dt, cands, shape, par, fix)
        if len(ops) <= INLINE_MAX_OPERANDS:
            st.inline = InlineCall(fn, dt, sct, fix)  # engine.emit writes this step out
            return _emitted

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
        split = parallel() if par else None
        if not batched and not par:
            st.big = BigCall(ufunc, kw, dt, cands, shape, fix)  # engine.emit writes it out
            return _emitted

        def run(frame: list[Any]) -> None:
            args = [frame[i] for i in ops]
            for s in kills:
                frame[s] = None
            buf = None
            for k in cands:
                a = args[k]
                args[k] = None  # ``a`` alone holds it while it is checked
                if (not batched or a.shape == shape) and sole_reference(a):
                    buf = a
                args[k] = a
                if buf is not None:
                    break
            a = None
            try:
                if batched and any(x.__class__ is not _ndarray or x.shape != shape for x in args):
                    r = ufunc(*args, **kw)  # extra (batch) dimensions
                    if kw:
                        r = r.astype(dt)
                elif split is not None and all(x.flags.c_contiguous for x in args):
                    r = split(ufunc, args, buf if buf is not None else np.empty(shape, dt), **kw)
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
