"""StableHLO -> VHLO, the op side: special attributes, defaults, ops and functions
(stablehlo/transforms/StablehloLegalizeToVhlo.cpp ``convertSpecial``, ``addDefaults``,
``StablehloToVhloOpConverter``).  Types and the generic attribute path are in
``to_vhlo``."""

from __future__ import annotations

from collections.abc import Callable

from ..ir import (
    ArrayAttr,
    Attribute,
    Block,
    ChannelHandle,
    ConvDimensionNumbers,
    DenseArrayAttr,
    DenseElementsAttr,
    DictionaryAttr,
    DotAlgorithm,
    DotDimensionNumbers,
    EnumAttr,
    Function,
    GatherDimensionNumbers,
    IntegerAttr,
    Module,
    Operation,
    Region,
    ResultAccuracy,
    ScatterDimensionNumbers,
    SymbolRefAttr,
    Type,
    UnitAttr,
    Value,
)
from . import table
from .common import (
    MALFORMED,
    NONE_TYPE_ATTR,
    illegal,
    varray,
    vbool,
    vint64,
    vstring,
    vtensor_bool,
    vtensor_i64,
)
from .ir import VhloAttr
from .to_vhlo import AllowOther, _Fail, allows, to_vhlo_attr, to_vhlo_type
from .walk import map_body, map_region, rebuild

# ---- attributes: op-specific special cases (convertSpecial) -------------------------

Attrs = list[tuple[str, Attribute]]


def _ints(xs) -> VhloAttr:
    return vtensor_i64(xs)


def _channel_id(a: Attribute, out: Attrs) -> None:
    if not isinstance(a, ChannelHandle):
        raise _Fail
    out.append(("channel_id", vint64(a.handle)))


def _channel_handle(a: Attribute, out: Attrs) -> None:
    if not isinstance(a, ChannelHandle):
        raise _Fail
    out.append(("channel_id", vint64(a.handle)))
    out.append(("channel_type", vint64(a.type)))


def _unit_true(name: str) -> Callable[[Attribute, Attrs], None]:
    def fn(a: Attribute, out: Attrs) -> None:
        if not isinstance(a, UnitAttr):
            raise _Fail
        out.append((name, vbool(True)))

    return fn


def _conv_dims(a: Attribute, out: Attrs) -> None:
    if not isinstance(a, ConvDimensionNumbers):
        raise _Fail
    out += [
        ("input_batch_dimension", vint64(a.input_batch_dimension)),
        ("input_feature_dimension", vint64(a.input_feature_dimension)),
        ("input_spatial_dimensions", _ints(a.input_spatial_dimensions)),
        ("kernel_input_feature_dimension", vint64(a.kernel_input_feature_dimension)),
        ("kernel_output_feature_dimension", vint64(a.kernel_output_feature_dimension)),
        ("kernel_spatial_dimensions", _ints(a.kernel_spatial_dimensions)),
        ("output_batch_dimension", vint64(a.output_batch_dimension)),
        ("output_feature_dimension", vint64(a.output_feature_dimension)),
        ("output_spatial_dimensions", _ints(a.output_spatial_dimensions)),
    ]


_API_VERSIONS = dict(enumerate(table.enum_cases("api_version_v1")))


def _api_version(a: Attribute, out: Attrs) -> None:
    if not isinstance(a, IntegerAttr) or a.value not in _API_VERSIONS:
        raise _Fail
    out.append(("api_version", VhloAttr("api_version_v1", (_API_VERSIONS[a.value],))))


def _called_computations(a: Attribute, out: Attrs) -> None:
    if not isinstance(a, ArrayAttr):
        raise _Fail
    items = []
    for e in a.elements:
        if not isinstance(e, SymbolRefAttr) or e.nested:
            raise _Fail
        items.append(vstring(e.root))
    out.append(("called_computations", varray(items)))


def _dot_dims(a: Attribute, out: Attrs) -> None:
    if not isinstance(a, DotDimensionNumbers):
        raise _Fail
    out += [
        ("lhs_batching_dimensions", _ints(a.lhs_batching_dimensions)),
        ("rhs_batching_dimensions", _ints(a.rhs_batching_dimensions)),
        ("lhs_contracting_dimensions", _ints(a.lhs_contracting_dimensions)),
        ("rhs_contracting_dimensions", _ints(a.rhs_contracting_dimensions)),
    ]


