"""The format elements of the Shardy ops' text forms (parser/sdy/ops.py formats), in
parser/op_format.py's language: how an attribute of an sdy kind is spelled
(``KINDS``) and the custom directives of ops.td (``DIRECTIVES``), each one object
that parses and prints its piece.

Syntax from openxla/shardy ``shardy/dialect/sdy/ir``: an sdy attribute inside an op's
form is written stripped, without ``#sdy.<mnemonic>`` (ODS prints a typed attribute
parameter so; attrs.td assembly formats); the enums (enums.td, I32EnumAttr: an ``i32``
IntegerAttr) by their case's keyword; ``parsers.cc`` / ``printers.cc``:
``StrippedTensorShardingPerValueAttr`` (``[<...>, ...]``, the sharding list without its
``<>``) and ``SingleBlockRegionNoBlockId`` (``(%arg: t, ...) { ops }``: the entry
block's arguments before the region, no block label).
"""

from __future__ import annotations

from collections.abc import Callable

from .. import lexer as lx
from ..attr_syntax import _symbol_name
from ..format_elements import Element, ParseState, PrintState
from ..ir import Attribute, IntegerAttr, IntegerType, Operation, StringAttr
from ..lexer import Cursor
from ..opdecl import AttrDecl, OpDecl
from ..printer_core import _keyword_or_string
from . import (
    PROPAGATION_DIRECTIONS,
    REDUCTION_OPS,
    AllToAllParamList,
    AxisRefList,
    ListOfAxisRefLists,
    ManualAxes,
    Mesh,
    SdyAttr,
    TensorSharding,
    TensorShardingPerValue,
    parse_all_to_all_params,
    parse_axis_list,
    parse_list_of_axis_ref_lists,
    parse_manual_axes,
    parse_mesh,
    parse_sharding,
    parse_sharding_list,
    parse_sharding_per_value,
)

I32 = IntegerType(32)


class _AttrElement(Element):
    """An element that spells one attribute ``name`` (an anchor when ``is_anchor``)."""

    def __init__(self, name: str, is_anchor: bool = False) -> None:
        self.name = name
        self.spells = (name,)
        self.anchor = name if is_anchor else None

    def bind(self, decl: OpDecl) -> None:
        if decl.attr(self.name) is None:
            raise ValueError(f"{decl.name}: format names undeclared attribute ${self.name}")

    def present(self, op: Operation) -> bool:
        return op.attr(self.name) is not None

    def parse(self, st: ParseState) -> None:
        st.attrs.append((self.name, self.read(st.p.c)))

    def print(self, st: PrintState) -> str | None:
        a = st.op.attr(self.name)
        return None if a is None else self.write(a)

    def read(self, c: Cursor) -> Attribute:
        raise NotImplementedError

    def write(self, a: Attribute) -> str | None:
        raise NotImplementedError


class Stripped(_AttrElement):
    """An sdy attribute of class ``cls`` in its stripped form (``<@mesh, [{"x"}]>``)."""

    def __init__(self, name: str, is_anchor: bool, cls: type, reader: Callable) -> None:
        super().__init__(name, is_anchor)
        self.cls = cls
        self.read = reader  # type: ignore[method-assign]

    def write(self, a: Attribute) -> str | None:
        return a.stripped() if isinstance(a, self.cls) and isinstance(a, SdyAttr) else None


class EnumCase(_AttrElement):
    """An I32EnumAttr (an ``i32`` IntegerAttr) written as its case's keyword."""

    def __init__(self, name: str, is_anchor: bool, cases: tuple[str, ...], what: str) -> None:
        super().__init__(name, is_anchor)
        self.cases = cases
        self.what = what

    def read(self, c: Cursor) -> Attribute:
        word = c.keyword()
        if word not in self.cases:
            raise c.error(f"expected a {self.what}, found '{word}'")
        return IntegerAttr(self.cases.index(word), I32)

    def write(self, a: Attribute) -> str | None:
        if isinstance(a, IntegerAttr) and a.type == I32 and 0 <= a.value < len(self.cases):
            return self.cases[a.value]
        return None


class SymbolName(_AttrElement):
    """A SymbolNameAttr (a StringAttr) written ``@name`` (``@"name"`` when not bare)."""

    def read(self, c: Cursor) -> Attribute:
        sym = c.expect_match(lx.SYMBOL_RE, f"the @name of '{self.name}'").group(0)
        return StringAttr(_symbol_name(sym, c))

    def write(self, a: Attribute) -> str | None:
        return "@" + _keyword_or_string(a.value) if isinstance(a, StringAttr) else None


def _stripped(cls: type, reader: Callable[[Cursor], Attribute]):
    return lambda a, anchor: Stripped(a.name, anchor, cls, reader)


