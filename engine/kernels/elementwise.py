"""elementwise kernels (spec: "Ops" -> abs ... xor).

Most ops register with one ``elementwise("stablehlo.<op>", ...)`` line each: one NumPy
function per type family (bool, integer, float, complex), plus the op table's ``ufunc``
column (the NumPy ufunc equal to the op, for the fast path, reduce and scatter).  The
special cases get small functions.

Numerics, per family:

* integers compute in the operand dtype (sub-byte int2/int4/uint2/uint4 in int8/uint8)
  and wrap modulo 2**width at the end (``_bits.wrap_int``).  Division truncates toward
  zero; the spec leaves x/0, x%0 and INT_MIN/-1 implementation-defined: like XLA we give
  x/0 = -1 (all ones), x%0 = x, INT_MIN/-1 = INT_MIN, INT_MIN%-1 = 0.  Shifts by an
  amount outside [0, width) give 0 (shift_left, shift_right_logical) or the sign fill
  (shift_right_arithmetic, on the bit pattern like LLVM's ``ashr``).  power with a
  negative exponent: 0 unless |base| = 1 (the reference interpreter's rule).
* floats: ops marked ``exact`` (+ - * / sqrt fmod, and the exact ones: abs, negate,
  max/min, floor/ceil/round, sign) run natively in float32/float64, and in float32 for
  the narrower formats (p <= 11 bits, tf32 included: 24 >= 2p+2, so rounding the
  float32 result once more is still correctly rounded).  Every other case computes in
  float64 and rounds ONCE to the result type (``_bits.round_float``);
  transcendental functions (exp, log, sin, pow, tanh, ...) are as accurate as NumPy's
  float64 versions (the reference interpreter also computes them in double), so they
  can be off by one unit in the last place of the result type in rare cases.
* complex: add/subtract/multiply/negate natively; everything else in complex128, then
  rounded per component.  Formulas for the ops C has no function for follow the
  reference interpreter: expm1(z) = exp(z) - 1, log1p(z) = log(z + 1), cbrt via polar
  form, atan2(y, x) = -i log((x + iy) / sqrt(x*x + y*y)).

Quantized element types are not handled here (another family will dequantize):
the kernels raise ``UnsupportedError`` for them.  NumPy floating-point warnings are
expected and silenced.
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ...parser.errors import UnsupportedError
from ...parser.ir import FloatType, QuantizedType, TensorType, Type
from ...shape_inference.optable import register_kernel
from ..dtypes import dtype_of
from ..ufunc import Ufunc, ieee_max, ieee_min
from . import _bits as B

# ---------------------------------------------------------------------------------------
# Shared helpers
# ---------------------------------------------------------------------------------------


def _elem(t: Type | None) -> Type | None:
    return t.element_type if isinstance(t, TensorType) else t


def reject_quantized(op: str, result_type: Type | None, operand_types=None) -> None:
    """Raise ``UnsupportedError`` when any operand or the result is quantized."""
    for t in (result_type, *(operand_types or ())):
        if isinstance(_elem(t), QuantizedType):
            raise UnsupportedError(
                f"quantized element types are not supported by the {op} kernel yet",
                op=f"stablehlo.{op}",
            )


def is_tf32(t: Type | None) -> bool:
    e = _elem(t)
    return isinstance(e, FloatType) and e.name == "tf32"


def _unsupported(op: str, dt: np.dtype) -> UnsupportedError:
    return UnsupportedError(
        f"element type of dtype {dt} is not supported by {op}", op=f"stablehlo.{op}"
    )


# ---------------------------------------------------------------------------------------
# Integer functions: (compute-dtype arrays..., dt=original dtype) -> integer array
# ---------------------------------------------------------------------------------------


def _int_divide(a: np.ndarray, b: np.ndarray, dt: np.dtype) -> np.ndarray:
    """Truncating division; x/0 = -1 (all ones), INT_MIN/-1 = INT_MIN."""
    zero = b == 0
    if a.dtype.kind == "i":
        ovf = (a == np.iinfo(a.dtype).min) & (b == -1)
        safe = np.where(zero | ovf, 1, b).astype(a.dtype)
        r = np.fmod(a, safe)
        q = (a - r) // safe  # exact division: floor == truncation
        q = np.where(ovf, a, q)
    else:
        safe = np.where(zero, 1, b).astype(a.dtype)
        q = a // safe
    return np.where(zero, ~np.zeros_like(a), q)


def _int_remainder(a: np.ndarray, b: np.ndarray, dt: np.dtype) -> np.ndarray:
    """Remainder with the dividend's sign; x%0 = x, INT_MIN%-1 = 0."""
    zero = b == 0
    if a.dtype.kind == "i":
        ovf = (a == np.iinfo(a.dtype).min) & (b == -1)
        safe = np.where(zero | ovf, 1, b).astype(a.dtype)
        r = np.fmod(a, safe)
        r = np.where(ovf, 0, r)
    else:
        safe = np.where(zero, 1, b).astype(a.dtype)
        r = a % safe
    return np.where(zero, a, r)


