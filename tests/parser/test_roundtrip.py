"""parse -> print -> parse over StableHLO's own suites.

For every `// -----` chunk of tests/interpret (with chlo/), tests/verifier and tests/vhlo
that the parser accepts (chunks it rejects are the parser's concern, and many verifier
chunks are invalid on purpose): ``parse_module(print_module(m)) == m`` and
``print_module(parse(print_module(m))) == print_module(m)`` (printing is a fixed point).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from parser.errors import HloError
from parser.grammar import parse_module, split_input_file
from parser.printer import print_module
from tests.conftest import SHARED, shared_dir

SUITES = {
    "interpret": ("tests/interpret", "**/*.mlir"),
    "verifier": ("tests/verifier", "*.mlir"),
    "vhlo": ("tests/vhlo", "*.mlir"),
}


def _files(suite: str) -> list[Path]:
    folder, pattern = SUITES[suite]
    root = SHARED / folder
    return sorted(root.glob(pattern)) if root.exists() else []


def roundtrip_failures(path: Path) -> tuple[int, list[str]]:
    """(number of chunks checked, descriptions of the chunks that do not round-trip)."""
    checked = 0
    bad: list[str] = []
    for chunk, offset in split_input_file(path.read_text()):
        try:
            m = parse_module(chunk, str(path), line_offset=offset)
        except HloError:
            continue
        checked += 1
        where = f"{path.name}:{offset + 1}"
        text = print_module(m)
        try:
            again = parse_module(text, f"<printed {where}>")
        except HloError as e:
            bad.append(f"{where}: printed text does not parse: {e}")
            continue
        if again != m:
            bad.append(f"{where}: parse(print(m)) != m")
        elif print_module(again) != text:
            bad.append(f"{where}: printing is not a fixed point")
    return checked, bad


def _params():
    for suite in SUITES:
        for path in _files(suite):
            yield pytest.param(path, id=f"{suite}/{path.relative_to(SHARED / SUITES[suite][0])}")


@pytest.mark.conformance
@pytest.mark.parametrize("path", list(_params()))
def test_file_roundtrips(path: Path):
    _, bad = roundtrip_failures(path)
    assert bad == []


@pytest.mark.parametrize("suite", list(SUITES))
def test_suite_present(suite: str):
    root = shared_dir(SUITES[suite][0])
    assert any(root.glob(SUITES[suite][1]))
