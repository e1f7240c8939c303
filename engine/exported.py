"""``load_exported``: run the bytes of jax's ``Exported.serialize()`` without jax.

The container is the FlatBuffer of jax/_src/export/serialization.fbs (root table
``Exported``), read here with the ``flatbuffers`` runtime (engine/flatbuf.py checks
every offset first).  It holds the portable artifact (``mlir_module_serialized``) and
what a caller needs around it: the pytree structure of the arguments and results, their
abstract values (shape, with symbolic dimensions as strings, and dtype), the platforms,
effects, shardings and the calling convention version.

Calling an ``ExportedProgram`` follows jax's module calling convention (jax
docs/export/export.md "Module calling convention"; jax/_src/export/_export.py
``_wrap_main_func`` and ``_call_exported_lowering``): ``main`` takes the platform index
(multi-platform exports, engine/platform_index.py), one token per ordered effect, then
the kept array arguments (``module_kept_var_idx`` of the flattened arguments); it
returns one token per ordered effect, then the flattened results.
"""

from __future__ import annotations

import ast
import dataclasses
import functools
import os
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from flatbuffers import number_types as N

from ..parser.errors import InterpreterError, ParseError, UnsupportedError
from ..parser.ir import Module, TokenType
from .api import run
from .exported_tree import MAX_DEPTH, ORDERED_DICT, TreeDef, custom_fields
from .flatbuf import FbTable
from .npz_io import ml_dtype
from .platform_index import resolve_platform
from .values import TOKEN

# jax/_src/export/serialization.fbs enum DType: code -> dtype name (NumPy / ml_dtypes).
# The PRNG key types hold their key data as uint32 with trailing dimensions (below).
DTYPES: dict[int, str] = {
    0: "bool",
    1: "int8",
    2: "int16",
    3: "int32",
    4: "int64",
    5: "uint8",
    6: "uint16",
    7: "uint32",
    8: "uint64",
    9: "float16",
    10: "float32",
    11: "float64",
    12: "complex64",
    13: "complex128",
    14: "bfloat16",
    15: "int4",
    16: "uint4",
    17: "float8_e4m3b11fnuz",
    18: "float8_e4m3fn",
    19: "float8_e4m3fnuz",
    20: "float8_e5m2",
    21: "float8_e5m2fnuz",
    22: "float0",
    23: "float8_e4m3",
    24: "float8_e3m4",
    25: "float8_e8m0fnu",
    26: "float4_e2m1fn",
    27: "key<fry>",
    28: "key<rbg>",
    29: "key<unsafe_rbg>",
}
# PRNG key dtypes -> the trailing shape of their uint32 key data (jax/_src/prng.py:
# threefry2x32 keys are 2 words, rbg and unsafe_rbg keys 4).
KEY_DATA_SHAPE = {"key<fry>": (2,), "key<rbg>": (4,), "key<unsafe_rbg>": (4,)}

# serialization.fbs enums, by code.
TREE_KINDS = ("leaf", "none", "tuple", "list", "dict", "custom")  # PyTreeDefKind
MEMORY_SPACES = ("missing", "device", "host", "any")  # MemorySpace (0: before 11/2025)
AXIS_TYPES = ("missing", "auto", "explicit", "manual")  # AxisType
DISABLED_CHECKS = ("platform", "custom_call", "shape_assertions")  # DisabledSafetyCheckKind

# Calling convention versions this reader implements: jax's
# minimum/maximum_supported_calling_convention_version (docs/export/export.md "Calling
# convention versions": 9 adds effect tokens and jax.global_constant, 10 Shardy).
CALLING_CONVENTIONS = range(9, 11)

