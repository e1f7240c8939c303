"""No function-local import of a project module (one that would dodge an import cycle)
in the op families (shape_inference/, engine/kernels/) and the interpreter's modules:
read from the source with ``ast``.  (Import cycles and layering: tests/test_layering.py.)

Not checked here: the command line and the public entry points (engine/api.py,
program.py, cli*.py, exported*.py...), which import lazily so that ``import hlorun`` and
``hlorun --help`` stay cheap.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
ENGINE_CORE = (
    "interpreter", "plan", "steps", "fastpath", "ufunc", "grid", "format", "parallel",
    "dtypes", "values", "element",
)  # fmt: skip
CHECKED = sorted(
    [*(ROOT / "shape_inference").glob("*.py"), *(ROOT / "engine" / "kernels").glob("*.py")]
    + [ROOT / "engine" / f"{name}.py" for name in ENGINE_CORE]
)
# (file, imported module) pairs allowed, and why.
ALLOWED: set[tuple[str, str]] = {
    # startup (issue 19): the printer, and parser/sdy, load the text grammar
    # (pyparsing); type text is needed only for messages and printed results
    ("engine/format.py", "..parser.printer"),
    ("engine/kernels/check.py", "...parser.printer"),
    ("engine/kernels/sdy.py", "...parser.sdy"),
    ("shape_inference/typeutil.py", "..parser.printer"),
    ("shape_inference/decode.py", "..parser.printer"),
    ("shape_inference/async_ops.py", "..parser.grammar"),
}


def _local_project_imports(source: str) -> list[str]:
    """Relative imports (the project's own modules) below the module's top level,
    ``if TYPE_CHECKING:`` blocks excepted."""
    tree = ast.parse(source)
    top: set[int] = set()
    for node in tree.body:
        if isinstance(node, ast.If | ast.Try) or isinstance(node, ast.ImportFrom):
            top.update(id(n) for n in ast.walk(node) if isinstance(n, ast.ImportFrom))
    for node in tree.body:  # imports inside functions of a top-level try/if still count
        if isinstance(node, ast.If | ast.Try):
            for sub in ast.walk(node):
                if isinstance(sub, ast.FunctionDef | ast.AsyncFunctionDef):
                    top.difference_update(id(n) for n in ast.walk(sub))
    return [
        "." * node.level + (node.module or "")
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and node.level and id(node) not in top
    ]


def test_a_local_import_is_found():
    source = "from . import a\n\ndef f():\n    from .b import c\n    return c\n"
    assert _local_project_imports(source) == [".b"]
    guarded = "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .x import Y\n"
    assert _local_project_imports(guarded) == []


def test_the_files_exist():
    assert all(path.exists() for path in CHECKED)
    assert len(CHECKED) > 30


@pytest.mark.parametrize("path", CHECKED, ids=[str(p.relative_to(ROOT)) for p in CHECKED])
def test_no_function_local_imports_of_project_modules(path):
    rel = str(path.relative_to(ROOT))
    found = {(rel, target) for target in _local_project_imports(path.read_text())}
    assert found <= ALLOWED
