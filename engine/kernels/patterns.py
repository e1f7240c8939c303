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
  With ``transforms=True`` a key may be a per-operand *transform*: a value computed from
  one argument (and constants) by elementwise ops, the same ops on ``arg_{2i}`` and on
  ``arg_{2i+1}``; ``SortKey.key_input`` then evaluates those ops on the whole operand
  with the op table's kernels, so the key is exactly what the comparator compares.

JAX's float sort comparators (``jax.lax.sort``/``jnp.sort``, ``num_keys=1``), both
recognised as transforms:

* current JAX: ``t = select(x == 0, +0, x); t = select(x != x, NaN, t)`` (FLOAT compares
  against constants; NaN is the positive quiet NaN), then ``compare LT, t(x), t(y),
  TOTALORDER``.  Order: -inf < negative values < {-0, +0} < positive values < +inf <
  {every NaN, any sign or payload}.  -0 and +0 tie, all NaNs tie; a stable sort keeps
  input order among ties (an unstable one may permute them).
* older JAX (``_float_to_int_for_sort``): the same canonicalisation (bf16 first
  converted to f32), then ``s = bitcast_convert(t) : si``, ``u = bitcast_convert(t) :
  ui``, ``select(s < 0, bitcast_convert(INT_MAX - u) : si, s)`` and a SIGNED ``LT``.
  The integer is monotone in the IEEE total order of ``t``, so the order, the ties
  (-0/+0, all NaNs) and the NaN placement (last) are the same as above.

Several keys (``num_keys > 1``) are ``lt(k0) | (eq(k0) & lt(k1))`` chains of such
compares, recognised by the outcome-table check like untransformed keys.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ...parser.errors import HloError
from ...parser.ir import (
    DenseElementsAttr,
    EnumAttr,
    Operation,
    QuantizedType,
    Region,
    TensorType,
    Type,
)
from ...shape_inference.decode import decode_op_attributes
from ...shape_inference.optable import OP_TABLE

RETURN_OPS = frozenset({"stablehlo.return", "func.return", "return"})

MAX_SORT_KEYS = 6


def _commutative(name: str) -> bool:
    row = OP_TABLE.get(name)
    return row is not None and "commutative" in row.traits


def _transform_kind(name: str) -> bool:
    """May ``name`` compute a sort key transform (module note above ``IDENTITY_OPS``)?"""
    if name == "stablehlo.constant" or name in IDENTITY_OPS:
        return True
    row = OP_TABLE.get(name)
    return row is not None and "elementwise" in row.traits  # 3**6 outcome combinations at most


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
        elif names == [args[n + i], args[i]] and _commutative(op.name):
            out.append(op.name)
        else:
            return None
    return tuple(out)


# Ops that may compute a per-operand key transform: elementwise on 0-d values (the
# ``elementwise`` trait of the op table), so on whole operands they act element by
# element; and constants.  reshape / broadcast_in_dim of a 0-d value to the same 0-d
# type are identities.
IDENTITY_OPS = frozenset({"stablehlo.broadcast_in_dim", "stablehlo.reshape"})

_Step = tuple[Callable[..., Any], tuple[str, ...], str, dict[str, Any]]


@dataclass(frozen=True)
class KeyTransform:
    """Per-operand key transform: the comparator's ops that compute the compared value
    from one argument and constants (``ops``, their names, for reading), evaluated on a
    whole operand by the op table's kernels.  ``key_type`` is the compared element type."""

    ops: tuple[str, ...]
    key_type: Type
    steps: tuple[_Step, ...] = field(compare=False, repr=False)
    arg: str = field(compare=False, repr=False)
    out: str = field(compare=False, repr=False)

    def __call__(self, x: np.ndarray) -> np.ndarray:
        env: dict[str, Any] = {self.arg: x}
        with np.errstate(all="ignore"):
            for fn, operands, result, kwargs in self.steps:
                env[result] = fn(*[env[n] for n in operands], **kwargs)
        out = np.asarray(env[self.out])
        if out.shape != x.shape:  # a transform that ignores its argument
            out = np.broadcast_to(out, x.shape)
        return out


@dataclass(frozen=True)
class SortKey:
    """One key of a lexicographic comparator: sort by ``inputs[operand]``, ascending
    unless ``descending``, comparing with ``compare_type`` (None: the default of the
    element type; "FLOAT", "TOTALORDER", "SIGNED", "UNSIGNED").  With a ``transform`` the
    compared values are ``transform(inputs[operand])``, of element type
    ``transform.key_type``: use ``key_input``."""

    operand: int
    descending: bool
    compare_type: str | None
    part: str | None = None  # "real" / "imag": the key is that part of a complex operand
    transform: KeyTransform | None = None

    def key_input(self, x: np.ndarray, element_type: Type) -> tuple[np.ndarray, Type]:
        """(values compared, their element type) for operand values ``x`` of
        ``element_type``."""
        if self.transform is None:
            return x, element_type
        return self.transform(x), self.transform.key_type


