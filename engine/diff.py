"""``hlorun.diff``: find the first op where another engine departs from the spec's value.

``diff(module, inputs, against=...)`` runs ``module`` on hlorun (every op's results
seen through ``run``'s ``callback``) and an instrumented copy of it
(engine/diff_instrument.py: every op's results also outputs) on the other engine:
``"xla"`` (jaxlib on CPU), ``"iree"`` (IREE's llvm-cpu), a ``VALUES.npz`` of per-op
values recorded elsewhere, or another version of the program (ops matched by location
and op name); engine/diff_engines.py runs them.  Then, op by op in the order they
finish, it measures each result's max abs / rel / ULP error (engine/diff_metrics.py),
finds the first op over tolerance, the errors of its operands, and where the error
grows most.

For the first divergence it tells an op's own value from a compiler optimization
(``cause``): materializing a value does not make a compiler round its other uses, so
hlorun recomputes the op from the other engine's recorded operands, as declared
(rounded) and with the operands' producers recomputed in f32 (not rounded to their
16-bit or 8-bit types), and the other engine reruns with the optimization off where
it has a switch (XLA: ``--xla_allow_excess_precision=false``).  ``cause`` is
``"optimization"`` when the divergence disappears either way, else ``"value"``.
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from ..parser import print_module
from ..parser.errors import HloError
from ..parser.ir import (
    Block,
    DotDimensionNumbers,
    Function,
    FunctionType,
    Module,
    Region,
    TensorType,
    Value,
)
from ..shape_inference import OP_TABLE
from .api import run
from .diff_instrument import Instrumented, OpInfo, control_kind, instrument
from .diff_metrics import Tolerance, candidates, largest_magnitude, measure, tolerance
from .diff_report import DiffReport, OperandError, Row
from .diff_run import HlorunValues, run_hlorun, trip_counts
from .dtypes import dtype_of
from .kernels.convolution import CONVOLUTION
from .kernels.elementwise import ADD
from .kernels.linalg import DOT, DOT_GENERAL
from .kernels.reduction import REDUCE
from .loading import Origins, prepare
from .platform_index import takes_platform_index, with_platform_index
from .profile import where_text

# the ops whose results' tolerance scales with the magnitudes of their terms (and a
# reduce whose body adds): rows, compared by identity
_DOTS = (DOT_GENERAL, DOT)
SCALED_OPS = (*_DOTS, CONVOLUTION)
# the float element types of tensor types narrower than f32, and f32 itself
_NARROW = re.compile(r"(?<=[x<])(bf16|f16|f8E[0-9A-Z]+|f6E[0-9A-Z]+|f4E[0-9A-Z]+)(?=>)")


# ------------------------------------------------------------------------- one op


def _one_op_module(info: OpInfo, widen: bool) -> str:
    """A module whose ``main`` runs ``info``'s op alone on its arguments."""
    op = info.op
    args = tuple(Value(f"%a{i}", v.type) for i, v in enumerate(op.operands))
    results: tuple[Value, ...]
    if len(op.results) == 1:
        results = (Value("%r", op.results[0].type),)
    else:
        results = tuple(Value(f"%r#{i}", v.type) for i, v in enumerate(op.results))
    new = replace(op, operands=args, results=results)
    ret = type(op)("func.return", operands=results)
    fn = Function(
        "main",
        FunctionType(tuple(a.type for a in args), tuple(r.type for r in results)),
        Region((Block(args, (new, ret)),)),
    )
    text = print_module(Module((fn,)))
    return _NARROW.sub("f32", text) if widen else text


def run_op(
    info: OpInfo, operands: Sequence[np.ndarray], widen: bool = False, round_back: bool = True
) -> list[np.ndarray]:
    """hlorun's results of ``info``'s op on ``operands``; ``widen``: its 16-bit and
    smaller float types computed in f32 (the results rounded back, unless not
    ``round_back``)."""
    text = _one_op_module(info, widen)
    if widen:
        operands = [
            a.astype(np.float32) if a.dtype.kind == "V" or _is_narrow(a) else a for a in operands
        ]
    results = run(text, list(operands))
    if widen and round_back:
        results = [
            np.asarray(r).astype(dtype_of(t)) if isinstance(t, TensorType) else r
            for r, t in zip(results, info.result_types)
        ]
    return [np.asarray(r) for r in results]


def _is_narrow(a: np.ndarray) -> bool:
    return (
        a.dtype.kind == "f"
        and a.dtype.itemsize < 4
        or a.dtype.name.startswith(("bfloat16", "float8", "float6", "float4"))
    )


