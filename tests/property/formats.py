"""Floating-point formats from their definitions, for the element-wise reference.

Every format is described by its parameters alone -- exponent and mantissa bits, bias,
whether it has a sign, infinities, which NaN encoding, zero and subnormals -- taken
from the formats' definitions (IEEE 754 binary16/32/64; bfloat16; the OCP FP8 / MX
specifications and LLVM's APFloat semantics for the f8/f6/f4 types, whose LLVM names
StableHLO uses):

* IEEE-like (f8E3M4, f8E4M3, f8E5M2, bf16, f16, f32, f64): the all-ones exponent
  encodes +-inf (mantissa 0) and NaN (mantissa != 0); the quiet bit is the mantissa's
  top bit.
* "FN" (f8E4M3FN): finite, no infinity; NaN is S.1111.111 (exponent and mantissa all
  ones), so the all-ones exponent also holds finite values.
* "FNUZ" (f8E4M3FNUZ, f8E4M3B11FNUZ, f8E5M2FNUZ): no infinity, no negative zero; the
  one NaN is the negative-zero pattern 0x80.
* finite-only MX formats (f4E2M1FN, f6E2M3FN, f6E3M2FN): neither infinity nor NaN.
* f8E8M0FNU: no sign bit, 8 exponent bits, no mantissa, no zero, no subnormals; 0xFF
  is NaN; encoding e is 2**(e - 127).

Nothing here calls ml_dtypes or NumPy: values are ``fractions.Fraction``s and bit
patterns are Python ints.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

IEEE, FN, FNUZ, FINITE, E8M0 = "ieee", "fn", "fnuz", "finite", "e8m0"


@dataclass(frozen=True)
class FloatFormat:
    """A binary floating-point format, from its parameters."""

    name: str
    ebits: int
    mbits: int
    bias: int
    kind: str  # IEEE | FN | FNUZ | FINITE | E8M0
    storage_bits: int  # bits of the NumPy / ml_dtypes storage (f4 -> 8, tf32 -> 32)
    storage_shift: int = 0  # tf32 lives in the top 19 bits of a float32

    @property
    def signed(self) -> bool:
        return self.kind != E8M0

    @property
    def nbits(self) -> int:
        return self.ebits + self.mbits + (1 if self.signed else 0)

    @property
    def has_inf(self) -> bool:
        return self.kind == IEEE

    @property
    def has_nan(self) -> bool:
        return self.kind != FINITE

    @property
    def has_neg_zero(self) -> bool:
        return self.kind in (IEEE, FN, FINITE)

    @property
    def has_zero(self) -> bool:
        return self.kind != E8M0

    @property
    def precision(self) -> int:
        return self.mbits + 1

    @property
    def emin(self) -> int:
        """Exponent of the smallest normal number."""
        return -self.bias if self.kind == E8M0 else 1 - self.bias

    @property
    def emax(self) -> int:
        """Exponent of the largest finite number."""
        top = (1 << self.ebits) - 1
        if self.kind == IEEE:
            top -= 1  # all-ones exponent is inf / NaN
        elif self.kind == E8M0:
            top -= 1  # 0xFF is NaN
        return top - self.bias

    @property
    def max_finite(self) -> Fraction:
        m = self.mbits
        if self.kind == FN:
            frac = (1 << (m + 1)) - 2  # all-ones mantissa is NaN
        else:
            frac = (1 << (m + 1)) - 1
        return Fraction(frac) * _pow2(self.emax - m)

    @property
    def min_positive(self) -> Fraction:
        if self.kind == E8M0:
            return _pow2(self.emin)
        return _pow2(self.emin - self.mbits)

    @property
    def sign_bit(self) -> int:
        return 1 << (self.ebits + self.mbits) if self.signed else 0


def _pow2(e: int) -> Fraction:
    return Fraction(1 << e) if e >= 0 else Fraction(1, 1 << -e)


FORMATS: dict[str, FloatFormat] = {
    f.name: f
    for f in (
        FloatFormat("f4E2M1FN", 2, 1, 1, FINITE, 8),
        FloatFormat("f6E2M3FN", 2, 3, 1, FINITE, 8),
        FloatFormat("f6E3M2FN", 3, 2, 3, FINITE, 8),
        FloatFormat("f8E3M4", 3, 4, 3, IEEE, 8),
        FloatFormat("f8E4M3", 4, 3, 7, IEEE, 8),
        FloatFormat("f8E4M3FN", 4, 3, 7, FN, 8),
        FloatFormat("f8E4M3FNUZ", 4, 3, 8, FNUZ, 8),
        FloatFormat("f8E4M3B11FNUZ", 4, 3, 11, FNUZ, 8),
        FloatFormat("f8E5M2", 5, 2, 15, IEEE, 8),
        FloatFormat("f8E5M2FNUZ", 5, 2, 16, FNUZ, 8),
        FloatFormat("f8E8M0FNU", 8, 0, 127, E8M0, 8),
        FloatFormat("bf16", 8, 7, 127, IEEE, 16),
        FloatFormat("f16", 5, 10, 15, IEEE, 16),
        FloatFormat("tf32", 8, 10, 127, IEEE, 32, 13),
        FloatFormat("f32", 8, 23, 127, IEEE, 32),
        FloatFormat("f64", 11, 52, 1023, IEEE, 64),
    )
}


# ---------------------------------------------------------------------------------------
# Values: a float element is ("num", Fraction, negative_zero) / ("inf", sign) / ("nan",)
# ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class FV:
    """One float value: kind "num" (q, with ``neg`` telling -0 from +0), "inf" (``neg``
    is the sign) or "nan" (``neg``: the sign bit of the encoding, informational)."""

    kind: str
    q: Fraction = Fraction(0)
    neg: bool = False

    @property
    def is_nan(self) -> bool:
        return self.kind == "nan"

    @property
    def is_inf(self) -> bool:
        return self.kind == "inf"

    @property
    def is_num(self) -> bool:
        return self.kind == "num"

    @property
    def is_zero(self) -> bool:
        return self.kind == "num" and self.q == 0

    @property
    def negative(self) -> bool:
        """Sign: true for -0, -inf and negative numbers."""
        return self.q < 0 or self.neg if self.kind == "num" else self.neg

    def __neg__(self) -> FV:
        if self.kind == "num":
            return FV("num", -self.q, not self.neg if self.q == 0 else False)
        return FV(self.kind, neg=not self.neg)


NAN = FV("nan")
PINF = FV("inf", neg=False)
NINF = FV("inf", neg=True)
ZERO = FV("num", Fraction(0), False)
NZERO = FV("num", Fraction(0), True)


def num(q: Fraction | int, neg_zero: bool = False) -> FV:
    q = Fraction(q)
    return FV("num", q, neg_zero and q == 0)


def inf(negative: bool) -> FV:
    return NINF if negative else PINF


def zero(negative: bool) -> FV:
    return NZERO if negative else ZERO


# ---------------------------------------------------------------------------------------
# Decoding
# ---------------------------------------------------------------------------------------


def decode(bits: int, fmt: FloatFormat) -> FV:
    """The value of bit pattern ``bits`` (``fmt.nbits`` bits)."""
    m = fmt.mbits
    sign = bool(bits & fmt.sign_bit)
    exp = (bits >> m) & ((1 << fmt.ebits) - 1)
    man = bits & ((1 << m) - 1)
    all_e = (1 << fmt.ebits) - 1
    if fmt.kind == IEEE and exp == all_e:
        return FV("nan", neg=sign) if man else inf(sign)
    if fmt.kind == FN and exp == all_e and man == (1 << m) - 1:
        return FV("nan", neg=sign)
    if fmt.kind == FNUZ and bits == fmt.sign_bit:
        return FV("nan", neg=True)
    if fmt.kind == E8M0:
        return FV("nan") if exp == all_e else num(_pow2(exp - fmt.bias))
    if exp == 0:
        q = man * _pow2(fmt.emin - m)
    else:
        q = ((1 << m) | man) * _pow2(exp - fmt.bias - m)
    return num(-q if sign else q, neg_zero=sign)


# ---------------------------------------------------------------------------------------
# Encoding and rounding
# ---------------------------------------------------------------------------------------


def nan_bits(fmt: FloatFormat) -> int | None:
    """The canonical (quiet, positive) NaN, or None for formats without NaN."""
    if fmt.kind == IEEE:
        return (((1 << fmt.ebits) - 1) << fmt.mbits) | (1 << (fmt.mbits - 1))
    if fmt.kind == FN:
        return (1 << (fmt.ebits + fmt.mbits)) - 1
    if fmt.kind == FNUZ:
        return fmt.sign_bit
    if fmt.kind == E8M0:
        return 0xFF
    return None


def floor_log2(a: Fraction) -> int:
    """floor(log2(a)) for a > 0, exactly."""
    e = a.numerator.bit_length() - a.denominator.bit_length()
    if _pow2(e) > a:
        e -= 1
    return e


def round_half_even(q: Fraction) -> int:
    n = q.numerator // q.denominator
    r = q - n
    if r > Fraction(1, 2) or (r == Fraction(1, 2) and n % 2 == 1):
        n += 1
    return n


def round_to_format(x: FV, fmt: FloatFormat) -> int | None:
    """Round ``x`` to ``fmt`` with ONE round-to-nearest-even (the significand's last
    digit decides ties; f8E8M0FNU's one-digit significand is always odd, so its ties
    go up), returning the bit pattern.  Beyond the largest finite value a result is
    +-inf when the format has infinities, else NaN when it has a NaN, else it saturates
    to +-max.  Formats without -0 give +0; f8E8M0FNU has no sign and no zero: negative
    values and zero give NaN, positive values below 2**-127 give 2**-127.  Returns None
    when the result is undefined (a NaN into a format without NaN)."""
    if x.is_nan:
        return nan_bits(fmt)
    negative = x.negative
    if fmt.kind == E8M0 and (negative or x.is_zero):
        return nan_bits(fmt)
    if x.is_inf:
        return _overflow(negative, fmt)
    a = abs(x.q)
    if a == 0:
        return fmt.sign_bit if negative and fmt.has_neg_zero else 0
    e = max(floor_log2(a), fmt.emin)
    quantum = e - fmt.mbits
    n = round_half_even(a / _pow2(quantum))
    if fmt.kind == E8M0 and n == 0:
        n = 1  # no zero, no subnormals: the smallest value is the nearest
    if n == 0:
        return fmt.sign_bit if negative and fmt.has_neg_zero else 0
    value = n * _pow2(quantum)
    if value > fmt.max_finite:
        return _overflow(negative, fmt)
    return _encode_finite(value, negative, fmt)


def _overflow(negative: bool, fmt: FloatFormat) -> int:
    if fmt.kind == IEEE:
        return (fmt.sign_bit if negative else 0) | (((1 << fmt.ebits) - 1) << fmt.mbits)
    if fmt.has_nan:
        return nan_bits(fmt)
    return _encode_finite(fmt.max_finite, negative, fmt)


def _encode_finite(value: Fraction, negative: bool, fmt: FloatFormat) -> int:
    """Bits of a positive representable ``value`` with the given sign."""
    m = fmt.mbits
    sign = fmt.sign_bit if negative else 0
    if fmt.kind == E8M0:
        return floor_log2(value) + fmt.bias
    if value < _pow2(fmt.emin):
        man = value / _pow2(fmt.emin - m)
        assert man.denominator == 1
        return sign | int(man)
    e = floor_log2(value)
    man = value / _pow2(e - m) - (1 << m)
    assert man.denominator == 1 and 0 <= man < (1 << m)
    return sign | ((e + fmt.bias) << m) | int(man)


def round_value(x: FV, fmt: FloatFormat) -> FV:
    """``x`` rounded to ``fmt``, as a value (NaN when undefined)."""
    b = round_to_format(x, fmt)
    return NAN if b is None else decode(b, fmt)


def all_finite_positive(fmt: FloatFormat) -> list[Fraction]:
    """Every positive finite value of a format with at most 8 bits (ascending)."""
    assert fmt.nbits <= 8
    vals = {decode(b, fmt) for b in range(1 << fmt.nbits)}
    return sorted(v.q for v in vals if v.is_num and v.q > 0)


def ulp_at(value: Fraction, fmt: FloatFormat) -> Fraction:
    """The spacing of ``fmt`` at |value| (value != 0, within range)."""
    e = max(floor_log2(abs(value)), fmt.emin) if value else fmt.emin
    return _pow2(e - fmt.mbits)


def is_representable(q: Fraction, fmt: FloatFormat) -> bool:
    b = round_to_format(num(q), fmt)
    return b is not None and decode(b, fmt) == num(q)
