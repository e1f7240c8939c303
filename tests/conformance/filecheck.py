"""A small FileCheck: enough of LLVM's FileCheck for the conformance files' output checks.

Supports ``PREFIX:``, ``PREFIX-NEXT:``, ``PREFIX-LABEL:``, the ``{LITERAL}`` modifier and
``{{regex}}`` blocks; horizontal whitespace is canonicalised, as FileCheck does.
"""

from __future__ import annotations

import re


def _pattern(text: str, literal: bool) -> re.Pattern[str]:
    text = " ".join(text.split())
    if literal or "{{" not in text:
        return re.compile(re.escape(text).replace(r"\ ", r"\s+"))
    parts = re.split(r"\{\{(.*?)\}\}", text)
    rx = "".join(p if i % 2 else re.escape(p).replace(r"\ ", r"\s+") for i, p in enumerate(parts))
    return re.compile(rx)


def directives(source: str, prefix: str) -> list[tuple[str, re.Pattern[str], str]]:
    rx = re.compile(rf"//\s*{re.escape(prefix)}(-NEXT|-LABEL)?(\{{LITERAL\}})?:(.*)$")
    out = []
    for line in source.splitlines():
        m = rx.search(line)
        if m:
            kind = (m.group(1) or "").lstrip("-") or "CHECK"
            text = m.group(3).strip()
            if "[[" in text and not m.group(2):
                raise ValueError(f"FileCheck variables are not supported: {line}")
            out.append((kind, _pattern(text, bool(m.group(2))), text))
    return out


def filecheck(source: str, output: str, prefix: str = "CHECK") -> None:
    """Raise AssertionError naming the first directive that does not match."""
    lines = output.splitlines()
    pos = 0  # index of the next line to search from
    last = -1
    for kind, rx, text in directives(source, prefix):
        if kind == "NEXT":
            i = last + 1
            if i >= len(lines) or not rx.search(lines[i]):
                got = lines[i] if i < len(lines) else "<end of output>"
                raise AssertionError(
                    f"{prefix}-NEXT: {text!r} does not match line {i + 1}: {got!r}"
                )
            last = i
        else:
            for i in range(pos, len(lines)):
                if rx.search(lines[i]):
                    last = i
                    break
            else:
                raise AssertionError(f"{prefix}: {text!r} not found after line {pos}")
        pos = last + 1
