"""The frozen IR that the parser builds and everything else reads.

Faithful to the text: every type, attribute and ``loc(...)`` that the text carries is
kept, so that ``parse_module(print_module(m)) == m``.  Source positions (``pos``) say
where a construct was in its file; they are not part of equality.

Names mirror MLIR / the StableHLO spec (``dot_general``'s ``lhs_batching_dimensions``
and so on), so a reader can grep from the spec to the code.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import ml_dtypes
import numpy as np

from .errors import UNKNOWN_POS, SourcePos
from .float_literals import scale_literal

# ---- Types ---------------------------------------------------------------------------


class Type:
    """Base class of every type.

    ``str(t)`` is the type as MLIR spells it (``tensor<2x3xf32>``), the one
    implementation the printer uses too: a type with parts spells them through
    ``spell(type_text, attr_text)``, to which the printer passes its own (cached) type
    printer and its attribute printer (for a tensor's encoding)."""

    __slots__ = ()

    def spell(self, type_text: TypeText = str, attr_text: AttrText = str) -> str:
        """MLIR's spelling of this type, its parts written by ``type_text`` /
        ``attr_text`` (leaf types have no parts: their ``__str__``)."""
        return str(self)


TypeText = Callable[[Type], str]
AttrText = Callable[["Attribute"], str]


def function_type_text(
    inputs: Sequence[Type], results: Sequence[Type], type_text: TypeText = str
) -> str:
    """``(a, b) -> c``, or ``(a) -> (b, c)`` (MLIR's printFunctionalType: one result that
    is not itself a function type goes without parentheses)."""
    ins = "(" + ", ".join(type_text(t) for t in inputs) + ")"
    if len(results) == 1 and not isinstance(results[0], FunctionType):
        return f"{ins} -> {type_text(results[0])}"
    return ins + " -> (" + ", ".join(type_text(t) for t in results) + ")"


def _dims(shape: Sequence[int | None]) -> str:
    return "".join(("?" if d is None else str(d)) + "x" for d in shape)


@dataclass(frozen=True)
class IntegerType(Type):
    """``i1``, ``i32`` (signless), ``si8`` (signed), ``ui4`` (unsigned).

    StableHLO treats signless integers as signed, except ``i1`` which is boolean.
    """

    width: int
    signedness: str = "signless"  # "signless" | "signed" | "unsigned"

    @property
    def is_unsigned(self) -> bool:
        return self.signedness == "unsigned"

    @property
    def is_bool(self) -> bool:
        return self.width == 1 and self.signedness == "signless"

    def __str__(self) -> str:
        prefix = {"signless": "i", "signed": "si", "unsigned": "ui"}[self.signedness]
        return f"{prefix}{self.width}"


FLOAT_TYPE_NAMES = (
    "f4E2M1FN",
    "f6E2M3FN",
    "f6E3M2FN",
    "f8E3M4",
    "f8E4M3",
    "f8E4M3FN",
    "f8E4M3FNUZ",
    "f8E4M3B11FNUZ",
    "f8E5M2",
    "f8E5M2FNUZ",
    "f8E8M0FNU",
    "bf16",
    "f16",
    "tf32",
    "f32",
    "f64",
)


@dataclass(frozen=True)
class FloatType(Type):
    """A floating-point element type, named as MLIR spells it (``f32``, ``f8E4M3FN``...)."""

    name: str

    def __str__(self) -> str:
        return self.name


@dataclass(frozen=True)
class IndexType(Type):
    def __str__(self) -> str:
        return "index"


@dataclass(frozen=True)
class NoneType(Type):
    def __str__(self) -> str:
        return "none"


@dataclass(frozen=True)
class ComplexType(Type):
    element_type: Type  # FloatType f32 or f64

    def spell(self, type_text: TypeText = str, attr_text: AttrText = str) -> str:
        return f"complex<{type_text(self.element_type)}>"

    def __str__(self) -> str:
        return self.spell()


@dataclass(frozen=True)
class QuantizedType(Type):
    """``!quant.uniform<storage<min:max>:expressed:axis, scale:zero_point, ...>``: per-tensor
    when ``quantized_dimension`` is None, else one scale and zero point per slice."""

    storage_type: IntegerType
    expressed_type: Type
    scales: tuple[float, ...]
    zero_points: tuple[int, ...]
    quantized_dimension: int | None = None
    storage_min: int | None = None
    storage_max: int | None = None

    def __post_init__(self) -> None:
        # i8<-128:127> is i8: MLIR prints only narrowing bounds (quant dialect printer)
        st = self.storage_type
        half = 1 << (st.width - 1) if isinstance(st, IntegerType) else 0
        full = (0, 2 * half - 1) if getattr(st, "is_unsigned", False) else (-half, half - 1)
        if half and (self.storage_min, self.storage_max) == full:
            object.__setattr__(self, "storage_min", None)
            object.__setattr__(self, "storage_max", None)

    def _key(self) -> tuple:  # scales by bit pattern: NaN-safe, sign-of-zero-safe
        bits = np.array(self.scales, np.float64).tobytes()
        rest = (self.zero_points, self.quantized_dimension, self.storage_min, self.storage_max)
        return (self.storage_type, self.expressed_type, bits, *rest)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, QuantizedType) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    @property
    def is_per_axis(self) -> bool:
        return self.quantized_dimension is not None

    def spell(self, type_text: TypeText = str, attr_text: AttrText = str) -> str:
        """QuantOps' UniformQuantizedType printer: ``i8``/``u8`` storage (``<min:max>``
        when narrowed), ``:expressed``, ``:axis`` when per-axis, then ``scale[:zp]``."""
        st = self.storage_type
        kind = "u" if getattr(st, "is_unsigned", False) else "i"
        storage = f"{kind}{st.width}" if isinstance(st, IntegerType) else type_text(st)
        if self.storage_min is not None and self.storage_max is not None:
            storage += f"<{self.storage_min}:{self.storage_max}>"
        head = f"{storage}:{type_text(self.expressed_type)}"
        params = [
            scale_literal(sc) + (f":{zp}" if zp != 0 else "")
            for sc, zp in zip(self.scales, self.zero_points)
        ]
        if self.quantized_dimension is None:
            return f"!quant.uniform<{head}, {params[0]}>"
        return f"!quant.uniform<{head}:{self.quantized_dimension}, {{{','.join(params)}}}>"

    def __str__(self) -> str:
        return self.spell()


