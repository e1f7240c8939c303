"""Replays the RUN lines of ../shared/stablehlo/tests/vhlo (StableHLO <-> VHLO and
version conversion) against hlorun: CHECK lines through the ``filecheck`` package,
``--verify-diagnostics`` through ``expected-error`` annotations.

- stablehlo_legalize_to_vhlo.mlir: legalize + generic print passes its CHECK lines;
- stablehlo_legalize_to_vhlo.X_Y_Z.mlir: legalize + vhlo_to_version(X.Y.Z) + generic
  print passes the CHECK lines (upstream checks them on the X.Y.Z bytecode), and VHLO
  back to StableHLO (after upgrading to current, as deserializing does) gives the
  module the text parses to (``--strip-debuginfo``; ``diff`` of the RUN lines);
- vhlo_to_version_downgrade*.mlir, *_invalid*.mlir, vhlo_to_version_invalid.mlir,
  legalize_stablehlo_to_vhlo_invalid.mlir, vhlo_attributes_invalid.mlir,
  stablehlo_legalize_to_vhlo_mixed.mlir: their RUN lines.
"""

from __future__ import annotations

import io
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from hlorun.parser import parse_module
from hlorun.parser.vhlo.asm import print_vhlo_module
from hlorun.parser.vhlo.cli import vhlo_main
from hlorun.parser.vhlo.convert import vhlo_to_version
from hlorun.parser.vhlo.from_vhlo import legalize_to_stablehlo
from hlorun.parser.vhlo.to_vhlo_ops import legalize_to_vhlo
from tests.vhlo.normalize import normalize

VHLO_DIR = Path(__file__).resolve().parents[2].parent / "shared" / "stablehlo" / "tests" / "vhlo"

pytestmark = [
    pytest.mark.skipif(not VHLO_DIR.is_dir(), reason=f"{VHLO_DIR} is absent (../shared)"),
    pytest.mark.conformance,
]


def _files(pattern: str) -> list[Path]:
    return sorted(VHLO_DIR.glob(pattern)) if VHLO_DIR.is_dir() else []


def _id(p: Path) -> str:
    return p.name


def filecheck(check_file: Path, text: str, *extra: str) -> None:
    """Run the ``filecheck`` package (an LLVM FileCheck clone) on ``text``."""
    exe = shutil.which("filecheck")
    cmd = [exe] if exe else [sys.executable, "-m", "filecheck"]
    if exe is None:
        pytest.importorskip("filecheck", reason="pip install filecheck (test extra)")
    r = subprocess.run(
        [*cmd, str(check_file), *extra], input=text, capture_output=True, text=True, timeout=300
    )
    assert r.returncode == 0, (r.stdout + r.stderr)[:4000]


def run_cli(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    rc = vhlo_main(list(argv), out, err)
    return rc, out.getvalue(), err.getvalue()


def _target(path: Path) -> str | None:
    m = re.search(r"target=([0-9.]+)", path.read_text().split("\n", 1)[0])
    return m.group(1) if m else None


def _version_of(path: Path) -> str:
    return path.name.split(".")[1].replace("_", ".")


# ---- legalize: current and versioned goldens ------------------------------------------


def test_legalize_current_checks():
    path = VHLO_DIR / "stablehlo_legalize_to_vhlo.mlir"
    m = legalize_to_vhlo(parse_module(path.read_text(), str(path)))
    filecheck(path, print_vhlo_module(m, generic=True))


VERSIONED = _files("stablehlo_legalize_to_vhlo.*_*_*.mlir")


@pytest.mark.parametrize("path", VERSIONED, ids=_id)
def test_versioned_golden_checks(path: Path):
    m = legalize_to_vhlo(parse_module(path.read_text(), str(path)))
    m = vhlo_to_version(m, _version_of(path))
    text = print_vhlo_module(m, generic=True)
    filecheck(path, text)
    # The VHLO text reads back to the same VHLO (as `stablehlo-opt` would print it).
    assert print_vhlo_module(parse_module(text), generic=True) == text


@pytest.mark.parametrize(
    "path", [*VERSIONED, VHLO_DIR / "stablehlo_legalize_to_vhlo.mlir"], ids=_id
)
def test_versioned_golden_round_trip(path: Path):
    original = parse_module(path.read_text(), str(path))
    target = _version_of(path) if path in VERSIONED else "1.20.0"
    v = vhlo_to_version(legalize_to_vhlo(original), target)
    back = legalize_to_stablehlo(vhlo_to_version(v, "1.20.0"))
    assert normalize(back) == normalize(original)


# ---- downgrades --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "path",
    _files("vhlo_to_version_downgrade.*.mlir") + _files("vhlo_to_version_downgrade_patch.mlir"),
    ids=_id,
)
def test_downgrade_checks(path: Path):
    rc, out, err = run_cli(f"--target={_target(path)}", str(path))
    assert rc == 0, err
    filecheck(path, out)


