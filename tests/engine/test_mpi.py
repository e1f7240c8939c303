"""Process grids on MPI ranks (issue 23, engine/grid_mpi.py): every shared interpret
file that uses ``interpreter.run_parallel`` passes under ``mpiexec -n 8 hlorun
interpret --grid=mpi`` and its results are bit for bit the thread grid's; faults stop
every rank with the same error; a grid larger than the job is refused before anything
runs.

Each test starts one ``mpiexec`` job (8 ranks on this 2-core machine is oversubscribed:
startup dominates).  The default run starts the whole sweep as one job
(tests/engine/mpi_driver.py runs every file through ``run(..., grid="mpi")``) plus the
literal command on two files; ``-m slow`` runs the literal command on every file.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from hlorun.engine import run
from tests.conftest import shared_dir
from tests.engine.mpi_driver import capture, encode

pytest.importorskip("mpi4py", reason="the MPI grid needs mpi4py: pip install 'hlorun[mpi]'")
MPIEXEC = shutil.which("mpiexec") or shutil.which("mpiexec", path=os.path.dirname(sys.executable))
if MPIEXEC is None:
    pytest.skip(
        "no mpiexec on PATH (pip install 'hlorun[mpi]' brings mpich's)", allow_module_level=True
    )
HLORUN = shutil.which("hlorun", path=os.path.dirname(sys.executable)) or shutil.which("hlorun")
DRIVER = Path(__file__).with_name("mpi_driver.py")
REPO = Path(__file__).resolve().parents[2]
JOB_TIMEOUT = 180  # seconds: a hung job fails the test instead of hanging the CI run


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(REPO), env.get("PYTHONPATH", "")])
    env.setdefault("HLORUN_THREADS", "1")  # 8 ranks on 2 cores: no kernel threads on top
    return env


def mpiexec(n: int, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [MPIEXEC, "-n", str(n), *args],
        capture_output=True,
        text=True,
        timeout=JOB_TIMEOUT,
        env=_env(),
        cwd=REPO,
    )


def cli(*args: str) -> subprocess.CompletedProcess:
    assert HLORUN is not None
    return subprocess.run(
        [HLORUN, "interpret", *args],
        capture_output=True,
        text=True,
        timeout=JOB_TIMEOUT,
        env=_env(),
    )


def run_parallel_files() -> list[Path]:
    folder = shared_dir("tests", "interpret")
    return sorted(p for p in folder.glob("*.mlir") if "run_parallel" in p.read_text())


def driver(n: int, tmp_path: Path, mode: str, *args: str) -> list[dict]:
    """Run the driver on ``n`` ranks; every rank's JSON record."""
    proc = mpiexec(n, sys.executable, str(DRIVER), str(tmp_path), mode, *args)
    assert proc.returncode == 0, proc.stderr
    return [json.loads((tmp_path / f"rank{r}.json").read_text()) for r in range(n)]


# ---------------------------------------------------------------------- the programs

