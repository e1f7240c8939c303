"""engine/parallel.py: ``run_shared`` (tasks taken by whichever thread is free) and
``ThreadChoice`` (one thread or several, learnt from an op's own wall times)."""

from __future__ import annotations

import threading
import time

import numpy as np
import pytest

from hlorun.engine import parallel
from hlorun.engine.parallel import ThreadChoice, run_shared, set_workers


@pytest.fixture
def two_threads():
    old = set_workers(2)
    yield
    set_workers(old)


def test_run_shared_runs_every_task_once(two_threads):
    seen: list[int] = []
    lock = threading.Lock()

    def task(i: int) -> None:
        with lock:
            seen.append(i)

    run_shared([lambda i=i: task(i) for i in range(37)])
    assert sorted(seen) == list(range(37))


def test_run_shared_does_not_wait_for_a_thread_that_took_nothing(two_threads):
    """The pool's only thread is busy: the caller runs every task itself and returns
    without waiting for it."""
    release = threading.Event()
    parallel._pool().submit(release.wait)  # the pool thread is held
    try:
        seen: list[int] = []
        t0 = time.perf_counter()
        run_shared([lambda i=i: seen.append(i) for i in range(5)])
        assert time.perf_counter() - t0 < 5.0
        assert seen == [0, 1, 2, 3, 4]  # all on the calling thread, in order
    finally:
        release.set()


def test_run_shared_raises_a_task_error_after_all_ran(two_threads):
    seen: list[int] = []

    def bad() -> None:
        raise ValueError("piece 2")

    tasks = [lambda: seen.append(0), lambda: seen.append(1), bad, lambda: seen.append(3)]
    with pytest.raises(ValueError, match="piece 2"):
        run_shared(tasks)
    assert sorted(seen) == [0, 1, 3]


def test_run_shared_tasks_see_the_callers_numpy_error_state(two_threads):
    got: list[str] = []
    with np.errstate(divide="raise"):
        run_shared([lambda: got.append(np.geterr()["divide"]) for _ in range(4)])
    assert got == ["raise"] * 4


def _drive(choice: ThreadChoice, one: float, two: float, calls: int) -> list[bool]:
    picks = []
    for _ in range(calls):
        split = choice.pick()
        picks.append(split)
        choice.record(split, two if split else one)
    return picks


def test_thread_choice_keeps_the_faster_way_and_retries_the_other_ever_less():
    c = ThreadChoice()
    picks = _drive(c, one=1.0, two=0.5, calls=200)  # threads twice as fast
    assert picks[:4] == [True, False, True, False]  # each way twice (once not counted)
    retries = [k for k, p in enumerate(picks) if not p][2:]
    assert len(retries) < 8  # ever rarer: 4, 8, 16, ... calls apart
    assert all(b - a > c.FIRST_WAIT for a, b in zip(retries[1:], retries[2:]))
    # the machine gets busy: threads now slower; the next retry switches, and stays
    picks = _drive(c, one=1.0, two=5.0, calls=10 * c.MAX_WAIT)
    assert picks.index(False) <= c.MAX_WAIT  # switched at the next retry
    assert sum(picks[-5 * c.MAX_WAIT :]) <= 5  # one thread, retried every MAX_WAIT calls


def test_thread_choice_keeps_threads_through_one_slow_run_and_a_small_loss():
    """One threaded run slowed by a lost time slice does not switch ways (a way's time
    is the least of its last KEEP runs), and threads within MARGIN of one thread stay
    (a memory-bound run gains little from them); a busy machine still switches."""
    c = ThreadChoice()
    _drive(c, one=1.0, two=0.6, calls=20)
    picks = []
    for k in range(200):
        split = c.pick()
        picks.append(split)
        c.record(split, (5.0 if k % 10 == 0 else 0.6) if split else 1.0)
    assert sum(not p for p in picks) < 10  # retries only
    c = ThreadChoice()
    picks = _drive(c, one=1.0, two=1.05, calls=200)  # threads 5% slower: within MARGIN
    assert sum(not p for p in picks[4:]) < 10
    picks = _drive(c, one=1.0, two=1.0 * c.MARGIN + 0.2, calls=10 * c.MAX_WAIT)
    assert sum(picks[-5 * c.MAX_WAIT :]) <= 5  # clearly slower threads: one thread


def test_thread_choice_does_not_count_a_cold_first_call():
    """A first split run slowed by cold caches and sleeping threads does not make one
    thread the choice."""
    c = ThreadChoice()
    for k, seconds in enumerate([50.0, 1.0, 0.5, 1.0]):  # split (cold), one, split, one
        split = c.pick()
        assert split == (k % 2 == 0)
        c.record(split, seconds)
    assert c.pick() is True


def test_thread_choice_first_call_splits():
    """An op's first run splits (tests of bit identity across threads rely on it)."""
    assert ThreadChoice().pick() is True


def test_one_blas_thread_restores_the_count_and_changes_no_bit(two_threads):
    """A product on one BLAS thread has the bits of the same product on BLAS's threads
    (OpenBLAS splits the output, each thread sums the whole contraction), and the
    thread count is back after.  Without an OpenBLAS to control, only the bits."""
    rng = np.random.default_rng(5)
    a = rng.standard_normal((256, 384)).astype(np.float32)
    b = rng.standard_normal((384, 320)).astype(np.float32)
    before = [get() for get, _set in parallel.blas_controls()]
    want = a @ b
    with parallel.one_blas_thread():
        assert all(get() == 1 for get, _set in parallel.blas_controls())
        got = a @ b
    assert [get() for get, _set in parallel.blas_controls()] == before
    assert got.tobytes() == want.tobytes()
    chosen = parallel.blas_threads_chosen(np.matmul)
    for _ in range(8):  # both ways, in turn and then chosen
        assert chosen(a, b).tobytes() == want.tobytes()
