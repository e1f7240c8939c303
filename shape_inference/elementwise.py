"""elementwise shape functions and verifiers (spec: "Ops" -> abs ... xor).

The generic unary and binary ops register with one ``unary(...)`` / ``binary(...)``
line each, under their literal op name: the element types the spec's Inputs table
allows, and whether (per-tensor) quantized tensors are accepted.  Special ops (abs, add, compare, clamp, select, complex,
real, imag, is_finite) get small functions.

Labels: ``<op>_c<N>`` for the spec's numbered constraints; ``<op>_i<N>`` when operand
#N has an element type the Inputs table does not allow.  Shapes are compared
"compatibly" (equal, or either dimension dynamic), as the spec's dynamism section says.
The inferred result type is returned; for quantized results (whose scales cannot be
inferred) the declared result is checked here and None is returned.
"""

from __future__ import annotations

from ..parser.ir import (
    ComplexType,
    FloatType,
    IntegerType,
    QuantizedType,
    ResultAccuracy,
    TensorType,
    Type,
    TypeExtensions,
)
from .optable import REQUIRED, ShapeContext, define_op
from .typeutil import require_tensor

I1 = IntegerType(1)

# ---------------------------------------------------------------------------------------
# Type classes (spec "Types": boolean, signed/unsigned integer, float, complex, quantized)
# ---------------------------------------------------------------------------------------

BOOL, SINT, UINT, FLOAT, COMPLEX, QUANT = "bool", "sint", "uint", "float", "complex", "quant"
ANY = frozenset({BOOL, SINT, UINT, FLOAT, COMPLEX})
INT = frozenset({SINT, UINT})
BOOL_INT = frozenset({BOOL, SINT, UINT})
FLOAT_COMPLEX = frozenset({FLOAT, COMPLEX})
INT_FLOAT_COMPLEX = frozenset({SINT, UINT, FLOAT, COMPLEX})
FLOAT_ONLY = frozenset({FLOAT})
SINT_FLOAT_COMPLEX = frozenset({SINT, FLOAT, COMPLEX})

# Quantization policies: which quantized tensors an op accepts.
NO_QUANT, PER_TENSOR, ANY_QUANT = None, "per-tensor", "any"

_CLASS_TEXT = {
    BOOL: "boolean",
    SINT: "signed integer",
    UINT: "unsigned integer",
    FLOAT: "floating-point",
    COMPLEX: "complex",
}


def element_class(e: Type) -> str | None:
    """The spec's category of an element type (None for non-element types)."""
    if isinstance(e, IntegerType):
        if e.is_bool:
            return BOOL
        return UINT if e.is_unsigned else SINT
    if isinstance(e, FloatType):
        return FLOAT
    if isinstance(e, ComplexType):
        return COMPLEX
    if isinstance(e, QuantizedType):
        return QUANT
    return None


def _describe(allowed: frozenset, quant: str | None) -> str:
    order = (BOOL, SINT, UINT, FLOAT, COMPLEX)
    names = [_CLASS_TEXT[c] for c in order if c in allowed]
    if SINT in allowed and UINT in allowed:
        names = [n for n in names if "signed" not in n]
        names.insert(1 if BOOL in allowed else 0, "integer")
    text = ", ".join(names)
    if quant == PER_TENSOR:
        text += " or per-tensor quantized"
    elif quant == ANY_QUANT:
        text += " or quantized"
    return f"tensor of {text} type"


# ---------------------------------------------------------------------------------------
# Shapes and baseline types
# ---------------------------------------------------------------------------------------


def shapes_compatible(a: tuple | None, b: tuple | None) -> bool:
    """Same rank and every dimension equal or dynamic (unranked matches anything)."""
    if a is None or b is None:
        return True
    return len(a) == len(b) and all(x is None or y is None or x == y for x, y in zip(a, b))


def merge_shapes(*shapes: tuple | None) -> tuple | None:
    """The most static shape compatible with all of ``shapes`` (assumed compatible)."""
    ranked = [s for s in shapes if s is not None]
    if not ranked:
        return None
    out = list(ranked[0])
    for s in ranked[1:]:
        out = [x if x is not None else y for x, y in zip(out, s)]
    return tuple(out)


