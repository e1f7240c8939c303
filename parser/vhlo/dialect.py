"""VHLO as a plug-in dialect (parser/dialects.py): its types and attributes as text
(parser/vhlo/text.py), its ops' custom forms (parser/vhlo/op_forms.py) and its bytecode
codec (parser/vhlo/bytecode_codec.py), each imported when first needed (startup: a
program without VHLO never loads them)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from ..dialects import Dialect, register


def _parse_attribute(p: Any, name: str, start: int) -> Any:
    from .text import parse_vhlo_attr  # imported on first use (module docstring)

    return parse_vhlo_attr(p, name, start)


def _parse_type(p: Any, name: str, start: int) -> Any:
    from .text import parse_vhlo_type  # imported on first use (module docstring)

    return parse_vhlo_type(p, name.removeprefix("!vhlo."), start)


def _print_attribute(a: Any, attr: Callable, type_: Callable) -> str:
    from .text import print_vhlo_attr  # imported on first use (module docstring)

    return print_vhlo_attr(a, attr, type_)


def _print_type(t: Any, attr: Callable, type_: Callable) -> str:
    from .text import print_vhlo_type  # imported on first use (module docstring)

    return print_vhlo_type(t, attr, type_)


def _custom_forms(table: str) -> Mapping[str, Callable]:
    from .op_forms import custom_forms  # imported on first use (module docstring)

    return custom_forms(table)


register(
    Dialect(
        "vhlo",
        parse_attribute=_parse_attribute,
        parse_type=_parse_type,
        print_attribute=_print_attribute,
        print_type=_print_type,
        custom_forms=_custom_forms,
        codec=".vhlo.bytecode_codec",
    )
)
