"""VHLO -> StableHLO (``stablehlo-opt --vhlo-legalize-to-stablehlo``).

Follows stablehlo/transforms/VhloLegalizeToStablehlo.cpp: attributes equal to the
defaults StablehloLegalizeToVhlo materialized are dropped (``removeDefaults``), the
exploded dimension numbers / channel handles are put back together
(``implodeSpecial``), the attributes StableHLO keeps as ``array<i64: ...>`` become
DenseArrayAttr again (``convertSpecial``), the rest go through ``convertGeneric``.
The result has the IR the parser builds for the same StableHLO text: ``vhlo.func_v1``
becomes a ``Function``, ``vhlo.return_v1`` ``func.return`` directly in a function
and ``stablehlo.return`` elsewhere.  The module must be at the current version
(``vhlo_to_version(m, current)`` first, as stablehlo-deserialize does).
"""

from __future__ import annotations

from dataclasses import replace

from ..ir import (
    ArrayAttr,
    Attribute,
    Block,
    BoolAttr,
    ChannelHandle,
    ConvDimensionNumbers,
    DenseArrayAttr,
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
    IntegerAttr,
    IntegerType,
    LocationAttr,
    Module,
    OpaqueAttr,
    OpaqueType,
    Operation,
    OutputOperandAlias,
    Region,
    ResultAccuracy,
    ScatterDimensionNumbers,
    StringAttr,
    SymbolRefAttr,
    TensorType,
    TokenType,
    Type,
    TypeAttr,
    TypeExtensions,
    UnitAttr,
    Value,
)
from .builtin_view import dense_from_data, to_builtin
from .common import (
    K_DYNAMIC,
    MALFORMED,
    LegalizeError,
    bits_float,
    illegal,
    is_default_result_accuracy,
    signed_value,
)
from .ir import VhloAttr, VhloType
from .table import DOT_ALGORITHM_FIELDS, RESULT_ACCURACY_OPS
from .walk import iter_ops, map_blocks, map_body, map_region, rebuild_blocks

__all__ = ["legalize_to_stablehlo", "from_vhlo_attr", "from_vhlo_type"]


class _Fail(Exception):
    """Internal: no StableHLO form."""


# ---- types ---------------------------------------------------------------------------


def _dim(d: int) -> int | None:
    return None if d == K_DYNAMIC else d


def from_vhlo_type(t: Type) -> Type:
    """VhloToStablehloTypeConverter (non-VHLO types unchanged)."""
    if not isinstance(t, VhloType):
        return t
    n, p = t.name, t.params
    if n == "token_v1":
        return TokenType()
    if n == "future_v1":
        inner = ", ".join(_type_text(from_vhlo_type(e)) for e in p[0])
        return OpaqueType(f"!stablehlo.future<{inner}>")
    if n == "tensor_v1":
        enc = p[2]
        if isinstance(enc, VhloAttr) and enc.name == "type_extensions_v1":
            enc = TypeExtensions(tuple(_dim(b) for b in enc.params[0]))
        return TensorType(tuple(_dim(d) for d in p[0]), from_vhlo_type(p[1]), enc)
    if n == "unranked_tensor_v1":
        return TensorType(None, from_vhlo_type(p[0]))
    if n == "buffer_v1":
        dims = "".join(("?" if d == K_DYNAMIC else str(d)) + "x" for d in p[0])
        return OpaqueType(f"memref<{dims}{_type_text(from_vhlo_type(p[1]))}>")
    if n == "witness_v1":
        return OpaqueType("!shape.witness")
    if n == "tuple_v1":
        from ..ir import TupleType

        return TupleType(tuple(from_vhlo_type(e) for e in p[0]))
    if n == "func_v1":
        return FunctionType(tuple(map(from_vhlo_type, p[0])), tuple(map(from_vhlo_type, p[1])))
    if n == "complex_v1":
        from ..ir import ComplexType

        return ComplexType(from_vhlo_type(p[0]))
    try:
        return to_builtin(t)
    except ValueError:
        raise _Fail from None


