"""CSV import: format detection, then every value read as a string.

Missing values stay ``""`` (a value of their own); ``"NA"`` or ``"NULL"`` are ordinary
values. The format (encoding, delimiter, quote character, header) is detected on a
sample of the file's first bytes; the whole file is read by pandas' C parser, or
by Arrow (`engine.data.csv_arrow`) into the same categoricals; `read_csv_encoded`
gives an ``EncodedTable`` and loads pandas only where Arrow does not read the file.
"""
from __future__ import annotations

import codecs
import csv
import io
import re
from collections import Counter
from dataclasses import dataclass, replace
from itertools import islice
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from engine.data import csv_arrow
from engine.data.arrow_numpy import strings
from engine.data.sniff import binary_kind, not_text_error
from engine.errors import DataError

if TYPE_CHECKING:
    import pandas as pd

    from engine.data.table import EncodedTable

DELIMITERS = ("\t", ";", "|", ",")  # ties go to the one least likely inside values


def delimiter_guess(header: str, delimiter: str | None) -> str | None:
    """For a table read as one column: another delimiter its header holds (the one the
    file most likely uses), or None."""
    return next((d for d in (";", ",", "\t", "|") if d != delimiter and d in header), None)


def one_column_hint(header: str, delimiter: str | None) -> str:
    """Words for a table that was read as one column."""
    guess = delimiter_guess(header, delimiter)
    if guess is not None:
        shown = "tab" if guess == "\t" else repr(guess)
        return (f"only one column was found with the delimiter {delimiter!r}, and its first "
                f"line holds {shown}: is the delimiter {shown}?")
    return (f"only one column was found with the delimiter {delimiter!r}: is this a "
            f"delimited text file with another delimiter?")
QUOTECHARS = ('"', "'")
SAMPLE_BYTES = 64 * 1024
_SAMPLE_ROWS = 200
_BOMS = ((codecs.BOM_UTF32_LE, "utf-32"), (codecs.BOM_UTF32_BE, "utf-32"),
         (codecs.BOM_UTF8, "utf-8-sig"), (codecs.BOM_UTF16_LE, "utf-16"),
         (codecs.BOM_UTF16_BE, "utf-16"))
_NUMERIC = re.compile(r"\s*[-+]?[\d.,:/\-\s]*\d[\d.,:/\-\s%]*")  # numbers, dates, times
_FALLBACK = {"utf-8-sig": "cp1252", "cp1252": "latin-1"}
_RAGGED = re.compile(r"Expected (\d+) fields in line (\d+), saw (\d+)")
_UNCLOSED = re.compile(r"EOF inside string starting at row (\d+)")


@dataclass(frozen=True)
class CsvFormat:
    """How a delimited text file is written.

    Attributes
    ----------
    delimiter, quotechar : str
        Field separator and quote character.
    has_header : bool
        Whether the first record holds the column names.
    encoding : str
        A Python codec name (``"utf-8-sig"`` for UTF-8 with a byte order mark).
    confidence : float
        Share of sampled records with the detected number of fields; 0.5 when no
        delimiter splits them (one column); 1.0 for a format the caller gave.
    """

    delimiter: str = ";"
    quotechar: str = '"'
    has_header: bool = True
    encoding: str = "utf-8"
    confidence: float = 1.0


def _head(path: Path, n: int) -> bytes:
    if path.is_dir():
        raise DataError(f"{path} is a folder, not a data file")
    try:
        with open(path, "rb") as f:
            return f.read(n)
    except FileNotFoundError:
        raise DataError(f"data file not found: {path}") from None


