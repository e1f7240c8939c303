"""Shared test fixtures: where the StableHLO reference material is, if anywhere."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from hypothesis import settings

# Hypothesis draws the same examples on every run ("repeatable", derandomized): CI's
# and the README command's verdicts do not depend on the run (a planted bug is caught
# every time or never).  HYPOTHESIS_PROFILE=explore draws fresh examples, to look for
# new failures locally.  (tests/property/ picks its own "ci" / "thorough" profiles.)
settings.register_profile("repeatable", derandomize=True)
settings.register_profile("explore", derandomize=False)
settings.load_profile(
    "explore" if os.environ.get("HYPOTHESIS_PROFILE") == "explore" else "repeatable"
)

REPO = Path(__file__).resolve().parent.parent
SHARED = REPO.parent / "shared" / "stablehlo"


def shared_dir(*parts: str) -> Path:
    """A folder of ../shared/stablehlo, or skip the test saying why."""
    path = SHARED.joinpath(*parts)
    if not path.exists():
        pytest.skip(
            f"{path} not found: the StableHLO reference material sits beside the repo "
            "only in CI and developer checkouts"
        )
    return path


def pytest_addoption(parser):
    parser.addoption(
        "--tallies",
        action="store_true",
        default=False,
        help="print the conformance and verifier suites' per-file tallies at the end",
    )


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    """Per-file pass counts of the conformance suite, when it ran (``--tallies``)."""
    if not config.getoption("tallies"):
        return
    suite = sys.modules.get("tests.conformance.suite")
    if suite is None or not suite.TALLY:
        return
    tally = suite.TALLY
    tr = terminalreporter
    tr.section("StableHLO interpret conformance (per file)")
    totals: dict[str, int] = {}
    for file in sorted(tally):
        counts = tally[file]
        for k, v in counts.items():
            totals[k] = totals.get(k, 0) + v
        tr.write_line(f"{file}: " + ", ".join(f"{v} {k}" for k, v in sorted(counts.items())))
    tr.write_line("total: " + ", ".join(f"{v} {k}" for k, v in sorted(totals.items())))
