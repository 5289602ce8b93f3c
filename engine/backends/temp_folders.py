"""The DuckDB backend's temporary folders (spill files, the app's Parquet copy of a CSV
file, sort orders) and the sweep of those a killed process left behind.

Each folder is ``anonymist-duckdb-<pid>-<random>`` in the system's temporary folder;
the backend removes its own on closing and at exit (``weakref.finalize``), and a process
killed before that leaves it: the next backend (a command, the app's next start, which
sweeps at start-up) removes the folders whose process is gone. Light: no DuckDB here.
"""
from __future__ import annotations

import os
import re
import shutil
import tempfile
from pathlib import Path

#: the backend's temporary folders (spill files, the app's Parquet copy of a CSV file,
#: sort orders): ``anonymist-duckdb-<pid>-<random>`` in the system's temporary folder
TEMP_PREFIX = "anonymist-duckdb-"
_swept = False


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # another user's process: alive
        return True
    return True


def sweep_stale_folders(folder: str | Path | None = None) -> list[Path]:
    """Remove the temporary folders of backends whose process is gone (killed before it
    could remove them): once per process, on the first backend (the app's next start,
    the next command). A folder whose process is alive is kept; a folder without a
    process id in its name (another program's, or an older version's) is never touched."""
    global _swept
    if _swept and folder is None:
        return []
    _swept = True
    removed = []
    root = Path(folder or tempfile.gettempdir())
    try:
        candidates = list(root.glob(f"{TEMP_PREFIX}*-*"))
    except OSError:
        return []
    for path in candidates:
        m = re.fullmatch(re.escape(TEMP_PREFIX) + r"(\d+)-[^/]+", path.name)
        if not m or not path.is_dir() or path.is_symlink():
            continue
        pid = int(m[1])
        if pid == os.getpid() or _alive(pid):
            continue
        try:
            if path.stat().st_uid != os.getuid():
                continue
        except (OSError, AttributeError):
            continue
        shutil.rmtree(path, ignore_errors=True)
        removed.append(path)
    return removed
