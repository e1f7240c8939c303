"""chlo shape functions of the ops that are not elementwise: top_k, ragged_dot, scan
(source of truth: stablehlo docs/chlo.md; labels ``chlo.<op>.<what>`` as in ``chlo``).
"""

from __future__ import annotations

from typing import Any

from ..parser.ir import (
    DialectAttr,
    IntegerType,
    TensorType,
    Type,
)
from .chlo import check_elem, is_chlo_any, is_chlo_integer, merge_dim, tensor_operand
from .decode import decode_attribute
from .linalg import check_precision
from .optable import REQUIRED, ShapeContext, define_op
from .verifier import compatible

I1 = IntegerType(1)
I32 = IntegerType(32)

# --------------------------------------------------------------------------------------
# top_k
# --------------------------------------------------------------------------------------


def _top_k_shape(ctx: ShapeContext, operand: Type, *, k: int, is_stable: bool = False):
    """chlo.top_k: values and i32 indices of shape ``operand.shape[:-1] + [k]``."""
    t = tensor_operand(ctx, operand, "operand")
    check_elem(ctx, t, is_chlo_any, "operand", "float, bool, integer, complex or quantized")
    if k < 0:
        raise ctx.error("chlo.top_k.k", f"k must be non-negative, got {k}")  # chlo.top_k.k
    if t.shape is None:
        return (TensorType(None, t.element_type), TensorType(None, I32))
    if len(t.shape) < 1:  # chlo.top_k.rank
        raise ctx.error("chlo.top_k.rank", "operand's rank must be at least 1")
    last = t.shape[-1]
    if last is not None and last < k:  # chlo.top_k.k
        raise ctx.error(
            "chlo.top_k.k", f"operand's last dimension must be at least {k}, got {last}"
        )
    shape_ = tuple(t.shape[:-1]) + (k,)
    return (TensorType(shape_, t.element_type), TensorType(shape_, I32))


define_op(
    "chlo.top_k",
    _top_k_shape,
    attrs={"k": REQUIRED, "is_stable": False},
    multi_result=True,
)


# --------------------------------------------------------------------------------------
# ragged_dot
# --------------------------------------------------------------------------------------

RAGGED_FIELDS = (
    "lhs_batching_dimensions",
    "rhs_batching_dimensions",
    "lhs_contracting_dimensions",
    "rhs_contracting_dimensions",
    "lhs_ragged_dimensions",
    "rhs_group_dimensions",
)


def ragged_dot_fields(attr: Any) -> dict[str, tuple[int, ...]]:
    """The six dimension lists of a ``#chlo.ragged_dot<...>`` attribute, whatever form it
    arrives in (``DialectAttr``, a mapping, or a record with those fields).  Camel-case
    parameter names (``lhsBatchingDimensions``) are accepted too."""

    def get(name: str) -> Any:
        camel = name.split("_")[0] + "".join(w.title() for w in name.split("_")[1:])
        if isinstance(attr, DialectAttr):
            v = attr.get(name, attr.get(camel))
        elif isinstance(attr, dict):
            v = attr.get(name, attr.get(camel))
        else:
            v = getattr(attr, name, getattr(attr, camel, None))
        if v is None:
            return ()
        if not isinstance(v, tuple | list | int):
            v = decode_attribute(v)
        if isinstance(v, int):
            return (v,)
        return tuple(int(x) for x in v)

    return {name: get(name) for name in RAGGED_FIELDS}


def ragged_dot_mode(dims: dict[str, tuple[int, ...]], lhs_rank: int) -> int:
    """1: ragged non-contracting dim; 2: ragged contracting dim; 3: ragged batch dim."""
    r = dims["lhs_ragged_dimensions"][0]
    if r in dims["lhs_contracting_dimensions"]:
        return 2
    if r in dims["lhs_batching_dimensions"]:
        return 3
    return 1


