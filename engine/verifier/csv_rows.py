"""The verifier's own count of a released CSV file's distinct rows, on every core, and
the identifier scan of its columns in the same reading.

`engine.data.csv_distinct` reads a file through Arrow's streaming reader, which parses
ahead on its own threads but hands every block to one thread that codes and groups it:
about one core. Here the file is cut into pieces of ``piece_bytes`` at record
boundaries and a pool of threads parses and groups one piece each at a time, in
Arrow's C++ and numpy (the CSV parser, the piece's dictionary codes packed into one
key per row, those keys numbered by Arrow's hash table: no GIL held for long). The main thread only
gives each piece's few distinct labels the file's numbers and adds the piece's
distinct rows to the file's (`_Distinct`: a binary search among the known rows' keys),
so the result is `csv_distinct.count_csv`'s: each counted column's strings for the
file's distinct rows in order of first appearance, with their records.

A file is first cut at any newline, as holding no quote character; a piece that holds
one stops that reading and the file is read again cut only outside quoted values (a
newline with an even number of quote bytes before it), with values that may span
lines. Unquoted files (most releases) are so never read whole before the pieces.

The identifier scan (``anonymist verify``, issue 25) reads the same records: columns
that are counted are scanned once on their distinct values at the end (each value's
records and first row from the distinct rows), the other released columns piece by
piece in the threads (as `engine.identifiers.released` scans a file block by block).
So the command reads the file once, not twice.

What it declines (None: the caller reads the file as before): what `count_csv`
declines (a value holding the quote character, records of another width, bytes that
do not decode, a header Arrow reads otherwise), a research-subset flag per row, and
an error in any piece. Memory: the pieces being parsed (one per thread, smaller pieces
for many threads: `piece_size`) and the distinct rows, never the file.
"""
from __future__ import annotations

import os
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from engine.data import csv_arrow
from engine.data.arrow_numpy import from_numpy, to_numpy
from engine.data.csv_distinct import QUOTE, Labels, _merge

#: bytes per piece: one thread's unit of work (about 200,000 rows of an Adult-like table)
PIECE_BYTES = 16 * 2**20
#: bytes of the pieces being parsed at once, all threads together: more threads than
#: this allows 16 MB pieces each get smaller ones (`piece_size`), so memory does not
#: grow with the cores. A piece takes about 5 times its size while it is parsed and
#: grouped; the 10 M-row release peaked at 270 MB on 1 thread, 374 MB on 2, 620 MB on
#: 8 threads of 8 MB, 744 MB on 16 of 4 MB, 461 MB on 16 of 2 MB (measured
#: oversubscribed on 2 cores: memory does not depend on the cores)
IN_FLIGHT_BYTES = 64 * 2**20
MIN_PIECE_BYTES = 2**20
#: threads at most (past this, memory per thread outgrows the gain of one more)
MAX_THREADS = 32
#: merge the pieces' distinct rows once this many have arrived
MERGE_EVERY = 8
#: bytes read at once while looking for record boundaries
_SCAN_BYTES = 1 << 24


@dataclass
class PieceRows:
    """`csv_distinct.CodedRows` plus what the identifier scan needs: per counted column
    its labels and each distinct row's label code, each distinct row's first row, and
    the findings of the columns scanned piece by piece ((column, kind) -> [rows, first
    row])."""
    columns: dict[str, np.ndarray]
    weights: np.ndarray
    rows: int
    bad_pseudonyms: set[str] = field(default_factory=set)
    in_subset: np.ndarray | None = None  # a subset flag per row declines the file
    labels: dict[str, tuple[np.ndarray, np.ndarray]] = field(default_factory=dict)
    first_rows: np.ndarray | None = None
    findings: dict[tuple[str, str], list[int]] = field(default_factory=dict)
    pieces: int = 0


def cores() -> int:
    """The cores this process may run on (at most `MAX_THREADS`)."""
    n = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return max(1, min(n or 1, MAX_THREADS))


