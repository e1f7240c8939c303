"""Control-flow ops (spec "Control flow" and "Miscellaneous"): while, if, case,
optimization_barrier, tuple, get_tuple_element, custom_call, composite, tokens."""

from __future__ import annotations

import re

import numpy as np

from ..parser.ir import (
    IntegerType,
    Region,
    TensorType,
    TokenType,
    TupleType,
    Type,
    TypeExtensions,
)
from .buffers import buffer_tensor, is_buffer
from .elementwise import shapes_compatible
from .mhlo import custom_call_shape as mhlo_custom_call_shape
from .mhlo import mhlo_target_row
from .optable import ShapeContext, define_op
from .typeutil import require_per_tensor, type_text
from .verifier import compatible


def _returned_types(region: Region) -> tuple[Type, ...]:
    return tuple(v.type for v in region.blocks[0].operations[-1].operands)


def _arg_types(region: Region) -> tuple[Type, ...]:
    return tuple(v.type for v in region.blocks[0].arguments)


def _same(ctx: ShapeContext, label: str, got: tuple[Type, ...], want: tuple[Type, ...], what: str):
    if len(got) != len(want) or not all(compatible(a, b) for a, b in zip(got, want)):
        raise ctx.error(
            label, f"{what}: expected types {list(map(str, want))}, got {list(map(str, got))}"
        )


def _is_scalar_of(t: Type, pred) -> bool:
    return isinstance(t, TensorType) and t.shape == () and pred(t.element_type)


def _branched_dim(a: int | None, b: int | None, abound: int | None, bbound: int | None):
    """The StableHLO dialect's inferBranchedDimAndBound: equal static sizes stay; else
    the dimension is dynamic, bounded by the larger size-or-bound when both have one."""
    if a is not None and a == b:
        return a, None
    left = a if a is not None else abound
    right = b if b is not None else bbound
    if left is None or right is None:
        return None, None
    return None, max(left, right)


def _branched_type(x: Type, y: Type) -> Type:
    if not (isinstance(x, TensorType) and isinstance(y, TensorType)):
        return x
    if x.shape is None or y.shape is None or len(x.shape) != len(y.shape):
        return x if y.shape is None else y
    xb = x.bounds or (None,) * len(x.shape)
    yb = y.bounds or (None,) * len(y.shape)
    dims = [_branched_dim(a, b, p, q) for a, b, p, q in zip(x.shape, y.shape, xb, yb)]
    bounds = tuple(b for _, b in dims)
    encoding = TypeExtensions(bounds) if any(b is not None for b in bounds) else None
    return TensorType(tuple(d for d, _ in dims), x.element_type, encoding)


def branched_types(branches) -> tuple[Type, ...]:
    """Result types of if / case: the branches' returned types, merged dimension by
    dimension (a dimension where the branches differ becomes dynamic).  The callers
    have checked that every branch returns as many values as the first."""
    out = tuple(branches[0])
    for other in branches[1:]:
        out = tuple(_branched_type(a, b) for a, b in zip(out, other))
    return out


def _declared_results(ctx: ShapeContext, label: str, inferred: tuple[Type, ...]):
    """The declared result types must be compatible with ``inferred`` (the spec's
    ``type(results...) = ...`` constraint, under ``label``); return ``inferred``."""
    declared = ctx.result_types
    if len(declared) != len(inferred) or not all(
        compatible(a, b) for a, b in zip(declared, inferred)
    ):
        raise ctx.error(
            label,
            f"result types {list(map(str, declared))} do not match {list(map(str, inferred))}",
        )
    return inferred


def while_shape(ctx: ShapeContext, *operand_types: Type):
    """spec "while": (C1) cond: (T...) -> tensor<i1>; (C2) body: (T...) -> T...;
    (C3) result types = operand types."""
    if len(ctx.regions) != 2:
        raise ctx.error("while_c1", "expects two regions, cond and body")
    cond, body = ctx.regions
    _same(ctx, "while_c1", _arg_types(cond), operand_types, "cond arguments")  # while_c1
    ret = _returned_types(cond)
    if len(ret) != 1 or not _is_scalar_of(
        ret[0], lambda e: isinstance(e, IntegerType) and e.is_bool
    ):
        raise ctx.error("while_c1", "cond must return a single tensor<i1>")  # while_c1
    _same(ctx, "while_c2", _arg_types(body), operand_types, "body arguments")  # while_c2
    _same(ctx, "while_c2", _returned_types(body), operand_types, "body results")  # while_c2
    return _declared_results(ctx, "while_c3", operand_types)  # while_c3


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
    return _declared_results(ctx, "if_c3", branched_types((t, f)))  # if_c3


