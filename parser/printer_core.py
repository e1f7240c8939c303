"""MLIR's generic syntax, printed: types, attributes, modules, functions, regions and
the generic operation form ``"dialect.op"(%a) <{props}> ({regions}) {attrs} : (t) -> t``.

``BasePrinter`` writes everything in generic form; ``printer._Printer`` adds the
custom (pretty) forms the declarations' format strings give (``op_format``).  Types spell
themselves (``Type.spell`` in ir.py, which ``str(type)`` uses too).  Sources: MLIR's
AsmPrinter.cpp (OperationPrinter, printAttribute) and StableHLO's attribute printers
(StablehloAttrs.td assembly formats, StablehloOps.cpp).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from . import dialects
from .attributes import first_element
from .errors import UnsupportedError
from .ir import (
    ArrayAttr,
    Attribute,
    Block,
    BoolAttr,
    ChannelHandle,
    ComplexType,
    ConvDimensionNumbers,
    DenseArrayAttr,
    DenseElementsAttr,
    DenseResourceAttr,
    DialectAttr,
    DictionaryAttr,
    DotAlgorithm,
    DotDimensionNumbers,
    EnumAttr,
    FloatAttr,
    FloatType,
    Function,
    FunctionType,
    GatherDimensionNumbers,
    IndexType,
    IntegerAttr,
    IntegerType,
    LocationAttr,
    Module,
    NoneType,
    OpaqueAttr,
    OpaqueType,
    Operation,
    OutputOperandAlias,
    QuantizedType,
    Region,
    ResultAccuracy,
    ScatterDimensionNumbers,
    StringAttr,
    SymbolRefAttr,
    TensorType,
    TokenType,
    TupleType,
    Type,
    TypeAttr,
    TypeExtensions,
    UnitAttr,
    Value,
    function_type_text,
)
from .number_text import (
    _format_elements,
    _format_floats,
    _hex_blob,
    _nest,
    _untyped_float,
    format_float,
)

# --------------------------------------------------------------------------------------
# Lexical helpers
# --------------------------------------------------------------------------------------

_BARE_ID = re.compile(r"[A-Za-z_][A-Za-z0-9_$.]*\Z")
# llvm::printEscapedString: printable ASCII except `"` and `\` as is, `\\`, else `\XX`.
_ESCAPE = tuple(
    "\\\\" if c == 0x5C else chr(c) if 0x20 <= c < 0x7F and c != 0x22 else f"\\{c:02X}"
    for c in range(256)
)
_PLAIN = re.compile(r"[ !#-\[\]-~]*\Z")


def escape_string(s: str) -> str:
    """``s`` as an MLIR string literal (with the quotes): its UTF-8 bytes (a lone
    surrogate from ``surrogateescape`` is the byte it stands for), printable ASCII as
    is, every other byte as ``\\XX`` (lexer.unescape_string reads it back)."""
    if _PLAIN.match(s):
        return f'"{s}"'
    try:
        data = s.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:  # a surrogate no parse produces (a hand-built IR)
        data = s.encode("utf-8", "surrogatepass")
    return '"' + "".join([_ESCAPE[b] for b in data]) + '"'


def _keyword_or_string(name: str) -> str:
    """A bare identifier when ``name`` is one, else a quoted string (MLIR's rule)."""
    return name if _BARE_ID.match(name) else escape_string(name)


def _symbol(name: str) -> str:
    """``@name`` (``name`` given with or without its ``@``)."""
    if name.startswith("@"):
        name = name[1:]
    return "@" + _keyword_or_string(name)


# The types of parser/ir.py (each spells itself: Type.spell / __str__).
_SPELLED_TYPES = (
    TensorType,
    IntegerType,
    FloatType,
    IndexType,
    NoneType,
    ComplexType,
    QuantizedType,
    TokenType,
    TupleType,
    FunctionType,
    OpaqueType,
)


class BasePrinter:
    """Writes one module in MLIR's generic syntax; caches the text of types (by identity)
    while it runs.  ``custom_forms`` maps op names to their pretty printers (printer.py
    sets the families' tables); an op without one, or whose IR does not fit its form,
    is written in the generic form."""

    custom_forms: Mapping[str, Callable[..., str | None]] = {}
    # What stands between a custom form's keyword or comma and an enum case:
    # stablehlo-opt used to print the enum's own leading space (`stablehlo.compare  LT,
    # %a, %b,  SIGNED`, as tests/interpret/*.mlir were written); MLIR now prints one
    # space (CanonicalPrinter: `stablehlo.compare LT, %a, %b, SIGNED`).
    enum_gap = " "
    # True for printers that write MLIR's canonical text (printer.CanonicalPrinter)
    canonical = False

    def __init__(self, hex_above: int | None = None) -> None:
        self.hex_above = hex_above
        self._types: dict[int, tuple[Type, str]] = {}
        self._attr_dispatch: dict[type, Callable[[Any], str]] = {
            UnitAttr: lambda a: "unit",
            BoolAttr: lambda a: "true" if a.value else "false",
            IntegerAttr: self._integer_attr,
            FloatAttr: self._float_attr,
            StringAttr: lambda a: escape_string(a.value),
            TypeAttr: lambda a: self.type(a.type),
            SymbolRefAttr: lambda a: "::".join(_symbol(s) for s in (a.root, *a.nested)),
            ArrayAttr: lambda a: "[" + ", ".join(self.attr(e) for e in a.elements) + "]",
            DenseArrayAttr: self._dense_array,
            DictionaryAttr: lambda a: self.dict(a.entries),
            DenseElementsAttr: self._dense_elements,
            DenseResourceAttr: lambda a: f"dense_resource<{a.handle}> : {self.type(a.type)}",
            EnumAttr: _enum_attr,
            LocationAttr: lambda a: f"loc({a.text})",
            OpaqueAttr: lambda a: a.text,
            TypeExtensions: str,
            GatherDimensionNumbers: lambda a: _struct("gather", _gather_fields(a)),
            ScatterDimensionNumbers: lambda a: _struct("scatter", _scatter_fields(a)),
            DotDimensionNumbers: lambda a: _struct("dot", _dot_fields(a)),
            ConvDimensionNumbers: lambda a: f"#stablehlo.conv<{_conv_body(a)}>",
            ChannelHandle: lambda a: (
                f"#stablehlo.channel_handle<handle = {a.handle}, type = {a.type}>"
            ),
            OutputOperandAlias: _output_operand_alias,
            DotAlgorithm: lambda a: "#stablehlo.dot_algorithm" + self._dot_algorithm_body(a),
            ResultAccuracy: self._result_accuracy,
            DialectAttr: self._dialect_attr,
        }

    # ---- types ------------------------------------------------------------------------

    def type(self, t: Type) -> str:
        hit = self._types.get(id(t))
        if hit is not None and hit[0] is t:
            return hit[1]
        s = self._type_uncached(t)
        self._types[id(t)] = (t, s)
        return s

    def _type_uncached(self, t: Type) -> str:
        """The type's own spelling (``Type.spell``, the one implementation), its parts
        through this printer (cached types, attributes)."""
        if not isinstance(t, _SPELLED_TYPES):
            if getattr(t, "dialect", None) in dialects.PLUGINS:  # a plug-in's (VHLO's)
                return dialects.print_type(t, self.attr, self.type)
            raise UnsupportedError(f"the printer has no syntax for type {type(t).__name__}")
        return t.spell(self.type, self.attr)

    def function_type(self, inputs: Sequence[Type], results: Sequence[Type]) -> str:
        return function_type_text(inputs, results, self.type)

    # ---- attributes -------------------------------------------------------------------

    def attr(self, a: Attribute) -> str:
        fn = self._attr_dispatch.get(type(a))
        text_of = getattr(a, "mlir_text", None)
        if fn is None and callable(text_of):  # attributes that print themselves (parser/sdy.py)
            return str(text_of())
        if fn is None:
            if getattr(a, "dialect", None) not in dialects.PLUGINS:
                raise UnsupportedError(
                    f"the printer has no syntax for attribute {type(a).__name__}"
                )
            # a plug-in dialect's attribute class (VHLO's): its printer, through the
            # registry (which imports the plug-in), from now on
            fn = self._attr_dispatch[type(a)] = self._plugin_attr
        return fn(a)

    def _plugin_attr(self, a: Attribute) -> str:
        return dialects.print_attribute(a, self.attr, self.type)

    def dict(self, entries: Sequence[tuple[str, Attribute]]) -> str:
        parts = []
        for k, v in entries:
            key = _keyword_or_string(k)
            parts.append(key if isinstance(v, UnitAttr) else f"{key} = {self.attr(v)}")
        return "{" + ", ".join(parts) + "}"

    def _integer_attr(self, a: IntegerAttr) -> str:
        if a.type is None:
            return str(a.value)
        return f"{a.value} : {self.type(a.type)}"

    def _float_attr(self, a: FloatAttr) -> str:
        if a.type is None:
            return _untyped_float(a.value)
        return f"{format_float(a.value, a.type)} : {self.type(a.type)}"

    def _dense_array(self, a: DenseArrayAttr) -> str:
        et = a.element_type
        if not a.values:
            return f"array<{self.type(et)}>"
        if isinstance(et, IntegerType) and et.is_bool:
            body = ", ".join("true" if v else "false" for v in a.values)
        elif isinstance(et, FloatType):
            body = ", ".join(_format_floats(np.array(a.values, dtype=np.float64), et.name))
        else:
            body = ", ".join(str(int(v)) for v in a.values)
        return f"array<{self.type(et)}: {body}>"

    def _dense_elements(self, a: DenseElementsAttr) -> str:
        return f"dense<{self.dense_body(a)}> : {self.type(a.type)}"

    def dense_body(self, a: DenseElementsAttr) -> str:
        """What stands between ``dense<`` and ``>``."""
        elem = a.type.element_type
        arr = a.array
        lazy = arr.size > 1 and not any(arr.strides)  # a splat kept as one element
        if a.hex:
            return _hex_blob(first_element(arr) if lazy else arr, elem)
        if arr.size == 0:
            if a.empty_splat is not None:
                return _format_elements(a.empty_splat.reshape(1), elem)[0]
            return ""
        if a.is_splat:
            return _format_elements(first_element(arr), elem)[0]
        if self.hex_above is not None and arr.size > self.hex_above:
            return _hex_blob(arr, elem)
        strs = _format_elements(arr.reshape(-1), elem)
        return _nest(strs, arr.shape)

    def _dot_algorithm_body(self, a: DotAlgorithm) -> str:
        return (
            f"<lhs_precision_type = {self.type(a.lhs_precision_type)}, "
            f"rhs_precision_type = {self.type(a.rhs_precision_type)}, "
            f"accumulation_type = {self.type(a.accumulation_type)}, "
            f"lhs_component_count = {a.lhs_component_count}, "
            f"rhs_component_count = {a.rhs_component_count}, "
            f"num_primitive_operations = {a.num_primitive_operations}, "
            f"allow_imprecise_accumulation = {'true' if a.allow_imprecise_accumulation else 'false'}>"
        )

    def _result_accuracy(self, a: ResultAccuracy) -> str:
        parts = []
        for key in ("atol", "rtol"):
            v = float(getattr(a, key))
            if np.float64(v).tobytes() != np.float64(0.0).tobytes():
                parts.append(f"{key} = {format_float(v, None)}")
        if a.ulps != 0:
            parts.append(f"ulps = {a.ulps}")
        if a.mode is not None:
            parts.append(f"mode = {self.attr(a.mode)}")
        return "#stablehlo.result_accuracy<" + ", ".join(parts) + ">"

    def _dialect_attr(self, a: DialectAttr) -> str:
        parts = [self.attr(v) if k == "" else f"{k} = {self.attr(v)}" for k, v in a.params]
        return f"#{a.dialect}.{a.name}<" + ", ".join(parts) + ">"

    # ---- module, functions, regions ---------------------------------------------------

    def module(self, m: Module) -> str:
        out: list[str] = []
        for name, value in m.aliases:
            bare = name.lstrip("#!")
            if isinstance(value, Type):
                out.append(f"!{bare} = {self.type(value)}")
            else:
                out.append(f"#{bare} = {self.attr(value)}")
        out += self.module_lines(m)
        if m.resources:
            out.append(self._resources(m.resources))
        return "\n".join(out) + "\n"

    def _resources(self, resources: Sequence[tuple[str, str, str]]) -> str:
        by_dialect: dict[str, list[tuple[str, str]]] = {}
        for dialect, key, blob in resources:
            by_dialect.setdefault(dialect, []).append((key, blob))
        lines = ["{-#", "  dialect_resources: {"]
        groups = list(by_dialect.items())
        for i, (dialect, entries) in enumerate(groups):
            lines.append(f"    {_keyword_or_string(dialect)}: {{")
            for j, (key, blob) in enumerate(entries):
                text = blob if blob.startswith('"') else f'"{blob}"'
                comma = "," if j + 1 < len(entries) else ""
                lines.append(f"      {_keyword_or_string(key)}: {text}{comma}")
            lines.append("    }" + ("," if i + 1 < len(groups) else ""))
        lines += ["  }", "#-}"]
        return "\n".join(lines)

    def module_lines(self, m: Module) -> list[str]:
        """The module op's lines (printer._Printer's: its declared form)."""
        raise NotImplementedError

    def function(self, f: Function, depth: int) -> str:
        """A function at ``depth`` (printer._Printer's: its declared form)."""
        raise NotImplementedError

    def _opt_dict(self, attrs: Sequence[DictionaryAttr | None], i: int) -> str:
        d = _at(attrs, i)
        return "" if d is None else " " + self.dict(d.entries)

    @staticmethod
    def _loc(loc: LocationAttr | None) -> str:
        return "" if loc is None else f" loc({loc.text})"

    def region(
        self,
        region: Region,
        depth: int,
        *,
        entry_args: bool = True,
        empty_entry_label: bool = False,
    ) -> str:
        """``{`` blocks ``}``; the closing brace is indented at ``depth``."""
        ind = "  " * depth
        lines = ["{"]
        for i, block in enumerate(region.blocks):
            header = i > 0 or block.label is not None or (entry_args and block.arguments)
            if i == 0 and empty_entry_label and not block.operations:
                header = True
            if header:
                lines.append(ind + self._block_header(block, i))
            for op in block.operations:
                lines.append(self.operation(op, depth + 1))
        lines.append(ind + "}")
        return "\n".join(lines)

    def _block_header(self, block: Block, index: int) -> str:
        label = block.label or f"^bb{index}"
        if not label.startswith("^"):
            label = "^" + label
        if block.arguments:
            label += "(" + self.block_args(block) + ")"
        return label + ":"

    def block_args(self, block: Block, indices: Sequence[int] | None = None) -> str:
        args = block.arguments
        idx = range(len(args)) if indices is None else indices
        return ", ".join(
            f"{args[i].name}: {self.type(args[i].type)}" + self._loc(_at(block.arg_locations, i))
            for i in idx
        )

    # ---- operations -------------------------------------------------------------------

    def operation(self, op: Operation, depth: int) -> str:
        text = None
        pretty = self.custom_forms.get(op.name)
        if pretty is not None and not op.successors:
            text = pretty(self, op, depth)
        if text is None:
            text = self.generic(op, depth)
        return "  " * depth + _result_list(op.results) + text + self._loc(op.location)

    def generic(self, op: Operation, depth: int, *, name: str | None = None) -> str:
        s = name if name is not None else escape_string(op.name)
        s += "(" + _names(op.operands) + ")"
        if op.successors:
            s += "[" + ", ".join(op.successors) + "]"
        props = [(k, v) for k, v in op.attributes if k in op.property_names]
        rest = [(k, v) for k, v in op.attributes if k not in op.property_names]
        if props:
            s += " <" + self.dict(props) + ">"
        if op.regions:
            s += (
                " ("
                + ", ".join(self.region(r, depth, empty_entry_label=True) for r in op.regions)
                + ")"
            )
        if rest:
            s += " " + self.dict(rest)
        return s + " : " + self.function_type(op.operand_types, op.result_types)

    # -- helpers for the pretty forms --

    def attr_dict(self, op: Operation, consumed: Sequence[str] | frozenset[str] = ()) -> str:
        rest = [(k, v) for k, v in op.attributes if k not in consumed]
        return " " + self.dict(rest) if rest else ""

    def same_type(self, op: Operation) -> str:
        """custom<SameOperandsAndResultType>: one type when all agree, else functional."""
        res = op.results[0].type
        if all(v.type == res for v in op.operands):
            return self.type(res)
        return self.function_type(op.operand_types, op.result_types)

    def functional(self, op: Operation) -> str:
        return self.function_type(op.operand_types, op.result_types)


# --------------------------------------------------------------------------------------
# Attribute helpers (module level: no printer state needed)
# --------------------------------------------------------------------------------------


def _at(seq: Sequence, i: int):
    return seq[i] if i < len(seq) else None


def _enum_attr(a: EnumAttr) -> str:
    if a.short:
        return f"#{a.dialect}<{a.kind} {a.value}>"
    return f"#{a.dialect}.{a.kind}<{a.value}>"


def _ints(xs: Sequence[int]) -> str:
    return "[" + ", ".join(str(int(x)) for x in xs) + "]"


def _struct(mnemonic: str, fields: Sequence[tuple[str, object]]) -> str:
    """StableHLO's printStruct: list fields are left out when empty, ints when zero."""
    parts = []
    for name, value in fields:
        if isinstance(value, tuple):
            if value:
                parts.append(f"{name} = {_ints(value)}")
        elif value != 0:
            parts.append(f"{name} = {value}")
    return f"#stablehlo.{mnemonic}<" + ", ".join(parts) + ">"


def _gather_fields(a: GatherDimensionNumbers) -> list[tuple[str, object]]:
    return [
        ("offset_dims", tuple(a.offset_dims)),
        ("collapsed_slice_dims", tuple(a.collapsed_slice_dims)),
        ("operand_batching_dims", tuple(a.operand_batching_dims)),
        ("start_indices_batching_dims", tuple(a.start_indices_batching_dims)),
        ("start_index_map", tuple(a.start_index_map)),
        ("index_vector_dim", a.index_vector_dim),
    ]


def _scatter_fields(a: ScatterDimensionNumbers) -> list[tuple[str, object]]:
    return [
        ("update_window_dims", tuple(a.update_window_dims)),
        ("inserted_window_dims", tuple(a.inserted_window_dims)),
        ("input_batching_dims", tuple(a.input_batching_dims)),
        ("scatter_indices_batching_dims", tuple(a.scatter_indices_batching_dims)),
        ("scatter_dims_to_operand_dims", tuple(a.scatter_dims_to_operand_dims)),
        ("index_vector_dim", a.index_vector_dim),
    ]


def _dot_fields(a: DotDimensionNumbers) -> list[tuple[str, object]]:
    return [
        ("lhs_batching_dimensions", tuple(a.lhs_batching_dimensions)),
        ("rhs_batching_dimensions", tuple(a.rhs_batching_dimensions)),
        ("lhs_contracting_dimensions", tuple(a.lhs_contracting_dimensions)),
        ("rhs_contracting_dimensions", tuple(a.rhs_contracting_dimensions)),
    ]


def _output_operand_alias(a: OutputOperandAlias) -> str:
    return (
        "#stablehlo.output_operand_alias<"
        f"output_tuple_indices = {_ints(a.output_tuple_indices)}, "
        f"operand_index = {a.operand_index}, "
        f"operand_tuple_indices = {_ints(a.operand_tuple_indices)}>"
    )


def _conv_layout(batch: int, feature: int, spatial: Sequence[int], b: str, f: str) -> str | None:
    rank = len(spatial) + 2
    slots: list[str | None] = [None] * rank
    for dim, label in [(batch, b), (feature, f), *((d, str(i)) for i, d in enumerate(spatial))]:
        if not 0 <= dim < rank or slots[dim] is not None:
            return None
        slots[dim] = label
    return "[" + ", ".join(slots) + "]"  # type: ignore[arg-type]


def conv_dimensions(a: ConvDimensionNumbers) -> str | None:
    """``[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]``, or None when that cannot express ``a``."""
    n = len(a.input_spatial_dimensions)
    if len(a.kernel_spatial_dimensions) != n or len(a.output_spatial_dimensions) != n:
        return None
    lhs = _conv_layout(
        a.input_batch_dimension, a.input_feature_dimension, a.input_spatial_dimensions, "b", "f"
    )
    rhs = _conv_layout(
        a.kernel_input_feature_dimension,
        a.kernel_output_feature_dimension,
        a.kernel_spatial_dimensions,
        "i",
        "o",
    )
    out = _conv_layout(
        a.output_batch_dimension, a.output_feature_dimension, a.output_spatial_dimensions, "b", "f"
    )
    if lhs is None or rhs is None or out is None:
        return None
    return f"{lhs}x{rhs}->{out}"


def _conv_body(a: ConvDimensionNumbers) -> str:
    compact = None if a.raw else conv_dimensions(a)
    if compact is not None:
        return compact
    return (
        "raw "
        f"input_batch_dimension = {a.input_batch_dimension}, "
        f"input_feature_dimension = {a.input_feature_dimension}, "
        f"input_spatial_dimensions = {_ints(a.input_spatial_dimensions)}, "
        f"kernel_input_feature_dimension = {a.kernel_input_feature_dimension}, "
        f"kernel_output_feature_dimension = {a.kernel_output_feature_dimension}, "
        f"kernel_spatial_dimensions = {_ints(a.kernel_spatial_dimensions)}, "
        f"output_batch_dimension = {a.output_batch_dimension}, "
        f"output_feature_dimension = {a.output_feature_dimension}, "
        f"output_spatial_dimensions = {_ints(a.output_spatial_dimensions)}"
    )


# --------------------------------------------------------------------------------------
# Value names
# --------------------------------------------------------------------------------------


def _names(values: Sequence[Value]) -> str:
    return ", ".join(v.name for v in values)


def _result_list(results: Sequence[Value]) -> str:
    """``%0 = ``, ``%0:2 = `` for ``%0#0, %0#1``, or ``%a, %b = ``."""
    if not results:
        return ""
    names = [v.name for v in results]
    if len(names) == 1 and "#" not in names[0]:
        return names[0] + " = "
    groups = []
    i, n = 0, len(names)
    while i < n:
        base, sep, idx = names[i].rpartition("#")
        if sep and idx == "0":
            k = 1
            while i + k < n and names[i + k] == f"{base}#{k}":
                k += 1
            groups.append(f"{base}:{k}")
            i += k
        else:
            groups.append(names[i])
            i += 1
    return ", ".join(groups) + " = "
