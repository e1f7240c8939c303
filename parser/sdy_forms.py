"""A table of custom forms (op name -> parser or printer) whose Shardy entries load on
first use.

parser/pretty_sdy.py brings sdy's attribute grammar (parser/sdy.py), which a program
without ``sdy.`` ops never needs; the grammar's ``CUSTOM_FORMS`` and the printer's
pretty forms import it when the first ``sdy.`` name is looked up (issue 19: startup).
"""

from __future__ import annotations

import importlib
from typing import Any


class SdyForms(dict):
    """``forms`` plus the dict ``table`` of parser/pretty_sdy.py, added on the first
    lookup (``[]``, ``get``, ``in``) of an ``sdy.`` name."""

    def __init__(self, forms: dict[str, Any], table: str) -> None:
        super().__init__(forms)
        self._table: str | None = table  # None once loaded

    def _need(self, name: object) -> None:
        if self._table is not None and isinstance(name, str) and name.startswith("sdy."):
            # imported on first use, to keep startup cheap (module docstring)
            module = importlib.import_module(".pretty_sdy", __package__)
            self.update(getattr(module, self._table))
            self._table = None

    def get(self, name: str, default: Any = None) -> Any:
        self._need(name)
        return super().get(name, default)

    def __getitem__(self, name: str) -> Any:
        self._need(name)
        return super().__getitem__(name)

    def __contains__(self, name: object) -> bool:
        self._need(name)
        return super().__contains__(name)