MIXED = """
module @gather_every_type {
  func.func @g(%a: tensor<2xbf16>, %b: tensor<2xf8E4M3FN>, %c: tensor<2xcomplex<f32>>,
               %d: tensor<2xi4>, %e: tensor<2xi1>) ->
      (tensor<8xbf16>, tensor<8xf8E4M3FN>, tensor<8xcomplex<f32>>, tensor<8xi4>, tensor<8xi1>) {
    %r:5 = "stablehlo.all_gather"(%a, %b, %c, %d, %e) {
      all_gather_dim = 0 : i64, replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>
    } : (tensor<2xbf16>, tensor<2xf8E4M3FN>, tensor<2xcomplex<f32>>, tensor<2xi4>, tensor<2xi1>) ->
        (tensor<8xbf16>, tensor<8xf8E4M3FN>, tensor<8xcomplex<f32>>, tensor<8xi4>, tensor<8xi1>)
    return %r#0, %r#1, %r#2, %r#3, %r#4 : tensor<8xbf16>, tensor<8xf8E4M3FN>, tensor<8xcomplex<f32>>, tensor<8xi4>, tensor<8xi1>
  }
  func.func @main() {
    %a0 = stablehlo.constant dense<[1.5, -2.25]> : tensor<2xbf16>
    %a1 = stablehlo.constant dense<[3.0e+03, 0.0078125]> : tensor<2xbf16>
    %b0 = stablehlo.constant dense<[1.0, -448.0]> : tensor<2xf8E4M3FN>
    %b1 = stablehlo.constant dense<[0.5, 0.001953125]> : tensor<2xf8E4M3FN>
    %c0 = stablehlo.constant dense<[(1.0, -1.0), (0.5, 2.0)]> : tensor<2xcomplex<f32>>
    %c1 = stablehlo.constant dense<[(3.0, 0.0), (-0.0, 1.0e+30)]> : tensor<2xcomplex<f32>>
    %d0 = stablehlo.constant dense<[-8, 7]> : tensor<2xi4>
    %d1 = stablehlo.constant dense<[1, -1]> : tensor<2xi4>
    %e0 = stablehlo.constant dense<[true, false]> : tensor<2xi1>
    %e1 = stablehlo.constant dense<[false, true]> : tensor<2xi1>
    %r:20 = "interpreter.run_parallel"(%a0, %b0, %c0, %d0, %e0, %a1, %b1, %c1, %d1, %e1,
                                       %a1, %b0, %c1, %d0, %e1, %a0, %b1, %c0, %d1, %e0) {
      programs = [[@g], [@g], [@g], [@g]]
    } : (tensor<2xbf16>, tensor<2xf8E4M3FN>, tensor<2xcomplex<f32>>, tensor<2xi4>, tensor<2xi1>,
         tensor<2xbf16>, tensor<2xf8E4M3FN>, tensor<2xcomplex<f32>>, tensor<2xi4>, tensor<2xi1>,
         tensor<2xbf16>, tensor<2xf8E4M3FN>, tensor<2xcomplex<f32>>, tensor<2xi4>, tensor<2xi1>,
         tensor<2xbf16>, tensor<2xf8E4M3FN>, tensor<2xcomplex<f32>>, tensor<2xi4>, tensor<2xi1>) ->
        (tensor<8xbf16>, tensor<8xf8E4M3FN>, tensor<8xcomplex<f32>>, tensor<8xi4>, tensor<8xi1>,
         tensor<8xbf16>, tensor<8xf8E4M3FN>, tensor<8xcomplex<f32>>, tensor<8xi4>, tensor<8xi1>,
         tensor<8xbf16>, tensor<8xf8E4M3FN>, tensor<8xcomplex<f32>>, tensor<8xi4>, tensor<8xi1>,
         tensor<8xbf16>, tensor<8xf8E4M3FN>, tensor<8xcomplex<f32>>, tensor<8xi4>, tensor<8xi1>)
    func.return
  }
}

// -----

module @sum_order {
  func.func @s(%x: tensor<f32>) -> tensor<f32> {
    %r = "stablehlo.all_reduce"(%x) ({
      ^bb0(%a: tensor<f32>, %b: tensor<f32>):
        %t = stablehlo.add %a, %b : tensor<f32>
        stablehlo.return %t : tensor<f32>
    }) {replica_groups = dense<[[2, 0, 3, 1]]> : tensor<1x4xi64>} : (tensor<f32>) -> tensor<f32>
    return %r : tensor<f32>
  }
  func.func @main() -> (tensor<f32>, tensor<f32>) {
    %x0 = stablehlo.constant dense<1.0e+08> : tensor<f32>
    %x1 = stablehlo.constant dense<1.0> : tensor<f32>
    %x2 = stablehlo.constant dense<-1.0e+08> : tensor<f32>
    %x3 = stablehlo.constant dense<1.0> : tensor<f32>
    %r:4 = "interpreter.run_parallel"(%x0, %x1, %x2, %x3) {
      programs = [[@s], [@s], [@s], [@s]]
    } : (tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>) -> (tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>)
    func.return %r#0, %r#3 : tensor<f32>, tensor<f32>
  }
}

// -----

module @ring_and_scatter {
  func.func @p(%x: tensor<4xf16>) -> (tensor<4xf16>, tensor<1xf16>, tensor<4xf16>) {
    %ring = "stablehlo.collective_permute"(%x) {
      source_target_pairs = dense<[[0, 1], [1, 2], [2, 3], [3, 0]]> : tensor<4x2xi64>
    } : (tensor<4xf16>) -> tensor<4xf16>
    %rs = "stablehlo.reduce_scatter"(%x) ({
      ^bb0(%a: tensor<f16>, %b: tensor<f16>):
        %t = stablehlo.add %a, %b : tensor<f16>
        stablehlo.return %t : tensor<f16>
    }) {scatter_dimension = 0 : i64, replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>}
        : (tensor<4xf16>) -> tensor<1xf16>
    %a2a = "stablehlo.all_to_all"(%x) {
      split_dimension = 0 : i64, concat_dimension = 0 : i64, split_count = 4 : i64,
      replica_groups = dense<[[3, 1, 0, 2]]> : tensor<1x4xi64>
    } : (tensor<4xf16>) -> tensor<4xf16>
    return %ring, %rs, %a2a : tensor<4xf16>, tensor<1xf16>, tensor<4xf16>
  }
  func.func @main() {
    %x0 = stablehlo.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf16>
    %x1 = stablehlo.constant dense<[0.1, 0.2, 0.3, 0.4]> : tensor<4xf16>
    %x2 = stablehlo.constant dense<[1000.0, 3.0, -7.5, 65504.0]> : tensor<4xf16>
    %x3 = stablehlo.constant dense<[-1000.0, 0.001, 7.5, 1.0]> : tensor<4xf16>
    %r:12 = "interpreter.run_parallel"(%x0, %x1, %x2, %x3) {
      programs = [[@p], [@p], [@p], [@p]]
    } : (tensor<4xf16>, tensor<4xf16>, tensor<4xf16>, tensor<4xf16>) ->
        (tensor<4xf16>, tensor<1xf16>, tensor<4xf16>, tensor<4xf16>, tensor<1xf16>, tensor<4xf16>,
         tensor<4xf16>, tensor<1xf16>, tensor<4xf16>, tensor<4xf16>, tensor<1xf16>, tensor<4xf16>)
    func.return
  }
}

// -----

module @p2p_pairs {
  func.func @f(%x: tensor<3xui8>, %t: !stablehlo.token) -> (tensor<3xui8>, !stablehlo.token) {
    %s = "stablehlo.send"(%x, %t) {
      channel_handle = #stablehlo.channel_handle<handle = 5, type = 1>,
      source_target_pairs = dense<[[0, 1], [1, 2], [2, 0]]> : tensor<3x2xi64>
    } : (tensor<3xui8>, !stablehlo.token) -> !stablehlo.token
    %r:2 = "stablehlo.recv"(%s) {
      channel_handle = #stablehlo.channel_handle<handle = 5, type = 1>,
      source_target_pairs = dense<[[0, 1], [1, 2], [2, 0]]> : tensor<3x2xi64>
    } : (!stablehlo.token) -> (tensor<3xui8>, !stablehlo.token)
    return %r#0, %r#1 : tensor<3xui8>, !stablehlo.token
  }
  func.func @main() -> (tensor<3xui8>, tensor<3xui8>, tensor<3xui8>) {
    %t = stablehlo.after_all : !stablehlo.token
    %a = stablehlo.constant dense<[1, 2, 3]> : tensor<3xui8>
    %b = stablehlo.constant dense<[4, 5, 6]> : tensor<3xui8>
    %c = stablehlo.constant dense<[7, 8, 9]> : tensor<3xui8>
    %r:6 = "interpreter.run_parallel"(%a, %t, %b, %t, %c, %t) {programs = [[@f, @f, @f]]} :
      (tensor<3xui8>, !stablehlo.token, tensor<3xui8>, !stablehlo.token, tensor<3xui8>, !stablehlo.token) ->
      (tensor<3xui8>, !stablehlo.token, tensor<3xui8>, !stablehlo.token, tensor<3xui8>, !stablehlo.token)
    return %r#0, %r#2, %r#4 : tensor<3xui8>, tensor<3xui8>, tensor<3xui8>
  }
}
"""

