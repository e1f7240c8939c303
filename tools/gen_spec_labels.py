"""Write shape_inference/spec_labels.py: every constraint label of the StableHLO spec
(docs/spec.md: each op's (C1), (C2), ... and the quantized types' C1-C13), the CHLO
constraints ChloOps.cpp verifies, and for each label the shape_inference module that
checks it and the test file whose negative test names it.

    python tools/gen_spec_labels.py [--spec PATH]          # rewrite the file
    python tools/gen_spec_labels.py --check [--spec PATH]  # exit 1 when it is stale

The spec defaults to ../shared/stablehlo/docs/spec.md beside the checkout.

Where a label is checked: the module whose source holds it as a string literal, or,
for a label some test names, an f-string template that renders it (``f"{op}_c5"``
counts for the ops whose shape function lives in that module; ``f"gather_c{n}"`` for
gather).  Where it is tested: the
first test file (tests/shape_inference/ first, then the rest of tests/, by path) holding
it as a whole string literal.  A label with neither stays in the list with an empty
field, so tests/shape_inference/test_label_coverage.py can name it.
"""

from __future__ import annotations

import argparse
import ast
import re
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DEFAULT_SPEC = REPO.parent / "shared" / "stablehlo" / "docs" / "spec.md"
OUT = REPO / "shape_inference" / "spec_labels.py"
SOURCES = REPO / "shape_inference"
KERNELS = REPO / "engine" / "kernels"
TESTS = REPO / "tests"

# The constraints openxla/stablehlo's stablehlo/dialect/ChloOps.cpp (verify(),
# inferReturnTypeComponents() and the broadcasting helpers) and ChloOps.td (the ODS
# operand type constraints) enforce, under the labels hlorun's CHLO verifier raises.
# Not in the spec: listed by hand, one line each.
_CHLO_STRUCTURAL: tuple[tuple[str, str], ...] = (
    ("chlo.broadcast.element_type", "broadcasting binary ops: mismatched operand types"),
    ("chlo.broadcast.shape", "broadcasting binary ops: operand shapes broadcast"),
    ("chlo.broadcast.dimensions", "broadcast_dimensions: one per lower-rank dim, in range"),
    ("chlo.broadcast.bounds", "static or bounded operands: no bounded with static dim"),
    ("chlo.broadcast_select.element_type", "broadcast_select: mismatched operand types"),
    ("chlo.constant.value", "constant: the result type is the value's"),
    ("chlo.constant_like.value", "constant_like: value's type matches the element type"),
    ("chlo.top_k.rank", "top_k (inferTopKOp): operand of rank >= 1"),
    ("chlo.top_k.k", "top_k (inferTopKOp): 0 <= k <= last dimension"),
    ("chlo.scan.empty", "ScanOp::verify: at least one of inputs or outputs"),
    ("chlo.scan.dimension", "ScanOp::verify: scan dimension in bounds"),
    ("chlo.scan.inputs", "ScanOp::verify: one scan dimension size"),
    ("chlo.scan.body", "ScanOp::verify: body arguments: one per operand, compatible"),
    ("chlo.scan.carries", "ScanOp inference: carries keep the inits' types"),
    ("chlo.scan.outputs", "ScanOp inference: outputs have the scan dimension size"),
    ("chlo.scan.results", "ScanOp inference: one carry result per init"),
    ("chlo.ragged_dot.batching_dimensions", "ragged_dot: as many lhs as rhs batching dims"),
    ("chlo.ragged_dot.contracting_dimensions", "ragged_dot: as many contracting dims"),
    ("chlo.ragged_dot.ragged_dimensions", "ragged_dot: exactly one lhs ragged dimension"),
    ("chlo.ragged_dot.group_dimensions", "ragged_dot: rhs group dims by ragged mode"),
    ("chlo.ragged_dot.dimensions", "ragged_dot: dims in range, disjoint, sizes match"),
    ("chlo.ragged_dot.group_sizes", "ragged_dot: group_sizes shape, group count"),
    ("chlo.ragged_dot.precision_config", "ragged_dot: precision config of <= 2 entries"),
)
# ChloOps.td operand element types (docs/chlo.md "Operands"): chlo.<op>.element_type.
_CHLO_TYPED_OPS = (
    "_asin_acos_kernel acos acosh asin asinh atan atanh bessel_i1e conj cosh sinh tan "
    "square digamma erf erfc erf_inv lgamma is_inf is_neg_inf is_pos_inf next_after "
    "polygamma zeta igamma igammac mulhi broadcast_next_after broadcast_polygamma "
    "broadcast_zeta broadcast_and broadcast_or broadcast_xor broadcast_complex"
).split()
CHLO_LABELS: tuple[tuple[str, str], ...] = _CHLO_STRUCTURAL + tuple(
    (f"chlo.{op}.element_type", f"{op}: operand element types (ChloOps.td)")
    for op in _CHLO_TYPED_OPS
)


