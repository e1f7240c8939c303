"""The builtin dialect's bytecode encodings (attributes, types, locations).

Codes and layouts from llvm-project ``mlir/include/mlir/IR/BuiltinDialectBytecode.td``
(the ``BuiltinDialectAttributes`` / ``BuiltinDialectTypes`` lists: a code is the
position in the list) and the helpers of ``mlir/lib/IR/BuiltinDialectBytecode.cpp``
(i1 dense data packed 8 per byte, 0xFF for a true splat; strings of a dense string
attribute; FileLineColRange's variable-length line/col list).

Float8/tf32/f4/f6 types have codes (21-32) that newer MLIR reads but writes only as
text ("EnableFloatPrintingJune2026"); the writer here does the same.
"""

from __future__ import annotations

import math
from typing import Any

from ..ir import (
    ArrayAttr,
    Attribute,
    BoolAttr,
    ComplexType,
    DenseArrayAttr,
    DenseElementsAttr,
    DenseResourceAttr,
    DictionaryAttr,
    FloatAttr,
    FloatType,
    FunctionType,
    IndexType,
    IntegerAttr,
    IntegerType,
    LocationAttr,
    NoneType,
    OpaqueAttr,
    OpaqueType,
    StringAttr,
    SymbolRefAttr,
    TensorType,
    TupleType,
    Type,
    TypeAttr,
    UnitAttr,
)
from . import dense
from .dialect_api import (
    DialectCodec,
    DialectReader,
    DialectWriter,
    RecordingWriter,
    register_codec,
)
from .locations import LOC_KINDS, location_parts, render_location

# BuiltinDialectAttributes, in order (the code is the index).
ATTR_CODES = (
    "ArrayAttr",
    "DictionaryAttr",
    "StringAttr",
    "StringAttrWithType",
    "FlatSymbolRefAttr",
    "SymbolRefAttr",
    "TypeAttr",
    "UnitAttr",
    "IntegerAttr",
    "FloatAttr",
    "CallSiteLoc",
    "FileLineColLoc",
    "FusedLoc",
    "FusedLocWithMetadata",
    "NameLoc",
    "UnknownLoc",
    "DenseResourceElementsAttr",
    "DenseArrayAttr",
    "DenseIntOrFPElementsAttr",
    "DenseStringElementsAttr",
    "SparseElementsAttr",
    "DistinctAttr",
    "FileLineColRange",
    "AffineMapAttr",
)
A = {name: i for i, name in enumerate(ATTR_CODES)}

# BuiltinDialectTypes, in order; float types by their MLIR spelling.
TYPE_CODES = (
    "IntegerType",
    "IndexType",
    "FunctionType",
    "bf16",
    "f16",
    "f32",
    "f64",
    "f80",
    "f128",
    "ComplexType",
    "MemRefType",
    "MemRefTypeWithMemSpace",
    "NoneType",
    "RankedTensorType",
    "RankedTensorTypeWithEncoding",
    "TupleType",
    "UnrankedMemRefType",
    "UnrankedMemRefTypeWithMemSpace",
    "UnrankedTensorType",
    "VectorType",
    "VectorTypeWithScalableDims",
    "tf32",
    "f8E5M2",
    "f8E4M3",
    "f8E4M3FN",
    "f8E5M2FNUZ",
    "f8E4M3FNUZ",
    "f8E4M3B11FNUZ",
    "f8E3M4",
    "f4E2M1FN",
    "f6E2M3FN",
    "f6E3M2FN",
    "f8E8M0FNU",
)
T = {name: i for i, name in enumerate(TYPE_CODES)}
# Float types the writer encodes natively; the rest are written as text.
WRITTEN_FLOATS = ("bf16", "f16", "f32", "f64", "f80", "f128")

SIGNEDNESS = ("signless", "signed", "unsigned")
K_DYNAMIC = -(2**63)  # ShapedType::kDynamic
MAX_INT_WIDTH = (1 << 24) - 1  # IntegerType::kMaxWidth


