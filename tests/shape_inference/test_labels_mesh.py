"""replica_groups given as mesh axes (spec "Replica groups", "StableHLO Mesh"): the
groups they stand for, worked out by hand from the spec's definition (the devices that
differ only along the named axes, in the order the axes are named); the verifier's
label for axes the mesh lacks; and a collective that runs with them."""

from __future__ import annotations

import numpy as np
import pytest

import hlorun
from hlorun.parser import parse_module
from hlorun.shape_inference.mesh_groups import flatten_mesh_axes
from tests.shape_inference.labelcheck import assert_label, assert_verifies, func


def mesh(axes: dict[str, int], device_ids: list[int] | None = None) -> str:
    inner = ", ".join(f'#stablehlo.mesh_axis<name = "{n}", size = {s}>' for n, s in axes.items())
    ids = ""
    if device_ids is not None:
        ids = f", device_ids = array<i64: {', '.join(map(str, device_ids))}>"
    return f"#stablehlo.mesh<axes = [{inner}]{ids}>"


def ref(name: str, sub: tuple[int, int] | None = None) -> str:
    if sub is None:
        return f'#stablehlo.axis_ref<name = "{name}">'
    return f'#stablehlo.axis_ref<name = "{name}", sub_axis_info = ({sub[0]}){sub[1]}>'


def groups_attr(m: str, refs: list[str]) -> str:
    return f"#stablehlo.replica_group_mesh_axes<mesh = {m}, axes = [{', '.join(refs)}]>"


def all_gather(groups: str, n: int = 2) -> str:
    out = f"tensor<{2 * n}xf32>"
    return func(
        "%x: tensor<2xf32>",
        f'%r = "stablehlo.all_gather"(%x) {{all_gather_dim = 0 : i64, replica_groups = {groups}}}'
        f" : (tensor<2xf32>) -> {out}",
        results=out,
        returns=f"%r : {out}",
    )


def flat(attr_text: str) -> list[list[int]]:
    op = parse_module(all_gather(attr_text)).functions
    fn = list(op.values())[0] if isinstance(op, dict) else op[0]
    attr = fn.body.blocks[0].operations[0].attr("replica_groups")
    return flatten_mesh_axes(attr).tolist()


@pytest.mark.parametrize(
    "m,refs,want",
    [
        # device (x, y) of a 2x2 mesh is 2x + y
        (mesh({"x": 2, "y": 2}), [ref("y")], [[0, 1], [2, 3]]),
        (mesh({"x": 2, "y": 2}), [ref("x")], [[0, 2], [1, 3]]),
        # both axes, y named first: y varies slowest within the group
        (mesh({"x": 2, "y": 2}), [ref("y"), ref("x")], [[0, 2, 1, 3]]),
        (mesh({"x": 2, "y": 2}), [], [[0], [1], [2], [3]]),
        # device_ids: the devices in coordinate order
        (mesh({"x": 2, "y": 2}, [3, 2, 1, 0]), [ref("y")], [[3, 2], [1, 0]]),
        # x of size 4 = (major 2) x (minor 2); x:(1)2 is the major part: devices
        # 2x + y with x in {xm * 2 + xn}, grouped over xm
        (
            mesh({"x": 4, "y": 2}),
            [ref("x", (1, 2))],
            [[0, 4], [1, 5], [2, 6], [3, 7]],
        ),
        # x:(2)2 is the minor part of x
        (
            mesh({"x": 4, "y": 2}),
            [ref("x", (2, 2))],
            [[0, 2], [1, 3], [4, 6], [5, 7]],
        ),
    ],
)
def test_groups(m, refs, want):
    assert flat(groups_attr(m, refs)) == want


def test_verifier():
    assert_verifies(all_gather(groups_attr(mesh({"x": 2, "y": 2}), [ref("y")])))
    bad = all_gather(groups_attr(mesh({"x": 2, "y": 2}), [ref("z")]))
    assert_label(bad, "replica_group_mesh_axes")
    # the flattened groups meet the op's own constraints (is_unique(replica_groups))
    dup = all_gather(groups_attr(mesh({"x": 2, "y": 2}, [0, 0, 1, 2]), [ref("y")]))
    assert_label(dup, "all_gather_c2")


def test_runs_on_a_grid():
    text = all_gather(groups_attr(mesh({"x": 2, "y": 2}), [ref("x")]))
    outs = hlorun.run(text, [[np.full(2, i, np.float32)] for i in range(4)], num_replicas=4)
    # groups [[0, 2], [1, 3]]: replica r gathers its group's operands in group order
    want = {0: [0, 0, 2, 2], 1: [1, 1, 3, 3], 2: [0, 0, 2, 2], 3: [1, 1, 3, 3]}
    for r, (out,) in enumerate(outs):
        assert out.tolist() == want[r]


@pytest.mark.parametrize("key", ["mesh", "stablehlo.mesh"])
def test_runs_with_a_mesh_named_by_symbol(key):
    """``mesh = @name``: the mesh the symbol holds (its ``mesh`` or ``stablehlo.mesh``
    attribute, as the reference interpreter resolves it) gives the groups."""
    m = mesh({"x": 2, "y": 2})
    text = f"func.func private @grid() attributes {{{key} = {m}}}\n" + all_gather(
        f"#stablehlo.replica_group_mesh_axes<mesh = @grid, axes = [{ref('x')}]>"
    )
    assert_verifies(text)
    outs = hlorun.run(text, [[np.full(2, i, np.float32)] for i in range(4)], num_replicas=4)
    want = {0: [0, 0, 2, 2], 1: [1, 1, 3, 3], 2: [0, 0, 2, 2], 3: [1, 1, 3, 3]}
    for r, (out,) in enumerate(outs):
        assert out.tolist() == want[r]


def test_a_symbol_without_a_mesh_is_refused_when_run():
    text = "func.func private @grid()\n" + all_gather(
        f"#stablehlo.replica_group_mesh_axes<mesh = @grid, axes = [{ref('x')}]>"
    )
    with pytest.raises(hlorun.HloError, match="ReplicaGroupMeshAxes|mesh"):
        hlorun.run(text, [[np.full(2, i, np.float32)] for i in range(4)], num_replicas=4)
