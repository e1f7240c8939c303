"""The execution plan (engine/interpreter.py): fast elementwise ops, liveness, buffer
reuse, profile, limits and ``engine.compile``.

Behaviour only, never timing.  Expected values come from NumPy written here (exact
IEEE operations, or float64 then one rounding), from the elementwise kernels (the fast
ufunc table must agree with them bit for bit), or from plain arithmetic.
"""

from __future__ import annotations

import gc
import tracemalloc
import weakref

import numpy as np
import pytest

from hlorun import engine
from hlorun.engine import plan as P
from hlorun.engine.cli import main as cli_main
from hlorun.engine.interpreter import Interpreter, Limits, Profile
from hlorun.engine.parallel import set_workers
from hlorun.parser import parse_module
from hlorun.parser.errors import InterpreterError
from hlorun.shape_inference.optable import OP_TABLE

BIG = 8192  # >= INPLACE_MIN_ELEMENTS: results may reuse a dying operand's buffer
assert BIG >= P.INPLACE_MIN_ELEMENTS

TYPES = {
    "i1": np.bool_,
    "i8": np.int8,
    "i32": np.int32,
    "ui16": np.uint16,
    "i64": np.int64,
    "ui64": np.uint64,
    "f32": np.float32,
    "f64": np.float64,
}
KIND = {
    "i1": "b",
    "i8": "i",
    "i32": "i",
    "i64": "i",
    "ui16": "u",
    "ui64": "u",
    "f32": "f",
    "f64": "f",
}
UNARY = {
    "negate",
    "abs",
    "sqrt",
    "floor",
    "ceil",
    "round_nearest_even",
    "not",
    "exponential",
    "exponential_minus_one",
    "log",
    "log_plus_one",
    "tanh",
    "sine",
    "cosine",
    "tan",
    "cbrt",
}


def values(ty: str, n: int, seed: int) -> np.ndarray:
    """Random values of ``ty`` with the special ones first (extremes, zeros, NaN...)."""
    rng = np.random.default_rng(seed)
    dt = np.dtype(TYPES[ty])
    if dt.kind == "b":
        return rng.integers(0, 2, n).astype(bool)
    if dt.kind in "iu":
        info = np.iinfo(dt)
        special = [info.min, info.max, 0, 1, info.max - 1, info.min + 1]
        if dt.kind == "i":
            special += [-1, -2]
        x = rng.integers(info.min, info.max, n, dtype=dt, endpoint=True)
    else:
        special = [np.nan, -np.nan, np.inf, -np.inf, 0.0, -0.0, 1.0, -1.0, 0.5, 1e-40, 3e38]
        x = (rng.standard_normal(n) * 10.0 ** rng.integers(-3, 4, n)).astype(dt)
    with np.errstate(invalid="ignore"):
        x[: min(n, len(special))] = np.array(special[:n]).astype(dt)
    return x


def same(x: np.ndarray, y: np.ndarray) -> bool:
    """Equal dtype, shape and bits."""
    x, y = np.asarray(x), np.asarray(y)
    if x.dtype != y.dtype or x.shape != y.shape:
        return False
    if x.dtype.kind == "f":
        return np.array_equal(x.view(f"u{x.dtype.itemsize}"), y.view(f"u{y.dtype.itemsize}"))
    return np.array_equal(x, y)


def run_both(text: str, inputs: list[np.ndarray]) -> tuple[list, list]:
    """Results with the fast table + buffer reuse, and with every op calling its kernel."""
    mod = parse_module(text)
    fast = Interpreter(mod).call("main", [a.copy() for a in inputs])
    slow = Interpreter(mod, fast_ops=False, inplace=False).call("main", [a.copy() for a in inputs])
    return list(fast), list(slow)


def tensor(ty: str, n: int | None) -> str:
    return f"tensor<{ty}>" if n is None else f"tensor<{n}x{ty}>"


def fresh(ty: str, arg: str, t: str) -> tuple[str, str]:
    """Lines computing a fresh array equal to ``arg`` (so the next op may reuse it)."""
    op = "not" if ty == "i1" else "negate"
    return (f"  %f0 = stablehlo.{op} {arg} : {t}\n  %f1 = stablehlo.{op} %f0 : {t}\n", "%f1")


FAST_CASES = [
    (name.split(".")[1], ty)
    for name, row in OP_TABLE.items()
    if row.ufunc is not None
    for ty in TYPES
    if KIND[ty] in row.ufunc.fast
]


@pytest.mark.parametrize("n", [None, 5, BIG])
@pytest.mark.parametrize(("op", "ty"), FAST_CASES, ids=[f"{o}-{t}" for o, t in FAST_CASES])
def test_fast_ops_equal_the_elementwise_kernels(op, ty, n):
    t = tensor(ty, n)
    pre, x = fresh(ty, "%a", t)
    if op in UNARY:
        body = f"  %r = stablehlo.{op} {x} : {t}\n"
    else:
        body = f"  %r = stablehlo.{op} {x}, %b : {t}\n"
    text = f"func.func @main(%a: {t}, %b: {t}) -> {t} {{\n{pre}{body}  func.return %r : {t}\n}}"
    size = 1 if n is None else n
    shape = () if n is None else (n,)
    a = values(ty, size, 1).reshape(shape)
    b = values(ty, size, 2).reshape(shape)
    if op in ("divide", "remainder") and KIND[ty] in "iu":
        b[b == 0] = 1
    (fast,), (slow,) = run_both(text, [a, b])
    assert isinstance(fast, np.ndarray)
    assert same(fast, slow), (op, ty, n)


@pytest.mark.parametrize("n", [None, 5, BIG])
@pytest.mark.parametrize("ty", ["f32", "f64"])
@pytest.mark.parametrize("op", ["maximum", "minimum"])
def test_fast_float_max_min_equal_the_kernels(op, ty, n):
    """The fast float maximum/minimum (NaN propagates, -0 < +0) against the kernel, on
    every pair of signed zeros, NaNs and infinities, both ways round."""
    t = tensor(ty, n)
    text = f"""func.func @main(%a: {t}, %b: {t}) -> ({t}, {t}) {{
  %r = stablehlo.{op} %a, %b : {t}
  %s = stablehlo.{op} %b, %a : {t}
  func.return %r, %s : {t}, {t}
}}"""
    special = np.array([0.0, -0.0, np.nan, np.inf, -np.inf, 1.0, -1.0], TYPES[ty])
    pairs = [(x, y) for x in special for y in special]
    size = 1 if n is None else n
    shape = () if n is None else (n,)
    a = values(ty, size, 5)
    b = values(ty, size, 6)
    cases = [(a.reshape(shape), b.reshape(shape))]
    if n is None:
        cases += [(np.array(x), np.array(y)) for x, y in pairs]
    else:
        k = min(size, len(pairs))
        a[:k] = [x for x, _ in pairs[:k]]
        b[:k] = [y for _, y in pairs[:k]]
    for x, y in cases:
        fast, slow = run_both(text, [x, y])
        for f, s_ in zip(fast, slow):
            assert same(f, s_), (op, ty, x, y)


