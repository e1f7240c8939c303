"""linalg shape functions and verifiers (spec: see each function).

dot_general, dot, convolution, dynamic_conv, fft, triangular_solve, cholesky,
batch_norm_inference, batch_norm_training, batch_norm_grad.

Where the spec lets the result element type differ from the operands' (dot_general,
convolution: e.g. ``i8 x i8 -> i32``), the inferred type takes its element type from
the declared result and the shape from the spec's formula, so the verifier's
compatibility check compares the shapes.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np

from ..parser.ir import (
    ComplexType,
    FloatType,
    IntegerType,
    QuantizedType,
    TensorType,
    Type,
    TypeExtensions,
)
from .dot_algorithm import check_dot_algorithm
from .optable import REQUIRED, ShapeContext, shape_function
from .quantization import check_quantized_contraction
from .typeutil import require_per_tensor, require_tensor, require_tensors

# --------------------------------------------------------------------------------------
# helpers
# --------------------------------------------------------------------------------------


def _elem(t: Type) -> Type:
    return t.element_type if isinstance(t, TensorType) else t


def _baseline_elem(t: Type) -> Type:
    """baseline_element_type: the expressed type's storage-free form for quantized
    types (compared by storage + expressed type), the element type otherwise."""
    e = _elem(t)
    if isinstance(e, QuantizedType):
        return QuantizedType(e.storage_type, e.expressed_type, (), (), None, None, None)
    return e


def _shape(t: Type) -> tuple[int | None, ...] | None:
    """The dimensions of ``t`` when it is a ranked tensor type, else None."""
    return t.shape if isinstance(t, TensorType) else None


def _dims_compatible(a: int | None, b: int | None) -> bool:
    return a is None or b is None or a == b


def _shapes_compatible(a: Sequence[int | None], b: Sequence[int | None]) -> bool:
    return len(a) == len(b) and all(_dims_compatible(x, y) for x, y in zip(a, b))


def _bounds(t: TensorType) -> tuple[int | None, ...]:
    """The bound of each dimension of a ranked tensor (None where it has none)."""
    b = t.bounds
    return tuple(b) if b is not None else (None,) * t.rank


def _bounded(shape: Sequence[int | None], elem: Type, bounds: Sequence[int | None]) -> TensorType:
    """``tensor<shape x elem>`` carrying ``bounds`` on its dynamic dimensions
    (``#stablehlo.bounds``; none when no dynamic dimension has a bound)."""
    kept = tuple(b if d is None else None for d, b in zip(shape, bounds))
    encoding = TypeExtensions(kept) if any(b is not None for b in kept) else None
    return TensorType(tuple(shape), elem, encoding)


def _merge_dim(
    a: int | None, abound: int | None, b: int | None, bbound: int | None
) -> tuple[int | None, int | None]:
    """The most specific (size, bound) of two compatible dimensions."""
    if a is not None:
        return a, None
    if b is not None:
        return b, None
    given = [x for x in (abound, bbound) if x is not None]
    return None, min(given) if given else None


def _declared(ctx: ShapeContext, i: int = 0) -> Type | None:
    return ctx.result_types[i] if len(ctx.result_types) > i else None


def _declared_elem(ctx: ShapeContext) -> Type | None:
    """The element type of the declared (first) result; None when none is declared."""
    d = _declared(ctx)
    return _elem(d) if d is not None else None


def _result_elem(ctx: ShapeContext, default: Type, i: int = 0) -> Type:
    d = _declared(ctx, i)
    return _elem(d) if isinstance(d, TensorType) else default


def _is_float(t: Type) -> bool:
    return isinstance(_elem(t), FloatType)


def _is_complex(t: Type) -> bool:
    return isinstance(_elem(t), ComplexType)


def _unique(xs: Sequence[int]) -> bool:
    return len(set(xs)) == len(xs)


def _check_quantized_combo(ctx: ShapeContext, label: str, le: Type, re_: Type) -> None:
    """dot_general_c14 / convolution_c28: is_quantized(lhs) = is_quantized(result) and
    is_quantized(rhs)."""
    d = _declared(ctx)
    res_q = isinstance(_elem(d), QuantizedType) if d is not None else isinstance(le, QuantizedType)
    if isinstance(le, QuantizedType) != (res_q and isinstance(re_, QuantizedType)):
        raise ctx.error(
            label, "is_quantized(lhs) must equal is_quantized(result) and is_quantized(rhs)"
        )


_PRECISIONS = ("DEFAULT", "HIGH", "HIGHEST")


def check_precision(ctx: ShapeContext, label: str, precision_config: Sequence[object]) -> None:
    """precision_config: at most 2 of DEFAULT / HIGH / HIGHEST (the spec says exactly
    2; MLIR's verifier, which the verifier suite follows, accepts 0, 1 or 2)."""
    if len(precision_config) > 2:
        raise ctx.error(
            label,
            f"expects precision config to be empty or have <= 2 elements, got {len(precision_config)}",
        )
    for p in precision_config:
        if p not in _PRECISIONS:
            raise ctx.error(label, f"'precision_config' failed to satisfy constraint: {p!r}")


# --------------------------------------------------------------------------------------
# dot_general / dot
# --------------------------------------------------------------------------------------


@shape_function(
    "stablehlo.dot_general",
    result_labels=("dot_general_c12", "dot_general_c12"),
    attrs={
        "lhs_batching_dimensions": (),
        "rhs_batching_dimensions": (),
        "lhs_contracting_dimensions": (),
        "rhs_contracting_dimensions": (),
        "precision_config": (),
        "algorithm": None,
    },
)
def dot_general(
    ctx: ShapeContext,
    lhs: Type,
    rhs: Type,
    *,
    lhs_batching_dimensions: Sequence[int] = (),
    rhs_batching_dimensions: Sequence[int] = (),
    lhs_contracting_dimensions: Sequence[int] = (),
    rhs_contracting_dimensions: Sequence[int] = (),
    precision_config: Sequence[str] = (),
    algorithm: object = None,
) -> Type | None:
    """spec: dot_general (C1-C12, C14-C24; C13 is not enforced, as upstream)."""
    lt, rt = require_tensors(ctx, (lhs, "dot_general_i1"), (rhs, "dot_general_i2"))
    require_per_tensor(ctx, lt, "dot_general_i1")
    lb, rb = tuple(lhs_batching_dimensions), tuple(rhs_batching_dimensions)
    lc, rc = tuple(lhs_contracting_dimensions), tuple(rhs_contracting_dimensions)
    if len(lb) != len(rb):  # dot_general_c1
        raise ctx.error(
            "dot_general_c1", "lhs and rhs should have the same number of batching dimensions"
        )
    if len(lc) != len(rc):  # dot_general_c2
        raise ctx.error(
            "dot_general_c2", "lhs and rhs should have the same number of contracting dimensions"
        )
    if not _unique(lb + lc):  # dot_general_c3
        raise ctx.error(
            "dot_general_c3",
            "has duplicated dimension from lhs_batching_dimensions and lhs_contracting_dimensions",
        )
    if not _unique(rb + rc):  # dot_general_c4
        raise ctx.error(
            "dot_general_c4",
            "has duplicated dimension from rhs_batching_dimensions and rhs_contracting_dimensions",
        )
    check_precision(ctx, "dot_general_c11", precision_config)
    check_dot_algorithm(ctx, algorithm, precision_config)
    ls, rs = lt.shape, rt.shape
    if ls is None or rs is None:
        return None
    for d in lb:
        if not 0 <= d < len(ls):  # dot_general_c5
            raise ctx.error("dot_general_c5", f"lhs_batching_dimensions value {d} out of range")
    for d in lc:
        if not 0 <= d < len(ls):  # dot_general_c6
            raise ctx.error("dot_general_c6", f"lhs_contracting_dimensions value {d} out of range")
    for d in rb:
        if not 0 <= d < len(rs):  # dot_general_c7
            raise ctx.error("dot_general_c7", f"rhs_batching_dimensions value {d} out of range")
    for d in rc:
        if not 0 <= d < len(rs):  # dot_general_c8
            raise ctx.error("dot_general_c8", f"rhs_contracting_dimensions value {d} out of range")
    for a, b in zip(lb, rb):
        if not _dims_compatible(ls[a], rs[b]):  # dot_general_c9
            raise ctx.error("dot_general_c9", "batching dimension sizes must match for lhs/rhs")
    for a, b in zip(lc, rc):
        if not _dims_compatible(ls[a], rs[b]):  # dot_general_c10
            raise ctx.error("dot_general_c10", "contracting dimension sizes must match for lhs/rhs")
    le, re_ = _elem(lhs), _elem(rhs)
    # dot_general_c13 (same non-quantized element types) is not enforced: upstream's
    # verifier does not check it (TypeInference.cpp verifyDotGeneralOp), and JAX emits
    # mixed ones (f32 x i32 in its TPU svd); the kernel computes in the result type.
    _check_quantized_combo(ctx, "dot_general_c14", le, re_)
    if isinstance(re_, QuantizedType):
        if any(z != 0 for z in re_.zero_points):  # dot_general_c15
            raise ctx.error("dot_general_c15", "zero points of rhs must be 0")
        if re_.quantized_dimension is not None and re_.quantized_dimension in rc:
            raise ctx.error(  # dot_general_c16
                "dot_general_c16",
                "quantization dimension of rhs must not be a contracting dimension of rhs",
            )
    check_quantized_contraction(
        ctx,
        ("dot_general_c17", "dot_general_c18", "dot_general_c19", "dot_general_c20"),
        le,
        re_,
        _declared_elem(ctx),
    )
    # dot_general_c12: shape(result) = batch + lhs free + rhs free (with their bounds)
    lbd, rbd = _bounds(lt), _bounds(rt)
    dims = [_merge_dim(ls[a], lbd[a], rs[b], rbd[b]) for a, b in zip(lb, rb)]
    dims += [(ls[d], lbd[d]) for d in range(len(ls)) if d not in lb and d not in lc]
    dims += [(rs[d], rbd[d]) for d in range(len(rs)) if d not in rb and d not in rc]
    elem = _result_elem(ctx, le)
    return _bounded([d for d, _ in dims], elem, [b for _, b in dims])


@shape_function("stablehlo.dot", attrs={"precision_config": ()})
def dot(
    ctx: ShapeContext, lhs: Type, rhs: Type, *, precision_config: Sequence[str] = ()
) -> Type | None:
    """Legacy stablehlo.dot: (vector|matrix) x (vector|matrix), contracting the last
    dimension of lhs with the first of rhs."""
    lt, rt = require_tensors(ctx, (lhs, "dot_i1"), (rhs, "dot_i2"))
    require_per_tensor(ctx, lt, "dot_i1")
    check_precision(ctx, "dot_general_c11", precision_config)
    ls, rs = lt.shape, rt.shape
    if ls is None or rs is None:
        return None
    if len(ls) not in (1, 2) or len(rs) not in (1, 2):
        raise ctx.error("dot_c1", "expects lhs and rhs of rank 1 or 2")
    if not _dims_compatible(ls[-1], rs[0]):
        raise ctx.error("dot_c2", "contracting dimension sizes must match for lhs/rhs")
    # no element-type check, as upstream's verifyDotOp (see dot_general above)
    shape = tuple(ls[:-1]) + tuple(rs[1:])
    bounds = _bounds(lt)[:-1] + _bounds(rt)[1:]
    return _bounded(shape, _result_elem(ctx, _elem(lhs)), bounds)


# --------------------------------------------------------------------------------------
# convolution / dynamic_conv
# --------------------------------------------------------------------------------------

_CONV_ATTRS = {
    "window_strides": None,
    "lhs_dilation": None,
    "rhs_dilation": None,
    "window_reversal": None,
    "input_batch_dimension": REQUIRED,
    "input_feature_dimension": REQUIRED,
    "input_spatial_dimensions": REQUIRED,
    "kernel_input_feature_dimension": REQUIRED,
    "kernel_output_feature_dimension": REQUIRED,
    "kernel_spatial_dimensions": REQUIRED,
    "output_batch_dimension": REQUIRED,
    "output_feature_dimension": REQUIRED,
    "output_spatial_dimensions": REQUIRED,
    "feature_group_count": 1,
    "batch_group_count": 1,
    "precision_config": (),
}


def conv_num_windows(
    size: int | None,
    kernel: int | None,
    stride: int,
    lo: int | None,
    hi: int | None,
    lhs_dil: int,
    rhs_dil: int,
) -> int | None:
    """spec: convolution (C25): num_windows of one spatial dimension (None = dynamic)."""
    if size is None or kernel is None or lo is None or hi is None:
        return None
    dilated = 0 if size == 0 else (size - 1) * lhs_dil + 1
    padded = lo + dilated + hi
    window = 0 if kernel == 0 else (kernel - 1) * rhs_dil + 1
    if padded <= 0 or window > padded:
        return 0
    return (padded - window) // stride + 1


def _conv_shape(
    ctx: ShapeContext,
    op: str,
    lhs: TensorType,
    rhs: TensorType,
    padding: np.ndarray | None,
    padding_shape: Sequence[int | None] | None,
    *,
    window_strides,
    lhs_dilation,
    rhs_dilation,
    window_reversal,
    input_batch_dimension,
    input_feature_dimension,
    input_spatial_dimensions,
    kernel_input_feature_dimension,
    kernel_output_feature_dimension,
    kernel_spatial_dimensions,
    output_batch_dimension,
    output_feature_dimension,
    output_spatial_dimensions,
    feature_group_count,
    batch_group_count,
    precision_config,
) -> Type | None:
    """spec: convolution / dynamic_conv constraints C1-C34 (labels ``<op>_cN``)."""
    ls, rs = lhs.shape, rhs.shape
    if ls is None or rs is None:
        return None
    n = len(ls)
    if n != len(rs):  # C1
        raise ctx.error(f"{op}_c1", f"expects lhs and rhs of equal rank, got {n} and {len(rs)}")
    if n < 2:
        raise ctx.error(f"{op}_c1", "expects operands of rank >= 2")
    s = n - 2
    strides = tuple(window_strides) if window_strides is not None else (1,) * s
    ldil = tuple(lhs_dilation) if lhs_dilation is not None else (1,) * s
    rdil = tuple(rhs_dilation) if rhs_dilation is not None else (1,) * s
    if len(strides) != s:  # C2
        raise ctx.error(f"{op}_c2", f"expects window_strides to have {s} elements")
    if any(v <= 0 for v in strides):  # C3
        raise ctx.error(f"{op}_c3", "expects window_strides to be positive")
    if padding_shape is not None and not _shapes_compatible(padding_shape, (s, 2)):  # C4
        raise ctx.error(f"{op}_c4", f"expects padding to have shape [{s}, 2]")
    if len(ldil) != s:  # C5
        raise ctx.error(f"{op}_c5", f"expects lhs_dilation to have {s} elements")
    if any(v <= 0 for v in ldil):  # C6
        raise ctx.error(f"{op}_c6", "expects lhs_dilation to be positive")
    if len(rdil) != s:  # C7
        raise ctx.error(f"{op}_c7", f"expects rhs_dilation to have {s} elements")
    if any(v <= 0 for v in rdil):  # C8
        raise ctx.error(f"{op}_c8", "expects rhs_dilation to be positive")
    if window_reversal is not None and len(window_reversal) != s:  # C9
        raise ctx.error(f"{op}_c9", f"expects window_reversal to have {s} elements")
    if len(input_spatial_dimensions) != s:  # C12
        raise ctx.error(f"{op}_c12", f"expects {s} input spatial dimensions")
    in_dims = [input_batch_dimension, *input_spatial_dimensions, input_feature_dimension]
    if not _unique(in_dims) or any(not 0 <= d < n for d in in_dims):  # C13
        raise ctx.error(f"{op}_c13", "input dimension numbers must be unique and in [0, N)")
    if len(kernel_spatial_dimensions) != s:  # C17
        raise ctx.error(f"{op}_c17", f"expects {s} kernel spatial dimensions")
    k_dims = [
        *kernel_spatial_dimensions,
        kernel_input_feature_dimension,
        kernel_output_feature_dimension,
    ]
    if not _unique(k_dims) or any(not 0 <= d < n for d in k_dims):  # C18
        raise ctx.error(f"{op}_c18", "kernel dimension numbers must be unique and in [0, N)")
    if len(output_spatial_dimensions) != s:  # C19
        raise ctx.error(f"{op}_c19", f"expects {s} output spatial dimensions")
    o_dims = [output_batch_dimension, *output_spatial_dimensions, output_feature_dimension]
    if not _unique(o_dims) or any(not 0 <= d < n for d in o_dims):  # C20
        raise ctx.error(f"{op}_c20", "output dimension numbers must be unique and in [0, N)")
    if feature_group_count <= 0:  # C21
        raise ctx.error(f"{op}_c21", "feature_group_count must be positive")
    if batch_group_count <= 0:  # C22
        raise ctx.error(f"{op}_c22", "batch_group_count must be positive")
    if feature_group_count != 1 and batch_group_count != 1:  # C23
        raise ctx.error(
            f"{op}_c23", "feature_group_count and batch_group_count cannot both exceed 1"
        )
    check_precision(ctx, f"{op}_c24", precision_config)
    batch = ls[input_batch_dimension]
    feat = ls[input_feature_dimension]
    kin = rs[kernel_input_feature_dimension]
    kout = rs[kernel_output_feature_dimension]
    if batch is not None and batch % batch_group_count:  # C10
        raise ctx.error(f"{op}_c10", "input batch dimension must be divisible by batch_group_count")
    if feat is not None and feat % feature_group_count:  # C11
        raise ctx.error(
            f"{op}_c11", "input feature dimension must be divisible by feature_group_count"
        )
    if feat is not None and kin is not None and kin != feat // feature_group_count:  # C14
        raise ctx.error(
            f"{op}_c14",
            "kernel input feature dimension must equal input feature dimension / feature_group_count",
        )
    if kout is not None and kout % batch_group_count:  # C15
        raise ctx.error(
            f"{op}_c15", "kernel output feature dimension must be divisible by batch_group_count"
        )
    if kout is not None and kout % feature_group_count:  # C16
        raise ctx.error(
            f"{op}_c16", "kernel output feature dimension must be divisible by feature_group_count"
        )
    le, re_ = _elem(lhs), _elem(rhs)
    if not isinstance(le, QuantizedType) and not isinstance(re_, QuantizedType) and le != re_:
        raise ctx.error(f"{op}_c27", f"lhs and rhs element types differ: {le} vs {re_}")  # C27
    _check_quantized_combo(ctx, f"{op}_c28", le, re_)
    res = _declared_elem(ctx)
    if isinstance(re_, QuantizedType) and re_.quantized_dimension not in (
        None,
        kernel_output_feature_dimension,
    ):  # C29
        raise ctx.error(
            f"{op}_c29", "quantization dimension of rhs must be kernel_output_feature_dimension"
        )
    if isinstance(res, QuantizedType) and res.quantized_dimension not in (
        None,
        output_feature_dimension,
    ):  # C30
        raise ctx.error(
            f"{op}_c30", "quantization dimension of result must be output_feature_dimension"
        )
    check_quantized_contraction(
        ctx, (f"{op}_c31", f"{op}_c32", f"{op}_c33", f"{op}_c34"), le, re_, res
    )
    # C25 / C26: the result shape
    out: list[int | None] = [None] * n
    out[output_batch_dimension] = None if batch is None else batch // batch_group_count
    out[output_feature_dimension] = kout
    for i in range(s):
        lo = hi = None
        if padding is not None:
            lo, hi = int(padding[i][0]), int(padding[i][1])
        elif padding_shape is None:
            lo = hi = 0
        out[output_spatial_dimensions[i]] = conv_num_windows(
            ls[input_spatial_dimensions[i]],
            rs[kernel_spatial_dimensions[i]],
            strides[i],
            lo,
            hi,
            ldil[i],
            rdil[i],
        )
    return TensorType(tuple(out), _result_elem(ctx, le))


@shape_function(
    "stablehlo.convolution",
    result_labels=("convolution_c25", "convolution_c25", "convolution_c26"),
    attrs={**_CONV_ATTRS, "padding": None},
)
def convolution(ctx: ShapeContext, lhs: Type, rhs: Type, *, padding=None, **attrs) -> Type | None:
    """spec: convolution (C1-C34)."""
    lt, rt = require_tensors(ctx, (lhs, "convolution_i1"), (rhs, "convolution_i2"))
    require_per_tensor(ctx, lt, "convolution_i1")
    pad = None
    pad_shape = None
    if padding is not None:
        pad = np.asarray(padding)
        pad_shape = pad.shape
        if pad.ndim != 2:  # convolution_c4
            raise ctx.error("convolution_c4", "expects padding to be a 2-D tensor")
    return _conv_shape(ctx, "convolution", lt, rt, pad, pad_shape, **attrs)


@shape_function(
    "stablehlo.dynamic_conv",
    result_labels=("dynamic_conv_c25", "dynamic_conv_c25", "dynamic_conv_c26"),
    attrs=dict(_CONV_ATTRS),
)
def dynamic_conv(ctx: ShapeContext, lhs: Type, rhs: Type, padding: Type, **attrs) -> Type | None:
    """spec: dynamic_conv: as convolution with ``padding`` an operand (spatial result
    dimensions are then dynamic unless the declared result gives them)."""
    lt, rt, pt = require_tensors(
        ctx, (lhs, "dynamic_conv_i1"), (rhs, "dynamic_conv_i2"), (padding, "dynamic_conv_i3")
    )
    require_per_tensor(ctx, lt, "dynamic_conv_i1")
    pshape = pt.shape
    pe = pt.element_type
    # dynamic_conv_i3: "2-dimensional tensor of integer type" (ODS HLO_Static2DIntTensor)
    if not isinstance(pe, IntegerType) or pe.is_bool:
        raise ctx.error("dynamic_conv_i3", f"expects padding of integer type, got {pe}")
    if pshape is not None and None in pshape:
        raise ctx.error("dynamic_conv_i3", f"expects a statically shaped padding, got {pt}")
    if pshape is not None and len(pshape) != 2:  # dynamic_conv_c4
        raise ctx.error("dynamic_conv_c4", "expects padding to be a 2-D tensor")
    return _conv_shape(ctx, "dynamic_conv", lt, rt, None, pshape or (None, None), **attrs)


# --------------------------------------------------------------------------------------
# fft
# --------------------------------------------------------------------------------------


@shape_function("stablehlo.fft", attrs={"fft_type": REQUIRED, "fft_length": REQUIRED})
def fft(
    ctx: ShapeContext, operand: Type, *, fft_type: str, fft_length: Sequence[int]
) -> Type | None:
    """spec: fft (C1-C5).  The result keeps the operand's dimensions and bounds (C5),
    except the trailing ``size(fft_length)`` ones of RFFT / IRFFT, which (C4) fixes to
    ``fft_length`` on the real side: RFFT's last is ``fft_length[-1] / 2 + 1``."""
    t = require_tensor(ctx, operand, "fft_i1")
    length = tuple(int(v) for v in fft_length)
    if not 1 <= len(length) <= 3:  # fft_c3
        raise ctx.error("fft_c3", f"fft_length must have 1 to 3 elements, got {len(length)}")
    if t.shape is None:
        return None
    shape = tuple(t.shape)
    if len(length) > len(shape):  # fft_c1
        raise ctx.error("fft_c1", "operand rank must not be less than fft_length size")
    e = _elem(operand)
    tail = len(length)
    if fft_type in ("FFT", "IFFT"):
        if not isinstance(e, ComplexType):  # fft_c2
            raise ctx.error("fft_c2", f"{fft_type} takes a complex operand, got {e}")
        return TensorType(shape, e, t.encoding)  # fft_c5
    bounds = _bounds(t)
    if fft_type == "RFFT":
        if not isinstance(e, FloatType) or e.name not in ("f32", "f64"):  # fft_c2
            raise ctx.error("fft_c2", f"RFFT takes an f32 or f64 operand, got {e}")
        if not _shapes_compatible(shape[-tail:], length):  # fft_c4
            raise ctx.error(
                "fft_c4", f"RFFT operand trailing dimensions must equal fft_length {list(length)}"
            )
        out_last = 0 if length[-1] == 0 else length[-1] // 2 + 1  # fft_c5
        return _bounded(shape[:-tail] + length[:-1] + (out_last,), ComplexType(e), bounds)
    if fft_type == "IRFFT":
        if not isinstance(e, ComplexType):  # fft_c2
            raise ctx.error("fft_c2", f"IRFFT takes a complex operand, got {e}")
        if not _shapes_compatible(shape[-tail:-1], length[:-1]):  # fft_c4
            raise ctx.error("fft_c4", "IRFFT operand dimensions must match fft_length")
        exp_last = 0 if length[-1] == 0 else length[-1] // 2 + 1
        if not _dims_compatible(shape[-1], exp_last):  # fft_c5
            raise ctx.error("fft_c5", f"IRFFT operand last dimension must be {exp_last}")
        return _bounded(shape[:-tail] + length, e.element_type, bounds)  # fft_c4, fft_c5
    raise ctx.error("fft_c2", f"unknown fft_type {fft_type}")


# --------------------------------------------------------------------------------------
# triangular_solve / cholesky
# --------------------------------------------------------------------------------------


@shape_function(
    "stablehlo.triangular_solve",
    result_labels=("triangular_solve_c4", "triangular_solve_c4"),
    attrs={
        "left_side": REQUIRED,
        "lower": REQUIRED,
        "unit_diagonal": REQUIRED,
        "transpose_a": REQUIRED,
    },
)
def triangular_solve(
    ctx: ShapeContext,
    a: Type,
    b: Type,
    *,
    left_side: bool,
    lower: bool,
    unit_diagonal: bool,
    transpose_a: str,
) -> Type | None:
    """spec: triangular_solve (C1-C4)."""
    at, bt = require_tensors(ctx, (a, "triangular_solve_i1"), (b, "triangular_solve_i2"))
    for t, label in ((a, "triangular_solve_i1"), (b, "triangular_solve_i2")):
        if not (_is_float(t) or _is_complex(t) or isinstance(_elem(t), QuantizedType)):
            raise ctx.error(label, f"expects float or complex operands, got {_elem(t)}")
    if _baseline_elem(a) != _baseline_elem(b):  # triangular_solve_c1
        raise ctx.error("triangular_solve_c1", "a and b must have the same element type")
    if transpose_a not in ("NO_TRANSPOSE", "TRANSPOSE", "ADJOINT"):
        raise ctx.error("triangular_solve_i6", f"unknown transpose_a {transpose_a}")
    sa, sb = at.shape, bt.shape
    if sa is None or sb is None:
        return None
    if len(sa) < 2 or len(sa) != len(sb):  # triangular_solve_c2
        raise ctx.error("triangular_solve_c2", "expects a and b of equal rank >= 2")
    if not _shapes_compatible(sa[:-2], sb[:-2]):  # triangular_solve_c3
        raise ctx.error("triangular_solve_c3", "a and b must have the same batch dimensions")
    if not _dims_compatible(sa[-2], sa[-1]):  # triangular_solve_c3
        raise ctx.error("triangular_solve_c3", "a must be a batch of square matrices")
    bdim = sb[-2] if left_side else sb[-1]
    if not _dims_compatible(sa[-1], bdim):  # triangular_solve_c3
        raise ctx.error("triangular_solve_c3", "dimension of a does not match b")
    return b  # triangular_solve_c4


@shape_function(
    "stablehlo.cholesky", result_labels=("cholesky_c1", "cholesky_c1"), attrs={"lower": False}
)
def cholesky(ctx: ShapeContext, a: Type, *, lower: bool = False) -> Type | None:
    """spec: cholesky (C1-C3)."""
    shape = require_tensor(ctx, a, "cholesky_i1").shape
    if not (_is_float(a) or _is_complex(a) or isinstance(_elem(a), QuantizedType)):
        raise ctx.error("cholesky_i1", f"expects a float or complex operand, got {_elem(a)}")
    if shape is None:
        return None
    if len(shape) < 2:  # cholesky_c2
        raise ctx.error("cholesky_c2", "expects an operand of rank >= 2")
    if not _dims_compatible(shape[-2], shape[-1]):  # cholesky_c3
        raise ctx.error("cholesky_c3", "expects a batch of square matrices")
    return a  # cholesky_c1


# --------------------------------------------------------------------------------------
# batch_norm_*
# --------------------------------------------------------------------------------------

_BN_ATTRS = {"epsilon": REQUIRED, "feature_index": REQUIRED}


def _bn_common(
    ctx: ShapeContext,
    op: str,
    operand: Type,
    vectors: dict[str, Type],
    feature_index: int,
    labels: dict[str, str],
) -> TensorType:
    """Check feature_index (C1), element types (C2) and vector sizes; return the type
    of the 1-d results: the operand's feature dimension (size or ``?`` with its bound),
    with the element type of the first vector."""
    base = _baseline_elem(operand)
    if not (_is_float(operand) or isinstance(_elem(operand), QuantizedType)):
        raise ctx.error(f"{op}_i1", f"expects a floating-point operand, got {_elem(operand)}")
    for name, t in vectors.items():
        if _baseline_elem(t) != base:  # C2
            raise ctx.error(f"{op}_c2", f"{name} must have the operand's element type")
    elem = _elem(next(iter(vectors.values())))
    if not isinstance(operand, TensorType) or operand.shape is None:
        return _vec_of(vectors.values(), elem)
    rank = len(operand.shape)
    if not 0 <= feature_index < rank:  # C1
        raise ctx.error(f"{op}_c1", f"feature_index {feature_index} out of range for rank {rank}")
    fsize = operand.shape[feature_index]
    for name, t in vectors.items():
        vshape = _shape(t)
        if vshape is None:
            continue
        if len(vshape) != 1:
            raise ctx.error(labels[name], f"{name} must be 1-dimensional")
        if not _dims_compatible(vshape[0], fsize):
            raise ctx.error(labels[name], f"size of {name} must equal the feature dimension")
    return _bounded((fsize,), elem, (_bounds(operand)[feature_index],))


def _vec_of(vectors: Iterable[Type], elem: Type) -> TensorType:
    """The 1-d results when the operand is unranked: the vectors' size, if one knows it."""
    for v in vectors:
        vshape = _shape(v)
        if vshape is not None and len(vshape) == 1 and vshape[0] is not None:
            return TensorType((vshape[0],), elem)
    return TensorType((None,), elem)


@shape_function(
    "stablehlo.batch_norm_inference",
    result_labels=("batch_norm_inference_c7", "batch_norm_inference_c7"),
    attrs=_BN_ATTRS,
)
def batch_norm_inference(
    ctx: ShapeContext,
    operand: Type,
    scale: Type,
    offset: Type,
    mean: Type,
    variance: Type,
    *,
    epsilon: float,
    feature_index: int,
) -> Type | None:
    """spec: batch_norm_inference (C1-C7)."""
    require_tensors(
        ctx,
        (operand, "batch_norm_inference_i1"),
        (scale, "batch_norm_inference_i2"),
        (offset, "batch_norm_inference_i3"),
        (mean, "batch_norm_inference_i4"),
        (variance, "batch_norm_inference_i5"),
    )
    _bn_common(
        ctx,
        "batch_norm_inference",
        operand,
        {"scale": scale, "offset": offset, "mean": mean, "variance": variance},
        feature_index,
        {
            "scale": "batch_norm_inference_c3",
            "offset": "batch_norm_inference_c4",
            "mean": "batch_norm_inference_c5",
            "variance": "batch_norm_inference_c6",
        },
    )
    return operand  # batch_norm_inference_c7


@shape_function(
    "stablehlo.batch_norm_training",
    attrs=_BN_ATTRS,
    multi_result=True,
    result_labels=(
        ("batch_norm_training_c7", "batch_norm_training_c2"),
        ("batch_norm_training_c5", "batch_norm_training_c2"),
        ("batch_norm_training_c6", "batch_norm_training_c2"),
    ),
)
def batch_norm_training(
    ctx: ShapeContext,
    operand: Type,
    scale: Type,
    offset: Type,
    *,
    epsilon: float,
    feature_index: int,
) -> tuple[Type, ...] | None:
    """spec: batch_norm_training (C1-C7)."""
    require_tensors(
        ctx,
        (operand, "batch_norm_training_i1"),
        (scale, "batch_norm_training_i2"),
        (offset, "batch_norm_training_i3"),
    )
    vec = _bn_common(
        ctx,
        "batch_norm_training",
        operand,
        {"scale": scale, "offset": offset},
        feature_index,
        {"scale": "batch_norm_training_c3", "offset": "batch_norm_training_c4"},
    )
    return (operand, vec, vec)  # batch_norm_training_c5..c7


@shape_function(
    "stablehlo.batch_norm_grad",
    attrs=_BN_ATTRS,
    multi_result=True,
    result_labels=(
        ("batch_norm_grad_c3", "batch_norm_grad_c2"),
        ("batch_norm_grad_c4", "batch_norm_grad_c2"),
        ("batch_norm_grad_c4", "batch_norm_grad_c2"),
    ),
)
def batch_norm_grad(
    ctx: ShapeContext,
    operand: Type,
    scale: Type,
    mean: Type,
    variance: Type,
    grad_output: Type,
    *,
    epsilon: float,
    feature_index: int,
) -> tuple[Type, ...] | None:
    """spec: batch_norm_grad (C1-C5)."""
    require_tensors(
        ctx,
        (operand, "batch_norm_grad_i1"),
        (scale, "batch_norm_grad_i2"),
        (mean, "batch_norm_grad_i3"),
        (variance, "batch_norm_grad_i4"),
        (grad_output, "batch_norm_grad_i5"),
    )
    vec = _bn_common(
        ctx,
        "batch_norm_grad",
        operand,
        {"scale": scale, "mean": mean, "variance": variance},
        feature_index,
        {
            "scale": "batch_norm_grad_c5",
            "mean": "batch_norm_grad_c4",
            "variance": "batch_norm_grad_c4",
        },
    )
    if _baseline_elem(grad_output) != _baseline_elem(operand):  # batch_norm_grad_c2
        raise ctx.error("batch_norm_grad_c2", "grad_output must have the operand's element type")
    oshape, gshape = _shape(operand), _shape(grad_output)
    if oshape is not None and gshape is not None and not _shapes_compatible(oshape, gshape):
        raise ctx.error(
            "batch_norm_grad_c3", "operand and grad_output must have the same shape"
        )  # C3
    return (operand, vec, vec)  # batch_norm_grad_c2..c4
