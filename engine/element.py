"""The ``Element`` adapter, and the whole-array views the check ops use.

An ``Element`` holds ONE value of any StableHLO element type as its bit pattern plus
its type, and compares bitwise: it is the definition of ``check.expect_eq``'s
equality (spec: bitwise).  The check kernels find mismatches with the equivalent
whole-array ``equal_mask`` and use ``Element`` to report the first one in the type's own
notation; a test keeps the two in agreement.  Nothing in engine/kernels except the
check kernels may import this module (a test enforces it).

Float equality decision: bitwise by default (NaN == NaN of the same payload, +0 != -0),
as the spec's testing notes say; ``mode="ieee"`` gives the official tool's IEEE
equality (NaN never equal, +0 == -0).
"""

from __future__ import annotations

from typing import Any

import ml_dtypes
import numpy as np

_UINT = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}
_INT: dict[int, Any] = {2: np.int16, 4: np.int32, 8: np.int64}


def _float_bits(dtype: np.dtype) -> tuple[int, bool]:
    """(number of bits, has a sign bit) of a floating dtype (NumPy or ml_dtypes)."""
    info = (
        ml_dtypes.finfo(dtype)
        if dtype.kind == "V" or dtype.type.__module__ == "ml_dtypes"
        else np.finfo(dtype)
    )
    return int(info.bits), bool(info.min < 0)


def is_floating(dtype: np.dtype) -> bool:
    if dtype.kind == "f":
        return True
    try:
        ml_dtypes.finfo(dtype)
        return True
    except (ValueError, TypeError):
        return False


def equal_mask(a: np.ndarray, b: np.ndarray, *, mode: str = "bitwise") -> np.ndarray:
    """Elementwise equality: "bitwise" compares bit patterns of floats (and of complex
    parts); "ieee" uses IEEE equality (NaN != NaN, +0 == -0)."""
    dt = a.dtype
    if mode == "ieee" or not (is_floating(dt) or dt.kind == "c"):
        with np.errstate(invalid="ignore"):
            return np.asarray(a == b)
    if dt.kind == "c":
        ra, rb = a.real.copy(), b.real.copy()
        ia, ib = a.imag.copy(), b.imag.copy()
        return equal_mask(ra, rb) & equal_mask(ia, ib)
    u = _UINT[dt.itemsize]
    return (np.ascontiguousarray(a).view(u) == np.ascontiguousarray(b).view(u)).reshape(a.shape)


def first_mismatch(bad: np.ndarray) -> tuple[int, ...]:
    """Index of the first True in row-major order."""
    flat = int(np.argmax(bad.reshape(-1)))
    return tuple(int(i) for i in np.unravel_index(flat, bad.shape)) if bad.ndim else ()


ULP_MAX = np.uint64(0xFFFFFFFFFFFFFFFF)