def _abs_scale(info: OpInfo, operands: Sequence[np.ndarray]) -> list[np.ndarray] | None:
    """The sum of the magnitudes of the terms of each element of each result: the op
    run on the operands' magnitudes (in f64 for float types)."""
    if not _is_scaled(info):
        return None
    try:
        # a tolerance's magnitude, not a value: sums of non-negative terms in f32 (f64
        # operands stay f64) are accurate to a few ULPs, at half f64 BLAS's cost
        mags = [
            np.abs(np.asarray(a).astype(np.float64 if a.dtype == np.float64 else np.float32))
            for a in operands
        ]
        text = _NARROW.sub("f32", _one_op_module(info, False))
        return [np.asarray(r) for r in run(text, mags)]
    except (HloError, ValueError, TypeError):
        return None


def _is_scaled(info: OpInfo) -> bool:
    """Whether the tolerance of the op's results scales with the magnitudes of their
    terms: dot_general, convolution, and a reduce whose body adds."""
    row = OP_TABLE.get(info.name)
    if row is REDUCE:
        body = info.op.regions[0].entry.operations
        return bool(body) and body[0].name == ADD.op.name
    return row in SCALED_OPS


# ------------------------------------------------------------------------- diff


@dataclass
class _Context:
    ins: Instrumented
    hl: HlorunValues
    other: dict[str, np.ndarray]
    inputs: list[Any]
    tol: tuple[float | None, float | None, int | None]
    # op index -> the magnitudes of its results' terms (``_abs_scale``), computed while
    # the other engine ran
    scales: dict[int, list[np.ndarray] | None] = field(default_factory=dict)

    def recorded(self, ref: tuple[Any, int] | None, iteration: int | None) -> np.ndarray | None:
        """The other engine's value of an operand (constants and inputs: hlorun's)."""
        if ref is None:
            return None
        idx, k = ref
        if idx == "arg":
            return np.asarray(self.inputs[k]) if k < len(self.inputs) else None
        info = self.ins.ops[idx]
        if info.constant:
            last = self.hl.last(idx)
            return None if last is None else np.asarray(last[k])
        key = f"op{idx}.r{k}" + ("" if iteration is None else f".it{iteration}")
        return self.other.get(key)

    def tolerance(self, t: Any) -> Tolerance:
        return tolerance(t, *self.tol)


def _compared(ctx: _Context, iterations: bool) -> list[tuple[OpInfo, int, Any, int | None, str]]:
    """(op, result index, result type, iteration, key of the other engine's value) of
    every value compared, in program order."""
    outputs = {(o.index, o.result): o for o in ctx.ins.outputs}
    out: list[tuple[OpInfo, int, Any, int | None, str]] = []
    for info in sorted(ctx.ins.ops, key=lambda i: i.completion):
        runs = ctx.hl.executions.get(info.index)
        if not info.instrumented or not runs:
            continue
        for k, t in enumerate(info.result_types):
            o = outputs.get((info.index, k))
            if o is None:
                continue
            its: list[int | None] = list(range(len(runs))) if o.stacked and iterations else [None]
            out.extend((info, k, t, it, o.key + ("" if it is None else f".it{it}")) for it in its)
    return out