@dataclass(frozen=True)
class TensorType(Type):
    """``tensor<2x?x3xf32, #stablehlo.bounds<?, 4, ?>>``.

    ``shape`` holds ints, with None for a dynamic (``?``) dimension; ``shape is None``
    means an unranked tensor (``tensor<*xf32>``).  ``encoding`` is the optional
    encoding attribute (``TypeExtensions`` for bounds, or any other attribute).
    """

    shape: tuple[int | None, ...] | None
    element_type: Type
    encoding: Attribute | None = None

    def __hash__(self) -> int:  # cached: types key the dtype and plan caches
        h = self.__dict__.get("_hash")
        if h is None:
            h = hash((self.shape, self.element_type, self.encoding))
            object.__setattr__(self, "_hash", h)
        return h

    @property
    def rank(self) -> int:
        if self.shape is None:
            raise ValueError("unranked tensor has no rank")
        return len(self.shape)

    @property
    def is_static(self) -> bool:
        return self.shape is not None and all(d is not None for d in self.shape)

    @property
    def bounds(self) -> tuple[int | None, ...] | None:
        enc = self.encoding
        if isinstance(enc, TypeExtensions):
            return enc.bounds
        return None

    def spell(self, type_text: TypeText = str, attr_text: AttrText = str) -> str:
        """``tensor<2x?xf32>``, ``tensor<*xf32>``, ``tensor<?xf32, #stablehlo.bounds<4>>``
        (BuiltinTypes' RankedTensorType / UnrankedTensorType syntax).  ``str`` writes
        the encodings StableHLO defines (bounds) and opaque ones; the printer passes
        its attribute printer for any other."""
        elem = type_text(self.element_type)
        body = "*x" + elem if self.shape is None else _dims(self.shape) + elem
        if self.encoding is not None:
            body += ", " + attr_text(self.encoding)
        return f"tensor<{body}>"

    def __str__(self) -> str:
        return self.spell()


