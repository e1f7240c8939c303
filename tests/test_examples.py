"""The example programs run, and agree with the same model written in NumPy."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np

from hlorun import engine
from hlorun.parser import parse_module

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def _constants(module) -> dict[str, np.ndarray]:
    out = {}
    for fn in module.functions.values():
        for op in fn.body.entry.operations:
            if op.name == "stablehlo.constant":
                out[op.results[0].name] = op.attr("value").array
    return out


def test_mlp_matches_numpy():
    module = parse_module((EXAMPLES / "mlp.mlir").read_text())
    c = _constants(module)
    x, w1, b1, w2, b2 = (c[k].astype(np.float64) for k in ("%x", "%w1", "%b1", "%w2", "%b2"))
    logits = np.maximum(x @ w1 + b1, 0) @ w2 + b2
    e = np.exp(logits - logits.max(axis=1, keepdims=True))
    want = e / e.sum(axis=1, keepdims=True)
    (got,) = engine.run(module, [])
    assert got.dtype == np.float32 and got.shape == (4, 3)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got.sum(axis=1), 1.0, rtol=1e-6)


def test_readme_example_command_runs():
    r = subprocess.run(
        [sys.executable, "-m", "hlorun.engine.cli", "interpret", str(EXAMPLES / "mlp.mlir")],
        capture_output=True,
        text=True,
    )
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("tensor<4x3xf32> {")
