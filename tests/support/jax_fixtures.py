"""Load the jax.export fixtures of tests/fixtures/jax (made by its generate.py).

No jax needed: inputs and outputs are npz files (arr_0, arr_1, ... in parameter / flat
output order) whose ml_dtypes arrays were stored as same-width unsigned views; the real
dtypes are in MANIFEST.json (`input_dtypes` / `output_dtypes`) and restored here.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

import ml_dtypes
import numpy as np

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "jax"


@cache
def manifest() -> dict[str, Any]:
    """MANIFEST.json: versions at the top, one entry per fixture under "fixtures"."""
    return json.loads((FIXTURES / "MANIFEST.json").read_text())


def fixture_names(status: str | None = "ok") -> list[str]:
    """Fixture names in manifest order (only those with `status`, unless None)."""
    fixtures = manifest()["fixtures"]
    return [n for n, e in fixtures.items() if status is None or e["status"] == status]


def _dtype(name: str) -> np.dtype:
    """A dtype by name: numpy's, else ml_dtypes' (bfloat16, float8_e4m3fn, int4...)."""
    if hasattr(ml_dtypes, name):
        return np.dtype(getattr(ml_dtypes, name))
    return np.dtype(name)


def _load_npz(path: Path, dtypes: list[str]) -> list[np.ndarray]:
    """The arrays arr_0.. of an npz, viewed back as the dtypes the manifest names."""
    with np.load(path, allow_pickle=False) as z:
        arrays = [z[f"arr_{i}"] for i in range(len(z.files))]
    if len(arrays) != len(dtypes):
        raise ValueError(f"{path.name}: {len(arrays)} arrays, manifest names {len(dtypes)}")
    out = []
    for a, name in zip(arrays, dtypes):
        dt = _dtype(name)
        out.append(a if a.dtype == dt else a.view(dt))
    return out


def load_fixture(
    name: str,
) -> tuple[Path, Path, Path, list[np.ndarray], list[np.ndarray], dict[str, Any]]:
    """(text_path, bytecode_path, exported_path, inputs, outputs, manifest_entry)."""
    entry = manifest()["fixtures"][name]
    if entry["status"] != "ok":
        raise ValueError(f"fixture {name} was not generated: {entry.get('error')}")
    inputs = _load_npz(FIXTURES / f"{name}.inputs.npz", entry["input_dtypes"])
    outputs = _load_npz(FIXTURES / f"{name}.outputs.npz", entry["output_dtypes"])
    return (
        FIXTURES / f"{name}.mlir",
        FIXTURES / f"{name}.mlirbc",
        FIXTURES / f"{name}.exported",
        inputs,
        outputs,
        entry,
    )
