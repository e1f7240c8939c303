"""Shape functions of the elementwise and conversion families: inferred types, and one
negative test per constraint label they enforce."""

from __future__ import annotations

import pytest

from hlorun import shape_inference  # noqa: F401  (fills the op table)
from hlorun.parser.errors import VerificationError
from hlorun.parser.ir import ComplexType, FloatType, IntegerType, QuantizedType, TensorType
from hlorun.shape_inference.elementwise import BINARY, UNARY
from hlorun.shape_inference.optable import OP_TABLE, ShapeContext

I1 = IntegerType(1)
I8 = IntegerType(8)
I32 = IntegerType(32)
I64 = IntegerType(64)
UI8 = IntegerType(8, "unsigned")
F16 = FloatType("f16")
F32 = FloatType("f32")
F64 = FloatType("f64")
BF16 = FloatType("bf16")
C64 = ComplexType(F32)
Q = QuantizedType(I8, F32, (0.5,), (3,))
Q2 = QuantizedType(I8, F32, (0.25,), (1,))
QAXIS = QuantizedType(I8, F32, (0.5, 0.25), (0, 0), quantized_dimension=0)


def T(shape, e):
    return TensorType(None if shape is None else tuple(shape), e)


def infer(op, *operands, results=(), **attrs):
    row = OP_TABLE[f"stablehlo.{op}"]
    ctx = ShapeContext(f"stablehlo.{op}", None, tuple(results), ())
    return row.shape(ctx, *operands, **attrs)


def fails(label, op, *operands, results=(), **attrs):
    with pytest.raises(VerificationError) as info:
        infer(op, *operands, results=results, **attrs)
    assert info.value.label == label, info.value
    return info.value


# ---------------------------------------------------------------------------------------
# Table rows
# ---------------------------------------------------------------------------------------

_SAMPLE = {"bool": I1, "sint": I32, "uint": UI8, "float": F32, "complex": C64}


@pytest.mark.parametrize("name,allowed,quant", UNARY, ids=[r[0] for r in UNARY])
def test_unary_rows(name, allowed, quant):
    for cls, e in _SAMPLE.items():
        if cls in allowed:
            assert infer(name, T((2, None), e)) == T((2, None), e)
        else:
            fails(f"{name}_i1", name, T((2,), e))
    if quant:
        assert infer(name, T((2,), Q), results=(T((2,), Q2),)) is None
        fails(f"{name}_i1", name, T((2,), QAXIS))
        fails(f"{name}_c1", name, T((2,), Q), results=(T((3,), Q2),))
        fails(
            f"{name}_c1", name, T((2,), Q), results=(T((2,), QuantizedType(I8, F16, (0.5,), (3,))),)
        )
    else:
        fails(f"{name}_i1", name, T((2,), Q))


@pytest.mark.parametrize("name,allowed,quant", BINARY, ids=[r[0] for r in BINARY])
def test_binary_rows(name, allowed, quant):
    for cls, e in _SAMPLE.items():
        if cls in allowed:
            assert infer(name, T((2, None), e), T((None, 3), e)) == T((2, 3), e)
            fails(f"{name}_c1", name, T((2,), e), T((3,), e))  # (C1) shapes
            fails(f"{name}_c1", name, T((2,), e), T((2, 1), e))  # (C1) ranks
        else:
            fails(f"{name}_i1", name, T((2,), e), T((2,), e))
    e = next(_SAMPLE[c] for c in ("float", "sint", "bool") if c in allowed)
    other = I64 if e != I64 else F32
    if other in [_SAMPLE[c] for c in allowed] or True:
        with pytest.raises(VerificationError) as info:
            infer(name, T((2,), e), T((2,), other))
        assert info.value.label in (f"{name}_c1", f"{name}_i2")
    if quant:
        assert infer(name, T((2,), Q), T((2,), Q2), results=(T((2,), Q),)) is None
        fails(f"{name}_c1", name, T((2,), Q), T((2,), Q2), results=(T((2,), F32),))