_DIRECTIONS = {
    # outcome o = sign(lhs - rhs) in {-1, 0, 1} -> predicate
    "LT": lambda o: o < 0,
    "LE": lambda o: o <= 0,
    "GT": lambda o: o > 0,
    "GE": lambda o: o >= 0,
    "EQ": lambda o: o == 0,
    "NE": lambda o: o != 0,
}
_BOOLEAN_OPS = {
    "stablehlo.and": 2,
    "stablehlo.or": 2,
    "stablehlo.xor": 2,
    "stablehlo.not": 1,
    "stablehlo.select": 3,
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


def _scalar_type(t: Type) -> bool:
    return (
        isinstance(t, TensorType)
        and t.shape == ()
        and not isinstance(t.element_type, QuantizedType)
    )


def _transform_op(op: Operation) -> bool:
    """An op that may be part of a per-operand transform (elementwise on 0-d values)."""
    if not _transform_kind(op.name) or len(op.results) != 1 or op.regions:
        return False
    types = (*op.operand_types, op.results[0].type)
    if not all(_scalar_type(t) for t in types):
        return False
    if op.name in IDENTITY_OPS:
        return len(op.operands) == 1 and op.operands[0].type == op.results[0].type
    return True


def _attr_signature(op: Operation) -> tuple:
    out: list[tuple[Any, ...]] = []
    for name, attr in sorted(op.attributes, key=lambda kv: kv[0]):
        if isinstance(attr, DenseElementsAttr):
            a = np.asarray(attr.array)
            out.append((name, "dense", str(a.dtype), a.shape, a.tobytes()))
            continue
        try:
            hash(attr)
        except TypeError:
            out.append((name, repr(attr)))
        else:
            out.append((name, attr))
    return tuple(out)


def _identity(x: Any, **_: Any) -> Any:
    return x


def _build_transform(block, out: str, producer: dict[str, int]) -> KeyTransform | None:
    """The ops computing ``out`` (a single-argument value) as a KeyTransform."""
    ops = block.operations
    needed: set[int] = set()
    stack = [out]
    arg = None
    seen: set[str] = set()
    while stack:
        name = stack.pop()
        if name in seen:
            continue
        seen.add(name)
        k = producer.get(name)
        if k is None:
            arg = name  # the block argument
            continue
        needed.add(k)
        stack.extend(o.name for o in ops[k].operands)
    steps: list[_Step] = []
    for k in sorted(needed):
        op = ops[k]
        operands = tuple(o.name for o in op.operands)
        result = op.results[0].name
        if op.name in IDENTITY_OPS:
            steps.append((_identity, operands, result, {}))
            continue
        row = OP_TABLE.get(op.name)
        if row is None or row.kernel is None or row.kernel_options.get("context"):
            return None
        try:
            kwargs = decode_op_attributes(op, row)
        except HloError:
            return None
        kwargs["result_type"] = op.results[0].type
        if row.kernel_options.get("operand_types"):
            kwargs["operand_types"] = op.operand_types
        steps.append((row.kernel, operands, result, kwargs))
    key_type = ops[producer[out]].results[0].type.element_type
    names = tuple(ops[k].name for k in sorted(needed))
    return KeyTransform(names, key_type, tuple(steps), arg or "", out)


_Key = tuple[int, "str | None", "int | None"]  # (operand, part, transform signature)


def _formula(block, n_operands: int, transforms: bool = False):
    """Symbolic evaluation of a comparator block.

    Returns ``(keys, types, key_transforms, table_fn)`` where ``keys`` lists the compared
    keys ``(operand index, part, signature)``: ``part`` is "real"/"imag" for
    ``stablehlo.real``/``imag`` of a complex operand (as JAX writes complex keys), and
    ``signature`` identifies a per-operand transform (``key_transforms[key]``; None for
    the operand itself); ``types`` their compare types; ``table_fn(outcomes)`` evaluates
    the formula given a dict key -> outcome array.  None when the block is not a boolean
    formula over pairwise compares of (the same transform of) ``arg_{2i}`` and
    ``arg_{2i+1}``.
    """
    arguments = block.arguments
    if len(arguments) != 2 * n_operands:
        return None
    interned: dict[tuple, int] = {}

    def intern(signature: tuple) -> int:
        return interned.setdefault(signature, len(interned))

    # values computed from at most one argument: name -> (argument index or None, signature)
    single: dict[str, tuple[int | None, int]] = {
        v.name: (i, intern(("arg", v.type))) for i, v in enumerate(arguments)
    }
    producer: dict[str, int] = {}  # single value -> index of its op in the block
    bools: dict[str, bool] = {}  # i1 splat constants (and booleans of them)
    formula: set[str] = set()  # booleans computed from key compares
    keys: list[_Key] = []
    types: dict[_Key, str | None] = {}
    key_transforms: dict[_Key, KeyTransform | None] = {}
    program: list[tuple[str, str, tuple[Any, ...]]] = []  # (result name, kind, payload)
    ops = block.operations
    for index, op in enumerate(ops[:-1]):
        if len(op.results) != 1 or op.regions:
            return None
        res = op.results[0].name
        names = [o.name for o in op.operands]
        if all(n in single for n in names) and _transform_op(op):
            owners = {single[n][0] for n in names} - {None}
            if len(owners) <= 1:
                sig = (
                    op.name,
                    _attr_signature(op),
                    op.results[0].type,
                    tuple(single[n][1] for n in names),
                )
                single[res] = (owners.pop() if owners else None, intern(sig))
                producer[res] = index
                if op.name == "stablehlo.constant" and _i1_splat(op) is not None:
                    bools[res] = bool(_i1_splat(op))
                elif op.name in _BOOLEAN_OPS and names and all(n in bools for n in names):
                    bools[res] = _boolean(op.name, [bools[n] for n in names])
                continue
        if op.name == "stablehlo.compare":
            if len(names) != 2 or names[0] not in single or names[1] not in single:
                return None
            (p, sig_p), (q, sig_q) = single[names[0]], single[names[1]]
            if p is None or q is None or p // 2 != q // 2 or p == q or sig_p != sig_q:
                return None
            key = _key_of(block, names[0], p, sig_p, producer, transforms)
            if key is None:
                return None
            direction = _enum(op.attr("comparison_direction"))
            if direction not in _DIRECTIONS:
                return None
            ctype = _enum(op.attr("compare_type"))
            if key in types and types[key] != ctype:
                return None
            if key not in types:
                transform = None
                if key[2] is not None:
                    transform = _build_transform(block, names[0], producer)
                    if transform is None:
                        return None
                keys.append(key)
                types[key] = ctype
                key_transforms[key] = transform
            program.append((res, "cmp", (key, direction, p % 2 == 1)))
            formula.add(res)
        elif op.name in _BOOLEAN_OPS:
            if len(names) != _BOOLEAN_OPS[op.name]:
                return None
            if not all(n in formula or n in bools for n in names):
                return None
            program.append((res, op.name.split(".")[1], tuple(names)))
            formula.add(res)
        else:
            return None
    ret = ops[-1]
    if len(ret.operands) != 1:
        return None
    out = ret.operands[0].name
    if out not in formula and out not in bools:
        return None

    def evaluate(outcomes: dict[_Key, np.ndarray], size: int) -> np.ndarray | None:
        env: dict[str, np.ndarray] = {n: np.full(size, v) for n, v in bools.items()}
        for res, kind, payload in program:
            if kind == "cmp":
                key, direction, swapped = payload
                o = outcomes[key]
                env[res] = _DIRECTIONS[direction](-o if swapped else o)
                continue
            vals = [env[name] for name in payload]
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

    return keys, types, key_transforms, evaluate


def _boolean(name: str, vals: list[bool]) -> bool:
    if name == "stablehlo.and":
        return vals[0] and vals[1]
    if name == "stablehlo.or":
        return vals[0] or vals[1]
    if name == "stablehlo.xor":
        return vals[0] != vals[1]
    if name == "stablehlo.not":
        return not vals[0]
    return vals[1] if vals[0] else vals[2]


def _key_of(
    block, lhs: str, p: int, sig: int, producer: dict[str, int], transforms: bool
) -> _Key | None:
    """The key a compare of single-argument value ``lhs`` (from argument ``p``) reads:
    the operand itself, its real/imag part, or (``transforms``) a transform."""
    k = producer.get(lhs)
    if k is None:
        return (p // 2, None, None)
    op = block.operations[k]
    if op.name in ("stablehlo.real", "stablehlo.imag") and op.operands[0].name not in producer:
        return (p // 2, op.name.split(".")[1], None)
    if not transforms:
        return None
    return (p // 2, None, sig)


_CACHE: dict[tuple[int, int, bool], tuple[Region, tuple[SortKey, ...] | None]] = {}
_CACHE_MAX = 256


def sort_keys(
    region: Region | None, n_operands: int, transforms: bool = False
) -> tuple[SortKey, ...] | None:
    """The lexicographic keys of a sort comparator, or None if it is not one.

    The comparator is a lexicographic "less than" over keys ``k_1, k_2, ...`` (each
    ascending or descending) exactly when, over all outcome combinations, it is true
    where the first non-equal key is "less" in its direction and false elsewhere
    (including when all keys are equal).  An always-false comparator gives ``()``: all
    elements are equal.  With ``transforms`` keys may be per-operand transforms
    (``SortKey.transform``; callers must then read keys through ``SortKey.key_input``).
    Results are cached per region object.
    """
    if region is None:
        return None
    ck = (id(region), n_operands, transforms)
    hit = _CACHE.get(ck)
    if hit is not None and hit[0] is region:
        return hit[1]
    result = _sort_keys(region, n_operands, transforms)
    if len(_CACHE) >= _CACHE_MAX:
        _CACHE.clear()
    _CACHE[ck] = (region, result)
    return result


def _sort_keys(region: Region, n_operands: int, transforms: bool) -> tuple[SortKey, ...] | None:
    block = _single_block(region)
    if block is None:
        return None
    analysed = _formula(block, n_operands, transforms)
    if analysed is None:
        return None
    keys, types, key_transforms, evaluate = analysed
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
                order.append(SortKey(k[0], found, types[k], k[1], key_transforms[k]))
                remaining.remove(k)
                mask = mask & (o == 0)
                break
        else:
            return None
    return tuple(order)
