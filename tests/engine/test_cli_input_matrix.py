"""Every sub-command on every kind of input a user hands it (issue 31): random bytes,
truncated bytecode, an empty file, a typo, a jax.export container, latin-1 text, a
folder, a missing path, jax's portable artifact, a good file; and the fuzz campaign's
mutants of bytecode and container bytes.  No run shows a Python traceback; an error
exits 1 with one located line on stderr (``hlorun test`` on a folder of no test: 5,
as pytest).  In-process (``cli.main``) for the matrix, a subprocess for a few."""

from __future__ import annotations

import argparse
import random
import subprocess
import sys
from pathlib import Path

import pytest

from hlorun.engine.cli import main
from tests.fuzz import harness

JAX = Path(__file__).resolve().parents[1] / "fixtures" / "jax"

# Each sub-command's arguments before FILE ({tmp}: the test's folder, {good}: a good
# program).  ``ops`` takes an op name, not a program.  ``diff`` (when present) compares
# a good program with FILE and, as diff(1), exits 2 on trouble.
NOT_A_PROGRAM = {"ops"}
ERROR_STATUS = {"diff": 2}
COMMANDS = {
    "format": ["format"],
    "verify": ["verify"],
    "fold": ["fold"],
    "interpret": ["interpret"],
    "test": ["test", "-j", "1"],
    "deserialize": ["deserialize"],
    "serialize": ["serialize", "--target", "current", "-o", "{tmp}/out.mlirbc"],
    "vhlo": ["vhlo"],
    "compat": ["compat", "--target", "current"],
    "diff": ["diff", "{good}"],
}
GOOD = (
    "func.func @main() -> tensor<i32> {\n"
    "  %0 = stablehlo.constant dense<1> : tensor<i32>\n"
    "  return %0 : tensor<i32>\n}\n"
)


def _inputs(tmp: Path) -> dict[str, Path]:
    """The ten inputs, written under ``tmp``."""
    art = (JAX / "mlp.mlirbc").read_bytes()
    files = {
        "random": random.Random(31).randbytes(300),
        "truncated": art[:200],
        "empty": b"",
        "typo": GOOD.replace("constant", "constnt").encode(),
        "exported": (JAX / "mlp.exported").read_bytes(),
        "latin1": GOOD.replace("{\n", "{ // caf\xe9\n", 1).encode("latin-1"),
        "artifact": art,
        "good": GOOD.encode(),
    }
    out = {}
    for name, data in files.items():
        path = tmp / f"{name}.mlir"
        path.write_bytes(data)
        out[name] = path
    (tmp / "folder").mkdir()
    out["folder"] = tmp / "folder"
    out["missing"] = tmp / "missing.mlir"
    return out


# (command, input) -> the exit status; the rest: 1 for a bad input, 0 for a good one.
OK_INPUTS = {"good", "artifact", "exported", "empty"}
STATUS = {
    ("interpret", "empty"): 1,  # no function to run
    ("interpret", "artifact"): 1,  # mlp's @main takes arguments: none given
    ("interpret", "exported"): 1,
    ("test", "artifact"): 1,
    ("test", "exported"): 1,
    ("test", "empty"): 5,  # no test selected (pytest's status)
    ("test", "folder"): 5,
}


def _run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    try:
        rc = main(argv)
    except SystemExit as e:  # argparse
        rc = int(e.code or 0)
    out = capsys.readouterr()
    return rc, out.out, out.err


def _sub_commands() -> list[str]:
    from hlorun.engine.cli import build_parser

    parser = build_parser()
    (sub,) = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    return list(sub.choices)


def test_the_matrix_covers_every_sub_command():
    missing = set(_sub_commands()) - set(COMMANDS) - NOT_A_PROGRAM
    assert not missing, f"add {sorted(missing)} to COMMANDS: every sub-command runs the matrix"


@pytest.mark.parametrize("command", [c for c in COMMANDS if c in _sub_commands()])
def test_every_command_on_every_input(command: str, tmp_path: Path, capsys):
    inputs = _inputs(tmp_path)
    for name, path in inputs.items():
        argv = [a.format(tmp=tmp_path, good=inputs["good"]) for a in COMMANDS[command]]
        argv.append(str(path))
        rc, _out, err = _run(argv, capsys)
        want = STATUS.get((command, name), 0 if name in OK_INPUTS else 1)
        if command in ERROR_STATUS:
            want = ERROR_STATUS[command] if want == 1 else None
        if want is not None:  # (diff: a good input may differ, 0 or 1)
            assert rc == want, f"hlorun {' '.join(argv)}: exit {rc}, expected {want}\n{err}"
        assert "Traceback" not in err, err
        if rc == ERROR_STATUS.get(command, 1) and name not in OK_INPUTS and command != "test":
            first = err.strip().splitlines()[0]
            assert "error:" in first, f"{name}: {err}"
            assert str(path) in err or path.name in err, f"{name}: the file is not named: {err}"


