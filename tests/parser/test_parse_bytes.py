"""parse_module takes bytes: MLIR bytecode by its magic, else UTF-8 text (issue 15)."""

from __future__ import annotations

import pytest

from hlorun.parser import parse_module, print_module
from hlorun.parser.errors import ParseError
from hlorun.parser.vhlo.artifact import serialize_portable_artifact

TEXT = """func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {
  %0 = stablehlo.add %x, %x : tensor<2xf32>
  func.return %0 : tensor<2xf32>
}
"""


def test_bytes_of_text_parse_as_text():
    assert parse_module(TEXT.encode()) == parse_module(TEXT)


def test_bytecode_is_detected_by_its_magic():
    data = serialize_portable_artifact(parse_module(TEXT), "1.0.0")
    assert data.startswith(b"ML\xefR")
    m = parse_module(data)
    assert print_module(m, canonical=True) == print_module(parse_module(TEXT), canonical=True)


def test_other_bytes_are_a_parse_error():
    with pytest.raises(ParseError, match="neither MLIR bytecode nor UTF-8"):
        parse_module(b"\xff\xfe\x00")
