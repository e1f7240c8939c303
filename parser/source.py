"""Program input as the command-line tools take it: ``FILE|-`` read whole, and
``--split-input-file`` chunks.

mlir-opt's ``--split-input-file`` (mlir/lib/Support/ToolUtilities.cpp
``splitAndProcessBuffer``) cuts the buffer at each ``// -----`` marker and processes
each piece as its own buffer; here a marker is a line holding only ``// -----`` (blanks
around it allowed).  Each chunk keeps the file's line numbers: its text is padded with
one blank line per line before it.
"""

from __future__ import annotations

import io
import re
import sys
from dataclasses import dataclass
from pathlib import Path

from .errors import ParseError

__all__ = [
    "Chunk",
    "looks_like_exported",
    "read_file",
    "read_input",
    "read_text",
    "split_input",
    "split_input_file",
]

SPLIT_MARKER = re.compile(r"\s*// -----\s*")


def read_input(path: str) -> bytes:
    """The bytes of ``path``, or of standard input for ``-``."""
    if path == "-":
        return sys.stdin.buffer.read()
    return Path(path).read_bytes()


def read_file(path: Path) -> bytes:
    """The bytes of a program file, or a ``ParseError``: no such file, cannot read."""
    try:
        return path.read_bytes()
    except FileNotFoundError as e:
        raise ParseError(f"no such file: {path}") from e
    except OSError as e:
        raise ParseError(f"{path}: cannot read: {e.strerror or e}") from e


def read_text(path: str) -> str:
    """``read_input`` as UTF-8 text, line ends read as ``open()`` reads them
    (universal newlines)."""
    return io.TextIOWrapper(io.BytesIO(read_input(path)), encoding="utf-8").read()


def looks_like_exported(data: bytes) -> bool:
    """Whether ``data`` looks like a ``jax.export`` container (``Exported.serialize()``,
    a FlatBuffer of jax/_src/export/serialization.fbs): a root-table offset inside the
    buffer, and an MLIR bytecode module (its magic ``ML\\xefR``) after it.  Such bytes
    are never UTF-8 text (``\\xef`` there is not followed by two continuation bytes)."""
    if len(data) < 8 or data[:4] == b"ML\xefR":
        return False
    root = int.from_bytes(data[:4], "little")
    return 4 <= root < len(data) and data.find(b"ML\xefR", 4) > root


@dataclass(frozen=True)
class Chunk:
    """One piece of a split file."""

    text: str  # padded with blank lines: line numbers are the file's
    first_line: int  # 1-based line of the file where the piece starts

    @property
    def line_offset(self) -> int:
        """Lines of the file before the piece."""
        return self.first_line - 1

    @property
    def body(self) -> str:
        """The piece without its padding."""
        return self.text[self.line_offset :]


def split_input(text: str, split: bool = True) -> list[Chunk]:
    """The chunks of ``text`` between marker lines (the whole text when not ``split``).
    Lines end at ``\\n`` only, as MLIR's SourceMgr counts them."""
    if not split:
        return [Chunk(text, 1)]
    lines = text.split("\n")
    out: list[Chunk] = []
    start = 0
    for i, line in enumerate(lines):
        if SPLIT_MARKER.fullmatch(line):
            out.append(Chunk("\n" * start + "".join(x + "\n" for x in lines[start:i]), start + 1))
            start = i + 1
    out.append(Chunk("\n" * start + "\n".join(lines[start:]), start + 1))
    return out


def split_input_file(text: str) -> list[tuple[str, int]]:
    """``split_input`` as (unpadded chunk, lines before it) pairs, for
    ``parse_module(chunk, line_offset=...)``."""
    return [(c.body, c.line_offset) for c in split_input(text)]
