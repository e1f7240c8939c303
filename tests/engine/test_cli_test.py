"""``hlorun test PATH...`` as a user runs it: a subprocess over real folders of tests."""

from __future__ import annotations

import contextlib
import io
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from hlorun.engine.cli import main

ROOT = Path(__file__).resolve().parents[2]
SHARED_INTERPRET = ROOT.parent / "shared" / "stablehlo" / "tests" / "interpret"
JAX = ROOT / "tests" / "fixtures" / "jax"

PASSING = """// RUN: stablehlo-translate --interpret -split-input-file %s

func.func @add() {
  %0 = stablehlo.constant dense<[1, 2]> : tensor<2xi32>
  %1 = stablehlo.add %0, %0 : tensor<2xi32>
  check.expect_eq_const %1, dense<[2, 4]> : tensor<2xi32>
  func.return
}

// -----

func.func @rejected(%a: tensor<2xf32>) -> tensor<3xf32> {
  // expected-error@+1 {{}}
  %0 = stablehlo.add %a, %a : (tensor<2xf32>, tensor<2xf32>) -> tensor<3xf32>
  func.return %0 : tensor<3xf32>
}

// -----

func.func @runs_without_checks() -> tensor<2xf32> {
  %0 = stablehlo.constant dense<[1.0, 2.0]> : tensor<2xf32>
  func.return %0 : tensor<2xf32>
}
"""

FAILING = """func.func @wrong_sum() {
  %0 = stablehlo.constant dense<[1, 2]> : tensor<2xi32>
  %1 = stablehlo.add %0, %0 : tensor<2xi32>
  check.expect_eq_const %1, dense<[2, 5]> : tensor<2xi32>
  func.return
}

// -----

func.func @accepted_but_annotated() {
  // expected-error@+1 {{never reported}}
  %0 = stablehlo.constant dense<1> : tensor<i32>
  func.return
}

// -----

func.func @bad_syntax() {
  %0 = stablehlo.frobnicate : tensor<i32>
  func.return
}
"""

ARGS = """// RUN: stablehlo-translate %s --interpret --args="[dense<1> : tensor<2xi32>, dense<2> : tensor<2xi32>]"

func.func @main(%a: tensor<2xi32>, %b: tensor<2xi32>) {
  %0 = stablehlo.add %a, %b : tensor<2xi32>
  check.expect_eq_const %0, dense<3> : tensor<2xi32>
  func.return
}
"""


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


@pytest.fixture
def suite(tmp_path: Path) -> Path:
    good = tmp_path / "suite" / "good"
    good.mkdir(parents=True)
    (good / "ops.mlir").write_text(PASSING)
    (good / "args.mlir").write_text(ARGS)
    shutil.copy(JAX / "mlp.mlirbc", good / "mlp.mlirbc")  # a real jax.export artifact
    (good / "notes.txt").write_text("not a test")
    return tmp_path / "suite"


def test_passing_folder_exits_0_and_counts_every_split(suite: Path, tmp_path: Path):
    # mlp.mlirbc's main takes arguments and no RUN line gives them: it is an error, so
    # the bytecode file is left out here and run on its own below
    (suite / "good" / "mlp.mlirbc").unlink()
    xml = tmp_path / "report.xml"
    r = hlorun("test", str(suite), "-j", "2", "--junit-xml", str(xml))
    assert r.returncode == 0, r.stdout + r.stderr
    assert "4 passed, 0 failed, 0 errors in 2 files" in r.stdout
    assert "slowest files:" in r.stdout
    assert "4/4" not in r.stderr  # progress counts files, not tests
    assert "2/2 files" in r.stderr
    root = ET.parse(xml).getroot()
    (s,) = root.findall("testsuite")
    assert (s.get("tests"), s.get("failures"), s.get("errors")) == ("4", "0", "0")
    names = {c.get("name") for c in s.iter("testcase")}
    assert "@rejected (line 11)" in names and "@main (line 1)" in names


def test_bytecode_file_is_one_test(suite: Path):
    r = hlorun("test", str(suite / "good" / "mlp.mlirbc"))
    # @main takes 5 arguments and nothing gives them: the test errors, naming why
    assert r.returncode == 1
    assert "0 passed, 0 failed, 1 errors" in r.stdout
    assert "takes 5 arguments" in r.stdout


def test_failures_exit_1_with_each_kind_reported(suite: Path, tmp_path: Path):
    bad = suite / "bad.mlir"
    bad.write_text(FAILING)
    xml = tmp_path / "report.xml"
    r = hlorun_process("test", str(bad), str(suite / "good" / "ops.mlir"), "--junit-xml", str(xml))
    assert r.returncode == 1
    out = r.stdout
    assert "3 passed, 2 failed, 1 errors in 2 files" in out
    assert f"FAILED {bad}:1::@wrong_sum" in out
    assert "check.expect_eq_const" in out
    assert f"FAILED {bad}:9::@accepted_but_annotated: expected an error at {bad}:12" in out
    assert f"ERROR {bad}:17::@bad_syntax" in out
    suite_el = ET.parse(xml).getroot().find("testsuite")
    assert suite_el is not None
    assert (suite_el.get("failures"), suite_el.get("errors")) == ("2", "1")
    assert len(suite_el.findall("testcase/failure")) == 2


def test_k_selects_by_id(suite: Path):
    (suite / "bad.mlir").write_text(FAILING)
    r = hlorun("test", str(suite), "-k", "@add", "-j", "1")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "1 passed, 0 failed, 0 errors in 1 files" in r.stdout
    r = hlorun("test", str(suite), "-k", "no-such-test")
    assert r.returncode == 5
    assert "no tests ran" in r.stderr


def test_missing_path_is_an_error(tmp_path: Path):
    r = hlorun("test", str(tmp_path / "nowhere.mlir"))
    assert r.returncode == 1
    assert "no such file" in r.stderr


@pytest.mark.conformance
def test_shared_interpret_suite():
    """The official interpreter tests: every split passes but those needing what the
    runner does not model (RUN lines expecting failure)."""
    if not SHARED_INTERPRET.is_dir():
        pytest.skip(f"{SHARED_INTERPRET} is absent (the shared StableHLO checkout)")
    r = hlorun("test", str(SHARED_INTERPRET), "-j", "2")
    tail = r.stdout.strip().splitlines()[-1]
    passed = int(tail.split(" passed")[0])
    assert passed >= 480, r.stdout[-3000:]
    assert ", 0 failed," in tail, r.stdout[-3000:]


def test_progress_bar_on_a_terminal():
    from hlorun.engine.cli_test import Progress
    from hlorun.engine.test_runner import FileReport, Outcome

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    out = Terminal()
    bar = Progress(2, out)
    bar.update(FileReport("a.mlir", (Outcome("a.mlir", 1, "@a", "passed"),), 0.1))
    bar.update(FileReport("b.mlir", (Outcome("b.mlir", 1, "@b", "failed", "x"),), 0.1))
    text = out.getvalue()
    assert text.startswith("\r[###############---------------] 1/2 files  1 passed")
    assert text.endswith("2/2 files  1 passed, 1 failed, 0 errors\n")
