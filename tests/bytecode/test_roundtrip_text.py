"""Text -> bytecode -> IR: the module read back agrees with the parsed text (up to
value names, which bytecode does not keep), for every bytecode version the writer
supports; and writing what was read gives the same bytes again."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from hlorun.parser.bytecode.reader import read_bytecode, read_bytecode_file
from hlorun.parser.bytecode.writer import rewrite, write_bytecode
from hlorun.parser.errors import HloError
from hlorun.parser.grammar import parse_module, split_input_file
from hlorun.parser.ir import LocationAttr
from tests.conftest import REPO, SHARED

from .same_ir import same_module

INTERPRET = sorted((SHARED / "tests" / "interpret").glob("*.mlir"))
EXAMPLES = sorted((REPO / "examples").glob("*.mlir"))


def _chunks(path: Path):
    for chunk, off in split_input_file(path.read_text()):
        try:
            yield parse_module(chunk, str(path), line_offset=off)
        except HloError:
            continue  # the text parser's concern


def _round_trip(m, version: int) -> None:
    data = write_bytecode(m, version, "StableHLO_v1.20.0")
    bf = read_bytecode_file(data, "rt.bc")
    assert bf.version == version and bf.producer == "StableHLO_v1.20.0"
    why = same_module(m, bf.module)
    assert not why, why
    assert rewrite(bf) == data


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
@pytest.mark.parametrize("version", [0, 1, 2, 3, 4, 5, 6])
def test_examples(path, version):
    n = 0
    for m in _chunks(path):
        _round_trip(m, version)
        n += 1
    assert n >= 1, f"no chunk of {path.name} parses"


@pytest.mark.skipif(not INTERPRET, reason=f"{SHARED} not found (StableHLO test suites)")
@pytest.mark.parametrize("version", [0, 3, 6])
def test_interpret_suite(version):
    n = 0
    for path in INTERPRET:
        for m in _chunks(path):
            _round_trip(m, version)
            n += 1
    assert n > 400


LOCATIONS = [
    'loc("file.py":3:7)',
    'loc("name")',
    'loc("name"("a.py":1:2))',
    'loc(callsite("f"("a.py":1:2) at "b.py":3:4))',
    'loc(fused["a.py":1:2, "b.py":3:4])',
    'loc(fused<"jax">["a.py":1:2, unknown])',
    'loc("a.py":1:2 to :9)',
    'loc("a.py":1:2 to 5:9)',
]


@pytest.mark.parametrize("loc", LOCATIONS)
@pytest.mark.parametrize("version", [3, 6])
def test_locations(loc, version):
    text = f"""
func.func @f(%arg0: tensor<f32> {loc}) -> tensor<f32> {{
  %0 = stablehlo.add %arg0, %arg0 : tensor<f32> {loc}
  func.return %0 : tensor<f32>
}} {loc}
"""
    m = parse_module(text)
    m2 = read_bytecode(write_bytecode(m, version, "t"))
    f = m2.body[0]
    want = LocationAttr(loc[4:-1])
    assert f.location == want
    assert f.body.blocks[0].operations[0].location == want
    assert f.body.blocks[0].arg_locations == (want,)


BUILTIN_ATTRS = """
func.func @f() {
  "x.op"() {
    a = 1 : i32, b = -5 : i64, c = 255 : ui8, d = -1 : si16, e = true, f = 3 : index,
    g = 1.5 : f32, h = -0.0 : f64, i = 0x7FC00001 : f32, j = 2.5 : bf16, k = 1.0 : f16,
    l = "str", m = unit, n = @sym, o = @a::@b, p = [1 : i64, "x"], q = {y = 2 : i8},
    r = i32, s = tensor<?x3xf32>, t = array<i64: 1, -2>, u = array<i1: true, false>,
    v = array<f32: 1.5>, w = dense<[true, false, true]> : tensor<3xi1>,
    x = dense<true> : tensor<9xi1>, y = dense<[1, -1]> : tensor<2xi4>,
    z = dense<(1.0, 2.0)> : tensor<complex<f32>>, aa = dense<3> : tensor<2x2xui8>,
    ab = dense<[1.0, 2.0]> : tensor<2xbf16>, ac = dense<0.5> : tensor<f8E4M3FN>,
    ad = complex<f64>, ae = tuple<i32, f32>, af = (i32) -> f32, ag = tensor<*xf32>,
    ah = dense<[[1, 2]]> : tensor<1x2xi64>, ai = dense<> : tensor<0xf32>
  } : () -> ()
  func.return
}
"""


@pytest.mark.parametrize("version", [0, 6])
def test_builtin_attribute_kinds(version):
    m = parse_module(BUILTIN_ATTRS)
    m2 = read_bytecode(write_bytecode(m, version, "t"))
    a = dict(m.body[0].body.blocks[0].operations[0].attributes)
    b = dict(m2.body[0].body.blocks[0].operations[0].attributes)
    assert a.keys() == b.keys()
    for k in a:
        assert a[k] == b[k], (k, a[k], b[k])
        if hasattr(a[k], "array"):
            assert np.array_equal(a[k].array, b[k].array)


def test_mlir_i1_packing():
    """i1 dense data is packed 8 per byte (BuiltinDialectBytecode.cpp): 9 elements ->
    2 bytes; a true splat -> one 0xFF byte."""
    from hlorun.parser.bytecode.dense import raw_from_array
    from hlorun.parser.ir import IntegerType, TensorType

    t = TensorType((9,), IntegerType(1))
    assert bytes(raw_from_array(t, np.array([1, 0, 0, 0, 0, 0, 0, 1, 1], bool))) == b"\x81\x01"
    assert bytes(raw_from_array(t, np.ones(9, bool))) == b"\xff"


def test_stablehlo_properties_at_v5_plus():
    """At bytecode v5+ a registered op's inherent attributes travel as properties (an
    ODS encoding: sorted by name, optional ones flagged), discardable ones in the
    attribute dictionary; before v5 all of them are in the dictionary."""
    from hlorun.parser.bytecode.reader import FileReader

    text = """
