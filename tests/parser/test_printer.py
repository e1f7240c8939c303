"""parser.printer on hand-built IR.

Expected texts are what stablehlo-opt prints: the CHECK lines of StableHLO's
tests/verifier/print_stablehlo.mlir, the assembly formats of StablehloOps.td, and real
stablehlo-opt output (the double spaces before enum keywords: `stablehlo.compare  LT,
%a, %b,  SIGNED`, as in tests/interpret/sort.mlir).  Each IR is built the way the parser
builds it from that text: attributes sorted by name, the attributes the custom syntax
spells recorded as properties; ``printed()`` checks that the parser does read each op back
as the same IR.
"""

from __future__ import annotations

import numpy as np
import pytest

from hlorun.parser.errors import UnsupportedError
from hlorun.parser.grammar import parse_module
from hlorun.parser.ir import (
    ArrayAttr,
    Attribute,
    Block,
    BoolAttr,
    ChannelHandle,
    ComplexType,
    ConvDimensionNumbers,
    DenseArrayAttr,
    DenseElementsAttr,
    DialectAttr,
    DictionaryAttr,
    DotAlgorithm,
    DotDimensionNumbers,
    EnumAttr,
    FloatAttr,
    FloatType,
    Function,
    FunctionType,
    GatherDimensionNumbers,
    IndexType,
    IntegerAttr,
    IntegerType,
    LocationAttr,
    Module,
    OpaqueAttr,
    OpaqueType,
    Operation,
    OutputOperandAlias,
    QuantizedType,
    Region,
    ResultAccuracy,
    ScatterDimensionNumbers,
    StringAttr,
    SymbolRefAttr,
    TensorType,
    TokenType,
    TupleType,
    TypeAttr,
    TypeExtensions,
    UnitAttr,
    Value,
)
from hlorun.parser.printer import print_attribute, print_module, print_operation, print_type

F32, F64, BF16, F16 = FloatType("f32"), FloatType("f64"), FloatType("bf16"), FloatType("f16")
I1, I8, I32, I64 = IntegerType(1), IntegerType(8), IntegerType(32), IntegerType(64)
UI32 = IntegerType(32, "unsigned")


def T(*shape, et=F32, enc: Attribute | None = None) -> TensorType:
    return TensorType(tuple(shape), et, enc)


def V(name: str, t) -> Value:
    return Value(name, t)


def op(name, operands=(), results=(), attrs=(), props=(), regions=(), location=None):
    return Operation(
        name,
        tuple(operands),
        tuple(results),
        tuple(sorted(attrs)),
        tuple(regions),
        (),
        frozenset(props),
        location,
    )


def i64s(*xs) -> DenseArrayAttr:
    return DenseArrayAttr(I64, tuple(xs))


def enum(kind: str, value: str) -> EnumAttr:
    return EnumAttr("stablehlo", kind, value, True)


def dense(t: TensorType, values, hex_: bool = False) -> DenseElementsAttr:
    from hlorun.parser.ir import numpy_dtype

    arr = np.array(values, dtype=numpy_dtype(t)).reshape(t.shape)
    arr.setflags(write=False)
    return DenseElementsAttr(t, arr, hex_)


def region(args, ops) -> Region:
    return Region((Block(tuple(args), tuple(ops)),))


def printed(o: Operation, depth: int = 0) -> str:
    """``print_operation(o)``, after checking that the parser reads the op back as ``o``."""
    fn = Function("f", FunctionType((), ()), region([], [o, op("func.return")]))
    m = Module((fn,), implicit=True)
    text = print_module(m)
    assert parse_module(text) == m, text
    return print_operation(o, depth)


# ---- values of the print_stablehlo.mlir functions ---------------------------------------

A2I32, A2F32, A2I1 = V("%arg0", T(2, et=I32)), V("%arg1", T(2)), V("%arg0", T(2, et=I1))
A2I32_2 = V("%arg2", T(2, et=I32))
A3I64 = V("%arg0", T(3, et=I64))


def r(name: str, t) -> tuple[Value]:
    return (V(name, t),)


# ---- elementwise -------------------------------------------------------------------------

UNARY_SAME = [
    "abs",
    "ceil",
    "cosine",
    "exponential",
    "exponential_minus_one",
    "floor",
    "log",
    "log_plus_one",
    "logistic",
    "negate",
    "round_nearest_afz",
    "round_nearest_even",
    "sign",
    "sine",
    "sqrt",
    "tan",
    "tanh",
]


@pytest.mark.parametrize("name", UNARY_SAME)
def test_unary_same_type(name):
    o = op(f"stablehlo.{name}", [A2F32], r("%1", T(2)))
    assert printed(o) == f"%1 = stablehlo.{name} %arg1 : tensor<2xf32>"


def test_unary_functional_types():
    convert = op("stablehlo.convert", [A2I32], r("%3", T(2)))
    assert printed(convert) == "%3 = stablehlo.convert %arg0 : (tensor<2xi32>) -> tensor<2xf32>"
    is_finite = op("stablehlo.is_finite", [A2F32], r("%9", T(2, et=I1)))
    assert printed(is_finite) == "%9 = stablehlo.is_finite %arg1 : (tensor<2xf32>) -> tensor<2xi1>"
    # is_finite always writes a functional type, even when the types agree
    same = op("stablehlo.is_finite", [V("%p", T(2, et=I1))], r("%9", T(2, et=I1)))
    assert printed(same) == "%9 = stablehlo.is_finite %p : (tensor<2xi1>) -> tensor<2xi1>"
    x = V("%arg0", T(2))
    assert printed(op("stablehlo.reshape", [x], r("%1", T(1, 2)))) == (
        "%1 = stablehlo.reshape %arg0 : (tensor<2xf32>) -> tensor<1x2xf32>"
    )
    assert printed(op("stablehlo.bitcast_convert", [x], r("%2", T(2, et=I32)))) == (
        "%2 = stablehlo.bitcast_convert %arg0 : (tensor<2xf32>) -> tensor<2xi32>"
    )


BINARY = [
    "add",
    "and",
    "atan2",
    "divide",
    "maximum",
    "minimum",
    "multiply",
    "or",
    "power",
    "remainder",
    "shift_left",
    "shift_right_arithmetic",
    "shift_right_logical",
    "subtract",
    "xor",
]


@pytest.mark.parametrize("name", BINARY)
def test_binary_same_type(name):
    o = op(f"stablehlo.{name}", [A2I1, A2I1], r("%0", T(2, et=I1)))
    assert printed(o) == f"%0 = stablehlo.{name} %arg0, %arg0 : tensor<2xi1>"


