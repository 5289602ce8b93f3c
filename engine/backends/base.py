"""The aggregation interface every backend implements.

The search never needs the records themselves: it needs, for the bottom
transformation, the distinct combinations of the columns the job reads per
record (quasi-identifiers, sensitive attributes, classification responses,
the columns of a subset query) with the number of records of each. A backend
delivers that frequency table as a weighted ``EncodedTable`` (one row per
distinct combination, ``weights`` its records), and the ``Problem``, models
and metrics run on it unchanged: the classifier compresses rows to classes
with their weights, as it compresses records today.

The release is a per-record mapping (each quasi-identifier's value -> its
label at the chosen level, records of suppressed classes -> the suppression
marker) that the backend applies where the data is (``ReleasePlan``), writing
the released file without pulling rows into Python.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import numpy as np

from engine.data.table import EncodedColumn, EncodedTable
from engine.errors import DataError

#: receives (phase, fraction done in [0, 1] or None when unknown)
PhaseProgress = Callable[[str, "float | None"], None]


@dataclass(frozen=True)
class DataSource:
    """The job's data: a CSV file, a Parquet file or a glob of Parquet files."""

    path: str              # as resolved (a glob stays a glob)
    kind: str              # "csv" | "parquet"
    files: tuple[Path, ...]
    delimiter: str = ";"
    encoding: str = "utf-8"

    @property
    def size_bytes(self) -> int:
        return sum(f.stat().st_size for f in self.files if f.is_file())

    @property
    def label(self) -> str:
        return self.files[0].name if len(self.files) == 1 else self.path


#: joins a record's query-column values into one key (`ReleasePlan.subset_keys`)
SUBSET_SEPARATOR = "\x1f"


