"""The op table (shape_inference/optable.py): every declared op has every column,
registrations are unique and under the literal op name, and the trait / ufunc columns
agree with each other and with the kernels.

Expected facts come from the spec (docs/spec.md, docs/chlo.md under ../shared) and from
the ops' definitions (max(a, a) = a...), never from the table itself.
"""

from __future__ import annotations

import inspect
import re
import sys
from pathlib import Path

import numpy as np
import pytest

import hlorun.engine.kernels  # noqa: F401  (its families fill the kernel column)
from hlorun.engine.ufunc import Ufunc, ieee_max, ieee_min
from hlorun.parser.ir import FloatType, IntegerType, TensorType
from hlorun.shape_inference.optable import (
    OP_TABLE,
    TRAITS,
    OpDef,
    RegistrationError,
    define_op,
    register_kernel,
)

SHARED = Path(__file__).resolve().parents[3] / "shared" / "stablehlo" / "docs"

# Declared ops that are verified but not interpreted, and why.
VERIFY_ONLY: dict[str, str] = {}
# Ops of docs/spec.md that hlorun does not declare yet.
NOT_DECLARED: set[str] = set()


def _rows() -> list[OpDef]:
    return list(OP_TABLE.values())


# ------------------------------------------------------------------------ columns


def test_every_declared_op_has_a_shape_function_and_a_kernel():
    assert len(OP_TABLE) > 150  # the families registered
    no_shape = sorted(n for n, r in OP_TABLE.items() if r.shape is None)
    no_kernel = {n for n, r in OP_TABLE.items() if r.kernel is None}
    assert no_shape == []
    assert no_kernel == set(VERIFY_ONLY)


def test_a_missing_column_is_found(monkeypatch):
    """The check above fails for a row without a kernel (it can fail)."""
    monkeypatch.setitem(OP_TABLE, "test.kernelless", OpDef("test.kernelless", shape=len))
    assert {n for n, r in OP_TABLE.items() if r.kernel is None} != set(VERIFY_ONLY)


def _spec_ops() -> list[str]:
    spec = (SHARED / "spec.md").read_text()
    ops = spec[spec.index("\n## Ops\n") : spec.index("\n## Dialect Interop")]
    return [n for n in re.findall(r"^### (\w+)$", ops, re.M) if n.islower()]


@pytest.mark.skipif(not (SHARED / "spec.md").exists(), reason="../shared/stablehlo is absent")
def test_every_spec_op_is_declared_with_both_columns():
    names = _spec_ops()
    assert len(names) > 100
    missing = {n for n in names if f"stablehlo.{n}" not in OP_TABLE}
    assert missing == NOT_DECLARED
    for n in names:
        row = OP_TABLE.get(f"stablehlo.{n}")
        if row is not None:
            assert row.shape is not None and row.kernel is not None, n


@pytest.mark.skipif(not (SHARED / "chlo.md").exists(), reason="../shared/stablehlo is absent")
def test_every_chlo_op_is_declared_with_both_columns():
    names = re.findall(r"^### `(chlo\.\w+)`", (SHARED / "chlo.md").read_text(), re.M)
    assert len(names) > 40
    for n in names:
        row = OP_TABLE.get(n)
        assert row is not None and row.shape is not None and row.kernel is not None, n


@pytest.mark.parametrize("name", sorted(OP_TABLE))
def test_registered_under_the_literal_op_name(name):
    """grep for the op name finds its shape function's and its kernel's registration:
    the module that defines each spells the name out (no names built at run time)."""
    row = OP_TABLE[name]
    for fn in (row.shape, row.kernel):
        if fn is None:
            continue
        source = inspect.getsource(sys.modules[fn.__module__])
        assert f'"{name}"' in source, f"{name} is not spelled out in {fn.__module__}"


# ------------------------------------------------------------------ registration


@pytest.fixture
def scratch_rows():
    """Rows registered by a test are dropped afterwards."""
    before = set(OP_TABLE)
    yield
    for name in set(OP_TABLE) - before:
        del OP_TABLE[name]


def test_duplicate_shape_function_raises(scratch_rows):
    define_op("test.dup", len)
    with pytest.raises(RegistrationError, match="registered twice"):
        define_op("test.dup", len)


def test_duplicate_kernel_raises(scratch_rows):
    register_kernel("test.dup_kernel", len)
    with pytest.raises(RegistrationError, match="registered twice"):
        register_kernel("test.dup_kernel", len)


def test_an_existing_op_cannot_be_registered_again():
    with pytest.raises(RegistrationError):
        define_op("stablehlo.add", len)
    with pytest.raises(RegistrationError):
        register_kernel("stablehlo.add", len)
    assert OP_TABLE["stablehlo.add"].shape is not len
    assert OP_TABLE["stablehlo.add"].kernel is not len


def test_unknown_trait_raises(scratch_rows):
    with pytest.raises(RegistrationError, match="unknown traits"):
        define_op("test.traits", len, traits={"elementwsie"})


# ------------------------------------------------------------------------ traits


def test_traits_are_known():
    for row in _rows():
        assert row.traits <= TRAITS, row.name


