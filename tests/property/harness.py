"""Hypothesis strategies for element values and shapes, running a kernel through the
op table, and checking its result element by element against ``reference.Want``s.

A failure message carries a StableHLO program that ``hlorun interpret`` runs: the
failing inputs as constants, the op in generic form, and ``check.expect_eq_const``
with the kernel's own result where it was accepted and the reference's value where
it was not (so the program fails exactly at the bad elements).
"""

from __future__ import annotations

import os
from fractions import Fraction
from math import prod

import numpy as np
from hypothesis import HealthCheck, note, settings
from hypothesis import strategies as st

import hlorun.engine.kernels  # noqa: F401  (fills the op table)
from hlorun import shape_inference  # noqa: F401
from hlorun.engine.element import Element, ulp_distance
from hlorun.shape_inference.optable import OP_TABLE

from .elements import ET, dense, from_elems, part_type, tensor_text, to_elems
from .formats import FloatFormat, decode, nan_bits, num, round_to_format
from .reference import Want, mpmath

# ---------------------------------------------------------------------------------------
# Settings: the profile (conftest.py) chosen by HYPOTHESIS_PROFILE, default "ci"
# ---------------------------------------------------------------------------------------


def _profile() -> settings:
    name = os.environ.get("HYPOTHESIS_PROFILE", "ci")
    try:
        return settings.get_profile(name if name in ("ci", "thorough") else "ci")
    except Exception:  # conftest.py not loaded (module run directly)
        return settings(
            max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow]
        )


PROFILE = settings(_profile())

# ---------------------------------------------------------------------------------------
# Strategies
# ---------------------------------------------------------------------------------------


def shapes(max_rank: int = 3, max_dim: int = 4, max_size: int = 16):
    """Shapes of rank 0..max_rank (0-d and empty included)."""
    return (
        st.lists(st.integers(0, max_dim), max_size=max_rank)
        .map(tuple)
        .filter(lambda s: prod(s) <= max_size)
    )


def _int_specials(t: ET) -> list[int]:
    w = t.width
    vals = {0, 1, 2, 3, t.min, t.max, t.min + 1, t.max - 1, w - 1, w, w + 1, 2 * w}
    if t.signed:
        vals |= {-1, -2, -w, -(w + 1)}
    return sorted({t.wrap(v) for v in vals})


def float_specials(fmt: FloatFormat) -> list[int]:
    """Bit patterns of the values every float test must meet: +-0, +-inf, NaNs (quiet,
    signalling, with payloads, negative), the extremes of the normal and subnormal
    ranges, 1, halves (rounding ties) and neighbours of 1."""
    out: set[int] = set()
    m = fmt.mbits
    sign = fmt.sign_bit
    e_all = ((1 << fmt.ebits) - 1) << m
    for q in (
        0,
        1,
        Fraction(1, 2),
        Fraction(3, 2),
        Fraction(5, 2),
        2,
        3,
        Fraction(1, 3),
        fmt.max_finite,
        fmt.min_positive,
        Fraction(2) ** fmt.emin,
    ):
        for neg in (False, True):
            b = round_to_format(num(-q if neg else q, neg_zero=neg), fmt)
            if b is not None:
                out.add(b)
    if m >= 1:
        out |= {
            e_all | sign | ((1 << m) - 1),
            (1 << m) - 1,
            (1 << m) - 1 | sign,
        }  # max subnormal, FN NaN
        one = round_to_format(num(1), fmt)
        out |= {one + 1, one - 1}
    if fmt.kind == "ieee":
        out |= {
            e_all,
            e_all | sign,
            e_all | 1,
            e_all | sign | 1,
            e_all | (1 << (m - 1)),
            e_all | sign | (1 << (m - 1)) | 1,
            e_all | (1 << (m - 1)) | 5 % (1 << m),
        }
    nb = nan_bits(fmt)
    if nb is not None:
        out.add(nb)
    mask = (1 << fmt.nbits) - 1
    return sorted(b & mask for b in out)


