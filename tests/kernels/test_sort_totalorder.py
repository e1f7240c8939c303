"""sort with JAX's float comparators (canonicalise -0 and NaN, then a TOTALORDER compare
or, in older JAX, a SIGNED compare of sign-flipped bit patterns), parsed from MLIR text
and run end to end.

The expected order is written here independently: every NaN (any sign or payload) ties
with every other and goes last, -0 ties with +0, everything else in numeric order; a
stable sort keeps input order among ties.  Each case is also checked against hlorun's
generic merge sort (the comparator called on whole arrays: ``sort.comparator_keys``
patched to recognise nothing), and the recognised keys (``RegionSummary.sort_keys``)
are checked on their own by sorting on them here.
"""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

from hlorun import engine
from hlorun.engine.kernels import sort
from hlorun.engine.region_analysis import summarize
from hlorun.parser import parse_module
from hlorun.parser.ir import FloatType, IntegerType
from tests.support.regions import planned_comparator

DTYPES = {
    "f32": (np.float32, np.uint32, "0x7FC00000"),
    "f64": (np.float64, np.uint64, "0x7FF8000000000000"),
    "bf16": (ml_dtypes.bfloat16, np.uint16, "0x7FC0"),
    "f16": (np.float16, np.uint16, "0x7E00"),
}
INT_OF = {16: "i16", 32: "i32", 64: "i64"}
ZERO_HEX = {"f32": "0x00000000", "f64": "0x0000000000000000", "bf16": "0x0000", "f16": "0x0000"}


def s(ty: str) -> str:
    return f"tensor<{ty}>"


def canonicalise(ft: str, v: str, p: str, consts: str) -> tuple[list[str], str]:
    """JAX's _canonicalize_float_for_sort: x == 0 -> +0, x != x -> NaN."""
    t, b = s(ft), s("i1")
    return [
        f"%{p}0 = stablehlo.compare EQ, {v}, %z{consts}, FLOAT : ({t}, {t}) -> {b}",
        f"%{p}1 = stablehlo.select %{p}0, %z{consts}, {v} : {b}, {t}",
        f"%{p}2 = stablehlo.compare NE, {v}, {v}, FLOAT : ({t}, {t}) -> {b}",
        f"%{p}3 = stablehlo.select %{p}2, %nan{consts}, %{p}1 : {b}, {t}",
    ], f"%{p}3"


def float_consts(ft: str, tag: str) -> list[str]:
    return [
        f"%z{tag} = stablehlo.constant dense<{ZERO_HEX[ft]}> : {s(ft)}",
        f"%nan{tag} = stablehlo.constant dense<{DTYPES[ft][2]}> : {s(ft)}",
    ]


def new_key(ft: str, v: str, p: str) -> tuple[list[str], str, str]:
    """(lines, key value, compare suffix): current JAX, TOTALORDER compare."""
    lines, out = canonicalise(ft, v, p, ft)
    return lines, out, f"TOTALORDER : ({s(ft)}, {s(ft)})"


def old_key(ft: str, v: str, p: str, flip: str = "subtract") -> tuple[list[str], str, str]:
    """Older JAX's _float_to_int_for_sort: bf16 -> f32, canonicalise, bitcast, flip the
    negatives (INT_MAX - unsigned bits; or, ``flip="xor"``, signed bits ^ INT_MAX),
    SIGNED compare."""
    lines = []
    if ft == "bf16":
        lines.append(f"%{p}c = stablehlo.convert {v} : ({s('bf16')}) -> {s('f32')}")
        v, ft = f"%{p}c", "f32"
    canon, t = canonicalise(ft, v, p, ft)
    lines += canon
    w = {"f16": 16, "f32": 32, "f64": 64}[ft]
    si, ui = s(INT_OF[w]), s("u" + INT_OF[w])
    lines += [
        f"%{p}s = stablehlo.bitcast_convert {t} : ({s(ft)}) -> {si}",
        f"%{p}u = stablehlo.bitcast_convert {t} : ({s(ft)}) -> {ui}",
    ]
    lines += (
        [
            f"%{p}m = stablehlo.constant dense<{(1 << (w - 1)) - 1}> : {ui}",
            f"%{p}d = stablehlo.subtract %{p}m, %{p}u : {ui}",
            f"%{p}f = stablehlo.bitcast_convert %{p}d : ({ui}) -> {si}",
        ]
        if flip == "subtract"
        else [
            f"%{p}m = stablehlo.constant dense<{(1 << (w - 1)) - 1}> : {si}",
            f"%{p}f = stablehlo.xor %{p}s, %{p}m : {si}",
        ]
    )
    lines += [
        f"%{p}zi = stablehlo.constant dense<0> : {si}",
        f"%{p}n = stablehlo.compare LT, %{p}s, %{p}zi, SIGNED : ({si}, {si}) -> {s('i1')}",
        f"%{p}k = stablehlo.select %{p}n, %{p}f, %{p}s : {s('i1')}, {si}",
    ]
    return lines, f"%{p}k", f"SIGNED : ({si}, {si})"


