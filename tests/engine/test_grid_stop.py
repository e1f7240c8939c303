"""A process of a thread grid that spins in a loop is stopped when another process
fails (engine/grid.py run_grid: every process checks its deadline, infinite until
stop_all), even when the run has no timeout of its own.  Run in a subprocess with a
time limit, so that a regression fails instead of hanging the suite."""

from __future__ import annotations

import subprocess
import sys

PROGRAM = """
module attributes {mhlo.num_partitions = 2 : i32} {
func.func @main() -> tensor<i32> {
  %p = stablehlo.partition_id : tensor<ui32>
  %z = stablehlo.constant dense<0> : tensor<ui32>
  %c = stablehlo.compare EQ, %p, %z : (tensor<ui32>, tensor<ui32>) -> tensor<i1>
  %r = "stablehlo.if"(%c) ({
    %0 = stablehlo.constant dense<0> : tensor<i32>
    %w = stablehlo.while(%i = %0) : tensor<i32>
     cond {
      %t = stablehlo.constant dense<true> : tensor<i1>
      stablehlo.return %t : tensor<i1>
    } do {
      %one = stablehlo.constant dense<1> : tensor<i32>
      %n = stablehlo.add %i, %one : tensor<i32>
      stablehlo.return %n : tensor<i32>
    }
    stablehlo.return %w : tensor<i32>
  }, {
    %x = stablehlo.constant dense<1.0> : tensor<f32>
    %y = "stablehlo.all_reduce"(%x) <{replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>, channel_handle = #stablehlo.channel_handle<handle = 1, type = 0>, use_global_device_ids}> ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %s = stablehlo.add %a, %b : tensor<f32>
      stablehlo.return %s : tensor<f32>
    }) : (tensor<f32>) -> tensor<f32>
    %q = stablehlo.constant dense<2> : tensor<i32>
    stablehlo.return %q : tensor<i32>
  }) : (tensor<i1>) -> tensor<i32>
  return %r : tensor<i32>
}
}
"""

SCRIPT = f"""
import hlorun
try:
    hlorun.run({PROGRAM!r}, [], deadlock_timeout=1)
except hlorun.InterpreterError as e:
    print("stopped:", e)
"""


def test_a_spinning_process_is_stopped_when_its_peer_fails() -> None:
    out = subprocess.run(
        [sys.executable, "-c", SCRIPT], capture_output=True, text=True, timeout=120
    )
    assert out.returncode == 0, out.stderr
    assert "stopped:" in out.stdout and "deadlock" in out.stdout