@dataclass(frozen=True)
class ReleasePlan:
    """How to turn each record into its released form (``engine.output.release_plan``).

    ``columns`` are the released columns in order (identifying ones dropped).
    For quasi-identifier ``qis[j]``: ``values[j][c]`` is input value ``c``,
    ``labels[j][c]`` its released label and ``gen[j][c]`` its generalized code
    (``sizes[j]`` codes at the chosen level). A record is suppressed (every
    quasi-identifier becomes ``marker``) when the tuple of its generalized codes
    is a row of ``suppressed``.

    Columns the transformation methods change are released by value or by class:
    ``recoded`` holds (column, its input values, their released values) for a coding
    rule on an insensitive attribute; ``aggregated`` (column, classes x qis
    generalized codes, their labels) for a microaggregated attribute: a record of a
    released class takes its class's label ("" for a class not listed), a suppressed
    record the marker.
    """

    columns: tuple[str, ...]
    qis: tuple[str, ...]
    values: tuple[np.ndarray, ...]
    labels: tuple[np.ndarray, ...]
    gen: tuple[np.ndarray, ...]
    sizes: tuple[int, ...]
    suppressed: np.ndarray   # classes x qis generalized codes
    marker: str
    recoded: tuple[tuple[str, np.ndarray, np.ndarray], ...] = ()
    aggregated: tuple[tuple[str, np.ndarray, np.ndarray], ...] = ()
    #: identifying attributes released as pseudonyms: (column, its
    #: ``engine.pseudonyms.PseudonymSpec``, the job's folder); the key is read by the
    #: backend when it writes the release, and kept nowhere
    pseudonyms: tuple[tuple[str, object, Path], ...] = ()
    #: under differential privacy the records released, one bit per record (most
    #: significant first); the others are written suppressed
    sample: bytes | None = None
    #: columns released with their identifiers scrubbed (``scrub = true``): (column,
    #: the job's ``engine.identifiers.IdentifyingValues``, the identifying columns whose
    #: numbers are looked for in their own row)
    scrubbed: tuple[tuple[str, object, tuple[str, ...]], ...] = ()
    #: a subset job's release holds the research subset's records only (in input
    #: order): given by their sorted 0-based row numbers, or by a query on
    #: ``subset_columns`` as the set of those columns' values (as text, joined by
    #: `SUBSET_SEPARATOR`) that its records have
    subset_rows: np.ndarray | None = None
    subset_columns: tuple[str, ...] = ()
    subset_keys: tuple[str, ...] | None = None

    def key_strides(self) -> np.ndarray | None:
        """Mixed-radix strides that turn generalized codes into one int64 key, or None
        when the generalized space does not fit 62 bits."""
        strides = np.ones(len(self.sizes), dtype=np.int64)
        total = 1
        for j in range(len(self.sizes) - 1, -1, -1):
            strides[j] = total
            total *= int(self.sizes[j])
            if total >= 2**62:
                return None
        return strides

    def suppressed_keys(self) -> np.ndarray | None:
        return self.class_keys(self.suppressed)

    def class_keys(self, gen: np.ndarray) -> np.ndarray | None:
        """The int64 keys of classes given as rows of generalized codes (None when the
        generalized space does not fit 62 bits)."""
        strides = self.key_strides()
        if strides is None:
            return None
        return (np.asarray(gen, dtype=np.int64) * strides).sum(axis=1) if len(gen) \
            else np.zeros(0, np.int64)

    def apply(self, values: dict[str, np.ndarray], columns: list[str]
              ) -> tuple[dict[str, np.ndarray], np.ndarray]:
        """The release of rows given by their input ``values`` (text per column: every
        quasi-identifier and the ``columns`` asked for), as `write_release` releases
        each record: the released text of ``columns`` and whether each row is
        suppressed. For a backend that counts (a frequency table) but has no release
        query of its own to count released values with (Spark)."""
        if self.scrubbed:
            raise DataError(f"attribute '{self.scrubbed[0][0]}': scrub = true is released "
                            f"with [engine] backend = \"duckdb\" or \"memory\"")
        if self.sample is not None:
            raise DataError("a differential-privacy sample is drawn per record: count its "
                            "release with [engine] backend = \"duckdb\" or \"memory\"")
        strides = self.key_strides()
        if strides is None:
            raise DataError("the quasi-identifiers' generalized values do not fit a 62-bit "
                            "key: use [engine] backend = \"memory\"")
        n = len(next(iter(values.values()))) if values else 0
        codes, key = {}, np.zeros(n, dtype=np.int64)
        for j, q in enumerate(self.qis):
            codes[q] = _positions(self.values[j], values[q], q)
            key += np.asarray(self.gen[j], dtype=np.int64)[codes[q]] * strides[j]
        suppressed = np.isin(key, self.suppressed_keys())
        recoded = {name: (v, c) for name, v, c in self.recoded}
        aggregated = {name: (g, lab) for name, g, lab in self.aggregated}
        pseudonyms = {name for name, _, _ in self.pseudonyms}
        marker = np.array(self.marker, dtype=object)
        out = {}
        for c in columns:
            if c in pseudonyms:
                raise DataError(f"attribute '{c}': its pseudonyms are counted by the duckdb "
                                f"or memory backend (they need the key)")
            if c in codes:
                j = self.qis.index(c)
                out[c] = np.where(suppressed, marker,
                                  np.asarray(self.labels[j], dtype=object)[codes[c]])
            elif c in aggregated:  # the class's label, "" for a class not listed
                gen, labels = aggregated[c]
                keys = self.class_keys(gen)
                order = np.argsort(keys, kind="stable")
                at = np.clip(np.searchsorted(keys[order], key), 0, max(len(keys) - 1, 0))
                found = len(keys) > 0 and keys[order][at] == key
                label = np.where(found, np.asarray(labels, dtype=object)[order][at]
                                 if len(keys) else "", "")
                out[c] = np.where(suppressed, marker, label)
            elif c in recoded:
                before, after = recoded[c]
                out[c] = np.asarray(after, dtype=object)[_positions(before, values[c], c)]
            else:
                out[c] = np.asarray(values[c], dtype=object)
        return out, suppressed


