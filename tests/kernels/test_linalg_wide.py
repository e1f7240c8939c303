"""f32 convolution and triangular_solve with long contractions stay within 3 ULP of a
float64 reference rounded once to f32 (issue 18 item 3): they compute in float64 and
round once (engine/kernels/convolution.py ``CONV_F64_K``; triangular_solve always).  The
references here are independent: a per-window float64 einsum, and scipy's float64
triangular solve."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.linalg

import hlorun
from hlorun.engine.element import ulp_distance


def _conv_reference(x: np.ndarray, k: np.ndarray) -> np.ndarray:
    n, h, w, _ = x.shape
    kh, kw, _, o = k.shape
    out = np.zeros((n, h - kh + 1, w - kw + 1, o))
    xd, kd = x.astype(np.float64), k.astype(np.float64)
    for i in range(h - kh + 1):
        for j in range(w - kw + 1):
            out[:, i, j, :] = np.einsum("nhwc,hwco->no", xd[:, i : i + kh, j : j + kw, :], kd)
    return out


@pytest.mark.parametrize(
    "channels, size",
    [(256, 5), (512, 5), (128, 30)],  # 30x30: the shifted gemms (conv_shifted), in float64
)
def test_f32_convolution_long_contraction(channels, size):
    rng = np.random.default_rng(channels)
    x = rng.standard_normal((1, size, size, channels)).astype(np.float32)
    k = rng.standard_normal((3, 3, channels, 4)).astype(np.float32)
    xt, kt, ot = (
        f"tensor<1x{size}x{size}x{channels}xf32>",
        f"tensor<3x3x{channels}x4xf32>",
        f"tensor<1x{size - 2}x{size - 2}x4xf32>",
    )
    text = (
        f"func.func @main(%x: {xt}, %k: {kt}) -> {ot} {{\n"
        f"  %r = stablehlo.convolution(%x, %k) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->"
        f"[b, 0, 1, f], window = {{}} {{batch_group_count = 1 : i64, feature_group_count = 1 : i64}}"
        f" : ({xt}, {kt}) -> {ot}\n  func.return %r : {ot}\n}}\n"
    )
    (got,) = hlorun.run(text, [x, k])
    want = _conv_reference(x, k).astype(np.float32)
    assert ulp_distance(np.asarray(got), want).max() <= 3


@pytest.mark.parametrize("left, lower", [(True, True), (False, False)])
def test_f32_triangular_solve_long(left, lower):
    n = 160
    rng = np.random.default_rng(n)
    a = rng.standard_normal((n, n)) + 12 * np.eye(n)
    a = (np.tril(a) if lower else np.triu(a)).astype(np.float32)
    b = rng.standard_normal((n, 3) if left else (3, n)).astype(np.float32)
    at, bt = f"tensor<{n}x{n}xf32>", f"tensor<{b.shape[0]}x{b.shape[1]}xf32>"
    text = (
        f"func.func @main(%a: {at}, %b: {bt}) -> {bt} {{\n"
        f'  %r = "stablehlo.triangular_solve"(%a, %b) {{left_side = {str(left).lower()}, '
        f"lower = {str(lower).lower()}, unit_diagonal = false, "
        f"transpose_a = #stablehlo<transpose NO_TRANSPOSE>}} : ({at}, {bt}) -> {bt}\n"
        f"  func.return %r : {bt}\n}}\n"
    )
    (got,) = hlorun.run(text, [a, b])
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    if left:
        want = scipy.linalg.solve_triangular(a64, b64, lower=lower)
    else:  # x a = b  <=>  a^T x^T = b^T
        want = scipy.linalg.solve_triangular(a64.T, b64.T, lower=not lower).T
    assert ulp_distance(np.asarray(got), want.astype(np.float32)).max() <= 3


@pytest.mark.parametrize("op", ["dot_general", "convolution"])
def test_tf32_results_are_tf32_values(op):
    """tf32 results (NaNs included) have zero low 13 bits of their float32 storage: the
    one tf32 rounding (engine/kernels/_bits.round_tf32), no hand-written copy letting
    a NaN such as 0x7F800001 through."""
    bits = np.array([0x7F802000, 0xFF802000, 0x7FC00000, 0x3F802000, 0x3F804000, 0x00002000])
    a = bits.astype(np.uint32).view(np.float32).reshape(1, 6, 1)  # (batch, width, feature)
    b = np.full((1, 1, 1), 1.5, np.float32)
    if op == "dot_general":
        text = (
            "func.func @main(%a: tensor<1x6x1xtf32>, %b: tensor<1x1x1xtf32>) -> tensor<1x6x1xtf32> {\n"
            '  %r = "stablehlo.dot_general"(%a, %b) {dot_dimension_numbers = #stablehlo.dot<'
            "lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], "
            "lhs_contracting_dimensions = [2], rhs_contracting_dimensions = [1]>} : "
            "(tensor<1x6x1xtf32>, tensor<1x1x1xtf32>) -> tensor<1x6x1xtf32>\n"
            "  func.return %r : tensor<1x6x1xtf32>\n}\n"
        )
    else:
        text = (
            "func.func @main(%a: tensor<1x6x1xtf32>, %b: tensor<1x1x1xtf32>) -> tensor<1x6x1xtf32> {\n"
            "  %r = stablehlo.convolution(%a, %b) dim_numbers = [b, 0, f]x[0, i, o]->[b, 0, f], "
            "window = {} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : "
            "(tensor<1x6x1xtf32>, tensor<1x1x1xtf32>) -> tensor<1x6x1xtf32>\n"
            "  func.return %r : tensor<1x6x1xtf32>\n}\n"
        )
    (got,) = hlorun.run(text, [a, b])
    out = np.asarray(got).view(np.uint32).ravel()
    assert not np.any(out & np.uint32(0x1FFF)), [hex(v) for v in out]
    assert np.isnan(np.asarray(got).ravel()[:3]).all()
