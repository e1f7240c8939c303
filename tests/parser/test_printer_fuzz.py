"""Random IR -> print -> parse gives the same IR back, and printing is a fixed point.

The IR is drawn in the parser's canonical form (op attributes sorted by name, integers
wrapped to their type, floats representable in theirs, strings of bytes as latin-1
characters, the custom-syntax attributes of pretty ops recorded as properties), so any
difference is a printer or parser bug.
"""

from __future__ import annotations

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hlorun.parser.grammar import parse_module
from hlorun.parser.ir import (
    ArrayAttr,
    Block,
    BoolAttr,
    ChannelHandle,
    ComplexType,
    ConvDimensionNumbers,
    DenseArrayAttr,
    DenseElementsAttr,
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
    numpy_dtype,
)
from hlorun.parser.printer import print_module

INT_TYPES = [IntegerType(w, s) for w in (1, 2, 4, 8, 16, 32, 64) for s in ("signless",)] + [
    IntegerType(w, s) for w in (2, 4, 8, 32, 64) for s in ("signed", "unsigned")
]
FLOAT_NAMES = [
    "f4E2M1FN",
    "f6E2M3FN",
    "f6E3M2FN",
    "f8E3M4",
    "f8E4M3",
    "f8E4M3FN",
    "f8E4M3FNUZ",
    "f8E4M3B11FNUZ",
    "f8E5M2",
    "f8E5M2FNUZ",
    "f8E8M0FNU",
    "bf16",
    "f16",
    "f32",
    "f64",
]
FLOAT_TYPES = [FloatType(n) for n in FLOAT_NAMES]
ELEMENT_TYPES = (
    INT_TYPES + FLOAT_TYPES + [ComplexType(FloatType("f32")), ComplexType(FloatType("f64"))]
)

names = st.from_regex(r"[a-z_][a-z0-9_]{0,6}", fullmatch=True)
keys = st.one_of(names, st.from_regex(r"[a-z][a-z0-9]{0,3}[.-][a-z]{1,3}", fullmatch=True))
byte_text = st.text(st.characters(min_codepoint=0, max_codepoint=255), max_size=8)
locations = st.sampled_from(['"f.py":1:2', "unknown", "#loc3", 'fused["a", "b"]'])


def int_range(t: IntegerType) -> tuple[int, int]:
    n = t.width
    if t.signedness == "unsigned":
        return 0, (1 << n) - 1
    if n == 1:
        return 0, 1
    return -(1 << (n - 1)), (1 << (n - 1)) - 1


def dense_values(draw, elem, size: int) -> np.ndarray:
    dt = numpy_dtype(elem)
    if isinstance(elem, IntegerType):
        if elem.is_bool:
            return np.array(draw(st.lists(st.booleans(), min_size=size, max_size=size)), dtype=bool)
        lo, hi = int_range(elem)
        vals = draw(st.lists(st.integers(lo, hi), min_size=size, max_size=size))
        return np.array(vals, dtype=np.int64).astype(dt)
    if isinstance(elem, ComplexType):
        re_ = draw(st.lists(st.floats(width=32), min_size=size, max_size=size))
        im = draw(st.lists(st.floats(width=32), min_size=size, max_size=size))
        return (np.array(re_) + 1j * np.array(im)).astype(dt)
    nbits = 8 * dt.itemsize
    if elem.name.startswith("f4"):
        nbits = 4
    elif elem.name.startswith("f6"):
        nbits = 6
    bits = draw(st.lists(st.integers(0, (1 << nbits) - 1), min_size=size, max_size=size))
    u = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}[dt.itemsize]
    return np.array(bits, dtype=np.uint64).astype(u).view(dt)


@st.composite
def tensor_types(draw, static: bool = False, elems=None) -> TensorType:
    rank = draw(st.integers(0, 3))
    dims = st.integers(0, 3) if static else st.one_of(st.integers(0, 3), st.none())
    shape = tuple(draw(st.lists(dims, min_size=rank, max_size=rank)))
    elem = draw(st.sampled_from(elems or ELEMENT_TYPES))
    enc = None
    if not static and rank and draw(st.booleans()):
        bounds = tuple(draw(st.one_of(st.none(), st.integers(0, 9))) for _ in shape)
        enc = TypeExtensions(bounds, draw(st.sampled_from(["bounds", "type_extensions"])))
    return TensorType(shape, elem, enc)


