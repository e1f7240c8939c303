"""``hlorun.diff`` / ``hlorun diff``: per-op comparison with XLA, IREE, recorded values
and another version of a program.

The XLA and IREE values are recorded by tests/fixtures/diff/generate.py (versions in
its MANIFEST.json), so these tests need neither installed.  The expected places are
read from the generator's own source (the line of the Python that made the op), not
from hlorun's output.  The test marked ``slow`` runs the real engines when installed.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys

import ml_dtypes
import numpy as np
import pytest

import hlorun
from hlorun.engine.diff_engines import HlorunEngine, NpzValues
from hlorun.engine.diff_instrument import instrument
from hlorun.engine.diff_metrics import Tolerance, measure, ulp_distance
from hlorun.engine.npz_io import load_npz
from hlorun.parser import parse_module

HERE = os.path.dirname(os.path.abspath(__file__))
FIX = os.path.join(HERE, "..", "fixtures", "diff")
GENERATOR = os.path.join(FIX, "generate.py")


def fixture(name: str) -> str:
    return os.path.join(FIX, name)


def generator_line(snippet: str) -> str:
    """``generate.py:N``: the line of the generator's source holding ``snippet``."""
    with open(GENERATOR, encoding="utf-8") as f:
        lines = [i + 1 for i, line in enumerate(f) if snippet in line]
    assert len(lines) == 1, snippet
    return f"generate.py:{lines[0]}"


def inputs(name: str) -> list[np.ndarray]:
    return load_npz(fixture(name + ".inputs.npz"))


def recorded(name: str, engine: str, unoptimized: bool = False) -> NpzValues:
    off = fixture(f"{name}.{engine}-noexcess.npz") if unoptimized else None
    return NpzValues(fixture(f"{name}.{engine}.npz"), off)


# ------------------------------------------------------------------ recorded cases


def test_bf16_mlp_against_xla_is_excess_precision_at_the_convert():
    # XLA CPU computes the bf16 scale-and-shift in f32 and the convert to f32 reads the
    # unrounded sum (the SimplifyFPConversions case)
    report = hlorun.diff(
        fixture("mlp.mlir"), inputs("mlp"), against=recorded("mlp", "xla", unoptimized=True)
    )
    first = report.first_divergence
    assert first is not None
    assert first["op"] == "stablehlo.convert"
    assert first["location"].endswith(generator_line("z.astype(jnp.float32)"))
    assert first["cause"] == "optimization"
    detail = first["cause_detail"]
    assert detail["recomputed_from_recorded_operands"]["over"]  # not the convert's value
    assert not detail["recomputed_unrounded"]["over"]  # the unrounded operand explains it
    assert not detail["rerun_without_optimization"]["over"]
    assert detail["rerun_without_optimization"]["switch"].endswith(
        "--xla_allow_excess_precision=false"
    )
    # the operand (the bf16 add) agrees as materialized: the error starts at the convert
    assert [o["over"] for o in first["operands"]] == [False]


def test_bf16_mlp_without_the_rerun_still_tells_optimization():
    report = hlorun.diff(fixture("mlp.mlir"), inputs("mlp"), against=recorded("mlp", "xla"))
    assert report.first_divergence["cause"] == "optimization"
    assert "rerun_without_optimization" not in report.first_divergence["cause_detail"]


def test_bf16_mlp_xla_without_excess_precision_agrees():
    report = hlorun.diff(
        fixture("mlp.mlir"), inputs("mlp"), against=NpzValues(fixture("mlp.xla-noexcess.npz"))
    )
    assert report.first_divergence is None
    assert report.rows and all(not r.errors.over for r in report.rows)


def test_bf16_mlp_against_iree_reports_the_first_matmul():
    # IREE llvm-cpu's bf16 matmul departs from the correctly rounded product
    report = hlorun.diff(fixture("mlp.mlir"), inputs("mlp"), against=recorded("mlp", "iree"))
    first = report.first_divergence
    assert first["op"] == "stablehlo.dot_general"
    assert first["location"].endswith(generator_line("h = jnp.tanh(x @ w1)"))
    assert first["cause"] == "value"
    # an independent reference: the exact product (f64 holds it: 64 products of 8-bit
    # significands) rounded once to bf16; IREE's recorded value is not that
    x, w1 = (a.astype(np.float64) for a in inputs("mlp")[:2])
    exact = (x @ w1).astype(ml_dtypes.bfloat16)
    iree = NpzValues(fixture("mlp.iree.npz")).arrays[f"op{first['op_index']}.r0"]
    assert (iree.view(ml_dtypes.bfloat16) != exact).any()


