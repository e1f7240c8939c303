"""Decimal dense literals decoded in a few vectorized passes (parser/dense_text.py):
bit for bit the slow path's arrays (parser/attributes.decode_dense, one token per
element) on random literals of every element type, including decimals exactly
half-way between two f16 / bf16 / f8 values (the slow path's exact re-rounding) and
hexadecimal bit patterns; malformed bodies go to the slow path, which reports them.
Independent anchors: values from Fraction arithmetic for the half-way cases."""

from __future__ import annotations

from fractions import Fraction

import ml_dtypes
import numpy as np
import pytest

from hlorun.parser import attr_syntax, dense_text
from hlorun.parser.attributes import decode_dense, int_range
from hlorun.parser.errors import ParseError
from hlorun.parser.grammar import parse_module
from hlorun.parser.ir import (
    ComplexType,
    FloatType,
    IndexType,
    IntegerType,
    TensorType,
    numpy_dtype,
)
from tests.support.float_ref import nearest_bits

FLOATS = ["f16", "bf16", "f32", "f64", "f8E4M3FN", "f8E5M2", "f8E4M3FNUZ", "tf32"]
INTS = [(8, "signless"), (16, "signless"), (32, "signless"), (64, "signless"), (8, "unsigned")]
INTS += [(32, "unsigned"), (64, "unsigned"), (16, "signed")]


def _bits(a: np.ndarray) -> bytes:
    return np.ascontiguousarray(a).tobytes()


def _nest(texts: list[str], shape: tuple[int, ...], rng) -> str:
    items = texts
    for d in reversed(shape):
        sep = [", ", ",", " , ", ",\n  "][rng.integers(4)]
        items = ["[" + sep.join(items[k : k + d]) + "]" for k in range(0, len(items), d)]
    return items[0]


def _decimal(rng, name: str) -> str:
    """A random decimal literal: plain, exponent, many digits, signed zero, or a value
    half-way between two neighbours of a narrow format (written out exactly)."""
    kind = rng.integers(6)
    if kind == 0:
        return f"{rng.standard_normal() * 10.0 ** rng.integers(-3, 4):.9g}".replace("e", ".0e")
    if kind == 1:
        return repr(float(rng.standard_normal() * 10.0 ** rng.integers(-30, 30)))
    if kind == 2:
        digits = "".join(str(d) for d in rng.integers(0, 10, size=rng.integers(15, 40)))
        return f"{'-' if rng.integers(2) else ''}{digits[0]}.{digits[1:]}e{rng.integers(-8, 8)}"
    if kind == 3:
        return ["0.0", "-0.0", "1.000000e+00", "+2.5", "7", "-3", "1e5", "4."][rng.integers(8)]
    if kind == 4 and name in ("f16", "bf16", "f8E4M3FN", "f8E5M2", "f8E4M3FNUZ"):
        dt = FloatType(name)
        from hlorun.parser.ir import numpy_dtype

        d = numpy_dtype(dt)
        info = ml_dtypes.finfo(d)
        a = np.array([rng.uniform(-float(info.max) / 2, float(info.max) / 2)]).astype(d)
        bits = a.view(np.uint8 if d.itemsize == 1 else np.uint16)
        b = (bits + 1).view(d)
        lo, hi = Fraction(float(a[0])), Fraction(float(b[0]))
        mid = (lo + hi) / 2  # exactly half-way: the tie goes to the even neighbour
        if mid.denominator & (mid.denominator - 1):
            return repr(float(a[0]))
        k = mid.denominator.bit_length() - 1
        text = str(mid.numerator * 5**k)
        sign = "-" if text.startswith("-") else ""
        text = text.lstrip("-")
        return f"{sign}{text}e-{k}" if k else f"{sign}{text}.0"
    return f"{rng.standard_normal():.17e}"


