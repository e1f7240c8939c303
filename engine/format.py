"""Printing runtime values the way ``stablehlo-translate --interpret`` does."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..parser.ir import TensorType, TokenType, TupleType, Type
from ..parser.printer import print_type as format_type
from .element import format_element
from .values import Token


def _elements_1d(a: np.ndarray) -> list[str]:
    if a.dtype.kind == "c":  # a complex element prints as [re, im]
        part = np.dtype(np.float32 if a.dtype.itemsize == 8 else np.float64)
        return [
            f"[{format_element(a[i].real, part)}, {format_element(a[i].imag, part)}]"
            for i in range(a.shape[0])
        ]
    return [format_element(a[i], a.dtype) for i in range(a.shape[0])]


def _rows(a: np.ndarray, indent: int) -> str:
    pad = "  " * indent
    if a.ndim == 1 or a.shape[0] == 0:
        return pad + "[" + ", ".join(_elements_1d(a) if a.ndim == 1 else []) + "]"
    inner = ",\n".join(_rows(a[i], indent + 1) for i in range(a.shape[0]))
    return f"{pad}[\n{inner}\n{pad}]"


def format_value(value: Any, t: Type | None) -> str:
    """``tensor<2xi32> {\\n  [0, 1]\\n}``; a 0-d tensor as ``tensor<ui8> {1}``."""
    if isinstance(value, Token) or isinstance(t, TokenType):
        return "!stablehlo.token"
    if isinstance(value, tuple):
        types = t.types if isinstance(t, TupleType) else (None,) * len(value)
        return "(" + ", ".join(format_value(v, s) for v, s in zip(value, types)) + ")"
    a = np.asarray(value)
    head = format_type(t) if isinstance(t, TensorType) else f"array<{a.shape}, {a.dtype}>"
    if a.ndim == 0:
        return f"{head} {{{format_element(a[()], a.dtype)}}}"
    return f"{head} {{\n{_rows(a, 1)}\n}}"
