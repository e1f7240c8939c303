"""Fused elementwise runs (engine/fusion.py) and generated straight-line blocks and
while loops (engine/emit.py): bit for bit what the spec's ops give, computed here
by direct NumPy calls (IEEE f32 add/subtract/multiply/divide/sqrt are correctly
rounded, which is the spec's semantics; f32 exp is f64 rounded once, as the kernels
document), on data with NaN, infinities and signed zeros."""

from __future__ import annotations

import numpy as np
import pytest

from hlorun import engine
from hlorun.engine import fusion

N = fusion.FUSE_MIN_ELEMENTS  # the smallest fused size: the tests stay fast


def _data(n: int, seed: int) -> np.ndarray:
    x = np.random.default_rng(seed).standard_normal(n).astype(np.float32)
    x[:8] = [np.nan, np.inf, -np.inf, 0.0, -0.0, 1e-45, -3.4e38, 3.4e38]
    return x


def _bits(x: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(x).view(np.uint32)


def _ty(n: int, e: str = "f32") -> str:
    return f"tensor<{n}x{e}>"


CHAIN = """func.func @main(%a: {t}, %b: {t}) -> ({t}, {t}) {{
  %0 = stablehlo.add %a, %b : {t}
  %1 = stablehlo.multiply %0, %a : {t}
  %2 = stablehlo.subtract %1, %b : {t}
  %3 = stablehlo.divide %2, %b : {t}
  %4 = stablehlo.negate %3 : {t}
  %5 = stablehlo.abs %4 : {t}
  %6 = stablehlo.sqrt %5 : {t}
  %7 = stablehlo.multiply %6, %a : {t}
  %8 = stablehlo.add %7, %2 : {t}
  func.return %8, %2 : {t}, {t}
}}"""


def _chain_reference(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    with np.errstate(all="ignore"):
        x2 = np.subtract(np.multiply(np.add(a, b), a), b)
        x6 = np.sqrt(np.abs(np.negative(np.divide(x2, b))))
        return np.add(np.multiply(x6, a), x2), x2


def _fused_runs(program) -> int:
    """How many fused runs (engine.fusion closures) the entry block has."""
    plan = program.interpreter.plan(program.function.name)
    return len(plan.block.fused)


@pytest.mark.parametrize("n", [N, N + 12345])  # a partial last block too
def test_chain_is_fused_and_bit_identical(n):
    prog = engine.compile(CHAIN.format(t=_ty(n)))
    assert _fused_runs(prog) == 1  # nine steps, one run
    a, b = _data(n, 1), _data(n, 2)
    got, mid = prog(a, b)
    want, want_mid = _chain_reference(a, b)
    assert np.array_equal(_bits(got), _bits(want))
    assert np.array_equal(_bits(mid), _bits(want_mid))  # a materialized intermediate
    assert a.tobytes() == _data(n, 1).tobytes()  # inputs untouched


def test_chain_in_place_into_a_dying_operand():
    """%t (a reshape's result) dies inside the run: its buffer may be reused."""
    n = N
    t = _ty(n)
    prog = engine.compile(f"""func.func @main(%a: tensor<2x{n // 2}xf32>, %b: {t}) -> {t} {{
  %t = stablehlo.reshape %a : (tensor<2x{n // 2}xf32>) -> {t}
  %0 = stablehlo.multiply %t, %b : {t}
  %1 = stablehlo.add %0, %t : {t}
  %2 = stablehlo.subtract %1, %b : {t}
  func.return %2 : {t}
}}""")
    a, b = _data(n, 3), _data(n, 4)
    (got,) = prog(a.reshape(2, -1), b)
    with np.errstate(all="ignore"):
        want = np.subtract(np.add(np.multiply(a, b), a), b)
    assert np.array_equal(_bits(got), _bits(want))
    assert np.array_equal(_bits(a), _bits(_data(n, 3)))


def test_f32_exp_fused_rounds_once_from_f64():
    n = N
    t = _ty(n)
    prog = engine.compile(f"""func.func @main(%a: {t}) -> {t} {{
  %0 = stablehlo.multiply %a, %a : {t}
  %1 = stablehlo.exponential %0 : {t}
  %2 = stablehlo.negate %1 : {t}
  func.return %2 : {t}
}}""")
    a = _data(n, 5) / 4
    (got,) = prog(a)
    with np.errstate(all="ignore"):
        want = -np.exp(a * a, dtype=np.float64).astype(np.float32)
    assert np.array_equal(_bits(got), _bits(want))


def test_transcendental_ops_on_threads_join_the_run():
    """tanh and exp (f32 computed in f64, rounded once) over tensors large enough for
    the machine's threads fuse with the ops around them (JAX's chain): one run, the
    same bits as op by op."""
    n = max(N, engine.parallel.PARALLEL_MIN_ELEMENTS) + 777
    t = _ty(n)
    prog = engine.compile(f"""func.func @main(%a: {t}, %b: {t}) -> {t} {{
  %0 = stablehlo.add %a, %b : {t}
  %1 = stablehlo.tanh %0 : {t}
  %2 = stablehlo.exponential %1 : {t}
  %3 = stablehlo.subtract %2, %b : {t}
  %4 = stablehlo.multiply %3, %a : {t}
  func.return %4 : {t}
}}""")
    plan = prog.interpreter.plan(prog.function.name)
    assert [ks for ks, _run in plan.block.fused.values()] == [(0, 1, 2, 3, 4)]  # all five
    a, b = _data(n, 6), _data(n, 7)
    (got,) = prog(a, b)
    with np.errstate(all="ignore"):
        x = np.tanh(np.add(a, b), dtype=np.float64).astype(np.float32)
        x = np.exp(x, dtype=np.float64).astype(np.float32)
        want = np.multiply(np.subtract(x, b), a)
    assert np.array_equal(_bits(got), _bits(want))


def test_small_tensors_are_not_fused():
    prog = engine.compile(CHAIN.format(t=_ty(1024)))
    assert _fused_runs(prog) == 0
    a, b = _data(1024, 6), _data(1024, 7)
    got, _ = prog(a, b)
    assert np.array_equal(_bits(got), _bits(_chain_reference(a, b)[0]))


WHILE_MIXED = """func.func @main(%n: tensor<i32>, %x0: tensor<f32>, %k0: tensor<i32>)
    -> (tensor<i32>, tensor<f32>, tensor<i32>) {
  %c1 = stablehlo.constant dense<1> : tensor<i32>
  %c3 = stablehlo.constant dense<3> : tensor<i32>
  %h = stablehlo.constant dense<0.5> : tensor<f32>
  %q = stablehlo.constant dense<1.25> : tensor<f32>
  %i0 = stablehlo.constant dense<0> : tensor<i32>
  %r:3 = stablehlo.while(%i = %i0, %x = %x0, %k = %k0) : tensor<i32>, tensor<f32>, tensor<i32>
   cond {
    %p = stablehlo.compare LT, %i, %n, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %p : tensor<i1>
  } do {
    %x1 = stablehlo.multiply %x, %h : tensor<f32>
    %x2 = stablehlo.add %x1, %q : tensor<f32>
    %k1 = stablehlo.multiply %k, %c3 : tensor<i32>
    %k2 = stablehlo.add %k1, %i : tensor<i32>
    %j = stablehlo.add %i, %c1 : tensor<i32>
    stablehlo.return %j, %x2, %k2 : tensor<i32>, tensor<f32>, tensor<i32>
  }
  func.return %r#0, %r#1, %r#2 : tensor<i32>, tensor<f32>, tensor<i32>
}"""


def test_while_with_mixed_body_matches_the_spec():
    prog = engine.compile(WHILE_MIXED)
    n, x0, k0 = 1000, np.float32(3.0), 7
    i, x, k = 0, x0, np.int32(k0)
    with np.errstate(all="ignore"):
        while i < n:  # the reference: NumPy scalars, i32 wrapping
            x = np.float32(np.float32(x * np.float32(0.5)) + np.float32(1.25))
            k = np.int32(np.int32(k * np.int32(3)) + np.int32(i))
            i += 1
    got = prog(np.array(n, np.int32), np.array(x0, np.float32), np.array(k0, np.int32))
    assert [g.shape for g in got] == [(), (), ()]
    assert all(isinstance(g, np.ndarray) for g in got)
    assert int(got[0]) == n and got[1].tobytes() == x.tobytes() and int(got[2]) == int(k)


def test_while_step_limit_still_applies():
    from hlorun.parser.errors import InterpreterError

    prog = engine.compile(WHILE_MIXED, max_steps=100)
    with pytest.raises(InterpreterError, match="step limit"):
        prog(np.array(10**6, np.int32), np.array(1, np.float32), np.array(1, np.int32))


def test_a_scalar_argument_returned_is_a_fresh_array():
    prog = engine.compile("""func.func @main(%x: tensor<f32>, %y: tensor<f32>) -> (tensor<f32>, tensor<f32>) {
  %0 = stablehlo.add %x, %y : tensor<f32>
  %1 = stablehlo.multiply %0, %x : tensor<f32>
  func.return %1, %x : tensor<f32>, tensor<f32>
}""")
    x, y = np.array(1.5, np.float32), np.array(2.25, np.float32)
    r, same = prog(x, y)
    assert r.__class__ is np.ndarray and r.dtype == np.float32 and float(r) == (1.5 + 2.25) * 1.5
    assert same.__class__ is np.ndarray and float(same) == 1.5


def test_error_in_a_generated_block_names_its_op():
    """A failing step inside a straight-line block is reported at its own op."""
    from hlorun.parser.errors import HloError

    prog = engine.compile("""func.func @main(%x: tensor<f32>, %i: tensor<2xi32>) -> tensor<f32> {
  %0 = stablehlo.add %x, %x : tensor<f32>
  %1 = stablehlo.multiply %0, %x : tensor<f32>
  %2 = stablehlo.custom_call @no_such_target(%1) : (tensor<f32>) -> tensor<f32>
  %3 = stablehlo.add %2, %1 : tensor<f32>
  func.return %3 : tensor<f32>
}""")
    with pytest.raises(HloError) as info:
        prog(np.array(1, np.float32), np.zeros(2, np.int32))
    assert "custom_call" in str(info.value) and ":4:" in str(info.value)


def _spec_extremum(x: float, y: float, is_max: bool) -> float:
    """spec maximum / minimum of two floats, element by element (IEEE 754: NaN
    propagates; -0 < +0)."""
    if np.isnan(x) or np.isnan(y):
        return np.nan
    if x == y == 0:  # zeros: the sign decides
        neg = np.signbit(x) and np.signbit(y) if is_max else np.signbit(x) or np.signbit(y)
        return -0.0 if neg else 0.0
    return max(x, y) if is_max else min(x, y)


MINMAX = """func.func @main(%a: {t}, %b: {t}) -> {t} {{
  %0 = stablehlo.negate %a : {t}
  %1 = stablehlo.maximum %0, %b : {t}
  %2 = stablehlo.minimum %1, %a : {t}
  %3 = stablehlo.multiply %2, %b : {t}
  func.return %3 : {t}
}}"""


def test_maximum_and_minimum_fuse_with_signed_zeros_and_nan():
    """Float maximum / minimum join fused runs and write into dying buffers: zeros of
    both signs in every pairing, NaN on either side, checked against the spec's rule
    element by element."""
    n = N
    a, b = _data(n, 8), _data(n, 9)
    pairs = [(0.0, -0.0), (-0.0, 0.0), (-0.0, -0.0), (0.0, 0.0), (np.nan, 1.0), (1.0, np.nan)]
    for k, (x, y) in enumerate(pairs):  # as (-a, b) for maximum, then (that, a)
        a[100 + k], b[100 + k] = -x, y
    a[200:300], b[200:300] = -0.0, 0.0
    prog = engine.compile(MINMAX.format(t=_ty(n)))
    assert [ks for ks, _run in prog.interpreter.plan("main").block.fused.values()] == [(0, 1, 2, 3)]
    (got,) = prog(a, b)
    neg = np.negative(a)
    m1 = np.array([_spec_extremum(x, y, True) for x, y in zip(neg, b)], np.float32)
    m2 = np.array([_spec_extremum(x, y, False) for x, y in zip(m1, a)], np.float32)
    with np.errstate(all="ignore"):
        want = np.multiply(m2, b)
    nan = np.isnan(want)  # (the spec leaves a NaN's sign and payload open)
    assert np.array_equal(np.isnan(got), nan)
    assert np.array_equal(_bits(got)[~nan], _bits(want)[~nan])
    # and bit for bit what the same program gives unfused, one op at a time
    fusion_min = fusion.FUSE_MIN_ELEMENTS
    try:
        fusion.FUSE_MIN_ELEMENTS = n + 1
        (alone,) = engine.compile(MINMAX.format(t=_ty(n)))(a, b)
    finally:
        fusion.FUSE_MIN_ELEMENTS = fusion_min
    assert np.array_equal(_bits(got), _bits(alone))


def test_a_profile_times_the_fused_run_users_run():
    """``profile=`` times the code a plain run runs: a fused run stays one pass, one
    profile row naming its ops, with the results of the plain run bit for bit."""
    from hlorun.engine.plan import Profile

    a, b = _data(N, 10), _data(N, 11)
    text = CHAIN.format(t=_ty(N))
    plain = engine.compile(text)(a, b)
    prof = Profile()
    profiled = engine.run(text, [a, b], profile=prof)
    for x, y in zip(plain, profiled):
        assert np.array_equal(_bits(x), _bits(y))
    fused = [name for name in prof.ops if name.startswith("fused run (")]
    assert fused == [
        "fused run (add, multiply, subtract, divide, negate, abs, sqrt, multiply, add)"
    ]
    assert prof.ops[fused[0]].count == 1 and prof.ops[fused[0]].bytes == 2 * 4 * N


ROWS = """func.func @main(%x: tensor<{r}x{c}xf32>, %bias: tensor<{c}xf32>, %m: tensor<{r}xf32>,
    %y: tensor<{c}x{r}xf32>) -> tensor<{r}x{c}xf32> {{
  %h = stablehlo.constant dense<0.5> : tensor<f32>
  %b = stablehlo.broadcast_in_dim %bias, dims = [1] : (tensor<{c}xf32>) -> tensor<{r}x{c}xf32>
  %mb = stablehlo.broadcast_in_dim %m, dims = [0] : (tensor<{r}xf32>) -> tensor<{r}x{c}xf32>
  %hb = stablehlo.broadcast_in_dim %h, dims = [] : (tensor<f32>) -> tensor<{r}x{c}xf32>
  %yt = stablehlo.transpose %y, dims = [1, 0] : (tensor<{c}x{r}xf32>) -> tensor<{r}x{c}xf32>
  %0 = stablehlo.add %x, %b : tensor<{r}x{c}xf32>
  %1 = stablehlo.subtract %0, %mb : tensor<{r}x{c}xf32>
  %2 = stablehlo.tanh %1 : tensor<{r}x{c}xf32>
  %3 = stablehlo.multiply %2, %hb : tensor<{r}x{c}xf32>
  %4 = stablehlo.add %3, %yt : tensor<{r}x{c}xf32>
  func.return %4 : tensor<{r}x{c}xf32>
}}"""


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize(
    "rows", [N // 256, max(N, engine.parallel.PARALLEL_MIN_ELEMENTS) // 256 + 333]
)  # the second: threads' pieces and a partial last block
def test_broadcast_operands_are_read_in_place_as_rows(rows, threads):
    """A bias row, a per-row value and a scalar broadcast to the run's shape (stride-0
    views) are read block by block as rows (not copied to full size first); a
    transposed operand is copied.  Bit for bit the ops one by one."""
    c = 256
    rng = np.random.default_rng(12)
    x = _data(rows * c, 13).reshape(rows, c)
    bias, m = _data(c, 14), rng.standard_normal(rows).astype(np.float32)
    y = rng.standard_normal((c, rows)).astype(np.float32)
    b, mb = np.broadcast_to(bias, (rows, c)), np.broadcast_to(m[:, None], (rows, c))
    hb = np.broadcast_to(np.float32(0.5), (rows, c))
    assert fusion._split([x, b, mb, hb, y.T], (rows, c)) == 1  # rows of c
    x3 = np.zeros((2, 3, c), np.float32)  # the bias row of c over 2 x 3 rows
    assert fusion._split([x3, np.broadcast_to(bias, x3.shape)], x3.shape) == 2
    assert fusion._split([x, hb], (rows, c)) == 0  # nothing broadcast: one dimension
    prog = engine.compile(ROWS.format(r=rows, c=c))
    assert [len(ks) for ks, _run in prog.interpreter.plan("main").block.fused.values()] == [5]
    old = engine.parallel.set_workers(threads)
    try:
        (got,) = prog(x, bias, m, y)
    finally:
        engine.parallel.set_workers(old)
    with np.errstate(all="ignore"):
        t = np.tanh(np.subtract(np.add(x, bias), m[:, None]), dtype=np.float64)
        want = np.add(np.multiply(t.astype(np.float32), np.float32(0.5)), y.T)
    assert np.array_equal(_bits(got), _bits(want))


def test_block_buffers_are_each_threads_own_and_kept():
    """fusion.scratch: a thread gets the same memory for its block buffers run after
    run (no new pages to fault), another thread other memory, and a buffer above
    SCRATCH_MAX_BYTES is not kept."""
    import threading

    f32 = np.dtype(np.float32)
    a = fusion.scratch(3, (4, 256), f32)
    assert [b.shape for b in a] == [(4, 256)] * 3 and all(b.dtype == f32 for b in a)
    assert len({b.ctypes.data for b in a}) == 3  # three buffers, not one
    b = fusion.scratch(2, (2, 100), np.dtype(np.float64))
    assert [x.ctypes.data for x in b] == [x.ctypes.data for x in a[:2]]  # reused
    other: list[np.ndarray] = []
    th = threading.Thread(target=lambda: other.extend(fusion.scratch(3, (4, 256), f32)))
    th.start()
    th.join()
    assert not {x.ctypes.data for x in other} & {x.ctypes.data for x in a}
    big = (fusion.SCRATCH_MAX_BYTES // 4 + 1,)
    c, d = fusion.scratch(1, big, f32), fusion.scratch(1, big, f32)
    assert c[0].ctypes.data != a[0].ctypes.data and not np.shares_memory(c[0], d[0])


@pytest.mark.parametrize("split", [False, True])
def test_a_run_split_over_threads_gives_the_bits_of_one_thread(monkeypatch, split):
    """Each piece of a split run takes the block buffers of the thread that runs it:
    the same bits as op by op, run after run, on one thread or on two."""
    n = max(N, engine.parallel.PARALLEL_MIN_ELEMENTS) + 777
    t = _ty(n)
    monkeypatch.setattr(
        engine.parallel.ThreadChoice, "run", lambda self, alone, two: two() if split else alone()
    )
    prog = engine.compile(f"""func.func @main(%a: {t}, %b: {t}) -> {t} {{
  %0 = stablehlo.multiply %a, %b : {t}
  %1 = stablehlo.tanh %0 : {t}
  %2 = stablehlo.add %1, %a : {t}
  func.return %2 : {t}
}}""")
    for seed in range(3):
        a, b = _data(n, 10 + seed), _data(n, 20 + seed)
        (got,) = prog(a, b)
        with np.errstate(all="ignore"):
            want = np.add(np.tanh(np.multiply(a, b), dtype=np.float64).astype(np.float32), a)
        assert np.array_equal(_bits(got), _bits(want))
