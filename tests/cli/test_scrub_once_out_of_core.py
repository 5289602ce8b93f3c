"""Issue 25, speed: out of core a scrubbed column's identifiers are looked for once per row.

The DuckDB release counts formula cells in a scan of the release query before writing
it. That scan scrubs a scrubbed column only where its text begins like a formula (a
text that does not cannot become one by scrubbing): these tests check that the counts
and the bytes stay the in-memory export's on notes made to tell them apart (a formula
that stays one, one whose identifier at its start stops it being one, a number that
becomes a formula once the row's own number in it is scrubbed, quotes before a
formula), under each formula-cell policy.
"""
from __future__ import annotations

import json

import pandas as pd
import pytest

from engine.cli import EXIT_OK
from tests.clinical_data import clinical
from tests.cli.test_identifiers_out_of_core import write_job

pytest.importorskip("duckdb")

#: (patient_no, name, note)
FORMULAS = [
    ("100007", "Mary Okafor", '=HYPERLINK("mailto:mary.okafor@example.org")'),
    ("100014", "John Novak", "+41 79 123 45 67"),                  # a phone: "[PHONE]"
    ("100021", "Linda Szabo", "-4111111111111111"),                 # a number -> "-[CARD]"
    ("100028", "Paul Tanaka", "-100014"),                           # another's: a number
    ("100035", "Sarah Lambert", "''@Sarah Lambert called"),         # quotes, then @
    ("100042", "Kevin Ingram", "@ward 3, call +41 79 765 43 21"),   # stays a formula
    ("100049", "Anna Petrov", "Called +41 79 111 22 33, =2+3"),     # not at the start
]


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    folder = tmp_path_factory.mktemp("scrub_once")
    table = clinical(patients=120, seed=4)
    extra = pd.DataFrame([dict(visit_no=str(900000 + i), patient_no=no, name=name,
                               birth_date="1970-01-01", sex="MF"[i % 2], zip="10100",
                               diagnosis="I10", notes=note)
                          for i, (no, name, note) in enumerate(FORMULAS * 3)])
    frame = pd.concat([table.frame, extra], ignore_index=True)
    path = folder / "clinical.csv"
    frame.to_csv(path, sep=";", index=False)
    return folder, path


@pytest.mark.parametrize("policy", ["quote", "keep"])
def test_formula_cells_of_scrubbed_notes_are_counted_as_in_memory(data, run, tmp_path,
                                                                    policy):
    folder, path = data
    got = {}
    for backend in ("memory", "duckdb"):
        job = write_job(folder, path, f"{backend}.toml", backend, "scrub = true")
        out, result = tmp_path / f"{backend}.csv", tmp_path / f"{backend}.json"
        r = run("anonymize", job, "--output", out, "--result", result, "--quiet",
                "--csv-formula-cells", policy)
        assert r.code == EXIT_OK, r.err
        written = json.loads(result.read_text())
        got[backend] = (out.read_bytes(), list((written.get("formula_cells") or {}).values()),
                        written["identifiers"]["scrubbed"])
    assert got["duckdb"] == got["memory"]
    notes = pd.read_csv(tmp_path / "duckdb.csv", sep=";", dtype=str,
                        keep_default_na=False)["notes"].tolist()[-len(FORMULAS):]
    quote = "'" if policy == "quote" else ""
    assert notes[0] == quote + '=HYPERLINK("mailto:[EMAIL]")'
    assert notes[1] == "[PHONE]"  # no longer a formula
    assert notes[2] == quote + "-[CARD]"  # a number, a formula once scrubbed
    assert notes[3] == "-100014"  # another patient's number: a number, as it is
    assert notes[4] == quote + "''@[NAME] called"
    assert notes[5] == quote + "@ward 3, call [PHONE]"
    assert notes[6] == "Called [PHONE], =2+3"
    assert got["duckdb"][1][0]["formula_cells"] == 4 * 3


def test_each_note_is_looked_into_once(data, run, tmp_path, monkeypatch):
    """Out of core the notes' identifiers are looked for when the release is written,
    not before it too (nothing in a scrubbed column refuses a release) nor in the
    formula-cell count (only the notes beginning like a formula): the texts handed to
    the scanner are at most the rows plus those, and the replacements counted as the
    release is written are those of the in-memory release."""
    import engine.backends.identifier_scan as scan_module
    folder, path = data
    notes = pd.read_csv(path, sep=";", dtype=str, keep_default_na=False)["notes"]
    seen = []
    real = scan_module.find_in_values

    def counting(texts, values, *args, **kwargs):
        seen.extend(t for t in texts if t in known)
        return real(texts, values, *args, **kwargs)
    known = set(notes)
    monkeypatch.setattr(scan_module, "find_in_values", counting)
    counts = {}
    for backend in ("duckdb", "memory"):
        job = write_job(folder, path, f"once-{backend}.toml", backend, "scrub = true")
        result = tmp_path / f"once-{backend}.json"
        r = run("anonymize", job, "--output", tmp_path / f"once-{backend}.csv",
                "--result", result, "--quiet")
        assert r.code == EXIT_OK, r.err
        counts[backend] = json.loads(result.read_text())["identifiers"]["scrubbed"]
        if backend == "duckdb":
            duckdb_seen, seen[:] = list(seen), []
    # every distinct note at least once (a vector's repeated texts are looked into once)
    assert set(duckdb_seen) == known
    formula_like = int(notes.str.lstrip("'").str[:1].isin(list("=+-@\t\r")).sum())
    assert len(duckdb_seen) <= len(notes) + formula_like
    assert counts["duckdb"] == counts["memory"] and counts["duckdb"]["notes"]


def test_replacements_asked_for_before_the_release_are_those_it_counts(data, tmp_path):
    """Asked for before anything is written (the app's result view), the replacements
    are scanned; the release then counts the same as it scrubs."""
    from engine.api import anonymize_prepared, prepare
    from engine.project.job_file import load_job
    folder, path = data
    job = write_job(folder, path, "before.toml", "duckdb", "scrub = true")
    problem = prepare(None, load_job(job))
    try:
        released = anonymize_prepared(problem).transformed()
        before = released.identifier_report()["scrubbed"]
        assert problem.backend.scrub_counts(["notes"]) is None
        problem.backend.write_release(released.plan(), tmp_path / "before.csv", "csv")
        assert problem.backend.scrub_counts(["notes"]) == before
        assert sum(before["notes"].values()) > len(FORMULAS)
    finally:
        problem.backend.close()
