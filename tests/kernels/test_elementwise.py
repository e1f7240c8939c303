"""Elementwise kernels: the spec's examples, and edge cases checked against exact
references written here (Python ints with explicit wraparound, fractions.Fraction for
float rounding, the math module) -- never against our own output."""

from __future__ import annotations

import math
from fractions import Fraction

import ml_dtypes
import numpy as np
import pytest

import hlorun.engine.kernels  # noqa: F401  (fills the op table)
from hlorun import shape_inference  # noqa: F401
from hlorun.parser.errors import UnsupportedError
from hlorun.parser.ir import (
    ComplexType,
    FloatType,
    IntegerType,
    QuantizedType,
    TensorType,
    numpy_dtype,
)
from hlorun.shape_inference.optable import OP_TABLE

I1 = IntegerType(1)
I32 = IntegerType(32)
I64 = IntegerType(64)
F32 = FloatType("f32")
F64 = FloatType("f64")
C64 = ComplexType(F32)
C128 = ComplexType(F64)

SIGNED = [IntegerType(w) for w in (2, 4, 8, 16, 32, 64)]
UNSIGNED = [IntegerType(w, "unsigned") for w in (2, 4, 8, 16, 32, 64)]
ALL_INTS = SIGNED + UNSIGNED
NARROW_FLOATS = [
    "f4E2M1FN",
    "f6E2M3FN",
    "f6E3M2FN",
    "f8E3M4",
    "f8E4M3",
    "f8E4M3FN",
    "f8E4M3FNUZ",
    "f8E4M3B11FNUZ",
    "f8E5M2",
    "f8E5M2FNUZ",
    "bf16",
    "f16",
]


def T(shape, e):
    return TensorType(tuple(shape), e)


def run(op, *args, result=None, **attrs):
    """Call the kernel of ``op`` on arrays; result type = first operand's unless given."""
    arrays = [np.asarray(a) for a in args]
    if result is None:
        result = T(arrays[0].shape, _etype_of(arrays[0]))
    elif not isinstance(result, TensorType):
        result = T(np.broadcast(*arrays).shape, result)
    out = OP_TABLE[f"stablehlo.{op}"].kernel(*arrays, result_type=result, **attrs)
    assert isinstance(out, np.ndarray)
    assert out.dtype == numpy_dtype(result), (out.dtype, result)
    return out


_DTYPE_TO_TYPE = {}
for _t in ALL_INTS + [I1, C64, C128] + [FloatType(n) for n in NARROW_FLOATS + ["f32", "f64"]]:
    _DTYPE_TO_TYPE.setdefault(numpy_dtype(_t), _t)


def _etype_of(a):
    return _DTYPE_TO_TYPE[a.dtype]


def arr(values, e):
    return (
        np.array(values, dtype=numpy_dtype(e))
        if not isinstance(values, np.ndarray)
        else values.astype(numpy_dtype(e))
    )


def int_range(e):
    if e.is_unsigned:
        return 0, (1 << e.width) - 1
    return -(1 << (e.width - 1)), (1 << (e.width - 1)) - 1


def wrap(v: int, e) -> int:
    """Two's-complement wraparound of a Python int to integer type ``e``."""
    m = v & ((1 << e.width) - 1)
    if not e.is_unsigned and m >= 1 << (e.width - 1):
        m -= 1 << e.width
    return m


def sample_ints(e, n=64, seed=0):
    """Edge values and random values of integer type ``e`` (as Python ints)."""
    lo, hi = int_range(e)
    rng = np.random.default_rng(seed + e.width)
    edge = [lo, hi, 0, 1, lo + 1, hi - 1] + ([-1, -2] if lo < 0 else [2])
    rand = [
        int(v)
        for v in rng.integers(
            lo, hi, size=n, endpoint=True, dtype=np.int64 if lo < 0 or hi < 2**63 else np.uint64
        )
    ]
    return [v for v in edge if lo <= v <= hi] + rand


def bits_equal(a, b) -> bool:
    a, b = np.asarray(a), np.asarray(b)
    return a.shape == b.shape and a.dtype == b.dtype and a.tobytes() == b.tobytes()


def fmt(dt) -> tuple[int, int, float, bool, bool, bool]:
    """(mantissa bits, min normal exponent, max finite, has inf, has nan, has -0)."""
    dt = np.dtype(dt)
    info = ml_dtypes.finfo(dt)
    name = dt.name
    has_inf = not ("fn" in name or name.startswith("float8_e8m0"))
    has_nan = not name.startswith(("float4", "float6"))
    has_negzero = "fnuz" not in name and "e8m0" not in name
    return int(info.nmant), int(info.minexp), float(info.max), has_inf, has_nan, has_negzero


def round_fraction(x: Fraction, dt, *, tf32: bool = False) -> float:
    """The value of ``x`` rounded to nearest-even in format ``dt``, as a Python float
    (inf/nan per the format's overflow rule: inf, NaN, or saturation for f4/f6)."""
    if tf32:
        nmant, minexp, maxf, has_inf, has_nan = (
            10,
            -126,
            float((2 - Fraction(1, 1024)) * 2**127),
            True,
            True,
        )
    else:
        nmant, minexp, maxf, has_inf, has_nan, _ = fmt(dt)
    if x == 0:
        return 0.0
    sign = -1 if x < 0 else 1
    a = abs(x)
    e = a.numerator.bit_length() - a.denominator.bit_length()
    if Fraction(2) ** e > a:
        e -= 1
    e = max(e, minexp)
    quantum = Fraction(2) ** (e - nmant)
    n = round(a / quantum)  # Fraction.__round__: ties to even
    v = n * quantum
    if v > Fraction(maxf):
        if has_inf:
            return sign * math.inf
        if has_nan:
            return math.nan
        return sign * maxf
    return sign * float(v)


