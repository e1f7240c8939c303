"""``MPIGrid``: the process grid of ``engine.grid`` with each process on its own MPI rank.

One rank runs one process of the grid (process ``(r, p)`` on rank
``r * num_partitions + p`` of the grid's communicator).  The kernels are the thread
grid's (engine/kernels/collective.py, channels.py); only the meeting points change:

* ``rendezvous``: each member sends every other member of its process group a JSON
  header naming the rendezvous and its operands' dtypes and shapes, then the operands'
  raw bytes (non-blocking point to point, so a wait knows which ranks have arrived and
  can always give up), and returns every member's values like the thread grid; the
  kernel then computes its result locally (reductions in group order, never MPI's),
  so results are bit for bit the thread grid's.  (No communicator per process group:
  ``Comm.Split`` needs every rank of the grid, ``Create_group`` blocks, and a member
  that aborts before creating it would hang the others.)
* ``send`` / ``recv``: point-to-point to the target process (a channel without
  ``source_target_pairs`` goes to the one process that receives on it, found from the
  program text by ``engine.grid_mpi``).
* faults: a process that stops tells every other rank of the grid (a control message:
  done, or failed with its error); a wait stops at once when a peer failed, when the
  peer it waits for has finished without arriving, when a peer is at another collective
  (every header names its rendezvous), and after ``deadlock_timeout`` seconds.
"""

from __future__ import annotations

import json
import threading
import time
from functools import partial
from typing import Any

import numpy as np

from ..parser.errors import InterpreterError
from ..parser.ir import Operation
from .grid import GridAborted, ProcessGrid, ProcessId, describe_op
from .mpi_wire import (
    as_arrays,
    describe,
    dumps,
    from_raw,
    loads,
    nbytes,
    poll_until,
    raw,
)

TAG_HDR, TAG_DATA, TAG_CTRL, TAG_FEED = 1, 2, 3, 4
_TAG_P2P = 1 << 20  # + 2 * (channel id mod 2**19): header; + 1: data
_TAG_CHANNEL = 1 << 22
GRACE = 0.05  # seconds between seeing a peer finish and calling its absence a deadlock


def channel_tag(channel: Any) -> int:
    base = _TAG_P2P if channel[0] == "p2p" else _TAG_CHANNEL
    return base + 2 * (int(channel[1]) % (1 << 19))


