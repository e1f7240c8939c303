"""Quantization: uniform_quantize / uniform_dequantize against the spec's examples and an
exact reference (Fractions, one round-to-nearest-even per spec step), every storage
type, storage_min/max clamping, per-axis parameters, and quantized programs (the spec's
dequantize_op_quantize family) run end to end through ``engine.run``."""

from __future__ import annotations

from fractions import Fraction

import ml_dtypes
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hlorun import engine
from hlorun.engine.kernels.quantization import dequantize, quantize
from hlorun.parser.errors import UnsupportedError, VerificationError
from hlorun.parser.ir import FloatType, IntegerType, QuantizedType, TensorType
from hlorun.shape_inference.optable import OP_TABLE

# --------------------------------------------------------------------------------------
# an independent reference: exact arithmetic, one rounding per spec step
# --------------------------------------------------------------------------------------

# name -> (precision p incl. the implicit bit, emin, emax, dtype)
FORMATS = {
    "f16": (11, -14, 15, np.float16),
    "bf16": (8, -126, 127, ml_dtypes.bfloat16),
    "f32": (24, -126, 127, np.float32),
    "f64": (53, -1022, 1023, np.float64),
}

STORAGE = {  # name -> (IntegerType, dtype, min, max)
    "i2": (IntegerType(2), ml_dtypes.int2, -2, 1),
    "i4": (IntegerType(4), ml_dtypes.int4, -8, 7),
    "i8": (IntegerType(8), np.int8, -128, 127),
    "i16": (IntegerType(16), np.int16, -32768, 32767),
    "i32": (IntegerType(32), np.int32, -(2**31), 2**31 - 1),
    "ui2": (IntegerType(2, "unsigned"), ml_dtypes.uint2, 0, 3),
    "ui4": (IntegerType(4, "unsigned"), ml_dtypes.uint4, 0, 15),
    "ui8": (IntegerType(8, "unsigned"), np.uint8, 0, 255),
    "ui16": (IntegerType(16, "unsigned"), np.uint16, 0, 65535),
    "ui32": (IntegerType(32, "unsigned"), np.uint32, 0, 2**32 - 1),
}


def rnd(x, fmt: str):
    """``x`` (a Fraction, or a float infinity) rounded to nearest-even in format ``fmt``
    (an infinity on overflow)."""
    if isinstance(x, float):
        return x
    p, emin, emax, _ = FORMATS[fmt]
    if x == 0:
        return Fraction(0)
    a = abs(x)
    e = a.numerator.bit_length() - a.denominator.bit_length()
    if Fraction(2) ** e > a:
        e -= 1
    while Fraction(2) ** (e + 1) <= a:
        e += 1
    e = max(e, emin)
    quantum = Fraction(2) ** (e - p + 1)
    r = round(a / quantum) * quantum  # Fraction.__round__: ties to even
    if r >= Fraction(2) ** (emax + 1):
        return float("inf") if x > 0 else float("-inf")
    return r if x > 0 else -r


def exact(v: float):
    return Fraction(v) if np.isfinite(v) else float(v)


def ref_quantize(
    x: float, scale: float, zp: int, lo: int, hi: int, fmt: str, smin: int, smax: int
) -> int:
    """spec quantize, one element; [smin, smax] is the storage type's own range (a
    rounded value beyond it saturates, as convert does)."""
    s = rnd(Fraction(scale), fmt)
    scaled = rnd(exact(x) / s, fmt)
    shifted = rnd(scaled + rnd(Fraction(zp), fmt), fmt)
    clamped = min(max(shifted, rnd(Fraction(lo), fmt)), rnd(Fraction(hi), fmt))
    if isinstance(clamped, float):
        return smax if clamped > 0 else smin
    return min(max(round(clamped), smin), smax)


def ref_dequantize(q: int, scale: float, zp: int, fmt: str) -> float:
    return float(rnd(rnd(Fraction(q - zp), fmt) * rnd(Fraction(scale), fmt), fmt))


def qtype(
    shape, storage="i8", expressed="f32", scales=(1.0,), zps=(0,), axis=None, smin=None, smax=None
) -> TensorType:
    q = QuantizedType(
        STORAGE[storage][0], FloatType(expressed), tuple(scales), tuple(zps), axis, smin, smax
    )
    return TensorType(tuple(shape), q)


def kernel(name):
    return OP_TABLE[f"stablehlo.{name}"].kernel


# --------------------------------------------------------------------------------------
# the spec's examples
# --------------------------------------------------------------------------------------

PER_AXIS_A = qtype((2,), scales=(0.1, 0.5), zps=(-30, -20), axis=0)
PER_AXIS_B = qtype((2,), scales=(0.1, 0.2), zps=(-20, -30), axis=0)


def test_spec_uniform_quantize_per_axis():
    x = np.array([4.0, 15.0], dtype=np.float32)
    out = kernel("uniform_quantize")(
        x, result_type=PER_AXIS_A, operand_types=(TensorType((2,), FloatType("f32")),)
    )
    assert out.dtype == np.int8
    assert out.tolist() == [10, 10]


