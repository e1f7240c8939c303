"""A generator of VALID StableHLO programs, one op each, for hypothesis.

Each recipe draws an op's operand types, attributes and regions so that they satisfy
the op's constraints in the spec (docs/spec.md, "Constraints"), and computes the result
type from the spec's formulas (never from our shape functions: the verifier is what
the programs test).  Attribute names and kinds follow parser/opdecl.py; element types
cover every type the op admits (i1, i2/i4 and unsigned, every f4/f6/f8 format, bf16,
f16, tf32, f32, f64, complex<f32>/complex<f64>).

API (for tests/property/test_valid_programs.py and the reliability / folding work):

- ``OPS``: the op names there is a recipe for.
- ``cases(ops=None)``: hypothesis strategy of ``OpCase`` (one op: operands, attributes,
  regions, result types); ``ops`` restricts the op names (default: all of ``OPS``).
- ``programs(ops=None)``: strategy of ``GenProgram`` whose ``.text`` is a module with the
  op's operands as parameters of ``@main`` (operands whose value the op's constraints
  fix, like ``dynamic_reshape``'s ``output_shape``, are constants inside it);
  ``program.random_inputs(rng)`` (or ``random_inputs(program, rng)``) draws arrays for
  the parameters; ``program.result_types`` are the declared result types (IR types).
- ``constant_programs(ops=None)``: strategy of ``GenProgram`` in the form of JAX's
  conformance programs: ``@main()`` takes nothing, every operand is a
  ``stablehlo.constant`` (values drawn with a seed), the op's results are returned.
  ``program.checked_text(expected, check="check.expect_eq")`` returns the same program
  checking its results against ``expected`` arrays with ``stablehlo.custom_call
  @check.expect_eq / expect_almost_eq / expect_close`` (no results) or ``@check.eq``
  (``-> tensor<i1>``, returned).
- ``dense_text(array, et)`` / ``tensor_type_text(shape, et)``: MLIR text of a value / type.

- Quantized recipes register as ``<op>+quant`` (``OPS`` lists them; ``case.op`` is the
  op itself): uniform_quantize / uniform_dequantize (per-tensor and per-axis), the
  element-wise ops, data movement and dot_general on ``!quant.uniform`` types.
- ``with_dynamic_dims(case, dims)``: an element-wise case with ``?`` dimensions
  (``programs()`` draws a quarter of the element-wise cases that way).

The recipes live in progen_movement.py (element-wise, conversions, data movement),
progen_collective.py (collectives on one process), progen_misc.py (more CHLO, rng,
process ids, dynamic_gather),
progen_structured.py (reductions, linear algebra, dynamic-shape ops, control flow,
random numbers, CHLO) and progen_quant.py; their shared types and drawing helpers in
progen_core.py.  Op cases whose kernels legitimately refuse (UnsupportedError) are not
generated: the tests demand a result of the declared type (rng_bit_generator into
2-/4-bit integers is such a refusal; gather with a 0-sized collapsed slice, which the
spec's clamp can start past the end, is left out).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np
from hypothesis import strategies as st

from hlorun.parser import parse_module
from hlorun.parser.ir import Type
from hlorun.shape_inference.optable import OP_TABLE  # (rows filled by hlorun's import)

from . import (  # noqa: F401  (the recipes)
    progen_collective,
    progen_misc,
    progen_movement,
    progen_quant,
    progen_structured,
)
from .progen_core import (
    I32,
    RECIPES,
    TT,
    Arg,
    OpCase,
    dense_text,
    random_array,
    result_refs,
    tensor_type_text,
)

__all__ = [
    "I32",
    "OPS",
    "TT",
    "Arg",
    "GenProgram",
    "OpCase",
    "cases",
    "constant_programs",
    "constant_text",
    "dense_text",
    "program_text",
    "programs",
    "random_inputs",
    "tensor_type_text",
]

# ---------------------------------------------------------------------------------------
# Programs
# ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class GenProgram:
    """A generated module (see the module docstring)."""

    case: OpCase
    text: str
    constant: bool = False
    seed: int = 0

    @property
    def op(self) -> str:
        return self.case.op

    @property
    def params(self) -> tuple[Arg, ...]:
        if self.constant:
            return ()
        return tuple(a for a in self.case.args if a.value is None or a.param)

    @property
    def result_types(self) -> tuple[Type, ...]:
        """The declared result types, as IR types (parsed from the text)."""
        fn = parse_module(self.text).functions["main"]
        return tuple(fn.type.results)

    def random_inputs(self, rng: np.random.Generator | int | None = None) -> list[np.ndarray]:
        return random_inputs(self, rng)

    def checked_text(self, expected: Sequence[np.ndarray], check: str = "check.expect_eq") -> str:
        """This (constant) program checking its results against ``expected``."""
        assert self.constant, "checked_text needs a constant_programs() program"
        case = self.case
        body = _constant_body(case, self.seed)
        refs = result_refs(case)
        lines = [*body]
        flags = []
        for k, (ref, want, tt) in enumerate(zip(refs, expected, case.results)):
            lines.append(f"  %e{k} = stablehlo.constant {tt.constant_text(want)}")
            if check == "check.eq":
                lines.append(
                    f"  %ok{k} = stablehlo.custom_call @check.eq({ref}, %e{k}) : "
                    f"({tt.text}, {tt.text}) -> tensor<i1>"
                )
                flags.append(f"%ok{k}")
            else:
                lines.append(
                    f"  stablehlo.custom_call @{check}({ref}, %e{k}) {{has_side_effect = true}}"
                    f" : ({tt.text}, {tt.text}) -> ()"
                )
        if check == "check.eq":
            out = flags[0] if flags else None
            for k, f in enumerate(flags[1:]):
                lines.append(f"  %all{k} = stablehlo.and {out}, {f} : tensor<i1>")
                out = f"%all{k}"
            head = "func.func @main() -> tensor<i1> {"
            lines.append(f"  func.return {out} : tensor<i1>" if out else "  func.return")
        else:
            head = "func.func @main() {"
            lines.append("  func.return")
        return "\n".join([head, *lines, "}"]) + "\n"


def random_inputs(
    program: GenProgram, rng: np.random.Generator | int | None = None
) -> list[np.ndarray]:
    """Arrays for ``program``'s parameters (operands the op's constraints leave free)."""
    if not isinstance(rng, np.random.Generator):
        rng = np.random.default_rng(rng)
    return [
        np.array(a.value) if a.value is not None else random_array(rng, a.type, a.values)
        for a in program.params
    ]


def _returns(case: OpCase) -> str:
    refs = result_refs(case)
    types = ", ".join(r.text for r in case.results)
    return f"  func.return {', '.join(refs)} : {types}"


def _result_sig(case: OpCase) -> str:
    outs = ", ".join(r.text for r in case.results)
    return f"({outs})" if len(case.results) != 1 else outs


def program_text(case: OpCase) -> str:
    """The parameter form (module docstring)."""
    params, names, lines = [], [], []
    for k, a in enumerate(case.args):
        if a.value is None or a.param:
            params.append(f"%arg{len(params)}: {a.type.text}")
            names.append(f"%arg{len(params) - 1}")
        else:
            lines.append(f"  %c{k} = stablehlo.constant {a.type.constant_text(a.value)}")
            names.append(f"%c{k}")
    lines.append("  " + case.op_text(names, "%r"))
    lines.append(_returns(case))
    head = f"func.func @main({', '.join(params)}) -> {_result_sig(case)} {{"
    return "\n".join([head, *lines, "}"]) + "\n"


def _constant_body(case: OpCase, seed: int) -> list[str]:
    rng = np.random.default_rng(seed)
    lines, names = [], []
    for k, a in enumerate(case.args):
        v = a.value if a.value is not None else random_array(rng, a.type, a.values)
        lines.append(f"  %c{k} = stablehlo.constant {a.type.constant_text(v)}")
        names.append(f"%c{k}")
    lines.append("  " + case.op_text(names, "%r"))
    return lines


def constant_text(case: OpCase, seed: int) -> str:
    """The constant form (module docstring), returning the op's results."""
    lines = _constant_body(case, seed)
    lines.append(_returns(case))
    head = f"func.func @main() -> {_result_sig(case)} {{"
    return "\n".join([head, *lines, "}"]) + "\n"


