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

from engine.data.table import EncodedTable
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
        writes for ``plan``) with their record counts (``weights``), dictionaries sorted."""
        raise NotImplementedError(f"the {self.name} backend does not count released "
                                  f"records; use [engine] backend = \"duckdb\"")

    def write_release(self, plan: ReleasePlan, path: Path, fmt: str, delimiter: str = ";",
                      progress: PhaseProgress | None = None) -> None:
        """Write the released table in input order, atomically: ``fmt`` "csv" (header,
        ``delimiter``, minimal quoting, utf-8, as the in-memory export writes it) or
        "parquet" (text columns)."""
        raise NotImplementedError

    def suppressed_rows(self, plan: ReleasePlan) -> np.ndarray:
        """The 0-based data-row numbers of the records ``plan`` suppresses, ascending
        (the value mapping's ``suppressed_rows``)."""
        raise DataError(f"the {self.name} backend does not number the records: the value "
                        f"mapping's suppressed rows need [engine] backend = \"duckdb\" or "
                        f"\"memory\"")

    def close(self) -> None:
        pass
