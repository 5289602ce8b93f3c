"""Identifiers in the columns DuckDB releases, found where the records are.

The scan streams: one query groups every scanned or scrubbed column's distinct values
with their record counts and first row (GROUPING SETS), fetched in Arrow batches and
checked value by value (``engine.identifiers``), so Python holds one batch and the
findings, whatever the number of rows. A column whose values are almost all distinct
(a visit number) is not grouped (DuckDB's hash table of its values grew with the rows,
768 MB at 10 M rows): it is read in row order, each batch's distinct values checked
with their records and first row in the batch (`row_order_columns`, `_row_order`);
the findings are the same. A second streamed query looks for each row's
own identifying number (a record number in its own note) among the rows whose value
holds it (``contains`` in DuckDB, a join of the row with itself). Scrubbing is a
vectorized function in the release query (`scrub_functions`), per row, with the same
spans as in memory. A scrubbed column is not scanned before the release: nothing in it
refuses a release, and its replacements are counted by the scrubbing function while
the release is written (`ScrubTally`), so each row's identifiers are looked for once;
asked for before any release, they are counted by `scan` as before.

The job's identifying numbers (a record number per person) are not held in Python: a
number is looked for in its own row only, so the row's value is enough
(``IdentifyingValues.build(..., hold_numbers=False)``). What is held is the words of
the name-like identifying columns and their other values with a letter (codes), which
are looked for in every row (`identifying_values`).
"""
from __future__ import annotations

import threading
from collections import Counter

import numpy as np

from engine.identifiers import IdentifyingValues, scrub_text, with_own
from engine.identifiers.scan import EXAMPLES, Finding, find_in_values

BATCH_ROWS = 50_000
#: a column of at least this many records whose distinct values are at least this
#: share of them is scanned in row order, not grouped (`row_order_columns`)
ROW_ORDER_ROWS = 100_000
DISTINCT_SHARE = 0.5
OWN = "the row's own identifier"


