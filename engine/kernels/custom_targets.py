"""Built-in ``stablehlo.custom_call`` targets: the ones jax.export emits.

jax guarantees a list of targets stable for export
(jax/_src/export/_export.py ``_CUSTOM_CALL_TARGETS_GUARANTEED_STABLE``); XLA runs each
only on its own platform.  hlorun runs them all on CPU as the same math:

* this module: the registry (``builtin_target``), the per-call view (``Call``: backend
  config, layouts, batching), and the targets that are not solvers: AllocateBuffer,
  the sharding annotations, shape_assertion, ApproxTopK, the GPU threefry and
  lu_pivots_to_permutation kernels, and the targets that cannot run here;
* solver_lapack.py (CPU LAPACK FFI), solver_gpu.py (cuSOLVER / hipSOLVER / cuSPARSE),
  solver_tpu.py (Eigh, Qr, ProductOfElementaryHouseholderReflectors, LuDecomposition);
* dynamic_targets.py: stablehlo.dynamic_{top_k,approx_top_k,reduce_window,
  rng_bit_generator} (shape polymorphism).

User-registered targets (``engine.register_custom_call``, defined here) take precedence
over these.  A user target is called as ``fn(*operands, **keywords)`` with the keywords
its signature names (all of them when it takes ``**kwargs``):

* ``result_types``: the op's result types (``parser.ir`` types);
* ``backend_config``: a dict (``api_version = 4``, typed FFI; also jax's
  ``mhlo.backend_config``) or the string, None when the op has none;
* ``api_version`` (int), ``has_side_effect`` (bool);
* ``called_computations``: one callable per ``called_computations`` function,
  ``f(*arrays) -> tuple of arrays`` (runs that function of the module);
* ``attributes``: every attribute of the op, decoded (a dict by name).

It returns one value per result (a tuple, or a single array for one result); for one
result of tuple type, ``result_types`` are the tuple's elements and it returns one value
per element (``with_tuple_result``).
"""

from __future__ import annotations

import inspect
import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ...parser.errors import InterpreterError, UnsupportedError
from ...parser.ir import TensorType, TupleType, Type
from ..dtypes import dtype_of
from .chlo_structured import _descending_key

# A target: fn(call, *operands) -> tuple of results (any array-likes; cast by the caller).
Target = Callable[..., Any]

_TARGETS: dict[str, Target] = {}
_PREFIX_TARGETS: list[tuple[str, Target]] = []


def target(*names: str) -> Callable[[Target], Target]:
    """Decorator: register a built-in target under each of ``names`` (a name ending
    in ``*`` registers a prefix)."""

    def wrap(fn: Target) -> Target:
        for n in names:
            if n.endswith("*"):
                _PREFIX_TARGETS.append((n[:-1], fn))
            else:
                _TARGETS[n] = fn
        return fn

    return wrap


def builtin_target(name: str) -> Callable[..., tuple[Any, ...]] | None:
    """The kernel of built-in target ``name``, or None.  The kernel takes the
    custom_call kernel's arguments (``*operands, result_types, context, **attrs``).
    The families register on import; they load with the stablehlo.custom_call row
    (engine/kernels/families.py), whose kernel is the one calling this."""
    fn = _TARGETS.get(name)
    if fn is None:
        fn = next((f for p, f in _PREFIX_TARGETS if name.startswith(p)), None)
    if fn is None:
        return None

    def run(*operands: Any, result_types: Sequence[Type], context: Any, **attrs: Any):
        call = Call(name, tuple(result_types), context, attrs)
        return call.cast(fn(call, *operands))

    return with_tuple_result(run)


def with_tuple_result(run: Callable[..., Any]) -> Callable[..., Any]:
    """``run`` (a custom_call kernel) also for one result of tuple type, as XLA's
    builder libraries write ``Qr``, ``Eigh``, ``LuDecomposition``
    (xla/hlo/builder/lib/{qr,self_adjoint_eig,lu_decomposition}.cc): the target
    computes the tuple's elements, packed into the one tuple value that
    ``get_tuple_element`` reads."""

    def wrapped(*operands: Any, result_types: Sequence[Type], **kw: Any) -> Any:
        if len(result_types) == 1 and isinstance(result_types[0], TupleType):
            out = run(*operands, result_types=result_types[0].types, **kw)
            out = out if isinstance(out, tuple | list) else (out,)
            return (tuple(np.asarray(v) if isinstance(v, np.generic) else v for v in out),)
        return run(*operands, result_types=result_types, **kw)

    return wrapped


