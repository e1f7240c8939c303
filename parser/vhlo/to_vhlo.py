"""StableHLO -> VHLO (``stablehlo-opt --stablehlo-legalize-to-vhlo``).

Follows stablehlo/transforms/StablehloLegalizeToVhlo.cpp: each StableHLO / func op
becomes the newest version of its VHLO op (MapStablehloToVhlo.h); its attributes go
through ``convertGeneric`` except for the op-specific "special" ones (dimension
numbers, channel handles, ...), and attributes StableHLO leaves implicit get their
default materialized (``addDefaults``).  Types go through VhloTypes.cpp
``addBuiltinToVhloConversions``.  A failure is MLIR's "failed to legalize operation"
on the op (or func) that could not be converted.
"""

from __future__ import annotations

import re

from ..ir import (
    ArrayAttr,
    Attribute,
    BoolAttr,
    ChannelHandle,
    ComplexType,
    ConvDimensionNumbers,
    DenseArrayAttr,
    DenseElementsAttr,
    DialectAttr,
    DictionaryAttr,
    DotAlgorithm,
    DotDimensionNumbers,
    EnumAttr,
    FloatAttr,
    FloatType,
    FunctionType,
    GatherDimensionNumbers,
    IndexType,
    IntegerAttr,
    IntegerType,
    NoneType,
    OpaqueAttr,
    OpaqueType,
    OutputOperandAlias,
    QuantizedType,
    ResultAccuracy,
    ScatterDimensionNumbers,
    StringAttr,
    SymbolRefAttr,
    TensorType,
    TokenType,
    TupleType,
    Type,
    TypeAttr,
    TypeExtensions,
)
from . import table
from .builtin_view import data_from_dense
from .common import (
    FLOAT_TO_VHLO,
    INT_WIDTHS,
    K_DYNAMIC,
    float_bits,
    int_bits,
    varray,
    vbool,
    vstring,
    vtensor_bool,
    vtensor_i64,
)
from .ir import VhloAttr, VhloType

__all__ = ["to_vhlo_attr", "to_vhlo_type"]


class _Fail(Exception):
    """Internal: this attribute / type has no VHLO form; ``what`` names it, when it is
    one the user wrote (an attribute or type of another dialect)."""

    def __init__(self, what: str = "") -> None:
        super().__init__(what)
        self.what = what


AllowOther = bool | frozenset[str]
"""Which other dialects' ops, attributes and types stay as they are among the VHLO ops
(``--allow-other-dialects``): every one (True), none (False), or those named."""

KEEP_SDY: frozenset[str] = frozenset({"sdy"})
"""What jax keeps when it serializes with Shardy: the ``sdy`` dialect's ops and
attributes stay in the module next to the VHLO ops (jax/_src/export/_export.py
``_module_to_bytecode`` passes ``serialize_with_sdy`` to ``serialize_portable_artifact``,
which then serializes with other dialects allowed)."""


def allows(allow_other: AllowOther, dialect: str | None) -> bool:
    """Whether ``allow_other`` keeps ops / attributes / types of ``dialect``."""
    if dialect in ("stablehlo", "vhlo"):
        return False
    if isinstance(allow_other, frozenset):
        return dialect in allow_other
    return bool(allow_other)


def attribute_dialect(a: Attribute) -> str | None:
    """The dialect an attribute belongs to (None for builtin ones)."""
    if isinstance(a, EnumAttr | DialectAttr):
        return a.dialect
    if isinstance(a, OpaqueAttr):
        m = re.match(r"#([A-Za-z_][\w$]*)", a.text)
        return m.group(1) if m else None
    dialect = getattr(type(a), "dialect", None)  # a plug-in's classes name it (sdy)
    return dialect if isinstance(dialect, str) else None


# ---- types ---------------------------------------------------------------------------

_MEMREF = re.compile(r"memref<((?:(?:\d+|\?)x)*)([a-zA-Z0-9]+)>\Z")


