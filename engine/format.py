"""Printing runtime values the way ``stablehlo-translate --interpret`` does.

``precision="default"`` prints floats as C's ``%e`` (7 significant digits), as the
official tool does; ``precision="full"`` (``hlorun interpret --print-precision=full``)
prints each float as the shortest decimal that reads back (``float(text)`` rounded to
the element type) to the same bits, and a NaN as its bit pattern in hex
(``0x7FC00001``), so printed results can be compared bit for bit.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ..parser.ir import TensorType, TokenType, TupleType, Type
from .element import format_element, is_floating
from .values import Token


def format_type(t: Type) -> str:
    """MLIR type text (``parser.printer.print_type``)."""
    # imported on first use, to keep startup cheap: the printer loads its grammars
    from ..parser.printer import print_type

    return print_type(t)


PRECISIONS = ("default", "full")
_UINT = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}
Formatter = Callable[[Any, np.dtype], str]


def shortest_float(value: Any, dtype: np.dtype) -> str:
    """The shortest ``%e`` decimal that reads back to ``value``'s bits (decimal -> f64 ->
    ``dtype``: rounding twice is exact for every type narrower than f64, as f64 has
    more than 2p+2 significand bits); NaN as its bit pattern in hex."""
    one = np.asarray(value, dtype).reshape(1)
    bits = one.view(_UINT[dtype.itemsize])[0]
    f = float(one[0])
    if np.isnan(f):
        return f"0x{int(bits):0{dtype.itemsize * 2}X}"
    if np.isinf(f):
        return "inf" if f > 0 else "-inf"
    for digits in range(17):
        text = f"{f:.{digits}e}"
        back = np.asarray(float(text)).astype(dtype).reshape(1).view(_UINT[dtype.itemsize])[0]
        if back == bits:
            return text
    return f"{f:.16e}"  # unreachable: 17 significant digits identify every f64


def format_full(value: Any, dtype: np.dtype) -> str:
    """One element for ``--print-precision=full``."""
    if dtype.kind == "c":  # a 0-d complex: (re, im), as format_element prints it
        part = np.dtype(np.float32 if dtype.itemsize == 8 else np.float64)
        return f"({shortest_float(value.real, part)}, {shortest_float(value.imag, part)})"
    if dtype != np.bool_ and is_floating(dtype):
        return shortest_float(value, dtype)
    return format_element(value, dtype)


def _elements_1d(a: np.ndarray, fmt: Formatter) -> list[str]:
    if a.dtype.kind == "c":  # a complex element prints as [re, im]
        part = np.dtype(np.float32 if a.dtype.itemsize == 8 else np.float64)
        return [f"[{fmt(a[i].real, part)}, {fmt(a[i].imag, part)}]" for i in range(a.shape[0])]
    return [fmt(a[i], a.dtype) for i in range(a.shape[0])]


def _rows(a: np.ndarray, indent: int, fmt: Formatter) -> str:
    pad = "  " * indent
    if a.ndim == 1 or a.shape[0] == 0:
        return pad + "[" + ", ".join(_elements_1d(a, fmt) if a.ndim == 1 else []) + "]"
    inner = ",\n".join(_rows(a[i], indent + 1, fmt) for i in range(a.shape[0]))
    return f"{pad}[\n{inner}\n{pad}]"


def format_value(value: Any, t: Type | None, precision: str = "default") -> str:
    """``tensor<2xi32> {\\n  [0, 1]\\n}``; a 0-d tensor as ``tensor<ui8> {1}``."""
    fmt: Formatter = format_full if precision == "full" else format_element
    if isinstance(value, Token) or isinstance(t, TokenType):
        return "!stablehlo.token"
    if isinstance(value, tuple):
        types = t.types if isinstance(t, TupleType) else (None,) * len(value)
        return "(" + ", ".join(format_value(v, s, precision) for v, s in zip(value, types)) + ")"
    a = np.asarray(value)
    head = format_type(t) if isinstance(t, TensorType) else f"array<{a.shape}, {a.dtype}>"
    if a.ndim == 0:
        return f"{head} {{{fmt(a[()], a.dtype)}}}"
    return f"{head} {{\n{_rows(a, 1, fmt)}\n}}"
