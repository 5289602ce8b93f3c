"""The one released table (engine.output.transform): every way of reading it agrees with
a table built independently from the hierarchy CSVs with pandas."""
from __future__ import annotations

import threading

import numpy as np
import pandas as pd
import pytest

import engine
from engine.markers import SUPPRESSED
from engine.output import transform
from tests.shared_data import SHARED

ADULT = SHARED / "data" / "adult"
QIS = ["age", "education", "sex", "race"]
ROWS = 2000


@pytest.fixture(scope="module")
def adult():
    if not (ADULT / "adult.csv").exists():
        pytest.skip("../shared/data/adult is not available")
    frame = pd.read_csv(ADULT / "adult.csv", sep=";", dtype=str, keep_default_na=False)
    frame = frame.head(ROWS)
    cfg = {"attributes": {q: {"type": "quasi-identifying",
                              "hierarchy": str(ADULT / f"adult_hierarchy_{q}.csv")}
                          for q in QIS},
           "privacy": [{"model": "k-anonymity", "k": 5}],
           "transformation": {"suppression_limit": 0.1}, "metric": {"name": "loss"}}
    cfg["attributes"]["workclass"] = {"type": "identifying"}
    return frame, engine.anonymize(frame, cfg)


def expected_release(frame: pd.DataFrame, levels: dict[str, int], k: int) -> pd.DataFrame:
    """Generalize with the hierarchy CSVs, suppress classes smaller than k, drop the
    identifying column: the released table, written without the engine."""
    out = frame.drop(columns=["workclass"]).copy()
    for q in QIS:
        h = pd.read_csv(ADULT / f"adult_hierarchy_{q}.csv", sep=";", header=None, dtype=str,
                        keep_default_na=False)
        mapping = dict(zip(h[0], h[levels[q]]))
        out[q] = out[q].map(mapping)
    sizes = out.groupby(QIS)[QIS[0]].transform("size")
    out.loc[sizes < k, QIS] = SUPPRESSED
    return out


def test_every_reading_of_the_released_table_agrees_with_an_independent_build(adult,
                                                                              tmp_path):
    frame, result = adult
    opt = result.optimum.levels
    # a non-optimal anonymous transformation: one more level on the first QI that has it
    levels = dict(opt)
    q = next(q for q, h in zip(result.problem.qis, result.problem.hierarchies)
             if opt[q] < h.height)
    levels[q] += 1
    released = transform(result.problem, levels)
    expected = expected_release(frame, levels, 5)
    assert released.names == list(expected.columns)
    assert released.frame.astype(str).equals(expected.astype(str))
    rows = np.arange(ROWS)
    for name in released.names:
        assert list(released.values(name, rows)) == list(expected[name])
        assert list(released.column(name).values()) == list(expected[name])
        assert released.value(name, 7) == expected[name].iloc[7]
    assert list(released.encoded().to_dataframe().columns) == released.names
    sup = (expected[QIS] == SUPPRESSED).all(axis=1).to_numpy()
    assert np.array_equal(released.suppressed_rows, sup)
    assert released.suppressed_records == int(sup.sum()) == \
        result.evaluate(levels).suppressed_records
    # the CSV: written in chunks, equal to pandas' own writing of the whole table
    path = tmp_path / "out.csv"
    result.write_output(path, levels)
    assert path.read_text() == expected.to_csv(sep=";", index=False)
    assert released.to_csv_text(",") == expected.to_csv(sep=",", index=False)
    chunks = list(released.chunks(rows=333))
    assert pd.concat(chunks, ignore_index=True).astype(str).equals(expected.astype(str))


def test_identifying_columns_are_not_released(adult):
    _frame, result = adult
    released = result.transformed()
    assert "workclass" not in released.names and "workclass" in released.input_names
    with pytest.raises(engine.DataError, match="identifying"):
        released.values("workclass")
    assert "workclass" not in result.output.columns


def test_the_result_keeps_the_last_table_and_answers_threads_alike(adult):
    _frame, result = adult
    levels = result.optimum.levels
    assert result.transformed(levels) is result.transformed()  # the optimum's, kept
    found: list = []

    def read():
        r = transform(result.problem, levels)
        found.append((r.frame, r.suppressed_rows.copy()))

    threads = [threading.Thread(target=read) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for f, sup in found:
        assert f.equals(result.output) and np.array_equal(sup, result.transformed().suppressed_rows)


def test_levels_are_checked(adult):
    _frame, result = adult
    with pytest.raises(ValueError, match="expected 4 levels"):
        transform(result.problem, [0, 0])
    with pytest.raises(ValueError, match="no level for"):
        transform(result.problem, {"age": 0})


def test_threads_asking_at_once_share_one_released_table(adult, monkeypatch):
    """Threads asking for the same transformation at once get one table, built once."""
    import engine.result
    _frame, result = adult
    built = []
    original = engine.result.transform

    def counting(problem, key):
        built.append(key)
        return original(problem, key)

    monkeypatch.setattr(engine.result, "transform", counting)
    levels = tuple(int(x) for x in result.problem.lattice.max_levels)  # not the kept one
    seen, start = [], threading.Barrier(4)

    def ask():
        start.wait()
        seen.append(result.transformed(levels))

    threads = [threading.Thread(target=ask) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert built == [levels] and all(t is seen[0] for t in seen)