@pytest.mark.parametrize("engine", ["xla", "iree"])
def test_planted_change_found_in_values_recorded_from_the_changed_program(engine):
    report = hlorun.diff(
        fixture("block.mlir"), inputs("block"), against=recorded("block_changed", engine)
    )
    first = report.first_divergence
    assert first["op"] == "stablehlo.tanh"
    assert first["location"].endswith(generator_line("jnp.tanh(0.7978845608"))
    assert first["cause"] == "value"


def test_planted_change_found_between_two_versions():
    report = hlorun.diff(
        fixture("block.mlir"), inputs("block"), against=fixture("block_changed.mlir")
    )
    first = report.first_divergence
    assert first["op"] == "stablehlo.tanh"
    assert first["other_op"] == "stablehlo.logistic"
    assert first["location"].endswith(generator_line("jnp.tanh(0.7978845608"))
    # every op before it agrees exactly (the same program on the same engine)
    before = [r for r in report.rows if r.index < first["op_index"]]
    assert before and all(r.errors.max_abs == 0 for r in before)


@pytest.mark.parametrize("engine", ["xla", "iree"])
def test_f16_reduction_order(engine):
    report = hlorun.diff(
        fixture("f16sum.mlir"), inputs("f16sum"), against=recorded("f16sum", engine)
    )
    first = report.first_divergence
    assert first["op"] == "stablehlo.reduce"
    assert first["location"].endswith(generator_line("lax.reduce(x, np.float16(0)"))
    assert first["max_ulp"] >= 1


def test_values_of_another_program_are_refused():
    with pytest.raises(hlorun.HloError, match="another program"):
        hlorun.diff(fixture("f16sum.mlir"), inputs("f16sum"), against=recorded("mlp", "xla"))


# ------------------------------------------------------------------ instrumentation

LOOPS = """
func.func @main(%x: tensor<3xf32>, %p: tensor<i1>, %k: tensor<i32>) -> tensor<3xf32> {
  %0 = func.call @twice(%x) : (tensor<3xf32>) -> tensor<3xf32>
  %c0 = stablehlo.constant dense<0> : tensor<i64>
  %r:2 = stablehlo.while(%i = %c0, %v = %0) : tensor<i64>, tensor<3xf32>
   cond {
     %n = stablehlo.constant dense<4> : tensor<i64>
     %lt = stablehlo.compare LT, %i, %n : (tensor<i64>, tensor<i64>) -> tensor<i1>
     stablehlo.return %lt : tensor<i1>
   } do {
     %one = stablehlo.constant dense<1> : tensor<i64>
     %j = stablehlo.add %i, %one : tensor<i64>
     %t = stablehlo.sine %v : tensor<3xf32>
     %u = "stablehlo.if"(%p) ({
       %a = stablehlo.exponential %t : tensor<3xf32>
       stablehlo.return %a : tensor<3xf32>
     }, {
       %b = stablehlo.negate %t : tensor<3xf32>
       stablehlo.return %b : tensor<3xf32>
     }) : (tensor<i1>) -> tensor<3xf32>
     stablehlo.return %j, %u : tensor<i64>, tensor<3xf32>
   }
  %s = "stablehlo.case"(%k) ({
    %m = stablehlo.multiply %r#1, %r#1 : tensor<3xf32>
    stablehlo.return %m : tensor<3xf32>
  }, {
    %q = stablehlo.abs %r#1 : tensor<3xf32>
    stablehlo.return %q : tensor<3xf32>
  }) : (tensor<i32>) -> tensor<3xf32>
  %sum = stablehlo.reduce(%s init: %c1) applies stablehlo.add across dimensions = [0] : (tensor<3xf32>, tensor<f32>) -> tensor<f32>
  %b = stablehlo.broadcast_in_dim %sum, dims = [] : (tensor<f32>) -> tensor<3xf32>
  return %b : tensor<3xf32>
}
func.func private @twice(%a: tensor<3xf32>) -> tensor<3xf32> {
  %0 = stablehlo.add %a, %a : tensor<3xf32>
  return %0 : tensor<3xf32>
}
""".replace("init: %c1)", "init: %z)").replace(
    "  %sum =", "  %z = stablehlo.constant dense<0.0> : tensor<f32>\n  %sum ="
)
LOOP_INPUTS = [np.array([0.5, -1.0, 2.0], np.float32), np.array(False), np.array(1, np.int32)]


