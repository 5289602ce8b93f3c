"""The DuckDB frequency table is coded by DuckDB (issue 25, speed: a person column has a
row per person, so Python must not hold a value per row): its dictionaries and codes are
those the in-memory encoding gives the same values (``frequency_columns``: pandas'
sorted factorization), on text chosen to tell orders apart (case, accents, digits,
blanks, symbols outside the Basic Multilingual Plane, the empty value)."""
from __future__ import annotations

import random

import numpy as np
import pandas as pd

from engine.backends.base import DataSource, frequency_columns
from engine.backends.duckdb_backend import DuckDBBackend

ODD = ["", " ", "a", "A", "b", "B", "Z", "z", "é", "E", "ß", "ss", "10", "9", "09", "-1",
       "Ä", "ä", "Å", "\u00a0x", "x\u00a0", "😀", "\uffff", "𝔘", "日本", "日", "a b", "a-b",
       "Straße", "strasse", "İ", "i", "ı", "NaN", "null", "None", "'", '"q"']


def test_dictionaries_and_codes_are_the_in_memory_ones(tmp_path):
    rng = random.Random(4)
    rows = 3000
    frame = pd.DataFrame({
        "a": [rng.choice(ODD) for _ in range(rows)],
        "b": [rng.choice(ODD[:12]) for _ in range(rows)],
        "person": [f"p{rng.randrange(900)}" for _ in range(rows)],
    })
    path = tmp_path / "odd.csv"
    frame.to_csv(path, sep=";", index=False)
    backend = DuckDBBackend(DataSource(str(path), "csv", (path,), ";", "utf-8"))
    try:
        table = backend.frequency_table(["a", "b", "person"])
        expected_rows = frame.assign(__i=np.arange(rows)).groupby(
            ["a", "b", "person"], sort=False, dropna=False).agg(
            w=("__i", "size"), first=("__i", "min")).sort_values("first")
        expected = frequency_columns({c: expected_rows.index.get_level_values(c).to_numpy(object)
                                      for c in ("a", "b", "person")},
                                     expected_rows["w"].to_numpy(np.int64), list(frame.columns))
        # read back as the reader reads the file (empty text stays empty)
        assert table.n_rows == expected.n_rows == len(expected_rows)
        for c in ("a", "b", "person"):
            assert list(table.column(c).dictionary) == list(expected.column(c).dictionary)
            assert np.array_equal(table.column(c).codes, expected.column(c).codes)
            assert table.column(c).codes.dtype == np.int32
        assert np.array_equal(table.weights, expected.weights)
        assert int(table.weights.sum()) == rows
    finally:
        backend.close()
