"""hlorun: a fast, pure-Python interpreter for StableHLO programs.

The packages live at the repository root (``parser/``, ``shape_inference/``,
``engine/``) and install as ``hlorun.parser``, ``hlorun.shape_inference`` and
``hlorun.engine``.  The names below load lazily (PEP 562), so ``import hlorun`` stays
cheap until one is used.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

__version__ = "0.2.0"

_LAZY = {
    "run": "engine",
    "compile": "engine",
    "Program": "engine",
    "diff": "engine.diff",
    "DiffReport": "engine.diff_report",
    "HloError": "parser.errors",
    "ParseError": "parser.errors",
    "VerificationError": "parser.errors",
    "InterpreterError": "parser.errors",
    "UnsupportedError": "parser.errors",
    "HloTypeError": "parser.errors",
}

__all__ = ["__version__", *_LAZY]


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'hlorun' has no attribute {name!r}")
    value = getattr(import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))
