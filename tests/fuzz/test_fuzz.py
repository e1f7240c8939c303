"""Fuzzing (issue 21): every mutant of the shared suites' programs and artifacts ends in
a result or an HloError, within the memory cap, and prints to text that parses back to
the same module (tests/fuzz/harness.py).

- ``test_fixed_seed_campaign``: CI's share, a fixed seed (about half a minute);
- ``test_regression``: every program saved under tests/fuzz/regressions/;
- ``test_random_campaign`` (slow): ``HLORUN_FUZZ_N`` mutants (default 20000) of seed
  ``HLORUN_FUZZ_SEED`` (default: a fresh one, printed so a failure can be replayed).
  ``tests/fuzz/campaign.py`` runs long campaigns in worker processes.
"""

from __future__ import annotations

import os
import random
from collections import Counter

import pytest

from hlorun.parser.errors import HloError
from tests.conftest import shared_dir
from tests.fuzz import harness

CI_SEED = 20260521
CI_INPUTS = 4000

# The outcomes a test fails on.  "slow" (over TIME_LIMIT) is a campaign statistic, not a
# test failure: tests make no timing assertions, and CI machines vary.
FAILING = ("crash", "hang", "memory", "roundtrip")


@pytest.fixture(scope="module")
def corpus():
    shared_dir("tests")
    seeds = harness.seed_corpus()
    assert len(seeds) > 500  # the interpret, verifier and vhlo suites
    harness.warm_up()
    return seeds


def _campaign(seed: int, n: int, corpus: list) -> tuple[Counter, list[str]]:
    counts: Counter = Counter()
    failures: list[str] = []
    stream = harness.mutants(seed, corpus)
    for i in range(n):
        prog = next(stream)
        out = harness.check(prog)
        counts[out.kind] += 1
        if out.kind in FAILING:
            small = harness.shrink(prog, out.signature, budget=150)
            failures.append(f"#{i} {out.kind}: {out.detail[:300]}\n--- shrunk:\n{small!r}")
    return counts, failures


def test_fixed_seed_campaign(corpus):
    counts, failures = _campaign(CI_SEED, CI_INPUTS, corpus)
    assert not failures, f"{counts}\n" + "\n\n".join(failures[:5])
    # the mutants reach every stage: some fail to parse or verify, some run
    assert counts["hlo_error"] > 0 and counts["result"] > 0


@pytest.mark.slow
def test_random_campaign(corpus):
    n = int(os.environ.get("HLORUN_FUZZ_N", "20000"))
    seed = int(os.environ.get("HLORUN_FUZZ_SEED", str(random.randrange(1 << 30))))
    print(f"fuzz campaign: HLORUN_FUZZ_SEED={seed} HLORUN_FUZZ_N={n}")
    counts, failures = _campaign(seed, n, corpus)
    print(dict(counts), f"peak RSS {harness.peak_rss() >> 20} MiB")
    assert not failures, f"seed {seed}: {counts}\n" + "\n\n".join(failures[:5])


REGRESSION_FILES = sorted(harness.REGRESSIONS.glob("*.mlir*"))


@pytest.mark.parametrize("path", REGRESSION_FILES, ids=[p.name for p in REGRESSION_FILES])
def test_regression(path):
    """A program a campaign once shrank to: now a result or an HloError, round trip
    exact."""
    prog = harness.load_regression(path)
    out = harness.check(prog)
    assert out.kind not in FAILING, out.detail
    if path.name.startswith("roundtrip-"):  # these were invalid too: the round trip still holds
        from hlorun.parser import parse_module

        try:
            module = parse_module(prog)
        except HloError:
            return  # now refused at the first parse (an out-of-range literal)
        assert harness.roundtrip_problem(module) is None


def test_mutators_are_deterministic(corpus):
    """The same seed gives the same mutants (a campaign can be replayed)."""
    a = harness.mutants(7, corpus)
    b = harness.mutants(7, corpus)
    assert [next(a) for _ in range(50)] == [next(b) for _ in range(50)]


def test_shrink_keeps_the_failure():
    """The shrinker removes what the failure does not need."""

    def checker(prog):
        bad = "BAD" in prog
        return harness.Outcome("crash" if bad else "hlo_error", "ValueError: x" if bad else "")

    prog = "line one\nline BAD two\nline three\n" * 5
    small = harness.shrink(prog, "crash:ValueError", checker=checker)
    assert "BAD" in small and len(small) < 12


def test_a_crash_is_classified_as_one(monkeypatch):
    """The harness can fail: a stray exception is a "crash", a hang is a "hang"."""

    def boom(prog, memory_cap):
        raise KeyError("stray")

    monkeypatch.setattr(harness, "run_pipeline", boom)
    assert harness.check("anything").kind == "crash"

    def spin(prog, memory_cap):
        while True:
            pass

    monkeypatch.setattr(harness, "run_pipeline", spin)
    assert harness.check("anything", hard_stop=0.2).kind == "hang"


def test_mutators_make_the_shapes_campaigns_found():
    """The mutators reach the shapes of past campaign failures: a custom-form line cut
    mid-way with the next op after it, a generic op with an attribute dictionary where
    the syntax has none, integer shape operands holding NaN bit patterns."""
    import random

    prog = (
        "func.func @main() {\n"
        "  %s = stablehlo.constant dense<[4]> : tensor<1xi64>\n"
        '  %r = "stablehlo.reverse"(%s) {dimensions = array<i64: 0>} : (tensor<1xi64>) -> tensor<1xi64>\n'
        "  check.expect_almost_eq_const %r, dense<[4.0]> : tensor<1xf32>\n"
        "  func.return\n}\n"
    )
    rng = random.Random(5)
    cuts = {harness.cut_line(rng, prog, []) for _ in range(200)}
    assert any("check.expect_almost_eq_const %r, dense<" in c and "func.return" in c for c in cuts)
    assert any(c.count("\n") < prog.count("\n") for c in cuts)  # a line joined to the next
    trailing = {harness.trailing_attrs(rng, prog, []) for _ in range(200)}
    assert any(
        '"stablehlo.reverse"' in line and line.rstrip().endswith("}") and "->" in line
        for t in trailing
        for line in t.splitlines()
    )
    nans = {harness.nan_bit_ints(rng, prog, []) for _ in range(50)}
    assert any("dense<[0x7FC00001]> : tensor<1xi64>" in t for t in nans)
    for mutator in (harness.cut_line, harness.trailing_attrs, harness.nan_bit_ints):
        assert mutator in harness.MUTATORS
        for _ in range(20):  # every outcome is a good one
            out = harness.check(mutator(rng, prog, []))
            assert out.ok, out.detail
