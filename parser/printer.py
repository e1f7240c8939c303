"""MLIR text from hlorun's IR: ``print_module(module) -> str``.

The printer writes each op in the pretty (custom) form that ``stablehlo-opt`` uses where
StableHLO defines one (StablehloOps.td assembly formats, AssemblyFormat.cpp custom
directives) and the op's IR fits that form exactly; otherwise it writes MLIR's generic
form ``"dialect.op"(%a) <{props}> ({regions}) {attrs} : (t) -> t``, which is always
correct.  Everything the IR carries is written back (types, attributes, ``loc(...)``,
aliases, resources), so that ``parse_module(print_module(m)) == m``.

Numbers follow MLIR's AsmPrinter: floats as ``1.000000e+00`` when that reads back to the
same bits, else with enough digits to do so, and NaN / infinity as the bit pattern
``0x7FC00000``; integers in decimal (``i1`` as ``true`` / ``false``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

import ml_dtypes
import numpy as np

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
    numpy_dtype,
)

__all__ = ["print_attribute", "print_module", "print_operation", "print_type"]

# --------------------------------------------------------------------------------------
# Lexical helpers
# --------------------------------------------------------------------------------------

_BARE_ID = re.compile(r"[A-Za-z_][A-Za-z0-9_$.]*\Z")
# llvm::printEscapedString: printable ASCII except `"` and `\` as is, `\\`, else `\XX`.
_ESCAPE = tuple(
    "\\\\" if c == 0x5C else chr(c) if 0x20 <= c < 0x7F and c != 0x22 else f"\\{c:02X}"
    for c in range(256)
)
_PLAIN = re.compile(r'[ !#-\[\]-~]*\Z')


def escape_string(s: str) -> str:
    """``s`` as an MLIR string literal (with the quotes)."""
    if _PLAIN.match(s):
        return f'"{s}"'
    out = []
    for ch in s:
        o = ord(ch)
        if o < 256:
            out.append(_ESCAPE[o])
        else:
            out.extend(f"\\{b:02X}" for b in ch.encode("utf-8"))
    return '"' + "".join(out) + '"'


def _keyword_or_string(name: str) -> str:
    """A bare identifier when ``name`` is one, else a quoted string (MLIR's rule)."""
    return name if _BARE_ID.match(name) else escape_string(name)


def _symbol(name: str) -> str:
    """``@name`` (``name`` given with or without its ``@``)."""
    if name.startswith("@"):
        name = name[1:]
    return "@" + _keyword_or_string(name)


# --------------------------------------------------------------------------------------
# Numbers
# --------------------------------------------------------------------------------------

_FLOAT_DTYPE: dict[str, np.dtype] = {}
_SUB_BYTE_FLOATS = {"f4E2M1FN": 0xF, "f6E2M3FN": 0x3F, "f6E3M2FN": 0x3F}
_SIG_BITS: dict[str, int] = {}


def _float_info(name: str) -> tuple[np.dtype, int]:
    """Storage dtype and significand precision (bits incl. the implicit one) of a format."""
    dt = _FLOAT_DTYPE.get(name)
    if dt is None:
        dt = numpy_dtype(FloatType(name))
        _FLOAT_DTYPE[name] = dt
        _SIG_BITS[name] = 11 if name == "tf32" else int(ml_dtypes.finfo(dt).nmant) + 1
    return dt, _SIG_BITS[name]


def _uint_view(a: np.ndarray) -> np.ndarray:
    return a.view({1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}[a.dtype.itemsize])


def _hex_bits(value: np.ndarray, name: str) -> str:
    """The bit pattern of one element of format ``name`` as MLIR writes it (``0x7FC00000``)."""
    bits = int(_uint_view(value.reshape(1))[0])
    if name == "tf32":
        bits >>= 13
    elif name in _SUB_BYTE_FLOATS:
        bits &= _SUB_BYTE_FLOATS[name]
    return f"0x{bits:X}"


def _apfloat_default(v: float, sig_bits: int) -> str:
    """APFloat::toString with its default arguments: just enough digits to read back,
    trailing zeros dropped, scientific (``E``) outside a 3-digit padding window."""
    prec = 2 + sig_bits * 59 // 196
    mant, _, exp_s = f"{v:.{prec - 1}e}".partition("e")
    sign = "-" if mant.startswith("-") else ""
    digits = mant.lstrip("-").replace(".", "").rstrip("0") or "0"
    nd = len(digits)
    exp = int(exp_s) - (nd - 1)  # exponent of the least significant digit
    if exp >= 0:
        scientific = exp > 3 or nd + exp > prec
    else:
        msd = exp + nd - 1
        scientific = msd < 0 and -msd > 3
    if scientific:
        e10 = exp + nd - 1
        frac = digits[1:] or "0"
        return f"{sign}{digits[0]}.{frac}E{'+' if e10 >= 0 else '-'}{abs(e10)}"
    if exp >= 0:
        return sign + digits + "0" * exp  # no '.', the caller falls back to hex
    whole = nd + exp
    if whole > 0:
        return f"{sign}{digits[:whole]}.{digits[whole:]}"
    return f"{sign}0.{'0' * -whole}{digits}"


def _format_floats(arr: np.ndarray, name: str) -> list[str]:
    """MLIR's printFloatValue for each element of ``arr`` (stored as format ``name``)."""
    dt, sig = _float_info(name)
    with np.errstate(all="ignore"):
        flat = np.ascontiguousarray(arr, dtype=dt).reshape(-1)
        wide = flat.astype(np.float64)
        out = [f"{x:.5e}".replace("e", "0e", 1) for x in wide.tolist()]
        finite = np.isfinite(wide)
        back = np.array([float(s) if f else 0.0 for s, f in zip(out, finite.tolist())])
        if name == "tf32":  # tf32 values live in float32 storage: round to 11 bits
            m, e = np.frexp(back)
            same = np.ldexp(np.rint(np.ldexp(m, 11)), e - 11) == wide
        else:
            same = _uint_view(back.astype(dt)) == _uint_view(flat)
    bad = np.flatnonzero(~(same & finite))
    for i in bad.tolist():
        x = wide[i]
        s = _apfloat_default(float(x), sig) if finite[i] else ""
        if "." not in s:
            s = _hex_bits(flat[i : i + 1], name)
        out[i] = s
    return out


def format_float(value: float, type_: Type | None) -> str:
    """A float literal as MLIR prints a FloatAttr of that type (f64 when untyped)."""
    name = type_.name if isinstance(type_, FloatType) else "f64"
    return _format_floats(np.array([value], dtype=np.float64), name)[0]


def _untyped_float(x: float) -> str:
    """A FloatAttr without a type (f64 in MLIR): a bit pattern would read back as an
    integer, so a finite value keeps a decimal point (``1000001.0``) and infinities and
    the default NaNs are spelled ``inf`` / ``nan``."""
    text = format_float(x, None)
    if not text.startswith("0x"):
        return text
    if np.isfinite(x):
        return _decimal_literal(x)
    bits = np.float64(x).tobytes()
    for word in ("inf", "-inf", "nan", "-nan"):
        if np.float64(float(word)).tobytes() == bits:
            return word
    return text + " : f64"


def _decimal_literal(x: float) -> str:
    """Python's shortest exact decimal for ``x``, with the ``.`` MLIR's lexer wants."""
    s = repr(float(x))
    if "." in s:
        return s
    return s.replace("e", ".0e", 1) if "e" in s else s + ".0"


def _scale_literal(x: float) -> str:
    """A quantization scale: ``%e`` like MLIR when that is exact, else enough digits."""
    s = f"{x:e}"
    return s if float(s) == x else _decimal_literal(x)


# --------------------------------------------------------------------------------------
# Types
# --------------------------------------------------------------------------------------


def _dims(shape: Sequence[int | None]) -> str:
    return "".join(("?" if d is None else str(d)) + "x" for d in shape)


# --------------------------------------------------------------------------------------
# The printer
# --------------------------------------------------------------------------------------

_ELEMENTWISE_UNARY = frozenset(
    "abs cbrt ceil convert count_leading_zeros cosine exponential exponential_minus_one "
    "floor imag log log_plus_one logistic not negate popcnt real round_nearest_afz "
    "round_nearest_even rsqrt sign sine sqrt tan tanh uniform_quantize uniform_dequantize".split()
)
_ELEMENTWISE_BINARY = frozenset(
    "add atan2 divide maximum minimum multiply power remainder shift_left "
    "shift_right_arithmetic shift_right_logical subtract and or xor".split()
)
_FUNCTIONAL_OPERANDS = frozenset(
    "is_finite bitcast_convert reshape dynamic_reshape dynamic_update_slice "
    "real_dynamic_slice dynamic_pad".split()
)


class _Printer:
    """Writes one module; caches the text of types (by identity) while it runs."""

    def __init__(self, hex_above: int | None = None) -> None:
        self.hex_above = hex_above
        self._types: dict[int, tuple[Type, str]] = {}
        self._attr_dispatch: dict[type, Callable[[Attribute], str]] = {
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
            TypeExtensions: self._type_extensions,
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
        if isinstance(t, TensorType):
            elem = self.type(t.element_type)
            body = "*x" + elem if t.shape is None else _dims(t.shape) + elem
            if t.encoding is not None:
                body += ", " + self.attr(t.encoding)
            return f"tensor<{body}>"
        if isinstance(t, (IntegerType, FloatType, IndexType, NoneType)):
            return str(t)
        if isinstance(t, ComplexType):
            return f"complex<{self.type(t.element_type)}>"
        if isinstance(t, QuantizedType):
            return self._quantized(t)
        if isinstance(t, TokenType):
            return "!stablehlo.token"
        if isinstance(t, TupleType):
            return "tuple<" + ", ".join(self.type(e) for e in t.types) + ">"
        if isinstance(t, FunctionType):
            return self.function_type(t.inputs, t.results)
        if isinstance(t, OpaqueType):
            return t.text
        raise UnsupportedError(f"the printer has no syntax for type {t!r}")

    def _quantized(self, t: QuantizedType) -> str:
        st = t.storage_type
        if isinstance(st, IntegerType):
            storage = ("u" if st.is_unsigned else "i") + str(st.width)
        else:
            storage = self.type(st)
        if t.storage_min is not None and t.storage_max is not None:
            storage += f"<{t.storage_min}:{t.storage_max}>"
        head = f"{storage}:{self.type(t.expressed_type)}"

        def param(scale: float, zp: int) -> str:
            return _scale_literal(scale) + (f":{zp}" if zp != 0 else "")

        if t.quantized_dimension is None:
            return f"!quant.uniform<{head}, {param(t.scales[0], t.zero_points[0])}>"
        params = ",".join(param(s, z) for s, z in zip(t.scales, t.zero_points))
        return f"!quant.uniform<{head}:{t.quantized_dimension}, {{{params}}}>"

    def function_type(self, inputs: Sequence[Type], results: Sequence[Type]) -> str:
        ins = "(" + ", ".join(self.type(t) for t in inputs) + ")"
        if len(results) == 1 and not isinstance(results[0], FunctionType):
            return f"{ins} -> {self.type(results[0])}"
        return ins + " -> (" + ", ".join(self.type(t) for t in results) + ")"

    # ---- attributes -------------------------------------------------------------------

    def attr(self, a: Attribute) -> str:
        fn = self._attr_dispatch.get(type(a))
        if fn is None:
            raise UnsupportedError(f"the printer has no syntax for attribute {a!r}")
        return fn(a)

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
        if a.hex:
            return _hex_blob(arr, elem)
        if arr.size == 0:
            return ""
        if a.is_splat:
            return _format_elements(arr.reshape(-1)[:1], elem)[0]
        if self.hex_above is not None and arr.size > self.hex_above:
            return _hex_blob(arr, elem)
        strs = _format_elements(arr.reshape(-1), elem)
        return _nest(strs, arr.shape)

    def _type_extensions(self, a: TypeExtensions) -> str:
        dims = ", ".join("?" if b is None else str(b) for b in a.bounds)
        if a.spelling == "type_extensions":
            return f"#stablehlo.type_extensions<bounds = [{dims}]>"
        return f"#stablehlo.bounds<{dims}>"

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
        wrapped = not m.implicit or m.name is not None or m.attributes or m.location
        if wrapped:
            head = "module"
            if m.name is not None:
                head += " " + _symbol(m.name)
            if m.attributes:
                head += " attributes " + self.dict(m.attributes)
            out.append(head + " {")
        depth = 1 if wrapped else 0
        for item in m.body:
            if isinstance(item, Function):
                out.append(self.function(item, depth))
            else:
                out.append(self.operation(item, depth))
        if wrapped:
            out.append("}" + self._loc(m.location))
        if m.resources:
            out.append(self._resources(m.resources))
        return "\n".join(out) + "\n"

    def _resources(self, resources: Sequence[tuple[str, str, str]]) -> str:
        by_dialect: dict[str, list[tuple[str, str]]] = {}
        for dialect, key, blob in resources:
            by_dialect.setdefault(dialect, []).append((key, blob))
        lines = ["{-#", "  dialect_resources: {"]
        dialects = list(by_dialect.items())
        for i, (dialect, entries) in enumerate(dialects):
            lines.append(f"    {_keyword_or_string(dialect)}: {{")
            for j, (key, blob) in enumerate(entries):
                text = blob if blob.startswith('"') else f'"{blob}"'
                comma = "," if j + 1 < len(entries) else ""
                lines.append(f"      {_keyword_or_string(key)}: {text}{comma}")
            lines.append("    }" + ("," if i + 1 < len(dialects) else ""))
        lines += ["  }", "#-}"]
        return "\n".join(lines)

    def function(self, f: Function, depth: int) -> str:
        ind = "  " * depth
        head = ind + "func.func "
        if f.visibility is not None:
            head += f.visibility + " "
        head += _symbol(f.name)
        args = []
        if f.body is None or not f.body.blocks:
            for i, t in enumerate(f.type.inputs):
                args.append(self.type(t) + self._opt_dict(f.arg_attrs, i))
        else:
            entry = f.body.entry
            for i, v in enumerate(entry.arguments):
                args.append(
                    f"{v.name}: {self.type(v.type)}"
                    + self._opt_dict(f.arg_attrs, i)
                    + self._loc(_at(entry.arg_locations, i))
                )
        head += "(" + ", ".join(args) + ")"
        results = f.type.results
        if results:
            if (
                len(results) == 1
                and _at(f.result_attrs, 0) is None
                and not isinstance(results[0], FunctionType)
            ):
                head += " -> " + self.type(results[0])
            else:
                res = [self.type(t) + self._opt_dict(f.result_attrs, i) for i, t in enumerate(results)]
                head += " -> (" + ", ".join(res) + ")"
        if f.attributes:
            head += " attributes " + self.dict(f.attributes)
        if f.body is not None:
            head += " " + self.region(f.body, depth, entry_args=False)
        return head + self._loc(f.location)

    def _opt_dict(self, attrs: Sequence[DictionaryAttr | None], i: int) -> str:
        d = _at(attrs, i)
        return "" if d is None else " " + self.dict(d.entries)

    @staticmethod
    def _loc(loc: LocationAttr | None) -> str:
        return "" if loc is None else f" loc({loc.text})"

    def region(self, region: Region, depth: int, *, entry_args: bool = True,
               empty_entry_label: bool = False) -> str:
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
        pretty = _PRETTY.get(op.name)
        if pretty is not None and not op.successors:
            text = pretty(self, op, depth)
        if text is None:
            text = self.generic(op, depth)
        return "  " * depth + _result_list(op.results) + text + self._loc(op.location)

    def generic(self, op: Operation, depth: int, *, name: str | None = None) -> str:
        s = (name if name is not None else escape_string(op.name))
        s += "(" + _names(op.operands) + ")"
        if op.successors:
            s += "[" + ", ".join(op.successors) + "]"
        props = [(k, v) for k, v in op.attributes if k in op.property_names]
        rest = [(k, v) for k, v in op.attributes if k not in op.property_names]
        if props:
            s += " <" + self.dict(props) + ">"
        if op.regions:
            s += " (" + ", ".join(
                self.region(r, depth, empty_entry_label=True) for r in op.regions
            ) + ")"
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
    lhs = _conv_layout(a.input_batch_dimension, a.input_feature_dimension,
                       a.input_spatial_dimensions, "b", "f")
    rhs = _conv_layout(a.kernel_input_feature_dimension, a.kernel_output_feature_dimension,
                       a.kernel_spatial_dimensions, "i", "o")
    out = _conv_layout(a.output_batch_dimension, a.output_feature_dimension,
                       a.output_spatial_dimensions, "b", "f")
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


# ---- dense elements -------------------------------------------------------------------


def _format_elements(flat: np.ndarray, elem: Type) -> list[str]:
    """Decimal text of each element (MLIR's printDenseIntElement / printFloatValue)."""
    if isinstance(elem, QuantizedType):
        elem = elem.storage_type
    if isinstance(elem, IntegerType):
        if elem.is_bool:
            return ["true" if v else "false" for v in flat.astype(bool).tolist()]
        if flat.dtype.kind not in "iu":  # ml_dtypes' int2/int4/uint2/uint4
            flat = flat.astype(np.uint8 if elem.is_unsigned else np.int8)
        return [str(v) for v in flat.tolist()]
    if isinstance(elem, IndexType):
        return [str(v) for v in flat.astype(np.int64).tolist()]
    if isinstance(elem, FloatType):
        return _format_floats(flat, elem.name)
    if isinstance(elem, ComplexType):
        inner = elem.element_type
        name = inner.name if isinstance(inner, FloatType) else "f64"
        re_ = _format_floats(flat.real, name)
        im_ = _format_floats(flat.imag, name)
        return [f"({r},{i})" for r, i in zip(re_, im_)]
    raise UnsupportedError(f"the printer cannot write dense elements of type {elem!r}")


def _nest(strs: list[str], shape: tuple[int, ...]) -> str:
    items = strs
    for d in reversed(shape):
        items = ["[" + ", ".join(items[k : k + d]) + "]" for k in range(0, len(items), d)]
    return items[0]


def _hex_blob(arr: np.ndarray, elem: Type) -> str:
    """``"0x..."``: the little-endian raw data as MLIR stores it (one byte per i1 and per
    sub-byte element, complex as (real, imag) pairs)."""
    if isinstance(elem, QuantizedType):
        elem = elem.storage_type
    a = np.ascontiguousarray(arr).reshape(-1)
    if isinstance(elem, IntegerType):
        if elem.is_bool:
            data = a.astype(np.uint8).tobytes()
        elif elem.width < 8:
            data = (a.view(np.uint8) & ((1 << elem.width) - 1)).tobytes()
        else:
            data = a.astype(a.dtype.newbyteorder("<")).tobytes()
    elif isinstance(elem, FloatType) and elem.name == "tf32":
        bits = (a.astype(np.float32).view(np.uint32) >> 13).astype("<u4")
        data = bits.view(np.uint8).reshape(-1, 4)[:, :3].tobytes()
    elif isinstance(elem, FloatType) and elem.name in _SUB_BYTE_FLOATS:
        data = (a.view(np.uint8) & _SUB_BYTE_FLOATS[elem.name]).tobytes()
    else:
        data = a.astype(a.dtype.newbyteorder("<")).tobytes()
    return '"0x' + data.hex().upper() + '"'


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


# --------------------------------------------------------------------------------------
# Pretty forms (StablehloOps.td assembly formats)
# --------------------------------------------------------------------------------------

PrettyFn = Callable[[_Printer, Operation, int], "str | None"]
_PRETTY: dict[str, PrettyFn] = {}


def _pretty(*names: str) -> Callable[[PrettyFn], PrettyFn]:
    def register(fn: PrettyFn) -> PrettyFn:
        for n in names:
            _PRETTY[n] = fn
        return fn

    return register


def _fits(op: Operation, custom: Sequence[str] = (), *, n_operands: int | None = None,
          n_results: int | None = None, n_regions: int = 0) -> bool:
    """Whether ``op`` may take a pretty form whose custom syntax spells the attributes
    ``custom`` (every other attribute going to its attribute dictionary).

    The parser rebuilds ``op`` from the text: the custom syntax spells the ``custom``
    attributes and the dictionary holds the rest.  Whether the source wrote them as
    properties does not matter (``property_names`` is a spelling, not part of equality).
    (Attribute order needs no check: the parser keeps every op's attributes sorted.)"""
    if len(op.regions) != n_regions:
        return False
    if n_operands is not None and len(op.operands) != n_operands:
        return False
    if n_results is not None and len(op.results) != n_results:
        return False
    return True


def _i64_array(a: Attribute | None) -> tuple[int, ...] | None:
    """The values of an ``array<i64: ...>`` attribute, else None."""
    if (
        isinstance(a, DenseArrayAttr)
        and isinstance(a.element_type, IntegerType)
        and a.element_type.width == 64
        and a.element_type.signedness == "signless"
    ):
        return tuple(int(v) for v in a.values)
    return None


def _typed_int(a: Attribute | None, width: int) -> int | None:
    """The value of ``N : i<width>``, else None."""
    if (
        isinstance(a, IntegerAttr)
        and isinstance(a.type, IntegerType)
        and a.type.width == width
        and a.type.signedness == "signless"
    ):
        return a.value
    return None


def _enum(a: Attribute | None, kind: str) -> str | None:
    """The case of a short-form ``#stablehlo<kind CASE>`` enum whose case is a keyword."""
    if (
        isinstance(a, EnumAttr)
        and a.dialect == "stablehlo"
        and a.kind == kind
        and a.short
        and _KEYWORD.match(a.value)
    ):
        return a.value
    return None


_KEYWORD = re.compile(r"[A-Za-z_][A-Za-z0-9_$]*\Z")


def _operands(op: Operation) -> str:
    return _names(op.operands)


# ---- elementwise and other `operands attr-dict : types` forms ----------------------------


def _simple_form(n_operands: int | None, types: str) -> PrettyFn:
    """`$operands attr-dict : <types>`; ``types`` is "same" (custom<SameOperandsAndResult
    Type>) or "functional"."""

    def fn(p: _Printer, op: Operation, depth: int) -> str | None:
        if not _fits(op, n_operands=n_operands, n_results=1):
            return None
        if n_operands is None and not op.operands:
            return None
        sig = p.same_type(op) if types == "same" else p.functional(op)
        return f"{op.name} {_operands(op)}{p.attr_dict(op)} : {sig}"

    return fn


for _n in _ELEMENTWISE_UNARY:
    _PRETTY[f"stablehlo.{_n}"] = _simple_form(1, "same")
for _n in _ELEMENTWISE_BINARY:
    _PRETTY[f"stablehlo.{_n}"] = _simple_form(2, "same")
for _n in _FUNCTIONAL_OPERANDS:
    _PRETTY[f"stablehlo.{_n}"] = _simple_form(None, "functional")
_PRETTY["stablehlo.clamp"] = _simple_form(3, "same")


@_pretty("stablehlo.complex")
def _p_complex(p: _Printer, op: Operation, depth: int) -> str | None:
    """custom<ComplexOpType>: the result type alone when the operands are its real form."""
    if not _fits(op, n_operands=2, n_results=1):
        return None
    res = op.results[0].type
    if (
        isinstance(res, TensorType)
        and isinstance(res.element_type, ComplexType)
        and all(
            v.type == TensorType(res.shape, res.element_type.element_type, res.encoding)
            for v in op.operands
        )
    ):
        sig = p.type(res)
    else:
        sig = p.functional(op)
    return f"{op.name} {_operands(op)}{p.attr_dict(op)} : {sig}"


@_pretty("stablehlo.select")
def _p_select(p: _Printer, op: Operation, depth: int) -> str | None:
    """custom<SelectOpType>: `pred_type, result_type` when both branches have the result type."""
    if not _fits(op, n_operands=3, n_results=1):
        return None
    res = op.results[0].type
    if op.operands[1].type == res and op.operands[2].type == res:
        sig = f"{p.type(op.operands[0].type)}, {p.type(res)}"
    else:
        sig = p.functional(op)
    return f"{op.name} {_operands(op)}{p.attr_dict(op)} : {sig}"


@_pretty("stablehlo.constant", "arith.constant", "chlo.constant")
def _p_constant(p: _Printer, op: Operation, depth: int) -> str | None:
    """`stablehlo.constant {attrs} dense<...> : type`; when the value's type is not the
    result's (quantized results), stablehlo-opt's fallback: the name, then the rest of the
    generic form (`stablehlo.constant() <{value = ...}> : () -> type`)."""
    if op.operands or len(op.results) != 1 or op.regions:
        return None
    value = op.attr("value")
    if (
        _fits(op, ("value",))
        and isinstance(value, (DenseElementsAttr, DenseResourceAttr))
        and value.type == op.results[0].type
    ):
        return f"{op.name}{p.attr_dict(op, ('value',))} {p.attr(value)}"
    if op.name == "arith.constant" and _fits(op, ("value",)) and (
        isinstance(value, (IntegerAttr, FloatAttr))
        and value.type is not None
        and value.type == op.results[0].type
        or isinstance(value, BoolAttr) and op.results[0].type == IntegerType(1)
    ):
        # arith's `attr-dict $value`: a scalar value carries the result type
        return f"{op.name}{p.attr_dict(op, ('value',))} {p.attr(value)}"
    if op.name != "stablehlo.constant":
        return None
    return p.generic(op, depth, name=op.name)


@_pretty("stablehlo.iota")
def _p_iota(p: _Printer, op: Operation, depth: int) -> str | None:
    dim = _typed_int(op.attr("iota_dimension"), 64)
    if dim is None or not _fits(op, ("iota_dimension",), n_operands=0, n_results=1):
        return None
    attrs = p.attr_dict(op, ("iota_dimension",))
    return f"{op.name} dim = {dim}{attrs} : {p.type(op.results[0].type)}"


@_pretty("stablehlo.create_token", "stablehlo.replica_id", "stablehlo.partition_id")
def _p_nullary(p: _Printer, op: Operation, depth: int) -> str | None:
    if not _fits(op, n_operands=0, n_results=1):
        return None
    return f"{op.name}{p.attr_dict(op)} : {p.type(op.results[0].type)}"


@_pretty("stablehlo.after_all")
def _p_after_all(p: _Printer, op: Operation, depth: int) -> str | None:
    """custom<VariadicSameOperandsAndResultType>."""
    if not _fits(op, n_results=1):
        return None
    operands = " " + _operands(op) if op.operands else ""
    return f"{op.name}{operands}{p.attr_dict(op)} : {p.same_type(op)}"


@_pretty("stablehlo.tuple")
def _p_tuple(p: _Printer, op: Operation, depth: int) -> str | None:
    """custom<TupleOpType>: the result tuple type only."""
    if not _fits(op, n_results=1):
        return None
    res = op.results[0].type
    if not isinstance(res, TupleType) or tuple(res.types) != op.operand_types:
        return None
    operands = " " + _operands(op) if op.operands else ""
    return f"{op.name}{operands}{p.attr_dict(op)} : {p.type(res)}"


@_pretty("stablehlo.get_tuple_element")
def _p_get_tuple_element(p: _Printer, op: Operation, depth: int) -> str | None:
    index = _typed_int(op.attr("index"), 32)
    if index is None or not _fits(op, ("index",), n_operands=1, n_results=1):
        return None
    attrs = p.attr_dict(op, ("index",))
    return f"{op.name} {op.operands[0].name}[{index}]{attrs} : {p.functional(op)}"


@_pretty("stablehlo.compare")
def _p_compare(p: _Printer, op: Operation, depth: int) -> str | None:
    """`$comparison_direction, $lhs, $rhs (, $compare_type)?`: the enum attributes print
    their own leading space, hence stablehlo-opt's double spaces."""
    direction = _enum(op.attr("comparison_direction"), "comparison_direction")
    ctype_attr = op.attr("compare_type")
    ctype = _enum(ctype_attr, "comparison_type")
    custom = ("comparison_direction", "compare_type")
    if direction is None or (ctype_attr is not None and ctype is None):
        return None
    if not _fits(op, custom, n_operands=2, n_results=1):
        return None
    s = f"{op.name}  {direction}, {_operands(op)}"
    if ctype is not None:
        s += f",  {ctype}"
    return f"{s}{p.attr_dict(op, custom)} : {p.functional(op)}"


@_pretty("stablehlo.slice")
def _p_slice(p: _Printer, op: Operation, depth: int) -> str | None:
    """custom<SliceRanges>: `[start:limit(:stride)?, ...]`, the stride left out when 1."""
    custom = ("start_indices", "limit_indices", "strides")
    start, limit, strides = (_i64_array(op.attr(n)) for n in custom)
    if start is None or limit is None or strides is None:
        return None
    if not (len(start) == len(limit) == len(strides)):
        return None
    if not _fits(op, custom, n_operands=1, n_results=1):
        return None
    ranges = ", ".join(
        f"{a}:{b}" + (f":{c}" if c != 1 else "") for a, b, c in zip(start, limit, strides)
    )
    attrs = p.attr_dict(op, custom)
    return f"{op.name} {op.operands[0].name} [{ranges}]{attrs} : {p.functional(op)}"


def _keyword_form(n_operands: int | None, items: Sequence[tuple[str, str, str]],
                  types: str = "functional", optional: Sequence[str] = ()) -> PrettyFn:
    """`$operands, key = value, ... attr-dict : <types>`; ``items`` are (keyword,
    attribute name, kind) with kind "i64array", "i64" (``N : i64`` printed as N), "i32",
    "enum:<kind>" (printed with stablehlo-opt's extra space), "string" or "bool".
    Attributes named in ``optional`` may be absent."""
    custom = tuple(name for _, name, _ in items)

    def fn(p: _Printer, op: Operation, depth: int) -> str | None:
        if n_operands is not None and len(op.operands) != n_operands:
            return None
        if not _fits(op, custom, n_results=1):
            return None
        parts = [_operands(op)] if op.operands else []
        for keyword, name, kind in items:
            a = op.attr(name)
            if a is None:
                if name in optional:
                    continue
                return None
            text = _item_text(a, kind)
            if text is None:
                return None
            parts.append(f"{keyword} = {text}")
        sig = p.same_type(op) if types == "same" else p.functional(op)
        return f"{op.name} {', '.join(parts)}{p.attr_dict(op, custom)} : {sig}"

    return fn


def _item_text(a: Attribute, kind: str) -> str | None:
    if kind == "i64array":
        v = _i64_array(a)
        return None if v is None else _ints(v)
    if kind in ("i64", "i32"):
        v = _typed_int(a, int(kind[1:]))
        return None if v is None else str(v)
    if kind.startswith("enum:"):
        v = _enum(a, kind[5:])
        return None if v is None else " " + v
    if kind == "string":
        return escape_string(a.value) if isinstance(a, StringAttr) else None
    if kind == "bool":
        return ("true" if a.value else "false") if isinstance(a, BoolAttr) else None
    raise AssertionError(kind)


_PRETTY.update({
    "stablehlo.dynamic_iota": _keyword_form(1, [("dim", "iota_dimension", "i64")]),
    "stablehlo.broadcast_in_dim": _keyword_form(1, [("dims", "broadcast_dimensions", "i64array")]),
    "stablehlo.broadcast": _keyword_form(1, [("sizes", "broadcast_sizes", "i64array")]),
    "stablehlo.transpose": _keyword_form(1, [("dims", "permutation", "i64array")]),
    "stablehlo.reverse": _keyword_form(1, [("dims", "dimensions", "i64array")], "same"),
    "stablehlo.dynamic_broadcast_in_dim": _keyword_form(
        2, [("dims", "broadcast_dimensions", "i64array")]),
    "stablehlo.pad": _keyword_form(2, [("low", "edge_padding_low", "i64array"),
                                       ("high", "edge_padding_high", "i64array"),
                                       ("interior", "interior_padding", "i64array")]),
    "stablehlo.get_dimension_size": _keyword_form(1, [("dim", "dimension", "i64")]),
    "stablehlo.set_dimension_size": _keyword_form(2, [("dim", "dimension", "i64")]),
    "stablehlo.einsum": _keyword_form(2, [("config", "einsum_config", "string")]),
    "stablehlo.unary_einsum": _keyword_form(1, [("config", "einsum_config", "string")]),
    "stablehlo.fft": _keyword_form(1, [("type", "fft_type", "enum:fft_type"),
                                       ("length", "fft_length", "i64array")]),
    "stablehlo.rng": _keyword_form(3, [("distribution", "rng_distribution",
                                        "enum:rng_distribution")]),
    "stablehlo.cholesky": _keyword_form(1, [("lower", "lower", "bool")], "same",
                                        optional=("lower",)),
})


@_pretty("stablehlo.dynamic_slice")
def _p_dynamic_slice(p: _Printer, op: Operation, depth: int) -> str | None:
    """`$operand, $start_indices..., sizes = [..]` (at least one start index)."""
    if len(op.operands) < 2:
        return None
    return _DYNAMIC_SLICE(p, op, depth)


_DYNAMIC_SLICE = _keyword_form(None, [("sizes", "slice_sizes", "i64array")])


@_pretty("stablehlo.concatenate")
def _p_concatenate(p: _Printer, op: Operation, depth: int) -> str | None:
    if not op.operands:
        return None
    return _CONCATENATE(p, op, depth)


_CONCATENATE = _keyword_form(None, [("dim", "dimension", "i64")])


@_pretty("stablehlo.rng_bit_generator")
def _p_rng_bit_generator(p: _Printer, op: Operation, depth: int) -> str | None:
    algo = _enum(op.attr("rng_algorithm"), "rng_algorithm")
    if algo is None or not _fits(op, ("rng_algorithm",), n_operands=1, n_results=2):
        return None
    attrs = p.attr_dict(op, ("rng_algorithm",))
    return f"{op.name} {op.operands[0].name}, algorithm =  {algo}{attrs} : {p.functional(op)}"


@_pretty("stablehlo.reduce_precision")
def _p_reduce_precision(p: _Printer, op: Operation, depth: int) -> str | None:
    """custom<ExponentMantissa>: `format = e8m10`."""
    custom = ("exponent_bits", "mantissa_bits")
    e = _typed_int(op.attr("exponent_bits"), 32)
    m = _typed_int(op.attr("mantissa_bits"), 32)
    if e is None or m is None or e < 0 or m < 0:
        return None
    if not _fits(op, custom, n_operands=1, n_results=1):
        return None
    attrs = p.attr_dict(op, custom)
    return f"{op.name} {op.operands[0].name}, format = e{e}m{m}{attrs} : {p.same_type(op)}"


def _precision_list(a: Attribute | None) -> list[str] | None:
    if not isinstance(a, ArrayAttr):
        return None
    out = []
    for e in a.elements:
        v = _enum(e, "precision")
        if v is None:
            return None
        out.append(v)
    return out


@_pretty("stablehlo.dot")
def _p_dot(p: _Printer, op: Operation, depth: int) -> str | None:
    """custom<PrecisionConfig>: `, precision = [DEFAULT, ...]` when present."""
    prec_attr = op.attr("precision_config")
    prec = _precision_list(prec_attr)
    if prec_attr is not None and prec is None:
        return None
    if not _fits(op, ("precision_config",), n_operands=2, n_results=1):
        return None
    s = f"{op.name} {_operands(op)}"
    if prec is not None:
        s += f", precision = [{', '.join(prec)}]"
    return f"{s}{p.attr_dict(op, ('precision_config',))} : {p.functional(op)}"


@_pretty("stablehlo.dot_general")
def _p_dot_general(p: _Printer, op: Operation, depth: int) -> str | None:
    """custom<DotDimensionNumbers> then custom<PrecisionConfigAndAlgorithm>."""
    custom = ("dot_dimension_numbers", "precision_config", "algorithm")
    dn = op.attr("dot_dimension_numbers")
    prec_attr = op.attr("precision_config")
    prec = _precision_list(prec_attr)
    algo = op.attr("algorithm")
    if not isinstance(dn, DotDimensionNumbers) or (prec_attr is not None and prec is None):
        return None
    if algo is not None and not isinstance(algo, DotAlgorithm):
        return None
    if not _fits(op, custom, n_operands=2, n_results=1):
        return None
    s = f"{op.name} {_operands(op)}, "
    if dn.lhs_batching_dimensions or dn.rhs_batching_dimensions:
        s += (
            f"batching_dims = {_ints(dn.lhs_batching_dimensions)} x "
            f"{_ints(dn.rhs_batching_dimensions)}, "
        )
    s += (
        f"contracting_dims = {_ints(dn.lhs_contracting_dimensions)} x "
        f"{_ints(dn.rhs_contracting_dimensions)}"
    )
    if prec is not None:
        s += f", precision = [{', '.join(prec)}]"
    if algo is not None:
        s += ", algorithm = " + p._dot_algorithm_body(algo)
    return f"{s}{p.attr_dict(op, custom)} : {p.functional(op)}"


@_pretty("stablehlo.optimization_barrier")
def _p_optimization_barrier(p: _Printer, op: Operation, depth: int) -> str | None:
    """`attr-dict ($operand^ : custom<PairwiseOpType>):(`(` `)`)?`: the attribute
    dictionary first, then `%a, %b : t1, t2`, or `()` without operands (no space before
    it, as MLIR's generated printer writes a `(` after the dictionary)."""
    if not _fits(op) or op.operand_types != op.result_types:
        return None
    attrs = p.attr_dict(op)
    if not op.operands:
        return f"{op.name}{attrs}()"
    types = ", ".join(p.type(t) for t in op.operand_types)
    return f"{op.name}{attrs} {_operands(op)} : {types}"


@_pretty("stablehlo.return", "func.return")
def _p_return(p: _Printer, op: Operation, depth: int) -> str | None:
    """`$results attr-dict (: types)?`."""
    if not _fits(op, n_results=0):
        return None
    s = op.name
    if op.operands:
        s += " " + _operands(op)
    s += p.attr_dict(op)
    if op.operands:
        s += " : " + ", ".join(p.type(t) for t in op.operand_types)
    return s


@_pretty("func.call")
def _p_call(p: _Printer, op: Operation, depth: int) -> str | None:
    callee = op.attr("callee")
    if not isinstance(callee, SymbolRefAttr) or not _fits(op, ("callee",)):
        return None
    attrs = p.attr_dict(op, ("callee",))
    return f"{op.name} {p.attr(callee)}({_operands(op)}){attrs} : {p.functional(op)}"


@_pretty("stablehlo.custom_call")
def _p_custom_call(p: _Printer, op: Operation, depth: int) -> str | None:
    """custom<CustomCallTarget>: `@target(%a, ...)`."""
    target = op.attr("call_target_name")
    if not isinstance(target, StringAttr) or not _fits(op, ("call_target_name",)):
        return None
    attrs = p.attr_dict(op, ("call_target_name",))
    return f"{op.name} {_symbol(target.value)}({_operands(op)}){attrs} : {p.functional(op)}"


@_pretty("stablehlo.composite")
def _p_composite(p: _Printer, op: Operation, depth: int) -> str | None:
    """`"name" $inputs attr-dict : functional-type`."""
    name = op.attr("name")
    if not isinstance(name, StringAttr) or not _fits(op, ("name",)):
        return None
    operands = " " + _operands(op) if op.operands else ""
    attrs = p.attr_dict(op, ("name",))
    return f"{op.name} {escape_string(name.value)}{operands}{attrs} : {p.functional(op)}"


_WINDOW = (("window_strides", "stride"), ("padding", "pad"), ("lhs_dilation", "lhs_dilate"),
           ("rhs_dilation", "rhs_dilate"), ("window_reversal", "reverse"))


def _window_fields(op: Operation) -> list[str] | None:
    """custom<WindowAttributes>: `stride = [..], pad = [[l, h], ..], lhs_dilate = [..],
    rhs_dilate = [..], reverse = [true, ..]`, each only when present."""
    out = []
    for attr_name, key in _WINDOW:
        a = op.attr(attr_name)
        if a is None:
            continue
        if key == "pad":
            if not (
                isinstance(a, DenseElementsAttr)
                and not a.hex
                and a.array.ndim == 2
                and a.type == TensorType((a.array.shape[0], 2), IntegerType(64))
            ):
                return None
            pairs = ", ".join(f"[{int(x)}, {int(y)}]" for x, y in a.array.tolist())
            out.append(f"pad = [{pairs}]")
        elif key == "reverse":
            if not (
                isinstance(a, DenseArrayAttr)
                and isinstance(a.element_type, IntegerType)
                and a.element_type.is_bool
            ):
                return None
            out.append("reverse = [" + ", ".join("true" if v else "false" for v in a.values) + "]")
        else:
            vals = _i64_array(a)
            if vals is None:
                return None
            out.append(f"{key} = {_ints(vals)}")
    return out


@_pretty("stablehlo.convolution")
def _p_convolution(p: _Printer, op: Operation, depth: int) -> str | None:
    """`(%lhs, %rhs) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {...}`."""
    dn = op.attr("dimension_numbers")
    if not isinstance(dn, ConvDimensionNumbers) or dn.raw:
        return None
    dims = conv_dimensions(dn)
    window = _window_fields(op)
    if dims is None or window is None:
        return None
    custom = ("dimension_numbers", *(n for n, _ in _WINDOW))
    if not _fits(op, custom, n_operands=2, n_results=1):
        return None
    attrs = p.attr_dict(op, custom)
    return (
        f"{op.name}({_operands(op)}) dim_numbers = {dims}, window = "
        f"{{{', '.join(window)}}}{attrs} : {p.functional(op)}"
    )


@_pretty("stablehlo.while")
def _p_while(p: _Printer, op: Operation, depth: int) -> str | None:
    """`stablehlo.while(%iterArg = %init, ...) : types attributes {...}
    cond {...} do {...}`: both regions share the iteration arguments' names."""
    if not _fits(op, n_regions=2):
        return None
    cond, body = op.regions
    if len(cond.blocks) != 1 or len(body.blocks) != 1:
        return None
    cb, bb = cond.blocks[0], body.blocks[0]
    n = len(op.operands)
    if len(cb.arguments) != n or len(bb.arguments) != n or len(op.results) != n:
        return None
    if cb.label or bb.label or cb.arg_locations or bb.arg_locations or n == 0:
        return None
    types = op.operand_types
    if (
        tuple(a.type for a in cb.arguments) != types
        or tuple(a.type for a in bb.arguments) != types
        or op.result_types != types
        or [a.name for a in cb.arguments] != [a.name for a in bb.arguments]
        or any("#" in a.name for a in bb.arguments)
    ):
        return None
    pairs = ", ".join(f"{a.name} = {v.name}" for a, v in zip(bb.arguments, op.operands))
    s = f"{op.name}({pairs}) : " + ", ".join(p.type(t) for t in types)
    if op.attributes:
        s += " attributes " + p.dict(op.attributes)
    ind = "  " * depth
    return (
        f"{s}\n{ind} cond {p.region(cond, depth, entry_args=False)} do "
        f"{p.region(body, depth, entry_args=False)}"
    )


def _reduce_applies(op: Operation) -> str | None:
    """The inner op's name when ``reduce`` may print as `applies <op>`.

    stablehlo-opt uses that form when the body is one commutative binary op of the same
    dialect on the block arguments (AssemblyFormat.cpp, isReduceEligibleForCompactPrint).
    The form drops the body's value names, and hlorun's parser rebuilds the body with
    the names ``%reduce.lhs``, ``%reduce.rhs`` and ``%reduce.result``: so the printer
    uses it only for a body that is exactly that rebuilt body (a body that came from
    this form); any other body is printed in full with the `reducer` form."""
    if len(op.operands) != 2:
        return None
    init = op.operands[1].type
    block = op.regions[0].blocks[0] if len(op.regions[0].blocks) == 1 else None
    if block is None or len(block.operations) != 2 or not isinstance(init, TensorType):
        return None
    inner = block.operations[0]
    if not _BARE_ID.match(inner.name):
        return None
    st = TensorType((), init.element_type)
    a0, a1, r = Value("%reduce.lhs", st), Value("%reduce.rhs", st), Value("%reduce.result", st)
    expected = Block(
        (a0, a1),
        (
            Operation(inner.name, (a0, a1), (r,)),
            Operation("stablehlo.return", (r,)),
        ),
    )
    return inner.name if block == expected else None


@_pretty("stablehlo.reduce")
def _p_reduce(p: _Printer, op: Operation, depth: int) -> str | None:
    """`stablehlo.reduce(%x init: %y) applies stablehlo.add across dimensions = [1] : ...`
    or `... across dimensions = [1] : ...` then ` reducer(%a: t, %b: t) {...}`."""
    dims = _i64_array(op.attr("dimensions"))
    n = len(op.operands)
    if dims is None or n == 0 or n % 2 or not _fits(op, ("dimensions",), n_regions=1):
        return None
    body = op.regions[0]
    if len(body.blocks) != 1:
        return None
    block = body.blocks[0]
    half = n // 2
    if len(block.arguments) != n or block.label is not None or block.arg_locations:
        return None
    if any("#" in a.name for a in block.arguments):
        return None
    pairs = ", ".join(
        f"({op.operands[i].name} init: {op.operands[i + half].name})" for i in range(half)
    )
    attrs = p.attr_dict(op, ("dimensions",))
    head = f"{op.name}{pairs}"
    sig = p.functional(op)
    applies = _reduce_applies(op)
    if applies is not None:
        return f"{head} applies {applies} across dimensions = {_ints(dims)}{attrs} : {sig}"
    reducer = "".join(f"({p.block_args(block, (i, i + half))}) " for i in range(half))
    ind = "  " * depth
    return (
        f"{head} across dimensions = {_ints(dims)}{attrs} : {sig}\n"
        f"{ind} reducer{reducer} {p.region(body, depth, entry_args=False)}"
    )


# ---- the check and interpreter test dialects (docs/test-dialects.md) ---------------------


def _p_test_dialect(p: _Printer, op: Operation, depth: int) -> str | None:
    """`check.expect_eq_const %a, dense<...> : tensor<...>`, `check.expect_almost_eq %a, %b,
    tolerance = 1.000000e-03 : f64 : tensor<...>`, `interpreter.probe %x, probe_id = "p" :
    tensor<...>` ...: operands, the `value` attribute, `key = attribute` items for the other
    properties (written in full, with their types), the attribute dictionary, then the
    operand and result types (none when the value's type gives them)."""
    if op.regions:
        return None
    custom = [(k, v) for k, v in op.attributes if k in op.property_names]
    for k, v in custom:
        if not _KEYWORD.match(k) or (isinstance(v, (IntegerAttr, FloatAttr)) and v.type is None):
            return None
    value = op.attr("value") if "value" in op.property_names else None
    parts = [v.name for v in op.operands]
    if value is not None:
        parts.append(p.attr(value))
    parts += [f"{k} = {p.attr(v)}" for k, v in custom if k != "value"]
    s = op.name + (" " + ", ".join(parts) if parts else "")
    s += p.attr_dict(op, op.property_names)
    ins, outs = op.operand_types, op.result_types
    everything = (*ins, *outs)
    if value is not None:
        vt = getattr(value, "type", None)
        if all(t == vt for t in everything):
            return s
    elif not everything:
        return s
    if everything and all(t == everything[0] for t in everything):
        return f"{s} : {p.type(everything[0])}"
    if not outs or (outs == ins and op.operands):
        return f"{s} : " + ", ".join(p.type(t) for t in ins)
    return f"{s} : {p.functional(op)}"


for _n in ("check.expect_eq", "check.expect_eq_const", "check.expect_almost_eq",
           "check.expect_almost_eq_const", "check.expect_close", "check.expect_serialized_eq",
           "interpreter.probe", "interpreter.print"):
    _PRETTY[_n] = _p_test_dialect


# ---- other dialects: scf, tensor, vhlo ----------------------------------------------------


@_pretty("scf.for")
def _p_scf_for(p: _Printer, op: Operation, depth: int) -> str | None:
    """`scf.for [unsigned] %iv = %lb to %ub step %s [iter_args(%a = %init) -> (types)]
    [: type] {body} {attrs}` (SCF.cpp, ForOp::print): the body's terminator is left out
    when there are no iteration arguments (the parser puts it back)."""
    if not _fits(op, n_regions=1) or len(op.operands) < 3 or len(op.regions[0].blocks) != 1:
        return None
    block = op.regions[0].blocks[0]
    n_iter = len(op.operands) - 3
    if len(block.arguments) != n_iter + 1 or block.arg_locations:
        return None
    iv, *iters = block.arguments
    types = op.result_types
    if (
        len(types) != n_iter
        or op.operand_types != (iv.type,) * 3 + types
        or tuple(a.type for a in iters) != types
        or any("#" in a.name for a in block.arguments)
    ):
        return None
    ops = block.operations
    if not ops or ops[-1].name != "scf.yield":
        return None
    body = op.regions[0]
    if not n_iter:
        if ops[-1] != Operation("scf.yield") or (len(ops) > 1 and ops[-2].name == "scf.yield"):
            return None
        body = Region((Block(block.arguments, ops[:-1]),))
    unsigned = op.attr("unsignedCmp")
    if unsigned is not None and not isinstance(unsigned, UnitAttr):
        return None
    lb, ub, step = op.operands[:3]
    s = op.name + (" unsigned" if unsigned is not None else "")
    s += f" {iv.name} = {lb.name} to {ub.name} step {step.name}"
    if n_iter:
        pairs = ", ".join(f"{a.name} = {v.name}" for a, v in zip(iters, op.operands[3:]))
        s += f" iter_args({pairs}) -> (" + ", ".join(p.type(t) for t in types) + ")"
    if not isinstance(iv.type, IndexType):
        s += " : " + p.type(iv.type)
    s += " " + p.region(body, depth, entry_args=False)
    return s + p.attr_dict(op, ("unsignedCmp",))


@_pretty("scf.yield")
def _p_scf_yield(p: _Printer, op: Operation, depth: int) -> str | None:
    """`scf.yield {attrs} %a, %b : t1, t2` (SCFOps.td: `attr-dict ($results^ `:`
    type($results))?`)."""
    if not _fits(op, n_results=0):
        return None
    s = op.name + p.attr_dict(op)
    if op.operands:
        s += f" {_operands(op)} : " + ", ".join(p.type(t) for t in op.operand_types)
    return s


@_pretty("tensor.insert")
def _p_tensor_insert(p: _Printer, op: Operation, depth: int) -> str | None:
    """`tensor.insert %scalar into %dest[%i, ...] {attrs} : type` (TensorOps.td)."""
    if not _fits(op, n_results=1) or len(op.operands) < 2:
        return None
    scalar, dest, *indices = op.operands
    t = dest.type
    if (
        not isinstance(t, TensorType)
        or op.results[0].type != t
        or scalar.type != t.element_type
        or not all(isinstance(v.type, IndexType) for v in indices)
    ):
        return None
    return (f"{op.name} {scalar.name} into {dest.name}[{_names(indices)}]{p.attr_dict(op)}"
            f" : {p.type(t)}")


@_pretty("vhlo.func_v1")
def _p_vhlo_func(p: _Printer, op: Operation, depth: int) -> str | None:
    """`vhlo.func_v1 @name(%arg0: t0, ...) -> (r0, ...) {body} {attrs}` (VhloOps.cpp,
    printFunctionBody, then the attribute dictionary)."""
    name, ftype = op.attr("sym_name"), op.attr("function_type")
    if not (
        isinstance(name, StringAttr)
        and isinstance(ftype, TypeAttr)
        and isinstance(ftype.type, FunctionType)
        and _fits(op, n_operands=0, n_results=0, n_regions=1)
    ):
        return None
    region = op.regions[0]
    ins = ftype.type.inputs
    args = ""
    if region.blocks:
        entry = region.blocks[0]
        if tuple(a.type for a in entry.arguments) != ins or any(
                "#" in a.name for a in entry.arguments):
            return None
        args = p.block_args(entry)
    elif ins:
        return None
    outs = ", ".join(p.type(t) for t in ftype.type.results)
    body = p.region(region, depth, entry_args=False, empty_entry_label=not ins)
    attrs = p.attr_dict(op, ("sym_name", "function_type"))
    return f"{op.name} @{_keyword_or_string(name.value)}({args}) -> ({outs}) {body}{attrs}"


# --------------------------------------------------------------------------------------
# Public API
# --------------------------------------------------------------------------------------


def print_module(module: Module, *, hex_above: int | None = None) -> str:
    """The MLIR text of ``module``.

    A ``dense<...>`` constant is written as a ``"0x..."`` blob when its ``hex`` flag says
    the text had it so.  ``hex_above=N`` also writes every non-splat constant of more than
    N elements that way, as stablehlo-opt does with N = 100 (MLIR's default for
    ``--mlir-print-elementsattrs-with-hex-if-larger``); the parsed-back attribute then
    has ``hex=True``, so that module no longer compares equal to the original.
    """
    return _Printer(hex_above).module(module)


def print_operation(op: Operation, depth: int = 0) -> str:
    """The MLIR text of one operation (and its regions), indented ``depth`` levels."""
    return _Printer().operation(op, depth)


def print_type(t: Type) -> str:
    return _Printer().type(t)


def print_attribute(a: Attribute) -> str:
    return _Printer().attr(a)
