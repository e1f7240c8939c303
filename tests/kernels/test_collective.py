"""Collective and I/O ops on a process grid (spec "Parallel execution", "Collective
ops"), run through ``engine.run``.

Expected values come from the spec's examples or from plain arithmetic on the inputs
written out here.  Deadlock tests use a short ``deadlock_timeout`` and assert only that
the run ends with an ``InterpreterError`` saying so.
"""

from __future__ import annotations

import numpy as np
import pytest

from hlorun import engine
from hlorun.engine.grid import ProcessGrid
from hlorun.engine.kernels.collective import process_groups
from hlorun.parser import parse_module
from hlorun.parser.errors import InterpreterError, VerificationError
from hlorun.shape_inference import verify_module


def i64(x):
    return np.array(x, np.int64)


def run(src, inputs=(), **kw):
    kw.setdefault("deadlock_timeout", 20)
    return engine.run(src, list(inputs), **kw)


# ------------------------------------------------------------------ process groups


def test_process_group_strategies_spec_examples():
    g = ProcessGrid(4, 2)
    assert process_groups("cross_replica", [[0, 1], [2, 3]], g) == [
        ((0, 0), (1, 0)),
        ((0, 1), (1, 1)),
        ((2, 0), (3, 0)),
        ((2, 1), (3, 1)),
    ]
    assert process_groups("cross_partition", [[0, 1]], g) == [
        ((0, 0), (0, 1)),
        ((1, 0), (1, 1)),
        ((2, 0), (2, 1)),
        ((3, 0), (3, 1)),
    ]
    assert process_groups("cross_replica_and_partition", [[0, 1], [2, 3]], g) == [
        ((0, 0), (1, 0), (0, 1), (1, 1)),
        ((2, 0), (3, 0), (2, 1), (3, 1)),
    ]
    assert process_groups("flattened_ids", [[0, 1, 2, 3], [4, 5, 6, 7]], g) == [
        ((0, 0), (0, 1), (1, 0), (1, 1)),
        ((2, 0), (2, 1), (3, 0), (3, 1)),
    ]


def test_process_group_ids_out_of_range():
    with pytest.raises(InterpreterError, match="out of range"):
        process_groups("cross_replica", [[0, 2]], ProcessGrid(2, 1))


# ------------------------------------------------------------------ spec examples

ALL_GATHER = """
func.func @main(%operand0: tensor<2x2xi64>, %operand1: tensor<2x2xi64>) -> (tensor<2x4xi64>, tensor<2x4xi64>) {
  %result:2 = "stablehlo.all_gather"(%operand0, %operand1) {
    all_gather_dim = 1 : i64,
    replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>,
    channel_handle = #stablehlo.channel_handle<handle = 0, type = 0>
  } : (tensor<2x2xi64>, tensor<2x2xi64>) -> (tensor<2x4xi64>, tensor<2x4xi64>)
  func.return %result#0, %result#1 : tensor<2x4xi64>, tensor<2x4xi64>
}
"""


def test_all_gather_spec_example():
    inputs = [
        [i64([[1, 2], [3, 4]]), i64([[11, 12], [13, 14]])],
        [i64([[5, 6], [7, 8]]), i64([[15, 16], [17, 18]])],
    ]
    out = run(ALL_GATHER, inputs, num_replicas=2)
    assert len(out) == 2
    for r0, r1 in out:
        assert r0.tolist() == [[1, 2, 5, 6], [3, 4, 7, 8]]
        assert r1.tolist() == [[11, 12, 15, 16], [13, 14, 17, 18]]


def test_grid_size_from_module_attributes():
    src = (
        "module attributes {mhlo.num_replicas = 2 : i32, mhlo.num_partitions = 1 : i32} {"
        + ALL_GATHER
        + "}"
    )
    inputs = [
        [i64([[1, 2], [3, 4]]), i64([[11, 12], [13, 14]])],
        [i64([[5, 6], [7, 8]]), i64([[15, 16], [17, 18]])],
    ]
    out = run(src, inputs)
    assert out[1][0].tolist() == [[1, 2, 5, 6], [3, 4, 7, 8]]


ALL_REDUCE = """
func.func @main(%operand0: tensor<4xi64>, %operand1: tensor<4xi64>) -> (tensor<4xi64>, tensor<4xi64>) {
  %result:2 = "stablehlo.all_reduce"(%operand0, %operand1) ({
    ^bb0(%arg0: tensor<i64>, %arg1: tensor<i64>):
      %0 = "stablehlo.add"(%arg0, %arg1) : (tensor<i64>, tensor<i64>) -> tensor<i64>
      "stablehlo.return"(%0) : (tensor<i64>) -> ()
  }) {
    replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>,
    channel_handle = #stablehlo.channel_handle<handle = 0, type = 0>
  } : (tensor<4xi64>, tensor<4xi64>) -> (tensor<4xi64>, tensor<4xi64>)
  func.return %result#0, %result#1 : tensor<4xi64>, tensor<4xi64>
}
"""