# Field ids (declaration order) of the tables of serialization.fbs.
_EXPORTED = {
    name: i
    for i, name in enumerate(
        "serialization_version function_name in_tree in_avals out_tree out_avals "
        "nr_devices_short in_shardings out_shardings platforms ordered_effects "
        "unordered_effects disabled_checks mlir_module_serialized "
        "calling_convention_version module_kept_var_idx uses_global_constants vjp "
        "nr_devices unique_avals unique_abstract_meshes unique_named_shardings "
        "in_avals_idxs out_avals_idxs in_shardings_idxs out_shardings_idxs "
        "jax_version".split()
    )
}
_TREE = {"kind": 0, "children": 1, "children_names": 2, "custom_name": 3, "custom_auxdata": 4}
_AVAL = {"kind": 0, "shape": 1, "dtype": 2, "memory_space": 3}
_DEVICE = {"device_kind": 0, "num_cores": 1, "platform": 2}
_MESH = {"axis_sizes": 0, "axis_names": 1, "axis_types": 2, "abstract_device": 3}
_SPEC = {"partitions": 0, "reduced": 1, "unreduced": 2}
_NAMED = {"mesh": 0, "spec": 1, "memory_kind": 2, "abstract_mesh_idx": 3}
_SHARDING = {"kind": 0, "hlo_sharding_proto": 1, "named_sharding": 2}


@dataclass(frozen=True)
class Aval:
    """An abstract value: ``shape`` (ints, or strings for symbolic dimensions such as
    ``"b"`` or ``"2*b"``), ``dtype`` (a NumPy dtype, or the name of a PRNG key type
    or float0), ``memory_space``."""

    shape: tuple[int | str, ...]
    dtype: np.dtype | str
    memory_space: str = "device"

    def __str__(self) -> str:
        name = self.dtype if isinstance(self.dtype, str) else self.dtype.name
        return f"{name}[{', '.join(map(str, self.shape))}]"


@dataclass(frozen=True)
class AbstractMesh:
    """``AbstractMesh``: axis names, sizes and types, and the device it was made for."""

    axis_names: tuple[str, ...]
    axis_sizes: tuple[int, ...]
    axis_types: tuple[str, ...]
    device_kind: str | None = None
    device_platform: str | None = None
    num_cores: int | None = None


@dataclass(frozen=True)
class NamedSharding:
    """A ``jax.sharding.NamedSharding`` as data: per dimension the mesh axes it is split
    over (``()`` for replicated), plus reduced / unreduced axes and the memory kind."""

    mesh: AbstractMesh | None
    partitions: tuple[tuple[str, ...], ...]
    reduced: tuple[str, ...] = ()
    unreduced: tuple[str, ...] = ()
    memory_kind: str | None = None


@dataclass(frozen=True)
class HloShardingProto:
    """A sharding of exports before 3/2026: the serialized ``xla.OpSharding`` proto."""

    proto: bytes


Sharding = NamedSharding | HloShardingProto | None


