"""progen recipes: the remaining CHLO special functions and broadcasts, rng, process
ids and dynamic_gather (spec / ChloOps.td constraints; tests/support/progen.py
documents the API)."""

from __future__ import annotations

import re

import numpy as np
from hypothesis import strategies as st

from tests.property.elements import BY_NAME, FLOATS, SINTS, UINTS

from .progen_core import I64, RECIPES, TT, Arg, OpCase, draw_shape, draw_type, recipe

_SPECIAL = tuple(BY_NAME[n] for n in ("f16", "bf16", "f32", "f64"))
_CHLO_FLOATS = tuple(t for t in FLOATS if t.name != "tf32")


@recipe("chlo.igamma", "chlo.igammac", "chlo.zeta", "chlo.polygamma", "chlo.next_after")
def _chlo_binary_same(draw, op):
    et = draw_type(draw, _CHLO_FLOATS if op == "chlo.next_after" else _SPECIAL)
    t = TT(draw_shape(draw), et)
    # polygamma(n, x): small orders n (huge ones need more series terms than the kernel
    # sums: UnsupportedError, by design)
    first = Arg(t, values="index") if op == "chlo.polygamma" else Arg(t)
    return OpCase(op, (first, Arg(t, values="positive")), (t,))


@recipe("chlo.mulhi")
def _mulhi(draw, op):
    t = TT(draw_shape(draw), draw_type(draw, [e for e in SINTS + UINTS if e.width >= 8]))
    return OpCase(op, (Arg(t), Arg(t)), (t,))


def _broadcast_case(draw, base: str, op: str, et=None) -> OpCase:
    case = RECIPES["chlo.broadcast_add"](draw, "chlo.broadcast_add")
    a, b = case.args[0].type, case.args[1].type
    et = et or a.et
    return OpCase(
        op, (Arg(TT(a.shape, et)), Arg(TT(b.shape, et))), (TT(case.results[0].shape, et),)
    )


@recipe("chlo.broadcast_zeta", "chlo.broadcast_polygamma")
def _broadcast_special(draw, op):
    case = _broadcast_case(draw, "chlo.broadcast_add", op, draw_type(draw, _SPECIAL))
    a, b = case.args
    if op == "chlo.broadcast_polygamma":
        a = Arg(a.type, values="index")
    return OpCase(op, (a, Arg(b.type, values="positive")), case.results)


@recipe("chlo.broadcast_complex")
def _broadcast_complex(draw, op):
    et = draw_type(draw, (BY_NAME["f32"], BY_NAME["f64"]))
    case = _broadcast_case(draw, "chlo.broadcast_add", op, et)
    out = BY_NAME["complex<f32>" if et.name == "f32" else "complex<f64>"]
    return OpCase(op, case.args, (TT(case.results[0].shape, out),))


@recipe("chlo.broadcast_select")
def _broadcast_select(draw, op):
    """pred, on_true, on_false of one shape, or a scalar predicate."""
    t = TT(draw_shape(draw), draw_type(draw, _CHLO_FLOATS + SINTS))
    pred = TT(() if draw(st.booleans()) else t.shape, BY_NAME["i1"])
    return OpCase(op, (Arg(pred), Arg(t), Arg(t)), (t,))


@recipe("stablehlo.rng")
def _rng(draw, op):
    normal = draw(st.booleans())
    if normal:
        et = draw_type(draw, (BY_NAME["f32"], BY_NAME["f64"], BY_NAME["f16"]))
    else:
        et = draw_type(draw, (BY_NAME["f32"], BY_NAME["f64"], BY_NAME["i32"], BY_NAME["i64"]))
    shape = draw_shape(draw)
    a = np.asarray(0, dtype=et.dtype)
    b = np.asarray(10, dtype=et.dtype)
    dist = "NORMAL" if normal else "UNIFORM"
    args = (
        Arg(TT((), et), value=a),
        Arg(TT((), et), value=b),
        Arg(TT((len(shape),), I64), value=np.asarray(shape, np.int64).reshape(len(shape))),
    )
    return OpCase(
        op, args, (TT(shape, et),), f"rng_distribution = #stablehlo<rng_distribution {dist}>"
    )


@recipe("stablehlo.replica_id", "stablehlo.partition_id")
def _process_id(draw, op):
    return OpCase(op, (), (TT((), BY_NAME["ui32"]),))


@recipe("stablehlo.dynamic_gather")
def _dynamic_gather(draw, op):
    """gather's case with ``slice_sizes`` as a constant operand."""
    case = RECIPES["stablehlo.gather"](draw, "stablehlo.gather")
    m = re.search(r", slice_sizes = array<i64(?:: ([-0-9, ]*))?>", case.attrs)
    assert m is not None
    sizes = [int(v) for v in (m.group(1) or "").split(",") if v.strip()]
    attrs = case.attrs[: m.start()] + case.attrs[m.end() :]
    it = draw_type(draw, (BY_NAME["i32"], I64))
    sizes_arg = Arg(TT((len(sizes),), it), value=np.asarray(sizes, it.dtype).reshape(len(sizes)))
    return OpCase(op, (*case.args, sizes_arg), case.results, attrs)