def _ident(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _text(name: str) -> str:
    return f"coalesce(CAST({_ident(name)} AS VARCHAR), '')"


def identifying_values(backend, names: list[str]) -> IdentifyingValues:
    """The identifying columns' distinct values, streamed from the backend (their
    numbers not held: `scan`; their words and codes are)."""
    names = [n for n in names if n in backend.columns()]
    if not names:
        return IdentifyingValues()
    return IdentifyingValues.build_streamed(
        {n: (lambda n=n: distinct_chunks(backend, n)) for n in names}, hold_numbers=False)


def distinct_chunks(backend, name: str):
    """A column's distinct values as text (missing as ''), in chunks of `BATCH_ROWS`."""
    sql = f"SELECT DISTINCT {_text(name)} AS v FROM {backend.scan()}"
    for batch in _batches(backend, sql):
        yield batch.column(0).to_pylist()


def _batches(backend, sql: str):
    with backend._lock:  # one call at a time on the connection
        try:
            reader = backend.con.sql(sql).to_arrow_reader(BATCH_ROWS)
            for batch in reader:
                yield batch
        except backend._duckdb.Error as e:
            from engine.errors import DataError
            raise DataError(f"{backend.source.label}: {str(e).splitlines()[0]}") from None


def scan(backend, scanned: list[str], scrubbed: list[str], identifying: list[str],
         values: IdentifyingValues | None = None, in_row_order: set[str] | None = None
         ) -> dict:
    """``{"findings": [Finding...], "scrubbed": {column: {kind: replacements}}}`` of the
    backend's records (counts are records, first rows 0-based data rows).
    ``in_row_order``: the columns read row by row (`_row_order`), None to decide by
    their distinct values (`row_order_columns`)."""
    present = set(backend.columns())
    columns = [c for c in dict.fromkeys(list(scanned) + list(scrubbed)) if c in present]
    values = values if values is not None else identifying_values(backend, identifying)
    found: dict[tuple[str, str], list] = {}
    replaced: dict[str, Counter] = {c: Counter() for c in scrubbed if c in present}
    if in_row_order is None:
        in_row_order = row_order_columns(backend, columns)
    ordered = [c for c in columns if c in in_row_order]
    grouped = [c for c in columns if c not in in_row_order]
    if grouped:
        _grouped(backend, grouped, values, found, replaced)
    if ordered:
        _row_order(backend, ordered, values, found, replaced)
    own = [n for n in values.number_columns if n in present]
    if columns and own and (values.numbers or values.own_by_form):
        _own_rows(backend, columns, own, values, found, replaced)
    findings = [Finding(c, k, int(n), int(first), tuple(ex))
                for (c, k), (n, first, ex) in found.items() if c in scanned]
    return {"findings": sorted(findings, key=lambda f: (f.column, f.first_row, f.kind)),
            "scrubbed": {c: dict(sorted((k, int(v)) for k, v in r.items() if v))
                         for c, r in replaced.items()}}


def row_order_columns(backend, columns: list[str]) -> set[str]:
    """The ``columns`` read row by row: those whose distinct values (DuckDB's estimate,
    ``approx_count_distinct``: one read of the records holding a few KB) are at least
    `DISTINCT_SHARE` of the records, when there are `ROW_ORDER_ROWS` records or more.
    Grouping such a column (a visit number: one value a row) held a hash table of
    every value with its count and first row: at 10 M rows 768 MB of DuckDB's memory,
    up to its limit, on top of what Python holds. Read in row order, each value is
    scanned as often as it occurs (per batch once), so a column of repeated values
    stays grouped (scanned once per distinct value)."""
    if not columns:
        return set()
    est = ", ".join(f"approx_count_distinct({_text(c)})" for c in columns)
    got = None
    for batch in _batches(backend, f"SELECT count(*), {est} FROM {backend.scan()}"):
        got = [batch.column(i)[0].as_py() for i in range(batch.num_columns)]
    if not got or got[0] < ROW_ORDER_ROWS:
        return set()
    rows = got[0]
    return {c for c, d in zip(columns, got[1:]) if d >= DISTINCT_SHARE * rows}


def _grouped(backend, columns, values, found, replaced) -> None:
    """Each column's distinct values with their records and first row (one query,
    GROUPING SETS), checked as they come."""
    cols = ", ".join(_ident(c) for c in columns)
    flags = ", ".join(f"grouping({_ident(c)}) AS __g{j}" for j, c in enumerate(columns))
    sets = ", ".join(f"({_ident(c)})" for c in columns)
    inner = ", ".join([f"{_text(c)} AS {_ident(c)}" for c in columns]
                      + ["row_number() OVER () - 1 AS __rn"])
    sql = (f"SELECT {cols}, count(*) AS __n, min(__rn) AS __first, {flags} FROM "
           f"(SELECT {inner} FROM {backend.scan()}) GROUP BY GROUPING SETS ({sets})")
    for batch in _batches(backend, sql):
        counts = batch.column("__n").to_numpy(zero_copy_only=False)
        firsts = batch.column("__first").to_numpy(zero_copy_only=False)
        for j, c in enumerate(columns):
            mine = np.flatnonzero(batch.column(f"__g{j}").to_numpy(
                zero_copy_only=False) == 0)  # this column's grouping set
            if len(mine):
                _check(c, batch.column(c).take(mine).to_pylist(), counts[mine],
                       firsts[mine], values, found, replaced)


def _row_order(backend, columns, values, found, replaced) -> None:
    """The columns' values row by row (a streamed query without grouping: DuckDB holds
    a batch), each batch's distinct values checked once with their records and first
    row in the batch: the findings of `_grouped`, summed over the batches."""
    inner = ", ".join([f"{_text(c)} AS {_ident(c)}" for c in columns]
                      + ["row_number() OVER () - 1 AS __rn"])
    for batch in _batches(backend, f"SELECT {inner} FROM {backend.scan()}"):
        rn = batch.column("__rn").to_numpy(zero_copy_only=False)
        for c in columns:
            encoded = batch.column(c).dictionary_encode()
            codes = encoded.indices.to_numpy(zero_copy_only=False)
            texts = encoded.dictionary.to_pylist()
            n = np.bincount(codes, minlength=len(texts))
            first = np.full(len(texts), np.iinfo(np.int64).max, np.int64)
            np.minimum.at(first, codes, rn)
            _check(c, texts, n, first, values, found, replaced)


def _check(c, texts, n, first, values, found, replaced) -> None:
    """Add to ``found`` (and ``replaced``) what the distinct ``texts`` of column ``c``
    hold, held by ``n`` records each, the first of them row ``first``."""
    got = find_in_values(texts, values)  # what each distinct value holds
    if not got.any:
        return
    if c in replaced:
        replaced[c].update(got.replaced(n))
    for kind, held in got.per_kind().items():
        entry = found.setdefault((c, kind), [0, int(first[held].min()), []])
        entry[0] += int(n[held].sum())
        entry[1] = min(entry[1], int(first[held].min()))
        for i in held:  # a value seen again in a later batch is one example
            if len(entry[2]) >= EXAMPLES:
                break
            if texts[i] not in entry[2]:
                entry[2].append(texts[i])


def _digits(column: str) -> str:
    """SQL: the first run of digits of a column's value (its stripped value when that is
    a number: the value a row's own number is looked for as)."""
    return f"regexp_extract({_text(column)}, '\\p{{Nd}}+')"


def _own_rows(backend, columns, own, values, found, replaced) -> None:
    """Rows whose value holds the row's own identifying number: DuckDB sends only the
    rows where a column's text contains one of the row's numbers (of 3 digits or more),
    Python checks them as tokens (`IdentifyingValues.row_numbers`)."""
    inner = ", ".join([f"{_text(c)} AS {_ident(c)}" for c in columns]
                      + [f"{_text(o)} AS __own{k}" for k, o in enumerate(own)]
                      + [f"{_digits(o)} AS __d{k}" for k, o in enumerate(own)]
                      + ["row_number() OVER () - 1 AS __rn"])
    test = " OR ".join(f"(length(__d{k}) >= 3 AND contains({_ident(c)}, __d{k}))"
                       for c in columns for k in range(len(own)))
    sql = f"SELECT * FROM (SELECT {inner} FROM {backend.scan()}) WHERE {test}"
    for batch in _batches(backend, sql):
        data = batch.to_pydict()
        rows = []  # (row, column, text, the row's own numbers in it)
        for i, row in enumerate(data["__rn"]):
            mine = {data[f"__own{k}"][i].strip() for k in range(len(own))}
            for c in columns:
                v = data[c][i]
                cand = values.row_numbers(v, mine)
                if cand:
                    rows.append((row, c, v, cand))
        got = find_in_values([v for _, _, v, _ in rows], values)  # each value's own spans
        for i, (row, c, v, cand) in enumerate(rows):
            base = got.spans(i)  # counted by the scan with the value's records
            spans = with_own(v, base, values, cand)  # the row's: its own numbers added
            if not any(s.detail == OWN for s in spans):
                continue
            if c in replaced:  # the row's spans instead of its value's
                for s in spans:
                    replaced[c][s.kind] += 1
                for s in base:
                    replaced[c][s.kind] -= 1
            if not any(s.kind == "ID" for s in base):
                entry = found.setdefault((c, "ID"), [0, row, []])
                entry[0] += 1
                entry[1] = min(entry[1], row)
                if len(entry[2]) < EXAMPLES:
                    entry[2].append(v)


class ScrubTally:
    """Replacements per scrubbed column and kind, counted by the scrubbing functions
    while a release is written (`start` .. `stop`; the other queries calling them,
    pages and the formula-cell count, count nothing). DuckDB may call a function from
    several threads: the counts are added under a lock."""

    def __init__(self):
        self._lock = threading.Lock()
        self._counts: dict[str, Counter] | None = None
        #: the counts of the last release written with every record, by its tuple of
        #: scrubbed columns (the scrubbed text of a row does not depend on the levels)
        self.written: dict[tuple[str, ...], dict[str, dict[str, int]]] = {}

    def start(self, columns) -> None:
        with self._lock:
            self._counts = {c: Counter() for c in columns}

    def add(self, column: str, counts) -> None:
        with self._lock:
            if self._counts is not None and column in self._counts:
                self._counts[column].update(counts)

    @property
    def active(self) -> bool:
        return self._counts is not None

    def stop(self, keep: bool) -> None:
        """End the count; ``keep``: the release was written whole (every record), its
        counts answer `counted` from now on."""
        with self._lock:
            counts, self._counts = self._counts, None
        if keep and counts is not None:
            self.written[tuple(sorted(counts))] = {
                c: dict(sorted((k, int(v)) for k, v in r.items() if v))
                for c, r in counts.items()}

    def counted(self, columns) -> dict[str, dict[str, int]] | None:
        """The replacements of ``columns`` counted while a release was written, or None
        when none was written with them."""
        return self.written.get(tuple(sorted(columns)))


def scrub_functions(backend, plan) -> tuple[dict[str, str], dict[str, list[str]]]:
    """Register a vectorized scrubbing function per scrubbed column of ``plan`` and
    return the SQL calling each (over ``__own{i}_{k}``, the row's identifying numbers)
    and, per column, the SQL of those extra inputs. The functions count their
    replacements in ``backend.scrub_tally`` while it is counting."""
    calls, extra = {}, {}
    tally = getattr(backend, "scrub_tally", None)
    for i, (name, values, own) in enumerate(plan.scrubbed):
        udf = _scrubber(values, len(own), name, tally)
        fn = f"__scrub{i}"
        backend._forget(fn)
        types = ["VARCHAR"] * (1 + len(own)) + (["BOOLEAN"] if own else [])
        backend.con.create_function(fn, udf, types, "VARCHAR", type="arrow")
        extra[name] = [f"{_text(o)} AS __own{i}_{k}" for k, o in enumerate(own)]
        args = [_text(name)] + [f"__own{i}_{k}" for k in range(len(own))]
        if own:  # whether the text contains one of the row's numbers (`_own_test`)
            extra[name].append(f"({_own_test(name, own)}) AS __ownhit{i}")
            args.append(f"__ownhit{i}")
        calls[name] = f"{fn}({', '.join(args)})"
    return calls, extra


def _own_test(column: str, own: list[str]) -> str:
    """SQL: whether ``column``'s text contains the row's value of one of the number
    columns ``own`` (its digits, at least 3): the rows `IdentifyingValues.row_numbers`
    can find an own number in (a number is all digits once stripped, so its first run
    of digits is itself; `_own_rows` sends the same rows to Python)."""
    return " OR ".join(f"(length({_digits(o)}) >= 3 AND contains({_text(column)}, "
                       f"{_digits(o)}))" for o in own)


def _scrubber(values, n_own: int, name: str, tally: ScrubTally | None = None):
    """The vectorized function scrubbing one column: its texts and the rows' own
    identifying numbers (DuckDB reads the arity from the signature); while ``tally``
    counts, its replacements are added to it (each row's spans, as `scan` counts them:
    a value's spans times its rows, a row's own numbers with its own spans)."""
    import pyarrow as pa

    def core(array, owns, hit=None):
        texts = [t or "" for t in array.to_pylist()]
        index: dict[str, int] = {}  # each distinct text of the vector once
        codes = [index.setdefault(t, len(index)) for t in texts]
        got = find_in_values(list(index), values)  # the others are released as they are
        holding = set(got.holding().tolist())
        owns = [o.to_pylist() for o in owns]
        # rows whose text holds none of their numbers need no look (`_own_test`)
        hits = hit.to_pylist() if hit is not None else [bool(owns)] * len(texts)
        counting = tally is not None and tally.active
        plain = np.zeros(len(index), np.int64) if counting else None  # rows per value
        own_kinds: Counter = Counter()
        out = []
        for r, t in enumerate(texts):
            code = codes[r]
            # the row's own numbers in its text (the value's spans know no row)
            mine = values.row_numbers(t, {(o[r] or "").strip() for o in owns}) \
                if hits[r] else ()
            if mine:
                spans = got.spans(code) if code in holding else []
                spans = with_own(t, spans, values, mine)
                out.append(scrub_text(t, spans))
                if counting:
                    own_kinds.update(s.kind for s in spans)
            else:
                out.append(got.scrub(code, t) if code in holding else t)
                if counting:
                    plain[code] += 1
        if counting:
            if got.any:
                own_kinds.update(got.replaced(plain))
            tally.add(name, own_kinds)
        return pa.array(out, type=pa.string())

    arities = {0: lambda a: core(a, []), 1: lambda a, b, h: core(a, [b], h),
               2: lambda a, b, c, h: core(a, [b, c], h),
               3: lambda a, b, c, d, h: core(a, [b, c, d], h)}
    if n_own not in arities:
        from engine.errors import DataError
        raise DataError(f"attribute '{name}': scrub = true looks for each row's own "
                        f"number of at most 3 identifying columns out of core ({n_own} "
                        f"hold numbers): use [engine] backend = \"memory\"")
    return arities[n_own]


def forget_scrub_functions(backend, plan) -> None:
    for i in range(len(plan.scrubbed)):
        backend._forget(f"__scrub{i}")


__all__ = ["scan", "scrub_functions", "forget_scrub_functions", "identifying_values",
           "ScrubTally"]