def test_binary_with_encodings_prints_functional_type():
    # print_stablehlo.mlir @encodings; the alias #CSR is resolved in the IR, so it prints inline
    csr = OpaqueAttr("#sparse_tensor.encoding<{ map = (d0, d1) -> (d0 : dense, d1 : compressed) }>")
    dcsr = OpaqueAttr(
        "#sparse_tensor.encoding<{ map = (d0, d1) -> (d0 : compressed, d1 : compressed) }>"
    )
    a0, a1 = V("%arg0", T(10, 20, enc=csr)), V("%arg1", T(10, 20, enc=dcsr))
    add = op("stablehlo.add", [a0, a1], r("%0", T(10, 20)))
    assert printed(add) == (
        "%0 = stablehlo.add %arg0, %arg1 : (tensor<10x20xf32, "
        + csr.text
        + ">, tensor<10x20xf32, "
        + dcsr.text
        + ">) -> tensor<10x20xf32>"
    )
    add1 = op("stablehlo.add", [a1, a1], r("%1", T(10, 20, enc=dcsr)))
    assert printed(add1) == "%1 = stablehlo.add %arg1, %arg1 : tensor<10x20xf32, " + dcsr.text + ">"
    cplx = op("stablehlo.complex", [a0, a0], r("%4", T(10, 20, et=ComplexType(F32))))
    assert printed(cplx) == (
        "%4 = stablehlo.complex %arg0, %arg0 : (tensor<10x20xf32, "
        + csr.text
        + ">, tensor<10x20xf32, "
        + csr.text
        + ">) -> tensor<10x20xcomplex<f32>>"
    )


def test_complex_single_type():
    # StablehloOps.td example: %result = stablehlo.complex %lhs, %rhs : tensor<2xcomplex<f32>>
    o = op(
        "stablehlo.complex",
        [V("%lhs", T(2)), V("%rhs", T(2))],
        r("%result", T(2, et=ComplexType(F32))),
    )
    assert printed(o) == "%result = stablehlo.complex %lhs, %rhs : tensor<2xcomplex<f32>>"


def test_select_and_clamp():
    p, a, b = (
        V("%arg0", T(2, 3, et=I1)),
        V("%arg1", T(2, 3, et=I32)),
        V("%arg2", T(2, None, et=I32)),
    )
    c = V("%arg3", T(None, 2, et=I32))
    s0 = op("stablehlo.select", [p, a, a], r("%0", T(2, 3, et=I32)))
    assert (
        printed(s0) == "%0 = stablehlo.select %arg0, %arg1, %arg1 : tensor<2x3xi1>, tensor<2x3xi32>"
    )
    s1 = op("stablehlo.select", [p, b, c], r("%1", T(2, None, et=I32)))
    assert printed(s1) == (
        "%1 = stablehlo.select %arg0, %arg2, %arg3 : (tensor<2x3xi1>, tensor<2x?xi32>, "
        "tensor<?x2xi32>) -> tensor<2x?xi32>"
    )
    mn, x, mx = V("%min", T(3, et=I32)), V("%operand", T(3, et=I32)), V("%max", T(3, et=I32))
    clamp = op("stablehlo.clamp", [mn, x, mx], r("%result", T(3, et=I32)))
    assert printed(clamp) == "%result = stablehlo.clamp %min, %operand, %max : tensor<3xi32>"


# ---- nullary, tuples, return ---------------------------------------------------------------


def test_nullary_ops():
    assert printed(op("stablehlo.replica_id", [], r("%0", T(et=UI32)))) == (
        "%0 = stablehlo.replica_id : tensor<ui32>"
    )
    assert printed(op("stablehlo.partition_id", [], r("%1", T(et=UI32)))) == (
        "%1 = stablehlo.partition_id : tensor<ui32>"
    )
    assert printed(op("stablehlo.create_token", [], r("%2", TokenType()))) == (
        "%2 = stablehlo.create_token : !stablehlo.token"
    )
    t0, t1 = V("%input0", TokenType()), V("%input1", TokenType())
    assert printed(op("stablehlo.after_all", [t0, t1], r("%result", TokenType()))) == (
        "%result = stablehlo.after_all %input0, %input1 : !stablehlo.token"
    )


def test_return_ops():
    assert printed(op("stablehlo.return", [A3I64, A3I64])) == (
        "stablehlo.return %arg0, %arg0 : tensor<3xi64>, tensor<3xi64>"
    )
    assert printed(op("stablehlo.return", [A3I64])) == "stablehlo.return %arg0 : tensor<3xi64>"
    assert printed(op("stablehlo.return")) == "stablehlo.return"
    assert printed(op("func.return")) == "func.return"
    assert printed(op("func.return", [A3I64])) == "func.return %arg0 : tensor<3xi64>"


def test_tuple_ops():
    a = V("%arg0", T(et=I32))
    tt2, tt1 = TupleType((T(et=I32), T(et=I32))), TupleType((T(et=I32),))
    assert printed(op("stablehlo.tuple", [a, a], r("%0", tt2))) == (
        "%0 = stablehlo.tuple %arg0, %arg0 : tuple<tensor<i32>, tensor<i32>>"
    )
    assert printed(op("stablehlo.tuple", [a], r("%1", tt1))) == (
        "%1 = stablehlo.tuple %arg0 : tuple<tensor<i32>>"
    )
    assert printed(op("stablehlo.tuple", [], r("%2", TupleType(())))) == (
        "%2 = stablehlo.tuple : tuple<>"
    )
    gte = op(
        "stablehlo.get_tuple_element",
        [V("%1", tt1)],
        r("%3", T(et=I32)),
        [("index", IntegerAttr(0, I32))],
        ["index"],
    )
    assert printed(gte) == (
        "%3 = stablehlo.get_tuple_element %1[0] : (tuple<tensor<i32>>) -> tensor<i32>"
    )


def test_optimization_barrier():
    x = V("%arg0", T(4))
    assert printed(op("stablehlo.optimization_barrier")) == "stablehlo.optimization_barrier()"
    assert printed(op("stablehlo.optimization_barrier", [x], r("%0", T(4)))) == (
        "%0 = stablehlo.optimization_barrier %arg0 : tensor<4xf32>"
    )
    two = op("stablehlo.optimization_barrier", [x, x], [V("%1#0", T(4)), V("%1#1", T(4))])
    assert printed(two) == (
        "%1:2 = stablehlo.optimization_barrier %arg0, %arg0 : tensor<4xf32>, tensor<4xf32>"
    )


# ---- constants ---------------------------------------------------------------------------


def test_constants():
    t1 = T(1, et=I64)
    c = op("stablehlo.constant", [], r("%c", t1), [("value", dense(t1, [-1]))], ["value"])
    assert printed(c) == "%c = stablehlo.constant dense<-1> : tensor<1xi64>"
    t2 = T(2, et=I64)
    c0 = op(
        "stablehlo.constant",
        [],
        r("%c_0", t2),
        [("value", dense(t2, [-2, 4])), ("attr", IntegerAttr(1, I32))],
        ["value"],
    )
    assert (
        printed(c0) == "%c_0 = stablehlo.constant {attr = 1 : i32} dense<[-2, 4]> : tensor<2xi64>"
    )
    q = QuantizedType(I8, F32, (2.0,), (15,))
    cq = op(
        "stablehlo.constant",
        [],
        r("%cst", T(2, et=q)),
        [("value", dense(T(2, et=I8), [1, 2]))],
        ["value"],
    )
    assert printed(cq) == (
        "%cst = stablehlo.constant() <{value = dense<[1, 2]> : tensor<2xi8>}> : () -> "
        "tensor<2x!quant.uniform<i8:f32, 2.000000e+00:15>>"
    )
    cq2 = op(
        "stablehlo.constant",
        [],
        r("%cst_2", T(1, et=q)),
        [("value", dense(T(1, et=I8), [4])), ("attr", IntegerAttr(1, I32))],
        ["value"],
    )
    assert printed(cq2) == (
        "%cst_2 = stablehlo.constant() <{value = dense<4> : tensor<1xi8>}> {attr = 1 : i32} : () -> "
        "tensor<1x!quant.uniform<i8:f32, 2.000000e+00:15>>"
    )
    # written with a discardable `{value = ...}` in the text: kept that way
    cq3 = op(
        "stablehlo.constant", [], r("%cst_1", T(1, et=q)), [("value", dense(T(1, et=I8), [3]))]
    )
    assert printed(cq3) == (
        "%cst_1 = stablehlo.constant() {value = dense<3> : tensor<1xi8>} : () -> "
        "tensor<1x!quant.uniform<i8:f32, 2.000000e+00:15>>"
    )


