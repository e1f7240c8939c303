"""An independent, one-element-at-a-time reference for every elementwise op, convert,
bitcast_convert and reduce_precision.

It shares no code with ``engine.kernels``: integers are Python ints wrapped explicitly;
+ - * / sqrt fmod, convert and reduce_precision are exact rational arithmetic
(``fractions.Fraction``) rounded ONCE by ``formats.round_to_format``; transcendental
functions are evaluated with mpmath at 256 bits and then rounded.

Each function returns a ``Want`` per element: the expected value plus what counts as
equal.  The rules where the spec is silent or "TBD" are the project's documented
choices (engine/kernels/elementwise.py, conversion.py), restated here from their
definitions:

* integer x/0 = -1 (all ones), INT_MIN/-1 = INT_MIN, x%0 = x, INT_MIN%-1 = 0; shifts by
  an amount >= width (read as unsigned) give 0 / the sign fill; power with a negative
  exponent is 0 unless |base| = 1;
* float -> int truncates, saturates, NaN -> 0; float -> float and int -> float round
  to nearest even once, overflow per ``round_to_format``;
* compare TOTALORDER: the IEEE totalOrder of the encodings (EQ = same encoding); the
  NaN of the FNUZ formats (the -0 pattern) and f8E8M0FNU (no sign) are outside IEEE's
  definition: those comparisons are not checked;
* reduce_precision: the spec's value semantics (round the significand to
  ``mantissa_bits`` at the operand's own quantum, ties to even; then overflow to +-inf /
  underflow to +-0 outside the normal range of an IEEE format with ``exponent_bits``);
  NaN stays the same NaN, or becomes +inf when ``mantissa_bits = 0`` (the reference
  interpreter's rule).

NaN results: the spec does not fix NaN payloads or signs except for the sign-bit ops
(abs, negate: IEEE says they act on the sign bit only) and ops that copy values
(select, real, clamp of non-NaN bounds, bitcast_convert, convert to the same type,
reduce_precision); everywhere else a result is only checked to be "a NaN".

Accuracy contract of the approximate (transcendental) ops, checked per element:
``ULP_BOUND[op]`` ULPs of the correctly rounded result for f64; for every other float
type the correctly rounded result, except when the exact value lies within a relative
2**-44 of a rounding boundary (a tie, or the overflow threshold), where either
neighbour is accepted.  Complex transcendental results are checked normwise:
|got - exact| <= COMPLEX_TOL[op] * 2**-p * |exact| (p = 24 or 53; for power times the
condition number 1 + |y log x|; atan2, whose log argument has modulus 1, also allows
an absolute COMPLEX_TOL * 2**-p).  The spec leaves complex special values open: the
complex transcendental tests draw finite parts (|part| <= 40, tiny ones included), and
results that overflow, poles, branch points, and points whose rounded intermediate
lies within 2**-40 of log's branch cut are not checked; a -0 part picks the side of a
branch cut as in C99 (log(-1 - 0i) = -i pi).  Complex maximum/minimum with a NaN part
is not checked either.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from .elements import ET, part_type
from .formats import (
    E8M0,
    FNUZ,
    FV,
    NAN,
    FloatFormat,
    decode,
    floor_log2,
    inf,
    num,
    round_half_even,
    round_to_format,
    zero,
)

try:  # mpmath is optional: without it the transcendental tests skip
    import mpmath
except ImportError:  # pragma: no cover
    mpmath = None

# ---------------------------------------------------------------------------------------
# What the kernel must produce for one element
# ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Want:
    """The expected element: ``value`` (bool, int, float bits, or a pair of part
    ``Want``s for complex) and the tolerance.  Floats: ``alts`` are other accepted bit
    patterns, ``ulps`` an accepted ULP distance, ``nan_any`` accepts any NaN; ``free``
    accepts anything (undefined behaviour); ``normwise`` = (exact value, relative tolerance,
    absolute tolerance) for complex results checked as a whole."""

    value: Any
    ulps: int = 0
    alts: tuple[int, ...] = ()
    nan_any: bool = False
    free: bool = False
    normwise: tuple | None = None

    def describe(self) -> str:
        if self.free:
            return "anything (undefined)"
        if self.nan_any:
            return "any NaN"
        extra = f" or {list(map(hex, self.alts))}" if self.alts else ""
        ulps = f" within {self.ulps} ULP" if self.ulps else ""
        return f"{self.value!r}{extra}{ulps}"


FREE = Want(None, free=True)


def exact(v) -> Want:
    return Want(v)


def fwant(x: FV, fmt: FloatFormat, *, keep_nan_bits: int | None = None) -> Want:
    """An exactly rounded float result: its bits, or "any NaN"."""
    if x.is_nan:
        if keep_nan_bits is not None:
            return Want(keep_nan_bits)
        return Want(None, nan_any=True) if fmt.kind != "finite" else FREE
    b = round_to_format(x, fmt)
    if b is None:
        return FREE
    if fmt.has_nan and decode(b, fmt).is_nan:
        return Want(b, nan_any=True)
    return Want(b)


# ---------------------------------------------------------------------------------------
# Integers and booleans
# ---------------------------------------------------------------------------------------


def _trunc_div(a: int, b: int) -> int:
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


def _bits_of(v: int, t: ET) -> int:
    return v & ((1 << t.width) - 1)


def _from_bits(u: int, t: ET) -> int:
    return t.wrap(u)


def int_op(op: str, t: ET, *xs: int) -> int:
    """An integer op on Python ints of type ``t``; the result wraps into ``t``."""
    w = t.width
    a = xs[0]
    b = xs[1] if len(xs) > 1 else None
    if op == "add":
        return t.wrap(a + b)
    if op == "subtract":
        return t.wrap(a - b)
    if op == "multiply":
        return t.wrap(a * b)
    if op == "divide":
        if b == 0:
            return t.wrap(-1)
        return t.wrap(_trunc_div(a, b))
    if op == "remainder":
        if b == 0:
            return a
        return t.wrap(a - _trunc_div(a, b) * b)
    if op == "power":
        if b < 0:
            if a == 1:
                return 1
            if a == -1:
                return -1 if (-b) % 2 else 1
            return 0
        return t.wrap(pow(a, b, 1 << w))
    if op == "maximum":
        return max(a, b)
    if op == "minimum":
        return min(a, b)
    if op == "and":
        return t.wrap(a & b)
    if op == "or":
        return t.wrap(a | b)
    if op == "xor":
        return t.wrap(a ^ b)
    if op == "not":
        return t.wrap(~a)
    if op == "negate":
        return t.wrap(-a)
    if op == "abs":
        return t.wrap(abs(a))
    if op == "sign":
        return (a > 0) - (a < 0)
    if op == "shift_left":
        n = _bits_of(b, t)
        return 0 if n >= w else t.wrap(a << n)
    if op == "shift_right_logical":
        n = _bits_of(b, t)
        return 0 if n >= w else _from_bits(_bits_of(a, t) >> n, t)
    if op == "shift_right_arithmetic":
        n = _bits_of(b, t)
        signed_value = _bits_of(a, t) - ((1 << w) if _bits_of(a, t) >> (w - 1) else 0)
        return t.wrap(signed_value >> min(n, w))
    if op == "count_leading_zeros":  # the result has the operand's type: wraps (si2)
        return t.wrap(w - _bits_of(a, t).bit_length())
    if op == "popcnt":
        return t.wrap(bin(_bits_of(a, t)).count("1"))
    raise KeyError(op)


BOOL_OPS = {
    "add": lambda a, b: a or b,
    "multiply": lambda a, b: a and b,
    "maximum": lambda a, b: a or b,
    "minimum": lambda a, b: a and b,
    "and": lambda a, b: a and b,
    "or": lambda a, b: a or b,
    "xor": lambda a, b: a != b,
    "not": lambda a: not a,
}


# ---------------------------------------------------------------------------------------
# Exact float arithmetic
# ---------------------------------------------------------------------------------------


def f_add(x: FV, y: FV, *, subtract: bool = False) -> FV:
    if subtract:
        y = -y
    if x.is_nan or y.is_nan:
        return NAN
    if x.is_inf and y.is_inf:
        return x if x.neg == y.neg else NAN
    if x.is_inf:
        return x
    if y.is_inf:
        return y
    s = x.q + y.q
    if s == 0:
        # exact zero sum: -0 only when both are -0 (round to nearest)
        return zero(x.is_zero and y.is_zero and x.neg and y.neg)
    return num(s)


def f_mul(x: FV, y: FV) -> FV:
    if x.is_nan or y.is_nan:
        return NAN
    neg = x.negative != y.negative
    if x.is_inf or y.is_inf:
        if x.is_zero or y.is_zero:
            return NAN
        return inf(neg)
    p = x.q * y.q
    return num(p) if p else zero(neg)


def f_div(x: FV, y: FV) -> FV:
    if x.is_nan or y.is_nan:
        return NAN
    neg = x.negative != y.negative
    if x.is_inf:
        return NAN if y.is_inf else inf(neg)
    if y.is_inf:
        return zero(neg)
    if y.is_zero:
        return NAN if x.is_zero else inf(neg)
    d = x.q / y.q
    return num(d) if d else zero(neg)


def f_fmod(x: FV, y: FV) -> FV:
    """x - trunc(x/y)*y, exact (the result is always representable); sign of x."""
    if x.is_nan or y.is_nan or x.is_inf or y.is_zero:
        return NAN
    if y.is_inf or x.is_zero:
        return x
    n = abs(x.q) // abs(y.q)
    r = abs(x.q) - n * abs(y.q)
    return num(-r if x.negative else r) if r else zero(x.negative)


def sqrt_fraction(q: Fraction, fmt: FloatFormat) -> Fraction:
    """A value whose rounding to ``fmt`` equals sqrt(q)'s: sqrt to far more bits than
    the format keeps, with a sticky bit (floor, plus a tiny odd excess when inexact)."""
    bits = fmt.mbits + 8 + max(0, fmt.bias + fmt.mbits)
    scale = 4 ** (bits + 8)
    n = q * scale  # sqrt(q) = sqrt(n) / 2**(bits+8)
    i = math.isqrt(n.numerator // n.denominator)
    exact_root = i * i * n.denominator == n.numerator
    r = Fraction(i, 2 ** (bits + 8))
    if not exact_root:
        r += Fraction(1, 2 ** (bits + 10))  # sticky: strictly between i and i+1
    return r


def f_sqrt(x: FV, fmt: FloatFormat) -> FV:
    if x.is_nan:
        return NAN
    if x.is_zero:
        return x
    if x.negative:
        return NAN
    if x.is_inf:
        return x
    return num(sqrt_fraction(x.q, fmt))


def f_max(x: FV, y: FV, *, minimum: bool = False) -> FV:
    """IEEE 754-2019 maximum / minimum: NaN propagates, -0 < +0."""
    if x.is_nan or y.is_nan:
        return NAN

    def key(v: FV):
        if v.is_inf:
            return (-1 if v.neg else 1, 0, 0)
        return (0, v.q, 1 if not v.negative else 0)

    kx, ky = key(x), key(y)
    if minimum:
        return x if kx <= ky else y
    return x if kx >= ky else y


def f_round(x: FV, mode: str) -> FV:
    """floor / ceil / round half away / round half even, to an integral value."""
    if not x.is_num or x.is_zero:
        return x
    q = x.q
    fl = q.numerator // q.denominator
    if mode == "floor":
        r = fl
    elif mode == "ceil":
        r = -((-q.numerator) // q.denominator)
    elif mode == "afz":
        a = abs(q)
        n = a.numerator // a.denominator
        if a - n >= Fraction(1, 2):
            n += 1
        r = n if q > 0 else -n
    else:
        r = round_half_even(q)
    return num(r) if r else zero(x.negative)


def f_sign(x: FV) -> FV:
    if x.is_nan or x.is_zero:
        return x if x.is_zero else NAN
    return num(-1 if x.negative else 1)


# ---------------------------------------------------------------------------------------
# Transcendental functions (mpmath at 256 bits)
# ---------------------------------------------------------------------------------------

PREC = 256
REL = Fraction(1, 2**44)  # relative slack around the exact value for non-f64 results

# ULP bounds for f64 results (NumPy's double-precision functions).  Measured on 300
# random operands each (glibc's libm): 0 ULP for cos, expm1, log, log1p, sin; 1 for
# atan2, cbrt, exp, pow, rsqrt, tan, tanh; 2 for logistic.  The bounds leave one ULP
# for other libms.
ULP_BOUND = {
    "atan2": 2,
    "cbrt": 2,
    "cosine": 2,
    "exponential": 2,
    "exponential_minus_one": 2,
    "log": 2,
    "log_plus_one": 2,
    "logistic": 3,
    "power": 2,
    "rsqrt": 2,
    "sine": 2,
    "tan": 2,
    "tanh": 2,
}
# Normwise relative tolerance (in units of 2**-p) for complex results.
COMPLEX_TOL = {
    "add": 1,
    "subtract": 1,
    "multiply": 4,
    "divide": 8,
    "sqrt": 8,
    "rsqrt": 8,
    "sign": 4,
    "exponential": 16,
    "exponential_minus_one": 16,
    "log": 16,
    "log_plus_one": 16,
    "logistic": 32,
    "sine": 16,
    "cosine": 16,
    "tan": 32,
    "tanh": 32,
    "cbrt": 16,
    "atan2": 64,
    "power": 64,
}


def to_mpf(x: FV):
    return mpmath.mpf(x.q.numerator) / x.q.denominator


def mp_to_fraction(v, fmt: FloatFormat) -> FV:
    """An mpf -> FV, replacing magnitudes far outside ``fmt``'s range by values that
    round the same way (so huge/tiny results need no huge Fractions)."""
    if mpmath.isnan(v):
        return NAN
    if mpmath.isinf(v):
        return inf(v < 0)
    if v == 0:
        return zero(False)
    man, exp = v.man_exp  # |v| = man * 2**exp
    man = abs(man)
    neg = v < 0
    mag = exp + man.bit_length()
    if mag > fmt.emax + 3:
        return num(Fraction(-(2 ** (fmt.emax + 3)) if neg else 2 ** (fmt.emax + 3)))
    lowest = fmt.emin - fmt.mbits - 3
    if mag < lowest:
        t = Fraction(1, 2 ** (-lowest + 1))
        return num(-t if neg else t)
    q = Fraction(man) * (Fraction(2) ** exp)
    return num(-q if neg else q)


def approx_want(v: FV, fmt: FloatFormat, op: str, f64_ulps: int | None = None) -> Want:
    """The accepted results for an approximate op with exact value ``v``."""
    if not v.is_num or v.is_zero:
        return fwant(v, fmt)
    center = round_to_format(v, fmt)
    if fmt.name == "f64":
        k = f64_ulps if f64_ulps is not None else ULP_BOUND[op]
        rel = Fraction(k, 2**52)
    else:
        rel = REL
    lo = round_to_format(num(v.q * (1 - rel)), fmt)
    hi = round_to_format(num(v.q * (1 + rel)), fmt)
    alts = tuple(sorted({lo, hi} - {center}))
    # overflow into a format whose overflow value is NaN: any NaN will do
    nan_any = any(decode(b, fmt).is_nan for b in (center, lo, hi))
    if fmt.name == "f64":
        return Want(
            center, ulps=ULP_BOUND[op] if f64_ulps is None else f64_ulps, alts=alts, nan_any=nan_any
        )
    return Want(center, alts=alts, nan_any=nan_any)


def _is_int(q: Fraction) -> bool:
    return q.denominator == 1


def _odd_int(q: Fraction) -> bool:
    return q.denominator == 1 and q.numerator % 2 == 1


def _real_special(op: str, x: FV, y: FV | None = None) -> FV | None:
    """IEEE 754 / C99 Annex F results for special operands (None: evaluate)."""
    if op == "power":
        return _pow_special(x, y)
    if op == "atan2":
        return _atan2_special(x, y)
    if x.is_nan:
        return NAN
    pos_inf = x.is_inf and not x.neg
    neg_inf = x.is_inf and x.neg
    if op == "exponential":
        if x.is_zero:
            return num(1)
        return inf(False) if pos_inf else (zero(False) if neg_inf else None)
    if op == "exponential_minus_one":
        if x.is_zero:
            return x
        return inf(False) if pos_inf else (num(-1) if neg_inf else None)
    if op == "log":
        if x.is_zero:
            return inf(True)
        if x.negative:
            return NAN
        if pos_inf:
            return x
        if x.q == 1:
            return zero(False)
        return None
    if op == "log_plus_one":
        if x.is_zero:
            return x
        if x.is_inf:
            return x if pos_inf else NAN
        if x.q == -1:
            return inf(True)
        if x.q < -1:
            return NAN
        return None
    if op in ("sine", "tan"):
        if x.is_zero:
            return x
        return NAN if x.is_inf else None
    if op == "cosine":
        if x.is_zero:
            return num(1)
        return NAN if x.is_inf else None
    if op == "tanh":
        if x.is_zero:
            return x
        return num(-1 if x.neg else 1) if x.is_inf else None
    if op == "cbrt":
        if x.is_zero or x.is_inf:
            return x
        return None
    if op == "rsqrt":
        if x.is_zero:
            return inf(x.neg)
        if x.negative:
            return NAN
        return zero(False) if pos_inf else None
    if op == "logistic":
        if x.is_inf:
            return zero(False) if x.neg else num(1)
        if x.is_zero:
            return num(Fraction(1, 2))
        return None
    raise KeyError(op)


def _pow_special(x: FV, y: FV) -> FV | None:
    """C99 F.9.4.4 / IEEE 754 pow."""
    if y.is_zero:
        return num(1)
    if x.is_num and x.q == 1:
        return num(1)
    if x.is_nan or y.is_nan:
        return NAN
    y_odd = y.is_num and _odd_int(y.q)
    if x.is_zero:
        if y.negative:
            return inf(x.neg if y_odd else False)
        return zero(x.neg if y_odd else False)
    if y.is_inf:
        a = abs(x.q) if x.is_num else None
        if a is not None and a == 1:
            return num(1)
        big = x.is_inf or a > 1
        if y.neg:
            return zero(False) if big else inf(False)
        return inf(False) if big else zero(False)
    if x.is_inf:
        if x.neg:
            if y.negative:
                return zero(y_odd)
            return inf(y_odd)
        return zero(False) if y.negative else inf(False)
    if x.negative and not _is_int(y.q):
        return NAN
    return None


def _atan2_special(y: FV, x: FV) -> FV | None:
    """C99 F.9.1.4 atan2(y, x); returns an FV or a marker tuple for multiples of pi."""
    if y.is_nan or x.is_nan:
        return NAN
    return None  # every other case is evaluated (mpmath handles zeros and infinities)


def _mp_atan2(y: FV, x: FV):
    """atan2 with C99's signed-zero and infinity rules, in mpmath."""
    pi = mpmath.pi
    sy = -1 if y.negative else 1
    if y.is_zero:
        if x.negative:  # -0, negative, -inf
            return sy * pi
        return None  # +-0 exactly (sign of y)
    if y.is_inf:
        if x.is_inf:
            return sy * (3 * pi / 4 if x.neg else pi / 4)
        return sy * pi / 2
    if x.is_zero:
        return sy * pi / 2
    if x.is_inf:
        return sy * pi if x.neg else None
    return mpmath.atan2(to_mpf(y), to_mpf(x))