def to_vhlo_type(t: Type, allow_other: AllowOther = False) -> Type:
    """VhloTypeConverter: builtin / StableHLO type -> VHLO type (``_Fail`` if none)."""
    if isinstance(t, VhloType):
        return t
    if isinstance(t, TensorType):
        elem = to_vhlo_type(t.element_type, allow_other)
        if t.shape is None:
            return VhloType("unranked_tensor_v1", (elem,))
        shape = tuple(K_DYNAMIC if d is None else d for d in t.shape)
        enc = None
        if t.encoding is not None:
            if isinstance(t.encoding, TypeExtensions):
                bounds = tuple(K_DYNAMIC if b is None else b for b in t.encoding.bounds)
                enc = VhloAttr("type_extensions_v1", (bounds,))
            elif isinstance(t.encoding, VhloAttr):
                enc = t.encoding
            else:
                raise _Fail
        return VhloType("tensor_v1", (shape, elem, enc))
    if isinstance(t, FloatType):
        if t.name in FLOAT_TO_VHLO:
            return VhloType(FLOAT_TO_VHLO[t.name])
        raise _Fail
    if isinstance(t, IntegerType):
        if t.signedness == "signed" or t.width not in INT_WIDTHS + (1,):
            raise _Fail
        if t.width == 1:
            if t.signedness != "signless":
                raise _Fail
            return VhloType("bool_v1")
        prefix = "ui" if t.is_unsigned else "i"
        return VhloType(f"{prefix}{t.width}_v1")
    if isinstance(t, IndexType):
        return VhloType("index_v1")
    if isinstance(t, NoneType):
        return VhloType("none_v1")
    if isinstance(t, ComplexType):
        return VhloType("complex_v1", (to_vhlo_type(t.element_type, allow_other),))
    if isinstance(t, TokenType):
        return VhloType("token_v1")
    if isinstance(t, TupleType):
        return VhloType("tuple_v1", (tuple(to_vhlo_type(e, allow_other) for e in t.types),))
    if isinstance(t, FunctionType):
        ins = tuple(to_vhlo_type(e, allow_other) for e in t.inputs)
        outs = tuple(to_vhlo_type(e, allow_other) for e in t.results)
        return VhloType("func_v1", (ins, outs))
    if isinstance(t, QuantizedType):
        return _quant(t, allow_other)
    if isinstance(t, OpaqueType):
        return _opaque_type(t, allow_other)
    raise _Fail


def _quant(t: QuantizedType, allow_other: AllowOther) -> VhloType:
    st = t.storage_type
    if not isinstance(st, IntegerType):
        raise _Fail
    signed = not st.is_unsigned
    storage = to_vhlo_type(IntegerType(st.width), allow_other) if signed else to_vhlo_type(st)
    lo = t.storage_min if t.storage_min is not None else (-(1 << (st.width - 1)) if signed else 0)
    hi = (
        t.storage_max
        if t.storage_max is not None
        else ((1 << (st.width - 1)) - 1 if signed else (1 << st.width) - 1)
    )
    expressed = to_vhlo_type(t.expressed_type, allow_other)
    flags = 1 if signed else 0
    if t.quantized_dimension is None:
        return VhloType(
            "quant_v1",
            (flags, storage, expressed, float_bits(t.scales[0], "f64"), t.zero_points[0], lo, hi),
        )
    return VhloType(
        "quant_per_axis_v1",
        (
            flags,
            storage,
            expressed,
            t.quantized_dimension,
            tuple(float_bits(s, "f64") for s in t.scales),
            tuple(t.zero_points),
            lo,
            hi,
        ),
    )


def _opaque_type(t: OpaqueType, allow_other: AllowOther) -> Type:
    m = _MEMREF.match(t.text)
    if m:
        dims = tuple(K_DYNAMIC if d == "?" else int(d) for d in m.group(1).split("x") if d)
        elem = _element_from_text(m.group(2))
        return VhloType("buffer_v1", (dims, to_vhlo_type(elem, allow_other)))
    if t.text.startswith("!stablehlo.future<") and t.text.endswith(">"):
        inner = _parse_types(t.text[len("!stablehlo.future<") : -1])
        return VhloType("future_v1", (tuple(to_vhlo_type(e, allow_other) for e in inner),))
    if t.text == "!shape.witness":
        return VhloType("witness_v1")
    m = re.match(r"!([A-Za-z_][\w$]*)", t.text)
    dialect = m.group(1) if m else None
    if allows(allow_other, dialect):
        return t
    raise _Fail(f"type '{t.text}'" + (f" (dialect '{dialect}')" if dialect else ""))


def _parse_types(text: str) -> tuple[Type, ...]:
    """A comma-separated list of types (the inside of an opaque dialect type)."""
    from ..grammar import Parser

    p = Parser(text, "<type>", 0)
    out = [p.parse_type()]
    while p.c.accept(","):
        out.append(p.parse_type())
    p.c.skip()
    if p.c.pos != len(text):
        raise _Fail
    return tuple(out)


