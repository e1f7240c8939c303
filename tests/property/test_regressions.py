"""Regression tests for the kernel bugs the property tests found (one test per bug;
expected values from the formats' definitions and exact arithmetic)."""

from __future__ import annotations

import cmath

import ml_dtypes
import numpy as np

from .elements import BOOL, BY_NAME, from_elems, to_elems
from .harness import run_kernel

E8M0 = BY_NAME["f8E8M0FNU"]


def _run(op, t, values, rt=None, shape=None, **attrs):
    arrays = [from_elems(v, (len(v),), t) for v in values]
    rt = rt or t
    return to_elems(run_kernel(op, arrays, [t] * len(arrays), rt, (len(values[0]),), **attrs), rt)


def test_abs_and_negate_keep_nan_payloads_of_narrow_formats():
    """IEEE abs / negate change the sign bit only; the float32 round trip quieted
    signalling NaNs (f8E3M4 0x71 became 0x78)."""
    cases = {
        "f8E3M4": 0x71,
        "f8E4M3": 0x79,
        "f8E5M2": 0x7D,
        "bf16": 0x7F81,
        "f16": 0x7C01,
        "f8E4M3FN": 0xFF,
    }
    for name, nan in cases.items():
        t = BY_NAME[name]
        sign = t.fmt.sign_bit
        assert _run("abs", t, [[nan | sign]]) == [nan & ~sign], name
        assert _run("negate", t, [[nan]]) == [nan ^ sign], name


def test_e8m0_total_order_compare():
    """f8E8M0FNU has no sign bit: 2.0 (0x80) < 4.0 (0x81) under TOTALORDER too.  The
    sign test ``finfo.min >= 0`` compared in f8E8M0FNU, where 0 is NaN, so it read
    encodings >= 0x80 as negative."""
    out = _run(
        "compare",
        E8M0,
        [[0x80, 0x7F, 0x81], [0x81, 0x80, 0x7F]],
        rt=BOOL,
        comparison_direction="LT",
        compare_type="TOTALORDER",
    )
    assert out == [True, True, False]


def test_e8m0_products_below_float32_range():
    """2**-127 * 2**-127 = 2**-254: its nearest f8E8M0FNU value is 2**-127 (no zero);
    computing in float32 underflowed to 0 and gave NaN."""
    assert _run("multiply", E8M0, [[0x00], [0x00]]) == [0x00]
    assert _run("divide", E8M0, [[0x00], [0xFE]]) == [0x00]  # 2**-127 / 2**127


def test_e8m0_underflowing_power():
    """(2**-127)**(2**127) underflows float64 but is positive: 2**-127, not NaN."""
    assert _run("power", E8M0, [[0x00], [0xFE]]) == [0x00]
    assert _run("exponential", E8M0, [[0xFE]]) == [0xFF]  # exp(2**127) overflows: NaN
    assert _run("logistic", E8M0, [[0xFE]]) == [0x7F]  # logistic(2**127) = 1


def test_convert_float32_subnormal_to_e8m0():
    """2**-127 + 2**-149 (float32 0x00400001) is nearest to 2**-127 (0x00); ml_dtypes
    gave 2**-126."""
    f32 = BY_NAME["f32"]
    out = run_kernel(
        "convert", [from_elems([0x00400001, 0x00600000, 0x00200000], (3,), f32)], [f32], E8M0, (3,)
    )
    # 1.5 * 2**-127 is a tie: the one-digit significand rounds up; 2**-128 -> 2**-127
    assert to_elems(out, E8M0) == [0x00, 0x01, 0x00]


def test_convert_to_the_same_type_keeps_nan_payloads():
    for name, nan in {"f8E3M4": 0x71, "bf16": 0x7F81, "tf32": (0xFF << 10) | 1}.items():
        t = BY_NAME[name]
        out = run_kernel("convert", [from_elems([nan], (1,), t)], [t], t, (1,))
        assert to_elems(out, t) == [nan], name


def test_tf32_rounding_of_nan_with_low_payload():
    """float32 NaN 0x7F800001 has its payload in bits tf32 drops: the result must be a
    tf32 NaN (low 13 bits zero), not +inf or a non-tf32 pattern."""
    f32, tf32 = BY_NAME["f32"], BY_NAME["tf32"]
    out = run_kernel("convert", [from_elems([0x7F800001], (1,), f32)], [f32], tf32, (1,))
    raw = int(out.view(np.uint32)[0])
    assert raw & 0x1FFF == 0 and np.isnan(out[0])


