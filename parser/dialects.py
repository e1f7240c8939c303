"""The dialects hlorun reads and writes, and how a dialect plugs into the core.

The core (lexer, type / attribute / op grammar, printer, bytecode reader and writer)
builds in the builtin and func dialects and the StableHLO family (stablehlo, chlo,
check, mhlo).  Other dialects plug in as MLIR's do: a dialect registers with a registry
(``mlir/include/mlir/IR/DialectRegistry.h``) and extends the parser and the printer
through its hooks (``Dialect::parseAttribute`` / ``parseType`` / ``printAttribute`` /
``printType``, an op's custom assembly form) and bytecode through its
``BytecodeDialectInterface``.  Here a plug-in module calls ``register`` with a
``Dialect`` naming its hooks; the core asks ``lookup(name)`` when a program mentions the
dialect (``#sdy.mesh<...>``, ``!vhlo.f32_v1``, an ``sdy.`` op, a dialect of a bytecode
file), which imports the plug-in module then, by its name in ``PLUGINS``.  So no core
module imports a plug-in (the import graph stays acyclic: tests/test_layering.py) and a
program that does not mention a dialect does not load it (startup: issue 19).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any

from .errors import UnsupportedError

__all__ = [
    "CORE",
    "PLUGINS",
    "Dialect",
    "DialectForms",
    "all_dialects",
    "lookup",
    "print_attribute",
    "print_type",
    "register",
]


class Dialect:
    """One dialect: its name (the prefix of its op names, ``sdy`` of ``sdy.mesh``) and
    the hooks through which the core reaches what it does not build in.

    - ``parse_attribute``: ``#name<...>`` / ``#name.kind<...>``: (parser, full name,
      offset of the ``#``) -> Attribute; the parser's cursor stands after the name.
    - ``parse_type``: ``!name.kind<...>``: (parser, full name, offset of the ``!``) ->
      Type.
    - ``print_attribute`` / ``print_type``: its attributes / types as text: (value,
      attribute printer, type printer) -> str; an attribute or type class of the
      dialect names it in its ``dialect`` attribute.
    - ``custom_forms``: its ops' custom forms: table name (``FORMS``: parsers,
      ``PRINT_FORMS``: printers) -> {op name: parser or printer} (``DialectForms``).
    - ``codec``: the module that registers its bytecode codec
      (parser/bytecode/dialect_api.py), relative to this package
      (``.vhlo.bytecode_codec``) or absolute.
    - ``ops``: the module that declares its ops (``OpDecl`` rows: operands,
      attributes, regions, text form), relative to this package (``.opdecl``).

    A plain class, not a dataclass: this module loads with the grammar (startup)."""

    __slots__ = (
        "name",
        "parse_attribute",
        "parse_type",
        "print_attribute",
        "print_type",
        "custom_forms",
        "codec",
        "ops",
    )

    def __init__(
        self,
        name: str,
        *,
        parse_attribute: Callable[[Any, str, int], Any] | None = None,
        parse_type: Callable[[Any, str, int], Any] | None = None,
        print_attribute: Callable[[Any, Callable, Callable], str] | None = None,
        print_type: Callable[[Any, Callable, Callable], str] | None = None,
        custom_forms: Callable[[str], Mapping[str, Callable]] | None = None,
        codec: str | None = None,
        ops: str | None = None,
    ) -> None:
        self.name = name
        self.parse_attribute = parse_attribute
        self.parse_type = parse_type
        self.print_attribute = print_attribute
        self.print_type = print_type
        self.custom_forms = custom_forms
        self.codec = codec
        self.ops = ops

    def __repr__(self) -> str:
        return f"Dialect({self.name!r})"


# The dialects the core builds in (their syntax is the grammar's and the printer's own).
CORE: dict[str, Dialect] = {
    d.name: d
    for d in (
        Dialect("builtin", codec=".bytecode.builtin_codec"),
        Dialect("func", ops=".opdecl"),
        Dialect("stablehlo", codec=".bytecode.stablehlo_codec", ops=".opdecl"),
        Dialect("chlo", codec=".bytecode.stablehlo_codec", ops=".opdecl"),
        Dialect("check", ops=".opdecl"),
        Dialect("mhlo", ops=".opdecl"),
        # the interpreter's test dialect and arith's constant, as StableHLO tests use them
        Dialect("interpreter", ops=".opdecl"),
        Dialect("arith", ops=".opdecl"),
    )
}

# Plug-in dialects: name -> the module (relative to this package, or absolute) that
# registers it when imported.
PLUGINS: dict[str, str] = {
    "sdy": ".sdy.dialect",  # Shardy: parser/sdy/
    "vhlo": ".vhlo.dialect",  # VHLO: parser/vhlo/
}

_REGISTERED: dict[str, Dialect] = {}


def register(dialect: Dialect) -> None:
    """Register ``dialect`` (a plug-in module calls this when imported)."""
    _REGISTERED[dialect.name] = dialect


def lookup(name: str) -> Dialect | None:
    """The dialect ``name`` (importing its plug-in module on first use), or None for a
    dialect hlorun does not know (its ops, attributes and types stay opaque)."""
    d = _REGISTERED.get(name) or CORE.get(name)
    if d is None and name in PLUGINS:
        importlib.import_module(PLUGINS[name], __package__)
        d = _REGISTERED.get(name)
        if d is None:
            raise RuntimeError(f"{PLUGINS[name]} did not register the dialect '{name}'")
    return d


def all_dialects() -> list[Dialect]:
    """Every known dialect, core and plug-in (imports the plug-in modules)."""
    return [*CORE.values(), *(d for name in PLUGINS if (d := lookup(name)) is not None)]


def _hook(dialect_name: str, hook: str, value: Any) -> Callable:
    d = lookup(dialect_name)
    fn = getattr(d, hook, None) if d is not None else None
    if fn is None:
        kind = type(value).__name__
        raise UnsupportedError(f"dialect '{dialect_name}' has no {hook} hook for {kind}")
    return fn


def print_attribute(a: Any, attr: Callable, type_: Callable) -> str:
    """``a`` as text, by its dialect's printer (``a.dialect`` names the dialect)."""
    return _hook(a.dialect, "print_attribute", a)(a, attr, type_)


