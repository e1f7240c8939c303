"""What a region computes, analysed once when the region is planned: one
``RegionSummary`` per region (``summarize``), read by every kernel that runs a region.

Only IR is inspected here (never arrays).  Kernels use the answers to pick a fast path
and fall back to calling the region on whole tensors when the answer is None.

* ``combiners``: when a body with ``2N`` arguments ``(acc_0..acc_{N-1},
  x_0..x_{N-1})`` returns one binary op per result, ``op_i(acc_i, x_i)`` or
  ``op_i(x_i, acc_i)`` (``Combiner.swapped``), each computed by its own single op with
  no region: the op, its operand order and whether it commutes (the op table's
  ``commutative`` trait).  ``fold_ops`` names the ops when every result is
  ``op_i(acc_i, x_i)`` (a swapped operand order only for an op that commutes): what
  reduce, reduce_window and scatter may compute with the op's NumPy ufunc.
* ``replace``: the body returns its last ``N`` arguments unchanged (scatter's "replace").
* ``compare``: the body is one ``compare`` of its two arguments, as ``(direction,
  compare_type)`` of ``compare(arg0, arg1)`` (a swapped operand order turns LT into GT...):
  select_and_scatter's ``select``.
* ``sort_keys``: the lexicographic key list of a comparator with ``2N`` arguments,
  found by evaluating the comparator's boolean formula over every combination of
  per-key outcomes (less / equal / greater), so any spelling (``or``/``and``/``select``
  /``not`` chains, GT written as swapped LT...) of a lexicographic order is recognised;
  the connectives (any elementwise op on i1 values) run on their rows' kernels.
  A key may be a per-operand *transform*: a value computed from one argument (and
  constants) by elementwise ops, the same ops on ``arg_{2i}`` and on ``arg_{2i+1}``;
  the interpreter plans those ops as a block of their own, compiled like any block
  and run on the whole operand (``values.RegionFn.key_input``), so the key is exactly
  what the comparator compares.

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

import weakref
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Any

import numpy as np

from ..parser.errors import HloError
from ..parser.ir import (
    Block,
    DenseElementsAttr,
    EnumAttr,
    IntegerType,
    Operation,
    QuantizedType,
    Region,
    TensorType,
    Type,
)
from ..shape_inference.decode import decode_op_attributes
from ..shape_inference.optable import OP_TABLE, OpDef

MAX_SORT_KEYS = 6


def _is(op: Operation, trait: str) -> bool:
    row = OP_TABLE.get(op.name)
    return row is not None and trait in row.traits


def _transform_kind(name: str) -> bool:
    """May ``name`` compute a sort key transform (the note below)?"""
    row = OP_TABLE.get(name)
    return row is not None and bool(row.traits & _TRANSFORM_TRAITS)  # 3**6 outcomes at most


# Ops that may compute a per-operand key transform: elementwise on 0-d values (the
# ``elementwise`` trait of the op table), so on whole operands they act element by
# element; and constants.  reshape / broadcast_in_dim (``reshape_like``) of a 0-d value
# to the same 0-d type are identities.
_TRANSFORM_TRAITS = frozenset({"elementwise", "constant_like", "reshape_like"})

_Step = tuple[Callable[..., Any], tuple[str, ...], str, dict[str, Any]]


@dataclass(frozen=True)
class KeyTransform:
    """Per-operand key transform: the comparator's ops that compute the compared value
    from one argument and constants (``ops``, their names, for reading; ``indices``,
    their positions in the block), from argument ``arg`` to value ``out``.  The
    interpreter plans and compiles those ops as a block of their own, run on a whole
    operand (``values.RegionFn.key_input``).  ``key_type`` is the compared element type."""

    ops: tuple[str, ...]
    key_type: Type
    indices: tuple[int, ...] = field(compare=False, repr=False)
    arg: str = field(compare=False, repr=False)
    out: str = field(compare=False, repr=False)


@dataclass(frozen=True)
class SortKey:
    """One key of a lexicographic comparator: sort by ``inputs[operand]``, ascending
    unless ``descending``, comparing with ``compare_type`` (None: the default of the
    element type; "FLOAT", "TOTALORDER", "SIGNED", "UNSIGNED").  With a ``transform`` the
    compared values are the transform of ``inputs[operand]``, of element type
    ``transform.key_type`` (``values.RegionFn.key_input``)."""

    operand: int
    descending: bool
    compare_type: str | None
    part: str | None = None  # "real" / "imag": the key is that part of a complex operand
    transform: KeyTransform | None = None


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
    if _is(op, "reshape_like"):
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


def _kernel_step(op: Operation) -> _Step | None:
    """``op`` as a step run by its row's kernel, with its decoded attributes and its
    declared (0-d) types (elementwise kernels run on whole arrays), or None."""
    operands = tuple(o.name for o in op.operands)
    result = op.results[0].name
    if _is(op, "reshape_like"):
        return (_identity, operands, result, {})
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
    return (row.kernel, operands, result, kwargs)


def _run_steps(steps: Sequence[_Step], env: dict[str, Any]) -> None:
    """Run kernel steps in order, reading and writing ``env`` (value name -> array): the
    analysis' own evaluation of a comparator's connectives on its table of outcomes
    (never on a program's values)."""
    for fn, operands, result, kwargs in steps:
        env[result] = fn(*[env[n] for n in operands], **kwargs)


def _boolean_op(op: Operation) -> bool:
    """An elementwise op on i1 values giving an i1 value (and, or, not, select...): a
    connective of the comparator's formula, evaluated by its kernel."""
    row = OP_TABLE.get(op.name)
    if row is None or "elementwise" not in row.traits or len(op.results) != 1 or not op.operands:
        return False
    return all(t == _I1 for t in (*op.operand_types, op.results[0].type))


_I1 = TensorType((), IntegerType(1))


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
    indices = tuple(sorted(needed))
    if any(_kernel_step(ops[k]) is None for k in indices):  # not run by a kernel alone
        return None
    key_type = ops[producer[out]].results[0].type.element_type
    names = tuple(ops[k].name for k in indices)
    return KeyTransform(names, key_type, indices, arg or "", out)


_Key = tuple[int, "str | None", "int | None"]  # (operand, part, transform signature)


def _formula(block, n_operands: int):
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
    from ..shape_inference.elementwise import COMPARE  # loads on first use

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
                if _is(op, "constant_like") and _i1_splat(op) is not None:
                    bools[res] = bool(_i1_splat(op))
                elif all(n in bools for n in names) and _boolean_op(op):
                    step = _kernel_step(op)
                    if step is not None:
                        env = {n: np.array(bools[n]) for n in names}
                        _run_steps((step,), env)
                        bools[res] = bool(env[res])
                continue
        if OP_TABLE.get(op.name) is COMPARE:
            if len(names) != 2 or names[0] not in single or names[1] not in single:
                return None
            (p, sig_p), (q, sig_q) = single[names[0]], single[names[1]]
            if p is None or q is None or p // 2 != q // 2 or p == q or sig_p != sig_q:
                return None
            key = _key_of(block, names[0], p, sig_p, producer)
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
        elif all(n in formula or n in bools for n in names) and _boolean_op(op):
            step = _kernel_step(op)
            if step is None:
                return None
            program.append((res, "op", step))
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
            _run_steps((payload,), env)
        return env.get(out)

    return keys, types, key_transforms, evaluate


def _key_of(block, lhs: str, p: int, sig: int, producer: dict[str, int]) -> _Key:
    """The key a compare of single-argument value ``lhs`` (from argument ``p``) reads:
    the operand itself, its real/imag part, or a transform."""
    from ..shape_inference.elementwise import IMAG, REAL  # loads on first use

    k = producer.get(lhs)
    if k is None:
        return (p // 2, None, None)
    op = block.operations[k]
    row = OP_TABLE.get(op.name)
    if (row is REAL or row is IMAG) and op.operands[0].name not in producer:
        return (p // 2, "real" if row is REAL else "imag", None)
    return (p // 2, None, sig)


def _sort_keys(block: Block) -> tuple[SortKey, ...] | None:
    """The lexicographic keys of a comparator block, or None if it is not one.

    The comparator is a lexicographic "less than" over keys ``k_1, k_2, ...`` (each
    ascending or descending) exactly when, over all outcome combinations, it is true
    where the first non-equal key is "less" in its direction and false elsewhere
    (including when all keys are equal).  An always-false comparator gives ``()``: all
    elements are equal.  Keys may be per-operand transforms (``SortKey.transform``;
    callers read keys through ``values.RegionFn.key_input``)."""
    if len(block.arguments) % 2:
        return None
    analysed = _formula(block, len(block.arguments) // 2)
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


# --------------------------------------------------------------------------------------
# the record
# --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Combiner:
    """Result ``i`` of a reduce-style body: ``op(acc_i, x_i)``, or with ``swapped``
    ``op(x_i, acc_i)``.  ``commutative`` is the op table row's ``commutative`` trait;
    ``operation`` the body's op (its attributes), None for a summary made by hand."""

    op: str
    swapped: bool = False
    commutative: bool = False
    operation: Operation | None = field(default=None, compare=False, repr=False)

    @property
    def folds(self) -> bool:
        """Is the body's result ``op(acc_i, x_i)``?"""
        return not self.swapped or self.commutative

    @property
    def row(self) -> OpDef | None:
        """The op's row of the op table."""
        return OP_TABLE.get(self.op)


@dataclass(frozen=True)
class RegionSummary:
    """What a region computes (module docstring): ``arguments`` its entry block's
    argument count; ``combiners`` one ``Combiner`` per result, or None; ``replace``
    whether it returns its last ``arguments // 2`` arguments; ``compare`` the
    ``(direction, compare_type)`` of a body that is ``compare(arg0, arg1)``, or None;
    ``sort_keys`` the lexicographic keys of a comparator, or None."""

    arguments: int = 0
    combiners: tuple[Combiner, ...] | None = None
    replace: bool = False
    compare: tuple[str, str | None] | None = None
    sort_keys: tuple[SortKey, ...] | None = None

    @cached_property  # (read at every run of a reduce)
    def fold_ops(self) -> tuple[str, ...] | None:
        """Per result the op of ``op_i(acc_i, x_i)``, when every combiner folds."""
        cs = self.combiners
        if cs is None or not all(c.folds for c in cs):
            return None
        return tuple(c.op for c in cs)

    def without_combiners(self) -> RegionSummary:
        """The same record, minus the combiners (a body on quantized storage values,
        whose ops dequantize and quantize: no ufunc on storage computes them)."""
        return replace(self, combiners=None)

    @classmethod
    def folding(cls, *ops: str) -> RegionSummary:
        """The summary of ``return op_i(acc_i, x_i)...`` (for regions made by hand)."""
        return cls(2 * len(ops), tuple(Combiner(op, False, _commutes(op)) for op in ops))

    @classmethod
    def replacing(cls, n: int = 1) -> RegionSummary:
        """The summary of ``return x_0..x_{n-1}`` (for regions made by hand)."""
        return cls(2 * n, replace=True)


UNKNOWN = RegionSummary()  # a region-less callable: nothing known


def _commutes(name: str) -> bool:
    row = OP_TABLE.get(name)
    return row is not None and "commutative" in row.traits


def _combiners(block: Block) -> tuple[Combiner, ...] | None:
    args = [v.name for v in block.arguments]
    n = len(args) // 2
    ops = block.operations
    if len(args) % 2 or len(ops) != n + 1 or len(ops[-1].operands) != n:
        return None
    producers = {r.name: op for op in ops[:-1] for r in op.results}
    out = []
    for i, v in enumerate(ops[-1].operands):
        op = producers.get(v.name)
        if op is None or op.regions or len(op.results) != 1 or len(op.operands) != 2:
            return None
        names = [o.name for o in op.operands]
        if names not in ([args[i], args[n + i]], [args[n + i], args[i]]):
            return None
        out.append(Combiner(op.name, names[0] != args[i], _commutes(op.name), op))
    return tuple(out)


def _replace(block: Block) -> bool:
    args = [v.name for v in block.arguments]
    ops = block.operations
    return (
        len(args) % 2 == 0
        and len(ops) == 1
        and [v.name for v in ops[0].operands] == args[len(args) // 2 :]
    )


# compare(b, a) is compare(a, b) with this direction
_SWAPPED_DIRECTION = {"EQ": "EQ", "NE": "NE", "LT": "GT", "LE": "GE", "GT": "LT", "GE": "LE"}


def _compare(block: Block) -> tuple[str, str | None] | None:
    from ..shape_inference.elementwise import COMPARE  # loads on first use

    args = [v.name for v in block.arguments]
    ops = block.operations
    if len(args) != 2 or len(ops) != 2 or OP_TABLE.get(ops[0].name) is not COMPARE:
        return None
    cmp, ret = ops
    if [v.name for v in ret.operands] != [cmp.results[0].name]:
        return None
    direction = _enum(cmp.attr("comparison_direction"))
    if direction not in _SWAPPED_DIRECTION:
        return None
    names = [v.name for v in cmp.operands]
    if names == args[::-1]:
        direction = _SWAPPED_DIRECTION[direction]
    elif names != args:
        return None
    return direction, _enum(cmp.attr("compare_type"))


def _summarize(region: Region) -> RegionSummary:
    if len(region.blocks) != 1 or not region.blocks[0].operations:
        return UNKNOWN
    block = region.blocks[0]
    if block.operations[-1].results:  # not a terminator
        return UNKNOWN
    return RegionSummary(
        len(block.arguments), _combiners(block), _replace(block), _compare(block), _sort_keys(block)
    )


_SUMMARIES: dict[int, RegionSummary] = {}  # id(region) -> summary, while the region lives


def summarize(region: Region) -> RegionSummary:
    """The ``RegionSummary`` of ``region``, analysed on the first call (when the region
    is planned) and kept until the region object dies."""
    key = id(region)
    got = _SUMMARIES.get(key)
    if got is None:
        got = _SUMMARIES[key] = _summarize(region)
        weakref.finalize(region, _SUMMARIES.pop, key, None)
    return got
