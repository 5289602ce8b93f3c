"""Analyses of a frequency table (weighted rows) and through the DuckDB backend give the
figures the same analyses give on the records: distributions, contingency tables,
summary statistics, quality and the risk profile (random tables, and Adult with a few
transformations, one with suppression)."""
from __future__ import annotations

import math
import shutil

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.hypothesis_profiles import examples

from engine.analysis.qi_analysis import qi_analysis
from engine.analysis.quality import quality
from engine.analysis.risk import class_size_profile, class_sizes, risk_profile, risk_summary
from engine.analysis.sources import AnalysisTables
from engine.analysis.statistics import contingency, frequencies, summary_statistics
from engine.data.datatypes import INTEGER, STRING
from engine.data.table import EncodedTable
from tests.engine.conftest import ADULT, adult_job_text

pytest.importorskip("duckdb")

AGES = ["17", "25", "25", "38", "40", "61", "", "*", "90"]
CODES = ["a", "b", "c", "", "*"]


def weighted(frame: pd.DataFrame) -> EncodedTable:
    """The distinct rows of ``frame`` with their counts (pandas, not the engine)."""
    counted = frame.groupby(list(frame.columns), sort=False).size().reset_index(name="__w")
    table = EncodedTable.from_dataframe(counted.drop(columns="__w"))
    return EncodedTable([table.column(n) for n in table.names], counted["__w"].to_numpy())


def assert_same(a, b):
    """Equal figures: frames cell by cell, dataclasses field by field (floats to 1e-12:
    sums over classes in another order)."""
    if isinstance(a, pd.DataFrame):
        pd.testing.assert_frame_equal(a.reset_index(drop=True), b.reset_index(drop=True),
                                      check_dtype=False, rtol=1e-12)
        assert list(a.index) == list(b.index)
    elif hasattr(a, "__dataclass_fields__"):
        for name in a.__dataclass_fields__:
            assert_same(getattr(a, name), getattr(b, name))
    elif isinstance(a, dict):
        assert a.keys() == b.keys()
        for k in a:
            assert_same(a[k], b[k])
    elif isinstance(a, tuple):
        assert len(a) == len(b)
        for x, y in zip(a, b):
            assert_same(x, y)
    elif isinstance(a, float) and isinstance(b, float):
        assert (math.isnan(a) and math.isnan(b)) or a == pytest.approx(b, rel=1e-12, abs=1e-15)
    elif isinstance(a, pd.Timestamp) or isinstance(a, pd.Timedelta):
        assert abs(a - b) < pd.Timedelta("1us")
    else:
        assert a == b


rows = st.lists(st.tuples(st.sampled_from(AGES), st.sampled_from(CODES),
                          st.sampled_from(CODES), st.sampled_from(["x", "y"]),
                          st.integers(1, 4)),  # the row's copies: records repeat
                min_size=1, max_size=30)


