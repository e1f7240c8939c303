"""``RunOptions`` (engine/options.py): one frozen, hashable record of a run's options,
the only configuration of a Program and the key of ``run``'s cache (issue 29 item 6)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pytest

import hlorun
from hlorun import engine
from hlorun.engine import api
from hlorun.engine.options import DEFAULT_OPTIONS, OPTION_NAMES, RunOptions, options_of
from hlorun.engine.program import Program
from hlorun.parser.errors import HloTypeError, InterpreterError

ADD = """
func.func @main(%x: tensor<3xf32>, %y: tensor<3xf32>) -> tensor<3xf32> {
  %0 = stablehlo.add %x, %y : tensor<3xf32>
  func.return %0 : tensor<3xf32>
}
"""
X = np.arange(3, dtype=np.float32)


@pytest.fixture(autouse=True)
def fresh_cache():
    engine.clear_cache()
    yield
    engine.clear_cache()


@pytest.fixture
def plans(monkeypatch):
    """How many Programs ``run`` made."""
    seen = [0]
    program = api.Program

    def counting(*a, **k):
        seen[0] += 1
        return program(*a, **k)

    monkeypatch.setattr(api, "Program", counting)
    return seen


class Unhashable:
    """A callable with equality and no hash (``__eq__`` without ``__hash__``)."""

    def __init__(self) -> None:
        self.names: list[str] = []

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Unhashable)

    def __call__(self, name, pos, results) -> None:
        self.names.append(name)


def test_frozen_and_equal_by_value():
    a = RunOptions(timeout=60, float_eq="ieee")
    b = options_of("run", {"float_eq": "ieee", "timeout": 60})
    assert a == b and hash(a) == hash(b) and len({a, b}) == 1
    assert a != RunOptions(timeout=61, float_eq="ieee")
    with pytest.raises(dataclasses.FrozenInstanceError):
        a.timeout = 1  # type: ignore[misc]


def test_the_defaults_are_one_record():
    assert RunOptions() == DEFAULT_OPTIONS
    assert set(OPTION_NAMES) >= {"function", "timeout", "max_steps", "callback", "grid"}


def test_objects_a_run_calls_or_fills_are_keyed_by_identity():
    cb1, cb2 = Unhashable(), Unhashable()
    assert cb1 == cb2  # equal, yet two callbacks
    assert RunOptions(callback=cb1) == RunOptions(callback=cb1)
    assert RunOptions(callback=cb1) != RunOptions(callback=cb2)
    h1: dict[int, list] = {1: []}
    h2: dict[int, list] = {1: []}
    assert RunOptions(host_channels=h1) != RunOptions(host_channels=h2)
    assert hash(RunOptions(host_channels=h1)) == hash(RunOptions(host_channels=h1))


def test_values_are_normalized():
    o = RunOptions(probe_dir=Path("/tmp/x"), platforms=["cpu", "tpu"])  # noqa: S108
    assert o.probe_dir == "/tmp/x" and o.platforms == ("cpu", "tpu")  # noqa: S108
    assert o == RunOptions(probe_dir="/tmp/x", platforms=("cpu", "tpu"))  # noqa: S108


def test_bad_values_and_names():
    with pytest.raises(InterpreterError, match="unknown grid"):
        RunOptions(grid="processes")
    with pytest.raises(InterpreterError, match="memory_cap"):
        RunOptions(memory_cap="big")  # type: ignore[arg-type]
    with pytest.raises(HloTypeError, match=r"'max_step' \(did you mean max_steps\?\)"):
        options_of("run", {"max_step": 3})
    with pytest.raises(HloTypeError, match=r"compile\(\) got unexpected.*'timout'"):
        hlorun.compile(ADD, timout=3)
    with pytest.raises(HloTypeError, match=r"'callbak'"):
        RunOptions().replace(callbak=None)


def test_replace_keeps_the_rest():
    o = RunOptions(timeout=5, max_steps=10).replace(max_steps=20)
    assert (o.timeout, o.max_steps) == (5, 20)


def test_program_takes_the_record_or_its_fields():
    o = RunOptions(max_steps=100)
    p1 = Program(ADD, options=o)
    p2 = Program(ADD, max_steps=100)
    assert p1.options == p2.options == o
    np.testing.assert_array_equal(p1(X, X)[0], 2 * X)
    assert Program(ADD, options=o, timeout=3).options == RunOptions(max_steps=100, timeout=3)


def test_equal_options_made_twice_hit_the_cache(plans):
    for _ in range(3):
        (r,) = hlorun.run(ADD, [X, X], timeout=60, float_eq="ieee")
        np.testing.assert_array_equal(r, 2 * X)
    assert plans[0] == 1
    hlorun.run(ADD, [X, X], timeout=61, float_eq="ieee")
    assert plans[0] == 2


def test_an_unhashable_callback_works_and_is_keyed_by_identity(plans):
    cb = Unhashable()
    hlorun.run(ADD, [X, X], callback=cb)
    hlorun.run(ADD, [X, X], callback=cb)
    assert plans[0] == 1 and cb.names == ["stablehlo.add"] * 2
    other = Unhashable()
    hlorun.run(ADD, [X, X], callback=other)
    assert plans[0] == 2 and other.names == ["stablehlo.add"]


def test_runs_with_per_run_state_are_never_cached(plans):
    prof = engine.Profile()
    hlorun.run(ADD, [X, X], profile=prof)
    hlorun.run(ADD, [X, X], profile=prof)
    assert plans[0] == 2 and prof.runs == 2


def test_default_options_run_reuses_the_program(plans):
    hlorun.run(ADD, [X, X])
    hlorun.run(ADD, [X, X], timeout=None)  # the defaults, spelled out
    assert plans[0] == 1
