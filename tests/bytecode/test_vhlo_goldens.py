"""The VHLO codec and printer against upstream's goldens (stablehlo/tests/vhlo/*.mlir.bc).

For each bytecode golden: every attribute/type entry decodes; every VHLO entry the
codec re-encodes is byte for byte the golden's entry; its printed form parses back to
the same value; and every complete ``#vhlo...`` / ``!vhlo...`` spelling in the golden's
CHECK lines (what ``stablehlo-opt --mlir-print-op-generic`` printed for that file) is
the printed form of an entry of the file.
"""

from __future__ import annotations

import re

import pytest

from hlorun.parser.bytecode.dialect_api import DialectWriter, get_codec
from hlorun.parser.bytecode.encoding import Cursor, Emitter
from hlorun.parser.printer import print_attribute, print_type
from hlorun.parser.vhlo.ir import VhloAttr, VhloType
from hlorun.parser.vhlo.text import parse_vhlo_attr_text, parse_vhlo_type_text
from tests.conftest import SHARED, shared_dir

reader = pytest.importorskip("hlorun.parser.bytecode.reader")

GOLDEN_DIR = SHARED / "tests" / "vhlo"
GOLDENS = sorted(p.name for p in GOLDEN_DIR.glob("*.mlir.bc")) if GOLDEN_DIR.exists() else []


class _Indices:
    """The golden's own numbering, so that re-encoding refers to the same entries."""

    def __init__(self, fr) -> None:
        self.a = {(type(v), v): i for i, v in enumerate(fr.attrs)}
        self.t = {(type(v), v): i for i, v in enumerate(fr.types)}
        self.s = {v: i for i, v in enumerate(fr.strings)}

    def attribute_index(self, a) -> int:
        return self.a[(type(a), a)]

    def type_index(self, t) -> int:
        return self.t[(type(t), t)]

    def string_index(self, s: str) -> int:
        return self.s[s]


def _load(name: str):
    path = shared_dir("tests", "vhlo") / name
    data = path.read_bytes()
    fr = reader.FileReader(data, str(path))
    c = Cursor(data, 0, len(data), str(path), "AttrType")
    for i in range(len(fr.attr_entries)):
        fr.attribute(i, c)
    for i in range(len(fr.type_entries)):
        fr.type(i, c)
    return data, fr


_START = re.compile(r"#vhlo\.[A-Za-z0-9_]+|#vhlo(?=<)|!vhlo\.[A-Za-z0-9_]+")


def _check_tokens(line: str) -> list[str]:
    """Complete VHLO spellings on one CHECK line (balanced ``<...>``, no regex blocks)."""
    out = []
    for m in _START.finditer(line):
        i = m.end()
        if not line.startswith("<", i):
            if m.group(0) != "#vhlo":
                out.append(m.group(0))
            continue
        depth, j, in_str = 0, i, False
        while j < len(line):
            ch = line[j]
            if in_str:
                j += ch == "\\"
                in_str = ch != '"'
            elif ch == '"':
                in_str = True
            elif ch == "<":
                depth += 1
            elif ch == ">" and line[j - 1] != "-":
                depth -= 1
                if depth == 0:
                    out.append(line[m.start() : j + 1])
                    break
            j += 1
    return [t for t in out if "{{" not in t and "[[" not in t]


def test_goldens_are_present():
    shared_dir("tests", "vhlo")
    assert len(GOLDENS) >= 30


@pytest.mark.parametrize("name", GOLDENS)
def test_every_vhlo_entry_reencodes_byte_for_byte(name: str):
    data, fr = _load(name)
    codec = get_codec("vhlo")
    idx = _Indices(fr)
    n = 0
    for entries, values, is_type in (
        (fr.attr_entries, fr.attrs, False),
        (fr.type_entries, fr.types, True),
    ):
        for e, v in zip(entries, values):
            if e.dialect != "vhlo":
                continue
            assert e.custom, f"textual VHLO entry {v!r}"
            em = Emitter()
            w = DialectWriter(em, idx, fr.version)
            assert (codec.write_type if is_type else codec.write_attribute)(w, v)
            assert bytes(em.buf) == bytes(data[e.start : e.end]), v
            text = print_type(v) if is_type else print_attribute(v)
            assert (parse_vhlo_type_text if is_type else parse_vhlo_attr_text)(text) == v
            n += 1
    assert n > 0


@pytest.mark.parametrize("name", [g for g in GOLDENS if g.startswith("stablehlo_legalize")])
def test_check_line_spellings_are_printed_entries(name: str):
    _, fr = _load(name)
    printed = {print_attribute(a) for a in fr.attrs if isinstance(a, VhloAttr)}
    printed |= {print_type(t) for t in fr.types if isinstance(t, VhloType)}
    source = (GOLDEN_DIR / name[: -len(".bc")]).read_text()
    tokens = [
        tok
        for line in source.splitlines()
        if re.search(r"//\s*CHECK(-NEXT|-SAME|-LABEL)?(\{LITERAL\})?:", line)
        for tok in _check_tokens(line.split(":", 1)[1])
    ]
    assert len(tokens) > 1000
    everything = "\n".join(printed)
    missing = [t for t in tokens if t not in printed and t not in everything]
    assert not missing, missing[:5]


@pytest.mark.parametrize("name", [g for g in GOLDENS if g.startswith("stablehlo_legalize")])
def test_golden_module_prints_and_parses_back(name: str):
    """The whole module read from bytecode prints as text that parses to the same IR."""
    from hlorun.parser.grammar import parse_module
    from hlorun.parser.printer import print_module

    path = shared_dir("tests", "vhlo") / name
    m = reader.read_bytecode(path.read_bytes(), str(path))
    assert parse_module(print_module(m)) == m
