"""Issue 25, speed: the DuckDB scan and scrub hold no identifying number in Python.

A row's own record number is looked for in its own row only, so out of core the job's
numbers are not collected (``IdentifyingValues.build(..., hold_numbers=False)``): a row's
value of a number column counts by its form, DuckDB sends only the rows whose text
contains it. These tests check that this finds exactly what the held numbers find, value
by value and row by row, and that the DuckDB release stays the in-memory one byte for
byte on rows made to tell them apart (another patient's number in a note, a padded
number, a number inside a longer run, non-ASCII digits, a number column value too short,
a visit number equal to a patient's number).
"""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from engine.cli import EXIT_IDENTIFIERS, EXIT_OK
from engine.identifiers import IdentifyingValues, find_spans
from tests.clinical_data import clinical, job_text

#: (patient_no, name, note): rows written to separate own numbers from other numbers
TRICKY = [
    ("100007", "Mary Okafor", "Chart 100007 updated, see also 100014 and 1000070."),
    ("100014", "John Novak", "Chart 100007 belongs to someone else; BP 120/80."),
    (" 100021 ", "Linda Szabo", "Chart 100021 updated by the nurse."),
    ("100028", "Paul Tanaka", "Ref 9100028 and 100028x are not it, 100028 is."),
    ("\u0661\u0662\u0663\u0664", "Anna Petrov", "Chart \u0661\u0662\u0663\u0664 noted today."),
    ("12", "Hans Moreau", "Room 12 then 120 then 12."),
    ("100035", "Sarah Lambert", "100035"),
    ("100042", "Kevin Ingram", "Call on (415) 555-0132 re chart 100042, 100042 again."),
]


def tricky_rows() -> list[dict]:
    rows = []
    for i, (no, name, note) in enumerate(TRICKY * 3):
        rows.append(dict(visit_no=str(100007 + 7 * i), patient_no=no, name=name,
                         birth_date="1970-01-0%d" % (1 + i % 9), sex="MF"[i % 2],
                         zip=f"{10100 + i % 4}", diagnosis="I10", notes=note))
    return rows


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    folder = tmp_path_factory.mktemp("clinical_ooc")
    table = clinical(patients=150, seed=3)
    frame = pd.concat([table.frame, pd.DataFrame(tricky_rows())], ignore_index=True)
    path = folder / "clinical.csv"
    frame.to_csv(path, sep=";", index=False)
    return folder, path, frame


def test_numbers_by_form_find_what_held_numbers_find(data):
    """Every note, with its row's own numbers: the spans found without the numbers held
    equal those found with them, and the row's numbers equal the held candidates."""
    _, _, frame = data
    columns = {"name": frame["name"].unique(), "patient_no": frame["patient_no"].unique()}
    held = IdentifyingValues.build(columns)
    by_form = IdentifyingValues.build(columns, hold_numbers=False)
    assert held.numbers and not by_form.numbers and by_form.own_by_form
    assert by_form.number_columns == held.number_columns == ("patient_no",)
    own_found = 0
    for no, note in zip(frame["patient_no"], frame["notes"]):
        own = {no.strip()}
        expected = own & held.candidate_numbers(note)
        assert by_form.row_numbers(note, own) == expected == held.row_numbers(note, own)
        assert find_spans(note, by_form, expected) == find_spans(note, held, expected)
        assert find_spans(note, by_form) == find_spans(note, held)
        own_found += bool(expected)
    assert own_found > 20  # the generated "Chart <own number>" notes and the tricky rows


def write_job(folder: Path, path: Path, name: str, backend: str, notes: str = "") -> Path:
    job = folder / name
    job.write_text(job_text(path, notes=notes, person=True,
                            extra=f'[engine]\nbackend = "{backend}"\n'), encoding="utf-8")
    return job


