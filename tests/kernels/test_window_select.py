"""select_and_scatter with a plain ``compare`` select (GE / GT / LE / LT) and an ``add``
scatter: the doubling selection (engine/kernels/window_scan.select_positions) and
``np.add.at`` scatter against a loop reference written from the spec (every window
scanned in position order, ``select(current, candidate)`` keeping the current one;
padding positions are never selected (the spec's ``reduce_window_without_init``, as the
StableHLO reference interpreter skips them) and a window of padding only scatters
nowhere; each result element is init plus its sources in ascending source order), and
against the region-call path."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import hlorun.engine.kernels.window_scan as scan
from hlorun import engine

ETYPE = {np.dtype(np.float32): "f32", np.dtype(np.int32): "i32", np.dtype(np.float16): "f16"}


def _program(shape, src_shape, dtype, wd, ws, pad, direction, swapped=False):
    t = f"tensor<{'x'.join(map(str, shape))}x{ETYPE[dtype]}>"
    st = f"tensor<{'x'.join(map(str, src_shape))}x{ETYPE[dtype]}>"
    e = f"tensor<{ETYPE[dtype]}>"
    ctype = "FLOAT" if dtype.kind == "f" else "SIGNED"
    a, b = ("%b", "%a") if swapped else ("%a", "%b")
    pad_text = ", ".join(f"[{lo}, {hi}]" for lo, hi in pad)
    return f"""func.func @main(%x: {t}, %s: {st}, %i: {e}) -> {t} {{
  %r = "stablehlo.select_and_scatter"(%x, %s, %i) ({{
    ^bb0(%a: {e}, %b: {e}):
      %c = stablehlo.compare {direction}, {a}, {b}, {ctype} : ({e}, {e}) -> tensor<i1>
      stablehlo.return %c : tensor<i1>
  }}, {{
    ^bb0(%a: {e}, %b: {e}):
      %c = stablehlo.add %a, %b : {e}
      stablehlo.return %c : {e}
  }}) {{window_dimensions = array<i64: {", ".join(map(str, wd))}>,
      window_strides = array<i64: {", ".join(map(str, ws))}>,
      padding = dense<[{pad_text}]> : tensor<{len(shape)}x2xi64>}}
    : ({t}, {st}, {e}) -> {t}
  func.return %r : {t}
}}"""


@pytest.fixture(autouse=True)
def _always_scan(monkeypatch):
    monkeypatch.setattr(scan, "SCAN_WORK_RATIO", 0)


def _run(text, *args):
    out = engine.compile(text)(*args)
    return np.asarray(out[0] if isinstance(out, (list, tuple)) else out)


_CMP = {
    "GE": lambda a, b: a >= b,
    "GT": lambda a, b: a > b,
    "LE": lambda a, b: a <= b,
    "LT": lambda a, b: a < b,
}


def _reference(x, src, init, wd, ws, pad, keep):
    out = np.full(x.shape, init, x.dtype)
    for o in itertools.product(*(range(n) for n in src.shape)):
        best = None
        for p in itertools.product(*(range(w) for w in wd)):
            idx = tuple(a * s + b - lo for a, s, b, (lo, _) in zip(o, ws, p, pad))
            if not all(0 <= t < n for t, n in zip(idx, x.shape)):
                continue  # padding: never selected
            if best is None or not keep(x[best], x[idx]):
                best = idx
        if best is not None:
            out[best] = out[best] + src[o]
    return out


CASES = [
    ((40,), (17,), (2,), ((3, 4),)),
    ((37,), (16,), (5,), ((0, 0),)),
    ((6, 30), (3, 18), (2, 3), ((1, 1), (2, 4))),
    ((20, 5), (16, 2), (1, 1), ((0, 0), (0, 1))),
]


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("direction", ["GE", "GT", "LE", "LT"])
@pytest.mark.parametrize(
    "dtype", [np.float32, np.int32, pytest.param(np.float16, marks=pytest.mark.slow)]
)
def test_matches_spec_loop_and_region_path(monkeypatch, case, direction, dtype):
    dtype = np.dtype(dtype)
    shape, wd, ws, pad = case
    rng = np.random.default_rng(len(shape) + wd[0])
    x = rng.integers(-4, 5, size=shape).astype(dtype)  # many ties
    if dtype.kind == "f":
        x[x == 0] = -0.0
    nw = tuple((n + lo + hi - w) // s + 1 for n, (lo, hi), w, s in zip(shape, pad, wd, ws))
    src = rng.integers(-9, 10, size=nw).astype(dtype) / (3 if dtype.kind == "f" else 1)
    src = src.astype(dtype)
    init = dtype.type(1)
    for swapped in (False, True):
        text = _program(shape, nw, dtype, wd, ws, pad, direction, swapped)
        keep = _CMP[direction] if not swapped else (lambda a, b, f=_CMP[direction]: f(b, a))
        want = _reference(x, src, init, wd, ws, pad, keep)
        got = _run(text, x, src, np.asarray(init, dtype))
        assert got.tobytes() == want.tobytes(), (got, want)
        with monkeypatch.context() as m:
            m.setattr(scan, "SCAN_MIN_WINDOW", 10**9)
            old = _run(text, x, src, np.asarray(init, dtype))
        assert got.tobytes() == old.tobytes()


@pytest.mark.parametrize("window", [(3, 2), (16, 1)])  # region scan / doubling
def test_padding_is_never_selected(window):
    """TensorFlow's max-pool gradient (SAME padding, init 0, GE select): a border window
    of negative values selects its largest element, not the zero padding (found by a
    TensorFlow training-step export whose border gradients came out 0)."""
    w, s = window
    n = 7 if w == 3 else 20
    x = -np.arange(1, n + 1, dtype=np.float32)[::-1].copy()  # all negative, rising
    nw = (n + 2 - w) // s + 1
    src = np.arange(1, nw + 1, dtype=np.float32)
    text = _program((n,), (nw,), np.dtype(np.float32), (w,), (s,), ((1, 1),), "GE")
    want = _reference(x, src, np.float32(0), (w,), (s,), ((1, 1),), _CMP["GE"])
    assert want.sum() == src.sum()  # every window selected an operand element
    got = _run(text, x, src, np.float32(0))
    assert got.tobytes() == want.tobytes(), (got, want)
    x[-1] = -np.inf  # the doubling's losing padding value occurs: the region scan decides
    got = _run(text, x, src, np.float32(0))
    want = _reference(x, src, np.float32(0), (w,), (s,), ((1, 1),), _CMP["GE"])
    assert got.tobytes() == want.tobytes(), (got, want)


def test_nan_operand_uses_the_region_scan():
    """With a NaN the compare is not a total order: the in-order scan decides."""
    x = np.array([1.0, np.nan, 3.0, 0.5] * 5, np.float32)
    src = np.ones(5, np.float32)
    text = _program((20,), (5,), np.dtype(np.float32), (16,), (1,), ((0, 0),), "GE")
    want = _reference(x, src, np.float32(0), (16,), (1,), ((0, 0),), _CMP["GE"])
    got = _run(text, x, src, np.float32(0))
    assert got.tobytes() == want.tobytes()