@dataclass(frozen=True, eq=False)
class ExportedProgram:
    """A deserialized ``jax.export.Exported``: call it as the exported function.

    ``program(*args, **kwargs)`` takes NumPy arrays / Python scalars in the structure of
    ``in_tree`` and returns the results in the structure of ``out_tree``.  ``platform``
    picks the lowering of a multi-platform export (default: cpu if listed, else the
    first); ``dataclasses.replace(program, platform="tpu")`` makes one for another.
    """

    fun_name: str
    in_tree: TreeDef
    out_tree: TreeDef
    in_avals: tuple[Aval, ...]
    out_avals: tuple[Aval, ...]
    platforms: tuple[str, ...]
    ordered_effects: tuple[str, ...]
    unordered_effects: tuple[str, ...]
    disabled_checks: tuple[str, ...]
    calling_convention_version: int
    module_kept_var_idx: tuple[int, ...]
    uses_global_constants: bool
    nr_devices: int
    in_shardings: tuple[Sharding, ...]
    out_shardings: tuple[Sharding, ...]
    serialization_version: int
    jax_version: str | None
    mlir_module_serialized: bytes = dataclasses.field(repr=False)
    module: Module = dataclasses.field(repr=False)
    platform: str | int | None = None
    # the container of the VJP (serialize(vjp_order >= 1)), read on first ``vjp()``
    vjp_table: FbTable | None = dataclasses.field(default=None, repr=False, compare=False)

    @property
    def has_vjp(self) -> bool:
        """Whether the container holds a VJP (``vjp()``)."""
        return self.vjp_table is not None

    def vjp(self) -> ExportedProgram:
        """The exported VJP function (jax ``Exported.vjp()``): it takes the primal
        arguments, then one cotangent per result, flattened, and returns one cotangent
        per argument; a container saved with ``serialize(vjp_order=N)`` holds N levels."""
        if self.vjp_table is None:
            raise UnsupportedError(
                f"{self.fun_name or 'the exported function'}: the container holds no VJP "
                "(jax saves one with Exported.serialize(vjp_order=1) or more)"
            )
        return self._vjp

    @functools.cached_property
    def _vjp(self) -> ExportedProgram:
        assert self.vjp_table is not None
        return _exported(self.vjp_table, f"{self.fun_name}.vjp")

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        """Run on ``args`` / ``kwargs`` as the exported function takes them;
        ``platform=`` (when the function takes no keyword of that name) picks the
        platform, as ``call_flat``'s does."""
        options = {}
        if "platform" in kwargs and "platform" not in self.keyword_names:
            options["platform"] = kwargs.pop("platform")
        leaves = self.flatten_args(args, kwargs)
        return self.out_tree.unflatten(self.call_flat(*leaves, **options))

    @property
    def keyword_names(self) -> tuple[str, ...]:
        """The names of the exported function's keyword arguments."""
        root = self.in_tree
        if root.kind == "tuple" and len(root.children) == 2 and root.children[1].kind == "dict":
            return tuple(str(k) for k in root.children[1].keys or ())
        return ()

    def flatten_args(self, args: Sequence[Any], kwargs: dict[str, Any]) -> list[Any]:
        """The leaves of ``(args, kwargs)`` in ``in_tree`` order (checked structure)."""
        root = self.in_tree
        if root.kind == "tuple" and len(root.children) == 2:
            pos, kw = root.children
            return pos.flatten(tuple(args), "args") + kw.flatten(dict(kwargs), "kwargs")
        return root.flatten((tuple(args), dict(kwargs)))

    def call_flat(self, *leaves: Any, **options: Any) -> list[Any]:
        """Run on the flattened arguments (all of them, in ``in_tree`` order); the
        flattened results.  ``options``: ``platform`` (overrides the program's), and
        ``engine.run``'s (``max_steps``, ``timeout``, ``callback``, ...)."""
        arrays = check_avals(self.in_avals, leaves)
        kept = [arrays[i] for i in self.module_kept_var_idx]
        tokens = [TOKEN] * len(self.ordered_effects)
        platform = options.pop("platform", self.platform)
        if platform is not None:  # named even when the module takes no platform index
            resolve_platform(platform, self.platforms)
        results = run(
            self.module,
            [*tokens, *kept],
            platform=platform,
            platforms=self.platforms,
            **options,
        )
        if results and isinstance(results[0], list):
            raise UnsupportedError(
                f"{self.fun_name} was exported as a per-device program for "
                f"{self.nr_devices} devices: its results are per process; run its module "
                "with engine.run to get them"
            )
        results = list(results)[len(tokens) :]
        if len(results) != len(self.out_avals):
            raise InterpreterError(
                f"the module returned {len(results)} results, the export declares "
                f"{len(self.out_avals)}"
            )
        return results

    @property
    def result_types(self) -> tuple:
        """The MLIR types of the flattened results (``main``'s, tokens left out)."""
        main = self.module.functions["main"]
        return tuple(t for t in main.type.results if not isinstance(t, TokenType))


# ----------------------------------------------------------------------------- reading


def load_exported(
    data: bytes | bytearray | memoryview | str | os.PathLike, *, filename: str | None = None
) -> ExportedProgram:
    """An ``ExportedProgram`` from the bytes of ``jax.export.Exported.serialize()`` (or
    the path of a file holding them); a ``ParseError`` naming the byte offset and the
    field for a malformed container."""
    if isinstance(data, str | os.PathLike):
        filename = filename or os.fspath(data)
        try:
            with open(data, "rb") as f:
                data = f.read()
        except OSError as e:
            raise ParseError(f"{filename}: cannot read: {e.strerror or e}") from e
    name = filename or "<bytes>"
    buf = bytes(data)
    root = FbTable.root(buf, "Exported", name)
    return _exported(root, name)


