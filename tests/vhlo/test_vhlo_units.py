"""The version API, the VHLO table against upstream, and the refusals of version
conversion (expected values from stablehlo's Version.h / Version.cpp, Vhlo*.td and
VhloToVersionPatterns.td, not from hlorun's output)."""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path

import pytest

from hlorun.parser import VerificationError, parse_module
from hlorun.parser.vhlo import table
from hlorun.parser.vhlo.cli import compat_main
from hlorun.parser.vhlo.common import LegalizeError
from hlorun.parser.vhlo.convert import vhlo_to_version
from hlorun.parser.vhlo.from_vhlo import legalize_to_stablehlo
from hlorun.parser.vhlo.to_vhlo_ops import legalize_to_vhlo
from hlorun.parser.vhlo.version import (
    Version,
    get_bytecode_version,
    get_current_version,
    get_minimum_version,
    get_version_from_compatibility_requirement,
    validate_target,
)
from tests.vhlo.normalize import normalize

ROOT = Path(__file__).resolve().parents[2]
MIRROR = Path("/work/.mirror/openxla+stablehlo/repo")


# ---- versions (Version.h / Version.cpp) -----------------------------------------------------


def test_current_and_minimum():
    assert str(get_current_version()) == "1.20.0"
    assert str(get_minimum_version()) == "0.9.0"


@pytest.mark.parametrize(
    "req,expected",
    [
        ("NONE", "1.20.0"),
        ("WEEK_4", "1.18.0"),
        ("WEEK_12", "1.16.2"),
        ("MAX", "0.9.0"),
    ],
)
def test_compatibility_requirements(req, expected):
    assert str(get_version_from_compatibility_requirement(req)) == expected


def test_unknown_requirement():
    with pytest.raises(ValueError, match="WEEK_7"):
        get_version_from_compatibility_requirement("WEEK_7")


@pytest.mark.parametrize(
    "v,code",
    [
        ("0.9.0", 0),
        ("0.10.0", 1),
        ("0.11.9", 1),
        ("0.12.0", 3),
        ("0.14.0", 4),
        ("0.15.0", 6),
        ("1.20.0", 6),
    ],
)
def test_bytecode_versions(v, code):
    assert get_bytecode_version(v) == code


@pytest.mark.parametrize("v", ["0.8.9", "1.21.0", "2.0.0"])
def test_bytecode_version_out_of_range(v):
    with pytest.raises(ValueError):
        get_bytecode_version(v)


def test_ordering_and_parse():
    assert Version.parse("1.10.0") > Version.parse("1.9.3")
    assert Version.parse("1.4") is None and Version.parse("v1.4.0") is None
    assert Version.parse(" 1.4.0") is None


@pytest.mark.parametrize(
    "text,message",
    [
        ("", "No target version specified."),
        ("x.y.z", "Invalid target version argument 'x.y.z'"),
        ("0.0.0", "target version 0.0.0 is less than minimum supported 0.9.0"),
        ("100.10.10", "target version 100.10.10 is greater than current version 1.20.0"),
    ],
)
def test_invalid_targets(text, message):
    with pytest.raises(VerificationError, match=message.replace(".", r"\.")):
        validate_target(text)


def test_patch_versions_use_their_opset():
    assert validate_target("1.4.1") == Version(1, 4, 0)
    assert validate_target("1.20.0") == Version(1, 20, 0)


# ---- the table ----------------------------------------------------------------------------


@pytest.mark.skipif(not MIRROR.is_dir(), reason="stablehlo mirror absent")
def test_table_matches_upstream_td_files():
    r = subprocess.run(
        [
            sys.executable,
            str(ROOT / "tools" / "gen_vhlo_table.py"),
            "--check",
            "--repo",
            str(MIRROR),
        ],
        capture_output=True,
        text=True,
    )
    assert r.returncode == 0, r.stdout + r.stderr


@pytest.mark.parametrize(
    "op,lo,hi",
    [
        # VhloOps.td
        ("tan_v1", "1.4.0", "1.9.0"),
        ("tan_v2", "1.10.0", "1.20.0"),
        ("gather_v1", "0.9.0", "1.0.0"),
        ("gather_v2", "1.1.0", "1.20.0"),
        ("collective_broadcast_v2", "1.20.0", "1.20.0"),
        ("exponential_v2", "1.9.0", "1.20.0"),
    ],
)
def test_op_ranges(op, lo, hi):
    info = table.OPS[op]
    assert (str(info.min), str(info.max)) == (lo, hi)


def test_newest_versions():
    assert table.vhlo_op_for("stablehlo.custom_call").mnemonic == "custom_call_v2"
    assert table.vhlo_op_for("func.func").mnemonic == "func_v1"
    assert table.vhlo_op_for("stablehlo.ragged_dot") is None
    assert table.TYPES["tf31_v1"].min == Version(1, 6, 0)  # VhloTypes.td's mnemonic
    assert table.ENUMS["result_accuracy_mode_v1"].min == Version(1, 9, 0)


# ---- conversions: refusals name the op and the target -------------------------------------