def _rows(ctx: _Context, origin: Origins, iterations: bool, first: bool) -> list[Row]:
    rows: list[Row] = []
    done: dict[tuple[Any, int, int | None], Row] = {}
    todo = _compared(ctx, iterations)

    def pair(info: OpInfo, k: int, it: int | None, key: str) -> tuple[Any, Any] | None:
        """(the other engine's value, hlorun's), or None when the other has none."""
        got = ctx.other.get(key)
        if got is None:
            return None
        exp = np.asarray(ctx.hl.executions[info.index][-1 if it is None else it][k])
        return _as_type(got, exp), exp

    def errors(item: tuple[OpInfo, int, Any, int | None, str]) -> Any:
        info, k, t, it, key = item
        p = pair(info, k, it, key)
        return None if p is None else measure(p[0], p[1], ctx.tolerance(t))

    # every value's errors first, on the machine's threads (NumPy releases the GIL on
    # whole arrays), read below in program order; with ``first``, one at a time up to
    # the first divergence
    first_errors: Any = map(errors, todo)
    if not first:
        with ThreadPoolExecutor(max(1, min(4, os.cpu_count() or 1))) as pool:
            first_errors = list(pool.map(errors, todo))
    for (info, k, t, it, key), err in zip(todo, first_errors):
        if err is None:
            continue
        p = pair(info, k, it, key)
        assert p is not None
        got, exp = p
        tol = ctx.tolerance(t)
        scaled = False
        if err.over and _is_scaled(info):
            scale: Any = None
            if it is None and info.index in ctx.scales:
                scales = ctx.scales[info.index]
                scale = None if scales is None else scales[k]
            else:
                operands = [np.asarray(a) for a in _hl_operands(ctx, info, it)]
                if operands and _is_dot(info):
                    scale = _dot_terms_at(info, operands)
                if operands and scale is None:
                    scales = _abs_scale(info, operands)
                    scale = None if scales is None else scales[k]
            if scale is not None:
                err = measure(got, exp, tol, scale)
                scaled = True
        ops_err = []
        for ref in info.operand_ops:
            if ref is not None and ref[0] != "arg":
                r = done.get((ref[0], ref[1], it))
                ops_err.append(
                    OperandError(ref[0], ref[1], None, None)
                    if r is None
                    else OperandError(ref[0], ref[1], r.errors, r.over)
                )
        row = Row(
            index=info.index,
            op=info.name,
            where=where_text(info.op, origin),
            source=origin(info.op),
            result_index=k,
            iteration=it,
            type=str(t),
            errors=err,
            scaled=scaled,
            operands=ops_err,
        )
        if err.over:
            row.passed_on = _passed_on(ctx, info, k, it, got, exp, tol, done)
        done[(info.index, k, it)] = row
        rows.append(row)
        if first and row.over:
            return rows
    return rows


def _passed_on(
    ctx: _Context,
    info: OpInfo,
    k: int,
    it: int | None,
    got: np.ndarray,
    exp: np.ndarray,
    tol: Tolerance,
    done: dict[tuple[Any, int, int | None], Row],
) -> bool:
    """Whether result ``k`` is within tolerance of hlorun's value computed from the
    other side's operands, every one of them within tolerance itself (or an input or
    a constant): the op adds no error of its own to what its operands bring.  A dot
    of floats is computed at the elements that may be over tolerance against
    hlorun's value ``exp`` alone (the others are within it already)."""
    if _captures(info) or not info.operand_ops:
        return False
    for ref in info.operand_ops:
        if ref is None:
            return False
        if ref[0] == "arg" or ctx.ins.ops[ref[0]].constant:
            continue
        r = done.get((ref[0], ref[1], it))
        if r is None or r.over:
            return False
    operands = [ctx.recorded(ref, it) for ref in info.operand_ops]
    if any(a is None for a in operands):
        return False
    if _is_dot(info) and exp.dtype.kind not in "biuc":
        terms = _dot_terms_at(info, operands, magnitudes=False)  # type: ignore[arg-type]
        at = candidates(got, exp, tol)
        if terms is not None and at is not None:
            mine = terms(at).astype(exp.dtype)
            largest = np.full(at.size, largest_magnitude(exp))
            return not measure(got.ravel()[at], mine, tol, largest).over
    try:
        mine = run_op(info, operands)[k]  # type: ignore[arg-type]
    except HloError:
        return False
    return not measure(got, _as_type(mine, got), tol).over


def _is_dot(info: OpInfo) -> bool:
    return OP_TABLE.get(info.name) in _DOTS


