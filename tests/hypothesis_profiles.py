"""Hypothesis profiles of the test run, and how many examples a test draws under each.

Every profile has no deadline (a loaded machine must not fail a correct test) and
writes no example database into the checkout.

- ``ci`` (the default): derandomized (every run draws the same examples: a failure
  reproduces, a run is never flaky), drawing ``examples(n)`` = 3/8 of the examples a
  test names (at least 10, or n if smaller) and 15 where it names none, so that the
  default run stays fast.
- ``slow``: the same examples, all of them (``examples(n)`` = n; 40 where a test
  names none): ``python -m pytest --hypothesis-profile=slow tests/engine``.
- ``explore``: fresh random examples, 12.5 times the ``slow`` count, to look for
  new failures locally.

A test names its count as ``@settings(max_examples=examples(150))``: the count of
the ``slow`` profile, scaled to the profile the run loaded (``--hypothesis-profile``
is loaded before test modules are imported).
"""
from __future__ import annotations

from hypothesis import HealthCheck, settings

FULL = 40  # the slow profile's count where a test names none

settings.register_profile("ci", deadline=None, derandomize=True, database=None,
                          max_examples=15, print_blob=True,
                          suppress_health_check=[HealthCheck.too_slow,
                                                 HealthCheck.data_too_large])
settings.register_profile("slow", parent=settings.get_profile("ci"), max_examples=FULL)
settings.register_profile("explore", deadline=None, derandomize=False, database=None,
                          max_examples=500, print_blob=True,
                          suppress_health_check=[HealthCheck.too_slow])


def examples(n: int) -> int:
    """How many examples a test that draws ``n`` under the ``slow`` profile draws under
    the profile loaded now."""
    scaled = round(n * settings.default.max_examples / FULL)
    return scaled if scaled >= n else max(min(n, 10), scaled)
