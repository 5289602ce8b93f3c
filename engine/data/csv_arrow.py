"""A multi-threaded reader for CSV files but the smallest: Arrow parses straight into
dictionary-encoded columns (no Python string per cell) and the result is the
DataFrame of categoricals ``engine.data.csv_import`` builds with pandas, equal in
every value, row and category.

It is the engine's path for files of `MIN_BYTES` or more (any file in a process
without pandas, `use_arrow`) in a format it reads as pandas does (one-byte delimiter and quote, doubled quotes, a stateless encoding).
Whatever Arrow refuses (records of another width, undecodable bytes, a lone
column whose blank lines pandas skips) returns None: the caller then reads the file
with pandas, which gives the same result or the same error message as before.
"""
from __future__ import annotations

import codecs
import csv
from pathlib import Path

import numpy as np

from engine.data.arrow_numpy import from_numpy, int_scalar, to_numpy

#: files smaller than this are read by pandas (as fast at a few kB). From 250 kB up
#: Arrow is faster even on one thread, its columns mapped in its compute functions:
#: credit card's 2.3 MB 0.32-0.41 -> 0.09-0.11 s of CPU, Adult, cup and MACH-IV's
#: 2-2.5 MB as fast or faster (measured on the busy 2-core machine)
MIN_BYTES = 64 * 2**10


def use_arrow(size: int) -> bool:
    """Whether to read a file of ``size`` bytes with Arrow: from `MIN_BYTES` up, and any
    file in a process that has not loaded pandas (the command line): importing pandas
    costs 0.3-0.45 s of CPU, far more than Arrow's start on a small file. Both readers
    give the same table."""
    import sys
    return size >= MIN_BYTES or "pandas" not in sys.modules


#: bytes Arrow parses per block (a thread's share; each block's dictionaries are mapped
#: onto the categories in Python, so not too small)
BLOCK_BYTES = 4 * 2**20
#: codecs Arrow decodes as pandas does: UTF-8 natively (a byte order mark skipped),
#: single-byte codecs through Python's codec
_ARROW_CODECS = {"utf-8-sig": "utf8", "utf-8": "utf8", "cp1252": "cp1252",
                 "iso8859-1": "latin-1", "iso8859-15": "iso8859-15"}


def arrow_encoding(codec: str) -> str | None:
    """The encoding Arrow decodes ``codec`` as pandas does (None: pandas must read)."""
    name = codecs.lookup(codec).name
    return _ARROW_CODECS.get(codec if codec == "utf-8-sig" else name)


def first_record(path: Path, delimiter: str, quotechar: str, codec: str) -> list[str] | None:
    """The file's first non-blank record as Python's csv module reads it."""
    with open(path, encoding=codec, errors="replace", newline="") as f:
        for row in csv.reader(f, delimiter=delimiter, quotechar=quotechar):
            if row:
                return row
    return None


def _first_record_width(path: Path, delimiter: str, quotechar: str, codec: str) -> int | None:
    row = first_record(path, delimiter, quotechar, codec)
    return len(row) if row else None


def quotes(path: Path, quote: int) -> int:
    """How many bytes ``quote`` the file holds, read 16 MB at a time (a mapped file's
    pages would count in the process's memory: a streaming reader's must stay flat)."""
    needle, n = bytes([quote]), 0
    with open(path, "rb") as f:
        while chunk := f.read(1 << 24):
            n += chunk.count(needle)
    return n


def parse_options(delimiter: str, quotechar: str, quoted_newlines: bool):
    """Arrow parses as pandas' C reader does (doubled quotes, no escape, blank lines
    skipped); values span lines only if the file holds quotes."""
    import pyarrow.csv as pacsv
    return pacsv.ParseOptions(delimiter=delimiter, quote_char=quotechar, double_quote=True,
                              escape_char=False, newlines_in_values=quoted_newlines,
                              ignore_empty_lines=True)


def text_columns(names: list[str], include: bool = False):
    """Every column in ``names`` read as dictionary-encoded text, empty values as "" (as
    pandas with ``na_filter=False``); with ``include`` only those columns are read."""
    import pyarrow as pa
    import pyarrow.csv as pacsv
    text = pa.dictionary(pa.int32(), pa.string())
    return pacsv.ConvertOptions(column_types={n: text for n in names}, null_values=[],
                                strings_can_be_null=False, quoted_strings_can_be_null=False,
                                include_columns=list(names) if include else None)


