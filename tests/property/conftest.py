"""Hypothesis profiles of the property suite.

* ``ci`` (the default): 12 examples per test and no deadline, so the whole suite runs
  in about a minute on a small CI machine;
* ``thorough``: 200 examples per test, for local runs (~20 minutes):
  ``HYPOTHESIS_PROFILE=thorough python3 -m pytest tests/property``.

The profile applies to the tests of this directory only (``harness.PROFILE`` decorates
each of them); other test directories keep their own settings.
"""

from __future__ import annotations

from hypothesis import HealthCheck, settings

_COMMON = dict(
    deadline=None,
    suppress_health_check=[
        HealthCheck.too_slow,
        HealthCheck.data_too_large,
        HealthCheck.filter_too_much,
    ],
    print_blob=True,
)
# ci: derandomized, so a CI run is reproducible (thorough stays random to find new bugs)
settings.register_profile("ci", max_examples=12, derandomize=True, **_COMMON)
settings.register_profile("thorough", max_examples=200, **_COMMON)
