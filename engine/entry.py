"""The plain call of a compiled entry function, as one generated Python function.

``engine.compile``'s common call (``Program.__call__``: no limit, callback, profile,
feeds or grid) passes base-class arrays of exactly the declared dtypes and shapes and
gets arrays it owns.  ``Interpreter.call_plain`` does that with loops over the inputs,
the results and the steps; at 1e4 elements those loops cost more than the op.  This
module writes them out for one plan (``plain_entry``), checks unrolled:

* inputs: class, dtype, shape of each (``is`` first: NumPy's builtin dtypes are
  singletons); anything else returns None before running, and the caller takes the
  general path (which converts or reports);
* the run: no nested call in progress, the plan's static bytes within the caps, the
  memory budget of ``engine.memory`` already current (else set for the run), the
  execution context clean (a run that used infeed, probes or prints, or a process
  handle, leaves it dirty: the general path resets it; outfeed goes to a private list
  the caller never sees, as with ``outfeed=None``);
* results: a base-class array that owns its memory (``base is None``), not an input,
  not another result, is the caller's as it is; any other result goes through
  ``engine.loading.owned_results`` (results never alias inputs, issue 21 item 4).

Same steps, same order, same values as ``call_plain``: bit-identical by construction.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from .loading import owned_results
from .memory import current_budget_var
from .plan import ERRSTATE_VAR, IGNORE_ERRORS, as_array, quiet_errors, restore_errors

if TYPE_CHECKING:
    from .interpreter import Interpreter
    from .plan import FunctionPlan

UNROLL_STEPS = 32  # a block of at most this many steps is called step by step


def plain_entry(
    interp: Interpreter, plan: FunctionPlan, sig: Sequence[tuple[np.dtype, tuple[int, ...]]]
) -> Callable[[Sequence[Any]], list[Any] | None]:
    """``run(inputs)``: the results, or None when the plain call does not apply."""
    block = plan.block
    assert block is not None  # a planned function
    n = len(sig)
    xs = [f"x{i}" for i in range(n)]
    var = current_budget_var()
    env: dict[str, Any] = {
        "ND": np.ndarray,
        "interp": interp,
        "limits": interp.limits,
        "ctx": interp.context,
        "template": plan.template,
        "frames": plan.frames,
        "runs": block.runs,
        "QE": quiet_errors,
        "RE": restore_errors,
        "IGN": IGNORE_ERRORS,
        "CGET": var.get,
        "CSET": var.set,
        "CRESET": var.reset,
        "owned_results": owned_results,
        "as_array": as_array,
        "outputs": interp._outputs,
        "plan": plan,
        "OUT": [],  # the outfeed of plain runs (``outfeed=None``: the caller sees none)
    }
    if ERRSTATE_VAR is not None:
        env["QSET"], env["QRESET"] = ERRSTATE_VAR.set, ERRSTATE_VAR.reset
    # plan.frames[-1] is the frame its regions' closures read (Interpreter._region_fn)
    regions = any(step.op.regions for step in block.steps)
    lines = ["def run(inputs):", f"    if len(inputs) != {n}:", "        return None"]
    if n:
        lines.append(f"    {', '.join(xs)}, = inputs")
    for i, (dt, shape) in enumerate(sig):
        env[f"D{i}"], env[f"S{i}"] = dt, shape
        x = xs[i]
        lines += [
            f"    if {x}.__class__ is not ND or ({x}.dtype is not D{i} and {x}.dtype != D{i})"
            f" or {x}.shape != S{i}:",
            "        return None",
        ]
    lines += [
        "    memo = interp._budget_memo",
        "    if (interp._depth or not interp._fast",
        f"            or limits.memory_cap < {block.max_nbytes} or limits.live_cap < {block.max_live}",
        "            or memo.per_tensor != limits.memory_cap or memo.live != limits.live_cap",
        "            or ctx.process is not None or ctx.infeed or ctx.probe_counts or ctx.printed):",
        "        return None",
        "    if OUT:",  # what the last plain run's outfeed ops wrote: nobody can read it
        "        OUT.clear()",
        "    ctx.outfeed = OUT",
        "    frame = template.copy()",
    ]
    scalar = set(plan.scalar_args)
    for i, x in enumerate(xs):
        lines.append(f"    frame[{i}] = {x}[()]" if i in scalar else f"    frame[{i}] = {x}")
    lines += [
        "    frames.append(frame)" if regions else "",
        "    interp._depth = 1",
        "    token = QE()" if ERRSTATE_VAR is None else "    token = QSET(IGN)",
        "    bt = None if CGET() is memo else CSET(memo)",
        "    try:",
    ]
    if len(block.runs) <= UNROLL_STEPS:
        for k, step_run in enumerate(block.runs):
            env[f"R{k}"] = step_run
            lines.append(f"        R{k}(frame)")
    else:
        lines += ["        for step in runs:", "            step(frame)"]
    rs = [f"r{j}" for j in range(len(block.returns))]
    for r, slot in zip(rs, block.returns):
        lines.append(f"        {r} = frame[{slot}]")
    lines += [
        "        pass",
        "    finally:",
        "        if bt is not None:",
        "            CRESET(bt)",
        "        RE(token)" if ERRSTATE_VAR is None else "        QRESET(token)",
        "        interp._depth = 0",
        "        frames.pop()" if regions else "",
        "    del frame",
    ]
    out = f"[{', '.join(rs)}]"
    if plan.returns_consts:
        lines.append(f"    return owned_results(outputs(plan, {out}, True), inputs)")
    else:
        for r in rs:  # 0-d values may be NumPy scalars in frames
            lines += [f"    if {r}.__class__ is not ND:", f"        {r} = as_array({r})"]
        for j, r in enumerate(rs):
            others = [f" or {r} is {x}" for x in xs] + [f" or {r} is {q}" for q in rs[:j]]
            lines += [
                f"    if {r}.__class__ is not ND or {r}.base is not None{''.join(others)}:",
                f"        return owned_results({out}, inputs)",
            ]
        lines.append(f"    return {out}")
    namespace: dict[str, Any] = {}
    lines = [line for line in lines if line]
    exec(compile("\n".join(lines), "<hlorun entry>", "exec"), env, namespace)  # noqa: S102
    fn: Callable[[Sequence[Any]], list[Any] | None] = namespace["run"]
    return fn