# ---- ops with attributes in their custom syntax --------------------------------------------


def test_multiple_attr_ops():
    x = V("%arg0", T(3, 4))
    rp = op(
        "stablehlo.reduce_precision",
        [x],
        r("%0", T(3, 4)),
        [("exponent_bits", IntegerAttr(8, I32)), ("mantissa_bits", IntegerAttr(10, I32))],
        ["exponent_bits", "mantissa_bits"],
    )
    assert printed(rp) == "%0 = stablehlo.reduce_precision %arg0, format = e8m10 : tensor<3x4xf32>"
    for target, text in (("foo", "@foo"), ("foo-not-id", '@"foo-not-id"')):
        cc = op(
            "stablehlo.custom_call",
            [x, x],
            r("%1", T(1, 2, 3)),
            [
                ("backend_config", StringAttr("bar")),
                ("call_target_name", StringAttr(target)),
                ("has_side_effect", BoolAttr(True)),
            ],
            ["call_target_name"],
        )
        assert printed(cc) == (
            f'%1 = stablehlo.custom_call {text}(%arg0, %arg0) {{backend_config = "bar", '
            "has_side_effect = true} : (tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<1x2x3xf32>"
        )


def test_single_attr_enums():
    a = V("%arg2", T(3, et=I64))
    prec = ArrayAttr((enum("precision", "DEFAULT"), enum("precision", "DEFAULT")))
    d0 = op(
        "stablehlo.dot",
        [a, a],
        r("%0", T(et=I64)),
        [("precision_config", prec)],
        ["precision_config"],
    )
    assert printed(d0) == (
        "%0 = stablehlo.dot %arg2, %arg2, precision = [DEFAULT, DEFAULT] : "
        "(tensor<3xi64>, tensor<3xi64>) -> tensor<i64>"
    )
    d1 = op(
        "stablehlo.dot",
        [a, a],
        r("%1", T(et=I64)),
        [("precision_config", ArrayAttr(()))],
        ["precision_config"],
    )
    assert printed(d1) == (
        "%1 = stablehlo.dot %arg2, %arg2, precision = [] : (tensor<3xi64>, tensor<3xi64>) -> tensor<i64>"
    )
    d2 = op("stablehlo.dot", [a, a], r("%2", T(et=I64)))
    assert (
        printed(d2)
        == "%2 = stablehlo.dot %arg2, %arg2 : (tensor<3xi64>, tensor<3xi64>) -> tensor<i64>"
    )
    state = V("%arg0", T(1, 2))
    rbg = op(
        "stablehlo.rng_bit_generator",
        [state],
        [V("%output_state", T(1, 2)), V("%output", T(2, 2, et=UI32))],
        [("rng_algorithm", enum("rng_algorithm", "PHILOX"))],
        ["rng_algorithm"],
    )
    assert printed(rbg) == (
        "%output_state, %output = stablehlo.rng_bit_generator %arg0, algorithm =  PHILOX : "
        "(tensor<1x2xf32>) -> (tensor<1x2xf32>, tensor<2x2xui32>)"
    )
    s, shape = V("%arg1", T()), V("%arg2", T(3, et=I64))
    rng = op(
        "stablehlo.rng",
        [s, s, shape],
        r("%3", T(2, 3, 5)),
        [("rng_distribution", enum("rng_distribution", "NORMAL"))],
        ["rng_distribution"],
    )
    assert printed(rng) == (
        "%3 = stablehlo.rng %arg1, %arg1, %arg2, distribution =  NORMAL : "
        "(tensor<f32>, tensor<f32>, tensor<3xi64>) -> tensor<2x3x5xf32>"
    )


def test_single_attr_scalar_ops():
    a0, a1, a2 = V("%arg0", T(2, 2)), V("%arg1", T(4, 1)), V("%arg2", T(4, 2))
    a3, a4 = V("%arg3", T(1, et=IndexType())), V("%arg4", T(et=I32))
    assert printed(op("stablehlo.cholesky", [a0], r("%0", T(2, 2)))) == (
        "%0 = stablehlo.cholesky %arg0 : tensor<2x2xf32>"
    )
    ch = op("stablehlo.cholesky", [a0], r("%1", T(2, 2)), [("lower", BoolAttr(True))], ["lower"])
    assert printed(ch) == "%1 = stablehlo.cholesky %arg0, lower = true : tensor<2x2xf32>"
    cat = op(
        "stablehlo.concatenate",
        [a1, a2],
        r("%2", T(4, 3)),
        [("dimension", IntegerAttr(1, I64))],
        ["dimension"],
    )
    assert printed(cat) == (
        "%2 = stablehlo.concatenate %arg1, %arg2, dim = 1 : (tensor<4x1xf32>, tensor<4x2xf32>) -> tensor<4x3xf32>"
    )
    di = op(
        "stablehlo.dynamic_iota",
        [a3],
        r("%3", T(4, et=I32)),
        [("iota_dimension", IntegerAttr(0, I64))],
        ["iota_dimension"],
    )
    assert printed(di) == (
        "%3 = stablehlo.dynamic_iota %arg3, dim = 0 : (tensor<1xindex>) -> tensor<4xi32>"
    )
    iota = op(
        "stablehlo.iota",
        [],
        r("%4", T(1, 10)),
        [("iota_dimension", IntegerAttr(1, I64))],
        ["iota_dimension"],
    )
    assert printed(iota) == "%4 = stablehlo.iota dim = 1 : tensor<1x10xf32>"
    gds = op(
        "stablehlo.get_dimension_size",
        [a2],
        r("%5", T(et=I32)),
        [("dimension", IntegerAttr(1, I64))],
        ["dimension"],
    )
    assert printed(gds) == (
        "%5 = stablehlo.get_dimension_size %arg2, dim = 1 : (tensor<4x2xf32>) -> tensor<i32>"
    )
    sds = op(
        "stablehlo.set_dimension_size",
        [a2, a4],
        r("%6", T(4, 2)),
        [("dimension", IntegerAttr(1, I64))],
        ["dimension"],
    )
    assert printed(sds) == (
        "%6 = stablehlo.set_dimension_size %arg2, %arg4, dim = 1 : "
        "(tensor<4x2xf32>, tensor<i32>) -> tensor<4x2xf32>"
    )


def test_compare():
    a = V("%arg0", T(3, et=I32))
    lt = ("comparison_direction", enum("comparison_direction", "LT"))
    c0 = op("stablehlo.compare", [a, a], r("%0", T(3, et=I1)), [lt], ["comparison_direction"])
    assert printed(c0) == (
        "%0 = stablehlo.compare  LT, %arg0, %arg0 : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi1>"
    )
    c1 = op(
        "stablehlo.compare",
        [a, a],
        r("%1", T(3, et=I1)),
        [lt, ("compare_type", enum("comparison_type", "TOTALORDER"))],
        ["comparison_direction", "compare_type"],
    )
    assert printed(c1) == (
        "%1 = stablehlo.compare  LT, %arg0, %arg0,  TOTALORDER : "
        "(tensor<3xi32>, tensor<3xi32>) -> tensor<3xi1>"
    )