def detect_encoding(head: bytes) -> str:
    """Codec of a file that starts with ``head``: byte order mark, else UTF-8, cp1252, latin-1."""
    for bom, name in _BOMS:
        if head.startswith(bom):
            return name
    zeros_even, zeros_odd = head[0::2].count(0), head[1::2].count(0)
    if max(zeros_even, zeros_odd) > len(head) // 8:  # ASCII text stored as UTF-16, no BOM
        return "utf-16-le" if zeros_odd > zeros_even else "utf-16-be"
    for name in ("utf-8", "cp1252"):
        try:
            codecs.getincrementaldecoder(name)().decode(head, final=False)
            return name
        except UnicodeDecodeError:
            continue
    return "latin-1"  # decodes every byte


def _blank(row: list[str]) -> bool:
    """pandas skips empty and whitespace-only lines."""
    return not row or (len(row) == 1 and not row[0].strip())


def _records(text: str, delimiter: str, quotechar: str) -> list[list[str]]:
    """The first ``_SAMPLE_ROWS`` non-blank records of ``text``; [] if unparsable."""
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter, quotechar=quotechar)
    try:
        return list(islice((r for r in reader if not _blank(r)), _SAMPLE_ROWS))
    except csv.Error:
        return []


def _quoted_fields(text: str, delimiter: str, quotechar: str) -> int:
    d, q = re.escape(delimiter), re.escape(quotechar)
    return len(re.findall(rf"(?:^|{d})[ ]*{q}[^{q}]*{q}[ ]*(?={d}|\r?$)", text, re.M))


def _detect_delimiter(text: str) -> tuple[str, str, float]:
    """Delimiter, quote character and consistency of the best-splitting pair."""
    best, best_key = (";", '"', 0.5), None  # no delimiter splits the records: one column
    for rank, d in enumerate(DELIMITERS):
        for q in QUOTECHARS:
            rows = _records(text, d, q)
            if not rows:
                continue
            n_fields, n_rows = Counter(len(r) for r in rows).most_common(1)[0]
            if n_fields < 2:
                continue
            consistency = n_rows / len(rows)
            key = (consistency, -rank, _quoted_fields(text, d, q), q == '"')
            if best_key is None or key > best_key:
                best, best_key = (d, q, consistency), key
    return best


def _detect_header(rows: list[list[str]]) -> bool:
    """Whether the first record looks like column names rather than data.

    Each column votes: numeric body under a non-numeric first value says header; a
    first value that also occurs in the body, or is empty, says data; a first value
    whose length differs from the fixed length of the body values, or that is absent
    from a column of repeating categories, says header. Ties count as a header.
    """
    first, body = rows[0], rows[1:]
    if not body:
        return not any(_NUMERIC.fullmatch(v) for v in first)
    score = 0.0
    for j, name in enumerate(v.strip() for v in first):
        column = [r[j].strip() for r in body if len(r) > j and r[j].strip()]
        if not column:
            continue
        numeric = sum(bool(_NUMERIC.fullmatch(v)) for v in column) / len(column)
        if numeric >= 0.9:
            score += -1.0 if not name or _NUMERIC.fullmatch(name) else 1.0
        elif not name or name in set(column):
            score -= 1.0
        elif len({len(v) for v in column}) == 1:
            score += 1.0 if len(name) != len(column[0]) else 0.0
        elif len(set(column)) <= len(column) / 2:
            score += 0.5
    return score >= 0


def detect_csv_format(path: str | Path, sample_bytes: int = SAMPLE_BYTES) -> CsvFormat:
    """Detect encoding, delimiter, quote character and header from the file's start.

    Parameters
    ----------
    path : str or Path
        The delimited text file.
    sample_bytes : int
        How many bytes to read; a partial last line is ignored.

    Raises
    ------
    DataError
        If the file is missing, a folder or empty.
    """
    path = Path(path)
    head = _head(path, sample_bytes)
    _not_binary(path)
    encoding = detect_encoding(head)
    text = codecs.getincrementaldecoder(encoding)(errors="replace").decode(head, final=False)
    if len(head) >= sample_bytes and "\n" in text:
        text = text[:text.rindex("\n") + 1]
    if not text.strip():
        raise DataError(f"data file {path} is empty")
    delimiter, quotechar, consistency = _detect_delimiter(text)
    rows = _records(text, delimiter, quotechar) or [[text.splitlines()[0]]]
    return CsvFormat(delimiter, quotechar, _detect_header(rows), encoding, consistency)


