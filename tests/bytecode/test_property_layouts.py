"""Property layouts that changed across LLVM releases (parser/bytecode/properties.py):
``func.func`` gained ``no_inline`` in LLVM 20 (llvm/llvm-project#119970), ``func.call``
``no_inline`` and then ``arg_attrs`` / ``res_attrs`` (#123176).  Plain bytecode names no
func dialect version, so the reader takes the layout that decodes each blob exactly
with attributes of the declared kinds, and refuses a blob none decodes, naming the op,
the byte offset and the producer.

Real producer data: tests/fixtures/tensorflow_bytecode/ (TensorFlow 2.21 writes
``MLIR23.0.0git`` bytecode with the six-field ``func.func``; generate.py there), with
TensorFlow's eager outputs as expected values.  The field order of each layout is the
one the ODS-generated ``writeProperties`` writes (TensorFlow's FuncOps.cpp.inc:
arg_attrs, function_type, no_inline, res_attrs, sym_name, sym_visibility).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import hlorun
from hlorun.parser import parse_module
from hlorun.parser.bytecode.encoding import Cursor, encode_varint
from hlorun.parser.bytecode.properties import layouts, spec_of
from hlorun.parser.bytecode.reader import FileReader, read_bytecode_file
from hlorun.parser.bytecode.writer import rewrite, write_bytecode
from hlorun.parser.errors import ParseError
from hlorun.parser.ir import StringAttr, UnitAttr

TF = Path(__file__).resolve().parent.parent / "fixtures" / "tensorflow_bytecode"
TF_CASES = ["affine", "stats", "scale64", "eigh", "qr"]  # scale64: f64 dense constants

NEW_FUNC = spec_of(layouts("func.func")[0])  # with no_inline
OLD_FUNC = spec_of(layouts("func.func")[1])  # before LLVM 20

PROGRAM = """func.func private @g(%a: tensor<f32>) -> tensor<f32> attributes {no_inline} {
  return %a : tensor<f32>
}
func.func @main(%a: tensor<f32>) -> tensor<f32> {
  %0 = func.call @g(%a) : (tensor<f32>) -> tensor<f32>
  %1 = stablehlo.add %0, %0 : tensor<f32>
  return %1 : tensor<f32>
}
"""


def close(got, exp):
    got, exp = np.asarray(got), np.asarray(exp)
    assert got.shape == exp.shape and got.dtype == exp.dtype
    if exp.dtype.kind == "f":
        bound = 1e-4 * (np.abs(exp).max(initial=0) + np.abs(exp))
        assert np.all(np.abs(got.astype(np.float64) - exp) <= bound)
    else:
        assert np.array_equal(got, exp)


def _varints(c: Cursor) -> list[int]:
    out = []
    while not c.at_end():
        out.append(c.varint())
    return out


def _eager(name: str):
    ref = np.load(TF / f"{name}.npz")
    args = [ref[f"arg_{i}"] for i in range(sum(k.startswith("arg_") for k in ref))]
    outs = [ref[f"out_{i}"] for i in range(sum(k.startswith("out_") for k in ref))]
    return args, outs


def _check_outputs(name, args, got, want):
    """TF's eager outputs; decompositions up to their freedom: eigh's eigenvectors up to
    sign (A v = v w, orthonormal), qr's Q and R up to the sign of each column / row
    (Q R = A, Q orthonormal, |R| the same)."""
    assert len(got) == len(want)
    if name == "eigh":
        (a,), (w, v) = args, got
        close(w, want[0])
        np.testing.assert_allclose(a @ v, v * w[None, :], atol=1e-4 * np.abs(a).max())
        np.testing.assert_allclose(v.T @ v, np.eye(len(w)), atol=1e-5)
    elif name == "qr":
        (a,), (q, r) = args, got
        np.testing.assert_allclose(q @ r, a, atol=1e-5 * np.abs(a).max())
        np.testing.assert_allclose(q.T @ q, np.eye(q.shape[1]), atol=1e-5)
        close(np.abs(r), np.abs(want[1]))
    else:
        for g, e in zip(got, want):
            close(g, e)


@pytest.mark.parametrize("name", TF_CASES)
def test_tensorflow_bytecode_reads_runs_and_rewrites(name):
    data = (TF / f"{name}.mlirbc").read_bytes()
    bf = read_bytecode_file(data, f"{name}.mlirbc")
    assert bf.producer.startswith("MLIR")
    assert bf.property_layouts["func.func"] == NEW_FUNC  # the LLVM 20+ layout
    assert rewrite(bf) == data  # written back byte for byte, in TF's layout
    args, want = _eager(name)
    for program in (data, (TF / f"{name}.mlir").read_text()):
        _check_outputs(name, args, hlorun.run(program, args), want)


def test_tensorflow_custom_call_layout_before_result_tilings():
    """TF 2.21's StableHLO writes custom_call's eight fields (api_version ...
    result_layouts, no result_tilings): read, the attributes in their places."""
    bf = read_bytecode_file((TF / "eigh.mlirbc").read_bytes())
    assert "result_tilings" not in dict(bf.property_layouts["stablehlo.custom_call"])
    ops = bf.module.functions["main"].body.blocks[0].operations
    (call,) = [op for op in ops if op.name == "stablehlo.custom_call"]
    attrs = dict(call.attributes)
    assert attrs["call_target_name"] == StringAttr("Eigh")
    assert attrs["backend_config"].value.count(",") == 3  # "lower,sort,max_iter,tol"


def test_tensorflow_mhlo_copy_reads():
    """A Keras SimpleRNN's loop keeps mhlo.copy (its one optional inherent attribute,
    absent here): the file reads and writes back byte for byte."""
    data = (TF / "simple_rnn.mlirbc").read_bytes()
    bf = read_bytecode_file(data)
    names = [op.name for op in _all_ops(bf.module)]
    assert "mhlo.copy" in names
    assert rewrite(bf) == data


def _all_ops(module):
    stack = [f.body for f in module.functions.values() if f.body is not None]
    while stack:
        region = stack.pop()
        for b in region.blocks:
            for op in b.operations:
                yield op
                stack.extend(op.regions)


def test_func_func_with_and_without_no_inline():
    m = parse_module(PROGRAM)
    for layout in (NEW_FUNC, OLD_FUNC):
        data = write_bytecode(m, 6, "MLIR23.0.0git", property_layouts={"func.func": layout})
        bf = read_bytecode_file(data)
        g, main = bf.module.functions["g"], bf.module.functions["main"]
        assert dict(g.attributes) == {"no_inline": UnitAttr()}
        assert "no_inline" not in dict(main.attributes)
        assert bf.property_layouts.get("func.func", OLD_FUNC) == layout
        assert float(hlorun.run(data, [np.float32(1.5)])[0]) == 3.0
        # the blobs: one varint per field; the optional no_inline a 0 byte when absent,
        # an index with the presence flag when present
        fr = FileReader(data)
        blobs = [_varints(Cursor(p.data, p.pos, p.end, "", "Properties")) for p in fr.properties]
        func_blobs = [b for b in blobs if len(b) == len(layout)]
        if layout == NEW_FUNC:
            assert sorted(b[2] & 1 for b in func_blobs) == [0, 1]
            assert min(func_blobs, key=lambda b: b[2])[2] == 0


def test_default_writer_layout_is_unchanged():
    """Without a recorded layout the writer writes the five-field func.func it always
    wrote (older readers read it), and reading it records nothing."""
    data = write_bytecode(parse_module(PROGRAM), 6, "StableHLO_v1.0.0")
    bf = read_bytecode_file(data)
    assert bf.property_layouts == {}
    assert rewrite(bf) == data


@pytest.mark.parametrize("layout", [spec_of(lay) for lay in layouts("func.call")])
def test_func_call_layouts(layout):
    text = PROGRAM.replace("func.call @g(%a)", "func.call @g(%a) {no_inline}")
    data = write_bytecode(parse_module(text), 6, "MLIR", property_layouts={"func.call": layout})
    bf = read_bytecode_file(data)
    call = bf.module.functions["main"].body.blocks[0].operations[0]
    names = {n for n, _ in layout}
    assert ("no_inline" in call.property_names) == ("no_inline" in names)
    assert dict(call.attributes)["no_inline"] == UnitAttr()
    assert rewrite(bf) == data


def _refused(data: bytes) -> ParseError:
    with pytest.raises(ParseError) as e:
        read_bytecode_file(data, "bad.mlirbc")
    return e.value


def test_a_blob_of_no_known_layout_is_refused():
    """Seven fields: no func.func layout reads it to the end."""
    seven = (*NEW_FUNC, ("zz_extra", True))
    data = write_bytecode(parse_module(PROGRAM), 6, "MLIR99", property_layouts={"func.func": seven})
    msg = str(_refused(data))
    assert "func.func" in msg and "offset 0x" in msg and "Properties" in msg
    assert "MLIR99" in msg


def test_a_blob_with_an_attribute_of_the_wrong_kind_is_refused():
    """Six fields, but the one in no_inline's place is a string: the six-field layout
    reads the bytes but not the kinds, the five-field one not the bytes."""
    m = parse_module(PROGRAM.replace("attributes {no_inline}", 'attributes {no_inline = "x"}'))
    assert dict(m.functions["g"].attributes)["no_inline"] == StringAttr("x")
    data = write_bytecode(m, 6, "TF-ish", property_layouts={"func.func": NEW_FUNC})
    msg = str(_refused(data))
    assert "func.func" in msg and "TF-ish" in msg and "offset 0x" in msg


def test_the_tensorflow_file_with_a_bad_no_inline_is_refused():
    """TF's func.func blob with its no_inline byte pointing at the function's name (a
    string, with the presence flag): the six-field layout reads the bytes but not the
    kinds, the five-field one not the bytes.  The error names the op, the blob's byte
    offset and TF's producer string."""
    data = (TF / "affine.mlirbc").read_bytes()
    blobs = [p for p in FileReader(data).properties if p.end - p.pos == len(NEW_FUNC)]
    assert len(blobs) == 1  # the one func.func: six one-byte varints
    start = blobs[0].pos
    fields = _varints(Cursor(data, start, start + 6, "", "Properties"))
    assert fields[2] == 0  # no_inline absent
    flagged_name = encode_varint((fields[4] << 1) | 1)  # sym_name's attribute, present
    assert len(flagged_name) == 1
    bad = bytearray(data)
    bad[start + 2 : start + 3] = flagged_name
    err = _refused(bytes(bad))
    msg = str(err)
    assert "func.func" in msg and f"offset {start:#x}" in msg and "MLIR23.0.0git" in msg


