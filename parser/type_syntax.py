"""The type parser: builtin and dialect types (as mlir/lib/AsmParser/TypeParser.cpp).

The grammar is MLIR's (mlir.llvm.org/docs/LangRef, "Type System" and "Builtin Types"):
``tensor<2x?xf32, #enc>``, ``complex<f32>``, ``tuple<...>``, function types, the integer
and float keywords, ``!quant.uniform<...>`` (QuantOps' UniformQuantizedType syntax), a
plug-in dialect's types through its parser (parser/dialects.py) and other
``!dialect.name<...>`` kept opaque.  ``TypeParser`` holds the cursor and the parser's
state; ``attr_syntax.AttrParser``, ``op_syntax.OpParser`` and ``grammar.Parser`` extend
it, one layer of the syntax each.
"""

from __future__ import annotations

import functools
import re
import struct
from typing import Any

from . import lexer as lx
from .dialects import PLUGINS, lookup
from .errors import ParseError
from .ir import (
    FLOAT_TYPE_NAMES,
    Attribute,
    ComplexType,
    FloatType,
    FunctionType,
    IndexType,
    IntegerType,
    NoneType,
    OpaqueType,
    QuantizedType,
    TensorType,
    TokenType,
    TupleType,
    Type,
    Value,
)

MAX_DEPTH = 200  # nesting of regions / attributes / types

I64 = IntegerType(64)

# ---- builtin type keywords -------------------------------------------------------------

_INT_TYPE = re.compile(r"(si|ui|i)([0-9]+)$")
_FLOAT_NAMES = frozenset(FLOAT_TYPE_NAMES)


_INT64_MAX = (1 << 63) - 1


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
    et: Type | None
    if elem.startswith("complex<"):  # lexer.SIMPLE_ELEMENT: complex<f32> / complex<f64>
        et = ComplexType(FloatType(elem[8:-1]))
    else:
        et = builtin_type(elem)
    if et is None:
        return None
    shape = tuple(None if d == "?" else int(d) for d in dims.split("x")[:-1])
    if any(d is not None and d > _INT64_MAX for d in shape):
        return None  # the slow path reports it
    return TensorType(shape, et)


# ---- quant.uniform, as a pyparsing grammar (cold path; cached) ---------------------------


@functools.cache
def _quant_grammar() -> Any:
    """The pyparsing grammar of a ``!quant.uniform`` body, built on first use: pyparsing
    is imported here, not at module level, to keep startup cheap (a program without
    quantized types never loads it)."""
    import pyparsing as pp

    integer = pp.Regex(r"[-+]?[0-9]+").set_parse_action(lambda t: int(t[0]))
    real = pp.Regex(r"0x[0-9A-Fa-f]{1,16}\b").set_parse_action(  # f64 bits (NaN, inf)
        lambda t: struct.unpack("<d", struct.pack("<Q", int(t[0], 16)))[0]
    ) | pp.Regex(r"[-+]?(?:[0-9]+\.?[0-9]*(?:[eE][-+]?[0-9]+)?|inf|nan)").set_parse_action(
        lambda t: float(t[0])
    )
    storage = pp.Regex(r"(?:si|ui|i|u)[0-9]+")("storage")
    srange = (
        pp.Suppress("<") + integer("smin") + pp.Suppress(":") + integer("smax") + pp.Suppress(">")
    )
    expressed = pp.Regex(r"[A-Za-z][A-Za-z0-9]*")("expressed")
    scale_zp = pp.Group(real("scale") + pp.Optional(pp.Suppress(":") + integer("zp")))
    per_axis = (
        pp.Suppress("{") + pp.Group(pp.DelimitedList(scale_zp))("axis_params") + pp.Suppress("}")
    )
    return (
        pp.Suppress("<")
        + storage
        + pp.Optional(srange)
        + pp.Suppress(":")
        + expressed
        + pp.Optional(pp.Suppress(":") + integer("axis"))
        + pp.Suppress(",")
        + (per_axis | scale_zp("tensor_params"))
        + pp.Suppress(">")
        + pp.StringEnd()
    )


@functools.lru_cache(maxsize=1024)
def parse_quant_uniform(body: str) -> QuantizedType:
    """``<i8<-127:127>:f32:1, {0.1:-30, 0.5:-20}>`` (the text after ``!quant.uniform``)."""
    import pyparsing as pp  # cold path: loaded by _quant_grammar, not at startup

    try:
        r = _quant_grammar().parse_string(body, parse_all=True)
    except pp.ParseBaseException as e:
        raise ValueError(str(e)) from None
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
    return QuantizedType(
        storage,
        expressed,
        scales,
        zps,
        axis,
        int(r["smin"]) if "smin" in r else None,
        int(r["smax"]) if "smax" in r else None,
    )


_DIMS = re.compile(r"((?:(?:[0-9]+|\?)x)*)")
# Types of the StableHLO dialect (`!stablehlo.token`, `!stablehlo.future<...>`).
_STABLEHLO_TYPES = frozenset({"token", "future"})


class TypeParser:
    """The cursor, the parser state and the types of MLIR's syntax (LangRef, "Type
    System"); ``AttrParser`` and ``OpParser`` build on it."""

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
        value = int(m.group(0), 0) if "x" in m.group(0) else int(m.group(0))
        if not -_INT64_MAX - 1 <= value <= _INT64_MAX:  # MLIR's parseInteger<int64_t>
            raise c.error(f"integer value {value} does not fit in 64 bits", m.start())
        return value

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

    def parse_attribute(self) -> Attribute:
        """An attribute (a tensor type's encoding): ``AttrParser``'s, the layer above."""
        raise NotImplementedError("TypeParser parses types only: use AttrParser")

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
            raise c.expected("a type")
        word = m.group(0)
        builtin = builtin_type(word)
        if builtin is not None:
            c.pos = m.end()
            return builtin
        if word in ("tensor", "complex", "tuple", "vector", "memref") and text.startswith(
            "<", m.end()
        ):
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
        raise c.expected("a type")  # (MLIR: "expected non-function type")

    def _tensor_type(self, start: int) -> TensorType:
        c = self.c
        c.expect("<")
        c.skip()
        shape: tuple | None
        if c.accept("*"):
            c.expect("x", "after '*' in unranked tensor type")
            shape = None
        else:
            m = c.expect_match(_DIMS, "tensor dimensions")
            dims = m.group(1)
            shape = tuple(None if d == "?" else int(d) for d in dims.split("x")[:-1])
            if any(d is not None and d > _INT64_MAX for d in shape):
                raise c.error("tensor dimension does not fit in 64 bits", start)
        elem = self.parse_type()
        if isinstance(elem, (TensorType, FunctionType, TupleType)):
            raise c.error("invalid tensor element type", start)
        encoding: Attribute | None = None
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
            except ValueError as e:
                raise c.error(f"invalid !quant.uniform type: {e}", start) from None
        dialect = name[1:].partition(".")[0]
        if dialect in PLUGINS:  # a plug-in dialect's type (parser/dialects.py)
            plugin = lookup(dialect)
            if plugin is not None and plugin.parse_type is not None:
                return plugin.parse_type(self, name, start)
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
