"""all_reduce of 1e7 f32 on 2 processes: the MPI grid (2 ranks, ``grid="mpi"``) and the
thread grid, against a plain mpi4py ``Allreduce`` of the same buffers (the floor:
MPI's own sum, no interpreter).  The MPI side runs as one ``mpiexec -n 2`` job (this
file is its worker), timing hlorun and the floor interleaved, round by round, so both
see the same load; the thread grid runs in this session.  Larger rank counts on the
2-core machines are oversubscribed: indicative only, not measured here.

    python3 -m pytest benchmarks/test_mpi_bench.py
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from conftest import ROWS, Row

N = 10_000_000
ROUNDS = 7
REPO = Path(__file__).resolve().parent.parent
PROGRAM = f"""
module attributes {{mhlo.num_replicas = 2 : i32}} {{
  func.func @main(%x: tensor<{N}xf32>) -> tensor<{N}xf32> {{
    %r = "stablehlo.all_reduce"(%x) ({{
      ^bb0(%a: tensor<f32>, %b: tensor<f32>):
        %s = stablehlo.add %a, %b : tensor<f32>
        stablehlo.return %s : tensor<f32>
    }}) {{replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>}} : (tensor<{N}xf32>) -> tensor<{N}xf32>
    return %r : tensor<{N}xf32>
  }}
}}
"""


def operands() -> list[np.ndarray]:
    return [np.random.default_rng(seed).standard_normal(N, dtype=np.float32) for seed in (1, 2)]


def worker() -> None:
    """Under ``mpiexec -n 2``: rank 0 prints the medians as JSON."""
    from mpi4py import MPI

    from hlorun import engine

    comm = MPI.COMM_WORLD
    rank = comm.Get_rank()
    xs = operands()
    prog = engine.compile(PROGRAM, grid="mpi")
    out = np.empty(N, np.float32)
    ours, floor = [], []
    res = None
    for _ in range(ROUNDS + 1):  # the first round warms up
        comm.Barrier()
        t0 = time.perf_counter()
        res = prog([xs[0]], [xs[1]])
        ours.append(time.perf_counter() - t0)
        comm.Barrier()
        t0 = time.perf_counter()
        comm.Allreduce(xs[rank], out, op=MPI.SUM)
        floor.append(time.perf_counter() - t0)
    assert res is not None
    mine = res[rank][0]
    ok = mine.tobytes() == (xs[0] + xs[1]).tobytes() == out.tobytes()
    if rank == 0:
        med = {"hlorun": statistics.median(ours[1:]), "floor": statistics.median(floor[1:])}
        print(json.dumps({**med, "ok": ok}))


def _mpiexec() -> str:
    pytest.importorskip("mpi4py", reason="needs the mpi extra: pip install 'hlorun[mpi]'")
    found = shutil.which("mpiexec") or shutil.which("mpiexec", path=os.path.dirname(sys.executable))
    if found is None:
        pytest.skip("no mpiexec on PATH")
    return found


def test_all_reduce_1e7_f32_2_processes(benchmark):
    env = dict(
        os.environ, PYTHONPATH=os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")])
    )
    env.setdefault("HLORUN_THREADS", "1")  # one core per rank
    proc = subprocess.run(
        [_mpiexec(), "-n", "2", sys.executable, __file__],
        capture_output=True,
        text=True,
        timeout=600,
        env=env,
    )
    assert proc.returncode == 0, proc.stderr
    mpi = json.loads(proc.stdout.strip().splitlines()[-1])
    assert mpi["ok"], "the MPI grid's sum differs from x0 + x1"

    from hlorun import engine

    xs = operands()
    threads = engine.compile(PROGRAM)
    (r0,), (r1,) = threads([xs[0]], [xs[1]])
    assert r0.tobytes() == r1.tobytes() == (xs[0] + xs[1]).tobytes()
    benchmark.pedantic(
        lambda: threads([xs[0]], [xs[1]]), rounds=ROUNDS, iterations=1, warmup_rounds=1
    )
    thr = benchmark.stats.stats.median
    floor = mpi["floor"]
    ROWS["all_reduce_1e7_mpi_2ranks"] = Row(
        "all_reduce_1e7_mpi_2ranks", mpi["hlorun"], floor, None, note="floor: mpi4py Allreduce"
    )
    ROWS["all_reduce_1e7_threads_2proc"] = Row(
        "all_reduce_1e7_threads_2proc", thr, floor, None, note="floor: mpi4py Allreduce"
    )
    benchmark.extra_info.update(
        mpi_grid_median_s=mpi["hlorun"],
        mpi4py_allreduce_median_s=floor,
        thread_grid_median_s=thr,
        mpi_ratio=round(mpi["hlorun"] / floor, 2),
        thread_ratio=round(thr / floor, 2),
    )


if __name__ == "__main__":
    sys.path.insert(0, str(REPO))
    worker()
