"""Running Shardy (``sdy``) programs on one device: annotations are the identity, and
``sdy.manual_computation`` runs its body per device of the mesh on the local pieces
(openxla/shardy ``ops.td`` ManualComputationOp, ``attrs.td`` TensorShardingAttr: a
dimension sharded along ``[a, b]`` is split into ``size(a) * size(b)`` pieces, ``a``
major; sub-axis ``"a":(pre)size`` is the digit ``(i // pre) % size`` of axis ``a``).

Expected values are NumPy on the global arrays (piece sums, psums), not hlorun's output.
"""

from __future__ import annotations

import numpy as np
import pytest

from hlorun import engine
from hlorun.parser.errors import HloError

X = np.arange(48, dtype=np.float32).reshape(8, 6)


def _piece_sums(mesh: str, dims: str, manual: str, pieces: int) -> str:
    """A manual computation whose body sums its local rows (no collectives)."""
    rows = 8 // pieces
    return f"""
sdy.mesh @mesh = <{mesh}>
func.func @main(%x: tensor<8x6xf32>) -> tensor<{pieces}x6xf32> {{
  %0 = sdy.manual_computation(%x) in_shardings=[<@mesh, [{dims}, {{}}]>] out_shardings=[<@mesh, [{dims}, {{}}]>] manual_axes={manual} (%a: tensor<{rows}x6xf32>) {{
    %z = stablehlo.constant dense<0.0> : tensor<f32>
    %s = stablehlo.reduce(%a init: %z) applies stablehlo.add across dimensions = [0] : (tensor<{rows}x6xf32>, tensor<f32>) -> tensor<6xf32>
    %b = stablehlo.broadcast_in_dim %s, dims = [1] : (tensor<6xf32>) -> tensor<1x6xf32>
    sdy.return %b : tensor<1x6xf32>
  }} : (tensor<8x6xf32>) -> tensor<{pieces}x6xf32>
  return %0 : tensor<{pieces}x6xf32>
}}
"""


