"""What the Python API says when it is used wrongly (issue 31 item 9): a jax.export
container given to ``run``, an unknown keyword, ``inputs=None``, a custom-call handler
returning the wrong type or raising, and ``--custom-call`` on the command line (Build 3)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import hlorun
from hlorun.engine import register_custom_call
from hlorun.engine.cli import main
from hlorun.engine.kernels.control_flow import CUSTOM_CALLS

JAX = Path(__file__).resolve().parents[1] / "fixtures" / "jax"
CONST = (
    "func.func @main() -> tensor<i32> {\n"
    "  %0 = stablehlo.constant dense<7> : tensor<i32>\n"
    "  return %0 : tensor<i32>\n}\n"
)
CALL = (
    "func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {{\n"
    "  %0 = stablehlo.custom_call @{target}(%a) : (tensor<2xf32>) -> tensor<2xf32>\n"
    "  return %0 : tensor<2xf32>\n}}\n"
)


@pytest.fixture
def target():
    name = "issue31_handler"
    yield name
    CUSTOM_CALLS.pop(name, None)


def test_run_of_an_exported_file_points_to_load_exported():
    with pytest.raises(hlorun.ParseError, match=r"load_exported"):
        hlorun.run(str(JAX / "mlp.exported"))


def test_an_unknown_keyword_is_named_with_the_close_ones():
    with pytest.raises(hlorun.HloTypeError, match=r"'timout' \(did you mean timeout\?\)"):
        hlorun.run(CONST, [], timout=3)


def test_inputs_none_means_no_inputs():
    assert hlorun.run(CONST, None)[0] == 7
    assert hlorun.run(CONST, inputs=None)[0] == 7
    assert hlorun.run(CONST, None, max_steps=10)[0] == 7


def test_a_handler_returning_the_wrong_dtype_names_target_and_types(target):
    register_custom_call(target, lambda x: x.astype(np.float64))
    with pytest.raises(hlorun.InterpreterError) as e:
        hlorun.run(CALL.format(target=target), [np.ones(2, np.float32)])
    msg = str(e.value)
    assert f"'{target}'" in msg and "float64" in msg and "tensor<2xf32>" in msg
    assert "internal error" not in msg


def test_a_handler_returning_the_wrong_shape_or_raising(target):
    register_custom_call(target, lambda x: np.ones(3, np.float32))
    with pytest.raises(hlorun.InterpreterError, match=r"shape \(3,\).*tensor<2xf32>"):
        hlorun.run(CALL.format(target=target), [np.ones(2, np.float32)])

    def boom(x):
        raise ValueError("bad handler")

    register_custom_call(target, boom, replace=True)
    with pytest.raises(hlorun.InterpreterError, match=r"raised ValueError: bad handler"):
        hlorun.run(CALL.format(target=target), [np.ones(2, np.float32)])


def test_cli_custom_call_loads_a_handler(tmp_path: Path, capsys, target):
    (tmp_path / "handlers.py").write_text("def double(x):\n    return x * 2\n")
    src = tmp_path / "call.mlir"
    src.write_text(
        "func.func @main() -> tensor<2xf32> {\n"
        "  %a = stablehlo.constant dense<[1.0, 2.0]> : tensor<2xf32>\n"
        f"  %0 = stablehlo.custom_call @{target}(%a) : (tensor<2xf32>) -> tensor<2xf32>\n"
        "  return %0 : tensor<2xf32>\n}\n"
    )
    handler = f"{tmp_path / 'handlers.py'}:double={target}"
    assert main(["interpret", str(src), "--custom-call", handler]) == 0
    assert "[2.000000e+00, 4.000000e+00]" in capsys.readouterr().out
    assert main(["interpret", str(src), "--custom-call", f"{tmp_path / 'handlers.py'}:nope"]) == 1
    err = capsys.readouterr().err
    assert "--custom-call" in err and "nope" in err
    assert main(["interpret", str(src), "--custom-call", "handlers"]) == 1
    assert "MODULE:FUNCTION[=TARGET]" in capsys.readouterr().err
