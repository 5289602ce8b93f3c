"""The release report: rendered to images, its text read back, its figures recomputed."""
from __future__ import annotations

import hashlib
import json
import shutil
import subprocess

import numpy as np
import pandas as pd
import pytest
from pypdf import PdfReader

from engine.cli import main
from tests.engine.release_fixtures import QIS4, released  # noqa: F401


def _text(pdf) -> str:
    return "\n".join(p.extract_text() for p in PdfReader(pdf).pages)


def test_cli_report_pdf_and_json(released, tmp_path):  # noqa: F811
    folder, result = released
    out, pdf = tmp_path / "out.csv", tmp_path / "report.pdf"
    assert main(["anonymize", str(folder / "job.toml"), "--quiet", "--output", str(out),
                 "--report", str(pdf)]) == 0
    report = json.loads((tmp_path / "report.json").read_text())
    # figures recomputed from the files themselves
    released_frame = pd.read_csv(out, sep=";", dtype=str, keep_default_na=False)
    suppressed = (released_frame[QIS4] == "*").all(axis=1)
    sizes = released_frame[~suppressed].groupby(QIS4).size()
    assert report["input"]["sha256"] == hashlib.sha256((folder / "small.csv").read_bytes()).hexdigest()
    assert report["output"]["sha256"] == hashlib.sha256(out.read_bytes()).hexdigest()
    assert report["input"]["rows"] == report["output"]["rows"] == len(released_frame)
    assert report["output"]["suppressed_records"] == suppressed.sum()
    assert report["output"]["equivalence_classes"] == len(sizes)
    assert report["verification"]["ok"] is True
    assert report["transformation"]["levels"] == result.optimum.levels
    assert report["transformation"]["proven_optimal"] is True
    after = report["risk"]["after"]["prosecutor"]
    assert after["highest_risk"] == pytest.approx(1 / sizes.min())
    assert after["records_at_risk"] == 0.0
    before_sizes = pd.read_csv(folder / "small.csv", sep=";", dtype=str).groupby(QIS4).size()
    assert report["risk"]["before"]["prosecutor"]["records_at_risk"] == pytest.approx(
        before_sizes[before_sizes < 5].sum() / before_sizes.sum())
    assert [a["name"] for a in report["configuration"]["attributes"]][:4] == QIS4
    assert report["configuration"]["privacy_models"] == [{"model": "k-anonymity", "k": 5}]
    # the PDF says the same
    text = _text(pdf)
    for expected in ("Release report", "Independent verification PASSED", "small.csv",
                     report["input"]["sha256"], report["output"]["sha256"], "k-anonymity",
                     "proven optimum", f"{len(released_frame):,}", "prosecutor",
                     "journalist", "marketer", "Distributions"):
        assert expected in text, expected
    for q in QIS4:  # the charts are vector graphics: their titles are text
        assert f"{q}: input" in text and f"{q}: released" in text


def test_report_charts_count_the_files(released, tmp_path):  # noqa: F811
    """The charts' values are the input file's and the written file's own counts."""
    folder, result = released
    from engine.release_docs.report import distributions
    out = tmp_path / "out.csv"
    result.write_output(out)
    written = pd.read_csv(out, sep=";", dtype=str, keep_default_na=False)
    source = pd.read_csv(folder / "small.csv", sep=";", dtype=str, keep_default_na=False)
    charts = distributions(result)
    assert list(charts) == QIS4
    for q, chart in charts.items():
        for side, frame in (("input", source), ("output", written)):
            counts = frame[q].value_counts()
            shown = chart[side]
            named = [(v, c) for v, c in shown if not v.startswith("other (")]
            assert [c for _, c in named] == sorted((c for _, c in named), reverse=True)
            assert all(counts[v] == c for v, c in named), (q, side)
            assert sum(c for _, c in shown) == len(frame)
            assert named[-1][1] >= max(counts.iloc[len(named):], default=0)  # the most frequent
        numbers = chart["input_numbers"]
        if q == "age":  # numeric with many values: a histogram of every record's number
            assert numbers is not None
            np.testing.assert_array_equal(numbers, source[q].astype(float).to_numpy())
        else:
            assert numbers is None


def test_nice_ticks():
    from engine.release_docs.charts import nice_ticks
    assert nice_ticks(0, 105) == [0, 20, 40, 60, 80, 100]
    assert nice_ticks(0, 8.4) == [0, 2, 4, 6, 8]
    assert nice_ticks(12.6, 94.3) == [20, 40, 60, 80]
    assert nice_ticks(0, 0.3) == [0, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3]
    assert nice_ticks(5, 5) == [5]


