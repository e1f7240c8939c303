"""``engine.run``: the public entry point."""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ..parser import parse_module
from ..parser.errors import InterpreterError
from ..parser.ir import (
    Function,
    IntegerAttr,
    Module,
    TensorType,
    TokenType,
    TupleType,
    Type,
    numpy_dtype,
)

from .grid import GridRunOptions, run_grid
from .interpreter import DEFAULT_MEMORY_CAP, Profile
from .values import TOKEN, Token


def load_module(module: str | os.PathLike | Module) -> Module:
    """A Module from a Module, a path to a .mlir file, or MLIR text."""
    if isinstance(module, Module):
        return module
    if isinstance(module, os.PathLike):
        path = Path(module)
        return parse_module(path.read_text(), str(path))
    if isinstance(module, str):
        if "\n" not in module and "{" not in module and os.path.exists(module):
            return parse_module(Path(module).read_text(), module)
        return parse_module(module)
    raise TypeError(f"module must be MLIR text, a path or a parsed Module, not {type(module).__name__}")


def entry_function(module: Module, name: str | None = None) -> Function:
    """``name``, else ``main``, else the only function of the module."""
    funcs = module.functions
    if name is not None:
        if name not in funcs:
            raise InterpreterError(f"no function named @{name} in the module")
        return funcs[name]
    if "main" in funcs:
        return funcs["main"]
    if len(funcs) == 1:
        return next(iter(funcs.values()))
    if not funcs:
        raise InterpreterError("the module has no function to run")
    raise InterpreterError(
        f"the module has {len(funcs)} functions and none is @main: name the entry function"
    )


def _check_input(i: int, value: Any, t: Type, fn: Function) -> Any:
    if isinstance(t, TokenType):
        if value is None or isinstance(value, Token):
            return TOKEN
        raise InterpreterError(f"argument #{i} of @{fn.name} must be a token", fn.pos)
    if isinstance(t, TensorType):
        want = numpy_dtype(t)
        if not isinstance(value, np.ndarray):
            if isinstance(value, np.generic):
                value = np.asarray(value)
            elif isinstance(value, bool | int | float | complex):
                try:
                    value = np.asarray(value, dtype=want)
                except (OverflowError, ValueError) as e:
                    raise InterpreterError(
                        f"argument #{i} of @{fn.name}: {value!r} does not fit {t.element_type}", fn.pos
                    ) from e
            else:
                raise InterpreterError(
                    f"argument #{i} of @{fn.name} must be a NumPy array, not {type(value).__name__}",
                    fn.pos,
                )
        if value.dtype != want:
            raise InterpreterError(
                f"argument #{i} of @{fn.name} has dtype {value.dtype}, expected {want} "
                f"for element type {t.element_type}",
                fn.pos,
            )
        shape = t.shape
        if shape is not None and (
            len(shape) != value.ndim
            or any(d is not None and d != s for d, s in zip(shape, value.shape))
        ):
            dims = "x".join("?" if d is None else str(d) for d in shape)
            raise InterpreterError(
                f"argument #{i} of @{fn.name} has shape {value.shape}, expected {dims or 'a scalar'}",
                fn.pos,
            )
        return value
    return value