# ----------------------------------------------------------------------------- user targets

# name -> (fn, the keywords it takes, or None for all of them)
USER_TARGETS: dict[str, tuple[Callable[..., Any], frozenset[str] | None]] = {}
_USER_KEYWORDS = frozenset(
    {
        "result_types",
        "backend_config",
        "api_version",
        "has_side_effect",
        "called_computations",
        "attributes",
    }
)


def register_custom_call(name: str, fn: Callable[..., Any], *, replace: bool = False) -> None:
    """Plug in a ``stablehlo.custom_call`` target: ``fn(*operands, **keywords)``, the
    keywords of this module's docstring that ``fn`` names (``result_types``,
    ``backend_config``, ``api_version``, ``has_side_effect``, ``called_computations``,
    ``attributes``), returns one value per result.  ``replace=True`` replaces a target
    registered before (else that is a ValueError)."""
    if name in USER_TARGETS and not replace:
        raise ValueError(f"custom_call target {name!r} is already registered")
    USER_TARGETS[name] = (fn, _keywords_of(fn))


def _keywords_of(fn: Callable[..., Any]) -> frozenset[str] | None:
    """The keywords of _USER_KEYWORDS that ``fn`` takes; None when it takes **kwargs."""
    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return frozenset({"result_types"})
    if any(p.kind is p.VAR_KEYWORD for p in params):
        return None
    return frozenset(p.name for p in params if p.name in _USER_KEYWORDS)


def user_target(name: str) -> Callable[..., Any] | None:
    """The kernel of user target ``name`` (taking the custom_call kernel's arguments),
    or None."""
    entry = USER_TARGETS.get(name)
    if entry is None:
        return None
    fn, wanted = entry

    def run(*operands: Any, result_types: Sequence[Type], context: Any, **attrs: Any) -> Any:
        keywords = {
            "result_types": result_types,
            "backend_config": _backend_config(attrs),
            "api_version": _api_version(attrs.get("api_version", 1)),
            "has_side_effect": bool(attrs.get("has_side_effect", False)),
            "called_computations": tuple(
                _callee(context, c) for c in attrs.get("called_computations") or ()
            ),
            "attributes": dict(attrs),
        }
        if wanted is not None:
            keywords = {k: v for k, v in keywords.items() if k in wanted}
        return fn(*operands, **keywords)

    return with_tuple_result(run)


def _backend_config(attrs: dict[str, Any]) -> dict[str, Any] | str | None:
    for key in ("backend_config", "mhlo.backend_config"):
        value = attrs.get(key)
        if value is not None:
            return value
    return None


_API_VERSION_NAMES = {
    "API_VERSION_UNSPECIFIED": 0,
    "API_VERSION_ORIGINAL": 1,
    "API_VERSION_STATUS_RETURNING": 2,
    "API_VERSION_STATUS_RETURNING_UNIFIED": 3,
    "API_VERSION_TYPED_FFI": 4,
}


def _api_version(value: Any) -> int:
    """The api_version as its number (the enum's names as StableHLO spells them)."""
    if isinstance(value, str):
        return _API_VERSION_NAMES.get(value, 1)
    return int(value)


def _callee(context: Any, name: Any) -> Callable[..., tuple[Any, ...]]:
    """A called computation as a callable running that function of the module."""
    fname = str(getattr(name, "root", name)).lstrip("@")

    def call(*args: Any) -> tuple[Any, ...]:
        return tuple(context.interpreter.call(fname, args))

    call.__name__ = fname
    return call


# ----------------------------------------------------------------------------- shape operands


