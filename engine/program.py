"""``engine.compile``: plan a verified program once; run it many times.

    prog = hlorun.compile(text_or_bytes_or_path_or_module)  # entry: main, or the only one
    (y,) = prog(x)                                          # NumPy arrays in and out

The pipeline is load -> verify -> plan -> execute, each stage once (engine/api.py
caches the first three for ``run``).  A ``Program`` keeps its interpreter and the entry
function's plan (kernels resolved, attributes decoded, constants evaluated), so each
call only executes.  A module that declares a process grid (``mhlo.num_replicas`` x
``mhlo.num_partitions``, or the ``num_replicas`` / ``num_partitions`` options) runs
on ``engine.grid``: the grid is how a Program executes, not a second entry point.
Calls are not reentrant: one program runs in one thread at a time.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from ..parser.errors import HloError, InterpreterError
from ..parser.ir import Function, Module, TensorType, TupleType, numpy_dtype
from ..shape_inference.mesh_groups import inline_mesh_symbols
from .grid import ProcessGrid, ProcessHandle, run_grid
from .gspmd import is_gspmd_global, outline_manual_regions
from .interpreter import Interpreter, Profile
from .loading import (
    check_input,
    check_inputs,
    entry_function,
    grid_size,
    owned_grid_results,
    owned_results,
    prepare,
    with_origin,
)
from .options import RunOptions, options_of
from .platform_index import takes_platform_index, with_platform_index

_ndarray = np.ndarray


class Program:
    """A prepared entry function of a module: ``program(*inputs) -> list of arrays``."""

    def __init__(
        self,
        module: str | bytes | os.PathLike | Module,
        function: str | None = None,
        *,
        options: RunOptions | None = None,
        **kwargs: Any,
    ):
        """``options``: a ``RunOptions`` record; or its fields as keyword arguments
        (``function``, ``max_steps``, ...), which also amend a given record."""
        if options is None:
            options = options_of("Program", {"function": function, **kwargs})
        elif function is not None or kwargs:
            options = options.replace(**({"function": function} if function else {}), **kwargs)
        self.options = options
        # loaded and verified once per source (engine/api.py's cache)
        mod = prepare(module, verify=options.verify)
        # replica groups naming a mesh by symbol get the mesh the symbol holds
        mod = inline_mesh_symbols(mod)
        self.module = mod
        self.function = entry_function(mod, options.function)
        self.takes_platform_index = takes_platform_index(self.function)
        self._busy = threading.Lock()
        self.num_replicas = grid_size(mod, "mhlo.num_replicas", options.num_replicas)
        self.num_partitions = grid_size(mod, "mhlo.num_partitions", options.num_partitions)
        self._grid = self.num_replicas * self.num_partitions > 1
        profile = options.profile
        if profile is True:
            profile = Profile()
        self.profile: Profile | None = profile or None
        # the entry's call (Interpreter.plain_runner), or None: every call takes _call
        self._run_plain: Callable[[Sequence[Any]], list[Any] | None] | None = None
        if self.num_processes > 1:
            if self.profile is not None:
                raise InterpreterError("profiling runs one process; this program has a grid")
            self._fast_inputs = None
            self._plain = False
            return
        if self.num_partitions == 1 and is_gspmd_global(mod):
            mod = outline_manual_regions(mod)  # its manual regions run per device
        self.interpreter = Interpreter(
            mod, limits=options.limits(), context=options.context(), profile=self.profile
        )
        self._plan = self.interpreter.plan(self.function.name)
        self._fast_inputs = _input_signature(self.function)
        # nothing to set up per run: no limit, profile, callback or host channels
        self._plain = options.plain
        self.interpreter._update_mode()
        sig = self._fast_inputs
        # (a run that sets up a process grid handle takes the general path)
        if (
            sig is not None
            and options.grid == "threads"
            and options.deadlock_timeout is None
            and options.host_channels is None
        ):
            self._run_plain = self.interpreter.plain_runner(self._plan, sig, options.timeout)

    def __call__(
        self,
        *inputs: Any,
        infeed: Sequence[Any] | Mapping[tuple[int, int], Sequence[Any]] | None = None,
        outfeed: list[Any] | None = None,
    ) -> list[Any]:
        """Run the entry function on ``inputs`` (NumPy arrays or Python scalars of its
        argument types); ``infeed`` / ``outfeed`` as in ``engine.run``.  With a process
        grid, see ``engine.run`` for the per-process forms of inputs and results."""
        if self.takes_platform_index:  # the index argument, when inputs leave it out
            o = self.options
            inputs = tuple(with_platform_index(self.function, inputs, o.platform, o.platforms))
        fast = self._run_plain
        if fast is not None and infeed is None and outfeed is None:
            try:
                out = fast(inputs)  # None: not the common case, take the general path
            except HloError as e:  # the error path only: name the user's source line
                with_origin(e, self.module)
                raise
            except RuntimeError:  # its quiet context is in use (engine/entry.py)
                out = None
            if out is not None:
                return out
        if self.options.grid == "mpi":
            # imported here: it imports mpi4py, which initializes MPI
            from .grid_mpi import mpi_session

            with mpi_session(self.module, self.function.name, self.num_processes):
                return self._call(inputs, infeed, outfeed)
        return self._call(inputs, infeed, outfeed)

    def _call(self, inputs: Sequence[Any], infeed: Any, outfeed: list[Any] | None) -> list[Any]:
        if self._grid:
            return owned_grid_results(self._execute_grid(inputs, infeed, outfeed), inputs)
        sig = self._fast_inputs
        args: list[Any] | None = None
        if sig is not None and len(inputs) == len(sig):
            # the common case: arrays of exactly the declared types
            args = list(inputs)
            for x, (dt, shape) in zip(inputs, sig):
                if x.__class__ is not _ndarray or x.dtype != dt or x.shape != shape:
                    args = None
                    break
        try:
            if args is None:
                args = check_inputs(self.function, inputs)
            if self._plain and infeed is None and outfeed is None:
                self._reset_context(None, None)
                return owned_results(list(self.interpreter.call(self.function.name, args)), args)
            return owned_results(self.execute(args, infeed=infeed, outfeed=outfeed), args)
        except HloError as e:  # the error path only: name the user's source line
            with_origin(e, self.module)
            raise

    def claim(self) -> bool:
        """Take the program for one call (engine.api's cache): False when another thread
        is running it."""
        return self._busy.acquire(blocking=False)

    def release(self) -> None:
        self._busy.release()

    @property
    def num_processes(self) -> int:
        return self.num_replicas * self.num_partitions

    def _reset_context(self, infeed: Sequence[Any] | None, outfeed: list[Any] | None) -> None:
        """What one run's kernels see afresh: feeds, probe counts, printed lines, and a
        process grid handle only when deadlock detection or host channels are asked for
        (otherwise a 1x1 grid is made on first use, engine.grid.process_of)."""
        ctx = self.interpreter.context
        o = self.options
        if o.deadlock_timeout is None and o.host_channels is None:
            ctx.process = None
        else:
            grid = ProcessGrid(
                1, 1, deadlock_timeout=o.deadlock_timeout, host_channels=o.host_channels
            )
            ctx.process = ProcessHandle(grid)
        ctx.infeed = list(infeed) if infeed is not None else []
        ctx.outfeed = outfeed if outfeed is not None else []
        ctx.probe_counts = {}
        ctx.printed = []

    def execute(
        self,
        args: Sequence[Any],
        *,
        infeed: Sequence[Any] | Mapping[tuple[int, int], Sequence[Any]] | None = None,
        outfeed: list[Any] | None = None,
    ) -> list[Any]:
        """Run on ``args`` already checked by ``check_inputs`` (one process)."""
        if isinstance(infeed, Mapping):
            raise InterpreterError(
                "a per-process infeed dict needs a process grid of more than one process"
            )
        interp = self.interpreter
        interp.start_run(self.options.timeout)
        self._reset_context(infeed, outfeed)
        return list(interp.call(self.function.name, args))

    def _execute_grid(
        self, inputs: Sequence[Any], infeed: Any, outfeed: list[Any] | None
    ) -> list[Any]:
        """One run on the ``num_replicas`` x ``num_partitions`` grid (spec "Parallel
        execution"): each process runs the entry function in its own thread; the result
        is one result list per process, row-major over (replica_id, partition_id)."""
        nr, np_ = self.num_replicas, self.num_partitions
        n = nr * np_
        fn = self.function
        arg_types = fn.type.inputs
        inputs = list(inputs)
        per_process = (
            len(inputs) == n
            and all(isinstance(x, list | tuple) for x in inputs)
            and not (len(arg_types) == n and all(isinstance(t, TupleType) for t in arg_types))
        )
        lists = [list(x) for x in inputs] if per_process else [inputs] * n
        args = []
        for i, xs in enumerate(lists):
            if len(xs) != len(arg_types):
                who = f" (process #{i})" if per_process else ""
                raise InterpreterError(
                    f"@{fn.name} takes {len(arg_types)} arguments, got {len(xs)}{who}", fn.pos
                )
            args.append([check_input(j, v, t, fn) for j, (v, t) in enumerate(zip(xs, arg_types))])
        pids = [(r, p) for r in range(nr) for p in range(np_)]
        if isinstance(infeed, Mapping):
            unknown = [k for k in infeed if k not in pids]
            if unknown:
                raise InterpreterError(
                    f"infeed for processes {unknown} outside the {nr} x {np_} grid"
                )
            feeds = [list(infeed.get(pid, ())) for pid in pids]
        else:
            shared = list(infeed) if infeed is not None else []
            feeds = [shared] * n
        outs: list[list[Any]] = [[] for _ in pids]
        if outfeed is not None:
            outfeed.extend(outs)
        timeout = self.options.timeout
        results = run_grid(
            self.module,
            [[fn.name] * np_ for _ in range(nr)],
            args,
            interpreter=Interpreter,
            options=self.options,
            deadline=time.monotonic() + timeout if timeout is not None else None,
            infeed=feeds,
            outfeed=outs,
        )
        return [list(r) if r is not None else None for r in results]  # None: on another rank

    def print_profile(self) -> None:
        """The profile table on stderr (``profile=True``)."""
        if self.profile is not None:
            print(self.profile.table(), file=sys.stderr)


def _input_signature(fn: Function) -> list[tuple[np.dtype, tuple[int, ...]]] | None:
    """(dtype, shape) of each argument when all are static tensors; None otherwise."""
    sig = []
    for t in fn.type.inputs:
        if not isinstance(t, TensorType) or t.shape is None or None in t.shape:
            return None
        try:
            sig.append((numpy_dtype(t), tuple(d for d in t.shape if d is not None)))
        except (TypeError, ValueError):
            return None
    return sig
