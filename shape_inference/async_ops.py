"""Asynchronous ops (spec: async_start, async_done): ``async_start`` wraps one
collective or slice op of its ``body`` region and returns a ``!stablehlo.future<T>`` of
its result; ``async_done`` waits for the future and returns the ``T``.

The future type stays an ``OpaqueType`` in the IR (the parser keeps StableHLO types it
does not model as text); ``future_value_type`` reads the ``T`` inside.
"""

from __future__ import annotations

from typing import Any

from ..parser.errors import ParseError
from ..parser.ir import OpaqueType, Operation, TensorType, Type
from .collective import decode_with_op
from .optable import ShapeContext, define_op
from .typeutil import type_text

FUTURE = "!stablehlo.future<"

# spec async_start (C2): the ops its body may hold.
ASYNC_BODY_OPS = frozenset(
    "stablehlo." + name
    for name in (
        "all_reduce",
        "all_gather",
        "all_to_all",
        "collective_permute",
        "reduce_scatter",
        "collective_broadcast",
        "slice",
        "dynamic_slice",
        "dynamic_update_slice",
    )
)


def future_value_type(t: Type) -> Type | None:
    """The ``T`` of a ``!stablehlo.future<T>`` type (None for any other type)."""
    if not (isinstance(t, OpaqueType) and t.text.startswith(FUTURE) and t.text.endswith(">")):
        return None
    # imported on first use, to keep startup cheap: the grammar loads pyparsing
    from ..parser.grammar import Parser

    try:
        return Parser(t.text[len(FUTURE) : -1]).parse_type()
    except ParseError:
        return None


def _body_op(ctx: ShapeContext) -> Operation:
    """spec async_start (C1): ``body`` is one block of one op and a return of its
    results."""
    blocks = ctx.regions[0].blocks if ctx.regions else ()
    ops = blocks[0].operations if len(blocks) == 1 else ()
    if len(ops) != 2 or ops[1].name != "stablehlo.return":
        raise ctx.error("async_start_c1", "body must contain a single operation and a return")
    op, ret = ops
    if [v.name for v in ret.operands] != [v.name for v in op.results]:
        raise ctx.error("async_start_c1", "body must return the results of its operation")
    return op


def async_start_shape(ctx: ShapeContext, *operands: Type, op: Operation) -> None:
    """spec: async_start (C1)-(C4).  The result type cannot be written from the body's
    alone (it is a future of it): the declared one is checked."""
    for t in operands:
        if not isinstance(t, TensorType):
            raise ctx.error("async_start_i1", f"operands must be tensors, got {type_text(t)}")
    inner = _body_op(ctx)
    if inner.name not in ASYNC_BODY_OPS:  # async_start_c2
        raise ctx.error(
            "async_start_c2",
            f"body holds '{inner.name}': only a collective (all_reduce, all_gather, "
            "all_to_all, collective_permute, reduce_scatter, collective_broadcast) or a "
            "slice (slice, dynamic_slice, dynamic_update_slice) may run asynchronously",
        )
    args = ctx.regions[0].blocks[0].arguments
    given = [v.name for v in op.operands]
    passed = [v.name for v in inner.operands]
    by_arguments = [a.name for a in args] == passed and [a.type for a in args] == list(operands)
    if passed != given and not by_arguments:  # async_start_c3
        raise ctx.error(
            "async_start_c3",
            f"the operation in body takes ({', '.join(passed)}), async_start "
            f"({', '.join(given)}): they must be the same",
        )
    if len(inner.results) != 1 or len(ctx.result_types) != 1:
        raise ctx.error("async_start_c4", "async_start returns one future of one result")
    want = inner.result_types[0]
    got = future_value_type(ctx.result_types[0])
    if got != want:  # async_start_c4
        raise ctx.error(
            "async_start_c4",
            f"result must be !stablehlo.future<{type_text(want)}>, got "
            f"{type_text(ctx.result_types[0])}",
        )
    return None


def async_done_shape(ctx: ShapeContext, operand: Type, *, op: Any = None) -> Type:
    """spec: async_done (C1): a future<T> gives T."""
    t = future_value_type(operand)
    if t is None:
        raise ctx.error(
            "async_done_i1", f"operand must be a tensor future, got {type_text(operand)}"
        )
    return t


define_op(
    "stablehlo.async_start",
    async_start_shape,
    regions=("body",),
    decode=decode_with_op,
    traits={"side_effects"},
)
define_op(
    "stablehlo.async_done",
    async_done_shape,
    decode=decode_with_op,
    traits={"side_effects"},
    result_labels=("async_done_c1", "async_done_c1"),
)
