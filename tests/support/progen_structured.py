"""progen recipes: reductions, linear algebra, dynamic-shape ops, control flow, random
numbers and CHLO (spec / ChloOps.td constraints; tests/support/progen.py documents the
API)."""

from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

from tests.property.elements import (
    ALL,
    BOOL,
    BY_NAME,
    COMPLEXES,
    ET,
    FLOATS,
)

from .progen_core import (
    C64,
    C128,
    DIRECTIONS,
    F32,
    F64,
    I32,
    I64,
    INTS,
    NUMERIC,
    RECIPES,
    TT,
    UI64,
    Arg,
    OpCase,
    arr_attr,
    bools_attr,
    combine_body,
    dense_text,
    draw_combiner,
    draw_shape,
    draw_subset,
    draw_type,
    i64_dense,
    num_windows,
    recipe,
    scalar_type,
)
from .progen_movement import pad_params

# ---------------------------------------------------------------------------------------
# Reductions
# ---------------------------------------------------------------------------------------


def _promoted(draw, et: ET) -> ET:
    """A body element type ``E`` with is_promotable(et, E) (spec: same kind, no fewer
    bits); usually ``et`` itself."""
    if draw(st.integers(0, 3)):
        return et
    if et.kind == "int":
        return draw_type(draw, [t for t in INTS if t.width >= et.width])
    if et.kind == "float":
        return draw_type(draw, [t for t in FLOATS if t.width >= et.width and t.width != 19] + [et])
    if et.kind == "complex":
        return draw_type(draw, [t for t in COMPLEXES if t.width >= et.width])
    return et


@recipe("stablehlo.reduce")
def _reduce(draw, op):
    shape = draw_shape(draw)
    n = draw(st.integers(1, 3))
    ets = [draw_type(draw, ALL) for _ in range(n)]
    bets = [_promoted(draw, e) for e in ets]
    dims = draw(st.permutations(draw_subset(draw, len(shape))))
    out = tuple(d for i, d in enumerate(shape) if i not in dims)
    args = (*(Arg(TT(shape, e)) for e in ets), *(Arg(TT((), e)) for e in ets))
    body = combine_body(draw, bets)
    return OpCase(
        op, args, tuple(TT(out, e) for e in bets), f"dimensions = {arr_attr(dims)}", (body,)
    )


@recipe("stablehlo.reduce_window")
def _reduce_window(draw, op):
    shape = draw_shape(draw, max_dim=5)
    r = len(shape)
    n = draw(st.integers(1, 3))
    ets = [draw_type(draw, ALL) for _ in range(n)]
    bets = [_promoted(draw, e) for e in ets]
    win = [draw(st.integers(1, 3)) for _ in range(r)]
    strides = [draw(st.integers(1, 3)) for _ in range(r)]
    bdil = [draw(st.integers(1, 2)) for _ in range(r)]
    wdil = [draw(st.integers(1, 2)) for _ in range(r)]
    pad = [(draw(st.integers(0, 2)), draw(st.integers(0, 2))) for _ in range(r)]
    out = tuple(
        num_windows(shape[i], win[i], strides[i], *pad[i], bdil[i], wdil[i]) for i in range(r)
    )
    attrs = [f"window_dimensions = {arr_attr(win)}"]
    if draw(st.booleans()):
        attrs.append(f"window_strides = {arr_attr(strides)}")
    else:
        out = tuple(num_windows(shape[i], win[i], 1, *pad[i], bdil[i], wdil[i]) for i in range(r))
        strides = [1] * r
    if draw(st.booleans()) and r:
        attrs.append(f"base_dilations = {arr_attr(bdil)}")
        attrs.append(f"window_dilations = {arr_attr(wdil)}")
        attrs.append(f"padding = {i64_dense(pad, (r, 2)).split(' : ')[0]} : tensor<{r}x2xi64>")
    else:
        out = tuple(num_windows(shape[i], win[i], strides[i], 0, 0, 1, 1) for i in range(r))
    args = (*(Arg(TT(shape, e)) for e in ets), *(Arg(TT((), e)) for e in ets))
    body = combine_body(draw, bets)
    return OpCase(op, args, tuple(TT(out, e) for e in bets), ", ".join(attrs), (body,))


