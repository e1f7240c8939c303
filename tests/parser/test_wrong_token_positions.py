"""Where the text parser reports an error about a missing or wrong token, and the
errors reported after it.

The rule is MLIR's ``Parser::emitWrongTokenError`` (mlir/lib/AsmParser/Parser.cpp): an
``expected X`` error is reported just after the text before the offending token (the
missing token was due there), backing over blanks, blank lines and ``//`` comments, so
a token that starts its line is reported at the end of the previous line; at the end
of input the offending token is the last character.  Keywords and names keep the
token's own position (``parseKeyword`` uses ``emitError`` at the current location).

StableHLO's struct-attribute parsers (``parseStruct``, StablehloOps.cpp) want a ',' or
the closing '>' after each entry ("expected '>'"), and when they give up the attribute's
parser reports one more error where parsing stopped: "failed parsing dot dimension
numbers attribute" (gather / scatter likewise; the raw convolution form says "dot" as
upstream does).  Positions are counted by hand from the texts below.
"""

from __future__ import annotations

import pytest

from hlorun.parser.errors import ParseError
from hlorun.parser.grammar import parse_module


def _errors(text: str) -> list[tuple[int, int, str]]:
    with pytest.raises(ParseError) as info:
        parse_module(text, "t.mlir")
    return [(e.pos.line, e.pos.col, e.message) for e in info.value.diagnostics() if e.pos]


def _dot(body_lines: list[str]) -> str:
    return "module attributes {\n  x = #stablehlo.dot<\n" + "\n".join(body_lines) + "\n  >} {}"


def test_missing_comma_in_struct_is_reported_at_the_end_of_the_previous_line():
    text = _dot(["    lhs_batching_dimensions = [0]", "    rhs_batching_dimensions = [0]"])
    (line, col, msg), (line2, col2, msg2) = _errors(text)
    # line 3 is `    lhs_batching_dimensions = [0]`: 33 characters, the error just after
    assert (line, col) == (3, 34)
    assert msg.startswith("expected '>'")
    # the attribute's parser gives up where the parser stands: the next key
    assert (line2, col2, msg2) == (4, 5, "failed parsing dot dimension numbers attribute")


def test_blank_lines_and_comments_are_backed_over():
    text = _dot(
        [
            "    lhs_batching_dimensions = [0] // a note",
            "",
            "   // a comment line",
            "    rhs_batching_dimensions = [0]",
        ]
    )
    errors = _errors(text)
    # back over line 5 (a comment), line 4 (blank) and the comment ending line 3:
    # the error stands just after `[0]` of line 3 (column 4 + 29 + 1)
    assert errors[0][:2] == (3, 34)
    assert errors[1][:2] == (6, 5)


def test_wrong_token_on_the_same_line_is_reported_after_the_previous_token():
    text = "module attributes {\n  x = #stablehlo.dot<lhs_batching_dimensions = [0] [1]>\n} {}"
    errors = _errors(text)
    # line 2: `[0]` ends at column 50 (2 blanks + 48 characters), `[1]` starts at 52
    assert errors[0][:2] == (2, 51) and errors[0][2].startswith("expected '>'")
    assert errors[1] == (2, 52, "failed parsing dot dimension numbers attribute")


def test_unknown_key_and_duplicate_key_are_followed_by_the_failure():
    text = "module attributes {\n  x = #stablehlo.gather<\n    offset_dims = [0],\n    foo = [1]>\n} {}"
    errors = _errors(text)
    assert errors[0][:2] == (4, 5) and errors[0][2].startswith("expected one of: `offset_dims`")
    assert errors[1] == (4, 5, "failed parsing gather dimension numbers attribute")
    text = (
        "module attributes {\n  x = #stablehlo.scatter<\n    index_vector_dim = 1,\n"
        "    index_vector_dim = 1>\n} {}"
    )
    errors = _errors(text)
    assert errors[0] == (4, 5, "duplicated `index_vector_dim` entry")
    # MLIR's parser stands after the repeated keyword, at its '=' (column 22)
    assert errors[1] == (4, 22, "failed parsing scatter dimension numbers attribute")


def test_raw_convolution_dimensions_failure_names_dot_as_upstream():
    text = (
        "module attributes {\n  x = #stablehlo.conv<raw\n    input_batch_dimension = 0\n"
        "    input_feature_dimension = 1>\n} {}"
    )
    errors = _errors(text)
    assert errors[0][:2] == (3, 30) and errors[0][2].startswith("expected '>'")
    assert errors[1] == (4, 5, "failed parsing dot dimension numbers attribute")


def test_other_structs_report_no_failure_after_the_error():
    # ChannelHandle's parser is generated from its assembly format: no extra error
    text = "module attributes {\n  x = #stablehlo.channel_handle<handle = 1\n  type = 0>\n} {}"
    errors = _errors(text)
    assert len(errors) == 1 and errors[0][:2] == (2, 43)


def test_missing_punctuation_in_an_op_goes_to_the_previous_line():
    text = (
        "func.func @f(%a: tensor<f32>) -> tensor<f32> {\n"
        '  %0 = "stablehlo.add"(%a, %a) : (tensor<f32>, tensor<f32>\n'
        "    ) -> tensor<f32>\n"
        '  %1 = "stablehlo.abs"(%0 : (tensor<f32>) -> tensor<f32>\n'
        "  func.return %1 : tensor<f32>\n}"
    )
    # line 4: `:` where ',' or ')' is due: just after `%0` (columns 24-25)
    ((line, col, msg),) = _errors(text)
    assert (line, col) == (4, 26) and msg.startswith("expected ',' or ')'")
    text = (
        "func.func @f(%a: tensor<f32>) -> tensor<f32> {\n"
        "  %0 = stablehlo.abs %a :\n\n"
        "  func.return %0 : tensor<f32>\n}"
    )
    # a type is due after `:` ending line 2; `func` on line 4 is reported there
    ((line, col, msg),) = _errors(text)
    assert (line, col) == (2, 26) and msg.startswith("expected a type")


def test_keyword_errors_keep_the_token_position():
    text = "module attributes {\n  x = #stablehlo.type_extensions<\n  foo = [1]>\n} {}"
    ((line, col, msg),) = _errors(text)
    assert (line, col) == (3, 3) and msg.startswith("expected 'bounds'")


def test_error_at_the_end_of_input_is_at_the_last_character():
    text = "module attributes {x = #stablehlo.dot<lhs_batching_dimensions = [0]"
    errors = _errors(text)
    # the end of input: MLIR backs up one character, to the `]` (column 67)
    assert errors[0][:2] == (1, 67) and errors[0][2].startswith("expected '>'")
