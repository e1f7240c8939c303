"""BLAS's threads only while the machine has cores to spare.

OpenBLAS runs a large gemm on all its threads, which busy-wait for each other between
the gemm's blocks and for more work after it.  On an oversubscribed machine (more
runnable threads than cores) a descheduled thread stalls the others: measured, the
8x3x64x64 NCHW CNN of benchmarks/models on 2 cores at load average 7-8, median of 5
interleaved runs: 333 ms wall / 154 ms CPU with two BLAS threads, 207 / 87 ms with one
(its NumPy floor: 299 / 140 and 176 / 83).  On a quiet machine the threads do help
(the shifted gemms of 8x32x64x64 -> 32: 13.0 ms on one thread, 9.3 on two).  So, as
libgomp sizes its teams by the load average when OMP_DYNAMIC is set,
``one_blas_thread_when_busy`` drops the OpenBLAS libraries of the process to one
thread while the 1-minute load average exceeds ``BUSY_LOAD_PER_CORE`` runnable threads
per core (the process's own BLAS threads count in it, hence above 1).  OpenBLAS splits
a gemm's rows and columns between threads, never its contraction, so every result
element is the same sum in the same order whatever the thread count: results are
bit-identical either way.

Every BLAS product of the kernels goes through ``matmul`` here: the convolutions'
gemms and dot_general's (an LSTM scan's 128 products of 4-8M flops per run, measured
at load 3 on 2 cores: 28-30 ms a run on one thread, 57-59 ms on two).  A planned
dot_general of at least ``linalg.BLAS_CHOICE_MIN_FLOPS`` also learns from its own
times whether BLAS's threads pay (``parallel.blas_threads_chosen``).

The thread counts are set through engine/parallel.py's ``one_blas_thread`` (the one
control of OpenBLAS's threads, which dot_general's learned choice uses too): only
OpenBLAS builds are controlled (NumPy's and SciPy's wheels bundle one each; a system
OpenBLAS by its upstream names); with another BLAS the context does nothing.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Iterator

import numpy as np

from ..parallel import one_blas_thread

BUSY_LOAD_PER_CORE = 1.5
"""1-minute load average per core above which convolutions' gemms run on one BLAS
thread (above 1: a process keeping BLAS busy on every core of a quiet machine makes a
load of about one per core by itself)."""


_CORES = os.cpu_count() or 1
_LAST = [-1.0, 0.0]  # when the load was last read, and whether it was busy


def busy() -> bool:
    """Whether the machine has more runnable threads than ``BUSY_LOAD_PER_CORE`` per core.
    Read at most once a second: the kernel updates the load average every 5 seconds,
    and reading /proc/loadavg costs a convolution of 8x16x16x1 a tenth of its time."""
    now = time.monotonic()
    if now - _LAST[0] >= 1.0:
        try:
            is_busy = os.getloadavg()[0] > BUSY_LOAD_PER_CORE * _CORES
        except OSError:  # no load average on this platform
            is_busy = False
        _LAST[:] = [now, float(is_busy)]
    return bool(_LAST[1])


@contextlib.contextmanager
def one_blas_thread_when_busy() -> Iterator[None]:
    """Run the body's BLAS calls on one thread while ``busy()`` (``one_blas_thread``:
    concurrent callers share one save and restore)."""
    if not busy():
        yield
        return
    with one_blas_thread():
        yield


def matmul(a: np.ndarray, b: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    """``np.matmul(a, b, out=out)``, on one BLAS thread while ``busy()`` (the context
    above without a context manager's cost: a few microseconds, a tenth of a small
    convolution)."""
    if not busy():
        return np.matmul(a, b, out=out)
    with one_blas_thread():
        return np.matmul(a, b, out=out)