def _first_ragged(path: Path, fmt: CsvFormat, codec: str, expected: int | None,
                  max_records: int | None = None) -> DataError | None:
    """The error for the first record of the wrong width, naming its first line."""
    with open(path, encoding=codec, errors="replace", newline="") as f:
        reader = csv.reader(f, delimiter=fmt.delimiter, quotechar=fmt.quotechar)
        start, seen = 1, 0
        try:
            for row in reader:
                if not _blank(row):
                    expected = expected or len(row)
                    if len(row) != expected:
                        return _ragged_error(path, start, len(row), expected)
                    seen += 1
                    if seen == max_records:
                        break
                start = reader.line_num + 1
        except csv.Error:
            pass
    return None


def _ragged_error(path: Path, line: int, fields: int, expected: int) -> DataError:
    return DataError(f"{path.name} line {line} has {fields} field{'s' * (fields != 1)}, "
                     f"expected {expected}")


def _parser_error(path: Path, fmt: CsvFormat, codec: str, message: str,
                  nrows: int | None) -> DataError:
    """Turn a pandas tokenizer message into one naming the line."""
    if m := _UNCLOSED.search(message):  # pandas counts records from 0, not lines
        return DataError(f"{path.name} near line {int(m[1]) + 1}: a value opened with "
                         f"{fmt.quotechar} is never closed")
    if found := _first_ragged(path, fmt, codec, None, nrows):
        return found
    if m := _RAGGED.search(message):
        return _ragged_error(path, int(m[2]), int(m[3]), int(m[1]))
    return DataError(f"cannot read {path.name}: {message}")


def _decode_error(path: Path, codec: str, encoding: str) -> DataError:
    """Locate the first byte ``codec`` cannot decode: offset and line."""
    decoder = codecs.getincrementaldecoder(codec)()
    offset, lines = 0, 1
    with open(path, "rb") as f:
        while chunk := f.read(1 << 20):
            try:
                decoder.decode(chunk)
            except UnicodeDecodeError as e:
                bad = offset + max(e.start, 0)
                lines += chunk[:max(e.start, 0)].count(b"\n")
                byte = chunk[e.start] if 0 <= e.start < len(chunk) else 0
                return DataError(
                    f"{path.name} is not {encoding} text: byte 0x{byte:02X} at offset {bad} "
                    f"(line {lines}) cannot be decoded; choose the file's encoding "
                    f"(for example cp1252, latin-1 or utf-16)")
            offset += len(chunk)
            lines += chunk.count(b"\n")
    return DataError(f"{path.name} is not {encoding} text")


def _column_names(path: Path, first: list[str]) -> list[str]:
    names = [str(v).strip() for v in first]
    seen: dict[str, int] = {}
    for j, name in enumerate(names, start=1):
        if not name:
            raise DataError(f"{path.name} line 1: column {j} has an empty name in the header")
        if name in seen:
            raise DataError(f"{path.name} line 1: column name '{name}' appears more than once "
                            f"in the header (columns {seen[name]} and {j})")
        seen[name] = j
    return names


def _not_binary(path: Path) -> None:
    """A workbook, database, Parquet or statistics file is named for what it is."""
    kind = binary_kind(path)
    if kind is not None:
        raise DataError(not_text_error(path, kind))


def _check(path: Path, fmt: CsvFormat) -> str:
    """Validate the file and format; return the codec to read with."""
    _head(path, 0)
    _not_binary(path)
    if len(fmt.delimiter) != 1 or len(fmt.quotechar) != 1 or fmt.delimiter == fmt.quotechar:
        raise DataError(f"delimiter {fmt.delimiter!r} and quote character {fmt.quotechar!r} "
                        f"must be two different single characters")
    try:
        codec = codecs.lookup(fmt.encoding).name
    except LookupError:
        raise DataError(f"unknown encoding '{fmt.encoding}' for {path.name}") from None
    return "utf-8-sig" if codec == "utf-8" else codec  # skip a byte order mark if present


