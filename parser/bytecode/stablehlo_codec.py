"""The stablehlo and chlo dialects' bytecode encodings.

Codes and field orders: openxla/stablehlo ``stablehlo/dialect/StablehloBytecode.cpp``
(``stablehlo_encoding::AttributeCode`` / ``TypeCode``, the read/write methods and
``readVersion`` / ``writeVersion``) and ``ChloBytecode.cpp``; enum case values:
``StablehloEnums.td`` / ``ChloEnums.td``.

Values are parser/ir.py's StableHLO classes, equal to what the text parser builds from
MLIR's printed form of the same attribute (EnumAttr short / long spelling included).
The sharding attributes hlorun does not model get the text parser's representation of
their printed form (DialectAttr, or OpaqueAttr for an axis_ref with a sub-axis).
"""

from __future__ import annotations

import re
from typing import Any

from ..float_literals import f64_bits, f64_from_bits
from ..ir import (
    ArrayAttr,
    Attribute,
    ChannelHandle,
    ConvDimensionNumbers,
    DialectAttr,
    DotAlgorithm,
    DotDimensionNumbers,
    EnumAttr,
    GatherDimensionNumbers,
    IntegerAttr,
    OpaqueAttr,
    OpaqueType,
    OutputOperandAlias,
    ResultAccuracy,
    ScatterDimensionNumbers,
    StringAttr,
    TokenType,
    Type,
    TypeExtensions,
)
from .dialect_api import DialectCodec, DialectReader, DialectWriter, register_codec

DYNAMIC = -(2**63)  # ShapedType::kDynamic, a bound-less dimension in TypeExtensions

# Enum cases by value (StablehloEnums.td; chlo's two enums are the same in ChloEnums.td).
ENUMS: dict[str, tuple[str, ...] | dict[int, str]] = {
    "comparison_direction": ("EQ", "NE", "GE", "GT", "LE", "LT"),
    "comparison_type": ("NOTYPE", "FLOAT", "TOTALORDER", "SIGNED", "UNSIGNED"),
    "fft_type": ("FFT", "IFFT", "RFFT", "IRFFT"),
    "precision": ("DEFAULT", "HIGH", "HIGHEST"),
    "rng_algorithm": ("DEFAULT", "THREE_FRY", "PHILOX"),
    "rng_distribution": {1: "UNIFORM", 2: "NORMAL"},
    "transpose": ("TRANSPOSE_INVALID", "NO_TRANSPOSE", "TRANSPOSE", "ADJOINT"),
    "result_accuracy_mode": ("DEFAULT", "HIGHEST", "TOLERANCE"),
}
# Enums whose assembly format is `#stablehlo.kind<CASE>` rather than `#stablehlo<kind CASE>`.
LONG_FORM_ENUMS = frozenset({"result_accuracy_mode"})

# stablehlo_encoding::AttributeCode (code 0, ArgResultAliasAttr, is retired).
ATTR_CODES: dict[int, str] = {
    1: "channel_handle",
    2: "comparison_direction",
    3: "comparison_type",
    4: "conv",
    5: "dot",
    6: "fft_type",
    7: "gather",
    8: "precision",
    9: "rng_algorithm",
    10: "rng_distribution",
    11: "scatter",
    12: "transpose",
    13: "type_extensions",
    14: "output_operand_alias",
    15: "dot_algorithm",
    16: "result_accuracy_mode",
    17: "result_accuracy",
    18: "replica_group_mesh_axes",
    19: "sub_axis_info",
    20: "axis_ref",
    21: "mesh_axis",
    22: "mesh",
}
ATTR_CODE = {v: k for k, v in ATTR_CODES.items()}
# stablehlo_encoding::TypeCode.
TYPE_TOKEN, TYPE_FUTURE = 0, 1
# chlo_encoding::AttributeCode.
CHLO_ATTR_CODES: dict[int, str] = {0: "comparison_direction", 1: "comparison_type"}
CHLO_ATTR_CODE = {v: k for k, v in CHLO_ATTR_CODES.items()}