def _float_text(rng, name: str) -> str:
    if rng.random() < 0.05 and name not in ("tf32",):
        width = {"f16": 16, "bf16": 16, "f32": 32, "f64": 64}.get(name, 8)
        return f"0x{int(rng.integers(0, 2 ** min(width, 62))):X}"
    return _decimal(rng, name)


def _shape(rng) -> tuple[int, ...]:
    return tuple(int(d) for d in rng.integers(1, 5, size=rng.integers(1, 4)))


def _check(body: str, t: TensorType, must_be_fast: bool = True) -> None:
    fast = dense_text.decode(body, t)
    try:
        slow, _ = decode_dense(body, t)
    except ValueError:
        assert fast is None, body
        return
    if fast is None:
        assert not must_be_fast, body
        return
    assert fast.shape == slow.shape and fast.dtype == slow.dtype
    assert fast.strides == slow.strides  # splats: zero-stride views in both
    assert _bits(fast) == _bits(slow), (body, fast, slow)
    assert not fast.flags.writeable


@pytest.mark.parametrize("name", FLOATS)
def test_floats_match_slow_path(name):
    rng = np.random.default_rng(sum(map(ord, name)))
    for _ in range(25):
        shape = _shape(rng)
        n = int(np.prod(shape))
        texts = [_float_text(rng, name) for _ in range(n)]
        has_hex = any(s.startswith("0x") for s in texts)
        t = TensorType(shape, FloatType(name))
        _check(_nest(texts, shape, rng), t, must_be_fast=not has_hex or name == "f32")


@pytest.mark.parametrize("width,signedness", INTS)
def test_integers_match_slow_path(width, signedness):
    rng = np.random.default_rng(width)
    t_elem = IntegerType(width, signedness)
    lo = 0 if signedness == "unsigned" else -(2 ** (width - 1))
    hi = 2**width - 1 if signedness != "signed" else 2 ** (width - 1) - 1
    for _ in range(20):
        shape = _shape(rng)
        n = int(np.prod(shape))
        vals = [int(v) for v in rng.integers(max(lo, -(2**62)), min(hi, 2**62), size=n)]
        vals[0] = [lo, hi, 0, vals[0]][rng.integers(4)]
        texts = [str(v) if rng.random() > 0.1 else f"+{v}" if v >= 0 else str(v) for v in vals]
        t = TensorType(shape, t_elem)
        _check(_nest(texts, shape, rng), t, must_be_fast=hi < 2**63 and lo >= -(2**63))


def test_index_bool_complex():
    rng = np.random.default_rng(3)
    for _ in range(30):
        shape = _shape(rng)
        n = int(np.prod(shape))
        ints = [str(int(v)) for v in rng.integers(-(2**40), 2**40, size=n)]
        _check(_nest(ints, shape, rng), TensorType(shape, IndexType()))
        bools = [["true", "false"][int(b)] for b in rng.integers(0, 2, size=n)]
        _check(_nest(bools, shape, rng), TensorType(shape, IntegerType(1)))
        for part in ("f32", "f64"):
            cs = [f"({_decimal(rng, part)}, {_decimal(rng, part)})" for _ in range(n)]
            _check(_nest(cs, shape, rng), TensorType(shape, ComplexType(FloatType(part))))


@pytest.mark.parametrize(
    "body,elem",
    [
        ("1.5", FloatType("f32")),
        ("-0.0", FloatType("bf16")),
        ("0x7FC0", FloatType("f16")),
        ("true", IntegerType(1)),
        ("false", IntegerType(1)),
        ("-7", IntegerType(8)),
        ("255", IntegerType(8, "unsigned")),
        ("(1.0, -2.5)", ComplexType(FloatType("f64"))),
        ("3", IndexType()),
    ],
)
@pytest.mark.parametrize("shape", [(), (1,), (3, 2)])
def test_splats_match_slow_path(body, elem, shape):
    _check(body, TensorType(shape, elem))


