"""The interpreter: functions are prepared once into flat plans, then executed.

Preparing a function (spec "Program execution") resolves each op to its row of the op
table, decodes its attributes, checks its shape function, and assigns every SSA value a
slot in a frame.  Each op becomes a ``Step`` whose ``run(frame)`` closure does all the
work of executing it: fetch the operands from their slots, call the kernel, check the
result against the declared type, store it, and release the slots whose last use this
was.  Running a block is then ``for run in block.runs: run(frame)``.

What the plan decides once, so that running costs one Python call plus the kernel:

* constants, and pure ops of constants (``FOLDABLE``: broadcasts, reshapes, converts,
  elementwise ops...; results up to ``FOLD_MAX_BYTES``) are evaluated at plan time and
  pre-filled in every new frame (their arrays are shared across runs, so they are
  handed out read-only; a function result that is one is the caller's copy);
* liveness: each value's last use is computed per block (a use inside a nested region
  counts as a use by the op that owns the region); its slot is cleared right after, so
  peak memory stays near the largest live set;
* common elementwise ops on plain dtypes (``_FAST``: add, multiply, compare, ...) call
  a NumPy ufunc or operator directly: on 0-d values that is NumPy scalar arithmetic,
  and 0-d values may be kept in frames as NumPy scalars (converted back to 0-d arrays
  for every other kernel, region caller and function result);
* ``maximum(x, 0.0)`` (relu) on f32/f64 is ``max(x + 0, 0)``: exact, -0 < +0 included;
* buffer reuse: a large elementwise result (>= ``INPLACE_MIN_ELEMENTS``) is written into
  the buffer of an operand that dies at this op when nothing else can see that buffer
  (``sys.getrefcount`` proves no other slot, view, tuple, caller or constant holds it).
  Kernels that take ``out=`` (an ``out`` parameter, or register option ``out=True``)
  get such a buffer, or None;
* elementwise ops of at least ``PARALLEL_MIN_ELEMENTS`` run as one contiguous piece
  per thread (``engine.parallel``; ``HLORUN_THREADS=1``: one thread);
* while / if / case run their region plans inline, without ``RegionFn`` calls.

Limits (memory cap, step limit, time limit) and the per-op ``callback`` and profile
run a checked loop; without them the plain loop runs.  Every kernel result is checked
against the declared type (dtype and static shape), so a wrong kernel is an error,
never a silently wrong answer.
"""

from __future__ import annotations

import inspect
import operator
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any

import numpy as np

from ..parser.errors import (
    HloError,
    InterpreterError,
    UnsupportedError,
    VerificationError,
)
from ..parser.ir import (
    Block,
    FloatType,
    Function,
    IntegerType,
    Module,
    Operation,
    QuantizedType,
    Region,
    TensorType,
    TokenType,
    TupleType,
    Type,
)
from ..shape_inference.decode import decode_op_attributes
from ..shape_inference.optable import OP_TABLE, OpDef

from .dtypes import dtype_of
from .parallel import PARALLEL_MIN_ELEMENTS as _PARALLEL_MIN
from .parallel import run_all, split_points, workers
from .values import RegionFn, Token

RETURN_OPS = frozenset({"func.return", "stablehlo.return", "return", "chlo.return"})
CALL_OPS = frozenset({"func.call", "call"})

DEFAULT_MEMORY_CAP = 4 << 30  # bytes one tensor may take

# Buffer reuse: results of at least this many elements may be written into a dying
# operand's buffer (smaller ones are cheaper to allocate than to check).
INPLACE_MIN_ELEMENTS = 4096
# Split elementwise ops on at least this many elements over the threads of
# engine.parallel (NumPy releases the GIL in its loops).  None: never.
PARALLEL_MIN_ELEMENTS: int | None = _PARALLEL_MIN if workers() > 1 else None

_ndarray = np.ndarray
_asarray = np.asarray
_maximum = np.maximum
_minimum = np.minimum
_where = np.where
try:  # NumPy >= 2: set the error state's context variable directly (10x cheaper)
    from numpy._core._ufunc_config import _extobj_contextvar, _make_extobj

    _IGNORE_ERRORS = _make_extobj(all="ignore")

    def _quiet() -> Any:
        return _extobj_contextvar.set(_IGNORE_ERRORS)

    def _restore(token: Any) -> None:
        _extobj_contextvar.reset(token)

except ImportError:  # pragma: no cover

    def _quiet() -> Any:
        state = np.errstate(all="ignore")
        state.__enter__()
        return state

    def _restore(token: Any) -> None:
        token.__exit__(None, None, None)

_getrefcount = sys.getrefcount
_F32 = np.dtype(np.float32)
_F64 = np.dtype(np.float64)


@dataclass
class Limits:
    """Resource limits of one run: a bad program fails with a clear error, never hangs
    or exhausts memory."""

    memory_cap: int = DEFAULT_MEMORY_CAP
    max_steps: int | None = None
    timeout: float | None = None
    deadline: float | None = None  # set from timeout when a run starts
    steps: int = 0


@dataclass
class ExecutionContext:
    """What kernels registered with ``context=True`` receive as ``context=``."""

    interpreter: Interpreter
    float_eq: str = "bitwise"  # "bitwise" (spec) or "ieee" (official tool) for expect_eq
    probe_dir: str | None = None
    callback: Callable[..., Any] | None = None
    replica_id: int = 0
    partition_id: int = 0
    process: Any = None  # the process grid handle, for collectives
    infeed: list[Any] = field(default_factory=list)
    outfeed: list[Any] = field(default_factory=list)
    probe_counts: dict[str, int] = field(default_factory=dict)
    printed: list[str] = field(default_factory=list)


# ------------------------------------------------------------------------------ profile
@dataclass
class OpStats:
    """Time and bytes of one op kind in a profile."""

    count: int = 0
    seconds: float = 0.0  # self time: without the ops its regions or callee ran
    total: float = 0.0  # inclusive time
    bytes: int = 0  # bytes of the results it produced


class Profile:
    """Time and bytes per op kind, filled by runs with profiling on
    (``engine.run(..., profile=...)``, ``hlorun interpret --profile``)."""

    def __init__(self) -> None:
        self.ops: dict[str, OpStats] = {}
        self.runs = 0
        self._child = 0.0  # inclusive time of the steps nested in the current step

    def record(self, name: str, self_seconds: float, total: float, nbytes: int) -> None:
        s = self.ops.get(name)
        if s is None:
            s = self.ops[name] = OpStats()
        s.count += 1
        s.seconds += self_seconds
        s.total += total
        s.bytes += nbytes

    @property
    def seconds(self) -> float:
        return sum(s.seconds for s in self.ops.values())

    def table(self) -> str:
        """A text table, slowest op kinds first."""
        total = self.seconds or 1e-30
        rows = sorted(self.ops.items(), key=lambda kv: -kv[1].seconds)
        width = max([len("op"), *(len(n) for n in self.ops)])
        lines = [
            f"{'op':<{width}} {'count':>8} {'self ms':>10} {'%':>6} {'incl ms':>10} "
            f"{'us/call':>9} {'MB out':>9}"
        ]
        for name, s in rows:
            lines.append(
                f"{name:<{width}} {s.count:>8} {s.seconds * 1e3:>10.3f} "
                f"{100 * s.seconds / total:>6.1f} {s.total * 1e3:>10.3f} "
                f"{s.seconds / s.count * 1e6:>9.1f} {s.bytes / 1e6:>9.3f}"
            )
        lines.append(
            f"{'total':<{width}} {sum(s.count for s in self.ops.values()):>8} "
            f"{self.seconds * 1e3:>10.3f} {100.0:>6.1f}"
        )
        return "\n".join(lines)


