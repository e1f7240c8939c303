"""Exports made by jax / jaxlib 0.4.13 and 0.4.20 (tests/fixtures/jax_legacy, generator
there): its CPU linear algebra and FFT call the targets before the FFI (lapack_?potrf,
..., blas_?trsm, dynamic_ducc_fft).  Each portable artifact runs through hlorun and
matches jax's recorded outputs (the functions return unique quantities); tolerances as
jax's tests/export_back_compat_test.py linalg tests (f32: rtol 1e-3, atol 1e-4)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from hlorun import engine

ROOT = Path(__file__).resolve().parents[1] / "fixtures" / "jax_legacy"
FOLDERS = sorted(ROOT.glob("jaxlib-*"))
CASES = [
    (folder, name, entry)
    for folder in FOLDERS
    for name, entry in json.loads((folder / "MANIFEST.json").read_text())["fixtures"].items()
]


def _npz(path: Path) -> list[np.ndarray]:
    with np.load(path) as z:
        return [z[f"arr_{i}"] for i in range(len(z.files))]


@pytest.mark.parametrize(
    ("folder", "name", "entry"), CASES, ids=[f"{f.name}/{n}" for f, n, _ in CASES]
)
def test_legacy_export_matches_jax(folder, name, entry):
    assert entry["targets"], "the export calls a legacy target"
    inputs = _npz(folder / f"{name}.inputs.npz")
    want = _npz(folder / f"{name}.outputs.npz")
    got = engine.run((folder / f"{name}.mlirbc").read_bytes(), inputs)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        g = np.asarray(g)
        assert g.dtype == w.dtype and g.shape == w.shape
        if w.dtype.kind in "iub":
            np.testing.assert_array_equal(g, w)
        elif w.dtype in (np.float32, np.complex64):
            np.testing.assert_allclose(g, w, rtol=1e-3, atol=1e-4)
        else:
            np.testing.assert_allclose(g, w, rtol=1e-7, atol=1e-10)


def test_the_exports_cover_every_legacy_family():
    targets = {t for _, _, e in CASES for t in e["targets"]}
    for p in "sdcz":
        for r in ("potrf", "getrf", "geqrf", "gesdd", "geev", "gees", "gehrd"):
            assert f"lapack_{p}{r}" in targets
        assert f"blas_{p}trsm" in targets
    assert "dynamic_ducc_fft" in targets