def _read(path: Path, fmt: CsvFormat, n_rows: int | None = None,
          fallback: bool = False, categorical: bool = False) -> pd.DataFrame:
    """Parse with pandas' C engine (a file but the smallest read whole into categoricals: with
    Arrow, `engine.data.csv_arrow`, same result); the header row is validated, not
    mangled.

    With ``fallback`` a decoding failure retries the next encoding of `_FALLBACK`
    (UTF-8 only when the sample was plain ASCII, i.e. gave no evidence of UTF-8).
    """
    import pandas as pd
    codec = _check(path, fmt)
    nrows = None if n_rows is None else n_rows + int(fmt.has_header)
    fast = None
    if categorical and n_rows is None and path.stat().st_size >= csv_arrow.MIN_BYTES:
        fast = csv_arrow.read_categorical(path, fmt.delimiter, fmt.quotechar, codec,
                                          fmt.has_header)
    if fast is not None:
        df, first = fast
    else:
        try:
            df = pd.read_csv(path, sep=fmt.delimiter, quotechar=fmt.quotechar,
                             encoding=codec, header=None,
                             dtype="category" if categorical else str,
                             keep_default_na=False, na_filter=False,
                             skip_blank_lines=True, engine="c", nrows=nrows)
        except pd.errors.EmptyDataError:
            raise DataError(f"data file {path} is empty") from None
        except UnicodeDecodeError:
            nxt = _FALLBACK.get(codec) if fallback else None
            if nxt and (codec != "utf-8-sig" or _head(path, SAMPLE_BYTES).isascii()):
                return _read(path, replace(fmt, encoding=nxt), n_rows, fallback, categorical)
            raise _decode_error(path, codec, fmt.encoding) from None
        except pd.errors.ParserError as e:
            raise _parser_error(path, fmt, codec, str(e), nrows) from None
        if categorical:
            df = _as_text_categories(df, path, fmt, codec, nrows)
        # pandas pads short records with "": only rows ending in "" need a closer look
        if len(df) and (df.iloc[:, -1] == "").any():
            if found := _first_ragged(path, fmt, codec, df.shape[1], nrows):
                raise found
        first = None
        if fmt.has_header:
            first = df.iloc[0].tolist()
            df = df.iloc[1:].reset_index(drop=True)
            if categorical:  # the header row's names are no values of the data
                for c in df.columns:  # (DataFrame.apply skips a frame without rows)
                    df[c] = df[c].cat.remove_unused_categories()
    if fmt.has_header:
        if _trailing_delimiter(first, (df.iloc[:, -1] == "").all()):
            first, df = first[:-1], df.iloc[:, :-1]
        df.columns = _column_names(path, first)
    else:
        df.columns = _unnamed_columns(df.shape[1])
    df.attrs["csv_format"] = fmt
    return df


def _trailing_delimiter(first: list, last_column_empty: bool) -> bool:
    """Whether every line ends in a delimiter: the header's last field is blank and
    so is every value of the last column (that column is then dropped)."""
    return len(first) > 1 and not str(first[-1]).strip() and bool(last_column_empty)


def _unnamed_columns(n: int) -> list[str]:
    return [f"column{i + 1}" for i in range(n)]


def _as_text_categories(df: pd.DataFrame, path: Path, fmt: CsvFormat, codec: str,
                        nrows: int | None) -> pd.DataFrame:
    """pandas turns the categories of a column that holds only numbers into numbers
    ("007" -> 7.0): such columns are read again as text."""
    import pandas as pd
    numeric = [c for c in df.columns
               if not pd.api.types.is_string_dtype(df[c].cat.categories.dtype)]
    if numeric:
        again = pd.read_csv(path, sep=fmt.delimiter, quotechar=fmt.quotechar, encoding=codec,
                            header=None, dtype=str, keep_default_na=False, na_filter=False,
                            skip_blank_lines=True, engine="c", nrows=nrows, usecols=numeric)
        for c in numeric:
            df[c] = again[c].astype("category")
    return df


