"""Columns scanned and scrubbed value by value: each distinct value is read once, its
rows counted from the codes (or a frequency table's weights); the row's own
identifying numbers (a record number in its own note) are checked on the few rows
whose value holds one of them.
"""
from __future__ import annotations

import contextlib
import functools
import gc
from collections import Counter
from dataclasses import dataclass

import numpy as np

from engine.identifiers import ID, KIND_LABELS, IdentifyingValues, with_own
from engine.identifiers.names import OWN_DETAIL

#: examples kept per column and kind (for the app; messages name rows only)
EXAMPLES = 3


@dataclass(frozen=True)
class Finding:
    """Identifiers of one kind found in one column."""

    column: str
    kind: str
    count: int          # rows (records) holding at least one
    first_row: int      # the first such data row, 0-based
    examples: tuple[str, ...] = ()   # values holding one (for the app, never printed)

    @property
    def label(self) -> str:
        return KIND_LABELS.get(self.kind, self.kind)

    def message(self) -> str:
        """The column, the kind, the count and the first row (1-based data row), with
        no value."""
        rows = "1 row" if self.count == 1 else f"{self.count:,} rows"
        first = (f"first in data row {self.first_row + 1}" if self.first_row >= 0 else
                 "the first row not known to this backend")
        return f"column '{self.column}': {self.label} [{self.kind}] in {rows}, {first}"

    def to_dict(self) -> dict:
        return {"column": self.column, "kind": self.kind, "rows": self.count,
                "first_row": self.first_row + 1}


@dataclass
class OwnNumbers:
    """The identifying columns whose values are numbers, row by row (codes and
    dictionary each): a row's own record number is looked for in its own note."""

    columns: list[tuple[np.ndarray, np.ndarray]]

    def of_rows(self, rows: np.ndarray) -> list[set[str]]:
        """Each of ``rows``' identifying numbers (stripped)."""
        per_column = [[str(x).strip() for x in np.asarray(d, dtype=object)[
            np.asarray(c)[rows]].tolist()] for c, d in self.columns]
        return [set(t) for t in zip(*per_column)] if per_column else [set() for _ in rows]




def _collector_paused(f):
    """``f`` with Python's cyclic garbage collector paused while it runs (and resumed
    after, if it ran before): a scan allocates many short-lived objects (spans, runs of
    digits, ``phonenumbers``' parses) that reference counting frees, yet they trigger
    collections that walk every object of the process (numba's, Arrow's): one full and
    some young ones, 0.03-0.05 s of CPU on the clinical benchmark's notes."""
    @functools.wraps(f)
    def paused(*args, **kwargs):
        with contextlib.ExitStack() as stack:
            if gc.isenabled():
                gc.disable()
                stack.callback(gc.enable)
            return f(*args, **kwargs)
    return paused


@_collector_paused
def find_in_values(dictionary, values: IdentifyingValues | None, need_own: bool = False):
    """What each of many values holds (a `fast.Found` by position in ``dictionary``:
    spans, the values scrubbed) and (``need_own``) the identifying numbers each holds as
    tokens: ``find_spans`` of each, for a column's distinct values or a batch of them
    (the DuckDB scan's). Many values go through the compiled scanner
    (``fast.find_all``), a few through ``find_spans`` each, screened in C++ first
    (``prefilter.screen``): ``fast.find_values``."""
    from engine.identifiers.fast import find_values
    return find_values(["" if v is None else str(v) for v in dictionary], values, need_own)


def _own_rows(codes, dictionary, found, values, own: OwnNumbers):
    """Rows whose value holds the row's own identifying number: row -> its spans as
    (start, end, kind) in text order and how many of them are the row's own numbers
    (``found``: the values' own, found by `find_in_values`). As ``with_own``: each own
    number where the compiled scanner found it as a token, added when it overlaps none
    of the value's spans nor an own number added before it."""
    out = {}
    candidates = found.numbers
    if not candidates:
        return out
    keys = np.fromiter(candidates, dtype=np.int64, count=len(candidates))
    rows = np.flatnonzero(np.isin(codes, keys))
    row_codes = np.asarray(codes)[rows].tolist()
    hits = [(row, code, mine) for row, code, owned in
            zip(rows.tolist(), row_codes, own.of_rows(rows))
            for mine in (owned & candidates[code],) if mine]
    tokens = found.tokens
    compiled = [h for h in hits if h[1] in tokens]
    for (row, code, mine), spans in zip(compiled, found.triples([h[1] for h in compiled])):
        taken = list(spans)
        for s, e, t in tokens[code]:
            if t in mine and all(e <= a or z <= s for a, z, _ in taken):
                taken.append((s, e, ID))
        if len(taken) > len(spans):
            taken.sort()
            out[row] = (taken, len(taken) - len(spans))
    for row, code, mine in hits:  # values ``find_spans`` read: their spans, a new search
        if code not in tokens:
            spans = with_own(str(dictionary[code]), found.spans(code), values, mine)
            added = sum(s.detail == OWN_DETAIL for s in spans)
            if added:
                out[row] = ([(s.start, s.end, s.kind) for s in spans], added)
    return out


