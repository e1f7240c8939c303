"""Tests of the reference itself: its format decoding and rounding agree with the
formats' known facts and, as an independent cross-check, with ml_dtypes / NumPy on
every bit pattern of the narrow formats; its arithmetic agrees with Python's floats
(IEEE binary64, correctly rounded + - * / sqrt) and its transcendental functions with
the math module within 1 ULP."""

from __future__ import annotations

import math
import struct
from fractions import Fraction

import ml_dtypes
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from . import reference as R
from .elements import BY_NAME, FLOATS, from_elems, to_elems
from .formats import FORMATS, decode, num, round_to_format
from .harness import PROFILE

# The formats' definitions, as stated by their documents (max finite, smallest subnormal).
KNOWN = {
    "f4E2M1FN": (6, Fraction(1, 2)),
    "f6E2M3FN": (Fraction(15, 2), Fraction(1, 8)),
    "f6E3M2FN": (28, Fraction(1, 16)),
    "f8E3M4": (Fraction(31, 2), Fraction(1, 64)),
    "f8E4M3": (240, Fraction(1, 2**9)),
    "f8E4M3FN": (448, Fraction(1, 2**9)),
    "f8E4M3FNUZ": (240, Fraction(1, 2**10)),
    "f8E4M3B11FNUZ": (30, Fraction(1, 2**13)),
    "f8E5M2": (57344, Fraction(1, 2**16)),
    "f8E5M2FNUZ": (57344, Fraction(1, 2**17)),
    "f8E8M0FNU": (2**127, Fraction(1, 2**127)),
    "bf16": (Fraction(2**8 - 1, 2**7) * 2**127, Fraction(1, 2**133)),
    "f16": (65504, Fraction(1, 2**24)),
    "f32": (Fraction(2**24 - 1, 2**23) * 2**127, Fraction(1, 2**149)),
    "f64": (Fraction(2**53 - 1, 2**52) * 2**1023, Fraction(1, 2**1074)),
}


@pytest.mark.parametrize("name", list(KNOWN))
def test_format_extremes(name):
    fmt = FORMATS[name]
    assert fmt.max_finite == KNOWN[name][0]
    assert fmt.min_positive == KNOWN[name][1]


NARROW = [t for t in FLOATS if t.fmt.nbits <= 16 and t.name != "tf32"]


@pytest.mark.parametrize("t", NARROW, ids=str)
def test_decode_matches_ml_dtypes_on_every_pattern(t):
    fmt = t.fmt
    bits = list(range(1 << fmt.nbits))
    arr = from_elems(bits, (len(bits),), t)
    with np.errstate(invalid="ignore", over="ignore"):
        as64 = arr.astype(np.float64)
    for b, f in zip(bits, as64):
        v = decode(b, fmt)
        if v.is_nan:
            assert math.isnan(f), (t, hex(b))
        elif v.is_inf:
            assert f == (-math.inf if v.neg else math.inf), (t, hex(b))
        else:
            assert Fraction(float(f)) == v.q, (t, hex(b), f, v)
            assert math.copysign(1, f) == (-1 if v.negative else 1), (t, hex(b))


@pytest.mark.parametrize("t", NARROW, ids=str)
@PROFILE
@given(st.floats(allow_nan=False, width=32))
def test_rounding_matches_ml_dtypes_from_float32(t, f):
    """ml_dtypes rounds a float32 once (to nearest even), as round_to_format does;
    NaN / overflow / no-zero policies are compared where they are defined alike."""
    fmt = t.fmt
    x = np.array([f], np.float32)
    with np.errstate(over="ignore"):
        got = to_elems(x.astype(t.dtype), t)[0]
    want = round_to_format(
        num(Fraction(f), neg_zero=math.copysign(1, f) < 0) if math.isfinite(f) else R.inf(f < 0),
        fmt,
    )
    if want is None:
        return
    wv, gv = decode(want, fmt), decode(got, fmt)
    assert (wv.is_nan and gv.is_nan) or want == got, (t, f, hex(want), hex(got))


def _f64(bits: int) -> float:
    return struct.unpack("<d", struct.pack("<Q", bits))[0]


