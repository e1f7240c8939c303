"""One-shot: 500 small programs shaped like JAX's test programs
(benchmarks/oneshot_gen.py: constant inputs, one or two ops, a ``check`` op), each
parsed, verified, planned and run once in one process, as ``hlorun test`` runs a
conformance folder (engine/test_runner.py ``run_all`` with one job: each file read,
parsed and run with ``timeout=60`` and a fresh probe folder).  Each round starts with
``engine.clear_cache()``, so nothing is cached from one round to the next, the
compiled code of blocks included (engine/emit.py: programs alike share their code
within a round, as within one ``hlorun test`` run).

Floor: parsing the same 500 files (``parse_module``), the part of the work every
engine does first.  Target (issue 29): the median no more than 5% above main's at
8e5309e, which needs both checkouts timed in one run; this session's row has no ratio
target and says the time per program.  Every program's check must pass (their
expected values come from NumPy in float64, benchmarks/oneshot_gen.py).
"""

from __future__ import annotations

from pathlib import Path

from conftest import ROWS
from oneshot_gen import programs

from hlorun import engine
from hlorun.engine.test_runner import Options, run_all
from hlorun.parser import parse_module

COUNT = 500


def test_oneshot_500_jax_shaped_programs(versus, tmp_path: Path):
    files = []
    for i, text in enumerate(programs(COUNT)):
        path = tmp_path / f"case_{i:04d}.mlir"
        path.write_text(text)
        files.append(str(path))
    options = Options()  # hlorun test's: timeout 60 s, bitwise float equality

    def floor() -> None:
        for f in files:
            parse_module(Path(f).read_text(), f)

    def cold_round():
        engine.clear_cache()
        return run_all(files, options, jobs=1)

    summary = versus(
        cold_round,
        floor,
        rounds=5,
        note="floor: parsing the files",
    )
    assert summary.ok, summary.tally()
    assert len(summary.outcomes) == COUNT
    row = ROWS["oneshot_500_jax_shaped_programs"]
    row.note = (
        f"{row.hlorun_s / COUNT * 1e3:.2f} ms per program; floor: parsing the files; "
        "target: <= 1.05x main at 8e5309e"
    )