def _element_from_text(s: str) -> Type:
    if s in FLOAT_TO_VHLO:
        return FloatType(s)
    m = re.fullmatch(r"(si|ui|i)(\d+)", s)
    if m:
        sign = {"si": "signed", "ui": "unsigned", "i": "signless"}[m.group(1)]
        return IntegerType(int(m.group(2)), sign)
    if s == "index":
        return IndexType()
    raise _Fail


# ---- attributes: the generic path (convertGeneric) ----------------------------------

# StableHLO enum kind -> VHLO enum mnemonic (RETURN_CONVERTED_ENUM_ATTR uses).
_ENUMS = {
    "comparison_direction": "comparison_direction_v1",
    "comparison_type": "comparison_type_v1",
    "fft_type": "fft_type_v1",
    "precision": "precision_v1",
    "rng_algorithm": "rng_algorithm_v1",
    "rng_distribution": "rng_distribution_v1",
    "transpose": "transpose_v1",
    "result_accuracy_mode": "result_accuracy_mode_v1",
}


def to_vhlo_attr(a: Attribute, allow_other: AllowOther = False) -> Attribute:
    """convertGeneric: builtin / StableHLO attribute -> VHLO attribute (``_Fail``)."""
    if isinstance(a, VhloAttr):
        return a
    if isinstance(a, EnumAttr):
        if a.dialect != "stablehlo":
            return _unknown(a, allow_other)
        if a.kind not in _ENUMS:
            raise _Fail
        mnemonic = _ENUMS[a.kind]
        if a.value not in table.enum_cases(mnemonic):
            raise _Fail
        return VhloAttr(mnemonic, (a.value,))
    if isinstance(a, OutputOperandAlias):
        return VhloAttr(
            "output_operand_alias_v1",
            (tuple(a.output_tuple_indices), a.operand_index, tuple(a.operand_tuple_indices)),
        )
    if isinstance(a, ResultAccuracy):
        mode = a.mode or EnumAttr("stablehlo", "result_accuracy_mode", "DEFAULT", False)
        return VhloAttr(
            "result_accuracy_v1",
            (
                float_bits(a.atol, "f64"),
                float_bits(a.rtol, "f64"),
                int(a.ulps),
                to_vhlo_attr(mode, allow_other),
            ),
        )
    if isinstance(a, DialectAttr) and a.dialect == "stablehlo":
        return _dialect_attr(a, allow_other)
    if isinstance(a, OpaqueAttr) and a.text.startswith("#stablehlo.axis_ref<"):
        m = _AXIS_REF.match(a.text)
        if m is None:
            raise _Fail
        sub = None
        if m.group(2) is not None:
            sub = VhloAttr("sub_axis_info_v1", (int(m.group(2)), int(m.group(3))))
        return VhloAttr("axis_ref_v1", (vstring(m.group(1)), sub))
    if isinstance(a, ArrayAttr):
        return varray(to_vhlo_attr(e, allow_other) for e in a.elements)
    if isinstance(a, DenseElementsAttr):
        return VhloAttr("tensor_v1", (to_vhlo_type(a.type, allow_other), data_from_dense(a)))
    if isinstance(a, DenseArrayAttr):
        et = a.element_type
        if isinstance(et, IntegerType) and et.width == 64 and et.signedness == "signless":
            return vtensor_i64(a.values)
        if isinstance(et, IntegerType) and et.is_bool:
            return vtensor_bool(a.values)
        return _unknown(a, allow_other)
    if isinstance(a, DictionaryAttr):
        return VhloAttr(
            "dict_v1",
            (
                tuple(
                    (vstring(k), to_vhlo_attr(v, allow_other))
                    for k, v in sorted(a.entries, key=_key)
                ),
            ),
        )
    if isinstance(a, FloatAttr):
        t = a.type or FloatType("f64")
        if not isinstance(t, FloatType):
            raise _Fail
        return VhloAttr("float_v1", (to_vhlo_type(t), float_bits(a.value, t.name)))
    if isinstance(a, BoolAttr):
        return vbool(a.value)
    if isinstance(a, IntegerAttr):
        t = a.type or IntegerType(64)
        if isinstance(t, IntegerType) and t.is_bool:
            return vbool(bool(a.value))
        width = 64 if isinstance(t, IndexType) else getattr(t, "width", None)
        if width is None:
            raise _Fail
        return VhloAttr("integer_v1", (to_vhlo_type(t, allow_other), int_bits(a.value, width)))
    if isinstance(a, SymbolRefAttr):
        if a.nested:
            return _unknown(a, allow_other)
        return vstring(a.root)
    if isinstance(a, StringAttr):
        return vstring(a.value)
    if isinstance(a, TypeAttr):
        return VhloAttr("type_v1", (to_vhlo_type(a.type, allow_other),))
    return _unknown(a, allow_other)


