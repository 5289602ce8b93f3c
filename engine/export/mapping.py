"""The value mapping of a release: per quasi-identifier, input value -> released value.

For the released transformation each quasi-identifier's input value is replaced by
its hierarchy label at the chosen level; records in classes that violate the models
(and, under differential privacy, records outside the sample) are suppressed: all
their quasi-identifiers become the suppression string (``*`` unless the job sets
``suppression_string``). Suppression is per record, not per value, so
the mapping is two parts:

* per quasi-identifier a table ``input`` | ``released`` | ``records`` |
  ``suppressed_records`` (records with that input value, and how many of them are
  suppressed);
* ``suppressed_rows``: the 0-based data-row indices of the suppressed records.

Applying the value tables to the input and then writing ``*`` into every
quasi-identifier of the suppressed rows gives the released table's quasi-identifiers
exactly (`apply_mapping`). Identifying attributes are not in the mapping: they are
removed (or pseudonymized, whose lookup is kept apart from the release on purpose);
nor are microaggregated quasi-identifiers, whose released value is an aggregate of
the record's class rather than a function of its own value.
"""
from __future__ import annotations

import io
import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from engine.errors import DataError
from engine.io_utils import atomic_write_bytes
from engine.markers import SUPPRESSED
from engine.output import ReleasedTable
from engine.problem import Problem

SUPPRESSED_ROWS = "suppressed_rows"
COLUMNS = ("input", "released", "records", "suppressed_records")


@dataclass(frozen=True)
class ValueMapping:
    """Per quasi-identifier its value table (`COLUMNS`), the level, and the suppressed rows."""

    tables: dict[str, pd.DataFrame]
    levels: dict[str, int]
    suppressed_rows: np.ndarray
    marker: str = SUPPRESSED

    def to_dict(self) -> dict:
        return {"levels": self.levels, "suppression_string": self.marker,
                "attributes": {q: t.to_dict(orient="records") for q, t in self.tables.items()},
                "suppressed_rows": self.suppressed_rows.tolist()}


def value_mapping(problem: Problem, levels, released: ReleasedTable) -> ValueMapping:
    """The mapping of ``released`` (the table `engine.output.transform` gave for
    ``levels``): hierarchy labels at ``levels`` and the released rows' suppression."""
    levels = [int(x) for x in levels]
    weights = problem.table.weights  # a backend's frequency table: records per row
    if weights is None:  # the input rows written suppressed (a subset job's are its own)
        suppressed = np.zeros(problem.table.n_rows, dtype=bool)
        suppressed[released.suppressed_input_rows()] = True
    else:
        suppressed = np.asarray(released.suppressed_rows, dtype=bool)
    tables = {}
    micro = {spec.attribute for spec in problem.micro}
    for j, q in enumerate(problem.qis):
        if q in micro:
            continue
        col, h = problem.table.column(q), problem.hierarchies[j]
        labels = h.labels[levels[j]][h.maps[levels[j]]]
        records = np.bincount(col.codes, weights=weights,
                              minlength=len(col.dictionary)).astype(np.int64)
        sup = np.bincount(col.codes[suppressed],
                          weights=None if weights is None else weights[suppressed],
                          minlength=len(col.dictionary)).astype(np.int64)
        present = records > 0
        tables[q] = pd.DataFrame({"input": col.dictionary[present].astype(str),
                                  "released": labels[present].astype(str),
                                  "records": records[present].astype(np.int64),
                                  "suppressed_records": sup[present].astype(np.int64)})
    # the data rows of the suppressed records: the backend holding them numbers them
    rows = (problem.backend.suppressed_rows(released.plan()) if problem.backend is not None
            else np.flatnonzero(suppressed))
    return ValueMapping(tables, {q: lv for q, lv in zip(problem.qis, levels) if q in tables},
                        rows, problem.job.transformation.suppression_string)


def apply_mapping(frame: pd.DataFrame, tables: dict[str, pd.DataFrame],
                  suppressed_rows, marker: str = SUPPRESSED) -> pd.DataFrame:
    """The quasi-identifier columns of ``frame`` (the input, as strings) mapped through
    ``tables`` with ``marker`` in ``suppressed_rows``; other columns are left out.

    Raises ``DataError`` for an input value a table does not list."""
    out = {}
    for q, t in tables.items():
        lookup = dict(zip(t["input"].astype(str), t["released"].astype(str)))
        values = frame[q].astype(str)
        unknown = sorted(set(values) - set(lookup))
        if unknown:
            raise DataError(f"mapping of '{q}' has no entry for {', '.join(map(repr, unknown[:5]))}")
        col = values.map(lookup).to_numpy(dtype=object)
        col[np.asarray(suppressed_rows, dtype=np.int64)] = marker
        out[q] = col
    return pd.DataFrame(out, index=frame.index)


def _file_name(attribute: str) -> str:
    safe = re.sub(r"[^\w.-]+", "_", attribute).strip("._") or "attribute"
    return safe


