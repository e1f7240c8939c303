"""Plan-time inlining of small calls (engine/interpreter.py ``_prepare_ops``): a
``func.call`` to a small one-block function is planned as the callee's steps.

Expected values are plain arithmetic written here; every program also runs with
inlining off (each call a frame of its own, as before), and both must agree bit for
bit.
"""

from __future__ import annotations

import numpy as np
import pytest

import hlorun
from hlorun.engine import interpreter as I
from hlorun.engine.interpreter import Interpreter, Limits
from hlorun.parser import parse_module
from hlorun.parser.errors import InterpreterError

# The shape of JAX's fori_loop: the while body calls a private function, which calls
# another (closed_call -> the user's jitted body).
JAX_LOOP = """
func.func public @main(%x0: tensor<f32>, %k0: tensor<i32>) -> (tensor<f32>, tensor<i32>) {
  %c = stablehlo.constant dense<1> : tensor<i32>
  %n = stablehlo.constant dense<10> : tensor<i32>
  %z = stablehlo.constant dense<0> : tensor<i32>
  %0:4 = stablehlo.while(%i = %z, %j = %z, %x = %x0, %k = %k0)
      : tensor<i32>, tensor<i32>, tensor<f32>, tensor<i32>
  cond {
    %p = stablehlo.compare LT, %i, %n, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %p : tensor<i1>
  } do {
    %1:3 = func.call @closed_call(%j, %x, %k) : (tensor<i32>, tensor<f32>, tensor<i32>) -> (tensor<i32>, tensor<f32>, tensor<i32>)
    %2 = stablehlo.add %i, %c : tensor<i32>
    stablehlo.return %2, %1#0, %1#1, %1#2 : tensor<i32>, tensor<i32>, tensor<f32>, tensor<i32>
  }
  func.return %0#2, %0#3 : tensor<f32>, tensor<i32>
}
func.func private @closed_call(%a: tensor<i32>, %b: tensor<f32>, %c: tensor<i32>) -> (tensor<i32>, tensor<f32>, tensor<i32>) {
  %one = stablehlo.constant dense<1> : tensor<i32>
  %0 = stablehlo.add %a, %one : tensor<i32>
  %1:2 = func.call @body(%a, %b, %c) : (tensor<i32>, tensor<f32>, tensor<i32>) -> (tensor<f32>, tensor<i32>)
  return %0, %1#0, %1#1 : tensor<i32>, tensor<f32>, tensor<i32>
}
func.func private @body(%i: tensor<i32>, %x: tensor<f32>, %k: tensor<i32>) -> (tensor<f32>, tensor<i32>) {
  %h = stablehlo.constant dense<5.000000e-01> : tensor<f32>
  %q = stablehlo.constant dense<1.250000e+00> : tensor<f32>
  %t = stablehlo.constant dense<3> : tensor<i32>
  %0 = stablehlo.multiply %x, %h : tensor<f32>
  %1 = stablehlo.add %0, %q : tensor<f32>
  %2 = stablehlo.multiply %k, %t : tensor<i32>
  %3 = stablehlo.add %2, %i : tensor<i32>
  return %1, %3 : tensor<f32>, tensor<i32>
}
"""


def _expected_loop(x: float, k: int) -> tuple[np.float32, np.int32]:
    xf, kk = np.float32(x), np.int32(k)
    for i in range(10):
        xf = np.float32(xf * np.float32(0.5)) + np.float32(1.25)
        kk = np.int32(kk * np.int32(3) + np.int32(i))
    return xf, kk


def _steps(interp: Interpreter, name: str = "main") -> list:
    """Every step of the function's plan, regions' steps included."""
    out, todo = [], [interp.plan(name).block]
    while todo:
        bp = todo.pop()
        for st in bp.steps:
            out.append(st)
            todo.extend(st.blocks)
    return out


def _run(text: str, *args, inline: bool = True, **limits):
    interp = Interpreter(parse_module(text), inline_calls=inline, limits=Limits(**limits))
    return interp, interp.call("main", [np.asarray(a) for a in args])


