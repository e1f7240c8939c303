"""Use-list orders: which order each value's uses are in, as MLIR records it
(BytecodeWriter.cpp ``writeUseListOrders``; ``getUseID`` in
mlir/include/mlir/Bytecode/Encoding.h).

MLIR keeps a value's uses newest first (a new use is pushed on the front).  Reading
bytecode or text creates the uses in program order, so a reader rebuilds the reverse
of the program order by itself; the writer stores an order only when the in-memory
one differs, e.g. after a rewrite pattern replaced a user of the value: the new op's
uses are the newest.  Here a use's age is modelled as (replaced?, replacement rank or
the user's pre-order number, operand number).
"""

from __future__ import annotations

from .numbering import WValue


def use_id(owner_id: int, operand: int) -> int:
    """bytecode::getUseID: the user's pre-order number, then the operand number."""
    return (owner_id << 32) | operand


def _age(owner, operand: int) -> tuple[int, int, int]:
    if owner.late is not None:
        return (1, owner.late, operand)
    return (0, owner.op_id, operand)


def value_order(v: WValue) -> tuple[bool, tuple[int, ...]] | None:
    """(index-pair encoding, items) for one value, or None when its uses are already
    in the order a reader rebuilds."""
    uses = v.uses
    if len(uses) < 2:
        return None
    in_memory = sorted(uses, key=lambda u: _age(*u), reverse=True)
    ids = [use_id(owner.op_id, operand) for owner, operand in in_memory]
    if all(a > b for a, b in zip(ids, ids[1:])):
        return None
    order = [i for i, _ in sorted(enumerate(ids), key=lambda p: p[1], reverse=True)]
    shuffled = sum(1 for i, o in enumerate(order) if i != o)
    if shuffled < len(order) // 2:
        items: list[int] = []
        for i, o in enumerate(order):
            if i != o:
                items += [o, i]
        return True, tuple(items)
    return False, tuple(order)


def dense_map_order(keys: list[int]) -> list[int]:
    """The iteration order of an llvm::DenseMap<unsigned, ...> holding ``keys``
    (buckets by ``key * 37``, 64 buckets at least, grown at 3/4 load)."""
    buckets = 64
    while len(keys) * 4 >= buckets * 3:
        buckets *= 2
    return sorted(keys, key=lambda k: (k * 37) & (buckets - 1))


def range_orders(values: list[WValue]) -> tuple[tuple[int, bool, tuple[int, ...]], ...]:
    """The (value index, index-pair encoding, items) entries of a result/argument
    range, in the order the writer emits them."""
    found = {}
    for i, v in enumerate(values):
        o = value_order(v)
        if o is not None:
            found[i] = o
    return tuple((i, *found[i]) for i in dense_map_order(list(found)))
