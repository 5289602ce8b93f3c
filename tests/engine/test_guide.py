"""Proposals of the guided release: attribute types, hierarchies, privacy goals."""
from __future__ import annotations


from tests.shared_data import SHARED

import numpy as np
import pandas as pd
import pytest

from engine.data.table import EncodedTable
from engine.guide.auto_hierarchies import propose_hierarchy, round_width
from engine.guide.presets import GOALS, goal
from engine.guide.proposals import propose_attributes
from engine.privacy import model_from_dict


ADULT_CSV = SHARED / "data" / "adult" / "adult.csv"


@pytest.fixture(scope="module")
def adult_frame() -> pd.DataFrame:
    return pd.read_csv(ADULT_CSV, sep=";", dtype=str, keep_default_na=False)


def people(n: int = 400, seed: int = 3) -> pd.DataFrame:
    """A synthetic register with direct identifiers, quasi-identifiers and a diagnosis."""
    rng = np.random.default_rng(seed)
    first = ["James", "Mary", "John", "Linda", "Robert", "Anna", "Peter", "Emma"]
    last = ["Smith", "Miller", "Brown", "Wagner", "Garcia", "Young"]
    names = [f"{rng.choice(first)} {rng.choice(last)} {i}" for i in range(n)]
    return pd.DataFrame({
        "name": names,
        "email": [f"person{i}@example.org" for i in range(n)],
        "zip": [f"{rng.integers(10000, 10400)}" for _ in range(n)],
        "birth_date": [f"19{rng.integers(40, 99)}-{rng.integers(1, 13):02d}-"
                       f"{rng.integers(1, 29):02d}" for _ in range(n)],
        "sex": rng.choice(["F", "M"], n),
        "diagnosis": rng.choice(["J45", "E11", "I10", "F32", "C50"], n),
        "visits": rng.integers(0, 12, n).astype(str),
    })


def test_adult_proposals(adult_frame):
    table = EncodedTable.from_dataframe(adult_frame)
    types = {p.attribute: p.type for p in propose_attributes(table)}
    assert types["salary-class"] == "sensitive"
    for qi in ("sex", "age", "race", "marital-status", "education", "native-country",
               "workclass", "occupation"):
        assert types[qi] == "quasi-identifying", qi


def test_register_proposals_name_identifiers_and_reasons():
    table = EncodedTable.from_dataframe(people())
    proposals = {p.attribute: p for p in propose_attributes(table)}
    assert proposals["name"].type == "identifying"
    assert proposals["email"].type == "identifying"
    assert "e-mail" in proposals["email"].reason
    assert proposals["zip"].type == "quasi-identifying"
    assert proposals["birth_date"].type == "quasi-identifying"
    assert proposals["sex"].type == "quasi-identifying"
    assert proposals["diagnosis"].type == "sensitive"
    assert all(p.reason for p in proposals.values())


def test_unique_codes_are_identifiers():
    df = pd.DataFrame({"record": [f"R{i:05d}x" for i in range(100)],
                       "colour": ["red", "blue"] * 50})
    proposals = {p.attribute: p for p in propose_attributes(EncodedTable.from_dataframe(df))}
    assert proposals["record"].type == "identifying"
    assert "100%" in proposals["record"].reason


@pytest.mark.parametrize("span,target,width", [(73, 16, 5), (73, 20, 5), (9, 16, 1),
                                               (1000, 16, 100), (0.73, 16, 0.05)])
def test_round_width(span, target, width):
    assert round_width(span, target) == pytest.approx(width)


@pytest.mark.parametrize("column", ["zip", "birth_date", "sex", "diagnosis", "visits"])
def test_proposed_hierarchies_cover_every_value_and_end_in_one_group(column):
    table = EncodedTable.from_dataframe(people())
    col = table.column(column)
    proposal = propose_hierarchy(col)
    h = proposal.hierarchy
    values = sorted(set(map(str, col.dictionary)) - {""})
    assert not h.uncovered(values)
    rows = {r[0]: r for r in h.rows}
    tops = {rows[v][-1] for v in values}
    assert len(tops) == 1  # the top level is one group
    # each level is a coarsening of the level below: a group never splits
    for level in range(1, h.height + 1):
        parent = {}
        for v in values:
            below, above = rows[v][level - 1], rows[v][level]
            assert parent.setdefault(below, above) == above
    assert proposal.reason


def test_age_intervals(adult_frame):
    col = EncodedTable.from_dataframe(adult_frame).column("age")
    proposal = propose_hierarchy(col)
    rows = {r[0]: r for r in proposal.hierarchy.rows}
    assert rows["39"][1] == "[35, 40["
    assert "intervals of 5" in proposal.reason


def test_zip_codes_are_masked():
    proposal = propose_hierarchy(EncodedTable.from_dataframe(people()).column("zip"))
    assert proposal.spec.name == "masking"
    row = next(r for r in proposal.hierarchy.rows if r[0] != "")
    assert row[1] == row[0][:4] + "*"


@pytest.mark.parametrize("g", GOALS, ids=lambda g: g.key)
def test_goals_give_valid_models(g):
    models = [model_from_dict(dict(d)) for d in g.privacy(["diagnosis"])]
    assert models
    assert str(g.k) in g.describe(["diagnosis"])
    assert goal(g.key) is g


def test_verify_accepts_a_star_label_below_the_top():
    """A hierarchy that hides rare values with '*' below its top (priority) writes '*'
    into records that are not suppressed: verify must read it as a label, not a leak."""
    from engine.config import AttributeConfig, Job
    from engine.hierarchy.builders import PrioritySpec
    from engine.hierarchy.model import Hierarchy
    from engine.privacy import KAnonymity
    from engine.verify import verify_frame
    values = ["a"] * 6 + ["b"] * 4 + ["c"] * 2 + ["d"] * 2
    h = PrioritySpec(max_levels=3).build(values, "v")
    level1 = {r[0]: r[1] for r in h.rows}
    assert level1["a"] == "a" and "*" in level1.values()  # rare values hidden first
    sex = Hierarchy.from_rows([["F", "*"], ["M", "*"]], attribute="sex")
    job = Job(attributes={"v": AttributeConfig("quasi-identifying", hierarchy=h),
                          "sex": AttributeConfig("quasi-identifying", hierarchy=sex)},
              privacy=[KAnonymity(2)])
    released = pd.DataFrame({"v": [level1[v] for v in values], "sex": ["F", "M"] * 7})
    report = verify_frame(released, job)
    assert not any("not suppressed" in v for v in report.violations), report.violations
    counts = released.groupby(["v", "sex"]).size()
    assert report.ok == bool(counts.min() >= 2)
    released["sex"] = "*"  # sex at its top: '*' in both columns of every record
    released["v"] = [level1[v] for v in values]
    assert released.groupby("v").size().min() >= 2
    assert verify_frame(released, job).ok  # the '*' records read as a class of labels
