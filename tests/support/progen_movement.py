"""progen recipes: element-wise ops, conversions, data movement (spec Constraints of
each op; tests/support/progen.py documents the API)."""

from __future__ import annotations

from math import prod

from hypothesis import strategies as st

from tests.property.elements import (
    ALL,
    BOOL,
    BY_NAME,
    COMPLEXES,
    ET,
    FLOATS,
    SINTS,
)

from .progen_core import (
    C64,
    C128,
    DIRECTIONS,
    F32,
    F64,
    FC,
    I32,
    INDEX_TYPES,
    INTS,
    NO_COMPLEX,
    NUMERIC,
    TT,
    Arg,
    OpCase,
    arr_attr,
    combine_body,
    draw_shape,
    draw_subset,
    draw_type,
    recipe,
    scalar_type,
)

# ---------------------------------------------------------------------------------------
# Elementwise (spec: each op's Inputs table gives its element types)
# ---------------------------------------------------------------------------------------

_UNARY: dict[str, tuple[ET, ...]] = {
    "abs": SINTS + FC,
    "ceil": FLOATS,
    "floor": FLOATS,
    "round_nearest_afz": FLOATS,
    "round_nearest_even": FLOATS,
    "count_leading_zeros": INTS,
    "popcnt": INTS,
    "negate": NUMERIC,
    "not": (BOOL, *INTS),
    "sign": SINTS + FC,
    **{
        n: FC
        for n in (
            "cbrt cosine sine exponential exponential_minus_one log log_plus_one logistic "
            "rsqrt sqrt tan tanh"
        ).split()
    },
}
_BINARY: dict[str, tuple[ET, ...]] = {
    "add": ALL,
    "multiply": ALL,
    "maximum": ALL,
    "minimum": ALL,
    "subtract": NUMERIC,
    "divide": NUMERIC,
    "remainder": INTS + FLOATS,
    "power": NUMERIC,
    "atan2": FC,
    "and": (BOOL, *INTS),
    "or": (BOOL, *INTS),
    "xor": (BOOL, *INTS),
    "shift_left": INTS,
    "shift_right_arithmetic": INTS,
    "shift_right_logical": INTS,
}


def _part(et: ET) -> ET:
    return BY_NAME[et.fmt.name] if et.kind == "complex" else et


@recipe(*(f"stablehlo.{n}" for n in _UNARY))
def _unary(draw, op):
    name = op.split(".")[1]
    et = draw_type(draw, _UNARY[name])
    shape = draw_shape(draw)
    out = _part(et) if name == "abs" else et
    return OpCase(op, (Arg(TT(shape, et)),), (TT(shape, out),))


@recipe(*(f"stablehlo.{n}" for n in _BINARY))
def _binary(draw, op):
    name = op.split(".")[1]
    et = draw_type(draw, _BINARY[name])
    shape = draw_shape(draw)
    return OpCase(op, (Arg(TT(shape, et)), Arg(TT(shape, et))), (TT(shape, et),))


@recipe("stablehlo.real", "stablehlo.imag")
def _real_imag(draw, op):
    et = draw_type(draw, FC)
    shape = draw_shape(draw)
    return OpCase(op, (Arg(TT(shape, et)),), (TT(shape, _part(et)),))


@recipe("stablehlo.is_finite")
def _is_finite(draw, op):
    et = draw_type(draw, FLOATS)
    shape = draw_shape(draw)
    return OpCase(op, (Arg(TT(shape, et)),), (TT(shape, BOOL),))


@recipe("stablehlo.complex")
def _complex(draw, op):
    et = draw_type(draw, (F32, F64))
    shape = draw_shape(draw)
    out = C64 if et is F32 else C128
    return OpCase(op, (Arg(TT(shape, et)), Arg(TT(shape, et))), (TT(shape, out),))


