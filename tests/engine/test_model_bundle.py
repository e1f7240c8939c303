"""The folder PyTorch/XLA saves a model to (``torch_xla.stablehlo.save_as_stablehlo``,
engine/model_bundle.py): ``hlorun.run(DIR, [x])`` and ``hlorun interpret DIR --inputs
x.npz`` take the user's inputs only, as ``StableHLOGraphModule`` does, the weights
from ``data/`` and the lifted constants from ``constants/`` put in by
``input_locations``.

The folders are built here in the on-disk format of pytorch/xla torch_xla/stablehlo.py
(``_save_program_bundle``: ``functions/NAME.{meta,bytecode,mlir}``, ``data/KEY`` and
``constants/I`` as ``np.save`` files without a suffix, the meta the JSON of
``StableHLOFunctionMeta`` with ``InputLocation``s ``{"type_", "position", "name"}``);
expected values with NumPy.
"""

from __future__ import annotations

import contextlib
import io
import json
import shutil
from pathlib import Path

import numpy as np
import pytest

import hlorun
from hlorun.engine.cli import main
from hlorun.parser import parse_module
from hlorun.parser.bytecode.writer import write_bytecode
from hlorun.parser.errors import HloError, InterpreterError, ParseError

FORWARD = """module @IrToHlo.12 {
  func.func @main(%w: tensor<3x2xf32>, %x: tensor<2x3xf32>, %c: tensor<2xf32>, %b: tensor<2xf32>, %y: tensor<4xi32>) -> (tensor<2x2xf32>, tensor<4xi32>) {
    %0 = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0] : (tensor<2x3xf32>, tensor<3x2xf32>) -> tensor<2x2xf32>
    %1 = stablehlo.add %b, %c : tensor<2xf32>
    %2 = stablehlo.broadcast_in_dim %1, dims = [1] : (tensor<2xf32>) -> tensor<2x2xf32>
    %3 = stablehlo.add %0, %2 : tensor<2x2xf32>
    %4 = stablehlo.multiply %y, %y : tensor<4xi32>
    return %3, %4 : tensor<2x2xf32>, tensor<4xi32>
  }
}
"""
DOUBLE = """func.func @main(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = stablehlo.add %x, %x : tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}
"""


def _sig(shape, dtype):
    return {"shape": list(shape), "dtype": dtype, "dynamic_dims": []}


def _loc(kind, position=-1, name=""):
    return {"type_": kind, "position": position, "name": name}


def _meta(name, locations, unused=()):
    return {
        "name": name,
        "stablehlo_version": "0.0.0",
        "input_signature": [],
        "output_signature": [],
        "input_locations": locations,
        "unused_inputs": [[_loc("input_arg", p), _sig([], "float32")] for p in unused],
        "input_pytree_spec": None,
        "output_pytree_spec": None,
    }


RNG = np.random.default_rng(3)
WEIGHT = RNG.standard_normal((3, 2)).astype(np.float32)
BIAS = RNG.standard_normal(2).astype(np.float32)
CONST = np.array([0.5, -1.0], np.float32)


def save_folder(root: Path) -> Path:
    """A folder as _save_program_bundle writes one: `forward` (bytecode and text) and
    `double` (text only), two weights, one lifted constant."""
    (root / "functions").mkdir(parents=True)
    (root / "data").mkdir()
    (root / "constants").mkdir()
    for key, val in {"fc.weight": WEIGHT, "fc.bias": BIAS, "unused.buf": BIAS}.items():
        with open(root / "data" / key, "wb") as f:
            np.save(f, val)
    with open(root / "constants" / "0", "wb") as f:
        np.save(f, CONST)
    fwd = _meta(
        "forward",
        [
            _loc("parameter", name="fc.weight"),
            _loc("input_arg", 0),
            _loc("constant", 0),
            _loc("parameter", name="fc.bias"),
            _loc("input_arg", 2),
        ],
        unused=(1,),  # the user's second input is not used by the graph
    )
    f = root / "functions"
    (f / "forward.meta").write_text(json.dumps(fwd))
    (f / "forward.bytecode").write_bytes(write_bytecode(parse_module(FORWARD), 6, "MLIR20"))
    (f / "forward.mlir").write_text(FORWARD)
    (f / "double.meta").write_text(json.dumps(_meta("double", [_loc("input_arg", 0)])))
    (f / "double.mlir").write_text(DOUBLE)
    return root


X = np.arange(6, dtype=np.float32).reshape(2, 3)
Y = np.array([1, -2, 3, 4], np.int32)
UNUSED = np.float32(7)


def expected_forward():
    return X @ WEIGHT + (BIAS + CONST), Y * Y


def test_run_takes_the_users_inputs_only(tmp_path):
    d = save_folder(tmp_path / "model")
    got = hlorun.run(str(d), [X, UNUSED, Y])
    for g, e in zip(got, expected_forward()):
        np.testing.assert_allclose(g, e, rtol=1e-6)
    again = hlorun.run(d, [X, UNUSED, Y])  # a Path; the second run reuses the load
    np.testing.assert_array_equal(again[1], Y * Y)


