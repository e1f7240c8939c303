"""The first stage of the pipeline: a ``Module`` from what a user holds, and the entry
function and arguments it is run with.

``load_module`` takes MLIR text, bytes (MLIR bytecode, a portable artifact, or UTF-8
text), a path to either, or a parsed ``Module``; ``resolve_bundle`` the folder
PyTorch/XLA saves a model to (engine/model_bundle.py).
"""

from __future__ import annotations

import os
import re
from collections import OrderedDict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from .. import parser
from ..parser.errors import HloError, HloTypeError, InterpreterError, ParseError, SourcePos
from ..parser.ir import (
    Function,
    IntegerAttr,
    LocationAttr,
    Module,
    TensorType,
    TokenType,
    Type,
    numpy_dtype,
)
from ..parser.source import read_file
from .gspmd import is_gspmd_global
from .values import TOKEN, Token

_PROGRAM_SUFFIXES = (".mlir", ".mlirbc", ".bc")


def load_module(module: str | bytes | os.PathLike | Module) -> Module:
    """A Module from a Module, a path to a .mlir / bytecode file, MLIR text or bytes."""
    if isinstance(module, Module):
        return module
    if isinstance(module, os.PathLike):
        return load_path(Path(module))
    if isinstance(module, str):
        if looks_like_path(module):
            if os.path.exists(module):
                return load_path(Path(module))
            if module.endswith(_PROGRAM_SUFFIXES):
                raise ParseError(f"no such file: {module}")
        return parser.parse_module(module)
    if isinstance(module, bytes | bytearray | memoryview):
        return load_bytes(bytes(module), "<bytes>")
    raise HloTypeError(
        f"module must be MLIR text, bytes, a path or a parsed Module, not {type(module).__name__}"
    )


def resolve_bundle(module: Any, inputs: Any, function: str | None) -> tuple[Any, Any, str | None]:
    """A folder PyTorch/XLA saved a model to (engine/model_bundle.py) as (the program of
    its callable ``function``, the arguments with its weights and constants, the
    program's entry ``None``); anything else unchanged."""
    if isinstance(module, str) and looks_like_path(module) or isinstance(module, os.PathLike):
        if os.path.isdir(module):
            from .model_bundle import is_bundle_dir, load_bundle, not_a_program_folder

            if not is_bundle_dir(module):
                raise not_a_program_folder(module)
            bundle = load_bundle(module, function)
            return bundle.module, bundle.arguments(inputs), None
    return module, inputs, function


def looks_like_path(text: str) -> bool:
    """A one-line string that is not program text (text always has a ``{`` or a newline)."""
    return "\n" not in text and "{" not in text


def load_path(path: Path) -> Module:
    """The program in the file ``path``, or in the folder PyTorch/XLA saved a model to
    (its default callable, engine/model_bundle.py)."""
    if path.is_dir():
        from .model_bundle import is_bundle_dir, load_bundle, not_a_program_folder

        if not is_bundle_dir(path):
            raise not_a_program_folder(path)
        return load_bundle(path).module
    return load_bytes(read_file(path), str(path))


def load_bytes(data: bytes, filename: str) -> Module:
    """MLIR bytecode (by its magic) or UTF-8 MLIR text (``parser.parse_module``)."""
    return parser.parse_module(data, filename)


def entry_function(module: Module, name: str | None = None) -> Function:
    """``name``, else ``main``, else the only function of the module."""
    funcs = module.functions
    if name is not None:
        if name not in funcs:
            raise InterpreterError(f"no function named @{name} in the module", module.pos)
        return funcs[name]
    if "main" in funcs:
        return funcs["main"]
    if len(funcs) == 1:
        return next(iter(funcs.values()))
    if not funcs:
        raise InterpreterError("the module has no function to run", module.pos)
    raise InterpreterError(
        f"the module has {len(funcs)} functions and none is @main: name the entry function",
        module.pos,
    )


def _has_sdy_mesh(mod: Module) -> bool:
    return any(getattr(item, "name", None) == "sdy.mesh" for item in mod.body)


