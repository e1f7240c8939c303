"""engine: values, dtypes, whole-tensor kernels, the interpreter and ``run``.

Public API: ``engine.run(module, inputs)``, ``engine.compile(module)(*inputs)`` (prepare
once, run many times; their options: one ``engine.RunOptions`` record),
``engine.Profile``, ``engine.register_custom_call(name, fn)``,
``engine.load_exported(data)`` (run a ``jax.export`` container).

The names load lazily (PEP 562), so that ``from hlorun import run`` stays cheap: the
op table's shape functions and kernels load when the first program is planned
(``engine.interpreter``), a family's heavy dependencies (scipy...) when it first runs.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

_LAZY = {
    "run": "api",
    "compile": "api",
    "prepare": "loading",
    "clear_cache": "api",
    "CACHE_SIZE": "api",
    "Program": "program",
    "RunOptions": "options",
    "Profile": "plan",
    "OpProfile": "profile",
    "load_module": "loading",
    "register_custom_call": "kernels.control_flow",
    "load_exported": "exported",
    "ExportedProgram": "exported",
    "TOKEN": "values",
    "Token": "values",
    "RegionFn": "values",
}

__all__ = list(_LAZY)


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))