@st.composite
def quantized_tensor(draw) -> TensorType:
    storage = draw(st.sampled_from([IntegerType(8), IntegerType(8, "unsigned"), IntegerType(4)]))
    scales = draw(st.lists(st.floats(1e-3, 1e3), min_size=1, max_size=2))
    zps = [draw(st.integers(-8, 7)) for _ in scales]
    per_axis = len(scales) > 1 or draw(st.booleans())
    lo, hi = int_range(storage)
    mm = draw(st.one_of(st.none(), st.just((lo + 1, hi))))
    q = QuantizedType(
        storage,
        FloatType("f32"),
        tuple(scales),
        tuple(zps),
        0 if per_axis else None,
        *(mm or (None, None)),
    )
    return TensorType((len(scales),), q)


types = st.deferred(
    lambda: st.one_of(
        tensor_types(),
        quantized_tensor(),
        st.just(TokenType()),
        st.lists(st.one_of(tensor_types(), st.just(TokenType())), max_size=2).map(
            lambda ts: TupleType(tuple(ts))
        ),
        st.sampled_from(ELEMENT_TYPES[:8] + FLOAT_TYPES[-3:]),
    )
)


@st.composite
def dense_attrs(draw) -> DenseElementsAttr:
    t = draw(tensor_types(static=True))
    size = int(np.prod(t.shape, dtype=np.int64))
    arr = dense_values(draw, t.element_type, size).reshape(t.shape)
    arr.setflags(write=False)
    hex_ = draw(st.booleans()) and size > 0 and not isinstance(t.element_type, ComplexType)
    return DenseElementsAttr(t, arr, hex_)


@st.composite
def float_attrs(draw) -> FloatAttr:
    t = draw(st.one_of(st.none(), st.sampled_from(FLOAT_TYPES)))
    if t is None:
        x = draw(st.floats())
        # NaN and infinities have no untyped spelling (MLIR writes them as hex bit
        # patterns, which need a type: f64 is what an untyped float literal is)
        return FloatAttr(x, None if np.isfinite(x) else FloatType("f64"))
    v = dense_values(draw, t, 1)
    if np.isnan(v.astype(np.float64)[0]):
        v = np.array([np.nan], dtype=v.dtype)
    return FloatAttr(float(v.astype(np.float64)[0]), t)


@st.composite
def int_attrs(draw) -> IntegerAttr:
    t = draw(st.one_of(st.none(), st.sampled_from(INT_TYPES)))
    if t is None:
        return IntegerAttr(draw(st.integers(-(2**63), 2**63 - 1)), None)
    lo, hi = int_range(t)
    return IntegerAttr(draw(st.integers(lo, hi)), t)


