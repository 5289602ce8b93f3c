"""The persons of a DuckDB frequency table counted in SQL (``[data] person`` out of core).

Counting distinct persons needs each row's person. Fetching them (a frequency-table row
per combination and person, and every person's value once in a dictionary) made the
out-of-core peak grow with the persons: 1.65 GB at 3.3 M patients. Here DuckDB does
what ``engine.kernel.person_counts.PersonRows.rollup`` does in memory, on its own
tables (spilled to disk beyond its ``memory_limit``):

1. per person and base item (a distinct combination of the quasi-identifiers the
   classifier groups by): their records, first record and values;
2. per value column (each sensitive attribute, and none for the persons alone), per
   (person, value) pair: the number of base items holding it (one: *single*);
   - single pairs counted per item and value,
   - spread pairs grouped by their value and sorted list of items into keys (their
     weight: the pairs of a key).

Python receives per-item counts and the spread part (small when persons keep their
quasi-identifiers), as a ``engine.kernel.person_tallies.PersonTally`` per value column.
Orders follow the in-memory path's (persons and values by code point, as their sorted
dictionaries; keys by their first (person, value) pair), so the ``PersonCounts`` built from them are the in-memory ones array for array
(tests/engine/test_person_sql.py).
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from engine.errors import AnonymistError, DataError
from engine.kernel.person_tallies import PersonTallies, PersonTally
from engine.kernel.sparse_counts import SparseCounts
from engine.persons import KEY, check_person_column

#: a value Python's ``str.strip()`` empties: RE2's Unicode separators and the other
#: characters ``str.isspace`` is true for (``engine.persons.empty_value_codes``)
_BLANK = r"[\t\n\x0b\f\r\x1c-\x1f\x85\p{Z}]*"
_TEMP = ("__pq", "__pit", "__pqi", "__ppair", "__psp")


def _ident(name: str) -> str:
    return '"' + str(name).replace('"', '""') + '"'


def _text(name: str, alias: str) -> str:
    return f"coalesce(CAST({_ident(name)} AS VARCHAR), '') AS {alias}"


def person_tallies(backend, person: str, qis: list[str], values: list[str], table,
                   progress=None) -> PersonTallies:
    """The persons of ``person`` counted by DuckDB ``backend`` for the frequency table
    ``table`` (counted without the person column): per base item of ``qis`` (its
    combinations), with a tally per sensitive attribute of ``values`` and one of the
    persons alone. A ``DataError`` names the key and the first data row when a row
    leaves its person empty, as the in-memory check does."""
    check_person_column(person, backend.columns())
    qis = list(dict.fromkeys(qis))
    values = list(dict.fromkeys(v for v in values if v is not None))
    qcols = [f"__q{j}" for j in range(len(qis))]
    vcols = [f"__v{j}" for j in range(len(values))]
    inner = ", ".join([_text(person, "__p")]
                      + [_text(q, c) for q, c in zip(qis, qcols)]
                      + [_text(v, c) for v, c in zip(values, vcols)]
                      + ["row_number() OVER () AS __rn"])
    keys = ", ".join(["__p", *qcols, *vcols])
    run = backend._run
    with backend._lock:
        try:
            run(f"CREATE OR REPLACE TEMP TABLE __pq AS SELECT {keys}, min(__rn) AS __rn0, "
                f"count(*) AS __n FROM (SELECT {inner} FROM {backend.scan()}) "
                f"GROUP BY {keys}", "aggregate", progress)
            _check_empty(run, person)
            if qcols:
                run(f"CREATE OR REPLACE TEMP TABLE __pit AS SELECT {', '.join(qcols)}, "
                    f"CAST(row_number() OVER () - 1 AS BIGINT) AS __item FROM "
                    f"(SELECT DISTINCT {', '.join(qcols)} FROM __pq)", "aggregate", None)
                on = " AND ".join(f"p.{c} = i.{c}" for c in qcols)
                item, join = "i.__item", f"JOIN __pit AS i ON {on}"
            else:
                item, join = "CAST(0 AS BIGINT)", ""
            carried = ", ".join(["p.__p", *(f"p.{c}" for c in vcols), "p.__rn0", "p.__n"])
            run(f"CREATE OR REPLACE TEMP TABLE __pqi AS SELECT {item} AS __item, {carried} "
                f"FROM __pq AS p {join}", "aggregate", None)
            run("DROP TABLE __pq", "aggregate", None)
            n_persons, n_records = run("SELECT count(DISTINCT __p), coalesce(sum(__n), 0) "
                                       "FROM __pqi", "aggregate", None)[0]
            item_row = _item_rows(run, qis, qcols, table)
            tallies = {None: _tally(run, "''", np.array([""], dtype=object), item_row,
                                    int(n_persons))}
            for v, c in zip(values, vcols):
                tallies[v] = _tally(run, c, table.column(v).dictionary, item_row,
                                    int(n_persons))
        finally:
            for t in _TEMP:
                run(f"DROP TABLE IF EXISTS {t}", "aggregate", None)
    return PersonTallies(person, int(n_persons), int(n_records) > int(n_persons), tallies)


def _check_empty(run, person: str) -> None:
    n, first = run(f"SELECT coalesce(sum(__n), 0), min(__rn0) FROM __pq WHERE "
                   f"regexp_full_match(__p, '{_BLANK}')", "aggregate", None)[0]
    if n:
        raise DataError(f"{KEY} = '{person}' is empty in {int(n)} row(s), first data row "
                        f"{int(first)}: every row must name its person")


def _item_rows(run, qis: list[str], qcols: list[str], table) -> np.ndarray:
    """Per item, a row of the frequency table with its combination (the table's codes
    of the item's values, matched to its rows)."""
    if not qcols:
        return np.zeros(1, np.int64)
    got = run(f"SELECT {', '.join(qcols)} FROM __pit ORDER BY __item", "aggregate", None,
              lambda r: r.fetchnumpy())
    codes = []
    for q, c in zip(qis, qcols):
        dictionary = table.column(q).dictionary
        at = pd.Index(np.asarray(dictionary, dtype=object)).get_indexer(
            np.asarray(got[c], dtype=object))
        if (at < 0).any():
            raise AnonymistError(f"internal: value {got[c][np.argmax(at < 0)]!r} of '{q}' "
                                 f"counted by person but not in the frequency table")
        codes.append(at)
    rows = pd.DataFrame({c: table.column(q).codes for q, c in zip(qis, qcols)})
    first = ~rows.duplicated().to_numpy()
    index = pd.MultiIndex.from_frame(rows[first])
    found = index.get_indexer(pd.MultiIndex.from_arrays(codes, names=qcols))
    if (found < 0).any():
        raise AnonymistError("internal: a combination counted by person is not a row of "
                             "the frequency table")
    return np.flatnonzero(first)[found].astype(np.int64)


def _tally(run, value: str, dictionary: np.ndarray, item_row: np.ndarray,
           n_persons: int) -> PersonTally:
    """The tally of one value column (SQL ``value``: a column of ``__pqi``, or a
    constant for the persons alone) whose distinct values are ``dictionary``."""
    n_items = len(item_row)
    n_values = len(dictionary)
    index = pd.Index(np.asarray(dictionary, dtype=object))

    def codes(texts) -> np.ndarray:
        at = index.get_indexer(np.asarray(texts, dtype=object))
        if (at < 0).any():
            raise AnonymistError("internal: a value counted by person is not in its "
                                 "dictionary")
        return at.astype(np.int32)

    fetch = lambda r: r.fetchnumpy()  # noqa: E731
    # the (person, value) pairs: in how many items, and the first
    run(f"CREATE OR REPLACE TEMP TABLE __ppair AS SELECT __p, {value} AS __v, "
        f"count(DISTINCT __item) AS __ni, min(__item) AS __i0 FROM __pqi "
        f"GROUP BY __p, __v", "aggregate", None)
    # single pairs: per item and value, the persons holding it (in the order the
    # in-memory roll-up of (person, value) pairs meets them: first person, then value)
    single = run("SELECT __i0 AS __item, __v, count(*) AS __c, min(__p) AS __pmin FROM "
                 "__ppair WHERE __ni = 1 GROUP BY __i0, __v ORDER BY __item, __pmin, __v",
                 "aggregate", None, fetch)
    s_item = np.asarray(single["__item"], dtype=np.int64)
    s_count = np.asarray(single["__c"], dtype=np.int64)
    if n_values == 1:
        counts = np.zeros(n_items, np.int64)
        np.add.at(counts, s_item, s_count)
        single_part = counts
    else:
        single_part = SparseCounts(_indptr(s_item, n_items), codes(single["__v"]), s_count,
                                   n_values)
    # spread pairs: keyed by value and set of items, keys in order of their first pair
    run(f"CREATE OR REPLACE TEMP TABLE __psp AS SELECT q.__p, s.__v, "
        f"list_sort(list_distinct(list(q.__item))) AS __sig FROM __pqi AS q "
        f"JOIN (SELECT __p, __v FROM __ppair WHERE __ni > 1) AS s "
        f"ON q.__p = s.__p AND {_on(value, 'q')} = s.__v GROUP BY q.__p, s.__v",
        "aggregate", None)
    keys = run("SELECT __v, __sig, count(*) AS __w FROM __psp GROUP BY __v, __sig "
               "ORDER BY min(__p), __v", "aggregate", None,
               lambda r: r.fetchall())
    run("DROP TABLE __psp", "aggregate", None)
    run("DROP TABLE __ppair", "aggregate", None)
    key_value = codes([k[0] for k in keys]) if keys else np.zeros(0, np.int32)
    lengths = np.fromiter((len(k[1]) for k in keys), np.int64, count=len(keys))
    key_ptr = np.zeros(len(keys) + 1, np.int64)
    np.cumsum(lengths, out=key_ptr[1:])
    key_item = np.fromiter((i for k in keys for i in k[1]), np.int64, count=int(key_ptr[-1]))
    key_weight = np.fromiter((k[2] for k in keys), np.int64, count=len(keys))
    return PersonTally(item_row, single_part, key_ptr, key_item, key_value, key_weight,
                       n_values, n_persons)


def _on(value: str, alias: str) -> str:
    """The SQL of value column ``value`` read from table ``alias`` (a constant as is)."""
    return f"{alias}.{value}" if value.startswith("__v") else value


def _indptr(items: np.ndarray, n_items: int) -> np.ndarray:
    """CSR pointers of entries sorted by item."""
    indptr = np.zeros(n_items + 1, np.int64)
    np.cumsum(np.bincount(items, minlength=n_items), out=indptr[1:])
    return indptr