_CLAMP = {"exponential": 5000, "exponential_minus_one": 5000, "logistic": 5000, "tanh": 400}


def _mp_eval(op: str, x: FV, y: FV | None = None):
    """The exact function value (mpf).  Arguments far beyond where the result
    saturates are clamped first (same rounding, much less work)."""
    q = x.q
    if op in _CLAMP and abs(q) > _CLAMP[op]:
        q = Fraction(_CLAMP[op]) * (1 if q > 0 else -1)
    m = mpmath.mpf(q.numerator) / q.denominator
    if op == "power":
        return _mp_power(x, y)
    if op == "exponential":
        return mpmath.exp(m)
    if op == "exponential_minus_one":
        return mpmath.expm1(m)
    if op == "log":
        return mpmath.log(m)
    if op == "log_plus_one":
        return mpmath.log1p(m)
    if op == "sine":
        return mpmath.sin(m)
    if op == "cosine":
        return mpmath.cos(m)
    if op == "tan":
        return mpmath.tan(m)
    if op == "tanh":
        return mpmath.tanh(m)
    if op == "cbrt":
        r = mpmath.cbrt(abs(m))
        return -r if m < 0 else r
    if op == "rsqrt":
        return 1 / mpmath.sqrt(m)
    if op == "logistic":
        return 1 / (1 + mpmath.exp(-m))
    raise KeyError(op)