def _dot_algorithm(a: Attribute, out: Attrs) -> None:
    if not isinstance(a, DotAlgorithm):
        raise _Fail
    out += [
        ("lhs_precision_type", VhloAttr("type_v1", (to_vhlo_type(a.lhs_precision_type),))),
        ("rhs_precision_type", VhloAttr("type_v1", (to_vhlo_type(a.rhs_precision_type),))),
        ("accumulation_type", VhloAttr("type_v1", (to_vhlo_type(a.accumulation_type),))),
        ("lhs_component_count", vint64(a.lhs_component_count)),
        ("rhs_component_count", vint64(a.rhs_component_count)),
        ("num_primitive_operations", vint64(a.num_primitive_operations)),
        ("allow_imprecise_accumulation", vbool(a.allow_imprecise_accumulation)),
    ]


def _gather_dims(a: Attribute, out: Attrs) -> None:
    if not isinstance(a, GatherDimensionNumbers):
        raise _Fail
    out += [
        ("offset_dims", _ints(a.offset_dims)),
        ("collapsed_slice_dims", _ints(a.collapsed_slice_dims)),
        ("operand_batching_dims", _ints(a.operand_batching_dims)),
        ("start_indices_batching_dims", _ints(a.start_indices_batching_dims)),
        ("start_index_map", _ints(a.start_index_map)),
        ("index_vector_dim", vint64(a.index_vector_dim)),
    ]


def _scatter_dims(a: Attribute, out: Attrs) -> None:
    if not isinstance(a, ScatterDimensionNumbers):
        raise _Fail
    out += [
        ("update_window_dims", _ints(a.update_window_dims)),
        ("inserted_window_dims", _ints(a.inserted_window_dims)),
        ("input_batching_dims", _ints(a.input_batching_dims)),
        ("scatter_indices_batching_dims", _ints(a.scatter_indices_batching_dims)),
        ("scatter_dims_to_operand_dims", _ints(a.scatter_dims_to_operand_dims)),
        ("index_vector_dim", vint64(a.index_vector_dim)),
    ]


def _callee(a: Attribute, out: Attrs) -> None:
    if not isinstance(a, SymbolRefAttr) or a.nested:
        raise _Fail
    out.append(("callee", vstring(a.root)))


_COLLECTIVE = {
    "channel_handle": _channel_id,
    "use_global_device_ids": _unit_true("use_global_device_ids"),
}
_SPECIAL: dict[str, dict[str, Callable[[Attribute, Attrs], None]]] = {
    **{
        op: _COLLECTIVE
        for op in "all_gather all_reduce all_to_all collective_permute reduce_scatter".split()
    },
    "collective_broadcast": {
        "channel_handle": _channel_id,
        "has_dynamic_root": _unit_true("has_dynamic_root"),
    },
    "collective_reduce": {**_COLLECTIVE, "has_dynamic_root": _unit_true("has_dynamic_root")},
    "convolution": {"dimension_numbers": _conv_dims},
    "dynamic_conv": {"dimension_numbers": _conv_dims},
    "custom_call": {"api_version": _api_version, "called_computations": _called_computations},
    "dot_general": {"dot_dimension_numbers": _dot_dims, "algorithm": _dot_algorithm},
    "gather": {"dimension_numbers": _gather_dims},
    "dynamic_gather": {"dimension_numbers": _gather_dims},
    "recv": {"channel_handle": _channel_handle},
    "send": {"channel_handle": _channel_handle},
    "scatter": {"scatter_dimension_numbers": _scatter_dims},
    "func.call": {"callee": _callee},
}


# ---- attributes: defaults StableHLO leaves implicit (addDefaults) -------------------

_PRECISION_DEFAULT = varray([VhloAttr("precision_v1", ("DEFAULT",))] * 2)


def _spatial_rank(op: Operation) -> int:
    dn = op.attr("dimension_numbers")
    if not isinstance(dn, ConvDimensionNumbers):
        raise _Fail
    return len(dn.input_spatial_dimensions)


def _window_rank(op: Operation, name: str) -> int:
    wd = op.attr(name)
    if isinstance(wd, DenseArrayAttr):
        return len(wd.values)
    if isinstance(wd, DenseElementsAttr):
        return int(wd.array.size)
    raise _Fail