@pytest.mark.parametrize("n", [None, BIG])
@pytest.mark.parametrize("dst", list(TYPES))
@pytest.mark.parametrize("src", list(TYPES))
def test_fast_convert_equals_the_kernel(src, dst, n):
    ts, td = tensor(src, n), tensor(dst, n)
    text = f"""func.func @main(%a: {ts}) -> {td} {{
  %r = stablehlo.convert %a : ({ts}) -> {td}
  func.return %r : {td}
}}"""
    size = 1 if n is None else n
    shape = () if n is None else (n,)
    for seed in (7, 8):
        a = values(src, size, seed).reshape(shape)
        if n is None and seed == 8:
            a = values(src, 12, 9)[np.array([4])].reshape(())  # a special value
        (fast,), (slow,) = run_both(text, [a])
        assert same(fast, slow), (src, dst, a)


def test_fast_reshape_equals_the_kernel():
    text = """func.func @main(%a: tensor<2x3xf32>) -> (tensor<3x2xf32>, tensor<6xf32>, tensor<f32>) {
  %r = stablehlo.reshape %a : (tensor<2x3xf32>) -> tensor<3x2xf32>
  %s = stablehlo.reshape %r : (tensor<3x2xf32>) -> tensor<6xf32>
  %t = stablehlo.slice %s [4:5] : (tensor<6xf32>) -> tensor<1xf32>
  %u = stablehlo.reshape %t : (tensor<1xf32>) -> tensor<f32>
  func.return %r, %s, %u : tensor<3x2xf32>, tensor<6xf32>, tensor<f32>
}"""
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    fast, slow = run_both(text, [a])
    for f, s_ in zip(fast, slow):
        assert same(f, s_)
    assert same(fast[0], a.reshape(3, 2)) and same(fast[2], np.array(4, np.float32))


COMPARE_TYPES = {"b": "UNSIGNED", "i": "SIGNED", "u": "UNSIGNED", "f": "FLOAT"}


@pytest.mark.parametrize("n", [None, BIG])
@pytest.mark.parametrize("ty", list(TYPES))
@pytest.mark.parametrize("direction", ["EQ", "NE", "LT", "LE", "GT", "GE"])
def test_fast_compare_and_select_equal_the_kernels(direction, ty, n):
    t = tensor(ty, n)
    p = tensor("i1", n)
    text = f"""func.func @main(%a: {t}, %b: {t}) -> ({p}, {t}, {t}) {{
  %c = stablehlo.compare {direction}, %a, %b, {COMPARE_TYPES[KIND[ty]]} : ({t}, {t}) -> {p}
  %s = stablehlo.select %c, %a, %b : {p}, {t}
  %z = stablehlo.constant dense<true> : tensor<i1>
  %w = stablehlo.select %z, %b, %a : tensor<i1>, {t}
  func.return %c, %s, %w : {p}, {t}, {t}
}}"""
    size = 1 if n is None else n
    shape = () if n is None else (n,)
    a = values(ty, size, 3).reshape(shape)
    b = values(ty, size, 4).reshape(shape)
    if size > 8:
        b[::3] = a[::3]  # equal pairs too
    fast, slow = run_both(text, [a, b])
    for x, y in zip(fast, slow):
        assert same(x, y)
    assert same(fast[2], b)


# ---------------------------------------------------------------------- buffer reuse
CHAIN = """func.func @main(%a: tensor<{n}xf32>, %b: tensor<{n}xf32>) -> tensor<{n}xf32> {{
  %0 = stablehlo.add %a, %b : tensor<{n}xf32>
  %1 = stablehlo.multiply %0, %a : tensor<{n}xf32>
  %2 = stablehlo.subtract %1, %b : tensor<{n}xf32>
  %3 = stablehlo.abs %2 : tensor<{n}xf32>
  %4 = stablehlo.sqrt %3 : tensor<{n}xf32>
  %5 = stablehlo.negate %4 : tensor<{n}xf32>
  %6 = stablehlo.exponential %5 : tensor<{n}xf32>
  %7 = stablehlo.divide %6, %b : tensor<{n}xf32>
  %8 = stablehlo.multiply %7, %7 : tensor<{n}xf32>
  %9 = stablehlo.add %8, %a : tensor<{n}xf32>
  func.return %9 : tensor<{n}xf32>
}}"""


