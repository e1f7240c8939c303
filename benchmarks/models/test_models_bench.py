"""Real models at XLA's speed on CPU: programs exported with jax.export (generate.py;
weights are parameters, made here from a seed), run by hlorun against a hand-written
NumPy version of each (floors.py) and, when jax is installed, ``jax.jit`` of the same
exported program (its ``Exported`` container, deserialized and called).

Targets (issue "Speed III"): every model <= 1.0x its NumPy floor; the decoder <= 1.1x
jax.jit, the CNNs and the ViT <= 1.5x, the LSTM and GRU scans <= 2.0x; the JAX-form
while loop <= 0.7x the Python loop; the JAX-form chain <= 0.8x the naive floor.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

import hlorun  # noqa: E402
from models import floors, specs  # noqa: E402

PROGRAMS = HERE / "programs"

# model: (target vs the NumPy floor, target vs jax.jit)
TARGETS: dict[str, tuple[float, float | None]] = {
    "decoder_lm": (1.0, 1.1),
    "resnet_cnn_nchw": (1.0, 1.5),
    "resnet_cnn_nhwc": (1.0, 1.5),
    "vit": (1.0, 1.5),
    "lstm_scan": (1.0, 2.0),
    "gru_scan": (1.0, 2.0),
    "mlp_mixer": (1.0, None),
    "jax_while_loop": (0.7, None),
    "jax_chain10": (0.8, None),
    # PyTorch/XLA exports (generate_torch_xla.py): no jax.export container, vs the floor
    "torch_cnn": (1.0, None),
    "torch_transformer": (1.0, None),
}


def _jax_call(name: str, args: list[np.ndarray]):
    """``jax.jit`` of the exported program, compiled and warmed; None without jax."""
    if not (PROGRAMS / f"{name}.exported").exists():
        return None  # a PyTorch/XLA export
    try:
        import jax
    except ImportError:
        return None
    exp = jax.export.deserialize(bytearray((PROGRAMS / f"{name}.exported").read_bytes()))
    fn = jax.jit(exp.call)
    dev = [jax.device_put(a) for a in args]

    def run():
        out = fn(*dev)
        jax.block_until_ready(out)
        return out

    run()
    return run


def _close(got, want, name: str) -> None:
    got = got if isinstance(got, (list, tuple)) else [got]
    want = want if isinstance(want, (list, tuple)) else [want]
    for g, w in zip(got, want):
        g, w = np.asarray(g), np.asarray(w)
        scale = float(np.max(np.abs(w))) if w.size else 0.0
        np.testing.assert_allclose(g, w, rtol=2e-3, atol=2e-3 * scale + 1e-6, err_msg=name)


@pytest.mark.parametrize("name", list(TARGETS))
def test_model(model_versus, name):
    model = specs.MODELS[name]
    args = specs.make_inputs(model, seed=0)
    program = hlorun.compile((PROGRAMS / f"{name}.mlir").read_text())
    floor = floors.FLOORS[name]
    with np.errstate(all="ignore"):
        _close(program(*args), floor(*args), name)
    jax_run = _jax_call(name, args)
    floor_target, jax_target = TARGETS[name]
    with np.errstate(all="ignore"):
        model_versus(
            lambda: program(*args),
            lambda: floor(*args),
            jax_run,
            floor_target=floor_target,
            jax_target=jax_target,
        )