def _scrubbed(text: str, spans) -> str:
    """``scrub_text`` of (start, end, kind) in text order."""
    out, at = [], 0
    for s, e, kind in spans:
        out.append(text[at:s])
        out.append(f"[{kind}]")
        at = e
    out.append(text[at:])
    return "".join(out)


@_collector_paused
def scan_column(name: str, dictionary, codes: np.ndarray,
                values: IdentifyingValues | None = None, own: OwnNumbers | None = None,
                weights: np.ndarray | None = None, rows: np.ndarray | None = None
                ) -> list[Finding]:
    """The identifiers in a column given by its distinct values (``dictionary``) and
    each row's ``codes``; counts are rows (``weights``: records per row of a frequency
    table, whose ``rows`` give each row's first data row)."""
    codes = np.asarray(codes)
    need_own = own is not None and values is not None and bool(values.numbers)
    found = find_in_values(dictionary, values, need_own)
    own_rows = _own_rows(codes, dictionary, found, values, own) if need_own else {}
    if not found.any and not own_rows:
        return []
    per_kind = {kind: set(codes_.tolist()) for kind, codes_ in found.per_kind().items()}
    counts = np.bincount(codes, weights=weights, minlength=len(dictionary))
    out = []
    for kind, kind_codes in per_kind.items():
        keys = np.fromiter(kind_codes, dtype=np.int64)
        hit = np.isin(codes, keys)
        extra = [r for r, (f, _) in own_rows.items()
                 if not hit[r] and any(s[2] == kind for s in f)]
        total = int(round(counts[keys].sum())) + len(extra)
        at = np.flatnonzero(hit)
        first = min(([int(at[0])] if len(at) else []) + extra)
        if rows is not None:
            first = int(np.asarray(rows)[first])
        examples = tuple(str(dictionary[c]) for c in sorted(kind_codes)[:EXAMPLES])
        out.append(Finding(name, kind, total, first, examples))
    kinds = set(per_kind)
    for kind in sorted({s[2] for f, _ in own_rows.values() for s in f} - kinds):
        mine = sorted(r for r, (f, _) in own_rows.items() if any(s[2] == kind for s in f))
        out.append(Finding(name, kind, len(mine), mine[0],
                           tuple(str(dictionary[codes[r]]) for r in mine[:EXAMPLES])))
    return sorted(out, key=lambda f: (f.first_row, f.kind))


@_collector_paused
def scrub_column(dictionary, codes: np.ndarray, values: IdentifyingValues | None = None,
                 own: OwnNumbers | None = None) -> tuple[np.ndarray, Counter]:
    """Each row's value with every identifier replaced by its kind in brackets, and the
    replacements per kind."""
    codes = np.asarray(codes)
    need_own = own is not None and values is not None and bool(values.numbers)
    found = find_in_values(dictionary, values, need_own)
    own_rows = _own_rows(codes, dictionary, found, values, own) if need_own else {}
    scrubbed = np.asarray(dictionary, dtype=object).copy()
    done = found.scrubbed  # the values the kernels scrubbed, then the others holding a span
    keys = np.fromiter(done, dtype=np.int64, count=len(done))
    scrubbed[keys] = list(done.values())
    left = np.zeros(len(scrubbed), dtype=bool)
    left[found.holding()] = True
    left[keys] = False
    rest = np.flatnonzero(left).tolist()
    scrubbed[rest] = [found.scrub(c, str(dictionary[c])) for c in rest]
    out = scrubbed[codes]
    counts = np.bincount(codes, minlength=len(dictionary))
    replaced: Counter = Counter(found.replaced(counts))
    for row, (spans, added) in own_rows.items():
        out[row] = _scrubbed(str(dictionary[codes[row]]), spans)
        replaced[ID] += added  # the value's spans are counted above with its rows
    return out, replaced


def scan_table(table, identifying: list[str], columns: list[str] | None = None,
               max_values: int = 20_000) -> dict[str, list[Finding]]:
    """Findings per column of an ``EncodedTable`` (the app's and the guide's view before
    a release: ``columns``, default every column not in ``identifying``), the values of
    ``identifying`` looked for inside them. A column of more than ``max_values``
    distinct values is judged on the first ``max_values`` of them (its counts are then
    of the rows holding those)."""
    names = [n for n in (columns if columns is not None else table.names)
             if n in table.names and n not in identifying]
    values = IdentifyingValues.build({n: table.column(n).dictionary for n in identifying
                                      if n in table.names})
    number_cols = [table.column(n) for n in values.number_columns]
    own = OwnNumbers([(c.codes, c.dictionary) for c in number_cols]) if number_cols else None
    out = {}
    for name in names:
        col = table.column(name)
        dictionary, codes = col.dictionary, col.codes
        if len(dictionary) > max_values:  # the rows holding the first values only
            rows = np.flatnonzero(codes < max_values)
            found = scan_column(name, dictionary[:max_values], codes[rows], values,
                                rows=rows)
        else:
            found = scan_column(name, dictionary, codes, values, own)
        if found:
            out[name] = found
    return out
