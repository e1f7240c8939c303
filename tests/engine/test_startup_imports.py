"""Startup: ``from hlorun import run`` imports nothing heavy (issue 19 item 1).

Behaviour, not timing (the timing is benchmarks/test_startup_bench.py): what a fresh
interpreter has imported after ``import hlorun; from hlorun import run``, and after a
run of a portable artifact (bytecode needs no text grammar).
"""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np

HEAVY = ("scipy", "pyparsing", "hlorun.parser.grammar", "hlorun.parser.sdy")

TINY = """func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {
  %b = stablehlo.add %a, %a : tensor<2xf32>
  func.return %b : tensor<2xf32>
}
"""


def _loaded_after(code: str) -> list[str]:
    """The HEAVY modules a fresh interpreter has imported after running ``code``."""
    probe = (
        f"import sys, json\n{code}\nprint(json.dumps([m for m in {HEAVY!r} if m in sys.modules]))"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=120
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_from_hlorun_import_run_is_light():
    assert _loaded_after("import hlorun\nfrom hlorun import run") == []


def test_engine_names_are_light():
    assert _loaded_after("from hlorun.engine import run, compile, clear_cache, prepare") == []


def test_running_a_portable_artifact_needs_no_grammar(tmp_path):
    from hlorun.parser import parse_module
    from hlorun.parser.vhlo.artifact import serialize_portable_artifact

    path = tmp_path / "tiny.mlirbc"
    path.write_bytes(serialize_portable_artifact(parse_module(TINY), "1.0.0"))
    code = (
        "import numpy as np, hlorun\n"
        f"(r,) = hlorun.run(open({str(path)!r}, 'rb').read(), [np.ones(2, np.float32)])\n"
        "assert r.tolist() == [2.0, 2.0]"
    )
    assert _loaded_after(code) == []


def test_lazy_names_resolve():
    import hlorun
    from hlorun import engine

    assert callable(hlorun.run) and hlorun.run is engine.run
    assert engine.Program.__name__ == "Program"
    (r,) = hlorun.run(TINY, [np.arange(2, dtype=np.float32)])
    assert r.tolist() == [0.0, 2.0]