def test_all_reduce_spec_example():
    inputs = [[i64([1, 2, 3, 4]), i64([9, 10, 11, 12])], [i64([5, 6, 7, 8]), i64([13, 14, 15, 16])]]
    out = run(ALL_REDUCE, inputs, num_replicas=2)
    for r0, r1 in out:
        assert r0.tolist() == [6, 8, 10, 12]
        assert r1.tolist() == [22, 24, 26, 28]


def test_all_reduce_general_body_and_promotion():
    # body max(a, b) * 1 is not a single-op combiner; operands i32 promote to i64.
    src = """
    func.func @main(%x: tensor<3xi32>) -> tensor<3xi64> {
      %r = "stablehlo.all_reduce"(%x) ({
        ^bb0(%a: tensor<i64>, %b: tensor<i64>):
          %m = stablehlo.maximum %a, %b : tensor<i64>
          %one = stablehlo.constant dense<1> : tensor<i64>
          %p = stablehlo.multiply %m, %one : tensor<i64>
          stablehlo.return %p : tensor<i64>
      }) {replica_groups = dense<[[0, 1, 2]]> : tensor<1x3xi64>} : (tensor<3xi32>) -> tensor<3xi64>
      func.return %r : tensor<3xi64>
    }"""
    xs = [
        np.array([1, 9, -5], np.int32),
        np.array([4, 2, -7], np.int32),
        np.array([3, 3, -6], np.int32),
    ]
    out = run(src, [[x] for x in xs], num_replicas=3)
    want = [max(a, b, c) for a, b, c in zip(*[x.tolist() for x in xs])]
    for (r,) in out:
        assert r.dtype == np.int64 and r.tolist() == want


def test_all_reduce_integer_wraparound():
    src = """
    func.func @main(%x: tensor<2xi8>) -> tensor<2xi8> {
      %r = "stablehlo.all_reduce"(%x) ({
        ^bb0(%a: tensor<i8>, %b: tensor<i8>):
          %s = stablehlo.add %a, %b : tensor<i8>
          stablehlo.return %s : tensor<i8>
      }) {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<2xi8>) -> tensor<2xi8>
      func.return %r : tensor<2xi8>
    }"""
    out = run(
        src, [[np.array([100, -100], np.int8)], [np.array([100, -100], np.int8)]], num_replicas=2
    )
    for (r,) in out:
        assert r.tolist() == [200 - 256, -200 + 256]


def test_all_reduce_cross_partition_groups_and_flattened_ids():
    # 2 replicas x 2 partitions; channel_id > 0 and use_global_device_ids: flattened ids
    # [[0, 3], [1, 2]] = processes {(0,0), (1,1)} and {(0,1), (1,0)}.
    src = """
    func.func @main(%x: tensor<i64>) -> tensor<i64> {
      %r = "stablehlo.all_reduce"(%x) ({
        ^bb0(%a: tensor<i64>, %b: tensor<i64>):
          %s = stablehlo.add %a, %b : tensor<i64>
          stablehlo.return %s : tensor<i64>
      }) {replica_groups = dense<[[0, 3], [1, 2]]> : tensor<2x2xi64>,
          channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>,
          use_global_device_ids} : (tensor<i64>) -> tensor<i64>
      func.return %r : tensor<i64>
    }"""
    vals = [1, 10, 100, 1000]  # row-major (0,0), (0,1), (1,0), (1,1)
    out = run(src, [[i64(v)] for v in vals], num_replicas=2, num_partitions=2)
    assert [int(r) for (r,) in out] == [1001, 110, 110, 1001]


ALL_TO_ALL = """
func.func @main(%operand1: tensor<2x4xi64>, %operand2: tensor<2x4xi64>) -> (tensor<4x2xi64>, tensor<4x2xi64>) {
  %result:2 = "stablehlo.all_to_all"(%operand1, %operand2) {
    split_dimension = 1 : i64,
    concat_dimension = 0 : i64,
    split_count = 2 : i64,
    replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>
  } : (tensor<2x4xi64>, tensor<2x4xi64>) -> (tensor<4x2xi64>, tensor<4x2xi64>)
  func.return %result#0, %result#1 : tensor<4x2xi64>, tensor<4x2xi64>
}
"""


def test_all_to_all_spec_example():
    inputs = [
        [i64([[1, 2, 3, 4], [5, 6, 7, 8]]), i64([[17, 18, 19, 20], [21, 22, 23, 24]])],
        [i64([[9, 10, 11, 12], [13, 14, 15, 16]]), i64([[25, 26, 27, 28], [29, 30, 31, 32]])],
    ]
    (a0, a1), (b0, b1) = run(ALL_TO_ALL, inputs, num_replicas=2)
    assert a0.tolist() == [[1, 2], [5, 6], [9, 10], [13, 14]]
    assert b0.tolist() == [[3, 4], [7, 8], [11, 12], [15, 16]]
    assert a1.tolist() == [[17, 18], [21, 22], [25, 26], [29, 30]]
    assert b1.tolist() == [[19, 20], [23, 24], [27, 28], [31, 32]]