REDUCE = """
  func.func @reduce(%x : tensor<4xi64>) -> tensor<4xi64> {
    %r = "stablehlo.all_reduce"(%x) ({
      ^bb0(%a: tensor<i64>, %b: tensor<i64>):
        %s = stablehlo.add %a, %b : tensor<i64>
        stablehlo.return %s : tensor<i64>
    }) {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<4xi64>) -> tensor<4xi64>
    return %r : tensor<4xi64>
  }
"""


def two_process_module(other: str, body: str) -> str:
    """process 0 runs @reduce, process 1 runs @<other> (defined by ``body``)."""
    return (
        "module {\n"
        + REDUCE
        + body
        + """
  func.func @main() {
    %a = stablehlo.constant dense<[1, 2, 3, 4]> : tensor<4xi64>
    %r:2 = "interpreter.run_parallel"(%a, %a) {programs = [[@reduce], [@OTHER]]} :
        (tensor<4xi64>, tensor<4xi64>) -> (tensor<4xi64>, tensor<4xi64>)
    func.return
  }
}
""".replace("OTHER", other)
    )


FAILS = two_process_module(
    "fails",
    """
  func.func @fails(%x : tensor<4xi64>) -> tensor<4xi64> {
    check.expect_eq_const %x, dense<[9, 9, 9, 9]> : tensor<4xi64>
    return %x : tensor<4xi64>
  }
""",
)

