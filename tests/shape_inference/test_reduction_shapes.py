"""Shape functions of reduce, reduce_window, select_and_scatter, sort, map: the spec's
examples and one negative test per enforced constraint label."""

from __future__ import annotations

import numpy as np
import pytest

from hlorun import shape_inference  # noqa: F401  (fills the op table)
from hlorun.parser.errors import VerificationError
from hlorun.parser.ir import (
    Block,
    FloatType,
    IntegerType,
    Operation,
    Region,
    TensorType,
    Value,
)
from hlorun.shape_inference.optable import OP_TABLE, ShapeContext

I64 = IntegerType(64)
I32 = IntegerType(32)
F32 = FloatType("f32")
I1 = IntegerType(1)


def T(shape, e=I64):
    return TensorType(None if shape is None else tuple(shape), e)


def S(e=I64):
    return TensorType((), e)


def body(args, rets) -> Region:
    """A region with the given argument types returning values of types ``rets``
    (made by placeholder ops; only the signature matters here)."""
    a = tuple(Value(f"%arg{i}", t) for i, t in enumerate(args))
    ops = []
    results = []
    for k, t in enumerate(rets):
        v = Value(f"%{k}", t)
        ops.append(Operation("stablehlo.add", a[:2], (v,)))
        results.append(v)
    ops.append(Operation("stablehlo.return", tuple(results)))
    return Region((Block(a, tuple(ops)),))


def infer(op, *types, regions=(), results=(), **attrs):
    row = OP_TABLE[op]
    ctx = ShapeContext(op, None, tuple(results), tuple(regions))
    return row.shape(ctx, *types, **attrs)


def label_of(op, *types, **kw):
    with pytest.raises(VerificationError) as e:
        infer(op, *types, **kw)
    return e.value.label


# ---- reduce ---------------------------------------------------------------------------

ADD = body([S(), S()], [S()])


def test_reduce_spec_example():
    assert infer("stablehlo.reduce", T([1, 6]), S(), dimensions=(1,), regions=[ADD]) == (T([1]),)


def test_reduce_variadic_promoted_and_dynamic():
    b = body([S(F32), S(I64), S(F32), S(I64)], [S(F32), S(I64)])
    got = infer(
        "stablehlo.reduce",
        T([None, 3, 4], F32),
        T([None, 3, 4], I32),
        S(F32),
        S(I32),
        dimensions=(2,),
        regions=[b],
    )
    assert got == (T([None, 3], F32), T([None, 3], I64))


def test_reduce_vector_accumulator_accepted():
    """The StableHLO verifier accepts bodies over init-shaped accumulators (infer_stablehlo)."""
    v = T([5], F32)
    got = infer("stablehlo.reduce", T([7, 5], F32), v, dimensions=(0,), regions=[body([v, v], [v])])
    assert got == (T([5], F32),)


@pytest.mark.parametrize(
    "types, kw, label",
    [
        ((T([2]), S()), dict(results=(T([]), T([]))), "reduce_c3"),
        ((T([2]),), {}, "reduce_c3"),
        ((T([2]), T([3]), S(), S()), dict(regions=[body([S()] * 4, [S(), S()])]), "reduce_c1"),
        ((T([2]), S(I32)), {}, "reduce_c2"),
        ((T([2]), S()), dict(dimensions=(1,)), "reduce_c4"),
        ((T([2, 2]), S()), dict(dimensions=(0, 0)), "reduce_c5"),
        ((T([2]), S()), dict(regions=[body([S(), S()], [S(), S()])]), "reduce_c6"),
        ((T([2]), S()), dict(regions=[body([S(I32), S(I32)], [S(I32)])]), "reduce_c6"),
        ((T([2]), T([2])), {}, "reduce_c6"),  # body result shape != init shape
    ],
)
def test_reduce_errors(types, kw, label):
    kw.setdefault("regions", [ADD])
    kw.setdefault("dimensions", (0,))
    assert label_of("stablehlo.reduce", *types, **kw) == label


# ---- reduce_window --------------------------------------------------------------------

RW = dict(
    window_strides=(4, 1),
    base_dilations=(2, 1),
    window_dilations=(3, 1),
    padding=np.array([[2, 1], [0, 0]]),
)


