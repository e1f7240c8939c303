"""Ctrl-C (issue 31 item 6), as a user presses it: SIGINT to an ``hlorun`` process.
``interpret`` of a scalar loop (its block's generated function, engine/emit.py), plain,
with a time limit or profiled, exits 130 naming the op (the line table of the generated
code); ``hlorun test -j 2`` stops its workers at once (no per-test timeout,
``--timeout 0`` too) and exits 130.  Every wait is bounded."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.engine.test_reliability import INFINITE_WHILE

pytestmark = pytest.mark.skipif(os.name != "posix", reason="SIGINT to a child process")

LOOP = INFINITE_WHILE  # (a scalar while loop, written out in its block's function)


def _interrupt(args: list[str], wait: float = 3.0) -> tuple[int, str, float]:
    """Start ``hlorun ARGS``, let it run ``wait`` seconds (start-up, into the loops),
    SIGINT it; (exit status, stderr, seconds from the signal to the exit)."""
    p = subprocess.Popen(
        [sys.executable, "-m", "hlorun.engine.cli", *args],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        time.sleep(wait)
        t0 = time.monotonic()
        p.send_signal(signal.SIGINT)
        _, err = p.communicate(timeout=30)
        return p.returncode, err, time.monotonic() - t0
    finally:
        if p.poll() is None:
            p.kill()
            p.wait(timeout=10)


@pytest.mark.parametrize("mode", [[], ["--timeout", "600"], ["--profile"]])
def test_interpret_names_the_op_of_a_generated_loop(tmp_path: Path, mode: list[str]):
    src = tmp_path / "loop.mlir"
    src.write_text(LOOP)
    rc, err, _ = _interrupt(["interpret", *mode, str(src)])
    assert rc == 130, err
    assert "Traceback" not in err
    assert "op interrupted (Ctrl-C)" in err and f"{src}:" in err, err


@pytest.mark.parametrize("timeout", ["60", "0"])
def test_test_stops_its_workers_at_once(tmp_path: Path, timeout: str):
    folder = tmp_path / "loops"
    folder.mkdir()
    for i in range(3):
        (folder / f"loop{i}.mlir").write_text(LOOP)
    (folder / "ok.mlir").write_text(
        "func.func @main() -> tensor<i32> {\n"
        "  %0 = stablehlo.constant dense<1> : tensor<i32>\n"
        "  return %0 : tensor<i32>\n}\n"
    )
    rc, err, seconds = _interrupt(["test", "-j", "2", "--timeout", timeout, str(folder)], 4.0)
    assert rc == 130, err
    assert "interrupted (Ctrl-C) after" in err and "Traceback" not in err, err
    assert seconds < 20  # not the per-test timeout (60 s) nor a hang
