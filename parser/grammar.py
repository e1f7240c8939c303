"""MLIR text -> hlorun IR.

The grammar is MLIR's (mlir.llvm.org/docs/LangRef): a module of operations, each in the
generic form ``"dialect.op"(%a) <{props}> ({regions}) {attrs} : (types) -> types`` or in
an op's custom (pretty) form; regions of blocks; types; attributes.  Terminals are
pyparsing ``Regex`` tokens (parser/lexer.py), the structure is parsed by recursive descent
over them, and pretty forms by a per-op table (parser/pretty_ops.py) that builds exactly
the Operation the generic form would give.

Every failure is a ``ParseError`` carrying ``file:line:col``.
"""

from __future__ import annotations

import dataclasses
import functools
import re

import numpy as np
import pyparsing as pp

from . import lexer as lx
from .attributes import (
    LiteralError,
    decode_dense,
    decode_hex_blob,
    float_attr_value,
    wrap_int,
)
from .errors import HloError, ParseError
from .ir import (
    FLOAT_TYPE_NAMES,
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
)

MAX_DEPTH = 200  # nesting of regions / attributes / types

I64 = IntegerType(64)

# ---- builtin type keywords -------------------------------------------------------------

_INT_TYPE = re.compile(r"(si|ui|i)([0-9]+)$")
_FLOAT_NAMES = frozenset(FLOAT_TYPE_NAMES)


@functools.lru_cache(maxsize=512)
def builtin_type(word: str) -> Type | None:
    """The builtin scalar type named ``word`` (``f32``, ``si8``, ``index``...), or None."""
    if word in _FLOAT_NAMES:
        return FloatType(word)
    m = _INT_TYPE.match(word)
    if m:
        width = int(m.group(2))
        if not 1 <= width <= 64:
            return None
        sign = {"i": "signless", "si": "signed", "ui": "unsigned"}[m.group(1)]
        return IntegerType(width, sign)
    if word == "index":
        return IndexType()
    if word == "none":
        return NoneType()
    return None


@functools.lru_cache(maxsize=4096)
def _simple_tensor(dims: str, elem: str) -> TensorType | None:
    et = builtin_type(elem)
    if et is None:
        return None
    shape = tuple(None if d == "?" else int(d) for d in dims.split("x")[:-1])
    return TensorType(shape, et)


# ---- quant.uniform, as a pyparsing grammar (cold path; cached) ---------------------------

def _build_quant_grammar() -> pp.ParserElement:
    integer = pp.Regex(r"[-+]?[0-9]+").set_parse_action(lambda t: int(t[0]))
    real = pp.Regex(r"[-+]?(?:[0-9]+\.?[0-9]*(?:[eE][-+]?[0-9]+)?|inf|nan)").set_parse_action(
        lambda t: float(t[0]))
    storage = pp.Regex(r"(?:si|ui|i|u)[0-9]+")("storage")
    srange = pp.Suppress("<") + integer("smin") + pp.Suppress(":") + integer("smax") + pp.Suppress(">")
    expressed = pp.Regex(r"[A-Za-z][A-Za-z0-9]*")("expressed")
    scale_zp = pp.Group(real("scale") + pp.Optional(pp.Suppress(":") + integer("zp")))
    per_axis = pp.Suppress("{") + pp.Group(pp.DelimitedList(scale_zp))("axis_params") + pp.Suppress("}")
    return (pp.Suppress("<") + storage + pp.Optional(srange) + pp.Suppress(":") + expressed
            + pp.Optional(pp.Suppress(":") + integer("axis")) + pp.Suppress(",")
            + (per_axis | scale_zp("tensor_params")) + pp.Suppress(">") + pp.StringEnd())


_QUANT_GRAMMAR = _build_quant_grammar()


@functools.lru_cache(maxsize=1024)
def parse_quant_uniform(body: str) -> QuantizedType:
    """``<i8<-127:127>:f32:1, {0.1:-30, 0.5:-20}>`` (the text after ``!quant.uniform``)."""
    r = _QUANT_GRAMMAR.parse_string(body, parse_all=True)
    st = r["storage"]
    storage = builtin_type("ui" + st[1:] if st.startswith("u") and not st.startswith("ui") else st)
    expressed = builtin_type(r["expressed"])
    if not isinstance(storage, IntegerType) or expressed is None:
        raise ValueError("bad storage or expressed type in !quant.uniform")
    params = list(r["axis_params"]) if "axis_params" in r else [r["tensor_params"]]
    scales = tuple(float(p["scale"]) for p in params)
    zps = tuple(int(p["zp"]) if "zp" in p else 0 for p in params)
    axis = int(r["axis"]) if "axis" in r else None
    if axis is None and "axis_params" in r:
        raise ValueError("per-axis parameters need a quantized dimension")
    return QuantizedType(storage, expressed, scales, zps, axis,
                         int(r["smin"]) if "smin" in r else None,
                         int(r["smax"]) if "smax" in r else None)


# ---- convolution dimension numbers: `[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]` ----------

def _build_conv_grammar() -> pp.ParserElement:
    item = pp.Regex(r"[0-9]+|[bfio]")
    dims = pp.Group(pp.Suppress("[") + pp.Optional(pp.DelimitedList(item)) + pp.Suppress("]"))
    return dims("input") + pp.Suppress("x") + dims("kernel") + pp.Suppress("->") + dims("output") + pp.StringEnd()


_CONV_GRAMMAR = _build_conv_grammar()
CONV_DIMS_RE = re.compile(r"\[[^\]\[]*\]\s*x\s*\[[^\]\[]*\]\s*->\s*\[[^\]\[]*\]")


def _conv_part(items: list[str], letters: str) -> tuple[int, int, tuple[int, ...]]:
    pos: dict[str, int] = {}
    spatial: dict[int, int] = {}
    for i, it in enumerate(items):
        if it.isdigit():
            k = int(it)
            if k in spatial:
                raise ValueError(f"spatial dimension {k} repeated")
            spatial[k] = i
        else:
            if it not in letters or it in pos:
                raise ValueError(f"unexpected or repeated dimension '{it}'")
            pos[it] = i
    if set(pos) != set(letters):
        raise ValueError(f"dimensions '{letters[0]}' and '{letters[1]}' are required")
    if sorted(spatial) != list(range(len(spatial))):
        raise ValueError("spatial dimensions must be numbered 0..N-1")
    return pos[letters[0]], pos[letters[1]], tuple(spatial[k] for k in range(len(spatial)))


@functools.lru_cache(maxsize=256)
def parse_conv_dims(text: str) -> ConvDimensionNumbers:
    r = _CONV_GRAMMAR.parse_string(text, parse_all=True)
    ib, if_, isp = _conv_part(list(r["input"]), "bf")
    ki, ko, ksp = _conv_part(list(r["kernel"]), "io")
    ob, of, osp = _conv_part(list(r["output"]), "bf")
    if not len(isp) == len(ksp) == len(osp):
        raise ValueError("input, kernel and output need the same number of spatial dimensions")
    return ConvDimensionNumbers(ib, if_, isp, ki, ko, ksp, ob, of, osp, raw=False)