def program(
    fts: list[str],
    n_keys: int,
    variant: str,
    shape: tuple[int, ...],
    dim: int,
    stable: bool,
    direction: str = "LT",
    extra: tuple[str, ...] = (),
) -> str:
    """A sort of float operands ``fts`` (the first ``n_keys`` are keys, JAX's
    ``lt(k0) | (eq(k0) & lt(k1))`` chain) plus ``extra`` value operands."""
    all_types = list(fts) + list(extra)
    key_fn = {
        "new": new_key,
        "old": old_key,
        "xor": lambda ft, v, p: old_key(ft, v, p, flip="xor"),
    }[variant]
    args = ", ".join(
        f"%arg{2 * i}: {s(t)}, %arg{2 * i + 1}: {s(t)}" for i, t in enumerate(all_types)
    )
    lines: list[str] = []
    for ft in sorted(set(fts[:n_keys]) | ({"f32"} if variant != "new" else set())):
        lines += float_consts(ft, ft)
    cmps = []
    for i in range(n_keys):
        lx, kx, suffix = key_fn(fts[i], f"%arg{2 * i}", f"x{i}_")
        ly, ky, _ = key_fn(fts[i], f"%arg{2 * i + 1}", f"y{i}_")
        lines += lx + ly
        cmps.append((kx, ky, suffix))
    b = s("i1")
    kx, ky, suffix = cmps[-1]
    lines.append(f"%p{n_keys - 1} = stablehlo.compare {direction}, {kx}, {ky}, {suffix} -> {b}")
    for i in range(n_keys - 2, -1, -1):
        kx, ky, suffix = cmps[i]
        lines += [
            f"%lt{i} = stablehlo.compare {direction}, {kx}, {ky}, {suffix} -> {b}",
            f"%eq{i} = stablehlo.compare EQ, {kx}, {ky}, {suffix} -> {b}",
            f"%and{i} = stablehlo.and %eq{i}, %p{i + 1} : {b}",
            f"%p{i} = stablehlo.or %lt{i}, %and{i} : {b}",
        ]
    lines.append(f"stablehlo.return %p0 : {b}")
    body = "\n      ".join(lines)

    def tt(t: str) -> str:
        return "tensor<" + "x".join(map(str, shape)) + "x" + t + ">"

    ins = ", ".join(f"%a{i}: {tt(t)}" for i, t in enumerate(all_types))
    outs = ", ".join(tt(t) for t in all_types)
    names = ", ".join(f"%a{i}" for i in range(len(all_types)))
    results = ", ".join(f"%r{i}" for i in range(len(all_types)))
    return f"""func.func @main({ins}) -> ({outs}) {{
  {results} = "stablehlo.sort"({names}) ({{
    ^bb0({args}):
      {body}
  }}) {{dimension = {dim} : i64, is_stable = {str(stable).lower()}}} : ({outs}) -> ({outs})
  func.return {results} : {outs}
}}"""


# ---- inputs and the independent reference --------------------------------------------


def special_floats(ft: str, shape: tuple[int, ...], seed: int) -> np.ndarray:
    """NaNs of both signs with random payloads, +-0, +-inf, denormals, duplicates."""
    dt, ut, _ = DTYPES[ft]
    rng = np.random.default_rng(seed)
    size = int(np.prod(shape))
    w = np.dtype(ut).itemsize * 8
    bits = rng.integers(0, 1 << min(w, 63), size=size, dtype=np.uint64)
    if w == 64:
        bits |= rng.integers(0, 2, size=size, dtype=np.uint64) << np.uint64(63)
    x = bits.astype(ut).view(dt)
    info = ml_dtypes.finfo(dt)
    pool = np.array(
        [
            0.0,
            -0.0,
            np.inf,
            -np.inf,
            np.nan,
            -np.nan,
            1.0,
            -1.0,
            2.5,
            float(info.tiny),
            -float(info.smallest_subnormal),
        ],
        dtype=np.float64,
    ).astype(dt)
    pick = rng.integers(0, 3, size=size)
    x = np.where(pick == 0, pool[rng.integers(0, pool.size, size=size)], x)
    dup = rng.integers(0, max(size, 1), size=size)
    x = np.where(pick == 1, x[dup], x)
    return np.ascontiguousarray(x.astype(dt)).reshape(shape)


def ref_key(v) -> tuple[int, float]:
    f = float(v)
    if f != f:
        return (1, 0.0)
    return (0, f + 0.0)  # -0 + 0 = +0: ties with +0


