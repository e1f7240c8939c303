"""The folder PyTorch/XLA saves a model to: ``torch_xla.stablehlo.save_as_stablehlo(
exported, DIR)``, loaded there by ``StableHLOGraphModule.load`` (pytorch/xla
torch_xla/stablehlo.py ``_save_program_bundle`` / ``_load_program_bundle``):

* ``functions/NAME.bytecode``: the StableHLO program of callable NAME (``forward``
  for an exported program), ``functions/NAME.mlir`` its text when saved, and
  ``functions/NAME.meta``: JSON of ``StableHLOFunctionMeta``, whose
  ``input_locations`` say where each argument of the program comes from, in order:
  ``{"type_": "parameter", "name": KEY}`` a weight, ``{"type_": "constant",
  "position": I}`` a constant the export lifted, ``{"type_": "input_arg",
  "position": I}`` the user's I-th (flattened) input;
* ``data/KEY``: each state-dict entry, ``np.save``d under its key;
* ``constants/I``: each lifted constant, ``np.save``d under its position.

``StableHLOGraphModule`` is called with the user's inputs only; so is a bundle here
(``load_bundle(DIR).arguments(inputs)`` puts the weights and constants in their
places).  The outputs are the program's, flat (``output_pytree_spec`` is not applied).
"""

from __future__ import annotations

import functools
import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ..parser import parse_module
from ..parser.errors import InterpreterError, ParseError
from ..parser.ir import Module
from ..parser.source import read_file

DEFAULT_FUNCTION = "forward"  # the name torch_xla gives an exported program's callable


def is_bundle_dir(path: str | os.PathLike) -> bool:
    """Is ``path`` a folder with ``functions/*.meta`` (a saved PyTorch/XLA model)?"""
    functions = Path(path) / "functions"
    return functions.is_dir() and any(functions.glob("*.meta"))


@dataclass(frozen=True)
class InputLocation:
    """Where one program argument comes from: ``kind`` is ``parameter`` (``name``, a
    state-dict key), ``constant`` or ``input_arg`` (``position``)."""

    kind: str
    position: int = -1
    name: str = ""


@dataclass
class Bundle:
    """One callable of a saved folder: its program and how to call it."""

    path: Path
    name: str
    module: Module
    locations: tuple[InputLocation, ...]
    num_user_inputs: int
    weights: dict[str, np.ndarray] = field(default_factory=dict)
    constants: dict[int, np.ndarray] = field(default_factory=dict)

    def arguments(self, inputs: Any) -> list[Any]:
        """The program's arguments: ``inputs`` (the user's, flattened, by position)
        with the weights and constants put in their places."""
        inputs = list(inputs)
        if len(inputs) != self.num_user_inputs:
            raise InterpreterError(
                f"{self.path}: function '{self.name}' takes {self.num_user_inputs} "
                f"input(s) (its weights and constants come from the folder), got {len(inputs)}"
            )
        out: list[Any] = []
        for loc in self.locations:
            if loc.kind == "parameter":
                out.append(self.weights[loc.name])
            elif loc.kind == "constant":
                out.append(self.constants[loc.position])
            else:
                out.append(inputs[loc.position])
        return out


def _read_json(path: Path) -> dict[str, Any]:
    try:
        meta = json.loads(path.read_text(encoding="utf-8"))
    except OSError as e:
        raise ParseError(f"{path}: cannot read: {e.strerror or e}") from e
    except (ValueError, UnicodeDecodeError) as e:
        raise ParseError(f"{path}: not JSON ({e})") from e
    if not isinstance(meta, dict):
        raise ParseError(f"{path}: expected a JSON object (StableHLOFunctionMeta)")
    return meta