def merge_tensor_types(types: list[TensorType], element: Type) -> TensorType:
    """The most specific tensor type compatible with all ``types`` (assumed compatible),
    with ``element`` as element type.  Dimensions that stay dynamic keep the tightest
    bound (``#stablehlo.bounds``) any operand gives them; another encoding (e.g.
    ``#sparse_tensor.encoding``) is kept when all operands have the same one."""
    shape = merge_shapes(*(t.shape for t in types))
    first = types[0].encoding
    encoding = None
    if (
        first is not None
        and not isinstance(first, TypeExtensions)
        and all(t.encoding == first for t in types[1:])
    ):
        encoding = first
    if shape is not None and any(t.bounds is not None for t in types):
        bounds: list[int | None] = []
        for i, d in enumerate(shape):
            given = [
                b for b in (t.bounds[i] for t in types if t.bounds is not None) if b is not None
            ]
            bounds.append(min(given) if d is None and given else None)
        if any(b is not None for b in bounds):
            encoding = TypeExtensions(tuple(bounds))
    return TensorType(shape, element, encoding)


def _storage_bounds(q: QuantizedType) -> tuple[int, int]:
    s = q.storage_type
    if s.is_unsigned:
        lo, hi = 0, (1 << s.width) - 1
    else:
        lo, hi = -(1 << (s.width - 1)), (1 << (s.width - 1)) - 1
    return (
        q.storage_min if q.storage_min is not None else lo,
        q.storage_max if q.storage_max is not None else hi,
    )


def baseline_element_type(e: Type) -> Type:
    """spec ``baseline_element_type``: quantized types with scales and zero points reset
    (storage type, storage_min/max, expressed type and quantization dimension kept)."""
    if isinstance(e, QuantizedType):
        lo, hi = _storage_bounds(e)
        return QuantizedType(
            storage_type=e.storage_type,
            expressed_type=e.expressed_type,
            scales=(),
            zero_points=(),
            quantized_dimension=e.quantized_dimension,
            storage_min=lo,
            storage_max=hi,
        )
    return e


def is_per_axis(e: Type) -> bool:
    return isinstance(e, QuantizedType) and e.quantized_dimension is not None


def check_element(
    ctx: ShapeContext,
    op: str,
    index: int,
    e: Type,
    allowed: frozenset,
    quant: str | None,
) -> None:
    """Operand #index (1-based, the spec's I<index>) has an allowed element type."""
    cls = element_class(e)
    ok = cls in allowed or (
        cls == QUANT and (quant == ANY_QUANT or (quant == PER_TENSOR and not is_per_axis(e)))
    )
    if not ok:
        raise ctx.error(
            f"{op}_i{index}", f"operand #{index - 1} must be a {_describe(allowed, quant)}, got {e}"
        )


def _declared(ctx: ShapeContext) -> TensorType | None:
    if len(ctx.result_types) == 1 and isinstance(ctx.result_types[0], TensorType):
        return ctx.result_types[0]
    return None


def _check_quantized_result(
    ctx: ShapeContext, label: str, shape: tuple | None, baseline: Type
) -> None:
    """For quantized results: the declared result must have a compatible shape and the
    same baseline element type (spec: ``baseline_type(...) = baseline_type(result)``)."""
    result = _declared(ctx)
    if result is None:
        raise ctx.error(label, "expects one tensor result")
    if not shapes_compatible(result.shape, shape):
        raise ctx.error(label, f"result shape {result.shape} is not compatible with {shape}")
    if baseline_element_type(result.element_type) != baseline_element_type(baseline):
        raise ctx.error(
            label,
            f"result element type {result.element_type} does not match {baseline} "
            "(baseline types must be equal)",
        )


