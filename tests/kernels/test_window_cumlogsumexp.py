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

# logaddexp(%arg1, %arg2) as jax.export writes it, its result %10
LOGADDEXP_OPS = """    %1 = stablehlo.maximum %arg1, %arg2 : tensor<f16>
    %2 = stablehlo.subtract %arg1, %arg2 : tensor<f16>
    %3 = stablehlo.compare NE, %2, %2, FLOAT : (tensor<f16>, tensor<f16>) -> tensor<i1>
    %4 = stablehlo.add %arg1, %arg2 : tensor<f16>
    %5 = stablehlo.abs %2 : tensor<f16>
    %6 = stablehlo.negate %5 : tensor<f16>
    %7 = stablehlo.exponential %6 : tensor<f16>
    %8 = stablehlo.log_plus_one %7 : tensor<f16>
    %9 = stablehlo.add %1, %8 : tensor<f16>
    %10 = stablehlo.select %3, %4, %9 : tensor<i1>, tensor<f16>
"""

BODY = (
    """
  %cst = stablehlo.constant dense<0xFC00> : tensor<f16>
  %0 = "stablehlo.reduce_window"(%x, %cst) <{padding = dense<[[0, 0], [8, 0]]> : tensor<2x2xi64>, window_dimensions = array<i64: 1, 9>}> ({
  ^bb0(%arg1: tensor<f16>, %arg2: tensor<f16>):
"""
    + LOGADDEXP_OPS
    + """    stablehlo.return %10 : tensor<f16>
  }) : (tensor<8x9xf16>, tensor<f16>) -> tensor<8x9xf16>
  return %0 : tensor<8x9xf16>
}
"""
)


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


LOGADDEXP = (
    "func.func private @logaddexp(%arg1: tensor<f16>, %arg2: tensor<f16>) -> tensor<f16> {\n"
    + LOGADDEXP_OPS
    + "  return %10 : tensor<f16>\n}\n"
)


@pytest.mark.parametrize(("n", "m"), [(6, 5), (1, 3), (9, 1)])
def test_f16_cumlogsumexp_body_calls_a_private_function(n, m):
    """A cumulative logsumexp along dimension 0 as JAX writes it: a window of n x 1,
    padding [[n-1, 0], [0, 0]], the combiner a ``func.call`` to a private logaddexp.  The
    callee runs on the whole tensors the kernel passes the body (it once got them with
    the per-element plan: "kernel produced array of shape (n, m) ... tensor<f16>")."""
    t = f"tensor<{n}x{m}xf16>"
    text = LOGADDEXP + (
        f"func.func @main(%x: {t}) -> {t} {{\n"
        "  %cst = stablehlo.constant dense<0xFC00> : tensor<f16>\n"
        '  %0 = "stablehlo.reduce_window"(%x, %cst) <{padding = '
        f"dense<[[{n - 1}, 0], [0, 0]]> : tensor<2x2xi64>, window_dimensions = "
        f"array<i64: {n}, 1>}}> ({{\n"
        "  ^bb0(%arg1: tensor<f16>, %arg2: tensor<f16>):\n"
        "    %r = func.call @logaddexp(%arg1, %arg2) : (tensor<f16>, tensor<f16>) -> tensor<f16>\n"
        "    stablehlo.return %r : tensor<f16>\n"
        f"  }}) : ({t}, tensor<f16>) -> {t}\n"
        f"  return %0 : {t}\n}}\n"
    )
    x = (np.random.default_rng(n * 7 + m).standard_normal((n, m)) * 4).astype(np.float16)
    for _ in range(2):  # the second run reuses the cached plans
        (got,) = hlorun.run(text, [x])
    got = np.asarray(got)
    assert got.shape == (n, m) and got.dtype == np.float16
    want = np.logaddexp.accumulate(x.astype(np.float64), axis=0).astype(np.float16)
    assert ulp_distance(got, want).max() <= 2
    # the same function called outside any region still runs per its declared types
    direct = LOGADDEXP + (
        "func.func @main(%a: tensor<f16>, %b: tensor<f16>) -> tensor<f16> {\n"
        "  %r = func.call @logaddexp(%a, %b) : (tensor<f16>, tensor<f16>) -> tensor<f16>\n"
        "  return %r : tensor<f16>\n}\n"
    )
    (one,) = hlorun.run(direct, [x[0, 0], x[-1, -1]])
    assert np.asarray(one).shape == ()


def test_rank1_init_values_are_refused_at_run_time():
    """Upstream's verifier accepts a reduce_window whose init values (and body) have
    rank > 0; running one is refused, citing spec reduce_window (I2)."""
    text = (
        "func.func @main(%a: tensor<4x2xf32>, %i: tensor<2xf32>) -> tensor<3x2xf32> {\n"
        '  %0 = "stablehlo.reduce_window"(%a, %i) ({\n'
        "    ^bb0(%x: tensor<2xf32>, %y: tensor<2xf32>):\n"
        "      %s = stablehlo.add %x, %y : tensor<2xf32>\n"
        "      stablehlo.return %s : tensor<2xf32>\n"
        "    }) {window_dimensions = array<i64: 2, 1>} : "
        "(tensor<4x2xf32>, tensor<2xf32>) -> tensor<3x2xf32>\n"
        "  return %0 : tensor<3x2xf32>\n}\n"
    )
    from hlorun.parser import parse_module
    from hlorun.shape_inference import verify_module

    verify_module(parse_module(text))  # valid, as upstream's verifier says
    with pytest.raises(hlorun.UnsupportedError, match=r"reduce_window_i2|\(I2\)"):
        hlorun.run(text, [np.ones((4, 2), np.float32), np.zeros(2, np.float32)])
