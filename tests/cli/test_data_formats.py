"""Every data format a job's ``[data]`` names, each file written by the library that
writes that format; the release is verified and recounted from the exported file."""
from __future__ import annotations

import csv
import sqlite3
from collections import Counter
from pathlib import Path

import pandas as pd
import pytest

from tests.cli.conftest import QIS, job_text, tiny_rows, write_tiny

COLUMNS = ["name", "age", "sex", "zip", "disease"]


def frame() -> pd.DataFrame:
    return pd.DataFrame(tiny_rows(), columns=COLUMNS)


def with_data(folder: Path, data_lines: str) -> Path:
    """job.toml with its [data] table's path and delimiter lines replaced."""
    text = job_text().replace('path = "data.csv"\ndelimiter = ";"\nencoding = "utf-8"\n',
                              data_lines)
    assert data_lines in text
    (folder / "job.toml").write_text(text)
    return folder / "job.toml"


def released(run, folder: Path) -> list[dict]:
    """Anonymize, verify, and recount the released file independently."""
    out = folder / "out.csv"
    r = run("anonymize", folder / "job.toml", "--output", out, "--quiet")
    assert r.code == 0, r.err
    v = run("verify", out, folder / "job.toml")
    assert v.code == 0, v.err
    with open(out, newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f, delimiter=";"))
    assert len(rows) == 60
    classes = Counter(tuple(r[q] for q in QIS) for r in rows
                      if not all(r[q] == "*" for q in QIS))
    assert classes and min(classes.values()) >= 2  # k = 2 recounted here
    suppressed = sum(all(r[q] == "*" for q in QIS) for r in rows)
    assert suppressed <= 6  # 10 % of 60
    # the values of the column left alone arrive as they were written
    assert Counter(r["disease"] for r in rows) == Counter(frame()["disease"])
    return rows


@pytest.fixture
def folder(tmp_path) -> Path:
    write_tiny(tmp_path)
    (tmp_path / "data.csv").unlink()  # each test writes the data in its own format
    return tmp_path


def test_xlsx_workbook(run, folder):
    df = frame()
    df["age"] = df["age"].astype(int)  # numbers as numbers in the workbook
    with pd.ExcelWriter(folder / "data.xlsx") as w:
        pd.DataFrame({"note": ["not this one"]}).to_excel(w, sheet_name="readme", index=False)
        df.to_excel(w, sheet_name="records", index=False)
    with_data(folder, 'path = "data.xlsx"\nsheet = "records"\n')
    released(run, folder)
    with_data(folder, 'path = "data.xlsx"\nsheet = "nope"\n')
    r = run("anonymize", folder / "job.toml", "--output", folder / "o.csv")
    assert r.code == 2 and "no sheet 'nope'" in r.err and "records" in r.err


def test_xls_workbook(run, folder):
    xlwt = pytest.importorskip("xlwt")
    book = xlwt.Workbook()
    sheet = book.add_sheet("data")
    for j, name in enumerate(COLUMNS):
        sheet.write(0, j, name)
    for i, row in enumerate(tiny_rows(), start=1):
        for j, value in enumerate(row):
            sheet.write(i, j, int(value) if j == 1 else value)
    book.save(str(folder / "data.xls"))
    with_data(folder, 'path = "data.xls"\n')  # the first sheet
    released(run, folder)


def test_parquet_file_and_pattern_of_parts(run, folder):
    df = frame()
    df.to_parquet(folder / "data.parquet", index=False)
    with_data(folder, 'path = "data.parquet"\n')
    released(run, folder)
    parts = folder / "parts"
    parts.mkdir()
    df.iloc[:25].to_parquet(parts / "part-0.parquet", index=False)
    df.iloc[25:].to_parquet(parts / "part-1.parquet", index=False)
    with_data(folder, 'path = "parts/part-*.parquet"\n')
    released(run, folder)


def test_spss_value_labels_are_the_values_a_steward_sees(run, folder):
    pyreadstat = pytest.importorskip("pyreadstat")
    df = frame()
    df["sex"] = df["sex"].map({"M": 1, "F": 2})  # coded, labelled
    df["age"] = df["age"].astype(float)
    pyreadstat.write_sav(df, str(folder / "data.sav"),
                         variable_value_labels={"sex": {1: "M", 2: "F"}})
    with_data(folder, 'path = "data.sav"\n')
    rows = released(run, folder)
    assert {r["sex"] for r in rows} <= {"M", "F", "*"}  # sex.csv's values: labels applied


def test_stata_categoricals_as_labels(run, folder):
    df = frame()
    df["sex"] = pd.Categorical(df["sex"])  # written as a value label
    df["age"] = df["age"].astype(int)
    df.to_stata(folder / "data.dta", write_index=False)
    with_data(folder, 'path = "data.dta"\n')
    released(run, folder)


