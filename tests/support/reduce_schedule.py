"""The documented schedule of a float reduce (engine/kernels/reduction.py), written out
element by element: the independent reference the kernel tests compare against.

The tree is the adjacent-pair tree, level by level, an odd last element carried to the
next level (an in-order full binary tree, as the spec's ``reduce`` allows); when one
dimension that is not the last is reduced, its leaves are left folds of ``BLOCK``
consecutive inputs."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

BLOCK = 32

Combine = Callable[[Any, Any], Any]


def pair_tree(vals: list, op: Combine) -> Any:
    """Adjacent pairs level by level; an odd last element goes up unchanged."""
    while len(vals) > 1:
        nxt = [op(vals[i], vals[i + 1]) for i in range(0, len(vals) - 1, 2)]
        if len(vals) % 2:
            nxt.append(vals[-1])
        vals = nxt
    return vals[0]


def left_fold(vals: list, op: Combine) -> Any:
    acc = vals[0]
    for v in vals[1:]:
        acc = op(acc, v)
    return acc


def leaves(vals: list, op: Combine, blocked: bool) -> list:
    """The tree's leaves: the inputs, or left folds of BLOCK consecutive inputs."""
    if not blocked:
        return vals
    return [left_fold(vals[i : i + BLOCK], op) for i in range(0, len(vals), BLOCK)]
