"""The platform-index argument of multi-platform ``jax.export`` modules.

An export made for several platforms (``platforms=("cpu", "cuda", "tpu")``) has a
``main`` whose first argument is a scalar i32 (or i64) tagged
``{jax.global_constant = "_platform_index"}``: the index of the platform it runs on in
the export's ``platforms`` list, and a ``stablehlo.case`` picks each op's lowering by
it (jax docs/export/export.md "Module calling convention"; jax/_src/export/_export.py
``_wrap_main_func``).  The module does not record the list: jax keeps it in the
``Exported`` container (``engine/exported.py``).

``engine.run(..., platform=...)`` fills that argument when the caller leaves it out:
``platform`` is an index, or a name resolved in ``platforms``; by default ``cpu`` when
the export lists it, else the first platform (index 0).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ..parser.errors import InterpreterError
from ..parser.ir import Function, StringAttr, TensorType, numpy_dtype

PLATFORM_INDEX = "_platform_index"
"""The ``jax.global_constant`` name of the argument (jax/_src/interpreters/mlir.py)."""

DEFAULT_PLATFORM = "cpu"
_GPU = ("cuda", "rocm")  # what jax canonicalizes "gpu" to (jax/_src/xla_bridge.py)


def takes_platform_index(fn: Function) -> bool:
    """Whether ``fn``'s first argument is jax's platform index."""
    if not fn.arg_attrs or fn.arg_attrs[0] is None or not fn.type.inputs:
        return False
    tag = fn.arg_attrs[0].get("jax.global_constant")
    t = fn.type.inputs[0]
    return (
        isinstance(tag, StringAttr)
        and tag.value == PLATFORM_INDEX
        and isinstance(t, TensorType)
        and t.shape == ()
    )


def resolve_platform(platform: str | int | None, platforms: Sequence[str] | None) -> int:
    """The index ``platform`` names: an int as it is, a name by its place in
    ``platforms`` (``gpu`` matches cuda or rocm); None: cpu if listed, else 0."""
    known = [p.lower() for p in platforms] if platforms else None
    if platform is None:
        return known.index(DEFAULT_PLATFORM) if known and DEFAULT_PLATFORM in known else 0
    if isinstance(platform, bool) or not isinstance(platform, int | np.integer | str):
        raise InterpreterError(
            f"platform must be a name or an index, not {type(platform).__name__}"
        )
    if not isinstance(platform, str):
        index = int(platform)
        if index < 0 or (known is not None and index >= len(known)):
            span = f" (the export has {len(known)}: {', '.join(known)})" if known else ""
            raise InterpreterError(f"platform index {index} is out of range{span}")
        return index
    if known is None:
        raise InterpreterError(
            f"cannot tell the index of platform '{platform}': the module does not list its "
            "platforms (jax keeps them in the Exported container, see "
            "engine.load_exported); pass platforms=[...] or the index (hlorun "
            "interpret: --platforms cpu,cuda,tpu, or --platform N)"
        )
    name = platform.lower()
    candidates = _GPU if name == "gpu" else (name,)
    for c in candidates:
        if c in known:
            return known.index(c)
    raise InterpreterError(
        f"platform '{platform}' is not one the module was exported for ({', '.join(known)})"
    )


def with_platform_index(
    fn: Function,
    inputs: Sequence[Any],
    platform: str | int | None,
    platforms: Sequence[str] | None,
) -> Sequence[Any]:
    """``inputs`` with the platform index put first when ``fn`` takes one and the
    caller left it out (one input fewer than ``fn``'s arguments); else unchanged."""
    if not takes_platform_index(fn) or len(inputs) != len(fn.type.inputs) - 1:
        return inputs
    index = resolve_platform(platform, platforms)
    return [np.asarray(index, dtype=numpy_dtype(fn.type.inputs[0])), *inputs]
