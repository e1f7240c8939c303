"""The checked modes against the plain call: a run with ``timeout=60``, with
``max_steps=10**9`` and with a no-op ``callback``, on benchmarks/test_exec_bench.py's
10-op chain (1e6 f32) and benchmarks/test_pipeline_bench.py's transformer block.

Each row times the prepared Program with the option (``engine.compile(text, option)``)
against the plain Program of the same text, interleaved in one session.  Targets
(issue 29): ``timeout`` and ``max_steps`` <= 1.15x the plain call; a callback <= 1.15x
on the transformer block, and on the chain no more than the same chain unfused (a
callback sees every intermediate whole, so the chain's floor is its plain run with
fusion off: ``engine.fusion.FUSE_MIN_ELEMENTS`` above the chain's size while it is
planned).  Every row checks its results bit for bit against the plain call's.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from conftest import rand
from test_exec_bench import chain_program
from test_pipeline_bench import CASES

from hlorun import engine
from hlorun.engine import fusion

MODES: dict[str, dict[str, Any]] = {
    "timeout": {"timeout": 60},
    "max_steps": {"max_steps": 10**9},
    "callback": {"callback": lambda name, pos, results: None},
}
N = 1_000_000


def _chain() -> tuple[str, list[np.ndarray]]:
    return chain_program(N), [rand(N, 1), rand(N, 2) + 4]


def _same(got: list[Any], want: list[Any]) -> bool:
    return all(g.tobytes() == w.tobytes() for g, w in zip(got, want))


@pytest.mark.parametrize("mode", list(MODES))
def test_chain10_f32_1e6_mode_vs_plain(versus, mode):
    text, inputs = _chain()
    plain = engine.compile(text)
    prog = engine.compile(text, **MODES[mode])
    want = plain(*inputs)
    ratio = None if mode == "callback" else 1.15  # the callback's target: vs unfused
    got = versus(lambda: prog(*inputs), lambda: plain(*inputs), ratio=ratio, note="floor: plain")
    assert _same(got, want)


def test_chain10_f32_1e6_callback_vs_unfused(versus, monkeypatch):
    text, inputs = _chain()
    with monkeypatch.context() as m:
        m.setattr(fusion, "FUSE_MIN_ELEMENTS", N + 1)  # nothing fuses while planned
        unfused = engine.compile(text)
    prog = engine.compile(text, **MODES["callback"])
    want = unfused(*inputs)
    got = versus(
        lambda: prog(*inputs), lambda: unfused(*inputs), ratio=1.0, note="floor: plain, unfused"
    )
    assert _same(got, want)


@pytest.mark.parametrize("mode", list(MODES))
def test_transformer_block_mode_vs_plain(versus, mode):
    text, inputs = CASES["transformer"]
    plain = engine.compile(text)
    prog = engine.compile(text, **MODES[mode])
    want = plain(*inputs)
    got = versus(lambda: prog(*inputs), lambda: plain(*inputs), ratio=1.15, note="floor: plain")
    assert _same(got, want)
