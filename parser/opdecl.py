"""One declaration per op: its attributes (name, kind, default, optional), its regions,
operands and results, its spec section and its text form.

The lowest layer that needs these facts is the parser: an op's custom (pretty) form is
its ``format`` string, which parser/op_format.py both parses and prints (the language
is described there), and ``shape_inference/optable.py`` derives each row's attribute
defaults (``OpDef.attrs``) from the same declaration.  Later tables (VHLO, ``hlorun
ops``) read it too.

Adding an op with a custom form: its row here (attributes, regions, ``_s(operands,
format, results)``), its shape function and kernel (shape_inference/, engine/kernels/);
a syntax no format element spells is one new directive in parser/format_directives.py
(parser/region_directives.py for an op with regions).  Other dialects' ops that programs
mix in are declared alike in parser/mixed_ops.py (VHLO's in parser/vhlo/op_forms.py).

Facts and their sources:

- attribute names, kinds and optionality: the ``arguments`` of each op in
  stablehlo/dialect/StablehloOps.td and ChloOps.td (``DenseI64ArrayAttr`` -> "i64_array",
  ``I64Attr`` -> "i64", ``OptionalAttr<...>`` / ``DefaultValued...`` -> optional...);
- text forms (``format``): the ``assemblyFormat`` of the same ops (their custom
  directives' C++ for the ``custom<...>`` ones), in parser/op_format.py's language;
- defaults: the value a shape function or kernel receives when the attribute is absent
  (the ``DefaultValued...`` default of the .td, else None / ``()``, as the spec's
  semantics section of the op reads an absent optional attribute);
- section: the op's heading in stablehlo/docs/spec.md (``### dot_general``), or the
  dialect's own document for chlo; for mhlo ops, openxla/xla's
  xla/mlir_hlo/mhlo/IR/hlo_ops.td (MHLO has no document of its own).

Value kinds (what parser/format_elements.py parses and prints for an attribute):
"i64" / "i32" / "ui64" (IntegerAttr of that type), "i64_array" (``array<i64: ...>``),
"bool_array" (``array<i1: ...>``), "bool",
"unit", "string", "f32", "enum:<kind>" (``#stablehlo<kind CASE>``), "precision_config"
(array of precision enums), "dense" (elements), "i64_elements" (I64ElementsAttr),
"dot_dimension_numbers", "gather_dimension_numbers", "scatter_dimension_numbers",
"conv_dimension_numbers" (structured attributes, which shape functions receive
flattened into their fields), "ragged_dot_dimension_numbers" (chlo's, not flattened),
"dot_algorithm", "channel_handle", "result_accuracy",
"dict", "symbol", "array", "any".
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any


class _Required:
    """The default of an attribute that has none (it must be present)."""

    def __repr__(self) -> str:
        return "REQUIRED"


REQUIRED: Any = _Required()

# Every value kind a declaration may use (module docstring); "enum:<kind>" besides.
KINDS = frozenset(
    (
        "i64 i32 ui64 i64_array bool_array bool unit string f32 precision_config dense "
        "i64_elements dot_dimension_numbers gather_dimension_numbers "
        "scatter_dimension_numbers conv_dimension_numbers ragged_dot_dimension_numbers "
        "dot_algorithm channel_handle result_accuracy dict symbol array any"
    ).split()
)

# Kinds whose attribute shape functions receive flattened into its fields.
STRUCT_KINDS = frozenset(
    {
        "dot_dimension_numbers",
        "gather_dimension_numbers",
        "scatter_dimension_numbers",
        "conv_dimension_numbers",
    }
)


@dataclass(frozen=True)
class AttrDecl:
    """One attribute of an op."""

    name: str  # as StablehloOps.td names the argument (and the generic form spells it)
    kind: str  # value kind (module docstring)
    default: Any = REQUIRED  # decoded value when absent; REQUIRED: it must be present
    # its keyword in an op with no declared format (the test dialects' `key = value`)
    key: str | None = None
    # the .td ``DefaultValued...`` default, as MLIR prints the attribute (``false``,
    # ``1 : i32``): ODS-generated printers leave it out of attr-dict at that value
    ods_default: str | None = None
    # True for a ``DefaultValuedAttr`` / ``DefaultValuedStrAttr`` (not ``...Optional...``):
    # MLIR sets it to its default when absent (ODS populateDefaultProperties), so the
    # generic form always shows it
    ods_populated: bool = False

    @property
    def optional(self) -> bool:
        return self.default is not REQUIRED


@dataclass(frozen=True)
class OpDecl:
    """One op: name, spec section, attributes (in .td order), region names, operands,
    results and its text form."""

    name: str
    section: str
    attrs: tuple[AttrDecl, ...] = ()
    regions: tuple[str, ...] = ()
    # operand and result names (StablehloOps.td ``arguments`` / ``results``); a name
    # ending in ``*`` is variadic, in ``+`` variadic of at least one
    operands: tuple[str, ...] = ()
    results: tuple[str, ...] = ("result",)
    # the custom text form, a format string of parser/op_format.py (None: the default
    # form of parser/default_form.py, or a plug-in dialect's own)
    format: str | None = None
    # False: the form is read, but the op is written in the generic form (as hlorun
    # always wrote it; its printed form would differ from the programs' recorded text)
    prints_format: bool = True
    # The names the custom form gives values (OpAsmOpInterface), when the op chooses
    # them itself: the rule of parser/ssa_names.py for its results
    # (``getAsmResultNames``) and for its regions' entry arguments
    # (``getAsmBlockArgumentNames``).  An op of several named results without its own
    # rule is named by its ``results`` (ssa_names.py, ``declared_names``).
    asm_result_names: str | None = None
    asm_block_arg_names: str | None = None
    # Bytecode properties (parser/bytecode/properties.py): the layouts, (name, optional,
    # ODS constraint) in name order, that earlier releases of the op's .td wrote, newest
    # first; and the op's layout when no generated table has it (mhlo)
    older_properties: tuple[tuple[tuple[str, bool, str], ...], ...] = ()
    properties: tuple[tuple[str, bool, str], ...] | None = None

    @classmethod
    def of(
        cls,
        name: str,
        source: str,
        fmt: str,
        operands: str = "",
        results: str = "result",
        attrs: tuple[AttrDecl, ...] = (),
        regions: tuple[str, ...] = (),
    ) -> OpDecl:
        """The declaration of an op another document describes (its section
        ``source#mnemonic``), operands and results given as space-separated names."""
        return cls(
            name,
            f"{source}#{name.partition('.')[2]}",
            attrs,
            regions,
            tuple(operands.split()),
            tuple(results.split()),
            fmt,
        )

    def attr(self, name: str) -> AttrDecl | None:
        for a in self.attrs:
            if a.name == name:
                return a
        return None

    @property
    def keyword_attrs(self) -> tuple[AttrDecl, ...]:
        """The attributes the custom form spells as ``key = value``, in order."""
        return tuple(a for a in self.attrs if a.key is not None)


def _a(name: str, kind: str, default: Any = REQUIRED, key: str | None = None, **kw) -> AttrDecl:
    return AttrDecl(name, kind, default, key, **kw)


@dataclass(frozen=True)
class Syntax:
    """A row's operands, results and text form (``OpDecl``'s fields of the same names)."""

    operands: tuple[str, ...]
    format: str | None
    results: tuple[str, ...] = ("result",)
    prints_format: bool = True


def _s(operands: str, fmt: str | None, results: str = "result", prints: bool = True) -> Syntax:
    """``Syntax`` from space-separated operand and result names."""
    return Syntax(tuple(operands.split()), fmt, tuple(results.split()), prints)


# Text forms of StablehloOps.td's assemblyFormat, in parser/op_format.py's language.
SAME_TYPE_FORMAT = "operands attr-dict `:` type(same)"  # custom<SameOperandsAndResultType>
_SAME = SAME_TYPE_FORMAT
_FUNCTIONAL = "operands attr-dict `:` type(functional)"  # functional-type(operands, results)


def _kw(items: str, types: str = "functional") -> str:
    """``operands, key = $attr, ... attr-dict : type(...)`` from ``key=attr`` pairs."""
    spelled = " `,` ".join(
        f"`{key}` `=` ${attr}" for key, attr in (item.split("=") for item in items.split())
    )
    return f"operands `,` {spelled} attr-dict `:` type({types})"


_UNARY = _s("operand", _SAME)
# the check / interpreter test dialects (docs/test-dialects.md): parser/default_form.py
_TEST = _s("operands*", "custom<KeywordItems>", "results*")
_CONVOLUTION = (
    "`(` operands `)` `dim_numbers` `=` custom<ConvolutionDimensions> "
    "custom<WindowAttributes> attr-dict `:` type(functional)"
)
# `$results attr-dict (: types)?` (stablehlo.return; func.return's is `attr-dict
# ($operands^ `:` type($operands))?`, which hlorun prints as stablehlo's)
_RETURN = _s("results*", "operands attr-dict (`:` type(operands)^)?", "")
_BINARY = _s("lhs rhs", _SAME)


_ACCURACY = (_a("result_accuracy", "result_accuracy", None),)
_GROUPED = (
    _a("replica_groups", "i64_elements"),
    _a("channel_handle", "channel_handle", None),
)

# (op, attributes, regions[, syntax]).  The section is derived: stablehlo ops -> spec.md#<mnemonic>,
# chlo ops -> chlo.md#<name>, the test dialects -> test-dialects.md.
_ROWS: tuple[tuple[Any, ...], ...] = (
    # ---- elementwise with result_accuracy (StablehloOps.td: `$result_accuracy`)
    *(
        (f"stablehlo.{n}", _ACCURACY, (), _UNARY)
        for n in (
            "cbrt cosine exponential exponential_minus_one log log_plus_one logistic "
            "rsqrt sine sqrt tan tanh"
        ).split()
    ),
    # ---- elementwise without attributes
    *(
        (f"stablehlo.{n}", (), (), _UNARY)
        for n in (
            "abs ceil convert count_leading_zeros floor not negate popcnt round_nearest_afz "
            "round_nearest_even sign uniform_quantize uniform_dequantize"
        ).split()
    ),
    *(
        (f"stablehlo.{n}", (), (), _BINARY)
        for n in (
            "add atan2 divide maximum minimum multiply power remainder shift_left "
            "shift_right_arithmetic shift_right_logical subtract and or xor"
        ).split()
    ),
    ("stablehlo.real", (), (), _s("operand", "operands attr-dict `:` type(real)")),
    ("stablehlo.imag", (), (), _s("operand", "operands attr-dict `:` type(real)")),
    ("stablehlo.complex", (), (), _s("lhs rhs", "operands attr-dict `:` type(complex)")),
    ("stablehlo.clamp", (), (), _s("min operand max", _SAME)),
    ("stablehlo.select", (), (), _s("pred on_true on_false", "operands attr-dict `:` type(select)")),
    ("stablehlo.is_finite", (), (), _s("x", _FUNCTIONAL)),
    ("stablehlo.bitcast_convert", (), (), _s("operand", _FUNCTIONAL)),
    ("stablehlo.reshape", (), (), _s("operand", _FUNCTIONAL)),
    ("stablehlo.dynamic_reshape", (), (), _s("operand output_shape", _FUNCTIONAL)),
    ("stablehlo.dynamic_update_slice", (), (), _s("operand update start_indices*", _FUNCTIONAL)),
    ("stablehlo.real_dynamic_slice", (), (), _s("operand start_indices limit_indices strides",
                                                _FUNCTIONAL)),
    ("stablehlo.dynamic_pad", (), (), _s(
        "operand padding_value edge_padding_low edge_padding_high interior_padding", _FUNCTIONAL)),
    # ---- tokens, tuples, process ids
    ("stablehlo.create_token", (), (), _s("", "attr-dict `:` type(same)")),
    ("stablehlo.replica_id", (), (), _s("", "attr-dict `:` type(same)")),
    ("stablehlo.partition_id", (), (), _s("", "attr-dict `:` type(same)")),
    ("stablehlo.after_all", (), (), _s("inputs*", _SAME)),  # <VariadicSameOperandsAndResultType>
    ("stablehlo.tuple", (), (), _s("val*", "operands attr-dict `:` type(tuple)")),
    ("stablehlo.compare", (
        _a("comparison_direction", "enum:comparison_direction"),
        _a("compare_type", "enum:comparison_type", None),
    ), (), _s("lhs rhs", "$comparison_direction `,` operands (`,` $compare_type^)? attr-dict "
              "`:` type(functional)")),
    # ---- shapes and data movement
    ("stablehlo.iota", (_a("iota_dimension", "i64"),), (),
     _s("", "`dim` `=` $iota_dimension attr-dict `:` type(same)")),
    ("stablehlo.dynamic_iota", (_a("iota_dimension", "i64"),), (),
     _s("output_shape", _kw("dim=iota_dimension"))),
    ("stablehlo.broadcast", (_a("broadcast_sizes", "i64_array"),), (),
     _s("operand", _kw("sizes=broadcast_sizes"))),
    ("stablehlo.broadcast_in_dim", (_a("broadcast_dimensions", "i64_array"),), (),
     _s("operand", _kw("dims=broadcast_dimensions"))),
    ("stablehlo.dynamic_broadcast_in_dim", (
        _a("broadcast_dimensions", "i64_array"),
        _a("known_expanding_dimensions", "i64_array", ()),
        _a("known_nonexpanding_dimensions", "i64_array", ()),
    ), (), _s("operand output_dimensions", _kw("dims=broadcast_dimensions"))),
    ("stablehlo.transpose", (_a("permutation", "i64_array"),), (),
     _s("operand", _kw("dims=permutation"))),
    ("stablehlo.reverse", (_a("dimensions", "i64_array"),), (),
     _s("operand", _kw("dims=dimensions", "same"))),
    ("stablehlo.concatenate", (_a("dimension", "i64"),), (),
     _s("inputs+", _kw("dim=dimension"))),
    ("stablehlo.pad", (
        _a("edge_padding_low", "i64_array"),
        _a("edge_padding_high", "i64_array"),
        _a("interior_padding", "i64_array"),
    ), (), _s("operand padding_value",
              _kw("low=edge_padding_low high=edge_padding_high interior=interior_padding"))),
    ("stablehlo.slice", (
        _a("start_indices", "i64_array"),
        _a("limit_indices", "i64_array"),
        _a("strides", "i64_array"),
    ), (), _s("operand", "operands custom<SliceRanges> attr-dict `:` type(functional)")),
    ("stablehlo.dynamic_slice", (_a("slice_sizes", "i64_array"),), (),
     _s("operand start_indices+", _kw("sizes=slice_sizes"))),
    ("stablehlo.get_dimension_size", (_a("dimension", "i64"),), (),
     _s("operand", _kw("dim=dimension"))),
    ("stablehlo.set_dimension_size", (_a("dimension", "i64"),), (),
     _s("operand size", _kw("dim=dimension"))),
    ("stablehlo.get_tuple_element", (_a("index", "i32", 0),), (),
     _s("operand", "operands `[` $index `]` attr-dict `:` type(functional)")),
    ("stablehlo.gather", (
        _a("dimension_numbers", "gather_dimension_numbers"),
        _a("slice_sizes", "i64_array"),
        _a("indices_are_sorted", "bool", False),
    ), ()),
    ("stablehlo.dynamic_gather", (
        _a("dimension_numbers", "gather_dimension_numbers"),
        _a("indices_are_sorted", "bool", False),
    ), ()),
    ("stablehlo.scatter", (
        _a("scatter_dimension_numbers", "scatter_dimension_numbers"),
        _a("indices_are_sorted", "bool", False),
        _a("unique_indices", "bool", False),
    ), ("update_computation",)),
    ("stablehlo.sort", (
        _a("dimension", "i64", -1),
        _a("is_stable", "bool", False),
    ), ("comparator",)),
    # ---- linear algebra
    ("stablehlo.dot", (_a("precision_config", "precision_config", ()),), (),
     _s("lhs rhs", "operands (`,` `precision` `=` $precision_config^)? attr-dict "
                   "`:` type(functional)")),
    ("stablehlo.dot_general", (
        _a("dot_dimension_numbers", "dot_dimension_numbers"),
        _a("precision_config", "precision_config", ()),
        _a("algorithm", "dot_algorithm", None),
    ), (), _s("lhs rhs", "operands `,` custom<DotDimensionNumbers> "
                         "(`,` `precision` `=` $precision_config^)? "
                         "(`,` `algorithm` `=` $algorithm^)? attr-dict `:` type(functional)")),
    ("stablehlo.einsum", (_a("einsum_config", "string"),), (),
     _s("lhs rhs", _kw("config=einsum_config"))),
    ("stablehlo.unary_einsum", (_a("einsum_config", "string"),), (),
     _s("operand", _kw("config=einsum_config"))),
    ("stablehlo.cholesky", (_a("lower", "bool", False),), (),
     _s("a", "operands (`,` `lower` `=` $lower^)? attr-dict `:` type(same)")),
    ("stablehlo.triangular_solve", (
        _a("left_side", "bool"),
        _a("lower", "bool"),
        _a("unit_diagonal", "bool"),
        _a("transpose_a", "enum:transpose"),
    ), ()),
    ("stablehlo.fft", (
        _a("fft_type", "enum:fft_type"),
        _a("fft_length", "i64_array"),
    ), (), _s("operand", _kw("type=fft_type length=fft_length"))),
    ("stablehlo.convolution", (
        _a("window_strides", "i64_array", None),
        _a("padding", "i64_elements", None),
        _a("lhs_dilation", "i64_array", None),
        _a("rhs_dilation", "i64_array", None),
        _a("window_reversal", "bool_array", None),
        _a("dimension_numbers", "conv_dimension_numbers"),
        _a("feature_group_count", "i64", 1),
        _a("batch_group_count", "i64", 1),
        _a("precision_config", "precision_config", ()),
    ), (), _s("lhs rhs", _CONVOLUTION)),
    ("stablehlo.batch_norm_grad", (_a("epsilon", "f32"), _a("feature_index", "i64")), (),
     _s("operand scale mean variance grad_output", None, "grad_operand grad_scale grad_offset")),
    ("stablehlo.batch_norm_inference", (_a("epsilon", "f32"), _a("feature_index", "i64")), ()),
    ("stablehlo.batch_norm_training", (_a("epsilon", "f32"), _a("feature_index", "i64")), (),
     _s("operand scale offset", None, "output batch_mean batch_var")),
    # ---- reductions and windows
    ("stablehlo.reduce", (_a("dimensions", "i64_array"),), ("body",),
     _s("inputs+ init_values+", "custom<Reduce>", "results+")),
    ("stablehlo.map", (_a("dimensions", "i64_array"),), ("computation",)),
    ("stablehlo.reduce_window", (
        _a("window_dimensions", "i64_array"),
        _a("window_strides", "i64_array", None),
        _a("base_dilations", "i64_array", None),
        _a("window_dilations", "i64_array", None),
        _a("padding", "i64_elements", None),
    ), ("body",)),
    ("stablehlo.select_and_scatter", (
        _a("window_dimensions", "i64_array", None),
        _a("window_strides", "i64_array", None),
        _a("padding", "i64_elements", None),
    ), ("select", "scatter")),
    ("stablehlo.reduce_precision", (
        _a("exponent_bits", "i32"),
        _a("mantissa_bits", "i32"),
    ), (), _s("operand", "operands `,` `format` `=` custom<ExponentMantissa> attr-dict "
                         "`:` type(same)")),
    # ---- random numbers
    ("stablehlo.rng", (_a("rng_distribution", "enum:rng_distribution"),), (),
     _s("a b shape", _kw("distribution=rng_distribution"))),
    ("stablehlo.rng_bit_generator", (_a("rng_algorithm", "enum:rng_algorithm"),), (),
     _s("initial_state", _kw("algorithm=rng_algorithm"), "output_state output")),
    # ---- control flow, calls
    ("stablehlo.while", (), ("cond", "body"), _s("operand*", "custom<While>", "results*")),
    # (no custom form: written generic; ODS results Variadic<...>)
    ("stablehlo.if", (), ("true_branch", "false_branch"), _s("pred", None, "results*")),
    ("stablehlo.case", (), ("branches",), _s("index", None, "results*")),
    ("stablehlo.composite", (
        _a("name", "string", ""),
        _a("composite_attributes", "dict", None),
        _a("decomposition", "symbol", ""),
        _a("version", "i32", 0),
    ), (), _s("inputs*", "$name operands custom<CompositeRegions> attr-dict "
                         "`:` type(functional)", "results*")),
    # ---- collectives and I/O
    ("stablehlo.all_gather", (
        _a("all_gather_dim", "i64"), *_GROUPED, _a("use_global_device_ids", "unit", False),
    ), ()),
    ("stablehlo.all_reduce", (
        *_GROUPED, _a("use_global_device_ids", "unit", False),
    ), ("computation",)),
    ("stablehlo.reduce_scatter", (
        _a("scatter_dimension", "i64"), *_GROUPED, _a("use_global_device_ids", "unit", False),
    ), ("computation",)),
    ("stablehlo.all_to_all", (
        _a("split_dimension", "i64"),
        _a("concat_dimension", "i64"),
        _a("split_count", "i64"),
        *_GROUPED,
    ), ()),
    ("stablehlo.collective_broadcast", (
        *_GROUPED, _a("has_dynamic_root", "unit", False),
    ), ()),
    ("stablehlo.collective_reduce", (
        *_GROUPED,
        _a("use_global_device_ids", "unit", False),
        _a("has_dynamic_root", "unit", False),
    ), ("computation",)),
    ("stablehlo.collective_permute", (
        _a("source_target_pairs", "i64_elements"),
        _a("channel_handle", "channel_handle", None),
    ), ()),
    ("stablehlo.send", (
        _a("channel_handle", "channel_handle", None),
        _a("is_host_transfer", "bool", False),
        _a("source_target_pairs", "i64_elements", None),
    ), ()),
    ("stablehlo.recv", (
        _a("channel_handle", "channel_handle", None),
        _a("is_host_transfer", "bool", False),
        _a("source_target_pairs", "i64_elements", None),
    ), ()),
    ("stablehlo.infeed", (_a("infeed_config", "string", ""), _a("layout", "array", None)), ()),
    ("stablehlo.outfeed", (_a("outfeed_config", "string", ""),), ()),
    ("stablehlo.dynamic_conv", (
        _a("window_strides", "i64_array", None),
        _a("lhs_dilation", "i64_array", None),
        _a("rhs_dilation", "i64_array", None),
        _a("window_reversal", "bool_array", None),
        _a("dimension_numbers", "conv_dimension_numbers"),
        _a("feature_group_count", "i64", 1),
        _a("batch_group_count", "i64", 1),
        _a("precision_config", "precision_config", ()),
    ), (), _s("lhs rhs padding", _CONVOLUTION, prints=False)),
    # StablehloOps.cpp ConstantOp::print: a value of another type than the result's in
    # the generic form after the op's name (``fallback``)
    ("stablehlo.constant", (_a("value", "dense"),), (),
     _s("", "custom<Constant(fallback)>", "output")),
    ("stablehlo.custom_call", (
        _a("call_target_name", "string", ""),
        _a("has_side_effect", "bool", False),
        _a("backend_config", "any", None),
        _a("api_version", "i32", 1),
        _a("called_computations", "array", ()),
        _a("operand_layouts", "array", None),
        _a("result_layouts", "array", None),
        _a("output_operand_aliases", "array", ()),
        # discardable attributes that JAX's custom calls carry and hlorun's targets read
        # (not StablehloOps.td arguments)
        _a("mhlo.backend_config", "dict", None),
        _a("mhlo.frontend_attributes", "dict", None),
        _a("error_message", "string", None),
        _a("rng_algorithm", "enum:rng_algorithm", None),
        # jax's mlir.custom_call result_shapes: the operands holding the result shapes
        _a("indices_of_shape_operands", "i64_elements", None),
        # XLA's HLO-to-StableHLO legalization: custom_call @mhlo.<op> carries the op's
        # own attributes (shape_inference/mhlo.py)
        _a("mhlo.attributes", "dict", None),
        _a("mhlo.version", "i64", None),
    ), (), _s("inputs*", "custom<CustomCallTarget> `(` operands `)` attr-dict "
                         "`:` type(functional)", "results*")),
    # ---- chlo (ChloOps.td)
    *(
        (f"chlo.broadcast_{n}", (_a("broadcast_dimensions", "i64_array", None),), ())
        for n in (
            "add and atan2 complex divide maximum minimum multiply next_after or polygamma "
            "power remainder shift_left shift_right_arithmetic shift_right_logical subtract "
            "xor zeta"
        ).split()
    ),
    ("chlo.broadcast_compare", (
        _a("broadcast_dimensions", "i64_array", None),
        _a("comparison_direction", "enum:comparison_direction"),
        _a("compare_type", "enum:comparison_type", None),
    ), ()),
    ("chlo.constant", (_a("value", "dense"),), (), _s("", "custom<Constant>", "output")),
    ("chlo.constant_like", (_a("value", "any"),), ()),
    ("chlo.ragged_dot", (
        _a("ragged_dot_dimension_numbers", "ragged_dot_dimension_numbers"),
        _a("precision_config", "precision_config", None),
    ), ()),
    # ChloOps.td defaults is_stable to true; hlorun's shape layer reads an absent one as
    # false (a stable sort is a valid unstable one): kept until that is reviewed.
    ("chlo.top_k", (_a("k", "i64"), _a("is_stable", "bool", False)), (), _s(
        "operand", "`(` operands `,` `k` `=` $k (`,` `is_stable` `=` $is_stable^)? `)` "
                   "attr-dict `:` type(functional)", "values indices", prints=False)),
    ("chlo.scan", (
        _a("dimension", "i64"),
        _a("scan_dim_size", "i64", None),
        _a("is_reverse", "bool", False),
        _a("is_associative", "bool", None),
    ), ("body",), _s("inputs* inits*", "custom<Scan>", "outputs* carries*", prints=False)),
    # ---- mhlo ops that producers leave in their StableHLO (xla/mlir_hlo/mhlo/IR/hlo_ops.td)
    ("mhlo.copy", (_a("cross_program_prefetch_index", "i32", None),), ()),
    ("mhlo.erf", (), ()),
    # ---- the check and interpreter test dialects (stablehlo/docs/test-dialects.md)
    ("check.expect_eq", (), (), _TEST),
    ("interpreter.print", (), (), _TEST),
    ("check.expect_almost_eq", (_a("tolerance", "f32", 1e-4),), (), _TEST),
    ("check.expect_almost_eq_const", (_a("value", "dense"), _a("tolerance", "f32", 1e-4)), (), _TEST),
    ("check.expect_close", (
        # CheckOps.td: UI64Attr, spelled `max_ulp_difference = N` (no type)
        _a("max_ulp_difference", "ui64", 1, key="max_ulp_difference"),
        _a("min_ulp_difference", "ui64", 0, key="min_ulp_difference"),
    ), (), _TEST),
    ("check.expect_eq_const", (_a("value", "dense"),), (), _TEST),
    ("check.expect_serialized_eq", (
        _a("probe_id", "string"),
        _a("iter", "i64", 0),
        _a("iteration", "i64", None),
    ), (), _TEST),
    ("stablehlo.optimization_barrier", (), (),
     _s("operand*", "attr-dict custom<PairwiseOperands>", "result*")),
    ("stablehlo.return", (), (), _RETURN),
    # ---- func and arith ops in StableHLO programs (FuncOps.td, ArithOps.td)
    ("func.return", (), (), _RETURN),
    ("func.call", (_a("callee", "symbol"),), (),
     _s("operands*", "$callee `(` operands `)` attr-dict `:` type(functional)", "results*")),
    # ArithOps.td ConstantOp: `attr-dict $value`, a scalar value too (``scalars``)
    ("arith.constant", (_a("value", "any"),), (), _s("", "custom<Constant(scalars)>")),
    ("interpreter.probe", (_a("probe_id", "string"),), (), _TEST),
    ("interpreter.run_parallel", (_a("programs", "array"), _a("infeed", "array", None)), ()),
)  # fmt: skip


# The ``DefaultValued(Optional|Str)Attr`` defaults of StablehloOps.td and ChloOps.td,
# as the printer writes the attribute (op -> attribute -> text).
_ODS_DEFAULTS: dict[str, dict[str, str]] = {
    **{
        f"stablehlo.{n}": {
            "result_accuracy": "#stablehlo.result_accuracy<mode = "
            "#stablehlo.result_accuracy_mode<DEFAULT>>"
        }
        for n in (
            "cbrt cosine exponential exponential_minus_one log log_plus_one logistic "
            "rsqrt sine sqrt tan tanh"
        ).split()
    },
    "stablehlo.infeed": {"infeed_config": '""'},
    "stablehlo.outfeed": {"outfeed_config": '""'},
    "stablehlo.send": {"is_host_transfer": "false"},
    "stablehlo.recv": {"is_host_transfer": "false"},
    "stablehlo.cholesky": {"lower": "false"},
    "stablehlo.composite": {"composite_attributes": "{}", "version": "0 : i32"},
    "stablehlo.custom_call": {
        "has_side_effect": "false",
        "api_version": "1 : i32",  # API_VERSION_ORIGINAL (StablehloEnums.td)
        "called_computations": "[]",
        "output_operand_aliases": "[]",
    },
    "stablehlo.gather": {"indices_are_sorted": "false"},
    "stablehlo.dynamic_gather": {"indices_are_sorted": "false"},
    "stablehlo.scatter": {"indices_are_sorted": "false", "unique_indices": "false"},
    "stablehlo.sort": {"dimension": "-1 : i64", "is_stable": "false"},
    "chlo.top_k": {"is_stable": "true"},
    "chlo.scan": {"is_reverse": "false"},
}
# The DefaultValuedStrAttr ones among them (the others are DefaultValuedOptionalAttr).
_ODS_POPULATED = {("stablehlo.infeed", "infeed_config"), ("stablehlo.outfeed", "outfeed_config")}


# The ops that name their values themselves (OpAsmOpInterface), with the rule of
# parser/ssa_names.py that gives the names: (results, block arguments).  Sources:
# StablehloOps.cpp ConstantOp::getAsmResultNames; StablehloOps.td WhileOp and ChloOps.td
# ScanOp getAsmBlockArgumentNames; ArithOps.cpp ConstantOp::getAsmResultNames.
_ASM_NAMES: dict[str, tuple[str | None, str | None]] = {
    "stablehlo.constant": ("constant", None),
    "stablehlo.while": (None, "iter_args"),
    "chlo.scan": (None, "scan"),
    "arith.constant": ("arith_constant", None),
}


# The older bytecode property layouts of ops (``OpDecl.older_properties``) and the
# layouts of ops no generated table has (``OpDecl.properties``).
_OLDER_PROPERTIES: dict[str, tuple[tuple[tuple[str, bool, str], ...], ...]] = {
    # StablehloOps.td before openxla/stablehlo#2956 (result_tilings, 2026-04): the eight
    # fields TensorFlow 2.21's StableHLO writes (its generated StablehloOps.h.inc)
    "stablehlo.custom_call": (
        (
            ("api_version", True, ""),
            ("backend_config", True, ""),
            ("call_target_name", False, ""),
            ("called_computations", True, ""),
            ("has_side_effect", True, ""),
            ("operand_layouts", True, ""),
            ("output_operand_aliases", True, ""),
            ("result_layouts", True, ""),
        ),
    ),
    # before openxla/stablehlo#2990 (has_dynamic_root, 2026-08)
    "stablehlo.collective_broadcast": (
        (("channel_handle", True, ""), ("replica_groups", False, "")),
    ),
}
_PROPERTIES: dict[str, tuple[tuple[str, bool, str], ...]] = {
    # openxla/xla xla/mlir_hlo/mhlo/IR/hlo_ops.td CopyOp (its one inherent attribute,
    # as TensorFlow 2.21's generated hlo_ops.h.inc Properties has it); TensorFlow
    # leaves mhlo.copy in the StableHLO of Keras recurrent layers
    "mhlo.copy": (("cross_program_prefetch_index", True, "OptionalAttr<I32Attr>"),),
}


def section_of(name: str) -> str:
    """Where the spec describes ``name``."""
    return _section(name)


def _section(name: str) -> str:
    dialect, _, mnemonic = name.partition(".")
    if dialect == "stablehlo":
        return f"spec.md#{mnemonic}"
    if dialect == "chlo":
        return f"chlo.md#{mnemonic}"
    if dialect == "mhlo":  # openxla/xla: xla/mlir_hlo/mhlo/IR/hlo_ops.td
        return f"hlo_ops.td#{mnemonic}"
    return "test-dialects.md"


def _build() -> dict[str, OpDecl]:
    table: dict[str, OpDecl] = {}
    for name, attrs, regions, *syntax in _ROWS:
        if name in table:
            raise ValueError(f"op {name!r} declared twice")
        bad = [a.kind for a in attrs if a.kind not in KINDS and not a.kind.startswith("enum:")]
        if bad:
            raise ValueError(f"op {name!r}: unknown attribute kinds {bad}")
        names = [a.name for a in attrs]
        if len(set(names)) != len(names):
            raise ValueError(f"op {name!r} declares an attribute twice")
        defaults = _ODS_DEFAULTS.get(name, {})
        if set(defaults) - set(names):
            raise ValueError(f"op {name!r}: ODS default of an undeclared attribute")
        attrs = tuple(
            replace(
                a,
                ods_default=defaults.get(a.name),
                ods_populated=(name, a.name) in _ODS_POPULATED,
            )
            for a in attrs
        )
        asm_results, asm_args = _ASM_NAMES.get(name, (None, None))
        decl = OpDecl(
            name,
            _section(name),
            attrs,
            tuple(regions),
            asm_result_names=asm_results,
            asm_block_arg_names=asm_args,
            older_properties=_OLDER_PROPERTIES.get(name, ()),
            properties=_PROPERTIES.get(name),
        )
        if syntax:
            s = syntax[0]
            decl = replace(
                decl,
                operands=s.operands,
                results=s.results,
                format=s.format,
                prints_format=s.prints_format,
            )
        table[name] = decl
    for facts in (_ASM_NAMES, _OLDER_PROPERTIES, _PROPERTIES):
        if set(facts) - set(table):
            raise ValueError(f"facts about undeclared ops: {sorted(set(facts) - set(table))}")
    return table


OP_DECLS: Mapping[str, OpDecl] = _build()


def keyword_attrs(op_name: str) -> tuple[AttrDecl, ...]:
    """The attributes ``op_name``'s custom form spells as ``key = value`` (none if the
    op is not declared)."""
    decl = OP_DECLS.get(op_name)
    return () if decl is None else decl.keyword_attrs
