"""Run the benchmarks and fail when a row misses its target.

``python3 tools/check_bench_targets.py [PYTEST ARGS]`` runs ``pytest benchmarks`` (with
the arguments given, e.g. ``-k fold``), reads the rows of its table (benchmarks/
conftest.py writes them to the file named by ``HLORUN_BENCH_ROWS``), prints the rows
that miss their target and exits 1 when there is one (or when pytest failed); 0 when
every row is ``ok``.  Kept out of the test suite: benchmarks measure, they need a quiet
machine, and a run takes minutes.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def main(argv: list[str]) -> int:
    with tempfile.TemporaryDirectory(prefix="hlorun-bench-") as tmp:
        rows_file = Path(tmp) / "rows.json"
        env = dict(os.environ, HLORUN_BENCH_ROWS=str(rows_file))
        r = subprocess.run(
            [sys.executable, "-m", "pytest", "benchmarks", "-q", *argv], cwd=ROOT, env=env
        )
        if not rows_file.exists():
            print("check_bench_targets: no benchmark rows were recorded", file=sys.stderr)
            return 1
        rows = json.loads(rows_file.read_text())
    if not rows:
        print("check_bench_targets: no benchmark ran (check the -k pattern)", file=sys.stderr)
        return 1
    missed = [row for row in rows if not row["ok"]]
    for row in missed:
        print(f"MISSED {row['name']}: {row['detail']}")
    print(f"{len(rows) - len(missed)} of {len(rows)} benchmark rows meet their target")
    if r.returncode not in (0, 5):
        print(f"check_bench_targets: pytest exited {r.returncode}", file=sys.stderr)
        return 1
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