def test_collective_broadcast_spec_example():
    src = """
    func.func @main(%operand: tensor<1x2xi64>) -> tensor<1x2xi64> {
      %result = "stablehlo.collective_broadcast"(%operand) {
        replica_groups = dense<[[2, 1]]> : tensor<1x2xi64>,
        channel_handle = #stablehlo.channel_handle<handle = 0, type = 0>
      } : (tensor<1x2xi64>) -> tensor<1x2xi64>
      func.return %result : tensor<1x2xi64>
    }"""
    inputs = [[i64([[1, 2]])], [i64([[3, 4]])], [i64([[5, 6]])], [i64([[7, 8]])]]
    out = run(src, inputs, num_replicas=4)
    assert [r.tolist() for (r,) in out] == [[[0, 0]], [[5, 6]], [[5, 6]], [[0, 0]]]


def test_collective_permute_spec_example():
    src = """
    func.func @main(%operand: tensor<2x2xi64>) -> tensor<2x2xi64> {
      %result = "stablehlo.collective_permute"(%operand) {
        source_target_pairs = dense<[[0, 1], [1, 2]]> : tensor<2x2xi64>,
        channel_handle = #stablehlo.channel_handle<handle = 0, type = 0>
      } : (tensor<2x2xi64>) -> tensor<2x2xi64>
      func.return %result : tensor<2x2xi64>
    }"""
    inputs = [[i64([[1, 2], [3, 4]])], [i64([[5, 6], [7, 8]])], [i64([[9, 10], [11, 12]])]]
    out = run(src, inputs, num_replicas=3)
    assert [r.tolist() for (r,) in out] == [[[0, 0], [0, 0]], [[1, 2], [3, 4]], [[5, 6], [7, 8]]]


COLLECTIVE_REDUCE = """
func.func @main(%operand: tensor<1x2xi64>{ROOT_ARG}) -> tensor<1x2xi64> {
  %result = "stablehlo.collective_reduce"(%operand{ROOT}) ({
    ^bb0(%a: tensor<i64>, %b: tensor<i64>):
      %s = stablehlo.add %a, %b : tensor<i64>
      stablehlo.return %s : tensor<i64>
  }) {
    {DYN}replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>,
    channel_handle = #stablehlo.channel_handle<handle = 0, type = 0>
  } : (tensor<1x2xi64>{ROOT_TYPE}) -> tensor<1x2xi64>
  func.return %result : tensor<1x2xi64>
}
"""


def test_collective_reduce_spec_examples():
    data = [i64([[1, 2]]), i64([[3, 4]]), i64([[5, 6]]), i64([[7, 8]])]
    src = (
        COLLECTIVE_REDUCE.replace("{ROOT_ARG}", "")
        .replace("{ROOT}", "")
        .replace("{DYN}", "")
        .replace("{ROOT_TYPE}", "")
    )
    out = run(src, [[d] for d in data], num_replicas=4)
    assert [r.tolist() for (r,) in out] == [[[16, 20]], [[0, 0]], [[0, 0]], [[0, 0]]]
    src = (
        COLLECTIVE_REDUCE.replace("{ROOT_ARG}", ", %root: tensor<1xi32>")
        .replace("{ROOT}", ", %root")
        .replace("{DYN}", "has_dynamic_root, ")
        .replace("{ROOT_TYPE}", ", tensor<1xi32>")
    )
    root = np.array([3], np.int32)
    out = run(src, [[d, root] for d in data], num_replicas=4)
    assert [r.tolist() for (r,) in out] == [[[0, 0]], [[0, 0]], [[0, 0]], [[16, 20]]]


def test_reduce_scatter_spec_example():
    src = """
    func.func @main(%operand: tensor<2x4xi64>) -> tensor<2x2xi64> {
      %result = "stablehlo.reduce_scatter"(%operand) ({
        ^bb0(%arg0: tensor<i64>, %arg1: tensor<i64>):
        %0 = "stablehlo.add"(%arg0, %arg1) : (tensor<i64>, tensor<i64>) -> tensor<i64>
        "stablehlo.return"(%0) : (tensor<i64>) -> ()
      }) {
        scatter_dimension = 1 : i64,
        replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>,
        channel_handle = #stablehlo.channel_handle<handle = 0, type = 0>
      } : (tensor<2x4xi64>) -> tensor<2x2xi64>
      func.return %result : tensor<2x2xi64>
    }"""
    inputs = [[i64([[1, 2, 3, 4], [5, 6, 7, 8]])], [i64([[9, 10, 11, 12], [13, 14, 15, 16]])]]
    (a,), (b,) = run(src, inputs, num_replicas=2)
    assert a.tolist() == [[10, 12], [18, 20]]
    assert b.tolist() == [[14, 16], [22, 24]]


