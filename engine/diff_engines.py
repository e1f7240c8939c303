"""The engines ``hlorun diff`` compares hlorun with.

Each has ``name``, ``optimization_switch`` (a description of how it reruns with its
optimization off, or None) and ``values(ins, inputs, optimize=True)``: the per-op values
of the instrumented copy (engine/diff_instrument.py), keyed ``op{i}.r{k}[.it{n}]``.

- ``XlaEngine``: jaxlib on CPU.  hlorun writes an ``Exported`` container around the
  instrumented copy (engine/exported_write.py, its portable artifact at the version
  of the jaxlib's StableHLO) and engine/diff_worker.py runs it with
  ``jax.jit(jax.export.deserialize(...).call)`` in a fresh process; with its
  optimization off the process has ``XLA_FLAGS=--xla_allow_excess_precision=false``.
- ``IreeEngine``: ``iree.compiler.compile_str(text, input_type="stablehlo",
  target_backends=["llvm-cpu"])`` and ``iree.runtime`` in a fresh process.  IREE demotes
  f64 to f32 by default (iree-base-compiler 3.13: the compiled function takes f32), and
  has a flag demoting i64 to i32 (``--iree-input-demote-f64-to-f32``,
  ``--iree-input-demote-i64-to-i32``): both are turned off.
- ``NpzValues``: values recorded elsewhere (``--emit-instrumented`` programs run on a
  TPU or GPU), checked against the op names in the file's metadata.
- ``ProgramEngine``: another version of the program run on hlorun, its ops matched to
  ours by source location and op name.

The Python that runs jax / IREE: ``HLORUN_JAX_PYTHON`` / ``HLORUN_IREE_PYTHON`` when
set, else this interpreter (``pip install 'hlorun[jax]'`` / ``'hlorun[iree]'``).
"""

from __future__ import annotations

import importlib.util
import json
import math
import os
import re
import subprocess
import sys
import tempfile
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ..parser import print_module
from ..parser.errors import InterpreterError, UnsupportedError
from ..parser.ir import Module
from .api import run
from .diff_instrument import Instrumented, instrument, is_recorded
from .diff_run import expand, run_hlorun
from .diff_worker import raw_bits, read_arrays, write_arrays
from .dtypes import dtype_of, static_shape
from .loading import Origins, prepare

WORKER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "diff_worker.py")
XLA_NO_EXCESS_PRECISION = "--xla_allow_excess_precision=false"
IREE_KEEP_64_BITS = ("--iree-input-demote-f64-to-f32=false", "--iree-input-demote-i64-to-i32=false")
IREE_FLAGS = (*IREE_KEEP_64_BITS, "--iree-llvmcpu-target-cpu=host")
META_KEY = "__meta__"


def _python(env_var: str, package: str, extra: str) -> str:
    exe = os.environ.get(env_var)
    if exe:
        return exe
    if _installed(package):
        return sys.executable
    raise UnsupportedError(
        f"hlorun diff: {package} is not installed here: pip install 'hlorun[{extra}]', "
        f"or set {env_var} to a Python that has it"
    )


def _installed(package: str) -> bool:
    try:
        return importlib.util.find_spec(package) is not None
    except ImportError:  # a parent package is missing
        return False


def _scratch(nbytes: int) -> tempfile.TemporaryDirectory:
    """A folder for the files exchanged with a worker: in memory (/dev/shm) when it has
    room for twice ``nbytes`` (inputs and outputs), else the temporary folder."""
    base = None
    try:
        st = os.statvfs("/dev/shm")
        if st.f_bavail * st.f_frsize >= 2 * nbytes + (256 << 20):
            base = "/dev/shm"
    except (OSError, AttributeError):  # none (or not POSIX)
        pass
    return tempfile.TemporaryDirectory(prefix="hlorun-diff-", dir=base, ignore_cleanup_errors=True)


def _nbytes(arrays: Sequence[Any]) -> int:
    return sum(np.asarray(a).nbytes for a in arrays)


