"""CSV import: every value read as a string, missing values kept as ``""``."""
from __future__ import annotations

from pathlib import Path

import pandas as pd

from engine.errors import DataError


def read_csv(path: str | Path, delimiter: str | None = ";", encoding: str | None = "utf-8",
             quotechar: str = '"', header: bool = True) -> pd.DataFrame:
    """Read a delimited file as a DataFrame of strings."""
    path = Path(path)
    if not path.exists():
        raise DataError(f"data file not found: {path}")
    try:
        df = pd.read_csv(path, sep=delimiter or ";", encoding=encoding or "utf-8", dtype=str,
                         keep_default_na=False, quotechar=quotechar,
                         header=0 if header else None, engine="c")
    except (pd.errors.ParserError, UnicodeDecodeError, ValueError) as e:
        raise DataError(f"cannot read {path}: {e}") from None
    if not header:
        df.columns = [f"column{i + 1}" for i in range(df.shape[1])]
    return df
