"""Dictionary-encoded table: every column becomes compact integer codes, once."""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from engine.errors import DataError

if TYPE_CHECKING:
    import pandas as pd


@dataclass(frozen=True)
class EncodedColumn:
    """One column: ``dictionary[codes[i]]`` is row ``i``'s value (missing is ``""``)."""

    name: str
    codes: np.ndarray
    dictionary: np.ndarray

    def __len__(self) -> int:
        return len(self.codes)

    def value_counts(self) -> np.ndarray:
        """Number of rows per dictionary code."""
        return np.bincount(self.codes, minlength=len(self.dictionary)).astype(np.int64)

    def first_rows(self) -> dict[str, int]:
        """Each value's first data row (0-based), for error messages."""
        _, first = np.unique(self.codes, return_index=True)
        return {str(self.dictionary[c]): int(r) for c, r in zip(np.unique(self.codes), first)}

    def values(self, rows=None) -> np.ndarray:
        codes = self.codes if rows is None else self.codes[rows]
        return self.dictionary[codes]


class EncodedTable:
    """A table of encoded columns, built from a DataFrame of strings.

    A row stands for one record, or, with ``weights``, for ``weights[i]`` records
    with equal values: the frequency table an aggregation backend delivers
    (``engine.backends``), holding only the columns the job reads per record.
    ``source_names`` then lists every column of the data it was counted from, and
    ``row_subset`` (when the job's research subset is given by row numbers) whether
    each row's records are in the subset, resolved where the records are: the
    backend splits a combination's records by membership.
    """

    row_subset: np.ndarray | None = None
    #: under differential privacy, whether each row's records are in SafePub's sample
    #: (the backend drew it, `engine.privacy.differential_privacy.sample_bits`), and
    #: that sample as one bit per record (the release withholds the others)
    row_sample: np.ndarray | None = None
    sample_bits: bytes | None = None
    #: with ``[data] person`` out of core, the persons the backend counted itself
    #: (``engine.kernel.person_tallies.PersonTallies``): the table then holds no person
    #: column, and no row per person
    person_tallies = None

    def __init__(self, columns: list[EncodedColumn], weights: np.ndarray | None = None,
                 source_names: list[str] | None = None):
        if not columns:
            raise DataError("the table has no columns")
        n = len(columns[0])
        for c in columns:
            if len(c) != n:
                raise DataError(f"column '{c.name}' has {len(c)} rows, expected {n}")
        self._columns = {c.name: c for c in columns}
        if len(self._columns) != len(columns):
            names = [c.name for c in columns]
            dup = next(x for x in names if names.count(x) > 1)
            raise DataError(f"column name '{dup}' appears more than once in the header")
        self.n_rows = n
        if weights is not None:
            weights = np.asarray(weights, dtype=np.int64)
            if weights.shape != (n,) or (weights < 1).any():
                raise DataError("record weights must be one positive count per row")
        self.weights = weights
        self.source_names = list(source_names) if source_names is not None else list(self._columns)

    @property
    def n_records(self) -> int:
        """Records the table stands for (its rows unless weighted)."""
        return self.n_rows if self.weights is None else int(self.weights.sum())

    def count_records(self, rows: np.ndarray | None = None) -> int:
        """Records of the rows in the boolean mask ``rows`` (all when None)."""
        if rows is None:
            return self.n_records
        rows = np.asarray(rows, dtype=bool)
        return int(rows.sum()) if self.weights is None else int(self.weights[rows].sum())

    def value_counts(self, name: str, rows: np.ndarray | None = None) -> np.ndarray:
        """Records per dictionary code of a column, within the mask ``rows`` if given."""
        col = self.column(name)
        codes, w = col.codes, self.weights
        if rows is not None:
            rows = np.asarray(rows, dtype=bool)
            codes = codes[rows]
            w = None if w is None else w[rows]
        return np.bincount(codes, weights=w, minlength=len(col.dictionary)).astype(np.int64)

    @classmethod
    def from_dataframe(cls, df: pd.DataFrame) -> "EncodedTable":
        import pandas as pd
        cols = []
        for name in df.columns:
            series = df[name]
            if isinstance(series.dtype, pd.CategoricalDtype):
                codes = series.cat.codes.to_numpy().astype(np.int32)
                dictionary = np.asarray(series.cat.categories.astype(str), dtype=object)
                if (codes < 0).any():  # missing entries become the value ""
                    dictionary = np.append(dictionary, "")
                    codes[codes < 0] = len(dictionary) - 1
            else:
                values = series.astype(object).where(series.notna(), "")
                codes, uniques = pd.factorize(values.astype(str), sort=False)
                codes = codes.astype(np.int32)
                dictionary = np.asarray(uniques, dtype=object)
            cols.append(EncodedColumn(str(name), codes, dictionary))
        return cls(cols)

    @property
    def names(self) -> list[str]:
        return list(self._columns)

    def __contains__(self, name: str) -> bool:
        return name in self._columns

    def column(self, name: str) -> EncodedColumn:
        try:
            return self._columns[name]
        except KeyError:
            raise DataError(f"no column '{name}' in the data (columns: "
                            f"{', '.join(self._columns)})") from None

    def to_dataframe(self, rows=None) -> pd.DataFrame:
        if self.weights is not None:
            raise DataError("a frequency table holds distinct records with counts, not rows")
        import pandas as pd
        return pd.DataFrame({n: c.values(rows) for n, c in self._columns.items()})