def same_float(got: float, want: float, *, negzero: bool = True) -> bool:
    """Equal as values, NaN equal to NaN, and the same sign for zeros (if the format
    has a negative zero)."""
    if math.isnan(want):
        return math.isnan(got)
    if got != want:
        return False
    return not (negzero and want == 0 and math.copysign(1, got) != math.copysign(1, want))


def finite_values(dt) -> np.ndarray:
    """Every finite value of an 8-bit-or-narrower ml_dtypes float format."""
    dt = np.dtype(dt)
    bits = 4 if "float4" in dt.name else 6 if "float6" in dt.name else 8
    v = np.arange(1 << bits, dtype=np.uint8).view(dt)
    return v[np.isfinite(v.astype(np.float64))]


# ---------------------------------------------------------------------------------------
# The spec's examples
# ---------------------------------------------------------------------------------------

SPEC_EXACT = [
    ("abs", [[-2, 0, 2]], I32, [2, 0, 2]),
    ("add", [[[1, 2], [3, 4]], [[5, 6], [7, 8]]], I32, [[6, 8], [10, 12]]),
    ("and", [[[1, 2], [3, 4]], [[5, 6], [7, 8]]], I32, [[1, 2], [3, 0]]),
    ("ceil", [[-0.8166, -0.2530, 0.2530, 0.8166, 2.0]], F32, [-0.0, -0.0, 1.0, 1.0, 2.0]),
    ("cbrt", [[0.0, 1.0, 8.0, 27.0]], F64, [0.0, 1.0, 2.0, 3.0]),
    ("count_leading_zeros", [[[0, 1], [128, -1]]], I64, [[64, 63], [56, 0]]),
    ("floor", [[-0.8166, -0.2530, 0.2530, 0.8166, 2.0]], F32, [-1.0, -1.0, 0.0, 0.0, 2.0]),
    ("maximum", [[[1, 2], [7, 8]], [[5, 6], [3, 4]]], I32, [[5, 6], [7, 8]]),
    ("minimum", [[[1, 2], [7, 8]], [[5, 6], [3, 4]]], I32, [[1, 2], [3, 4]]),
    ("multiply", [[[1, 2], [3, 4]], [[5, 6], [7, 8]]], I32, [[5, 12], [21, 32]]),
    ("negate", [[0, -2]], I32, [0, 2]),
    ("not", [[[1, 2], [3, 4]]], I32, [[-2, -3], [-4, -5]]),
    ("not", [[True, False]], I1, [False, True]),
    ("or", [[[1, 2], [3, 4]], [[5, 6], [7, 8]]], I32, [[5, 6], [7, 12]]),
    (
        "or",
        [[[False, False], [True, True]], [[False, True], [False, True]]],
        I1,
        [[False, True], [True, True]],
    ),
    ("popcnt", [[0, 1, 2, 127]], I64, [0, 1, 1, 7]),
    ("remainder", [[17, -17, 17, -17], [3, 3, -3, -3]], I64, [2, -2, 2, -2]),
    ("round_nearest_afz", [[-2.5, 0.4, 0.5, 0.6, 2.5]], F64, [-3.0, 0.0, 1.0, 1.0, 3.0]),
    ("round_nearest_even", [[-2.5, 0.4, 0.5, 0.6, 2.5]], F64, [-2.0, 0.0, 0.0, 1.0, 2.0]),
    ("shift_left", [[-1, 0, 1], [1, 2, 3]], I64, [-2, 0, 8]),
    ("shift_right_arithmetic", [[-1, 0, 8], [1, 2, 3]], I64, [-1, 0, 1]),
    ("shift_right_logical", [[-1, 0, 8], [1, 2, 3]], I64, [9223372036854775807, 0, 1]),
    ("sign", [[math.nan, -1.0, -0.0, 0.0, 1.0]], F64, [math.nan, -1.0, -0.0, 0.0, 1.0]),
    ("sqrt", [[[0.0, 1.0], [4.0, 9.0]]], F32, [[0.0, 1.0], [2.0, 3.0]]),
    ("subtract", [[[6, 8], [10, 12]], [[5, 6], [7, 8]]], F32, [[1, 2], [3, 4]]),
    ("xor", [[[1, 2], [3, 4]], [[5, 6], [7, 8]]], I32, [[4, 4], [4, 12]]),
    (
        "xor",
        [[[False, False], [True, True]], [[False, True], [False, True]]],
        I1,
        [[False, True], [True, False]],
    ),
    ("divide", [[17, -17, 17, -17], [3, 3, -3, -3]], I64, [5, -5, -5, 5]),
    ("power", [[-1, -1, -3, 1, -3, 0], [1, 0, -3, -3, 3, 2]], I64, [-1, 1, 0, 1, -27, 0]),
    ("power", [[0, 0, 1, 1, 5], [0, 1, 0, 2, 5]], IntegerType(64, "unsigned"), [1, 0, 1, 1, 3125]),
]


