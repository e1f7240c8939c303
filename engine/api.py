"""``run`` and ``compile``: the pipeline load -> verify -> plan -> execute, each stage once.

``run(module, inputs)`` is ``compile(module)(*inputs)`` through a bounded LRU cache of
``CACHE_SIZE`` programs, so running an unchanged module again never re-parses,
re-verifies or re-plans it.  Cache keys:

- MLIR text and bytes: their content (Python's string hash is cached on the object);
- a path (``str`` naming a file, or ``os.PathLike``): (absolute path, mtime, size);
- a ``Module`` object: its identity (the cache is kept on the Module itself, so it
  never keeps a Module alive);

together with the run's options: one frozen, hashable ``RunOptions`` record
(engine/options.py) that is also the Program's only configuration.  Runs that collect
per-run state (``profile``, ``host_channels``) build a fresh Program.  A
Program runs in one thread at a time: a concurrent ``run`` of the same module while
its cached Program is busy gets a Program of its own.  ``clear_cache()`` empties the cache.
"""

from __future__ import annotations

import os
import weakref
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ..parser.ir import Module
from .emit import clear_code_cache
from .loading import (
    CACHE_SIZE,
    forget_modules,
    looks_like_path,
    module_cache,
    remember,
    resolve_bundle,
    source_key,
)
from .loading import _modules as _modules  # (read by tests: the loaded modules' table)
from .loading import prepare as prepare  # (engine.prepare)
from .options import DEFAULT_OPTIONS, RunOptions, options_of

if TYPE_CHECKING:
    from .program import Program

_programs: OrderedDict[tuple, Program] = OrderedDict()  # (source key, RunOptions) -> Program


def __getattr__(name: str) -> Any:
    """``Program`` loads on first use (PEP 562), to keep ``from hlorun import run``
    cheap: planning loads the op table's shape functions and kernels."""
    if name == "Program":
        from .program import Program  # on first use, to keep startup cheap

        globals()["Program"] = Program
        return Program
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _program() -> type[Program]:
    """The Program class (this module's ``Program``, loaded on first use)."""
    cls = globals().get("Program")
    return cls if cls is not None else __getattr__("Program")


def _dead() -> None:
    return None


# The previous run's (source, options, weak reference to its Program): a run of the
# same object with the same options skips the lookups.  A Module is held by a weak
# reference too, so that this never keeps a Module (or its Program) alive.
_last: tuple[Any, RunOptions | None, Callable[[], Program | None]] = (None, None, _dead)


def _remember_last(module: Any, opts: RunOptions, prog: Program) -> None:
    global _last
    if isinstance(module, Module):
        _last = (weakref.ref(module), opts, weakref.ref(prog))
    elif isinstance(module, bytes) or (isinstance(module, str) and not looks_like_path(module)):
        _last = (module, opts, weakref.ref(prog))  # content, never a path (mtime matters)


def clear_cache() -> None:
    """Forget every cached module and program (those cached on Module objects too, as
    they are next used) and the compiled code of blocks (engine/emit.py)."""
    global _last
    _programs.clear()
    forget_modules()
    clear_code_cache()
    _last = (None, None, _dead)


def compile(  # noqa: A001  (the public name, like re.compile)
    module: str | bytes | os.PathLike | Module,
    function: str | None = None,
    *,
    verify: bool = True,
    **options: Any,
) -> Program:
    """Prepare ``module``'s entry function (``function``, else ``main``, else the only
    one) once; ``options`` are those of ``run`` (``engine.options.RunOptions``).  Returns
    a new ``Program``; loading and verifying go through ``run``'s cache."""
    opts = options_of("compile", {"function": function, "verify": verify, **options})
    return _program()(module, options=opts)


