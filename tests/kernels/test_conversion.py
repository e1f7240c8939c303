"""convert, bitcast_convert and reduce_precision kernels: the spec's examples and exact
references (Python ints, fractions.Fraction) written here."""

from __future__ import annotations

import math
import sys
from fractions import Fraction
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).parent))  # the shared references live beside us
from test_elementwise import (  # noqa: E402
    ALL_INTS,
    C128,
    F32,
    F64,
    I1,
    I64,
    NARROW_FLOATS,
    T,
    arr,
    bits_equal,
    finite_values,
    fmt,
    int_range,
    round_fraction,
    same_float,
    sample_ints,
    wrap,
)

import hlorun.engine.kernels  # noqa: F401  (fills the op table)
from hlorun import shape_inference  # noqa: F401
from hlorun.parser.ir import ComplexType, FloatType, IntegerType, numpy_dtype
from hlorun.shape_inference.optable import OP_TABLE

C64 = ComplexType(F32)


def convert(x, shape_or_elem, e=None):
    x = np.asarray(x)
    if e is None:
        e = shape_or_elem
    out = OP_TABLE["stablehlo.convert"].kernel(x, result_type=T(x.shape, e))
    assert out.dtype == numpy_dtype(e) and out.shape == x.shape
    return out


def bitcast(x, shape, e):
    out = OP_TABLE["stablehlo.bitcast_convert"].kernel(np.asarray(x), result_type=T(shape, e))
    assert out.dtype == numpy_dtype(e) and out.shape == tuple(shape), (out.dtype, out.shape)
    return out


def reduce_precision(x, exponent_bits, mantissa_bits, e=F64):
    x = np.asarray(x)
    return OP_TABLE["stablehlo.reduce_precision"].kernel(
        x, exponent_bits=exponent_bits, mantissa_bits=mantissa_bits, result_type=T(x.shape, e)
    )


# ---------------------------------------------------------------------------------------
# convert
# ---------------------------------------------------------------------------------------


def test_convert_spec_example_and_conformance_cases():
    got = convert(np.array([-1, 0, 1], np.int64), C128)
    assert got.tolist() == [-1 + 0j, 0j, 1 + 0j]
    assert convert(np.array([True, False]), I64).tolist() == [1, 0]
    assert convert(np.array([True, False]), C128).tolist() == [1 + 0j, 0j]
    assert convert(np.array([-1, 0, 1], np.int64), I1).tolist() == [True, False, True]
    assert convert(np.array([-1.0, 0.0, 1.0]), I1).tolist() == [True, False, True]
    assert convert(np.array([-1 + 0j, 1j, 1 + 0j]), I1).tolist() == [True, False, True]
    assert convert(np.array([-1 + 0j, 1j, 1 + 0j]), I64).tolist() == [-1, 0, 1]
    assert convert(np.array([-1 + 0j, 1j, 1 + 0j]), F64).tolist() == [-1.0, 0.0, 1.0]
    assert convert(np.array([0, 1], ml_dtypes.int4), IntegerType(64, "unsigned")).tolist() == [0, 1]
    assert convert(np.array([-1, 0, 1], ml_dtypes.int4), C128).tolist() == [-1 + 0j, 0j, 1 + 0j]
    assert convert(np.array([np.nan, -0.0]), I1).tolist() == [True, False]


@pytest.mark.parametrize("src", ALL_INTS, ids=str)
@pytest.mark.parametrize("dst", ALL_INTS, ids=str)
def test_convert_int_to_int_wraps(src, dst):
    xs = sample_ints(src, 30)
    got = convert(arr(xs, src), dst)
    assert [int(v) for v in got.astype(np.uint64 if dst.is_unsigned else np.int64)] == [
        wrap(x, dst) for x in xs
    ]


@pytest.mark.parametrize("dst", ALL_INTS, ids=str)
def test_convert_float_to_int_truncates_and_saturates(dst):
    lo, hi = int_range(dst)
    xs = [
        2.9,
        -2.9,
        0.5,
        -0.5,
        1e30,
        -1e30,
        math.inf,
        -math.inf,
        math.nan,
        float(hi) + 0.5,
        float(lo) - 0.5,
        3.0,
        -3.0,
    ]
    got = convert(np.array(xs), dst)

    def ref(x):
        if math.isnan(x):
            return 0
        t = math.trunc(x) if math.isfinite(x) else (hi if x > 0 else lo)
        return min(max(t, lo), hi)

    assert [int(v) for v in got.astype(np.uint64 if dst.is_unsigned else np.int64)] == [
        ref(x) for x in xs
    ]
    got = convert(np.array([2.75, -2.75], np.float32).astype(ml_dtypes.bfloat16), dst)
    assert [int(v) for v in got.astype(np.int64)] == [ref(2.75), ref(-2.75)]