@recipe("stablehlo.compare")
def _compare(draw, op):
    et = draw_type(draw, ALL)
    shape = draw_shape(draw)
    if et.kind == "complex":
        direction = draw(st.sampled_from(("EQ", "NE")))
        ctype = "FLOAT"
    else:
        direction = draw(st.sampled_from(DIRECTIONS))
        if et.kind == "float":
            ctype = draw(st.sampled_from(("FLOAT", "TOTALORDER")))
        elif et.kind == "bool" or not et.signed:
            ctype = "UNSIGNED"
        else:
            ctype = "SIGNED"
    attrs = f"comparison_direction = #stablehlo<comparison_direction {direction}>"
    if draw(st.booleans()):
        attrs += f", compare_type = #stablehlo<comparison_type {ctype}>"
    return OpCase(op, (Arg(TT(shape, et)), Arg(TT(shape, et))), (TT(shape, BOOL),), attrs)


@recipe("stablehlo.select")
def _select(draw, op):
    et = draw_type(draw, ALL)
    shape = draw_shape(draw)
    pshape = () if draw(st.booleans()) else shape
    args = (Arg(TT(pshape, BOOL)), Arg(TT(shape, et)), Arg(TT(shape, et)))
    return OpCase(op, args, (TT(shape, et),))


@recipe("stablehlo.clamp")
def _clamp(draw, op):
    et = draw_type(draw, NO_COMPLEX)
    shape = draw_shape(draw)
    lo = () if draw(st.booleans()) else shape
    hi = () if draw(st.booleans()) else shape
    args = (Arg(TT(lo, et)), Arg(TT(shape, et)), Arg(TT(hi, et)))
    return OpCase(op, args, (TT(shape, et),))


@recipe("stablehlo.convert")
def _convert(draw, op):
    src = draw_type(draw, ALL)
    dst = draw_type(draw, ALL if src.kind == "complex" else NO_COMPLEX + COMPLEXES)
    if src.kind == "complex" and dst.kind != "complex":
        dst = draw_type(draw, COMPLEXES)
    shape = draw_shape(draw)
    return OpCase(op, (Arg(TT(shape, src)),), (TT(shape, dst),))


def _bits(et: ET) -> int:
    return et.width