ints = st.lists(st.integers(0, 5), max_size=3).map(tuple)
enums = st.sampled_from(
    [
        EnumAttr("stablehlo", "precision", "HIGH"),
        EnumAttr("stablehlo", "comparison_direction", "LT"),
        EnumAttr("chlo", "comparison_direction", "GE"),
        EnumAttr("stablehlo", "result_accuracy_mode", "DEFAULT", False),
    ]
)
structs = st.one_of(
    st.builds(GatherDimensionNumbers, ints, ints, ints, ints, ints, st.integers(0, 3)),
    st.builds(ScatterDimensionNumbers, ints, ints, ints, ints, ints, st.integers(0, 3)),
    st.builds(DotDimensionNumbers, ints, ints, ints, ints),
    st.builds(ChannelHandle, st.integers(0, 9), st.integers(0, 3)),
    st.builds(OutputOperandAlias, ints, st.integers(0, 3), ints),
    st.just(ConvDimensionNumbers(0, 3, (1, 2), 2, 3, (0, 1), 0, 3, (1, 2))),
    st.just(ConvDimensionNumbers(0, 1, (2,), 1, 0, (2,), 0, 1, (2,), raw=True)),
    st.just(DotAlgorithm(FloatType("tf32"), FloatType("bf16"), FloatType("f32"), 1, 2, 3, True)),
    st.builds(
        ResultAccuracy,
        st.sampled_from([0.0, 1e-5, 0.5]),
        st.sampled_from([0.0, 2.0]),
        st.integers(0, 3),
        st.one_of(
            st.none(), st.just(EnumAttr("stablehlo", "result_accuracy_mode", "TOLERANCE", False))
        ),
    ),
)
leaf_attrs = st.one_of(
    int_attrs(),
    float_attrs(),
    st.builds(BoolAttr, st.booleans()),
    st.builds(StringAttr, byte_text),
    st.builds(DenseArrayAttr, st.just(IntegerType(64)), ints),
    st.builds(
        DenseArrayAttr, st.just(IntegerType(1)), st.lists(st.booleans(), max_size=3).map(tuple)
    ),
    st.builds(
        DenseArrayAttr,
        st.just(FloatType("f32")),
        st.lists(st.sampled_from([0.5, -2.0, 1.25, float(np.float32(0.1))]), max_size=3).map(tuple),
    ),
    dense_attrs(),
    enums,
    structs,
    st.builds(
        SymbolRefAttr, st.one_of(names, st.just("a-b")), st.lists(names, max_size=1).map(tuple)
    ),
    types.map(TypeAttr),
    st.just(OpaqueAttr("#foo.bar<1, [2]>")),
)
attrs = st.recursive(
    leaf_attrs,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3).map(lambda xs: ArrayAttr(tuple(xs))),
        st.lists(
            st.tuples(keys, st.one_of(inner, st.just(UnitAttr()))),
            max_size=3,
            unique_by=lambda kv: kv[0],
        ).map(lambda kvs: DictionaryAttr(tuple(kvs))),
    ),
    max_leaves=6,
)


class Scope:
    def __init__(self):
        self.n = 0
        self.values: list[Value] = []

    def fresh(self, prefix: str = "%v") -> str:
        self.n += 1
        return f"{prefix}{self.n}"


def pick(draw, scope: Scope, n: int) -> tuple[Value, ...]:
    vals = list(scope.values)
    return tuple(draw(st.lists(st.sampled_from(vals), max_size=n))) if vals else ()


@st.composite
def generic_ops(draw, scope: Scope, depth: int) -> Operation:
    operands = pick(draw, scope, 3)
    rtypes = draw(st.lists(types, max_size=3))
    if len(rtypes) > 1 and draw(st.booleans()):
        base = scope.fresh()
        results = tuple(Value(f"{base}#{i}", t) for i, t in enumerate(rtypes))
    else:
        results = tuple(Value(scope.fresh(), t) for t in rtypes)
    entries = draw(
        st.lists(
            st.tuples(keys, st.one_of(attrs, st.just(UnitAttr()))),
            max_size=3,
            unique_by=lambda kv: kv[0],
        )
    )
    entries.sort(key=lambda kv: kv[0])
    props = frozenset(k for k, _ in entries if draw(st.booleans()))
    regions = ()
    if depth < 2 and draw(st.integers(0, 4)) == 0:
        regions = tuple(draw(st.lists(regions_st(scope, depth + 1), min_size=1, max_size=2)))
    loc = draw(st.one_of(st.none(), locations.map(LocationAttr)))
    name = draw(st.sampled_from(["test.op", "foo.bar_baz", "stablehlo.sort", "stablehlo.add"]))
    op = Operation(name, operands, results, tuple(entries), regions, (), props, loc)
    scope.values.extend(results)
    return op


@st.composite
def regions_st(draw, scope: Scope, depth: int) -> Region:
    args = tuple(Value(scope.fresh("%a"), t) for t in draw(st.lists(types, max_size=2)))
    locs = ()
    if args and draw(st.booleans()):
        locs = tuple(draw(st.one_of(st.none(), locations.map(LocationAttr))) for _ in args)
        if not any(locs):
            locs = ()
    saved = list(scope.values)
    scope.values.extend(args)
    ops = [draw(generic_ops(scope, depth)) for _ in range(draw(st.integers(0, 2)))]
    ops.append(Operation("stablehlo.return", pick(draw, scope, 2)))
    scope.values = saved
    return Region((Block(args, tuple(ops), None, locs),))


PRETTY_ELEMS = [IntegerType(32), FloatType("f32"), FloatType("bf16"), IntegerType(8, "unsigned")]


