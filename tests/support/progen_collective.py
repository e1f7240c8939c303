"""progen recipes: collectives on one process (replica_groups ``[[0]]``, the grid a
plain ``hlorun.run`` has; spec Constraints of each op; tests/support/progen.py
documents the API)."""

from __future__ import annotations

from hypothesis import strategies as st

from tests.property.elements import ALL

from .progen_core import TT, Arg, OpCase, combine_body, draw_shape, draw_type, recipe

_GROUPS = "replica_groups = dense<[[0]]> : tensor<1x1xi64>"


@recipe("stablehlo.all_reduce")
def _all_reduce(draw, op):
    # variadic operands share the computation (tensor<E>, tensor<E>) -> tensor<E> (C5)
    et = draw_type(draw, ALL)
    ts = [TT(draw_shape(draw), et) for _ in range(draw(st.integers(1, 2)))]
    body = combine_body(draw, [et])
    return OpCase(op, tuple(Arg(t) for t in ts), tuple(ts), _GROUPS, (body,))


@recipe("stablehlo.all_gather")
def _all_gather(draw, op):
    # (StableHLO's verifier, unlike the spec, refuses a 0-sized all_gather_dim: 1 <= dims)
    ts = [TT(draw_shape(draw, min_rank=1, min_dim=1), draw_type(draw, ALL))]
    dim = draw(st.integers(0, len(ts[0].shape) - 1))
    if draw(st.booleans()):  # variadic: every operand has the dimension
        shape = list(draw_shape(draw, min_rank=dim + 1, min_dim=1))
        ts.append(TT(tuple(shape), draw_type(draw, ALL)))
    attrs = f"all_gather_dim = {dim} : i64, {_GROUPS}"
    return OpCase(op, tuple(Arg(t) for t in ts), tuple(ts), attrs)


@recipe("stablehlo.reduce_scatter")
def _reduce_scatter(draw, op):
    # (as all_gather: StableHLO's verifier refuses a 0-sized scatter_dimension)
    t = TT(draw_shape(draw, min_rank=1, min_dim=1), draw_type(draw, ALL))
    dim = draw(st.integers(0, len(t.shape) - 1))
    body = combine_body(draw, [t.et])
    attrs = f"scatter_dimension = {dim} : i64, {_GROUPS}"
    return OpCase(op, (Arg(t),), (t,), attrs, (body,))


@recipe("stablehlo.all_to_all")
def _all_to_all(draw, op):
    t = TT(draw_shape(draw, min_rank=1), draw_type(draw, ALL))
    r = len(t.shape)
    split, concat = draw(st.integers(0, r - 1)), draw(st.integers(0, r - 1))
    attrs = (
        f"split_dimension = {split} : i64, concat_dimension = {concat} : i64, "
        f"split_count = 1 : i64, {_GROUPS}"
    )
    return OpCase(op, (Arg(t),), (t,), attrs)


@recipe("stablehlo.collective_permute")
def _collective_permute(draw, op):
    t = TT(draw_shape(draw), draw_type(draw, ALL))
    pairs = (
        "dense<[[0, 0]]> : tensor<1x2xi64>" if draw(st.booleans()) else "dense<> : tensor<0x2xi64>"
    )
    return OpCase(op, (Arg(t),), (t,), f"source_target_pairs = {pairs}")


@recipe("stablehlo.collective_broadcast")
def _collective_broadcast(draw, op):
    t = TT(draw_shape(draw), draw_type(draw, ALL))
    return OpCase(op, (Arg(t),), (t,), _GROUPS)
