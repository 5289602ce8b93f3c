"""Dictionary-encoded table: every column becomes compact integer codes, once."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from engine.errors import DataError


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
    """A table of encoded columns, built from a DataFrame of strings."""

    def __init__(self, columns: list[EncodedColumn]):
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

    @classmethod
    def from_dataframe(cls, df: pd.DataFrame) -> "EncodedTable":
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
        return pd.DataFrame({n: c.values(rows) for n, c in self._columns.items()})
