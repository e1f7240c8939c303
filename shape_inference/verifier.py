"""Verify a module before it runs: module-level checks plus every op's shape function.

Module-level checks (MLIR's structural rules, which no single op's shape function sees):

* SSA: a value is used after its definition in the same block or in an enclosing
  region (values of enclosing regions are visible inside regions, never the other way
  round; an op's results are not visible in its own regions), a name is defined once
  in its scope, and every use of a value has the type of its definition;
* operand / result / region counts of ops whose row knows them;
* terminators: a ``func.func`` body ends with ``func.return`` whose operand types are
  the function's result types; a region of an op ends with ``stablehlo.return``;
* symbols: function names are unique; ``func.call`` (and ``stablehlo.composite``'s
  ``decomposition``) name a function whose type matches the operands and results;
* ops of the dialects hlorun verifies (``stablehlo``, ``chlo``, ``check``,
  ``interpreter``) need a row in the op table; ops of other dialects are left alone
  (the interpreter raises ``UnsupportedError`` if it meets one);
* types (function signatures, op results, region arguments): quantized element types
  meet spec "Types" C3-C13 (``quantized_type_c<N>``), ``#stablehlo.bounds`` give one
  bound per dimension and none to a static one (``type_bounds``).

Then ``verify_op`` runs the op's row's shape function on the operand types and the
decoded attributes, and the inferred result types must be compatible with the declared
ones (spec: "compatible" = same element type, same rank, equal or dynamic dimensions);
a mismatch is named by the row's ``result_labels`` (the spec labels stating the result
type, e.g. slice_c5 / slice_c1), else "inferred_type".

shape_inference/spec_labels.py (tools/gen_spec_labels.py) lists every spec label and
where it is checked and tested.

``verify_module`` raises the first ``VerificationError``; ``collect_errors`` returns
them all, carrying on with the next op after an error.
"""

from __future__ import annotations

import inspect
from typing import Any

from ..parser.errors import HloError, VerificationError
from ..parser.ir import (
    Block,
    Function,
    FunctionType,
    Module,
    OpaqueType,
    Operation,
    QuantizedType,
    Region,
    SymbolRefAttr,
    TensorType,
    TupleType,
    Type,
)
from .buffers import value_type_violation
from .decode import decode_op_attributes
from .optable import OP_TABLE, OpDef, ShapeContext
from .quantization import quantized_type_violation
from .typeutil import type_text

# Dialects whose every op needs a row in the op table.
VERIFIED_DIALECTS = frozenset({"stablehlo", "chlo", "check", "interpreter"})

# StableHLO ops the dialect defines (docs/status.md, ops_stablehlo_roundtrip.mlir) that
# hlorun has no row for: deprecated or asynchronous ops.  The verifier accepts them
# unchecked; the interpreter raises UnsupportedError if it meets one.
ROWLESS_OPS = frozenset(
    {
        "stablehlo.einsum",
        "stablehlo.unary_einsum",
        "stablehlo.torch_index_select",
        "stablehlo.cross-replica-sum",
        "stablehlo.async_update",
        "stablehlo.trace",
    }
)

# The StableHLO dialect's types (``!stablehlo.token`` parses to TokenType; the others
# stay OpaqueType).
STABLEHLO_TYPES = frozenset({"token", "future"})

FUNC_RETURN = "func.return"
REGION_RETURNS = frozenset({"stablehlo.return", "chlo.return", "sdy.return"})
TERMINATORS = REGION_RETURNS | {FUNC_RETURN}
CALL_OPS = frozenset({"func.call"})


# --------------------------------------------------------------------------------------
# Type compatibility
# --------------------------------------------------------------------------------------


def _exceeds_bound(size: int | None, bounds: tuple[int | None, ...] | None, i: int) -> bool:
    """Whether the static ``size`` is larger than dimension ``i``'s bound (if any)."""
    if size is None or bounds is None:
        return False
    bound = bounds[i]
    return bound is not None and size > bound


