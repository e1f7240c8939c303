"""async_start / async_done (spec): the verifier's labels (async_start C1-C4, I1;
async_done C1, I1), and runs whose expected values come from the spec's semantics
(the body's op applied to the operands; all_gather concatenates the processes'
operands in group order)."""

from __future__ import annotations

import numpy as np
import pytest

import hlorun
from tests.shape_inference.labelcheck import assert_label, assert_verifies, func

X = "tensor<4x2xf32>"
S = "tensor<2x2xf32>"
SLICE = (
    '"stablehlo.slice"({arg}) {{start_indices = array<i64: 1, 0>, '
    "limit_indices = array<i64: 3, 2>, strides = array<i64: 1, 1>}} : ({x}) -> {s}"
)


def start(body_op: str, result: str = f"!stablehlo.future<{S}>", ret: str = S, args="") -> str:
    """``%f = async_start(%x) ({ [^bb0(args):] %1 = body_op; return %1 })``."""
    head = f"  ^bb0({args}):\n" if args else ""
    return (
        f'%f = "stablehlo.async_start"(%x) ({{\n{head}    %1 = {body_op}\n'
        f'    "stablehlo.return"(%1) : ({ret}) -> ()\n  }}) : ({X}) -> {result}'
    )


def done(future: str = f"!stablehlo.future<{S}>", result: str = S) -> str:
    return f'%r = "stablehlo.async_done"(%f) : ({future}) -> {result}'


def program(*ops: str, result: str = S) -> str:
    return func(f"%x: {X}", *ops, results=result, returns=f"%r : {result}")


VALID = program(start(SLICE.format(arg="%x", x=X, s=S)), done())
# the body reads the operands through its block's arguments
VALID_ARGS = program(start(SLICE.format(arg="%a", x=X, s=S), args=f"%a: {X}"), done())


def test_valid_programs_verify_and_run():
    x = np.arange(8, dtype=np.float32).reshape(4, 2)
    for text in (VALID, VALID_ARGS):
        assert_verifies(text)
        (r,) = hlorun.run(text, [x])
        np.testing.assert_array_equal(r, x[1:3])  # spec slice: rows 1..2


def test_dynamic_update_slice_runs():
    upd = "tensor<1x2xf32>"
    body = (
        f'"stablehlo.dynamic_update_slice"(%x, %u, %i, %j) : ({X}, {upd}, tensor<i64>, '
        f"tensor<i64>) -> {X}"
    )
    text = func(
        f"%x: {X}, %u: {upd}, %i: tensor<i64>, %j: tensor<i64>",
        f'%f = "stablehlo.async_start"(%x, %u, %i, %j) ({{\n    %1 = {body}\n'
        f'    "stablehlo.return"(%1) : ({X}) -> ()\n  }}) : ({X}, {upd}, tensor<i64>, '
        f"tensor<i64>) -> !stablehlo.future<{X}>",
        done(f"!stablehlo.future<{X}>", X),
        results=X,
        returns=f"%r : {X}",
    )
    assert_verifies(text)
    x = np.zeros((4, 2), np.float32)
    u = np.array([[5, 6]], np.float32)
    (r,) = hlorun.run(text, [x, u, np.int64(2), np.int64(0)])
    want = x.copy()
    want[2] = [5, 6]
    np.testing.assert_array_equal(r, want)


def test_all_gather_runs_on_a_grid():
    """The spec's own example: all_gather inside async_start, on 2 replicas."""
    g = "tensor<8x2xf32>"
    body = (
        '"stablehlo.all_gather"(%x) {all_gather_dim = 0 : i64, '
        f"replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>}} : ({X}) -> {g}"
    )
    text = program(
        start(body, f"!stablehlo.future<{g}>", g), done(f"!stablehlo.future<{g}>", g), result=g
    )
    assert_verifies(text)
    a = np.arange(8, dtype=np.float32).reshape(4, 2)
    outs = hlorun.run(text, [[a], [a + 100]], num_replicas=2)
    for (r,) in outs:
        np.testing.assert_array_equal(r, np.concatenate([a, a + 100]))


ADD = f"stablehlo.add %x, %x : {X}"

NEGATIVE = [
    # (C1) body: a single operation and a return
    (
        "async_start_c1",
        program(
            f'%f = "stablehlo.async_start"(%x) ({{\n    %0 = {ADD}\n'
            f"    %1 = {SLICE.format(arg='%0', x=X, s=S)}\n"
            f'    "stablehlo.return"(%1) : ({S}) -> ()\n  }}) : ({X}) -> !stablehlo.future<{S}>',
            done(),
        ),
    ),
    # (C2) only a collective or a slice
    (
        "async_start_c2",
        program(
            start(ADD, f"!stablehlo.future<{X}>", X), done(f"!stablehlo.future<{X}>", X), result=X
        ),
    ),
    # (C3) the body's op takes async_start's operands
    (
        "async_start_c3",
        func(
            f"%x: {X}, %y: {X}",
            start(SLICE.format(arg="%y", x=X, s=S)),
            done(),
            results=S,
            returns=f"%r : {S}",
        ),
    ),
    # (C4) the result is future<T>, T the body op's result type
    (
        "async_start_c4",
        program(
            start(SLICE.format(arg="%x", x=X, s=S), f"!stablehlo.future<{X}>"),
            done(f"!stablehlo.future<{X}>", X),
            result=X,
        ),
    ),
    # (I1) operands: tensors
    (
        "async_start_i1",
        func(
            f"%x: {X}, %t: !stablehlo.token",
            start(SLICE.format(arg="%x", x=X, s=S))
            .replace('"stablehlo.async_start"(%x)', '"stablehlo.async_start"(%t)')
            .replace(f"}}) : ({X}) ->", "}) : (!stablehlo.token) ->"),
            done(),
            results=S,
            returns=f"%r : {S}",
        ),
    ),
    # async_done (C1): future<T> gives T
    ("async_done_c1", program(start(SLICE.format(arg="%x", x=X, s=S)), done(result=X), result=X)),
    # async_done (I1): a tensor future
    (
        "async_done_i1",
        func(
            f"%x: {X}",
            f'%r = "stablehlo.async_done"(%x) : ({X}) -> {X}',
            results=X,
            returns=f"%r : {X}",
        ),
    ),
]


@pytest.mark.parametrize("label,text", NEGATIVE, ids=[n[0] for n in NEGATIVE])
def test_labels(label, text):
    assert_label(text, label)
