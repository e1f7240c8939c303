"""Per-op profiles: the N most expensive ops, and Chrome trace events (Perfetto).

``OpProfile`` is an ``engine.Profile`` (its per-kind table stays) that also keeps, for
every op that ran, its self time per call site and one trace event per execution::

    prof = hlorun.engine.OpProfile()
    hlorun.run(program, inputs, profile=prof)
    print(prof.top(10))                       # the 10 ops with the most self time
    prof.write_trace("trace.json", module)    # open in https://ui.perfetto.dev

``hlorun interpret --profile-top N --profile-trace FILE`` does the same.  Each event
names the op, its place in the program text (``file:line:col``) and, for programs
exported from Python, the innermost user source line of its ``loc(...)``.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from typing import Any

from ..parser.ir import Module
from .loading import Origins
from .plan import Profile

MAX_EVENTS = 1_000_000
"""Trace events kept per profile (a long loop's later events are counted, not kept)."""


@dataclass
class SiteStats:
    """Time of one op (one place in the program) over all its executions."""

    op: Any
    name: str
    count: int = 0
    seconds: float = 0.0  # self time
    bytes: int = 0


class OpProfile(Profile):
    """A Profile that also keeps per-op statistics and trace events."""

    def __init__(self, *, trace: bool = True) -> None:
        super().__init__()
        self.sites: dict[int, SiteStats] = {}
        self.trace = trace
        self.events: list[tuple[Any, str, float, float]] = []  # (op, name, start, seconds)
        self.dropped = 0

    def record(
        self,
        name: str,
        self_seconds: float,
        total: float,
        nbytes: int,
        op: Any = None,
        start: float = 0.0,
    ) -> None:
        super().record(name, self_seconds, total, nbytes, op, start)
        site = self.sites.get(id(op))
        if site is None:
            site = self.sites[id(op)] = SiteStats(op, name)
        site.count += 1
        site.seconds += self_seconds
        site.bytes += nbytes
        if self.trace:
            if len(self.events) < MAX_EVENTS:
                self.events.append((op, name, start, total))
            else:
                self.dropped += 1

    def top(self, n: int, module: Module | None = None) -> str:
        """A text table of the ``n`` ops with the most self time."""
        origin = Origins(module)
        total = self.seconds or 1e-30
        rows = sorted(self.sites.values(), key=lambda s: -s.seconds)[: max(n, 0)]
        lines = [f"{'self ms':>10} {'%':>6} {'calls':>7}  op  location"]
        for s in rows:
            where = where_text(s.op, origin)
            lines.append(
                f"{s.seconds * 1e3:>10.3f} {100 * s.seconds / total:>6.1f} {s.count:>7}  "
                f"{s.name}  {where}"
            )
        return "\n".join(lines)

    def trace_events(self, module: Module | None = None) -> dict[str, Any]:
        """The Chrome trace-event JSON object (complete "X" events, microseconds)."""
        origin = Origins(module)
        t0 = min((e[2] for e in self.events), default=0.0)
        out = []
        for op, name, start, seconds in self.events:
            args: dict[str, Any] = {}
            pos = getattr(op, "pos", None)
            if pos is not None and pos.line > 0:
                args["location"] = str(pos)
            src = origin(op)
            if src is not None:
                args["source"] = src
            out.append(
                {
                    "name": name,
                    "cat": "op",
                    "ph": "X",
                    "ts": round((start - t0) * 1e6, 3),
                    "dur": round(seconds * 1e6, 3),
                    "pid": os.getpid(),
                    "tid": 0,
                    "args": args,
                }
            )
        meta: dict[str, Any] = {"tool": "hlorun", "runs": self.runs}
        if self.dropped:
            meta["dropped_events"] = self.dropped
        return {"traceEvents": out, "displayTimeUnit": "ms", "otherData": meta}

    def write_trace(self, path: str | os.PathLike, module: Module | None = None) -> None:
        """Write ``trace_events`` to ``path`` (open it in Perfetto or chrome://tracing)."""
        with open(path, "w", encoding="utf-8") as f:
            json.dump(self.trace_events(module), f)


def where_text(op: Any, origin: Origins) -> str:
    """``file:line:col`` of ``op`` in the program text, then ``from: file:line`` of its
    ``loc`` (the producer's source line), as ``--profile-top`` prints them."""
    pos = getattr(op, "pos", None)
    parts = [str(pos)] if pos is not None and pos.line > 0 else []
    src = origin(op)
    if src is not None:
        parts.append(f"from: {src}")
    return " ".join(parts)
