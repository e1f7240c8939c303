"""The pytree definitions of a ``jax.export`` container, without jax.

jax/_src/export/serialization.fbs ``PyTreeDef``: a node kind (leaf, none, tuple, list,
dict, custom), its children, the keys of a dict (in jax's sorted order), and for a
custom node the name it was registered under and its serialized auxdata
(jax/_src/export/_export.py ``register_pytree_node_serialization``).  What the format
lets us rebuild without the Python class:

- ``collections.OrderedDict`` (jax registers it, auxdata: the JSON list of its keys);
- namedtuples (``register_namedtuple_serialization``, auxdata: the JSON list of the
  field names): accepted as any tuple, list, mapping or object with those fields, and
  returned as a namedtuple of that name;
- any other custom node (a dataclass registered with its own auxdata codec) only
  through ``register_pytree_node(serialized_name, flatten, unflatten)``; otherwise an
  ``UnsupportedError`` names it when a call has to flatten or build it.

Flattening follows jax's order: children left to right, dict values by sorted key.
"""

from __future__ import annotations

import json
import re
from collections import OrderedDict, namedtuple
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from functools import cache
from typing import Any

from ..parser.errors import InterpreterError, UnsupportedError

MAX_DEPTH = 256
"""Deepest pytree a container may describe (deeper ones are refused as malformed)."""

ORDERED_DICT = "collections.OrderedDict"

# serialized_name -> (flatten(obj) -> children, unflatten(auxdata, children) -> obj)
_CUSTOM: dict[str, tuple[Callable[[Any], list[Any]], Callable[[bytes, list[Any]], Any]]] = {}


def register_pytree_node(
    serialized_name: str,
    flatten: Callable[[Any], list[Any]],
    unflatten: Callable[[bytes, list[Any]], Any],
) -> None:
    """Teach hlorun a custom pytree node of exported containers (the ``serialized_name``
    it was registered under with ``jax.export.register_pytree_node_serialization``):
    ``flatten(obj)`` gives its children in jax's order, ``unflatten(auxdata, children)``
    rebuilds it (``auxdata``: the bytes jax stored)."""
    _CUSTOM[serialized_name] = (flatten, unflatten)


@dataclass(frozen=True)
class TreeDef:
    """One node of a pytree definition (``kind``: leaf, none, tuple, list, dict, custom).

    ``keys``: a dict's keys, or the fields of a namedtuple / OrderedDict custom node."""

    kind: str
    children: tuple[TreeDef, ...] = ()
    keys: tuple[str, ...] | None = None
    custom_name: str | None = None
    custom_auxdata: bytes = b""

    @property
    def num_leaves(self) -> int:
        if self.kind == "leaf":
            return 1
        return sum(c.num_leaves for c in self.children)

    def __str__(self) -> str:
        return _spell(self)

    def flatten(self, value: Any, path: str = "") -> list[Any]:
        """The leaves of ``value`` in jax's order; an ``InterpreterError`` naming the
        path where ``value`` does not have this structure."""
        out: list[Any] = []
        _flatten(self, value, path, out)
        return out

    def unflatten(self, leaves: list[Any]) -> Any:
        """The pytree of this structure holding ``leaves`` (jax's order)."""
        it = iter(leaves)
        value = _build(self, it)
        if next(it, _END) is not _END:
            raise InterpreterError(f"{len(leaves)} leaves for a tree of {self.num_leaves}")
        return value


_END = object()


