"""The ``jax.export`` container (issue 17 items 3-4): ``engine.load_exported``, the
platform index of multi-platform exports, ``hlorun interpret --exported``.

Expected values are JAX's: the fixtures' recorded outputs (compared with the checks and
tolerances of test_jax_fixtures.py), the pytree structures jax printed into the manifest
(``in_tree`` / ``out_tree``), and for the small containers built here, facts of the
module they wrap (``x + x``).  No jax needed.
"""

from __future__ import annotations

import collections
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import flatbuffers
import numpy as np
import pytest

from hlorun import HloError, InterpreterError, ParseError, UnsupportedError, engine
from hlorun.engine import load_exported
from hlorun.engine.exported import Aval, check_avals
from hlorun.engine.npz_io import load_npz, save_npz
from hlorun.parser import parse_module
from hlorun.parser.vhlo.artifact import serialize_portable_artifact
from tests.engine.test_jax_fixtures import CHECKS, XFAIL, KnownGap
from tests.support.jax_fixtures import FIXTURES, fixture_names, load_fixture, manifest

REPO = Path(__file__).resolve().parents[2]


def _flat_outputs(program, result: Any) -> list[np.ndarray]:
    """The results flattened by the program's out_tree (what jax's tree_leaves gives)."""
    return program.out_tree.flatten(result)


def _call(name: str, program, inputs: list[np.ndarray]) -> list[np.ndarray]:
    """Call as a user would: inputs rebuilt into the exported (args, kwargs) pytree."""
    args, kwargs = program.in_tree.unflatten(list(inputs))
    try:
        return _flat_outputs(program, program(*args, **kwargs))
    except HloError as e:
        if name in XFAIL and XFAIL[name] in str(e):
            raise KnownGap(str(e)) from e
        raise


def _params() -> list[Any]:
    return [
        pytest.param(
            n, marks=pytest.mark.xfail(reason=f"hlorun: {XFAIL[n]}", raises=KnownGap, strict=False)
        )
        if n in XFAIL
        else n
        for n in fixture_names()
    ]


@pytest.mark.parametrize("name", _params())
def test_exported_container_matches_jax(name: str) -> None:
    """Every fixture runs from its `.exported` and gives JAX's outputs."""
    _, _, exported, inputs, outputs, entry = load_fixture(name)
    program = load_exported(exported.read_bytes(), filename=exported.name)
    assert program.fun_name == entry["fun_name"]
    assert list(program.platforms) == entry["platforms"]
    assert program.calling_convention_version == entry["calling_convention_version"]
    assert list(program.module_kept_var_idx) == entry["module_kept_var_idx"]
    assert program.nr_devices == entry["nr_devices"]
    assert program.uses_global_constants == entry["uses_global_constants"]
    for got, want in zip(
        program.in_avals + program.out_avals, entry["in_avals"] + entry["out_avals"]
    ):
        assert list(got.shape) == want["shape"] and got.dtype == np.dtype(want["dtype"])
    got = _call(name, program, inputs)
    assert len(got) == len(outputs)
    CHECKS[entry["check"]["kind"]](got, outputs, entry["tolerance"], inputs=inputs)


# ----------------------------------------------------------------------------- pytrees


def test_pytree_structure_is_jaxs() -> None:
    """in_tree / out_tree read back as jax printed them, and results are rebuilt as the
    exported function returns them: a dict with a namedtuple, None and an OrderedDict."""
    _, _, exported, inputs, outputs, entry = load_fixture("pytree_io")
    program = load_exported(exported)
    assert f"PyTreeDef({program.in_tree})" == entry["in_tree"]
    assert f"PyTreeDef({program.out_tree})" == entry["out_tree"]
    b, w, x, scale, unused = inputs
    out = program({"w": w, "b": b}, x, (None, [scale, unused]))
    assert list(out) == ["none", "pair", "stats", "y"] and out["none"] is None
    assert type(out["pair"]).__name__ == "Pair" and out["pair"]._fields == ("lo", "hi")
    assert isinstance(out["stats"], collections.OrderedDict)
    assert list(out["stats"]) == ["sum", "max"]
    flat = [out["pair"].lo, out["pair"].hi, out["stats"]["sum"], out["stats"]["max"], out["y"]]
    CHECKS["allclose"](flat, outputs, entry["tolerance"])
    # a Python float for the float32 scalar; the unused argument is still checked
    again = program({"b": b, "w": w}, x, (None, [0.5, unused]))
    np.testing.assert_array_equal(again["y"], out["y"])


