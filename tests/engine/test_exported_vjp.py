"""A jax.export container saved with its VJP (``Exported.serialize(vjp_order=2)``,
tests/fixtures/jax_vjp/generate.py): ``ExportedProgram.vjp()`` runs each level as jax's
``Exported.vjp().call`` did, on the arguments jax was given (jax's recorded results)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from hlorun.engine import load_exported
from hlorun.parser.errors import UnsupportedError

HERE = Path(__file__).resolve().parent.parent / "fixtures" / "jax_vjp"


def _npz(path: Path) -> list[np.ndarray]:
    with np.load(path) as z:
        return [z[f"arr_{i}"] for i in range(len(z.files))]


def _close(got, want) -> None:
    assert len(got) == len(want)
    for g, w in zip(got, want):
        np.testing.assert_allclose(np.asarray(g), w, rtol=1e-5, atol=1e-6)


def test_each_vjp_level_runs_as_jax_ran_it():
    program = load_exported(HERE / "vjp_mlp.exported")
    assert program.has_vjp
    _close(
        program.call_flat(*_npz(HERE / "vjp_mlp.inputs.npz")), _npz(HERE / "vjp_mlp.outputs.npz")
    )
    level = program
    for k in (1, 2):
        level = level.vjp()
        args = _npz(HERE / f"vjp_mlp.vjp{k}.inputs.npz")
        _close(level.call_flat(*args), _npz(HERE / f"vjp_mlp.vjp{k}.outputs.npz"))
    assert level is program.vjp().vjp()  # read once
    assert not level.has_vjp
    with pytest.raises(UnsupportedError, match="holds no VJP"):
        level.vjp()
