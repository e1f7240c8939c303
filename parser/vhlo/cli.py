"""``hlorun vhlo`` and ``hlorun compat`` (argv in, exit code out; wired by engine/cli.py).

``vhlo [--allow-other-dialects] [--target=V] [--generic] [--split-input-file]
[--verify-diagnostics] FILE|-`` prints what ``stablehlo-opt
--stablehlo-legalize-to-vhlo [--vhlo-to-version=target=V] [--mlir-print-op-generic]``
prints (a module already in VHLO is only converted).  ``--verify-diagnostics``
checks the errors against the file's ``expected-error`` annotations as mlir-opt does
(same line; the message contains the annotation's text).

``compat FILE --target=V`` lists every op / attribute / type that keeps the program
from being served at V, with the first version that has it.
"""

from __future__ import annotations

import argparse
import re
import sys
from typing import TextIO

from ..errors import HloError, SourcePos
from ..ir import Function, Module, Operation
from ..source import Chunk, read_text, split_input
from ..verify_diagnostics import Diagnostic, Expected, check, expected_diagnostics
from .cli_args import add_compat_arguments, add_vhlo_arguments
from .common import LegalizeError, unwrap_generic_module
from .convert import blockers, vhlo_to_version
from .ir import VhloAttr
from .to_vhlo import KEEP_SDY, AllowOther
from .to_vhlo_ops import legalize_to_vhlo
from .version import Version, resolve_target, validate_target

__all__ = [
    "add_compat_arguments",
    "add_vhlo_arguments",
    "compat_main",
    "compat_report",
    "run_vhlo",
    "vhlo_main",
    "vhlo_stored",
    "vhlo_text",
]


# ---- one chunk -------------------------------------------------------------------------


def _has_unversioned(m: Module) -> bool:
    def walk(ops) -> bool:
        for op in ops:
            if not op.name.startswith("vhlo."):
                return True
            for r in op.regions:
                for b in r.blocks:
                    if walk(b.operations):
                        return True
        return False

    return any(isinstance(x, Function) for x in m.body) or walk(
        [x for x in m.body if isinstance(x, Operation)]
    )


def _module_line(m: Module, chunk: Chunk) -> int:
    """MLIR locates an implicit top-level module at line 0 of its buffer."""
    if m.implicit or m.pos is None:
        return chunk.first_line - 1
    return m.pos.line


def _attr_line(chunk: Chunk, start: int, name: str) -> int:
    """The line where attribute ``name`` is written, at or after line ``start``
    (the IR keeps no position per attribute; MLIR reports these where it parsed them)."""
    lines = chunk.text.split("\n")
    pat = re.compile(r"(^|[\s{,])" + re.escape(name) + r"\s*=")
    for i in range(max(start - 1, 0), len(lines)):
        if pat.search(lines[i]):
            return i + 1
    return start


def _vhlo_attr_errors(m: Module, chunk: Chunk) -> list[Diagnostic]:
    """VhloAttrs.td verifiers (DictionaryV1Attr, ResultAccuracyV1Attr, ...) for VHLO
    attributes written in the text."""
    out: list[Diagnostic] = []

    def from_vhlo(x) -> bool:
        return isinstance(x, VhloAttr) or type(x).__name__ == "VhloType"

    def check(a, start: int, name: str) -> None:
        if not isinstance(a, VhloAttr):
            return
        msg = None
        if a.name == "dict_v1":
            if any(not from_vhlo(k) for k, _ in a.params[0]):
                msg = "expected VHLO key attribute"
            for _k, v in a.params[0]:
                check(v, start, name)
        elif a.name == "result_accuracy_v1" and not from_vhlo(a.params[3]):
            msg = "expected VHLO result accuracy mode"
        elif a.name in ("float_v1", "integer_v1", "type_v1", "tensor_v1") and not from_vhlo(
            a.params[0]
        ):
            msg = "expected VHLO type"
        elif a.name == "array_v1":
            for e in a.params[0]:
                check(e, start, name)
        if msg is not None:
            out.append(Diagnostic(_attr_line(chunk, start, name), msg))

    def visit_attrs(items, pos: SourcePos) -> None:
        for k, v in items:
            check(v, pos.line, k)

    def visit_op(op: Operation) -> None:
        visit_attrs(op.attributes, op.pos)
        for r in op.regions:
            for b in r.blocks:
                for o in b.operations:
                    visit_op(o)

    for item in m.body:
        if isinstance(item, Function):
            visit_attrs(item.attributes, item.pos)
            if item.body is not None:
                for b in item.body.blocks:
                    for o in b.operations:
                        visit_op(o)
        else:
            visit_op(item)
    return out


