"""Control-flow ops (spec "Control flow" and "Miscellaneous"): while, if, case,
optimization_barrier, tuple, get_tuple_element, custom_call, composite, tokens."""

from __future__ import annotations

from parser.ir import (
    IntegerType,
    Region,
    TensorType,
    TokenType,
    TupleType,
    Type,
)

from .optable import ShapeContext, define_op
from .verifier import compatible


def _returned_types(region: Region) -> tuple[Type, ...]:
    return tuple(v.type for v in region.blocks[0].operations[-1].operands)


def _arg_types(region: Region) -> tuple[Type, ...]:
    return tuple(v.type for v in region.blocks[0].arguments)


def _same(ctx: ShapeContext, label: str, got: tuple[Type, ...], want: tuple[Type, ...], what: str):
    if len(got) != len(want) or not all(compatible(a, b) for a, b in zip(got, want)):
        raise ctx.error(label, f"{what}: expected types {list(map(str, want))}, got {list(map(str, got))}")


def _is_scalar_of(t: Type, pred) -> bool:
    return isinstance(t, TensorType) and t.shape == () and pred(t.element_type)


def while_shape(ctx: ShapeContext, *operand_types: Type):
    """spec "while": (C1) cond: (T...) -> tensor<i1>; (C2) body: (T...) -> T...;
    (C3) result types = operand types."""
    if len(ctx.regions) != 2:
        raise ctx.error("while_c1", "expects two regions, cond and body")
    cond, body = ctx.regions
    _same(ctx, "while_c1", _arg_types(cond), operand_types, "cond arguments")  # while_c1
    ret = _returned_types(cond)
    if len(ret) != 1 or not _is_scalar_of(ret[0], lambda e: isinstance(e, IntegerType) and e.is_bool):
        raise ctx.error("while_c1", "cond must return a single tensor<i1>")  # while_c1
    _same(ctx, "while_c2", _arg_types(body), operand_types, "body arguments")  # while_c2
    _same(ctx, "while_c2", _returned_types(body), operand_types, "body results")  # while_c2
    return operand_types  # while_c3


def if_shape(ctx: ShapeContext, pred: Type):
    """spec "if": (C1) two branches with no arguments; (C2) same result types;
    (C3) results = branch outputs; pred is tensor<i1>."""
    if not _is_scalar_of(pred, lambda e: isinstance(e, IntegerType) and e.is_bool):
        raise ctx.error("if_i1", "pred must be a 0-dimensional tensor of i1")
    if len(ctx.regions) != 2:
        raise ctx.error("if_c1", "expects two branches")
    for r in ctx.regions:
        if _arg_types(r):
            raise ctx.error("if_c1", "branches take no arguments")  # if_c1
    t, f = (_returned_types(r) for r in ctx.regions)
    _same(ctx, "if_c2", f, t, "false branch results")  # if_c2
    _same(ctx, "if_c3", ctx.result_types, t, "results")  # if_c3
    return None


def case_shape(ctx: ShapeContext, index: Type):
    """spec "case": (C1) at least one branch; (C2) branches take no arguments;
    (C3) same result types; (C4) results = branch outputs; index is tensor<si32>."""
    if not _is_scalar_of(index, lambda e: isinstance(e, IntegerType) and e.width == 32 and not e.is_unsigned):
        raise ctx.error("case_i1", "index must be a 0-dimensional tensor of si32")
    if not ctx.regions:
        raise ctx.error("case_c1", "expects at least one branch")  # case_c1
    first = _returned_types(ctx.regions[0])
    for r in ctx.regions:
        if _arg_types(r):
            raise ctx.error("case_c2", "branches take no arguments")  # case_c2
        _same(ctx, "case_c3", _returned_types(r), first, "branch results")  # case_c3
    _same(ctx, "case_c4", ctx.result_types, first, "results")  # case_c4
    return None


def identity_shape(ctx: ShapeContext, *operand_types: Type):
    """optimization_barrier (C1): results have the operands' types."""
    return operand_types


def tuple_shape(ctx: ShapeContext, *operand_types: Type):
    """tuple (C1): result is tuple<operand types>."""
    return TupleType(operand_types)


def get_tuple_element_shape(ctx: ShapeContext, operand: Type, *, index: int):
    """get_tuple_element (C1) 0 <= index < size(operand); (C2) result type."""
    if not isinstance(operand, TupleType):
        raise ctx.error("get_tuple_element_c1", "operand must be a tuple")
    if not 0 <= index < len(operand.types):
        raise ctx.error("get_tuple_element_c1", f"index {index} out of bounds")  # get_tuple_element_c1
    return operand.types[index]  # get_tuple_element_c2


def token_shape(ctx: ShapeContext, *operand_types: Type):
    """after_all / create_token: result is a token."""
    for t in operand_types:
        if not isinstance(t, TokenType):
            raise ctx.error("after_all_c1", "operands must be tokens")
    return TokenType()


define_op("stablehlo.while", while_shape, regions=("cond", "body"), multi_result=True)
define_op("stablehlo.if", if_shape, regions=("true_branch", "false_branch"), multi_result=True)
define_op("stablehlo.case", case_shape, regions=("branches",), variadic_regions=True, multi_result=True)
define_op("stablehlo.optimization_barrier", identity_shape, multi_result=True)
define_op("stablehlo.tuple", tuple_shape)
define_op("stablehlo.get_tuple_element", get_tuple_element_shape, attrs={"index": 0})
define_op("stablehlo.after_all", token_shape)
define_op("stablehlo.create_token", token_shape)
define_op(
    "stablehlo.custom_call",
    None,
    attrs={
        "call_target_name": "",
        "has_side_effect": False,
        "backend_config": None,
        "api_version": 1,
        "called_computations": (),
        "operand_layouts": None,
        "result_layouts": None,
        "output_operand_aliases": (),
    },
    multi_result=True,
)
define_op(
    "stablehlo.composite",
    None,
    attrs={"name": "", "composite_attributes": None, "decomposition": "", "version": 0},
    multi_result=True,
)
