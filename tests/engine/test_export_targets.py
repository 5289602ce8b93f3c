"""Round trips of every export target: write the released table, read it back, compare
cell for cell, and verify the re-read table independently."""
from __future__ import annotations

import pandas as pd
import pytest

from engine.api import as_job
from engine.cli import main
from engine.errors import Cancelled, DataError
from engine.export.targets import (CsvOptions, DatabaseTarget, file_target, read_table,
                                   write_table)
from engine.verify import verify_frame
from tests.engine.release_fixtures import released  # noqa: F401

CSV_CASES = [CsvOptions(), CsvOptions(delimiter=",", quoting="all", line_ending="crlf"),
             CsvOptions(delimiter="\t", quoting="nonnumeric", encoding="utf-16"),
             CsvOptions(delimiter="|", quoting="none", encoding="latin-1")]


def _round_trip(result, job, target, written):
    back = read_table(target)
    pd.testing.assert_frame_equal(back, written, check_dtype=False)
    report = verify_frame(back, job)
    assert report.ok, report.violations
    assert report.suppressed_records == result.optimum.suppressed_records


@pytest.mark.parametrize("options", CSV_CASES, ids=lambda o: f"{o.quoting}-{o.encoding}")
def test_csv_round_trip(released, tmp_path, options):  # noqa: F811
    folder, result = released
    target = file_target(tmp_path / "out.csv", options)
    write_table(result.output, target)
    raw = target.path.read_bytes()
    assert (b"\r\n" in raw) == (options.line_ending == "crlf")
    if options.quoting == "all":
        assert raw.decode(options.encoding).startswith('"sex","age"')
    _round_trip(result, as_job(folder / "job.toml"), target, result.output.astype(str))


@pytest.mark.parametrize("name", ["out.xlsx", "out.parquet"])
def test_excel_and_parquet_round_trip(released, tmp_path, name):  # noqa: F811
    folder, result = released
    target = file_target(tmp_path / name, batch_rows=1000)
    steps = []
    write_table(result.output, target, progress=lambda done, total: steps.append((done, total)))
    assert steps[-1] == (len(result.output), len(result.output)) and len(steps) >= 3
    _round_trip(result, as_job(folder / "job.toml"), target, result.output.astype(str))


def test_excel_writes_formulas_as_text(tmp_path):
    frame = pd.DataFrame({"a": ["=1+1", "x"], "b": ["@SUM(A1)", "2"]})
    target = file_target(tmp_path / "f.xlsx")
    write_table(frame, target)
    pd.testing.assert_frame_equal(read_table(target), frame)


def test_database_round_trip_and_refusal(released, tmp_path):  # noqa: F811
    folder, result = released
    url = f"sqlite:///{tmp_path / 'out.db'}"
    target = DatabaseTarget(url, "released", batch_rows=1000)
    steps = []
    write_table(result.output, target, progress=lambda d, t: steps.append(d))
    assert steps == sorted(steps) and steps[-1] == len(result.output) and len(steps) > 3
    _round_trip(result, as_job(folder / "job.toml"), target, result.output.astype(str))
    with pytest.raises(DataError, match="exists already"):
        write_table(result.output.head(3), target)
    assert len(read_table(target)) == len(result.output)  # untouched
    write_table(result.output.head(3), DatabaseTarget(url, "released", replace=True))
    assert len(read_table(target)) == 3


def test_cancelled_exports_leave_nothing(released, tmp_path):  # noqa: F811
    _, result = released
    url = f"sqlite:///{tmp_path / 'c.db'}"
    for target in (file_target(tmp_path / "c.csv", batch_rows=500),
                   file_target(tmp_path / "c.parquet", batch_rows=500),
                   DatabaseTarget(url, "t", batch_rows=1000)):
        calls = []
        with pytest.raises(Cancelled):
            write_table(result.output, target, cancel=lambda calls=calls: calls.append(1) or len(calls) > 2)
        if isinstance(target, DatabaseTarget):
            import sqlalchemy as sa
            assert sa.inspect(sa.create_engine(url)).get_table_names() == []
        else:
            assert list(tmp_path.glob("c.*")) == [] and list(tmp_path.glob(".c.*")) == []


def test_bad_targets_are_named(tmp_path):
    with pytest.raises(DataError, match="unknown output format"):
        file_target(tmp_path / "out.docx")
    with pytest.raises(DataError, match="cannot be written in ascii"):
        write_table(pd.DataFrame({"a": ["Zürich"]}),
                    file_target(tmp_path / "a.csv", CsvOptions(encoding="ascii")))
    with pytest.raises(DataError, match="quoting"):
        write_table(pd.DataFrame({"a": ["x;y"]}),
                    file_target(tmp_path / "b.csv", CsvOptions(quoting="none")))


def test_cli_targets(released, tmp_path, capsys):  # noqa: F811
    folder, result = released
    job = str(folder / "job.toml")
    xlsx, db = tmp_path / "o.xlsx", tmp_path / "o.db"
    assert main(["anonymize", job, "--quiet", "--output", str(xlsx),
                 "--output-url", f"sqlite:///{db}", "--table", "anon"]) == 0
    expected = result.output.astype(str)
    pd.testing.assert_frame_equal(read_table(file_target(xlsx)), expected, check_dtype=False)
    pd.testing.assert_frame_equal(read_table(DatabaseTarget(f"sqlite:///{db}", "anon")),
                                  expected, check_dtype=False)
    capsys.readouterr()
    assert main(["anonymize", job, "--quiet", "--output-url", f"sqlite:///{db}",
                 "--table", "anon"]) == 2
    assert "exists already" in capsys.readouterr().err
    assert main(["anonymize", job, "--quiet", "--output-url", f"sqlite:///{db}"]) == 2
    assert main(["anonymize", job, "--quiet", "--output", str(tmp_path / "x.json")]) == 2
    csv = tmp_path / "o.csv"
    assert main(["anonymize", job, "--quiet", "--output", str(csv), "--csv-delimiter", ",",
                 "--csv-line-ending", "crlf"]) == 0
    assert csv.read_bytes().startswith(b"sex,age,race") and b"\r\n" in csv.read_bytes()
