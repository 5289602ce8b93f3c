"""Workaround: PySide6 6.12 on Python 3.11 drops a reference to None on every call of
a method returning nothing (``QPainter.setPen``, ``save``, ``drawImage``...).

Python 3.12 made None immortal, so the binding no longer counts it; on 3.11 each
frame of the lattice view loses about 55 references and the process aborts
("none_dealloc: deallocating None") after a minute of panning. Giving None a
huge reference count makes it effectively immortal, as on 3.12. To be moved to
the application's start (or replaced by a PySide6 pin) by the window's owner.
"""
from __future__ import annotations

import ctypes
import sys

_GUARD = 1 << 40  # ~10^12 references: years of frames


def ensure_none_is_immortal() -> None:
    """Raise None's reference count once per process on Python < 3.12 (CPython only)."""
    if sys.version_info >= (3, 12) or sys.implementation.name != "cpython":
        return
    if sys.getrefcount(None) > _GUARD // 2:
        return
    ctypes.c_ssize_t.from_address(id(None)).value += _GUARD