@pytest.mark.parametrize("name", NARROW_FLOATS + ["f32"])
def test_convert_f64_to_every_float_rounds_once(name):
    e = FloatType(name)
    dt = numpy_dtype(e)
    info = ml_dtypes.finfo(dt)
    rng = np.random.default_rng(11)
    if dt.itemsize == 1:
        grid = finite_values(dt).astype(np.float64)
    else:
        grid = (
            (rng.standard_normal(300) * 10.0 ** rng.integers(-3, 3, 300))
            .astype(dt)
            .astype(np.float64)
        )
    grid = np.unique(grid)
    # midpoints of neighbours (ties), and values a hair on either side of them
    mids = (grid[:-1] + grid[1:]) / 2
    tiny = np.abs(mids) * 2.0**-40 + 1e-300
    xs = np.concatenate(
        [
            grid,
            mids,
            mids + tiny,
            mids - tiny,
            [
                float(info.max) * 1.1,
                -float(info.max) * 1.1,
                1e300,
                -1e300,
                math.inf,
                -math.inf,
                math.nan,
            ],
        ]
    )
    got = convert(xs, e).astype(np.float64)
    negzero = fmt(dt)[5]
    for x, g in zip(xs, got):
        if math.isnan(x) or math.isinf(x):
            want = (
                round_fraction(Fraction(1e308) * (1 if x > 0 else -1), dt)
                if math.isinf(x)
                else math.nan
            )
            if math.isinf(x) and fmt(dt)[3]:
                want = x
            if math.isnan(x) and not fmt(dt)[4]:
                continue  # f4/f6 have no NaN: what NaN becomes is unspecified
        else:
            want = float(x) if x == 0 else round_fraction(Fraction(x), dt)
        assert same_float(float(g), want, negzero=negzero), (name, x, g, want)


def test_convert_to_tf32_rounds_to_nearest_even():
    tf32 = FloatType("tf32")
    xs = np.array(
        [1 + 2.0**-11, 1 + 3 * 2.0**-11, 1 + 2.0**-11 + 2.0**-40, 3.4e38, -1e-40, math.nan]
    )
    got = convert(xs, tf32)
    assert got.dtype == np.float32
    for x, g in zip(xs, got.astype(np.float64)):
        want = math.nan if math.isnan(x) else round_fraction(Fraction(float(x)), None, tf32=True)
        assert same_float(float(g), want), (x, g, want)
    got = convert(np.array([2**24 + 2**13 + 1], np.int64), tf32)
    assert float(got[0]) == 2**24 + 2**14


@pytest.mark.parametrize(
    "name", ["bf16", "f16", "f8E4M3FN", "f8E5M2", "f6E2M3FN", "f4E2M1FN", "f32"]
)
@pytest.mark.parametrize(
    "src", [IntegerType(64), IntegerType(32), IntegerType(64, "unsigned"), IntegerType(4)], ids=str
)
def test_convert_int_to_float_rounds_once(name, src):
    e = FloatType(name)
    dt = numpy_dtype(e)
    lo, hi = int_range(src)
    xs = [
        v
        for v in [
            0,
            1,
            -1,
            3,
            -7,
            17,
            2**40 + 2**32 + 1,
            -(2**40 + 2**32 + 1),
            2**40 + 2**32,
            2**24 + 1,
            2**53 + 1,
            lo,
            hi,
            255,
            449,
            465,
            1000,
        ]
        if lo <= v <= hi
    ]
    got = convert(arr(xs, src), e).astype(np.float64)
    for x, g in zip(xs, got):
        want = round_fraction(Fraction(x), dt)
        assert same_float(float(g), want, negzero=False), (name, src, x, g, want)


