"""``hlorun interpret`` with files in and out, full-precision printing, typed errors and
the profiler, run as a user runs them: a subprocess on real files."""

from __future__ import annotations

import contextlib
import io
import json
import re
import subprocess
import sys
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

from hlorun.engine.cli import main
from hlorun.engine.npz_io import ML_DTYPE_SUFFIX

ROOT = Path(__file__).resolve().parents[2]
JAX = ROOT / "tests" / "fixtures" / "jax"

# element type -> dtype: every type the files must carry bit for bit
TYPES = {
    "i1": np.bool_,
    "i8": np.int8,
    "ui16": np.uint16,
    "i32": np.int32,
    "i64": np.int64,
    "f16": np.float16,
    "f32": np.float32,
    "f64": np.float64,
    "bf16": ml_dtypes.bfloat16,
    "f8E4M3FN": ml_dtypes.float8_e4m3fn,
    "f8E5M2": ml_dtypes.float8_e5m2,
    "i4": ml_dtypes.int4,
    "complex<f32>": np.complex64,
}


def hlorun_process(*args: str) -> subprocess.CompletedProcess:
    """The CLI in a fresh process, as a user's shell runs it."""
    return subprocess.run(
        [sys.executable, "-m", "hlorun.engine.cli", *args],
        capture_output=True,
        text=True,
        timeout=300,
    )


