"""``custom_call @hlorun.gspmd_manual``: a manual region of a GSPMD global program.

engine/gspmd.py outlines each region between SPMDFullToShardShape and
SPMDShardToFullShape into a private function; this target runs it once per device (a
1 x N process grid, partition p being device p, N the module's
``mhlo.num_replicas`` times the partitions: ``mhlo.num_partitions``, else the devices
the shardings name), each device getting its piece of every
input by the input's ``mhlo.sharding`` (engine/hlo_sharding.py), and puts the
per-device results back together by the output shardings.  A piece that the last tile
of an uneven cut pads is padded with zeros; padding is dropped when putting back.  In a
partly manual region (SPMDFullToShardShape's sharding has ``last_tile_dims={manual,
...}``) a device gets the block its manual partition holds, not cut along the automatic
axes, and puts its result back there.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...parser.ir import IntegerAttr, TensorType
from ..dtypes import dtype_of, static_shape
from ..grid import run_grid
from ..gspmd import gspmd_partitions
from ..hlo_sharding import (
    HloSharding,
    group_block,
    manual_group,
    parse_hlo_sharding,
    shard_slices,
)
from ..options import RunOptions
from .custom_targets import Call, target


def _sharding(text: Any, call: Call) -> HloSharding:
    s = parse_hlo_sharding(str(text))
    if isinstance(s, tuple):
        raise call.fail(f"a tuple sharding {text!r} for one array")
    return s


def _devices(call: Call) -> int:
    """``mhlo.num_replicas`` x the partitions (engine/gspmd.py gspmd_partitions)."""
    module = call.context.interpreter.module
    a = module.attr("mhlo.num_replicas")
    return (a.value if isinstance(a, IntegerAttr) else 1) * gspmd_partitions(module)


def _groups(call: Call, n: int) -> list[tuple[int, ...]]:
    """Each device's manual partition (its group of devices): by the manual subgroups
    of the region's SPMDFullToShardShape sharding; each device alone when the region is
    fully manual.  In a partly manual region every device of a group runs the body on
    the whole manual shard (its automatic axes are the global program's)."""
    texts = call.config.get("manual_shardings", ())
    region = [_sharding(t, call) for t in texts]
    partly = next((s for s in region if "manual" in s.subgroups), None)
    return [(d,) if partly is None else manual_group(partly, d) for d in range(n)]


def _piece(
    x: np.ndarray, s: HloSharding, device: int, t: Any, call: Call, group: tuple[int, ...]
) -> np.ndarray:
    """Device ``device``'s piece of ``x`` (zeros when it holds none): its tile, or in a
    partly manual region the block its manual partition's devices hold together."""
    want = static_shape(t) if isinstance(t, TensorType) else x.shape
    if len(group) > 1:
        block = group_block(s, x.shape, group)
        if block is None:
            return np.zeros(want, x.dtype)
        sl, padded = block, tuple(want)
    else:
        where = shard_slices(s, x.shape, device)
        if where is None:
            return np.zeros(want, x.dtype)
        sl, padded = where
    piece = x[sl]
    if piece.shape != padded:
        piece = np.pad(piece, [(0, p - n) for p, n in zip(padded, piece.shape)])
    if tuple(piece.shape) != tuple(want):
        raise call.fail(
            f"a piece of shape {piece.shape} of a {x.shape} input for a per-device "
            f"argument of shape {tuple(want)}"
        )
    return piece


@target("hlorun.gspmd_manual")
def gspmd_manual(call: Call, *operands: Any) -> tuple[np.ndarray, ...]:
    interp = call.context.interpreter
    module = interp.module
    (name,) = [str(c).lstrip("@") for c in call.attrs["called_computations"]]
    fn = module.functions[name]
    ins = [_sharding(s, call) for s in call.config["in_shardings"]]
    outs = [_sharding(s, call) for s in call.config["out_shardings"]]
    cut, extras = operands[: len(ins)], list(operands[len(ins) :])
    n = _devices(call)
    groups = _groups(call, n)
    per_device = [
        [
            _piece(np.asarray(x), s, d, t, call, groups[d])
            for x, s, t in zip(cut, ins, fn.type.inputs)
        ]
        + extras
        for d in range(n)
    ]
    opts = RunOptions(float_eq=call.context.float_eq)
    ran = run_grid(module, [[name] * n], per_device, interpreter=type(interp), options=opts)
    results = []
    for j, (s, t) in enumerate(zip(outs, call.result_types)):
        shape = static_shape(t)
        full = np.zeros(shape, dtype_of(t))
        for d in range(n):
            if len(groups[d]) > 1:
                block = group_block(s, shape, groups[d])
                if block is None:
                    continue
                sl = block
            else:
                where = shard_slices(s, shape, d)
                if where is None:
                    continue
                sl, _ = where
            piece = np.asarray(ran[d][j])
            full[sl] = piece[tuple(slice(0, x.stop - x.start) for x in sl)]
        results.append(full)
    return tuple(results)
