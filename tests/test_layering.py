"""The shape of the house: no import cycles among hlorun's modules (function-local
imports count), the layers parser <- shape_inference <- engine never import upwards,
the core text grammar and printer reach the plug-in dialects only through the dialect
registry (parser/dialects.py), and no source file of the three packages is over 800
lines."""

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


def _imports(name: str, path: Path) -> dict[str, bool]:
    """The project modules ``name`` imports: {module: imported at module level?}.
    Function-local imports count (``False``): a lazy import keeps startup cheap but is
    still an edge of the graph.  ``if TYPE_CHECKING:`` blocks do not count."""
    tree = ast.parse(path.read_text())
    is_pkg = path.name == "__init__.py"
    out: dict[str, bool] = {}

    def add(mod: str, top: bool) -> None:
        if mod in MODULES and mod != name:
            out[mod] = out.get(mod, False) or top

    def visit(node: ast.AST, top: bool) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(child.test):
                for stmt in child.orelse:
                    visit_one(stmt, top)
                continue
            visit_one(child, top)

    def visit_one(node: ast.AST, top: bool) -> None:
        if isinstance(node, ast.ImportFrom):
            mod = (
                _resolve(name, is_pkg, node.level, node.module) if node.level else node.module or ""
            )
            if mod.startswith("hlorun"):
                for alias in node.names:
                    sub = f"{mod}.{alias.name}"
                    add(sub if sub in MODULES else mod, top)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                add(alias.name, top)
        else:
            local = isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
            visit(node, top and not local)

    visit(tree, True)
    return out


IMPORTS = {name: _imports(name, path) for name, path in MODULES.items()}
# Module-level imports only: what importing a module runs.
GRAPH = {name: {m for m, top in deps.items() if top} for name, deps in IMPORTS.items()}
# Every import, function-local ones too: the dependencies of the code.
FULL_GRAPH = {name: set(deps) for name, deps in IMPORTS.items()}

# Import cycles allowed, and why: each strongly connected component of FULL_GRAPH must
# lie inside one of these groups (so a cycle can neither grow nor appear elsewhere).
# None: the graph is acyclic, function-local imports counted.
ALLOWED_CYCLES: dict[frozenset[str], str] = {}


