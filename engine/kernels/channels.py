"""Channel kernels (spec "send", "recv", "infeed", "outfeed"): point-to-point transfers
between the processes of a grid, and the host's infeed / outfeed queues.  The
collectives are in ``collective``.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any

import numpy as np

from ...parser.errors import InterpreterError
from ...parser.ir import TensorType, Type
from ...shape_inference.collective import channel_id_of
from ...shape_inference.optable import kernel, register_kernel
from ..dtypes import dtype_of
from ..grid import ProcessHandle, process_of
from ..values import TOKEN
from .collective import pair_groups, strategy_split, zeros_of

_FEED_LOCK = threading.Lock()


# ------------------------------------------------------------------ send / recv


def _p2p_channels(
    handle: ProcessHandle, channel_handle, is_host_transfer: bool, source_target_pairs
) -> tuple[int, list | None]:
    cid = channel_id_of(channel_handle)
    if is_host_transfer or source_target_pairs is None or not np.asarray(source_target_pairs).size:
        return cid, None
    return cid, pair_groups(source_target_pairs, strategy_split(cid), handle.grid)


@kernel("stablehlo.send", context=True, quantized="native")
def send(
    *operands,
    channel_handle=None,
    is_host_transfer: bool = False,
    source_target_pairs=None,
    result_type,
    context,
    op=None,
):
    """spec "send": put the inputs on channel ``channel_id`` (to each target of this
    process when ``source_target_pairs`` is given)."""
    h = process_of(context)
    inputs = tuple(operands[:-1])
    cid, pairs = _p2p_channels(h, channel_handle, is_host_transfer, source_target_pairs)
    if is_host_transfer and cid in h.grid.host_channels:
        h.grid.send(("host", cid), inputs)
    elif pairs is None:
        h.grid.send(("channel", cid), inputs)
    else:
        for s, t in pairs:
            if s == h.pid:
                h.grid.send(("p2p", cid, s, t), inputs)
    return TOKEN


def recv(
    token,
    *,
    channel_handle=None,
    is_host_transfer: bool = False,
    source_target_pairs=None,
    result_types,
    context,
    op=None,
):
    """spec "recv": take the next values sent on channel ``channel_id`` (waiting for
    them); results are the payload then a token."""
    h = process_of(context)
    cid, pairs = _p2p_channels(h, channel_handle, is_host_transfer, source_target_pairs)
    payload_types = result_types[:-1]
    if is_host_transfer and cid in h.grid.host_channels:
        entry = h.grid.recv(h.pid, ("host", cid), op)
        values = (
            (entry,)
            if isinstance(entry, np.ndarray) or not isinstance(entry, tuple | list)
            else entry
        )
    elif pairs is None:
        values = h.grid.recv(h.pid, ("channel", cid), op)
    else:
        sources = [s for s, t in pairs if t == h.pid]
        if not sources:
            return (*(zeros_of(t) for t in payload_types), TOKEN)
        values = h.grid.recv(h.pid, ("p2p", cid, sources[0], h.pid), op)
    return (*_match_payload(values, payload_types, f"recv on channel {cid}"), TOKEN)


RECV = register_kernel("stablehlo.recv", recv, context=True, quantized="native")


def _match_payload(values: Sequence[Any], types: Sequence[Type], what: str) -> list[np.ndarray]:
    """Check received / fed values against the declared result types."""
    if len(values) != len(types):
        raise InterpreterError(f"{what} got {len(values)} values for {len(types)} results")
    out = []
    for i, (v, t) in enumerate(zip(values, types)):
        want = dtype_of(t)
        if not isinstance(v, np.ndarray):
            if isinstance(v, np.generic | bool | int | float | complex):
                v = np.asarray(v, dtype=want)
            else:
                raise InterpreterError(f"{what}: value #{i} is a {type(v).__name__}, not an array")
        if v.dtype != want:
            raise InterpreterError(f"{what}: value #{i} has dtype {v.dtype}, expected {want}")
        _shape_matches(v, t, f"{what}: value #{i}")
        out.append(v)
    return out


def _shape_matches(v: np.ndarray, t: Type, what: str) -> None:
    if (
        isinstance(t, TensorType)
        and t.shape is not None
        and (
            len(t.shape) != v.ndim
            or any(d is not None and d != s for d, s in zip(t.shape, v.shape))
        )
    ):
        raise InterpreterError(f"{what} has shape {list(v.shape)}, expected {list(t.shape)}")


# ------------------------------------------------------------------ infeed / outfeed


@kernel("stablehlo.infeed", context=True, quantized="native")
def infeed(token, *, infeed_config: str = "", layout=None, result_types, context, op=None):
    """spec "infeed": the next entry of this process's infeed queue (``context.infeed``:
    each entry a tuple of arrays, or one array for a single payload result)."""
    queue = context.infeed
    with _FEED_LOCK:
        if not queue:
            raise InterpreterError(
                "the infeed is empty (pass infeed data with engine.run(..., infeed=[...]) or "
                "interpreter.run_parallel's infeed functions)"
            )
        entry = queue.pop(0)
    if isinstance(entry, np.ndarray) or not isinstance(entry, tuple | list):
        entry = (entry,)
    return (*_match_payload(entry, result_types[:-1], "infeed"), TOKEN)


@kernel("stablehlo.outfeed", context=True, quantized="native")
def outfeed(*operands, outfeed_config: str = "", result_type, context, op=None):
    """spec "outfeed": append the inputs (a tuple of arrays) to ``context.outfeed``."""
    with _FEED_LOCK:
        context.outfeed.append(tuple(operands[:-1]))
    return TOKEN
