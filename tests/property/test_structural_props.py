"""Structural ops on EVERY element type, bit for bit.

tests/kernels/test_movement.py, test_gather_scatter.py, test_reduction.py, test_sort.py,
test_linalg.py and test_convolution.py already check random instances of
broadcast_in_dim, transpose, slice, pad, concatenate, reverse, gather, scatter,
dot_general, convolution, reduce, reduce_window and sort against the spec's index
formulas, on int32 data.  What they do not vary is the element type: here the data
movement ops run on every element type (sub-byte integers, every narrow float with NaN
payloads and -0, tf32, complex) with hypothesis-drawn special values, and the result
must carry the operand's elements bitwise to the places the spec's formulas say.
"""

from __future__ import annotations

import itertools
from math import prod

import pytest
from hypothesis import given
from hypothesis import strategies as st

from .elements import ALL, from_elems, to_elems
from .harness import PROFILE, operand_lists, run_kernel, shapes


def _index(shape):
    return list(itertools.product(*[range(n) for n in shape]))


def _at(flat, shape, idx):
    """Row-major element ``idx`` of a flat list of shape ``shape``."""
    off = 0
    for i, n in zip(idx, shape):
        off = off * n + i
    return flat[off]


def _check(op, got_arr, t, expected):
    got = to_elems(got_arr, t)
    assert got == expected, f"{op} on {t.name}: got {got}, want {expected}"


@pytest.mark.parametrize("t", ALL, ids=str)
@PROFILE
@given(data=st.data())
def test_movement_ops_carry_bits(t, data):
    shape = data.draw(shapes(max_rank=3, max_dim=3), label="shape")
    n = prod(shape)
    (x,) = data.draw(operand_lists(t, 1, n), label="values")
    arr = from_elems(x, shape, t)
    rank = len(shape)

    # transpose: result[i] = operand[j] with j[permutation[d]] = i[d]
    perm = data.draw(st.permutations(list(range(rank))), label="permutation")
    out_shape = tuple(shape[p] for p in perm)
    got = run_kernel("transpose", [arr], [t], t, out_shape, permutation=tuple(perm))
    want = []
    for i in _index(out_shape):
        j = [0] * rank
        for d, p in enumerate(perm):
            j[p] = i[d]
        want.append(_at(x, shape, j))
    _check("transpose", got, t, want)

    # reverse
    dims = tuple(
        sorted(
            data.draw(
                st.sets(st.sampled_from(range(rank))) if rank else st.just(set()),
                label="reverse dims",
            )
        )
    )
    got = run_kernel("reverse", [arr], [t], t, shape, dimensions=dims)
    want = [
        _at(x, shape, [shape[d] - 1 - i[d] if d in dims else i[d] for d in range(rank)])
        for i in _index(shape)
    ]
    _check("reverse", got, t, want)

    # slice
    start = [data.draw(st.integers(0, m)) for m in shape]
    limit = [data.draw(st.integers(s, m)) for s, m in zip(start, shape)]
    stride = [data.draw(st.integers(1, 3)) for _ in shape]
    sl_shape = tuple(-(-(lm - s) // k) for s, lm, k in zip(start, limit, stride))
    got = run_kernel(
        "slice",
        [arr],
        [t],
        t,
        sl_shape,
        start_indices=tuple(start),
        limit_indices=tuple(limit),
        strides=tuple(stride),
    )
    want = [
        _at(x, shape, [s + i * k for s, i, k in zip(start, idx, stride)])
        for idx in _index(sl_shape)
    ]
    _check("slice", got, t, want)

    # pad: result[lo + i * (interior + 1)] = operand[i], padding value elsewhere
    (pv,) = data.draw(operand_lists(t, 1, 1), label="padding value")
    lo = [data.draw(st.integers(-1, 2)) for _ in shape]
    interior = [data.draw(st.integers(0, 2)) for _ in shape]
    inner = [m + max(m - 1, 0) * it for m, it in zip(shape, interior)]
    hi = [data.draw(st.integers(max(-1, -(i + a)), 2)) for i, a in zip(inner, lo)]
    pad_shape = tuple(i + a + b for i, a, b in zip(inner, lo, hi))
    got = run_kernel(
        "pad",
        [arr, from_elems(pv, (), t)],
        [t, t],
        t,
        pad_shape,
        edge_padding_low=tuple(lo),
        edge_padding_high=tuple(hi),
        interior_padding=tuple(interior),
    )
    placed = {}
    for idx in _index(shape):
        r = tuple(a + i * (it + 1) for a, i, it in zip(lo, idx, interior))
        if all(0 <= v < m for v, m in zip(r, pad_shape)):
            placed[r] = _at(x, shape, idx)
    want = [placed.get(r, pv[0]) for r in _index(pad_shape)]
    _check("pad", got, t, want)

    # concatenate with itself along a random dimension
    if rank:
        d = data.draw(st.integers(0, rank - 1), label="dimension")
        cat_shape = tuple(m * 2 if k == d else m for k, m in enumerate(shape))
        got = run_kernel("concatenate", [arr, arr], [t, t], t, cat_shape, dimension=d)
        want = [
            _at(x, shape, [i % shape[k] if k == d else i for k, i in enumerate(idx)])
            for idx in _index(cat_shape)
        ]
        _check("concatenate", got, t, want)

    # broadcast_in_dim into one more leading dimension
    extra = data.draw(st.integers(0, 2), label="new dimension")
    b_shape = (extra,) + tuple(shape)
    got = run_kernel(
        "broadcast_in_dim", [arr], [t], t, b_shape, broadcast_dimensions=tuple(range(1, rank + 1))
    )
    want = [_at(x, shape, idx[1:]) for idx in _index(b_shape)]
    _check("broadcast_in_dim", got, t, want)
