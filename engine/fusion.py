"""Elementwise fusion: a run of large elementwise steps as one pass over cache-sized
blocks.

A chain of elementwise ops over big tensors (``x * a - b``, an activation, a
normalization) is memory bound: run one op at a time, each reads and writes whole
tensors from and to main memory. Planning (``engine.interpreter``) hands each block plan
to ``fuse``, which finds runs of consecutive fusible steps and makes each one closure,
which the block's compiled function (engine/emit.py) calls in place of the run's steps
(except when a callback must see every value whole): for each slice of ``BLOCK_BYTES``
of the elements, every op of the run in order, its intermediate values in small buffers
that stay in the cache and are reused, so main memory sees each input read once and each
materialized result written once.

Fusible: a fast-path step (``engine.fastpath``) whose op-table row has a ``ufunc``
column entry (``engine.ufunc.Ufunc``: a NumPy ufunc equal to the spec's op on this
dtype kind, or f32 computed in f64 and rounded once), on operands and a result of one
static type of at least ``FUSE_MIN_ELEMENTS``, outside batched regions; compute-bound
ops (tanh, exp: f32 computed in f64) join too, since a fused run of at least
``PARALLEL_MIN_ELEMENTS`` (``FUSE_MIN_ELEMENTS`` with such an op) may run on the
machine's threads as they would alone (JAX's 10-op chain with tanh and exp: 0.96x the
naive floor, was 1.14x), when that has been faster for this run
(``parallel.ThreadChoice``: not on a busy machine).  Every element is computed by the
same ufunc call on the same values as unfused, so results are bit-identical.

Layout: the elements as one flat dimension, or, when an operand is a broadcast view
(broadcast_in_dim's stride-0 result: a bias row, a per-row mean or max), as rows of the
trailing dimensions, blocks of whole rows, so that such an operand is read in place
(one row, or one value per row) instead of being copied to full size first.

Materialization points: a value the run defines is written in full when anything after
the run (a step, a region, the block's results) reads it; the others live only in block
buffers. A materialized result goes into the buffer of an operand that dies in the run,
when nothing else can see that buffer (``ownership.sole_reference``) and the run has no
later reader of it (in place where a value is dead); else into a new array.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Callable, Sequence
from functools import partial
from typing import Any

import numpy as np

from .dtypes import static_shape
from .emit import fused_loop
from .ownership import sole_reference
from .parallel import (
    PARALLEL_MIN_ELEMENTS,
    ThreadChoice,
    run_shared,
    split_points,
    workers,
)
from .plan import BlockPlan, Step, reraise, static_size
from .ufunc import Ufunc

BLOCK_BYTES = 128 << 10  # per buffer: a few of them fit the L2 cache
# On threads, each thread's blocks are larger: every ufunc call releases and retakes
# the GIL, and two threads trading it after calls of a few microseconds each run slower
# than one thread (measured on 2 cores: 32K-element blocks 1.1x one thread's time,
# 256K-element blocks 0.55x).
THREAD_BLOCK_BYTES = 1 << 20
FUSE_MIN_ELEMENTS = 1 << 17  # below this, one op at a time is as fast
_F32 = np.dtype(np.float32)
_F64 = np.dtype(np.float64)


SCRATCH_MAX_BYTES = 4 << 20
"""Largest block buffer a thread keeps between fused runs (``scratch``)."""

_SCRATCH = threading.local()


def scratch(n: int, shape: tuple[int, ...], dt: np.dtype) -> list[np.ndarray]:
    """``n`` block buffers of ``shape`` and ``dt`` in the calling thread's scratch
    memory, which it keeps between runs (up to ``SCRATCH_MAX_BYTES`` each): a new
    buffer's pages fault on first touch, and two threads faulting wait for each other
    (measured, the decoder's GELU run of 393K f32 on two threads: 3.5 ms with new
    buffers, against 1.7 on one).  A thread runs one fused piece at a time, and no
    value outlives its run in a block buffer."""
    nbytes = math.prod(shape) * dt.itemsize
    if nbytes > SCRATCH_MAX_BYTES:
        return [np.empty(shape, dt) for _ in range(n)]
    pool: list[np.ndarray] | None = getattr(_SCRATCH, "bufs", None)
    if pool is None:
        pool = _SCRATCH.bufs = []
    out = []
    for i in range(n):
        if i == len(pool):
            pool.append(np.empty(nbytes, np.uint8))
        elif pool[i].nbytes < nbytes:
            pool[i] = np.empty(nbytes, np.uint8)
        out.append(pool[i][:nbytes].view(dt).reshape(shape))
    return out


def fusible(st: Step) -> bool:
    """Can ``st`` join a fused run (module docstring)?"""
    if st.kind != "fast" or st.in_region or st.fast is None or len(st.results) != 1:
        return False
    if st.fast.row is None or not st.operands:
        return False
    t = st.check_types[0]
    size = static_size(t)
    if size is None or size < FUSE_MIN_ELEMENTS:
        return False
    return all(v.type == t for v in st.op.operands)


def _ufunc(st: Step) -> tuple[Ufunc, np.dtype]:
    """The ufunc column entry and the result dtype of a fusible step."""
    fast = st.fast
    assert fast is not None and fast.row is not None
    return fast.row, fast.dtype


def _flat(v: Any, size: int) -> np.ndarray:
    """``v``'s elements as one dimension: a view (a splat constant, whose strides are
    all 0, stays a view of its one element)."""
    a = np.asarray(v)
    if a.ndim and not a.flags.c_contiguous and not any(a.strides):
        return np.broadcast_to(a[(0,) * a.ndim], (size,))
    return a.reshape(-1)


def _broadcast(a: np.ndarray, dims: range) -> bool:
    """Are ``a``'s dimensions ``dims`` broadcast (stride 0, or of size 1)?"""
    return all(a.strides[d] == 0 or a.shape[d] == 1 for d in dims)