def _expected_loop_values():
    """The loop's values by NumPy (f64, rounded once): sin, then negate, 4 times."""
    v = LOOP_INPUTS[0].astype(np.float64) * 2
    sines = []
    for _ in range(4):
        t = np.sin(v)
        sines.append(t)
        v = -t
    return v, sines


def test_instrumented_copy_keeps_results_and_adds_every_op():
    module = parse_module(LOOPS)
    ins = instrument(module)
    names = [o.name for o in ins.ops]
    # the call is inlined; the while body and both branches are numbered; the cond
    # region and the reduce body are not
    assert "func.call" not in names and "stablehlo.compare" not in names
    assert names.count("stablehlo.add") == 2  # the callee's and the loop counter's
    assert {"stablehlo.exponential", "stablehlo.negate", "stablehlo.multiply"} <= set(names)
    out = hlorun.run(ins.module, LOOP_INPUTS)
    original = hlorun.run(module, LOOP_INPUTS)
    assert np.array_equal(out[0], original[0])
    assert len(out) == 1 + len(ins.outputs)
    final, sines = _expected_loop_values()
    by_key = dict(zip((o.key for o in ins.outputs), out[1:]))
    sine = next(o for o in ins.ops if o.name == "stablehlo.sine")
    np.testing.assert_allclose(by_key[f"op{sine.index}.r0"], sines[-1], rtol=1e-6)
    exp_op = next(o for o in ins.ops if o.name == "stablehlo.exponential")
    assert not by_key[f"op{exp_op.index}.r0"].any()  # its branch never ran: zeros
    np.testing.assert_allclose(out[0], np.full(3, np.abs(final).sum()), rtol=1e-6)


def test_iterations_stack_each_loop_iteration():
    report = hlorun.diff(LOOPS, LOOP_INPUTS, against="hlorun", iterations=True)
    sine_rows = [r for r in report.rows if r.op == "stablehlo.sine"]
    assert [r.iteration for r in sine_rows] == [0, 1, 2, 3]
    assert report.first_divergence is None


def test_against_its_own_instrumented_copy_nothing_diverges():
    report = hlorun.diff(fixture("block.mlir"), inputs("block"), against=HlorunEngine())
    assert report.rows and all(r.errors.max_abs == 0 for r in report.rows)
    assert not report.diverged


def test_planted_constant_is_the_first_divergence():
    a = """func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %c = stablehlo.constant dense<2.0> : tensor<4xf32>
  %0 = stablehlo.multiply %x, %c : tensor<4xf32> loc("m.py":3:1)
  %1 = stablehlo.tanh %0 : tensor<4xf32> loc("m.py":4:1)
  %2 = stablehlo.add %1, %x : tensor<4xf32> loc("m.py":5:1)
  return %2 : tensor<4xf32>
}"""
    b = a.replace("dense<2.0>", "dense<2.5>")
    x = np.array([0.0, 0.25, -1.0, 3.0], np.float32)
    report = hlorun.diff(a, [x], against=b)
    first = report.first_divergence
    assert (first["op"], first["location"]) == ("stablehlo.multiply", "m.py:3")
    # x * 2 against x * 2.5: the largest difference is 0.5 * |x| = 1.5
    assert first["max_abs"] == pytest.approx(1.5)
    assert first["cause"] == "value"
    tanh = next(r for r in report.rows if r.op == "stablehlo.tanh")
    assert tanh.operands[0].errors.over  # its error came in


# ------------------------------------------------------------------ measures


def test_ulp_distance_counts_representable_steps():
    one = np.float32(1.0)
    nxt = np.nextafter(one, np.float32(2), dtype=np.float32)
    assert ulp_distance(np.array([nxt]), np.array([one]))[0] == 1
    # across zero: -min subnormal .. +min subnormal is 2 steps
    tiny = np.nextafter(np.float32(0), np.float32(1), dtype=np.float32)
    assert ulp_distance(np.array([tiny]), np.array([-tiny]))[0] == 2
    d = np.array([1.0]), np.array([np.nextafter(1.0, 2.0)])
    assert ulp_distance(*d)[0] == 1


def test_measure_nan_and_tolerance():
    tol = Tolerance(rtol=1e-3, atol=0.0, ulp=0)
    e = measure(np.array([np.nan, 1.0]), np.array([np.nan, 1.0005]), tol)
    assert not e.over and e.max_rel == pytest.approx(0.0005 / 1.0005)
    e = measure(np.array([np.nan, 1.0]), np.array([0.0, 1.0]), tol)
    assert e.over and e.bad == 1 and e.max_ulp == np.inf
    e = measure(np.array([3], np.int32), np.array([4], np.int32), tol)
    assert e.over and e.max_abs == 1


