"""XLA's HLO sharding strings (the ``mhlo.sharding`` attribute of GSPMD programs).

The text form is what ``xla::HloSharding::ToString`` writes (xla/hlo/ir/hlo_sharding.cc)
and ``jax._src.sharding_impls`` produces for ``jax.export`` with Shardy off:

* ``{replicated}``, ``{manual}``, ``{unknown}``, ``{maximal device=N}``;
* ``{devices=[t0,t1,...]d0,d1,...}``: the tile assignment, an array of device ids of
  shape ``[t0, t1, ...]``, listed row-major; or in iota form
  ``{devices=[t0,t1,...]<=[r0,r1,...]T(p0,p1,...)}``: ``iota(prod r)`` reshaped to
  ``[r0, ...]``, transposed by ``p`` (when given) and reshaped to the tile shape;
* ``last_tile_dim_replicate``: the last tile dimension replicates (it has no array
  dimension); ``last_tile_dims={manual, replicated, ...}``: the last tile dimensions
  are subgroups of those kinds;
* ``{{...}, {...}}``: a tuple sharding;  ``metadata={...}`` and other trailing fields
  are ignored.

This module turns such a string into a ``HloSharding`` and says which piece of a full
array each device holds (the SPMD partitioner's rule: each tiled dimension is cut into
``ceil(size / tiles)`` chunks, the last one padded).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

import numpy as np

from ..parser.errors import UnsupportedError

_DEVICES = re.compile(r"devices=\[([0-9,\s]*)\]")
_IOTA = re.compile(r"<=\[([0-9,\s]*)\](?:T\(([0-9,\s]*)\))?")
_LIST = re.compile(r"[0-9][0-9,\s]*")
_MAXIMAL = re.compile(r"maximal\s+device=(\d+)")
_SUBGROUPS = re.compile(r"last_tile_dims=\{([a-z,\s]*)\}")


@dataclass(frozen=True, eq=False)
class HloSharding:
    """One array's sharding.  ``kind`` is ``replicated``, ``manual``, ``maximal`` or
    ``tiled``; a tiled sharding has ``tiles`` (the device-id array, its leading
    ``rank`` dimensions tiling the array's dimensions, the rest replication or
    other subgroups named by ``subgroups``)."""

    kind: str
    tiles: np.ndarray | None = None
    subgroups: tuple[str, ...] = ()
    device: int | None = None

    @property
    def tile_rank(self) -> int:
        """How many leading tile dimensions tile the array."""
        assert self.tiles is not None
        return self.tiles.ndim - len(self.subgroups)

    def tile_index(self, device: int) -> tuple[int, ...] | None:
        """The tile (one index per array dimension) device ``device`` holds; None when
        the device holds none of it."""
        if self.kind != "tiled":
            return None
        assert self.tiles is not None
        where = np.argwhere(self.tiles == device)
        if len(where) == 0:
            return None
        return tuple(int(i) for i in where[0][: self.tile_rank])

    def tile_counts(self) -> tuple[int, ...]:
        assert self.tiles is not None
        return tuple(int(n) for n in self.tiles.shape[: self.tile_rank])


def _ints(text: str) -> list[int]:
    return [int(x) for x in text.replace(" ", "").split(",") if x]


def _top_level_parts(body: str) -> list[str]:
    """The ``{...}`` members of a tuple sharding's body."""
    parts, depth, start = [], 0, None
    for i, ch in enumerate(body):
        if ch == "{":
            if depth == 0:
                start = i
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth == 0 and start is not None:
                parts.append(body[start : i + 1])
    return parts


def parse_hlo_sharding(text: str) -> HloSharding | tuple[HloSharding, ...]:
    """The sharding ``text`` spells; a tuple sharding gives a tuple.  Raises
    UnsupportedError for a form this module does not read."""
    s = text.strip()
    if not (s.startswith("{") and s.endswith("}")):
        raise UnsupportedError(f"mhlo.sharding {text!r}: not an HLO sharding")
    body = s[1:-1].strip()
    if body.startswith("{"):
        return tuple(_single(p) for p in _top_level_parts(body))  # type: ignore[misc]
    return _single(s)