@dataclass(frozen=True)
class TokenType(Type):
    """``!stablehlo.token``."""

    def __str__(self) -> str:
        return "!stablehlo.token"


@dataclass(frozen=True)
class TupleType(Type):
    types: tuple[Type, ...]

    def spell(self, type_text: TypeText = str, attr_text: AttrText = str) -> str:
        return "tuple<" + ", ".join(type_text(t) for t in self.types) + ">"

    def __str__(self) -> str:
        return self.spell()


@dataclass(frozen=True)
class FunctionType(Type):
    inputs: tuple[Type, ...]
    results: tuple[Type, ...]

    def spell(self, type_text: TypeText = str, attr_text: AttrText = str) -> str:
        return function_type_text(self.inputs, self.results, type_text)

    def __str__(self) -> str:
        return self.spell()


@dataclass(frozen=True)
class OpaqueType(Type):
    """A type of a dialect hlorun does not model (``!vhlo.tensor_v1<...>``...), kept as text."""

    text: str

    def __str__(self) -> str:
        return self.text


# Element type -> NumPy dtype.  tf32 is held in float32 storage (values rounded to tf32).
_FLOAT_DTYPES: dict[str, np.dtype] = {
    "f4E2M1FN": np.dtype(ml_dtypes.float4_e2m1fn),
    "f6E2M3FN": np.dtype(ml_dtypes.float6_e2m3fn),
    "f6E3M2FN": np.dtype(ml_dtypes.float6_e3m2fn),
    "f8E3M4": np.dtype(ml_dtypes.float8_e3m4),
    "f8E4M3": np.dtype(ml_dtypes.float8_e4m3),
    "f8E4M3FN": np.dtype(ml_dtypes.float8_e4m3fn),
    "f8E4M3FNUZ": np.dtype(ml_dtypes.float8_e4m3fnuz),
    "f8E4M3B11FNUZ": np.dtype(ml_dtypes.float8_e4m3b11fnuz),
    "f8E5M2": np.dtype(ml_dtypes.float8_e5m2),
    "f8E5M2FNUZ": np.dtype(ml_dtypes.float8_e5m2fnuz),
    "f8E8M0FNU": np.dtype(ml_dtypes.float8_e8m0fnu),
    "bf16": np.dtype(ml_dtypes.bfloat16),
    "f16": np.dtype(np.float16),
    "tf32": np.dtype(np.float32),
    "f32": np.dtype(np.float32),
    "f64": np.dtype(np.float64),
}

_SIGNED_INT = {
    2: np.dtype(ml_dtypes.int2),
    4: np.dtype(ml_dtypes.int4),
    8: np.dtype(np.int8),
    16: np.dtype(np.int16),
    32: np.dtype(np.int32),
    64: np.dtype(np.int64),
}
_UNSIGNED_INT = {
    2: np.dtype(ml_dtypes.uint2),
    4: np.dtype(ml_dtypes.uint4),
    8: np.dtype(np.uint8),
    16: np.dtype(np.uint16),
    32: np.dtype(np.uint32),
    64: np.dtype(np.uint64),
}


