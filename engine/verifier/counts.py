"""The released table's counts, recounted from its values: class sizes, the
sensitive-value counts per class and overall, the research subset's share.

``CountAccumulator`` adds a released table chunk by chunk (pandas DataFrames, or a
reader's distinct rows with their records) into dictionaries bounded by the number
of classes; ``counts`` gives the totals as `ReleasedCounts`, which the model checks
(`engine.verifier.checks`) read. Nothing here comes from the engine's classifier.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from typing import TYPE_CHECKING

import numpy as np

from engine.markers import SUPPRESSED  # suppressed rows come normalized to it

if TYPE_CHECKING:
    import pandas as pd

# --- recounting -----------------------------------------------------------------
@dataclass
class ReleasedCounts:
    """What the checks need of a released table, bounded by its number of classes.

    Class keys are tuples of the quasi-identifiers' released values."""

    qis: list[str]
    #: released records per class (unsuppressed, in the research subset if any)
    sizes: dict[tuple, int]
    #: per class, records over every unsuppressed row (the population the attacker
    #: knows); equal to ``sizes`` without a subset
    population: dict[tuple, int]
    #: sensitive attribute -> class key -> counts of its values among released records
    distributions: dict[str, dict[tuple, dict[str, int]]] = field(default_factory=dict)
    #: sensitive attribute -> counts of its values over the data set (the subset, or
    #: every row), suppressed records included
    overall: dict[str, dict[str, int]] = field(default_factory=dict)
    #: whether a research subset was given
    has_subset: bool = False
    #: records of the data set (the subset's when there is one)
    n_records: int = 0
    #: the job's hierarchies by attribute (hierarchical t-closeness, profitability)
    hierarchies: dict = field(default_factory=dict)
    #: the [population] size, or None
    population_size: int | None = None
    columns: tuple[str, ...] = ()
    #: with ``[data] person``: the distinct persons of the data set (sizes,
    #: distributions and overall then count persons, not records)
    n_persons: int | None = None
    #: with a research subset counted on the input: classes of the input (at the
    #: release's levels) holding no subset record
    classes_without_subset: int = 0
    #: whether another of the job's models sets a smallest class size
    minimal_class_size: bool = False
    #: the job's data types by attribute (ordered t-closeness orders integers numerically)
    data_types: dict = field(default_factory=dict)

    @classmethod
    def from_frame(cls, frame: pd.DataFrame, qis: list[str], attributes=(),
                   subset_mask=None, marker: str = SUPPRESSED, **context) -> ReleasedCounts:
        """Count a released table held in memory."""
        acc = CountAccumulator(qis, [a for a in attributes if a in frame.columns], marker)
        mask = None if subset_mask is None else np.asarray(subset_mask, dtype=bool)
        acc.add(frame.astype(str), mask)
        return acc.counts(suppressed_class=True, has_subset=subset_mask is not None,
                          columns=tuple(frame.columns), **context)


KEY = "\x1eclass"   # column names the accumulator adds; no CSV header holds them
FLAG = "\x1esubset"
STAR = "\x1esuppressed"
WEIGHT = "\x1erecords"
#: the column of each row's person (``[data] person``), added by the reader
PERSON = "\x1eperson"


