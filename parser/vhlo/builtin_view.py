"""VHLO types seen as builtin types, and TensorV1Attr's raw data.

MLIR prints ``#vhlo.integer_v1`` and ``#vhlo.tensor_v1`` through the builtin
``IntegerAttr`` / ``DenseElementsAttr`` of the VHLO type converted to builtin
(VhloOps.cpp ``convertTypeToBuiltinForPrint``, VhloTypes.cpp
``addVhloToBuiltinConversions``; a tensor keeps its VHLO encoding as is), and parses
them back the other way (``convertTypeToVhloForParse``).

TensorV1Attr's data parameter is MLIR's ``DenseElementsAttr`` raw data: elements
little-endian, each in ``ceil(bits / 8)`` bytes (one byte per ``i1``; complex as
(real, imag)), and a single element when all elements are equal (MLIR's
DenseIntOrFPElementsAttrStorage::getKey turns such a buffer into a splat).
"""

from __future__ import annotations

import numpy as np

from ..attributes import first_element
from ..float_literals import f64_bits, f64_from_bits
from ..ir import (
    ComplexType,
    DenseElementsAttr,
    FloatType,
    FunctionType,
    IndexType,
    IntegerType,
    NoneType,
    QuantizedType,
    TensorType,
    TupleType,
    Type,
)
from .ir import VhloType

DYNAMIC = -(2**63)  # ShapedType::kDynamic

# VhloTypes.cpp addVhloToBuiltinConversions, for the parameterless VHLO types.
SCALAR_TO_BUILTIN: dict[str, Type] = {
    "bool_v1": IntegerType(1),
    **{f"i{w}_v1": IntegerType(w) for w in (2, 4, 8, 16, 32, 64)},
    **{f"ui{w}_v1": IntegerType(w, "unsigned") for w in (2, 4, 8, 16, 32, 64)},
    "bf16_v1": FloatType("bf16"),
    "f16_v1": FloatType("f16"),
    "f32_v1": FloatType("f32"),
    "f64_v1": FloatType("f64"),
    "f4E2M1FN_v1": FloatType("f4E2M1FN"),
    "f6E2M3FN_v1": FloatType("f6E2M3FN"),
    "f6E3M2FN_v1": FloatType("f6E3M2FN"),
    "f8E3M4_v1": FloatType("f8E3M4"),
    "f8E4M3_v1": FloatType("f8E4M3"),
    "f8E4M3FN_v1": FloatType("f8E4M3FN"),
    "f8E5M2_v1": FloatType("f8E5M2"),
    "f8E4M3FNUZ_v1": FloatType("f8E4M3FNUZ"),
    "f8E4M3B11FNUZ_v1": FloatType("f8E4M3B11FNUZ"),
    "f8E5M2FNUZ_v1": FloatType("f8E5M2FNUZ"),
    "f8E8M0FNU_v1": FloatType("f8E8M0FNU"),
    "tf31_v1": FloatType("tf32"),
    "index_v1": IndexType(),
    "none_v1": NoneType(),
}
_FLOAT_TO_VHLO = {t.name: k for k, t in SCALAR_TO_BUILTIN.items() if isinstance(t, FloatType)}


def _dim_in(d: int) -> int | None:
    return None if d == DYNAMIC else d


def _dim_out(d: int | None) -> int:
    return DYNAMIC if d is None else d


def _default_range(t: Type, signed: bool) -> tuple[int, int] | None:
    if not isinstance(t, IntegerType):
        return None
    if signed:
        return -(1 << (t.width - 1)), (1 << (t.width - 1)) - 1
    return 0, (1 << t.width) - 1


