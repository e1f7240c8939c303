"""tf32 NaNs keep their sign and payload through abs and negate (found by the property
suite: rounding to tf32 used to quiet every NaN, turning a signalling NaN's abs into a
different bit pattern)."""

from __future__ import annotations

import numpy as np

from hlorun.engine import kernels  # noqa: F401  (its families fill the kernel column)
from hlorun.parser.ir import FloatType, TensorType
from hlorun.shape_inference.optable import OP_TABLE

TF32 = TensorType((3,), FloatType("tf32"))


def _tf32(bits19: list[int]) -> np.ndarray:
    """tf32 patterns (1 sign, 8 exponent, 10 mantissa bits) in float32 storage."""
    return (np.array(bits19, np.uint32) << np.uint32(13)).view(np.float32)


def test_abs_and_negate_keep_signalling_nan_bits():
    x = _tf32([0x3FC01, 0x7FE05, 0x3FE00])  # +sNaN(1), -qNaN(5), +qNaN
    neg = OP_TABLE["stablehlo.negate"].kernel(x, result_type=TF32, operand_types=(TF32,))
    ab = OP_TABLE["stablehlo.abs"].kernel(x, result_type=TF32, operand_types=(TF32,))
    bits = lambda a: (a.view(np.uint32) >> np.uint32(13)).tolist()  # noqa: E731
    assert bits(neg) == [0x7FC01, 0x3FE05, 0x7FE00]  # sign flipped, payload kept
    assert bits(ab) == [0x3FC01, 0x3FE05, 0x3FE00]  # sign cleared, payload kept
