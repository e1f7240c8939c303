"""Helpers of the per-label negative tests (``test_labels_<family>.py``): each test is a
small MLIR program, parsed and verified as ``hlorun verify`` would, whose errors must be
exactly one, carrying the spec label the program violates."""

from __future__ import annotations

from hlorun import shape_inference  # noqa: F401  (fills the op table)
from hlorun.parser import parse_module
from hlorun.parser.errors import VerificationError
from hlorun.shape_inference.verifier import collect_errors, verify_module


def func(args: str, *ops: str, results: str = "", returns: str = "") -> str:
    """``func.func @main(args) -> (results)`` whose body is ``ops`` then
    ``func.return returns``; ops are given one per string, already indented or not."""
    body = "\n".join("  " + op.strip("\n") for op in ops)
    sig = f" -> ({results})" if results else ""
    ret = f"func.return {returns}" if returns else "func.return"
    return f"func.func @main({args}){sig} {{\n{body}\n  {ret}\n}}\n"


def errors(text: str) -> list[VerificationError]:
    return collect_errors(parse_module(text, "t.mlir"))


def assert_label(text: str, label: str) -> None:
    """``text`` verifies with exactly one error, labelled ``label``."""
    found = errors(text)
    assert [e.label for e in found] == [label], "\n".join(map(str, found)) or "no error"


def assert_verifies(text: str) -> None:
    """``text`` verifies cleanly."""
    found = errors(text)
    assert found == [], "\n".join(map(str, found))
    verify_module(parse_module(text, "t.mlir"))
