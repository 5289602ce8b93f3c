"""`anonymist verify`'s Arrow path (engine/data/csv_distinct.py: blocks parsed by Arrow,
rows grouped on integer codes) gives the report of the plain pandas path, word for
word: on awkward files (quotes, byte order mark, CRLF, cp1252, the suppression marker,
tables that must FAIL), on files of many blocks (merged, classes in order of first
appearance), with a research subset and sensitive-value models; files Arrow could
read otherwise fall back to pandas (same report or same error)."""
from __future__ import annotations

import csv
import random

import pandas as pd
import pytest

from engine.api import as_job, prepare
from engine.data import csv_distinct
from engine.errors import DataError
from engine.output import transform
from engine.verify import verify_file
from tests.cli.conftest import job_text, write_tiny
from tests.spies import spy_answered

L_DIVERSITY = '[[privacy]]\nmodel = "distinct-l-diversity"\nattribute = "disease"\nl = 2\n'
T_CLOSENESS = ('[[privacy]]\nmodel = "t-closeness"\nattribute = "disease"\nt = 0.3\n'
               'distance = "hierarchical"\n')


@pytest.fixture
def spy(monkeypatch):
    """Whether each fast read grouped the file (True) or handed it to pandas (False)."""
    return spy_answered(monkeypatch, csv_distinct, "count_csv")


def both(path, job, spy, fast_expected=True, **kwargs):
    """verify_file's report by the plain path and by the fast path: equal."""
    plain = verify_file(path, job, fast=False, **kwargs).to_dict()
    assert spy == []
    fast = verify_file(path, job, fast=True, **kwargs).to_dict()
    assert spy == [fast_expected]
    spy.clear()
    assert fast == plain
    return fast


def released(folder, levels, extra_privacy="", limit="0.1", k="2"):
    if not (folder / "data.csv").exists():
        write_tiny(folder)
    (folder / "j.toml").write_text(job_text(k=k, limit=limit, extra_privacy=extra_privacy))
    job = as_job(folder / "j.toml")
    frame = transform(prepare(None, job), levels).frame.astype(str)
    return job, frame


def write(frame: pd.DataFrame, path, quoting=csv.QUOTE_MINIMAL, encoding="utf-8",
          lineterminator="\n"):
    frame.to_csv(path, sep=";", index=False, quoting=quoting, encoding=encoding,
                 lineterminator=lineterminator)
    return path


def test_awkward_files_give_the_same_report(tmp_path, spy):
    job, frame = released(tmp_path, [1, 0, 1], L_DIVERSITY, limit="0.5")
    out = tmp_path / "o.csv"
    ok = both(write(frame, out), job, spy)
    assert ok["ok"], ok["violations"]
    assert both(write(frame, out, csv.QUOTE_ALL, lineterminator="\r\n"), job, spy) == ok
    assert both(write(frame, out, encoding="utf-8-sig"), job, spy) == ok
    # values holding the delimiter (quoted) and non-ASCII text in cp1252
    odd = frame.assign(disease=frame["disease"].map({"flu": "flu; severe",
                                                     "cold": "Kälte", "cancer": "cancer"}))
    report = both(write(odd, out, encoding="cp1252"), job, spy)
    assert report["ok"] and report["classes"] == ok["classes"]
    # suppressed records (every QI the marker) and a marker that suppresses nothing
    marked = frame.copy()
    marked.loc[[0, 5, 9], ["age", "sex", "zip"]] = "*"
    marked.loc[[12], "zip"] = "*"
    report = both(write(marked, out), job, spy)
    assert report["suppressed_records"] >= 3 and not report["ok"]
    assert any("'*'" in v for v in report["violations"]), report["violations"]


def test_a_violating_table_fails_with_the_same_message(tmp_path, spy):
    job, frame = released(tmp_path, [1, 0, 1], L_DIVERSITY, limit="0.5")
    data = pd.read_csv(tmp_path / "data.csv", sep=";", dtype=str)
    frame["age"] = data["age"]  # original ages: tiny classes
    report = both(write(frame, tmp_path / "o.csv"), job, spy)
    assert not report["ok"]
    assert any("violate" in v for v in report["violations"]), report["violations"]


