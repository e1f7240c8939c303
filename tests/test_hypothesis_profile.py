"""Hypothesis runs derandomized (tests/conftest.py's "repeatable" profile) unless
HYPOTHESIS_PROFILE=explore: CI and the README's command give the same verdict on every
run, and the settings objects test modules build inherit it."""

from __future__ import annotations

import os

import pytest
from hypothesis import settings


@pytest.mark.skipif(os.environ.get("HYPOTHESIS_PROFILE") == "explore", reason="exploring")
def test_default_profile_is_derandomized():
    assert settings.default.derandomize is True
    assert settings(max_examples=5).derandomize is True  # what a module's @settings gets
    from tests.kernels import test_reduction

    assert test_reduction.SETTINGS.derandomize is True
