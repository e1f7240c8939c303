"""Arrays to and from ``.npz`` / ``.npy`` files, every element type bit for bit.

The convention (issue 20, ``hlorun interpret --inputs / --outputs``):

- an ``.npz`` holds ``arr_0``, ``arr_1``, ... (the names ``np.savez`` gives positional
  arrays) in parameter / flattened result order;
- an array whose dtype NumPy cannot name in a file (the ml_dtypes types: bfloat16,
  float8_*, int4...) is stored as the unsigned-int view of the same width, and its key
  names the element type after a dot, as MLIR spells it: ``arr_0.bf16``,
  ``arr_2.f8E4M3FN``.  A ``.npy`` file says it the same way in its name:
  ``x.bf16.npy``;
- files are read with ``np.load(allow_pickle=False)``.

The jax fixtures (tests/fixtures/jax) store the unsigned view under a plain ``arr_i``
and name the dtypes in their manifest: ``load_npz(path, dtypes=...)`` reads those.
"""

from __future__ import annotations

import io
import os
import re
import zipfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import ml_dtypes
import numpy as np

from ..parser.errors import InterpreterError

# ml_dtypes dtype name -> MLIR element type spelling (mlir/include/mlir/IR/BuiltinTypes.td
# and BuiltinTypes.cpp print these names; i2/i4/ui2/ui4 are IntegerType's spelling).
ML_DTYPE_SUFFIX: dict[str, str] = {
    "bfloat16": "bf16",
    "float8_e3m4": "f8E3M4",
    "float8_e4m3": "f8E4M3",
    "float8_e4m3fn": "f8E4M3FN",
    "float8_e4m3fnuz": "f8E4M3FNUZ",
    "float8_e4m3b11fnuz": "f8E4M3B11FNUZ",
    "float8_e5m2": "f8E5M2",
    "float8_e5m2fnuz": "f8E5M2FNUZ",
    "float8_e8m0fnu": "f8E8M0FNU",
    "float6_e2m3fn": "f6E2M3FN",
    "float6_e3m2fn": "f6E3M2FN",
    "float4_e2m1fn": "f4E2M1FN",
    "int2": "i2",
    "int4": "i4",
    "uint2": "ui2",
    "uint4": "ui4",
}
_SUFFIX_DTYPE = {s: n for n, s in ML_DTYPE_SUFFIX.items()}
_KEY = re.compile(r"^arr_(\d+)(?:\.([A-Za-z0-9]+))?$")


def ml_dtype(name: str) -> np.dtype:
    """A dtype by NumPy or ml_dtypes name (``float32``, ``bfloat16``) or by its suffix
    (``bf16``)."""
    name = _SUFFIX_DTYPE.get(name, name)
    if name in ML_DTYPE_SUFFIX:
        return np.dtype(getattr(ml_dtypes, name))
    try:
        return np.dtype(name)
    except TypeError as e:
        raise InterpreterError(f"unknown dtype {name!r}") from e


def storable(a: np.ndarray) -> tuple[np.ndarray, str | None]:
    """(what a file can hold, the element-type suffix or None): ml_dtypes arrays as
    their same-width unsigned view."""
    suffix = ML_DTYPE_SUFFIX.get(a.dtype.name)
    if suffix is None:
        return a, None
    return a.view(f"uint{8 * a.dtype.itemsize}"), suffix


def restore(a: np.ndarray, dtype: str | np.dtype | None, where: str) -> np.ndarray:
    """``a`` viewed back as ``dtype`` (a same-width unsigned view), or unchanged.  Raw
    bytes (``|V2``: what ``np.save`` makes of a bfloat16 array) with no type named are
    refused, saying how to name it."""
    if dtype is None:
        if a.dtype.kind == "V":
            bits = 8 * a.dtype.itemsize
            raise InterpreterError(
                f"{where}: stored as raw bytes (dtype {a.dtype.str}): NumPy files cannot name "
                "ml_dtypes types such as bfloat16; store the same-width unsigned view and "
                f"name the element type: np.savez(f, **{{'arr_0.bf16': x.view(np.uint{bits})}}) "
                "in an .npz, or a file named x.bf16.npy (engine/npz_io.py)"
            )
        return a
    dt = ml_dtype(dtype) if isinstance(dtype, str) else np.dtype(dtype)
    if a.dtype == dt:
        return a
    if a.dtype.kind != "u" or a.dtype.itemsize != dt.itemsize:
        raise InterpreterError(
            f"{where}: stored as {a.dtype}, cannot be viewed as {dt} "
            f"(expected uint{8 * dt.itemsize})"
        )
    return a.view(dt)


