"""Load kernels from numba's disk cache without loading numba's compiler registries.

Before loading a cached kernel numba "refreshes" its target context: it imports and
installs every lowering and typing registry it has (the CPython, NumPy, typed
containers, random, polynomial... implementations), about 0.35 s of CPU in each
process, a fifth of a whole ``anonymist anonymize`` on 600,000 rows. A cached kernel
is machine code: running it needs numba's runtime (NRT, for the arrays a kernel
allocates), not the registries, which only compiling uses. So a cache load here
initializes the runtime and loads; compiling (a cache miss, a new signature) goes
through numba's compiler, which refreshes the context itself first, so nothing is
compiled without the registries.

Applied once, on the first kernel's materialization (``engine.kernel.jit``), only
where numba's cache class has the methods this was written against (numba 0.68;
checked by name, and ``tests/engine/test_numba_cache_loads.py`` checks the effect);
anywhere else numba's own loading is left in place. Should a light load fail, that
kernel is loaded again numba's way.
"""
from __future__ import annotations

import threading

_LOCK = threading.Lock()
_APPLIED = False


def light_cache_loads() -> bool:
    """Make numba's cache loads skip the registries (idempotent); False if numba's
    cache does not look as expected and was left alone."""
    global _APPLIED
    with _LOCK:
        if _APPLIED:
            return True
        try:
            from numba.core import caching
            from numba.core.runtime import rtsys
        except ImportError:
            return False
        cache = caching.Cache
        needed = ("load_overload", "_load_overload", "_guard_against_spurious_io_errors")
        if not all(hasattr(cache, n) for n in needed) or not hasattr(rtsys, "initialize"):
            return False
        numba_load = cache.load_overload

        def load_overload(self, sig, target_context):
            if not getattr(self, "_enabled", True):
                return None
            try:
                rtsys.initialize(target_context)  # the runtime the machine code calls
                with self._guard_against_spurious_io_errors():
                    return self._load_overload(sig, target_context)
            except Exception:  # noqa: BLE001 - numba's way, which refreshes first
                return numba_load(self, sig, target_context)

        load_overload.__doc__ = numba_load.__doc__
        cache.load_overload = load_overload
        _APPLIED = True
        return True