def test_dynamic_shapes_merge():
    assert infer("add", T((None, 3), F32), T((2, None), F32)) == T((2, 3), F32)
    assert infer("subtract", T((None,), I32), T((None,), I32)) == T((None,), I32)


# ---------------------------------------------------------------------------------------
# Special ops
# ---------------------------------------------------------------------------------------


def test_abs():
    assert infer("abs", T((3,), I32)) == T((3,), I32)
    assert infer("abs", T((3,), C64)) == T((3,), F32)  # (C2)
    assert infer("abs", T((3,), Q), results=(T((3,), Q2),)) is None
    fails("abs_i1", "abs", T((3,), UI8))
    fails("abs_i1", "abs", T((3,), I1))
    fails("abs_c2", "abs", T((3,), Q), results=(T((3,), F32),))


def test_add_quantized_constraints():
    qa = T((2, 2), Q)
    assert infer("add", qa, qa, results=(T((2, 2), Q2),)) is None
    assert infer("add", T((2, 2), I1), T((2, 2), I1)) == T((2, 2), I1)
    fails("add_c1", "add", T((2,), F32), T((2,), F16))
    fails("add_c2", "add", qa, T((2, 2), F32), results=(qa,))
    fails("add_c2", "add", qa, qa, results=(T((2, 2), F32),))
    fails(
        "add_c3",
        "add",
        qa,
        T((2, 2), QuantizedType(IntegerType(16), F32, (0.5,), (0,))),
        results=(qa,),
    )
    fails("add_c4", "add", qa, T((2, 2), QuantizedType(I8, F16, (0.5,), (0,))), results=(qa,))
    axis = T((2, 2), QAXIS)
    assert infer("add", axis, qa, results=(axis,)) is None
    fails("add_c5", "add", axis, qa, results=(qa,))
    axis1 = T((2, 2), QuantizedType(I8, F32, (0.5, 0.25), (0, 0), quantized_dimension=1))
    fails("add_c6", "add", axis, qa, results=(axis1,))
    fails("add_c7", "add", qa, axis, results=(axis1,))
    fails("add_c1", "add", qa, T((3, 2), Q), results=(qa,))


def test_compare():
    got = infer("compare", T((3,), I32), T((None,), I32), comparison_direction="EQ")
    assert got == T((3,), I1)
    assert infer(
        "compare", T((2,), C64), T((2,), C64), comparison_direction="LT", compare_type="FLOAT"
    ) == T((2,), I1)
    assert infer("compare", T((2,), Q), T((2,), Q2), comparison_direction="GE") == T((2,), I1)
    fails("compare_c1", "compare", T((3,), I32), T((3,), I64), comparison_direction="EQ")
    fails("compare_c2", "compare", T((3,), I32), T((2,), I32), comparison_direction="EQ")
    fails("compare_i3", "compare", T((3,), I32), T((3,), I32), comparison_direction="XX")
    fails(
        "compare_i4",
        "compare",
        T((3,), I32),
        T((3,), I32),
        comparison_direction="EQ",
        compare_type="XX",
    )
    fails("compare_i1", "compare", T((3,), QAXIS), T((3,), QAXIS), comparison_direction="EQ")


def test_clamp():
    assert infer("clamp", T((), I32), T((None,), I32), T((3,), I32)) == T((None,), I32)
    assert infer("clamp", T((1,), I32), T((1,), I32), T((1,), I32)) == T((1,), I32)
    fails("clamp_c1", "clamp", T((2,), I32), T((1,), I32), T((1,), I32))
    fails("clamp_c2", "clamp", T((1,), I32), T((1,), I32), T((2,), I32))
    fails("clamp_c3", "clamp", T((), F32), T((1,), I32), T((), I32))
    fails("clamp_c4", "clamp", T((1,), Q), T((1,), Q), T((1,), Q), results=(T((1,), F32),))


