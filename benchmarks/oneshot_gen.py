"""Small programs shaped like JAX's test programs, for the one-shot benchmark
(benchmarks/test_oneshot_bench.py): constant inputs (an ``@inputs`` function), one or
two ops, and a ``check`` op comparing the result with the expected value, either a
constant (``check.expect_eq_const`` / ``check.expect_almost_eq_const``) or an
``@expected`` function (``check.expect_eq`` / ``check.expect_almost_eq``).

The op mix: elementwise (unary and binary), dot_general, reduce, broadcast_in_dim,
transpose, compare + select, convert; f32 mostly, f64, f16, bf16, i32, and i1 results.
Expected values come from NumPy in float64 (inputs are multiples of 1/4 in [-4, 4], so
sums and products are exact there and rounded once to the result type); floats are
compared within an absolute tolerance scaled to the result, integers and booleans
exactly.  Deterministic: ``program(seed)`` is a pure function of ``seed``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import ml_dtypes
import numpy as np
from corpus_gen import _literal, _type_text

from hlorun.parser.ir import FloatType, IntegerType, Type


@dataclass(frozen=True)
class Elem:
    type: Type
    dtype: np.dtype
    rel_tol: float | None  # None: compared exactly


F32 = Elem(FloatType("f32"), np.dtype(np.float32), 1e-5)
ELEMS = {
    "f32": F32,
    "f64": Elem(FloatType("f64"), np.dtype(np.float64), 1e-9),
    "f16": Elem(FloatType("f16"), np.dtype(np.float16), 4e-3),
    "bf16": Elem(FloatType("bf16"), np.dtype(ml_dtypes.bfloat16), 3e-2),
    "i32": Elem(IntegerType(32), np.dtype(np.int32), None),
}
I1 = Elem(IntegerType(1), np.dtype(np.bool_), None)
WEIGHTS = {"f32": 0.5, "f64": 0.1, "f16": 0.1, "bf16": 0.1, "i32": 0.2}
SHAPES = [(2, 3), (3, 4), (4,), (8,), (5, 6), (2, 3, 4), (16,), (4, 4)]


@dataclass
class Value:
    """An SSA value of the program being written: its name, element and array."""

    name: str
    elem: Elem
    array: np.ndarray

    @property
    def type(self) -> str:
        return _type_text(self.array.shape, self.elem.type)


class Writer:
    """The lines of ``@main``'s ops, with fresh value names."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.count = 0

    def op(self, text: str, elem: Elem, array: np.ndarray) -> Value:
        name = f"%{self.count}"
        self.count += 1
        self.lines.append(f"    {name} = {text}")
        return Value(name, elem, np.asarray(array).astype(elem.dtype))


def _values(rng: np.random.Generator, shape: tuple[int, ...], elem: Elem) -> np.ndarray:
    """Multiples of 1/4 in [-4, 4] (exact in every float type), or small integers."""
    if elem.dtype.kind == "i":
        return rng.integers(-20, 21, size=shape).astype(elem.dtype)
    return (rng.integers(-16, 17, size=shape) / 4).astype(elem.dtype)


def _f64(v: Value) -> np.ndarray:
    return v.array.astype(np.float64)


# Each op: (writer, rng, operands) -> result; operands are made to fit by the caller.
UNARY: dict[str, Callable[[np.ndarray], np.ndarray]] = {
    "abs": np.abs,
    "negate": np.negative,
    "exponential": np.exp,
    "tanh": np.tanh,
}
BINARY: dict[str, Callable[[np.ndarray, np.ndarray], np.ndarray]] = {
    "add": np.add,
    "subtract": np.subtract,
    "multiply": np.multiply,
    "maximum": np.maximum,
    "minimum": np.minimum,
}


def _unary(w: Writer, rng: np.random.Generator, x: Value) -> Value:
    names = ["abs", "negate"] if x.elem.dtype.kind == "i" else list(UNARY)
    name = names[rng.integers(len(names))]
    return w.op(f"stablehlo.{name} {x.name} : {x.type}", x.elem, UNARY[name](_f64(x)))