def numpy_dtype(t: Type) -> np.dtype:
    """The NumPy dtype that holds values of element type ``t`` (or of a tensor type's elements).

    Quantized types map to their storage type.  Raises ``TypeError`` for types with no
    array representation (token, tuple, function, opaque).
    """
    if isinstance(t, TensorType):
        t = t.element_type
    if isinstance(t, IntegerType):
        if t.is_bool:
            return np.dtype(np.bool_)
        table = _UNSIGNED_INT if t.is_unsigned else _SIGNED_INT
        if t.width in table:
            return table[t.width]
        raise TypeError(f"no array dtype for integer type {t}")
    if isinstance(t, FloatType):
        return _FLOAT_DTYPES[t.name]
    if isinstance(t, ComplexType):
        inner = t.element_type
        if isinstance(inner, FloatType) and inner.name == "f32":
            return np.dtype(np.complex64)
        if isinstance(inner, FloatType) and inner.name == "f64":
            return np.dtype(np.complex128)
        raise TypeError(f"no array dtype for {t}")
    if isinstance(t, QuantizedType):
        return numpy_dtype(t.storage_type)
    if isinstance(t, IndexType):
        return np.dtype(np.int64)
    raise TypeError(f"no array dtype for type {t}")


# ---- Attributes ----------------------------------------------------------------------


class Attribute:
    """Base class of every attribute."""

    __slots__ = ()


@dataclass(frozen=True)
class UnitAttr(Attribute):
    """A present-but-valueless attribute (``{has_side_effect}``)."""


@dataclass(frozen=True)
class BoolAttr(Attribute):
    value: bool


@dataclass(frozen=True)
class IntegerAttr(Attribute):
    """``3 : i64``; ``type`` is None when the text gives no type (``3``)."""

    value: int
    type: Type | None = None


@dataclass(frozen=True)
class FloatAttr(Attribute):
    """``1.0e-3 : f32``.  ``value`` is exact for every format up to f64."""

    value: float
    type: Type | None = None

    def __eq__(self, other: object) -> bool:  # NaN-safe, sign-of-zero-safe
        if not isinstance(other, FloatAttr):
            return NotImplemented
        return self.type == other.type and (
            np.float64(self.value).tobytes() == np.float64(other.value).tobytes()
        )

    def __hash__(self) -> int:
        return hash((np.float64(self.value).tobytes(), self.type))


@dataclass(frozen=True)
class StringAttr(Attribute):
    """A string attribute; ``value`` is the unescaped text (its bytes decoded as UTF-8
    with surrogateescape: a byte that is not UTF-8 is a lone surrogate, lexer.py)."""

    value: str


@dataclass(frozen=True)
class TypeAttr(Attribute):
    type: Type


@dataclass(frozen=True)
class SymbolRefAttr(Attribute):
    """``@foo`` or ``@foo::@bar``."""

    root: str
    nested: tuple[str, ...] = ()


@dataclass(frozen=True)
class ArrayAttr(Attribute):
    """``[a, b, c]``."""

    elements: tuple[Attribute, ...]


@dataclass(frozen=True)
class DenseArrayAttr(Attribute):
    """``array<i64: 1, 2, 3>`` (``array<i1: true, false>`` holds bools)."""

    element_type: Type
    values: tuple[Any, ...]


@dataclass(frozen=True)
class DictionaryAttr(Attribute):
    """``{a = 1, b}``: entries in the order the text gives them."""

    entries: tuple[tuple[str, Attribute], ...]

    @cached_property
    def mapping(self) -> dict[str, Attribute]:
        return dict(self.entries)

    def get(self, name: str, default: Any = None) -> Any:
        return self.mapping.get(name, default)