func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.constant {mhlo.sharding = "{replicated}"} dense<1.0> : tensor<4xf32>
  %1 = stablehlo.compare GT, %a, %0 : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  %2 = stablehlo.select %1, %a, %0 : tensor<4xi1>, tensor<4xf32>
  func.return %2 : tensor<4xf32>
}
"""
    m = parse_module(text)
    for version, n_props in ((4, 0), (6, 4)):  # module, func, constant, compare
        data = write_bytecode(m, version, "t")
        assert len(FileReader(data).properties) == n_props
        ops = read_bytecode(data).body[0].body.blocks[0].operations
        assert ops[0].attr("mhlo.sharding").value == "{replicated}"
        assert ("value" in ops[0].property_names) == (version >= 5)
        assert "mhlo.sharding" not in ops[0].property_names
        assert "comparison_direction" in dict(ops[1].attributes)


def test_stablehlo_props_table_up_to_date():
    import subprocess
    import sys

    repo = Path("/work/.mirror/openxla+stablehlo/repo")
    if not repo.exists() and not (SHARED / "stablehlo" / "dialect").exists():
        pytest.skip("no stablehlo checkout to regenerate the properties table from")
    args = [sys.executable, str(REPO / "tools" / "gen_stablehlo_props.py"), "--check"]
    if not repo.exists():
        args += ["--repo", str(SHARED)]
    r = subprocess.run(args, capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr


ZERO_ELEMENT_SPLATS = [
    # (literal, type, the blob MLIR stores: one element, little-endian)
    ("(1.5,-2.0)", "2x0x3xcomplex<f32>", np.array([1.5, -2.0], "<f4").tobytes()),
    ("7", "3x0xi8", b"\x07"),
    ("0x7FC00001", "0xf32", b"\x01\x00\xc0\x7f"),
    ("true", "0xi1", b"\xff"),
]


def _constant(literal: str, ty: str) -> str:
    return (
        f"func.func @main() -> tensor<{ty}> {{\n"
        f"  %0 = stablehlo.constant dense<{literal}> : tensor<{ty}>\n"
        f"  return %0 : tensor<{ty}>\n}}\n"
    )


@pytest.mark.parametrize(("literal", "ty", "blob"), ZERO_ELEMENT_SPLATS)
@pytest.mark.parametrize("version", [1, 6])
def test_zero_element_splat_keeps_its_element(literal, ty, blob, version):
    """A splat of a zero-element type keeps its element, as MLIR's storage does: text
    prints it back, the bytecode blob holds it (where ``dense<>`` holds no byte), and
    reading that blob gives the splat again, not ``dense<>`` (another attribute)."""
    from hlorun.parser import print_module
    from hlorun.parser.bytecode.dense import raw_from_array

    m = parse_module(_constant(literal, ty))
    attr = m.body[0].body.blocks[0].operations[0].attr("value")
    text = print_module(m)
    assert "dense<>" not in text and parse_module(text) == m
    assert bytes(raw_from_array(attr.type, attr.array, attr.empty_splat)) == blob
    empty = parse_module(_constant("", ty))
    assert empty != m
    back = read_bytecode(write_bytecode(m, version, "t"))
    got = back.body[0].body.blocks[0].operations[0].attr("value")
    assert got == attr and got.empty_splat is not None
    assert print_module(back).splitlines()[2].strip() == print_module(m).splitlines()[1].strip()
    assert read_bytecode(write_bytecode(empty, version, "t")) != back
