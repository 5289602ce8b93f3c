"""The files a data path names: one file, or the files a glob pattern matches, and the
kind of each (Parquet by its suffix, else CSV)."""
from __future__ import annotations

import glob
from pathlib import Path

from engine.data.sniff import PARQUET_SUFFIXES



def is_glob(path: str | Path) -> bool:
    """Whether ``path`` is a pattern (``*``, ``?`` or ``[``) rather than one file."""
    return any(ch in str(path) for ch in "*?[")


def matching_files(pattern: str | Path) -> tuple[Path, ...]:
    """The files ``pattern`` matches, sorted by name (the order their records are read
    in); ``pattern`` itself when it is no glob."""
    text = str(pattern)
    if not is_glob(text):
        return (Path(text),)
    return tuple(Path(f) for f in sorted(glob.glob(text)))


def file_kind(path: str | Path) -> str:
    """``"parquet"`` or ``"csv"``, by the file's suffix."""
    return "parquet" if Path(path).suffix.lower() in PARQUET_SUFFIXES else "csv"