def test_builtin_func_props_table_up_to_date():
    """tools/gen_builtin_func_props.py over an LLVM checkout (HLORUN_LLVM_DIR) writes
    the committed table."""
    import os
    import subprocess
    import sys

    from hlorun.parser.bytecode.builtin_func_props import SOURCE_REVISION

    llvm = os.environ.get("HLORUN_LLVM_DIR", "/work/.mirror/llvm+llvm-project/repo")
    if not Path(llvm).exists():
        pytest.skip("no llvm-project checkout (HLORUN_LLVM_DIR) to regenerate the table from")
    tool = Path(__file__).resolve().parents[2] / "tools" / "gen_builtin_func_props.py"
    args = [sys.executable, str(tool), "--check", "--llvm", llvm, "--revision", SOURCE_REVISION]
    r = subprocess.run(args, capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr


def test_a_module_of_a_layout_we_do_not_know_is_refused():
    """builtin.module gained an inherent `dlti` in LLVM after TensorFlow 2.21's, with a
    hand-written encoding we have not seen: a three-field blob is refused, naming the
    producer, not misread."""
    m = parse_module("module @m {\n" + PROGRAM + "}\n")
    three = (("dlti", True), ("sym_name", True), ("sym_visibility", True))
    data = write_bytecode(m, 6, "MLIR24", property_layouts={"builtin.module": three})
    msg = str(_refused(data))
    assert "builtin.module" in msg and "MLIR24" in msg and "offset 0x" in msg
    two = write_bytecode(m, 6, "MLIR24")
    assert read_bytecode_file(two).module.name == "m"


CB = """func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {
  %0 = "stablehlo.collective_broadcast"(%x) <{replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>}> : (tensor<2xf32>) -> tensor<2xf32>
  %1 = stablehlo.custom_call @foo(%0) {api_version = 2 : i32, backend_config = "cfg"} : (tensor<2xf32>) -> tensor<2xf32>
  return %1 : tensor<2xf32>
}
"""


@pytest.mark.parametrize("which", [0, 1])
def test_stablehlo_layouts_of_two_releases(which):
    """collective_broadcast before / after has_dynamic_root, custom_call before / after
    result_tilings: each blob reads back with its attributes in their places."""
    pl = {
        op: spec_of(layouts(op)[which])
        for op in ("stablehlo.collective_broadcast", "stablehlo.custom_call")
    }
    data = write_bytecode(parse_module(CB), 6, "MLIR", property_layouts=pl)
    bf = read_bytecode_file(data)
    assert bf.property_layouts == ({} if which == 0 else pl)
    cb, call, _ = bf.module.functions["main"].body.blocks[0].operations
    assert "replica_groups" in cb.property_names
    attrs = dict(call.attributes)
    assert attrs["backend_config"] == StringAttr("cfg") and "api_version" in call.property_names
    assert rewrite(bf) == data
