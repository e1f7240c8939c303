"""The StableHLO process grid (spec "Parallel execution", "Collective ops").

A grid of ``num_replicas x num_partitions`` processes runs each process in its own
Python thread with its own ``Interpreter`` over the same module.  Processes meet at
*rendezvous* points (collective ops) and exchange values through *channels* (send /
recv), all guarded by one ``threading.Condition``:

* a rendezvous is keyed by ``(op kind, channel_id, process group, n)`` where ``n``
  counts how many times this process has entered a rendezvous with that
  ``(kind, channel_id, group)`` before, so collectives inside loops and regions match
  execution by execution;
* every wait is bounded: when all processes still running are blocked and none can
  proceed, the grid reports a deadlock at once (naming every blocked op and its
  location); a wait that lasts longer than ``deadlock_timeout`` seconds is reported
  as a deadlock too (a peer that never arrives, e.g. because it loops forever);
* the first error of any process aborts the grid: waiting processes are released
  (they raise ``GridAborted``), running ones are stopped at their next limit check,
  and ``run_grid`` re-raises the first error.

Process ids are ``(replica_id, partition_id)`` pairs; grid-wide lists are row-major
over them: ``(0, 0), (0, 1), ..., (1, 0), ...``.
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any

from ..parser.errors import HloError, InterpreterError, SourcePos
from ..parser.ir import ArrayAttr, Function, Module, Operation, SymbolRefAttr
from .options import DEFAULT_OPTIONS, RunOptions

DEFAULT_DEADLOCK_TIMEOUT = 60.0  # seconds a process may wait for its peers

ProcessId = tuple[int, int]


# The seam for other grid backends (engine/grid_mpi.py): while a backend is set in the
# calling context, ``run_grid`` hands the whole grid run to it (same arguments, same
# result).  Threads started by a grid begin with no backend.
GRID_BACKEND: ContextVar[Callable[..., list] | None] = ContextVar(
    "hlorun_grid_backend", default=None
)


def _callees(op: Operation) -> Iterator[str]:
    """The functions ``op`` references (symbol references among its attributes:
    func.call's callee, composite's decomposition, called_computations...)."""
    stack: list[Any] = [a for _, a in op.attributes]
    while stack:
        a = stack.pop()
        if isinstance(a, SymbolRefAttr):
            yield a.root
        elif isinstance(a, ArrayAttr):
            stack.extend(a.elements)


def ops_reachable(
    module: Module,
    roots: Iterable[Operation],
    *,
    seen: set[str] | None = None,
    stop: str | None = None,
) -> Iterator[Operation]:
    """Every op of ``roots`` and every op they may run: the ops of their regions and of
    the functions they reference, each function once (``seen``: functions not to enter;
    ``stop``: an op name whose references are not followed)."""
    funcs = module.functions
    seen = set() if seen is None else seen
    stack = list(roots)
    while stack:
        op = stack.pop()
        yield op
        for r in op.regions:
            for b in r.blocks:
                stack.extend(b.operations)
        if op.name == stop:
            continue
        for callee in _callees(op):
            fn: Function | None = funcs.get(callee)
            if callee in seen or fn is None or fn.body is None:
                continue
            seen.add(callee)
            stack.extend(o for b in fn.body.blocks for o in b.operations)


class GridAborted(InterpreterError):
    """Raised in a process released from a wait because another process failed."""


@dataclass
class _Waiter:
    what: str  # "'stablehlo.all_reduce' at file:3:7"
    ready: Callable[[], bool]
    pos: SourcePos | None
    op: str | None
    missing: Callable[[], list]  # the peers that have not arrived yet


@dataclass
class _Rendezvous:
    size: int
    values: dict[ProcessId, Any] = field(default_factory=dict)
    complete: bool = False
    taken: int = 0


def describe_op(op: Operation | None, fallback: str) -> str:
    if op is None:
        return f"'{fallback}'"
    return f"'{op.name}' at {op.pos}"


class ProcessGrid:
    """Shared state of one grid run: rendezvous points, channels, liveness."""

    def __init__(
        self,
        num_replicas: int,
        num_partitions: int,
        *,
        deadlock_timeout: float | None = None,
        host_channels: dict[int, list] | None = None,
    ):
        if num_replicas < 1 or num_partitions < 1:
            raise InterpreterError(
                f"a process grid needs at least one replica and one partition, got "
                f"{num_replicas} x {num_partitions}"
            )
        self.num_replicas = num_replicas
        self.num_partitions = num_partitions
        self.deadlock_timeout = (
            DEFAULT_DEADLOCK_TIMEOUT if deadlock_timeout is None else float(deadlock_timeout)
        )
        # channel_id -> FIFO list shared with the host (engine.run(host_channels=...)):
        # host-transfer sends on such a channel append to it, recvs pop from it.
        self.host_channels = host_channels if host_channels is not None else {}
        self._cond = threading.Condition()
        self._rendezvous: dict[tuple, _Rendezvous] = {}
        self._counts: dict[tuple, int] = {}
        self._channels: dict[Any, deque] = {}
        self._waiting: dict[ProcessId, _Waiter] = {}
        self._done: set[ProcessId] = set()
        self._on_abort: list[Callable[[], None]] = []
        self.error: BaseException | None = None
        self.error_pid: ProcessId | None = None

    # ------------------------------------------------------------------ layout
    @property
    def num_processes(self) -> int:
        return self.num_replicas * self.num_partitions

    def process_ids(self) -> list[ProcessId]:
        """Row-major: (0, 0), (0, 1), ..., (1, 0), ..."""
        return [(r, p) for r in range(self.num_replicas) for p in range(self.num_partitions)]

    def index(self, pid: ProcessId) -> int:
        return pid[0] * self.num_partitions + pid[1]

    # ------------------------------------------------------------------ liveness
    def on_abort(self, fn: Callable[[], None]) -> None:
        """Register ``fn`` to run (once) when the grid aborts."""
        with self._cond:
            self._on_abort.append(fn)

    def fail(self, error: BaseException, pid: ProcessId | None = None) -> None:
        """Record the first error and release every waiting process."""
        with self._cond:
            self._fail(error, pid)

    def _fail(self, error: BaseException, pid: ProcessId | None) -> None:
        if self.error is not None or isinstance(error, GridAborted):
            return
        self.error = error
        self.error_pid = pid
        for fn in self._on_abort:
            fn()
        self._cond.notify_all()

    def finish(self, pid: ProcessId) -> None:
        """``pid`` has stopped (returned or failed): its peers can no longer meet it."""
        with self._cond:
            self._done.add(pid)
            self._check_deadlock()
            self._cond.notify_all()

    def _check_deadlock(self) -> None:
        if self.error is not None:
            return
        live = [p for p in self.process_ids() if p not in self._done]
        for p, w in self._waiting.items():
            gone = [q for q in w.missing() if q in self._done]
            if gone and not w.ready():
                self._fail(
                    InterpreterError(
                        f"deadlock detected: process {p} waits in {w.what} for processes {gone}, "
                        "which finished without reaching it",
                        w.pos,
                        op=w.op,
                    ),
                    p,
                )
                return
        if not live or any(p not in self._waiting for p in live):
            return
        if any(w.ready() for w in self._waiting.values()):
            return
        parts = [f"process {p} waits in {self._waiting[p].what}" for p in live]
        if self._done:
            parts.append(f"finished: {sorted(self._done)}")
        first = self._waiting[live[0]]
        err = InterpreterError(
            "deadlock detected: every running process is blocked (" + "; ".join(parts) + ")",
            first.pos,
            op=first.op,
        )
        self._fail(err, live[0])

    def _wait(
        self,
        pid: ProcessId,
        ready: Callable[[], bool],
        op: Operation | None,
        kind: str,
        waiting_for: Callable[[], str],
        missing: Callable[[], list] = list,
    ) -> None:
        """Block (holding ``self._cond``) until ``ready()``; raise on abort or deadlock."""
        if ready():
            return
        waiter = _Waiter(
            describe_op(op, kind), ready, op.pos if op else None, op.name if op else kind, missing
        )
        self._waiting[pid] = waiter
        try:
            self._check_deadlock()
            deadline = time.monotonic() + self.deadlock_timeout
            while True:
                if self.error is not None:
                    if self.error_pid == pid and isinstance(self.error, HloError):
                        raise self.error
                    raise GridAborted("aborted: another process of the grid failed")
                if ready():
                    return
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    err = InterpreterError(
                        f"deadlock detected: process {pid} waited {self.deadlock_timeout:g} s "
                        f"in {waiter.what} for {waiting_for()} (deadlock_timeout)",
                        waiter.pos,
                        op=waiter.op,
                    )
                    self._fail(err, pid)
                    raise err
                self._cond.wait(remaining)
        finally:
            del self._waiting[pid]

    # ------------------------------------------------------------------ collectives
    def rendezvous(
        self,
        pid: ProcessId,
        kind: str,
        channel_id: int,
        group: Sequence[ProcessId],
        value: Any,
        op: Operation | None = None,
    ) -> dict[ProcessId, Any]:
        """Contribute ``value`` and return every member's value, once all of ``group``
        (which contains ``pid``) has arrived at the same execution of this collective."""
        group = tuple(group)
        base = (kind, channel_id, group)
        with self._cond:
            n = self._counts.get((pid, base), 0)
            self._counts[(pid, base)] = n + 1
            key = (*base, n)
            r = self._rendezvous.get(key)
            if r is None:
                r = self._rendezvous[key] = _Rendezvous(len(group))
            r.values[pid] = value
            if len(r.values) == r.size:
                r.complete = True
                self._cond.notify_all()
            else:

                def missing() -> list:
                    return [p for p in group if p not in r.values]

                self._wait(
                    pid, lambda: r.complete, op, kind, lambda: f"processes {missing()}", missing
                )
            values = r.values
            r.taken += 1
            if r.taken == r.size:
                del self._rendezvous[key]
            return values

    # ------------------------------------------------------------------ channels
    def send(self, channel: Any, values: Any) -> None:
        """Append ``values`` to the FIFO ``channel`` (never blocks)."""
        with self._cond:
            host = self._host(channel)
            if host is not None:
                host.append(values)
                return
            self._channels.setdefault(channel, deque()).append(values)
            self._cond.notify_all()

    def _host(self, channel: Any) -> list | None:
        if channel[0] == "host":
            return self.host_channels.get(channel[1])
        return None

    def recv(self, pid: ProcessId, channel: Any, op: Operation | None = None) -> Any:
        """Take the oldest value of ``channel``, waiting for a sender if it is empty."""
        with self._cond:
            host = self._host(channel)
            if host is not None:
                if not host:
                    raise InterpreterError(f"host channel {channel[1]} has no data left to receive")
                return host.pop(0)
            q = self._channels.setdefault(channel, deque())
            self._wait(pid, lambda: bool(q), op, "recv", lambda: f"a send on channel {channel}")
            return q.popleft()


@dataclass(frozen=True)
class ProcessHandle:
    """One process's view of its grid (``ExecutionContext.process``)."""

    grid: ProcessGrid
    replica_id: int = 0
    partition_id: int = 0

    @property
    def pid(self) -> ProcessId:
        return (self.replica_id, self.partition_id)