def _binary(w: Writer, rng: np.random.Generator, x: Value, y: Value) -> Value:
    name = list(BINARY)[rng.integers(len(BINARY))]
    want = BINARY[name](_f64(x), _f64(y))
    return w.op(f"stablehlo.{name} {x.name}, {y.name} : {x.type}", x.elem, want)


def _dot(w: Writer, x: Value, y: Value) -> Value:
    m, n = x.array.shape[0], y.array.shape[1]
    out = _type_text((m, n), x.elem.type)
    text = (
        f"stablehlo.dot_general {x.name}, {y.name}, contracting_dims = [1] x [0] : "
        f"({x.type}, {y.type}) -> {out}"
    )
    return w.op(text, x.elem, _f64(x) @ _f64(y))


def _reduce(w: Writer, rng: np.random.Generator, x: Value, init: Value) -> Value:
    dim = int(rng.integers(x.array.ndim))
    combiner, fn = ("add", np.sum) if rng.random() < 0.6 else ("maximum", np.max)
    shape = tuple(d for i, d in enumerate(x.array.shape) if i != dim)
    scalar = _type_text((), x.elem.type)
    out = _type_text(shape, x.elem.type)
    text = (
        f"stablehlo.reduce({x.name} init: {init.name}) applies stablehlo.{combiner} across "
        f"dimensions = [{dim}] : ({x.type}, {scalar}) -> {out}"
    )
    # the init value takes part once per result element (spec "reduce")
    inits = np.full((*x.array.shape[:dim], 1, *x.array.shape[dim + 1 :]), _f64(init))
    want = fn(np.concatenate([_f64(x), inits], axis=dim), axis=dim)
    return w.op(text, x.elem, want)


def _broadcast(w: Writer, x: Value, rows: int) -> Value:
    n = x.array.shape[0]
    out = _type_text((rows, n), x.elem.type)
    text = f"stablehlo.broadcast_in_dim {x.name}, dims = [1] : ({x.type}) -> {out}"
    return w.op(text, x.elem, np.broadcast_to(_f64(x), (rows, n)))


def _transpose(w: Writer, x: Value) -> Value:
    perm = list(reversed(range(x.array.ndim)))
    out = _type_text(tuple(x.array.shape[p] for p in perm), x.elem.type)
    text = f"stablehlo.transpose {x.name}, dims = {perm} : ({x.type}) -> {out}"
    return w.op(text, x.elem, np.transpose(_f64(x), perm))


def _compare_select(w: Writer, rng: np.random.Generator, x: Value, y: Value) -> Value:
    direction, fn = [("GT", np.greater), ("LT", np.less), ("EQ", np.equal)][rng.integers(3)]
    kind = "SIGNED" if x.elem.dtype.kind == "i" else "FLOAT"
    pred_t = _type_text(x.array.shape, I1.type)
    pred = w.op(
        f"stablehlo.compare {direction}, {x.name}, {y.name}, {kind} : "
        f"({x.type}, {x.type}) -> {pred_t}",
        I1,
        fn(x.array, y.array),
    )
    if rng.random() < 0.3:
        return pred  # the comparison itself is the result
    text = f"stablehlo.select {pred.name}, {x.name}, {y.name} : {pred_t}, {x.type}"
    return w.op(text, x.elem, np.where(pred.array, _f64(x), _f64(y)))


def _convert(w: Writer, rng: np.random.Generator, x: Value) -> Value:
    to = ["f32", "f64", "f16", "bf16", "i32"]
    to.remove(next(k for k, e in ELEMS.items() if e is x.elem))
    elem = ELEMS[to[rng.integers(len(to))]]
    out = _type_text(x.array.shape, elem.type)
    # float to integer truncates toward zero (spec "convert"), as NumPy's astype does
    want = np.trunc(_f64(x)) if elem.dtype.kind == "i" else _f64(x)
    return w.op(f"stablehlo.convert {x.name} : ({x.type}) -> {out}", elem, want)


KINDS = ["unary", "binary", "dot_general", "reduce", "broadcast", "transpose", "compare"]
KINDS += ["convert"]


