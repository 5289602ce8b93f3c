"""Issue 25, item 2: identifiers in every released column.

A generated clinical table (visits of patients; notes naming them, with their phones,
e-mails, IBANs and record numbers, and doctors in no column) released through the
command line: refused without scrub (exit 4, nothing written, the message names
``notes``), released with ``scrub = true`` with no planted identifier left (checked with
patterns of this test and the input's own names, not the scanner's), and ``verify``
refusing a copy that still holds a phone number.
"""
from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pandas as pd
import pytest

from engine.cli import EXIT_BAD_INPUT, EXIT_IDENTIFIERS, EXIT_OK, EXIT_VIOLATIONS
from tests.clinical_data import clinical, job_text

# independent patterns (not the scanner's)
EMAIL = re.compile(r"\S+@\S+\.\w+")
IBAN = re.compile(r"\bDE\d{2}(?: ?\d{4}){4} ?\d{2}\b")
PHONE = re.compile(r"\+\d[\d ]{8,}\d|\(\d{3}\) \d{3}-\d{4}|\b\d{3}-\d{3}-\d{4}\b|\b06 \d{8}\b")


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    folder = tmp_path_factory.mktemp("clinical")
    table = clinical(patients=120, seed=7)
    path = table.write(folder)
    return folder, path, table


def job(folder: Path, path: Path, name: str, notes: str = "", extra: str = "") -> Path:
    p = folder / name
    p.write_text(job_text(path, notes=notes, extra=extra), encoding="utf-8")
    return p


def test_refused_without_scrub_nothing_written(data, run, tmp_path):
    folder, path, _ = data
    out, result = tmp_path / "out.csv", tmp_path / "result.json"
    out.write_text("an earlier release\n")  # removed: it cannot pass for this job's
    r = run("anonymize", job(folder, path, "plain.toml"), "--output", out, "--result",
            result, "--quiet")
    assert r.code == EXIT_IDENTIFIERS == 4
    assert not out.exists() and not result.exists()
    assert "column 'notes'" in r.err
    for kind in ("[PHONE]", "[EMAIL]", "[IBAN]", "[NAME]"):
        assert kind in r.err
    first = re.search(r"column 'notes': telephone number \[PHONE\] in ([\d,]+) rows, first "
                      r"in data row (\d+)", r.err)
    frame = pd.read_csv(path, sep=";", dtype=str)
    phones = frame["notes"].str.contains(PHONE)
    assert first is not None
    assert int(first.group(1).replace(",", "")) == int(phones.sum())
    assert int(first.group(2)) == int(phones.values.argmax()) + 1
    # no value is printed: the message names rows, not identifiers
    assert not PHONE.search(r.err) and not EMAIL.search(r.err)


def test_scrubbed_release_holds_no_planted_identifier(data, run, tmp_path):
    folder, path, table = data
    out, result = tmp_path / "out.csv", tmp_path / "result.json"
    scrub = job(folder, path, "scrub.toml", notes="scrub = true")
    r = run("anonymize", scrub, "--output", out, "--result", result, "--quiet")
    assert r.code == EXIT_OK, r.err
    released = pd.read_csv(out, sep=";", dtype=str, keep_default_na=False)
    assert "name" not in released.columns and "patient_no" not in released.columns
    names = {w.lower() for n in table.names for w in n.split()}
    words = re.compile(r"[A-Za-z]+")
    for column in released.columns:
        for cell in released[column]:
            assert not EMAIL.search(cell) and not IBAN.search(cell) and not PHONE.search(cell)
            assert not names & {w.lower() for w in words.findall(cell)}, cell
            for n in table.names:
                assert n.lower() not in cell.lower()
    notes = released["notes"]
    for phone in table.phones:
        assert not notes.str.contains(phone, regex=False).any()
    for email in table.emails:
        assert not notes.str.contains(email, regex=False).any()
    # the replacements are counted per kind in the result JSON
    counts = json.loads(result.read_text())["identifiers"]["scrubbed"]["notes"]
    assert {"PHONE", "EMAIL", "IBAN", "NAME"} <= set(counts)
    assert counts["PHONE"] >= len(table.phones) and counts["IBAN"] >= len(table.ibans)
    assert sum(c.count("[PHONE]") for c in notes) == counts["PHONE"]
    # the doctors (in no column) named with a title or given name are gone too
    for doctor in table.doctors:
        assert not notes.str.contains(rf"\b{doctor}\b").any(), doctor
    assert run("verify", out, scrub).code == EXIT_OK
    # verify refuses a copy that still holds a phone number
    copy = tmp_path / "copy.csv"
    shutil.copy(out, copy)
    tampered = released.copy()
    tampered.loc[3, "notes"] = tampered.loc[3, "notes"] + " Call (212) 555-0147."
    tampered.to_csv(copy, sep=";", index=False)
    r = run("verify", copy, scrub)
    assert r.code == EXIT_VIOLATIONS
    assert "column 'notes': telephone number [PHONE] in 1 row, first in data row 4" in r.err


