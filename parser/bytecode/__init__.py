"""MLIR bytecode (docs: llvm-project ``mlir/docs/BytecodeFormat.md``).

``read_bytecode(data) -> Module`` / ``read_bytecode_file(data) -> BytecodeFile`` read
any bytecode version 0-6; ``write_bytecode(module, version, producer)`` writes the
bytes MLIR's writer writes; ``rewrite(bytecode_file)`` writes a file that was read
back byte for byte.  Dialect encodings plug in through ``dialect_api``.
"""

from .reader import BytecodeFile, is_bytecode, read_bytecode, read_bytecode_file
from .writer import WriteError, rewrite, write_bytecode

__all__ = [
    "BytecodeFile",
    "WriteError",
    "is_bytecode",
    "read_bytecode",
    "read_bytecode_file",
    "rewrite",
    "write_bytecode",
]