def test_a_function_by_name(tmp_path):
    d = save_folder(tmp_path / "model")
    (got,) = hlorun.run(str(d), [X], function="double")
    np.testing.assert_array_equal(got, X + X)
    with pytest.raises(InterpreterError, match="no function 'backward'.*double, forward"):
        hlorun.run(str(d), [X], function="backward")


def test_wrong_number_of_inputs(tmp_path):
    d = save_folder(tmp_path / "model")
    with pytest.raises(InterpreterError, match="takes 3 input"):
        hlorun.run(str(d), [X, Y])


def test_a_missing_weight_is_named(tmp_path):
    d = save_folder(tmp_path / "model")
    (d / "data" / "fc.bias").unlink()
    with pytest.raises(ParseError, match="fc.bias"):
        hlorun.run(str(d), [X, UNUSED, Y])


def test_a_weight_name_outside_data_is_refused(tmp_path):
    d = save_folder(tmp_path / "model")
    meta = json.loads((d / "functions" / "double.meta").read_text())
    meta["input_locations"] = [_loc("parameter", name="../constants/0")]
    (d / "functions" / "double.meta").write_text(json.dumps(meta))
    with pytest.raises(ParseError, match="names no file of data/"):
        hlorun.run(str(d), [], function="double")


def test_a_folder_that_is_not_a_saved_model(tmp_path):
    with pytest.raises(HloError, match="folder"):
        hlorun.run(str(tmp_path), [X])


def _cli(*args: str):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        rc = main(list(args))
    return rc, out.getvalue(), err.getvalue()


def test_cli_interpret_a_folder(tmp_path):
    d = save_folder(tmp_path / "model")
    np.savez(tmp_path / "x.npz", X, UNUSED, Y)
    rc, out, err = _cli(
        "interpret",
        str(d),
        "--inputs",
        str(tmp_path / "x.npz"),
        "--outputs",
        str(tmp_path / "out.npz"),
    )
    assert rc == 0, err
    outs = np.load(tmp_path / "out.npz")
    for i, e in enumerate(expected_forward()):
        np.testing.assert_allclose(outs[f"arr_{i}"], e, rtol=1e-6)
    np.save(tmp_path / "x.npy", X)
    rc, out, err = _cli(
        "interpret", str(d), "--entry", "double", "--inputs", str(tmp_path / "x.npy")
    )
    assert rc == 0, err
    assert "tensor<2x3xf32>" in out


def test_cli_error_for_a_missing_function(tmp_path):
    d = save_folder(tmp_path / "model")
    shutil.rmtree(d / "constants")
    rc, out, err = _cli("interpret", str(d), "--entry", "nope")
    assert rc == 1 and "no function 'nope'" in err and "Traceback" not in err


SAVED = Path(__file__).resolve().parents[1] / "fixtures" / "torch_xla_saved"


def test_a_folder_torch_xla_saved():
    """A real save_as_stablehlo folder (torch_xla 2.9; PROVENANCE.json): the user's one
    input, the model's eager torch output within 1e-4 of its scale."""
    x = np.load(SAVED / "saved_cnn.inputs.npz")["arr_0"]
    want = np.load(SAVED / "saved_cnn.outputs.npz")["arr_0"]
    (got,) = hlorun.run(str(SAVED / "saved_cnn"), [x])
    bound = 1e-4 * (np.abs(want).max() + np.abs(want))
    assert got.shape == want.shape and np.all(np.abs(got - want) <= bound)
    rc, out, err = _cli(
        "interpret",
        str(SAVED / "saved_cnn"),
        "--inputs",
        str(SAVED / "saved_cnn.inputs.npz"),
    )
    assert rc == 0 and "tensor<2x4xf32>" in out, err


def test_cli_a_folder_that_is_not_a_saved_model(tmp_path):
    rc, out, err = _cli("interpret", str(tmp_path))
    assert rc == 1 and "not one PyTorch/XLA saved" in err and "Traceback" not in err


@pytest.mark.parametrize(
    "damage",
    [
        lambda d: (d / "functions" / "forward.meta").write_text("{not json"),
        lambda d: (d / "functions" / "forward.meta").write_text("[1, 2]"),
        lambda d: (d / "functions" / "forward.meta").write_text('{"input_locations": 3}'),
        lambda d: (d / "functions" / "forward.meta").write_text(
            json.dumps(_meta("forward", [{"type_": "input_arg", "position": "x"}]))
        ),
        lambda d: (d / "functions" / "forward.meta").write_text(
            json.dumps({**_meta("forward", []), "unused_inputs": [[{"type_": "input_arg"}]]})
        ),
        lambda d: (d / "data" / "fc.weight").write_bytes(b""),
        lambda d: (d / "data" / "fc.weight").write_bytes(b"\x93NUMPY garbage"),
        lambda d: (d / "functions" / "forward.bytecode").write_bytes(b"ML\xefR\x00"),
    ],
)
def test_a_damaged_folder_is_an_error_not_a_traceback(tmp_path, damage):
    d = save_folder(tmp_path / "model")
    damage(d)
    with pytest.raises(HloError):
        hlorun.run(str(d), [X, UNUSED, Y])
    rc, out, err = _cli("interpret", str(d))
    assert rc == 1 and "Traceback" not in err
