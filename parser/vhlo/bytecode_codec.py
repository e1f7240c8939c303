"""The VHLO dialect's bytecode encodings (stablehlo/dialect/VhloBytecode.cpp).

One generic reader/writer interprets the code table of ``bytecode_codes``; the values
follow ``parser/vhlo/ir.py``'s conventions (APInt / APFloat as bit patterns, dense data
as bytes, enum cases by name, parameters in .td order).  Every VHLO kind has a code, so
``write_*`` returns False only for non-VHLO values.  VHLO has no dialect version
payload at this commit (the stablehlo dialect has one; VHLO's version travels in the
producer string).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ..bytecode.dialect_api import DialectCodec, DialectReader, DialectWriter, register_codec
from ..ir import Attribute, Type
from .builtin_view import canonical_data, tensor_type_info
from .bytecode_codes import (
    ATTR_BY_NAME,
    ATTR_CODES,
    ATTR_PARAM_COUNT,
    FLOAT_TYPE_SEMANTICS,
    INTEGER_ATTR_WIDTH,
    TYPE_BY_NAME,
    TYPE_CODES,
    TYPE_PARAM_COUNT,
    Encoding,
    param_count,
)
from .ir import VhloAttr, VhloType
from .table_data import ENUMS

# Enum case values by enum mnemonic (VhloEnums.td, via the generated VHLO table).
ENUM_VALUES: dict[str, dict[str, int]] = {e[0]: dict(e[3]) for e in ENUMS}
ENUM_CASES: dict[str, dict[int, str]] = {
    k: {v: c for c, v in cases.items()} for k, cases in ENUM_VALUES.items()
}


# ---- reading ----------------------------------------------------------------------------


def _type_name(v: Any) -> str:
    return v.name if isinstance(v, VhloType) else repr(v)


def _read_apint_of_type(r: DialectReader, vals: list) -> int:
    width = INTEGER_ATTR_WIDTH.get(_type_name(vals[0]))
    if width is None:
        raise r.error(f"vhlo integer_v1 attribute of unsupported type {_type_name(vals[0])}")
    return r.read_apint(width)


def _read_apfloat_of_type(r: DialectReader, vals: list) -> int:
    sem = FLOAT_TYPE_SEMANTICS.get(_type_name(vals[0]))
    if sem is None:
        raise r.error(f"vhlo float_v1 attribute of unsupported type {_type_name(vals[0])}")
    return r.read_apfloat(sem)


def _read_bool_varint(r: DialectReader, vals: list) -> bool:
    v = r.read_varint()
    if v not in (0, 1):
        raise r.error(f"vhlo bool_v1: unsupported value: {v}")
    return v == 1


def _read_flag_attr(r: DialectReader, vals: list) -> Attribute | None:
    return r.read_attribute() if r.read_varint() else None


def _is_bool_tensor(t: Any) -> bool:
    return isinstance(t, VhloType) and t.name == "tensor_v1" and t.params[1] == VhloType("bool_v1")


def _read_tensor_blob(r: DialectReader, vals: list) -> bytes:
    """readVhloTensorV1Attr: i1 data may be bit-packed (or 0xFF for a true splat)."""
    blob = r.read_blob()
    info = tensor_type_info(vals[0])
    if info is None:
        return blob
    _, nbytes, n = info
    if _is_bool_tensor(vals[0]):
        if len(blob) == 1 and blob[0] == 0xFF:
            return b"\x01"
        packed = (n + 7) // 8
        if len(blob) == packed and len(blob) != n:
            bits = np.unpackbits(np.frombuffer(blob, dtype=np.uint8), bitorder="little")
            blob = bits[:n].tobytes()
    return canonical_data(blob, nbytes, n)


_READERS: dict[str, Callable[[DialectReader, list], Any]] = {
    "attr": lambda r, v: r.read_attribute(),
    "opt_attr": lambda r, v: r.read_optional_attribute(),
    "flag_attr": _read_flag_attr,
    "type": lambda r, v: r.read_type(),
    "attrs": lambda r, v: r.read_list(r.read_attribute),
    "types": lambda r, v: r.read_list(r.read_type),
    "attr_pairs": lambda r, v: r.read_list(lambda: (r.read_attribute(), r.read_attribute())),
    "varint": lambda r, v: r.read_varint(),
    "svarint": lambda r, v: r.read_signed_varint(),
    "svarints": lambda r, v: r.read_list(r.read_signed_varint),
    "bool_varint": _read_bool_varint,
    "string": lambda r, v: r.read_string(),
    "apint_of_type": _read_apint_of_type,
    "apfloat_of_type": _read_apfloat_of_type,
    "apfloat_f64": lambda r, v: r.read_apfloat("f64"),
    "apfloats_f64": lambda r, v: r.read_list(lambda: r.read_apfloat("f64")),
    "tensor_blob": _read_tensor_blob,
}


def _read_enum(r: DialectReader, mnemonic: str) -> str:
    value = r.read_varint()
    case = ENUM_CASES[mnemonic].get(value)
    if case is None:
        raise r.error(f"vhlo {mnemonic}: unknown enum value {value}")
    return case


def _read_params(r: DialectReader, enc: Encoding, counts: dict[str, int]) -> tuple:
    name, fields = enc
    vals: list[Any] = [None] * param_count(fields, name, counts)
    for kind, idx in fields:
        vals[idx] = _read_enum(r, name) if kind == "enum" else _READERS[kind](r, vals)
    return tuple(vals)


# ---- writing ----------------------------------------------------------------------------


def _write_tensor_blob(w: DialectWriter, vals: tuple, data: bytes) -> None:
    """writeVhloTensorV1Attr: i1 data bit-packed, a splat as one 0xFF / 0x00 byte."""
    t = vals[0]
    info = tensor_type_info(t)
    if not _is_bool_tensor(t) or info is None:
        w.write_blob(bytes(data))
        return
    n = info[2]
    if len(data) == 1 and n > 1:
        w.write_blob(b"\xff" if data[0] else b"\x00")
        return
    bits = np.frombuffer(bytes(data), dtype=np.uint8)[:n] != 0
    w.write_blob(np.packbits(bits, bitorder="little").tobytes())


def _write_pair(w: DialectWriter, kv: tuple[Attribute, Attribute]) -> None:
    """One ``(key, value)`` entry of DictionaryV1Attr (VhloBytecode.cpp)."""
    w.write_attribute(kv[0])
    w.write_attribute(kv[1])


def _write_field(w: DialectWriter, kind: str, name: str, vals: tuple, v: Any) -> None:
    if kind in ("attr", "type"):
        (w.write_attribute if kind == "attr" else w.write_type)(v)
    elif kind == "opt_attr":
        w.write_optional_attribute(v)
    elif kind == "flag_attr":
        w.write_varint(0 if v is None else 1)
        if v is not None:
            w.write_attribute(v)
    elif kind == "attrs":
        w.write_list(v, w.write_attribute)
    elif kind == "types":
        w.write_list(v, w.write_type)
    elif kind == "attr_pairs":
        w.write_list(v, lambda kv: _write_pair(w, kv))
    elif kind in ("varint", "bool_varint"):
        w.write_varint(int(v))
    elif kind == "svarint":
        w.write_signed_varint(v)
    elif kind == "svarints":
        w.write_list(v, w.write_signed_varint)
    elif kind == "enum":
        w.write_varint(ENUM_VALUES[name][v])
    elif kind == "string":
        w.write_string(v)
    elif kind == "apint_of_type":
        w.write_apint(v, INTEGER_ATTR_WIDTH[_type_name(vals[0])])
    elif kind == "apfloat_of_type":
        w.write_apfloat(v, FLOAT_TYPE_SEMANTICS[_type_name(vals[0])])
    elif kind == "apfloat_f64":
        w.write_apfloat(v, "f64")
    elif kind == "apfloats_f64":
        w.write_list(v, lambda b: w.write_apfloat(b, "f64"))
    elif kind == "tensor_blob":
        _write_tensor_blob(w, vals, v)
    else:  # pragma: no cover - the table names only the kinds above
        raise ValueError(f"unknown field kind {kind}")


def _choose(variants: list[tuple[int, Encoding]], params: tuple) -> tuple[int, Encoding] | None:
    """The code whose fields cover every non-None parameter (fewest fields first)."""
    for code, enc in sorted(variants, key=lambda ce: len(ce[1][1])):
        covered = {i for _, i in enc[1]}
        if all(p is None or i in covered for i, p in enumerate(params)):
            return code, enc
    return None


def _encodable(name: str, fields: tuple, params: tuple) -> bool:
    """Whether the values the encoding looks up (enum case, number width) exist."""
    for kind, idx in fields:
        if kind == "enum" and params[idx] not in ENUM_VALUES.get(name, {}):
            return False
        if kind == "apint_of_type" and _type_name(params[0]) not in INTEGER_ATTR_WIDTH:
            return False
        if kind == "apfloat_of_type" and _type_name(params[0]) not in FLOAT_TYPE_SEMANTICS:
            return False
    return True


def _write(
    w: DialectWriter, by_name: dict, value: VhloAttr | VhloType, counts: dict[str, int]
) -> bool:
    variants = by_name.get(value.name)
    if not variants:
        return False
    chosen = _choose(variants, value.params)
    if chosen is None:
        return False
    code, (name, fields) = chosen
    if len(value.params) != param_count(fields, name, counts) or not _encodable(
        name, fields, value.params
    ):
        return False
    w.write_varint(code)
    for kind, idx in fields:
        _write_field(w, kind, name, value.params, value.params[idx])
    return True


# ---- the codec --------------------------------------------------------------------------


class VhloCodec(DialectCodec):
    """VhloBytecodeInterface."""

    name = "vhlo"

    def read_attribute(self, r: DialectReader) -> Attribute:
        enc = self.read_code(r, ATTR_CODES)
        return VhloAttr(enc[0], _read_params(r, enc, ATTR_PARAM_COUNT))

    def read_type(self, r: DialectReader) -> Type:
        enc = self.read_code(r, TYPE_CODES, "type")
        return VhloType(enc[0], _read_params(r, enc, TYPE_PARAM_COUNT))

    def write_attribute(self, w: DialectWriter, attr: Attribute) -> bool:
        if not isinstance(attr, VhloAttr):
            return False
        return _write(w, ATTR_BY_NAME, attr, ATTR_PARAM_COUNT)

    def write_type(self, w: DialectWriter, t: Type) -> bool:
        if not isinstance(t, VhloType):
            return False
        return _write(w, TYPE_BY_NAME, t, TYPE_PARAM_COUNT)

    def read_version(self, r: DialectReader) -> Any:
        raise r.error("dialect 'vhlo' has no version encoding")

    def write_version(self, w: DialectWriter) -> bool:
        return False

    def property_spec(self, op_name: str) -> tuple[tuple[str, bool], ...] | None:
        """A VHLO op's properties: its inherent attributes (VhloOps.td, the VHLO
        table), sorted by name, each written with writeAttribute."""
        from .table import op_info  # the op table loads with the first VHLO op

        info = op_info(op_name)
        if info is None or not info.attributes:
            return None
        return tuple((a, False) for a in sorted(info.attributes))

    def knows_op(self, op_name: str) -> bool | None:
        from .table import op_info  # the op table loads with the first VHLO op

        return op_info(op_name) is not None

    def attribute_dialect(self, attr: Attribute) -> str | None:
        return "vhlo" if isinstance(attr, VhloAttr) else None

    def type_dialect(self, t: Type) -> str | None:
        return "vhlo" if isinstance(t, VhloType) else None


VHLO_CODEC = VhloCodec()
register_codec(VHLO_CODEC)
