"""What ``engine.fold`` did: per op kind, how many ops folded and why the others stayed.

The reasons an op is not folded (issue 22) are the constants below; ``FoldReport.text()``
is what ``hlorun fold --stats`` prints.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field

SIDE_EFFECTS = "side effects (op table trait side_effects, here or in a region or callee)"
NO_FOLD = "never folded (op table trait no_fold, here or in a region or callee)"
UNSUPPORTED = "no kernel (the interpreter does not run it)"
NOT_CONSTANT = "an operand (or a value its regions read) is not a constant"
NOT_STATIC = "a result is not a static tensor (token, tuple, dynamic shape or no result)"
TOO_LARGE = "a result has more elements than max_elements"
RAISED = "running it raised an error"
TOO_LONG = "a loop did not finish within max_loop_steps"

# What an unused op may be dropped despite: everything but effects and the unknown.
DROPPABLE = frozenset({None, NO_FOLD})


@dataclass(frozen=True)
class KindReport:
    """One op kind: ops folded, and ops kept per reason."""

    folded: int = 0
    kept: Mapping[str, int] = field(default_factory=dict)

    @property
    def total(self) -> int:
        return self.folded + sum(self.kept.values())


@dataclass(frozen=True)
class FoldReport:
    """Per op kind what folded and what did not, and why; ``errors`` holds the first
    error message per op kind whose run raised; ``removed_ops`` counts the dead ops
    dropped (folded ops' operands included) and ``removed_functions`` the unused
    private functions dropped."""

    kinds: Mapping[str, KindReport]
    errors: Mapping[str, str] = field(default_factory=dict)
    removed_ops: int = 0
    removed_functions: tuple[str, ...] = ()

    @property
    def folded(self) -> int:
        return sum(k.folded for k in self.kinds.values())

    @property
    def kept(self) -> int:
        return sum(sum(k.kept.values()) for k in self.kinds.values())

    def text(self) -> str:
        """A table, one line per op kind, then each kind's reasons for keeping ops."""
        lines = [f"// fold: {self.folded} ops folded, {self.kept} kept"]
        width = max([len("op"), *(len(n) for n in self.kinds)])
        lines.append(f"// {'op':<{width}} {'folded':>7} {'kept':>6}")
        for name in sorted(self.kinds):
            k = self.kinds[name]
            lines.append(f"// {name:<{width}} {k.folded:>7} {sum(k.kept.values()):>6}")
            for reason, n in sorted(k.kept.items(), key=lambda kv: (-kv[1], kv[0])):
                lines.append(f"//   {n:>6} kept: {reason}")
            if name in self.errors:
                lines.append(f"//          first error: {self.errors[name]}")
        lines.append(f"// dead ops removed: {self.removed_ops}")
        if self.removed_functions:
            names = ", ".join("@" + n for n in self.removed_functions)
            lines.append(f"// unused private functions removed: {names}")
        return "\n".join(lines)


class ReportBuilder:
    """Collects the outcome of each op while folding; ``build()`` freezes it."""

    def __init__(self) -> None:
        self.folded: Counter[str] = Counter()
        self.kept_at: list[tuple[str, object, str]] = []  # (kind, op position, reason)
        self.errors: dict[str, str] = {}
        self.removed_ops = 0
        self.removed_functions: list[str] = []

    def fold(self, kind: str) -> None:
        self.folded[kind] += 1

    def keep(self, kind: str, reason: str, error: str | None = None, pos: object = None) -> None:
        """Op ``kind`` (at ``pos``) was not folded, for ``reason``."""
        self.kept_at.append((kind, pos, reason))
        if error is not None:
            self.errors.setdefault(kind, error)

    def build(self, present: set[tuple[str, object]] | None = None) -> FoldReport:
        """The report; ``present``: the (kind, position) of every op of the folded
        module, so that ops kept while folding but gone from the output (dead, in a
        folded callee or loop body, in a removed function) are not counted as kept."""
        self.kept: dict[str, Counter[str]] = {}
        for kind, pos, reason in self.kept_at:
            if present is None or pos is None or (kind, pos) in present:
                self.kept.setdefault(kind, Counter())[reason] += 1
        names = set(self.folded) | set(self.kept)
        kinds = {
            n: KindReport(self.folded.get(n, 0), dict(self.kept.get(n, {}))) for n in sorted(names)
        }
        return FoldReport(
            kinds, dict(self.errors), self.removed_ops, tuple(sorted(self.removed_functions))
        )
