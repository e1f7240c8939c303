"""``hlorun`` commands for portable artifacts, mirroring the upstream tools:
``deserialize`` (``stablehlo-translate --deserialize``), ``serialize``
(``stablehlo-translate --serialize``), ``vhlo`` (``stablehlo-opt
--stablehlo-legalize-to-vhlo [--vhlo-to-version]``) and ``compat`` (can FILE be served
at a version).  Their flags: ``hlorun CMD --help``.  ``serialize``, ``vhlo`` and
``compat`` keep the ``sdy`` dialect as jax serializes it (parser/vhlo/to_vhlo.py
``KEEP_SDY``).
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
from pathlib import Path

from ..parser import parse_module, print_module
from ..parser.errors import HloError
from .program_source import read_program


def cmd_deserialize(args: argparse.Namespace) -> int:
    """Print the StableHLO program of a portable artifact (text input passes through)."""
    from ..parser.vhlo.artifact import get_portable_artifact_version

    src = read_program(args.file)
    if args.print_stablehlo_version:
        try:
            if src.data is None:
                raise HloError("text")
            version = get_portable_artifact_version(src.data, src.name)
            print(f"// Reading portable artifact with StableHLO version: {version}")
        except HloError:
            print("// Failed parsing StableHLO version from portable artifact")
    try:
        module = src.module() if src.data is not None else registered_only(src.module())
    except HloError as e:
        if src.data is None:
            raise
        _report_artifact_error(e, src.data, src.name)
        return 1
    # stablehlo-translate prints as stablehlo-opt does: MLIR's canonical text
    sys.stdout.write(print_module(_explicit(module), canonical=True))
    return 0


def _report_artifact_error(error: HloError, data: bytes, name: str) -> None:
    """The error, then what stablehlo-translate adds: the bytecode version and producer
    as a note, and the failure to deserialize."""
    from ..parser.bytecode.sections import read_header

    print(error.render(), file=sys.stderr)
    try:
        header = read_header(data, name)
    except HloError:
        return
    print(
        f"{name}: note: in bytecode version {header.version} produced by: {header.producer}",
        file=sys.stderr,
    )
    print(
        f"{name}: error: failed to deserialize portable artifact using {header.producer}",
        file=sys.stderr,
    )


def cmd_serialize(args: argparse.Namespace) -> int:
    """Write the portable artifact of a StableHLO (or VHLO) program for ``--target``
    (ops and attributes of the ``sdy`` dialect kept, as jax serializes them)."""
    from ..parser.vhlo.artifact import serialize_portable_artifact
    from ..parser.vhlo.cli import dialects_kept

    src = read_program(args.file)
    out = serialize_portable_artifact(
        src.module(),
        args.target,
        strip_debuginfo=args.strip_debuginfo,
        allow_other_dialects=dialects_kept(args),
    )
    if args.output and args.output != "-":
        Path(args.output).write_bytes(out)
    else:
        sys.stdout.buffer.write(out)
        sys.stdout.flush()
    return 0


def cmd_vhlo(args: argparse.Namespace) -> int:
    """``stablehlo-opt --stablehlo-legalize-to-vhlo [--vhlo-to-version]`` of any input."""
    from ..parser.vhlo.cli import vhlo_stored, vhlo_text

    src = read_program(args.file)
    if src.text is not None:
        return vhlo_text(src.text, src.name, args, sys.stdout, sys.stderr)
    return vhlo_stored(src.stored_module(), src.name, args, sys.stdout, sys.stderr)


def cmd_compat(args: argparse.Namespace) -> int:
    """Can the program be served at ``--target``: each blocker once."""
    from ..parser.vhlo.cli import compat_report

    src = read_program(args.file)
    module = src.module() if src.text is not None else src.stored_module()
    return compat_report(module, src.name, args, sys.stdout, sys.stderr)


def format_bytecode(data: bytes, name: str, *, generic: bool, strip: bool) -> str:
    """``stablehlo-opt`` of a bytecode file: the IR as stored (VHLO for an artifact)."""
    from ..parser.vhlo.artifact import read_vhlo, strip_debuginfo
    from ..parser.vhlo.asm import print_vhlo_module

    module = read_vhlo(data, name)
    if strip:
        module = strip_debuginfo(module)
    return print_vhlo_module(_explicit(module), generic=generic)


def format_text(text: str, name: str, *, generic: bool, strip: bool) -> str:
    """``stablehlo-opt`` of a text file: MLIR's canonical text (``print_module``'s
    ``canonical`` option: MLIR's names, no locations, defaults left out...)."""
    from ..parser.vhlo.artifact import strip_debuginfo

    module = registered_only(parse_module(text, name))
    if strip:
        module = strip_debuginfo(module)
    if generic:
        from ..parser.vhlo.asm import print_vhlo_module

        return print_vhlo_module(_explicit(module), generic=True)
    return print_module(_explicit(module), canonical=True)


def registered_only(module):
    """``module``, or the verifier's error for its first op of a dialect that allows no
    unknown ops (``unknown_op``: MLIR refuses such an op when it parses it, so
    ``stablehlo-opt`` and ``stablehlo-translate`` print nothing of the program)."""
    from .. import shape_inference  # noqa: F401  (fills the op table)
    from ..shape_inference.verifier import collect_errors

    for err in collect_errors(module):
        if err.label == "unknown_op":
            raise err
    return module


def _explicit(module):
    """Print with the ``module { }`` wrapper, as MLIR's tools do."""
    return dataclasses.replace(module, implicit=False) if module.implicit else module


def add_commands(sub: argparse._SubParsersAction) -> None:
    from ..parser.vhlo.cli_args import add_compat_arguments, add_dialects_flag, add_vhlo_arguments

    d = sub.add_parser("deserialize", help="print the StableHLO program of a portable artifact")
    d.add_argument(
        "file", metavar="FILE", help="a .mlir.bc / .mlirbc artifact (or text), or - for stdin"
    )
    d.add_argument(
        "--print-stablehlo-version",
        action="store_true",
        help="first print the artifact's StableHLO version",
    )
    d.add_argument(
        "--verify-diagnostics",
        action="store_true",
        help="accepted for stablehlo-translate compatibility (errors go to stderr)",
    )
    d.set_defaults(func=cmd_deserialize)

    s = sub.add_parser("serialize", help="write a portable artifact for a target version")
    s.add_argument("file", metavar="FILE", help="an .mlir program (or artifact), or - for stdin")
    s.add_argument("--target", metavar="V", required=True, help="X.Y.Z, current or minimum")
    s.add_argument("--strip-debuginfo", action="store_true", help="drop locations")
    add_dialects_flag(s)
    s.add_argument(
        "-o", "--output", metavar="OUT", default=None, help="output file (default: stdout)"
    )
    s.set_defaults(func=cmd_serialize)

    v = sub.add_parser(
        "vhlo",
        help="legalize to VHLO / convert to a target version (like stablehlo-opt "
        "--stablehlo-legalize-to-vhlo --vhlo-to-version)",
    )
    add_vhlo_arguments(v)
    v.set_defaults(func=cmd_vhlo)
    c = sub.add_parser(
        "compat", help="can a program be served at a version: list what needs a newer one"
    )
    add_compat_arguments(c)
    c.set_defaults(func=cmd_compat)
