"""The model suite's harness: hlorun, its NumPy floor and (when jax is installed)
``jax.jit`` of the same exported program, timed interleaved in one run.

Run: ``python3 -m pytest benchmarks/models`` (not part of the README's test command).
Each round times the floor, then jax (when present), then hlorun (pytest-benchmark's
``pedantic`` with the other two in its setup), so all three see the same machine load.
The table at the end gives the medians, hlorun's peak traced memory, the ratios and
the targets (issue "Speed III").
"""

from __future__ import annotations

import gc
import os
import statistics
import tracemalloc
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest
from conftest import ROWS, Row, _fmt_s  # benchmarks/conftest.py: its table and $HLORUN_BENCH_ROWS

BUDGET_S = 4.0  # time per side, roughly


@dataclass
class ModelRow:
    name: str
    hlorun_s: float
    floor_s: float
    jax_s: float | None
    peak_mb: float | None
    floor_target: float | None
    jax_target: float | None

    def ok(self) -> bool:
        good = self.floor_target is None or self.hlorun_s / self.floor_s <= self.floor_target
        if self.jax_target is not None and self.jax_s is not None:
            good &= self.hlorun_s / self.jax_s <= self.jax_target
        return good


MODEL_ROWS: dict[str, ModelRow] = {}
LOAD: list[float] = []  # 1-minute load average when each model's timing starts


def _load() -> float | None:
    try:
        return os.getloadavg()[0]
    except OSError:  # not on every platform
        return None


def _median_time(fn: Callable[[], Any], timer, out: list[float]) -> None:
    t0 = timer()
    fn()
    out.append(timer() - t0)


@pytest.fixture
def model_versus(benchmark, request):
    """``model_versus(run, floor, jax_run=None, floor_target=, jax_target=)``."""

    def measure(
        run: Callable[[], Any],
        floor: Callable[[], Any],
        jax_run: Callable[[], Any] | None = None,
        *,
        floor_target: float | None = None,
        jax_target: float | None = None,
    ) -> Any:
        import time

        timer = time.perf_counter
        floors: list[float] = []
        jaxes: list[float] = []

        turn = [0]

        def setup() -> None:
            # hlorun runs after setup; the floor and jax.jit swap places each round, so
            # that hlorun and the floor each follow XLA's call (its threads still
            # spinning) half of the rounds, not hlorun always
            turn[0] += 1
            if jax_run is not None and turn[0] % 2:
                _median_time(jax_run, timer, jaxes)
                _median_time(floor, timer, floors)
            else:
                _median_time(floor, timer, floors)
                if jax_run is not None:
                    _median_time(jax_run, timer, jaxes)

        load = _load()
        if load is not None:
            LOAD.append(load)
        t0 = timer()
        run()
        once = timer() - t0
        rounds = max(5, min(100, int(BUDGET_S / max(once, 1e-6))))
        gc.collect()
        result = benchmark.pedantic(run, setup=setup, rounds=rounds, iterations=1, warmup_rounds=1)
        hl = benchmark.stats.stats.median
        fl = statistics.median(floors)
        jx = statistics.median(jaxes) if jaxes else None
        gc.collect()
        tracemalloc.start()
        try:
            base, _ = tracemalloc.get_traced_memory()
            tracemalloc.reset_peak()
            run()
            _, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
        name = request.node.callspec.id if hasattr(request.node, "callspec") else request.node.name
        MODEL_ROWS[name] = ModelRow(
            name, hl, fl, jx, (peak - base) / 2**20, floor_target, jax_target
        )
        # the same rows in the benchmarks' own table (tools/check_bench_targets.py reads it)
        ROWS[name] = Row(name, hl, fl, floor_target, note="models: vs its NumPy floor")
        if jx is not None and jax_target is not None:
            ROWS[f"{name} vs jax.jit"] = Row(
                f"{name} vs jax.jit", hl, jx, jax_target, note="models: the floor is jax.jit"
            )
        benchmark.extra_info.update(
            floor_median_s=fl,
            jax_median_s=jx,
            ratio_floor=round(hl / fl, 3),
            ratio_jax=None if jx is None else round(hl / jx, 3),
        )
        return result

    return measure


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    if not MODEL_ROWS:
        return
    tr = terminalreporter
    tr.section("models: hlorun vs NumPy floor and jax.jit (medians, same run)")
    if LOAD:  # on a loaded machine BLAS's threads wait for cores: ratios swing
        tr.write_line(
            f"load average (1 min) at the models' starts: {min(LOAD):.2f} - {max(LOAD):.2f} "
            f"on {os.cpu_count()} cores"
        )
    w = max(len(r.name) for r in MODEL_ROWS.values())
    tr.write_line(
        f"{'model':<{w}} {'hlorun':>11} {'numpy':>11} {'jax.jit':>11} {'/numpy':>7} "
        f"{'target':>7} {'/jax':>6} {'target':>7} {'peak MB':>8}  ok"
    )
    for r in MODEL_ROWS.values():
        rf = r.hlorun_s / r.floor_s
        rj = "-" if r.jax_s is None else f"{r.hlorun_s / r.jax_s:.2f}"
        jx = "-" if r.jax_s is None else _fmt_s(r.jax_s)
        ft = "-" if r.floor_target is None else f"{r.floor_target:g}"
        jt = "-" if r.jax_target is None else f"{r.jax_target:g}"
        peak = "-" if r.peak_mb is None else f"{r.peak_mb:.0f}"
        tr.write_line(
            f"{r.name:<{w}} {_fmt_s(r.hlorun_s):>11} {_fmt_s(r.floor_s):>11} {jx:>11} "
            f"{rf:>7.2f} {ft:>7} {rj:>6} {jt:>7} {peak:>8}  {'yes' if r.ok() else 'NO'}"
        )
