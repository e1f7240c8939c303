"""MLIR text -> hlorun IR: ``parse_module(text) -> Module``.

The grammar is MLIR's (mlir.llvm.org/docs/LangRef): a module of operations, each in the
generic form ``"dialect.op"(%a) <{props}> ({regions}) {attrs} : (types) -> types`` or in
an op's custom (pretty) form; regions of blocks; types; attributes.  Terminals are
pyparsing ``Regex`` tokens (parser/lexer.py), the structure is parsed by recursive descent
over them, one layer of the syntax per module:

- ``type_syntax``: types (``TypeParser``, the cursor and the parser state);
- ``attr_syntax``: attributes and locations (``AttrParser``);
- ``op_syntax``: the generic op form, regions, blocks, ``func.func`` (``OpParser``);
- ``pretty_ops`` / ``pretty_regions``: the custom forms, by op family, each building
  exactly the Operation the generic form would give (attributes as ``opdecl`` declares);
- this module: the module level (``module {...}``, aliases, resources) and the entry
  points.

Every failure is a ``ParseError`` carrying ``file:line:col``.
"""

from __future__ import annotations

import re
from collections.abc import Callable

import numpy as np

from . import lexer as lx
from .attr_syntax import _symbol_name
from .attributes import (
    LiteralError,
)
from .errors import HloError, ParseError
from .ir import (
    Attribute,
    Module,
    Operation,
    Type,
)
from .op_syntax import OpParser
from .pretty_ops import FORMS as _SIMPLE_FORMS
from .pretty_ops import parse_default
from .pretty_regions import FORMS as _REGION_FORMS
from .pretty_sdy import FORMS as _SDY_FORMS
from .source import split_input_file  # re-exported: parser/source.py is its home

__all__ = ["Parser", "parse_module", "split_input_file"]

CUSTOM_FORMS: dict[str, Callable[..., Operation]] = {
    **_SIMPLE_FORMS,
    **_REGION_FORMS,
    **_SDY_FORMS,
}


class Parser(OpParser):
    """Recursive-descent parser over one text; ``parse_module`` is the entry point."""

    custom_forms = CUSTOM_FORMS
    default_form = staticmethod(parse_default)

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
