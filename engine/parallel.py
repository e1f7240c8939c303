"""Splitting whole-array NumPy work over the machine's cores.

NumPy releases the GIL inside its loops, so independent pieces of one large kernel
(halves of an elementwise op, the two subtrees of a reduction tree, row blocks of a
level) run in parallel on plain threads.  Kernels split only where the pieces are
independent and each piece computes exactly what the whole would, so results are
bit-identical to the one-thread run; ``HLORUN_THREADS=1`` turns splitting off.

    from ..engine.parallel import workers, run_all
    if workers() > 1 and x.size >= PARALLEL_MIN_ELEMENTS:
        left, right = run_all([lambda: f(x[:h]), lambda: f(x[h:])])

On a shared machine threads can cost more than they gain: ``run_shared`` lets whichever
thread is free take the next piece, and ``ThreadChoice`` lets a planned op (a fused
run, a split elementwise op, a matrix product on BLAS's threads through
``blas_threads_chosen``) keep threads only while its own wall times say they pay.
"""

from __future__ import annotations

import contextvars
import os
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from functools import partial
from time import perf_counter
from typing import TYPE_CHECKING, Any, TypeVar

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
    """Whether one planned op (a fused run, a split elementwise op, a matrix product on
    BLAS's threads) runs faster on the machine's threads or on the calling thread
    alone, learnt from its own wall times: on a quiet machine two threads take about
    half the time, but when other processes keep the cores busy a thread may wait a
    whole time slice for one (holding the GIL or a piece of the op), and one thread is
    faster (a 10-op fused run of 512K f32, load 7 on 2 cores: 1.9 ms on one thread,
    4-15 ms on two).  Both ways compute every element with the same calls, so the
    choice never changes a result.

    ``run(alone, split)`` calls one of the two and times it (``pick()`` and
    ``record(split, seconds)`` are its parts).  Each way runs twice in turn (the first
    of each, with its cold caches and sleeping threads, is not counted); then the
    faster way is kept and the other retried after ``wait`` calls, ``wait`` doubling up
    to ``max_wait`` while retries confirm the choice, back to ``FIRST_WAIT`` when one
    changes it.  A way's time is the least of its last ``KEEP`` runs, and threads are
    kept unless one thread is ``MARGIN`` faster: a run slowed by a lost time slice, or
    a memory-bound run that threads speed up little (the 10-op chain over 1e6 f32:
    1.36 against 1.52 ms), does not switch ways (on a quiet machine that cost the chain
    a third of its calls' threads), while a machine getting busy slows every threaded
    run (2-8x) and switches within ``KEEP`` calls."""

    FIRST_WAIT = 4
    MAX_WAIT = 32
    KEEP = 3
    MARGIN = 1.1
    __slots__ = ("recent", "calls", "best", "left", "wait", "max_wait")

    def __init__(self, max_wait: int = MAX_WAIT) -> None:
        self.recent: tuple[list[float], list[float]] = ([], [])  # [one thread, split]
        self.calls = 0
        self.best = 1
        self.left = 0
        self.wait = self.FIRST_WAIT
        self.max_wait = max_wait

    def pick(self) -> bool:
        if self.calls < 4:
            return self.calls % 2 == 0  # split, one, split, one
        return bool(self.best if self.left > 0 else 1 - self.best)

    def record(self, split: bool, seconds: float) -> None:
        way = int(split)
        self.calls += 1
        if self.calls <= 2:
            return  # each way's cold first run
        recent = self.recent[way]
        if self.calls > 4 and way == self.best:
            recent.append(seconds)
            if len(recent) > self.KEEP:
                del recent[0]
            self.left -= 1
            if self._split_wins() == bool(way):
                return
            self.wait = self.FIRST_WAIT  # the machine got busier (or quieter): switch
        else:  # the first measure of a way, or a retry (the machine may have changed)
            recent[:] = [seconds]
            if self.calls < 4:
                return
            best = int(self._split_wins())
            self.wait = self.FIRST_WAIT if best != self.best else min(2 * self.wait, self.max_wait)
            if best == self.best:
                self.left = self.wait
                return
        self.best = 1 - self.best
        self.left = self.wait

    def _split_wins(self) -> bool:
        one, two = self.recent
        return min(two) < self.MARGIN * min(one)

    def run(self, alone: Callable[[], T], split: Callable[[], T]) -> T:
        """``split()`` or ``alone()``, whichever has been faster, timed."""
        way = self.pick()
        t0 = perf_counter()
        y = split() if way else alone()
        self.record(way, perf_counter() - t0)
        return y