@pytest.mark.parametrize(
    "mutate, message",
    [
        (lambda p, x, e: ({"w": p["w"]}, x, e), "args[0]: expected a dict with keys ['b', 'w']"),
        (lambda p, x, e: (p, (x,), e), "args[1]: expected an array, got a tuple of 1"),
        (lambda p, x, e: (p, x, (None, (e[1][0], e[1][1]))), "args[2][1]: expected a list of 2"),
        (lambda p, x, e: (p, x, (0, e[1])), "args[2][0]: expected None, got int"),
        (lambda p, x, e: (p, x[:, :2], e), "argument #2 has shape (2, 2)"),
        (lambda p, x, e: (p, x.astype(np.float64), e), "argument #2 has dtype float64"),
        (lambda p, x, e: (p, x, (None, [e[1][0], "no"])), "argument #4 must be a NumPy array"),
    ],
)
def test_bad_arguments_name_what_is_wrong(mutate, message: str) -> None:
    _, _, exported, inputs, _, _ = load_fixture("pytree_io")
    program = load_exported(exported)
    b, w, x, scale, unused = inputs
    args = mutate({"w": w, "b": b}, x, (None, [scale, unused]))
    with pytest.raises(InterpreterError, match=re.escape(message)):
        program(*args)


def test_wrong_argument_count_and_kwargs() -> None:
    _, _, exported, inputs, _, _ = load_fixture("mlp")
    program = load_exported(exported)
    with pytest.raises(InterpreterError, match="args: expected a tuple of 5"):
        program(*inputs[:4])
    with pytest.raises(InterpreterError, match=r"kwargs: expected a dict with keys \[\]"):
        program(*inputs, extra=1)


# ----------------------------------------------------------------------------- shape poly


def test_symbolic_dimensions_bind_from_the_arguments() -> None:
    """poly_mlp returns (tanh(x @ w).sum(0), b) for x: f32[b, 4]: run with b = 5."""
    _, _, exported, inputs, _, _ = load_fixture("poly_mlp")
    program = load_exported(exported)
    assert program.in_avals[0].shape == ("b", 4)
    x = np.random.default_rng(0).standard_normal((5, 4)).astype(np.float32)
    w = inputs[1]
    total, b = program(x, w)
    assert int(b) == 5
    np.testing.assert_allclose(total, np.tanh(x @ w).sum(axis=0), rtol=1e-5, atol=1e-5)


def test_symbolic_dimension_expressions_are_checked() -> None:
    """`b + 4`: a size below 5 breaks jax's constraint b >= 1 (the module's shape
    assertion says so); two arguments cannot give one variable two values."""
    _, _, exported, _, _, _ = load_fixture("poly_approx_top_k_tpu")
    program = load_exported(exported)
    assert program.in_avals[0].shape == ("b + 4",)
    # the message is the module's own (its shape_assertion's error_message, from jax)
    with pytest.raises(
        InterpreterError, match=r"Expected value >= 1 for dimension variable 'b'.*'b' = -1"
    ):
        program(np.zeros(3, np.float32))
    f32 = np.dtype(np.float32)
    avals = [Aval(("n", 2), f32), Aval(("n", "2*n"), f32)]
    check_avals(avals, [np.zeros((3, 2), np.float32), np.zeros((3, 6), np.float32)])
    with pytest.raises(InterpreterError, match="expects"):
        check_avals(avals, [np.zeros((3, 2), np.float32), np.zeros((3, 5), np.float32)])
    with pytest.raises(InterpreterError, match="binds dimension 'n' to 4"):
        check_avals(avals, [np.zeros((3, 2), np.float32), np.zeros((4, 8), np.float32)])


# ----------------------------------------------------------------------------- platforms


@pytest.mark.parametrize("platform", [None, "cpu", "cuda", "tpu", 0, 2])
def test_multi_platform_export_runs_as_each_platform(platform) -> None:
    """Each platform's lowering (lapack potrf, cusolver potrf, stablehlo.cholesky) gives
    JAX's cpu outputs."""
    _, _, exported, inputs, outputs, entry = load_fixture("multi_platform")
    program = load_exported(exported)
    got = program.call_flat(*inputs, platform=platform)
    CHECKS["allclose"](got, outputs, entry["tolerance"])


