"""MLIR's names for SSA values and blocks, as its printer chooses them.

MLIR never keeps the source's names: ``mlir/lib/IR/AsmPrinter.cpp`` (``SSANameState``)
numbers every value again when it prints.  ``rename_module`` rebuilds a module with
those names, so that any printer writes what ``stablehlo-opt`` writes:

- a region is numbered as a whole before the regions nested in it: first the names its
  parent op gives the entry block's arguments (``getAsmBlockArgumentNames``), then
  block by block the arguments (``%argN`` for the entry block from a counter of its
  own, ``%N`` for the others) and the ops' results (``%N``, or the name the op gives
  them: ``getAsmResultNames``), a multi-result op taking one number (``%N:2``,
  ``%N#1``);
- every region nested in an op of that region starts from the counters as they stand
  once the whole enclosing region is numbered (sibling regions restart from the same
  counters, so ``cond`` and ``do`` both begin at the same ``%N``; functions, nested in
  the module's region, all start at ``%0`` / ``%arg0``);
- names given by ops are unique within the enclosing regions: a clash becomes
  ``name_K``, K from one counter per region chain (``%c``, ``%cst``, ``%c_0``, ``%c_1``,
  ``%iterArg_2``...);
- blocks are ``^bbN``, N their position in the region.

The ops that name their values (StableHLO's ``ConstantOp::getAsmResultNames`` in
StablehloOps.cpp: ``%c`` for integer elements, else ``%cst``; ``WhileOp`` and CHLO's
``ScanOp`` in StablehloOps.td / ChloOps.td: ``getAsmBlockArgumentNames``) do so only
in the custom form: with ``asm_names=False`` (``--mlir-print-op-generic``) every value
is numbered.
"""

from __future__ import annotations

import dataclasses
from collections import ChainMap
from collections.abc import Callable

from .ir import (
    Block,
    BoolAttr,
    Function,
    IntegerAttr,
    IntegerType,
    Module,
    Operation,
    Region,
    TensorType,
    Value,
)
from .opdecl import OP_DECLS

__all__ = ["rename_module", "rename_operation"]


# ---- the names ops give (OpAsmOpInterface) -----------------------------------------------


def _constant_names(op: Operation) -> tuple[str, ...]:
    """StablehloOps.cpp, ConstantOp::getAsmResultNames."""
    t = op.results[0].type if len(op.results) == 1 else None
    elem = t.element_type if isinstance(t, TensorType) else None
    return ("c",) if isinstance(elem, IntegerType) else ("cst",)


def _arith_constant_names(op: Operation) -> tuple[str, ...]:
    """ArithOps.cpp, ConstantOp::getAsmResultNames: ``%true`` / ``%false`` for i1,
    ``%c<value>`` for other integers, with ``_<type>`` for an integer type (``%c0`` of
    index, ``%c-1_i32``), else ``%cst``."""
    value = op.attr("value")
    t = op.results[0].type if len(op.results) == 1 else None
    if isinstance(value, BoolAttr):
        return ("true" if value.value else "false",)
    if isinstance(value, IntegerAttr):
        if isinstance(t, IntegerType) and t.width == 1:
            return ("true" if value.value else "false",)
        return (f"c{value.value}" + (f"_{t}" if isinstance(t, IntegerType) else ""),)
    return ("cst",)


def _named(name: str) -> Callable[[Operation], tuple[str, ...]]:
    return lambda op: (name,)


def declared_names(op: Operation) -> tuple[str, ...]:
    """The names of an op's declared results (parser/opdecl.py ``results``): mlir-tblgen
    generates getAsmResultNames for an op of more than one named result (``outs
    ...:$a, ...:$b``) that does not implement OpAsmOpInterface itself
    (OpDefinitionsGen.cpp, genOpAsmInterface)."""
    decl = OP_DECLS.get(op.name)
    names = decl.results if decl is not None else ()
    if len(names) < 2 or any(n.endswith(("*", "+")) for n in names):
        return ()
    return names if len(op.results) == len(names) else ()


# the getAsmResultNames rules of the ops that implement it (parser/opdecl.py
# ``asm_result_names``)
RESULT_NAME_RULES: dict[str, Callable[[Operation], tuple[str, ...]]] = {
    "constant": _constant_names,
    "arith_constant": _arith_constant_names,
}