def _components(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of ``graph`` with more than one module (each
    holds an import cycle; Tarjan's algorithm), ignoring edges from a package to its own
    submodules (importing ``a.b`` runs ``a/__init__`` first, so ``a -> a.b -> a`` is not
    a cycle a user can hit unless ``a.b`` needs names ``a`` defines later)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def strongconnect(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(graph[node]):
            if nxt.startswith(node + "."):  # a package importing its own submodule
                continue
            if nxt not in index:
                strongconnect(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            comp = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                comp.append(top)
                if top == node:
                    break
            if len(comp) > 1:
                found.append(sorted(comp))

    for n in sorted(graph):
        if n not in index:
            strongconnect(n)
    return found


def _describe(comp: list[str], graph: dict[str, set[str]]) -> str:
    inside = set(comp)
    return "; ".join(f"{m} -> {d}" for m in comp for d in sorted(graph[m] & inside))


def test_the_import_graph_was_read():
    assert len(MODULES) > 50
    assert "hlorun.parser.ir" in GRAPH["hlorun.parser.printer_core"]


def test_function_local_imports_are_read():
    """VHLO's text syntax imports the grammar in a function (to parse a whole text):
    FULL_GRAPH holds that edge, GRAPH does not."""
    assert "hlorun.parser.grammar" in FULL_GRAPH["hlorun.parser.vhlo.text"]
    assert "hlorun.parser.grammar" not in GRAPH["hlorun.parser.vhlo.text"]
    assert sum(not top for deps in IMPORTS.values() for top in deps.values()) > 50


def test_the_cycle_check_can_fail():
    graph = {"a": {"b", "a.x"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "a.x": {"a"}}
    assert _components(graph) == [["a", "b", "c"]]


def test_no_import_cycles():
    """No cycle counting function-local imports, but inside the ALLOWED_CYCLES."""
    bad = [
        _describe(comp, FULL_GRAPH)
        for comp in _components(FULL_GRAPH)
        if not any(set(comp) <= group for group in ALLOWED_CYCLES)
    ]
    assert not bad, "\n".join(bad)


def test_no_import_cycles_at_module_level():
    """Importing any module never meets a half-initialised one."""
    comps = _components(GRAPH)
    assert not comps, "\n".join(_describe(c, GRAPH) for c in comps)


def test_no_upward_imports():
    bad = []
    for mod, deps in FULL_GRAPH.items():
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


# ---- plug-in dialects ----------------------------------------------------------------

# The modules of the plug-in dialects (parser/dialects.py PLUGINS): VHLO and Shardy.
PLUGIN_MODULES = {
    m
    for m in MODULES
    for plugin in ("hlorun.parser.vhlo", "hlorun.parser.sdy")
    if m == plugin or m.startswith(plugin + ".")
}
# Plug-in modules the core may still import, and why: data, importing nothing of the
# core's text grammar or printer back.
CORE_MAY_IMPORT = {
    "hlorun.parser.vhlo": "the package (empty __init__)",
    "hlorun.parser.vhlo.table": "the VHLO op table: which StableHLO ops exist and their "
    "inherent attributes (op_syntax, printer); to be read from the op declarations "
    "(issue 33 items 1-2)",
    "hlorun.parser.vhlo.table_data": "the generated data vhlo.table reads",
    "hlorun.parser.vhlo.version": "VHLO versions, which vhlo.table's rows carry",
}


def _reach(module: str) -> set[str]:
    seen: set[str] = set()
    todo = [module]
    while todo:
        for nxt in FULL_GRAPH[todo.pop()]:
            if nxt not in seen and not nxt.startswith(module + "."):
                seen.add(nxt)
                todo.append(nxt)
    return seen


def test_the_plugins_are_the_registry_s():
    from hlorun.parser import dialects

    assert set(dialects.PLUGINS) == {"sdy", "vhlo"}
    for module in dialects.PLUGINS.values():
        assert "hlorun.parser" + module in PLUGIN_MODULES
    assert set(CORE_MAY_IMPORT) <= PLUGIN_MODULES


@pytest.mark.parametrize(
    "module",
    sorted(m for m in MODULES if m.startswith("hlorun.parser.") and m not in PLUGIN_MODULES),
)
def test_the_core_reaches_a_plugin_only_through_the_registry(module):
    """No core parser module imports a plug-in dialect's grammar, printer or codec,
    directly or through another module, function-local imports included."""
    bad = sorted((_reach(module) & PLUGIN_MODULES) - set(CORE_MAY_IMPORT))
    assert not bad, bad


# ---- imports by name -----------------------------------------------------------------

# Modules that import project modules by name (importlib), an edge this file cannot
# see, and why: each names what it may load in one table.
IMPORTS_BY_NAME = {
    "hlorun.parser.dialects": "a plug-in dialect's module, by its PLUGINS entry",
    "hlorun.parser.bytecode.dialect_api": "a dialect's codec, by its registry entry",
    "hlorun.parser.bytecode": "the package's names, on first use (_HOMES)",
    "hlorun.engine": "the package's names, on first use",
    "hlorun.shape_inference.optable": "an op family's module, by the op table",
    "hlorun.engine.cli": "a sub-command's module, by the sub-command table",
    "hlorun.engine.cli_exported": "the user's module named on the command line",
}


def _imports_by_name(path: Path) -> bool:
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Call):
            f = node.func
            name = f.attr if isinstance(f, ast.Attribute) else getattr(f, "id", "")
            if name in ("import_module", "__import__", "spec_from_file_location"):
                return True
    return False


def test_imports_by_name_are_listed():
    found = {m for m, path in MODULES.items() if _imports_by_name(path)}
    assert found == set(IMPORTS_BY_NAME)
