"""The Shardy (``sdy``) dialect, a plug-in of the core (parser/dialects.py).

This module: its attributes, as frozen IR classes, their text syntax and MLIR's printed
form.  ``sdy.bytecode_codec``: their bytecode encodings; ``sdy.dialect``: the
registration and the ops' compiled text forms; ``sdy.ops``: the ops' declarations
(formats included); ``sdy.format_directives``: the elements their formats use.

Facts from openxla/shardy ``shardy/dialect/sdy/ir/attrs.td`` (parameters, assembly
formats), ``parsers.cc`` / ``printers.cc`` (the custom directives: dimension shardings,
``mesh_or_ref``, replicated / unreduced axes, factor symbols) and ``utils.cc``
(``factorSymbolString``: ``i``..``z`` then ``z_1``, ``z_2``...).  The text parser and
the bytecode codec (``sdy.bytecode_codec``) build the same values, so text and
bytecode give equal IR.

Each class prints its *stripped* form (``stripped()``, what an op's custom syntax and
an enclosing sdy attribute write) and its full form (``str()``: ``#sdy.mesh<...>`` when
MLIR's pretty dialect-symbol form applies, else ``#sdy<mnemonic...>``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..errors import ParseError
from ..ir import Attribute, SymbolRefAttr
from ..lexer import Cursor, unescape_string
from ..printer_core import _symbol, escape_string

REDUCTION_OPS = ("sum", "max", "min")  # enums.td Sdy_ReductionOp, by value
PROPAGATION_DIRECTIONS = ("NONE", "FORWARD", "BACKWARD", "BOTH")  # Sdy_PropagationDirection
_K_START_AT_Z = ord("z") - ord("i")  # utils.h kStartAtZ
_FACTOR_RE = re.compile(r"(?:z_[0-9]+|[i-z])+")
_ONE_FACTOR_RE = re.compile(r"z_([0-9]+)|([i-z])")
_INT_RE = re.compile(r"[-+]?[0-9]+")
_PRIORITY_RE = re.compile(r"p(0|[1-9][0-9]*)(?![A-Za-z0-9_$])")


def factor_symbol(i: int) -> str:
    """utils.cc factorSymbolString."""
    return chr(ord("i") + i) if i <= _K_START_AT_Z else f"z_{i - _K_START_AT_Z}"


def _s(name: str) -> str:
    return escape_string(name)


def _join(items) -> str:
    return ", ".join(x.stripped() for x in items)


class SdyAttr(Attribute):
    """Base of the sdy attributes: ``mnemonic`` and the stripped form."""

    __slots__ = ()
    dialect = "sdy"  # the dialect an attribute class names (as VhloAttr's)
    mnemonic = ""
    pretty = False  # printed #sdy.mnemonic<...> (else #sdy<mnemonic...>)

    def stripped(self) -> str:
        raise NotImplementedError

    def mlir_text(self) -> str:
        """The full form (the printer's hook for attributes that spell themselves)."""
        return str(self)

    def __str__(self) -> str:
        if self.pretty:
            return f"#sdy.{self.mnemonic}{self.stripped()}"
        return f"#sdy<{self.mnemonic}{self.stripped()}>"


@dataclass(frozen=True)
class MeshAxis(SdyAttr):
    """``"x"=4``."""

    name: str
    size: int
    mnemonic = "mesh_axis"

    def stripped(self) -> str:
        return f"{_s(self.name)}={self.size}"


@dataclass(frozen=True)
class Mesh(SdyAttr):
    """``<["x"=2, "y"=4], device_ids=[...]>``."""

    axes: tuple[MeshAxis, ...] = ()
    device_ids: tuple[int, ...] = ()
    mnemonic = "mesh"
    pretty = True

    def __post_init__(self) -> None:
        """attrs.td MeshAttr builder: iota ``device_ids`` of a mesh with axes are dropped."""
        n = 1
        for a in self.axes:
            n *= a.size
        if self.axes and self.device_ids == tuple(range(n)):
            object.__setattr__(self, "device_ids", ())

    def stripped(self) -> str:
        dev = f", device_ids=[{', '.join(map(str, self.device_ids))}]" if self.device_ids else ""
        return f"<[{_join(self.axes)}]{dev}>"

    @property
    def shape(self) -> tuple[int, ...]:
        return tuple(a.size for a in self.axes)


@dataclass(frozen=True)
class SubAxisInfo(SdyAttr):
    """``(pre_size)size``."""

    pre_size: int
    size: int
    mnemonic = "sub_axis_info"

    def stripped(self) -> str:
        return f"({self.pre_size}){self.size}"


@dataclass(frozen=True)
class AxisRef(SdyAttr):
    """``"x"`` or ``"x":(1)2``."""

    name: str
    sub_axis_info: SubAxisInfo | None = None
    mnemonic = "axis_ref"

    def stripped(self) -> str:
        sub = f":{self.sub_axis_info.stripped()}" if self.sub_axis_info else ""
        return _s(self.name) + sub


@dataclass(frozen=True)
class DimensionSharding(SdyAttr):
    """``{"x", "y"}``, ``{"x", ?}`` (open), ``{}p1`` (priority)."""

    axes: tuple[AxisRef, ...] = ()
    is_closed: bool = True
    priority: int | None = None
    mnemonic = "dimension_sharding"

    def stripped(self) -> str:
        body = _join(self.axes)
        if not self.is_closed:
            body += ", ?" if self.axes else "?"
        pri = f"p{self.priority}" if self.priority is not None else ""
        return "{" + body + "}" + pri


def _axis_list(axes) -> str:
    return "{" + _join(axes) + "}"


@dataclass(frozen=True)
class TensorSharding(SdyAttr):
    """``<@mesh, [{"x"}, {}], replicated={"y"}, unreduced={"z"}>``; ``mesh_or_ref`` is a
    SymbolRefAttr or an inline Mesh."""

    mesh_or_ref: Attribute
    dim_shardings: tuple[DimensionSharding, ...] = ()
    replicated_axes: tuple[AxisRef, ...] = ()
    unreduced_axes: tuple[AxisRef, ...] = ()
    reduction_op: str = "sum"
    mnemonic = "sharding"
    pretty = True

    @property
    def mesh_name(self) -> str | None:
        m = self.mesh_or_ref
        return m.root if isinstance(m, SymbolRefAttr) else None

    def stripped(self) -> str:
        m = self.mesh_or_ref
        mesh = "mesh" + m.stripped() if isinstance(m, Mesh) else "@" + _sym(m)
        out = f"<{mesh}, [{_join(self.dim_shardings)}]"
        if self.replicated_axes:
            out += ", replicated=" + _axis_list(self.replicated_axes)
        if self.unreduced_axes:
            op = "" if self.reduction_op == "sum" else self.reduction_op
            out += ", unreduced=" + op + _axis_list(self.unreduced_axes)
        return out + ">"


def _sym(m: Attribute) -> str:
    assert isinstance(m, SymbolRefAttr)
    return _symbol(m.root)[1:]


@dataclass(frozen=True)
class TensorShardingPerValue(SdyAttr):
    """``<[<@mesh, ...>, ...]>`` (an op's ``in_shardings=[...]`` drops the ``<>``)."""

    shardings: tuple[TensorSharding, ...] = ()
    mnemonic = "sharding_per_value"
    pretty = True

    def list_text(self) -> str:
        return "[" + _join(self.shardings) + "]"

    def stripped(self) -> str:
        return "<" + self.list_text() + ">"


@dataclass(frozen=True)
class ManualAxes(SdyAttr):
    """``{"x", "y"}`` (ArrayOfAttr of StringAttr)."""

    value: tuple[str, ...] = ()
    mnemonic = "manual_axes"

    def stripped(self) -> str:
        return "{" + ", ".join(_s(v) for v in self.value) + "}"


@dataclass(frozen=True)
class DimMapping(SdyAttr):
    """``ij``: the factors of one dimension."""

    factor_indices: tuple[int, ...]
    mnemonic = "dim_mapping"

    def stripped(self) -> str:
        return "".join(factor_symbol(i) for i in self.factor_indices)

    def __str__(self) -> str:
        return f"#sdy<{self.mnemonic} {self.stripped()}>"


@dataclass(frozen=True)
class TensorMapping(SdyAttr):
    """``[i, jk]``."""

    dim_mappings: tuple[DimMapping, ...] = ()
    mnemonic = "tensor_mapping"

    def stripped(self) -> str:
        return "[" + _join(self.dim_mappings) + "]"


_RULE_LISTS = ("reduction", "need_replication", "permutation", "blocked_propagation")


@dataclass(frozen=True)
class OpShardingRule(SdyAttr):
    """``<([i, j])->([i, j]) {i=2, j=3} reduction={j}, custom>``."""

    factor_sizes: tuple[int, ...] = ()
    operand_mappings: tuple[TensorMapping, ...] = ()
    result_mappings: tuple[TensorMapping, ...] = ()
    reduction_factors: tuple[int, ...] = ()
    need_replication_factors: tuple[int, ...] = ()
    permutation_factors: tuple[int, ...] = ()
    blocked_propagation_factors: tuple[int, ...] = ()
    is_custom_rule: bool = False
    mnemonic = "op_sharding_rule"
    pretty = True

    def factor_lists(self) -> tuple[tuple[int, ...], ...]:
        return (
            self.reduction_factors,
            self.need_replication_factors,
            self.permutation_factors,
            self.blocked_propagation_factors,
        )

    def stripped(self) -> str:
        out = f"<({_join(self.operand_mappings)})->({_join(self.result_mappings)})"
        if self.factor_sizes:
            sizes = ", ".join(f"{factor_symbol(i)}={n}" for i, n in enumerate(self.factor_sizes))
            out += " {" + sizes + "}"
        for kind, factors in zip(_RULE_LISTS, self.factor_lists()):
            if factors:
                out += f" {kind}={{" + ", ".join(factor_symbol(i) for i in factors) + "}"
        return out + (", custom" if self.is_custom_rule else "") + ">"


@dataclass(frozen=True)
class AxisRefList(SdyAttr):
    """``{"x", "y":(1)2}``."""

    value: tuple[AxisRef, ...] = ()
    mnemonic = "axis_ref_list"

    def stripped(self) -> str:
        return _axis_list(self.value)


@dataclass(frozen=True)
class ListOfAxisRefLists(SdyAttr):
    """``[{"x"}, {}]``."""

    value: tuple[AxisRefList, ...] = ()
    mnemonic = "list_of_axis_ref_lists"

    def stripped(self) -> str:
        return "[" + _join(self.value) + "]"


@dataclass(frozen=True)
class AllToAllParam(SdyAttr):
    """``{"x"}: 0->1``."""

    axes: tuple[AxisRef, ...]
    src_dim: int
    tgt_dim: int
    mnemonic = "all_to_all_param"

    def stripped(self) -> str:
        return f"{_axis_list(self.axes)}: {self.src_dim}->{self.tgt_dim}"


@dataclass(frozen=True)
class AllToAllParamList(SdyAttr):
    """``[{"x"}: 0->1, ...]``."""

    value: tuple[AllToAllParam, ...] = ()
    mnemonic = "all_to_all_param_list"

    def stripped(self) -> str:
        return "[" + _join(self.value) + "]"


# ---- parsing ----------------------------------------------------------------------------


def _string(c: Cursor, what: str) -> str:
    s = c.string()
    if s is None:
        raise c.error(f"expected {what} (a string), found {c.describe()}")
    return s


def parse_int(c: Cursor, what: str) -> int:
    c.skip()
    m = _INT_RE.match(c.text, c.pos)
    if m is None:
        raise c.error(f"expected {what} (an integer), found {c.describe()}")
    c.pos = m.end()
    return int(m.group(0))


def _seq(c: Cursor, close: str, item, what: str) -> tuple:
    """Comma-separated ``item(c)`` up to ``close`` (consumed)."""
    out = []
    if c.accept(close):
        return ()
    while True:
        out.append(item(c))
        if c.accept(close):
            return tuple(out)
        c.expect(",", f"or '{close}' in {what}")


def parse_mesh_axis(c: Cursor) -> MeshAxis:
    name = _string(c, "a mesh axis name")
    c.expect("=", "after the mesh axis name")
    return MeshAxis(name, parse_int(c, "the mesh axis size"))


def parse_mesh(c: Cursor) -> Mesh:
    """``<[axes](, device_ids=[...])?>``."""
    c.expect("<", "to open a mesh")
    c.expect("[", "before the mesh axes")
    axes = _seq(c, "]", parse_mesh_axis, "mesh axes")
    dev: tuple[int, ...] = ()
    if c.accept(","):
        c.expect_keyword("device_ids")
        c.expect("=")
        c.expect("[")
        dev = _seq(c, "]", lambda c: parse_int(c, "a device id"), "device ids")
    c.expect(">", "to close the mesh")
    return Mesh(axes, dev)


def parse_axis_ref(c: Cursor) -> AxisRef:
    name = _string(c, "an axis name")
    if c.accept(":"):
        c.expect("(")
        pre = parse_int(c, "a sub-axis pre-size")
        c.expect(")")
        return AxisRef(name, SubAxisInfo(pre, parse_int(c, "a sub-axis size")))
    return AxisRef(name)


def parse_axis_list(c: Cursor) -> tuple[AxisRef, ...]:
    c.expect("{", "to open an axis list")
    return _seq(c, "}", parse_axis_ref, "axis list")


def parse_dim_sharding(c: Cursor) -> DimensionSharding:
    """DimensionShardingAttr::parse: ``{axes[, ?]}`` then an optional ``p<N>``."""
    c.expect("{", "to open a dimension sharding")
    axes: list[AxisRef] = []
    closed = True
    while not c.accept("}"):
        if axes:
            c.expect(",", "or '}' in dimension sharding")
        if c.accept("?"):
            closed = False
            c.expect("}", "after '?'")
            break
        axes.append(parse_axis_ref(c))
    priority = None
    m = _PRIORITY_RE.match(c.text, c.pos)  # no blank before the priority
    if m is None and c.text.startswith("p", c.skip()):
        raise c.error("expecting priority in format 'p<number>'")
    if m is not None:
        c.pos = m.end()
        priority = int(m.group(1))
    return DimensionSharding(tuple(axes), closed, priority)


def parse_sharding(c: Cursor) -> TensorSharding:
    """``<@mesh | mesh<...>, [dims](, replicated={..})?(, unreduced=[max|min]{..})?>``."""
    c.expect("<", "to open a tensor sharding")
    if c.accept_keyword("mesh"):
        mesh: Attribute = parse_mesh(c)
    else:
        c.skip()
        m = c.match(re.compile(r'@(?:[A-Za-z_$.\-][A-Za-z0-9_$.\-]*|"(?:[^"\\\n]|\\.)*")'))
        if m is None:
            raise c.error(f"expecting MeshAttr or FlatSymbolRefAttr, found {c.describe()}")
        body = m.group(0)[1:]
        mesh = SymbolRefAttr(unescape_string(body[1:-1]) if body.startswith('"') else body)
    c.expect(",", "after the mesh")
    c.expect("[", "before the dimension shardings")
    dims = _seq(c, "]", parse_dim_sharding, "dimension shardings")
    replicated: tuple[AxisRef, ...] = ()
    unreduced: tuple[AxisRef, ...] = ()
    op = "sum"
    while c.accept(","):
        key = c.keyword()
        c.expect("=", f"after '{key}'")
        if key == "replicated" and not replicated:
            replicated = parse_axis_list(c)
        elif key == "unreduced" and not unreduced:
            word = c.keyword() if c.peek().isalpha() else None
            if word is not None and word not in REDUCTION_OPS:
                raise c.error(f"unknown reduction op '{word}'")
            op = word or "sum"
            unreduced = parse_axis_list(c)
        else:
            raise c.error(f"expected 'replicated' or 'unreduced', found '{key}'")
    c.expect(">", "to close the tensor sharding")
    return TensorSharding(mesh, dims, replicated, unreduced, op)


def parse_sharding_list(c: Cursor) -> TensorShardingPerValue:
    """``[<...>, ...]`` (StrippedTensorShardingPerValueAttr)."""
    c.expect("[", "before the shardings")
    return TensorShardingPerValue(_seq(c, "]", parse_sharding, "shardings"))


def parse_sharding_per_value(c: Cursor) -> TensorShardingPerValue:
    c.expect("<")
    out = parse_sharding_list(c)
    c.expect(">", "to close sharding_per_value")
    return out


def parse_manual_axes(c: Cursor) -> ManualAxes:
    c.expect("{", "to open the manual axes")
    return ManualAxes(_seq(c, "}", lambda c: _string(c, "an axis name"), "manual axes"))


def _factor_indices(text: str) -> tuple[int, ...]:
    out = []
    for m in _ONE_FACTOR_RE.finditer(text):
        if m.group(1) is not None:
            out.append(_K_START_AT_Z + int(m.group(1)))
        else:
            out.append(ord(m.group(2)) - ord("i"))
    return tuple(out)


def parse_dim_mapping(c: Cursor) -> DimMapping:
    m = c.match(_FACTOR_RE)
    if m is None:
        raise c.error(f"expecting symbol from 'i' to 'z', found {c.describe()}")
    return DimMapping(_factor_indices(m.group(0)))


def parse_tensor_mapping(c: Cursor) -> TensorMapping:
    c.expect("[", "to open a tensor mapping")
    return TensorMapping(_seq(c, "]", parse_dim_mapping, "tensor mapping"))


def _one_factor(c: Cursor) -> int:
    m = c.match(_ONE_FACTOR_RE)
    if m is None:
        raise c.error(f"expecting a factor symbol, found {c.describe()}")
    return _factor_indices(m.group(0))[0]


def _factor_size(c: Cursor) -> tuple[int, int]:
    f = _one_factor(c)
    c.expect("=", "after the factor")
    return f, parse_int(c, "a factor size")


def parse_op_sharding_rule(c: Cursor) -> OpShardingRule:
    """``<(mappings)->(mappings) {i=2, ...} reduction={..} ... , custom>``."""
    c.expect("<", "to open an op sharding rule")
    c.expect("(")
    operands = _seq(c, ")", parse_tensor_mapping, "operand mappings")
    c.expect("->")
    c.expect("(")
    results = _seq(c, ")", parse_tensor_mapping, "result mappings")
    sizes: tuple[int, ...] = ()
    if c.accept("{"):
        pairs = _seq(c, "}", _factor_size, "factor sizes")
        if [f for f, _ in pairs] != list(range(len(pairs))):
            raise c.error("factor sizes must name the factors in order i, j, k, ...")
        sizes = tuple(n for _, n in pairs)
    lists: dict[str, tuple[int, ...]] = {}
    while True:
        save = c.pos
        key = c.keyword()
        if key is None:
            break
        if key not in _RULE_LISTS or key in lists:
            c.pos = save
            break
        c.expect("=")
        c.expect("{")
        lists[key] = _seq(c, "}", _one_factor, f"{key} factors")
    custom = False
    if c.accept(","):
        c.expect_keyword("custom")
        custom = True
    c.expect(">", "to close the op sharding rule")
    return OpShardingRule(
        sizes,
        operands,
        results,
        reduction_factors=lists.get("reduction", ()),
        need_replication_factors=lists.get("need_replication", ()),
        permutation_factors=lists.get("permutation", ()),
        blocked_propagation_factors=lists.get("blocked_propagation", ()),
        is_custom_rule=custom,
    )


def _all_to_all_param(c: Cursor) -> AllToAllParam:
    axes = parse_axis_list(c)
    c.expect(":")
    src = parse_int(c, "a source dimension")
    c.expect("->")
    return AllToAllParam(axes, src, parse_int(c, "a target dimension"))


def parse_list_of_axis_ref_lists(c: Cursor) -> ListOfAxisRefLists:
    c.expect("[")
    return ListOfAxisRefLists(
        _seq(c, "]", lambda c: AxisRefList(parse_axis_list(c)), "axis ref lists")
    )


def parse_all_to_all_params(c: Cursor) -> AllToAllParamList:
    c.expect("[")
    return AllToAllParamList(_seq(c, "]", _all_to_all_param, "all-to-all params"))


# The stripped-form parser of each mnemonic (the cursor at the body after it).
STRIPPED_PARSERS = {
    "mesh_axis": parse_mesh_axis,
    "mesh": parse_mesh,
    "sub_axis_info": lambda c: parse_axis_ref_sub(c),
    "axis_ref": parse_axis_ref,
    "dimension_sharding": parse_dim_sharding,
    "sharding": parse_sharding,
    "sharding_per_value": parse_sharding_per_value,
    "manual_axes": parse_manual_axes,
    "dim_mapping": parse_dim_mapping,
    "tensor_mapping": parse_tensor_mapping,
    "op_sharding_rule": parse_op_sharding_rule,
    "axis_ref_list": lambda c: AxisRefList(parse_axis_list(c)),
    "list_of_axis_ref_lists": parse_list_of_axis_ref_lists,
    "all_to_all_param": _all_to_all_param,
    "all_to_all_param_list": parse_all_to_all_params,
}


def parse_axis_ref_sub(c: Cursor) -> SubAxisInfo:
    c.expect("(")
    pre = parse_int(c, "a sub-axis pre-size")
    c.expect(")")
    return SubAxisInfo(pre, parse_int(c, "a sub-axis size"))


def parse_sdy_attr(c: Cursor, name: str, start: int) -> Attribute:
    """After ``#sdy.<mnemonic>`` or ``#sdy`` (``name``): the attribute."""
    if name == "#sdy":
        c.expect("<", "after '#sdy'")
        kind = c.keyword()
        parser = STRIPPED_PARSERS.get(kind or "")
        if parser is None:
            raise c.error(f"unknown sdy attribute '{kind}'", start)
        value = parser(c)
        c.expect(">", f"to close #sdy<{kind}...>")
        return value
    kind = name[len("#sdy.") :]
    parser = STRIPPED_PARSERS.get(kind)
    if parser is None:
        raise c.error(f"unknown sdy attribute '{kind}'", start)
    return parser(c)


__all__ = [
    "AllToAllParam",
    "AllToAllParamList",
    "AxisRef",
    "AxisRefList",
    "DimMapping",
    "DimensionSharding",
    "ListOfAxisRefLists",
    "ManualAxes",
    "Mesh",
    "MeshAxis",
    "OpShardingRule",
    "ParseError",
    "SdyAttr",
    "SubAxisInfo",
    "TensorMapping",
    "TensorSharding",
    "TensorShardingPerValue",
    "factor_symbol",
    "parse_sdy_attr",
]