def test_half_way_decimals_round_to_even():
    """1 + 2**-11 lies half-way between two f16 values: ties to even gives 1.0; one
    digit more (above the tie) gives the next value.  Written with 60 digits, so its
    nearest f64 is the tie itself (a double rounding would go up)."""
    t = TensorType((2,), FloatType("f16"))
    tie = str(Fraction(1) + Fraction(1, 2**11))
    exact = format(1 + 2**-11, ".60f")
    above = exact.rstrip("0") + "1"
    r = dense_text.decode(f"[{exact}, {above}]", t)
    assert r is not None and tie == "2049/2048"
    np.testing.assert_array_equal(r.view(np.uint16), [0x3C00, 0x3C01])


@pytest.mark.parametrize(
    "body,shape",
    [
        ("[1.0, 2.0", (2,)),
        ("[1.0, .5]", (2,)),
        ("[1.0, -.5]", (2,)),
        ("[[1.0, 2.0], [3.0]]", (2, 2)),
        ("[[1.0, 2.0, 3.0], [4.0]]", (2, 2)),
        ("[1.0 2.0]", (1,)),
        ("[1.0,, 2.0]", (2,)),
        ("[, 1.0 2.0]", (2,)),
        ("[[1.0, 2.0], [3.0 4.0, ]]", (2, 2)),
        ("[1.0, inf]", (2,)),
        ("[1.0, 1_0]", (2,)),
        ("[1.0, 1.2.3]", (2,)),
        ("[1.0, e5]", (2,)),
        ("[1.0, -0x3C00]", (2,)),
        ("[1.0, 0x10000]", (2,)),
        ("[(1.0, 2.0), 3.0]", (2,)),
    ],
)
def test_malformed_bodies_take_the_slow_path(body, shape):
    """Each of these is an error (or needs the slow path's care): the fast decoder
    declines, and a whole module reports the slow path's error."""
    t = TensorType(shape, FloatType("f16"))
    assert dense_text.decode(body, t) is None
    text = f"%c = stablehlo.constant dense<{body}> : tensor<{'x'.join(map(str, shape))}xf16>"
    try:
        slow = decode_dense(body, t)[0]
    except ValueError:
        with pytest.raises(ParseError):
            parse_module(text)
        return
    m = parse_module(text)
    got = m.body[0].attributes[0][1].array
    assert _bits(got) == _bits(slow)


def test_whole_module_same_with_and_without_fast_path(monkeypatch):
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
    from corpus_gen import corpus

    for text in corpus(12, seed=7):
        fast = parse_module(text)
        with monkeypatch.context() as m:
            m.setattr(attr_syntax.dense_text, "decode", lambda body, t: None)
            slow = parse_module(text)
        assert _consts(fast) == _consts(slow)


def _consts(module) -> list[bytes]:
    out = []
    for f in module.body:
        for op in f.body.entry.operations:
            for _, a in op.attributes:
                if isinstance(getattr(a, "array", None), np.ndarray):
                    out.append(_bits(a.array))
    return out


# ---- the op fast paths of parser/grammar.py ---------------------------------------------

