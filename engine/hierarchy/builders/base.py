"""What every hierarchy builder shares: input values, data types in JSON, finishing rows.

Missing values
--------------
A column's missing value is ``""``. Every builder maps it to ``""`` at every
level, the top included (as ARX keeps ``NULL``): a missing value is never
merged with present ones, and generalizing it cannot reveal anything new.
Only ``""`` is missing; a value of blanks is a (probably invalid) value.
"""
from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
import pandas as pd

from engine.data.datatypes import (DataType, DateType, DecimalType, IntegerType, Kind,
                                   OrdinalType, StringType)
from engine.data.table import EncodedColumn
from engine.errors import HierarchyError
from engine.hierarchy.model import Hierarchy

MISSING = ""
TOP = "*"
SPEC_VERSION = 1


class BuilderError(HierarchyError):
    """A builder specification is invalid, or cannot build a hierarchy for the values."""


@dataclass(frozen=True)
class ColumnValues:
    """The distinct values of a column in order of first appearance, with their counts."""

    values: tuple[str, ...]
    counts: tuple[int, ...]

    @property
    def has_missing(self) -> bool:
        return MISSING in self.values

    @property
    def present(self) -> list[str]:
        """The distinct non-missing values."""
        return [v for v in self.values if v != MISSING]

    def count_of(self) -> dict[str, int]:
        return dict(zip(self.values, self.counts))


def column_values(values: Iterable[Any] | EncodedColumn) -> ColumnValues:
    """Distinct values (as str, None/NaN as missing) and how often each occurs.

    ``values`` may be an `EncodedColumn`, a pandas Series, a numpy array or any
    iterable; passing a whole column (not only its distinct values) lets the
    priority builder order by frequency.
    """
    if isinstance(values, EncodedColumn):
        counts = values.value_counts()
        keep = counts > 0
        return ColumnValues(tuple(str(v) for v in values.dictionary[keep]),
                            tuple(int(c) for c in counts[keep]))
    found: dict[str, int] = {}
    for v in values:
        if v is None or (isinstance(v, float) and math.isnan(v)) or v is pd.NaT:
            key = MISSING
        else:
            key = str(v)
        found[key] = found.get(key, 0) + 1
    return ColumnValues(tuple(found), tuple(found.values()))


def invalid_values_error(data_type: DataType, bad: Sequence[str]) -> BuilderError:
    shown = ", ".join(f"'{v}'" for v in bad[:5])
    more = f" and {len(bad) - 5} more" if len(bad) > 5 else ""
    return BuilderError(f"{len(bad)} value(s) are not of type {data_type.name}: {shown}{more}")


def check_parsable(data_type: DataType, values: Sequence[str]) -> None:
    """Raise a `BuilderError` naming the non-missing values ``data_type`` cannot parse."""
    arr = np.array(list(values), dtype=object)
    if len(arr) == 0:
        return
    ok = data_type.valid(arr)
    if not ok.all():
        raise invalid_values_error(data_type, [str(v) for v in arr[~ok]])


def natural_order(data_type: DataType, values: Sequence[str]) -> list[str]:
    """``values`` sorted in ``data_type``'s order (numbers by value, dates by time)."""
    if not values:
        return []
    return [values[i] for i in data_type.argsort(list(values))]


def finish(rows: list[list[str]], levels: int, has_missing: bool, attribute: str,
           builder: str) -> Hierarchy:
    """A `Hierarchy` from built rows plus the missing-value row; errors name the builder."""
    if has_missing:
        rows = rows + [[MISSING] * levels]
    if not rows:
        raise BuilderError(f"the {builder} builder got no values to build a hierarchy for")
    try:
        return Hierarchy.from_rows(rows, attribute=attribute, source=f"{builder} builder")
    except BuilderError:
        raise
    except HierarchyError as e:
        raise BuilderError(f"the {builder} specification gives an invalid hierarchy "
                           f"(check its labels and formats): {e}") from None


# --- data types as JSON ---

def type_to_json(data_type: DataType) -> dict[str, Any]:
    """``{"kind": "date", "format": "%d.%m.%Y"}`` and the like."""
    out: dict[str, Any] = {"kind": data_type.kind.name.lower()}
    if isinstance(data_type, DateType):
        out["format"] = data_type.format
    elif isinstance(data_type, DecimalType) and data_type.separator != ".":
        out["separator"] = data_type.separator
    elif isinstance(data_type, OrdinalType):
        out["order"] = list(data_type.order)
    return out


