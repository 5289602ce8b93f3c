"""Hierarchy files beside the data, named as ARX names them
(``<data>_hierarchy_<attribute>.csv``): found for the document's data file and loaded
all at once (Configure's "Load all beside the data", the guided release's hierarchies
step, and the status bar's hint after an import)."""
from __future__ import annotations

from pathlib import Path

from app.document import Document
from app.project_io import hierarchy_rows_from_file
from engine.hierarchy.from_spec import files_beside


def available(doc: Document, only_missing: bool = True) -> dict[str, Path]:
    """Files beside the document's data file, per attribute (only those without a
    hierarchy yet, unless ``only_missing`` is False)."""
    if not doc.has_data or doc.source.kind not in ("csv", "excel", "parquet"):
        return {}
    found = _found(doc.source.location, tuple(doc.attributes))
    if only_missing:
        found = {n: p for n, p in found.items() if not doc.hierarchy_rows.get(n)}
    return found


_last: tuple = ((), {})  # (key, files): the last look, asked again on every edit


def _found(location: str, names: tuple[str, ...]) -> dict[str, Path]:
    """`files_beside`, looked up again only when the data, its attributes or its
    folder (its modification time: a file added or removed) change: Configure asks on
    every attribute edit, one stat instead of one per attribute."""
    global _last
    try:
        stamp = Path(location).parent.stat().st_mtime_ns
    except OSError:
        stamp = None
    key = (location, names, stamp)
    if _last[0] != key:
        _last = (key, files_beside(location, names))
    return dict(_last[1])


def load(doc: Document, files: dict[str, Path]) -> tuple[list[str], dict[str, str]]:
    """Load ``files`` into the document: (attributes loaded, {attribute: why not})."""
    loaded, failed = [], {}
    for name, path in files.items():
        try:
            rows = hierarchy_rows_from_file(path, name)
        except Exception as e:  # noqa: BLE001 - reported to the user, the others still load
            failed[name] = f"{path.name}: {e}"
            continue
        doc.set_hierarchy_rows(name, rows, source=str(path))
        loaded.append(name)
    return loaded, failed


def hint(doc: Document) -> str | None:
    """The status bar's words after a data file is opened, when files are beside it."""
    found = available(doc)
    if not found:
        return None
    return (f"{len(found)} hierarchy file{'s' if len(found) != 1 else ''} named as ARX names "
            f"them found beside {Path(doc.source.location).name}: Configure > Hierarchy > "
            f"Load all beside the data")