def _mp_power(x: FV, y: FV):
    """|x|**y with the sign of x when y is an odd integer; results far outside every
    format's range are replaced by +-2**+-20000."""
    ax = abs(to_mpf(x))
    ym = to_mpf(y)
    with mpmath.workprec(64):
        scale = ym * mpmath.log(ax, 2) if ax != 1 else mpmath.mpf(0)
    if scale > 20000:
        r = mpmath.mpf(2) ** 20000
    elif scale < -20000:
        r = mpmath.mpf(2) ** -20000
    else:
        r = mpmath.power(ax, ym)
    return -r if (x.negative and _odd_int(y.q)) else r


def transcendental(op: str, fmt: FloatFormat, *args: FV) -> Want:
    """The accepted results of a real transcendental op on ``args`` (decoded)."""
    if op == "atan2":
        y, x = args
        if y.is_nan or x.is_nan:
            return fwant(NAN, fmt)
        with mpmath.workprec(PREC):
            v = _mp_atan2(y, x)
            if v is None:
                return fwant(zero(y.negative), fmt)
            return approx_want(mp_to_fraction(v, fmt), fmt, op)
    special = _real_special(op, *args)
    if special is not None:
        return fwant(special, fmt)
    with mpmath.workprec(PREC):
        v = _mp_eval(op, *args)
        return approx_want(mp_to_fraction(v, fmt), fmt, op)


