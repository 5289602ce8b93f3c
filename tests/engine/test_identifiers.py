"""The identifier scanner (engine/identifiers): each pattern with its check, the job's
identifying values inside other columns, names in no column, scrubbing, and no false
block on the shared data sets (Adult, cup, credit card, MACH-IV)."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from engine.data.csv_import import read_csv_encoded
from engine.identifiers import IdentifyingValues, find_spans, scrub_text
from engine.identifiers.patterns import (bsn_ok, card_ok, iban_ok, nhs_ok, ssn_ok,
                                         steuer_id_ok)
from engine.identifiers.scan import OwnNumbers, scan_column, scrub_column
from tests.shared_data import SHARED


def kinds(text, values=None, own=()):
    return [(s.kind, text[s.start:s.end]) for s in find_spans(text, values, own)]


def test_checksums():
    assert iban_ok("DE89 3704 0044 0532 0130 00") and iban_ok("GB82 WEST 1234 5698 7654 32")
    assert iban_ok("NL91ABNA0417164300")
    assert not iban_ok("DE89 3704 0044 0532 0130 01")  # one digit off
    assert not iban_ok("DE89 3704 0044 0532 0130")      # Germany's length is 22
    assert card_ok("4111111111111111") and card_ok("5500000000000004")
    assert not card_ok("4111111111111112") and not card_ok("1111111111111117")
    assert ssn_ok("123", "45", "6789")
    for bad in (("000", "12", "3456"), ("666", "12", "3456"), ("900", "12", "3456"),
                ("123", "00", "4567"), ("123", "45", "0000")):
        assert not ssn_ok(*bad)
    assert nhs_ok("9434765919") and not nhs_ok("9434765918")
    assert bsn_ok("111222333") and bsn_ok("123456782") and not bsn_ok("123456789")
    assert steuer_id_ok("86095742719") and not steuer_id_ok("86095742718")
    assert not steuer_id_ok("12345678901")  # every digit once: no Steuer-ID


@pytest.mark.parametrize("text, expected", [
    ("Write to ann.lee+x@example.co.uk today", [("EMAIL", "ann.lee+x@example.co.uk")]),
    ("See https://clinic.example.org/p?id=7.", [("URL", "https://clinic.example.org/p?id=7")]),
    ("Refund to DE89 3704 0044 0532 0130 00 please", [("IBAN", "DE89 3704 0044 0532 0130 00")]),
    ("Paid with 4111 1111 1111 1111 on arrival", [("CARD", "4111 1111 1111 1111")]),
    ("Login from 192.168.1.20 and 2001:db8::1 seen",
     [("IP", "192.168.1.20"), ("IP", "2001:db8::1")]),
    ("SSN 123-45-6789 on file", [("ID", "123-45-6789")]),
    ("NHS 943 476 5919 on file", [("ID", "943 476 5919")]),
    ("Call (212) 555-0147 or +44 20 7946 0958 later",
     [("PHONE", "(212) 555-0147"), ("PHONE", "+44 20 7946 0958")]),
    ("Reached on +49 30 12345678 in the morning", [("PHONE", "+49 30 12345678")]),
    ("Seen by Dr. Hale, then by Mrs O'Neill", [("NAME", "Hale"), ("NAME", "O'Neill")]),
    ("Discussed with Jennifer Albers at length", [("NAME", "Jennifer Albers")]),
])
def test_patterns_found(text, expected):
    assert kinds(text) == expected


@pytest.mark.parametrize("text", [
    "BP 120/80, pulse 72, on 2019-05-03 at 10:30", "Dose 500 mg twice daily for 14 days",
    "HbA1c 7.4 %, weight 81.5 kg", "ICD J45.909, E11.9", "Amount 1234567 paid",
    "Version 1.2.3 installed", "Married-civ-spouse", "United-States", "Never-worked",
    "Will review in May with Grace and Hope", "3.14159265358979", "12.345.678",
    "Follow-up on 12/03/2021 14:45",
])
def test_no_identifier(text):
    assert kinds(text) == []


def test_identifying_values_inside_text():
    values = IdentifyingValues.build({"name": ["Mary Okafor", "Peter Lindqvist"],
                                      "patient_no": ["1042", "2231", "77"],
                                      "mrn": ["MRN-00981", "MRN-00982"]})
    assert values.numbers == {"1042", "2231"}  # shorter than 3 characters: left out
    text = "Okafor (MRN-00981) called; chart 1042 and 2231, BP 120/80"
    found = kinds(text, values, own={"1042"})
    assert ("NAME", "Okafor") in found and ("ID", "MRN-00981") in found
    assert ("ID", "1042") in found
    assert ("ID", "2231") not in found  # another row's number: not this row's own
    # names case-insensitively, whole tokens only
    assert kinds("mary okafor called", values) == [("NAME", "mary okafor")]
    assert kinds("Okaforian tea", values) == []
    # a number alone in a cell is no free text: not looked for
    assert kinds("1042", values, own={"1042"}) == []


def test_scan_counts_rows_and_first_row_and_scrub_counts():
    dictionary = np.array(["fine", "call 555-301-2299 now", "mail x@example.org",
                           "chart 1042 seen twice"], dtype=object)
    codes = np.array([0, 1, 0, 1, 2, 3, 3, 1])
    ids = np.array(["1042", "1042", "1042", "1042", "1042", "1042", "9999", "1042"],
                   dtype=object)
    values = IdentifyingValues.build({"patient_no": ["1042", "9999"]})
    own = OwnNumbers([(np.arange(len(ids)), ids)])
    found = {f.kind: f for f in scan_column("notes", dictionary, codes, values, own)}
    assert (found["PHONE"].count, found["PHONE"].first_row) == (3, 1)
    assert (found["EMAIL"].count, found["EMAIL"].first_row) == (1, 4)
    assert (found["ID"].count, found["ID"].first_row) == (1, 5)  # row 6 is patient 9999's
    out, replaced = scrub_column(dictionary, codes, values, own)
    assert list(out) == ["fine", "call [PHONE] now", "fine", "call [PHONE] now",
                         "mail [EMAIL]", "chart [ID] seen twice", "chart 1042 seen twice",
                         "call [PHONE] now"]
    assert dict(replaced) == {"PHONE": 3, "EMAIL": 1, "ID": 1}
    assert scrub_text("a b", []) == "a b"


@pytest.mark.parametrize("path", ["adult/adult.csv", "cup/cup.csv",
                                  "highdim/creditcard_int.csv", "highdim/mach2019_int.csv"])
@pytest.mark.parametrize("compiled", [False, True])
def test_no_false_block_on_shared_data(path, compiled, monkeypatch):
    """Nothing found in any column of the shared data sets, through ``find_spans`` per
    value and through the compiled scanner (``engine/identifiers/fast.py``)."""
    from engine.identifiers import fast
    limit = 0 if compiled else 10**9
    monkeypatch.setattr(fast, "FAST_FROM", limit)
    monkeypatch.setattr(fast, "FAST_COLD_FROM", limit)
    file = SHARED / "data" / path
    if not file.exists():
        pytest.skip(f"{file} not there")
    table = read_csv_encoded(file, delimiter=";", encoding="utf-8", header=True)
    for name in table.names:
        col = table.column(name)
        assert scan_column(name, col.dictionary, col.codes) == [], name


def test_release_of_adult_is_not_refused(tmp_path):
    """Adult released through the engine: every column scanned, nothing found."""
    from engine import anonymize
    from engine.export.targets import CsvOptions, FileTarget, write_released
    adult = SHARED / "data" / "adult"
    if not adult.exists():
        pytest.skip("Adult not there")
    frame = pd.read_csv(adult / "adult.csv", sep=";", dtype=str)
    job = {"attributes": {"age": {"type": "quasi-identifying", "hierarchy": str(
        adult / "adult_hierarchy_age.csv")}, "sex": {"type": "quasi-identifying",
        "hierarchy": str(adult / "adult_hierarchy_sex.csv")}},
        "privacy": [{"model": "k-anonymity", "k": 5}]}
    released = anonymize(frame, job).transformed()
    assert released.identifier_findings() == []
    scanned = released.identifier_report()["scanned"]
    assert scanned == [n for n in released.names if not released.is_generalized(n)]
    assert {"race", "education", "occupation", "native-country"} <= set(scanned)
    write_released(released, FileTarget(tmp_path / "a.csv", "csv", CsvOptions(";")))
    assert (tmp_path / "a.csv").exists()


def test_hipaa_and_the_guide_flag_a_notes_column():
    """Analyze risk's identifier list and the guide's proposal see identifiers inside
    free text (the scanner every release runs), not just whole-value patterns."""
    from engine.analysis.hipaa import ACCOUNT, EMAIL, PHONE, detect_identifiers
    from engine.data.table import EncodedTable
    from engine.guide.proposals import propose_attributes
    from tests.clinical_data import clinical
    frame = clinical(patients=80, seed=3).frame[["visit_no", "diagnosis", "notes"]]
    table = EncodedTable.from_dataframe(frame)
    notes = {m.category for m in detect_identifiers(table) if m.attribute == "notes"}
    assert {PHONE, EMAIL, ACCOUNT} <= notes
    assert not [m for m in detect_identifiers(table) if m.attribute == "diagnosis"]
    proposal = {p.attribute: p for p in propose_attributes(table)}["notes"]
    assert proposal.type == "identifying" and "inside their text" in proposal.reason


def test_names_that_are_ordinary_words_count_when_capitalised():
    """A patient named Brown, Will or Li: their name in a note is found when written as
    a name (capitalised), the ordinary word is not."""
    values = IdentifyingValues.build({"name": ["Will Brown", "Mei Li", "Anna White"]})
    assert kinds("Brown called twice; Li too", values) == [("NAME", "Brown"), ("NAME", "Li")]
    assert kinds("brown discharge, will review, white cells low", values) == []
    assert kinds("Seen with Will Brown today", values) == [("NAME", "Will Brown")]
    assert kinds("Mary Brown and Anna White came", values) == [
        ("NAME", "Mary Brown"), ("NAME", "Anna White")]
    # two-letter words are no names even when a name has two letters
    assert kinds("In the morning", IdentifyingValues.build({"name": ["Jo In"]})) == []


@pytest.mark.parametrize("text", ["12345-6789", "V-2023-000123", "Visit V-2023-000123 closed",
                                  "1930-1939", "100000-199999"])
def test_codes_zip4_and_ranges_are_no_phones(text):
    assert kinds(text) == []


@pytest.mark.parametrize("number", ["555-123-4567x890", "001-555-123-4567x123",
                                    "+44(0)1632 960 123", "+1 212 555 0147 ext. 12",
                                    "(555)123-4567", "+1-555-123-4567", "555.123.4567",
                                    "01632 960123", "+33 1 42 68 53 00", "0151/12345678"])
def test_phone_formats_of_data_generators(number):
    """Formats that fake-data generators write (extensions, fictional ranges, 00 and +
    country codes, dots and slashes) are phones."""
    assert kinds(f"Call {number} today.") == [("PHONE", number)]


def test_a_long_text_stays_linear():
    """Thousands of identifiers in one value: overlaps are looked up by bisection, the
    name rules look back a few characters only (no quadratic scan)."""
    sentence = "Seen by Mary Jones at 10:30, BP 120/80, call (212) 555-0147. "
    one = find_spans(sentence)
    many = find_spans(sentence * 3000)
    assert len(many) == 3000 * len(one) == 6000


def test_the_prefilter_lets_every_identifier_through():
    """The Arrow pre-filter is a superset of the checks: every value in which
    ``find_spans`` finds anything is a candidate (generated notes, hand-written
    sentences in other formats, the shared data, random text of digits, separators and
    words)."""
    import random

    from engine.identifiers.prefilter import candidates
    from tests.benchmarks.bench_identifiers import CLEAN, HARD
    from tests.clinical_data import clinical
    t = clinical(patients=150, seed=21)
    values = IdentifyingValues.build({"name": t.frame["name"].unique(),
                                      "patient_no": t.frame["patient_no"].unique(),
                                      "mrn": ["MRN-00981", "K-77a"]})
    rng = random.Random(5)
    alphabet = list("0123456789 ().-/+:@x") + ["Mary ", "Okafor", "Dr. ", "Li ", "MRN-00981",
                                                "2019-05-03", "10:30", "DE89", " www.", "’"]
    noise = ["".join(rng.choice(alphabet) for _ in range(rng.randint(3, 30)))
             for _ in range(3000)]
    texts = (list(t.frame["notes"]) + [s for _, _, s in HARD] + CLEAN + noise
             + ["", "Chart 100833 seen", "O'Neill's", "x-mary-jane--y"])
    for path in ("adult/adult.csv", "cup/cup.csv"):
        file = SHARED / "data" / path
        if file.exists():
            table = read_csv_encoded(file, delimiter=";", encoding="utf-8", header=True)
            texts += [str(v) for n in table.names for v in table.column(n).dictionary]
    own = set(t.frame["patient_no"])
    mask = candidates(texts, values)
    missed = [x for x, m in zip(texts, mask) if not m and (
        find_spans(x, values) or find_spans(x, values, own))]
    assert not missed, missed[:5]
    assert not mask.all()  # it does leave values out
