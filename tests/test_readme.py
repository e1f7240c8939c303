"""The README's code blocks run as written: every ``python`` block (in order, in one
namespace, as a reader pastes them into one session) and every ``sh`` block (bash,
``set -e``), in a scratch folder where the repo's ``tests/``, ``examples/`` and
``benchmarks/`` are visible.  Blocks that build a fresh virtual environment are
tests/test_install.py's work (slow); the benchmark block runs under ``-m slow``."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
_BLOCK = re.compile(r"^```(\w+)\n(.*?)^```", re.M | re.S)


def blocks(lang: str) -> list[tuple[int, str]]:
    """(line, code) of each fenced block of ``lang``."""
    text = README.read_text(encoding="utf-8")
    return [
        (text.count("\n", 0, m.start()) + 1, m.group(2))
        for m in _BLOCK.finditer(text)
        if m.group(1) == lang
    ]


@pytest.fixture
def scratch(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for name in ("tests", "examples", "benchmarks"):
        (tmp_path / name).symlink_to(ROOT / name)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_readme_has_the_documented_blocks():
    python = "\n".join(code for _, code in blocks("python"))
    shell = "\n".join(code for _, code in blocks("sh"))
    for needle in ("hlorun.run(", "hlorun.compile(", "register_custom_call(", "OpProfile("):
        assert needle in python, needle
    for needle in ("hlorun test ", "--inputs", "--outputs", "--profile-trace", "--exported"):
        assert needle in shell, needle


def test_python_blocks_run_in_order(scratch: Path):
    namespace: dict[str, object] = {"__name__": "__readme__"}
    for line, code in blocks("python"):
        try:
            exec(compile(code, f"README.md:{line}", "exec"), namespace)
        except Exception as e:  # name the block that failed
            raise AssertionError(f"README.md block at line {line} failed: {e!r}") from e
    assert (scratch / "mlp.trace.json").stat().st_size > 0


def _python_cases() -> list:
    return [pytest.param(line, code, id=f"line{line}") for line, code in blocks("python")]


@pytest.mark.parametrize(("line", "code"), _python_cases())
def test_each_python_block_runs_alone(line: int, code: str, scratch: Path):
    """A reader may paste any one block into a fresh interpreter: it must run alone."""
    r = subprocess.run(
        [sys.executable, "-c", code],
        cwd=scratch,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert r.returncode == 0, f"README.md block at line {line} fails alone:\n{r.stderr[-2000:]}"


def test_cli_synopsis_is_generated_from_argparse():
    """The README's synopsis is tools/gen_cli_synopsis.py's output for the current
    argparse definitions (a new flag or sub-command: run the tool again)."""
    sys.path.insert(0, str(ROOT / "tools"))
    try:
        import gen_cli_synopsis
    finally:
        sys.path.pop(0)
    text = README.read_text(encoding="utf-8")
    assert gen_cli_synopsis.current(text) == gen_cli_synopsis.block(), (
        "README.md's CLI synopsis is stale: run python tools/gen_cli_synopsis.py"
    )
    for flag in ("--max-steps", "--timeout", "--grid", "--float-eq", "--slowest"):
        assert flag in gen_cli_synopsis.current(text), flag


def test_readme_says_what_the_test_command_costs():
    text = README.read_text(encoding="utf-8")
    assert "8-9 minutes" in text and "../shared/stablehlo" in text


def _sh_cases() -> list:
    cases = []
    for line, code in blocks("sh"):
        marks: list = []
        if "venv" in code:
            marks.append(pytest.mark.skip(reason="a fresh-venv install: tests/test_install.py"))
        elif "benchmarks" in code:
            marks.append(pytest.mark.slow)
        cases.append(pytest.param(code, id=f"line{line}", marks=marks))
    return cases


@pytest.mark.parametrize("code", _sh_cases())
def test_sh_block_runs(code: str, scratch: Path):
    env = dict(os.environ)
    # this interpreter's environment first: its python3 and the hlorun script
    env["PATH"] = os.path.dirname(sys.executable) + os.pathsep + env.get("PATH", "")
    r = subprocess.run(
        ["bash", "-euo", "pipefail", "-c", code],
        cwd=scratch,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert r.returncode == 0, (
        f"{code}\n--- stdout\n{r.stdout[-3000:]}\n--- stderr\n{r.stderr[-3000:]}"
    )


def test_package_metadata_and_license():
    """What an index page and a license scanner read: Apache-2.0 text, URLs,
    classifiers, the Python versions, a changelog."""
    import tomllib

    meta = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert meta["license"] == {"text": "Apache-2.0"}
    assert meta["requires-python"] == ">=3.11"
    assert "License :: OSI Approved :: Apache Software License" in meta["classifiers"]
    assert all(u.startswith("https://") for u in meta["urls"].values())
    license_text = (ROOT / "LICENSE").read_text()
    assert license_text.lstrip().startswith("Apache License")
    assert "Version 2.0, January 2004" in license_text
    assert "END OF TERMS AND CONDITIONS" in license_text
    changelog = (ROOT / "CHANGELOG.md").read_text()
    assert "## [Unreleased]" in changelog and f"## [{meta['version']}]" in changelog
    import hlorun

    assert hlorun.__version__ == meta["version"]
