"""``hlorun interpret`` options on jax exports (issue 31 items 3, 5, 8): the profile
flags with ``--exported``, platforms of multi- and single-platform exports (CLI and
Python), ``--outputs`` (not printed; ``.npy``), raw-byte arrays in ``--inputs``."""

from __future__ import annotations

import json
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

from hlorun.engine import load_exported
from hlorun.engine.cli import main
from hlorun.parser.errors import HloError
from tests.support.jax_fixtures import load_fixture

JAX = Path(__file__).resolve().parents[1] / "fixtures" / "jax"
MLP = [
    "interpret",
    "--exported",
    str(JAX / "mlp.exported"),
    "--inputs",
    str(JAX / "mlp.inputs.npz"),
]


def _run(argv: list[str], capsys) -> tuple[int, str, str]:
    rc = main(argv)
    out = capsys.readouterr()
    return rc, out.out, out.err


def test_profile_flags_work_with_exported(tmp_path: Path, capsys):
    trace = tmp_path / "trace.json"
    rc, _, err = _run(
        MLP + ["--profile", "--profile-top", "3", "--profile-trace", str(trace)], capsys
    )
    assert rc == 0, err
    assert "incl ms" in err  # the per-kind table
    assert "calls  op  location" in err  # the top ops
    events = json.loads(trace.read_text())["traceEvents"]
    assert any(e["name"] == "stablehlo.dot_general" for e in events)


def test_platform_of_a_multi_platform_mlir(capsys):
    """The module does not list its platforms: --platforms names them."""
    mlir = str(JAX / "multi_platform.mlir")
    inputs = str(JAX / "multi_platform.inputs.npz")
    rc, out, err = _run(
        ["interpret", mlir, "--inputs", inputs, "--platform", "tpu", "--platforms", "cpu,cuda,tpu"],
        capsys,
    )
    assert rc == 0, err
    assert "tensor<4xf32>" in out
    rc, out2, err = _run(["interpret", mlir, "--inputs", inputs, "--platform", "2"], capsys)
    assert rc == 0 and out2 == out, err
    rc, _, err = _run(["interpret", mlir, "--inputs", inputs, "--platform", "tpu"], capsys)
    assert rc == 1 and "--platforms" in err, err


def test_unknown_platform_of_a_single_platform_export_is_refused(capsys):
    rc, _, err = _run(MLP + ["--platform", "rocm"], capsys)
    assert rc == 1
    assert "platform 'rocm' is not one the module was exported for (cpu)" in err


def test_exported_call_takes_platform():
    _, _, exported, inputs, outputs, _ = load_fixture("multi_platform")
    program = load_exported(exported)
    for platform in ("tpu", "cuda", "cpu"):
        (got,) = [program(*inputs, platform=platform)]
        np.testing.assert_allclose(got, outputs[0], rtol=1e-5, atol=1e-6)
    with pytest.raises(HloError, match="not one the module was exported for"):
        program(*inputs, platform="rocm")


def test_outputs_are_written_not_printed(tmp_path: Path, capsys):
    src = tmp_path / "big.mlir"
    src.write_text(
        "func.func @main() -> tensor<100000xf32> {\n"
        "  %0 = stablehlo.iota dim = 0 : tensor<100000xf32>\n"
        "  return %0 : tensor<100000xf32>\n}\n"
    )
    out = tmp_path / "x.npy"
    rc, printed, err = _run(["interpret", str(src), "--outputs", str(out)], capsys)
    assert rc == 0, err
    assert len(printed) < 200, printed[:200]
    got = np.load(out)  # a real .npy, not an npz under that name
    assert got.shape == (100000,) and got[-1] == 99999


def test_npy_outputs_of_ml_dtypes_and_several_results(tmp_path: Path, capsys):
    src = tmp_path / "bf.mlir"
    src.write_text(
        "func.func @main() -> (tensor<2xbf16>, tensor<2xbf16>) {\n"
        "  %0 = stablehlo.constant dense<[1.5, 2.0]> : tensor<2xbf16>\n"
        "  return %0, %0 : tensor<2xbf16>, tensor<2xbf16>\n}\n"
    )
    rc, _, err = _run(["interpret", str(src), "--outputs", str(tmp_path / "y.npy")], capsys)
    assert rc == 1 and "holds one array and there are 2 results" in err, err


def test_raw_bytes_from_plain_savez_name_the_bf16_convention(tmp_path: Path, capsys):
    src = tmp_path / "id.mlir"
    src.write_text(
        "func.func @main(%x: tensor<2xbf16>) -> tensor<2xbf16> {\n  return %x : tensor<2xbf16>\n}\n"
    )
    npz = tmp_path / "in.npz"
    np.savez(npz, np.array([1, 2], ml_dtypes.bfloat16))  # NumPy stores |V2
    with np.load(npz) as z:
        assert z["arr_0"].dtype.kind == "V"
    rc, _, err = _run(["interpret", str(src), "--inputs", str(npz)], capsys)
    assert rc == 1
    assert "raw bytes" in err and "arr_0.bf16" in err and "x.bf16.npy" in err, err