def test_identifying_column_or_keep_with_reason_releases(data, run, tmp_path):
    folder, path, _ = data
    out, result = tmp_path / "out.csv", tmp_path / "result.json"
    dropped = job(folder, path, "dropped.toml").read_text().replace(
        '[attributes."notes"]\ntype = "insensitive"', '[attributes."notes"]\ntype = "identifying"')
    (folder / "dropped.toml").write_text(dropped)
    r = run("anonymize", folder / "dropped.toml", "--output", out, "--quiet")
    assert r.code == EXIT_OK, r.err
    assert "notes" not in pd.read_csv(out, sep=";", nrows=1).columns
    kept = job(folder, path, "kept.toml",
               notes='identifiers = "keep"\nreason = "notes go to the treating clinic only"')
    pdf = tmp_path / "docs" / "report.pdf"
    pdf.parent.mkdir()
    r = run("anonymize", kept, "--output", out, "--result", result, "--report", pdf,
            "--quiet")
    assert r.code == EXIT_OK, r.err
    report = json.loads(result.read_text())["identifiers"]
    assert report["kept"] == {"notes": "notes go to the treating clinic only"}
    assert "notes" not in report["scanned"] and "visit_no" in report["scanned"]
    # the release report prints the reason, and its verification scanned the release
    doc = json.loads(pdf.with_suffix(".json").read_text())
    assert doc["output"]["identifiers"]["kept"] == report["kept"]
    assert doc["verification"]["ok"]
    from pypdf import PdfReader
    text = " ".join(p.extract_text() for p in PdfReader(pdf).pages)
    assert "notes go to the treating clinic only" in " ".join(text.split())


@pytest.mark.parametrize("notes, key", [
    ('identifiers = "keep"', 'identifiers = "keep" needs a reason'),
    ('reason = "why"', "reason only applies"),
    ('scrub = true\nidentifiers = "keep"\nreason = "x"', "contradict"),
])
def test_bad_identifier_keys(data, run, tmp_path, notes, key):
    folder, path, _ = data
    out = tmp_path / "out.csv"
    r = run("anonymize", job(folder, path, "bad.toml", notes=notes), "--output", out)
    assert r.code == EXIT_BAD_INPUT
    assert '[attributes."notes"]' in r.err and key in r.err
    assert not out.exists()


def test_scrub_on_a_quasi_identifier_is_refused(data, run, tmp_path):
    folder, path, _ = data
    text = job(folder, path, "qi.toml").read_text().replace(
        'hierarchy = "zip.csv"', 'hierarchy = "zip.csv"\nscrub = true')
    (folder / "qi.toml").write_text(text)
    r = run("anonymize", folder / "qi.toml", "--output", tmp_path / "out.csv")
    assert r.code == EXIT_BAD_INPUT
    assert '[attributes."zip"] scrub = true' in r.err and "quasi-identifying" in r.err
    assert not (tmp_path / "out.csv").exists()


def test_help_documents_exit_code_4(run):
    r = run("--help")
    assert re.search(r"^  4 +anonymize: identifiers found in a released column", r.out, re.M)


def test_out_of_core_refuses_and_scrubs_as_in_memory(data, run, tmp_path):
    """The DuckDB release: the same refusal (counts and first rows) and the same
    scrubbed bytes as in memory."""
    folder, path, _ = data
    outputs, messages = {}, {}
    for backend in ("memory", "duckdb"):
        engine = f'[engine]\nbackend = "{backend}"\n'
        plain = job(folder, path, f"plain-{backend}.toml", extra=engine)
        r = run("anonymize", plain, "--output", tmp_path / "refused.csv", "--quiet")
        assert r.code == EXIT_IDENTIFIERS
        messages[backend] = [line for line in r.err.splitlines() if "column '" in line]
        scrub = job(folder, path, f"scrub-{backend}.toml", notes="scrub = true", extra=engine)
        out, result = tmp_path / f"{backend}.csv", tmp_path / f"{backend}.json"
        r = run("anonymize", scrub, "--output", out, "--result", result, "--quiet")
        assert r.code == EXIT_OK, r.err
        outputs[backend] = (out.read_bytes(),
                            json.loads(result.read_text())["identifiers"]["scrubbed"])
        assert run("verify", out, scrub).code == EXIT_OK
    assert messages["duckdb"] == messages["memory"] and messages["memory"]
    assert outputs["duckdb"] == outputs["memory"]
    assert not (tmp_path / "refused.csv").exists()


def test_verify_scans_parquet_and_part_files(data, run, tmp_path):
    """verify scans a Parquet release and a folder of part files (Spark's) as it scans a
    CSV: a phone number left in one part is found, with its row across the parts."""
    folder, path, _ = data
    scrub = job(folder, path, "scrub-parts.toml", notes="scrub = true")
    out = tmp_path / "out.csv"
    assert run("anonymize", scrub, "--output", out, "--quiet").code == EXIT_OK
    released = pd.read_csv(out, sep=";", dtype=str, keep_default_na=False)
    released.to_parquet(tmp_path / "out.parquet", index=False)
    assert run("verify", tmp_path / "out.parquet", scrub).code == EXIT_OK
    parts = tmp_path / "parts"
    parts.mkdir()
    half = len(released) // 2
    tampered = released.copy()
    tampered.loc[half + 2, "notes"] += " Call +44 20 7946 0321."
    tampered.iloc[:half].to_parquet(parts / "part-00000.parquet", index=False)
    tampered.iloc[half:].to_parquet(parts / "part-00001.parquet", index=False)
    r = run("verify", parts, scrub)
    assert r.code == EXIT_VIOLATIONS
    assert f"telephone number [PHONE] in 1 row, first in data row {half + 3}" in r.err