@pytest.mark.parametrize(
    "op,args,e,want", SPEC_EXACT, ids=[f"{c[0]}-{i}" for i, c in enumerate(SPEC_EXACT)]
)
def test_spec_examples_exact(op, args, e, want):
    got = run(op, *(arr(a, e) for a in args))
    assert bits_equal(got, arr(want, e)), (got, want)


SPEC_APPROX = [
    ("atan2", [[0.0, 1.0, -1.0], [0.0, 0.0, 0.0]], F64, [0.0, math.pi / 2, -math.pi / 2]),
    ("cosine", [[[0.0, 1.57079632], [3.14159265, 4.71238898]]], F32, [[1.0, 0.0], [-1.0, 0.0]]),
    # The spec's text shows 5.66666651 (= 17/3); 17.1/3 is 5.7, as divide.mlir says.
    ("divide", [[17.1, -17.1, 17.1, -17.1], [3.0, 3.0, -3.0, -3.0]], F32, [5.7, -5.7, -5.7, 5.7]),
    ("exponential", [[[0.0, 1.0], [2.0, 3.0]]], F64, [[1.0, math.e], [math.exp(2), math.exp(3)]]),
    ("exponential_minus_one", [[0.0, 1.0]], F64, [0.0, math.e - 1]),
    ("log", [[[1.0, 2.0], [3.0, 4.0]]], F64, [[0.0, math.log(2)], [math.log(3), math.log(4)]]),
    (
        "log_plus_one",
        [[0.0, -0.999, 7.0, 6.38905621, 15.0]],
        F64,
        [0.0, -6.90776825, 2.07944155, 2.0, 2.77258873],
    ),
    ("logistic", [[[0.0, 1.0], [2.0, 3.0]]], F64, [[0.5, 0.73105858], [0.88079708, 0.95257413]]),
    ("rsqrt", [[[1.0, 4.0], [9.0, 25.0]]], F32, [[1.0, 0.5], [0.33333343, 0.2]]),
    ("sine", [[[0.0, 1.57079632], [3.14159265, 4.71238898]]], F32, [[0.0, 1.0], [0.0, -1.0]]),
    # The spec's text shows tan values of other inputs; these are tan.mlir's.
    (
        "tan",
        [[[0.0, 1.57079632], [3.14159265, 4.71238898]]],
        F64,
        [[0.0, 147169271.76124874], [-3.5897930298416118e-9, 2599497068.2695704]],
    ),
    ("tanh", [[-1.0, 0.0, 1.0]], F32, [-0.76159416, 0.0, 0.76159416]),
    (
        "power",
        [[-2.0, -0.0, -36.0, 5.0, 3.0, 10000.0], [2.0, 2.0, 1.1, 2.0, -1.0, 10.0]],
        F64,
        [4.0, 0.0, math.nan, 25.0, 1 / 3, 1e40],
    ),
]


@pytest.mark.parametrize(
    "op,args,e,want", SPEC_APPROX, ids=[f"{c[0]}-{i}" for i, c in enumerate(SPEC_APPROX)]
)
def test_spec_examples_approx(op, args, e, want):
    got = run(op, *(arr(a, e) for a in args)).astype(np.float64)
    np.testing.assert_allclose(got, np.array(want, dtype=np.float64), rtol=1e-5, atol=1e-6)


def test_spec_examples_special_ops():
    assert bits_equal(
        run("clamp", arr([5, 10, 15], I32), arr([3, 13, 23], I32), arr([10, 15, 20], I32)),
        arr([5, 13, 20], I32),
    )
    got = run(
        "compare",
        arr([1.0, 3.0], F32),
        arr([1.1, 2.9], F32),
        result=I1,
        comparison_direction="LT",
        compare_type="FLOAT",
    )
    assert got.tolist() == [True, False]
    got = run("complex", arr([1.0, 3.0], F64), arr([2.0, 4.0], F64), result=C128)
    assert got.tolist() == [1 + 2j, 3 + 4j]
    z = arr([1 + 2j, 3 + 4j], C64)
    assert run("real", z, result=F32).tolist() == [1.0, 3.0]
    assert run("imag", z, result=F32).tolist() == [2.0, 4.0]
    x = np.array([-np.inf, np.inf, np.nan, -10.0, -0.0, 0.0, 10.0])
    assert run("is_finite", x, result=I1).tolist() == [False, False, False, True, True, True, True]
    got = run(
        "select",
        np.array([[False, True], [True, False]]),
        arr([[1, 2], [3, 4]], I32),
        arr([[5, 6], [7, 8]], I32),
        result=I32,
    )
    assert got.tolist() == [[5, 2], [3, 8]]
    neg = run("negate", arr([2.5 + 0j], C64))
    assert neg[0].real == -2.5 and math.copysign(1, neg[0].imag) == -1


# ---------------------------------------------------------------------------------------
# Integer semantics on every width
# ---------------------------------------------------------------------------------------


def trunc_div(a: int, b: int) -> int:
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