def custom_fields(name: str, auxdata: bytes, nchildren: int) -> tuple[str, ...] | None:
    """The field names a namedtuple / OrderedDict auxdata holds (a JSON list of strings
    with one name per child), or None when the auxdata is something else."""
    try:
        fields = json.loads(auxdata.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        return None
    if (
        isinstance(fields, list)
        and len(fields) == nchildren
        and all(isinstance(f, str) for f in fields)
    ):
        return tuple(fields)
    return None


def _spell(t: TreeDef) -> str:
    """jax's spelling of a PyTreeDef's inside: ``((*, *), {'b': *})``, custom nodes as
    ``CustomNode(namedtuple[Pair], [*, *])`` (the class name: the serialized name's
    last dotted part) or ``CustomNode(OrderedDict[('a', 'b')], [*, *])``."""
    kids = [_spell(c) for c in t.children]
    if t.kind == "leaf":
        return "*"
    if t.kind == "none":
        return "None"
    if t.kind == "tuple":
        return "(" + ", ".join(kids) + ("," if len(kids) == 1 else "") + ")"
    if t.kind == "list":
        return "[" + ", ".join(kids) + "]"
    if t.kind == "dict":
        return "{" + ", ".join(f"{k!r}: {v}" for k, v in zip(t.keys or (), kids)) + "}"
    if t.custom_name == ORDERED_DICT:
        node = f"OrderedDict[{tuple(t.keys or ())!r}]"
    elif t.keys is not None and t.custom_name not in _CUSTOM:
        node = f"namedtuple[{(t.custom_name or '').rsplit('.', 1)[-1]}]"
    else:
        node = f"{t.custom_name}[{t.custom_auxdata!r}]"
    return f"CustomNode({node}, [{', '.join(kids)}])"


def _what(value: Any) -> str:
    if value is None:
        return "None"
    if isinstance(value, tuple | list | Mapping):
        return f"a {type(value).__name__} of {len(value)}"
    return type(value).__name__


def _mismatch(path: str, want: str, value: Any) -> InterpreterError:
    return InterpreterError(f"{path or 'the arguments'}: expected {want}, got {_what(value)}")


def _flatten(t: TreeDef, value: Any, path: str, out: list[Any]) -> None:
    kind = t.kind
    if kind == "leaf":
        if value is None or isinstance(value, tuple | list | dict):
            raise _mismatch(path, "an array", value)
        out.append(value)
        return
    if kind == "none":
        if value is not None:
            raise _mismatch(path, "None", value)
        return
    children = _children(t, value, path)
    for i, (c, v) in enumerate(zip(t.children, children)):
        _flatten(c, v, _child_path(t, path, i), out)


def _child_path(t: TreeDef, path: str, i: int) -> str:
    keys = t.keys or ()
    if i < len(keys) and (t.kind == "dict" or t.custom_name == ORDERED_DICT):
        return f"{path}[{keys[i]!r}]"
    if i < len(keys):
        return f"{path}.{keys[i]}"
    return f"{path}[{i}]"


def _children(t: TreeDef, value: Any, path: str) -> list[Any]:
    """The children of ``value`` as node ``t`` holds them (checked: kind, count, keys)."""
    n = len(t.children)
    if t.kind == "tuple":
        if not isinstance(value, tuple) or len(value) != n:
            raise _mismatch(path, f"a tuple of {n}", value)
        return list(value)
    if t.kind == "list":
        if not isinstance(value, list) or len(value) != n:
            raise _mismatch(path, f"a list of {n}", value)
        return value
    if t.kind == "dict":
        return _by_keys(t, value, path)
    assert t.custom_name is not None
    if t.custom_name in _CUSTOM:
        children = list(_CUSTOM[t.custom_name][0](value))
        if len(children) != n:
            raise _mismatch(path, f"{t.custom_name} with {n} children", value)
        return children
    if t.custom_name == ORDERED_DICT:
        return _by_keys(t, value, path)
    if t.keys is None:
        raise _opaque(t)
    return _fields(t, value, path)


def _by_keys(t: TreeDef, value: Any, path: str) -> list[Any]:
    keys = t.keys or ()
    if not isinstance(value, Mapping) or set(value) != set(keys):
        got = sorted(map(str, value)) if isinstance(value, Mapping) else _what(value)
        raise InterpreterError(
            f"{path or 'the arguments'}: expected a dict with keys {list(keys)}, got {got}"
        )
    return [value[k] for k in keys]


def _fields(t: TreeDef, value: Any, path: str) -> list[Any]:
    """A namedtuple node's children: from a tuple / list, a mapping, or attributes."""
    keys = t.keys or ()
    if isinstance(value, tuple | list):
        if len(value) == len(keys):
            return list(value)
    elif isinstance(value, Mapping):
        return _by_keys(t, value, path)
    elif all(hasattr(value, k) for k in keys):
        return [getattr(value, k) for k in keys]
    raise _mismatch(path, f"{t.custom_name} with fields {list(keys)}", value)


def _opaque(t: TreeDef) -> UnsupportedError:
    return UnsupportedError(
        f"pytree node '{t.custom_name}' (a custom type registered with "
        "jax.export.register_pytree_node_serialization) has no known layout: register it "
        "with hlorun.engine.exported_tree.register_pytree_node"
    )


def _build(t: TreeDef, leaves: Iterator[Any]) -> Any:
    if t.kind == "leaf":
        value = next(leaves, _END)
        if value is _END:
            raise InterpreterError("too few leaves for the tree")
        return value
    if t.kind == "none":
        return None
    children = [_build(c, leaves) for c in t.children]
    if t.kind == "tuple":
        return tuple(children)
    if t.kind == "list":
        return children
    if t.kind == "dict":
        return dict(zip(t.keys or (), children))
    assert t.custom_name is not None
    if t.custom_name in _CUSTOM:
        return _CUSTOM[t.custom_name][1](t.custom_auxdata, children)
    if t.custom_name == ORDERED_DICT:
        return OrderedDict(zip(t.keys or (), children))
    if t.keys is None:
        raise _opaque(t)
    return _namedtuple(t.custom_name, t.keys)(*children)


@cache
def _namedtuple(name: str, fields: tuple[str, ...]) -> type:
    """A namedtuple class standing for the exported one (named by its last dotted part)."""
    base = re.sub(r"\W", "_", name.rsplit(".", 1)[-1]) or "Node"
    if not base[0].isalpha():
        base = "N" + base
    return namedtuple(base, fields, rename=True)  # type: ignore[misc]  # noqa: PYI024