def split_shape_operands(
    name: str,
    operands: Sequence[Any],
    operand_types: Sequence[Type] | None,
    result_types: Sequence[Type],
    listed: Any,
) -> tuple[tuple[Any, ...], tuple[Type, ...] | None, tuple[Type, ...]]:
    """The operands a target computes on, their types, and the result types made static,
    for a call with ``indices_of_shape_operands``: jax's ``mlir.custom_call``
    (jax/_src/interpreters/mlir.py, ``result_shapes``; jax.ffi adds them for every FFI
    call of a shape-polymorphic export) appends one 1-D integer operand per result
    holding that result's shape, and names their positions in that attribute
    (``listed``); XLA's shape refinement reads the shapes from them and drops them.  A
    call without the attribute (``listed`` None) is returned as it is."""
    if listed is None:
        return (
            tuple(operands),
            None if operand_types is None else tuple(operand_types),
            tuple(result_types),
        )
    idx = [int(i) for i in np.asarray(listed).reshape(-1)]
    if len(idx) != len(result_types) or any(not 0 <= i < len(operands) for i in idx):
        raise InterpreterError(
            f"custom_call target '{name}': indices_of_shape_operands {idx} must name one of "
            f"its {len(operands)} operands for each of its {len(result_types)} results"
        )
    types = []
    for i, t in zip(idx, result_types):
        dims = tuple(int(d) for d in np.asarray(operands[i]).reshape(-1))
        if not isinstance(t, TensorType) or t.shape is None:
            types.append(t)
            continue
        if len(dims) != len(t.shape) or any(
            d < 0 or (s is not None and s != d) for d, s in zip(dims, t.shape)
        ):
            raise InterpreterError(
                f"custom_call target '{name}': shape operand #{i} holds {list(dims)}, "
                f"which does not fit its result type {t}"
            )
        types.append(TensorType(dims, t.element_type, t.encoding))
    drop = set(idx)
    keep = [j for j in range(len(operands)) if j not in drop]
    kept_types = None if operand_types is None else tuple(operand_types[j] for j in keep)
    return tuple(operands[j] for j in keep), kept_types, tuple(types)


# ----------------------------------------------------------------------------- the call


def _config(attrs: dict[str, Any]) -> dict[str, Any]:
    """The FFI attributes: ``mhlo.backend_config = {...}`` (api_version < 4) or
    ``backend_config = {...}`` (api_version 4, typed FFI)."""
    for key in ("mhlo.backend_config", "backend_config"):
        value = attrs.get(key)
        if isinstance(value, dict):
            return value
    return {}