def _mlir_dims(shape) -> tuple[int, ...]:
    return tuple(K_DYNAMIC if d is None else d for d in shape)


class BuiltinCodec(DialectCodec):
    """BytecodeDialectInterface of the builtin dialect."""

    name = "builtin"

    # ---- reading ------------------------------------------------------------------
    def read_attribute(self, r: DialectReader) -> Attribute:
        code = r.read_varint()
        kind = ATTR_CODES[code] if code < len(ATTR_CODES) else None
        fn = getattr(self, f"_read_{kind}", None) if kind else None
        if fn is None:
            raise r.error(
                f"builtin dialect: unsupported attribute code {code}"
                + (f" ({kind})" if kind else "")
            )
        return fn(r)

    def _read_ArrayAttr(self, r):
        return ArrayAttr(r.read_list(r.read_attribute))

    def _read_DictionaryAttr(self, r):
        def entry():
            name = r.read_attribute()
            if not isinstance(name, StringAttr):
                raise r.error("builtin dialect: dictionary key is not a string")
            return (name.value, r.read_attribute())

        return DictionaryAttr(r.read_list(entry))

    def _read_StringAttr(self, r):
        return StringAttr(r.read_string())

    def _read_StringAttrWithType(self, r):
        s = r.read_string()
        t = r.read_type()
        return OpaqueAttr(f"{_quote(s)} : {_type_text(t)}")

    def _read_FlatSymbolRefAttr(self, r):
        return SymbolRefAttr(_string_attr(r).value)

    def _read_SymbolRefAttr(self, r):
        root = _string_attr(r).value

        def nested():
            a = r.read_attribute()
            if not isinstance(a, SymbolRefAttr) or a.nested:
                raise r.error("builtin dialect: nested symbol reference is not flat")
            return a.root

        return SymbolRefAttr(root, r.read_list(nested))

    def _read_TypeAttr(self, r):
        return TypeAttr(r.read_type())

    def _read_UnitAttr(self, r):
        return UnitAttr()

    def _read_IntegerAttr(self, r):
        t = r.read_type()
        if isinstance(t, IntegerType):
            bits = r.read_apint(t.width)
            if t.width == 1 and t.signedness == "signless":
                return BoolAttr(bool(bits))
            if t.signedness != "unsigned" and t.width and bits >> (t.width - 1):
                bits -= 1 << t.width
            return IntegerAttr(bits, t)
        if isinstance(t, IndexType):
            bits = r.read_apint(64)
            return IntegerAttr(bits - (1 << 64) if bits >> 63 else bits, t)
        raise r.error(f"builtin dialect: IntegerAttr of non-integer type {_type_text(t)}")

    def _read_FloatAttr(self, r):
        t = r.read_type()
        if not isinstance(t, FloatType):
            raise r.error(f"builtin dialect: FloatAttr of non-float type {_type_text(t)}")
        bits = r.read_apfloat(t.name)
        return FloatAttr(dense.float_from_bits(bits, t.name), t)

    def _read_loc(self, r, kind: str) -> LocationAttr:
        spec = LOC_KINDS[kind]
        parts: list[Any] = []  # one decoded field per LOC_KINDS entry, of mixed kinds
        for field in spec:
            if field == "str":
                parts.append(_string_attr(r).value)
            elif field == "loc":
                parts.append(_loc_attr(r))
            elif field == "locs":
                parts.append(r.read_list(lambda: _loc_attr(r)))
            elif field == "attr":
                parts.append(r.read_attribute())
            elif field == "varint":
                parts.append(r.read_varint())
            elif field == "varints":
                parts.append(r.read_list(r.read_varint))
        return LocationAttr(render_location(kind, parts))

    def _read_CallSiteLoc(self, r):
        return self._read_loc(r, "CallSiteLoc")

    def _read_FileLineColLoc(self, r):
        return self._read_loc(r, "FileLineColLoc")

    def _read_FusedLoc(self, r):
        return self._read_loc(r, "FusedLoc")

    def _read_FusedLocWithMetadata(self, r):
        return self._read_loc(r, "FusedLocWithMetadata")

    def _read_NameLoc(self, r):
        return self._read_loc(r, "NameLoc")

    def _read_UnknownLoc(self, r):
        return LocationAttr("unknown")

    def _read_FileLineColRange(self, r):
        loc = self._read_loc(r, "FileLineColRange")
        return loc

    def _read_DenseResourceElementsAttr(self, r):
        t = r.read_type()
        _dialect, key = r.read_resource_handle()
        if not isinstance(t, TensorType):
            raise r.error("builtin dialect: dense_resource of a non-tensor type")
        return DenseResourceAttr(t, key)

    def _read_DenseArrayAttr(self, r):
        t = r.read_type()
        size = r.read_varint()
        blob = r.read_blob()
        try:
            values = dense.dense_array_values(t, size, blob)
        except ValueError as e:
            raise r.error(f"builtin dialect: bad dense array: {e}") from None
        return DenseArrayAttr(t, values)

    def _read_DenseIntOrFPElementsAttr(self, r):
        t = r.read_type()
        n = r.read_varint()
        blob = r.cursor.bytes(n)
        if not isinstance(t, TensorType) or t.shape is None or not t.is_static:
            raise r.error("builtin dialect: dense elements of a non-static tensor type")
        try:
            arr = dense.array_from_raw(t, blob)
            splat = dense.empty_splat_from_raw(t, blob)
        except (ValueError, TypeError) as e:
            raise r.error(f"builtin dialect: bad dense elements data: {e}") from None
        return DenseElementsAttr(t, arr, empty_splat=splat)

    def _read_DenseStringElementsAttr(self, r):
        t = r.read_type()
        splat = r.read_varint()
        if not isinstance(t, TensorType) or not t.is_static:
            raise r.error("builtin dialect: dense strings of a non-static tensor type")
        n = 1 if splat else math.prod(t.shape)
        if n > r.cursor.remaining():
            raise r.error(f"builtin dialect: {n} strings exceed the bytes left")
        strs = [r.read_string() for _ in range(n)]
        body = _quote(strs[0]) if splat else "[" + ", ".join(_quote(s) for s in strs) + "]"
        return OpaqueAttr(f"dense<{body}> : {_type_text(t)}")

    def read_type(self, r: DialectReader) -> Type:
        code = r.read_varint()
        kind = TYPE_CODES[code] if code < len(TYPE_CODES) else None
        if kind is None:
            raise r.error(f"builtin dialect: unknown type code {code}")
        if kind[0] in "bft":
            return FloatType(kind)
        if kind == "IntegerType":
            v = r.read_varint()
            if v & 3 == 3:
                raise r.error("builtin dialect: bad integer signedness")
            if v >> 2 > MAX_INT_WIDTH:
                raise r.error(f"builtin dialect: integer width {v >> 2} exceeds {MAX_INT_WIDTH}")
            return IntegerType(v >> 2, SIGNEDNESS[v & 3])
        if kind == "IndexType":
            return IndexType()
        if kind == "NoneType":
            return NoneType()
        if kind == "FunctionType":
            return FunctionType(r.read_list(r.read_type), r.read_list(r.read_type))
        if kind == "ComplexType":
            return ComplexType(r.read_type())
        if kind == "TupleType":
            return TupleType(r.read_list(r.read_type))
        if kind == "UnrankedTensorType":
            return TensorType(None, r.read_type())
        if kind in ("RankedTensorType", "RankedTensorTypeWithEncoding"):
            enc = r.read_attribute() if kind.endswith("Encoding") else None
            dims = r.read_list(r.read_signed_varint)
            elem = r.read_type()
            shape = tuple(None if d == K_DYNAMIC else d for d in dims)
            if any(d is not None and d < 0 for d in shape):
                raise r.error("builtin dialect: negative tensor dimension")
            return TensorType(shape, elem, enc)
        if kind == "VectorType":
            dims = r.read_list(r.read_signed_varint)
            elem = r.read_type()
            return OpaqueType(f"vector<{''.join(f'{d}x' for d in dims)}{_type_text(elem)}>")
        raise r.error(f"builtin dialect: unsupported type code {code} ({kind})")

    # ---- writing ------------------------------------------------------------------
    def write_attribute(self, w: DialectWriter, attr: Attribute) -> bool:
        if type(attr) is ArrayAttr:
            w.write_varint(A["ArrayAttr"])
            w.write_list(attr.elements, w.write_attribute)
        elif type(attr) is DictionaryAttr:
            w.write_varint(A["DictionaryAttr"])

            def entry(kv):
                w.write_attribute(StringAttr(kv[0]))
                w.write_attribute(kv[1])

            # MLIR keeps a dictionary sorted by name (DictionaryAttr::get sorts).
            w.write_list(sorted(attr.entries, key=lambda kv: _str_key(kv[0])), entry)
        elif type(attr) is StringAttr:
            w.write_varint(A["StringAttr"])
            w.write_string(attr.value)
        elif type(attr) is SymbolRefAttr:
            if attr.nested:
                w.write_varint(A["SymbolRefAttr"])
                w.write_attribute(StringAttr(attr.root))
                w.write_list(attr.nested, lambda s: w.write_attribute(SymbolRefAttr(s)))
            else:
                w.write_varint(A["FlatSymbolRefAttr"])
                w.write_attribute(StringAttr(attr.root))
        elif type(attr) is TypeAttr:
            w.write_varint(A["TypeAttr"])
            w.write_type(attr.type)
        elif type(attr) is UnitAttr:
            w.write_varint(A["UnitAttr"])
        elif type(attr) is BoolAttr:
            w.write_varint(A["IntegerAttr"])
            w.write_type(IntegerType(1))
            w.write_apint(int(attr.value), 1)
        elif type(attr) is IntegerAttr:
            t = attr.type if attr.type is not None else IntegerType(64)
            if isinstance(t, IntegerType):
                width = t.width
            elif isinstance(t, IndexType):
                width = 64
            else:
                return False
            w.write_varint(A["IntegerAttr"])
            w.write_type(t)
            w.write_apint(attr.value, width)
        elif type(attr) is FloatAttr:
            t = attr.type if attr.type is not None else FloatType("f64")
            if not isinstance(t, FloatType):
                return False
            w.write_varint(A["FloatAttr"])
            w.write_type(t)
            w.write_apfloat(dense.float_to_bits(attr.value, t.name), t.name)
        elif type(attr) is LocationAttr:
            return self._write_location(w, attr)
        elif type(attr) is DenseResourceAttr:
            w.write_varint(A["DenseResourceElementsAttr"])
            w.write_type(attr.type)
            w.write_resource_handle("builtin", attr.handle)
        elif type(attr) is DenseArrayAttr:
            w.write_varint(A["DenseArrayAttr"])
            w.write_type(attr.element_type)
            w.write_varint(len(attr.values))
            w.write_blob(dense.dense_array_blob(attr.element_type, attr.values))
        elif type(attr) is DenseElementsAttr:
            blob: bytes | memoryview
            try:
                if isinstance(w, RecordingWriter):  # numbering: the data is not needed
                    dense.check_storage(attr.type)
                    blob = b""
                else:
                    blob = dense.raw_from_array(attr.type, attr.array, attr.empty_splat)
            except (TypeError, ValueError):
                return False
            w.write_varint(A["DenseIntOrFPElementsAttr"])
            w.write_type(attr.type)
            w.write_blob(blob)
        else:
            return False
        return True

    def _write_location(self, w: DialectWriter, loc: LocationAttr) -> bool:
        parsed = location_parts(loc.text)
        if parsed is None:
            return False
        kind, parts = parsed
        w.write_varint(A[kind])
        for field, value in zip(LOC_KINDS[kind], parts):
            if field == "str":
                w.write_attribute(StringAttr(value))
            elif field == "loc":
                w.write_attribute(value)
            elif field == "locs":
                w.write_list(value, w.write_attribute)
            elif field == "attr":
                w.write_attribute(value)
            elif field == "varint":
                w.write_varint(value)
            elif field == "varints":
                w.write_list(value, w.write_varint)
        return True

    def write_type(self, w: DialectWriter, t: Type) -> bool:
        if type(t) is IntegerType:
            w.write_varint(T["IntegerType"])
            w.write_varint(t.width << 2 | SIGNEDNESS.index(t.signedness))
        elif type(t) is FloatType:
            if t.name not in WRITTEN_FLOATS:
                return False
            w.write_varint(T[t.name])
        elif type(t) is IndexType:
            w.write_varint(T["IndexType"])
        elif type(t) is NoneType:
            w.write_varint(T["NoneType"])
        elif type(t) is FunctionType:
            w.write_varint(T["FunctionType"])
            w.write_list(t.inputs, w.write_type)
            w.write_list(t.results, w.write_type)
        elif type(t) is ComplexType:
            w.write_varint(T["ComplexType"])
            w.write_type(t.element_type)
        elif type(t) is TupleType:
            w.write_varint(T["TupleType"])
            w.write_list(t.types, w.write_type)
        elif type(t) is TensorType:
            if t.shape is None:
                w.write_varint(T["UnrankedTensorType"])
                w.write_type(t.element_type)
                return True
            if t.encoding is not None:
                w.write_varint(T["RankedTensorTypeWithEncoding"])
                w.write_attribute(t.encoding)
            else:
                w.write_varint(T["RankedTensorType"])
            w.write_list(_mlir_dims(t.shape), w.write_signed_varint)
            w.write_type(t.element_type)
        else:
            return False
        return True

    def attribute_dialect(self, attr: Attribute) -> str | None:
        return "builtin" if type(attr) in _BUILTIN_ATTRS else None

    def type_dialect(self, t: Type) -> str | None:
        return "builtin" if type(t) in _BUILTIN_TYPES else None