def test_select():
    assert infer("select", T((2, 3), I1), T((2, 3), I32), T((2, 3), I32)) == T((2, 3), I32)
    assert infer("select", T((), I1), T((2, None), I32), T((None, 3), I32)) == T((2, 3), I32)
    fails("select_c1", "select", T((3,), I1), T((2, 3), I32), T((2, 3), I32))
    fails("select_c2", "select", T((), I1), T((2, 4), I32), T((2, 3), I32))
    fails("select_c2", "select", T((), I1), T((2, 3), F32), T((2, 3), I32))
    fails("select_i1", "select", T((), I32), T((2, 3), I32), T((2, 3), I32))


def test_complex_real_imag_is_finite():
    assert infer("complex", T((2,), F64), T((2,), F64)) == T((2,), ComplexType(F64))
    fails("complex_c1", "complex", T((2,), F32), T((2,), F64))
    fails("complex_i1", "complex", T((2,), F16), T((2,), F16))
    assert infer("real", T((2, 3), C64)) == T((2, 3), F32)
    assert infer("imag", T((2,), F32)) == T((2,), F32)
    fails("real_i1", "real", T((2,), I32))
    fails("imag_i1", "imag", T((2,), Q))
    assert infer("is_finite", T((3,), BF16)) == T((3,), I1)
    fails("is_finite_i1", "is_finite", T((3,), I32))


# ---------------------------------------------------------------------------------------
# conversion family
# ---------------------------------------------------------------------------------------


def test_convert():
    assert infer("convert", T((2, 3), I32), results=(T((2, 3), C64),)) is None
    assert infer("convert", T((None,), I1), results=(T((4,), BF16),)) is None
    fails("convert_c1", "convert", T((2,), I32), results=(T((3,), F32),))
    fails("convert_i1", "convert", T((2,), Q), results=(T((2,), F32),))


def test_bitcast_convert():
    assert infer("bitcast_convert", T((2,), F32), results=(T((2, 4), I8),)) is None
    assert infer("bitcast_convert", T((2, 4), I8), results=(T((2,), F32),)) is None
    assert infer("bitcast_convert", T((), ComplexType(F64)), results=(T((2,), C64),)) is None
    assert infer("bitcast_convert", T((64,), I1), results=(T((), I64),)) is None
    assert infer("bitcast_convert", T((None,), F32), results=(T((None,), I32),)) is None
    assert (
        infer("bitcast_convert", T((3,), IntegerType(4)), results=(T((3, 2), IntegerType(2)),))
        is None
    )
    e = fails("bitcast_convert_c1", "bitcast_convert", T((2,), F64), results=(T((3,), I64),))
    assert "shapes must match" in e.message
    e = fails("bitcast_convert_c1", "bitcast_convert", T((), F64), results=(T((), F32),))
    assert "rank of smaller element type (0) should be 1 more" in e.message
    fails("bitcast_convert_c1", "bitcast_convert", T((2,), F64), results=(T((4, 2), F32),))
    e = fails("bitcast_convert_c1", "bitcast_convert", T((2,), F64), results=(T((2, 4), F32),))
    assert "32 * 4 != 64" in e.message
    fails("bitcast_convert_c2", "bitcast_convert", T((2, 4), C64), results=(T((2, 2), F64),))


def test_reduce_precision():
    assert infer("reduce_precision", T((2, 4), F32), exponent_bits=2, mantissa_bits=3) == T(
        (2, 4), F32
    )
    assert (
        infer(
            "reduce_precision", T((2,), Q), exponent_bits=2, mantissa_bits=3, results=(T((2,), Q2),)
        )
        is None
    )
    fails("reduce_precision_c2", "reduce_precision", T((2,), F32), exponent_bits=0, mantissa_bits=3)
    fails(
        "reduce_precision_c3", "reduce_precision", T((2,), F32), exponent_bits=1, mantissa_bits=-1
    )
    fails("reduce_precision_i1", "reduce_precision", T((2,), I32), exponent_bits=1, mantissa_bits=1)
    fails(
        "reduce_precision_c1",
        "reduce_precision",
        T((2,), Q),
        exponent_bits=2,
        mantissa_bits=3,
        results=(T((2,), F32),),
    )