@dataclass(frozen=True)
class Call:
    """One custom_call as a target sees it."""

    name: str
    result_types: tuple[Type, ...]
    context: Any
    attrs: dict[str, Any]
    config: dict[str, Any] = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "config", _config(self.attrs))

    # --- attributes
    def char(self, key: str, default: str) -> str:
        """A LAPACK character flag of the FFI config (``uplo = 76 : ui8`` is 'L')."""
        v = self.config.get(key)
        if v is None:
            return default
        return chr(int(v)) if not isinstance(v, str) else v

    def flag(self, key: str, default: bool) -> bool:
        v = self.config.get(key)
        return default if v is None else bool(v)

    def num_batch_dims(self, default: int) -> int:
        """``mhlo.frontend_attributes = {num_batch_dims = "N"}`` (jax's
        _linalg_ffi_lowering), else ``default``."""
        fa = self.attrs.get("mhlo.frontend_attributes")
        if isinstance(fa, dict) and "num_batch_dims" in fa:
            try:
                return int(fa["num_batch_dims"])
            except (TypeError, ValueError):
                pass
        return default

    def fail(self, message: str) -> InterpreterError:
        return InterpreterError(f"custom_call target '{self.name}': {message}")

    # --- layouts: what a column-major routine sees
    def _transposed(self, layouts_key: str, i: int, rank: int, nb: int | None) -> bool:
        """Does the routine see the transpose of operand/result ``i``?  Only a matrix
        (two dimensions after the ``nb`` batch dimensions; nb None: the
        num_batch_dims attribute, else any rank >= 2) can be: a layout whose
        minor-most dimension is rank-2 is column-major (the matrix as it is); one whose
        minor-most is rank-1 is row-major (the routine sees its transpose)."""
        layouts = self.attrs.get(layouts_key)
        if nb is None:
            nb = self.num_batch_dims(max(rank - 2, 0))
        if rank - nb < 2 or not layouts or i >= len(layouts):
            return False
        layout = [int(d) for d in np.asarray(layouts[i]).reshape(-1)]
        if not layout or layout[0] == rank - 2:
            return False
        if layout[0] == rank - 1:
            return True
        raise UnsupportedError(f"custom_call target '{self.name}': layout {layout}")

    def operand(self, i: int, x: Any, nb: int | None = None) -> np.ndarray:
        """Operand ``i`` as the column-major routine sees it."""
        x = np.asarray(x)
        t = self._transposed("operand_layouts", i, x.ndim, nb)
        return np.swapaxes(x, -1, -2) if t else x

    def result_shape(self, i: int, nb: int | None = None) -> tuple[int, ...]:
        """Result ``i``'s shape as the routine writes it."""
        shape = static_shape(self.result_types[i])
        if self._transposed("result_layouts", i, len(shape), nb):
            shape = (*shape[:-2], shape[-1], shape[-2])
        return shape

    # --- batching
    def batched(
        self, fn: Callable[..., Sequence[Any]], operands: Sequence[np.ndarray], nb: int
    ) -> tuple[np.ndarray, ...]:
        """Run ``fn`` on each matrix of the ``nb`` leading batch dimensions of
        ``operands`` (routine views); ``fn`` returns one value per result, in the
        routine's shapes (a value of another shape, such as the 1x1 placeholder scipy
        gives for vectors it did not compute, leaves zeros).  Results come back in the
        logical shapes."""
        outs = [
            np.zeros(self.result_shape(i, nb), dtype_of(t)) for i, t in enumerate(self.result_types)
        ]
        count = math.prod(outs[0].shape[:nb]) if outs else 1
        if operands and np.size(operands[0]) == 0:
            count = 0  # empty matrices: the zeros are the results
        ins = [np.reshape(o, (count, *np.shape(o)[nb:])) for o in operands]
        # views (outs are fresh); a result without the batch dimensions is a placeholder
        views = [o.reshape(count, *o.shape[nb:]) if o.ndim >= nb else None for o in outs]
        for b in range(count):  # one routine call per matrix of the batch
            got = fn(*(o[b] for o in ins))
            for o, g in zip(views, got):
                g = np.asarray(g)
                if o is not None and (g.ndim == 0 or g.shape == o[b].shape):
                    o[b] = _real_if(g, o.dtype)  # else not computed: zeros
        return tuple(
            np.swapaxes(o, -1, -2) if self._transposed("result_layouts", i, o.ndim, nb) else o
            for i, o in enumerate(outs)
        )

    # --- results
    def cast(self, out: Any) -> tuple[Any, ...]:
        """The target's results as arrays of the declared result types."""
        if not isinstance(out, tuple | list):
            out = (out,)
        if len(out) != len(self.result_types):
            raise self.fail(f"returned {len(out)} values for {len(self.result_types)} results")
        return tuple(_as_type(v, t) for v, t in zip(out, self.result_types))


def shape_of(t: Type) -> tuple[int | None, ...]:
    """A ranked tensor type's shape (``None`` for a ``?`` dimension)."""
    if isinstance(t, TensorType) and t.shape is not None:
        return tuple(t.shape)
    raise UnsupportedError(f"custom_call result of type {t}: a ranked tensor is expected")


def static_shape(t: Type) -> tuple[int, ...]:
    """A static tensor type's shape."""
    shape = shape_of(t)
    out = tuple(d for d in shape if d is not None)
    if len(out) != len(shape):
        raise UnsupportedError(f"custom_call result of type {t}: a static shape is expected")
    return out


def _real_if(a: np.ndarray, dtype: np.dtype) -> np.ndarray:
    return a.real if a.dtype.kind == "c" and dtype.kind != "c" else a


def _as_type(v: Any, t: Type) -> Any:
    if not isinstance(t, TensorType):
        return v
    dt = dtype_of(t)
    a = np.asarray(v)
    a = _real_if(a, dt)
    if a.dtype != dt:
        a = a.astype(dt)
    shape = shape_of(t)
    if a.shape != shape and None not in shape:
        a = np.broadcast_to(a, static_shape(t)).copy()
    return a


def zeros(t: Type) -> np.ndarray:
    """An array of zeros of tensor type ``t``."""
    return np.zeros(static_shape(t), dtype_of(t))


# ----------------------------------------------------------------------------- buffers


@target("AllocateBuffer")
def allocate_buffer(call: Call) -> tuple[np.ndarray, ...]:
    """lax.empty (jax/_src/lax/lax.py): an uninitialized buffer; zeros here."""
    return tuple(zeros(t) for t in call.result_types)


# ----------------------------------------------------------------------------- sharding

