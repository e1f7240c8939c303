"""The array files ``hlorun diff`` exchanges with the process running XLA or IREE
(engine/diff_worker.py ``write_arrays`` / ``read_arrays``): every array comes back with
its dtype, shape and bits, the raw view as unsigned integers of its width."""

from __future__ import annotations

import os

import ml_dtypes
import numpy as np
import pytest

from hlorun.engine.diff_worker import raw_bits, read_arrays, write_arrays

ARRAYS = [
    np.arange(12, dtype=np.float32).reshape(3, 4),
    np.array(2.5, np.float64),  # 0-d stays 0-d
    np.array([1.0, -0.0, np.nan, np.inf], ml_dtypes.bfloat16),
    np.array([[True, False, True]]),
    np.zeros((0, 3), np.int64),  # empty
    np.arange(10, dtype=np.int8)[::3],  # not contiguous
    np.array([1 + 2j, -3j], np.complex64),
    np.array([7], np.uint64),
]


def test_arrays_come_back_bit_for_bit(tmp_path):
    path = str(tmp_path / "a.bin")
    write_arrays(path, ARRAYS)
    back = read_arrays(path)
    assert len(back) == len(ARRAYS)
    for a, b in zip(ARRAYS, back):
        assert b.dtype == a.dtype and b.shape == a.shape
        assert raw_bits(a).tobytes() == raw_bits(b).tobytes()
    # the data starts 64-byte aligned (mapped views of well-aligned buffers)
    assert all(b.ctypes.data % 64 == 0 for b in back if b.size)


def test_raw_reading_needs_no_dtype_module(tmp_path):
    path = str(tmp_path / "a.bin")
    write_arrays(path, ARRAYS)
    raw = read_arrays(path, raw=True)
    widths = [np.dtype(a.dtype).itemsize for a in ARRAYS]
    for a, r, w in zip(ARRAYS, raw, widths):
        if a.dtype == np.bool_:
            assert r.dtype == np.bool_
        else:
            assert r.dtype == np.dtype(f"uint{8 * w}")
        assert r.tobytes() == np.ascontiguousarray(a).tobytes()


def test_no_arrays(tmp_path):
    path = str(tmp_path / "none.bin")
    write_arrays(path, [])
    assert read_arrays(path) == []


def test_read_only_views(tmp_path):
    path = str(tmp_path / "a.bin")
    write_arrays(path, [np.ones(4, np.float32)])
    (a,) = read_arrays(path)
    with pytest.raises(ValueError):
        a[0] = 2.0


def test_a_worker_without_jax_is_an_error_and_leaves_nothing(tmp_path, monkeypatch):
    # the worker started first says no version (it has no jaxlib): hlorun writes no
    # container, and tells the worker's own error; its files are removed
    import importlib.util
    import sys

    if importlib.util.find_spec("jaxlib") is not None:
        pytest.skip("jaxlib is installed here: the worker would run")
    import tempfile

    import hlorun
    from hlorun.engine.diff_engines import XlaEngine
    from hlorun.parser.errors import InterpreterError

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    shm = "/dev/shm"

    def ours() -> set[str]:
        folders = [str(tmp_path)] + ([shm] if os.path.isdir(shm) else [])
        return {os.path.join(d, n) for d in folders for n in os.listdir(d) if "hlorun-diff-" in n}

    before = ours()
    text = """func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {
  %0 = stablehlo.sqrt %x : tensor<2xf32>
  return %0 : tensor<2xf32>
}"""
    engine = XlaEngine(python=sys.executable)
    with pytest.raises(InterpreterError, match="xla failed: ModuleNotFoundError"):
        hlorun.diff(text, [np.array([4.0, 9.0], np.float32)], against=engine)
    assert engine._started is None
    assert ours() <= before
