"""Identifiers in the columns DuckDB releases, found where the records are.

The scan streams: one query groups every scanned or scrubbed column's distinct values
with their record counts and first row (GROUPING SETS), fetched in Arrow batches and
checked value by value (``engine.identifiers``), so memory holds one batch and the
findings, whatever the number of rows; a second streamed query looks for each row's
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
         values: IdentifyingValues | None = None) -> dict:
    """``{"findings": [Finding...], "scrubbed": {column: {kind: replacements}}}`` of the
    backend's records (counts are records, first rows 0-based data rows)."""
    present = set(backend.columns())
    columns = [c for c in dict.fromkeys(list(scanned) + list(scrubbed)) if c in present]
    values = values if values is not None else identifying_values(backend, identifying)
    found: dict[tuple[str, str], list] = {}
    replaced: dict[str, Counter] = {c: Counter() for c in scrubbed if c in present}
    if columns:
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
                if not len(mine):
                    continue
                texts = batch.column(c).take(mine).to_pylist()
                got = find_in_values(texts, values)  # what each distinct value holds
                if not got.any:
                    continue
                n, first = counts[mine], firsts[mine]
                if c in replaced:
                    replaced[c].update(got.replaced(n))
                for kind, held in got.per_kind().items():
                    entry = found.setdefault((c, kind), [0, int(first[held].min()), []])
                    entry[0] += int(n[held].sum())
                    entry[1] = min(entry[1], int(first[held].min()))
                    entry[2].extend(texts[i] for i in held[:EXAMPLES - len(entry[2])])
    own = [n for n in values.number_columns if n in present]
    if columns and own and (values.numbers or values.own_by_form):
        _own_rows(backend, columns, own, values, found, replaced)
    findings = [Finding(c, k, int(n), int(first), tuple(ex))
                for (c, k), (n, first, ex) in found.items() if c in scanned]
    return {"findings": sorted(findings, key=lambda f: (f.column, f.first_row, f.kind)),
            "scrubbed": {c: dict(sorted((k, int(v)) for k, v in r.items() if v))
                         for c, r in replaced.items()}}


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
