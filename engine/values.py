"""Runtime values.

A tensor value is a NumPy array whose dtype is ``parser.ir.numpy_dtype`` of its
StableHLO type (storage type for quantized tensors; the quantization parameters live
in the type, which kernels receive as ``result_type``).  A token is the ``TOKEN``
singleton; a tuple value is a Python tuple of values.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..parser.ir import Region, Type
from .region_analysis import UNKNOWN, RegionSummary, summarize


class Token:
    """The value of ``!stablehlo.token``: carries no data, only ordering."""

    __slots__ = ()
    _instance: Token | None = None

    def __new__(cls) -> Token:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "TOKEN"


TOKEN = Token()


@dataclass(frozen=True, eq=False)
class RegionFn:
    """A region, prepared once, callable on whole tensors.

    ``fn(*values) -> tuple`` runs the region's entry block with ``values`` bound to its
    arguments and returns the values of its terminator.  Values may be larger than the
    block's declared (often 0-d) argument types: elementwise bodies then run on whole
    tensors at once, which is how reduce/scatter/sort bodies avoid per-element loops.

    ``summary`` says what the region computes (``engine.region_analysis``: its
    combiner ops and their operand order, a pure replace, a comparator's keys), so a
    kernel can use the matching NumPy operation; by default the region's own summary
    (nothing known without a region).  ``keys``: per sort key of the summary, the
    compiled block of its transform (``KeyTransform``: the interpreter plans its ops),
    or None.
    """

    region: Region
    call: Callable[..., tuple[Any, ...]]
    summary: RegionSummary = UNKNOWN
    keys: tuple[Callable[[Any], Any] | None, ...] = ()

    def __post_init__(self) -> None:
        if self.summary is UNKNOWN and self.region is not None:
            object.__setattr__(self, "summary", summarize(self.region))

    def __call__(self, *values: Any) -> tuple[Any, ...]:
        return self.call(*values)

    def key_input(self, k: int, x: Any, element_type: Type) -> tuple[Any, Type] | None:
        """(values compared, their element type) of sort key ``k`` of the summary for
        operand values ``x`` of ``element_type``; None when its transform has no
        compiled block here (the caller then calls the comparator itself)."""
        sk = self.summary.sort_keys[k] if self.summary.sort_keys else None
        if sk is None or sk.transform is None:
            return x, element_type
        fn = self.keys[k] if k < len(self.keys) else None
        if fn is None:
            return None
        out = fn(x)
        if out.shape != x.shape:  # a transform that ignores its argument
            out = np.broadcast_to(out, x.shape)
        return out, sk.transform.key_type
