"""engine.run: inputs, entry selection, limits, control flow, custom calls, checks.

Expected values come from plain arithmetic on the programs' inputs.
"""

from __future__ import annotations

import numpy as np
import pytest

from hlorun import engine
from hlorun.parser import parse_module
from hlorun.parser.errors import HloError, InterpreterError, UnsupportedError

ADD = """
func.func @main(%a: tensor<2xi32>, %b: tensor<2xi32>) -> tensor<2xi32> {
  %0 = stablehlo.add %a, %b : tensor<2xi32>
  func.return %0 : tensor<2xi32>
}
"""


def test_run_text_path_and_module(tmp_path):
    a = np.array([1, 2], np.int32)
    b = np.array([10, 20], np.int32)
    p = tmp_path / "add.mlir"
    p.write_text(ADD)
    for source in (ADD, p, str(p), parse_module(ADD)):
        (r,) = engine.run(source, [a, b])
        assert r.dtype == np.int32 and r.tolist() == [11, 22]


def test_input_count_dtype_shape_are_checked():
    a = np.array([1, 2], np.int32)
    with pytest.raises(InterpreterError, match="takes 2 arguments, got 1"):
        engine.run(ADD, [a])
    with pytest.raises(InterpreterError, match="dtype float32"):
        engine.run(ADD, [a, a.astype(np.float32)])
    with pytest.raises(InterpreterError, match="shape"):
        engine.run(ADD, [a, np.array([1, 2, 3], np.int32)])


def test_python_scalars_are_accepted():
    prog = """
    func.func @main(%a: tensor<f32>, %b: tensor<i64>) -> (tensor<f32>, tensor<i64>) {
      func.return %a, %b : tensor<f32>, tensor<i64>
    }"""
    x, y = engine.run(prog, [1.5, 7])
    assert x.dtype == np.float32 and float(x) == 1.5
    assert y.dtype == np.int64 and int(y) == 7


def test_entry_is_main_or_the_only_function():
    prog = """
    func.func private @helper(%x: tensor<i32>) -> tensor<i32> {
      %0 = stablehlo.multiply %x, %x : tensor<i32>
      func.return %0 : tensor<i32>
    }
    func.func @main(%x: tensor<i32>) -> tensor<i32> {
      %0 = func.call @helper(%x) : (tensor<i32>) -> tensor<i32>
      %1 = func.call @helper(%0) : (tensor<i32>) -> tensor<i32>
      func.return %1 : tensor<i32>
    }"""
    (r,) = engine.run(prog, [np.int32(3)])
    assert int(r) == 81
    (r,) = engine.run(prog, [np.int32(3)], function="helper")
    assert int(r) == 9


FACTORIAL = """
func.func @fact(%n: tensor<i64>) -> tensor<i64> {
  %one = stablehlo.constant dense<1> : tensor<i64>
  %le = stablehlo.compare LE, %n, %one, SIGNED : (tensor<i64>, tensor<i64>) -> tensor<i1>
  %r = "stablehlo.if"(%le) ({
    stablehlo.return %one : tensor<i64>
  }, {
    %m = stablehlo.subtract %n, %one : tensor<i64>
    %f = func.call @fact(%m) : (tensor<i64>) -> tensor<i64>
    %p = stablehlo.multiply %n, %f : tensor<i64>
    stablehlo.return %p : tensor<i64>
  }) : (tensor<i1>) -> tensor<i64>
  func.return %r : tensor<i64>
}
"""


def test_recursion_through_call_and_if():
    (r,) = engine.run(FACTORIAL, [np.int64(10)])
    assert int(r) == 3628800


WHILE_SUM = """
func.func @main(%n: tensor<i64>) -> (tensor<i64>, tensor<i64>) {
  %zero = stablehlo.constant dense<0> : tensor<i64>
  %one = stablehlo.constant dense<1> : tensor<i64>
  %r:2 = stablehlo.while(%i = %zero, %s = %zero) : tensor<i64>, tensor<i64>
  cond {
    %c = stablehlo.compare LT, %i, %n : (tensor<i64>, tensor<i64>) -> tensor<i1>
    stablehlo.return %c : tensor<i1>
  } do {
    %i1 = stablehlo.add %i, %one : tensor<i64>
    %s1 = stablehlo.add %s, %i1 : tensor<i64>
    stablehlo.return %i1, %s1 : tensor<i64>, tensor<i64>
  }
  func.return %r#0, %r#1 : tensor<i64>, tensor<i64>
}
"""


def test_while_loop():
    i, s = engine.run(WHILE_SUM, [np.int64(100)])
    assert int(i) == 100 and int(s) == 100 * 101 // 2


