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


def big_special(n: int, seed: int = 0) -> np.ndarray:
    """``n`` float32 values: SPECIAL spread through standard normals (every 7th value
    special), for the large-array paths (fused, threaded) an interpreter may take."""
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(n).astype(np.float32) * 3
    x[::7] = np.resize(SPECIAL, x[::7].shape)
    return x


def big_ints(n: int, seed: int = 0) -> np.ndarray:
    """``n`` int32 values: I32_EDGE spread through uniform ones in [-1000, 1000)."""
    rng = np.random.default_rng(seed)
    x = rng.integers(-1000, 1000, n).astype(np.int32)
    x[::5] = np.resize(I32_EDGE, x[::5].shape)
    return x
