"""Every sentence the guide says about a release is true of the released table:
each preset's claims recounted from the output with pandas, and each "keep X finer"
alternative names what it costs and changes something."""
from __future__ import annotations

import re

import pandas as pd
import pytest

import engine
from engine.config import AttributeConfig, Job, TransformationConfig
from engine.guide.presets import GOALS, goal
from engine.guide.summary import finer_alternatives
from engine.hierarchy.csv_io import read_hierarchy
from engine.privacy import model_from_dict
from tests.shared_data import SHARED

ADULT = SHARED / "data" / "adult"
QIS = ["sex", "age", "race", "marital-status", "education"]
SENSITIVE = "salary-class"


@pytest.fixture(scope="module")
def adult() -> pd.DataFrame:
    return pd.read_csv(ADULT / "adult.csv", sep=";", dtype=str, keep_default_na=False)


def _job(adult, g) -> Job:
    attributes = {q: AttributeConfig(type="quasi-identifying",
                                     hierarchy=read_hierarchy(ADULT / f"adult_hierarchy_{q}.csv", q))
                  for q in QIS}
    attributes[SENSITIVE] = AttributeConfig(type="sensitive")
    return Job(attributes=attributes,
               privacy=[model_from_dict(dict(m)) for m in g.privacy([SENSITIVE])],
               transformation=TransformationConfig(suppression_limit=g.suppression_limit))


@pytest.mark.parametrize("key", ["public", "agreement"])
def test_preset_claims_hold_on_the_released_table(adult, key):
    g = goal(key)
    result = engine.anonymize(adult[QIS + [SENSITIVE]], _job(adult, g))
    out = result.output
    suppressed = (out[QIS] == "*").all(axis=1)
    released = out[~suppressed]
    groups = released.groupby(QIS)
    # "at least N others": the number the text says is k - 1
    others = int(re.search(r"at least (\d+) others", g.explanation).group(1))
    assert others == g.k - 1
    assert groups.size().min() >= others + 1
    if "two different values" in g.explanation:
        assert g.l_diversity == 2
        assert groups[SENSITIVE].nunique().min() >= 2
    assert suppressed.mean() <= g.suppression_limit
    assert f"{g.suppression_limit:.0%}" in g.describe([SENSITIVE])


def test_no_preset_promises_what_its_models_do_not_give():
    for g in GOALS:
        text = g.explanation.lower()
        assert "reveals nothing" not in text and "nothing is revealed" not in text
        assert "below" not in g.describe(["s"])  # k-map bounds the risk at 1/k, inclusive
        if g.needs_population:
            assert "estimated" in text


@pytest.fixture(scope="module")
def agreement_result(adult):
    return engine.anonymize(adult[QIS + [SENSITIVE]], _job(adult, goal("agreement")))


def test_alternatives_name_what_they_make_coarser_and_change_something(agreement_result):
    result = agreement_result
    problem = result.problem
    levels = [result.optimum.levels[q] for q in problem.qis]
    current = result.evaluate(levels)
    alternatives = finer_alternatives(result, levels)
    assert alternatives
    for alt in alternatives:
        j = problem.qis.index(alt.attribute)
        assert alt.levels[j] == levels[j] - 1
        text = alt.text(current.information_loss_percent, current.suppressed_records)
        raised = [problem.qis[i] for i in range(len(levels)) if alt.levels[i] > levels[i]]
        if raised:  # the attribute made coarser is named in the button's text
            assert alt.coarser is not None and alt.coarser[0] == raised[0]
            assert raised[0] in text
        else:
            assert alt.coarser is None
        # the alternative's release differs from the current one in some cell
        other = result.evaluate(list(alt.levels))
        assert other.anonymous
        changed = False
        for i, q in enumerate(problem.qis):
            if alt.levels[i] != levels[i]:
                h = problem.hierarchies[i]
                present = problem.table.column(q).value_counts() > 0
                a = h.labels[alt.levels[i]][h.maps[alt.levels[i]]][present]
                b = h.labels[levels[i]][h.maps[levels[i]]][present]
                changed |= bool((a.astype(str) != b.astype(str)).any())
        assert changed, text
        if f"{other.information_loss_percent:.1f}" == f"{current.information_loss_percent:.1f}":
            assert "the same information loss" in text


def test_a_removed_attribute_is_said_in_words():
    from engine.guide.summary import Alternative
    alt = Alternative("zip_code", (1, 3), 33.6, 10, ("birth_date", 3, 3))
    text = alt.text(31.4, 12)
    assert text.startswith("Keep zip_code finer, birth_date removed (every record shows '*')")
    assert "33.6 % instead of 31.4 %" in text and "10 records suppressed instead of 12" in text
    same = Alternative("age", (1, 1), 11.1, 5, None).text(11.1, 5)
    assert same == "Keep age finer: the same information loss (11.1 %), 5 records suppressed"


def test_an_empty_or_constant_column_is_not_a_quasi_identifier():
    from engine.data.table import EncodedTable
    from engine.guide.proposals import propose_attributes
    frame = pd.DataFrame({"age": [str(20 + i % 30) for i in range(100)],
                          "empty": [""] * 100, "constant": ["x"] * 100})
    proposals = {p.attribute: p for p in propose_attributes(EncodedTable.from_dataframe(frame))}
    assert proposals["empty"].type == "insensitive" and "empty" in proposals["empty"].reason
    assert proposals["constant"].type == "insensitive"
    assert "tells nobody apart" in proposals["constant"].reason
    for p in proposals.values():
        assert "0 distinct" not in p.reason and " 1 values" not in p.reason