@dataclass(frozen=True, eq=False)
class DenseElementsAttr(Attribute):
    """``dense<...> : tensor<...>``.

    ``array`` is a read-only NumPy array of shape ``type.shape`` in ``numpy_dtype(type)``
    (storage type for quantized tensors).  Large constants are held once as bytes.
    ``hex`` records that the text used the ``"0x..."`` blob form, so the printer can
    give it back the same way.
    """

    type: TensorType
    array: np.ndarray
    hex: bool = False
    # a zero-element type's splat element (MLIR stores it: not ``dense<>``), else None
    empty_splat: np.ndarray | None = None

    @cached_property
    def _key(self) -> tuple:
        a = self.array
        if self.empty_splat is not None:
            return (self.type, a.dtype.str, a.shape, "empty splat", self.empty_splat.tobytes())
        if a.size > 1 and self.is_splat:  # a lazy splat never materializes
            return (self.type, a.dtype.str, a.shape, "splat", a.reshape(-1)[:1].tobytes())
        return (self.type, a.dtype.str, a.shape, a.tobytes())

    @property
    def is_splat(self) -> bool:
        """True when every element has the same bit pattern (and there is one at least)."""
        a = self.array
        if a.size and not any(a.strides):  # a zero-stride view of one element
            return True
        flat = np.ascontiguousarray(a).reshape(-1)
        if flat.size == 0:
            return False
        raw = flat.view(np.uint8).reshape(flat.size, flat.dtype.itemsize)
        return bool((raw == raw[0]).all())

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, DenseElementsAttr):
            return NotImplemented
        return self._key == other._key and self.hex == other.hex

    def __hash__(self) -> int:
        return hash(self._key)


@dataclass(frozen=True)
class DenseResourceAttr(Attribute):
    """``dense_resource<blob> : tensor<...>``; the blob lives in the module's resources."""

    type: TensorType
    handle: str


@dataclass(frozen=True)
class EnumAttr(Attribute):
    """A dialect enum: ``#stablehlo<comparison_direction LT>`` or
    ``#stablehlo.result_accuracy_mode<DEFAULT>``.

    ``kind`` is the enum's name, ``value`` the case.  ``short`` is True for the
    ``#dialect<kind VALUE>`` spelling and False for ``#dialect.kind<VALUE>``.
    """

    dialect: str
    kind: str
    value: str
    short: bool = True


@dataclass(frozen=True)
class LocationAttr(Attribute):
    """``loc(...)``: ``text`` is what stands between the parentheses, verbatim
    (``"file.py":3:7``, ``unknown``, ``#loc3``, ``fused[...]``, ...)."""

    text: str


@dataclass(frozen=True)
class OpaqueAttr(Attribute):
    """An attribute hlorun does not model (other dialects, affine maps...), kept as text."""

    text: str

    def __str__(self) -> str:
        return self.text


# ---- StableHLO's structured attributes (spec names) ----------------------------------


@dataclass(frozen=True)
class TypeExtensions(Attribute):
    """``#stablehlo.bounds<?, 4>`` (or ``#stablehlo.type_extensions<bounds = [...]>``):
    the bound of each dimension, None where there is none."""

    bounds: tuple[int | None, ...]
    # "bounds" | "type_extensions": how the text spelled it, not part of equality
    spelling: str = field(default="bounds", compare=False)

    def __str__(self) -> str:
        """As the text spelled it (StablehloAttrs.td: ``#stablehlo.bounds<?, 4>``, or the
        older ``#stablehlo.type_extensions<bounds = [?, 4]>``)."""
        dims = ", ".join("?" if b is None else str(b) for b in self.bounds)
        if self.spelling == "type_extensions":
            return f"#stablehlo.type_extensions<bounds = [{dims}]>"
        return f"#stablehlo.bounds<{dims}>"


@dataclass(frozen=True)
class GatherDimensionNumbers(Attribute):
    offset_dims: tuple[int, ...] = ()
    collapsed_slice_dims: tuple[int, ...] = ()
    operand_batching_dims: tuple[int, ...] = ()
    start_indices_batching_dims: tuple[int, ...] = ()
    start_index_map: tuple[int, ...] = ()
    index_vector_dim: int = 0