def test_refusals_name_the_file_offset_and_what_was_expected(tmp_path: Path, capsys):
    inputs = _inputs(tmp_path)
    for command in ("format", "deserialize", "serialize", "vhlo", "compat", "interpret"):
        argv = [a.format(tmp=tmp_path) for a in COMMANDS[command]]
        rc, _, err = _run([*argv, str(inputs["latin1"])], capsys)
        assert rc == 1
        assert f"{inputs['latin1']}:offset 0x" in err and "UTF-8" in err, err
        rc, _, err = _run([*argv, str(inputs["folder"])], capsys)
        assert rc == 1 and "is a folder" in err, err
        rc, _, err = _run([*argv, str(inputs["missing"])], capsys)
        assert rc == 1 and f"no such file: {inputs['missing']}" in err, err


def test_the_exported_container_is_read_by_every_command(tmp_path: Path, capsys):
    """An Exported container is its portable artifact to format, deserialize,
    serialize, vhlo and compat (before: a UnicodeDecodeError traceback)."""
    exported = str(JAX / "mlp.exported")
    rc, out, err = _run(["deserialize", exported], capsys)
    assert rc == 0, err
    assert "stablehlo.dot_general" in out
    rc, out, err = _run(["vhlo", exported], capsys)
    assert rc == 0 and "vhlo.func_v1" in out, err
    rc, out, err = _run(["compat", exported, "--target", "current"], capsys)
    assert rc == 0 and "can be served" in out, err
    rc, _, err = _run(
        ["serialize", exported, "--target", "1.0.0", "-o", str(tmp_path / "o")], capsys
    )
    assert rc == 0, err
    rc, out, err = _run(["interpret", exported, "--inputs", str(JAX / "mlp.inputs.npz")], capsys)
    assert rc == 0 and "tensor<" in out, err


def _mutant_files(tmp: Path, n: int) -> list[Path]:
    """``n`` mutants of bytecode and of an Exported container from the fuzz campaign's
    generator (tests/fuzz/harness.py ``mutants``), as files."""
    corpus: list[str | bytes] = [
        (JAX / "mlp.mlirbc").read_bytes(),
        (JAX / "mlp.exported").read_bytes(),
    ]
    stream = harness.mutants(31, corpus)
    out = []
    for i in range(n):
        prog = next(stream)
        data = prog if isinstance(prog, bytes) else prog.encode("utf-8", "surrogatepass")
        path = tmp / f"mutant{i}.mlir"
        path.write_bytes(data)
        out.append(path)
    return out


def test_fuzzed_bytecode_and_containers_never_show_a_traceback(tmp_path: Path, capsys):
    for path in _mutant_files(tmp_path, 12):
        for command in ("format", "verify", "deserialize", "vhlo", "compat", "interpret"):
            argv = [a.format(tmp=tmp_path) for a in COMMANDS[command]] + [str(path)]
            rc, _, err = _run(argv, capsys)
            assert rc in (0, 1), f"hlorun {' '.join(argv)}: exit {rc}\n{err}"
            assert "Traceback" not in err and "internal error" not in err, err


@pytest.mark.parametrize("command", ["deserialize", "vhlo", "compat"])
def test_the_console_script_on_random_bytes(command: str, tmp_path: Path):
    """As a user runs it: a process, exit 1, one line, no traceback."""
    inputs = _inputs(tmp_path)
    argv = [a.format(tmp=tmp_path) for a in COMMANDS[command]]
    r = subprocess.run(
        [sys.executable, "-m", "hlorun.engine.cli", *argv, str(inputs["random"])],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert r.returncode == 1, r.stderr
    assert "Traceback" not in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1, r.stderr


@pytest.mark.parametrize(
    ("command", "source", "expect"),
    [
        (["deserialize", "-"], JAX / "mlp.mlirbc", "stablehlo.dot_general"),
        (["vhlo", "-"], JAX / "mlp.mlir", "vhlo.func_v1"),
        (["deserialize", "-"], JAX / "mlp.exported", "stablehlo.dot_general"),
    ],
)
def test_standard_input_is_read_as_a_file_is(command: list[str], source: Path, expect: str):
    r = subprocess.run(
        [sys.executable, "-m", "hlorun.engine.cli", *command],
        input=source.read_bytes(),
        capture_output=True,
        timeout=120,
    )
    assert r.returncode == 0, r.stderr.decode()
    assert expect in r.stdout.decode()
