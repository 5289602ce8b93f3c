"""The vectorized CSV writer (engine/data/csv_encoded.py) writes the bytes pandas'
``DataFrame.astype(str).to_csv`` writes (engine.export.targets.write_table): on awkward
values under every quoting, line ending, delimiter and encoding, and on real releases
(suppression, removed and pseudonymized identifiers, microaggregation, coding rules,
local recoding)."""
from __future__ import annotations

import shutil
from dataclasses import dataclass

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.hypothesis_profiles import examples

import engine
from engine.errors import Cancelled, DataError
from engine.export.targets import CsvOptions, file_target, write_released, write_table
from tests.engine.conftest import ADULT, adult_job_text


@dataclass
class Encoded:
    """A table of codes and labels standing in for a ReleasedTable."""

    names: list[str]
    codes: list[np.ndarray]
    labels: list[np.ndarray]

    @property
    def n_rows(self) -> int:
        return len(self.codes[0])

    @property
    def frame(self) -> pd.DataFrame:
        return pd.DataFrame({n: lab[c] for n, c, lab in zip(self.names, self.codes, self.labels)})

    def csv_column(self, name):
        from engine.data.csv_encoded import as_text
        j = self.names.index(name)
        return self.codes[j], as_text(self.labels[j])

    def check_identifiers(self) -> None:
        """A ReleasedTable refuses identifiers in its verbatim columns before it is
        written; these tables (awkward text, random values) are about CSV bytes and have
        no job whose columns are scanned (tests/engine/test_identifiers.py scans)."""


def both(tmp_path, table, options: CsvOptions, **target) -> tuple[bytes, bytes]:
    """(pandas' bytes, the vectorized writer's bytes) of ``table``."""
    old, new = tmp_path / "old.csv", tmp_path / "new.csv"
    write_table(table.frame, file_target(old, options, **target))
    write_released(table, file_target(new, options, **target))
    return old.read_bytes(), new.read_bytes()


AWKWARD = ["", " ", "a", "a;b", 'say "hi"', '"', "line\nbreak", "cr\rlf", "tab\tx", "é ü ß",
           "€5", "x,y", "'single'", " lead", "trail ", "*", "NA", "1.50", "|", '";"']
OPTIONS = [CsvOptions(), CsvOptions(delimiter=","), CsvOptions(delimiter="\t"),
           CsvOptions(quoting="all"), CsvOptions(quoting="nonnumeric", line_ending="crlf"),
           CsvOptions(quotechar="'", delimiter="|"), CsvOptions(encoding="cp1252"),
           CsvOptions(encoding="latin-1", line_ending="crlf")]


@pytest.mark.parametrize("options", OPTIONS, ids=lambda o: f"{o.delimiter!r}-{o.quoting}-"
                         f"{o.quotechar}-{o.encoding}-{o.line_ending}")
def test_awkward_values_are_written_as_pandas_writes_them(tmp_path, options):
    labels = [v for v in AWKWARD if options.encoding == "utf-8" or "€" not in v or
              options.encoding == "cp1252"]
    labels = np.asarray(labels, dtype=object)
    rng = np.random.default_rng(7)
    codes = [rng.integers(0, len(labels), 500).astype(np.int32) for _ in range(3)]
    table = Encoded(["plain", 'odd "name"', "last;col"], codes, [labels] * 3)
    old, new = both(tmp_path, table, options)
    assert new == old


@settings(deadline=None, max_examples=examples(60))
@given(st.lists(st.text(st.sampled_from('ab;,"\'\n\r\t é€'), max_size=6), min_size=1,
                max_size=8, unique=True),
       st.integers(2, 4), st.integers(0, 40), st.sampled_from(OPTIONS[:6]),
       st.integers(1, 7))
def test_random_tables_are_written_as_pandas_writes_them(tmp_path_factory, labels, width, rows,
                                                         options, chunk):
    tmp = tmp_path_factory.mktemp("csv")
    rng = np.random.default_rng(len(labels) * 100 + rows)
    labels = np.asarray(labels, dtype=object)
    codes = [rng.integers(0, len(labels), rows).astype(np.uint8) for _ in range(width)]
    table = Encoded([f"c{j}" for j in range(width)], codes, [labels] * width)
    old, new = both(tmp, table, options, batch_rows=chunk)
    assert new == old


