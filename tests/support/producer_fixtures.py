"""Load the fixtures of tests/fixtures/{tensorflow,torch_xla,torchax} (made by each
folder's generate.py with the producer installed in its own venv) and compare hlorun's
results with the producer's eager outputs.

No producer needed: programs are files, inputs and expected outputs npz files (arr_0,
arr_1, ... in @main parameter order / flattened output order), and MANIFEST.json says
what each fixture is and how to compare it (``check``).
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
PRODUCERS = ("tensorflow", "torch_xla", "torchax")
# A program file of each form: MLIR text, MLIR bytecode (TF, torch_xla: plain MLIR
# bytecode; torchax: jax's portable artifact, VHLO).
FORMS = {"text": ".mlir", "bytecode": ".mlirbc"}


@cache
def manifest(producer: str) -> dict[str, Any]:
    return json.loads((FIXTURES / producer / "MANIFEST.json").read_text())


def program_fixtures(producer: str) -> list[str]:
    """The fixtures holding one exported program (not the saved folders), in order."""
    return [
        name
        for name, e in manifest(producer)["fixtures"].items()
        if e["status"] == "ok" and "kind" not in e
    ]


def export_failures(producer: str) -> dict[str, str]:
    """What the producer itself cannot export: fixture name -> the producer's error
    (``export_failed``), or why its program is not its eager function
    (``export_wrong``: e.g. torch_xla's torch.trace returns the diagonal)."""
    return {
        name: e["error"]
        for name, e in manifest(producer)["fixtures"].items()
        if e["status"] in ("export_failed", "export_wrong")
    }


def _arrays(path: Path) -> list[np.ndarray]:
    with np.load(path, allow_pickle=False) as z:
        return [z[f"arr_{i}"] for i in range(len(z.files))]


def load(
    producer: str, name: str
) -> tuple[dict[str, Path], list[np.ndarray], list[np.ndarray], dict]:
    """({form: program path}, inputs, expected outputs, manifest entry)."""
    entry = manifest(producer)["fixtures"][name]
    folder = FIXTURES / producer
    paths = {form: folder / f"{name}{ext}" for form, ext in FORMS.items()}
    return (
        paths,
        _arrays(folder / f"{name}.inputs.npz"),
        _arrays(folder / f"{name}.outputs.npz"),
        entry,
    )


# ----------------------------------------------------------------------------- checks

RTOL = 1e-4  # |got - exp| <= RTOL * (max|exp| + |exp|), elementwise, for floats


def assert_close(got: np.ndarray, exp: np.ndarray, what: str) -> None:
    """Floats: |got - exp| <= 1e-4 * (max|exp| + |exp|) elementwise (NaN where NaN);
    integers and bools exactly; shapes and dtypes equal."""
    got = np.asarray(got)
    assert got.shape == exp.shape, f"{what}: shape {got.shape} != {exp.shape}"
    assert got.dtype == exp.dtype, f"{what}: dtype {got.dtype} != {exp.dtype}"
    if exp.dtype.kind not in "fc":
        np.testing.assert_array_equal(got, exp, err_msg=what)
        return
    g = got.astype(np.complex128 if exp.dtype.kind == "c" else np.float64)
    e = exp.astype(g.dtype)
    nan = np.isnan(e)
    assert np.array_equal(np.isnan(g), nan), f"{what}: NaN positions differ"
    finite = np.abs(e[~nan]) if e.size else np.zeros(0)
    scale = float(finite.max()) if finite.size else 0.0
    err = np.abs(g - e)
    bound = RTOL * (scale + np.abs(e))
    bad = ~nan & ~(err <= bound)
    if bad.any():
        i = tuple(
            int(k)
            for k in np.unravel_index(np.argmax(np.where(bad, err - bound, -np.inf)), e.shape)
        )
        raise AssertionError(
            f"{what}: {int(bad.sum())} of {e.size} elements off; worst at {i}: got {g[i]}, "
            f"expected {e[i]} (bound {bound[i]:.3g})"
        )


def _phases(ref_got: np.ndarray, ref_exp: np.ndarray, axis: int) -> np.ndarray:
    """Per column (axis -1) or row (axis -2) of a matrix batch: the unit factor taking
    got's vector to exp's (a sign for real data, a phase for complex)."""
    dot = np.sum(np.conj(ref_got) * ref_exp, axis=-2 if axis == -1 else -1)
    mag = np.abs(dot)
    return np.where(mag > 0, dot / np.where(mag > 0, mag, 1), 1)


def _scaled(a: np.ndarray, phase: np.ndarray, axis: int) -> np.ndarray:
    return a * (phase[..., None, :] if axis == -1 else phase[..., :, None])


def as_program_outputs(exp: list[np.ndarray], entry: dict[str, Any]) -> list[np.ndarray]:
    """The eager outputs in the shapes and integer dtypes of the exported program's
    ``@main`` (``program_outputs``), where the producer's export differs from its eager
    run without changing a value: torch_xla returns nn.LSTM's h_n as 1x1x2x6 for eager's
    1x2x6 and max_pool2d's indices as ui32; torchax's indices (argmax, topk, sort) are
    i32 for torch's int64."""
    specs = entry.get("program_outputs")
    if specs is None:
        return exp
    assert len(specs) == len(exp), f"{len(specs)} program outputs, {len(exp)} eager ones"
    out = []
    for i, (e, spec) in enumerate(zip(exp, specs)):
        shape, dtype = tuple(spec["shape"]), np.dtype(spec["dtype"])
        if e.shape != shape:
            assert e.size == int(np.prod(shape)), f"output {i}: {shape} vs eager {e.shape}"
            e = e.reshape(shape)
        if dtype != e.dtype and dtype.kind in "iu" and e.dtype.kind in "iu":
            cast = e.astype(dtype)
            assert np.array_equal(cast, e), f"output {i}: eager values outside {dtype}"
            e = cast
        out.append(e)
    return out


def check_outputs(
    got: list[Any], exp: list[np.ndarray], check: dict[str, Any], inputs: list[np.ndarray]
) -> None:
    """Compare as the manifest's ``check`` says.

    * ``allclose``: every output within ``assert_close``;
    * ``signs``: decompositions unique up to a per-column sign or phase: each group
      ``[[output, axis], ...]`` shares one factor per column (axis -1) or row (axis -2),
      taken from the first member (Q's columns with R's rows; U's and V's columns);
    * ``qr_reconstruct``: full QR (the columns past the rank are any orthonormal
      completion): Q^H Q = I, Q R = A, R upper triangular.
    """
    got = [np.asarray(g) for g in got]
    assert len(got) == len(exp), f"{len(got)} outputs, expected {len(exp)}"
    kind = check["kind"]
    if kind == "qr_reconstruct":
        q, r = got
        a = inputs[0]
        n = q.shape[-1]
        assert_close(np.conj(np.swapaxes(q, -1, -2)) @ q, np.eye(n, dtype=q.dtype), "Q^H Q")
        assert_close(q @ r, a, "Q R")
        assert np.all(np.tril(r, -1) == 0), "R is not upper triangular"
        return
    if kind == "signs":
        got = list(got)
        for group in check["groups"]:
            (i0, ax0), *_ = group
            phase = _phases(got[i0], exp[i0], ax0)
            for i, ax in group:
                got[i] = _scaled(got[i], phase, ax).astype(got[i].dtype)
    elif kind != "allclose":
        raise ValueError(f"unknown check kind {kind!r}")
    for i, (g, e) in enumerate(zip(got, exp)):
        assert_close(g, e, f"output {i}")
