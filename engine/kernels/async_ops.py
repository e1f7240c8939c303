"""Asynchronous ops (spec "async_start", "async_done").  The spec lets an
implementation run them synchronously ("the asynchrony is not guaranteed"): async_start
runs its body's one op at once and returns a ``Future`` holding the result;
async_done returns that result."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ...parser.errors import InterpreterError
from ...shape_inference.optable import kernel
from ..values import RegionFn


@dataclass(frozen=True)
class Future:
    """The value of a ``!stablehlo.future<T>``: the completed ``T``."""

    value: Any


@kernel("stablehlo.async_start", quantized="native")
def async_start(*operands, body: RegionFn, result_type, op=None):
    """spec "async_start": the body's op, on the operands (through the block's
    arguments when it has them, else the values it names)."""
    nargs = len(body.region.blocks[0].arguments)
    (value,) = body(*operands) if nargs else body()
    return Future(value)


@kernel("stablehlo.async_done", quantized="native")
def async_done(future, *, result_type, op=None):
    """spec "async_done": the value of the future."""
    if not isinstance(future, Future):
        raise InterpreterError("async_done expects the future of an async_start")
    return future.value