def _enum_cases(kind: str) -> dict[int, str]:
    cases = ENUMS[kind]
    return dict(cases) if isinstance(cases, dict) else dict(enumerate(cases))


ENUM_CASES = {k: _enum_cases(k) for k in ENUMS}
ENUM_VALUES = {k: {c: v for v, c in cases.items()} for k, cases in ENUM_CASES.items()}


def read_enum(r: DialectReader, dialect: str, kind: str) -> EnumAttr:
    """hlo::bytecode::readEnumAttribute (Base.h): the case's value as a varint."""
    value = r.read_varint()
    case = ENUM_CASES[kind].get(value)
    if case is None:
        raise r.error(f"{dialect} {kind}: unknown enum value {value}")
    return EnumAttr(dialect, kind, case, kind not in LONG_FORM_ENUMS)


def _bits(x: float) -> int:
    return f64_bits(float(x))


def _ints(r: DialectReader) -> tuple[int, ...]:
    return r.read_list(r.read_signed_varint)


# ---- reading ----------------------------------------------------------------------------


def _read_conv(r: DialectReader) -> ConvDimensionNumbers:
    from ..printer_core import conv_dimensions

    s = r.read_signed_varint
    vals = (s(), s(), _ints(r), s(), s(), _ints(r), s(), s(), _ints(r))
    cd = ConvDimensionNumbers(*vals)
    # MLIR prints the compact form whenever it can express the numbers
    return cd if conv_dimensions(cd) is not None else ConvDimensionNumbers(*vals, raw=True)


def _read_sharding(r: DialectReader, kind: str) -> Attribute:
    if kind == "replica_group_mesh_axes":
        mesh = r.read_attribute()
        axes = r.read_list(r.read_attribute)
        return DialectAttr("stablehlo", kind, (("mesh", mesh), ("axes", ArrayAttr(axes))))
    if kind == "sub_axis_info":
        pre, size = r.read_signed_varint(), r.read_signed_varint()
        return DialectAttr(
            "stablehlo", kind, (("pre_size", IntegerAttr(pre)), ("size", IntegerAttr(size)))
        )
    if kind == "axis_ref":
        name = r.read_string()
        if not r.read_bool():
            return DialectAttr("stablehlo", kind, (("name", StringAttr(name)),))
        sub = r.read_attribute()
        if not (isinstance(sub, DialectAttr) and sub.name == "sub_axis_info"):
            raise r.error("stablehlo axis_ref: sub_axis_info is not a SubAxisInfoAttr")
        from ..printer import escape_string

        pre, size = sub.get("pre_size").value, sub.get("size").value
        return OpaqueAttr(
            f"#stablehlo.axis_ref<name = {escape_string(name)}, sub_axis_info = ({pre}){size}>"
        )
    if kind == "mesh_axis":
        name, size = r.read_string(), r.read_signed_varint()
        return DialectAttr(
            "stablehlo", kind, (("name", StringAttr(name)), ("size", IntegerAttr(size)))
        )
    # mesh
    mesh_axes = r.read_attribute()
    params: list[tuple[str, Attribute]] = [("axes", mesh_axes)]
    if r.read_bool():
        params.append(("device_ids", r.read_attribute()))
    return DialectAttr("stablehlo", kind, tuple(params))