TRANSCENDENTAL = frozenset(
    {
        "atan2",
        "cbrt",
        "cosine",
        "exponential",
        "exponential_minus_one",
        "log",
        "log_plus_one",
        "logistic",
        "power",
        "rsqrt",
        "sine",
        "tan",
        "tanh",
    }
)


# ---------------------------------------------------------------------------------------
# Float ops: dispatch
# ---------------------------------------------------------------------------------------


def float_op(op: str, t: ET, *bits: int) -> Want:
    """The expected result of float op ``op`` on bit patterns ``bits`` of type ``t``."""
    fmt = t.fmt
    xs = [decode(b, fmt) for b in bits]
    x = xs[0]
    if op == "abs":
        if x.is_nan:
            return Want(_abs_bits(bits[0], fmt))
        return fwant(num(abs(x.q)) if x.is_num else inf(False), fmt)
    if op == "negate":
        if x.is_nan:
            return Want(_neg_nan_bits(bits[0], fmt))
        return fwant(-x, fmt)
    if op in ("add", "subtract"):
        return fwant(f_add(x, xs[1], subtract=op == "subtract"), fmt)
    if op == "multiply":
        return fwant(f_mul(x, xs[1]), fmt)
    if op == "divide":
        return fwant(f_div(x, xs[1]), fmt)
    if op == "remainder":
        return fwant(f_fmod(x, xs[1]), fmt)
    if op == "sqrt":
        return fwant(f_sqrt(x, fmt), fmt)
    if op == "maximum":
        return fwant(f_max(x, xs[1]), fmt)
    if op == "minimum":
        return fwant(f_max(x, xs[1], minimum=True), fmt)
    if op in ("floor", "ceil"):
        return fwant(f_round(x, op), fmt)
    if op == "round_nearest_afz":
        return fwant(f_round(x, "afz"), fmt)
    if op == "round_nearest_even":
        return fwant(f_round(x, "even"), fmt)
    if op == "sign":
        return fwant(f_sign(x), fmt)
    if op in TRANSCENDENTAL:
        return transcendental(op, fmt, *xs)
    raise KeyError(op)


