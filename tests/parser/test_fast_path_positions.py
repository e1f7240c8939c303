"""Source positions of operations, functions and modules parsed by the one-line fast
paths (parser/grammar.py, parser/op_syntax.py), which count lines as they go instead
of looking positions up in a table of line starts: each must be the 1-based line and
column where the construct's text starts (the ``file:line:col`` of MLIR diagnostics),
found here by searching the text itself; and the same as the general parser's."""

from __future__ import annotations

import pytest

from hlorun.parser import grammar
from hlorun.parser.grammar import parse_module
from hlorun.parser.ir import Function

_T = "tensor<2x3xf32>"
_LIT = "[[" + ", ".join(["1.500000e+00"] * 3) + "], [" + ", ".join(["-2.5"] * 3) + "]]"

TEXT = f"""// a comment line

module @m attributes {{mhlo.num_partitions = 1 : i32}} {{
  func.func public @main() -> (tensor<i1> {{jax.result_info = ""}}) {{
    %0:2 = call @inputs() : () -> ({_T}, {_T})

      %1 = call @expected() : () -> {_T}   // trailing comment
    %2 = stablehlo.add %0#0, %0#1 : {_T}
    stablehlo.custom_call @check.expect_close(%2, %1) {{has_side_effect = true}} : ({_T}, {_T}) -> ()
    %3 = stablehlo.constant dense<true> : tensor<i1>
    return %3 : tensor<i1>
  }}
  func.func private @inputs() -> ({_T}, {_T}) {{
    %cst = stablehlo.constant dense<{_LIT}> : {_T}
    %cst_0 = stablehlo.constant dense<{_LIT}> : {_T}
\treturn %cst, %cst_0 : {_T}, {_T}
  }}
  func.func private @expected() -> ({_T} {{mhlo.layout_mode = "default"}}) {{
    %cst = stablehlo.constant dense<{_LIT}> : {_T} loc("x.py":3:4)
    %c = "stablehlo.add"(%cst, %cst) : ({_T}, {_T}) -> {_T}
    return %c : {_T}
  }}
}}
"""


def _where(text: str, needle: str, nth: int = 0) -> tuple[int, int]:
    """1-based (line, column) of the ``nth`` occurrence of ``needle`` in ``text``."""
    pos = -1
    for _ in range(nth + 1):
        pos = text.index(needle, pos + 1)
    line = text.count("\n", 0, pos) + 1
    return line, pos - (text.rfind("\n", 0, pos) + 1) + 1


def _items(module):
    for f in module.body:
        assert isinstance(f, Function)
        yield f"func.func {f.visibility} @{f.name}", f
        yield from ((None, op) for op in f.body.entry.operations)


# the text each construct starts with, in order (the nth occurrence)
STARTS = [
    ("func.func public @main", 0),
    ("%0:2 = call", 0),
    ("%1 = call", 0),
    ("%2 = stablehlo.add", 0),
    ("stablehlo.custom_call", 0),
    ("%3 = stablehlo.constant", 0),
    ("return %3", 0),
    ("func.func private @inputs", 0),
    ("%cst = stablehlo.constant", 0),
    ("%cst_0 = stablehlo.constant", 0),
    ("return %cst, %cst_0", 0),
    ("func.func private @expected", 0),
    ("%cst = stablehlo.constant", 1),
    ('%c = "stablehlo.add"', 0),
    ("return %c :", 0),
]


@pytest.mark.parametrize("offset", [0, 7])
def test_positions_are_where_the_text_starts(offset):
    module = parse_module(TEXT, "f.mlir", line_offset=offset)
    assert (module.pos.filename, module.pos.line, module.pos.col) == (
        "f.mlir",
        _where(TEXT, "module @m")[0] + offset,
        1,
    )
    items = [x for _, x in _items(module)]
    assert len(items) == len(STARTS)
    for (needle, nth), item in zip(STARTS, items):
        line, col = _where(TEXT, needle, nth)
        assert (item.pos.line, item.pos.col) == (line + offset, col), needle


def test_positions_match_the_general_parser(monkeypatch):
    """The same positions with every fast path off (c.location's table of lines)."""
    fast = parse_module(TEXT)
    for name in ("_call_fast", "_constant_fast", "_return_fast", "_custom_call_fast"):
        monkeypatch.setattr(grammar.Parser, name, lambda self, *a: None)
    monkeypatch.setattr(grammar.Parser, "_function_fast", lambda self, *a: None)
    monkeypatch.setattr(grammar.Parser, "_generic_fast", lambda self, *a: None)
    slow = parse_module(TEXT)
    assert slow == fast
    assert slow.pos == fast.pos
    for (_, a), (_, b) in zip(_items(slow), _items(fast)):
        assert a.pos == b.pos
