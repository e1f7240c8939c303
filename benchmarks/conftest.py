"""Benchmark harness: hlorun against its NumPy floor, timed in the same session.

Run: ``python3 -m pytest benchmarks`` (not part of ``pytest``: testpaths = tests).

Every execution benchmark uses the ``versus`` fixture: it times the prepared hlorun
program (``engine.compile`` once; parse and verify are not timed) with
pytest-benchmark, and before each round it times the NumPy floor (the same work
written directly in NumPy) with the same timer, so both see the same machine load.
Medians of both, their ratio and the target go into ``benchmark.extra_info`` and into
the table printed at the end of the session.  ``peak_vs_live`` measures peak memory
(tracemalloc: NumPy reports its allocations there) against the program's largest live
set.
"""

from __future__ import annotations

import gc
import json
import os
import statistics
import sys
import time
import tracemalloc
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pytest

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "examples"))

BUDGET_S = 1.5  # time per side of one benchmark, roughly
# Below this live set, Python's own objects (frames, lists) dominate tracemalloc's peak:
# the peak ratio is shown with a * and not held to the 1.5x target.
SMALL_LIVE = 1 << 20


@dataclass
class Row:
    name: str
    hlorun_s: float
    floor_s: float
    ratio_target: float | None
    abs_target_s: float | None = None
    peak_ratio: float | None = None
    live_bytes: int = 0
    note: str = ""

    @property
    def ratio(self) -> float:
        return self.hlorun_s / self.floor_s

    @property
    def ok(self) -> bool:
        good = True
        if self.ratio_target is not None:
            good &= self.ratio <= self.ratio_target
        if self.abs_target_s is not None:
            good &= self.hlorun_s <= self.abs_target_s
        if self.peak_ratio is not None and self.live_bytes >= SMALL_LIVE:
            good &= self.peak_ratio <= 1.5
        return good


ROWS: dict[str, Row] = {}


def _rounds(fn: Callable[[], Any], floor: Callable[[], Any]) -> int:
    t0 = time.perf_counter()
    fn()
    floor()
    once = time.perf_counter() - t0
    return max(5, min(300, int(BUDGET_S / max(once, 1e-6))))


@pytest.fixture
def versus(benchmark, request):
    """``versus(run, floor, ratio=..., absolute=...)``: time ``run`` (hlorun) and
    ``floor`` (NumPy) interleaved; record both medians and the ratio."""

    def measure(
        run: Callable[[], Any],
        floor: Callable[[], Any],
        *,
        ratio: float | None = None,
        absolute: float | None = None,
        rounds: int | None = None,
        note: str = "",
    ) -> Any:
        timer = benchmark._timer if hasattr(benchmark, "_timer") else time.perf_counter
        floor_times: list[float] = []

        def setup() -> None:
            t0 = timer()
            floor()
            floor_times.append(timer() - t0)

        n = rounds or _rounds(run, floor)
        gc.collect()
        result = benchmark.pedantic(run, setup=setup, rounds=n, iterations=1, warmup_rounds=1)
        hl = benchmark.stats.stats.median
        fl = statistics.median(floor_times)
        name = request.node.name.removeprefix("test_")
        row = ROWS.setdefault(name, Row(name, hl, fl, ratio))
        row.hlorun_s, row.floor_s = hl, fl
        row.ratio_target, row.abs_target_s, row.note = ratio, absolute, note
        benchmark.extra_info.update(
            floor_median_s=fl,
            hlorun_median_s=hl,
            ratio=round(hl / fl, 3),
            ratio_target=ratio,
            absolute_target_s=absolute,
        )
        return result

    return measure


