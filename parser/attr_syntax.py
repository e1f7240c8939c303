"""The attribute parser: attributes and locations (as mlir/lib/AsmParser/
AttributeParser.cpp and LocationParser.cpp), a layer over the type parser.

Builtin attributes (LangRef "Attributes", BuiltinAttributes.td: integers and floats
with their types, strings, arrays, dictionaries, ``dense<...>``, ``array<...>``,
``dense_resource<...>``, symbol references, ``unit``), StableHLO's enums and structured
attributes (StablehloAttrs.td: ``#stablehlo.gather<...>``, ``#stablehlo.conv<...>``...),
a plug-in dialect's attributes through its parser (parser/dialects.py), other dialects'
``#dialect.name<...>`` kept opaque, and ``loc(...)``.
"""

from __future__ import annotations

import dataclasses
import functools
import re
from typing import Any

from . import dense_text
from . import lexer as lx
from .attributes import (
    LiteralError,
    decode_dense,
    decode_hex_blob,
    float_attr_value,
    wrap_int,
)
from .dialects import PLUGINS, lookup
from .errors import ParseError
from .ir import (
    ArrayAttr,
    Attribute,
    BoolAttr,
    ChannelHandle,
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
    GatherDimensionNumbers,
    IndexType,
    IntegerAttr,
    IntegerType,
    LocationAttr,
    OpaqueAttr,
    OutputOperandAlias,
    ResultAccuracy,
    ScatterDimensionNumbers,
    StringAttr,
    SymbolRefAttr,
    TensorType,
    Type,
    TypeAttr,
    TypeExtensions,
    UnitAttr,
)
from .type_syntax import TypeParser, builtin_type

# ---- convolution dimension numbers: `[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]` ----------


@functools.cache
def _conv_grammar() -> Any:
    """The pyparsing grammar of the dimension numbers, built on first use: pyparsing is
    imported here, not at module level, to keep startup cheap (a program without a
    custom-form convolution never loads it)."""
    import pyparsing as pp

    item = pp.Regex(r"[0-9]+|[bfio]")
    dims = pp.Group(pp.Suppress("[") + pp.Optional(pp.DelimitedList(item)) + pp.Suppress("]"))
    return (
        dims("input")
        + pp.Suppress("x")
        + dims("kernel")
        + pp.Suppress("->")
        + dims("output")
        + pp.StringEnd()
    )


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
    """``[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]`` (no blanks) -> its dimension numbers;
    ValueError when malformed."""
    import pyparsing as pp  # cold path: loaded by _conv_grammar, not at startup

    try:
        r = _conv_grammar().parse_string(text, parse_all=True)
    except pp.ParseBaseException as e:
        raise ValueError(str(e)) from None
    ib, if_, isp = _conv_part(list(r["input"]), "bf")
    ki, ko, ksp = _conv_part(list(r["kernel"]), "io")
    ob, of, osp = _conv_part(list(r["output"]), "bf")
    if not len(isp) == len(ksp) == len(osp):
        raise ValueError("input, kernel and output need the same number of spatial dimensions")
    return ConvDimensionNumbers(ib, if_, isp, ki, ko, ksp, ob, of, osp, raw=False)


_ENUM_BODY = re.compile(r"\s*([A-Za-z_][A-Za-z0-9_]*)\s+([A-Za-z_][A-Za-z0-9_]*)\s*>")
_LONG_ENUM_BODY = re.compile(r"\s*([A-Za-z_][A-Za-z0-9_]*)\s*>")
_NUMBER = re.compile(
    r"[-+]?(?:0x[0-9A-Fa-f]+(?![0-9A-Za-z_.])|[0-9]+\.[0-9]*(?:[eE][-+]?[0-9]+)?|[0-9]+[eE][-+]?[0-9]+"
    r"|[0-9]+(?![0-9A-Za-z_.]))"
)
_STABLEHLO_DIALECTS = ("stablehlo", "chlo")


def _symbol_name(tok: str, c: lx.Cursor) -> str:
    body = tok[1:]
    if body.startswith('"'):
        try:
            return lx.unescape_string(body[1:-1])
        except ValueError as e:
            raise c.error(str(e)) from None
    return body


