"""Read every VHLO golden; write it back byte for byte (the writer's key property).

Expected facts come from the goldens themselves and from upstream: the bytecode
version per release (stablehlo/dialect/Version.cpp), the producer string
(``StableHLO_v`` + release), the op names the golden's CHECK lines mention.
"""

from __future__ import annotations

import re

import pytest

from hlorun.parser.bytecode.reader import read_bytecode_file
from hlorun.parser.bytecode.writer import rewrite, write_bytecode
from hlorun.parser.errors import ParseError
from hlorun.parser.ir import Function, Operation
from hlorun.parser.vhlo.ir import VhloAttr

from .goldens import GOLDENS, READABLE, VHLO_DIR, expected_bytecode_version, ids, release


@pytest.fixture(autouse=True)
def _need_goldens():
    if not VHLO_DIR.exists():
        pytest.skip(
            f"{VHLO_DIR} not found: the StableHLO goldens sit beside the repo only "
            "in CI and developer checkouts"
        )


def _op_names(items) -> set[str]:
    out: set[str] = set()
    stack = list(items)
    while stack:
        op = stack.pop()
        if isinstance(op, Function):
            regions = (op.body,) if op.body is not None else ()
        else:
            out.add(op.name)
            regions = op.regions
        for r in regions:
            for b in r.blocks:
                stack.extend(b.operations)
    return out


_CHECK_LINE = re.compile(r"\s*//\s*CHECK(-[A-Z]+)?:")
_CHECK_OP = re.compile(r'"(vhlo\.[a-z0-9_-]+_v\d+)"')


def _check_line_ops(mlir_path) -> set[str]:
    names: set[str] = set()
    for line in mlir_path.read_text().splitlines():
        m = _CHECK_LINE.match(line)
        if m and m.group(1) != "-WARN":
            names.update(_CHECK_OP.findall(line))
    return names


def test_golden_count():
    assert len(GOLDENS) == 34
    assert len(READABLE) == 33


@pytest.mark.parametrize("path", READABLE, ids=ids(READABLE))
def test_read_golden(path):
    bf = read_bytecode_file(path.read_bytes(), str(path))
    rel = release(path)
    assert rel is not None
    assert bf.producer == "StableHLO_v{}.{}.{}".format(*rel)
    assert bf.version == expected_bytecode_version(rel)
    assert bf.module.body, "the module holds the program's functions"
    assert all(isinstance(op, Operation) and op.name.startswith("vhlo.") for op in bf.module.body)
    read = {n for n in _op_names(bf.module.body) if n.startswith("vhlo.")}
    checked = _check_line_ops(path.with_suffix(""))
    if path.name.startswith("stablehlo_legalize_to_vhlo"):
        # Every op of the program is named by a CHECK line (the return op too).
        assert read == checked, (
            f"read but not checked: {sorted(read - checked)}; "
            f"checked but not read: {sorted(checked - read)}"
        )
    else:  # vhlo_emit_version_api: stablehlo.add of %arg0 and itself
        assert read == {"vhlo.func_v1", "vhlo.add_v1", "vhlo.return_v1"}


@pytest.mark.parametrize("path", READABLE, ids=ids(READABLE))
def test_rewrite_is_byte_identical(path):
    data = path.read_bytes()
    bf = read_bytecode_file(data, str(path))
    out = rewrite(bf)
    if out != data:
        first = next(
            (i for i, (a, b) in enumerate(zip(out, data)) if a != b), min(len(out), len(data))
        )
        pytest.fail(
            f"written {len(out)} bytes vs {len(data)}; first difference at offset {first:#x}"
        )


def test_future_op_refused():
    path = VHLO_DIR / "invalid_vhlo_future.mlir.bc"
    with pytest.raises(ParseError) as ei:
        read_bytecode_file(path.read_bytes(), str(path))
    msg = str(ei.value)
    assert "vhlo.constant_v99" in msg
    assert "StableHLO_v2.0.0" in msg
    assert "offset 0x" in msg and "section 'IR'" in msg


LEGALIZE = [p for p in READABLE if p.name.startswith("stablehlo_legalize_to_vhlo")]


@pytest.mark.parametrize("path", LEGALIZE, ids=ids(LEGALIZE))
def test_use_list_orders_from_rewrites(path):
    """Without the stored use-list orders, the writer derives them from which ops a
    rewrite created late: in these goldens, the custom_call that HEAD legalizes to
    ``custom_call_v2`` and then downgrades to ``custom_call_v1`` for older targets (the
    new op's use of %arg0 is newer than the return's)."""
    data = path.read_bytes()
    bf = read_bytecode_file(data, str(path))
    late = []
    for f in bf.module.body:
        if f.attr("sym_name") == VhloAttr("string_v1", ("op_custom_call_empty_result_layout",)):
            cc = f.regions[0].blocks[0].operations[0]
            if cc.name == "vhlo.custom_call_v1":  # HEAD writes v2, then downgrades
                late.append(cc)
    assert bool(late) == bool(bf.use_list_orders)
    out = write_bytecode(bf.module, bf.version, bf.producer, late_ops=tuple(late))
    assert out == data