def _copied(a: np.ndarray, split: int) -> int:
    """Elements ``_rows`` copies to view ``a`` as rows of its dimensions from ``split``
    on (0: one dimension, ``_flat``)."""
    if a.flags.c_contiguous or not any(a.strides):
        return 0
    nd = a.ndim
    if split and _broadcast(a, range(split)):
        return 0  # one row, read by every row (a bias)
    if split and _broadcast(a, range(split, nd)):
        return 0  # one value per row (a mean, a max)
    return a.size


def _rows(a: np.ndarray, split: int, shape: tuple[int, int]) -> np.ndarray:
    """``a`` as a (rows, columns) array whose rows are the elements of its dimensions
    before ``split`` and columns those after: a view of a contiguous operand; a
    broadcast row or column is read in place (a stride-0 view of its small array),
    anything else is copied."""
    nd = a.ndim
    if a.flags.c_contiguous:
        return a.reshape(shape)
    if _broadcast(a, range(split)):
        row = a[(0,) * split].reshape(-1)  # (a copy of one row at most)
        return np.broadcast_to(row, shape)
    if _broadcast(a, range(split, nd)):
        col = a[(Ellipsis,) + (0,) * (nd - split)].reshape(shape[0], 1)
        return np.broadcast_to(col, shape)
    return a.reshape(shape)


def _split(vals: Sequence[np.ndarray], shape: tuple[int, ...]) -> int:
    """Where a fused run's operands of ``shape`` split into rows and columns: the split
    that copies the fewest elements (broadcast operands read in place), the deepest one
    (shortest rows) among equals; 0 (one flat dimension) when that copies no more."""
    best, split = sum(_copied(a, 0) for a in vals), 0
    if not best:
        return 0
    for s in range(len(shape) - 1, 0, -1):
        c = sum(_copied(a, s) for a in vals)
        if c < best:
            best, split = c, s
    return split


def fuse(block: BlockPlan) -> dict[int, tuple[tuple[int, ...], Callable[[list[Any]], None]]]:
    """The block's fused runs: for each run of at least two consecutive fusible steps
    (of one shape and dtype; constants between them are pre-filled, they do not break
    a run), the index of its first step -> (the indices of its steps, its closure)."""
    work = [(k, st) for k, st in enumerate(block.steps) if st.kind != "constant"]
    if sum(fusible(st) for _k, st in work) < 2:
        return {}
    out: dict[int, tuple[tuple[int, ...], Callable[[list[Any]], None]]] = {}
    steps = [st for _k, st in work]
    i = 0
    while i < len(work):
        j = i
        if fusible(steps[i]):
            key = (steps[i].check_types[0], _ufunc(steps[i])[1])
            while j + 1 < len(steps) and fusible(steps[j + 1]):
                if (steps[j + 1].check_types[0], _ufunc(steps[j + 1])[1]) != key:
                    break
                j += 1
        if j > i:
            run = _fused(steps[i : j + 1], steps[j + 1 :], block)
            out[work[i][0]] = (tuple(k for k, _st in work[i : j + 1]), run)
        i = j + 1
    return out