# ---- the parser -------------------------------------------------------------------------

_ENUM_BODY = re.compile(r"\s*([A-Za-z_][A-Za-z0-9_]*)\s+([A-Za-z_][A-Za-z0-9_]*)\s*>")
_LONG_ENUM_BODY = re.compile(r"\s*([A-Za-z_][A-Za-z0-9_]*)\s*>")
_NUMBER = re.compile(
    r"[-+]?(?:0x[0-9A-Fa-f]+(?![0-9A-Za-z_.])|[0-9]+\.[0-9]*(?:[eE][-+]?[0-9]+)?|[0-9]+[eE][-+]?[0-9]+"
    r"|[0-9]+(?![0-9A-Za-z_.]))")
_DIMS = re.compile(r"((?:(?:[0-9]+|\?)x)*)")
_DENSE_END = re.compile(r"[^<>]*>")
_RESULT_NAME = re.compile(r"(%(?:[0-9]+|[A-Za-z_$.\-][A-Za-z0-9_$.\-]*))(?::([0-9]+))?")
_OP_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_$.\-]*")

_STABLEHLO_DIALECTS = ("stablehlo", "chlo")
_NO_PROPS: frozenset[str] = frozenset()
# Types of the StableHLO dialect (`!stablehlo.token`, `!stablehlo.future<...>`).
_STABLEHLO_TYPES = frozenset({"token", "future"})

# Fast path for the commonest line of all: `%r = stablehlo.add %a, %b : tensor<4xf32>`
# (an op whose custom form is `operands : type`, nothing else on the line).
_V = r"%(?:[0-9]+|[A-Za-z_$.\-][A-Za-z0-9_$.\-]*)"
_FAST_OP = re.compile(
    rf"({_V}) = (stablehlo\.[a-z_0-9]+) ({_V}(?:#[0-9]+)?(?:, {_V}(?:#[0-9]+)?)*) : "
    r"tensor<((?:(?:[0-9]+|\?)x)*)([a-z][A-Za-z0-9]*)>[ \t]*(?=\n|\r|//|$)")
_FAST_OP_NAMES = frozenset(
    "stablehlo." + n for n in (
        "abs add and atan2 cbrt ceil cosine count_leading_zeros divide exponential "
        "exponential_minus_one floor log log_plus_one logistic maximum minimum "
        "multiply negate not or popcnt power remainder round_nearest_afz round_nearest_even "
        "rsqrt shift_left shift_right_arithmetic shift_right_logical sign sine sqrt subtract "
        "tan tanh xor clamp").split())