def ref_divide(a, b, e):
    """Truncating division; x/0 = -1 (all ones), INT_MIN/-1 wraps to INT_MIN."""
    if b == 0:
        return wrap(-1, e)
    return wrap(trunc_div(a, b), e)


def ref_remainder(a, b, e):
    """Sign of the dividend; x%0 = x."""
    if b == 0:
        return a
    return wrap(a - trunc_div(a, b) * b, e)


def ref_power(a, b, e):
    if b < 0:
        if abs(a) != 1:
            return 0
        b = -b
    return wrap(pow(a, b, 1 << e.width), e)


def ref_shift(op, a, b, e):
    w = e.width
    ua = a & ((1 << w) - 1)
    amount = b & ((1 << w) - 1)  # the amount is read as unsigned: negative -> huge
    if op == "shift_left":
        return wrap(0 if amount >= w else ua << amount, e)
    if op == "shift_right_logical":
        return wrap(0 if amount >= w else ua >> amount, e)
    sa = ua - (1 << w) if ua >= 1 << (w - 1) else ua  # the pattern read as signed
    return wrap(sa >> min(amount, w - 1), e)


BINARY_INT_REFS = {
    "add": lambda a, b, e: wrap(a + b, e),
    "subtract": lambda a, b, e: wrap(a - b, e),
    "multiply": lambda a, b, e: wrap(a * b, e),
    "maximum": lambda a, b, e: max(a, b),
    "minimum": lambda a, b, e: min(a, b),
    "and": lambda a, b, e: wrap(a & b, e),
    "or": lambda a, b, e: wrap(a | b, e),
    "xor": lambda a, b, e: wrap(a ^ b, e),
    "divide": ref_divide,
    "remainder": ref_remainder,
    "power": ref_power,
    "shift_left": lambda a, b, e: ref_shift("shift_left", a, b, e),
    "shift_right_logical": lambda a, b, e: ref_shift("shift_right_logical", a, b, e),
    "shift_right_arithmetic": lambda a, b, e: ref_shift("shift_right_arithmetic", a, b, e),
}


def _pairs(e, op):
    xs = sample_ints(e, 40, seed=1)
    ys = sample_ints(e, 40, seed=2)
    if op.startswith("shift"):
        lo, hi = int_range(e)
        ys = [v for v in range(-3, e.width + 3) if lo <= v <= hi] * 3
    if op == "power":
        ys = [v for v in ys if -5 <= v <= 70] + [
            v for v in (-3, -2, -1, 0, 1, 2, 3, 5, 7) if int_range(e)[0] <= v <= int_range(e)[1]
        ]
    n = min(len(xs), len(ys))
    pairs = [(x, y) for x in xs[:12] for y in ys[:12]] + list(zip(xs[:n], ys[:n]))
    lo, hi = int_range(e)
    if lo < 0:
        pairs += [(lo, -1), (lo, 0), (hi, 0), (0, 0), (-1, 0)]
    return pairs


@pytest.mark.parametrize("op", sorted(BINARY_INT_REFS))
@pytest.mark.parametrize("e", ALL_INTS, ids=str)
def test_binary_integer_ops_every_width(op, e):
    pairs = _pairs(e, op)
    a = arr([p[0] for p in pairs], e)
    b = arr([p[1] for p in pairs], e)
    got = run(op, a, b)
    want = [BINARY_INT_REFS[op](x, y, e) for x, y in pairs]
    assert [int(v) for v in got.astype(np.int64 if not e.is_unsigned else np.uint64)] == want


UNARY_INT_REFS = {
    "negate": lambda a, e: wrap(-a, e),
    "not": lambda a, e: wrap(~a, e),
    # the count wraps to the operand type (2 leading zeros in an i2 is -2)
    "popcnt": lambda a, e: wrap(bin(a & ((1 << e.width) - 1)).count("1"), e),
    "count_leading_zeros": lambda a, e: wrap(e.width - (a & ((1 << e.width) - 1)).bit_length(), e),
}


@pytest.mark.parametrize("op", sorted(UNARY_INT_REFS))
@pytest.mark.parametrize("e", ALL_INTS, ids=str)
def test_unary_integer_ops_every_width(op, e):
    xs = sample_ints(e, 100)
    got = run(op, arr(xs, e))
    want = [UNARY_INT_REFS[op](x, e) for x in xs]
    assert [int(v) for v in got.astype(np.int64 if not e.is_unsigned else np.uint64)] == want


@pytest.mark.parametrize("e", SIGNED, ids=str)
def test_abs_and_sign_signed(e):
    xs = sample_ints(e, 50)
    assert [int(v) for v in run("abs", arr(xs, e)).astype(np.int64)] == [
        wrap(abs(x), e) for x in xs
    ]
    assert [int(v) for v in run("sign", arr(xs, e)).astype(np.int64)] == [
        (x > 0) - (x < 0) for x in xs
    ]
    lo = int_range(e)[0]
    assert int(run("abs", arr([lo], e)).astype(np.int64)[0]) == lo  # abs(INT_MIN) wraps


