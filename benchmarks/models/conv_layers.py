"""Each convolution of the suite's CNNs, alone: hlorun against the floor's im2col call,
CPU time and wall time, interleaved (the op-by-op view behind the CNN rows of
test_models_bench.py).

    python benchmarks/models/conv_layers.py [--model resnet_cnn_nchw] [--rounds 9]

Every ``stablehlo.convolution`` of the committed program becomes a one-op program
(same operand types and attributes) that ``engine.compile`` prepares once; the floor is
``floors.conv2d_same`` on the same arrays.  CPU time (``time.process_time``: every
thread of the process, BLAS's included) finds excess work on a shared machine, where
wall-time ratios swing; the rounds interleave hlorun and the floor, and the 1-minute
load average is printed beside the medians.
"""

from __future__ import annotations

import argparse
import math
import os
import re
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the repo's benchmarks

from benchmarks.models import floors  # noqa: E402
from hlorun import engine  # noqa: E402
from hlorun.engine.kernels.convolution import CONV_F64_K  # noqa: E402

PROGRAMS = Path(__file__).parent / "programs"
_CONV = re.compile(
    r"= (stablehlo\.convolution\(%[\w#]+, %[\w#]+\).*?) : "
    r"\((tensor<[^>]*>), (tensor<[^>]*>)\) -> (tensor<[^>]*>)"
)


def _shape(t: str) -> tuple[int, ...]:
    return tuple(int(d) for d in t[len("tensor<") : -1].split("x")[:-1])


def conv_layers(model: str) -> list[dict]:
    """The model's convolutions in program order: one-op program text, operand
    shapes, layout and window stride."""
    out = []
    for line in (PROGRAMS / f"{model}.mlir").read_text().splitlines():
        m = _CONV.search(line)
        if m is None:
            continue
        op, lt, rt, res = m.groups()
        op = re.sub(
            r"^stablehlo\.convolution\(%[\w#]+, %[\w#]+\)", "stablehlo.convolution(%x, %w)", op
        )
        op = re.sub(r" loc\(.*$", "", op)
        text = (
            f"func.func @main(%x: {lt}, %w: {rt}) -> {res} {{\n"
            f"  %r = {op} : ({lt}, {rt}) -> {res}\n  return %r : {res}\n}}\n"
        )
        layout = "NHWC" if "[b, 0, 1, f]" in op else "NCHW"
        stride = re.search(r"stride = \[(\d+), \d+\]", op)
        out.append(
            dict(
                text=text,
                x=_shape(lt),
                w=_shape(rt),
                layout=layout,
                stride=int(stride.group(1)) if stride else 1,
            )
        )
    return out


def _time(fn, wall: list[float], cpu: list[float]) -> None:
    c0, t0 = time.process_time(), time.perf_counter()
    fn()
    wall.append(time.perf_counter() - t0)
    cpu.append(time.process_time() - c0)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--model", default="resnet_cnn_nchw")
    ap.add_argument("--rounds", type=int, default=9)
    args = ap.parse_args()
    rng = np.random.default_rng(0)
    med = statistics.median
    print(f"{args.model}: load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
    print(
        f"{'layer':<34} {'K':>5} {'hlorun cpu':>11} {'floor cpu':>10} {'ratio':>6} "
        f"{'hlorun wall':>12} {'floor wall':>11}"
    )
    tot = [0.0, 0.0]
    for i, layer in enumerate(conv_layers(args.model)):
        x = rng.standard_normal(layer["x"]).astype(np.float32)
        w = rng.standard_normal(layer["w"]).astype(np.float32)
        prog = engine.compile(layer["text"])
        run = lambda p=prog, x=x, w=w: p(x, w)  # noqa: E731
        floor = lambda x=x, w=w, s=layer["stride"], lay=layer["layout"]: (  # noqa: E731
            floors.conv2d_same(x, w, s, lay)
        )
        run()
        floor()
        hw: list[float] = []
        hc: list[float] = []
        fw: list[float] = []
        fc: list[float] = []
        for _ in range(args.rounds):
            _time(run, hw, hc)
            _time(floor, fw, fc)
        ws = layer["w"]
        k = math.prod(ws) // (ws[0] if layer["layout"] == "NCHW" else ws[-1])
        name = f"{i} {'x'.join(map(str, layer['x']))} -> {ws[0] if layer['layout'] == 'NCHW' else ws[-1]}"
        name += f" s{layer['stride']}" + (" f64" if k > CONV_F64_K else "")
        tot[0] += med(hc)
        tot[1] += med(fc)
        print(
            f"{name:<34} {k:>5} {med(hc) * 1e3:>9.2f}ms {med(fc) * 1e3:>8.2f}ms "
            f"{med(hc) / med(fc):>6.2f} {med(hw) * 1e3:>10.2f}ms {med(fw) * 1e3:>9.2f}ms"
        )
    print(
        f"{'total (CPU medians)':<34} {'':>5} {tot[0] * 1e3:>9.2f}ms {tot[1] * 1e3:>8.2f}ms "
        f"{tot[0] / tot[1]:>6.2f}"
    )
    print(f"load average {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
