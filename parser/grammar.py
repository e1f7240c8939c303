"""MLIR text -> hlorun IR: ``parse_module(text) -> Module``.

The grammar is MLIR's (mlir.llvm.org/docs/LangRef): a module of operations, each in the
generic form ``"dialect.op"(%a) <{props}> ({regions}) {attrs} : (types) -> types`` or in
an op's custom (pretty) form; regions of blocks; types; attributes.  Terminals are
compiled regexes (parser/lexer.py), the structure is parsed by recursive descent
over them, one layer of the syntax per module:

- ``type_syntax``: types (``TypeParser``, the cursor and the parser state);
- ``attr_syntax``: attributes and locations (``AttrParser``);
- ``op_syntax``: the generic op form, regions, blocks, ``func.func`` (``OpParser``);
- ``op_format``: the custom forms opdecl and mixed_ops declare as format strings
  (a plug-in dialect's join through parser/dialects.py), read by one generic parser
  (an op with none in ``default_form``'s); each builds exactly the Operation the
  generic form would give;
- this module: the module level (``module {...}``, aliases, resources) and the entry
  points.

Every failure is a ``ParseError`` carrying ``file:line:col``.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TypeVar

import numpy as np

from . import dense_text
from . import lexer as lx
from .attributes import (
    LiteralError,
)
from .dialects import DialectForms
from .errors import HloError, ParseError
from .ir import (
    Attribute,
    DenseElementsAttr,
    DictionaryAttr,
    Function,
    FunctionType,
    Module,
    Operation,
    StringAttr,
    SymbolRefAttr,
    TensorType,
    Type,
    Value,
)
from .op_format import MODULE_FORM, parse_default
from .op_format import PARSE_FORMS as _DECLARED_FORMS
from .op_syntax import OpParser, _with_location, sort_attrs
from .source import split_input_file
from .type_syntax import _simple_tensor  # re-exported: parser/source.py is its home

__all__ = ["Parser", "parse_module", "split_input_file"]

K = TypeVar("K")
V = TypeVar("V")


# every custom-form parser by op name: the declared formats (opdecl, mixed_ops,
# op_format; a plug-in dialect's load on first use)
CUSTOM_FORMS: dict[str, Callable[..., Operation]] = DialectForms(_DECLARED_FORMS, "FORMS")


# Fast path of the generic op form as MLIR prints it, on one line: ``%r = "d.op"(%a, %b)
# <{props}> {attrs} : (tensor<...>, ...) -> tensor<...>`` (no regions, no successors;
# simple tensor types; an optional trailing ``loc(...)``).  The head ends at the
# operand list; the properties / attributes parse as usual; the function type ends it.
_V = r"%(?:[0-9]+|[A-Za-z_$.\-][A-Za-z0-9_$.\-]*)"
_T = rf"tensor<(?:(?:[0-9]+|\?)x)*{lx.SIMPLE_ELEMENT}>"
_GENERIC_HEAD = re.compile(
    rf'(?:({_V})(?::([0-9]+))? = )?"([A-Za-z_][A-Za-z0-9_$.\-]*)"'
    rf"\(((?:{_V}(?:#[0-9]+)?(?:, {_V}(?:#[0-9]+)?)*)?)\)"
)
_GENERIC_TYPE = re.compile(
    rf" ?: \(((?:{_T}(?:, {_T})*)?)\) -> ({_T}|\((?:{_T}(?:, {_T})*)?\))"
    r"(?=[ \t]*(?:\n|\r|//|$|loc\())"
)
# ``%cst = stablehlo.constant dense<...> : tensor<...>`` with a decimal body or splat
_CONSTANT_HEAD = re.compile(rf"({_V}) = (stablehlo\.constant) dense<(?=[^\"])")
_CONSTANT_TAIL = re.compile(rf"> : ({_T})(?=[ \t]*(?:\n|\r|//|$|loc\())")
_VALUE_PROP = frozenset({"value"})
_CALLEE_PROP = frozenset({"callee"})
_NO_PROPS: frozenset[str] = frozenset()
_FUNC_HEAD = re.compile(
    r"func\.func (?:(public|private|nested) )?@([A-Za-z_$.\-][A-Za-z0-9_$.\-]*)\("
)
_FUNC_ARG = re.compile(rf"({_V}): ({_T})(?:, (?=%)|(?=\)))")
# What starts a line one of the fast paths may take, after its results: ``lastindex``
# says which (2: generic form, 3: constant, 4: call, 5: custom_call, 6: return,
# 7: func.func)
_FAST_START = re.compile(
    rf'({_V}(?::[0-9]+)? = )?(?:(")|(stablehlo\.constant dense<)|((?:func\.)?call )'
    r"|(stablehlo\.custom_call @)|((?:func\.)?return )|(func\.func ))"
)
_USES = rf"{_V}(?:#[0-9]+)?(?:, {_V}(?:#[0-9]+)?)*"
_EOL = r"(?=[ \t]*(?:\n|\r|//|$|loc\())"
# ``return %a, %b : t1, t2`` (parse_return's forms) and ``%r = call @f(%a)`` before its type
_RETURN = re.compile(rf"(return|func\.return) ({_USES}) : ({_T}(?:, {_T})*){_EOL}")
_CALL_HEAD = re.compile(
    rf"(?:({_V})(?::([0-9]+))? = )?(?:func\.)?call (@[A-Za-z_$.\-][A-Za-z0-9_$.\-]*)"
    rf"\(((?:{_USES})?)\)"
)
# ``[%r = ]stablehlo.custom_call @target(%a, %b)`` before its attributes and type
_CUSTOM_CALL_HEAD = re.compile(
    rf"(?:({_V})(?::([0-9]+))? = )?stablehlo\.custom_call @([A-Za-z_$.\-][A-Za-z0-9_$.\-]*)"
    rf"\(((?:{_USES})?)\)"
)
_TARGET_PROP = frozenset({"call_target_name"})
_SIMPLE_TENSOR = lx.SIMPLE_TENSOR_RE
# An attribute dictionary whose meaning is its text alone (no nested dictionary, no
# ``#alias`` / ``!alias``, no ``<...>`` body, strings without escapes): parsed once per
# process, shared (attributes are frozen).
_PLAIN_DICT = re.compile(r'\{(?:[^{}<>#!"\\\n]|"[^"\\\n{}]*")*\}')
_DICT_CACHE: dict[str, tuple[tuple[str, Attribute], ...]] = {}
# ``tensor<..>, tensor<..>`` texts of the one-line fast paths -> their types
_TENSORS_CACHE: dict[str, tuple[Type, ...]] = {}
_CACHE_SIZE = 4096  # entries per memo (cleared when full)
# `` : (ins) -> outs`` texts of the one-line fast paths -> (input types, result types)
_SIGNATURE_CACHE: dict[str, tuple[tuple[Type, ...], tuple[Type, ...]]] = {}
# callee name -> the attributes of a ``func.call`` (frozen: shared)
_CALLEE_CACHE: dict[str, tuple[tuple[str, Attribute], ...]] = {}


# short ``dense<...>`` bodies of ``stablehlo.constant`` (with their type) -> attributes
_SHORT_CONSTANTS: dict[tuple[str, TensorType], tuple[tuple[str, Attribute], ...]] = {}
_TARGETS: dict[str, tuple[str, Attribute]] = {}


def _remember(memo: dict[K, V], key: K, value: V) -> V:
    """Store ``value`` under ``key`` in one of the parser's memos (each is cleared when
    it holds ``_CACHE_SIZE`` entries) and return it."""
    if len(memo) >= _CACHE_SIZE:
        memo.clear()
    memo[key] = value
    return value


def _target_attr(name: str) -> tuple[str, Attribute]:
    """``("call_target_name", StringAttr(name))`` (frozen: shared)."""
    hit = _TARGETS.get(name)
    if hit is None:
        hit = _remember(_TARGETS, name, ("call_target_name", StringAttr(name)))
    return hit


def _callee_attrs(name: str) -> tuple[tuple[str, Attribute], ...]:
    hit = _CALLEE_CACHE.get(name)
    if hit is None:
        hit = _remember(_CALLEE_CACHE, name, (("callee", SymbolRefAttr(name, ())),))
    return hit


class Parser(OpParser):
    """Recursive-descent parser over one text; ``parse_module`` is the entry point."""

    custom_forms = CUSTOM_FORMS
    default_form = staticmethod(parse_default)

    def parse_attr_dict(self) -> tuple[tuple[str, Attribute], ...]:
        """``AttrParser.parse_attr_dict``, memoized on the text of a plain dictionary."""
        c = self.c
        start = c.skip()
        m = _PLAIN_DICT.match(c.text, start)
        if m is None:
            return super().parse_attr_dict()
        key = m.group(0)
        hit = _DICT_CACHE.get(key)
        if hit is not None:
            c.pos = m.end()
            return hit
        entries = super().parse_attr_dict()
        if c.pos == m.end():
            _remember(_DICT_CACHE, key, entries)
        return entries

    def parse_operation(self) -> Operation | Function:
        """An operation; the generic form of a one-line op without regions takes
        ``_generic_fast`` (the same Operation as ``generic_body``), a decimal
        ``stablehlo.constant`` ``_constant_fast`` (the same as ``parse_constant``), else
        ``OpParser``."""
        c = self.c
        start = c.skip()
        text = c.text
        op: Operation | None = None
        head = _FAST_START.match(text, start)
        kind = head.lastindex if head is not None else None
        if kind == 2:
            op = self._generic_fast()
        elif kind == 3:
            m = _CONSTANT_HEAD.match(text, start)
            op = self._constant_fast(m, start) if m is not None else None
        elif kind == 4:
            m = _CALL_HEAD.match(text, start)
            op = self._call_fast(m, start) if m is not None else None
        elif kind == 5:
            m = _CUSTOM_CALL_HEAD.match(text, start)
            op = self._custom_call_fast(m, start) if m is not None else None
        elif kind == 6:
            m = _RETURN.match(text, start)
            op = self._return_fast(m, start) if m is not None else None
        elif kind == 7 and head is not None and head.group(1) is None:
            return self._function_fast(start) or super().parse_operation()
        return op if op is not None else super().parse_operation()

    def _function_fast(self, start: int) -> Function | None:
        """``func.func [vis] @f(%a: tensor<..>, ...) -> (tensor<..> {attrs}, ...) {``
        (arguments without attributes or locations, no ``attributes`` dictionary) as
        func.func's declared form (region_directives.FunctionOp) builds it; None (cursor unmoved) otherwise."""
        c = self.c
        text = c.text
        m = _FUNC_HEAD.match(text, start)
        if m is None:
            return None
        pos = m.end()
        args: list[Value] = []
        while not text.startswith(")", pos):
            a = _FUNC_ARG.match(text, pos)
            types = self._tensors(a.group(2)) if a is not None else None
            if a is None or not types:
                return None
            args.append(Value(a.group(1), types[0]))
            pos = a.end()
        c.pos = pos + 1
        results, res_attrs = self._function_results()
        if results is None or not text.startswith(" {", c.pos):
            c.pos = start
            return None
        self.value_types = {v.name: v.type for v in args}
        where = self.here(start)
        body = self.parse_region(tuple(args), ())
        return Function(
            m.group(2),
            FunctionType(tuple(v.type for v in args), results),
            body,
            m.group(1),
            (),
            res_attrs if any(a is not None for a in res_attrs) else (),
            (),
            self._trailing_location(),
            where,
        )

    def _function_results(self) -> tuple[tuple[Type, ...] | None, tuple]:
        """`` -> tensor<..>`` or `` -> (tensor<..> {attrs}, ...)`` (or nothing)."""
        c = self.c
        text = c.text
        if not text.startswith(" -> ", c.pos):
            return (), ()
        c.pos += 4
        single = _SIMPLE_TENSOR.match(text, c.pos)
        if single is not None:
            c.pos = single.end()
            return self._tensors(single.group(0)), (None,)
        if not text.startswith("(", c.pos):
            return None, ()
        c.pos += 1
        types: list[Type] = []
        attrs: list[DictionaryAttr | None] = []
        while not text.startswith(")", c.pos):
            r = _SIMPLE_TENSOR.match(text, c.pos)
            t = self._tensors(r.group(0)) if r is not None else None
            if r is None or not t:
                return None, ()
            types.append(t[0])
            c.pos = r.end()
            attrs.append(None)
            if text.startswith(" {", c.pos):
                c.pos += 1
                attrs[-1] = DictionaryAttr(self.parse_attr_dict())
            if text.startswith(", ", c.pos):
                c.pos += 2
            elif not text.startswith(")", c.pos):
                return None, ()
        c.pos += 1
        if text.startswith(" ->", c.pos):
            return None, ()  # a function type result: the general parser
        return tuple(types), tuple(attrs)

    def _return_fast(self, m: re.Match, start: int) -> Operation | None:
        """``return %a, %b : t1, t2`` as the declared form of ``func.return`` builds it."""
        types = self._tensors(m.group(3))
        names = m.group(2).split(", ")
        if types is None or len(types) != len(names):
            return None
        self.c.pos = m.end()
        name = "func.return" if m.group(1) == "return" else m.group(1)
        op = Operation(
            name,
            self.make_operands(names, types, start),
            (),
            (),
            (),
            (),
            _NO_PROPS,
            None,
            self.here(start),
        )
        return self._located(op)

    def _call_fast(self, m: re.Match, start: int) -> Operation | None:
        """``%r = call @f(%a) : (t) -> t`` as the declared form of ``func.call`` builds it."""
        c = self.c
        before, c.pos = c.pos, m.end()
        values = self._signature_values(m, start)
        if values is None:
            c.pos = before
            return None
        op = Operation(
            "func.call",
            *values,
            _callee_attrs(m.group(3)[1:]),
            (),
            (),
            _CALLEE_PROP,
            None,
            self.here(start),
        )
        return self._located(op)

    def _custom_call_fast(self, m: re.Match, start: int) -> Operation | None:
        """``%r = stablehlo.custom_call @t(%a) {attrs} : (t) -> t`` as
        the declared form of ``stablehlo.custom_call`` builds it (a bare, unnested target)."""
        c = self.c
        c.pos = m.end()
        attrs: tuple = ()
        if c.text.startswith(" {", c.pos):
            c.pos += 1
            attrs = self.parse_attr_dict()
        values = self._signature_values(m, start)
        if values is None:
            c.pos = start
            return None
        op = Operation(
            "stablehlo.custom_call",
            *values,
            sort_attrs((_target_attr(m.group(3)),) + attrs),
            (),
            (),
            _TARGET_PROP,
            None,
            self.here(start),
        )
        return self._located(op)

    def _signature_values(
        self, m: re.Match, start: int
    ) -> tuple[tuple[Value, ...], tuple[Value, ...]] | None:
        """At ``: (ins) -> outs`` after a fast-path op head ``m`` (groups 1-2: results,
        4: operand names): its operand and result values, or None (nothing consumed)
        when a type is not a plain builtin tensor."""
        c = self.c
        t = _GENERIC_TYPE.match(c.text, c.pos)
        if t is None:
            return None
        sig = _SIGNATURE_CACHE.get(t.group(0))
        if sig is None:
            outs = t.group(2)
            ins = self._tensors(t.group(1))
            results = self._tensors(outs[1:-1] if outs.startswith("(") else outs)
            if ins is None or results is None:
                return None
            sig = _remember(_SIGNATURE_CACHE, t.group(0), (ins, results))
        ins, results = sig
        c.pos = t.end()
        names = m.group(4).split(", ") if m.group(4) else []
        defs = [(m.group(1), int(m.group(2)) if m.group(2) else None)] if m.group(1) else []
        return self.make_operands(names, ins, start), self.make_results(defs, results, start)

    def _located(self, op: Operation) -> Operation:
        """``op`` with the trailing ``loc(...)`` if one follows."""
        c = self.c
        p = c.skip()
        if p < c.n and c.text[p] == "l":
            loc = self.trailing_location()
            if loc is not None:
                return _with_location(op, loc)
        return op

    def _constant_fast(self, m: re.Match, start: int) -> Operation | None:
        c = self.c
        text = c.text
        end = text.find(">", m.end())
        t = _CONSTANT_TAIL.match(text, end) if end > 0 else None
        if t is None or text.find("<", m.end(), end) >= 0:
            return None
        types = self._tensors(t.group(1))
        ttype = types[0] if types else None
        if not isinstance(ttype, TensorType):
            return None
        body = text[m.end() : end]
        short = len(body) <= 16  # ``dense<true>``, ``dense<0.000000e+00>``: they recur
        attrs = _SHORT_CONSTANTS.get((body, ttype)) if short else None
        if attrs is None:
            value = dense_text.decode(body, ttype)
            if value is None:
                return None
            attrs = (("value", DenseElementsAttr(ttype, value, False)),)
            if short:  # the array is read-only and the attribute frozen: shared
                _remember(_SHORT_CONSTANTS, (body, ttype), attrs)
        c.pos = t.end()
        op = Operation(
            m.group(2),
            (),
            self.make_results([(m.group(1), None)], (ttype,), start),
            attrs,
            (),
            (),
            _VALUE_PROP,
            None,
            self.here(start),
        )
        return self._located(op)

    def _generic_fast(self) -> Operation | None:
        c = self.c
        start = c.pos
        text = c.text
        m = _GENERIC_HEAD.match(text, start)
        if m is None or m.group(3) == "func.func":
            return None
        c.pos = m.end()
        props: tuple = ()
        attrs: tuple = ()
        if text.startswith(" <{", c.pos):
            c.pos += 2
            props = self.parse_attr_dict()
            c.expect(">", "after properties")
        if text.startswith(" {", c.pos):
            c.pos += 1
            attrs = self.parse_attr_dict()
        values = self._signature_values(m, start)
        if values is None:
            c.pos = start
            return None
        op = Operation(
            m.group(3),
            *values,
            sort_attrs(props + attrs),
            (),
            (),
            frozenset(k for k, _ in props),
            None,
            self.here(start),
        )
        return self._located(op)

    def _tensors(self, text: str) -> tuple[Type, ...] | None:
        """``tensor<...>, tensor<...>`` as types (memoized per process on the exact
        text: types are frozen), or None when one is not a builtin element type."""
        hit = _TENSORS_CACHE.get(text)
        if hit is not None:
            return hit
        out = []
        for part in text.split(", ") if text else ():
            m = _SIMPLE_TENSOR.fullmatch(part)
            t = _simple_tensor(m.group(1), m.group(2)) if m is not None else None
            if t is None:
                return None
            out.append(t)
        return _remember(_TENSORS_CACHE, text, tuple(out))

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
            if c.text.startswith('"builtin.module"', start):
                modules.append(self._generic_module(start))
                continue
            save = c.pos
            w = c.bare_id()
            if w in ("module", "builtin.module"):
                modules.append(MODULE_FORM.parse_module(self, start))
                continue
            c.pos = save
            items.append(self.parse_operation())
        if modules:
            if len(modules) > 1 or items:
                raise c.error(
                    "a file holds either one `module { ... }` or top-level "
                    "operations, not both (nested modules are not supported)"
                )
            name, attrs, body, loc, pos = modules[0]
            return Module(
                body, name, attrs, tuple(self.alias_defs), tuple(self.resources), False, loc, pos
            )
        return Module(
            tuple(items),
            None,
            (),
            tuple(self.alias_defs),
            tuple(self.resources),
            True,
            None,
            c.location(0),
        )

    def _generic_module(self, start: int):
        """``"builtin.module"() <{props}>? ({ ^bb0:? ops }) {attrs}? : () -> () loc?``:
        a module in MLIR's generic op form (``--mlir-print-op-generic``).  Its
        ``sym_name`` (a property or an attribute) is the module's name."""
        c = self.c
        where = self.here(start)
        c.pos += len('"builtin.module"')
        c.expect("(", "after the op name")
        c.expect(")", "a module has no operands")
        props: tuple = ()
        if c.accept("<"):
            props = self.parse_attr_dict()
            c.expect(">", "to close the properties")
        c.expect("(", "to open the module's region")
        c.expect("{", "to open the module body")
        c.skip()
        if c.text.startswith("^", c.pos):
            c.expect_match(lx.CARET_ID_RE, "a block label")
            c.expect(":", "after the block label")
        items = MODULE_FORM.items(self, start)
        c.expect(")", "to close the module's region")
        attrs: tuple = ()
        c.skip()
        if c.text.startswith("{", c.pos):
            attrs = self.parse_attr_dict()
        c.expect(":", "before the module's type")
        for tok in ("(", ")", "->", "(", ")"):
            c.expect(tok, "in the module's type '() -> ()'")
        loc = self._trailing_location()
        name = None
        kept = []
        for key, value in (*props, *attrs):
            if key == "sym_name":
                if not isinstance(value, StringAttr):
                    raise c.error("the module's sym_name must be a string", start)
                name = value.value
            else:
                kept.append((key, value))
        return name, tuple(kept), items, loc, where

    def _alias_definition(self, sigil: str) -> None:
        c = self.c
        start = c.pos
        m = c.expect_match(lx.HASH_ID_RE if sigil == "#" else lx.BANG_ID_RE, "an alias name")
        name = m.group(0)
        if "." in name:
            raise c.error(f"alias names cannot contain '.': '{name}'", start)
        c.expect("=", f"after alias '{name}'")
        value: Attribute | Type
        if sigil == "#":
            value = self.attr_aliases[name] = self.parse_attribute()
        else:
            value = self.type_aliases[name] = self.parse_type()
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
                                key = c.expect_match(
                                    re.compile(r"[A-Za-z0-9_.\-$]+"), "a resource key"
                                ).group(0)
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
    except (
        LiteralError,
        ValueError,
        TypeError,
        KeyError,
        IndexError,
        OverflowError,
        AttributeError,
        AssertionError,
        StopIteration,
        np.exceptions.AxisError,
        MemoryError,
    ) as e:
        raise p.error(f"invalid input ({type(e).__name__}: {e})") from None