def test_replica_and_partition_ids_on_a_2x3_grid():
    src = """
    func.func @main() -> (tensor<ui32>, tensor<ui32>) {
      %r = stablehlo.replica_id : tensor<ui32>
      %p = stablehlo.partition_id : tensor<ui32>
      func.return %r, %p : tensor<ui32>, tensor<ui32>
    }"""
    out = run(src, num_replicas=2, num_partitions=3)
    assert [(int(r), int(p)) for r, p in out] == [(r, p) for r in range(2) for p in range(3)]
    assert out[0][0].dtype == np.uint32
    (r, p) = run(src)  # 1 x 1: the plain result list
    assert int(r) == 0 and int(p) == 0


def test_shared_inputs_on_a_grid():
    src = """
    func.func @main(%x: tensor<i64>) -> tensor<i64> {
      %r = "stablehlo.all_reduce"(%x) ({
        ^bb0(%a: tensor<i64>, %b: tensor<i64>):
          %s = stablehlo.add %a, %b : tensor<i64>
          stablehlo.return %s : tensor<i64>
      }) {replica_groups = dense<[[0, 1, 2]]> : tensor<1x3xi64>} : (tensor<i64>) -> tensor<i64>
      func.return %r : tensor<i64>
    }"""
    out = run(src, [i64(5)], num_replicas=3)
    assert [int(r) for (r,) in out] == [15, 15, 15]


# ------------------------------------------------------------------ loops, deadlocks, errors


def test_all_reduce_inside_a_while_loop():
    # Each iteration: x = all_reduce(x) + 1 over 2 replicas, 3 iterations.
    src = """
    func.func @main(%x: tensor<i64>) -> tensor<i64> {
      %zero = stablehlo.constant dense<0> : tensor<i64>
      %r:2 = stablehlo.while(%i = %zero, %v = %x) : tensor<i64>, tensor<i64>
      cond {
        %three = stablehlo.constant dense<3> : tensor<i64>
        %c = stablehlo.compare LT, %i, %three : (tensor<i64>, tensor<i64>) -> tensor<i1>
        stablehlo.return %c : tensor<i1>
      } do {
        %s = "stablehlo.all_reduce"(%v) ({
          ^bb0(%a: tensor<i64>, %b: tensor<i64>):
            %t = stablehlo.add %a, %b : tensor<i64>
            stablehlo.return %t : tensor<i64>
        }) {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<i64>) -> tensor<i64>
        %one = stablehlo.constant dense<1> : tensor<i64>
        %n = stablehlo.add %s, %one : tensor<i64>
        %j = stablehlo.add %i, %one : tensor<i64>
        stablehlo.return %j, %n : tensor<i64>, tensor<i64>
      }
      func.return %r#1 : tensor<i64>
    }"""
    a, b = 2, 5
    for _ in range(3):
        a = b = a + b + 1
    out = run(src, [[i64(2)], [i64(5)]], num_replicas=2)
    assert [int(r) for (r,) in out] == [a, b]


ONLY_REPLICA_0_REDUCES = """
func.func @main(%x: tensor<i64>) -> tensor<i64> {
  %id = stablehlo.replica_id : tensor<ui32>
  %zero = stablehlo.constant dense<0> : tensor<ui32>
  %is0 = stablehlo.compare EQ, %id, %zero : (tensor<ui32>, tensor<ui32>) -> tensor<i1>
  %r = "stablehlo.if"(%is0) ({
    %s = "stablehlo.all_reduce"(%x) ({
      ^bb0(%a: tensor<i64>, %b: tensor<i64>):
        %t = stablehlo.add %a, %b : tensor<i64>
        stablehlo.return %t : tensor<i64>
    }) {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<i64>) -> tensor<i64>
    stablehlo.return %s : tensor<i64>
  }, {
    {BRANCH}
  }) : (tensor<i1>) -> tensor<i64>
  func.return %r : tensor<i64>
}
"""


def test_deadlock_is_detected_when_a_peer_finishes():
    src = ONLY_REPLICA_0_REDUCES.replace("{BRANCH}", "stablehlo.return %x : tensor<i64>")
    with pytest.raises(InterpreterError, match="deadlock detected") as info:
        run(src, [i64(1)], num_replicas=2, deadlock_timeout=10)
    assert "stablehlo.all_reduce" in str(info.value)