class AttrParser(TypeParser):
    """Attributes and locations, over ``TypeParser``'s types."""

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
                if not (
                    c.text.startswith(("i", "si", "ui", "f", "bf", "tf", "index"), c.pos)
                    and builtin_type(c.keyword() or "") is not None
                ):
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
            s = c.string() or ""  # the cursor is at '"': a string (or a ParseError)
            t = self._typed_suffix()
            if t is not None:
                return OpaqueAttr(text[pos : c.pos])
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
            raise c.expected("an attribute")
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
        if (
            word in ("affine_map", "affine_set", "strided", "sparse", "distinct", "opaque")
            and after < c.n
            and text[after] in "<["
        ):
            c.pos = after
            if text[after] == "[":
                body = c.balanced("[", "]")
                rest = c.balanced("<", ">") if c.text.startswith("<", c.pos) else ""
                return OpaqueAttr(word + body + rest)
            body = c.balanced("<", ">")
            t = self._typed_suffix()
            return OpaqueAttr(text[pos : c.pos] if t is not None else word + body)
        if builtin_type(word) is not None or word in (
            "tensor",
            "complex",
            "tuple",
            "vector",
            "memref",
        ):
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

    def _number_attribute(self) -> IntegerAttr | FloatAttr:
        c = self.c
        start = c.pos
        m = _NUMBER.match(c.text, c.pos)
        if m is None:
            m2 = re.compile(r"[-+]?(?:inf|nan)\b").match(c.text, c.pos)
            if m2 is None:
                raise c.expected("a number")
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
            else:  # untyped (MLIR's default, i64) or index: 64 bits, as printed back
                value = wrap_int(value, _I64)
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
                    return DenseElementsAttr(t, decode_hex_blob(text[q + 3 : end], t), True)
                except (LiteralError, ValueError, OverflowError, TypeError) as e:
                    raise c.error(f"invalid dense literal: {e}", start) from None
        end = text.find(">", q)  # memchr, then the same check as ``[^<>]*>``
        if end < 0 or text.find("<", q, end) >= 0:
            raise c.error("unterminated dense<...> literal", start)
        body = text[q:end]
        c.pos = end + 1
        t = self._dense_type(start)
        fast = dense_text.decode(body, t)
        if fast is not None:
            return DenseElementsAttr(t, fast, False)
        try:
            array, is_hex = decode_dense(body, t)
            splat = None
            if array.size == 0 and body.strip() and not body.lstrip().startswith(("[", '"')):
                # a splat of a zero-element type keeps its element (MLIR's storage)
                splat, _ = decode_dense(body, TensorType((), t.element_type))
        except (LiteralError, ValueError, OverflowError, TypeError) as e:
            raise c.error(f"invalid dense literal: {e}", start) from None
        return DenseElementsAttr(t, array, is_hex, splat)

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
        dialect, _, kind = name[1:].partition(".")
        if dialect in PLUGINS:  # a plug-in dialect's attribute (parser/dialects.py)
            plugin = lookup(dialect)
            if plugin is not None and plugin.parse_attribute is not None:
                return plugin.parse_attribute(self, name, start)
        if "." not in name:
            if not has_body:
                if name in self.attr_aliases:
                    return self.attr_aliases[name]
                raise c.error(f"undefined attribute alias '{name}'", start)
            if dialect in _STABLEHLO_DIALECTS:
                mm = _ENUM_BODY.match(text, c.pos + 1)
                if mm:
                    c.pos = mm.end()
                    return EnumAttr(dialect, mm.group(1), mm.group(2), True)
            return OpaqueAttr(name + c.balanced("<", ">"))
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

    def kv_params(
        self,
        close: str = ">",
        allowed: tuple[str, ...] | None = None,
        failure: str | None = None,
    ) -> dict[str, Any]:
        """``key = value, ...`` up to ``close``; values: ints, int lists, types, attributes.

        As StableHLO's struct-attribute parser (``parseStruct``, StablehloOps.cpp): a key
        given twice is an error ("duplicated `key` entry"), and so is one not in
        ``allowed`` (when given); after a value, a ',' or else the ``close`` ("expected
        '>'"); a trailing ',' is accepted.  ``failure`` ("dot"): the attribute's parser
        then reports "failed parsing dot dimension numbers attribute" where it stopped."""
        try:
            return self._kv_params(close, allowed)
        except ParseError as e:
            if failure is not None:
                message = f"failed parsing {failure} dimension numbers attribute"
                e.also = (*e.also, self.c.error(message, self.c.skip()))
            raise

    def _kv_params(self, close: str, allowed: tuple[str, ...] | None) -> dict[str, Any]:
        c = self.c
        out: dict[str, Any] = {}
        while not c.accept(close):
            key_pos = c.skip()
            key = c.bare_id()
            if key is None:
                raise c.error(f"expected a parameter name, found {c.describe()}")
            if allowed is not None and key not in allowed:
                c.pos = key_pos
                raise c.error("expected one of: " + ", ".join(f"`{k}`" for k in allowed))
            if key in out:
                raise c.error(f"duplicated `{key}` entry", key_pos)
            c.expect("=", f"after '{key}'")
            c.skip()
            ch = c.text[c.pos] if c.pos < c.n else ""
            if ch == "[":
                out[key] = self.int_list()
            elif ch in "-+0123456789":
                out[key] = self._number_attribute().value
            else:
                out[key] = self.parse_attribute()
            if not c.accept(","):
                c.expect(close)
                break
        return out

    def expect_ints_struct(
        self, cls, start: int, params: dict, int_fields: frozenset[str] | set[str] = frozenset()
    ):
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
        vals: dict[str, Any] = {}
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

    def conv_dims_text(self) -> ConvDimensionNumbers:
        """``[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]`` (StableHLO's convolution
        dimension numbers, custom form)."""
        c = self.c
        c.skip()
        start = c.pos
        m = CONV_DIMS_RE.match(c.text, c.pos)
        if m is None:
            raise c.error(
                "expected convolution dimension numbers like "
                "[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]"
            )
        try:
            cd = parse_conv_dims(re.sub(r"\s+", "", m.group(0)))
        except ValueError as e:
            raise c.error(f"invalid convolution dimension numbers: {e}", start) from None
        c.pos = m.end()
        return cd