def largest_live_set(program: Any) -> int:
    """Bytes of the largest set of values alive at once in the entry function (results
    of its ops; inputs and constants excluded), from the plan's liveness: what any
    executor that allocates each result needs at least."""
    from hlorun.engine.plan import static_nbytes

    plan = program.interpreter.plan(program.function.name)
    size: dict[int, int] = {}
    for st in plan.block.steps:
        if st.kind != "constant":
            for r, t in zip(st.results, st.check_types):
                size[r] = static_nbytes(t) or 0
    live: set[int] = set()
    best = 0
    for st in plan.block.steps:
        during = live | set(st.results)
        best = max(best, sum(size.get(s, 0) for s in during))
        live = during - set(st.kills)
    return best


@pytest.fixture
def peak_vs_live(request):
    """``peak_vs_live(program, *inputs)``: peak traced bytes of one run / largest live
    set; recorded in the session table."""

    def measure(program: Any, *inputs: Any) -> float:
        program(*inputs)  # warm: caches, plan
        gc.collect()
        tracemalloc.start()
        try:
            base, _ = tracemalloc.get_traced_memory()
            tracemalloc.reset_peak()
            out = program(*inputs)
            _, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
        del out
        live = largest_live_set(program)
        ratio = (peak - base) / live
        name = request.node.name.removeprefix("test_")
        row = ROWS.setdefault(name, Row(name, float("nan"), float("nan"), None))
        row.peak_ratio, row.live_bytes = ratio, live
        return ratio

    return measure


def _fmt_s(s: float) -> str:
    if s != s:
        return "-"
    if s >= 1:
        return f"{s:.2f} s"
    if s >= 1e-3:
        return f"{s * 1e3:.2f} ms"
    return f"{s * 1e6:.1f} us"


def pytest_sessionfinish(session, exitstatus):
    """The rows as JSON to ``$HLORUN_BENCH_ROWS`` (tools/check_bench_targets.py)."""
    path = os.environ.get("HLORUN_BENCH_ROWS")
    if not path:
        return
    rows = [
        {
            "name": r.name,
            "ok": r.ok,
            "detail": (
                f"hlorun {_fmt_s(r.hlorun_s)}, numpy {_fmt_s(r.floor_s)}, ratio target "
                f"{r.ratio_target}, absolute target {r.abs_target_s}, peak/live {r.peak_ratio}"
            ),
        }
        for r in ROWS.values()
    ]
    Path(path).write_text(json.dumps(rows, indent=1))


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    if not ROWS:
        return
    tr = terminalreporter
    tr.section("hlorun vs NumPy floor (medians, same session)")
    w = max(len(r.name) for r in ROWS.values())
    tr.write_line(
        f"{'benchmark':<{w}} {'hlorun':>10} {'numpy':>10} {'ratio':>7} {'target':>12} "
        f"{'peak/live':>9}  ok"
    )
    for r in ROWS.values():
        if r.ratio_target is not None:
            target = f"<= {r.ratio_target:g}x"
        elif r.abs_target_s is not None:
            target = f"<= {_fmt_s(r.abs_target_s)}"
        else:
            target = "-"
        if r.ratio_target is not None and r.abs_target_s is not None:
            target = f"<={r.ratio_target:g}x,{_fmt_s(r.abs_target_s)}"
        ratio = "-" if r.floor_s != r.floor_s else f"{r.ratio:.2f}"
        peak = "-" if r.peak_ratio is None else f"{r.peak_ratio:.2f}"
        if r.peak_ratio is not None and r.live_bytes < SMALL_LIVE:
            peak += "*"
        tr.write_line(
            f"{r.name:<{w}} {_fmt_s(r.hlorun_s):>10} {_fmt_s(r.floor_s):>10} {ratio:>7} "
            f"{target:>12} {peak:>9}  {'yes' if r.ok else 'NO'}"
            + (f"  ({r.note})" if r.note else "")
        )
    if any(r.peak_ratio is not None and r.live_bytes < SMALL_LIVE for r in ROWS.values()):
        tr.write_line(f"* live set under {SMALL_LIVE >> 20} MB: Python objects dominate the peak")


def rand(shape: tuple[int, ...] | int, seed: int = 0, dtype: Any = np.float32) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal(shape).astype(dtype)