def test_dimension_attr_ops():
    a0, a1, a2 = V("%arg0", T(1, 2)), V("%arg1", T(3, et=I32)), V("%arg2", T(3, 4, et=I32))
    a3, a4, a5 = V("%arg3", T(et=I64)), V("%arg4", T(8)), V("%arg5", T())
    cases = [
        (
            op(
                "stablehlo.broadcast_in_dim",
                [a0],
                r("%0", T(1, 2, 3)),
                [("broadcast_dimensions", i64s(0, 1))],
                ["broadcast_dimensions"],
            ),
            "%0 = stablehlo.broadcast_in_dim %arg0, dims = [0, 1] : (tensor<1x2xf32>) -> tensor<1x2x3xf32>",
        ),
        (
            op(
                "stablehlo.broadcast",
                [a1],
                r("%1", T(1, 2, 3, et=I32)),
                [("broadcast_sizes", i64s(1, 2))],
                ["broadcast_sizes"],
            ),
            "%1 = stablehlo.broadcast %arg1, sizes = [1, 2] : (tensor<3xi32>) -> tensor<1x2x3xi32>",
        ),
        (
            op(
                "stablehlo.reverse",
                [a0],
                r("%2", T(1, 2)),
                [("dimensions", i64s(0, 1))],
                ["dimensions"],
            ),
            "%2 = stablehlo.reverse %arg0, dims = [0, 1] : tensor<1x2xf32>",
        ),
        (
            op(
                "stablehlo.transpose",
                [a0],
                r("%3", T(2, 1)),
                [("permutation", i64s(1, 0))],
                ["permutation"],
            ),
            "%3 = stablehlo.transpose %arg0, dims = [1, 0] : (tensor<1x2xf32>) -> tensor<2x1xf32>",
        ),
        (
            op(
                "stablehlo.dynamic_slice",
                [a2, a3, a3],
                r("%4", T(1, 4, et=I32)),
                [("slice_sizes", i64s(1, 4))],
                ["slice_sizes"],
            ),
            "%4 = stablehlo.dynamic_slice %arg2, %arg3, %arg3, sizes = [1, 4] : "
            "(tensor<3x4xi32>, tensor<i64>, tensor<i64>) -> tensor<1x4xi32>",
        ),
        (
            op(
                "stablehlo.pad",
                [a4, a5],
                r("%5", T(16)),
                [
                    ("edge_padding_high", i64s(4)),
                    ("edge_padding_low", i64s(4)),
                    ("interior_padding", i64s(0)),
                ],
                ["edge_padding_high", "edge_padding_low", "interior_padding"],
            ),
            "%5 = stablehlo.pad %arg4, %arg5, low = [4], high = [4], interior = [0] : "
            "(tensor<8xf32>, tensor<f32>) -> tensor<16xf32>",
        ),
    ]
    for o, text in cases:
        assert printed(o) == text


def test_einsum_and_fft():
    a0, a1 = V("%arg0", T(8, 16)), V("%arg1", T(16, 8))
    e = op(
        "stablehlo.einsum",
        [a0, a1],
        r("%0", T(8, 8)),
        [("einsum_config", StringAttr("ab,bc->ac"))],
        ["einsum_config"],
    )
    assert printed(e) == (
        '%0 = stablehlo.einsum %arg0, %arg1, config = "ab,bc->ac" : '
        "(tensor<8x16xf32>, tensor<16x8xf32>) -> tensor<8x8xf32>"
    )
    u = op(
        "stablehlo.unary_einsum",
        [a0],
        r("%1", T(8)),
        [("einsum_config", StringAttr("ab->a"))],
        ["einsum_config"],
    )
    assert printed(u) == (
        '%1 = stablehlo.unary_einsum %arg0, config = "ab->a" : (tensor<8x16xf32>) -> tensor<8xf32>'
    )
    c = T(16, et=ComplexType(F32))
    fft = op(
        "stablehlo.fft",
        [V("%arg0", c)],
        r("%0", c),
        [("fft_length", i64s(16)), ("fft_type", enum("fft_type", "FFT"))],
        ["fft_length", "fft_type"],
    )
    assert printed(fft) == (
        "%0 = stablehlo.fft %arg0, type =  FFT, length = [16] : "
        "(tensor<16xcomplex<f32>>) -> tensor<16xcomplex<f32>>"
    )


def test_bounds_encodings():
    b = TypeExtensions((3, None))
    a0 = V("%arg0", T(None, None, enc=b))
    o = op(
        "stablehlo.set_dimension_size",
        [a0, V("%arg1", T(et=I32))],
        r("%0", T(None, None)),
        [("dimension", IntegerAttr(1, I64))],
        ["dimension"],
    )
    assert printed(o) == (
        "%0 = stablehlo.set_dimension_size %arg0, %arg1, dim = 1 : "
        "(tensor<?x?xf32, #stablehlo.bounds<3, ?>>, tensor<i32>) -> tensor<?x?xf32>"
    )
    assert print_type(T(None, enc=TypeExtensions((4,), "type_extensions"))) == (
        "tensor<?xf32, #stablehlo.type_extensions<bounds = [4]>>"
    )
    assert print_type(T(enc=TypeExtensions(()))) == "tensor<f32, #stablehlo.bounds<>>"


DOT_ALGO = DotAlgorithm(FloatType("tf32"), FloatType("tf32"), F32, 1, 1, 1, False)
ALGO_TEXT = (
    "<lhs_precision_type = tf32, rhs_precision_type = tf32, accumulation_type = f32, "
    "lhs_component_count = 1, rhs_component_count = 1, num_primitive_operations = 1, "
    "allow_imprecise_accumulation = false>"
)


@pytest.mark.parametrize(
    "batching, prec, algo, text",
    [
        (True, False, False, "batching_dims = [0] x [0], contracting_dims = [2] x [1]"),
        (
            True,
            True,
            False,
            "batching_dims = [0] x [0], contracting_dims = [2] x [1], precision = [DEFAULT, DEFAULT]",
        ),
        (False, False, False, "contracting_dims = [1] x [0]"),
        (False, True, False, "contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT]"),
        (
            False,
            True,
            True,
            "contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT], algorithm = "
            + ALGO_TEXT,
        ),
        (False, False, True, "contracting_dims = [1] x [0], algorithm = " + ALGO_TEXT),
    ],
)
def test_dot_general(batching, prec, algo, text):
    if batching:
        lhs, rhs, res = (
            V("%arg0", T(2, 2, 2, et=I8)),
            V("%arg1", T(2, 2, 3, et=I8)),
            T(2, 2, 3, et=I32),
        )
        dn = DotDimensionNumbers((0,), (0,), (2,), (1,))
    else:
        lhs, rhs, res = V("%arg2", T(2, 2, et=I8)), V("%arg3", T(2, 3, et=I8)), T(2, 3, et=I32)
        dn = DotDimensionNumbers((), (), (1,), (0,))
    attrs = [("dot_dimension_numbers", dn)]
    if prec:
        attrs.append(
            (
                "precision_config",
                ArrayAttr((enum("precision", "DEFAULT"), enum("precision", "DEFAULT"))),
            )
        )
    if algo:
        attrs.append(("algorithm", DOT_ALGO))
    o = op("stablehlo.dot_general", [lhs, rhs], r("%0", res), attrs, [k for k, _ in attrs])
    sig = f"({print_type(lhs.type)}, {print_type(rhs.type)}) -> {print_type(res)}"
    assert printed(o) == f"%0 = stablehlo.dot_general {lhs.name}, {rhs.name}, {text} : {sig}"


