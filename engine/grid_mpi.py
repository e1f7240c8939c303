"""SPMD programs on MPI ranks (issue 23): the MPI backend of the process grid.

    mpiexec -n 8 hlorun interpret --grid=mpi --split-input-file FILE
    hlorun.run(module, inputs, grid="mpi")        # on every rank of an MPI job

Needs the ``mpi`` extra (``pip install 'hlorun[mpi]'``: mpi4py and the mpich wheel,
whose ``mpiexec`` needs no system MPI).

The model:

* A one-process entry (a test's ``@main``) is the *host* program: it runs on every
  rank (its prints on rank 0 only), so that a process grid it starts spans the ranks.
* A process grid (``interpreter.run_parallel``, or an entry with ``mhlo.num_replicas``
  x ``mhlo.num_partitions``) puts process i (row-major over (replica_id,
  partition_id)) on rank i; ranks beyond the grid sit out.  A grid larger than the job
  is refused before anything runs.  Inside a process, a nested ``run_parallel`` runs on
  a local thread grid.
* Data moves only between the members of a process group (engine/mpi_grid.py): a
  collective exchanges the members' operands point to point (the thread grid's
  rendezvous: every member gets every member's operands, so all_to_all,
  collective_permute and collective_broadcast move more than their results need) and
  each member computes its result with the thread grid's kernel, reductions in group
  order, so results are bit for bit the thread grid's.  Arrays travel as raw bytes
  under a JSON header (dtype name, shape): no pickling, nothing through rank 0.
* When a grid ends, its ranks exchange their outcome with every rank of the job (one
  ``Iallgather`` of a small header): the results of a ``run_parallel`` (the host
  program on every rank needs them), or, for an entry grid, nothing (each rank keeps
  its own process's results; ``run`` returns ``None`` for the others).  Captured
  prints and outfeed entries go to rank 0, which prints them / appends them to the
  outfeed in process order.  Infeed is read on rank 0 and sent to each process at the
  start of the grid (a queue shared by several processes is handed out entry by entry
  through an atomic counter on rank 0).
* Faults: a failing process tells the grid's ranks at once; every rank then stops and
  raises the same error (the failure of the lowest failing rank that failed on its own
  account); see ``MPIGrid`` for deadlocks and deadlines.
"""

from __future__ import annotations

import contextlib
import io
import sys
import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, SupportsIndex

import numpy as np

from ..parser.errors import HloError, InterpreterError, UnsupportedError
from ..parser.ir import (
    ArrayAttr,
    ChannelHandle,
    DenseElementsAttr,
    Module,
    Operation,
)
from .grid import GRID_BACKEND, GridAborted, ProcessHandle, ops_reachable
from .kernels.channels import RECV
from .kernels.collective import RUN_PARALLEL
from .mpi_grid import TAG_FEED, MPIGrid
from .mpi_wire import (
    as_arrays,
    decode_values,
    describe,
    dumps,
    encode_values,
    error_record,
    loads,
    pack,
    poll_until,
    rebuild_error,
    split_raw,
    values_nbytes,
)
from .options import RunOptions
from .plan import Limits

WATCH_INTERVAL = 0.05  # seconds between two looks at the control messages while running


def mpi() -> Any:
    """mpi4py's ``MPI`` module.  Imported here, on first use, because importing it
    initializes MPI: ``import hlorun`` must stay cheap and MPI-free."""
    try:
        from mpi4py import MPI
    except ImportError as e:
        raise UnsupportedError(
            "grid='mpi' needs mpi4py and an MPI runtime: pip install 'hlorun[mpi]'"
        ) from e
    return MPI


# ------------------------------------------------------------------ the program text


def reachable_ops(module: Module, name: str) -> Iterator[Operation]:
    """Every op ``@name`` may run, through the functions it references (not into the
    programs of a nested ``run_parallel``, which run on their own grid)."""
    fn = module.functions.get(name)
    if fn is None or fn.body is None:
        return iter(())
    roots = [op for b in fn.body.blocks for op in b.operations]
    return ops_reachable(module, roots, seen={name}, stop=RUN_PARALLEL.name)


def _grid_size(op: Operation) -> int:
    programs = op.attr("programs")
    if not isinstance(programs, ArrayAttr):
        return 1
    return sum(len(row.elements) for row in programs.elements if isinstance(row, ArrayAttr))


