"""``njit`` that loads numba on a kernel's first call, not when its module is imported.

Reading a job and verifying a released file need the kernels' modules (privacy models,
metrics, equivalence classes) but never run a kernel; with numba's own ``njit`` every
such import loads numba (about 0.4 s and much memory). ``njit(...)`` here returns a
stand-in that, on its first call (or attribute access, e.g. the warm-up's cache
check), builds the real numba dispatcher with the same options. The dispatcher
replaces the stand-in in its module, and so do the module's other kernels first, so a
kernel calling another one of its module compiles as with numba's ``njit`` (kernels
call no kernel of another module). numba's disk cache is keyed by the function's
source file and line, so the warm-up's cache serves these dispatchers unchanged.
"""
from __future__ import annotations

import importlib
import threading

_LOCK = threading.RLock()


def _kernel(module: str, name: str):
    """A kernel by its module and name (for pickling a stand-in)."""
    found = getattr(importlib.import_module(module), name)
    return found.materialize() if isinstance(found, LazyKernel) else found


class LazyKernel:
    """A numba kernel compiled on first use (see the module's docstring)."""

    def __init__(self, fn, options: dict):
        self.py_func = fn
        self.options = options
        self._dispatcher = None
        self._busy = False
        self.__name__ = fn.__name__
        self.__qualname__ = fn.__qualname__
        self.__module__ = fn.__module__
        self.__doc__ = fn.__doc__

    def materialize(self):
        """The numba dispatcher (numba imported and the module's kernels bound first)."""
        d = self._dispatcher
        if d is not None:
            return d
        with _LOCK:
            if self._dispatcher is None and not self._busy:
                self._busy = True
                try:
                    from numba import njit as numba_njit

                    from engine.kernel.numba_cache import light_cache_loads
                    light_cache_loads()
                    namespace = self.py_func.__globals__
                    for key, value in list(namespace.items()):
                        if isinstance(value, LazyKernel) and value is not self:
                            namespace[key] = value.materialize()
                    self._dispatcher = numba_njit(**self.options)(self.py_func)
                    if namespace.get(self.__name__) is self:
                        namespace[self.__name__] = self._dispatcher
                finally:
                    self._busy = False
            if self._dispatcher is None:  # asked for while binding its own module
                return self
            return self._dispatcher

    def __call__(self, *args, **kwargs):
        d = self._dispatcher  # compiled: straight to it (kernels are called per check)
        return (d if d is not None else self.materialize())(*args, **kwargs)

    def __getattr__(self, name):
        if name.startswith("__") or name in ("_dispatcher", "_busy", "py_func", "options"):
            raise AttributeError(name)
        return getattr(self.materialize(), name)

    def __reduce__(self):
        return (_kernel, (self.__module__, self.__qualname__))

    def __repr__(self):
        state = "compiled" if self._dispatcher is not None else "not loaded"
        return f"<numba kernel {self.__module__}.{self.__qualname__} ({state})>"


def njit(fn=None, **options):
    """Like ``numba.njit`` (with or without options), loading numba on first use."""
    if fn is None:
        return lambda f: LazyKernel(f, options)
    return LazyKernel(fn, options)