class Parser:
    """Recursive-descent parser over one text; ``parse_module`` is the entry point."""

    def __init__(self, text: str, filename: str = "<string>", line_offset: int = 0):
        self.c = lx.Cursor(text, filename, line_offset)
        self.attr_aliases: dict[str, Attribute] = {}
        self.type_aliases: dict[str, Type] = {}
        self.alias_defs: list[tuple[str, Attribute | Type]] = []
        self.resources: list[tuple[str, str, str]] = []
        self.value_types: dict[str, Type] = {}
        self.values: dict[str, Value] = {}
        self.depth = 0
        # In a pretty op's `key = value` items, `: tensor<...>` after a value is the op's
        # signature, not the value's type.
        self.scalar_suffix_only = False

    # ---- helpers -----------------------------------------------------------------------
    def _value(self, name: str, t: Type) -> Value:
        """``Value(name, t)``, reusing an equal one already built (frozen, so sharing is
        safe; building dataclasses is most of the cost of an op-heavy text)."""
        v = self.values.get(name)
        if v is None or v.type is not t:
            v = self.values[name] = Value(name, t)
        return v

    def error(self, message: str, pos: int | None = None) -> ParseError:
        return self.c.error(message, pos)

    def enter(self) -> None:
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise self.error(f"nesting deeper than {MAX_DEPTH} levels")

    def leave(self) -> None:
        self.depth -= 1

    def integer(self, what: str = "integer") -> int:
        c = self.c
        m = c.match(lx.INTEGER_RE)
        if m is None:
            raise c.error(f"expected {what}, found {c.describe()}")
        return int(m.group(0), 0) if "x" in m.group(0) else int(m.group(0))

    def int_list(self, open_: str = "[", close: str = "]") -> tuple[int, ...]:
        c = self.c
        c.expect(open_)
        out: list[int] = []
        if c.accept(close):
            return ()
        while True:
            out.append(self.integer())
            if c.accept(close):
                return tuple(out)
            c.expect(",", f"or '{close}' in integer list")

    # ---- types -------------------------------------------------------------------------
    def parse_type(self) -> Type:
        c = self.c
        c.skip()
        text = c.text
        pos = c.pos
        m = lx.SIMPLE_TENSOR_RE.match(text, pos)
        if m:
            t = _simple_tensor(m.group(1), m.group(2))
            if t is not None:
                c.pos = m.end()
                return t
        ch = text[pos] if pos < c.n else ""
        if ch == "!":
            return self._dialect_type()
        if ch == "(":
            return self._function_type()
        m = lx.KEYWORD_RE.match(text, pos)
        if m is None:
            raise c.error(f"expected a type, found {c.describe()}")
        word = m.group(0)
        t = builtin_type(word)
        if t is not None:
            c.pos = m.end()
            return t
        if word in ("tensor", "complex", "tuple", "vector", "memref") and text.startswith(
                "<", m.end()):
            c.pos = m.end()
            self.enter()
            try:
                if word == "tensor":
                    return self._tensor_type(pos)
                if word == "complex":
                    c.expect("<")
                    inner = self.parse_type()
                    c.expect(">", "after complex element type")
                    return ComplexType(inner)
                if word == "tuple":
                    c.expect("<")
                    types: list[Type] = []
                    if not c.accept(">"):
                        while True:
                            types.append(self.parse_type())
                            if c.accept(">"):
                                break
                            c.expect(",", "or '>' in tuple type")
                    return TupleType(tuple(types))
                return OpaqueType(word + c.balanced("<", ">"))
            finally:
                self.leave()
        raise c.error(f"unknown type '{word}'", pos)

    def _tensor_type(self, start: int) -> TensorType:
        c = self.c
        c.expect("<")
        c.skip()
        shape: tuple | None
        if c.accept("*"):
            c.expect("x", "after '*' in unranked tensor type")
            shape = None
        else:
            m = _DIMS.match(c.text, c.pos)
            dims = m.group(1)
            c.pos = m.end()
            shape = tuple(None if d == "?" else int(d) for d in dims.split("x")[:-1])
        elem = self.parse_type()
        if isinstance(elem, (TensorType, FunctionType, TupleType)):
            raise c.error("invalid tensor element type", start)
        encoding = None
        if c.accept(","):
            encoding = self.parse_attribute()
        c.expect(">", "at the end of tensor type")
        return TensorType(shape, elem, encoding)

    def _dialect_type(self) -> Type:
        c = self.c
        start = c.pos
        m = c.expect_match(lx.BANG_ID_RE, "a type")
        name = m.group(0)
        if name == "!stablehlo.token":
            return TokenType()
        if name.startswith("!stablehlo.") and name[11:] not in _STABLEHLO_TYPES:
            # the StableHLO dialect's type parser knows only its own types
            raise c.error(f"unknown stablehlo type: {name[11:]}", start)
        if name == "!quant.uniform":
            body = c.balanced("<", ">")
            try:
                return parse_quant_uniform(body)
            except (pp.ParseBaseException, ValueError) as e:
                raise c.error(f"invalid !quant.uniform type: {e}", start) from None
        if "." not in name[1:]:
            if name in self.type_aliases:
                return self.type_aliases[name]
            raise c.error(f"undefined type alias '{name}'", start)
        if c.text.startswith("<", c.pos):
            return OpaqueType(name + c.balanced("<", ">"))
        return OpaqueType(name)

    def _type_list_parens(self) -> tuple[Type, ...]:
        c = self.c
        c.expect("(")
        if c.accept(")"):
            return ()
        out: list[Type] = []
        while True:
            out.append(self.parse_type())
            if c.accept(")"):
                return tuple(out)
            c.expect(",", "or ')' in type list")

    def _result_types(self) -> tuple[Type, ...]:
        """After ``->``: one type, or a parenthesized list (which may be a function type)."""
        c = self.c
        if c.peek() == "(":
            save = c.pos
            types = self._type_list_parens()
            if c.startswith("->"):  # `-> (a) -> b`: a function type result
                c.pos = save
                return (self._function_type(),)
            return types
        return (self.parse_type(),)

    def _function_type(self) -> FunctionType:
        self.enter()
        try:
            ins = self._type_list_parens()
            self.c.expect("->", "in function type")
            outs = self._result_types()
            return FunctionType(ins, outs)
        finally:
            self.leave()

    # ---- attributes --------------------------------------------------------------------
    def parse_attribute(self) -> Attribute:
        self.enter()
        try:
            return self._attribute()
        finally:
            self.leave()

    def _typed_suffix(self) -> Type | None:
        c = self.c
        save = c.pos
        if c.accept(":") and not c.startswith(":"):
            if self.scalar_suffix_only:
                c.skip()
                if not (c.text.startswith(("i", "si", "ui", "f", "bf", "tf", "index"), c.pos)
                        and builtin_type(c.keyword() or "") is not None):
                    c.pos = save
                    return None
                c.pos = save
                c.expect(":")
            return self.parse_type()
        c.pos = save
        return None

    def _attribute(self) -> Attribute:
        c = self.c
        c.skip()
        pos = c.pos
        text = c.text
        if pos >= c.n:
            raise c.error("expected an attribute, found end of input")
        ch = text[pos]
        if ch == '"':
            s = c.string()
            t = self._typed_suffix()
            if t is not None:
                return OpaqueAttr(text[pos:c.pos])
            return StringAttr(s)
        if ch == "[":
            c.pos += 1
            items: list[Attribute] = []
            if not c.accept("]"):
                while True:
                    items.append(self.parse_attribute())
                    if c.accept("]"):
                        break
                    c.expect(",", "or ']' in array attribute")
            return ArrayAttr(tuple(items))
        if ch == "{":
            return DictionaryAttr(self.parse_attr_dict())
        if ch == "@":
            return self._symbol_ref()
        if ch == "#":
            return self._hash_attribute()
        if ch in "-+0123456789":
            return self._number_attribute()
        if ch == "(" or ch == "!":
            return TypeAttr(self.parse_type())
        m = lx.KEYWORD_RE.match(text, pos)
        if m is None:
            raise c.error(f"expected an attribute, found {c.describe()}")
        word = m.group(0)
        after = m.end()
        if word in ("true", "false"):
            c.pos = after
            return BoolAttr(word == "true")
        if word == "unit":
            c.pos = after
            return UnitAttr()
        if word == "dense" and text.startswith("<", after):
            return self._dense(after)
        if word == "array" and text.startswith("<", after):
            c.pos = after
            return self._dense_array()
        if word == "dense_resource" and text.startswith("<", after):
            c.pos = after
            c.expect("<")
            handle = c.expect_match(re.compile(r"[A-Za-z0-9_.\-$]+"), "a resource handle").group(0)
            c.expect(">")
            c.expect(":", "and a type after dense_resource<...>")
            t = self.parse_type()
            if not isinstance(t, TensorType):
                raise c.error("dense_resource needs a tensor type")
            return DenseResourceAttr(t, handle)
        if word == "loc" and text.startswith("(", after):
            c.pos = after
            return self.parse_location_body()
        if word in ("nan", "inf"):
            return self._number_attribute()
        if word in ("affine_map", "affine_set", "strided", "sparse", "distinct",
                    "opaque") and after < c.n and text[after] in "<[":
            c.pos = after
            if text[after] == "[":
                body = c.balanced("[", "]")
                rest = c.balanced("<", ">") if c.text.startswith("<", c.pos) else ""
                return OpaqueAttr(word + body + rest)
            body = c.balanced("<", ">")
            t = self._typed_suffix()
            return OpaqueAttr(text[pos:c.pos] if t is not None else word + body)
        if builtin_type(word) is not None or word in ("tensor", "complex", "tuple", "vector",
                                                        "memref"):
            return TypeAttr(self.parse_type())
        raise c.error(f"unknown attribute '{word}'", pos)

    def parse_location_body(self) -> LocationAttr:
        """After ``loc``: ``(...)`` kept verbatim."""
        body = self.c.balanced("(", ")")
        return LocationAttr(body[1:-1].strip())

    def _symbol_ref(self) -> SymbolRefAttr:
        c = self.c
        names: list[str] = []
        while True:
            m = c.expect_match(lx.SYMBOL_RE, "a symbol name")
            names.append(_symbol_name(m.group(0), c))
            save = c.pos
            if c.text.startswith("::", c.pos) and c.text.startswith("@", c.pos + 2):
                c.pos += 2
                continue
            c.pos = save
            break
        return SymbolRefAttr(names[0], tuple(names[1:]))

    def _number_attribute(self) -> Attribute:
        c = self.c
        start = c.pos
        m = _NUMBER.match(c.text, c.pos)
        if m is None:
            m2 = re.compile(r"[-+]?(?:inf|nan)\b").match(c.text, c.pos)
            if m2 is None:
                raise c.error(f"expected a number, found {c.describe()}")
            m = m2
        c.pos = m.end()
        lit = m.group(0)
        t = self._typed_suffix()
        is_hex = lit.lstrip("+-").startswith("0x")
        is_float = not is_hex and any(ch in lit for ch in ".eEn")
        try:
            if isinstance(t, FloatType) or is_float:
                if t is not None and not isinstance(t, FloatType):
                    raise LiteralError(f"float literal for non-float type {t}")
                return FloatAttr(float_attr_value(lit, t), t)
            value = int(lit, 16) if is_hex else int(lit)
            if lit.startswith("-") and is_hex:
                value = -int(lit[1:], 16)
            if isinstance(t, IntegerType):
                if t.is_bool:
                    if value not in (0, 1):
                        raise LiteralError(f"integer value {value} does not fit in i1")
                    return IntegerAttr(value, t)
                value = wrap_int(value, t)
            elif t is not None and not isinstance(t, IndexType):
                raise LiteralError(f"integer literal for type {t}")
            return IntegerAttr(value, t)
        except (LiteralError, ValueError, OverflowError) as e:
            raise c.error(str(e), start) from None

    def _dense(self, after: int) -> Attribute:
        c = self.c
        start = c.pos
        text = c.text
        q = after + 1
        if text.startswith('"0x', q):
            # Hex blob fast path: find the closing quote with str.find (memchr) instead of
            # scanning with a regex, and decode the digits from a single slice.
            end = text.find('"', q + 3)
            if end > 0 and text.startswith(">", end + 1):
                c.pos = end + 2
                t = self._dense_type(start)
                try:
                    return DenseElementsAttr(t, decode_hex_blob(text[q + 3:end], t), True)
                except (LiteralError, ValueError, OverflowError, TypeError) as e:
                    raise c.error(f"invalid dense literal: {e}", start) from None
        m = _DENSE_END.match(text, q)
        if m is None:
            raise c.error("unterminated dense<...> literal", start)
        body = text[q : m.end() - 1]
        c.pos = m.end()
        t = self._dense_type(start)
        try:
            array, is_hex = decode_dense(body, t)
        except (LiteralError, ValueError, OverflowError, TypeError) as e:
            raise c.error(f"invalid dense literal: {e}", start) from None
        return DenseElementsAttr(t, array, is_hex)

    def _dense_type(self, start: int) -> TensorType:
        """``: tensor<...>`` after ``dense<...>``."""
        c = self.c
        if not c.accept(":"):
            raise c.error("expected ':' and a tensor type after dense<...>")
        t = self.parse_type()
        if not isinstance(t, TensorType):
            raise c.error("dense<...> needs a tensor type", start)
        return t

    def _dense_array(self) -> DenseArrayAttr:
        c = self.c
        start = c.pos
        c.expect("<")
        t = self.parse_type()
        values: list = []
        if c.accept(":"):
            while True:
                c.skip()
                if isinstance(t, IntegerType) and t.is_bool:
                    w = c.keyword()
                    if w not in ("true", "false"):
                        raise c.error("expected true or false in array<i1: ...>")
                    values.append(w == "true")
                elif isinstance(t, FloatType):
                    values.append(self._dense_array_float(t))
                else:
                    a = self._number_attribute()
                    if isinstance(a, IntegerAttr) and isinstance(t, IntegerType):
                        try:
                            values.append(wrap_int(a.value, t))
                        except LiteralError as e:
                            raise c.error(str(e), start) from None
                    else:
                        raise c.error(f"invalid element for array<{t}>", start)
                if c.accept(">"):
                    break
                c.expect(",", "or '>' in array<...>")
        else:
            c.expect(">", "in array<...>")
        return DenseArrayAttr(t, tuple(values))

    def _dense_array_float(self, t: FloatType) -> float:
        """One element of ``array<f32: ...>`` as MLIR's DenseArrayElementParser reads it:
        a hex integer literal is the element's bit pattern, a decimal integer converts to
        ``t`` (rounded once), a float literal is read as f64 and then rounded to ``t``."""
        c = self.c
        start = c.skip()
        m = _NUMBER.match(c.text, start)
        if m is None:
            raise c.error(f"expected integer or floating point literal in array<{t.name}: ...>")
        lit = m.group(0)
        c.pos = m.end()
        try:
            if "x" in lit or not any(ch in lit for ch in ".eE"):
                return float_attr_value(lit, t)
            v = float(lit)
            return float_attr_value(repr(v), t) if t.name != "f64" else v
        except (LiteralError, ValueError, OverflowError) as e:
            raise c.error(str(e), start) from None

    def parse_attr_dict(self) -> tuple[tuple[str, Attribute], ...]:
        """``{name = attr, unit_name, "quoted" = attr}``."""
        c = self.c
        c.expect("{")
        entries: list[tuple[str, Attribute]] = []
        if c.accept("}"):
            return ()
        self.enter()
        try:
            while True:
                c.skip()
                name = c.string()
                if name is None:
                    name = c.bare_id()
                    if name is None:
                        raise c.error(f"expected an attribute name, found {c.describe()}")
                if c.accept("="):
                    entries.append((name, self.parse_attribute()))
                else:
                    entries.append((name, UnitAttr()))
                if c.accept("}"):
                    return tuple(entries)
                c.expect(",", "or '}' in attribute dictionary")
        finally:
            self.leave()

    # ---- `#...` attributes ---------------------------------------------------------------
    def _hash_attribute(self) -> Attribute:
        c = self.c
        start = c.pos
        m = c.expect_match(lx.HASH_ID_RE, "an attribute")
        name = m.group(0)
        text = c.text
        has_body = text.startswith("<", c.pos)
        if "." not in name:
            if not has_body:
                if name in self.attr_aliases:
                    return self.attr_aliases[name]
                raise c.error(f"undefined attribute alias '{name}'", start)
            dialect = name[1:]
            if dialect in _STABLEHLO_DIALECTS:
                mm = _ENUM_BODY.match(text, c.pos + 1)
                if mm:
                    c.pos = mm.end()
                    return EnumAttr(dialect, mm.group(1), mm.group(2), True)
            return OpaqueAttr(name + c.balanced("<", ">"))
        dialect, _, kind = name[1:].partition(".")
        if dialect not in _STABLEHLO_DIALECTS:
            if has_body:
                return OpaqueAttr(name + c.balanced("<", ">"))
            return OpaqueAttr(name)
        if not has_body:
            return OpaqueAttr(name)
        mm = _LONG_ENUM_BODY.match(text, c.pos + 1)
        if mm and kind not in ("bounds",):
            c.pos = mm.end()
            return EnumAttr(dialect, kind, mm.group(1), False)
        handler = _STRUCT_PARSERS.get((dialect, kind)) if dialect == "stablehlo" else None
        save = c.pos
        try:
            if handler is not None:
                c.expect("<")
                return handler(self, start)
            return self._dialect_attr(dialect, kind)
        except ParseError:
            if handler is not None:
                raise
            c.pos = save
            return OpaqueAttr(name + c.balanced("<", ">"))

    def _dialect_attr(self, dialect: str, kind: str) -> DialectAttr:
        c = self.c
        c.expect("<")
        params: list[tuple[str, Attribute]] = []
        if not c.accept(">"):
            while True:
                save = c.pos
                key = c.bare_id()
                if key is not None and c.accept("="):
                    params.append((key, self.parse_attribute()))
                else:
                    c.pos = save
                    params.append(("", self.parse_attribute()))
                if c.accept(">"):
                    break
                c.expect(",", "or '>'")
        return DialectAttr(dialect, kind, tuple(params))

    def kv_params(self, close: str = ">", allowed: tuple[str, ...] | None = None
                  ) -> dict[str, object]:
        """``key = value, ...`` up to ``close``; values: ints, int lists, types, attributes.

        As StableHLO's struct-attribute parsers: a key given twice is an error
        ("duplicated `key` entry"), and so is one not in ``allowed`` (when given)."""
        c = self.c
        out: dict[str, object] = {}
        if c.accept(close):
            return out
        while True:
            key_pos = c.skip()
            key = c.bare_id()
            if key is None:
                if out and c.accept(close):  # MLIR accepts a trailing comma here
                    return out
                raise c.error(f"expected a parameter name, found {c.describe()}")
            if allowed is not None and key not in allowed:
                raise c.error("expected one of: " + ", ".join(f"`{k}`" for k in allowed),
                              key_pos)
            if key in out:
                raise c.error(f"duplicated `{key}` entry", key_pos)
            c.expect("=", f"after '{key}'")
            c.skip()
            ch = c.text[c.pos] if c.pos < c.n else ""
            if ch == "[":
                out[key] = self.int_list()
            elif ch in "-+0123456789":
                a = self._number_attribute()
                out[key] = a.value
            else:
                a = self.parse_attribute()
                out[key] = a
            if c.accept(close):
                return out
            c.expect(",", f"or '{close}'")

    def expect_ints_struct(self, cls, start: int, params: dict, int_fields: set[str] = frozenset()):
        try:
            for k, v in params.items():
                if k in int_fields:
                    if not isinstance(v, int):
                        raise TypeError(f"'{k}' must be an integer")
                elif not isinstance(v, tuple):
                    raise TypeError(f"'{k}' must be a list of integers")
            return cls(**params)
        except TypeError as e:
            raise self.error(f"invalid #stablehlo attribute parameters: {e}", start) from None

    def parse_dot_algorithm_body(self, start: int) -> DotAlgorithm:
        """After ``<``: ``lhs_precision_type = tf32, ...>``."""
        c = self.c
        vals: dict[str, object] = {}
        while True:
            key = c.bare_id()
            if key is None:
                raise c.error(f"expected a parameter name, found {c.describe()}")
            c.expect("=")
            if key.endswith("_type"):
                vals[key] = self.parse_type()
            else:
                a = self.parse_attribute()
                vals[key] = a.value if isinstance(a, (IntegerAttr, BoolAttr)) else a
            if c.accept(">"):
                break
            c.expect(",", "or '>'")
        try:
            algorithm = DotAlgorithm(**vals)
        except TypeError as e:
            raise c.error(f"invalid dot algorithm: {e}", start) from None
        problem = _dot_algorithm_problem(algorithm)
        if problem is not None:
            raise c.error(problem, start)
        return algorithm

    # ---- locations ---------------------------------------------------------------------
    def trailing_location(self) -> LocationAttr | None:
        c = self.c
        save = c.pos
        if c.accept_keyword("loc"):
            if c.peek() == "(":
                return self.parse_location_body()
        c.pos = save
        return None

    # ---- operations --------------------------------------------------------------------
    def value_use(self) -> str:
        m = self.c.match(lx.VALUE_ID_RE)
        if m is None:
            raise self.c.error(f"expected an SSA value, found {self.c.describe()}")
        return m.group(0)

    def value_uses(self, close: str = ")") -> list[str]:
        """``%a, %b`` up to (and consuming) ``close``."""
        c = self.c
        names: list[str] = []
        if c.accept(close):
            return names
        while True:
            names.append(self.value_use())
            if c.accept(close):
                return names
            c.expect(",", f"or '{close}' in operand list")

    def make_operands(self, names: list[str], types, pos: int) -> tuple[Value, ...]:
        if len(names) != len(types):
            raise self.error(
                f"{len(names)} operands but the type signature gives {len(types)} types", pos)
        return tuple(Value(n, t) for n, t in zip(names, types))

    def operand_types_known(self, names: list[str], pos: int) -> tuple[Value, ...]:
        out = []
        for n in names:
            t = self.value_types.get(n)
            if t is None:
                raise self.error(f"use of undefined value '{n}' (its type is unknown)", pos)
            out.append(Value(n, t))
        return tuple(out)

    def make_results(self, defs: list[tuple[str, int | None]], types, pos: int) -> tuple[Value, ...]:
        if len(defs) == 1 and defs[0][1] is None and len(types) == 1:
            name = defs[0][0]
            t = types[0]
            self.value_types[name] = t
            return (Value(name, t),)
        total = sum(1 if k is None else k for _, k in defs)
        if total != len(types):
            raise self.error(
                f"operation defines {total} results but its type gives {len(types)}", pos)
        out: list[Value] = []
        it = iter(types)
        vt = self.value_types
        for name, k in defs:
            if k is None:
                t = next(it)
                out.append(Value(name, t))
                vt[name] = t
            else:
                for i in range(k):
                    t = next(it)
                    v = Value(f"{name}#{i}", t)
                    out.append(v)
                    vt[v.name] = t
        return tuple(out)

    def result_defs(self) -> list[tuple[str, int | None]]:
        c = self.c
        defs: list[tuple[str, int | None]] = []
        while True:
            m = c.match(_RESULT_NAME)
            if m is None:
                raise c.error(f"expected a result name, found {c.describe()}")
            defs.append((m.group(1), int(m.group(2)) if m.group(2) else None))
            if c.accept("="):
                return defs
            c.expect(",", "or '=' after result names")

    def parse_operation(self) -> Operation | Function:
        c = self.c
        start = c.skip()
        text = c.text
        m = _FAST_OP.match(text, start)
        if m is not None and m.group(2) in _FAST_OP_NAMES:
            t = _simple_tensor(m.group(4), m.group(5))
            if t is not None:
                c.pos = m.end()
                name = m.group(1)
                self.value_types[name] = t
                loc = self.trailing_location() if c.peek() == "l" else None
                return Operation(m.group(2), tuple(self._value(u, t) for u in m.group(3).split(", ")),
                                 (self._value(name, t),), (), (), (), _NO_PROPS, loc,
                                 c.location(start))
        defs: list[tuple[str, int | None]] = []
        if text.startswith("%", start):
            defs = self.result_defs()
            c.skip()
        pos = c.pos
        if text.startswith('"', pos):
            name = c.string()
            op = self.generic_body(name, defs, start)
            if name == "func.func":
                op = self._generic_function(op, start)
        else:
            m = _OP_NAME.match(text, pos)
            if m is None:
                raise c.error(f"expected an operation, found {c.describe()}")
            name = m.group(0)
            c.pos = m.end()
            if name == "func.func":
                if defs:
                    raise c.error("func.func has no results", start)
                return self.parse_function(start)
            from .pretty_ops import PRETTY, parse_default

            handler = PRETTY.get(name)
            if handler is None and "." not in name:
                raise c.error(f"unknown operation '{name}' (a custom-form operation is "
                              f"written dialect.op)", pos)
            if handler is None:
                if name in _NO_PRETTY:
                    raise c.error(f"'{name}' has no custom form here: write it in generic "
                                  f"form (\"{name}\"(...) ...)", pos)
                handler = parse_default
            op = handler(self, name, defs, start)
        loc = self.trailing_location()
        if loc is not None:
            op = _with_location(op, loc)
        return op

    def generic_body(self, name: str, defs, start: int) -> Operation:
        """After the quoted name: ``(operands) [successors] <{props}> (regions) {attrs} : type``."""
        c = self.c
        c.expect("(", f"after \"{name}\"")
        operand_names = self.value_uses(")")
        successors: tuple[str, ...] = ()
        if c.accept("["):
            succ: list[str] = []
            while True:
                succ.append(c.expect_match(lx.CARET_ID_RE, "a block label").group(0))
                if c.accept("]"):
                    break
                c.expect(",", "or ']'")
            successors = tuple(succ)
        props: tuple = ()
        if c.accept("<"):
            props = self.parse_attr_dict()
            c.expect(">", "after properties")
        regions: list[Region] = []
        if c.peek() == "(":
            c.expect("(")
            while True:
                regions.append(self.parse_region())
                if c.accept(")"):
                    break
                c.expect(",", "or ')' after region")
        attrs: tuple = ()
        if c.peek() == "{":
            attrs = self.parse_attr_dict()
        c.expect(":", "and the operation's function type")
        ftype = self.parse_type()
        if not isinstance(ftype, FunctionType):
            raise c.error("expected a function type (inputs) -> results", start)
        operands = self.make_operands(operand_names, ftype.inputs, start)
        results = self.make_results(defs, ftype.results, start)
        all_attrs = props + attrs
        return Operation(
            name,
            operands,
            results,
            sort_attrs(all_attrs),
            tuple(regions),
            successors,
            frozenset(k for k, _ in props),
            None,
            c.location(start),
        )

    # ---- regions and blocks -------------------------------------------------------------
    def parse_region(self, entry_args: tuple[Value, ...] | None = None,
                     entry_locs: tuple = ()) -> Region:
        c = self.c
        start = c.pos
        c.expect("{")
        self.enter()
        try:
            blocks: list[Block] = []
            c.skip()
            if c.accept("}"):
                if entry_args:
                    return Region((Block(entry_args, (), None, entry_locs),))
                return Region(())
            first = True
            while True:
                c.skip()
                label = None
                args: tuple[Value, ...] = ()
                locs: tuple = ()
                if c.text.startswith("^", c.pos):
                    label, args, locs = self._block_header()
                    if first and entry_args is not None:
                        raise c.error("the entry block of a function body takes no label")
                elif first and entry_args is not None:
                    args, locs = entry_args, entry_locs
                elif not first:
                    raise c.error("expected a block label")
                ops: list[Operation] = []
                while True:
                    c.skip()
                    if c.pos >= c.n:
                        raise c.error("unterminated region: expected '}'", start)
                    ch = c.text[c.pos]
                    if ch == "}" or ch == "^":
                        break
                    op = self.parse_operation()
                    if isinstance(op, Function):
                        raise c.error("func.func is only supported at module level")
                    ops.append(op)
                if first:
                    label = None  # the entry block cannot be branched to: its label is noise
                blocks.append(Block(args, tuple(ops), label, locs))
                first = False
                if c.accept("}"):
                    return Region(tuple(blocks))
        finally:
            self.leave()

    def _block_header(self):
        c = self.c
        label = c.expect_match(lx.CARET_ID_RE, "a block label").group(0)
        args: list[Value] = []
        locs: list = []
        if c.accept("("):
            if not c.accept(")"):
                while True:
                    name = c.expect_match(lx.VALUE_DEF_RE, "a block argument").group(0)
                    c.expect(":", "after block argument name")
                    t = self.parse_type()
                    args.append(Value(name, t))
                    self.value_types[name] = t
                    locs.append(self.trailing_location())
                    if c.accept(")"):
                        break
                    c.expect(",", "or ')' in block arguments")
        c.expect(":", "after block label")
        return label, tuple(args), (tuple(locs) if any(x is not None for x in locs) else ())

    # ---- functions ---------------------------------------------------------------------
    def _generic_function(self, op: Operation, start: int) -> Function:
        """``"func.func"() <{function_type = ..., sym_name = "f"}> ({...}) : () -> ()``."""
        attrs = dict(op.attributes)
        name = attrs.pop("sym_name", None)
        ftype = attrs.pop("function_type", None)
        if not isinstance(name, StringAttr) or not (
                isinstance(ftype, TypeAttr) and isinstance(ftype.type, FunctionType)):
            raise self.error("generic func.func needs sym_name and function_type", start)
        vis = attrs.pop("sym_visibility", None)
        arg_attrs = attrs.pop("arg_attrs", None)
        res_attrs = attrs.pop("res_attrs", None)

        def dicts(a) -> tuple:
            if a is None:
                return ()
            if not isinstance(a, ArrayAttr) or not all(
                    isinstance(d, DictionaryAttr) for d in a.elements):
                raise self.error("arg_attrs / res_attrs must be arrays of dictionaries", start)
            return tuple(d if d.entries else None for d in a.elements)

        if op.results or op.operands or len(op.regions) != 1:
            raise self.error("func.func has one region and no operands or results", start)
        body = op.regions[0] if op.regions[0].blocks else None
        args = tuple(dicts(arg_attrs))
        ress = tuple(dicts(res_attrs))
        return Function(
            name.value, ftype.type, body,
            vis.value if isinstance(vis, StringAttr) else None,
            args if any(a is not None for a in args) else (),
            ress if any(a is not None for a in ress) else (),
            tuple(attrs.items()), None, op.pos)

    def parse_function(self, start: int) -> Function:
        c = self.c
        visibility = None
        save = c.pos
        w = c.keyword()
        if w in ("public", "private", "nested"):
            visibility = w
        else:
            c.pos = save
        m = c.expect_match(lx.SYMBOL_RE, "the function's @name")
        name = _symbol_name(m.group(0), c)
        self.value_types = {}
        c.expect("(", "after the function name")
        args: list[Value] = []
        arg_types: list[Type] = []
        arg_attrs: list = []
        arg_locs: list = []
        if not c.accept(")"):
            while True:
                c.skip()
                if c.text.startswith("%", c.pos):
                    an = c.expect_match(lx.VALUE_DEF_RE, "an argument name").group(0)
                    c.expect(":", "after argument name")
                    t = self.parse_type()
                    args.append(Value(an, t))
                    self.value_types[an] = t
                else:
                    t = self.parse_type()
                arg_types.append(t)
                arg_attrs.append(DictionaryAttr(self.parse_attr_dict())
                                 if c.peek() == "{" else None)
                arg_locs.append(self.trailing_location())
                if c.accept(")"):
                    break
                c.expect(",", "or ')' in function arguments")
        if args and len(args) != len(arg_types):
            raise c.error("either every argument of a function is named or none is", start)
        res_types: list[Type] = []
        res_attrs: list = []
        if c.accept("->"):
            if c.peek() == "(":  # results with attributes only in the parenthesized form
                save = c.pos
                c.expect("(")
                if not c.accept(")"):
                    while True:
                        res_types.append(self.parse_type())
                        res_attrs.append(DictionaryAttr(self.parse_attr_dict())
                                         if c.peek() == "{" else None)
                        if c.accept(")"):
                            break
                        c.expect(",", "or ')' in function results")
                if c.startswith("->"):
                    c.pos = save
                    res_types = [self._function_type()]
                    res_attrs = [None]
            else:
                res_types.append(self.parse_type())
                res_attrs.append(None)
        attributes: tuple = ()
        if c.accept_keyword("attributes"):
            attributes = self.parse_attr_dict()
        body = None
        if c.peek() == "{":
            if not args and arg_types:
                raise c.error("a function with a body must name its arguments")
            locs = tuple(arg_locs) if any(x is not None for x in arg_locs) else ()
            body = self.parse_region(tuple(args), locs)
        loc = self.trailing_location()
        if not any(a is not None for a in arg_attrs):
            arg_attrs = []
        if not any(a is not None for a in res_attrs):
            res_attrs = []
        return Function(
            name,
            FunctionType(tuple(arg_types), tuple(res_types)),
            body,
            visibility,
            tuple(arg_attrs),
            tuple(res_attrs),
            attributes,
            loc,
            c.location(start),
        )

    # ---- module ------------------------------------------------------------------------
    def parse_module(self) -> Module:
        c = self.c
        items: list = []
        modules: list = []
        while True:
            c.skip()
            if c.pos >= c.n:
                break
            ch = c.text[c.pos]
            if ch == "#" and not c.text.startswith("#-}", c.pos):
                self._alias_definition("#")
                continue
            if ch == "!":
                self._alias_definition("!")
                continue
            if c.text.startswith("{-#", c.pos):
                self._resources()
                continue
            start = c.pos
            save = c.pos
            w = c.bare_id()
            if w in ("module", "builtin.module"):
                modules.append(self._module_body(start))
                continue
            c.pos = save
            items.append(self.parse_operation())
        if modules:
            if len(modules) > 1 or items:
                raise c.error("a file holds either one `module { ... }` or top-level "
                              "operations, not both (nested modules are not supported)")
            name, attrs, body, loc, pos = modules[0]
            return Module(body, name, attrs, tuple(self.alias_defs), tuple(self.resources),
                          False, loc, pos)
        return Module(tuple(items), None, (), tuple(self.alias_defs), tuple(self.resources),
                      True, None, c.location(0))

    def _module_body(self, start: int):
        c = self.c
        name = None
        m = c.match(lx.SYMBOL_RE)
        if m:
            name = _symbol_name(m.group(0), c)
        attrs: tuple = ()
        if c.accept_keyword("attributes"):
            attrs = self.parse_attr_dict()
        c.expect("{", "to open the module body")
        items: list = []
        while True:
            c.skip()
            if c.pos >= c.n:
                raise c.error("unterminated module: expected '}'", start)
            if c.accept("}"):
                break
            s = c.pos
            w = c.bare_id()
            if w in ("module", "builtin.module"):
                raise c.error("nested modules are not supported", s)
            c.pos = s
            items.append(self.parse_operation())
        loc = self.trailing_location()
        return name, attrs, tuple(items), loc, c.location(start)

    def _alias_definition(self, sigil: str) -> None:
        c = self.c
        start = c.pos
        m = c.expect_match(lx.HASH_ID_RE if sigil == "#" else lx.BANG_ID_RE, "an alias name")
        name = m.group(0)
        if "." in name:
            raise c.error(f"alias names cannot contain '.': '{name}'", start)
        c.expect("=", f"after alias '{name}'")
        if sigil == "#":
            value: Attribute | Type = self.parse_attribute()
            self.attr_aliases[name] = value
        else:
            value = self.parse_type()
            self.type_aliases[name] = value
        self.alias_defs.append((name, value))

    def _resources(self) -> None:
        c = self.c
        start = c.pos
        c.expect("{-#")
        while True:
            if c.accept("#-}"):
                return
            section = c.bare_id()
            if section is None:
                raise c.error(f"expected a resource section name, found {c.describe()}")
            c.expect(":")
            c.expect("{")
            if not c.accept("}"):
                while True:
                    dialect = c.bare_id()
                    if dialect is None:
                        raise c.error("expected a dialect name in resources")
                    c.expect(":")
                    c.expect("{")
                    if not c.accept("}"):
                        while True:
                            key = c.string()
                            if key is None:
                                key = c.expect_match(re.compile(r"[A-Za-z0-9_.\-$]+"),
                                                     "a resource key").group(0)
                            c.expect(":")
                            value = c.string()
                            if value is None:
                                a = self.parse_attribute()
                                value = str(getattr(a, "value", a))
                            if section == "dialect_resources":
                                self.resources.append((dialect, key, value))
                            if c.accept("}"):
                                break
                            c.expect(",", "or '}' in resources")
                    if c.accept("}"):
                        break
                    c.expect(",", "or '}' in resources")
            c.accept(",")
            if c.pos >= c.n:
                raise c.error("unterminated resources section", start)


