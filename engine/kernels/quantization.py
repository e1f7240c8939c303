"""Quantization kernels (spec "uniform_quantize", "uniform_dequantize", and
"Execution semantics of quantized operations")."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from parser.errors import UnsupportedError
from parser.ir import Operation
from shape_inference.optable import OpDef


def quantized_kernel(op: Operation, row: OpDef, kernel: Callable[..., Any]) -> Callable[..., Any]:
    """The kernel to run for ``op`` when it has quantized operands or results."""
    if row.kernel_options.get("quantized"):
        return kernel
    raise UnsupportedError(
        f"op '{op.name}' on quantized tensors is not supported yet", op.pos, op=op.name
    )