def _key(kv: tuple[str, Attribute]) -> str:
    """DictionaryAttr entries are sorted by name in MLIR."""
    return kv[0]


def _unknown(a: Attribute, allow_other: AllowOther) -> Attribute:
    """convertUnknownAttribute: kept as is only with allow-other-dialects (and never a
    StableHLO attribute: those all have VHLO counterparts)."""
    dialect = attribute_dialect(a)
    if not _is_stablehlo_attr(a) and allows(allow_other, dialect):
        return a
    if dialect is None or dialect == "stablehlo":
        raise _Fail
    raise _Fail(f"{_short(a)} (dialect '{dialect}')")


def _short(a: Attribute) -> str:
    text = str(a)
    return text if len(text) <= 60 else text[:57] + "..."


def _is_stablehlo_attr(a: Attribute) -> bool:
    if isinstance(a, (EnumAttr, DialectAttr)):
        return a.dialect == "stablehlo"
    if isinstance(a, OpaqueAttr):
        return a.text.startswith("#stablehlo")
    return type(a).__module__.endswith("ir") and isinstance(
        a,
        (
            GatherDimensionNumbers,
            ScatterDimensionNumbers,
            DotDimensionNumbers,
            ConvDimensionNumbers,
            ChannelHandle,
            DotAlgorithm,
            TypeExtensions,
        ),
    )


_AXIS_REF = re.compile(
    r'#stablehlo\.axis_ref<\s*name\s*=\s*"([^"]*)"\s*'
    r"(?:,\s*sub_axis_info\s*=\s*\(\s*(\d+)\s*\)\s*(\d+)\s*)?>\Z"
)
_SUB_AXIS = re.compile(r"\((\d+)\)(\d+)\Z")


def _dialect_attr(a: DialectAttr, allow_other: AllowOther) -> VhloAttr:
    """sharding-related StableHLO attributes (SubAxisInfo, AxisRef, MeshAxis, Mesh,
    ReplicaGroupMeshAxes)."""
    p = dict(a.params)
    if a.name == "sub_axis_info":
        return VhloAttr("sub_axis_info_v1", (_int(p.get("pre_size")), _int(p.get("size"))))
    if a.name == "axis_ref":
        name = _name(p.get("name"))
        sub = p.get("sub_axis_info")
        sub_v = None
        if sub is not None:
            sub_v = _sub_axis(sub, allow_other)
        return VhloAttr("axis_ref_v1", (vstring(name), sub_v))
    if a.name == "mesh_axis":
        return VhloAttr("mesh_axis_v1", (vstring(_name(p.get("name"))), _int(p.get("size"))))
    if a.name == "mesh":
        axes = p.get("axes")
        items = axes.elements if isinstance(axes, ArrayAttr) else ()
        dev = p.get("device_ids")
        return VhloAttr(
            "mesh_v1",
            (
                varray(to_vhlo_attr(x, allow_other) for x in items),
                None if dev is None else to_vhlo_attr(dev, allow_other),
            ),
        )
    if a.name == "replica_group_mesh_axes":
        mesh = p.get("mesh")
        if mesh is None:
            raise _Fail
        mesh_v = (
            vstring(mesh.root)
            if isinstance(mesh, SymbolRefAttr)
            else to_vhlo_attr(mesh, allow_other)
        )
        axes = p.get("axes")
        items = axes.elements if isinstance(axes, ArrayAttr) else ()
        return VhloAttr(
            "replica_group_mesh_axes_v1",
            (mesh_v, varray(to_vhlo_attr(x, allow_other) for x in items)),
        )
    raise _Fail


def _sub_axis(a: Attribute, allow_other: AllowOther) -> Attribute:
    if isinstance(a, OpaqueAttr):
        m = _SUB_AXIS.match(a.text.replace(" ", ""))
        if m:
            return VhloAttr("sub_axis_info_v1", (int(m.group(1)), int(m.group(2))))
        raise _Fail
    return to_vhlo_attr(a, allow_other)


def _int(a: Attribute | None) -> int:
    if isinstance(a, IntegerAttr):
        return a.value
    raise _Fail


def _name(a: Attribute | None) -> str:
    if isinstance(a, StringAttr):
        return a.value
    if isinstance(a, SymbolRefAttr):
        return a.root
    raise _Fail
