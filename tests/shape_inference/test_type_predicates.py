"""One home for the spec's type predicates (issue 18 item 3): ``bitwidth`` and
``is_promotable`` live in shape_inference/typeutil.py and every family imports them.

Expected values are the spec's ("Functions on types"): is_promotable is
``same kind and bitwidth(x) <= bitwidth(y)`` -- signedness does not matter, complex
types compare their part types, booleans only promote to booleans; tf32 is a 19-bit
type (MLIR's FloatTF32Type: 1 sign, 8 exponent, 10 mantissa bits)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from hlorun.parser.ir import ComplexType, FloatType, IntegerType
from hlorun.shape_inference import conversion, gather_scatter, typeutil

ROOT = Path(__file__).resolve().parents[2]

I = {w: IntegerType(w) for w in (1, 4, 8, 16, 32, 64)}
UI = {w: IntegerType(w, "unsigned") for w in (4, 8, 16, 32, 64)}
F = {n: FloatType(n) for n in ("f8E4M3FN", "f8E5M2", "bf16", "f16", "tf32", "f32", "f64")}
C64, C128 = ComplexType(F["f32"]), ComplexType(F["f64"])


@pytest.mark.parametrize(
    "t, bits",
    [(F["tf32"], 19), (F["f32"], 32), (F["bf16"], 16), (F["f8E5M2"], 8), (I[4], 4), (C64, 32)],
)
def test_bitwidth(t, bits):
    assert typeutil.bitwidth(t) == bits


@pytest.mark.parametrize(
    "x, y, want",
    [
        (I[32], UI[32], True),  # signedness does not matter (spec)
        (UI[8], I[16], True),
        (I[32], I[16], False),
        (I[1], I[1], True),
        (I[1], I[8], False),  # booleans only to booleans
        (I[8], I[1], False),
        (F["f16"], F["f32"], True),
        (F["f32"], F["tf32"], False),  # 32 > 19 bits
        (F["tf32"], F["f32"], True),
        (F["bf16"], F["tf32"], True),
        (F["f8E4M3FN"], F["f8E5M2"], True),  # same bit width
        (C64, C128, True),
        (C128, C64, False),
        (F["f32"], C64, False),
        (I[32], F["f32"], False),
    ],
)
def test_is_promotable(x, y, want):
    assert typeutil.is_promotable(x, y) is want


def test_families_import_the_one_home():
    assert gather_scatter.is_promotable is typeutil.is_promotable
    assert conversion.num_bits(F["tf32"]) == typeutil.bitwidth(F["tf32"]) == 19
    assert conversion.num_bits(C64) == 64  # num_bits of a complex type: both parts


def test_no_other_definitions():
    """No family module defines its own is_promotable / bitwidth again."""
    pattern = re.compile(r"^def (is_promotable|bitwidth|_float_width)\b", re.M)
    homes = []
    for path in sorted((ROOT / "shape_inference").glob("*.py")) + sorted(
        (ROOT / "engine").rglob("*.py")
    ):
        if pattern.search(path.read_text()):
            homes.append(path.relative_to(ROOT).as_posix())
    assert homes == ["shape_inference/typeutil.py"]
