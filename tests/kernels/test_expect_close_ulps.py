"""check.expect_close's ULP bounds are unsigned 64-bit (CheckOps.td: UI64Attr), and its
ULP difference is upstream's (ULPDifference, stablehlo/tests/CheckOps.cpp): 0 when the
values are bitwise equal or both NaN; between finite values, the distance of their
magnitudes' bit patterns (their sum across a sign change); otherwise 2^64 - 1.
Expected values below are worked from those definitions by hand."""

from __future__ import annotations

import numpy as np
import pytest

import hlorun
from hlorun import HloError
from hlorun.engine.element import ulp_difference
from hlorun.parser import parse_module, print_module

U64_MAX = 18446744073709551615


def _bits(x: int) -> str:
    return f"0x{x:08X}"


def _program(actual: list[int], expected: list[int], bounds: str) -> str:
    n = len(actual)
    a = ", ".join(map(_bits, actual))
    e = ", ".join(map(_bits, expected))
    return (
        "func.func @main() {\n"
        f"  %a = stablehlo.constant dense<[{a}]> : tensor<{n}xf32>\n"
        f"  %e = stablehlo.constant dense<[{e}]> : tensor<{n}xf32>\n"
        f"  check.expect_close %a, %e, {bounds} : tensor<{n}xf32>, tensor<{n}xf32>\n"
        "  func.return\n}\n"
    )


ONE, TWO, INF, NAN, NNAN = 0x3F800000, 0x40000000, 0x7F800000, 0x7FC00000, 0xFFC00001


def test_the_largest_bound_parses_prints_and_passes_non_finite_pairs():
    """18446744073709551615 is the bound's maximum (it was read as -1): every pair is
    within it, a finite and an infinite value included (their difference: 2^64 - 1)."""
    text = _program(
        [ONE, INF, 0x00000001], [TWO, ONE, 0x80000001], f"max_ulp_difference = {U64_MAX}"
    )
    m = parse_module(text)
    printed = print_module(m)
    assert f"max_ulp_difference = {U64_MAX}" in printed and parse_module(printed) == m
    assert hlorun.run(m, []) == []


def test_min_bound_two_to_the_64_minus_1_selects_non_finite_pairs_only():
    ok = _program([INF], [ONE], f"max_ulp_difference = {U64_MAX}, min_ulp_difference = {U64_MAX}")
    assert hlorun.run(ok, []) == []
    bad = _program([TWO], [ONE], f"max_ulp_difference = {U64_MAX}, min_ulp_difference = {U64_MAX}")
    with pytest.raises(HloError, match="ULP"):
        hlorun.run(bad, [])


@pytest.mark.parametrize("bound", ["18446744073709551616", "-1"])
def test_out_of_range_bounds_are_refused(bound):
    with pytest.raises(HloError, match="ui64"):
        parse_module(_program([ONE], [ONE], f"max_ulp_difference = {bound}"))


def test_ulp_difference_cases():
    f32 = np.float32
    a = np.array([ONE, 0x80000000, NAN, INF, INF, NAN, 0x00000001, ONE], np.uint32).view(f32)
    b = np.array(
        [0x3F800001, 0x00000000, NNAN, INF, 0xFF800000, ONE, 0x80000002, TWO], np.uint32
    ).view(f32)
    want = [1, 0, 0, 0, U64_MAX, U64_MAX, 3, 0x40000000 - 0x3F800000]
    got = ulp_difference(a, b)
    assert got.dtype == np.uint64 and got.tolist() == want


def test_f64_extremes_do_not_overflow():
    tiny, big = np.float64(5e-324), np.finfo(np.float64).max
    got = ulp_difference(np.array([-tiny, -big]), np.array([big, big]))
    assert got.tolist() == [1 + 0x7FEFFFFFFFFFFFFF, 2 * 0x7FEFFFFFFFFFFFFF]
