"""Hierarchy builders: specifications that build a `Hierarchy` for a column's values.

Each builder is a frozen dataclass with ``build(values, attribute="") -> Hierarchy``
and ``to_json()``/``from_json()``; `save_spec` and `load_spec` keep one in a
small versioned JSON file::

    {"builder": "intervals", "version": 1, "data_type": {"kind": "integer"}, ...}

Missing values (``""``) map to ``""`` at every level (see `base`).
"""
from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from engine.data.datatypes import DataType, Kind
from engine.data.table import EncodedColumn
from engine.hierarchy.builders.base import (MISSING, TOP, BuilderError, BuilderSpec,
                                            column_values, type_from_json, type_to_json)
from engine.hierarchy.builders.dates import GRANULARITIES, DateLevel, DateSpec
from engine.hierarchy.builders.grouping import Group
from engine.hierarchy.builders.intervals import BaseInterval, IntervalSpec
from engine.hierarchy.builders.labels import LABEL_FUNCTIONS, Label
from engine.hierarchy.builders.masking import MaskingSpec
from engine.hierarchy.builders.ordering import OrderingSpec
from engine.hierarchy.builders.priority import PrioritySpec
from engine.io_utils import atomic_write_text

BUILDERS: dict[str, type[BuilderSpec]] = {
    spec.name: spec for spec in (IntervalSpec, OrderingSpec, MaskingSpec, DateSpec, PrioritySpec)
}
# The order a wizard offers them in, most specific first.
_PREFERENCE = {
    Kind.INTEGER: ("intervals", "ordering", "priority", "masking"),
    Kind.DECIMAL: ("intervals", "ordering", "priority", "masking"),
    Kind.DATE: ("dates", "intervals", "ordering", "priority", "masking"),
    Kind.ORDINAL: ("ordering", "priority", "masking"),
    Kind.STRING: ("masking", "ordering", "priority"),
}


def builder_for(data_type: DataType | Kind | str) -> list[type[BuilderSpec]]:
    """The builder specification classes valid for a data type, preferred first.

    ``data_type`` may be a `DataType`, a `Kind` or a kind name (``"date"``).
    """
    if isinstance(data_type, DataType):
        kind = data_type.kind
    elif isinstance(data_type, Kind):
        kind = data_type
    else:
        try:
            kind = Kind[str(data_type).upper()]
        except KeyError:
            raise BuilderError(f"unknown data type '{data_type}'") from None
    return [BUILDERS[name] for name in _PREFERENCE[kind] if kind in BUILDERS[name].kinds]


def default_spec(builder: str | type[BuilderSpec], data_type: DataType,
                 values: Iterable[Any] | EncodedColumn = ()) -> BuilderSpec:
    """A sensible first specification of ``builder`` for a column, for a wizard to start from.

    Intervals get about ten round-width intervals over ``values`` (see
    `IntervalSpec.suggest`); the others do not need the values.
    """
    name = builder if isinstance(builder, str) else builder.name
    if name not in BUILDERS:
        raise BuilderError(f"unknown builder {name!r} (known: {', '.join(BUILDERS)})")
    if data_type.kind not in BUILDERS[name].kinds:
        raise BuilderError(f"the {name} builder does not work on {data_type.name} data")
    if name == "intervals":
        return IntervalSpec.suggest(data_type, values)
    if name == "ordering":
        return OrderingSpec(data_type, levels=[2])
    if name == "masking":
        numeric = data_type.kind in (Kind.INTEGER, Kind.DECIMAL)
        return MaskingSpec(align="right" if numeric else "left")
    if name == "dates":
        return DateSpec(data_type, ["month", "year", "decade"])  # type: ignore[arg-type]
    return PrioritySpec(data_type)


def spec_from_json(obj: Mapping[str, Any]) -> BuilderSpec:
    """The specification a `BuilderSpec.to_json` dict describes."""
    if not isinstance(obj, Mapping):
        raise BuilderError("a builder specification must be a JSON object")
    name = obj.get("builder")
    if name not in BUILDERS:
        raise BuilderError(f"unknown builder {name!r} (known: {', '.join(BUILDERS)})")
    return BUILDERS[name].from_json(obj)


def spec_to_text(spec: BuilderSpec) -> str:
    return json.dumps(spec.to_json(), indent=2, ensure_ascii=False) + "\n"


def save_spec(spec: BuilderSpec, path: str | Path) -> None:
    """Write ``spec`` as JSON, atomically (temporary file, then rename)."""
    atomic_write_text(Path(path), spec_to_text(spec))


def load_spec(path: str | Path) -> BuilderSpec:
    """Read a specification written by `save_spec`; errors name the file."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise BuilderError(f"builder specification not found: {path}") from None
    except (OSError, UnicodeDecodeError) as e:
        raise BuilderError(f"cannot read builder specification {path}: {e}") from None
    try:
        obj = json.loads(text)
    except json.JSONDecodeError as e:
        raise BuilderError(f"{path} is not valid JSON (line {e.lineno}, column {e.colno}): "
                           f"{e.msg}") from None
    try:
        return spec_from_json(obj)
    except BuilderError as e:
        raise BuilderError(f"{path}: {e}") from None


__all__ = [
    "BUILDERS", "BaseInterval", "BuilderError", "BuilderSpec", "DateLevel", "DateSpec",
    "GRANULARITIES", "Group", "IntervalSpec", "LABEL_FUNCTIONS", "Label", "MISSING",
    "MaskingSpec", "OrderingSpec", "PrioritySpec", "TOP", "builder_for", "column_values",
    "default_spec",
    "load_spec", "save_spec", "spec_from_json", "spec_to_text", "type_from_json", "type_to_json",
]
