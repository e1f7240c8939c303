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
from dataclasses import dataclass
from typing import TextIO

from ..errors import HloError, SourcePos
from ..ir import Function, Module, Operation
from ..source import Chunk, read_text, split_input
from .common import LegalizeError, unwrap_generic_module
from .convert import blockers, vhlo_to_version
from .ir import VhloAttr
from .to_vhlo import legalize_to_vhlo
from .version import Version, resolve_target, validate_target

__all__ = ["compat_main", "run_vhlo", "vhlo_main"]


@dataclass(frozen=True)
class Diagnostic:
    line: int
    message: str
    severity: str = "error"


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
    chunk: Chunk, filename: str, *, target: str | None, allow_other: bool
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

_EXPECTED = re.compile(
    r"expected-(error|warning|remark|note)\s*(?:@\s*([+-]\d+|above|below))?\s*\{\{(.*?)\}\}"
)


def expected_diagnostics(chunk: Chunk) -> list[Diagnostic]:
    out = []
    for i, line in enumerate(chunk.text.split("\n"), start=1):
        for m in _EXPECTED.finditer(line):
            sev, where, msg = m.group(1), m.group(2), m.group(3)
            target = i
            if where in ("above",):
                target = i - 1
            elif where == "below":
                target = i + 1
            elif where:
                target = i + int(where)
            out.append(Diagnostic(target, msg.strip(), sev))
    return out


def verify(expected: list[Diagnostic], got: list[Diagnostic], filename: str, err: TextIO) -> bool:
    """mlir's SourceMgrDiagnosticVerifierHandler: every expected diagnostic produced (at
    its line, containing its text) and nothing unexpected."""
    ok = True
    left = list(got)
    for exp in expected:
        hit = next(
            (
                g
                for g in left
                if g.line == exp.line and exp.message in g.message and g.severity == exp.severity
            ),
            None,
        )
        if hit is None:
            print(
                f"{filename}:{exp.line}: error: expected {exp.severity} "
                f'"{exp.message}" was not produced',
                file=err,
            )
            ok = False
        else:
            left.remove(hit)
    for g in left:
        print(f"{filename}:{g.line}: error: unexpected {g.severity}: {g.message}", file=err)
        ok = False
    return ok


# ---- commands ----------------------------------------------------------------------------


def _vhlo_args(argv: list[str]) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="hlorun vhlo", description=__doc__.split("\n\n")[1])
    p.add_argument("file")
    p.add_argument("--allow-other-dialects", action="store_true")
    p.add_argument("--target", default=None, help="X.Y.Z, current or minimum")
    p.add_argument("--generic", action="store_true", help="--mlir-print-op-generic")
    p.add_argument("--split-input-file", "-split-input-file", action="store_true")
    p.add_argument("--verify-diagnostics", "-verify-diagnostics", action="store_true")
    return p.parse_args(argv)


def vhlo_main(argv: list[str], out: TextIO | None = None, err: TextIO | None = None) -> int:
    """``hlorun vhlo``: see the module docstring."""
    from .asm import print_vhlo_module

    out = out or sys.stdout
    err = err or sys.stderr
    a = _vhlo_args(argv)
    try:
        text = read_text(a.file)
    except OSError as e:
        print(f"error: {e}", file=err)
        return 1
    name = "-" if a.file == "-" else a.file
    failed = False
    outputs = []
    for chunk in split_input(text, a.split_input_file):
        m, diags = run_vhlo(chunk, name, target=a.target, allow_other=a.allow_other_dialects)
        if a.verify_diagnostics:
            failed |= not verify(expected_diagnostics(chunk), diags, name, err)
        else:
            for d in diags:
                print(f"{name}:{d.line}: {d.severity}: {d.message}", file=err)
            failed |= bool(diags)
        if m is not None:
            outputs.append(print_vhlo_module(m, generic=a.generic))
    if not a.verify_diagnostics or not failed:
        out.write("// -----\n".join(outputs))
    return 1 if failed else 0


def compat_main(argv: list[str], out: TextIO | None = None, err: TextIO | None = None) -> int:
    """``hlorun compat FILE --target=V``: exit 0 when the program can be served at V,
    else 1 after listing each blocker as ``file:line: <what> needs <version>``."""
    out = out or sys.stdout
    err = err or sys.stderr
    p = argparse.ArgumentParser(prog="hlorun compat")
    p.add_argument("file")
    p.add_argument("--target", required=True)
    p.add_argument("--allow-other-dialects", action="store_true")
    a = p.parse_args(argv)
    try:
        text = read_text(a.file)
        target = resolve_target(a.target)
        v = validate_target(target)
    except (OSError, HloError) as e:
        print(f"error: {getattr(e, 'message', e)}", file=err)
        return 1
    from .. import parse_module

    try:
        m = unwrap_generic_module(parse_module(text, a.file))
        if _has_unversioned(m):
            m = legalize_to_vhlo(m, allow_other_dialects=a.allow_other_dialects)
    except HloError as e:
        print(e.render(), file=err)
        return 1
    found = blockers(m, v)
    for pos, what, first in found:
        where = f"{pos.filename}:{pos.line}" if pos is not None else a.file
        print(f"{where}: {what} needs StableHLO {first} (target {Version.of(target)})", file=out)
    if not found:
        print(f"{a.file}: can be served at {Version.of(target)}", file=out)
    return 1 if found else 0
