"""The hlorun command line: exit codes, diagnostics with original line numbers."""

from __future__ import annotations

import subprocess
import sys

import pytest

from hlorun.engine.cli import main

PASSING = """func.func @a() {
  %0 = stablehlo.constant dense<[1, 2]> : tensor<2xi32>
  check.expect_eq_const %0, dense<[1, 2]> : tensor<2xi32>
  func.return
}

// -----

func.func @b() {
  %0 = stablehlo.constant dense<7> : tensor<i32>
  check.expect_eq_const %0, dense<7> : tensor<i32>
  func.return
}
"""

FAILING_SECOND = PASSING.replace("dense<7> : tensor<i32>\n  func", "dense<8> : tensor<i32>\n  func")


def test_interpret_split_passes(tmp_path, capsys):
    f = tmp_path / "ok.mlir"
    f.write_text(PASSING)
    assert main(["interpret", "--split-input-file", str(f)]) == 0


def test_interpret_failure_reports_original_line(tmp_path, capsys):
    f = tmp_path / "bad.mlir"
    f.write_text(FAILING_SECOND)
    assert main(["interpret", "--split-input-file", str(f)]) == 1
    err = capsys.readouterr().err
    # the failing check is on line 11 of the whole file, in the second chunk
    assert f"{f}:11:3: error:" in err


def test_parse_error_shows_line_and_caret(tmp_path, capsys):
    f = tmp_path / "syntax.mlir"
    f.write_text("func.func @main() {\n  %0 = stablehlo.constant dense<[1, 2> : tensor<2xi32>\n}\n")
    assert main(["format", str(f)]) == 1
    err = capsys.readouterr().err
    assert f"{f}:2:" in err and "error:" in err and "^" in err
    assert "Traceback" not in err


def test_interpret_prints_results(tmp_path, capsys):
    f = tmp_path / "res.mlir"
    f.write_text("""func.func @main() -> tensor<2x2xi8> {
  %0 = stablehlo.constant dense<[[1, 2], [3, 4]]> : tensor<2x2xi8>
  func.return %0 : tensor<2x2xi8>
}
""")
    assert main(["interpret", str(f)]) == 0
    # the layout stablehlo-translate --interpret prints (tests/interpret/printing.mlir)
    assert capsys.readouterr().out == "tensor<2x2xi8> {\n  [\n    [1, 2],\n    [3, 4]\n  ]\n}\n"
    assert main(["interpret", "--interpreter-print-dense", str(f)]) == 0
    assert capsys.readouterr().out == "dense<[[1, 2], [3, 4]]> : tensor<2x2xi8>\n"


def test_args_flag(tmp_path, capsys):
    f = tmp_path / "args.mlir"
    f.write_text("""func.func @main(%a: tensor<2xi32>, %b: tensor<2xi32>) -> tensor<2xi32> {
  %0 = stablehlo.add %a, %b : tensor<2xi32>
  return %0 : tensor<2xi32>
}
""")
    assert (
        main(["interpret", "--args=[dense<1> : tensor<2xi32>, dense<2> : tensor<2xi32>]", str(f)])
        == 0
    )
    assert capsys.readouterr().out == "tensor<2xi32> {\n  [3, 3]\n}\n"
    assert main(["interpret", "--args=not_array", str(f)]) == 1


@pytest.mark.parametrize("sub", ["format", "verify", "interpret"])
def test_console_entry_point_runs(tmp_path, sub):
    f = tmp_path / "ok.mlir"
    f.write_text(PASSING)
    r = subprocess.run(
        [sys.executable, "-m", "hlorun.engine.cli", sub, "--split-input-file", str(f)],
        capture_output=True,
        text=True,
    )
    assert r.returncode == 0, r.stderr


def test_ops_prints_one_row_with_where_it_lives():
    from hlorun.engine.cli_ops import describe

    text = describe("gather")
    assert text.startswith("stablehlo.gather")
    assert "spec.md#gather" in text
    assert "slice_sizes: i64_array, required" in text
    assert "indices_are_sorted: bool, default False" in text
    assert "shape_inference/gather_scatter.py" in text and "engine/kernels/" in text


def test_ops_unknown_name_is_an_error():
    r = subprocess.run(
        [sys.executable, "-m", "hlorun.engine.cli", "ops", "no_such_op"],
        capture_output=True,
        text=True,
    )
    assert r.returncode == 1 and "no op 'no_such_op'" in r.stdout


def test_version_flag():
    import hlorun

    r = subprocess.run(
        [sys.executable, "-m", "hlorun.engine.cli", "--version"], capture_output=True, text=True
    )
    assert r.returncode == 0 and r.stdout.strip() == f"hlorun {hlorun.__version__}"
