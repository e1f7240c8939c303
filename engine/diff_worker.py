"""Runs a program on XLA (through jax) or IREE for ``hlorun diff``, in its own process.

Standalone: it imports only NumPy and the engine's own packages (never hlorun), so that
it runs in whatever environment has jax or IREE installed::

    python diff_worker.py xla   PROGRAM.exported INPUTS OUTPUTS
    python diff_worker.py xla-serve
    python diff_worker.py iree  PROGRAM.mlir     INPUTS OUTPUTS [COMPILER FLAG...]

``xla-serve`` prints the StableHLO version of its jaxlib first (the version the
container's portable artifact must be readable at; read from jaxlib's StableHLO
bindings before jax itself is imported), then reads three lines from standard input:
the path of the inputs (it loads them onto the device while hlorun writes the
program), the path of the outputs, and the program's path.  So one process says its version, imports jax and takes the inputs
while hlorun still prepares.

INPUTS and OUTPUTS are *array files* (``write_arrays`` / ``read_arrays``, hlorun reads
and writes them with the same two functions): an 8-byte little-endian header length, a
JSON header ``[[dtype name, shape, offset], ...]``, then each array's raw bytes at its
offset (64-byte aligned), so a reader maps them without a copy and a writer writes
each array's buffer as it is (no zip, no checksum: the file lives in a temporary folder
for one run).  Errors go to standard error with exit status 2.
"""

from __future__ import annotations

import json
import mmap
import sys
from collections.abc import Sequence
from typing import Any

import numpy as np

_ALIGN = 64


def raw_bits(a: np.ndarray) -> np.ndarray:
    a = np.array(a, order="C", copy=None)  # (ascontiguousarray makes a 0-d array 1-d)
    if a.dtype == np.bool_:
        return a
    return a.view(f"uint{8 * a.dtype.itemsize}")


def _dtype(name: str) -> np.dtype:
    try:
        return np.dtype(name)
    except TypeError:
        import ml_dtypes

        return np.dtype(getattr(ml_dtypes, name))


def _aligned(n: int) -> int:
    return -(-n // _ALIGN) * _ALIGN


def write_arrays(path: str, arrays: Sequence[Any]) -> None:
    """Write ``arrays`` to an array file: each one's dtype name and shape in the header,
    its bytes as they are in memory (C order)."""
    arrays = [np.array(a, order="C", copy=None) for a in arrays]
    header, offset = [], 0
    for a in arrays:
        header.append([a.dtype.name, list(a.shape), offset])
        offset = _aligned(offset + a.nbytes)
    head = json.dumps(header).encode()
    start = _aligned(8 + len(head))
    with open(path, "wb") as f:
        f.write(len(head).to_bytes(8, "little") + head)
        for a, (_, _, off) in zip(arrays, header):
            f.seek(start + off)
            if a.nbytes:
                f.write(a.reshape(-1).view(np.uint8))
        f.truncate(start + offset)


def read_arrays(path: str, raw: bool = False) -> list[np.ndarray]:
    """The arrays of an array file, read-only views of the mapped file; ``raw``: as
    unsigned integers of their width (booleans as they are), so that no dtype module
    is needed to read them (the caller views them as its types)."""
    with open(path, "rb") as f:
        n = int.from_bytes(f.read(8), "little")
        header = json.loads(f.read(n))
        start = _aligned(8 + n)
        size = f.seek(0, 2)
        data: Any = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) if size else b""
    out = []
    for name, shape, off in header:
        dt = _dtype(name)
        if raw and dt != np.bool_:
            dt = np.dtype(f"uint{8 * dt.itemsize}")
        count = int(np.prod(shape, dtype=np.int64))
        a = np.frombuffer(data, dt, count, start + off) if count else np.empty(0, dt)
        out.append(a.reshape(shape))
    return out


def _put(inputs: list[np.ndarray]) -> list:
    import jax

    cpu = jax.devices("cpu")[0]
    return [jax.device_put(a, cpu) for a in inputs]


def run_xla(program: str, args: list) -> list:
    import jax
    from jax import export

    with open(program, "rb") as f:
        exp = export.deserialize(bytearray(f.read()))
    out = jax.jit(exp.call)(*args)
    return [np.asarray(x) for x in out]


def run_iree(program: str, inputs: list[np.ndarray], flags: list[str]) -> list:
    import iree.compiler as ic
    import iree.runtime as rt

    with open(program, encoding="utf-8") as f:
        text = f.read()
    vmfb = ic.compile_str(
        text, input_type="stablehlo", target_backends=["llvm-cpu"], extra_args=flags
    )
    config = rt.Config("local-task")
    ctx = rt.SystemContext(config=config)
    vm = rt.VmModule.copy_buffer(ctx.instance, vmfb)
    ctx.add_vm_module(vm)
    fn = ctx.modules[vm.name]["main"]  # (the module's @name, else "module")
    out = fn(*inputs)  # (bfloat16 arrays as ml_dtypes' type: iree/runtime/dtypes.py)
    if not isinstance(out, tuple | list):
        out = [out]
    return [x.to_host() if hasattr(x, "to_host") else np.asarray(x) for x in out]


def _version() -> str:
    """The StableHLO version of the jaxlib here (and jax's version, for the record)."""
    try:  # jaxlib's bindings alone: a fraction of importing jax
        from jaxlib.mlir.dialects import stablehlo

        return str(stablehlo.get_current_version())
    except (ImportError, AttributeError):
        from jax._src.lib.mlir.dialects import hlo

        return str(hlo.get_current_version())


def serve_xla() -> int:
    print(_version(), flush=True)
    import jax  # noqa: F401  (while hlorun writes the inputs and the program)
    from jax import export  # noqa: F401

    inputs, outputs = sys.stdin.readline().strip(), sys.stdin.readline().strip()
    if not inputs or not outputs:
        return 2
    args = _put(read_arrays(inputs))
    program = sys.stdin.readline().strip()
    if not program:
        return 2
    write_arrays(outputs, [raw_bits(r) for r in run_xla(program, args)])
    return 0


def main(argv: list[str]) -> int:
    try:
        if argv[0] == "xla-serve":
            return serve_xla()
        kind, program, inputs, outputs = argv[:4]
        values = read_arrays(inputs)
        if kind == "xla":
            results = run_xla(program, _put(values))
        elif kind == "iree":
            results = run_iree(program, values, argv[4:])
        else:
            raise ValueError(f"unknown engine {kind!r}")
        write_arrays(outputs, [raw_bits(r) for r in results])
        return 0
    except Exception as e:  # reported to hlorun, which prints it as its error
        print(f"{type(e).__name__}: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