def _exported(t: FbTable, filename: str) -> ExportedProgram:
    f = _EXPORTED
    cc = t.scalar(f["calling_convention_version"], N.Uint16Flags, 0, "calling_convention_version")
    if cc not in CALLING_CONVENTIONS:
        raise UnsupportedError(
            f"{filename}: calling convention version {cc}; hlorun implements "
            f"{CALLING_CONVENTIONS.start}..{CALLING_CONVENTIONS.stop - 1} "
            "(jax docs/export/export.md 'Calling convention versions')"
        )
    fun_name = t.string(f["function_name"], "function_name") or ""
    unique_avals = [_aval(a) for a in t.subs(f["unique_avals"], "AbstractValue", "unique_avals")]
    meshes = [_mesh(m) for m in t.subs(f["unique_abstract_meshes"], "AbstractMesh", "meshes")]
    named = [
        _named_sharding(s, meshes)
        for s in t.subs(f["unique_named_shardings"], "NamedSharding", "unique_named_shardings")
    ]
    in_sh = _shardings(t, "in", named, meshes)
    out_sh = _shardings(t, "out", named, meshes)
    in_avals = _avals(t, "in", unique_avals)
    out_avals = _avals(t, "out", unique_avals)
    in_tree = _tree_field(t, "in_tree")
    out_tree = _tree_field(t, "out_tree")
    for which, tree, avals in (("in", in_tree, in_avals), ("out", out_tree, out_avals)):
        if tree.num_leaves != len(avals):
            raise t.error(
                0, f"{which}_tree has {tree.num_leaves} leaves, {len(avals)} avals", f"{which}_tree"
            )
    kept = tuple(int(i) for i in t.numbers(f["module_kept_var_idx"], "<u2", "module_kept_var_idx"))
    if any(i >= len(in_avals) for i in kept):
        raise t.error(0, f"index past the {len(in_avals)} inputs", "module_kept_var_idx")
    nr_devices = t.scalar(f["nr_devices"], N.Uint32Flags, 0, "nr_devices") or t.scalar(
        f["nr_devices_short"], N.Int16Flags, 0, "nr_devices_short"
    )
    payload = t.byte_string(f["mlir_module_serialized"], "mlir_module_serialized")
    if not payload:
        raise t.error(0, "no module", "mlir_module_serialized")
    from ..parser.vhlo.artifact import deserialize_portable_artifact

    module = deserialize_portable_artifact(payload, f"{filename}:mlir_module_serialized")
    if "main" not in module.functions:
        raise ParseError(f"{filename}: the exported module has no @main")
    return ExportedProgram(
        fun_name=fun_name,
        in_tree=in_tree,
        out_tree=out_tree,
        in_avals=in_avals,
        out_avals=out_avals,
        platforms=tuple(t.strings(f["platforms"], "platforms")),
        ordered_effects=tuple(_effects(t, "ordered_effects")),
        unordered_effects=tuple(_effects(t, "unordered_effects")),
        disabled_checks=tuple(_disabled(t)),
        calling_convention_version=cc,
        module_kept_var_idx=kept,
        uses_global_constants=bool(
            t.scalar(f["uses_global_constants"], N.BoolFlags, False, "uses_global_constants")
        ),
        nr_devices=int(nr_devices),
        in_shardings=in_sh,
        out_shardings=out_sh,
        serialization_version=t.scalar(
            f["serialization_version"], N.Uint16Flags, 0, "serialization_version"
        ),
        jax_version=t.string(f["jax_version"], "jax_version"),
        mlir_module_serialized=payload,
        module=module,
        vjp_table=t.sub(f["vjp"], "Exported", "vjp"),
    )


def _aval(t: FbTable) -> Aval:
    kind = t.scalar(_AVAL["kind"], N.Int8Flags, 0, "kind")
    if kind != 0:
        raise UnsupportedError(f"abstract value kind {kind} (only shapedArray = 0 is defined)")
    code = t.scalar(_AVAL["dtype"], N.Int8Flags, 0, "dtype")
    if code not in DTYPES:
        raise t.error(t.table.Pos, f"unknown dtype code {code}", "dtype")
    name = DTYPES[code]
    dtype: np.dtype | str = name if name.startswith(("key<", "float0")) else ml_dtype(name)
    shape = tuple(_dim(d) for d in t.strings(_AVAL["shape"], "shape"))
    space = t.scalar(_AVAL["memory_space"], N.Int8Flags, 0, "memory_space")
    memory = MEMORY_SPACES[space] if 0 <= space < len(MEMORY_SPACES) else "missing"
    return Aval(shape, dtype, "device" if memory == "missing" else memory)


