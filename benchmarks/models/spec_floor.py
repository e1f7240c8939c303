"""The NumPy floor with hlorun's numerics: how fast the suite's models can run in NumPy
while giving hlorun's bits (the bound behind the "<= 1.0x the floor" rows of
test_models_bench.py that hlorun misses).

    python benchmarks/models/spec_floor.py [model ...] [--rounds 9]

floors.py computes as NumPy does: f32 ``exp`` and ``tanh`` in NumPy's float32 loops,
sums in ``np.sum``'s pairwise order.  hlorun's results are defined otherwise, and must
stay bit-identical (issue "Speed III"):

* f32 transcendental functions compute in float64 and round once (engine/kernels/
  elementwise.py): NumPy's float32 ``exp`` differs from that on ~39% of random normal
  inputs, its ``tanh`` on ~32%;
* a float reduction sums in the adjacent-pair tree of its module docstring
  (engine/kernels/reduction.py), an order ``np.sum`` does not follow; its fastest
  NumPy schedule is engine/kernels/reduction_tree.py's ``tree_last``.

The spec floor is floors.py's code with those three calls replaced, and nothing else:
one NumPy call per op as before.  For each model this prints hlorun, the floor, the
spec floor, and whether the spec floor's result has hlorun's bits (it does where the
model's ops are the floor's: then the spec floor computes what hlorun computes).
Rounds interleave the three; medians of wall time.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
import types
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the repo's benchmarks

from benchmarks.models import floors, specs  # noqa: E402
from hlorun import engine  # noqa: E402
from hlorun.engine.fastpath import via_f64  # noqa: E402
from hlorun.engine.kernels.reduction_tree import tree_last  # noqa: E402

PROGRAMS = Path(__file__).parent / "programs"
DEFAULT = ["decoder_lm", "vit", "mlp_mixer", "lstm_scan", "gru_scan", "jax_chain10"]


def _sum(x, axis=None, keepdims=False):
    """``np.sum`` in the spec-order tree along one axis (any other sum as NumPy's)."""
    x = np.asarray(x)
    if axis is None or x.dtype.kind != "f":
        return np.sum(x, axis=axis, keepdims=keepdims)
    axis %= x.ndim
    r = np.moveaxis(tree_last(np.moveaxis(x, axis, -1), np.add), -1, axis)
    return r if keepdims else r.squeeze(axis)


class _SpecNumPy:
    """``np`` for floors.py's code: the three calls above, NumPy's everything else."""

    # f32 exp / tanh as hlorun computes them (engine/fastpath.py: the floors are f32)
    _own = {
        "exp": via_f64(np.exp, np.dtype(np.float32)),
        "tanh": via_f64(np.tanh, np.dtype(np.float32)),
        "sum": _sum,
    }

    def __getattr__(self, name):
        return self._own.get(name) or getattr(np, name)


def spec_floors() -> dict[str, types.FunctionType]:
    """floors.FLOORS with every floors.py function re-bound to ``_SpecNumPy``."""
    env = dict(floors.__dict__, np=_SpecNumPy())

    def rebind(fn: types.FunctionType) -> types.FunctionType:
        return types.FunctionType(fn.__code__, env, fn.__name__, fn.__defaults__, fn.__closure__)

    for name, fn in floors.__dict__.items():
        if isinstance(fn, types.FunctionType) and fn.__module__ == floors.__name__:
            env[name] = rebind(fn)
    return {model: rebind(fn) for model, fn in floors.FLOORS.items()}


def _first(r):
    return np.asarray(r[0] if isinstance(r, (list, tuple)) else r)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("models", nargs="*", default=DEFAULT)
    ap.add_argument("--rounds", type=int, default=9)
    args = ap.parse_args()
    spec = spec_floors()
    np.seterr(all="ignore")
    print(f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
    print(
        f"{'model':<13} {'hlorun':>9} {'floor':>9} {'spec floor':>11} {'/floor':>7} "
        f"{'spec/floor':>10} {'/spec':>6}  same bits"
    )
    for name in args.models:
        inputs = specs.make_inputs(specs.MODELS[name], seed=0)
        prog = engine.compile((PROGRAMS / f"{name}.mlir").read_text())
        runs = {
            "hlorun": lambda p=prog, a=inputs: p(*a),
            "floor": lambda f=floors.FLOORS[name], a=inputs: f(*a),
            "spec": lambda f=spec[name], a=inputs: f(*a),
        }
        same = np.array_equal(_first(runs["spec"]()), _first(runs["hlorun"]()))
        runs["floor"]()
        times: dict[str, list[float]] = {k: [] for k in runs}
        for _ in range(args.rounds):
            for k, run in runs.items():
                t0 = time.perf_counter()
                run()
                times[k].append(time.perf_counter() - t0)
        h, f, s = (statistics.median(times[k]) for k in ("hlorun", "floor", "spec"))
        print(
            f"{name:<13} {h * 1e3:7.2f}ms {f * 1e3:7.2f}ms {s * 1e3:9.2f}ms {h / f:7.3f} "
            f"{s / f:10.3f} {h / s:6.3f}  {'yes' if same else 'no'}"
        )
    print(f"load average {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