def case_shape(ctx: ShapeContext, index: Type):
    """spec "case": (C1) at least one branch; (C2) branches take no arguments;
    (C3) same result types; (C4) results = branch outputs; index is tensor<si32>."""
    if not _is_scalar_of(
        index, lambda e: isinstance(e, IntegerType) and e.width == 32 and not e.is_unsigned
    ):
        raise ctx.error("case_i1", "index must be a 0-dimensional tensor of si32")
    if not ctx.regions:
        raise ctx.error("case_c1", "expects at least one branch")  # case_c1
    first = _returned_types(ctx.regions[0])
    for r in ctx.regions:
        if _arg_types(r):
            raise ctx.error("case_c2", "branches take no arguments")  # case_c2
        _same(ctx, "case_c3", _returned_types(r), first, "branch results")  # case_c3
    merged = branched_types([_returned_types(r) for r in ctx.regions])
    return _declared_results(ctx, "case_c4", merged)  # case_c4


def identity_shape(ctx: ShapeContext, *operand_types: Type):
    """optimization_barrier (C1): results have the operands' types (tensors, per-tensor
    quantized tensors or tokens: ODS ``HLO_TensorOrToken``)."""
    for t in operand_types:
        require_per_tensor(ctx, t, "optimization_barrier_i1")
    return operand_types


def tuple_shape(ctx: ShapeContext, *operand_types: Type):
    """tuple (C1): result is tuple<operand types>."""
    return TupleType(operand_types)


def get_tuple_element_shape(ctx: ShapeContext, operand: Type, *, index: int):
    """get_tuple_element (C1) 0 <= index < size(operand); (C2) result type."""
    if not isinstance(operand, TupleType):
        raise ctx.error("get_tuple_element_i1", "operand must be a tuple")
    if not 0 <= index < len(operand.types):
        raise ctx.error(
            "get_tuple_element_c1", f"index {index} out of bounds"
        )  # get_tuple_element_c1
    return operand.types[index]  # get_tuple_element_c2


def token_shape(ctx: ShapeContext, *operand_types: Type):
    """after_all (I1) inputs are tokens; the result is a token.  create_token takes none."""
    for t in operand_types:
        if not isinstance(t, TokenType):
            raise ctx.error("after_all_i1", "operands must be tokens")
    return TokenType()


# ---- custom_call (the StableHLO dialect's verifier; the spec leaves it open) -----------

_API_VERSIONS = {
    0: "API_VERSION_UNSPECIFIED",
    1: "API_VERSION_ORIGINAL",
    2: "API_VERSION_STATUS_RETURNING",
    3: "API_VERSION_STATUS_RETURNING_UNIFIED",
    4: "API_VERSION_TYPED_FFI",
}


def _layout_text(layout) -> str:
    values = [int(v) for v in np.asarray(layout).reshape(-1)]
    if not values:
        return "dense<> : tensor<0xindex>"
    body = str(values[0]) if len(values) == 1 else str(values)
    return f"dense<{body}> : tensor<{len(values)}xindex>"


def _check_layouts(ctx: ShapeContext, types: tuple[Type, ...], layouts, what: str) -> None:
    if len(types) != len(layouts):
        raise ctx.error(
            "custom_call_layouts",
            f"Number of {what}s must match the number of "
            f"{what} layouts, {len(types)} != {len(layouts)}",
        )
    for i, (t, layout) in enumerate(zip(types, layouts)):
        values = [int(v) for v in np.asarray(layout).reshape(-1)]
        if isinstance(t, TupleType):
            raise ctx.error(
                "custom_call_layouts",
                "Tuple types are not fully supported with layout constraints yet",
            )
        if not isinstance(t, TensorType):
            if values:
                raise ctx.error(
                    "custom_call_layouts",
                    f"Only tensor types can have non-empty layout: {what} #{i} of "
                    f"type '{type_text(t)}' has layout {_layout_text(layout)}",
                )
            continue
        if t.shape is None:
            continue
        if sorted(values) != list(range(len(t.shape))):
            raise ctx.error(
                "custom_call_layouts",
                f"incorrect layout {_layout_text(layout)} for type "
                f"'{type_text(t)}', layout must be a permutation of "
                f"[0, {len(t.shape)})",
            )