# XLA's sharding annotations (jax/_src/export/_export.py stable list), memory-space
# moves, and every Shardy round-trip target (xla.sdy.GlobalToLocalShape,
# LocalToGlobalShape, FuncResultSharding, ShardingGroup... of XLA's
# xla/service/spmd/shardy export: tests/export_back_compat_test.py names some).
_IDENTITY = (
    "Sharding",
    "SPMDFullToShardShape",
    "SPMDShardToFullShape",
    "annotate_device_placement",
    "MoveToHost",
    "MoveToDevice",
    "xla.sdy.*",
)


@target(*_IDENTITY)
def sharding_identity(call: Call, *operands: Any) -> tuple[Any, ...]:
    """Sharding annotations and memory-space moves (XLA's sharding propagation and
    SPMD partitioner consume them): on one device, the identity."""
    if len(call.result_types) == 0:
        return ()
    if len(operands) != len(call.result_types):
        raise call.fail(f"{len(operands)} operands for {len(call.result_types)} results")
    for x, t in zip(operands, call.result_types):
        if isinstance(t, TensorType) and tuple(np.shape(x)) != shape_of(t):
            raise UnsupportedError(
                f"custom_call target '{call.name}' changes the shape {np.shape(x)} to "
                f"{shape_of(t)}: a per-device program of an SPMD partitioning, which "
                "runs only on its mesh"
            )
    return tuple(operands)


# ----------------------------------------------------------------------------- asserts

_PLACEHOLDER = re.compile(r"\{(\d+)\}")


@target("shape_assertion")
def shape_assertion(call: Call, pred: Any, *values: Any) -> tuple[()]:
    """jax/_src/export/shape_poly.py: the predicate holds, else the error_message with
    ``{i}`` replaced by the i-th extra operand."""
    if bool(np.all(np.asarray(pred))):
        return ()
    message = call.attrs.get("error_message") or "shape assertion failed"

    def sub(m: re.Match[str]) -> str:
        i = int(m.group(1))
        return str(np.asarray(values[i]).item()) if i < len(values) else m.group(0)

    raise InterpreterError(_PLACEHOLDER.sub(sub, str(message)))


# ----------------------------------------------------------------------------- cannot run

_FOREIGN = {
    "tpu_custom_call": "a Pallas/Mosaic TPU kernel",
    "mosaic_gpu": "a Pallas Mosaic GPU kernel",
    "mosaic_gpu_v2": "a Pallas Mosaic GPU kernel",
    "tf.call_tf_function": "a TensorFlow function (jax2tf.call_tf)",
    "__gpu$xla.gpu.triton": "a Triton kernel",
    "triton_kernel_call": "a Triton kernel",
    "xla_python_cpu_callback": "a Python host callback",
    "xla_python_gpu_callback": "a Python host callback",
    "xla_ffi_python_cpu_callback": "a Python host callback",
    "xla_ffi_python_gpu_callback": "a Python host callback",
    "xla_ffi_partitioned_python_cpu_callback": "a Python host callback",
}


def _foreign(call: Call, *operands: Any) -> tuple[Any, ...]:
    raise UnsupportedError(
        f"custom_call target '{call.name}' is {_FOREIGN[call.name]}: its code is not in "
        "the module, hlorun cannot run it"
    )


target(*_FOREIGN)(_foreign)


# ----------------------------------------------------------------------------- threefry

# Threefry-2x32 rotation constants and key-schedule parity (Salmon et al. 2011, as in
# jax/_src/prng.py threefry2x32 and jaxlib/gpu/prng_kernels.cc).
_ROTATIONS = ((13, 15, 26, 6), (17, 29, 16, 24))
_PARITY = 0x1BD11BDA