# ---- #stablehlo.* structured attributes ----------------------------------------------------

@functools.cache
def _field_names(cls) -> tuple[str, ...]:
    return tuple(f.name for f in dataclasses.fields(cls) if f.name != "raw")


def _gather(p: Parser, start: int) -> Attribute:
    params = p.kv_params(allowed=_field_names(GatherDimensionNumbers))
    return p.expect_ints_struct(GatherDimensionNumbers, start, params, {"index_vector_dim"})


def _scatter(p: Parser, start: int) -> Attribute:
    params = p.kv_params(allowed=_field_names(ScatterDimensionNumbers))
    return p.expect_ints_struct(ScatterDimensionNumbers, start, params, {"index_vector_dim"})


def _dot(p: Parser, start: int) -> Attribute:
    params = p.kv_params(allowed=_field_names(DotDimensionNumbers))
    return p.expect_ints_struct(DotDimensionNumbers, start, params)


def _channel_handle(p: Parser, start: int) -> Attribute:
    params = p.kv_params(allowed=_field_names(ChannelHandle))
    return p.expect_ints_struct(ChannelHandle, start, params, {"handle", "type"})


def _output_operand_alias(p: Parser, start: int) -> Attribute:
    params = p.kv_params(allowed=_field_names(OutputOperandAlias))
    return p.expect_ints_struct(OutputOperandAlias, start, params, {"operand_index"})


