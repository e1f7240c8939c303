"""Every chunk of the StableHLO reference suites parses (split on `// -----`)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from hlorun.parser.errors import ParseError
from hlorun.parser.grammar import parse_module, split_input_file
from tests.conftest import SHARED, shared_dir

INTERPRET = sorted((SHARED / "tests" / "interpret").rglob("*.mlir")) if SHARED.exists() else []


def _chunks(path: Path):
    return split_input_file(path.read_text())


def _failures(path: Path, allow_expected_errors: bool = False) -> list[str]:
    bad = []
    for chunk, offset in _chunks(path):
        try:
            parse_module(chunk, str(path), line_offset=offset)
        except ParseError as e:
            if allow_expected_errors and "expected-error" in chunk:
                continue
            bad.append(str(e))
    return bad


@pytest.mark.conformance
@pytest.mark.parametrize("path", INTERPRET, ids=lambda p: str(p.relative_to(SHARED / "tests")))
def test_interpret_file_parses(path: Path):
    shared_dir("tests", "interpret")
    assert _failures(path) == []


def test_interpret_suite_present():
    root = shared_dir("tests", "interpret")
    assert len(list(root.rglob("*.mlir"))) > 50


_VERIFIER = [
    "ops_stablehlo_roundtrip.mlir",
    "print_stablehlo.mlir",
    "infer_stablehlo.mlir",
    "ops_stablehlo.mlir",
]


@pytest.mark.conformance
@pytest.mark.parametrize("name", _VERIFIER)
def test_verifier_file_parses(name: str):
    path = shared_dir("tests", "verifier") / name
    assert _failures(path, allow_expected_errors=True) == []


def _vhlo_files():
    root = SHARED / "tests" / "vhlo"
    return sorted(root.glob("*.mlir")) if root.exists() else []


# Chunks that do not parse, as {file name: ["file:line:" of each]}: none now (the custom
# forms of other dialects' ops these files use, scf.for, tensor.insert and vhlo.func_v1,
# parse: tests/parser/test_other_dialects.py).
_KNOWN_UNPARSABLE: dict[str, list[str]] = {}


@pytest.mark.conformance
@pytest.mark.parametrize("path", _vhlo_files(), ids=lambda p: p.name)
def test_vhlo_file_parses(path: Path):
    bad = _failures(path, allow_expected_errors=True)
    known = _KNOWN_UNPARSABLE.get(path.name, [])
    assert len(bad) == len(known)
    for msg, where in zip(bad, known):
        assert where in msg


def test_line_offset_points_into_the_original_file():
    text = "func.func @a() {\n  func.return\n}\n// -----\nfunc.func @b() {\n  bogus!\n}\n"
    chunks = split_input_file(text)
    assert [off for _, off in chunks] == [0, 4]
    with pytest.raises(ParseError) as info:
        parse_module(chunks[1][0], "f.mlir", line_offset=chunks[1][1])
    assert re.match(r"f\.mlir:6:\d+: error:", str(info.value))
