"""``engine.run``: the public entry point."""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from parser import parse_module
from parser.errors import InterpreterError
from parser.ir import Function, Module, TensorType, TokenType, Type, numpy_dtype

from .interpreter import DEFAULT_MEMORY_CAP, Interpreter, Limits
from .values import TOKEN, Token


def load_module(module: str | os.PathLike | Module) -> Module:
    """A Module from a Module, a path to a .mlir file, or MLIR text."""
    if isinstance(module, Module):
        return module
    if isinstance(module, os.PathLike):
        path = Path(module)
        return parse_module(path.read_text(), str(path))
    if isinstance(module, str):
        if "\n" not in module and "{" not in module and os.path.exists(module):
            return parse_module(Path(module).read_text(), module)
        return parse_module(module)
    raise TypeError(f"module must be MLIR text, a path or a parsed Module, not {type(module).__name__}")


def entry_function(module: Module, name: str | None = None) -> Function:
    """``name``, else ``main``, else the only function of the module."""
    funcs = module.functions
    if name is not None:
        if name not in funcs:
            raise InterpreterError(f"no function named @{name} in the module")
        return funcs[name]
    if "main" in funcs:
        return funcs["main"]
    if len(funcs) == 1:
        return next(iter(funcs.values()))
    if not funcs:
        raise InterpreterError("the module has no function to run")
    raise InterpreterError(
        f"the module has {len(funcs)} functions and none is @main: name the entry function"
    )


def _check_input(i: int, value: Any, t: Type, fn: Function) -> Any:
    if isinstance(t, TokenType):
        if value is None or isinstance(value, Token):
            return TOKEN
        raise InterpreterError(f"argument #{i} of @{fn.name} must be a token", fn.pos)
    if isinstance(t, TensorType):
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
    return value


def run(
    module: str | os.PathLike | Module,
    inputs: Sequence[Any] = (),
    *,
    function: str | None = None,
    memory_cap: int = DEFAULT_MEMORY_CAP,
    max_steps: int | None = None,
    timeout: float | None = None,
    float_eq: str = "bitwise",
    probe_dir: str | os.PathLike | None = None,
    callback: Callable[[str, Any, list[Any]], None] | None = None,
    verify: bool = True,
) -> list[Any]:
    """Run a StableHLO program and return its results as NumPy arrays.

    ``module`` is MLIR text, a path or a parsed ``Module``; ``inputs`` are NumPy arrays
    (or Python scalars) of the entry function's argument types; the entry is
    ``function``, else ``main``, else the only function.  ``memory_cap`` bounds the bytes
    of any one tensor; ``max_steps`` / ``timeout`` (seconds) stop runaway programs with
    an ``InterpreterError``.  ``callback(op_name, pos, results)`` sees every op's results.
    """
    mod = load_module(module)
    if verify:
        from shape_inference import verify_module

        verify_module(mod)
    fn = entry_function(mod, function)
    arg_types = fn.type.inputs
    inputs = list(inputs)
    if len(inputs) != len(arg_types):
        raise InterpreterError(
            f"@{fn.name} takes {len(arg_types)} arguments, got {len(inputs)}", fn.pos
        )
    args = [_check_input(i, v, t, fn) for i, (v, t) in enumerate(zip(inputs, arg_types))]
    limits = Limits(memory_cap=memory_cap, max_steps=max_steps, timeout=timeout)
    if timeout is not None:
        limits.deadline = time.monotonic() + timeout
    interp = Interpreter(
        mod,
        limits=limits,
        context={
            "float_eq": float_eq,
            "probe_dir": os.fspath(probe_dir) if probe_dir is not None else None,
            "callback": callback,
        },
    )
    return list(interp.call(fn.name, args))
