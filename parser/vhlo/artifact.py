"""StableHLO portable artifacts: the serialization API of stablehlo/api/PortableApi.h
and stablehlo/dialect/Serialization.h, in pure Python (docs/compatibility.md,
docs/vhlo.md, docs/bytecode.md).

- ``serialize_portable_artifact(module, target_version)``: StableHLO -> VHLO ->
  VHLO at ``target_version`` -> MLIR bytecode (the bytecode format version
  ``Version::getBytecodeVersion`` picks, producer ``StableHLO_v<target>``);
- ``deserialize_portable_artifact(data)``: MLIR bytecode -> VHLO of the artifact's
  version -> current VHLO -> StableHLO.  Unversioned ``stablehlo`` bytecode
  (``stablehlo-opt -emit-bytecode``) is returned as it was written;
- ``get_portable_artifact_version(data)``: the version in the producer string.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable

from .. import parse_module
from ..bytecode.reader import read_bytecode
from ..bytecode.sections import read_header
from ..bytecode.writer import write_bytecode
from ..errors import ParseError
from ..ir import Block, Function, LocationAttr, Module, Operation
from .common import unwrap_generic_module
from .convert import vhlo_to_version
from .from_vhlo import legalize_to_stablehlo
from .to_vhlo import KEEP_SDY, AllowOther
from .to_vhlo_ops import legalize_to_vhlo
from .version import (
    CURRENT,
    Version,
    get_bytecode_version,
    get_current_version,
    get_minimum_version,
    get_version_from_compatibility_requirement,
    resolve_target,
    validate_target,
)
from .walk import map_blocks, map_body, rebuild_blocks

__all__ = [
    "deserialize_portable_artifact",
    "get_current_version",
    "get_minimum_version",
    "get_portable_artifact_version",
    "get_version_from_compatibility_requirement",
    "is_vhlo_module",
    "serialize_portable_artifact",
    "strip_debuginfo",
]

_PRODUCER = re.compile(r"^StableHLO_v(\d+\.\d+\.\d+)$")


def get_portable_artifact_version(data: bytes, filename: str = "<bytes>") -> str:
    """``X.Y.Z`` of an artifact's producer string ``StableHLO_vX.Y.Z``; a ParseError
    for anything else (text, plain MLIR bytecode)."""
    producer = read_header(bytes(data), filename).producer
    m = _PRODUCER.match(producer)
    if m is None:
        raise ParseError(
            f"{filename}: not a StableHLO portable artifact (producer {producer!r}, "
            "expected 'StableHLO_vX.Y.Z')"
        )
    return m.group(1)


def deserialize_portable_artifact(data: bytes, filename: str = "<bytes>") -> Module:
    """The StableHLO module of a portable artifact (or of unversioned bytecode)."""
    module = unwrap_generic_module(read_bytecode(data, filename))
    if not is_vhlo_module(module):
        return module
    return legalize_to_stablehlo(vhlo_to_version(module, CURRENT))


def read_vhlo(data: bytes, filename: str = "<bytes>") -> Module:
    """The module as stored: VHLO ops for an artifact (what ``stablehlo-opt`` prints)."""
    return unwrap_generic_module(read_bytecode(data, filename))


def serialize_portable_artifact(
    module: Module | str,
    target_version: str,
    *,
    strip_debuginfo: bool = False,
    allow_other_dialects: AllowOther = KEEP_SDY,
) -> bytes:
    """The bytes the official serializer writes for ``module`` at ``target_version``
    (``X.Y.Z``, ``current`` or ``minimum``; a patch version serves its release).
    ``module`` may be StableHLO or VHLO (text or IR); an op, attribute or type with no
    form at the target raises a VerificationError naming it.  ``allow_other_dialects``:
    the dialects whose ops and attributes stay as they are next to the VHLO ops
    (True: all); by default ``sdy``, as jax serializes a Shardy module."""
    module = unwrap_generic_module(parse_module(module) if isinstance(module, str) else module)
    target = validate_target(resolve_target(target_version), module.pos)
    if strip_debuginfo:  # (the flag shadows the function of that name here)
        module = map_locations(module, _no_location)
    else:
        module = resolve_location_aliases(module)
    if not is_vhlo_module(module) or _has_unversioned(module):
        module = legalize_to_vhlo(module, allow_other_dialects=allow_other_dialects)
    late: list[Operation] = []
    vhlo = vhlo_to_version(module, target, late_ops=late)
    return write_bytecode(
        vhlo, get_bytecode_version(target), f"StableHLO_v{target}", late_ops=tuple(late)
    )


def is_vhlo_module(module: Module) -> bool:
    """True when the module's top-level ops are VHLO (``vhlo.func_v1``...)."""
    return any(isinstance(op, Operation) and op.name.startswith("vhlo.") for op in module.body)


def _has_unversioned(module: Module) -> bool:
    return any(isinstance(op, Function) for op in module.body) or any(
        isinstance(op, Operation) and not op.name.startswith("vhlo.") for op in module.body
    )


def strip_debuginfo(module: Module) -> Module:
    """``--strip-debuginfo``: every location becomes unknown (None)."""
    return map_locations(module, _no_location)


def _no_location(loc: LocationAttr | None) -> None:
    return None


LocMap = Callable[[LocationAttr | None], LocationAttr | None]


def map_locations(module: Module, fn: LocMap) -> Module:
    """``module`` with every location (module, functions, ops, block arguments) through
    ``fn``."""

    def block(b: Block) -> Block:
        args = tuple(fn(x) for x in b.arg_locations)
        return Block(
            b.arguments,
            tuple(op(o) for o in b.operations),
            b.label,
            () if all(x is None for x in args) else args,
        )

    def op(o: Operation) -> Operation:
        return rebuild_blocks(o, block, location=fn(o.location))

    def item(x: Function | Operation) -> Function | Operation:
        if isinstance(x, Function):
            body = map_blocks(x.body, block) if x.body is not None else None
            return dataclasses.replace(x, body=body, location=fn(x.location))
        return op(x)

    return map_body(module, item, location=fn(module.location))


_LOC_ALIAS = re.compile(r"#loc[\w$.-]*")


def resolve_location_aliases(module: Module) -> Module:
    """Locations written as ``loc(#loc3)`` (the text's ``#loc3 = loc(...)`` aliases, as
    jax.export prints them) replaced by what they stand for, so that the bytecode
    writer encodes the location itself, as MLIR holds it in memory."""
    table = {name: a.text for name, a in module.aliases if isinstance(a, LocationAttr)}
    if not table:
        return module
    done: dict[str, str] = {}

    def expand(text: str, depth: int = 0) -> str:
        if depth > 64:
            raise ParseError(f"location aliases nest too deeply at {text[:40]!r}")

        def one(m: re.Match[str]) -> str:
            name = m.group(0)
            if name not in table:
                return name
            if name not in done:
                done[name] = expand(table[name], depth + 1)
            return done[name]

        body = _LOC_ALIAS.sub(one, text)
        return body

    def fn(loc: LocationAttr | None) -> LocationAttr | None:
        if loc is None or "#loc" not in loc.text:
            return loc
        text = expand(loc.text)
        return LocationAttr(text)

    # a bare alias reference stands for the whole location; inside a location (callsite,
    # fused) it stands for a nested location, which MLIR writes as loc(...) there
    return map_locations(module, fn)


def version_of(text: str) -> Version:
    """A ``Version`` from ``X.Y.Z`` text."""
    return Version.of(text)
