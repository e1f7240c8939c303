"""Check a producer sweep's programs with hlorun (run in hlorun's venv).

    .venv/bin/python tools/producer_sweep_check.py [OUT] [--producer P] [NAME_SUBSTRING ...]

OUT (default /work/sweep_out_p) holds one folder per producer written by
tools/producer_sweep_torch.py / tools/producer_sweep_tf.py: NAME.mlir, NAME.mlirbc,
NAME.inputs.npz, NAME.outputs.npz and MANIFEST.json.  Each program runs from its text and
from its bytecode; the outputs are compared with the producer's: integers and bools
exactly, floats within a tolerance fitting their width (f32/f64: the fixtures' 1e-4 *
(max|exp| + |exp|); f16: 2e-3; bf16: 1.6e-2).  Every failure is classified:

* ``parse``: hlorun's parser (text or bytecode) refused the program;
* ``verify``: a shape function refused it;
* ``unsupported``: an op or case hlorun says it does not support;
* ``interpret``: an InterpreterError while running;
* ``crash``: any other Python exception (a bug in hlorun by definition);
* ``mismatch_int`` / ``mismatch_float``: outputs differ (``near`` when within 100x the
  tolerance: likely a precision difference between the producer's eager run and XLA);
* ``shape``: an output's shape or count differs;
* ``xla_differs_from_eager``: hlorun differs from the producer's eager outputs but agrees
  with the producer's own XLA run (NAME.xla.npz, torchax): the export departs, not hlorun.

A summary and one line per failure go to stdout; OUT/report.json holds them all.
"""

from __future__ import annotations

import json
import sys
import time
import traceback
from pathlib import Path
from typing import Any

import numpy as np

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

import hlorun  # noqa: E402
from hlorun.parser.errors import (  # noqa: E402
    HloError,
    InterpreterError,
    ParseError,
    UnsupportedError,
    VerificationError,
)
from tests.support.producer_fixtures import as_program_outputs  # noqa: E402

FORMS = {"text": ".mlir", "bytecode": ".mlirbc"}
RTOL = {"float16": 2e-3, "bfloat16": 1.6e-2}


def arrays(path: Path) -> list[np.ndarray]:
    with np.load(path, allow_pickle=False) as z:
        return [z[f"arr_{i}"] for i in range(len(z.files))]


def compare(
    got: np.ndarray, exp: np.ndarray, entry: dict[str, Any], i: int
) -> tuple[str, str] | None:
    """None if equal enough, else (class, detail)."""
    got = np.asarray(got)
    if got.shape != exp.shape:
        return "shape", f"output {i}: shape {got.shape} vs {exp.shape}"
    spec = (entry.get("program_outputs") or [{}] * (i + 1))[i]
    width = spec.get("dtype", exp.dtype.name)
    if exp.dtype.kind not in "fc" and got.dtype.kind not in "fc":
        if np.array_equal(
            got.astype(np.int64) if got.dtype.kind != "b" else got,
            exp.astype(np.int64) if exp.dtype.kind != "b" else exp,
        ):
            return None
        bad = int(np.sum(got != exp))
        return "mismatch_int", f"output {i} ({width}): {bad} of {exp.size} differ"
    kind = np.complex128 if "c" in (exp.dtype.kind, got.dtype.kind) else np.float64
    g, e = got.astype(kind), exp.astype(kind)
    rtol = RTOL.get(width, 1e-4)
    nan = np.isnan(e)
    if not np.array_equal(np.isnan(g), nan):
        return (
            "mismatch_float",
            f"output {i} ({width}): NaN positions differ ({int(np.sum(np.isnan(g) != nan))})",
        )
    fin = np.isfinite(e)
    if not np.array_equal(g[~fin & ~nan], e[~fin & ~nan]):
        return "mismatch_float", f"output {i} ({width}): infinities differ"
    scale = float(np.abs(e[fin]).max()) if fin.any() else 0.0
    err = np.where(fin, np.abs(g - e), 0)
    bound = rtol * (scale + np.abs(e))
    bad = fin & (err > bound)
    if not bad.any():
        return None
    worst = np.unravel_index(np.argmax(np.where(bad, err / np.maximum(bound, 1e-300), 0)), e.shape)
    ratio = float(np.max(np.where(bad, err / np.maximum(bound, 1e-300), 0)))
    near = " near" if ratio < 100 else ""
    return (
        f"mismatch_float{near.replace(' ', '_')}",
        f"output {i} ({width}): {int(bad.sum())} of {e.size} off, worst {ratio:.3g}x bound at "
        f"{tuple(int(k) for k in worst)}: got {g[worst]}, expected {e[worst]}",
    )