def test_deadlock_timeout_when_a_peer_never_arrives():
    # Replica 1 loops forever; replica 0 waits at the all_reduce until the timeout,
    # then the whole grid stops.
    src = ONLY_REPLICA_0_REDUCES.replace(
        "{BRANCH}",
        """
    %w = stablehlo.while(%v = %x) : tensor<i64>
    cond {
      %t = stablehlo.constant dense<true> : tensor<i1>
      stablehlo.return %t : tensor<i1>
    } do {
      stablehlo.return %v : tensor<i64>
    }
    stablehlo.return %w : tensor<i64>""",
    )
    with pytest.raises(InterpreterError, match="deadlock detected.*deadlock_timeout"):
        run(src, [i64(1)], num_replicas=2, deadlock_timeout=0.5)


def test_error_in_one_process_propagates_and_releases_the_others():
    # Replica 1 fails a check before the all_reduce replica 0 waits in.
    src = """
    func.func @main(%x: tensor<i64>) -> tensor<i64> {
      %id = stablehlo.replica_id : tensor<ui32>
      %one = stablehlo.constant dense<1> : tensor<ui32>
      %is1 = stablehlo.compare EQ, %id, %one : (tensor<ui32>, tensor<ui32>) -> tensor<i1>
      "stablehlo.if"(%is1) ({
        check.expect_eq_const %x, dense<42> : tensor<i64>
        stablehlo.return
      }, {
        stablehlo.return
      }) : (tensor<i1>) -> ()
      %s = "stablehlo.all_reduce"(%x) ({
        ^bb0(%a: tensor<i64>, %b: tensor<i64>):
          %t = stablehlo.add %a, %b : tensor<i64>
          stablehlo.return %t : tensor<i64>
      }) {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<i64>) -> tensor<i64>
      func.return %s : tensor<i64>
    }"""
    with pytest.raises(InterpreterError, match="expected 42") as info:
        run(src, [i64(7)], num_replicas=2, deadlock_timeout=10)
    assert info.value.op == "check.expect_eq_const"


def test_recv_with_no_sender_is_a_deadlock_not_a_hang():
    src = """
    func.func @main() -> tensor<i64> {
      %t = stablehlo.after_all : !stablehlo.token
      %r:2 = "stablehlo.recv"(%t) {
        channel_handle = #stablehlo.channel_handle<handle = 5, type = 3>,
        is_host_transfer = true
      } : (!stablehlo.token) -> (tensor<i64>, !stablehlo.token)
      func.return %r#0 : tensor<i64>
    }"""
    with pytest.raises(InterpreterError, match="deadlock detected.*stablehlo.recv"):
        run(src, deadlock_timeout=10)


# ------------------------------------------------------------------ send / recv, infeed / outfeed


def test_send_recv_between_processes_fifo_per_channel():
    # Replica 0 sends x then x+1 on channel 1; replica 1 receives both, in order.
    src = """
    func.func @main(%x: tensor<2xi64>) -> (tensor<2xi64>, tensor<2xi64>) {
      %t = stablehlo.after_all : !stablehlo.token
      %id = stablehlo.replica_id : tensor<ui32>
      %zero = stablehlo.constant dense<0> : tensor<ui32>
      %is0 = stablehlo.compare EQ, %id, %zero : (tensor<ui32>, tensor<ui32>) -> tensor<i1>
      %r:2 = "stablehlo.if"(%is0) ({
        %s0 = "stablehlo.send"(%x, %t) {
          channel_handle = #stablehlo.channel_handle<handle = 1, type = 2>, is_host_transfer = true
        } : (tensor<2xi64>, !stablehlo.token) -> !stablehlo.token
        %one = stablehlo.constant dense<1> : tensor<2xi64>
        %y = stablehlo.add %x, %one : tensor<2xi64>
        %s1 = "stablehlo.send"(%y, %s0) {
          channel_handle = #stablehlo.channel_handle<handle = 1, type = 2>, is_host_transfer = true
        } : (tensor<2xi64>, !stablehlo.token) -> !stablehlo.token
        stablehlo.return %x, %y : tensor<2xi64>, tensor<2xi64>
      }, {
        %a:2 = "stablehlo.recv"(%t) {
          channel_handle = #stablehlo.channel_handle<handle = 1, type = 3>, is_host_transfer = true
        } : (!stablehlo.token) -> (tensor<2xi64>, !stablehlo.token)
        %b:2 = "stablehlo.recv"(%a#1) {
          channel_handle = #stablehlo.channel_handle<handle = 1, type = 3>, is_host_transfer = true
        } : (!stablehlo.token) -> (tensor<2xi64>, !stablehlo.token)
        stablehlo.return %a#0, %b#0 : tensor<2xi64>, tensor<2xi64>
      }) : (tensor<i1>) -> (tensor<2xi64>, tensor<2xi64>)
      func.return %r#0, %r#1 : tensor<2xi64>, tensor<2xi64>
    }"""
    out = run(src, [[i64([1, 2])], [i64([0, 0])]], num_replicas=2)
    assert [a.tolist() for a in out[1]] == [[1, 2], [2, 3]]


