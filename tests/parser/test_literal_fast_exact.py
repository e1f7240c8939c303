"""Dense literals through the parser's fast paths (parser/dense_text.py and the
one-line ``stablehlo.constant`` path of parser/grammar.py) against the element-wise
reference: the same module parsed with the fast reader switched off (one grammar
token per element, parser/attributes.py) gives bit-identical arrays, or both paths
reject the text; and every finite float element equals the correctly rounded
(nearest, ties to even) value of its decimal text computed with ``fractions.Fraction``
(MLIR's literal semantics: APFloat ``convertFromString``, one rounding).

Random spellings: short and long mantissas, exponents, values half-way between two
neighbours of the narrow formats (written out exactly, and a hair either side),
subnormals, signed zeros, ``+`` signs, ``1.`` / ``1e5`` forms, ``inf`` / ``nan``
words, hexadecimal bit patterns; integers with signs at and past their bounds; bools;
complex ``(re, im)`` pairs; nested brackets with varied blanks and line breaks.
"""

from __future__ import annotations

import contextlib
from fractions import Fraction

import ml_dtypes
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hlorun.parser import dense_text, grammar
from hlorun.parser.errors import ParseError
from hlorun.parser.grammar import parse_module
from hlorun.parser.ir import FloatType, numpy_dtype
from tests.support.float_ref import nearest_bits

FLOATS = ["f16", "bf16", "f32", "f64", "f8E4M3FN", "f8E5M2"]
INTS = ["i8", "i16", "i32", "i64", "ui8", "ui16", "ui32", "ui64", "si8", "si32", "si64"]
_SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@contextlib.contextmanager
def _slow_reader():
    """The parser with the fast literal reader off: every literal through the per-token
    grammar (and no memo of short constants)."""
    with pytest.MonkeyPatch.context() as m:
        m.setattr(dense_text, "decode", lambda body, t: None)
        m.setattr(grammar, "_SHORT_CONSTANTS", {})
        yield


def _parse(text: str) -> np.ndarray | str:
    """The constant's array, or the error message."""
    try:
        module = parse_module(text)
    except ParseError as e:
        return e.message
    op = module.body[0].body.entry.operations[0]
    return dict(op.attributes)["value"].array


def _module(body: str, type_text: str) -> str:
    return (
        f"func.func @main() -> {type_text} {{\n"
        f"  %cst = stablehlo.constant dense<{body}> : {type_text}\n"
        f"  return %cst : {type_text}\n}}\n"
    )


def _same(body: str, type_text: str) -> np.ndarray | str:
    """Parse with and without the fast reader: the same bits (or both reject)."""
    text = _module(body, type_text)
    grammar._SHORT_CONSTANTS.clear()
    fast = _parse(text)
    with _slow_reader():
        slow = _parse(text)
    if isinstance(slow, str) or isinstance(fast, str):
        assert isinstance(fast, str) and isinstance(slow, str), (body, fast, slow)
        return fast
    assert fast.dtype == slow.dtype and fast.shape == slow.shape, body
    assert np.ascontiguousarray(fast).tobytes() == np.ascontiguousarray(slow).tobytes(), (
        body,
        fast,
        slow,
    )
    return fast


# ---- spellings ------------------------------------------------------------------------


def _exact_decimal(x: Fraction) -> str:
    """The exact decimal of a dyadic rational (finite digits)."""
    sign = "-" if x < 0 else ""
    x = abs(x)
    k = x.denominator.bit_length() - 1  # a power of two
    digits = str(x.numerator * 5**k)
    return f"{sign}{digits}e-{k}" if k else f"{sign}{digits}.0"