def _bound_list(p: Parser, close: str) -> tuple[int | None, ...]:
    c = p.c
    out: list[int | None] = []
    if c.accept(close):
        return ()
    while True:
        if c.accept("?"):
            out.append(None)
        else:
            out.append(p.integer("a bound or '?'"))
        if c.accept(close):
            return tuple(out)
        c.expect(",", f"or '{close}' in bounds")


def _bounds(p: Parser, start: int) -> Attribute:
    return TypeExtensions(_bound_list(p, ">"), "bounds")


def _type_extensions(p: Parser, start: int) -> Attribute:
    c = p.c
    c.expect_keyword("bounds")
    c.expect("=")
    c.expect("[")
    b = _bound_list(p, "]")
    c.expect(">")
    return TypeExtensions(b, "type_extensions")


def _conv(p: Parser, start: int) -> Attribute:
    c = p.c
    if c.accept_keyword("raw"):
        params = p.kv_params(allowed=_field_names(ConvDimensionNumbers))
        try:
            return ConvDimensionNumbers(**params, raw=True)
        except TypeError as e:
            raise c.error(f"invalid #stablehlo.conv<raw ...>: {e}", start) from None
    cd = p.conv_dims_text()
    c.expect(">")
    return cd


def _result_accuracy(p: Parser, start: int) -> Attribute:
    c = p.c
    vals: dict[str, object] = {}
    if not c.accept(">"):
        while True:
            key = c.bare_id()
            if key not in ("atol", "rtol", "ulps", "mode"):
                raise c.error(f"unknown result_accuracy parameter '{key}'")
            c.expect("=")
            a = p.parse_attribute()
            if key == "mode":
                if not isinstance(a, EnumAttr):
                    raise c.error("result_accuracy mode must be an enum attribute")
                vals[key] = a
            elif key == "ulps":
                if not isinstance(a, IntegerAttr):
                    raise c.error("ulps must be an integer")
                vals[key] = a.value
            else:
                if not isinstance(a, (FloatAttr, IntegerAttr)):
                    raise c.error(f"{key} must be a number")
                vals[key] = float(a.value)
            if c.accept(">"):
                break
            c.expect(",", "or '>'")
    acc = ResultAccuracy(**vals)
    mode = acc.mode.value if acc.mode is not None else None
    if mode == "HIGHEST" and (acc.atol != 0 or acc.rtol != 0 or acc.ulps != 0):
        # ResultAccuracyAttr's verifier, which MLIR runs when the attribute is parsed
        raise c.error(f"Invalid tolerances for ResultAccuracyAttr with mode {mode}, must be "
                      "all zero.", start)
    return acc


