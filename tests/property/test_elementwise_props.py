"""Property tests: every elementwise kernel, on every element type the spec allows for
it, against the one-element-at-a-time reference (reference.py).

Random shapes (0-d and empty included) and values drawn to include each type's special
values; exactly rounded ops are compared bitwise (NaN payloads only where the spec
fixes them, see reference.py), transcendental ops within the documented ULP bounds.
"""

from __future__ import annotations

from math import prod

import pytest
from hypothesis import given
from hypothesis import strategies as st

from . import reference as R
from .elements import ALL, BOOL, BY_NAME, ET, from_elems, part_type
from .harness import PROFILE, check, operand_lists, program_text, run_kernel, shapes

SINT, UINT, FLOAT, COMPLEX, BOOLK = "sint", "uint", "float", "complex", "bool"
INT = {SINT, UINT}
ANY = {BOOLK, SINT, UINT, FLOAT, COMPLEX}


def kind_of(t: ET) -> str:
    if t.kind == "int":
        return SINT if t.signed else UINT
    return t.kind


# op -> (arity, allowed kinds) -- the spec's Inputs tables.
UNARY = {
    "abs": {SINT, FLOAT, COMPLEX},
    "cbrt": {FLOAT, COMPLEX},
    "ceil": {FLOAT},
    "cosine": {FLOAT, COMPLEX},
    "count_leading_zeros": INT,
    "exponential": {FLOAT, COMPLEX},
    "exponential_minus_one": {FLOAT, COMPLEX},
    "floor": {FLOAT},
    "log": {FLOAT, COMPLEX},
    "log_plus_one": {FLOAT, COMPLEX},
    "logistic": {FLOAT, COMPLEX},
    "negate": INT | {FLOAT, COMPLEX},
    "not": {BOOLK} | INT,
    "popcnt": INT,
    "round_nearest_afz": {FLOAT},
    "round_nearest_even": {FLOAT},
    "rsqrt": {FLOAT, COMPLEX},
    "sign": {SINT, FLOAT, COMPLEX},
    "sine": {FLOAT, COMPLEX},
    "sqrt": {FLOAT, COMPLEX},
    "tan": {FLOAT, COMPLEX},
    "tanh": {FLOAT, COMPLEX},
}
BINARY = {
    "add": ANY,
    "and": {BOOLK} | INT,
    "atan2": {FLOAT, COMPLEX},
    "divide": INT | {FLOAT, COMPLEX},
    "maximum": ANY,
    "minimum": ANY,
    "multiply": ANY,
    "or": {BOOLK} | INT,
    "power": INT | {FLOAT, COMPLEX},
    "remainder": INT | {FLOAT},  # complex: spec TBD (#997), the kernel refuses it
    "shift_left": INT,
    "shift_right_arithmetic": INT,
    "shift_right_logical": INT,
    "subtract": INT | {FLOAT, COMPLEX},
    "xor": {BOOLK} | INT,
}


def pairs(table: dict) -> list:
    return [
        pytest.param(op, t, id=f"{op}-{t.name}")
        for op, kinds in table.items()
        for t in ALL
        if kind_of(t) in kinds
    ]


UNARY_PAIRS = pairs(UNARY)
BINARY_PAIRS = pairs(BINARY)


def result_type(op: str, t: ET) -> ET:
    if op == "abs" and t.kind == "complex":
        return part_type(t)
    return t


def reference(op: str, t: ET, *vals) -> R.Want:
    """The reference's expectation for one element."""
    if t.kind == "bool":
        return R.Want(R.BOOL_OPS[op](*vals))
    if t.kind == "int":
        return R.Want(R.int_op(op, t, *vals))
    if t.kind == "float":
        return R.float_op(op, t, *vals)
    if op == "abs":
        return R.complex_abs(t, *vals)
    return R.complex_op(op, t, *vals)


def _needs_mpmath(op: str, t: ET) -> bool:
    return (
        t.kind == "complex"
        and op not in ("add", "subtract", "negate", "maximum", "minimum", "abs")
        or (t.kind == "float" and op in R.TRANSCENDENTAL)
    )


def _moderate(op: str, t: ET) -> bool:
    """Complex transcendental ops: finite operands of moderate size (the spec leaves
    complex special values open, and huge parts overflow intermediate results)."""
    return t.kind == "complex" and op not in (
        "add",
        "subtract",
        "negate",
        "maximum",
        "minimum",
        "abs",
    )


