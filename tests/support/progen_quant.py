"""progen recipes: quantized tensors (spec "Quantized element types" and the quantized
constraints of uniform_quantize, uniform_dequantize, the element-wise ops, data
movement and dot_general; tests/support/progen.py documents the API).

Recipes register under ``<op>+quant`` (the op case names the op itself), so that
``cases(["stablehlo.add+quant"])`` draws quantized adds only.  Quantized types are
uniform: a storage type (i4, i8, i16, ui8), an expressed type (f32, bf16, f16), scales
that are powers of two or small multiples of them and small zero points; per-axis
types (``quantization_dimension``) have one scale and zero point per slice.
"""

from __future__ import annotations

import math

from hypothesis import strategies as st

from tests.property.elements import BY_NAME

from .progen_core import (
    TT,
    Arg,
    OpCase,
    arr_attr,
    draw_shape,
    draw_type,
    recipe,
)

_STORAGE = tuple(BY_NAME[n] for n in ("i4", "i8", "i16", "ui8"))
_EXPRESSED = tuple(BY_NAME[n] for n in ("f32", "bf16", "f16"))
_SCALES = ("5.000000e-01", "2.500000e-01", "6.250000e-02", "1.500000e+00", "1.000000e+00")


def _zero_point(draw, storage) -> int:
    lo = -3 if storage.signed else 0
    return draw(st.integers(lo, 3))


def quant_type(draw, shape, *, storage=None, expressed=None, axis: int | None = None, zp=None):
    """A quantized TT of ``shape``: per-tensor, or per-axis along ``axis``."""
    storage = storage or draw_type(draw, _STORAGE)
    expressed = expressed or draw_type(draw, _EXPRESSED)
    if axis is None:
        z = _zero_point(draw, storage) if zp is None else zp
        text = (
            f"!quant.uniform<{storage.name}:{expressed.name}, {draw(st.sampled_from(_SCALES))}:{z}>"
        )
    else:
        params = ", ".join(
            f"{draw(st.sampled_from(_SCALES))}:{_zero_point(draw, storage) if zp is None else zp}"
            for _ in range(shape[axis])
        )
        text = f"!quant.uniform<{storage.name}:{expressed.name}:{axis}, {{{params}}}>"
    return TT(tuple(shape), storage, (), text)


@recipe("stablehlo.uniform_quantize+quant")
def _uniform_quantize(draw, key):
    op = key.split("+")[0]
    shape = draw_shape(draw, min_rank=0)
    expressed = draw_type(draw, _EXPRESSED)
    axis = (
        draw(st.integers(0, len(shape) - 1))
        if shape and all(shape) and draw(st.booleans())
        else None
    )
    out = quant_type(draw, shape, expressed=expressed, axis=axis)
    if draw(st.booleans()):  # float -> quantized
        return OpCase(op, (Arg(TT(shape, expressed)),), (out,))
    # quantized -> quantized (a requantization; per-tensor, same expressed type)
    src = quant_type(draw, shape, expressed=expressed)
    out = quant_type(draw, shape, expressed=expressed)
    return OpCase(op, (Arg(src),), (out,))


@recipe("stablehlo.uniform_dequantize+quant")
def _uniform_dequantize(draw, key):
    op = key.split("+")[0]
    shape = draw_shape(draw, min_rank=0)
    axis = (
        draw(st.integers(0, len(shape) - 1))
        if shape and all(shape) and draw(st.booleans())
        else None
    )
    q = quant_type(draw, shape, axis=axis)
    expressed = BY_NAME[q.quant.split(":")[1].split(",")[0]]
    return OpCase(op, (Arg(q),), (TT(shape, expressed),))


_QUANT_BINARY = ("add", "subtract", "multiply", "maximum", "minimum")
_QUANT_UNARY = ("abs", "negate", "exponential", "tanh", "sqrt", "logistic", "sine")


@recipe(*(f"stablehlo.{n}+quant" for n in _QUANT_BINARY))
def _binary(draw, key):
    op = key.split("+")[0]
    shape = draw_shape(draw)
    storage, expressed = draw_type(draw, _STORAGE), draw_type(draw, _EXPRESSED)
    a, b, r = (quant_type(draw, shape, storage=storage, expressed=expressed) for _ in range(3))
    return OpCase(op, (Arg(a), Arg(b)), (r,))


@recipe(*(f"stablehlo.{n}+quant" for n in _QUANT_UNARY))
def _unary(draw, key):
    op = key.split("+")[0]
    shape = draw_shape(draw)
    storage, expressed = draw_type(draw, _STORAGE), draw_type(draw, _EXPRESSED)
    a, r = (quant_type(draw, shape, storage=storage, expressed=expressed) for _ in range(2))
    return OpCase(op, (Arg(a),), (r,))


@recipe("stablehlo.transpose+quant", "stablehlo.reshape+quant", "stablehlo.broadcast_in_dim+quant")
def _movement(draw, key):
    """Data movement keeps the (per-tensor) quantized type."""
    op = key.split("+")[0]
    shape = draw_shape(draw)
    q = quant_type(draw, shape)
    if op == "stablehlo.transpose":
        perm = draw(st.permutations(range(len(shape))))
        out = TT(tuple(shape[p] for p in perm), q.et, (), q.quant)
        return OpCase(op, (Arg(q),), (out,), f"permutation = {arr_attr(perm)}")
    if op == "stablehlo.reshape":
        out = TT((*shape, 1) if draw(st.booleans()) else (math.prod(shape),), q.et, (), q.quant)
        return OpCase(op, (Arg(q),), (out,))
    extra = draw_shape(draw, max_rank=1, min_dim=1)
    out_shape = tuple(extra) + tuple(shape)
    dims = [len(extra) + i for i in range(len(shape))]
    out = TT(out_shape, q.et, (), q.quant)
    return OpCase(op, (Arg(q),), (out,), f"broadcast_dimensions = {arr_attr(dims)}")


@recipe("stablehlo.dot_general+quant")
def _dot_general(draw, key):
    """lhs per-tensor quantized, rhs per-tensor or per-axis (along a free dimension)
    with zero points 0 (spec dot_general C14-C20), result per-tensor quantized."""
    op = key.split("+")[0]
    storage = draw_type(draw, tuple(BY_NAME[n] for n in ("i8", "i4")))
    expressed = BY_NAME["f32"]
    m, k, n = (draw(st.integers(1, 3)) for _ in range(3))
    lhs = quant_type(draw, (m, k), storage=storage, expressed=expressed)
    per_axis = draw(st.booleans())
    rhs = quant_type(
        draw, (k, n), storage=storage, expressed=expressed, axis=1 if per_axis else None, zp=0
    )
    out = quant_type(
        draw,
        (m, n),
        storage=BY_NAME["i32"] if draw(st.booleans()) else storage,
        expressed=expressed,
    )
    attrs = (
        "dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [1], "
        "rhs_contracting_dimensions = [0]>"
    )
    return OpCase(op, (Arg(lhs), Arg(rhs)), (out,), attrs)