def test_convert_complex():
    z = np.array([1.5 + 2.5j, complex(math.inf, math.nan)], np.complex128)
    got = convert(z, C64)
    assert (
        got.dtype == np.complex64
        and got[0] == 1.5 + 2.5j
        and math.isinf(got[1].real)
        and math.isnan(got[1].imag)
    )
    got = convert(np.array([1 + 2j], np.complex64), FloatType("bf16"))
    assert float(got[0]) == 1.0
    got = convert(np.array([0.1]), C64)
    assert got[0].real == np.float32(0.1) and got[0].imag == 0


# ---------------------------------------------------------------------------------------
# bitcast_convert
# ---------------------------------------------------------------------------------------


def test_bitcast_spec_example_f64_to_4xf16():
    x = np.array(0x0123456789ABCDEF, np.uint64).view(np.float64).reshape(())
    got = bitcast(x, (4,), FloatType("f16"))
    assert got.view(np.uint16).tolist() == [0xCDEF, 0x89AB, 0x4567, 0x0123]
    back = bitcast(got, (), F64)
    assert bits_equal(back, x)


BITS_0123 = [(0x0123456789ABCDEF >> i) & 1 == 1 for i in range(64)]


def test_bitcast_bool_and_i64_both_ways():
    got = bitcast(np.array(BITS_0123), (), I64)
    assert int(got) == 0x0123456789ABCDEF
    got = bitcast(np.array(0x0123456789ABCDEF, np.int64), (64,), I1)
    assert got.tolist() == BITS_0123
    got = bitcast(np.array(0x0123456789ABCDEF, np.int64), (), F64)
    assert got.view(np.int64) == 0x0123456789ABCDEF


def test_bitcast_widths_little_endian():
    x = np.array([[1, 2, 3, 4], [-1, 0, 0, -128]], np.int8)
    got = bitcast(x, (2,), IntegerType(32))
    assert got.tolist() == [0x04030201, wrap(0x800000FF, IntegerType(32))]
    assert bits_equal(bitcast(got, (2, 4), IntegerType(8)), x)
    # sub-byte: two i4 per i8, the first element in the low nibble
    n = np.array([[1, -1], [7, -8]], ml_dtypes.int4)
    got = bitcast(n, (2,), IntegerType(8, "unsigned"))
    assert got.tolist() == [0xF1, 0x87]
    assert bits_equal(bitcast(got, (2, 2), IntegerType(4)), n)
    # eight booleans <-> ui8; four ui2 <-> i8
    b = np.array([True, False, False, False, False, False, False, True])
    assert int(bitcast(b, (), IntegerType(8, "unsigned"))) == 0x81
    u2 = np.array([3, 0, 1, 2], ml_dtypes.uint2)
    assert int(bitcast(u2, (), IntegerType(8))) == wrap(0b10010011, IntegerType(8))
    # complex<f64> -> 2 x complex<f32> (bitcast_convert.mlir)
    z = np.zeros((), np.complex128)
    z.real = np.array(0x0123456789ABCDEF, np.uint64).view(np.float64)
    z.imag = np.array(0x0000000011111111, np.uint64).view(np.float64)
    got = bitcast(z, (2,), C64)
    words = got.view(np.uint32).tolist()
    assert words == [0x89ABCDEF, 0x01234567, 0x11111111, 0x00000000]
    # f4E2M1FN pairs <-> i8, and f8 <-> ui8 keep the bits
    f4 = np.array([6.0, -0.5], ml_dtypes.float4_e2m1fn)
    assert int(bitcast(f4, (), IntegerType(8, "unsigned"))) == 0x7 | (0x9 << 4)
    e4 = np.array([np.nan, -2.0], np.float32).astype(ml_dtypes.float8_e4m3fn)
    assert bitcast(e4, (2,), IntegerType(8, "unsigned")).tolist() == e4.view(np.uint8).tolist()


# ---------------------------------------------------------------------------------------
# reduce_precision
# ---------------------------------------------------------------------------------------


def _bits64(values):
    return np.array(values, np.uint64).view(np.float64)