def test_reduce_window_spec_examples():
    got = infer(
        "stablehlo.reduce_window", T([3, 2]), S(), window_dimensions=(2, 1), regions=[ADD], **RW
    )
    assert got == (T([2, 2]),)
    got = infer(
        "stablehlo.reduce_window", T([3, 2]), S(), window_dimensions=(3, 1), regions=[ADD], **RW
    )
    assert got == (T([1, 2]),)


def test_reduce_window_defaults_and_dynamic():
    got = infer(
        "stablehlo.reduce_window", T([None, 5]), S(), window_dimensions=(1, 2), regions=[ADD]
    )
    assert got == (T([None, 4]),)
    got = infer("stablehlo.reduce_window", T([1, 5]), S(), window_dimensions=(1, 9), regions=[ADD])
    assert got == (T([1, 0]),)


def test_reduce_window_bounds_of_dynamic_dimensions():
    # infer_stablehlo.mlir @reduce_window_bound: a bounded dynamic dimension gets the
    # number of windows of its bound as bound: 4x?x?x? <?, ?, 4, 2> -> <?, ?, 2, 2>
    from hlorun.parser.ir import TypeExtensions

    def B(shape, bounds):
        return TensorType(tuple(shape), F32, TypeExtensions(tuple(bounds)))

    add = body([S(F32), S(F32)], [S(F32)])
    got = infer(
        "stablehlo.reduce_window",
        B([4, None, None, None], [None, None, 4, 2]),
        S(F32),
        window_dimensions=(1, 1, 5, 1),
        window_strides=(1, 1, 3, 1),
        padding=np.array([[0, 0], [0, 0], [2, 2], [0, 0]]),
        regions=[add],
    )
    # dimension 2: padded size 2 + 4 + 2 = 8, (8 - 5) // 3 + 1 = 2 windows
    assert got == (B([4, None, None, None], [None, None, 2, 2]),)
    # a base dilation of 2 turns bound 3 into 5; windows of 2 with stride 1: 4
    got = infer(
        "stablehlo.reduce_window",
        B([None], [3]),
        S(F32),
        window_dimensions=(2,),
        base_dilations=(2,),
        regions=[add],
    )
    assert got == (B([None], [4]),)


@pytest.mark.parametrize(
    "kw, label",
    [
        (dict(window_dimensions=(2,)), "reduce_window_c4"),
        (dict(window_dimensions=(0, 1)), "reduce_window_c5"),
        (dict(window_strides=(1,)), "reduce_window_c6"),
        (dict(window_strides=(1, 0)), "reduce_window_c7"),
        (dict(base_dilations=(1, 1, 1)), "reduce_window_c8"),
        (dict(base_dilations=(-1, 1)), "reduce_window_c9"),
        (dict(window_dilations=(1,)), "reduce_window_c10"),
        (dict(window_dilations=(1, 0)), "reduce_window_c11"),
        (dict(padding=np.zeros((3, 2), np.int64)), "reduce_window_c12"),
        (dict(regions=[body([S(F32), S(F32)], [S(F32)])]), "reduce_window_c13"),
    ],
)
def test_reduce_window_errors(kw, label):
    kw.setdefault("regions", [ADD])
    kw.setdefault("window_dimensions", (1, 1))
    assert label_of("stablehlo.reduce_window", T([3, 2]), S(), **kw) == label


def test_reduce_window_operand_errors():
    kw = dict(window_dimensions=(1,), regions=[ADD])
    assert label_of("stablehlo.reduce_window", T([3]), **kw) == "reduce_window_c1"
    assert (
        label_of(
            "stablehlo.reduce_window",
            T([3]),
            T([4]),
            S(),
            S(),
            window_dimensions=(1,),
            regions=[body([S()] * 4, [S(), S()])],
        )
        == "reduce_window_c2"
    )
    assert label_of("stablehlo.reduce_window", T([3]), S(I32), **kw) == "reduce_window_c3"


# ---- select_and_scatter ---------------------------------------------------------------

SELECT = body([S(), S()], [S(I1)])
SS = dict(window_dimensions=(3, 1), window_strides=(2, 1), padding=np.array([[0, 1], [0, 0]]))


def test_select_and_scatter_spec_example():
    got = infer(
        "stablehlo.select_and_scatter", T([4, 2]), T([2, 2]), S(), regions=[SELECT, ADD], **SS
    )
    assert got == T([4, 2])


