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
per core (the process's own BLAS threads count in it, hence above 1).  OpenBLAS splits a gemm's rows and columns between threads, never its
contraction, so every result element is the same sum in the same order whatever the
thread count: results are bit-identical either way.

Only OpenBLAS builds are controlled (NumPy's and SciPy's wheels bundle one each; a
system OpenBLAS by its upstream names); with another BLAS the context does nothing.
"""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Iterator
from typing import Any

BUSY_LOAD_PER_CORE = 1.5
"""1-minute load average per core above which convolutions' gemms run on one BLAS
thread (above 1: a process keeping BLAS busy on every core of a quiet machine makes a
load of about one per core by itself)."""

# (get, set) function names: upstream OpenBLAS, the SciPy wheels' LP64 scipy-openblas,
# NumPy's wheels' ILP64 scipy-openblas64
_NAMES = (
    ("openblas_get_num_threads", "openblas_set_num_threads"),
    ("scipy_openblas_get_num_threads", "scipy_openblas_set_num_threads"),
    ("scipy_openblas_get_num_threads64_", "scipy_openblas_set_num_threads64_"),
)

_LOCK = threading.Lock()
_inside = 0  # callers inside the context with the count lowered
_saved: list[tuple[int, Any]] = []  # (thread count before, its set function)
_controls: list[tuple[Any, Any]] | None = None


def _find_controls() -> list[tuple[Any, Any]]:
    """(get, set) of every OpenBLAS library the process has loaded (/proc/self/maps;
    none where it is absent)."""
    import ctypes  # noqa: PLC0415 (first busy convolution only)

    found = []
    try:
        with open("/proc/self/maps") as f:
            paths = sorted({ln.split()[-1] for ln in f if "openblas" in ln.rsplit("/", 1)[-1]})
    except OSError:
        return []
    for path in paths:
        try:
            lib = ctypes.CDLL(path)  # already loaded: the same library
        except OSError:
            continue
        for get, set_ in _NAMES:
            g, s = getattr(lib, get, None), getattr(lib, set_, None)
            if g is not None and s is not None:
                g.restype = ctypes.c_int
                s.argtypes = (ctypes.c_int,)
                s.restype = None
                found.append((g, s))
                break
    return found


def library_loaded() -> None:
    """A BLAS library was just loaded (scipy.linalg.blas's): find the controls again."""
    global _controls
    with _LOCK:
        _controls = None


def busy() -> bool:
    """Whether the machine has more runnable threads than ``BUSY_LOAD_PER_CORE`` per core."""
    try:
        return os.getloadavg()[0] > BUSY_LOAD_PER_CORE * (os.cpu_count() or 1)
    except OSError:  # no load average on this platform
        return False


@contextlib.contextmanager
def one_blas_thread_when_busy() -> Iterator[None]:
    """Run the body's BLAS calls on one thread while ``busy()``; concurrent callers
    share one save and restore (the first lowers the count, the last restores it)."""
    global _inside, _controls
    if not busy():
        yield
        return
    with _LOCK:
        if _inside == 0:
            if _controls is None:
                _controls = _find_controls()
            _saved[:] = [(get(), set_) for get, set_ in _controls]
            for _, set_ in _saved:
                set_(1)
        _inside += 1
    try:
        yield
    finally:
        with _LOCK:
            _inside -= 1
            if _inside == 0:
                for n, set_ in _saved:
                    set_(n)
