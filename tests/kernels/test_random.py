"""random kernels: Random123 known-answer vectors, the spec's rng_bit_generator example,
XLA's state update, and rng's distribution bounds."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

import hlorun.engine.kernels  # noqa: F401
from hlorun import shape_inference  # noqa: F401
from hlorun.engine.kernels.random import philox4x32, reset_rng, threefry2x32
from hlorun.parser.errors import InterpreterError
from hlorun.parser.ir import FloatType, IntegerType, TensorType
from hlorun.shape_inference.optable import OP_TABLE

UI64 = IntegerType(64, "unsigned")
UI32 = IntegerType(32, "unsigned")
UI16 = IntegerType(16, "unsigned")

# Random123 tests/kat_vectors: counter words, key words, expected words.
THREEFRY2X32_20_KAT = [
    ((0x00000000, 0x00000000), (0x00000000, 0x00000000), (0x6B200159, 0x99BA4EFE)),
    ((0xFFFFFFFF, 0xFFFFFFFF), (0xFFFFFFFF, 0xFFFFFFFF), (0x1CB996FC, 0xBB002BE7)),
    ((0x243F6A88, 0x85A308D3), (0x13198A2E, 0x03707344), (0xC4923A9C, 0x483DF7A0)),
]
PHILOX4X32_10_KAT = [
    ((0, 0, 0, 0), (0, 0), (0x6627E8D5, 0xE169C58D, 0xBC57AC4C, 0x9B00DBD8)),
    ((0xFFFFFFFF,) * 4, (0xFFFFFFFF,) * 2, (0x408F276D, 0x41C83B0E, 0xA20BC7C6, 0x6D5451FD)),
    (
        (0x243F6A88, 0x85A308D3, 0x13198A2E, 0x03707344),
        (0xA4093822, 0x299F31D0),
        (0xD16CFE09, 0x94FDCCEB, 0x5001E420, 0x24126EA1),
    ),
]


@pytest.mark.parametrize("ctr,key,want", THREEFRY2X32_20_KAT)
def test_threefry2x32_20_kat(ctr, key, want):
    y0, y1 = threefry2x32(key, np.array([ctr[0]], np.uint32), np.array([ctr[1]], np.uint32))
    assert (int(y0[0]), int(y1[0])) == want


@pytest.mark.parametrize("ctr,key,want", PHILOX4X32_10_KAT)
def test_philox4x32_10_kat(ctr, key, want):
    out = philox4x32(key, [np.array([c], np.uint32) for c in ctr])
    assert tuple(int(v[0]) for v in out) == want


def test_vectorised_over_counters_matches_one_by_one():
    key = (0xA4093822, 0x299F31D0)
    ctrs = [np.array([c[0][i] for c in PHILOX4X32_10_KAT], np.uint32) for i in range(4)]
    batch = philox4x32(key, ctrs)
    for j in range(3):
        one = philox4x32(key, [np.array([c[j]], np.uint32) for c in ctrs])
        assert [int(v[j]) for v in batch] == [int(v[0]) for v in one]
    assert [int(v[2]) for v in batch] == list(PHILOX4X32_10_KAT[2][2])


def rbg(state, out_type, algorithm="THREE_FRY"):
    state = np.array(state, dtype=np.uint64)
    return OP_TABLE["stablehlo.rng_bit_generator"].kernel(
        state, result_types=(TensorType(state.shape, UI64), out_type), rng_algorithm=algorithm
    )


def test_rng_bit_generator_spec_example_three_fry():
    new_state, out = rbg([1, 2], TensorType((2, 2), UI64))
    np.testing.assert_array_equal(new_state, np.array([1, 6], np.uint64))
    assert out.dtype == np.uint64
    np.testing.assert_array_equal(
        out,
        np.array(
            [
                [9236835810183407956, 16087790271692313299],
                [18212823393184779219, 2658481902456610144],
            ],
            dtype=np.uint64,
        ),
    )


def test_rng_bit_generator_three_fry_32bit_layout():
    """32-bit outputs: XLA splits the shape into halves on the first even dimension;
    element (i, j) of a 3x2 output is word j of Threefry(counter i)."""
    new_state, out = rbg([7, 100], TensorType((3, 2), UI32))
    np.testing.assert_array_equal(new_state, np.array([7, 103], np.uint64))
    for i in range(3):
        y0, y1 = threefry2x32((7, 0), np.array([100 + i], np.uint32), np.array([0], np.uint32))
        assert (int(out[i, 0]), int(out[i, 1])) == (int(y0[0]), int(y1[0]))


def test_rng_bit_generator_three_fry_32bit_odd_shape():
    """No even dimension: split the largest (3 -> 2 counters, last half sliced off)."""
    new_state, out = rbg([0, 0], TensorType((3,), UI32))
    np.testing.assert_array_equal(new_state, np.array([0, 2], np.uint64))
    y0, y1 = threefry2x32((0, 0), np.array([0, 1], np.uint32), np.array([0, 0], np.uint32))
    np.testing.assert_array_equal(out, [y0[0], y1[0], y0[1]])


def test_rng_bit_generator_philox_u32_state3():
    """PHILOX with a 3-word state: key = s0, 128-bit counter (s1 low, s2 high); the
    outputs of counter c fill elements 4c..4c+3; the counter advances by the blocks used."""
    key = 0x0123456789ABCDEF
    new_state, out = rbg([key, 2**64 - 1, 5], TensorType((5,), UI32), "PHILOX")
    # 2 blocks: counters (2**64 - 1, 5) and (0, 6) -> new counter (1, 6)
    np.testing.assert_array_equal(new_state, np.array([key, 1, 6], np.uint64))
    kk = (key & 0xFFFFFFFF, key >> 32)
    b0 = philox4x32(kk, [np.array([v], np.uint32) for v in (0xFFFFFFFF, 0xFFFFFFFF, 5, 0)])
    b1 = philox4x32(kk, [np.array([v], np.uint32) for v in (0, 0, 6, 0)])
    want = [int(v[0]) for v in b0] + [int(b1[0][0])]
    assert [int(v) for v in out] == want


def test_rng_bit_generator_philox_state2_and_default():
    """2-word state: XLA reverses it into the counter (low = s1, high = s0) and keeps only
    the low word of the new counter.  DEFAULT is PHILOX."""
    new_state, out = rbg([3, 10], TensorType((2,), UI64), "PHILOX")
    np.testing.assert_array_equal(new_state, np.array([3, 11], np.uint64))
    b = philox4x32((3, 0), [np.array([v], np.uint32) for v in (10, 0, 3, 0)])
    w = [int(v[0]) for v in b]
    assert [int(v) for v in out] == [w[0] | w[1] << 32, w[2] | w[3] << 32]
    s2, o2 = rbg([3, 10], TensorType((2,), UI64), "DEFAULT")
    np.testing.assert_array_equal(s2, new_state)
    np.testing.assert_array_equal(o2, out)


def test_rng_bit_generator_narrow_and_float_outputs():
    _, u32 = rbg([5, 9], TensorType((4,), UI32), "PHILOX")
    _, u16 = rbg([5, 9], TensorType((4,), UI16), "PHILOX")
    np.testing.assert_array_equal(u16, (u32 & 0xFFFF).astype(np.uint16))  # truncating convert
    _, f32 = rbg([5, 9], TensorType((4,), FloatType("f32")), "PHILOX")
    assert f32.dtype == np.float32
    np.testing.assert_array_equal(f32.view(np.uint32), u32)
    _, bf = rbg([5, 9], TensorType((4,), FloatType("bf16")), "PHILOX")
    assert bf.dtype == ml_dtypes.bfloat16
    np.testing.assert_array_equal(bf.view(np.uint16), u16)


def rng(a, b, shape, out_type, dist="UNIFORM"):
    return OP_TABLE["stablehlo.rng"].kernel(
        np.asarray(a),
        np.asarray(b),
        np.asarray(shape, np.int64),
        result_type=out_type,
        rng_distribution=dist,
    )


def test_rng_uniform_int_range_and_determinism():
    reset_rng()
    r = rng(np.int32(0), np.int32(2), [3, 3], TensorType((3, 3), IntegerType(32)))
    assert r.dtype == np.int32 and r.shape == (3, 3)
    assert set(np.unique(r)) <= {0, 1}
    reset_rng()
    r2 = rng(np.int32(0), np.int32(2), [3, 3], TensorType((3, 3), IntegerType(32)))
    np.testing.assert_array_equal(r, r2)


def test_rng_uniform_float_half_open():
    r = rng(np.float32(-1), np.float32(1), [1000], TensorType((1000,), FloatType("f32")))
    assert r.dtype == np.float32 and (r >= -1).all() and (r < 1).all()
    r = rng(
        ml_dtypes.bfloat16(0), ml_dtypes.bfloat16(1), [1000], TensorType((1000,), FloatType("bf16"))
    )
    assert (r.astype(np.float32) < 1).all()


def test_rng_shape_operand_must_match_result_type():
    with pytest.raises(InterpreterError):
        rng(np.float32(0), np.float32(1), [2, 3], TensorType((3, 2), FloatType("f32")))
    r = rng(np.float32(0), np.float32(1), [2, 3], TensorType((None, 3), FloatType("f32")))
    assert r.shape == (2, 3)


def test_rng_normal_moments():
    r = rng(
        np.float64(3.0), np.float64(0.5), [20000], TensorType((20000,), FloatType("f64")), "NORMAL"
    )
    assert abs(r.mean() - 3.0) < 0.05 and abs(r.std() - 0.5) < 0.05


def test_rng_bit_generator_refuses_a_state_it_cannot_interpret():
    """MLIR's verifier accepts a 1x2xf32 state (print_stablehlo.mlir); XLA's generators
    are defined on a 1-D ui64 state, so anything else is a clear UnsupportedError."""
    from hlorun import engine
    from hlorun.parser.errors import UnsupportedError

    prog = """
    func.func @main(%s: tensor<1x2xf32>) -> (tensor<1x2xf32>, tensor<4xui32>) {
      %0:2 = stablehlo.rng_bit_generator %s, algorithm = DEFAULT : (tensor<1x2xf32>) -> (tensor<1x2xf32>, tensor<4xui32>)
      func.return %0#0, %0#1 : tensor<1x2xf32>, tensor<4xui32>
    }"""
    with pytest.raises(UnsupportedError, match="1-D ui64"):
        engine.run(prog, [np.zeros((1, 2), np.float32)])