def check_one(folder: Path, name: str, entry: dict[str, Any], form: str) -> tuple[str, str] | None:
    inputs = arrays(folder / f"{name}.inputs.npz")
    exp = arrays(folder / f"{name}.outputs.npz")
    try:
        got = hlorun.run(str(folder / f"{name}{FORMS[form]}"), inputs)
    except ParseError as e:
        return "parse", str(e)[:300]
    except VerificationError as e:
        return "verify", str(e)[:300]
    except UnsupportedError as e:
        return "unsupported", str(e)[:300]
    except InterpreterError as e:
        return "interpret", str(e)[:300]
    except HloError as e:
        return "hloerror", str(e)[:300]
    except Exception as e:  # noqa: BLE001 (a crash is a finding)
        tb = traceback.extract_tb(e.__traceback__)[-1]
        return "crash", f"{type(e).__name__}: {str(e)[:200]} at {tb.filename}:{tb.lineno}"
    got = list(got) if isinstance(got, tuple | list) else [got]
    if len(got) > len(exp) and entry.get("family") == "train":
        got = got[: len(exp)]  # then the updated resources (TF returns them too)
    if len(got) != len(exp):
        return "shape", f"{len(got)} outputs vs {len(exp)}"
    if any(-1 in o["shape"] for o in entry.get("program_outputs", [])):  # dynamic dims
        entry = {
            **entry,
            "program_outputs": [
                {**o, "shape": list(e.shape)} for o, e in zip(entry["program_outputs"], exp)
            ],
        }
    if entry.get("family") == "train":  # the updated resources follow the outputs
        entry = {**entry, "program_outputs": entry["program_outputs"][: len(exp)]}
    try:
        exp = as_program_outputs(exp, entry)
    except AssertionError as e:
        return "shape", str(e)
    first = None
    for i, (g, x) in enumerate(zip(got, exp)):
        first = first or compare(g, x, entry, i)
    xla_path = folder / f"{name}.xla.npz"
    if first is None or not xla_path.exists():
        return first
    # The producer's own XLA run (torchax): does hlorun agree with it instead?
    xla = as_program_outputs([a.reshape(e.shape) for a, e in zip(arrays(xla_path), exp)], entry)
    if all(compare(g, x, entry, i) is None for i, (g, x) in enumerate(zip(got, xla))):
        return "xla_differs_from_eager", f"hlorun agrees with XLA; eager: {first[1]}"
    return first


def main(argv: list[str]) -> int:
    out = Path("/work/sweep_out_p")
    if argv and not argv[0].startswith("-") and Path(argv[0]).is_dir():
        out, argv = Path(argv[0]), argv[1:]
    producers = None
    if argv[:1] == ["--producer"]:
        producers, argv = [argv[1]], argv[2:]
    report: dict[str, Any] = {}
    counts: dict[str, int] = {}
    for folder in sorted(p for p in out.iterdir() if (p / "MANIFEST.json").exists()):
        if producers and folder.name not in producers:
            continue
        fixtures = json.loads((folder / "MANIFEST.json").read_text())["fixtures"]
        for name, entry in fixtures.items():
            if argv and not any(s in name for s in argv):
                continue
            status = entry["status"]
            if status != "ok":
                counts[f"producer_{status}"] = counts.get(f"producer_{status}", 0) + 1
                continue
            for form in FORMS:
                t = time.perf_counter()
                bad = check_one(folder, name, entry, form)
                dt = time.perf_counter() - t
                key = f"{folder.name}/{name}/{form}"
                cls = "pass" if bad is None else bad[0]
                counts[cls] = counts.get(cls, 0) + 1
                report[key] = {
                    "class": cls,
                    "detail": None if bad is None else bad[1],
                    "seconds": round(dt, 3),
                }
                if bad is not None:
                    print(f"{key}: {bad[0]}: {bad[1]}", flush=True)
    print(json.dumps(counts, sort_keys=True))
    (out / "report.json").write_text(json.dumps({"counts": counts, "runs": report}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