def _positions(known: np.ndarray, values: np.ndarray, name: str) -> np.ndarray:
    """Each of ``values``' position among ``known`` (the plan's input values of
    ``name``); a value the plan does not know is a DataError naming it."""
    import pandas as pd
    at = pd.Index(np.asarray(known, dtype=object).astype(str)).get_indexer(
        np.asarray(values, dtype=object).astype(str))
    if (at < 0).any():
        raise DataError(f"attribute '{name}': value '{values[np.argmax(at < 0)]}' is not "
                        f"in its hierarchy")
    return at


def weighted(values: dict[str, np.ndarray], weights: np.ndarray,
             source_names: list[str]) -> EncodedTable:
    """A weighted table of the distinct rows of ``values`` (columns of equal length),
    each with the sum of its rows' ``weights``, in order of first occurrence."""
    import pandas as pd

    names = list(values)
    frame = pd.DataFrame({f"c{i}": np.asarray(values[n], dtype=object).astype(str)
                          for i, n in enumerate(names)})
    frame["__w"] = np.asarray(weights, dtype=np.int64)
    grouped = frame.groupby([f"c{i}" for i in range(len(names))], sort=False,
                            dropna=False)["__w"].sum().reset_index()
    return frequency_columns({n: grouped[f"c{i}"].to_numpy(object)
                              for i, n in enumerate(names)},
                             grouped["__w"].to_numpy(np.int64), source_names)


class Backend:
    """Counts and releases the records of one data source."""

    name = ""

    def __init__(self, source: DataSource):
        self.source = source

    def columns(self) -> list[str]:
        """Every column of the data, in order."""
        raise NotImplementedError

    #: whether ``frequency_table`` resolves a research subset of row numbers
    subset_by_row_number = True
    #: whether ``write_release`` releases pseudonyms (it reads their keys)
    releases_pseudonyms = True

    def count_rows(self) -> int:
        """The number of records (a random sample's subset is drawn from it)."""
        raise NotImplementedError

    def frequency_table(self, columns: list[str], progress: PhaseProgress | None = None,
                        subset: np.ndarray | None = None,
                        sample: bytes | None = None) -> EncodedTable:
        """Distinct combinations of ``columns`` with their record counts (``weights``),
        rows in order of first occurrence in the data, each column's dictionary its
        distinct values sorted (as the in-memory reader encodes them). With ``subset``
        (sorted distinct 0-based row numbers: a research subset) a combination's
        records in the subset and those outside are two rows, ``row_subset`` telling
        which; likewise with ``sample`` (one bit per record, most significant first:
        a differential-privacy sample), ``row_sample``."""
        raise NotImplementedError

    def release_counts(self, plan: ReleasePlan, columns: list[str],
                       progress: PhaseProgress | None = None) -> EncodedTable:
        """Distinct combinations of the released ``columns`` (the release `write_release`
        writes for ``plan``) with their record counts (``weights``), dictionaries sorted.
        Here from the frequency table of the quasi-identifiers and ``columns`` released
        by ``plan.apply`` (one ``frequency_table`` scan); DuckDB counts its release
        query instead."""
        missing = [c for c in columns if c not in plan.columns]
        if missing:
            raise DataError(f"'{missing[0]}' is not a released column (released: "
                            f"{', '.join(plan.columns)})")
        table = self._plan_inputs(plan, columns, progress)
        out, _ = plan.apply({c: table.column(c).values() for c in table.names}, columns)
        return weighted(out, table.weights, list(plan.columns))

    def release_pairs(self, plan: ReleasePlan, columns: list[str],
                      progress: PhaseProgress | None = None
                      ) -> tuple[EncodedTable, EncodedTable]:
        """The input's and the release's tables of ``columns`` (quasi-identifiers and
        columns released as they are), row-aligned: per distinct input combination and
        suppression its records. Here from one ``frequency_table`` scan (as
        ``release_counts``); DuckDB counts its release query instead."""
        table = self._plan_inputs(plan, columns, progress)
        values = {c: table.column(c).values() for c in table.names}
        out, suppressed = plan.apply(values, columns)
        both = weighted({**{f"in:{c}": values[c] for c in columns},
                         **{f"out:{c}": out[c] for c in columns},
                         "__s": suppressed.astype(np.int8)}, table.weights, [])
        names = list(plan.columns)
        return tuple(frequency_columns({c: both.column(f"{side}:{c}").values()
                                        for c in columns}, both.weights, names)
                     for side in ("in", "out"))

    def _plan_inputs(self, plan: ReleasePlan, columns: list[str],
                     progress: PhaseProgress | None) -> EncodedTable:
        """The frequency table a release of ``columns`` by ``plan`` is counted from: the
        quasi-identifiers (suppression and class labels need all of them) and
        ``columns`` read per record."""
        plain = [c for c in columns if c not in plan.qis
                 and c not in {name for name, _, _ in plan.aggregated}]
        return self.frequency_table(list(dict.fromkeys([*plan.qis, *plain])), progress)

    def write_release(self, plan: ReleasePlan, path: Path, fmt: str, delimiter: str = ";",
                      progress: PhaseProgress | None = None,
                      formula_cells: str = "keep") -> dict | None:
        """Write the released table in input order, atomically: ``fmt`` "csv" (header,
        ``delimiter``, minimal quoting, utf-8, as the in-memory export writes it, its
        formula cells treated by ``formula_cells``: ``engine.formulas``) or "parquet"
        (text columns). CSV: returns what was done with formula cells."""
        raise NotImplementedError

    def suppressed_rows(self, plan: ReleasePlan) -> np.ndarray:
        """The 0-based data-row numbers of the records ``plan`` suppresses, ascending
        (the value mapping's ``suppressed_rows``)."""
        raise DataError(f"the {self.name} backend does not number the records: the value "
                        f"mapping's suppressed rows need [engine] backend = \"duckdb\" or "
                        f"\"memory\"")

    def close(self) -> None:
        pass