def _check_aliases(ctx: ShapeContext, operand_types: tuple[Type, ...], aliases) -> None:
    results = ctx.result_types
    for alias in aliases or ():
        index = alias.operand_index
        if not 0 <= index < len(operand_types):
            raise ctx.error(
                "custom_call_aliases",
                f"expects operandIndex in the output_operand_alias attribute to be "
                f"in range [0, {len(operand_types)}); got: {index}.",
            )
        operand_part = operand_types[index]
        for i in alias.operand_tuple_indices:
            if not isinstance(operand_part, TupleType) or not 0 <= i < len(operand_part.types):
                raise ctx.error(
                    "custom_call_aliases",
                    "operand_tuple_indices in the output_operand_alias attribute out of bounds",
                )
            operand_part = operand_part.types[i]
        output_part = TupleType(tuple(results)) if len(results) != 1 else results[0]
        for i in alias.output_tuple_indices:
            if not isinstance(output_part, TupleType) or not 0 <= i < len(output_part.types):
                raise ctx.error(
                    "custom_call_aliases",
                    "output_tuple_indices in the output_operand_alias attribute out of bounds",
                )
            output_part = output_part.types[i]
        if operand_part != output_part:
            raise ctx.error(
                "custom_call_aliases",
                "shapes mismatch in the output_operand_alias attribute: operand "
                f"part has type '{type_text(operand_part)}' and output part has "
                f"type '{type_text(output_part)}'",
            )


def custom_call_shape(
    ctx: ShapeContext,
    *operand_types: Type,
    call_target_name="",
    operand_layouts=None,
    result_layouts=None,
    output_operand_aliases=(),
    backend_config=None,
    api_version=1,
    **attrs: object,
):
    """custom_call: layouts, output_operand_aliases and backend_config agree with the
    operands and results (the StableHLO dialect's CustomCallOp verifier).  A call of an
    mhlo op (``@mhlo.<op>``, shape_inference/mhlo.py) is that op: its result types are
    the op's shape function's."""
    row = mhlo_target_row(call_target_name)
    if row is not None:
        return mhlo_custom_call_shape(ctx, row, operand_types, attrs.get("mhlo.attributes"))
    if operand_layouts is not None or result_layouts is not None:
        if operand_layouts is None or result_layouts is None:
            raise ctx.error(
                "custom_call_layouts",
                "Layout attributes should be specified for "
                "either both operands and results or none.",
            )
        results = ctx.result_types
        if len(results) == 1 and isinstance(results[0], TupleType):
            results = results[0].types
        _check_layouts(ctx, operand_types, operand_layouts, "operand")
        _check_layouts(ctx, tuple(results), result_layouts, "result")
    _check_aliases(ctx, operand_types, output_operand_aliases)
    if backend_config is not None:
        version = (
            api_version
            if isinstance(api_version, str)
            else _API_VERSIONS.get(api_version, str(api_version))
        )
        if version == "API_VERSION_TYPED_FFI" and isinstance(backend_config, str):
            raise ctx.error(
                "custom_call_backend_config",
                f"backend_config for api_version {version} must be a dictionary attribute.",
            )
        if version != "API_VERSION_TYPED_FFI" and isinstance(backend_config, dict):
            raise ctx.error(
                "custom_call_backend_config",
                f"backend_config for api_version {version} must be a string attribute.",
            )
    _check_buffers(ctx, operand_types, call_target_name, output_operand_aliases)
    return None


def _compatible_buffer(a: Type, b: Type) -> bool:
    """MLIR's verifyCompatibleShape (same rank, equal or dynamic sizes; an unranked side
    is compatible) and equal element types, of a tensor and a buffer."""
    x = a if isinstance(a, TensorType) else buffer_tensor(a)
    y = b if isinstance(b, TensorType) else buffer_tensor(b)
    if x is None or y is None or x.element_type != y.element_type:
        return False
    return shapes_compatible(x.shape, y.shape)


def _kind(t: Type) -> str | None:
    """ "tensor" (MLIR's TensorType, ranked or not), "memref" or None."""
    return "tensor" if isinstance(t, TensorType) else ("memref" if is_buffer(t) else None)


def _leaves(t: Type, at: tuple[int, ...] = ()):
    """(type, tuple indices) of each non-tuple type in ``t`` (hlo::mapOverLeafTypes)."""
    if isinstance(t, TupleType):
        for i, x in enumerate(t.types):
            yield from _leaves(x, (*at, i))
    else:
        yield t, at


def _indices(indices) -> str:
    return "[" + ", ".join(str(i) for i in indices) + "]"