def test_reduce_precision_spec_example_and_conformance():
    x = _bits64(
        [
            0x7FF0000000000000,
            0x7FFFFFFFFFFFFFFF,
            0x0000000000000001,
            0,
            0x40EFFE0000000000,
            0x40EFFE0000000000,
        ]
    )
    x[4] = 65519.0
    x[5] = 65520.0
    got = reduce_precision(x, 5, 10)
    want = _bits64([0x7FF0000000000000, 0x7FFFFFFFFFFFFFFF, 0, 0, 0, 0x7FF0000000000000])
    want[4] = 65504.0
    assert bits_equal(got, want)
    assert reduce_precision(np.array([65505.0]), 5, 10)[0] == 65504.0
    got = reduce_precision(_bits64([0x7FFFFFFFFFFFFFFF]).reshape(()), 5, 0)
    assert bits_equal(got, _bits64([0x7FF0000000000000]).reshape(()))


def _ref_reduce(x: float, ebits: int, mbits: int) -> float:
    """Round to mbits mantissa bits (ties to even) in x's binade; then overflow to inf
    above the reduced format's max exponent, flush to zero below its min normal."""
    if x == 0 or not math.isfinite(x):
        return x
    a = Fraction(abs(x))
    e = math.frexp(abs(x))[1] - 1
    q = Fraction(2) ** (e - mbits)
    r = round(a / q) * q
    if r >= Fraction(2) ** (e + 1):
        e += 1
    bias = (1 << (ebits - 1)) - 1
    if e > bias:
        return math.copysign(math.inf, x)
    if e < 1 - bias:
        return math.copysign(0.0, x)
    return math.copysign(float(r), x)


@pytest.mark.parametrize(
    "ebits,mbits", [(5, 10), (8, 7), (4, 3), (5, 2), (2, 1), (11, 52), (8, 23), (3, 0)]
)
def test_reduce_precision_against_exact_reference(ebits, mbits):
    rng = np.random.default_rng(ebits * 100 + mbits)
    x = rng.standard_normal(300) * 2.0 ** rng.integers(-20, 20, 300)
    x = np.concatenate([x, [0.0, -0.0, 1.5, 2.5, -3.5, 1 + 2.0**-11, 65504.0, 65520.0]])
    got = reduce_precision(x.astype(np.float32), ebits, mbits, F32).astype(np.float64)
    for v, g in zip(x.astype(np.float32).astype(np.float64), got):
        want = _ref_reduce(float(v), min(ebits, 8), min(mbits, 23))
        assert same_float(float(g), want), (v, g, want, ebits, mbits)


def test_reduce_precision_narrow_types_keep_nan():
    for name in ("bf16", "f16"):
        dt = numpy_dtype(FloatType(name))
        x = np.array([np.nan, 1.0 + 2.0**-7, -3.0], np.float32).astype(dt)
        got = reduce_precision(x, 5, 2, FloatType(name)).astype(np.float64)
        assert math.isnan(got[0]) and got[1] == 1.0 and got[2] == -3.0


ALL_FLOATS = [FloatType(n) for n in NARROW_FLOATS + ["f8E8M0FNU", "tf32", "f32", "f64"]]
EVERY_TYPE = [I1] + ALL_INTS + ALL_FLOATS + [C64, C128]


def _representable(v: int, e) -> bool:
    if isinstance(e, IntegerType):
        if e.is_bool:
            return v in (0, 1)
        lo, hi = int_range(e)
        return lo <= v <= hi
    if isinstance(e, FloatType) and e.name == "f8E8M0FNU":
        return v in (1, 2)  # powers of two only: no zero, no sign
    if (
        isinstance(e, FloatType)
        and "FNUZ" in e.name
        or (isinstance(e, FloatType) and e.name.startswith(("f4", "f6")))
    ):
        return -1 <= v <= 2
    return True


@pytest.mark.parametrize("src", EVERY_TYPE, ids=str)
@pytest.mark.parametrize("dst", EVERY_TYPE, ids=str)
def test_convert_every_pair_of_element_types(src, dst):
    """Small integers that both types represent exactly convert exactly."""
    vals = [v for v in (0, 1, 2, -1) if _representable(v, src) and _representable(v, dst)]
    if not vals:
        return
    x = np.array(vals).astype(numpy_dtype(src))
    got = convert(x, dst)
    if isinstance(dst, IntegerType) and dst.is_bool:
        assert got.tolist() == [v != 0 for v in vals]
    elif isinstance(dst, ComplexType):
        assert got.tolist() == [complex(v, 0) for v in vals]
    else:
        assert got.astype(np.float64).tolist() == [float(v) for v in vals]
