"""Declarations of the other dialects' ops that StableHLO modules mix in (arith, builtin,
scf, tensor): their operands, results, attributes, regions and text forms, in
parser/op_format.py's format language, as parser/opdecl.py declares hlorun's own ops.
They are parsed and printed only (no shape function, no kernel), so they stay out of
the op table (``OP_DECLS``).

Sources (MLIR's ODS declarations and custom parsers / printers):

- arith's binary ops: ArithOps.td, `$lhs `,` $rhs attr-dict `:` type($result)` (the
  float ones' optional `fastmath` is not spelled: an op carrying it is written in the
  generic form's attribute dictionary);
- ``builtin.unrealized_conversion_cast``: BuiltinOps.td, `($inputs^ `:`
  type($inputs))? `to` type($outputs) attr-dict`;
- ``scf.for``: SCF.cpp, ForOp::parse / ForOp::print (custom<ForLoop>), then the
  attribute dictionary; ``scf.yield``: SCFOps.td, `attr-dict ($results^ `:`
  type($results))?`;
- ``builtin.module``: BuiltinOps.td (custom<ModuleOp>: the module's record);
- ``func.func``: FuncOps.td (its arguments; the form is C++'s, FuncOps.cpp
  FuncOp::parse / print: custom<FunctionOp>, which reads and writes the module's
  ``Function`` record);
- ``tensor.insert``: TensorOps.td, `$scalar `into` $dest `[` $indices `]` attr-dict `:`
  type($dest)` (custom<InsertTypes>: the other types follow from the destination's).
"""

from __future__ import annotations

from collections.abc import Mapping

from .ir import (
    VISIBILITIES,
    ArrayAttr,
    DictionaryAttr,
    Function,
    FunctionType,
    Operation,
    Region,
    StringAttr,
    TypeAttr,
)
from .opdecl import AttrDecl, OpDecl

# ArithOps.td's binary ops of `$lhs, $rhs attr-dict : type($result)` (operands and
# result of one type: SameOperandsAndResultType)
_ARITH_BINARY = (
    "addf subf mulf divf remf maximumf minimumf maxnumf minnumf addi subi muli divsi divui "
    "remsi remui andi ori xori shli shrsi shrui maxsi maxui minsi minui"
).split()
_ARITH_FORMAT = "operands attr-dict `:` type(result)"


def _decl(
    name: str,
    source: str,
    operands: str,
    fmt: str,
    results: str = "result",
    attrs: tuple[AttrDecl, ...] = (),
    regions: tuple[str, ...] = (),
) -> OpDecl:
    return OpDecl.of(name, source, fmt, operands, results, attrs, regions)


def _build() -> dict[str, OpDecl]:
    decls = [
        *(_decl(f"arith.{n}", "ArithOps.td", "lhs rhs", _ARITH_FORMAT) for n in _ARITH_BINARY),
        _decl(
            "builtin.unrealized_conversion_cast",
            "BuiltinOps.td",
            "inputs+",
            "operands `:` type(operands) `to` type(results) attr-dict",
            "outputs+",
        ),
        _decl(
            "scf.for",
            "SCFOps.td",
            "lowerBound upperBound step initArgs*",
            "custom<ForLoop> attr-dict",
            "results*",
            (AttrDecl("unsignedCmp", "unit", False),),
            ("region",),
        ),
        _decl(
            "scf.yield", "SCFOps.td", "results*", "attr-dict operands (`:` type(operands)^)?", ""
        ),
        _decl(
            "builtin.module",
            "BuiltinOps.td",
            "",
            "custom<ModuleOp>",
            "",
            (AttrDecl("sym_name", "string", None), AttrDecl("sym_visibility", "string", None)),
            ("bodyRegion",),
        ),
        _decl(
            "func.func",
            "FuncOps.td",
            "",
            "custom<FunctionOp>",
            "",
            (
                AttrDecl("sym_name", "string"),
                AttrDecl("function_type", "any"),
                AttrDecl("sym_visibility", "string", None),
                AttrDecl("arg_attrs", "array", None),
                AttrDecl("res_attrs", "array", None),
            ),
            ("body",),
        ),
        _decl(
            "tensor.insert",
            "TensorOps.td",
            "scalar dest indices*",
            "$scalar `into` $dest `[` $indices `]` attr-dict `:` custom<InsertTypes>",
        ),
    ]
    return {d.name: d for d in decls}


