"""Apply a transformation to the data: the released table."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from engine.classes import Classes
from engine.privacy.differential_privacy import dp_model
from engine.problem import Problem
from engine.pseudonyms import pseudonymize
from engine.transform.release import finish_columns

SUPPRESSED = "*"


@dataclass
class TransformedData:
    """The released table of one transformation, with its class structure."""

    frame: pd.DataFrame
    classes: Classes
    row_class: np.ndarray
    violating: np.ndarray
    #: rows that are not released at all (outside a differential-privacy sample)
    withheld: np.ndarray | None = None

    @property
    def suppressed_rows(self) -> np.ndarray:
        rows = self.violating[self.row_class]
        return rows if self.withheld is None else rows | self.withheld

    def class_statistics(self) -> dict:
        counts = self.classes.counts[~self.violating]
        return {"classes": int(len(counts)),
                "min_class_size": int(counts.min()) if len(counts) else 0,
                "max_class_size": int(counts.max()) if len(counts) else 0,
                "average_class_size": float(counts.mean()) if len(counts) else 0.0,
                "suppressed_records": int(self.classes.counts[self.violating].sum())}


def pseudonym_column(problem: Problem, name: str) -> np.ndarray | None:
    """The released column of an identifying attribute the job pseudonymizes
    (engine/pseudonyms.py; the key is read now and kept nowhere), else None: removed."""
    spec = getattr(problem.job.attributes.get(name), "pseudonym", None)
    if spec is None:
        return None
    col = problem.table.column(name)
    return pseudonymize(col.dictionary, spec, problem.job.base_dir, name)[col.codes]


def withheld_rows(problem: Problem) -> np.ndarray | None:
    """Rows that are not released at all: under differential privacy those outside
    SafePub's sample (its guarantee holds for the sample alone); else None."""
    if dp_model(problem) is None:
        return None
    return ~np.asarray(problem.model_context.subset, dtype=bool)


def transform(problem: Problem, levels) -> TransformedData:
    """Generalize every quasi-identifier to ``levels`` (hierarchy labels), replace the
    quasi-identifiers of records in violating classes by ``*`` and drop identifying
    attributes (or pseudonymize those the job asks to, `pseudonym_column`). Other columns are released unchanged.

    Under differential privacy only the random sample is released: records outside
    it are suppressed too (SafePub's guarantee holds for the sample alone)."""
    levels = np.asarray(levels, dtype=np.int64)
    classes, row_class = problem.classifier.classify_rows(levels)
    violating = problem.violating(classes)
    withheld = withheld_rows(problem)
    suppressed = violating[row_class] if withheld is None else violating[row_class] | withheld
    out = {}
    marker = problem.job.transformation.suppression_string
    qi_index = {n: j for j, n in enumerate(problem.qis)}
    for name in problem.table.names:
        if name in problem.identifying:
            pseudonyms = pseudonym_column(problem, name)
            if pseudonyms is not None:
                out[name] = pseudonyms
            continue
        col = problem.table.column(name)
        if name in qi_index:
            h = problem.hierarchies[qi_index[name]]
            lvl = int(levels[qi_index[name]])
            labels = h.labels[lvl][h.maps[lvl]]
            values = labels[col.codes]
            if suppressed.any():
                values = values.copy()
                values[suppressed] = marker
        else:
            values = col.dictionary[col.codes]
        out[name] = values
    out = finish_columns(problem, out, row_class, suppressed)
    return TransformedData(pd.DataFrame(out), classes, row_class, violating, withheld)


def transform_recoded(problem: Problem, recoding) -> TransformedData:
    """The released table of a local recoding (engine/search/local_recoding.py):
    every distinct record at its own levels, suppressed records' quasi-identifiers
    replaced by the suppression string. Its classes are the records with equal
    released labels (suppressed records form one flagged class)."""
    from engine.search.local_recoding import _Labels, combined_classes
    row_to_base = problem.classifier.row_to_base
    classes, group, _, sup_class = combined_classes(problem, _Labels(problem),
                                                    recoding.levels, recoding.suppressed)
    row_class = group[row_to_base]
    suppressed = recoding.suppressed[row_to_base]
    marker = problem.job.transformation.suppression_string
    row_levels = recoding.levels[row_to_base]
    qi_index = {n: j for j, n in enumerate(problem.qis)}
    out = {}
    for name in problem.table.names:
        if name in problem.identifying:
            pseudonyms = pseudonym_column(problem, name)
            if pseudonyms is not None:
                out[name] = pseudonyms
            continue
        col = problem.table.column(name)
        if name in qi_index:
            j = qi_index[name]
            h = problem.hierarchies[j]
            values = np.empty(len(col.codes), dtype=object)
            for level in np.unique(row_levels[:, j]):
                rows = row_levels[:, j] == level
                values[rows] = h.labels[level][h.maps[level][col.codes[rows]]]
            values[suppressed] = marker
        else:
            values = col.dictionary[col.codes]
        out[name] = values
    out = finish_columns(problem, out, row_class, suppressed)
    return TransformedData(pd.DataFrame(out), classes, row_class, sup_class)
