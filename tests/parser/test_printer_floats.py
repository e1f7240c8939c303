"""Every float the printer writes reads back to the same bits (parser.printer + parser).

Exhaustive for the 4-, 6-, 8- and 16-bit formats, a sample of bit patterns for f32/f64;
NaN payloads and the sign of zero included.  Plus the literal forms MLIR uses.
"""

from __future__ import annotations

import numpy as np
import pytest

from hlorun.parser.grammar import parse_module
from hlorun.parser.ir import DenseElementsAttr, FloatAttr, FloatType, TensorType, numpy_dtype
from hlorun.parser.printer import print_attribute

SMALL = [
    "f4E2M1FN",
    "f6E2M3FN",
    "f6E3M2FN",
    "f8E3M4",
    "f8E4M3",
    "f8E4M3FN",
    "f8E4M3FNUZ",
    "f8E4M3B11FNUZ",
    "f8E5M2",
    "f8E5M2FNUZ",
    "f8E8M0FNU",
    "bf16",
    "f16",
]


def _bit_patterns(name: str) -> np.ndarray:
    dt = numpy_dtype(FloatType(name))
    if name.startswith(("f4", "f6")):
        return np.arange(1 << int(name[1]), dtype=np.uint8)
    if dt.itemsize == 1:
        return np.arange(256, dtype=np.uint8)
    if dt.itemsize == 2:
        return np.arange(65536, dtype=np.uint32).astype(np.uint16)
    rng = np.random.default_rng(1234)
    n = 4000
    if dt.itemsize == 4:
        special = np.array(
            [
                0,
                0x80000000,
                0x7F800000,
                0xFF800000,
                0x7FC00000,
                0x7F800001,
                0x00000001,
                0x007FFFFF,
                0x3DCCCCCD,
                0x40490FDB,
            ],
            dtype=np.uint32,
        )
        return np.concatenate(
            [special, rng.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32)]
        )
    special = np.array(
        [0, 1 << 63, 0x7FF0000000000000, 0x7FF8000000000001, 1, 0x3FB999999999999A], dtype=np.uint64
    )
    return np.concatenate([special, rng.integers(0, 2**64 - 1, n, dtype=np.uint64)])


def _reparse_constant(attr: DenseElementsAttr) -> np.ndarray:
    text = (
        f"func.func @f() {{\n  %c = stablehlo.constant {print_attribute(attr)}\n  func.return\n}}"
    )
    m = parse_module(text)
    return m.body[0].body.blocks[0].operations[0].attr("value").array


@pytest.mark.parametrize("name", [*SMALL, "f32", "f64"])
def test_dense_floats_read_back_bit_exact(name):
    bits = _bit_patterns(name)
    dt = numpy_dtype(FloatType(name))
    arr = bits.view(dt)
    back = _reparse_constant(DenseElementsAttr(TensorType((arr.size,), FloatType(name)), arr))
    assert back.dtype == dt
    assert np.array_equal(back.view(bits.dtype), bits)


@pytest.mark.parametrize(
    "value, type_, text",
    [
        (0.1, "f32", "1.000000e-01 : f32"),
        (1e-5, "f64", "1.000000e-05 : f64"),
        (float(np.float32(np.pi)), "f32", "3.14159274 : f32"),
        (np.pi, "f64", "3.1415926535897931 : f64"),
        (0.1 + 0.2, "f64", "0.30000000000000004 : f64"),
        (float("nan"), "f32", "0x7FC00000 : f32"),
        (float("-inf"), "f16", "0xFC00 : f16"),
        (float("nan"), "tf32", "0x3FE00 : tf32"),  # tf32 is a 19-bit format
        (-65504.0, "f16", "-6.550400e+04 : f16"),
    ],
)
def test_float_attr_literals(value, type_, text):
    assert print_attribute(FloatAttr(value, FloatType(type_))) == text


def test_float_attr_reads_back():
    for name in ["bf16", "f16", "f32", "f64", "f8E5M2"]:
        for v in [0.1, 1 / 3, -2.5e-3, 1e30 if name in ("f32", "f64", "bf16") else 100.0]:
            a = FloatAttr(float(np.array(v).astype(numpy_dtype(FloatType(name)))), FloatType(name))
            m = parse_module(f'"t.op"() {{x = {print_attribute(a)}}} : () -> ()')
            assert m.body[0].attr("x") == a