def ragged_dot_result_shape(
    ctx: ShapeContext,
    lhs: tuple[int | None, ...],
    rhs: tuple[int | None, ...],
    group_sizes: tuple[int | None, ...],
    dims: dict[str, tuple[int, ...]],
) -> tuple[int | None, ...]:
    """Check the constraints of docs/chlo.md "chlo.ragged_dot" and infer the result shape:
    ``[g]`` (mode 2 only) + batch dims + lhs free dims + rhs free dims (rhs free dims exclude
    the group dimension)."""
    lb, rb = dims["lhs_batching_dimensions"], dims["rhs_batching_dimensions"]
    lc, rc = dims["lhs_contracting_dimensions"], dims["rhs_contracting_dimensions"]
    lr, rg = dims["lhs_ragged_dimensions"], dims["rhs_group_dimensions"]

    def err(what: str, msg: str) -> Exception:
        return ctx.error(f"chlo.ragged_dot.{what}", msg)

    if len(lb) != len(rb):
        raise err("batching_dimensions", "lhs and rhs must have the same number of batching dims")
    if len(lc) != len(rc):
        raise err(
            "contracting_dimensions", "lhs and rhs must have the same number of contracting dims"
        )
    if len(lr) != 1:
        raise err("ragged_dimensions", "there must be exactly one lhs ragged dimension")
    if len(rg) > 1:
        raise err("group_dimensions", "there can be at most one rhs group dimension")
    for side, rank, ds in (("lhs", len(lhs), lb + lc + lr), ("rhs", len(rhs), rb + rc + rg)):
        if any(d < 0 or d >= rank for d in ds):
            raise err("dimensions", f"{side} dimension out of range for rank {rank}")
    if len(set(lb + lc)) != len(lb + lc) or len(set(rb + rc + rg)) != len(rb + rc + rg):
        raise err("dimensions", "batching, contracting and group dimensions must be disjoint")
    for a, b in zip(lb + lc, rb + rc):
        if lhs[a] is not None and rhs[b] is not None and lhs[a] != rhs[b]:
            raise err(
                "dimensions",
                f"lhs dimension {a} ({lhs[a]}) and rhs dimension {b} "
                f"({rhs[b]}) must have the same size",
            )
    mode = ragged_dot_mode(dims, len(lhs))
    if mode == 1 and len(rg) != 1:
        raise err(
            "group_dimensions",
            "the rhs must have a group dimension when the lhs ragged dimension is a "
            "non-contracting dimension",
        )
    if mode != 1 and rg:
        raise err(
            "group_dimensions",
            "the rhs must not have a group dimension when the lhs ragged dimension is "
            "a batching or contracting dimension",
        )
    g = rhs[rg[0]] if rg else None
    if len(group_sizes) < 1:
        raise err("group_sizes", "group_sizes must have rank at least 1")
    gs_g = group_sizes[-1]
    if g is not None and gs_g is not None and g != gs_g:
        raise err(
            "group_sizes", f"group_sizes has {gs_g} groups but the rhs group dimension has size {g}"
        )
    g = g if g is not None else gs_g
    # Leading group_sizes dimensions: the lhs batching dims (mode 1 and 2).
    prefix = group_sizes[:-1]
    if prefix:
        want = [lhs[d] for d in lb]
        if (
            mode == 3
            or len(prefix) != len(want)
            or any(p is not None and w is not None and p != w for p, w in zip(prefix, want))
        ):
            raise err(
                "group_sizes",
                f"group_sizes shape {list(group_sizes)} must be [g] or the lhs batch "
                f"dimensions followed by [g]",
            )
    lfree = [lhs[d] for d in range(len(lhs)) if d not in lb and d not in lc]
    rfree = [rhs[d] for d in range(len(rhs)) if d not in rb and d not in rc and d not in rg]
    batch = [merge_dim(lhs[a], rhs[b]) for a, b in zip(lb, rb)]
    out = batch + lfree + rfree
    if mode == 2:
        out = [g] + out
    return tuple(out)