# (get, set) thread-count functions of an OpenBLAS: upstream's names (a system OpenBLAS),
# NumPy's wheels' ILP64 scipy-openblas, SciPy's wheels' LP64 one
_OPENBLAS_THREADS = (
    ("openblas_get_num_threads", "openblas_set_num_threads"),
    ("scipy_openblas_get_num_threads64_", "scipy_openblas_set_num_threads64_"),
    ("scipy_openblas_get_num_threads", "scipy_openblas_set_num_threads"),
)
_BLAS_CONTROLS: list[tuple[Any, Any]] | None = None
_BLAS_LOCK = threading.Lock()
_BLAS_SAVED: list[Any] = [0]  # [callers inside one_blas_thread, (count, set)...]


def blas_controls() -> list[tuple[Any, Any]]:
    """The (get, set) thread-count functions of the OpenBLAS libraries loaded in this
    process (Linux: read from /proc/self/maps, once); none elsewhere or for another
    BLAS, and BLAS then keeps its own threads."""
    global _BLAS_CONTROLS
    if _BLAS_CONTROLS is None:
        found: list[tuple[Any, Any]] = []
        try:
            with open("/proc/self/maps") as f:
                paths = sorted({ln.split()[-1] for ln in f if "openblas" in ln.rsplit("/", 1)[-1]})
        except OSError:
            paths = []
        if paths:
            import ctypes  # (first large matmul only)

            for path in paths:
                try:
                    lib = ctypes.CDLL(path)  # already loaded: the same library
                except OSError:
                    continue
                for get, set_ in _OPENBLAS_THREADS:
                    if hasattr(lib, get) and hasattr(lib, set_):
                        found.append((getattr(lib, get), getattr(lib, set_)))
                        break
        _BLAS_CONTROLS = found
    return _BLAS_CONTROLS


def forget_blas_controls() -> None:
    """A BLAS library was loaded after the controls were found (scipy.linalg.blas's,
    engine/kernels/conv_shifted.py): find them again on next use."""
    global _BLAS_CONTROLS
    with _BLAS_LOCK:
        _BLAS_CONTROLS = None


@contextmanager
def one_blas_thread() -> Iterator[None]:
    """BLAS on the calling thread only, restored after (the first of concurrent callers
    saves the counts, the last restores them).  OpenBLAS splits a product's output
    among its threads, each summing over the whole contraction, so the thread count
    changes no bit of a result (tests/engine/test_parallel.py checks it)."""
    with _BLAS_LOCK:
        if _BLAS_SAVED[0] == 0:
            _BLAS_SAVED[1:] = [(get(), set_) for get, set_ in blas_controls()]
            for _, set_ in _BLAS_SAVED[1:]:
                set_(1)
        _BLAS_SAVED[0] += 1
    try:
        yield
    finally:
        with _BLAS_LOCK:
            _BLAS_SAVED[0] -= 1
            if _BLAS_SAVED[0] == 0:
                for n, set_ in _BLAS_SAVED[1:]:
                    set_(n)


def blas_threads_chosen(run: Callable[..., T]) -> Callable[..., T]:
    """``run`` (a planned matrix product) on BLAS's threads or on the calling thread
    alone, whichever has been faster for this op (``ThreadChoice``): on a quiet machine
    BLAS's threads win, but when other processes keep the cores busy, waking and
    joining them for each product costs more than they gain (the decoder LM's 73
    matmuls at load 9 on 2 cores: 4.6 s on BLAS's threads, 0.3 s of CPU on one).  The
    same bits either way (``one_blas_thread``)."""
    choice = ThreadChoice(max_wait=64)

    def chosen(*args: Any) -> T:
        return choice.run(partial(_on_one_blas_thread, run, args), partial(run, *args))

    return chosen


def _on_one_blas_thread(run: Callable[..., T], args: tuple[Any, ...]) -> T:
    with one_blas_thread():
        return run(*args)


def split_points(n: int, parts: int, align: int = 64) -> list[int]:
    """``parts + 1`` ascending cut points of ``range(n)``, inner ones multiples of
    ``align`` (whole cache lines for 1-byte elements and up)."""
    cuts = [0]
    for k in range(1, parts):
        c = (n * k // parts) // align * align
        cuts.append(max(cuts[-1], c))
    cuts.append(n)
    return cuts
