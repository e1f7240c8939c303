"""Straight-line blocks: a block's steps as one generated Python function.

Planning (``engine.interpreter``) compiles each step into a ``run(frame)`` closure
(``engine.steps``); a block then runs ``for run in block.runs: run(frame)``.  For small
elementwise steps (the fast path's NumPy scalar or ufunc calls, and select) the closure
call, its loop over released slots and its ``try`` cost more than the op.  This module
writes a block's steps out as the body of one function, the way the closures would
have run them, in order:

* a step with an ``inline`` entry (``Step.inline``: the callable, result dtype, scalar
  type and fixer its closure would use) becomes its closure's lines: fetch operands,
  release the slots whose last use it is, call, check the result's class and dtype
  (else the fixer), store;
* any other step calls its closure;
* a failing step is reported as itself (``plan.reraise``), as its closure would.

``while_loop`` does the same for a ``stablehlo.while`` whose cond and body are such
blocks: the loop, its condition and its body in one function, the loop-carried values
in locals (no copies; the body's slots alone hold them while it runs, so buffers stay
reusable), used when the run has no limit, callback or profile to check (the step's
closure runs otherwise).  Nothing depends on trip counts or loop shapes.

Bit-identical by construction: the same callables on the same values in the same order.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from .fastpath import select
from .plan import BlockPlan, Step, reraise

if TYPE_CHECKING:
    from .plan import Limits

MIN_STEPS = 2  # a block of fewer inline steps keeps its closures


def _emit_step(
    st: Step, k: int, env: dict[str, Any], lines: list[str], pad: str, live: list[bool]
) -> None:
    """The lines of step ``k`` (``st``) on ``frame``; ``live[0]``: locals may hold values."""
    lines.append(f"{pad}at = {k}")
    if st.inline is None:
        if live[0]:
            lines.append(f"{pad}a0 = a1 = a2 = r = None")
            live[0] = False
        env[f"R{k}"] = st.run
        lines.append(f"{pad}R{k}(frame)")
        return
    fn, dt, sct, fix = st.inline
    env[f"F{k}"], env[f"D{k}"], env[f"S{k}"], env[f"X{k}"] = fn, dt, sct, fix
    names = [f"a{j}" for j in range(len(st.operands))]
    if len(names) > 3:
        raise ValueError("inline steps take at most 3 operands")
    for name, slot in zip(names, st.operands):
        lines.append(f"{pad}{name} = frame[{slot}]")
    for s in st.kills:
        lines.append(f"{pad}frame[{s}] = None")
    lines.append(f"{pad}r = F{k}({', '.join(names)})")
    lines.append(f"{pad}if r.__class__ is not S{k} and (r.__class__ is not ND or r.dtype != D{k}):")
    lines.append(f"{pad}    r = X{k}(r)")
    lines.append(f"{pad}frame[{st.results[0]}] = r")
    live[0] = True


def _compile(name: str, lines: list[str], env: dict[str, Any]) -> Callable[..., Any]:
    namespace: dict[str, Any] = {}
    exec(compile("\n".join(lines), f"<hlorun {name}>", "exec"), env, namespace)  # noqa: S102
    return namespace[name]


def _base_env(steps: Sequence[Step]) -> dict[str, Any]:
    return {"ND": np.ndarray, "STEPS": tuple(steps), "reraise": reraise, "select": select}


def straight_line(block: BlockPlan) -> tuple[Callable[[list[Any]], None], ...]:
    """``block.runs`` as one generated function (or unchanged when fewer than
    ``MIN_STEPS`` of its steps are inline ones)."""
    steps = [st for st in block.steps if st.kind != "constant"]
    if len(block.runs) != len(steps) or sum(st.inline is not None for st in steps) < MIN_STEPS:
        return block.runs  # (fused runs, engine.fusion: their steps are big anyway)
    env = _base_env(steps)
    lines = ["def block(frame):", "    at = 0", "    try:"]
    live = [False]
    for k, st in enumerate(steps):
        _emit_step(st, k, env, lines, " " * 8, live)
    lines += ["    except Exception as e:", "        reraise(STEPS[at], e)"]
    block.inlined = True
    return (_compile("block", lines, env),)


def while_loop(
    st: Step,
    slow: Callable[[list[Any]], None],
    interp: Any,
    limits: Limits,
    early: tuple[int, ...],
    kills: tuple[int, ...],
    clear_each: bool,
) -> Callable[[list[Any]], None]:
    """``stablehlo.while`` (spec "while") as one generated loop, when its cond and body
    run only inline steps or closures; ``slow`` (the step's closure) runs when the run
    checks limits, a callback or a profile, or the loop's tensors exceed a memory cap."""
    cond, body = st.blocks
    csteps = [s for s in cond.steps if s.kind != "constant"]
    bsteps = [s for s in body.steps if s.kind != "constant"]
    if not any(s.inline is not None for s in (*csteps, *bsteps)):
        return slow
    if len(cond.runs) != len(csteps) or len(body.runs) != len(bsteps):
        return slow  # fused runs (engine.fusion) run through the block's closures
    nvals = len(st.operands)
    steps = [*csteps, *bsteps]
    env = _base_env(steps)
    env.update(SLOW=slow, INTERP=interp, LIMITS=limits, WHILE=st)
    cap = max(cond.max_nbytes, body.max_nbytes)
    live_cap = max(getattr(cond, "max_live", 0), getattr(body, "max_live", 0))
    carried = [f"c{j}" for j in range(nvals)]
    pad = " " * 12
    lines = [
        "def loop(frame):",
        f"    if not INTERP._fast or {cap} > LIMITS.memory_cap"
        + (f" or {live_cap} > LIMITS.live_cap" if hasattr(limits, "live_cap") else "")
        + ":",
        "        return SLOW(frame)",
        *(f"    {c} = frame[{s}]" for c, s in zip(carried, st.operands)),
        *(f"    frame[{s}] = None" for s in early),
        "    n = 0",
        "    at = -1",
        "    try:",
        "        while True:",
        f"{pad}n += 1",
        *(f"{pad}frame[{s}] = {carried[j]}" for j, s in cond.bind),
    ]
    live = [False]
    for k, s in enumerate(csteps):
        _emit_step(s, k, env, lines, pad, live)
    lines += [
        f"{pad}at = -1",
        f"{pad}if not frame[{cond.returns[0]}]:",
        f"{pad}    break",
        *(f"{pad}frame[{s}] = {carried[j]}" for j, s in body.bind),
        f"{pad}{' = '.join(carried)} = None",  # the body's slots alone hold the values
    ]
    if live[0]:
        lines.append(f"{pad}a0 = a1 = a2 = r = None")
        live[0] = False
    for k, s in enumerate(bsteps):
        _emit_step(s, len(csteps) + k, env, lines, pad, live)
    lines += [f"{pad}{c} = frame[{s}]" for c, s in zip(carried, body.returns)]
    if clear_each:
        lines += [f"{pad}frame[{s}] = None" for s in body.clear]
    lines += [
        "    except Exception as e:",
        "        reraise(WHILE if at < 0 else STEPS[at], e)",
        "    finally:",
        "        LIMITS.steps += n",
        *(f"        frame[{s}] = None" for s in (*cond.clear, *body.clear)),
        *(f"    frame[{s}] = {c}" for s, c in zip(st.results, carried)),
        *(f"    frame[{s}] = None" for s in kills),
    ]
    return _compile("loop", lines, env)
