"""The shape-polymorphic custom-call targets jax.export emits while StableHLO has no op
for them (jax/_src/export/_export.py: "maintain backwards compatibility for these,
until they are upstreamed", openxla/stablehlo#8): ``stablehlo.dynamic_top_k``,
``stablehlo.dynamic_approx_top_k``, ``stablehlo.dynamic_reduce_window`` and
``stablehlo.dynamic_rng_bit_generator``.  Each is its static op with the sizes given as
operands (operand order from jax/_src/lax/{lax,ann,windowed_reductions}.py and
jax/_src/lax/control_flow/random... lowerings, hlo_helpers' conventions).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ...parser.errors import InterpreterError, UnsupportedError
from ..dtypes import dtype_of
from ..values import RegionFn
from .custom_targets import Call, shape_of, target, top_k_along
from .random import rng_bit_generator_arrays
from .window import reduce_window


def _int(x: Any) -> int:
    return int(np.asarray(x).reshape(-1)[0])


@target("stablehlo.dynamic_top_k")
def dynamic_top_k(call: Call, operand: Any, k: Any) -> tuple[np.ndarray, ...]:
    """(operand, k) -> (values, indices): chlo.top_k with k an operand (largest first
    along the last dimension, ties by lower index)."""
    x = np.asarray(operand)
    kk = _int(k)
    if x.ndim == 0 or not 0 <= kk <= x.shape[-1]:
        raise call.fail(f"k = {kk} out of range for an operand of shape {x.shape}")
    iota = np.broadcast_to(np.arange(x.shape[-1], dtype=np.int32), x.shape)
    lowest = np.array(-np.inf if x.dtype.kind == "f" else -1)
    return top_k_along((x, iota), (lowest,), x.ndim - 1, kk)


@target("stablehlo.dynamic_approx_top_k")
def dynamic_approx_top_k(call: Call, *operands: Any) -> tuple[np.ndarray, ...]:
    """jax/_src/lax/ann.py: (operands..., inits..., k) -> (values, indices): ApproxTopK
    with k an operand (exact top-k); the result shapes jax appends after k are shape
    operands (``indices_of_shape_operands``), which the custom_call kernel drops."""
    n = len(call.result_types)
    xs, inits = operands[:n], operands[n : 2 * n]
    if len(operands) <= 2 * n:
        raise call.fail("expects k after the operands and init values")
    x = np.asarray(xs[0])
    dim = int(call.config.get("reduction_dim", x.ndim - 1)) % max(x.ndim, 1)
    kk = _int(operands[2 * n])
    if not 0 <= kk <= x.shape[dim]:
        raise call.fail(f"k = {kk} out of range for dimension {dim} of {x.shape}")
    return top_k_along(xs, inits, dim, kk)


def _called_region(call: Call) -> RegionFn:
    """The reducer function of ``called_computations`` as a region kernels can call."""
    names: Sequence[Any] = call.attrs.get("called_computations") or ()
    if len(names) != 1:
        raise call.fail(f"expects one called computation, got {len(names)}")
    name = str(names[0]).lstrip("@")
    interp = call.context.interpreter
    fn = interp.module.functions.get(name)
    if fn is None or fn.body is None:
        raise call.fail(f"no function @{name} with a body")
    return RegionFn(region=fn.body, call=lambda *v: interp.call(name, v))


@target("stablehlo.dynamic_reduce_window")
def dynamic_reduce_window(call: Call, *operands: Any) -> tuple[np.ndarray, ...]:
    """jax/_src/lax/windowed_reductions.py: (operands..., inits..., window_dimensions,
    window_strides, base_dilations, window_dilations, padding) -> reduce_window, the
    reducer ``called_computations[0]`` of (accumulators..., elements...); a reducer that
    is not one associative op per result folds each window in order from its init
    value, as XLA's evaluator does (window.py ``_folds_as_tree``)."""
    n = len(call.result_types)
    if len(operands) != 2 * n + 5:
        raise call.fail(f"expects {2 * n + 5} operands, got {len(operands)}")
    dims, strides, base, win, pad = (np.asarray(v) for v in operands[2 * n :])
    return reduce_window(
        *operands[: 2 * n],
        result_types=call.result_types,
        window_dimensions=tuple(int(d) for d in dims),
        window_strides=tuple(int(d) for d in strides),
        base_dilations=tuple(int(d) for d in base),
        window_dilations=tuple(int(d) for d in win),
        padding=pad.reshape(-1, 2).astype(np.int64),
        body=_called_region(call),
    )


@target("stablehlo.dynamic_rng_bit_generator")
def dynamic_rng_bit_generator(call: Call, state: Any, shape: Any) -> tuple[np.ndarray, ...]:
    """(initial_state, output_shape) -> (output_state, output): rng_bit_generator with
    the output shape an operand (attribute rng_algorithm)."""
    out_t = call.result_types[1]
    dims = tuple(int(d) for d in np.asarray(shape).reshape(-1))
    if any(d < 0 for d in dims) or len(dims) != len(shape_of(out_t)):
        raise call.fail(f"output shape {dims} does not fit {out_t}")
    dt = dtype_of(out_t)
    if dt.kind not in "iuf" or dt == np.bool_:
        raise UnsupportedError(f"dynamic_rng_bit_generator output of {dt}")
    algorithm = str(call.attrs.get("rng_algorithm") or "DEFAULT")
    st = np.asarray(state)
    if st.dtype != np.uint64 or st.ndim != 1:
        raise InterpreterError(f"rng state must be a 1-D ui64 tensor, got {st.dtype}{st.shape}")
    new_state, bits = rng_bit_generator_arrays(algorithm, st, dims, dt.itemsize * 8)
    return new_state, bits.view(dt).reshape(dims)
