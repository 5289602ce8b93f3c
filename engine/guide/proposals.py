"""Proposed attribute types for a first-time release, each with its reason.

The guided release wizard shows these and the user confirms or changes each:
nothing is released verbatim without an explicit choice. The rules, in order:

1. **Identifying**: the column holds a HIPAA direct identifier (name, e-mail,
   phone, SSN, record or account number, URL, IP...: `engine.analysis.hipaa`),
   or nearly every record has its own value and the values look like codes or
   free text (an ID column).
2. **Quasi-identifying**: demographics, dates and places (by name: age, sex,
   birth, ZIP...; or HIPAA's dates and geographic categories), and columns of
   a few values that are not recognised as sensitive.
3. **Sensitive**: what a release is meant to tell but must not tie to a
   person (diagnosis, income, treatment...), by name.
4. **Insensitive** otherwise: the proposal says it will be released as is.
"""
from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from engine.analysis.hipaa import DATES, GEOGRAPHIC, detect_identifiers
from engine.data.datatypes import Kind, best_type
from engine.data.table import EncodedTable

IDENTIFYING = "identifying"
QUASI_IDENTIFYING = "quasi-identifying"
SENSITIVE = "sensitive"
INSENSITIVE = "insensitive"

#: words in a column name that mark a quasi-identifier (demographics, dates, places)
_QI_WORDS = (
    "age", "sex", "gender", "race", "ethnicity", "ethnic", "marital", "married", "birth",
    "born", "dob", "birthdate", "birthday", "zip", "zipcode", "postcode", "postal", "plz",
    "city", "town", "county", "state", "region", "country", "nationality", "citizenship",
    "education", "degree", "occupation", "job", "profession", "workclass", "employment",
    "religion", "language", "height", "weight", "admission", "discharge", "date", "year",
    "residence", "district", "municipality", "children", "household")
#: words in a column name that mark a sensitive attribute
_SENSITIVE_WORDS = (
    "diagnosis", "diagnoses", "disease", "icd", "condition", "illness", "disorder",
    "income", "salary", "wage", "earnings", "wealth", "debt", "medication", "drug",
    "treatment", "therapy", "procedure", "hiv", "cancer", "pregnancy", "outcome", "result",
    "finding", "symptom", "score", "grade", "class", "sexuality", "orientation", "crime",
    "conviction", "allergy", "prescription", "death", "cause", "lab", "test")


@dataclass(frozen=True)
class Proposal:
    """The proposed type of one column and why."""

    attribute: str
    type: str
    reason: str


def _words(name: str) -> set[str]:
    spaced = re.sub(r"([a-z])([A-Z])", r"\1 \2", name)
    return {w for w in re.split(r"[^a-z0-9]+", spaced.lower()) if w}


def _matches(words: set[str], vocabulary: Sequence[str]) -> str | None:
    for w in vocabulary:
        if w in words:
            return w
    return None


