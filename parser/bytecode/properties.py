"""Operation properties in bytecode (v5+, ``kNativePropertiesEncoding``).

A registered op's properties are what its ODS-generated ``writeProperties`` emits:
its inherent attributes sorted by name, each as ``writeAttribute`` (required) or
``writeOptionalAttribute`` (optional) -- checked against the goldens (``vhlo.func_v1``
writes arg_attrs, function_type, res_attrs, sym_name, sym_visibility).  An
unregistered op stores one optional dictionary attribute (BytecodeWriter.cpp
``PropertiesSectionBuilder::emit``).

Which ops have which inherent attributes: the dialect codec's ``property_spec``, else
the builtin / func layouts (``builtin_func_props.py``, generated from LLVM's
BuiltinOps.td and FuncOps.td, with the older layouts below), the stablehlo table
(``stablehlo_props.py``, generated from StablehloOps.td) or the VHLO table (VhloOps.td:
every VHLO attribute is required).  An op with no inherent attribute has no properties.

Plain MLIR bytecode records no func dialect version and properties carry no per-field
lengths, so an op whose layout changed across LLVM releases (``func.func`` gained
``no_inline`` in LLVM 20) is read with the layout that decodes its blob exactly, each
attribute of its declared kind (``read_some_layout``).  The layouts of one op differ in
their number of fields (one varint each), so at most one consumes a blob exactly.
"""

from __future__ import annotations

import functools
from collections.abc import Callable

from ..errors import ParseError
from ..ir import (
    ArrayAttr,
    Attribute,
    DictionaryAttr,
    FunctionType,
    StringAttr,
    SymbolRefAttr,
    TypeAttr,
    UnitAttr,
)
from ..opdecl import OP_DECLS
from .builtin_func_props import CUSTOM_ENCODING, PROPERTY_LAYOUTS
from .dialect_api import DialectReader, DialectWriter, get_codec

# (name, optional, ODS constraint) in name order: what ODS writeProperties writes.
Layout = tuple[tuple[str, bool, str], ...]
Spec = tuple[tuple[str, bool], ...]

_DICTS = "OptionalAttr<DictArrayAttr>"
# Layouts earlier releases wrote, each op's newest first: the ODS arguments of FuncOps.td
# / StablehloOps.td before the change named ("" constraint: any attribute).
OLDER_LAYOUTS: dict[str, tuple[Layout, ...]] = {
    # before llvm/llvm-project#119970 (LLVM 20) added no_inline
    "func.func": (
        (
            ("arg_attrs", True, _DICTS),
            ("function_type", False, "TypeAttrOf<FunctionType>"),
            ("res_attrs", True, _DICTS),
            ("sym_name", False, "SymbolNameAttr"),
            ("sym_visibility", True, "OptionalAttr<StrAttr>"),
        ),
    ),
    # before llvm/llvm-project#123176 (arg_attrs / res_attrs on call ops, LLVM 21);
    # before #119970 (no_inline)
    "func.call": (
        (("callee", False, "FlatSymbolRefAttr"), ("no_inline", True, "UnitAttr")),
        (("callee", False, "FlatSymbolRefAttr"),),
    ),
    # the older layouts of declared ops (parser/opdecl.py ``older_properties``)
    **{n: d.older_properties for n, d in OP_DECLS.items() if d.older_properties},
}
# Ops whose layouts are kept here by hand: those of CUSTOM_ENCODING (hand-written
# encodings) and ops of dialects we have no generated table for.
HAND_LAYOUTS: dict[str, tuple[Layout, ...]] = {
    # the ODS layout of BuiltinOps.td before its inherent `dlti`
    "builtin.module": (
        (
            ("sym_name", True, "OptionalAttr<SymbolNameAttr>"),
            ("sym_visibility", True, "OptionalAttr<StrAttr>"),
        ),
    ),
    # declared ops of dialects with no generated table (parser/opdecl.py ``properties``)
    **{n: (d.properties,) for n, d in OP_DECLS.items() if d.properties is not None},
}
# Where hlorun's writer writes an older layout than the newest: the one it has always
# written (its output stays byte for byte the same).
WRITE_LAYOUT: dict[str, Layout] = {"func.func": OLDER_LAYOUTS["func.func"][0]}


