"""Element types -> NumPy / ml_dtypes dtypes, and facts about them."""

from __future__ import annotations

from functools import cache
from typing import cast

import numpy as np

from ..parser.errors import InterpreterError
from ..parser.ir import (
    ComplexType,
    FloatType,
    IntegerType,
    QuantizedType,
    TensorType,
    Type,
    numpy_dtype,
)

__all__ = [
    "numpy_dtype",
    "dtype_of",
    "static_shape",
    "is_float",
    "is_integer",
    "is_bool",
    "is_complex",
]


@cache
def dtype_of(t: Type) -> np.dtype:
    """Cached ``numpy_dtype``: the dtype of a tensor type's (or element type's) values."""
    return numpy_dtype(t)


def static_shape(t: Type) -> tuple[int, ...]:
    """The shape of a statically shaped tensor type (the only kind a kernel's declared
    result can have once the program runs)."""
    if isinstance(t, TensorType) and t.shape is not None and None not in t.shape:
        return cast(tuple[int, ...], t.shape)  # checked just above: no None left
    raise InterpreterError(f"{t}: a statically shaped tensor type is expected")


def element_type(t: Type) -> Type:
    return t.element_type if isinstance(t, TensorType) else t


def is_bool(t: Type) -> bool:
    e = element_type(t)
    return isinstance(e, IntegerType) and e.is_bool


def is_integer(t: Type) -> bool:
    """Integer but not boolean (i1)."""
    e = element_type(t)
    return isinstance(e, IntegerType) and not e.is_bool


def is_float(t: Type) -> bool:
    return isinstance(element_type(t), FloatType)


def is_complex(t: Type) -> bool:
    return isinstance(element_type(t), ComplexType)


def is_quantized(t: Type) -> bool:
    return isinstance(element_type(t), QuantizedType)
