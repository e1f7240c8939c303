"""Collecting and running the official conformance files of ../shared/stablehlo.

One test case per ``// -----`` chunk, named ``file.mlir::function`` (the chunk's entry
function).  Results are tallied per file for the terminal summary.
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

from hlorun.parser.source import split_input
from tests.conftest import SHARED

FUNC = re.compile(r"func\.func\s+(?:public\s+|private\s+)?@([\w$.-]+)")
ARGS = re.compile(r'--args="([^"]*)"')

# (file, outcome) -> count, filled as tests run; printed by conftest's summary hook.
TALLY: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))


@dataclass(frozen=True)
class Case:
    path: Path
    index: int
    first_line: int
    text: str  # padded so line numbers match the file
    name: str
    args: str | None

    @property
    def id(self) -> str:
        rel = self.path.relative_to(SHARED / "tests" / "interpret")
        return f"{rel}::{self.name}"


def chunks(path: Path, split: bool = True) -> list[Case]:
    text = path.read_text()
    m = ARGS.search(text)
    args = m.group(1) if m else None
    out: list[Case] = []
    for i, chunk in enumerate(split_input(text, split)):
        names = FUNC.findall(chunk.text)
        name = "main" if "main" in names else (names[0] if names else f"chunk{i}")
        out.append(Case(path, i, chunk.first_line, chunk.text, name, args))
    return out


def interpret_cases() -> list[Case]:
    root = SHARED / "tests" / "interpret"
    if not root.exists():
        return []
    cases: list[Case] = []
    for path in sorted(root.rglob("*.mlir")):
        text = path.read_text()
        split = any(
            "split-input-file" in line for line in text.splitlines() if line.startswith("// RUN")
        )
        cases.extend(chunks(path, split))
    return cases