def _defaults(base: str, op: Operation) -> Attrs:
    """Default attributes for an op whose StableHLO form omits them."""
    have = op.attr_map
    d: Attrs = []

    def add(name: str, value: Callable[[], Attribute]) -> None:
        if name not in have:
            d.append((name, value()))

    if base in ("all_gather", "all_reduce", "reduce_scatter", "collective_reduce"):
        add("channel_handle", lambda: vint64(0))
        add("use_global_device_ids", lambda: vbool(False))
    if base in ("all_to_all", "collective_permute", "collective_broadcast"):
        add("channel_handle", lambda: vint64(0))
    if base in ("collective_broadcast", "collective_reduce"):
        add("has_dynamic_root", lambda: vbool(False))
    if base == "cholesky":
        add("lower", lambda: vbool(False))
    if base == "compare":
        add("compare_type", lambda: VhloAttr("comparison_type_v1", ("NOTYPE",)))
    if base == "composite":
        add("version", lambda: vint64(0))
        add("composite_attributes", lambda: VhloAttr("dict_v1", ((),)))
    if base in ("convolution", "dynamic_conv"):
        n = _spatial_rank(op)
        add("window_strides", lambda: vtensor_i64([1] * n))
        if base == "convolution":
            add("padding", lambda: vtensor_i64([0] * (2 * n), (n, 2)))
        add("lhs_dilation", lambda: vtensor_i64([1] * n))
        add("rhs_dilation", lambda: vtensor_i64([1] * n))
        add("window_reversal", lambda: vtensor_bool([False] * n))
        add("precision_config", lambda: _PRECISION_DEFAULT)
    if base == "custom_call":
        api = have.get("api_version")
        typed_ffi = isinstance(api, IntegerAttr) and api.value == 4
        add("has_side_effect", lambda: vbool(False))
        add("backend_config", lambda: VhloAttr("dict_v1", ((),)) if typed_ffi else vstring(""))
        add("api_version", lambda: VhloAttr("api_version_v1", ("API_VERSION_ORIGINAL",)))
        for name in (
            "called_computations",
            "operand_layouts",
            "result_layouts",
            "output_operand_aliases",
            "result_tilings",
        ):
            add(name, lambda: varray(()))
    if base in ("dot_general", "dot"):
        add("precision_config", lambda: _PRECISION_DEFAULT)
    if base == "dot_general" and "algorithm" not in have:
        d += [(name, NONE_TYPE_ATTR) for name in table.DOT_ALGORITHM_FIELDS]
    if base in table.RESULT_ACCURACY_OPS:
        add(
            "result_accuracy",
            lambda: to_vhlo_attr(
                ResultAccuracy(mode=EnumAttr("stablehlo", "result_accuracy_mode", "DEFAULT", False))
            ),
        )
    if base == "dynamic_broadcast_in_dim":
        add("known_expanding_dimensions", lambda: vtensor_i64([]))
        add("known_nonexpanding_dimensions", lambda: vtensor_i64([]))
    if base in ("dynamic_gather", "gather"):
        add("indices_are_sorted", lambda: vbool(False))
    if base == "infeed":
        add("infeed_config", lambda: vstring(""))
        add("layout", lambda: varray(()))
    if base == "outfeed":
        add("outfeed_config", lambda: vstring(""))
    if base in ("recv", "send"):
        add("is_host_transfer", lambda: vbool(False))
        add("source_target_pairs", lambda: vtensor_i64([]))
    if base == "reduce_window":
        n = _window_rank(op, "window_dimensions")
        for name in ("window_strides", "base_dilations", "window_dilations"):
            add(name, lambda: vtensor_i64([1] * n))
        add("padding", lambda: vtensor_i64([0] * (2 * n), (n, 2)))
    if base == "scatter":
        add("indices_are_sorted", lambda: vbool(False))
        add("unique_indices", lambda: vbool(False))
    if base == "select_and_scatter":
        n = _window_rank(op, "window_dimensions")
        add("window_strides", lambda: vtensor_i64([1] * n))
        add("padding", lambda: vtensor_i64([0] * (2 * n), (n, 2)))
    if base == "sort":
        add("dimension", lambda: vint64(-1))
        add("is_stable", lambda: vbool(False))
    # channel_handle defaults land under their VHLO name.
    return [("channel_id", v) if k == "channel_handle" else (k, v) for k, v in d]


# ---- ops -----------------------------------------------------------------------------


