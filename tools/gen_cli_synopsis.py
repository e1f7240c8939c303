"""The README's command-line synopsis, generated from the argparse definitions.

``python tools/gen_cli_synopsis.py`` rewrites the block between the markers
``<!-- cli-synopsis:begin -->`` and ``<!-- cli-synopsis:end -->`` of README.md with one
usage line per sub-command (argparse's own usage text, at a fixed width);
``--check`` exits 1 when the README differs (tests/test_readme.py runs the same check).
A new sub-command shows up by running this again.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
BEGIN = "<!-- cli-synopsis:begin -->"
END = "<!-- cli-synopsis:end -->"
WIDTH = 90


def synopsis() -> str:
    """One usage text per sub-command, in ``hlorun --help`` order, then ``--version``."""
    from hlorun.engine.cli import build_parser

    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    lines = []
    for name, p in sub.choices.items():
        p.formatter_class = lambda prog: argparse.HelpFormatter(prog, width=WIDTH)
        usage = p.format_usage().strip().replace(" [-h]", "", 1)
        first, *rest = usage.split("\n")
        lines.append(first.removeprefix("usage: "))
        lines += [line[len("usage: ") :] for line in rest]  # argparse's indent, less "usage: "
        del name
    lines.append("hlorun --version")
    return "\n".join(lines)


def block() -> str:
    """What goes between the markers."""
    return f"{BEGIN}\n```\n{synopsis()}\n```\n{END}"


def current(text: str) -> str:
    """The README's block between the markers (markers included)."""
    start = text.index(BEGIN)
    end = text.index(END, start) + len(END)
    return text[start:end]


def main(argv: list[str]) -> int:
    text = README.read_text(encoding="utf-8")
    want = block()
    if "--check" in argv:
        if current(text) != want:
            print("README.md: the CLI synopsis is stale: run python tools/gen_cli_synopsis.py")
            return 1
        return 0
    README.write_text(text.replace(current(text), want), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