def piece_size(threads: int) -> int:
    """The bytes of a piece for ``threads`` threads: `PIECE_BYTES`, smaller once the
    pieces in flight would pass `IN_FLIGHT_BYTES`."""
    return max(MIN_PIECE_BYTES, min(PIECE_BYTES, IN_FLIGHT_BYTES // max(threads, 1)))


def boundaries(path: Path, piece_bytes: int, quoted: bool) -> list[int]:
    """Byte offsets cutting the file into pieces of about ``piece_bytes``: 0, each the
    byte after a newline outside quoted values (``quoted``: an even number of quote
    bytes before it; else every newline) at or after the next multiple, and the
    file's size. The first cut follows the first record (the header)."""
    size = path.stat().st_size
    cuts = [0]
    quote = QUOTE.encode()
    parity = 0          # quote bytes before `counted` (mod 2)
    header_done = False
    with open(path, "rb") as f:
        base = 0
        want = piece_bytes
        while chunk := f.read(_SCAN_BYTES):
            counted = 0
            at = 0 if not header_done else max(want - base, 0)
            while at < len(chunk):
                nl = chunk.find(b"\n", at)
                if nl < 0:
                    break
                if quoted:
                    parity = (parity + chunk.count(quote, counted, nl)) % 2
                    counted = nl
                if parity == 0:
                    if not header_done:
                        if chunk[:nl].strip(b"\r\n") or base:  # a non-blank first record
                            header_done = True
                            want = max(want, base + nl + 1)
                            at = max(want - base, nl + 1)
                            continue
                    elif base + nl + 1 < size:
                        cuts.append(base + nl + 1)
                        want = base + nl + 1 + piece_bytes
                        at = want - base
                        continue
                at = nl + 1
            if quoted:
                parity = (parity + chunk.count(quote, counted)) % 2
            base += len(chunk)
            if not quoted and header_done and want > base:  # skip to the next cut
                f.seek(min(want, size))
                base = f.tell()
    return cuts + [size]


def count_pieces(path: Path, delimiter: str, encoding: str, columns: list[str],
                 counted: list[str], pseudonyms: dict, looks_pseudonymized: Callable,
                 scanned: list[str] = (), scan: Callable | None = None,
                 piece_bytes: int = PIECE_BYTES, threads: int | None = None
                 ) -> PieceRows | None:
    """``path``'s distinct rows over ``counted`` with their records (the ``pseudonyms``
    columns checked with ``looks_pseudonymized``), and the identifier findings of the
    ``scanned`` columns that are not counted: ``scan(column, values, codes)`` gives a
    piece's (`engine.identifiers.scan.Finding`, first row within the piece). ``columns``
    is the header as pandas reads it. None: read the file as before.

    The file is first read as holding no quote character, each piece looking for one
    in its thread (no reading of the whole file beforehand); a piece that holds one
    stops that reading and the file is read again with quoted values, cut outside
    them (an odd number of quote bytes: a value left open, declined)."""
    arrow_encoding = csv_arrow.arrow_encoding(encoding)
    if (arrow_encoding is None or len(delimiter) != 1 or not delimiter.isascii()
            or delimiter == QUOTE or not counted):
        return None
    if csv_arrow.first_record(path, delimiter, QUOTE, encoding) != columns \
            or len(columns) < 2 or len(set(columns)) != len(columns):
        return None  # pandas renamed or skipped something, or a lone column
    reading = _Reading(path, delimiter, arrow_encoding, columns, counted, pseudonyms,
                       looks_pseudonymized, scanned, scan, piece_bytes, threads)
    try:
        return reading.run(quoted=False)
    except _Quoted:
        pass
    n_quotes = csv_arrow.quotes(path, ord(QUOTE))
    if n_quotes % 2:  # a quoted value left open: pandas refuses it, Arrow would not
        return None
    try:
        return reading.run(quoted=True)
    except _Quoted:  # not reached: quoted values are read as such
        return None


class _Quoted(Exception):
    """A piece holds the quote character: read the file again with quoted values."""


class _Declined(Exception):
    """Arrow could read the file otherwise than pandas: the caller reads it."""


class _Reading:
    """One reading of the file in pieces (`count_pieces`)."""

    def __init__(self, path, delimiter, arrow_encoding, columns, counted, pseudonyms,
                 looks_pseudonymized, scanned, scan, piece_bytes, threads):
        self.path, self.delimiter, self.encoding = path, delimiter, arrow_encoding
        self.columns, self.counted, self.pseudonyms = columns, counted, pseudonyms
        self.looks = looks_pseudonymized
        self.extra = [c for c in scanned if c not in counted and c not in pseudonyms]
        self.read = list(dict.fromkeys(counted + list(pseudonyms) + self.extra))
        self.scan, self.piece_bytes = scan, piece_bytes
        self.threads = threads or cores()

    def piece(self, i: int, cuts: list[int], quoted: bool):
        """Piece ``i`` parsed and grouped (in a worker thread): its counted columns'
        dictionaries, its distinct rows' codes in those (in order of first row), their
        records and first rows, its rows, bad pseudonym columns and findings."""
        import pyarrow as pa
        import pyarrow.compute as pc
        import pyarrow.csv as pacsv

        from engine.data.csv_distinct import _combine, _distinct
        with open(self.path, "rb") as f:
            f.seek(cuts[i])
            data = f.read(cuts[i + 1] - cuts[i])
        if not quoted and QUOTE.encode() in data:  # memchr: a few ms a piece
            raise _Quoted
        if i and not data.strip(b"\r\n"):
            return None
        table = pacsv.read_csv(
            pa.py_buffer(data),
            read_options=pacsv.ReadOptions(encoding=self.encoding, use_threads=False,
                                           block_size=max(len(data) + 1, 1 << 16),
                                           column_names=None if i == 0 else self.columns),
            parse_options=csv_arrow.parse_options(self.delimiter, QUOTE, quoted),
            convert_options=csv_arrow.text_columns(self.read, include=True))
        n = table.num_rows
        if not n:
            return None
        table = table.unify_dictionaries().combine_chunks()
        words, codes, bad, found = {}, {}, set(), []
        for c in self.read:
            column = table.column(c)
            if not pa.types.is_dictionary(column.type):
                raise _Declined
            array = column.chunk(0)
            if quoted and len(array.dictionary) and pc.any(
                    pc.match_substring(array.dictionary, QUOTE)).as_py():
                raise _Declined  # pandas keeps a quote inside a value; Arrow may not
            if c in self.pseudonyms and not self.looks(array.dictionary.to_pylist(),
                                                       self.pseudonyms[c]):
                bad.add(c)
            if c in self.extra and self.scan is not None:
                found += self.scan(c, np.asarray(array.dictionary.to_pylist(), dtype=object),
                                   to_numpy(array.indices))
            words[c], codes[c] = array.dictionary, to_numpy(array.indices)
        # one int64 key per row (numpy), numbered by Arrow's hash table as the keys first
        # appear (`csv_distinct._distinct`: no GIL held, no pandas loaded by Acero)
        key = _combine([codes[c] for c in self.counted],
                       [len(words[c]) for c in self.counted])
        first, _, records = _distinct(key, np.arange(n, dtype=np.int64))
        rows = np.stack([codes[c][first] for c in self.counted], axis=1)
        return ([words[c] for c in self.counted], rows, records, first, n, bad, found)

    def run(self, quoted: bool) -> PieceRows | None:
        import pyarrow as pa
        counted = self.counted
        cuts = boundaries(self.path, self.piece_bytes, quoted)
        labels = {c: Labels() for c in counted}
        distinct = _Distinct(len(counted))
        findings: dict[tuple[str, str], list[int]] = {}
        bad_pseudonyms: set[str] = set()
        start = 0

        def add(got) -> None:
            nonlocal start
            if got is None:
                return
            dictionaries, rows, records, first, n, bad, found = got
            mapped = np.empty(rows.shape, dtype=np.int64)
            for j, (c, words) in enumerate(zip(counted, dictionaries)):
                own = pa.DictionaryArray.from_arrays(
                    from_numpy(np.arange(len(words), dtype=np.int32)), words)
                mapped[:, j] = labels[c].codes(own)[rows[:, j]]
            distinct.add(mapped, records, first + start, [len(labels[c]) for c in counted])
            bad_pseudonyms.update(bad)
            for f in found:  # pieces come in file order: the first one's row is the first
                key = (f.column, f.kind)
                if key in findings:
                    findings[key][0] += f.count
                else:
                    findings[key] = [f.count, f.first_row + start]
            start += n

        try:
            with ThreadPoolExecutor(max_workers=self.threads,
                                    thread_name_prefix="verify-csv") as pool:
                # a piece waiting beside each thread's; a finished piece's result is
                # small (its distinct rows), one being parsed takes a few times its size
                window = self.threads + 2
                pending = []
                try:
                    for i in range(len(cuts) - 1):
                        pending.append(pool.submit(self.piece, i, cuts, quoted))
                        if len(pending) >= window:
                            add(pending.pop(0).result())
                    while pending:
                        add(pending.pop(0).result())
                finally:
                    for future in pending:  # stopped: the pieces not begun are dropped
                        future.cancel()
        except (_Declined, pa.ArrowException, UnicodeError, ValueError, OSError, KeyError):
            return None  # pandas reads it, or says why
        if not start:  # no records: pandas' count is as quick
            return None
        rows, weights, first = distinct.result([len(labels[c]) for c in counted])
        out, coded = {}, {}
        for j, c in enumerate(counted):
            words = np.empty(len(labels[c]), dtype=object)
            words[:] = labels[c].words
            out[c] = words[rows[:, j]]
            coded[c] = (words, rows[:, j])
        return PieceRows(out, weights, start, bad_pseudonyms, None, coded, first, findings,
                         len(cuts) - 1)


class _Distinct:
    """The file's distinct rows so far (each counted column's label code), in order of
    first row, with their records. A piece's distinct rows (distinct among themselves,
    in order of first row, after every row before them) are looked up among those by
    their codes packed into one integer (a binary search among the known rows' keys,
    kept sorted: numpy, no hash table built again per piece): known ones add their
    records, new ones are appended. Rows whose codes do not fit in 62 bits are merged by
    regrouping (`csv_distinct._merge`) instead."""

    def __init__(self, width: int):
        self.codes = np.empty((0, width), dtype=np.int64)
        self.records = np.empty(0, dtype=np.int64)
        self.first = np.empty(0, dtype=np.int64)
        self.bits: list[int] | None = None
        self._sort(np.empty(0, dtype=np.int64))
        self.parts: list | None = None  # regrouping, once the codes do not fit

    @staticmethod
    def _pack(codes: np.ndarray, bits: list[int]) -> np.ndarray:
        key = np.zeros(len(codes), dtype=np.int64)
        for j, b in enumerate(bits):
            key = (key << b) | codes[:, j]
        return key

    def add(self, codes: np.ndarray, records: np.ndarray, first: np.ndarray,
            spans: list[int]) -> None:
        bits = [max(1, int(s - 1).bit_length()) for s in spans]
        if self.parts is None and sum(bits) > 62:
            self.parts = [(self.codes, self.records, self.first)]
        if self.parts is not None:
            self.parts.append((codes, records, first))
            if len(self.parts) >= MERGE_EVERY:
                self.parts = [_merge(self.parts, spans)]
            return
        if bits != self.bits:  # a column's labels outgrew its bits: pack again
            self.bits = bits
            self._sort(self._pack(self.codes, bits))
        keys = self._pack(codes, bits)
        at = np.full(len(keys), -1, dtype=np.int64)
        if len(self.sorted):  # binary search among the sorted keys
            where = np.minimum(np.searchsorted(self.sorted, keys), len(self.sorted) - 1)
            hit = self.sorted[where] == keys
            at[hit] = self.order[where[hit]]
        known = at >= 0
        if known.any():
            self.records = self.records + np.rint(np.bincount(
                at[known], weights=records[known], minlength=len(self.records))
            ).astype(np.int64)
        new = ~known
        self.codes = np.concatenate([self.codes, codes[new]])
        self.records = np.concatenate([self.records, records[new]])
        self.first = np.concatenate([self.first, first[new]])
        if new.any():
            self._sort(np.concatenate([self.keys, keys[new]]))

    def _sort(self, keys: np.ndarray) -> None:
        self.keys = keys
        self.order = np.argsort(keys, kind="stable")
        self.sorted = keys[self.order]

    def result(self, spans: list[int]):
        """The distinct rows' codes, records and first rows, in order of first row."""
        if self.parts is not None:
            return _merge(self.parts, spans)
        return self.codes, self.records, self.first


def identifier_findings(got: PieceRows, job, values, generalized=()) -> list:
    """The identifier scan's findings (`engine.identifiers.released.scan_chunks`'s)
    from a reading in pieces: the columns scanned piece by piece as found there, the
    counted ones on their distinct values (each value's records and first row), the
    ``generalized`` quasi-identifiers not scanned (their labels are the hierarchies')."""
    from engine.identifiers.released import scanned
    from engine.identifiers.scan import Finding, scan_column
    total = {key: list(found) for key, found in got.findings.items()}
    skip = set(generalized)
    for c in scanned(list(got.labels), job):
        if c in skip:
            continue
        words, codes = got.labels[c]
        for f in scan_column(c, words, codes, values, weights=got.weights,
                             rows=got.first_rows):
            total[(c, f.kind)] = [f.count, f.first_row]
    return sorted((Finding(c, k, n, first) for (c, k), (n, first) in total.items()),
                  key=lambda f: (f.column, f.first_row))