@pytest.mark.parametrize(
    "types, kw, label",
    [
        ((T([4, 2]), T([2, 2], I32), S()), {}, "select_and_scatter_c1"),
        ((T([4, 2]), T([3, 2]), S()), {}, "select_and_scatter_c2"),
        ((T([4, 2]), T([2, 2]), S(I32)), {}, "select_and_scatter_c3"),
        ((T([4, 2]), T([2, 2]), S()), dict(window_dimensions=(3,)), "select_and_scatter_c4"),
        ((T([4, 2]), T([2, 2]), S()), dict(window_dimensions=(0, 1)), "select_and_scatter_c5"),
        ((T([4, 2]), T([2, 2]), S()), dict(window_strides=(2,)), "select_and_scatter_c6"),
        ((T([4, 2]), T([2, 2]), S()), dict(window_strides=(0, 1)), "select_and_scatter_c7"),
        (
            (T([4, 2]), T([2, 2]), S()),
            dict(padding=np.zeros((1, 2), np.int64)),
            "select_and_scatter_c8",
        ),
        ((T([4, 2]), T([2, 2]), S()), dict(regions=[ADD, ADD]), "select_and_scatter_c9"),
        ((T([4, 2]), T([2, 2]), S()), dict(regions=[SELECT, SELECT]), "select_and_scatter_c10"),
    ],
)
def test_select_and_scatter_errors(types, kw, label):
    full = dict(SS, regions=[SELECT, ADD])
    full.update(kw)
    assert label_of("stablehlo.select_and_scatter", *types, **full) == label


# ---- sort -----------------------------------------------------------------------------

CMP2 = body([S(), S(), S(), S()], [S(I1)])


def test_sort_spec_example():
    got = infer("stablehlo.sort", T([2, 3]), T([2, 3]), dimension=0, is_stable=True, regions=[CMP2])
    assert got == (T([2, 3]), T([2, 3]))
    assert infer("stablehlo.sort", T([2, 3]), T([2, 3]), dimension=-2, regions=[CMP2]) == (
        T([2, 3]),
        T([2, 3]),
    )


@pytest.mark.parametrize(
    "types, kw, label",
    [
        ((), {}, "sort_c1"),
        ((T([2, 3]), T([3, 2])), {}, "sort_c3"),
        ((T([2, 3]), T([2, 3])), dict(dimension=2), "sort_c4"),
        ((T([2, 3]), T([2, 3])), dict(dimension=-3), "sort_c4"),
        ((T([2, 3]), T([2, 3], F32)), {}, "sort_c5"),
        ((T([2, 3]), T([2, 3])), dict(regions=[body([S()] * 4, [S()])]), "sort_c5"),
    ],
)
def test_sort_errors(types, kw, label):
    kw.setdefault("regions", [CMP2])
    kw.setdefault("dimension", 0)
    assert label_of("stablehlo.sort", *types, **kw) == label


# ---- map ------------------------------------------------------------------------------

MUL = body([S(), S()], [S()])


def test_map_spec_example():
    got = infer("stablehlo.map", T([2, 2]), T([2, 2]), dimensions=(0, 1), regions=[MUL])
    assert got == T([2, 2])
    got = infer(
        "stablehlo.map",
        T([2, 2]),
        T([2, 2]),
        dimensions=(0, 1),
        regions=[body([S(), S()], [S(F32)])],
    )
    assert got == T([2, 2], F32)


@pytest.mark.parametrize(
    "types, kw, label",
    [
        ((T([2, 2]), T([2, 3])), {}, "map_c1"),
        ((), {}, "map_c2"),
        ((T([2, 2]), T([2, 2])), dict(dimensions=(0,)), "map_c3"),
        ((T([2, 2]), T([2, 2])), dict(regions=[body([S(), S(), S()], [S()])]), "map_c4"),
        ((T([2, 2]), T([2, 2])), dict(regions=[body([S(), S()], [S(), S()])]), "map_c4"),
    ],
)
def test_map_errors(types, kw, label):
    kw.setdefault("regions", [MUL])
    kw.setdefault("dimensions", (0, 1))
    assert label_of("stablehlo.map", *types, **kw) == label