@recipe("stablehlo.select_and_scatter")
def _select_and_scatter(draw, op):
    et = draw_type(draw, INTS + FLOATS)
    shape = draw_shape(draw, max_dim=5)
    r = len(shape)
    win = [draw(st.integers(1, 3)) for _ in range(r)]
    strides = [draw(st.integers(1, 3)) for _ in range(r)]
    pad = [(draw(st.integers(0, 1)), draw(st.integers(0, 1))) for _ in range(r)]
    src = tuple(num_windows(shape[i], win[i], strides[i], *pad[i], 1, 1) for i in range(r))
    s = scalar_type(et)
    direction = draw(st.sampled_from(("GE", "LE", "GT")))
    select = (
        f'{{\n    ^bb0(%a: {s}, %b: {s}):\n    %p = "stablehlo.compare"(%a, %b) '
        f"{{comparison_direction = #stablehlo<comparison_direction {direction}>}} : ({s}, {s})"
        f' -> tensor<i1>\n    "stablehlo.return"(%p) : (tensor<i1>) -> ()\n  }}'
    )
    scatter = combine_body(draw, [et])
    attrs = (
        f"window_dimensions = {arr_attr(win)}, window_strides = {arr_attr(strides)}, "
        f"padding = {i64_dense(pad, (r, 2)).split(' : ')[0]} : tensor<{r}x2xi64>"
    )
    args = (Arg(TT(shape, et)), Arg(TT(src, et)), Arg(TT((), et)))
    return OpCase(op, args, (TT(shape, et),), attrs, (select, scatter))


@recipe("stablehlo.map")
def _map(draw, op):
    et = draw_type(draw, ALL)
    shape = draw_shape(draw)
    n = draw(st.integers(1, 2))
    s = scalar_type(et)
    args = ", ".join(f"%x{i}: {s}" for i in range(n))
    name = draw_combiner(draw, et)
    line = (
        f'%y = "stablehlo.{name}"(%x0, %x{n - 1}) : ({s}, {s}) -> {s}'
        if n == 2
        else f'%y = "stablehlo.{name}"(%x0, %x0) : ({s}, {s}) -> {s}'
    )
    body = f'{{\n    ^bb0({args}):\n    {line}\n    "stablehlo.return"(%y) : ({s}) -> ()\n  }}'
    attrs = f"dimensions = {arr_attr(range(len(shape)))}"
    return OpCase(op, tuple(Arg(TT(shape, et)) for _ in range(n)), (TT(shape, et),), attrs, (body,))


# ---------------------------------------------------------------------------------------
# Linear algebra
# ---------------------------------------------------------------------------------------

_WIDER = {"i8": "i32", "ui8": "ui32", "bf16": "f32", "f16": "f32", "i16": "i32", "i4": "i32"}


@recipe("stablehlo.dot_general")
def _dot_general(draw, op):
    et = draw_type(draw, NUMERIC + (BOOL,))
    nb, nc = draw(st.integers(0, 2)), draw(st.integers(0, 2))
    nl, nr = draw(st.integers(0, 2)), draw(st.integers(0, 2))
    bsz = [draw(st.integers(1, 3)) for _ in range(nb)]
    csz = [draw(st.integers(0, 4)) for _ in range(nc)]
    lf = [draw(st.integers(1, 3)) for _ in range(nl)]
    rf = [draw(st.integers(1, 3)) for _ in range(nr)]
    lperm = draw(st.permutations(range(nb + nc + nl)))
    rperm = draw(st.permutations(range(nb + nc + nr)))
    lsizes = bsz + csz + lf  # logical order: batch, contracting, free
    rsizes = bsz + csz + rf
    lshape = [0] * len(lsizes)
    rshape = [0] * len(rsizes)
    for logical, pos in enumerate(lperm):
        lshape[pos] = lsizes[logical]
    for logical, pos in enumerate(rperm):
        rshape[pos] = rsizes[logical]
    lb, lc = list(lperm[:nb]), list(lperm[nb : nb + nc])
    rb, rc = list(rperm[:nb]), list(rperm[nb : nb + nc])
    lfree = sorted(lperm[nb + nc :])
    rfree = sorted(rperm[nb + nc :])
    out = tuple(bsz) + tuple(lshape[d] for d in lfree) + tuple(rshape[d] for d in rfree)
    out_et = BY_NAME[_WIDER[et.name]] if et.name in _WIDER and draw(st.booleans()) else et
    dn = ", ".join(
        s
        for s in (
            f"lhs_batching_dimensions = [{', '.join(map(str, lb))}]" if lb else "",
            f"rhs_batching_dimensions = [{', '.join(map(str, rb))}]" if rb else "",
            f"lhs_contracting_dimensions = [{', '.join(map(str, lc))}]" if lc else "",
            f"rhs_contracting_dimensions = [{', '.join(map(str, rc))}]" if rc else "",
        )
        if s
    )
    attrs = f"dot_dimension_numbers = #stablehlo.dot<{dn}>"
    if draw(st.booleans()):
        p = draw(st.sampled_from(("DEFAULT", "HIGH", "HIGHEST")))
        attrs += f", precision_config = [#stablehlo<precision {p}>, #stablehlo<precision {p}>]"
    args = (Arg(TT(tuple(lshape), et)), Arg(TT(tuple(rshape), et)))
    return OpCase(op, args, (TT(out, out_et),), attrs)


