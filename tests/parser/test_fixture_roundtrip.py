"""parse -> print -> parse over every producer fixture (tests/fixtures/**: jax, TensorFlow,
torch_xla, torchax, IREE..., text and bytecode), as tests/parser/test_roundtrip.py does
over StableHLO's suites.

Faithful printing (``print_module(m)``): ``parse_module(print_module(m)) == m`` and
printing is a fixed point.

Canonical printing (``canonical=True``, what stablehlo-opt prints without
``--mlir-print-debuginfo``) drops locations, and whether ``reduce`` prints in its compact
``applies`` form depends on them: StableHLO's ``isEligibleForCompactPrint`` requires the
body's op to sit at the reduce's own location (MLIR-HLO's mhlo_reduce_pretty_print.mlir
shows the same rule), so a producer's reduce whose body carries another location prints
generic once and compact after a round trip, as with stablehlo-opt.  What holds is that
the second canonical print is a fixed point.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from hlorun.parser import parse_module, print_module

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
PROGRAMS = (
    sorted(p for p in FIXTURES.rglob("*") if p.suffix in (".mlir", ".mlirbc"))
    if FIXTURES.is_dir()
    else []
)


def _load(path: Path):
    if path.suffix == ".mlirbc":
        return parse_module(path.read_bytes(), str(path))
    return parse_module(path.read_text(), str(path))


def _id(path: Path) -> str:
    return path.relative_to(FIXTURES).as_posix()


def test_fixtures_present() -> None:
    assert len(PROGRAMS) > 100, "tests/fixtures lost its producer programs"


@pytest.mark.parametrize("path", PROGRAMS, ids=_id)
def test_fixture_round_trips(path: Path) -> None:
    m = _load(path)
    text = print_module(m)
    back = parse_module(text, "<printed>")
    assert back == m
    assert print_module(back) == text
    c1 = print_module(m, canonical=True)
    c2 = print_module(parse_module(c1, "<canonical>"), canonical=True)
    assert print_module(parse_module(c2, "<canonical twice>"), canonical=True) == c2