# --------------------------------------------------------------------------------------
# The spec
# --------------------------------------------------------------------------------------


def _constraint_numbers(section: str) -> list[int]:
    """The (C<N>) labels defined in a section's ``#### Constraints`` block, in order."""
    if "#### Constraints" not in section:
        return []
    block = section.split("#### Constraints", 1)[1].split("\n#### ", 1)[0]
    found = re.findall(r"^\s*\*\s+\(C(\d+)\)", block, re.M)
    return list(dict.fromkeys(int(n) for n in found))


def spec_labels(text: str) -> list[str]:
    """``<op>_c<N>`` for every op of spec "Ops", then ``quantized_type_c<N>``."""
    ops = text[text.index("\n## Ops") : text.index("\n## Dialect Interop")]
    labels: list[str] = []
    for section in re.split(r"\n### ", ops)[1:]:
        op = section.split("\n", 1)[0].strip()
        labels += [f"{op}_c{n}" for n in _constraint_numbers(section)]
    types = text[text.index("\n### Types") : text.index("\n### Operations")]
    start = types.index("Quantized element types have")
    quant = re.findall(r"^\s*\*\s+\(C(\d+)\)", types[start:], re.M)
    labels += [f"quantized_type_c{n}" for n in dict.fromkeys(int(n) for n in quant)]
    return labels


# --------------------------------------------------------------------------------------
# Sources and tests
# --------------------------------------------------------------------------------------


def _template(node: ast.JoinedStr) -> str | None:
    """An f-string as a regex (each placeholder: ``[a-z0-9_]+``), or None."""
    parts = []
    for v in node.values:
        if isinstance(v, ast.Constant) and isinstance(v.value, str):
            parts.append(re.escape(v.value))
        else:
            parts.append(f"(?P<p{len(parts)}>[a-z0-9_]+)")
    pattern = "".join(parts)
    return pattern if re.search(r"_c|^chlo", pattern) else None


def _names_the_op(pattern: str) -> bool:
    """Whether a template's placeholder stands for the op (``{op}_c5``,
    ``chlo.{name}.element_type``) rather than for the label's tail (``gather_c{n}``,
    ``chlo.ragged_dot.{what}``)."""
    return pattern.startswith("(?P") or pattern.startswith(r"chlo\.(?P")


def source_checks() -> tuple[dict[str, str], list[tuple[str, re.Pattern[str], bool]]]:
    """(literal label -> module, [(module, template, starts with a placeholder)]) of
    shape_inference/ (the verifier) and engine/kernels/ (the checks that need run-time
    facts: the process grid, operand values); modules as repository paths."""
    literals: dict[str, str] = {}
    templates: list[tuple[str, re.Pattern[str], bool]] = []
    paths = sorted(SOURCES.glob("*.py")) + sorted(KERNELS.glob("*.py"))
    for path in paths:
        if path == OUT:
            continue
        name = str(path.relative_to(REPO))
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                literals.setdefault(node.value, name)
            elif isinstance(node, ast.JoinedStr):
                t = _template(node)
                if t is not None:
                    templates.append((name, re.compile(t), _names_the_op(t)))
    return literals, templates


def _op_modules() -> dict[str, set[str]]:
    """Op name -> the modules of its shape function and kernel."""
    sys.path.insert(0, str(REPO))
    import hlorun.engine.kernels  # noqa: F401  (fills the op table's kernels)
    from hlorun import shape_inference  # noqa: F401  (fills the op table)
    from hlorun.shape_inference.optable import OP_TABLE

    out: dict[str, set[str]] = {}
    for name, row in OP_TABLE.items():
        mods = out.setdefault(name, set())
        for fn, folder in ((row.shape, "shape_inference"), (row.kernel, "engine/kernels")):
            module = getattr(fn, "__module__", None) or ""
            if module.startswith("hlorun."):  # (tests may register rows of their own)
                mods.add(f"{folder}/{module.rsplit('.', 1)[1]}.py")
    return out


