"""MLIR's whole ``--verify-diagnostics`` syntax (mlir/lib/IR/Diagnostics.cpp) in
``hlorun verify --verify-diagnostics`` and ``hlorun test`` (issue 31 item 7, Build 4):
``expected-(error|warning|note|remark)``, ``-re`` with ``{{regex}}`` sections,
``@+N``, ``@-N``, ``@above``, ``@below``, ``@unknown``; and ``hlorun test``'s counts
with an empty file."""

from __future__ import annotations

from pathlib import Path

from hlorun.engine.cli import main
from hlorun.engine.test_runner import Options, run_all, summary_text
from hlorun.parser.verify_diagnostics import Diagnostic, check, expected_diagnostics

BAD_ADD = "  %0 = stablehlo.add %a, %b : (tensor<2xf32>, tensor<3xf32>) -> tensor<2xf32>"
FUNC = "func.func @f(%a: tensor<2xf32>, %b: tensor<3xf32>) -> tensor<2xf32> {{\n{body}\n  func.return %0 : tensor<2xf32>\n}}\n"


def test_designators_and_their_lines():
    text = "\n".join(
        [
            "a",  # 1
            "// expected-error @+2 {{two below}}",  # 2 -> 4
            "// expected-warning@-1 {{one above}}",  # 3 -> 2
            "b",  # 4
            "// expected-note @above {{the plain line above}}",  # 5 -> 4
            "// expected-remark @below {{the next plain line}}",  # 6 -> 8
            "// expected-error @below {{also}}",  # 7 -> 8
            "c",  # 8
            "// expected-error-re @unknown {{no {{[0-9]+}} place}}",  # 9 -> None
            "d // expected-error {{same line}}",  # 10
            "// expected-error @below {{dangling}}",  # 11 -> 11 (the file's end)
        ]
    )
    got = [(e.severity, e.line, e.message) for e in expected_diagnostics(text)]
    assert got == [
        ("error", 4, "two below"),
        ("warning", 2, "one above"),
        ("note", 4, "the plain line above"),
        ("remark", 8, "the next plain line"),
        ("error", 8, "also"),
        ("error", None, "no {{[0-9]+}} place"),
        ("error", 10, "same line"),
        ("error", 11, "dangling"),
    ]


def test_regex_sections_and_plain_substrings():
    (e,) = expected_diagnostics("// expected-error-re {{op {{[a-z]+}} shapes (2)}}")
    assert e.matches("'stablehlo.add' op requires shapes (2) here")
    assert not e.matches("op Requires shapes (2)")  # [a-z]+ then a literal ' shapes (2)'
    (p,) = expected_diagnostics("// expected-error {{shapes (2)}}")
    assert p.regex is None and p.matches("x shapes (2) y") and not p.matches("shapes 2")
    (bad,) = expected_diagnostics("// expected-error-re {{a {{[unclosed}} b}}")
    assert bad.error.startswith("invalid regex")


def test_check_reports_as_mlir_words_it():
    expected = expected_diagnostics("x\n// expected-error @-1 {{boom}}\n")
    assert check(expected, [Diagnostic(1, "it went boom")], "f.mlir") == []
    problems = check(expected_diagnostics("x\n// expected-error @-1 {{boom}}\n"), [], "f.mlir")
    assert problems == ['f.mlir:2: error: expected error "boom" was not produced']
    problems = check(
        expected_diagnostics("x // expected-warning {{boom}}\n"), [Diagnostic(1, "boom")], "f"
    )
    assert problems[0] == "f:1: error: 'error' diagnostic emitted when expecting a 'warning'"
    problems = check([], [Diagnostic(3, "surprise")], "f")
    assert problems == ["f:3: error: unexpected error: surprise"]
    unknown = expected_diagnostics("// expected-error @unknown {{nowhere}}\n")
    assert check(unknown, [Diagnostic(None, "from nowhere")], "f") == []


