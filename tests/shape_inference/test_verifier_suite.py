"""Measure the verifier against StableHLO's verifier suite (../shared/stablehlo/tests/verifier).

``ops_stablehlo.mlir``: each ``// -----`` split either carries ``// expected-error``
annotations (then it must be rejected -- a ParseError counts -- and, for the second
figure, with the error at an annotated line) or none (then it must parse and verify).
``infer_stablehlo.mlir``: ``"hlo_test_infer.get_return_types"(%x)`` stands after an op,
with ``// CHECK: types0 = T0`` (``CHECK-SAME: types1 = T1``...) lines giving the exact
types the op's shape function must infer; ``get_return_type_components`` does the same
for shapes and bounds only (it prints ``index`` as the element type).  Its
``expected-error`` splits are judged like those of ops_stablehlo.mlir.

The tests assert that nothing regresses: the splits / cases that are known not to pass
are listed below with the reason (and the family that owns the fix), strictly both
ways -- one that starts to pass must be taken off its list.  The figures appear in the
terminal summary (tests/shape_inference/conftest.py).  For the full list of mismatches:
``python3 -m tests.shape_inference.test_verifier_suite`` (from the repo root).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import pytest

from hlorun import shape_inference  # noqa: F401  (fills the op table)
from hlorun.parser.errors import HloError, ParseError
from hlorun.parser.grammar import Parser, parse_module, split_input_file
from hlorun.parser.ir import Module, Operation, Region, TensorType, Type
from hlorun.parser.printer import print_type
from hlorun.shape_inference.optable import OP_TABLE
from hlorun.shape_inference.verifier import infer_op, verify_module
from tests.conftest import SHARED, shared_dir

# `// expected-error@+1 {{msg}}`, `@-1`, `@above`, `@below`, or no `@` (this line);
# `expected-error-re` takes a regex, which we only report.
ANNOTATION = re.compile(r"//\s*expected-error(?:-re)?\s*(?:@(above|below|[+-]\d+))?\s*\{\{(.*)\}\}")
TYPES = re.compile(r"types(\d+) = (.*?)(?=,\s*types\d+ = |$)")
CHECK_TYPES = re.compile(r"//\s*CHECK(-SAME)?:\s*(types\d+ = .*)$")


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
    target = min(split.lines, default=split.line)
    ops = [op for op in walk(module) if op.pos.line <= target]
    op = max(ops, key=lambda o: o.pos.line, default=None)  # the op spanning the line
    row = OP_TABLE.get(op.name) if op is not None else None
    if row is not None and row.shape is not None:
        return row.shape.__module__.rsplit(".", 1)[-1]
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
        return TensorType(a.shape, b.element_type, a.encoding) == b
    return a == b


def _matches(got: Type, text: str, components: bool) -> bool:
    """``got`` is the type ``text`` gives (FileCheck's ``{{regex}}`` parts allowed)."""
    if "{{" in text:  # FileCheck: literal text with {{regex}} parts, matched as a prefix
        parts = re.split(r"\{\{(.*?)\}\}", text)
        pattern = "".join(re.escape(p) if i % 2 == 0 else p for i, p in enumerate(parts))
        # MLIR prints an attribute on one line; our printer keeps the source text of an
        # opaque one (#sparse_tensor.encoding<{...}>), newlines included
        printed = " ".join(print_type(got).split())
        return re.match(pattern, printed + "}") is not None
    want = _parse_type(text)
    return _same_components(got, want) if components else got == want


def infer_cases(path: Path) -> list[InferCase]:
    cases = []
    for split in splits(path):
        if split.expected:
            continue
        groups = _expectations(split)
        if not groups:
            continue
        module = parse_module(split.text, str(path), line_offset=split.offset)
        probes = [
            (op, fn)
            for fn in module.functions.values()
            for op in walk(Module((fn,)))
            if op.name.startswith("hlo_test_infer.get_return_type")
        ]
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
        return InferCase(
            line, components, tuple(texts), "unsupported", f"no shape function for {name}"
        )
    try:
        got = infer_op(op, row, constants=_constants(module))
    except HloError as e:
        return InferCase(
            line, components, tuple(texts), "mismatch", f"{op.name}: rejected: {e.message}"
        )
    if got is None:
        return InferCase(
            line,
            components,
            tuple(texts),
            "mismatch",
            f"{op.name}: the shape function infers no type",
        )
    ok = len(got) >= len(texts) and all(_matches(g, t, components) for g, t in zip(got, texts))
    detail = f"{op.name}: inferred {', '.join(print_type(t) for t in got)}"
    return InferCase(line, components, tuple(texts), "match" if ok else "mismatch", detail)


# ---- what is known not to pass (line -> "[family] reason") ----------------------------

# ops_stablehlo.mlir, figure 1: first line of the split -> why it is not rejected /
# not accepted.
OPS_KNOWN_WRONG: dict[int, str] = {}

# ops_stablehlo.mlir, figure 2 only: rejected, but not at the annotated line.
OPS_KNOWN_WRONG_LINE: dict[int, str] = {}

# infer_stablehlo.mlir: line of the hlo_test_infer op -> why the inferred types differ.
INFER_KNOWN_WRONG_TYPES: dict[int, str] = {}

# infer_stablehlo.mlir, expected-error splits (and splits without checks) judged like
# ops_stablehlo.mlir, figure 1.
INFER_KNOWN_WRONG: dict[int, str] = {}


# ---- the tests -------------------------------------------------------------------------


def _verifier_file(name: str) -> Path:
    return shared_dir("tests", "verifier") / name


def _figures(config: pytest.Config) -> list[str]:
    lines = getattr(config, "hlorun_verifier_figures", None)
    if lines is None:
        lines = []
        config.hlorun_verifier_figures = lines
    return lines


def _percent(k: int, n: int) -> str:
    return f"{k}/{n} ({100 * k / n:.1f}%)" if n else "0/0"


def _strict(found: dict[int, str], known: dict[int, str], what: str) -> None:
    new = {k: v for k, v in found.items() if k not in known}
    fixed = sorted(k for k in known if k not in found)
    problems = []
    if new:
        problems.append(
            f"{what}: regressions (not in the known list):\n"
            + "\n".join(f"  line {k}: {v}" for k, v in sorted(new.items()))
        )
    if fixed:
        problems.append(f"{what}: these now pass -- take them off the known list: {fixed}")
    assert not problems, "\n".join(problems)


def test_ops_stablehlo(pytestconfig):
    path = _verifier_file("ops_stablehlo.mlir")
    verdicts = judge_file(path)
    n = len(verdicts)
    right = sum(v.right for v in verdicts)
    at_line = sum(v.right_line for v in verdicts)
    neg = [v for v in verdicts if v.negative]
    _figures(pytestconfig).extend(
        [
            f"ops_stablehlo.mlir: {n} splits ({len(neg)} with expected-error)",
            f"  rejected / accepted as expected: {_percent(right, n)}",
            f"  ... and rejected at the annotated line: {_percent(at_line, n)}",
            f"  (expected-error splits rejected: {_percent(sum(v.right for v in neg), len(neg))}, "
            f"at the annotated line: {_percent(sum(v.right_line for v in neg), len(neg))})",
        ]
    )
    wrong = {v.split.line: v.describe() for v in verdicts if not v.right}
    wrong_line = {v.split.line: v.describe() for v in verdicts if v.right and not v.right_line}
    _strict(wrong, OPS_KNOWN_WRONG, "ops_stablehlo.mlir (rejected / accepted)")
    _strict(wrong_line, OPS_KNOWN_WRONG_LINE, "ops_stablehlo.mlir (line of the error)")


def test_infer_stablehlo_types(pytestconfig):
    path = _verifier_file("infer_stablehlo.mlir")
    cases = infer_cases(path)
    supported = [c for c in cases if c.result != "unsupported"]
    match = sum(c.result == "match" for c in supported)
    _figures(pytestconfig).extend(
        [
            f"infer_stablehlo.mlir: {len(cases)} type checks, {len(supported)} on ops we support",
            f"  inferred exactly the expected types: {_percent(match, len(supported))}",
        ]
    )
    wrong = {
        c.line: f"want {', '.join(c.expected)} -- {c.result}: {c.detail}"
        for c in supported
        if c.result != "match"
    }
    _strict(wrong, INFER_KNOWN_WRONG_TYPES, "infer_stablehlo.mlir (inferred types)")


def test_infer_stablehlo_errors(pytestconfig):
    path = _verifier_file("infer_stablehlo.mlir")
    verdicts = judge_file(path)
    neg = [v for v in verdicts if v.negative]
    _figures(pytestconfig).append(
        f"  expected-error splits rejected: {_percent(sum(v.right for v in neg), len(neg))}, "
        f"all splits right: {_percent(sum(v.right for v in verdicts), len(verdicts))}"
    )
    wrong = {v.split.line: v.describe() for v in verdicts if not v.right}
    _strict(wrong, INFER_KNOWN_WRONG, "infer_stablehlo.mlir (rejected / accepted)")


def test_annotation_lines():
    """The annotation forms of mlir's -verify-diagnostics."""
    assert annotated_line(10, None) == 10
    assert annotated_line(10, "+2") == 12
    assert annotated_line(10, "-1") == 9
    assert annotated_line(10, "above") == 9
    assert annotated_line(10, "below") == 11
    m = ANNOTATION.search("  // expected-error-re@+1 {{#0 must be {{.*}}, got 'x'}}")
    assert m is not None and m.group(1) == "+1" and m.group(2) == "#0 must be {{.*}}, got 'x'"


if __name__ == "__main__":  # pragma: no cover - a report for people
    root = SHARED / "tests" / "verifier"
    for name in ("ops_stablehlo.mlir", "infer_stablehlo.mlir"):
        verdicts = judge_file(root / name)
        n = len(verdicts)
        print(
            f"{name}: {_percent(sum(v.right for v in verdicts), n)} right, "
            f"{_percent(sum(v.right_line for v in verdicts), n)} at the annotated line"
        )
        for v in verdicts:
            if not v.right_line:
                print(f"  {v.split.line} [{family_of(v.split, root / name)}] {v.describe()}")
    for c in infer_cases(root / "infer_stablehlo.mlir"):
        if c.result != "match":
            print(f"  infer {c.line}: want {', '.join(c.expected)} -- {c.result}: {c.detail}")