def _type_text(t: Type) -> str:
    from ..printer import print_type

    return print_type(t)


# ---- attributes: the generic path -----------------------------------------------------

# VHLO enum -> (StableHLO enum kind, printed short form ``#stablehlo<kind V>``?)
_ENUMS = {
    "comparison_direction_v1": ("comparison_direction", True),
    "comparison_type_v1": ("comparison_type", True),
    "fft_type_v1": ("fft_type", True),
    "precision_v1": ("precision", True),
    "rng_algorithm_v1": ("rng_algorithm", True),
    "rng_distribution_v1": ("rng_distribution", True),
    "transpose_v1": ("transpose", True),
    "result_accuracy_mode_v1": ("result_accuracy_mode", False),
}


def from_vhlo_attr(a: Attribute) -> Attribute:
    """convertGeneric (non-VHLO attributes unchanged)."""
    if not isinstance(a, VhloAttr):
        return a
    n, p = a.name, a.params
    if n in _ENUMS:
        kind, short = _ENUMS[n]
        return EnumAttr("stablehlo", kind, p[0], short)
    if n == "api_version_v1":
        from .table import enum_cases

        return IntegerAttr(enum_cases(n).index(p[0]), IntegerType(32))
    if n == "array_v1":
        return ArrayAttr(tuple(from_vhlo_attr(e) for e in p[0]))
    if n == "bool_v1":
        return BoolAttr(bool(p[0]))
    if n == "dict_v1":
        entries = []
        for k, v in p[0]:
            key = from_vhlo_attr(k)
            if not isinstance(key, StringAttr):
                raise _Fail
            entries.append((key.value, from_vhlo_attr(v)))
        return DictionaryAttr(tuple(sorted(entries, key=lambda kv: kv[0])))
    if n == "float_v1":
        t = from_vhlo_type(p[0])
        if not isinstance(t, FloatType):
            raise _Fail
        return FloatAttr(bits_float(p[1], t.name), t)
    if n == "integer_v1":
        t = from_vhlo_type(p[0])
        width = t.width if isinstance(t, IntegerType) else 64
        unsigned = isinstance(t, IntegerType) and t.is_unsigned
        return IntegerAttr(p[1] if unsigned else signed_value(p[1], width), t)
    if n == "output_operand_alias_v1":
        return OutputOperandAlias(tuple(p[0]), p[1], tuple(p[2]))
    if n == "string_v1":
        return StringAttr(p[0])
    if n == "tensor_v1":
        return dense_from_data(p[0], p[1])
    if n == "type_v1":
        return TypeAttr(from_vhlo_type(p[0]))
    if n == "result_accuracy_v1":
        mode = from_vhlo_attr(p[3])
        if not isinstance(mode, EnumAttr):
            raise _Fail
        return ResultAccuracy(bits_float(p[0], "f64"), bits_float(p[1], "f64"), p[2], mode)
    if n == "sub_axis_info_v1":
        return DialectAttr(
            "stablehlo",
            "sub_axis_info",
            (("pre_size", IntegerAttr(p[0])), ("size", IntegerAttr(p[1]))),
        )
    if n == "axis_ref_v1":
        name = from_vhlo_attr(p[0])
        if p[1] is not None:
            # The parser keeps ``sub_axis_info = (pre)size`` (custom syntax) as text.
            from ..printer import escape_string

            if not isinstance(name, StringAttr) or p[1].name != "sub_axis_info_v1":
                raise _Fail
            pre, size = p[1].params
            return OpaqueAttr(
                f"#stablehlo.axis_ref<name = {escape_string(name.value)}, "
                f"sub_axis_info = ({pre}){size}>"
            )
        return DialectAttr("stablehlo", "axis_ref", (("name", name),))
    if n == "mesh_axis_v1":
        return DialectAttr(
            "stablehlo", "mesh_axis", (("name", from_vhlo_attr(p[0])), ("size", IntegerAttr(p[1])))
        )
    if n == "mesh_v1":
        params = [("axes", from_vhlo_attr(p[0]))]
        if p[1] is not None:
            params.append(("device_ids", from_vhlo_attr(p[1])))
        return DialectAttr("stablehlo", "mesh", tuple(params))
    if n == "replica_group_mesh_axes_v1":
        mesh = p[0]
        mesh_s = (
            SymbolRefAttr(mesh.params[0])
            if isinstance(mesh, VhloAttr) and mesh.name == "string_v1"
            else from_vhlo_attr(mesh)
        )
        return DialectAttr(
            "stablehlo",
            "replica_group_mesh_axes",
            (("mesh", mesh_s), ("axes", from_vhlo_attr(p[1]))),
        )
    raise _Fail