def _dim(text: str) -> int | str:
    """A dimension: an int, or the text of a symbolic one (``b``, ``2*b + 1``)."""
    text = text.strip()
    return int(text) if _INT.match(text) else text


def _avals(t: FbTable, which: str, unique: list[Aval]) -> tuple[Aval, ...]:
    """``{which}_avals_idxs`` into ``unique_avals`` (serialization v10+), else the
    ``{which}_avals`` tables of older containers."""
    idx = t.numbers(_EXPORTED[f"{which}_avals_idxs"], "<u4", f"{which}_avals_idxs")
    if len(idx):
        if int(idx.max()) >= len(unique):
            raise t.error(0, f"index past the {len(unique)} unique avals", f"{which}_avals_idxs")
        return tuple(unique[int(i)] for i in idx)
    return tuple(
        _aval(a) for a in t.subs(_EXPORTED[f"{which}_avals"], "AbstractValue", f"{which}_avals")
    )


def _mesh(t: FbTable) -> AbstractMesh:
    names = tuple(t.strings(_MESH["axis_names"], "axis_names"))
    sizes = tuple(int(s) for s in t.numbers(_MESH["axis_sizes"], "<u4", "axis_sizes"))
    types = tuple(
        AXIS_TYPES[c] if 0 <= c < len(AXIS_TYPES) else "missing"
        for c in t.numbers(_MESH["axis_types"], "<i1", "axis_types").tolist()
    )
    dev = t.sub(_MESH["abstract_device"], "AbstractDevice", "abstract_device")
    kind = platform = cores = None
    if dev is not None:
        kind = dev.string(_DEVICE["device_kind"], "device_kind")
        platform = dev.string(_DEVICE["platform"], "platform")
        if dev.has(_DEVICE["num_cores"]):
            cores = dev.scalar(_DEVICE["num_cores"], N.Uint32Flags, 0, "num_cores")
    return AbstractMesh(names, sizes, types, kind, platform, cores)


def _named_sharding(t: FbTable, meshes: list[AbstractMesh]) -> NamedSharding:
    mesh: AbstractMesh | None
    if meshes:
        i = t.scalar(_NAMED["abstract_mesh_idx"], N.Uint32Flags, 0, "abstract_mesh_idx")
        if i >= len(meshes):
            raise t.error(t.table.Pos, f"mesh index {i} of {len(meshes)}", "abstract_mesh_idx")
        mesh = meshes[i]
    else:
        m = t.sub(_NAMED["mesh"], "AbstractMesh", "mesh")
        mesh = _mesh(m) if m is not None else None
    spec = t.sub(_NAMED["spec"], "PartitionSpec", "spec")
    parts: tuple[tuple[str, ...], ...] = ()
    reduced: tuple[str, ...] = ()
    unreduced: tuple[str, ...] = ()
    if spec is not None:
        parts = tuple(
            tuple(p.strings(0, "axes"))
            for p in spec.subs(_SPEC["partitions"], "PartitionSpecOneAxis", "partitions")
        )
        reduced = tuple(spec.strings(_SPEC["reduced"], "reduced"))
        unreduced = tuple(spec.strings(_SPEC["unreduced"], "unreduced"))
    memory_kind = t.string(_NAMED["memory_kind"], "memory_kind")
    return NamedSharding(mesh, parts, reduced, unreduced, memory_kind)