class Items(Encoded):
    """Columns given per item (``(rows, codes)``) for the columns in ``per_item``."""

    def __init__(self, names, codes, labels, rows, per_item):
        super().__init__(names, codes, labels)
        self.rows, self.per_item = rows, per_item

    def csv_column(self, name):
        codes, text = super().csv_column(name)
        if name not in self.per_item:
            return codes, text
        j = self.names.index(name)
        return (self.rows, self.item_codes[j]), text

    @property
    def frame(self):
        return pd.DataFrame({n: lab[self.item_codes[j][self.rows]] if n in self.per_item
                             else lab[self.codes[j]]
                             for j, (n, lab) in enumerate(zip(self.names, self.labels))})


@pytest.mark.parametrize("per_item", [["a", "b"], ["a", "c"], ["a", "b", "c", "d"], ["d"]])
def test_columns_given_per_item_are_written_alike(tmp_path, per_item):
    """Runs of consecutive per-item columns are joined per item, then per row."""
    labels = np.asarray(AWKWARD, dtype=object)
    rng = np.random.default_rng(3)
    rows = rng.integers(0, 40, 700)
    table = Items(list("abcd"), [rng.integers(0, len(labels), 700) for _ in range(4)],
                  [labels] * 4, rows, per_item)
    table.item_codes = [rng.integers(0, len(labels), 40) for _ in range(4)]
    for options in (CsvOptions(), CsvOptions(quoting="all", line_ending="crlf")):
        old, new = both(tmp_path, table, options, batch_rows=64)
        assert new == old


def test_unwritable_text_and_unquoted_delimiters_are_refused_like_pandas(tmp_path):
    table = Encoded(["a", "b"], [np.array([0, 1]), np.array([1, 0])],
                    [np.array(["x", "€ 5"], dtype=object)] * 2)
    with pytest.raises(DataError, match=r"'€' cannot be written in latin-1"):
        write_released(table, file_target(tmp_path / "x.csv", CsvOptions(encoding="latin-1")))
    table.labels = [np.array(["x", "a;b"], dtype=object)] * 2
    with pytest.raises(DataError, match="need to escape"):
        write_released(table, file_target(tmp_path / "x.csv", CsvOptions(quoting="none")))
    assert not list(tmp_path.iterdir())  # nothing left behind


def test_progress_and_cancel(tmp_path):
    labels = np.array(["a", "b"], dtype=object)
    table = Encoded(["a", "b"], [np.zeros(25, np.int32), np.ones(25, np.int32)], [labels] * 2)
    seen = []
    write_released(table, file_target(tmp_path / "p.csv", batch_rows=10),
                   lambda done, total: seen.append((done, total)))
    assert seen == [(10, 25), (20, 25), (25, 25)]
    with pytest.raises(Cancelled):
        write_released(table, file_target(tmp_path / "c.csv", batch_rows=10),
                       cancel=lambda: True)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["p.csv"]


def test_utf16_and_one_column_tables_go_through_pandas(tmp_path):
    labels = np.array(["", "x"], dtype=object)
    one = Encoded(["a"], [np.array([0, 1, 0])], [labels])
    old, new = both(tmp_path, one, CsvOptions())
    assert new == old and new.startswith(b'a\n""\n')
    two = Encoded(["a", "b"], [np.array([0, 1]), np.array([1, 1])], [labels] * 2)
    old, new = both(tmp_path, two, CsvOptions(encoding="utf-16"))
    assert new == old


# --- real releases: write_released against write_table of the released DataFrame ---------
def release_bytes(tmp_path, result, options=CsvOptions()) -> tuple[bytes, bytes]:
    released = result.transformed()
    old, new = tmp_path / "old.csv", tmp_path / "new.csv"
    write_table(released.frame, file_target(old, options))
    write_released(released, file_target(new, options))
    return old.read_bytes(), new.read_bytes()


