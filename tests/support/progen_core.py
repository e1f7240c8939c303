"""progen's building blocks: operand and result types, op cases, random values, and
the drawing helpers its recipes share (tests/support/progen.py documents the API)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from math import prod

import numpy as np
from hypothesis import strategies as st

from tests.property.elements import (
    BOOL,
    BY_NAME,
    COMPLEXES,
    ET,
    FLOATS,
    SINTS,
    UINTS,
    dense,
    from_elems,
    to_elems,
)

# ---------------------------------------------------------------------------------------
# Types and values
# ---------------------------------------------------------------------------------------

INTS = SINTS + UINTS
NUMERIC = INTS + FLOATS + COMPLEXES
FC = FLOATS + COMPLEXES
NO_COMPLEX = (BOOL, *INTS, *FLOATS)
I32 = BY_NAME["i32"]
I64 = BY_NAME["i64"]
UI64 = BY_NAME["ui64"]
UI32 = BY_NAME["ui32"]
F32 = BY_NAME["f32"]
F64 = BY_NAME["f64"]
C64 = BY_NAME["complex<f32>"]
C128 = BY_NAME["complex<f64>"]
DIRECTIONS = ("EQ", "NE", "GE", "GT", "LE", "LT")
INDEX_TYPES = tuple(BY_NAME[n] for n in ("i8", "i16", "i32", "i64", "ui8", "ui32", "ui64"))


def tensor_type_text(shape: Sequence[int], et: ET) -> str:
    return "tensor<" + "".join(f"{d}x" for d in shape) + et.name + ">"


def dense_text(arr: np.ndarray, et: ET) -> str:
    """``dense<...> : tensor<...>`` of ``arr`` (floats as exact bit patterns)."""
    arr = np.asarray(arr)
    return f"{dense(to_elems(arr, et), arr.shape, et)} : {tensor_type_text(arr.shape, et)}"


@dataclass(frozen=True)
class TT:
    """A tensor type: shape and element type."""

    shape: tuple[int, ...]
    et: ET  # for a quantized type: its storage type
    dynamic: tuple[int, ...] = ()  # dimensions the declared type spells ``?``
    quant: str = ""  # a quantized element type's text (``!quant.uniform<...>``)

    @property
    def element_text(self) -> str:
        return self.quant or self.et.name

    @property
    def text(self) -> str:
        dims = "".join(
            ("?" if i in self.dynamic else str(d)) + "x" for i, d in enumerate(self.shape)
        )
        return f"tensor<{dims}{self.element_text}>"

    def with_dynamic(self, dims) -> TT:
        return TT(self.shape, self.et, tuple(dims), self.quant)

    def constant_text(self, arr: np.ndarray) -> str:
        """``dense<...> : type`` of ``arr`` (storage values for a quantized type)."""
        arr = np.asarray(arr)
        dims = "".join(f"{d}x" for d in arr.shape)
        return f"{dense(to_elems(arr, self.et), arr.shape, self.et)} : tensor<{dims}{self.element_text}>"


@dataclass(frozen=True)
class Arg:
    """An operand: its type and, when the op's constraints fix it, its value."""

    type: TT
    value: np.ndarray | None = field(default=None, compare=False)
    values: str = "any"  # "any" | "index" (small non-negative) | "positive" | "unit"
    param: bool = False  # a fixed value passed as a parameter (not a constant)


@dataclass(frozen=True)
class OpCase:
    """One op: ``"op"(operands) ({regions}) {attrs} : (types) -> results``."""

    op: str
    args: tuple[Arg, ...]
    results: tuple[TT, ...]
    attrs: str = ""
    regions: tuple[str, ...] = ()

    def op_text(self, names: Sequence[str], result: str) -> str:
        ins = ", ".join(a.type.text for a in self.args)
        outs = ", ".join(r.text for r in self.results)
        if len(self.results) != 1:
            outs = f"({outs})"
        regions = f" ({', '.join(self.regions)})" if self.regions else ""
        attrs = f" {{{self.attrs}}}" if self.attrs else ""
        lhs = f"{result}:{len(self.results)} = " if len(self.results) > 1 else f"{result} = "
        if not self.results:
            lhs = ""
        return f'{lhs}"{self.op}"({", ".join(names)}){regions}{attrs} : ({ins}) -> {outs}'


def result_refs(case: OpCase, r: str = "%r") -> list[str]:
    n = len(case.results)
    return [r] if n == 1 else [f"{r}#{i}" for i in range(n)]


def _uniform_int(rng: np.random.Generator, lo: int, hi: int) -> int:
    """A uniform integer in [lo, hi] (any width: Python ints)."""
    return lo + int.from_bytes(rng.bytes(16), "little") % (hi - lo + 1)