def grid_size(mod: Module, attr: str, given: int | None) -> int:
    """``given``, else the module attribute ``attr`` (``mhlo.num_replicas = 2 : i32``), else 1.

    A module declaring a Shardy mesh (``sdy.mesh``) is a global program, not yet
    partitioned: its ``mhlo.num_partitions`` names the devices it will be split over,
    and it runs as one process (its ``sdy.manual_computation`` bodies run per device).
    So does a GSPMD global program (engine/gspmd.py), its manual regions per device."""
    if given is None and attr == "mhlo.num_partitions":
        if _has_sdy_mesh(mod) or is_gspmd_global(mod):
            given = 1
    if given is None:
        a = mod.attr(attr)
        given = a.value if isinstance(a, IntegerAttr) else 1
    if not isinstance(given, int) or given < 1:
        raise InterpreterError(f"{attr.split('.')[-1]} must be a positive integer, got {given!r}")
    return given


def as_array(i: int, value: Any, t: TensorType, fn: Function) -> np.ndarray:
    """The door every input passes (issue 21 item 4): a base-class ``np.ndarray``.

    ndarray subclasses (``np.matrix``, ...) become their base-class view; masked arrays
    are refused (a mask has no meaning to a program); NumPy scalars and Python scalars
    become 0-d arrays (Python scalars of the parameter's dtype); anything with
    ``__array__`` (jax.Array, torch CPU tensors) or ``__dlpack__`` is converted."""
    if isinstance(value, np.ma.MaskedArray):
        raise HloTypeError(
            f"argument #{i} of @{fn.name} is a masked array: pass plain data "
            "(a.filled(value) or a.data)",
            fn.pos,
        )
    if isinstance(value, np.ndarray):
        return value if value.__class__ is np.ndarray else value.view(np.ndarray)
    if isinstance(value, np.generic):
        return np.asarray(value)
    if isinstance(value, bool | int | float | complex):
        try:
            return np.asarray(value, dtype=numpy_dtype(t))
        except (OverflowError, ValueError) as e:
            raise InterpreterError(
                f"argument #{i} of @{fn.name}: {value!r} does not fit {t.element_type}", fn.pos
            ) from e
    try:
        converted = _from_protocol(value)
    except (TypeError, ValueError, BufferError, RuntimeError) as e:  # device, dtype...
        raise HloTypeError(
            f"argument #{i} of @{fn.name}: a {type(value).__name__} that cannot be read "
            f"as a NumPy array ({type(e).__name__}: {e})",
            fn.pos,
        ) from e
    if converted is None:
        raise HloTypeError(
            f"argument #{i} of @{fn.name} must be a NumPy array (or have __array__ or "
            f"__dlpack__), not {type(value).__name__}",
            fn.pos,
        )
    return as_array(i, converted, t, fn)


def _from_protocol(value: Any) -> np.ndarray | None:
    """``value.__array__()`` or ``np.from_dlpack(value)``; None when it has neither."""
    if hasattr(value, "__array__"):
        return np.asarray(value)
    if hasattr(value, "__dlpack__"):
        return np.from_dlpack(value)
    return None


def check_input(i: int, value: Any, t: Type, fn: Function) -> Any:
    """``value`` as the array (or token) argument #i of ``fn`` takes, or an error naming
    what is wrong with it."""
    if isinstance(t, TokenType):
        if value is None or isinstance(value, Token):
            return TOKEN
        raise InterpreterError(f"argument #{i} of @{fn.name} must be a token", fn.pos)
    if not isinstance(t, TensorType):
        return value
    want = numpy_dtype(t)
    value = as_array(i, value, t, fn)
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


_NDARRAY = np.ndarray


def owned_results(results: list[Any], inputs: Sequence[Any]) -> list[Any]:
    """``results`` with every array that shares memory with an input (or with an earlier
    result) copied, so the caller owns each one (issue 21 item 4).  Only such results
    are copied.  The usual case is checked first, with plain loops (this runs on every
    call): arrays that own their memory (``base is None``), none of them an input, no
    two the same, can alias nothing."""
    n = len(results)
    for k in range(n):
        r = results[k]
        if r.__class__ is not _NDARRAY or r.base is not None:
            return _owned(results, inputs)
        for x in inputs:
            if r is x:
                return _owned(results, inputs)
        for q in range(k):
            if results[q] is r:
                return _owned(results, inputs)
    return results


