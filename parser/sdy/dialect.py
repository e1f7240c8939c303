"""Shardy (``sdy``) as a plug-in dialect (parser/dialects.py): its attribute grammar
(parser/sdy), its ops' declarations (``ops``) and their text forms, compiled here from
the declared formats with the sdy format elements (``format_directives``), and its
bytecode codec (``bytecode_codec``), each imported when first needed (startup: a
program without Shardy never loads them)."""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from typing import Any

from ..dialects import Dialect, register


def _parse_attribute(p: Any, name: str, start: int) -> Any:
    from . import parse_sdy_attr  # imported on first use (module docstring)

    return parse_sdy_attr(p.c, name, start)


@functools.cache
def _formats() -> Mapping[str, Any]:
    """Each sdy op's compiled format (parser/op_format.py), by op name."""
    from ..op_format import DIRECTIVES as CORE_DIRECTIVES  # on first use
    from ..op_format import compile_format
    from .format_directives import DIRECTIVES, KINDS
    from .ops import SDY_OPS

    directives = {**CORE_DIRECTIVES, **DIRECTIVES}
    return {n: compile_format(d, directives, KINDS) for n, d in SDY_OPS.items()}


def _no_operands(print_op: Callable[..., str | None]) -> Callable[..., str | None]:
    """The printer of an op declared without operands, for an op that has none (a form
    that spells no operand would drop them)."""

    def print_without_operands(p: Any, op: Any, depth: int) -> str | None:
        return None if op.operands else print_op(p, op, depth)

    return print_without_operands


def _results_checked(parse: Callable[..., Any], n: int) -> Callable[..., Any]:
    """The parser of an op declared with ``n`` results, which a text defining another
    number of results does not spell."""

    def parse_op(p: Any, name: str, defs: list, start: int) -> Any:
        given = sum(1 if k is None else k for _, k in defs)
        if given != n:
            noun = "result" if n == 1 else "results"
            raise p.error(f"'{name}' has {n} {noun}, the text defines {given}", start)
        return parse(p, name, defs, start)

    return parse_op


def _custom_forms(table: str) -> Mapping[str, Callable]:
    """``FORMS``: the ops' parsers; ``PRINT_FORMS``: their (generated) printers."""
    if table == "FORMS":
        return {
            n: f.parse if f.n_results is None else _results_checked(f.parse, f.n_results)
            for n, f in _formats().items()
        }
    return {
        n: f.printer() if f.decl.operands else _no_operands(f.printer())
        for n, f in _formats().items()
    }


register(
    Dialect(
        "sdy",
        parse_attribute=_parse_attribute,
        custom_forms=_custom_forms,
        codec=".sdy.bytecode_codec",
        ops=".sdy.ops",
    )
)