def _too_big(n: int, what: str, size: int) -> InterpreterError:
    return InterpreterError(
        f"{what} has {n} processes, but the MPI job has {size} ranks (run it with "
        f"mpiexec -n {n} or more)"
    )


def check_fits(module: Module, entry: str, num_processes: int, size: int) -> None:
    """Refuse, before anything runs, an entry grid or a ``run_parallel`` grid the
    entry may start that has more processes than the job has ranks."""
    if num_processes > size:
        raise _too_big(num_processes, f"the process grid of @{entry}", size)
    for op in reachable_ops(module, entry):
        if op.name == RUN_PARALLEL.name and _grid_size(op) > size:
            raise InterpreterError(
                _too_big(_grid_size(op), "this run_parallel grid", size).message,
                op.pos,
                op=op.name,
            )


def _has_pairs(op: Operation) -> bool:
    pairs = op.attr("source_target_pairs")
    return isinstance(pairs, DenseElementsAttr) and pairs.array.size > 0


def channel_receivers(module: Module, flat_programs: Sequence[str]) -> dict[int, int]:
    """channel id -> the process that receives on it, for channels without
    ``source_target_pairs`` (a FIFO shared by the grid: its sends go to its receiver).
    Several receiving processes are refused (the sender could not know where to go)."""
    found: dict[int, dict[int, Operation]] = {}
    for i, name in enumerate(flat_programs):
        for op in reachable_ops(module, name):
            if op.name == RECV.name and not _has_pairs(op):
                h = op.attr("channel_handle")
                cid = h.handle if isinstance(h, ChannelHandle) else 0
                found.setdefault(cid, {}).setdefault(i, op)
    out = {}
    for cid, by_process in found.items():
        if len(by_process) > 1:
            op = next(iter(by_process.values()))
            raise UnsupportedError(
                f"channel {cid} is received on by processes #{sorted(by_process)}; on "
                "grid='mpi' a channel without source_target_pairs has one receiving process",
                op.pos,
                op=op.name,
            )
        (out[cid],) = by_process
    return out


# ------------------------------------------------------------------ infeed


class SharedQueue(list):
    """An infeed queue shared by the processes of a grid: each ``pop`` takes the next
    entry number from a counter on rank 0 (MPI ``Fetch_and_op``)."""

    def __init__(self, entries: list[Any], win: Any, mpi: Any):
        super().__init__(entries)
        self._win, self._mpi = win, mpi

    def __bool__(self) -> bool:
        return True  # whether an entry is left is known only when taking one

    def pop(self, index: SupportsIndex = -1) -> Any:
        one, got = np.ones(1, np.int64), np.zeros(1, np.int64)
        self._win.Lock(0, self._mpi.LOCK_SHARED)
        self._win.Fetch_and_op(one, got, 0, 0, self._mpi.SUM)
        self._win.Unlock(0)
        k = int(got[0])
        if k >= len(self):
            raise InterpreterError(
                "the infeed is empty (pass infeed data with engine.run(..., infeed=[...]) or "
                "interpreter.run_parallel's infeed functions)"
            )
        return self[k]


@dataclass
class _Feed:
    queue: list[Any]
    win: Any = None
    counter: Any = None  # rank 0's counter memory, alive as long as the window


def _take_infeed(grid: MPIGrid, infeed: Sequence[list] | None) -> _Feed:
    """Rank 0 sends each process its infeed entries (everyone the whole queue, when the
    processes share one); returns this process's queue."""
    mpi, comm, rank, n = grid.MPI, grid.comm, grid.rank, grid.num_processes
    if rank == 0:
        queues = list(infeed) if infeed is not None else [[] for _ in range(n)]
        shared = n > 1 and all(q is queues[0] for q in queues) and len(queues[0]) > 0
        reqs, keep = [], []
        for r in range(1, n):
            metas, arrays = encode_values(queues[0] if shared else queues[r])
            head, data = dumps({"shared": shared, "entries": metas}), pack(arrays)
            keep += [head, data]
            reqs.append(comm.Isend([head, mpi.BYTE], r, TAG_FEED))
            reqs.append(comm.Isend([data, mpi.BYTE], r, TAG_FEED))
            grid.sent[r] += 2
        metas, arrays = encode_values(queues[0])
        mine = decode_values(metas, pack(arrays))  # a copy: the caller's list is not popped
        poll_until(lambda: mpi.Request.Testall(reqs), grid._stop_if_failed)
    else:
        st = mpi.Status()
        poll_until(lambda: comm.Iprobe(0, TAG_FEED, st), grid._stop_if_failed)
        head = np.empty(st.Get_count(mpi.BYTE), np.uint8)
        comm.Recv([head, mpi.BYTE], 0, TAG_FEED)
        h = loads(head)
        comm.Probe(0, TAG_FEED, st)
        data = np.empty(st.Get_count(mpi.BYTE), np.uint8)
        comm.Recv([data, mpi.BYTE], 0, TAG_FEED)
        grid.got[0] += 2
        shared, mine = h["shared"], decode_values(h["entries"], data)
    if not shared:
        return _Feed(mine)
    counter = np.zeros(1, np.int64) if rank == 0 else None
    win = mpi.Win.Create(counter if counter is not None else mpi.BOTTOM, 8, comm=comm)
    return _Feed(SharedQueue(mine, win, mpi), win, counter)