@pytest.mark.parametrize(
    ("mesh", "dims", "manual", "pieces"),
    [
        ('["x"=2]', '{"x"}', '{"x"}', 2),
        ('["x"=2, "y"=2]', '{"x", "y"}', '{"x", "y"}', 4),
        ('["x"=2, "y"=2]', '{"y", "x"}', '{"x", "y"}', 4),
        ('["x"=2, "y"=3]', '{"x"}', '{"x"}', 2),  # free axis y: same values along it
        ('["x"=4]', '{"x":(1)2}', '{"x"}', 2),  # the minor half of x
        ('["x"=4]', '{"x":(2)2}', '{"x"}', 2),  # the major half of x
    ],
)
def test_manual_computation_pieces(mesh: str, dims: str, manual: str, pieces: int) -> None:
    (got,) = engine.run(_piece_sums(mesh, dims, manual, pieces), [X])
    want = X.reshape(pieces, 8 // pieces, 6).sum(axis=1)
    np.testing.assert_array_equal(got, want)


def test_manual_computation_with_psum_runs_on_a_grid() -> None:
    """jax.shard_map + psum: all_reduce over the mesh's devices in the body."""
    text = """
module attributes {mhlo.num_partitions = 4 : i32} {
sdy.mesh @mesh = <["x"=4]>
func.func @main(%x: tensor<8x6xf32>) -> tensor<8x6xf32> {
  %0 = sdy.manual_computation(%x) in_shardings=[<@mesh, [{"x"}, {}]>] out_shardings=[<@mesh, [{"x"}, {}]>] manual_axes={"x"} (%a: tensor<2x6xf32>) {
    %r = "stablehlo.all_reduce"(%a) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 0>, replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>, use_global_device_ids}> ({
    ^bb0(%p: tensor<f32>, %q: tensor<f32>):
      %s = stablehlo.add %p, %q : tensor<f32>
      stablehlo.return %s : tensor<f32>
    }) : (tensor<2x6xf32>) -> tensor<2x6xf32>
    %y = stablehlo.add %r, %a : tensor<2x6xf32>
    sdy.return %y : tensor<2x6xf32>
  } : (tensor<8x6xf32>) -> tensor<8x6xf32>
  return %0 : tensor<8x6xf32>
}
}
"""
    (got,) = engine.run(text, [X])  # a Shardy program runs as one process
    total = X.reshape(4, 2, 6).sum(axis=0)
    np.testing.assert_array_equal(got, np.tile(total, (4, 1)) + X)


def test_annotations_are_the_identity() -> None:
    text = """
sdy.mesh @mesh = <["x"=2]>
func.func @main(%x: tensor<8x6xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {}]>}) -> tensor<8x6xf32> {
  %0 = sdy.sharding_constraint %x <@mesh, [{}, {"x"}]> : tensor<8x6xf32>
  %1 = sdy.reshard %0 <@mesh, [{"x"}, {}]> : tensor<8x6xf32>
  %2 = sdy.propagation_barrier %1 allowed_direction=BOTH : tensor<8x6xf32>
  sdy.sharding_group %2 group_id=0 : tensor<8x6xf32>
  %3 = sdy.named_computation<"twice">(%2) (%a: tensor<8x6xf32>) {
    %b = stablehlo.add %a, %a : tensor<8x6xf32>
    sdy.return %b : tensor<8x6xf32>
  } : (tensor<8x6xf32>) -> tensor<8x6xf32>
  %c = sdy.constant dense<1.0> : tensor<8x6xf32>
  %4 = stablehlo.add %3, %c {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"x"}, {}]>]>} : tensor<8x6xf32>
  return %4 : tensor<8x6xf32>
}
"""
    (got,) = engine.run(text, [X])
    np.testing.assert_array_equal(got, 2 * X + 1)


def test_unknown_mesh_is_an_error() -> None:
    text = _piece_sums('["x"=2]', '{"x"}', '{"x"}', 2).replace("<@mesh,", "<@nomesh,")
    with pytest.raises(HloError, match="nomesh"):
        engine.run(text, [X])


def test_indivisible_dimension_is_an_error() -> None:
    text = _piece_sums('["x"=3]', '{"x"}', '{"x"}', 2)
    with pytest.raises(HloError, match="does not split into 3 pieces"):
        engine.run(text, [X])


NESTED = """
sdy.mesh @mesh = <["x"=2, "y"=2]>
func.func @main(%x: tensor<8x6xf32>) -> tensor<8x6xf32> {
  %0 = sdy.manual_computation(%x) in_shardings=[<@mesh, [{"x"}, {}]>] out_shardings=[<@mesh, [{"x"}, {}]>] manual_axes={"x"} (%a: tensor<4x6xf32>) {
    %r = "stablehlo.all_reduce"(%a) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 0>, replica_groups = dense<[[0, 2], [1, 3]]> : tensor<2x2xi64>, use_global_device_ids}> ({
    ^bb0(%p: tensor<f32>, %q: tensor<f32>):
      %s = stablehlo.add %p, %q : tensor<f32>
      stablehlo.return %s : tensor<f32>
    }) : (tensor<4x6xf32>) -> tensor<4x6xf32>
    %b = sdy.manual_computation(%r) in_shardings=[<@mesh, [{"y"}, {}]>] out_shardings=[<@mesh, [{"y"}, {}]>] manual_axes={"y"} (%c: tensor<2x6xf32>) {
      %d = stablehlo.add %c, %c : tensor<2x6xf32>
      sdy.return %d : tensor<2x6xf32>
    } : (tensor<4x6xf32>) -> tensor<4x6xf32>
    sdy.return %b : tensor<4x6xf32>
  } : (tensor<8x6xf32>) -> tensor<8x6xf32>
  return %0 : tensor<8x6xf32>
}
"""


def test_psum_over_one_axis_then_nested_manual_computation() -> None:
    """Devices are row-major over (x, y): [[0, 2], [1, 3]] groups the devices that
    differ in x, so the all_reduce sums the two x pieces; the free axis y runs on
    every device too, and the nested computation (manual on y) finds the mesh."""
    (got,) = engine.run(NESTED, [X])
    s = X[:4] + X[4:]
    np.testing.assert_array_equal(got, 2 * np.concatenate([s, s]))