def read_stablehlo_attr(r: DialectReader, kind: str) -> Attribute:
    """One stablehlo attribute of kind ``kind`` (after its code)."""
    s = r.read_signed_varint
    if kind in ENUMS:
        return read_enum(r, "stablehlo", kind)
    if kind == "channel_handle":
        return ChannelHandle(s(), s())
    if kind == "conv":
        return _read_conv(r)
    if kind == "dot":
        return DotDimensionNumbers(_ints(r), _ints(r), _ints(r), _ints(r))
    if kind == "gather":
        return GatherDimensionNumbers(_ints(r), _ints(r), _ints(r), _ints(r), _ints(r), s())
    if kind == "scatter":
        return ScatterDimensionNumbers(_ints(r), _ints(r), _ints(r), _ints(r), _ints(r), s())
    if kind == "type_extensions":
        return TypeExtensions(tuple(None if b == DYNAMIC else b for b in _ints(r)))
    if kind == "output_operand_alias":
        return OutputOperandAlias(_ints(r), s(), _ints(r))
    if kind == "dot_algorithm":
        types = (r.read_type(), r.read_type(), r.read_type())
        return DotAlgorithm(*types, s(), s(), s(), r.read_bool())
    if kind == "result_accuracy":
        atol, rtol = f64_from_bits(r.read_apfloat("f64")), f64_from_bits(r.read_apfloat("f64"))
        ulps = s()
        mode = r.read_attribute()
        if not isinstance(mode, EnumAttr):
            raise r.error("stablehlo result_accuracy: mode is not an enum attribute")
        return ResultAccuracy(atol, rtol, ulps, mode)
    return _read_sharding(r, kind)


# ---- writing ----------------------------------------------------------------------------

_AXIS_REF_SUB = re.compile(
    r'#stablehlo\.axis_ref<name = ("(?:[^"\\]|\\.)*"), '
    r"sub_axis_info = \((-?[0-9]+)\)(-?[0-9]+)>\Z"
)


def _kind_of(a: Attribute) -> str | None:
    """The stablehlo attribute kind of ``a``, or None if it is not one."""
    simple = {
        ChannelHandle: "channel_handle",
        ConvDimensionNumbers: "conv",
        DotDimensionNumbers: "dot",
        GatherDimensionNumbers: "gather",
        ScatterDimensionNumbers: "scatter",
        TypeExtensions: "type_extensions",
        OutputOperandAlias: "output_operand_alias",
        DotAlgorithm: "dot_algorithm",
        ResultAccuracy: "result_accuracy",
    }
    kind = simple.get(type(a))
    if kind is not None:
        return kind
    if isinstance(a, EnumAttr) and a.dialect == "stablehlo" and a.kind in ENUMS:
        return a.kind if a.value in ENUM_VALUES[a.kind] else None
    if isinstance(a, DialectAttr) and a.dialect == "stablehlo" and a.name in ATTR_CODE:
        return a.name if _sharding_ok(a) else None
    if isinstance(a, OpaqueAttr) and _AXIS_REF_SUB.match(a.text):
        return "axis_ref"
    return None


def _sharding_ok(a: DialectAttr) -> bool:
    keys = tuple(k for k, _ in a.params)
    want = {
        "replica_group_mesh_axes": (("mesh", "axes"),),
        "sub_axis_info": (("pre_size", "size"),),
        "axis_ref": (("name",),),
        "mesh_axis": (("name", "size"),),
        "mesh": (("axes",), ("axes", "device_ids")),
    }.get(a.name, ())
    if keys not in want:
        return False
    ints = [v for k, v in a.params if k in ("pre_size", "size")]
    strs = [v for k, v in a.params if k == "name"]
    return (
        all(isinstance(v, IntegerAttr) for v in ints)
        and all(isinstance(v, StringAttr) for v in strs)
        and (a.name != "replica_group_mesh_axes" or isinstance(a.get("axes"), ArrayAttr))
    )


def _write_ints(w: DialectWriter, xs) -> None:
    w.write_list(xs, w.write_signed_varint)


