"""MLIR bytecode (docs: llvm-project ``mlir/docs/BytecodeFormat.md``).

``read_bytecode(data) -> Module`` / ``read_bytecode_file(data) -> BytecodeFile`` read
any bytecode version 0-6; ``write_bytecode(module, version, producer)`` writes the
bytes MLIR's writer writes; ``rewrite(bytecode_file)`` writes a file that was read
back byte for byte.  Dialect encodings plug in through ``dialect_api``.
"""

from __future__ import annotations

import importlib
from typing import Any

# Loaded on first use: ``parser.parse_module`` imports ``.encoding`` (is_bytecode) for
# every text it parses, which must not load the reader and the writer.
_HOMES = {
    "BytecodeFile": "reader",
    "is_bytecode": "reader",
    "read_bytecode": "reader",
    "read_bytecode_file": "reader",
    "WriteError": "writer",
    "rewrite": "writer",
    "write_bytecode": "writer",
}


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{home}", __name__), name)
    globals()[name] = value
    return value


__all__ = [
    "BytecodeFile",
    "WriteError",
    "is_bytecode",
    "read_bytecode",
    "read_bytecode_file",
    "rewrite",
    "write_bytecode",
]
