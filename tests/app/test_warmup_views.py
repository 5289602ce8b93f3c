"""``python -m app.warmup`` also compiles Explore's rasterizers (they may draw on the GUI
thread): the call it makes must stay valid."""
from __future__ import annotations

import io

from app.warmup import warm_views


def test_warm_views_runs_the_rasterizers():
    out = io.StringIO()
    warm_views(out)
    assert "lattice view rasterizers" in out.getvalue()
