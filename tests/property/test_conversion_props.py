"""Property tests of convert (every source type to every destination type),
bitcast_convert (every pair of widths that divide) and reduce_precision (every float
type, random exponent / mantissa widths) against the reference."""

from __future__ import annotations

from math import prod

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hlorun.parser.errors import UnsupportedError

from . import reference as R
from .elements import ALL, BY_NAME, ET, from_elems
from .harness import PROFILE, check, operand_lists, program_text, run_kernel, shapes

NO_TF32 = [t for t in ALL if t.name != "tf32"]


@pytest.mark.parametrize("src", ALL, ids=str)
@PROFILE
@given(data=st.data())
def test_convert_to_every_type(src, data):
    """One operand, converted to each of the element types."""
    shape = data.draw(shapes(), label="shape")
    (x,) = data.draw(operand_lists(src, 1, prod(shape)), label="values")
    arr = from_elems(x, shape, src)
    for dst in ALL:
        out = run_kernel("convert", [arr], [src], dst, shape)
        wants = [R.convert(v, src, dst) for v in x]
        check(
            f"convert {src.name} -> {dst.name}",
            out,
            dst,
            wants,
            program=lambda e, d=dst: program_text("convert", [(x, shape, src)], shape, d, e),
        )


def _bitcast_pairs():
    out = []
    for s in NO_TF32:
        for d in NO_TF32:
            if s.width % d.width == 0 or d.width % s.width == 0:
                out.append(pytest.param(s, d, id=f"{s.name}->{d.name}"))
    return out


BITCAST_PAIRS = _bitcast_pairs()


@pytest.mark.parametrize("src", NO_TF32, ids=str)
@PROFILE
@given(data=st.data())
def test_bitcast_convert(src, data):
    """Every destination whose width divides or is a multiple of the source's:
    little-endian splitting / joining of the bit patterns (spec: bitcast_convert)."""
    base = data.draw(shapes(max_rank=2), label="shape")
    for dst in NO_TF32:
        if src.width == dst.width:
            in_shape, out_shape = base, base
        elif src.width > dst.width:
            if src.width % dst.width:
                continue
            in_shape, out_shape = base, base + (src.width // dst.width,)
        else:
            if dst.width % src.width:
                continue
            in_shape, out_shape = base + (dst.width // src.width,), base
        (x,) = data.draw(operand_lists(src, 1, prod(in_shape)), label=f"values for {dst.name}")
        out = run_kernel("bitcast_convert", [from_elems(x, in_shape, src)], [src], dst, out_shape)
        wants = []
        if src.width >= dst.width:
            for v in x:
                wants += [R.Want(_bitwise(r, dst)) for r in R.bitcast([v], src, dst)]
        else:
            k = dst.width // src.width
            for i in range(0, len(x), k):
                wants += [R.Want(_bitwise(r, dst)) for r in R.bitcast(x[i : i + k], src, dst)]
        check(
            f"bitcast_convert {src.name} -> {dst.name}",
            out,
            dst,
            wants,
            program=lambda e, d=dst, s_=in_shape, o=out_shape, xs=x: program_text(
                "bitcast_convert", [(xs, s_, src)], o, d, e
            ),
        )


def _bitwise(v, t: ET):
    """A bitcast result: exact bits (complex parts too)."""
    if t.kind == "complex":
        return (R.Want(v[0]), R.Want(v[1]))
    return v


def test_bitcast_of_tf32_is_unsupported():
    t = BY_NAME["tf32"]
    with pytest.raises(UnsupportedError):
        run_kernel("bitcast_convert", [from_elems([0], (1,), t)], [t], BY_NAME["f32"], (1,))


FLOATS_NO_TF32 = [t for t in NO_TF32 if t.kind == "float"]


@pytest.mark.parametrize("t", FLOATS_NO_TF32, ids=str)
@PROFILE
@given(data=st.data())
def test_reduce_precision(t, data):
    fmt = t.fmt
    shape = data.draw(shapes(), label="shape")
    ebits = data.draw(st.integers(1, fmt.ebits + 2), label="exponent_bits")
    mbits = data.draw(st.integers(0, fmt.mbits + 2), label="mantissa_bits")
    (x,) = data.draw(operand_lists(t, 1, prod(shape)), label="values")
    out = run_kernel(
        "reduce_precision",
        [from_elems(x, shape, t)],
        [t],
        t,
        shape,
        exponent_bits=ebits,
        mantissa_bits=mbits,
    )
    wants = [R.reduce_precision(v, t, ebits, mbits) for v in x]
    attrs = f"exponent_bits = {ebits} : i32, mantissa_bits = {mbits} : i32"
    check(
        f"reduce_precision e{ebits} m{mbits}",
        out,
        t,
        wants,
        program=lambda e: program_text("reduce_precision", [(x, shape, t)], shape, t, e, attrs),
    )