def test_run_fills_the_platform_index() -> None:
    """engine.run on the text: the index by name from `platforms`, or as a number; the
    default is 0 when the module alone does not say which platform is which."""
    text, _, _, inputs, outputs, entry = load_fixture("multi_platform")
    module = text.read_text()
    for kw in ({}, {"platform": 2}, {"platform": "tpu", "platforms": entry["platforms"]}):
        CHECKS["allclose"](engine.run(module, inputs, **kw), outputs, entry["tolerance"])
    with pytest.raises(InterpreterError, match="does not list its platforms"):
        engine.run(module, inputs, platform="cpu")
    with pytest.raises(InterpreterError, match="not one the module was exported for"):
        engine.run(module, inputs, platform="rocm", platforms=entry["platforms"])
    with pytest.raises(InterpreterError, match="out of range"):
        engine.run(module, inputs, platform=3, platforms=entry["platforms"])
    # the index given explicitly, as test_jax_fixtures does: left as it is
    CHECKS["allclose"](engine.run(module, [np.int32(0), *inputs]), outputs, entry["tolerance"])


# ----------------------------------------------------------------------------- containers


def _vector(b: flatbuffers.Builder, offsets: list[int]) -> int:
    b.StartVector(4, len(offsets), 4)
    for o in reversed(offsets):
        b.PrependUOffsetTRelative(o)
    return b.EndVector()


def _tree(b: flatbuffers.Builder, node: Any) -> int:
    """serialization.fbs PyTreeDef (kind 0 leaf, 1 none, 2 tuple, 4 dict): ``node`` is
    a Python structure with 0 for each leaf."""
    children, names, kind = [], None, 0
    if node is None:
        kind = 1
    elif isinstance(node, tuple):
        kind, children = 2, [_tree(b, c) for c in node]
    elif isinstance(node, dict):
        kind = 4
        children = [_tree(b, node[k]) for k in sorted(node)]
        names = _vector(b, [b.CreateString(k) for k in sorted(node)])
    kids = _vector(b, children) if children else None
    b.StartObject(5)
    b.PrependInt8Slot(0, kind, 0)
    if kids is not None:
        b.PrependUOffsetTRelativeSlot(1, kids, 0)
    if names is not None:
        b.PrependUOffsetTRelativeSlot(2, names, 0)
    return b.EndObject()


def _aval(b: flatbuffers.Builder, shape: tuple, dtype_code: int) -> int:
    dims = _vector(b, [b.CreateString(str(d)) for d in shape])
    b.StartObject(4)
    b.PrependUOffsetTRelativeSlot(1, dims, 0)
    b.PrependInt8Slot(2, dtype_code, 0)
    return b.EndObject()


def build_container(
    module_text: str,
    in_tree: Any,
    out_tree: Any,
    in_avals: list[tuple[tuple, int]],
    out_avals: list[tuple[tuple, int]],
    *,
    ordered_effects: tuple[str, ...] = (),
    calling_convention: int = 10,
    platforms: tuple[str, ...] = ("cpu",),
) -> bytes:
    """An Exported FlatBuffer as jax/_src/export/serialization.py writes one (pre-v10
    layout: avals inline), for a module of our own."""
    b = flatbuffers.Builder(1024)
    payload = serialize_portable_artifact(parse_module(module_text), "1.15.0")
    name = b.CreateString("f")
    it, ot = _tree(b, in_tree), _tree(b, out_tree)
    ia = _vector(b, [_aval(b, s, d) for s, d in in_avals])
    oa = _vector(b, [_aval(b, s, d) for s, d in out_avals])
    plats = _vector(b, [b.CreateString(p) for p in platforms])
    effs = []
    for e in ordered_effects:
        s = b.CreateString(e)
        b.StartObject(1)
        b.PrependUOffsetTRelativeSlot(0, s, 0)
        effs.append(b.EndObject())
    ef = _vector(b, effs)
    mod = b.CreateByteVector(payload)
    kept = b.CreateNumpyVector(np.arange(len(in_avals), dtype=np.uint16))
    b.StartObject(27)
    b.PrependUint16Slot(0, 9, 0)
    b.PrependUOffsetTRelativeSlot(1, name, 0)
    b.PrependUOffsetTRelativeSlot(2, it, 0)
    b.PrependUOffsetTRelativeSlot(3, ia, 0)
    b.PrependUOffsetTRelativeSlot(4, ot, 0)
    b.PrependUOffsetTRelativeSlot(5, oa, 0)
    b.PrependUOffsetTRelativeSlot(9, plats, 0)
    b.PrependUOffsetTRelativeSlot(10, ef, 0)
    b.PrependUOffsetTRelativeSlot(13, mod, 0)
    b.PrependUint16Slot(14, calling_convention, 0)
    b.PrependUOffsetTRelativeSlot(15, kept, 0)
    b.PrependUint32Slot(18, 1, 0)
    b.Finish(b.EndObject())
    return bytes(b.Output())


