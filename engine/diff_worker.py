"""Runs a program on XLA (through jax) or IREE for ``hlorun diff``, in its own process.

Standalone: it imports only NumPy and the engine's own packages (never hlorun), so that
it runs in whatever environment has jax or IREE installed::

    python diff_worker.py xla   PROGRAM.exported INPUTS.npz OUTPUTS.npz
    python diff_worker.py xla-serve INPUTS.npz OUTPUTS.npz
    python diff_worker.py iree  PROGRAM.mlir     INPUTS.npz OUTPUTS.npz [COMPILER FLAG...]

``xla-serve`` prints the StableHLO version of its jaxlib (the version the container's
portable artifact must be readable at) and reads the program's path from standard
input, so that one process both says it and runs.  INPUTS.npz holds ``arr_i`` (the raw bits of each input as unsigned integers, booleans
as they are) and ``dtypes`` (their dtype names, ml_dtypes' for bfloat16 and the small
floats); OUTPUTS.npz holds ``arr_i``, the raw bits of each result the same way.  Errors
go to standard error with exit status 2.
"""

from __future__ import annotations

import sys

import numpy as np


def _raw(a: np.ndarray) -> np.ndarray:
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


def _inputs(path: str) -> list[np.ndarray]:
    with np.load(path, allow_pickle=False) as z:
        names = [str(n) for n in z["dtypes"]]
        return [z[f"arr_{i}"].view(_dtype(n)) for i, n in enumerate(names)]


def _save(path: str, results: list) -> None:
    members: dict = {f"arr_{i}": _raw(np.asarray(r)) for i, r in enumerate(results)}
    np.savez(path, **members)


def run_xla(program: str, inputs: list[np.ndarray]) -> list:
    import jax
    from jax import export

    with open(program, "rb") as f:
        exp = export.deserialize(bytearray(f.read()))
    cpu = jax.devices("cpu")[0]
    args = [jax.device_put(a, cpu) for a in inputs]
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


def main(argv: list[str]) -> int:
    try:
        if argv[0] == "xla-serve":
            import jax
            from jax._src.lib.mlir.dialects import hlo

            print(hlo.get_current_version(), jax.__version__, flush=True)
            program = sys.stdin.readline().strip()
            if not program:
                return 2
            argv = ["xla", program, *argv[1:]]
        kind, program, inputs, outputs = argv[:4]
        values = _inputs(inputs)
        if kind == "xla":
            results = run_xla(program, values)
        elif kind == "iree":
            results = run_iree(program, values, argv[4:])
        else:
            raise ValueError(f"unknown engine {kind!r}")
        _save(outputs, results)
        return 0
    except Exception as e:  # reported to hlorun, which prints it as its error
        print(f"{type(e).__name__}: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