# ------------------------------------------------------------------ one rank's process


@dataclass
class _Outcome:
    results: tuple[Any, ...] | None = None
    error: BaseException | None = None
    record: dict[str, Any] | None = None
    stdout: str = ""
    outfeed: list[Any] = field(default_factory=list)
    feed: tuple[list, list[np.ndarray]] = ([], [])  # the outfeed entries, encoded
    res: tuple[list, list[np.ndarray]] | None = None  # the results, encoded (to gather)


class _Watcher:
    """While the process runs, reads the grid's control messages every
    ``WATCH_INTERVAL`` s; once another process has failed, stops this one at its next
    limit check (as the thread grid does)."""

    def __init__(self, grid: MPIGrid, limits: Limits):
        self.grid, self.limits = grid, limits
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        if grid.MPI.Query_thread() == grid.MPI.THREAD_MULTIPLE:
            self._thread = threading.Thread(target=self._run, name="hlorun-mpi-watch", daemon=True)

    def _run(self) -> None:
        while not self._stop.wait(WATCH_INTERVAL):
            self.grid.poll()
            if self.grid.failure is not None:
                self.limits.deadline = float("-inf")
                return

    def __enter__(self) -> _Watcher:
        if self._thread is not None:
            self._thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()


def _run_process(
    grid: MPIGrid,
    module: Module,
    program: str,
    inputs: Sequence[Any],
    interpreter: Callable[..., Any],
    options: RunOptions,
    deadline: float | None,
    infeed: Sequence[list] | None,
    gather: bool,
) -> tuple[_Outcome, _Feed | None]:
    r, p = grid.pid_of(grid.rank)
    out = _Outcome()
    feed = None
    captured = io.StringIO()
    token = GRID_BACKEND.set(None)  # a run_parallel inside a process: a local thread grid
    try:
        feed = _take_infeed(grid, infeed)
        limits = options.limits()
        # a finite deadline keeps the interpreter checking it, so that the watcher can
        # stop this process once another one has failed
        limits.deadline = deadline if deadline is not None else float("inf")
        ctx = options.context()
        ctx.update(
            replica_id=r,
            partition_id=p,
            process=ProcessHandle(grid, r, p),
            infeed=feed.queue,
            outfeed=out.outfeed,
        )
        interp = interpreter(module, limits=limits, context=ctx)
        with _Watcher(grid, limits), contextlib.redirect_stdout(captured):
            interp.plan(program)
            out.results = tuple(interp.call(program, list(inputs)))
        if gather:
            out.res = encode_values(out.results)
    except BaseException as e:  # noqa: BLE001  (every rank raises the grid's error below)
        primary = grid.failure is None and not isinstance(e, GridAborted)
        out.error, out.record = e, error_record(e, primary)
        if grid.failure is None:
            grid.failure = out.record
    finally:
        GRID_BACKEND.reset(token)
    with contextlib.suppress(HloError):
        out.feed = encode_values(out.outfeed)
    out.stdout = captured.getvalue()
    grid.announce(out.record)
    return out, feed


# ------------------------------------------------------------------ the end of a grid


def _wait(req: Any) -> None:
    poll_until(req.Test, lambda: None)


def _allgather_bytes(world: Any, mine: np.ndarray, counts: list[int]) -> list[np.ndarray]:
    """Every rank's bytes (``counts``: their sizes, known to all)."""
    MPI = mpi()
    total = sum(counts)
    buf = np.empty(total, np.uint8)
    displs = [0, *np.cumsum(counts)[:-1].tolist()]
    if total:
        _wait(world.Iallgatherv([mine, MPI.BYTE], [buf, (counts, displs), MPI.BYTE]))
    return [buf[d : d + c] for d, c in zip(displs, counts)]


