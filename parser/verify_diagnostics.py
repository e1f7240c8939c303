"""MLIR's ``--verify-diagnostics``: the ``expected-*`` annotations of a file and the
check of the diagnostics a tool reported against them.

The syntax and the matching follow mlir/lib/IR/Diagnostics.cpp
(``SourceMgrDiagnosticVerifierHandler``):

- an annotation is ``expected-(error|warning|note|remark)``, then ``-re`` (optional),
  then an optional location, then ``{{message}}`` ending its line (the message runs to
  the last ``}}`` of the line);
- the location: none (this line), ``@+N`` / ``@-N`` (N lines below / above),
  ``@above`` (the last line above that holds no annotation), ``@below`` (the next line
  below that holds none), ``@unknown`` (a diagnostic with no location);
- a plain message matches a diagnostic whose text contains it; with ``-re`` the
  message's ``{{...}}`` sections are regular expressions and the rest is literal, and
  the whole is searched for in the diagnostic's text;
- a diagnostic matches an annotation of its severity at its line; the same text with
  another severity is a near miss; every annotation must be matched, and (unless only
  expected diagnostics are checked) every diagnostic must match one.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

__all__ = ["Diagnostic", "Expected", "check", "expected_diagnostics"]

_DESIGNATOR = re.compile(
    r"expected-(error|note|remark|warning)(-re)? *(@([+-][0-9]+|above|below|unknown))? *"
    r"\{\{(.*)\}\}$"
)


@dataclass(frozen=True)
class Diagnostic:
    """A diagnostic a tool reported: its line (None: no location), text and severity."""

    line: int | None
    message: str
    severity: str = "error"


@dataclass
class Expected:
    """One ``expected-*`` annotation: the line it applies to (None: ``@unknown``), the
    annotation's own line, its message, and the regex of a ``-re`` one."""

    severity: str
    line: int | None
    written_at: int
    message: str
    regex: re.Pattern[str] | None = None
    error: str = ""  # a malformed -re message: what is wrong with it
    matched: bool = field(default=False, compare=False)

    def matches(self, text: str) -> bool:
        if self.regex is not None:
            return self.regex.search(text) is not None
        return self.message in text


def _regex(message: str) -> re.Pattern[str]:
    """``-re``: the ``{{...}}`` sections as regular expressions, the rest literal
    (Diagnostics.cpp ``ExpectedDiag::computeRegex``); a ValueError if malformed."""
    out = []
    rest = message
    while rest:
        start = rest.find("{{")
        if start < 0:
            out.append(re.escape(rest))
            break
        out.append(re.escape(rest[:start]))
        rest = rest[start + 2 :]
        end = rest.find("}}")
        if end < 0:
            raise ValueError("found start of regex with no end '}}'")
        try:
            re.compile(rest[:end])
        except re.error as e:
            raise ValueError(f"invalid regex: {e}") from e
        out.append(f"({rest[:end]})")
        rest = rest[end + 2 :]
    return re.compile("".join(out))


def expected_diagnostics(text: str) -> list[Expected]:
    """The annotations of ``text`` (lines counted from 1, ``\\n`` ends a line)."""
    out: list[Expected] = []
    if "expected-" not in text:  # (most programs: no line to search)
        return out
    lines = text.split("\n")
    last_plain = 0  # the last line (0-based) holding no annotation
    pending: list[Expected] = []  # @below annotations waiting for a plain line
    for i, line in enumerate(lines):
        m = _DESIGNATOR.search(line.rstrip())
        if m is None:
            for e in pending:
                e.line = i + 1
            pending.clear()
            last_plain = i
            continue
        severity, is_re, where, message = m.group(1), m.group(2), m.group(4), m.group(5)
        e = Expected(severity, i + 1, i + 1, message)
        if is_re:
            try:
                e.regex = _regex(message)
            except ValueError as err:
                e.error = str(err)
        if where is None:
            pass
        elif where[0] in "+-":
            e.line = i + 1 + int(where)
        elif where == "unknown":
            e.line = None
        elif where == "above":
            e.line = last_plain + 1
        else:  # below: the next line with no annotation (the file's end if none)
            e.line = len(lines)
            pending.append(e)
        out.append(e)
    return out


def check(
    expected: list[Expected], got: list[Diagnostic], filename: str, *, only_expected: bool = False
) -> list[str]:
    """What is wrong when ``got`` is checked against ``expected`` (empty: all good), as
    mlir's verifier words it: ``file:line: error: expected error "..." was not
    produced``, ``unexpected error: ...``, a near miss of severity."""
    problems: list[str] = []
    for e in expected:
        e.matched = False
        if e.error:
            problems.append(f"{filename}:{e.written_at}: error: {e.error}")
    for d in got:
        near: Expected | None = None
        hit = False
        for e in expected:
            if e.error or e.line != d.line:
                continue
            if e.matches(d.message):
                if e.severity == d.severity:
                    e.matched = hit = True
                    break
                near = e
        if hit or only_expected:
            continue
        if near is not None:
            problems.append(
                f"{filename}:{near.written_at}: error: '{d.severity}' diagnostic emitted "
                f"when expecting a '{near.severity}'"
            )
        else:
            where = filename if d.line is None else f"{filename}:{d.line}"
            problems.append(f"{where}: error: unexpected {d.severity}: {d.message}")
    for e in expected:
        if not e.matched and not e.error:
            problems.append(
                f'{filename}:{e.written_at}: error: expected {e.severity} "{e.message}" '
                "was not produced"
            )
    return problems