# ------------------------------------------------------------------ command line


def _cli(*args: str, cwd: str = FIX) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "hlorun.engine.cli", "diff", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
    )


def test_cli_exit_status_json_and_html(tmp_path):
    js, page = tmp_path / "d.json", tmp_path / "d.html"
    p = _cli(
        "mlp.mlir",
        "--inputs",
        "mlp.inputs.npz",
        "--against",
        "mlp.xla.npz",
        "--unoptimized",
        "mlp.xla-noexcess.npz",
        "--json",
        str(js),
        "--html",
        str(page),
    )
    assert p.returncode == 1, p.stderr
    assert "first divergence: op" in p.stdout and "cause: optimization" in p.stdout
    data = json.loads(js.read_text())
    assert set(data["first_divergence"]) >= {
        "op",
        "location",
        "result_index",
        "max_abs",
        "max_rel",
        "max_ulp",
        "cause",
    }
    assert data["rows"] and "<svg" in page.read_text()
    same = _cli("block.mlir", "block.mlir", "--inputs", "block.inputs.npz")
    assert same.returncode == 0, same.stderr
    assert "no divergence over tolerance" in same.stdout
    bad = _cli("block.mlir", "--against", "missing.npz")
    assert bad.returncode == 2 and "Traceback" not in bad.stderr


@pytest.mark.parametrize("suffix", [".mlir", ".mlirbc", ".exported"])
def test_emit_instrumented(tmp_path, suffix):
    out = tmp_path / ("mlp" + suffix)
    p = _cli("mlp.mlir", "--emit-instrumented", str(out))
    assert p.returncode == 0, p.stderr
    if suffix == ".exported":
        from hlorun.engine.exported import load_exported

        program = load_exported(out)
        module = program.module
        assert len(program.out_avals) == len(module.functions["main"].type.results)
    else:
        from hlorun.engine.api import prepare

        module = prepare(str(out))
    keys = [a.value for a in module.attr("hlorun.diff_outputs").elements]
    assert keys and all(k.startswith("op") for k in keys)
    results = hlorun.run(module, inputs("mlp"))
    assert len(results) == 1 + len(keys)


# ------------------------------------------------------------------ real engines


def _python_with(package: str, env_var: str) -> str | None:
    exe = os.environ.get(env_var)
    if exe:
        return exe
    try:
        found = importlib.util.find_spec(package) is not None
    except ImportError:  # its parent package is not installed
        found = False
    return sys.executable if found else None


@pytest.mark.slow
@pytest.mark.parametrize(
    "engine,package,env_var",
    [("xla", "jax", "HLORUN_JAX_PYTHON"), ("iree", "iree.compiler", "HLORUN_IREE_PYTHON")],
)
def test_real_engines(engine, package, env_var):
    if _python_with(package, env_var) is None:
        pytest.skip(f"{package} is not installed here and {env_var} is not set")
    report = hlorun.diff(fixture("mlp.mlir"), inputs("mlp"), against=engine)
    first = report.first_divergence
    assert first is not None
    if engine == "xla":
        assert first["op"] == "stablehlo.convert" and first["cause"] == "optimization"
    # the f32 block: reassociated sums stay within the f32 tolerance
    assert not hlorun.diff(fixture("block.mlir"), inputs("block"), against=engine).diverged


def test_an_entry_not_named_main_is_the_copies_main():
    text = """func.func @forward(%x: tensor<2xf32>) -> tensor<2xf32> {
  %0 = stablehlo.sqrt %x : tensor<2xf32>
  return %0 : tensor<2xf32>
}"""
    ins = instrument(parse_module(text))
    assert ins.function == "main" and list(ins.module.functions) == ["main"]
    report = hlorun.diff(text, [np.array([4.0, 9.0], np.float32)], against="hlorun")
    assert [r.op for r in report.rows] == ["stablehlo.sqrt"] and not report.diverged


def test_recorded_values_read_back(tmp_path):
    values = tmp_path / "values.npz"
    p = _cli(
        "block.mlir", "--inputs", "block.inputs.npz", "--against", "hlorun", "--record", str(values)
    )
    assert p.returncode == 0, p.stderr
    back = _cli("block.mlir", "--inputs", "block.inputs.npz", "--against", str(values))
    assert back.returncode == 0, back.stderr
    assert "54 op results compared" in back.stdout


