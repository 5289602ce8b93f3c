"""Test-run settings shared by every test.

Hypothesis runs with one profile, ``ci``, unless ``--hypothesis-profile`` names
another: no deadlines (a loaded machine must not fail a correct test), derandomized
(every run draws the same examples: a failure reproduces, a run is never flaky), no
example database written into the checkout, 40 examples where a test sets no number. ``explore`` draws fresh random examples
(more of them) to look for new failures locally:

    python -m pytest --hypothesis-profile=explore tests/engine/test_datatypes.py
"""
from __future__ import annotations

from hypothesis import HealthCheck, settings

settings.register_profile("ci", deadline=None, derandomize=True, database=None, max_examples=40,
                          print_blob=True,
                          suppress_health_check=[HealthCheck.too_slow,
                                                 HealthCheck.data_too_large])
settings.register_profile("explore", deadline=None, derandomize=False, max_examples=500,
                          print_blob=True, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("ci")
