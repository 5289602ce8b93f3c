"""The fast reader of `anonymist verify` for large exported CSV files: Arrow's CSV
reader parses the file in blocks of ``block_bytes`` into dictionary-encoded columns,
each block's labels get a code per distinct label for the whole file, and identical
rows are grouped on those integer codes (numpy) with their number of records and the
row where each first appears. What `engine.verify` counts and judges is then those
distinct rows, in the order they first appear in the file, each standing for its
records: the same classes, counts and messages as reading every row with pandas.
Memory grows with the distinct rows (classes times sensitive values), not the file.

This module reads the file as any stranger would: it uses nothing of the code that
produced the release. Where Arrow could read the file otherwise than pandas (a value
holding the quote character, an odd number of quotes, records of another width,
undecodable bytes, a header pandas renames, one column) it returns None and the
caller reads the file with pandas, which gives the same result or the same message.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from engine.data import csv_arrow
from engine.data.arrow_numpy import from_numpy, string_array, to_numpy

#: bytes Arrow parses per block (about 13,000 rows of an Adult-like table). Arrow reads
#: some 30 blocks ahead of the one being counted: larger blocks save little CPU and
#: hold more memory (F's 247 MB release: 1 MB blocks 100 MB, 16 MB blocks 320 MB)
BLOCK_BYTES = 2**20
#: rows of several blocks grouped at once (their codes: 40 bytes a row in an Adult-like
#: table), and groups whose distinct rows are merged at once
GROUP_ROWS = 2**18
MERGE_EVERY = 8
QUOTE = '"'


@dataclass
class CodedRows:
    """A file's distinct rows (each counted column's strings, a numpy array) in order
    of first appearance, with the records each stands for and whether it is in the
    research subset."""
    columns: dict[str, np.ndarray]
    weights: np.ndarray
    in_subset: np.ndarray | None
    rows: int
    bad_pseudonyms: set[str] = field(default_factory=set)


def _combine(columns: list[np.ndarray], spans: list[int]) -> np.ndarray:
    """One int64 key per row, equal for rows equal in every column (column j holding
    codes below ``spans[j]``); re-densified before the key could overflow."""
    n = len(columns[0]) if columns else 0
    key = np.zeros(n, dtype=np.int64)
    span = 1
    for col, s in zip(columns, spans):
        s = max(int(s), 1)
        if span * s >= 2**62:
            _, key = np.unique(key, return_inverse=True)
            key = key.astype(np.int64).ravel()
            span = int(key.max()) + 1 if n else 1
        key = key * s + col
        span *= s
    return key


def _distinct(key: np.ndarray, first: np.ndarray, counts: np.ndarray | None = None):
    """Group rows on ``key`` (hashing, no sort): the row where each group first appears
    (groups in that order), its ``first`` value and its summed ``counts`` (None: one
    each). ``first`` increasing, the groups come out in order of first appearance."""
    import pyarrow.compute as pc
    # Arrow's hash table numbers the keys as they first appear (as pandas.factorize)
    codes = to_numpy(pc.dictionary_encode(from_numpy(key)).indices)
    # factorize numbers groups as they first appear: a row opens a group iff its code
    # exceeds every code before it
    top = np.maximum.accumulate(codes)
    opens = np.flatnonzero(np.r_[True, top[1:] > top[:-1]]) if len(codes) else codes
    total = np.bincount(codes, weights=counts, minlength=len(opens))
    return opens, first[opens], np.rint(total).astype(np.int64)


def _merge(parts: list[tuple[np.ndarray, np.ndarray, np.ndarray]], spans: list[int]):
    """Merge (codes rows x columns, records, first row) parts, each in order of first
    row and following the one before, into distinct rows in order of first row."""
    codes = np.concatenate([p[0] for p in parts])
    opens, first, total = _distinct(_combine(list(codes.T), spans),
                                    np.concatenate([p[2] for p in parts]),
                                    np.concatenate([p[1] for p in parts]))
    return codes[opens], total, first


class Labels:
    """One column's distinct labels, numbered as first met in the file."""

    def __init__(self):
        self.words: list[str] = []
        self._known = None  # the words as an Arrow array (lookups in one hash table)

    def __len__(self) -> int:
        return len(self.words)

    def codes(self, array) -> np.ndarray:
        """A block's dictionary-encoded column as codes of its labels (new ones added)."""
        import pyarrow.compute as pc
        words = array.dictionary
        if self._known is None:
            self._known = string_array(self.words)
        lookup = pc.index_in(words, value_set=self._known)
        if lookup.null_count:
            new = words.filter(pc.is_null(lookup))
            self.words += [w for w in dict.fromkeys(new.to_pylist())]
            self._known = string_array(self.words)
            lookup = pc.index_in(words, value_set=self._known)
        lookup = to_numpy(lookup).astype(np.int32)
        return lookup[to_numpy(array.indices)]


