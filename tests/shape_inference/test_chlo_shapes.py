"""chlo shape functions (docs/chlo.md): result type inference and the checks behind the
``chlo.<op>.<what>`` error labels."""

from __future__ import annotations

import numpy as np
import pytest

from hlorun import shape_inference  # noqa: F401  (fills the op table)
from hlorun.parser.errors import VerificationError
from hlorun.parser.ir import (
    ArrayAttr,
    Block,
    ComplexType,
    DialectAttr,
    FloatType,
    IntegerAttr,
    IntegerType,
    Region,
    TensorType,
    Value,
)
from hlorun.shape_inference.optable import OP_TABLE, ShapeContext

F32 = FloatType("f32")
F64 = FloatType("f64")
BF16 = FloatType("bf16")
TF32 = FloatType("tf32")
C64 = ComplexType(F32)
I1 = IntegerType(1)
I8 = IntegerType(8)
I32 = IntegerType(32)
I64 = IntegerType(64)
UI16 = IntegerType(16, "unsigned")


def T(shape, et):
    return TensorType(None if shape is None else tuple(shape), et)


def infer(op, *types, result_types=(), regions=(), **attrs):
    ctx = ShapeContext(op, None, tuple(result_types), tuple(regions))
    return OP_TABLE[op].shape(ctx, *types, **attrs)


def label_of(op, *types, **kw):
    with pytest.raises(VerificationError) as e:
        infer(op, *types, **kw)
    return e.value.label


# ---- unary / binary elementwise ----------------------------------------------------------

UNARY_FLOAT_OR_COMPLEX = [
    "acos",
    "acosh",
    "asin",
    "asinh",
    "atan",
    "atanh",
    "bessel_i1e",
    "conj",
    "cosh",
    "sinh",
    "tan",
    "square",
]
UNARY_FLOAT = ["digamma", "erf", "erfc", "erf_inv", "lgamma"]


@pytest.mark.parametrize("name", UNARY_FLOAT_OR_COMPLEX + UNARY_FLOAT)
@pytest.mark.parametrize("et", [F32, BF16, F64, FloatType("f8E4M3FN"), FloatType("f4E2M1FN")])
def test_unary_float_keeps_type(name, et):
    t = T((2, None, 3), et)
    assert infer(f"chlo.{name}", t) == t


@pytest.mark.parametrize("name", UNARY_FLOAT_OR_COMPLEX)
def test_unary_complex_allowed(name):
    t = T((4,), C64)
    assert infer(f"chlo.{name}", t) == t


@pytest.mark.parametrize("name", UNARY_FLOAT)
def test_unary_float_only_rejects_complex_and_int(name):
    assert label_of(f"chlo.{name}", T((4,), C64)) == f"chlo.{name}.element_type"
    assert label_of(f"chlo.{name}", T((4,), I32)) == f"chlo.{name}.element_type"


def test_tf32_is_not_a_chlo_float():
    assert label_of("chlo.erf", T((4,), TF32)) == "chlo.erf.element_type"


def test_asin_acos_kernel_complex_only():
    assert infer("chlo._asin_acos_kernel", T((3,), C64)) == T((3,), C64)
    assert label_of("chlo._asin_acos_kernel", T((3,), F32)) == "chlo._asin_acos_kernel.element_type"


@pytest.mark.parametrize("name", ["is_inf", "is_neg_inf", "is_pos_inf"])
def test_predicates_return_i1(name):
    assert infer(f"chlo.{name}", T((2, None), BF16)) == T((2, None), I1)
    assert label_of(f"chlo.{name}", T((2,), I32)) == f"chlo.{name}.element_type"


def test_unranked_operand():
    assert infer("chlo.erf", T(None, F32)) == T(None, F32)


@pytest.mark.parametrize("name", ["next_after", "polygamma", "zeta"])
def test_binary_float(name):
    assert infer(f"chlo.{name}", T((None, 3), F32), T((2, None), F32)) == T((2, 3), F32)
    assert label_of(f"chlo.{name}", T((2,), F32), T((2,), F64)) == f"chlo.{name}.element_type"
    assert label_of(f"chlo.{name}", T((2,), F32), T((3,), F32)) == f"chlo.{name}.shape"


def test_mulhi():
    assert infer("chlo.mulhi", T((3,), UI16), T((3,), UI16)) == T((3,), UI16)
    assert label_of("chlo.mulhi", T((3,), F32), T((3,), F32)) == "chlo.mulhi.element_type"
    assert label_of("chlo.mulhi", T((3,), I1), T((3,), I1)) == "chlo.mulhi.element_type"


# ---- broadcasting ops --------------------------------------------------------------------