def _elementwise_case(op, t, data, arity):
    if _needs_mpmath(op, t) and R.mpmath is None:
        pytest.skip("mpmath is not installed")
    shape = data.draw(shapes(), label="shape")
    n = prod(shape)
    cols = data.draw(operand_lists(t, arity, n, finite_moderate=_moderate(op, t)), label="values")
    arrays = [from_elems(c, shape, t) for c in cols]
    rt = result_type(op, t)
    out = run_kernel(op, arrays, [t] * arity, rt, shape)
    wants = [reference(op, t, *vals) for vals in zip(*cols)]
    check(
        op,
        out,
        rt,
        wants,
        program=lambda expected: program_text(
            op, [(c, shape, t) for c in cols], shape, rt, expected
        ),
    )


@pytest.mark.parametrize(("op", "t"), UNARY_PAIRS)
@PROFILE
@given(data=st.data())
def test_unary(op, t, data):
    _elementwise_case(op, t, data, 1)


@pytest.mark.parametrize(("op", "t"), BINARY_PAIRS)
@PROFILE
@given(data=st.data())
def test_binary(op, t, data):
    _elementwise_case(op, t, data, 2)


# ---------------------------------------------------------------------------------------
# compare, select, clamp, is_finite, real, imag, complex
# ---------------------------------------------------------------------------------------

DIRECTIONS = ("EQ", "NE", "GE", "GT", "LE", "LT")


def _compare_params():
    out = []
    for t in ALL:
        if t.kind == "float":
            types = ("FLOAT", "TOTALORDER")
        elif t.kind == "int":
            types = ("SIGNED",) if t.signed else ("UNSIGNED",)
        elif t.kind == "bool":
            types = ("UNSIGNED",)
        else:
            types = ("FLOAT",)
        out += [pytest.param(t, ct, id=f"{t.name}-{ct}") for ct in types]
    return out


@pytest.mark.parametrize(("t", "compare_type"), _compare_params())
@PROFILE
@given(data=st.data())
def test_compare(t, compare_type, data):
    """Every direction on the same operands."""
    shape = data.draw(shapes(), label="shape")
    n = prod(shape)
    a, b = data.draw(operand_lists(t, 2, n), label="values")
    la, lb = from_elems(a, shape, t), from_elems(b, shape, t)
    for direction in DIRECTIONS:
        out = run_kernel(
            "compare",
            [la, lb],
            [t, t],
            BOOL,
            shape,
            comparison_direction=direction,
            compare_type=compare_type,
        )
        wants = [R.compare(t, x, y, direction, compare_type) for x, y in zip(a, b)]
        attrs = (
            f"comparison_direction = #stablehlo<comparison_direction {direction}>, "
            f"compare_type = #stablehlo<comparison_type {compare_type}>"
        )
        check(
            f"compare {direction} {compare_type}",
            out,
            BOOL,
            wants,
            program=lambda e, d=attrs: program_text(
                "compare", [(a, shape, t), (b, shape, t)], shape, BOOL, e, d
            ),
        )


@pytest.mark.parametrize("t", ALL, ids=str)
@PROFILE
@given(data=st.data())
def test_select(t, data):
    shape = data.draw(shapes(), label="shape")
    n = prod(shape)
    scalar_pred = data.draw(st.booleans(), label="scalar pred")
    pshape = () if scalar_pred else shape
    pred = data.draw(st.lists(st.booleans(), min_size=prod(pshape), max_size=prod(pshape)))
    x, y = data.draw(operand_lists(t, 2, n), label="values")
    arrays = [from_elems(pred, pshape, BOOL), from_elems(x, shape, t), from_elems(y, shape, t)]
    out = run_kernel("select", arrays, [BOOL, t, t], t, shape)
    wants = [
        _copy_want(xv if (pred[0] if scalar_pred else pred[i]) else yv, t)
        for i, (xv, yv) in enumerate(zip(x, y))
    ]
    check(
        "select",
        out,
        t,
        wants,
        program=lambda e: program_text(
            "select", [(pred, pshape, BOOL), (x, shape, t), (y, shape, t)], shape, t, e
        ),
    )


def _copy_want(v, t: ET) -> R.Want:
    """A copied element: bitwise, NaN payload included."""
    if t.kind == "complex":
        return R.Want((R.Want(v[0]), R.Want(v[1])))
    return R.Want(v)


def _clamp_ref(t: ET, lo, x, hi) -> R.Want:
    """minimum(maximum(operand, min), max) through the reference's max/min."""
    if t.kind == "bool":
        return R.Want((x or lo) and hi)
    if t.kind == "int":
        return R.Want(min(max(x, lo), hi))
    if t.kind == "float":
        fmt = t.fmt
        d = R.decode
        m = R.f_max(d(x, fmt), d(lo, fmt))
        return R.fwant(R.f_max(m, d(hi, fmt), minimum=True), fmt)
    # complex: lexicographic; apply the two steps on raw values
    w1 = R.complex_op("maximum", t, x, lo)
    if w1.free or w1.value[0].free:
        return R.FREE
    mid = (w1.value[0].value, w1.value[1].value)
    return R.complex_op("minimum", t, mid, hi)