def owned_grid_results(results: list[list[Any]], inputs: Sequence[Any]) -> list[list[Any]]:
    """``owned_results`` of a process grid's run: one result list per process, ``inputs``
    shared or one list per process; no result aliases an input or another process's
    result."""
    seen: list[Any] = []
    for x in inputs:
        if isinstance(x, list | tuple):
            seen.extend(x)  # one list of arguments per process
        else:
            seen.append(x)
    out = []
    for per_process in results:
        if per_process is None:  # grid="mpi": a process on another rank
            out.append(per_process)
            continue
        mine = _owned(list(per_process), seen)
        seen.extend(mine)
        out.append(mine)
    return out


def _owned(results: list[Any], inputs: Sequence[Any]) -> list[Any]:
    """owned_results' general case: ``np.may_share_memory`` against every input and
    earlier result (tuples recursively)."""
    seen: list[Any] = [x for x in inputs if isinstance(x, np.ndarray)]
    out = []
    for r in results:
        if isinstance(r, np.ndarray):
            if any(r is x or np.may_share_memory(r, x) for x in seen):
                r = r.copy()
            seen.append(r)
        elif isinstance(r, tuple):
            r = tuple(_owned(list(r), seen))
        out.append(r)
    return out


def check_inputs(fn: Function, inputs: Sequence[Any]) -> list[Any]:
    """``inputs`` as the arrays ``fn`` takes (Python scalars converted), or an error
    naming the argument whose count, dtype or shape is wrong."""
    arg_types = fn.type.inputs
    if len(inputs) != len(arg_types):
        raise InterpreterError(
            f"@{fn.name} takes {len(arg_types)} arguments, got {len(inputs)}", fn.pos
        )
    return [check_input(i, v, t, fn) for i, (v, t) in enumerate(zip(inputs, arg_types))]


# ------------------------------------------------------------------ user source lines

_FILE_LOC = re.compile(r'"((?:[^"\\]|\\.)*)":(\d+)(?::(\d+))?')
_LOC_ALIAS = re.compile(r"#loc[A-Za-z0-9_$.]*")


class Origins:
    """``origins(op)``: the innermost user source line of an op's ``loc(...)``
    (``"model.py:12"``), or None.  A jax.export location nests the Python frames as
    ``callsite(callee at caller)`` under name locations; the first file location in its
    text is the innermost frame.  ``#locN`` aliases of the module's text are expanded."""

    def __init__(self, module: Module | None) -> None:
        self.aliases: dict[str, str] = {}
        if module is not None:
            self.aliases = {n: a.text for n, a in module.aliases if isinstance(a, LocationAttr)}
        self._memo: dict[str, tuple[str, int, int] | None] = {}

    def __call__(self, op: Any) -> str | None:
        loc = getattr(op, "location", None)
        if not isinstance(loc, LocationAttr):
            return None
        found = self.file_location(loc)
        return None if found is None else f"{found[0]}:{found[1]}"

    def file_location(self, loc: LocationAttr) -> tuple[str, int, int] | None:
        """(file, line, column) of the innermost file location in ``loc``, or None."""
        if loc.text not in self._memo:
            self._memo[loc.text] = self._resolve(loc.text)
        return self._memo[loc.text]

    def _resolve(self, text: str) -> tuple[str, int, int] | None:
        for _ in range(64):  # aliases refer to earlier ones: a bounded expansion
            m = _FILE_LOC.search(text)
            first_alias = _LOC_ALIAS.search(text)
            if m is not None and (first_alias is None or m.start() < first_alias.start()):
                return m.group(1), int(m.group(2)), int(m.group(3) or 0)
            if first_alias is None:
                return None
            name = first_alias.group(0)
            text = text.replace(name, self.aliases.get(name, "unknown"), 1)
        return None


