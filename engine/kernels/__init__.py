"""Whole-tensor kernels, one module per op family (same names as in shape_inference/).

Importing this package fills the kernel column of the op table.
"""

from . import (  # noqa: F401  (imported for their registrations)
    async_ops,
    batch_norm,
    channels,
    check,
    chlo,
    chlo_structured,
    collective,
    control_flow,
    conversion,
    custom_targets,
    dynamic_targets,
    elementwise,
    gather_scatter,
    linalg,
    movement,
    quantization,
    random,
    reduction,
    sdy,
    slicing,
    solver_gpu,
    solver_lapack,
    solver_tpu,
    sort,
    spmd_manual,
    window,
)
