"""The fast paths of the identifier scan (engine/identifiers/scan.py) find exactly what
the plain path finds: ``find_spans`` on each row's value with the row's own numbers.

The compiled scanner (``fast.find_all``: numba kernels reproducing each pattern and name
rule on ASCII text, the other values handed to ``find_spans``) takes many values at
once; a few values are screened in C++ (``prefilter.screen``: which values may hold
anything, and what each cannot hold, so that ``find_spans`` skips those patterns and
name rules); both reuse a value's spans for the rows whose own number it holds
(``with_own``). Here each is compared with ``find_spans`` on the benchmark's generated
notes, hand-written sentences in other formats, clean clinical sentences and random
text of digits, separators, names, titles, places, e-mail addresses, IBANs, dates and
times, codes and non-ASCII letters, digits and marks."""
from __future__ import annotations

import random
from collections import Counter

import numpy as np
import pytest

from engine.identifiers import IdentifyingValues, fast, find_spans, scrub_text, with_own
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


#: pieces of random text for the compiled scanner's edge cases: each rule's context
#: (look-behinds, word ends, a newline before ``$``), overlaps of patterns and names
EDGES = ["a@b.cc", "x.y+z@mail.example.org", ".de", "@", "a@b.c1.de-", "DE89 3704 0044 0532 0130 00",
         "GB29NWBK60161331926819", "FR14 2004 1010 0505 0001 3M02 606", "555-123-4567",
         "(212) 555-0147", "+49 30 1234567", "0044 20 7946 0018", "4111 1111 1111 1111",
         "378282246310005", "943 476 5919", "NHS ", "123456782", "86095742719", " x12",
         " ext. 45", "#9", "2019-05-03", "3/4/21", "10:30:15", "12:3", "Dr. ", "Mrs ", "M. ",
         "Prof ", "O'", "Mc", "Mac", "van ", "de ", "St ", "Saint ", " Road", "'s ",
         " Hospital", "Smith, ", "Mary ", "Hale", "Kevin", "Marsh", "John ", "Patricia",
         "JONES", "Will ", "Brown", "Li ", "The ", "-", "'", ",", " ", "\t", "\n", "\r",
         "\x1c", ".", "(", ")", "/", "_", "x", "\x01", "\x00", "12.34.56", "a:b"]
#: and what hands a value over to ``find_spans``
HANDED = ["é", "Ä", "ß", "’", "\u0301", "٣", "192.168.0.1", "fe80::1", "://", "www.",
          "078-05-1120", "K-77a", "MRN-00981"]


def _random_texts(seed: int, n: int, extra: list[str]) -> list[str]:
    """Half of them from the kernels' edge cases alone, half with what hands over."""
    rng = random.Random(seed)
    pieces = EDGES + list("0123456789 ().-/+:@#x") + extra
    return ["".join(rng.choice(pieces + (HANDED if i % 2 else []))
                    for _ in range(rng.randint(0, 30))) for i in range(n)]


@pytest.mark.parametrize("chunk", [None, 4096])
def test_compiled_scanner_equals_find_spans(corpus, chunk, monkeypatch):
    """``fast.find_all`` gives each value ``find_spans``'s spans (start, end, kind), its
    scrubbed text and its identifying numbers, on the notes, the hand-written sentences
    and random text built from every rule's edge cases; most values are the kernels'
    (ASCII), the others handed over. In one chunk and in many (threads)."""
    if chunk:
        monkeypatch.setattr(fast, "CHUNK_CHARS", chunk)
    texts, values, numbers = corpus
    texts = texts + _random_texts(11, 6000, [f" {n} " for n in numbers[:30]] + ["Okafor"])
    found = fast.find_all(texts, values, True)
    differ = []
    for i, t in enumerate(texts):
        ref = find_spans(t, values)
        got = found.spans(i)
        if [(s.start, s.end, s.kind) for s in ref] != [(s.start, s.end, s.kind) for s in got] \
                or (ref and found.scrub(i, t) != scrub_text(t, ref)) \
                or values.candidate_numbers(t) != found.numbers.get(i, frozenset()):
            differ.append(t)
    assert not differ, differ[:5]
    assert found.handed < 0.6 * len(texts)  # most values are the kernels'
    assert found.handed > 1000  # and others (not ASCII, URLs, IPs...) handed over
    assert len(found.value) > 5000  # it does find