class _Worker:
    """A worker process (engine/diff_worker.py ``{kind}-serve``) started before its
    program is ready: it says its engine's StableHLO version and imports the engine
    while hlorun prepares; ``run`` hands it the inputs, then its outputs' path and the
    program."""

    def __init__(self, python: str, kind: str, env: dict[str, str] | None = None) -> None:
        self.kind = kind
        self.tmp: tempfile.TemporaryDirectory | None = None
        self._version: str | None = None
        self.proc = subprocess.Popen(
            [python, WORKER, kind + "-serve"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env={**os.environ, **(env or {})},
        )

    def version(self) -> str | None:
        """The StableHLO version the worker said (None when it ended first)."""
        if self._version is None:
            assert self.proc.stdout is not None
            said = self.proc.stdout.readline().split()
            self._version = said[0] if said else ""
        return self._version or None

    def _say(self, line: str) -> None:
        assert self.proc.stdin is not None
        try:
            self.proc.stdin.write(line + "\n")
            self.proc.stdin.flush()
        except OSError:  # it has ended: its standard error says why (below)
            pass

    def run(
        self,
        program: Callable[[str], bytes],
        suffix: str,
        inputs: Sequence[Any],
        output_bytes: int = 0,
    ) -> list[np.ndarray]:
        """The raw outputs (unsigned views, viewed back by the caller) of ``program``
        (a function of the engine's StableHLO version) on ``inputs``; ``output_bytes``:
        their size, if known (where the files go)."""
        try:
            self.tmp = _scratch(_nbytes(inputs) + output_bytes)
            inp = os.path.join(self.tmp.name, "inputs.bin")
            out = os.path.join(self.tmp.name, "outputs.bin")
            write_arrays(inp, [np.asarray(a) for a in inputs])
            self._say(inp)
            self._say(out)
            assert self.proc.stdout is not None
            version = self.version()
            prog = os.path.join(self.tmp.name, "program" + suffix)
            with open(prog, "wb") as f:
                f.write(program(version) if version else b"")
            self._say(prog)
            stdout, stderr = self.proc.communicate()
            _check(self.kind, self.proc.returncode, stdout, stderr)
            return read_arrays(out, raw=True)
        finally:
            self.close()

    def close(self) -> None:
        """End the process if it still runs, and remove its files."""
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.communicate()
        if self.tmp is not None:
            self.tmp.cleanup()


def _work(
    python: str,
    kind: str,
    program: bytes | str | Callable[[str], bytes],
    suffix: str,
    inputs: Sequence[Any],
    flags: Sequence[str] = (),
    env: dict[str, str] | None = None,
) -> list[np.ndarray]:
    """Run the worker; the raw outputs (unsigned views, viewed back by the caller).
    ``program`` may be a function of the engine's StableHLO version: the worker
    (``{kind}-serve``) then says its version first and reads the program's path."""
    if callable(program):
        return _Worker(python, kind, env).run(program, suffix, inputs)
    with _scratch(2 * _nbytes(inputs)) as tmp:
        prog = os.path.join(tmp, "program" + suffix)
        inp = os.path.join(tmp, "inputs.bin")
        write_arrays(inp, [np.asarray(a) for a in inputs])
        out = os.path.join(tmp, "outputs.bin")
        with open(prog, "wb") as f:
            f.write(program.encode() if isinstance(program, str) else program)
        done = subprocess.run(
            [python, WORKER, kind, prog, inp, out, *flags],
            capture_output=True,
            text=True,
            env={**os.environ, **(env or {})},
        )
        _check(kind, done.returncode, done.stdout, done.stderr)
        return read_arrays(out, raw=True)


def _check(kind: str, returncode: int, stdout: str, stderr: str) -> None:
    """An engine that failed is told by its exception's line."""
    if returncode == 0:
        return
    lines = (stderr or stdout).strip().splitlines()
    named = [ln for ln in lines if re.match(r"[A-Za-z_.]*(Error|Exception)\b", ln)]
    why = (named or lines or [f"exit status {returncode}"])[-1]
    raise InterpreterError(f"hlorun diff: {kind} failed: {why}")


def _output_bytes(ins: Instrumented) -> int:
    """The size of the instrumented function's results."""
    fn = ins.module.functions[ins.function]
    return sum(
        math.prod(static_shape(t)) * dtype_of(t).itemsize for t in fn.type.results if is_recorded(t)
    )


def _typed(ins: Instrumented, raw: Sequence[np.ndarray]) -> list[np.ndarray]:
    """Raw outputs viewed as the instrumented function's result types."""
    fn = ins.module.functions[ins.function]
    out = []
    for a, t in zip(raw, fn.type.results):
        dt = dtype_of(t)
        out.append(a if a.dtype == dt or a.dtype.itemsize != dt.itemsize else a.view(dt))
    return out


class XlaEngine:
    name = "xla"
    optimization_switch = f"XLA_FLAGS={XLA_NO_EXCESS_PRECISION}"

    def __init__(self, python: str | None = None) -> None:
        self.python = python or _python("HLORUN_JAX_PYTHON", "jax", "jax")
        self._started: _Worker | None = None
        self._container: tuple[Any, bytes, Any] = (None, b"", None)

    def _env(self, optimize: bool) -> dict[str, str]:
        env = {"JAX_PLATFORMS": "cpu", "JAX_ENABLE_X64": "1"}
        if not optimize:
            env["XLA_FLAGS"] = (
                os.environ.get("XLA_FLAGS", "") + " " + XLA_NO_EXCESS_PRECISION
            ).strip()
        return env

    def start(self) -> None:
        """Start the worker of the next ``values`` now (it imports jax meanwhile)."""
        if self._started is None:
            self._started = _Worker(self.python, "xla", self._env(True))

    def prepare(self, ins: Instrumented) -> None:
        """Write the container of ``ins`` for the started worker now (its version is
        said by then), before hlorun's run takes the interpreter."""
        if self._started is not None:
            version = self._started.version()
            if version:
                self._exported(ins, version)

    def _exported(self, ins: Instrumented, version: str) -> bytes:
        """The container of ``ins`` at ``version`` (written once: a rerun takes it again)."""
        key = (id(ins.module), version)
        if self._container[0] != key:
            self._container = (key, exported_bytes(ins.module, version), ins.module)
        return self._container[1]

    def close(self) -> None:
        """End a worker started and not used."""
        if self._started is not None:
            self._started.close()
            self._started = None

    def values(
        self, ins: Instrumented, inputs: Sequence[Any], optimize: bool = True
    ) -> dict[str, np.ndarray]:

        worker = self._started if optimize else None
        if worker is not None:
            self._started = None
        else:
            worker = _Worker(self.python, "xla", self._env(optimize))

        def container(version: str) -> bytes:  # at the version of the worker's jaxlib
            return self._exported(ins, version)

        raw = worker.run(container, ".exported", inputs, _output_bytes(ins))
        return expand(ins, _typed(ins, raw))


def exported_bytes(module: Module, version: str = "current") -> bytes:
    """An ``Exported`` container around ``module`` (its portable artifact at ``version``)."""
    from ..parser.vhlo.artifact import serialize_portable_artifact
    from .exported_write import write_exported

    artifact = serialize_portable_artifact(module, version)
    return write_exported(module, artifact)


class IreeEngine:
    name = "iree"
    optimization_switch = None

    def __init__(self, python: str | None = None, flags: Sequence[str] = IREE_FLAGS) -> None:
        self.python = python or _python("HLORUN_IREE_PYTHON", "iree.compiler", "iree")
        self.flags = list(flags)

    def values(
        self, ins: Instrumented, inputs: Sequence[Any], optimize: bool = True
    ) -> dict[str, np.ndarray]:

        text = print_module(ins.module)
        raw = _work(self.python, "iree", text, ".mlir", inputs, self.flags)
        return expand(ins, _typed(ins, raw))


class NpzValues:
    """Per-op values recorded elsewhere: ``op{i}.r{k}[.it{n}]`` arrays (raw bits or
    typed) and ``__meta__``: JSON ``{"ops": {"op{i}": [name, location]}}``."""

    meta: dict[str, Any]

    def __init__(
        self,
        path: str | os.PathLike,
        unoptimized: str | os.PathLike | None = None,
        switch: str | None = None,
    ) -> None:
        """``unoptimized``: the same engine's values with its optimization off
        (``switch`` says how it was turned off)."""
        self.unoptimized = None if unoptimized is None else NpzValues(unoptimized)
        self.path = os.fspath(path)
        if unoptimized is not None and switch is None:
            switch = self.unoptimized.meta.get("switch") if self.unoptimized else None
        self.optimization_switch = (
            (switch or f"the values of {os.fspath(unoptimized)}")
            if unoptimized is not None
            else None
        )
        self.name = os.path.basename(self.path)
        try:
            with np.load(self.path, allow_pickle=False) as z:
                self.arrays = {k: z[k] for k in z.files if k != META_KEY}
                meta = json.loads(str(z[META_KEY])) if META_KEY in z.files else {}
        except (OSError, ValueError) as e:
            raise InterpreterError(f"{self.path}: cannot read per-op values: {e}") from e
        self.meta = meta
        self.ops: dict[str, list[str]] = meta.get("ops", {})

    def values(
        self, ins: Instrumented, inputs: Sequence[Any], optimize: bool = True
    ) -> dict[str, np.ndarray]:
        if not optimize and self.unoptimized is not None:
            return self.unoptimized.values(ins, inputs)
        self.renamed: dict[int, str] = {}
        for key, (name, _loc) in self.ops.items():
            i = int(key[2:])
            if i >= len(ins.ops):
                raise InterpreterError(
                    f"{self.path}: {key} was recorded from {name}; this program has "
                    f"{len(ins.ops)} ops (values recorded from another program?)"
                )
            if ins.ops[i].name != name:
                self.renamed[i] = name
        if len(self.renamed) > max(1, len(self.ops) // 10):
            raise InterpreterError(
                f"{self.path}: {len(self.renamed)} of {len(self.ops)} ops were recorded from "
                "other ops than this program has (values recorded from another program?)"
            )
        types = {o.key: o.type for o in ins.outputs}
        out = {}
        for k, a in self.arrays.items():
            t = types.get(k.split(".it")[0])
            if t is None:
                continue
            dt = dtype_of(t)
            a = a.view(dt) if a.dtype != dt and a.dtype.itemsize == dt.itemsize else a
            rank = len(static_shape(t))
            if ".it" not in k and a.ndim > rank:  # stacked per iteration (--iterations)
                for n, row in enumerate(a.reshape((-1, *a.shape[a.ndim - rank :]))):
                    out[f"{k}.it{n}"] = row
            else:
                out[k] = a
        return out


def save_values(
    path: str | os.PathLike,
    ins: Instrumented,
    values: dict[str, np.ndarray],
    switch: str | None = None,
) -> None:
    """Write per-op values (``values``: key -> array) as ``NpzValues`` reads them;
    ``switch``: how the engine's optimization was turned off, if it was."""

    origin = Origins(ins.prepared)
    meta = {
        "ops": {
            f"op{o.index}": [o.name, origin(o.op) or str(o.op.pos)]
            for o in ins.ops
            if o.instrumented
        },
        **({"switch": switch} if switch else {}),
    }
    arrays: dict[str, Any] = {k: raw_bits(np.asarray(v)) for k, v in values.items()}
    arrays[META_KEY] = np.array(json.dumps(meta))
    np.savez_compressed(path, **arrays)


class HlorunEngine:
    """The instrumented copy itself run on hlorun (a check of the instrumentation:
    it must agree with hlorun's per-op values everywhere)."""

    name = "hlorun"
    optimization_switch = None

    def values(
        self, ins: Instrumented, inputs: Sequence[Any], optimize: bool = True
    ) -> dict[str, np.ndarray]:

        return expand(ins, run(ins.module, list(inputs), function=ins.function))


class ProgramEngine:
    """Another version of the program on hlorun: ops matched by location and name."""

    optimization_switch = None

    def __init__(self, other: Any, name: str = "the other program") -> None:

        self.module = prepare(other)
        self.name = name
        self.renamed: dict[int, str] = {}  # op index -> the other program's op there

    def values(
        self, ins: Instrumented, inputs: Sequence[Any], optimize: bool = True
    ) -> dict[str, np.ndarray]:

        theirs = instrument(
            self.module, ins.function if ins.function in self.module.functions else None
        )
        hl = run_hlorun(theirs, inputs)
        mine_origin, their_origin = Origins(ins.prepared), Origins(self.module)

        def where(origin: Origins, op: Any) -> Any:
            return origin.file_location(op.location) if op.location is not None else None

        # first by (op name, location), in order; then an op left over by location and
        # result types alone (the same op of the program, changed into another op)
        slots: dict[tuple, list[int]] = {}
        for o in theirs.ops:
            slots.setdefault((o.name, where(their_origin, o.op)), []).append(o.index)
        matched: dict[int, int] = {}
        for o in ins.ops:
            cands = slots.get((o.name, where(mine_origin, o.op)))
            if cands:
                matched[o.index] = cands.pop(0)
        left: dict[tuple, list[int]] = {}
        for cands in slots.values():
            for j in cands:
                t = theirs.ops[j]
                left.setdefault((where(their_origin, t.op), t.result_types), []).append(j)
        for o in ins.ops:
            if o.index not in matched and o.op.location is not None:
                cands = left.get((where(mine_origin, o.op), o.result_types))
                if cands:
                    matched[o.index] = cands.pop(0)
                    self.renamed[o.index] = theirs.ops[matched[o.index]].name
        out: dict[str, np.ndarray] = {}
        for mine, j in matched.items():
            last = hl.last(j)
            if last is None or not ins.ops[mine].instrumented:
                continue
            for r, v in enumerate(last):
                out[f"op{mine}.r{r}"] = np.asarray(v)
        return out


def engine_for(against: Any) -> Any:
    """The engine ``against`` names (an engine object passes through)."""
    if hasattr(against, "values"):
        return against
    if isinstance(against, str) and against in ("xla", "iree", "hlorun"):
        return {"xla": XlaEngine, "iree": IreeEngine, "hlorun": HlorunEngine}[against]()
    if isinstance(against, str | os.PathLike) and os.fspath(against).endswith(".npz"):
        return NpzValues(against)
    name = (
        os.fspath(against)
        if isinstance(against, str | os.PathLike) and len(os.fspath(against)) < 300
        else "B"
    )
    return ProgramEngine(against, name)
