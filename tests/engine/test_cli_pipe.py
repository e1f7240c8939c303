"""`hlorun interpret FILE | head`: a reader that goes away early is not an error."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def test_closed_stdout_is_quiet() -> None:
    # a program printing much more than a pipe buffer holds, its reader taking one line
    text = """func.func @main() -> tensor<20000xf32> {
  %0 = stablehlo.iota dim = 0 : tensor<20000xf32>
  func.return %0 : tensor<20000xf32>
}"""
    cli = [sys.executable, "-c", "import sys; from hlorun.engine.cli import main; sys.exit(main())"]
    p = subprocess.Popen(
        [*cli, "interpret", "-"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=REPO,
    )
    assert p.stdin is not None and p.stdout is not None and p.stderr is not None
    p.stdin.write(text.encode())
    p.stdin.close()
    p.stdout.readline()
    p.stdout.close()
    err = p.stderr.read().decode()
    assert p.wait(timeout=120) == 0, err
    assert "Broken pipe" not in err and "Traceback" not in err, err