# the names of the results of ops hlorun does not declare (mixed modules' tensor ops;
# TensorOps.cpp), op name -> getAsmResultNames
UNDECLARED_RESULT_NAMES: dict[str, Callable[[Operation], tuple[str, ...]]] = {
    f"tensor.{op}": _named(name)
    for op, name in (
        ("insert", "inserted"),
        ("extract", "extracted"),
        ("cast", "cast"),
        ("dim", "dim"),
        ("from_elements", "from_elements"),
        ("splat", "splat"),
        ("extract_slice", "extracted_slice"),
        ("insert_slice", "inserted_slice"),
        ("rank", "rank"),
    )
}


def result_names(op: Operation) -> tuple[str, ...]:
    """The names ``op`` gives its results (getAsmResultNames; "" = part of the previous
    name's group, or numbered)."""
    decl = OP_DECLS.get(op.name)
    if decl is None:
        rule = UNDECLARED_RESULT_NAMES.get(op.name)
        return rule(op) if rule is not None else ()
    if decl.asm_result_names is not None:
        return RESULT_NAME_RULES[decl.asm_result_names](op)
    return declared_names(op)


def _while_args(op: Operation, region_index: int, n: int) -> tuple[str, ...]:
    """StablehloOps.td, WhileOp::getAsmBlockArgumentNames: both regions' ``iterArg``."""
    return ("iterArg",) * n


def _scan_args(op: Operation, region_index: int, n: int) -> tuple[str, ...]:
    """ChloOps.td, ScanOp::getAsmBlockArgumentNames: ``input`` for each input, then
    ``carry`` (the inputs are the first half of the operands before the inits)."""
    n_inputs = len(op.operands) // 2
    return tuple("input" if i < n_inputs else "carry" for i in range(n))


# the getAsmBlockArgumentNames rules (parser/opdecl.py ``asm_block_arg_names``)
BLOCK_ARG_NAME_RULES: dict[str, Callable[[Operation, int, int], tuple[str, ...]]] = {
    "iter_args": _while_args,
    "scan": _scan_args,
}


def block_arg_names(op: Operation) -> Callable[[Operation, int, int], tuple[str, ...]] | None:
    """The rule that names the entry arguments of ``op``'s regions, if it has one."""
    decl = OP_DECLS.get(op.name)
    rule = decl.asm_block_arg_names if decl is not None else None
    return BLOCK_ARG_NAME_RULES[rule] if rule is not None else None


def sanitize(name: str) -> str:
    """MLIR's sanitizeIdentifier (AsmPrinter.cpp): a name starting with a digit gets a
    ``_`` first; a character other than a letter, digit or ``$._-`` becomes ``_`` (a
    space) or its hex code."""
    if name[:1].isdigit() or not all(_valid(ch) for ch in name):
        return ("_" if name[:1].isdigit() else "") + "".join(
            ch if _valid(ch) else "_" if ch == " " else "".join(f"{b:X}" for b in ch.encode())
            for ch in name
        )
    return name


def _valid(ch: str) -> bool:
    return ch.isascii() and (ch.isalnum() or ch in "$._-")


# ---- numbering ----------------------------------------------------------------------------


@dataclasses.dataclass
class _Counters:
    value: int = 0
    arg: int = 0
    conflict: int = 0


class _Scope:
    """The names taken in one region and the regions around it (MLIR's usedNames)."""

    def __init__(self, parent: _Scope | None) -> None:
        self.parent = parent
        self.names: set[str] = set()

    def __contains__(self, name: str) -> bool:
        s: _Scope | None = self
        while s is not None:
            if name in s.names:
                return True
            s = s.parent
        return False


class _RegionNames:
    """The names defined in one region: the counters it started from (changed as it
    numbers), its scope, and old name -> new name."""

    def __init__(self, counters: _Counters, parent_scope: _Scope | None) -> None:
        self.c = dataclasses.replace(counters)
        self.scope = _Scope(parent_scope)
        self.names: dict[str, str] = {}

    def unique(self, name: str) -> str:
        """``%name``, or ``%name_K`` when ``name`` is taken (SSANameState::uniqueValueName)."""
        name = sanitize(name)
        if name in self.scope:
            while True:
                probe = f"{name}_{self.c.conflict}"
                self.c.conflict += 1
                if probe not in self.scope:
                    name = probe
                    break
        self.scope.names.add(name)
        return "%" + name

    def number(self) -> str:
        self.c.value += 1
        return f"%{self.c.value - 1}"


