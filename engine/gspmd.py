"""GSPMD global programs: the manual regions of a program XLA has not partitioned yet.

``jax.export`` with Shardy off (``jax_use_shardy_partitioner=False``) writes a
``shard_map`` as a global program: the full inputs go through ``custom_call @Sharding``
(their ``mhlo.sharding``) and ``custom_call @SPMDFullToShardShape`` (to the per-device
shape), the body runs per device (``{manual}``: its collectives talk across devices),
and ``custom_call @SPMDShardToFullShape`` puts the pieces back together by the
``mhlo.sharding`` it carries.  XLA's SPMD partitioner consumes these calls
(xla/service/spmd/spmd_partitioner.cc); hlorun runs the program as one process and
each manual region as a process grid of one partition per device, like a Shardy
``sdy.manual_computation`` (engine/kernels/sdy.py).

``outline_manual_regions`` finds each manual region (the ops that use a value
SPMDFullToShardShape made, transitively, up to SPMDShardToFullShape), moves it into a
private function and puts in its place one ``custom_call @hlorun.gspmd_manual`` that
engine/kernels/spmd_manual.py runs.  The rewrite is an execution plan: it happens after
verification and the user's Module is never changed.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import replace

from ..parser.errors import HloError, UnsupportedError
from ..parser.ir import (
    ArrayAttr,
    Block,
    DictionaryAttr,
    Function,
    FunctionType,
    IntegerAttr,
    IntegerType,
    Module,
    Operation,
    Region,
    StringAttr,
    SymbolRefAttr,
    Value,
)
from ..parser.opdecl import OP_DECLS
from ..parser.vhlo.walk import iter_ops
from ..shape_inference.optable import OP_TABLE
from .hlo_sharding import parse_hlo_sharding

FULL_TO_SHARD = "SPMDFullToShardShape"
SHARD_TO_FULL = "SPMDShardToFullShape"
MANUAL_TARGET = "hlorun.gspmd_manual"
_GSPMD_TARGETS = frozenset({"Sharding", FULL_TO_SHARD, SHARD_TO_FULL})


def _per_device(op: Operation) -> bool:
    """Whether ``op``'s value differs per device (it reads the process id): inside the
    manual region that uses it."""
    row = OP_TABLE.get(op.name)
    return row is not None and "process_id" in row.traits


def _target(op: Operation) -> str | None:
    decl = OP_DECLS.get(op.name)  # a custom call: the op declaring call_target_name
    if decl is None or decl.attr("call_target_name") is None:
        return None
    a = op.attr("call_target_name")
    return a.value if isinstance(a, StringAttr) else None


def _walk(region: Region) -> Iterator[Operation]:
    """Every op of ``region``, nested ones included."""
    return iter_ops(op for block in region.blocks for op in block.operations)


def _has_gspmd_calls(mod: Module) -> bool:
    for item in mod.body:
        if isinstance(item, Function) and item.body is not None:
            if any(_target(op) in _GSPMD_TARGETS for op in _walk(item.body)):
                return True
    return False


def is_gspmd_global(mod: Module) -> bool:
    """Does ``mod`` span more than one partition (``gspmd_partitions``) and carry
    GSPMD's sharding calls (a global program, not a per-device one)?"""
    n = mod.attr("mhlo.num_partitions")
    if isinstance(n, IntegerAttr) and n.value <= 1:
        return False  # (without walking the program's ops)
    return _has_gspmd_calls(mod) and gspmd_partitions(mod) > 1


def gspmd_partitions(mod: Module) -> int:
    """The partitions a GSPMD program spans: its ``mhlo.num_partitions``, else (exports
    that do not write it) one more than the largest device id its ``mhlo.sharding``
    strings name."""
    n = mod.attr("mhlo.num_partitions")
    if isinstance(n, IntegerAttr):
        return n.value
    return max(sharding_devices(_sharding_texts(mod)), 1)


def sharding_devices(texts: Iterable[str]) -> int:
    """One more than the largest device id the HLO sharding strings name (0: none)."""
    n = 0
    for text in texts:
        try:
            parsed = parse_hlo_sharding(text)
        except HloError:
            continue  # read again, with its error, where it is used
        for s in parsed if isinstance(parsed, tuple) else (parsed,):
            if s.tiles is not None and s.tiles.size:
                n = max(n, int(s.tiles.max()) + 1)
            elif s.device is not None:
                n = max(n, s.device + 1)
    return n