def read_csv(path: str | Path, delimiter: str | None = None, encoding: str | None = None,
             quotechar: str | None = None, header: bool | None = None,
             categorical: bool = False) -> pd.DataFrame:
    """Read a delimited file as a DataFrame of strings; ``None`` means "detect".

    Parameters
    ----------
    path : str or Path
        The delimited text file.
    delimiter, encoding, quotechar, header
        The file's format; each one left ``None`` is detected (see `detect_csv_format`).
        A detected UTF-8 that fails later in the file, after an all-ASCII sample, falls
        back to cp1252, and cp1252 to latin-1.

    Returns
    -------
    pandas.DataFrame
        String columns, ``""`` for missing values; ``df.attrs["csv_format"]`` holds the
        `CsvFormat` used. With ``categorical`` the columns are pandas categoricals (far
        less memory for large files; ``EncodedTable`` takes their codes as they are).

    Raises
    ------
    DataError
        For a missing or empty file, undecodable bytes (offset and line), records of
        the wrong width (line and field counts), and empty or duplicate column names.
    """
    path = Path(path)
    fmt = _format(path, delimiter, encoding, quotechar, header)
    return _read(path, fmt, fallback=encoding is None, categorical=categorical)


def _format(path: Path, delimiter, encoding, quotechar, header) -> CsvFormat:
    """The format given, its ``None`` parts detected."""
    if None in (delimiter, encoding, quotechar, header):
        found = detect_csv_format(path)
        return CsvFormat(delimiter or found.delimiter, quotechar or found.quotechar,
                         found.has_header if header is None else header,
                         encoding or found.encoding, found.confidence)
    return CsvFormat(delimiter, quotechar, header, encoding)


def read_csv_encoded(path: str | Path, delimiter: str | None = None,
                     encoding: str | None = None, quotechar: str | None = None,
                     header: bool | None = None) -> EncodedTable:
    """`read_csv` (``categorical=True``) as an ``EncodedTable``: the same columns,
    names, codes and dictionaries as ``EncodedTable.from_dataframe(read_csv(...))``,
    and the same errors. A file Arrow reads (`engine.data.csv_arrow`) becomes codes
    without pandas; the others are read by pandas as `read_csv` reads them."""
    from engine.data.table import EncodedColumn, EncodedTable
    path = Path(path)
    fmt = _format(path, delimiter, encoding, quotechar, header)
    codec = _check(path, fmt)
    fast = None
    if csv_arrow.use_arrow(path.stat().st_size):
        fast = csv_arrow.read_columns(path, fmt.delimiter, fmt.quotechar, codec,
                                      fmt.has_header)
    if fast is None:
        return EncodedTable.from_dataframe(
            _read(path, fmt, fallback=encoding is None, categorical=True))
    columns, first = fast
    if fmt.has_header:
        if _trailing_delimiter(first, len(columns[-1][1]) == 0 or (
                len(columns[-1][1]) == 1 and columns[-1][1][0].as_py() == "")):
            first, columns = first[:-1], columns[:-1]
        names = _column_names(path, first)
    else:
        names = _unnamed_columns(len(columns))
    return EncodedTable([EncodedColumn(name, codes.astype(np.int32), strings(categories))
                         for name, (codes, categories) in zip(names, columns)])


def read_csv_preview(path: str | Path, fmt: CsvFormat, n_rows: int = 100) -> pd.DataFrame:
    """The first ``n_rows`` data rows in ``fmt``, for the import wizard's preview.

    Raises
    ------
    DataError
        As `read_csv`, for problems within the rows read.
    """
    return _read(Path(path), fmt, n_rows=n_rows)
