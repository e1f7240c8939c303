"""hlorun's side of a diff (engine/diff.py): the instrumented copy run with a callback
that records each numbered op's values, and an engine's extra outputs read back as
per-op values (``op{i}.r{k}[.it{n}]``).  engine/diff_engines.py's engines read values
through it too."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..parser.errors import HloError, InterpreterError
from .api import run
from .diff_instrument import DIFF_POS_FILE, Instrumented


@dataclass
class HlorunValues:
    """hlorun's value of each numbered op: the result lists of its executions."""

    executions: dict[int, list[list[np.ndarray]]] = field(default_factory=dict)
    trips: dict[int, list[int]] = field(default_factory=dict)  # while index -> trip counts

    def last(self, index: int) -> list[np.ndarray] | None:
        runs = self.executions.get(index)
        return runs[-1] if runs else None


def run_hlorun(ins: Instrumented, inputs: Sequence[Any], **options: Any) -> HlorunValues:
    """Run the prepared copy on hlorun; every op's results through the callback."""
    out = HlorunValues()
    first_body_op: dict[int, int] = {}  # while index -> its body's first numbered op
    for info in ins.ops:
        if info.loops and info.loops[-1] not in first_body_op:
            first_body_op[info.loops[-1]] = info.index
    body_of = {v: k for k, v in first_body_op.items()}
    counts: dict[int, int] = {}

    def callback(name: str, pos: Any, results: list[Any]) -> None:
        if pos is None or pos.filename != DIFF_POS_FILE:
            return
        index = pos.line - 1
        out.executions.setdefault(index, []).append(results)
        loop = body_of.get(index)
        if loop is not None:
            counts[loop] = counts.get(loop, 0) + 1
        if index in first_body_op:
            out.trips.setdefault(index, []).append(counts.pop(index, 0))

    try:
        run(ins.prepared, list(inputs), function=ins.function, callback=callback, **options)
    except HloError as e:
        raise _at_source(e, ins) from None
    return out


def _at_source(err: HloError, ins: Instrumented) -> HloError:
    """An error at an op of the prepared copy, told at the user's op."""
    pos = err.pos
    if pos is not None and pos.filename == DIFF_POS_FILE and 0 < pos.line <= len(ins.ops):
        op = ins.ops[pos.line - 1].op
        return type(err)(err.message, op.pos if op.pos.line > 0 else None)
    return err


def trip_counts(values: HlorunValues) -> dict[int, int]:
    """While op index -> its trip count, for the loops that ran a constant count."""
    return {k: v[0] for k, v in values.trips.items() if v and all(t == v[0] for t in v)}


def expand(ins: Instrumented, outputs: Sequence[Any]) -> dict[str, np.ndarray]:
    """The extra outputs of the instrumented copy keyed ``op{i}.r{k}[.it{n}]``."""
    extra = list(outputs)[ins.num_results :]
    if len(extra) != len(ins.outputs):
        raise InterpreterError(
            f"hlorun diff: the instrumented program returned {len(extra)} values for "
            f"{len(ins.outputs)} op results"
        )
    values: dict[str, np.ndarray] = {}
    for o, a in zip(ins.outputs, extra):
        a = np.asarray(a)
        if o.stacked:
            rows = a.reshape((-1, *a.shape[len(o.stacked) :]))
            for n, row in enumerate(rows):
                values[f"{o.key}.it{n}"] = row
        else:
            values[o.key] = a
    return values