def _check_buffers(ctx: ShapeContext, operand_types: tuple[Type, ...], target: str, aliases):
    """The StableHLO dialect's CustomCallOp::verifyKnownCustomCalls: ``CreateBuffer``
    makes one buffer from nothing; ``Pin`` turns one tensor into a buffer of its shape
    and element type, ``Unpin`` a buffer into such a tensor; any other target's buffer
    results are each an output of one output_operand_alias, and a buffer operand part
    is aliased at most once (the aliases' types were checked by ``_check_aliases``)."""
    results = ctx.result_types

    def fail(message: str):
        return ctx.error("custom_call_buffers", f"{target} custom_call {message}")

    if target == "CreateBuffer":
        if operand_types:
            raise fail("shouldn't have any inputs")
        if len(results) != 1:
            raise fail("should have one result")
        if not is_buffer(results[0]):
            raise fail("should have a memref result")
        return
    if target in ("Pin", "Unpin"):
        source, made = ("tensor", "memref") if target == "Pin" else ("memref", "tensor")
        if len(operand_types) != 1:
            raise fail("should have one input")
        if _kind(operand_types[0]) != source:
            raise fail(f"should have a {source} input")
        if len(results) != 1:
            raise fail("should have one output")
        if _kind(results[0]) != made:
            raise fail(f"should have a {made} output")
        if not _compatible_buffer(operand_types[0], results[0]):
            raise fail("should have compatible input and output types")
        return
    outputs: set[tuple[int, ...]] = set()
    operands: set[tuple[int, tuple[int, ...]]] = set()
    for alias in aliases or ():
        part = operand_types[alias.operand_index]
        for i in alias.operand_tuple_indices:
            part = part.types[i]
        if not is_buffer(part):
            continue
        out = tuple(alias.output_tuple_indices)
        if out in outputs:
            raise ctx.error(
                "custom_call_buffers",
                f"buffer output {_indices(out)} is used in output_operand_alias more than once",
            )
        outputs.add(out)
        key = (alias.operand_index, tuple(alias.operand_tuple_indices))
        if key in operands:
            raise ctx.error(
                "custom_call_buffers",
                f"buffer operand {key[0]}{_indices(key[1])} is used in output_operand_alias "
                "more than once",
            )
        operands.add(key)
    result = results[0] if len(results) == 1 else TupleType(tuple(results))
    for t, at in _leaves(result):
        if is_buffer(t) and at not in outputs:
            raise ctx.error(
                "custom_call_buffers",
                f"buffer output {_indices(at)} is not used in output_operand_alias",
            )


# spec: is_namespaced_op_name
_NAMESPACED_OP_NAME = re.compile(r"[a-zA-Z][a-zA-Z0-9_]*([.][a-zA-Z0-9_$]+)+")


def composite_shape(ctx: ShapeContext, *operand_types: Type, name: str = "", **_: object):
    """composite (C1) is_namespaced_op_name(name).  (C2)-(C4) need the module's symbol
    table: the verifier checks them."""
    if not _NAMESPACED_OP_NAME.fullmatch(name):  # composite_c1
        raise ctx.error("composite_c1", "name must be a valid namespaced op name")
    return None


define_op(
    "stablehlo.while",
    while_shape,
    regions=("cond", "body"),
    multi_result=True,
    traits={"loop"},
    buffers=True,
)
define_op("stablehlo.if", if_shape, regions=("true_branch", "false_branch"), multi_result=True)
define_op(
    "stablehlo.case", case_shape, regions=("branches",), variadic_regions=True, multi_result=True
)
define_op(
    "stablehlo.optimization_barrier",
    identity_shape,
    multi_result=True,
    traits={"no_fold"},
    result_labels=("optimization_barrier_c1", "optimization_barrier_c1"),
)
define_op("stablehlo.tuple", tuple_shape, result_labels=("tuple_c1", "tuple_c1"), buffers=True)
define_op(
    "stablehlo.get_tuple_element",
    get_tuple_element_shape,
    attrs={"index": 0},
    result_labels=("get_tuple_element_c2", "get_tuple_element_c2"),
    buffers=True,
)
define_op("stablehlo.after_all", token_shape, traits={"no_fold"})
define_op("stablehlo.create_token", token_shape, traits={"no_fold"})
define_op(
    "stablehlo.custom_call",
    custom_call_shape,
    attrs={
        "call_target_name": "",
        "has_side_effect": False,
        "backend_config": None,
        "api_version": 1,
        "called_computations": (),
        "operand_layouts": None,
        "result_layouts": None,
        "output_operand_aliases": (),
        # discardable attributes the built-in targets read (engine/kernels/custom_targets.py)
        "mhlo.backend_config": None,
        "mhlo.frontend_attributes": None,
        "error_message": None,
        "rng_algorithm": None,
        "indices_of_shape_operands": None,
    },
    multi_result=True,
    traits={"side_effects"},  # a target may read or write anything
    buffers=True,
)
define_op(
    "stablehlo.composite",
    composite_shape,
    attrs={"name": "", "composite_attributes": None, "decomposition": "", "version": 0},
    multi_result=True,
    callee=("decomposition", "composite_c2", "composite_c3", "composite_c4"),
)