@st.composite
def _float_text(draw, name: str) -> str:
    d = numpy_dtype(FloatType(name))
    info = ml_dtypes.finfo(d)
    u = np.dtype(f"u{d.itemsize}")
    kind = draw(st.integers(0, 9))
    sign = draw(st.sampled_from(["", "", "-", "+"]))
    if kind == 0:  # short: what MLIR prints
        mant = draw(st.integers(0, 10**9))
        return f"{sign}{mant / 10 ** draw(st.integers(0, 9)):.9g}".replace("e", ".0e")
    if kind == 1:  # long mantissa, any exponent
        digits = draw(st.text("0123456789", min_size=1, max_size=30))
        frac = draw(st.text("0123456789", min_size=0, max_size=30))
        exp = draw(st.integers(-330, 310))
        return f"{sign}{digits}.{frac}e{exp}"
    if kind == 2:  # printFloatValue's forms
        x = draw(st.floats(-float(info.max), float(info.max), allow_nan=False))
        return draw(st.sampled_from([f"{x:.6e}", repr(x), f"{x:.9g}"]))
    if kind == 3:  # half-way between two neighbours (exactly, or a hair off)
        b = draw(st.integers(0, int(np.array([info.max], dtype=d).view(u)[0]) - 1))
        lo, hi = (
            Fraction(float(np.array([v], dtype=u).view(d).astype(np.float64)[0]))
            for v in (b, b + 1)
        )
        mid = _exact_decimal((lo + hi) / 2)  # "{digits}e-{k}" or "{digits}.0"
        digits, _, k = mid.replace(".0", "e-0").partition("e-")
        off = draw(st.sampled_from(["", "", "above", "below"]))
        if off == "above":
            return f"{sign}{digits}.{'0' * 20}1e-{k}"
        if off == "below" and int(digits) > 0:
            return f"{sign}{int(digits) - 1}.{'9' * 22}e-{k}"
        return f"{sign}{digits}e-{k}"
    if kind == 4:  # subnormals and the smallest normals of the format
        tiny = float(info.smallest_subnormal)
        return f"{sign}{tiny * draw(st.floats(0.25, 4.0)):.17e}"
    if kind == 5:
        return draw(
            st.sampled_from(
                [
                    "0.0",
                    "-0.0",
                    "+0.0",
                    "0.000000e+00",
                    "-0.000000e+00",
                    "1.",
                    "4.e2",
                    "1e5",
                    "-3",
                    "7",
                ]
            )
        )
    if kind == 6:  # words and bit patterns (the slow path decides)
        return draw(
            st.sampled_from(["inf", "-inf", "+inf", "nan", "-nan", "0x7FC00000", "0x3C00", "0x00"])
        )
    if kind == 7:  # near the largest finite value and past it
        return f"{sign}{float(info.max) * draw(st.floats(0.99, 1.01)):.17e}"
    if kind == 8:  # f64's own extremes
        return draw(
            st.sampled_from(
                [
                    "1e-400",
                    "4.9406564584124654e-324",
                    "2.2250738585072011e-308",
                    "1.7976931348623157e308",
                    "1e309",
                ]
            )
        )
    return f"{sign}{draw(st.integers(0, 99))}.{draw(st.integers(0, 99)):02d}"


@st.composite
def _int_text(draw, name: str) -> str:
    width = int(name.lstrip("suix"))
    unsigned = name.startswith("ui")
    lo = 0 if unsigned else -(2 ** (width - 1))
    hi = 2**width - 1 if (unsigned or name.startswith("i")) else 2 ** (width - 1) - 1
    v = draw(st.one_of(st.integers(lo, hi), st.sampled_from([lo, hi, lo - 1, hi + 1, 0, -1])))
    return (draw(st.sampled_from(["", "+"])) if v >= 0 else "") + str(v)


@st.composite
def _nested(draw, elements, shape: tuple[int, ...]) -> str:
    texts = [draw(elements) for _ in range(int(np.prod(shape)))]
    items = texts
    for d in reversed(shape):
        sep = draw(st.sampled_from([", ", ",", " , ", ",\n    "]))
        items = ["[" + sep.join(items[k : k + d]) + "]" for k in range(0, len(items), d)]
    return items[0]


_SHAPES = st.lists(st.integers(1, 4), min_size=1, max_size=3).map(tuple)


def _type_text(shape: tuple[int, ...], elem: str) -> str:
    return "tensor<" + "".join(f"{d}x" for d in shape) + elem + ">"


# ---- the reference ----------------------------------------------------------------------


