"""How long ``hlorun diff --against xla`` takes on the model suite's decoder LM, against
running the model once on each engine (compile included on both sides).

    python benchmarks/models/diff_timing.py [--runs 5] [--model decoder_lm]

Needs a Python with jax for XLA: ``HLORUN_JAX_PYTHON`` (default
/work/venvs/jax/bin/python).  Each round times, in turn and each in a fresh process:

(a) ``hlorun interpret PROGRAM --inputs INPUTS.npz --outputs OUT.npz`` (parse, verify,
    plan, run, save the logits);
(b) a fresh Python that runs the program's jax.export container under ``jax.jit`` on
    CPU (import jax, deserialize, compile, run);
(c) ``hlorun diff PROGRAM --inputs INPUTS.npz --against xla``.

The rounds interleave (a, b, c, a, b, c, ...), so a busy shared machine slows all three
alike; it prints every time, the medians, and ``c / (a + b)`` of the medians (the
issue's target: at most 3).
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

XLA_RUN = """
import sys, numpy as np, jax
from jax import export
exp = export.deserialize(bytearray(open(sys.argv[1], "rb").read()))
with np.load(sys.argv[2]) as z:
    args = [z[f"arr_{i}"] for i in range(len(z.files))]
out = jax.jit(exp.call)(*args)
jax.block_until_ready(out)
"""


def _timed(cmd: list[str], env: dict[str, str], ok: tuple[int, ...] = (0,)) -> tuple[float, float]:
    """(wall, CPU) seconds of a command (CPU: user + system of it and its children)."""
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    done = subprocess.run(cmd, capture_output=True, text=True, env=env)
    t = time.perf_counter() - t0
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode not in ok:
        raise SystemExit(f"{cmd[:3]} failed ({done.returncode}):\n{done.stderr[-2000:]}")
    return t, (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)


def main() -> None:
    from models import specs

    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--runs", type=int, default=5)
    p.add_argument("--model", default="decoder_lm")
    args = p.parse_args()
    jax_python = os.environ.get("HLORUN_JAX_PYTHON", "/work/venvs/jax/bin/python")
    env = {**os.environ, "HLORUN_JAX_PYTHON": jax_python, "JAX_PLATFORMS": "cpu"}
    program = os.path.join(HERE, "programs", args.model + ".mlir")
    exported = os.path.join(HERE, "programs", args.model + ".exported")
    hlorun = [os.path.join(os.path.dirname(sys.executable), "hlorun")]
    with tempfile.TemporaryDirectory(prefix="hlorun-diff-timing-") as tmp:
        inputs = os.path.join(tmp, "inputs.npz")
        outputs = os.path.join(tmp, "outputs.npz")  # (not 1M logits printed as text)
        np.savez(inputs, *specs.make_inputs(specs.MODELS[args.model]))
        cmds = {
            "hlorun interpret": (
                hlorun + ["interpret", program, "--inputs", inputs, "--outputs", outputs],
                (0,),
            ),
            "XLA fresh process": ([jax_python, "-c", XLA_RUN, exported, inputs], (0,)),
            "hlorun diff --against xla": (
                hlorun + ["diff", program, "--inputs", inputs, "--against", "xla"],
                (0, 1),
            ),
        }
        times: dict[str, list[float]] = {k: [] for k in cmds}
        cpus: dict[str, list[float]] = {k: [] for k in cmds}
        for r in range(args.runs):
            for name, (cmd, ok) in cmds.items():
                wall, cpu = _timed(cmd, env, ok)
                times[name].append(wall)
                cpus[name].append(cpu)
            print(f"round {r + 1}: " + "  ".join(f"{v[-1]:.2f}" for v in times.values()))
    med = {k: statistics.median(v) for k, v in times.items()}
    cpu_med = {k: statistics.median(v) for k, v in cpus.items()}
    for k, v in times.items():
        print(
            f"{k:28s} median {med[k]:6.2f} s  ({' '.join(f'{t:.2f}' for t in v)}); "
            f"CPU median {cpu_med[k]:.2f} s"
        )
    a, b, c = med.values()
    print(f"diff / (interpret + XLA) = {c / (a + b):.2f}x (wall-clock medians)")
    a, b, c = cpu_med.values()
    print(f"                           {c / (a + b):.2f}x (CPU medians)")
    print("uptime:", os.popen("uptime").read().strip())


if __name__ == "__main__":
    main()