def _sharding_texts(mod: Module) -> Iterator[str]:
    """Every ``mhlo.sharding`` string of ``mod``: of ops, function arguments, results."""
    for item in mod.body:
        if not isinstance(item, Function):
            continue
        for attrs in (*item.arg_attrs, *item.result_attrs):
            if isinstance(attrs, DictionaryAttr):
                a = attrs.get("mhlo.sharding")
                if isinstance(a, StringAttr):
                    yield a.value
        if item.body is not None:
            for op in _walk(item.body):
                a = op.attr("mhlo.sharding")
                if isinstance(a, StringAttr):
                    yield a.value


def outline_manual_regions(mod: Module) -> Module:
    """``mod`` with each manual region replaced by a ``custom_call
    @hlorun.gspmd_manual`` of a new private function (the module itself when it has
    none)."""
    new_functions: list[Function] = []
    body: list[Function | Operation] = []
    changed = False
    for item in mod.body:
        if isinstance(item, Function) and item.body is not None:
            region = _rewrite_region(item.body, item, new_functions)
            if region is not item.body:
                item = replace(item, body=region)
                changed = True
        body.append(item)
    if not changed:
        return mod
    return replace(mod, body=(*body, *new_functions))


def _rewrite_region(region: Region, fn: Function, out: list[Function]) -> Region:
    blocks = []
    changed = False
    for block in region.blocks:
        ops = []
        for op in block.operations:
            if op.regions:
                regions = tuple(_rewrite_region(r, fn, out) for r in op.regions)
                if any(a is not b for a, b in zip(regions, op.regions)):
                    op = replace(op, regions=regions)
                    changed = True
            ops.append(op)
        new_ops = _outline_block(ops, fn, out)
        if new_ops is not None:
            ops = new_ops
            changed = True
        blocks.append(replace(block, operations=tuple(ops)) if changed else block)
    return Region(tuple(blocks)) if changed else region


def _used_values(op: Operation) -> list[Value]:
    """Operands of ``op`` and of the ops in its regions that are defined outside it."""
    used = list(op.operands)
    inner: set[Value] = set()
    for r in op.regions:
        for b in r.blocks:
            inner.update(b.arguments)
        for o in _walk(r):
            used.extend(o.operands)
            inner.update(o.results)
            for rr in o.regions:
                for b in rr.blocks:
                    inner.update(b.arguments)
    return [v for v in used if v not in inner]


def _outline_block(ops: list[Operation], fn: Function, out: list[Function]) -> list | None:
    """The block's ops with its manual regions outlined; None when it has none."""
    if not any(_target(op) == FULL_TO_SHARD for op in ops):
        return None
    parent = list(range(len(ops)))

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    manual: dict[Value, int] = {}  # a per-device value -> the op that made it
    member = [False] * len(ops)
    for i, op in enumerate(ops):
        target = _target(op)
        if target == FULL_TO_SHARD or _per_device(op):
            member[i] = True
            manual.update((v, i) for v in op.results)
            continue
        owners = [manual[v] for v in _used_values(op) if v in manual]
        if not owners:
            continue
        member[i] = True
        for j in owners:
            parent[find(j)] = find(i)
        if target != SHARD_TO_FULL:
            manual.update((v, i) for v in op.results)
    groups: dict[int, list[int]] = {}
    for i in range(len(ops)):
        if member[i]:
            groups.setdefault(find(i), []).append(i)
    replacement: dict[int, Operation] = {}
    dropped: set[int] = set()
    for members in groups.values():
        if not any(_target(ops[i]) == FULL_TO_SHARD for i in members):
            continue  # a device id no manual region uses: the global program's
        k = len(out)
        new_op, new_fn = _outline(ops, members, fn, f"__hlorun_gspmd_manual_{k}")
        out.append(new_fn)
        last = members[-1]
        produced = {v for i in members for v in ops[i].results}
        for j in range(members[0], last):
            if j not in members and any(v in produced for v in _used_values(ops[j])):
                raise UnsupportedError(
                    f"{ops[j].name} uses a value of a manual region before the region "
                    "ends (hlorun outlines each region whole)"
                )
        replacement[last] = new_op
        dropped.update(members[:-1])
    return [replacement.get(i, op) for i, op in enumerate(ops) if i not in dropped]


