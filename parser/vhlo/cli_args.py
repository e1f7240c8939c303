"""The arguments of ``hlorun vhlo`` and ``hlorun compat`` (argparse only, so that
building the ``hlorun`` parser for ``--help`` / ``--version`` loads nothing else)."""

from __future__ import annotations

import argparse

__all__ = ["add_compat_arguments", "add_vhlo_arguments"]


def add_vhlo_arguments(p: argparse.ArgumentParser) -> None:
    """The arguments of ``hlorun vhlo`` (stablehlo-opt's spellings)."""
    p.add_argument(
        "file", metavar="FILE", help="a program (text, bytecode or artifact), or - for stdin"
    )
    p.add_argument(
        "--allow-other-dialects",
        action="store_true",
        help="keep ops and attributes of every other dialect as they are "
        "(sdy ones are always kept, as jax serializes them)",
    )
    p.add_argument(
        "--target",
        metavar="V",
        default=None,
        help="convert to this version: X.Y.Z, current or minimum",
    )
    p.add_argument(
        "--generic",
        action="store_true",
        help="print in MLIR's generic form (--mlir-print-op-generic)",
    )
    p.add_argument(
        "--split-input-file",
        "-split-input-file",
        action="store_true",
        help="treat each chunk between lines '// -----' as its own program",
    )
    p.add_argument(
        "--verify-diagnostics",
        "-verify-diagnostics",
        action="store_true",
        help="check the errors against the file's expected-error annotations",
    )


def add_compat_arguments(p: argparse.ArgumentParser) -> None:
    """The arguments of ``hlorun compat``."""
    p.add_argument(
        "file", metavar="FILE", help="a program (text, bytecode or artifact), or - for stdin"
    )
    p.add_argument(
        "--target",
        metavar="V",
        required=True,
        help="the version to serve: X.Y.Z, current or minimum",
    )
    p.add_argument(
        "--allow-other-dialects",
        action="store_true",
        help="keep ops and attributes of every other dialect (sdy ones are always kept)",
    )