def _bits64(f: float) -> int:
    return struct.unpack("<Q", struct.pack("<d", f))[0]


F64 = BY_NAME["f64"]


@pytest.mark.parametrize("op", ["add", "subtract", "multiply", "divide", "sqrt", "remainder"])
@PROFILE
@given(a=st.floats(), b=st.floats())
def test_exact_ops_match_python_floats(op, a, b):
    """Python's float arithmetic is IEEE binary64 (correctly rounded)."""
    with np.errstate(all="ignore"):
        x, y = np.float64(a), np.float64(b)
        want = {
            "add": x + y,
            "subtract": x - y,
            "multiply": x * y,
            "divide": x / y if y != 0 or math.isnan(x) else np.float64(np.divide(x, y)),
            "sqrt": np.sqrt(x),
            "remainder": np.fmod(x, y),
        }[op]
    args = (_bits64(a),) if op == "sqrt" else (_bits64(a), _bits64(b))
    w = R.float_op(op, F64, *args)
    if math.isnan(want):
        assert w.nan_any
    else:
        assert w.value == _bits64(float(want)), (a, b, w)


@pytest.mark.parametrize(
    "op,fn",
    [
        ("exponential", math.exp),
        ("log", math.log),
        ("sine", math.sin),
        ("cosine", math.cos),
        ("tanh", math.tanh),
        ("log_plus_one", math.log1p),
        ("exponential_minus_one", math.expm1),
    ],
)
@PROFILE
@given(st.floats(-700, 700, allow_nan=False))
def test_transcendental_matches_math_module(op, fn, a):
    try:
        want = fn(a)
    except (ValueError, OverflowError):
        return
    w = R.float_op(op, F64, _bits64(a))
    if math.isnan(want):
        assert w.nan_any
        return
    got = _f64(w.value)
    assert got == want or abs(got - want) <= 2 * abs(math.ulp(want)), (a, got, want)


def test_rounding_ties_and_overflow():
    f8 = FORMATS["f8E4M3FN"]
    assert decode(round_to_format(num(464), f8), f8).q == 448  # tie -> even (448)
    assert decode(round_to_format(num(465), f8), f8).is_nan  # beyond: NaN (no inf)
    f4 = FORMATS["f4E2M1FN"]
    assert decode(round_to_format(num(100), f4), f4).q == 6  # saturates (no inf, no NaN)
    assert decode(round_to_format(num(Fraction(5, 4)), f4), f4).q == 1  # tie -> even
    assert decode(round_to_format(num(Fraction(-1, 4)), f4), f4).negative  # -0
    e8 = FORMATS["f8E8M0FNU"]
    assert decode(round_to_format(num(3), e8), e8).q == 4  # one-digit significand: ties up
    assert decode(round_to_format(num(Fraction(1, 2**200)), e8), e8).q == Fraction(1, 2**127)
    assert decode(round_to_format(num(0), e8), e8).is_nan
    uz = FORMATS["f8E4M3FNUZ"]
    assert round_to_format(num(0, neg_zero=True), uz) == 0  # no -0
    h = FORMATS["f16"]
    assert decode(round_to_format(num(65520), h), h).is_inf  # 65504 + half ulp: overflow


def test_reference_sqrt_is_correctly_rounded_near_ties():
    f16 = FORMATS["f16"]
    # (1 + 2**-11)**2 = 1 + 2**-10 + 2**-22: its square root is exactly a tie for f16
    q = (1 + Fraction(1, 2**11)) ** 2
    got = decode(round_to_format(num(R.sqrt_fraction(q, f16)), f16), f16).q
    assert got == 1  # ties to even: 1.0, not 1 + 2**-10
    q2 = q + Fraction(1, 2**40)  # just above the tie: rounds up
    got2 = decode(round_to_format(num(R.sqrt_fraction(q2, f16)), f16), f16).q
    assert got2 == 1 + Fraction(1, 2**10)


def test_ml_dtypes_knows_every_format():
    for name in FORMATS:
        if name in ("tf32",):
            continue
        dt = BY_NAME[name].dtype
        assert ml_dtypes.finfo(dt).nmant == FORMATS[name].mbits
