"""`verify` of a Parquet release on every core (engine/verifier/parquet_rows.py: row
groups grouped by Arrow in a pool of threads) gives the row-by-row reading's report,
leaks included; a file with a column that is not text is read row by row."""
from __future__ import annotations

import shutil

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from engine.api import as_job
from engine.cli import main
from engine.verifier import parquet_rows
from engine.verify import verify_parquet
from tests.engine.conftest import ADULT, adult_job_text
from tests.spies import spy_answered

QIS = ["sex", "age", "race", "marital-status", "education"]
REAL = parquet_rows.count_parquet


def spy_threaded_count(monkeypatch) -> list[bool]:
    """Per call of the threaded Parquet count from now on: whether it counted (a
    result) or handed the file back (None)."""
    return spy_answered(monkeypatch, parquet_rows, "count_parquet")


@pytest.fixture
def released(tmp_path, capsys):
    for f in ADULT.glob("adult*.csv"):
        shutil.copy(f, tmp_path / f.name)
    (tmp_path / "job.toml").write_text(adult_job_text(k=10, limit=0.04, qis=QIS))
    assert main(["anonymize", str(tmp_path / "job.toml"), "--output",
                 str(tmp_path / "out.csv"), "--quiet"]) == 0
    capsys.readouterr()
    frame = pd.read_csv(tmp_path / "out.csv", sep=";", dtype=str, keep_default_na=False)
    return tmp_path, frame


def both(path, job, monkeypatch):
    """The report on every core, and the row-by-row reading's; whether the fast path ran."""
    calls = []
    real = REAL

    def spy(*a, **k):
        got = real(*a, **k)
        calls.append(got is not None)
        return got
    monkeypatch.setattr(parquet_rows, "count_parquet", spy)
    fast = verify_parquet(path, job, chunk_rows=1000).to_dict()
    monkeypatch.setattr(parquet_rows, "count_parquet", lambda *a, **k: None)
    slow = verify_parquet(path, job, chunk_rows=1000).to_dict()
    return fast, slow, any(calls)


