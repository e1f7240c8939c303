"""Hypothesis profiles of the property suite.

* ``ci`` (the default): few examples per test, no deadline, so the whole suite runs
  in a bounded time on a small CI machine;
* ``thorough``: many examples, for local runs:
  ``HYPOTHESIS_PROFILE=thorough python3 -m pytest tests/property``.
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

_COMMON = dict(
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                           HealthCheck.filter_too_much],
    print_blob=True,
)
settings.register_profile("ci", max_examples=12, **_COMMON)
settings.register_profile("thorough", max_examples=400, **_COMMON)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))