def print_type(t: Any, attr: Callable, type_: Callable) -> str:
    """``t`` as text, by its dialect's printer (``t.dialect`` names the dialect)."""
    return _hook(t.dialect, "print_type", t)(t, attr, type_)


class DialectForms(dict):
    """``forms`` (the core's custom forms, by op name) plus the ``table`` of every
    plug-in dialect (``Dialect.custom_forms``), added on the first lookup (``[]``,
    ``get``, ``in``) of one of its ops that the table does not hold yet."""

    def __init__(self, forms: Mapping[str, Any], table: str) -> None:
        super().__init__(forms)
        self._table = table
        # the op-name prefixes of the plug-ins whose forms are not in yet
        self._pending = tuple(f"{name}." for name in PLUGINS)

    def _load(self, name: object) -> bool:
        """Add the forms of ``name``'s plug-in dialect if not in yet; True if added."""
        if not (self._pending and isinstance(name, str) and name.startswith(self._pending)):
            return False
        dialect = name.partition(".")[0]
        self._pending = tuple(p for p in self._pending if p != f"{dialect}.")
        d = lookup(dialect)
        if d is not None and d.custom_forms is not None:
            self.update(d.custom_forms(self._table))
        return True

    def get(self, name: str, default: Any = None) -> Any:
        # the parser and the printer look up every op: a hit costs one dict lookup
        hit = dict.get(self, name, _MISSING)
        if hit is _MISSING:
            return dict.get(self, name, default) if self._load(name) else default
        return hit

    def __missing__(self, name: str) -> Any:
        if self._load(name):
            return self[name]
        raise KeyError(name)

    def __contains__(self, name: object) -> bool:
        return dict.__contains__(self, name) or (self._load(name) and dict.__contains__(self, name))


_MISSING = object()