@dataclass(frozen=True)
class ScatterDimensionNumbers(Attribute):
    update_window_dims: tuple[int, ...] = ()
    inserted_window_dims: tuple[int, ...] = ()
    input_batching_dims: tuple[int, ...] = ()
    scatter_indices_batching_dims: tuple[int, ...] = ()
    scatter_dims_to_operand_dims: tuple[int, ...] = ()
    index_vector_dim: int = 0


@dataclass(frozen=True)
class DotDimensionNumbers(Attribute):
    lhs_batching_dimensions: tuple[int, ...] = ()
    rhs_batching_dimensions: tuple[int, ...] = ()
    lhs_contracting_dimensions: tuple[int, ...] = ()
    rhs_contracting_dimensions: tuple[int, ...] = ()


@dataclass(frozen=True)
class ConvDimensionNumbers(Attribute):
    """Convolution dimension numbers; ``raw`` is True when written as
    ``#stablehlo.conv<raw ...>`` rather than ``[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]``."""

    input_batch_dimension: int
    input_feature_dimension: int
    input_spatial_dimensions: tuple[int, ...]
    kernel_input_feature_dimension: int
    kernel_output_feature_dimension: int
    kernel_spatial_dimensions: tuple[int, ...]
    output_batch_dimension: int
    output_feature_dimension: int
    output_spatial_dimensions: tuple[int, ...]
    raw: bool = False


@dataclass(frozen=True)
class ChannelHandle(Attribute):
    handle: int
    type: int


@dataclass(frozen=True)
class OutputOperandAlias(Attribute):
    output_tuple_indices: tuple[int, ...]
    operand_index: int
    operand_tuple_indices: tuple[int, ...]


@dataclass(frozen=True)
class DotAlgorithm(Attribute):
    lhs_precision_type: Type
    rhs_precision_type: Type
    accumulation_type: Type
    lhs_component_count: int
    rhs_component_count: int
    num_primitive_operations: int
    allow_imprecise_accumulation: bool


@dataclass(frozen=True)
class ResultAccuracy(Attribute):
    """``#stablehlo.result_accuracy<atol = 0.0, rtol = 0.0, ulps = 0, mode = ...>``."""

    atol: float = 0.0
    rtol: float = 0.0
    ulps: int = 0
    mode: EnumAttr | None = None

    def _key(self) -> tuple:  # tolerances by bit pattern: NaN-safe, sign-of-zero-safe
        return (np.array([self.atol, self.rtol], np.float64).tobytes(), self.ulps, self.mode)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ResultAccuracy) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())


@dataclass(frozen=True)
class DialectAttr(Attribute):
    """Any other ``#dialect.name<key = value, ...>`` attribute whose parameters parse as
    attributes (e.g. ``#stablehlo.axis_ref<...>``, ``#chlo.ragged_dot<...>``).
    ``params`` keeps the text's order; a positional parameter has key ``""``."""

    dialect: str
    name: str
    params: tuple[tuple[str, Attribute], ...]

    def get(self, key: str, default: Any = None) -> Any:
        for k, v in self.params:
            if k == key:
                return v
        return default


# ---- Operations, regions, functions, modules -----------------------------------------


@dataclass(frozen=True)
class Value:
    """An SSA value: its name as written (``%0``, ``%0#1``, ``%arg0``) and its type."""

    name: str
    type: Type


@dataclass(frozen=True)
class Block:
    """A block: optional label (``^bb0``), arguments, and operations in order.

    ``arg_locations`` holds one ``LocationAttr`` or None per argument.
    """

    arguments: tuple[Value, ...]
    operations: tuple[Operation, ...]
    label: str | None = None
    arg_locations: tuple[LocationAttr | None, ...] = ()


@dataclass(frozen=True)
class Region:
    blocks: tuple[Block, ...]

    @property
    def entry(self) -> Block:
        return self.blocks[0]


