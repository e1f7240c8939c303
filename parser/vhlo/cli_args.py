"""The arguments of ``hlorun vhlo``, ``compat`` and ``serialize`` that are theirs
(argparse only, so that building the ``hlorun`` parser for ``--help`` / ``--version``
loads nothing else)."""

from __future__ import annotations

import argparse

__all__ = ["add_compat_arguments", "add_dialects_flag", "add_vhlo_arguments"]


def add_dialects_flag(p: argparse.ArgumentParser) -> None:
    """``--allow-other-dialects`` (``dialects_kept`` in parser/vhlo/cli.py reads it)."""
    p.add_argument(
        "--allow-other-dialects",
        action="store_true",
        help="keep ops and attributes of every other dialect as they are "
        "(sdy ones are always kept, as jax serializes them)",
    )


def _file_and_dialects(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "file", metavar="FILE", help="a program (text, bytecode or artifact), or - for stdin"
    )
    add_dialects_flag(p)


def add_vhlo_arguments(p: argparse.ArgumentParser) -> None:
    """The arguments of ``hlorun vhlo`` (stablehlo-opt's spellings)."""
    _file_and_dialects(p)
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
    _file_and_dialects(p)
    p.add_argument(
        "--target",
        metavar="V",
        required=True,
        help="the version to serve: X.Y.Z, current or minimum",
    )