MISMATCH = two_process_module(
    "gather",
    """
  func.func @gather(%x : tensor<4xi64>) -> tensor<4xi64> {
    %r = "stablehlo.all_gather"(%x) {all_gather_dim = 0 : i64,
        replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<4xi64>) -> tensor<8xi64>
    %s = stablehlo.slice %r [0:4] : (tensor<8xi64>) -> tensor<4xi64>
    return %s : tensor<4xi64>
  }
""",
)

GONE = two_process_module(
    "skip",
    """
  func.func @skip(%x : tensor<4xi64>) -> tensor<4xi64> {
    return %x : tensor<4xi64>
  }
""",
)

LOOPS = two_process_module(
    "spin",
    """
  func.func @spin(%x : tensor<4xi64>) -> tensor<4xi64> {
    %c0 = stablehlo.constant dense<0> : tensor<i64>
    %r = stablehlo.while(%i = %c0) : tensor<i64>
      cond {
        %lim = stablehlo.constant dense<1000000000000> : tensor<i64>
        %c = stablehlo.compare LT, %i, %lim : (tensor<i64>, tensor<i64>) -> tensor<i1>
        stablehlo.return %c : tensor<i1>
      } do {
        %one = stablehlo.constant dense<1> : tensor<i64>
        %n = stablehlo.add %i, %one : tensor<i64>
        stablehlo.return %n : tensor<i64>
      }
    return %x : tensor<4xi64>
  }
""",
)

TOO_BIG = """
func.func @id(%x : tensor<i64>) -> tensor<i64> {
  return %x : tensor<i64>
}
func.func @main() {
  %a = stablehlo.constant dense<1> : tensor<i64>
  interpreter.print %a : tensor<i64>
  %r:4 = "interpreter.run_parallel"(%a, %a, %a, %a) {programs = [[@id, @id], [@id, @id]]} :
      (tensor<i64>, tensor<i64>, tensor<i64>, tensor<i64>) ->
      (tensor<i64>, tensor<i64>, tensor<i64>, tensor<i64>)
  func.return
}
"""