def _check_floats(texts: list[str], got: np.ndarray) -> None:
    d = got.dtype
    info = ml_dtypes.finfo(d)
    u = np.dtype(f"u{d.itemsize}")
    for text, bits in zip(texts, got.reshape(-1).view(u).tolist()):
        if not text.lstrip("+-")[:1].isdigit() or "x" in text:
            continue  # words and bit patterns: compared with the slow path only
        exact = Fraction(text)
        if abs(exact) >= Fraction(float(info.max)):
            continue  # overflow rules: compared with the slow path only
        value = float(np.array([bits], dtype=u).view(d).astype(np.float64)[0])
        if exact == 0 or value == 0:
            assert abs(exact) <= Fraction(float(info.smallest_subnormal)) / 2, text
            assert exact != 0 or np.signbit(value) == text.startswith("-"), text
            continue
        assert bits == nearest_bits(exact, d), (text, hex(bits))


# ---- tests ------------------------------------------------------------------------------


@pytest.mark.parametrize("name", FLOATS)
@_SETTINGS
@given(data=st.data())
def test_floats_bitwise_equal_to_the_reference(name, data):
    shape = data.draw(_SHAPES)
    n = int(np.prod(shape))
    texts = data.draw(st.lists(_float_text(name), min_size=n, max_size=n))
    it = iter(texts)
    body = data.draw(_nested(st.builds(lambda: next(it)), shape))
    got = _same(body, _type_text(shape, name))
    if not isinstance(got, str):
        _check_floats(texts, got)


@pytest.mark.parametrize("name", INTS)
@_SETTINGS
@given(data=st.data())
def test_integers_bitwise_equal_to_the_reference(name, data):
    shape = data.draw(_SHAPES)
    body = data.draw(_nested(_int_text(name), shape))
    _same(body, _type_text(shape, name))


@_SETTINGS
@given(data=st.data())
def test_bools_and_splats(data):
    shape = data.draw(_SHAPES)
    word = st.sampled_from(["true", "false", "1", "0", " true", "tru e"])
    _same(data.draw(_nested(word, shape)), _type_text(shape, "i1"))
    _same(data.draw(word), _type_text(shape, "i1"))
    _same(data.draw(_float_text("f32")), _type_text(shape, "f32"))
    _same(data.draw(_int_text("i32")), _type_text(shape, "i32"))


@pytest.mark.parametrize("inner", ["f32", "f64"])
@_SETTINGS
@given(data=st.data())
def test_complex_pairs(inner, data):
    shape = data.draw(_SHAPES)
    n = int(np.prod(shape))
    pairs = [
        f"({data.draw(_float_text(inner))}{data.draw(st.sampled_from([', ', ',', ' ,']))}"
        f"{data.draw(_float_text(inner))})"
        for _ in range(n)
    ]
    it = iter(pairs)
    body = data.draw(_nested(st.builds(lambda: next(it)), shape))
    got = _same(body, _type_text(shape, f"complex<{inner}>"))
    if not isinstance(got, str):
        texts = [t for p in pairs for t in p.strip("()").replace(" ", "").split(",")]
        parts = np.stack([got.real.reshape(-1), got.imag.reshape(-1)], axis=1).reshape(-1)
        _check_floats(texts, np.ascontiguousarray(parts))


_ODD = [
    "",
    " ",
    "-",
    "+",
    "1e",
    "1 2",
    ".5",
    "-.5",
    "1.5.5",
    "1e5e5",
    "1.5e",
    "1.5e+",
    "--1.5",
    "1-2",
    "1. 5",
    "1.5 e3",
    "0x",
    "1a",
    "e5",
    "1.e5",
    "00.0",
    "-00.0",
]


@pytest.mark.parametrize("name", ["f32", "f16", "i32", "complex<f32>"])
@_SETTINGS
@given(
    cells=st.lists(
        st.one_of(st.sampled_from(_ODD), st.text(" 0123456789.eE+-", max_size=7)),
        min_size=4,
        max_size=4,
    )
)
def test_malformed_elements_rejected_alike(name, cells):
    """Blank elements, bare signs, stray dots and exponents, blanks inside numbers: the
    fast path never accepts what the per-token grammar rejects, nor reads it otherwise."""
    if name.startswith("complex"):
        body = f"[({cells[0]}, {cells[1]}), ({cells[2]}, {cells[3]})]"
        _same(body, "tensor<2xcomplex<f32>>")
    else:
        _same(
            "[[" + ", ".join(cells[:2]) + "], [" + ", ".join(cells[2:]) + "]]",
            f"tensor<2x2x{name}>",
        )