def test_runaway_while_is_stopped_by_step_limit_and_timeout():
    with pytest.raises(InterpreterError, match="step limit"):
        engine.run(WHILE_SUM, [np.int64(10**12)], max_steps=10_000)
    with pytest.raises(InterpreterError, match="time limit"):
        engine.run(WHILE_SUM, [np.int64(10**12)], timeout=0.2)


def test_case_takes_last_branch_when_index_out_of_range():
    prog = """
    func.func @main(%i: tensor<i32>) -> tensor<i32> {
      %r = "stablehlo.case"(%i) ({
        %a = stablehlo.constant dense<10> : tensor<i32>
        stablehlo.return %a : tensor<i32>
      }, {
        %b = stablehlo.constant dense<20> : tensor<i32>
        stablehlo.return %b : tensor<i32>
      }) : (tensor<i32>) -> tensor<i32>
      func.return %r : tensor<i32>
    }"""
    assert [int(engine.run(prog, [np.int32(k)])[0]) for k in (0, 1, 2, -1)] == [10, 20, 20, 20]


def test_tuple_and_get_tuple_element_and_barrier():
    prog = """
    func.func @main(%a: tensor<2xf32>, %b: tensor<i32>) -> (tensor<i32>, tensor<2xf32>) {
      %t = stablehlo.tuple %a, %b : tuple<tensor<2xf32>, tensor<i32>>
      %x = stablehlo.get_tuple_element %t[1] : (tuple<tensor<2xf32>, tensor<i32>>) -> tensor<i32>
      %y = stablehlo.get_tuple_element %t[0] : (tuple<tensor<2xf32>, tensor<i32>>) -> tensor<2xf32>
      %r:2 = stablehlo.optimization_barrier %x, %y : tensor<i32>, tensor<2xf32>
      func.return %r#0, %r#1 : tensor<i32>, tensor<2xf32>
    }"""
    x, y = engine.run(prog, [np.array([1.0, 2.0], np.float32), np.int32(5)])
    assert int(x) == 5 and y.tolist() == [1.0, 2.0]


def test_memory_cap_refuses_huge_tensor_before_allocating():
    prog = """
    func.func @main() -> tensor<100000x100000xf32> {
      %0 = stablehlo.iota dim = 0 : tensor<100000x100000xf32>
      func.return %0 : tensor<100000x100000xf32>
    }"""
    with pytest.raises(InterpreterError, match="memory cap"):
        engine.run(prog, [])


CUSTOM = """
func.func @main(%a: tensor<3xf32>) -> tensor<3xf32> {
  %0 = stablehlo.custom_call @my_double(%a) : (tensor<3xf32>) -> tensor<3xf32>
  func.return %0 : tensor<3xf32>
}
"""


def test_custom_call_registry():
    from hlorun.engine.kernels.control_flow import CUSTOM_CALLS

    with pytest.raises(UnsupportedError, match="my_double"):
        engine.run(CUSTOM, [np.ones(3, np.float32)])
    engine.register_custom_call("my_double", lambda x, result_types: x * 2)
    try:
        (r,) = engine.run(CUSTOM, [np.array([1, 2, 3], np.float32)])
        assert r.tolist() == [2, 4, 6]
        with pytest.raises(ValueError):
            engine.register_custom_call("my_double", lambda x, result_types: x)
    finally:
        CUSTOM_CALLS.pop("my_double", None)


def test_failed_check_names_index_and_values():
    prog = """
    func.func @main() {
      %0 = stablehlo.constant dense<[1, 2, 3]> : tensor<3xi32>
      check.expect_eq_const %0, dense<[1, 5, 3]> : tensor<3xi32>
      func.return
    }"""
    with pytest.raises(InterpreterError) as e:
        engine.run(prog, [])
    msg = str(e.value)
    assert "index [1]" in msg and "got 2" in msg and "expected 5" in msg
    assert "<string>:4:" in msg  # the check's own line


def test_float_equality_bitwise_by_default_ieee_on_request():
    prog = """
    func.func @main(%a: tensor<f32>) {
      check.expect_eq_const %a, dense<0.0> : tensor<f32>
      func.return
    }"""
    engine.run(prog, [np.float32(0.0)])
    with pytest.raises(InterpreterError):
        engine.run(prog, [np.float32(-0.0)])
    engine.run(prog, [np.float32(-0.0)], float_eq="ieee")


def test_errors_are_hlo_errors_never_crashes():
    with pytest.raises(HloError):
        engine.run("func.func @main( {", [])
    with pytest.raises(HloError):
        engine.run("func.func @main() { %0 = stablehlo.frobnicate : tensor<f32> func.return }", [])


def test_callback_sees_every_op():
    seen = []
    engine.run(ADD, [np.array([1, 2], np.int32)] * 2, callback=lambda n, pos, vals: seen.append(n))
    assert seen == ["stablehlo.add"]