@pytest.mark.skipif(shutil.which("pdftoppm") is None, reason="pdftoppm (poppler-utils) missing")
def test_report_renders_to_images(released, tmp_path):  # noqa: F811
    folder, result = released
    from engine.release_docs.pdf import export_report
    pdf, _, report = export_report(result, tmp_path / "r.pdf")
    subprocess.run(["pdftoppm", "-r", "40", "-png", str(pdf), str(tmp_path / "page")],
                   check=True, capture_output=True)
    pages = sorted(tmp_path.glob("page*.png"))
    assert len(pages) == len(PdfReader(pdf).pages) >= 3
    from PIL import Image
    for page in pages:
        pixels = np.asarray(Image.open(page).convert("L"))
        assert (pixels < 128).mean() > 0.005  # something is drawn on every page
    # the charts are drawn: the last page holds images in the released table's blue
    rgb = np.asarray(Image.open(pages[-1]).convert("RGB")).reshape(-1, 3).astype(int)
    assert (np.abs(rgb - [47, 109, 179]).sum(axis=1) < 40).sum() > 200


def test_report_of_a_failing_table_says_failed(released, tmp_path):  # noqa: F811
    folder, result = released
    from engine.release_docs.pdf import export_report
    leaked = result.output.copy()
    original = pd.read_csv(folder / "small.csv", sep=";", dtype=str, keep_default_na=False)
    leaked.loc[:9, "age"] = original.loc[:9, "age"]
    pdf, js, report = export_report(result, tmp_path / "bad.pdf", reread=leaked)
    assert report["verification"]["ok"] is False and report["verification"]["violations"]
    assert "Independent verification FAILED" in _text(pdf)


def test_report_needs_a_pdf_path(released, tmp_path, capsys):  # noqa: F811
    folder, _ = released
    assert main(["anonymize", str(folder / "job.toml"), "--quiet",
                 "--report", str(tmp_path / "r.docx")]) == 2


def test_numbers_with_infinity_are_charted_as_values(tmp_path):
    """A histogram needs finite numbers: a column with 'inf' is charted by value."""
    import engine
    from engine.release_docs.pdf import export_report
    from engine.release_docs.report import distributions
    finite = [str(v) for v in range(20)] * 3
    frame = pd.DataFrame({"n": finite[:-1] + ["inf"], "m": finite})
    cfg = {"attributes": {}, "privacy": [{"model": "k-anonymity", "k": 2}],
           "transformation": {"suppression_limit": 0.5}, "metric": {"name": "loss"}}
    for name in ("n", "m"):
        path = tmp_path / f"{name}.csv"
        path.write_text("".join(f"{v};*\n" for v in sorted(set(frame[name]))))
        cfg["attributes"][name] = {"type": "quasi-identifying", "hierarchy": str(path)}
    result = engine.anonymize(frame, cfg)
    charts = distributions(result)
    assert charts["n"]["input_numbers"] is None
    assert charts["m"]["input_numbers"] is not None and len(charts["m"]["input_numbers"]) == 60
    pdf, _, _ = export_report(result, tmp_path / "r.pdf")
    text = _text(pdf)
    assert "n: input" in text and "m: input (histogram)" in text


def test_tables_not_written_to_a_file_are_hashed_as_their_csv(tmp_path):
    """Without files the report hashes the input and the released table as ';'-CSV
    (computed from the encoded columns: the digest of pandas' CSV of the DataFrame)."""
    import hashlib
    import io

    import engine
    from engine.release_docs.report import build_report
    (tmp_path / "q.csv").write_text("a;*\nb;*\n")
    notes = ["a;b", 'say "hi"', "two\nlines", "", " x", "Zürich"]
    frame = pd.DataFrame({"q": ["a", "b"] * 6, "note": notes * 2})
    cfg = {"attributes": {"q": {"type": "quasi-identifying", "hierarchy": str(tmp_path / "q.csv")},
                          "note": {"type": "insensitive"}},
           "privacy": [{"model": "k-anonymity", "k": 2}],
           "transformation": {"suppression_limit": 0.0}, "metric": {"name": "loss"}}
    result = engine.anonymize(frame, cfg)
    report = build_report(result)

    def digest(f: pd.DataFrame) -> str:
        buf = io.StringIO()
        f.astype(str).to_csv(buf, sep=";", index=False, lineterminator="\n")
        return hashlib.sha256(buf.getvalue().encode("utf-8")).hexdigest()
    assert report["input"]["sha256"] == digest(frame)
    assert report["output"]["sha256"] == digest(result.transformed().frame)
    assert report["input"]["sha256_of"] == report["output"]["sha256_of"] == "table as CSV"


