"""Spreadsheet formula injection in CSV exports (OWASP's "CSV Injection").

A spreadsheet opening a CSV file runs a cell that begins with ``=``, ``+``, ``-``,
``@``, a tab or a carriage return as a formula. Released values come from the data
(insensitive and sensitive columns verbatim, hierarchy labels), so a CSV export
treats such cells by the ``formula_cells`` setting (`FORMULA_CELLS`):

- ``quote`` (the default): the cell gets a leading single quote (``'=1+2``), which
  spreadsheets show as text; the count of such cells is reported;
- ``refuse``: the export stops with an error naming the column, the value and the
  count, and nothing is written;
- ``keep``: cells are written as they are (for files read by programs only).

A cell that is a number (``-3``, ``+1.5``, ``-2,5``, ``-1e5``: `NUMBER`) is not a
formula and is written as it is, so negative numbers keep their meaning. The rule
is one-to-one: a cell already beginning with single quotes followed by a formula
gets one more quote, so reading a quoted file back (`unquoted`) gives the released
values exactly, and distinct values stay distinct. Column names (the job's
attribute names) are written as they are. Excel and Parquet files hold text cells
and are not changed.
"""
from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np

from engine.errors import DataError
from engine.schema import Param

#: the characters that make a spreadsheet read a cell as a formula (OWASP)
TRIGGERS = ("=", "+", "-", "@", "\t", "\r")
#: a number, with a decimal point or comma and an exponent: not a formula (ASCII digits,
#: so that Python's ``re`` and DuckDB's RE2 agree)
NUMBER_PATTERN = r"[+-]?(?:[0-9]+(?:[.,][0-9]*)?|[.,][0-9]+)(?:[eE][+-]?[0-9]+)?"
NUMBER = re.compile(NUMBER_PATTERN)
POLICIES = ("quote", "refuse", "keep")

FORMULA_CELLS = Param(
    "formula_cells", "choice", "quote", choices=POLICIES, label="Formula cells",
    choice_labels=("Quote them (shown as text)", "Refuse the export", "Keep them as they are"),
    help="CSV cells beginning with =, +, -, @, a tab or a carriage return (spreadsheet "
         "formulas; numbers excepted): quote (a leading ', the default), refuse, or keep")


def is_formula(text: str) -> bool:
    """Whether a spreadsheet would run ``text`` (after any leading single quotes, so
    that quoting stays one-to-one) as a formula."""
    body = text.lstrip("'")
    return bool(body) and body[0] in TRIGGERS and NUMBER.fullmatch(body) is None


def sql_starts_formula(column: str) -> str:
    """SQL: whether the text expression ``column`` begins, after any single quotes, with
    a character that starts a formula (`is_formula` without the number exception). A
    text that does not cannot become a formula by replacing spans of it with
    ``[KIND]`` (a span at its start makes it begin with ``[``)."""
    body = f"ltrim({column}, '''')"
    return "(" + " OR ".join(f"starts_with({body}, {t})" for t in
                             ("'='", "'+'", "'-'", "'@'", "chr(9)", "chr(13)")) + ")"


def sql_is_formula(column: str) -> str:
    """`is_formula` as a DuckDB SQL condition on the text expression ``column`` (NULL for
    NULL)."""
    body = f"ltrim({column}, '''')"
    return (f"({sql_starts_formula(column)} AND NOT regexp_full_match({body}, "
            f"'{NUMBER_PATTERN}'))")


def sql_quoted(column: str) -> str:
    """`quoted` as a DuckDB SQL expression on the text expression ``column``."""
    return f"CASE WHEN {sql_is_formula(column)} THEN '''' || {column} ELSE {column} END"


def quoted(text: str) -> str:
    """``text`` as a CSV export writes it under ``quote``."""
    return "'" + text if is_formula(text) else text


def unquoted(text: str) -> str:
    """The released value of a cell a ``quote`` export wrote (the inverse of `quoted`)."""
    return text[1:] if text.startswith("'") and is_formula(text) else text


def flagged(labels: Sequence[str]) -> np.ndarray:
    """A boolean mask of the labels that are formulas."""
    return np.fromiter((is_formula(str(t)) for t in labels), bool, count=len(labels))


class FormulaCells:
    """Applies a policy to the columns of one export and counts the cells it treated:
    ``neutralised`` (quoted) and ``found`` (formula cells seen, whatever the policy)."""

    def __init__(self, policy: str, where: str):
        self.policy = FORMULA_CELLS.check(policy, "formula_cells")
        self.where = where
        self.found = 0
        self.neutralised = 0

    def labels(self, name: str, labels: Sequence[str], rows_per_label: np.ndarray) -> list[str]:
        """A column's labels as written (``rows_per_label``: how many cells show each)."""
        labels = [str(t) for t in labels]
        mask = flagged(labels)
        if not mask.any():
            return labels
        cells = int(np.asarray(rows_per_label)[mask].sum())
        if cells == 0:
            return labels
        self.found += cells
        if self.policy == "keep":
            return labels
        if self.policy == "refuse":
            first = labels[int(np.flatnonzero(mask & (np.asarray(rows_per_label) > 0))[0])]
            raise DataError(
                f"{self.where}: column '{name}' holds {cells:,} cell(s) a spreadsheet would run "
                f"as a formula (the first: {first!r}); nothing was written. Write them quoted "
                f"(formula_cells = \"quote\", --csv-formula-cells quote) or as they are "
                f"(\"keep\")")
        self.neutralised += cells
        return [quoted(t) if m else t for t, m in zip(labels, mask)]

    def frame_column(self, name: str, values):
        """A column of a DataFrame of strings as written."""
        import pandas as pd
        codes, uniques = pd.factorize(values, sort=False)
        counts = np.bincount(codes[codes >= 0], minlength=len(uniques))
        labels = self.labels(name, [str(u) for u in uniques], counts)
        return np.asarray(labels, dtype=object)[codes] if len(codes) else values

    def to_dict(self) -> dict:
        """What was done, for the result and report files."""
        return {"policy": self.policy, "formula_cells": self.found,
                "neutralised": self.neutralised}