def _abs_bits(b: int, fmt: FloatFormat) -> int:
    """abs of a NaN: clear the sign bit (IEEE abs), where the format has one and the
    NaN stays a NaN (FNUZ: the NaN is the sign pattern itself)."""
    if fmt.kind == FNUZ or not fmt.signed:
        return b
    return b & ~fmt.sign_bit


def _neg_nan_bits(b: int, fmt: FloatFormat) -> int:
    if fmt.kind == FNUZ or not fmt.signed:
        return b
    return b ^ fmt.sign_bit


def is_finite(bits: int, fmt: FloatFormat) -> bool:
    v = decode(bits, fmt)
    return v.is_num


# ---------------------------------------------------------------------------------------
# compare
# ---------------------------------------------------------------------------------------


def _cmp_result(direction: str, c: int | None) -> bool:
    """Result of a comparison from the three-way order c (-1, 0, 1; None = unordered)."""
    if c is None:
        return direction == "NE"
    return {"EQ": c == 0, "NE": c != 0, "GE": c >= 0, "GT": c > 0, "LE": c <= 0, "LT": c < 0}[
        direction
    ]


def _fv_order(a: FV, b: FV) -> int | None:
    """IEEE quiet comparison: None when unordered, -0 == +0."""
    if a.is_nan or b.is_nan:
        return None

    def key(v: FV):
        if v.is_inf:
            return (-1 if v.neg else 1, Fraction(0))
        return (0, v.q)

    ka, kb = key(a), key(b)
    return (ka > kb) - (ka < kb)