def _value_nbytes(v: Any) -> int:
    if isinstance(v, np.ndarray | np.generic):
        return int(v.nbytes)
    if isinstance(v, tuple):
        return sum(_value_nbytes(x) for x in v)
    return 0


# ------------------------------------------------------------------------------ helpers
def _nbytes(t: Type) -> int | None:
    if isinstance(t, TensorType) and t.is_static:
        try:
            itemsize = dtype_of(t).itemsize
        except TypeError:
            return None
        n = 1
        for d in t.shape:
            n *= d
        return n * itemsize
    return None


def _conforms(value: Any, t: Type, in_region: bool = False) -> bool:
    """Does a kernel's result match its declared type (dtype, and static dims)?

    Inside regions, values may carry extra leading (batch) dimensions: reduce, sort and
    scatter bodies run on whole tensors at once, so only the dtype is checked there.
    """
    if isinstance(t, TensorType):
        if not isinstance(value, np.ndarray) or value.dtype != dtype_of(t):
            return False
        shape = t.shape
        if shape is None or in_region:
            return True
        if len(shape) != value.ndim:
            return False
        return all(d is None or d == s for d, s in zip(shape, value.shape))
    if isinstance(t, TokenType):
        return isinstance(value, Token)
    if isinstance(t, TupleType):
        return (
            isinstance(value, tuple)
            and len(value) == len(t.types)
            and all(_conforms(v, s) for v, s in zip(value, t.types))
        )
    return True


def _touches_quantized(op: Operation) -> bool:
    """Has the op a quantized operand or result (spec "quantized operation semantics")?"""
    for v in (*op.operands, *op.results):
        t = v.type
        if isinstance(t, TensorType) and isinstance(t.element_type, QuantizedType):
            return True
    return False


def describe(value: Any) -> str:
    if isinstance(value, np.ndarray):
        return f"array of shape {value.shape} and dtype {value.dtype}"
    return type(value).__name__


def _may_be_scalar(t: Type) -> bool:
    """Can a slot of type ``t`` hold a NumPy scalar (a 0-d value of a fast op)?"""
    return isinstance(t, TensorType) and (t.shape is None or t.shape == ())


def _plain_dtype(t: Type) -> np.dtype | None:
    """The dtype of ``t`` when NumPy computes on it natively: i1, 8..64-bit integers,
    f32, f64 (not tf32, f16, narrow floats, complex, quantized)."""
    if not isinstance(t, TensorType):
        return None
    e = t.element_type
    if isinstance(e, IntegerType):
        if e.width in (1, 8, 16, 32, 64):
            return dtype_of(t)
        return None
    if isinstance(e, FloatType) and e.name in ("f32", "f64"):
        return dtype_of(t)
    return None


def _static_size(t: Type) -> int | None:
    if isinstance(t, TensorType) and t.is_static:
        n = 1
        for d in t.shape:
            n *= d
        return n
    return None


# Constant folding: pure ops whose operands are all constants run once, at plan time,
# when their result takes at most FOLD_MAX_BYTES.
FOLD_MAX_BYTES = 4 << 20
FOLDABLE = frozenset(
    "stablehlo." + name
    for name in (
        "broadcast_in_dim broadcast reshape transpose slice concatenate pad reverse iota "
        "convert bitcast_convert compare select clamp add subtract multiply divide "
        "remainder power maximum minimum and or xor not negate abs sign floor ceil "
        "round_nearest_afz round_nearest_even sqrt rsqrt cbrt exponential "
        "exponential_minus_one log log_plus_one logistic tanh sine cosine tan atan2 "
        "is_finite popcnt count_leading_zeros shift_left shift_right_arithmetic "
        "shift_right_logical real imag complex"
    ).split()
)


# ----------------------------------------------------------------- fast elementwise ops
@dataclass(frozen=True)
class _Fast:
    """An elementwise op whose NumPy ufunc equals the spec (and our elementwise kernel)
    for the dtype kinds listed: ``b`` bool, ``i``/``u`` integers (wrapping), ``f``
    f32/f64.  ``exact``: computed natively in f32; otherwise f32 computes in f64 and
    rounds once, as the elementwise kernel does.  ``op``: the Python operator with the
    same meaning on NumPy scalars and arrays of one dtype (fast on 0-d values)."""

    ufunc: np.ufunc
    kinds: str
    op: Callable[..., Any] | None = None
    exact: bool = True


_FAST: dict[str, _Fast] = {
    "stablehlo.add": _Fast(np.add, "iuf", operator.add),
    "stablehlo.subtract": _Fast(np.subtract, "iuf", operator.sub),
    "stablehlo.multiply": _Fast(np.multiply, "iuf", operator.mul),
    "stablehlo.divide": _Fast(np.divide, "f", operator.truediv),
    "stablehlo.remainder": _Fast(np.fmod, "f"),
    "stablehlo.negate": _Fast(np.negative, "iuf", operator.neg),
    "stablehlo.abs": _Fast(np.absolute, "iuf", operator.abs),
    "stablehlo.sqrt": _Fast(np.sqrt, "f"),
    "stablehlo.floor": _Fast(np.floor, "f"),
    "stablehlo.ceil": _Fast(np.ceil, "f"),
    "stablehlo.round_nearest_even": _Fast(np.rint, "f"),
    "stablehlo.and": _Fast(np.bitwise_and, "biu", operator.and_),
    "stablehlo.or": _Fast(np.bitwise_or, "biu", operator.or_),
    "stablehlo.xor": _Fast(np.bitwise_xor, "biu", operator.xor),
    "stablehlo.not": _Fast(np.invert, "biu", operator.invert),
    # Float maximum/minimum order -0 < +0 (spec): not np.maximum; integers only.
    "stablehlo.maximum": _Fast(np.maximum, "iu"),
    "stablehlo.minimum": _Fast(np.minimum, "iu"),
    "stablehlo.exponential": _Fast(np.exp, "f", exact=False),
    "stablehlo.exponential_minus_one": _Fast(np.expm1, "f", exact=False),
    "stablehlo.log": _Fast(np.log, "f", exact=False),
    "stablehlo.log_plus_one": _Fast(np.log1p, "f", exact=False),
    "stablehlo.tanh": _Fast(np.tanh, "f", exact=False),
    "stablehlo.sine": _Fast(np.sin, "f", exact=False),
    "stablehlo.cosine": _Fast(np.cos, "f", exact=False),
    "stablehlo.tan": _Fast(np.tan, "f", exact=False),
    "stablehlo.cbrt": _Fast(np.cbrt, "f", exact=False),
    "stablehlo.atan2": _Fast(np.arctan2, "f", exact=False),
    "stablehlo.power": _Fast(np.power, "f", exact=False),
}

_COMPARE: dict[str, tuple[Callable[..., Any], np.ufunc]] = {
    "EQ": (operator.eq, np.equal),
    "NE": (operator.ne, np.not_equal),
    "LT": (operator.lt, np.less),
    "LE": (operator.le, np.less_equal),
    "GT": (operator.gt, np.greater),
    "GE": (operator.ge, np.greater_equal),
}


def _via_f64(ufunc: np.ufunc, dt: np.dtype) -> Callable[..., Any]:
    """``ufunc`` computed in float64 and rounded once to ``dt`` (f32)."""
    scalar = dt.type

    def call(*xs: Any) -> Any:
        y = ufunc(*xs, dtype=_F64)
        if y.__class__ is _ndarray:
            return y.astype(dt)
        return scalar(y)

    return call