def _fused(
    group: Sequence[Step], after: Sequence[Step], block: BlockPlan
) -> Callable[[list[Any]], None]:
    """One closure running ``group`` blockwise (module docstring)."""
    defined = {st.results[0]: k for k, st in enumerate(group)}
    read_later = set(block.returns).union(*(st.uses for st in after))
    materialize = tuple(s for s in defined if s in read_later)
    external: list[int] = []  # slots the run reads but does not define, in order
    for st in group:
        for s in st.operands:
            if s not in defined and s not in external:
                external.append(s)
    kills = tuple(sorted({s for st in group for s in st.kills if s not in defined}))
    last_read = {s: k for k, st in enumerate(group) for s in st.operands}
    # the materialized result of step k may take the buffer of an external operand
    # that dies in the run and that no step after k reads
    reuse: dict[int, tuple[int, ...]] = {}
    for s in materialize:
        k = defined[s]
        reuse[s] = tuple(
            j for j, e in enumerate(external) if e in kills and last_read.get(e, -1) <= k
        )
    t = group[0].check_types[0]
    dt = _ufunc(group[0])[1]
    size = static_size(t)
    assert size is not None
    shape = static_shape(t)  # (static: checked by fusible)
    step_len = max(1024, BLOCK_BYTES // dt.itemsize)
    thread_step = max(step_len, THREAD_BLOCK_BYTES // dt.itemsize)
    # a run with a transcendental op (exp, tanh: computed in f64 for f32) is compute
    # bound: threads may pay from a smaller size (``ThreadChoice`` keeps them if so)
    transcendental = any(not _ufunc(st)[0].exact for st in group)
    min_threads = FUSE_MIN_ELEMENTS if transcendental else PARALLEL_MIN_ELEMENTS
    # pieces per thread, each with its own buffers: a compute-bound run in two, so that
    # a thread that starts late leaves its second piece to the other (JAX's chain10,
    # tanh and exp: 0.78 of its floor, 0.80 in one piece per thread); a memory-bound one
    # in one (the 10-op add/multiply chain, always split: two per thread 1.05-1.07x
    # 8e5309e's time, one 1.02-1.03x)
    pieces = 2 if transcendental else 1
    # where each value lives: ("x", j) external operand j, ("m", s) materialized slot
    # s, ("t", b) block buffer b (pooled: a buffer is reused once its value is dead)
    where: dict[int, tuple[str, int]] = {s: ("x", j) for j, s in enumerate(external)}
    free: list[int] = []
    nbufs = 0
    plan = []
    for k, st in enumerate(group):
        row = _ufunc(st)[0]
        kw = {} if row.exact or dt != _F32 else {"dtype": _F64}
        args = tuple(where[s] for s in st.operands)
        for s in dict.fromkeys(st.operands):  # temporaries dead after this step
            if s in defined and s not in materialize and last_read[s] == k:
                free.append(where[s][1])
        r = st.results[0]
        if r in materialize:
            where[r] = ("m", r)
        elif free:
            where[r] = ("t", free.pop())
        else:
            where[r] = ("t", nbufs)
            nbufs += 1
        plan.append((row.ufunc, kw, args, where[r]))
    blocks = fused_loop(plan, len(external), materialize, nbufs)
    first = group[0]
    ext = tuple(external)
    choice = ThreadChoice()

    def run(frame: list[Any]) -> None:
        vals = [frame[s] for s in ext]
        for s in kills:
            frame[s] = None
        try:
            full: dict[int, np.ndarray] = {}
            taken: set[int] = set()
            for s in materialize:
                buf = None
                for j in reuse[s]:
                    if j in taken:
                        continue
                    a = vals[j]
                    vals[j] = None  # ``a`` alone holds it while it is checked
                    if (
                        sole_reference(a)
                        and a.dtype == dt
                        and a.shape == shape
                        and a.flags.c_contiguous
                    ):
                        buf = a
                        taken.add(j)
                    vals[j] = a
                    if buf is not None:
                        break
                a = None
                full[s] = buf if buf is not None else np.empty(shape, dt)
            arrays = [np.asarray(v) for v in vals]
            cut = _split(arrays, shape) if len(shape) > 1 else 0
            xs: list[np.ndarray]
            ms: list[np.ndarray]
            cols: tuple[int, ...]
            if not cut:  # one flat dimension
                xs = [_flat(a, size) for a in arrays]
                ms = [full[s].reshape(-1) for s in materialize]
                rows, cols = size, ()
            else:  # rows: a broadcast operand is read in place, block by block
                cols_n = math.prod(shape[cut:])
                rows = size // cols_n
                xs = [_rows(a, cut, (rows, cols_n)) for a in arrays]
                ms = [full[s].reshape(rows, cols_n) for s in materialize]
                cols = (cols_n,)
            del arrays
            per = max(1, size // rows)  # elements per row
            step, tstep = max(1, step_len // per), max(1, thread_step // per)
            threads = size >= min_threads and rows > 1 and workers() > 1

            def alone() -> None:
                blocks(xs, ms, scratch(nbufs, (min(step, rows), *cols), dt), rows, step)

            def piece(lo: int, hi: int) -> None:  # (its buffers: the running thread's)
                bufs = scratch(nbufs, (min(tstep, hi - lo), *cols), dt)
                blocks([x[lo:hi] for x in xs], [m[lo:hi] for m in ms], bufs, hi - lo, tstep)

            def split() -> None:  # pieces taken by whichever thread is free
                cuts = split_points(rows, workers() * pieces, align=1 if cols else 64)
                run_shared([partial(piece, lo, hi) for lo, hi in zip(cuts, cuts[1:]) if hi > lo])

            if threads:  # (one thread or two: the same bits, the faster kept)
                choice.run(alone, split)
            else:
                alone()
        except Exception as e:
            reraise(first, e)
        for s, v in full.items():
            frame[s] = v

    return run