OPS_TEXT = """module @m attributes {mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4xf32>, %arg1: tensor<4xi32>) -> (tensor<4xf32>, tensor<4xf32>) {
    %0 = "stablehlo.add"(%arg0, %arg0) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %1 = "stablehlo.convert"(%arg1) {mhlo.frontend_attributes = {a = "b"}} : (tensor<4xi32>) -> tensor<4xf32> loc("x")
    %2 = "stablehlo.broadcast_in_dim"(%0) <{broadcast_dimensions = array<i64: 0>}> : (tensor<4xf32>) -> tensor<4xf32>
    %3:2 = "test.pair"(%2) : (tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
    %4:2 = call @pair(%3#0, %3#1) : (tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
    %5 = func.call @one() : () -> tensor<4xf32>  loc(#loc1)
    %cst = stablehlo.constant dense<[1.5, -2.0, 0x7FC00000, 3.0e+00]> : tensor<4xf32> loc("c")
    "test.sink"(%cst) : (tensor<4xf32>) -> ()
    return %4#0, %5 : tensor<4xf32>, tensor<4xf32> loc("r")
  }
  func.func private @pair(%a: tensor<4xf32>, %b: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
    func.return %b, %a : tensor<4xf32>, tensor<4xf32>
  }
  func.func private @decl(tensor<4xf32>) -> tensor<4xf32>
  func.func private @attrs(%a: tensor<4xf32> {jax.arg = 1 : i32}) -> tensor<4xf32> attributes {x = 1 : i32} {
    return %a : tensor<4xf32>
  }
  func.func @ftype(%a: tensor<4xf32>) -> ((tensor<4xf32>) -> tensor<4xf32>) {
    "test.unreachable"() : () -> ()
  }
  func.func nested @one() -> tensor<4xf32> {
    %c = stablehlo.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
    %r = stablehlo.reshape %c : (tensor<2x2xf32>) -> tensor<4xf32>
    return %r : tensor<4xf32>
  }
}
#loc1 = loc("one")
"""

BAD_OPS = [
    '%0 = "stablehlo.add"(%arg0) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>',
    "%0 = call @f(%arg0) : () -> tensor<4xf32>",
    "return %arg0 : tensor<4xf32>, tensor<4xf32>",
    "%c = stablehlo.constant dense<[1.0, 2.0]> : tensor<3xf32>",
    '%0:3 = "test.pair"(%arg0) : (tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)',
]


def _slow(monkeypatch):
    from hlorun.parser import grammar, op_syntax

    monkeypatch.setattr(attr_syntax.dense_text, "decode", lambda body, t: None)
    monkeypatch.setattr(grammar.Parser, "parse_operation", op_syntax.OpParser.parse_operation)


def _same(a, b) -> None:
    """Structural equality, arrays by their bytes."""
    import dataclasses

    assert type(a) is type(b), (a, b)
    if isinstance(a, np.ndarray):
        assert a.dtype == b.dtype and a.shape == b.shape and _bits(a) == _bits(b)
    elif dataclasses.is_dataclass(a):
        for f in dataclasses.fields(a):
            _same(getattr(a, f.name), getattr(b, f.name))
    elif isinstance(a, (tuple, list)):
        assert len(a) == len(b), (a, b)
        for x, y in zip(a, b):
            _same(x, y)
    elif isinstance(a, dict):
        assert a.keys() == b.keys()
        for k in a:
            _same(a[k], b[k])
    else:
        assert a == b or (a != a and b != b), (a, b)


def test_fast_paths_build_the_same_module(monkeypatch):
    """Generic ops (properties, attributes, several results, locations), calls,
    returns and decimal constants: the fast paths give the Operation the general
    parser builds, field by field (positions and locations included)."""
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
    from corpus_gen import corpus

    texts = [OPS_TEXT, *corpus(6, seed=3)]
    fast = [parse_module(t) for t in texts]
    _slow(monkeypatch)
    for t, f in zip(texts, fast):
        _same(f, parse_module(t))


@pytest.mark.parametrize("line", BAD_OPS)
def test_fast_paths_report_the_same_errors(monkeypatch, line):
    text = (
        "func.func @main(%arg0: tensor<4xf32>) -> tensor<4xf32> {\n  "
        + line
        + "\n  return %arg0 : tensor<4xf32>\n}\n"
    )
    with pytest.raises(ParseError) as fast:
        parse_module(text)
    _slow(monkeypatch)
    with pytest.raises(ParseError) as slow:
        parse_module(text)
    assert str(fast.value) == str(slow.value)


# ---- numbers read in C (np.fromstring) against the per-token path and exact rounding ----

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

