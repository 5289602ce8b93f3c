"""Coding rules: fixed recodings of one attribute that need no search.

- ``identity``: released as is;
- ``suppression``: every value released as the suppression string;
- ``top-bottom-coding``: numbers above ``top`` released as ``top``, below
  ``bottom`` as ``bottom`` (either bound may be left out); missing values
  (empty, ``NULL``) stay as they are.

On a quasi-identifier a rule becomes a one-transformation hierarchy (the
original value, then the coded value) fixed at its level, so the coded value
takes part in the classes like any generalized label and the search goes on
over the other quasi-identifiers. On an insensitive attribute the released
column is simply coded. Sensitive attributes are refused: the privacy models
judge their original values.
"""
from __future__ import annotations

import numpy as np

from engine.config import PERTURBATIONS, TRANSFORMATIONS
from engine.errors import JobError
from engine.hierarchy.model import Hierarchy
from engine.markers import SUPPRESSED
from engine.transform.microaggregation import MISSING, format_number, numbers

RULES = tuple(t for t in TRANSFORMATIONS
              if t not in ("generalization", "microaggregation") + PERTURBATIONS)


def check_rule(cfg, where: str) -> None:
    """Refuse inconsistent rule settings (called when the job is read)."""
    if cfg.transformation == "top-bottom-coding":
        if cfg.top is None and cfg.bottom is None:
            raise JobError(f"{where}: top-bottom-coding needs 'top', 'bottom' or both")
        if cfg.top is not None and cfg.bottom is not None and cfg.bottom > cfg.top:
            raise JobError(f"{where}: bottom = {cfg.bottom:g} is greater than top = "
                           f"{cfg.top:g}")
    elif cfg.top is not None or cfg.bottom is not None:
        raise JobError(f"{where}: 'top' and 'bottom' only apply to transformation = "
                       f"\"top-bottom-coding\"")
    if cfg.transformation in RULES and cfg.type == "sensitive":
        raise JobError(f"{where}: a coding rule cannot be applied to a sensitive attribute "
                       f"(the privacy models judge its original values)")


def code_values(values: np.ndarray, cfg, attribute: str, marker: str = SUPPRESSED) -> np.ndarray:
    """The released values of a column under its rule (object array of strings)."""
    values = np.asarray([str(v) for v in values], dtype=object)
    rule = cfg.transformation
    if rule == "identity":
        return values
    if rule == "suppression":
        return np.full(len(values), marker, dtype=object)
    x = numbers(values, attribute)
    out = values.copy()
    missing = np.array([v.strip() in MISSING for v in values], dtype=bool)
    if cfg.top is not None:
        out[~missing & (x > cfg.top)] = format_number(cfg.top)
    if cfg.bottom is not None:
        out[~missing & (x < cfg.bottom)] = format_number(cfg.bottom)
    return out


def check_coded_values(job, table) -> None:
    """Refuse before any search a top-bottom-coded column that holds a non-number
    (naming the value and its data row); quasi-identifiers are checked when their rule
    hierarchy is built, this covers the insensitive ones."""
    for name, a in job.attributes.items():
        if a.transformation == "top-bottom-coding" and name in table:
            column = table.column(name)
            numbers(column.dictionary, name, column.first_rows())


def rule_hierarchy(cfg, attribute: str, dictionary, marker: str = SUPPRESSED) -> tuple[Hierarchy, int]:
    """The hierarchy a rule stands for on a quasi-identifier, and its fixed level."""
    values = [str(v) for v in dictionary]
    if cfg.transformation == "identity":
        return Hierarchy.identity(values, attribute), 0
    coded = code_values(np.asarray(values, dtype=object), cfg, attribute, marker)
    return Hierarchy.from_rows([(v, c) for v, c in zip(values, coded)], attribute), 1