def _load(source: Any, where: str) -> Any:
    try:
        return np.load(source, allow_pickle=False)
    except (OSError, ValueError, EOFError, zipfile.BadZipFile) as e:
        raise InterpreterError(f"{where}: cannot read arrays: {e}") from e


def load_npz(path: str | os.PathLike, dtypes: Sequence[str] | None = None) -> list[np.ndarray]:
    """The arrays ``arr_0``, ``arr_1``, ... of an ``.npz``, in index order, viewed back
    as the element type their key names (or as ``dtypes[i]`` when given)."""
    where = os.fspath(path)
    z = _load(path, where)
    if not isinstance(z, np.lib.npyio.NpzFile):
        raise InterpreterError(f"{where}: not an .npz archive")
    with z:
        found: dict[int, tuple[str, str | None]] = {}
        for key in z.files:
            m = _KEY.match(key)
            if m is None:
                raise InterpreterError(
                    f"{where}: member {key!r} is not named arr_<index>[.<element type>]"
                )
            index = int(m.group(1))
            if index in found:
                raise InterpreterError(f"{where}: two members for arr_{index}")
            found[index] = (key, m.group(2))
        if sorted(found) != list(range(len(found))):
            raise InterpreterError(
                f"{where}: members arr_0 .. arr_{len(found) - 1} expected, "
                f"found indices {sorted(found)}"
            )
        if dtypes is not None and len(dtypes) != len(found):
            raise InterpreterError(f"{where}: {len(found)} arrays, {len(dtypes)} dtypes given")
        out = []
        for i in range(len(found)):
            key, suffix = found[i]
            if suffix is not None and suffix not in _SUFFIX_DTYPE:
                raise InterpreterError(f"{where}: {key}: unknown element type {suffix!r}")
            want = dtypes[i] if dtypes is not None else suffix
            out.append(restore(z[key], want, f"{where}: {key}"))
    return out


def load_npy(path: str | os.PathLike) -> np.ndarray:
    """One ``.npy`` file; ``NAME.<element type>.npy`` views it back as that type."""
    where = os.fspath(path)
    a = _load(path, where)
    if not isinstance(a, np.ndarray):
        raise InterpreterError(f"{where}: not an .npy file")
    parts = Path(where).name.split(".")
    suffix = parts[-2] if len(parts) >= 3 and parts[-2] in _SUFFIX_DTYPE else None
    return restore(a, suffix, where)


def load_inputs(paths: Sequence[str | os.PathLike]) -> list[np.ndarray]:
    """``--inputs``: one ``.npz`` (every input), or one ``.npy`` per input."""
    if len(paths) == 1 and os.fspath(paths[0]).endswith(".npz"):
        return load_npz(paths[0])
    return [load_npy(p) for p in paths]


def save_npz(path: str | os.PathLike, arrays: Sequence[Any]) -> None:
    """``arrays`` as ``arr_0``, ``arr_1``, ... (ml_dtypes ones as ``arr_i.<type>``
    unsigned views); member timestamps fixed, so equal arrays give equal files."""
    members = []
    for i, a in enumerate(arrays):
        if not isinstance(a, np.ndarray | np.generic):
            raise InterpreterError(
                f"result #{i} is a {type(a).__name__}, not an array: cannot be saved"
            )
        data, suffix = storable(np.asarray(a))
        buf = io.BytesIO()
        np.lib.format.write_array(buf, data, allow_pickle=False)
        name = f"arr_{i}" if suffix is None else f"arr_{i}.{suffix}"
        members.append((f"{name}.npy", buf.getvalue()))
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, payload in members:
            info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            zf.writestr(info, payload)


def save_arrays(path: str | os.PathLike, arrays: Sequence[Any]) -> None:
    """``--outputs``: an ``.npz`` (``save_npz``), or an ``.npy`` holding the one result
    (an ml_dtypes one in a file that names its type, ``x.bf16.npy``, as ``load_npy``
    reads it)."""
    where = os.fspath(path)
    if not where.endswith(".npy"):
        save_npz(path, arrays)
        return
    if len(arrays) != 1:
        raise InterpreterError(
            f"{where}: an .npy file holds one array and there are {len(arrays)} results: "
            "write an .npz"
        )
    if not isinstance(arrays[0], np.ndarray | np.generic):
        raise InterpreterError(
            f"result #0 is a {type(arrays[0]).__name__}, not an array: cannot be saved"
        )
    data, suffix = storable(np.asarray(arrays[0]))
    if suffix is not None and not where.endswith(f".{suffix}.npy"):
        raise InterpreterError(
            f"{where}: the result is {arrays[0].dtype}, which an .npy cannot name: "
            f"name the file NAME.{suffix}.npy (or write an .npz)"
        )
    with open(path, "wb") as f:
        np.lib.format.write_array(f, data, allow_pickle=False)
