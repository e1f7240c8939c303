"""Splitting whole-array NumPy work over the machine's cores.

NumPy releases the GIL inside its loops, so independent pieces of one large kernel
(halves of an elementwise op, the two subtrees of a reduction tree, row blocks of a
level) run in parallel on plain threads.  Kernels split only where the pieces are
independent and each piece computes exactly what the whole would, so results are
bit-identical to the one-thread run; ``HLORUN_THREADS=1`` turns splitting off.

    from ..engine.parallel import workers, run_all
    if workers() > 1 and x.size >= PARALLEL_MIN_ELEMENTS:
        left, right = run_all([lambda: f(x[:h]), lambda: f(x[h:])])
"""

from __future__ import annotations

import contextvars
import os
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, TypeVar

if TYPE_CHECKING:
    from concurrent.futures import ThreadPoolExecutor

T = TypeVar("T")

# Below this many elements per op the hand-off to another thread (measured ~50 us on the
# 2-core test VM) costs more than it saves.
PARALLEL_MIN_ELEMENTS = 1 << 18


def _configured() -> int:
    raw = os.environ.get("HLORUN_THREADS")
    if raw:
        try:
            return max(1, int(raw))
        except ValueError:
            pass
    return max(1, min(os.cpu_count() or 1, 8))


_WORKERS = _configured()
_POOL: ThreadPoolExecutor | None = None


def workers() -> int:
    """How many threads a kernel may split its work over (1: do not split)."""
    return _WORKERS


def set_workers(n: int) -> int:
    """Set the thread count (tests compare 1 and 2); returns the previous value."""
    global _WORKERS, _POOL
    old, _WORKERS = _WORKERS, max(1, int(n))
    if _POOL is not None:
        _POOL.shutdown(wait=True)
        _POOL = None
    return old


def _pool() -> ThreadPoolExecutor:
    global _POOL
    if _POOL is None:
        # imported on first use, to keep startup cheap (concurrent.futures loads logging)
        from concurrent.futures import ThreadPoolExecutor

        _POOL = ThreadPoolExecutor(max(1, _WORKERS - 1), thread_name_prefix="hlorun")
    return _POOL


def run_all(tasks: Sequence[Callable[[], T]]) -> list[T]:
    """Run ``tasks`` concurrently (the first on the calling thread) and return their
    results in order; an exception from any task is raised after all have finished.
    Each task sees the caller's context variables (NumPy's error state among them)."""
    if len(tasks) <= 1 or _WORKERS <= 1:
        return [t() for t in tasks]
    pool = _pool()
    futures = [pool.submit(contextvars.copy_context().run, t) for t in tasks[1:]]
    first: list[T] = []
    error: BaseException | None = None
    try:
        first.append(tasks[0]())
    except BaseException as e:  # noqa: BLE001  (re-raised once the others are done)
        error = e
    rest: list[T] = []
    for f in futures:
        try:
            rest.append(f.result())
        except BaseException as e:  # noqa: BLE001
            error = error or e
    if error is not None:
        raise error
    return first + rest


def split_points(n: int, parts: int, align: int = 64) -> list[int]:
    """``parts + 1`` ascending cut points of ``range(n)``, inner ones multiples of
    ``align`` (whole cache lines for 1-byte elements and up)."""
    cuts = [0]
    for k in range(1, parts):
        c = (n * k // parts) // align * align
        cuts.append(max(cuts[-1], c))
    cuts.append(n)
    return cuts
