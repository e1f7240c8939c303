"""One declaration per Shardy (``sdy``) op: operands, results, attributes (kind,
default, optionality), regions and text form, as parser/opdecl.py declares the core's.

Facts from openxla/shardy ``shardy/dialect/sdy/ir/ops.td`` (read at a0277a8, 2026-08):

- operand and result names (``*``: ``Variadic<...>``), attribute names and
  optionality: each op's ``arguments`` / ``results`` / ``regions``; an ``OptionalAttr``
  defaults to None (absent), ``DefaultValuedAttr<Sdy_ReductionOp, SUM>`` to ``"sum"``;
- kinds: an sdy attribute's is its ops.td constraint (``Sdy_TensorSharding``,
  ``Sdy_Mesh``..., attrs.td; ``Sdy_PropagationDirection`` / ``Sdy_ReductionOp``, enums.td
  I32EnumAttr), as is ``SymbolNameAttr``'s (parser/sdy/format_directives.py ``KINDS``
  spells them); the core's kinds otherwise: ``I64Attr`` -> "i64", ``StrAttr`` ->
  "string", ``ElementsAttr`` -> "dense";
- formats: each op's ``assemblyFormat`` in parser/op_format.py's language (``$input``
  / ``$tensor`` / ``$operand`` / ``$results`` -> ``operands``, ``type($result)`` /
  ``type($input)`` -> ``custom<SingleType>``, ``functional-type(...)`` ->
  ``type(functional)``); the custom
  directives (parsers.cc / printers.cc) are parser/sdy/format_directives.py's.  Two
  spellings differ from ops.td: ``ConstantOp``'s ``hasCustomAssemblyFormat`` (dialect.cc
  ConstantOp::parse / print, stablehlo's constant form) is ``custom<Constant>``, and
  ``AllReduceOp`` / ``ReduceScatterOp``'s ``($reduction_op^)?`` is
  ``custom<DefaultedReductionOp>($reduction_op)`` (the format language's optional
  groups begin with a literal).

parser/sdy/dialect.py compiles the formats (the sdy parser and printer); the bytecode
codec (parser/sdy/bytecode_codec.py) reads each op's properties from ``attrs``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..opdecl import REQUIRED, AttrDecl, OpDecl

_TD = "shardy/dialect/sdy/ir/ops.td"

# the sharding ops' `$input $sharding attr-dict `:` type($result)`
_SHARDING = "operands $sharding attr-dict `:` custom<SingleType>"
# the explicit collectives: `$<axes> $tensor `out_sharding````=```$out_sharding ...`
_OUT_SHARDING = "operands `out_sharding````=```$out_sharding attr-dict `:` custom<SingleType>"
_PER_VALUE = "custom<StrippedTensorShardingPerValueAttr>"
_BODY = "custom<SingleBlockRegionNoBlockId>($body)"


def _a(name: str, kind: str, default: Any = REQUIRED) -> AttrDecl:
    return AttrDecl(name, kind, default)


def _op(
    name: str,
    attrs: tuple[AttrDecl, ...],
    fmt: str,
    operands: str = "",
    results: str = "result",
    regions: tuple[str, ...] = (),
) -> OpDecl:
    return OpDecl.of(name, _TD, fmt, operands, results, attrs, regions)


def _collective(name: str, axes: str, kind: str, reduction: bool = False) -> OpDecl:
    attrs: tuple[AttrDecl, ...] = (_a(axes, kind), _a("out_sharding", "Sdy_TensorSharding"))
    fmt = f"${axes} {_OUT_SHARDING}"
    if reduction:
        attrs += (_a("reduction_op", "Sdy_ReductionOp", "sum"),)
        fmt = f"custom<DefaultedReductionOp>($reduction_op) {fmt}"
    return _op(name, attrs, fmt, "tensor")


_DECLS = (
    _op(
        "sdy.mesh",
        (_a("sym_name", "SymbolNameAttr"), _a("mesh", "Sdy_Mesh")),
        "$sym_name `=` $mesh attr-dict",
        results="",
    ),
    _op("sdy.sharding_constraint", (_a("sharding", "Sdy_TensorSharding"),), _SHARDING, "input"),
    _op("sdy.reshard", (_a("sharding", "Sdy_TensorSharding"),), _SHARDING, "input"),
    _op("sdy.return", (), "attr-dict operands (`:` type(operands)^)?", "results*", ""),
    _op(
        "sdy.manual_computation",
        (
            _a("in_shardings", "Sdy_TensorShardingPerValue"),
            _a("out_shardings", "Sdy_TensorShardingPerValue"),
            _a("manual_axes", "Sdy_ManualAxes"),
        ),
        f"`(` operands `)` `in_shardings````=```{_PER_VALUE}($in_shardings) "
        f"`out_shardings````=```{_PER_VALUE}($out_shardings) "
        f"`manual_axes````=```$manual_axes {_BODY} attr-dict `:` type(functional)",
        "tensors*",
        "results*",
        ("body",),
    ),
    _op(
        "sdy.sharding_group",
        (_a("group_id", "i64"),),
        "operands `group_id````=```$group_id attr-dict `:` custom<SingleType>",
        "input",
        "",
    ),
    _op("sdy.constant", (_a("value", "dense"),), "custom<Constant>", results="output"),
    _op(
        "sdy.data_flow_edge",
        (_a("sharding", "Sdy_TensorSharding", None),),
        "operands (`sharding````=``` $sharding^)? attr-dict `:` custom<SingleType>",
        "input",
    ),
    _op(
        "sdy.propagation_barrier",
        (_a("allowed_direction", "Sdy_PropagationDirection"),),
        "operands `allowed_direction````=```$allowed_direction attr-dict `:` custom<SingleType>",
        "input",
    ),
    _op(
        "sdy.named_computation",
        (
            _a("name", "string"),
            _a("in_shardings", "Sdy_TensorShardingPerValue", None),
            _a("out_shardings", "Sdy_TensorShardingPerValue", None),
        ),
        # ops.td `<`$name`>` `` `(` $operands `)`: no blank around the name
        f"`` `<` `` $name `` `>` `(` operands `)` "
        f"(`in_shardings````=```{_PER_VALUE}($in_shardings)^)? "
        f"(`out_shardings````=```{_PER_VALUE}($out_shardings)^)? "
        f"{_BODY} attr-dict `:` type(functional)",
        "operands*",
        "results*",
        ("body",),
    ),
    _collective("sdy.all_gather", "gathering_axes", "Sdy_ListOfAxisRefLists"),
    _collective("sdy.all_slice", "slicing_axes", "Sdy_ListOfAxisRefLists"),
    _collective("sdy.all_to_all", "params", "Sdy_AllToAllParamList"),
    _op(
        "sdy.collective_permute",
        (_a("out_sharding", "Sdy_TensorSharding"),),
        _OUT_SHARDING,
        "tensor",
    ),
    _collective("sdy.all_reduce", "reduction_axes", "Sdy_AxisRefList", reduction=True),
    _collective(
        "sdy.reduce_scatter", "reduce_scatter_axes", "Sdy_ListOfAxisRefLists", reduction=True
    ),
    _collective("sdy.sharded_to_unreduced", "axes", "Sdy_ListOfAxisRefLists"),
    _collective("sdy.replicated_to_unreduced", "axes", "Sdy_AxisRefList"),
    _op("sdy.func_data_flow_edge", (), "operands attr-dict `:` custom<SingleType>", "operand"),
)

SDY_OPS: Mapping[str, OpDecl] = {d.name: d for d in _DECLS}