def run(
    module: str | bytes | os.PathLike | Module,
    inputs: Sequence[Any] | None = (),
    *,
    infeed: Sequence[Any] | Mapping[tuple[int, int], Sequence[Any]] | None = None,
    outfeed: list[Any] | None = None,
    **options: Any,
) -> list[Any]:
    """Run a StableHLO program and return its results as NumPy arrays: the cached
    ``Program`` of (``module``, ``RunOptions(**options)``) called once.

    ``module`` is MLIR text, bytes (MLIR bytecode or a portable artifact), a path to
    either, or a parsed ``Module``; ``inputs`` are NumPy arrays (or Python scalars) of
    the entry function's argument types; the entry is ``function``, else ``main``, else
    the only function.  ``module`` may also be the folder PyTorch/XLA saves a model to
    (``torch_xla.stablehlo.save_as_stablehlo``): ``inputs`` are then the user's inputs
    only, as ``StableHLOGraphModule`` takes them, and ``function`` names the saved
    callable (default ``forward``; engine/model_bundle.py).  ``memory_cap`` bounds the
    bytes of any one tensor (or is an ``engine.memory.MemoryBudget``: per tensor and live
    total; engine/memory.py); ``max_steps`` / ``timeout`` (seconds) stop runaway
    programs with an ``InterpreterError``.  ``callback(op_name, pos, results)`` sees
    every op's results.  ``verify=False`` skips the verifier; ``float_eq`` is how
    ``check.expect_*`` compares floats ("bitwise", the spec, or "ieee"); ``probe_dir``
    is where ``interpreter.probe`` writes.

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
    with a grid it receives one such list per process (row-major).  These two are data
    of the call, not options.
    ``deadlock_timeout`` (seconds, default ``engine.grid.DEFAULT_DEADLOCK_TIMEOUT``)
    bounds how long a process waits for its peers at a collective or a recv; a program
    whose processes all block is reported at once as a deadlock.
    ``host_channels``: ``{channel_id: list}`` for host transfers (``is_host_transfer``):
    ``send`` on such a channel appends a tuple of its inputs to the list, ``recv`` pops
    the list's first entry (a tuple of arrays, or one array).  Host transfers on other
    channels go between the grid's processes (first in, first out per channel).

    ``profile``: True prints a table of time and bytes per op kind to stderr after the
    run; an ``engine.Profile`` object is filled instead (one process only).

    ``platform``: for a multi-platform ``jax.export`` module, whose entry takes a leading
    ``tensor<i32> {jax.global_constant = "_platform_index"}`` argument (the index of the
    platform in the export's platform list; engine/platform_index.py), that argument is
    filled when ``inputs`` leave it out: ``platform`` is the index, or a platform name
    looked up in ``platforms`` (the export's list, e.g. ``("cpu", "cuda", "tpu")``; jax
    keeps it in the ``Exported`` container, see ``engine.load_exported``); by default
    "cpu" when ``platforms`` lists it, else the first platform (index 0).  An entry that
    takes no platform index ignores both.

    ``grid="mpi"`` (call ``run`` on every rank of an MPI job; engine/grid_mpi.py): a
    process grid puts process i on rank i (ranks beyond it sit out) and each rank's
    result list holds its own process's results, ``None`` for the others; a
    one-process entry runs on every rank, its ``run_parallel`` grids on the ranks.
    """
    if inputs is None:
        inputs = ()
    opts = options_of("run", options) if options else DEFAULT_OPTIONS
    # The steady state: the same source and options as the previous run.
    src, last_opts, last_prog = _last
    if (
        (src is module or (src.__class__ is weakref.ref and src() is module))
        and (last_opts is opts or last_opts == opts)
        and (prog := last_prog()) is not None
        and prog._busy.acquire(False)  # (Program.claim, without a call's cost)
    ):
        table = key = None
    else:
        module, inputs, function = resolve_bundle(module, inputs, opts.function)
        if function != opts.function:
            opts = opts.replace(function=function)
        prog, table, key = _claim(module, opts)
    try:
        if infeed is None and outfeed is None:
            results = prog(*inputs)
        else:
            results = prog(*inputs, infeed=infeed, outfeed=outfeed)
    finally:
        prog._busy.release()  # (Program.release)
        if table is not None and key is not None:  # a new Program: cached even on error
            remember(table, key, prog, CACHE_SIZE)
            _remember_last(module, opts, prog)
    if opts.profile is True:
        prog.print_profile()
    return results


def _claim(module: Any, opts: RunOptions) -> tuple[Program, OrderedDict | None, Any]:
    """A Program of ``module`` with ``opts`` claimed for one call: the cached one, else a
    new one, with the table and key to keep it under after the call (None: not kept)."""
    table, key = _cache_of(module, opts)
    if table is not None:
        prog = table.get(key)
        if prog is not None and prog.claim():  # one thread per Program
            table.move_to_end(key)  # least recently used goes first
            _remember_last(module, opts, prog)
            return prog, None, None
    prog = _program()(module, options=opts)
    prog.claim()
    return prog, table, key


def _cache_of(module: Any, opts: RunOptions) -> tuple[OrderedDict | None, Any]:
    """The table and key of ``module``'s Program with ``opts``: a Module's own table
    keyed by the options, else the global one keyed by (source, options); (None, None)
    when the Program is not to be kept (per-run state, or a source with no key)."""
    if not opts.cacheable:
        return None, None
    if isinstance(module, Module):
        return module_cache(module)["programs"], opts
    source = source_key(module)
    if source is None:
        return None, None
    return _programs, (source, opts)
