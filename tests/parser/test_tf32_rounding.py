"""tf32 rounding has one home (parser/tf32.py): its float64 path (literals, rounded
once) agrees with its float32 bit path wherever the input is a float32, and both agree
with exact rational rounding to 11 significant bits."""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from hlorun.engine.kernels import _bits
from hlorun.parser import tf32


def _exact(v: float) -> float:
    """Nearest value with 11 significant bits (ties to even) at f32's exponents,
    by exact rational arithmetic; spacing 2**-136 below 2**-126."""
    if v == 0 or not np.isfinite(v):
        return v
    f = Fraction(v)
    e = abs(f).numerator.bit_length() - abs(f).denominator.bit_length()
    if Fraction(2) ** e > abs(f):
        e -= 1
    ulp = Fraction(2) ** (max(e, -126) - 10)
    q, r = divmod(f / ulp, 1)
    if r > Fraction(1, 2) or (r == Fraction(1, 2) and q % 2 == 1):
        q += 1
    out = q * ulp
    return float(out) if abs(out) < Fraction(2) ** 128 else float(np.copysign(np.inf, v))


def test_one_home() -> None:
    assert _bits.round_tf32 is tf32.round_tf32


def test_float32_inputs_both_paths_and_exact() -> None:
    rng = np.random.default_rng(7)
    bits = rng.integers(0, 2**32, size=4000, dtype=np.uint64).astype(np.uint32)
    x32 = bits.view(np.float32)
    finite = np.isfinite(x32)
    a = tf32.round_tf32(x32)
    with np.errstate(invalid="ignore"):  # signalling NaNs among the random bits
        b = tf32.round_tf32(x32.astype(np.float64))
    np.testing.assert_array_equal(a[finite].view(np.uint32), b[finite].view(np.uint32))
    for v, got in zip(x32[finite][:500], a[finite][:500]):
        assert float(got) == _exact(float(v)), v


def test_nan_stays_a_nan_with_its_payload() -> None:
    x = np.array([0x7F800001, 0xFFC00000, 0x7FA00000], dtype=np.uint32).view(np.float32)
    r = tf32.round_tf32(x).view(np.uint32)
    # 0x7F800001's payload lives in the dropped bits: quieted, never an infinity
    assert [hex(v) for v in r] == ["0x7fc00000", "0xffc00000", "0x7fa00000"]


def test_float64_rounds_once() -> None:
    # half-way between two tf32 values in float64, but not after rounding to float32
    v = 1 + 2.0**-11 + 2.0**-40
    assert float(tf32.round_tf32(np.array([v]))[0]) == 1 + 2.0**-10


def test_shapes_are_kept() -> None:
    for x in (np.float32(1.5), np.array(1.5, np.float64), np.ones((2, 3), np.float32).T):
        assert tf32.round_tf32(x).shape == np.shape(x)