def _select(pred: Any, on_true: Any, on_false: Any) -> Any:
    """spec select on one dtype: a scalar predicate picks a whole operand."""
    if pred.__class__ is np.bool_:
        return on_true if pred else on_false
    return np.where(pred, on_true, on_false)


def _float_max(a: Any, b: Any) -> Any:
    """spec maximum on f32/f64 (NaN propagates, -0 < +0): NumPy's maximum propagates
    NaN; where both are zeros, ``a + b`` is +0 unless both are -0.  (One formula for
    scalars, 0-d arrays and arrays: the kernel's ``_fmax`` costs ~5 us on a 0-d value.)"""
    r = _maximum(a, b)
    if r.__class__ is _ndarray:
        both = (a == b) & (r == 0)
        return _where(both, a + b, r) if both.any() else r
    return a + b if r == 0 and a == b else r


def _float_min(a: Any, b: Any) -> Any:
    """spec minimum on f32/f64: as ``_float_max``; -(-a - b) is -0 unless both are +0."""
    r = _minimum(a, b)
    if r.__class__ is _ndarray:
        both = (a == b) & (r == 0)
        return _where(both, -(-a - b), r) if both.any() else r
    return -(-a - b) if r == 0 and a == b else r


def _float_minmax(op: Operation, rt: Type, dt: np.dtype, kwargs: dict[str, Any]) -> Callable[..., Any] | None:
    if dt.kind != "f" or len(op.operands) != 2 or any(v.type != rt for v in op.operands):
        return None
    return _float_max if op.name == "stablehlo.maximum" else _float_min


def _fast_reshape(op: Operation, rt: Type, dt: np.dtype, kwargs: dict[str, Any]) -> Callable[..., Any] | None:
    """spec reshape (row-major) between static shapes of one plain dtype."""
    (x,) = op.operands
    if not (isinstance(rt, TensorType) and rt.is_static) or _plain_dtype(x.type) != dt:
        return None
    shape = tuple(rt.shape)
    return lambda a: a.reshape(shape)


# Conversions NumPy's ``astype`` (and the scalar constructor) does exactly as the spec's
# convert: integers of up to 32 bits and f32 are exact in f64, so whatever path NumPy
# takes rounds once to nearest even; integer narrowing wraps; x -> bool is x != 0.
_EXACT_INTO = {
    "f": lambda src, dst: src.kind in "bf" or (src.kind in "iu" and src.itemsize <= 4),
    "i": lambda src, dst: src.kind in "biu",
    "u": lambda src, dst: src.kind in "biu",
}


def _fast_convert(op: Operation, rt: Type, dt: np.dtype, kwargs: dict[str, Any]) -> Callable[..., Any] | None:
    (x,) = op.operands
    src = _plain_dtype(x.type)
    if src is None or getattr(x.type, "shape", None) != getattr(rt, "shape", ()):
        return None
    if src == dt:
        return lambda a: a.copy()
    if dt.kind == "b":
        if src.kind not in "biuf":
            return None
        return lambda a: a != 0
    exact = _EXACT_INTO.get(dt.kind)
    if exact is None or not exact(src, dt):
        return None
    scalar = dt.type
    return lambda a: a.astype(dt) if a.__class__ is _ndarray else scalar(a)


def _fast_broadcast_in_dim(op: Operation, rt: Type, dt: np.dtype, kwargs: dict[str, Any]) -> Callable[..., Any] | None:
    """spec broadcast_in_dim between static shapes of one plain dtype, laid out once by
    the kernel's ``broadcast_layout`` (small results are materialised: cheaper than
    NumPy's broadcast_to, and later ops read them faster)."""
    (x,) = op.operands
    xt = x.type
    if not (isinstance(rt, TensorType) and rt.is_static and isinstance(xt, TensorType)
            and xt.is_static) or _plain_dtype(xt) != dt:
        return None
    from .kernels.movement import broadcast_layout

    dims = tuple(int(d) for d in kwargs.get("broadcast_dimensions") or ())
    shape = tuple(rt.shape)
    if len(dims) != len(xt.shape) or any(not 0 <= r < len(shape) for r in dims):
        return None  # the kernel reports it
    try:
        perm, view = broadcast_layout(tuple(xt.shape), shape, dims)
    except InterpreterError:
        return None  # the kernel reports it, at run time
    if (_static_size(rt) or 0) > INPLACE_MIN_ELEMENTS:
        def big(a: Any) -> Any:
            return np.broadcast_to((a if perm is None else a.transpose(perm)).reshape(view), shape)

        return big

    def small(a: Any) -> Any:
        out = np.empty(shape, dt)
        out[...] = (a if perm is None else a.transpose(perm)).reshape(view)
        return out

    return small


def _fast_dot_general(op: Operation, rt: Type, dt: np.dtype, kwargs: dict[str, Any]) -> Callable[..., Any] | None:
    """dot_general on f32/f64 operands of the result's dtype and static shapes: the
    kernel's own ``dot_general_plan`` (same calls, same bits), worked out once."""
    if dt.kind != "f" or len(op.operands) != 2:
        return None
    lt, rt_ = (v.type for v in op.operands)
    if not all(isinstance(t, TensorType) and t.is_static and _plain_dtype(t) == dt
               for t in (lt, rt_, rt)):
        return None
    from .kernels.linalg import dot_general_plan

    dims = [tuple(kwargs.get(name) or ()) for name in (
        "lhs_batching_dimensions", "rhs_batching_dimensions",
        "lhs_contracting_dimensions", "rhs_contracting_dimensions")]
    lb, rb, lc, rc = dims
    ls, rs = tuple(lt.shape), tuple(rt_.shape)
    want = (tuple(ls[d] for d in lb)
            + tuple(n for d, n in enumerate(ls) if d not in lb and d not in lc)
            + tuple(n for d, n in enumerate(rs) if d not in rb and d not in rc))
    if tuple(rt.shape) != want:
        return None  # the kernel reports it
    return dot_general_plan(ls, rs, *dims)


_FAST_SPECIAL: dict[str, Callable[[Operation, Type, np.dtype, dict[str, Any]], Callable[..., Any] | None]] = {
    "stablehlo.dot_general": _fast_dot_general,
    "stablehlo.maximum": _float_minmax,
    "stablehlo.minimum": _float_minmax,
    "stablehlo.reshape": _fast_reshape,
    "stablehlo.convert": _fast_convert,
    "stablehlo.broadcast_in_dim": _fast_broadcast_in_dim,
}


def _fast_op(op: Operation, kwargs: dict[str, Any]) -> tuple[Callable[..., Any], _Fast | None, np.dtype] | None:
    """(callable, table row, result dtype) when ``op`` can skip its kernel; None otherwise."""
    if len(op.results) != 1 or not op.operands:
        return None
    rt = op.results[0].type
    dt = _plain_dtype(rt)
    if dt is None:
        return None
    name = op.name
    if name == "stablehlo.compare":
        if len(op.operands) != 2:
            return None
        t0 = op.operands[0].type
        if (
            op.operands[1].type != t0
            or _plain_dtype(t0) is None
            or dt.kind != "b"
            or t0.shape != rt.shape
            or kwargs.get("compare_type") == "TOTALORDER"
        ):
            return None
        fns = _COMPARE.get(kwargs.get("comparison_direction"))
        if fns is None:
            return None
        return fns[0], None, dt
    special = _FAST_SPECIAL.get(name)
    if special is not None:
        fn = special(op, rt, dt, kwargs)
        if fn is not None:
            return fn, None, dt
    row = _FAST.get(name)
    if row is None or dt.kind not in row.kinds or any(v.type != rt for v in op.operands):
        return None
    if dt == _F32 and not row.exact:
        return _via_f64(row.ufunc, dt), row, dt
    return (row.op or row.ufunc), row, dt


