"""Read and write hierarchies in ARX's CSV format (no header, one row per value)."""
from __future__ import annotations

import csv
import io
from pathlib import Path

from engine.errors import HierarchyError
from engine.hierarchy.model import Hierarchy
from engine.io_utils import atomic_write_text


def _sniff_delimiter(sample: str) -> str:
    counts = {d: sample.count(d) for d in (";", ",", "\t", "|")}
    best = max(counts, key=counts.get)
    return best if counts[best] else ";"


def read_hierarchy(path: str | Path, attribute: str = "", delimiter: str | None = None,
                   encoding: str = "utf-8") -> Hierarchy:
    """Read an ARX hierarchy CSV; ``delimiter`` is detected when not given."""
    path = Path(path)
    try:
        text = path.read_text(encoding=encoding)
    except FileNotFoundError:
        raise HierarchyError(f"hierarchy file not found: {path}") from None
    except UnicodeDecodeError as e:
        raise HierarchyError(f"hierarchy file {path} is not {encoding} text: {e}") from None
    if text.startswith("\ufeff"):
        text = text[1:]
    delim = delimiter or _sniff_delimiter(text[:4096])
    # tuples of str straight from the reader (C loops; empty lines dropped)
    rows = tuple(filter(None, map(tuple, csv.reader(io.StringIO(text), delimiter=delim))))
    if not rows:
        raise HierarchyError(f"hierarchy file {path} is empty")
    return Hierarchy.from_text_rows(rows, attribute=attribute, source=str(path))


def hierarchy_to_csv(h: Hierarchy, delimiter: str = ";") -> str:
    buf = io.StringIO()
    w = csv.writer(buf, delimiter=delimiter, lineterminator="\n")
    w.writerows(h.rows)
    return buf.getvalue()


def write_hierarchy(h: Hierarchy, path: str | Path, delimiter: str = ";") -> None:
    """Write atomically (temporary file, then rename)."""
    atomic_write_text(Path(path), hierarchy_to_csv(h, delimiter))
