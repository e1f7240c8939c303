"""``serialize`` / ``vhlo`` / ``compat`` of a jax export whose custom calls carry
``sdy.sharding_rule`` attributes (issue 31 item 2): the ``sdy`` dialect is kept next to
the VHLO ops, as jax serializes a Shardy module (jax/_src/export/_export.py
``_module_to_bytecode``); another dialect's attribute is refused naming the op and the
attribute; ``compat`` prints each line once."""

from __future__ import annotations

from pathlib import Path

import pytest

from hlorun.engine.cli import main
from hlorun.parser import parse_module
from hlorun.parser.vhlo.artifact import deserialize_portable_artifact, serialize_portable_artifact

JAX = Path(__file__).resolve().parents[1] / "fixtures" / "jax"
LINALG = JAX / "linalg_cholesky_c128.mlir"  # lapack_zpotrf_ffi with sdy.sharding_rule
OTHER = """func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {
  %0 = stablehlo.add %a, %a {foo.tag = #foo.mark<1>} : tensor<2xf32>
  return %0 : tensor<2xf32>
}
"""


def _run(argv: list[str], capsys) -> tuple[int, str, str]:
    rc = main(argv)
    out = capsys.readouterr()
    return rc, out.out, out.err


def test_serialize_keeps_the_sharding_rule_as_jax_does(tmp_path: Path, capsys):
    assert "sdy.sharding_rule" in LINALG.read_text()
    out = tmp_path / "linalg.mlirbc"
    rc, _, err = _run(["serialize", "--target", "current", str(LINALG), "-o", str(out)], capsys)
    assert rc == 0, err
    rc, text, err = _run(["deserialize", str(out)], capsys)
    assert rc == 0, err
    assert "sdy.sharding_rule = #sdy.op_sharding_rule<" in text
    assert "lapack_zpotrf_ffi" in text


def test_jax_own_artifact_keeps_sdy_too():
    """The recorded producer output: jax's mlir_module_serialized of the same export
    holds the sdy attribute (the fact the default follows)."""
    module = deserialize_portable_artifact((JAX / "linalg_cholesky_c128.mlirbc").read_bytes())
    from hlorun.parser import print_module

    assert "#sdy.op_sharding_rule<" in print_module(module)


def test_vhlo_and_compat_read_the_sdy_model(capsys):
    rc, text, err = _run(["vhlo", str(LINALG)], capsys)
    assert rc == 0, err
    assert "custom_call_v" in text and "#sdy.op_sharding_rule<" in text
    rc, text, err = _run(["compat", str(LINALG), "--target", "1.0.0"], capsys)
    assert rc == 0, err
    assert "can be served at 1.0.0" in text


def test_another_dialect_is_refused_naming_the_op_and_the_attribute(tmp_path: Path, capsys):
    src = tmp_path / "other.mlir"
    src.write_text(OTHER)
    for argv in (
        ["serialize", "--target", "current", str(src), "-o", str(tmp_path / "o.mlirbc")],
        ["vhlo", str(src)],
        ["compat", str(src), "--target", "current"],
    ):
        rc, _, err = _run(argv, capsys)
        assert rc == 1, argv
        assert "'stablehlo.add'" in err and "'foo.tag'" in err and "dialect 'foo'" in err, err
        assert "--allow-other-dialects" in err
    rc, _, err = _run(
        [
            "serialize",
            "--allow-other-dialects",
            "--target",
            "current",
            str(src),
            "-o",
            str(tmp_path / "k"),
        ],
        capsys,
    )
    assert rc == 0, err


def test_the_library_default_keeps_only_sdy():
    module = parse_module(LINALG.read_text())
    assert serialize_portable_artifact(module, "current")  # sdy kept by default
    with pytest.raises(Exception, match="foo.tag"):
        serialize_portable_artifact(parse_module(OTHER), "current")
    with pytest.raises(Exception, match="sdy.sharding_rule"):
        serialize_portable_artifact(module, "current", allow_other_dialects=False)


def test_compat_prints_each_line_once(tmp_path: Path, capsys):
    """Read from bytecode with no locations, the blockers of two ops of one kind fall
    on the same line: printed once."""
    src = tmp_path / "f8.mlir"
    src.write_text(
        "func.func @main(%a: tensor<2xf8E4M3>) -> tensor<2xf8E4M3> {\n"
        "  %0 = stablehlo.add %a, %a : tensor<2xf8E4M3>\n"
        "  %1 = stablehlo.add %0, %a : tensor<2xf8E4M3>\n"
        "  return %1 : tensor<2xf8E4M3>\n}\n"
    )
    art = tmp_path / "f8.mlirbc"
    rc, _, err = _run(
        ["serialize", "--strip-debuginfo", "--target", "current", str(src), "-o", str(art)],
        capsys,
    )
    assert rc == 0, err
    rc, text, err = _run(["compat", str(art), "--target", "1.0.0"], capsys)
    assert rc == 1
    lines = text.strip().splitlines()
    assert len(lines) == len(set(lines)), text
    assert f"{art}: op vhlo.add_v1 needs StableHLO 1.7.0 (target 1.0.0)" in lines