def test_device_send_recv_with_source_target_pairs():
    # Every replica sends its value to the next one (a ring of 3), then receives.
    src = """
    func.func @main(%x: tensor<i64>) -> tensor<i64> {
      %t = stablehlo.after_all : !stablehlo.token
      %s = "stablehlo.send"(%x, %t) {
        channel_handle = #stablehlo.channel_handle<handle = 0, type = 1>,
        source_target_pairs = dense<[[0, 1], [1, 2], [2, 0]]> : tensor<3x2xi64>
      } : (tensor<i64>, !stablehlo.token) -> !stablehlo.token
      %r:2 = "stablehlo.recv"(%s) {
        channel_handle = #stablehlo.channel_handle<handle = 0, type = 1>,
        source_target_pairs = dense<[[0, 1], [1, 2], [2, 0]]> : tensor<3x2xi64>
      } : (!stablehlo.token) -> (tensor<i64>, !stablehlo.token)
      func.return %r#0 : tensor<i64>
    }"""
    out = run(src, [[i64(10)], [i64(20)], [i64(30)]], num_replicas=3)
    assert [int(r) for (r,) in out] == [30, 10, 20]


INFEED_OUTFEED = """
func.func @main(%t: !stablehlo.token) -> (tensor<2xi32>, tensor<i64>) {
  %a:2 = "stablehlo.infeed"(%t) {infeed_config = ""} : (!stablehlo.token) -> (tensor<2xi32>, !stablehlo.token)
  %b:3 = "stablehlo.infeed"(%a#1) {infeed_config = ""} : (!stablehlo.token) -> (tensor<i64>, tensor<i64>, !stablehlo.token)
  %s = stablehlo.add %b#0, %b#1 : tensor<i64>
  %o = "stablehlo.outfeed"(%a#0, %s, %b#2) {outfeed_config = ""} : (tensor<2xi32>, tensor<i64>, !stablehlo.token) -> !stablehlo.token
  func.return %a#0, %s : tensor<2xi32>, tensor<i64>
}
"""


def test_infeed_and_outfeed_through_the_python_api():
    feed = [np.array([1, 2], np.int32), (i64(3), i64(4))]
    sink: list = []
    a, s = run(INFEED_OUTFEED, [None], infeed=feed, outfeed=sink)
    assert a.tolist() == [1, 2] and int(s) == 7
    assert len(sink) == 1 and sink[0][0].tolist() == [1, 2] and int(sink[0][1]) == 7
    assert len(feed) == 2  # the caller's list is not consumed


def test_infeed_per_process_and_outfeed_per_process():
    feed = {
        (0, 0): [np.array([1, 2], np.int32), (i64(3), i64(4))],
        (1, 0): [np.array([5, 6], np.int32), (i64(10), i64(20))],
    }
    sink: list = []
    out = run(INFEED_OUTFEED, [None], infeed=feed, outfeed=sink, num_replicas=2)
    assert [int(s) for _, s in out] == [7, 30]
    assert len(sink) == 2 and [int(e[0][1]) for e in sink] == [7, 30]


def test_empty_infeed_is_an_error():
    with pytest.raises(InterpreterError, match="infeed is empty"):
        run(INFEED_OUTFEED, [None])


def test_infeed_payload_must_match_the_result_types():
    with pytest.raises(InterpreterError, match="dtype"):
        run(INFEED_OUTFEED, [None], infeed=[np.array([1, 2], np.int64)])


# ------------------------------------------------------------------ run_parallel


def test_run_parallel_mpmd_programs_and_nested_grid():
    src = """
    func.func @double(%x: tensor<i64>) -> tensor<i64> {
      %s = "stablehlo.all_reduce"(%x) ({
        ^bb0(%a: tensor<i64>, %b: tensor<i64>):
          %t = stablehlo.add %a, %b : tensor<i64>
          stablehlo.return %t : tensor<i64>
      }) {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<i64>) -> tensor<i64>
      func.return %s : tensor<i64>
    }
    func.func @also(%x: tensor<i64>) -> tensor<i64> {
      %s = "stablehlo.all_reduce"(%x) ({
        ^bb0(%a: tensor<i64>, %b: tensor<i64>):
          %t = stablehlo.add %a, %b : tensor<i64>
          stablehlo.return %t : tensor<i64>
      }) {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<i64>) -> tensor<i64>
      %one = stablehlo.constant dense<1> : tensor<i64>
      %r = stablehlo.add %s, %one : tensor<i64>
      func.return %r : tensor<i64>
    }
    func.func @main(%a: tensor<i64>, %b: tensor<i64>) -> (tensor<i64>, tensor<i64>) {
      %r:2 = "interpreter.run_parallel"(%a, %b) {programs = [[@double], [@also]]}
          : (tensor<i64>, tensor<i64>) -> (tensor<i64>, tensor<i64>)
      func.return %r#0, %r#1 : tensor<i64>, tensor<i64>
    }"""
    r0, r1 = run(src, [i64(3), i64(4)])
    assert int(r0) == 7 and int(r1) == 8


