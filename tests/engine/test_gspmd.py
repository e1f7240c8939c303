"""GSPMD global programs (engine/gspmd.py, engine/hlo_sharding.py): HLO sharding
strings as XLA writes them, and manual regions run once per device.

Expected values are computed here with NumPy from the sharding's definition (each
tiled dimension cut into ceil(size / tiles) chunks, device ids laid out row-major over
the tile assignment), never from hlorun's output.
"""

from __future__ import annotations

import numpy as np
import pytest

import hlorun
from hlorun.engine.hlo_sharding import parse_hlo_sharding, shard_slices
from hlorun.parser.errors import UnsupportedError


def test_iota_tile_assignment_with_transpose() -> None:
    # iota(8) as [4,2], transposed to [2,4]: device ids column-major over [4,2]
    s = parse_hlo_sharding("{devices=[2,4]<=[4,2]T(1,0)}")
    assert not isinstance(s, tuple)
    assert s.tiles.tolist() == [[0, 2, 4, 6], [1, 3, 5, 7]]
    assert s.tile_index(5) == (1, 2)


def test_explicit_list_and_replicated_last_dim() -> None:
    s = parse_hlo_sharding("{devices=[2,1,2]0,2,1,3 last_tile_dim_replicate}")
    assert not isinstance(s, tuple)
    assert s.tile_counts() == (2, 1)
    # devices 0 and 2 hold rows 0-1, devices 1 and 3 rows 2-3
    assert [shard_slices(s, (4, 3), d)[0][0] for d in range(4)] == [
        slice(0, 2),
        slice(2, 4),
        slice(0, 2),
        slice(2, 4),
    ]


def test_other_forms() -> None:
    assert parse_hlo_sharding("{replicated}").kind == "replicated"
    assert parse_hlo_sharding("{manual}").kind == "manual"
    m = parse_hlo_sharding("{maximal device=3}")
    assert not isinstance(m, tuple) and m.device == 3
    assert shard_slices(m, (2,), 1) is None
    t = parse_hlo_sharding("{{replicated}, {devices=[2]0,1}}")
    assert isinstance(t, tuple) and [x.kind for x in t] == ["replicated", "tiled"]
    with pytest.raises(UnsupportedError):
        parse_hlo_sharding("{bogus}")


def test_uneven_cut_pads_the_last_piece() -> None:
    s = parse_hlo_sharding("{devices=[2]0,1}")
    assert not isinstance(s, tuple)
    assert shard_slices(s, (5,), 0) == ((slice(0, 3),), (3,))
    assert shard_slices(s, (5,), 1) == ((slice(3, 5),), (3,))


def _program(sharding: str, full: str, shard: str, body: str, out_sharding: str, out: str) -> str:
    return f"""
module attributes {{mhlo.num_partitions = 4 : i32, mhlo.num_replicas = 1 : i32}} {{
  func.func @main(%x: {full}) -> {out} {{
    %0 = stablehlo.custom_call @Sharding(%x) {{mhlo.sharding = "{sharding}"}} : ({full}) -> {full}
    %1 = stablehlo.custom_call @SPMDFullToShardShape(%0) {{mhlo.sharding = "{{manual}}"}} : ({full}) -> {shard}
{body}
    %3 = stablehlo.custom_call @Sharding(%2) {{mhlo.sharding = "{{manual}}"}} : ({shard}) -> {shard}
    %4 = stablehlo.custom_call @SPMDShardToFullShape(%3) {{mhlo.sharding = "{out_sharding}"}} : ({shard}) -> {out}
    return %4 : {out}
  }}
}}
"""


# a manual region's body: its 2x3 piece plus the partition id
ADD_PARTITION_ID = """    %p = stablehlo.partition_id : tensor<ui32>
    %pf = stablehlo.convert %p : (tensor<ui32>) -> tensor<f32>
    %pb = stablehlo.broadcast_in_dim %pf, dims = [] : (tensor<f32>) -> tensor<2x3xf32>
    %2 = stablehlo.add %1, %pb : tensor<2x3xf32>"""