def _int_power(a: np.ndarray, b: np.ndarray, dt: np.dtype) -> np.ndarray:
    """Exponentiation by squaring, modulo 2**width; negative exponents give 0 unless
    |base| = 1 (then the exponent's magnitude is used)."""
    width, signed = B.int_info(dt)
    zero_result = np.zeros(np.broadcast(a, b).shape, dtype=bool)
    e = b
    if signed:
        neg = b < 0
        unit = (a == 1) | (a == -1)
        e = np.where(neg & unit, -b, b)  # -INT_MIN wraps; its bit pattern is still right
        zero_result = neg & ~unit
    bits = np.asarray(e.astype(np.int64).view(np.uint64) & np.uint64((1 << width) - 1))
    base = np.broadcast_to(a, bits.shape).copy()
    result = np.ones(bits.shape, dtype=a.dtype)
    for i in range(width):
        shifted = bits >> np.uint64(i)
        if not shifted.any():
            break
        result = np.where((shifted & np.uint64(1)) != 0, result * base, result)
        base = base * base
    return np.where(zero_result, 0, result).astype(a.dtype)


def _shift_amount(b: np.ndarray, dt: np.dtype) -> tuple[np.ndarray, np.ndarray]:
    """(amount out of range, safe amount) for a shift of ``dt`` values: the amount is
    read as an unsigned ``width``-bit number, so negative amounts are out of range."""
    width, _ = B.int_info(dt)
    amount = B.to_bits(b).astype(np.uint64)
    big = amount >= np.uint64(width)
    return big, np.where(big, np.uint64(0), amount)


def _signed_pattern(a: np.ndarray, dt: np.dtype) -> np.ndarray:
    """The bit pattern of ``a`` read as a signed ``width``-bit number (int8..int64)."""
    width, _ = B.int_info(dt)
    if dt in B.SUBBYTE_INT:
        p = B.to_bits(a).astype(np.int8)
        half = np.int8(1 << (width - 1))
        return (p ^ half) - half
    return B.contiguous(a).view(B.signed_view_dtype(dt))


def _shift_left(a: np.ndarray, b: np.ndarray, dt: np.dtype) -> np.ndarray:
    big, amount = _shift_amount(b, dt)
    u = B.to_bits(a)
    r = np.left_shift(u, amount.astype(u.dtype))
    return np.where(big, 0, r).astype(u.dtype)


def _shift_right_logical(a: np.ndarray, b: np.ndarray, dt: np.dtype) -> np.ndarray:
    big, amount = _shift_amount(b, dt)
    u = B.to_bits(a)
    r = np.right_shift(u, amount.astype(u.dtype))
    return np.where(big, 0, r).astype(u.dtype)


