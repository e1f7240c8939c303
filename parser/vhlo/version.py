"""StableHLO / VHLO versions (stablehlo/dialect/Version.h, Version.cpp).

A version is ``major.minor.patch``; the opset changes only with ``minor`` (or
``major``), so version conversion works against ``X.Y.0`` (VhloToVersion.cpp,
``validateTargetVersion``).  ``CURRENT`` / ``MINIMUM`` and the compatibility anchors
are facts copied from Version.h / Version.cpp of the pinned stablehlo commit.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..errors import SourcePos, VerificationError

_VERSION_RE = re.compile(r"([0-9]+)\.([0-9]+)\.([0-9]+)\Z")


@dataclass(frozen=True, order=True)
class Version:
    """``major.minor.patch``, ordered lexicographically (Version.h ``operator<``)."""

    major: int
    minor: int
    patch: int

    @staticmethod
    def parse(text: str) -> Version | None:
        """``Version::fromString``: exactly ``#.#.#`` (decimal), else None."""
        m = _VERSION_RE.match(text)
        if m is None:
            return None
        return Version(int(m.group(1)), int(m.group(2)), int(m.group(3)))

    @staticmethod
    def of(value: str | Version) -> Version:
        """A Version from text or a Version; ValueError when malformed."""
        if isinstance(value, Version):
            return value
        v = Version.parse(value)
        if v is None:
            raise ValueError(f"malformed version {value!r}")
        return v

    def __str__(self) -> str:
        return f"{self.major}.{self.minor}.{self.patch}"

    def opset(self) -> Version:
        """The ``X.Y.0`` the opset of this version is defined at."""
        return Version(self.major, self.minor, 0)


# Version.h: getCurrentVersion() / getMinimumVersion().
CURRENT = Version(1, 20, 0)
MINIMUM = Version(0, 9, 0)

# Version.cpp: Version::fromCompatibilityRequirement.
_REQUIREMENTS = {
    "NONE": CURRENT,
    "WEEK_4": Version(1, 18, 0),
    "WEEK_12": Version(1, 16, 2),
    "MAX": MINIMUM,
}

# Version.cpp: Version::getBytecodeVersion (upper bound exclusive -> bytecode version).
_BYTECODE_VERSIONS = (
    (Version(0, 10, 0), 0),
    (Version(0, 12, 0), 1),
    (Version(0, 14, 0), 3),
    (Version(0, 15, 0), 4),
)


def get_current_version() -> Version:
    return CURRENT


def get_minimum_version() -> Version:
    return MINIMUM


def get_version_from_compatibility_requirement(requirement: str) -> Version:
    """``NONE`` | ``WEEK_4`` | ``WEEK_12`` | ``MAX`` (Version.cpp)."""
    key = requirement.upper()
    if key not in _REQUIREMENTS:
        raise ValueError(
            f"unknown compatibility requirement {requirement!r} "
            f"(expected one of {', '.join(_REQUIREMENTS)})"
        )
    return _REQUIREMENTS[key]


def get_bytecode_version(version: str | Version) -> int:
    """The MLIR bytecode format version StableHLO writes for ``version``
    (``Version::getBytecodeVersion``); ValueError outside [minimum, current]."""
    v = Version.of(version)
    if v < MINIMUM or v > CURRENT:
        raise ValueError(f"no bytecode version for StableHLO version {v}")
    for bound, code in _BYTECODE_VERSIONS:
        if v < bound:
            return code
    return 6


def validate_target(text: str, pos: SourcePos | None = None) -> Version:
    """VhloToVersion.cpp ``validateTargetVersion``: parse and range-check a target,
    returning its ``X.Y.0``; the messages are upstream's."""
    v = Version.parse(text)
    if v is None:
        if text == "":
            msg = "No target version specified.\nTarget version must be of the form `#.#.#`."
        else:
            msg = (
                f"Invalid target version argument '{text}'\n"
                "Target version must be of the form `#.#.#`."
            )
        raise VerificationError(msg, pos)
    if v < MINIMUM:
        raise VerificationError(f"target version {v} is less than minimum supported {MINIMUM}", pos)
    if CURRENT < v:
        raise VerificationError(
            f"target version {v} is greater than current version {CURRENT}", pos
        )
    return v.opset()


def resolve_target(text: str) -> str:
    """``current`` / ``minimum`` (stablehlo-translate --target) or a version string."""
    low = text.strip().lower()
    if low == "current":
        return str(CURRENT)
    if low == "minimum":
        return str(MINIMUM)
    return text.strip()