def test_each_device_sees_its_own_tile() -> None:
    # a 2x2 tiling of a 4x6 array over 4 devices; the body adds its partition id
    body = ADD_PARTITION_ID
    text = _program(
        "{devices=[2,2]<=[4]}",
        "tensor<4x6xf32>",
        "tensor<2x3xf32>",
        body,
        "{devices=[2,2]<=[4]}",
        "tensor<4x6xf32>",
    )
    x = np.arange(24, dtype=np.float32).reshape(4, 6)
    want = x.copy()
    for d in range(4):
        i, j = divmod(d, 2)
        want[2 * i : 2 * i + 2, 3 * j : 3 * j + 3] += d
    (got,) = hlorun.run(text, [x])
    np.testing.assert_array_equal(got, want)


def test_all_reduce_in_the_manual_region() -> None:
    # rows cut over 4 devices, summed across them by an all_reduce; replicated result
    body = """    %2 = "stablehlo.all_reduce"(%1) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 0>, replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>, use_global_device_ids}> ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %s = stablehlo.add %a, %b : tensor<f32>
      stablehlo.return %s : tensor<f32>
    }) : (tensor<1x3xi32>) -> tensor<1x3xi32>""".replace("tensor<f32>", "tensor<i32>")
    text = _program(
        "{devices=[4,1]<=[4]}",
        "tensor<4x3xi32>",
        "tensor<1x3xi32>",
        body,
        "{replicated}",
        "tensor<1x3xi32>",
    )
    x = np.arange(12, dtype=np.int32).reshape(4, 3)
    (got,) = hlorun.run(text, [x])
    np.testing.assert_array_equal(got, x.sum(axis=0, keepdims=True))


def test_uneven_rows_round_trip_through_the_devices() -> None:
    # 7 rows over 4 devices: pieces of 2 rows, the last holding one row and a pad row
    body = "    %2 = stablehlo.multiply %1, %1 : tensor<2x2xi32>"
    text = _program(
        "{devices=[4,1]<=[4]}",
        "tensor<7x2xi32>",
        "tensor<2x2xi32>",
        body,
        "{devices=[4,1]<=[4]}",
        "tensor<7x2xi32>",
    )
    x = np.arange(14, dtype=np.int32).reshape(7, 2) - 5
    (got,) = hlorun.run(text, [x])
    np.testing.assert_array_equal(got, x * x)


def test_the_users_module_is_not_changed() -> None:
    from hlorun.parser import parse_module

    body = "    %2 = stablehlo.negate %1 : tensor<1x3xf32>"
    text = _program(
        "{devices=[4,1]<=[4]}",
        "tensor<4x3xf32>",
        "tensor<1x3xf32>",
        body,
        "{devices=[4,1]<=[4]}",
        "tensor<4x3xf32>",
    )
    mod = parse_module(text)
    before = [f.name for f in mod.functions.values()]
    (got,) = hlorun.compile(mod)(np.ones((4, 3), np.float32))
    np.testing.assert_array_equal(got, -np.ones((4, 3), np.float32))
    assert [f.name for f in mod.functions.values()] == before


def test_device_count_from_the_shardings_without_num_partitions() -> None:
    """An export whose module says nothing of its partitions (no mhlo.num_partitions):
    its shardings name devices 0 and 1, so the manual region runs on two devices."""
    body = ADD_PARTITION_ID
    text = _program(
        "{devices=[2,1]0,1}",
        "tensor<4x3xf32>",
        "tensor<2x3xf32>",
        body,
        "{devices=[2,1]0,1}",
        "tensor<4x3xf32>",
    ).replace("attributes {mhlo.num_partitions = 4 : i32, mhlo.num_replicas = 1 : i32} ", "")
    assert "num_partitions" not in text
    x = np.arange(12, dtype=np.float32).reshape(4, 3)
    want = x + np.repeat([0.0, 1.0], 2)[:, None]  # rows 0-1 on device 0, 2-3 on 1
    (got,) = hlorun.run(text, [x])
    np.testing.assert_array_equal(got, want)


def test_device_count_from_argument_shardings() -> None:
    from hlorun.engine.gspmd import gspmd_partitions, sharding_devices
    from hlorun.parser import parse_module

    assert sharding_devices(["{devices=[1,2]<=[2]}", "{maximal device=2}", "{replicated}"]) == 3
    assert sharding_devices(["{replicated}", "{bogus"]) == 0
    m = parse_module(
        'func.func @main(%x: tensor<4xf32> {mhlo.sharding = "{devices=[4]<=[4]}"}) '
        "-> tensor<4xf32> {\n  return %x : tensor<4xf32>\n}\n"
    )
    assert gspmd_partitions(m) == 4
    m2 = parse_module("module attributes {mhlo.num_partitions = 8 : i32} {\n}\n")
    assert gspmd_partitions(m2) == 8


