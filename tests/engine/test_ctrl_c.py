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


def test_an_error_raised_out_of_a_ctrl_c_exits_130(monkeypatch, capsys):
    """A Ctrl-C inside an import: NumPy turns the KeyboardInterrupt into an ImportError
    ("numpy._core.umath failed to import"); the command still exits 130 with its one
    line, no traceback."""
    from hlorun.engine import cli

    if signal.getsignal(signal.SIGINT) is not signal.default_int_handler:
        pytest.skip("SIGINT has another handler in this process")

    def interrupted_import(args):
        try:
            signal.raise_signal(signal.SIGINT)  # the handler main() installed runs here
        except KeyboardInterrupt:
            pass
        raise ImportError("numpy._core.umath failed to import")

    monkeypatch.setattr(cli, "cmd_verify", interrupted_import)
    assert cli.main(["verify", "x.mlir"]) == 130
    assert capsys.readouterr().err == "error: interrupted (Ctrl-C)\n"
    # a plain error (no Ctrl-C) is not taken for one
    monkeypatch.setattr(cli, "cmd_verify", lambda args: 1 / 0)
    with pytest.raises(ZeroDivisionError):
        cli.main(["verify", "x.mlir"])
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