def chain_reference(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    x = (a + b) * a - b
    x = -np.sqrt(np.abs(x))
    x = np.exp(x.astype(np.float64)).astype(np.float32)  # computed in f64, rounded once
    x = x / b
    return x * x + a


def test_chain_with_buffer_reuse_equals_numpy():
    n = 50_000
    rng = np.random.default_rng(0)
    a = rng.standard_normal(n).astype(np.float32)
    b = (rng.standard_normal(n) + 3).astype(np.float32)
    a0, b0 = a.copy(), b.copy()
    prog = engine.compile(CHAIN.format(n=n))
    for _ in range(2):
        (r,) = prog(a, b)
        assert same(r, chain_reference(a0, b0))
        assert same(a, a0) and same(b, b0)  # inputs never written


def data_pointers(text: str, inputs: list, **kw) -> list[int]:
    ptrs: list[int] = []

    def cb(name, pos, vals):
        ptrs.append(vals[0].__array_interface__["data"][0])

    engine.run(text, inputs, callback=cb, **kw)
    return ptrs


def test_dying_operands_buffers_are_reused_and_only_then():
    n = BIG
    text = CHAIN.format(n=n)
    a = np.ones(n, np.float32)
    b = np.full(n, 2.0, np.float32)
    ptrs = data_pointers(text, [a, b])
    # %1 = multiply %0, %a writes into %0's buffer (nobody else can see it) ...
    assert ptrs[1] == ptrs[0]
    # ... and never into an input.
    inputs = {a.__array_interface__["data"][0], b.__array_interface__["data"][0]}
    assert not inputs & set(ptrs)
    # With reuse off, a result never sits in a buffer that is still alive.
    mod = parse_module(text)
    ptrs2: list[int] = []
    it = Interpreter(
        mod,
        inplace=False,
        context={"callback": lambda n_, p, v: ptrs2.append(v[0].__array_interface__["data"][0])},
    )
    it.call("main", [a, b])
    assert ptrs2[1] != ptrs2[0]


def test_constants_are_never_written_and_results_are_the_callers():
    n = BIG
    text = f"""func.func @main(%a: tensor<{n}xf32>) -> (tensor<{n}xf32>, tensor<{n}xf32>, tensor<f32>) {{
  %c = stablehlo.constant dense<2.5> : tensor<{n}xf32>
  %s = stablehlo.constant dense<1.5> : tensor<f32>
  %0 = stablehlo.add %c, %a : tensor<{n}xf32>
  %1 = stablehlo.multiply %0, %0 : tensor<{n}xf32>
  func.return %1, %c, %s : tensor<{n}xf32>, tensor<{n}xf32>, tensor<f32>
}}"""
    a = np.arange(n, dtype=np.float32)
    prog = engine.compile(text)
    r1, c1, s1 = prog(a)
    c1 += 1  # the caller's copy: writing it must not change the program's constant
    s1 += 1
    r2, c2, s2 = prog(a)
    expected = (np.float32(2.5) + a) * (np.float32(2.5) + a)
    assert same(r1, expected) and same(r2, expected)
    assert same(c2, np.full(n, 2.5, np.float32)) and same(s2, np.float32(1.5))
    assert same(a, np.arange(n, dtype=np.float32))


def test_aliases_of_a_dying_value_keep_their_values():
    n = BIG
    t = f"tensor<{n}xf32>"
    text = f"""func.func @main(%a: {t}, %b: {t}) -> ({t}, tensor<2x{n // 2}xf32>, {t}, {t}, {t}) {{
  %t = stablehlo.negate %a : {t}
  %v = stablehlo.reshape %t : ({t}) -> tensor<2x{n // 2}xf32>
  %tup = stablehlo.tuple %t, %b : tuple<{t}, {t}>
  %o:2 = stablehlo.optimization_barrier %t, %b : {t}, {t}
  %u = stablehlo.add %t, %b : {t}
  %g = stablehlo.get_tuple_element %tup[0] : (tuple<{t}, {t}>) -> {t}
  %w = stablehlo.multiply %u, %b : {t}
  func.return %w, %v, %g, %o#0, %u : {t}, tensor<2x{n // 2}xf32>, {t}, {t}, {t}
}}"""
    a = np.linspace(-3, 3, n, dtype=np.float32)
    b = np.full(n, 3.0, np.float32)
    w, v, g, o, u = engine.run(text, [a, b])
    assert same(v.reshape(-1), -a) and same(g, -a) and same(o, -a)
    assert same(u, -a + b) and same(w, (-a + b) * b)


def test_loop_carried_buffers_and_regions():
    n = BIG
    t = f"tensor<{n}xf32>"
    text = f"""func.func @main(%x: {t}) -> ({t}, tensor<f32>) {{
  %c0 = stablehlo.constant dense<0> : tensor<i32>
  %c1 = stablehlo.constant dense<1> : tensor<i32>
  %c4 = stablehlo.constant dense<4> : tensor<i32>
  %half = stablehlo.constant dense<0.5> : {t}
  %r:2 = stablehlo.while(%i = %c0, %v = %x) : tensor<i32>, {t}
   cond {{
    %p = stablehlo.compare LT, %i, %c4, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %p : tensor<i1>
  }} do {{
    %j = stablehlo.add %i, %c1 : tensor<i32>
    %w = stablehlo.add %v, %v : {t}
    %y = stablehlo.multiply %w, %half : {t}
    %z = stablehlo.add %y, %v : {t}
    stablehlo.return %j, %z : tensor<i32>, {t}
  }}
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %s = stablehlo.reduce(%r#1 init: %zero) applies stablehlo.add across dimensions = [0] : ({t}, tensor<f32>) -> tensor<f32>
  func.return %r#1, %s : {t}, tensor<f32>
}}"""
    x = np.arange(n, dtype=np.float32) / 64
    x0 = x.copy()
    v, s = engine.run(text, [x])
    expected = x0 * 16  # (2v * 0.5 + v) four times: exact in f32 for these values
    assert same(v, expected)
    assert s.shape == () and s.dtype == np.float32
    assert float(s) == pytest.approx(float(expected.astype(np.float64).sum()), rel=1e-5)
    assert same(x, x0)


def test_kernels_with_an_out_parameter_get_a_dying_buffer():
    from hlorun.shape_inference.optable import OP_TABLE, define_op, register_kernel

    name = "hlorun_test.plan_twice"
    got: list[bool] = []
    if name not in OP_TABLE:
        define_op(name, lambda ctx, t: t)

        def twice(x, *, result_type, out=None):
            got.append(out is not None)
            return np.multiply(x, np.float32(2), out=out)

        register_kernel(name, twice)
    else:
        got = OP_TABLE[name].kernel.__closure__[0].cell_contents  # pragma: no cover
    t = f"tensor<{BIG}xf32>"
    text = f"""func.func @main(%a: {t}) -> ({t}, {t}) {{
  %0 = stablehlo.negate %a : {t}
  %1 = "{name}"(%0) : ({t}) -> {t}
  %2 = "{name}"(%a) : ({t}) -> {t}
  func.return %1, %2 : {t}, {t}
}}"""
    a = np.arange(BIG, dtype=np.float32)
    r1, r2 = engine.run(text, [a])
    assert same(r1, -a * 2) and same(r2, a * 2) and same(a, np.arange(BIG, dtype=np.float32))
    assert got == [True, False]  # the input is never handed out


def test_two_threads_give_identical_results(monkeypatch):
    n = 40_000
    rng = np.random.default_rng(5)
    a = rng.standard_normal(n).astype(np.float32)
    b = (rng.standard_normal(n) + 3).astype(np.float32)
    monkeypatch.setattr(P, "PARALLEL_MIN_ELEMENTS", 1 << 12)
    old = set_workers(2)
    try:
        (r,) = engine.run(CHAIN.format(n=n), [a, b])
    finally:
        set_workers(old)
    assert same(r, chain_reference(a, b))


@pytest.mark.parametrize("ty", ["f32", "f64"])
@pytest.mark.parametrize(
    "op", ["exponential", "tanh", "log", "sine", "cbrt", "exponential_minus_one", "sqrt"]
)
def test_split_unary_ops_equal_one_thread(monkeypatch, op, ty):
    """An op split over threads (pieces of 4096+ elements, odd total) gives the bits of
    the whole op on one thread, for ops computed natively and via f64."""
    n = 3 * 4096 + 77
    rng = np.random.default_rng(6)
    x = np.abs(rng.standard_normal(n) * 4).astype(ty.replace("f", "float"))
    for k, v in enumerate([0.0, -0.0, np.inf, np.nan, 1e-38, 88.5, 700.0]):
        x[k::97] = v
    t = f"tensor<{n}x{ty}>"
    text = f"""func.func @main(%a: {t}) -> {t} {{
  %0 = stablehlo.{op} %a : {t}
  %1 = stablehlo.{op} %0 : {t}
  func.return %1 : {t}
}}"""
    monkeypatch.setattr(P, "PARALLEL_MIN_ELEMENTS", 4096)
    outs = []
    for threads in (1, 2, 3):
        old = set_workers(threads)
        try:
            outs.append(engine.run(text, [x])[0])
        finally:
            set_workers(old)
    monkeypatch.setattr(P, "PARALLEL_MIN_ELEMENTS", None)
    (whole,) = engine.run(text, [x])
    for r in outs:
        assert same(r, whole)


# ---------------------------------------------------------------------- liveness
def test_slots_are_released_after_their_last_use():
    n = BIG
    t = f"tensor<{n}xf32>"
    lines = [f"func.func @main(%a: {t}) -> {t} {{", f"  %0 = stablehlo.negate %a : {t}"]
    lines += [f"  %{i} = stablehlo.negate %{i - 1} : {t}" for i in range(1, 8)]
    lines += [f"  func.return %7 : {t}", "}"]
    mod = parse_module("\n".join(lines))
    refs: list[weakref.ref] = []
    alive_at: list[list[bool]] = []

    def cb(name, pos, vals):
        refs.append(weakref.ref(vals[0]))
        alive_at.append([r() is not None for r in refs])

    it = Interpreter(mod, inplace=False, context={"callback": cb})
    it.call("main", [np.ones(n, np.float32)])
    # When op k has run, results 0..k-1 are gone: op k was the last use of result k-1.
    for k, alive in enumerate(alive_at):
        assert alive == [False] * k + [True], (k, alive)


def test_values_read_by_regions_live_until_the_region_op_ends():
    text = """func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %big = stablehlo.negate %x : tensor<4xf32>
  %c0 = stablehlo.constant dense<0> : tensor<i32>
  %c1 = stablehlo.constant dense<1> : tensor<i32>
  %c3 = stablehlo.constant dense<3> : tensor<i32>
  %r:2 = stablehlo.while(%i = %c0, %v = %x) : tensor<i32>, tensor<4xf32>
   cond {
    %p = stablehlo.compare LT, %i, %c3, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %p : tensor<i1>
  } do {
    %j = stablehlo.add %i, %c1 : tensor<i32>
    %w = stablehlo.add %v, %big : tensor<4xf32>
    stablehlo.return %j, %w : tensor<i32>, tensor<4xf32>
  }
  func.return %r#1 : tensor<4xf32>
}"""
    x = np.array([1, 2, 3, 4], np.float32)
    (r,) = engine.run(text, [x])
    assert same(r, x - 3 * x)


def test_peak_memory_stays_near_the_largest_live_set():
    n = 200_000  # 800 kB per tensor
    text = CHAIN.format(n=n)
    a = np.ones(n, np.float32)
    b = np.full(n, 2.0, np.float32)
    prog = engine.compile(text)
    gc.collect()
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        (r,) = prog(a, b)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    # Live at once: the result plus one temporary (exponential's f64 scratch is 2x).
    assert peak <= 4 * a.nbytes, peak / a.nbytes


# ---------------------------------------------------------------------- 0-d values
def test_0d_values_reach_kernels_callers_and_callbacks_as_arrays():
    seen: list[object] = []

    def target(x, result_types):
        seen.append(x)
        return x

    engine.register_custom_call("hlorun_test_plan_identity", target, replace=True)
    text = """func.func @main(%a: tensor<f32>, %n: tensor<i32>) -> (tensor<f32>, tensor<i32>, tensor<f32>) {
  %c = stablehlo.constant dense<2.0> : tensor<f32>
  %0 = stablehlo.multiply %a, %c : tensor<f32>
  %1 = stablehlo.custom_call @hlorun_test_plan_identity(%0) : (tensor<f32>) -> tensor<f32>
  %c0 = stablehlo.constant dense<0> : tensor<i32>
  %c1 = stablehlo.constant dense<1> : tensor<i32>
  %r = stablehlo.while(%i = %c0) : tensor<i32>
   cond {
    %p = stablehlo.compare LT, %i, %n, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %p : tensor<i1>
  } do {
    %j = stablehlo.add %i, %c1 : tensor<i32>
    stablehlo.return %j : tensor<i32>
  }
  func.return %1, %r, %c : tensor<f32>, tensor<i32>, tensor<f32>
}"""
    cb_values: list[object] = []
    out = engine.run(
        text, [np.float32(1.5), np.int32(7)], callback=lambda n, p, v: cb_values.extend(v)
    )
    assert [type(v) for v in out] == [np.ndarray] * 3
    assert out[0].dtype == np.float32 and float(out[0]) == 3.0
    assert out[1].dtype == np.int32 and int(out[1]) == 7
    assert out[2].dtype == np.float32 and float(out[2]) == 2.0
    assert all(type(v) is np.ndarray for v in seen + cb_values)


def test_integer_scalar_arithmetic_wraps():
    text = """func.func @main(%a: tensor<i32>, %b: tensor<ui8>) -> (tensor<i32>, tensor<ui8>, tensor<i32>) {
  %0 = stablehlo.add %a, %a : tensor<i32>
  %1 = stablehlo.subtract %b, %b : tensor<ui8>
  %c = stablehlo.constant dense<1> : tensor<ui8>
  %2 = stablehlo.subtract %1, %c : tensor<ui8>
  %3 = stablehlo.negate %a : tensor<i32>
  %4 = stablehlo.multiply %3, %3 : tensor<i32>
  func.return %0, %2, %4 : tensor<i32>, tensor<ui8>, tensor<i32>
}"""
    big = np.int32(2**31 - 1)
    x, y, z = engine.run(text, [big, np.uint8(7)])
    assert int(x) == -2 and x.dtype == np.int32
    assert int(y) == 255 and y.dtype == np.uint8
    assert int(z) == (2**31 - 1) ** 2 % 2**32 - (2**32 if (2**31 - 1) ** 2 % 2**32 >= 2**31 else 0)


# ---------------------------------------------------------------------- profile
def test_profile_has_every_op_kind():
    prof = Profile()
    n = BIG
    engine.run(CHAIN.format(n=n), [np.ones(n, np.float32), np.ones(n, np.float32)], profile=prof)
    kinds = {
        f"stablehlo.{k}"
        for k in ("add", "multiply", "subtract", "abs", "sqrt", "negate", "exponential", "divide")
    }
    assert kinds <= set(prof.ops)
    assert prof.ops["stablehlo.add"].count == 2
    assert prof.ops["stablehlo.add"].bytes == 2 * n * 4
    table = prof.table()
    assert all(k in table for k in kinds)


def test_profile_counts_nested_ops_once(tmp_path, capsys):
    text = """func.func @main() -> tensor<i32> {
  %c0 = stablehlo.constant dense<0> : tensor<i32>
  %c1 = stablehlo.constant dense<1> : tensor<i32>
  %c5 = stablehlo.constant dense<5> : tensor<i32>
  %r = stablehlo.while(%i = %c0) : tensor<i32>
   cond {
    %p = stablehlo.compare LT, %i, %c5, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %p : tensor<i1>
  } do {
    %j = stablehlo.add %i, %c1 : tensor<i32>
    stablehlo.return %j : tensor<i32>
  }
  func.return %r : tensor<i32>
}"""
    prof = Profile()
    (r,) = engine.run(text, [], profile=prof)
    assert int(r) == 5
    assert prof.ops["stablehlo.add"].count == 5
    assert prof.ops["stablehlo.compare"].count == 6
    w = prof.ops["stablehlo.while"]
    assert w.count == 1 and w.seconds <= w.total
    path = tmp_path / "w.mlir"
    path.write_text(text)
    assert cli_main(["interpret", "--profile", str(path)]) == 0
    err = capsys.readouterr().err
    for k in ("stablehlo.while", "stablehlo.add", "stablehlo.compare", "total"):
        assert k in err


def test_run_profile_true_prints_a_table(capsys):
    engine.run(CHAIN.format(n=4), [np.ones(4, np.float32)] * 2, profile=True)
    assert "stablehlo.exponential" in capsys.readouterr().err


# ---------------------------------------------------------------------- limits
INFINITE = """func.func @main() -> tensor<i32> {
  %c0 = stablehlo.constant dense<0> : tensor<i32>
  %r = stablehlo.while(%i = %c0) : tensor<i32>
   cond {
    %p = stablehlo.compare GE, %i, %c0, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %p : tensor<i1>
  } do {
    stablehlo.return %i : tensor<i32>
  }
  func.return %r : tensor<i32>
}"""


def test_step_and_time_limits_stop_loops():
    with pytest.raises(InterpreterError, match="step limit of 1000 ops exceeded") as e:
        engine.run(INFINITE, [], max_steps=1000)
    assert e.value.op == "stablehlo.while" and e.value.pos is not None
    with pytest.raises(InterpreterError, match="time limit"):
        engine.run(INFINITE, [], timeout=0.05)


def test_step_limit_in_straight_line_code():
    text = CHAIN.format(n=4)
    a = np.ones(4, np.float32)
    engine.run(text, [a, a], max_steps=10)
    with pytest.raises(InterpreterError, match="step limit of 9 ops") as e:
        engine.run(text, [a, a], max_steps=9)
    assert e.value.op == "stablehlo.add" and e.value.pos.line == 11


def test_memory_cap_names_the_op():
    text = """func.func @main(%a: tensor<f32>) -> tensor<1000x1000xf32> {
  %0 = stablehlo.negate %a : tensor<f32>
  %1 = stablehlo.broadcast_in_dim %0, dims = [] : (tensor<f32>) -> tensor<1000x1000xf32>
  func.return %1 : tensor<1000x1000xf32>
}"""
    with pytest.raises(InterpreterError, match="memory cap") as e:
        engine.run(text, [np.float32(1)], memory_cap=1 << 20)
    assert e.value.op == "stablehlo.broadcast_in_dim" and e.value.pos.line == 3
    (r,) = engine.run(text, [np.float32(1)], memory_cap=1 << 23)
    assert r.shape == (1000, 1000)


def test_callback_sees_every_op_including_constants():
    seen: list[str] = []
    engine.run(INFINITE.replace("GE", "LT"), [], callback=lambda n, p, v: seen.append(n))
    assert seen == ["stablehlo.constant", "stablehlo.compare", "stablehlo.while"]


def test_kernel_errors_name_the_op_and_its_location():
    def boom(x, result_types):
        raise ValueError("no good")

    engine.register_custom_call("hlorun_test_plan_boom", boom, replace=True)
    text = """func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {
  %0 = stablehlo.add %a, %a : tensor<2xf32>
  %1 = stablehlo.custom_call @hlorun_test_plan_boom(%0) : (tensor<2xf32>) -> tensor<2xf32>
  func.return %1 : tensor<2xf32>
}"""
    with pytest.raises(InterpreterError, match="raised ValueError: no good") as e:
        engine.run(text, [np.ones(2, np.float32)])
    assert e.value.op == "stablehlo.custom_call" and e.value.pos.line == 3


def test_wrong_kernel_results_are_errors(monkeypatch):
    from hlorun.shape_inference.optable import OP_TABLE

    row = OP_TABLE["stablehlo.reverse"]
    monkeypatch.setattr(row, "kernel", lambda x, **kw: x.astype(np.float64))
    text = """func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {
  %0 = stablehlo.reverse %a, dims = [0] : tensor<2xf32>
  func.return %0 : tensor<2xf32>
}"""
    with pytest.raises(InterpreterError, match="internal error: kernel produced"):
        engine.run(text, [np.ones(2, np.float32)])


# ---------------------------------------------------------------------- compile
def test_compile_once_run_many():
    prog = engine.compile(CHAIN.format(n=6))
    assert isinstance(prog, engine.Program)
    rng = np.random.default_rng(1)
    for _ in range(3):
        a = rng.standard_normal(6).astype(np.float32)
        b = (rng.standard_normal(6) + 3).astype(np.float32)
        (r,) = prog(a, b)
        assert same(r, chain_reference(a, b))
    with pytest.raises(InterpreterError, match="takes 2 arguments, got 1"):
        prog(a)
    with pytest.raises(InterpreterError, match="dtype float64"):
        prog(a, b.astype(np.float64))


def test_compile_keeps_limits_per_call():
    prog = engine.compile(INFINITE, max_steps=100)
    for _ in range(2):  # the step count starts again at every call
        with pytest.raises(InterpreterError, match="step limit of 100"):
            prog()
    assert Limits().max_steps is None


# ---------------------------------------------------------------------- folding, relu
@pytest.mark.parametrize("n", [None, 5, BIG])
@pytest.mark.parametrize("ty", ["f32", "f64"])
@pytest.mark.parametrize("zero_first", [False, True])
def test_relu_equals_the_maximum_kernel(ty, n, zero_first):
    t = tensor(ty, n)
    pre, x = fresh(ty, "%a", t)
    args = f"%z, {x}" if zero_first else f"{x}, %z"
    text = f"""func.func @main(%a: {t}) -> {t} {{
  %c = stablehlo.constant dense<0.0> : tensor<{ty}>
  %z = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<{ty}>) -> {t}
{pre}  %r = stablehlo.maximum {args} : {t}
  func.return %r : {t}
}}"""
    size = 1 if n is None else n
    a = values(ty, size, 7).reshape(() if n is None else (n,))
    (fast,), (slow,) = run_both(text, [a])
    assert same(fast, slow)
    plan = Interpreter(parse_module(text)).plan("main")
    assert plan.block.steps[-1].kind == "fast"


def test_pure_ops_of_constants_are_folded_once():
    text = """func.func @main(%a: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xi32>) {
  %c = stablehlo.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
  %b = stablehlo.broadcast_in_dim %c, dims = [1] : (tensor<3xf32>) -> tensor<2x3xf32>
  %e = stablehlo.exponential %b : tensor<2x3xf32>
  %i = stablehlo.iota dim = 0 : tensor<2x3xi32>
  %r = stablehlo.add %a, %e : tensor<2x3xf32>
  func.return %r, %i : tensor<2x3xf32>, tensor<2x3xi32>
}"""
    mod = parse_module(text)
    it = Interpreter(mod)
    kinds = [st.kind for st in it.plan("main").block.steps]
    assert kinds == ["constant"] * 4 + ["fast"]
    e = np.exp(np.array([1, 2, 3], np.float64)).astype(np.float32)
    a = np.ones((2, 3), np.float32)
    for _ in range(2):
        r, i = it.call("main", [a])
        assert same(r, a + e) and same(i, np.array([[0, 0, 0], [1, 1, 1]], np.int32))
        i += 5  # the caller's copy of a folded constant
    seen: list[str] = []
    engine.run(text, [a], callback=lambda n, p, v: seen.append(n))
    assert seen == [
        "stablehlo.constant",
        "stablehlo.broadcast_in_dim",
        "stablehlo.exponential",
        "stablehlo.iota",
        "stablehlo.add",
    ]


def test_a_folded_splat_broadcast_stays_one_element():
    """broadcast_in_dim of a scalar constant folds to a stride-0 view of its one element
    (ops read it as a scalar, nothing streams a full-size copy); a bias row broadcast
    from a constant vector is made contiguous.  Results as the spec says, and a
    returned splat is the caller's own full array."""
    n = BIG
    text = f"""func.func @main(%a: tensor<2x{n}xf32>) -> (tensor<2x{n}xf32>, tensor<2x{n}xf32>) {{
  %h = stablehlo.constant dense<0.5> : tensor<f32>
  %s = stablehlo.broadcast_in_dim %h, dims = [] : (tensor<f32>) -> tensor<2x{n}xf32>
  %v = stablehlo.iota dim = 0 : tensor<{n}xf32>
  %b = stablehlo.broadcast_in_dim %v, dims = [1] : (tensor<{n}xf32>) -> tensor<2x{n}xf32>
  %m = stablehlo.multiply %a, %s : tensor<2x{n}xf32>
  %r = stablehlo.add %m, %b : tensor<2x{n}xf32>
  func.return %r, %s : tensor<2x{n}xf32>, tensor<2x{n}xf32>
}}"""
    it = Interpreter(parse_module(text))
    plan = it.plan("main")
    splat, row = (plan.consts[st.results[0]] for st in plan.block.steps[1:4:2])
    assert splat.shape == (2, n) and not any(splat.strides)
    assert row.shape == (2, n) and row.flags.c_contiguous
    a = values("f32", 2 * n, 3).reshape(2, n)
    r, s = it.call("main", [a])
    assert same(r, np.add(np.multiply(a, np.float32(0.5)), np.arange(n, dtype=np.float32)))
    assert s.shape == (2, n) and np.all(s == 0.5)
    s[0, 0] = 7  # the caller's own array
    assert it.call("main", [a])[1][0, 0] == 0.5


def test_ops_with_effects_are_never_folded():
    calls: list[int] = []
    engine.register_custom_call(
        "hlorun_test_plan_count", lambda x, result_types: (calls.append(1), x)[1], replace=True
    )
    text = """func.func @main() -> tensor<f32> {
  %c = stablehlo.constant dense<1.0> : tensor<f32>
  %0 = stablehlo.custom_call @hlorun_test_plan_count(%c) : (tensor<f32>) -> tensor<f32>
  func.return %0 : tensor<f32>
}"""
    prog = engine.compile(text)
    prog()
    prog()
    assert calls == [1, 1]


def _test_op(name: str, kernel, *, multi: bool = False) -> None:
    from hlorun.shape_inference.optable import OP_TABLE, define_op, register_kernel

    if name not in OP_TABLE:
        define_op(name, lambda ctx, *ts: None, multi_result=multi)
        register_kernel(name, kernel)


def test_views_of_private_buffers_are_reused_shared_ones_never():
    n = BIG

    def halves(x, *, result_types):  # two views of one private array
        y = np.concatenate([x, x + 1])
        return y[:n], y[n:]

    def doubled_t(x, *, result_type):  # a view (transpose) of a private array
        return (np.stack([x, x]) * 2).T[:, 0].reshape(n)

    _test_op("hlorun_test.plan_halves", halves, multi=True)
    _test_op("hlorun_test.plan_doubled_t", doubled_t)
    t = f"tensor<{n}xf32>"
    text = f"""func.func @main(%a: {t}) -> ({t}, {t}, {t}) {{
  %h:2 = "hlorun_test.plan_halves"(%a) : ({t}) -> ({t}, {t})
  %s = stablehlo.add %h#0, %a : {t}
  %d = "hlorun_test.plan_doubled_t"(%a) : ({t}) -> {t}
  %e = stablehlo.add %d, %a : {t}
  func.return %s, %h#1, %e : {t}, {t}, {t}
}}"""
    a = np.arange(n, dtype=np.float32)
    ptrs: dict[str, int] = {}

    def cb(name, pos, vals):
        ptrs[name + str(len(ptrs))] = vals[0].__array_interface__["data"][0]

    s, h1, e = engine.run(text, [a], callback=cb)
    assert same(s, a + a) and same(h1, a + 1) and same(e, a * 2 + a)
    p = list(ptrs.values())
    assert p[1] != p[0]  # %h#0 shares its array with the live %h#1: not reused
    assert p[3] == p[2]  # %d's private base is reused


def test_compile_runs_a_grid_module_on_its_grid():
    """The process grid is how a Program executes: compile and run agree."""
    text = """module attributes {mhlo.num_replicas = 2 : i32} {
  func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {
    %r = stablehlo.replica_id : tensor<ui32>
    %f = stablehlo.convert %r : (tensor<ui32>) -> tensor<f32>
    %b = stablehlo.broadcast_in_dim %f, dims = [] : (tensor<f32>) -> tensor<2xf32>
    %s = stablehlo.add %a, %b : tensor<2xf32>
    func.return %s : tensor<2xf32>
  }
}"""
    prog = engine.compile(text)
    assert prog.num_processes == 2
    x = np.ones(2, np.float32)
    got = prog(x)
    want = [[np.full(2, 1.0 + r, np.float32)] for r in range(2)]
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g[0], w[0])
    out = engine.run(text, [x])
    assert len(out) == 2
    np.testing.assert_array_equal(out[1][0], want[1][0])