def _nice_float(fmt: FloatFormat, limit: float = 1e4):
    """Moderate values: small multiples of 1/8 and random doubles in [-limit, limit]
    (tiny ones included) rounded to ``fmt``."""

    def enc(q):
        b = round_to_format(num(q), fmt)
        return b if b is not None else 0

    small = st.integers(-64, 64).map(lambda k: enc(Fraction(k, 8)))
    moderate = st.floats(-limit, limit, allow_nan=False).map(lambda f: enc(Fraction(f)))
    return st.one_of(small, moderate)


def element_values(t: ET, *, finite_moderate: bool = False):
    """A strategy of Python element values of ``t`` (see elements.py)."""
    if t.kind == "bool":
        return st.booleans()
    if t.kind == "int":
        return st.one_of(st.sampled_from(_int_specials(t)), st.integers(t.min, t.max))
    if t.kind == "float":
        fmt = t.fmt
        if finite_moderate:
            return _nice_float(fmt, 40.0)
        return st.one_of(
            st.sampled_from(float_specials(fmt)),
            st.integers(0, (1 << fmt.nbits) - 1),
            _nice_float(fmt),
        )
    part = element_values(part_type(t), finite_moderate=finite_moderate)
    return st.tuples(part, part)


def negated(v, t: ET):
    """-v (bit-level sign flip for floats) -- to pair operands with their negation."""
    if t.kind == "bool":
        return v
    if t.kind == "int":
        return t.wrap(-v)
    if t.kind == "float":
        return v ^ t.fmt.sign_bit
    return (v[0] ^ t.fmt.sign_bit, v[1] ^ t.fmt.sign_bit)


@st.composite
def operand_lists(
    draw,
    t: ET,
    arity: int,
    size: int,
    *,
    finite_moderate: bool = False,
    types: tuple[ET, ...] | None = None,
):
    """``arity`` lists of ``size`` values; the second operand sometimes repeats or
    negates the first element by element (x - x, x / -x, max(x, -x)...)."""
    types = types or (t,) * arity
    cols = [
        draw(
            st.lists(
                element_values(tt, finite_moderate=finite_moderate), min_size=size, max_size=size
            )
        )
        for tt in types
    ]
    if arity >= 2 and types[0] == types[1] and size:
        mode = draw(st.sampled_from(("independent", "independent", "same", "negated", "mixed")))
        if mode == "same":
            cols[1] = list(cols[0])
        elif mode == "negated":
            cols[1] = [negated(v, t) for v in cols[0]]
        elif mode == "mixed":
            picks = draw(st.lists(st.integers(0, 2), min_size=size, max_size=size))
            cols[1] = [
                b if p == 0 else (a if p == 1 else negated(a, t))
                for a, b, p in zip(cols[0], cols[1], picks)
            ]
    return cols


# ---------------------------------------------------------------------------------------
# Running kernels
# ---------------------------------------------------------------------------------------


def run_kernel(
    op: str,
    operands: list[np.ndarray],
    operand_ets: list[ET],
    result_et: ET,
    result_shape: tuple[int, ...],
    **attrs,
) -> np.ndarray:
    row = OP_TABLE[f"stablehlo.{op}"]
    out = row.kernel(
        *operands,
        result_type=result_et.tensor(result_shape),
        operand_types=tuple(e.tensor(a.shape) for e, a in zip(operand_ets, operands)),
        **attrs,
    )
    out = np.asarray(out)
    assert out.dtype == result_et.dtype, f"{op}: result dtype {out.dtype}, want {result_et.dtype}"
    assert out.shape == tuple(result_shape), f"{op}: result shape {out.shape}, want {result_shape}"
    return out


# ---------------------------------------------------------------------------------------
# Checking
# ---------------------------------------------------------------------------------------


def _float_ok(
    got_arr: np.ndarray, want_arr: np.ndarray, i: int, g: int, w: Want, fmt: FloatFormat
) -> bool:
    if w.free:
        return True
    if w.nan_any and decode(g, fmt).is_nan:
        return True
    if w.value is None:
        return False
    if Element.at(got_arr, (i,)) == Element.at(want_arr, (i,)) or g in w.alts:
        return True
    if w.ulps:
        d = ulp_distance(got_arr[i : i + 1], want_arr[i : i + 1])[0]
        return bool(d <= w.ulps)
    return False


