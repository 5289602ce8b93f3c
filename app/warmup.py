"""Compile everything the app runs with numba once, after installing:
``python -m app.warmup`` (the README's install command runs it).

The engine's kernels (``engine.warmup``: searches, models, metrics, estimators run in
worker threads) and Explore's lattice rasterizers, which draw on the GUI thread
when a background image would leave the view blank: with numba's cache warm, the
GUI thread never compiles.
"""
from __future__ import annotations

import sys
import time

import numpy as np


def warm_views(out=sys.stdout) -> None:
    """Call Explore's rasterizers with the types the lattice view gives them."""
    from app.perspectives.explore.raster import density_lut, rasterize_edges, stamp_nodes

    start = time.perf_counter()
    x0, y0 = np.array([1.0, 2.0, 8.0]), np.array([1.0, 7.0, 3.0])
    rasterize_edges(x0, y0, y0, x0, (0.0, 0.0, 10.0, 10.0), (32, 24),
                    density_lut((110, 122, 140)))
    stamp_nodes(x0, y0, np.array([0, 1, 1], dtype=np.int64),
                np.zeros((2, 5, 5), dtype=np.uint32), 32, 24)
    print(f"  {'lattice view rasterizers':<40} {time.perf_counter() - start:5.1f} s",
          file=out, flush=True)


def main() -> int:
    from engine.warmup import warm

    print("Compiling Anonymist's numba kernels into numba's cache (once after installing):",
          flush=True)
    start = time.perf_counter()
    warm()
    warm_views()
    print(f"done in {time.perf_counter() - start:.1f} s", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