def test_spec_uniform_requantize_per_axis():
    q = np.array([10, 10], dtype=np.int8)
    out = kernel("uniform_quantize")(q, result_type=PER_AXIS_B, operand_types=(PER_AXIS_A,))
    assert out.tolist() == [20, 45]


def test_spec_uniform_dequantize_per_axis():
    q = np.array([10, 10], dtype=np.int8)
    out = kernel("uniform_dequantize")(
        q, result_type=TensorType((2,), FloatType("f32")), operand_types=(PER_AXIS_A,)
    )
    assert out.dtype == np.float32
    # (10 + 30) * f32(0.1) = 4.0000000596..., which rounds to 4.0 in f32
    assert out.tolist() == [4.0, 15.0]


QUANTIZED_ADD = """
func.func @main(%x: tensor<2xf32>, %y: tensor<2xf32>) -> tensor<2x!quant.uniform<i8:f32, 0.5:-20>> {
  %a = stablehlo.uniform_quantize %x : (tensor<2xf32>) -> tensor<2x!quant.uniform<i8:f32, 0.1:-30>>
  %b = stablehlo.uniform_quantize %y : (tensor<2xf32>) -> tensor<2x!quant.uniform<i8:f32, 0.5:-20>>
  %r = stablehlo.add %a, %b : (tensor<2x!quant.uniform<i8:f32, 0.1:-30>>, tensor<2x!quant.uniform<i8:f32, 0.5:-20>>) -> tensor<2x!quant.uniform<i8:f32, 0.5:-20>>
  func.return %r : tensor<2x!quant.uniform<i8:f32, 0.5:-20>>
}
"""


def test_quantized_add_example():
    (r,) = engine.run(
        QUANTIZED_ADD, [np.array([1.0, 2.0], np.float32), np.array([3.0, 4.0], np.float32)]
    )
    # dequantize: [1, 2] + [3, 4] = [4, 6]; quantize: 4 / 0.5 - 20, 6 / 0.5 - 20
    assert r.dtype == np.int8 and r.tolist() == [-12, -8]


