"""sort with a TOTALORDER comparator keeps every input element's bits, NaNs included
(issue 18 item 3): the result is the input's bit patterns (sign and payload of each NaN
as they came) in IEEE 754 totalOrder.

The expected order is computed here on the bit patterns as Python integers: totalOrder
of sign-magnitude formats is the order of ``m`` for a positive sign and ``-m - 1`` for
a negative one (``m`` = the bits below the sign), so -NaN < -inf < ... < -0 < +0 < ...
< +inf < +NaN, and NaNs order by payload.
"""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

import hlorun

# MLIR type -> (dtype, storage uint dtype, total bits, NaN patterns without the sign)
FORMATS = {
    "f16": (np.float16, np.uint16, 16, (0x7E00, 0x7C01, 0x7D55, 0x7FFF)),
    "bf16": (ml_dtypes.bfloat16, np.uint16, 16, (0x7FC0, 0x7F81, 0x7FAA)),
    "f32": (np.float32, np.uint32, 32, (0x7FC00000, 0x7F800001, 0x7FA5A5A5, 0x7FFFFFFF)),
    "f64": (
        np.float64,
        np.uint64,
        64,
        (0x7FF8000000000000, 0x7FF0000000000001, 0x7FFDEADBEEF00000),
    ),
    "f8E5M2": (ml_dtypes.float8_e5m2, np.uint8, 8, (0x7E, 0x7D, 0x7F)),
    "f8E4M3FN": (ml_dtypes.float8_e4m3fn, np.uint8, 8, (0x7F,)),
}


def _total_key(bits: int, width: int) -> int:
    sign = 1 << (width - 1)
    mag = bits & (sign - 1)
    return -mag - 1 if bits & sign else mag


def _bit_patterns(name: str, rng) -> list[int]:
    """NaNs of both signs with several payloads, infinities, zeros, random patterns."""
    dtype, udt, width, nans = FORMATS[name]
    sign = 1 << (width - 1)
    specials = [0.0, 1.0, -1.0, 448.0 if width == 8 else 3.0]
    vals = [int(np.array(v, dtype=dtype).view(udt)) for v in specials] + [sign]  # -0
    if name != "f8E4M3FN":  # (no infinities there)
        inf = int(np.array(np.inf, dtype=dtype).view(udt))
        vals += [inf, inf | sign]
    for p in nans:
        with np.errstate(invalid="ignore"):
            assert np.isnan(np.array(p, udt).view(dtype).astype(np.float64))
        vals += [p, p | sign]
    vals += [int(r) & ((1 << width) - 1) for r in rng.integers(0, 1 << 62, size=12)]
    rng.shuffle(vals)
    return vals


@pytest.mark.parametrize("name", sorted(FORMATS))
@pytest.mark.parametrize("direction", ["LT", "GT"])
def test_totalorder_sort_keeps_nan_bits(name, direction):
    dtype, udt, width, _ = FORMATS[name]
    bits = _bit_patterns(name, np.random.default_rng(width))
    n = len(bits)
    text = f"""
func.func @main(%x: tensor<{n}x{name}>) -> tensor<{n}x{name}> {{
  %r = "stablehlo.sort"(%x) ({{
  ^bb0(%a: tensor<{name}>, %b: tensor<{name}>):
    %p = stablehlo.compare {direction}, %a, %b, TOTALORDER : (tensor<{name}>, tensor<{name}>) -> tensor<i1>
    stablehlo.return %p : tensor<i1>
  }}) {{dimension = 0 : i64, is_stable = true}} : (tensor<{n}x{name}>) -> tensor<{n}x{name}>
  func.return %r : tensor<{n}x{name}>
}}
"""
    x = np.array(bits, dtype=udt).view(dtype)
    (got,) = hlorun.run(text, [x])
    got_bits = [int(b) for b in np.asarray(got).view(udt)]
    want = sorted(bits, key=lambda b: _total_key(b, width), reverse=direction == "GT")
    assert got_bits == want


JAX_SORT_IN_A_CALLEE = """func.func @main(%x: tensor<2x7xf32>) -> tensor<2x7xf32> {
  %r = func.call @sort(%x) : (tensor<2x7xf32>) -> tensor<2x7xf32>
  return %r : tensor<2x7xf32>
}
func.func private @sort(%arg0: tensor<2x7xf32>) -> tensor<2x7xf32> {
    %cst = stablehlo.constant dense<0x7FC00000> : tensor<f32>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = "stablehlo.sort"(%arg0) <{dimension = 1 : i64, is_stable = true}> ({
    ^bb0(%arg1: tensor<f32>, %arg2: tensor<f32>):
      %1 = stablehlo.compare EQ, %arg1, %cst_0, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %2 = stablehlo.select %1, %cst_0, %arg1 : tensor<i1>, tensor<f32>
      %3 = stablehlo.compare NE, %arg1, %arg1, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %4 = stablehlo.select %3, %cst, %2 : tensor<i1>, tensor<f32>
      %5 = stablehlo.compare EQ, %arg2, %cst_0, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %6 = stablehlo.select %5, %cst_0, %arg2 : tensor<i1>, tensor<f32>
      %7 = stablehlo.compare NE, %arg2, %arg2, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %8 = stablehlo.select %7, %cst, %6 : tensor<i1>, tensor<f32>
      %9 = stablehlo.compare LT, %4, %8, TOTALORDER : (tensor<f32>, tensor<f32>) -> tensor<i1>
      stablehlo.return %9 : tensor<i1>
    }) : (tensor<2x7xf32>) -> tensor<2x7xf32>
    return %0 : tensor<2x7xf32>
}
"""


def test_jax_comparator_keeps_each_nan_bits():
    """jnp.sort's comparator (canonicalising -0 and NaN with constants captured from the
    enclosing function, TOTALORDER) inside a called function: the results are the
    operands' own bits, NaNs of both signs included; only their order is the comparator's
    (all NaNs tie, after +inf, in input order: the sort is stable)."""
    bits = np.array(
        [
            [0xFFC00000, 0x3F800000, 0x7FC00000, 0xFFC00001, 0x80000000, 0x40000000, 0x7F800001],
            [0, 0xFF800001, 0xFFC00000, 5, 0x7FC00000, 0xBF800000, 0xFFFFFFFF],
        ],
        dtype=np.uint32,
    )
    (got,) = hlorun.run(JAX_SORT_IN_A_CALLEE, [bits.view(np.float32).copy()])
    out = np.asarray(got).view(np.uint32)
    x = bits.view(np.float32)
    for row_in, row_out, xin in zip(bits, out, x):
        nan = np.isnan(xin)
        # finite/infinite values ascending (-0 and +0 tie, stable), then the NaNs as given
        order = sorted(np.flatnonzero(~nan), key=lambda k: float(xin[k]) + 0.0)
        want = [int(row_in[k]) for k in order] + [int(b) for b in row_in[nan]]
        assert [int(b) for b in row_out] == want