def compatible(a: Type, b: Type) -> bool:
    """Types are compatible when they could describe the same runtime value: same
    element type, same rank, equal or dynamic dimensions (a static size no larger than
    a dynamic dimension's bound)."""
    if a == b:
        return True
    if isinstance(a, TensorType) and isinstance(b, TensorType):
        if not compatible_element(a.element_type, b.element_type):
            return False
        if a.shape is None or b.shape is None:
            return True
        if len(a.shape) != len(b.shape):
            return False
        abounds, bbounds = a.bounds, b.bounds
        for i, (x, y) in enumerate(zip(a.shape, b.shape)):
            if x is None and y is None:
                continue
            if x is None:  # a static size fits a bounded dynamic dimension up to its bound
                if _exceeds_bound(y, abounds, i):
                    return False
            elif y is None:
                if _exceeds_bound(x, bbounds, i):
                    return False
            elif x != y:
                return False
        return True
    if isinstance(a, TupleType) and isinstance(b, TupleType):
        return len(a.types) == len(b.types) and all(
            compatible(x, y) for x, y in zip(a.types, b.types)
        )
    return False


def compatible_element(a: Type, b: Type) -> bool:
    if a == b:
        return True
    return (
        isinstance(a, QuantizedType)
        and isinstance(b, QuantizedType)
        and (a.storage_type == b.storage_type and a.expressed_type == b.expressed_type)
    )


def type_violation(t: Type) -> tuple[str, str] | None:
    """(label, message) when ``t`` (or a tensor type inside a tuple) has a quantized
    element type breaking spec "Types" C3-C13, or ``#stablehlo.bounds`` that are not one
    per dimension or bound a static dimension (the StableHLO verifier's rules of
    bounded dynamism, docs/dynamism.md); None otherwise."""
    if isinstance(t, TupleType):
        for x in t.types:
            found = type_violation(x)
            if found is not None:
                return found
        return None
    if not isinstance(t, TensorType):
        return None
    bounds = t.bounds
    if bounds is not None and t.shape is not None:  # dynamism.md "Bounded dynamism"
        if len(bounds) != len(t.shape):
            return "type_bounds", (
                f"Bounds length is {len(bounds)}, expected to be equal to rank({len(t.shape)}) "
                f"of the tensor {type_text(t)}"
            )
        for d, (size, bound) in enumerate(zip(t.shape, bounds)):
            if size is not None and bound is not None:
                return "type_bounds", (
                    f"Static dimension {d} cannot have a bound in tensor {type_text(t)}"
                )
    if isinstance(t.element_type, QuantizedType):
        found = quantized_type_violation(t)
        if found is not None:
            return found[0], f"invalid quantized type '{type_text(t)}': {found[1]}"
    return None


def _fmt(types: tuple[Type, ...]) -> str:
    return "'" + "', '".join(type_text(t) for t in types) + "'"


# --------------------------------------------------------------------------------------
# One op: its row's shape function
# --------------------------------------------------------------------------------------

# Errors a shape function may raise on malformed input it did not anticipate; reported
# as a VerificationError (label "shape_function") rather than a traceback.
_CRASHES = (
    IndexError,
    KeyError,
    TypeError,
    ValueError,
    AttributeError,
    ZeroDivisionError,
    OverflowError,
)


# id(row) -> (row, shape function, arity); the row is kept so that its id stays unique.
_ARITY: dict[int, tuple[OpDef, Any, tuple[int, int | None]]] = {}


def operand_arity(row: OpDef) -> tuple[int, int | None]:
    """(least, most) operands the row's shape function takes; most is None if variadic."""
    got = _ARITY.get(id(row))
    if got is None or got[0] is not row or got[1] is not row.shape:
        got = _ARITY[id(row)] = (row, row.shape, _arity(row))
    return got[2]


