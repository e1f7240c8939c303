"""An f16 reduce_window whose body starts with ``maximum`` (jax.lax.cumlogsumexp as
jax.export lowers it) returns its declared (8, 9) f16 result, as a parameter program
and with a constant operand (folded at plan time), within 2 f16 ULP of the float64
cumulative log-sum-exp (issue 18 item 3: a ``maximum`` fast path once returned the
whole (8, 9) array where the body's rank-0 result was planned)."""

from __future__ import annotations

import numpy as np
import pytest

import hlorun
from hlorun.engine.element import ulp_distance
from tests.property.elements import BY_NAME
from tests.support.progen import dense_text

BODY = """
  %cst = stablehlo.constant dense<0xFC00> : tensor<f16>
  %0 = "stablehlo.reduce_window"(%x, %cst) <{padding = dense<[[0, 0], [8, 0]]> : tensor<2x2xi64>, window_dimensions = array<i64: 1, 9>}> ({
  ^bb0(%arg1: tensor<f16>, %arg2: tensor<f16>):
    %1 = stablehlo.maximum %arg1, %arg2 : tensor<f16>
    %2 = stablehlo.subtract %arg1, %arg2 : tensor<f16>
    %3 = stablehlo.compare NE, %2, %2, FLOAT : (tensor<f16>, tensor<f16>) -> tensor<i1>
    %4 = stablehlo.add %arg1, %arg2 : tensor<f16>
    %5 = stablehlo.abs %2 : tensor<f16>
    %6 = stablehlo.negate %5 : tensor<f16>
    %7 = stablehlo.exponential %6 : tensor<f16>
    %8 = stablehlo.log_plus_one %7 : tensor<f16>
    %9 = stablehlo.add %1, %8 : tensor<f16>
    %10 = stablehlo.select %3, %4, %9 : tensor<i1>, tensor<f16>
    stablehlo.return %10 : tensor<f16>
  }) : (tensor<8x9xf16>, tensor<f16>) -> tensor<8x9xf16>
  return %0 : tensor<8x9xf16>
}
"""


@pytest.mark.parametrize("form", ["parameter", "constant"])
def test_f16_cumlogsumexp(form):
    x = (np.random.default_rng(1).standard_normal((8, 9)) * 4).astype(np.float16)
    if form == "parameter":
        text = "func.func @main(%x: tensor<8x9xf16>) -> tensor<8x9xf16> {" + BODY
        inputs = [x]
    else:
        const = dense_text(x, BY_NAME["f16"])
        text = f"func.func @main() -> tensor<8x9xf16> {{\n  %x = stablehlo.constant {const}" + BODY
        inputs = []
    for _ in range(2):  # the second run reuses the cached plan
        (got,) = hlorun.run(text, inputs)
    got = np.asarray(got)
    assert got.shape == (8, 9) and got.dtype == np.float16
    want = np.logaddexp.accumulate(x.astype(np.float64), axis=1).astype(np.float16)
    assert ulp_distance(got, want).max() <= 2
