"""shape_inference: a shape function / verifier for every op, run before dispatch.

Importing this package registers every family's rows in the op table.
"""

from . import (  # noqa: F401  (imported for their registrations)
    async_ops,
    channels,
    check,
    chlo,
    chlo_structured,
    collective,
    control_flow,
    conversion,
    elementwise,
    gather_scatter,
    linalg,
    movement,
    quantization,
    random,
    reduction,
    sdy,
    slicing,
)
from .optable import OP_TABLE, REQUIRED, OpDef, ShapeContext, define_op, kernel, shape_function
from .verifier import verify_module

__all__ = [
    "OP_TABLE",
    "REQUIRED",
    "OpDef",
    "ShapeContext",
    "define_op",
    "kernel",
    "shape_function",
    "verify_module",
]