def _dot_terms_at(
    info: OpInfo, operands: Sequence[np.ndarray], magnitudes: bool = True
) -> Callable[[np.ndarray], np.ndarray] | None:
    """For a dot_general or dot of real operands: a function of flat indices into its
    result giving the sums of the magnitudes of those elements' terms (in f64), for
    those elements alone (a tolerance is scaled where an element is a candidate, a few
    of the result's); not ``magnitudes``: the sums of the terms themselves."""
    if len(operands) != 2:
        return None
    lhs, rhs = (np.asarray(a) for a in operands)
    if lhs.dtype.kind == "c" or rhs.dtype.kind == "c":
        return None
    if OP_TABLE.get(info.name) is DOT:
        lb: tuple[int, ...] = ()
        rb: tuple[int, ...] = ()
        lc: tuple[int, ...] = (lhs.ndim - 1,)
        rc: tuple[int, ...] = (0,)
    else:
        dn = info.op.attr("dot_dimension_numbers")
        if not isinstance(dn, DotDimensionNumbers):
            return None
        lb, rb = dn.lhs_batching_dimensions, dn.rhs_batching_dimensions
        lc, rc = dn.lhs_contracting_dimensions, dn.rhs_contracting_dimensions
    lf = tuple(d for d in range(lhs.ndim) if d not in lb and d not in lc)
    rf = tuple(d for d in range(rhs.ndim) if d not in rb and d not in rc)
    b, m, n, k = (
        math.prod(lhs.shape[d] for d in lb),
        math.prod(lhs.shape[d] for d in lf),
        math.prod(rhs.shape[d] for d in rf),
        math.prod(lhs.shape[d] for d in lc),
    )
    left = lhs.transpose(lb + lf + lc).reshape(b, m, k)
    right = rhs.transpose(rb + rc + rf).reshape(b, k, n)

    def at(flat: np.ndarray) -> np.ndarray:
        bi, mi, ni = np.unravel_index(flat, (b, m, n))
        out = np.empty(flat.size, np.float64)
        step = max(1, (1 << 22) // max(k, 1))
        for s in range(0, flat.size, step):
            sl = slice(s, s + step)
            x = left[bi[sl], mi[sl], :].astype(np.float64)
            y = right[bi[sl], :, ni[sl]].astype(np.float64)  # (elements, k)
            if magnitudes:
                np.abs(x, out=x)
                np.abs(y, out=y)
            out[sl] = np.einsum("ij,ij->i", x, y)
        return out

    return at


def _hl_operands(ctx: _Context, info: OpInfo, it: int | None) -> list[np.ndarray]:
    """hlorun's values of an op's operands ([] when one is not known)."""
    out = []
    for ref in info.operand_ops:
        if ref is None:
            return []
        if ref[0] == "arg":
            out.append(np.asarray(ctx.inputs[ref[1]]))
            continue
        runs = ctx.hl.executions.get(ref[0])
        if not runs:
            return []
        out.append(np.asarray(runs[-1 if it is None else min(it, len(runs) - 1)][ref[1]]))
    return out


def _early_scales(ctx: _Context, pending: Any) -> None:
    """While the other engine still runs: the magnitudes of the terms of the
    convolutions' results (from hlorun's operands), in program order, into
    ``ctx.scales`` (a dot's are computed where needed, a reduction's cost little)."""
    for info in ctx.ins.ops:
        if pending.done():
            return
        if info.instrumented and not info.loops and OP_TABLE.get(info.name) is CONVOLUTION:
            operands = _hl_operands(ctx, info, None)
            if operands:
                ctx.scales[info.index] = _abs_scale(info, operands)


def _as_type(got: Any, exp: np.ndarray) -> np.ndarray:
    """``got`` with ``exp``'s dtype (a same-width view of raw bits, or a cast)."""
    got = np.asarray(got)
    if got.dtype == exp.dtype:
        return got.reshape(exp.shape) if got.size == exp.size else got
    if got.dtype.itemsize == exp.dtype.itemsize and got.dtype.kind in "uiV":
        return got.view(exp.dtype).reshape(exp.shape)
    return got.astype(exp.dtype).reshape(exp.shape)


def explain(ctx: _Context, row: Row, engine: Any) -> None:
    """Fill ``row.cause`` and ``row.detail``: recompute the op from the other engine's
    operands (rounded as declared, and not rounded), rerun the other engine with its
    optimization off."""
    info = ctx.ins.ops[row.index]
    it = row.iteration
    got = ctx.other.get(f"op{row.index}.r{row.result_index}" + ("" if it is None else f".it{it}"))
    detail: dict[str, Any] = {}
    optimization = False
    operands = [ctx.recorded(ref, it) for ref in info.operand_ops]
    t = info.result_types[row.result_index]
    tol = ctx.tolerance(t)
    if got is not None and all(a is not None for a in operands) and not _captures(info):
        try:
            exp = run_op(info, operands)[row.result_index]  # type: ignore[arg-type]
            own = measure(_as_type(got, exp), exp, tol)
            detail["recomputed_from_recorded_operands"] = {
                "max_ulp": own.max_ulp,
                "over": own.over,
            }
            detail["origin"] = "here" if own.over else "operands"
            wide_ops = [
                _unrounded(ctx, ref, a, it)
                for ref, a in zip(info.operand_ops, operands)
                if a is not None
            ]
            wide = run_op(info, wide_ops, widen=True)[row.result_index]  # type: ignore[arg-type]
            unrounded = measure(_as_type(got, wide), wide, tol)
            detail["recomputed_unrounded"] = {
                "max_ulp": unrounded.max_ulp,
                "over": unrounded.over,
            }
            if own.over and not unrounded.over:
                optimization = True
        except HloError as e:
            detail["recompute_error"] = e.message
    if engine is not None and getattr(engine, "optimization_switch", None):
        try:
            values = engine.values(ctx.ins, ctx.inputs, optimize=False)
            key = f"op{row.index}.r{row.result_index}" + ("" if it is None else f".it{it}")
            runs = ctx.hl.executions[row.index]
            exp = np.asarray(runs[-1 if it is None else it][row.result_index])
            off = values.get(key)
            if off is not None:
                rerun = measure(_as_type(off, exp), exp, tol)
                detail["rerun_without_optimization"] = {
                    "switch": engine.optimization_switch,
                    "max_ulp": rerun.max_ulp,
                    "max_abs": rerun.max_abs,
                    "over": rerun.over,
                }
                if not rerun.over:
                    optimization = True
        except HloError as e:
            detail["rerun_error"] = e.message
    row.cause = "optimization" if optimization else "value"
    row.detail = detail


def _captures(info: OpInfo) -> bool:
    """Whether the op's regions read values defined outside them (not run alone)."""
    return control_kind(info.op) is not None


def _unrounded(
    ctx: _Context, ref: tuple[Any, int] | None, recorded: np.ndarray, it: int | None
) -> np.ndarray:
    """An operand as its producer computes it before rounding to a 16-bit or smaller
    float type: the producer recomputed in f32 from the other engine's operands."""
    if ref is None or ref[0] == "arg" or not _is_narrow(np.asarray(recorded)):
        return recorded
    producer = ctx.ins.ops[ref[0]]
    if producer.constant or _captures(producer):
        return recorded
    operands = [ctx.recorded(r, it) for r in producer.operand_ops]
    if any(a is None for a in operands):
        return recorded
    try:
        return run_op(producer, operands, widen=True, round_back=False)[ref[1]]  # type: ignore[arg-type]
    except HloError:
        return recorded


def diff(
    module: str | bytes | os.PathLike | Module,
    inputs: Sequence[Any] = (),
    against: Any = "xla",
    *,
    function: str | None = None,
    rtol: float | None = None,
    atol: float | None = None,
    ulp: int | None = None,
    iterations: bool = False,
    first: bool = False,
    cause: bool = True,
) -> DiffReport:
    """Compare ``module`` run on hlorun with the same program on ``against``: "xla",
    "iree", the path of a ``VALUES.npz`` (per-op values keyed ``op{i}.r{k}[.it{n}]``),
    another version of the program (text, bytes, path or Module: ops matched by
    location and op name), or an engine object (engine/diff_engines.py).  ``rtol`` /
    ``atol`` / ``ulp`` replace the default tolerances (engine/diff_metrics.py);
    ``iterations`` compares the ops of loops per iteration; ``first`` stops at the
    first divergence; ``cause=False`` skips telling its cause."""
    from .diff_engines import engine_for

    engine = engine_for(against)
    start = getattr(engine, "start", None)
    if start is not None and not iterations:
        start()  # its process starts (imports jax) while hlorun prepares
    try:
        mod = prepare(module)
        ins = instrument(mod, function)
        entry = ins.prepared.functions[ins.function]
        if takes_platform_index(entry):  # every engine gets the same arguments (cpu's index)
            inputs = with_platform_index(entry, inputs, None, None)
        inputs = list(inputs)
        ctx = _Context(ins, HlorunValues(), {}, inputs, (rtol, atol, ulp))
        if iterations:  # the copy is instrumented per iteration once hlorun knows the trips
            hl = run_hlorun(ins, inputs)
            if hl.trips:
                ins = instrument(mod, function, trip_counts(hl))
            ctx.ins, ctx.hl, ctx.other = ins, hl, engine.values(ins, inputs)
        else:  # the other engine (mostly a process of its own) runs while hlorun does
            ready = getattr(engine, "prepare", None)
            if ready is not None:
                ready(ins)  # (its program written before hlorun's run takes the interpreter)
            with ThreadPoolExecutor(1) as pool:
                pending = pool.submit(engine.values, ins, inputs)
                ctx.hl = run_hlorun(ins, inputs)
                _early_scales(ctx, pending)
                ctx.other = pending.result()
    finally:
        close = getattr(engine, "close", None)
        if close is not None:
            close()
    origin = Origins(mod)
    rows = _rows(ctx, origin, iterations, first)
    renamed = getattr(engine, "renamed", {})
    for row in rows:
        row.other_op = renamed.get(row.index)
    report = DiffReport(rows=rows, against=engine.name)
    first_row = report.first_row
    if first_row is not None and cause:
        explain(ctx, first_row, engine)
    return report