@recipe("stablehlo.bitcast_convert")
def _bitcast(draw, op):
    usable = [t for t in ALL if t.name != "tf32" and t.kind != "bool"]
    src = draw_type(draw, usable)
    # (C2) complex only to complex
    usable = [t for t in usable if (t.kind == "complex") == (src.kind == "complex")]
    same = [t for t in usable if _bits(t) == _bits(src)]
    narrower = [t for t in usable if _bits(t) < _bits(src) and _bits(src) % _bits(t) == 0]
    wider = [t for t in usable if _bits(t) > _bits(src) and _bits(t) % _bits(src) == 0]
    mode = draw(st.sampled_from(["same", "narrower", "wider"]))
    shape = draw_shape(draw, max_rank=2)
    if mode == "narrower" and narrower:
        dst = draw_type(draw, narrower)
        return OpCase(op, (Arg(TT(shape, src)),), (TT((*shape, _bits(src) // _bits(dst)), dst),))
    if mode == "wider" and wider:
        dst = draw_type(draw, wider)
        k = _bits(dst) // _bits(src)
        return OpCase(op, (Arg(TT((*shape, k), src)),), (TT(shape, dst),))
    dst = draw_type(draw, same)
    return OpCase(op, (Arg(TT(shape, src)),), (TT(shape, dst),))


@recipe("stablehlo.reduce_precision")
def _reduce_precision(draw, op):
    et = draw_type(draw, FLOATS)
    shape = draw_shape(draw)
    e = draw(st.integers(1, 11))
    m = draw(st.integers(0, 24))
    attrs = f"exponent_bits = {e} : i32, mantissa_bits = {m} : i32"
    return OpCase(op, (Arg(TT(shape, et)),), (TT(shape, et),), attrs)


# ---------------------------------------------------------------------------------------
# Shapes and data movement
# ---------------------------------------------------------------------------------------


@recipe("stablehlo.broadcast_in_dim")
def _broadcast_in_dim(draw, op):
    et = draw_type(draw, ALL)
    out = draw_shape(draw, max_rank=4, max_size=48)
    rank = draw(st.integers(0, len(out)))
    dims = draw(st.permutations(range(len(out))))[:rank]
    shape = tuple(out[d] if draw(st.booleans()) else 1 for d in dims)
    return OpCase(
        op, (Arg(TT(shape, et)),), (TT(out, et),), f"broadcast_dimensions = {arr_attr(dims)}"
    )


@recipe("stablehlo.broadcast")
def _broadcast(draw, op):
    et = draw_type(draw, ALL)
    shape = draw_shape(draw, max_rank=2)
    sizes = draw_shape(draw, max_rank=2)
    return OpCase(
        op, (Arg(TT(shape, et)),), (TT(sizes + shape, et),), f"broadcast_sizes = {arr_attr(sizes)}"
    )


@recipe("stablehlo.transpose")
def _transpose(draw, op):
    et = draw_type(draw, ALL)
    shape = draw_shape(draw, max_rank=4, max_size=48)
    perm = draw(st.permutations(range(len(shape))))
    out = tuple(shape[p] for p in perm)
    return OpCase(op, (Arg(TT(shape, et)),), (TT(out, et),), f"permutation = {arr_attr(perm)}")


@recipe("stablehlo.reshape")
def _reshape(draw, op):
    et = draw_type(draw, ALL)
    shape = draw_shape(draw)
    n = prod(shape)
    if n == 0:
        out = draw_shape(draw, min_rank=1)
        out = (0, *out[1:])
    else:
        out, rest = [], n
        for d in (2, 3, 2, 5):
            if rest % d == 0 and draw(st.booleans()):
                out.append(d)
                rest //= d
        out.append(rest)
        out = draw(st.permutations(out))
        if rest == 1 and draw(st.booleans()):
            out = [d for d in out if d != 1]
    return OpCase(op, (Arg(TT(shape, et)),), (TT(tuple(out), et),))


@recipe("stablehlo.reverse")
def _reverse(draw, op):
    et = draw_type(draw, ALL)
    shape = draw_shape(draw)
    dims = draw(st.permutations(draw_subset(draw, len(shape))))
    return OpCase(op, (Arg(TT(shape, et)),), (TT(shape, et),), f"dimensions = {arr_attr(dims)}")


@recipe("stablehlo.slice")
def _slice(draw, op):
    et = draw_type(draw, ALL)
    shape = draw_shape(draw, max_dim=6)
    start, limit, strides, out = [], [], [], []
    for d in shape:
        a = draw(st.integers(0, d))
        b = draw(st.integers(a, d))
        s = draw(st.integers(1, 3))
        start.append(a)
        limit.append(b)
        strides.append(s)
        out.append(-(-(b - a) // s))
    attrs = f"start_indices = {arr_attr(start)}, limit_indices = {arr_attr(limit)}, strides = {arr_attr(strides)}"
    return OpCase(op, (Arg(TT(shape, et)),), (TT(tuple(out), et),), attrs)


def pad_params(draw, shape):
    lo, hi, interior, out = [], [], [], []
    for d in shape:
        i = draw(st.integers(0, 2))
        base = d + max(d - 1, 0) * i
        a = draw(st.integers(-base, 3))
        b = draw(st.integers(-(base + a), 3))
        lo.append(a)
        hi.append(b)
        interior.append(i)
        out.append(base + a + b)
    return lo, hi, interior, tuple(out)


@recipe("stablehlo.pad")
def _pad(draw, op):
    et = draw_type(draw, ALL)
    shape = draw_shape(draw)
    lo, hi, interior, out = pad_params(draw, shape)
    attrs = (
        f"edge_padding_low = {arr_attr(lo)}, edge_padding_high = {arr_attr(hi)}, "
        f"interior_padding = {arr_attr(interior)}"
    )
    args = (Arg(TT(shape, et)), Arg(TT((), et)))
    return OpCase(op, args, (TT(out, et),), attrs)


@recipe("stablehlo.concatenate")
def _concatenate(draw, op):
    et = draw_type(draw, ALL)
    shape = draw_shape(draw, min_rank=1)
    dim = draw(st.integers(0, len(shape) - 1))
    n = draw(st.integers(1, 3))
    sizes = [draw(st.integers(0, 3)) for _ in range(n)]
    args = tuple(Arg(TT(shape[:dim] + (s,) + shape[dim + 1 :], et)) for s in sizes)
    out = shape[:dim] + (sum(sizes),) + shape[dim + 1 :]
    return OpCase(op, args, (TT(out, et),), f"dimension = {dim} : i64")


@recipe("stablehlo.iota")
def _iota(draw, op):
    et = draw_type(draw, NUMERIC)
    shape = draw_shape(draw, min_rank=1)
    dim = draw(st.integers(0, len(shape) - 1))
    return OpCase(op, (), (TT(shape, et),), f"iota_dimension = {dim} : i64")


@recipe("stablehlo.get_dimension_size")
def _get_dimension_size(draw, op):
    et = draw_type(draw, ALL)
    shape = draw_shape(draw, min_rank=1)
    dim = draw(st.integers(0, len(shape) - 1))
    return OpCase(op, (Arg(TT(shape, et)),), (TT((), I32),), f"dimension = {dim} : i64")


@recipe("stablehlo.dynamic_slice")
def _dynamic_slice(draw, op):
    et = draw_type(draw, ALL)
    shape = draw_shape(draw)
    it = draw_type(draw, INDEX_TYPES)
    sizes = [draw(st.integers(0, d)) for d in shape]
    args = (Arg(TT(shape, et)), *(Arg(TT((), it), values="index") for _ in shape))
    return OpCase(op, args, (TT(tuple(sizes), et),), f"slice_sizes = {arr_attr(sizes)}")


@recipe("stablehlo.dynamic_update_slice")
def _dynamic_update_slice(draw, op):
    et = draw_type(draw, ALL)
    shape = draw_shape(draw)
    it = draw_type(draw, INDEX_TYPES)
    upd = tuple(draw(st.integers(0, d)) for d in shape)
    args = (
        Arg(TT(shape, et)),
        Arg(TT(upd, et)),
        *(Arg(TT((), it), values="index") for _ in shape),
    )
    return OpCase(op, args, (TT(shape, et),))


@recipe("stablehlo.gather")
def _gather(draw, op):
    et = draw_type(draw, ALL)
    oshape = draw_shape(draw, min_rank=1, min_dim=1)
    r = len(oshape)
    # batching dims: a few operand dims paired with indices batch dims of the same size
    nb = draw(st.integers(0, min(1, r - 1))) if r > 1 else 0
    obatch = draw_subset(draw, r, nb, nb)
    free = [d for d in range(r) if d not in obatch]
    sim = draw(st.permutations(free))[: draw(st.integers(0, len(free)))]
    collapsed = sorted(d for d in sim if draw(st.booleans()))
    sizes = []
    for d in range(r):
        if d in collapsed or d in obatch:
            # (spec C9 allows 0 here too; then clamp() may start the slice past the end
            # and the spec's operand_index leaves the operand: not generated)
            sizes.append(1)
        else:
            sizes.append(draw(st.integers(0, oshape[d])))
    it = draw_type(draw, INDEX_TYPES)
    ibatch_shape = list(draw_shape(draw, max_rank=2))
    # the indices' batch dims include one per operand batching dim, of its size
    ib_pos = []
    for d in obatch:
        p = draw(st.integers(0, len(ibatch_shape)))
        ibatch_shape.insert(p, oshape[d])
        ib_pos = [q + (q >= p) for q in ib_pos] + [p]
    if len(sim) == 1 and draw(st.booleans()):
        ishape = tuple(ibatch_shape)  # index_vector_dim = rank: an implicit trailing 1
    else:
        ishape = (*ibatch_shape, len(sim))
    ivd = len(ibatch_shape)
    ib_dims = list(ib_pos)  # start_indices_batching_dims (positions in the indices)
    offset_count = r - len(collapsed) - len(obatch)
    out_rank = len(ibatch_shape) + offset_count
    offset_dims = draw_subset(draw, out_rank, offset_count, offset_count)
    out = [0] * out_rank
    bi = iter(ibatch_shape)
    oi = iter([sizes[d] for d in range(r) if d not in collapsed and d not in obatch])
    for p in range(out_rank):
        out[p] = next(oi) if p in offset_dims else next(bi)
    attrs = (
        "dimension_numbers = #stablehlo.gather<"
        + ", ".join(
            s
            for s in (
                f"offset_dims = [{', '.join(map(str, offset_dims))}]" if offset_dims else "",
                f"collapsed_slice_dims = [{', '.join(map(str, collapsed))}]" if collapsed else "",
                f"operand_batching_dims = [{', '.join(map(str, obatch))}]" if obatch else "",
                f"start_indices_batching_dims = [{', '.join(map(str, ib_dims))}]"
                if ib_dims
                else "",
                f"start_index_map = [{', '.join(map(str, sim))}]" if sim else "",
                f"index_vector_dim = {ivd}",
            )
            if s
        )
        + f">, slice_sizes = {arr_attr(sizes)}"
    )
    if draw(st.booleans()):
        attrs += ", indices_are_sorted = false"
    args = (Arg(TT(oshape, et)), Arg(TT(tuple(ishape), it), values="index"))
    return OpCase(op, args, (TT(tuple(out), et),), attrs)


@recipe("stablehlo.scatter")
def _scatter(draw, op):
    et = draw_type(draw, ALL)
    oshape = draw_shape(draw, min_rank=1, min_dim=1)
    r = len(oshape)
    sdims = draw(st.permutations(range(r)))[: draw(st.integers(0, r))]
    inserted = sorted(d for d in sdims if draw(st.booleans()))
    it = draw_type(draw, INDEX_TYPES)
    bshape = draw_shape(draw, max_rank=2)
    ishape = (*bshape, len(sdims))
    ivd = len(bshape)
    window = [draw(st.integers(0, oshape[d])) for d in range(r) if d not in inserted]
    urank = len(bshape) + len(window)
    uwd = draw_subset(draw, urank, len(window), len(window))
    ushape, bi, wi = [], iter(bshape), iter(window)
    for p in range(urank):
        ushape.append(next(wi) if p in uwd else next(bi))
    n = draw(st.integers(1, 2))
    ets = [et] + [draw_type(draw, ALL) for _ in range(n - 1)]
    attrs = (
        "scatter_dimension_numbers = #stablehlo.scatter<"
        + ", ".join(
            s
            for s in (
                f"update_window_dims = [{', '.join(map(str, uwd))}]" if uwd else "",
                f"inserted_window_dims = [{', '.join(map(str, inserted))}]" if inserted else "",
                f"scatter_dims_to_operand_dims = [{', '.join(map(str, sdims))}]" if sdims else "",
                f"index_vector_dim = {ivd}",
            )
            if s
        )
        + ">"
    )
    if draw(st.booleans()):
        attrs += ", unique_indices = false, indices_are_sorted = false"
    args = (
        *(Arg(TT(oshape, e)) for e in ets),
        Arg(TT(ishape, it), values="index"),
        *(Arg(TT(tuple(ushape), e)) for e in ets),
    )
    body = combine_body(draw, ets)
    return OpCase(op, args, tuple(TT(oshape, e) for e in ets), attrs, (body,))


@recipe("stablehlo.sort")
def _sort(draw, op):
    shape = draw_shape(draw, min_rank=1)
    n = draw(st.integers(1, 3))
    ets = [draw_type(draw, NO_COMPLEX)] + [draw_type(draw, ALL) for _ in range(n - 1)]
    dim = draw(st.integers(-len(shape), len(shape) - 1))
    key = ets[0]
    s = scalar_type(key)
    if key.kind == "float":
        ctype = draw(st.sampled_from(("FLOAT", "TOTALORDER")))
    else:
        ctype = "UNSIGNED" if key.kind == "bool" or not key.signed else "SIGNED"
    direction = draw(st.sampled_from(("LT", "GT")))

    def cmp(i, a, b, e):
        if i:
            return []
        return (
            f'%r0 = "stablehlo.compare"({a}, {b}) {{comparison_direction = '
            f"#stablehlo<comparison_direction {direction}>, compare_type = "
            f"#stablehlo<comparison_type {ctype}>}} : ({s}, {s}) -> tensor<i1>"
        )

    args = [f"%a{i}: {scalar_type(e)}, %b{i}: {scalar_type(e)}" for i, e in enumerate(ets)]
    body = (
        "{\n    ^bb0("
        + ", ".join(args)
        + "):\n    "
        + cmp(0, "%a0", "%b0", key)
        + '\n    "stablehlo.return"(%r0) : (tensor<i1>) -> ()\n  }'
    )
    stable = draw(st.booleans())
    attrs = f"dimension = {dim} : i64, is_stable = {'true' if stable else 'false'}"
    return OpCase(
        op, tuple(Arg(TT(shape, e)) for e in ets), tuple(TT(shape, e) for e in ets), attrs, (body,)
    )