def _location(item: Any, meta_path: Path, i: int) -> InputLocation:
    if not isinstance(item, dict) or item.get("type_") not in (
        "parameter",
        "constant",
        "input_arg",
    ):
        raise ParseError(f"{meta_path}: input_locations[{i}] is not a torch_xla InputLocation")
    kind = item["type_"]
    try:
        position = int(item.get("position", -1))
    except (TypeError, ValueError) as e:
        raise ParseError(f"{meta_path}: input_locations[{i}] has a bad position") from e
    name = str(item.get("name", ""))
    if kind == "parameter" and (not name or name in (".", "..") or "/" in name or "\\" in name):
        raise ParseError(f"{meta_path}: input_locations[{i}] names no file of data/: {name!r}")
    if kind != "parameter" and position < 0:
        raise ParseError(f"{meta_path}: input_locations[{i}] ({kind}) has no position")
    return InputLocation(kind, position, name)


def _npy(path: Path, what: str) -> np.ndarray:
    try:
        with path.open("rb") as f:
            return np.load(f, allow_pickle=False)
    except FileNotFoundError as e:
        raise ParseError(f"{path}: missing ({what})") from e
    except (OSError, ValueError, EOFError) as e:
        raise ParseError(f"{path}: not an np.save file ({what}): {e}") from e


def function_names(path: str | os.PathLike) -> list[str]:
    return sorted(p.name[: -len(".meta")] for p in (Path(path) / "functions").glob("*.meta"))


def load_bundle(path: str | os.PathLike, function: str | None = None) -> Bundle:
    """Callable ``function`` (default ``forward``, else the folder's only one) of the
    saved folder ``path``: its program (``NAME.bytecode``, else ``NAME.mlir``) read by
    as any program file is read (``parser.parse_module``: text or bytecode), its weights and constants.  The same folder,
    unchanged, gives the same Bundle (its compiled programs are reused)."""
    root = Path(path).resolve()
    names = function_names(root)
    if function is None:
        function = DEFAULT_FUNCTION if DEFAULT_FUNCTION in names or len(names) != 1 else names[0]
    if function not in names:
        raise InterpreterError(
            f"{root}: no function '{function}' (it has: {', '.join(names) or 'none'})"
        )
    stamps = tuple(
        (p.name, p.stat().st_mtime_ns, p.stat().st_size)
        for sub in ("functions", "data", "constants")
        if (root / sub).is_dir()
        for p in sorted((root / sub).iterdir())
    )
    return _load(root, function, stamps)


@functools.lru_cache(maxsize=4)
def _load(root: Path, function: str, stamps: tuple) -> Bundle:
    fdir = root / "functions"
    meta_path = fdir / f"{function}.meta"
    meta = _read_json(meta_path)
    raw = meta.get("input_locations")
    if not isinstance(raw, list):
        raise ParseError(f"{meta_path}: no input_locations list")
    locations = tuple(_location(item, meta_path, i) for i, item in enumerate(raw))
    program = fdir / f"{function}.bytecode"
    if not program.exists() and (fdir / f"{function}.mlir").exists():
        program = fdir / f"{function}.mlir"
    module = parse_module(read_file(program), str(program))
    # the user's inputs: every position the export saw, used or not (unused_inputs)
    positions = [loc.position for loc in locations if loc.kind == "input_arg"]
    unused = meta.get("unused_inputs") or ()
    for i, entry in enumerate(unused if isinstance(unused, list) else ()):
        if isinstance(entry, list) and entry and isinstance(entry[0], dict):
            if entry[0].get("type_") == "input_arg":
                positions.append(_location(entry[0], meta_path, i).position)
    weights = {
        loc.name: _npy(root / "data" / loc.name, f"weight '{loc.name}'")
        for loc in locations
        if loc.kind == "parameter"
    }
    constants = {
        loc.position: _npy(root / "constants" / str(loc.position), "a lifted constant")
        for loc in locations
        if loc.kind == "constant"
    }
    return Bundle(
        root, function, module, locations, max(positions, default=-1) + 1, weights, constants
    )


def not_a_program_folder(path: str | os.PathLike) -> ParseError:
    """The refusal of a folder that is not one PyTorch/XLA saved a model to (nor read by
    another of engine/program_source.py's ``FOLDER_READERS``)."""
    return ParseError(
        f"{os.fspath(path)}: is a folder, and not one PyTorch/XLA saved a model to "
        "(expected a program file: .mlir, .mlirbc)"
    )
