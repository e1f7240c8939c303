"""Dense element data <-> NumPy, in MLIR's raw storage layout (vectorized, no loops).

Layout facts from llvm-project ``mlir/lib/IR/BuiltinAttributes.cpp``
(``getDenseElementStorageWidth``: i1 takes a byte, other widths round up to whole
bytes; a splat stores one element; complex stores (re, im) pairs) and
``BuiltinDialectBytecode.cpp`` (i1 data packed 8 per byte in bytecode, 0xFF = true
splat).  Data is little-endian (the byte order of the hosts MLIR writes on).
"""

from __future__ import annotations

import math

import numpy as np

from ..attributes import first_element
from ..ir import ComplexType, FloatType, IndexType, IntegerType, TensorType, Type, numpy_dtype

_UINT = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}
_I1 = IntegerType(1)


def _storage(elem: Type) -> tuple[np.dtype, int]:
    """(NumPy dtype of the IR's array, bytes per element in MLIR's raw storage)."""
    dt = numpy_dtype(elem)
    if isinstance(elem, IntegerType):
        return dt, 1 if elem.width == 1 else (elem.width + 7) // 8
    if isinstance(elem, FloatType):
        bits = {"tf32": 19}.get(elem.name, dt.itemsize * 8)
        if elem.name.startswith(("f4E", "f6E")):  # f4E2M1FN, f6E2M3FN, f6E3M2FN (not f64)
            bits = 8
        return dt, (bits + 7) // 8
    if isinstance(elem, ComplexType):
        return dt, dt.itemsize
    if isinstance(elem, IndexType):
        return dt, 8
    raise TypeError(f"no dense storage for element type {elem!r}")


def _from_bytes(elem: Type, raw: np.ndarray, dt: np.dtype, esize: int) -> np.ndarray:
    """Decode ``raw`` (uint8, a multiple of ``esize`` bytes) into ``dt`` values."""
    if isinstance(elem, IntegerType) and elem.width < 8:
        if elem.width == 1:
            return raw != 0
        shift = 8 - elem.width
        if elem.signedness == "unsigned":
            return (raw & ((1 << elem.width) - 1)).astype(dt)
        return ((raw.view(np.int8) << shift) >> shift).astype(dt)
    if isinstance(elem, FloatType) and elem.name == "tf32":
        b = raw.reshape(-1, 3).astype(np.uint32)
        bits = b[:, 0] | (b[:, 1] << 8) | (b[:, 2] << 16)
        return (bits << 13).view(np.float32)
    if esize == dt.itemsize:
        return raw.view(dt.newbyteorder("<")).astype(dt, copy=False)
    raise TypeError(f"unsupported dense element type {elem!r}")


def _to_bytes(elem: Type, arr: np.ndarray, dt: np.dtype, esize: int) -> bytes | memoryview:
    flat = np.ascontiguousarray(arr, dtype=dt).reshape(-1)
    if isinstance(elem, IntegerType) and elem.width < 8:
        if elem.width == 1:
            return flat.astype(np.uint8).tobytes()
        return (flat.astype(np.int8).view(np.uint8) & ((1 << elem.width) - 1)).tobytes()
    if isinstance(elem, FloatType) and elem.name == "tf32":
        bits = flat.astype(np.float32).view(np.uint32) >> 13
        out = np.stack([bits & 0xFF, (bits >> 8) & 0xFF, (bits >> 16) & 0xFF], axis=1)
        return out.astype(np.uint8).tobytes()
    if esize == dt.itemsize:
        le = np.ascontiguousarray(flat.astype(dt.newbyteorder("<"), copy=False))
        return le.view(np.uint8).data  # no copy: the emitter keeps it as a part
    raise TypeError(f"unsupported dense element type {elem!r}")


def array_from_raw(t: TensorType, blob) -> np.ndarray:
    """The read-only array of a DenseIntOrFPElementsAttr's bytecode blob."""
    elem = t.element_type
    dt, esize = _storage(elem)
    shape = _static_shape(t)
    n = math.prod(shape)
    raw = np.frombuffer(blob, dtype=np.uint8)
    if isinstance(elem, IntegerType) and elem.width == 1:
        if len(raw) == 1 and raw[0] == 0xFF:
            raw, splat = np.ones(1, np.uint8), True
        elif len(raw) == (n + 7) // 8 and len(raw) != n:
            raw, splat = np.unpackbits(raw, bitorder="little")[:n], False
        else:
            splat = len(raw) == 1 and n != 1
    else:
        splat = len(raw) == esize and n != 1
    if not splat and len(raw) != n * esize:
        raise ValueError(f"{len(raw)} bytes for {n} elements of {esize} bytes")
    vals = _from_bytes(elem, raw, dt, esize)
    if splat:
        arr = np.broadcast_to(vals.reshape(()), shape)
    else:
        arr = vals.reshape(shape)
    arr.flags.writeable = False
    return arr


