"""Plans: what preparing a function produces, and what planning and execution share.

A function is prepared (``engine.interpreter``) into a ``FunctionPlan``: one
``BlockPlan`` per block, one ``Step`` per op, every SSA value a slot of a frame.  This
module holds those records, the limits and context of a run, the profile, and the small
helpers on types and values that planning, fast paths and step execution all use.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np

from ..parser.errors import HloError, InterpreterError, VerificationError
from ..parser.ir import (
    FloatType,
    Function,
    IntegerType,
    Operation,
    QuantizedType,
    TensorType,
    TokenType,
    TupleType,
    Type,
)
from .dtypes import dtype_of, static_shape
from .memory import DEFAULT_CAP
from .parallel import PARALLEL_MIN_ELEMENTS as _PARALLEL_MIN
from .parallel import workers
from .values import Token

if TYPE_CHECKING:
    from ..shape_inference.optable import OpDef
    from .interpreter import Interpreter
    from .ufunc import Ufunc

RETURN_OPS = frozenset({"func.return", "stablehlo.return", "return", "chlo.return", "sdy.return"})
CALL_OPS = frozenset({"func.call", "call"})

DEFAULT_MEMORY_CAP = DEFAULT_CAP  # bytes one tensor may take (engine/memory.py)

# Buffer reuse: results of at least this many elements may be written into a dying
# operand's buffer (smaller ones are cheaper to allocate than to check).
INPLACE_MIN_ELEMENTS = 4096
# Small fast steps of at most this many operands are written out inline by
# engine/emit.py (their operands fetched into the temporaries a0, a1, ...).
INLINE_MAX_OPERANDS = 5
# Split elementwise ops on at least this many elements over the threads of
# engine.parallel (NumPy releases the GIL in its loops).  None: never.
PARALLEL_MIN_ELEMENTS: int | None = _PARALLEL_MIN if workers() > 1 else None

_ndarray = np.ndarray
_asarray = np.asarray
try:  # NumPy >= 2: set the error state's context variable directly (10x cheaper)
    # (private NumPy names, absent from its stubs)
    from numpy._core._ufunc_config import (  # type: ignore[attr-defined]
        _extobj_contextvar,
        _make_extobj,
    )

    _IGNORE_ERRORS = _make_extobj(all="ignore")

    # for generated code (engine/entry.py): the variable and its quiet value
    ERRSTATE_VAR: Any = _extobj_contextvar
    IGNORE_ERRORS: Any = _IGNORE_ERRORS

    def quiet_errors() -> Any:
        return _extobj_contextvar.set(_IGNORE_ERRORS)

    def restore_errors(token: Any) -> None:
        _extobj_contextvar.reset(token)

except ImportError:  # pragma: no cover
    ERRSTATE_VAR = None
    IGNORE_ERRORS = None

    def quiet_errors() -> Any:
        state = np.errstate(all="ignore")
        state.__enter__()
        return state

    def restore_errors(token: Any) -> None:
        token.__exit__(None, None, None)


@dataclass
class Limits:
    """Resource limits of one run: a bad program fails with a clear error, never hangs
    or exhausts memory."""

    memory_cap: int = DEFAULT_MEMORY_CAP
    live_cap: int = DEFAULT_CAP  # bytes the live tensors of a block may take together
    max_steps: int | None = None
    timeout: float | None = None
    deadline: float | None = None  # set from timeout when a run starts
    steps: int = 0
    # the step count past which a run's compiled code calls its limit hook (engine/emit.py)
    check_at: int = 0


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

    def record(
        self,
        name: str,
        self_seconds: float,
        total: float,
        nbytes: int,
        op: Any = None,
        start: float = 0.0,
    ) -> None:
        """One op ran: ``op`` (the Operation) and ``start`` (perf_counter seconds) are
        for per-op profiles (engine/profile.py)."""
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


def value_nbytes(v: Any) -> int:
    if isinstance(v, np.ndarray | np.generic):
        return int(v.nbytes)
    if isinstance(v, tuple):
        return sum(value_nbytes(x) for x in v)
    return 0


# ------------------------------------------------------------------------------ helpers
def static_nbytes(t: Type) -> int | None:
    if isinstance(t, TensorType) and t.is_static:
        try:
            itemsize = dtype_of(t).itemsize
        except TypeError:
            return None
        n = 1
        for d in static_shape(t):
            n *= d
        return n * itemsize
    return None


def conforms(value: Any, t: Type, in_region: bool = False) -> bool:
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
            and all(conforms(v, s) for v, s in zip(value, t.types))
        )
    return True


def touches_quantized(op: Operation) -> bool:
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


def may_be_scalar(t: Type) -> bool:
    """Can a slot of type ``t`` hold a NumPy scalar (a 0-d value of a fast op)?"""
    return isinstance(t, TensorType) and (t.shape is None or t.shape == ())


def plain_dtype(t: Type) -> np.dtype | None:
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


def static_size(t: Type) -> int | None:
    if isinstance(t, TensorType) and t.is_static:
        n = 1
        for d in static_shape(t):
            n *= d
        return n
    return None


# Constant folding: pure ops whose operands are all constants run once, at plan time,
# when their result takes at most FOLD_MAX_BYTES.


def _not_compiled(frame: list[Any]) -> None:
    """``Step.run`` until ``StepCompiler`` compiles the step (never run in a plan)."""
    raise InterpreterError("internal error: a step ran before it was compiled")


class FastCall(NamedTuple):
    """How a fast-path step calls NumPy directly (engine/fastpath.py)."""

    fn: Callable[..., Any]
    row: Ufunc | None  # the op table's ufunc column entry, when ``fn`` is that ufunc's
    dtype: np.dtype  # the result's
    # operand positions whose buffer ``fn`` may write its result into, given as ``out=``
    # when that operand dies there and nobody else holds it (dynamic_update_slice's
    # operand); a ufunc row's operands all may
    into: tuple[int, ...] = ()


class InlineCall(NamedTuple):
    """A small elementwise step, written out by engine/emit.py: ``fn`` on the operands,
    a result of class ``scalar_type`` or an array of ``dtype`` kept, any other through
    ``fixer`` (the result check's slow path)."""

    fn: Callable[..., Any]
    dtype: np.dtype
    scalar_type: type
    fixer: Callable[[Any], Any]


class BigCall(NamedTuple):
    """A large step on one thread outside regions that may write into an operand (an
    elementwise op, a dynamic_update_slice: ``FastCall.into``), written out by
    engine/emit.py: ``ufunc(*operands, **kwargs)`` into the buffer of the operand at one
    of the positions ``reuse`` when it dies there and nobody else holds it
    (``ownership.sole_reference``), else into a new array of ``shape`` and ``dtype``."""

    ufunc: Any
    kwargs: dict[str, Any]
    dtype: np.dtype
    reuse: tuple[int, ...]
    shape: tuple[int, ...]
    fixer: Callable[[Any], Any]


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
    live: int = 0  # static size of the block's live tensors once this step ran
    in_region: bool = False
    kind: str = "kernel"  # kernel | call | constant | fast | select | while | if | case
    blocks: tuple[BlockPlan, ...] = ()  # plans of the op's regions (while/if/case)
    uses: frozenset[int] = frozenset()  # operands + enclosing values its regions read
    kills: tuple[int, ...] = ()  # slots whose last use is this step
    const: Any = None  # constant steps: the value
    fast: FastCall | None = None  # fast steps
    run: Callable[[list[Any]], None] = _not_compiled  # set by StepCompiler
    inline: InlineCall | None = None  # set by StepCompiler for engine.emit
    big: BigCall | None = None  # set by StepCompiler for engine.emit

    @property
    def name(self) -> str:
        return self.op.name


@dataclass(eq=False)
class BlockPlan:
    steps: list[Step]
    args: tuple[int, ...]
    returns: tuple[int, ...]
    bind: tuple[tuple[int, int], ...] = ()  # (argument #, slot) of the arguments it reads
    clear: tuple[int, ...] = ()  # its own slots still set after a run (region results)
    free: frozenset[int] = frozenset()  # slots of enclosing blocks it reads
    # a while body: the indices of its loop-invariant steps (``loop_invariant``), which
    # engine/emit.py runs once, at the first iteration; their result slots (``kept``)
    # hold their values through the loop and are cleared when it ends
    hoisted: tuple[int, ...] = ()
    kept: frozenset[int] = frozenset()
    # the largest static result bytes and ``Step.live`` of its steps and of the steps of
    # the while / if / case regions it runs inline (engine/memory.py: the caps)
    max_nbytes: int = 0
    max_live: int = 0
    # engine.fusion: first step index -> (its run's step indices, the run's closure)
    fused: dict[int, tuple[tuple[int, ...], Callable[[list[Any]], None]]] = field(
        default_factory=dict
    )
    # engine.emit: the block's function in each mode (flags: COUNT, CAPS, OBSERVE),
    # made on first use
    compiled: dict[int, Callable[[list[Any]], None]] = field(default_factory=dict)


def loop_invariant(
    bp: BlockPlan, consts: dict[int, Any], movable: Callable[[Step], bool]
) -> tuple[int, ...]:
    """The steps of while body ``bp`` whose values are the same at every iteration
    (XLA's while-loop-invariant code motion): a ``fast`` step (one NumPy call, no
    effects, no regions) that ``movable`` allows, outside batched regions, whose
    operands are each a body argument the body returns unchanged (a weight a scan
    carries), a constant, a value of an enclosing block, or the result of another such
    step, and whose result the body does not return (a loop-carried slot is reset at
    each iteration).  Their indices, in order."""
    defined = set(bp.args)
    for st in bp.steps:
        defined.update(st.results)
    same = {a for a, r in zip(bp.args, bp.returns) if a == r}
    returned = set(bp.returns)
    out: list[int] = []
    for k, st in enumerate(bp.steps):
        if (
            st.kind == "fast"
            and not st.in_region
            and len(st.results) == 1
            and st.results[0] not in returned
            and all(s in same or s in consts or s not in defined for s in st.operands)
            and movable(st)
        ):
            out.append(k)
            same.add(st.results[0])
    return tuple(out)


@dataclass(eq=False)
class FunctionPlan:
    function: Function
    block: BlockPlan | None = None
    nslots: int = 0
    frames: list[list[Any]] = field(default_factory=list)  # the stack of live frames
    consts: dict[int, Any] = field(default_factory=dict)  # slot -> constant value
    template: list[Any] = field(default_factory=list)  # a fresh frame: constants filled
    returns_consts: bool = False  # some result is a constant (the caller gets a copy)
    # 0-d arguments of plain dtypes: held in the frame as NumPy scalars, on which the
    # fast path's ops are scalar arithmetic (as for folded constants)
    scalar_args: tuple[int, ...] = ()


class Scope:
    """SSA name -> slot, with lexical nesting for regions (values from enclosing blocks
    are visible inside regions, as in MLIR)."""

    def __init__(self, plan: FunctionPlan, parent: Scope | None = None, batched: bool = False):
        self.plan = plan
        self.parent = parent
        self.names: dict[str, int] = {}
        # Inside a region a kernel calls on whole tensors (reduce, sort, scatter...):
        # values may carry extra leading dimensions.  While / if / case regions run
        # inline on exactly their declared values.
        self.batched: bool = batched or (parent is not None and parent.batched)

    def define(self, name: str) -> int:
        slot = self.plan.nslots
        self.plan.nslots += 1
        self.names[name] = slot
        return slot

    def lookup(self, name: str, op: Operation) -> int:
        scope: Scope | None = self
        while scope is not None:
            if name in scope.names:
                return scope.names[name]
            scope = scope.parent
        raise VerificationError(f"use of undefined value {name}", op.pos, op=op.name)


_ACCEPTS_OUT: dict[Any, bool] = {}


def accepts_out(row: OpDef) -> bool:
    """Does the row's kernel take ``out=`` (register option ``out=True``, or an ``out``
    parameter)?  It is then passed a dying operand's buffer of the result's dtype and
    shape, or None, and may write its result there."""
    fn = row.kernel
    got = _ACCEPTS_OUT.get(fn)
    if got is None:
        got = bool(row.kernel_options.get("out"))
        if not got:
            try:
                got = fn is not None and "out" in inspect.signature(fn).parameters
            except (TypeError, ValueError):
                got = False
        _ACCEPTS_OUT[fn] = got
    return got


def reraise(step: Step, e: BaseException) -> None:
    """Raise ``e`` as the error of ``step`` (its op name and location)."""
    op = step.op
    if isinstance(e, HloError):
        if e.pos is None:
            raise _at(type(e)(e.message, op.pos, op=e.op or op.name, label=e.label), op) from None
        raise _at(e, op)
    if isinstance(e, RecursionError):
        raise _at(InterpreterError("nesting too deep", op.pos, op=op.name), op) from None
    if isinstance(e, ValueError | TypeError | IndexError | ArithmeticError | MemoryError):
        message = f"kernel failed: {type(e).__name__}: {e}"
        raise _at(InterpreterError(message, op.pos, op=op.name), op) from e
    # the safety net: any other stray Python exception is a bug, reported as this op's
    # InterpreterError (chained to the original), never as a bare AttributeError
    message = f"internal error: {type(e).__name__}: {e}"
    raise _at(InterpreterError(message, op.pos, op=op.name), op) from e


def _at(err: HloError, op: Any) -> HloError:
    """``err`` remembering the ``loc(...)`` of the innermost op it came from (the
    user's source line, engine.loading.with_origin)."""
    if getattr(err, "location", None) is None:
        err.location = op.location
    return err


def bad_result(step: Step, value: Any, t: Type) -> None:
    raise InterpreterError(
        f"internal error: kernel produced {describe(value)} for declared type {t}",
        step.op.pos,
        op=step.op.name,
    )


def as_array(v: Any) -> Any:
    return _asarray(v) if isinstance(v, np.generic) else v
