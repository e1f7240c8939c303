"""Element types of the property tests, and arrays <-> per-element Python values.

A float element is handled as its bit pattern (a Python int), a complex element as the
pair of its parts' bit patterns, an integer as its Python int value, a boolean as a
Python bool.  Arrays are built and read through NumPy views of their storage only.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from hlorun.parser.ir import ComplexType, FloatType, IntegerType, TensorType, Type, numpy_dtype

from .formats import FORMATS, FloatFormat

_UINT = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}


@dataclass(frozen=True)
class ET:
    """An element type: kind "bool" | "int" | "float" | "complex"."""

    kind: str
    ir: Type
    width: int = 1
    signed: bool = False
    fmt: FloatFormat | None = None  # floats, and the part format of complex types

    @property
    def name(self) -> str:
        return str(self.ir) if not isinstance(self.ir, ComplexType) else f"complex<{self.fmt.name}>"

    @property
    def dtype(self) -> np.dtype:
        return np.dtype(numpy_dtype(self.ir))

    def tensor(self, shape) -> TensorType:
        return TensorType(tuple(shape), self.ir)

    @property
    def min(self) -> int:
        return -(1 << (self.width - 1)) if self.signed else 0

    @property
    def max(self) -> int:
        return (1 << (self.width - 1)) - 1 if self.signed else (1 << self.width) - 1

    def wrap(self, v: int) -> int:
        """Two's-complement wraparound of a Python int into this integer type."""
        m = v & ((1 << self.width) - 1)
        if self.signed and m >= 1 << (self.width - 1):
            m -= 1 << self.width
        return m

    def __repr__(self) -> str:
        return self.name


BOOL = ET("bool", IntegerType(1))
SINTS = tuple(ET("int", IntegerType(w), w, True) for w in (2, 4, 8, 16, 32, 64))
UINTS = tuple(ET("int", IntegerType(w, "unsigned"), w, False) for w in (2, 4, 8, 16, 32, 64))
FLOATS = tuple(ET("float", FloatType(n), f.nbits, True, f) for n, f in FORMATS.items())
COMPLEXES = tuple(
    ET("complex", ComplexType(FloatType(n)), 2 * FORMATS[n].nbits, True, FORMATS[n])
    for n in ("f32", "f64")
)
ALL = (BOOL, *SINTS, *UINTS, *FLOATS, *COMPLEXES)
BY_NAME = {t.name: t for t in ALL}
F32 = BY_NAME["f32"]
F64 = BY_NAME["f64"]


def part_type(t: ET) -> ET:
    """The float type of a complex type's parts."""
    return BY_NAME[t.fmt.name]


# ---------------------------------------------------------------------------------------
# Arrays
# ---------------------------------------------------------------------------------------


def _float_storage_bits(arr: np.ndarray, fmt: FloatFormat) -> list[int]:
    u = np.ascontiguousarray(arr).reshape(-1).view(_UINT[arr.dtype.itemsize])
    mask = (1 << fmt.nbits) - 1
    return [(int(b) >> fmt.storage_shift) & mask for b in u]


def to_elems(arr: np.ndarray, t: ET) -> list:
    """The elements of ``arr`` (row-major) as Python values (see the module doc)."""
    arr = np.asarray(arr)
    if t.kind == "bool":
        return [bool(v) for v in arr.reshape(-1)]
    if t.kind == "int":
        return [int(v) for v in arr.reshape(-1)]
    if t.kind == "float":
        return _float_storage_bits(arr, t.fmt)
    re = _float_storage_bits(np.ascontiguousarray(arr.real), t.fmt)
    im = _float_storage_bits(np.ascontiguousarray(arr.imag), t.fmt)
    return list(zip(re, im))


def _float_array(bits: list[int], fmt: FloatFormat, dtype: np.dtype) -> np.ndarray:
    u = np.array([b << fmt.storage_shift for b in bits], dtype=_UINT[dtype.itemsize])
    return u.view(dtype)


def from_elems(values: list, shape: tuple[int, ...], t: ET) -> np.ndarray:
    """An array of type ``t`` and ``shape`` from Python element values."""
    dt = t.dtype
    if t.kind == "bool":
        return np.array(values, dtype=np.bool_).reshape(shape)
    if t.kind == "int":
        return np.array(values, dtype=dt).reshape(shape)
    if t.kind == "float":
        return _float_array(list(values), t.fmt, dt).reshape(shape)
    part = np.dtype(np.float32 if dt == np.complex64 else np.float64)
    out = np.zeros(len(values), dtype=dt)
    out.real = _float_array([v[0] for v in values], t.fmt, part)
    out.imag = _float_array([v[1] for v in values], t.fmt, part)
    return out.reshape(shape)


# ---------------------------------------------------------------------------------------
# StableHLO text (for reproducers)
# ---------------------------------------------------------------------------------------


def literal(v, t: ET) -> str:
    """One element as a StableHLO dense literal (floats as exact hex bit patterns)."""
    if t.kind == "bool":
        return "true" if v else "false"
    if t.kind == "int":
        return str(v)
    if t.kind == "float":
        return _hex(v, t.fmt)
    return f"({_hex(v[0], t.fmt)}, {_hex(v[1], t.fmt)})"


def _hex(bits: int, fmt: FloatFormat) -> str:
    """MLIR's hexadecimal float literal: the format's own bit pattern (19 bits for tf32)."""
    return f"0x{bits:0{max(1, (fmt.nbits + 3) // 4)}X}"


def dense(values: list, shape: tuple[int, ...], t: ET) -> str:
    """``dense<...>`` text of a tensor of ``shape`` holding ``values`` (row-major)."""
    lits = [literal(v, t) for v in values]
    if not shape:
        return f"dense<{lits[0]}>"
    if 0 in shape:
        return "dense<>"

    def nest(flat: list[str], dims: tuple[int, ...]) -> str:
        if len(dims) == 1:
            return "[" + ", ".join(flat) + "]"
        step = len(flat) // dims[0]
        return (
            "["
            + ", ".join(nest(flat[i * step : (i + 1) * step], dims[1:]) for i in range(dims[0]))
            + "]"
        )

    return f"dense<{nest(lits, shape)}>"


def tensor_text(shape: tuple[int, ...], t: ET) -> str:
    dims = "".join(f"{d}x" for d in shape)
    return f"tensor<{dims}{t.name}>"
