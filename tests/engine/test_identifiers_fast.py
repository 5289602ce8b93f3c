"""The fast path of the identifier scan (engine/identifiers/scan.py) finds exactly what
the plain path finds: ``find_spans`` on each row's value with the row's own numbers.

The fast path screens all distinct values at once in C++ (``prefilter.screen``: which
values may hold anything, and what each cannot hold, so that ``find_spans`` skips those
patterns and name rules), and reuses a value's spans for the rows whose own number it
holds (``with_own``). Here both are compared on the benchmark's generated notes,
hand-written sentences in other formats, clean clinical sentences and random text of
digits, separators, names, codes and non-ASCII letters, digits and marks."""
from __future__ import annotations

import random
from collections import Counter

import numpy as np
import pytest

from engine.identifiers import IdentifyingValues, find_spans, scrub_text, with_own
from engine.identifiers.patterns import NO_CODES, NO_DIGIT_RUN, NO_GIVEN, NO_IBAN, NO_SSN
from engine.identifiers.prefilter import screen
from engine.identifiers.scan import OwnNumbers, scan_column, scrub_column
from tests.benchmarks.bench_identifiers import CLEAN, HARD
from tests.clinical_data import clinical


@pytest.fixture(scope="module")
def corpus():
    t = clinical(patients=400, seed=31)
    frame = t.frame
    values = IdentifyingValues.build({
        "name": frame["name"].unique(), "patient_no": frame["patient_no"].unique(),
        "mrn": ["MRN-00981", "K-77a", "ab.cd-12"]})
    rng = random.Random(7)
    alphabet = (list("0123456789 ().-/+:@x") +
                ["Mary ", "Okafor", "Dr. ", "Li ", "MRN-00981", "K-77a ", "2019-05-03",
                 "10:30", "DE89", " www.", "’", "--", "O'", "é", "Ä", "\u0301", "٣", "İ", "Ⅻ", "²", "_",
                 "١٢٣-٤٥-٦٧٨٩", "12.34.56.78", "fe80::1", "St ", " Road", "Smith, ", "\n"]
                + [f" {n} " for n in rng.sample(list(frame["patient_no"]), 20)])
    noise = ["".join(rng.choice(alphabet) for _ in range(rng.randint(3, 40)))
             for _ in range(3000)]
    texts = (list(frame["notes"]) + [s for _, _, s in HARD] + CLEAN + noise
             + ["", "Chart 100833 seen", "K-77a 100833 seen today", "MRN-00981, Mary"])
    return texts, values, list(frame["patient_no"])


def test_scrub_and_scan_equal_the_plain_path(corpus):
    """Each row scrubbed as ``find_spans`` with the row's own numbers scrubs it, the
    replacements and the findings counted the same (rows repeat values, and each row has
    an own number: the notes' patients, the others a random one)."""
    texts, values, numbers = corpus
    rng = random.Random(3)
    rows = texts + rng.sample(texts, 2000)  # values repeat across rows
    own = [numbers[i] if i < len(numbers) else rng.choice(numbers) for i in range(len(rows))]
    uniques, codes = np.unique(np.asarray(rows, dtype=object), return_inverse=True)
    own_uniques, own_codes = np.unique(np.asarray(own, dtype=object), return_inverse=True)
    owns = OwnNumbers([(own_codes, own_uniques.astype(object))])
    out, replaced = scrub_column(uniques.astype(object), codes, values, owns)
    plain = [find_spans(t, values, {o}) for t, o in zip(rows, own)]
    assert list(out) == [scrub_text(t, s) for t, s in zip(rows, plain)]
    assert replaced == Counter(s.kind for spans in plain for s in spans)
    assert sum(replaced.values()) > 3000  # it does find (every kind of the notes)
    found = {f.kind: (f.count, f.first_row)
             for f in scan_column("notes", uniques.astype(object), codes, values, owns)}
    kinds = {k for spans in plain for k in {s.kind for s in spans}}
    assert set(found) == kinds
    for kind in kinds:
        hit = [r for r, spans in enumerate(plain) if any(s.kind == kind for s in spans)]
        assert found[kind] == (len(hit), hit[0]), kind


def test_what_the_screen_rules_out_is_not_there(corpus):
    """``find_spans`` told what a value cannot hold finds what it finds untold, and the
    screen does rule things out (else it would gain nothing)."""
    texts, values, numbers = corpus
    may, absent = screen(texts, values)
    differ = [t for t, m, a in zip(texts, may, absent.tolist())
              if m and find_spans(t, values, absent=a) != find_spans(t, values)]
    assert not differ, differ[:5]
    kept = absent[may]
    for bit in (NO_IBAN, NO_SSN, NO_DIGIT_RUN, NO_GIVEN, NO_CODES):
        assert (kept & bit).any() and not (kept & bit).all(), bit


def test_own_numbers_added_to_a_value_spans_equal_a_new_search(corpus):
    texts, values, numbers = corpus
    mine = set(numbers[:50]) | {"100833", "981", "12"}
    values = IdentifyingValues.build({"name": ["Mary Okafor"],
                                      "patient_no": sorted(mine),
                                      "mrn": ["MRN-00981", "K-77a"]})
    checked = 0
    for t in texts:
        own = {w for w in mine if w in t}
        if own:
            checked += 1
            assert with_own(t, find_spans(t, values), values, own) == \
                find_spans(t, values, own), t
    assert checked > 100
