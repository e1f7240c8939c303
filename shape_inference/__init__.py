"""shape_inference: a shape function / verifier for every op, run before dispatch.

Importing this package registers every family's rows in the op table.
"""

from . import (  # noqa: F401  (imported for their registrations)
    check,
    chlo,
    collective,
    control_flow,
    conversion,
    elementwise,
    linalg,
    movement,
    quantization,
    random,
    reduction,
)
from .optable import OP_TABLE, REQUIRED, OpDef, ShapeContext, define_op, kernel, shape_function

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


def verify_module(module) -> None:
    """Verify every function of ``module``; raise the first ``VerificationError``."""
    from .verifier import verify_module as _verify

    _verify(module)
