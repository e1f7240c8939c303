"""Every error label that shape_inference/ raises has a test: a label that no test
names fails here, so a new check cannot land without its negative test.

A label is collected from shape_inference/*.py when it is
* a string literal of the spec's form ``<op>_c<N>`` / ``<op>_i<N>`` / ``<op>_o<N>``, or
* a string literal passed as a label: ``ctx.error("label", ...)``,
  ``VerificationError(..., label="label")``, the verifier's ``self.fail(msg, where,
  "label")`` (either branch of a conditional expression counts).
Labels built at run time (``f"{op}_c1"``) cannot be collected statically; their checks
are covered by the family tests (test_labels_<family>.py, test_<family>_shapes.py).

A label counts as tested when some test file under tests/ holds it as a whole string
literal (``assert e.label == "slice_c3"``, a ``("slice_c3", program)`` row...).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

from hlorun import shape_inference  # noqa: F401  (fills the op table)
from hlorun.shape_inference.optable import OP_TABLE

REPO = Path(__file__).resolve().parents[2]
SOURCES = REPO / "shape_inference"
TESTS = REPO / "tests"
SPEC_LABEL = re.compile(r"[a-z][a-z_]*_[cio][0-9]+")
QUOTED_SPEC_LABEL = re.compile(r"\"([a-z][a-z_]*_[cio][0-9]+)\"")

# label -> why no test can trigger it (a check that the parser or an earlier check
# always pre-empts).  Empty: the checks that could not fire from text were removed
# (all_gather_c3, all_reduce_c2, reduce_scatter_c4: a group size that only the kernel
# knows; the branch-count checks of if / case, pre-empted by if_c2 / case_c3), and the
# ones that only IR built by hand can reach (dot_general_c22..c24, unknown_type: the
# parser rejects their text) have IR-level tests.
EXEMPT: dict[str, str] = {}


def _constants(node: ast.expr) -> list[str]:
    if isinstance(node, ast.IfExp):
        return _constants(node.body) + _constants(node.orelse)
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    return []


def raised_labels() -> dict[str, str]:
    """label -> the shape_inference file that raises it."""
    found: dict[str, str] = {}
    for path in sorted(SOURCES.glob("*.py")):
        text = path.read_text()
        for label in QUOTED_SPEC_LABEL.findall(text):
            found.setdefault(label, path.name)
        for node in ast.walk(ast.parse(text)):
            if not isinstance(node, ast.Call):
                continue
            f = node.func
            name = f.attr if isinstance(f, ast.Attribute) else getattr(f, "id", None)
            args: list[ast.expr] = [kw.value for kw in node.keywords if kw.arg == "label"]
            if name == "error" and node.args:
                args.append(node.args[0])
            if name == "fail" and len(node.args) >= 3:
                args.append(node.args[2])
            for arg in args:
                for label in _constants(arg):
                    found.setdefault(label, path.name)
    return found


def strings_in_tests() -> set[str]:
    """Every string literal of the test files (but this one)."""
    strings: set[str] = set()
    for path in TESTS.rglob("*.py"):
        if path.resolve() == Path(__file__).resolve():
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                strings.add(node.value)
    return strings


def test_the_collector_finds_the_labels():
    labels = raised_labels()
    # one of each kind: a spec C-label, I-label and O-label, a chlo label, a label of
    # ctx.error in a helper, and the module verifier's labels
    for label in (
        "slice_c3",
        "if_i1",
        "iota_o1",
        "chlo.top_k.k",
        "custom_call_layouts",
        "ssa_dominance",
        "composite_c4",
        "inferred_type",
    ):
        assert label in labels, label
    assert len(labels) > 300


def test_every_raised_label_has_a_test():
    strings = strings_in_tests()
    missing = sorted(
        f"{file}: {label}"
        for label, file in raised_labels().items()
        if label not in strings and label not in EXEMPT
    )
    assert not missing, "labels no test names:\n" + "\n".join(missing)


def test_exemptions_are_current():
    """An exempt label is still raised, has a reason, and no test triggers it (else it
    should leave the list)."""
    labels, strings = raised_labels(), strings_in_tests()
    for label, reason in EXEMPT.items():
        assert label in labels, f"{label} is exempt but no longer raised"
        assert reason.strip(), label
        assert label not in strings, f"{label} is exempt but a test names it"


def test_spec_labels_name_an_op():
    """``<op>_c<N>`` names an op of the table (catches a typo in a label)."""
    ops = {name.split(".", 1)[1] for name in OP_TABLE}
    for label in raised_labels():
        if SPEC_LABEL.fullmatch(label):
            op = label.rsplit("_", 1)[0]
            assert op in ops, f"{label}: no op {op!r} in the op table"
