"""Entry functions: the plain call of a compiled program, as one generated function.

``engine.compile``'s common call (``Program.__call__``: no limit, callback, profile,
feeds or grid) passes base-class arrays of exactly the declared dtypes and shapes and
gets arrays it owns.  ``Interpreter.call`` does that with loops over the inputs and
results; at 1e4 elements those loops cost more than the op.  ``plain_entry`` writes
them out for one plan, around a call of the block's PLAIN function (engine/emit.py),
checks unrolled:

* inputs: class, dtype, shape of each (``is`` first: NumPy's builtin dtypes are
  singletons); anything else returns None before running, and the caller takes the
  general path (which converts or reports);
* the run: no nested call in progress, the PLAIN mode, the plan's static bytes within
  the caps, the memory budget of ``engine.memory`` already current (else set for the
  run), the execution context clean (a run that used infeed, probes or prints, or a
  process handle, leaves it dirty: the general path resets it; outfeed goes to a
  private list the caller never sees, as with ``outfeed=None``);
* results: a base-class array that owns its memory (``base is None``), not an input,
  not another result, is the caller's as it is; any other result goes through
  ``engine.loading.owned_results`` (results never alias inputs, issue 21 item 4).

When every step of the block can be written out (``local_steps``: small elementwise
steps with an ``inline`` description, large ones with a ``big`` one, no regions, no
fused runs), ``local_entry`` has the same emitter (engine/emit.py's ``BlockEmitter``)
write the steps into the entry function itself, their values in local variables
(``LocalValues``: no frame), run in a NumPy error-state context of the program's own
(``quiet_context``: no warning escapes, the caller's error state is never touched).
Its steps call no kernel, so only the caps and the run's mode are checked.  A result
is checked for aliasing unless it is surely a new array of its step's own (a ufunc's
result whose dtype NumPy's type resolution fixes, returned once).

Same steps, same order, same values as ``Interpreter.call``: bit-identical by
construction.
"""

from __future__ import annotations

import contextvars
from collections.abc import Callable, Sequence
from functools import partial
from typing import TYPE_CHECKING, Any

import numpy as np

from .emit import OBSERVE, PLAIN, PROFILE, BlockEmitter, Source, block_function
from .loading import owned_results
from .memory import current_budget_var
from .plan import (
    ERRSTATE_VAR,
    IGNORE_ERRORS,
    as_array,
    quiet_errors,
    restore_errors,
)

if TYPE_CHECKING:
    from .interpreter import Interpreter
    from .plan import FunctionPlan, Step


def _run_start(interp: Interpreter, timeout: float | None, pad: str) -> list[str]:
    """The line that starts a run in a checked mode (``Interpreter.start_run``)."""
    return [] if interp.mode == PLAIN else [f"{pad}interp.start_run({timeout!r})"]