def same_baseline(ctx: ShapeContext, label: str, types: list[TensorType]) -> tuple | None:
    """All ``types`` have compatible shapes and equal baseline element types; returns
    the merged shape."""
    first = types[0]
    for t in types[1:]:
        if not shapes_compatible(first.shape, t.shape):
            raise ctx.error(label, f"requires compatible shapes, got {first.shape} and {t.shape}")
        if baseline_element_type(first.element_type) != baseline_element_type(t.element_type):
            raise ctx.error(
                label,
                f"requires the same element type, got {first.element_type} and {t.element_type}",
            )
    check_bounds(ctx, label, types)
    return merge_shapes(*(t.shape for t in types))


def check_bounds(ctx: ShapeContext, label: str, types: list[TensorType]) -> None:
    """A static dimension may not exceed another operand's bound for that dimension."""
    for t in types:
        if t.bounds is None or t.shape is None:
            continue
        for u in types:
            if u.shape is None or len(u.shape) != len(t.shape):
                continue
            for i, (b, d) in enumerate(zip(t.bounds, u.shape)):
                if b is not None and d is not None and d > b:
                    raise ctx.error(
                        label, f"Mismatched dimension size {d} and bound {b} in dimension {i}"
                    )


# ---------------------------------------------------------------------------------------
# Table rows
# ---------------------------------------------------------------------------------------

# (name, allowed element classes, quantization policy); constraint C1 of each op is
# "baseline_type(operands...) = baseline_type(result)" (or "type(...) = ..." when the op
# takes no quantized tensors).
# The ops of one generic row, in registration order (short names): the tests read these.
UNARY: list[tuple[str, frozenset, str | None]] = []
BINARY: list[tuple[str, frozenset, str | None]] = []


def _elementwise_shape(op: str, arity: int, allowed: frozenset, quant: str | None):
    """Shape function of a row: operand element types allowed (``<op>_i<N>``), and
    (C1) equal baseline types / compatible shapes of operands and result."""
    label = f"{op}_c1"

    def shape_fn(ctx: ShapeContext, *operands: Type, result_accuracy=None):
        if len(operands) != arity:
            raise ctx.error(label, f"expects {arity} operand(s), got {len(operands)}")
        ts = [
            require_tensor(ctx, t, f"{op}_i{i + 1}", f"operand #{i}")
            for i, t in enumerate(operands)
        ]
        for i, t in enumerate(ts, start=1):
            check_element(ctx, op, i, t.element_type, allowed, quant)
        shape = same_baseline(ctx, label, ts)  # (C1)
        e = ts[0].element_type
        check_result_accuracy(ctx, op, result_accuracy)
        if isinstance(e, QuantizedType):
            _check_quantized_result(ctx, label, shape, e)  # (C1)
            return None
        return merge_tensor_types(ts, e)

    shape_fn.__name__ = f"{op}_shape"
    shape_fn.__doc__ = f"spec: {op} (elementwise row)."
    return shape_fn


def check_result_accuracy(ctx: ShapeContext, op: str, acc: object) -> None:
    """``result_accuracy``: tolerances are non-negative, and all zero for the DEFAULT
    and HIGHEST modes (the StableHLO verifier's rule; the spec has no C-label)."""
    if not isinstance(acc, ResultAccuracy):
        return
    mode = acc.mode.value if acc.mode is not None else "DEFAULT"
    if acc.atol < 0 or acc.rtol < 0 or acc.ulps < 0:
        raise ctx.error(f"{op}_result_accuracy", "Negative tolerance for ResultAccuracyAttr")
    if mode in ("DEFAULT", "HIGHEST") and (acc.atol != 0 or acc.rtol != 0 or acc.ulps != 0):
        raise ctx.error(
            f"{op}_result_accuracy",
            f"Invalid tolerances for ResultAccuracyAttr with mode {mode}, must be all zero.",
        )


# Pure, element by element: every op of this family (spec "Elementwise").
POINTWISE = frozenset({"elementwise", "foldable"})


def unary(
    name: str, allowed: frozenset, quant: str | None, *, result_accuracy: bool = False
) -> None:
    """Register a generic unary row: ``name`` (the literal op name), the element classes
    its Inputs table allows, its quantization policy; ``result_accuracy``: it carries an
    optional #stablehlo.result_accuracy attribute."""
    short = name.removeprefix("stablehlo.")
    define_op(
        name,
        _elementwise_shape(short, 1, allowed, quant),
        attrs={"result_accuracy": None} if result_accuracy else None,
        traits=POINTWISE,
        result_labels=(f"{short}_c1", f"{short}_c1"),
    )
    UNARY.append((short, allowed, quant))