def test_result_accuracy_attribute():
    from hlorun.parser.ir import EnumAttr, ResultAccuracy

    def acc(mode, atol=0.0, ulps=0):
        return ResultAccuracy(
            atol=atol,
            rtol=0.0,
            ulps=ulps,
            mode=EnumAttr("stablehlo", "result_accuracy_mode", mode, False),
        )

    assert infer("cbrt", T((2,), F32), result_accuracy=acc("TOLERANCE", 1.0, 5)) == T((2,), F32)
    assert infer("tanh", T((2,), F32), result_accuracy=acc("DEFAULT")) == T((2,), F32)
    e = fails("cbrt_result_accuracy", "cbrt", T((2,), F32), result_accuracy=acc("HIGHEST", 1.0, 4))
    assert (
        "Invalid tolerances for ResultAccuracyAttr with mode HIGHEST, must be all zero."
        in e.message
    )
    fails("sine_result_accuracy", "sine", T((2,), F32), result_accuracy=acc("TOLERANCE", -1.0))


def test_bounds_propagate_and_are_checked():
    from hlorun.parser.ir import TypeExtensions

    def B(shape, bounds):
        return TensorType(tuple(shape), F32, TypeExtensions(tuple(bounds)))

    got = infer("add", B((None,), (4,)), B((None,), (3,)))
    assert got == B((None,), (3,))
    assert infer("multiply", B((None, 2), (4, None)), T((3, 2), F32)) == T((3, 2), F32)
    e = fails("add_c1", "add", B((3,), (None,)), B((None,), (2,)))
    assert "Mismatched dimension size 3 and bound 2 in dimension 0" in e.message


def test_results_keep_the_operands_encoding():
    # infer_stablehlo.mlir @tan_sparsity ... @complex_sparsity: the result type keeps the
    # operand's #sparse_tensor encoding
    from hlorun.parser.ir import OpaqueAttr

    csr = OpaqueAttr("#sparse_tensor.encoding<{ map = (d0, d1) -> (d0 : dense, d1 : compressed) }>")

    def S(e):
        return TensorType((10, 10), e, csr)

    for op in ("tan", "tanh", "abs"):
        assert infer(op, S(F32)) == S(F32), op
    assert infer("abs", S(C64)) == S(F32)
    assert infer("real", S(C64)) == S(F32)
    assert infer("imag", S(C64)) == S(F32)
    assert infer("complex", S(F32), S(F32)) == S(C64)
    assert infer("add", S(F32), S(F32)) == S(F32)
    # operands with different encodings: the result has none
    assert infer("add", S(F32), T((10, 10), F32)) == T((10, 10), F32)


def test_select_merges_the_bounds_of_on_true_and_on_false():
    # infer_stablehlo.mlir @select: ?x2x3x? <5,?,?,7> and 1x?x3x? <?,6,?,8> -> 1x2x3x? <?,?,?,7>
    from hlorun.parser.ir import TypeExtensions

    def B(shape, bounds):
        return TensorType(tuple(shape), F32, TypeExtensions(tuple(bounds)))

    got = infer(
        "select",
        T((), I1),
        B((None, 2, 3, None), (5, None, None, 7)),
        B((1, None, 3, None), (None, 6, None, 8)),
    )
    assert got == B((1, 2, 3, None), (None, None, None, 7))
    # a static size above the other operand's bound is an error
    fails("select_c2", "select", T((), I1), B((None,), (2,)), T((3,), F32))