# ---- removeDefaults --------------------------------------------------------------------


def _is_bool(a, value: bool) -> bool:
    return isinstance(a, VhloAttr) and a.name == "bool_v1" and a.params[0] == value


def _is_int(a, value: int) -> bool:
    return (
        isinstance(a, VhloAttr)
        and a.name == "integer_v1"
        and signed_value(a.params[1], 64) == value
    )


def _is_empty(a, name: str) -> bool:
    if not isinstance(a, VhloAttr) or a.name != name:
        return False
    if name == "tensor_v1":
        return a.params[1] == b""
    if name == "string_v1":
        return a.params[0] == ""
    return not a.params[0]


def _is_splat(a, value) -> bool:
    if not (isinstance(a, VhloAttr) and a.name == "tensor_v1"):
        return False
    arr = dense_from_data(a.params[0], a.params[1]).array
    return arr.size > 0 and bool((arr == value).all())


def _is_splat_array(a, value: VhloAttr) -> bool:
    return isinstance(a, VhloAttr) and a.name == "array_v1" and all(e == value for e in a.params[0])


_DEFAULT_PRECISION = VhloAttr("precision_v1", ("DEFAULT",))


def _remove_defaults(base: str, attrs: dict[str, Attribute]) -> None:
    g = attrs.get

    def drop(name: str, cond: bool) -> None:
        if cond:
            attrs.pop(name, None)

    if base in ("all_gather", "all_reduce", "reduce_scatter", "collective_reduce"):
        drop("channel_id", _is_int(g("channel_id"), 0))
        drop("use_global_device_ids", _is_bool(g("use_global_device_ids"), False))
    if base in ("all_to_all", "collective_permute", "collective_broadcast"):
        drop("channel_id", _is_int(g("channel_id"), 0))
    if base in ("collective_broadcast", "collective_reduce"):
        drop("has_dynamic_root", _is_bool(g("has_dynamic_root"), False))
    if base == "cholesky":
        drop("lower", _is_bool(g("lower"), False))
    if base == "compare":
        drop("compare_type", g("compare_type") == VhloAttr("comparison_type_v1", ("NOTYPE",)))
    if base == "composite":
        drop("version", _is_int(g("version"), 0))
        drop("composite_attributes", _is_empty(g("composite_attributes"), "dict_v1"))
    if base in ("convolution", "dynamic_conv"):
        drop("window_strides", _is_splat(g("window_strides"), 1))
        if base == "convolution":
            drop("padding", _is_splat(g("padding"), 0))
        drop("lhs_dilation", _is_splat(g("lhs_dilation"), 1))
        drop("rhs_dilation", _is_splat(g("rhs_dilation"), 1))
        drop("window_reversal", _is_splat(g("window_reversal"), False))
        drop("precision_config", _is_splat_array(g("precision_config"), _DEFAULT_PRECISION))
    if base == "custom_call":
        drop("has_side_effect", _is_bool(g("has_side_effect"), False))
        drop(
            "backend_config",
            _is_empty(g("backend_config"), "string_v1")
            or _is_empty(g("backend_config"), "dict_v1"),
        )
        drop(
            "api_version", g("api_version") == VhloAttr("api_version_v1", ("API_VERSION_ORIGINAL",))
        )
        drop("called_computations", _is_empty(g("called_computations"), "array_v1"))
        if _is_empty(g("operand_layouts"), "array_v1") and _is_empty(
            g("result_layouts"), "array_v1"
        ):
            attrs.pop("operand_layouts", None)
            attrs.pop("result_layouts", None)
        drop("output_operand_aliases", _is_empty(g("output_operand_aliases"), "array_v1"))
        drop("result_tilings", _is_empty(g("result_tilings"), "array_v1"))
    if base in ("dot_general", "dot"):
        drop("precision_config", _is_splat_array(g("precision_config"), _DEFAULT_PRECISION))
    if base == "dynamic_broadcast_in_dim":
        drop("known_expanding_dimensions", _is_empty(g("known_expanding_dimensions"), "tensor_v1"))
        drop(
            "known_nonexpanding_dimensions",
            _is_empty(g("known_nonexpanding_dimensions"), "tensor_v1"),
        )
    if base in ("dynamic_gather", "gather", "scatter"):
        drop("indices_are_sorted", _is_bool(g("indices_are_sorted"), False))
    if base == "scatter":
        drop("unique_indices", _is_bool(g("unique_indices"), False))
    if base == "infeed":
        drop("infeed_config", _is_empty(g("infeed_config"), "string_v1"))
        drop("layout", _is_empty(g("layout"), "array_v1"))
    if base == "outfeed":
        drop("outfeed_config", _is_empty(g("outfeed_config"), "string_v1"))
    if base in ("recv", "send"):
        drop("is_host_transfer", _is_bool(g("is_host_transfer"), False))
        drop("source_target_pairs", _is_empty(g("source_target_pairs"), "tensor_v1"))
    if base == "reduce_window":
        for name in ("window_strides", "base_dilations", "window_dilations"):
            drop(name, _is_splat(g(name), 1))
        drop("padding", _is_splat(g("padding"), 0))
    if base == "select_and_scatter":
        drop("window_strides", _is_splat(g("window_strides"), 1))
        drop("padding", _is_splat(g("padding"), 0))
    if base == "sort":
        drop("dimension", _is_int(g("dimension"), -1))
        drop("is_stable", _is_bool(g("is_stable"), False))
    if base in RESULT_ACCURACY_OPS:
        drop("result_accuracy", is_default_result_accuracy(g("result_accuracy")))