def process_of(context: Any) -> ProcessHandle:
    """The context's process handle; a context outside any grid is the only process of
    a 1x1 grid (created on first use)."""
    handle = context.process
    if handle is None:
        handle = context.process = ProcessHandle(ProcessGrid(1, 1))
    return handle


# ---------------------------------------------------------------------- running


def run_grid(
    module: Module,
    programs: Sequence[Sequence[str]],
    inputs: Sequence[Sequence[Any]],
    *,
    interpreter: Callable[..., Any],
    options: RunOptions = DEFAULT_OPTIONS,
    deadline: float | None = None,
    infeed: Sequence[list] | None = None,
    outfeed: Sequence[list] | None = None,
) -> list[tuple[Any, ...]]:
    """Run ``programs[r][p]`` (a function name) as process ``(r, p)`` with
    ``inputs[r * num_partitions + p]``; return each process's results, row-major.

    ``infeed`` / ``outfeed`` give each process's infeed queue and outfeed list
    (row-major; the same list object may be shared).  A 1x1 grid runs in the calling
    thread; larger grids run one thread per process.  ``interpreter`` makes each
    process's interpreter (``engine.interpreter.Interpreter``; passed in, since the
    interpreter's kernels use this module: the grid sits below the interpreter).
    """
    backend = GRID_BACKEND.get()
    if backend is not None:
        return backend(
            module,
            programs,
            inputs,
            interpreter=interpreter,
            options=options,
            deadline=deadline,
            infeed=infeed,
            outfeed=outfeed,
        )
    num_replicas = len(programs)
    num_partitions = len(programs[0]) if programs else 0
    if (
        num_replicas == 0
        or num_partitions == 0
        or any(len(row) != num_partitions for row in programs)
    ):
        raise InterpreterError("the process grid must be a non-empty rectangle of programs")
    grid = ProcessGrid(
        num_replicas,
        num_partitions,
        deadlock_timeout=options.deadlock_timeout,
        host_channels=options.host_channels,
    )
    pids = grid.process_ids()
    if len(inputs) != len(pids):
        raise InterpreterError(f"{len(inputs)} input lists for {len(pids)} processes")
    interps = []
    for i, (r, p) in enumerate(pids):
        limits = options.limits()
        # with other processes to stop it (stop_all), a process checks its deadline on
        # every step, even when the run has none: an infinite one until stop_all
        limits.deadline = deadline
        if limits.deadline is None and len(pids) > 1:
            limits.deadline = float("inf")
        ctx = options.context()
        ctx.update(
            replica_id=r,
            partition_id=p,
            process=ProcessHandle(grid, r, p),
        )
        if infeed is not None:
            ctx["infeed"] = infeed[i]
        if outfeed is not None:
            ctx["outfeed"] = outfeed[i]
        interp = interpreter(module, limits=limits, context=ctx)
        interp.plan(programs[r][p])  # prepared before any thread starts: errors surface early
        interps.append(interp)

    def stop_all() -> None:
        for it in interps:
            it.limits.deadline = float("-inf")

    grid.on_abort(stop_all)
    results: list[tuple[Any, ...] | None] = [None] * len(pids)
    errors: list[BaseException | None] = [None] * len(pids)

    def body(i: int) -> None:
        r, p = pids[i]
        try:
            results[i] = interps[i].call(programs[r][p], list(inputs[i]))
        except BaseException as e:  # noqa: BLE001  (re-raised by the caller below)
            errors[i] = e
            grid.fail(e, pids[i])
        finally:
            grid.finish(pids[i])

    if len(pids) == 1:
        body(0)
    else:
        threads = [
            threading.Thread(target=body, args=(i,), name=f"hlorun-process-{pid}", daemon=True)
            for i, pid in enumerate(pids)
        ]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    if grid.error is not None:
        raise _primary_error(grid, pids, errors)
    return [r if r is not None else () for r in results]


def _primary_error(grid: ProcessGrid, pids: list[ProcessId], errors: list) -> BaseException:
    """The error to report: what the first failing process ended with (that exception
    carries the op's location), else the recorded error."""
    if grid.error_pid is not None:
        e = errors[pids.index(grid.error_pid)]
        if e is not None and not isinstance(e, GridAborted):
            return e
    return grid.error  # type: ignore[return-value]
