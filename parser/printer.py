"""MLIR text from hlorun's IR: ``print_module(module) -> str``.

The printer writes each op in the pretty (custom) form that ``stablehlo-opt`` uses where
StableHLO defines one (StablehloOps.td assembly formats, AssemblyFormat.cpp custom
directives) and the op's IR fits that form exactly; otherwise it writes MLIR's generic
form ``"dialect.op"(%a) <{props}> ({regions}) {attrs} : (t) -> t``, which is always
correct.  Everything the IR carries is written back (types, attributes, ``loc(...)``,
aliases, resources), so that ``parse_module(print_module(m)) == m``.

Numbers follow MLIR's AsmPrinter: floats as ``1.000000e+00`` when that reads back to the
same bits, else with enough digits to do so, and NaN / infinity as the bit pattern
``0x7FC00000``; integers in decimal (``i1`` as ``true`` / ``false``).

Layout: ``printer_core`` (generic syntax, ``BasePrinter``), ``number_text`` (floats and
dense data), ``pretty_print`` / ``pretty_print_regions`` (the pretty forms by op family,
keyword items as parser/opdecl.py declares them); this module joins them.
"""

from __future__ import annotations

from collections.abc import Callable

from .ir import (
    Attribute,
    Module,
    Operation,
    Type,
)

# Re-exported (``import x as x``) for parser/vhlo, whose printer extends this one.
from .number_text import _format_floats as _format_floats
from .number_text import _hex_blob as _hex_blob
from .number_text import format_float as format_float
from .pretty_print import FORMS as _SIMPLE_FORMS
from .pretty_print_regions import FORMS as _REGION_FORMS
from .printer_core import BasePrinter
from .printer_core import _result_list as _result_list
from .printer_core import escape_string as escape_string

__all__ = ["print_attribute", "print_module", "print_operation", "print_type"]

# Every family's pretty printers by op name.
_PRETTY: dict[str, Callable[..., str | None]] = {**_SIMPLE_FORMS, **_REGION_FORMS}


class _Printer(BasePrinter):
    """The module printer: generic syntax plus every op family's pretty forms."""

    custom_forms = _PRETTY


# --------------------------------------------------------------------------------------
# Public API
# --------------------------------------------------------------------------------------


def print_module(module: Module, *, hex_above: int | None = None) -> str:
    """The MLIR text of ``module``.

    A ``dense<...>`` constant is written as a ``"0x..."`` blob when its ``hex`` flag says
    the text had it so.  ``hex_above=N`` also writes every non-splat constant of more than
    N elements that way, as stablehlo-opt does with N = 100 (MLIR's default for
    ``--mlir-print-elementsattrs-with-hex-if-larger``); the parsed-back attribute then
    has ``hex=True``, so that module no longer compares equal to the original.
    """
    return _Printer(hex_above).module(module)


def print_operation(op: Operation, depth: int = 0) -> str:
    """The MLIR text of one operation (and its regions), indented ``depth`` levels."""
    return _Printer().operation(op, depth)


def print_type(t: Type) -> str:
    return _Printer().type(t)


def print_attribute(a: Attribute) -> str:
    return _Printer().attr(a)
