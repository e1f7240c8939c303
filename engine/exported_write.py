"""``write_exported``: an ``Exported`` container (jax/_src/export/serialization.fbs)
around a module, that ``jax.export.deserialize(...).call`` runs.

The writer side of engine/exported.py.  The container holds one function taking the
entry's arguments as positional arguments (``in_tree`` = ``((a0, a1, ...), {})``) and
returning a tuple of its results; one device, platform ``cpu`` (or the given ones), no
effects, no shardings, calling convention 9 (jax docs/export/export.md "Module calling
convention": ``main`` takes and returns exactly the arrays).  Fields as jax's
serialization.py ``_serialize_exported`` writes them (schema version 10 and later:
``unique_avals`` with per-argument indices, the per-value tables kept too for older
readers); ``serialization_version`` is 3, as jax writes for the sake of old readers.
"""

from __future__ import annotations

from collections.abc import Sequence

import flatbuffers
import numpy as np

from ..parser.errors import UnsupportedError
from ..parser.ir import Module, TensorType, Type
from .dtypes import dtype_of
from .exported import _AVAL, _EXPORTED, _TREE, DTYPES

_DTYPE_CODES = {name: code for code, name in DTYPES.items()}
_KIND = {"leaf": 0, "none": 1, "tuple": 2, "list": 3, "dict": 4}
CALLING_CONVENTION = 9
SERIALIZATION_VERSION = 3  # what jax writes (serialization.py: old readers check 2 or 3)


def _table(b: flatbuffers.Builder, fields: dict[int, tuple[str, object]], nfields: int) -> int:
    """A table of ``nfields`` slots; ``fields``: slot -> (kind, value), kind one of
    ``offset``, ``u16``, ``i16``, ``u32``, ``i8``, ``bool``."""
    b.StartObject(nfields)
    for slot, (kind, value) in fields.items():
        if kind == "offset":
            b.PrependUOffsetTRelativeSlot(slot, value, 0)
        elif kind == "u16":
            b.PrependUint16Slot(slot, value, 0)
        elif kind == "i16":
            b.PrependInt16Slot(slot, value, 0)
        elif kind == "u32":
            b.PrependUint32Slot(slot, value, 0)
        elif kind == "i8":
            b.PrependInt8Slot(slot, value, 0)
        elif kind == "bool":
            b.PrependBoolSlot(slot, value, False)
    return b.EndObject()


def _offsets(b: flatbuffers.Builder, items: Sequence[int]) -> int:
    b.StartVector(4, len(items), 4)
    for x in reversed(items):
        b.PrependUOffsetTRelative(x)
    return b.EndVector()


def _tree(b: flatbuffers.Builder, kind: str, children: Sequence[int] = ()) -> int:
    kids = _offsets(b, children) if kind in ("tuple", "list", "dict") else None
    fields: dict[int, tuple[str, object]] = {_TREE["kind"]: ("i8", _KIND[kind])}
    if kids is not None:
        fields[_TREE["children"]] = ("offset", kids)
    if kind == "dict":
        fields[_TREE["children_names"]] = ("offset", _offsets(b, []))
    return _table(b, fields, len(_TREE))


def _aval(b: flatbuffers.Builder, t: Type, where: str) -> int:
    if not isinstance(t, TensorType) or t.shape is None or None in t.shape:
        raise UnsupportedError(f"{where}: an Exported container holds tensors of static shape")
    code = _DTYPE_CODES.get(dtype_of(t).name)
    if code is None:
        raise UnsupportedError(f"{where}: no Exported dtype for {dtype_of(t).name}")
    dims = [b.CreateString(str(d)) for d in t.shape]
    shape = _offsets(b, dims)
    return _table(
        b,
        {
            _AVAL["kind"]: ("i8", 0),
            _AVAL["shape"]: ("offset", shape),
            _AVAL["dtype"]: ("i8", code),
            _AVAL["memory_space"]: ("i8", 1),
        },
        len(_AVAL),
    )


def _u_vector(b: flatbuffers.Builder, values: Sequence[int], dtype: str) -> int:
    return b.CreateNumpyVector(np.asarray(values, dtype=dtype))


def write_exported(
    module: Module,
    artifact: bytes,
    *,
    function: str = "main",
    platforms: Sequence[str] = ("cpu",),
) -> bytes:
    """The bytes of an ``Exported`` whose ``mlir_module_serialized`` is ``artifact``
    (the portable artifact of ``module``; its ``function`` is the exported one)."""
    fn = module.functions[function]
    ins, outs = fn.type.inputs, fn.type.results
    b = flatbuffers.Builder(len(artifact) + 1024)
    name = b.CreateString(function)
    in_leaves = [_tree(b, "leaf") for _ in ins]
    in_tree = _tree(b, "tuple", [_tree(b, "tuple", in_leaves), _tree(b, "dict")])
    in_avals = [_aval(b, t, f"argument {i}") for i, t in enumerate(ins)]
    out_tree = _tree(b, "tuple", [_tree(b, "leaf") for _ in outs])
    out_avals = [_aval(b, t, f"result {i}") for i, t in enumerate(outs)]
    unique = [*in_avals, *out_avals]
    payload = b.CreateByteVector(artifact)
    plats = _offsets(b, [b.CreateString(p) for p in platforms])
    empty = _offsets(b, [])
    f = _EXPORTED
    fields: dict[int, tuple[str, object]] = {
        f["serialization_version"]: ("u16", SERIALIZATION_VERSION),
        f["function_name"]: ("offset", name),
        f["in_tree"]: ("offset", in_tree),
        f["in_avals"]: ("offset", _offsets(b, in_avals)),
        f["out_tree"]: ("offset", out_tree),
        f["out_avals"]: ("offset", _offsets(b, out_avals)),
        f["nr_devices_short"]: ("i16", 1),
        f["in_shardings"]: ("offset", empty),
        f["out_shardings"]: ("offset", empty),
        f["platforms"]: ("offset", plats),
        f["ordered_effects"]: ("offset", empty),
        f["unordered_effects"]: ("offset", empty),
        f["disabled_checks"]: ("offset", empty),
        f["mlir_module_serialized"]: ("offset", payload),
        f["calling_convention_version"]: ("u16", CALLING_CONVENTION),
        f["module_kept_var_idx"]: ("offset", _u_vector(b, range(len(ins)), "<u2")),
        f["nr_devices"]: ("u32", 1),
        f["unique_avals"]: ("offset", _offsets(b, unique)),
        f["unique_abstract_meshes"]: ("offset", empty),
        f["unique_named_shardings"]: ("offset", empty),
        f["in_avals_idxs"]: ("offset", _u_vector(b, range(len(ins)), "<u4")),
        f["out_avals_idxs"]: (
            "offset",
            _u_vector(b, range(len(ins), len(ins) + len(outs)), "<u4"),
        ),
        f["in_shardings_idxs"]: ("offset", _u_vector(b, [0] * len(ins), "<u4")),
        f["out_shardings_idxs"]: ("offset", _u_vector(b, [0] * len(outs), "<u4")),
    }
    root = _table(b, fields, len(_EXPORTED))
    b.Finish(root)
    return bytes(b.Output())