def test_broadcast_numpy_style():
    r = infer("chlo.broadcast_add", T((2, 1, 3), F32), T((4, 1), F32))
    assert r == T((2, 4, 3), F32)


def test_broadcast_dynamic_dims():
    r = infer("chlo.broadcast_multiply", T((None, 1, None), F32), T((5, None, 1), F32))
    assert r == T((5, None, None), F32)


def test_broadcast_dimensions_attribute():
    r = infer("chlo.broadcast_add", T((2, 3, 4), F32), T((3,), F32), broadcast_dimensions=(1,))
    assert r == T((2, 3, 4), F32)
    r = infer("chlo.broadcast_add", T((2,), F32), T((2, 3), F32), broadcast_dimensions=(0,))
    assert r == T((2, 3), F32)


def test_broadcast_errors():
    assert label_of("chlo.broadcast_add", T((2, 3), F32), T((4,), F32)) == "chlo.broadcast.shape"
    assert (
        label_of("chlo.broadcast_add", T((2, 3), F32), T((3,), F32), broadcast_dimensions=(0, 1))
        == "chlo.broadcast.dimensions"
    )
    assert (
        label_of("chlo.broadcast_add", T((2, 3), F32), T((3,), F32), broadcast_dimensions=(2,))
        == "chlo.broadcast.dimensions"
    )
    assert (
        label_of("chlo.broadcast_add", T((3,), F32), T((3,), I32)) == "chlo.broadcast.element_type"
    )


def test_broadcast_compare_and_complex():
    r = infer(
        "chlo.broadcast_compare",
        T((2, 3), I32),
        T((3,), I32),
        comparison_direction="LT",
        compare_type=None,
    )
    assert r == T((2, 3), I1)
    assert infer("chlo.broadcast_complex", T((3,), F32), T((1,), F32)) == T((3,), C64)
    assert (
        label_of("chlo.broadcast_complex", T((3,), BF16), T((3,), BF16))
        == "chlo.broadcast_complex.element_type"
    )


def test_broadcast_logical_needs_bool_or_int():
    assert (
        label_of("chlo.broadcast_and", T((3,), F32), T((3,), F32))
        == "chlo.broadcast_and.element_type"
    )
    assert infer("chlo.broadcast_xor", T((3,), I1), T((3,), I1)) == T((3,), I1)


def test_broadcast_select():
    r = infer("chlo.broadcast_select", T((2, 1), I1), T((3,), F32), T((1, 3), F32))
    assert r == T((2, 3), F32)
    assert (
        label_of("chlo.broadcast_select", T((3,), I32), T((3,), F32), T((3,), F32))
        == "chlo.broadcast_select.element_type"
    )


# ---- constants, top_k ----------------------------------------------------------------------


def test_constant():
    val = np.zeros((2, 3), np.float32)
    assert infer("chlo.constant", value=val, result_types=(T((2, 3), F32),)) is None
    assert (
        label_of("chlo.constant", value=val, result_types=(T((3, 2), F32),))
        == "chlo.constant.value"
    )


def test_constant_like():
    assert infer("chlo.constant_like", T((None, 4), F32), value=1.0, value_type=BF16) == T(
        (None, 4), BF16
    )
    assert (
        infer(
            "chlo.constant_like",
            T((2,), F32),
            value=1.0,
            value_type=None,
            result_types=(T((2,), F32),),
        )
        is None
    )


def test_top_k():
    vals, idx = infer("chlo.top_k", T((3, None, 8), BF16), k=2)
    assert vals == T((3, None, 2), BF16)
    assert idx == T((3, None, 2), I32)
    assert label_of("chlo.top_k", T((3, 4), F32), k=5) == "chlo.top_k.k"
    assert label_of("chlo.top_k", T((3, 4), F32), k=-1) == "chlo.top_k.k"
    assert label_of("chlo.top_k", T((), F32), k=0) == "chlo.top_k.rank"


# ---- ragged_dot --------------------------------------------------------------------------


def ragged_attr(lb=(), rb=(), lc=(1,), rc=(1,), lr=(0,), rg=(0,)):
    def arr(v):
        return ArrayAttr(tuple(IntegerAttr(i) for i in v))

    return DialectAttr(
        "chlo",
        "ragged_dot",
        (
            ("lhs_batching_dimensions", arr(lb)),
            ("rhs_batching_dimensions", arr(rb)),
            ("lhs_contracting_dimensions", arr(lc)),
            ("rhs_contracting_dimensions", arr(rc)),
            ("lhs_ragged_dimensions", arr(lr)),
            ("rhs_group_dimensions", arr(rg)),
        ),
    )


def test_ragged_dot_mode1():
    r = infer(
        "chlo.ragged_dot",
        T((11, 5), F32),
        T((3, 5, 7), F32),
        T((3,), I64),
        ragged_dot_dimension_numbers=ragged_attr(),
        result_types=(T((11, 7), F32),),
    )
    assert r == T((11, 7), F32)


