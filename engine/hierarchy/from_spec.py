"""Hierarchies a job names by their builder instead of a file, and ARX's files beside
the data.

A job attribute's ``hierarchy`` is a CSV file, or a table naming one of the app's
builders (``engine.hierarchy.builders.BUILDERS``) with the keys of the builder's
specification, the same JSON form the hierarchy wizard saves (``save_spec``)::

    [attributes.age]
    type = "quasi-identifying"
    hierarchy = { builder = "intervals", intervals = [{ lower = 0, upper = 10 }],
                  levels = [[2], [2]] }

Keys left out take the wizard's first proposal for the column (``default_spec``:
about ten round intervals, masking from the right for numbers, month / year /
decade for dates...); ``data_type`` defaults to the attribute's ``data_type`` and
``format``, else the type detected from the values, as the wizard detects it.
The hierarchy is built when the data is bound to the job (``bind_built``), from
the column's values, as the wizard builds it.
"""
from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from typing import TYPE_CHECKING

from engine.errors import HierarchyError

if TYPE_CHECKING:  # the builders load pandas: imported where a builder is used
    from engine.data.datatypes import DataType
    from engine.data.table import EncodedColumn
    from engine.hierarchy.model import Hierarchy

#: the app's builders (engine.hierarchy.builders.BUILDERS), named without loading them
BUILDER_NAMES = ("intervals", "ordering", "masking", "dates", "priority")


def plain(value):
    """TOML's tables and arrays as JSON's (frozen maps and tuples thawed)."""
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    return value


def check_builder_table(table: dict, where: str) -> dict:
    """A job's ``hierarchy = { builder = ... }`` checked as far as it can be without the
    data, against the builder's declared keys (``engine.hierarchy.builders.params``):
    a known builder, its own keys only, scalar values of their kind and range, a valid
    data type; returned as JSON."""
    from engine.hierarchy.builders.base import BuilderError, type_from_json
    from engine.hierarchy.builders.params import BUILDER_PARAMS, STRUCTURED
    from engine.schema import unknown_key_error
    spec = plain(table)
    name = spec.get("builder")
    if name not in BUILDER_NAMES:
        raise HierarchyError(f"{where} hierarchy: builder = {name!r} is not one of "
                             f"{', '.join(repr(b) for b in BUILDER_NAMES)}")
    declared = {p.name: p for p in BUILDER_PARAMS[name]}
    label = f"{where} hierarchy (the {name} builder)"
    for key, value in spec.items():
        if key == "builder":
            continue
        if key not in declared:
            raise unknown_key_error(label, key, ["builder", *declared], value=value)
        if key not in STRUCTURED:
            spec[key] = declared[key].check(value, label)
    if "data_type" in spec:
        try:
            type_from_json(spec["data_type"])
        except BuilderError as e:
            raise HierarchyError(f"{where} hierarchy: {e}") from None
    return spec


def builder_keys(name: str) -> list[str]:
    """The keys of builder ``name``'s specification (besides ``builder``), as declared."""
    from engine.hierarchy.builders.params import BUILDER_PARAMS
    return [p.name for p in BUILDER_PARAMS[name]]


def data_type_for(spec: dict, column: EncodedColumn, kind: str | None = None,
                  fmt: str | None = None) -> DataType:
    """The builder's data type: the spec's, else the attribute's, else detected."""
    from engine.data.datatypes import best_type
    from engine.hierarchy.builders.base import declared_type, type_from_json
    if "data_type" in spec:
        return type_from_json(spec["data_type"])
    declared = declared_type(kind, fmt)
    if declared is not None:
        return declared
    return best_type(column)


def build_from_spec(spec: dict, column: EncodedColumn, attribute: str,
                    kind: str | None = None, fmt: str | None = None) -> Hierarchy:
    """The hierarchy a job's builder table builds for ``column`` (see the module)."""
    from engine.hierarchy.builders import default_spec, spec_from_json
    from engine.hierarchy.builders.base import SPEC_VERSION
    spec = plain(spec)
    data_type = data_type_for(spec, column, kind, fmt)
    try:
        base = default_spec(spec["builder"], data_type, column).to_json()
        full = {**base, **spec, "version": SPEC_VERSION}
        return spec_from_json(full).build(column, attribute)
    except HierarchyError as e:
        raise HierarchyError(f"attribute '{attribute}', hierarchy = {{ builder = "
                             f"\"{spec['builder']}\" ... }}: {e}") from None


def record_column(table, name: str):
    """``table``'s column ``name`` counting records: a backend's frequency table
    (``weights``) stands for more records than rows, and a builder that orders values by
    frequency (priority) or detects types from counts must see the records' counts, so
    that the hierarchy is the same in memory and out of core."""
    from dataclasses import dataclass

    import numpy as np

    from engine.data.table import EncodedColumn
    column = table.column(name)
    if getattr(table, "weights", None) is None:
        return column

    @dataclass(frozen=True)
    class RecordCounts(EncodedColumn):
        counts: np.ndarray = None

        def value_counts(self) -> np.ndarray:
            return self.counts

    return RecordCounts(column.name, column.codes, column.dictionary,
                        table.value_counts(name))


def bind_built(job, table):
    """``job`` with each attribute that names a builder given the hierarchy it builds
    from ``table``'s column (the job itself when none does)."""
    changed = {}
    for name, a in job.attributes.items():
        builder = getattr(a, "hierarchy_builder", None)
        if builder is None or a.hierarchy is not None:
            continue
        if name not in table.names:
            raise HierarchyError(f"attribute '{name}' builds its hierarchy from its column, "
                                 f"which the data does not have")
        h = build_from_spec(builder, record_column(table, name), name, a.data_type,
                            a.format)
        changed[name] = replace(a, hierarchy=h)
    if not changed:
        return job
    return replace(job, attributes={**job.attributes, **changed})


# --- ARX's files beside the data ------------------------------------------------------
def beside_path(data_path: str | Path, attribute: str) -> Path:
    """ARX's name of an attribute's hierarchy beside its data file:
    ``<folder>/<data name>_hierarchy_<attribute>.csv``."""
    data_path = Path(data_path)
    return data_path.parent / f"{data_path.stem}_hierarchy_{attribute}.csv"


def files_beside(data_path: str | Path | None, attributes) -> dict[str, Path]:
    """The ARX-named hierarchy files (`beside_path`) that exist beside ``data_path``, per
    attribute of ``attributes`` that has one, in the attributes' order. Empty when the
    data is not a file (a database, a table in memory)."""
    if not data_path:
        return {}
    data_path = Path(data_path)
    if not data_path.parent.is_dir():
        return {}
    found = {}
    for name in attributes:
        path = beside_path(data_path, name)
        if path.is_file():
            found[name] = path
    return found