def _sizes(world: Any, *mine: int) -> np.ndarray:
    """Every rank's ``mine`` (small integers), one row per rank."""
    MPI = mpi()
    out = np.zeros((world.Get_size(), len(mine)), np.int64)
    _wait(world.Iallgather([np.array(mine, np.int64), MPI.INT64_T], [out, MPI.INT64_T]))
    return out


def _gather_bytes(world: Any, mine: np.ndarray, counts: list[int]) -> list[np.ndarray] | None:
    """Every rank's bytes on rank 0 (``counts``: their sizes, known to all); None on
    the other ranks."""
    MPI = mpi()
    rank = world.Get_rank()
    displs = [0, *np.cumsum(counts)[:-1].tolist()]
    buf = np.empty(sum(counts), np.uint8)
    if sum(counts):
        recv = [buf, (counts, displs), MPI.BYTE] if rank == 0 else None
        _wait(world.Igatherv([mine, MPI.BYTE], recv, root=0))
    return [buf[d : d + c] for d, c in zip(displs, counts)] if rank == 0 else None


@dataclass
class _Everyone:
    heads: list[dict[str, Any]]  # every rank's error, metas and sizes
    results: list[np.ndarray] | None  # every rank's result bytes (when gathered)
    to_root: list[np.ndarray] | None  # on rank 0: every rank's outfeed and print bytes


def _exchange(world: Any, out: _Outcome | None, gather: bool) -> _Everyone:
    """The end of a grid on every rank of the job: errors to every rank, the results
    too when ``gather``, captured prints and outfeed entries to rank 0 only."""
    head: dict[str, Any] = {"error": None, "feed": [], "results": None, "stdout": 0}
    res_arrays: list[np.ndarray] = []
    feed_arrays: list[np.ndarray] = []
    text = b""
    if out is not None:
        text = out.stdout.encode()
        head.update(error=out.record, stdout=len(text))
        head["feed"], feed_arrays = out.feed
        if out.res is not None:
            head["results"], res_arrays = out.res
    hb = dumps(head)
    sizes = _sizes(world, hb.size)
    heads = [loads(b) for b in _allgather_bytes(world, hb, sizes[:, 0].tolist())]
    results = None
    if gather:
        counts = [values_nbytes(h["results"] or []) for h in heads]
        results = _allgather_bytes(world, pack(res_arrays), counts)
    counts = [values_nbytes(h["feed"]) + h["stdout"] for h in heads]
    mine = np.concatenate([pack(feed_arrays), np.frombuffer(text, np.uint8)])
    return _Everyone(heads, results, _gather_bytes(world, mine, counts))


def _primary(records: list[dict | None]) -> int | None:
    """The rank whose error every rank raises: the lowest that failed on its own account."""
    failed = [i for i, rec in enumerate(records) if rec is not None]
    own = [i for i in failed if records[i]["primary"]]  # type: ignore[index]
    first = own or failed
    return first[0] if first else None


@dataclass
class Session:
    """The grid backend of one MPI job (``engine.grid.GRID_BACKEND``).  ``gather``:
    every rank gets every process's results (the host program runs on every rank)."""

    comm: Any
    gather: bool

    def __call__(
        self,
        module: Module,
        programs: Sequence[Sequence[str]],
        inputs: Sequence[Sequence[Any]],
        *,
        interpreter: Callable[..., Any],
        options: RunOptions,
        deadline: float | None = None,
        infeed: Sequence[list] | None = None,
        outfeed: Sequence[list] | None = None,
    ) -> list[tuple[Any, ...] | None]:
        MPI, world = mpi(), self.comm
        size, rank = world.Get_size(), world.Get_rank()
        nr = len(programs)
        np_ = len(programs[0]) if programs else 0
        if nr == 0 or np_ == 0 or any(len(row) != np_ for row in programs):
            raise InterpreterError("the process grid must be a non-empty rectangle of programs")
        n = nr * np_
        if n > size:
            raise _too_big(n, f"the process grid of {nr} x {np_}", size)
        if len(inputs) != n:
            raise InterpreterError(f"{len(inputs)} input lists for {n} processes")
        if options.host_channels and n > 1:
            raise UnsupportedError("host_channels with grid='mpi' (host transfers between ranks)")
        flat = [name for row in programs for name in row]
        receivers = channel_receivers(module, flat)
        comm = world.Split(0 if rank < n else MPI.UNDEFINED, rank)
        out, feed, grid = None, None, None
        if rank < n:
            grid = MPIGrid(
                MPI, comm, nr, np_, deadlock_timeout=options.deadlock_timeout, receivers=receivers
            )
            out, feed = _run_process(
                grid,
                module,
                flat[rank],
                inputs[rank],
                interpreter,
                options,
                deadline,
                infeed,
                self.gather,
            )
        if grid is not None:
            grid.close()
        everyone = _exchange(world, out, self.gather)
        if grid is not None:
            if feed is not None and feed.win is not None:
                feed.win.Free()
            comm.Free()
        return _conclude(everyone, out, n, rank, outfeed)


