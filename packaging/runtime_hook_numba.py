"""In the bundle, numba writes its compiled-function cache to the user's cache folder
(never into the installation), and finds the engine's sources collected beside it."""
import os
import sys
from pathlib import Path

if getattr(sys, "frozen", False) and "NUMBA_CACHE_DIR" not in os.environ:
    if sys.platform == "win32":
        base = Path(os.environ.get("LOCALAPPDATA", Path.home()))
    elif sys.platform == "darwin":
        base = Path.home() / "Library" / "Caches"
    else:
        base = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache"))
    os.environ["NUMBA_CACHE_DIR"] = str(base / "anonymist" / "numba")
