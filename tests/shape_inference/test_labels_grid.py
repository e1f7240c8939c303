"""The constraints that need the process grid (spec: size(replica_groups) is
num_replicas / num_partitions / num_processes, by the op's process-group strategy), or
an operand's value: checked when the program runs on a grid, named by their labels;
the same program on a grid large enough runs.  Plus collective_broadcast's result count
(C5), which the verifier checks."""

from __future__ import annotations

import numpy as np
import pytest

import hlorun
from hlorun.parser.errors import HloError
from tests.shape_inference.labelcheck import assert_label, func

F2, F4 = "tensor<2xf32>", "tensor<4xf32>"
ADD = (
    "({\n  ^bb0(%a: tensor<f32>, %b: tensor<f32>):\n"
    "    %s = stablehlo.add %a, %b : tensor<f32>\n    stablehlo.return %s : tensor<f32>\n  })"
)
G4 = "replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>"
G03 = "replica_groups = dense<[[0, 3]]> : tensor<1x2xi64>"
CHANNEL = "channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>"


def program(body: str, operand: str, result: str) -> str:
    return func(
        f"%x: {operand}",
        f"%r = {body} : ({operand}) -> {result}",
        results=result,
        returns=f"%r : {result}",
    )


def run(text: str, operand: str, nr: int, np_: int = 1):
    n = int(operand.split("<")[1].split("x")[0]) if "x" in operand else 1
    return hlorun.run(text, [np.ones(n, np.float32)], num_replicas=nr, num_partitions=np_)


def label_of(text: str, operand: str, nr: int, np_: int = 1) -> str | None:
    with pytest.raises(HloError) as info:
        run(text, operand, nr, np_)
    return info.value.label


# (label, op text, operand type, result type, a grid too small (nr, np), one that fits)
CASES = [
    # all_gather (C3): cross_replica -> num_replicas
    (
        "all_gather_c3",
        f'"stablehlo.all_gather"(%x) {{all_gather_dim = 0 : i64, {G4}}}',
        F2,
        "tensor<8xf32>",
        (2, 1),
        (4, 1),
    ),
    # all_gather (C3): flattened_ids -> num_replicas x num_partitions
    (
        "all_gather_c3",
        f'"stablehlo.all_gather"(%x) {{all_gather_dim = 0 : i64, {G4}, {CHANNEL}, '
        "use_global_device_ids}",
        F2,
        "tensor<8xf32>",
        (1, 2),
        (2, 2),
    ),
    # all_reduce (C2)
    ("all_reduce_c2", f'"stablehlo.all_reduce"(%x) {ADD} {{{G4}}}', F2, F2, (2, 1), (4, 1)),
    # reduce_scatter (C4)
    (
        "reduce_scatter_c4",
        f'"stablehlo.reduce_scatter"(%x) {ADD} {{scatter_dimension = 0 : i64, {G4}}}',
        F4,
        "tensor<1xf32>",
        (3, 1),
        (4, 1),
    ),
    # all_to_all (C6): cross_partition (a channel) -> num_partitions
    (
        "all_to_all_c6",
        '"stablehlo.all_to_all"(%x) {split_dimension = 0 : i64, concat_dimension = 0 : i64, '
        f"split_count = 4 : i64, {G4}, {CHANNEL}}}",
        F4,
        F4,
        (4, 2),
        (1, 4),
    ),
    # collective_broadcast (C2) 0 <= replica_groups < num_replicas
    (
        "collective_broadcast_c2",
        f'"stablehlo.collective_broadcast"(%x) {{{G03}}}',
        F2,
        F2,
        (3, 1),
        (4, 1),
    ),
    # collective_permute (C4) 0 <= source_target_pairs < num_partitions (a channel)
    (
        "collective_permute_c4",
        '"stablehlo.collective_permute"(%x) {source_target_pairs = dense<[[0, 3]]> : '
        f"tensor<1x2xi64>, {CHANNEL}}}",
        F2,
        F2,
        (4, 2),
        (1, 4),
    ),
]


@pytest.mark.parametrize("case", CASES, ids=[f"{c[0]}-{c[4]}" for c in CASES])
def test_ids_outside_the_grid(case):
    label, body, operand, result, small, fits = case
    text = program(body, operand, result)
    hlorun.shape_inference.verify_module(hlorun.parser.parse_module(text))  # valid statically
    assert label_of(text, operand, *small) == label
    out = run(text, operand, *fits)
    assert len(out) == fits[0] * fits[1]


def test_collective_reduce_c2():
    text = program(f'"stablehlo.collective_reduce"(%x) {ADD} {{{G03}}}', F2, F2)
    assert label_of(text, F2, 2) == "collective_reduce_c2"
    assert len(run(text, F2, 4)) == 4


def test_collective_broadcast_c6_root_index():
    """(C6) 0 <= operands[size(operands)-1] < shape(replica_groups)[1]: a value."""
    text = func(
        f"%x: {F2}, %root: tensor<1xi32>",
        f'%r = "stablehlo.collective_broadcast"(%x, %root) {{{G03.replace("0, 3", "0, 1")}, '
        f"has_dynamic_root}} : ({F2}, tensor<1xi32>) -> {F2}",
        results=F2,
        returns=f"%r : {F2}",
    )
    x = np.ones(2, np.float32)
    with pytest.raises(HloError) as info:
        hlorun.run(text, [x, np.array([2], np.int32)], num_replicas=2)
    assert info.value.label == "collective_broadcast_c6"
    assert len(hlorun.run(text, [x, np.array([1], np.int32)], num_replicas=2)) == 2


def test_collective_broadcast_c5_result_count():
    """(C5) size(results) = size(operands) - (has_dynamic_root ? 1 : 0)."""
    text = func(
        f"%x: {F2}, %root: tensor<1xi32>",
        f'%r:2 = "stablehlo.collective_broadcast"(%x, %root) {{{G03}, has_dynamic_root}}'
        f" : ({F2}, tensor<1xi32>) -> ({F2}, tensor<1xi32>)",
    )
    assert_label(text, "collective_broadcast_c5")