# ---- implodeSpecial / convertSpecial ---------------------------------------------------


def _int(a) -> int:
    if not (isinstance(a, VhloAttr) and a.name == "integer_v1"):
        raise _Fail
    return signed_value(a.params[1], 64)


def _ints(a) -> tuple[int, ...]:
    if not (isinstance(a, VhloAttr) and a.name == "tensor_v1"):
        raise _Fail
    return tuple(int(x) for x in dense_from_data(a.params[0], a.params[1]).array.reshape(-1))


def _type_attr(a: Attribute) -> Type:
    """The type a ``#vhlo.type_v1`` names (as its StableHLO type)."""
    t = from_vhlo_attr(a)
    if not isinstance(t, TypeAttr):
        raise _Fail
    return t.type


def _take(attrs: dict, *names: str) -> list:
    try:
        return [attrs.pop(n) for n in names]
    except KeyError:
        raise _Fail from None


def _implode(base: str, attrs: dict[str, Attribute], out: dict[str, Attribute]) -> None:
    if base in ("convolution", "dynamic_conv"):
        v = _take(
            attrs,
            "input_batch_dimension",
            "input_feature_dimension",
            "input_spatial_dimensions",
            "kernel_input_feature_dimension",
            "kernel_output_feature_dimension",
            "kernel_spatial_dimensions",
            "output_batch_dimension",
            "output_feature_dimension",
            "output_spatial_dimensions",
        )
        out["dimension_numbers"] = ConvDimensionNumbers(
            _int(v[0]),
            _int(v[1]),
            _ints(v[2]),
            _int(v[3]),
            _int(v[4]),
            _ints(v[5]),
            _int(v[6]),
            _int(v[7]),
            _ints(v[8]),
        )
    if base == "dot_general":
        v = _take(
            attrs,
            "lhs_batching_dimensions",
            "rhs_batching_dimensions",
            "lhs_contracting_dimensions",
            "rhs_contracting_dimensions",
        )
        out["dot_dimension_numbers"] = DotDimensionNumbers(*(_ints(x) for x in v))
        alg = _take(attrs, *DOT_ALGORITHM_FIELDS)
        nones = [
            isinstance(x, VhloAttr)
            and x.name == "type_v1"
            and isinstance(x.params[0], VhloType)
            and x.params[0].name == "none_v1"
            for x in alg
        ]
        if nones[3]:
            if not all(nones[2:]):
                raise _Fail
        else:
            lhs, rhs, acc = (_type_attr(x) for x in alg[:3])
            b = alg[6]
            if not (isinstance(b, VhloAttr) and b.name == "bool_v1"):
                raise _Fail
            out["algorithm"] = DotAlgorithm(
                lhs,
                rhs,
                acc,
                _int(alg[3]),
                _int(alg[4]),
                _int(alg[5]),
                bool(b.params[0]),
            )
    if base in ("gather", "dynamic_gather"):
        v = _take(
            attrs,
            "offset_dims",
            "collapsed_slice_dims",
            "operand_batching_dims",
            "start_indices_batching_dims",
            "start_index_map",
            "index_vector_dim",
        )
        out["dimension_numbers"] = GatherDimensionNumbers(
            _ints(v[0]), _ints(v[1]), _ints(v[2]), _ints(v[3]), _ints(v[4]), _int(v[5])
        )
    if base == "scatter":
        v = _take(
            attrs,
            "update_window_dims",
            "inserted_window_dims",
            "input_batching_dims",
            "scatter_indices_batching_dims",
            "scatter_dims_to_operand_dims",
            "index_vector_dim",
        )
        out["scatter_dimension_numbers"] = ScatterDimensionNumbers(
            _ints(v[0]), _ints(v[1]), _ints(v[2]), _ints(v[3]), _ints(v[4]), _int(v[5])
        )
    if base in ("recv", "send"):
        cid, ctype = _take(attrs, "channel_id", "channel_type")
        out["channel_handle"] = ChannelHandle(_int(cid), _int(ctype))


