"""The pipeline load -> verify -> plan -> execute, each stage once (issue 14)."""

from __future__ import annotations

import gc
import os
import threading
import weakref

import numpy as np
import pytest

import hlorun
from hlorun import engine, parser, shape_inference
from hlorun.engine import api, loading
from hlorun.parser.errors import HloError, ParseError

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
def counts(monkeypatch):
    """How often each stage ran."""
    seen = {"parse": 0, "verify": 0, "plan": 0}
    parse, verify, program = parser.parse_module, shape_inference.verify_module, api.Program

    def counting_parse(*a, **k):
        seen["parse"] += 1
        return parse(*a, **k)

    def counting_verify(*a, **k):
        seen["verify"] += 1
        return verify(*a, **k)

    def counting_program(*a, **k):
        seen["plan"] += 1
        return program(*a, **k)

    monkeypatch.setattr(parser, "parse_module", counting_parse)
    monkeypatch.setattr(shape_inference, "verify_module", counting_verify)
    monkeypatch.setattr(api, "Program", counting_program)
    return seen


def test_text_runs_each_stage_once(counts):
    for _ in range(3):
        (r,) = hlorun.run(ADD, [X, X])
        np.testing.assert_array_equal(r, 2 * X)
    assert counts == {"parse": 1, "verify": 1, "plan": 1}


def test_equal_text_in_another_string_object_hits_the_cache(counts):
    hlorun.run(ADD, [X, X])
    hlorun.run("".join(list(ADD)), [X, X])
    assert counts["parse"] == 1


def test_module_keyed_by_identity(counts):
    mod = parser.parse_module(ADD)
    counts["parse"] = 0
    hlorun.run(mod, [X, X])
    hlorun.run(mod, [X, X])
    assert counts == {"parse": 0, "verify": 1, "plan": 1}
    other = parser.parse_module(ADD)  # equal, but another object
    hlorun.run(other, [X, X])
    assert counts["verify"] == 2


def test_the_cache_never_keeps_a_module_alive():
    mod = parser.parse_module(ADD)
    hlorun.run(mod, [X, X])
    assert len(api._programs) == 0 and len(api._modules) == 0
    ref = weakref.ref(mod)
    del mod
    gc.collect()
    assert ref() is None


def test_path_keyed_by_mtime_and_size(tmp_path, counts):
    f = tmp_path / "p.mlir"
    f.write_text(ADD)
    for source in (str(f), f):
        (r,) = hlorun.run(source, [X, X])
        np.testing.assert_array_equal(r, 2 * X)
    assert counts["parse"] == 1
    f.write_text(ADD.replace("stablehlo.add", "stablehlo.multiply"))
    os.utime(f, ns=(1, 1))
    (r,) = hlorun.run(str(f), [X, X])
    np.testing.assert_array_equal(r, X * X)
    assert counts["parse"] == 2


def test_bytes_of_text_run():
    (r,) = hlorun.run(ADD.encode(), [X, X])
    np.testing.assert_array_equal(r, 2 * X)


def test_missing_program_file_is_a_parse_error():
    with pytest.raises(ParseError, match="no such file"):
        hlorun.run("missing.mlir", [])


def test_the_cache_is_bounded(counts, monkeypatch):
    monkeypatch.setattr(api, "CACHE_SIZE", 4)  # programs
    monkeypatch.setattr(loading, "CACHE_SIZE", 4)  # loaded modules
    texts = [ADD + f"// {i}\n" for i in range(10)]
    for t in texts:
        hlorun.run(t, [X, X])
    assert len(api._programs) == 4 and len(api._modules) == 4
    hlorun.run(texts[-1], [X, X])
    assert counts["plan"] == 10
    hlorun.run(texts[0], [X, X])  # evicted long ago
    assert counts["plan"] == 11


def test_options_that_shape_the_plan_are_part_of_the_key(counts):
    hlorun.run(ADD, [X, X])
    hlorun.run(ADD, [X, X], max_steps=10)
    assert counts["plan"] == 2 and counts["parse"] == 1


def test_errors_keep_their_type_through_the_cache():
    with pytest.raises(HloError):
        hlorun.run(ADD, [X])
    (r,) = hlorun.run(ADD, [X, X])
    np.testing.assert_array_equal(r, 2 * X)


def test_concurrent_runs_of_one_module_are_independent():
    text = ADD.replace("stablehlo.add", "stablehlo.multiply")
    errors: list[BaseException] = []

    def worker(k: int) -> None:
        try:
            for _ in range(50):
                x = np.full(3, k, np.float32)
                (r,) = hlorun.run(text, [x, x])
                np.testing.assert_array_equal(r, x * x)
        except BaseException as e:  # noqa: BLE001
            errors.append(e)

    threads = [threading.Thread(target=worker, args=(k,)) for k in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors


def test_compile_reuses_the_verified_module(counts):
    p1 = hlorun.compile(ADD)
    p2 = hlorun.compile(ADD)
    assert p1 is not p2
    assert counts["parse"] == 1 and counts["verify"] == 1
