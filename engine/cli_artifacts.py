"""``hlorun`` commands for portable artifacts, mirroring the upstream tools:

hlorun deserialize [--print-stablehlo-version] FILE|-     stablehlo-translate --deserialize
hlorun serialize --target=V [--strip-debuginfo] [--allow-other-dialects] FILE|- [-o OUT]
                                                          stablehlo-translate --serialize
hlorun vhlo [--target=V] [--generic] [--split-input-file] [--verify-diagnostics] FILE|-
                                                          stablehlo-opt --stablehlo-legalize-to-vhlo
hlorun compat FILE --target=V                             can FILE be served at V?
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
from pathlib import Path

from ..parser import parse_module, print_module
from ..parser.bytecode.encoding import is_bytecode
from ..parser.errors import HloError
from ..parser.source import read_input


def cmd_deserialize(args: argparse.Namespace) -> int:
    """Print the StableHLO program of a portable artifact (text input passes through)."""
    from ..parser.vhlo.artifact import deserialize_portable_artifact, get_portable_artifact_version

    data = read_input(args.file)
    name = "<stdin>" if args.file == "-" else args.file
    if args.print_stablehlo_version:
        try:
            version = get_portable_artifact_version(data, name)
            print(f"// Reading portable artifact with StableHLO version: {version}")
        except HloError:
            print("// Failed parsing StableHLO version from portable artifact")
    if is_bytecode(data):
        try:
            module = deserialize_portable_artifact(data, name)
        except HloError as e:
            _report_artifact_error(e, data, name)
            return 1
    else:
        module = parse_module(data.decode("utf-8"), name)
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
    """Write the portable artifact of a StableHLO (or VHLO) program for ``--target``."""
    from ..parser.vhlo.artifact import deserialize_portable_artifact, serialize_portable_artifact

    data = read_input(args.file)
    name = "<stdin>" if args.file == "-" else args.file
    if is_bytecode(data):
        module = deserialize_portable_artifact(data, name)
    else:
        module = parse_module(data.decode("utf-8"), name)
    out = serialize_portable_artifact(
        module,
        args.target,
        strip_debuginfo=args.strip_debuginfo,
        allow_other_dialects=args.allow_other_dialects,
    )
    if args.output and args.output != "-":
        Path(args.output).write_bytes(out)
    else:
        sys.stdout.buffer.write(out)
        sys.stdout.flush()
    return 0


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

    module = parse_module(text, name)
    if strip:
        module = strip_debuginfo(module)
    if generic:
        from ..parser.vhlo.asm import print_vhlo_module

        return print_vhlo_module(_explicit(module), generic=True)
    return print_module(_explicit(module), canonical=True)


def _explicit(module):
    """Print with the ``module { }`` wrapper, as MLIR's tools do."""
    return dataclasses.replace(module, implicit=False) if module.implicit else module


def add_commands(sub: argparse._SubParsersAction) -> None:
    d = sub.add_parser("deserialize", help="print the StableHLO program of a portable artifact")
    d.add_argument("file", help="a .mlir.bc / .mlirbc artifact (or text), or - for stdin")
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
    s.add_argument("file", help="an .mlir program (or artifact), or - for stdin")
    s.add_argument("--target", required=True, help="X.Y.Z, current or minimum")
    s.add_argument("--strip-debuginfo", action="store_true", help="drop locations")
    s.add_argument(
        "--allow-other-dialects",
        action="store_true",
        help="keep ops of dialects other than stablehlo/func (as upstream)",
    )
    s.add_argument("-o", "--output", default=None, help="output file (default: stdout)")
    s.set_defaults(func=cmd_serialize)


def run_vhlo_tool(command: str, argv: list[str]) -> int:
    """``hlorun vhlo ...`` / ``hlorun compat ...`` (their own argument syntax)."""
    from ..parser.vhlo.cli import compat_main, vhlo_main

    return (vhlo_main if command == "vhlo" else compat_main)(argv)