# Attributes StableHLO keeps as ``array<i64: ...>`` (convertSpecial / convertDenseArray).
_I64_ARRAYS = {
    "fft": {"fft_length"},
    "broadcast": {"broadcast_sizes"},
    "dynamic_slice": {"slice_sizes"},
    "reverse": {"dimensions"},
    "transpose": {"permutation"},
    "pad": {"edge_padding_low", "edge_padding_high", "interior_padding"},
    "slice": {"start_indices", "limit_indices", "strides"},
    "broadcast_in_dim": {"broadcast_dimensions"},
    "dynamic_broadcast_in_dim": {
        "broadcast_dimensions",
        "known_expanding_dimensions",
        "known_nonexpanding_dimensions",
    },
    "select_and_scatter": {"window_dimensions", "window_strides"},
    "reduce_window": {"window_dimensions", "window_strides", "base_dilations", "window_dilations"},
    "map": {"dimensions"},
    "reduce": {"dimensions"},
    "gather": {"slice_sizes"},
    "convolution": {"lhs_dilation", "rhs_dilation", "window_strides"},
    "dynamic_conv": {"lhs_dilation", "rhs_dilation", "window_strides"},
}
_BOOL_ARRAYS = {"convolution": {"window_reversal"}, "dynamic_conv": {"window_reversal"}}
_COLLECTIVES = frozenset(
    "all_gather all_reduce all_to_all collective_permute reduce_scatter collective_broadcast "
    "collective_reduce".split()
)


