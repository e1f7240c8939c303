"""Every error label that shape_inference/ raises has a test: a label that no test
names fails here, so a new check cannot land without its negative test.

A label is collected from shape_inference/*.py when it is
* a string literal of the spec's form ``<op>_c<N>`` / ``<op>_i<N>`` / ``<op>_o<N>``, or
* a string literal passed as a label: ``ctx.error("label", ...)``, a row's
  ``result_labels=(...)``, what the verifier's ``result_label`` returns,
  ``VerificationError(..., label="label")``, the verifier's ``self.fail(msg, where,
  "label")`` (either branch of a conditional expression counts).
Labels built at run time (``f"{op}_c1"``) cannot be collected statically; their checks
are covered by the family tests (test_labels_<family>.py, test_<family>_shapes.py).

A label counts as tested when some test file under tests/ holds it as a whole string
literal (``assert e.label == "slice_c3"``, a ``("slice_c3", program)`` row...).
"""

from __future__ import annotations

import ast
import importlib.util
import re
from pathlib import Path

import pytest

from hlorun import shape_inference  # noqa: F401  (fills the op table)
from hlorun.shape_inference.optable import OP_TABLE

REPO = Path(__file__).resolve().parents[2]
SOURCES = REPO / "shape_inference"
TESTS = REPO / "tests"
TOOLS = REPO / "tools"
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
    if isinstance(node, ast.Tuple):
        return [c for e in node.elts for c in _constants(e)]
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    return []


def raised_labels() -> dict[str, str]:
    """label -> the shape_inference file that raises it."""
    found: dict[str, str] = {}
    for path in sorted(SOURCES.glob("*.py")):
        if path.name == "spec_labels.py":  # the coverage list, not a check
            continue
        text = path.read_text()
        for label in QUOTED_SPEC_LABEL.findall(text):
            found.setdefault(label, path.name)
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.FunctionDef) and node.name == "result_label":
                for ret in ast.walk(node):
                    if isinstance(ret, ast.Return) and ret.value is not None:
                        for label in _constants(ret.value):
                            found.setdefault(label, path.name)
            if not isinstance(node, ast.Call):
                continue
            f = node.func
            name = f.attr if isinstance(f, ast.Attribute) else getattr(f, "id", None)
            args: list[ast.expr] = [
                kw.value for kw in node.keywords if kw.arg in ("label", "result_labels")
            ]
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
    # the scan below must see something: the verifier raises labels and tests name them
    assert len(labels) > 500 and len(strings) > 500
    assert set(EXEMPT) <= set(labels)
    for label, reason in EXEMPT.items():
        assert label in labels, f"{label} is exempt but no longer raised"
        assert reason.strip(), label
        assert label not in strings, f"{label} is exempt but a test names it"


def test_spec_labels_name_an_op():
    """``<op>_c<N>`` names an op of the table (catches a typo in a label)."""
    ops = {name.split(".", 1)[1] for name in OP_TABLE} | {"quantized_type"}  # spec "Types"
    for label in raised_labels():
        if SPEC_LABEL.fullmatch(label):
            op = label.rsplit("_", 1)[0]
            assert op in ops, f"{label}: no op {op!r} in the op table"


# --------------------------------------------------------------------------------------
# The spec's labels: shape_inference/spec_labels.py (tools/gen_spec_labels.py)
# --------------------------------------------------------------------------------------

SPEC_MD = REPO.parent / "shared" / "stablehlo" / "docs" / "spec.md"

# spec label -> why it has no check or no test (the list only shrinks).
_BY_CONSTRUCTION = (
    "holds by construction: the !quant.uniform syntax gives storage_min, storage_max and "
    "the zero points the storage type, and the IR keeps them as integers"
)
_UPSTREAM_ACCEPTS = (
    "not enforced, as the StableHLO verifier does not enforce it and valid programs in "
    "the wild violate it (rejecting them would break item 2: never reject a valid program)"
)
GAPS: dict[str, str] = {
    "quantized_type_c1": _BY_CONSTRUCTION,
    "quantized_type_c2": _BY_CONSTRUCTION,
    "quantized_type_c8": _BY_CONSTRUCTION,
    # tests/verifier/print_stablehlo.mlir compares integers with TOTALORDER
    "compare_c3": _UPSTREAM_ACCEPTS,
    # JAX's TPU svd emits an f32 x i32 dot_general
    "dot_general_c13": _UPSTREAM_ACCEPTS,
}


def _spec_text() -> str:
    if not SPEC_MD.exists():
        pytest.skip(f"{SPEC_MD} is absent (the StableHLO spec beside the checkout)")
    return SPEC_MD.read_text()


def _generator():
    spec = importlib.util.spec_from_file_location("gen_spec_labels", TOOLS / "gen_spec_labels.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_coverage_list_is_current():
    """spec_labels.py is what tools/gen_spec_labels.py writes from today's spec, sources
    and tests (else: run the tool)."""
    text = _spec_text()
    from hlorun.shape_inference import spec_labels

    assert Path(spec_labels.__file__).read_text() == _generator().render(text), (
        "shape_inference/spec_labels.py is stale: run python tools/gen_spec_labels.py"
    )


def test_the_generator_reads_every_op_of_the_spec():
    labels = _generator().spec_labels(_spec_text())
    for label in ("abs_c1", "convolution_c34", "slice_c3", "xor_c1", "quantized_type_c13"):
        assert label in labels, label
    assert len(labels) == len(set(labels)) > 450


def test_every_spec_label_is_checked_and_tested():
    from hlorun.shape_inference.spec_labels import CHLO, SPEC

    missing = [
        f"{row.label}: {'no check' if not row.check else 'no negative test'}"
        for row in SPEC + CHLO
        if not (row.check and row.test) and row.label not in GAPS
    ]
    assert not missing, "spec labels without a check or a test:\n" + "\n".join(missing)


def test_gaps_are_current():
    """A label in GAPS still lacks its check or test (else it leaves the list)."""
    from hlorun.shape_inference.spec_labels import CHLO, SPEC

    rows = {row.label: row for row in SPEC + CHLO}
    for label, reason in GAPS.items():
        assert label in rows, f"{label} is no spec label"
        assert reason.strip(), label
        assert not (rows[label].check and rows[label].test), f"{label} is covered now"