def _quant(t: VhloType) -> QuantizedType:
    """quant_v1 / quant_per_axis_v1 as ``!quant.uniform`` (flags bit 0 = signed)."""
    p = t.params
    flags, storage, expressed = p[0], to_builtin(p[1]), to_builtin(p[2])
    signed = bool(flags & 1)
    if not isinstance(storage, IntegerType):
        raise ValueError(f"!vhlo.{t.name} needs an integer storage type, got {storage}")
    if not signed:
        storage = IntegerType(storage.width, "unsigned")
    scales: tuple[float, ...]
    if t.name == "quant_v1":
        scales, zps, axis, lo, hi = (f64_from_bits(p[3]),), (p[4],), None, p[5], p[6]
    else:
        scales = tuple(f64_from_bits(b) for b in p[4])
        zps, axis, lo, hi = tuple(p[5]), p[3], p[6], p[7]
    if _default_range(storage, signed) == (lo, hi):
        lo = hi = None
    return QuantizedType(storage, expressed, scales, zps, axis, lo, hi)


def to_builtin(t: Type) -> Type:
    """The builtin type MLIR prints a VHLO type as (non-VHLO types unchanged)."""
    if not isinstance(t, VhloType):
        return t
    hit = SCALAR_TO_BUILTIN.get(t.name)
    if hit is not None:
        return hit
    p = t.params
    if t.name == "tensor_v1":
        return TensorType(tuple(_dim_in(d) for d in p[0]), to_builtin(p[1]), p[2])
    if t.name == "unranked_tensor_v1":
        return TensorType(None, to_builtin(p[0]))
    if t.name == "complex_v1":
        return ComplexType(to_builtin(p[0]))
    if t.name in ("quant_v1", "quant_per_axis_v1"):
        return _quant(t)
    if t.name == "tuple_v1":
        return TupleType(tuple(to_builtin(e) for e in p[0]))
    if t.name == "func_v1":
        return FunctionType(tuple(map(to_builtin, p[0])), tuple(map(to_builtin, p[1])))
    raise ValueError(f"!vhlo.{t.name} has no builtin counterpart here")


def to_vhlo(t: Type) -> Type:
    """The VHLO type of a builtin type (VhloOps.cpp convertTypeToVhloForParse)."""
    if isinstance(t, VhloType):
        return t
    if isinstance(t, IntegerType):
        if t.width == 1 and t.signedness != "unsigned":
            return VhloType("bool_v1")
        name = f"{'ui' if t.is_unsigned else 'i'}{t.width}_v1"
        if name not in SCALAR_TO_BUILTIN:
            raise ValueError(f"no VHLO type for {t}")
        return VhloType(name)
    if isinstance(t, FloatType):
        if t.name not in _FLOAT_TO_VHLO:
            raise ValueError(f"no VHLO type for {t}")
        return VhloType(_FLOAT_TO_VHLO[t.name])
    if isinstance(t, IndexType):
        return VhloType("index_v1")
    if isinstance(t, NoneType):
        return VhloType("none_v1")
    if isinstance(t, ComplexType):
        return VhloType("complex_v1", (to_vhlo(t.element_type),))
    if isinstance(t, TensorType):
        if t.shape is None:
            return VhloType("unranked_tensor_v1", (to_vhlo(t.element_type),))
        shape = tuple(_dim_out(d) for d in t.shape)
        return VhloType("tensor_v1", (shape, to_vhlo(t.element_type), t.encoding))
    if isinstance(t, QuantizedType):
        return _quant_to_vhlo(t)
    raise ValueError(f"no VHLO type for {t!r}")


def _quant_to_vhlo(t: QuantizedType) -> VhloType:
    st = t.storage_type
    signed = not (isinstance(st, IntegerType) and st.is_unsigned)
    storage = VhloType(f"i{st.width}_v1") if isinstance(st, IntegerType) else to_vhlo(st)
    lo, hi = t.storage_min, t.storage_max
    if lo is None or hi is None:
        lo, hi = _default_range(st, signed) or (0, 0)
    head = (int(signed), storage, to_vhlo(t.expressed_type))
    if t.quantized_dimension is None:
        return VhloType("quant_v1", (*head, f64_bits(t.scales[0]), t.zero_points[0], lo, hi))
    scales = tuple(f64_bits(s) for s in t.scales)
    return VhloType(
        "quant_per_axis_v1", (*head, t.quantized_dimension, scales, tuple(t.zero_points), lo, hi)
    )


