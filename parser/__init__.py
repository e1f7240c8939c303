"""parser: MLIR text <-> hlorun's frozen IR.

Public API: ``parse_module(text, filename="<string>") -> Module`` and
``print_module(module, **options) -> str``.
"""

from .errors import (
    HloError,
    InterpreterError,
    ParseError,
    SourcePos,
    UnsupportedError,
    VerificationError,
)

__all__ = [
    "HloError",
    "InterpreterError",
    "ParseError",
    "SourcePos",
    "UnsupportedError",
    "VerificationError",
    "parse_bytecode",
    "parse_module",
    "print_module",
]


def parse_module(text: str | bytes, filename: str = "<string>", *, line_offset: int = 0):
    """Parse MLIR text into a ``Module``; ``line_offset`` is added to reported lines
    (for a chunk of a larger file).  Bytes are MLIR bytecode when they start with its
    magic (``ML\\xefR``: a portable artifact or unversioned StableHLO bytecode, read by
    ``parse_bytecode``), else UTF-8 text."""
    from .bytecode.encoding import is_bytecode

    if isinstance(text, bytes | bytearray | memoryview):
        data = bytes(text)
        if is_bytecode(data):
            return parse_bytecode(data, filename)
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as e:
            from .source import looks_like_exported

            hint = (
                ": it looks like a jax.export container (Exported.serialize()); load it "
                "with hlorun.engine.load_exported(path) and call the program it returns"
                if looks_like_exported(data)
                else ""
            )
            raise ParseError(
                f"{filename}: neither MLIR bytecode nor UTF-8 text (byte offset {e.start}){hint}"
            ) from e
    from .grammar import parse_module as _parse  # pyparsing loads only when text is parsed

    return _parse(text, filename, line_offset=line_offset)


def parse_bytecode(data: bytes, filename: str = "<bytecode>"):
    """Read MLIR bytecode (a StableHLO portable artifact, or unversioned StableHLO
    bytecode) into a ``Module``; portable artifacts come back as StableHLO."""
    from .vhlo.artifact import deserialize_portable_artifact

    return deserialize_portable_artifact(data, filename)


def print_module(module, **options) -> str:
    """The MLIR text of ``module``; ``options`` go to ``parser.printer.print_module``
    (e.g. ``hex_above=100``)."""
    from .printer import print_module as _print

    return _print(module, **options)