@pytest.fixture(scope="module")
def adult_folder(tmp_path_factory):
    folder = tmp_path_factory.mktemp("adult")
    for f in ADULT.glob("adult_hierarchy_*.csv"):
        shutil.copy(f, folder / f.name)
    frame = pd.read_csv(ADULT / "adult.csv", sep=";", dtype=str,
                        keep_default_na=False).head(3000)
    frame.insert(0, "name", [f"Person {i % 2900}" for i in range(len(frame))])
    frame.insert(1, "phone", [f"+41 79 {i:07d}" for i in range(len(frame))])
    frame.to_csv(folder / "people.csv", sep=";", index=False)
    return folder


QIS = ["sex", "age", "race", "marital-status"]


@pytest.mark.parametrize("identifiers", ["removed", "pseudonyms"])
def test_adult_release_with_suppression_and_identifiers(adult_folder, tmp_path, identifiers):
    text = adult_job_text(qis=QIS, data="people.csv", limit=0.04)
    if identifiers == "removed":  # a phone column released as it is would be refused
        text += ('\n[attributes."name"]\ntype = "identifying"\n'
                 '\n[attributes."phone"]\ntype = "identifying"\n')
    else:
        text += ('\n[attributes."phone"]\ntype = "identifying"\npseudonymize = "mask"\n'
                 'keep = 3\n')
    (adult_folder / "job.toml").write_text(text)
    result = engine.anonymize(None, adult_folder / "job.toml")
    assert result.optimum.suppressed_records > 0
    for options in (CsvOptions(), CsvOptions(delimiter=",", quoting="all", line_ending="crlf")):
        old, new = release_bytes(tmp_path, result, options)
        assert new == old
    assert b"name" not in new.split(b"\n")[0] if identifiers == "removed" else True


def test_microaggregation_and_coding_rules(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "sex.csv").write_text("m;*\nf;*\n")
    data = pd.DataFrame({"sex": ["m", "m", "m", "f", "f", "f"] * 3,
                         "age": ["15", "30", "95", "50", "70", "17"] * 3,
                         "income": ["10", "20", "999", "30", "40", "50"] * 3,
                         "disease": ["a", "b", "c", "a", "b", "c"] * 3})
    job = {"attributes": {
        "sex": {"type": "quasi-identifying", "hierarchy": "sex.csv"},
        "age": {"type": "quasi-identifying", "transformation": "microaggregation",
                "function": "arithmetic-mean"},
        "income": {"type": "insensitive", "transformation": "top-bottom-coding", "top": 100},
        "disease": {"type": "sensitive"}},
        "privacy": [{"model": "k-anonymity", "k": 3}],
        "transformation": {"suppression_limit": 0.0}}
    result = engine.anonymize(data, job)
    old, new = release_bytes(tmp_path, result)
    assert new == old
    assert b"999" not in new  # the coding rule changed it


def test_local_recoding(adult_folder, tmp_path):
    text = adult_job_text(qis=QIS, data="people.csv", limit=0.04).replace(
        "[transformation]\n", "[transformation]\nlocal_recoding = { iterations = 20 }\n")
    text += ('\n[attributes."name"]\ntype = "identifying"\n'
             '\n[attributes."phone"]\ntype = "identifying"\n')
    (adult_folder / "job.toml").write_text(text)
    result = engine.anonymize(None, adult_folder / "job.toml")
    assert result.local_recoding is not None
    old, new = release_bytes(tmp_path, result)
    assert new == old


@settings(max_examples=examples(200), deadline=None)
@given(st.lists(st.one_of(st.sampled_from(["", "nan", "NaN", "None", "NA", "null", "a", "é",
                                           "\x00", " ", "a,b", "1", "1.0"]),
                          st.text(max_size=4)), max_size=60))
def test_factorize_text_numbers_texts_as_pandas_factorize(texts):
    """The finished columns' codes (`factorize_text`, no pandas) are pandas.factorize's:
    codes in order of first appearance, the distinct texts in that order."""
    from engine.data.csv_encoded import factorize_text
    values = np.asarray(texts, dtype=object) if texts else np.zeros(0, dtype=object)
    codes, uniques = factorize_text(values)
    want_codes, want_uniques = pd.factorize(values, sort=False)
    assert codes.dtype == np.int32 and uniques.dtype == object
    assert codes.tolist() == want_codes.tolist()
    assert uniques.tolist() == list(want_uniques)