def _write_sharding(w: DialectWriter, kind: str, a: Attribute) -> None:
    if isinstance(a, OpaqueAttr):  # axis_ref with a sub-axis
        from ..lexer import unescape_string

        m = _AXIS_REF_SUB.match(a.text)
        assert m is not None  # _sharding_kind accepted only texts that match
        w.write_string(unescape_string(m.group(1)[1:-1]))
        w.write_bool(True)
        w.write_attribute(
            DialectAttr(
                "stablehlo",
                "sub_axis_info",
                (
                    ("pre_size", IntegerAttr(int(m.group(2)))),
                    ("size", IntegerAttr(int(m.group(3)))),
                ),
            )
        )
        return
    assert isinstance(a, DialectAttr)
    g = a.get
    if kind == "replica_group_mesh_axes":
        w.write_attribute(g("mesh"))
        w.write_list(g("axes").elements, w.write_attribute)
    elif kind == "sub_axis_info":
        w.write_signed_varint(g("pre_size").value)
        w.write_signed_varint(g("size").value)
    elif kind == "axis_ref":
        w.write_string(g("name").value)
        w.write_bool(False)
    elif kind == "mesh_axis":
        w.write_string(g("name").value)
        w.write_signed_varint(g("size").value)
    else:  # mesh
        w.write_attribute(g("axes"))
        dev = g("device_ids")
        w.write_bool(dev is not None)
        if dev is not None:
            w.write_attribute(dev)


def write_stablehlo_attr(w: DialectWriter, kind: str, a: Any) -> None:
    """The fields of ``a`` (after its code), in StablehloBytecode.cpp's order."""
    s = w.write_signed_varint
    if kind in ENUMS:
        w.write_varint(ENUM_VALUES[kind][a.value])
    elif kind == "channel_handle":
        s(a.handle)
        s(a.type)
    elif kind == "conv":
        s(a.input_batch_dimension)
        s(a.input_feature_dimension)
        _write_ints(w, a.input_spatial_dimensions)
        s(a.kernel_input_feature_dimension)
        s(a.kernel_output_feature_dimension)
        _write_ints(w, a.kernel_spatial_dimensions)
        s(a.output_batch_dimension)
        s(a.output_feature_dimension)
        _write_ints(w, a.output_spatial_dimensions)
    elif kind == "dot":
        for xs in (
            a.lhs_batching_dimensions,
            a.rhs_batching_dimensions,
            a.lhs_contracting_dimensions,
            a.rhs_contracting_dimensions,
        ):
            _write_ints(w, xs)
    elif kind == "gather":
        for xs in (
            a.offset_dims,
            a.collapsed_slice_dims,
            a.operand_batching_dims,
            a.start_indices_batching_dims,
            a.start_index_map,
        ):
            _write_ints(w, xs)
        s(a.index_vector_dim)
    elif kind == "scatter":
        for xs in (
            a.update_window_dims,
            a.inserted_window_dims,
            a.input_batching_dims,
            a.scatter_indices_batching_dims,
            a.scatter_dims_to_operand_dims,
        ):
            _write_ints(w, xs)
        s(a.index_vector_dim)
    elif kind == "type_extensions":
        _write_ints(w, tuple(DYNAMIC if b is None else b for b in a.bounds))
    elif kind == "output_operand_alias":
        _write_ints(w, a.output_tuple_indices)
        s(a.operand_index)
        _write_ints(w, a.operand_tuple_indices)
    elif kind == "dot_algorithm":
        for t in (a.lhs_precision_type, a.rhs_precision_type, a.accumulation_type):
            w.write_type(t)
        s(a.lhs_component_count)
        s(a.rhs_component_count)
        s(a.num_primitive_operations)
        w.write_bool(a.allow_imprecise_accumulation)
    elif kind == "result_accuracy":
        w.write_apfloat(_bits(a.atol), "f64")
        w.write_apfloat(_bits(a.rtol), "f64")
        s(a.ulps)
        # text without `mode = ...` leaves it None; MLIR's parser defaults it to DEFAULT
        w.write_attribute(a.mode or EnumAttr("stablehlo", "result_accuracy_mode", "DEFAULT", False))
    else:
        _write_sharding(w, kind, a)


# ---- types ------------------------------------------------------------------------------

_FUTURE = "!stablehlo.future<"


def _future_type(types: tuple[Type, ...]) -> OpaqueType:
    """FutureType as the text parser holds it (``!stablehlo.future<...>`` verbatim)."""
    from ..printer import print_type

    return OpaqueType(_FUTURE + ", ".join(print_type(t) for t in types) + ">")


