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
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from ...parser.errors import UnsupportedError
from ...parser.ir import FloatType, QuantizedType, TensorType, Type
from ...shape_inference.optable import register_kernel
from ..dtypes import dtype_of
from ..fastpath import select as fast_select
from ..plan import plain_dtype
from ..ufunc import IEEE_MAX, IEEE_MIN, Ufunc, ieee_max, ieee_min
from . import _bits as B
from ._numerics import (
    binary_int,
    catan2,
    cbrt,
    ccbrt,
    cexp,
    cexpm1,
    clog1p,
    clogistic,
    clz,
    cmax,
    cmin,
    cpow,
    crsqrt,
    csign,
    fsign,
    int_divide,
    int_power,
    int_remainder,
    logistic,
    make_complex,
    popcnt,
    round_afz,
    rsqrt,
    shift_left,
    shift_right_arithmetic,
    shift_right_logical,
    unary_int,
)

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
    op: Any = field(default=None, compare=False, repr=False)  # its op table row (OpDef)


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
    def kernel(
        *operands: np.ndarray, result_type: Type, operand_types=None, **_attrs
    ) -> np.ndarray:
        # ``result_accuracy`` (when declared) asks for at least our accuracy: ignored.
        reject_quantized(row.name, result_type, operand_types)
        return apply(row, operands, result_type)

    kernel.__name__ = f"{row.name}_kernel"
    kernel.__doc__ = f"spec: {row.name} (elementwise table row)."
    return kernel


def _float_minmax(op, rt, dt: np.dtype, kwargs) -> Ufunc | None:
    """Fast path of maximum / minimum on f32/f64 operands of the result's type: the
    IEEE forms as a ufunc row (large ones in place and fused, engine/fusion.py)."""
    if dt.kind != "f" or len(op.operands) != 2 or any(v.type != rt for v in op.operands):
        return None
    return IEEE_MAX if op.name == "stablehlo.maximum" else IEEE_MIN


def elementwise(
    name: str,
    boolean: Callable | None = None,
    integer: Callable | None = None,
    real: Callable | None = None,
    complex: Callable | None = None,
    *,
    ufunc: Ufunc | None = None,
    fast_plan: Callable | None = None,
    quantized: str | None = None,
    **flags: bool,
) -> Row:
    """Register the kernel of the elementwise op ``name`` (its literal op name), computed
    by ``apply`` from one function per type family; ``ufunc`` / ``fast_plan`` fill the
    op table's columns of the same name (``engine.fastpath``, reduce, scatter);
    ``quantized``: how the op treats quantized tensors (``kernels.quantization``)."""
    row = Row(name.removeprefix("stablehlo."), boolean, integer, real, complex, **flags)
    options = {} if quantized is None else {"quantized": quantized}
    op = register_kernel(
        name, _table_kernel(row), operand_types=True, ufunc=ufunc, fast_plan=fast_plan, **options
    )
    return replace(row, op=op)