def with_origin(err: HloError, module: Module) -> HloError:
    """``err`` naming the user source line of the op it is about (``HloError.
    set_origin``): the op whose ``loc(...)`` the error carries (engine.plan.reraise),
    else the op at the error's position in ``module``'s text.  An error with no position
    (an op read from bytecode) takes the user's file location as its position, as
    MLIR reports a diagnostic at the op's location.  Runs only on the error path."""
    if getattr(err, "origin", None):
        return err
    pos = err.pos
    known = pos is not None and pos.line > 0
    loc = getattr(err, "location", None)
    if loc is None and known:
        assert pos is not None
        op = _ops_by_pos(module).get((pos.filename, pos.line, pos.col))
        loc = getattr(op, "location", None)
    if not isinstance(loc, LocationAttr):
        return err
    found = Origins(module).file_location(loc)
    if found is not None:
        file, line, col = found
        err.set_origin(f"{file}:{line}", None if known else SourcePos(file, line, col))
    return err


def _ops_by_pos(module: Module) -> dict[tuple[str, int, int], Any]:
    found: dict[tuple[str, int, int], Any] = {}
    stack: list[Any] = [f.body for f in module.functions.values() if f.body is not None]
    while stack:
        region = stack.pop()
        for block in region.blocks:
            for op in block.operations:
                found.setdefault((op.pos.filename, op.pos.line, op.pos.col), op)
                stack.extend(op.regions)
    return found


# ------------------------------------------------------------------ loaded once
CACHE_SIZE = 64
"""How many loaded modules ``prepare`` keeps, and programs each of ``run``'s caches
keeps (engine/api.py; least recently used dropped first)."""

_modules: OrderedDict[tuple, tuple[Module, bool]] = OrderedDict()  # key -> (module, verified)
_SLOT = "_hlorun_cache"  # a Module's own cache: it lives and dies with the Module
_generation = 0


def forget_modules() -> None:
    """Forget every loaded module (and the caches Module objects carry, as they are
    next used): engine.clear_cache."""
    global _generation
    _modules.clear()
    _generation += 1


def module_cache(mod: Module) -> dict[str, Any]:
    """The cache a Module carries itself, so that it never outlives the Module (the
    Program refers to the Module, so a global table would keep it alive)."""
    slot = mod.__dict__.get(_SLOT)
    if slot is None or slot["generation"] != _generation:
        slot = {"generation": _generation, "verified": False, "programs": OrderedDict()}
        object.__setattr__(mod, _SLOT, slot)
    return slot


def source_key(module: Any) -> tuple | None:
    """The cache key of text, bytes or a path; None for anything else."""
    if isinstance(module, str):
        if looks_like_path(module) and os.path.isfile(module):
            return _path_key(module)
        return ("text", module)
    if isinstance(module, bytes):
        return ("bytes", module)
    if isinstance(module, os.PathLike):
        return _path_key(os.fspath(module)) if os.path.isfile(module) else None
    return None


def _path_key(path: str | bytes) -> tuple:
    st = os.stat(path)
    return ("path", os.path.abspath(path), st.st_mtime_ns, st.st_size)


def remember(table: OrderedDict, key: tuple, value: Any, size: int) -> None:
    """Put ``value`` back as the most recently used entry; drop the least recent ones
    beyond ``size``.  Each OrderedDict call is atomic under the GIL; a concurrent
    eviction emptying the table first is harmless."""
    table[key] = value
    table.move_to_end(key)
    while len(table) > size:
        try:
            table.popitem(last=False)
        except KeyError:
            break


def prepare(module: str | bytes | os.PathLike | Module, *, verify: bool = True) -> Module:
    """Load (and verify, unless ``verify=False``) ``module`` once; later calls with the
    same source return the same Module."""
    if isinstance(module, Module):
        slot = module_cache(module)
        if verify and not slot["verified"]:
            _verify(module)
            slot["verified"] = True
        return module
    key = source_key(module)
    if key is not None:
        hit = _modules.get(key)
        if hit is not None and (hit[1] or not verify):
            return hit[0]
    mod = load_module(module)
    if verify:
        _verify(mod)
    if key is not None:
        remember(_modules, key, (mod, verify), CACHE_SIZE)
    return mod


def _verify(mod: Module) -> None:
    from ..shape_inference import verify_module

    try:
        verify_module(mod)
    except HloError as e:  # name the user's source line of the op, when known
        with_origin(e, mod)
        raise
