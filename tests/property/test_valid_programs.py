"""Valid programs are accepted and run to their declared types (issue 18 item 2).

tests/support/progen.py draws, for each op with a recipe, operand types, attributes and
regions that satisfy the op's constraints in the spec, and the result type from the
spec's formulas.  For every generated program:

- the verifier accepts it (``hlorun.compile``: load -> verify -> plan);
- running it on random inputs returns, for each result, an array of the shape the spec
  gives (also where the declared type spells a dimension ``?``) and of the dtype that
  holds the declared element type.

Programs cover every op with a recipe (``progen.OPS``: stablehlo and chlo ops on every
element type they admit, quantized types, ``?`` dimensions).  The default run draws
200 programs (and 40 in the constant form); the ``slow`` variant draws 10,000
(``python -m pytest tests/property/test_valid_programs.py -m slow``).
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import hlorun
from hlorun.parser.ir import numpy_dtype
from tests.support import progen

_SETTINGS = dict(
    deadline=None,
    database=None,
    suppress_health_check=list(HealthCheck),
)


def _check(program: progen.GenProgram, seed: int) -> None:
    try:
        prog = hlorun.compile(program.text)
    except hlorun.HloError as e:
        pytest.fail(f"valid program rejected: {e}\n{program.text}")
    inputs = [] if program.constant else program.random_inputs(seed)
    outs = prog(*inputs)
    outs = list(outs) if isinstance(outs, list | tuple) else [outs]
    want = program.case.results
    assert len(outs) == len(want), program.text
    declared = program.result_types
    for k, (got, tt, decl) in enumerate(zip(outs, want, declared)):
        got = np.asarray(got)
        assert got.shape == tt.shape, (
            f"result {k}: shape {got.shape}, want {tt.shape}\n{program.text}"
        )
        assert got.dtype == numpy_dtype(decl), (
            f"result {k}: dtype {got.dtype}, want {numpy_dtype(decl)} ({decl})\n{program.text}"
        )


@settings(max_examples=200, derandomize=True, **_SETTINGS)
@given(program=progen.programs(), seed=st.integers(0, 2**16))
def test_valid_programs_verify_and_run(program, seed):
    _check(program, seed)


@settings(max_examples=40, derandomize=True, **_SETTINGS)
@given(program=progen.constant_programs())
def test_constant_form_runs(program):
    _check(program, 0)


@pytest.mark.slow
@settings(max_examples=10_000, **_SETTINGS)
@given(program=progen.programs(), seed=st.integers(0, 2**16))
def test_valid_programs_slow(program, seed):
    _check(program, seed)


def test_every_recipe_op_is_in_the_op_table():
    from hlorun.shape_inference.optable import OP_TABLE

    names = {op.split("+")[0] for op in progen.OPS}
    assert names <= set(OP_TABLE), sorted(names - set(OP_TABLE))
    assert len(progen.OPS) >= 100


def test_checked_text_fails_on_a_wrong_expectation():
    """The check forms the constant programs use do decide: a right expectation passes,
    a wrong one fails the run."""
    case = progen.OpCase(
        "stablehlo.add",
        (progen.Arg(progen.TT((2,), progen.I32)), progen.Arg(progen.TT((2,), progen.I32))),
        (progen.TT((2,), progen.I32),),
    )
    p = progen.GenProgram(case, progen.constant_text(case, 7), constant=True, seed=7)
    (got,) = hlorun.run(p.text, [])
    hlorun.run(p.checked_text([got]), [])
    (ok,) = hlorun.run(p.checked_text([got], check="check.eq"), [])
    assert bool(ok)
    with pytest.raises(hlorun.HloError):
        hlorun.run(p.checked_text([got + 1]), [])


@pytest.mark.parametrize("mantissa_bits", [0, 3, 10, 23])
@pytest.mark.parametrize("exponent_bits", [2, 5, 8])
def test_reduce_precision_of_tf32_is_that_of_the_same_f32_values(exponent_bits, mantissa_bits):
    """Found by the generator (tf32 was refused): tf32 values are f32 values with 10
    significand bits, so reduce_precision gives what it gives on f32."""
    rng = np.random.default_rng(exponent_bits * 100 + mantissa_bits)
    x = (rng.standard_normal(16) * np.exp2(rng.integers(-130, 126, 16))).astype(np.float32)
    x = (x.view(np.uint32) & np.uint32(0xFFFFE000)).view(np.float32)  # tf32 values
    outs = []
    for t in ("tf32", "f32"):
        text = (
            f"func.func @main(%x: tensor<16x{t}>) -> tensor<16x{t}> {{\n"
            f'  %r = "stablehlo.reduce_precision"(%x) {{exponent_bits = {exponent_bits} : i32, '
            f"mantissa_bits = {mantissa_bits} : i32}} : (tensor<16x{t}>) -> tensor<16x{t}>\n"
            f"  func.return %r : tensor<16x{t}>\n}}\n"
        )
        (r,) = hlorun.run(text, [x])
        outs.append(np.asarray(r).view(np.uint32))
    assert np.array_equal(outs[0], outs[1])