def plain_entry(
    interp: Interpreter,
    plan: FunctionPlan,
    sig: Sequence[tuple[np.dtype, tuple[int, ...]]],
    timeout: float | None = None,
) -> Callable[[Sequence[Any]], list[Any] | None]:
    """``run(inputs)``: the results, or None when the entry's call does not apply; in
    the interpreter's mode (a COUNT run starts its clock with ``timeout``)."""
    block = plan.block
    assert block is not None  # a planned function
    mode = interp.mode
    if ERRSTATE_VAR is not None and not mode & (OBSERVE | PROFILE) and local_steps(plan):
        return local_entry(interp, plan, sig, timeout)
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
        # the caps the block needs, as names: entries of blocks alike share one text
        # (compiled once, engine/emit.py's code cache)
        "MAX_NBYTES": block.max_nbytes,
        "MAX_LIVE": block.max_live,
    }
    if ERRSTATE_VAR is not None:
        env["QSET"], env["QRESET"] = ERRSTATE_VAR.set, ERRSTATE_VAR.reset
    # plan.frames[-1] is the frame its regions' closures read (Interpreter._region_fn)
    regions = any(step.op.regions for step in block.steps)
    lines = ["def run(inputs):", f"    if len(inputs) != {n}:", "        return None"]
    if n:
        lines.append(f"    {', '.join(xs)}, = inputs")
    lines += _input_checks(sig, xs, env)
    lines += [
        "    memo = interp._budget_memo",
        f"    if (interp._depth or interp.mode != {mode}",
        "            or limits.memory_cap < MAX_NBYTES or limits.live_cap < MAX_LIVE",
        "            or memo.per_tensor != limits.memory_cap or memo.live != limits.live_cap",
        "            or ctx.process is not None or ctx.infeed or ctx.probe_counts or ctx.printed):",
        "        return None",
        "    if OUT:",  # what the last plain run's outfeed ops wrote: nobody can read it
        "        OUT.clear()",
        "    ctx.outfeed = OUT",
        *_run_start(interp, timeout, "    "),
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
    env["BLOCK"] = block_function(block, mode, interp)
    lines.append("        BLOCK(frame)")
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
        lines += _owned_returns(rs, xs, [False] * len(rs))
    src = Source(env)
    for line in lines:
        if line:
            src.add(line)
    fn: Callable[[Sequence[Any]], list[Any] | None] = src.compile("run", "<hlorun entry>")
    return fn


# ------------------------------------------------------------------ all steps inline
LOCAL_MAX_STEPS = 4096  # a longer block keeps its frame (compile time of one function)


def local_steps(plan: FunctionPlan) -> bool:
    """Can each of the block's steps be written out on local variables (an ``inline``
    or ``big`` description, no regions, no fused runs)?"""
    block = plan.block
    assert block is not None  # a planned function
    steps = [st for st in block.steps if st.kind != "constant"]
    return (
        len(steps) <= LOCAL_MAX_STEPS
        and not block.fused  # fused runs (engine.fusion) keep their frame
        and not any((st.inline is None and st.big is None) or st.op.regions for st in steps)
    )


class LocalValues:
    """The values of a local entry function: slot -> local variable (``v{slot}``), an
    argument (``x{i}``) or a constant (``C{slot}``), what engine/emit.py's
    ``BlockEmitter`` writes instead of ``frame[slot]``."""

    def __init__(self, plan: FunctionPlan, src: Source) -> None:
        self.src = src
        self.consts = plan.consts
        self.scalar = set(plan.scalar_args)
        self.nargs = len(plan.function.type.inputs)
        # slot -> the dtype its value has for sure (a base-class array or NumPy scalar)
        self.dtypes: dict[int, np.dtype] = {
            s: v.dtype for s, v in plan.consts.items() if v.__class__ is np.ndarray
        }
        # slots holding a new array of their own: a ufunc's result, not a reused buffer
        self.fresh: set[int] = set()

    def ref(self, slot: int) -> str:
        """The expression of a slot's value: a constant, an argument, or a local."""
        if slot in self.consts:
            self.src.env[f"C{slot}"] = self.consts[slot]
            return f"C{slot}"
        if slot < self.nargs and slot not in self.scalar:
            return f"x{slot}"
        return f"v{slot}"

    def kill(self, slot: int, st: Step, pad: str) -> None:
        """Release a value at its last use (arguments and constants stay held)."""
        if slot >= self.nargs and slot not in self.consts:
            self.src.add(f"{pad}v{slot} = None", st)

    def certain(self, ufunc: Any, kw: dict[str, Any], dt: np.dtype, ops: Sequence[int]) -> bool:
        """Is a new result of ``ufunc`` on these operands surely a base-class array of
        dtype ``dt``?  With ``out=`` (``kw``) it is that array; else NumPy's type
        resolution on the operands' known dtypes says (operands of one shape, the
        result's: no broadcasting, no subclass)."""
        if kw:
            return True
        known = [self.dtypes.get(s) for s in ops]
        if any(d is None for d in known):
            return False
        try:
            resolved = ufunc.resolve_dtypes((*known, None))
        except (TypeError, ValueError, AttributeError):
            return False
        return bool(resolved[-1] == dt) and list(resolved[:-1]) == known


def quiet_context() -> contextvars.Context:
    """A context of its own in which NumPy's error state ignores float errors (the spec
    defines those results): running in it is cheaper than setting and resetting the
    error state per call.  It is empty otherwise: the steps it runs read no other
    context variable (no kernel, so no memory budget)."""
    ctx = contextvars.Context()
    ctx.run(ERRSTATE_VAR.set, IGNORE_ERRORS)
    return ctx


def local_entry(
    interp: Interpreter,
    plan: FunctionPlan,
    sig: Sequence[tuple[np.dtype, tuple[int, ...]]],
    timeout: float | None = None,
) -> Callable[[Sequence[Any]], list[Any] | None]:
    """``plain_entry`` of a block whose steps are all written out (``local_steps``):
    values in local variables, no frame, no closure calls, run in ``quiet_context``.
    Its steps call no kernel, so neither the execution context nor the memory budget
    is read: only the caps (the block's static bytes) and the run's mode are checked."""
    block = plan.block
    assert block is not None  # a planned function
    n = len(sig)
    xs = [f"x{i}" for i in range(n)]
    src = Source(
        {
            "interp": interp,
            "limits": interp.limits,
            "owned_results": owned_results,
            "as_array": as_array,
            "outputs": interp._outputs,
            "plan": plan,
            "MAX_NBYTES": block.max_nbytes,
            "MAX_LIVE": block.max_live,
        }
    )
    local = LocalValues(plan, src)
    local.dtypes.update((i, dt) for i, (dt, _) in enumerate(sig))
    em = BlockEmitter(src, interp.mode, interp, local)
    add = src.add
    add("def run(inputs):")
    add("    try:")
    add(f"        {', '.join(xs)}, = inputs" if n else "        () = inputs")
    add("    except ValueError:")  # another number of inputs: the general path says so
    add("        return None")
    for line in _input_checks(sig, xs, src.env):
        add(line)
    add(
        f"    if interp.mode != {interp.mode} or limits.memory_cap < MAX_NBYTES"
        " or limits.live_cap < MAX_LIVE:"
    )
    add("        return None")
    for line in _run_start(interp, timeout, "    "):
        add(line)
    for i in plan.scalar_args:
        add(f"    v{i} = x{i}[()]")
    add("    try:")
    em.body(block, " " * 8)
    add("        pass")
    add("    except Exception as e:")
    add("        FAILED(e)")
    add("        raise")
    rs = [f"r{j}" for j in range(len(block.returns))]
    for r, s in zip(rs, block.returns):
        add(f"    {r} = {local.ref(s)}")
    out = f"[{', '.join(rs)}]"
    if plan.returns_consts:
        add(f"    return owned_results(outputs(plan, {out}, True), inputs)")
    else:
        returns = block.returns
        # a new array of a step's own, returned once: the caller's as it is
        own = [s in local.fresh and returns.count(s) == 1 for s in returns]
        for line in _owned_returns(rs, xs, own):
            add(line)
    fn = src.compile("run", "<hlorun local entry>")
    # (a RuntimeError from the context's ``run``: entered by another thread running
    # this program; Program.__call__ then takes the general path)
    return partial(quiet_context().run, fn)


def _input_checks(
    sig: Sequence[tuple[np.dtype, tuple[int, ...]]], xs: Sequence[str], env: dict[str, Any]
) -> list[str]:
    """Lines returning None unless each input ``xs[i]`` is a base-class array of the
    declared dtype and shape (``is`` first: NumPy's builtin dtypes are singletons)."""
    lines = []
    for i, ((dt, shape), x) in enumerate(zip(sig, xs)):
        env[f"I{i}"], env[f"S{i}"] = dt, shape
        lines += [
            f"    if {x}.__class__ is not ND or ({x}.dtype is not I{i} and {x}.dtype != I{i})"
            f" or {x}.shape != S{i}:",
            "        return None",
        ]
    return lines


def _owned_returns(rs: Sequence[str], xs: Sequence[str], own: Sequence[bool]) -> list[str]:
    """Lines returning the results ``rs`` as the caller's own: as they are when each is
    a base-class array owning its memory, not an input, not another result; else through
    ``owned_results`` (results never alias inputs, issue 21).  ``own[j]``: result j is
    surely a new array of its step's own, returned once (nothing to check but the other
    results that are not)."""
    out = f"[{', '.join(rs)}]"
    lines = []
    for r, mine in zip(rs, own):  # 0-d values may be NumPy scalars
        if not mine:
            lines += [f"    if {r}.__class__ is not ND:", f"        {r} = as_array({r})"]
    for j, (r, mine) in enumerate(zip(rs, own)):
        tests = [f"{r} is {q}" for q, o in zip(rs[:j], own) if not (mine and o)]
        if not mine:
            tests = [f"{r}.__class__ is not ND", f"{r}.base is not None"]
            tests += [f"{r} is {x}" for x in xs] + [f"{r} is {q}" for q in rs[:j]]
        if tests:
            lines += [
                f"    if {' or '.join(tests)}:",
                f"        return owned_results({out}, inputs)",
            ]
    return [*lines, f"    return {out}"]
