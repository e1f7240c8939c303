"""Every RUN line of ../shared/stablehlo/tests/vhlo with hlorun in place of the upstream
tools (tests/support/lit.py has the table).  A file passes when all its lines pass,
in order (later lines read the files earlier ones wrote)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.lit import run_line, run_lines

VHLO_DIR = Path(__file__).resolve().parents[2].parent / "shared" / "stablehlo" / "tests" / "vhlo"
FILES = sorted(VHLO_DIR.glob("*.mlir")) if VHLO_DIR.is_dir() else []

pytestmark = [
    pytest.mark.skipif(not FILES, reason=f"{VHLO_DIR} is absent (../shared)"),
    pytest.mark.conformance,
]


@pytest.mark.parametrize("path", FILES, ids=[p.name for p in FILES])
def test_run_lines(path: Path, tmp_path: Path):
    lines = run_lines(path)
    assert lines, f"{path.name} has no RUN line"
    skipped = []
    for line in lines:
        outcome = run_line(line, path, tmp_path)
        assert outcome.ok, f"RUN: {line}\n{outcome.detail}"
        if outcome.skipped:
            skipped.append(f"{line[:60]}... ({outcome.skipped})")
    ran = len(lines) - len(skipped)
    assert ran > 0 or all("%if" in s or "folding" in s for s in skipped)
