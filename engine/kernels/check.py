"""Kernels of the ``check`` and ``interpreter`` test dialects (docs/test-dialects.md).

Float equality of ``expect_eq``: **bitwise** by default, as the spec's testing notes
say (NaN equals NaN of the same payload, +0 differs from -0).  The official tool uses
IEEE equality (NaN never equal, +0 == -0); ``float_eq="ieee"`` (CLI
``--float-eq=ieee``) selects that.
"""

from __future__ import annotations

import csv
import os
import re
import sys
import threading
from typing import Any

import numpy as np

from ...parser.errors import InterpreterError
from ...parser.ir import QuantizedType, TensorType, Type
from ...shape_inference.optable import kernel
from ..dtypes import static_shape
from ..element import equal_mask, first_mismatch, format_element, ulp_difference
from ..format import format_value
from .quantization import dequantize


def _fail(check: str, actual: np.ndarray, expected: np.ndarray, bad: np.ndarray, extra: str = ""):
    idx = first_mismatch(bad)
    where = f" at index {list(idx)}" if actual.ndim else ""
    a = format_element(actual[idx] if actual.ndim else actual[()], actual.dtype)
    e = format_element(expected[idx] if expected.ndim else expected[()], expected.dtype)
    n = int(np.count_nonzero(bad))
    raise InterpreterError(
        f"failed{where}: got {a}, expected {e}{extra} ({n} of {bad.size} elements differ)",
        op=check,
    )


def _expect_eq(actual, expected, *, context, check="check.expect_eq"):
    expected = np.asarray(expected)
    if expected.dtype != actual.dtype:
        expected = expected.astype(actual.dtype)
    if actual.shape != expected.shape:
        raise InterpreterError(
            f"failed: shape {actual.shape} differs from expected {expected.shape}",
            op=check,
        )
    bad = ~equal_mask(actual, expected, mode=context.float_eq)
    if bad.any():
        _fail(check, actual, expected, bad)


def _almost_mask(actual: np.ndarray, expected: np.ndarray, tolerance: float) -> np.ndarray:
    if actual.dtype.kind in "biu":
        return actual == expected
    a = actual.astype(np.complex128 if actual.dtype.kind == "c" else np.float64)
    e = expected.astype(a.dtype)
    with np.errstate(invalid="ignore", over="ignore"):
        ok = (a == e) | (np.abs(a - e) <= tolerance)
        if a.dtype.kind == "c":
            ok |= np.isnan(a.real) & np.isnan(e.real) | (np.isnan(a.imag) & np.isnan(e.imag))
        else:
            ok |= np.isnan(a) & np.isnan(e)
    return ok


def _expect_almost_eq(actual, expected, *, tolerance, check="check.expect_almost_eq"):
    expected = np.asarray(expected)
    if actual.shape != expected.shape:
        raise InterpreterError(
            f"failed: shape {actual.shape} differs from expected {expected.shape}",
            op=check,
        )
    bad = ~_almost_mask(actual, expected.astype(actual.dtype), tolerance)
    if bad.any():
        _fail(check, actual, expected, bad, f" (tolerance {tolerance})")


def _expect_close(actual, expected, *, max_ulp, min_ulp, check="check.expect_close"):
    if actual.dtype.kind == "c":
        parts = [(actual.real, expected.real), (actual.imag, expected.imag)]
    else:
        parts = [(actual, expected)]
    bad = np.zeros(actual.shape, dtype=bool)
    lo, hi = np.uint64(min_ulp), np.uint64(max_ulp)  # UI64Attr (CheckOps.td)
    d = np.zeros(actual.shape, dtype=np.uint64)
    for a, e in parts:  # a complex number's difference: the larger of its parts'
        d = np.maximum(d, ulp_difference(np.asarray(a), np.asarray(e)))
    bad |= (d < lo) | (d > hi)
    if bad.any():
        _fail(check, actual, expected, bad, f" (ULP distance outside [{min_ulp}, {max_ulp}])")


@kernel("check.expect_eq", context=True, quantized="native")
def expect_eq(actual, expected, *, result_type, context):
    _expect_eq(actual, expected, context=context)


@kernel("check.expect_eq_const", context=True, quantized="native")
def expect_eq_const(actual, *, value, result_type, context):
    _expect_eq(actual, value, context=context, check="check.expect_eq_const")


@kernel("check.expect_almost_eq")
def expect_almost_eq(actual, expected, *, tolerance, result_type):
    _expect_almost_eq(actual, expected, tolerance=tolerance)


@kernel("check.expect_almost_eq_const")
def expect_almost_eq_const(actual, *, value, tolerance, result_type):
    _expect_almost_eq(actual, value, tolerance=tolerance, check="check.expect_almost_eq_const")


@kernel("check.expect_close")
def expect_close(actual, expected, *, max_ulp_difference, min_ulp_difference, result_type):
    _expect_close(actual, expected, max_ulp=max_ulp_difference, min_ulp=min_ulp_difference)