def test_sas_transport(run, folder):
    pyreadstat = pytest.importorskip("pyreadstat")
    df = frame()
    df["age"] = df["age"].astype(float)
    pyreadstat.write_xport(df, str(folder / "data.xpt"))
    with_data(folder, 'path = "data.xpt"\n')
    released(run, folder)


def test_sas7bdat_is_read_by_pyreadstat_and_a_damaged_one_is_named(run, folder):
    # no library writes .sas7bdat: a damaged file shows which reader took it
    (folder / "data.sas7bdat").write_bytes(b"\x00" * 2048)
    with_data(folder, 'path = "data.sas7bdat"\n')
    r = run("anonymize", folder / "job.toml", "--output", folder / "o.csv")
    assert r.code == 2 and "data.sas7bdat cannot be read as a SAS .sas7bdat file" in r.err


def _sqlite(path: Path) -> None:
    with sqlite3.connect(path) as con:
        con.execute("CREATE TABLE people (name TEXT, age INTEGER, sex TEXT, zip TEXT, "
                    "disease TEXT)")
        con.executemany("INSERT INTO people VALUES (?, ?, ?, ?, ?)",
                        [(n, int(a), s, z, d) for n, a, s, z, d in tiny_rows()])
        con.execute("CREATE TABLE other (x TEXT)")
    con.close()


def test_sqlite_by_url_table_and_query(run, folder):
    _sqlite(folder / "people.db")
    with_data(folder, 'url = "sqlite:///people.db"\ntable = "people"\n')  # relative: job's
    released(run, folder)
    with_data(folder, 'url = "sqlite:///people.db"\nquery = "SELECT * FROM people"\n')
    released(run, folder)
    with_data(folder, 'path = "people.db"\ntable = "people"\n')  # a SQLite file as path
    released(run, folder)


def test_database_mistakes_are_named(run, folder):
    _sqlite(folder / "people.db")
    cases = {
        'url = "sqlite:///people.db"\n': "give table",
        'url = "sqlite:///people.db"\ntable = "people"\nquery = "SELECT 1"\n': "one of them",
        'url = "sqlite:///people.db"\ntable = "persons"\n': "its tables: other, people",
        'url = "sqlite:///gone.db"\ntable = "people"\n': "database file not found",
        'path = "data.csv"\ntable = "people"\n': "is not one",
    }
    for lines, message in cases.items():
        with_data(folder, lines)
        r = run("anonymize", folder / "job.toml", "--output", folder / "o.csv")
        assert r.code == 2 and message in r.err, (lines, r.err)


def test_a_workbook_named_csv_is_called_a_workbook_not_undecodable_text(run, folder):
    frame().to_excel(folder / "data.csv", index=False, engine="openpyxl")
    with_data(folder, 'path = "data.csv"\ndelimiter = ";"\n')
    r = run("anonymize", folder / "job.toml", "--output", folder / "o.csv")
    assert r.code == 2
    assert "data.csv is an Excel workbook, not a delimited text file" in r.err
    assert "encoding" not in r.err
    frame().to_parquet(folder / "data.csv")
    r = run("anonymize", folder / "job.toml", "--output", folder / "o.csv")
    assert r.code == 2 and "data.csv is a Parquet file" in r.err


def test_data_option_takes_a_workbook_too(run, folder):
    frame().to_excel(folder / "other.xlsx", index=False)
    with_data(folder, 'path = "missing.csv"\n')
    out = folder / "out.csv"
    r = run("anonymize", folder / "job.toml", "--data", folder / "other.xlsx", "--output",
            out, "--quiet")
    assert r.code == 0, r.err
    assert run("verify", out, folder / "job.toml").code == 0


def test_calamine_and_openpyxl_read_a_workbook_alike(tmp_path, monkeypatch):
    """The fast reader (calamine) gives the strings openpyxl gives: numbers, dates,
    times, booleans, empty cells."""
    import datetime as dt

    import engine.data.readers as readers
    pytest.importorskip("python_calamine")
    pd.DataFrame({"d": [dt.date(2020, 1, 2), None], "t": [dt.datetime(2020, 1, 2, 3, 4, 5),
                                                           None],
                  "f": [1.5, 2.0], "i": [1, 2], "s": ["a", None], "b": [True, False]}
                 ).to_excel(tmp_path / "t.xlsx", index=False)
    fast = readers.read_excel(tmp_path / "t.xlsx")
    monkeypatch.setattr(readers, "_xlsx_engine", lambda: "openpyxl")
    assert fast.equals(readers.read_excel(tmp_path / "t.xlsx"))
    assert fast.to_dict("list")["f"] == ["1.5", "2"]