def binary(
    name: str,
    allowed: frozenset,
    quant: str | None,
    *,
    commutative: bool = False,
    idempotent: bool = False,
) -> None:
    """Register a generic binary row (as ``unary``); ``commutative``: op(a, b) = op(b, a);
    ``idempotent``: op(a, a) = a."""
    short = name.removeprefix("stablehlo.")
    traits = POINTWISE | {"commutative"} if commutative else POINTWISE
    if idempotent:
        traits |= {"idempotent"}
    define_op(
        name,
        _elementwise_shape(short, 2, allowed, quant),
        traits=traits,
        result_labels=(f"{short}_c1", f"{short}_c1"),
    )
    BINARY.append((short, allowed, quant))


unary("stablehlo.cbrt", FLOAT_COMPLEX, PER_TENSOR, result_accuracy=True)
unary("stablehlo.ceil", FLOAT_ONLY, PER_TENSOR)
unary("stablehlo.cosine", FLOAT_COMPLEX, PER_TENSOR, result_accuracy=True)
unary("stablehlo.count_leading_zeros", INT, NO_QUANT)
unary("stablehlo.exponential", FLOAT_COMPLEX, PER_TENSOR, result_accuracy=True)
unary("stablehlo.exponential_minus_one", FLOAT_COMPLEX, PER_TENSOR, result_accuracy=True)
unary("stablehlo.floor", FLOAT_ONLY, PER_TENSOR)
unary("stablehlo.log", FLOAT_COMPLEX, PER_TENSOR, result_accuracy=True)
unary("stablehlo.log_plus_one", FLOAT_COMPLEX, PER_TENSOR, result_accuracy=True)
unary("stablehlo.logistic", FLOAT_COMPLEX, PER_TENSOR, result_accuracy=True)
unary("stablehlo.negate", INT_FLOAT_COMPLEX, PER_TENSOR)
unary("stablehlo.not", BOOL_INT, NO_QUANT)
unary("stablehlo.popcnt", INT, NO_QUANT)
unary("stablehlo.round_nearest_afz", FLOAT_ONLY, PER_TENSOR)
unary("stablehlo.round_nearest_even", FLOAT_ONLY, PER_TENSOR)
unary("stablehlo.rsqrt", FLOAT_COMPLEX, PER_TENSOR, result_accuracy=True)
unary("stablehlo.sign", SINT_FLOAT_COMPLEX, PER_TENSOR)
unary("stablehlo.sine", FLOAT_COMPLEX, PER_TENSOR, result_accuracy=True)
unary("stablehlo.sqrt", FLOAT_COMPLEX, PER_TENSOR, result_accuracy=True)
unary("stablehlo.tan", FLOAT_COMPLEX, PER_TENSOR, result_accuracy=True)
unary("stablehlo.tanh", FLOAT_COMPLEX, PER_TENSOR, result_accuracy=True)

binary("stablehlo.and", BOOL_INT, NO_QUANT, commutative=True, idempotent=True)
binary("stablehlo.atan2", FLOAT_COMPLEX, PER_TENSOR)
binary("stablehlo.divide", INT_FLOAT_COMPLEX, PER_TENSOR)
binary("stablehlo.maximum", ANY, PER_TENSOR, commutative=True, idempotent=True)
binary("stablehlo.minimum", ANY, PER_TENSOR, commutative=True, idempotent=True)
binary("stablehlo.multiply", ANY, PER_TENSOR, commutative=True)
binary("stablehlo.or", BOOL_INT, NO_QUANT, commutative=True, idempotent=True)
binary("stablehlo.power", INT_FLOAT_COMPLEX, PER_TENSOR)
binary("stablehlo.remainder", INT_FLOAT_COMPLEX, PER_TENSOR)
binary("stablehlo.shift_left", INT, NO_QUANT)
binary("stablehlo.shift_right_arithmetic", INT, NO_QUANT)
binary("stablehlo.shift_right_logical", INT, NO_QUANT)
binary("stablehlo.subtract", INT_FLOAT_COMPLEX, PER_TENSOR)
binary("stablehlo.xor", BOOL_INT, NO_QUANT, commutative=True)