def test_boolean_ops():
    a = np.array([False, False, True, True])
    b = np.array([False, True, False, True])
    assert run("add", a, b).tolist() == [False, True, True, True]
    assert run("multiply", a, b).tolist() == [False, False, False, True]
    assert run("maximum", a, b).tolist() == [False, True, True, True]
    assert run("minimum", a, b).tolist() == [False, False, False, True]
    assert run("and", a, b).tolist() == [False, False, False, True]
    for op in ("EQ", "NE", "GE", "GT", "LE", "LT"):
        got = run("compare", a, b, result=I1, comparison_direction=op, compare_type="UNSIGNED")
        ref = {
            "EQ": int.__eq__,
            "NE": int.__ne__,
            "GE": int.__ge__,
            "GT": int.__gt__,
            "LE": int.__le__,
            "LT": int.__lt__,
        }[op]
        assert got.tolist() == [ref(int(x), int(y)) for x, y in zip(a, b)]


@pytest.mark.parametrize("e", ALL_INTS, ids=str)
def test_integer_compare_every_width(e):
    xs = sample_ints(e, 20, seed=3)
    ys = sample_ints(e, 20, seed=4)
    pairs = [(x, y) for x in xs[:10] for y in ys[:10]] + [(x, x) for x in xs]
    a, b = arr([p[0] for p in pairs], e), arr([p[1] for p in pairs], e)
    kind = "UNSIGNED" if e.is_unsigned else "SIGNED"
    for direction, ref in (
        ("EQ", int.__eq__),
        ("NE", int.__ne__),
        ("GE", int.__ge__),
        ("GT", int.__gt__),
        ("LE", int.__le__),
        ("LT", int.__lt__),
    ):
        got = run("compare", a, b, result=I1, comparison_direction=direction, compare_type=kind)
        assert got.tolist() == [ref(x, y) for x, y in pairs], direction


# ---------------------------------------------------------------------------------------
# Floats: special values
# ---------------------------------------------------------------------------------------


def test_maximum_minimum_nan_and_signed_zero():
    a = np.array([-0.0, 0.0, np.nan, 1.0, -np.inf, np.nan, 0.0, -0.0])
    b = np.array([0.0, -0.0, 1.0, np.nan, 2.0, np.nan, 0.0, -0.0])
    mx = run("maximum", a, b)
    mn = run("minimum", a, b)
    want_max = [0.0, 0.0, math.nan, math.nan, 2.0, math.nan, 0.0, -0.0]
    want_min = [-0.0, -0.0, math.nan, math.nan, -math.inf, math.nan, 0.0, -0.0]
    assert all(same_float(float(g), w) for g, w in zip(mx, want_max)), mx
    assert all(same_float(float(g), w) for g, w in zip(mn, want_min)), mn
    for name in ("bf16", "f8E4M3FN", "f16"):
        e = FloatType(name)
        got = run("maximum", arr([-0.0, 0.0], e), arr([0.0, -0.0], e)).astype(np.float64)
        assert [math.copysign(1, v) for v in got] == [1.0, 1.0]


def test_clamp_scalar_bounds_and_nan():
    x = np.array([-5.0, 0.5, 7.0, np.nan, -0.0])
    got = run("clamp", np.array(0.0), x, np.array(1.0))
    want = [0.0, 0.5, 1.0, math.nan, 0.0]
    assert all(same_float(float(g), w) for g, w in zip(got, want)), got


TOTAL_ORDER_F32 = [  # increasing in IEEE-754 totalOrder
    0xFFC00001,
    0xFFC00000,
    0xFF800001,
    0xFF800000,
    0xC0000000,
    0xBF800000,
    0x80000001,
    0x80000000,
    0x00000000,
    0x00000001,
    0x3F800000,
    0x40000000,
    0x7F800000,
    0x7F800001,
    0x7FC00000,
    0x7FC00001,
]


@pytest.mark.parametrize("direction", ["EQ", "NE", "GE", "GT", "LE", "LT"])
def test_compare_totalorder(direction):
    v = np.array(TOTAL_ORDER_F32, dtype=np.uint32).view(np.float32)
    n = len(v)
    ia, ib = np.meshgrid(np.arange(n), np.arange(n), indexing="ij")
    got = run(
        "compare",
        v[ia.ravel()],
        v[ib.ravel()],
        result=I1,
        comparison_direction=direction,
        compare_type="TOTALORDER",
    )
    ref = {
        "EQ": int.__eq__,
        "NE": int.__ne__,
        "GE": int.__ge__,
        "GT": int.__gt__,
        "LE": int.__le__,
        "LT": int.__lt__,
    }[direction]
    assert got.tolist() == [ref(int(i), int(j)) for i, j in zip(ia.ravel(), ib.ravel())]