_HYP = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
_EXACT_FLOATS = [
    "f16",
    "bf16",
    "f32",
    "f64",
    "f8E4M3FN",
    "f8E5M2",
    "f8E4M3FNUZ",
    "f8E3M4",
    "f6E3M2FN",
    "f4E2M1FN",
]


def _per_token(body: str, t: TensorType) -> np.ndarray | None:
    """The decoder with the C reader switched off (``float`` / ``int`` per token)."""
    with pytest.MonkeyPatch.context() as m:
        m.setattr(dense_text, "_c_numbers", lambda *a: None)
        return dense_text.decode(body, t)


@st.composite
def _decimals(draw, name: str) -> str:
    """Decimal texts: long digit strings, subnormal-range and huge exponents, and exact
    decimal expansions of values half-way between two neighbours of ``name`` (or a
    hair off them)."""
    from hlorun.parser.ir import numpy_dtype

    kind = draw(st.integers(0, 3))
    sign = draw(st.sampled_from(["", "-", "+"]))
    if kind == 0:
        digits = draw(st.text("0123456789", min_size=1, max_size=40))
        frac = draw(st.text("0123456789", min_size=0, max_size=25))
        exp = draw(st.integers(-45, 38))
        return f"{sign}{digits}.{frac}e{exp}" if frac else f"{sign}{digits}e{exp}"
    d = numpy_dtype(FloatType(name))
    info = ml_dtypes.finfo(d)
    u = np.dtype(f"u{d.itemsize}")
    if kind == 1:
        return f"{sign}{draw(st.floats(0, float(info.max), allow_nan=False)):.25e}"
    hi_bits = int(np.array([info.max], dtype=d).view(u)[0])
    b = draw(st.integers(0, hi_bits - 1))
    lo, hi = (
        Fraction(float(np.array([x], dtype=u).view(d).astype(np.float64)[0])) for x in (b, b + 1)
    )
    mid = (lo + hi) / 2 + draw(st.sampled_from([0, 0, Fraction(1, 10**40), -Fraction(1, 10**40)]))
    k = max(0, len(str(mid.denominator)) * 4)
    scaled = mid * 10**k  # exact decimal: the denominator is a power of two (times 10**40)
    while scaled.denominator != 1:
        k += 8
        scaled = mid * 10**k
    text = str(abs(scaled.numerator))
    if scaled.numerator < 0:
        sign = "" if sign == "-" else "-"
    return f"{sign}{text}e-{k}"


@pytest.mark.parametrize("name", _EXACT_FLOATS)
@_HYP
@given(data=st.data())
def test_c_reader_floats_exact(name, data):
    """Every decimal (kept finite in ``name``) rounds as Fraction arithmetic says, and
    as the per-token path rounds it."""
    texts = data.draw(st.lists(_decimals(name), min_size=1, max_size=12))
    t = TensorType((len(texts),), FloatType(name))
    body = "[" + ", ".join(texts) + "]"
    fast = dense_text.decode(body, t)
    assert fast is not None, body
    slow = _per_token(body, t)
    assert slow is not None and _bits(fast) == _bits(slow), body
    u = np.dtype(f"u{fast.dtype.itemsize}")
    for text, got in zip(texts, fast.view(u).tolist()):
        exact = Fraction(text)
        info = ml_dtypes.finfo(fast.dtype)
        if abs(exact) >= Fraction(float(info.max)):
            continue  # overflow rules: the per-token comparison above covers them
        want = nearest_bits(exact, numpy_dtype(FloatType(name)))
        if exact == 0 or (want & ~(1 << (8 * fast.dtype.itemsize - 1))) == 0:
            assert float(np.array([got], dtype=u).view(fast.dtype)[0]) == 0, text
        else:
            assert got == want, (text, hex(got), hex(want))