def test_manual_groups_of_a_partly_manual_sharding() -> None:
    """The devices along the non-manual dimensions of the tile assignment form one
    manual partition: {devices=[1,2,2]0,1,2,3 last_tile_dims={manual}} groups {0, 2}
    and {1, 3} (the manual index is the last one)."""
    from hlorun.engine.hlo_sharding import manual_group

    s = parse_hlo_sharding("{devices=[1,2,2]0,1,2,3 last_tile_dims={manual}}")
    assert not isinstance(s, tuple)
    assert [manual_group(s, d) for d in range(4)] == [(0, 2), (1, 3), (0, 2), (1, 3)]
    full = parse_hlo_sharding("{manual}")
    assert not isinstance(full, tuple) and manual_group(full, 3) == (3,)
    # a manual subgroup does not cut the array: devices along it hold the same tile
    m = parse_hlo_sharding("{devices=[2,1,2]<=[4] last_tile_dims={manual}}")
    assert not isinstance(m, tuple)
    assert [shard_slices(m, (4, 3), d)[0][0] for d in range(4)] == [
        slice(0, 2),
        slice(0, 2),
        slice(2, 4),
        slice(2, 4),
    ]


PARTLY_MANUAL = """
module attributes {mhlo.num_partitions = 4 : i32, mhlo.num_replicas = 1 : i32} {
  func.func @main(%x: tensor<8x2xf32>) -> tensor<8x2xf32> {
    %0 = stablehlo.custom_call @Sharding(%x) {mhlo.sharding = "IN"} : (tensor<8x2xf32>) -> tensor<8x2xf32>
    %1 = stablehlo.custom_call @SPMDFullToShardShape(%0) {mhlo.sharding = "{devices=[2,1,2]<=[2,2]T(1,0) last_tile_dims={manual}}"} : (tensor<8x2xf32>) -> tensor<4x2xf32>
    %r = stablehlo.reverse %1, dims = [0] : tensor<4x2xf32>
    %s = "stablehlo.all_reduce"(%r) ({
      ^bb0(%a: tensor<f32>, %b: tensor<f32>):
        %t = stablehlo.add %a, %b : tensor<f32>
        stablehlo.return %t : tensor<f32>
    }) {replica_groups = dense<[[0, 2], [1, 3]]> : tensor<2x2xi64>, channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, use_global_device_ids} : (tensor<4x2xf32>) -> tensor<4x2xf32>
    %2 = stablehlo.custom_call @Sharding(%s) {mhlo.sharding = "{devices=[2,1,2]<=[2,2]T(1,0) last_tile_dims={manual}}"} : (tensor<4x2xf32>) -> tensor<4x2xf32>
    %3 = stablehlo.custom_call @SPMDShardToFullShape(%2) {mhlo.sharding = "OUT"} : (tensor<4x2xf32>) -> tensor<8x2xf32>
    return %3 : tensor<8x2xf32>
  }
}
"""


@pytest.mark.parametrize(
    ("in_sharding", "out_sharding"),
    [
        # the input tiled over both mesh axes (the automatic one too), the output likewise
        ("{devices=[4,1]<=[4]}", "{devices=[4,1]<=[4]}"),
        # tiled over the manual axis only, replicated over the automatic one
        (
            "{devices=[2,1,2]<=[4] last_tile_dim_replicate}",
            "{devices=[2,1,2]<=[4] last_tile_dim_replicate}",
        ),
    ],
)
def test_partly_manual_region_runs(in_sharding: str, out_sharding: str) -> None:
    """A 2 x 2 mesh, device = 2 * m + a, manual along m (SPMDFullToShardShape's
    ``last_tile_dims={manual}``), automatic along a: manual partition m holds rows
    4m .. 4m + 3 whole (the automatic axis does not cut it), reverses them, and a psum
    over m adds the two partitions; every partition's block of the output is that sum."""
    x = np.arange(16, dtype=np.float32).reshape(8, 2)
    text = PARTLY_MANUAL.replace('"IN"', f'"{in_sharding}"').replace('"OUT"', f'"{out_sharding}"')
    (got,) = hlorun.run(text, [x])
    total = x[:4][::-1] + x[4:][::-1]
    np.testing.assert_array_equal(np.asarray(got), np.concatenate([total, total]))
