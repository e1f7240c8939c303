"""Shardy (``sdy``) as a plug-in dialect (parser/dialects.py): its attribute grammar
(parser/sdy), its ops' custom forms (parser/pretty_sdy.py, beside the other text forms)
and its bytecode codec (``bytecode_codec``), each imported when first needed (startup:
a program without Shardy never loads them)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from ..dialects import Dialect, register


def _parse_attribute(p: Any, name: str, start: int) -> Any:
    from . import parse_sdy_attr  # imported on first use (module docstring)

    return parse_sdy_attr(p.c, name, start)


def _custom_forms(table: str) -> Mapping[str, Callable]:
    from .. import pretty_sdy  # imported on first use (module docstring)

    return getattr(pretty_sdy, table)


register(
    Dialect(
        "sdy",
        parse_attribute=_parse_attribute,
        custom_forms=_custom_forms,
        codec=".sdy.bytecode_codec",
    )
)
