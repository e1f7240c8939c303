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

NEG = """
func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {
  %0 = stablehlo.negate %x : tensor<2xf32>
  func.return %0 : tensor<2xf32>
}
"""
X = np.array([1.5, -2.0], np.float32)


@pytest.fixture(autouse=True)
def fresh_cache():
    engine.clear_cache()
    yield
    engine.clear_cache()


def _programs() -> int:
    """How many Programs ``run``'s cache holds for text sources."""
    return len(api._programs)


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
        hlorun.compile(NEG, timout=3)
    with pytest.raises(HloTypeError, match=r"'callbak'"):
        RunOptions().replace(callbak=None)


def test_replace_keeps_the_rest():
    o = RunOptions(timeout=5, max_steps=10).replace(max_steps=20)
    assert (o.timeout, o.max_steps) == (5, 20)


def test_program_takes_the_record_or_its_fields():
    o = RunOptions(max_steps=100)
    p1 = Program(NEG, options=o)
    p2 = Program(NEG, max_steps=100)
    assert p1.options == p2.options == o
    np.testing.assert_array_equal(p1(X)[0], -X)
    assert Program(NEG, options=o, timeout=3).options == RunOptions(max_steps=100, timeout=3)


def test_equal_options_made_twice_hit_the_cache():
    for _ in range(3):
        (r,) = hlorun.run(NEG, [X], timeout=60, float_eq="ieee")
        np.testing.assert_array_equal(r, -X)
    assert _programs() == 1
    hlorun.run(NEG, [X], timeout=61, float_eq="ieee")
    assert _programs() == 2


def test_an_unhashable_callback_works_and_is_keyed_by_identity():
    cb = Unhashable()
    hlorun.run(NEG, [X], callback=cb)
    hlorun.run(NEG, [X], callback=cb)
    assert _programs() == 1 and cb.names == ["stablehlo.negate"] * 2
    other = Unhashable()
    hlorun.run(NEG, [X], callback=other)
    assert _programs() == 2 and other.names == ["stablehlo.negate"]


def test_runs_with_per_run_state_are_never_cached():
    prof = engine.Profile()
    hlorun.run(NEG, [X], profile=prof)
    hlorun.run(NEG, [X], profile=prof, host_channels={})
    assert _programs() == 0 and prof.runs == 2


def test_default_options_spelled_out_reuse_the_program():
    hlorun.run(NEG, [X])
    hlorun.run(NEG, [X], timeout=None, grid="threads")
    assert _programs() == 1


def test_plain_keywords_made_again_give_the_same_record():
    a = options_of("run", {"timeout": 60, "float_eq": "ieee"})
    assert options_of("run", {"timeout": 60, "float_eq": "ieee"}) is a
    cb = Unhashable()
    b = options_of("run", {"callback": cb})
    c = options_of("run", {"callback": cb})
    assert b == c and c.callback is cb
    assert options_of("run", {"platforms": ["cpu"]}).platforms == ("cpu",)