def propose_attributes(table: EncodedTable, unique_share: float = 0.9,
                       max_qi_values: int = 200) -> list[Proposal]:
    """One proposal per column of ``table``, in column order.

    ``unique_share``: a column where at least this share of the records have a
    value of their own (and that is not a number or a date) is proposed as an
    identifier. ``max_qi_values``: an unnamed column with at most this many
    distinct values is proposed as a quasi-identifier (it can single people out
    in combination with others), a column with more as insensitive.
    """
    n = max(table.n_rows, 1)
    found = {}
    for m in detect_identifiers(table):
        found.setdefault(m.attribute, m)
    proposals = []
    for name in table.names:
        col = table.column(name)
        counts = col.value_counts()
        present = counts[np.asarray(col.dictionary) != ""] if len(counts) else counts
        distinct = int((present > 0).sum())
        singletons = int((present == 1).sum())
        kind = best_type(col).kind
        words = _words(name)
        match = found.get(name)
        if match is not None and match.category not in (DATES, GEOGRAPHIC):
            proposals.append(Proposal(name, IDENTIFYING,
                                      f"holds {match.category.lower()} ({match.reason}); "
                                      f"direct identifiers are removed from the release"))
            continue
        if (n >= 20 and singletons / n >= unique_share
                and kind not in (Kind.DECIMAL, Kind.DATE)):
            proposals.append(Proposal(name, IDENTIFYING,
                                      f"{singletons / n:.0%} of the records have a value of "
                                      f"their own: it behaves like an ID and is removed"))
            continue
        sensitive = _matches(words, _SENSITIVE_WORDS)
        qi = _matches(words, _QI_WORDS)
        if distinct <= 1:  # empty or one value for all: it tells nobody apart
            proposals.append(Proposal(name, INSENSITIVE, (
                "empty: no record has a value; released as it is (empty)" if distinct == 0
                else "one value for every record: it tells nobody apart; released as it is")))
            continue
        if match is not None:  # dates or places
            proposals.append(Proposal(name, QUASI_IDENTIFYING,
                                      f"holds {match.category.lower()}: in combination with "
                                      f"other facts it can single people out"))
        elif qi is not None and sensitive is None:
            proposals.append(Proposal(name, QUASI_IDENTIFYING,
                                      f"'{qi}' is a demographic, date or place: an attacker "
                                      f"may know it from other sources"))
        elif sensitive is not None:
            proposals.append(Proposal(name, SENSITIVE,
                                      f"'{sensitive}' is what the release is meant to tell, "
                                      f"but must not be tied to a person"))
        elif distinct <= max_qi_values:
            proposals.append(Proposal(name, QUASI_IDENTIFYING,
                                      f"{distinct} distinct values: it can single people out "
                                      f"in combination with the others; change it if no "
                                      f"attacker could know it"))
        else:
            proposals.append(Proposal(name, INSENSITIVE,
                                      f"{distinct:,} distinct values and nothing personal "
                                      f"recognised: released as it is; check this choice"))
    return proposals


def propose_person(table: EncodedTable, proposals: Sequence[Proposal],
                   min_rows_per_value: float = 1.2, constant_share: float = 0.8
                   ) -> Proposal | None:
    """The column that identifies the person of several rows, if one stands out: its
    values repeat (``min_rows_per_value`` rows each on average, at least 10 values) while
    the proposed quasi-identifiers stay the same across a value's rows for at least
    ``constant_share`` of the repeated values (visits of one patient). Columns proposed
    as quasi-identifying or sensitive are not candidates; among several (a patient
    number and the patient's name), the one with the most values, then the first."""
    from engine.analysis.statistics import group_codes
    from engine.persons import ROLE
    kinds = {p.attribute: p.type for p in proposals}
    qis = [n for n in table.names if kinds.get(n) == QUASI_IDENTIFYING]
    n = table.n_rows
    if not qis or n < 20:
        return None
    qi_group, _ = group_codes(table, qis)
    best = None
    for name in table.names:
        if kinds.get(name) not in (IDENTIFYING, INSENSITIVE):
            continue
        col = table.column(name)
        codes = col.codes.astype(np.int64)
        rows = np.bincount(codes, minlength=len(col.dictionary))
        empty = np.asarray([str(v).strip() == "" for v in col.dictionary])
        if (rows[empty] > 0).any():
            continue  # every row must name its person
        values = int((rows > 0).sum())
        repeated = rows > 1
        if values < 10 or n / values < min_rows_per_value or not repeated.any():
            continue
        pairs = np.unique(codes * (int(qi_group.max()) + 1) + qi_group)
        combos = np.bincount(pairs // (int(qi_group.max()) + 1), minlength=len(rows))
        constant = float((combos[repeated] == 1).sum()) / float(repeated.sum())
        if constant < constant_share:
            continue
        if best is None or values > best[1]:
            best = (name, values, constant)
    if best is None:
        return None
    name, values, constant = best
    return Proposal(name, ROLE,
                    f"{values:,} values repeat over {n:,} rows ({n / values:.1f} each) while "
                    f"the quasi-identifiers stay the same for {constant:.0%} of them: it "
                    f"identifies the person of several rows; removed, and the privacy "
                    f"models count persons instead of rows")


def propose_roles(table: EncodedTable, **options) -> list[Proposal]:
    """`propose_attributes`, with the person column's proposal (`propose_person`) in
    place of its column's own."""
    proposals = propose_attributes(table, **options)
    person = propose_person(table, proposals)
    if person is None:
        return proposals
    return [person if p.attribute == person.attribute else p for p in proposals]
