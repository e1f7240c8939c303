"""The shape of the house (issue 14): no import cycles among hlorun's modules, the
layers parser <- shape_inference <- engine never import upwards, and no source file
of the three packages is over 800 lines."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
PACKAGES = ("parser", "shape_inference", "engine")
LAYER = {"parser": 0, "shape_inference": 1, "engine": 2}


def _modules() -> dict[str, Path]:
    mods = {}
    for pkg in PACKAGES:
        for path in (REPO / pkg).rglob("*.py"):
            rel = path.relative_to(REPO).with_suffix("")
            parts = list(rel.parts)
            if parts[-1] == "__init__":
                parts = parts[:-1]
            mods["hlorun." + ".".join(parts)] = path
    return mods


MODULES = _modules()


def _resolve(module: str, is_pkg: bool, level: int, target: str | None) -> str:
    base = module.split(".")
    if not is_pkg:
        base = base[:-1]
    if level > 1:
        base = base[: len(base) - (level - 1)]
    return ".".join(base + ([target] if target else []))


def _top_level_imports(name: str, path: Path) -> set[str]:
    """Modules imported when ``name`` is imported (module-level statements only,
    TYPE_CHECKING blocks excluded)."""
    tree = ast.parse(path.read_text())
    is_pkg = path.name == "__init__.py"
    out: set[str] = set()

    def visit(stmts):
        for node in stmts:
            if isinstance(node, ast.If):
                test = ast.unparse(node.test)
                if "TYPE_CHECKING" not in test:
                    visit(node.body)
                visit(node.orelse)
            elif isinstance(node, ast.Try):
                visit(node.body)
                for h in node.handlers:
                    visit(h.body)
            elif isinstance(node, ast.ImportFrom):
                mod = (
                    _resolve(name, is_pkg, node.level, node.module)
                    if node.level
                    else node.module or ""
                )
                if not mod.startswith("hlorun"):
                    continue
                for alias in node.names:
                    sub = f"{mod}.{alias.name}"
                    out.add(sub if sub in MODULES else mod)
            elif isinstance(node, ast.Import):
                out.update(a.name for a in node.names if a.name.startswith("hlorun"))

    visit(tree.body)
    return {m for m in out if m in MODULES and m != name}


GRAPH = {name: _top_level_imports(name, path) for name, path in MODULES.items()}


def _cycles() -> list[list[str]]:
    """Cycles of the import graph, ignoring edges from a package to its own submodules
    (importing ``a.b`` runs ``a/__init__`` first, so ``a -> a.b -> a`` is not a cycle a
    user can hit unless ``a.b`` needs names ``a`` defines later)."""
    found, state = [], {}

    def dfs(node: str, stack: list[str]) -> None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(GRAPH[node]):
            if nxt.startswith(node + "."):  # a package importing its own submodule
                continue
            if state.get(nxt) == 1:
                found.append(stack[stack.index(nxt) :] + [nxt])
            elif nxt not in state:
                dfs(nxt, stack)
        stack.pop()
        state[node] = 2

    for n in sorted(GRAPH):
        if n not in state:
            dfs(n, [])
    return found


def test_the_import_graph_was_read():
    assert len(MODULES) > 50
    assert "hlorun.parser.ir" in GRAPH["hlorun.parser.printer_core"]


def test_no_import_cycles():
    cycles = _cycles()
    assert not cycles, "\n".join(" -> ".join(c) for c in cycles)


def test_no_upward_imports():
    bad = []
    for mod, deps in GRAPH.items():
        layer = LAYER[mod.split(".")[1]]
        bad += [f"{mod} -> {d}" for d in deps if LAYER[d.split(".")[1]] > layer]
    assert not bad, "\n".join(bad)


@pytest.mark.parametrize("pkg", PACKAGES)
def test_no_source_file_over_800_lines(pkg):
    big = {
        str(p.relative_to(REPO)): n
        for p in (REPO / pkg).rglob("*.py")
        if (n := len(p.read_text().splitlines())) > 800
    }
    assert not big, big