# ---------------------------------------------------------------------------------------
# Special ops
# ---------------------------------------------------------------------------------------


def abs_shape(ctx: ShapeContext, operand: Type) -> TensorType | None:
    """spec: abs.  (C1) same shape; (C2) complex -> its float element type."""
    t = require_tensor(ctx, operand, "abs_i1", "operand")
    e = t.element_type
    check_element(ctx, "abs", 1, e, SINT_FLOAT_COMPLEX, PER_TENSOR)
    if isinstance(e, QuantizedType):
        _check_quantized_result(ctx, "abs_c2", t.shape, e)  # (C1), (C2)
        return None
    result_e = e.element_type if isinstance(e, ComplexType) else e  # (C2)
    return TensorType(t.shape, result_e, t.encoding)  # (C1): the operand's shape and bounds


define_op("stablehlo.abs", abs_shape, traits=POINTWISE, result_labels=("abs_c1", "abs_c2"))


def add_shape(ctx: ShapeContext, lhs: Type, rhs: Type) -> TensorType | None:
    """spec: add.  (C1) equal types; (C2-C7) the quantized cases."""
    a = require_tensor(ctx, lhs, "add_i1", "lhs")
    b = require_tensor(ctx, rhs, "add_i2", "rhs")
    check_element(ctx, "add", 1, a.element_type, ANY, ANY_QUANT)
    check_element(ctx, "add", 2, b.element_type, ANY, ANY_QUANT)
    ea, eb = a.element_type, b.element_type
    result = _declared(ctx)
    er = result.element_type if result is not None else None
    if not any(isinstance(e, QuantizedType) for e in (ea, eb, er)):
        same_baseline(ctx, "add_c1", [a, b])  # (C1)
        return merge_tensor_types([a, b], a.element_type)
    if not (
        isinstance(ea, QuantizedType)
        and isinstance(eb, QuantizedType)
        and result is not None
        and isinstance(er, QuantizedType)
    ):  # (C2)
        raise ctx.error("add_c2", "lhs, rhs and result must all be quantized or all not")
    if not (ea.storage_type == eb.storage_type == er.storage_type):  # (C3)
        raise ctx.error("add_c3", "lhs, rhs and result must have the same storage type")
    if not (ea.expressed_type == eb.expressed_type == er.expressed_type):  # (C4)
        raise ctx.error("add_c4", "lhs, rhs and result must have the same expressed type")
    if (is_per_axis(ea) or is_per_axis(eb)) != is_per_axis(er):  # (C5)
        raise ctx.error("add_c5", "result is per-axis quantized iff lhs or rhs is")
    if is_per_axis(ea) and ea.quantized_dimension != er.quantized_dimension:  # (C6)
        raise ctx.error("add_c6", "lhs and result must have the same quantization_dimension")
    if is_per_axis(eb) and eb.quantized_dimension != er.quantized_dimension:  # (C7)
        raise ctx.error("add_c7", "rhs and result must have the same quantization_dimension")
    for t in (b, result):
        if not shapes_compatible(a.shape, t.shape):
            raise ctx.error("add_c1", f"requires compatible shapes, got {a.shape} and {t.shape}")
    return None


define_op("stablehlo.add", add_shape, traits=POINTWISE | {"commutative"})

COMPARISON_DIRECTIONS = ("EQ", "NE", "GE", "GT", "LE", "LT")
COMPARE_TYPES = ("FLOAT", "TOTALORDER", "SIGNED", "UNSIGNED", "NOTYPE")