@pytest.mark.parametrize(
    "start, limit, strides, text",
    [
        ((0,), (1,), (2,), "[0:1:2]"),
        ((0,), (4,), (2,), "[0:4:2]"),
        ((0,), (1,), (1,), "[0:1]"),
        ((1, 4), (3, 8), (1, 2), "[1:3, 4:8:2]"),
    ],
)
def test_slice(start, limit, strides, text):
    x = V("%arg1", T(8))
    o = op(
        "stablehlo.slice",
        [x],
        r("%0", T(1)),
        [
            ("start_indices", i64s(*start)),
            ("limit_indices", i64s(*limit)),
            ("strides", i64s(*strides)),
        ],
        ["start_indices", "limit_indices", "strides"],
    )
    assert printed(o) == f"%0 = stablehlo.slice %arg1 {text} : (tensor<8xf32>) -> tensor<1xf32>"


def test_composite_and_call():
    x = V("%0", T(et=I64))
    comp = op(
        "stablehlo.composite",
        [x],
        r("%1", T(et=I64)),
        [
            ("name", StringAttr("stablehlo.add_n")),
            ("composite_attributes", DictionaryAttr((("n", IntegerAttr(2, I64)),))),
            ("decomposition", SymbolRefAttr("add_n.impl")),
        ],
        ["name"],
    )
    assert printed(comp) == (
        '%1 = stablehlo.composite "stablehlo.add_n" %0 {composite_attributes = {n = 2 : i64}, '
        "decomposition = @add_n.impl} : (tensor<i64>) -> tensor<i64>"
    )
    a = V("%arg0", T(4, et=I32))
    call = op(
        "func.call",
        [a, a],
        r("%0", T(4, et=I32)),
        [("callee", SymbolRefAttr("callee_add"))],
        ["callee"],
    )
    assert printed(call) == (
        "%0 = func.call @callee_add(%arg0, %arg0) : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>"
    )
    call2 = op(
        "func.call",
        [a, a],
        [V("%0#0", T(4, et=I32)), V("%0#1", T(4, et=I32))],
        [("callee", SymbolRefAttr("callee_add_mult"))],
        ["callee"],
    )
    assert printed(call2) == (
        "%0:2 = func.call @callee_add_mult(%arg0, %arg0) : (tensor<4xi32>, tensor<4xi32>) -> "
        "(tensor<4xi32>, tensor<4xi32>)"
    )


def test_convolution():
    # real stablehlo-opt output (dim_numbers, window, then the attribute dictionary)
    lhs, rhs = V("%arg0", T(1, 8, 8, 3)), V("%arg1", T(7, 7, 3, 4))
    dn = ConvDimensionNumbers(0, 3, (1, 2), 2, 3, (0, 1), 0, 3, (1, 2))
    pad = dense(T(2, 2, et=I64), [[3, 3], [3, 3]])
    prec = ArrayAttr((enum("precision", "DEFAULT"), enum("precision", "DEFAULT")))
    attrs = [
        ("dimension_numbers", dn),
        ("window_strides", i64s(2, 2)),
        ("padding", pad),
        ("lhs_dilation", i64s(1, 1)),
        ("rhs_dilation", i64s(1, 1)),
        ("window_reversal", DenseArrayAttr(I1, (False, False))),
        ("batch_group_count", IntegerAttr(1, I64)),
        ("feature_group_count", IntegerAttr(1, I64)),
        ("precision_config", prec),
    ]
    props = [
        "dimension_numbers",
        "window_strides",
        "padding",
        "lhs_dilation",
        "rhs_dilation",
        "window_reversal",
    ]
    o = op("stablehlo.convolution", [lhs, rhs], r("%0", T(1, 4, 4, 4)), attrs, props)
    assert printed(o) == (
        "%0 = stablehlo.convolution(%arg0, %arg1) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], "
        "window = {stride = [2, 2], pad = [[3, 3], [3, 3]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], "
        "reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, "
        "precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : "
        "(tensor<1x8x8x3xf32>, tensor<7x7x3x4xf32>) -> tensor<1x4x4x4xf32>"
    )


# ---- ops with regions ------------------------------------------------------------------------


def _while_op():
    i64 = T(et=I64)
    a0, a1 = V("%arg0", i64), V("%arg1", i64)
    ten, one = V("%ten", i64), V("%one", i64)
    cond_ops = [
        op(
            "stablehlo.compare",
            [a0, ten],
            r("%cond", T(et=I1)),
            [("comparison_direction", enum("comparison_direction", "LT"))],
            ["comparison_direction"],
        ),
        op("stablehlo.return", [V("%cond", T(et=I1))]),
    ]
    body_ops = [
        op("stablehlo.add", [a1, one], r("%new_sum", i64)),
        op("stablehlo.add", [a0, one], r("%new_i", i64)),
        op("stablehlo.return", [V("%new_i", i64), V("%new_sum", i64)]),
    ]
    return op(
        "stablehlo.while",
        [V("%init_i", i64), V("%init_sum", i64)],
        [V("%results0", i64), V("%results1", i64)],
        regions=[region([a0, a1], cond_ops), region([a0, a1], body_ops)],
    )


def test_while():
    # StablehloOps.td WhileOp example; stablehlo-opt starts `cond` on a new line at the
    # op's indentation (AssemblyFormat.cpp printWhileOp: printNewline, then "cond ")
    assert printed(_while_op(), 1) == "\n".join(
        [
            "  %results0, %results1 = stablehlo.while(%arg0 = %init_i, %arg1 = %init_sum) : tensor<i64>, tensor<i64>",
            "  cond {",
            "    %cond = stablehlo.compare  LT, %arg0, %ten : (tensor<i64>, tensor<i64>) -> tensor<i1>",
            "    stablehlo.return %cond : tensor<i1>",
            "  } do {",
            "    %new_sum = stablehlo.add %arg1, %one : tensor<i64>",
            "    %new_i = stablehlo.add %arg0, %one : tensor<i64>",
            "    stablehlo.return %new_i, %new_sum : tensor<i64>, tensor<i64>",
            "  }",
        ]
    )


def test_while_with_differently_named_region_arguments_is_generic():
    w = _while_op()
    cond, body = w.regions
    b = body.blocks[0]
    renamed = Region((Block((V("%x", b.arguments[0].type), b.arguments[1]), b.operations),))
    w2 = Operation(w.name, w.operands, w.results, (), (cond, renamed))
    assert printed(w2).startswith(
        '%results0, %results1 = "stablehlo.while"(%init_i, %init_sum) ({\n'
    )


def _reduce(body_args, body_ops, props=("dimensions",)):
    return op(
        "stablehlo.reduce",
        [V("%input", T(1, 6, et=I64)), V("%init_value", T(et=I64))],
        r("%result", T(1, et=I64)),
        [("dimensions", i64s(1))],
        props,
        [region(body_args, body_ops)],
    )