def test_loop_carried_buffer_is_updated_in_place_by_an_out_kernel():
    """A kernel with ``out=`` (like a dynamic_update_slice that took one) writes into
    the loop-carried buffer: O(update) per iteration, not a copy of the buffer."""
    n = BIG
    got: list[bool] = []

    def put(buf, x, i, *, result_type, out=None):
        got.append(out is not None)
        r = out if out is not None else buf.copy()
        r[int(i)] = x
        return r

    _test_op("hlorun_test.plan_put", put)
    t = f"tensor<{n}xf32>"
    text = f"""func.func @main(%init: {t}) -> {t} {{
  %c0 = stablehlo.constant dense<0> : tensor<i32>
  %c1 = stablehlo.constant dense<1> : tensor<i32>
  %c5 = stablehlo.constant dense<5> : tensor<i32>
  %z = stablehlo.negate %init : {t}
  %r:2 = stablehlo.while(%i = %c0, %b = %z) : tensor<i32>, {t}
   cond {{
    %p = stablehlo.compare LT, %i, %c5, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %p : tensor<i1>
  }} do {{
    %x = stablehlo.convert %i : (tensor<i32>) -> tensor<f32>
    %b2 = "hlorun_test.plan_put"(%b, %x, %i) : ({t}, tensor<f32>, tensor<i32>) -> {t}
    %j = stablehlo.add %i, %c1 : tensor<i32>
    stablehlo.return %j, %b2 : tensor<i32>, {t}
  }}
  func.return %r#1 : {t}
}}"""
    init = np.full(n, -7, np.float32)
    (r,) = engine.run(text, [init])
    expected = np.full(n, 7, np.float32)
    expected[:5] = np.arange(5)
    assert same(r, expected) and same(init, np.full(n, -7, np.float32))
    assert got == [True] * 5


