"""The release report's layout: every page but the last well filled (a page break
inside a key/value pair once left pages holding one line each), generated
hierarchies described by their builder and levels, no "-0" in the figures."""
from __future__ import annotations

import pandas as pd
import pytest
from pypdf import PdfReader

import engine
from engine.config import AttributeConfig, Job, TransformationConfig
from engine.data.table import EncodedTable
from engine.guide.auto_hierarchies import propose_hierarchy
from engine.privacy import DistinctLDiversity, KAnonymity
from engine.release_docs.pdf import _num, export_report
from tests.shared_data import SHARED

QIS = ["sex", "age", "race", "marital-status", "education", "native-country", "workclass",
       "occupation"]


def page_fill(pdf_path) -> list[float]:
    """Per page, how full it is: its lines of text (distinct baselines, read back from
    the PDF, not from the code that wrote it) at a 12 pt pitch, as a share of the page's
    height. A page of 9 pt text is about 0.85; a page holding one line about 0.015."""
    fills = []
    for page in PdfReader(pdf_path).pages:
        baselines: set[int] = set()

        def visit(text, cm, tm, font_dict, font_size, baselines=baselines):
            if text.strip():
                baselines.add(round(cm[5] + tm[5] * cm[3]))

        page.extract_text(visitor_text=visit)
        fills.append(len(baselines) * 12 / float(page.mediabox.height))
    return fills


@pytest.fixture(scope="module")
def adult_report(tmp_path_factory):
    """Adult with the guide's own generated hierarchies (no files), as the guided release
    makes them: the report of issue 27's walkthrough had 7 pages, 2-5 with one line."""
    folder = tmp_path_factory.mktemp("report")
    data = pd.read_csv(SHARED / "data/adult/adult.csv", sep=";", dtype=str,
                       keep_default_na=False)
    table = EncodedTable.from_dataframe(data)
    attributes = {q: AttributeConfig(type="quasi-identifying",
                                     hierarchy=propose_hierarchy(table.column(q)).hierarchy)
                  for q in QIS}
    attributes["salary-class"] = AttributeConfig(type="sensitive")
    job = Job(attributes=attributes,
              privacy=[KAnonymity(11), DistinctLDiversity("salary-class", 2)],
              transformation=TransformationConfig(suppression_limit=0.05))
    result = engine.anonymize(data, job)
    pdf, _, report = export_report(result, folder / "report.pdf")
    return pdf, report


def test_no_page_but_the_last_under_a_third_full(adult_report):
    pdf, _ = adult_report
    fills = page_fill(pdf)
    assert len(fills) >= 2
    assert all(f > 1 / 3 for f in fills[:-1]), fills


def test_generated_hierarchies_named_with_their_levels(adult_report):
    pdf, report = adult_report
    attrs = {a["name"]: a for a in report["configuration"]["attributes"]}
    assert attrs["age"]["hierarchy"] == "intervals builder"
    assert len(attrs["age"]["hierarchy_levels"]) == attrs["age"]["height"]
    text = "\n".join(p.extract_text() for p in PdfReader(pdf).pages)
    assert "intervals builder" in text and "priority builder" in text
    assert attrs["age"]["hierarchy_levels"][-1] in text


def test_zero_is_never_negative():
    assert _num(-0.0) == "0" and _num(-1e-12, 3) == "-1e-12" and _num(-0.00001, 3) == "-1e-05"
    assert _num(-0.0004, 1) == "-0.0004"


def test_pairs_across_a_page_break_keep_filling_the_next_page(tmp_path):
    """Key/value pairs whose values wrap, starting near a page's foot: the pages after
    the break are filled, not one line each (the y position of the page before the
    break was carried over, so every following pair broke the page again)."""
    from engine.release_docs.pdf import _Doc
    doc = _Doc("layout")
    while doc.pdf.get_y() < doc.pdf.page_break_trigger - 8:
        doc.text("filler line")
    long_value = ", ".join(f"column_{i}" for i in range(40))
    doc.pairs([(f"Key {i}", long_value) for i in range(30)])
    path = tmp_path / "pairs.pdf"
    path.write_bytes(doc.output())
    fills = page_fill(path)
    assert all(f > 1 / 3 for f in fills[:-1]), fills
    text = "\n".join(p.extract_text() for p in PdfReader(path).pages)
    assert all(f"Key {i}" in text for i in range(30))