def _arity(row: OpDef) -> tuple[int, int | None]:
    if row.shape is None:
        return (0, None)
    try:
        params = list(inspect.signature(row.shape).parameters.values())[1:]  # skip ctx
    except (TypeError, ValueError):
        return (0, None)
    least, most = 0, 0
    for p in params:
        if p.kind is p.VAR_POSITIONAL:
            return (least, None)
        if p.kind not in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) or p.name in row.attrs:
            continue
        most += 1
        if p.default is p.empty:
            least += 1
    return (least, most)


def _wrap(e: VerificationError, op: Operation) -> VerificationError:
    if e.pos is None or e.op is None:
        return VerificationError(e.message, e.pos or op.pos, op=e.op or op.name, label=e.label)
    return e


def infer_op(
    op: Operation,
    row: OpDef,
    attrs: dict[str, Any] | None = None,
    constants: dict[str, Any] | None = None,
) -> tuple[Type, ...] | None:
    """Run ``op``'s row's shape function: the inferred result types, or None when the
    row infers none (it then checks the declared types itself).  Raises
    ``VerificationError``.

    ``constants`` maps SSA names defined by ``stablehlo.constant`` to their arrays."""
    if row.shape is None:
        return None
    try:
        if attrs is None:
            attrs = decode_op_attributes(op, row)
        values = tuple(constants.get(v.name) for v in op.operands) if constants else ()
        ctx = ShapeContext(op.name, op.pos, op.result_types, op.regions, values)
        inferred = row.shape(ctx, *op.operand_types, **attrs)
    except VerificationError as e:
        raise _wrap(e, op) from None
    except HloError as e:
        raise VerificationError(e.message, e.pos or op.pos, op=op.name, label=e.label) from None
    except _CRASHES as e:
        raise VerificationError(
            f"shape function failed ({type(e).__name__}: {e})",
            op.pos,
            op=op.name,
            label="shape_function",
        ) from None
    if inferred is None:
        return None
    if isinstance(inferred, Type):
        return (inferred,)
    return tuple(inferred)


def verify_op(
    op: Operation,
    row: OpDef,
    attrs: dict[str, Any] | None = None,
    constants: dict[str, Any] | None = None,
) -> None:
    """Check ``op`` with its row's shape function: the inferred result types must be
    compatible with the declared ones, after the ODS check that no memref stands where
    the op takes none (shape_inference/buffers.py).  Raises ``VerificationError``."""
    bad = value_type_violation(op, row)
    if bad is not None:
        raise VerificationError(bad, op.pos, op=op.name, label="value_type")
    inferred = infer_op(op, row, attrs, constants)
    if inferred is None:
        return
    declared = op.result_types
    if len(inferred) != len(declared):
        raise VerificationError(
            f"inferred {len(inferred)} results but the op declares {len(declared)}",
            op.pos,
            op=op.name,
            label="result_count",
        )
    for i, (got, want) in enumerate(zip(inferred, declared)):
        if not compatible(got, want):
            raise VerificationError(
                f"inferred type(s) {_fmt(inferred)} are incompatible with return type(s) "
                f"of operation {_fmt(declared)} (result #{i})",
                op.pos,
                op=op.name,
                label=result_label(row, got, want, i),
            )


def result_label(row: OpDef, inferred: Type, declared: Type, index: int = 0) -> str:
    """The spec label a declared result type breaks: the row's ``result_labels``
    (shape, element type[, rank]; or one such tuple per result) by what differs;
    "inferred_type" when it has none."""
    labels: tuple = row.result_labels
    if labels and isinstance(labels[0], tuple):
        labels = labels[min(index, len(labels) - 1)]
    if not labels:
        return "inferred_type"
    shape_label, element_label = labels[0], labels[1]
    if not (isinstance(inferred, TensorType) and isinstance(declared, TensorType)):
        return element_label
    if not compatible_element(inferred.element_type, declared.element_type):
        return element_label
    a, b = inferred.shape, declared.shape
    if len(labels) > 2 and a is not None and b is not None and len(a) != len(b):
        return labels[2]
    return shape_label