def _ragged_dot_shape(
    ctx: ShapeContext,
    lhs: Type,
    rhs: Type,
    group_sizes: Type,
    *,
    ragged_dot_dimension_numbers: Any,
    precision_config: Any = None,
) -> Type | None:
    """chlo.ragged_dot (docs/chlo.md): modes 1-3; the result element type is declared."""
    a = tensor_operand(ctx, lhs, "lhs")
    b = tensor_operand(ctx, rhs, "rhs")
    gs = tensor_operand(ctx, group_sizes, "group_sizes")
    check_elem(ctx, gs, is_chlo_integer, "group_sizes", "integer")
    # inferRaggedDotOp -> hlo::verifyPrecisionConfig (ChloOps.cpp, TypeInference.cpp)
    check_precision(ctx, "chlo.ragged_dot.precision_config", tuple(precision_config or ()))
    dims = ragged_dot_fields(ragged_dot_dimension_numbers)
    if a.shape is None or b.shape is None or gs.shape is None:
        return None
    shape_ = ragged_dot_result_shape(ctx, a.shape, b.shape, gs.shape, dims)
    if not ctx.result_types or not isinstance(ctx.result_types[0], TensorType):
        return None
    return TensorType(shape_, ctx.result_types[0].element_type)


define_op(
    "chlo.ragged_dot",
    _ragged_dot_shape,
    attrs={"ragged_dot_dimension_numbers": REQUIRED, "precision_config": None},
)


# --------------------------------------------------------------------------------------
# scan
# --------------------------------------------------------------------------------------


def scan_num_inputs(
    operand_types: tuple[Type, ...],
    block_arg_types: tuple[Type, ...] | None,
    operand_segment_sizes: tuple[int, ...] | None,
) -> int | None:
    """How many of the scan's operands are ``inputs`` (the rest are ``inits``).

    From ``operandSegmentSizes`` when the op carries it; otherwise from the body: an
    input's block argument is a slice of it (one rank less), an init's block argument
    has the init's own type."""
    if operand_segment_sizes is not None and len(operand_segment_sizes) == 2:
        return int(operand_segment_sizes[0])
    if block_arg_types is None or len(block_arg_types) != len(operand_types):
        return None
    n = 0
    for ot, bt in zip(operand_types, block_arg_types):
        if not (isinstance(ot, TensorType) and isinstance(bt, TensorType)) or (
            ot.shape is None or bt.shape is None
        ):
            return None
        if len(bt.shape) == len(ot.shape) - 1:
            n += 1
        else:
            break
    return n


def _check_scan_body(
    ctx: ShapeContext,
    inputs: tuple[Type, ...],
    inits: tuple[Type, ...],
    block_types: tuple[Type, ...] | None,
    dimension: int,
) -> None:
    """ScanOp::verify: body argument i is compatible with operand i, an input's
    without its scanned dimension."""
    if block_types is None:
        return
    for i, (t, arg) in enumerate(zip(inputs + inits, block_types)):
        if not (isinstance(t, TensorType) and isinstance(arg, TensorType)):
            continue
        shape = t.shape
        if i < len(inputs) and shape is not None:
            shape = shape[:dimension] + shape[dimension + 1 :]
        if not compatible(
            TensorType(shape, t.element_type), TensorType(arg.shape, arg.element_type)
        ):
            raise ctx.error("chlo.scan.body", f"operand and body argument {i} are incompatible")


def _check_scan_returned(
    ctx: ShapeContext,
    returned: tuple[Type, ...],
    results: tuple[Type, ...],
    n_carries: int,
    dimension: int,
    size: int | None,
) -> None:
    """ScanOp::inferReturnTypeComponents (ChloOps.cpp): the body returns at least one
    value per carry; result i has the shape of returned value i, with the scanned
    dimension inserted for outputs; InferTensorType compares shapes with the results."""
    if len(returned) < n_carries:
        raise ctx.error("chlo.scan.body", f"body must return at least {n_carries} values (carries)")
    if len(returned) != len(results):
        raise ctx.error(
            "chlo.scan.results",
            f"body returns {len(returned)} values but the op has {len(results)} results",
        )
    n_out = len(returned) - n_carries
    for i, (ret, res) in enumerate(zip(returned, results)):
        if not (isinstance(ret, TensorType) and isinstance(res, TensorType)):
            continue
        if ret.shape is None or res.shape is None:
            continue
        shape = ret.shape
        if i < n_out:
            if dimension > len(shape):
                raise ctx.error(
                    "chlo.scan.dimension", f"dimension {dimension} is out of range for output {i}"
                )
            shape = shape[:dimension] + (size,) + shape[dimension:]
        if not compatible(
            TensorType(shape, res.element_type), TensorType(res.shape, res.element_type)
        ):
            raise ctx.error(
                "chlo.scan.results",
                f"result #{i} type {res} is incompatible with the body's returned {ret}",
            )