def threefry2x32(
    k0: np.ndarray, k1: np.ndarray, x0: np.ndarray, x1: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Threefry-2x32, 20 rounds, elementwise over broadcast uint32 arrays."""
    u = np.uint32
    k0, k1, x0, x1 = (np.asarray(a, u) for a in np.broadcast_arrays(k0, k1, x0, x1))
    ks = (k0, k1, k0 ^ k1 ^ u(_PARITY))
    with np.errstate(over="ignore"):
        x0 = x0 + ks[0]
        x1 = x1 + ks[1]
        for i in range(5):
            for r in _ROTATIONS[i % 2]:
                x0 = x0 + x1
                x1 = ((x1 << u(r)) | (x1 >> u(32 - r))) ^ x0
            x0 = x0 + ks[(i + 1) % 3]
            x1 = x1 + ks[(i + 2) % 3] + u(i + 1)
    return x0, x1


@target("cu_threefry2x32_ffi", "hip_threefry2x32_ffi", "cu_threefry2x32", "hip_threefry2x32")
def threefry_gpu(call: Call, k0: Any, k1: Any, x0: Any, x1: Any) -> tuple[Any, ...]:
    """jaxlib/gpu/prng_kernels: (key0, key1, count0, count1) -> (bits0, bits1)."""
    return threefry2x32(k0, k1, x0, x1)


# ----------------------------------------------------------------------------- pivots


def pivots_to_permutation(pivots: np.ndarray, size: int) -> np.ndarray:
    """Apply the row swaps i <-> pivots[..., i] (0-based) in order to arange(size)
    (jax/_src/lax/linalg.py _generic_lu_pivots_to_permutation).  A pivot outside
    [0, size) swaps nothing, as jaxlib's GPU kernel (jaxlib/gpu/lu_pivot_kernels.cu.cc
    ComputePermutation) leaves that row in place.  The swaps are sequential: one
    vectorized step per pivot, over the whole batch."""
    pivots = np.asarray(pivots).astype(np.int64)
    batch = pivots.shape[:-1]
    perm = np.broadcast_to(np.arange(size, dtype=np.int32), (*batch, size)).copy()
    flat = perm.reshape(-1, size)
    piv = pivots.reshape(-1, pivots.shape[-1])
    rows = np.arange(flat.shape[0])
    for i in range(min(piv.shape[-1], size)):
        j = piv[:, i]
        j = np.where((j >= 0) & (j < size), j, i)
        a, b = flat[rows, i].copy(), flat[rows, j].copy()
        flat[rows, i], flat[rows, j] = b, a
    return flat.reshape(perm.shape)


@target("cu_lu_pivots_to_permutation", "hip_lu_pivots_to_permutation")
def lu_pivots_gpu(call: Call, pivots: Any) -> np.ndarray:
    """jaxlib/gpu/linalg_kernels: 0-based pivots -> the permutation (its size is the
    result's last dimension)."""
    return pivots_to_permutation(pivots, int(shape_of(call.result_types[0])[-1] or 0))


# ----------------------------------------------------------------------------- top-k


def _is_max(x: np.ndarray, init: Any) -> bool:
    """max_k or min_k: jax passes -inf (or the lowest value) as the init of max_k
    and +inf (or the highest) for min_k (jax/_src/lax/ann.py _get_init_val_literal)."""
    init = np.asarray(init)
    if init.dtype.kind in "fc":
        return bool(np.real(init) < 0)
    if init.dtype.kind == "b":
        return not bool(init)
    return int(init) <= 0 if init.dtype.kind == "u" else int(init) < 0


def top_k_along(
    xs: Sequence[Any], inits: Sequence[Any], dim: int, k: int
) -> tuple[np.ndarray, ...]:
    """The k best entries of xs[0] along ``dim`` (largest first for max_k, smallest
    first for min_k, in XLA's total order; ties by lower index), and the entries of the
    other operands at the same places."""
    x = np.asarray(xs[0])
    key = _descending_key(x)
    if not _is_max(x, inits[0]):
        key = ~key
    order = np.argsort(np.moveaxis(key, dim, -1), axis=-1, kind="stable")[..., :k]
    order = np.moveaxis(order, -1, dim)
    return tuple(np.take_along_axis(np.asarray(a), order, axis=dim) for a in xs)


@target("ApproxTopK")
def approx_top_k(call: Call, *operands: Any) -> tuple[np.ndarray, ...]:
    """jax/_src/lax/ann.py: (operand, iota, init value, init index) -> (values,
    indices) along ``reduction_dim``: the exact top-k (recall 1, above any
    recall_target; is_fallback and aggregate_to_topk change nothing then)."""
    n = len(call.result_types)
    xs, inits = operands[:n], operands[n : 2 * n]
    x = np.asarray(xs[0])
    dim = int(call.config.get("reduction_dim", x.ndim - 1)) % max(x.ndim, 1)
    k = int(shape_of(call.result_types[0])[dim] or 0)
    return top_k_along(xs, inits, dim, k)