def test_scalar_ops_take_the_fast_path():
    """The ops the fast tests above compare really skip their kernels."""
    text = """func.func @main(%a: tensor<f32>, %b: tensor<i8>) -> (tensor<f32>, tensor<1xf32>, tensor<i1>) {
  %m = stablehlo.maximum %a, %a : tensor<f32>
  %n = stablehlo.minimum %m, %a : tensor<f32>
  %c = stablehlo.convert %b : (tensor<i8>) -> tensor<f32>
  %d = stablehlo.add %n, %c : tensor<f32>
  %r = stablehlo.reshape %d : (tensor<f32>) -> tensor<1xf32>
  %p = stablehlo.convert %d : (tensor<f32>) -> tensor<i1>
  func.return %d, %r, %p : tensor<f32>, tensor<1xf32>, tensor<i1>
}"""
    it = Interpreter(parse_module(text))
    kinds = {st.op.name: st.kind for st in it.plan("main").block.steps}
    assert set(kinds.values()) == {"fast"}, kinds
    d, r, p = it.call("main", [np.array(-0.0, np.float32), np.array(-3, np.int8)])
    assert same(d, np.array(-3.0, np.float32)) and same(r, np.array([-3.0], np.float32))
    assert same(p, np.array(True))


DUS_LOOP = """func.func @main(%buf: tensor<{n}xf32>) -> (tensor<{n}xf32>, tensor<{n}xf32>) {{
  %c0 = stablehlo.constant dense<0> : tensor<i32>
  %c1 = stablehlo.constant dense<1> : tensor<i32>
  %cn = stablehlo.constant dense<{k}> : tensor<i32>
  %neg = stablehlo.negate %buf : tensor<{n}xf32>
  %r:2 = stablehlo.while(%i = %c0, %b = %neg) : tensor<i32>, tensor<{n}xf32>
   cond {{
    %p = stablehlo.compare LT, %i, %cn, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %p : tensor<i1>
  }} do {{
    %f = stablehlo.convert %i : (tensor<i32>) -> tensor<f32>
    %u = stablehlo.reshape %f : (tensor<f32>) -> tensor<1xf32>
    %j = stablehlo.add %i, %c1 : tensor<i32>
    %nb = stablehlo.dynamic_update_slice %b, %u, %j : (tensor<{n}xf32>, tensor<1xf32>, tensor<i32>) -> tensor<{n}xf32>
    stablehlo.return %j, %nb : tensor<i32>, tensor<{n}xf32>
  }}
  %keep = stablehlo.dynamic_update_slice %neg, %neg, %c0 : (tensor<{n}xf32>, tensor<{n}xf32>, tensor<i32>) -> tensor<{n}xf32>
  func.return %r#1, %keep : tensor<{n}xf32>, tensor<{n}xf32>
}}"""


