"""The person column (``[data] person``): which rows belong to one person.

When a person has several rows (visits, prescriptions), every privacy model counts
distinct persons where it counts records (docs/reference/person-level-models.md).
The person column is identifying: never released, never a quasi-identifier, and
every row must name its person. This module checks that, on the job alone
(``check_person_role``) and on the data (``person_codes``).
"""
from __future__ import annotations

import numpy as np

from engine.config import IDENTIFYING, Job
from engine.errors import DataError, JobError

KEY = "[data] person"
#: the role the app and the guide offer for the person column (the job says it as
#: ``[data] person``; the attribute itself is identifying)
ROLE = "person"
ROLE_LABEL = "Identifies the person (several rows per person)"
ROLE_MEANING = ("removed from the release; the privacy models count distinct persons "
                "instead of rows")


def check_person_role(job: Job) -> None:
    """The person column's role, or a ``JobError`` naming ``[data] person``: it is
    identifying and released neither as it is nor as a pseudonym."""
    person = job.person
    if person is None:
        return
    a = job.attributes.get(person)
    if a is None:
        return
    if a.type != IDENTIFYING:
        raise JobError(
            f"{KEY} = '{person}': the person column is identifying (it is never released), "
            f"but [attributes.\"{person}\"] makes it {a.type}; remove its type or make it "
            f"identifying, or name another column as the person")
    if a.pseudonym is not None:
        raise JobError(
            f"{KEY} = '{person}': the person column is never released, not even as a "
            f"pseudonym (it would link a person's rows); remove the pseudonym keys of "
            f"[attributes.\"{person}\"]")


def check_person_column(person: str, source_names: list[str]) -> None:
    """A ``JobError`` naming ``[data] person`` when the data has no such column."""
    if person not in source_names:
        shown = ", ".join(source_names[:20]) + (", ..." if len(source_names) > 20 else "")
        raise JobError(f"{KEY} = '{person}' is not a column of the data (columns: {shown})")


def empty_value_codes(dictionary: np.ndarray) -> np.ndarray:
    """Codes of a dictionary whose values are empty (missing, or blanks only)."""
    return np.flatnonzero(np.fromiter((str(v).strip() == "" for v in dictionary), bool,
                                      count=len(dictionary)))


def person_codes(job: Job, table) -> np.ndarray | None:
    """Each row's person as an int32 code (None without ``[data] person``), checked:
    the column exists and no row leaves it empty (a ``DataError`` naming the key and
    the first such row, 1-based as a spreadsheet numbers the data rows)."""
    person = job.person
    if person is None:
        return None
    check_person_role(job)
    check_person_column(person, table.source_names)
    if person not in table:
        raise JobError(f"{KEY} = '{person}': the column was not read with the records")
    column = table.column(person)
    empty = empty_value_codes(column.dictionary)
    if len(empty):
        rows = np.flatnonzero(np.isin(column.codes, empty))
        if len(rows):
            raise DataError(
                f"{KEY} = '{person}' is empty in {len(rows)} row(s), first data row "
                f"{int(rows[0]) + 1}: every row must name its person")
    return np.ascontiguousarray(column.codes, dtype=np.int32)


def check_person_models(job: Job) -> None:
    """A ``JobError`` naming ``[data] person`` and the model (or setting) that is not
    defined per person: delta-presence, profitability, differential privacy, local
    recoding and cell suppression count records only."""
    if job.person is None:
        return
    for i, m in enumerate(job.privacy, start=1):
        if not getattr(m, "counts_persons", True):
            raise JobError(
                f"{KEY} = '{job.person}': [[privacy]] {m.name} (model {i}) does not count "
                f"persons (docs/reference/person-level-models.md); remove it or the person "
                f"column")
    if job.transformation.local_recoding is not None:
        raise JobError(f"{KEY} = '{job.person}': local recoding does not count persons; "
                       f"remove [transformation] local_recoding or the person column")
    if getattr(job.transformation, "suppression", "records") == "cells":
        raise JobError(f"{KEY} = '{job.person}': cell suppression (suppression = \"cells\") "
                       f"reaches k records with wildcards, not k persons; suppress records "
                       f"or remove the person column")