def _single(text: str) -> HloSharding:
    body = text.strip()[1:-1].strip()
    head = body.split(" metadata=")[0].strip()
    if head.startswith("replicated") or head.startswith("unknown") or head == "":
        return HloSharding("replicated")
    if head.startswith("manual"):
        return HloSharding("manual")
    m = _MAXIMAL.match(head)
    if m:
        return HloSharding("maximal", device=int(m.group(1)))
    m = _DEVICES.match(head)
    if not m:
        raise UnsupportedError(f"mhlo.sharding {text!r}: a form hlorun does not read")
    shape = _ints(m.group(1))
    rest = head[m.end() :]
    iota = _IOTA.match(rest)
    if iota:
        dims = _ints(iota.group(1))
        ids = np.arange(math.prod(dims)).reshape(dims)
        if iota.group(2):
            ids = ids.transpose(_ints(iota.group(2)))
        ids = ids.reshape(shape)
    else:
        lst = _LIST.match(rest)
        values = _ints(lst.group(0)) if lst else []
        if len(values) != math.prod(shape):
            raise UnsupportedError(
                f"mhlo.sharding {text!r}: {len(values)} devices for tiles {shape}"
            )
        ids = np.array(values, dtype=np.int64).reshape(shape)
    subgroups: tuple[str, ...] = ()
    if "last_tile_dim_replicate" in head:
        subgroups = ("replicated",)
    sg = _SUBGROUPS.search(head)
    if sg:
        subgroups = tuple(x.strip() for x in sg.group(1).split(",") if x.strip())
    return HloSharding("tiled", tiles=ids, subgroups=subgroups)


def shard_slices(
    sharding: HloSharding, shape: tuple[int, ...], device: int
) -> tuple[tuple[slice, ...], tuple[int, ...]] | None:
    """Where device ``device``'s piece of a full array of ``shape`` lies (slices of the
    full array) and the piece's padded shape; None when the device holds no piece.
    Replicated, manual and maximal shardings give the whole array."""
    if sharding.kind != "tiled":
        if sharding.kind == "maximal" and sharding.device != device:
            return None
        return tuple(slice(0, n) for n in shape), tuple(shape)
    if any(g not in ("replicated", "manual") for g in sharding.subgroups):
        raise UnsupportedError(
            f"a sharding with last_tile_dims={{{', '.join(sharding.subgroups)}}}: "
            "hlorun reads replicated and manual subgroups"
        )
    # replicated and manual subgroup dimensions do not cut the array: the devices along
    # them hold the same tile (manual: of their own manual partition's value)
    index = sharding.tile_index(device)
    counts = sharding.tile_counts()
    if index is None:
        return None
    if len(counts) != len(shape):
        raise UnsupportedError(
            f"a sharding tiling {len(counts)} dimensions of a rank-{len(shape)} array"
        )
    slices, padded = [], []
    for n, t, i in zip(shape, counts, index):
        chunk = -(-n // t)
        start = min(i * chunk, n)
        slices.append(slice(start, min(start + chunk, n)))
        padded.append(chunk)
    return tuple(slices), tuple(padded)


def manual_group(sharding: HloSharding, device: int) -> tuple[int, ...]:
    """The devices of ``device``'s manual partition: those sharing its indices along the
    ``manual`` subgroup dimensions (XLA's GetManualSubgroupSharding groups, as a
    partly manual region's SPMDFullToShardShape sharding names them:
    ``{devices=[1,2,2]0,1,2,3 last_tile_dims={manual}}`` groups {0, 2} and {1, 3}).  A
    fully manual sharding (``{manual}``) or one without manual subgroups: the device
    alone."""
    if sharding.kind != "tiled" or "manual" not in sharding.subgroups:
        return (device,)
    assert sharding.tiles is not None
    where = np.argwhere(sharding.tiles == device)
    if len(where) == 0:
        return (device,)
    r = sharding.tile_rank
    manual = [r + k for k, g in enumerate(sharding.subgroups) if g == "manual"]
    index = where[0]
    pick = tuple(int(index[a]) if a in manual else slice(None) for a in range(sharding.tiles.ndim))
    return tuple(sorted(int(d) for d in np.asarray(sharding.tiles[pick]).reshape(-1)))


def group_block(
    sharding: HloSharding, shape: tuple[int, ...], devices: tuple[int, ...]
) -> tuple[slice, ...] | None:
    """The block of a full array of ``shape`` that ``devices`` (one manual partition)
    hold together under ``sharding``: the smallest box around their tiles (a partition
    of a mesh holds a box).  None when none of them holds a tile."""
    boxes = [shard_slices(sharding, shape, d) for d in devices]
    held = [b[0] for b in boxes if b is not None]
    if not held:
        return None
    return tuple(
        slice(min(b[i].start for b in held), max(b[i].stop for b in held))
        for i in range(len(shape))
    )