def program(seed: int) -> str:
    """One module like a JAX test program: constant inputs, one or two ops, a check."""
    rng = np.random.default_rng(seed)
    keys = list(WEIGHTS)
    p = np.array([WEIGHTS[k] for k in keys])
    elem = ELEMS[keys[rng.choice(len(keys), p=p / p.sum())]]
    kind = KINDS[rng.integers(len(KINDS))]
    shape = SHAPES[rng.integers(len(SHAPES))]
    if kind == "dot_general":
        m, k, n = (int(v) for v in rng.integers(2, 9, size=3))
        shapes = [(m, k), (k, n)]
    elif kind in ("binary", "compare"):
        shapes = [shape, shape]
    elif kind == "reduce":
        shapes = [shape, ()]
    elif kind == "broadcast":
        shapes = [(shape[-1],)]
    else:
        shapes = [shape]
    args = [_values(rng, s, elem) for s in shapes]
    if kind == "reduce":
        args[1] = np.zeros((), elem.dtype)  # the init value
    w = Writer()
    w.count = 1  # %0: the inputs' call
    ins = [Value(f"%0#{i}" if len(args) > 1 else "%0", elem, a) for i, a in enumerate(args)]
    if kind == "unary":
        r = _unary(w, rng, ins[0])
    elif kind == "binary":
        r = _binary(w, rng, ins[0], ins[1])
    elif kind == "dot_general":
        r = _dot(w, ins[0], ins[1])
    elif kind == "reduce":
        r = _reduce(w, rng, ins[0], ins[1])
    elif kind == "broadcast":
        r = _broadcast(w, ins[0], int(rng.integers(2, 5)))
    elif kind == "transpose":
        r = _transpose(w, ins[0])
    elif kind == "compare":
        r = _compare_select(w, rng, ins[0], ins[1])
    else:
        r = _convert(w, rng, ins[0])
    if rng.random() < 0.4 and r.elem is not I1:  # a second op on the first one's result
        r = _unary(w, rng, r) if rng.random() < 0.7 else _convert(w, rng, r)
    return _module(seed, w, ins, r, rng)


def _module(seed: int, w: Writer, ins: list[Value], r: Value, rng: np.random.Generator) -> str:
    in_types = ", ".join(v.type for v in ins)
    csts = [f"    %c{i} = stablehlo.constant dense<{_literal(v.array, v.elem.type)}> : {v.type}" for i, v in enumerate(ins)]  # fmt: skip
    names = ", ".join(f"%c{i}" for i in range(len(ins)))
    want = _literal(r.array, r.elem.type)
    tol = None
    if r.elem.rel_tol is not None:
        scale = max(1.0, float(np.max(np.abs(r.array.astype(np.float64)), initial=0.0)))
        tol = f"{r.elem.rel_tol * scale:.3e}"
    expected_fn = ""
    if rng.random() < 0.5:  # against a constant
        if tol is None:
            check = f"    check.expect_eq_const {r.name}, dense<{want}> : {r.type}"
        else:
            check = f"    check.expect_almost_eq_const {r.name}, dense<{want}> : {r.type}, tolerance = {tol}"  # fmt: skip
        lines = [*w.lines, check]
    else:  # against @expected's result
        e = f"%{w.count}"
        call = f"    {e} = call @expected() : () -> {r.type}"
        if tol is None:
            check = f"    check.expect_eq {r.name}, {e} : {r.type}"
        else:
            check = f"    check.expect_almost_eq {r.name}, {e}, tolerance = {tol} : f64 : {r.type}"
        lines = [*w.lines, call, check]
        expected_fn = f"""
  func.func private @expected() -> {r.type} {{
    %cst = stablehlo.constant dense<{want}> : {r.type}
    return %cst : {r.type}
  }}"""
    body = "\n".join(lines)
    return f"""// generated by benchmarks/oneshot_gen.py (seed {seed})
module @jit_testcase attributes {{mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32}} {{
  func.func public @main() -> ({r.type} {{jax.result_info = ""}}) {{
    %0{":" + str(len(ins)) if len(ins) > 1 else ""} = call @inputs() : () -> ({in_types})
{body}
    return {r.name} : {r.type}
  }}
  func.func private @inputs() -> ({in_types}) {{
{chr(10).join(csts)}
    return {names} : {in_types}
  }}{expected_fn}
}}
"""


def programs(count: int = 500, seed: int = 0) -> list[str]:
    return [program(seed * 100_003 + i) for i in range(count)]