elementwise(
    "stablehlo.abs",
    None,
    unary_int(np.abs),
    np.abs,
    np.abs,
    exact=True,
    ufunc=Ufunc(np.absolute, fast="iuf", op=operator.abs),
    quantized="dequantize",
)
ADD = elementwise(
    "stablehlo.add",
    np.logical_or,
    binary_int(np.add),
    np.add,
    np.add,
    exact=True,
    native_complex=True,
    ufunc=Ufunc(
        np.add, fast="iuf", op=operator.add, reduce="iufc", boolean=np.logical_or, at="biufc"
    ),
    quantized="dequantize",
)
AND = elementwise(
    "stablehlo.and",
    np.logical_and,
    binary_int(np.bitwise_and),
    ufunc=Ufunc(
        np.bitwise_and, fast="biu", op=operator.and_, reduce="iu", boolean=np.logical_and, at="biu"
    ),
)
ATAN2 = elementwise(
    "stablehlo.atan2",
    None,
    None,
    np.arctan2,
    catan2,
    ufunc=Ufunc(np.arctan2, fast="f", exact=False),
    quantized="dequantize",
)
elementwise(
    "stablehlo.cbrt",
    None,
    None,
    cbrt,
    ccbrt,
    # no fast path: NumPy's own cbrt is not correctly rounded (see _numerics.cbrt)
    ufunc=Ufunc(np.cbrt, fast="", exact=False),
    quantized="dequantize",
)
elementwise(
    "stablehlo.ceil",
    None,
    None,
    np.ceil,
    None,
    exact=True,
    ufunc=Ufunc(np.ceil, fast="f"),
    quantized="dequantize",
)
elementwise(
    "stablehlo.cosine",
    None,
    None,
    np.cos,
    np.cos,
    ufunc=Ufunc(np.cos, fast="f", exact=False),
    quantized="dequantize",
)
elementwise("stablehlo.count_leading_zeros", None, clz, raw_int=True)
DIVIDE = elementwise(
    "stablehlo.divide",
    None,
    int_divide,
    np.divide,
    np.divide,
    exact=True,
    ufunc=Ufunc(np.divide, fast="f", op=operator.truediv),
    quantized="dequantize",
)
elementwise(
    "stablehlo.exponential",
    None,
    None,
    np.exp,
    cexp,
    never_zero=True,
    ufunc=Ufunc(np.exp, fast="f", exact=False),
    quantized="dequantize",
)
elementwise(
    "stablehlo.exponential_minus_one",
    None,
    None,
    np.expm1,
    cexpm1,
    ufunc=Ufunc(np.expm1, fast="f", exact=False),
    quantized="dequantize",
)
elementwise(
    "stablehlo.floor",
    None,
    None,
    np.floor,
    None,
    exact=True,
    ufunc=Ufunc(np.floor, fast="f"),
    quantized="dequantize",
)
elementwise(
    "stablehlo.log",
    None,
    None,
    np.log,
    np.log,
    ufunc=Ufunc(np.log, fast="f", exact=False),
    quantized="dequantize",
)
elementwise(
    "stablehlo.log_plus_one",
    None,
    None,
    np.log1p,
    clog1p,
    ufunc=Ufunc(np.log1p, fast="f", exact=False),
    quantized="dequantize",
)
elementwise(
    "stablehlo.logistic", None, None, logistic, clogistic, never_zero=True, quantized="dequantize"
)
MAXIMUM = elementwise(
    "stablehlo.maximum",
    np.logical_or,
    binary_int(np.maximum),
    ieee_max,
    cmax,
    exact=True,
    native_complex=True,
    fast_plan=_float_minmax,
    ufunc=Ufunc(np.maximum, fast="iu", reduce="iu", boolean=np.logical_or, at="iu", extremum="max"),
    quantized="dequantize",
)
MINIMUM = elementwise(
    "stablehlo.minimum",
    np.logical_and,
    binary_int(np.minimum),
    ieee_min,
    cmin,
    exact=True,
    native_complex=True,
    fast_plan=_float_minmax,
    ufunc=Ufunc(
        np.minimum, fast="iu", reduce="iu", boolean=np.logical_and, at="iu", extremum="min"
    ),
    quantized="dequantize",
)
MULTIPLY = elementwise(
    "stablehlo.multiply",
    np.logical_and,
    binary_int(np.multiply),
    np.multiply,
    np.multiply,
    exact=True,
    native_complex=True,
    ufunc=Ufunc(
        np.multiply, fast="iuf", op=operator.mul, reduce="iuf", boolean=np.logical_and, at="biufc"
    ),
    quantized="dequantize",
)
elementwise(
    "stablehlo.negate",
    None,
    unary_int(np.negative),
    np.negative,
    np.negative,
    exact=True,
    native_complex=True,
    ufunc=Ufunc(np.negative, fast="iuf", op=operator.neg),
    quantized="dequantize",
)
elementwise(
    "stablehlo.not",
    np.logical_not,
    unary_int(np.invert),
    ufunc=Ufunc(np.invert, fast="biu", op=operator.invert),
)
OR = elementwise(
    "stablehlo.or",
    np.logical_or,
    binary_int(np.bitwise_or),
    ufunc=Ufunc(
        np.bitwise_or, fast="biu", op=operator.or_, reduce="iu", boolean=np.logical_or, at="biu"
    ),
)
elementwise("stablehlo.popcnt", None, popcnt, raw_int=True)
POWER = elementwise(
    "stablehlo.power",
    None,
    int_power,
    np.power,
    cpow,
    never_zero=True,
    ufunc=Ufunc(np.power, fast="f", exact=False),
    quantized="dequantize",
)
REMAINDER = elementwise(
    "stablehlo.remainder",
    None,
    int_remainder,
    np.fmod,
    None,
    exact=True,
    ufunc=Ufunc(np.fmod, fast="f"),
    quantized="dequantize",
)
elementwise(
    "stablehlo.round_nearest_afz", None, None, round_afz, None, exact=True, quantized="dequantize"
)
elementwise(
    "stablehlo.round_nearest_even",
    None,
    None,
    np.rint,
    None,
    exact=True,
    ufunc=Ufunc(np.rint, fast="f"),
    quantized="dequantize",
)
elementwise("stablehlo.rsqrt", None, None, rsqrt, crsqrt, quantized="dequantize")
SHIFT_LEFT = elementwise("stablehlo.shift_left", None, shift_left, raw_int=True)
SHIFT_RIGHT_ARITHMETIC = elementwise(
    "stablehlo.shift_right_arithmetic", None, shift_right_arithmetic, raw_int=True
)
SHIFT_RIGHT_LOGICAL = elementwise(
    "stablehlo.shift_right_logical", None, shift_right_logical, raw_int=True
)
elementwise(
    "stablehlo.sign", None, unary_int(np.sign), fsign, csign, exact=True, quantized="dequantize"
)
elementwise(
    "stablehlo.sine",
    None,
    None,
    np.sin,
    np.sin,
    ufunc=Ufunc(np.sin, fast="f", exact=False),
    quantized="dequantize",
)
elementwise(
    "stablehlo.sqrt",
    None,
    None,
    np.sqrt,
    np.sqrt,
    exact=True,
    ufunc=Ufunc(np.sqrt, fast="f"),
    quantized="dequantize",
)
SUBTRACT = elementwise(
    "stablehlo.subtract",
    None,
    binary_int(np.subtract),
    np.subtract,
    np.subtract,
    exact=True,
    native_complex=True,
    ufunc=Ufunc(np.subtract, fast="iuf", op=operator.sub),
    quantized="dequantize",
)
elementwise(
    "stablehlo.tan",
    None,
    None,
    np.tan,
    np.tan,
    ufunc=Ufunc(np.tan, fast="f", exact=False),
    quantized="dequantize",
)
elementwise(
    "stablehlo.tanh",
    None,
    None,
    np.tanh,
    np.tanh,
    ufunc=Ufunc(np.tanh, fast="f", exact=False),
    quantized="dequantize",
)
XOR = elementwise(
    "stablehlo.xor",
    np.logical_xor,
    binary_int(np.bitwise_xor),
    ufunc=Ufunc(
        np.bitwise_xor, fast="biu", op=operator.xor, reduce="iu", boolean=np.logical_xor, at="biu"
    ),
)


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
            a, b = (
                (lhs, rhs)
                if lhs.dtype in (B.F32, B.F64)
                else (lhs.astype(B.F64), rhs.astype(B.F64))
            )
            out = _COMPARE[comparison_direction](a, b)
        else:
            out = _COMPARE[comparison_direction](B.int_compute(lhs), B.int_compute(rhs))
    return np.asarray(out, dtype=np.bool_)