def test_duckdb_release_equals_memory_on_own_numbers(data, run, tmp_path):
    """The release through DuckDB (numbers not held) and in memory (numbers held): the
    same refusal, the same scrubbed bytes and replacement counts; the own numbers are
    gone and another patient's number stays."""
    folder, path, frame = data
    outputs, messages = {}, {}
    for backend in ("memory", "duckdb"):
        plain = write_job(folder, path, f"plain-{backend}.toml", backend)
        r = run("anonymize", plain, "--output", tmp_path / "refused.csv", "--quiet")
        assert r.code == EXIT_IDENTIFIERS
        messages[backend] = [line for line in r.err.splitlines() if "column '" in line]
        scrub = write_job(folder, path, f"scrub-{backend}.toml", backend, "scrub = true")
        out, result = tmp_path / f"{backend}.csv", tmp_path / f"{backend}.json"
        r = run("anonymize", scrub, "--output", out, "--result", result, "--quiet")
        assert r.code == EXIT_OK, r.err
        outputs[backend] = (out.read_bytes(),
                            json.loads(result.read_text())["identifiers"]["scrubbed"])
    assert messages["duckdb"] == messages["memory"]
    assert any("[ID]" in m for m in messages["memory"])
    assert outputs["duckdb"] == outputs["memory"]
    released = pd.read_csv(tmp_path / "duckdb.csv", sep=";", dtype=str,
                           keep_default_na=False)
    notes = released["notes"].tolist()
    base = len(frame) - len(TRICKY) * 3
    tricky = notes[base:base + len(TRICKY)]
    assert tricky[0].startswith("Chart [ID] updated") and "100014" in tricky[0] \
        and "1000070" in tricky[0]
    assert "100007" in tricky[1]  # another patient's number: not the row's own
    assert tricky[2].startswith("Chart [ID] updated")  # the patient number padded
    assert "9100028" in tricky[3] and "100028x" in tricky[3] and tricky[3].endswith(
        "[ID] is.")
    assert "\u0661\u0662\u0663\u0664" not in tricky[4]
    assert tricky[5] == "Room 12 then 120 then 12."  # shorter than 3: not a number
    assert tricky[6] == "100035"  # no free text around it
    assert "100042" not in tricky[7] and "[PHONE]" in tricky[7]


def test_values_built_from_chunks_are_the_values_built_at_once(data):
    """The identifying values streamed in chunks (as DuckDB delivers them, read twice)
    equal those built from the whole columns, numbers held or not."""
    _, _, frame = data
    columns = {c: list(frame[c].unique()) for c in ("name", "birth_date", "patient_no")}

    def chunked(values, size=7):
        return lambda: (values[i:i + size] for i in range(0, len(values), size))
    for hold in (True, False):
        whole = IdentifyingValues.build(columns, hold_numbers=hold)
        streamed = IdentifyingValues.build_streamed(
            {c: chunked(v) for c, v in columns.items()}, hold_numbers=hold)
        assert streamed == whole
        assert whole.name_tokens and whole.codes and whole.number_columns == ("patient_no",)


def test_row_order_scan_finds_what_the_grouped_scan_and_memory_find(data, monkeypatch):
    """A column whose values are almost all distinct (the visit numbers) is read in row
    order instead of grouped (DuckDB's hash table of every value grew with the rows):
    read in row order or grouped, every column (unique values, repeated ones, notes
    repeated across batches of 37 rows) gives the in-memory scan's kinds, counts and
    first rows, and the same replacement counts in a scrubbed column."""
    import engine.backends.identifier_scan as scan_module
    from engine.backends.base import DataSource
    from engine.backends.duckdb_backend import DuckDBBackend
    from engine.identifiers.scan import EXAMPLES, OwnNumbers, scan_column
    _, path, frame = data
    frame = frame.astype(str)
    columns = ["visit_no", "diagnosis", "notes", "zip"]
    ids = {c: frame[c].unique() for c in ("name", "birth_date", "patient_no")}
    held = IdentifyingValues.build(ids)
    own_codes, own_dict = pd.factorize(frame["patient_no"])
    own = OwnNumbers([(own_codes, np.asarray(own_dict, dtype=object))])
    memory = set()
    for c in columns:
        codes, dictionary = pd.factorize(frame[c])
        for f in scan_column(c, np.asarray(dictionary, dtype=object), codes, held, own):
            memory.add((f.column, f.kind, f.count, f.first_row))
    assert {k for c, k, _, _ in memory if c == "notes"} >= {"PHONE", "EMAIL", "ID"}
    backend = DuckDBBackend(DataSource(str(path), "csv", (path,), ";", "utf-8"))
    monkeypatch.setattr(scan_module, "BATCH_ROWS", 37)
    values = scan_module.identifying_values(backend, list(ids))
    got = {}
    for mode, ordered in (("grouped", set()), ("row order", set(columns))):
        result = scan_module.scan(backend, columns, ["notes"], [], values, ordered)
        got[mode] = result
        assert {(f.column, f.kind, f.count, f.first_row)
                for f in result["findings"]} == memory, mode
        for f in result["findings"]:
            assert 1 <= len(f.examples) <= EXAMPLES
            assert set(f.examples) <= set(frame[f.column])
    assert got["row order"]["scrubbed"] == got["grouped"]["scrubbed"]
    assert got["grouped"]["scrubbed"]["notes"]
    # the decision: the visit numbers (one a row) in row order, the repeated ones grouped
    monkeypatch.setattr(scan_module, "ROW_ORDER_ROWS", 0)
    ordered = scan_module.row_order_columns(backend, columns)
    assert "visit_no" in ordered and not ordered & {"diagnosis", "zip"}
    monkeypatch.setattr(scan_module, "ROW_ORDER_ROWS", len(frame) + 1)
    assert scan_module.row_order_columns(backend, columns) == set()
    backend.close()
