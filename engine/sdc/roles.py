"""The survey columns of a job: ``[data] weight`` and ``[data] household``.

The weight column holds each record's sampling weight (how many people of the
population the record stands for); the household column which household (cluster)
the record belongs to. Neither is a quasi-identifier: the weight is never one (a
weight is a number per record, not a key a intruder matches on, and a QI with it
would make every record unique), the household is the unit of the household risk.
The weight can also be declared as an attribute, ``[attributes."w"] type = "weight"``
(`weight_alias`): it is then released as it is (insensitive), as survey weights are.
"""
from __future__ import annotations

from dataclasses import replace

from typing import TYPE_CHECKING

import numpy as np

from engine.config import QUASI_IDENTIFYING, DataConfig, Job
from engine.errors import DataError, JobError

if TYPE_CHECKING:
    import pandas as pd

#: the attribute type that declares the weight column
WEIGHT_TYPE = "weight"


def weight_alias(data: DataConfig, attributes: dict[str, dict]) -> tuple[DataConfig, dict]:
    """``[attributes."w"] type = "weight"`` as ``[data] weight = "w"`` (the attribute
    itself insensitive); a ``JobError`` for two weights or a different ``[data] weight``."""
    named = [name for name, a in attributes.items()
             if isinstance(a, dict) and a.get("type") == WEIGHT_TYPE]
    if not named:
        return data, attributes
    if len(named) > 1:
        raise JobError(f"two weight columns: {', '.join(named)} have type = \"weight\"; a "
                       f"job has one sampling weight")
    name = named[0]
    if data.weight is not None and data.weight != name:
        raise JobError(f"[attributes.\"{name}\"] type = \"weight\", but [data] weight = "
                       f"'{data.weight}': name one weight column")
    attributes = dict(attributes)
    attributes[name] = {**attributes[name], "type": "insensitive"}
    return replace(data, weight=name), attributes


def check_survey_roles(job: Job) -> None:
    """A ``JobError`` naming the key when the weight or household column has a role it
    cannot have."""
    weight, household = job.weight, job.household
    for key, column in (("weight", weight), ("household", household)):
        if column is None:
            continue
        a = job.attributes.get(column)
        if key == "weight" and a is not None and a.type == QUASI_IDENTIFYING:
            raise JobError(f"[data] weight = '{column}': a sampling weight is never a "
                           f"quasi-identifier, but [attributes.\"{column}\"] makes it one")
        if column == job.person:
            raise JobError(f"[data] {key} = '{column}' is also [data] person")
    if weight is not None and weight == household:
        raise JobError(f"[data] weight and [data] household both name '{weight}'")


def weight_values(frame: pd.DataFrame, column: str, key: str = "weight") -> np.ndarray:
    """The weight column as positive numbers, or a ``DataError`` naming the column and
    the first row (1-based, as a spreadsheet numbers the data rows) that is empty, no
    number, or not positive."""
    import pandas as pd
    if column not in frame.columns:
        shown = ", ".join(map(str, list(frame.columns)[:20]))
        raise DataError(f"{key} column '{column}' is not in the data (columns: {shown})")
    raw = frame[column]
    text = raw.astype(str).str.strip()
    values = pd.to_numeric(text.where(text != "", None), errors="coerce").to_numpy(float)
    bad = ~np.isfinite(values) | (values <= 0)
    if bad.any():
        row = int(np.flatnonzero(bad)[0])
        shown = str(raw.iloc[row])
        why = ("is empty" if not shown.strip() or shown == "nan" else
               "is not a number" if not np.isfinite(values[row]) else "is not positive")
        raise DataError(f"{key} column '{column}': row {row + 1} value '{shown}' {why}; a "
                        f"sampling weight is a positive number ({int(bad.sum())} such "
                        f"row(s))")
    return values


def household_values(frame: pd.DataFrame, column: str) -> np.ndarray:
    """The household column as integer codes, or a ``DataError`` naming the column and
    the first row that leaves it empty."""
    import pandas as pd
    if column not in frame.columns:
        shown = ", ".join(map(str, list(frame.columns)[:20]))
        raise DataError(f"household column '{column}' is not in the data (columns: {shown})")
    text = frame[column].astype(str).str.strip()
    empty = (text == "") | frame[column].isna().to_numpy()
    if empty.any():
        row = int(np.flatnonzero(empty.to_numpy())[0])
        raise DataError(f"household column '{column}' is empty in row {row + 1}: every "
                        f"record names its household")
    codes, _ = pd.factorize(text)
    return codes.astype(np.int64)
