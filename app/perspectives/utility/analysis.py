"""What the panels compute, as plain functions run in the worker (no Qt here).

`Comparison` bundles the input, the output (the engine's released table of the
transformation, as an `EncodedTable`) and the job's settings the analyses need. Each ``*_task``
returns an immutable payload for the GUI.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import pandas as pd

from engine.analysis.classification import ClassificationComparison, compare_classification
from engine.analysis.quality import QualityReport, quality
from engine.analysis.sources import AnalysisTables
from engine.analysis.statistics import (SummaryStatistics, contingency, frequencies,
                                        summary_statistics)
from engine.config import IDENTIFYING, INSENSITIVE
from engine.data.datatypes import DataType
from engine.data.table import EncodedTable
from engine.errors import AnonymistError
from engine.hierarchy.model import Hierarchy
from engine.output import ReleasedColumns, ReleasedTable


CONTINGENCY_VALUES = 100  # most frequent values per axis of a heat map; the rest is "(other)"


def job_data_types(problem) -> dict[str, DataType]:
    """Data types the job declares (attributes without one are detected when analysed)."""
    from engine.hierarchy.builders.base import declared_type
    out = {}
    for name, a in problem.job.attributes.items():
        t = declared_type(a.data_type, a.format)
        if t is not None:
            out[name] = t
    return out


#: why the classification tab is empty for data too big for memory
NO_CLASSIFICATION_OUT_OF_CORE = (
    "Classification accuracy trains models on the records one by one: it is not "
    "computed for data too big for memory (read out of core by DuckDB). Distributions, "
    "contingency, summary statistics and quality are computed from the records' counts.")


@dataclass(frozen=True)
class Comparison:
    """Input and output of one transformation, with what the analyses need.

    ``input`` and ``output`` are the problem's table and the released table; for data
    too big for memory they are the frequency table the search ran on and its release
    (weighted), and ``tables`` counts other columns through the backend."""

    input: EncodedTable
    output: ReleasedColumns
    view: ReleasedTable
    qis: tuple[str, ...]
    types: dict  # attribute -> attribute type (quasi-identifying, ...)
    data_types: dict  # attribute -> DataType
    hierarchies: dict  # attribute -> Hierarchy
    tables: AnalysisTables
    names: tuple[str, ...]  # every released column

    @classmethod
    def of(cls, view: ReleasedTable) -> "Comparison":
        problem = view.problem
        attrs = problem.job.attributes
        names = tuple(n for n in problem.table.source_names if n not in view.removed)
        types = {n: (attrs[n].type if n in attrs else INSENSITIVE) for n in names}
        hierarchies: dict[str, Hierarchy] = {n: attrs[n].hierarchy for n in problem.qis
                                             if attrs[n].hierarchy is not None}
        # the input's records of the release, row for row (a subset job's: the subset's)
        return cls(view.input_table(), view.encoded(), view, tuple(problem.qis), types,
                   job_data_types(problem), hierarchies, AnalysisTables(problem, view), names)

    @property
    def out_of_core(self) -> bool:
        return self.tables.out_of_core

    @property
    def analysable(self) -> list[str]:
        """Attributes worth analysing: every column but the identifying ones."""
        return [n for n in self.names if self.types.get(n) != IDENTIFYING]


@dataclass(frozen=True)
class AttributeStatistics:
    """Distribution and summary of one attribute in input and output."""

    attribute: str
    input_frequencies: pd.DataFrame
    output_frequencies: pd.DataFrame
    input_summary: SummaryStatistics
    output_summary: SummaryStatistics


def statistics_task(c: Comparison, attribute: str) -> AttributeStatistics:
    dtype = c.data_types.get(attribute)
    before, after = c.tables.input([attribute]), c.tables.output([attribute])
    return AttributeStatistics(
        attribute,
        frequencies(before, attribute, dtype), frequencies(after, attribute, dtype),
        summary_statistics(before, attribute, dtype),
        summary_statistics(after, attribute, dtype))


@dataclass(frozen=True)
class ContingencyPair:
    rows: str
    columns: str
    input: pd.DataFrame
    output: pd.DataFrame


def contingency_task(c: Comparison, rows: str, columns: str) -> ContingencyPair:
    types = {k: v for k, v in c.data_types.items() if k in (rows, columns)}
    return ContingencyPair(
        rows, columns,
        contingency(c.tables.input([rows, columns]), rows, columns, types,
                    max_values=CONTINGENCY_VALUES),
        contingency(c.tables.output([rows, columns]), rows, columns, types,
                    max_values=CONTINGENCY_VALUES))


def quality_task(c: Comparison) -> QualityReport:
    return quality(c.input, c.output, list(c.qis), c.hierarchies,
                   {k: v for k, v in c.data_types.items() if k in c.qis},
                   c.output.suppressed_rows())


def classification_task(c: Comparison, features: Sequence[str], target: str, model: str,
                        folds: int, report, cancelled) -> ClassificationComparison:
    if c.out_of_core:
        raise AnonymistError(NO_CLASSIFICATION_OUT_OF_CORE)
    return compare_classification(c.input, c.output, list(features), target, model, folds,
                                  progress=report, cancel=cancelled)


def default_target(c: Comparison) -> str | None:
    """A sensible attribute to predict: few distinct values (2 to 10), not a
    quasi-identifier if possible, the rightmost column among equals."""
    pool = [n for n in c.analysable if n in c.input and len(c.input.column(n).dictionary) >= 2]
    if not pool:
        return None
    return min(pool, key=lambda n: (n in c.qis, len(c.input.column(n).dictionary) > 10,
                                    -pool.index(n)))


def levels_text(view: ReleasedTable) -> str:
    """``age 3 · education 2 · …``: the transformation in words."""
    if getattr(view, "local_recoding", False):
        return "local recoding: records carry their own levels"
    return " · ".join(f"{n} {lv}" for n, lv in view.level_of.items())
