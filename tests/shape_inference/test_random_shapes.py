"""Shape functions of the random family: rng's result shape from a constant ``shape``
operand (spec rng C3), and rng_bit_generator's state types as MLIR's verifier (and the
verifier suite) accepts them.  test_linalg_shapes.py has the per-label checks."""

from __future__ import annotations

import numpy as np
import pytest

from hlorun import shape_inference  # noqa: F401  (fills the op table)
from hlorun.parser.errors import VerificationError
from hlorun.parser.grammar import parse_module
from hlorun.parser.ir import ComplexType, FloatType, IntegerType, TensorType
from hlorun.shape_inference.optable import OP_TABLE, ShapeContext
from hlorun.shape_inference.verifier import verify_module

F32 = FloatType("f32")
I32 = IntegerType(32)
I64 = IntegerType(64)
UI32 = IntegerType(32, "unsigned")
UI64 = IntegerType(64, "unsigned")


def T(shape, et=F32):
    return TensorType(tuple(shape), et)


def infer(op, *operands, result_types=(), values=(), **attrs):
    row = OP_TABLE[f"stablehlo.{op}"]
    ctx = ShapeContext(f"stablehlo.{op}", None, tuple(result_types), (), tuple(values))
    return row.shape(ctx, *operands, **attrs)


def fails(label, op, *operands, **kw):
    with pytest.raises(VerificationError) as e:
        infer(op, *operands, **kw)
    assert e.value.label == label, e.value


# ---- rng -------------------------------------------------------------------------------


def test_rng_shape_from_constant_operand():
    # spec rng example: %shape = [3, 3] -> tensor<3x3xi32> (C3: shape(result) = shape)
    s = T((), I32)
    got = infer(
        "rng", s, s, T((2,), I64), values=(None, None, np.array([3, 3])), rng_distribution="UNIFORM"
    )
    assert got == T((3, 3), I32)
    # without a known value only the rank is inferred
    assert infer("rng", s, s, T((2,), I64), rng_distribution="UNIFORM") == T((None, None), I32)


def test_rng_negative_constant_size_rejected():
    s = T(())
    fails(
        "rng_c3",
        "rng",
        s,
        s,
        T((2,), I64),
        values=(None, None, np.array([2, -1])),
        rng_distribution="NORMAL",
    )


_RNG_MODULE = """
func.func @f(%a: tensor<f32>, %b: tensor<f32>) -> tensor<{result}> {{
  %shape = stablehlo.constant dense<7> : tensor<1xi64>
  %0 = "stablehlo.rng"(%a, %b, %shape) {{rng_distribution = #stablehlo<rng_distribution NORMAL>}} : (tensor<f32>, tensor<f32>, tensor<1xi64>) -> tensor<{result}>
  func.return %0 : tensor<{result}>
}}
"""


def test_rng_declared_result_checked_against_constant_shape():
    # ops_stablehlo.mlir @rng_normal_invalid_shape: inferred tensor<7xf32> vs tensor<12xf32>
    verify_module(parse_module(_RNG_MODULE.format(result="7xf32")))
    verify_module(parse_module(_RNG_MODULE.format(result="?xf32")))
    with pytest.raises(VerificationError) as e:
        verify_module(parse_module(_RNG_MODULE.format(result="12xf32")))
    assert e.value.label == "inferred_type"


# ---- rng_bit_generator -------------------------------------------------------------------


def test_rng_bit_generator_accepts_any_int_or_float_state_of_matching_shape():
    # print_stablehlo.mlir: (tensor<1x2xf32>) -> (tensor<1x2xf32>, tensor<2x2xui32>), PHILOX
    st = T((1, 2), F32)
    assert (
        infer("rng_bit_generator", st, result_types=(st, T((2, 2), UI32)), rng_algorithm="PHILOX")
        is None
    )
    # the spec's own example: a 1-D ui64 state
    assert (
        infer(
            "rng_bit_generator",
            T((2,), UI64),
            result_types=(T((2,), UI64), T((2, 2), UI64)),
            rng_algorithm="THREE_FRY",
        )
        is None
    )


def test_rng_bit_generator_state_constraints():
    out = T((2, 2), UI32)
    # C1: output_state has the initial state's shape and type
    fails(
        "rng_bit_generator_c1",
        "rng_bit_generator",
        T((1, 2)),
        result_types=(T((2,)), out),
        rng_algorithm="PHILOX",
    )
    fails(
        "rng_bit_generator_c1",
        "rng_bit_generator",
        T((2,), UI64),
        result_types=(T((2,), I64), out),
        rng_algorithm="PHILOX",
    )
    # (I2) a complex or boolean state is no integer / floating-point tensor
    c = T((2,), ComplexType(F32))
    fails(
        "rng_bit_generator_i2",
        "rng_bit_generator",
        c,
        result_types=(c, out),
        rng_algorithm="PHILOX",
    )
    b = T((2,), IntegerType(1))
    fails(
        "rng_bit_generator_i2",
        "rng_bit_generator",
        b,
        result_types=(b, out),
        rng_algorithm="PHILOX",
    )
    # C2: size(initial_state) is 2 for THREE_FRY (counted in elements, any rank)
    st = T((1, 3), UI64)
    fails(
        "rng_bit_generator_c2",
        "rng_bit_generator",
        st,
        result_types=(st, out),
        rng_algorithm="THREE_FRY",
    )
