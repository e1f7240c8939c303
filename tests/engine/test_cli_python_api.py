"""The Python entry points as a user calls them: typed errors for every kind of
``module``, inputs through ``__array__`` / ``__dlpack__`` / scalars, results the caller
owns, ``register_custom_call`` keywords, and ``run(..., profile=OpProfile())``."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import hlorun
from hlorun import engine
from hlorun.parser.errors import HloError, HloTypeError, InterpreterError, ParseError

JAX = Path(__file__).resolve().parents[1] / "fixtures" / "jax"

ADD = """
func.func @main(%x: tensor<3xf32>, %y: tensor<3xf32>) -> tensor<3xf32> {
  %0 = stablehlo.add %x, %y : tensor<3xf32>
  func.return %0 : tensor<3xf32>
}
"""

ALIASING = """
func.func @main(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<2xf32>, tensor<2x2xf32>, tensor<4xf32>) {
  %s = stablehlo.slice %x [0:2] : (tensor<4xf32>) -> tensor<2xf32>
  %r = stablehlo.reshape %x : (tensor<4xf32>) -> tensor<2x2xf32>
  func.return %x, %s, %r, %x : tensor<4xf32>, tensor<2xf32>, tensor<2x2xf32>, tensor<4xf32>
}
"""

SCALARS = """
func.func @main(%a: tensor<f32>, %b: tensor<i8>, %c: tensor<i1>) -> (tensor<f32>, tensor<i8>, tensor<i1>) {
  func.return %a, %b, %c : tensor<f32>, tensor<i8>, tensor<i1>
}
"""


# ------------------------------------------------------------------------ modules


def test_missing_file_name_is_a_parse_error_not_program_text(tmp_path: Path):
    for missing in ("missing.mlir", str(tmp_path / "gone.mlirbc"), "model.bc"):
        with pytest.raises(ParseError, match="no such file"):
            hlorun.run(missing, [])
    with pytest.raises(ParseError, match="no such file"):
        hlorun.run(tmp_path / "gone.mlir", [])  # a Path too


def test_other_python_types_are_hlo_type_errors():
    for bad in (42, None, 3.5, ["func.func"], object()):
        with pytest.raises(HloTypeError) as info:
            hlorun.run(bad, [])
        assert isinstance(info.value, TypeError) and isinstance(info.value, HloError)
        assert type(bad).__name__ in str(info.value)


@pytest.mark.parametrize("empty", ["", "module {\n}\n", b"", "// only a comment\n"])
def test_empty_or_function_less_input_is_an_error(empty):
    with pytest.raises(HloError, match="no function to run"):
        hlorun.run(empty, [])


def test_file_text_bytes_and_bytecode_all_run(tmp_path: Path):
    x, y = np.ones(3, np.float32), np.arange(3, dtype=np.float32)
    path = tmp_path / "add.mlir"
    path.write_text(ADD)
    want = x + y
    for module in (ADD, ADD.encode(), str(path), path):
        np.testing.assert_array_equal(hlorun.run(module, [x, y])[0], want)
    from hlorun.engine.npz_io import load_npz

    args = load_npz(JAX / "mlp.inputs.npz")
    (got,) = hlorun.run((JAX / "mlp.mlirbc").read_bytes(), args)  # bytes: bytecode
    (want_out,) = load_npz(JAX / "mlp.outputs.npz")  # what jax computed
    np.testing.assert_allclose(got, want_out, rtol=1e-5, atol=1e-6)


# ------------------------------------------------------------------------ inputs


class WithArray:
    """A duck array (jax.Array, torch tensors have ``__array__``)."""

    def __init__(self, a: np.ndarray) -> None:
        self._a = a

    def __array__(self, dtype=None, copy=None):
        return self._a if dtype is None else self._a.astype(dtype)


class WithDlpack:
    """Only the DLPack protocol (``np.from_dlpack`` reads it)."""

    def __init__(self, a: np.ndarray) -> None:
        self._a = a

    def __dlpack__(self, **kwargs):
        return self._a.__dlpack__(**kwargs)

    def __dlpack_device__(self):
        return self._a.__dlpack_device__()


def test_array_and_dlpack_objects_are_inputs():
    x = np.array([1.0, 2.0, 3.0], np.float32)
    y = np.array([0.5, 0.25, 0.125], np.float32)
    (r,) = hlorun.run(ADD, [WithArray(x), WithDlpack(y)])
    np.testing.assert_array_equal(r, x + y)
    with pytest.raises(InterpreterError, match="dtype float64"):
        hlorun.run(ADD, [WithArray(x.astype(np.float64)), y])


def test_python_scalars_for_rank_0_parameters():
    a, b, c = hlorun.run(SCALARS, [1.5, -3, True])
    assert (a.dtype, b.dtype, c.dtype) == (np.float32, np.int8, np.bool_)
    assert (a[()], b[()], c[()]) == (np.float32(1.5), -3, True)
    with pytest.raises(InterpreterError, match="does not fit i8"):
        hlorun.run(SCALARS, [1.5, 300, True])


@pytest.mark.filterwarnings("ignore::PendingDeprecationWarning")
def test_ndarray_subclasses_are_converted_and_masked_arrays_refused():
    m = np.matrix([[1.0, 2.0, 3.0]], np.float32)
    prog = ADD.replace("tensor<3xf32>", "tensor<1x3xf32>")
    (r,) = hlorun.run(prog, [m, m])
    assert type(r) is np.ndarray
    np.testing.assert_array_equal(r, np.asarray(m) * 2)
    masked = np.ma.masked_array(np.ones(3, np.float32), mask=[0, 1, 0])
    with pytest.raises(HloTypeError, match="masked array"):
        hlorun.run(ADD, [masked, np.ones(3, np.float32)])
    with pytest.raises(HloTypeError, match="must be a NumPy array"):
        hlorun.run(ADD, [[1.0, 2.0, 3.0], np.ones(3, np.float32)])


def test_results_are_writable_and_never_alias_the_inputs():
    x = np.arange(4, dtype=np.float32)
    keep = x.copy()
    program = hlorun.compile(ALIASING)
    for results in (hlorun.run(ALIASING, [x]), program(x)):
        for r in results:
            assert type(r) is np.ndarray and r.flags.writeable
            assert not np.shares_memory(r, x)
        assert not np.shares_memory(results[0], results[3])  # nor each other
        for r in results:
            r[...] = -1
        np.testing.assert_array_equal(x, keep)


# ------------------------------------------------------------------------ custom calls

CUSTOM = """
func.func @main(%x: tensor<3xf32>) -> tensor<3xf32> {
  %0 = stablehlo.custom_call @hlorun_test_scale(%x) {backend_config = {factor = 3.0 : f32}, api_version = 4 : i32} : (tensor<3xf32>) -> tensor<3xf32>
  %1 = stablehlo.custom_call @hlorun_test_apply(%0) {backend_config = "square", has_side_effect = true, called_computations = [@square]} : (tensor<3xf32>) -> tensor<3xf32>
  func.return %1 : tensor<3xf32>
}
func.func private @square(%x: tensor<3xf32>) -> tensor<3xf32> {
  %0 = stablehlo.multiply %x, %x : tensor<3xf32>
  func.return %0 : tensor<3xf32>
}
"""


def test_register_custom_call_receives_the_attributes():
    seen: dict[str, object] = {}

    def scale(x, *, backend_config, api_version, result_types):
        seen["scale"] = (backend_config, api_version, [str(t) for t in result_types])
        return x * np.float32(backend_config["factor"])

    def apply(x, **kw):
        seen["apply"] = kw
        (fn,) = kw["called_computations"]
        return fn(x)[0] + 1

    engine.register_custom_call("hlorun_test_scale", scale, replace=True)
    engine.register_custom_call("hlorun_test_apply", apply, replace=True)
    x = np.array([1.0, 2.0, -1.0], np.float32)
    (r,) = hlorun.run(CUSTOM, [x])
    np.testing.assert_array_equal(r, (3 * x) ** 2 + 1)
    config, version, types = seen["scale"]
    assert config == {"factor": 3.0} and version == 4 and len(types) == 1
    kw = seen["apply"]
    assert isinstance(kw, dict)
    assert kw["backend_config"] == "square" and kw["api_version"] == 1
    assert kw["has_side_effect"] is True
    assert kw["attributes"]["has_side_effect"] is True
    assert set(kw) == {
        "result_types",
        "backend_config",
        "api_version",
        "has_side_effect",
        "called_computations",
        "attributes",
    }


def test_a_handler_taking_only_result_types_still_works():
    engine.register_custom_call("hlorun_test_scale", lambda x, result_types: x * 2, replace=True)
    engine.register_custom_call("hlorun_test_apply", lambda x: x, replace=True)
    (r,) = hlorun.run(CUSTOM, [np.ones(3, np.float32)])
    np.testing.assert_array_equal(r, np.full(3, 2, np.float32))
    with pytest.raises(ValueError, match="already registered"):
        engine.register_custom_call("hlorun_test_apply", lambda x: x)


# ------------------------------------------------------------------------ profile


def test_run_fills_an_op_profile(tmp_path: Path):
    from hlorun.engine.npz_io import load_npz

    prof = engine.OpProfile()
    module = hlorun.parser.parse_module((JAX / "mlp.mlir").read_text(), "mlp.mlir")
    hlorun.run(module, load_npz(JAX / "mlp.inputs.npz"), profile=prof)
    assert "stablehlo.dot_general" in prof.table()
    top = prof.top(2, module).splitlines()
    assert len(top) == 3  # the header and two ops
    path = tmp_path / "trace.json"
    prof.write_trace(path, module)
    events = json.loads(path.read_text())["traceEvents"]
    dots = [e for e in events if e["name"] == "stablehlo.dot_general"]
    assert [e["args"]["location"] for e in dots] == ["mlp.mlir:9:5", "mlp.mlir:14:5"]
    assert all(e["args"]["source"].startswith("cases.py:") for e in dots)


# ------------------------------------------------------------------------ user source lines

LOCATED = """
func.func @main(%x: tensor<3xf32>) -> tensor<3xf32> {
  %0 = stablehlo.custom_call @hlorun_test_boom(%x) : (tensor<3xf32>) -> tensor<3xf32> loc(#loc2)
  func.return %0 : tensor<3xf32>
}
#loc1 = loc("model.py":12:7)
#loc2 = loc("jit(f)/boom"(callsite(#loc1 at "main.py":40:3)))
"""


def test_errors_name_the_innermost_user_source_line():
    from hlorun.parser import parse_module
    from hlorun.parser.vhlo.artifact import serialize_portable_artifact

    def boom(x):
        raise ValueError("bad input")

    engine.register_custom_call("hlorun_test_boom", boom, replace=True)
    x = np.ones(3, np.float32)
    with pytest.raises(InterpreterError) as info:
        hlorun.run(LOCATED, [x])
    # the op's place in the text, and the user's line (the callee of the callsite)
    assert str(info.value) == (
        "<string>:3:3: error: 'stablehlo.custom_call' op custom_call target "
        "'hlorun_test_boom': the registered handler raised ValueError: bad input "
        "(from: model.py:12)"
    )
    artifact = serialize_portable_artifact(parse_module(LOCATED), "1.9.0")
    with pytest.raises(InterpreterError) as info:
        hlorun.run(artifact, [x])
    # bytecode has no text positions: the op's location is the position, as in MLIR
    assert str(info.value).startswith("model.py:12:7: error: 'stablehlo.custom_call' op")


def test_grid_results_alias_neither_inputs_nor_each_other():
    program = """
module attributes {mhlo.num_replicas = 2 : i32} {
  func.func @main(%x: tensor<3xf32>) -> tensor<3xf32> {
    func.return %x : tensor<3xf32>
  }
}
"""
    x = np.ones(3, np.float32)
    (r0,), (r1,) = hlorun.run(program, [x])
    assert not np.shares_memory(r0, x) and not np.shares_memory(r1, x)
    assert not np.shares_memory(r0, r1)
    np.testing.assert_array_equal(r0, x)


def test_an_object_that_cannot_become_an_array_is_a_type_error():
    class OnAnotherDevice:
        def __dlpack__(self, **kwargs):
            raise BufferError("the tensor lives on a GPU")

        def __dlpack_device__(self):
            return (2, 0)  # kDLCUDA

    with pytest.raises(HloTypeError, match="cannot be read as a NumPy array"):
        hlorun.run(ADD, [OnAnotherDevice(), np.ones(3, np.float32)])