def ref_sort(arrays: list[np.ndarray], dim: int, n_keys: int, descending: bool) -> list[np.ndarray]:
    """Python's stable sorted on every 1-D slice along ``dim``."""
    moved = [np.moveaxis(a, dim, -1) for a in arrays]
    outs = [np.empty_like(m) for m in moved]
    n = moved[0].shape[-1]
    for idx in np.ndindex(*moved[0].shape[:-1]):
        keys = [tuple(ref_key(moved[k][idx][j]) for k in range(n_keys)) for j in range(n)]
        order = sorted(range(n), key=lambda j: keys[j], reverse=descending)
        for m, o in zip(moved, outs):
            o[idx] = m[idx][order]
    return [np.moveaxis(o, -1, dim) for o in outs]


def bits(x: np.ndarray) -> np.ndarray:
    return x.view(np.dtype(f"u{x.dtype.itemsize}"))


def run(text: str, inputs: list[np.ndarray]) -> list[np.ndarray]:
    return list(engine.compile(text)(*inputs))


def run_merge_sort(text: str, inputs: list[np.ndarray], monkeypatch) -> list[np.ndarray]:
    with monkeypatch.context() as m:
        m.setattr(sort, "comparator_keys", lambda *a: None)
        return run(text, inputs)


def check(got, want, dim, n_keys, stable):
    if stable:
        for g, w in zip(got, want):
            assert g.dtype == w.dtype
            np.testing.assert_array_equal(bits(g), bits(w))
        return
    # unstable: the key order, and per slice the same multiset of rows
    for g, w in zip(got[:n_keys], want[:n_keys]):
        assert [ref_key(v) for v in g.reshape(-1)] == [ref_key(v) for v in w.reshape(-1)]
    rows_g = np.stack([np.moveaxis(bits(g), dim, -1).astype(np.uint64) for g in got], -1)
    rows_w = np.stack([np.moveaxis(bits(w), dim, -1).astype(np.uint64) for w in want], -1)
    for rg, rw in zip(
        rows_g.reshape(-1, *rows_g.shape[-2:]), rows_w.reshape(-1, *rows_w.shape[-2:])
    ):
        assert sorted(map(tuple, rg.tolist())) == sorted(map(tuple, rw.tolist()))


CASES = [
    # (float operand types, number of keys, extra value operands, shape, dim)
    (["f32"], 1, (), (700,), 0),
    (["f64"], 1, (), (700,), 0),
    (["bf16"], 1, (), (3, 400), 1),
    (["f16"], 1, (), (400, 2), 0),
    (["f32"], 1, ("i32",), (600,), 0),  # keys + values
    (["bf16", "f32"], 2, ("i32",), (2, 300), 1),  # two keys + values
]


@pytest.mark.parametrize("stable", [True, False], ids=["stable", "unstable"])
@pytest.mark.parametrize("variant", ["new", "old", "xor"])
@pytest.mark.parametrize("case", CASES, ids=lambda c: "-".join(c[0] + list(c[2])) + f"-{c[1]}keys")
def test_jax_comparators(case, variant, stable, monkeypatch):
    fts, n_keys, extra, shape, dim = case
    text = program(fts, n_keys, variant, shape, dim, stable, extra=extra)
    inputs = [special_floats(ft, shape, 10 * i + len(shape)) for i, ft in enumerate(fts)]
    # few distinct first keys, so that the second key decides often
    if n_keys == 2:
        first = inputs[0]
        inputs[0] = np.where(np.arange(shape[-1]) % 3 == 0, first, first.flat[0]).astype(
            first.dtype
        )
    for _ in extra:
        inputs.append(np.arange(int(np.prod(shape)), dtype=np.int32).reshape(shape))
    want = ref_sort(inputs, dim, n_keys, descending=False)
    check(run(text, inputs), want, dim, n_keys, stable)
    check(run_merge_sort(text, inputs, monkeypatch), want, dim, n_keys, True)


@pytest.mark.parametrize("ft", ["f32", "bf16"])
def test_descending_gt(ft, monkeypatch):
    shape = (500,)
    text = program([ft], 1, "new", shape, 0, True, direction="GT", extra=("i32",))
    inputs = [special_floats(ft, shape, 5), np.arange(500, dtype=np.int32)]
    want = ref_sort(inputs, 0, 1, descending=True)
    check(run(text, inputs), want, 0, 1, True)
    check(run_merge_sort(text, inputs, monkeypatch), want, 0, 1, True)


# ---- the recognised keys, sorted on here ---------------------------------------------


def sort_region(text: str):
    fn = parse_module(text).body[0]
    (op,) = [o for o in fn.body.blocks[0].operations if o.name == "stablehlo.sort"]
    return op.regions[0]