def _special(base: str, name: str, a: Attribute) -> tuple[str, Attribute] | None:
    """(StableHLO name, attribute), ("", UnitAttr) to drop, or None (not special)."""
    if base in _COLLECTIVES:
        if name == "channel_id":
            return "channel_handle", ChannelHandle(_int(a), 0)
        if name in ("use_global_device_ids", "has_dynamic_root") and not (
            base in ("collective_broadcast",) and name == "use_global_device_ids"
        ):
            if not (isinstance(a, VhloAttr) and a.name == "bool_v1"):
                raise _Fail
            return (name, UnitAttr()) if a.params[0] else ("", UnitAttr())
    if base == "custom_call" and name == "called_computations":
        if not (isinstance(a, VhloAttr) and a.name == "array_v1"):
            raise _Fail
        return name, ArrayAttr(tuple(_symbol(e) for e in a.params[0]))
    if (base, name) in (("composite", "decomposition"), ("call", "callee")):
        return name, _symbol(a)
    if name in _I64_ARRAYS.get(base, ()):
        return name, DenseArrayAttr(IntegerType(64), _ints(a))
    if name in _BOOL_ARRAYS.get(base, ()):
        if not (isinstance(a, VhloAttr) and a.name == "tensor_v1"):
            raise _Fail
        arr = dense_from_data(a.params[0], a.params[1]).array.reshape(-1)
        return name, DenseArrayAttr(IntegerType(1), tuple(bool(x) for x in arr))
    return None


def _symbol(a) -> SymbolRefAttr:
    if not (isinstance(a, VhloAttr) and a.name == "string_v1"):
        raise _Fail
    return SymbolRefAttr(a.params[0])


# ---- ops -------------------------------------------------------------------------------


def _op_attrs(base: str, op: Operation) -> tuple[tuple[str, Attribute], ...]:
    attrs = dict(op.attributes)
    _remove_defaults(base, attrs)
    out: dict[str, Attribute] = {}
    _implode(base, attrs, out)
    for name, a in attrs.items():
        sp = _special(base, name, a)
        if sp is None:
            out[name] = from_vhlo_attr(a)
        elif sp[0]:
            out[sp[0]] = sp[1]
    return tuple(sorted(out.items()))


class _Converter:
    def value(self, v: Value) -> Value:
        return Value(v.name, from_vhlo_type(v.type))

    def region(self, r: Region, in_func: bool = False) -> Region:
        return map_region(r, self.func_op if in_func else self.op, self.value)

    def func_op(self, op: Operation) -> Operation:
        """An op of a function body (where ``vhlo.return_v1`` is ``func.return``)."""
        return self.op(op, in_func=True)

    def op(self, op: Operation, in_func: bool = False) -> Operation:
        if not op.name.startswith("vhlo."):
            regions = tuple(self.region(r) for r in op.regions)
            try:
                operands = tuple(self.value(v) for v in op.operands)
                results = tuple(self.value(v) for v in op.results)
            except (_Fail, *MALFORMED):
                raise illegal(op.name, op.pos) from None
            return replace(op, operands=operands, results=results, regions=regions)
        mnemonic = op.name[5:]
        from .table import op_info

        if op_info(mnemonic) is None:
            raise LegalizeError(f"'{op.name}' is not an op of the VHLO dialect", op.pos)
        base = mnemonic.rsplit("_v", 1)[0]
        if base == "return":
            name = "func.return" if in_func else "stablehlo.return"
        elif base == "call":
            name = "func.call"
        else:
            name = "stablehlo." + base
        try:
            attrs = _op_attrs(base, op)
            operands = tuple(self.value(v) for v in op.operands)
            results = tuple(self.value(v) for v in op.results)
        except (_Fail, *MALFORMED):
            raise illegal(op.name, op.pos) from None
        regions = tuple(self.region(r) for r in op.regions)
        return Operation(
            name, operands, results, attrs, regions, op.successors, frozenset(), op.location, op.pos
        )

    def function(self, op: Operation) -> Function:
        try:
            attrs = dict(op.attributes)
            name = from_vhlo_attr(attrs.pop("sym_name"))
            ftype = from_vhlo_attr(attrs.pop("function_type"))
            vis = attrs.pop("sym_visibility", None)
            arg_attrs = attrs.pop("arg_attrs", None)
            res_attrs = attrs.pop("res_attrs", None)
            rest = tuple(sorted((k, from_vhlo_attr(v)) for k, v in attrs.items()))
            if not (
                isinstance(name, StringAttr)
                and isinstance(ftype, TypeAttr)
                and isinstance(ftype.type, FunctionType)
            ):
                raise _Fail
            visibility = None
            if vis is not None:
                v = from_vhlo_attr(vis)
                visibility = v.value if isinstance(v, StringAttr) and v.value else None
            arg_dicts, res_dicts = _dicts(arg_attrs), _dicts(res_attrs)
        except (_Fail, *MALFORMED):
            raise illegal(op.name, op.pos) from None
        body = None
        if op.regions and op.regions[0].blocks:
            body = self.region(op.regions[0], in_func=True)
        return Function(
            name.value,
            ftype.type,
            body,
            visibility,
            arg_dicts,
            res_dicts,
            rest,
            op.location,
            op.pos,
        )


