"""One walk over the IR tree for the VHLO passes: rebuild a region / an op with each
nested op (and block argument) mapped, or visit every nested op.

MLIR's rewrite drivers visit an op before the ops of its regions (``Operation::walk``
pre-order, the dialect conversion's legalization order); the visits here follow it.
The IR is frozen (parser/ir.py): each function returns new objects.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from ..ir import Block, Function, Module, Operation, Region, Value

OpMap = Callable[[Operation], Operation]
ValueMap = Callable[[Value], Value]

__all__ = ["iter_ops", "map_blocks", "map_body", "map_region", "rebuild", "rebuild_blocks"]


def map_blocks(region: Region, block: Callable[[Block], Block]) -> Region:
    """``region`` with each block through ``block``."""
    return Region(tuple(block(b) for b in region.blocks))


def map_region(region: Region, op: OpMap, arg: ValueMap | None = None) -> Region:
    """``region`` with each op of its blocks through ``op`` and, given ``arg``, each
    block argument through it (arguments first, as a block defines them first)."""

    def block(b: Block) -> Block:
        args = b.arguments if arg is None else tuple(arg(a) for a in b.arguments)
        return Block(args, tuple(op(o) for o in b.operations), b.label, b.arg_locations)

    return map_blocks(region, block)


def rebuild(op: Operation, nested: OpMap, **changes: Any) -> Operation:
    """``op`` with each op of its regions through ``nested`` (the regions first, in
    order) and ``changes`` to its own fields."""
    regions = tuple(map_region(r, nested) for r in op.regions)
    return dataclasses.replace(op, regions=regions, **changes)


def rebuild_blocks(op: Operation, block: Callable[[Block], Block], **changes: Any) -> Operation:
    """``op`` with each block of its regions through ``block`` and ``changes`` to its own
    fields."""
    regions = tuple(map_blocks(r, block) for r in op.regions)
    return dataclasses.replace(op, regions=regions, **changes)


def map_body(
    module: Module, item: Callable[[Function | Operation], Function | Operation], **changes: Any
) -> Module:
    """``module`` with each top-level function / op through ``item``."""
    return dataclasses.replace(module, body=tuple(item(x) for x in module.body), **changes)


def iter_ops(ops: Iterable[Operation]) -> Iterator[Operation]:
    """``ops`` and every op nested in them, each before the ops of its regions."""
    stack = list(reversed(tuple(ops)))
    while stack:
        op = stack.pop()
        yield op
        for r in reversed(op.regions):
            for b in reversed(r.blocks):
                stack.extend(reversed(b.operations))