def test_run_parallel_operand_count_is_checked():
    src = """
    func.func @f(%x: tensor<i64>) -> tensor<i64> {
      func.return %x : tensor<i64>
    }
    func.func @main(%a: tensor<i64>) -> tensor<i64> {
      %r = "interpreter.run_parallel"(%a) {programs = [[@f, @f]]} : (tensor<i64>) -> tensor<i64>
      func.return %r : tensor<i64>
    }"""
    with pytest.raises(InterpreterError, match="take 2 inputs"):
        run(src, [i64(1)])


# ------------------------------------------------------------------ verification


@pytest.mark.parametrize(
    "op_text, label",
    [
        (
            '"stablehlo.all_gather"(%x) {all_gather_dim = 2 : i64, replica_groups = dense<[[0, 1]]> : '
            "tensor<1x2xi64>} : (tensor<2x2xi64>) -> tensor<2x4xi64>",
            "all_gather_c1",
        ),
        (
            '"stablehlo.all_gather"(%x) {all_gather_dim = 1 : i64, replica_groups = dense<[[0, 0]]> : '
            "tensor<1x2xi64>} : (tensor<2x2xi64>) -> tensor<2x4xi64>",
            "all_gather_c2",
        ),
        (
            '"stablehlo.all_gather"(%x) {all_gather_dim = 1 : i64, replica_groups = dense<[[0, 2]]> : '
            "tensor<1x2xi64>} : (tensor<2x2xi64>) -> tensor<2x4xi64>",
            "all_gather_c4",
        ),
        (
            '"stablehlo.all_gather"(%x) {all_gather_dim = 1 : i64, replica_groups = dense<[[0, 1]]> : '
            "tensor<1x2xi64>, use_global_device_ids} : (tensor<2x2xi64>) -> tensor<2x4xi64>",
            "all_gather_c5",
        ),
        (
            '"stablehlo.all_gather"(%x) {all_gather_dim = 1 : i64, replica_groups = dense<[[0, 1]]> : '
            "tensor<1x2xi64>} : (tensor<2x2xi64>) -> tensor<3x4xi64>",
            "all_gather_c6",
        ),
        (
            '"stablehlo.all_to_all"(%x) {split_dimension = 1 : i64, concat_dimension = 0 : i64, '
            "split_count = 3 : i64, replica_groups = dense<[[0, 1, 2]]> : tensor<1x3xi64>} : "
            "(tensor<2x2xi64>) -> tensor<6x1xi64>",
            "all_to_all_c2",
        ),
        (
            '"stablehlo.all_to_all"(%x) {split_dimension = 1 : i64, concat_dimension = 0 : i64, '
            "split_count = 2 : i64, replica_groups = dense<[[0, 1, 2]]> : tensor<1x3xi64>} : "
            "(tensor<2x2xi64>) -> tensor<4x1xi64>",
            "all_to_all_c8",
        ),
        (
            '"stablehlo.collective_permute"(%x) {source_target_pairs = dense<[[0, 1], [0, 2]]> : '
            "tensor<2x2xi64>} : (tensor<2x2xi64>) -> tensor<2x2xi64>",
            "collective_permute_c2",
        ),
        (
            '"stablehlo.collective_permute"(%x) {source_target_pairs = dense<[[0, 1, 2]]> : '
            "tensor<1x3xi64>} : (tensor<2x2xi64>) -> tensor<2x2xi64>",
            "collective_permute_c1",
        ),
    ],
)
def test_verifier_labels(op_text, label):
    src = f"""
    func.func @main(%x: tensor<2x2xi64>) {{
      %r = {op_text}
      func.return
    }}"""
    with pytest.raises(VerificationError) as info:
        verify_module(parse_module(src))
    assert info.value.label == label


def test_all_reduce_result_element_type_is_checked():
    src = """
    func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
      %r = "stablehlo.all_reduce"(%x) ({
        ^bb0(%a: tensor<f64>, %b: tensor<f64>):
          %s = stablehlo.add %a, %b : tensor<f64>
          stablehlo.return %s : tensor<f64>
      }) {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<4xf32>) -> tensor<4xf32>
      func.return %r : tensor<4xf32>
    }"""
    with pytest.raises(VerificationError) as info:
        verify_module(parse_module(src))
    assert info.value.label == "all_reduce_c7"


def test_send_channel_type_is_checked():
    src = """
    func.func @main(%x: tensor<i64>, %t: !stablehlo.token) -> !stablehlo.token {
      %r = "stablehlo.send"(%x, %t) {
        channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, is_host_transfer = true
      } : (tensor<i64>, !stablehlo.token) -> !stablehlo.token
      func.return %r : !stablehlo.token
    }"""
    with pytest.raises(VerificationError, match="DEVICE_TO_HOST"):
        verify_module(parse_module(src))


