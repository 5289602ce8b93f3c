"""CSV cells a spreadsheet would run as formulas (=, +, -, @, tab, carriage return;
numbers excepted) are quoted by default, refused or kept on request, counted in the
result file, read back as released, and written alike out of core (issue 26)."""
from __future__ import annotations

import json

import pandas as pd
import pytest

from engine.cli import EXIT_BAD_INPUT, EXIT_OK
from engine.export.targets import CsvOptions, file_target, read_table, write_table
from engine.formulas import is_formula, quoted, unquoted
from tests.cli.conftest import snapshot

NOTES = ["=1+2", "-3", "@SUM(A1)", "+x", "plain", "'=old", "-", "-2,5", "+1.5e3", "\rx"]


def test_the_rule():
    assert [is_formula(t) for t in NOTES] == [True, False, True, True, False, True, True,
                                              False, False, True]
    assert not is_formula("") and not is_formula("'") and not is_formula("a=b")
    assert is_formula("\tcmd") and is_formula("-1+2") and is_formula("@")
    # one to one: quoting then reading back gives the value, distinct values stay distinct
    values = NOTES + ["'" + t for t in NOTES] + ["''=x", "'''-a"]
    assert [unquoted(quoted(t)) for t in values] == values
    assert len({quoted(t) for t in values}) == len(set(values))


@pytest.fixture
def notes(tiny):
    """The tiny job with an insensitive column 'note' holding formula cells."""
    lines = (tiny / "data.csv").read_text().splitlines()
    rows = [lines[0] + ";note"] + [line + ";" + NOTES[i % len(NOTES)].replace("\r", "r")
                                   for i, line in enumerate(lines[1:])]
    (tiny / "data.csv").write_text("\n".join(rows) + "\n")
    job = (tiny / "job.toml").read_text().replace(
        "[[privacy]]", '[attributes.note]\ntype = "insensitive"\n[[privacy]]', 1)
    (tiny / "job.toml").write_text(job)
    return tiny


def released_column(path, name: str = "note") -> list[str]:
    return pd.read_csv(path, sep=";", dtype=str, keep_default_na=False)[name].tolist()


released_notes = released_column


def test_quoted_by_default_and_counted(notes, run):
    r = run("anonymize", notes / "job.toml", "--output", notes / "out.csv", "--result",
            notes / "r.json", "--quiet")
    assert r.code == EXIT_OK
    data = pd.read_csv(notes / "data.csv", sep=";", dtype=str, keep_default_na=False)
    out = released_notes(notes / "out.csv")
    assert out == [quoted(t) for t in data["note"]]  # row by row, numbers untouched
    assert "-3" in out and "-2,5" in out and "'=1+2" in out and "''=old" in out
    expected = sum(is_formula(t) for t in data["note"])
    assert expected > 20
    done = json.loads((notes / "r.json").read_text())["formula_cells"]
    assert done == {str(notes / "out.csv"): {"policy": "quote", "formula_cells": expected,
                                              "neutralised": expected}}
    assert f"{expected} cell(s)" in r.err
    # read back as released, and verified
    back = read_table(file_target(notes / "out.csv", CsvOptions()))
    assert back["note"].tolist() == data["note"].tolist()
    assert run("verify", notes / "out.csv", notes / "job.toml").code == EXIT_OK


def test_refused_on_request_leaves_nothing(notes, run):
    (notes / "out.csv").write_text("an earlier release\n")
    before = snapshot(notes)
    r = run("anonymize", notes / "job.toml", "--output", notes / "out.csv", "--result",
            notes / "r.json", "--quiet", "--csv-formula-cells", "refuse")
    assert r.code == EXIT_BAD_INPUT
    assert "column 'note'" in r.err and "formula" in r.err
    assert snapshot(notes) == before


def test_kept_on_request(notes, run):
    r = run("anonymize", notes / "job.toml", "--output", notes / "out.csv", "--result",
            notes / "r.json", "--quiet", "--csv-formula-cells", "keep")
    assert r.code == EXIT_OK
    data = pd.read_csv(notes / "data.csv", sep=";", dtype=str, keep_default_na=False)
    assert released_notes(notes / "out.csv") == data["note"].tolist()
    done = json.loads((notes / "r.json").read_text())["formula_cells"]
    assert done[str(notes / "out.csv")]["neutralised"] == 0


def test_a_release_without_formula_cells_is_unchanged(tiny, run):
    for policy in ("quote", "keep"):
        assert run("anonymize", tiny / "job.toml", "--output", tiny / f"{policy}.csv",
                   "--quiet", "--csv-formula-cells", policy).code == EXIT_OK
    assert (tiny / "quote.csv").read_bytes() == (tiny / "keep.csv").read_bytes()


