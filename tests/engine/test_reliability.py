"""Issue 21 regressions: hostile input never costs memory, never crashes past the
verifier, and resource limits stop every loop.

Expected behaviour comes from the issue's statements of the bugs and from the spec
(result counts of ops, attribute kinds), never from our own output.
"""

from __future__ import annotations

import resource
import signal
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from hlorun import engine
from hlorun.engine.interrupt import running_op
from hlorun.engine.memory import (
    DEFAULT_CAP,
    MemoryBudget,
    available_memory,
    budget_of,
)
from hlorun.parser import parse_module, print_module
from hlorun.parser.errors import HloError, InterpreterError, VerificationError
from hlorun.shape_inference import verify_module

HUGE_SPLAT = """
func.func @main() -> tensor<1000000000xi64> {
  %0 = stablehlo.constant dense<7> : tensor<1000000000xi64>
  func.return %0 : tensor<1000000000xi64>
}
"""


def _peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


# ------------------------------------------------------------------------ memory budget
def test_huge_splat_parses_without_materializing():
    """`dense<0> : tensor<1000000000xi64>` once materialized 8 GB at parse time."""
    before = _peak_mb()
    module = parse_module(HUGE_SPLAT)
    attr = module.functions["main"].body.blocks[0].operations[0].attr("value")
    arr = attr.array
    assert arr.shape == (1_000_000_000,)
    assert arr[0] == 7 and arr[-1] == 7
    assert not arr.flags.writeable  # a kernel writing into it fails loudly
    assert attr.is_splat
    assert _peak_mb() - before < 100  # one element, not 8 GB
    # printing, equality and hashing see one element too
    text = print_module(module)
    assert "dense<7> : tensor<1000000000xi64>" in text
    again = parse_module(text)
    assert again == module and print_module(again) == text
    assert _peak_mb() - before < 100


def test_huge_splats_of_every_form_print_and_serialize_lazily():
    """Hex blobs of one element, i1 and complex splats: printing, comparing and writing
    a portable artifact all see one element."""
    from hlorun.parser.vhlo.artifact import (
        deserialize_portable_artifact,
        serialize_portable_artifact,
    )

    text = (
        "func.func @main() -> tensor<1000000000xi64> {\n"
        "  %0 = stablehlo.constant dense<7> : tensor<1000000000xi64>\n"
        '  %1 = stablehlo.constant dense<"0x0800000000000000"> : tensor<1000000000xi64>\n'
        "  %2 = stablehlo.constant dense<true> : tensor<1000000000xi1>\n"
        "  %3 = stablehlo.constant dense<(1.0, 2.0)> : tensor<1000000000xcomplex<f32>>\n"
        "  func.return %0 : tensor<1000000000xi64>\n}\n"
    )
    before = _peak_mb()
    module = parse_module(text)
    printed = print_module(module)
    assert 'dense<"0x0800000000000000"> : tensor<1000000000xi64>' in printed
    assert parse_module(printed) == module
    data = serialize_portable_artifact(module, "1.9.0")
    assert len(data) < 10_000
    back = deserialize_portable_artifact(data)
    ops = back.functions["main"].body.blocks[0].operations
    assert ops[1].attr("value").array[-1] == 8 and ops[2].attr("value").array[-1]
    assert _peak_mb() - before < 100


def test_splat_equals_the_same_values_materialized():
    """A lazy splat and a full array of the same bits are the same attribute."""
    small = "func.func @main() -> tensor<4xi32> {\n  %0 = stablehlo.constant dense<VALUE> : tensor<4xi32>\n  func.return %0 : tensor<4xi32>\n}\n"
    a = parse_module(small.replace("VALUE", "3"))
    b = parse_module(small.replace("VALUE", "[3, 3, 3, 3]"))
    c = parse_module(small.replace("VALUE", "[3, 3, 3, 4]"))
    attr = lambda m: m.functions["main"].body.blocks[0].operations[0].attr("value")  # noqa: E731
    assert attr(a) == attr(b) and hash(attr(a)) == hash(attr(b))
    assert attr(a) != attr(c)