def empty_splat_from_raw(t: TensorType, blob) -> np.ndarray | None:
    """The element a zero-element tensor's blob holds when it is a splat (one element's
    bytes: MLIR keeps a splat's element whatever the tensor's size), else None."""
    elem = t.element_type
    dt, esize = _storage(elem)
    if math.prod(_static_shape(t)) != 0 or len(blob) != (1 if elem == _I1 else esize):
        return None
    raw = np.frombuffer(blob, dtype=np.uint8)
    if elem == _I1:
        raw = (raw != 0).astype(np.uint8)
    return _from_bytes(elem, raw, dt, esize).reshape(())


def raw_from_array(
    t: TensorType, arr: np.ndarray, empty_splat: np.ndarray | None = None
) -> bytes | memoryview:
    """The bytecode blob of a dense elements attribute (splats store one element, a
    zero-element splat too)."""
    elem = t.element_type
    dt, esize = _storage(elem)
    if empty_splat is not None:
        arr = np.asarray(empty_splat).reshape(1)
        if elem == _I1:
            return b"\xff" if bool(arr[0]) else b"\x00"
        return _to_bytes(elem, arr, dt, esize)
    arr = np.asarray(arr)
    if arr.size > 1 and not any(arr.strides):  # a lazy splat: never materialized
        flat = first_element(arr)
    else:
        flat = arr.reshape(-1)
    if flat.size > 1 and _is_splat(flat):
        flat = flat[:1]
    if isinstance(elem, IntegerType) and elem.width == 1:
        bools = flat.astype(bool)
        if flat.size == 1 and t.shape is not None and _numel(t) != 1:
            return b"\xff" if bools[0] else b"\x00"
        return np.packbits(bools, bitorder="little").tobytes()
    return _to_bytes(elem, flat, dt, esize)


def _numel(t: TensorType) -> int:
    return math.prod(_static_shape(t))


def _static_shape(t: TensorType) -> tuple[int, ...]:
    """The dimensions of a static tensor type (dense data has one element per index)."""
    dims = tuple(d for d in t.shape or () if d is not None)
    if t.shape is None or len(dims) != len(t.shape):
        raise ValueError(f"dense data of a non-static tensor type {t}")
    return dims


def _is_splat(flat: np.ndarray) -> bool:
    """Every element has the first one's bit pattern (a cheap prefix check first)."""
    if flat.strides == (0,):
        return True
    raw = np.ascontiguousarray(flat).view(np.uint8).reshape(flat.size, -1)
    head = raw[:64]
    if not (head == raw[0]).all():
        return False
    return bool((raw == raw[0]).all())


def check_storage(t: TensorType) -> None:
    """Raise TypeError unless dense data of ``t`` has a raw storage layout here."""
    _storage(t.element_type)


def dense_array_values(t: Type, size: int, blob: bytes) -> tuple:
    """The values of a DenseArrayAttr (``array<i64: ...>``) from its raw blob."""
    if isinstance(t, IntegerType) and t.width == 1:
        if len(blob) != size:
            raise ValueError(f"{len(blob)} bytes for {size} i1 values")
        return tuple(bool(b) for b in blob)
    dt, esize = _storage(t)
    if len(blob) != size * esize:
        raise ValueError(f"{len(blob)} bytes for {size} values of {esize} bytes")
    vals = _from_bytes(t, np.frombuffer(blob, np.uint8), dt, esize)
    return tuple(vals.tolist() if not isinstance(t, FloatType) else map(float, vals))


def dense_array_blob(t: Type, values: tuple) -> bytes:
    """The raw blob of a DenseArrayAttr's values."""
    if isinstance(t, IntegerType) and t.width == 1:
        return bytes(1 if v else 0 for v in values)
    dt, esize = _storage(t)
    arr = np.array(values, dtype=dt if not isinstance(t, FloatType) else np.float64)
    return bytes(_to_bytes(t, arr, dt, esize))


def float_from_bits(bits: int, name: str) -> float:
    """The value of an APFloat bit pattern of float type ``name``."""
    if name == "tf32":
        return float(np.array([bits << 13], np.uint32).view(np.float32)[0])
    dt = numpy_dtype(FloatType(name))
    return float(np.array([bits], _UINT[dt.itemsize]).view(dt)[0])


def float_to_bits(value: float, name: str) -> int:
    """The APFloat bit pattern of ``value`` in float type ``name``."""
    if name == "tf32":
        return int(np.array([value], np.float32).view(np.uint32)[0]) >> 13
    dt = numpy_dtype(FloatType(name))
    return int(np.array([value], np.float64).astype(dt).view(_UINT[dt.itemsize])[0])
