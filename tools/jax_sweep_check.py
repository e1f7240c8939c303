"""Run the programs tools/jax_sweep.py exported with hlorun and compare with JAX's outputs.

Run with hlorun's venv (no jax needed):

    .venv/bin/python tools/jax_sweep_check.py [--dir /work/sweep_out] [NAME_SUBSTRING ...]

Each program runs three ways: its MLIR text (compared with JAX's outputs), its portable
artifact (.mlirbc) and its jax.export container (.exported), both of which must give the
text form's results bit for bit. Every program ends in one class:

- pass
- parse_error / verify_error / unsupported / interp_error / type_error: hlorun's own
  errors (HloError subclasses) on the text form
- crash: any other Python exception (a traceback a user would see)
- timeout
- mismatch: results beyond the tolerance (`detail` says which output, how far)
- known_departure: a mismatch the sweep already explains (``known``: XLA departing from
  the spec, or values the spec leaves open)
- shape_dtype: a result of another shape or dtype than JAX's
- bytecode / exported: the artifact or container fails or differs from the text form

Tolerances: integers and bools, and float outputs of class `exact`, compare bit for bit
(NaN payloads aside); other floats compare |got - want| <= atol + rtol |want| with
rtol = k eps(dtype), atol = k eps(dtype) * scale (scale: 1, or max |want| for classes
whose error grows with the magnitude: approx, linalg, fft), k per class in TOL.
Non-unique results (eigh, svd, qr, eigenvalue order) compare what is unique.

Writes DIR/report.json (class and detail per program) and prints counts per class.
"""

from __future__ import annotations

import argparse
import json
import signal
import sys
import time
import traceback
from pathlib import Path
from typing import Any

import ml_dtypes
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # the repo root: tests.support

from hlorun import (
    HloError,
    HloTypeError,
    InterpreterError,
    ParseError,
    UnsupportedError,
    VerificationError,
    engine,
)
from tests.support.jax_fixtures import _load_npz  # noqa: E402

# (k, scale by max |want|): rtol = k eps, atol = k eps (* max |want|)
TOL: dict[str, tuple[float, bool]] = {
    "exact": (0.0, False),
    "ulp": (8.0, False),
    "special": (64.0, False),
    "approx": (256.0, True),
    "fft": (1024.0, True),
    "linalg": (1e4, True),
}


def load(d: Path, name: str, entry: dict[str, Any]) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """The inputs and JAX's outputs, ml_dtypes restored (the fixtures' npz convention)."""
    return (
        _load_npz(d / f"{name}.inputs.npz", entry["in_dtypes"]),
        _load_npz(d / f"{name}.outputs.npz", entry["out_dtypes"]),
    )


def is_float(dt: np.dtype) -> bool:
    return (
        dt.kind in "fc"
        or (dt.kind == "V" and not dt.name.startswith(("int", "uint")))
        or dt.name in ("bfloat16",)
        or dt.name.startswith("float")
    )


def wide(a: np.ndarray) -> np.ndarray:
    a = np.asarray(a)
    if a.dtype.kind in "fc" and a.dtype.itemsize >= 4:
        return a
    if a.dtype.kind == "c":
        return a.astype(np.complex128)
    return a.astype(np.float64)


def eps_of(dt: np.dtype) -> float:
    if dt.kind == "c":
        return float(np.finfo(np.float32 if dt.itemsize == 8 else np.float64).eps)
    return float(ml_dtypes.finfo(dt).eps)


class Mismatch(Exception):
    pass