def _shardings(
    t: FbTable, which: str, named: list[NamedSharding], meshes: list[AbstractMesh]
) -> tuple[Sharding, ...]:
    """``{which}_shardings_idxs`` (1-based into the unique named shardings, 0: none),
    else the ``{which}_shardings`` tables of older containers."""
    idx = t.numbers(_EXPORTED[f"{which}_shardings_idxs"], "<u4", f"{which}_shardings_idxs")
    if len(idx):
        if int(idx.max()) > len(named):
            raise t.error(0, f"index past the {len(named)} shardings", f"{which}_shardings_idxs")
        return tuple(None if i == 0 else named[int(i) - 1] for i in idx)
    out: list[Sharding] = []
    for s in t.subs(_EXPORTED[f"{which}_shardings"], "Sharding", f"{which}_shardings"):
        ns = s.sub(_SHARDING["named_sharding"], "NamedSharding", "named_sharding")
        proto = s.byte_string(_SHARDING["hlo_sharding_proto"], "hlo_sharding_proto")
        if ns is not None:
            out.append(_named_sharding(ns, meshes))
        elif proto is not None:
            out.append(HloShardingProto(proto))
        else:
            out.append(None)
    return tuple(out)


def _tree_field(t: FbTable, field: str) -> TreeDef:
    sub = t.sub(_EXPORTED[field], "PyTreeDef", field)
    if sub is None:
        raise t.error(0, "missing", field)
    return _tree(sub, 0)


def _tree(t: FbTable, depth: int) -> TreeDef:
    if depth > MAX_DEPTH:
        raise t.error(t.table.Pos, f"pytree deeper than {MAX_DEPTH} levels")
    code = t.scalar(_TREE["kind"], N.Int8Flags, 0, "kind")
    if not 0 <= code < len(TREE_KINDS):
        raise t.error(t.table.Pos, f"unknown pytree node kind {code}", "kind")
    kind = TREE_KINDS[code]
    children = tuple(_tree(c, depth + 1) for c in t.subs(_TREE["children"], t.name, "children"))
    if kind == "leaf" or kind == "none":
        if children:
            raise t.error(t.table.Pos, f"a {kind} node with children", "children")
        return TreeDef(kind)
    if kind == "dict":
        keys = tuple(t.strings(_TREE["children_names"], "children_names"))
        if len(keys) != len(children):
            raise t.error(t.table.Pos, f"{len(keys)} keys, {len(children)} children", "children")
        return TreeDef(kind, children, keys)
    if kind == "custom":
        name = t.string(_TREE["custom_name"], "custom_name") or ""
        aux = t.byte_string(_TREE["custom_auxdata"], "custom_auxdata") or b""
        fields = custom_fields(name, aux, len(children))
        if name == ORDERED_DICT and fields is None:
            raise t.error(t.table.Pos, "OrderedDict keys are not a JSON list", "custom_auxdata")
        return TreeDef(kind, children, fields, name, aux)
    return TreeDef(kind, children)


def _effects(t: FbTable, field: str) -> list[str]:
    return [e.string(0, "type_name") or "" for e in t.subs(_EXPORTED[field], "Effect", field)]


def _disabled(t: FbTable) -> list[str]:
    out = []
    for c in t.subs(_EXPORTED["disabled_checks"], "DisabledSafetyCheck", "disabled_checks"):
        code = c.scalar(0, N.Int8Flags, 0, "kind")
        kind = DISABLED_CHECKS[code] if 0 <= code < len(DISABLED_CHECKS) else f"kind{code}"
        target = c.string(1, "custom_call_target")
        out.append(f"{kind}:{target}" if target else kind)
    return out


# ----------------------------------------------------------------------------- avals


def check_avals(avals: Sequence[Aval], leaves: Sequence[Any]) -> list[np.ndarray]:
    """``leaves`` as arrays of ``avals``' dtypes and shapes (Python scalars converted);
    symbolic dimensions bind to one value each, across all arguments."""
    if len(leaves) != len(avals):
        raise InterpreterError(f"{len(avals)} array arguments expected, got {len(leaves)}")
    arrays = [_as_array(i, x, a) for i, (x, a) in enumerate(zip(leaves, avals))]
    env: dict[str, int] = {}
    for i, (x, a) in enumerate(zip(arrays, avals)):
        for d, n in zip(a.shape, x.shape):
            if isinstance(d, str) and d.isidentifier():
                if env.setdefault(d, n) != n:
                    raise InterpreterError(
                        f"argument #{i} {x.shape} binds dimension '{d}' to {n}, an earlier "
                        f"argument bound it to {env[d]}"
                    )
    for i, (x, a) in enumerate(zip(arrays, avals)):
        for d, n in zip(a.shape, x.shape):
            want = d if isinstance(d, int) else _eval_dim(d, env)
            if want is not None and want != n:
                raise InterpreterError(
                    f"argument #{i} has shape {x.shape}, the export expects {_shape(a, env)}"
                )
    return arrays