class _Namer:
    def __init__(self, asm_names: bool) -> None:
        self.asm_names = asm_names

    def region(
        self,
        region: Region,
        counters: _Counters,
        parent_scope: _Scope,
        env: ChainMap,
        owner: Operation | None,
        index: int,
    ) -> Region:
        """Number everything ``region`` defines (SSANameState::numberValuesInRegion),
        then rebuild it, its nested regions numbered from the final counters."""
        r = _RegionNames(counters, parent_scope)
        env = env.new_child(r.names)
        if region.blocks and self.asm_names and owner is not None:
            namer = block_arg_names(owner)
            if namer is not None:
                entry = region.blocks[0]
                for v, nm in zip(entry.arguments, namer(owner, index, len(entry.arguments))):
                    r.names[v.name] = r.unique(nm) if nm else r.number()
        labels = {}
        for i, block in enumerate(region.blocks):
            if block.label is not None:
                labels[block.label] = f"^bb{i}"
            for v in block.arguments:
                if i == 0:
                    if v.name not in r.names:
                        r.names[v.name] = r.unique(f"arg{r.c.arg}")
                        r.c.arg += 1
                else:
                    r.names[v.name] = r.number()
            for op in block.operations:
                self._number_results(op, r)
        blocks = []
        for i, block in enumerate(region.blocks):
            args = tuple(Value(env.get(v.name, v.name), v.type) for v in block.arguments)
            ops = tuple(self.op(o, r, env, labels) for o in block.operations)
            blocks.append(Block(args, ops, None if i == 0 else f"^bb{i}", block.arg_locations))
        return Region(tuple(blocks))

    def _number_results(self, op: Operation, r: _RegionNames) -> None:
        """SSANameState::numberValuesInOp: one name (or number) for all the results."""
        if not op.results:
            return
        names = result_names(op) if self.asm_names else ()
        # result groups: each given name starts one (the first result always does)
        starts = [0] + [i for i, nm in enumerate(names) if nm and i > 0]
        for g, start in enumerate(starts):
            end = starts[g + 1] if g + 1 < len(starts) else len(op.results)
            nm = names[start] if start < len(names) else ""
            base = r.unique(nm) if nm else r.number()
            group = op.results[start:end]
            if len(group) == 1:
                r.names[group[0].name] = base
            else:
                for i, v in enumerate(group):
                    r.names[v.name] = f"{base}#{i}"

    def op(self, op: Operation, r: _RegionNames, env: ChainMap, labels: dict[str, str]):
        """``op`` with its values renamed (``env`` maps every name in reach) and its
        regions numbered from ``r``'s counters (the enclosing region complete)."""
        return dataclasses.replace(
            op,
            operands=tuple(Value(env.get(v.name, v.name), v.type) for v in op.operands),
            results=tuple(Value(env.get(v.name, v.name), v.type) for v in op.results),
            regions=tuple(
                self.region(x, r.c, r.scope, env, op, i) for i, x in enumerate(op.regions)
            ),
            successors=tuple(labels.get(s, s) for s in op.successors),
        )

    def module(self, m: Module) -> Module:
        """The module's region holds functions (no results) and ops."""
        r = _RegionNames(_Counters(), _Scope(None))
        env = ChainMap(r.names)
        for item in m.body:
            if isinstance(item, Operation):
                self._number_results(item, r)
        body = []
        for item in m.body:
            if isinstance(item, Function):
                if item.body is not None:
                    item = dataclasses.replace(
                        item, body=self.region(item.body, r.c, r.scope, env, None, 0)
                    )
                body.append(item)
            else:
                body.append(self.op(item, r, env, {}))
        return dataclasses.replace(m, body=tuple(body))


def rename_module(module: Module, *, asm_names: bool = True) -> Module:
    """``module`` with MLIR's names for every value and block (module docstring);
    ``asm_names=False`` numbers every value (the generic form's names)."""
    return _Namer(asm_names).module(module)


def rename_operation(op: Operation, *, asm_names: bool = True) -> Operation:
    """One top-level op renamed as MLIR does when it prints that op alone."""
    r = _RegionNames(_Counters(), _Scope(None))
    return _Namer(asm_names).op(op, r, ChainMap(r.names), {})