def run(
    module: str | os.PathLike | Module,
    inputs: Sequence[Any] = (),
    *,
    function: str | None = None,
    memory_cap: int = DEFAULT_MEMORY_CAP,
    max_steps: int | None = None,
    timeout: float | None = None,
    float_eq: str = "bitwise",
    probe_dir: str | os.PathLike | None = None,
    callback: Callable[[str, Any, list[Any]], None] | None = None,
    verify: bool = True,
    num_replicas: int | None = None,
    num_partitions: int | None = None,
    infeed: Sequence[Any] | Mapping[tuple[int, int], Sequence[Any]] | None = None,
    outfeed: list[Any] | None = None,
    deadlock_timeout: float | None = None,
    host_channels: dict[int, list[Any]] | None = None,
    profile: bool | Profile | None = None,
) -> list[Any]:
    """Run a StableHLO program and return its results as NumPy arrays.

    ``module`` is MLIR text, a path or a parsed ``Module``; ``inputs`` are NumPy arrays
    (or Python scalars) of the entry function's argument types; the entry is
    ``function``, else ``main``, else the only function.  ``memory_cap`` bounds the bytes
    of any one tensor; ``max_steps`` / ``timeout`` (seconds) stop runaway programs with
    an ``InterpreterError``.  ``callback(op_name, pos, results)`` sees every op's results.

    Process grid (spec "Parallel execution"): ``num_replicas`` x ``num_partitions``
    processes (default: the module's ``mhlo.num_replicas`` / ``mhlo.num_partitions``
    attributes, else 1 x 1).  With more than one process, each runs the entry function
    in its own thread and the result is a list of per-process result lists, row-major
    over (replica_id, partition_id): ``results[r * num_partitions + p]``.  ``inputs`` is
    then either one list of arguments shared by every process, or a list of
    ``num_processes`` lists / tuples of arguments (one per process, row-major).  With
    1 x 1 the result is the plain list of results.

    ``infeed``: the entries ``stablehlo.infeed`` reads, in order (each a tuple of
    arrays, or one array when the op has one payload result); with a grid, one list
    shared by all processes, or a dict ``{(replica_id, partition_id): entries}``.
    ``outfeed``: a list that ``stablehlo.outfeed`` appends a tuple of its inputs to;
    with a grid it receives one such list per process (row-major).
    ``deadlock_timeout`` (seconds, default ``engine.grid.DEFAULT_DEADLOCK_TIMEOUT``)
    bounds how long a process waits for its peers at a collective or a recv; a program
    whose processes all block is reported at once as a deadlock.
    ``host_channels``: ``{channel_id: list}`` for host transfers (``is_host_transfer``):
    ``send`` on such a channel appends a tuple of its inputs to the list, ``recv`` pops
    the list's first entry (a tuple of arrays, or one array).  Host transfers on other
    channels go between the grid's processes (first in, first out per channel).

    ``profile``: True prints a table of time and bytes per op kind to stderr after the
    run; an ``engine.Profile`` object is filled instead (one process only).  To run a
    program many times, prepare it once with ``engine.compile``.
    """
    mod = load_module(module)
    if verify:
        from ..shape_inference import verify_module

        verify_module(mod)
    fn = entry_function(mod, function)
    nr = _grid_size(mod, "mhlo.num_replicas", num_replicas)
    np_ = _grid_size(mod, "mhlo.num_partitions", num_partitions)
    if nr * np_ > 1:
        return _run_grid(
            mod, fn, inputs, nr, np_,
            limits={"memory_cap": memory_cap, "max_steps": max_steps, "timeout": timeout},
            context={
                "float_eq": float_eq,
                "probe_dir": os.fspath(probe_dir) if probe_dir is not None else None,
                "callback": callback,
            },
            infeed=infeed, outfeed=outfeed, deadlock_timeout=deadlock_timeout,
            host_channels=host_channels,
        )
    from .program import Program, check_inputs

    args = check_inputs(fn, list(inputs))
    prog = Program(
        mod, fn.name, verify=False, memory_cap=memory_cap, max_steps=max_steps,
        timeout=timeout, float_eq=float_eq, probe_dir=probe_dir, callback=callback,
        profile=profile, deadlock_timeout=deadlock_timeout, host_channels=host_channels,
        single_process=False,  # the grid size was given as 1 x 1
    )
    results = prog.execute(args, infeed=_feed_entries(infeed), outfeed=outfeed)
    if profile is True and prog.profile is not None:
        print(prog.profile.table(), file=sys.stderr)
    return results


def _grid_size(mod: Module, attr: str, given: int | None) -> int:
    """``given``, else the module attribute ``attr`` (``mhlo.num_replicas = 2 : i32``), else 1."""
    if given is None:
        a = mod.attr(attr)
        given = a.value if isinstance(a, IntegerAttr) else 1
    if not isinstance(given, int) or given < 1:
        raise InterpreterError(f"{attr.split('.')[-1]} must be a positive integer, got {given!r}")
    return given


def _feed_entries(infeed: Any) -> list[Any]:
    if infeed is None:
        return []
    if isinstance(infeed, Mapping):
        raise InterpreterError("a per-process infeed dict needs a process grid of more than one process")
    return list(infeed)


def _run_grid(mod: Module, fn: Function, inputs: Sequence[Any], nr: int, np_: int, *,
              limits: dict[str, Any], context: dict[str, Any], infeed: Any,
              outfeed: list[Any] | None, deadlock_timeout: float | None,
              host_channels: dict[int, list[Any]] | None) -> list[Any]:
    """``run`` on a grid of ``nr`` x ``np_`` processes (see ``run``)."""
    n = nr * np_
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
        args.append([_check_input(j, v, t, fn) for j, (v, t) in enumerate(zip(xs, arg_types))])
    pids = [(r, p) for r in range(nr) for p in range(np_)]
    if isinstance(infeed, Mapping):
        unknown = [k for k in infeed if k not in pids]
        if unknown:
            raise InterpreterError(f"infeed for processes {unknown} outside the {nr} x {np_} grid")
        feeds = [list(infeed.get(pid, ())) for pid in pids]
    else:
        shared = _feed_entries(infeed)
        feeds = [shared] * n
    outs: list[list[Any]] = [[] for _ in pids]
    if outfeed is not None:
        outfeed.extend(outs)
    options = GridRunOptions(
        limits=limits,
        deadline=time.monotonic() + limits["timeout"] if limits["timeout"] is not None else None,
        context=context,
        deadlock_timeout=deadlock_timeout,
        host_channels=host_channels,
    )
    results = run_grid(mod, [[fn.name] * np_ for _ in range(nr)], args, options=options,
                       infeed=feeds, outfeed=outs)
    return [list(r) for r in results]
