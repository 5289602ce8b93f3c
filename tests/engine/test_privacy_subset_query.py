"""Research subsets selected by a query on attribute values."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from engine.data.table import EncodedTable
from engine.errors import JobError
from engine.query import evaluate_query

TABLE = EncodedTable.from_dataframe(pd.DataFrame({
    "age": ["25", "31", "40", "unknown", "31"],
    "sex": ["Male", "Female", "Male", "Male", "Female"],
    "marital-status": ["single", "married", "married", "single", "divorced"],
}))


@pytest.mark.parametrize("query, rows", [
    ("age > 30 and sex = 'Male'", [2]),
    ("age >= 31", [1, 2, 4]),
    ("age ≥ 31 and age ≤ 31", [1, 4]),
    ("age < 31 or sex != Male", [0, 1, 4]),
    ("age ≠ 31", [0, 2, 3]),
    ("age <> 31", [0, 2, 3]),
    ("age == 25", [0]),
    ("not (age > 30)", [0, 3]),
    ("sex = Female or sex = Male and age = 40", [1, 2, 4]),
    ("(sex = Female or sex = Male) and age = 40", [2]),
    ("marital-status = 'married'", [1, 2]),
    ('"marital-status" = "single" AND age = unknown', [3]),
    ("`sex` > 'G'", [0, 2, 3]),
])
def test_query_selects_rows(query, rows):
    assert np.flatnonzero(evaluate_query(query, TABLE)).tolist() == rows


@pytest.mark.parametrize("query, message", [
    ("", "empty"),
    ("age >", "expected a value"),
    ("height = 3", "not a column"),
    ("age = 3 and", "expected"),
    ("(age = 3", "expected rpar"),
    ("age = 3)", "unexpected"),
    ("age ~ 3", "expected op"),
    ("age = 'open", "cannot read"),
])
def test_bad_queries_name_the_problem(query, message):
    with pytest.raises(JobError, match=message):
        evaluate_query(query, TABLE)


def test_job_subset_query_resolves():
    from engine.config import Job
    from engine.subset import resolve_subset
    mask = resolve_subset(Job(subset={"query": "sex = 'Female'"}), TABLE)
    assert mask.tolist() == [False, True, False, False, True]