def _shift_right_arithmetic(a: np.ndarray, b: np.ndarray, dt: np.dtype) -> np.ndarray:
    big, amount = _shift_amount(b, dt)
    s = _signed_pattern(a, dt)
    r = np.right_shift(s, amount.astype(s.dtype))
    return np.where(big, np.where(s < 0, -1, 0), r).astype(s.dtype)


def _clz(a: np.ndarray, dt: np.dtype) -> np.ndarray:
    width, _ = B.int_info(dt)
    return B.clz(B.to_bits(a), width)


def _popcnt(a: np.ndarray, dt: np.dtype) -> np.ndarray:
    return B.popcount(B.to_bits(a))


def _binary_int(fn: Callable) -> Callable:
    return lambda a, b, dt: fn(a, b)


def _unary_int(fn: Callable) -> Callable:
    return lambda a, dt: fn(a)


# ---------------------------------------------------------------------------------------
# Float functions (on float32/float64 arrays)
# ---------------------------------------------------------------------------------------


def _round_afz(x: np.ndarray) -> np.ndarray:
    """roundToIntegralTiesToAway: x - trunc(x) is exact, so the tie test is exact."""
    t = np.trunc(x)
    return np.where(np.abs(x - t) >= 0.5, t + np.sign(x), t)


def _fsign(x: np.ndarray) -> np.ndarray:
    """NaN -> NaN, +-0 -> +-0, else +-1."""
    one = np.ones_like(x)
    return np.where(np.isnan(x) | (x == 0), x, np.where(x < 0, -one, one))


def _logistic(x: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-x))


def _rsqrt(x: np.ndarray) -> np.ndarray:
    return 1.0 / np.sqrt(x)


# ---------------------------------------------------------------------------------------
# Complex functions (on complex64/complex128 arrays)
# ---------------------------------------------------------------------------------------


def _make_complex(re: np.ndarray, im: np.ndarray, dtype=np.complex128) -> np.ndarray:
    """re + i*im without the inf*0 = NaN of complex multiplication."""
    re, im = np.broadcast_arrays(re, im)
    out = np.empty(re.shape, dtype=dtype)
    out.real = re
    out.imag = im
    return out


