"""Control-flow kernels (spec "while", "if", "case", "optimization_barrier", "tuple",
"get_tuple_element", "custom_call", "composite", "after_all", "create_token")."""

from __future__ import annotations

import numpy as np

from ...parser.errors import HloError, InterpreterError, UnsupportedError
from ...parser.ir import TensorType, numpy_dtype
from ...shape_inference.mhlo import mhlo_target_row
from ...shape_inference.optable import kernel, register_kernel
from ..values import TOKEN, RegionFn
from .check import CUSTOM_CALL_CHECKS
from .custom_targets import USER_TARGETS as CUSTOM_CALLS  # noqa: F401  (tests pop from it)
from .custom_targets import (
    builtin_target,
    register_custom_call,
    split_shape_operands,
    user_target,
)
from .mhlo import call_op

__all__ = ["register_custom_call"]  # the registry lives in custom_targets.py


@kernel("stablehlo.while", context=True, quantized="native", control="while")
def while_(*operands, cond: RegionFn, body: RegionFn, result_types, context):
    """spec "while": run body while cond holds."""
    values = operands
    interp = context.interpreter
    while True:
        interp.check_limits_per_iteration("stablehlo.while")
        (c,) = cond(*values)
        if not c:
            return tuple(values)
        values = body(*values)


@kernel("stablehlo.if", quantized="native", control="if")
def if_(pred, *, true_branch: RegionFn, false_branch: RegionFn, result_types):
    """spec "if": run true_branch when pred, else false_branch."""
    return true_branch() if pred else false_branch()


@kernel("stablehlo.case", quantized="native", control="case")
def case(index, *, branches: tuple[RegionFn, ...], result_types):
    """spec "case": branches[index], or the last branch when index is out of range."""
    i = int(index)
    if not 0 <= i < len(branches):
        i = len(branches) - 1
    return branches[i]()


@kernel("stablehlo.optimization_barrier", quantized="native")
def optimization_barrier(*operands, result_types):
    """spec "optimization_barrier": the identity."""
    return operands


@kernel("stablehlo.tuple", quantized="native")
def tuple_(*operands, result_type):
    return tuple(operands)


@kernel("stablehlo.get_tuple_element", quantized="native")
def get_tuple_element(operand, *, index: int, result_type):
    return operand[index]


@kernel("stablehlo.after_all")
def after_all(*inputs, result_type):
    return TOKEN


@kernel("stablehlo.create_token")
def create_token(*inputs, result_type):
    return TOKEN


def custom_call(*operands, call_target_name: str, result_types, context, operand_types, **attrs):
    """spec "custom_call": ``check.*`` targets, then user-registered targets, then the
    mhlo ops of XLA's legalization (``@mhlo.<op>``: engine/kernels/mhlo.py), then the
    built-in targets of jax.export (engine/kernels/custom_targets.py).  Shape operands
    (``indices_of_shape_operands``) give the result shapes and are not passed on."""
    operands, operand_types, result_types = split_shape_operands(
        call_target_name,
        operands,
        operand_types,
        result_types,
        attrs.pop("indices_of_shape_operands", None),
    )
    check = CUSTOM_CALL_CHECKS.get(call_target_name)
    if check is not None:
        return check(
            *operands, context=context, operand_types=operand_types, result_types=result_types
        )
    fn = user_target(call_target_name)
    mhlo_row = mhlo_target_row(call_target_name) if fn is None else None
    if fn is not None:
        try:
            out = fn(*operands, result_types=result_types, context=context, **attrs)
        except HloError:
            raise
        except Exception as e:  # the handler's own failure, named as such
            raise InterpreterError(
                f"custom_call target '{call_target_name}': the registered handler raised "
                f"{type(e).__name__}: {e}"
            ) from e
    elif mhlo_row is not None and mhlo_row.kernel is not None:
        out = call_op(
            mhlo_row,
            operands,
            result_types=result_types,
            attributes=attrs.get("mhlo.attributes"),
            context=context,
            operand_types=operand_types,
        )
    else:
        builtin = builtin_target(call_target_name)
        if builtin is None:
            raise UnsupportedError(
                f"custom_call target '{call_target_name}' is not registered "
                "(register one with engine.register_custom_call)"
            )
        out = builtin(*operands, result_types=result_types, context=context, **attrs)
    if not isinstance(out, tuple | list):
        out = (out,)
    out = tuple(np.asarray(v) if isinstance(v, np.generic) else v for v in out)
    if len(out) != len(result_types):
        raise InterpreterError(
            f"custom_call target '{call_target_name}' returned {len(out)} values "
            f"for {len(result_types)} results"
        )
    if fn is not None:
        out = tuple(
            _as_declared(call_target_name, i, v, t)
            for i, (v, t) in enumerate(zip(out, result_types))
        )
    return out


CUSTOM_CALL = register_kernel(
    "stablehlo.custom_call", custom_call, context=True, operand_types=True, quantized="native"
)


def _as_declared(target: str, i: int, value, t):
    """A user handler's result #i as result type ``t`` declares it: an array of its
    dtype and shape (Python scalars and lists converted), or an error naming the
    target, what it returned and the declared type."""
    if not isinstance(t, TensorType):
        return value
    want = numpy_dtype(t)
    if not isinstance(value, np.ndarray):
        try:
            value = (
                np.asarray(value, dtype=want)
                if isinstance(value, int | float | complex | bool | list)
                else np.asarray(value)
            )
        except (TypeError, ValueError, OverflowError) as e:
            raise InterpreterError(
                f"custom_call target '{target}' returned a {type(value).__name__} for result "
                f"#{i}, declared {t} ({e})"
            ) from e
    shape = t.shape
    fits = shape is None or (
        len(shape) == value.ndim and all(d is None or d == n for d, n in zip(shape, value.shape))
    )
    if value.dtype != want or not fits:
        raise InterpreterError(
            f"custom_call target '{target}' returned {value.dtype} of shape "
            f"{tuple(value.shape)} for result #{i}, declared {t} ({want} of shape "
            f"{tuple(shape) if shape is not None else 'any'})"
        )
    return value


@kernel("stablehlo.composite", context=True, quantized="native")
def composite(*operands, decomposition: str, result_types, context, **attrs):
    """spec "composite": run the decomposition function."""
    return context.interpreter.call(decomposition, operands)