def test_reduce_reducer_form():
    s = T(et=I64)
    a, b = V("%arg0", s), V("%arg1", s)
    red = _reduce(
        [a, b], [op("stablehlo.add", [a, b], r("%0", s)), op("stablehlo.return", [V("%0", s)])]
    )
    # AssemblyFormat.cpp printReduceOp: newline, " reducer", "(%a: t, %b: t) ", ' ', region
    assert printed(red) == "\n".join(
        [
            "%result = stablehlo.reduce(%input init: %init_value) across dimensions = [1] : "
            "(tensor<1x6xi64>, tensor<i64>) -> tensor<1xi64>",
            " reducer(%arg0: tensor<i64>, %arg1: tensor<i64>)  {",
            "  %0 = stablehlo.add %arg0, %arg1 : tensor<i64>",
            "  stablehlo.return %0 : tensor<i64>",
            "}",
        ]
    )


def test_reduce_applies_form():
    # the body hlorun's parser builds for `applies stablehlo.add`
    s = T(et=I64)
    a, b, res = V("%reduce.lhs", s), V("%reduce.rhs", s), V("%reduce.result", s)
    red = _reduce([a, b], [op("stablehlo.add", [a, b], [res]), op("stablehlo.return", [res])])
    assert printed(red) == (
        "%result = stablehlo.reduce(%input init: %init_value) applies stablehlo.add across "
        "dimensions = [1] : (tensor<1x6xi64>, tensor<i64>) -> tensor<1xi64>"
    )


def test_generic_form_with_properties_and_regions():
    # tests/interpret/sort.mlir @sort_issue_2440 (stablehlo-opt output)
    s = T(et=I64)
    a, b = V("%arg0", s), V("%arg1", s)
    body = [
        op(
            "stablehlo.compare",
            [a, b],
            r("%1", T(et=I1)),
            [
                ("comparison_direction", enum("comparison_direction", "LT")),
                ("compare_type", enum("comparison_type", "SIGNED")),
            ],
            ["comparison_direction", "compare_type"],
        ),
        op("stablehlo.return", [V("%1", T(et=I1))]),
    ]
    sort = op(
        "stablehlo.sort",
        [V("%input", T(5, 7, et=I64))],
        r("%result", T(5, 7, et=I64)),
        [("dimension", IntegerAttr(0, I64))],
        ["dimension"],
        [region([a, b], body)],
    )
    assert printed(sort, 1) == "\n".join(
        [
            '  %result = "stablehlo.sort"(%input) <{dimension = 0 : i64}> ({',
            "  ^bb0(%arg0: tensor<i64>, %arg1: tensor<i64>):",
            "    %1 = stablehlo.compare  LT, %arg0, %arg1,  SIGNED : (tensor<i64>, tensor<i64>) -> tensor<i1>",
            "    stablehlo.return %1 : tensor<i1>",
            "  }) : (tensor<5x7xi64>) -> tensor<5x7xi64>",
        ]
    )


def test_inherent_attributes_in_the_dictionary_still_print_pretty():
    # `"stablehlo.transpose"(%x) {permutation = array<i64: 1, 0>}`: MLIR treats an inherent
    # attribute written in the dictionary as a property, and stablehlo-opt prints the
    # pretty form (print_stablehlo.mlir's CHECK lines for generic inputs)
    x = V("%arg0", T(1, 2))
    o = op("stablehlo.transpose", [x], r("%0", T(2, 1)), [("permutation", i64s(1, 0))])
    assert printed(o) == (
        "%0 = stablehlo.transpose %arg0, dims = [1, 0] : (tensor<1x2xf32>) -> tensor<2x1xf32>"
    )


def test_unknown_op_generic_with_successors_and_empty_region():
    o = Operation("cf.br", (V("%a", I32),), (), (), (), ("^bb1",))
    assert printed(o) == '"cf.br"(%a)[^bb1] : (i32) -> ()'
    e = op("test.op", regions=[Region(())])
    assert printed(e) == '"test.op"() ({\n}) : () -> ()'


def test_check_dialect_ops():
    x = V("%result", T(2, et=I64))
    c = op("check.expect_eq_const", [x], (), [("value", dense(T(2, et=I64), [1, 2]))], ["value"])
    assert printed(c) == "check.expect_eq_const %result, dense<[1, 2]> : tensor<2xi64>"
    f = V("%0", T(3))
    ae = op(
        "check.expect_almost_eq", [f, f], (), [("tolerance", FloatAttr(1e-3, F64))], ["tolerance"]
    )
    assert printed(ae) == (
        "check.expect_almost_eq %0, %0, tolerance = 1.000000e-03 : f64 : tensor<3xf32>"
    )
    probe = op(
        "interpreter.probe", [f], r("%3", T(3)), [("probe_id", StringAttr("p0"))], ["probe_id"]
    )
    assert printed(probe) == '%3 = interpreter.probe %0, probe_id = "p0" : tensor<3xf32>'


# ---- results, locations ----------------------------------------------------------------


def test_result_names():
    x = V("%x", T(4))
    two = [V("%a", T(4)), V("%b", T(4))]
    o = op("stablehlo.optimization_barrier", [x, x], two)
    assert printed(o).startswith("%a, %b = ")
    mixed = [V("%r#0", T(4)), V("%r#1", T(4)), V("%s", T(4))]
    o3 = op("stablehlo.optimization_barrier", [x, x, x], mixed)
    assert printed(o3).startswith("%r:2, %s = ")


def test_locations():
    x = V("%arg0", T(4))
    add = op("stablehlo.add", [x, x], r("%0", T(4)), location=LocationAttr('"file.mlir":3:7'))
    ret = op("func.return", [V("%0", T(4))])
    body = Region((Block((x,), (add, ret), None, (LocationAttr("unknown"),)),))
    fn = Function("main", FunctionType((T(4),), (T(4),)), body, location=LocationAttr("#loc1"))
    assert print_module(Module((fn,))) == "\n".join(
        [
            "module {",
            "  func.func @main(%arg0: tensor<4xf32> loc(unknown)) -> tensor<4xf32> {",
            '    %0 = stablehlo.add %arg0, %arg0 : tensor<4xf32> loc("file.mlir":3:7)',
            "    func.return %0 : tensor<4xf32>",
            "  } loc(#loc1)",
            "}",
            "",
        ]
    )


# ---- functions and modules -------------------------------------------------------------


def test_function_headers():
    x = V("%arg0", T(2))
    body = region([x], [op("func.return", [x])])
    fn = Function(
        "f",
        FunctionType((T(2),), (T(2),)),
        body,
        "private",
        (DictionaryAttr((("jax.arg", UnitAttr()),)),),
        (DictionaryAttr((("jax.result_info", StringAttr("r")),)),),
        (
            (
                "mode.default",
                ResultAccuracy(
                    mode=EnumAttr("stablehlo", "result_accuracy_mode", "DEFAULT", False)
                ),
            ),
        ),
    )
    assert print_module(Module((fn,), implicit=True)) == "\n".join(
        [
            'func.func private @f(%arg0: tensor<2xf32> {jax.arg}) -> (tensor<2xf32> {jax.result_info = "r"}) '
            "attributes {mode.default = #stablehlo.result_accuracy<mode = #stablehlo.result_accuracy_mode<DEFAULT>>} {",
            "  func.return %arg0 : tensor<2xf32>",
            "}",
            "",
        ]
    )
    decl = Function("g", FunctionType((T(2), I32), (T(2), T(2))), None, "private")
    assert print_module(Module((decl,), implicit=True)) == (
        "func.func private @g(tensor<2xf32>, i32) -> (tensor<2xf32>, tensor<2xf32>)\n"
    )
    empty = Function("zero_input", FunctionType((), ()), region([], [op("func.return")]))
    assert print_module(Module((empty,), implicit=True)) == (
        "func.func @zero_input() {\n  func.return\n}\n"
    )