def test_compare_float_ieee_and_complex():
    # The conformance file's f64 vectors (compare.mlir).
    lhs = np.array(
        [
            0xFFF0000000000001,
            0xFFF0000000000001,
            0xFFF0000000000000,
            0xFFF0000000000000,
            0xC000000000000000,
            0xC000000000000000,
            0x8000000000000000,
            0x8000000000000000,
            0,
            0x3FF0000000000000,
            0x4000000000000000,
            0x7FF0000000000000,
            0x7FF0000000000001,
            0x7FF0000000000001,
        ],
        dtype=np.uint64,
    ).view(np.float64)
    rhs = np.array(
        [
            0xFFF0000000000001,
            0x7FF0000000000001,
            0xFFF0000000000000,
            0x7FF0000000000000,
            0xC000000000000000,
            0xBFF0000000000000,
            0x8000000000000000,
            0,
            0,
            0x4000000000000000,
            0x4000000000000000,
            0x7FF0000000000000,
            0x7FF0000000000001,
            0x7FFFFFFFFFFFFFFF,
        ],
        dtype=np.uint64,
    ).view(np.float64)
    want = {
        "EQ": [0, 0, 1, 0, 1, 0, 1, 1, 1, 0, 1, 1, 0, 0],
        "NE": [1, 1, 0, 1, 0, 1, 0, 0, 0, 1, 0, 0, 1, 1],
        "LT": [0, 0, 0, 1, 0, 1, 0, 0, 0, 1, 0, 0, 0, 0],
        "LE": [0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0],
    }
    for d, w in want.items():
        got = run("compare", lhs, rhs, result=I1, comparison_direction=d, compare_type="FLOAT")
        assert got.astype(int).tolist() == w, d
    nan = complex(math.nan, 0.0)
    zl = np.array([nan, complex(0.0, math.nan), complex(-0.0, 0.0), 2 + 2j])
    zr = np.array([complex(math.nan, -0.0), complex(-0.0, math.nan), 0j, 2 + 1j])
    assert run("compare", zl, zr, result=I1, comparison_direction="EQ").tolist() == [
        False,
        False,
        True,
        False,
    ]
    assert run("compare", zl, zr, result=I1, comparison_direction="NE").tolist() == [
        True,
        True,
        False,
        True,
    ]
    assert run("compare", zl, zr, result=I1, comparison_direction="GT").tolist() == [
        False,
        False,
        False,
        True,
    ]


def test_round_halves_and_specials():
    x = np.array(
        [
            -2.5,
            -1.5,
            -0.5,
            0.5,
            1.5,
            2.5,
            0.49999999999999994,
            -0.3,
            4503599627370497.0,
            np.inf,
            -np.inf,
            np.nan,
            -0.0,
        ]
    )
    afz = [
        -3.0,
        -2.0,
        -1.0,
        1.0,
        2.0,
        3.0,
        0.0,
        -0.0,
        4503599627370497.0,
        math.inf,
        -math.inf,
        math.nan,
        -0.0,
    ]
    even = [
        -2.0,
        -2.0,
        -0.0,
        0.0,
        2.0,
        2.0,
        0.0,
        -0.0,
        4503599627370497.0,
        math.inf,
        -math.inf,
        math.nan,
        -0.0,
    ]
    assert all(same_float(float(g), w) for g, w in zip(run("round_nearest_afz", x), afz))
    assert all(same_float(float(g), w) for g, w in zip(run("round_nearest_even", x), even))
    h = arr([2.5, -2.5, 0.5, 1.5], FloatType("bf16"))
    assert run("round_nearest_afz", h).astype(np.float64).tolist() == [3.0, -3.0, 1.0, 2.0]
    assert run("round_nearest_even", h).astype(np.float64).tolist() == [2.0, -2.0, 0.0, 2.0]


def test_float_sign_and_remainder_specials():
    got = run("sign", np.array([np.nan, -3.0, -0.0, 0.0, 2.0, -np.inf], dtype=np.float32))
    want = [math.nan, -1.0, -0.0, 0.0, 1.0, -1.0]
    assert all(same_float(float(g), w) for g, w in zip(got, want))
    got = run(
        "remainder",
        np.array([17.1, -17.1, 5.0, -0.0, 1.0, np.inf]),
        np.array([3.0, 3.0, 0.0, 1.0, np.inf, 1.0]),
    )
    want = [math.fmod(17.1, 3.0), math.fmod(-17.1, 3.0), math.nan, -0.0, 1.0, math.nan]
    assert all(same_float(float(g), w) for g, w in zip(got, want)), got
    assert (
        run("remainder", np.array([17.1]), np.array([3.0]))[0] == 2.1000000000000014
    )  # remainder.mlir
    assert run("divide", np.array([1.0, -1.0, 0.0]), np.array([0.0, 0.0, 0.0])).tolist()[:2] == [
        math.inf,
        -math.inf,
    ]