CBRT = """
func.func @f(%arg0: tensor<f32>) -> tensor<f32> {
  %0 = "stablehlo.cbrt"(%arg0) {result_accuracy = #stablehlo.result_accuracy<atol = 0.0,
      rtol = 0.0, ulps = 0, mode = #stablehlo.result_accuracy_mode<HIGHEST>>}
      : (tensor<f32>) -> tensor<f32>
  func.return %0 : tensor<f32>
}
"""
TAN = """
func.func @f(%arg0: tensor<f32>) -> tensor<f32> {
  %0 = stablehlo.tan %arg0 : tensor<f32>
  func.return %0 : tensor<f32>
}
"""
GATHER = """
func.func @f(%arg0: tensor<3x2x4xf32>, %arg1: tensor<3x1xi32>) -> tensor<3x4xf32> {
  %0 = "stablehlo.gather"(%arg0, %arg1) {dimension_numbers = #stablehlo.gather<
      offset_dims = [1], collapsed_slice_dims = [1], operand_batching_dims = [0],
      start_indices_batching_dims = [0], start_index_map = [1], index_vector_dim = 1>,
      slice_sizes = array<i64: 1, 1, 4>} : (tensor<3x2x4xf32>, tensor<3x1xi32>) -> tensor<3x4xf32>
  func.return %0 : tensor<3x4xf32>
}
"""


def _cbrt_accuracy(fields: str) -> str:
    return CBRT.replace(
        "atol = 0.0,\n      rtol = 0.0, ulps = 0, mode = #stablehlo.result_accuracy_mode<HIGHEST>",
        fields,
    )


@pytest.mark.parametrize(
    "src,target,op,line",
    [
        (CBRT, "1.9.0", "vhlo.cbrt_v2", 3),
        # any field off its default blocks the downgrade: ulps, atol, rtol
        (
            _cbrt_accuracy("ulps = 1, mode = #stablehlo.result_accuracy_mode<DEFAULT>"),
            "1.9.0",
            "vhlo.cbrt_v2",
            3,
        ),
        (
            _cbrt_accuracy("atol = 1.0e-6, mode = #stablehlo.result_accuracy_mode<DEFAULT>"),
            "1.9.0",
            "vhlo.cbrt_v2",
            3,
        ),
        (
            _cbrt_accuracy("rtol = 0.5, mode = #stablehlo.result_accuracy_mode<DEFAULT>"),
            "1.9.0",
            "vhlo.cbrt_v2",
            3,
        ),
        (TAN, "1.3.0", "vhlo.tan_v2", 3),
        (GATHER, "1.0.0", "vhlo.gather_v2", 3),
    ],
)
def test_refused_downgrades(src, target, op, line):
    m = legalize_to_vhlo(parse_module(src))
    with pytest.raises(LegalizeError) as e:
        vhlo_to_version(m, target)
    assert f"failed to legalize operation '{op}'" in e.value.message
    assert e.value.pos.line == line
    assert any(f"failed to convert VHLO to v{target}" in msg for _pos, msg in e.value.notes)


def test_default_result_accuracy_downgrades():
    """All fields at their defaults (getDefaultResultAccuracy): cbrt_v1 has no
    result_accuracy, and the downgrade drops it."""
    m = legalize_to_vhlo(
        parse_module(_cbrt_accuracy("mode = #stablehlo.result_accuracy_mode<DEFAULT>"))
    )
    v = vhlo_to_version(m, "1.9.0")
    op = v.body[0].regions[0].blocks[0].operations[0]
    assert op.name == "vhlo.cbrt_v1" and "result_accuracy" not in dict(op.attributes)


def test_allowed_downgrade_then_upgrade():
    m = parse_module(TAN)
    v = vhlo_to_version(legalize_to_vhlo(m), "1.4.0")
    assert v.body[0].regions[0].blocks[0].operations[0].name == "vhlo.tan_v1"
    back = legalize_to_stablehlo(vhlo_to_version(v, "current"))
    assert normalize(back) == normalize(m)


def test_other_dialects_refused_by_default():
    src = (
        "func.func @f(%a: tensor<f32>) -> tensor<f32> {\n"
        "  %0 = arith.addf %a, %a : tensor<f32>\n  func.return %0 : tensor<f32>\n}"
    )
    with pytest.raises(LegalizeError, match="'arith.addf'"):
        legalize_to_vhlo(parse_module(src))


def test_compat_lists_blockers(tmp_path):
    src_path = tmp_path / "compat_input.mlir"
    src_path.write_text(GATHER + TAN.replace("@f", "@g"))
    out, err = io.StringIO(), io.StringIO()
    rc = compat_main([str(src_path), "--target=1.0.0"], out, err)
    text = out.getvalue()
    assert rc == 1
    assert "op vhlo.gather_v2 needs StableHLO 1.1.0" in text
    assert "op vhlo.tan_v2 needs StableHLO 1.4.0" in text
    assert compat_main([str(src_path), "--target=1.4.0"], io.StringIO(), err) == 0
