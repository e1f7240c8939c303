"""Portable artifacts round trip (issue 16): every program of the shared interpret
suite survives serialize -> deserialize.

For each ``// -----`` chunk: ``deserialize(serialize(m, V))`` gives back the module:
the same canonical text (what stablehlo-opt prints) as the trip through VHLO without
bytes (VHLO -> StableHLO drops explicit defaults exactly as upstream's
VhloLegalizeToStablehlo does, e.g. ``channel_handle`` 0; tests/vhlo checks that
against the goldens), a second trip changes nothing, and, when run, every ``check.*``
op still passes.  CI does V = current; ``-m slow`` does every older target the
program can be served at (a refusal must name what blocks it, nothing else).
"""

from __future__ import annotations

import pytest

from hlorun import engine
from hlorun.engine.cli import entry_points
from hlorun.parser import parse_module, print_module
from hlorun.parser.errors import VerificationError
from hlorun.parser.vhlo.artifact import (
    deserialize_portable_artifact,
    get_portable_artifact_version,
    serialize_portable_artifact,
)
from hlorun.parser.vhlo.from_vhlo import legalize_to_stablehlo
from hlorun.parser.vhlo.to_vhlo_ops import legalize_to_vhlo
from hlorun.parser.vhlo.version import Version
from tests.conformance.suite import interpret_cases

CASES = interpret_cases()
VERSIONS = [f"0.{m}.0" for m in range(9, 21)] + [f"1.{m}.0" for m in range(0, 21) if m != 17]

pytestmark = [
    pytest.mark.skipif(not CASES, reason="../shared/stablehlo/tests/interpret is absent"),
    pytest.mark.conformance,
]


def canonical(module) -> str:
    return print_module(module, canonical=True)


def _round_trip(case, target: str, probe_dir) -> None:
    module = parse_module(case.text, str(case.path))
    try:
        data = serialize_portable_artifact(module, target, allow_other_dialects=True)
    except VerificationError as e:
        assert target != "current", f"refused at current: {e}"
        assert str(Version.of(target)) in e.message or "vhlo." in e.message, e.message
        return
    if target != "current":
        assert get_portable_artifact_version(data) == target
    back = deserialize_portable_artifact(data)
    if target == "current":
        via_vhlo = legalize_to_stablehlo(legalize_to_vhlo(module, allow_other_dialects=True))
        assert canonical(back) == canonical(via_vhlo)
    again = serialize_portable_artifact(back, target, allow_other_dialects=True)
    assert canonical(deserialize_portable_artifact(again)) == canonical(back)
    if case.args is None and back.functions:
        for fn in entry_points(back):
            engine.run(back, [], function=fn.name, probe_dir=probe_dir)  # a failed check raises


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_round_trip_at_current(case, tmp_path):
    _round_trip(case, "current", tmp_path)


@pytest.mark.slow
@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_round_trip_at_every_target(case, tmp_path):
    for v in VERSIONS:
        _round_trip(case, v, tmp_path)