class MPIGrid(ProcessGrid):
    """One rank's view of a grid run on MPI (``comm``: the grid's ranks, rank i is
    process i row-major)."""

    def __init__(
        self,
        mpi: Any,
        comm: Any,
        num_replicas: int,
        num_partitions: int,
        *,
        deadlock_timeout: float | None,
        receivers: dict[int, int],
    ):
        super().__init__(num_replicas, num_partitions, deadlock_timeout=deadlock_timeout)
        self.MPI = mpi
        self.comm = comm
        self.rank = comm.Get_rank()
        self.receivers = receivers  # channel id -> the rank that receives on it
        self.failure: dict[str, Any] | None = None  # the first failure heard of
        self._lock = threading.Lock()
        self._done_at: dict[int, float] = {}  # rank -> when its "done" arrived
        self._sends: list[tuple[list, Any]] = []  # (requests, buffers) in flight
        # Messages (other than control) sent to / received from each rank: when the
        # grid ends, each rank takes every message sent to it before the grid's
        # communicator is freed (a stale message would match in a later one).
        self.sent = [0] * self.num_processes
        self.got = [0] * self.num_processes
        self._expect: dict[int, int] = {}  # rank -> messages it sent here, all told

    def pid_of(self, rank: int) -> ProcessId:
        return divmod(rank, self.num_partitions)

    def _who(self, ranks: list[int]) -> str:
        return f"processes {[self.pid_of(r) for r in ranks]} (ranks {ranks})"

    # ------------------------------------------------------------------ control
    def poll(self) -> None:
        """Read the control messages that arrived; let finished sends go."""
        mpi = self.MPI
        with self._lock:
            st = mpi.Status()
            while self.comm.Iprobe(mpi.ANY_SOURCE, TAG_CTRL, st):
                src = st.Get_source()
                buf = np.empty(st.Get_count(mpi.BYTE), np.uint8)
                self.comm.Recv([buf, mpi.BYTE], src, TAG_CTRL)
                msg = loads(buf)
                self._expect[src] = msg["sent"]
                if msg["error"] is not None and self.failure is None:
                    self.failure = msg["error"]
                if msg["state"] == "done":
                    self._done_at[src] = time.monotonic()
            self._sends = [
                (reqs, keep) for reqs, keep in self._sends if not mpi.Request.Testall(reqs)
            ]

    def announce(self, error: dict[str, Any] | None) -> None:
        """Tell every other rank of the grid that this process stopped (and how many
        messages it sent to that rank)."""
        mpi = self.MPI
        state = "failed" if error is not None else "done"
        for r in range(self.num_processes):
            if r != self.rank:
                msg = dumps({"state": state, "error": error, "sent": self.sent[r]})
                req = self.comm.Isend([msg, mpi.BYTE], r, TAG_CTRL)
                with self._lock:
                    self._sends.append(([req], msg))

    def close(self) -> None:
        """The end of the grid on this rank: wait for every other rank's announcement,
        take (and drop) the messages sent here that nobody received (values of an
        aborted collective, channel values never taken), and let this rank's own sends
        finish, so that the communicator can be freed."""
        mpi, comm = self.MPI, self.comm
        peers = [r for r in range(self.num_processes) if r != self.rank]
        poll_until(lambda: all(r in self._expect for r in peers), self.poll)
        st = mpi.Status()
        for r in peers:
            while self.got[r] < self._expect[r]:
                poll_until(partial(comm.Iprobe, r, mpi.ANY_TAG, st), lambda: None)
                buf = np.empty(st.Get_count(mpi.BYTE), np.uint8)
                comm.Recv([buf, mpi.BYTE], r, st.Get_tag())
                self.got[r] += 1
        poll_until(lambda: not self._pending(), lambda: None)

    def _pending(self) -> bool:
        with self._lock:
            self._sends = [(q, k) for q, k in self._sends if not self.MPI.Request.Testall(q)]
            return bool(self._sends)

    def _stop_if_failed(self) -> None:
        self.poll()
        if self.failure is not None:
            raise GridAborted("aborted: another process of the grid failed")

    def _gone(self, ranks: list[int]) -> list[int]:
        """Those of ``ranks`` that finished (a little while ago: their last messages
        have had time to arrive)."""
        now = time.monotonic()
        return [r for r in ranks if r in self._done_at and now - self._done_at[r] > GRACE]

    def _deadlock(
        self, pid: ProcessId, what: str, ranks: list[int], op: Operation | None, why: str
    ):
        return InterpreterError(
            f"deadlock detected: process {pid} (rank {self.rank}) waits in {what} for "
            f"{self._who(ranks)}, {why}",
            op.pos if op is not None else None,
            op=op.name if op is not None else None,
        )

    def _waiter(self, pid: ProcessId, what: str, op: Operation | None, missing):
        """The ``check`` of a wait: abort, a finished peer, the deadline."""
        deadline = time.monotonic() + self.deadlock_timeout

        def check() -> None:
            self._stop_if_failed()
            left = missing()
            gone = self._gone(left)
            if gone:
                raise self._deadlock(pid, what, gone, op, "which finished without reaching it")
            if time.monotonic() > deadline:
                raise self._deadlock(
                    pid,
                    what,
                    left,
                    op,
                    f"which did not arrive within {self.deadlock_timeout:g} s (deadlock_timeout)",
                )

        return check

    # ------------------------------------------------------------------ collectives
    def rendezvous(
        self,
        pid: ProcessId,
        kind: str,
        channel_id: int,
        group: Any,
        value: Any,
        op: Operation | None = None,
    ) -> dict[ProcessId, Any]:
        """Every member's ``value`` (an array or a tuple of arrays), once all of
        ``group`` has reached this execution of the collective."""
        mpi, comm = self.MPI, self.comm
        group = tuple(group)
        single = isinstance(value, np.ndarray)
        arrays = as_arrays([value] if single else value)
        base = (kind, channel_id, group)
        n = self._counts.get(base, 0)
        self._counts[base] = n + 1
        peers = [self.index(q) for q in group if q != pid]
        if not peers:
            return {pid: value}
        what = describe_op(op, kind)
        key = json.loads(json.dumps([kind, channel_id, group, n]))
        header = dumps({"key": key, "what": what, "arrays": describe(arrays)})
        reqs = []
        for r in peers:
            reqs.append(comm.Isend([header, mpi.BYTE], r, TAG_HDR))
            self.sent[r] += 1
        metas = self._headers(pid, peers, key, what, op)
        bufs = self._pairwise(peers, [raw(a) for a in arrays], metas, reqs)
        self._transfer(reqs, pid, what, op, peers)
        out: dict[ProcessId, Any] = {}
        for q in group:
            if q == pid:
                out[q] = value
                continue
            r = self.index(q)
            got = [from_raw(b, m) for b, m in zip(bufs[r], metas[r])]
            out[q] = got[0] if single else tuple(got)
        return out

    def _pairwise(
        self, peers: list[int], mine: list[np.ndarray], metas: dict[int, list], reqs: list
    ) -> dict[int, list[np.ndarray]]:
        """Each operand to each peer point to point; returns each peer's byte buffers."""
        mpi, comm = self.MPI, self.comm
        bufs: dict[int, list[np.ndarray]] = {}
        for r in peers:
            reqs.extend(comm.Isend([b, mpi.BYTE], r, TAG_DATA) for b in mine)
            bufs[r] = [np.empty(nbytes(m), np.uint8) for m in metas[r]]
            reqs.extend(comm.Irecv([b, mpi.BYTE], r, TAG_DATA) for b in bufs[r])
            self.sent[r] += len(mine)
            self.got[r] += len(bufs[r])
        return bufs

    def _headers(
        self, pid: ProcessId, peers: list[int], key: list, what: str, op: Operation | None
    ) -> dict[int, list]:
        """Every peer's header for this rendezvous: its operands' dtypes and shapes."""
        mpi, comm = self.MPI, self.comm
        got: dict[int, dict[str, Any]] = {}
        st = mpi.Status()

        def done() -> bool:
            for r in peers:
                if r not in got and comm.Iprobe(r, TAG_HDR, st):
                    buf = np.empty(st.Get_count(mpi.BYTE), np.uint8)
                    comm.Recv([buf, mpi.BYTE], r, TAG_HDR)
                    self.got[r] += 1
                    h = loads(buf)
                    if h["key"] != key:
                        raise self._deadlock(
                            pid, what, [r], op, f"which is in {h['what']} (mismatched collectives)"
                        )
                    got[r] = h
            return len(got) == len(peers)

        poll_until(done, self._waiter(pid, what, op, lambda: [r for r in peers if r not in got]))
        return {r: h["arrays"] for r, h in got.items()}

    def _transfer(
        self, reqs: list, pid: ProcessId, what: str, op: Operation | None, peers: list[int]
    ) -> None:
        """Wait for the data (every peer is there: poll without sleeping)."""
        mpi = self.MPI
        poll_until(
            lambda: mpi.Request.Testall(reqs), self._waiter(pid, what, op, lambda: peers), busy=True
        )

    # ------------------------------------------------------------------ channels
    def send(self, channel: Any, values: Any) -> None:
        """Send ``values`` to the process that receives on ``channel`` (never blocks)."""
        mpi = self.MPI
        if channel[0] == "p2p":
            dest = self.index(channel[3])
        else:
            found = self.receivers.get(int(channel[1]))
            if found is None:
                return  # no process receives on this channel: nobody can see the value
            dest = found
        arrays = as_arrays(values)
        header = dumps({"channel": list(channel), "arrays": describe(arrays)})
        bufs = [raw(a).copy() for a in arrays]  # the sender may go on and reuse its arrays
        tag = channel_tag(channel)
        reqs = [self.comm.Isend([header, mpi.BYTE], dest, tag)]
        reqs.extend(self.comm.Isend([b, mpi.BYTE], dest, tag + 1) for b in bufs)
        self.sent[dest] += len(reqs)
        with self._lock:
            self._sends.append((reqs, (header, bufs)))

    def recv(self, pid: ProcessId, channel: Any, op: Operation | None = None) -> Any:
        """The next values sent on ``channel`` to this process, waiting for them."""
        mpi, comm = self.MPI, self.comm
        source = self.index(channel[2]) if channel[0] == "p2p" else mpi.ANY_SOURCE
        tag = channel_tag(channel)
        st = mpi.Status()
        found: dict[str, Any] = {}

        def done() -> bool:
            if not comm.Iprobe(source, tag, st):
                return False
            src = st.Get_source()
            buf = np.empty(st.Get_count(mpi.BYTE), np.uint8)
            comm.Recv([buf, mpi.BYTE], src, tag)
            self.got[src] += 1
            found.update(header=loads(buf), src=src)
            return True

        what = describe_op(op, "recv")
        senders = [source] if channel[0] == "p2p" else []
        poll_until(done, self._waiter(pid, what, op, lambda: senders))
        h, src = found["header"], found["src"]
        if h["channel"] != json.loads(json.dumps(channel)):
            raise InterpreterError(
                f"channel mix-up: {what} on {tuple(channel)} got a value sent on "
                f"{tuple(h['channel'])} (their channel ids are equal modulo 2**19)"
            )
        bufs = [np.empty(nbytes(m), np.uint8) for m in h["arrays"]]
        reqs = [comm.Irecv([b, mpi.BYTE], src, tag + 1) for b in bufs]
        self.got[src] += len(reqs)
        self._transfer(reqs, pid, what, op, [src])
        return tuple(from_raw(b, m) for b, m in zip(bufs, h["arrays"]))
