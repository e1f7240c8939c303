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
import threading
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


def run_shared(tasks: Sequence[Callable[[], object]]) -> None:
    """Run independent ``tasks`` (results dropped) on the calling thread and the pool's,
    each thread taking the next task no thread has taken: a thread that gets no core
    (a busy shared machine, BLAS's threads spinning) leaves its share to the others
    instead of holding up the whole op, and the call returns once every task has run,
    never waiting for a thread that took none.  An exception from a task is raised
    after all have run; each task sees the caller's context variables."""
    n = len(tasks)
    if n <= 1 or _WORKERS <= 1:
        for t in tasks:
            t()
        return
    todo = list(tasks)
    lock = threading.Lock()
    state = [0, 0]  # tasks taken, tasks finished
    finished = threading.Event()
    errors: list[BaseException] = []

    def loop() -> None:
        while True:
            with lock:
                i = state[0]
                if i >= n:
                    return
                state[0] = i + 1
            try:
                todo[i]()
            except BaseException as e:  # noqa: BLE001  (raised by the caller)
                errors.append(e)
            with lock:
                state[1] += 1
                if state[1] == n:
                    finished.set()

    pool = _pool()
    for _ in range(min(_WORKERS - 1, n - 1)):
        pool.submit(contextvars.copy_context().run, loop)
    loop()
    finished.wait()
    todo.clear()  # (a thread that starts late finds nothing left and holds nothing)
    if errors:
        raise errors[0]


class ThreadChoice:
    """Whether one planned op (a fused run, a split elementwise op) runs faster on the
    machine's threads or on the calling thread alone, learnt from its own wall times:
    on a quiet machine two threads take about half the time, but when other processes
    keep the cores busy a thread may wait a whole time slice for one (holding the GIL or
    a piece of the op), and one thread is faster (a 10-op fused run of 512K f32, load
    7 on 2 cores: 1.9 ms on one thread, 4-15 ms on two).  Both ways compute every
    element with the same ufunc call, so the choice never changes a result.

    ``pick()`` says whether to split; ``record(split, seconds)`` the time it took.  Each
    way is tried once; then the faster one (by a running mean of its times) is kept and
    the other retried after ``wait`` calls, ``wait`` doubling (up to ``MAX_WAIT``) while
    the retry confirms the choice and back to ``FIRST_WAIT`` when it changes it."""

    FIRST_WAIT = 4
    MAX_WAIT = 32
    __slots__ = ("times", "best", "left", "wait")

    def __init__(self) -> None:
        self.times: list[float | None] = [None, None]  # [one thread, split]
        self.best = 1
        self.left = 0
        self.wait = self.FIRST_WAIT

    def pick(self) -> bool:
        if self.times[1] is None:
            return True
        if self.times[0] is None:
            return False
        return bool(self.best if self.left > 0 else 1 - self.best)

    def record(self, split: bool, seconds: float) -> None:
        way = int(split)
        t = self.times[way]
        self.times[way] = seconds if t is None else 0.5 * (t + seconds)
        one, two = self.times
        if one is None or two is None:
            return
        best = 1 if two < one else 0
        if way == self.best and self.left > 0:
            self.left -= 1
        else:  # a retry (or the first measure of both ways)
            self.wait = self.FIRST_WAIT if best != self.best else min(2 * self.wait, self.MAX_WAIT)
            self.left = self.wait
        self.best = best


def split_points(n: int, parts: int, align: int = 64) -> list[int]:
    """``parts + 1`` ascending cut points of ``range(n)``, inner ones multiples of
    ``align`` (whole cache lines for 1-byte elements and up)."""
    cuts = [0]
    for k in range(1, parts):
        c = (n * k // parts) // align * align
        cuts.append(max(cuts[-1], c))
    cuts.append(n)
    return cuts