def _total_key(bits: int, fmt: FloatFormat) -> int:
    """IEEE totalOrder as an integer: negative encodings below positive ones, ordered
    by magnitude bits (reversed for negatives), so -NaN < -inf < ... < -0 < +0 < ... <
    +inf < +NaN and NaNs by payload."""
    mag = bits & (fmt.sign_bit - 1) if fmt.signed else bits
    if fmt.signed and bits & fmt.sign_bit:
        return -mag - 1
    return mag


def compare(t: ET, a, b, direction: str, compare_type: str | None) -> Want:
    if t.kind in ("bool", "int"):
        c = (a > b) - (a < b)
        return Want(_cmp_result(direction, c))
    if t.kind == "complex":
        return _compare_complex(t, a, b, direction)
    fmt = t.fmt
    if compare_type == "TOTALORDER":
        va, vb = decode(a, fmt), decode(b, fmt)
        if (fmt.kind in (FNUZ, E8M0)) and (va.is_nan or vb.is_nan):
            return FREE  # outside IEEE totalOrder's definition
        ka, kb = _total_key(a, fmt), _total_key(b, fmt)
        return Want(_cmp_result(direction, (ka > kb) - (ka < kb)))
    return Want(_cmp_result(direction, _fv_order(decode(a, fmt), decode(b, fmt))))


def _compare_complex(t: ET, a, b, direction: str) -> Want:
    """Lexicographic comparison of (real, imag) with IEEE quiet comparisons."""
    fmt = t.fmt
    ra, ia = decode(a[0], fmt), decode(a[1], fmt)
    rb, ib = decode(b[0], fmt), decode(b[1], fmt)
    cr = _fv_order(ra, rb)
    ci = _fv_order(ia, ib)
    if direction == "EQ":
        return Want(cr == 0 and ci == 0)
    if direction == "NE":
        return Want(not (cr == 0 and ci == 0))
    if cr is None:
        return Want(False)
    if cr != 0:
        return Want(_cmp_result(direction, cr) and direction in ("GE", "GT", "LE", "LT"))
    return Want(_cmp_result(direction, ci) if ci is not None else False)


# ---------------------------------------------------------------------------------------
# Complex ops
# ---------------------------------------------------------------------------------------


def _c_decode(v, fmt):
    return decode(v[0], fmt), decode(v[1], fmt)


def _c_parts(re: FV, im: FV, fmt: FloatFormat) -> Want:
    return Want((fwant(re, fmt), fwant(im, fmt)))


def _finite_c(z) -> bool:
    return z[0].is_num and z[1].is_num


