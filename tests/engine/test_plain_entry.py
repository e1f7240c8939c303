"""Program's plain call (engine/entry.py): the generated fast path keeps every rule of
the general one: results never alias inputs or each other (issue 21 item 4), constants
come back as the caller's copies, the memory budget applies, feeds stay per call, and
anything unusual takes the general path (same results, same errors)."""

from __future__ import annotations

import numpy as np
import pytest

from hlorun.engine.program import Program
from hlorun.parser.errors import InterpreterError


def _prog(text: str, **kw) -> Program:
    prog = Program(text, **kw)
    assert prog._run_plain is not None  # the plain call is what these tests exercise
    return prog


def test_identity_result_is_not_the_input():
    prog = _prog(
        """func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {
      return %a : tensor<4xf32>
    }"""
    )
    a = np.arange(4, dtype=np.float32)
    (r,) = prog(a)
    assert r is not a and not np.shares_memory(r, a)
    assert r.tolist() == [0.0, 1.0, 2.0, 3.0]


def test_view_result_and_repeated_result_are_owned():
    prog = _prog(
        """func.func @main(%a: tensor<2x3xf32>) -> (tensor<3x2xf32>, tensor<6xf32>, tensor<6xf32>) {
      %t = stablehlo.transpose %a, dims = [1, 0] : (tensor<2x3xf32>) -> tensor<3x2xf32>
      %r = stablehlo.reshape %a : (tensor<2x3xf32>) -> tensor<6xf32>
      return %t, %r, %r : tensor<3x2xf32>, tensor<6xf32>, tensor<6xf32>
    }"""
    )
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    t, r1, r2 = prog(a)
    for x in (t, r1, r2):
        assert not np.shares_memory(x, a)
    assert not np.shares_memory(r1, r2)
    assert t.tolist() == a.T.tolist() and r1.tolist() == r2.tolist() == list(range(6))


def test_constant_result_is_the_callers_copy():
    prog = _prog(
        """func.func @main(%a: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>) {
      %c = stablehlo.constant dense<[1.0, 2.0]> : tensor<2xf32>
      %s = stablehlo.add %a, %c : tensor<2xf32>
      return %c, %s : tensor<2xf32>, tensor<2xf32>
    }"""
    )
    a = np.zeros(2, np.float32)
    c, s = prog(a)
    c[...] = 7  # the caller's own array
    c2, s2 = prog(a)
    assert c2.tolist() == [1.0, 2.0] and s2.tolist() == [1.0, 2.0]


def test_scalar_arguments_and_results():
    prog = _prog(
        """func.func @main(%a: tensor<f32>, %b: tensor<f32>) -> tensor<f32> {
      %0 = stablehlo.multiply %a, %b : tensor<f32>
      return %0 : tensor<f32>
    }"""
    )
    (r,) = prog(np.array(1.5, np.float32), np.array(3.0, np.float32))
    assert r.__class__ is np.ndarray and r.dtype == np.float32 and r.shape == () and r == 4.5


def test_other_inputs_take_the_general_path():
    prog = _prog(
        """func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {
      %0 = stablehlo.add %a, %a : tensor<2xf32>
      return %0 : tensor<2xf32>
    }"""
    )
    with pytest.raises(InterpreterError, match="has dtype float64, expected float32"):
        prog(np.zeros(2, np.float64))
    with pytest.raises(InterpreterError, match="expected 2"):
        prog(np.zeros(3, np.float32))

    class Sub(np.ndarray):
        pass

    sub = np.array([1.0, 2.0], np.float32).view(Sub)  # a subclass: its base-class view
    (r,) = prog(sub)
    assert r.__class__ is np.ndarray and r.tolist() == [2.0, 4.0]
    assert prog(np.float32(1.0) * np.ones(2, np.float32))[0].tolist() == [2.0, 2.0]


def test_memory_budget_applies_in_the_plain_call():
    text = """func.func @main(%s: tensor<1xi64>) -> tensor<?xf32> {
      %0 = stablehlo.dynamic_iota %s, dim = 0 : (tensor<1xi64>) -> tensor<?xf32>
      func.return %0 : tensor<?xf32>
    }"""
    small = _prog(text, memory_cap=1 << 20)
    with pytest.raises(InterpreterError, match="per-tensor memory cap of 1048576 bytes"):
        small(np.array([10**6], np.int64))
    assert _prog(text)(np.array([3], np.int64))[0].tolist() == [0.0, 1.0, 2.0]


def test_outfeed_of_a_plain_call_never_reaches_an_earlier_callers_list():
    prog = _prog(
        """func.func @main(%x: tensor<i64>) -> tensor<i64> {
      %t = stablehlo.after_all : !stablehlo.token
      %t2 = "stablehlo.outfeed"(%x, %t) : (tensor<i64>, !stablehlo.token) -> !stablehlo.token
      return %x : tensor<i64>
    }"""
    )
    mine: list = []
    prog(np.array(5, np.int64), outfeed=mine)
    assert len(mine) == 1
    for v in (6, 7):
        assert prog(np.array(v, np.int64))[0] == v  # outfeed=None: written nowhere visible
    assert len(mine) == 1
