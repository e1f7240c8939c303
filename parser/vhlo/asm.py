"""Printing modules that hold VHLO ops (``stablehlo-opt`` output after
``--stablehlo-legalize-to-vhlo``), generic (``--mlir-print-op-generic``) or not.

The VHLO type / attribute syntax follows the assembly formats of VhloTypes.td /
VhloAttrs.td (and the custom printers of VhloTypes.cpp / VhloAttrs.cpp: ``TypeArray``,
``Shape``, ``Encoding``, ``AttributeArray``, ``AttributeDictionary``, integer_v1 and
tensor_v1 printed through their builtin counterparts), as ``parser/vhlo/text.py``
writes them; the ops are printed by the canonical printer (``parser/printer.py``:
MLIR's SSA names from ``parser/ssa_names.py``, the generic form of every op and of
``builtin.module``, the custom forms of ``vhlo.func_v1`` and of the ops a mixed
(allow-other-dialects) module holds).
"""

from __future__ import annotations

from ..ir import Attribute, Module, Type
from ..printer import CanonicalPrinter
from .common import unwrap_generic_module
from .ir import VhloAttr, VhloType
from .text import print_vhlo_attr, print_vhlo_type

__all__ = ["print_vhlo_module", "vhlo_attr_text", "vhlo_type_text"]


class VhloPrinter(CanonicalPrinter):
    """The canonical printer (MLIR's names, no locations, hex above 100 elements),
    its type and attribute printers being VHLO's (VhloTypes.td / VhloAttrs.td syntax);
    ``generic`` prints every op (and the module) in MLIR's generic form."""

    def __init__(self, *, generic: bool = False, hex_above: int | None = 100) -> None:
        super().__init__(generic=generic, hex_above=hex_above)
        self._attr_dispatch[VhloAttr] = self.vhlo_attr

    def _type_uncached(self, t: Type) -> str:
        if isinstance(t, VhloType):
            return self.vhlo_type(t)
        return super()._type_uncached(t)

    def vhlo_type(self, t: VhloType) -> str:
        return print_vhlo_type(t, self.attr, self.type)

    def vhlo_attr(self, a: VhloAttr) -> str:
        return print_vhlo_attr(a, self.attr, self.type)


def print_vhlo_module(module: Module, *, generic: bool = False) -> str:
    """``stablehlo-opt`` text of a module holding VHLO (or StableHLO) ops."""
    return VhloPrinter(generic=generic).module(unwrap_generic_module(module))


def vhlo_type_text(t: Type) -> str:
    return VhloPrinter().type(t)


def vhlo_attr_text(a: Attribute) -> str:
    return VhloPrinter().attr(a)