def ulp_difference(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """check.expect_close's ULP difference as uint64 (ULPDifference of stablehlo/tests/
    CheckOps.cpp): 0 when bitwise equal or both NaN; for two finite values, the
    distance of their magnitudes' bit patterns (their sum across a sign change); when
    either is not finite, 2^64 - 1."""
    shape = a.shape
    a = np.ascontiguousarray(a).reshape(-1)
    b = np.ascontiguousarray(b).reshape(-1)
    bits, signed = _float_bits(a.dtype)
    u = _UINT[a.dtype.itemsize]
    ua = a.view(u).astype(np.uint64)
    ub = b.view(u).astype(np.uint64)
    if bits < 64:
        full = np.uint64((1 << bits) - 1)
        ua, ub = ua & full, ub & full
    sign = np.uint64(1 << (bits - 1) if signed else 1 << bits)  # unsigned: no sign bit
    ma, mb = ua & (sign - np.uint64(1)), ub & (sign - np.uint64(1))
    opposite = (ua & sign) != (ub & sign)
    with np.errstate(invalid="ignore", over="ignore"):
        fa = a.astype(np.float64)
        fb = b.astype(np.float64)
        finite = np.isfinite(fa) & np.isfinite(fb)
        both_nan = np.isnan(fa) & np.isnan(fb)
    d = np.where(opposite, ma + mb, np.where(ma > mb, ma - mb, mb - ma))
    d = np.where(finite, d, ULP_MAX)
    return np.where((ua == ub) | both_nan, np.uint64(0), d).reshape(shape)


def ulp_distance(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """ULP distance of two float arrays of one dtype (docs/test-dialects.md), as float64:
    ``ulp_difference`` (0 when bitwise equal or both NaN; for two finite values, the
    distance of their bit patterns ordered as integers), unbounded (inf) when either
    is not finite."""
    a, b = np.asarray(a), np.asarray(b)
    bits, signed = _float_bits(a.dtype)
    si = _INT.get(a.dtype.itemsize)
    if (
        signed
        and si is not None
        and bits == 8 * a.dtype.itemsize
        and np.isfinite(a).all()
        and np.isfinite(b).all()
    ):
        # finite values of a signed IEEE layout: bit patterns read as sign-magnitude
        # integers, mapped to an order like the floats' (-0 and +0 meet); the same
        # distances as ulp_difference, without its uint64 and float64 passes
        width = 8 * a.dtype.itemsize
        mask = si(np.iinfo(si).max)
        shift = si(width - 1)

        def ordered(x: np.ndarray) -> np.ndarray:
            i = np.ascontiguousarray(x).view(si)
            sign = i >> shift  # -1 where the sign bit is set, else 0
            return (i ^ (sign & mask)) - sign  # -magnitude where negative (-0 -> 0)

        oa, ob = ordered(a), ordered(b)
        if width < 64:  # the difference fits int64: its float conversion is exact
            return np.abs(oa.astype(np.int64) - ob.astype(np.int64)).astype(np.float64)
        with np.errstate(over="ignore"):  # below 2**64: exact in uint64 where int64 wraps
            d = (np.maximum(oa, ob) - np.minimum(oa, ob)).view(np.uint64)
        return d.astype(np.float64)
    d = ulp_difference(a, b)
    return np.where(d == ULP_MAX, np.inf, d.astype(np.float64))


def format_element(value, dtype: np.dtype) -> str:
    """One element in MLIR's notation (ints as-is, floats as %e, bools true/false)."""
    if dtype == np.bool_:
        return "true" if bool(value) else "false"
    if dtype.kind == "c":
        return f"({format_element(value.real, np.dtype(np.float64))}, {format_element(value.imag, np.dtype(np.float64))})"
    if is_floating(dtype):
        f = float(value)
        if np.isnan(f):
            bits = np.asarray(value, dtype).reshape(1).view(_UINT[dtype.itemsize])[0]
            return f"nan (0x{int(bits):0{dtype.itemsize * 2}X})"
        if np.isinf(f):
            return "inf" if f > 0 else "-inf"
        return f"{f:e}"
    return str(int(value))


class Element:
    """One value of an element type (a NumPy / ml_dtypes dtype), compared bitwise."""

    __slots__ = ("dtype", "bits")

    def __init__(self, value, dtype: np.dtype):
        self.dtype = np.dtype(dtype)
        raw = np.asarray(value, self.dtype).reshape(1)
        self.bits = bytes(raw.view(np.uint8))

    @classmethod
    def at(cls, array: np.ndarray, index: tuple[int, ...]) -> Element:
        return cls(array[index], array.dtype)

    @property
    def value(self):
        return np.frombuffer(self.bits, self.dtype)[0]

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Element):
            return NotImplemented
        return self.dtype == other.dtype and self.bits == other.bits

    def __hash__(self) -> int:
        return hash((self.dtype.str, self.bits))

    def ieee_eq(self, other: Element) -> bool:
        with np.errstate(invalid="ignore"):
            return bool(self.value == other.value)

    def __str__(self) -> str:
        return format_element(self.value, self.dtype)

    def __repr__(self) -> str:
        return f"Element({self}, {self.dtype})"
