"""Special values the producer sweeps (tools/producer_sweep_torch.py, _tf.py) feed ops.

NumPy only: imported from each producer's venv (the sweeps run as ``python tools/...``,
so this folder is on the path).
"""

from __future__ import annotations

import numpy as np

SPECIAL = np.array(
    [
        0.0,
        -0.0,
        np.inf,
        -np.inf,
        np.nan,
        1.0,
        -1.0,
        0.5,
        -0.5,
        1.5,
        -2.5,
        2.5,
        3.0,
        -3.0,
        1e30,
        -1e30,
        65504.0,
        65520.0,
        3.4e38,
        1e-30,
        7.0,
        -7.0,
        0.1,
        100.0,
    ],
    np.float32,
)  # no subnormals: XLA's CPU flushes them, the spec does not
I32_EDGE = np.array(
    [0, 1, -1, 2**31 - 1, -(2**31), 7, -7, 100, -100, 31, 32, 33, 64, -33, 2**30, -(2**30)],
    np.int32,
)
