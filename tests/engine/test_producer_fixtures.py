"""Programs exported by TensorFlow 2.21, PyTorch/XLA 2.9 and torchax 0.0.13 run with
hlorun, from their text and from their bytecode, and give the producer's eager outputs.

The fixtures are tests/fixtures/{tensorflow,torch_xla,torchax} (each folder's
generate.py, run by hand with the producer in its own venv; MANIFEST.json holds the
versions): CNNs, RNNs, transformers, linear algebra, FFT, layers and special functions.
Each runs with its recorded inputs (user inputs and weights, in @main's parameter order)
and is compared with the producer's eager outputs: floats within 1e-4 * (max|exp| +
|exp|) elementwise, integers exactly, decompositions up to their freedom (per-column
sign or phase; full QR by reconstruction).  No producer needed.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import hlorun
from tests.support.producer_fixtures import (
    FORMS,
    PRODUCERS,
    as_program_outputs,
    check_outputs,
    export_failures,
    load,
    manifest,
    program_fixtures,
)


def _params() -> list[Any]:
    return [
        pytest.param(producer, name, form, id=f"{producer}-{name}-{form}")
        for producer in PRODUCERS
        for name in program_fixtures(producer)
        for form in FORMS
    ]


@pytest.mark.parametrize(("producer", "name", "form"), _params())
def test_fixture_matches_eager_outputs(producer: str, name: str, form: str) -> None:
    paths, inputs, expected, entry = load(producer, name)
    got = hlorun.run(str(paths[form]), inputs)
    got = list(got) if isinstance(got, tuple | list) else [got]
    check_outputs(got, as_program_outputs(expected, entry), entry["check"], inputs)


# ----------------------------------------------------------------------------- manifests


@pytest.mark.parametrize("producer", PRODUCERS)
def test_manifest_records_versions_and_export_failures(producer: str) -> None:
    """Each manifest names its producer's versions; every fixture is exported or says
    why not, with the producer's error."""
    m = manifest(producer)
    assert m["producer"] == producer
    version_keys = {
        "tensorflow": ("tensorflow_version", "keras_version"),
        "torch_xla": ("torch_version", "torch_xla_version"),
        "torchax": ("torchax_version", "torch_version", "jax_version"),
    }[producer]
    for key in version_keys:
        assert m[key], key
    for name, entry in m["fixtures"].items():
        assert entry["status"] in ("ok", "export_failed", "export_wrong"), (name, entry)
    for name, error in export_failures(producer).items():
        assert ":" in error, (name, error)  # "ExceptionType: the producer's message"


@pytest.mark.parametrize("producer", PRODUCERS)
def test_fixtures_cover_model_families(producer: str) -> None:
    fixtures = manifest(producer)["fixtures"]
    families = {e["family"] for n, e in fixtures.items() if e["status"] == "ok"}
    assert {"cnn", "rnn", "transformer", "linalg"} <= families


# ----------------------------------------------------------------------------- the checks


def _qr() -> tuple[np.ndarray, list[np.ndarray]]:
    a = np.random.default_rng(0).standard_normal((5, 3)).astype(np.float32)
    q, r = np.linalg.qr(a)
    return a, [q, r]


def test_allclose_check_catches_an_element_off_by_more_than_the_tolerance() -> None:
    _, (q, _) = _qr()
    bad = q.copy()
    bad[2, 1] += 3e-4 * (np.abs(q).max() + abs(q[2, 1]))
    check_outputs([q], [q], {"kind": "allclose"}, [])
    with pytest.raises(AssertionError, match=r"1 of 15 elements off; worst at \(2, 1\)"):
        check_outputs([bad], [q], {"kind": "allclose"}, [])


def test_sign_check_allows_paired_column_signs_only() -> None:
    a, (q, r) = _qr()
    flip = np.array([1, -1, 1], np.float32)
    signs = {"kind": "signs", "groups": [[[0, -1], [1, -2]]]}
    check_outputs([q * flip, r * flip[:, None]], [q, r], signs, [a])
    with pytest.raises(AssertionError):  # Q's column flipped, R's row not
        check_outputs([q * flip, r], [q, r], signs, [a])
    with pytest.raises(AssertionError):  # no sign freedom in an allclose check
        check_outputs([q * flip, r * flip[:, None]], [q, r], {"kind": "allclose"}, [a])


def test_integers_compare_exactly_in_the_programs_width() -> None:
    exp = [np.array([[3, 2]], np.int64)]
    entry = {"program_outputs": [{"shape": [2], "dtype": "int32"}]}
    check_outputs(
        [np.array([3, 2], np.int32)], as_program_outputs(exp, entry), {"kind": "allclose"}, []
    )
    with pytest.raises(AssertionError):
        check_outputs(
            [np.array([3, 1], np.int32)], as_program_outputs(exp, entry), {"kind": "allclose"}, []
        )