def _cmax(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Lexicographic maximum of (real, imag), as the reference interpreter."""
    pick_a = np.where(a.real == b.real, a.imag > b.imag, a.real > b.real)
    return np.where(pick_a, a, b)


def _cmin(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    pick_a = np.where(a.real == b.real, a.imag < b.imag, a.real < b.real)
    return np.where(pick_a, a, b)


def _csign(z: np.ndarray) -> np.ndarray:
    nan = np.isnan(z.real) | np.isnan(z.imag)
    zero = z == 0
    a = np.abs(z)
    r = _make_complex(z.real / a, z.imag / a)  # real divisions: correctly rounded
    r = np.where(zero, 0, r)
    return np.where(nan, complex(np.nan, np.nan), r)


def _ccbrt(z: np.ndarray) -> np.ndarray:
    """Principal cube root in polar form.  |z| by hypot of the parts scaled by 2**k
    (k a multiple of 3) into the normal range: squaring them would underflow or
    overflow, and a subnormal |z| would keep only a few significant bits."""
    x, y = z.real, z.imag
    theta = np.arctan2(y, x) / 3.0
    m = np.maximum(np.abs(x), np.abs(y))
    ok = (m > 0) & np.isfinite(m)
    k = np.where(ok, -(np.frexp(np.where(ok, m, 1.0))[1] // 3) * 3, 0)
    mag = np.ldexp(np.cbrt(np.hypot(np.ldexp(x, k), np.ldexp(y, k))), -(k // 3))
    return _make_complex(mag * np.cos(theta), mag * np.sin(theta))


def _catan2(y: np.ndarray, x: np.ndarray) -> np.ndarray:
    """-i log((x + iy) / sqrt(x*x + y*y)), with x and y scaled by one power of two
    first (the quotient does not change) so that the squares neither underflow nor
    overflow."""
    parts = (np.abs(y.real), np.abs(y.imag), np.abs(x.real), np.abs(x.imag))
    m = np.maximum(np.maximum(parts[0], parts[1]), np.maximum(parts[2], parts[3]))
    ok = (m > 0) & np.isfinite(m)
    k = np.where(ok, -np.frexp(np.where(ok, m, 1.0))[1], 0)
    ys = _make_complex(np.ldexp(y.real, k), np.ldexp(y.imag, k))
    xs = _make_complex(np.ldexp(x.real, k), np.ldexp(x.imag, k))
    i = 1j
    return -i * np.log((xs + i * ys) / np.sqrt(xs * xs + ys * ys))


def _clog1p(z: np.ndarray) -> np.ndarray:
    """spec: complex(log(hypot(re + 1, im)), atan2(im, re + 1)), evaluated without the
    cancellation of ``log(1 + z)`` for small z: there log|1 + z| = log1p(re*(re + 2) +
    im**2) / 2.  Non-finite operands keep C's ``clog(z + 1)`` special values."""
    x, y = z.real, z.imag
    small = np.hypot(x, y) < 0.5
    re = np.where(small, 0.5 * np.log1p(x * (x + 2.0) + y * y), np.log(np.hypot(x + 1.0, y)))
    out = _make_complex(re, np.arctan2(y, x + 1.0))
    finite = np.isfinite(x) & np.isfinite(y)
    return np.where(finite, out, np.log(z + 1.0))


def _cexpm1(z: np.ndarray) -> np.ndarray:
    """exp(z) - 1 without cancellation for small z: the real part is
    expm1(re) cos(im) - 2 sin(im/2)**2, the imaginary part exp(re) sin(im) (+-0 kept
    when im is +-0).  Non-finite operands keep C's ``cexp(z) - 1`` special values."""
    x, y = z.real, z.imag
    half = np.sin(0.5 * y)
    re = np.expm1(x) * np.cos(y) - 2.0 * half * half
    im = np.where(y == 0, y, np.exp(x) * np.sin(y))
    out = _make_complex(re, im)
    finite = np.isfinite(x) & np.isfinite(y)
    return np.where(finite, out, np.exp(z) - 1.0)


# ---------------------------------------------------------------------------------------
# The table
# ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Row:
    """One elementwise op: a function per type family (None = not allowed)."""

    name: str
    boolean: Callable | None = None
    integer: Callable | None = None  # (compute arrays..., dt) -> ints; wrapped afterwards
    real: Callable | None = None
    complex: Callable | None = None
    exact: bool = False  # real/complex fn is exact (or correctly rounded) natively
    raw_int: bool = False  # integer fn takes the original arrays, not int8-widened ones
    never_zero: bool = False  # its exact result is never zero for f8E8M0FNU's operands
    native_complex: bool = False  # the reference computes it in the complex type itself



def apply(row: Row, xs: tuple[np.ndarray, ...], result_type: Type) -> np.ndarray:
    """Evaluate ``row`` on whole arrays; the result has exactly the result type's dtype."""
    dt_in = xs[0].dtype
    dt_out = dtype_of(result_type)
    family = B.dtype_family(dt_in)
    with np.errstate(all="ignore"):
        if family == "bool":
            if row.boolean is None:
                raise _unsupported(row.name, dt_in)
            return np.asarray(row.boolean(*xs)).astype(dt_out, copy=False)
        if family == "int":
            if row.integer is None:
                raise _unsupported(row.name, dt_in)
            args = xs if row.raw_int else tuple(B.int_compute(x) for x in xs)
            return B.wrap_int(row.integer(*args, dt=dt_in), dt_out)
        if family == "complex":
            if row.complex is None:
                raise _unsupported(row.name, dt_in)
            if row.native_complex:
                y = row.complex(*xs)
            else:
                y = row.complex(*(x.astype(B.C128) for x in xs))
            return np.asarray(y).astype(dt_out, copy=False)
        if row.real is None:
            raise _unsupported(row.name, dt_in)
        tf32 = is_tf32(result_type)
        if row.exact and dt_in in (B.F32, B.F64) and not tf32:
            y = row.real(*xs)
        elif row.exact and dt_in != B.F64 and B.has_sign_bit(dt_in):
            # Formats with p <= 11 bits (all but f32/f64; tf32 too): float32 has
            # 24 >= 2p+2 bits, so computing there and rounding once more is exact.
            # (Not f8E8M0FNU: its products and quotients leave float32's range.)
            y = row.real(*(x.astype(B.F32) for x in xs))
        else:
            y = row.real(*(x.astype(B.F64) for x in xs))
            if row.never_zero and not B.has_sign_bit(dt_out):
                # f8E8M0FNU has no zero: a result that underflowed float64 is still
                # positive, and its nearest f8E8M0FNU value is the smallest one.
                y = np.where(y == 0, np.nextafter(0.0, 1.0), y)
        out = B.round_float(np.asarray(y), dt_out, tf32=tf32)
        if row.name in ("abs", "negate") and dt_in not in (B.F32, B.F64):
            out = _sign_bit_nans(row.name, xs[0], out)
        return out


def _sign_bit_nans(name: str, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """abs and negate act on the sign bit only, NaN payloads included (IEEE 754
    5.5.1); the float32 round trip of the narrow formats would quiet NaNs.  Formats
    whose NaN is the sign pattern itself (FNUZ) or that have no sign (f8E8M0FNU) keep
    the round trip's NaN."""
    dt = x.dtype
    nan = np.isnan(x.astype(B.F32))
    if not nan.any():
        return y
    sign = 1 << (B.num_bits(dt) - 1)
    sign_pattern = B.from_bits(np.array(sign, dtype=np.uint64), dt)
    if not B.has_sign_bit(dt) or np.isnan(sign_pattern.astype(B.F32)):
        return y
    u = B.to_bits(x).astype(np.uint64)
    fixed = u & np.uint64(~sign & 0xFFFFFFFFFFFFFFFF) if name == "abs" else u ^ np.uint64(sign)
    return np.where(nan, B.from_bits(fixed, dt), y).astype(dt)


def _table_kernel(row: Row) -> Callable:
    def kernel(*operands: np.ndarray, result_type: Type, operand_types=None, **_attrs) -> np.ndarray:
        # ``result_accuracy`` (when declared) asks for at least our accuracy: ignored.
        reject_quantized(row.name, result_type, operand_types)
        return apply(row, operands, result_type)

    kernel.__name__ = f"{row.name}_kernel"
    kernel.__doc__ = f"spec: {row.name} (elementwise table row)."
    return kernel


def _float_minmax(op, rt, dt: np.dtype, kwargs) -> Callable | None:
    """Fast path of maximum / minimum on f32/f64 operands of the result's type."""
    if dt.kind != "f" or len(op.operands) != 2 or any(v.type != rt for v in op.operands):
        return None
    return ieee_max if op.name == "stablehlo.maximum" else ieee_min


def elementwise(name: str, boolean: Callable | None = None, integer: Callable | None = None,
                real: Callable | None = None, complex: Callable | None = None, *,
                ufunc: Ufunc | None = None, fast_plan: Callable | None = None,
                **flags: bool) -> Row:
    """Register the kernel of the elementwise op ``name`` (its literal op name), computed
    by ``apply`` from one function per type family; ``ufunc`` / ``fast_plan`` fill the
    op table's columns of the same name (``engine.fastpath``, reduce, scatter)."""
    row = Row(name.removeprefix("stablehlo."), boolean, integer, real, complex, **flags)
    register_kernel(name, _table_kernel(row), operand_types=True, ufunc=ufunc, fast_plan=fast_plan)
    return row


elementwise("stablehlo.abs", None, _unary_int(np.abs), np.abs, np.abs, exact=True, ufunc=Ufunc(np.absolute, fast="iuf", op=operator.abs))
elementwise("stablehlo.add", np.logical_or, _binary_int(np.add), np.add, np.add, exact=True, native_complex=True, ufunc=Ufunc(np.add, fast="iuf", op=operator.add, reduce="iufc", boolean=np.logical_or, at="biufc"))
elementwise("stablehlo.and", np.logical_and, _binary_int(np.bitwise_and), ufunc=Ufunc(np.bitwise_and, fast="biu", op=operator.and_, reduce="iu", boolean=np.logical_and, at="biu"))
elementwise("stablehlo.atan2", None, None, np.arctan2, _catan2, ufunc=Ufunc(np.arctan2, fast="f", exact=False))
elementwise("stablehlo.cbrt", None, None, np.cbrt, _ccbrt, ufunc=Ufunc(np.cbrt, fast="f", exact=False))
elementwise("stablehlo.ceil", None, None, np.ceil, None, exact=True, ufunc=Ufunc(np.ceil, fast="f"))
elementwise("stablehlo.cosine", None, None, np.cos, np.cos, ufunc=Ufunc(np.cos, fast="f", exact=False))
elementwise("stablehlo.count_leading_zeros", None, _clz, raw_int=True)
elementwise("stablehlo.divide", None, _int_divide, np.divide, np.divide, exact=True, ufunc=Ufunc(np.divide, fast="f", op=operator.truediv))
elementwise("stablehlo.exponential", None, None, np.exp, np.exp, never_zero=True, ufunc=Ufunc(np.exp, fast="f", exact=False))
elementwise("stablehlo.exponential_minus_one", None, None, np.expm1, _cexpm1, ufunc=Ufunc(np.expm1, fast="f", exact=False))
elementwise("stablehlo.floor", None, None, np.floor, None, exact=True, ufunc=Ufunc(np.floor, fast="f"))
elementwise("stablehlo.log", None, None, np.log, np.log, ufunc=Ufunc(np.log, fast="f", exact=False))
elementwise("stablehlo.log_plus_one", None, None, np.log1p, _clog1p, ufunc=Ufunc(np.log1p, fast="f", exact=False))
elementwise("stablehlo.logistic", None, None, _logistic, _logistic, never_zero=True)
MAXIMUM = elementwise("stablehlo.maximum", np.logical_or, _binary_int(np.maximum), ieee_max, _cmax, exact=True, native_complex=True, fast_plan=_float_minmax, ufunc=Ufunc(np.maximum, fast="iu", reduce="iu", boolean=np.logical_or, at="iu"))
MINIMUM = elementwise("stablehlo.minimum", np.logical_and, _binary_int(np.minimum), ieee_min, _cmin, exact=True, native_complex=True, fast_plan=_float_minmax, ufunc=Ufunc(np.minimum, fast="iu", reduce="iu", boolean=np.logical_and, at="iu"))
elementwise("stablehlo.multiply", np.logical_and, _binary_int(np.multiply), np.multiply, np.multiply, exact=True, native_complex=True, ufunc=Ufunc(np.multiply, fast="iuf", op=operator.mul, reduce="iuf", boolean=np.logical_and, at="biufc"))
elementwise("stablehlo.negate", None, _unary_int(np.negative), np.negative, np.negative, exact=True, native_complex=True, ufunc=Ufunc(np.negative, fast="iuf", op=operator.neg))
elementwise("stablehlo.not", np.logical_not, _unary_int(np.invert), ufunc=Ufunc(np.invert, fast="biu", op=operator.invert))
elementwise("stablehlo.or", np.logical_or, _binary_int(np.bitwise_or), ufunc=Ufunc(np.bitwise_or, fast="biu", op=operator.or_, reduce="iu", boolean=np.logical_or, at="biu"))
elementwise("stablehlo.popcnt", None, _popcnt, raw_int=True)
elementwise("stablehlo.power", None, _int_power, np.power, np.power, never_zero=True, ufunc=Ufunc(np.power, fast="f", exact=False))
elementwise("stablehlo.remainder", None, _int_remainder, np.fmod, None, exact=True, ufunc=Ufunc(np.fmod, fast="f"))
elementwise("stablehlo.round_nearest_afz", None, None, _round_afz, None, exact=True)
elementwise("stablehlo.round_nearest_even", None, None, np.rint, None, exact=True, ufunc=Ufunc(np.rint, fast="f"))
elementwise("stablehlo.rsqrt", None, None, _rsqrt, _rsqrt)
elementwise("stablehlo.shift_left", None, _shift_left, raw_int=True)
elementwise("stablehlo.shift_right_arithmetic", None, _shift_right_arithmetic, raw_int=True)
elementwise("stablehlo.shift_right_logical", None, _shift_right_logical, raw_int=True)
elementwise("stablehlo.sign", None, _unary_int(np.sign), _fsign, _csign, exact=True)
elementwise("stablehlo.sine", None, None, np.sin, np.sin, ufunc=Ufunc(np.sin, fast="f", exact=False))
elementwise("stablehlo.sqrt", None, None, np.sqrt, np.sqrt, exact=True, ufunc=Ufunc(np.sqrt, fast="f"))
elementwise("stablehlo.subtract", None, _binary_int(np.subtract), np.subtract, np.subtract, exact=True, native_complex=True, ufunc=Ufunc(np.subtract, fast="iuf", op=operator.sub))
elementwise("stablehlo.tan", None, None, np.tan, np.tan, ufunc=Ufunc(np.tan, fast="f", exact=False))
elementwise("stablehlo.tanh", None, None, np.tanh, np.tanh, ufunc=Ufunc(np.tanh, fast="f", exact=False))
elementwise("stablehlo.xor", np.logical_xor, _binary_int(np.bitwise_xor), ufunc=Ufunc(np.bitwise_xor, fast="biu", op=operator.xor, reduce="iu", boolean=np.logical_xor, at="biu"))




# ---------------------------------------------------------------------------------------
# Special ops
# ---------------------------------------------------------------------------------------


def _total_order_key(x: np.ndarray) -> np.ndarray:
    """int64 keys ordered like IEEE-754 totalOrder (-NaN < -inf < ... < -0 < +0 < ...
    < +inf < +NaN): negative values map to -magnitude-1 (XLA's integer trick)."""
    bits = B.to_bits(x).astype(np.int64)
    width = B.num_bits(x.dtype)
    if not B.has_sign_bit(x.dtype):  # no sign bit (f8E8M0FNU)
        return bits
    sign = (bits >> (width - 1)) & 1
    mag = bits & ((1 << (width - 1)) - 1)
    return np.where(sign == 1, -mag - 1, mag)


_COMPARE: dict[str, Callable] = {
    "EQ": np.equal,
    "NE": np.not_equal,
    "GE": np.greater_equal,
    "GT": np.greater,
    "LE": np.less_equal,
    "LT": np.less,
}


def _compare_complex(a: np.ndarray, b: np.ndarray, direction: str) -> np.ndarray:
    """Lexicographic comparison of (real, imag) pairs."""
    eq = (a.real == b.real) & (a.imag == b.imag)
    if direction == "EQ":
        return eq
    if direction == "NE":
        return ~eq
    op = _COMPARE[direction]
    strict = np.less if direction in ("LT", "LE") else np.greater
    return strict(a.real, b.real) | ((a.real == b.real) & op(a.imag, b.imag))


def compare(
    lhs: np.ndarray,
    rhs: np.ndarray,
    *,
    comparison_direction: str,
    compare_type: str | None = None,
    result_type: Type,
    operand_types=None,
) -> np.ndarray:
    """spec: compare.  Integers compare by their own signedness, booleans as 0 < 1,
    floats with IEEE quiet comparisons (FLOAT) or by totalOrder (TOTALORDER: bitwise
    equality for EQ/NE, -0 < +0, NaNs ordered by sign and payload), complex numbers
    lexicographically."""
    reject_quantized("compare", None, operand_types)
    if comparison_direction not in _COMPARE:
        raise UnsupportedError(
            f"unknown comparison_direction {comparison_direction}", op="stablehlo.compare"
        )
    family = B.dtype_family(lhs.dtype)
    with np.errstate(invalid="ignore"):
        if family == "complex":
            out = _compare_complex(lhs, rhs, comparison_direction)
        elif family == "float" and compare_type == "TOTALORDER":
            out = _COMPARE[comparison_direction](_total_order_key(lhs), _total_order_key(rhs))
        elif family == "float":
            a, b = (lhs, rhs) if lhs.dtype in (B.F32, B.F64) else (
                lhs.astype(B.F64), rhs.astype(B.F64))
            out = _COMPARE[comparison_direction](a, b)
        else:
            out = _COMPARE[comparison_direction](B.int_compute(lhs), B.int_compute(rhs))
    return np.asarray(out, dtype=np.bool_)


register_kernel("stablehlo.compare", compare, operand_types=True)


def select(pred, on_true, on_false, *, result_type: Type, operand_types=None) -> np.ndarray:
    """spec: select (pred is a scalar or has the operands' shape)."""
    reject_quantized("select", result_type, operand_types)
    out = np.where(pred, on_true, on_false)
    return np.asarray(out).astype(dtype_of(result_type), copy=False)


register_kernel("stablehlo.select", select, operand_types=True)


def clamp(min_, operand, max_, *, result_type: Type, operand_types=None) -> np.ndarray:
    """spec: clamp = minimum(maximum(operand, min), max), min/max scalar or full-shape."""
    reject_quantized("clamp", result_type, operand_types)
    shape = np.broadcast_shapes(np.shape(min_), np.shape(operand), np.shape(max_))
    operand = np.broadcast_to(operand, shape)
    lo = np.broadcast_to(min_, shape)
    hi = np.broadcast_to(max_, shape)
    t = apply(MAXIMUM, (operand, lo), result_type)
    return apply(MINIMUM, (t, hi), result_type)


register_kernel("stablehlo.clamp", clamp, operand_types=True)


def complex_(lhs, rhs, *, result_type: Type, operand_types=None) -> np.ndarray:
    """spec: complex (real and imaginary parts, f32 -> complex<f32>, f64 -> complex<f64>)."""
    return _make_complex(lhs, rhs, dtype_of(result_type))


register_kernel("stablehlo.complex", complex_, operand_types=True)


def real(operand, *, result_type: Type, operand_types=None) -> np.ndarray:
    """spec: real (identity on floats)."""
    dt = dtype_of(result_type)
    if operand.dtype.kind == "c":
        return B.contiguous(operand.real).astype(dt)
    return np.array(operand, dtype=dt)


def imag(operand, *, result_type: Type, operand_types=None) -> np.ndarray:
    """spec: imag (zero for floats)."""
    dt = dtype_of(result_type)
    if operand.dtype.kind == "c":
        return B.contiguous(operand.imag).astype(dt)
    return np.zeros(operand.shape, dtype=dt)


register_kernel("stablehlo.real", real, operand_types=True)
register_kernel("stablehlo.imag", imag, operand_types=True)


def is_finite(x, *, result_type: Type, operand_types=None) -> np.ndarray:
    """spec: is_finite (neither +-inf nor NaN)."""
    reject_quantized("is_finite", None, operand_types)
    if not B.is_float_dtype(x.dtype):
        raise _unsupported("is_finite", x.dtype)
    a = x if x.dtype in (B.F32, B.F64) else x.astype(B.F64)
    return np.asarray(np.isfinite(a), dtype=np.bool_)


register_kernel("stablehlo.is_finite", is_finite, operand_types=True)