def _holds(words, text: str) -> bool:
    import pyarrow.compute as pc
    return bool(len(words)) and bool(pc.any(pc.match_substring(words, text)).as_py())


def count_csv(path: Path, delimiter: str, encoding: str, columns: list[str],
              counted: list[str], subset_mask: Callable[[int, int], np.ndarray] | None,
              pseudonyms: dict, looks_pseudonymized: Callable,
              block_bytes: int = BLOCK_BYTES) -> CodedRows | None:
    """Group the file's rows on the ``counted`` columns (and the research-subset flag,
    from ``subset_mask(start, stop)``); the ``pseudonyms`` columns (name -> spec) are
    only checked, label by label, with ``looks_pseudonymized``. ``columns`` is the
    header as pandas reads it. None: read the file with pandas."""
    import pyarrow as pa
    import pyarrow.csv as pacsv
    arrow_encoding = csv_arrow.arrow_encoding(encoding)
    if (arrow_encoding is None or len(delimiter) != 1 or not delimiter.isascii()
            or delimiter == QUOTE or not counted):
        return None
    if csv_arrow.first_record(path, delimiter, QUOTE, encoding) != columns \
            or len(columns) < 2 or len(set(columns)) != len(columns):
        return None  # pandas renamed or skipped something, or a lone column
    n_quotes = csv_arrow.quotes(path, ord(QUOTE))
    if n_quotes % 2:  # a quoted value left open: pandas refuses it, Arrow would not
        return None
    read = counted + [c for c in pseudonyms if c not in counted]
    labels = {c: Labels() for c in counted}
    parts: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
    pending: list[list[np.ndarray]] = []  # blocks' codes not yet grouped
    bad: set[str] = set()
    start = grouped = 0

    def spans() -> list[int]:
        return [len(labels[c]) for c in counted] + [2] * (subset_mask is not None)

    def group() -> None:
        nonlocal parts, pending, grouped
        codes = [np.concatenate(col) for col in zip(*pending)]
        opens, first, counts = _distinct(_combine(codes, spans()),
                                         np.arange(grouped, start, dtype=np.int64))
        parts.append((np.stack([c[opens] for c in codes], axis=1), counts, first))
        pending, grouped = [], start
        if len(parts) >= MERGE_EVERY:
            parts = [_merge(parts, spans())]

    try:
        # the file read, not mapped: memory holds a few blocks, never the whole file
        with pa.OSFile(str(path), "rb") as source:
            reader = pacsv.open_csv(
                source, read_options=pacsv.ReadOptions(encoding=arrow_encoding,
                                                       block_size=block_bytes,
                                                       use_threads=True),
                parse_options=csv_arrow.parse_options(delimiter, QUOTE, n_quotes > 0),
                convert_options=csv_arrow.text_columns(read, include=True))
            for batch in reader:
                n = batch.num_rows
                if not n:
                    continue
                codes = []
                for c in read:
                    array = batch.column(c)
                    if not pa.types.is_dictionary(array.type):
                        return None
                    if n_quotes and _holds(array.dictionary, QUOTE):
                        return None  # pandas keeps a quote inside a value; Arrow may not
                    if c in pseudonyms and c not in bad and not looks_pseudonymized(
                            array.dictionary.to_pylist(), pseudonyms[c]):
                        bad.add(c)
                    if c in labels:
                        codes.append(labels[c].codes(array))
                if subset_mask is not None:
                    codes.append(subset_mask(start, start + n).astype(np.int32))
                pending.append(codes)
                start += n
                if start - grouped >= GROUP_ROWS:
                    group()
            if pending:
                group()
    except (pa.ArrowException, UnicodeError, ValueError, OSError):
        return None  # pandas reads it, or says why
    if not start:  # no records: pandas' count is as quick
        return None
    rows, weights, _ = _merge(parts, spans())
    columns = {}
    for j, c in enumerate(counted):
        words = np.empty(len(labels[c]), dtype=object)
        words[:] = labels[c].words
        columns[c] = words[rows[:, j]]
    flags = rows[:, -1].astype(bool) if subset_mask is not None else None
    return CodedRows(columns, weights, flags, start, bad)