class _Legalizer:
    def __init__(self, allow_other: AllowOther) -> None:
        self.allow_other = allow_other

    def type(self, t: Type) -> Type:
        return to_vhlo_type(t, self.allow_other)

    def value(self, v: Value) -> Value:
        return Value(v.name, self.type(v.type))

    def attrs(self, key: str, base: str, op: Operation) -> tuple[tuple[str, Attribute], ...]:
        out: Attrs = _defaults(base, op)
        special = _SPECIAL.get(key, {})
        for name, a in op.attributes:
            fn = special.get(name)
            if fn is not None:
                fn(a, out)
                continue
            try:
                out.append((name, to_vhlo_attr(a, self.allow_other)))
            except _Fail as e:
                raise _Fail(f"attribute '{name}' = {e.what}" if e.what else "") from None
        return tuple(sorted(out, key=lambda kv: kv[0]))

    def region(self, r: Region) -> Region:
        return map_region(r, self.op, self._arg)

    def _arg(self, a: Value) -> Value:
        """A block argument at its VHLO type."""
        try:
            return self.value(a)
        except (_Fail, *MALFORMED):
            raise illegal("block", None) from None

    def op(self, op: Operation) -> Operation:
        info = table.vhlo_op_for(op.name)
        if info is None:
            if op.name.startswith(("vhlo.",)):
                return op
            if op.dialect != "func" and allows(self.allow_other, op.dialect):
                return self._other(op)
            raise illegal(op.name, op.pos, _other_dialect(op.dialect))
        key = "func.call" if op.name == "func.call" else info.base
        try:
            results = tuple(self.value(v) for v in op.results)
            operands = tuple(self.value(v) for v in op.operands)
            attrs = self.attrs(key, info.base, op)
        except _Fail as e:
            raise illegal(op.name, op.pos, _refused(e)) from None
        except MALFORMED:
            raise illegal(op.name, op.pos) from None
        regions = tuple(self.region(r) for r in op.regions)
        names = frozenset(k for k, _ in attrs if k in info.attributes)
        return Operation(
            info.name, operands, results, attrs, regions, op.successors, names, op.location, op.pos
        )

    def _other(self, op: Operation) -> Operation:
        """Ops of other dialects stay (allow-other-dialects); the StableHLO ops in their
        regions still convert (their block arguments keep their types)."""
        return rebuild(op, self.op)

    def function(self, f: Function) -> Operation:
        try:
            ftype = self.type(f.type)
            attrs: Attrs = [
                ("sym_name", vstring(f.name)),
                ("function_type", VhloAttr("type_v1", (ftype,))),
                ("sym_visibility", vstring(f.visibility or "")),
                ("arg_attrs", self._arg_attrs(f.arg_attrs)),
                ("res_attrs", self._arg_attrs(f.result_attrs)),
            ]
            for k, v in f.attributes:
                try:
                    attrs.append((k, to_vhlo_attr(v, self.allow_other)))
                except _Fail as e:
                    raise _Fail(f"attribute '{k}' = {e.what}" if e.what else "") from None
        except _Fail as e:
            raise illegal("func.func", f.pos, _refused(e)) from None
        except MALFORMED:
            raise illegal("func.func", f.pos) from None
        body = Region(()) if f.body is None else self.region(f.body)
        if f.body is not None:
            try:
                args = tuple(self.value(a) for a in f.body.entry.arguments)
            except (_Fail, *MALFORMED):
                raise illegal("func.func", f.pos) from None
            entry = f.body.entry
            body = Region(
                (Block(args, body.blocks[0].operations, entry.label, entry.arg_locations),)
                + body.blocks[1:]
            )
        info = table.OPS["func_v1"]
        attrs.sort(key=lambda kv: kv[0])
        names = frozenset(k for k, _ in attrs if k in info.attributes)
        return Operation(
            "vhlo.func_v1", (), (), tuple(attrs), (body,), (), names, f.location, f.pos
        )

    def _arg_attrs(self, dicts) -> VhloAttr:
        """func.func arg_attrs / res_attrs: absent (all empty) -> ``[]``, else one dict
        per argument."""
        if not any(d is not None and d.entries for d in dicts):
            return varray(())
        return varray(
            to_vhlo_attr(d if d is not None else DictionaryAttr(()), self.allow_other)
            for d in dicts
        )


def _refused(e: _Fail) -> str:
    """What a refusal adds to MLIR's message: the attribute (or type) of another dialect
    that VHLO has no form for, and how to keep it."""
    if not e.what:
        return ""
    return f"{e.what} has no VHLO form (--allow-other-dialects keeps it as it is)"


def _other_dialect(dialect: str) -> str:
    if dialect in ("stablehlo", "func", "vhlo", "chlo", "builtin", ""):
        return ""
    return f"an op of dialect '{dialect}' (--allow-other-dialects keeps it as it is)"


def legalize_to_vhlo(module: Module, *, allow_other_dialects: AllowOther = False) -> Module:
    """The VHLO form of a StableHLO module (ops already in VHLO are kept)."""
    lg = _Legalizer(allow_other_dialects)
    out = map_body(module, lambda x: lg.function(x) if isinstance(x, Function) else lg.op(x))
    if allow_other_dialects:
        from .mixed import materialize_casts

        out = map_body(out, materialize_casts)
    return out