def _normwise_ok(g, w: Want, fmt: FloatFormat) -> bool:
    exact_value, tol, abs_tol = w.normwise
    re, im = decode(g[0], fmt), decode(g[1], fmt)
    if not (re.is_num and im.is_num):
        return False
    with mpmath.workprec(256):
        z = mpmath.mpc(
            mpmath.mpf(re.q.numerator) / re.q.denominator,
            mpmath.mpf(im.q.numerator) / im.q.denominator,
        )
        err = abs(z - exact_value)
        bound = mpmath.mpf(tol.numerator) / tol.denominator * abs(exact_value)
        bound += mpmath.mpf(abs_tol.numerator) / abs_tol.denominator
        # results below the format's normal range carry absolute, not relative, error
        floor = mpmath.mpf(2) ** (fmt.emin - fmt.mbits + 1)
        return bool(err <= bound + floor)


def _want_value(w: Want, t: ET, fallback):
    """The representative expected value of ``w`` (for reproducers / Element checks)."""
    if t.kind == "complex":
        if w.normwise is not None or w.free or not isinstance(w.value, tuple):
            return fallback
        return tuple(_want_value(p, part_type(t), f) for p, f in zip(w.value, fallback))
    if w.free or w.value is None:
        return fallback
    return w.value


def check(
    op: str, result: np.ndarray, result_et: ET, wants: list[Want], *, program: callable
) -> None:
    """Compare ``result`` with ``wants`` element by element; on a mismatch, fail with
    the reproducer ``program(expected_values)`` returns."""
    got = to_elems(result, result_et)
    assert len(got) == len(wants)
    flat = result.reshape(-1)
    expected = [_want_value(w, result_et, g) for w, g in zip(wants, got)]
    bad = []
    if result_et.kind == "float":
        want_arr = from_elems(expected, (len(expected),), result_et)
        for i, (g, w) in enumerate(zip(got, wants)):
            if not _float_ok(flat, want_arr, i, g, w, result_et.fmt):
                bad.append(i)
    elif result_et.kind == "complex":
        pt = part_type(result_et)
        for i, (g, w) in enumerate(zip(got, wants)):
            if w.free:
                continue
            if w.normwise is not None:
                ok = _normwise_ok(g, w, result_et.fmt)
            else:
                ok = True
                for k in range(2):
                    pw = w.value[k]
                    g_arr = from_elems([g[k]], (1,), pt)
                    w_arr = from_elems([_want_value(pw, pt, g[k])], (1,), pt)
                    ok &= _float_ok(g_arr, w_arr, 0, g[k], pw, pt.fmt)
            if not ok:
                bad.append(i)
    else:
        for i, (g, w) in enumerate(zip(got, wants)):
            if not w.free and g != w.value:
                bad.append(i)
    if bad:
        i = bad[0]
        text = program(expected)
        note(text)
        raise AssertionError(
            f"{op} on {result_et.name}: {len(bad)} of {len(got)} elements wrong; first at flat "
            f"index {i}: got {got[i]!r}, want {wants[i].describe()}\n"
            f"reproducer (hlorun interpret):\n{text}"
        )


def program_text(
    op: str,
    inputs: list[tuple[list, tuple[int, ...], ET]],
    result_shape,
    result_et: ET,
    expected: list,
    attrs_text: str = "",
) -> str:
    """A StableHLO program computing ``op`` on constant inputs and checking ``expected``."""
    lines = ["func.func @main() {"]
    names = []
    for k, (vals, shape, t) in enumerate(inputs):
        lines.append(
            f"  %{k} = stablehlo.constant {dense(vals, shape, t)} : {tensor_text(shape, t)}"
        )
        names.append(f"%{k}")
    in_types = ", ".join(tensor_text(s, t) for _, s, t in inputs)
    out_type = tensor_text(result_shape, result_et)
    attrs = f" {{{attrs_text}}}" if attrs_text else ""
    r = f"%{len(inputs)}"
    lines.append(
        f'  {r} = "stablehlo.{op}"({", ".join(names)}){attrs} : ({in_types}) -> {out_type}'
    )
    lines.append(
        f"  check.expect_eq_const {r}, {dense(expected, result_shape, result_et)} : {out_type}"
    )
    lines.append("  func.return")
    lines.append("}")
    return "\n".join(lines)
