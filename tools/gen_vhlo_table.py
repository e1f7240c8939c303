"""Regenerate ``parser/vhlo/table_data.py`` from the upstream VHLO TableGen files.

Reads ``stablehlo/dialect/VhloOps.td``, ``VhloTypes.td``, ``VhloAttrs.td`` and
``VhloEnums.td`` from a stablehlo git checkout (default: the fetched mirror) and writes
one data module: every op / type / attribute / enum with its ``[min, max]`` version
range and its parameters in declaration order.  ``--check`` compares instead of
writing (the test suite runs it that way).

    python tools/gen_vhlo_table.py [--repo DIR] [--check]
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
from pathlib import Path

DEFAULT_REPO = "/work/.mirror/openxla+stablehlo/repo"
OUT = Path(__file__).resolve().parent.parent / "parser" / "vhlo" / "table_data.py"


def read_td(repo: str, name: str) -> str:
    path = f"stablehlo/dialect/{name}"
    p = Path(repo)
    if (p / path).is_file():
        return (p / path).read_text()
    return subprocess.run(
        ["git", "-C", repo, "show", f"HEAD:{path}"], check=True, capture_output=True, text=True
    ).stdout


def _strip_comments(text: str) -> str:
    return re.sub(r"//[^\n]*", "", text)


def _bodies(text: str, head: str):
    """Yield (match, body) for every ``def X : <head>...`` with its ``{...}`` body (or "")."""
    for m in re.finditer(head, text):
        i = m.end()
        while i < len(text) and text[i] in " \t\n":
            i += 1
        body = ""
        if i < len(text) and text[i] == "{":
            depth, j = 0, i
            while j < len(text):
                if text[j] == "{":
                    depth += 1
                elif text[j] == "}":
                    depth -= 1
                    if depth == 0:
                        break
                j += 1
            body = text[i + 1 : j]
        yield m, body


def _dag(body: str, keyword: str, opener: str) -> list[tuple[str, str]]:
    m = re.search(r"let\s+" + keyword + r"\s*=\s*\(\s*" + opener + r"\b(.*?)\);", body, re.S)
    if not m:
        return []
    return [(k.strip(), n) for k, n in re.findall(r"([\w<>:\"\s,]+?):\$(\w+)", m.group(1))]


def _kind(decl: str) -> str:
    decl = decl.strip().strip(",").strip()
    return "variadic" if decl.startswith(("Variadic", "VariadicRegion")) else "single"


def ops(text: str) -> list[tuple]:
    text = _strip_comments(text)
    out = []
    head = r'def\s+\w+\s*:\s*VHLO_Op<"([\w\-]+)",\s*"([\d.]+)",\s*"([\w.]+)"([^{]*?)>(?=\s*\{)'
    for m, body in _bodies(text, head):
        name, lo, hi, traits = m.group(1), m.group(2), m.group(3), m.group(4)
        args = _dag(body, "arguments", "ins")
        operands = tuple((n, _kind(d)) for d, n in args if "AnyAttr" not in d)
        attrs = tuple(n for d, n in args if "AnyAttr" in d)
        results = tuple((n, _kind(d)) for d, n in _dag(body, "results", "outs"))
        regions = tuple((n, _kind(d)) for d, n in _dag(body, "regions", "region"))
        flags = tuple(
            t
            for t in (
                "Terminator",
                "SameVariadicOperandSize",
                "VHLO_VersionedOpConstraintInterface",
            )
            if t in traits
        )
        out.append((name, lo, hi, operands, attrs, results, regions, flags))
    return out


def _split_top(s: str) -> list[str]:
    """Split on commas outside <...> and "..."."""
    out, depth, quoted, cur = [], 0, False, ""
    for c in s:
        if c == '"':
            quoted = not quoted
        elif not quoted and c == "<":
            depth += 1
        elif not quoted and c == ">":
            depth -= 1
        if c == "," and depth == 0 and not quoted:
            out.append(cur)
            cur = ""
        else:
            cur += c
    return [x.strip() for x in out + [cur] if x.strip()]


def _params(body: str) -> tuple[tuple[str, str], ...]:
    m = re.search(r"let\s+parameters\s*=\s*\(\s*ins\b(.*?)\);\s*\n", body, re.S)
    if not m:
        return ()
    items = [x.rsplit(":$", 1) for x in _split_top(m.group(1))]
    return tuple((n, d.strip().strip('"')) for d, n in items)


def types(text: str) -> list[tuple]:
    text = _strip_comments(text)
    head = r'def\s+\w+\s*:\s*VHLO_TypeDef<"(\w+)",\s*"(\w+)",\s*"([\d.]+)",\s*"([\w.]+)"[^;{]*?>(?=\s*[{;])'
    out = []
    for m, body in _bodies(text, head):
        out.append((m.group(2), m.group(3), m.group(4), _params(body), m.group(1)))
    return out


def attrs(text: str) -> list[tuple]:
    text = _strip_comments(text)
    head = r'def\s+\w+\s*:\s*VHLO_AttrDef<"(\w+)",\s*"([\d.]+)",\s*"([\w.]+)">'
    out = []
    for m, body in _bodies(text, head):
        mn = re.search(r'let\s+mnemonic\s*=\s*"(\w+)"', body)
        if mn is None:
            raise SystemExit(f"VhloAttrs.td: attribute {m.group(1)} has no mnemonic")
        out.append((mn.group(1), m.group(2), m.group(3), _params(body), m.group(1)))
    return out


def enums(text: str) -> list[tuple]:
    text = _strip_comments(text)
    cases = {
        d: (name, int(v))
        for d, name, v in re.findall(r'def\s+(\w+)\s*:\s*I32EnumAttrCase<"(\w+)",\s*(\d+)>', text)
    }
    lists = {
        d: tuple(cases[c] for c in re.findall(r"\w+", body))
        for d, body in re.findall(
            r'def\s+(\w+)\s*:\s*VHLO_I32EnumAttr<"\w+",\s*\[(.*?)\]\s*>', text, re.S
        )
    }
    out = []
    for info, mnemonic, lo, hi in re.findall(
        r'VHLO_EnumAttr<(\w+),\s*"(\w+)",\s*"([\d.]+)",\s*"([\w.]+)">', text
    ):
        out.append((mnemonic, lo, hi, lists[info]))
    return out


def render(repo: str) -> str:
    commit = (
        subprocess.run(
            ["git", "-C", repo, "rev-parse", "HEAD"], capture_output=True, text=True
        ).stdout.strip()
        or "unknown"
    )
    parts = [
        '"""VHLO ops, types, attributes and enums with their version ranges (generated).\n\n'
        "Generated by ``tools/gen_vhlo_table.py`` from openxla/stablehlo "
        f"``stablehlo/dialect/Vhlo{{Ops,Types,Attrs,Enums}}.td`` at commit\n{commit}.  "
        "Do not edit: rerun the tool.  ``parser/vhlo/table.py`` gives the API.\n\n"
        "- OPS (VhloOps.td): (mnemonic, min, max, operands, attributes, results, regions, "
        "traits);\n  operands/results/regions are (name, 'single' | 'variadic'); attributes "
        "in .td order.\n"
        "- TYPES (VhloTypes.td) / ATTRS (VhloAttrs.td): (mnemonic, min, max, params, cpp "
        "name);\n  params are (name, TableGen parameter type) in .td order.\n"
        "- ENUMS (VhloEnums.td): (mnemonic, min, max, ((case, value), ...)).\n"
        '"""\n\n# ruff: noqa: E501\n# fmt: off\n'
    ]
    for title, rows in (
        ("OPS", ops(read_td(repo, "VhloOps.td"))),
        ("TYPES", types(read_td(repo, "VhloTypes.td"))),
        ("ATTRS", attrs(read_td(repo, "VhloAttrs.td"))),
        ("ENUMS", enums(read_td(repo, "VhloEnums.td"))),
    ):
        body = "".join(f"    {row!r},\n" for row in rows)  # one row a line: data, not code
        parts.append(f"\n{title} = (\n{body})\n")
    return "".join(parts)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--repo", default=DEFAULT_REPO)
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--out", default=str(OUT))
    a = ap.parse_args(argv)
    text = render(a.repo)
    out = Path(a.out)
    if a.check:
        same = out.is_file() and out.read_text() == text
        print("up to date" if same else f"{out} differs from upstream .td files")
        return 0 if same else 1
    out.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
