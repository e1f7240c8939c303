"""Float literals that need no float format tables: Python's shortest exact decimal with
the ``.`` MLIR's lexer wants, and quantization scales as ``!quant.uniform`` prints them
(QuantOps' ``printQuantParams``: ``%e`` when that is exact).  A leaf module: ir.py spells
types with it, number_text.py prints attributes with it."""

from __future__ import annotations

import math
import struct


def f64_bits(x: float) -> int:
    """The IEEE double bit pattern of ``x``."""
    return struct.unpack("<Q", struct.pack("<d", x))[0]


def f64_from_bits(bits: int) -> float:
    """The IEEE double whose bit pattern is ``bits`` (its low 64 bits)."""
    return struct.unpack("<d", struct.pack("<Q", bits & (2**64 - 1)))[0]


def decimal_literal(x: float) -> str:
    """Python's shortest exact decimal for ``x``, with the ``.`` MLIR's lexer wants."""
    s = repr(float(x))
    if "." in s:
        return s
    return s.replace("e", ".0e", 1) if "e" in s else s + ".0"


def scale_literal(x: float) -> str:
    """A quantization scale: ``%e`` like MLIR when that is exact, else enough digits;
    NaN and infinities as the f64 bit pattern ``0x7FF8000000000000`` (MLIR's
    ``parseFloat`` reads a hexadecimal literal so; its ``nan`` / ``inf`` do not parse)."""
    if not math.isfinite(x):
        return f"0x{f64_bits(x):016X}"
    s = f"{x:e}"
    return s if float(s) == x else decimal_literal(x)