def _dot_algorithm_problem(a: DotAlgorithm) -> str | None:
    """What MLIR's DotAlgorithmAttr verifier (run when the attribute is parsed) says of
    ``a``: the spec's dot_general (C22)-(C24) (counts are positive) and (I8)-(I10) (the
    precision and accumulation types are float types), else None.  (StableHLO also
    rejects combinations outside its table of known algorithms; hlorun does not, as the
    spec leaves the supported combinations to implementations.)"""
    if not (isinstance(a.lhs_component_count, int) and a.lhs_component_count >= 1):
        return "lhs component count must be positive"
    if not (isinstance(a.rhs_component_count, int) and a.rhs_component_count >= 1):
        return "rhs component count must be positive"
    if not (isinstance(a.num_primitive_operations, int) and a.num_primitive_operations >= 1):
        return "num primitive operations must be positive"
    if not all(isinstance(t, FloatType) for t in (a.lhs_precision_type, a.rhs_precision_type,
                                                  a.accumulation_type)):
        return "dot algorithm not known to be supported on any hardware"
    return None


def _dot_algorithm(p: Parser, start: int) -> Attribute:
    return p.parse_dot_algorithm_body(start)


_STRUCT_PARSERS = {
    ("stablehlo", "gather"): _gather,
    ("stablehlo", "scatter"): _scatter,
    ("stablehlo", "dot"): _dot,
    ("stablehlo", "channel_handle"): _channel_handle,
    ("stablehlo", "output_operand_alias"): _output_operand_alias,
    ("stablehlo", "bounds"): _bounds,
    ("stablehlo", "type_extensions"): _type_extensions,
    ("stablehlo", "conv"): _conv,
    ("stablehlo", "result_accuracy"): _result_accuracy,
    ("stablehlo", "dot_algorithm"): _dot_algorithm,
}