@dataclass(frozen=True)
class Operation:
    """One operation, whatever form (pretty or generic) the text used.

    ``attributes`` holds every attribute (the pretty form's custom syntax decoded into
    the same attributes the generic form spells out), in a stable order.
    ``property_names`` lists those that the generic form wrote inside ``<{...}>`` (or the
    pretty form spelled in its custom syntax); it is not part of equality.
    ``location`` is the explicit ``loc(...)`` written after the op, if any; ``pos`` is
    where the op starts in the source text (not part of equality).
    """

    name: str
    operands: tuple[Value, ...] = ()
    results: tuple[Value, ...] = ()
    attributes: tuple[tuple[str, Attribute], ...] = ()
    regions: tuple[Region, ...] = ()
    successors: tuple[str, ...] = ()
    # Which attributes the text wrote as properties: a spelling, not a meaning (MLIR
    # treats inherent attributes the same whether written in ``<{}>`` or ``{}``).
    property_names: frozenset[str] = field(default=frozenset(), compare=False)
    location: LocationAttr | None = None
    pos: SourcePos = field(default=UNKNOWN_POS, compare=False, repr=False)

    @cached_property
    def attr_map(self) -> dict[str, Attribute]:
        return dict(self.attributes)

    def attr(self, name: str, default: Any = None) -> Any:
        return self.attr_map.get(name, default)

    @property
    def result_types(self) -> tuple[Type, ...]:
        return tuple(v.type for v in self.results)

    @property
    def operand_types(self) -> tuple[Type, ...]:
        return tuple(v.type for v in self.operands)

    @property
    def dialect(self) -> str:
        return self.name.split(".", 1)[0] if "." in self.name else ""


VISIBILITIES = ("public", "private", "nested")  # Function.visibility


@dataclass(frozen=True)
class Function:
    """``func.func [visibility] @name(args) -> results attributes {...} { body }``.

    ``arg_attrs``/``result_attrs`` hold one ``DictionaryAttr`` or None per argument /
    result.  ``body`` is None for a declaration (external function).
    """

    name: str
    type: FunctionType
    body: Region | None
    # None (public by default) or one of VISIBILITIES, MLIR's SymbolTable's: a func.func of
    # another stays a generic operation (MLIR's symbol verifier refuses it)
    visibility: str | None = None
    arg_attrs: tuple[DictionaryAttr | None, ...] = ()
    result_attrs: tuple[DictionaryAttr | None, ...] = ()
    attributes: tuple[tuple[str, Attribute], ...] = ()
    location: LocationAttr | None = None
    pos: SourcePos = field(default=UNKNOWN_POS, compare=False, repr=False)

    @property
    def arguments(self) -> tuple[Value, ...]:
        return self.body.entry.arguments if self.body is not None else ()


@dataclass(frozen=True)
class Module:
    """A module: functions and any other top-level operations, in text order.

    ``name`` is the optional ``@name`` of ``module @name``; ``attributes`` its
    ``attributes {...}``.  ``aliases`` keeps ``#alias = ...`` / ``!alias = ...``
    definitions (name, Attribute or Type) in text order; ``resources`` keeps
    ``{-# dialect_resources: ... #-}`` blobs as (dialect, key, bytes-as-hex-text).
    ``implicit`` is True when the text had no ``module { }`` wrapper.
    """

    body: tuple[Function | Operation, ...]
    name: str | None = None
    attributes: tuple[tuple[str, Attribute], ...] = ()
    aliases: tuple[tuple[str, Attribute | Type], ...] = ()
    resources: tuple[tuple[str, str, str], ...] = ()
    implicit: bool = False
    location: LocationAttr | None = None
    pos: SourcePos = field(default=UNKNOWN_POS, compare=False, repr=False)

    @cached_property
    def functions(self) -> dict[str, Function]:
        return {f.name: f for f in self.body if isinstance(f, Function)}

    @cached_property
    def attr_map(self) -> dict[str, Attribute]:
        return dict(self.attributes)

    def attr(self, name: str, default: Any = None) -> Any:
        return self.attr_map.get(name, default)