ENTRY_GRID = """
module attributes {mhlo.num_replicas = 2 : i32, mhlo.num_partitions = 1 : i32} {
  func.func @main() -> (tensor<2xf32>, tensor<ui32>) {
    %id = stablehlo.replica_id : tensor<ui32>
    %f = stablehlo.convert %id : (tensor<ui32>) -> tensor<f32>
    %c = stablehlo.constant dense<[0.1, 1.0e+20]> : tensor<2xf32>
    %b = stablehlo.broadcast_in_dim %f, dims = [] : (tensor<f32>) -> tensor<2xf32>
    %x = stablehlo.add %b, %c : tensor<2xf32>
    %r = "stablehlo.all_reduce"(%x) ({
      ^bb0(%a: tensor<f32>, %b2: tensor<f32>):
        %s = stablehlo.add %a, %b2 : tensor<f32>
        stablehlo.return %s : tensor<f32>
    }) {replica_groups = dense<[[1, 0]]> : tensor<1x2xi64>} : (tensor<2xf32>) -> tensor<2xf32>
    return %r, %id : tensor<2xf32>, tensor<ui32>
  }
}
"""

FEED = """
module attributes {mhlo.num_replicas = 2 : i32} {
  func.func @main() -> tensor<i64> {
    %t = stablehlo.after_all : !stablehlo.token
    %v, %t2 = "stablehlo.infeed"(%t) : (!stablehlo.token) -> (tensor<i64>, !stablehlo.token)
    %t3 = "stablehlo.outfeed"(%v, %t2) : (tensor<i64>, !stablehlo.token) -> !stablehlo.token
    return %v : tensor<i64>
  }
}
"""


def write(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text)
    return str(path)


# ---------------------------------------------------------------------- the sweep


def test_every_run_parallel_file_equals_the_thread_grid(tmp_path):
    """One 8-rank job runs every shared run_parallel file and a file of every element
    type, order-sensitive reductions and the data-moving collectives; each chunk's
    run_parallel and entry results are bit for bit the thread grid's."""
    files = [str(p) for p in run_parallel_files()] + [write(tmp_path, "mixed.mlir", MIXED)]
    proc = mpiexec(8, sys.executable, str(DRIVER), str(tmp_path), "files", *files)
    assert proc.returncode == 0, proc.stderr
    for path in files:
        got = json.loads((tmp_path / (Path(path).name + ".json")).read_text())
        want = capture(path, "threads")
        assert got == want, path
        assert all(rec["error"] is None for rec in got), path


def test_sum_order_is_the_group_order(tmp_path):
    """all_reduce folds in replica-group order [2, 0, 3, 1] (float32, exact reference)."""
    (rec,) = capture(write(tmp_path, "s.mlir", MIXED.split("// -----")[1]), "threads")
    x = np.float32([1e8, 1.0, -1e8, 1.0])
    acc = x[2]
    for i in (0, 3, 1):
        acc = np.float32(acc + x[i])
    got = np.frombuffer(bytes.fromhex(rec["results"][-1][0][2]), np.float32)
    assert got.tobytes() == np.float32([acc]).tobytes()


@pytest.mark.parametrize("name", ["printing.mlir"])
def test_the_command_on_8_ranks(name):
    """The literal command of the issue; stdout equals the thread grid's."""
    path = shared_dir("tests", "interpret") / name
    proc = mpiexec(
        8, HLORUN or "hlorun", "interpret", "--grid=mpi", "--split-input-file", str(path)
    )
    assert proc.returncode == 0, proc.stderr
    ref = cli("--split-input-file", str(path))
    assert ref.returncode == 0
    assert proc.stdout == ref.stdout


@pytest.mark.slow
def test_the_command_on_every_file():
    for path in run_parallel_files():
        proc = mpiexec(
            8, HLORUN or "hlorun", "interpret", "--grid=mpi", "--split-input-file", str(path)
        )
        assert proc.returncode == 0, (path, proc.stderr)
        assert proc.stdout == cli("--split-input-file", str(path)).stdout, path


# ---------------------------------------------------------------------- entry grids, feeds