def _arrow_table(path: Path, delimiter: str, quotechar: str, encoding: str, width: int,
                 quoted_newlines: bool):
    import pyarrow as pa
    import pyarrow.csv as pacsv
    text = pa.dictionary(pa.int32(), pa.string())
    try:
        table = pacsv.read_csv(
            path,
            read_options=pacsv.ReadOptions(autogenerate_column_names=True, encoding=encoding,
                                           block_size=BLOCK_BYTES),
            parse_options=parse_options(delimiter, quotechar, quoted_newlines),
            convert_options=text_columns([f"f{i}" for i in range(width)]))
    except (pa.ArrowException, UnicodeError, ValueError):  # pandas reads it, or says why
        return None
    if table.num_columns != width or any(t != text for t in table.schema.types):
        return None
    return table


def _column(chunks, skip_first: bool, quote: str | None):
    """One column's codes and categories (an Arrow array of the values present after
    the skipped first record, sorted as pandas sorts them) and its first record's
    value; None if a value holds ``quote``. Each chunk's own dictionary is mapped onto
    the sorted categories, in Arrow's compute functions (no Python string per value:
    credit card's 24 columns of up to 20,000 values 0.24 -> 0.02 s of CPU), with
    arrays passed as buffers (`engine.data.arrow_numpy`: pyarrow would load pandas)."""
    import pyarrow as pa
    import pyarrow.compute as pc
    words = [c.dictionary for c in chunks]
    indices = [to_numpy(c.indices) for c in chunks]
    first = words[0][int(indices[0][0])].as_py() if len(indices[0]) else None
    present = []
    for j, (w, idx) in enumerate(zip(words, indices)):
        if j == 0 and skip_first:  # the header's value unless a record holds it too
            w = w.take(from_numpy(np.flatnonzero(np.bincount(idx[1:], minlength=len(w)))))
        present.append(w)
    present = pc.unique(pa.concat_arrays(present))
    if quote is not None and len(present) and pc.any(
            pc.match_substring(present, quote)).as_py():
        return None
    # Arrow sorts strings by their UTF-8 bytes, which is code point order: pandas' order
    present = present.take(pc.sort_indices(present))
    n = sum(len(idx) for idx in indices) - int(skip_first)
    dtype = np.int8 if len(present) < 2**7 else np.int16 if len(present) < 2**15 \
        else np.int32
    # every chunk's dictionary looked up at once (one hash table of the categories)
    lookup = pc.fill_null(pc.index_in(pa.concat_arrays(words), value_set=present),
                          int_scalar(-1))
    lookup = to_numpy(lookup).astype(dtype)
    codes = np.empty(n, dtype=dtype)
    at = start = 0
    for j, (w, idx) in enumerate(zip(words, indices)):
        if j == 0 and skip_first:
            idx = idx[1:]
        codes[at:at + len(idx)] = lookup[start:start + len(w)][idx]
        at += len(idx)
        start += len(w)
    return codes, present, first


def read_categorical(path: Path, delimiter: str, quotechar: str, codec: str,
                     has_header: bool):
    """The file as ``pandas.read_csv(header=None, dtype="category", ...)`` reads it,
    minus the header record (a DataFrame of categoricals), and the header's raw fields
    (None without a header). None where the caller must read it with pandas."""
    read = read_columns(path, delimiter, quotechar, codec, has_header)
    if read is None:
        return None
    import pandas as pd
    columns, first = read
    return pd.DataFrame({j: pd.Categorical.from_codes(
        codes, categories=pd.Index(categories, dtype="str"), validate=False)
        for j, (codes, categories) in enumerate(columns)}), first


def read_columns(path: Path, delimiter: str, quotechar: str, codec: str, has_header: bool):
    """`read_categorical`'s columns without pandas: per column the codes (the
    categoricals' codes) and the categories as an Arrow string array, and the header's
    raw fields (None without a header). None where the caller must read it with
    pandas."""
    encoding = arrow_encoding(codec)
    if encoding is None or not (delimiter + quotechar).isascii():
        return None
    # Arrow ends a quoted value left open at the end of the file silently (pandas
    # refuses it). Every quote opens or closes a quoted value unless a value holds a
    # quote (doubled, or in the middle of an unquoted value): so with no value holding
    # one (checked below), an odd count means a value is left open.
    n_quotes = quotes(path, ord(quotechar))
    if n_quotes % 2:
        return None
    width = _first_record_width(path, delimiter, quotechar, codec)
    if not width or width < 2:  # pandas skips a lone column's whitespace-only lines
        return None
    # without quotes no value spans lines: Arrow splits the file faster
    table = _arrow_table(path, delimiter, quotechar, encoding, width, n_quotes > 0)
    if table is None or table.num_rows == 0:
        return None
    columns, first = [], []
    for _ in range(width):
        built = _column(table.column(0).chunks, has_header, quotechar if n_quotes else None)
        table = table.drop_columns([table.column_names[0]])  # its memory goes now
        if built is None:
            return None
        codes, categories, value = built
        columns.append((codes, categories))
        first.append(str(value))
    return columns, (first if has_header else None)