def _shape(a: Aval, env: dict[str, int]) -> str:
    bound = [d if isinstance(d, int) else f"{d}={_eval_dim(d, env)}" for d in a.shape]
    return "(" + ", ".join(map(str, bound)) + ")"


def _as_array(i: int, x: Any, a: Aval) -> np.ndarray:
    """Leaf #i as an array of ``a``'s dtype and rank (PRNG keys: their uint32 data)."""
    extra: tuple[int, ...] = ()
    if isinstance(a.dtype, str):
        if a.dtype not in KEY_DATA_SHAPE:
            raise UnsupportedError(f"argument #{i}: dtype {a.dtype} cannot be passed")
        dtype, extra = np.dtype(np.uint32), KEY_DATA_SHAPE[a.dtype]
    else:
        dtype = a.dtype
    if isinstance(x, bool | int | float | complex) and not isinstance(x, np.generic):
        try:
            x = np.asarray(x, dtype=dtype)
        except (OverflowError, ValueError) as e:
            raise InterpreterError(f"argument #{i}: {x!r} does not fit {dtype}") from e
    elif not isinstance(x, np.ndarray):
        if not (isinstance(x, np.generic) or hasattr(x, "__array__")):
            raise InterpreterError(f"argument #{i} must be a NumPy array, not {type(x).__name__}")
        x = np.asarray(x)
    if x.dtype != dtype:
        raise InterpreterError(f"argument #{i} has dtype {x.dtype}, the export expects {a}")
    if x.ndim != len(a.shape) + len(extra) or x.shape[x.ndim - len(extra) :] != extra:
        raise InterpreterError(f"argument #{i} has shape {x.shape}, the export expects {a}")
    return x


_INT = re.compile(r"^-?[0-9]{1,18}$")
_MAX_DIM_TEXT = 200  # longer symbolic dimensions are left to the module's shape assertions

_DIM_FUNCS: dict[str, Callable[..., int]] = {
    "floordiv": lambda a, b: a // b,
    "mod": lambda a, b: a % b,
    "max": max,
    "min": min,
    "non_negative": lambda a: max(a, 0),
}


def _eval_dim(text: str, env: dict[str, int]) -> int | None:
    """A symbolic dimension's value (jax's spelling: ``2*b + 1``, ``floordiv(b, 2)``,
    ``mod``, ``max``, ``min``, ``non_negative``), or None when a variable is unbound or
    the expression is not one of these (the module's shape assertions check it)."""
    if len(text) > _MAX_DIM_TEXT:
        return None
    try:
        tree = ast.parse(text, mode="eval").body
    except (SyntaxError, ValueError):
        return None
    return _eval_node(tree, env)


def _eval_node(n: ast.AST, env: dict[str, int]) -> int | None:
    if isinstance(n, ast.Constant) and isinstance(n.value, int):
        return n.value
    if isinstance(n, ast.Name):
        return env.get(n.id)
    if isinstance(n, ast.UnaryOp) and isinstance(n.op, ast.USub):
        v = _eval_node(n.operand, env)
        return None if v is None else -v
    if isinstance(n, ast.BinOp) and isinstance(n.op, ast.Add | ast.Sub | ast.Mult):
        a, b = _eval_node(n.left, env), _eval_node(n.right, env)
        if a is None or b is None:
            return None
        if isinstance(n.op, ast.Add):
            return a + b
        return a - b if isinstance(n.op, ast.Sub) else a * b
    if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in _DIM_FUNCS:
        args = [_eval_node(x, env) for x in n.args]
        if any(v is None for v in args) or n.keywords:
            return None
        try:
            return _DIM_FUNCS[n.func.id](*args)
        except (TypeError, ZeroDivisionError):
            return None
    return None
