"""The StableHLO portable-artifact goldens of ../shared/stablehlo/tests/vhlo."""

from __future__ import annotations

import re
from pathlib import Path

from tests.conftest import SHARED

VHLO_DIR = SHARED / "tests" / "vhlo"
GOLDENS = sorted(VHLO_DIR.glob("*.mlir.bc")) if VHLO_DIR.exists() else []
# Every golden but the one that must be refused (an op from the future).
READABLE = [p for p in GOLDENS if p.name != "invalid_vhlo_future.mlir.bc"]

_RELEASE = re.compile(r"\.(\d+)_(\d+)_(\d+)\.mlir\.bc$")


def release(path: Path) -> tuple[int, int, int] | None:
    """The StableHLO release a versioned golden was written by (from its name)."""
    m = _RELEASE.search(path.name)
    return tuple(int(g) for g in m.groups()) if m else None


def expected_bytecode_version(rel: tuple[int, int, int]) -> int:
    """Version::getBytecodeVersion (stablehlo/dialect/Version.cpp): 0 for 0.9.x, 1 for
    0.10-0.11, 3 for 0.12-0.13, 4 for 0.14, 6 from 0.15 on."""
    major, minor, _ = rel
    if major >= 1 or minor >= 15:
        return 6
    if minor == 14:
        return 4
    if minor >= 12:
        return 3
    if minor >= 10:
        return 1
    return 0


def ids(paths) -> list[str]:
    return [p.name for p in paths]