def test_the_bundle_reads_its_own_fonts(tmp_path, monkeypatch):
    """In the desktop bundle (matplotlib left out) the fonts are the bundle's copies."""
    import sys

    from engine.release_docs.pdf import FONTS, font_folder
    installed = font_folder()
    assert all((installed / file).is_file() for _, _, file in FONTS)
    monkeypatch.setattr(sys, "frozen", True, raising=False)
    monkeypatch.setattr(sys, "_MEIPASS", str(tmp_path), raising=False)
    assert font_folder() == tmp_path / "fonts"


def test_report_survey_measures_with_a_weight(tmp_path):
    """With [data] weight the report adds sdcMicro's survey measures of the input and
    the release; the released figures are recounted here from the written file."""
    import math

    from tests.engine.conftest import ADULT, adult_job_text
    for f in ADULT.glob("adult_hierarchy*.csv"):
        shutil.copy(f, tmp_path / f.name)
    lines = (ADULT / "adult.csv").read_text(encoding="utf-8").splitlines()[:1501]
    rows = [lines[0] + ";w"] + [f"{line};{10 + i % 7}" for i, line in enumerate(lines[1:])]
    (tmp_path / "survey.csv").write_text("\n".join(rows) + "\n", encoding="utf-8")
    job = adult_job_text(qis=QIS4, data="survey.csv").replace(
        'encoding = "utf-8"\n', 'encoding = "utf-8"\nweight = "w"\n', 1)
    (tmp_path / "job.toml").write_text(job)
    out, pdf = tmp_path / "out.csv", tmp_path / "report.pdf"
    assert main(["anonymize", str(tmp_path / "job.toml"), "--quiet", "--output", str(out),
                 "--report", str(pdf)]) == 0
    survey = json.loads((tmp_path / "report.json").read_text())["survey_risk"]
    assert survey["weight"] == "w"
    frame = pd.read_csv(out, sep=";", dtype=str, keep_default_na=False)
    w = frame["w"].astype(float)
    suppressed = (frame[QIS4] == "*").all(axis=1)
    n = len(frame)
    kept = frame[~suppressed]
    fk = kept.groupby(QIS4)["w"].transform("size").astype(float)
    Fk = w[~suppressed].groupby([kept[q] for q in QIS4]).transform("sum")
    risk = []
    for f, F in zip(fk, Fk):  # Franconi-Polettini approx; fk >= 5 after 5-anonymity
        p = f / F
        risk.append(1 / f if f == F else p / (f - (1 - p)))
    if suppressed.any():  # a suppressed record matches every record
        p = n / w.sum()
        risk += [p / (n - (1 - p))] * int(suppressed.sum())
    assert survey["after"]["expected_reidentifications"] == pytest.approx(sum(risk), rel=1e-9)
    assert survey["after"]["k_anonymity"]["violating_5"] == 0
    assert survey["before"]["expected_reidentifications"] > sum(risk)
    assert not math.isnan(survey["before"]["global_risk_percent"])
    assert "Survey measures" in _text(pdf)


def test_report_survey_measures_with_an_identifying_weight(tmp_path):
    """A weight the job does not release (identifying) still weighs the released
    records in the report: each keeps its input weight."""
    from tests.engine.conftest import ADULT, adult_job_text
    for f in ADULT.glob("adult_hierarchy*.csv"):
        shutil.copy(f, tmp_path / f.name)
    lines = (ADULT / "adult.csv").read_text(encoding="utf-8").splitlines()[:801]
    rows = [lines[0] + ";w"] + [f"{line};{5 + i % 4}" for i, line in enumerate(lines[1:])]
    (tmp_path / "survey.csv").write_text("\n".join(rows) + "\n", encoding="utf-8")
    job = adult_job_text(qis=QIS4, data="survey.csv").replace(
        'encoding = "utf-8"\n', 'encoding = "utf-8"\nweight = "w"\n', 1)
    (tmp_path / "job.toml").write_text(job + '\n[attributes."w"]\ntype = "identifying"\n')
    out, pdf = tmp_path / "out.csv", tmp_path / "report.pdf"
    assert main(["anonymize", str(tmp_path / "job.toml"), "--quiet", "--output", str(out),
                 "--report", str(pdf)]) == 0
    assert "w" not in pd.read_csv(out, sep=";", nrows=1).columns
    survey = json.loads((tmp_path / "report.json").read_text())["survey_risk"]
    assert survey["after"]["records_at_risk"] >= 0
    assert survey["after"]["expected_reidentifications"] < \
        survey["before"]["expected_reidentifications"]