def compare_shape(
    ctx: ShapeContext,
    lhs: Type,
    rhs: Type,
    *,
    comparison_direction: str,
    compare_type: str | None = None,
) -> TensorType:
    """spec: compare.  (C1) equal baseline element types, (C2) compatible shapes;
    the result is a tensor of i1."""
    a = require_tensor(ctx, lhs, "compare_i1", "lhs")
    b = require_tensor(ctx, rhs, "compare_i2", "rhs")
    check_element(ctx, "compare", 1, a.element_type, ANY, PER_TENSOR)
    check_element(ctx, "compare", 2, b.element_type, ANY, PER_TENSOR)
    if comparison_direction not in COMPARISON_DIRECTIONS:
        raise ctx.error("compare_i3", f"unknown comparison_direction {comparison_direction}")
    if compare_type is not None and compare_type not in COMPARE_TYPES:
        raise ctx.error("compare_i4", f"unknown compare_type {compare_type}")
    if not shapes_compatible(a.shape, b.shape):  # (C2)
        raise ctx.error("compare_c2", f"requires compatible shapes, got {a.shape} and {b.shape}")
    if baseline_element_type(a.element_type) != baseline_element_type(b.element_type):  # (C1)
        raise ctx.error(
            "compare_c1",
            f"requires the same element type, got {a.element_type} and {b.element_type}",
        )
    # (compare_c3) compare_type vs. element type is NOT enforced: the reference verifier
    # accepts e.g. TOTALORDER on integers (tests/verifier/print_stablehlo.mlir); the
    # kernel uses compare_type only to choose TOTALORDER for floats.
    return TensorType(merge_shapes(a.shape, b.shape), I1)


COMPARE = define_op(
    "stablehlo.compare",
    compare_shape,
    attrs={"comparison_direction": REQUIRED, "compare_type": None},
    traits=POINTWISE,
)


def _scalar_or_same(
    ctx: ShapeContext, label: str, what: str, t: TensorType, shape: tuple | None
) -> None:
    if t.shape is not None and len(t.shape) == 0:
        return
    if not shapes_compatible(t.shape, shape):
        raise ctx.error(
            label,
            f"{what} shape {t.shape} is not scalar and is not compatible to operand shape {shape}",
        )


def clamp_shape(ctx: ShapeContext, min: Type, operand: Type, max: Type) -> TensorType | None:
    """spec: clamp.  (C1)/(C2) min/max scalar or operand-shaped; (C3) equal baseline
    element types; (C4) result type = operand type."""
    lo = require_tensor(ctx, min, "clamp_i1", "min")
    x = require_tensor(ctx, operand, "clamp_i2", "operand")
    hi = require_tensor(ctx, max, "clamp_i3", "max")
    for i, t in enumerate((lo, x, hi), start=1):
        check_element(ctx, "clamp", i, t.element_type, ANY, PER_TENSOR)
    _scalar_or_same(ctx, "clamp_c1", "min", lo, x.shape)  # (C1)
    _scalar_or_same(ctx, "clamp_c2", "max", hi, x.shape)  # (C2)
    base = baseline_element_type(x.element_type)
    for t in (lo, hi):  # (C3)
        if baseline_element_type(t.element_type) != base:
            raise ctx.error(
                "clamp_c3",
                f"requires the same element type, got {t.element_type} and {x.element_type}",
            )
    if isinstance(x.element_type, QuantizedType):
        _check_quantized_result(ctx, "clamp_c4", x.shape, x.element_type)  # (C4)
        return None
    return TensorType(x.shape, x.element_type, x.encoding)  # (C4)


define_op("stablehlo.clamp", clamp_shape, traits=POINTWISE)