def test_bitcast_between_complex_and_sub_byte_types():
    """complex <-> i1/i4/f4 crashed (KeyError, 0-d view error)."""
    c64 = BY_NAME["complex<f32>"]
    x = np.array(complex(1.0, -2.0), dtype=np.complex64)  # re 0x3F800000, im 0xC0000000
    bits = run_kernel("bitcast_convert", [x], [c64], BOOL, (64,))
    word = sum(int(b) << i for i, b in enumerate(bits))
    assert word == 0xC0000000_3F800000
    back = run_kernel("bitcast_convert", [bits], [BOOL], c64, ())
    assert back == x
    i4 = BY_NAME["i4"]
    nib = run_kernel("bitcast_convert", [x], [c64], i4, (16,))
    assert [int(v) & 0xF for v in nib] == [
        (0xC0000000_3F800000 >> (4 * i)) & 0xF for i in range(16)
    ]


def test_reduce_precision_of_non_ieee_formats():
    """FNUZ formats have bias 8 (not 2**(4-1) - 1): 0.5 in f8E4M3FNUZ fits e4m3's
    normal range (min 2**-6) and is kept; the bit trick's biases flushed values.  And
    f4E2M1FN's 6.0 rounded to 0 mantissa bits ties up to 8 -> saturates to 6."""
    uz = BY_NAME["f8E4M3FNUZ"]
    half = 0x38  # 0.5 = 2**-1: biased exponent 7 (bias 8), mantissa 0
    assert ml_dtypes.float8_e4m3fnuz(0.5).view(np.uint8) == half
    assert _run("reduce_precision", uz, [[half]], exponent_bits=4, mantissa_bits=3) == [half]
    assert _run("reduce_precision", uz, [[half]], exponent_bits=3, mantissa_bits=3) == [half]
    # 2**-3 is below e3's normal range (min 2**-2): flushed to +0
    eighth = 0x28
    assert _run("reduce_precision", uz, [[eighth]], exponent_bits=3, mantissa_bits=3) == [0]


def test_reduce_precision_zero_mantissa_bits_ties_to_even_significand():
    """roundToIntegralTiesToEven of the significand: 3.0 = 1.5 * 2 -> 2 * 2 = 4.0,
    then beyond e2's range (max 2**1 * 1 ... exponent <= 1) -> +inf.  The bit trick
    looked at the exponent's last bit and gave 2.0."""
    t = BY_NAME["f8E5M2"]
    assert _run("reduce_precision", t, [[0x42]], exponent_bits=2, mantissa_bits=0) == [0x7C]
    assert _run("reduce_precision", t, [[0x42]], exponent_bits=5, mantissa_bits=0) == [0x44]


def test_complex_cbrt_of_tiny_values():
    """|z| via hypot: (1e-150 i)**(1/3) is 1e-50 * e**(i pi/6), not 0."""
    c = BY_NAME["complex<f64>"]
    z = np.array([1e-150j])
    out = run_kernel("cbrt", [z], [c], c, (1,))[0]
    want = 1e-50 * cmath.exp(1j * cmath.pi / 6)
    assert abs(out - want) <= 1e-15 * abs(want)


def test_complex_expm1_and_log1p_of_small_values():
    """exp(z) - 1 and log(1 + z) cancelled to 0 for small z."""
    c = BY_NAME["complex<f64>"]
    z = np.array([1e-20 + 2e-20j, 2.0**-1030 + 0j])
    e = run_kernel("exponential_minus_one", [z], [c], c, (2,))
    l = run_kernel("log_plus_one", [z], [c], c, (2,))
    for got in (e, l):
        # to first order both are z itself (the next terms are ~1e-40 relative)
        assert abs(got[0] - z[0]) <= 1e-15 * abs(z[0])
        assert got[1] == z[1]


def test_complex_cbrt_of_subnormal_values():
    """hypot of subnormal parts is a subnormal with few significant bits: scale first."""
    c = BY_NAME["complex<f64>"]
    x = 2.0**-1041  # z = x (1 + i): cbrt(z) = 2**-347 * 2**(1/6) * e**(i pi/12)
    out = run_kernel("cbrt", [np.array([complex(x, x)])], [c], c, (1,))[0]
    want = 2.0**-347 * 2.0 ** (1 / 6) * cmath.exp(1j * cmath.pi / 12)
    assert abs(out - want) <= 1e-15 * abs(want)


def test_complex_atan2_of_tiny_and_huge_values():
    """x*x + y*y underflowed (0/0 = NaN) or overflowed: scale first.  On real
    operands complex atan2 is the real atan2."""
    c = BY_NAME["complex<f64>"]
    y = np.array([0j, 1e-200 + 0j, 1e200 + 0j])
    x = np.array([1e-180 + 0j, 1e-200 + 0j, -1e200 + 0j])
    out = run_kernel("atan2", [y, x], [c, c], c, (3,))
    want = [0.0, cmath.pi / 4, 3 * cmath.pi / 4]
    assert np.all(np.abs(out - want) <= 1e-15), out