def test_trait_columns_are_consistent():
    for row in _rows():
        t = row.traits
        if "foldable" in t:  # pure: evaluated at plan time
            assert "side_effects" not in t, row.name
            assert not row.regions and not row.multi_result, row.name
        if "commutative" in t or "idempotent" in t:
            assert "elementwise" in t, row.name
        if "idempotent" in t:
            assert "commutative" in t, row.name
        if "process_id" in t:  # reading the process id is talking to the grid
            assert "cross_device" in t, row.name
        if "cross_device" in t:
            assert "side_effects" in t, row.name
        if row.grid_label is not None:  # names processes of the grid
            assert "cross_device" in t, row.name
        if "constant_like" in t:  # its result is its value attribute
            assert "value" in row.attrs and "side_effects" not in t, row.name
        if "reshape_like" in t:
            assert "foldable" in t and not row.multi_result, row.name
        if "loop" in t:
            assert row.regions, row.name
        if row.callee is not None:  # a symbol attribute naming a function
            assert row.callee[0] in row.attrs, row.name


def test_ufunc_columns_are_consistent():
    seen = 0
    for row in _rows():
        uf = row.ufunc
        if uf is None:
            continue
        seen += 1
        assert isinstance(uf, Ufunc), row.name
        assert isinstance(uf.ufunc, np.ufunc), row.name
        assert "elementwise" in row.traits, row.name
        assert set(uf.fast) <= set("biuf"), row.name
        assert set(uf.reduce) <= set("iufc") and set(uf.at) <= set("biufc"), row.name
        if uf.reduce or uf.at or uf.boolean is not None:
            # folds (reduce, scatter's ufunc.at) take the inputs in any order
            assert "commutative" in row.traits, row.name
        if uf.boolean is not None:
            assert isinstance(uf.boolean, np.ufunc), row.name
    assert seen >= 25


def test_quantization_policies_are_known():
    """The ``quantized`` kernel option (engine/kernels/quantization.py): the spec's
    dequantize_op_quantize ops, data movement, native ops; conversions of region inputs
    only for region ops that run natively."""
    policies = {None, True, "dequantize", "compare", "is_finite", "storage", "native"}
    for row in _rows():
        policy = row.kernel_options.get("quantized")
        assert policy in policies, row.name
        if row.kernel_options.get("quantized_targets") is not None:
            assert policy == "native" and row.regions, row.name

    def policy(n):
        return OP_TABLE[f"stablehlo.{n}"].kernel_options.get("quantized")

    assert policy("add") == policy("dot_general") == "dequantize"
    assert policy("reshape") == policy("gather") == "storage"
    assert policy("while") == policy("reduce") == "native"
    assert policy("and") is None and policy("uniform_quantize") is True


def test_fast_plans_are_callables_of_four_arguments():
    plans = [r for r in _rows() if r.fast_plan is not None]
    assert {r.name for r in plans} >= {
        "stablehlo.reshape",
        "stablehlo.broadcast_in_dim",
        "stablehlo.convert",
        "stablehlo.dot_general",
        "stablehlo.maximum",
        "stablehlo.minimum",
    }
    for r in plans:
        assert len(inspect.signature(r.fast_plan).parameters) == 4, r.name


def test_spec_commutative_ops_are_marked():
    """The spec's associative and commutative combiners (the ones reduce/scatter bodies
    use) carry the trait; subtract, divide and the shifts do not."""
    marked = {n for n, r in OP_TABLE.items() if "commutative" in r.traits}
    for n in ("add", "multiply", "maximum", "minimum", "and", "or", "xor"):
        assert f"stablehlo.{n}" in marked
    for n in ("subtract", "divide", "remainder", "power", "shift_left", "atan2"):
        assert f"stablehlo.{n}" not in marked


def _kernel(name, *xs):
    t = TensorType(xs[0].shape, FloatType("f32") if xs[0].dtype == np.float32 else IntegerType(32))
    return OP_TABLE[name].kernel(*xs, result_type=t, operand_types=(t,) * len(xs))


VALUES = {
    np.float32: np.array([0.0, -0.0, 1.5, -2.25, np.inf, -np.inf, 3e38, 1e-45], np.float32),
    np.int32: np.array([0, 1, -1, 7, -8, 2**31 - 1, -(2**31), 12345], np.int32),
}


@pytest.mark.parametrize("dtype", [np.float32, np.int32], ids=["f32", "i32"])
def test_commutative_and_idempotent_kernels(dtype):
    """op(a, b) == op(b, a) and, when marked idempotent, op(a, a) == a: bit for bit."""
    a = VALUES[dtype]
    b = np.roll(a, 3)
    checked = 0
    for name, row in OP_TABLE.items():
        if not name.startswith("stablehlo.") or "commutative" not in row.traits:
            continue
        if dtype == np.float32 and name in ("stablehlo.and", "stablehlo.or", "stablehlo.xor"):
            continue
        ab, ba = _kernel(name, a, b), _kernel(name, b, a)
        assert ab.tobytes() == ba.tobytes(), name
        if "idempotent" in row.traits:
            assert _kernel(name, a, a).tobytes() == a.tobytes(), name
        checked += 1
    assert checked >= 4


def test_ieee_max_min_order_signed_zeros_and_propagate_nan():
    """IEEE 754 maximum / minimum (spec "maximum", "minimum"): -0 < +0, NaN wins."""
    pz, nz = np.float32(0.0), np.float32(-0.0)
    for x, y in ((pz, nz), (nz, pz)):
        assert not np.signbit(ieee_max(x, y)) and np.signbit(ieee_min(x, y))
        xs, ys = np.array([x, 1, np.nan]), np.array([y, np.nan, 2])
        got_max, got_min = ieee_max(xs, ys), ieee_min(xs, ys)
        assert not np.signbit(got_max[0]) and np.signbit(got_min[0])
        assert np.isnan(got_max[1:]).all() and np.isnan(got_min[1:]).all()
    assert np.signbit(ieee_max(nz, nz)) and not np.signbit(ieee_min(pz, pz))
