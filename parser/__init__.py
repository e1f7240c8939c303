"""parser: MLIR text <-> hlorun's frozen IR.

Public API: ``parse_module(text, filename="<string>") -> Module`` and
``print_module(module) -> str``.
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
    "parse_module",
    "print_module",
]


def parse_module(text: str, filename: str = "<string>"):
    from .grammar import parse_module as _parse

    return _parse(text, filename)


def print_module(module) -> str:
    from .printer import print_module as _print

    return _print(module)