_TOKENS = """
func.func public @main(%t: !stablehlo.token, %x: tensor<2xf32>, %y: tensor<2xf32>)
    -> (!stablehlo.token, tensor<2xf32>) {
  %0 = stablehlo.add %x, %y : tensor<2xf32>
  func.return %t, %0 : !stablehlo.token, tensor<2xf32>
}
"""
F32 = 10  # serialization.fbs DType.f32


def test_ordered_effect_tokens_and_kwargs() -> None:
    """One ordered effect: main takes and returns a token around the arrays (jax's
    calling convention 9+); the second argument comes as a keyword."""
    data = build_container(
        _TOKENS,
        ((0,), {"y": 0}),
        0,
        [((2,), F32), ((2,), F32)],
        [((2,), F32)],
        ordered_effects=("<class 'jax._src.effects.TestOrderedEffect'>",),
    )
    program = load_exported(data)
    assert program.ordered_effects == ("<class 'jax._src.effects.TestOrderedEffect'>",)
    x = np.array([1.0, 2.0], np.float32)
    y = np.array([10.0, 20.0], np.float32)
    np.testing.assert_array_equal(program(x, y=y), x + y)
    with pytest.raises(InterpreterError, match="args: expected a tuple of 1, got a tuple of 2"):
        program(x, y)
    with pytest.raises(InterpreterError, match=r"kwargs: expected a dict with keys \['y'\]"):
        program(x, z=y)


def test_shardings_are_kept_as_data() -> None:
    """cases.py exports sharded_shardy with in_shardings (P("x", None), P()) over a mesh
    x=8 of cpu devices, and device_placement's second input in pinned_host memory."""
    program = load_exported(FIXTURES / "sharded_shardy.exported")
    split, replicated = program.in_shardings
    assert split.mesh.axis_names == ("x",) and split.mesh.axis_sizes == (8,)
    assert split.mesh.device_platform == "cpu"
    assert split.partitions == (("x",), ()) and replicated.partitions == ()
    assert program.out_shardings == program.in_shardings
    program = load_exported(FIXTURES / "device_placement.exported")
    assert [s.memory_kind for s in program.in_shardings] == ["device", "pinned_host"]
    assert [a.memory_space for a in program.in_avals] == ["device", "host"]


_KEYS = """
func.func public @main(%k: tensor<3x2xui32>) -> tensor<3xui32> {
  %0 = stablehlo.slice %k [0:3, 1:2] : (tensor<3x2xui32>) -> tensor<3x1xui32>
  %1 = stablehlo.reshape %0 : (tensor<3x1xui32>) -> tensor<3xui32>
  func.return %1 : tensor<3xui32>
}
"""


def test_prng_key_arguments_take_their_key_data() -> None:
    """A key<fry>[3] argument (DType.key_fry = 27) is passed as its uint32[3, 2] data,
    as jax lowers threefry keys (jax/_src/prng.py)."""
    data = build_container(_KEYS, ((0,), {}), 0, [((3,), 27)], [((3,), 7)])
    program = load_exported(data)
    assert program.in_avals[0].dtype == "key<fry>"
    keys = np.arange(6, dtype=np.uint32).reshape(3, 2)
    np.testing.assert_array_equal(program(keys), [1, 3, 5])
    with pytest.raises(InterpreterError, match="shape"):
        program(keys[:, :1])


def test_old_calling_convention_is_refused() -> None:
    data = build_container(
        _TOKENS, ((0, 0), {}), 0, [((2,), F32)] * 2, [((2,), F32)], calling_convention=8
    )
    with pytest.raises(UnsupportedError, match="calling convention version 8"):
        load_exported(data)


