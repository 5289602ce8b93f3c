"""Test-run settings shared by every test.

Hypothesis runs with the ``ci`` profile unless ``--hypothesis-profile`` names
another (``tests/hypothesis_profiles.py``: ``slow`` draws every example a test
names, ``explore`` fresh random ones, many more):

    python -m pytest --hypothesis-profile=slow tests/engine/test_datatypes.py
"""
from __future__ import annotations

from hypothesis import settings

import tests.hypothesis_profiles  # noqa: F401  (registers the profiles)

settings.load_profile("ci")