INVALID = (
    _files("vhlo_to_version_downgrade_invalid.*.mlir")
    + _files("legalize_stablehlo_to_vhlo_invalid.mlir")
    + _files("vhlo_attributes_invalid.mlir")
)


@pytest.mark.parametrize("path", INVALID, ids=_id)
def test_invalid_diagnostics(path: Path):
    run = path.read_text().split("\n", 1)[0]
    args = [str(path)]
    if _target(path):
        args.append(f"--target={_target(path)}")
    if "split-input-file" in run:
        args.append("--split-input-file")
    if "verify-diagnostics" in run:
        rc, _out, err = run_cli(*args, "--verify-diagnostics")
        assert rc == 0, err
    else:  # `not stablehlo-opt ... 2>&1 | FileCheck %s`
        rc, _out, err = run_cli(*args)
        assert rc != 0
        filecheck(path, err)


@pytest.mark.parametrize(
    "prefix,arg",
    [
        ("EMPTY_TARGET", "--target="),
        ("FUTURE_TARGET", "--target=100.10.10"),
        ("MINIMUM_TARGET", "--target=0.0.0"),
        ("NOT_VERSION_TARGET", "--target=x.y.z"),
    ],
)
def test_invalid_targets(prefix: str, arg: str):
    path = VHLO_DIR / "vhlo_to_version_invalid.mlir"
    rc, _out, err = run_cli(arg, str(path))
    assert rc != 0
    filecheck(path, err, f"--check-prefix={prefix}")


def test_verify_diagnostics_can_fail():
    """The same annotations against another target must not verify."""
    path = VHLO_DIR / "vhlo_to_version_downgrade_invalid.1_9_0.mlir"
    rc, _out, err = run_cli(
        str(path), "--target=1.10.0", "--split-input-file", "--verify-diagnostics"
    )
    assert rc != 0 and "was not produced" in err


# ---- allow-other-dialects ------------------------------------------------------------------


def test_mixed_checks():
    path = VHLO_DIR / "stablehlo_legalize_to_vhlo_mixed.mlir"
    rc, out, err = run_cli("--allow-other-dialects", str(path))
    assert rc == 0, err
    filecheck(path, out)


def test_mixed_round_trip():
    """RUN: serialize --target=1.0.0 --allow-other-dialects | deserialize == the text."""
    path = VHLO_DIR / "stablehlo_legalize_to_vhlo_mixed.mlir"
    original = parse_module(path.read_text(), str(path))
    v = vhlo_to_version(legalize_to_vhlo(original, allow_other_dialects=True), "1.0.0")
    back = legalize_to_stablehlo(vhlo_to_version(v, "1.20.0"))
    assert normalize(back) == normalize(original)


# ---- the interpreter suite as a corpus ----------------------------------------------------

INTERPRET = _files("../interpret/*.mlir")


def _chunks(path: Path):
    from hlorun.parser.grammar import split_input_file

    for chunk, off in split_input_file(path.read_text()):
        try:
            yield parse_module(chunk, str(path), line_offset=off)
        except Exception:  # noqa: BLE001 - the parser's business, not this test's
            continue


@pytest.mark.parametrize("path", INTERPRET, ids=_id)
def test_interpret_suite_text_and_round_trip(path: Path):
    """Every program of the interpreter suite: its VHLO text reads back to the same
    text (generic and pretty), and StableHLO -> VHLO (oldest version it fits) ->
    StableHLO is a fixpoint after one trip (a trip drops explicit defaults, as upstream)."""
    n = 0
    for m in _chunks(path):
        n += 1
        v = legalize_to_vhlo(m, allow_other_dialects=True)
        for generic in (True, False):
            text = print_vhlo_module(v, generic=generic)
            assert print_vhlo_module(parse_module(text), generic=generic) == text
        once = legalize_to_stablehlo(v)
        twice = legalize_to_stablehlo(
            vhlo_to_version(legalize_to_vhlo(once, allow_other_dialects=True), "current")
        )
        assert normalize(twice) == normalize(once)
    assert n >= 1, f"no program of {path.name} parses: the test would check nothing"