def bits(a: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(a).reshape(-1).view(np.uint8)


def compare(i: int, g: Any, w: np.ndarray, tol: str) -> None:
    g = np.asarray(g)
    if g.shape != w.shape or g.dtype != w.dtype:
        raise Mismatch(
            f"shape_dtype: output {i}: {g.dtype}{list(g.shape)} != {w.dtype}{list(w.shape)}"
        )
    if not is_float(w.dtype):
        if not np.array_equal(bits(g), bits(w)):
            bad = np.flatnonzero(g.reshape(-1) != w.reshape(-1))
            raise Mismatch(
                f"output {i} ({w.dtype}): {bad.size}/{w.size} differ, first at {bad[:3].tolist()}: "
                f"got {g.reshape(-1)[bad[:3]].tolist()} want {w.reshape(-1)[bad[:3]].tolist()}"
            )
        return
    gw, ww = wide(g), wide(w)
    gn, wn = np.isnan(gw), np.isnan(ww)
    if not np.array_equal(gn, wn):
        bad = np.flatnonzero((gn != wn).reshape(-1))
        raise Mismatch(
            f"output {i} ({w.dtype}): NaN positions differ at {bad[:4].tolist()}: got "
            f"{gw.reshape(-1)[bad[:4]].tolist()} want {ww.reshape(-1)[bad[:4]].tolist()}"
        )
    k, scaled = TOL[tol]
    fin = np.isfinite(ww)
    gi, wi = np.where(gn, 0, gw), np.where(wn, 0, ww)
    inf_bad = (~fin & ~wn) & (gi != wi)
    if inf_bad.any():
        bad = np.flatnonzero(inf_bad.reshape(-1))
        raise Mismatch(
            f"output {i} ({w.dtype}): infinities differ at {bad[:4].tolist()}: got "
            f"{gw.reshape(-1)[bad[:4]].tolist()} want {ww.reshape(-1)[bad[:4]].tolist()}"
        )
    if k == 0:
        same = (gi == wi) | wn
        if not same.all():
            bad = np.flatnonzero(~same.reshape(-1))
            raise Mismatch(
                f"output {i} ({w.dtype}) exact: {bad.size}/{w.size} differ at {bad[:4].tolist()}: "
                f"got {gw.reshape(-1)[bad[:4]].tolist()} want {ww.reshape(-1)[bad[:4]].tolist()}"
            )
        return
    eps = eps_of(w.dtype)
    scale = 1.0
    if scaled and fin.any():
        scale = max(1.0, float(np.max(np.abs(wi[fin]))))
    err = np.abs(gi - wi)
    allowed = k * eps * scale + k * eps * np.abs(wi)
    bad = fin & (err > allowed)
    if bad.any():
        idx = np.flatnonzero(bad.reshape(-1))
        worst = idx[np.argmax((err / np.maximum(allowed, 1e-300)).reshape(-1)[idx])]
        raise Mismatch(
            f"output {i} ({w.dtype}) {tol}: {idx.size}/{w.size} beyond tol, worst at {worst}: "
            f"got {gw.reshape(-1)[worst]!r} want {ww.reshape(-1)[worst]!r} "
            f"(err {err.reshape(-1)[worst]:.3g}, {err.reshape(-1)[worst] / (eps * max(1.0, abs(wi.reshape(-1)[worst]))):.1f} eps)"
        )


def ct(a: np.ndarray) -> np.ndarray:
    return np.conj(np.swapaxes(a, -1, -2))


def check(
    entry: dict[str, Any], got: list[Any], want: list[np.ndarray], ins: list[np.ndarray]
) -> None:
    if len(got) != len(want):
        raise Mismatch(f"shape_dtype: {len(got)} results, JAX gave {len(want)}")
    kind, tol = entry["check"], entry["tol"]
    got = [np.asarray(g) for g in got]
    for i, (g, w) in enumerate(zip(got, want)):
        if g.shape != w.shape or g.dtype != w.dtype:
            raise Mismatch(
                f"shape_dtype: output {i}: {g.dtype}{list(g.shape)} != {w.dtype}{list(w.shape)}"
            )
    a = wide(ins[0]) if ins else None
    k = TOL[tol][0]
    kind = kind.removesuffix("_batched")  # the checks below work on batches of matrices
    if kind == "eigh":
        w_, v = (wide(x) for x in got)
        compare(0, got[0], want[0], tol)
        eps = eps_of(want[0].dtype)
        n = np.linalg.norm(a)
        if np.linalg.norm(a @ v - v * w_[..., None, :]) > k * eps * max(1.0, n):
            raise Mismatch("eigh: A V != V w")
        if np.linalg.norm(ct(v) @ v - np.eye(v.shape[-1])) > k * eps:
            raise Mismatch("eigh: V not unitary")
        return
    if kind == "svd":
        u, s_, vh = (wide(x) for x in got)
        compare(1, got[1], want[1], tol)
        eps = eps_of(want[1].dtype)
        if np.linalg.norm(a - (u * s_[..., None, :]) @ vh) > k * eps * max(1.0, np.linalg.norm(a)):
            raise Mismatch("svd: U S Vh != A")
        return
    if kind == "qr":
        q, r = (wide(x) for x in got)
        eps = eps_of(want[0].dtype)
        if np.linalg.norm(q @ r - a) > k * eps * max(1.0, np.linalg.norm(a)):
            raise Mismatch("qr: Q R != A")
        if np.abs(np.tril(r, -1)).max(initial=0) > 0:
            raise Mismatch("qr: R not upper triangular")
        compare(
            1,
            np.abs(np.diagonal(r, axis1=-2, axis2=-1)).astype(want[1].real.dtype),
            np.abs(np.diagonal(want[1], axis1=-2, axis2=-1)),
            tol,
        )
        return
    if kind == "lu":
        lu, piv, perm = (np.asarray(x) for x in got)
        n = lu.shape[-1]
        lo = np.tril(wide(lu), -1) + np.eye(n)
        pa = np.take_along_axis(a, perm[..., :, None].astype(np.int64), axis=-2)
        eps = eps_of(want[0].dtype)
        if np.linalg.norm(lo @ np.triu(wide(lu)) - pa) > k * eps * max(1.0, np.linalg.norm(a)):
            raise Mismatch("lu: L U != P A")
        compare(1, piv, want[1], "exact")
        compare(2, perm, want[2], "exact")
        return
    if kind == "eigvals":
        g, w = wide(got[0]), wide(want[0])
        gs, ws = np.sort_complex(g.reshape(-1)), np.sort_complex(w.reshape(-1))
        compare(0, gs.astype(want[0].dtype), ws.astype(want[0].dtype), tol)
        return
    errors = []
    for i, (g, w) in enumerate(zip(got, want)):
        try:
            compare(i, g, w, tol)
        except Mismatch as e:
            errors.append(str(e))
    if errors:
        raise Mismatch(" || ".join(errors))


class Timeout(Exception):
    pass


def _alarm(signum: int, frame: Any) -> None:
    raise Timeout()


def classify(e: BaseException) -> str:
    for cls, name in (
        (ParseError, "parse_error"),
        (VerificationError, "verify_error"),
        (UnsupportedError, "unsupported"),
        (HloTypeError, "type_error"),
        (InterpreterError, "interp_error"),
        (HloError, "hlo_error"),
        (Timeout, "timeout"),
    ):
        if isinstance(e, cls):
            return name
    return "crash"


def _short(e: BaseException) -> str:
    text = " ".join(str(e).split())
    if classify(e) == "crash":
        tb = traceback.extract_tb(e.__traceback__)[-1]
        text = f"{type(e).__name__}: {text} [{Path(tb.filename).name}:{tb.lineno} {tb.name}]"
    return text[:600]


def run_one(d: Path, name: str, entry: dict[str, Any], timeout: int) -> dict[str, Any]:
    ins, want = load(d, name, entry)
    args: list[Any] = [ins[i] for i in entry["kept"]]
    if len(entry.get("platforms", ["cpu"])) > 1:  # the platform index argument comes first
        args.insert(0, np.array(entry["platforms"].index("cpu"), np.int32))
    signal.signal(signal.SIGALRM, _alarm)
    t0 = time.time()
    signal.alarm(timeout)
    try:
        try:
            got = list(engine.run((d / f"{name}.mlir").read_text(), args))
        except BaseException as e:  # noqa: BLE001
            return {"class": classify(e), "detail": _short(e)}
        try:
            check(entry, got, want, ins)
        except Mismatch as e:
            msg = str(e)
            cls = "shape_dtype" if msg.startswith("shape_dtype") else "mismatch"
            if cls == "mismatch" and entry.get("known"):
                return {"class": "known_departure", "detail": f"{entry['known']}: {msg}"}
            return {"class": cls, "detail": msg}
        for form, fn in (
            ("bytecode", lambda: engine.run((d / f"{name}.mlirbc").read_bytes(), args)),
            ("exported", lambda: engine.load_exported(d / f"{name}.exported").call_flat(*ins)),
            *(
                (
                    f"bytecode_{tag}",
                    lambda tag=tag: engine.run((d / f"{name}.{tag}.mlirbc").read_bytes(), args),
                )
                for tag, v in entry.get("versions", {}).items()
                if not v.startswith("failed")
            ),
        ):
            try:
                other = list(fn())
            except BaseException as e:  # noqa: BLE001
                return {"class": form, "detail": f"{classify(e)}: {_short(e)}"}
            for i, (b, t) in enumerate(zip(other, got)):
                b, t = np.asarray(b), np.asarray(t)
                if b.dtype != t.dtype or b.shape != t.shape or not np.array_equal(bits(b), bits(t)):
                    return {"class": form, "detail": f"output {i} differs from the text form's"}
        return {"class": "pass", "seconds": round(time.time() - t0, 3)}
    except Timeout:
        return {"class": "timeout", "detail": f"over {timeout}s"}
    finally:
        signal.alarm(0)


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--dir", default="/work/sweep_out")
    ap.add_argument("--timeout", type=int, default=120)
    ap.add_argument("-q", action="store_true", help="print failures only")
    ap.add_argument("names", nargs="*")
    ns = ap.parse_args(argv)
    d = Path(ns.dir)
    manifest = json.loads((d / "manifest.json").read_text())
    rpath = d / "report.json"
    report = json.loads(rpath.read_text()) if (ns.names and rpath.exists()) else {}
    for name, entry in manifest["programs"].items():
        if ns.names and not any(s in name for s in ns.names):
            continue
        if entry["status"] != "ok":
            res = {"class": "export_failed", "detail": entry.get("error", "")}
        else:
            res = run_one(d, name, entry, ns.timeout)
        report[name] = res
        if not ns.q or res["class"] not in ("pass", "export_failed"):
            print(f"{name}: {res['class']} {res.get('detail', '')}", flush=True)
    report = {k: report[k] for k in manifest["programs"] if k in report}
    rpath.write_text(json.dumps(report, indent=0))
    counts: dict[str, int] = {}
    for r in report.values():
        counts[r["class"]] = counts.get(r["class"], 0) + 1
    print(json.dumps(counts))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