def write_mapping(mapping: ValueMapping, target: str | Path, delimiter: str = ";",
                  encoding: str = "utf-8") -> list[Path]:
    """Write ``mapping``: a folder (one CSV per quasi-identifier plus
    ``suppressed_rows.csv``) or, for a ``.xlsx`` path, one sheet per quasi-identifier
    plus a ``suppressed_rows`` sheet. Returns the files written."""
    target = Path(target)
    if target.suffix.lower() == ".xlsx":
        _write_excel(mapping, target)
        return [target]
    if target.exists() and not target.is_dir():
        raise DataError(f"--mapping {target}: exists and is not a folder (give a folder or a .xlsx)")
    target.mkdir(parents=True, exist_ok=True)
    names: dict[str, str] = {}
    written = []
    for q, t in mapping.tables.items():
        base = _file_name(q)
        while base.lower() in {n.lower() for n in names.values()} | {SUPPRESSED_ROWS}:
            base += "_"
        names[q] = base
        written.append(_write_csv(t, target / f"{base}.csv", delimiter, encoding))
    rows = pd.DataFrame({"row": mapping.suppressed_rows.astype(np.int64)})
    written.append(_write_csv(rows, target / f"{SUPPRESSED_ROWS}.csv", delimiter, encoding))
    index = pd.DataFrame({"attribute": list(names), "file": [f"{names[q]}.csv" for q in names],
                          "level": [mapping.levels[q] for q in names],
                          "suppression_string": mapping.marker})
    written.append(_write_csv(index, target / "attributes.csv", delimiter, encoding))
    return written


def _write_csv(frame: pd.DataFrame, path: Path, delimiter: str, encoding: str) -> Path:
    buf = io.StringIO()
    frame.to_csv(buf, sep=delimiter, index=False)
    atomic_write_bytes(path, buf.getvalue().encode(encoding))
    return path


def _sheet_title(name: str, taken: set[str]) -> str:
    title = re.sub(r"[\[\]:*?/\\]", "_", name)[:31] or "attribute"
    base, i = title, 1
    while title.lower() in taken:
        suffix = f"_{i}"
        title, i = base[:31 - len(suffix)] + suffix, i + 1
    taken.add(title.lower())
    return title


def _write_excel(mapping: ValueMapping, path: Path) -> None:
    from openpyxl import Workbook
    wb = Workbook(write_only=True)
    taken = {SUPPRESSED_ROWS, "attributes"}
    index = wb.create_sheet("attributes")
    index.append(["attribute", "sheet", "level", "suppression_string"])
    sheets = []
    for q, t in mapping.tables.items():
        title = _sheet_title(q, taken)
        index.append([q, title, mapping.levels[q], mapping.marker])
        sheets.append((title, t))
    for title, t in sheets:
        ws = wb.create_sheet(title)
        ws.append(list(COLUMNS))
        for row in t.itertuples(index=False):
            ws.append([row.input, row.released, int(row.records), int(row.suppressed_records)])
    ws = wb.create_sheet(SUPPRESSED_ROWS)
    ws.append(["row"])
    for r in mapping.suppressed_rows:
        ws.append([int(r)])
    buf = io.BytesIO()
    wb.save(buf)
    atomic_write_bytes(path, buf.getvalue())


def read_mapping(target: str | Path, delimiter: str = ";",
                 encoding: str = "utf-8") -> tuple[dict[str, pd.DataFrame], np.ndarray]:
    """Read a written mapping back: value tables by attribute and suppressed rows."""
    target = Path(target)
    if target.suffix.lower() == ".xlsx":
        sheets = pd.read_excel(target, sheet_name=None, dtype=str, keep_default_na=False)
        index = sheets["attributes"]
        tables = {a: sheets[s] for a, s in zip(index["attribute"], index["sheet"])}
        rows = sheets[SUPPRESSED_ROWS]["row"]
    else:
        def read(p):
            return pd.read_csv(target / p, sep=delimiter, encoding=encoding, dtype=str,
                               keep_default_na=False)
        index = read("attributes.csv")
        tables = {a: read(f) for a, f in zip(index["attribute"], index["file"])}
        rows = read(f"{SUPPRESSED_ROWS}.csv")["row"]
    return tables, rows.astype(np.int64).to_numpy()


def pseudonym_lookup(problem: Problem) -> pd.DataFrame:
    """The reversible table of a release's pseudonyms: ``attribute``, ``value``,
    ``pseudonym`` for every pseudonymized identifying attribute (empty values left
    out). Whoever holds it can re-identify: keep it apart from the release."""
    from engine.pseudonyms import pseudonymize
    parts = []
    for name in problem.identifying:
        spec = getattr(problem.job.attributes.get(name), "pseudonym", None)
        if spec is None:
            continue
        values = problem.table.column(name).dictionary.astype(str)
        keep = values != ""
        pseudonyms = pseudonymize(values, spec, problem.job.base_dir, name)
        parts.append(pd.DataFrame({"attribute": name, "value": values[keep],
                                   "pseudonym": pseudonyms[keep]}))
    if not parts:
        raise DataError("the job pseudonymizes no identifying attribute: no pseudonym table")
    return pd.concat(parts, ignore_index=True)


def write_pseudonym_lookup(frame: pd.DataFrame, path: str | Path, apart_from=()) -> Path:
    """Write the reversible table (``;`` CSV, readable by the owner only), refusing a
    folder that holds any of ``apart_from`` (the release's own files)."""
    path = Path(path)
    for other in apart_from:
        if other is not None and Path(other).resolve().parent == path.resolve().parent:
            raise DataError(f"{path}: the pseudonym table would sit beside {Path(other).name}; "
                            f"keep it in another folder than the release")
    buf = io.StringIO()
    frame.to_csv(buf, sep=";", index=False)
    atomic_write_bytes(path, buf.getvalue().encode("utf-8"))
    path.chmod(0o600)
    return path
