"""Released counts for a backend that only counts frequency tables (Spark): the base
class's ``release_counts`` / ``release_pairs`` apply the plan (``ReleasePlan.apply``) to
one frequency table and give DuckDB's counts of its release query, and the analyses'
figures through ``AnalysisTables`` are the same. No Spark session: the frequency tables
come from DuckDB behind a backend that has nothing else."""
from __future__ import annotations

import copy
import shutil

import numpy as np
import pandas as pd
import pytest

from engine.analysis.sources import AnalysisTables
from engine.analysis.statistics import contingency, frequencies
from engine.backends.base import Backend
from engine.errors import DataError
from tests.engine.conftest import ADULT

QIS = ["sex", "age", "race", "education"]
ROWS = 3000


@pytest.fixture(scope="module")
def problem(tmp_path_factory):
    """Adult's first rows with a numeric 'hours' (microaggregated) and a 'note' (coded
    away), prepared on DuckDB."""
    from engine.api import prepare
    from engine.project.job_file import load_job
    folder = tmp_path_factory.mktemp("plan")
    for f in ADULT.glob("adult_hierarchy_*.csv"):
        shutil.copy(f, folder / f.name)
    frame = pd.read_csv(ADULT / "adult.csv", sep=";", dtype=str, keep_default_na=False)
    frame = frame.iloc[:ROWS].copy()
    i = np.arange(ROWS)
    frame["hours"] = [("" if k % 97 == 0 else str((k * 37) % 83 + 5)) for k in i]
    frame["note"] = [f"n{(k * 7) % 23}" for k in i]
    frame.to_csv(folder / "adult.csv", sep=";", index=False)
    lines = ['[data]\npath = "adult.csv"\ndelimiter = ";"\n']
    for q in QIS:
        lines.append(f'[attributes."{q}"]\ntype = "quasi-identifying"\n'
                     f'hierarchy = "adult_hierarchy_{q}.csv"\n')
    lines.append('[attributes."hours"]\ntype = "quasi-identifying"\n'
                 'transformation = "microaggregation"\nfunction = "arithmetic-mean"\n'
                 '[attributes."note"]\ntype = "insensitive"\ntransformation = "suppression"\n')
    lines.append('[[privacy]]\nmodel = "k-anonymity"\nk = 5\n')
    lines.append('[transformation]\nsuppression_limit = 0.04\n[engine]\nbackend = "duckdb"\n')
    (folder / "job.toml").write_text("\n".join(lines))
    p = prepare(None, load_job(folder / "job.toml"))
    yield p
    p.backend.close()


class CountsOnly(Backend):
    """A backend with frequency tables only (what Spark offers): DuckDB's, nothing else."""

    name = "counts-only"

    def __init__(self, inner):
        super().__init__(inner.source)
        self.inner = inner

    def columns(self):
        return self.inner.columns()

    def frequency_table(self, columns, progress=None, subset=None, sample=None):
        return self.inner.frequency_table(columns, progress, subset, sample)


def as_dict(*tables) -> dict:
    """{(row's values across the tables): records} of row-aligned weighted tables."""
    out: dict = {}
    for r in range(tables[0].n_rows):
        key = tuple(str(t.column(n).dictionary[t.column(n).codes[r]])
                    for t in tables for n in t.names)
        out[key] = out.get(key, 0) + int(tables[0].weights[r])
    return out


@pytest.mark.parametrize("levels", [(0, 1, 0, 1), (0, 0, 0, 0)])
def test_release_counted_from_a_frequency_table_equals_duckdb(problem, levels):
    from engine.output import transform
    released = transform(problem, levels)
    plan = released.plan()
    duck, only = problem.backend, CountsOnly(problem.backend)
    assert released.suppressed_records > 0 or levels != (0, 0, 0, 0)
    for columns in (["age"], ["hours"], ["note"], ["salary-class"], ["education", "hours"],
                    ["sex", "race", "workclass"]):
        got, want = only.release_counts(plan, columns), duck.release_counts(plan, columns)
        assert as_dict(got) == as_dict(want), columns
        assert int(got.weights.sum()) == ROWS
    for columns in (["education", "workclass"], ["age", "sex", "occupation"]):
        got, want = only.release_pairs(plan, columns), duck.release_pairs(plan, columns)
        assert as_dict(*got) == as_dict(*want), columns
    with pytest.raises(DataError, match="'nope' is not a released column"):
        only.release_counts(plan, ["nope"])


def test_analyses_on_a_counting_backend_show_duckdbs_figures(problem):
    """What Analyze utility counts through AnalysisTables (distributions of generalized,
    microaggregated and plain columns, contingency of a quasi-identifier with a plain
    column) is the same from a backend that only counts frequency tables."""
    from engine.output import transform
    levels = (0, 1, 0, 1)
    duck = AnalysisTables(problem, transform(problem, levels))
    only_problem = copy.copy(problem)  # the same frequency table, another backend
    only_problem.backend = CountsOnly(problem.backend)
    only = AnalysisTables(only_problem, transform(only_problem, levels))
    assert not hasattr(only.backend, "column_counts")
    for name in ("age", "hours", "note", "workclass"):
        for side in ("input", "output"):
            a = frequencies(getattr(only, side)([name]), name)
            b = frequencies(getattr(duck, side)([name]), name)
            pd.testing.assert_frame_equal(a, b)
    for rows, cols in (("education", "workclass"), ("age", "hours")):
        for side in ("input", "output"):
            a = contingency(getattr(only, side)([rows, cols]), rows, cols)
            b = contingency(getattr(duck, side)([rows, cols]), rows, cols)
            pd.testing.assert_frame_equal(a, b)
