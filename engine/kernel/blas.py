"""One BLAS thread for the engine's small dot products.

The metrics' dot products run over a few thousand classes or values: threads
gain nothing there, and on a busy machine OpenBLAS's spinning threads made
them up to 60 times slower (the Loss metric's preparation on credit card's 24
hierarchies: 0.18 s of CPU with two BLAS threads, 0.003 s with one; single
checks up to 50 times slower). Searches and the preparation of a problem run
inside ``one_blas_thread()``.
"""
from __future__ import annotations

import contextlib

try:  # optional (comes with scikit-learn); without it BLAS keeps its threads
    from threadpoolctl import ThreadpoolController
except ImportError:  # pragma: no cover
    ThreadpoolController = None

_controller = None


def one_blas_thread():
    """A context manager limiting BLAS to one thread while it is open.

    The BLAS libraries loaded are looked up once, at the first call (numpy's is
    loaded by then): each lookup reads the process's memory map, several
    milliseconds that a small job's whole search does not take."""
    global _controller
    if ThreadpoolController is None:  # pragma: no cover
        return contextlib.nullcontext()
    if _controller is None:
        import numpy  # noqa: F401 - its BLAS is the one limited
        _controller = ThreadpoolController()
    return _controller.limit(limits=1, user_api="blas")