def _scan_shape(
    ctx: ShapeContext,
    *operands: Type,
    dimension: int,
    is_reverse: bool = False,
    is_associative: bool | None = None,
    scan_dim_size: int | None = None,
    operandSegmentSizes: tuple[int, ...] | None = None,  # noqa: N803 (MLIR's name)
    resultSegmentSizes: tuple[int, ...] | None = None,  # noqa: N803
) -> None:
    """chlo.scan (docs/chlo.md): ``body(input slices..., carries...) -> (output slices...,
    carries...)`` along ``dimension``; carries keep the inits' types."""
    block_types = None
    returned: tuple[Type, ...] | None = None
    if ctx.regions:
        region = ctx.regions[0]
        if region.blocks:
            block_types = tuple(v.type for v in region.blocks[0].arguments)
            if region.blocks[0].operations:
                returned = tuple(v.type for v in region.blocks[0].operations[-1].operands)
    if block_types is not None and len(block_types) != len(operands):  # ScanOp::verify
        raise ctx.error(
            "chlo.scan.body",
            f"expects {len(operands)} arguments in the body, but got {len(block_types)}",
        )
    n_in = scan_num_inputs(operands, block_types, operandSegmentSizes)
    if n_in is None:
        return None
    inputs, inits = operands[:n_in], operands[n_in:]
    if not inputs and len(ctx.result_types) == len(inits):  # ScanOp::verify
        raise ctx.error("chlo.scan.empty", "at least one of inputs or outputs must be present")
    if dimension < 0:
        raise ctx.error("chlo.scan.dimension", f"dimension must be non-negative, got {dimension}")
    if scan_dim_size is not None and scan_dim_size < 0:  # ConfinedAttr<I64Attr, [IntNonNegative]>
        raise ctx.error(
            "chlo.scan.dimension", f"scan_dim_size must be non-negative, got {scan_dim_size}"
        )
    size: int | None = scan_dim_size
    for t in inputs:
        if not isinstance(t, TensorType) or t.shape is None:
            continue
        if dimension >= len(t.shape):  # chlo.scan.dimension
            raise ctx.error(
                "chlo.scan.dimension",
                f"dimension {dimension} is out of range for input of rank {len(t.shape)}",
            )
        d = t.shape[dimension]
        if size is not None and d is not None and d != size:
            raise ctx.error("chlo.scan.inputs", "inputs must have one size along dimension")
        size = merge_dim(size, d)
    _check_scan_body(ctx, inputs, inits, block_types, dimension)
    results = ctx.result_types
    if len(results) < len(inits):
        raise ctx.error("chlo.scan.results", "there must be one carry result per init")
    if returned is not None:
        _check_scan_returned(ctx, returned, results, len(inits), dimension, size)
    n_out = len(results) - len(inits)
    for i, (init, carry) in enumerate(zip(inits, results[n_out:])):
        if (
            isinstance(init, TensorType)
            and isinstance(carry, TensorType)
            and (
                init.element_type != carry.element_type
                or (
                    init.shape is not None
                    and carry.shape is not None
                    and len(init.shape) != len(carry.shape)
                )
            )
        ):
            raise ctx.error(
                "chlo.scan.carries", f"carry #{i} type {carry} does not match init type {init}"
            )
    for r in results[:n_out]:
        if isinstance(r, TensorType) and r.shape is not None:
            if dimension >= len(r.shape):
                raise ctx.error(
                    "chlo.scan.dimension", f"dimension {dimension} is out of range for output {r}"
                )
            d = r.shape[dimension]
            if d is not None and size is not None and d != size:
                raise ctx.error(
                    "chlo.scan.outputs",
                    f"outputs must have size {size} along dimension {dimension}, got {d}",
                )
    return None


define_op(
    "chlo.scan",
    _scan_shape,
    attrs={
        "dimension": REQUIRED,
        "is_reverse": False,
        "is_associative": None,
        "scan_dim_size": None,
        "operandSegmentSizes": None,
        "resultSegmentSizes": None,
    },
    regions=("body",),
    multi_result=True,
)