# ---- #stablehlo.* structured attributes ----------------------------------------------------


@functools.cache
def _field_names(cls) -> tuple[str, ...]:
    return tuple(f.name for f in dataclasses.fields(cls) if f.name != "raw")


def _gather(p: AttrParser, start: int) -> Attribute:
    params = p.kv_params(allowed=_field_names(GatherDimensionNumbers), failure="gather")
    return p.expect_ints_struct(GatherDimensionNumbers, start, params, {"index_vector_dim"})


def _scatter(p: AttrParser, start: int) -> Attribute:
    params = p.kv_params(allowed=_field_names(ScatterDimensionNumbers), failure="scatter")
    return p.expect_ints_struct(ScatterDimensionNumbers, start, params, {"index_vector_dim"})


def _dot(p: AttrParser, start: int) -> Attribute:
    params = p.kv_params(allowed=_field_names(DotDimensionNumbers), failure="dot")
    return p.expect_ints_struct(DotDimensionNumbers, start, params)


def _channel_handle(p: AttrParser, start: int) -> Attribute:
    params = p.kv_params(allowed=_field_names(ChannelHandle))
    return p.expect_ints_struct(ChannelHandle, start, params, {"handle", "type"})


def _output_operand_alias(p: AttrParser, start: int) -> Attribute:
    params = p.kv_params(allowed=_field_names(OutputOperandAlias))
    return p.expect_ints_struct(OutputOperandAlias, start, params, {"operand_index"})


def _bound_list(p: AttrParser, close: str) -> tuple[int | None, ...]:
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


def _bounds(p: AttrParser, start: int) -> Attribute:
    return TypeExtensions(_bound_list(p, ">"), "bounds")


def _type_extensions(p: AttrParser, start: int) -> Attribute:
    c = p.c
    c.expect_keyword("bounds")
    c.expect("=")
    c.expect("[")
    b = _bound_list(p, "]")
    c.expect(">")
    return TypeExtensions(b, "type_extensions")


def _conv(p: AttrParser, start: int) -> Attribute:
    c = p.c
    if c.accept_keyword("raw"):
        # (upstream's parser of the raw form says "dot dimension numbers" too)
        params = p.kv_params(allowed=_field_names(ConvDimensionNumbers), failure="dot")
        try:
            return ConvDimensionNumbers(**params, raw=True)
        except TypeError as e:
            raise c.error(f"invalid #stablehlo.conv<raw ...>: {e}", start) from None
    cd = p.conv_dims_text()
    c.expect(">")
    return cd


_HEX_FLOAT = re.compile(r"0x[0-9A-Fa-f]+\b(?!\s*:)")
_F64 = FloatType("f64")
_I64 = IntegerType(64)


def _tolerance(a: Attribute, c: lx.Cursor) -> float:
    """A result_accuracy tolerance: an APFloat of f64 (StablehloAttrs.td), where a
    hexadecimal literal is the f64 bit pattern (MLIR's parseFloat), as printed for NaN
    and infinities."""
    if isinstance(a, FloatAttr):
        return float(a.value)
    if isinstance(a, IntegerAttr) and a.type is None:
        return float(a.value)
    raise c.error("a result_accuracy tolerance must be a float")


def _result_accuracy(p: AttrParser, start: int) -> Attribute:
    c = p.c
    vals: dict[str, Any] = {}
    if not c.accept(">"):
        while True:
            key = c.bare_id()
            if key not in ("atol", "rtol", "ulps", "mode"):
                raise c.error(f"unknown result_accuracy parameter '{key}'")
            c.expect("=")
            c.skip()
            hexm = _HEX_FLOAT.match(c.text, c.pos) if key in ("atol", "rtol") else None
            if hexm is not None:  # the f64 bit pattern (NaN, infinities)
                c.pos = hexm.end()
                vals[key] = float_attr_value(hexm.group(0), _F64)
                continue_ = c.accept(">")
                if continue_:
                    break
                c.expect(",", "or '>'")
                continue
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
                vals[key] = _tolerance(a, c)
            if c.accept(">"):
                break
            c.expect(",", "or '>'")
    acc = ResultAccuracy(**vals)
    mode = acc.mode.value if acc.mode is not None else None
    if mode == "HIGHEST" and (acc.atol != 0 or acc.rtol != 0 or acc.ulps != 0):
        # ResultAccuracyAttr's verifier, which MLIR runs when the attribute is parsed
        raise c.error(
            f"Invalid tolerances for ResultAccuracyAttr with mode {mode}, must be all zero.", start
        )
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
    if not all(
        isinstance(t, FloatType)
        for t in (a.lhs_precision_type, a.rhs_precision_type, a.accumulation_type)
    ):
        return "dot algorithm not known to be supported on any hardware"
    return None


def _dot_algorithm(p: AttrParser, start: int) -> Attribute:
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