def type_from_json(obj: Any) -> DataType:
    """Inverse of `type_to_json`; a bare string such as ``"integer"`` is accepted too."""
    if isinstance(obj, str):
        obj = {"kind": obj}
    if not isinstance(obj, Mapping) or not isinstance(obj.get("kind"), str):
        raise BuilderError(f"data_type must be an object with a 'kind', not {obj!r}")
    kind = obj["kind"].lower()
    try:
        if kind == "integer":
            return IntegerType()
        if kind == "decimal":
            return DecimalType(str(obj.get("separator", ".")))
        if kind == "date":
            return DateType(str(obj.get("format", "%Y-%m-%d")))
        if kind == "ordinal":
            return OrdinalType(tuple(str(v) for v in obj.get("order", ())))
        if kind == "string":
            return StringType()
    except HierarchyError:
        raise
    except Exception as e:  # DataError from a bad separator or order
        raise BuilderError(f"invalid data_type {dict(obj)!r}: {e}") from None
    raise BuilderError(f"unknown data type kind '{obj['kind']}' (expected one of "
                       f"{', '.join(k.name.lower() for k in Kind)})")


def declared_type(kind: str | None, fmt: str | None = None) -> DataType | None:
    """The data type an attribute declares (``data_type``, ``format``), None when it
    declares none or one that cannot be built (the type is detected instead)."""
    if not kind:
        return None
    try:
        return type_from_json({"kind": kind, **({"format": fmt} if fmt else {})})
    except HierarchyError:
        return None


# --- specification base ---

class BuilderSpec:
    """Base of builder specifications (frozen dataclasses).

    Subclasses define ``name`` (the JSON ``"builder"`` value), ``title`` (for
    the GUI), ``kinds`` (the data type kinds they accept), ``build`` and the
    ``_fields_to_json``/``_from_fields`` pair.
    """

    name: ClassVar[str] = ""
    title: ClassVar[str] = ""
    kinds: ClassVar[frozenset[Kind]] = frozenset(Kind)

    def build(self, values: Iterable[Any] | EncodedColumn, attribute: str = "") -> Hierarchy:
        raise NotImplementedError

    def _fields_to_json(self) -> dict[str, Any]:
        raise NotImplementedError

    @classmethod
    def _from_fields(cls, fields: dict[str, Any]) -> "BuilderSpec":
        raise NotImplementedError

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict: ``{"builder": name, "version": 1, ...fields}``."""
        return {"builder": self.name, "version": SPEC_VERSION, **self._fields_to_json()}

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> "BuilderSpec":
        """Read what `to_json` wrote; raise `BuilderError` on a wrong builder, version or key."""
        if not isinstance(obj, Mapping):
            raise BuilderError(f"a {cls.name} specification must be a JSON object")
        if obj.get("builder") != cls.name:
            raise BuilderError(f"expected a '{cls.name}' specification, "
                               f"got builder {obj.get('builder')!r}")
        version = obj.get("version")
        if not isinstance(version, int) or isinstance(version, bool):
            raise BuilderError(f"the {cls.name} specification has no integer 'version'")
        if version > SPEC_VERSION:
            raise BuilderError(f"the {cls.name} specification has version {version}; this "
                               f"Anonymist reads up to version {SPEC_VERSION}")
        fields = {k: v for k, v in obj.items() if k not in ("builder", "version")}
        try:
            return cls._from_fields(fields)
        except BuilderError as e:
            raise BuilderError(f"invalid {cls.name} specification: {e}") from None
        except (TypeError, ValueError, KeyError) as e:
            raise BuilderError(f"invalid {cls.name} specification: {e}") from None


def take(fields: dict[str, Any], allowed: Sequence[str]) -> dict[str, Any]:
    """``fields`` restricted to ``allowed`` keys; raise naming any other key."""
    unknown = sorted(set(fields) - set(allowed))
    if unknown:
        raise BuilderError(f"unknown key(s) {', '.join(unknown)} (known: {', '.join(allowed)})")
    return dict(fields)


def check_kind(spec: BuilderSpec, data_type: DataType) -> None:
    if data_type.kind not in spec.kinds:
        allowed = ", ".join(sorted(k.name.lower() for k in spec.kinds))
        raise BuilderError(f"the {spec.name} builder works on {allowed} data, "
                           f"not {data_type.name}")