@st.composite
def pretty_ops(draw, scope: Scope) -> list[Operation]:
    """A few StableHLO ops in the form the parser gives their pretty syntax."""
    t = draw(tensor_types(static=True, elems=PRETTY_ELEMS))
    size = int(np.prod(t.shape, dtype=np.int64))
    arr = dense_values(draw, t.element_type, size).reshape(t.shape)
    arr.setflags(write=False)
    c = Value(scope.fresh("%c"), t)
    ops = [
        Operation(
            "stablehlo.constant",
            (),
            (c,),
            (("value", DenseElementsAttr(t, arr)),),
            (),
            (),
            frozenset({"value"}),
        )
    ]
    kind = draw(
        st.sampled_from(
            [
                "add",
                "compare",
                "transpose",
                "slice",
                "reduce",
                "while",
                "abs",
                "custom_call",
                "arith",
                "cast",
                "insert",
            ]
        )
    )
    rank = len(t.shape)
    if kind in ("add", "abs"):
        extra = (("foo", UnitAttr()),) if draw(st.booleans()) else ()
        operands = (c, c) if kind == "add" else (c,)
        ops.append(Operation(f"stablehlo.{kind}", operands, (Value(scope.fresh(), t),), extra))
    elif kind == "compare":
        attrs_ = [("comparison_direction", EnumAttr("stablehlo", "comparison_direction", "GE"))]
        if draw(st.booleans()):
            attrs_.append(("compare_type", EnumAttr("stablehlo", "comparison_type", "TOTALORDER")))
        attrs_.sort()
        rt = TensorType(t.shape, IntegerType(1))
        ops.append(
            Operation(
                "stablehlo.compare",
                (c, c),
                (Value(scope.fresh(), rt),),
                tuple(attrs_),
                (),
                (),
                frozenset(k for k, _ in attrs_),
            )
        )
    elif kind == "transpose":
        perm = tuple(draw(st.permutations(range(rank))))
        rt = TensorType(tuple(t.shape[i] for i in perm), t.element_type)
        ops.append(
            Operation(
                "stablehlo.transpose",
                (c,),
                (Value(scope.fresh(), rt),),
                (("permutation", DenseArrayAttr(IntegerType(64), perm)),),
                (),
                (),
                frozenset({"permutation"}),
            )
        )
    elif kind == "slice":
        strides = tuple(draw(st.integers(1, 2)) for _ in t.shape)
        a = (
            ("limit_indices", DenseArrayAttr(IntegerType(64), t.shape)),
            ("start_indices", DenseArrayAttr(IntegerType(64), (0,) * rank)),
            ("strides", DenseArrayAttr(IntegerType(64), strides)),
        )
        ops.append(
            Operation(
                "stablehlo.slice",
                (c,),
                (Value(scope.fresh(), t),),
                a,
                (),
                (),
                frozenset(k for k, _ in a),
            )
        )
    elif kind == "arith":  # other dialects' ops (parser/mixed_ops.py)
        name = "arith.addf" if isinstance(t.element_type, FloatType) else "arith.addi"
        extra = (("foo", UnitAttr()),) if draw(st.booleans()) else ()
        ops.append(Operation(name, (c, c), (Value(scope.fresh(), t),), extra))
    elif kind == "cast":
        rts = tuple(Value(scope.fresh(), rt) for rt in draw(st.lists(types, max_size=2)))
        ops.append(Operation("builtin.unrealized_conversion_cast", (c,), rts))
    elif kind == "insert":
        et = t.element_type
        zero = FloatAttr(0.0, et) if isinstance(et, FloatType) else IntegerAttr(0, et)
        x, i = Value(scope.fresh("%c"), et), Value(scope.fresh("%c"), IndexType())
        for v, value in ((x, zero), (i, IntegerAttr(0, IndexType()))):
            ops.append(
                Operation(
                    "arith.constant", (), (v,), (("value", value),), (), (), frozenset({"value"})
                )
            )
        ops.append(Operation("tensor.insert", (x, c) + (i,) * rank, (Value(scope.fresh(), t),)))
    elif kind == "custom_call":
        a = (
            ("backend_config", StringAttr(draw(byte_text))),
            ("call_target_name", StringAttr(draw(st.sampled_from(["foo", "a-b", "x.y"])))),
        )
        ops.append(
            Operation(
                "stablehlo.custom_call",
                (c,),
                (Value(scope.fresh(), t),),
                a,
                (),
                (),
                frozenset({"call_target_name"}),
            )
        )
    elif kind == "reduce":
        st_ = TensorType((), t.element_type)
        init = Value(scope.fresh("%c"), st_)
        z = np.zeros((), dtype=numpy_dtype(t.element_type))
        z.setflags(write=False)
        ops.append(
            Operation(
                "stablehlo.constant",
                (),
                (init,),
                (("value", DenseElementsAttr(st_, z)),),
                (),
                (),
                frozenset({"value"}),
            )
        )
        if draw(st.booleans()):
            a0, a1, r = (
                Value("%reduce.lhs", st_),
                Value("%reduce.rhs", st_),
                Value("%reduce.result", st_),
            )
        else:
            a0, a1, r = (
                Value(scope.fresh("%a"), st_),
                Value(scope.fresh("%a"), st_),
                Value(scope.fresh(), st_),
            )
        body = Region(
            (
                Block(
                    (a0, a1),
                    (
                        Operation("stablehlo.maximum", (a0, a1), (r,)),
                        Operation("stablehlo.return", (r,)),
                    ),
                ),
            )
        )
        rt = TensorType(t.shape[1:], t.element_type)
        dims = (0,) if rank else ()
        ops.append(
            Operation(
                "stablehlo.reduce",
                (c, init),
                (Value(scope.fresh(), rt),),
                (("dimensions", DenseArrayAttr(IntegerType(64), dims)),),
                (body,),
                (),
                frozenset({"dimensions"}),
            )
        )
    else:
        it = Value(scope.fresh("%iterArg"), t)
        flag = Value(scope.fresh(), TensorType((), IntegerType(1)))
        ft = np.array(False)
        ft.setflags(write=False)
        cond = Region(
            (
                Block(
                    (it,),
                    (
                        Operation(
                            "stablehlo.constant",
                            (),
                            (flag,),
                            (("value", DenseElementsAttr(TensorType((), IntegerType(1)), ft)),),
                            (),
                            (),
                            frozenset({"value"}),
                        ),
                        Operation("stablehlo.return", (flag,)),
                    ),
                ),
            )
        )
        body = Region((Block((it,), (Operation("stablehlo.return", (it,)),)),))
        extra = (("x", UnitAttr()),) if draw(st.booleans()) else ()
        ops.append(
            Operation("stablehlo.while", (c,), (Value(scope.fresh(), t),), extra, (cond, body))
        )
    scope.values.extend(v for o in ops for v in o.results)
    return ops