@functools.cache
def layouts(op_name: str) -> tuple[Layout, ...]:
    """Every known layout of a builtin / func op, and of another op producers wrote in
    more than one (OLDER_LAYOUTS) or that we know by hand, newest first; () for other
    ops (``property_spec`` reads them)."""
    if op_name in CUSTOM_ENCODING or op_name in HAND_LAYOUTS:
        return HAND_LAYOUTS.get(op_name, ())
    newest = PROPERTY_LAYOUTS.get(op_name)
    if newest is None and op_name in OLDER_LAYOUTS and op_name.startswith("stablehlo."):
        from .stablehlo_props import PROPERTY_SPECS

        newest = tuple((n, opt, "") for n, opt in PROPERTY_SPECS.get(op_name, ()))
    if newest is None:
        return ()
    return (newest, *OLDER_LAYOUTS.get(op_name, ()))


def spec_of(layout: Layout) -> Spec:
    return tuple((name, optional) for name, optional, _ in layout)


@functools.cache
def property_spec(op_name: str) -> Spec | None:
    """The (name, optional) fields an op's properties are written with (None: the op
    has no inherent attributes, or we do not know them)."""
    dialect = op_name.split(".", 1)[0]
    codec = get_codec(dialect)
    if codec is not None:
        spec = codec.property_spec(op_name)
        if spec is not None:
            return spec
    known = layouts(op_name)
    if known:
        return spec_of(WRITE_LAYOUT.get(op_name, known[0])) or None
    if dialect == "stablehlo":
        from .stablehlo_props import PROPERTY_SPECS

        return PROPERTY_SPECS.get(op_name) or None
    return None


def has_layouts(op_name: str) -> bool:
    """Is this a builtin / func op whose layouts we know (read by ``read_some_layout``:
    one of them, each attribute of its declared kind)?"""
    return bool(layouts(op_name))


# ODS attribute constraints (OptionalAttr<...> stripped) -> is this attribute of it?
_KINDS: dict[str, Callable[[Attribute], bool]] = {
    "SymbolNameAttr": lambda a: isinstance(a, StringAttr),
    "StrAttr": lambda a: isinstance(a, StringAttr),
    "UnitAttr": lambda a: isinstance(a, UnitAttr),
    "FlatSymbolRefAttr": lambda a: isinstance(a, SymbolRefAttr) and not a.nested,
    "TypeAttrOf<FunctionType>": lambda a: (
        isinstance(a, TypeAttr) and isinstance(a.type, FunctionType)
    ),
    "DictArrayAttr": lambda a: (
        isinstance(a, ArrayAttr) and all(isinstance(e, DictionaryAttr) for e in a.elements)
    ),
}


def of_kind(attr: Attribute, constraint: str) -> bool:
    """Is ``attr`` of the ODS ``constraint``?  (A constraint not in _KINDS takes any.)"""
    if constraint.startswith("OptionalAttr<") and constraint.endswith(">"):
        constraint = constraint[len("OptionalAttr<") : -1]
    check = _KINDS.get(constraint)
    return check is None or check(attr)


def read_some_layout(
    open_reader: Callable[[], DialectReader], op_name: str
) -> tuple[tuple[tuple[str, Attribute], ...], Spec] | None:
    """Decode an op's property blob with the first of its layouts that reads it to the
    last byte with attributes of the declared kinds: (entries, that layout's spec), or
    None when none does.  ``open_reader()`` gives a reader at the blob's start."""
    for layout in layouts(op_name):
        r = open_reader()
        try:
            entries = read_spec(r, spec_of(layout))
        except ParseError:
            continue
        if not r.cursor.at_end():
            continue
        kinds = {name: constraint for name, _, constraint in layout}
        if all(of_kind(a, kinds[name]) for name, a in entries):
            return entries, spec_of(layout)
    return None


def read_spec(r: DialectReader, spec: Spec) -> tuple[tuple[str, Attribute], ...]:
    out = []
    for name, optional in spec:
        a = r.read_optional_attribute() if optional else r.read_attribute()
        if a is not None:
            out.append((name, a))
    return tuple(out)


def read_properties(r: DialectReader, op_name: str) -> tuple[tuple[str, Attribute], ...]:
    spec = property_spec(op_name)
    if spec is None:
        raise r.error(f"no properties encoding known for op '{op_name}'")
    return read_spec(r, spec)


def write_properties(w: DialectWriter, spec, attrs: dict) -> None:
    for name, optional in spec:
        a = attrs.get(name)
        if optional:
            w.write_optional_attribute(a)
        else:
            if a is None:
                raise ValueError(f"missing required inherent attribute '{name}'")
            w.write_attribute(a)


@functools.cache
def unknown_op(op_name: str) -> bool:
    """True when ``op_name`` belongs to a dialect whose op list its codec knows (VHLO's)
    and is not in it (e.g. ``vhlo.constant_v99`` from a newer producer)."""
    codec = get_codec(op_name.split(".", 1)[0])
    return codec is not None and codec.knows_op(op_name) is False