def test_compiled_scanner_on_long_values_dense_with_spans(corpus):
    """Values of thousands of spans each (the kernels size their arrays by the text:
    the densest cases of each kind), a long value among short ones, equal to
    ``find_spans``."""
    texts, values, numbers = corpus
    own = numbers[0]
    long_ = ["Okafor.Okafor." * 3000, "Li.Li." * 1000, "a@b.cc " * 2000, "Mary Okafor, " * 1500,
             "(212) 555-0147 " * 1500, f"{own} x " * 2000, "Dr. Hale " * 1500,
             "DE89 3704 0044 0532 0130 00 " * 500, "Kevin Marsh Kevin Marsh " * 1000]
    texts = long_ + texts[:50]
    found = fast.find_all(texts, values, True)
    for i, t in enumerate(texts):
        ref = find_spans(t, values)
        assert [(s.start, s.end, s.kind) for s in ref] == \
            [(s.start, s.end, s.kind) for s in found.spans(i)], t[:40]
        assert found.scrub(i, t) == scrub_text(t, ref)
        assert values.candidate_numbers(t) == found.numbers.get(i, frozenset())
    assert found.handed == 0 and len(found.value) > 5000


def test_compiled_scanner_without_values():
    """With no identifying values (a scan before a job has any): the patterns and the
    listed names alone, as ``find_spans(text)``."""
    texts = _random_texts(5, 3000, [])
    found = fast.find_all(texts, None)
    for i, t in enumerate(texts):
        assert [(s.start, s.end, s.kind) for s in find_spans(t)] == \
            [(s.start, s.end, s.kind) for s in found.spans(i)], t


@pytest.mark.parametrize("how", ["compiled", "screened"])
def test_scrub_and_scan_equal_the_plain_path(corpus, how, monkeypatch):
    """Each row scrubbed as ``find_spans`` with the row's own numbers scrubs it, the
    replacements and the findings counted the same (rows repeat values, and each row has
    an own number: the notes' patients, the others a random one), through the compiled
    scanner and through the screen with ``find_spans`` per value."""
    monkeypatch.setattr(fast, "FAST_FROM", 0 if how == "compiled" else 10**9)
    monkeypatch.setattr(fast, "FAST_COLD_FROM", 0 if how == "compiled" else 10**9)
    texts, values, numbers = corpus
    texts = texts + _random_texts(13, 1000, [f" {n} " for n in numbers[:30]])
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


def test_nulls_and_empty_values_scrubbed_alike(corpus, monkeypatch):
    """A column holding nulls and empty strings: the same scrubbed column and counts
    through the compiled scanner as through ``find_spans`` per value (nulls stay
    nulls)."""
    texts, values, numbers = corpus
    dictionary = np.empty(len(texts) + 2, dtype=object)
    dictionary[:] = [None, ""] + texts
    codes = np.arange(len(dictionary)).repeat(2)
    results = []
    for limit in (0, 10**9):
        monkeypatch.setattr(fast, "FAST_FROM", limit)
        monkeypatch.setattr(fast, "FAST_COLD_FROM", limit)
        results.append(scrub_column(dictionary, codes, values))
    (a, ca), (b, cb) = results
    assert list(a) == list(b) and ca == cb
    assert a[0] is None and a[2] == "" and sum(ca.values()) > 1000


def test_what_the_screen_rules_out_is_not_there(corpus):
    """``find_spans`` told what a value cannot hold finds what it finds untold, and the
    screen does rule things out (else it would gain nothing); on the random edge cases
    too (a time then a date, "1:12:33/4/21 100014": the screen once masked the date
    Python does not, and ruled out the telephone number after it)."""
    texts, values, numbers = corpus
    texts = texts + _random_texts(17, 4000, [f" {n} " for n in numbers[:30]]) + \
        ["fe80::1:12:33/4/21 100014 ", "at 1:12:33/4/21 100014 today"]
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


