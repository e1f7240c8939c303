"""Builtin locations <-> MLIR location text (what ``loc(...)`` holds).

The encodings' fields follow ``BuiltinDialectBytecode.td`` (CallSiteLoc, FileLineColLoc,
FusedLoc[WithMetadata], NameLoc, UnknownLoc, FileLineColRange); the text follows MLIR's
AsmPrinter (``printLocationInternal``): ``callsite(A at B)``, ``"f":1:2``,
``"f":1:2 to :5``, ``"f":1:2 to 3:4``, ``fused<M>[a, b]``, ``"name"(child)``,
``unknown``.
"""

from __future__ import annotations

import re

from ..ir import Attribute, LocationAttr

# Field kinds of each location encoding, in encoding order.
LOC_KINDS: dict[str, tuple[str, ...]] = {
    "CallSiteLoc": ("loc", "loc"),
    "FileLineColLoc": ("str", "varint", "varint"),
    "FusedLoc": ("locs",),
    "FusedLocWithMetadata": ("locs", "attr"),
    "NameLoc": ("str", "loc"),
    "UnknownLoc": (),
    "FileLineColRange": ("str", "varints"),
}


def quote(s: str) -> str:
    """An MLIR string literal (printEscapedString)."""
    out = []
    for ch in s:
        o = ord(ch)
        if ch == '"' or ch == "\\":
            out.append("\\" + ch)
        elif 0x20 <= o < 0x7F:
            out.append(ch)
        elif o < 0x100:
            out.append(f"\\{o:02X}")
        else:
            out.extend(f"\\{b:02X}" for b in ch.encode("utf-8"))
    return '"' + "".join(out) + '"'


def render_location(kind: str, parts: list) -> str:
    """The text of a location of ``kind`` from its decoded fields."""
    if kind == "UnknownLoc":
        return "unknown"
    if kind == "CallSiteLoc":
        return f"callsite({parts[0].text} at {parts[1].text})"
    if kind == "FileLineColLoc":
        return f"{quote(parts[0])}:{parts[1]}:{parts[2]}"
    if kind == "FileLineColRange":
        v = list(parts[1])
        name = quote(parts[0])
        if len(v) == 0:
            return f"{name}:0:0"
        if len(v) == 1:
            return f"{name}:{v[0]}:0"
        if len(v) == 2:
            return f"{name}:{v[0]}:{v[1]}"
        if len(v) == 3:
            return f"{name}:{v[0]}:{v[1]} to :{v[2]}"
        return f"{name}:{v[0]}:{v[1]} to {v[2]}:{v[3]}"
    if kind == "NameLoc":
        child = parts[1].text
        return quote(parts[0]) if child == "unknown" else f"{quote(parts[0])}({child})"
    locs = ", ".join(loc.text for loc in parts[0])
    if kind == "FusedLoc":
        return f"fused[{locs}]"
    from ..printer import print_attribute

    return f"fused<{print_attribute(parts[1])}>[{locs}]"


_STR = re.compile(r'"(?:[^"\\]|\\.)*"', re.S)
_INT = re.compile(r"\d+")
_WS = re.compile(r"\s*")


class _LocParser:
    def __init__(self, text: str):
        self.t = text
        self.i = 0

    def ws(self) -> None:
        m = _WS.match(self.t, self.i)
        assert m is not None  # \s* matches the empty string
        self.i = m.end()

    def lit(self, s: str) -> bool:
        self.ws()
        if self.t.startswith(s, self.i):
            self.i += len(s)
            return True
        return False

    def need(self, s: str) -> None:
        if not self.lit(s):
            raise ValueError(f"expected {s!r}")

    def int_(self) -> int:
        self.ws()
        m = _INT.match(self.t, self.i)
        if m is None:
            raise ValueError("expected an integer")
        self.i = m.end()
        return int(m.group(0))

    def string(self) -> str:
        from ..lexer import unescape_string

        self.ws()
        m = _STR.match(self.t, self.i)
        if m is None:
            raise ValueError("expected a string")
        self.i = m.end()
        return unescape_string(m.group(0)[1:-1])

    def loc(self) -> tuple[str, list]:
        if self.lit("unknown"):
            return "UnknownLoc", []
        if self.lit("callsite("):
            a = self.sub()
            self.need("at")
            b = self.sub()
            self.need(")")
            return "CallSiteLoc", [a, b]
        if self.lit("fused"):
            meta = None
            if self.lit("<"):
                meta = self.metadata()
            self.need("[")
            locs = []
            if not self.lit("]"):
                while True:
                    locs.append(self.sub())
                    if self.lit("]"):
                        break
                    self.need(",")
            if meta is None:
                return "FusedLoc", [tuple(locs)]
            return "FusedLocWithMetadata", [tuple(locs), meta]
        s = self.string()
        if self.lit(":"):
            line = self.int_()
            self.need(":")
            col = self.int_()
            save = self.i
            if self.lit("to"):
                if self.lit(":"):
                    return "FileLineColRange", [s, (line, col, self.int_())]
                el = self.int_()
                self.need(":")
                return "FileLineColRange", [s, (line, col, el, self.int_())]
            self.i = save
            return "FileLineColLoc", [s, line, col]
        save = self.i
        if self.lit("("):
            child = self.sub()
            self.need(")")
            return "NameLoc", [s, child]
        self.i = save
        return "NameLoc", [s, LocationAttr("unknown")]

    def sub(self) -> LocationAttr:
        self.ws()
        start = self.i
        self.loc()
        return LocationAttr(self.t[start : self.i].strip())

    def metadata(self) -> Attribute:
        from ..grammar import Parser

        p = Parser(self.t)
        p.c.pos = self.i
        a = p.parse_attribute()
        self.i = p.c.pos
        self.need(">")
        return a


def location_parts(text: str) -> tuple[str, list] | None:
    """(encoding kind, fields) of location ``text``, or None when it is not one
    (e.g. an alias ``#loc3``): the writer then stores the text form."""
    p = _LocParser(text)
    try:
        kind, parts = p.loc()
        p.ws()
        if p.i != len(text):
            return None
    except (ValueError, IndexError):
        return None
    except Exception:  # noqa: BLE001 - text parser errors in fused metadata
        return None
    return kind, parts
