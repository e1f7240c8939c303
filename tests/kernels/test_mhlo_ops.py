"""The mhlo ops producers leave in their StableHLO, in both forms: the op itself
(TensorFlow: ``mhlo.copy %x : type``, ``mhlo.erf %x : type``) and XLA's custom-call
form (``stablehlo.custom_call @mhlo.erf(%x) {mhlo.attributes = {...}, mhlo.version = 1}``,
torch_xla); and ``stablehlo.set_dimension_size`` (TensorFlow's top_k).

References: Python's ``math.erf`` (the C library's), NumPy slicing and identities.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import hlorun
from hlorun import HloError, VerificationError
from hlorun.shape_inference import OP_TABLE


def _run(text: str, *args: np.ndarray) -> np.ndarray:
    (out,) = hlorun.run(text, list(args))
    return out


X = np.array([[-3.0, -0.5, 0.0], [1e-8, 0.7, 2.5]], np.float32)
ERF = np.array([[math.erf(float(v)) for v in row] for row in X], np.float32)


def test_mhlo_copy_is_the_operand() -> None:
    text = """func.func @main(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
      %0 = mhlo.copy %x : tensor<2x3xf32>
      return %0 : tensor<2x3xf32>
    }"""
    np.testing.assert_array_equal(_run(text, X), X)


def test_mhlo_copy_generic_form_with_its_attribute() -> None:
    text = """func.func @main(%x: tensor<3xi32>) -> tensor<3xi32> {
      %0 = "mhlo.copy"(%x) {cross_program_prefetch_index = 0 : i32} : (tensor<3xi32>) -> tensor<3xi32>
      return %0 : tensor<3xi32>
    }"""
    x = np.array([1, -2, 3], np.int32)
    np.testing.assert_array_equal(_run(text, x), x)


@pytest.mark.parametrize("dtype", ["f32", "f64"])
def test_mhlo_erf_is_the_error_function(dtype: str) -> None:
    text = f"""func.func @main(%x: tensor<2x3x{dtype}>) -> tensor<2x3x{dtype}> {{
      %0 = mhlo.erf %x : tensor<2x3x{dtype}>
      return %0 : tensor<2x3x{dtype}>
    }}"""
    x = X.astype(np.float64 if dtype == "f64" else np.float32)
    want = np.array([[math.erf(float(v)) for v in row] for row in x], x.dtype)
    # chlo.erf's bound (tests/kernels/test_chlo.py): correctly rounded f32, 4 ULP f64
    np.testing.assert_array_max_ulp(_run(text, x), want, maxulp=0 if dtype == "f32" else 4)


def test_custom_call_mhlo_erf_runs_as_the_op() -> None:
    text = """func.func @main(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
      %0 = stablehlo.custom_call @mhlo.erf(%x) {mhlo.attributes = {}, mhlo.version = 1 : i64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
      return %0 : tensor<2x3xf32>
    }"""
    np.testing.assert_array_equal(_run(text, X), ERF)


def test_custom_call_mhlo_copy_reads_mhlo_attributes() -> None:
    text = """func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {
      %0 = stablehlo.custom_call @mhlo.copy(%x) {mhlo.attributes = {cross_program_prefetch_index = 1 : i32}, mhlo.version = 1 : i64} : (tensor<2xf32>) -> tensor<2xf32>
      return %0 : tensor<2xf32>
    }"""
    x = np.array([1.5, -2.0], np.float32)
    np.testing.assert_array_equal(_run(text, x), x)


def test_mhlo_ops_are_rows_of_the_op_table() -> None:
    for name in ("mhlo.copy", "mhlo.erf"):
        row = OP_TABLE[name]
        assert row.shape is not None and row.kernel is not None, name


def test_mhlo_erf_of_integers_is_refused() -> None:
    text = """func.func @main(%x: tensor<2xi32>) -> tensor<2xi32> {
      %0 = "mhlo.erf"(%x) : (tensor<2xi32>) -> tensor<2xi32>
      return %0 : tensor<2xi32>
    }"""
    with pytest.raises(VerificationError) as e:
        _run(text, np.array([1, 2], np.int32))
    assert e.value.label == "mhlo.erf.element_type"


def test_custom_call_mhlo_erf_result_type_is_verified() -> None:
    text = """func.func @main(%x: tensor<2xf32>) -> tensor<3xf32> {
      %0 = stablehlo.custom_call @mhlo.erf(%x) {mhlo.attributes = {}} : (tensor<2xf32>) -> tensor<3xf32>
      return %0 : tensor<3xf32>
    }"""
    with pytest.raises(VerificationError, match="incompatible"):
        _run(text, np.zeros(2, np.float32))


def test_custom_call_of_an_unknown_mhlo_op_names_the_target() -> None:
    text = """func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {
      %0 = stablehlo.custom_call @mhlo.no_such_op(%x) {mhlo.attributes = {}} : (tensor<2xf32>) -> tensor<2xf32>
      return %0 : tensor<2xf32>
    }"""
    with pytest.raises(HloError, match="mhlo.no_such_op"):
        _run(text, np.zeros(2, np.float32))


# ----------------------------------------------------------------------------- set_dimension_size

SET_SIZE = """func.func @main(%x: tensor<2x5xf32>, %n: tensor<i32>) -> tensor<2x5xf32> {
  %0 = stablehlo.set_dimension_size %x, %n, dim = 1 : (tensor<2x5xf32>, tensor<i32>) -> tensor<2x5xf32>
  return %0 : tensor<2x5xf32>
}"""


def test_set_dimension_size_of_the_full_size_is_the_operand() -> None:
    x = np.arange(10, dtype=np.float32).reshape(2, 5)
    np.testing.assert_array_equal(_run(SET_SIZE, x, np.array(5, np.int32)), x)


def test_set_dimension_size_to_a_constant_keeps_the_leading_elements() -> None:
    text = """func.func @main(%x: tensor<2x5xf32>) -> tensor<2x3xf32> {
      %n = stablehlo.constant dense<3> : tensor<i32>
      %0 = stablehlo.set_dimension_size %x, %n, dim = 1 : (tensor<2x5xf32>, tensor<i32>) -> tensor<2x3xf32>
      return %0 : tensor<2x3xf32>
    }"""
    x = np.arange(10, dtype=np.float32).reshape(2, 5)
    np.testing.assert_array_equal(_run(text, x), x[:, :3])


@pytest.mark.parametrize("n", [6, 2, -1])
def test_set_dimension_size_outside_the_static_result_is_an_error(n: int) -> None:
    with pytest.raises(HloError, match="set_dimension_size"):
        _run(SET_SIZE, np.zeros((2, 5), np.float32), np.array(n, np.int32))


def test_mhlo_copy_of_a_token_is_refused() -> None:
    text = """func.func @main() -> !stablehlo.token {
      %t = stablehlo.create_token : !stablehlo.token
      %0 = "mhlo.copy"(%t) : (!stablehlo.token) -> !stablehlo.token
      return %0 : !stablehlo.token
    }"""
    with pytest.raises(VerificationError) as e:
        hlorun.run(text, [])
    assert e.value.label == "mhlo.copy.type"