def _numbers(rng: random.Random, n: int) -> list[str]:
    """Telephone-like runs: the generated notes' formats, and random runs of 7 to 15
    digits, plain or grouped, with and without a country code (+CC, 00CC)."""
    from tests.clinical_data import phone
    out = [phone(rng) for _ in range(n // 3)]
    for _ in range(n - len(out)):
        digits = "".join(rng.choice("0123456789") for _ in range(rng.randint(7, 15)))
        if rng.random() < 0.5:
            digits = rng.choice("0123456789" if rng.random() < 0.3 else "0") + digits[1:]
        sep = rng.choice(["", " ", "-", ".", "/"])
        cut = sorted(rng.sample(range(1, len(digits)), min(2, len(digits) - 1)))
        text = sep.join([digits[:cut[0]], digits[cut[0]:cut[-1]], digits[cut[-1]:]]) \
            if sep else digits
        prefix = rng.choice(["", "", "", "+", "00", "+1 ", "+49 ", "+44 ", "+31 ", "+33 ",
                             "(0", "0"])
        text = prefix + text
        out.append(text)
    return out


@pytest.mark.parametrize("seed", [1, 2])
def test_is_phone_agrees_with_phone_ok(seed):
    """The compiled scanner's telephone test (`is_phone`: the regions of a number
    without its country code in the order of the last found) says a number where
    `phone_ok` (the regions in their fixed order) gives a region, and only there,
    whatever order the numbers come in."""
    from engine.identifiers import patterns
    rng = random.Random(seed)
    numbers = _numbers(rng, 3000)
    rng.shuffle(numbers)
    patterns.is_phone.cache_clear()
    found = Counter()
    for number in numbers:
        for in_text in (True, False):
            want = patterns.phone_ok(number, in_text)
            got = patterns.is_phone(number, in_text)
            assert (got is None) == (want is None), (number, in_text, want, patterns._LATEST)
            found[want is not None and want[0] != "+" and want] += 1
    # the run covers numbers valid in several regions without their country code, and
    # numbers valid nowhere: the order moved and was tested both ways
    assert found[False] > 100 and len([k for k in found if k]) >= 3, found


def test_batches_reach_the_compiled_scanner_together(corpus, monkeypatch):
    """A process without the kernels loaded (``anonymist verify``) scans a large file in
    batches each under ``FAST_COLD_FROM`` values that may hold something: once their
    sum reaches it, the later batches go to the compiled scanner (a 300,000-row release
    sent 115,000 values through ``find_spans`` in batches of under 20,000), and every
    batch finds what ``find_spans`` finds."""
    texts, values, _ = corpus
    monkeypatch.setattr(fast, "FAST_FROM", 10**9)  # as if numba were not loaded
    monkeypatch.setattr(fast, "FAST_COLD_FROM", 300)
    monkeypatch.setattr(fast, "_COLD_PASSED", [0])
    compiled = []
    find_all = fast.find_all
    monkeypatch.setattr(fast, "find_all",
                        lambda t, *a, **k: compiled.append(len(t)) or find_all(t, *a, **k))
    batches = [texts[i:i + 200] for i in range(0, 1000, 200)]
    for batch in batches:
        found = fast.find_values(batch, values)
        for i, t in enumerate(batch):
            assert [(s.start, s.end, s.kind) for s in found.spans(i)] == \
                [(s.start, s.end, s.kind) for s in find_spans(t, values)], t
    assert fast._COLD_PASSED[0] >= 300
    assert 0 < len(compiled) < len(batches)  # the first batch screened, the last compiled


def _checked_runs(rng: random.Random, n: int) -> list[str]:
    """Runs of digits that pass the checks of `digit_run_kind`: payment cards (Luhn),
    NHS numbers (mod 11), BSNs (11-proof), Steuer-IDs (ISO 7064), in the groupings
    the patterns allow, with near misses (one digit changed)."""
    def digits(k, first="0123456789"):
        return rng.choice(first) + "".join(rng.choice("0123456789") for _ in range(k - 1))

    def card():
        body = digits(rng.randint(12, 18), "23456")
        total = sum((2 * int(d) - 9 if 2 * int(d) > 9 else 2 * int(d)) if i % 2 == 0
                    else int(d) for i, d in enumerate(reversed(body)))
        return body + str(-total % 10)

    def nhs():
        while True:
            body = digits(9)
            check = 11 - sum(int(d) * (10 - i) for i, d in enumerate(body)) % 11
            check = 0 if check == 11 else check
            if check != 10:
                return body + str(check)

    def bsn():
        while True:
            body = digits(8, "123456789")
            last = sum(int(d) * (9 - i) for i, d in enumerate(body)) % 11
            if last < 10:
                return body + str(last)

    def steuer():
        while True:
            ten = list(digits(10, "123456789"))
            ten[rng.randrange(1, 10)] = ten[rng.randrange(0, 10)]
            if sorted(ten.count(d) for d in set(ten))[-2:] not in ([1, 2], [1, 3]):
                continue
            product = 10
            for d in ten:
                total = (int(d) + product) % 10
                product = (total or 10) * 2 % 11
            check = 11 - product
            return "".join(ten) + str(0 if check == 10 else check)

    out = []
    for _ in range(n):
        run = rng.choice([card, nhs, bsn, steuer])()
        if rng.random() < 0.2:  # a near miss
            i = rng.randrange(len(run))
            run = run[:i] + rng.choice("0123456789") + run[i + 1:]
        if rng.random() < 0.4 and len(run) >= 10:  # grouped: 3 3 4, or by fours
            sep = rng.choice([" ", "-", ".", "/"])
            run = sep.join([run[:3], run[3:6], run[6:]]) if rng.random() < 0.5 else \
                sep.join(run[i:i + 4] for i in range(0, len(run), 4))
        out.append(run)
    return out


def _python_runs(text: str):
    """The runs of digits ``pattern_spans`` hands to ``digit_run_kind`` in ``text``:
    (start, end, run, in_text)."""
    from engine.identifiers import patterns as P
    masked = P._DATE_TIME.sub(P._mask, text) if P._DATE_HINT.search(text) else text
    in_text = P._LETTERS.search(text) is not None
    for m in P._DIGIT_RUN.finditer(masked):
        run, start = m.group(), m.start()
        if run.startswith("(") and ")" not in run:
            run, start = run[1:], start + 1
        yield start, start + len(run), run, in_text


@pytest.mark.parametrize("seed", [3, 4])
def test_kernel_decides_runs_as_digit_run_kind(seed, monkeypatch):
    """The runs of digits the kernel decides itself (`fast._run_code`: cards, national
    numbers, a North American shape, nothing) are what ``digit_run_kind`` says of
    them without asking ``phonenumbers``; the runs it leaves for the library are the
    ones ``patterns._phone`` asks it about, and each is what ``digit_run_kind`` says
    when the library says yes and when it says no; a run that may end in an
    extension is left to ``digit_run_kind`` whole. On telephone-like runs, checked
    numbers and their near misses, dates, decimals, ZIP+4 codes and ranges, bare and
    in text, after "NHS" and not."""
    from engine.identifiers import patterns as P
    rng = random.Random(seed)
    runs = _numbers(rng, 1500) + _checked_runs(rng, 1500) + [
        "2019-05-03", "12/05/2019 1234567", "12.345.678", "1234.5678", "90210-1234",
        "1930-1939", "1939 - 1930", "555.123.4567", "+1 (212) 555-0147", "1-212-555-0147",
        "(0)30 1234567", "0044 20 7946 0018", "2125550147 x12", "212-555-0147 ext. 5",
        "12345678901234567", "943 476 5919", "943-476-5919"]
    before = ["Call ", "NHS no. ", "nhs:", "xNHS ", "Nhs_ ", "NHS" + " " * 21,  # (the last
              "NHS" + " " * 22, "", "12 ", "(", "+"]  # in reach of the look back, not this)
    extensions = [""] * 8 + [" x12", "x7", " ext. 45", "ext 3", "#9", " # 123456"]
    texts = [rng.choice(before) + r + rng.choice(extensions)
             + rng.choice(["", " today", ".", ", thanks"]) for r in runs]
    chunk = fast._Chunk(texts, 0, len(texts), None, False)
    chunk.patterns()
    handed, in_text, sv, ss, se, sk, dv, ds, de, dk = chunk.found[:10]
    offs = chunk.offs.tolist()
    decided = {(v, s - offs[v], e - offs[v]): fast.KINDS[k] for v, s, e, k in
               zip(sv.tolist(), ss.tolist(), se.tolist(), sk.tolist())}
    left = {(v, s - offs[v], e - offs[v]): c for v, s, e, c in
            zip(dv.tolist(), ds.tolist(), de.tolist(), dk.tolist())}
    answer, asked = [None], []

    def library(candidate, international, regions, judged=None):
        asked.append(candidate)
        return answer[0]

    monkeypatch.setattr(P, "_asked", library)

    def kind(text, run, start, in_text_):
        found = P.digit_run_kind(text, run, start, in_text_,
                                 lambda r, i: P._phone(r, i, P.REGIONS))
        return None if found is None else found[0]

    seen = Counter()
    for v, text in enumerate(texts):
        if handed[v]:
            continue
        python = set()
        for s, e, run, in_text_ in _python_runs(text):
            python.add((v, s, e))
            del asked[:]
            answer[0] = None
            no = kind(text, run, s, in_text_)
            was_asked = bool(asked)
            answer[0] = "DE"
            yes = kind(text, run, s, in_text_)
            key = (v, s, e)
            if left.get(key) == fast.RUN_PYTHON:
                assert any(c in run for c in "xe#"), run
                seen["python"] += 1
            elif no != yes:  # the library's answer decides
                assert was_asked and yes == "PHONE"
                assert left.get(key) == (fast.RUN_ASK_NHS if no == "ID" else fast.RUN_ASK), \
                    (text, run, no, left.get(key))
                seen["ask", no] += 1
            else:  # (asked or not: a North American shape with +1 is a number anyway)
                assert decided.get(key) == no and key not in left, \
                    (text, run, no, decided.get(key), left.get(key))
                seen[no] += 1
                seen["asked, either way"] += was_asked
        kernel = {k for k in list(decided) + list(left) if k[0] == v}
        assert kernel <= python, (text, kernel - python)
    for what in ("python", ("ask", None), ("ask", "ID"), None, "PHONE", "CARD", "ID",
                 "asked, either way"):
        assert seen[what] > 5, (what, seen)


#: pieces where the one pass of the kernel passes over the inside of words and runs of
#: digits: a URL's www. at a word's end (any case), words and runs touching each other
#: and underscores, IPv4 addresses and dates against letters, titles and names inside
#: words, codes split by dots and hyphens
WORD_EDGES = ["www.", "wWw.", "WWW.", "aww.", "ww", "w", "W", "wx", "1.2.3.4", "12.34.56.78.",
              "a1.2.3.4", "x", "_", "a_b", "1_2", "Dr", "Mr.", "Mrs ", "MaryJones", "Mary",
              "Okafor", "okafor", "DE89", "DE89370400440532013000", "2019-05-03", "10:30",
              "100833", "a100833", "100833b", "K-77a", "k-77A", "MRN-00981.", "ab.cd-12",
              "(212) 555-0147", "+49 30 1234567", "943 476 5919", "NHS ", "::", "a:b:c",
              "fe:", "@", "x@y.zz", " ", " ", ".", "-", "'", ",", "\n", "9", "99", "999"]


@pytest.mark.parametrize("seed", [21, 22])
def test_compiled_scanner_on_word_edges(corpus, seed):
    """``fast.find_all`` equals ``find_spans`` on random text of `WORD_EDGES` (with the
    job's values: names, numbers and codes); half of it without what hands a value
    over to ``find_spans``."""
    texts, values, numbers = corpus
    rng = random.Random(seed)
    pieces = WORD_EDGES + [f"{n}" for n in numbers[:10]]
    kept = [p for p in pieces if p not in ("www.", "WWW.", "1.2.3.4", "12.34.56.78.",
                                           "a1.2.3.4", "K-77a", "k-77A", "MRN-00981.",
                                           "ab.cd-12", "::", "a:b:c", "fe:")]
    texts = ["".join(rng.choice(pieces if i % 2 else kept) for _ in range(rng.randint(0, 25)))
             for i in range(6000)]
    found = fast.find_all(texts, values, True)
    differ = []
    for i, t in enumerate(texts):
        ref = find_spans(t, values)
        if [(s.start, s.end, s.kind) for s in ref] != \
                [(s.start, s.end, s.kind) for s in found.spans(i)] \
                or (ref and found.scrub(i, t) != scrub_text(t, ref)) \
                or values.candidate_numbers(t) != found.numbers.get(i, frozenset()):
            differ.append(t)
    assert not differ, differ[:5]
    assert found.handed < 0.6 * len(texts) and len(found.value) > 3000