def test_host_channels_hook():
    src = """
    func.func @main(%x: tensor<2xi64>) -> tensor<2xi64> {
      %t = stablehlo.after_all : !stablehlo.token
      %r:2 = "stablehlo.recv"(%t) {
        channel_handle = #stablehlo.channel_handle<handle = 7, type = 3>, is_host_transfer = true
      } : (!stablehlo.token) -> (tensor<2xi64>, !stablehlo.token)
      %y = stablehlo.add %x, %r#0 : tensor<2xi64>
      %s = "stablehlo.send"(%y, %r#1) {
        channel_handle = #stablehlo.channel_handle<handle = 8, type = 2>, is_host_transfer = true
      } : (tensor<2xi64>, !stablehlo.token) -> !stablehlo.token
      func.return %y : tensor<2xi64>
    }"""
    to_host: list = []
    (y,) = run(src, [i64([1, 2])], host_channels={7: [i64([10, 20])], 8: to_host})
    assert y.tolist() == [11, 22]
    assert len(to_host) == 1 and to_host[0][0].tolist() == [11, 22]
    with pytest.raises(InterpreterError, match="host channel 7 has no data"):
        run(src, [i64([1, 2])], host_channels={7: [], 8: []})


def test_all_reduce_f16_sum_rounds_once_per_combination():
    src = """
    func.func @main(%x: tensor<3xf16>) -> tensor<3xf16> {
      %r = "stablehlo.all_reduce"(%x) ({
        ^bb0(%a: tensor<f16>, %b: tensor<f16>):
          %s = stablehlo.add %a, %b : tensor<f16>
          stablehlo.return %s : tensor<f16>
      }) {replica_groups = dense<[[0, 1, 2]]> : tensor<1x3xi64>} : (tensor<3xf16>) -> tensor<3xf16>
      func.return %r : tensor<3xf16>
    }"""
    xs = [
        np.array([1.0, 2048.0, 0.1], np.float16),
        np.array([1e-3, 1.0, 0.2], np.float16),
        np.array([3.0, 1.0, -0.3], np.float16),
    ]
    out = run(src, [[x] for x in xs], num_replicas=3)
    # Reference: the group order (0, 1, 2), each addition rounded to f16 (exact in f64).
    want = []
    for k in range(3):
        acc = xs[0][k]
        for x in xs[1:]:
            acc = np.float16(float(acc) + float(x[k]))
        want.append(acc)
    for (r,) in out:
        assert r.dtype == np.float16 and r.tobytes() == np.array(want, np.float16).tobytes()


def test_all_gather_result_size_must_match_the_grid():
    src = """
    func.func @main(%x: tensor<2x2xi64>) -> tensor<2x6xi64> {
      %r = "stablehlo.all_gather"(%x) {all_gather_dim = 1 : i64,
        replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<2x2xi64>) -> tensor<2x6xi64>
      func.return %r : tensor<2x6xi64>
    }"""
    with pytest.raises(InterpreterError) as info:
        run(src, [i64([[1, 2], [3, 4]])], num_replicas=2)
    assert info.value.label == "all_gather_c6"


def test_deadlock_is_detected_while_other_processes_still_run():
    # Replica 0 waits for replica 1 in an all_reduce; replica 1 skips it and finishes;
    # replica 2 loops forever.  The deadlock is reported as soon as replica 1 finishes
    # (not after deadlock_timeout), and replica 2 is stopped.
    src = """
    func.func @main(%x: tensor<i64>) -> tensor<i64> {
      %id = stablehlo.replica_id : tensor<ui32>
      %idx = stablehlo.convert %id : (tensor<ui32>) -> tensor<i32>
      %r = "stablehlo.case"(%idx) ({
        %s = "stablehlo.all_reduce"(%x) ({
          ^bb0(%a: tensor<i64>, %b: tensor<i64>):
            %t = stablehlo.add %a, %b : tensor<i64>
            stablehlo.return %t : tensor<i64>
        }) {replica_groups = dense<[[0, 1], [2, -1]]> : tensor<2x2xi64>} : (tensor<i64>) -> tensor<i64>
        stablehlo.return %s : tensor<i64>
      }, {
        stablehlo.return %x : tensor<i64>
      }, {
        %w = stablehlo.while(%v = %x) : tensor<i64>
        cond {
          %t = stablehlo.constant dense<true> : tensor<i1>
          stablehlo.return %t : tensor<i1>
        } do {
          stablehlo.return %v : tensor<i64>
        }
        stablehlo.return %w : tensor<i64>
      }) : (tensor<i32>) -> tensor<i64>
      func.return %r : tensor<i64>
    }"""
    with pytest.raises(InterpreterError, match=r"process \(0, 0\) .*\(1, 0\).*finished without"):
        run(src, [i64(1)], num_replicas=3, deadlock_timeout=30)