def test_ragged_dot_mode1_batching():
    attr = ragged_attr(lb=(0,), rb=(1,), lc=(2,), rc=(2,), lr=(1,), rg=(0,))
    r = infer(
        "chlo.ragged_dot",
        T((2, 11, 5), F32),
        T((3, 2, 5, 7), F32),
        T((3,), I64),
        ragged_dot_dimension_numbers=attr,
        result_types=(T((2, 11, 7), F32),),
    )
    assert r == T((2, 11, 7), F32)


def test_ragged_dot_mode2_and_3():
    # mode 2: [b,m,k], [b,k,n], [b,g] -> [g,b,m,n]
    attr = ragged_attr(lb=(0,), rb=(0,), lc=(2,), rc=(1,), lr=(2,), rg=())
    r = infer(
        "chlo.ragged_dot",
        T((2, 3, 6), F32),
        T((2, 6, 4), F32),
        T((2, 5), I32),
        ragged_dot_dimension_numbers=attr,
        result_types=(T((5, 2, 3, 4), F32),),
    )
    assert r == T((5, 2, 3, 4), F32)
    # mode 3: [b,m,k], [b,k,n], [g] -> [b,m,n]
    attr = ragged_attr(lb=(0,), rb=(0,), lc=(2,), rc=(1,), lr=(0,), rg=())
    r = infer(
        "chlo.ragged_dot",
        T((2, 3, 6), F32),
        T((2, 6, 4), F32),
        T((2,), I32),
        ragged_dot_dimension_numbers=attr,
        result_types=(T((2, 3, 4), F32),),
    )
    assert r == T((2, 3, 4), F32)


def test_ragged_dot_errors():
    def lab(lhs, rhs, gs, attr):
        return label_of(
            "chlo.ragged_dot",
            lhs,
            rhs,
            gs,
            ragged_dot_dimension_numbers=attr,
            result_types=(T((11, 7), F32),),
        )

    assert (
        lab(T((11, 5), F32), T((3, 6, 7), F32), T((3,), I64), ragged_attr())
        == "chlo.ragged_dot.dimensions"
    )
    assert (
        lab(T((11, 5), F32), T((3, 5, 7), F32), T((4,), I64), ragged_attr())
        == "chlo.ragged_dot.group_sizes"
    )
    assert (
        lab(T((11, 5), F32), T((5, 7), F32), T((3,), I64), ragged_attr(rc=(0,), rg=()))
        == "chlo.ragged_dot.group_dimensions"
    )
    assert (
        lab(T((11, 5), F32), T((3, 5, 7), F32), T((3,), I64), ragged_attr(lr=()))
        == "chlo.ragged_dot.ragged_dimensions"
    )
    assert (
        lab(T((11, 5), F32), T((3, 5, 7), F32), T((3,), F32), ragged_attr())
        == "chlo.ragged_dot.element_type"
    )


# ---- scan --------------------------------------------------------------------------------


def scan_region(*arg_types):
    args = tuple(Value(f"%a{i}", t) for i, t in enumerate(arg_types))
    return Region((Block(args, ()),))


def test_scan_ok_and_infers_inputs_from_region():
    region = scan_region(T((), I32), T((), I32))
    assert (
        infer(
            "chlo.scan",
            T((4,), I32),
            T((), I32),
            dimension=0,
            result_types=(T((4,), I32), T((), I32)),
            regions=(region,),
        )
        is None
    )


def test_scan_errors():
    region = scan_region(T((2,), I32), T((2,), I32))
    kw = dict(result_types=(T((2, 3), I32), T((2,), I32)), regions=(region,))
    assert (
        label_of("chlo.scan", T((2, 3), I32), T((2,), I32), dimension=2, **kw)
        == "chlo.scan.dimension"
    )
    kw = dict(result_types=(T((2, 4), I32), T((2,), I32)), regions=(region,))
    assert (
        label_of("chlo.scan", T((2, 3), I32), T((2,), I32), dimension=1, **kw)
        == "chlo.scan.outputs"
    )
    kw = dict(result_types=(T((2, 3), I32), T((2,), F32)), regions=(region,))
    assert (
        label_of("chlo.scan", T((2, 3), I32), T((2,), I32), dimension=1, **kw)
        == "chlo.scan.carries"
    )


def test_scan_operand_segment_sizes():
    assert (
        infer(
            "chlo.scan",
            T((4,), I32),
            T((), I32),
            dimension=0,
            operandSegmentSizes=(1, 1),
            result_types=(T((4,), I32), T((), I32)),
        )
        is None
    )
