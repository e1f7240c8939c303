"""Run under ``mpiexec`` by tests/engine/test_mpi.py (not a test module itself):

mpiexec -n N python tests/engine/mpi_driver.py OUTDIR files FILE...
    each chunk of each FILE through ``hlorun.run(..., grid="mpi")``; rank 0 writes
    OUTDIR/<file name>.json: per chunk, the error or the bytes of every
    ``run_parallel`` result and entry result (``capture``, which the test also runs
    on the thread grid).
mpiexec -n N python tests/engine/mpi_driver.py OUTDIR api FILE [DEADLOCK_TIMEOUT]
    ``run(FILE, grid="mpi")`` (inputs: none); every rank writes OUTDIR/rank<i>.json
    with its error or its results.
mpiexec -n N python tests/engine/mpi_driver.py OUTDIR infeed FILE ENTRIES
    ``run(FILE, grid="mpi", infeed=[ENTRIES int64 scalars 10, 11, ...],
    outfeed=[])``: every rank writes its results and outfeed.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import numpy as np

from hlorun.engine import run
from hlorun.engine.cli import entry_points
from hlorun.parser import parse_module
from hlorun.parser.errors import HloError
from hlorun.parser.source import split_input


def encode(value: Any) -> Any:
    if isinstance(value, np.ndarray | np.generic):
        a = np.ascontiguousarray(value)
        return [a.dtype.name, list(a.shape), a.reshape(-1).view(np.uint8).tobytes().hex()]
    if isinstance(value, tuple | list):
        return [encode(v) for v in value]
    if value is None:
        return None
    return repr(value)


def capture(path: str, grid: str, **options: Any) -> list[dict[str, Any]]:
    """Per chunk of ``path``: its error, or the bytes of every run_parallel result and
    every entry result."""
    text = Path(path).read_text()
    out = []
    for chunk in split_input(text, True):
        rec: dict[str, Any] = {"error": None, "results": []}
        try:
            module = parse_module(chunk.text, path)
            if not module.functions:
                continue

            def cb(name: str, pos: Any, results: list, rec: dict = rec) -> None:
                if name == "interpreter.run_parallel":
                    rec["results"].append(encode(results))

            for fn in entry_points(module, None):
                res = run(module, [], function=fn.name, grid=grid, callback=cb, **options)
                rec["results"].append(encode(res))
        except HloError as e:
            rec["error"] = e.render()
        out.append(rec)
    return out


def _rank() -> int:
    from mpi4py import MPI

    return MPI.COMM_WORLD.Get_rank()


def _outcome(fn: Any) -> dict[str, Any]:
    try:
        return {"error": None, "results": encode(fn())}
    except HloError as e:
        return {"error": e.render(), "cls": type(e).__name__, "results": None}


def main(argv: list[str]) -> None:
    outdir, mode, *rest = argv
    out = Path(outdir)
    rank = _rank()
    if mode == "files":
        for path in rest:
            got = capture(path, "mpi")
            if rank == 0:
                (out / (Path(path).name + ".json")).write_text(json.dumps(got))
        return
    if mode == "api":
        path = rest[0]
        timeout = float(rest[1]) if len(rest) > 1 else None
        rec = _outcome(lambda: run(path, [], grid="mpi", deadlock_timeout=timeout))
    elif mode == "infeed":
        path, n = rest[0], int(rest[1])
        feed = [np.asarray(10 + i, np.int64) for i in range(n)]
        outfeed: list[Any] = []
        rec = _outcome(lambda: run(path, [], grid="mpi", infeed=feed, outfeed=outfeed))
        rec["outfeed"] = encode(outfeed)
    else:
        raise SystemExit(f"unknown mode {mode}")
    (out / f"rank{rank}.json").write_text(json.dumps(rec))


if __name__ == "__main__":
    main(sys.argv[1:])