def _relu(x: Any, zero: Any, out: np.ndarray | None = None) -> Any:
    """spec maximum(x, +0) with -0 < +0: x + 0 turns -0 into +0 (and changes nothing
    else, NaN included); then NumPy's maximum (which propagates NaN) is exact."""
    z = zero.dtype.type(0)
    if out is None and x.__class__ is not _ndarray:
        return np.maximum(x + z, z)
    r = np.add(x, z, out=out)
    return np.maximum(r, z, out=r)


def _relu_op(op: Operation, operands: tuple[int, ...], consts: dict[int, Any]) -> tuple[Any, tuple[int, ...]] | None:
    """``maximum(x, c)`` (either order) on f32/f64 where ``c`` is a constant of +0.0s:
    the fast entry and the operands reordered to ``(x, c)``."""
    if len(operands) != 2 or len(op.results) != 1:
        return None
    rt = op.results[0].type
    dt = _plain_dtype(rt)
    if dt is None or dt.kind != "f" or any(v.type != rt for v in op.operands):
        return None
    for k in (1, 0):
        c = consts.get(operands[k])
        if c is not None and not np.any(c) and not np.any(np.signbit(c)):
            row = _Fast(_relu, "f", None)  # type: ignore[arg-type]
            return (_relu, row, dt), (operands[1 - k], operands[k])
    return None


def _parallel(ufunc: np.ufunc, xs: Sequence[np.ndarray], out: np.ndarray, **kw: Any) -> np.ndarray:
    """``ufunc(*xs, out=out)`` as one contiguous piece per thread (bit-identical: every
    element is computed by the same loop, pieces start on cache-line boundaries)."""
    flat = [x.reshape(-1) for x in xs]
    of = out.reshape(-1)
    cuts = split_points(of.size, workers())
    run_all([
        partial(ufunc, *[f[lo:hi] for f in flat], out=of[lo:hi], **kw)
        for lo, hi in zip(cuts, cuts[1:])
    ])
    return out


# ------------------------------------------------------------------------------ plans
@dataclass(eq=False)
class Step:
    op: Operation
    fn: Callable[..., Any]
    operands: tuple[int, ...]
    results: tuple[int, ...]
    kwargs: dict[str, Any]
    multi: bool
    check_types: tuple[Type, ...]
    nbytes: int  # static size of the results, checked against the memory cap
    in_region: bool = False
    kind: str = "kernel"  # kernel | call | constant | fast | select | while | if | case
    blocks: tuple[BlockPlan, ...] = ()  # plans of the op's regions (while/if/case)
    uses: frozenset[int] = frozenset()  # operands + enclosing values its regions read
    kills: tuple[int, ...] = ()  # slots whose last use is this step
    const: Any = None  # constant steps: the value
    fast: Any = None  # fast steps: (callable, _Fast row | None, dtype)
    run: Callable[[list[Any]], None] | None = None

    @property
    def name(self) -> str:
        return self.op.name


@dataclass(eq=False)
class BlockPlan:
    steps: list[Step]
    args: tuple[int, ...]
    returns: tuple[int, ...]
    runs: tuple[Callable[[list[Any]], None], ...] = ()  # steps that do work (no constants)
    bind: tuple[tuple[int, int], ...] = ()  # (argument #, slot) of the arguments it reads
    clear: tuple[int, ...] = ()  # its own slots still set after a run (region results)
    free: frozenset[int] = frozenset()  # slots of enclosing blocks it reads
    max_nbytes: int = 0


@dataclass(eq=False)
class FunctionPlan:
    function: Function
    block: BlockPlan | None = None
    nslots: int = 0
    frames: list[list[Any]] = field(default_factory=list)  # the stack of live frames
    consts: dict[int, Any] = field(default_factory=dict)  # slot -> constant value
    template: list[Any] = field(default_factory=list)  # a fresh frame: constants filled
    returns_consts: bool = False  # some result is a constant (the caller gets a copy)


class _Scope:
    """SSA name -> slot, with lexical nesting for regions (values from enclosing blocks
    are visible inside regions, as in MLIR)."""

    def __init__(self, plan: FunctionPlan, parent: _Scope | None = None, batched: bool = False):
        self.plan = plan
        self.parent = parent
        self.names: dict[str, int] = {}
        # Inside a region a kernel calls on whole tensors (reduce, sort, scatter...):
        # values may carry extra leading dimensions.  While / if / case regions run
        # inline on exactly their declared values.
        self.batched = batched or (parent is not None and parent.batched)

    def define(self, name: str) -> int:
        slot = self.plan.nslots
        self.plan.nslots += 1
        self.names[name] = slot
        return slot

    def lookup(self, name: str, op: Operation) -> int:
        scope: _Scope | None = self
        while scope is not None:
            if name in scope.names:
                return scope.names[name]
            scope = scope.parent
        raise VerificationError(f"use of undefined value {name}", op.pos, op=op.name)


def _combiner(region: Region) -> str | None:
    """``op`` when the region is exactly ``return op(arg0, arg1)`` (a binary combiner)."""
    if len(region.blocks) != 1:
        return None
    block = region.blocks[0]
    if len(block.arguments) != 2 or len(block.operations) != 2:
        return None
    body, ret = block.operations
    if ret.name not in RETURN_OPS or len(ret.operands) != 1 or len(body.results) != 1:
        return None
    if ret.operands[0].name != body.results[0].name or body.regions:
        return None
    names = [v.name for v in body.operands]
    args = [v.name for v in block.arguments]
    if names == args or (names == args[::-1]):
        return body.name
    return None


_ACCEPTS_OUT: dict[Any, bool] = {}


def _accepts_out(row: OpDef) -> bool:
    """Does the row's kernel take ``out=`` (register option ``out=True``, or an ``out``
    parameter)?  It is then passed a dying operand's buffer of the result's dtype and
    shape, or None, and may write its result there."""
    fn = row.kernel
    got = _ACCEPTS_OUT.get(fn)
    if got is None:
        got = bool(row.kernel_options.get("out"))
        if not got:
            try:
                got = "out" in inspect.signature(fn).parameters
            except (TypeError, ValueError):
                got = False
        _ACCEPTS_OUT[fn] = got
    return got


def _reraise(step: Step, e: BaseException) -> None:
    """Raise ``e`` as the error of ``step`` (its op name and location)."""
    op = step.op
    if isinstance(e, HloError):
        if e.pos is None:
            raise type(e)(e.message, op.pos, op=e.op or op.name, label=e.label) from None
        raise e
    if isinstance(e, RecursionError):
        raise InterpreterError("nesting too deep", op.pos, op=op.name) from None
    if isinstance(e, ValueError | TypeError | IndexError | ArithmeticError | MemoryError):
        raise InterpreterError(
            f"kernel failed: {type(e).__name__}: {e}", op.pos, op=op.name
        ) from e
    raise e


def _bad_result(step: Step, value: Any, t: Type) -> None:
    raise InterpreterError(
        f"internal error: kernel produced {describe(value)} for declared type {t}",
        step.op.pos,
        op=step.op.name,
    )


