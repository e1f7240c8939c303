"""The memory budget: what a run may allocate, checked before it allocates.

Two limits (``MemoryBudget``):

* ``per_tensor``: the bytes of any one tensor a program asks for: an op's result
  (static result types are checked by the hook before each step of a block whose
  static bytes exceed a cap, engine/emit.py's CAPS mode), and what a kernel allocates
  from operand values (dynamic shapes: ``dynamic_iota``, ``dynamic_broadcast_in_dim``,
  ``dynamic_reshape``, ``dynamic_pad``, ``rng`` with a shape operand; ``pad``'s
  intermediate), checked with ``reserve``;
* ``live``: the bytes of the tensors live at once in a block (each step's results plus
  the values still to be used, from the static types and the plan's liveness; values
  of enclosing blocks and constants, which the module already holds, are not counted).

Both default to half of the available memory: the cgroup limit when one is set
(``/sys/fs/cgroup/memory.max``, or cgroup v1's ``memory.limit_in_bytes``), else the
physical memory.  ``engine.run(..., memory_cap=...)`` takes bytes (the per-tensor cap;
the live cap stays the default, or the per-tensor cap when that is larger) or a
``MemoryBudget``.  Exceeding either raises ``InterpreterError`` naming the op, its
location, the bytes asked and the cap.

Constants never cost more than their text: a splat (``dense<0> :
tensor<1000000000xi64>``) is a read-only zero-stride view of one element
(``parser.attributes.splat_array``), and an op that needs its elements is an op
whose result is checked like any other.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from contextvars import ContextVar
from dataclasses import dataclass

import numpy as np

from ..parser.errors import InterpreterError

_CGROUP_FILES = ("/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes")


def _cgroup_limit() -> int | None:
    """The cgroup memory limit in bytes, or None when there is none."""
    for path in _CGROUP_FILES:
        try:
            with open(path) as f:
                text = f.read().strip()
        except OSError:
            continue
        if text.isdigit() and int(text) < 1 << 60:  # "max" / a huge v1 value: no limit
            return int(text)
    return None


def _physical_memory() -> int | None:
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        return None


def available_memory() -> int:
    """The memory this process may use: the cgroup limit if set, else physical memory
    (8 GiB when neither can be read)."""
    found = [m for m in (_cgroup_limit(), _physical_memory()) if m]
    return min(found) if found else 8 << 30


@dataclass(frozen=True)
class MemoryBudget:
    """The two limits of a run, in bytes (module docstring)."""

    per_tensor: int
    live: int


DEFAULT_CAP = max(available_memory() // 2, 1 << 26)
"""Half of the available memory: the default of both limits."""

DEFAULT_BUDGET = MemoryBudget(DEFAULT_CAP, DEFAULT_CAP)


def budget_of(cap: int | MemoryBudget | None) -> MemoryBudget:
    """``run``'s ``memory_cap``: bytes per tensor (the live cap stays the default, or
    this one if larger), a ``MemoryBudget``, or None (the default budget)."""
    if cap is None:
        return DEFAULT_BUDGET
    if isinstance(cap, MemoryBudget):
        return cap
    if isinstance(cap, bool) or not isinstance(cap, int | np.integer) or cap < 0:
        raise InterpreterError(f"memory_cap must be a number of bytes, got {cap!r}")
    cap = int(cap)
    return MemoryBudget(cap, max(cap, DEFAULT_CAP))


# The budget of the run in progress (set by the interpreter for each top-level call;
# each thread of a process grid runs its own interpreter, so its own value).
_current: ContextVar[MemoryBudget] = ContextVar("hlorun_memory_budget", default=DEFAULT_BUDGET)


def current_budget_var() -> ContextVar[MemoryBudget]:
    """The context variable ``reserve`` reads (for generated code: engine/entry.py)."""
    return _current


def set_current(budget: MemoryBudget) -> object:
    """Make ``budget`` the one ``reserve`` checks; returns a token for ``reset_current``
    (None when ``budget`` is already the current one: nothing to set or reset)."""
    if _current.get() is budget:
        return None
    return _current.set(budget)


def reset_current(token: object) -> None:
    if token is not None:
        _current.reset(token)  # type: ignore[arg-type]


def nbytes_of(shape: Iterable[int], dtype: np.dtype | type) -> int:
    """Bytes of an array of ``shape`` and ``dtype`` (exact, with Python integers)."""
    n = np.dtype(dtype).itemsize
    for d in shape:
        n *= int(d)
    return n


def held_nbytes(a: object) -> int:
    """The bytes an array holds in memory: one element per zero-stride dimension
    (a lazy splat, a broadcast view) counts once."""
    if not isinstance(a, np.ndarray):
        return int(getattr(a, "nbytes", 0))
    n = a.itemsize
    for d, s in zip(a.shape, a.strides):
        if s != 0:
            n *= d
    return n if a.size else 0


def reserve(shape: Iterable[int], dtype: np.dtype | type, what: str = "result") -> None:
    """Check an allocation a kernel is about to make against the per-tensor cap of the
    run in progress; raises ``InterpreterError`` (the step adds the op and location)."""
    shape = tuple(shape)
    nbytes = nbytes_of(shape, dtype)
    cap = _current.get().per_tensor
    if nbytes > cap:
        raise InterpreterError(
            f"{what} of shape {list(map(int, shape))} would take {nbytes} bytes, more than the "
            f"per-tensor memory cap of {cap} bytes"
        )


def tensor_cap_error(nbytes: int, cap: int) -> str:
    """The message of a static result over the per-tensor cap."""
    return f"result would take {nbytes} bytes, more than the per-tensor memory cap of {cap} bytes"


def live_cap_error(nbytes: int, cap: int) -> str:
    """The message of a step whose live tensors would exceed the live cap."""
    return (
        f"live tensors would take {nbytes} bytes at this op, more than the live memory "
        f"cap of {cap} bytes"
    )