@pytest.mark.parametrize("n", [16, BIG])
def test_dynamic_update_slice_in_a_loop(n):
    """A loop writing slice by slice into a loop-carried buffer (written in place when
    the buffer is big): right values, clamped last start, the caller's array and a
    still-live operand untouched."""
    k = 40
    x = np.arange(n, dtype=np.float32) + 1
    x0 = x.copy()
    fast, slow = run_both(DUS_LOOP.format(n=n, k=k), [x])
    want = -x0
    for i in range(k):  # start i + 1, clamped to n - 1
        want[min(i + 1, n - 1)] = i
    for f, s_ in zip(fast, slow):
        assert same(f, s_)
    assert same(fast[0], want) and same(fast[1], -x0)
    assert same(x, x0)


@pytest.mark.parametrize(
    ("src", "dims", "dst"),
    [
        ((), (), (3, 4)),
        ((4,), (1,), (3, 4)),
        ((3,), (0,), (3, 4)),
        ((1,), (1,), (3, 4)),
        ((4, 3), (1, 0), (3, 4)),
        ((2, 1, 5), (2, 0, 3), (1, 4, 2, 5)),
        ((5,), (1,), (BIG // 5 + 1, 5)),
        ((3, 1), (2, 0), (1, BIG // 3 + 1, 3)),
    ],
)
def test_fast_broadcast_in_dim_equals_the_kernel(src, dims, dst):
    ts = "tensor<" + "".join(f"{d}x" for d in src) + "f32>"
    td = "tensor<" + "".join(f"{d}x" for d in dst) + "f32>"
    text = f"""func.func @main(%a: {ts}) -> {td} {{
  %r = stablehlo.broadcast_in_dim %a, dims = [{", ".join(map(str, dims))}] : ({ts}) -> {td}
  func.return %r : {td}
}}"""
    a = values("f32", int(np.prod(src)), 11).reshape(src)
    it = Interpreter(parse_module(text))
    assert it.plan("main").block.steps[0].kind == "fast"
    (fast,), (slow,) = run_both(text, [a])
    assert same(fast, slow)
    # independently: result[i] = operand[i[dims]] (size-1 operand axes read index 0)
    idx = np.indices(dst)
    want = a[tuple(idx[d] if n > 1 else np.zeros_like(idx[d]) for d, n in zip(dims, src))]
    assert same(np.asarray(fast), np.broadcast_to(want, dst))


@pytest.mark.parametrize("ty", ["f32", "f64"])
@pytest.mark.parametrize(
    ("ls", "rs", "lb", "rb", "lc", "rc"),
    [
        ((4, 8), (8, 3), (), (), (1,), (0,)),
        ((8, 4), (3, 8), (), (), (0,), (1,)),
        ((2, 4, 8), (2, 8, 3), (0,), (0,), (2,), (1,)),
        ((4, 2, 8), (3, 8, 2), (1,), (2,), (2,), (1,)),
        ((5,), (5,), (), (), (0,), (0,)),
        ((3, 0), (0, 2), (), (), (1,), (0,)),
        ((2, 3), (4,), (), (), (), ()),
    ],
)
def test_fast_dot_general_equals_the_kernel(ty, ls, rs, lb, rb, lc, rc):
    def t(shape):
        return "tensor<" + "".join(f"{d}x" for d in shape) + ty + ">"

    out = [ls[d] for d in lb] + [ls[d] for d in range(len(ls)) if d not in lb + lc]
    out += [rs[d] for d in range(len(rs)) if d not in rb + rc]
    dn = (
        f"batching_dims = [{', '.join(map(str, lb))}] x [{', '.join(map(str, rb))}], " if lb else ""
    )
    dn += f"contracting_dims = [{', '.join(map(str, lc))}] x [{', '.join(map(str, rc))}]"
    text = f"""func.func @main(%a: {t(ls)}, %b: {t(rs)}) -> {t(out)} {{
  %r = stablehlo.dot_general %a, %b, {dn} : ({t(ls)}, {t(rs)}) -> {t(out)}
  func.return %r : {t(out)}
}}"""
    it = Interpreter(parse_module(text))
    assert it.plan("main").block.steps[0].kind == "fast"
    a = values(ty, int(np.prod(ls)), 12).reshape(ls)
    b = values(ty, int(np.prod(rs)), 13).reshape(rs)
    a[~np.isfinite(a)] = 1.5
    b[~np.isfinite(b)] = -2.0
    a, b = np.clip(a, -1e3, 1e3), np.clip(b, -1e3, 1e3)
    (fast,), (slow,) = run_both(text, [a, b])
    assert same(fast, slow)
    want = np.einsum(
        np.array(a, np.float64),
        [*range(len(ls))],
        np.array(b, np.float64),
        [
            lb[rb.index(d)] if d in rb else lc[rc.index(d)] if d in rc else 10 + d
            for d in range(len(rs))
        ],
        [
            *lb,
            *[d for d in range(len(ls)) if d not in lb + lc],
            *[10 + d for d in range(len(rs)) if d not in rb + rc],
        ],
    )
    np.testing.assert_allclose(
        fast, want, rtol=1e-4, atol=1e-3 * max(1.0, np.abs(want).max(initial=0))
    )


WHILE_COND_ONLY = """func.func @main(%x: tensor<4xf32>, %n: tensor<i32>) -> (tensor<4xf32>, tensor<i32>) {
  %lim = stablehlo.add %n, %n : tensor<i32>
  %cap = stablehlo.add %lim, %n : tensor<i32>
  %scale = stablehlo.multiply %x, %x : tensor<4xf32>
  %zf = stablehlo.constant dense<0.0> : tensor<f32>
  %s = stablehlo.reduce(%scale init: %zf) applies stablehlo.add across dimensions = [0] : (tensor<4xf32>, tensor<f32>) -> tensor<f32>
  %c0 = stablehlo.constant dense<0> : tensor<i32>
  %0:4 = stablehlo.while(%i = %c0, %acc = %x, %k = %lim, %t = %s) : tensor<i32>, tensor<4xf32>, tensor<i32>, tensor<f32>
  cond {
    %p = stablehlo.compare LT, %i, %k : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %q = stablehlo.compare LT, %i, %cap : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %zz = stablehlo.constant dense<1.0e9> : tensor<f32>
    %r = stablehlo.compare LT, %t, %zz : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %pq = stablehlo.and %p, %q : tensor<i1>
    %pr = stablehlo.and %pq, %r : tensor<i1>
    stablehlo.return %pr : tensor<i1>
  } do {
    %one = stablehlo.constant dense<1> : tensor<i32>
    %i1 = stablehlo.add %i, %one : tensor<i32>
    %a1 = stablehlo.add %acc, %acc : tensor<4xf32>
    stablehlo.return %i1, %a1, %k, %t : tensor<i32>, tensor<4xf32>, tensor<i32>, tensor<f32>
  }
  %after = stablehlo.add %x, %x : tensor<4xf32>
  %out = stablehlo.add %0#1, %after : tensor<4xf32>
  return %out, %0#0 : tensor<4xf32>, tensor<i32>
}"""


@pytest.mark.parametrize("n", [0, 1, 3])
def test_values_only_the_while_cond_reads_live_through_the_loop(n):
    """Values that only the cond region reads stay alive for every iteration: a
    loop-carried operand the body passes through (%k, %t) and an outer value the cond
    captures (%cap = 3n, used by no other op).  Released before the loop, the cond would
    read a freed (or reused) slot.  Expected: the body doubles
    %acc 2n times; %after is computed after the loop from %x."""
    x = np.arange(4, dtype=np.float32) + 1
    out, i = engine.run(WHILE_COND_ONLY, [x, np.array(n, np.int32)])
    assert int(i) == 2 * n
    np.testing.assert_array_equal(out, x * 2 ** (2 * n) + 2 * x)
