"""engine/kernels/blas_threads.py: convolutions' gemms on one OpenBLAS thread while the
machine is busy, the count restored after, results bit-identical either way."""

from __future__ import annotations

import numpy as np
import pytest

import hlorun.engine.kernels  # noqa: F401
from hlorun import shape_inference  # noqa: F401
from hlorun.engine.kernels import blas_threads
from hlorun.parser.ir import FloatType, TensorType
from hlorun.shape_inference.optable import OP_TABLE

NCHW = dict(
    input_batch_dimension=0,
    input_feature_dimension=1,
    input_spatial_dimensions=(2, 3),
    kernel_output_feature_dimension=0,
    kernel_input_feature_dimension=1,
    kernel_spatial_dimensions=(2, 3),
    output_batch_dimension=0,
    output_feature_dimension=1,
    output_spatial_dimensions=(2, 3),
)


def _counts() -> list[int]:
    controls = blas_threads._find_controls()
    return [get() for get, _ in controls]


@pytest.fixture
def busy(monkeypatch):
    state = {"busy": True}
    monkeypatch.setattr(blas_threads, "busy", lambda: state["busy"])
    blas_threads.library_loaded()
    return state


def test_busy_machine_runs_one_thread_and_restores(busy):
    before = _counts()
    if not before:
        pytest.skip("no OpenBLAS library loaded (NumPy built with another BLAS)")
    with blas_threads.one_blas_thread_when_busy():
        assert _counts() == [1] * len(before)
    assert _counts() == before
    busy["busy"] = False
    with blas_threads.one_blas_thread_when_busy():
        assert _counts() == before  # a quiet machine keeps BLAS's threads


def test_overlapping_callers_share_one_save_and_restore(busy):
    before = _counts()
    if not before:
        pytest.skip("no OpenBLAS library loaded (NumPy built with another BLAS)")
    a = blas_threads.one_blas_thread_when_busy()
    b = blas_threads.one_blas_thread_when_busy()
    a.__enter__()
    b.__enter__()
    a.__exit__(None, None, None)
    assert _counts() == [1] * len(before)  # b is still inside
    b.__exit__(None, None, None)
    assert _counts() == before


@pytest.mark.parametrize("channels", [32, 128])  # im2col, and the shifted gemms
def test_convolution_bits_do_not_depend_on_the_thread_count(busy, channels):
    """OpenBLAS splits a gemm's rows and columns between threads, never its
    contraction: each result element is the same sum either way."""
    rng = np.random.default_rng(channels)
    x = rng.standard_normal((4, channels, 40, 40)).astype(np.float32)
    w = rng.standard_normal((64, channels, 3, 3)).astype(np.float32)
    rt = TensorType((4, 64, 40, 40), FloatType("f32"))
    conv = OP_TABLE["stablehlo.convolution"].kernel
    kw = dict(result_type=rt, padding=np.array([[1, 1], [1, 1]]), **NCHW)
    busy["busy"] = True
    one = conv(x, w, **kw)
    busy["busy"] = False
    many = conv(x, w, **kw)
    np.testing.assert_array_equal(one.view(np.uint32), many.view(np.uint32))