@recipe("stablehlo.dot")
def _dot(draw, op):
    et = draw_type(draw, NUMERIC)
    form = draw(st.sampled_from(("vv", "mv", "mm")))
    m, k, n = (draw(st.integers(0, 3)) for _ in range(3))
    lhs, rhs, out = {
        "vv": ((k,), (k,), ()),
        "mv": ((m, k), (k,), (m,)),
        "mm": ((m, k), (k, n), (m, n)),
    }[form]
    return OpCase(op, (Arg(TT(lhs, et)), Arg(TT(rhs, et))), (TT(out, et),))


def _conv_case(draw, op: str, dynamic: bool) -> OpCase:
    et = draw_type(draw, INTS + FLOATS + COMPLEXES)
    s = draw(st.integers(0, 2))
    n = s + 2
    fg, bg = 1, 1
    mode = draw(st.sampled_from(("plain", "plain", "feature", "batch")))
    if mode == "feature":
        fg = draw(st.integers(1, 3))
    elif mode == "batch":
        bg = draw(st.integers(1, 3))
    batch = bg * draw(st.integers(0 if bg == 1 else 1, 2))
    feat = fg * draw(st.integers(1, 2))
    kout = fg * bg * draw(st.integers(1, 2))
    spatial = [draw(st.integers(0, 5)) for _ in range(s)]
    ksp = [draw(st.integers(1, 3)) for _ in range(s)]
    strides = [draw(st.integers(1, 2)) for _ in range(s)]
    ldil = [draw(st.integers(1, 2)) for _ in range(s)]
    rdil = [draw(st.integers(1, 2)) for _ in range(s)]
    pad = [(draw(st.integers(-1, 2)), draw(st.integers(-1, 2))) for _ in range(s)]
    rev = [draw(st.booleans()) for _ in range(s)]
    # layouts: a permutation of (batch, feature, spatial...) over the N dims
    ip = draw(st.permutations(range(n)))
    kp = draw(st.permutations(range(n)))
    op_ = draw(st.permutations(range(n)))
    ib, if_, isp = ip[0], ip[1], list(ip[2:])
    ki, ko, ksp_d = kp[0], kp[1], list(kp[2:])
    ob, of, osp = op_[0], op_[1], list(op_[2:])
    lshape = [0] * n
    lshape[ib], lshape[if_] = batch, feat
    for i, d in enumerate(isp):
        lshape[d] = spatial[i]
    rshape = [0] * n
    rshape[ki], rshape[ko] = feat // fg, kout
    for i, d in enumerate(ksp_d):
        rshape[d] = ksp[i]
    out = [0] * n
    out[ob], out[of] = batch // bg, kout
    for i, d in enumerate(osp):
        out[d] = num_windows(spatial[i], ksp[i], strides[i], *pad[i], ldil[i], rdil[i])
    letters = {"i": [""] * n, "k": [""] * n, "o": [""] * n}
    letters["i"][ib], letters["i"][if_] = "b", "f"
    letters["k"][ki], letters["k"][ko] = "i", "o"
    letters["o"][ob], letters["o"][of] = "b", "f"
    for i in range(s):
        letters["i"][isp[i]] = str(i)
        letters["k"][ksp_d[i]] = str(i)
        letters["o"][osp[i]] = str(i)
    dn = (
        f"#stablehlo.conv<[{', '.join(letters['i'])}]x[{', '.join(letters['k'])}]->"
        f"[{', '.join(letters['o'])}]>"
    )
    attrs = [f"dimension_numbers = {dn}"]
    if draw(st.booleans()) or any(v != 1 for v in strides):
        attrs.append(f"window_strides = {arr_attr(strides)}")
    attrs.append(f"lhs_dilation = {arr_attr(ldil)}")
    attrs.append(f"rhs_dilation = {arr_attr(rdil)}")
    if draw(st.booleans()):
        attrs.append(f"window_reversal = {bools_attr(rev)}")
    attrs.append(f"feature_group_count = {fg} : i64")
    attrs.append(f"batch_group_count = {bg} : i64")
    if draw(st.booleans()):
        attrs.append(
            "precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]"
        )
    args = [Arg(TT(tuple(lshape), et)), Arg(TT(tuple(rshape), et))]
    if dynamic:
        pet = draw_type(draw, (I32, I64))
        # the padding a constant, or a parameter (its value then unknown to the verifier,
        # and the spatial result dimensions may be declared static or dynamic)
        param = draw(st.booleans())
        value = np.asarray(pad, pet.dtype).reshape(s, 2)
        args.append(Arg(TT((s, 2), pet), value=value, param=param))
        if draw(st.booleans()):
            return OpCase(
                op, tuple(args), (TT(tuple(out), et).with_dynamic(osp),), ", ".join(attrs)
            )
    else:
        attrs.append(f"padding = {i64_dense(pad, (s, 2)).split(' : ')[0]} : tensor<{s}x2xi64>")
    return OpCase(op, tuple(args), (TT(tuple(out), et),), ", ".join(attrs))


