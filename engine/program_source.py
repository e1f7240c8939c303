"""The one input reader of every ``hlorun`` sub-command: ``read_program(path)``.

What a user hands a command, and what it becomes:

- MLIR text (UTF-8; ``--split-input-file`` chunks) -> kind ``text``;
- MLIR bytecode: a portable artifact (VHLO) or unversioned bytecode -> ``bytecode``;
- a ``jax.export`` container (``Exported.serialize()`` bytes, engine/exported.py) ->
  ``exported``: its portable artifact, with the container beside it;
- ``-``: standard input, any of the above;
- a folder PyTorch/XLA saved a model to (``save_as_stablehlo``) -> ``saved_model``.

Anything else is refused with one located ``ParseError``: a missing path, a folder, a
file that cannot be read, bytes that are none of the above (the byte offset where
UTF-8 decoding failed), a malformed container (its byte offset and field).

Kinds are tried in the order of ``READERS``; a new kind of input is one more entry
there (``FOLDER_READERS`` for a kind that is a folder).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..parser.bytecode.encoding import byte_error, is_bytecode
from ..parser.source import Chunk, looks_like_exported, read_file, split_input

if TYPE_CHECKING:
    from ..parser.ir import Module

STDIN = "-"


@dataclass
class ProgramSource:
    """A program as read: ``text`` (kind ``text``) or ``data`` (the bytecode of kinds
    ``bytecode`` and ``exported``); ``exported``: the ``ExportedProgram`` of a
    container.  ``name`` is the file name messages give (``<stdin>`` for ``-``)."""

    name: str
    kind: str
    text: str | None = None
    data: bytes | None = None
    exported: Any = None
    _module: Any = field(default=None, repr=False)

    @property
    def lines(self) -> list[str]:
        """The source lines (for a parse error's caret); none for bytecode."""
        return self.text.splitlines() if self.text is not None else []

    def chunks(self, split: bool = False) -> list[Chunk | None]:
        """The text's ``// -----`` chunks when ``split``; ``[None]`` (the whole program)
        for bytecode."""
        if self.text is None:
            return [None]
        return list(split_input(self.text, split))

    def module(self, chunk: Chunk | None = None) -> Module:
        """The StableHLO module of ``chunk`` (text), or of the whole program."""
        from .. import parser

        if chunk is not None:
            return parser.parse_module(chunk.text, self.name)
        if self._module is None:
            if self.kind == "saved_model":
                from .model_bundle import load_bundle

                self._module = load_bundle(self.name).module
            elif self.exported is not None:
                self._module = self.exported.module
            elif self.data is not None:
                from ..parser.vhlo.artifact import deserialize_portable_artifact

                self._module = deserialize_portable_artifact(self.data, self.name)
            else:
                assert self.text is not None
                self._module = parser.parse_module(self.text, self.name)
        return self._module

    def stored_module(self) -> Module:
        """The module as stored: VHLO ops for a portable artifact (what ``stablehlo-opt``
        prints of one); the parsed text otherwise."""
        if self.data is None:
            return self.module()
        from ..parser.vhlo.artifact import read_vhlo

        return read_vhlo(self.data, self.name)


Reader = Callable[[str, bytes], "ProgramSource | None"]


def _bytecode(name: str, data: bytes) -> ProgramSource | None:
    return ProgramSource(name, "bytecode", data=data) if is_bytecode(data) else None


def _exported(name: str, data: bytes) -> ProgramSource | None:
    if not (name.endswith(".exported") or looks_like_exported(data)):
        return None
    from .exported import load_exported

    program = load_exported(data, filename=name)
    return ProgramSource(name, "exported", data=program.mlir_module_serialized, exported=program)


def _text(name: str, data: bytes) -> ProgramSource | None:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise byte_error(
            name,
            e.start,
            "text",
            f"neither MLIR bytecode, a jax.export container nor UTF-8 text "
            f"(byte 0x{data[e.start]:02x} is not UTF-8)",
        ) from e
    return ProgramSource(name, "text", text=text)


READERS: list[Reader] = [_bytecode, _exported, _text]
"""The kinds of file input, tried in order: the first that returns a source wins; one
that recognizes its input but finds it malformed raises."""


def _saved_model(path: str) -> ProgramSource | None:
    """The folder PyTorch/XLA saves a model to (engine/model_bundle.py): kind
    ``saved_model``; its module is the default callable's (``forward``)."""
    from .model_bundle import is_bundle_dir

    return ProgramSource(path, "saved_model") if is_bundle_dir(path) else None


FOLDER_READERS: list[Callable[[str], ProgramSource | None]] = [_saved_model]
"""Kinds of input that are a folder: the first that returns a source wins."""


def read_program(path: str | os.PathLike) -> ProgramSource:
    """The program at ``path`` (``-``: standard input), or a ``ParseError`` saying why
    it cannot be read."""
    path = os.fspath(path)
    if path == STDIN:
        return _from_bytes("<stdin>", sys.stdin.buffer.read())
    p = Path(path)
    if p.is_dir():
        for folder in FOLDER_READERS:
            found = folder(path)
            if found is not None:
                return found
        from .model_bundle import not_a_program_folder

        raise not_a_program_folder(path)
    return _from_bytes(path, read_file(p))


def _from_bytes(name: str, data: bytes) -> ProgramSource:
    for reader in READERS:
        found = reader(name, data)
        if found is not None:
            return found
    raise AssertionError("the text reader takes every input")  # pragma: no cover
