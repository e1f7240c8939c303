"""Shared test fixtures: where the StableHLO reference material is, if anywhere."""

from __future__ import annotations

from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
SHARED = REPO.parent / "shared" / "stablehlo"


def shared_dir(*parts: str) -> Path:
    """A folder of ../shared/stablehlo, or skip the test saying why."""
    path = SHARED.joinpath(*parts)
    if not path.exists():
        pytest.skip(f"{path} not found: the StableHLO reference material sits beside the repo "
                    "only in CI and developer checkouts")
    return path