# ---- TensorV1Attr data ------------------------------------------------------------------


def element_nbytes(t: Type) -> int | None:
    """Bytes per element of MLIR's dense storage for builtin element type ``t``."""
    if isinstance(t, QuantizedType):
        t = t.storage_type
    if isinstance(t, IntegerType):
        return (t.width + 7) // 8
    if isinstance(t, IndexType):
        return 8
    if isinstance(t, FloatType):
        from ..bytecode.dialect_api import float_bitwidth

        return (float_bitwidth(t.name) + 7) // 8
    if isinstance(t, ComplexType):
        inner = element_nbytes(t.element_type)
        return None if inner is None else 2 * inner
    return None


def num_elements(shape: tuple[int | None, ...]) -> int | None:
    """Element count of a static shape (None when a dimension is dynamic)."""
    n = 1
    for d in shape:
        if d is None or d < 0:
            return None
        n *= d
    return n


def canonical_data(data: bytes, nbytes: int, n: int) -> bytes:
    """``data`` as MLIR stores it: one element when all ``n`` elements are equal."""
    if n <= 1 or nbytes <= 0 or len(data) != n * nbytes:
        return data
    rows = np.frombuffer(data, dtype=np.uint8).reshape(n, nbytes)
    if not (rows[:64] == rows[0]).all():  # cheap early out for non-splat data
        return data
    if bool((rows == rows[0]).all()):
        return data[:nbytes]
    return data


def tensor_type_info(t: Type) -> tuple[TensorType, int, int] | None:
    """(builtin tensor type, bytes per element, element count) of a static tensor_v1."""
    if not (isinstance(t, VhloType) and t.name == "tensor_v1"):
        return None
    bt = to_builtin(t)
    assert isinstance(bt, TensorType)
    nb = element_nbytes(bt.element_type)
    n = num_elements(t.params[0])
    if nb is None or n is None:
        return None
    return bt, nb, n


def dense_from_data(t: VhloType, data: bytes) -> DenseElementsAttr:
    """The DenseElementsAttr MLIR prints inside ``#vhlo.tensor_v1<...>``."""
    from ..attributes import decode_raw_data

    bt = to_builtin(t)
    if not isinstance(bt, TensorType):
        raise ValueError(f"#vhlo.tensor_v1 needs a tensor type, got !vhlo.{t.name}")
    if bt.element_type == FloatType("tf32"):
        return DenseElementsAttr(bt, _tf32_array(data, bt), False)
    return DenseElementsAttr(bt, decode_raw_data(data, bt), False)


def _tf32_array(data: bytes, bt: TensorType) -> np.ndarray:
    """tf32 raw data: 3 little-endian bytes per element holding the 19-bit pattern
    (hlorun keeps tf32 values in float32 storage: the pattern shifted left by 13)."""
    shape = bt.shape
    n = num_elements(shape or ())
    if n is None or len(data) % 3 or len(data) // 3 not in (n, 1):
        raise ValueError(f"{len(data)} bytes of tf32 data do not fit {n} elements")
    b = np.frombuffer(data, dtype=np.uint8).reshape(-1, 3).astype(np.uint32)
    bits = (b[:, 0] | (b[:, 1] << 8) | (b[:, 2] << 16)) << 13
    arr = bits.view(np.float32)
    if arr.size != n:
        arr = np.broadcast_to(arr, (n,))
    out = np.ascontiguousarray(arr)
    if shape is None:  # unranked: the flat elements
        return out
    return out.reshape([d for d in shape if d is not None])  # n is not None: all static


def data_from_dense(d: DenseElementsAttr) -> bytes:
    """The canonical raw data of a builtin DenseElementsAttr."""
    from ..number_text import raw_data

    elem = d.type.element_type
    if d.array.size == 0:
        return b""
    if d.array.size > 1 and d.is_splat:  # one element (a lazy splat never materializes)
        return raw_data(first_element(d.array), elem)
    raw = raw_data(d.array, elem)
    nb = element_nbytes(elem)
    return canonical_data(raw, nb or 0, int(d.array.size))