def hlorun(*args: str) -> subprocess.CompletedProcess:
    """The CLI's ``main`` in this process (the console script's code path, without a
    second interpreter's start-up): exit status and what it printed."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        rc = main(list(args))
    return subprocess.CompletedProcess(list(args), rc, out.getvalue(), err.getvalue())


def identity_program(types: list[str], n: int) -> str:
    params = ", ".join(f"%a{i}: tensor<{n}x{t}>" for i, t in enumerate(types))
    results = ", ".join(f"tensor<{n}x{t}>" for t in types)
    values = ", ".join(f"%a{i}" for i in range(len(types)))
    return f"func.func @main({params}) -> ({results}) {{\n  func.return {values} : {results}\n}}\n"


def random_bits(dtype: np.dtype, n: int, rng: np.random.Generator) -> np.ndarray:
    """``n`` arbitrary bit patterns of ``dtype`` (NaN payloads, -0, subnormals...)."""
    dtype = np.dtype(dtype)
    if dtype == np.bool_:
        return rng.integers(0, 2, n).astype(np.bool_)
    if dtype.name in ("int4",):
        return rng.integers(-8, 8, n).astype(dtype)
    raw = rng.integers(0, 256, n * dtype.itemsize, dtype=np.uint8)
    return raw.view(dtype)


def test_every_element_type_round_trips_bit_for_bit_through_npz(tmp_path: Path):
    rng = np.random.default_rng(20)
    types = list(TYPES)
    arrays = [random_bits(TYPES[t], 16, rng) for t in types]
    arrays[types.index("f32")][:3] = np.array([0x7FC00001, 0x80000000, 1], np.uint32).view(
        np.float32
    )  # a NaN payload, -0, the smallest subnormal
    prog = tmp_path / "identity.mlir"
    prog.write_text(identity_program(types, 16))
    # the documented key convention: ml_dtypes arrays as the unsigned view, arr_i.<type>
    stored = {}
    for i, a in enumerate(arrays):
        suffix = ML_DTYPE_SUFFIX.get(a.dtype.name)
        key = f"arr_{i}" if suffix is None else f"arr_{i}.{suffix}"
        stored[key] = a if suffix is None else a.view(f"uint{8 * a.dtype.itemsize}")
    np.savez(tmp_path / "in.npz", **stored)
    out = tmp_path / "out.npz"
    r = hlorun_process(
        "interpret", str(prog), "--inputs", str(tmp_path / "in.npz"), "--outputs", str(out)
    )
    assert r.returncode == 0, r.stderr
    with np.load(out, allow_pickle=False) as z:
        assert sorted(z.files) == sorted(stored)
        for key, want in stored.items():
            got = z[key]
            assert got.dtype == want.dtype and got.shape == want.shape
            assert got.tobytes() == want.tobytes(), key


def test_one_npy_per_parameter(tmp_path: Path):
    prog = tmp_path / "add.mlir"
    prog.write_text(
        "func.func @main(%x: tensor<3xf32>, %y: tensor<3xbf16>) -> tensor<3xf32> {\n"
        "  %0 = stablehlo.convert %y : (tensor<3xbf16>) -> tensor<3xf32>\n"
        "  %1 = stablehlo.add %x, %0 : tensor<3xf32>\n"
        "  func.return %1 : tensor<3xf32>\n}\n"
    )
    x = np.array([0.1, 0.2, 0.3], np.float32)
    y = np.array([1, 2, 3], ml_dtypes.bfloat16)
    np.save(tmp_path / "x.npy", x)
    np.save(tmp_path / "y.bf16.npy", y.view(np.uint16))  # the type in the name
    out = tmp_path / "out.npz"
    r = hlorun(
        "interpret",
        str(prog),
        "--inputs",
        str(tmp_path / "x.npy"),
        str(tmp_path / "y.bf16.npy"),
        "--outputs",
        str(out),
    )
    assert r.returncode == 0, r.stderr
    with np.load(out) as z:
        np.testing.assert_array_equal(z["arr_0"], x + y.astype(np.float32))


def test_inputs_are_checked_against_the_entry_types(tmp_path: Path):
    prog = tmp_path / "f.mlir"
    prog.write_text(identity_program(["f32"], 3))
    np.save(tmp_path / "wrong_dtype.npy", np.zeros(3, np.float64))
    np.save(tmp_path / "wrong_shape.npy", np.zeros(4, np.float32))
    r = hlorun("interpret", str(prog), "--inputs", str(tmp_path / "wrong_dtype.npy"))
    assert r.returncode == 1
    assert re.search(r"f\.mlir:1:1: error: argument #0 of @main has dtype float64", r.stderr)
    r = hlorun("interpret", str(prog), "--inputs", str(tmp_path / "wrong_shape.npy"))
    assert r.returncode == 1 and "has shape (4,), expected 3" in r.stderr
    np.savez(tmp_path / "two.npz", np.zeros(3, np.float32), np.zeros(3, np.float32))
    r = hlorun("interpret", str(prog), "--inputs", str(tmp_path / "two.npz"))
    assert r.returncode == 1 and "takes 1 arguments, got 2" in r.stderr


def test_print_precision_full_reads_back_to_the_same_bits(tmp_path: Path):
    rng = np.random.default_rng(3)
    types = ["f32", "f64", "bf16", "f16"]
    arrays = [random_bits(TYPES[t], 64, rng) for t in types]
    prog = tmp_path / "id.mlir"
    prog.write_text(identity_program(types, 64))
    np.savez(
        tmp_path / "in.npz",
        **{
            f"arr_{i}"
            + (f".{ML_DTYPE_SUFFIX[a.dtype.name]}" if a.dtype.name in ML_DTYPE_SUFFIX else ""): (
                a.view(f"uint{8 * a.dtype.itemsize}") if a.dtype.name in ML_DTYPE_SUFFIX else a
            )
            for i, a in enumerate(arrays)
        },
    )
    r = hlorun(
        "interpret", str(prog), "--inputs", str(tmp_path / "in.npz"), "--print-precision=full"
    )
    assert r.returncode == 0, r.stderr
    blocks = re.findall(r"\{\s*\[(.*?)\]\s*\}", r.stdout, re.S)
    assert len(blocks) == len(types)
    for a, block in zip(arrays, blocks):
        u = f"uint{8 * a.dtype.itemsize}"
        for want, text in zip(a.reshape(-1), block.split(",")):
            text = text.strip()
            if text.startswith("0x"):  # a NaN: its bit pattern
                got_bits = int(text, 16)
            else:  # decimal -> f64 -> the type (exact for types narrower than f64)
                got_bits = int(np.asarray(float(text)).astype(a.dtype).reshape(1).view(u)[0])
            assert got_bits == int(np.asarray(want).reshape(1).view(u)[0]), text
    # the shortest such decimal: f32 0.1 prints as 1e-01 (not 1.000000e-01)
    tenth = tmp_path / "tenth.mlir"
    tenth.write_text(
        "func.func @main() -> tensor<2xf32> {\n"
        "  %0 = stablehlo.constant dense<[0.1, 0.3]> : tensor<2xf32>\n"
        "  func.return %0 : tensor<2xf32>\n}\n"
    )
    r = hlorun("interpret", str(tenth), "--print-precision=full")
    assert "[1e-01, 3e-01]" in r.stdout, r.stdout
    r = hlorun("interpret", str(tenth))
    assert "[1.000000e-01, 3.000000e-01]" in r.stdout, r.stdout


def test_empty_and_missing_files_exit_1(tmp_path: Path):
    empty = tmp_path / "empty.mlir"
    empty.write_text("")
    r = hlorun("interpret", str(empty))
    assert r.returncode == 1
    assert f"{empty}:1:1: error: no function to run" in r.stderr
    only_module = tmp_path / "nofunc.mlir"
    only_module.write_text("module {\n}\n")
    r = hlorun("interpret", str(only_module))
    assert r.returncode == 1 and "no function to run" in r.stderr
    r = hlorun("interpret", str(tmp_path / "missing.mlir"))
    assert r.returncode == 1
    assert "error: no such file" in r.stderr and "Traceback" not in r.stderr


def test_profile_trace_and_top(tmp_path: Path):
    trace = tmp_path / "trace.json"
    r = hlorun(
        "interpret",
        str(JAX / "mlp.mlir"),
        "--inputs",
        str(JAX / "mlp.inputs.npz"),
        "--profile",
        "--profile-top",
        "30",
        "--profile-trace",
        str(trace),
    )
    assert r.returncode == 0, r.stderr
    assert "incl ms" in r.stderr  # the per-kind table stays
    # every op of the top list (the calls are inlined: their ops are listed, not them)
    top = r.stderr.split("calls  op  location\n")[1].strip().splitlines()[:3]
    assert all(re.search(r"mlp\.mlir:\d+:\d+", line) for line in top), top
    assert re.search(r"mlp\.mlir:\d+:\d+ from: cases\.py:\d+", r.stderr)
    events = json.loads(trace.read_text())["traceEvents"]
    names = {e["name"] for e in events}
    assert {"stablehlo.dot_general", "func.call"} <= names or "stablehlo.dot_general" in names
    for e in events:
        assert e["ph"] == "X" and e["dur"] >= 0 and e["ts"] >= 0
    dots = [e for e in events if e["name"] == "stablehlo.dot_general"]
    assert len(dots) == 2  # the MLP's two layers
    assert all(e["args"]["location"].startswith(str(JAX / "mlp.mlir")) for e in dots)
    assert all(e["args"]["source"].startswith("cases.py:") for e in dots)


def test_exported_model_output_matches_jax(tmp_path: Path):
    """A real jax.export model through files in and out; the reference is jax's own
    output, stored beside the fixture."""
    out = tmp_path / "out.npz"
    r = hlorun_process(
        "interpret",
        "--exported",
        str(JAX / "mlp.exported"),
        "--inputs",
        str(JAX / "mlp.inputs.npz"),
        "--outputs",
        str(out),
        "--print-precision=full",
    )
    assert r.returncode == 0, r.stderr
    with np.load(out) as got, np.load(JAX / "mlp.outputs.npz") as want:
        np.testing.assert_allclose(got["arr_0"], want["arr_0"], rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("suffix", [".mlir"])
def test_runtime_error_names_the_user_source_line(tmp_path: Path, suffix: str):
    """An op of an exported model that fails says where in the user's Python it came
    from (the innermost file location of its loc(...))."""
    r = hlorun(
        "interpret",
        str(JAX / f"mlp{suffix}"),
        "--inputs",
        str(JAX / "mlp.inputs.npz"),
        "--max-steps",
        "1",
    )
    assert r.returncode == 1
    assert "step limit" in r.stderr
    assert re.search(r"from: cases\.py:\d+", r.stderr), r.stderr
    if suffix == ".mlir":
        assert re.search(r"mlp\.mlir:\d+:\d+: error:", r.stderr), r.stderr
