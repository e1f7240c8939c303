"""A long fuzz campaign: ``python tests/fuzz/campaign.py --n 200000 --out DIR``.

Runs the harness over ``--n`` mutants in chunks, each chunk in a fresh worker process
(one at a time, so the campaign uses one core; run it under ``nice``), with an address
space limit as a backstop.  Writes ``DIR/summary.json`` (counts per outcome kind,
inputs over the time limit, peak memory of the workers) after every chunk, and
``DIR/failures.jsonl`` (one line per failing input).  Failures are shrunk and saved
under tests/fuzz/regressions/ with ``--save``.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1]))

from tests.fuzz import harness  # noqa: E402

ADDRESS_SPACE_LIMIT = 6 << 30  # backstop only: the budget under test is harness.MEMORY_CAP


def worker(seed: int, chunk: int, count: int) -> None:
    """Check ``count`` mutants of the stream (seed, chunk); one JSON line per failure,
    then a summary line, on the original stdout (what the programs print goes to
    /dev/null)."""
    out_fd = os.dup(1)
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    report = os.fdopen(out_fd, "w")
    sys.stdout = open(os.devnull, "w")  # noqa: SIM115  (for the worker's lifetime)
    resource.setrlimit(resource.RLIMIT_AS, (ADDRESS_SPACE_LIMIT, ADDRESS_SPACE_LIMIT))
    corpus = harness.seed_corpus()
    harness.warm_up()
    stream = harness.mutants(seed * 1_000_003 + chunk, corpus)
    counts: dict[str, int] = {}
    over = over_wall = 0
    slowest = slowest_wall = 0.0
    for i in range(count):
        prog = next(stream)
        out = harness.check(prog)
        counts[out.kind] = counts.get(out.kind, 0) + 1
        slowest = max(slowest, out.seconds)
        slowest_wall = max(slowest_wall, out.wall)
        if out.seconds > harness.TIME_LIMIT:
            over += 1
        if out.wall > harness.TIME_LIMIT:
            over_wall += 1
        if not out.ok:
            rec = {
                "chunk": chunk,
                "index": i,
                "kind": out.kind,
                "detail": out.detail[:2000],
                "seconds": out.seconds,
                "binary": isinstance(prog, bytes),
                "program": prog if isinstance(prog, str) else prog.hex(),
            }
            print(json.dumps(rec), file=report, flush=True)
    print(
        json.dumps(
            {
                "summary": True,
                "counts": counts,
                "over_time": over,
                "over_time_wall": over_wall,
                "slowest": slowest,
                "slowest_wall": slowest_wall,
                "peak_rss": harness.peak_rss(),
            }
        ),
        file=report,
        flush=True,
    )


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=200_000)
    ap.add_argument("--seed", type=int, default=21)
    ap.add_argument("--chunk", type=int, default=2000)
    ap.add_argument("--first-chunk", type=int, default=0)
    ap.add_argument("--only-chunks", help="re-run these chunks (comma-separated)")
    ap.add_argument("--out", type=Path, default=Path("/tmp/hlorun-fuzz"))
    ap.add_argument("--save", action="store_true", help="shrink and save failures")
    ap.add_argument("--worker", nargs=3, type=int, metavar=("SEED", "CHUNK", "COUNT"))
    a = ap.parse_args()
    if a.worker:
        worker(*a.worker)
        return
    a.out.mkdir(parents=True, exist_ok=True)
    summary_path = a.out / "summary.json"
    fail_path = a.out / "failures.jsonl"
    total: dict[str, int] = {}
    over = over_wall = 0
    peak = 0
    slowest = slowest_wall = 0.0
    done = 0
    t0 = time.time()
    env = dict(os.environ, HLORUN_THREADS="1", OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1")
    if a.only_chunks:
        chunks = [int(c) for c in a.only_chunks.split(",")]
    else:
        chunks = list(range(a.first_chunk, a.first_chunk + -(-a.n // a.chunk)))
    for chunk in chunks:
        count = a.chunk if a.only_chunks else min(a.chunk, a.n - done)
        proc = subprocess.run(
            [sys.executable, __file__, "--worker", str(a.seed), str(chunk), str(count)],
            capture_output=True,
            text=True,
            env=env,
            check=False,
        )
        summary = None
        with fail_path.open("a") as f:
            for line in proc.stdout.splitlines():
                try:
                    rec = json.loads(line)
                except ValueError:
                    continue
                if rec.get("summary"):
                    summary = rec
                else:
                    f.write(line + "\n")
        if summary is None:  # the worker died: count the chunk as one crash
            total["worker_died"] = total.get("worker_died", 0) + 1
            with fail_path.open("a") as f:
                f.write(
                    json.dumps(
                        {"chunk": chunk, "kind": "worker_died", "detail": proc.stderr[-4000:]}
                    )
                    + "\n"
                )
        else:
            for k, v in summary["counts"].items():
                total[k] = total.get(k, 0) + v
            over += summary["over_time"]
            over_wall += summary["over_time_wall"]
            peak = max(peak, summary["peak_rss"])
            slowest = max(slowest, summary["slowest"])
            slowest_wall = max(slowest_wall, summary["slowest_wall"])
        done += count
        summary_path.write_text(
            json.dumps(
                {
                    "inputs": done,
                    "counts": total,
                    "over_2s_cpu": over,
                    "over_2s_wall": over_wall,
                    "slowest_cpu_s": round(slowest, 3),
                    "slowest_wall_s": round(slowest_wall, 3),
                    "peak_rss_mb": round(peak / 2**20, 1),
                    "elapsed_s": round(time.time() - t0),
                    "seed": a.seed,
                    "last_chunk": chunk,
                },
                indent=1,
            )
        )
    if a.save and fail_path.exists():
        for line in fail_path.read_text().splitlines():
            rec = json.loads(line)
            if "program" not in rec:
                continue
            prog = bytes.fromhex(rec["program"]) if rec.get("binary") else rec["program"]
            out = harness.check(prog)
            if not out.ok:
                small = harness.shrink(prog, out.signature)
                harness.save_regression(small, out)


if __name__ == "__main__":
    main()
