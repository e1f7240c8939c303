"""Startup: ``from hlorun import run`` imports nothing heavy (issue 19 item 1).

Behaviour, not timing (the timing is benchmarks/test_startup_bench.py): what a fresh
interpreter has imported after ``import hlorun; from hlorun import run``, after a run of
a portable artifact (bytecode needs no text grammar), after ``hlorun interpret`` of a
plain program (no cold grammar, only its ops' families) and after ``hlorun --version``.
"""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np

from tests.support.fresh_imports import loaded_after

HEAVY = ("scipy", "pyparsing", "hlorun.parser.grammar", "hlorun.parser.sdy")

TINY = """func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {
  %b = stablehlo.add %a, %a : tensor<2xf32>
  func.return %b : tensor<2xf32>
}
"""


def _loaded_after(code: str) -> list[str]:
    """The HEAVY modules a fresh interpreter has imported after running ``code``."""
    return loaded_after(code, HEAVY)


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


# ---- hlorun interpret of a tiny program ------------------------------------------------

TINY_CONSTANT = """func.func @main() -> tensor<2xf32> {
  %a = stablehlo.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %b = stablehlo.add %a, %a : tensor<2xf32>
  func.return %b : tensor<2xf32>
}
"""
# Modules a plain program never needs: the cold grammars (pyparsing: convolution
# dimension numbers, !quant.uniform), Shardy, the VHLO text syntax and op table, the
# other sub-commands of the CLI, the thread pool.
NOT_FOR_A_PLAIN_PROGRAM = (
    "pyparsing",
    "hlorun.parser.sdy",
    "hlorun.shape_inference.sdy",
    "hlorun.engine.kernels.sdy",
    "hlorun.parser.vhlo.text",
    "hlorun.parser.vhlo.table",
    "hlorun.engine.cli_fold",
    "hlorun.engine.cli_ops",
    "hlorun.engine.cli_test",
    "hlorun.engine.cli_artifacts",
    "concurrent.futures",
)
# Families the pipeline itself imports, whatever the program (the verifier's and the
# interpreter's quantized-type checks).
CORE_FAMILIES = {"quantization"}


def _interpret_modules(tmp_path) -> tuple[list[str], str]:
    """(every module loaded, stdout) after ``hlorun interpret`` of TINY_CONSTANT in a
    fresh interpreter."""
    path = tmp_path / "tiny.mlir"
    path.write_text(TINY_CONSTANT)
    code = (
        "import io, json, sys, contextlib\n"
        "from hlorun.engine.cli import main\n"
        "out = io.StringIO()\n"
        "with contextlib.redirect_stdout(out):\n"
        f"    rc = main(['interpret', {str(path)!r}])\n"
        "print(json.dumps([sorted(sys.modules), out.getvalue(), rc]))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
    )
    modules, out, rc = json.loads(done.stdout.strip().splitlines()[-1])
    assert rc == 0
    return modules, out


def test_interpreting_a_plain_program_loads_no_cold_module(tmp_path):
    modules, out = _interpret_modules(tmp_path)
    assert "[2.000000e+00, 4.000000e+00]" in out
    assert [m for m in NOT_FOR_A_PLAIN_PROGRAM if m in modules] == []


def test_interpreting_loads_only_the_families_of_its_ops(tmp_path):
    """constant and add: the families the index names for them (and the core's)."""
    from hlorun.engine import kernels
    from hlorun.engine.kernels.families import FAMILIES_BY_OP as KERNELS
    from hlorun.shape_inference import FAMILIES as SHAPE_FAMILIES
    from hlorun.shape_inference.families import FAMILIES_BY_OP as SHAPES

    ops = ("stablehlo.constant", "stablehlo.add")
    modules, _ = _interpret_modules(tmp_path)
    for package, index, families in (
        ("hlorun.shape_inference", SHAPES, SHAPE_FAMILIES),
        ("hlorun.engine.kernels", KERNELS, kernels.FAMILIES),
    ):
        needed = {m for op in ops for m in index[op]}
        loaded = {f for f in families if f"{package}.{f}" in modules}
        assert needed <= loaded, package
        assert loaded - needed <= CORE_FAMILIES, package
        assert len(loaded) < len(families) // 3, package  # the test can fail


def test_version_loads_neither_numpy_nor_the_parser():
    code = (
        "import sys, json, contextlib, io\n"
        "from hlorun.engine.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        "    try:\n"
        "        main(['--version'])\n"
        "    except SystemExit:\n"
        "        pass\n"
        "print(json.dumps([m for m in ('numpy', 'hlorun.parser.ir', 'hlorun.parser.opdecl')"
        " if m in sys.modules]))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
    )
    assert json.loads(done.stdout.strip().splitlines()[-1]) == []


def test_main_freezes_the_heap_only_as_the_console_script(tmp_path, monkeypatch, capsys):
    """``main()`` (the console script, exiting next) freezes the heap for a cheap
    shutdown; ``main(argv)`` (a caller that goes on) leaves the collector alone."""
    import gc

    from hlorun.engine.cli import main

    path = tmp_path / "tiny.mlir"
    path.write_text(TINY_CONSTANT)
    frozen = []
    monkeypatch.setattr(gc, "freeze", lambda: frozen.append(True))
    assert main(["interpret", str(path)]) == 0
    assert frozen == []
    monkeypatch.setattr(sys, "argv", ["hlorun", "interpret", str(path)])
    assert main() == 0
    assert frozen == [True]
    assert "[2.000000e+00, 4.000000e+00]" in capsys.readouterr().out
