"""Ctrl-C: which op was running.

A SIGINT raises ``KeyboardInterrupt`` in the interpreter's thread at the next Python
bytecode (at once between kernels; when the running kernel returns, inside NumPy).
Nothing is tracked per step for this: the traceback of the interrupt holds the frames
of the blocks' compiled functions (engine/emit.py), whose line table names the step of
each line, and of the step closures (engine/steps.py), whose ``step`` names the op.
"""

from __future__ import annotations

from typing import Any

from ..parser.errors import SourcePos
from .emit import line_step
from .plan import Step


def running_op(exc: BaseException) -> tuple[str, SourcePos | None] | None:
    """The op (name, location) whose step was running when ``exc`` was raised: the
    innermost frame of its traceback that runs a ``Step``; None if none did."""
    found: Step | None = None
    tb = exc.__traceback__
    while tb is not None:
        found = _frame_step(tb) or found
        tb = tb.tb_next
    if found is None:
        return None
    return found.op.name, found.op.pos


def _frame_step(tb: Any) -> Step | None:
    """The step a traceback entry runs: its line's step in a compiled function's line
    table (engine/emit.py), else a closure's ``step`` / ``st``."""
    st = line_step(tb)
    if st is not None:
        return st
    local = tb.tb_frame.f_locals
    for name in ("step", "st"):
        v = local.get(name)
        if isinstance(v, Step):
            return v
    return None


def interrupted_message(exc: BaseException) -> str:
    """The CLI's line for a Ctrl-C, in the diagnostic style, naming the running op."""
    where = running_op(exc)
    if where is None:
        return "error: interrupted (Ctrl-C)"
    name, pos = where
    prefix = f"{pos}: " if pos is not None else ""
    return f"{prefix}error: '{name}' op interrupted (Ctrl-C) while it was running"