@recipe("stablehlo.convolution")
def _convolution(draw, op):
    return _conv_case(draw, op, dynamic=False)


@recipe("stablehlo.dynamic_conv")
def _dynamic_conv(draw, op):
    return _conv_case(draw, op, dynamic=True)


@recipe("stablehlo.triangular_solve")
def _triangular_solve(draw, op):
    et = draw_type(draw, (F32, F64, C64, C128, BY_NAME["f16"], BY_NAME["bf16"]))
    batch = draw_shape(draw, max_rank=2, max_dim=2)
    m, k = draw(st.integers(0, 4)), draw(st.integers(0, 3))
    left = draw(st.booleans())
    a = (*batch, m, m)
    b = (*batch, m, k) if left else (*batch, k, m)
    ta = draw(st.sampled_from(("NO_TRANSPOSE", "TRANSPOSE", "ADJOINT")))
    attrs = (
        f"left_side = {str(left).lower()}, lower = {str(draw(st.booleans())).lower()}, "
        f"unit_diagonal = {str(draw(st.booleans())).lower()}, "
        f"transpose_a = #stablehlo<transpose {ta}>"
    )
    return OpCase(op, (Arg(TT(a, et), values="unit"), Arg(TT(b, et))), (TT(b, et),), attrs)


@recipe("stablehlo.cholesky")
def _cholesky(draw, op):
    et = draw_type(draw, (F32, F64, C64, C128))
    batch = draw_shape(draw, max_rank=2, max_dim=2)
    m = draw(st.integers(0, 4))
    attrs = f"lower = {str(draw(st.booleans())).lower()}"
    t = TT((*batch, m, m), et)
    return OpCase(op, (Arg(t),), (t,), attrs)


