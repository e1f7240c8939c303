"""Operation properties in bytecode (v5+, ``kNativePropertiesEncoding``).

A registered op's properties are what its ODS-generated ``writeProperties`` emits:
its inherent attributes sorted by name, each as ``writeAttribute`` (required) or
``writeOptionalAttribute`` (optional) -- checked against the goldens (``vhlo.func_v1``
writes arg_attrs, function_type, res_attrs, sym_name, sym_visibility).  An
unregistered op stores one optional dictionary attribute (BytecodeWriter.cpp
``PropertiesSectionBuilder::emit``).

Which ops have which inherent attributes: the dialect codec's ``property_spec``, else
the table below (builtin / func, from BuiltinOps.td and FuncOps.td), the stablehlo
table (``stablehlo_props.py``, generated from StablehloOps.td) or the VHLO table
(VhloOps.td: every VHLO attribute is required).  An op with no inherent attribute has
no properties.
"""

from __future__ import annotations

import functools

from ..ir import Attribute
from .dialect_api import DialectReader, DialectWriter, get_codec

# (name, optional) in name order.
KNOWN_SPECS: dict[str, tuple[tuple[str, bool], ...]] = {
    "builtin.module": (("sym_name", True), ("sym_visibility", True)),
    "func.func": (
        ("arg_attrs", True),
        ("function_type", False),
        ("res_attrs", True),
        ("sym_name", False),
        ("sym_visibility", True),
    ),
    "func.call": (("arg_attrs", True), ("callee", False), ("no_inline", True), ("res_attrs", True)),
}


@functools.cache
def property_spec(op_name: str) -> tuple[tuple[str, bool], ...] | None:
    dialect = op_name.split(".", 1)[0]
    codec = get_codec(dialect)
    if codec is not None:
        spec = codec.property_spec(op_name)
        if spec is not None:
            return spec
    if op_name in KNOWN_SPECS:
        return KNOWN_SPECS[op_name]
    if dialect == "stablehlo":
        from .stablehlo_props import PROPERTY_SPECS

        return PROPERTY_SPECS.get(op_name) or None
    if dialect == "vhlo":
        try:
            from ..vhlo.table import op_info
        except ImportError:
            return None
        info = op_info(op_name)
        if info is None or not info.attributes:
            return None
        return tuple((a, False) for a in sorted(info.attributes))
    return None


def read_properties(r: DialectReader, op_name: str) -> tuple[tuple[str, Attribute], ...]:
    spec = property_spec(op_name)
    if spec is None:
        raise r.error(f"no properties encoding known for op '{op_name}'")
    out = []
    for name, optional in spec:
        a = r.read_optional_attribute() if optional else r.read_attribute()
        if a is not None:
            out.append((name, a))
    return tuple(out)


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
    """True when ``op_name`` belongs to a dialect whose op list we know (VHLO) and is not
    in it (e.g. ``vhlo.constant_v99`` from a newer producer)."""
    if not op_name.startswith("vhlo."):
        return False
    try:
        from ..vhlo.table import op_info
    except ImportError:
        return False
    return op_info(op_name) is None