def run_vhlo(
    chunk: Chunk, filename: str, *, target: str | None, allow_other: AllowOther
) -> tuple[Module | None, list[Diagnostic]]:
    """Parse, legalize, convert one chunk: (VHLO module, or None on error; diagnostics)."""
    from .. import parse_module

    try:
        m = parse_module(chunk.text, filename)
    except HloError as e:
        return None, [Diagnostic(e.pos.line if e.pos else 0, e.message)]
    m = unwrap_generic_module(m)
    errs = _vhlo_attr_errors(m, chunk)
    if errs:
        return None, errs
    try:
        if _has_unversioned(m):
            m = legalize_to_vhlo(m, allow_other_dialects=allow_other)
        if target is not None:
            v = resolve_target(target)
            try:
                validate_target(v)
            except HloError as e:
                return None, [Diagnostic(_module_line(m, chunk), e.message)]
            m = vhlo_to_version(m, v)
    except LegalizeError as e:
        diags = [Diagnostic(e.pos.line if e.pos else 0, e.message)]
        diags += [Diagnostic(_module_line(m, chunk), msg) for _pos, msg in e.notes]
        return None, diags
    except HloError as e:
        return None, [Diagnostic(e.pos.line if e.pos else 0, e.message)]
    return m, []


# ---- --verify-diagnostics ---------------------------------------------------------------


def verify(expected: list[Expected], got: list[Diagnostic], filename: str, err: TextIO) -> bool:
    """mlir's SourceMgrDiagnosticVerifierHandler (parser/verify_diagnostics.py): every
    expected diagnostic produced and nothing unexpected; the problems go to ``err``."""
    problems = check(expected, got, filename)
    for p in problems:
        print(p, file=err)
    return not problems


# ---- commands ----------------------------------------------------------------------------


def dialects_kept(args: argparse.Namespace) -> AllowOther:
    """``--allow-other-dialects``: every dialect; else sdy, as jax serializes it."""
    return True if args.allow_other_dialects else KEEP_SDY


def _vhlo_args(argv: list[str]) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="hlorun vhlo", description=__doc__.split("\n\n")[1])
    add_vhlo_arguments(p)
    return p.parse_args(argv)


def vhlo_main(argv: list[str], out: TextIO | None = None, err: TextIO | None = None) -> int:
    """``hlorun vhlo`` on MLIR text: see the module docstring."""
    out = out or sys.stdout
    err = err or sys.stderr
    a = _vhlo_args(argv)
    try:
        text = read_text(a.file)
    except (OSError, UnicodeDecodeError) as e:
        print(f"error: {e}", file=err)
        return 1
    return vhlo_text(text, "-" if a.file == "-" else a.file, a, out, err)


def vhlo_text(text: str, name: str, a: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """``hlorun vhlo`` of MLIR text, chunk by chunk."""
    from .asm import print_vhlo_module

    failed = False
    outputs = []
    for chunk in split_input(text, a.split_input_file):
        m, diags = run_vhlo(chunk, name, target=a.target, allow_other=dialects_kept(a))
        if a.verify_diagnostics:
            failed |= not verify(expected_diagnostics(chunk.text), diags, name, err)
        else:
            for d in diags:
                print(f"{name}:{d.line}: {d.severity}: {d.message}", file=err)
            failed |= bool(diags)
        if m is not None:
            outputs.append(print_vhlo_module(m, generic=a.generic))
    if not a.verify_diagnostics or not failed:
        out.write("// -----\n".join(outputs))
    return 1 if failed else 0


def vhlo_stored(m: Module, name: str, a: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """``hlorun vhlo`` of a module read from bytecode (VHLO as an artifact stores it, or
    unversioned StableHLO): legalized, converted to ``--target``, printed."""
    from .asm import print_vhlo_module

    try:
        m = unwrap_generic_module(m)
        if _has_unversioned(m):
            m = legalize_to_vhlo(m, allow_other_dialects=dialects_kept(a))
        if a.target is not None:
            m = vhlo_to_version(m, validate_target(resolve_target(a.target)))
    except HloError as e:
        print(e.render(), file=err)
        return 1
    out.write(print_vhlo_module(m, generic=a.generic))
    return 0


def compat_main(argv: list[str], out: TextIO | None = None, err: TextIO | None = None) -> int:
    """``hlorun compat FILE --target=V`` on MLIR text: exit 0 when the program can be
    served at V, else 1 after listing each blocker as ``file:line: <what> needs
    <version>``."""
    from .. import parse_module

    out = out or sys.stdout
    err = err or sys.stderr
    p = argparse.ArgumentParser(prog="hlorun compat")
    add_compat_arguments(p)
    a = p.parse_args(argv)
    try:
        m = parse_module(read_text(a.file), a.file)
    except (OSError, UnicodeDecodeError) as e:
        print(f"error: {e}", file=err)
        return 1
    except HloError as e:
        print(e.render(), file=err)
        return 1
    return compat_report(m, a.file, a, out, err)


def compat_report(m: Module, name: str, a: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """The blockers of module ``m`` at ``--target``, each line once."""
    try:
        target = resolve_target(a.target)
        v = validate_target(target)
        m = unwrap_generic_module(m)
        if _has_unversioned(m):
            m = legalize_to_vhlo(m, allow_other_dialects=dialects_kept(a))
    except HloError as e:
        print(e.render(), file=err)
        return 1
    lines: dict[str, None] = {}
    for pos, what, first in blockers(m, v):
        known = pos is not None and pos.filename != "<unknown>"
        where = f"{pos.filename}:{pos.line}" if pos is not None and known else name
        lines[f"{where}: {what} needs StableHLO {first} (target {Version.of(target)})"] = None
    for line in lines:
        print(line, file=out)
    if not lines:
        print(f"{name}: can be served at {Version.of(target)}", file=out)
    return 1 if lines else 0