# ---------------------------------------------------------------------------------------
# Strategies
# ---------------------------------------------------------------------------------------

OPS: tuple[str, ...] = tuple(sorted(RECIPES))


def cases(ops: Sequence[str] | None = None):
    """Strategy of ``OpCase`` for ``ops`` (default: every op of ``OPS``)."""
    names = list(ops) if ops is not None else list(OPS)
    unknown = [n for n in names if n not in RECIPES]
    if unknown:
        raise ValueError(f"no recipe for {unknown}")

    @st.composite
    def one(draw):
        op = draw(st.sampled_from(names))
        return RECIPES[op](draw, op)

    return one()


def _elementwise(op: str) -> bool:
    row = OP_TABLE.get(op)
    return row is not None and "elementwise" in row.traits


def with_dynamic_dims(case: OpCase, dims: Sequence[int]) -> OpCase:
    """An element-wise op case whose parameters and results of the result's shape
    declare ``dims`` as ``?`` (bounded by nothing: the run gives the sizes)."""
    shape = case.results[0].shape
    args = tuple(
        replace(a, type=a.type.with_dynamic(dims))
        if a.value is None and a.type.shape == shape
        else a
        for a in case.args
    )
    results = tuple(r.with_dynamic(dims) if r.shape == shape else r for r in case.results)
    return replace(case, args=args, results=results)


@st.composite
def _parameter_cases(draw, ops):
    case = draw(cases(ops))
    rank = len(case.results[0].shape) if case.results else 0
    if rank and _elementwise(case.op) and draw(st.integers(0, 3)) == 0:
        dims = sorted(draw(st.sets(st.integers(0, rank - 1), min_size=1)))
        case = with_dynamic_dims(case, dims)
    return case


def programs(ops: Sequence[str] | None = None):
    """Strategy of parameter-form ``GenProgram`` (module docstring); a quarter of the
    element-wise ones declare some dimensions ``?`` (``with_dynamic_dims``)."""
    return _parameter_cases(ops).map(lambda c: GenProgram(c, program_text(c)))


def constant_programs(ops: Sequence[str] | None = None):
    """Strategy of constant-form ``GenProgram`` (module docstring)."""
    return st.tuples(cases(ops), st.integers(0, 2**32 - 1)).map(
        lambda cs: GenProgram(cs[0], constant_text(cs[0], cs[1]), constant=True, seed=cs[1])
    )