@st.composite
def modules(draw) -> Module:
    scope = Scope()
    args = tuple(Value(f"%arg{i}", t) for i, t in enumerate(draw(st.lists(types, max_size=2))))
    scope.values.extend(args)
    ops: list[Operation] = []
    for _ in range(draw(st.integers(1, 4))):
        if draw(st.booleans()):
            ops.extend(draw(pretty_ops(scope)))
        else:
            ops.append(draw(generic_ops(scope, 0)))
    ret = pick(draw, scope, 2)
    ops.append(Operation("func.return", ret))
    arg_attrs = ()
    if args and draw(st.booleans()):
        arg_attrs = tuple(DictionaryAttr((("jax.arg", UnitAttr()),)) for _ in args)
    fn = Function(
        draw(st.sampled_from(["main", "f-1", "g"])),
        FunctionType(tuple(a.type for a in args), tuple(v.type for v in ret)),
        Region((Block(args, tuple(ops)),)),
        draw(st.sampled_from([None, "private", "public"])),
        arg_attrs,
        location=draw(st.one_of(st.none(), locations.map(LocationAttr))),
    )
    implicit = draw(st.booleans())
    mod_attrs = (
        ()
        if implicit
        else tuple(
            sorted(
                draw(st.lists(st.tuples(keys, leaf_attrs), max_size=2, unique_by=lambda kv: kv[0]))
            )
        )
    )
    return Module(
        (fn,), None if implicit else draw(st.one_of(st.none(), names)), mod_attrs, implicit=implicit
    )


@settings(
    max_examples=100,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(modules())
def test_random_modules_roundtrip(m):
    text = print_module(m)
    again = parse_module(text)
    assert again == m, text
    assert print_module(again) == text