def test_complex_ops():
    z = np.array([1.5 + 2.5j, 7.5 + 5.5j])
    w = np.array([2.5 + 1.5j, 5.5 + 7.5j])
    got = run("divide", z, w)
    np.testing.assert_allclose(
        got, [0.88235294117647056 + 0.4705882352941177j, 0.95375722543352603 - 0.30057803468208094j]
    )
    got = run("power", z, w)
    np.testing.assert_allclose(
        got,
        [-1.5679313814305016 - 2.6674775446623613j, 392.89270835580857 + 1801.8249193362644j],
        rtol=1e-12,
    )
    a = run("abs", np.array([3 + 4j, -5 + 12j], dtype=np.complex64), result=F32)
    assert a.tolist() == [5.0, 13.0]
    s = run("sign", np.array([3 + 4j, 0j, complex(math.nan, 1.0)]))
    assert s[0] == 0.6 + 0.8j and s[1] == 0 and math.isnan(s[2].real) and math.isnan(s[2].imag)
    for op, f in (
        ("exponential", np.exp),
        ("log", np.log),
        ("sqrt", np.sqrt),
        ("sine", np.sin),
        ("cosine", np.cos),
        ("tan", np.tan),
        ("tanh", np.tanh),
    ):
        zz = np.array([0.5 + 0.25j, -1.0 + 2.0j], dtype=np.complex64)
        got = run(op, zz)
        assert got.dtype == np.complex64
        np.testing.assert_allclose(got, f(zz.astype(np.complex128)), rtol=1e-6)
    e1 = run("exponential_minus_one", np.array([1e-3 + 0j]))
    assert abs(e1[0] - (math.exp(1e-3) - 1)) < 1e-15
    l1 = run("log_plus_one", np.array([1 + 1j]))
    assert abs(l1[0] - complex(math.log(math.hypot(2, 1)), math.atan2(1, 2))) < 1e-15
    c = run("cbrt", np.array([-8 + 0j]))
    assert abs(c[0] - 2 * complex(math.cos(math.pi / 3), math.sin(math.pi / 3))) < 1e-12
    r = run("rsqrt", np.array([-4 + 0j]))
    assert abs(r[0] - 1 / (2j)) < 1e-15
    mx = run("maximum", np.array([1 + 5j, 2 + 0j]), np.array([1 + 6j, 1 + 9j]))
    assert mx.tolist() == [1 + 6j, 2 + 0j]


def test_complex_atan2_matches_real_atan2_on_reals():
    y = np.array([1.0 + 0j, -1.0 + 0j, 2.0 + 0j])
    x = np.array([1.0 + 0j, 1.0 + 0j, 3.0 + 0j])
    got = run("atan2", y, x)
    np.testing.assert_allclose(got.real, [math.atan2(1, 1), math.atan2(-1, 1), math.atan2(2, 3)])
    np.testing.assert_allclose(got.imag, 0.0, atol=1e-15)


# ---------------------------------------------------------------------------------------
# Narrow floats: + - * / sqrt are correctly rounded (one rounding)
# ---------------------------------------------------------------------------------------

EXACT_BINARY = {
    "add": lambda a, b: a + b,
    "subtract": lambda a, b: a - b,
    "multiply": lambda a, b: a * b,
    "divide": lambda a, b: a / b if b != 0 else None,
}


@pytest.mark.parametrize("name", NARROW_FLOATS)
@pytest.mark.parametrize("op", sorted(EXACT_BINARY))
def test_narrow_float_arithmetic_correctly_rounded(name, op):
    e = FloatType(name)
    dt = numpy_dtype(e)
    if dt.itemsize == 1:
        vals = finite_values(dt)
    else:
        rng = np.random.default_rng(7)
        vals = (rng.standard_normal(200) * rng.choice([1e-3, 1, 1e3], 200)).astype(dt)
    rng = np.random.default_rng(hash((name, op)) % 2**32)
    ia = rng.integers(0, len(vals), 400)
    ib = rng.integers(0, len(vals), 400)
    a, b = vals[ia], vals[ib]
    got = run(op, a, b).astype(np.float64)
    negzero = fmt(dt)[5]
    for x, y, g in zip(a.astype(np.float64), b.astype(np.float64), got):
        exact = EXACT_BINARY[op](Fraction(x), Fraction(y))
        if exact is None:
            continue
        want = round_fraction(exact, dt)
        if exact == 0:  # sign of an exact zero: IEEE rules, not checked here
            assert g == 0
            continue
        assert same_float(float(g), want, negzero=negzero), (name, op, x, y, g, want)


@pytest.mark.parametrize(
    "name", [n for n in NARROW_FLOATS if numpy_dtype(FloatType(n)).itemsize == 1]
)
def test_narrow_float_sqrt_correctly_rounded(name):
    dt = numpy_dtype(FloatType(name))
    vals = finite_values(dt)
    vals = vals[vals.astype(np.float64) > 0]
    got = run("sqrt", vals).astype(np.float64)
    for x, g in zip(vals.astype(np.float64), got):
        # sqrt(x) rounded: compare against the neighbours by exact squaring
        want = round_fraction(_sqrt_fraction(Fraction(x)), dt)
        assert same_float(float(g), want), (name, x, g, want)


def _sqrt_fraction(q: Fraction) -> Fraction:
    """sqrt(q) to 80 bits, with a sticky bit so that rounding decisions are exact."""
    scale = 1 << 160
    n = q.numerator * scale // q.denominator
    r = math.isqrt(n)
    sticky = Fraction(1, 1 << 82) if r * r != n * 1 else 0
    return Fraction(r, 1 << 80) + sticky


def test_tf32_results_are_rounded_to_tf32():
    tf32 = FloatType("tf32")
    a = np.array([1.0, 1.0, 3.0], dtype=np.float32)
    b = np.array([2.0**-11, 3 * 2.0**-11, 7.0], dtype=np.float32)
    got = run("add", a, b, result=T((3,), tf32))
    want = [
        round_fraction(Fraction(float(x)) + Fraction(float(y)), None, tf32=True)
        for x, y in zip(a, b)
    ]
    assert got.astype(np.float64).tolist() == want
    got = run(
        "divide", np.array([1.0], np.float32), np.array([3.0], np.float32), result=T((1,), tf32)
    )
    assert float(got[0]) == round_fraction(Fraction(1, 3), None, tf32=True)


