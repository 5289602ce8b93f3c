"""Where the tests find the shared data (ARX's oracle, Adult, the tools): the folder
named by ``ANONYMIST_SHARED``, else ``shared`` beside the checkout, else
``/work/shared``."""
from __future__ import annotations

import os
from pathlib import Path

_CANDIDATES = [os.environ.get("ANONYMIST_SHARED"),
               Path(__file__).resolve().parents[2] / "shared", "/work/shared"]
SHARED = next((Path(c) for c in _CANDIDATES if c and Path(c).is_dir()),
              Path(__file__).resolve().parents[2] / "shared")