_BUILTIN_ATTRS = frozenset(
    {
        ArrayAttr,
        DictionaryAttr,
        StringAttr,
        SymbolRefAttr,
        TypeAttr,
        UnitAttr,
        BoolAttr,
        IntegerAttr,
        FloatAttr,
        LocationAttr,
        DenseResourceAttr,
        DenseArrayAttr,
        DenseElementsAttr,
    }
)
_BUILTIN_TYPES = frozenset(
    {
        IntegerType,
        FloatType,
        IndexType,
        NoneType,
        FunctionType,
        ComplexType,
        TupleType,
        TensorType,
    }
)


def _str_key(s: str) -> bytes:
    """How MLIR orders names: by their bytes (StringRef::compare)."""
    return s.encode("utf-8", "surrogateescape")


def _string_attr(r: DialectReader) -> StringAttr:
    a = r.read_attribute()
    if not isinstance(a, StringAttr):
        raise r.error("builtin dialect: expected a string attribute")
    return a


def _loc_attr(r: DialectReader) -> LocationAttr:
    a = r.read_attribute()
    if not isinstance(a, LocationAttr):
        raise r.error("builtin dialect: expected a location attribute")
    return a


def _quote(s: str) -> str:
    from .locations import quote

    return quote(s)


def _type_text(t: Type) -> str:
    from ..printer import print_type

    try:
        return print_type(t)
    except Exception:  # noqa: BLE001 - best-effort text for an error message
        return repr(t)


register_codec(BuiltinCodec())