def _source_sharding(ops: list[Operation], v: Value, fn: Function) -> str:
    """The ``mhlo.sharding`` of the full value ``v`` SPMDFullToShardShape cuts: its
    ``custom_call @Sharding``'s, else the function argument's."""
    for op in ops:
        if v in op.results:
            a = op.attr("mhlo.sharding")
            if isinstance(a, StringAttr):
                return a.value
            break
    args = fn.arguments
    if v in args:
        i = args.index(v)
        attrs = fn.arg_attrs[i] if i < len(fn.arg_attrs) else None
        if isinstance(attrs, DictionaryAttr):
            a = dict(attrs.entries).get("mhlo.sharding")
            if isinstance(a, StringAttr):
                return a.value
    raise UnsupportedError(f"SPMDFullToShardShape of {v.name}: no mhlo.sharding says how to cut it")


def _outline(
    ops: list[Operation], members: list[int], fn: Function, name: str
) -> tuple[Operation, Function]:
    """One manual region as (the custom_call that replaces it, its function)."""
    from .kernels.control_flow import CUSTOM_CALL

    starts = [ops[i] for i in members if _target(ops[i]) == FULL_TO_SHARD]
    ends = [ops[i] for i in members if _target(ops[i]) == SHARD_TO_FULL]
    inner = [ops[i] for i in members if _target(ops[i]) not in (FULL_TO_SHARD, SHARD_TO_FULL)]
    for op in inner:
        if op.name in ("func.return", "stablehlo.return"):
            raise UnsupportedError(
                f"{op.name} of a per-device value: a manual region must end in SPMDShardToFullShape"
            )
    defined = {v for op in starts + inner for v in op.results}
    extras: list[Value] = []
    for op in inner:
        for v in _used_values(op):
            if v not in defined and v not in extras:
                extras.append(v)
    if any(len(op.operands) != 1 or len(op.results) != 1 for op in starts + ends):
        raise UnsupportedError("SPMDFullToShardShape / SPMDShardToFullShape take one value")
    in_shardings = [_source_sharding(ops, op.operands[0], fn) for op in starts]
    # SPMDFullToShardShape's own sharding names the manual axes of a partly manual region
    # (``last_tile_dims={manual, ...}``); "{manual}" when the region is fully manual
    manual = [op.attr("mhlo.sharding") for op in starts]
    manual_shardings = [a.value if isinstance(a, StringAttr) else "{manual}" for a in manual]
    out_shardings = []
    for op in ends:
        a = op.attr("mhlo.sharding")
        if not isinstance(a, StringAttr):
            raise UnsupportedError("SPMDShardToFullShape without an mhlo.sharding")
        out_shardings.append(a.value)
    args = tuple(op.results[0] for op in starts) + tuple(extras)
    rets = tuple(op.operands[0] for op in ends)
    body = Block(args, (*inner, Operation("func.return", rets)))
    ftype = FunctionType(tuple(v.type for v in args), tuple(v.type for v in rets))
    new_fn = Function(name, ftype, Region((body,)), visibility="private")
    first = ops[members[0]]
    call = Operation(
        CUSTOM_CALL.name,
        operands=tuple(op.operands[0] for op in starts) + tuple(extras),
        results=tuple(op.results[0] for op in ends),
        attributes=(
            ("call_target_name", StringAttr(MANUAL_TARGET)),
            ("called_computations", ArrayAttr((SymbolRefAttr(name),))),
            ("api_version", IntegerAttr(4, IntegerType(32))),
            (
                "backend_config",
                DictionaryAttr(
                    (
                        ("in_shardings", ArrayAttr(tuple(map(StringAttr, in_shardings)))),
                        ("out_shardings", ArrayAttr(tuple(map(StringAttr, out_shardings)))),
                        ("manual_shardings", ArrayAttr(tuple(map(StringAttr, manual_shardings)))),
                    )
                ),
            ),
        ),
        location=first.location,
        pos=first.pos,
    )
    return call, new_fn