def _op_of_label(label: str) -> str:
    """The op whose spec section defines ``label``: the declaration (parser/opdecl.py)
    whose ``section`` is ``spec.md#<op>`` for ``<op>_c<N>`` (``chlo.md#<op>`` for
    ChloOps.cpp's ``chlo.<op>...`` labels); an op with no declaration row (chlo's
    elementwise ops) is named from the label."""
    from hlorun.parser.opdecl import OP_DECLS

    by_section = {d.section: name for name, d in OP_DECLS.items()}
    if label.startswith("chlo."):
        mnemonic = label.split(".")[1]
        return by_section.get("chlo.md#" + mnemonic, "chlo." + mnemonic)
    mnemonic = label.rsplit("_", 1)[0]
    return by_section.get("spec.md#" + mnemonic, "stablehlo." + mnemonic)


def where_checked(
    label: str, literals, templates, modules: dict[str, set[str]], tested: bool
) -> str:
    """The module raising ``label``: one holding it as a literal; else one with a
    template that renders it, when a test names the label (a template alone does not
    show which ops reach it)."""
    if label in literals:
        return literals[label]
    if not tested:
        return ""
    op = _op_of_label(label)
    for module, pattern, generic in templates:
        if pattern.fullmatch(label) and (not generic or module in modules.get(op, ())):
            return module
    return ""


def test_strings() -> dict[str, str]:
    """Every whole string literal of the test files -> the first file holding it."""
    files = sorted(TESTS.glob("shape_inference/*.py")) + sorted(
        p for p in TESTS.rglob("*.py") if p.parent != TESTS / "shape_inference"
    )
    out: dict[str, str] = {}
    for path in files:
        if path.name == "test_label_coverage.py":
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                out.setdefault(node.value, str(path.relative_to(REPO)))
    return out


# --------------------------------------------------------------------------------------
# The file
# --------------------------------------------------------------------------------------

HEADER = '''"""The constraint labels hlorun's verifier answers for, and where each is checked and
tested: every (C<N>) of every op of the StableHLO spec (docs/spec.md "Ops"), the
quantized types' C1-C13 (spec "Types"), and the CHLO constraints ChloOps.cpp verifies.

Generated by tools/gen_spec_labels.py; do not edit (``python tools/gen_spec_labels.py``
rewrites it, ``--check`` fails when it is stale).  ``check``: the module raising the
label ("" = not checked): shape_inference/ when the verifier can, engine/kernels/ for
the constraints that need the process grid or an operand's value; ``test``: the test
file whose negative test names it ("" = none).  tests/shape_inference/test_label_coverage.py reads it.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Label:
    """One constraint label, where it is checked, where it is tested."""

    label: str
    check: str
    test: str


def _rows(rows: tuple[str, ...]) -> tuple[Label, ...]:
    """``"label check test"`` rows ("-": none) as Labels."""
    out = []
    for row in rows:
        label, check, test = row.split(" ")
        out.append(Label(label, "" if check == "-" else check, "" if test == "-" else test))
    return tuple(out)

'''


def _row(label: str, check: str, test: str) -> str:
    """One row: ``"label check test"`` ("-" for an empty field)."""
    return f'    "{label} {check or "-"} {test or "-"}",'


def render(spec_text: str) -> str:
    literals, templates = source_checks()
    modules = _op_modules()
    tests = test_strings()

    def rows(labels) -> list[str]:
        out = []
        for label in labels:
            t = tests.get(label, "")
            c = where_checked(label, literals, templates, modules, bool(t))
            out.append(_row(label, c, t))
        return out

    lines = [HEADER, "", "_SPEC = ("]
    lines += rows(spec_labels(spec_text))
    lines += [")", "", "_CHLO = ("]
    lines += rows(label for label, _ in CHLO_LABELS)
    lines += [
        ")",
        "",
        "SPEC: tuple[Label, ...] = _rows(_SPEC)",
        "CHLO: tuple[Label, ...] = _rows(_CHLO)",
        "",
    ]
    return "\n".join(lines).replace(HEADER + "\n", HEADER)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--spec", type=Path, default=DEFAULT_SPEC)
    ap.add_argument("--check", action="store_true", help="exit 1 when the file is stale")
    args = ap.parse_args(argv)
    text = render(args.spec.read_text())
    if args.check:
        if not OUT.exists() or OUT.read_text() != text:
            print(
                f"{OUT.relative_to(REPO)} is stale: run tools/gen_spec_labels.py", file=sys.stderr
            )
            return 1
        return 0
    OUT.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
