"""Messages a new user meets first (issue 31 item 10): a misspelled op with
attributes, ``fold --stats`` of a program that folds to one constant, and the help
text of ``compat`` / ``vhlo``."""

from __future__ import annotations

import pytest

import hlorun
from hlorun.engine.cli import main
from hlorun.engine.fold import fold
from hlorun.parser import parse_module


def test_a_misspelled_op_with_attributes_is_named():
    text = (
        "func.func @main(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>) -> tensor<2x4xf32> {\n"
        "  %0 = stablehlo.dot_genral %a, %b, contracting_dims = [1] x [0]"
        " : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>\n"
        "  return %0 : tensor<2x4xf32>\n}\n"
    )
    with pytest.raises(hlorun.ParseError) as e:
        parse_module(text, "m.mlir")
    msg = str(e.value)
    assert "custom op 'stablehlo.dot_genral' is unknown" in msg, msg
    assert "stablehlo.dot_general" in msg  # the close name
    assert "results but its type gives" not in msg
    assert e.value.pos is not None and e.value.pos.line == 2


def test_fold_stats_count_only_ops_left_in_the_output():
    module = parse_module(
        "func.func @main() -> tensor<2xf32> {\n"
        "  %c = stablehlo.constant dense<[1.0, 2.0]> : tensor<2xf32>\n"
        "  %0 = func.call @f(%c) : (tensor<2xf32>) -> tensor<2xf32>\n"
        "  return %0 : tensor<2xf32>\n}\n"
        "func.func private @f(%x: tensor<2xf32>) -> tensor<2xf32> {\n"
        "  %0 = stablehlo.multiply %x, %x : tensor<2xf32>\n"
        "  %1 = stablehlo.add %0, %x : tensor<2xf32>\n"
        "  %2 = stablehlo.tanh %1 : tensor<2xf32>\n"
        "  return %2 : tensor<2xf32>\n}\n"
    )
    result = fold(module)
    (main_fn,) = result.module.functions.values()
    assert [op.name for op in main_fn.body.blocks[0].operations][:-1] == ["stablehlo.constant"]
    assert result.report.kept == 0, result.report.text()
    assert "1 ops folded, 0 kept" in result.report.text()


def test_fold_stats_still_count_what_stays():
    module = parse_module(
        "func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {\n"
        "  %0 = stablehlo.add %x, %x : tensor<2xf32>\n"
        "  return %0 : tensor<2xf32>\n}\n"
    )
    assert fold(module).report.kept == 1


@pytest.mark.parametrize("command", ["compat", "vhlo"])
def test_compat_and_vhlo_help_say_what_each_option_does(command: str, capsys):
    with pytest.raises(SystemExit) as e:
        main([command, "--help"])
    assert e.value.code == 0
    out = capsys.readouterr().out
    assert "--target V" in out and "--allow-other-dialects" in out
    assert "sdy" in out  # what the option's text says about the kept dialect
    assert "X.Y.Z" in out


def test_top_level_help_lists_every_command(capsys):
    with pytest.raises(SystemExit):
        main(["--help"])
    out = capsys.readouterr().out
    for name in ("format", "verify", "interpret", "test", "fold", "vhlo", "compat", "ops"):
        assert name in out