def test_loop_body_calls_are_planned_inline():
    interp, (x, k) = _run(JAX_LOOP, np.float32(3), np.int32(7))
    assert not [st for st in _steps(interp) if st.kind == "call"]
    names = [st.op.name for st in _steps(interp)]
    assert names.count("stablehlo.multiply") == 2  # the innermost body's two ops
    ex, ek = _expected_loop(3, 7)
    assert x.tobytes() == np.asarray(ex).tobytes() and k.tobytes() == np.asarray(ek).tobytes()


def test_inlined_and_called_agree_bitwise():
    _, a = _run(JAX_LOOP, np.float32(-1.75), np.int32(-4))
    interp, b = _run(JAX_LOOP, np.float32(-1.75), np.int32(-4), inline=False)
    assert [st.kind for st in _steps(interp)].count("call") == 1  # the body's call
    assert [v.tobytes() for v in a] == [v.tobytes() for v in b]


RECURSIVE = """
func.func @main(%n: tensor<i32>) -> tensor<i32> {
  %0 = func.call @fact(%n) : (tensor<i32>) -> tensor<i32>
  func.return %0 : tensor<i32>
}
func.func private @fact(%n: tensor<i32>) -> tensor<i32> {
  %one = stablehlo.constant dense<1> : tensor<i32>
  %p = stablehlo.compare LE, %n, %one, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
  %r = "stablehlo.if"(%p) ({
    stablehlo.return %one : tensor<i32>
  }, {
    %m = stablehlo.subtract %n, %one : tensor<i32>
    %f = func.call @fact(%m) : (tensor<i32>) -> tensor<i32>
    %v = stablehlo.multiply %n, %f : tensor<i32>
    stablehlo.return %v : tensor<i32>
  }) : (tensor<i1>) -> tensor<i32>
  return %r : tensor<i32>
}
"""


def test_recursion_is_called_not_inlined():
    interp, (r,) = _run(RECURSIVE, np.int32(6))
    assert int(r) == 720
    # main's call is inlined once; the recursive call inside stays a call
    assert [st.kind for st in _steps(interp)].count("call") == 1


IDENTITY = """
func.func @main(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %0:2 = func.call @swap(%x, %x) : (tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
  %1 = stablehlo.add %0#0, %0#1 : tensor<4xf32>
  func.return %1, %0#1 : tensor<4xf32>, tensor<4xf32>
}
func.func private @swap(%a: tensor<4xf32>, %b: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  return %b, %a : tensor<4xf32>, tensor<4xf32>
}
"""


def test_callee_returning_its_arguments():
    x = np.array([1, -2, 0.5, 3], np.float32)
    _, (s, y) = _run(IDENTITY, x)
    assert s.tolist() == (x + x).tolist() and y.tolist() == x.tolist()
    s, y = hlorun.compile(IDENTITY)(x)
    assert s.tolist() == (x + x).tolist() and y.tolist() == x.tolist()
    assert not np.shares_memory(y, x)  # a Program's results are the caller's own
    assert x.tolist() == [1, -2, 0.5, 3]


def test_large_callees_stay_calls(monkeypatch):
    monkeypatch.setattr(I, "INLINE_MAX_OPS", 3)
    interp, (x, k) = _run(JAX_LOOP, np.float32(3), np.int32(7))
    kinds = [st.kind for st in _steps(interp)]
    assert kinds.count("call") == 1  # closed_call (4 ops) is called; body was inlined
    ex, ek = _expected_loop(3, 7)
    assert float(x) == float(ex) and int(k) == int(ek)


FAILING = """
func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {
  %0 = func.call @f(%x) : (tensor<2xf32>) -> tensor<2xf32>
  func.return %0 : tensor<2xf32>
}
func.func private @f(%x: tensor<2xf32>) -> tensor<2xf32> {
  %0 = stablehlo.custom_call @no_such_target(%x) : (tensor<2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}
"""


def test_errors_name_the_callee_op_and_its_line():
    with pytest.raises(Exception) as e:
        _run(FAILING, np.zeros(2, np.float32))
    assert ":7:" in str(e.value) and "no_such_target" in str(e.value)


def test_step_limit_counts_the_callee_steps():
    with pytest.raises(InterpreterError, match="step"):
        _run(JAX_LOOP, np.float32(3), np.int32(7), max_steps=20)
    _, (x, _k) = _run(JAX_LOOP, np.float32(3), np.int32(7), max_steps=10_000)
    assert float(x) == float(_expected_loop(3, 7)[0])