def test_an_entry_grid_keeps_results_on_their_ranks(tmp_path):
    """run(grid="mpi") on 3 ranks with a 2-process entry grid: ranks 0 and 1 hold their
    own results (equal to the thread grid's), the others None; rank 2 sits out."""
    path = write(tmp_path, "e.mlir", ENTRY_GRID)
    recs = driver(3, tmp_path, "api", path)
    want = encode(run(path, []))
    assert [r["error"] for r in recs] == [None] * 3
    assert recs[0]["results"] == [want[0], None]
    assert recs[1]["results"] == [None, want[1]]
    assert recs[2]["results"] == [None, None]


def test_the_command_prints_an_entry_grid_on_rank_0(tmp_path):
    """Each rank keeps its process's results; rank 0 gathers them only to print them,
    in process order, as the thread grid prints them."""
    path = write(tmp_path, "e.mlir", ENTRY_GRID)
    proc = mpiexec(3, HLORUN or "hlorun", "interpret", "--grid=mpi", path)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == cli(path).stdout


def test_a_shared_infeed_hands_each_entry_out_once(tmp_path):
    """Two processes share a 2-entry infeed (read on rank 0): each takes one entry; the
    outfeed arrives on rank 0 in process order."""
    recs = driver(2, tmp_path, "infeed", write(tmp_path, "f.mlir", FEED), "2")
    assert [r["error"] for r in recs] == [None, None]
    took = [bytes.fromhex(recs[i]["results"][i][0][2]) for i in (0, 1)]
    values = sorted(int(np.frombuffer(b, np.int64)[0]) for b in took)
    assert values == [10, 11]
    out0 = recs[0]["outfeed"]
    assert [entry[0][0] for entry in out0] == [recs[0]["results"][0][0], recs[1]["results"][1][0]]
    assert recs[1]["outfeed"] == [[], []]


# ---------------------------------------------------------------------- faults


def test_a_failing_rank_stops_every_rank_with_its_error(tmp_path):
    recs = driver(3, tmp_path, "api", write(tmp_path, "f.mlir", FAILS))
    errors = {r["error"] for r in recs}
    assert len(errors) == 1
    (err,) = errors
    assert "'check.expect_eq_const' op failed" in err and "f.mlir:13:5" in err


def test_mismatched_collectives_are_reported_at_once(tmp_path):
    proc = mpiexec(
        2, HLORUN or "hlorun", "interpret", "--grid=mpi", write(tmp_path, "m.mlir", MISMATCH)
    )
    assert proc.returncode == 1
    assert "(mismatched collectives)" in proc.stderr
    assert "'stablehlo.all_gather' at" in proc.stderr and "ranks [1]" in proc.stderr
    assert proc.stderr.count("error:") == 1  # rank 0 speaks for the job


def test_a_peer_that_finished_is_reported(tmp_path):
    recs = driver(2, tmp_path, "api", write(tmp_path, "g.mlir", GONE))
    assert recs[0]["error"] == recs[1]["error"]
    assert "which finished without reaching it" in recs[0]["error"]
    assert "'stablehlo.all_reduce'" in recs[0]["error"]


def test_a_peer_that_never_arrives_hits_the_deadline(tmp_path):
    """Process 1 spins; process 0 gives up after deadlock_timeout naming the op and the
    rank; process 1 is stopped too and every rank raises the deadline error."""
    recs = driver(2, tmp_path, "api", write(tmp_path, "l.mlir", LOOPS), "1.0")
    assert recs[0]["error"] == recs[1]["error"]
    err = recs[0]["error"]
    assert "did not arrive within 1 s (deadlock_timeout)" in err
    assert "'stablehlo.all_reduce'" in err and "(ranks [1])" in err


def test_a_grid_larger_than_the_job_is_refused_before_anything_runs(tmp_path):
    proc = mpiexec(
        2, HLORUN or "hlorun", "interpret", "--grid=mpi", write(tmp_path, "b.mlir", TOO_BIG)
    )
    assert proc.returncode == 1
    assert "has 4 processes, but the MPI job has 2 ranks" in proc.stderr
    assert proc.stdout == ""  # the print before run_parallel never ran