def test_huge_splat_run_is_refused_by_the_cap_naming_op_bytes_and_cap():
    with pytest.raises(InterpreterError) as e:
        engine.run(HUGE_SPLAT, [], memory_cap=1 << 30)
    msg = str(e.value)
    # the splat costs one element until the caller's copy of the result is made
    assert "'func.return' op" in msg and "<string>:4:" in msg
    assert "8000000000 bytes" in msg and str(1 << 30) in msg


def test_small_uses_of_a_huge_splat_run():
    """A splat feeding a slice: the program asks for 16 bytes, the splat costs one
    element."""
    prog = """
    func.func @main() -> tensor<2xi64> {
      %0 = stablehlo.constant dense<5> : tensor<1000000000xi64>
      %1 = stablehlo.slice %0 [10:12] : (tensor<1000000000xi64>) -> tensor<2xi64>
      func.return %1 : tensor<2xi64>
    }"""
    before = _peak_mb()
    (r,) = engine.run(prog, [], memory_cap=1 << 20)
    assert r.tolist() == [5, 5] and r.flags.writeable  # the caller's own array
    assert _peak_mb() - before < 100


@pytest.mark.parametrize(
    "body, args",
    [
        # dynamic_iota: the shape comes from an operand's values
        (
            """%0 = stablehlo.dynamic_iota %s, dim = 0 : (tensor<1xi64>) -> tensor<?xf32>
      func.return %0 : tensor<?xf32>""",
            "tensor<1xi64>",
        ),
        # rng with a huge shape operand
        (
            """%a = stablehlo.constant dense<0.0> : tensor<f32>
      %b = stablehlo.constant dense<1.0> : tensor<f32>
      %0 = stablehlo.rng %a, %b, %s, distribution = UNIFORM : (tensor<f32>, tensor<f32>, tensor<1xi64>) -> tensor<?xf32>
      func.return %0 : tensor<?xf32>""",
            "tensor<1xi64>",
        ),
        # dynamic_broadcast_in_dim to a huge runtime shape
        (
            """%z = stablehlo.constant dense<0.0> : tensor<f32>
      %0 = stablehlo.dynamic_broadcast_in_dim %z, %s, dims = [] : (tensor<f32>, tensor<1xi64>) -> tensor<?xf32>
      func.return %0 : tensor<?xf32>""",
            "tensor<1xi64>",
        ),
    ],
    ids=["dynamic_iota", "rng", "dynamic_broadcast_in_dim"],
)
def test_dynamic_shapes_are_checked_before_allocating(body, args):
    prog = f"""
    func.func @main(%s: {args}) -> tensor<?xf32> {{
      {body}
    }}"""
    before = _peak_mb()
    with pytest.raises(InterpreterError, match="per-tensor memory cap of 1048576 bytes") as e:
        engine.run(prog, [np.array([10**12], np.int64)], memory_cap=1 << 20)
    assert "4000000000000 bytes" in str(e.value) and "<string>:" in str(e.value)
    assert _peak_mb() - before < 100


def test_pad_intermediate_is_checked():
    """Negative high padding crops an interior-padded intermediate that would be huge."""
    prog = """
    func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {
      %z = stablehlo.constant dense<0.0> : tensor<f32>
      %0 = stablehlo.pad %a, %z, low = [0], high = [-1000000000000], interior = [1000000000000]
        : (tensor<2xf32>, tensor<f32>) -> tensor<2xf32>
      func.return %0 : tensor<2xf32>
    }"""
    with pytest.raises(InterpreterError, match="4000000000008 bytes, more than the per-tensor"):
        engine.run(prog, [np.ones(2, np.float32)], memory_cap=1 << 20)


def test_live_total_cap():
    """Two live 1 MB tensors pass a 1.5 MB per-tensor cap but not a 1.5 MB live cap."""
    prog = """
    func.func @main(%a: tensor<262144xf32>) -> tensor<262144xf32> {
      %0 = stablehlo.add %a, %a : tensor<262144xf32>
      %1 = stablehlo.multiply %0, %a : tensor<262144xf32>
      func.return %1 : tensor<262144xf32>
    }"""
    x = np.ones(262144, np.float32)
    (r,) = engine.run(prog, [x], memory_cap=MemoryBudget(3 << 19, 4 << 20))
    assert r[0] == 2.0
    with pytest.raises(InterpreterError, match="live memory cap of 1572864 bytes") as e:
        engine.run(prog, [x], memory_cap=MemoryBudget(3 << 19, 3 << 19))
    assert "'stablehlo.add' op" in str(e.value) and "bytes at this op" in str(e.value)


