"""What ``hlorun interpret`` prints, checked against the conformance files' own
FileCheck lines (printing.mlir, api_input_arguments.mlir)."""

from __future__ import annotations

import pytest

from hlorun.engine.cli import main
from tests.conftest import shared_dir
from tests.support.lit import filecheck


def _interpret(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(["interpret", *argv])
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.mark.conformance
@pytest.mark.parametrize("dense", [False, True], ids=["nested", "dense"])
def test_printing(capsys, dense):
    path = shared_dir("tests", "interpret") / "printing.mlir"
    flags = ["--split-input-file"] + (["--interpreter-print-dense"] if dense else [])
    code, out, err = _interpret(capsys, *flags, str(path))
    assert code == 0, err
    filecheck(path.read_text(), out, "CHECK-DENSE" if dense else "CHECK")


@pytest.mark.conformance
def test_api_input_arguments(capsys):
    path = shared_dir("tests", "interpret") / "api_input_arguments.mlir"
    source = path.read_text()
    code, out, err = _interpret(
        capsys, "--args=[dense<1> : tensor<2xi32>, dense<2> : tensor<2xi32>]", str(path)
    )
    assert code == 0, err
    filecheck(source, out)
    code, out, err = _interpret(capsys, "--args=not_array", str(path))
    assert code == 1
    assert "expected array attribute string for args" in err
    code, out, err = _interpret(capsys, "--args=[4.0 : f32]", str(path))
    assert code == 1
    filecheck(source, err, "CHECK-ERROR-NOT-DENSE")


def test_filecheck_can_fail():
    with pytest.raises(AssertionError):
        filecheck("// CHECK: a\n// CHECK-NEXT: c\n", "a\nb\nc\n")
    filecheck("// CHECK: a\n// CHECK-NEXT: b\n", "x\na\nb\n")
