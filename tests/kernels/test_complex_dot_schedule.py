"""complex dot_general runs the reference interpreter's in-order schedule (issue 18
item 3; engine/kernels/linalg.py ``COMPLEX_IN_ORDER_K``): each result element starts
at 0 and adds ``lhs[k] * rhs[k]`` in contracting-index order (the last contracting
dimension listed varying fastest), every product part and every sum rounded to the
element type.  The expected values come from a per-element Python loop over NumPy
scalars (each scalar operation rounds once), written here independently."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import hlorun

SCALAR = {np.complex64: np.float32, np.complex128: np.float64}


def _reference(lhs, rhs, lb, rb, lc, rc):
    f = SCALAR[lhs.dtype.type]
    lf = [d for d in range(lhs.ndim) if d not in lb and d not in lc]
    rf = [d for d in range(rhs.ndim) if d not in rb and d not in rc]
    out_dims = [lhs.shape[d] for d in lb] + [lhs.shape[d] for d in lf] + [rhs.shape[d] for d in rf]
    out = np.zeros(out_dims, lhs.dtype)
    for idx in itertools.product(*[range(n) for n in out_dims]):
        li, ri = [0] * lhs.ndim, [0] * rhs.ndim
        pos = 0
        for a, b in zip(lb, rb):
            li[a] = ri[b] = idx[pos]
            pos += 1
        for a in lf:
            li[a] = idx[pos]
            pos += 1
        for b in rf:
            ri[b] = idx[pos]
            pos += 1
        re, im = f(0), f(0)
        for kidx in itertools.product(*[range(lhs.shape[d]) for d in lc]):
            for a, b, v in zip(lc, rc, kidx):
                li[a], ri[b] = v, v
            x, y = lhs[tuple(li)], rhs[tuple(ri)]
            xr, xi, yr, yi = f(x.real), f(x.imag), f(y.real), f(y.imag)
            re = re + (xr * yr - xi * yi)
            im = im + (xr * yi + xi * yr)
        out[idx] = complex(re, im)
    return out


def _ty(shape, dt) -> str:
    name = "complex<f32>" if dt == np.complex64 else "complex<f64>"
    return "tensor<" + "".join(f"{n}x" for n in shape) + name + ">"


def _run(lhs, rhs, lb, rb, lc, rc, out_shape):
    dn = ", ".join(
        f"{k} = [{', '.join(map(str, v))}]"
        for k, v in (
            ("lhs_batching_dimensions", lb),
            ("rhs_batching_dimensions", rb),
            ("lhs_contracting_dimensions", lc),
            ("rhs_contracting_dimensions", rc),
        )
        if v
    )
    lt, rt, ot = _ty(lhs.shape, lhs.dtype), _ty(rhs.shape, rhs.dtype), _ty(out_shape, lhs.dtype)
    text = (
        f"func.func @main(%a: {lt}, %b: {rt}) -> {ot} {{\n"
        f'  %r = "stablehlo.dot_general"(%a, %b) {{dot_dimension_numbers = '
        f"#stablehlo.dot<{dn}>}} : ({lt}, {rt}) -> {ot}\n"
        f"  func.return %r : {ot}\n}}\n"
    )
    (got,) = hlorun.run(text, [lhs, rhs])
    return np.asarray(got)


def _random(rng, shape, dt, spread):
    mag = np.exp(rng.uniform(-spread, spread, size=shape)) * rng.choice([-1, 1], size=shape)
    mag2 = np.exp(rng.uniform(-spread, spread, size=shape)) * rng.choice([-1, 1], size=shape)
    return (mag + 1j * mag2).astype(dt)


CASES = [
    # lhs shape, rhs shape, lb, rb, lc, rc
    ((3, 7), (7, 2), (), (), (1,), (0,)),
    ((2, 3, 5), (2, 5, 4), (0,), (0,), (2,), (1,)),
    ((4, 3, 2), (2, 3, 5), (), (), (1, 2), (1, 0)),  # two contracting dims, permuted
    ((2, 6, 3), (3, 6, 2), (2,), (0,), (1,), (1,)),
    ((5,), (5,), (), (), (0,), (0,)),
]


@pytest.mark.parametrize("dt", [np.complex64, np.complex128])
@pytest.mark.parametrize("case", CASES, ids=str)
def test_bitwise_in_order(case, dt):
    ls, rs, lb, rb, lc, rc = case
    rng = np.random.default_rng(len(ls) * 7 + len(rs))
    lhs = _random(rng, ls, dt, 12.0)  # magnitudes spanning e**+-12: cancellation and
    rhs = _random(rng, rs, dt, 12.0)  # absorption make the order visible
    want = _reference(lhs, rhs, lb, rb, lc, rc)
    got = _run(lhs, rhs, lb, rb, lc, rc, want.shape)
    assert got.dtype == want.dtype
    bits = SCALAR[dt]
    assert np.array_equal(got.reshape(-1).view(bits), want.reshape(-1).view(bits)), (got, want)


@pytest.mark.parametrize("dt", [np.complex64, np.complex128])
def test_cancelling_sum_in_order(dt):
    """(B + 1) - B in order: B + 1 rounds to B, so the in-order result is 0 (and
    1 + (B - B) = 1 in another order)."""
    big = 2.0**30 if dt == np.complex64 else 2.0**60
    lhs = np.array([[big, 1.0, -big]], dt)
    rhs = np.array([[1.0], [1.0], [1.0]], dt)
    got = _run(lhs, rhs, (), (), (1,), (0,), (1, 1))
    assert got[0, 0] == 0