# How an attribute of an sdy kind (parser/sdy/ops.py) is spelled: kind -> the element,
# fn(attribute declaration, is_anchor).
KINDS: dict[str, Callable[[AttrDecl, bool], Element]] = {
    "Sdy_Mesh": _stripped(Mesh, parse_mesh),
    "Sdy_TensorSharding": _stripped(TensorSharding, parse_sharding),
    "Sdy_TensorShardingPerValue": _stripped(TensorShardingPerValue, parse_sharding_per_value),
    "Sdy_ManualAxes": _stripped(ManualAxes, parse_manual_axes),
    "Sdy_AxisRefList": _stripped(AxisRefList, lambda c: AxisRefList(parse_axis_list(c))),
    "Sdy_ListOfAxisRefLists": _stripped(ListOfAxisRefLists, parse_list_of_axis_ref_lists),
    "Sdy_AllToAllParamList": _stripped(AllToAllParamList, parse_all_to_all_params),
    "Sdy_PropagationDirection": lambda a, anchor: EnumCase(
        a.name, anchor, PROPAGATION_DIRECTIONS, "propagation direction"
    ),
    "Sdy_ReductionOp": lambda a, anchor: EnumCase(a.name, anchor, REDUCTION_OPS, "reduction"),
    "SymbolNameAttr": lambda a, anchor: SymbolName(a.name, anchor),
}


# ---- the custom directives of ops.td --------------------------------------------------


class StrippedTensorShardingPerValueAttr(_AttrElement):
    """custom<StrippedTensorShardingPerValueAttr>($x): ``[<@mesh, ...>, ...]``."""

    def read(self, c: Cursor) -> Attribute:
        return parse_sharding_list(c)

    def write(self, a: Attribute) -> str | None:
        return a.list_text() if isinstance(a, TensorShardingPerValue) else None


class DefaultedReductionOp(_AttrElement):
    """ops.td ``($reduction_op^)?`` of a ``DefaultValuedAttr<Sdy_ReductionOp, SUM>``:
    a reduction's keyword (``max``) when one comes next, nothing for the default.  An
    op holding the default ``sum`` itself does not fit (the generic form is written,
    as hlorun always wrote it)."""

    def parse(self, st: ParseState) -> None:
        c = st.p.c
        save = c.pos
        word = c.keyword()
        if word in REDUCTION_OPS:
            st.attrs.append((self.name, IntegerAttr(REDUCTION_OPS.index(word), I32)))
        else:
            c.pos = save

    def print(self, st: PrintState) -> str | None:
        a = st.op.attr(self.name)
        if a is None:
            return ""
        if isinstance(a, IntegerAttr) and a.type == I32 and 0 < a.value < len(REDUCTION_OPS):
            return REDUCTION_OPS[a.value]
        return None


class SingleBlockRegionNoBlockId(Element):
    """custom<SingleBlockRegionNoBlockId>($body): ``(%arg: t loc(...), ...) { ops }``,
    the one block's arguments before the region and no block label."""

    regions = True

    def __init__(self, name: str) -> None:
        self.name = name

    def bind(self, decl: OpDecl) -> None:
        if decl.regions != (self.name,):
            raise ValueError(f"{decl.name}: format names undeclared region ${self.name}")

    def parse(self, st: ParseState) -> None:
        p = st.p
        p.c.expect("(", "and the body's arguments")
        args, arg_locs = p.typed_arguments("a body argument", "the body's arguments")
        st.regions.append(p.parse_region(args, arg_locs))

    def print(self, st: PrintState) -> str | None:
        op = st.op
        if len(op.regions) != 1 or len(op.regions[0].blocks) != 1:
            return None
        block = op.regions[0].blocks[0]
        if block.label is not None or any("#" in a.name for a in block.arguments):
            return None
        region = st.p.region(op.regions[0], st.depth, entry_args=False)
        return f"({st.p.block_args(block)}) {region}"


class SingleType(Element):
    """ops.td ``type($result)`` / ``type($input)`` of an op whose operands and results
    have one type (``SameOperandsAndResultType``, the sharding ops' verifiers): that
    type, the others inferred from it.  An op whose types differ does not fit."""

    def parse(self, st: ParseState) -> None:
        st.types = ((st.p.parse_type(),), None)

    def print(self, st: PrintState) -> str | None:
        op = st.op
        types = (*op.operand_types, *op.result_types)
        if not types or any(t != types[0] for t in types):
            return None
        return st.p.type(types[0])


DIRECTIVES: dict[str, Callable[..., Element]] = {
    "StrippedTensorShardingPerValueAttr": StrippedTensorShardingPerValueAttr,
    "DefaultedReductionOp": DefaultedReductionOp,
    "SingleBlockRegionNoBlockId": SingleBlockRegionNoBlockId,
    "SingleType": SingleType,
}
