"""``[data] person``: the person column's declaration and its bad input."""
from __future__ import annotations

import pandas as pd
import pytest

from engine.config import IDENTIFYING
from engine.errors import AnonymistError, DataError, JobError
from engine.problem import Problem
from engine.project.job_file import job_from_dict, job_to_dict
from engine.data.table import EncodedTable


def _job(person="patient", **attrs) -> dict:
    attributes = {"sex": {"type": "quasi-identifying", "transformation": "suppression"},
                  "diagnosis": {"type": "sensitive"}}
    attributes.update(attrs)
    return {"data": {"person": person}, "attributes": attributes,
            "privacy": [{"model": "k-anonymity", "k": 2}]}


def _table(patients=("p1", "p1", "p2", "p3")) -> EncodedTable:
    n = len(patients)
    return EncodedTable.from_dataframe(pd.DataFrame({
        "patient": list(patients), "sex": ["f", "f", "m", "m"][:n] * (n // 4 or 1),
        "diagnosis": ["a", "b", "a", "c"][:n] * (n // 4 or 1)}).astype("category"))


def test_person_is_declared_once_and_identifying():
    job = job_from_dict(_job())
    assert job.person == "patient"
    # not named among the attributes: identifying all the same (never released)
    assert job.attributes["patient"].type == IDENTIFYING
    assert job_to_dict(job)["data"]["person"] == "patient"
    assert job_from_dict(_job(person=None) | {"data": {}}).person is None


@pytest.mark.parametrize("role", ["quasi-identifying", "sensitive", "insensitive"])
def test_a_person_column_with_another_role_is_refused(role):
    with pytest.raises(JobError, match=r"\[data\] person = 'patient'.*" + role):
        job_from_dict(_job(patient={"type": role}))


def test_a_person_column_released_as_pseudonym_is_refused():
    with pytest.raises(AnonymistError, match=r"\[data\] person"):
        job_from_dict(_job(patient={"type": "identifying", "pseudonymize": "mask"}))


def test_a_person_column_the_data_lacks_is_refused():
    job = job_from_dict(_job(person="patient_no"))
    with pytest.raises(JobError, match=r"\[data\] person = 'patient_no' is not a column"):
        Problem(_table(), job)


def test_empty_person_values_are_refused_with_their_row():
    job = job_from_dict(_job())
    with pytest.raises(DataError, match=r"\[data\] person = 'patient' is empty in 1 row.*"
                                        r"row 3"):
        Problem(_table(("p1", "p1", " ", "p3")), job)


def test_a_person_key_of_the_wrong_kind_is_refused():
    with pytest.raises(JobError, match="person"):
        job_from_dict(_job(person=3))