# --------------------------------------------------------------------------------------
# The module walk
# --------------------------------------------------------------------------------------


class _Stop(Exception):
    """Raised to end the walk at the first error (``verify_module``)."""


def _alias(name: str) -> str | None:
    """``%0#0`` and ``%0`` name the same value (the first result of ``%0:2 = ...``)."""
    base, sep, index = name.partition("#")
    if not sep:
        return name + "#0"
    return base if index == "0" else None


def _well_formed_regions(op: Operation) -> bool:
    """Every region of ``op`` is one or more blocks each ending with a region return."""
    for r in op.regions:
        if not r.blocks:
            return False
        for b in r.blocks:
            if not b.operations or b.operations[-1].name not in REGION_RETURNS:
                return False
    return True


class _Verifier:
    def __init__(self, module: Module, first_only: bool):
        self.module = module
        self.first_only = first_only
        self.errors: list[VerificationError] = []
        self.functions: dict[str, Function] = {}
        self.defined: dict[str, Type] = {}
        self.constants: dict[str, Any] = {}
        self.scope: Function | Operation | None = None  # what names are looked up in

    # ---- reporting
    def fail(
        self,
        message: str,
        where: Operation | Function | None,
        label: str,
        op_name: str | None = None,
    ) -> None:
        pos = where.pos if where is not None else None
        if op_name is None and isinstance(where, Operation):
            op_name = where.name
        self.add(VerificationError(message, pos, op=op_name, label=label))

    def add(self, err: VerificationError) -> None:
        self.errors.append(err)
        if self.first_only:
            raise _Stop

    def types(
        self, types: tuple[Type, ...], where: Operation | Function, op_name: str | None = None
    ) -> None:
        """Spec "Types": a quantized element type of one of ``types`` is well-formed."""
        for t in types:
            found = type_violation(t)
            if found is not None:
                self.fail(found[1], where, found[0], op_name=op_name)
                return

    # ---- module and functions
    def run(self) -> list[VerificationError]:
        try:
            for item in self.module.body:
                if isinstance(item, Function):
                    if item.name in self.functions:
                        self.fail(
                            f"redefinition of symbol named '{item.name}'",
                            item,
                            "symbol_redefinition",
                            op_name="func.func",
                        )
                    else:
                        self.functions[item.name] = item
            for item in self.module.body:
                if isinstance(item, Function):
                    self.function(item)
                elif isinstance(item, Operation):
                    self.defined, self.constants, self.scope = {}, {}, item
                    self.operation(item, None)
        except _Stop:
            pass
        return self.errors

    def function(self, fn: Function) -> None:
        self.types((*fn.type.inputs, *fn.type.results), fn, "func.func")
        for t in (*fn.type.inputs, *fn.type.results):
            if isinstance(t, OpaqueType) and t.text.startswith("!stablehlo."):
                name = t.text[len("!stablehlo.") :].split("<", 1)[0]
                if name not in STABLEHLO_TYPES:
                    self.fail(
                        f"unknown stablehlo type: {name}", fn, "unknown_type", op_name="func.func"
                    )
        if fn.body is None:
            return
        self.defined, self.constants, self.scope = {}, {}, fn
        ftype = fn.type
        if fn.body.blocks:
            args = fn.body.blocks[0].arguments
            if len(args) != len(ftype.inputs) or not all(
                a.type == t for a, t in zip(args, ftype.inputs)
            ):
                self.fail(
                    f"entry block arguments ({', '.join(type_text(a.type) for a in args)}) do "
                    f"not match the function signature of @{fn.name}",
                    fn,
                    "func_signature",
                    op_name="func.func",
                )
        self.region(fn.body, fn)

    # ---- regions and blocks
    def region(self, region: Region, owner: Function | Operation) -> None:
        if not region.blocks:
            if isinstance(owner, Operation) and owner.dialect in VERIFIED_DIALECTS:
                self.fail("region must have one block", owner, "region_structure")
            return
        mark: list[tuple[str, Type | None]] = []  # (name, the type it shadowed)
        if len(region.blocks) > 1:  # a CFG: no dominance order between blocks here
            for block in region.blocks:
                self.define_all(block, mark)
            predefined = True
        else:
            predefined = False
        try:
            for block in region.blocks:
                self.block(block, owner, mark, predefined)
        finally:
            defined, constants = self.defined, self.constants
            for name, shadowed in reversed(mark):
                constants.pop(name, None)
                if shadowed is None:
                    defined.pop(name, None)
                else:
                    defined[name] = shadowed

    def define_all(self, block: Block, mark: list[tuple[str, Type | None]]) -> None:
        for v in block.arguments:
            self.define(v.name, v.type, None, mark)
        for op in block.operations:
            for v in op.results:
                self.define(v.name, v.type, op, mark)

    def define(
        self, name: str, t: Type, op: Operation | None, mark: list[tuple[str, Type | None]]
    ) -> None:
        defined = self.defined
        alias = _alias(name)
        shadowed = defined.get(name)
        if shadowed is not None or (alias is not None and alias in defined):
            where = op if op is not None else self.scope
            self.fail(
                f"redefinition of SSA value '{name}'",
                where,
                "ssa_redefinition",
                op_name=op.name if op is not None else None,
            )
        # (after a redefinition, later uses see the new value until the scope ends)
        defined[name] = t
        mark.append((name, shadowed))

    def block(
        self,
        block: Block,
        owner: Function | Operation,
        mark: list[tuple[str, Type | None]],
        predefined: bool,
    ) -> None:
        if not predefined:
            for v in block.arguments:
                self.define(v.name, v.type, None, mark)
        if isinstance(owner, Operation):
            self.types(tuple(v.type for v in block.arguments), owner)
        ops = block.operations
        in_function = isinstance(owner, Function)
        checks_terminator = isinstance(owner, Function) or owner.dialect in VERIFIED_DIALECTS
        if not ops:
            if checks_terminator:
                self.fail(
                    "empty block: expect at least a terminator",
                    owner,
                    "terminator",
                    op_name="func.func" if in_function else None,
                )
            return
        last = len(ops) - 1
        for i, op in enumerate(ops):
            name = op.name
            if name in TERMINATORS:
                self.terminator(op, owner, i == last)
            self.operation(op, mark if not predefined else None)
        end = ops[-1]
        if checks_terminator and end.name not in TERMINATORS and not end.successors:
            if end.dialect in VERIFIED_DIALECTS or end.name.startswith("func."):
                want = FUNC_RETURN if in_function else "stablehlo.return"
                self.fail(
                    f"block with no terminator, has '{end.name}' (expected '{want}')",
                    end,
                    "terminator",
                )

    def terminator(self, op: Operation, owner: Function | Operation, is_last: bool) -> None:
        if not is_last:
            self.fail("must be the last operation in the parent block", op, "terminator")
            return
        if op.name == FUNC_RETURN and not isinstance(owner, Function):
            self.fail("expects parent op 'func.func'", op, "terminator")
        elif op.name == FUNC_RETURN and isinstance(owner, Function):
            self.func_return(op, owner)
        # MLIR also takes a stablehlo.return as the end of a function body, unchecked
        # (tests/verifier/print_stablehlo.mlir relies on it).

    def func_return(self, op: Operation, fn: Function) -> None:
        """MLIR func.return: operand types equal the function's result types."""
        results = fn.type.results
        if len(op.operands) != len(results):
            self.fail(
                f"has {len(op.operands)} operands, but enclosing function (@{fn.name}) "
                f"returns {len(results)}",
                op,
                "func_return",
            )
            return
        for i, (v, t) in enumerate(zip(op.operands, results)):
            if v.type != t:
                self.fail(
                    f"type of return operand {i} ('{type_text(v.type)}') doesn't match "
                    f"function result type ('{type_text(t)}') in function @{fn.name}",
                    op,
                    "func_return",
                )
                return

    # ---- operations
    def operation(self, op: Operation, mark: list[tuple[str, Type | None]] | None) -> None:
        defined = self.defined
        for i, v in enumerate(op.operands):
            t = defined.get(v.name)
            if t is None:
                alias = _alias(v.name)
                t = defined.get(alias) if alias is not None else None
                if t is None:
                    self.undefined(op, i, v.name)
                    continue
            if t != v.type:
                self.fail(
                    f"use of value '{v.name}' expects different type than prior uses: "
                    f"'{type_text(v.type)}' vs '{type_text(t)}'",
                    op,
                    "ssa_type",
                )
        name = op.name
        row = OP_TABLE.get(name)
        if row is not None:
            if self.counts(op, row) and _well_formed_regions(op):
                try:
                    verify_op(op, row, constants=self.constants)
                except VerificationError as e:
                    self.add(e)
                else:  # (an op error already names a bad result type)
                    self.types(op.result_types, op)
        elif name in CALL_OPS:
            self.call(op)
        elif (
            op.dialect in VERIFIED_DIALECTS
            and name not in ROWLESS_OPS
            and name not in REGION_RETURNS
        ):
            self.fail(
                f"unregistered operation '{name}' found in dialect ('{op.dialect}') that "
                "does not allow unknown operations",
                op,
                "unknown_op",
            )
        if row is not None and row.callee is not None:
            self.callee_signature(op, row.callee)
        for r in op.regions:
            self.region(r, op)
        if mark is not None:
            for v in op.results:
                self.define(v.name, v.type, op, mark)
        if row is not None and "constant_like" in row.traits and len(op.results) == 1:
            value = op.attr("value")
            if value is not None and hasattr(value, "array"):
                self.constants[op.results[0].name] = value.array

    def undefined(self, op: Operation, index: int, name: str) -> None:
        if self.defines(self.scope, name):
            self.fail(
                f"operand #{index} ('{name}') does not dominate this use", op, "ssa_dominance"
            )
        else:
            self.fail(f"use of undeclared SSA value name '{name}'", op, "ssa_undefined")

    def defines(self, scope: Function | Operation | None, name: str) -> bool:
        """Whether ``name`` (or its alias) is defined anywhere in ``scope``."""
        names = {name, _alias(name)}
        if isinstance(scope, Function):
            regions: tuple[Region, ...] = (scope.body,) if scope.body is not None else ()
        elif isinstance(scope, Operation):
            if names & {v.name for v in scope.results}:
                return True
            regions = scope.regions
        else:
            return False
        stack = list(regions)
        while stack:
            region = stack.pop()
            for block in region.blocks:
                if names & {v.name for v in block.arguments}:
                    return True
                for o in block.operations:
                    if names & {v.name for v in o.results}:
                        return True
                    stack.extend(o.regions)
        return False

    def counts(self, op: Operation, row: OpDef) -> bool:
        """Operand / result / region counts that the row knows."""
        least, most = operand_arity(row)
        n = len(op.operands)
        if n < least or (most is not None and n > most):
            want = (
                str(least)
                if most == least
                else (f"at least {least}" if most is None else f"{least} to {most}")
            )
            self.fail(f"expected {want} operands, but found {n}", op, "operand_count")
            return False
        if row.results is not None and len(op.results) != row.results:
            self.fail(
                f"expected {row.results} result{'s' if row.results != 1 else ''}, but found "
                f"{len(op.results)}",
                op,
                "result_count",
            )
            return False
        if row.regions and not row.variadic_regions and len(op.regions) != len(row.regions):
            self.fail(
                f"expected {len(row.regions)} regions ({', '.join(row.regions)}), but "
                f"found {len(op.regions)}",
                op,
                "region_count",
            )
            return False
        if not row.regions and op.regions:
            self.fail(f"expected 0 regions, but found {len(op.regions)}", op, "region_count")
            return False
        return True

    # ---- symbols
    def callee(self, op: Operation, attr_name: str, label: str = "call_callee") -> Function | None:
        ref = op.attr(attr_name)
        if not isinstance(ref, SymbolRefAttr):
            self.fail(f"requires a symbol reference attribute '{attr_name}'", op, "call_callee")
            return None
        fn = self.functions.get(ref.root) if not ref.nested else None
        if fn is None:
            self.fail(f"'{ref.root}' does not reference a valid function", op, label)
        return fn

    def call(self, op: Operation) -> None:
        """MLIR func.call: operand and result types equal the callee's FunctionType."""
        fn = self.callee(op, "callee")
        if fn is None:
            return
        ftype: FunctionType = fn.type
        if len(op.operands) != len(ftype.inputs):
            self.fail("incorrect number of operands for callee", op, "call_signature")
            return
        for i, (v, t) in enumerate(zip(op.operands, ftype.inputs)):
            if v.type != t:
                self.fail(
                    f"operand type mismatch: expected operand type '{type_text(t)}', but "
                    f"provided '{type_text(v.type)}' for operand number {i}",
                    op,
                    "call_signature",
                )
                return
        if len(op.results) != len(ftype.results):
            self.fail("incorrect number of results for callee", op, "call_signature")
            return
        for i, (v, t) in enumerate(zip(op.results, ftype.results)):
            if v.type != t:
                self.fail(
                    f"result type mismatch at index {i}: op result type "
                    f"'{type_text(v.type)}', function result type '{type_text(t)}'",
                    op,
                    "call_signature",
                )
                return

    def callee_signature(self, op: Operation, callee: tuple[str, str, str, str]) -> None:
        """An op's ``callee`` column (spec composite (C2): decomposition names a
        function; (C3), (C4): its type)."""
        attr, names_label, inputs_label, results_label = callee
        fn = self.callee(op, attr, names_label)
        if fn is None:
            return
        ftype = fn.type
        for what, got, want, label in (
            ("operand", op.operand_types, ftype.inputs, inputs_label),
            ("result", op.result_types, ftype.results, results_label),
        ):
            if len(got) != len(want):
                self.fail(f"has {len(got)} {what}(s), but {attr} has {len(want)}", op, label)
                return
            for i, (a, b) in enumerate(zip(got, want)):
                if a != b:
                    self.fail(
                        f"{what} at index {i} has type '{type_text(a)}', but "
                        f"{attr} has type '{type_text(b)}'",
                        op,
                        label,
                    )
                    return


# --------------------------------------------------------------------------------------
# Public entry points
# --------------------------------------------------------------------------------------


def collect_errors(module: Module) -> list[VerificationError]:
    """Every ``VerificationError`` of ``module``, in text order (next op after an error)."""
    return _Verifier(module, first_only=False).run()


def verify_module(module: Module) -> None:
    """Verify ``module``; raise the first ``VerificationError``."""
    errors = _Verifier(module, first_only=True).run()
    if errors:
        raise errors[0]


def verify_function(fn: Function, module: Module | None = None) -> None:
    """Verify one function (calls resolve in ``module``, if given)."""
    v = _Verifier(module or Module((fn,)), first_only=True)
    if module is not None:
        v.functions = dict(module.functions)
    else:
        v.functions = {fn.name: fn}
    try:
        v.function(fn)
    except _Stop:
        pass
    if v.errors:
        raise v.errors[0]


def verify_operation(op: Operation, constants: dict[str, Any] | None = None) -> None:
    """Verify one op with its row's shape function (no SSA checks)."""
    row = OP_TABLE.get(op.name)
    if row is not None:
        verify_op(op, row, constants=constants)
