"""Pattern analysis of regions: which reduction bodies and sort comparators have a
NumPy equivalent.

Only IR is inspected here (never arrays).  Kernels use the answers to pick a fast path
and fall back to calling the region on whole tensors when the answer is None.

* ``reduction_combiners(region)``: ``("stablehlo.add", ...)`` when a reduce body with
  ``2N`` arguments returns ``op_i(arg_i, arg_{N+i})`` for every result ``i``
  (commutative ops may have their operands swapped).
* ``sort_keys(region, n_operands)``: the lexicographic key list of a sort comparator,
  found by evaluating the comparator's boolean formula over every combination of
  per-key outcomes (less / equal / greater), so any spelling (``or``/``and``/``select``
  /``not`` chains, GT written as swapped LT...) of a lexicographic order is recognised.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from parser.ir import DenseElementsAttr, EnumAttr, Region

RETURN_OPS = frozenset({"stablehlo.return", "func.return", "return"})

COMMUTATIVE = frozenset(
    {
        "stablehlo.add",
        "stablehlo.multiply",
        "stablehlo.maximum",
        "stablehlo.minimum",
        "stablehlo.and",
        "stablehlo.or",
        "stablehlo.xor",
    }
)

MAX_SORT_KEYS = 6  # 3**6 outcome combinations at most


def _single_block(region: Region | None):
    if region is None or len(region.blocks) != 1:
        return None
    block = region.blocks[0]
    if not block.operations or block.operations[-1].name not in RETURN_OPS:
        return None
    return block


def reduction_combiners(region: Region | None) -> tuple[str, ...] | None:
    """Per-result binary ops of a reduce-style body, or None.

    The body must take ``2N`` arguments ``(acc_0..acc_{N-1}, x_0..x_{N-1})`` and return
    ``op_i(acc_i, x_i)`` (or ``op_i(x_i, acc_i)`` for a commutative ``op_i``), each
    computed by its own single op with no region.
    """
    block = _single_block(region)
    if block is None:
        return None
    args = [v.name for v in block.arguments]
    if len(args) % 2:
        return None
    n = len(args) // 2
    ret = block.operations[-1]
    if len(ret.operands) != n:
        return None
    producers = {}
    for op in block.operations[:-1]:
        for r in op.results:
            producers[r.name] = op
    if len(block.operations) - 1 != n:
        return None
    out = []
    for i, v in enumerate(ret.operands):
        op = producers.get(v.name)
        if op is None or op.regions or len(op.results) != 1 or len(op.operands) != 2:
            return None
        names = [o.name for o in op.operands]
        if names == [args[i], args[n + i]]:
            out.append(op.name)
        elif names == [args[n + i], args[i]] and op.name in COMMUTATIVE:
            out.append(op.name)
        else:
            return None
    return tuple(out)


@dataclass(frozen=True)
class SortKey:
    """One key of a lexicographic comparator: sort by ``inputs[operand]``, ascending
    unless ``descending``, comparing with ``compare_type`` (None: the default of the
    element type; "FLOAT", "TOTALORDER", "SIGNED", "UNSIGNED")."""

    operand: int
    descending: bool
    compare_type: str | None
    part: str | None = None  # "real" / "imag": the key is that part of a complex operand


_DIRECTIONS = {
    # outcome o = sign(lhs - rhs) in {-1, 0, 1} -> predicate
    "LT": lambda o: o < 0,
    "LE": lambda o: o <= 0,
    "GT": lambda o: o > 0,
    "GE": lambda o: o >= 0,
    "EQ": lambda o: o == 0,
    "NE": lambda o: o != 0,
}


def _enum(attr) -> str | None:
    if isinstance(attr, EnumAttr):
        return attr.value
    return None


def _i1_splat(op) -> bool | None:
    attr = op.attr("value")
    if isinstance(attr, DenseElementsAttr) and attr.array.dtype == np.bool_ and attr.array.size:
        flat = attr.array.reshape(-1)
        if bool(flat.all()) or not bool(flat.any()):
            return bool(flat[0])
    return None


def _formula(block, n_operands: int):
    """Symbolic evaluation of a comparator block.

    Returns ``(keys, types, table_fn)`` where ``keys`` lists the ``(operand index, part)``
    pairs that are compared (``part`` is "real"/"imag" for ``stablehlo.real``/``imag`` of
    a complex operand, as JAX writes complex keys, else None), ``types`` their compare types, and ``table_fn(outcomes)`` evaluates the
    formula given a dict key -> outcome array.  None when the block is not a boolean
    formula over pairwise compares of ``arg_{2i}`` with ``arg_{2i+1}``.
    """
    args = {v.name: (i, None) for i, v in enumerate(block.arguments)}
    if len(args) != 2 * n_operands:
        return None
    keys: list[tuple[int, str | None]] = []
    types: dict[tuple[int, str | None], str | None] = {}
    program = []  # (result name, kind, payload)
    for op in block.operations[:-1]:
        if len(op.results) != 1 or op.regions:
            return None
        res = op.results[0].name
        names = [o.name for o in op.operands]
        if op.name in ("stablehlo.real", "stablehlo.imag"):  # jax sorts complex keys so
            if len(names) != 1 or names[0] not in args or args[names[0]][1] is not None:
                return None
            args[res] = (args[names[0]][0], op.name.split(".")[1])
            continue
        if op.name == "stablehlo.compare":
            if len(names) != 2 or names[0] not in args or names[1] not in args:
                return None
            (p, part_p), (q, part_q) = args[names[0]], args[names[1]]
            if p // 2 != q // 2 or p == q or part_p != part_q:
                return None
            key = (p // 2, part_p)
            direction = _enum(op.attr("comparison_direction"))
            if direction not in _DIRECTIONS:
                return None
            ctype = _enum(op.attr("compare_type"))
            if key in types and types[key] != ctype:
                return None
            if key not in types:
                keys.append(key)
                types[key] = ctype
            program.append((res, "cmp", (key, direction, p % 2 == 1)))
        elif op.name == "stablehlo.constant":
            value = _i1_splat(op)
            if value is None:
                return None
            program.append((res, "const", value))
        elif op.name in ("stablehlo.and", "stablehlo.or", "stablehlo.xor", "stablehlo.not"):
            if op.name == "stablehlo.not" and len(names) != 1:
                return None
            program.append((res, op.name.split(".")[1], tuple(names)))
        elif op.name == "stablehlo.select":
            if len(names) != 3:
                return None
            program.append((res, "select", tuple(names)))
        else:
            return None
    ret = block.operations[-1]
    if len(ret.operands) != 1:
        return None
    out = ret.operands[0].name

    def evaluate(outcomes: dict[int, np.ndarray], size: int) -> np.ndarray | None:
        env: dict[str, np.ndarray] = {}
        for res, kind, payload in program:
            if kind == "cmp":
                key, direction, swapped = payload
                o = outcomes[key]
                env[res] = _DIRECTIONS[direction](-o if swapped else o)
            elif kind == "const":
                env[res] = np.full(size, payload)
            else:
                try:
                    vals = [env[name] for name in payload]
                except KeyError:  # a block argument used as a boolean
                    return None
                if kind == "and":
                    env[res] = vals[0] & vals[1]
                elif kind == "or":
                    env[res] = vals[0] | vals[1]
                elif kind == "xor":
                    env[res] = vals[0] ^ vals[1]
                elif kind == "not":
                    env[res] = ~vals[0]
                else:
                    env[res] = np.where(vals[0], vals[1], vals[2])
        return env.get(out)

    return keys, types, evaluate


def sort_keys(region: Region | None, n_operands: int) -> tuple[SortKey, ...] | None:
    """The lexicographic keys of a sort comparator, or None if it is not one.

    The comparator is a lexicographic "less than" over keys ``k_1, k_2, ...`` (each
    ascending or descending) exactly when, over all outcome combinations, it is true
    where the first non-equal key is "less" in its direction and false elsewhere
    (including when all keys are equal).  An always-false comparator gives ``()``: all
    elements are equal.
    """
    block = _single_block(region)
    if block is None:
        return None
    analysed = _formula(block, n_operands)
    if analysed is None:
        return None
    keys, types, evaluate = analysed
    m = len(keys)
    if m > MAX_SORT_KEYS:
        return None
    size = 3**m
    grid = np.indices((3,) * m).reshape(m, size) - 1 if m else np.zeros((0, 1), int)
    outcomes = {k: grid[i] for i, k in enumerate(keys)}
    table = evaluate(outcomes, max(size, 1))
    if table is None:
        return None
    table = np.broadcast_to(np.asarray(table, dtype=bool), (max(size, 1),))
    mask = np.ones(max(size, 1), dtype=bool)
    remaining = list(keys)
    order: list[SortKey] = []
    while table[mask].any():
        for k in remaining:
            o = outcomes[k]
            found = None
            for descending in (False, True):
                less = mask & (o == (1 if descending else -1))
                greater = mask & (o == (-1 if descending else 1))
                if table[less].all() and not table[greater].any():
                    found = descending
                    break
            if found is not None:
                order.append(SortKey(k[0], found, types[k], k[1]))
                remaining.remove(k)
                mask = mask & (o == 0)
                break
        else:
            return None
    return tuple(order)