def test_module_wrapper_aliases_and_resources():
    csr = OpaqueAttr("#sparse_tensor.encoding<{ map = (d0, d1) -> (d0 : dense, d1 : compressed) }>")
    m = Module(
        (),
        name="m",
        attributes=(("mhlo.num_partitions", IntegerAttr(1, I32)),),
        aliases=(("#CSR", csr), ("!t", T(2))),
        resources=(("builtin", "blob1", "0x0400000001000000"),),
    )
    assert print_module(m) == "\n".join(
        [
            "#CSR = " + csr.text,
            "!t = tensor<2xf32>",
            "module @m attributes {mhlo.num_partitions = 1 : i32} {",
            "}",
            "{-#",
            "  dialect_resources: {",
            "    builtin: {",
            '      blob1: "0x0400000001000000"',
            "    }",
            "  }",
            "#-}",
            "",
        ]
    )


# ---- attributes ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "attr, text",
    [
        (GatherDimensionNumbers(), "#stablehlo.gather<>"),
        (
            GatherDimensionNumbers((1,), (0,), (), (), (0,), 1),
            "#stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], "
            "index_vector_dim = 1>",
        ),
        (ScatterDimensionNumbers(), "#stablehlo.scatter<>"),
        (
            ScatterDimensionNumbers((1,), (0, 1), (), (), (0, 2), 1),
            "#stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0, 1], "
            "scatter_dims_to_operand_dims = [0, 2], index_vector_dim = 1>",
        ),
        (
            ScatterDimensionNumbers((1,), (0, 1)),
            "#stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0, 1]>",
        ),
        (
            DotDimensionNumbers((0,), (0,), (2,), (1,)),
            "#stablehlo.dot<lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], "
            "lhs_contracting_dimensions = [2], rhs_contracting_dimensions = [1]>",
        ),
        (ChannelHandle(1, 0), "#stablehlo.channel_handle<handle = 1, type = 0>"),
        (
            OutputOperandAlias((0,), 0, (1,)),
            "#stablehlo.output_operand_alias<output_tuple_indices = [0], operand_index = 0, "
            "operand_tuple_indices = [1]>",
        ),
        (
            ConvDimensionNumbers(0, 3, (1, 2), 2, 3, (0, 1), 0, 3, (1, 2)),
            "#stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>",
        ),
        (
            ConvDimensionNumbers(0, 3, (1, 2), 3, 2, (0, 1), 0, 3, (1, 2), raw=True),
            "#stablehlo.conv<raw input_batch_dimension = 0, input_feature_dimension = 3, "
            "input_spatial_dimensions = [1, 2], kernel_input_feature_dimension = 3, "
            "kernel_output_feature_dimension = 2, kernel_spatial_dimensions = [0, 1], "
            "output_batch_dimension = 0, output_feature_dimension = 3, output_spatial_dimensions = [1, 2]>",
        ),
        (DOT_ALGO, "#stablehlo.dot_algorithm" + ALGO_TEXT),
        (
            ResultAccuracy(
                1e-5, 1e-4, 2, EnumAttr("stablehlo", "result_accuracy_mode", "TOLERANCE", False)
            ),
            "#stablehlo.result_accuracy<atol = 1.000000e-05, rtol = 1.000000e-04, ulps = 2, "
            "mode = #stablehlo.result_accuracy_mode<TOLERANCE>>",
        ),
        (
            ResultAccuracy(
                1e-5, 0.0, 0, EnumAttr("stablehlo", "result_accuracy_mode", "TOLERANCE", False)
            ),
            "#stablehlo.result_accuracy<atol = 1.000000e-05, mode = #stablehlo.result_accuracy_mode<TOLERANCE>>",
        ),
        (enum("comparison_direction", "LT"), "#stablehlo<comparison_direction LT>"),
        (EnumAttr("chlo", "comparison_direction", "GE"), "#chlo<comparison_direction GE>"),
        (
            DialectAttr("chlo", "ragged_dot", (("lhs_batching_dimensions", ArrayAttr(())),)),
            "#chlo.ragged_dot<lhs_batching_dimensions = []>",
        ),
        (OpaqueAttr("affine_map<(d0) -> (d0)>"), "affine_map<(d0) -> (d0)>"),
        # tests/verifier/ops_stablehlo_roundtrip.mlir: mhlo.sharding
        (
            StringAttr("\x08\x03\x1a\x02\x01\x02\x22\x02\x00\x01"),
            r'"\08\03\1A\02\01\02\22\02\00\01"',
        ),
        (StringAttr('a\\b"c\n'), r'"a\\b\22c\0A"'),
        (SymbolRefAttr("foo"), "@foo"),
        (SymbolRefAttr("foo-not-id"), '@"foo-not-id"'),
        (SymbolRefAttr("a", ("b",)), "@a::@b"),
        (ArrayAttr((SymbolRefAttr("foo"),)), "[@foo]"),
        (
            DictionaryAttr((("a", IntegerAttr(1)), ("b", UnitAttr()), ("c-d", BoolAttr(False)))),
            '{a = 1, b, "c-d" = false}',
        ),
        (IntegerAttr(-3, I64), "-3 : i64"),
        (IntegerAttr(7), "7"),
        (FloatAttr(0.001, F32), "1.000000e-03 : f32"),
        (FloatAttr(1.0), "1.000000e+00"),
        (UnitAttr(), "unit"),
        (TypeAttr(I32), "i32"),
        (DenseArrayAttr(I64, (1, 2)), "array<i64: 1, 2>"),
        (DenseArrayAttr(I64, ()), "array<i64>"),
        (DenseArrayAttr(I1, (True, False)), "array<i1: true, false>"),
        (DenseArrayAttr(F32, (1.5,)), "array<f32: 1.500000e+00>"),
        (LocationAttr('"f.py":1:2'), 'loc("f.py":1:2)'),
    ],
)
def test_attributes(attr, text):
    assert print_attribute(attr) == text


