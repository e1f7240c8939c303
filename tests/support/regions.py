"""Regions built by hand for tests of what a region computes (engine.region_analysis)
and of the kernels that read it: ``region(args, ops, ret)``, compare attributes, the
JAX spelling of a complex comparator (real part first, then imaginary part), and a
comparator as the interpreter plans it (``planned_comparator``: its sort keys'
transforms compiled)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import numpy as np

from hlorun.engine.interpreter import Interpreter
from hlorun.engine.values import RegionFn
from hlorun.parser.ir import (
    Block,
    BoolAttr,
    ComplexType,
    EnumAttr,
    FloatType,
    Function,
    FunctionType,
    IntegerAttr,
    IntegerType,
    Module,
    Operation,
    Region,
    TensorType,
    Type,
    Value,
)

I1 = TensorType((), IntegerType(1))
F32 = TensorType((), FloatType("f32"))
C64 = TensorType((), ComplexType(FloatType("f32")))


def region(args, ops, ret) -> Region:
    """One block with arguments ``%arg0..`` of types ``args``; ``ops`` are (name, operand
    names, result type, attributes dict), their results ``%0, %1...``; ``ret`` the
    names returned."""
    values = {f"%arg{i}": Value(f"%arg{i}", t) for i, t in enumerate(args)}
    operations = []
    for k, (name, operands, rtype, attrs) in enumerate(ops):
        res = Value(f"%{k}", rtype)
        operations.append(
            Operation(name, tuple(values[n] for n in operands), (res,), tuple(attrs.items()))
        )
        values[res.name] = res
    operations.append(Operation("stablehlo.return", tuple(values[n] for n in ret)))
    block = Block(tuple(values[f"%arg{i}"] for i in range(len(args))), tuple(operations))
    return Region((block,))


def cmp(direction, ctype=None):
    """The attributes of ``stablehlo.compare``."""
    attrs = {"comparison_direction": EnumAttr("stablehlo", "comparison_direction", direction)}
    if ctype:
        attrs["compare_type"] = EnumAttr("stablehlo", "comparison_type", ctype)
    return attrs


def complex_comparator() -> Region:
    """JAX's comparator of one complex operand: lexicographic by (real, imag), each
    TOTALORDER: ``lt(re) | (eq(re) & lt(im))``."""
    return region(
        [C64, C64],
        [
            ("stablehlo.real", ["%arg0"], F32, {}),
            ("stablehlo.real", ["%arg1"], F32, {}),
            ("stablehlo.imag", ["%arg0"], F32, {}),
            ("stablehlo.imag", ["%arg1"], F32, {}),
            ("stablehlo.compare", ["%2", "%3"], I1, cmp("LT", "TOTALORDER")),
            ("stablehlo.compare", ["%0", "%1"], I1, cmp("EQ", "TOTALORDER")),
            ("stablehlo.and", ["%5", "%4"], I1, {}),
            ("stablehlo.compare", ["%0", "%1"], I1, cmp("LT", "TOTALORDER")),
            ("stablehlo.or", ["%7", "%6"], I1, {}),
        ],
        ["%8"],
    )


@contextmanager
def planned_comparator(
    comparator: Region | Module, operands: tuple[Type, ...] = ()
) -> Iterator[RegionFn]:
    """The comparator of a sort as the interpreter plans it (``RegionFn``: its keys'
    transforms compiled), with a frame to run in: the comparator region of a
    ``stablehlo.sort`` of ``operands`` (1-d tensor types) in a function made here, or
    the first sort of a module's ``@main``."""
    if isinstance(comparator, Region):
        args = tuple(Value(f"%x{i}", t) for i, t in enumerate(operands))
        res = tuple(Value(f"%r{i}", t) for i, t in enumerate(operands))
        attrs = (("dimension", IntegerAttr(0, IntegerType(64))), ("is_stable", BoolAttr(True)))
        sort = Operation("stablehlo.sort", args, res, attrs, (comparator,))
        ret = Operation("func.return", res)
        body = Region((Block(args, (sort, ret)),))
        module = Module((Function("main", FunctionType(operands, operands), body),))
    else:
        module = comparator
    plan = Interpreter(module).plan("main")
    assert plan.block is not None
    step = next(st for st in plan.block.steps if st.op.name == "stablehlo.sort")
    plan.frames.append(plan.template.copy())
    try:
        with np.errstate(all="ignore"):
            yield step.kwargs["comparator"]
    finally:
        plan.frames.pop()
