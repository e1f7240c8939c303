"""engine/kernels/blas_threads.py: every BLAS product (convolutions' gemms,
dot_general's) on one OpenBLAS thread while the machine is busy, the count restored after (the results' bits, the same either way, are
tested in test_convolution.py)."""

from __future__ import annotations

import numpy as np
import pytest

from hlorun.engine import parallel
from hlorun.engine.kernels import blas_threads, linalg


def _counts() -> list[int]:
    controls = parallel.blas_controls()
    return [get() for get, _ in controls]


@pytest.fixture
def busy(monkeypatch):
    state = {"busy": True}
    monkeypatch.setattr(blas_threads, "busy", lambda: state["busy"])
    parallel.forget_blas_controls()
    return state


def test_busy_machine_runs_one_thread_and_restores(busy):
    before = _counts()
    if not before:
        pytest.skip("no OpenBLAS library loaded (NumPy built with another BLAS)")
    with blas_threads.one_blas_thread_when_busy():
        assert _counts() == [1] * len(before)
    assert _counts() == before
    busy["busy"] = False
    with blas_threads.one_blas_thread_when_busy():
        assert _counts() == before  # a quiet machine keeps BLAS's threads


def test_overlapping_callers_share_one_save_and_restore(busy):
    before = _counts()
    if not before:
        pytest.skip("no OpenBLAS library loaded (NumPy built with another BLAS)")
    a = blas_threads.one_blas_thread_when_busy()
    b = blas_threads.one_blas_thread_when_busy()
    a.__enter__()
    b.__enter__()
    a.__exit__(None, None, None)
    assert _counts() == [1] * len(before)  # b is still inside
    b.__exit__(None, None, None)
    assert _counts() == before


def test_busy_reads_the_load_average_at_most_once_a_second(monkeypatch):
    """The kernel updates the load average every 5 s: a convolution does not pay a
    read of /proc/loadavg per call."""
    reads = []
    monkeypatch.setattr(blas_threads, "_LAST", [-1.0, 0.0])
    monkeypatch.setattr(blas_threads.os, "getloadavg", lambda: reads.append(1) or (99.0, 0, 0))
    assert blas_threads.busy() and blas_threads.busy()
    assert len(reads) == 1
    monkeypatch.setattr(blas_threads, "_LAST", [-1.0, 0.0])  # a second later
    monkeypatch.setattr(blas_threads.os, "getloadavg", lambda: (0.0, 0, 0))
    assert not blas_threads.busy()


def test_dot_general_products_follow_the_load_rule(busy, monkeypatch):
    """A planned dot_general below the learned choice's size calls BLAS on one thread
    while the machine is busy, on BLAS's threads when it is quiet."""
    before = _counts()
    if not before:
        pytest.skip("no OpenBLAS library loaded (NumPy built with another BLAS)")
    seen = []
    real = np.matmul

    def matmul(a, b, out=None):
        seen.append(_counts())
        return real(a, b, out=out)

    monkeypatch.setattr(blas_threads.np, "matmul", matmul)
    run = linalg.dot_general_plan((8, 4), (4, 3), (), (), (1,), (0,))
    a, b = np.ones((8, 4), np.float32), np.ones((4, 3), np.float32)
    assert (run(a, b) == 4).all()
    busy["busy"] = False
    run(a, b)
    assert seen == [[1] * len(before), before]
    assert _counts() == before