@settings(deadline=None, max_examples=examples(12))
@given(rows=rows, suppress=st.sets(st.sampled_from(CODES)), band=st.integers(5, 40))
def test_weighted_table_gives_the_records_figures(rows, suppress, band):
    frame = pd.DataFrame([r[:4] for r in rows for _ in range(r[4])],
                         columns=["age", "q", "r", "other"]).sample(frac=1.0, random_state=1,
                                                                  ignore_index=True)
    assert weighted(frame).n_rows < len(frame) or len(frame) == len(rows)
    # an output: age banded, records with q in ``suppress`` suppressed (per record values,
    # so every distinct row is suppressed or not as a whole)
    out = frame.copy()
    num = pd.to_numeric(frame.age, errors="coerce")
    out["age"] = np.where(num.notna(), (num // band * band).astype("Int64").astype(str),
                          frame.age)
    sup = frame.q.isin(suppress).to_numpy()
    out.loc[sup, ["age", "q"]] = "*"
    both = pd.concat([frame.add_prefix("in_"), out.add_prefix("out_"),
                      pd.Series(sup, name="sup").astype(str)], axis=1)
    w = weighted(both)
    w_in = EncodedTable([w.column("in_" + n) for n in frame.columns], w.weights)
    w_out = EncodedTable([w.column("out_" + n) for n in frame.columns], w.weights)
    w_in = EncodedTable([_renamed(c, c.name[3:]) for c in w_in._columns.values()], w.weights)
    w_out = EncodedTable([_renamed(c, c.name[4:]) for c in w_out._columns.values()], w.weights)
    w_sup = w.column("sup").values() == "True"
    # types given (detection parses every value many times; it is tested once per side)
    types = {"age": INTEGER, "q": STRING, "r": STRING, "other": STRING}
    for full, agg in ((frame, w_in), (out, w_out)):
        for name in frame.columns:
            assert_same(frequencies(full, name, types[name]), frequencies(agg, name, types[name]))
            assert_same(summary_statistics(full, name, types[name]),
                        summary_statistics(agg, name, types[name]))
        assert_same(summary_statistics(full, "age"), summary_statistics(agg, "age"))
        assert_same(contingency(full, "age", "q", types), contingency(agg, "age", "q", types))
        assert_same(contingency(full, "q", "r", types, max_values=2, normalize=True),
                    contingency(agg, "q", "r", types, max_values=2, normalize=True))
    qis = ["age", "q", "r"]
    for sizes in [(class_sizes(out, qis, sup), class_sizes(w_out, qis, w_sup)),
                  (class_sizes(frame, qis, None, frame.other.to_numpy() == "x"),
                   class_sizes(w_in, qis, None, w_in.column("other").values() == "x"))]:
        full, agg = sizes
        assert sorted(zip(full.sample, full.population)) == sorted(zip(agg.sample,
                                                                       agg.population))
        assert_same(risk_profile(full), risk_profile(agg))
        assert_same(class_size_profile(full), class_size_profile(agg))
        assert_same(risk_summary(full, 0.3), risk_summary(agg, 0.3))
    assert_same(quality(frame, out, qis, data_types=types, suppressed=sup),
                quality(w_in, w_out, qis, data_types=types, suppressed=w_sup))
    for full, agg, rows in ((frame, w_in, None), (out, w_out, ~sup)):
        assert_same(qi_analysis(full, qis, rows=rows).table,
                    qi_analysis(agg, qis, rows=None if rows is None else ~w_sup).table)


def _renamed(col, name):
    from engine.data.table import EncodedColumn
    return EncodedColumn(name, col.codes, col.dictionary)


# --- Adult through DuckDB -------------------------------------------------------------------
QIS = ["sex", "age", "race", "marital-status", "education"]
OTHERS = ["native-country", "workclass", "occupation", "salary-class"]


@pytest.fixture(scope="module")
def problems(tmp_path_factory):
    from engine.api import prepare
    folder = tmp_path_factory.mktemp("adult")
    for f in ADULT.glob("adult*.csv"):
        shutil.copy(f, folder / f.name)
    out = {}
    for backend in ("memory", "duckdb"):
        path = folder / f"{backend}.toml"
        path.write_text(adult_job_text(k=20, qis=QIS) + f'[engine]\nbackend = "{backend}"\n'
                        # a coding rule: occupation is released changed, not as it is
                        '[attributes."occupation"]\ntype = "insensitive"\n'
                        'transformation = "suppression"\n')
        out[backend] = prepare(None, str(path))
    assert out["duckdb"].backend is not None and out["memory"].backend is None
    yield out
    out["duckdb"].backend.close()


def figures(problem, levels) -> dict:
    """Every figure Analyze utility and risk show for one transformation."""
    from engine.output import transform
    released = transform(problem, levels)
    tables = AnalysisTables(problem, released)
    types = {"age": INTEGER}
    got = {"suppressed": released.suppressed_records,
           "classes": released.class_statistics()}
    for name in QIS + OTHERS:
        for side, table in (("in", tables.input([name])), ("out", tables.output([name]))):
            got[side, name] = (frequencies(table, name, types.get(name)),
                               summary_statistics(table, name, types.get(name)))
    for a, b in (("age", "sex"), ("education", "occupation"), ("race", "salary-class"),
                 ("workclass", "salary-class"), ("salary-class", "age")):
        got["contingency", a, b] = (contingency(tables.input([a, b]), a, b, types),
                                    contingency(tables.output([a, b]), a, b, types))
    cin, cout = tables.input(QIS), tables.output(QIS)
    got["quality"] = quality(cin, cout, QIS, {q: problem.job.attributes[q].hierarchy
                                              for q in QIS},
                             types, cout.suppressed_rows())
    for side, table, sup in (("in", cin, None), ("out", cout, cout.suppressed_rows())):
        sizes = class_sizes(table, QIS, sup)
        got["sizes", side] = tuple(sorted(sizes.sample))
        got["risk", side] = (risk_summary(sizes, 0.1), risk_profile(sizes),
                             class_size_profile(sizes))
    return got


@pytest.mark.parametrize("levels", [(0, 0, 0, 0, 0), (1, 2, 1, 1, 2), (1, 4, 1, 2, 3)])
def test_adult_figures_through_duckdb_equal_the_records(problems, levels):
    mem, duck = figures(problems["memory"], levels), figures(problems["duckdb"], levels)
    assert mem.keys() == duck.keys()
    for key in mem:
        assert_same(mem[key], duck[key])
    if levels == (1, 2, 1, 1, 2):
        assert mem["suppressed"] > 0  # suppression is among the cases
    assert problems["duckdb"].table.n_rows < 30_000  # a frequency table, not the records


def test_columns_beyond_the_frequency_table_are_counted_by_duckdb(problems):
    from engine.output import transform
    problem = problems["duckdb"]
    tables = AnalysisTables(problem, transform(problem, (1, 2, 1, 1, 2)))
    assert "workclass" not in problem.table and tables.out_of_core
    assert "occupation" in problem.table  # coded by a rule: the search's table holds it
    counted = tables.output(["age", "workclass"])
    assert counted.weights is not None and counted.n_records == problem.table.n_records
    assert tables.output(["workclass", "age"]) is counted  # counted once
    before = tables.input(["age", "workclass"])  # the same scan, row-aligned
    assert before.n_rows == counted.n_rows and (before.weights == counted.weights).all()
    assert "*" not in before.column("age").dictionary
    assert tables.input(["workclass"]) is tables.output(["workclass"])  # released as is
    assert tables.input(["occupation"]) is not tables.output(["occupation"])  # coded
    assert "*" in counted.column("age").dictionary
    # one distribution asked for: every other column's counted in the same scan
    calls = []
    backend = problem.backend
    original = backend.column_counts
    backend.column_counts = lambda *a, **k: calls.append(a) or original(*a, **k)
    try:
        fresh = AnalysisTables(problem, transform(problem, (1, 2, 1, 1, 2)))
        workclass = fresh.input(["workclass"])
        assert fresh.input(["salary-class"]).n_records == workclass.n_records == 30162
        assert len(calls) == 1 and set(calls[0][0]) == set(OTHERS) - {"occupation"}
    finally:
        del backend.column_counts