@pytest.mark.parametrize(
    "t, values, text",
    [
        (T(1, et=I64), [-1], "dense<-1> : tensor<1xi64>"),
        (T(2, 2, et=I32), [[1, 2], [3, 4]], "dense<[[1, 2], [3, 4]]> : tensor<2x2xi32>"),
        (
            T(2, 2, 1, 1),
            [[[[1.0]], [[2.0]]], [[[3.0]], [[4.0]]]],
            "dense<[[[[1.000000e+00]], [[2.000000e+00]]], [[[3.000000e+00]], [[4.000000e+00]]]]> : "
            "tensor<2x2x1x1xf32>",
        ),
        (T(3, et=I1), [True, False, True], "dense<[true, false, true]> : tensor<3xi1>"),
        (T(2, et=UI32), [0, 4294967295], "dense<[0, 4294967295]> : tensor<2xui32>"),
        (T(2, et=IntegerType(4)), [-8, 7], "dense<[-8, 7]> : tensor<2xi4>"),
        (T(2, et=IntegerType(4, "unsigned")), [0, 15], "dense<[0, 15]> : tensor<2xui4>"),
        (T(0, et=IndexType()), [], "dense<> : tensor<0xindex>"),
        (
            T(et=ComplexType(F32)),
            1 + 0j,
            "dense<(1.000000e+00,0.000000e+00)> : tensor<complex<f32>>",
        ),
        (
            T(2, et=ComplexType(F64)),
            [1 + 2j, complex(0.0, -0.5)],
            "dense<[(1.000000e+00,2.000000e+00), (0.000000e+00,-5.000000e-01)]> : tensor<2xcomplex<f64>>",
        ),
        (
            T(4, et=BF16),
            [1.0, 2.0, 3.0, 4.0],
            "dense<[1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00]> : tensor<4xbf16>",
        ),
        (
            T(4, et=F16),
            [1.0, -4.0, -65504.0, 1.5625e-02],
            "dense<[1.000000e+00, -4.000000e+00, -6.550400e+04, 1.562500e-02]> : tensor<4xf16>",
        ),
        (
            T(4, et=FloatType("f8E4M3FN")),
            [1.0, 2.0, 3.0, 4.0],
            "dense<[1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00]> : tensor<4xf8E4M3FN>",
        ),
        (
            T(4, et=FloatType("f4E2M1FN")),
            [1.0, 2.0, 3.0, 4.0],
            "dense<[1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00]> : tensor<4xf4E2M1FN>",
        ),
        # tests/interpret/add.mlir expectation (f64): 2*pi, infinities and NaN as bit patterns
        (
            T(4, et=F64),
            [2 * np.pi, np.inf, -np.inf, np.nan],
            "dense<[6.2831853071795862, 0x7FF0000000000000, 0xFFF0000000000000, 0x7FF8000000000000]> : "
            "tensor<4xf64>",
        ),
        (
            T(3),
            [np.nan, -np.inf, 0.1],
            "dense<[0x7FC00000, 0xFF800000, 1.000000e-01]> : tensor<3xf32>",
        ),
        # f32 pi does not read back from 6 digits: APFloat's shortest form with 9 digits
        (T(1), [np.float32(np.pi)], "dense<3.14159274> : tensor<1xf32>"),
        (T(1, et=F64), [1 / 3], "dense<0.33333333333333331> : tensor<1xf64>"),
        (T(2, et=BF16), [np.nan, np.inf], "dense<[0x7FC0, 0x7F80]> : tensor<2xbf16>"),
        (T(1, et=F16), [np.inf], "dense<0x7C00> : tensor<1xf16>"),
        (T(3, 2), [[0.0] * 2] * 3, "dense<0.000000e+00> : tensor<3x2xf32>"),
        (T(2), [-0.0, 0.0], "dense<[-0.000000e+00, 0.000000e+00]> : tensor<2xf32>"),
    ],
)
def test_dense_elements(t, values, text):
    assert print_attribute(dense(t, values)) == text


def test_dense_hex():
    assert (
        print_attribute(dense(T(2), [1.0, 2.0], hex_=True))
        == 'dense<"0x0000803F00000040"> : tensor<2xf32>'
    )
    assert print_attribute(dense(T(2, et=IntegerType(4)), [-1, 7], hex_=True)) == (
        'dense<"0x0F07"> : tensor<2xi4>'
    )
    assert print_attribute(dense(T(3, et=I1), [True, False, True], hex_=True)) == (
        'dense<"0x010001"> : tensor<3xi1>'
    )
    assert print_attribute(dense(T(2, et=I64), [1, -1], hex_=True)) == (
        'dense<"0x0100000000000000FFFFFFFFFFFFFFFF"> : tensor<2xi64>'
    )


@pytest.mark.parametrize(
    "t, text",
    [
        (QuantizedType(I8, F32, (34.0,), (16,)), "!quant.uniform<i8:f32, 3.400000e+01:16>"),
        (QuantizedType(I8, F32, (5.0,), (0,)), "!quant.uniform<i8:f32, 5.000000e+00>"),
        (
            QuantizedType(IntegerType(8, "unsigned"), F32, (1.0,), (17,)),
            "!quant.uniform<u8:f32, 1.000000e+00:17>",
        ),
        (
            QuantizedType(I8, F32, (34.0, 34.0), (16, 16), 0),
            "!quant.uniform<i8:f32:0, {3.400000e+01:16,3.400000e+01:16}>",
        ),
        (
            QuantizedType(I8, F32, (0.1, 0.5), (-30, -20), 0),
            "!quant.uniform<i8:f32:0, {1.000000e-01:-30,5.000000e-01:-20}>",
        ),
        (
            QuantizedType(I8, F32, (1.0,), (0,), None, -127, 127),
            "!quant.uniform<i8<-127:127>:f32, 1.000000e+00>",
        ),
        (TokenType(), "!stablehlo.token"),
        (TupleType((T(2), TokenType())), "tuple<tensor<2xf32>, !stablehlo.token>"),
        (FunctionType((I32, F32), (F32,)), "(i32, f32) -> f32"),
        (FunctionType((), ()), "() -> ()"),
        (FunctionType((I32,), (FunctionType((), (I32,)),)), "(i32) -> (() -> i32)"),
        (OpaqueType("!vhlo.tensor_v1<!vhlo.f32_v1>"), "!vhlo.tensor_v1<!vhlo.f32_v1>"),
        (TensorType(None, F32), "tensor<*xf32>"),
        (T(2, None, 3, et=ComplexType(F64)), "tensor<2x?x3xcomplex<f64>>"),
        (T(et=IndexType()), "tensor<index>"),
        (T(2, et=FloatType("f8E4M3B11FNUZ")), "tensor<2xf8E4M3B11FNUZ>"),
    ],
)
def test_types(t, text):
    assert print_type(t) == text


def test_quantized_scale_not_exact_in_six_digits_keeps_its_value():
    text = print_type(QuantizedType(I8, F32, (0.123456789,), (0,)))
    scale = text.split(", ")[1].rstrip(">")
    assert float(scale) == 0.123456789


def test_unknown_attribute_is_unsupported():
    class Strange(Attribute):
        pass

    with pytest.raises(UnsupportedError):
        print_attribute(Strange())


def test_hex_above_threshold_like_stablehlo_opt():
    big = dense(T(101, et=I32), list(range(101)))
    fn = Function(
        "f",
        FunctionType((), ()),
        region(
            [],
            [
                op("stablehlo.constant", [], r("%c", big.type), [("value", big)], ["value"]),
                op(
                    "stablehlo.constant",
                    [],
                    r("%z", T(200, et=I32)),
                    [("value", dense(T(200, et=I32), [0] * 200))],
                    ["value"],
                ),
                op("func.return"),
            ],
        ),
    )
    m = Module((fn,), implicit=True)
    blob = "".join(f"{i:02X}000000" for i in range(101))
    text = print_module(m, hex_above=100)
    assert f'%c = stablehlo.constant dense<"0x{blob}"> : tensor<101xi32>' in text
    assert "%z = stablehlo.constant dense<0> : tensor<200xi32>" in text
    assert "dense<[0, 1, 2, 3," in print_module(m)
