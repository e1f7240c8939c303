"""The VHLO table: ops, types, attributes and enums with their version ranges, and how
one version of an op becomes the next.

Facts come from openxla/stablehlo at the pinned commit:
- op / type / attribute / enum version ranges and parameters: ``table_data.py``,
  generated from ``stablehlo/dialect/Vhlo{Ops,Types,Attrs,Enums}.td`` by
  ``tools/gen_vhlo_table.py`` (``--check`` verifies it is up to date);
- which VHLO op a StableHLO op legalizes to (its newest version):
  ``stablehlo/transforms/MapStablehloToVhlo.h`` (the ``MAP_STABLEHLO_TO_VHLO`` list,
  which always names the newest version, so it is derived here from the ranges);
- ``OP_CHANGES`` (what an upgrade adds and when a downgrade is possible):
  ``stablehlo/transforms/VhloToVersionPatterns.td`` and the C++ patterns of
  ``stablehlo/transforms/VhloToVersion.cpp``;
- ``CONSTRAINED_OPS``: ``stablehlo/dialect/VhloOps.cpp`` (``validateConstraint``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache

from . import table_data
from .version import CURRENT, Version


def _v(text: str) -> Version:
    return CURRENT if text == "current" else Version.of(text)


@dataclass(frozen=True)
class OpInfo:
    """One VHLO op (VhloOps.td): ``vhlo.<mnemonic>`` valid in ``[min, max]``."""

    mnemonic: str
    min: Version
    max: Version
    operands: tuple[tuple[str, str], ...]  # (name, "single" | "variadic")
    attributes: tuple[str, ...]
    results: tuple[tuple[str, str], ...]
    regions: tuple[tuple[str, str], ...]
    traits: tuple[str, ...]

    @property
    def name(self) -> str:
        return "vhlo." + self.mnemonic

    @property
    def base(self) -> str:
        """``gather`` for ``gather_v2``."""
        return self.mnemonic.rsplit("_v", 1)[0]

    @property
    def number(self) -> int:
        return int(self.mnemonic.rsplit("_v", 1)[1])

    def legal_at(self, v: Version) -> bool:
        return self.min <= v <= self.max


@dataclass(frozen=True)
class KindInfo:
    """A VHLO type, attribute or enum: mnemonic, range, parameters (or enum cases)."""

    mnemonic: str
    min: Version
    max: Version
    params: tuple

    def legal_at(self, v: Version) -> bool:
        return self.min <= v <= self.max


OPS: dict[str, OpInfo] = {
    r[0]: OpInfo(r[0], _v(r[1]), _v(r[2]), r[3], r[4], r[5], r[6], r[7]) for r in table_data.OPS
}
TYPES: dict[str, KindInfo] = {
    r[0]: KindInfo(r[0], _v(r[1]), _v(r[2]), r[3]) for r in table_data.TYPES
}
ATTRS: dict[str, KindInfo] = {
    r[0]: KindInfo(r[0], _v(r[1]), _v(r[2]), r[3]) for r in table_data.ATTRS
}
ENUMS: dict[str, KindInfo] = {
    r[0]: KindInfo(r[0], _v(r[1]), _v(r[2]), r[3]) for r in table_data.ENUMS
}


def op_info(name: str) -> OpInfo | None:
    """``vhlo.gather_v2`` (or ``gather_v2``) -> its OpInfo."""
    return OPS.get(name[5:] if name.startswith("vhlo.") else name)


@cache
def versions_of(base: str) -> tuple[OpInfo, ...]:
    """Every version of an op, oldest first (``gather`` -> gather_v1, gather_v2)."""
    return tuple(sorted((o for o in OPS.values() if o.base == base), key=lambda o: o.number))


def latest(base: str) -> OpInfo | None:
    vs = versions_of(base)
    return vs[-1] if vs else None


# func dialect ops that legalize to VHLO (MapStablehloToVhlo.h, "Nonstandard mappings").
_FUNC_OPS = {"func.func": "func_v1", "func.call": "call_v1", "func.return": "return_v1"}


def vhlo_op_for(name: str) -> OpInfo | None:
    """The VHLO op a StableHLO / func op legalizes to: its newest version."""
    if name in _FUNC_OPS:
        return OPS[_FUNC_OPS[name]]
    if name.startswith("stablehlo."):
        return latest(name[len("stablehlo.") :])
    return None


def enum_cases(mnemonic: str) -> tuple[str, ...]:
    info = ENUMS.get(mnemonic)
    return tuple(c for c, _ in info.params) if info else ()


def first_version_with(kind: str, mnemonic: str) -> Version | None:
    """When an op / type / attr / enum first appeared (``kind`` in op|type|attr|enum)."""
    tables: dict[str, Mapping[str, OpInfo | KindInfo]] = {
        "op": OPS,
        "type": TYPES,
        "attr": ATTRS,
        "enum": ENUMS,
    }
    info = tables[kind].get(mnemonic)
    return info.min if info else None


# ---- op version changes (VhloToVersionPatterns.td, VhloToVersion.cpp) ---------------
#
# Defaults are symbolic, built by convert.py:
#   "empty_i64_tensor"  #vhlo.tensor_v1<dense<> : tensor<0xi64>>   (getEmptyI64Tensor)
#   "empty_array"       #vhlo.array_v1<[]>                          (getEmptyArray)
#   "none_type"         #vhlo.type_v1<!vhlo.none_v1>                (getNoneType)
#   "false"             #vhlo.bool_v1<false>                        (getFalseBoolean)
#   "default_result_accuracy"  atol 0, rtol 0, ulps 0, mode DEFAULT (getDefaultResultAccuracy)
#   "default_conv_padding"     zeros of shape [rank(lhs) - 2, 2]    (getDefaultConvPadding)


@dataclass(frozen=True)
class OpChange:
    """``old`` -> ``new`` (one version step of one op).

    ``added``: attributes ``new`` has and ``old`` lacks; an upgrade sets them to the
    default, a downgrade requires them to equal it.  ``dropped``: attributes ``old``
    has and ``new`` lacks; an upgrade drops them, a downgrade rebuilds the default.
    ``variadic``: ``old`` takes one operand (and gives one result) where ``new`` takes
    a list; a downgrade requires exactly one.  ``empty_regions``: ``new`` has a
    variadic region list ``old`` lacks; a downgrade requires it empty.
    """

    old: str
    new: str
    added: tuple[tuple[str, str], ...] = ()
    dropped: tuple[tuple[str, str], ...] = ()
    variadic: bool = False
    empty_regions: str | None = None


# The ops with a ``result_accuracy`` attribute (StablehloOps.td / VhloOps.td *_v2) and the
# fields dot_general's ``algorithm`` flattens into (VhloOps.td DotGeneralOpV2).
RESULT_ACCURACY_OPS = tuple(
    (
        "cbrt cosine exponential exponential_minus_one log log_plus_one logistic rsqrt "
        "sine sqrt tan tanh"
    ).split()
)

DOT_ALGORITHM_FIELDS = tuple(
    (
        "lhs_precision_type rhs_precision_type accumulation_type lhs_component_count "
        "rhs_component_count num_primitive_operations allow_imprecise_accumulation"
    ).split()
)

OP_CHANGES: tuple[OpChange, ...] = (
    OpChange("dynamic_conv_v1", "dynamic_conv_v2", dropped=(("padding", "default_conv_padding"),)),
    OpChange(
        "gather_v1",
        "gather_v2",
        added=(
            ("operand_batching_dims", "empty_i64_tensor"),
            ("start_indices_batching_dims", "empty_i64_tensor"),
        ),
    ),
    OpChange(
        "dynamic_gather_v1",
        "dynamic_gather_v2",
        added=(
            ("operand_batching_dims", "empty_i64_tensor"),
            ("start_indices_batching_dims", "empty_i64_tensor"),
        ),
    ),
    OpChange("all_gather_v1", "all_gather_v2", variadic=True),
    OpChange("all_to_all_v1", "all_to_all_v2", variadic=True),
    OpChange("all_reduce_v1", "all_reduce_v2", variadic=True),
    OpChange(
        "dot_general_v1",
        "dot_general_v2",
        added=tuple((f, "none_type") for f in DOT_ALGORITHM_FIELDS),
    ),
    OpChange("send_v1", "send_v2", added=(("source_target_pairs", "empty_i64_tensor"),)),
    OpChange("recv_v1", "recv_v2", added=(("source_target_pairs", "empty_i64_tensor"),)),
    *(
        OpChange(f"{b}_v1", f"{b}_v2", added=(("result_accuracy", "default_result_accuracy"),))
        for b in RESULT_ACCURACY_OPS
    ),
    OpChange(
        "collective_broadcast_v1",
        "collective_broadcast_v2",
        variadic=True,
        added=(("has_dynamic_root", "false"),),
    ),
    OpChange(
        "scatter_v1",
        "scatter_v2",
        added=(
            ("input_batching_dims", "empty_i64_tensor"),
            ("scatter_indices_batching_dims", "empty_i64_tensor"),
        ),
    ),
    OpChange("composite_v1", "composite_v2", empty_regions="composite_regions"),
    OpChange("custom_call_v1", "custom_call_v2", added=(("result_tilings", "empty_array"),)),
)

UPGRADES: dict[str, OpChange] = {c.old: c for c in OP_CHANGES}
DOWNGRADES: dict[str, OpChange] = {c.new: c for c in OP_CHANGES}

# VhloOps.cpp validateConstraint: ops whose element types may differ between operands
# and results only from 0.17.0 on ("verifyConstraint_0_17_0"); custom_call_v1's
# constraints (1.3.0: dictionary backend_config / typed FFI; 1.17.0: future operands).
CONSTRAINED_OPS = frozenset(
    "all_reduce_v1 reduce_v1 reduce_scatter_v1 reduce_window_v1 scatter_v1 "
    "select_and_scatter_v1".split()
)