MIXED_OP_DECLS: Mapping[str, OpDecl] = _build()


def function_of(op: Operation) -> Function | Operation:
    """A ``func.func`` in the generic form (text or bytecode) as the module's ``Function``
    record, or the operation itself, kept generic (printed and read back as it is, for
    the verifier to refuse), when it is not a function: no ``sym_name`` string or
    ``function_type``, operands or results, not one region, a visibility MLIR's
    SymbolTable does not know, ``arg_attrs`` / ``res_attrs`` not arrays of
    dictionaries."""
    attrs = dict(op.attributes)
    name = attrs.pop("sym_name", None)
    ftype = attrs.pop("function_type", None)
    vis = attrs.pop("sym_visibility", None)
    arg_attrs = _dicts(attrs.pop("arg_attrs", None))
    res_attrs = _dicts(attrs.pop("res_attrs", None))
    if not (
        isinstance(name, StringAttr)
        and isinstance(ftype, TypeAttr)
        and isinstance(ftype.type, FunctionType)
        and len(op.regions) == 1
        and not op.operands
        and not op.results
        and (vis is None or (isinstance(vis, StringAttr) and vis.value in VISIBILITIES))
        and arg_attrs is not None
        and res_attrs is not None
    ):
        return op
    return Function(
        name.value,
        ftype.type,
        op.regions[0] if op.regions[0].blocks else None,
        vis.value if isinstance(vis, StringAttr) else None,
        arg_attrs,
        res_attrs,
        tuple(attrs.items()),
        op.location,
        op.pos,
    )


_FUNCTION_PROPERTIES = ("arg_attrs", "function_type", "res_attrs", "sym_name", "sym_visibility")


def function_op(f: Function) -> Operation:
    """``func.func`` as a generic operation, the inverse of ``function_of``, for the
    generic printer and the bytecode writer: the properties FuncOps.td declares
    (sym_name, function_type, sym_visibility, and arg_attrs / res_attrs only when some
    dictionary is not empty, as function_interface_impl sets them), then the
    discardable attributes; sorted by name, as a DictionaryAttr keeps them."""
    attrs = dict(f.attributes)
    attrs["sym_name"] = StringAttr(f.name)
    attrs["function_type"] = TypeAttr(f.type)
    if f.visibility is not None:
        attrs["sym_visibility"] = StringAttr(f.visibility)
    for key, dicts in (("arg_attrs", f.arg_attrs), ("res_attrs", f.result_attrs)):
        if any(d is not None and d.entries for d in dicts):
            attrs[key] = ArrayAttr(tuple(d or DictionaryAttr(()) for d in dicts))
    body = f.body if f.body is not None else Region(())
    return Operation(
        "func.func",
        attributes=tuple(sorted(attrs.items())),
        regions=(body,),
        property_names=frozenset(k for k in _FUNCTION_PROPERTIES if k in attrs),
        location=f.location,
    )


def _dicts(a: object) -> tuple[DictionaryAttr | None, ...] | None:
    """arg_attrs / res_attrs: one dictionary or None (empty) each, () when all are empty
    or the attribute is absent; None when it is not an array of dictionaries."""
    if a is None:
        return ()
    if not isinstance(a, ArrayAttr) or not all(isinstance(d, DictionaryAttr) for d in a.elements):
        return None
    out = tuple(d if isinstance(d, DictionaryAttr) and d.entries else None for d in a.elements)
    return out if any(d is not None for d in out) else ()
