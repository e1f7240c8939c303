"""``builtin.unrealized_conversion_cast`` between VHLO and other dialects
(``--stablehlo-legalize-to-vhlo=allow-other-dialects``).

When a VHLO op uses a value an op of another dialect defined (or the other way round),
MLIR's dialect conversion bridges the two types with an unrealized cast
(VhloTypes.cpp ``addUnrealizedMaterializations``).  As the conversion driver places
them: one cast per value and direction, right after the value's definition (for a
block argument, at the start of its block, the last argument's first).
"""

from __future__ import annotations

from ..ir import Block, Operation, Type, Value
from .ir import VhloType
from .walk import rebuild, rebuild_blocks

CAST = "builtin.unrealized_conversion_cast"


def _is_vhlo(op: Operation) -> bool:
    return op.name.startswith("vhlo.")


def _convert(t: Type, to_vhlo: bool) -> Type:
    if to_vhlo:
        from .to_vhlo import to_vhlo_type

        return to_vhlo_type(t, True)
    from .from_vhlo import from_vhlo_type

    return from_vhlo_type(t)


class _Casts:
    def __init__(self) -> None:
        self.native: dict[str, bool] = {}  # value name -> defined on the VHLO side?
        self.types: dict[str, Type] = {}
        self.casts: dict[str, Value] = {}  # value name -> its cast
        self.n = 0

    # pass 1: where each value lives
    def scan(self, op: Operation) -> None:
        side = _is_vhlo(op)
        for v in op.results:
            self.native[v.name] = side
            self.types[v.name] = v.type
        for r in op.regions:
            for b in r.blocks:
                for a in b.arguments:
                    self.native[a.name] = side if side else isinstance(a.type, VhloType)
                    self.types[a.name] = a.type
                for o in b.operations:
                    self.scan(o)

    # pass 2: uses across the boundary
    def use(self, v: Value, user_vhlo: bool) -> Value:
        native = self.native.get(v.name)
        if native is None or native == user_vhlo:
            return v
        cast = self.casts.get(v.name)
        if cast is None:
            self.n += 1
            t = _convert(self.types[v.name], user_vhlo)
            cast = self.casts[v.name] = Value(f"%__cast{self.n}", t)
        return cast

    def rewrite(self, op: Operation) -> Operation:
        operands = tuple(self.use(v, _is_vhlo(op)) for v in op.operands)
        return rebuild(op, self.rewrite, operands=operands)

    # pass 3: the casts, after their definitions
    def cast_op(self, v: Value) -> Operation:
        src = Value(v.name, self.types[v.name])
        return Operation(CAST, (src,), (self.casts[v.name],))

    def place(self, op: Operation) -> Operation:
        return rebuild_blocks(op, self.place_block)

    def place_block(self, b: Block) -> Block:
        ops: list[Operation] = [
            self.cast_op(a) for a in reversed(b.arguments) if a.name in self.casts
        ]
        for o in b.operations:
            ops.append(self.place(o))
            ops += [self.cast_op(v) for v in o.results if v.name in self.casts]
        return Block(b.arguments, tuple(ops), b.label, b.arg_locations)


def materialize_casts(item):
    """``item`` (a top-level op) with the casts its mixed regions need."""
    if not isinstance(item, Operation):
        return item
    c = _Casts()
    c.scan(item)
    return c.place(c.rewrite(item))
