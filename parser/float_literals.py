"""Float literals that need no float format tables: Python's shortest exact decimal with
the ``.`` MLIR's lexer wants, and quantization scales as ``!quant.uniform`` prints them
(QuantOps' ``printQuantParams``: ``%e`` when that is exact).  A leaf module: ir.py spells
types with it, number_text.py prints attributes with it."""

from __future__ import annotations

import math
import struct


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
        bits = struct.unpack("<Q", struct.pack("<d", x))[0]
        return f"0x{bits:016X}"
    s = f"{x:e}"
    return s if float(s) == x else decimal_literal(x)