_CAST = "builtin.unrealized_conversion_cast"


def _reconcile(item: Function | Operation) -> Function | Operation:
    """reconcileUnrealizedCasts: a cast between equal types (what remains of the
    VHLO <-> other-dialect bridges once both sides are builtin) is its operand.

    Values are known by name, and sibling regions reuse names (two
    ``sdy.manual_computation`` bodies of one function both define ``%19``), so a cast
    stands for its operand only in its own block and the regions nested there: each
    block is a scope mapping the names it defines to the value a cast forwards, or to
    None (an op's own result, which hides any outer name)."""
    scopes: list[dict[str, Value | None]] = []

    def resolve(v: Value) -> Value:
        for scope in reversed(scopes):  # innermost first
            if v.name in scope:
                target = scope[v.name]  # (resolved when its cast was read)
                return v if target is None else target
        return v

    def is_alias(o: Operation) -> bool:
        return (
            o.name == _CAST
            and len(o.operands) == 1
            and len(o.results) == 1
            and o.operands[0].type == o.results[0].type
        )

    def rewrite_block(b: Block) -> Block:
        scope: dict[str, Value | None] = {a.name: None for a in b.arguments}
        scopes.append(scope)
        try:
            ops = []
            for o in b.operations:
                if is_alias(o):
                    scope[o.results[0].name] = resolve(o.operands[0])
                    continue
                ops.append(rewrite(o))
                for r in o.results:
                    scope[r.name] = None
            return replace(b, operations=tuple(ops))
        finally:
            scopes.pop()

    def rewrite(o: Operation) -> Operation:
        operands = tuple(resolve(v) for v in o.operands)
        return rebuild_blocks(o, rewrite_block, operands=operands)

    if isinstance(item, Function):
        body = item.body
        if body is None or not any(
            map(is_alias, iter_ops(o for b in body.blocks for o in b.operations))
        ):
            return item
        return replace(item, body=map_blocks(body, rewrite_block))
    return rewrite(item) if any(map(is_alias, iter_ops([item]))) else item


def _dicts(a) -> tuple[DictionaryAttr | None, ...]:
    if a is None:
        return ()
    conv = from_vhlo_attr(a)
    if not isinstance(conv, ArrayAttr):
        raise _Fail
    out = []
    for d in conv.elements:
        if not isinstance(d, DictionaryAttr):
            raise _Fail
        out.append(d if d.entries else None)
    return tuple(out) if any(x is not None for x in out) else ()


def legalize_to_stablehlo(module: Module) -> Module:
    """The StableHLO form of a VHLO module at the current version."""
    conv = _Converter()

    def item(x: Function | Operation) -> Function | Operation:
        if not isinstance(x, Operation):
            return x
        return _reconcile(conv.function(x) if x.name == "vhlo.func_v1" else conv.op(x))

    return map_body(module, item)


_ = (LocationAttr, LegalizeError)
