"""Reduction-family shape functions and verifiers: reduce, reduce_window,
select_and_scatter, sort, map (spec: see each function).

Region signatures are checked on the IR regions in ``ctx.regions``: the entry block's
argument types and the operand types of its terminator (``stablehlo.return``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ..parser.ir import (
    IntegerType,
    Region,
    TensorType,
    Type,
    TypeExtensions,
)
from .optable import REQUIRED, ShapeContext, shape_function
from .typeutil import is_promotable, require_tensor, require_tensors

# --------------------------------------------------------------------------------------
# helpers
# --------------------------------------------------------------------------------------


def _elem(t: Type) -> Type:
    return t.element_type if isinstance(t, TensorType) else t


def _shape(t: Type) -> tuple[int | None, ...] | None:
    """The shape of a ranked tensor type ``t`` (None when unranked or not a tensor)."""
    return t.shape if isinstance(t, TensorType) else None


def _dims_ok(a: int | None, b: int | None) -> bool:
    return a is None or b is None or a == b


def _shapes_ok(a: TensorType, b: TensorType) -> bool:
    if a.shape is None or b.shape is None:
        return True
    return len(a.shape) == len(b.shape) and all(_dims_ok(x, y) for x, y in zip(a.shape, b.shape))


def _is_scalar(t: Type) -> bool:
    return isinstance(t, TensorType) and t.shape == ()


def _signature(
    ctx: ShapeContext, index: int, label: str
) -> tuple[tuple[Type, ...], tuple[Type, ...]]:
    """(argument types, returned types) of region ``index``."""
    if len(ctx.regions) <= index:
        raise ctx.error(label, f"expects region #{index}")
    region: Region = ctx.regions[index]
    if not region.blocks or not region.blocks[0].operations:
        raise ctx.error(label, f"region #{index} has no terminator")
    block = region.blocks[0]
    return (
        tuple(v.type for v in block.arguments),
        tuple(v.type for v in block.operations[-1].operands),
    )


def _body_types(
    ctx: ShapeContext,
    label: str,
    inputs: Sequence[Type],
    inits: Sequence[Type] | None = None,
    allowed: Sequence[int | None] | None = None,
) -> tuple[Type, ...]:
    """Check a reduce-style body ``(E0..EN-1, E0..EN-1) -> (E0..EN-1)`` with
    ``is_promotable(element_type(inputs[i]), Ei)``; return the ``Ei``.

    Like the StableHLO verifier (verifyReducerShape, TypeInference.cpp), the body may
    work on accumulators of rank > 0: the returned value's shape is the init value's,
    and an argument's dimensions are a subsequence of ``allowed`` (reduce: the result's
    dimensions; reduce_window: the window dimensions).  With ``allowed`` None, bodies
    are 0-d (or of the init value's shape)."""
    n = len(inputs)
    args, rets = _signature(ctx, 0, label)
    if len(args) != 2 * n:
        raise ctx.error(label, f"body must take {2 * n} arguments, takes {len(args)}")
    if len(rets) != n:
        raise ctx.error(label, f"body must return {n} values, returns {len(rets)}")
    es = []
    for i in range(n):
        a, b, r = args[i], args[n + i], rets[i]
        init = inits[i] if inits is not None else None
        init_shape = init.shape if isinstance(init, TensorType) else ()
        for t in (a, b, r):
            if not isinstance(t, TensorType) or t.shape is None:
                raise ctx.error(label, f"body types must be ranked tensors, got {t}")
            if allowed is None and t.shape != () and t.shape != init_shape:
                raise ctx.error(label, f"body types must be 0-dimensional tensors, got {t}")
        if not (a == b == r):
            raise ctx.error(label, f"body argument/result types #{i} differ: {a}, {b}, {r}")
        if not is_promotable(_elem(inputs[i]), _elem(a)):
            raise ctx.error(
                label, f"element type {_elem(inputs[i])} is not promotable to {_elem(a)}"
            )
        if isinstance(init, TensorType) and isinstance(r, TensorType) and not _shapes_ok(init, r):
            raise ctx.error(label, f"body result shape {r} differs from the init value's {init}")
        if allowed is not None:
            _check_subsequence(ctx, label, n + i, b, allowed)
        es.append(_elem(a))
    return tuple(es)


def _check_subsequence(
    ctx: ShapeContext, label: str, index: int, arg: Type, allowed: Sequence[int | None]
) -> None:
    """verifyReducerShape: the dimensions of body argument ``index`` match, in order, a
    subsequence of ``allowed`` (``?`` matches anything)."""
    shape = _shape(arg) or ()
    if len(shape) > len(allowed):
        raise ctx.error(
            label,
            f"the rank of the body's argument #{index} is expected to be <= {len(allowed)}, "
            f"got {len(shape)}",
        )
    k = 0
    for d in allowed:
        if k < len(shape) and _dims_ok(d, shape[k]):
            k += 1
    if k != len(shape):
        raise ctx.error(
            label,
            f"the shape of the body's argument #{index} is not compatible with the op's input",
        )


def _tensor(
    shape: tuple[int | None, ...] | None, e: Type, bounds: tuple | None = None
) -> TensorType:
    enc = None
    if bounds is not None and shape is not None and any(b is not None for b in bounds):
        enc = TypeExtensions(tuple(bounds))
    return TensorType(shape, e, enc)


def _int_tuple(v: Any) -> tuple[int, ...] | None:
    if v is None:
        return None
    return tuple(int(a) for a in np.asarray(v).reshape(-1))


def _padding(ctx: ShapeContext, label: str, padding: Any, rank: int) -> tuple[tuple[int, int], ...]:
    if padding is None:
        return ((0, 0),) * rank
    p = np.asarray(padding)
    if p.shape != (rank, 2) and not (rank == 0 and p.size == 0):
        raise ctx.error(label, f"padding must have shape [{rank}, 2], got {list(p.shape)}")
    return tuple((int(a), int(b)) for a, b in p.reshape(rank, 2))


def _num_windows(padded: int | None, window: int, stride: int) -> int | None:
    if padded is None:
        return None
    if padded <= 0 or window > padded:
        return 0
    return (padded - window) // stride + 1


# --------------------------------------------------------------------------------------
# reduce
# --------------------------------------------------------------------------------------


@shape_function(
    "stablehlo.reduce",
    result_labels=("reduce_c7", "reduce_c8"),
    attrs={"dimensions": REQUIRED},
    regions=("body",),
    multi_result=True,
)
def reduce_shape(ctx: ShapeContext, *operand_types: Type, dimensions: Sequence[int]):
    """spec "reduce" (C1)-(C8)."""
    if len(operand_types) % 2 or not operand_types:
        raise ctx.error("reduce_c3", "expects as many init values as inputs, and at least one")
    n = len(operand_types) // 2
    inputs, inits = operand_types[:n], operand_types[n:]
    tensors = require_tensors(ctx, *((t, "reduce_i1") for t in inputs))
    if ctx.result_types and len(ctx.result_types) != n:
        raise ctx.error(
            "reduce_c3", f"expects {n} results, got {len(ctx.result_types)}"
        )  # reduce_c3
    for t in tensors[1:]:
        if not _shapes_ok(tensors[0], t):
            raise ctx.error("reduce_c1", "all inputs must have the same shape")  # reduce_c1
    for x, v in zip(inputs, inits):
        if not isinstance(v, TensorType):
            raise ctx.error("reduce_i2", f"init values must be tensors, got {v}")
        if _elem(x) != _elem(v):
            raise ctx.error(
                "reduce_c2", f"input element type {_elem(x)} != init {_elem(v)}"
            )  # reduce_c2
    dims = tuple(int(d) for d in dimensions)
    shape = tensors[0].shape
    if shape is not None:
        for d in dims:
            if not 0 <= d < len(shape):
                raise ctx.error(
                    "reduce_c4", f"dimension {d} out of range [0, {len(shape)})"
                )  # reduce_c4
    if len(set(dims)) != len(dims):
        raise ctx.error("reduce_c5", f"dimensions {list(dims)} are not unique")  # reduce_c5
    allowed = None if shape is None else [s for i, s in enumerate(shape) if i not in dims]
    es = _body_types(ctx, "reduce_c6", inputs, inits, allowed)  # reduce_c6
    if shape is None:
        return tuple(_tensor(None, e) for e in es)
    out = tuple(s for i, s in enumerate(shape) if i not in dims)  # reduce_c7
    bounds = tensors[0].bounds
    b = tuple(x for i, x in enumerate(bounds) if i not in dims) if bounds else None
    return tuple(_tensor(out, e, b) for e in es)  # reduce_c8


# --------------------------------------------------------------------------------------
# reduce_window
# --------------------------------------------------------------------------------------


@shape_function(
    "stablehlo.reduce_window",
    # results[0]: (C15) num_windows; the others: (C14) same(shape(results...))
    result_labels=(
        ("reduce_window_c15", "reduce_window_c16"),
        ("reduce_window_c14", "reduce_window_c16"),
    ),
    attrs={
        "window_dimensions": REQUIRED,
        "window_strides": None,
        "base_dilations": None,
        "window_dilations": None,
        "padding": None,
    },
    regions=("body",),
    multi_result=True,
)
def reduce_window_shape(
    ctx: ShapeContext,
    *operand_types: Type,
    window_dimensions,
    window_strides=None,
    base_dilations=None,
    window_dilations=None,
    padding=None,
):
    """spec "reduce_window" (C1)-(C16)."""
    if len(operand_types) % 2 or not operand_types:
        raise ctx.error(
            "reduce_window_c1", "expects as many init values as inputs, and at least one"
        )
    n = len(operand_types) // 2
    inputs, inits = operand_types[:n], operand_types[n:]
    tensors = require_tensors(ctx, *((t, "reduce_window_i1") for t in inputs))
    if ctx.result_types and len(ctx.result_types) != n:
        raise ctx.error("reduce_window_c1", f"expects {n} results")  # reduce_window_c1
    for t in tensors[1:]:
        if not _shapes_ok(tensors[0], t):
            raise ctx.error(
                "reduce_window_c2", "all inputs must have the same shape"
            )  # reduce_window_c2
    for x, v in zip(inputs, inits):
        # reduce_window_i2 says 0-dimensional; upstream's verifier (verifyReducerShape)
        # accepts an init value of the shape of the body's accumulator: so do we.
        if not isinstance(v, TensorType):
            raise ctx.error("reduce_window_i2", f"init values must be tensors, got {v}")
        if _elem(x) != _elem(v):
            raise ctx.error("reduce_window_c3", f"input element type {_elem(x)} != init {_elem(v)}")
    shape = tensors[0].shape
    if shape is None:
        es = _body_types(ctx, "reduce_window_c13", inputs, inits)
        return tuple(_tensor(None, e) for e in es)
    rank = len(shape)
    wd = _int_tuple(window_dimensions)
    checks = (
        ("window_dimensions", wd, "reduce_window_c4", "reduce_window_c5"),
        ("window_strides", _int_tuple(window_strides), "reduce_window_c6", "reduce_window_c7"),
        ("base_dilations", _int_tuple(base_dilations), "reduce_window_c8", "reduce_window_c9"),
        (
            "window_dilations",
            _int_tuple(window_dilations),
            "reduce_window_c10",
            "reduce_window_c11",
        ),
    )
    vals: list[tuple[int, ...]] = []
    for name, given, size_label, pos_label in checks:
        sizes = (1,) * rank if given is None else given
        if len(sizes) != rank:
            raise ctx.error(size_label, f"{name} must have {rank} elements, got {len(sizes)}")
        if any(a <= 0 for a in sizes):
            raise ctx.error(pos_label, f"{name} must be positive, got {list(sizes)}")
        vals.append(sizes)
    wd, ws, bd, wdil = vals
    pad = _padding(ctx, "reduce_window_c12", padding, rank)  # reduce_window_c12
    es = _body_types(ctx, "reduce_window_c13", inputs, inits, wd)  # reduce_window_c13
    out: list[int | None] = []
    out_bounds: list[int | None] = []
    in_bounds = tensors[0].bounds or (None,) * rank
    for s, bound, w, st, b, d, (lo, hi) in zip(shape, in_bounds, wd, ws, bd, wdil, pad):
        # reduce_window_c15; a dynamic dimension's bound gives the number of windows'
        # bound (it grows with the dimension's size)
        size = bound if s is None else s
        windows = None
        if size is not None:
            dilated = 0 if size == 0 else (size - 1) * b + 1
            windows = _num_windows(lo + dilated + hi, (w - 1) * d + 1, st)
        out.append(windows if s is not None else None)
        out_bounds.append(windows if s is None else None)
    return tuple(_tensor(tuple(out), e, tuple(out_bounds)) for e in es)  # reduce_window_c14, c16


# --------------------------------------------------------------------------------------
# select_and_scatter
# --------------------------------------------------------------------------------------


@shape_function(
    "stablehlo.select_and_scatter",
    result_labels=("select_and_scatter_c11", "select_and_scatter_c12"),
    attrs={"window_dimensions": None, "window_strides": None, "padding": None},
    regions=("select", "scatter"),
)
def select_and_scatter_shape(
    ctx: ShapeContext,
    operand: Type,
    source: Type,
    init_value: Type,
    *,
    window_dimensions=None,
    window_strides=None,
    padding=None,
):
    """spec "select_and_scatter" (C1)-(C12)."""
    operand = require_tensor(ctx, operand, "select_and_scatter_i1")
    source = require_tensor(ctx, source, "select_and_scatter_i2")
    e = _elem(operand)
    if _elem(source) != e:
        raise ctx.error("select_and_scatter_c1", f"source element type {_elem(source)} != {e}")
    if not _is_scalar(init_value):
        raise ctx.error("select_and_scatter_i3", "init_value must be 0-dimensional")
    if _elem(init_value) != e:
        raise ctx.error(
            "select_and_scatter_c3", f"init_value element type {_elem(init_value)} != {e}"
        )
    # select: (E, E) -> i1
    args, rets = _signature(ctx, 0, "select_and_scatter_c9")
    want = TensorType((), e)
    if (
        len(args) != 2
        or any(not _is_scalar(a) or _elem(a) != e for a in args)
        or len(rets) != 1
        or (rets[0] != TensorType((), IntegerType(1)))
    ):
        raise ctx.error(
            "select_and_scatter_c9",  # select_and_scatter_c9
            f"select must have type ({want}, {want}) -> tensor<i1>",
        )
    args, rets = _signature(ctx, 1, "select_and_scatter_c10")
    if (
        len(args) != 2
        or len(rets) != 1
        or not all(_is_scalar(t) for t in (*args, *rets))
        or not (_elem(args[0]) == _elem(args[1]) == _elem(rets[0]))
    ):
        raise ctx.error(
            "select_and_scatter_c10", "scatter must have type (tensor<E>, tensor<E>) -> tensor<E>"
        )
    es = _elem(args[0])
    if not is_promotable(e, es):  # select_and_scatter_c10
        raise ctx.error("select_and_scatter_c10", f"{e} is not promotable to {es}")
    shape = operand.shape
    if shape is None:
        return _tensor(None, es)
    rank = len(shape)
    # an absent window_dimensions is an empty one (verifySelectAndScatterOp's
    # value_or({})): only a rank-0 operand takes it
    wd = _int_tuple(window_dimensions) or ()
    ws = _int_tuple(window_strides) or (1,) * rank
    if len(wd) != rank:
        raise ctx.error("select_and_scatter_c4", f"window_dimensions must have {rank} elements")
    if any(a <= 0 for a in wd):
        raise ctx.error("select_and_scatter_c5", "window_dimensions must be positive")
    if len(ws) != rank:
        raise ctx.error("select_and_scatter_c6", f"window_strides must have {rank} elements")
    if any(a <= 0 for a in ws):
        raise ctx.error("select_and_scatter_c7", "window_strides must be positive")
    pad = _padding(ctx, "select_and_scatter_c8", padding, rank)  # select_and_scatter_c8
    source_shape = source.shape
    if source_shape is not None:
        nw = [
            None if s is None else _num_windows(lo + s + hi, w, st)
            for s, w, st, (lo, hi) in zip(shape, wd, ws, pad)
        ]
        if len(source_shape) != rank or not all(_dims_ok(a, b) for a, b in zip(source_shape, nw)):
            raise ctx.error(
                "select_and_scatter_c2",  # select_and_scatter_c2
                f"source shape {list(source_shape)} != number of windows {nw}",
            )
    return TensorType(shape, es, operand.encoding)  # select_and_scatter_c11, c12


# --------------------------------------------------------------------------------------
# sort
# --------------------------------------------------------------------------------------


@shape_function(
    "stablehlo.sort",
    result_labels=("sort_c2", "sort_c2"),
    attrs={"dimension": -1, "is_stable": False},
    regions=("comparator",),
    multi_result=True,
)
def sort_shape(ctx: ShapeContext, *inputs: Type, dimension: int = -1, is_stable: bool = False):
    """spec "sort" (C1)-(C5)."""
    if not inputs:
        raise ctx.error("sort_c1", "expects at least one input")  # sort_c1
    tensors = require_tensors(ctx, *((t, "sort_i1") for t in inputs))
    for other in tensors[1:]:
        if not _shapes_ok(tensors[0], other):
            raise ctx.error("sort_c3", "all inputs must have the same shape")  # sort_c3
    first_shape = tensors[0].shape
    if first_shape is not None:
        r = len(first_shape)
        if not -r <= int(dimension) < r:
            raise ctx.error("sort_c4", f"dimension {dimension} out of range [{-r}, {r})")  # sort_c4
    args, rets = _signature(ctx, 0, "sort_c5")
    want = []
    for t in inputs:
        want += [TensorType((), _elem(t))] * 2
    if len(args) != len(want) or any(
        not _is_scalar(a) or _elem(a) != _elem(w) for a, w in zip(args, want)
    ):
        raise ctx.error("sort_c5", f"comparator arguments must be {[str(w) for w in want]}")
    if len(rets) != 1 or rets[0] != TensorType((), IntegerType(1)):
        raise ctx.error("sort_c5", "comparator must return tensor<i1>")  # sort_c5
    return tuple(inputs)  # sort_c2


# --------------------------------------------------------------------------------------
# map
# --------------------------------------------------------------------------------------


@shape_function("stablehlo.map", attrs={"dimensions": REQUIRED}, regions=("computation",))
def map_shape(ctx: ShapeContext, *inputs: Type, dimensions: Sequence[int]):
    """spec "map" (C1)-(C4)."""
    if not inputs:
        raise ctx.error("map_c2", "expects at least one input")  # map_c2
    tensors = require_tensors(ctx, *((t, "map_i1") for t in inputs))
    for t in tensors[1:]:
        if not _shapes_ok(tensors[0], t):
            raise ctx.error("map_c1", "all inputs must have the same shape")  # map_c1
    shape = tensors[0].shape
    if shape is not None and tuple(int(d) for d in dimensions) != tuple(range(len(shape))):
        raise ctx.error("map_c3", f"dimensions must be {list(range(len(shape)))}")  # map_c3
    args, rets = _signature(ctx, 0, "map_c4")
    if len(args) != len(inputs) or any(
        not _is_scalar(a) or _elem(a) != _elem(t) for a, t in zip(args, inputs)
    ):
        raise ctx.error("map_c4", "computation arguments must be 0-d tensors of the input types")
    if len(rets) != 1 or not _is_scalar(rets[0]):
        raise ctx.error("map_c4", "computation must return one 0-dimensional tensor")  # map_c4
    return TensorType(
        shape, _elem(rets[0]), tensors[0].encoding if shape is not None else None
    )  # map_c1
