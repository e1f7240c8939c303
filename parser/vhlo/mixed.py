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
from .walk import rebuild_blocks

CAST = "builtin.unrealized_conversion_cast"


def _is_vhlo(op: Operation) -> bool:
    return op.name.startswith("vhlo.")


def _convert(t: Type, to_vhlo: bool) -> Type:
    if to_vhlo:
        from .to_vhlo import to_vhlo_type

        return to_vhlo_type(t, True)
    from .from_vhlo import from_vhlo_type

    return from_vhlo_type(t)


class _Def:
    """A value's definition as the casts see it: its side, type and cast (if any)."""

    __slots__ = ("name", "vhlo", "type", "cast")

    def __init__(self, name: str, vhlo: bool, t: Type) -> None:
        self.name, self.vhlo, self.type = name, vhlo, t
        self.cast: Value | None = None

    def cast_op(self) -> Operation:
        assert self.cast is not None
        return Operation(CAST, (Value(self.name, self.type),), (self.cast,))


class _Casts:
    """One pass over a top-level op.  Values are known by name and sibling regions
    reuse names, so each block is a scope of the definitions it holds; a use finds its
    definition in the innermost scope naming it, and a cast goes right after that
    definition (a block argument's at the start of its block)."""

    def __init__(self) -> None:
        self.scopes: list[dict[str, _Def]] = []
        self.n = 0

    def use(self, v: Value, user_vhlo: bool) -> Value:
        d = next((s[v.name] for s in reversed(self.scopes) if v.name in s), None)
        if d is None or d.vhlo == user_vhlo:
            return v
        if d.cast is None:
            self.n += 1
            d.cast = Value(f"%__cast{self.n}", _convert(d.type, user_vhlo))
        return d.cast

    def op(self, op: Operation) -> Operation:
        side = _is_vhlo(op)
        operands = tuple(self.use(v, side) for v in op.operands)
        return rebuild_blocks(op, lambda b: self.block(b, side), operands=operands)

    def block(self, b: Block, side: bool) -> Block:
        scope: dict[str, _Def] = {}
        args = []
        for a in b.arguments:
            d = scope[a.name] = _Def(a.name, side or isinstance(a.type, VhloType), a.type)
            args.append(d)
        self.scopes.append(scope)
        try:
            done: list[tuple[Operation, list[_Def]]] = []
            for o in b.operations:
                new = self.op(o)
                defs = []
                for v in o.results:
                    d = scope[v.name] = _Def(v.name, _is_vhlo(o), v.type)
                    defs.append(d)
                done.append((new, defs))
        finally:
            self.scopes.pop()
        ops = [d.cast_op() for d in reversed(args) if d.cast is not None]
        for new, defs in done:
            ops.append(new)
            ops += [d.cast_op() for d in defs if d.cast is not None]
        return Block(b.arguments, tuple(ops), b.label, b.arg_locations)


def materialize_casts(item):
    """``item`` (a top-level op) with the casts its mixed regions need."""
    if not isinstance(item, Operation):
        return item
    return _Casts().op(item)