# --------------------------------------------------------------------------------------
# against the exact reference: every storage type and expressed type
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("storage", sorted(STORAGE))
@pytest.mark.parametrize("fmt", sorted(FORMATS))
def test_quantize_matches_reference(storage, fmt):
    _, sdt, smin, smax = STORAGE[storage]
    rng = np.random.default_rng(len(storage) * 7 + len(fmt))
    span = float(min(smax - smin, 60000))
    scale = float(rng.uniform(0.01, 3.0))
    zp = int(np.clip(smin + (smax - smin) // 3, smin, smax))
    raw = rng.uniform(-span * scale, span * scale, size=64)
    halves = (np.arange(-6, 7) + 0.5) * scale  # near-ties
    x = np.concatenate([raw, halves, [0.0, -0.0]]).astype(FORMATS[fmt][3])
    t = qtype(x.shape, storage, fmt, (scale,), (zp,))
    got = quantize(x, t)
    assert got.dtype == np.dtype(sdt)
    want = [ref_quantize(float(v), scale, zp, smin, smax, fmt, smin, smax) for v in x]
    assert [int(v) for v in got] == want


@pytest.mark.parametrize("storage", sorted(STORAGE))
@pytest.mark.parametrize("fmt", sorted(FORMATS))
def test_dequantize_matches_reference(storage, fmt):
    _, sdt, smin, smax = STORAGE[storage]
    rng = np.random.default_rng(3 + len(storage) + len(fmt))
    scale = float(rng.uniform(0.001, 2.0))
    zp = int(smin + (smax - smin) // 2)
    q = np.concatenate([rng.integers(smin, smax, size=40, endpoint=True), [smin, smax, zp]]).astype(
        sdt
    )
    t = qtype(q.shape, storage, fmt, (scale,), (zp,))
    got = dequantize(q, t)
    assert got.dtype == np.dtype(FORMATS[fmt][3])
    want = [ref_dequantize(int(v), scale, zp, fmt) for v in q]
    assert [float(v) for v in got] == want


@settings(max_examples=60, deadline=None)
@given(
    fmt=st.sampled_from(sorted(FORMATS)),
    scale=st.floats(1e-3, 1e3),
    zp=st.integers(-128, 127),
    xs=st.lists(st.floats(-1e5, 1e5, allow_nan=False), min_size=1, max_size=8),
)
def test_quantize_random_against_reference(fmt, scale, zp, xs):
    x = np.array(xs).astype(FORMATS[fmt][3])
    got = quantize(x, qtype(x.shape, "i8", fmt, (scale,), (zp,)))
    want = [ref_quantize(float(v), scale, zp, -128, 127, fmt, -128, 127) for v in x]
    assert [int(v) for v in got] == want


def test_round_half_to_even():
    x = np.array([-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 3.5], dtype=np.float32)
    got = quantize(x, qtype(x.shape, "i8", "f32", (1.0,), (0,)))
    assert got.tolist() == [-2, -2, 0, 0, 2, 2, 4]


def test_storage_min_max_clamping():
    x = np.array([-1000.0, -101.0, -100.0, 0.0, 99.6, 1000.0], dtype=np.float32)
    t = qtype(x.shape, "i8", "f32", (1.0,), (0,), smin=-100, smax=100)
    assert quantize(x, t).tolist() == [-100, -100, -100, 0, 100, 100]
    # the default range is the storage type's: i4 clamps to [-8, 7], ui4 to [0, 15]
    assert quantize(x, qtype(x.shape, "i4")).astype(int).tolist() == [-8, -8, -8, 0, 7, 7]
    assert quantize(x, qtype(x.shape, "ui4", zps=(3,))).astype(int).tolist() == [0, 0, 0, 3, 15, 15]


def test_clamping_happens_before_rounding_in_expressed_type():
    # 7.4 clamps to storage_max 7 (a float), then rounds: 7 (not 7.4 -> 7 by luck):
    # with storage_max = 6, 6.6 clamps to 6.0 first, so the result is 6, not 7.
    x = np.array([6.6, -7.6], dtype=np.float32)
    t = qtype(x.shape, "i8", "f32", (1.0,), (0,), smin=-7, smax=6)
    assert quantize(x, t).tolist() == [6, -7]


def test_large_storage_bounds_saturate():
    # i32 storage with f32: storage_max 2**31 - 1 is 2**31 in f32; convert saturates.
    x = np.array([3e9, -3e9], dtype=np.float32)
    assert quantize(x, qtype(x.shape, "i32")).tolist() == [2**31 - 1, -(2**31)]


def test_nan_quantizes_without_error():
    x = np.array([np.nan], dtype=np.float32)
    assert quantize(x, qtype(x.shape, "i8")).dtype == np.int8


# --------------------------------------------------------------------------------------
# per-axis
# --------------------------------------------------------------------------------------


def test_per_axis_dimension_1_of_3():
    scales, zps = (0.5, 1.0, 2.0), (1, -2, 3)
    t = qtype((2, 3, 2), "i8", "f32", scales, zps, axis=1)
    rng = np.random.default_rng(5)
    q = rng.integers(-128, 128, size=(2, 3, 2)).astype(np.int8)
    got = dequantize(q, t)
    for i in range(2):
        for j in range(3):
            for k in range(2):
                want = ref_dequantize(int(q[i, j, k]), scales[j], zps[j], "f32")
                assert float(got[i, j, k]) == want
    back = quantize(got, t)
    assert np.array_equal(back, q)


@settings(max_examples=40, deadline=None)
@given(
    storage=st.sampled_from(sorted(STORAGE)),
    fmt=st.sampled_from(["f32", "f64"]),
    scale=st.floats(1e-3, 1e2),
    data=st.data(),
)
def test_round_trip_quantize_dequantize(storage, fmt, scale, data):
    """quantize(dequantize(q)) = q for every storage value (the rounding errors are far
    below half a step for these scales)."""
    _, sdt, smin, smax = STORAGE[storage]
    zp = data.draw(st.integers(smin, smax))
    if storage.endswith("32") and fmt == "f32":
        smin, smax = max(smin, -(2**20)), min(smax, 2**20)  # keep q - zp exact in f32
        zp = min(max(zp, smin), smax)
    qs = data.draw(st.lists(st.integers(smin, smax), min_size=1, max_size=8))
    if fmt == "f32" and storage.endswith("32"):
        qs = [v for v in qs if abs(v - zp) < 2**20] or [zp]
    q = np.array(qs).astype(sdt)
    t = qtype(q.shape, storage, fmt, (scale,), (zp,))
    assert np.array_equal(quantize(dequantize(q, t), t), q)


# --------------------------------------------------------------------------------------
# programs: every kind of quantized op, end to end
# --------------------------------------------------------------------------------------

Q = "!quant.uniform<i8:f32, 0.5:0>"


def run1(text, *inputs):
    return engine.run(text, list(inputs))


def test_reduce_with_quantized_body():
    text = f"""
func.func @main(%q: tensor<2x3x{Q}>) -> tensor<2x{Q}> {{
  %init = stablehlo.constant dense<0> : tensor<{Q}>
  %r = stablehlo.reduce(%q init: %init) applies stablehlo.add across dimensions = [1]
      : (tensor<2x3x{Q}>, tensor<{Q}>) -> tensor<2x{Q}>
  func.return %r : tensor<2x{Q}>
}}"""
    q = np.array([[1, 2, 3], [4, 5, 6]], dtype=np.int8)
    (r,) = run1(text, q)
    assert r.tolist() == [6, 15]  # scale 0.5, zero point 0: storage sums


def test_reduce_requantizes_to_body_type():
    """A body of a wider storage type: inputs convert (spec to_destination_type)."""
    w = "!quant.uniform<i16:f32, 1.0:0>"
    n = "!quant.uniform<i8:f32, 1.0:0>"
    text = f"""
func.func @main(%q: tensor<3x{n}>) -> tensor<{w}> {{
  %init = stablehlo.constant dense<0> : tensor<{n}>
  %r = stablehlo.reduce(%q init: %init) across dimensions = [0]
      : (tensor<3x{n}>, tensor<{n}>) -> tensor<{w}>
   reducer(%a: tensor<{w}>, %b: tensor<{w}>) {{
     %s = stablehlo.add %a, %b : tensor<{w}>
     stablehlo.return %s : tensor<{w}>
   }}
  func.return %r : tensor<{w}>
}}"""
    (r,) = run1(text, np.array([100, 100, 100], np.int8))
    assert r.dtype == np.int16 and int(r) == 300


def test_zero_point_in_reduce_body():
    # zero point 10: storage 10 is 0.0, so the sum of values 1,2,3 (storage 11,12,13)
    # is 6 -> storage 16; a storage-level sum would give 36 + 10.
    z = "!quant.uniform<i8:f32, 1.0:10>"
    text = f"""
func.func @main(%q: tensor<3x{z}>) -> tensor<{z}> {{
  %init = stablehlo.constant dense<10> : tensor<{z}>
  %r = stablehlo.reduce(%q init: %init) applies stablehlo.add across dimensions = [0]
      : (tensor<3x{z}>, tensor<{z}>) -> tensor<{z}>
  func.return %r : tensor<{z}>
}}"""
    (r,) = run1(text, np.array([11, 12, 13], np.int8))
    assert int(r) == 16


def test_data_movement_moves_storage():
    text = f"""
func.func @main(%q: tensor<2x3x{Q}>) -> tensor<4x{Q}> {{
  %t = stablehlo.transpose %q, dims = [1, 0] : (tensor<2x3x{Q}>) -> tensor<3x2x{Q}>
  %r = stablehlo.reshape %t : (tensor<3x2x{Q}>) -> tensor<6x{Q}>
  %s = stablehlo.slice %r [1:5] : (tensor<6x{Q}>) -> tensor<4x{Q}>
  %v = stablehlo.reverse %s, dims = [0] : tensor<4x{Q}>
  func.return %v : tensor<4x{Q}>
}}"""
    (r,) = run1(text, np.array([[1, 2, 3], [4, 5, 6]], np.int8))
    assert r.tolist() == [3, 5, 2, 4]


def test_per_axis_transpose_and_broadcast():
    a = "!quant.uniform<i8:f32:0, {0.5:1, 2.0:-1}>"
    b = "!quant.uniform<i8:f32:1, {0.5:1, 2.0:-1}>"
    c = "!quant.uniform<i8:f32:2, {0.5:1, 2.0:-1}>"
    text = f"""
func.func @main(%q: tensor<2x2x{a}>) -> (tensor<2x2xf32>, tensor<3x2x2xf32>) {{
  %t = stablehlo.transpose %q, dims = [1, 0] : (tensor<2x2x{a}>) -> tensor<2x2x{b}>
  %d = stablehlo.uniform_dequantize %t : (tensor<2x2x{b}>) -> tensor<2x2xf32>
  %b = stablehlo.broadcast_in_dim %t, dims = [1, 2] : (tensor<2x2x{b}>) -> tensor<3x2x2x{c}>
  %e = stablehlo.uniform_dequantize %b : (tensor<3x2x2x{c}>) -> tensor<3x2x2xf32>
  func.return %d, %e : tensor<2x2xf32>, tensor<3x2x2xf32>
}}"""
    q = np.array([[3, 5], [1, 3]], np.int8)
    d, e = run1(text, q)
    # q[i, j] has the scale / zero point of row i: values [[1, 2], [4, 8]], transposed
    assert d.tolist() == [[1.0, 4.0], [2.0, 8.0]]
    assert e.tolist() == [d.tolist()] * 3


def test_compare_and_select():
    a = "!quant.uniform<i8:f32, 0.5:3>"
    b = "!quant.uniform<i8:f32, 0.25:-2>"
    text = f"""
func.func @main(%x: tensor<3x{a}>, %y: tensor<3x{b}>) -> (tensor<3xi1>, tensor<3x{b}>) {{
  %c = stablehlo.compare LT, %x, %y : (tensor<3x{a}>, tensor<3x{b}>) -> tensor<3xi1>
  %s = stablehlo.select %c, %x, %y : (tensor<3xi1>, tensor<3x{a}>, tensor<3x{b}>) -> tensor<3x{b}>
  func.return %c, %s : tensor<3xi1>, tensor<3x{b}>
}}"""
    x = np.array([5, 7, 9], np.int8)  # 1.0, 2.0, 3.0
    y = np.array([10, 6, 2], np.int8)  # 3.0, 2.0, 1.0
    c, s = run1(text, x, y)
    assert c.tolist() == [True, False, False]
    # select picks x = 1.0 (-> storage 2 in b), then y, y
    assert s.tolist() == [2, 6, 2]


def test_dot_general_quantized_and_hybrid():
    a = "!quant.uniform<i8:f32, 1.0:0>"
    b = "!quant.uniform<i8:f32:1, {1.0:0, 2.0:0}>"
    r = "!quant.uniform<i32:f32, 1.0:0>"
    text = f"""
func.func @main(%x: tensor<2x2xf32>, %p: tensor<2x2x{a}>, %w: tensor<2x2x{b}>)
    -> (tensor<2x2x{r}>, tensor<2x2xf32>) {{
  %q = stablehlo.dot_general %p, %w, contracting_dims = [1] x [0]
      : (tensor<2x2x{a}>, tensor<2x2x{b}>) -> tensor<2x2x{r}>
  %h = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0]
      : (tensor<2x2xf32>, tensor<2x2x{b}>) -> tensor<2x2xf32>
  func.return %q, %h : tensor<2x2x{r}>, tensor<2x2xf32>
}}"""
    x = np.array([[1.0, 2.0], [3.0, 4.0]], np.float32)
    p = np.array([[1, 2], [3, 4]], np.int8)
    w = np.array([[1, 1], [2, 2]], np.int8)  # values [[1, 2], [2, 4]]
    q, h = run1(text, x, p, w)
    want = np.array([[1, 2], [3, 4]]) @ np.array([[1, 2], [2, 4]])
    assert q.dtype == np.int32 and q.tolist() == want.tolist()
    assert h.tolist() == want.tolist()


def test_convolution_quantized():
    a = "!quant.uniform<i8:f32, 0.5:0>"
    text = f"""
func.func @main(%x: tensor<1x4x1x{a}>, %k: tensor<2x1x1x{a}>) -> tensor<1x3x1x{a}> {{
  %r = stablehlo.convolution(%x, %k) dim_numbers = [b, 0, f]x[0, i, o]->[b, 0, f],
      window = {{stride = [1]}} {{batch_group_count = 1 : i64, feature_group_count = 1 : i64}}
      : (tensor<1x4x1x{a}>, tensor<2x1x1x{a}>) -> tensor<1x3x1x{a}>
  func.return %r : tensor<1x3x1x{a}>
}}"""
    x = np.array([2, 4, 6, 8], np.int8).reshape(1, 4, 1)  # 1, 2, 3, 4
    k = np.array([2, 4], np.int8).reshape(2, 1, 1)  # 1, 2
    (r,) = run1(text, x, k)
    # values 1+4, 2+6, 3+8 = 5, 8, 11 -> storage 10, 16, 22
    assert r.reshape(-1).tolist() == [10, 16, 22]


def test_iota_quantized():
    text = """
func.func @main() -> tensor<4x!quant.uniform<i8:f32, 0.5:1>> {
  %i = stablehlo.iota dim = 0 : tensor<4x!quant.uniform<i8:f32, 0.5:1>>
  func.return %i : tensor<4x!quant.uniform<i8:f32, 0.5:1>>
}"""
    (r,) = run1(text)
    assert r.tolist() == [1, 3, 5, 7]


def test_sort_with_quantized_comparator():
    text = f"""
func.func @main(%q: tensor<4x{Q}>) -> tensor<4x{Q}> {{
  %s = "stablehlo.sort"(%q) ({{
  ^bb0(%a: tensor<{Q}>, %b: tensor<{Q}>):
    %c = stablehlo.compare GT, %a, %b : (tensor<{Q}>, tensor<{Q}>) -> tensor<i1>
    stablehlo.return %c : tensor<i1>
  }}) {{dimension = 0 : i64}} : (tensor<4x{Q}>) -> tensor<4x{Q}>
  func.return %s : tensor<4x{Q}>
}}"""
    (r,) = run1(text, np.array([3, -1, 7, 2], np.int8))
    assert r.tolist() == [7, 3, 2, -1]


def test_is_finite_quantized_is_true():
    text = f"""
func.func @main(%q: tensor<3x{Q}>) -> tensor<3xi1> {{
  %r = stablehlo.is_finite %q : (tensor<3x{Q}>) -> tensor<3xi1>
  func.return %r : tensor<3xi1>
}}"""
    (r,) = run1(text, np.array([1, -128, 127], np.int8))
    assert r.tolist() == [True, True, True]


def test_while_loop_over_quantized_values():
    text = f"""
func.func @main(%q: tensor<{Q}>) -> tensor<{Q}> {{
  %n = stablehlo.constant dense<0> : tensor<i32>
  %r:2 = stablehlo.while(%i = %n, %v = %q) : tensor<i32>, tensor<{Q}>
  cond {{
    %lim = stablehlo.constant dense<3> : tensor<i32>
    %c = stablehlo.compare LT, %i, %lim : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %c : tensor<i1>
  }} do {{
    %one = stablehlo.constant dense<1> : tensor<i32>
    %j = stablehlo.add %i, %one : tensor<i32>
    %w = stablehlo.add %v, %v : tensor<{Q}>
    stablehlo.return %j, %w : tensor<i32>, tensor<{Q}>
  }}
  func.return %r#1 : tensor<{Q}>
}}"""
    (r,) = run1(text, np.array(3, np.int8))
    assert int(r) == 24


def test_unary_elementwise_saturates_in_result_type():
    text = f"""
func.func @main(%q: tensor<3x{Q}>) -> tensor<3x{Q}> {{
  %r = stablehlo.exponential %q : tensor<3x{Q}>
  func.return %r : tensor<3x{Q}>
}}"""
    (r,) = run1(text, np.array([0, 2, 20], np.int8))  # 0, 1, 10
    want = [
        ref_quantize(float(np.exp(np.float32(v))), 0.5, 0, -128, 127, "f32", -128, 127)
        for v in (0.0, 1.0, 10.0)
    ]
    assert r.tolist() == want  # exp(10) saturates to 127


# --------------------------------------------------------------------------------------
# verifier and unsupported cases
# --------------------------------------------------------------------------------------


def _label(text):
    with pytest.raises(VerificationError) as info:
        engine.run(text, [])
    return info.value.label


NEGATIVE = {
    "uniform_quantize_c1": """
func.func @main(%x: tensor<2xf32>) {
  %r = stablehlo.uniform_quantize %x : (tensor<2xf32>) -> tensor<3x!quant.uniform<i8:f32, 1.0:0>>
  func.return
}""",
    "uniform_quantize_c2": """
func.func @main(%x: tensor<2xf32>) {
  %r = stablehlo.uniform_quantize %x : (tensor<2xf32>) -> tensor<2x!quant.uniform<i8:f16, 1.0:0>>
  func.return
}""",
    "uniform_quantize_i1": """
func.func @main(%x: tensor<2xi32>) {
  %r = stablehlo.uniform_quantize %x : (tensor<2xi32>) -> tensor<2x!quant.uniform<i8:f32, 1.0:0>>
  func.return
}""",
    "uniform_quantize_o1": """
func.func @main(%x: tensor<2xf32>) {
  %r = stablehlo.uniform_quantize %x : (tensor<2xf32>) -> tensor<2x!quant.uniform<i8:f32:0, {1.0:0, 1.0:0, 1.0:0}>>
  func.return
}""",
    "uniform_dequantize_c1": """
func.func @main(%x: tensor<2x!quant.uniform<i8:f32, 1.0:0>>) {
  %r = stablehlo.uniform_dequantize %x : (tensor<2x!quant.uniform<i8:f32, 1.0:0>>) -> tensor<3xf32>
  func.return
}""",
    "uniform_dequantize_c2": """
func.func @main(%x: tensor<2x!quant.uniform<i8:f32, 1.0:0>>) {
  %r = stablehlo.uniform_dequantize %x : (tensor<2x!quant.uniform<i8:f32, 1.0:0>>) -> tensor<2xf64>
  func.return
}""",
    "uniform_dequantize_i1": """
func.func @main(%x: tensor<2xf32>) {
  %r = stablehlo.uniform_dequantize %x : (tensor<2xf32>) -> tensor<2xf32>
  func.return
}""",
}


@pytest.mark.parametrize("label", sorted(NEGATIVE))
def test_negative(label):
    assert _label(NEGATIVE[label]) == label


def test_invalid_quantized_type_is_rejected():
    text = """
func.func @main(%x: tensor<2xf32>) {
  %r = stablehlo.uniform_quantize %x : (tensor<2xf32>) -> tensor<2x!quant.uniform<i8<-10:10>:f32, 1.0:20>>
  func.return
}"""
    assert _label(text) == "uniform_quantize_o1"  # zero point outside [storage_min, max]


@pytest.mark.parametrize("op", ["and", "popcnt"])
def test_op_not_allowed_on_quantized_tensors(op):
    args = "%q, %q" if op == "and" else "%q"
    text = f"""
func.func @main(%q: tensor<2x{Q}>) -> tensor<2x{Q}> {{
  %r = stablehlo.{op} {args} : tensor<2x{Q}>
  func.return %r : tensor<2x{Q}>
}}"""
    with pytest.raises((UnsupportedError, VerificationError)) as info:
        engine.run(text, [np.zeros(2, np.int8)], verify=False)
    assert f"stablehlo.{op}" in str(info.value)


def test_broadcast_repeats_per_axis_parameters_of_size_1_dimension():
    a = "!quant.uniform<i8:f32:0, {0.5:1}>"
    b = "!quant.uniform<i8:f32:0, {0.5:1, 0.5:1, 0.5:1}>"
    text = f"""
func.func @main(%q: tensor<1x2x{a}>) -> tensor<3x2x{b}> {{
  %b = stablehlo.broadcast_in_dim %q, dims = [0, 1] : (tensor<1x2x{a}>) -> tensor<3x2x{b}>
  func.return %b : tensor<3x2x{b}>
}}"""
    (r,) = run1(text, np.array([[5, -7]], np.int8))
    assert r.tolist() == [[5, -7]] * 3


def test_movement_between_different_parameters_requantizes():
    """Not valid StableHLO (reshape_c1), but never silently wrong: with verification
    off, the values are dequantized and quantized to the result's parameters."""
    text = """
func.func @main(%q: tensor<2x!quant.uniform<i8:f32, 1.0:0>>) -> tensor<2x!quant.uniform<i8:f32, 0.5:0>> {
  %r = stablehlo.reshape %q : (tensor<2x!quant.uniform<i8:f32, 1.0:0>>) -> tensor<2x!quant.uniform<i8:f32, 0.5:0>>
  func.return %r : tensor<2x!quant.uniform<i8:f32, 0.5:0>>
}"""
    (r,) = engine.run(text, [np.array([3, -4], np.int8)], verify=False)
    assert r.tolist() == [6, -8]


Z = "!quant.uniform<i8:f32, 1.0:10>"  # storage 10 is 0.0: storage-level sums would be off


def test_scatter_add_runs_the_quantized_body():
    text = f"""
func.func @main(%x: tensor<3x{Z}>, %i: tensor<2x1xi32>, %u: tensor<2x{Z}>) -> tensor<3x{Z}> {{
  %r = "stablehlo.scatter"(%x, %i, %u) ({{
  ^bb0(%a: tensor<{Z}>, %b: tensor<{Z}>):
    %s = stablehlo.add %a, %b : tensor<{Z}>
    stablehlo.return %s : tensor<{Z}>
  }}) {{scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0],
       scatter_dims_to_operand_dims = [0], index_vector_dim = 1>}}
      : (tensor<3x{Z}>, tensor<2x1xi32>, tensor<2x{Z}>) -> tensor<3x{Z}>
  func.return %r : tensor<3x{Z}>
}}"""
    x = np.array([11, 12, 13], np.int8)  # 1, 2, 3
    i = np.array([[0], [0]], np.int32)
    u = np.array([15, 20], np.int8)  # 5, 10
    (r,) = run1(text, x, i, u)
    assert r.tolist() == [26, 12, 13]  # 1 + 5 + 10 = 16 -> storage 26


def test_reduce_window_and_map():
    text = f"""
func.func @main(%x: tensor<4x{Z}>) -> (tensor<3x{Z}>, tensor<4x{Z}>) {{
  %init = stablehlo.constant dense<10> : tensor<{Z}>
  %w = "stablehlo.reduce_window"(%x, %init) ({{
  ^bb0(%a: tensor<{Z}>, %b: tensor<{Z}>):
    %s = stablehlo.add %a, %b : tensor<{Z}>
    stablehlo.return %s : tensor<{Z}>
  }}) {{window_dimensions = array<i64: 2>}} : (tensor<4x{Z}>, tensor<{Z}>) -> tensor<3x{Z}>
  %m = "stablehlo.map"(%x, %x) ({{
  ^bb0(%a: tensor<{Z}>, %b: tensor<{Z}>):
    %s = stablehlo.multiply %a, %b : tensor<{Z}>
    stablehlo.return %s : tensor<{Z}>
  }}) {{dimensions = array<i64: 0>}} : (tensor<4x{Z}>, tensor<4x{Z}>) -> tensor<4x{Z}>
  func.return %w, %m : tensor<3x{Z}>, tensor<4x{Z}>
}}"""
    x = np.array([11, 12, 13, 14], np.int8)  # 1, 2, 3, 4
    w, m = run1(text, x)
    assert w.tolist() == [13, 15, 17]  # 3, 5, 7
    assert m.tolist() == [11, 14, 19, 26]  # 1, 4, 9, 16


def test_clamp_pad_concatenate_gather():
    text = f"""
func.func @main(%x: tensor<3x{Z}>, %lo: tensor<{Z}>, %hi: tensor<{Z}>) -> (tensor<3x{Z}>, tensor<5x{Z}>, tensor<6x{Z}>, tensor<2x{Z}>) {{
  %c = stablehlo.clamp %lo, %x, %hi : (tensor<{Z}>, tensor<3x{Z}>, tensor<{Z}>) -> tensor<3x{Z}>
  %p = stablehlo.pad %x, %lo, low = [1], high = [1], interior = [0] : (tensor<3x{Z}>, tensor<{Z}>) -> tensor<5x{Z}>
  %k = stablehlo.concatenate %x, %c, dim = 0 : (tensor<3x{Z}>, tensor<3x{Z}>) -> tensor<6x{Z}>
  %i = stablehlo.constant dense<[[2], [0]]> : tensor<2x1xi32>
  %g = "stablehlo.gather"(%x, %i) {{dimension_numbers = #stablehlo.gather<collapsed_slice_dims = [0],
       start_index_map = [0], index_vector_dim = 1>, slice_sizes = array<i64: 1>}}
      : (tensor<3x{Z}>, tensor<2x1xi32>) -> tensor<2x{Z}>
  func.return %c, %p, %k, %g : tensor<3x{Z}>, tensor<5x{Z}>, tensor<6x{Z}>, tensor<2x{Z}>
}}"""
    x = np.array([5, 12, 40], np.int8)  # -5, 2, 30
    c, p, k, g = run1(text, x, np.array(10, np.int8), np.array(30, np.int8))  # [0, 20]
    assert c.tolist() == [10, 12, 30]
    assert p.tolist() == [10, 5, 12, 40, 10]
    assert k.tolist() == [5, 12, 40, 10, 12, 30]
    assert g.tolist() == [40, 5]


def test_batch_norm_inference_quantized():
    text = f"""
func.func @main(%x: tensor<2x1x{Z}>) -> tensor<2x1x{Z}> {{
  %s = stablehlo.constant dense<[12]> : tensor<1x{Z}>
  %o = stablehlo.constant dense<[11]> : tensor<1x{Z}>
  %m = stablehlo.constant dense<[10]> : tensor<1x{Z}>
  %v = stablehlo.constant dense<[11]> : tensor<1x{Z}>
  %r = "stablehlo.batch_norm_inference"(%x, %s, %o, %m, %v) {{epsilon = 0.0 : f32, feature_index = 1 : i64}}
      : (tensor<2x1x{Z}>, tensor<1x{Z}>, tensor<1x{Z}>, tensor<1x{Z}>, tensor<1x{Z}>) -> tensor<2x1x{Z}>
  func.return %r : tensor<2x1x{Z}>
}}"""
    # scale 2, offset 1, mean 0, variance 1: x -> 2x + 1
    (r,) = run1(text, np.array([[11], [13]], np.int8))  # 1, 3 -> 3, 7
    assert r.reshape(-1).tolist() == [13, 17]


def test_all_reduce_promotes_to_the_wider_body_type():
    w = "!quant.uniform<i16:f32, 1.0:10>"
    text = f"""
func.func @main(%x: tensor<3x{Z}>) -> tensor<3x{w}> {{
  %r = "stablehlo.all_reduce"(%x) ({{
  ^bb0(%a: tensor<{w}>, %b: tensor<{w}>):
    %s = stablehlo.add %a, %b : tensor<{w}>
    stablehlo.return %s : tensor<{w}>
  }}) {{replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>}} : (tensor<3x{Z}>) -> tensor<3x{w}>
  func.return %r : tensor<3x{w}>
}}"""
    out = engine.run(text, [np.array([11, 12, 13], np.int8)], num_replicas=2)
    for (r,) in out:  # values 1, 2, 3 from each of 2 replicas
        assert r.dtype == np.int16 and r.tolist() == [12, 14, 16]


def test_select_and_scatter_quantized():
    text = f"""
func.func @main(%x: tensor<4x{Z}>, %s: tensor<2x{Z}>) -> tensor<4x{Z}> {{
  %init = stablehlo.constant dense<10> : tensor<{Z}>
  %r = "stablehlo.select_and_scatter"(%x, %s, %init) ({{
  ^bb0(%a: tensor<{Z}>, %b: tensor<{Z}>):
    %c = stablehlo.compare GE, %a, %b : (tensor<{Z}>, tensor<{Z}>) -> tensor<i1>
    stablehlo.return %c : tensor<i1>
  }}, {{
  ^bb0(%a: tensor<{Z}>, %b: tensor<{Z}>):
    %c = stablehlo.add %a, %b : tensor<{Z}>
    stablehlo.return %c : tensor<{Z}>
  }}) {{window_dimensions = array<i64: 2>, window_strides = array<i64: 2>}}
      : (tensor<4x{Z}>, tensor<2x{Z}>, tensor<{Z}>) -> tensor<4x{Z}>
  func.return %r : tensor<4x{Z}>
}}"""
    x = np.array([11, 15, 13, 12], np.int8)  # 1, 5, 3, 2: maxima at 1 and 2
    (r,) = run1(text, x, np.array([13, 14], np.int8))  # sources 3, 4
    assert r.tolist() == [10, 13, 14, 10]


def test_convert_of_quantized_is_unsupported():
    text = f"""
func.func @main(%x: tensor<3x{Z}>) -> tensor<3xf32> {{
  %r = stablehlo.convert %x : (tensor<3x{Z}>) -> tensor<3xf32>
  func.return %r : tensor<3xf32>
}}"""
    with pytest.raises(UnsupportedError, match="stablehlo.convert"):
        engine.run(text, [np.array([11, 12, 13], np.int8)], verify=False)


def test_dynamic_shapes_and_bf16_expressed_type():
    q = "!quant.uniform<ui8:bf16, 0.25:128>"
    text = f"""
func.func @main(%x: tensor<?xbf16>) -> (tensor<?x{q}>, tensor<?xbf16>) {{
  %q = stablehlo.uniform_quantize %x : (tensor<?xbf16>) -> tensor<?x{q}>
  %d = stablehlo.uniform_dequantize %q : (tensor<?x{q}>) -> tensor<?xbf16>
  func.return %q, %d : tensor<?x{q}>, tensor<?xbf16>
}}"""
    x = np.array([-40.0, -1.0, 0.0, 0.125, 0.375, 3.0, 40.0], dtype=ml_dtypes.bfloat16)
    r, d = engine.run(text, [x])
    # x / 0.25 + 128, ties to even (0.5 -> 0, 1.5 -> 2), clamped to [0, 255]
    assert r.dtype == np.uint8 and r.tolist() == [0, 124, 128, 128, 130, 140, 255]
    assert d.dtype == ml_dtypes.bfloat16
    assert d.astype(np.float32).tolist() == [-32.0, -1.0, 0.0, 0.0, 0.5, 3.0, 31.75]