def complex_op(op: str, t: ET, *vals) -> Want:
    """Complex ops: add/subtract/negate exactly per part; maximum/minimum by the
    lexicographic order (an operand copied); the rest normwise against mpmath (only
    for finite operands; the spec does not define the special-value cases, which are
    then only checked when every operand part is finite)."""
    fmt = t.fmt
    zs = [_c_decode(v, fmt) for v in vals]
    if op in ("add", "subtract"):
        (a, b), (c, d) = zs
        sub = op == "subtract"
        return _c_parts(f_add(a, c, subtract=sub), f_add(b, d, subtract=sub), fmt)
    if op == "negate":
        ((a, b),) = zs
        return Want((fwant_neg(vals[0][0], fmt), fwant_neg(vals[0][1], fmt)))
    if op in ("maximum", "minimum"):
        (a, b), (c, d) = zs
        if any(v.is_nan for v in (a, b, c, d)):
            return FREE
        cr = _fv_order(a, c)
        ci = _fv_order(b, d)
        lhs_bigger = cr > 0 or (cr == 0 and ci > 0)
        lhs_smaller = cr < 0 or (cr == 0 and ci < 0)
        pick_lhs = lhs_bigger if op == "maximum" else lhs_smaller
        chosen = vals[0] if pick_lhs else vals[1]
        if cr == 0 and ci == 0:  # equal up to zero signs: either operand
            return (
                Want((FREE, FREE))
                if vals[0] != vals[1]
                else Want((Want(chosen[0]), Want(chosen[1])))
            )
        return Want((Want(chosen[0]), Want(chosen[1])))
    if not all(_finite_c(z) for z in zs):
        return FREE
    if mpmath is None:
        return FREE
    with mpmath.workprec(PREC):
        raw = [mpmath.mpc(to_mpf(re), to_mpf(im)) for re, im in zs]
        if _mpc_eval(op, *raw) is None:
            return FREE  # a pole or a branch point
        cut = op in _BRANCH_CUT_OPS
        v = (
            _mpc_eval(op, *[mpmath.mpc(_signed(re), _signed(im)) for re, im in zs])
            if cut
            else _mpc_eval(op, *raw)
        )
        if v is None:
            return FREE
        big = mpmath.mpf(fmt.max_finite.numerator) / fmt.max_finite.denominator / 4
        if abs(v.real) > big or abs(v.imag) > big:
            return FREE  # overflowing results: the spec leaves complex overflow open
        p = fmt.precision
        tol = Fraction(COMPLEX_TOL[op], 2**p)
        if op == "power":  # exp(y log x): the condition number is ~ |y log x|
            kappa = 1 + abs(raw[1] * mpmath.log(raw[0]))
            tol *= Fraction(int(mpmath.ceil(kappa)))
        # atan2 = -i log(w) with |w| = 1: log's error near w = 1 is absolute, ~2**-p
        floor = tol if op == "atan2" else Fraction(0)
        return Want(None, normwise=(v, tol, floor))


# Complex functions with a branch cut, where the sign of a zero part picks the side.
_BRANCH_CUT_OPS = frozenset({"log", "log_plus_one", "sqrt", "rsqrt", "cbrt", "power", "atan2"})


def _signed(x: FV):
    """mpmath has no -0: a negative zero part becomes -2**-4000, which puts the value
    on the side of a branch cut that C99 / IEEE give -0 (log(-1 - 0i) = -i pi) and
    changes nothing else at the precision of any format."""
    if x.is_zero and x.neg:
        return -(mpmath.mpf(2) ** -4000)
    return to_mpf(x)


def fwant_neg(bits: int, fmt: FloatFormat) -> Want:
    x = decode(bits, fmt)
    if x.is_nan:
        return Want(_neg_nan_bits(bits, fmt))
    return fwant(-x, fmt)


def _near_cut(w) -> bool:
    """Is ``w`` (computed from rounded operations in the kernel) so close to log's
    branch cut (the negative real axis) that the side it lands on is a rounding
    accident?  Then the result is not checked."""
    return w.real < 0 and abs(w.imag) <= abs(w) * mpmath.mpf(2) ** -40


def _mpc_eval(op: str, *z):
    """The exact complex function (principal branches); None when undefined."""
    a = z[0]
    if op == "multiply":
        return a * z[1]
    if op == "divide":
        return None if z[1] == 0 else a / z[1]
    if op == "sqrt":
        return mpmath.sqrt(a)
    if op == "rsqrt":
        return None if a == 0 else 1 / mpmath.sqrt(a)
    if op == "sign":
        return mpmath.mpc(0) if a == 0 else a / abs(a)
    if op == "exponential":
        return mpmath.exp(a)
    if op == "exponential_minus_one":
        return mpmath.expm1(a)
    if op == "log":
        return None if a == 0 else mpmath.log(a)
    if op == "log_plus_one":
        return None if a == -1 else mpmath.log1p(a)
    if op == "logistic":
        d = 1 + mpmath.exp(-a)
        return None if d == 0 else 1 / d
    if op == "sine":
        return mpmath.sin(a)
    if op == "cosine":
        return mpmath.cos(a)
    if op == "tan":
        return mpmath.tan(a)
    if op == "tanh":
        return mpmath.tanh(a)
    if op == "cbrt":
        return mpmath.cbrt(a)
    if op == "atan2":
        y, x = a, z[1]
        s2 = x * x + y * y
        if s2 == 0 or _near_cut(s2):
            return None
        r = mpmath.sqrt(s2)
        w = (x + 1j * y) / r
        if _near_cut(w):
            return None
        return -1j * mpmath.log(w)
    if op == "power":
        if a == 0 or _near_cut(a):
            return None
        return mpmath.power(a, z[1])
    raise KeyError(op)