def _conv_dims_text(self: Parser) -> ConvDimensionNumbers:
    c = self.c
    c.skip()
    start = c.pos
    m = CONV_DIMS_RE.match(c.text, c.pos)
    if m is None:
        raise c.error("expected convolution dimension numbers like "
                      "[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]")
    try:
        cd = parse_conv_dims(re.sub(r"\s+", "", m.group(0)))
    except (pp.ParseBaseException, ValueError) as e:
        raise c.error(f"invalid convolution dimension numbers: {e}", start) from None
    c.pos = m.end()
    return cd


Parser.conv_dims_text = _conv_dims_text


# Ops whose custom form hlorun does not parse (they have no pretty form in StableHLO).
_NO_PRETTY: frozenset[str] = frozenset()


def _symbol_name(tok: str, c: lx.Cursor) -> str:
    body = tok[1:]
    if body.startswith('"'):
        try:
            return lx.unescape_string(body[1:-1])
        except ValueError as e:
            raise c.error(str(e)) from None
    return body


def sort_attrs(attrs) -> tuple[tuple[str, Attribute], ...]:
    """Attributes in MLIR's order (a DictionaryAttr is sorted by name); last one wins."""
    if not attrs:
        return ()
    d = dict(attrs)
    return tuple(sorted(d.items()))