class CountAccumulator:
    """Class counts of a released table added chunk by chunk. Rows whose every
    quasi-identifier is ``*`` are counted as one class; ``counts`` decides at the
    end whether they are suppressed. Memory: the classes times the distinct sensitive
    values, whatever the number of rows.

    Counts are kept as dictionaries in the order their keys first appear in the table
    (as pandas' ``groupby(sort=False)`` orders them): DataFrame chunks are grouped by
    pandas (`add`), a reader's distinct rows with their records in Python
    (`add_distinct`, no pandas), into the same counts."""

    def __init__(self, qis: list[str], sensitive: list[str], marker: str = SUPPRESSED,
                 compact_every: int = 8):
        self.qis, self.sensitive = list(qis), list(dict.fromkeys(sensitive))
        self.marker = marker
        self.compact_every = compact_every
        self._sizes: list[dict] = []
        self._dists: dict[str, list[dict]] = {a: [] for a in self.sensitive}
        self._overall: dict[str, list[dict]] = {a: [] for a in self.sensitive}
        self.rows = 0
        self.subset_rows = 0
        self.all_star_rows = 0
        self.all_star_subset_rows = 0
        self.values: dict[str, set] = {q: set() for q in self.qis}
        self.star_counts: dict[str, int] = {q: 0 for q in self.qis}
        #: with ``track_suppressed``: row numbers of the all-marker rows in the data set
        #: and their sensitive values' counts; ``overall_fix`` replaces those counts in
        #: the overall distributions (values put back from the input, see engine.verify)
        self.track_suppressed = False
        self.suppressed_rows: list[np.ndarray] = []
        self._star_overall: dict[str, list[dict]] = {a: [] for a in self.sensitive}
        self.overall_fix: dict[str, dict[str, int]] | None = None
        #: with ``persons``: each row carries its person in column `PERSON`; the distinct
        #: (class, person), (class, value, person) and (value, person) of released rows
        #: are kept (memory grows with the persons' memberships, not the rows)
        self.persons = False
        self._person_parts: list = []
        #: with persons and removed values: per attribute the suppressed records'
        #: (value, person) pairs read back from the input
        self.person_overall_fix: dict | None = None

    def _keys(self, chunk: pd.DataFrame) -> list:
        return self.qis if self.qis else [np.zeros(len(chunk), dtype=np.int8)]

    def _flags(self, n: int, in_subset, weights):
        flag = np.ones(n, dtype=bool) if in_subset is None else np.asarray(in_subset, bool)
        if weights is not None and self.track_suppressed:
            raise ValueError("grouped rows cannot tell the suppressed records' row numbers")
        w = None if weights is None else np.asarray(weights, dtype=np.int64)

        def total(selected: np.ndarray) -> int:
            return int(selected.sum()) if w is None else int(w[selected].sum())

        self.rows += n if w is None else int(w.sum())
        self.subset_rows += total(flag)
        return flag, w, total

    def add(self, chunk: pd.DataFrame, in_subset: np.ndarray | None = None,
            weights: np.ndarray | None = None) -> None:
        """Add rows (string columns); ``in_subset`` marks research-subset rows;
        ``weights`` (or None: one each) says how many records each row stands for (a
        reader that grouped identical rows itself; then the suppressed records' row
        numbers are unknown, so not with ``track_suppressed``)."""
        n = len(chunk)
        flag, w, total = self._flags(n, in_subset, weights)
        stars = np.ones(n, dtype=bool)
        for q in self.qis:
            col = chunk[q]
            is_star = (col == self.marker).to_numpy()
            stars &= is_star
            self.star_counts[q] += total(is_star)
            self.values[q].update(col.unique().tolist())
        if self.qis:
            self.all_star_rows += total(stars)
            self.all_star_subset_rows += total(stars & flag)
            if self.track_suppressed:
                self.suppressed_rows.append(np.flatnonzero(stars & flag) + (self.rows - n))
                for a in self.sensitive:
                    self._star_overall[a].append(
                        _as_dict(chunk.loc[stars & flag, a].value_counts()))
        if self.persons:
            self._add_persons(chunk, flag, stars, weights)
        frame = chunk.assign(**{FLAG: flag})
        if w is not None:
            frame[WEIGHT] = w

        def count(rows: pd.DataFrame, keys: list) -> dict:
            grouped = rows.groupby(keys, sort=False, observed=True)
            return _as_dict(grouped.size() if w is None else grouped[WEIGHT].sum())

        self._sizes.append(count(frame, self.qis + [FLAG] if self.qis else [FLAG]))
        released = frame[flag]
        for a in self.sensitive:
            keys = self.qis + [a] if self.qis else [np.zeros(len(released), np.int8), a]
            self._dists[a].append(count(released, keys))
            self._overall[a].append(_as_dict(released[a].value_counts()) if w is None
                                    else _by_count(count(released, [a])))
        if len(self._sizes) >= self.compact_every:
            self._compact()

    def add_distinct(self, columns: dict, weights: np.ndarray,
                     in_subset: np.ndarray | None = None) -> None:
        """`add` for a reader's distinct rows, without pandas: ``columns`` maps every
        counted column to its rows' strings (numpy arrays), ``weights`` gives the
        records each row stands for. The same counts, in the same order, as ``add``
        of a DataFrame of those rows with those weights."""
        n = len(weights)
        flag, w, total = self._flags(n, in_subset, weights)
        stars = np.ones(n, dtype=bool)
        for q in self.qis:
            col = np.asarray(columns[q], dtype=object)
            is_star = col == self.marker
            stars &= is_star
            self.star_counts[q] += total(is_star)
            self.values[q].update(col.tolist())
        if self.qis:
            self.all_star_rows += total(stars)
            self.all_star_subset_rows += total(stars & flag)
        keys = (list(zip(*(np.asarray(columns[q], dtype=object).tolist() for q in self.qis)))
                if self.qis else [()] * n)
        weight, flags = w.tolist(), flag.tolist()
        sizes: dict = {}
        for key, f, k in zip(keys, flags, weight):
            key = key + (f,) if self.qis else f
            sizes[key] = sizes.get(key, 0) + k
        self._sizes.append(sizes)
        released = [i for i, f in enumerate(flags) if f]
        for a in self.sensitive:
            values = np.asarray(columns[a], dtype=object).tolist()
            per: dict = {}
            overall: dict = {}
            for i in released:
                v, k = values[i], weight[i]
                key = keys[i] + (v,) if self.qis else (0, v)
                per[key] = per.get(key, 0) + k
                overall[v] = overall.get(v, 0) + k
            self._dists[a].append(per)
            self._overall[a].append(_by_count(overall))
        if len(self._sizes) >= self.compact_every:
            self._compact()

    def _add_persons(self, chunk: pd.DataFrame, flag: np.ndarray, stars: np.ndarray,
                     weights) -> None:
        """Keep the distinct persons of this chunk's released rows: per class (QI
        values), per class and sensitive value, per sensitive value."""
        if weights is not None:
            raise ValueError("grouped rows cannot tell their persons")
        cols = self.qis + self.sensitive + [PERSON]
        part = chunk.loc[flag, cols].assign(**{STAR: stars[flag]}).drop_duplicates()
        self._person_parts.append(part)
        if len(self._person_parts) >= self.compact_every:
            self._person_parts = [self._persons()]

    def _persons(self):
        import pandas as pd
        if not self._person_parts:
            return pd.DataFrame(columns=self.qis + self.sensitive + [PERSON, STAR])
        return pd.concat(self._person_parts, ignore_index=True).drop_duplicates()

    def _person_counts(self, suppressed_class: bool) -> tuple:
        """Sizes, distributions and overall distributions in persons."""
        rows = self._persons()
        self._person_parts = [rows]
        n_persons = int(rows[PERSON].nunique())
        overall = {}
        for a in self.sensitive:
            pairs = rows[[a, PERSON]]
            fix = (self.person_overall_fix or {}).get(a) if suppressed_class else None
            if fix is not None:  # the suppressed records' own values, not the blanks
                import pandas as pd
                pairs = pd.concat([rows.loc[~rows[STAR].astype(bool), [a, PERSON]],
                                   pd.DataFrame(fix, columns=[a, PERSON])])
            overall[a] = {str(v): int(n) for v, n in
                          pairs.drop_duplicates()[a].value_counts().items()}
        kept = rows[~rows[STAR].astype(bool)] if suppressed_class and self.qis else rows

        def per(columns: list) -> dict:
            distinct = kept[columns + [PERSON]].drop_duplicates()
            if not len(distinct):
                return {}
            grouped = distinct.groupby(columns, sort=False, observed=True).size()
            return _as_dict(grouped)

        sizes = {}
        if self.qis:
            for k, n in per(list(self.qis)).items():
                sizes[k if isinstance(k, tuple) else (k,)] = int(n)
        distributions: dict = {}
        for a in self.sensitive:
            if self.qis:
                d = per(list(self.qis) + [a])
            else:
                distinct = kept[[a, PERSON]].drop_duplicates()
                d = {(0, v): n for v, n in distinct[a].value_counts().items()}
            dist: dict = {}
            for k, n in d.items():
                dist.setdefault(tuple(k[:-1]) if self.qis else (0,), {})[k[-1]] = int(n)
            distributions[a] = dist
        if not self.qis and len(kept):
            sizes = {(0,): int(kept[PERSON].nunique())}
        return sizes, distributions, overall, n_persons

    @staticmethod
    def _sum(parts: list[dict]) -> dict:
        """The parts' counts summed, keys in order of first appearance."""
        if len(parts) == 1:
            return parts[0]
        out: dict = {}
        for part in parts:
            for k, n in part.items():
                out[k] = out.get(k, 0) + n
        return out

    def _compact(self) -> None:
        self._sizes = [self._sum(self._sizes)]
        for a in self.sensitive:
            self._dists[a] = [self._sum(self._dists[a])]
            self._overall[a] = [self._sum(self._overall[a])]

    def star_key(self) -> tuple:
        return tuple(self.marker for _ in self.qis) if self.qis else (0,)

    def counts(self, suppressed_class: bool, has_subset: bool = False,
               **context) -> ReleasedCounts:
        """The totals; with ``suppressed_class`` the all-``*`` rows are suppressed
        records, else a class of their own."""
        self._compact()
        raw = self._sizes[0]
        sizes: dict[tuple, int] = {}
        population: dict[tuple, int] = {}
        star = self.star_key()
        for k, n in raw.items():
            k = k if isinstance(k, tuple) else (k,)
            cls_key, in_subset = (tuple(k[:-1]) if self.qis else (0,)), bool(k[-1])
            if suppressed_class and cls_key == star:
                continue
            population[cls_key] = population.get(cls_key, 0) + int(n)
            if in_subset:
                sizes[cls_key] = sizes.get(cls_key, 0) + int(n)
        distributions: dict[str, dict[tuple, dict[str, int]]] = {}
        for a in self.sensitive:
            d = self._dists[a][0]
            per: dict[tuple, dict] = {}
            for k, n in d.items():
                cls_key, value = (tuple(k[:-1]) if self.qis else (0,)), k[-1]
                if suppressed_class and cls_key == star:
                    continue
                per.setdefault(cls_key, {})[value] = int(n)
            distributions[a] = per
        overall = {a: {str(v): int(n) for v, n in self._overall[a][0].items()}
                   for a in self.sensitive}
        if suppressed_class and self.overall_fix is not None:
            for a, fix in self.overall_fix.items():
                for v, n in self._sum(self._star_overall[a]).items():
                    overall[a][str(v)] -= int(n)
                for v, n in fix.items():
                    overall[a][v] = overall[a].get(v, 0) + n
                overall[a] = {v: n for v, n in overall[a].items() if n > 0}
        n_records = self.subset_rows if has_subset else self.rows
        n_persons = None
        if self.persons:
            sizes, distributions, overall, n_persons = self._person_counts(suppressed_class)
            population = dict(sizes)
        return ReleasedCounts(self.qis, sizes, population, distributions, overall,
                              has_subset, n_records, n_persons=n_persons, **context)


def _as_dict(counts) -> dict:
    """A pandas Series of counts as a dictionary in its order (keys: the index's
    values, tuples for several levels)."""
    return dict(zip(counts.index.tolist(), counts.tolist()))


def _by_count(counts: dict) -> dict:
    """Counts ordered by count, descending, ties in their order (pandas'
    ``sort_values(ascending=False, kind="stable")``)."""
    return dict(sorted(counts.items(), key=lambda kv: -kv[1]))


