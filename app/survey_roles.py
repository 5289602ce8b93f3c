"""The survey columns in the app (``[data] weight`` and ``[data] household``,
engine/sdc/roles.py).

Analyze risk > Survey measures chooses the sampling weight and the household; the
document keeps them in its project state (``Document.extras["survey"]``, saved in
projects) and the job it builds names them (``Document.job_table``), so the release
report of a run from the app carries the survey measures, and a job file's weight
and household come into the app with it.
"""
from __future__ import annotations

EXTRA = "survey"
KEYS = ("weight", "household")


def survey_of(doc) -> dict[str, str | None]:
    """The weight and household columns the document names (None: none)."""
    state = doc.extras.get(EXTRA)
    state = state if isinstance(state, dict) else {}
    return {k: (state.get(k) if isinstance(state.get(k), str)
                and state.get(k) in doc.attributes else None) for k in KEYS}


def set_survey(doc, weight: str | None, household: str | None) -> None:
    """Name the weight and household columns (None: none); the project is modified
    when they change."""
    new = {"weight": weight, "household": household}
    if survey_of(doc) == new:
        return
    doc.extras[EXTRA] = new
    doc.set_modified(True)


def survey_job_keys(extras: dict, attributes) -> dict[str, str]:
    """The ``[data]`` keys of a project's survey columns (those still in its data)."""
    state = extras.get(EXTRA)
    if not isinstance(state, dict):
        return {}
    return {k: state[k] for k in KEYS
            if isinstance(state.get(k), str) and state[k] in attributes}


def survey_extras(data: dict | None) -> dict[str, str | None] | None:
    """The extras of a job's ``[data]`` table (None when it names neither)."""
    if not isinstance(data, dict):
        return None
    found = {k: data.get(k) if isinstance(data.get(k), str) else None for k in KEYS}
    return found if any(found.values()) else None
