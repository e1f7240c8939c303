"""Terminal summary of the verifier-suite figures (test_verifier_suite.py)."""

from __future__ import annotations


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    if not config.getoption("tallies"):  # the figures print with --tallies
        return
    lines = getattr(config, "hlorun_verifier_figures", None)
    if not lines:
        return
    terminalreporter.section("StableHLO verifier suite (tests/verifier)")
    for line in lines:
        terminalreporter.write_line(line)
