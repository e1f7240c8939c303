"""The ``algorithm`` attribute of dot_general (spec: dot_general, "DotAlgorithm";
constraints C21-C24 and the inputs I8-I10).  The spec leaves the supported combinations
to implementations and asks verification to reject those "not known to be supported on
any hardware": the list below is the StableHLO verifier's."""

from __future__ import annotations

from collections.abc import Sequence

from .optable import ShapeContext

# The dot algorithms known to be supported on some hardware (the StableHLO verifier's
# best-effort list, spec dot_general "DotAlgorithm"): (lhs, rhs, accumulation precision
# types, num_primitive_operations), one component each, no imprecise accumulation; and
# any f8 x any f8 -> f32 in one operation, imprecise accumulation allowed.
_KNOWN_DOT_ALGORITHMS = frozenset(
    {
        ("f16", "f16", "f16", 1),
        ("f16", "f16", "f32", 1),
        ("bf16", "bf16", "bf16", 1),
        ("bf16", "bf16", "f32", 1),
        ("bf16", "bf16", "f32", 3),
        ("bf16", "bf16", "f32", 6),
        ("bf16", "bf16", "f32", 9),
        ("tf32", "tf32", "f32", 1),
        ("tf32", "tf32", "f32", 3),
        ("f32", "f32", "f32", 1),
        ("f64", "f64", "f64", 1),
    }
)
_F8 = frozenset(
    {"f8E3M4", "f8E4M3", "f8E4M3FN", "f8E5M2", "f8E4M3FNUZ", "f8E4M3B11FNUZ", "f8E5M2FNUZ"}
)


def known_dot_algorithm(alg: object) -> bool:
    """Whether a ``#stablehlo.dot_algorithm`` is one of the known combinations."""
    names = tuple(
        str(getattr(alg, f, ""))
        for f in ("lhs_precision_type", "rhs_precision_type", "accumulation_type")
    )
    if getattr(alg, "lhs_component_count", 1) != 1 or getattr(alg, "rhs_component_count", 1) != 1:
        return False
    ops = getattr(alg, "num_primitive_operations", 1)
    if names[0] in _F8 and names[1] in _F8 and names[2] == "f32" and ops == 1:
        return True
    if getattr(alg, "allow_imprecise_accumulation", False):
        return False
    return (*names, ops) in _KNOWN_DOT_ALGORITHMS


def check_dot_algorithm(
    ctx: ShapeContext, algorithm: object, precision_config: Sequence[str]
) -> None:
    """spec: dot_general C21-C24, I8-I10 (nothing to check without an algorithm)."""
    if algorithm is None:
        return
    if any(p != "DEFAULT" for p in precision_config):  # dot_general_c21
        raise ctx.error(
            "dot_general_c21", "must specify DEFAULT precision config when algorithm is set"
        )
    for label, field in (
        ("dot_general_c22", "lhs_component_count"),
        ("dot_general_c23", "rhs_component_count"),
        ("dot_general_c24", "num_primitive_operations"),
    ):
        v = getattr(algorithm, field, 1)
        if v is not None and v <= 0:  # dot_general_c22..c24
            raise ctx.error(label, f"{field} must be positive")
    if not known_dot_algorithm(algorithm):  # dot_general_i8..i10
        raise ctx.error(
            "dot_general_i8",
            f"dot algorithm not known to be supported on any hardware: {algorithm}",
        )