def test_malformed_containers_raise_parse_errors() -> None:
    """Truncated or corrupted containers: an HloError (a ParseError naming the offset
    and the field), never an IndexError / struct.error from the reader.  Corruption is
    kept outside the module's bytes (the artifact reader has fuzz tests of its own)."""
    data = (FIXTURES / "pytree_io.exported").read_bytes()
    module = (FIXTURES / "pytree_io.mlirbc").read_bytes()
    with pytest.raises(ParseError, match="not a FlatBuffer"):
        load_exported(b"\x01")
    for cut in list(range(0, 64)) + list(range(64, len(data), 37)):
        with pytest.raises(HloError):
            load_exported(data[:cut])
    start = data.index(module)
    outside = np.r_[0:start, start + len(module) : len(data)]
    rng = np.random.default_rng(17)
    failed = 0
    for _ in range(500):
        bad = bytearray(data)
        for i in rng.choice(outside, int(rng.integers(1, 6))):
            bad[i] = int(rng.integers(0, 256))
        try:
            load_exported(bytes(bad))
        except HloError:
            failed += 1
    assert failed > 250  # most corruptions are caught
    garbage = bytes(rng.integers(0, 256, 4096, dtype=np.uint8))
    with pytest.raises(HloError):
        load_exported(garbage)


def test_error_names_offset_and_field() -> None:
    data = bytearray((FIXTURES / "mlp.exported").read_bytes())
    data[0:4] = (len(data) + 8).to_bytes(4, "little")  # root offset past the end
    with pytest.raises(ParseError, match=r"offset 0x0 \(section 'Exported'\)"):
        load_exported(bytes(data), filename="mlp.exported")


def test_custom_node_without_layout_is_unsupported(monkeypatch) -> None:
    from hlorun.engine import exported_tree
    from hlorun.engine.exported_tree import TreeDef, register_pytree_node

    monkeypatch.setattr(exported_tree, "_CUSTOM", {})  # registrations end with the test

    node = TreeDef("custom", (TreeDef("leaf"),), None, "my.Point", b"\x00")
    with pytest.raises(UnsupportedError, match="'my.Point'"):
        node.flatten(object())
    with pytest.raises(UnsupportedError, match="'my.Point'"):
        node.unflatten([1])
    register_pytree_node("my.Point", lambda p: [p["x"]], lambda aux, kids: {"x": kids[0]})
    assert node.flatten({"x": 3}) == [3] and node.unflatten([4]) == {"x": 4}


# ----------------------------------------------------------------------------- files, CLI


def test_npz_round_trip_of_every_element_type(tmp_path: Path) -> None:
    import ml_dtypes

    arrays = [np.arange(6, dtype=np.float32).reshape(2, 3), np.float64(1.5), np.bool_(True)]
    for name in ("bfloat16", "float8_e4m3fn", "float8_e5m2", "int4", "uint4", "float4_e2m1fn"):
        arrays.append(np.array([1, -1, 0.5, 2], np.float32).astype(getattr(ml_dtypes, name)))
    save_npz(tmp_path / "a.npz", arrays)
    with np.load(tmp_path / "a.npz") as z:
        assert z.files[:4] == ["arr_0", "arr_1", "arr_2", "arr_3.bf16"]
    back = load_npz(tmp_path / "a.npz")
    for a, b in zip(arrays, back):
        a = np.asarray(a)
        assert a.dtype == b.dtype and a.shape == b.shape
        assert a.tobytes() == b.tobytes()


def _cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "hlorun.engine.cli", "interpret", *args],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=300,
    )


def _main(capsys, *args: str) -> tuple[int, str, str]:
    """``hlorun interpret ARGS`` in this process: (exit code, stdout, stderr)."""
    from hlorun.engine.cli import main

    code = main(["interpret", *args])
    out, err = capsys.readouterr()
    return code, out, err


def test_cli_runs_an_exported_model(tmp_path: Path) -> None:
    """The README's command in a subprocess, with --outputs: JAX's outputs."""
    out = tmp_path / "out.npz"
    r = _cli(
        "--exported",
        "tests/fixtures/jax/mlp.exported",
        "--inputs",
        "tests/fixtures/jax/mlp.inputs.npz",
        "--outputs",
        str(out),
    )
    assert r.returncode == 0, r.stderr
    assert r.stdout == ""  # written to --outputs, not printed
    _, _, _, _, outputs, entry = load_fixture("mlp")
    CHECKS["allclose"](load_npz(out), outputs, entry["tolerance"])
    r = _cli("--exported", "tests/fixtures/jax/mlp.exported")  # no inputs
    assert r.returncode == 1 and "error:" in r.stderr and "Traceback" not in r.stderr