def test_files_arrow_could_misread_fall_back_to_pandas(tmp_path, spy):
    job, frame = released(tmp_path, [1, 0, 1])
    out = tmp_path / "o.csv"
    inner = frame.assign(disease=frame["disease"].where(frame.index != 3, 'fl"u'))
    assert both(write(inner, out, csv.QUOTE_NONE), job, spy, fast_expected=False)["ok"]
    text = write(frame, out).read_text()
    out.write_text(text + "30-39;M;11111;flu;extra\n")  # a record of another width
    assert not both(out, job, spy, fast_expected=False)["ok"]  # pandas shifts it
    out.write_text(text + '30-39;M;11111;"flu\n')  # a quoted value left open
    errors = []
    for fast in (False, True):
        with pytest.raises(DataError) as e:
            verify_file(out, job, fast=fast)
        errors.append(str(e.value))
    assert spy == [False] and errors[0] == errors[1]


def _big_tiny(folder, rows: int, seed: int = 5):
    rnd = random.Random(seed)
    data = [(f"p{i}", str(rnd.randrange(20, 80)), rnd.choice("MF"),
             rnd.choice(["11111", "11122", "11133"]), rnd.choice(["flu", "cold", "cancer"]))
            for i in range(rows)]
    write_tiny(folder, data)


@pytest.mark.parametrize("extra, levels", [("", [0, 0, 0]), (L_DIVERSITY, [1, 1, 1]),
                                           (T_CLOSENESS, [1, 0, 1])])
def test_many_blocks_give_the_same_report(tmp_path, spy, monkeypatch, extra, levels):
    monkeypatch.setattr(csv_distinct, "GROUP_ROWS", 250)  # blocks grouped a few at once
    _big_tiny(tmp_path, 6000)
    job, frame = released(tmp_path, levels, extra, k="60", limit="0.05")
    if not any(levels):  # the input as released: many small classes, named in file order
        frame = pd.read_csv(tmp_path / "data.csv", sep=";", dtype=str).drop(columns="name")
    out = write(frame, tmp_path / "o.csv")
    assert out.stat().st_size // 2048 > 6000 // 250  # a group pools several blocks
    assert 6000 // 250 > 2 * csv_distinct.MERGE_EVERY  # groups are merged more than once
    report = both(out, job, spy, block_bytes=2048)
    assert report == both(out, job, spy)  # one block
    if not any(levels):
        assert not report["ok"] and "violate" in " ".join(report["violations"])


def test_a_research_subset_is_counted_block_by_block(tmp_path, spy, monkeypatch):
    monkeypatch.setattr(csv_distinct, "GROUP_ROWS", 100)
    _big_tiny(tmp_path, 3000)
    (tmp_path / "rows.txt").write_text("\n".join(str(i) for i in range(0, 3000, 3)) + "\n")
    text = (job_text(k="1", limit="0.2",
                     extra_privacy='[[privacy]]\nmodel = "delta-presence"\n'
                                   'delta_min = 0.0\ndelta_max = 0.5\n')
            .replace('[[privacy]]\nmodel = "k-anonymity"\nk = 1\n', "")
            + '[subset]\nrows = "rows.txt"\n')
    (tmp_path / "j.toml").write_text(text)
    job = as_job(tmp_path / "j.toml")
    for levels in ([1, 0, 1], [0, 0, 0]):
        out = write(transform(prepare(None, job), levels).frame.astype(str),
                    tmp_path / "o.csv")
        both(out, job, spy, block_bytes=4096)


@pytest.mark.slow
def test_oracle_releases_give_the_same_report(tmp_path, spy):
    from engine.export.targets import CsvOptions, FileTarget, write_released
    from engine.problem import Problem
    from engine.search import run_search
    from tests import oracle
    cases = [c for c in oracle.cases()
             if c["algorithm"] == "OPTIMAL" and not c["expected_no_solution"]
             and "LocalRecoding" not in c["id"]]
    seen = set()
    for case in cases:  # one case per combination of models
        job = oracle.job_for(case)
        models = tuple(sorted(m.name for m in job.privacy))
        if models in seen:
            continue
        seen.add(models)
        problem = Problem(oracle.table(case["dataset"]), job)
        optimum = run_search(problem).optimum
        if optimum is None:
            continue
        out = tmp_path / "out.csv"
        write_released(transform(problem, optimum.levels),
                       FileTarget(out, "csv", CsvOptions(delimiter=";")))
        both(out, oracle.verify_job(case), spy, block_bytes=8192)