def test_values_saved_from_an_emitted_program_per_iteration(tmp_path):
    # what a user does on another machine: run the emitted copy, save its extra results
    # under the keys the copy lists; stacked (per-iteration) results split by NpzValues
    module = parse_module(LOOPS)
    from hlorun.engine.diff_run import run_hlorun, trip_counts

    ins = instrument(module, trip_counts=trip_counts(run_hlorun(instrument(module), LOOP_INPUTS)))
    keys = [a.value for a in ins.module.attr("hlorun.diff_outputs").elements]
    results = hlorun.run(ins.module, LOOP_INPUTS)
    np.savez(tmp_path / "v.npz", **dict(zip(keys, results[1:])))
    report = hlorun.diff(LOOPS, LOOP_INPUTS, against=str(tmp_path / "v.npz"), iterations=True)
    sine_rows = [r for r in report.rows if r.op == "stablehlo.sine"]
    assert [r.iteration for r in sine_rows] == [0, 1, 2, 3]
    assert not report.diverged


@pytest.mark.slow
def test_iree_keeps_f64_and_i64():
    if _python_with("iree.compiler", "HLORUN_IREE_PYTHON") is None:
        pytest.skip("iree.compiler is not installed here and HLORUN_IREE_PYTHON is not set")
    text = """func.func @main(%a: tensor<2xf64>, %b: tensor<2xi64>) -> (tensor<2xf64>, tensor<2xi64>) {
  %c = stablehlo.constant dense<1.0e-10> : tensor<2xf64>
  %0 = stablehlo.add %a, %c : tensor<2xf64>
  %k = stablehlo.constant dense<4294967296> : tensor<2xi64>
  %1 = stablehlo.add %b, %k : tensor<2xi64>
  return %0, %1 : tensor<2xf64>, tensor<2xi64>
}"""
    # 1 + 1e-10 is 1 in f32, and 2**32 + 1 does not fit i32: demoted, both would differ
    report = hlorun.diff(text, [np.array([1.0, 2.0]), np.array([1, 2], np.int64)], against="iree")
    assert len(report.rows) == 2 and not report.diverged


def test_dot_tolerance_scales_with_the_magnitude_of_its_terms(tmp_path):
    from hlorun.engine.diff_engines import save_values

    text = """func.func @main(%a: tensor<1x3xf32>, %b: tensor<3x1xf32>) -> tensor<1x1xf32> {
  %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<1x3xf32>, tensor<3x1xf32>) -> tensor<1x1xf32>
  %1 = stablehlo.negate %0 : tensor<1x1xf32>
  return %1 : tensor<1x1xf32>
}"""
    a = np.array([[1e4, -1e4, 1.0]], np.float32)
    b = np.ones((3, 1), np.float32)
    ins = instrument(parse_module(text))
    # 1e4 - 1e4 + 1 = 1 exactly; 1.004 is within 1e-5 of the terms' 20001 in magnitude
    got = np.array([[1.004]], np.float32)
    path = tmp_path / "v.npz"
    save_values(path, ins, {"op0.r0": got, "op1.r0": -got})
    report = hlorun.diff(text, [a, b], against=str(path))
    dot, neg = report.rows
    assert dot.scaled and not dot.errors.over
    # the negate is elementwise: against |exp| = 1 the dot's tolerated error is over,
    # but the negate of the other side's own operand is exact: the error passed on
    assert neg.errors.over and neg.passed_on and not neg.over
    assert not report.diverged
    # a negate that adds an error of its own is over
    save_values(path, ins, {"op0.r0": got, "op1.r0": -got * np.float32(1.01)})
    report = hlorun.diff(text, [a, b], against=str(path))
    assert report.first_divergence["op"] == "stablehlo.negate"
    assert [o["over"] for o in report.first_divergence["operands"]] == [False]


def test_scalar_values_keep_their_shape(tmp_path):
    from hlorun.engine.diff_engines import HlorunEngine, save_values

    text = """func.func @main(%x: tensor<3xf32>) -> tensor<f32> {
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %0 = stablehlo.reduce(%x init: %z) applies stablehlo.add across dimensions = [0] : (tensor<3xf32>, tensor<f32>) -> tensor<f32>
  %1 = stablehlo.sqrt %0 : tensor<f32>
  return %1 : tensor<f32>
}"""
    x = [np.array([1.0, 2.0, 6.0], np.float32)]
    ins = instrument(parse_module(text))
    save_values(tmp_path / "v.npz", ins, HlorunEngine().values(ins, x))
    values = NpzValues(tmp_path / "v.npz").values(ins, x)
    assert values["op2.r0"].shape == () and values["op2.r0"] == np.float32(3.0)
    assert not hlorun.diff(text, x, against=str(tmp_path / "v.npz")).diverged
