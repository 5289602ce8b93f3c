"""The Qt-free part of the Analyze-risk perspective: population model, estimator
curves with cancellation, formatting."""
from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from engine.analysis import risk_comparison as analysis
from engine.privacy.population import REGIONS, PopulationModel
from app.perspectives.risk.labels import interval_label, percent
from engine.analysis.risk_comparison import make_side, sampling_fractions, uniqueness_curves
from engine.errors import Cancelled


def small_side():
    frame = pd.DataFrame({"a": list("xxyyzw"), "b": list("112233")})
    return make_side("Input", frame, ["a"])


def test_population_model_region_and_fraction():
    usa = PopulationModel("USA")
    assert usa.population_size(1000) == REGIONS["USA"]
    assert usa.fraction(1000) == pytest.approx(1000 / REGIONS["USA"])
    custom = PopulationModel(None, 0.25)
    assert custom.population_size(1000) == 4000 and custom.fraction(1000) == 0.25
    assert "USA" in usa.describe(1000)


def test_sampling_fractions_hold_the_current_one():
    grid = sampling_fractions(30162, 0.0123)
    assert 0.0123 in grid and grid[-1] == 1.0 and grid[0] <= 1e-4
    assert np.all(np.diff(grid) > 0)


def test_side_profile_and_summary():
    side = small_side()
    assert side.sizes.n_records == 6 and side.sizes.n_classes == 4
    assert side.profile["records"].sum() == 6
    summary = side.summary(0.2)
    assert summary.sample_uniques == pytest.approx(2 / 6)
    assert summary.prosecutor.records_at_risk == 1.0  # every class is smaller than 5


def test_uniqueness_curves_and_failures():
    side = small_side()
    seen = []

    def failing(sizes, f):
        raise ValueError("no convergence")

    found = {"Pitman": lambda sizes, f: f * (sizes == 1).sum() / sizes.sum(),
             "SNB": failing}
    grid = np.array([0.1, 0.5, 1.0])
    frame, = uniqueness_curves([side], [grid], found, progress=seen.append)
    assert list(frame.columns) == ["Pitman", "SNB"]
    assert frame["Pitman"].tolist() == pytest.approx([0.1 / 3, 0.5 / 3, 1 / 3])
    assert frame["SNB"].isna().all()
    assert seen[-1].checked == seen[-1].total == 6
    with pytest.raises(Cancelled):
        uniqueness_curves([side], [grid], found, cancel=lambda: True)


def test_estimators_are_the_engines_by_arx_names():
    from engine import estimators as engine_estimators
    found = analysis.estimators()
    assert list(found) == ["Pitman", "Zayatz", "SNB", "Dankar"]
    assert found["Pitman"] is engine_estimators.pitman
    assert found["Dankar"] is engine_estimators.dankar
    assert analysis._dankar_rule(found) is engine_estimators.dankar_rule
    assert analysis._dankar_rule({**found, "SNB": lambda sizes, f: 0.0}) is None


def test_formatting():
    assert percent(None) == "–" and percent(0.0) == "0 %"
    assert percent(0.5) == "50.00 %"
    assert percent(0.000069) == "0.0069 %"
    assert percent(1e-8).endswith("e-06 %")
    assert percent(math.nan) == "–"
    assert interval_label(0.2, 0.25) == "]20, 25]"
