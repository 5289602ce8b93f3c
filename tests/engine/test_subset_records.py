"""[subset] records: ARX's subset file (the subset's records) matched to the data, each
record to one data row with the same values, as ARX's DataSubset.create matches them."""
from __future__ import annotations

import pandas as pd
import pytest

from engine.data.table import EncodedTable
from engine.errors import JobError
from engine.subset import records_mask


def _table(rows):
    return EncodedTable.from_dataframe(pd.DataFrame(rows, columns=["a", "b", "c"]))


def test_each_record_takes_one_row_duplicates_in_order(tmp_path):
    table = _table([("1", "x", "p"), ("2", "y", "q"), ("1", "x", "p"), ("3", "z", "r"),
                    ("1", "x", "p")])
    (tmp_path / "s.csv").write_text("a;b;c\n1;x;p\n3;z;r\n1;x;p\n")
    mask = records_mask(tmp_path / "s.csv", table, ";")
    assert mask.tolist() == [True, False, True, True, False]


def test_a_subset_file_of_some_columns_matches_on_them(tmp_path):
    table = _table([("1", "x", "p"), ("2", "y", "q"), ("1", "y", "p")])
    (tmp_path / "s.csv").write_text("c;a\np;1\n")
    assert records_mask(tmp_path / "s.csv", table, ";").tolist() == [True, False, False]


def test_unmatched_records_and_unknown_columns_are_named(tmp_path):
    table = _table([("1", "x", "p"), ("2", "y", "q")])
    (tmp_path / "s.csv").write_text("a;b;c\n1;x;p\n1;x;p\n")
    with pytest.raises(JobError, match="line 3: no data row left"):
        records_mask(tmp_path / "s.csv", table, ";")
    (tmp_path / "t.csv").write_text("a;d\n1;x\n")
    with pytest.raises(JobError, match="column\\(s\\) d are not in the data"):
        records_mask(tmp_path / "t.csv", table, ";")


def test_the_shared_adult_subset_matches_as_arx_matches_it():
    from engine.data.csv_import import read_csv
    from tests.shared_data import SHARED
    adult = SHARED / "data" / "adult"
    if not (adult / "adult_subset.csv").is_file():
        pytest.skip("the shared Adult data is not here")
    data = read_csv(adult / "adult.csv", ";", "utf-8", header=True)
    subset = read_csv(adult / "adult_subset.csv", ";", "utf-8", header=True)
    mask = records_mask(adult / "adult_subset.csv", EncodedTable.from_dataframe(data), ";")
    assert mask.sum() == len(subset)
    # the selected rows are the subset's records, as a multiset
    chosen = data[mask][list(subset.columns)].apply(tuple, axis=1).value_counts()
    wanted = subset.apply(tuple, axis=1).value_counts()
    assert chosen.sort_index().equals(wanted.sort_index())