@recipe("stablehlo.fft")
def _fft(draw, op):
    kind = draw(st.sampled_from(("FFT", "IFFT", "RFFT", "IRFFT")))
    big = draw(st.booleans())
    c, f = (C128, F64) if big else (C64, F32)
    lead = draw_shape(draw, max_rank=2, max_dim=2)
    nl = draw(st.integers(1, 3))
    lens = [draw(st.integers(1, 4)) for _ in range(nl)]
    attrs = f"fft_type = #stablehlo<fft_type {kind}>, fft_length = {arr_attr(lens)}"
    if kind in ("FFT", "IFFT"):
        t = TT((*lead, *lens), c)
        return OpCase(op, (Arg(t),), (t,), attrs)
    half = (*lens[:-1], lens[-1] // 2 + 1)
    if kind == "RFFT":
        return OpCase(op, (Arg(TT((*lead, *lens), f)),), (TT((*lead, *half), c),), attrs)
    return OpCase(op, (Arg(TT((*lead, *half), c)),), (TT((*lead, *lens), f),), attrs)


def _bn_common(draw):
    et = draw_type(draw, (F32, F64, BY_NAME["f16"], BY_NAME["bf16"]))
    shape = draw_shape(draw, min_rank=1, min_dim=1)
    fi = draw(st.integers(0, len(shape) - 1))
    eps = draw(st.sampled_from(("1.000000e-03", "9.99999974E-6", "0.000000e+00")))
    return et, shape, fi, f"epsilon = {eps} : f32, feature_index = {fi} : i64"


@recipe("stablehlo.batch_norm_inference")
def _bn_inference(draw, op):
    et, shape, fi, attrs = _bn_common(draw)
    f = TT((shape[fi],), et)
    args = (Arg(TT(shape, et)), Arg(f), Arg(f), Arg(f), Arg(f, values="positive"))
    return OpCase(op, args, (TT(shape, et),), attrs)


@recipe("stablehlo.batch_norm_training")
def _bn_training(draw, op):
    et, shape, fi, attrs = _bn_common(draw)
    f = TT((shape[fi],), et)
    return OpCase(op, (Arg(TT(shape, et)), Arg(f), Arg(f)), (TT(shape, et), f, f), attrs)


@recipe("stablehlo.batch_norm_grad")
def _bn_grad(draw, op):
    et, shape, fi, attrs = _bn_common(draw)
    f = TT((shape[fi],), et)
    x = TT(shape, et)
    args = (Arg(x), Arg(f), Arg(f), Arg(f, values="positive"), Arg(x))
    return OpCase(op, args, (x, f, f), attrs)


# ---------------------------------------------------------------------------------------
# Dynamic-shape ops: shape operands whose values the (static) result fixes
# ---------------------------------------------------------------------------------------


def _const(values, et: ET = I64, shape=None, param: bool = False) -> Arg:
    a = np.asarray(values, dtype=et.dtype)
    if shape is not None:
        a = a.reshape(shape)
    return Arg(TT(a.shape, et), value=a, param=param)


def _shape_operand(draw, out: TT) -> tuple[Arg, TT]:
    """An output-shape operand of ``out``'s shape: a constant, or a parameter (then
    some result dimensions may be declared ``?``)."""
    it = draw_type(draw, (I32, I64))
    param = draw(st.booleans())
    arg = _const(out.shape, it, (len(out.shape),), param)
    if param and out.shape:
        out = out.with_dynamic(draw_subset(draw, len(out.shape)))
    return arg, out


@recipe("stablehlo.dynamic_reshape")
def _dynamic_reshape(draw, op):
    case = RECIPES["stablehlo.reshape"](draw, "stablehlo.reshape")
    shape, out = _shape_operand(draw, case.results[0])
    return OpCase(op, (case.args[0], shape), (out,))


@recipe("stablehlo.dynamic_iota")
def _dynamic_iota(draw, op):
    case = RECIPES["stablehlo.iota"](draw, "stablehlo.iota")
    shape, out = _shape_operand(draw, case.results[0])
    return OpCase(op, (shape,), (out,), case.attrs)


@recipe("stablehlo.dynamic_broadcast_in_dim")
def _dynamic_broadcast_in_dim(draw, op):
    case = RECIPES["stablehlo.broadcast_in_dim"](draw, "stablehlo.broadcast_in_dim")
    shape, out = _shape_operand(draw, case.results[0])
    return OpCase(op, (case.args[0], shape), (out,), case.attrs)


@recipe("stablehlo.dynamic_pad")
def _dynamic_pad(draw, op):
    et = draw_type(draw, ALL)
    shape = draw_shape(draw)
    lo, hi, interior, out = pad_params(draw, shape)
    r = len(shape)
    it = draw_type(draw, (I32, I64))
    args = (
        Arg(TT(shape, et)),
        Arg(TT((), et)),
        _const(lo, it, (r,)),
        _const(hi, it, (r,)),
        _const(interior, it, (r,)),
    )
    return OpCase(op, args, (TT(out, et),))


@recipe("stablehlo.real_dynamic_slice")
def _real_dynamic_slice(draw, op):
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
    it = draw_type(draw, (I32, I64))
    r = len(shape)
    args = (
        Arg(TT(shape, et)),
        _const(start, it, (r,)),
        _const(limit, it, (r,)),
        _const(strides, it, (r,)),
    )
    return OpCase(op, args, (TT(tuple(out), et),))


# ---------------------------------------------------------------------------------------
# Control flow, tuples, random numbers
# ---------------------------------------------------------------------------------------


@recipe("stablehlo.optimization_barrier")
def _optimization_barrier(draw, op):
    ts = [TT(draw_shape(draw), draw_type(draw, ALL)) for _ in range(draw(st.integers(1, 3)))]
    return OpCase(op, tuple(Arg(t) for t in ts), tuple(ts))


@recipe("stablehlo.if")
def _if(draw, op):
    ts = [TT(draw_shape(draw), draw_type(draw, ALL)) for _ in range(draw(st.integers(1, 2)))]
    types = ", ".join(t.text for t in ts)

    def branch(fill: int) -> str:
        lines = [
            f"%z{i} = stablehlo.constant "
            + dense_text(np.full(t.shape, fill, np.int8).astype(t.et.dtype), t.et)
            for i, t in enumerate(ts)
        ]
        rets = ", ".join(f"%z{i}" for i in range(len(ts)))
        lines.append(f'"stablehlo.return"({rets}) : ({types}) -> ()')
        return "{\n    " + "\n    ".join(lines) + "\n  }"

    return OpCase(op, (Arg(TT((), BOOL)),), tuple(ts), "", (branch(1), branch(0)))


@recipe("stablehlo.case")
def _case(draw, op):
    t = TT(draw_shape(draw), draw_type(draw, ALL))
    n = draw(st.integers(1, 3))
    branches = []
    for k in range(n):
        v = np.full(t.shape, k % 2, dtype=np.int8).astype(t.et.dtype)
        branches.append(
            f"{{\n    %z = stablehlo.constant {dense_text(v, t.et)}\n"
            f'    "stablehlo.return"(%z) : ({t.text}) -> ()\n  }}'
        )
    return OpCase(op, (Arg(TT((), I32)),), (t,), "", tuple(branches))


@recipe("stablehlo.while")
def _while(draw, op):
    t = TT(draw_shape(draw), draw_type(draw, ALL))
    steps = draw(st.integers(0, 3))
    i = scalar_type(I32)
    cond = (
        f"{{\n    ^bb0(%i: {i}, %x: {t.text}):\n"
        f"    %n = stablehlo.constant dense<{steps}> : {i}\n"
        f'    %p = "stablehlo.compare"(%i, %n) {{comparison_direction = '
        f"#stablehlo<comparison_direction LT>}} : ({i}, {i}) -> tensor<i1>\n"
        f'    "stablehlo.return"(%p) : (tensor<i1>) -> ()\n  }}'
    )
    body = (
        f"{{\n    ^bb0(%i: {i}, %x: {t.text}):\n"
        f"    %one = stablehlo.constant dense<1> : {i}\n"
        f'    %j = "stablehlo.add"(%i, %one) : ({i}, {i}) -> {i}\n'
        f'    "stablehlo.return"(%j, %x) : ({i}, {t.text}) -> ()\n  }}'
    )
    args = (_const(0, I32, ()), Arg(t))
    return OpCase(op, args, (TT((), I32), t), "", (cond, body))


@recipe("stablehlo.rng_bit_generator")
def _rng_bit_generator(draw, op):
    alg = draw(st.sampled_from(("DEFAULT", "THREE_FRY", "PHILOX")))
    n = 2 if alg != "PHILOX" else draw(st.sampled_from((2, 3)))
    st_et = draw_type(draw, (UI64,)) if alg != "PHILOX" else UI64
    # (2- and 4-bit outputs: the kernel refuses them, UnsupportedError)
    out_et = draw_type(draw, [t for t in INTS if t.width >= 8] + [F32, F64, BY_NAME["f16"]])
    shape = draw_shape(draw)
    state = TT((n,), st_et)
    attrs = f"rng_algorithm = #stablehlo<rng_algorithm {alg}>"
    return OpCase(op, (Arg(state),), (state, TT(shape, out_et)), attrs)


@recipe("chlo.top_k")
def _top_k(draw, op):
    et = draw_type(draw, INTS + (F32, F64, BY_NAME["bf16"], BY_NAME["f16"]))
    shape = draw_shape(draw, min_rank=1, min_dim=1)
    k = draw(st.integers(0, shape[-1]))
    out = (*shape[:-1], k)
    return OpCase(op, (Arg(TT(shape, et)),), (TT(out, et), TT(out, I32)), f"k = {k} : i64")


# ---------------------------------------------------------------------------------------
# CHLO elementwise
# ---------------------------------------------------------------------------------------

_CHLO_FLOATS = tuple(t for t in FLOATS if t.name != "tf32")  # ChloOps.td: no tf32
_CHLO_NUMERIC = INTS + _CHLO_FLOATS + COMPLEXES
_CHLO_UNARY: dict[str, tuple[ET, ...]] = {
    **{
        n: _CHLO_FLOATS + COMPLEXES
        for n in "acos acosh asin asinh atan atanh cosh sinh tan".split()
    },
    **{n: _CHLO_FLOATS for n in "erf erfc erf_inv lgamma digamma bessel_i1e".split()},
    "conj": COMPLEXES,
    "square": _CHLO_FLOATS + COMPLEXES,
}


@recipe(*(f"chlo.{n}" for n in _CHLO_UNARY))
def _chlo_unary(draw, op):
    et = draw_type(draw, _CHLO_UNARY[op.split(".")[1]])
    shape = draw_shape(draw)
    return OpCase(op, (Arg(TT(shape, et)),), (TT(shape, et),))


@recipe("chlo.is_inf", "chlo.is_neg_inf", "chlo.is_pos_inf")
def _chlo_is_inf(draw, op):
    et = draw_type(draw, _CHLO_FLOATS)
    shape = draw_shape(draw)
    return OpCase(op, (Arg(TT(shape, et)),), (TT(shape, BOOL),))


_CHLO_BINARY: dict[str, tuple[ET, ...]] = {
    "broadcast_add": _CHLO_NUMERIC,
    "broadcast_subtract": _CHLO_NUMERIC,
    "broadcast_multiply": _CHLO_NUMERIC,
    "broadcast_divide": _CHLO_NUMERIC,
    "broadcast_maximum": INTS + _CHLO_FLOATS,
    "broadcast_minimum": INTS + _CHLO_FLOATS,
    "broadcast_power": INTS + _CHLO_FLOATS + COMPLEXES,
    "broadcast_remainder": INTS + _CHLO_FLOATS,
    "broadcast_atan2": _CHLO_FLOATS,
    "broadcast_and": (BOOL, *INTS),
    "broadcast_or": (BOOL, *INTS),
    "broadcast_xor": (BOOL, *INTS),
    "broadcast_shift_left": INTS,
    "broadcast_shift_right_arithmetic": INTS,
    "broadcast_shift_right_logical": INTS,
    "broadcast_next_after": _CHLO_FLOATS,
}


@recipe(*(f"chlo.{n}" for n in _CHLO_BINARY))
def _chlo_binary(draw, op):
    et = draw_type(draw, _CHLO_BINARY[op.split(".")[1]])
    out = draw_shape(draw)

    # numpy-style broadcasting: each operand is a suffix of the result with some 1s
    def operand_shape():
        k = draw(st.integers(0, len(out)))
        tail = out[len(out) - k :]
        return tuple(1 if draw(st.integers(0, 3)) == 0 else d for d in tail)

    a, b = operand_shape(), operand_shape()
    full = tuple(
        max(x, y) if 0 not in (x, y) else 0
        for x, y in zip(((1,) * (len(out) - len(a)) + a), ((1,) * (len(out) - len(b)) + b))
    )
    rank = len(out)
    full = full[rank - max(len(a), len(b)) :] if rank else ()
    return OpCase(op, (Arg(TT(a, et)), Arg(TT(b, et))), (TT(full, et),))


@recipe("chlo.broadcast_compare")
def _chlo_compare(draw, op):
    case = _chlo_binary(draw, "chlo.broadcast_add")
    et = case.args[0].type.et
    if et.kind == "complex":
        d = draw(st.sampled_from(("EQ", "NE")))
    else:
        d = draw(st.sampled_from(DIRECTIONS))
    out = TT(case.results[0].shape, BOOL)
    attrs = f"comparison_direction = #chlo<comparison_direction {d}>"
    return OpCase(op, case.args, (out,), attrs)