@pytest.mark.parametrize("encoding", ["utf-8", "utf-16"])  # encoded writer, pandas writer
def test_both_csv_writers_quote_alike(tmp_path, encoding):
    notes = [t.replace("\r", "\t") for t in NOTES]  # a tab: one line per row
    frame = pd.DataFrame({"a": notes, "b": ["x"] * len(notes)})
    target = file_target(tmp_path / "t.csv", CsvOptions(encoding=encoding))
    done = write_table(frame, target)
    assert done["neutralised"] == sum(map(is_formula, notes)) == 6
    text = (tmp_path / "t.csv").read_text(encoding=encoding)
    assert "'=1+2" in text and ";-3" not in text  # column a comes first
    assert read_table(target)["a"].tolist() == notes


def test_duckdb_release_quotes_as_in_memory(notes, run):
    pytest.importorskip("duckdb")
    text = (notes / "job.toml").read_text()
    for backend in ("memory", "duckdb"):
        (notes / f"{backend}.toml").write_text(text + f'\n[engine]\nbackend = "{backend}"\n')
        assert run("anonymize", notes / f"{backend}.toml", "--output", notes / f"{backend}.csv",
                   "--result", notes / f"{backend}.json", "--quiet").code == EXIT_OK
    assert (notes / "duckdb.csv").read_bytes() == (notes / "memory.csv").read_bytes()
    counts = [json.loads((notes / f"{b}.json").read_text())["formula_cells"]
              for b in ("memory", "duckdb")]
    assert list(counts[0].values()) == list(counts[1].values())
    assert list(counts[0].values())[0]["neutralised"] > 20


def test_verify_reads_quoted_cells_as_released(tiny, run):
    """A quasi-identifier label beginning with '-' (a hierarchy of negative ranges)."""
    hierarchy = (tiny / "zip.csv").read_text().replace("111**", "-111**")
    (tiny / "zip.csv").write_text(hierarchy)
    job = (tiny / "job.toml").read_text().replace('hierarchy = "zip.csv"\n',
                                                  'hierarchy = "zip.csv"\nmin_level = 1\nmax_level = 1\n')
    (tiny / "job.toml").write_text(job)
    assert run("anonymize", tiny / "job.toml", "--output", tiny / "out.csv",
               "--quiet").code == EXIT_OK
    assert "'-111**" in released_column(tiny / "out.csv", "zip")
    assert run("verify", tiny / "out.csv", tiny / "job.toml").code == EXIT_OK


def test_duckdb_counts_formula_labels_of_quasi_identifiers_as_in_memory(tiny, run):
    """Out of core, a quasi-identifier's labels are known before the release: a column
    none of whose labels is a formula is not scanned, one with a formula label is
    (here '-111**', a hierarchy of negative ranges), counted and quoted as in memory."""
    pytest.importorskip("duckdb")
    hierarchy = (tiny / "zip.csv").read_text().replace("111**", "-111**")
    (tiny / "zip.csv").write_text(hierarchy)
    text = (tiny / "job.toml").read_text().replace(
        'hierarchy = "zip.csv"\n', 'hierarchy = "zip.csv"\nmin_level = 1\nmax_level = 1\n')
    for backend in ("memory", "duckdb"):
        (tiny / f"{backend}.toml").write_text(text + f'\n[engine]\nbackend = "{backend}"\n')
        assert run("anonymize", tiny / f"{backend}.toml", "--output", tiny / f"{backend}.csv",
                   "--result", tiny / f"{backend}.json", "--quiet").code == EXIT_OK
    assert (tiny / "duckdb.csv").read_bytes() == (tiny / "memory.csv").read_bytes()
    zips = released_column(tiny / "duckdb.csv", "zip")
    quoted_cells = sum(z == "'-111**" for z in zips)
    assert quoted_cells > 0
    counts = [json.loads((tiny / f"{b}.json").read_text())["formula_cells"]
              for b in ("memory", "duckdb")]
    assert [list(c.values())[0]["neutralised"] for c in counts] == [quoted_cells] * 2


def test_which_released_columns_the_formula_count_scans():
    """`labels_without_formulas`: known labels without a formula are not scanned; a
    formula label, the marker as a formula, or a column released as it is are."""
    import numpy as np
    from engine.backends.base import ReleasePlan
    from engine.backends.base import labels_without_formulas
    labels = (np.array(["1*", "2*"]), np.array(["-1*", "2*"]))

    def plan(marker="*", **kw):
        return ReleasePlan(columns=("a", "b", "c", "r", "m"), qis=("a", "b"),
                           values=(np.array(["1", "2"]),) * 2, labels=labels,
                           gen=(np.array([0, 1]),) * 2, sizes=(2, 2),
                           suppressed=np.zeros((0, 2), np.int64), marker=marker, **kw)
    recoded = (("r", np.array(["x", "y"]), np.array(["low", "high"])),)
    aggregated = (("m", np.zeros((1, 2), np.int64), np.array(["=avg"])),)
    p = plan(recoded=recoded, aggregated=aggregated)
    assert [labels_without_formulas(p, c) for c in p.columns] == \
        [True, False, False, True, False]
    assert not labels_without_formulas(plan(marker="-"), "a")
    assert labels_without_formulas(plan(aggregated=(("m", np.zeros((1, 2), np.int64),
                                                      np.array(["12.5"])),)), "m")
