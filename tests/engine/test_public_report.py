"""The public report (share/ of a release) names no original value: its text — the PDF
read with pypdf, and the JSON — holds none of the quasi-identifiers' input values that
are not also released values. The same scan finds such values in the full report
(internal/), so it is able to find them."""
from __future__ import annotations

import json
import re
import shutil

import pandas as pd
import pytest
from pypdf import PdfReader

import engine
from engine.guide.release import release
from engine.release_docs.writer import share_internal, write_release
from tests.engine.conftest import ADULT, adult_job_text


def _walk(node, texts: list[str], figures: set[str]) -> None:
    if isinstance(node, dict):
        for k, v in node.items():
            texts.append(str(k))
            _walk(v, texts, figures)
    elif isinstance(node, list):
        for v in node:
            _walk(v, texts, figures)
    elif isinstance(node, str):
        texts.append(node)
    elif isinstance(node, int) and not isinstance(node, bool):
        figures |= {str(node), f"{node:,}"}


def report_text(stem) -> tuple[str, set[str]]:
    """The text of a report — its PDF's pages (pypdf), its JSON's keys and strings — and
    its figures (the JSON's whole numbers: counts, levels, sizes)."""
    texts: list[str] = [page.extract_text() for page in PdfReader(f"{stem}.pdf").pages]
    figures: set[str] = set()
    _walk(json.loads(open(f"{stem}.json", encoding="utf-8").read()), texts, figures)
    return "\n".join(texts), figures


def original_values_in(report, result, released: pd.DataFrame) -> dict[str, list[str]]:
    """Per quasi-identifier the input values (level 0) found in the ``report``'s text
    that are not released values, as whole tokens (a number not inside a longer number,
    a date, a decimal or a percentage; a word not inside a longer word). A number that
    is one of the report's own figures (e.g. "5 of 30 transformations checked") is a
    figure, not a value: the JSON holds it as a number."""
    text, figures = report
    cells = set(released.to_numpy(dtype=str).ravel())
    found: dict[str, list[str]] = {}
    for q in result.problem.qis:
        for value in map(str, result.problem.table.column(q).dictionary):
            if value in cells or not value.strip() or value in figures:
                continue
            pattern = r"(?<![\w.,:/-])" + re.escape(value) + r"(?![\w.,:/%-])"
            if re.search(pattern, text):
                found.setdefault(q, []).append(value)
    return found


@pytest.fixture(scope="module")
def adult(tmp_path_factory):
    work = tmp_path_factory.mktemp("adult")
    for f in ADULT.glob("adult*.csv"):
        shutil.copy(f, work / f.name)
    return work


def _released(folder, stem):
    return pd.read_csv(folder / "share" / f"{stem}-anonymized.csv", sep=";", dtype=str,
                       keep_default_na=False)


def test_the_guided_release_shares_no_original_value(adult, tmp_path):
    (adult / "job.toml").write_text(adult_job_text())
    result = engine.anonymize(None, adult / "job.toml")
    assert all(a.verified for a in release(result, None, result.problem.job,
                                           tmp_path, "adult"))
    released = _released(tmp_path, "adult")
    public = report_text(tmp_path / "share" / "adult-report")
    assert original_values_in(public, result, released) == {}
    # the scan finds them where they are: the full report's distributions
    full = original_values_in(report_text(tmp_path / "internal" / "adult-report-full"),
                              result, released)
    assert {"age", "marital-status", "education", "native-country"} <= set(full)
    assert "Never-married" in full["marital-status"]
    # the public report is the full one less what names values: same verdict, same
    # certificate (which names files, not values)
    assert "Public report" in public[0] and "certificate" in public[0]


def test_a_subset_query_naming_a_value_stays_internal(adult, tmp_path):
    """A research subset's query names an input value: the public report leaves the
    definition to the internal report."""
    qis = ["sex", "age", "native-country"]
    (adult / "subset.toml").write_text(
        adult_job_text(k=100, qis=qis) + "\n[subset]\nquery = \"native-country = 'Cambodia' or "
                                  "age > 30\"\n")
    result = engine.anonymize(None, adult / "subset.toml")
    write_release(result, share_internal(tmp_path, "adult", input_path=adult / "adult.csv"))
    released = _released(tmp_path, "adult")
    assert "Cambodia" not in set(released["native-country"])
    full = report_text(tmp_path / "internal" / "adult-report-full")
    assert "Cambodia" in original_values_in(full, result, released)["native-country"]
    public = report_text(tmp_path / "share" / "adult-report")
    assert original_values_in(public, result, released) == {}