def test_cli_multi_platform_and_npy_inputs(tmp_path: Path, capsys) -> None:
    _, _, _, inputs, outputs, entry = load_fixture("multi_platform")
    np.save(tmp_path / "x.npy", inputs[0])
    out = tmp_path / "out.npz"
    code, _, err = _main(
        capsys,
        "--exported",
        str(FIXTURES / "multi_platform.exported"),
        "--platform",
        "tpu",
        "--inputs",
        str(tmp_path / "x.npy"),
        "--outputs",
        str(out),
    )
    assert code == 0, err
    CHECKS["allclose"](load_npz(out), outputs, entry["tolerance"])
    # a .exported FILE without the flag is taken as one
    code, _, err = _main(
        capsys,
        str(FIXTURES / "multi_platform.exported"),
        "--outputs",
        str(out),
        "--inputs",
        str(tmp_path / "x.npy"),
    )
    assert code == 0, err
    CHECKS["allclose"](load_npz(out), outputs, entry["tolerance"])


def test_cli_bf16_outputs_keep_their_type(tmp_path: Path, capsys) -> None:
    _, _, _, inputs, outputs, entry = load_fixture("bf16_model")
    inp, out = tmp_path / "in.npz", tmp_path / "out.npz"
    save_npz(inp, inputs)
    code, _, err = _main(
        capsys,
        "--exported",
        str(FIXTURES / "bf16_model.exported"),
        "--inputs",
        str(inp),
        "--outputs",
        str(out),
    )
    assert code == 0, err
    got = load_npz(out)
    assert got[0].dtype == outputs[0].dtype
    with np.load(out) as z:
        assert z.files == [f"arr_{i}.bf16" for i in range(len(outputs))]
    CHECKS["allclose"](got, outputs, entry["tolerance"])
    # the fixture's own npz (plain uint16 views): taken as the bf16 the export declares
    raw = str(FIXTURES / "bf16_model.inputs.npz")
    code, _, err = _main(
        capsys,
        "--exported",
        str(FIXTURES / "bf16_model.exported"),
        "--inputs",
        raw,
        "--outputs",
        str(out),
    )
    assert code == 0, err
    CHECKS["allclose"](load_npz(out), outputs, entry["tolerance"])


def test_cli_text_module_with_files_and_platform(tmp_path: Path, capsys) -> None:
    """--inputs / --outputs / --platform apply to a plain module too."""
    _, _, _, _, outputs, entry = load_fixture("multi_platform")
    out = tmp_path / "out.npz"
    code, _, err = _main(
        capsys,
        "--platform",
        "2",
        "--outputs",
        str(out),
        "--inputs",
        str(FIXTURES / "multi_platform.inputs.npz"),
        str(FIXTURES / "multi_platform.mlir"),  # after --inputs: still the program
    )
    assert code == 0, err
    CHECKS["allclose"](load_npz(out), outputs, entry["tolerance"])


def test_cli_errors_exit_1_with_a_message(tmp_path: Path, capsys) -> None:
    mlp = str(FIXTURES / "mlp.exported")
    code, _, err = _main(capsys, "--exported", mlp, "--inputs", str(FIXTURES / "cnn.inputs.npz"))
    assert code == 1 and "error:" in err
    (tmp_path / "bad.exported").write_bytes(b"\x10\x00\x00\x00garbage")
    code, _, err = _main(capsys, "--exported", str(tmp_path / "bad.exported"))
    assert code == 1 and "bad.exported:offset 0x0" in err
    code, _, err = _main(
        capsys,
        "--exported",
        str(FIXTURES / "multi_platform.exported"),
        "--platform",
        "rocm",
        "--inputs",
        str(FIXTURES / "multi_platform.inputs.npz"),
    )
    assert code == 1 and "not one the module was exported for" in err
    code, _, err = _main(capsys, "--exported", mlp, "--inputs", str(tmp_path / "missing.npz"))
    assert code == 1 and "missing.npz" in err


def test_manifest_lists_the_pytree_fixture() -> None:
    assert manifest()["fixtures"]["pytree_io"]["status"] == "ok"