def _private_buffer(a: np.ndarray) -> bool:
    """May ``a`` (held by nobody but the caller, checked with getrefcount) be written?
    It must be writeable and own its memory, or be a view of an array that nothing but
    ``a`` holds (a kernel's reshaped or transposed result): any other view, tuple, slot
    or caller would hold a reference to that array."""
    if not a.flags.writeable:
        return False
    b = a.base
    if b is None:
        return True
    # ``a.base``, the local ``b`` and getrefcount's argument
    return b.__class__ is _ndarray and b.base is None and _getrefcount(b) == 3


def _as_array(v: Any) -> Any:
    return _asarray(v) if isinstance(v, np.generic) else v


class Interpreter:
    """Runs the functions of one module.  One instance per process of a process grid."""

    def __init__(
        self,
        module: Module,
        *,
        limits: Limits | None = None,
        context: dict[str, Any] | None = None,
        profile: Profile | None = None,
        inplace: bool = True,
        fast_ops: bool = True,
    ):
        self.module = module
        self.limits = limits or Limits()
        self.context = ExecutionContext(self, **(context or {}))
        self.profile = profile
        self.inplace = inplace  # buffer reuse (off: every result is a new array)
        self.fast_ops = fast_ops  # the _FAST table (off: every op calls its kernel)
        self._plans: dict[str, FunctionPlan] = {}
        self._depth = 0
        self._fast = True  # no limit, callback or profile to check per step

    # ---------------------------------------------------------------- preparing
    def plan(self, name: str) -> FunctionPlan:
        plan = self._plans.get(name)
        if plan is None:
            fn = self.module.functions.get(name)
            if fn is None:
                raise InterpreterError(f"no function named @{name} in the module")
            if fn.body is None:
                raise UnsupportedError(f"function @{name} is a declaration without a body", fn.pos)
            plan = self._plans[name] = FunctionPlan(fn)  # callees may refer to it (recursion)
            try:
                scope = _Scope(plan)
                plan.block = self._prepare_block(fn.body, scope, plan, top=True)
            except BaseException:
                del self._plans[name]
                raise
            template = [None] * plan.nslots
            for slot, value in plan.consts.items():
                template[slot] = value
            plan.template = template
            assert plan.block.args == tuple(range(len(plan.block.args)))
            plan.returns_consts = any(s in plan.consts for s in plan.block.returns)
        return plan

    def _prepare_block(
        self, region: Region, scope: _Scope, plan: FunctionPlan, top: bool = False
    ) -> BlockPlan:
        if len(region.blocks) != 1:
            raise UnsupportedError(
                f"regions with {len(region.blocks)} blocks are not supported (StableHLO uses one)"
            )
        block: Block = region.blocks[0]
        args = tuple(scope.define(v.name) for v in block.arguments)
        steps: list[Step] = []
        ops = block.operations
        if not ops or ops[-1].name not in RETURN_OPS:
            where = ops[-1] if ops else None
            raise VerificationError(
                "block must end with a return op",
                where.pos if where else plan.function.pos,
                op=where.name if where else None,
            )
        for op in ops[:-1]:
            steps.append(self._prepare_op(op, scope, plan))
        ret = ops[-1]
        returns = tuple(scope.lookup(v.name, ret) for v in ret.operands)
        bp = BlockPlan(steps, args, returns)
        self._liveness(bp, plan, top)
        for st in steps:
            st.run = self._compile(st, plan)
        bp.runs = tuple(st.run for st in steps if st.kind != "constant")
        bp.max_nbytes = max((st.nbytes for st in steps), default=0)
        return bp

    def _liveness(self, bp: BlockPlan, plan: FunctionPlan, top: bool) -> None:
        """Last uses: each step's ``kills``; the block's ``bind``, ``clear`` and ``free``."""
        steps = bp.steps
        defined = set(bp.args)
        for st in steps:
            defined.update(st.results)
        last: dict[int, int] = {}
        used: set[int] = set(bp.returns)
        for i, st in enumerate(steps):
            for s in st.uses:
                last[s] = i
            used |= st.uses
        returned = set(bp.returns)
        consts = plan.consts
        kills: list[list[int]] = [[] for _ in steps]
        for s, i in last.items():
            if s in defined and s not in returned and s not in consts:
                kills[i].append(s)
        for i, st in enumerate(steps):
            for r in st.results:
                if r in last or r in returned or r in consts:
                    continue
                # never read: released by the next step that runs (constants do not)
                nxt = next((j for j in range(i + 1, len(steps)) if steps[j].kind != "constant"), None)
                if nxt is not None:
                    kills[nxt].append(r)
        for st, k in zip(steps, kills):
            st.kills = tuple(sorted(set(k)))
        bp.free = frozenset(used - defined)
        bp.bind = tuple((k, s) for k, s in enumerate(bp.args) if s in used)
        if not top:
            bp.clear = tuple(s for s in dict.fromkeys(bp.returns) if s in defined and s not in consts)

    def _prepare_region(
        self, region: Region, scope: _Scope, plan: FunctionPlan, batched: bool = True
    ) -> BlockPlan:
        return self._prepare_block(region, _Scope(plan, scope, batched), plan)

    def _region_fn(self, inner: BlockPlan, region: Region, plan: FunctionPlan) -> RegionFn:
        run_block = self._run_block
        nargs, bind, returns, clear = len(inner.args), inner.bind, inner.returns, inner.clear

        def call(*values: Any) -> tuple[Any, ...]:
            frame = plan.frames[-1]
            if len(values) != nargs:
                raise InterpreterError(f"region takes {nargs} arguments, got {len(values)}")
            for k, slot in bind:
                frame[slot] = values[k]
            run_block(inner, frame)
            out = tuple([frame[s] for s in returns])
            for s in clear:
                frame[s] = None
            return tuple([_as_array(v) for v in out])

        return RegionFn(region=region, call=call, combiner=_combiner(region))

    def _prepare_op(self, op: Operation, scope: _Scope, plan: FunctionPlan) -> Step:
        operands = tuple(scope.lookup(v.name, op) for v in op.operands)
        in_region = scope.batched
        blocks: tuple[BlockPlan, ...] = ()
        kind = "kernel"
        fast = None
        if op.name in CALL_OPS:
            fn = self._call_kernel(op)
            kwargs: dict[str, Any] = {}
            multi = True
            kind = "call"
        else:
            row: OpDef | None = OP_TABLE.get(op.name)
            if row is None or row.kernel is None:
                raise UnsupportedError(f"op '{op.name}' is not supported", op.pos, op=op.name)
            kwargs = decode_op_attributes(op, row)
            quantized = _touches_quantized(op)
            if row.regions:
                inline = op.name in ("stablehlo.while", "stablehlo.if", "stablehlo.case")
                blocks = tuple(
                    self._prepare_region(r, scope, plan, batched=not inline) for r in op.regions
                )
                fns = [self._region_fn(b, r, plan) for b, r in zip(blocks, op.regions)]
                if row.variadic_regions:
                    kwargs[row.regions[0]] = tuple(fns)
                else:
                    if len(fns) != len(row.regions):
                        raise VerificationError(
                            f"expects {len(row.regions)} regions, got {len(fns)}",
                            op.pos,
                            op=op.name,
                        )
                    kwargs.update(zip(row.regions, fns))
                if not quantized and op.name in ("stablehlo.while", "stablehlo.if", "stablehlo.case"):
                    kind = op.name.split(".")[1]
            multi = row.multi_result
            if not quantized and not row.regions and self.fast_ops:
                relu = _relu_op(op, operands, plan.consts) if op.name == "stablehlo.maximum" else None
                fast = _fast_op(op, kwargs) if relu is None else None
                if relu is not None:
                    fast, operands = relu
                    kind = "fast"
                elif fast is not None:
                    kind = "fast"
                elif op.name == "stablehlo.select" and self._fast_select(op):
                    kind = "select"
            if multi:
                kwargs["result_types"] = op.result_types
            elif len(op.results) == 1:
                kwargs["result_type"] = op.results[0].type
            elif len(op.results) == 0:
                kwargs["result_type"] = None
            else:
                raise VerificationError(
                    f"has {len(op.results)} results but its kernel returns one", op.pos, op=op.name
                )
            if row.kernel_options.get("context"):
                kwargs["context"] = self.context
            if row.kernel_options.get("operand_types"):
                kwargs["operand_types"] = op.operand_types
            fn = row.kernel
            if quantized:
                from .kernels.quantization import quantized_kernel

                fn = quantized_kernel(op, row, fn)
            elif kind == "kernel" and self.inplace and _accepts_out(row):
                kind = "kernel_out"
        results = tuple(scope.define(v.name) for v in op.results)
        nbytes = sum(_nbytes(v.type) or 0 for v in op.results)
        uses = frozenset(operands).union(*(b.free for b in blocks))
        step = Step(
            op, fn, operands, results, kwargs, multi, op.result_types, nbytes,
            in_region=in_region, kind=kind, blocks=blocks, uses=uses, fast=fast,
        )
        if not op.regions:
            self._fold(step, plan)
        return step

    @staticmethod
    def _fast_select(op: Operation) -> bool:
        if len(op.operands) != 3 or len(op.results) != 1:
            return False
        rt = op.results[0].type
        pt = op.operands[0].type
        return (
            _plain_dtype(rt) is not None
            and op.operands[1].type == rt
            and op.operands[2].type == rt
            and isinstance(pt, TensorType)
            and _plain_dtype(pt) is not None
            and dtype_of(pt).kind == "b"
        )

    def _fold(self, step: Step, plan: FunctionPlan) -> None:
        """Constant folding: a constant, or a pure op (``FOLDABLE``) of constants, is
        evaluated once; its slot is pre-filled in every frame.  One whose kernel fails
        stays a step (it fails when, and only if, it runs)."""
        op = step.op
        if op.name == "stablehlo.constant":
            if len(step.results) != 1:
                return
        elif (
            op.name not in FOLDABLE
            or len(step.results) != 1
            or step.kind not in ("kernel", "fast", "select")
            or not all(s in plan.consts for s in step.operands)
            or not 0 < step.nbytes <= FOLD_MAX_BYTES
            or _touches_quantized(op)
        ):
            return
        try:
            args = [_as_array(plan.consts[s]) for s in step.operands]
            with np.errstate(all="ignore"):
                value = step.fn(*args, **step.kwargs)
        except Exception:
            return
        t = step.check_types[0]
        value = _as_array(value)
        if not _conforms(value, t):
            return
        if isinstance(value, np.ndarray):
            if value.ndim == 0 and _plain_dtype(t) is not None:
                value = value[()]  # a NumPy scalar: fast ops on it are scalar arithmetic
            else:
                if op.name != "stablehlo.constant" and not value.flags.c_contiguous:
                    # e.g. a broadcast bias: contiguous, ops on it run at full speed
                    value = value.copy(order="C")
                value = value.view()
                value.flags.writeable = False  # shared by every run: never written
        step.kind = "constant"
        step.const = value
        plan.consts[step.results[0]] = value

    def _call_kernel(self, op: Operation) -> Callable[..., Any]:
        callee = op.attr("callee")
        name = getattr(callee, "root", None)
        if name is None:
            raise VerificationError("requires a 'callee' symbol", op.pos, op=op.name)
        if name not in self.module.functions:
            raise VerificationError(f"'{name}' does not reference a valid function", op.pos, op=op.name)
        try:
            self.plan(name)  # prepared now; a callee that cannot be fails when called
        except HloError:
            pass

        def call(*args: Any) -> tuple[Any, ...]:
            return self.call(name, args)

        return call

    # ---------------------------------------------------------------- compiling steps
    def _compile(self, st: Step, plan: FunctionPlan) -> Callable[[list[Any]], None]:
        kind = st.kind
        if kind == "constant":
            return self._compile_constant(st)
        if kind == "fast":
            return self._compile_fast(st)
        if kind == "select":
            return self._compile_select(st)
        if kind == "while":
            return self._compile_while(st)
        if kind in ("if", "case"):
            return self._compile_branch(st)
        return self._compile_kernel(st)

    @staticmethod
    def _compile_constant(st: Step) -> Callable[[list[Any]], None]:
        slot, value = st.results[0], st.const

        def run(frame: list[Any]) -> None:
            frame[slot] = value

        return run

    def _fixer(self, st: Step, t: Type) -> Callable[[Any], Any]:
        """The slow path of the result check: a NumPy scalar becomes a 0-d array; a value
        that does not conform to ``t`` is an internal error."""
        in_region = st.in_region

        def fix(value: Any) -> Any:
            if value.__class__ is not _ndarray and isinstance(value, np.generic):
                value = _asarray(value)
            if not _conforms(value, t, in_region):
                _bad_result(st, value, t)
            return value

        return fix

    @staticmethod
    def _fast_check(st: Step, t: Type) -> tuple[Any, Any]:
        """(dtype, shape) a result is compared with on the fast path (``shape`` None: not
        checked there); (None, None) when only the slow path can check ``t``."""
        if not isinstance(t, TensorType):
            return None, None
        try:
            dt = dtype_of(t)
        except (TypeError, ValueError):
            return None, None
        shape = tuple(t.shape) if t.is_static and not st.in_region else None
        return dt, shape

    def _compile_kernel(self, st: Step) -> Callable[[list[Any]], None]:
        fn, kw, ops, res = st.fn, st.kwargs, st.operands, st.results
        kills = st.kills
        after = bool(st.blocks) or st.kind == "call"
        conv = tuple(k for k, v in enumerate(st.op.operands) if _may_be_scalar(v.type))
        if st.kind == "call":
            conv = ()  # callee frames may hold scalars
        multi = st.multi
        nres = len(res)
        if multi:
            fixers = tuple(self._fixer(st, t) for t in st.check_types)
            checks = tuple(self._fast_check(st, t) for t in st.check_types)
            items = tuple(zip(res, checks, fixers))
        else:
            t = st.check_types[0] if res else None
            fix = self._fixer(st, t) if res else None
            dt, shape = self._fast_check(st, t) if res else (None, None)
            slot = res[0] if res else None
        out_slots: tuple[tuple[int, int], ...] = ()
        if st.kind == "kernel_out" and res and not multi and shape is not None:
            size = _static_size(st.check_types[0])
            if size is not None and size >= INPLACE_MIN_ELEMENTS:
                out_slots = tuple(
                    (k, s) for k, s in enumerate(ops)
                    if s in kills and st.op.operands[k].type == st.check_types[0]
                    and ops.count(s) == 1
                )
        step = st

        def run(frame: list[Any]) -> None:
            args = [frame[i] for i in ops]
            for k in conv:
                a = args[k]
                if a.__class__ is not _ndarray and isinstance(a, np.generic):
                    args[k] = _asarray(a)
            if not after:
                for s in kills:
                    frame[s] = None
            try:
                if out_slots:
                    buf = None
                    for k, _s in out_slots:
                        a = args[k]
                        # the args list, ``a`` and getrefcount's argument: nobody else
                        if (
                            _getrefcount(a) == 3
                            and a.__class__ is _ndarray
                            and a.shape == shape
                            and _private_buffer(a)
                        ):
                            buf = a
                            break
                    a = None
                    out = fn(*args, out=buf, **kw)
                else:
                    out = fn(*args, **kw)
            except Exception as e:
                _reraise(step, e)
            if multi:
                if out.__class__ not in (tuple, list) or len(out) != nres:
                    got = f"{len(out)} values" if isinstance(out, tuple | list) else describe(out)
                    raise InterpreterError(
                        f"kernel returned {got} for {nres} results",
                        step.op.pos,
                        op=step.op.name,
                    )
                for (s, (cdt, cshape), cfix), value in zip(items, out):
                    if (
                        value.__class__ is not _ndarray
                        or value.dtype != cdt
                        or (cshape is not None and value.shape != cshape)
                    ):
                        value = cfix(value)
                    frame[s] = value
            elif slot is not None:
                if (
                    out.__class__ is not _ndarray
                    or out.dtype != dt
                    or (shape is not None and out.shape != shape)
                ):
                    out = fix(out)
                frame[slot] = out
            if after:
                for s in kills:
                    frame[s] = None

        return run

    def _compile_fast(self, st: Step) -> Callable[[list[Any]], None]:
        fn, row, dt = st.fast
        ops, kills, slot = st.operands, st.kills, st.results[0]
        sct = dt.type
        t = st.check_types[0]
        fix = self._fixer(st, t)
        step = st
        size = _static_size(t)
        shape = tuple(t.shape) if size is not None else None
        cands: tuple[int, ...] = ()
        if row is not None and self.inplace and size is not None and size >= INPLACE_MIN_ELEMENTS:
            cands = tuple(
                k for k, s in enumerate(ops) if s in kills and ops.count(s) == 1
            )
        # only compute-bound ops split: a memory-bound add is no faster on two threads
        par = (
            row is not None and not row.exact and size is not None
            and PARALLEL_MIN_ELEMENTS is not None and size >= PARALLEL_MIN_ELEMENTS
        )
        if cands or par:
            return self._compile_fast_big(st, row, dt, cands, shape, par, fix)
        if len(ops) == 2:
            i0, i1 = ops

            def run2(frame: list[Any]) -> None:
                a = frame[i0]
                b = frame[i1]
                for s in kills:
                    frame[s] = None
                try:
                    r = fn(a, b)
                except Exception as e:
                    _reraise(step, e)
                if r.__class__ is not sct and (r.__class__ is not _ndarray or r.dtype != dt):
                    r = fix(r)
                frame[slot] = r

            return run2
        if len(ops) == 1:
            (i0,) = ops

            def run1(frame: list[Any]) -> None:
                a = frame[i0]
                for s in kills:
                    frame[s] = None
                try:
                    r = fn(a)
                except Exception as e:
                    _reraise(step, e)
                if r.__class__ is not sct and (r.__class__ is not _ndarray or r.dtype != dt):
                    r = fix(r)
                frame[slot] = r

            return run1

        def runn(frame: list[Any]) -> None:
            args = [frame[i] for i in ops]
            for s in kills:
                frame[s] = None
            try:
                r = fn(*args)
            except Exception as e:
                _reraise(step, e)
            if r.__class__ is not sct and (r.__class__ is not _ndarray or r.dtype != dt):
                r = fix(r)
            frame[slot] = r

        return runn

    def _compile_fast_big(
        self, st: Step, row: _Fast, dt: np.dtype, cands: tuple[int, ...],
        shape: tuple[int, ...], par: bool, fix: Callable[[Any], Any],
    ) -> Callable[[list[Any]], None]:
        """A large elementwise op: into a dying operand's buffer when nobody else can see
        it, else into a new array; on two threads when ``par``."""
        ufunc = row.ufunc
        kw = {} if row.exact or dt != _F32 else {"dtype": _F64}
        ops, kills, slot = st.operands, st.kills, st.results[0]
        batched = st.in_region
        step = st

        def run(frame: list[Any]) -> None:
            args = [frame[i] for i in ops]
            for s in kills:
                frame[s] = None
            buf = None
            for k in cands:
                a = args[k]
                # the args list, ``a`` and getrefcount's argument: nobody else holds it
                if (
                    _getrefcount(a) == 3
                    and a.__class__ is _ndarray
                    and (not batched or a.shape == shape)
                    and _private_buffer(a)
                ):
                    buf = a
                    break
            a = None
            try:
                if batched and any(x.__class__ is not _ndarray or x.shape != shape for x in args):
                    r = ufunc(*args, **kw)  # extra (batch) dimensions
                    if kw:
                        r = r.astype(dt)
                elif par and all(x.flags.c_contiguous for x in args):
                    r = _parallel(ufunc, args, buf if buf is not None else np.empty(shape, dt), **kw)
                elif buf is not None:
                    r = ufunc(*args, out=buf, **kw)
                elif kw:
                    r = ufunc(*args, out=np.empty(shape, dt), **kw)
                else:
                    r = ufunc(*args)
            except Exception as e:
                _reraise(step, e)
            if r.__class__ is not _ndarray or r.dtype != dt:
                r = fix(r)
            frame[slot] = r

        return run

    def _compile_select(self, st: Step) -> Callable[[list[Any]], None]:
        i0, i1, i2 = st.operands
        kills, slot = st.kills, st.results[0]
        dt = dtype_of(st.check_types[0])
        sct = dt.type
        fix = self._fixer(st, st.check_types[0])
        step = st

        def run(frame: list[Any]) -> None:
            p = frame[i0]
            a = frame[i1]
            b = frame[i2]
            for s in kills:
                frame[s] = None
            try:
                r = _select(p, a, b)
            except Exception as e:
                _reraise(step, e)
            if r.__class__ is not sct and (r.__class__ is not _ndarray or r.dtype != dt):
                r = fix(r)
            frame[slot] = r

        return run

    def _compile_while(self, st: Step) -> Callable[[list[Any]], None]:
        """spec "while", with its cond and body plans run inline."""
        cond, body = st.blocks
        ops, res, kills = st.operands, st.results, st.kills
        nvals = len(ops)
        if len(cond.args) != nvals or len(body.args) != nvals or len(body.returns) != nvals:
            return self._compile_kernel(st)
        if len(cond.returns) != 1 or len(res) != nvals or nvals == 0:
            return self._compile_kernel(st)
        cbind, bbind = cond.bind, body.bind
        cret = cond.returns[0]
        cclear, bclear = cond.clear, body.clear
        # Big loop-carried buffers are reused in place when the body's result slots are
        # cleared every iteration; for small values that is not worth its cost.
        clear_each = any(
            (_static_size(t) or INPLACE_MIN_ELEMENTS) >= INPLACE_MIN_ELEMENTS
            for t in st.check_types
        )
        get_vals = operator.itemgetter(*body.returns)
        if nvals == 1:
            (r0,) = body.returns

            def get_vals(frame: list[Any]) -> tuple[Any, ...]:
                return (frame[r0],)

        cruns, bruns = cond.runs, body.runs
        # operands that die here and that the regions do not read: released before the
        # loop, so the loop-carried values are held by the loop alone
        early = tuple(s for s in kills if s in ops and s not in cond.free | body.free)
        kills = tuple(s for s in kills if s not in early)
        cap_bytes = max(cond.max_nbytes, body.max_nbytes)
        limits = self.limits
        run_block = self._run_block
        step = st

        def run(frame: list[Any]) -> None:
            vals = [frame[i] for i in ops]
            for s in early:
                frame[s] = None
            fast = self._fast and cap_bytes <= limits.memory_cap
            max_steps = limits.max_steps
            n = 0
            try:
                while True:
                    if max_steps is not None:
                        limits.steps += 1
                        if limits.steps > max_steps:
                            raise InterpreterError(
                                f"step limit of {max_steps} ops exceeded", op=step.op.name
                            )
                    else:
                        n += 1
                    if limits.deadline is not None and time.monotonic() > limits.deadline:
                        raise InterpreterError(
                            f"time limit of {limits.timeout} s exceeded", op=step.op.name
                        )
                    for k, s in cbind:
                        frame[s] = vals[k]
                    if fast:
                        for r in cruns:
                            r(frame)
                    else:
                        run_block(cond, frame)
                    if not frame[cret]:
                        break
                    for k, s in bbind:
                        frame[s] = vals[k]
                    vals = None  # the body's slots alone hold the values: buffers reusable
                    if fast:
                        for r in bruns:
                            r(frame)
                    else:
                        run_block(body, frame)
                    vals = get_vals(frame)
                    if clear_each:
                        for s in bclear:
                            frame[s] = None
            except Exception as e:
                _reraise(step, e)
            finally:
                limits.steps += n
                for s in cclear:
                    frame[s] = None
                for s in bclear:
                    frame[s] = None
            for s, v in zip(res, vals):
                frame[s] = v
            for s in kills:
                frame[s] = None

        return run

    def _compile_branch(self, st: Step) -> Callable[[list[Any]], None]:
        """spec "if" / "case": the chosen branch's plan runs inline."""
        blocks = st.blocks
        res, kills = st.results, st.kills
        if any(b.args or len(b.returns) != len(res) for b in blocks):
            return self._compile_kernel(st)
        (i0,) = st.operands
        is_if = st.kind == "if"
        if is_if and len(blocks) != 2:
            return self._compile_kernel(st)
        run_block = self._run_block
        last = len(blocks) - 1
        step = st

        def run(frame: list[Any]) -> None:
            x = frame[i0]
            try:
                if is_if:
                    b = blocks[0] if x else blocks[1]
                else:
                    i = int(x)
                    b = blocks[i if 0 <= i < last else last]
                run_block(b, frame)
            except Exception as e:
                _reraise(step, e)
            vals = [frame[s] for s in b.returns]
            for s in b.clear:
                frame[s] = None
            for s, v in zip(res, vals):
                frame[s] = v
            for s in kills:
                frame[s] = None

        return run

    # ---------------------------------------------------------------- running
    def _update_mode(self) -> None:
        limits = self.limits
        self._fast = (
            limits.max_steps is None
            and limits.deadline is None
            and self.context.callback is None
            and self.profile is None
        )

    def call(self, name: str, args: Sequence[Any]) -> tuple[Any, ...]:
        plan = self._plans.get(name)
        if plan is None or plan.block is None:
            plan = self.plan(name)
        block = plan.block
        assert block is not None
        nargs = len(block.args)
        if len(args) != nargs:
            raise InterpreterError(
                f"@{name} takes {nargs} arguments, got {len(args)}",
                plan.function.pos,
            )
        frames = plan.frames
        if len(frames) > 2000:
            raise InterpreterError(f"call depth limit exceeded in @{name}", plan.function.pos)
        frame = plan.template.copy()
        frame[:nargs] = args  # a function's arguments take its first slots
        frames.append(frame)
        top = self._depth == 0
        self._depth += 1
        try:
            if top:
                self._update_mode()
                token = _quiet()  # NumPy float warnings: the spec defines these results
                try:
                    self._run_block(block, frame)
                finally:
                    _restore(token)
            else:
                self._run_block(block, frame)
            out = [frame[s] for s in block.returns]
        finally:
            self._depth -= 1
            frames.pop()
        del frame
        return tuple(self._outputs(plan, out, top))

    def _outputs(self, plan: FunctionPlan, out: list[Any], top: bool) -> list[Any]:
        """A function's results as arrays; a caller outside the interpreter (``top``)
        gets its own copy of a result that is a shared constant."""
        if top and plan.returns_consts:
            consts = plan.consts
            return [self._result_copy(v) if s in consts else _as_array(v)
                    for s, v in zip(plan.block.returns, out)]
        return [v if v.__class__ is _ndarray else _as_array(v) for v in out]

    def call_plain(self, plan: FunctionPlan, args: list[Any]) -> list[Any]:
        """``call`` of a planned top-level function with no limit, callback or profile
        to check (``engine.compile``'s common case): the steps and nothing else."""
        block = plan.block
        if self._depth or not self._fast or block.max_nbytes > self.limits.memory_cap:
            return list(self.call(plan.function.name, args))
        frame = plan.template.copy()
        frame[: len(args)] = args
        frames = plan.frames
        frames.append(frame)
        self._depth = 1
        token = _quiet()
        try:
            for run in block.runs:
                run(frame)
            out = [frame[s] for s in block.returns]
        finally:
            _restore(token)
            self._depth = 0
            frames.pop()
        del frame
        return self._outputs(plan, out, True)

    @staticmethod
    def _result_copy(v: Any) -> Any:
        """A function result that is a (shared, read-only) constant: the caller's copy."""
        if isinstance(v, np.ndarray | np.generic):
            return np.array(v)
        return v

    def _run_block(self, block: BlockPlan, frame: list[Any]) -> None:
        limits = self.limits
        if self._fast and block.max_nbytes <= limits.memory_cap:
            for run in block.runs:
                run(frame)
            limits.steps += len(block.steps)
            return
        self._run_checked(block, frame)

    def _run_checked(self, block: BlockPlan, frame: list[Any]) -> None:
        """The loop with limits, callback and profile checked at every step."""
        limits = self.limits
        cap = limits.memory_cap
        cb = self.context.callback
        prof = self.profile
        for step in block.steps:
            if step.nbytes > cap:
                raise InterpreterError(
                    f"result would take {step.nbytes} bytes, more than the memory cap "
                    f"of {cap} bytes",
                    step.op.pos,
                    op=step.op.name,
                )
            limits.steps += 1
            if limits.max_steps is not None and limits.steps > limits.max_steps:
                raise InterpreterError(
                    f"step limit of {limits.max_steps} ops exceeded", step.op.pos, op=step.op.name
                )
            if limits.deadline is not None and (limits.steps & 255) == 0:
                if time.monotonic() > limits.deadline:
                    raise InterpreterError(
                        f"time limit of {limits.timeout} s exceeded", step.op.pos, op=step.op.name
                    )
            if prof is not None:
                saved = prof._child
                prof._child = 0.0
                t0 = time.perf_counter()
                try:
                    step.run(frame)
                finally:
                    dt = time.perf_counter() - t0
                    inner = prof._child
                    prof._child = saved + dt
                nbytes = sum(_value_nbytes(frame[s]) for s in step.results)
                name = step.op.name
                if step.kind == "constant" and name != "stablehlo.constant":
                    name += " (folded)"
                prof.record(name, dt - inner, dt, nbytes)
            else:
                step.run(frame)
            if cb is not None and step.results:
                cb(step.op.name, step.op.pos, [_as_array(frame[s]) for s in step.results])

    def check_limits_per_iteration(self, op_name: str = "stablehlo.while") -> None:
        """Called by looping kernels once per iteration."""
        limits = self.limits
        limits.steps += 1
        if limits.max_steps is not None and limits.steps > limits.max_steps:
            raise InterpreterError(f"step limit of {limits.max_steps} ops exceeded", op=op_name)
        if limits.deadline is not None and time.monotonic() > limits.deadline:
            raise InterpreterError(f"time limit of {limits.timeout} s exceeded", op=op_name)