@pytest.mark.parametrize("t", ALL, ids=str)
@PROFILE
@given(data=st.data())
def test_clamp(t, data):
    shape = data.draw(shapes(), label="shape")
    n = prod(shape)
    lo_scalar = data.draw(st.booleans())
    hi_scalar = data.draw(st.booleans())
    ls, hs = (() if lo_scalar else shape), (() if hi_scalar else shape)
    (x,) = data.draw(operand_lists(t, 1, n))
    (lo,) = data.draw(operand_lists(t, 1, prod(ls)))
    (hi,) = data.draw(operand_lists(t, 1, prod(hs)))
    arrays = [from_elems(lo, ls, t), from_elems(x, shape, t), from_elems(hi, hs, t)]
    out = run_kernel("clamp", arrays, [t, t, t], t, shape)
    wants = [
        _clamp_ref(t, lo[0 if lo_scalar else i], xv, hi[0 if hi_scalar else i])
        for i, xv in enumerate(x)
    ]
    check(
        "clamp",
        out,
        t,
        wants,
        program=lambda e: program_text(
            "clamp", [(lo, ls, t), (x, shape, t), (hi, hs, t)], shape, t, e
        ),
    )


FLOAT_TYPES = [t for t in ALL if t.kind == "float"]
COMPLEX_TYPES = [t for t in ALL if t.kind == "complex"]


@pytest.mark.parametrize("t", FLOAT_TYPES, ids=str)
@PROFILE
@given(data=st.data())
def test_is_finite(t, data):
    shape = data.draw(shapes(), label="shape")
    (x,) = data.draw(operand_lists(t, 1, prod(shape)))
    out = run_kernel("is_finite", [from_elems(x, shape, t)], [t], BOOL, shape)
    wants = [R.Want(R.is_finite(v, t.fmt)) for v in x]
    check(
        "is_finite",
        out,
        BOOL,
        wants,
        program=lambda e: program_text("is_finite", [(x, shape, t)], shape, BOOL, e),
    )


@pytest.mark.parametrize("op", ["real", "imag"])
@pytest.mark.parametrize("t", FLOAT_TYPES + COMPLEX_TYPES, ids=str)
@PROFILE
@given(data=st.data())
def test_real_imag(op, t, data):
    """real/imag copy a part bitwise; imag of a float is +0."""
    shape = data.draw(shapes(), label="shape")
    (x,) = data.draw(operand_lists(t, 1, prod(shape)))
    rt = part_type(t) if t.kind == "complex" else t
    out = run_kernel(op, [from_elems(x, shape, t)], [t], rt, shape)
    if t.kind == "complex":
        wants = [R.Want(v[0] if op == "real" else v[1]) for v in x]
    else:
        wants = [R.Want(v if op == "real" else 0) for v in x]
    check(op, out, rt, wants, program=lambda e: program_text(op, [(x, shape, t)], shape, rt, e))


@pytest.mark.parametrize("t", COMPLEX_TYPES, ids=str)
@PROFILE
@given(data=st.data())
def test_complex(t, data):
    """complex(lhs, rhs) puts the parts bitwise."""
    pt = part_type(t)
    shape = data.draw(shapes(), label="shape")
    re, im = data.draw(operand_lists(pt, 2, prod(shape)))
    out = run_kernel(
        "complex", [from_elems(re, shape, pt), from_elems(im, shape, pt)], [pt, pt], t, shape
    )
    wants = [R.Want((R.Want(a), R.Want(b))) for a, b in zip(re, im)]
    check(
        "complex",
        out,
        t,
        wants,
        program=lambda e: program_text("complex", [(re, shape, pt), (im, shape, pt)], shape, t, e),
    )


def test_remainder_of_complex_is_unsupported():
    """The spec leaves complex remainder TBD (#997): the kernel refuses it."""
    from hlorun.parser.errors import UnsupportedError

    t = BY_NAME["complex<f32>"]
    a = from_elems([(0, 0)], (1,), t)
    with pytest.raises(UnsupportedError):
        run_kernel("remainder", [a, a], [t, t], t, (1,))


def covered_pairs() -> int:
    """(op x element type) pairs the property tests cover (for the report)."""
    n = len(UNARY_PAIRS) + len(BINARY_PAIRS)
    n += len(ALL) * 2  # select, clamp
    n += len(FLOAT_TYPES) + 2 * len(FLOAT_TYPES + COMPLEX_TYPES) + len(COMPLEX_TYPES)
    n += len(ALL)  # compare
    return n
