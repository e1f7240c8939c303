"""Measure the verifier against StableHLO's verifier suite (tests/verifier/*.mlir).

``ops_stablehlo.mlir``: each ``// -----`` split either carries ``// expected-error``
annotations (then it must be rejected, ideally at the annotated line) or none (then it
must parse and verify).  ``infer_stablehlo.mlir``: ``"hlo_test_infer.get_return_types"(%x)``
stands after an op, with ``// CHECK: types0 = T0`` (``CHECK-SAME: types1 = T1``...) lines
giving the exact types the op's shape function infers; ``get_return_type_components``
the same for shapes and bounds only (its types print ``index`` as element type).

Used by ``test_verifier_suite.py``; ``python3 tests/shape_inference/verifier_suite.py``
prints the figures and every mismatch.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import shape_inference  # noqa: F401  (fills the op table)
from parser.errors import HloError, ParseError
from parser.grammar import Parser, parse_module, split_input_file
from parser.ir import Module, Operation, Region, TensorType, Type
from parser.printer import print_type
from shape_inference.optable import OP_TABLE
from shape_inference.verifier import infer_op, same_type, verify_module

# `// expected-error@+1 {{msg}}`, `@-1`, `@above`, `@below`, or no `@` (this line);
# `expected-error-re` takes a regex, which we only report.
ANNOTATION = re.compile(
    r"//\s*expected-error(?:-re)?\s*(?:@(above|below|[+-]\d+))?\s*\{\{(.*)\}\}")
TYPES = re.compile(r"types(\d+) = (.*?)(?=,\s*types\d+ = |$)")
CHECK_TYPES = re.compile(r"//\s*CHECK(-SAME)?:\s*(types\d+ = .*)$")
GET_TYPES = re.compile(r'"hlo_test_infer\.(get_return_types|get_return_type_components)"')


@dataclass(frozen=True)
class Split:
    line: int  # first line of the split in the file (1-based)
    offset: int  # lines before it
    text: str
    expected: tuple[tuple[int, str], ...]  # (annotated line, message)

    @property
    def lines(self) -> frozenset[int]:
        return frozenset(line for line, _ in self.expected)


@dataclass(frozen=True)
class Outcome:
    kind: str  # "accepted" | "parse error" | "verification error" | "crash"
    line: int | None = None
    message: str = ""

    def __str__(self) -> str:
        if self.kind == "accepted":
            return "accepted"
        return f"{self.kind} at line {self.line}: {self.message}"


def annotated_line(line: int, where: str | None) -> int:
    if where is None:
        return line
    if where == "above":
        return line - 1
    if where == "below":
        return line + 1
    return line + int(where)


def splits(path: Path) -> list[Split]:
    out = []
    for text, offset in split_input_file(path.read_text()):
        expected = []
        for i, line in enumerate(text.split("\n")):
            m = ANNOTATION.search(line)
            if m:
                expected.append((annotated_line(offset + i + 1, m.group(1)), m.group(2)))
        out.append(Split(offset + 1, offset, text, tuple(expected)))
    return out


def outcome(split: Split, path: Path) -> Outcome:
    """Parse and verify one split."""
    try:
        module = parse_module(split.text, str(path), line_offset=split.offset)
    except ParseError as e:
        return Outcome("parse error", e.pos.line if e.pos else None, e.message)
    try:
        verify_module(module)
    except HloError as e:
        kind = "crash" if e.label == "shape_function" else "verification error"
        return Outcome(kind, e.pos.line if e.pos else None, e.message)
    except Exception as e:  # a bug in the verifier: report it, do not hide it
        return Outcome("crash", None, f"{type(e).__name__}: {e}")
    return Outcome("accepted")


@dataclass(frozen=True)
class Verdict:
    split: Split
    outcome: Outcome

    @property
    def negative(self) -> bool:
        return bool(self.split.expected)

    @property
    def right(self) -> bool:
        """Figure 1: a negative split rejected, a positive one accepted."""
        if self.negative:
            return self.outcome.kind in ("parse error", "verification error")
        return self.outcome.kind == "accepted"

    @property
    def right_line(self) -> bool:
        """Figure 2: as figure 1, and the error at an annotated line."""
        return self.right and (not self.negative or self.outcome.line in self.split.lines)

    def describe(self) -> str:
        want = "; ".join(f"line {ln}: {msg}" for ln, msg in self.split.expected) or "accepted"
        return f"expected {want} -- we: {self.outcome}"


@cache
def judge_file(path: Path) -> tuple[Verdict, ...]:
    return tuple(Verdict(s, outcome(s, path)) for s in splits(path))


def family_of(split: Split, path: Path) -> str:
    """The shape_inference family of the op at the (first) annotated line, if any."""
    try:
        module = parse_module(split.text, str(path), line_offset=split.offset)
    except HloError:
        return "parser"
    lines = split.lines or frozenset(range(split.line, split.line + split.text.count("\n")))
    for op in walk(module):
        if op.pos.line in lines:
            row = OP_TABLE.get(op.name)
            if row is not None and row.shape is not None:
                return row.shape.__module__.rsplit(".", 1)[-1]
            if op.name.startswith(("func.", "stablehlo.", "chlo.")):
                return "verifier" if row is None else "control_flow"
    return "verifier"


def walk(module: Module):
    def region(r: Region):
        for b in r.blocks:
            for op in b.operations:
                yield op
                for x in op.regions:
                    yield from region(x)

    for item in module.body:
        if isinstance(item, Operation):
            yield item
            for x in item.regions:
                yield from region(x)
        elif item.body is not None:
            yield from region(item.body)


# --------------------------------------------------------------------------------------
# infer_stablehlo.mlir: inferred types
# --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class InferCase:
    line: int  # line of the hlo_test_infer op
    components: bool  # get_return_type_components: shapes and bounds only
    expected: tuple[str, ...]  # types0, types1, ... as text
    result: str  # "match" | "mismatch" | "unsupported"
    detail: str


def _parse_type(text: str) -> Type:
    return Parser(text.strip()).parse_type()


def _expectations(split: Split) -> list[tuple[int, list[str]]]:
    """(line, [types0, types1...]) for each group of CHECK lines with typesN."""
    groups: list[tuple[int, list[str]]] = []
    for i, line in enumerate(split.text.split("\n")):
        m = CHECK_TYPES.search(line)
        if not m:
            continue
        found = [t.strip() for _, t in TYPES.findall(m.group(2))]
        if m.group(1) and groups:
            groups[-1][1].extend(found)
        else:
            groups.append((split.offset + i + 1, found))
    return groups


def _defining_op(module: Module, name: str) -> Operation | None:
    base = name.split("#")[0]
    for op in walk(module):
        for v in op.results:
            if v.name == name or v.name.split("#")[0] == base:
                return op
    return None


def _constants(module: Module) -> dict[str, object]:
    out = {}
    for op in walk(module):
        if op.name == "stablehlo.constant" and len(op.results) == 1:
            value = op.attr("value")
            if value is not None and hasattr(value, "array"):
                out[op.results[0].name] = value.array
    return out


def _same_components(a: Type, b: Type) -> bool:
    if isinstance(a, TensorType) and isinstance(b, TensorType):
        return same_type(TensorType(a.shape, b.element_type, a.encoding), b)
    return same_type(a, b)


def _matches(got: Type, text: str, components: bool) -> bool:
    """``got`` is the type ``text`` gives (FileCheck's ``{{regex}}`` parts allowed)."""
    if "{{" in text:  # FileCheck: literal text with {{regex}} parts, matched as a prefix
        parts = re.split(r"\{\{(.*?)\}\}", text)
        pattern = "".join(re.escape(p) if i % 2 == 0 else p for i, p in enumerate(parts))
        return re.match(pattern, print_type(got) + "}") is not None
    want = _parse_type(text)
    return _same_components(got, want) if components else same_type(got, want)


def infer_cases(path: Path) -> list[InferCase]:
    cases = []
    for split in splits(path):
        if split.expected:
            continue
        groups = _expectations(split)
        if not groups:
            continue
        module = parse_module(split.text, str(path), line_offset=split.offset)
        probes = [(op, fn) for fn in module.functions.values() for op in walk(Module((fn,)))
                  if op.name.startswith("hlo_test_infer.get_return_type")]
        for line, texts in groups:
            after = [(op, fn) for op, fn in probes if op.pos.line >= line]
            probe, fn = after[0] if after else probes[-1]
            if probe.operands:
                cases.append(_infer_case(Module((fn,)), probe, texts))
    return cases


def _infer_case(module: Module, probe: Operation, texts: list[str]) -> InferCase:
    components = probe.name.endswith("components")
    op = _defining_op(module, probe.operands[0].name)
    line = probe.pos.line
    row = OP_TABLE.get(op.name) if op is not None else None
    if op is None or row is None or row.shape is None:
        name = op.name if op is not None else "?"
        return InferCase(line, components, tuple(texts), "unsupported", f"no shape function for {name}")
    try:
        got = infer_op(op, row, constants=_constants(module))
    except HloError as e:
        return InferCase(line, components, tuple(texts), "mismatch", f"{op.name}: rejected: {e.message}")
    if got is None:
        return InferCase(line, components, tuple(texts), "mismatch",
                         f"{op.name}: the shape function infers no type")
    ok = len(got) >= len(texts) and all(
        _matches(g, t, components) for g, t in zip(got, texts))
    detail = f"{op.name}: inferred {', '.join(print_type(t) for t in got)}"
    return InferCase(line, components, tuple(texts), "match" if ok else "mismatch", detail)


if __name__ == "__main__":  # pragma: no cover - a report for people
    import sys

    root = Path(__file__).resolve().parents[3] / "shared" / "stablehlo" / "tests" / "verifier"
    for name in ("ops_stablehlo.mlir", "infer_stablehlo.mlir"):
        path = root / name
        verdicts = judge_file(path)
        n = len(verdicts)
        right = sum(v.right for v in verdicts)
        line = sum(v.right_line for v in verdicts)
        print(f"{name}: {right}/{n} right ({100 * right / n:.1f}%), {line}/{n} at the "
              f"annotated line ({100 * line / n:.1f}%)")
        for v in verdicts:
            if not v.right_line and "-q" not in sys.argv:
                print(f"  {v.split.line} [{family_of(v.split, path)}] {v.describe()}")
    for c in infer_cases(root / "infer_stablehlo.mlir"):
        if c.result != "match" and "-q" not in sys.argv:
            print(f"  infer {c.line}: want {', '.join(c.expected)} -- {c.result}: {c.detail}")