def _write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def test_verify_verify_diagnostics(tmp_path: Path, capsys):
    good = _write(
        tmp_path,
        "re.mlir",
        "// expected-error-re @+2 {{'stablehlo.add' op requires compatible shapes, got {{.*}}}}\n"
        + FUNC.format(body=BAD_ADD),
    )
    assert main(["verify", "--verify-diagnostics", str(good)]) == 0, capsys.readouterr().err
    wrong = _write(
        tmp_path,
        "wrong.mlir",
        "// expected-error @+2 {{nothing like it}}\n" + FUNC.format(body=BAD_ADD),
    )
    assert main(["verify", "--verify-diagnostics", str(wrong)]) == 1
    err = capsys.readouterr().err
    assert 'expected error "nothing like it" was not produced' in err
    assert "unexpected error: 'stablehlo.add' op requires compatible shapes" in err


def test_hlorun_test_understands_every_form(tmp_path: Path):
    folder = tmp_path / "suite"
    folder.mkdir()
    forms = {
        "re.mlir": "// expected-error-re @+2 {{{{.*}}compatible{{.*}}}}\n"
        + FUNC.format(body=BAD_ADD),
        "above.mlir": FUNC.format(body=BAD_ADD + "\n  // expected-error @above {{compatible}}"),
        "below.mlir": FUNC.format(body="  // expected-error @below {{compatible}}\n" + BAD_ADD),
        "wrong_line.mlir": "// expected-error @+1 {{compatible}}\n" + FUNC.format(body=BAD_ADD),
        "minus.mlir": FUNC.format(body=BAD_ADD + "\n  // expected-error @-1 {{compatible}}"),
    }
    for name, text in forms.items():
        _write(folder, name, text)
    _write(folder, "empty.mlir", "")
    summary = run_all(sorted(str(p) for p in folder.iterdir()), Options(), 1)
    statuses = {Path(o.path).name: o.status for o in summary.outcomes}
    assert statuses["re.mlir"] == "passed", summary_text(summary)
    assert statuses["above.mlir"] == "passed", summary_text(summary)
    assert statuses["minus.mlir"] == "passed", summary_text(summary)
    assert statuses["below.mlir"] == "passed", summary_text(summary)
    # @+1 points at the func line, where no error is reported
    assert statuses["wrong_line.mlir"] == "failed", summary_text(summary)
    text = summary_text(summary)
    assert "in 5 files (1 more with no test selected)" in text, text


def test_a_verifier_file_is_checked_not_run(tmp_path: Path):
    """A file whose RUN lines only run stablehlo-opt (stablehlo/tests/verifier's): a
    chunk passes when it verifies, though its function takes arguments nobody gives;
    an unexpected error fails it."""
    path = _write(
        tmp_path,
        "ops.mlir",
        "// RUN: stablehlo-opt %s -verify-diagnostics -split-input-file | FileCheck %s\n\n"
        "func.func @takes_args(%a: tensor<2xf32>) -> tensor<2xf32> {\n"
        "  %0 = stablehlo.add %a, %a : tensor<2xf32>\n"
        "  func.return %0 : tensor<2xf32>\n}\n\n// -----\n\n" + FUNC.format(body=BAD_ADD),
    )
    summary = run_all([str(path)], Options(), 1)
    assert [o.status for o in summary.outcomes] == ["passed", "failed"], summary_text(summary)
    assert "compatible" in summary.outcomes[1].message


# A struct attribute with a ',' missing: MLIR's parser reports "expected '>'" at the end
# of the line before the offending key (Parser::emitWrongTokenError), then StableHLO's
# attribute parser "failed parsing dot dimension numbers attribute" at the key itself.
MISSING_COMMA = """module attributes {
  // expected-error@+3 {{expected '>'}}
  // expected-error@+3 {{failed parsing dot dimension numbers}}
  x = #stablehlo.dot<
      lhs_batching_dimensions = [0]
      rhs_batching_dimensions = [0]
  >} {}
"""


def test_every_error_of_a_parse_failure_is_reported(tmp_path: Path, capsys):
    path = _write(tmp_path, "comma.mlir", MISSING_COMMA)
    assert main(["verify", "--verify-diagnostics", str(path)]) == 0, capsys.readouterr().err
    assert main(["verify", str(path)]) == 1
    err = capsys.readouterr().err
    assert f"{path}:5:36: error: expected '>'" in err
    assert f"{path}:6:7: error: failed parsing dot dimension numbers attribute" in err
    summary = run_all([str(path)], Options(), 1)
    assert [o.status for o in summary.outcomes] == ["passed"], summary_text(summary)