# compare's fast path: Python's operators on NumPy scalars and same-dtype arrays
_COMPARE_OPERATOR: dict[str, Callable] = {
    "EQ": operator.eq,
    "NE": operator.ne,
    "LT": operator.lt,
    "LE": operator.le,
    "GT": operator.gt,
    "GE": operator.ge,
}


def _compare_fast(op, rt, dt: np.dtype, kwargs) -> Callable | None:
    """Fast path of compare: operands of one plain type and the result's shape, FLOAT
    or integer comparison (not TOTALORDER): the direction's Python operator."""
    if len(op.operands) != 2 or dt.kind != "b":
        return None
    t0 = op.operands[0].type
    if (
        op.operands[1].type != t0
        or not isinstance(t0, TensorType)
        or not isinstance(rt, TensorType)
        or plain_dtype(t0) is None
        or t0.shape != rt.shape
        or kwargs.get("compare_type") == "TOTALORDER"
    ):
        return None
    direction = kwargs.get("comparison_direction")
    return _COMPARE_OPERATOR.get(direction) if isinstance(direction, str) else None


register_kernel(
    "stablehlo.compare",
    compare,
    operand_types=True,
    quantized="compare",
    fast_plan=_compare_fast,
)


def select(pred, on_true, on_false, *, result_type: Type, operand_types=None) -> np.ndarray:
    """spec: select (pred is a scalar or has the operands' shape)."""
    reject_quantized("select", result_type, operand_types)
    out = np.where(pred, on_true, on_false)
    return np.asarray(out).astype(dtype_of(result_type), copy=False)


def _select_fast(op, rt, dt: np.dtype, kwargs) -> Callable | None:
    """Fast path of select: a boolean predicate, both operands of the result's plain
    type: ``fastpath.select`` (a scalar predicate picks an operand whole)."""
    if len(op.operands) != 3:
        return None
    pt = op.operands[0].type
    if (
        op.operands[1].type != rt
        or op.operands[2].type != rt
        or not isinstance(pt, TensorType)
        or plain_dtype(pt) is None
        or dtype_of(pt).kind != "b"
    ):
        return None
    return fast_select


register_kernel(
    "stablehlo.select",
    select,
    operand_types=True,
    quantized="dequantize",
    fast_plan=_select_fast,
)


def clamp(min_, operand, max_, *, result_type: Type, operand_types=None) -> np.ndarray:
    """spec: clamp = minimum(maximum(operand, min), max), min/max scalar or full-shape."""
    reject_quantized("clamp", result_type, operand_types)
    shape = np.broadcast_shapes(np.shape(min_), np.shape(operand), np.shape(max_))
    operand = np.broadcast_to(operand, shape)
    lo = np.broadcast_to(min_, shape)
    hi = np.broadcast_to(max_, shape)
    t = apply(MAXIMUM, (operand, lo), result_type)
    return apply(MINIMUM, (t, hi), result_type)


register_kernel("stablehlo.clamp", clamp, operand_types=True, quantized="dequantize")


def complex_(lhs, rhs, *, result_type: Type, operand_types=None) -> np.ndarray:
    """spec: complex (real and imaginary parts, f32 -> complex<f32>, f64 -> complex<f64>)."""
    return make_complex(lhs, rhs, dtype_of(result_type))


COMPLEX = register_kernel("stablehlo.complex", complex_, operand_types=True)


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


register_kernel("stablehlo.is_finite", is_finite, operand_types=True, quantized="is_finite")
