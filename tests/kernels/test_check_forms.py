"""The custom-call check forms of JAX's conformance programs (issue 18 item 4), as
StableHLO's interpreter fallback runs them (stablehlo/tools/StablehloTranslateMain.cpp):
``@check.eq`` -> tensor<i1> (integers exact, floats within 1e-4, fails the run when
false), ``@check.expect_eq`` (exact), ``@check.expect_almost_eq`` (1e-3),
``@check.expect_close`` (0..3 ULP); quantized operands compare dequantized.

Expected outcomes come from the tolerances' definitions: neighbours are built with
``np.nextafter`` (k ULPs away), differences from exact decimal offsets.
"""

from __future__ import annotations

import numpy as np
import pytest

import hlorun
from hlorun import HloError


def _f32(x: float) -> str:
    return f"0x{np.float32(x).view(np.uint32):08X}"


def _program(target: str, ty: str, actual: str, expected: str, *, returns: bool) -> str:
    call = f"stablehlo.custom_call @{target}(%a, %e)"
    if returns:
        return (
            f"func.func @main() -> tensor<i1> {{\n"
            f"  %a = stablehlo.constant {actual} : {ty}\n"
            f"  %e = stablehlo.constant {expected} : {ty}\n"
            f"  %ok = {call} : ({ty}, {ty}) -> tensor<i1>\n"
            f"  func.return %ok : tensor<i1>\n}}\n"
        )
    return (
        f"func.func @main() {{\n"
        f"  %a = stablehlo.constant {actual} : {ty}\n"
        f"  %e = stablehlo.constant {expected} : {ty}\n"
        f"  {call} {{has_side_effect = true}} : ({ty}, {ty}) -> ()\n"
        f"  func.return\n}}\n"
    )


def _passes(text: str) -> bool:
    try:
        hlorun.run(text, [])
    except HloError:
        return False
    return True


def test_check_eq_returns_true_and_fails_the_run_when_false():
    ty = "tensor<3xi32>"
    (ok,) = hlorun.run(
        _program("check.eq", ty, "dense<[1, 2, 3]>", "dense<[1, 2, 3]>", returns=True), []
    )
    assert ok.dtype == np.bool_ and ok.shape == () and bool(ok)
    with pytest.raises(HloError, match="check.eq"):
        hlorun.run(
            _program("check.eq", ty, "dense<[1, 2, 3]>", "dense<[1, 2, 4]>", returns=True), []
        )


@pytest.mark.parametrize(
    "delta, ok",
    [(0.0, True), (0.5e-4, True), (0.9e-4, True), (1.5e-4, False), (1e-3, False)],
)
def test_check_eq_floats_within_1e_4(delta, ok):
    a, e = 1.0, 1.0 + delta  # |a - e| vs the 1e-4 tolerance (exact in f64, rounded to f32)
    text = _program(
        "check.eq", "tensor<f32>", f"dense<{_f32(a)}>", f"dense<{_f32(e)}>", returns=True
    )
    assert _passes(text) is ok


@pytest.mark.parametrize("delta, ok", [(0.5e-3, True), (0.9e-3, True), (1.5e-3, False)])
def test_expect_almost_eq_1e_3(delta, ok):
    text = _program(
        "check.expect_almost_eq",
        "tensor<f32>",
        f"dense<{_f32(2.0)}>",
        f"dense<{_f32(2.0 + delta)}>",
        returns=False,
    )
    assert _passes(text) is ok


def test_expect_eq_is_exact():
    ty = "tensor<2xf32>"
    near = np.nextafter(np.float32(1), np.float32(2))
    assert _passes(
        _program("check.expect_eq", ty, "dense<[1.0, 2.0]>", "dense<[1.0, 2.0]>", returns=False)
    )
    assert not _passes(
        _program(
            "check.expect_eq", ty, "dense<[1.0, 2.0]>", f"dense<[{_f32(near)}, 2.0]>", returns=False
        )
    )


@pytest.mark.parametrize("ulps, ok", [(0, True), (1, True), (3, True), (4, False), (40, False)])
@pytest.mark.parametrize("start", [1.0, -0.0, 1e-40, 3.4e38])
def test_expect_close_0_to_3_ulp(ulps, ok, start):
    a = np.float32(start)
    e = a
    for _ in range(ulps):
        e = np.nextafter(e, np.float32(-np.inf) if start > 1e38 else np.float32(np.inf))
    text = _program(
        "check.expect_close", "tensor<f32>", f"dense<{_f32(a)}>", f"dense<{_f32(e)}>", returns=False
    )
    assert _passes(text) is ok


def test_expect_close_complex_takes_the_worse_part():
    e_re = np.nextafter(np.float32(1), np.float32(2))
    e_im = np.float32(2)
    for _ in range(4):
        e_im = np.nextafter(e_im, np.float32(3))
    ty = "tensor<complex<f32>>"
    text = _program(
        "check.expect_close",
        ty,
        "dense<(1.0, 2.0)>",
        f"dense<({_f32(e_re)}, {_f32(e_im)})>",
        returns=False,
    )
    assert not _passes(text)  # 1 ULP real, 4 ULP imaginary


_Q1 = "tensor<2x!quant.uniform<i8:f32, 5.000000e-01>>"
_Q2 = "tensor<2x!quant.uniform<i8:f32, 2.500000e-01>>"


def _quantized_program(target: str, returns: bool, expected_storage: str) -> str:
    call = f"stablehlo.custom_call @{target}(%a, %e)"
    if returns:
        head, lhs, attrs, sig = "func.func @main() -> tensor<i1> {", "%ok = ", "", "tensor<i1>"
        ret = "func.return %ok : tensor<i1>"
    else:
        head, lhs, attrs, sig = "func.func @main() {", "", " {has_side_effect = true}", "()"
        ret = "func.return"
    return (
        f"{head}\n  %a = stablehlo.constant dense<[4, -6]> : {_Q1}\n"
        f"  %e = stablehlo.constant dense<{expected_storage}> : {_Q2}\n"
        f"  {lhs}{call}{attrs} : ({_Q1}, {_Q2}) -> {sig}\n  {ret}\n}}\n"
    )


@pytest.mark.parametrize(
    "target, returns",
    [
        ("check.eq", True),
        ("check.expect_eq", False),
        ("check.expect_almost_eq", False),
        ("check.expect_close", False),
    ],
)
def test_quantized_operands_compare_dequantized(target, returns):
    """storage [4, -6] at scale 0.5 and [8, -12] at scale 0.25 are both [2.0, -3.0]."""
    assert _passes(_quantized_program(target, returns, "[8, -12]"))
    assert not _passes(_quantized_program(target, returns, "[8, -11]"))  # -2.75 vs -3.0
