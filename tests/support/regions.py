"""Regions built by hand for tests of what a region computes (engine.region_analysis)
and of the kernels that read it: ``region(args, ops, ret)``, compare attributes, and the
JAX spelling of a complex comparator (real part first, then imaginary part)."""

from __future__ import annotations

from hlorun.parser.ir import (
    Block,
    ComplexType,
    EnumAttr,
    FloatType,
    IntegerType,
    Operation,
    Region,
    TensorType,
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
