"""``hlorun fold [--split-input-file] [--max-elements N] [--max-loop-steps N] [--stats] FILE``:
constant folding with the interpreter (``engine.fold``), in place of ``stablehlo-opt
--stablehlo-aggressive-folder``.  Prints the folded program as ``stablehlo-opt`` prints
(MLIR's canonical text); ``--stats`` prints the report on standard error."""

from __future__ import annotations

import argparse
import dataclasses
import sys
from typing import TYPE_CHECKING

from ..parser import parse_module, print_module
from .cli import print_chunks, read_program

if TYPE_CHECKING:
    from ..parser.ir import Module


def _fold_and_print(module: Module, args: argparse.Namespace) -> str:
    from .fold import fold  # the engine loads on first use: ``hlorun --help`` stays cheap

    result = fold(module, max_elements=args.max_elements, max_loop_steps=args.max_loop_steps)
    if args.stats:
        print(result.report.text(), file=sys.stderr)
    folded = result.module
    if folded.implicit:
        folded = dataclasses.replace(folded, implicit=False)
    return print_module(folded, canonical=True)


def cmd_fold(args: argparse.Namespace) -> int:
    src = read_program(args.file)
    if src.text is None:
        sys.stdout.write(_fold_and_print(src.module(), args))
        return 0
    return print_chunks(
        src.text,
        args.split_input_file,
        lambda chunk: _fold_and_print(parse_module(chunk, src.name), args),
        src.lines,
    )


def add_command(sub: argparse._SubParsersAction) -> None:
    f = sub.add_parser(
        "fold",
        help="fold constants with the interpreter (like stablehlo-opt --stablehlo-aggressive-folder)",
    )
    f.add_argument(
        "file", metavar="FILE", help="an .mlir file (text or bytecode), or - for standard input"
    )
    f.add_argument(
        "--split-input-file",
        "-split-input-file",
        action="store_true",
        help="treat each chunk between lines '// -----' as its own program",
    )
    f.add_argument(
        "--max-elements",
        metavar="N",
        type=int,
        default=65536,
        help="fold no result of more elements than this (default 65536)",
    )
    f.add_argument(
        "--max-loop-steps",
        metavar="N",
        type=int,
        default=100_000,
        help="interpreted steps a folded loop or call may take (default 100000)",
    )
    f.add_argument("--stats", action="store_true", help="print what folded and why not (stderr)")
    f.add_argument(
        "--verify-diagnostics",
        action="store_true",
        help="accepted for stablehlo-opt compatibility (errors go to stderr)",
    )
    f.set_defaults(func=cmd_fold)