def test_narrow_transcendental_close_to_math():
    for name in ("bf16", "f16", "f8E5M2"):
        e = FloatType(name)
        x = arr([0.5, 1.0, 2.0], e)
        got = run("exponential", x).astype(np.float64)
        want = [
            round_fraction(Fraction(math.exp(float(v))), numpy_dtype(e))
            for v in x.astype(np.float64)
        ]
        assert got.tolist() == want


def test_is_finite_on_narrow_types():
    for name in ("bf16", "f8E4M3FN", "f8E5M2FNUZ", "f4E2M1FN"):
        dt = numpy_dtype(FloatType(name))
        x = np.array([1.0, np.nan, np.inf], dtype=np.float32).astype(dt)
        got = run("is_finite", x, result=I1)
        assert got.tolist() == [bool(np.isfinite(v)) for v in x.astype(np.float64)]


def test_quantized_operands_are_unsupported():
    q = QuantizedType(IntegerType(8), F32, (0.5,), (0,))
    qt = T((2,), q)
    with pytest.raises(UnsupportedError):
        OP_TABLE["stablehlo.add"].kernel(
            np.zeros(2, np.int8), np.zeros(2, np.int8), result_type=qt, operand_types=(qt, qt)
        )
    with pytest.raises(UnsupportedError):
        OP_TABLE["stablehlo.compare"].kernel(
            np.zeros(2, np.int8),
            np.zeros(2, np.int8),
            result_type=T((2,), I1),
            operand_types=(qt, qt),
            comparison_direction="EQ",
        )


def test_kernels_broadcast_when_regions_run_on_whole_arrays():
    # Region bodies run on whole arrays: a 0-d operand meets a larger one.
    x = np.arange(6, dtype=np.int32).reshape(2, 3)
    assert run(
        "clamp", np.array(4, np.int32), np.array(1, np.int32), x, result=T((2, 3), I32)
    ).tolist() == [[0, 1, 2], [3, 4, 4]]
    assert run("add", x, np.array(1, np.int32), result=I32).tolist() == [[1, 2, 3], [4, 5, 6]]
    assert run("shift_left", np.array(1, np.int32), x, result=I32).tolist() == [
        [1, 2, 4],
        [8, 16, 32],
    ]
    assert run("power", x, np.array(2, np.int32), result=I32).tolist() == [[0, 1, 4], [9, 16, 25]]
    got = run("compare", x, np.array(2, np.int32), result=I1, comparison_direction="GE")
    assert got.tolist() == [[False, False, True], [True, True, True]]


F64_REF = {
    "abs": np.abs,
    "add": np.add,
    "atan2": np.arctan2,
    "cbrt": np.cbrt,
    "ceil": np.ceil,
    "cosine": np.cos,
    "divide": np.divide,
    "exponential": np.exp,
    "exponential_minus_one": np.expm1,
    "floor": np.floor,
    "log": np.log,
    "log_plus_one": np.log1p,
    "logistic": lambda x: 1 / (1 + np.exp(-x)),
    "maximum": np.maximum,
    "minimum": np.minimum,
    "multiply": np.multiply,
    "negate": np.negative,
    "power": np.power,
    "remainder": np.fmod,
    "round_nearest_afz": lambda x: np.sign(x) * np.floor(np.abs(x) + 0.5),
    "round_nearest_even": np.rint,
    "rsqrt": lambda x: 1 / np.sqrt(x),
    "sign": np.sign,
    "sine": np.sin,
    "sqrt": np.sqrt,
    "subtract": np.subtract,
    "tan": np.tan,
    "tanh": np.tanh,
}
_ARITY2 = {
    "add",
    "atan2",
    "divide",
    "maximum",
    "minimum",
    "multiply",
    "power",
    "remainder",
    "subtract",
}


@pytest.mark.parametrize("name", NARROW_FLOATS + ["f8E8M0FNU", "tf32", "f32", "f64"])
@pytest.mark.parametrize("op", sorted(F64_REF))
def test_every_float_op_on_every_float_type(op, name):
    """Each float op runs on each float type, returns the declared dtype, and is within
    one unit of the result type's precision of the float64 computation."""
    e = FloatType(name)
    dt = numpy_dtype(e)
    base = [0.5, 1.0, 2.0] if name == "f8E8M0FNU" else [0.5, 1.5, -2.0, 0.25, 3.0, -0.75]
    x = np.array(base, np.float64).astype(dt)
    args = (x, x[::-1].copy()) if op in _ARITY2 else (x,)
    got = run(op, *args, result=T(x.shape, e)).astype(np.float64)
    with np.errstate(all="ignore"):
        want = F64_REF[op](*(a.astype(np.float64) for a in args))
    eps = 2.0 ** -(10 if name == "tf32" else int(ml_dtypes.finfo(dt).nmant))
    for g, w in zip(got, want):
        if name == "f8E8M0FNU" and w <= 0:
            assert np.isnan(g)  # no zero and no negative values: NaN
            continue
        if (
            not np.isfinite(w)
            or np.abs(w) > float(ml_dtypes.finfo(dt).max)
            or 0 < abs(w) < float(ml_dtypes.finfo(dt).smallest_normal)
        ):
            continue
        assert abs(g - w) <= abs(w) * eps + 1e-300, (op, name, g, w)