def complex_abs(t: ET, v) -> Want:
    """abs(complex) -> float: the modulus, within 1 ULP (C's hypot is not correctly
    rounded)."""
    fmt = t.fmt
    re, im = _c_decode(v, fmt)
    if re.is_inf or im.is_inf:
        return fwant(inf(False), fmt)
    if re.is_nan or im.is_nan:
        return fwant(NAN, fmt)
    s = re.q * re.q + im.q * im.q
    if s == 0:
        return fwant(zero(False), fmt)
    w = approx_want(num(sqrt_fraction(s, fmt)), fmt, "abs", f64_ulps=1)
    return Want(w.value, ulps=1, alts=w.alts)


# ---------------------------------------------------------------------------------------
# convert, bitcast_convert, reduce_precision
# ---------------------------------------------------------------------------------------


def to_value(v, t: ET):
    """An element as a number: bool/int -> int, float -> FV, complex -> (FV, FV)."""
    if t.kind == "bool":
        return int(v)
    if t.kind == "int":
        return v
    if t.kind == "float":
        return decode(v, t.fmt)
    return _c_decode(v, t.fmt)


def convert(v, src: ET, dst: ET) -> Want:
    x = to_value(v, src)
    if src.kind == "complex":
        if dst.kind == "complex":
            return Want(
                (
                    _convert_real(x[0], v[0], part_type(src), part_type(dst)),
                    _convert_real(x[1], v[1], part_type(src), part_type(dst)),
                )
            )
        x, v, src = x[0], v[0], part_type(src)
    if dst.kind == "complex":
        pd = part_type(dst)
        return Want((_convert_real(x, v, src, pd), Want(0)))
    return _convert_real(x, v, src, dst)


def _convert_real(x, raw, src: ET, dst: ET) -> Want:
    if dst.kind == "bool":
        if isinstance(x, FV):
            return Want(not x.is_zero)
        return Want(x != 0)
    if dst.kind == "int":
        if isinstance(x, FV):
            if x.is_nan:
                return Want(0)
            if x.is_inf:
                return Want(dst.min if x.neg else dst.max)
            t = Fraction(x.q).__trunc__()
            return Want(min(max(t, dst.min), dst.max))
        return Want(dst.wrap(x))
    fmt = dst.fmt
    if isinstance(x, FV):
        if x.is_nan and src.fmt == fmt:
            return Want(raw)  # same type: the value is copied
        return fwant(x, fmt)
    return fwant(num(x), fmt)


def bitcast(values: list, src: ET, dst: ET) -> list:
    """bitcast_convert of a whole innermost row: ``values`` are src elements (one
    dst element when src is narrower: then len(values) = dst.width // src.width)."""
    sb, db = _raw_width(src), _raw_width(dst)
    raw = [_raw_bits(v, src) for v in values]
    if sb == db:
        return [_from_raw(raw[0], dst)]
    if sb > db:
        k = sb // db
        return [_from_raw((raw[0] >> (i * db)) & ((1 << db) - 1), dst) for i in range(k)]
    word = 0
    for i, r in enumerate(raw):
        word |= r << (i * sb)
    return [_from_raw(word, dst)]


def _raw_width(t: ET) -> int:
    return t.width


def _raw_bits(v, t: ET) -> int:
    if t.kind == "bool":
        return int(v)
    if t.kind == "int":
        return v & ((1 << t.width) - 1)
    if t.kind == "float":
        return v
    w = t.fmt.nbits
    return v[0] | (v[1] << w)


def _from_raw(u: int, t: ET):
    if t.kind == "bool":
        return bool(u)
    if t.kind == "int":
        return t.wrap(u)
    if t.kind == "float":
        return u
    w = t.fmt.nbits
    return (u & ((1 << w) - 1), u >> w)


def reduce_precision(bits: int, t: ET, exponent_bits: int, mantissa_bits: int) -> Want:
    """spec: reduce_precision, by value (see the module doc)."""
    fmt = t.fmt
    x = decode(bits, fmt)
    if x.is_nan:
        if mantissa_bits > 0:
            return Want(bits)
        return fwant(inf(False), fmt)
    if not x.is_num or x.is_zero:
        return Want(bits)
    a = abs(x.q)
    if mantissa_bits < fmt.mbits:
        e = max(floor_log2(a), fmt.emin)
        quantum = Fraction(2) ** (e - mantissa_bits)
        a = round_half_even(a / quantum) * quantum
    if exponent_bits < fmt.ebits:
        bias = (1 << (exponent_bits - 1)) - 1
        if a != 0 and floor_log2(a) > bias:
            return fwant(inf(x.negative), fmt)
        if a == 0 or floor_log2(a) < 1 - bias:
            return fwant(zero(x.negative), fmt)
    r = num(-a if x.negative else a, neg_zero=x.negative)
    return fwant(r, fmt)
