"""The official interpreter conformance suite (../shared/stablehlo/tests/interpret).

Every chunk runs through the same path as ``hlorun interpret --split-input-file``:
parse, verify, run the entry, and every ``check.*`` op must pass.  Chunks known not
to pass are listed in KNOWN_FAILURES with the reason; they are strict xfails, so one
that starts passing must be taken off the list.
"""

from __future__ import annotations

import pytest

from hlorun import engine
from hlorun.engine.cli import entry_points
from hlorun.parser import parse_module
from tests.conformance.suite import TALLY, interpret_cases
from tests.conftest import SHARED

CASES = interpret_cases()

# "file::function" -> why it does not pass yet.
KNOWN_FAILURES: dict[str, str] = {}


def _run(case, tmp_path):
    module = parse_module(case.text, str(case.path))
    if not module.functions:
        return
    inputs = []
    if case.args:
        from hlorun.engine.cli import _parse_args_attr

        inputs = _parse_args_attr(case.args)
    for fn in entry_points(module):
        engine.run(
            module,
            inputs if fn.type.inputs else [],
            function=fn.name,
            probe_dir=tmp_path,
            timeout=60,
        )


@pytest.mark.conformance
@pytest.mark.skipif(
    not CASES,
    reason=f"{SHARED} not found: the conformance files sit beside "
    "the repo only in CI and developer checkouts",
)
@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_interpret(case, tmp_path):
    file = case.id.split("::")[0]
    reason = KNOWN_FAILURES.get(case.id)
    if reason is not None:
        try:
            _run(case, tmp_path)
        except Exception:
            TALLY[file]["known failure"] += 1
            pytest.xfail(reason)
        TALLY[file]["passed"] += 1
        pytest.fail(f"{case.id} passes now: take it off KNOWN_FAILURES")
    try:
        _run(case, tmp_path)
    except BaseException:
        TALLY[file]["failed"] += 1
        raise
    TALLY[file]["passed"] += 1