def test_default_budget_is_half_the_available_memory():
    avail = available_memory()
    assert DEFAULT_CAP == max(avail // 2, 1 << 26)
    assert budget_of(None) == MemoryBudget(DEFAULT_CAP, DEFAULT_CAP)
    assert budget_of(1 << 20) == MemoryBudget(1 << 20, DEFAULT_CAP)
    with pytest.raises(InterpreterError, match="memory_cap"):
        budget_of(-1)


# --------------------------------------------------------- verify passes => runs or HloError
def test_reshape_without_result_fails_verification():
    """Passed verify and failed with AttributeError in engine/kernels/movement.py."""
    prog = """
    func.func @main(%a: tensor<2xf32>) {
      "stablehlo.reshape"(%a) : (tensor<2xf32>) -> ()
      func.return
    }"""
    with pytest.raises(VerificationError, match="expected 1 result, but found 0") as e:
        verify_module(parse_module(prog))
    assert e.value.label == "result_count"


def test_a_check_op_with_a_result_fails_verification():
    prog = """
    func.func @main(%a: tensor<2xf32>) {
      %0 = "check.expect_eq"(%a, %a) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
      func.return
    }"""
    with pytest.raises(VerificationError, match="expected 0 results, but found 1"):
        verify_module(parse_module(prog))


@pytest.mark.parametrize("handle", ["#foo.bar<1>", '"x"', "1 : i64", "[1, 2]"])
def test_collective_with_a_foreign_channel_handle_fails_verification(handle):
    """An opaque / unregistered attribute where a channel handle belongs: once an
    AttributeError in engine/kernels/collective.py (attribute_kind)."""
    prog = f"""
    func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {{
      %0 = "stablehlo.collective_permute"(%a) {{source_target_pairs = dense<[[0, 0]]> : tensor<1x2xi64>, channel_handle = {handle}}} : (tensor<2xf32>) -> tensor<2xf32>
      func.return %0 : tensor<2xf32>
    }}"""
    with pytest.raises(VerificationError, match="'channel_handle' must be") as e:
        verify_module(parse_module(prog))
    assert e.value.label == "attribute_kind"
    with pytest.raises(HloError):  # and unverified, the run says so too
        engine.run(prog, [np.ones(2, np.float32)], verify=False)


def test_a_huge_splat_of_index_data_is_refused_not_materialized():
    """`replica_groups = dense<0> : tensor<1000000000000x1xi64>` once reached a Python
    loop over every id (MemoryError)."""
    prog = """
    func.func @main(%a: tensor<10xf32>) -> tensor<10xf32> {
      %0 = "stablehlo.all_reduce"(%a) ({
      ^bb0(%x: tensor<f32>, %y: tensor<f32>):
        %m = stablehlo.maximum %x, %y : tensor<f32>
        stablehlo.return %m : tensor<f32>
      }) {replica_groups = dense<0> : tensor<1000000000000x1xi64>} : (tensor<10xf32>) -> tensor<10xf32>
      func.return %0 : tensor<10xf32>
    }"""
    before = _peak_mb()
    with pytest.raises(HloError, match="holds 1000000000000 elements") as e:
        verify_module(parse_module(prog))
    assert "'stablehlo.all_reduce' op" in str(e.value)
    assert _peak_mb() - before < 100


def test_an_enum_of_the_wrong_kind_fails_verification():
    prog = """
    func.func @main(%a: tensor<2xf32>) -> tensor<2xi1> {
      %0 = "stablehlo.compare"(%a, %a) {comparison_direction = #stablehlo<transpose NO_TRANSPOSE>} : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xi1>
      func.return %0 : tensor<2xi1>
    }"""
    with pytest.raises(VerificationError, match="comparison_direction"):
        verify_module(parse_module(prog))


def test_rng_with_a_huge_shape_operand_fails_verification_quickly():
    """The shape function once built a rank-1e9 type (8 GB of None) from the operand."""
    prog = """
    func.func @main(%a: tensor<f32>, %b: tensor<f32>, %s: tensor<1000000000xi64>) -> tensor<?x?xf32> {
      %0 = "stablehlo.rng"(%a, %b, %s) {rng_distribution = #stablehlo<rng_distribution UNIFORM>} : (tensor<f32>, tensor<f32>, tensor<1000000000xi64>) -> tensor<?x?xf32>
      func.return %0 : tensor<?x?xf32>
    }"""
    with pytest.raises(VerificationError, match="rank 1000000000"):
        verify_module(parse_module(prog))


def test_stray_exception_in_a_kernel_becomes_an_interpreter_error(monkeypatch):
    """The safety net: a kernel bug is an InterpreterError naming the op and location
    (chained to the original exception), never a bare AttributeError."""
    from hlorun.shape_inference.optable import OP_TABLE

    row = OP_TABLE["stablehlo.negate"]

    def broken(*args, **kwargs):
        raise AttributeError("a kernel bug")

    monkeypatch.setattr(row, "kernel", broken)
    monkeypatch.setattr(row, "fast_plan", None)
    monkeypatch.setattr(row, "ufunc", None)
    prog = """
    func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {
      %0 = stablehlo.negate %a : tensor<2xf32>
      func.return %0 : tensor<2xf32>
    }"""
    engine.clear_cache()
    try:
        with pytest.raises(InterpreterError, match="internal error: AttributeError") as e:
            engine.compile(prog)(np.ones(2, np.float32))
    finally:
        engine.clear_cache()
    assert "'stablehlo.negate' op" in str(e.value) and "<string>:3:" in str(e.value)
    assert isinstance(e.value.__cause__, AttributeError)


# --------------------------------------------------------------------- resource limits
INFINITE_WHILE = """
func.func @main() -> tensor<i64> {
  %c0 = stablehlo.constant dense<0> : tensor<i64>
  %c1 = stablehlo.constant dense<1> : tensor<i64>
  %r = stablehlo.while(%i = %c0) : tensor<i64>
  cond {
    %t = stablehlo.compare GE, %i, %c0 : (tensor<i64>, tensor<i64>) -> tensor<i1>
    stablehlo.return %t : tensor<i1>
  } do {
    %n = stablehlo.add %i, %c1 : tensor<i64>
    stablehlo.return %n : tensor<i64>
  }
  func.return %r : tensor<i64>
}
"""

RECURSION = """
func.func @main() -> tensor<i64> {
  %c0 = stablehlo.constant dense<0> : tensor<i64>
  %r = func.call @f(%c0) : (tensor<i64>) -> tensor<i64>
  func.return %r : tensor<i64>
}
func.func @f(%x: tensor<i64>) -> tensor<i64> {
  %c1 = stablehlo.constant dense<1> : tensor<i64>
  %n = stablehlo.add %x, %c1 : tensor<i64>
  %r = func.call @f(%n) : (tensor<i64>) -> tensor<i64>
  func.return %r : tensor<i64>
}
"""

# a loop nested in a function called from a loop
NESTED_CALL_LOOP = """
func.func @main() -> tensor<i64> {
  %c0 = stablehlo.constant dense<0> : tensor<i64>
  %r = stablehlo.while(%i = %c0) : tensor<i64>
  cond {
    %t = stablehlo.compare GE, %i, %c0 : (tensor<i64>, tensor<i64>) -> tensor<i1>
    stablehlo.return %t : tensor<i1>
  } do {
    %n = func.call @spin(%i) : (tensor<i64>) -> tensor<i64>
    stablehlo.return %n : tensor<i64>
  }
  func.return %r : tensor<i64>
}
func.func @spin(%x: tensor<i64>) -> tensor<i64> {
  %c1 = stablehlo.constant dense<1> : tensor<i64>
  %r = stablehlo.while(%i = %x) : tensor<i64>
  cond {
    %t = stablehlo.compare GE, %i, %x : (tensor<i64>, tensor<i64>) -> tensor<i1>
    stablehlo.return %t : tensor<i1>
  } do {
    %n = stablehlo.add %i, %c1 : tensor<i64>
    stablehlo.return %n : tensor<i64>
  }
  func.return %r : tensor<i64>
}
"""

REDUCE = """
func.func @main(%a: tensor<64x1024xf32>) -> tensor<1024xf32> {
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %r = stablehlo.reduce(%a init: %z) across dimensions = [0] : (tensor<64x1024xf32>, tensor<f32>) -> tensor<1024xf32>
   reducer(%x: tensor<f32>, %y: tensor<f32>) {
    %s = stablehlo.add %x, %y : tensor<f32>
    %m = stablehlo.multiply %s, %s : tensor<f32>
    %q = stablehlo.sqrt %m : tensor<f32>
    stablehlo.return %q : tensor<f32>
  }
  func.return %r : tensor<1024xf32>
}
"""


@pytest.mark.parametrize("prog", [INFINITE_WHILE, NESTED_CALL_LOOP], ids=["while", "nested"])
@pytest.mark.parametrize("limit", [{"max_steps": 5000}, {"timeout": 0.2}], ids=["steps", "time"])
def test_limits_stop_loops(prog, limit):
    with pytest.raises(InterpreterError, match="limit of .* exceeded"):
        engine.run(prog, [], **limit)


@pytest.mark.parametrize("prog, arg", [(REDUCE, (64, 1024))], ids=["reduce"])
def test_step_limit_counts_region_bodies(prog, arg):
    """Reduce bodies run their steps under the step limit: a budget below what the op
    needs stops it, inside the region."""
    x = np.random.default_rng(0).random(arg).astype(np.float32)
    (r,) = engine.run(prog, [x], max_steps=10**7)  # enough: it runs
    with pytest.raises(InterpreterError, match="step limit of 3 ops exceeded"):
        engine.run(prog, [x], max_steps=3)


def test_unbounded_recursion_stops():
    with pytest.raises(InterpreterError, match="nesting too deep|depth limit|step limit") as e:
        engine.run(RECURSION, [], max_steps=10**6)
    assert "'func.call' op" in str(e.value) or "@f" in str(e.value)


def test_running_op_is_found_from_the_traceback():
    class Boom(BaseException):
        pass

    def callback(name, pos, results):
        if name == "stablehlo.add":
            raise Boom()

    with pytest.raises(Boom) as e:
        engine.run(INFINITE_WHILE, [], callback=callback)
    where = running_op(e.value)
    assert where is not None and where[0] == "stablehlo.add"
    assert (where[1].line, where[1].col) == (10, 5)


def test_ctrl_c_stops_the_cli_with_exit_code_130_naming_the_op(tmp_path):
    """SIGINT while the interpreter loops: exit code 130, the running op named."""
    prog = tmp_path / "loop.mlir"
    prog.write_text(
        textwrap.dedent(
            """\
            func.func @main() -> tensor<i64> {
              %c0 = stablehlo.constant dense<0> : tensor<i64>
              %c1 = stablehlo.constant dense<1> : tensor<i64>
              %r = stablehlo.while(%i = %c0) : tensor<i64>
              cond {
                %t = stablehlo.compare GE, %i, %c0 : (tensor<i64>, tensor<i64>) -> tensor<i1>
                stablehlo.return %t : tensor<i1>
              } do {
                "interpreter.print"(%i) : (tensor<i64>) -> ()
                %n = stablehlo.add %i, %c1 : tensor<i64>
                stablehlo.return %n : tensor<i64>
              }
              func.return %r : tensor<i64>
            }
            """
        )
    )
    p = subprocess.Popen(
        [sys.executable, "-m", "hlorun.engine.cli", "interpret", str(prog)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        first = p.stdout.readline()  # the loop is running
        assert first.startswith("%i = ")
        p.send_signal(signal.SIGINT)
        rc = p.wait(timeout=60)
    finally:
        if p.poll() is None:
            p.kill()
    err = p.stderr.read()
    assert rc == 130, err
    assert "op interrupted (Ctrl-C)" in err
    assert any(
        f"'{op}' op" in err
        for op in ("interpreter.print", "stablehlo.add", "stablehlo.compare", "stablehlo.while")
    )
    assert f"{prog}:" in err  # with its location