def _with_location(op, loc: LocationAttr):
    import dataclasses

    if isinstance(op, Function):
        return dataclasses.replace(op, location=loc)
    return Operation(op.name, op.operands, op.results, op.attributes, op.regions, op.successors,
                     op.property_names, loc, op.pos)


# ---- entry point ------------------------------------------------------------------------

def parse_module(text: str, filename: str = "<string>", *, line_offset: int = 0) -> Module:
    """Parse MLIR ``text`` into a Module.

    ``line_offset`` is added to every reported line number (for a chunk of a larger file
    split on ``// -----``: pass the number of lines before the chunk).
    """
    p = Parser(text, filename, line_offset)
    try:
        return p.parse_module()
    except ParseError:
        raise
    except HloError as e:
        raise ParseError(e.message, e.pos or p.c.location(), source_line=e.source_line) from None
    except RecursionError:
        raise p.error("input nested too deeply") from None
    except (LiteralError, ValueError, TypeError, KeyError, IndexError, OverflowError,
            AttributeError, AssertionError, StopIteration, np.exceptions.AxisError,
            MemoryError) as e:
        raise p.error(f"invalid input ({type(e).__name__}: {e})") from None


def split_input_file(text: str) -> list[tuple[str, int]]:
    """Split ``text`` on lines ``// -----`` into (chunk, line_offset) pairs, as mlir-opt
    ``--split-input-file`` does."""
    out: list[tuple[str, int]] = []
    lines = text.split("\n")
    cur: list[str] = []
    offset = 0
    for i, line in enumerate(lines):
        if re.fullmatch(r"\s*// -----\s*", line):
            out.append(("\n".join(cur), offset))
            cur = []
            offset = i + 1
        else:
            cur.append(line)
    out.append(("\n".join(cur), offset))
    return out
