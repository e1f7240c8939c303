"""VHLO types and attributes as data (docs/vhlo.md).

Every VHLO type and attribute is one generic record: its mnemonic (``tensor_v1``,
``integer_v1``...) and its parameters in the order the upstream ``VhloTypes.td`` /
``VhloAttrs.td`` declare them.  What kinds exist, with which parameters and versions,
is the VHLO table's business (``parser/vhlo/table``), not one class per kind.

Parameter values hold exactly what MLIR stores:
- a type / attribute parameter: a ``Type`` / ``Attribute`` (VHLO or builtin);
- ``ArrayRef<int64_t>`` (shapes, dims): ``tuple[int, ...]``; a dynamic dimension is
  MLIR's ``ShapedType::kDynamic`` (-2**63), as stored;
- ``APInt``: ``int`` (the two's-complement bit pattern of its width, unsigned);
- ``APFloat``: ``int`` (the bit pattern of its float semantics);
- ``StringRef``: ``str``; ``bool``: ``bool``; ``ArrayRef<char>`` (dense data): ``bytes``;
- ``ArrayRef<Attribute>`` / ``ArrayRef<Type>``: ``tuple``;
- an enum case (``comparison_direction_v1``): its case name (``"EQ"``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from ..ir import Attribute, Type


@dataclass(frozen=True)
class VhloType(Type):
    """``!vhlo.<name><params>``, e.g. ``VhloType("f32_v1")``."""

    dialect: ClassVar[str] = "vhlo"  # its printer: parser/dialects.py
    name: str
    params: tuple[Any, ...] = ()


@dataclass(frozen=True)
class VhloAttr(Attribute):
    """``#vhlo.<name><params>`` (or ``#vhlo<name VALUE>`` for enums)."""

    dialect: ClassVar[str] = "vhlo"  # its printer: parser/dialects.py
    name: str
    params: tuple[Any, ...] = ()