def select_shape(ctx: ShapeContext, pred: Type, on_true: Type, on_false: Type) -> TensorType | None:
    """spec: select.  pred is i1; (C1) pred scalar or on_true-shaped; (C2) equal
    baseline types of on_true, on_false and result."""
    p = require_tensor(ctx, pred, "select_i1", "pred")
    a = require_tensor(ctx, on_true, "select_i2", "on_true")
    b = require_tensor(ctx, on_false, "select_i3", "on_false")
    if p.element_type != I1:
        raise ctx.error("select_i1", f"pred must be a tensor of i1, got {p.element_type}")
    for i, t in ((2, a), (3, b)):
        check_element(ctx, "select", i, t.element_type, ANY, PER_TENSOR)
    if not (p.shape is not None and len(p.shape) == 0) and not shapes_compatible(p.shape, a.shape):
        raise ctx.error("select_c1", "requires the same shape for all operands")  # (C1)
    if not shapes_compatible(a.shape, b.shape) or baseline_element_type(
        a.element_type
    ) != baseline_element_type(b.element_type):
        raise ctx.error("select_c2", "requires compatible types for non-predicate operands")  # (C2)
    same = [a, b] if p.shape is not None and len(p.shape) == 0 else [a, b, p]
    check_bounds(ctx, "select_c2", same)
    merged = merge_tensor_types(same, a.element_type)  # (C2), with the merged bounds
    if isinstance(a.element_type, QuantizedType):
        _check_quantized_result(ctx, "select_c2", merged.shape, a.element_type)  # (C2)
        return None
    return merged


define_op("stablehlo.select", select_shape, traits=POINTWISE)


def complex_shape(ctx: ShapeContext, lhs: Type, rhs: Type) -> TensorType:
    """spec: complex.  f32/f64 operands; (C1) type(lhs) = type(rhs); (C2) same shape;
    (C3) result element type complex<E>."""
    a = require_tensor(ctx, lhs, "complex_i1", "lhs")
    b = require_tensor(ctx, rhs, "complex_i2", "rhs")
    for i, t in ((1, a), (2, b)):
        e = t.element_type
        if not (isinstance(e, FloatType) and e.name in ("f32", "f64")):
            raise ctx.error(
                f"complex_i{i}", f"operand #{i - 1} must be a tensor of f32 or f64, got {e}"
            )
    if a.element_type != b.element_type or not shapes_compatible(a.shape, b.shape):  # (C1)
        raise ctx.error(
            "complex_c1",
            f"requires type(lhs) = type(rhs), got {a.element_type} and {b.element_type}",
        )
    return merge_tensor_types([a, b], ComplexType(a.element_type))  # (C2), (C3)


define_op(
    "stablehlo.complex", complex_shape, traits=POINTWISE, result_labels=("complex_c2", "complex_c3")
)


def _part_shape(op: str):
    def shape_fn(ctx: ShapeContext, operand: Type) -> TensorType:
        t = require_tensor(ctx, operand, f"{op}_i1", "operand")
        e = t.element_type
        check_element(ctx, op, 1, e, FLOAT_COMPLEX, NO_QUANT)
        result_e = e.element_type if isinstance(e, ComplexType) else e  # (C2)
        return TensorType(t.shape, result_e, t.encoding)  # (C1): the operand's shape and bounds

    shape_fn.__name__ = f"{op}_shape"
    shape_fn.__doc__ = f"spec: {op}.  (C1) same shape; (C2) complex -> its float element type."
    return shape_fn


REAL = define_op(
    "stablehlo.real", _part_shape("real"), traits=POINTWISE, result_labels=("real_c1", "real_c2")
)
IMAG = define_op(
    "stablehlo.imag", _part_shape("imag"), traits=POINTWISE, result_labels=("imag_c1", "imag_c2")
)


def is_finite_shape(ctx: ShapeContext, x: Type) -> TensorType:
    """spec: is_finite.  Float or per-tensor quantized x; (C1) y has x's shape, i1."""
    t = require_tensor(ctx, x, "is_finite_i1", "x")
    check_element(ctx, "is_finite", 1, t.element_type, FLOAT_ONLY, PER_TENSOR)
    return TensorType(t.shape, I1)  # (C1)


define_op(
    "stablehlo.is_finite",
    is_finite_shape,
    traits=POINTWISE,
    result_labels=("is_finite_c1", "is_finite_o1"),
)

__all__ = [
    "ANY",
    "BOOL_INT",
    "FLOAT_COMPLEX",
    "INT",
    "baseline_element_type",
    "check_element",
    "element_class",
    "merge_shapes",
    "merge_tensor_types",
    "shapes_compatible",
]