def test_threads_give_the_row_by_row_report(released, monkeypatch):
    folder, frame = released
    job = as_job(folder / "job.toml")
    table = pa.Table.from_pandas(frame, preserve_index=False)
    # missing values read as "" (one column with nulls), many small row groups
    edu = table.column("education").to_pylist()
    edu[5] = None
    table = table.set_column(table.schema.get_field_index("education"), "education",
                             pa.array(edu, pa.string()))
    pq.write_table(table, folder / "out.parquet", row_group_size=997)
    fast, slow, ran = both(folder / "out.parquet", job, monkeypatch)
    assert ran and fast == slow
    # a leak: one record's quasi-identifiers made unique, and a sensitive-free job's
    # class below k: both readings find it
    leaked = frame.copy()
    leaked.loc[len(leaked) // 2, QIS] = ["Female", "17", "Other", "Widowed", "Doctorate"]
    pq.write_table(pa.Table.from_pandas(leaked, preserve_index=False),
                   folder / "leak.parquet", row_group_size=1500)
    fast, slow, ran = both(folder / "leak.parquet", job, monkeypatch)
    assert ran and fast == slow
    assert not fast["ok"], fast


def test_a_column_that_is_not_text_is_read_row_by_row(released, monkeypatch):
    folder, frame = released
    job = as_job(folder / "job.toml")
    typed = frame.copy()
    typed["age"] = np.where(typed["age"] == "*", -1, 0)  # an integer column
    pq.write_table(pa.Table.from_pandas(typed, preserve_index=False), folder / "typed.parquet",
                   row_group_size=4000)
    fast, slow, ran = both(folder / "typed.parquet", job, monkeypatch)
    assert not ran and fast == slow


def test_the_identifier_scan_in_the_same_reading_finds_what_the_scan_finds(
        released, monkeypatch):
    """Identifiers in a counted column and in two columns the counts do not read (text,
    and numbers with a missing value), many row groups: `verify_parquet(identifiers=
    True)` adds the separate scan's findings (column, kind, rows, first row), from its
    own reading of the row groups."""
    from engine.verify import identifier_violations
    folder, frame = released
    # salary-class sensitive: counted, scanned on the distinct rows
    (folder / "sensitive.toml").write_text(
        adult_job_text(k=10, limit=0.04, qis=QIS)
        + '\n[attributes."salary-class"]\ntype = "sensitive"\n')
    job = as_job(folder / "sensitive.toml")
    assert "salary-class" in job.attributes
    tampered = frame.copy()
    n = len(tampered)
    tampered["note"] = ["" if i % 53 else f"write to jo.doe{i}@example.org" for i in range(n)]
    tampered.loc[tampered.index % 700 == 10, "note"] = "call +41 44 668 18 00"
    tampered["code"] = [float(i % 5) if i % 11 else None for i in range(n)]
    tampered.loc[tampered.index % 997 == 3, "salary-class"] = "ask ann.lee@example.com"
    pq.write_table(pa.Table.from_pandas(tampered, preserve_index=False),
                   folder / "ids.parquet", row_group_size=1200)
    path = folder / "ids.parquet"
    counted = spy_threaded_count(monkeypatch)
    together = verify_parquet(path, job, identifiers=True)
    assert counted == [True]
    separate = identifier_violations(path, job, generalized=[
        q for q, level in together.levels.items() if level])
    assert len(separate) >= 3, separate
    assert {"note", "salary-class"} <= {v.split("column '")[1].split("'")[0]
                                        for v in separate}, separate
    assert together.violations[-len(separate):] == separate
    monkeypatch.setattr(parquet_rows, "count_parquet", lambda *a, **k: None)
    row_by_row = verify_parquet(path, job, identifiers=True)  # the scan after the count
    assert row_by_row.to_dict() == together.to_dict()


def test_parquet_parts_are_read_as_one_table_on_every_core(released, monkeypatch):
    """A folder of Parquet part files (an empty one and Spark's _SUCCESS beside): the
    row groups of all the parts on threads give DuckDB's streamed reading's report,
    with the identifier scan in the same reading; parts with other columns are refused
    with the same message."""
    from engine.errors import DataError
    from engine.verify import identifier_violations, verify_parts
    folder, frame = released
    (folder / "sensitive.toml").write_text(
        adult_job_text(k=10, limit=0.04, qis=QIS)
        + '\n[attributes."salary-class"]\ntype = "sensitive"\n')
    job = as_job(folder / "sensitive.toml")
    tampered = frame.copy()
    tampered["note"] = ["" if i % 301 else f"mail ed.roe{i}@example.net"
                        for i in range(len(tampered))]
    tampered.loc[len(tampered) // 2, QIS] = ["Female", "17", "Other", "Widowed", "Doctorate"]
    parts = folder / "parts"
    parts.mkdir()
    bounds = [0, 7000, 7001, 19000, len(tampered)]
    for i, (a, b) in enumerate(zip(bounds, bounds[1:])):
        pq.write_table(pa.Table.from_pandas(tampered.iloc[a:b], preserve_index=False),
                       parts / f"part-{i:05d}.parquet", row_group_size=2500)
    (parts / "part-00004.parquet").write_bytes(b"")  # an empty part
    (parts / "_SUCCESS").write_bytes(b"")
    calls = spy_threaded_count(monkeypatch)
    threaded = verify_parts(parts, job, identifiers=True)
    assert calls == [True]
    monkeypatch.setattr(parquet_rows, "count_parquet", lambda *a, **k: None)
    streamed = verify_parts(parts, job, identifiers=True)
    assert threaded.to_dict() == streamed.to_dict()
    assert not threaded.ok and any("'note'" in v for v in threaded.violations)
    separate = identifier_violations(parts, job, generalized=[
        q for q, level in threaded.levels.items() if level])
    assert separate and threaded.violations[-len(separate):] == separate
    monkeypatch.setattr(parquet_rows, "count_parquet", REAL)
    pq.write_table(pa.Table.from_pandas(tampered.iloc[:10].drop(columns=["sex"]),
                                        preserve_index=False), parts / "part-00009.parquet")
    with pytest.raises(DataError, match="part-00009.parquet has the columns"):
        verify_parts(parts, job)