def frequency_columns(values: dict[str, np.ndarray], weights: np.ndarray,
                      source_names: list[str]) -> EncodedTable:
    """A weighted table from each column's values per distinct row: dictionaries are
    the sorted distinct values, as pandas' categorical reader builds them."""
    import pandas as pd
    cols = []
    for name, v in values.items():
        codes, uniques = pd.factorize(pd.Series(np.asarray(v, dtype=object)).astype(str),
                                      sort=True)
        cols.append(EncodedColumn(name, codes.astype(np.int32), np.asarray(uniques, dtype=object)))
    if not cols:  # no column read per record: one row standing for every record
        cols = [EncodedColumn("__all", np.zeros(len(weights), np.int32),
                              np.array([""], dtype=object))]
    return EncodedTable(cols, weights, source_names)


def labels_without_formulas(plan: ReleasePlan, column: str) -> bool:
    """Whether every cell a backend's release writes in ``column`` is one of a known
    list of labels none of which is a formula cell (``engine.formulas``): then the
    column holds none and its formula-cell count need not scan it. Known: a
    microaggregated attribute's class labels, the marker and ''; a coding rule's
    released values; a quasi-identifier's labels and the marker (in the order the
    DuckDB and Spark releases take them). Pseudonyms, scrubbed and verbatim columns
    are not known in advance."""
    from engine.formulas import flagged
    labels = next(([*texts, plan.marker, ""] for name, _, texts in plan.aggregated
                   if name == column), None)
    if labels is None:
        labels = next(([*coded] for name, _, coded in plan.recoded if name == column), None)
    if labels is None and column in plan.qis and column not in {
            name for name, *_ in (*plan.pseudonyms, *plan.scrubbed)}:
        labels = [*plan.labels[plan.qis.index(column)], plan.marker]
    return labels is not None and not flagged(labels).any()
