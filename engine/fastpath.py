"""Fast paths: ops that skip their kernel (spec semantics, fewer Python calls).

Planning (``engine.interpreter``) asks ``fast_op`` whether an op can run as one NumPy
call instead of its kernel.  What makes an op fast is a column of its op-table row,
filled where the op's kernel is registered: ``ufunc`` (an ``engine.ufunc.Ufunc``: the
ufunc and the dtype kinds on which it equals the spec) and ``fast_plan`` (a function
``(op, result_type, dtype, attrs) -> callable | FastCall | None`` for ops such as
reshape, slice or dot_general that lay out their work once; a ``FastCall`` when the
call may write into an operand's buffer, as dynamic_update_slice does).  compare,
select and ``maximum(x, +0)`` (relu) are planned here.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import partial
from typing import Any

import numpy as np

from ..parser.ir import Operation
from ..shape_inference.optable import OpDef
from .parallel import ThreadChoice, run_shared, split_points, workers
from .plan import FastCall, plain_dtype
from .ufunc import Ufunc

_ndarray = np.ndarray
_F32 = np.dtype(np.float32)
_F64 = np.dtype(np.float64)


def via_f64(ufunc: np.ufunc, dt: np.dtype) -> Callable[..., Any]:
    """``ufunc`` computed in float64 and rounded once to ``dt`` (f32)."""
    scalar = dt.type

    def call(*xs: Any) -> Any:
        y = ufunc(*xs, dtype=_F64)
        if y.__class__ is _ndarray:
            return y.astype(dt)
        return scalar(y)

    return call


def select(pred: Any, on_true: Any, on_false: Any) -> Any:
    """spec select on one dtype: a scalar predicate picks a whole operand."""
    if pred.__class__ is np.bool_:
        return on_true if pred else on_false
    return np.where(pred, on_true, on_false)


def fast_op(op: Operation, row: OpDef, kwargs: dict[str, Any]) -> FastCall | None:
    """How ``op`` can skip its kernel; None when it cannot."""
    if len(op.results) != 1 or not op.operands:
        return None
    rt = op.results[0].type
    dt = plain_dtype(rt)
    if dt is None:
        return None
    if row.fast_plan is not None:
        fn = row.fast_plan(op, rt, dt, kwargs)
        if isinstance(fn, FastCall):  # a call that may write into an operand (``into``)
            return fn
        if isinstance(fn, Ufunc):  # a ufunc row of its own (maximum / minimum on floats)
            return FastCall(fn.op or fn.ufunc, fn, dt)
        if fn is not None:
            return FastCall(fn, None, dt)
    uf: Ufunc | None = row.ufunc
    if uf is None or dt.kind not in uf.fast or any(v.type != rt for v in op.operands):
        return None
    if dt == _F32 and not uf.exact:
        return FastCall(via_f64(uf.ufunc, dt), uf, dt)
    return FastCall(uf.op or uf.ufunc, uf, dt)


def relu(x: Any, zero: Any, out: np.ndarray | None = None) -> Any:
    """spec maximum(x, +0) with -0 < +0: x + 0 turns -0 into +0 (and changes nothing
    else, NaN included); then NumPy's maximum (which propagates NaN) is exact."""
    z = zero.dtype.type(0)
    if out is None and x.__class__ is not _ndarray:
        return np.maximum(x + z, z)
    r = np.add(x, z, out=out)
    if r.__class__ is not _ndarray:  # a 0-d x without out=: NumPy returns a scalar
        return np.maximum(r, z)
    return np.maximum(r, z, out=r)


def relu_op(
    op: Operation, operands: tuple[int, ...], consts: dict[int, Any]
) -> tuple[FastCall, tuple[int, ...]] | None:
    """``maximum(x, c)`` (either order) on f32/f64 where ``c`` is a constant of +0.0s:
    the fast entry and the operands reordered to ``(x, c)``."""
    if len(operands) != 2 or len(op.results) != 1:
        return None
    rt = op.results[0].type
    dt = plain_dtype(rt)
    if dt is None or dt.kind != "f" or any(v.type != rt for v in op.operands):
        return None
    for k in (1, 0):
        c = consts.get(operands[k])
        if c is not None and not np.any(c) and not np.any(np.signbit(c)):
            # relu is no ufunc, but takes out= as one: big relus run in place
            row = Ufunc(relu, "f")  # type: ignore[arg-type]
            return FastCall(relu, row, dt), (operands[1 - k], operands[k])
    return None


def parallel() -> Callable[..., np.ndarray]:
    """``call(ufunc, xs, out, **kw)``: ``ufunc(*xs, out=out)`` as contiguous pieces taken
    by the machine's threads (bit-identical: every element is computed by the same loop,
    pieces start on cache-line boundaries), or on the calling thread alone when that has
    been faster for this op (``ThreadChoice``: a busy machine); one per planned op."""
    choice = ThreadChoice()

    def split(ufunc: np.ufunc, xs: Sequence[np.ndarray], out: np.ndarray, kw: Any) -> None:
        flat = [x.reshape(-1) for x in xs]
        of = out.reshape(-1)
        cuts = split_points(of.size, workers())
        run_shared(
            [
                partial(ufunc, *[f[lo:hi] for f in flat], out=of[lo:hi], **kw)
                for lo, hi in zip(cuts, cuts[1:])
            ]
        )

    def call(ufunc: np.ufunc, xs: Sequence[np.ndarray], out: np.ndarray, **kw: Any) -> np.ndarray:
        choice.run(partial(ufunc, *xs, out=out, **kw), partial(split, ufunc, xs, out, kw))
        return out

    return call


# ------------------------------------------------------------------------------ plans