def _conclude(
    everyone: _Everyone,
    out: _Outcome | None,
    n: int,
    rank: int,
    outfeed: Sequence[list] | None,
) -> list[tuple[Any, ...] | None]:
    heads = everyone.heads[:n]
    if everyone.to_root is not None:  # rank 0: prints and outfeed, in process order
        for i, h in enumerate(heads):
            data = everyone.to_root[i]
            k = values_nbytes(h["feed"])
            if outfeed is not None:
                outfeed[i].extend(decode_values(h["feed"], data[:k]))
            if h["stdout"]:
                sys.stdout.write(bytes(data[k:]).decode())
        sys.stdout.flush()
    who = _primary([h["error"] for h in heads])
    if who is not None:
        if who == rank and out is not None and out.error is not None:
            raise out.error
        raise rebuild_error(heads[who]["error"])
    if everyone.results is not None:
        return [
            tuple(decode_values(h["results"], everyone.results[i])) for i, h in enumerate(heads)
        ]
    return [out.results if i == rank and out is not None else None for i in range(n)]


# ------------------------------------------------------------------ entry points


class _Discard(io.TextIOBase):
    def write(self, s: str) -> int:
        return len(s)


@contextlib.contextmanager
def mpi_session(module: Module, entry: str, num_processes: int) -> Iterator[None]:
    """Run a Program's call on the MPI job: process grids go to the ranks; a
    one-process entry is the host program, on every rank, printing on rank 0 only."""
    MPI = mpi()
    world = MPI.COMM_WORLD
    check_fits(module, entry, num_processes, world.Get_size())
    token = GRID_BACKEND.set(Session(world, gather=num_processes == 1))
    try:
        with contextlib.ExitStack() as stack:
            if num_processes == 1 and world.Get_rank() != 0:
                stack.enter_context(contextlib.redirect_stdout(_Discard()))
            yield
    finally:
        GRID_BACKEND.reset(token)


def quiet_unless_root() -> None:
    """The command line on MPI: ranks other than 0 print nothing (every rank computes
    the same results and raises the same errors; rank 0 speaks for the job)."""
    if mpi().COMM_WORLD.Get_rank() != 0:
        sys.stdout = _Discard()
        sys.stderr = _Discard()


def gather_for_printing(results: list[Any]) -> list[Any]:
    """An entry grid's results (this rank's process filled in, ``None`` for the others)
    gathered on rank 0, for printing; other ranks get empty lists.  Plain results pass
    through."""
    if not (isinstance(results, list) and any(r is None for r in results)):
        return results
    MPI = mpi()
    world = MPI.COMM_WORLD
    mine = next((r for r in results if r is not None), None)
    arrays = as_arrays(mine) if mine is not None else []
    head, data = dumps(describe(arrays) if mine is not None else None), pack(arrays)
    got: list[Any] = []
    for part in (head, data):
        counts = np.zeros(world.Get_size(), np.int64) if world.Get_rank() == 0 else None
        _wait(
            world.Igather(
                [np.array([part.size], np.int64), MPI.INT64_T], [counts, MPI.INT64_T], root=0
            )
        )
        if counts is None:
            _wait(world.Igatherv([part, MPI.BYTE], None, root=0))
            continue
        c = counts.tolist()
        displs = [0, *np.cumsum(c)[:-1].tolist()]
        buf = np.empty(sum(c), np.uint8)
        _wait(world.Igatherv([part, MPI.BYTE], [buf, (c, displs), MPI.BYTE], root=0))
        got.append([buf[d : d + k] for d, k in zip(displs, c)])
    if world.Get_rank() != 0:
        return [[] for _ in results]
    heads, datas = got
    return [
        split_raw(datas[i], metas) if (metas := loads(heads[i])) is not None else []
        for i in range(len(results))
    ]
