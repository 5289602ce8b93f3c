"""``anonymist risk``: the files' contract (column and key names, input order), the job
file's weight roles, and bad input answered with exit code 2 naming the column.

The figures themselves are checked against sdcMicro in tests/engine/test_sdc_risk.py;
here the per-record file is recounted from the data it was computed from.
"""
from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from engine.cli import EXIT_BAD_INPUT, EXIT_OK, main
from engine.errors import JobError
from engine.project.job_file import job_from_dict

ROWS = [  # A;B;C;weight;hh  (sdcMicro's indivRisk test data, households added)
    ("2", "3", "1", "18.0", "h1"), ("3", "3", "3", "45.5", "h1"), ("2", "3", "1", "39.0", "h2"),
    ("2", "3", "2", "17.0", "h2"), ("3", "3", "1", "92.0", "h3"), ("3", "3", "1", "8.0", "h3"),
    ("1", "4", "1", "123.5", "h4"), ("2", "3", "1", "51", "h4")]
APPROX = [0.01369863, 0.08579129, 0.01369863, 0.17707583, 0.01877883, 0.01877883,
          0.03931625, 0.01369863]


@pytest.fixture
def data(tmp_path):
    path = tmp_path / "survey.csv"
    path.write_text("A;B;C;weight;hh\n" + "".join(";".join(r) + "\n" for r in ROWS))
    return path


def run(*args) -> int:
    return main(["risk", *map(str, args)])


def test_per_record_and_summary_files(data, tmp_path):
    per, summary = tmp_path / "per.csv", tmp_path / "summary.json"
    assert run(data, "--quasi-identifiers", "A,B,C", "--weight", "weight", "--household",
               "hh", "--delimiter", ";", "--per-record", per, "--json", summary) == EXIT_OK
    rows = pd.read_csv(per)
    assert len(rows) == len(ROWS)
    for column in ("class_size", "individual_risk", "suda2_score", "dis_suda_score",
                   "household_risk"):
        assert column in rows.columns
    np.testing.assert_allclose(rows["individual_risk"], APPROX, atol=1e-6)
    # class sizes recounted from the data, in input order
    keys = [r[:3] for r in ROWS]
    assert list(rows["class_size"]) == [keys.count(k) for k in keys]
    s = json.loads(summary.read_text())
    assert s["expected_reidentifications"] == pytest.approx(sum(APPROX), abs=1e-6)
    assert s["global_risk"] == pytest.approx(sum(APPROX) / 8, abs=1e-7)
    assert s["records_at_risk"] == int(rows["at_risk"].sum())
    assert set(s["suda2"]["contributions"]) == {"A", "B", "C"}
    total = rows["suda2_score"].sum()
    for q in "ABC":
        share = (rows[f"suda2_contribution_{q}"] * rows["suda2_score"]).sum() / total * 100
        assert s["suda2"]["contributions"][q] == pytest.approx(share, abs=1e-9)
    hh = rows["household_risk"].to_numpy()
    assert hh[0] == pytest.approx(1 - (1 - APPROX[0]) * (1 - APPROX[1]), abs=1e-7)


def test_exact_method(data, tmp_path):
    per = tmp_path / "per.csv"
    assert run(data, "--quasi-identifiers", "A,B,C", "--weight", "weight", "--method",
               "exact", "--per-record", per) == EXIT_OK
    np.testing.assert_allclose(pd.read_csv(per)["individual_risk"],
                               [0.01355297, 0.08579129, 0.01355297, 0.17707583, 0.01877883,
                                0.01877883, 0.03931625, 0.01355297], atol=1e-6)


@pytest.mark.parametrize("weight_lines", [
    '[data]\nweight = "weight"\n',
    '[attributes.weight]\ntype = "weight"\n'])
def test_job_file_names_the_roles(data, tmp_path, weight_lines):
    job = tmp_path / "job.toml"
    text = ('format_version = 1\n[data]\npath = "survey.csv"\ndelimiter = ";"\n'
            'household = "hh"\n')
    if weight_lines.startswith("[data]"):
        text += 'weight = "weight"\n'
    else:
        text += weight_lines
    for q in "ABC":
        text += f'[attributes.{q}]\ntype = "quasi-identifying"\n'
    job.write_text(text)
    summary = tmp_path / "s.json"
    assert run(data, job, "--json", summary) == EXIT_OK
    s = json.loads(summary.read_text())
    assert s["weight"] == "weight" and s["household"] == "hh"
    assert s["quasi_identifiers"] == ["A", "B", "C"]
    assert s["expected_reidentifications"] == pytest.approx(sum(APPROX), abs=1e-6)


def test_weight_as_quasi_identifier_refused_in_a_job():
    with pytest.raises(JobError, match="never a quasi-identifier"):
        job_from_dict({"data": {"weight": "w"},
                       "attributes": {"w": {"type": "quasi-identifying"}}})
    with pytest.raises(JobError, match="two weight columns"):
        job_from_dict({"attributes": {"w": {"type": "weight"}, "v": {"type": "weight"}}})
    job = job_from_dict({"attributes": {"w": {"type": "weight"}}})
    assert job.weight == "w" and job.attributes["w"].type == "insensitive"


@pytest.mark.parametrize("args,named", [
    (("--quasi-identifiers", "A,Z"), "Z"),
    (("--quasi-identifiers", "A,B", "--weight", "nope"), "nope"),
    (("--quasi-identifiers", "A,B", "--household", "nope"), "nope"),
    (("--quasi-identifiers", "A,weight", "--weight", "weight"), "weight"),
])
def test_bad_input_exit_2_naming_the_column(data, tmp_path, capsys, args, named):
    out = tmp_path / "s.json"
    assert run(data, *args, "--json", out) == EXIT_BAD_INPUT
    assert f"'{named}'" in capsys.readouterr().err
    assert not out.exists()


def test_non_positive_weight_exit_2(tmp_path, capsys):
    path = tmp_path / "d.csv"
    path.write_text("A;w\n1;2\n2;-1\n")
    assert run(path, "--quasi-identifiers", "A", "--weight", "w") == EXIT_BAD_INPUT
    err = capsys.readouterr().err
    assert "'w'" in err and "row 2" in err and "not positive" in err


def test_a_csv_written_by_r_with_row_names(tmp_path):
    """R's write.csv: quoted header, an unnamed first column of row names, NA."""
    path = tmp_path / "r.csv"
    lines = ['"","A","B","C","weight"'] + [
        f'"{i + 1}",{a if i != 7 else "NA"},{b},{c},{w}'
        for i, (a, b, c, w, _h) in enumerate(ROWS)]
    path.write_text("\n".join(lines) + "\n")
    per = tmp_path / "per.csv"
    assert run(path, "--quasi-identifiers", "A,B,C", "--weight", "weight", "--delimiter", ",",
               "--per-record", per) == EXIT_OK
    rows = pd.read_csv(per)
    assert rows["individual_risk"][1] == pytest.approx(APPROX[1], abs=1e-6)
    # record 8's A is NA: it matches every record with B = 3 and C = 1
    assert rows["class_size"][7] == sum(1 for a, b, c, *_ in ROWS if (b, c) == ("3", "1"))