@pytest.mark.parametrize(
    "text",
    [
        "1e-400",
        "-1e-400",
        "1e400",
        "-1e400",
        "-0.0",
        "4.9406564584124654e-324",
        "2.4703282292062327e-324",
        "2.4703282292062328e-324",
        "2.2250738585072011e-308",
        "1.00000000000000011102230246251565404236316680908203125",
        "1.00000000000000011102230246251565404236316680908203124",
        "9007199254740993",
        "179769313486231580793728971405303415079934132710037826936173778980444968292764750946649017977587207096330286416692887910946555547851940402630657488671505820681908902000708383676273854845817711531764475730270069855571366959622842914819860834936475292719074168444365510704342711559699508093042880177904174497791.9999",
    ],
)
def test_c_reader_hard_cases(text):
    """Subnormals, underflow to zero, overflow to infinity, signed zero and ties of
    f64 read as ``float`` reads them (the spec's literals are correctly rounded)."""
    t = TensorType((3,), FloatType("f64"))
    body = f"[{text}, 1.5, {text}]"
    fast = dense_text.decode(body, t)
    assert fast is not None
    assert _bits(fast) == _bits(np.array([float(text), 1.5, float(text)]))
    assert _bits(fast) == _bits(_per_token(body, t))


_ODD_ELEMENTS = ["", " ", "-", "+", "1", "-1", "+2", "1e", "1 2", ".5", "1.", "- 1", "1-2", "0"]
_ELEMENT = st.one_of(st.sampled_from(_ODD_ELEMENTS), st.text(" 0123456789.eE+-", max_size=6))


@pytest.mark.parametrize("elem", [FloatType("f32"), FloatType("f16"), IntegerType(32)])
@_HYP
@given(cells=st.lists(_ELEMENT, min_size=4, max_size=4), rows=st.sampled_from([1, 2]))
def test_c_reader_declines_what_the_slow_path_rejects(cells, rows, elem):
    """Bodies with the shape's brackets and commas but blank elements, bare signs,
    stray exponents, dots and blanks inside numbers: the decoder returns what the
    per-token path returns (None: the slow path decides and reports)."""
    cols = 4 // rows
    body = (
        "["
        + ", ".join("[" + ",".join(cells[r * cols : (r + 1) * cols]) + "]" for r in range(rows))
        + "]"
    )
    t = TensorType((rows, cols), elem)
    fast = dense_text.decode(body, t)
    slow = _per_token(body, t)
    assert (fast is None) == (slow is None), body
    if fast is not None:
        assert _bits(fast) == _bits(slow)
    _check(body, t, must_be_fast=False)  # and the slow path (one token per element)


@pytest.mark.parametrize("width,signedness", INTS + [(64, "signed"), (8, "signed")])
@_HYP
@given(data=st.data())
def test_c_reader_integers_at_bounds(width, signedness, data):
    """Integers at and just past the type's bounds (and past int64's): equal to the
    per-token path, which returns None (the slow path's error) out of range."""
    lo = 0 if signedness == "unsigned" else -(2 ** (width - 1))
    hi = 2**width - 1 if signedness == "unsigned" else 2 ** (width - 1) - 1
    if signedness == "signless":
        hi = 2**width - 1  # signless: either reading of the bits
    near = st.sampled_from([lo, hi, lo - 1, hi + 1, 0, -1, 2**63, -(2**63) - 1, 2**64, -(2**64)])
    vals = data.draw(st.lists(st.one_of(near, st.integers(lo, hi)), min_size=1, max_size=8))
    texts = [data.draw(st.sampled_from(["", "+"])) + str(v) if v >= 0 else str(v) for v in vals]
    t = TensorType((len(vals),), IntegerType(width, signedness))
    body = "[" + ", ".join(texts) + "]"
    fast = dense_text.decode(body, t)
    slow = _per_token(body, t)
    assert (fast is None) == (slow is None), body
    if fast is not None:
        assert _bits(fast) == _bits(slow)
        lo_t, hi_t = int_range(IntegerType(width, signedness))
        assert all(lo_t <= v <= hi_t for v in vals)
