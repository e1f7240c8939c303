"""The Element adapter and the whole-array check helpers agree; design rules hold."""

from __future__ import annotations

import ast
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

from hlorun.engine.element import Element, equal_mask, first_mismatch, ulp_distance

ENGINE = Path(__file__).resolve().parents[2] / "engine"

DTYPES = [
    np.bool_,
    np.int8,
    np.uint16,
    np.int32,
    np.int64,
    ml_dtypes.int4,
    ml_dtypes.uint2,
    np.float16,
    np.float32,
    np.float64,
    ml_dtypes.bfloat16,
    ml_dtypes.float8_e4m3fn,
    ml_dtypes.float8_e5m2,
    ml_dtypes.float4_e2m1fn,
    np.complex64,
]


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
def test_equal_mask_agrees_with_element(dtype):
    rng = np.random.default_rng(1)
    dt = np.dtype(dtype)
    raw = rng.integers(0, 256, size=(64, dt.itemsize), dtype=np.uint8)
    if dt.kind in "biu" or dt.itemsize == 1:
        a = rng.integers(-2, 3, size=64).astype(dt)
        b = rng.integers(-2, 3, size=64).astype(dt)
    else:
        a = raw.view(dt).reshape(64)
        b = a.copy()
        b[::3] = rng.integers(-2, 3, size=b[::3].shape).astype(dt)
    mask = equal_mask(a, b)
    assert mask.tolist() == [Element.at(a, (i,)) == Element.at(b, (i,)) for i in range(64)]


def test_bitwise_vs_ieee_float_equality():
    a = np.array([0.0, np.nan, 1.0], np.float32)
    b = np.array([-0.0, np.nan, 1.0], np.float32)
    assert equal_mask(a, b).tolist() == [False, True, True]
    assert equal_mask(a, b, mode="ieee").tolist() == [True, False, True]
    assert Element(0.0, np.float32) != Element(-0.0, np.float32)
    assert Element(0.0, np.float32).ieee_eq(Element(-0.0, np.float32))


def test_element_notation():
    assert str(Element(True, np.bool_)) == "true"
    assert str(Element(-8, ml_dtypes.int4)) == "-8"
    assert str(Element(1.5, np.float32)) == "1.500000e+00"
    assert str(Element(np.inf, np.float16)) == "inf"
    assert "0x7FC00000" in str(Element(np.float32("nan"), np.float32))


def test_ulp_distance_from_bit_patterns():
    one = np.float32(1.0)
    nxt = np.nextafter(one, np.float32(2))
    a = np.array([one, one, 0.0, -0.0, np.inf, np.nan, 1.0], np.float32)
    b = np.array([one, nxt, -0.0, np.float32(1e-45), np.inf, np.nan, np.inf], np.float32)
    d = ulp_distance(a, b)
    # 1.0 -> next float: 1 ULP; +0/-0: 0; -0 -> smallest subnormal: 1; equal infs: 0;
    # NaN/NaN: 0; finite vs inf: unbounded
    assert d.tolist() == [0, 1, 0, 1, 0, 0, np.inf]
    # f8E4M3FN: 2.0 and 3.0 are 4 steps of 0.25 apart
    f8 = ml_dtypes.float8_e4m3fn
    assert ulp_distance(np.array(2.0, f8), np.array(3.0, f8)) == 4


def test_first_mismatch_is_row_major():
    bad = np.zeros((3, 4), bool)
    bad[2, 0] = bad[1, 3] = True
    assert first_mismatch(bad) == (1, 3)


def _imports(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            names.add(("." * node.level) + (node.module or ""))
            names.update(f"{'.' * node.level}{node.module or ''}.{a.name}" for a in node.names)
        elif isinstance(node, ast.Import):
            names.update(a.name for a in node.names)
    return names


def test_kernels_do_not_import_the_element_adapter():
    """Only the check kernels may use Element (design card: the one per-element adapter)."""
    for path in sorted((ENGINE / "kernels").glob("*.py")):
        if path.name == "check.py":
            continue
        assert not any(
            "element" in name.split(".")[-2:] and "elementwise" not in name
            for name in _imports(path)
        ), path.name


FORBIDDEN = ("np.ndindex(", "itertools.product(", "np.vectorize(", "np.frompyfunc(", ".flat[")


def test_no_per_element_python_loops_in_engine():
    """Whole-tensor kernels: the per-element iteration helpers never appear in engine/."""
    for path in sorted(ENGINE.rglob("*.py")):
        if path.name == "element.py":
            continue
        text = path.read_text()
        for pattern in FORBIDDEN:
            assert pattern not in text, f"{path.relative_to(ENGINE)} uses {pattern}"
