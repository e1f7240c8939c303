"""``engine.compile``: parse, verify and plan a program once; run it many times.

    prog = engine.compile(text_or_path_or_module)        # entry: main, or the only one
    (y,) = prog(x)                                      # NumPy arrays in and out

A ``Program`` keeps its interpreter and the entry function's plan (kernels resolved,
attributes decoded, constants evaluated), so each call only executes.  Calls are not
reentrant: one program runs in one thread at a time.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ..parser.errors import InterpreterError, UnsupportedError
from ..parser.ir import Function, Module

from .grid import ProcessGrid, ProcessHandle
from .interpreter import DEFAULT_MEMORY_CAP, Interpreter, Limits, Profile

_ndarray = np.ndarray


class Program:
    """A prepared entry function of a module: ``program(*inputs) -> list of arrays``."""

    def __init__(
        self,
        module: str | os.PathLike | Module,
        function: str | None = None,
        *,
        verify: bool = True,
        memory_cap: int = DEFAULT_MEMORY_CAP,
        max_steps: int | None = None,
        timeout: float | None = None,
        float_eq: str = "bitwise",
        probe_dir: str | os.PathLike | None = None,
        callback: Callable[[str, Any, list[Any]], None] | None = None,
        profile: bool | Profile | None = None,
        deadlock_timeout: float | None = None,
        host_channels: dict[int, list[Any]] | None = None,
        single_process: bool = True,
    ):
        from .api import _grid_size, entry_function, load_module

        mod = load_module(module)
        if verify:
            from ..shape_inference import verify_module

            verify_module(mod)
        self.module = mod
        self.function = entry_function(mod, function)
        if single_process:
            n = _grid_size(mod, "mhlo.num_replicas", None) * _grid_size(
                mod, "mhlo.num_partitions", None
            )
            if n > 1:
                raise UnsupportedError(
                    f"the module declares a grid of {n} processes: engine.compile runs one "
                    "process; use engine.run (num_replicas=, num_partitions=)"
                )
        self.timeout = timeout
        self.deadlock_timeout = deadlock_timeout
        self.host_channels = host_channels
        if profile is True:
            profile = Profile()
        self.profile: Profile | None = profile or None
        self.interpreter = Interpreter(
            mod,
            limits=Limits(memory_cap=memory_cap, max_steps=max_steps, timeout=timeout),
            context={
                "float_eq": float_eq,
                "probe_dir": os.fspath(probe_dir) if probe_dir is not None else None,
                "callback": callback,
            },
            profile=self.profile,
        )
        self._plan = self.interpreter.plan(self.function.name)
        self._fast_inputs = _input_signature(self.function)
        # nothing to set up per run: no limit, profile, callback or host channels
        self._plain = (
            max_steps is None and timeout is None and callback is None
            and self.profile is None and deadlock_timeout is None and host_channels is None
        )
        self.interpreter._update_mode()

    def __call__(
        self,
        *inputs: Any,
        infeed: Sequence[Any] | None = None,
        outfeed: list[Any] | None = None,
    ) -> list[Any]:
        """Run the entry function on ``inputs`` (NumPy arrays or Python scalars of its
        argument types); ``infeed`` / ``outfeed`` as in ``engine.run``."""
        sig = self._fast_inputs
        args: list[Any] | None = None
        if sig is not None and len(inputs) == len(sig):
            # the common case: arrays of exactly the declared types
            args = list(inputs)
            for x, (dt, shape) in zip(inputs, sig):
                if x.__class__ is not _ndarray or x.dtype != dt or x.shape != shape:
                    args = None
                    break
        if args is None:
            args = check_inputs(self.function, inputs)
        if self._plain and infeed is None and outfeed is None:
            self._reset_context(None, None)
            return self.interpreter.call_plain(self._plan, args)
        return self.execute(args, infeed=infeed, outfeed=outfeed)

    def _reset_context(self, infeed: Sequence[Any] | None, outfeed: list[Any] | None) -> None:
        """What one run's kernels see afresh: feeds, probe counts, printed lines, and a
        process grid handle only when deadlock detection or host channels are asked for
        (otherwise a 1x1 grid is made on first use, engine.grid.process_of)."""
        ctx = self.interpreter.context
        if self.deadlock_timeout is None and self.host_channels is None:
            ctx.process = None
        else:
            ctx.process = ProcessHandle(
                ProcessGrid(1, 1, deadlock_timeout=self.deadlock_timeout,
                            host_channels=self.host_channels)
            )
        ctx.infeed = list(infeed) if infeed is not None else []
        ctx.outfeed = outfeed if outfeed is not None else []
        ctx.probe_counts = {}
        ctx.printed = []

    def execute(
        self,
        args: Sequence[Any],
        *,
        infeed: Sequence[Any] | None = None,
        outfeed: list[Any] | None = None,
    ) -> list[Any]:
        """Run on ``args`` already checked by ``check_inputs``."""
        interp = self.interpreter
        limits = interp.limits
        limits.steps = 0
        limits.deadline = time.monotonic() + self.timeout if self.timeout is not None else None
        self._reset_context(infeed, outfeed)
        if self.profile is not None:
            self.profile.runs += 1
        return list(interp.call(self.function.name, args))


def _input_signature(fn: Function) -> list[tuple[np.dtype, tuple[int, ...]]] | None:
    """(dtype, shape) of each argument when all are static tensors; None otherwise."""
    from ..parser.ir import TensorType, numpy_dtype

    sig = []
    for t in fn.type.inputs:
        if not isinstance(t, TensorType) or not t.is_static:
            return None
        try:
            sig.append((numpy_dtype(t), tuple(t.shape)))
        except (TypeError, ValueError):
            return None
    return sig


def check_inputs(fn: Function, inputs: Sequence[Any]) -> list[Any]:
    """``inputs`` as the arrays ``fn`` takes (Python scalars converted), or an error
    naming the argument whose count, dtype or shape is wrong."""
    from .api import _check_input

    arg_types = fn.type.inputs
    if len(inputs) != len(arg_types):
        raise InterpreterError(
            f"@{fn.name} takes {len(arg_types)} arguments, got {len(inputs)}", fn.pos
        )
    return [_check_input(i, v, t, fn) for i, (v, t) in enumerate(zip(inputs, arg_types))]


def compile(  # noqa: A001  (the public name, like re.compile)
    module: str | os.PathLike | Module, function: str | None = None, **options: Any
) -> Program:
    """Prepare ``module``'s entry function (``function``, else ``main``, else the only
    one) once; see ``Program`` for the options (those of ``engine.run``)."""
    return Program(module, function, **options)