def random_array(rng: np.random.Generator, tt: TT, values: str = "any") -> np.ndarray:
    et, shape = tt.et, tt.shape
    n = prod(shape)
    if values == "index":
        return np.asarray(rng.integers(0, 4, size=shape)).astype(et.dtype)
    if et.kind == "bool":
        return rng.integers(0, 2, size=shape).astype(bool)
    if et.kind == "int":
        lo, hi = (max(et.min, -8), min(et.max, 8)) if rng.random() < 0.7 else (et.min, et.max)
        if values == "positive":
            lo = max(lo, 1)
        vals = [_uniform_int(rng, lo, hi) for _ in range(n)]
        return from_elems(vals, shape, et)
    fmt = et.fmt
    assert fmt is not None
    if values == "unit":
        x = rng.uniform(0.25, 1.0, size=shape)
    else:
        x = rng.standard_normal(size=shape) * 3.0
        if values == "positive":
            x = np.abs(x) + 0.5
    if et.kind == "complex":
        y = rng.standard_normal(size=shape) * 3.0
        return (x + 1j * y).astype(et.dtype)
    if et.name == "tf32":
        return x.astype(np.float32)
    if n and values == "any" and rng.random() < 0.3:  # a few raw bit patterns: specials
        bits = [_uniform_int(rng, 0, (1 << fmt.nbits) - 1) for _ in range(n)]
        return from_elems(bits, shape, et)
    with np.errstate(all="ignore"):
        return x.astype(np.float32).astype(et.dtype)


# ---------------------------------------------------------------------------------------
# Drawing helpers
# ---------------------------------------------------------------------------------------

RECIPES: dict[str, Callable[..., OpCase]] = {}


def recipe(*names: str):
    """Register ``fn(draw, op) -> OpCase`` for ``names``."""

    def wrap(fn):
        for n in names:
            RECIPES[n] = fn
        return fn

    return wrap


def draw_shape(draw, min_rank=0, max_rank=3, min_dim=0, max_dim=4, max_size=64) -> tuple[int, ...]:
    rank = draw(st.integers(min_rank, max_rank))
    dims = tuple(draw(st.integers(min_dim, max_dim)) for _ in range(rank))
    if prod(dims) > max_size:
        dims = tuple(min(d, 2) for d in dims)
    return dims


def draw_type(draw, types: Sequence[ET]) -> ET:
    return draw(st.sampled_from(list(types)))


def arr_attr(values: Sequence[int]) -> str:
    return (
        "array<i64" + (": " + ", ".join(str(int(v)) for v in values) if len(values) else "") + ">"
    )


def bools_attr(values: Sequence[bool]) -> str:
    return (
        "array<i1"
        + (": " + ", ".join("true" if v else "false" for v in values) if values else "")
        + ">"
    )


def i64_dense(values, shape) -> str:
    a = np.asarray(values, dtype=np.int64).reshape(shape)
    return dense_text(a, I64)


def scalar_type(et: ET) -> str:
    return tensor_type_text((), et)


def region_body(ets: Sequence[ET], combine: Callable[[int, str, str, ET], list[str] | str]) -> str:
    """A reduction body ``(a0..an-1, b0..bn-1) -> (r0..)`` on rank-0 tensors;
    ``combine(i, a, b, et)`` gives the op text(s) computing ``%r{i}``."""
    n = len(ets)
    args = [f"%a{i}: {scalar_type(e)}" for i, e in enumerate(ets)]
    args += [f"%b{i}: {scalar_type(e)}" for i, e in enumerate(ets)]
    lines = [f"^bb0({', '.join(args)}):"]
    for i, e in enumerate(ets):
        got = combine(i, f"%a{i}", f"%b{i}", e)
        lines.extend([got] if isinstance(got, str) else got)
    rets = ", ".join(f"%r{i}" for i in range(n))
    types = ", ".join(scalar_type(e) for e in ets)
    lines.append(f'"stablehlo.return"({rets}) : ({types}) -> ()')
    return "{\n    " + "\n    ".join(lines) + "\n  }"


def draw_combiner(draw, et: ET) -> str:
    if et.kind == "bool":
        return draw(st.sampled_from(["and", "or", "xor", "maximum", "minimum", "add"]))
    if et.kind == "complex":
        return draw(st.sampled_from(["add", "multiply"]))
    return draw(st.sampled_from(["add", "maximum", "minimum", "multiply"]))


def binary_line(name: str, i: int, a: str, b: str, et: ET) -> str:
    s = scalar_type(et)
    return f'%r{i} = "stablehlo.{name}"({a}, {b}) : ({s}, {s}) -> {s}'


def combine_body(draw, ets: Sequence[ET]) -> str:
    names = [draw_combiner(draw, e) for e in ets]
    return region_body(ets, lambda i, a, b, e: binary_line(names[i], i, a, b, e))


def draw_subset(draw, n: int, min_size=0, max_size=None) -> list[int]:
    return sorted(
        draw(st.lists(st.integers(0, n - 1), unique=True, min_size=min_size, max_size=max_size))
        if n
        else []
    )


def num_windows(size, window, stride, lo, hi, base_dil, win_dil) -> int:
    """spec reduce_window (C15) / convolution (C25)."""
    dilated = 0 if size == 0 else (size - 1) * base_dil + 1
    padded = lo + dilated + hi
    dwin = (window - 1) * win_dil + 1
    if padded <= 0 or dwin > padded:
        return 0
    return (padded - dwin) // stride + 1