# ---- the side-effecting custom_call forms (docs/test-dialects.md) -------------------
#
# As StableHLO's interpreter fallback runs them (stablehlo/tools/StablehloTranslateMain.cpp):
# ``@check.eq(%actual, %expected) -> tensor<i1>``: integers (and booleans) exact, other
# types within 1e-4; the run fails when they differ (and the result is true when it goes
# on); ``@check.expect_eq`` (exact), ``@check.expect_almost_eq`` (1e-3) and
# ``@check.expect_close`` (0 to 3 ULP) take two operands and return nothing.  Quantized
# operands compare by their dequantized values (spec ``dequantize``).


def _dequantized(x: np.ndarray, t: Type | None) -> np.ndarray:
    e = t.element_type if isinstance(t, TensorType) else t
    return dequantize(x, t) if t is not None and isinstance(e, QuantizedType) else x


def _cc_operands(target: str, operands, operand_types) -> tuple[np.ndarray, np.ndarray]:
    if len(operands) != 2:
        raise InterpreterError(
            f"custom_call @{target} takes 2 operands (actual, expected), got {len(operands)}",
            op=f"custom_call @{target}",
        )
    types = tuple(operand_types or (None, None))
    return (
        _dequantized(np.asarray(operands[0]), types[0]),
        _dequantized(np.asarray(operands[1]), types[1]),
    )


def _cc_eq(*operands, context, operand_types=None, result_types=()):
    actual, expected = _cc_operands("check.expect_eq", operands, operand_types)
    _expect_eq(actual, expected, context=context, check="custom_call @check.expect_eq")
    return ()


def _cc_close(*operands, context, operand_types=None, result_types=()):
    actual, expected = _cc_operands("check.expect_close", operands, operand_types)
    _expect_close(actual, expected, max_ulp=3, min_ulp=0, check="custom_call @check.expect_close")
    return ()


def _cc_almost(*operands, context, operand_types=None, result_types=()):
    actual, expected = _cc_operands("check.expect_almost_eq", operands, operand_types)
    _expect_almost_eq(actual, expected, tolerance=1e-3, check="custom_call @check.expect_almost_eq")
    return ()


def _cc_check_eq(*operands, context, operand_types=None, result_types=()):
    """``@check.eq``: fails the run when the operands differ; else its (declared)
    ``tensor<i1>`` result is true."""
    actual, expected = _cc_operands("check.eq", operands, operand_types)
    if expected.dtype.kind in "biu":
        _expect_eq(actual, expected, context=context, check="custom_call @check.eq")
    else:
        _expect_almost_eq(actual, expected, tolerance=1e-4, check="custom_call @check.eq")
    return tuple(np.ones(static_shape(t), dtype=np.bool_) for t in result_types)


CUSTOM_CALL_CHECKS = {
    "check.expect_eq": _cc_eq,
    "check.expect_close": _cc_close,
    "check.expect_almost_eq": _cc_almost,
    "check.eq": _cc_check_eq,
}


# ---- probe / print ---------------------------------------------------------------


def _probe_file(probe_id: str, n: int) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]", "_", probe_id) + f"_{n}.npy"


@kernel("interpreter.probe", context=True, quantized="native")
def probe(operand, *, probe_id: str, result_type, context):
    """Return ``operand`` and write it to ``<probe_dir>/<probe_id>_<n>.npy`` (n counts
    executions from 1), with a row in ``index.csv``."""
    n = context.probe_counts.get(probe_id, 0) + 1
    context.probe_counts[probe_id] = n
    directory = context.probe_dir
    if directory is None:
        raise InterpreterError(
            "interpreter.probe needs a probe output directory (--probe-output-dir)"
        )
    os.makedirs(directory, exist_ok=True)
    name = _probe_file(probe_id, n)
    np.save(os.path.join(directory, name), operand, allow_pickle=False)
    with open(os.path.join(directory, "index.csv"), "a", newline="") as f:
        from ...parser.printer import print_type  # on first use, to keep startup cheap

        csv.writer(f).writerow([probe_id, print_type(result_type), name])
    return operand


@kernel("check.expect_serialized_eq", context=True, quantized="native")
def expect_serialized_eq(actual, *, probe_id: str, iter: int, iteration: Any, result_type, context):
    """The value ``interpreter.probe`` wrote for ``probe_id`` at iteration ``iter`` (from 0)."""
    it = iteration if iteration is not None else iter
    directory = context.probe_dir
    path = os.path.join(directory or "", _probe_file(probe_id, it + 1))
    if directory is None or not os.path.exists(path):
        raise InterpreterError(
            f"check.expect_serialized_eq failed: no probe '{probe_id}' at iteration {it}",
            op="check.expect_serialized_eq",
        )
    stored = np.load(path, allow_pickle=False)
    if stored.dtype != actual.dtype:
        stored = (
            stored.view(actual.dtype) if stored.dtype.itemsize == actual.dtype.itemsize else stored
        )
    _expect_eq(actual, stored, context=context, check="check.expect_serialized_eq")
    return ()


_PRINT_LOCK = threading.Lock()


@kernel("interpreter.print", context=True, operand_types=True, quantized="native")
def print_(operand, *, operand_name: str, result_type, context, operand_types):
    """Print ``%name = <value>`` as one write, so processes of a grid never interleave."""
    text = f"{operand_name} = {format_value(operand, operand_types[0])}"
    context.printed.append(text)
    with _PRINT_LOCK:
        sys.stdout.write(text + "\n")
        sys.stdout.flush()
    return ()
