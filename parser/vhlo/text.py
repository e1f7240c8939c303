"""VHLO types and attributes as MLIR text: printer and parser.

The syntax is each kind's assembly format in stablehlo/dialect/VhloTypes.td /
VhloAttrs.td / VhloEnums.td, with the custom directives of VhloTypes.cpp
(``Shape``, ``Encoding``, ``TypeArray``) and VhloOps.cpp (``AttributeArray``,
``AttributeDictionary``, ``EscapedString``, IntegerV1Attr / TensorV1Attr printed
through the builtin IntegerAttr / DenseElementsAttr), ``VHLO_Dims``
(AssemblyFormat.cpp ``printDimSizes``: ``[1, ?]``) and the ODS ``struct(params)``
directive (``name = value, ...``; an absent optional parameter is left out).
Enums print ``#vhlo<comparison_direction_v1 EQ>`` (EnumAttr's ``$value`` format: the
mnemonic and the case do not form one identifier, so MLIR wraps them in ``<>``).
Floats (APFloat) print as MLIR's ``printFloat``.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from ..attributes import LiteralError, float_attr_value
from ..errors import ParseError
from ..float_literals import f64_bits, f64_from_bits
from ..ir import (
    Attribute,
    BoolAttr,
    DenseElementsAttr,
    FloatType,
    IndexType,
    IntegerAttr,
    IntegerType,
    TensorType,
    Type,
    numpy_dtype,
)
from .builtin_view import (
    DYNAMIC,
    SCALAR_TO_BUILTIN,
    data_from_dense,
    dense_from_data,
    to_builtin,
    to_vhlo,
)
from .bytecode_codes import FLOAT_TYPE_SEMANTICS, TYPE_CODES
from .ir import VhloAttr, VhloType
from .table_data import ENUMS

if TYPE_CHECKING:
    from ..lexer import Cursor


class Parser(Protocol):
    """What the VHLO syntax needs of the text parser: ``type_syntax.TypeParser`` and the
    layers above it (``attr_syntax.AttrParser``, ..., ``grammar.Parser``, the object at
    run time). A type's encoding (``!vhlo.tensor_v1<..., #enc>``) is an attribute, so
    both directions recurse through the whole grammar."""

    c: Cursor

    def enter(self) -> None: ...
    def leave(self) -> None: ...
    def parse_type(self) -> Type: ...
    def parse_attribute(self) -> Attribute: ...


AttrFn = Callable[[Attribute], str]
TypeFn = Callable[[Type], str]

ENUM_CASES: dict[str, frozenset[str]] = {e[0]: frozenset(c for c, _ in e[3]) for e in ENUMS}
# Parameterless VHLO types (VhloTypes.td defs without parameters).
SIMPLE_TYPES = frozenset(name for name, fields in TYPE_CODES.values() if not fields)

# struct(params) attributes: (parameter name, value kind) in .td order.
STRUCT_ATTRS: dict[str, tuple[tuple[str, str], ...]] = {
    "output_operand_alias_v1": (
        ("outputTupleIndices", "dims"),
        ("operandIndex", "int"),
        ("operandTupleIndices", "dims"),
    ),
    "type_extensions_v1": (("bounds", "dims"),),
    "result_accuracy_v1": (("atol", "f64"), ("rtol", "f64"), ("ulps", "int"), ("mode", "attr")),
    "sub_axis_info_v1": (("pre_size", "int"), ("size", "int")),
    "axis_ref_v1": (("name", "attr"), ("sub_axis_info", "opt_attr")),
    "replica_group_mesh_axes_v1": (("mesh", "attr"), ("axes", "attr")),
    "mesh_axis_v1": (("name", "attr"), ("size", "int")),
    "mesh_v1": (("axes", "attr"), ("device_ids", "opt_attr")),
}

# ---- float bit patterns -----------------------------------------------------------------


def _uint(nbytes: int) -> np.dtype:
    return np.dtype({1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}[nbytes])


def float_array_from_bits(bits: int, name: str) -> np.ndarray:
    """One element of float format ``name`` (hlorun's storage dtype) from its bit pattern."""
    dt = numpy_dtype(FloatType(name))
    if name == "tf32":
        bits <<= 13
    return np.array([bits], dtype=_uint(dt.itemsize)).view(dt)


def bits_from_float_array(a: np.ndarray, name: str) -> int:
    """The bit pattern of the one element of ``a`` (stored as format ``name``)."""
    bits = int(np.ascontiguousarray(a).reshape(-1)[:1].view(_uint(a.dtype.itemsize))[0])
    if name == "tf32":
        return bits >> 13
    from ..bytecode.dialect_api import float_bitwidth

    return bits & ((1 << float_bitwidth(name)) - 1)


def float_text(bits: int, name: str) -> str:
    """MLIR's printFloat of an APFloat of format ``name`` with bit pattern ``bits``."""
    from ..printer import _format_floats

    return _format_floats(float_array_from_bits(bits, name), name)[0]


def float_bits_from_literal(lit: str, name: str) -> int:
    """A float literal (decimal, or a hex bit pattern) as a bit pattern of ``name``."""
    t = FloatType(name)
    value = float_attr_value(lit, t)  # validates a hex pattern's width
    if lit.lstrip("+-").lower().startswith("0x"):
        return int(lit, 16)  # the bit pattern itself (keeps NaN payloads)
    return bits_from_float_array(np.array([value]).astype(numpy_dtype(t)), name)


# ---- printing ---------------------------------------------------------------------------


def _default_fns(attr_fn: AttrFn | None, type_fn: TypeFn | None) -> tuple[AttrFn, TypeFn]:
    if attr_fn is None or type_fn is None:
        from ..printer import print_attribute, print_type

        attr_fn = attr_fn or print_attribute
        type_fn = type_fn or print_type
    return attr_fn, type_fn


def _dim(d: int) -> str:
    return "?" if d == DYNAMIC else str(d)


def _dims(ds: tuple[int, ...]) -> str:
    return "[" + ", ".join(_dim(d) for d in ds) + "]"


def _type_array(ts: tuple, type_fn: TypeFn) -> str:
    """VhloTypes.cpp printTypeArray: ``()`` when empty, else the types comma-separated."""
    return "()" if not ts else ", ".join(type_fn(t) for t in ts)


def print_vhlo_type(
    t: VhloType, attr_fn: AttrFn | None = None, type_fn: TypeFn | None = None
) -> str:
    """``t`` as MLIR prints it (``!vhlo.tensor_v1<2x!vhlo.f32_v1>``)."""
    attr_fn, type_fn = _default_fns(attr_fn, type_fn)
    n, p = t.name, t.params
    head = f"!vhlo.{n}"
    if n in SIMPLE_TYPES:
        return head
    if n in ("tensor_v1", "buffer_v1"):
        body = "".join(_dim(d) + "x" for d in p[0]) + type_fn(p[1])
        if n == "tensor_v1" and p[2] is not None:
            body += ", " + attr_fn(p[2])
        return f"{head}<{body}>"
    if n in ("complex_v1", "unranked_tensor_v1"):
        return f"{head}<{type_fn(p[0])}>"
    if n in ("tuple_v1", "future_v1"):
        return f"{head}<{', '.join(type_fn(x) for x in p[0])}>"
    if n == "func_v1":
        return f"{head}<({_type_array(p[0], type_fn)}) -> {_type_array(p[1], type_fn)}>"
    if n == "quant_v1":
        flags, st, et, scale, zp, lo, hi = p
        return (
            f"{head}<{type_fn(st)}:{type_fn(et)}, {float_text(scale, 'f64')}:{zp}, "
            f"{lo}:{hi}, {flags}>"
        )
    if n == "quant_per_axis_v1":
        flags, st, et, axis, scales, zps, lo, hi = p
        sc = ", ".join(float_text(s, "f64") for s in scales)
        zs = ", ".join(str(z) for z in zps)
        return f"{head}<{type_fn(st)}:{type_fn(et)}, {axis}, [{sc}], [{zs}], {lo}:{hi}, {flags}>"
    raise ValueError(f"no syntax for VHLO type {t!r}")


def _struct_value(kind: str, v: Any, attr_fn: AttrFn) -> str:
    if kind == "dims":
        return _dims(v)
    if kind == "int":
        return str(v)
    if kind == "f64":
        return float_text(v, "f64")
    return attr_fn(v)


def _integer_body(a: VhloAttr, type_fn: TypeFn) -> str:
    """IntegerV1Attr::print: the builtin IntegerAttr of the converted type."""
    t, bits = a.params
    bt = to_builtin(t)
    if isinstance(bt, IntegerType) and bt.width == 1:
        return "true" if bits & 1 else "false"
    width = bt.width if isinstance(bt, IntegerType) else 64
    value = bits & ((1 << width) - 1)
    if not (isinstance(bt, IntegerType) and bt.is_unsigned) and value >> (width - 1):
        value -= 1 << width
    return f"{value} : {type_fn(bt)}"


def print_vhlo_attr(
    a: VhloAttr, attr_fn: AttrFn | None = None, type_fn: TypeFn | None = None
) -> str:
    """``a`` as MLIR prints it (``#vhlo.integer_v1<1 : i64>``, ``#vhlo<precision_v1 HIGH>``)."""
    attr_fn, type_fn = _default_fns(attr_fn, type_fn)
    n, p = a.name, a.params
    if n in ENUM_CASES:
        return f"#vhlo<{n} {p[0]}>"
    head = f"#vhlo.{n}"
    if n in STRUCT_ATTRS:
        parts = [
            f"{key} = {_struct_value(kind, v, attr_fn)}"
            for (key, kind), v in zip(STRUCT_ATTRS[n], p)
            if not (kind == "opt_attr" and v is None)
        ]
        return f"{head}<{', '.join(parts)}>"
    if n == "array_v1":
        return f"{head}<[{', '.join(attr_fn(x) for x in p[0])}]>"
    if n == "bool_v1":
        return f"{head}<{'true' if p[0] else 'false'}>"
    if n == "dict_v1":
        items = ", ".join(f"{attr_fn(k)} = {attr_fn(v)}" for k, v in p[0])
        return f"{head}<{{{items}}}>"
    if n == "float_v1":
        sem = FLOAT_TYPE_SEMANTICS.get(p[0].name) if isinstance(p[0], VhloType) else None
        if sem is None:
            raise ValueError(f"#vhlo.float_v1 of non-float type {p[0]!r}")
        return f"{head}<{float_text(p[1], sem)} : {type_fn(p[0])}>"
    if n == "integer_v1":
        return f"{head}<{_integer_body(a, type_fn)}>"
    if n == "string_v1":
        from ..printer import escape_string

        return f"{head}<{escape_string(p[0])}>"
    if n == "tensor_v1":
        return f"{head}<{attr_fn(dense_from_data(p[0], p[1]))}>"
    if n == "type_v1":
        return f"{head}<{type_fn(p[0])}>"
    raise ValueError(f"no syntax for VHLO attribute {a!r}")


# ---- parsing ----------------------------------------------------------------------------

_DIM_LIST = re.compile(r"((?:(?:[0-9]+|\?)x)*)")
_INT = re.compile(r"[-+]?[0-9]+(?![0-9.eE])")
_FLOAT_LIT = re.compile(
    r"[-+]?(?:0x[0-9A-Fa-f]+|[0-9]+(?:\.[0-9]*)?(?:[eE][-+]?[0-9]+)?"
    r"|inf|nan)"
)
_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def _int(p: Parser) -> int:
    m = p.c.expect_match(_INT, "an integer")
    return int(m.group(0))


def _float_bits(p: Parser, name: str) -> int:
    c = p.c
    start = c.skip()
    m = c.expect_match(_FLOAT_LIT, "a floating point value")
    try:
        return float_bits_from_literal(m.group(0), name)
    except (LiteralError, ValueError, OverflowError) as e:
        raise c.error(str(e), start) from None


def _dims_list(p: Parser) -> tuple[int, ...]:
    """``[1, ?, 3]`` (AssemblyFormat.cpp parseDimSizes)."""
    c = p.c
    c.expect("[")
    out: list[int] = []
    if c.accept("]"):
        return ()
    while True:
        out.append(DYNAMIC if c.accept("?") else _int(p))
        if c.accept("]"):
            return tuple(out)
        c.expect(",", "or ']' in dimension list")


def _shape_prefix(p: Parser) -> tuple[int, ...]:
    """``2x?x`` before an element type (parseDimensionList with a trailing ``x``)."""
    c = p.c
    c.skip()
    m = _DIM_LIST.match(c.text, c.pos)
    assert m is not None  # the pattern matches the empty string
    c.pos = m.end()
    return tuple(DYNAMIC if d == "?" else int(d) for d in m.group(1).split("x")[:-1])


def _types_until(p: Parser, close: str) -> tuple[Type, ...]:
    """Comma-separated types up to (not consuming) ``close``; none when it comes first."""
    c = p.c
    out: list[Type] = []
    if c.startswith(close):
        return ()
    while True:
        out.append(p.parse_type())
        if not c.accept(","):
            return tuple(out)


def _type_array_parse(p: Parser, close: str) -> tuple[Type, ...]:
    """VhloTypes.cpp parseTypeArray: ``()`` or a non-empty comma-separated list."""
    c = p.c
    save = c.pos
    if c.accept("(") and c.accept(")"):
        return ()
    c.pos = save
    return _types_until(p, close)


def _quant_params(p: Parser, per_axis: bool) -> tuple:
    c = p.c
    st = p.parse_type()
    c.expect(":")
    et = p.parse_type()
    c.expect(",")
    if per_axis:
        axis = _int(p)
        c.expect(",")
        c.expect("[")
        scales: list[int] = []
        if not c.accept("]"):
            while True:
                scales.append(_float_bits(p, "f64"))
                if c.accept("]"):
                    break
                c.expect(",")
        c.expect(",")
        zps = _dims_list(p)
    else:
        scale = _float_bits(p, "f64")
        c.expect(":")
        zp = _int(p)
    c.expect(",")
    lo = _int(p)
    c.expect(":")
    hi = _int(p)
    c.expect(",")
    flags = _int(p)
    c.expect(">")
    if per_axis:
        return (flags, st, et, axis, tuple(scales), zps, lo, hi)
    return (flags, st, et, scale, zp, lo, hi)


def parse_vhlo_type(p: Parser, mnemonic: str, start: int) -> VhloType:
    """After ``!vhlo.<mnemonic>``: its parameters, if any (VhloTypes.td formats)."""
    c = p.c
    if mnemonic in SIMPLE_TYPES:
        return VhloType(mnemonic)
    if mnemonic not in _PARAM_TYPES:
        raise c.error(f"unknown vhlo type: {mnemonic}", start)
    c.expect("<", f"after !vhlo.{mnemonic}")
    p.enter()
    try:
        return VhloType(mnemonic, _PARAM_TYPES[mnemonic](p))
    finally:
        p.leave()


def _tensor_params(p: Parser) -> tuple:
    shape = _shape_prefix(p)
    elem = p.parse_type()
    enc = p.parse_attribute() if p.c.accept(",") else None
    p.c.expect(">", "at the end of !vhlo.tensor_v1")
    return (shape, elem, enc)


def _buffer_params(p: Parser) -> tuple:
    shape = _shape_prefix(p)
    elem = p.parse_type()
    p.c.expect(">", "at the end of !vhlo.buffer_v1")
    return (shape, elem)


def _one_type(p: Parser) -> tuple:
    t = p.parse_type()
    p.c.expect(">")
    return (t,)


def _type_list(p: Parser) -> tuple:
    ts = _types_until(p, ">")
    p.c.expect(">")
    return (ts,)


def _func_params(p: Parser) -> tuple:
    c = p.c
    c.expect("(", "in !vhlo.func_v1")
    ins = _type_array_parse(p, ")")
    c.expect(")", "after the inputs of !vhlo.func_v1")
    c.expect("->", "in !vhlo.func_v1")
    outs = _type_array_parse(p, ">")
    c.expect(">", "at the end of !vhlo.func_v1")
    return (ins, outs)


_PARAM_TYPES: dict[str, Callable[[Parser], tuple]] = {
    "tensor_v1": _tensor_params,
    "buffer_v1": _buffer_params,
    "complex_v1": _one_type,
    "unranked_tensor_v1": _one_type,
    "tuple_v1": _type_list,
    "future_v1": _type_list,
    "func_v1": _func_params,
    "quant_v1": lambda p: _quant_params(p, False),
    "quant_per_axis_v1": lambda p: _quant_params(p, True),
}


def _struct_params(p: Parser, mnemonic: str) -> tuple:
    c = p.c
    spec = STRUCT_ATTRS[mnemonic]
    kinds = dict(spec)
    vals: dict[str, Any] = {}
    if not c.accept(">"):
        while True:
            kpos = c.skip()
            m = c.expect_match(_KEY, "a parameter name")
            key = m.group(0)
            if key not in kinds:
                raise c.error(f"#vhlo.{mnemonic} has no parameter '{key}'", kpos)
            if key in vals:
                raise c.error(f"duplicated `{key}` entry", kpos)
            c.expect("=", f"after '{key}'")
            kind = kinds[key]
            if kind == "dims":
                vals[key] = _dims_list(p)
            elif kind == "int":
                vals[key] = _int(p)
            elif kind == "f64":
                vals[key] = _float_bits(p, "f64")
            else:
                vals[key] = p.parse_attribute()
            if c.accept(">"):
                break
            c.expect(",", "or '>'")
    missing = [k for k, kind in spec if kind != "opt_attr" and k not in vals]
    if missing:
        raise c.error(f"#vhlo.{mnemonic} is missing parameter '{missing[0]}'")
    return tuple(vals.get(k) for k, _ in spec)


def _integer_params(p: Parser, start: int) -> tuple:
    a = p.parse_attribute()
    if isinstance(a, BoolAttr):
        return (VhloType("bool_v1"), int(a.value))
    if not isinstance(a, IntegerAttr) or not isinstance(a.type, (IntegerType, IndexType)):
        raise p.c.error("#vhlo.integer_v1 needs a typed integer attribute", start)
    width = a.type.width if isinstance(a.type, IntegerType) else 64
    try:
        vt = to_vhlo(a.type)
    except ValueError as e:
        raise p.c.error(f"#vhlo.integer_v1: {e}", start) from None
    return (vt, a.value & ((1 << width) - 1))


def _tensor_attr_params(p: Parser, start: int) -> tuple:
    a = p.parse_attribute()
    if not isinstance(a, DenseElementsAttr):
        raise p.c.error("#vhlo.tensor_v1 needs a dense elements attribute", start)
    t = a.type
    try:
        vt = to_vhlo(TensorType(t.shape, t.element_type, t.encoding))
    except (ValueError, KeyError) as e:
        raise p.c.error(f"#vhlo.tensor_v1: {e}", start) from None
    return (vt, data_from_dense(a))


def _attr_body(p: Parser, mnemonic: str, start: int) -> tuple:
    c = p.c
    if mnemonic in STRUCT_ATTRS:
        return _struct_params(p, mnemonic)
    if mnemonic == "array_v1":
        a = p.parse_attribute()
        from ..ir import ArrayAttr

        if not isinstance(a, ArrayAttr):
            raise c.error("#vhlo.array_v1 needs [...]", start)
        out: tuple = (a.elements,)
    elif mnemonic == "bool_v1":
        w = c.keyword()
        if w not in ("true", "false"):
            raise c.error("expected true or false in #vhlo.bool_v1")
        out = (w == "true",)
    elif mnemonic == "dict_v1":
        out = (_dict_entries(p),)
    elif mnemonic == "float_v1":
        lit_pos = c.skip()
        m = c.expect_match(_FLOAT_LIT, "a floating point value")
        c.expect(":", "in #vhlo.float_v1")
        t = p.parse_type()
        sem = FLOAT_TYPE_SEMANTICS.get(t.name) if isinstance(t, VhloType) else None
        if sem is None:
            raise c.error("#vhlo.float_v1 needs a VHLO float type", start)
        try:
            out = (t, float_bits_from_literal(m.group(0), sem))
        except (LiteralError, ValueError, OverflowError) as e:
            raise c.error(str(e), lit_pos) from None
    elif mnemonic == "integer_v1":
        out = _integer_params(p, start)
    elif mnemonic == "string_v1":
        s = c.string()
        if s is None:
            raise c.error("expected a string in #vhlo.string_v1")
        out = (s,)
    elif mnemonic == "tensor_v1":
        out = _tensor_attr_params(p, start)
    elif mnemonic == "type_v1":
        out = (p.parse_type(),)
    else:
        raise c.error(f"unknown vhlo attribute: {mnemonic}", start)
    c.expect(">", f"at the end of #vhlo.{mnemonic}")
    return out


def _dict_entries(p: Parser) -> tuple:
    c = p.c
    c.expect("{", "in #vhlo.dict_v1")
    entries: list[tuple[Attribute, Attribute]] = []
    if c.accept("}"):
        return ()
    while True:
        k = p.parse_attribute()
        c.expect("=", "in #vhlo.dict_v1 entry")
        entries.append((k, p.parse_attribute()))
        if c.accept("}"):
            return tuple(entries)
        c.expect(",", "or '}' in #vhlo.dict_v1")


def parse_vhlo_attr(p: Parser, name: str, start: int) -> VhloAttr:
    """After ``#vhlo.<mnemonic>`` (its ``<...>`` body follows) or ``#vhlo``: then
    ``<mnemonic CASE>`` for an enum (EnumAttr's ``$value`` format), or MLIR's opaque
    spelling ``<mnemonic<...>>`` of any other kind."""
    c = p.c
    c.expect("<", f"after {name}")
    p.enter()
    try:
        if name != "#vhlo":
            mnemonic = name[len("#vhlo.") :]
            if mnemonic in ENUM_CASES:  # the generated parser wants `#vhlo<mnemonic CASE>`
                raise c.error(f"expected #vhlo<{mnemonic} CASE> for a vhlo enum", start)
            return VhloAttr(mnemonic, _attr_body(p, mnemonic, start))
        kpos = c.skip()
        mnemonic = c.keyword() or ""
        if mnemonic not in ENUM_CASES:
            if mnemonic and c.text.startswith("<", c.pos):
                c.pos += 1
                a = VhloAttr(mnemonic, _attr_body(p, mnemonic, kpos))
                c.expect(">", f"after #vhlo<{mnemonic}<...>")
                return a
            raise c.error(f"unknown vhlo attribute: {mnemonic}", kpos)
        case = c.keyword() or ""
        c.expect(">", f"after #vhlo<{mnemonic} ...")
        if case not in ENUM_CASES[mnemonic]:
            raise c.error(f"invalid {mnemonic} case '{case}'", kpos)
        return VhloAttr(mnemonic, (case,))
    finally:
        p.leave()


# ---- whole-text helpers -------------------------------------------------------------------


def parse_vhlo_type_text(text: str) -> Type:
    """Parse one type (``!vhlo.tensor_v1<...>``) from ``text``."""
    from ..grammar import Parser

    p = Parser(text)
    t = p.parse_type()
    if not p.c.at_end():
        raise p.c.error(f"unexpected {p.c.describe()} after the type")
    return t


def parse_vhlo_attr_text(text: str) -> Attribute:
    """Parse one attribute (``#vhlo.integer_v1<1 : i64>``) from ``text``."""
    from ..grammar import Parser

    p = Parser(text)
    a = p.parse_attribute()
    if not p.c.at_end():
        raise p.c.error(f"unexpected {p.c.describe()} after the attribute")
    return a


__all__ = [
    "ParseError",
    "SCALAR_TO_BUILTIN",
    "f64_bits",
    "f64_from_bits",
    "parse_vhlo_attr",
    "parse_vhlo_attr_text",
    "parse_vhlo_type",
    "parse_vhlo_type_text",
    "print_vhlo_attr",
    "print_vhlo_type",
]