def _future_params(t: OpaqueType) -> tuple[Type, ...] | None:
    if not (t.text.startswith(_FUTURE) and t.text.endswith(">")):
        return None
    from ..errors import HloError
    from ..grammar import Parser

    p = Parser(t.text[len(_FUTURE) : -1])
    out: list[Type] = []
    try:
        while not p.c.at_end():
            out.append(p.parse_type())
            if not p.c.accept(","):
                break
        return tuple(out) if p.c.at_end() else None
    except HloError:
        return None


# ---- the codecs -------------------------------------------------------------------------


class StablehloCodec(DialectCodec):
    """StablehloBytecodeInterface."""

    name = "stablehlo"

    def read_attribute(self, r: DialectReader) -> Attribute:
        return read_stablehlo_attr(r, self.read_code(r, ATTR_CODES))

    def write_attribute(self, w: DialectWriter, attr: Attribute) -> bool:
        kind = _kind_of(attr)
        if kind is None:
            return False
        w.write_varint(ATTR_CODE[kind])
        write_stablehlo_attr(w, kind, attr)
        return True

    def read_type(self, r: DialectReader) -> Type:
        code = r.read_varint()
        if code == TYPE_TOKEN:
            return TokenType()
        if code == TYPE_FUTURE:
            return _future_type(r.read_list(r.read_type))
        raise r.error(f"unknown stablehlo type code: {code}")

    def write_type(self, w: DialectWriter, t: Type) -> bool:
        if isinstance(t, TokenType):
            w.write_varint(TYPE_TOKEN)
            return True
        if isinstance(t, OpaqueType):
            types = _future_params(t)
            if types is not None:
                w.write_varint(TYPE_FUTURE)
                w.write_list(types, w.write_type)
                return True
        return False

    def read_version(self, r: DialectReader) -> tuple[int, int, int]:
        """readVersion: major, minor, patch as varints."""
        return (r.read_varint(), r.read_varint(), r.read_varint())

    def write_version(self, w: DialectWriter) -> bool:
        """writeVersion: written only when the dialect has a version, which the writer's
        context supplies as ``dialect_version("stablehlo")`` -> (major, minor, patch)."""
        get = getattr(w.ctx, "dialect_version", None)
        version = get("stablehlo") if callable(get) else None
        if version is None:
            return False
        for part in tuple(version)[:3]:
            w.write_varint(int(part))
        return True

    def attribute_dialect(self, attr: Attribute) -> str | None:
        return "stablehlo" if _kind_of(attr) is not None else None

    def type_dialect(self, t: Type) -> str | None:
        if isinstance(t, TokenType) or (isinstance(t, OpaqueType) and t.text.startswith(_FUTURE)):
            return "stablehlo"
        return None


class ChloCodec(DialectCodec):
    """ChloBytecodeInterface: comparison_direction and comparison_type only."""

    name = "chlo"

    def read_attribute(self, r: DialectReader) -> Attribute:
        return read_enum(r, "chlo", self.read_code(r, CHLO_ATTR_CODES))

    def write_attribute(self, w: DialectWriter, attr: Attribute) -> bool:
        if not (
            isinstance(attr, EnumAttr)
            and attr.dialect == "chlo"
            and attr.kind in CHLO_ATTR_CODE
            and attr.value in ENUM_VALUES[attr.kind]
        ):
            return False
        w.write_varint(CHLO_ATTR_CODE[attr.kind])
        w.write_varint(ENUM_VALUES[attr.kind][attr.value])
        return True

    def read_type(self, r: DialectReader) -> Type:
        raise r.error(f"unknown chlo type code: {r.read_varint()}")

    def attribute_dialect(self, attr: Attribute) -> str | None:
        return "chlo" if isinstance(attr, EnumAttr) and attr.dialect == "chlo" else None


STABLEHLO_CODEC = StablehloCodec()
CHLO_CODEC = ChloCodec()
register_codec(STABLEHLO_CODEC)
register_codec(CHLO_CODEC)
