"""The first stage of the pipeline: a ``Module`` from what a user holds, and the entry
function and arguments it is run with.

``load_module`` takes MLIR text, bytes (MLIR bytecode, a portable artifact, or UTF-8
text), a path to either, or a parsed ``Module``.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from .. import parser
from ..parser.errors import InterpreterError, ParseError
from ..parser.ir import Function, IntegerAttr, Module, TensorType, TokenType, Type, numpy_dtype
from .gspmd import is_gspmd_global
from .values import TOKEN, Token

_PROGRAM_SUFFIXES = (".mlir", ".mlirbc", ".bc")


def load_module(module: str | bytes | os.PathLike | Module) -> Module:
    """A Module from a Module, a path to a .mlir / bytecode file, MLIR text or bytes."""
    if isinstance(module, Module):
        return module
    if isinstance(module, os.PathLike):
        return load_path(Path(module))
    if isinstance(module, str):
        if looks_like_path(module):
            if os.path.exists(module):
                return load_path(Path(module))
            if module.endswith(_PROGRAM_SUFFIXES):
                raise ParseError(f"no such file: {module}")
        return parser.parse_module(module)
    if isinstance(module, bytes | bytearray | memoryview):
        return load_bytes(bytes(module), "<bytes>")
    raise TypeError(
        f"module must be MLIR text, bytes, a path or a parsed Module, not {type(module).__name__}"
    )


def looks_like_path(text: str) -> bool:
    """A one-line string that is not program text (text always has a ``{`` or a newline)."""
    return "\n" not in text and "{" not in text


def load_path(path: Path) -> Module:
    try:
        data = path.read_bytes()
    except OSError as e:
        raise ParseError(f"{path}: cannot read: {e.strerror or e}") from e
    return load_bytes(data, str(path))


def load_bytes(data: bytes, filename: str) -> Module:
    """MLIR bytecode (by its magic) or UTF-8 MLIR text (``parser.parse_module``)."""
    return parser.parse_module(data, filename)


def entry_function(module: Module, name: str | None = None) -> Function:
    """``name``, else ``main``, else the only function of the module."""
    funcs = module.functions
    if name is not None:
        if name not in funcs:
            raise InterpreterError(f"no function named @{name} in the module", module.pos)
        return funcs[name]
    if "main" in funcs:
        return funcs["main"]
    if len(funcs) == 1:
        return next(iter(funcs.values()))
    if not funcs:
        raise InterpreterError("the module has no function to run", module.pos)
    raise InterpreterError(
        f"the module has {len(funcs)} functions and none is @main: name the entry function",
        module.pos,
    )


def _has_sdy_mesh(mod: Module) -> bool:
    return any(getattr(item, "name", None) == "sdy.mesh" for item in mod.body)


def grid_size(mod: Module, attr: str, given: int | None) -> int:
    """``given``, else the module attribute ``attr`` (``mhlo.num_replicas = 2 : i32``), else 1.

    A module declaring a Shardy mesh (``sdy.mesh``) is a global program, not yet
    partitioned: its ``mhlo.num_partitions`` names the devices it will be split over,
    and it runs as one process (its ``sdy.manual_computation`` bodies run per device).
    So does a GSPMD global program (engine/gspmd.py), its manual regions per device."""
    if given is None and attr == "mhlo.num_partitions":
        if _has_sdy_mesh(mod) or is_gspmd_global(mod):
            given = 1
    if given is None:
        a = mod.attr(attr)
        given = a.value if isinstance(a, IntegerAttr) else 1
    if not isinstance(given, int) or given < 1:
        raise InterpreterError(f"{attr.split('.')[-1]} must be a positive integer, got {given!r}")
    return given


def check_input(i: int, value: Any, t: Type, fn: Function) -> Any:
    """``value`` as the array (or token) argument #i of ``fn`` takes, or an error naming
    what is wrong with it."""
    if isinstance(t, TokenType):
        if value is None or isinstance(value, Token):
            return TOKEN
        raise InterpreterError(f"argument #{i} of @{fn.name} must be a token", fn.pos)
    if not isinstance(t, TensorType):
        return value
    want = numpy_dtype(t)
    if not isinstance(value, np.ndarray):
        if isinstance(value, np.generic):
            value = np.asarray(value)
        elif isinstance(value, bool | int | float | complex):
            try:
                value = np.asarray(value, dtype=want)
            except (OverflowError, ValueError) as e:
                raise InterpreterError(
                    f"argument #{i} of @{fn.name}: {value!r} does not fit {t.element_type}", fn.pos
                ) from e
        else:
            raise InterpreterError(
                f"argument #{i} of @{fn.name} must be a NumPy array, not {type(value).__name__}",
                fn.pos,
            )
    if value.dtype != want:
        raise InterpreterError(
            f"argument #{i} of @{fn.name} has dtype {value.dtype}, expected {want} "
            f"for element type {t.element_type}",
            fn.pos,
        )
    shape = t.shape
    if shape is not None and (
        len(shape) != value.ndim
        or any(d is not None and d != s for d, s in zip(shape, value.shape))
    ):
        dims = "x".join("?" if d is None else str(d) for d in shape)
        raise InterpreterError(
            f"argument #{i} of @{fn.name} has shape {value.shape}, expected {dims or 'a scalar'}",
            fn.pos,
        )
    return value


def check_inputs(fn: Function, inputs: Sequence[Any]) -> list[Any]:
    """``inputs`` as the arrays ``fn`` takes (Python scalars converted), or an error
    naming the argument whose count, dtype or shape is wrong."""
    arg_types = fn.type.inputs
    if len(inputs) != len(arg_types):
        raise InterpreterError(
            f"@{fn.name} takes {len(arg_types)} arguments, got {len(inputs)}", fn.pos
        )
    return [check_input(i, v, t, fn) for i, (v, t) in enumerate(zip(inputs, arg_types))]
