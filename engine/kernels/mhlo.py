"""Kernels of the mhlo ops producers leave in their StableHLO (shape_inference/mhlo.py),
and of their custom-call form ``stablehlo.custom_call @mhlo.<op>`` (``call_op``).

Semantics from the HLO instruction each op stands for (xla/hlo docs, "operation
semantics"); where hlorun already has the math (chlo.erf), the kernel is that one.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ...parser.ir import TensorType
from ...shape_inference.mhlo import call_attributes
from ...shape_inference.optable import OpDef, ShapeContext, kernel
from .chlo import ERF


def _copy_fast(op: Any, rt: Any, dt: np.dtype, kwargs: dict[str, Any]) -> Any:
    """mhlo.copy of a tensor of rank >= 1 (TensorFlow's RNN loop bodies copy each
    step): the kernel's copy, without its closure."""
    if not (isinstance(rt, TensorType) and rt.shape and op.operands[0].type == rt):
        return None
    return lambda a: a.copy()


@kernel("mhlo.copy", fast_plan=_copy_fast, quantized="native")
def copy(operand: Any, *, result_type: Any, cross_program_prefetch_index: Any = None) -> Any:
    """mhlo.copy (HLO kCopy): the operand's value (a tensor, or a tuple of them)."""
    if isinstance(operand, np.ndarray):
        return operand.copy()
    return operand


@kernel("mhlo.erf")
def erf(operand: np.ndarray, *, result_type: Any) -> np.ndarray:
    """mhlo.erf (HLO kErf): the error function, by chlo.erf's kernel."""
    assert ERF.kernel is not None
    return ERF.kernel(operand, result_type=result_type)


def call_op(
    row: OpDef,
    operands: Sequence[Any],
    *,
    result_types: Sequence[Any],
    attributes: Any,
    context: Any,
    operand_types: Any,
) -> Any:
    """Run ``custom_call @mhlo.<op>`` as the op of ``row``: its kernel, with the
    attributes of ``mhlo.attributes`` decoded as the op's own."""
    kwargs = call_attributes(ShapeContext(row.name), row, attributes)
    options = row.kernel_options
    if options.get("context"):
        kwargs["context"] = context
    if options.get("operand_types"):
        kwargs["operand_types"] = operand_types
    if row.multi_result:
        kwargs["result_types"] = tuple(result_types)
    else:
        kwargs["result_type"] = result_types[0]
    assert row.kernel is not None
    return row.kernel(*operands, **kwargs)