def total_order_int(x: np.ndarray) -> list[int]:
    """IEEE totalOrder rank of each float, from its bits (sign-magnitude -> integer)."""
    w = x.dtype.itemsize * 8
    out = []
    for b in bits(x).tolist():
        out.append(-(b & ((1 << (w - 1)) - 1)) - 1 if b >> (w - 1) else b)
    return out


def keys_of(comparator, inputs, types) -> list[list[int]]:
    out = []
    for k, sk in enumerate(comparator.summary.sort_keys):
        x, et = comparator.key_input(k, inputs[sk.operand], types[sk.operand])
        assert x.shape == inputs[sk.operand].shape
        if isinstance(et, FloatType):
            assert sk.compare_type == "TOTALORDER"
            k = total_order_int(np.ascontiguousarray(x))
        else:
            assert isinstance(et, IntegerType) and sk.compare_type == "SIGNED"
            k = [int(v) for v in x]
        out.append([-v for v in k] if sk.descending else k)
    return out


@pytest.mark.parametrize("variant", ["new", "old", "xor"])
@pytest.mark.parametrize("ft", list(DTYPES))
def test_recognised_keys_order(ft, variant):
    n = 800
    text = program([ft, ft], 2, variant, (n,), 0, True, extra=("i32",))
    plan = summarize(sort_region(text)).sort_keys
    assert plan is not None and [sk.operand for sk in plan] == [0, 1]
    assert all(sk.transform is not None and not sk.descending for sk in plan)
    x0 = special_floats(ft, (n,), 1)
    x0 = np.where(np.arange(n) % 4 == 0, x0, x0[0]).astype(x0.dtype)
    x1 = special_floats(ft, (n,), 2)
    vals = np.arange(n, dtype=np.int32)
    types = [FloatType(ft), FloatType(ft), IntegerType(32)]
    with planned_comparator(parse_module(text)) as comparator:
        keys = keys_of(comparator, [x0, x1, vals], types)
    order = sorted(range(n), key=lambda j: tuple(k[j] for k in keys))
    (_, _, want_v) = ref_sort([x0, x1, vals], 0, 2, descending=False)
    assert order == want_v.tolist()


def test_kernel_uses_recognised_keys(monkeypatch):
    """Once the sort kernel asks for transforms, the JAX comparator takes the NumPy path."""
    seen = []
    real = sort.comparator_keys

    def spy(comparator, n):
        plan = real(comparator, n)
        seen.append(plan)
        return plan

    monkeypatch.setattr(sort, "comparator_keys", spy)
    text = program(["f32"], 1, "new", (64,), 0, True)
    x = special_floats("f32", (64,), 3)
    (got,) = run(text, [x])
    (want,) = ref_sort([x], 0, 1, descending=False)
    np.testing.assert_array_equal(bits(got), bits(want))
    assert seen and seen[-1] is not None and seen[-1][0].transform is not None


@pytest.mark.parametrize("mode", ["callback", "max_steps"])
def test_transform_runs_as_a_compiled_block(mode):
    """The key transform is planned and compiled like any block: in a checked mode a
    callback sees its ops once, on the whole operand (a comparator called by a merge
    sort would show its selects at every merge level), and every mode gives the plain
    run's bits."""
    text = program(["f32"], 1, "new", (64,), 0, True)
    x = special_floats("f32", (64,), 3)
    (plain,) = run(text, [x])
    seen: list[tuple[str, list[tuple[int, ...]]]] = []
    if mode == "callback":
        options = {"callback": lambda name, pos, vals: seen.append((name, [v.shape for v in vals]))}
    else:
        options = {"max_steps": 1000}
    (got,) = engine.run(text, [x], **options)
    np.testing.assert_array_equal(bits(got), bits(plain))
    if mode == "callback":
        selects = [shapes for name, shapes in seen if name == "stablehlo.select"]
        assert selects == [[(64,)], [(64,)]]  # the two selects of the one key's transform


def test_unrecognised_variants_fall_back(monkeypatch):
    """Different transforms on the two sides, or a transform reading another operand,
    are not key orders: the summary has no keys and the merge sort runs."""
    text = program(["f32"], 1, "new", (50,), 0, True)
    # canonicalise only the lhs: compare the rhs raw
    bad = text.replace(
        "%p0 = stablehlo.compare LT, %x0_3, %y0_3", "%p0 = stablehlo.compare LT, %x0_3, %arg1"
    )
    assert bad != text
    assert summarize(sort_region(bad)).sort_keys is None
    x = special_floats("f32", (50,), 4)
    x = np.where(np.isnan(x), np.float32(1), x).astype(np.float32)  # no NaN: a strict weak order
    (got,) = run(bad, [x])
    (want,) = ref_sort([x], 0, 1, descending=False)
    assert [ref_key(v) for v in got] == [ref_key(v) for v in want]
