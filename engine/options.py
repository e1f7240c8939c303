"""``RunOptions``: every option of ``run``, ``compile`` and ``Program`` as one frozen,
hashable record; it is also the key of ``run``'s program cache (engine/api.py).

Equality and hash take the values of the plain fields (names, numbers, strings) and the
identity of the objects a run calls or fills (``callback``, ``profile``,
``host_channels``): a callable need not be hashable, and two equal dicts are two
channels.  A record in the cache holds its objects, so an identity stays unique while
it is a key.  The interpreter's own records (``engine.plan.Limits``, the kernels'
``ExecutionContext``) are made from it (``limits``, ``context``).
"""

from __future__ import annotations

import dataclasses
import difflib
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ..parser.errors import HloTypeError, InterpreterError
from .memory import MemoryBudget, budget_of
from .plan import DEFAULT_MEMORY_CAP, Limits, Profile

GRIDS = ("threads", "mpi")
"""``grid``: processes on threads of this process, or one per MPI rank (engine/grid_mpi.py)."""

CALL_ARGUMENTS = ("infeed", "outfeed")
"""``run``'s per-call keywords: data of one call (``Program.__call__``), not options."""


@dataclass(frozen=True, eq=False)
class RunOptions:
    """The options of a run (``engine.run``'s docstring says what each does)."""

    function: str | None = None  # the entry: else main, else the only function
    verify: bool = True
    memory_cap: int | MemoryBudget = DEFAULT_MEMORY_CAP  # engine/memory.py
    max_steps: int | None = None
    timeout: float | None = None  # seconds
    float_eq: str = "bitwise"  # check.expect_*: "bitwise" (spec) or "ieee"
    probe_dir: str | os.PathLike | None = None  # interpreter.probe's files
    callback: Callable[[str, Any, list[Any]], None] | None = None  # sees every op's results
    profile: bool | Profile | None = None  # True: a table on stderr after the run
    num_replicas: int | None = None  # the process grid (default: the module's attributes)
    num_partitions: int | None = None
    deadlock_timeout: float | None = None  # seconds a process waits for its peers
    host_channels: dict[int, list[Any]] | None = None  # channel id -> list (send / recv)
    platform: str | int | None = None  # a multi-platform export's platform index or name
    platforms: tuple[str, ...] | None = None  # the export's platform names
    grid: str = "threads"  # or "mpi"
    _key: tuple = field(init=False, repr=False)
    _hash: int = field(init=False, repr=False)

    def __post_init__(self) -> None:
        if self.grid != "threads" and self.grid not in GRIDS:
            raise InterpreterError(f"unknown grid {self.grid!r}: 'threads' or 'mpi'")
        if self.memory_cap is not DEFAULT_MEMORY_CAP:
            budget_of(self.memory_cap)  # a clear error now for a cap that is not a size
        if self.probe_dir is not None and self.probe_dir.__class__ is not str:
            object.__setattr__(self, "probe_dir", os.fspath(self.probe_dir))
        if self.platforms is not None and self.platforms.__class__ is not tuple:
            object.__setattr__(self, "platforms", tuple(self.platforms))
        key = (
            self.function,
            self.verify,
            self.memory_cap,
            self.max_steps,
            self.timeout,
            self.float_eq,
            self.probe_dir,
            id(self.callback),  # by identity (module docstring; None, True: singletons)
            id(self.profile),
            self.num_replicas,
            self.num_partitions,
            self.deadlock_timeout,
            id(self.host_channels),
            self.platform,
            self.platforms,
            self.grid,
        )
        object.__setattr__(self, "_key", key)
        object.__setattr__(self, "_hash", hash(key))

    def __eq__(self, other: object) -> bool:
        if self is other:
            return True
        if other.__class__ is not RunOptions:
            return NotImplemented
        return self._hash == other._hash and self._key == other._key  # type: ignore[attr-defined]

    def __hash__(self) -> int:
        return self._hash

    @property
    def cacheable(self) -> bool:
        """A Program made with these options may serve later runs: no per-run state to
        collect (a profile, host channels)."""
        return not self.profile and self.host_channels is None

    @property
    def plain(self) -> bool:
        """Nothing to set up or check per run: no limit but memory, no callback, profile,
        deadlock detection or host channels."""
        return (
            self.max_steps is None
            and self.timeout is None
            and self.callback is None
            and not self.profile
            and self.deadlock_timeout is None
            and self.host_channels is None
        )

    def replace(self, **changes: Any) -> RunOptions:
        """These options with ``changes`` (unknown names: ``HloTypeError``)."""
        return options_of("replace", {**self.fields(), **changes})

    def fields(self) -> dict[str, Any]:
        """The options as keyword arguments."""
        return {name: getattr(self, name) for name in OPTION_NAMES}

    def limits(self) -> Limits:
        """A fresh ``Limits`` record (the interpreter counts steps in it)."""
        budget = budget_of(self.memory_cap)
        return Limits(
            memory_cap=budget.per_tensor,
            live_cap=budget.live,
            max_steps=self.max_steps,
            timeout=self.timeout,
        )

    def context(self) -> dict[str, Any]:
        """The fields of the kernels' ``ExecutionContext`` these options set."""
        return {"float_eq": self.float_eq, "probe_dir": self.probe_dir, "callback": self.callback}


OPTION_NAMES = tuple(f.name for f in dataclasses.fields(RunOptions) if f.init)

DEFAULT_OPTIONS = RunOptions()
"""The options of a run given none (``run``'s steady state compares with it by identity)."""


# Records made from keywords whose values are all plain (None, bools, numbers, strings):
# a run passing the same ones again (``timeout=60`` on every call) gets the same record
# without building it (a record costs more than a small program's run).  Objects keyed
# by identity never come from here: an equal object may be another one.
_MEMO: dict[tuple, RunOptions] = {}
_MEMO_SIZE = 256
_PLAIN_VALUES = frozenset({type(None), bool, int, float, str})


def options_of(where: str, options: Mapping[str, Any]) -> RunOptions:
    """``RunOptions(**options)``; an unknown name is an ``HloTypeError`` naming the close
    ones (``where``: the function the user called)."""
    plain = True
    for v in options.values():
        if v.__class__ not in _PLAIN_VALUES:
            plain = False
            break
    if plain:
        key = tuple(options.items())
        hit = _MEMO.get(key)
        if hit is not None:
            return hit
    try:
        made = RunOptions(**options)
    except TypeError:
        unknown = options.keys() - set(OPTION_NAMES)
        if unknown:
            raise unknown_options(where, unknown) from None
        raise
    if plain:
        if len(_MEMO) >= _MEMO_SIZE:
            _MEMO.clear()
        _MEMO[key] = made
    return made


def unknown_options(where: str, names: Any) -> HloTypeError:
    """The error for keyword arguments ``where`` does not take, with the close ones."""
    takes = (*OPTION_NAMES, *CALL_ARGUMENTS) if where == "run" else OPTION_NAMES
    parts = []
    for name in sorted(names):
        close = difflib.get_close_matches(name, takes, n=2)
        hint = f" (did you mean {' or '.join(close)}?)" if close else ""
        parts.append(f"'{name}'{hint}")
    return HloTypeError(
        f"{where}() got unexpected keyword arguments: {', '.join(parts)}; it takes "
        f"{', '.join(sorted(takes))}"
    )
