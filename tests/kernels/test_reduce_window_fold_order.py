"""reduce_window with a reducer that is not a monoid (the spec leaves its schedule to
the implementation, openxla/stablehlo#1818): hlorun folds each window in order from its
init value, ``acc = body(acc, element)`` over the positions row-major, as XLA's
HloEvaluator does, for windows of any size, through the static op and through jax's
``stablehlo.dynamic_reduce_window`` custom call (jax/_src/lax/windowed_reductions.py:
operands, init values, window_dimensions, window_strides, base_dilations,
window_dilations, padding; the reducer a function of (accumulators..., elements...)).

The case is jax's variadic one (an add over f32 with init 1, a subtract over i32 with
init 2), with windows large enough for the pair-tree path.  Expected values: a NumPy
loop doing exactly that fold over the padded operand."""

from __future__ import annotations

import numpy as np
import pytest

import hlorun

REDUCER = """func.func private @reducer(%a0: tensor<f32>, %a1: tensor<i32>, %b0: tensor<f32>, %b1: tensor<i32>) -> (tensor<f32>, tensor<i32>) {
  %s = stablehlo.add %a0, %b0 : tensor<f32>
  %d = stablehlo.subtract %a1, %b1 : tensor<i32>
  return %s, %d : tensor<f32>, tensor<i32>
}
"""


def dynamic_program(n, wd, pad):
    t = f"tensor<{n}x4xf32>, tensor<{n}x4xi32>"
    dense = [list(p) for p in pad]
    return (
        REDUCER
        + f"""func.func @main(%x: tensor<{n}x4xf32>, %y: tensor<{n}x4xi32>) -> (tensor<?x?xf32>, tensor<?x?xi32>) {{
  %i0 = stablehlo.constant dense<1.0> : tensor<f32>
  %i1 = stablehlo.constant dense<2> : tensor<i32>
  %wd = stablehlo.constant dense<{list(wd)}> : tensor<2xi32>
  %one = stablehlo.constant dense<1> : tensor<2xi32>
  %pd = stablehlo.constant dense<{dense}> : tensor<2x2xi32>
  %r:2 = stablehlo.custom_call @stablehlo.dynamic_reduce_window(%x, %y, %i0, %i1, %wd, %one, %one, %one, %pd) {{called_computations = [@reducer]}} : ({t}, tensor<f32>, tensor<i32>, tensor<2xi32>, tensor<2xi32>, tensor<2xi32>, tensor<2xi32>, tensor<2x2xi32>) -> (tensor<?x?xf32>, tensor<?x?xi32>)
  return %r#0, %r#1 : tensor<?x?xf32>, tensor<?x?xi32>
}}
"""
    )


def static_program(n, wd, pad):
    oh, ow = n + sum(pad[0]) - wd[0] + 1, 4 + sum(pad[1]) - wd[1] + 1
    outs = f"tensor<{oh}x{ow}xf32>, tensor<{oh}x{ow}xi32>"
    return f"""func.func @main(%x: tensor<{n}x4xf32>, %y: tensor<{n}x4xi32>) -> ({outs}) {{
  %i0 = stablehlo.constant dense<1.0> : tensor<f32>
  %i1 = stablehlo.constant dense<2> : tensor<i32>
  %r:2 = "stablehlo.reduce_window"(%x, %y, %i0, %i1) ({{
  ^bb0(%a0: tensor<f32>, %a1: tensor<i32>, %b0: tensor<f32>, %b1: tensor<i32>):
    %s = stablehlo.add %a0, %b0 : tensor<f32>
    %d = stablehlo.subtract %a1, %b1 : tensor<i32>
    stablehlo.return %s, %d : tensor<f32>, tensor<i32>
  }}) {{window_dimensions = array<i64: {wd[0]}, {wd[1]}>, padding = dense<{[list(p) for p in pad]}> : tensor<2x2xi64>}} : (tensor<{n}x4xf32>, tensor<{n}x4xi32>, tensor<f32>, tensor<i32>) -> ({outs})
  return %r#0, %r#1 : {outs}
}}
"""


def in_order_fold(a, init, wd, pad, f):
    """Pad with the init value, then per window acc = f(acc, e) row-major from init."""
    p = np.pad(a, pad, constant_values=init)
    out = np.empty((p.shape[0] - wd[0] + 1, p.shape[1] - wd[1] + 1), a.dtype)
    for i, j in np.ndindex(*out.shape):
        acc = init
        for e in p[i : i + wd[0], j : j + wd[1]].reshape(-1):
            acc = f(acc, e)
        out[i, j] = acc
    return out


CASES = [
    (3, (2, 3), ((0, 0), (0, 0))),  # jax's test: window (2, b), VALID
    (40, (40, 1), ((39, 0), (0, 0))),  # a cumulative window: 40 positions
    (40, (40, 4), ((39, 0), (3, 0))),
    (6, (3, 3), ((1, 1), (1, 1))),
]


@pytest.mark.parametrize("form", ["dynamic", "static"])
@pytest.mark.parametrize("n, wd, pad", CASES)
def test_non_commutative_reducer_folds_in_order(form, n, wd, pad):
    x = np.arange(n * 4, dtype=np.float32).reshape(n, 4)
    y = 100 + np.arange(n * 4, dtype=np.int32).reshape(n, 4)
    prog = dynamic_program if form == "dynamic" else static_program
    gx, gy = hlorun.run(prog(n, wd, pad), [x, y])
    ey = in_order_fold(y, np.int32(2), wd, pad, lambda a, b: a - b)
    ex = in_order_fold(x, np.float32(1), wd, pad, lambda a, b: a + b)
    np.testing.assert_array_equal(gy, ey)
    np.testing.assert_allclose(gx, ex, rtol=1e-6)
