"""The signals that end a command: SIGINT (Ctrl-C), SIGTERM and SIGHUP.

Under the command line (``engine.cli``) each of them becomes an ``Interrupted``
exception (a ``KeyboardInterrupt``) raised where the program is, so that every
writer removes its temporary file and an all-or-nothing set of outputs is put back
(``engine.io_utils``); the command then exits with the signal's code
(``EXIT_CODES``: 130 for SIGINT and SIGTERM, 129 = 128 + 1 for SIGHUP).

While a search runs, an exception raised inside a numba kernel's call surfaces as
``SystemError: CPUDispatcher(...) returned a result with an exception set`` instead
of the interrupt. So around the search (`deferred`) a signal only sets a flag that
the search polls between kernel calls as its cancel check (`requested`); the
command raises the interrupt once the search has returned. A second signal while
deferred raises at once (a search that does not answer can still be stopped), and
`interrupt_of` recognises an interrupt wrapped in such a ``SystemError`` anywhere.
"""
from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager


class Interrupted(KeyboardInterrupt):
    """A signal that ends the command (the base: SIGINT, Ctrl-C)."""

    signum = signal.SIGINT
    name = "Ctrl-C"


class Terminated(Interrupted):
    """SIGTERM."""

    signum = signal.SIGTERM
    name = "SIGTERM"


class HungUp(Interrupted):
    """SIGHUP (the terminal closed)."""

    signum = signal.SIGHUP
    name = "SIGHUP"


#: the exception each handled signal raises, and the exit code it ends the command with
EXCEPTIONS = {signal.SIGINT: Interrupted, signal.SIGTERM: Terminated, signal.SIGHUP: HungUp}
EXIT_CODES = {signal.SIGINT: 130, signal.SIGTERM: 130, signal.SIGHUP: 129}


class _State:
    def __init__(self):
        self.received: int | None = None  # the first signal received while deferred
        self.deferring = 0


_state = _State()


def _handler(signum, frame) -> None:
    if _state.deferring and _state.received is None:
        _state.received = signum
        return
    raise EXCEPTIONS.get(signum, Interrupted)()


@contextmanager
def signals_as_interrupts() -> Iterator[None]:
    """Within the block SIGINT, SIGTERM and SIGHUP raise their ``Interrupted`` where the
    process is (deferred inside `deferred`). Only the main thread installs handlers;
    elsewhere the block changes nothing. The earlier handlers are restored at the end."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    old = {s: signal.signal(s, _handler) for s in EXCEPTIONS}
    _state.received, _state.deferring = None, 0
    try:
        yield
    finally:
        for s, h in old.items():
            signal.signal(s, h)
        _state.received, _state.deferring = None, 0


@contextmanager
def deferred() -> Iterator[None]:
    """Within the block a first signal only sets the flag `requested` reads (a search
    polls it between kernel calls and returns what it has); when the block ends the
    signal's ``Interrupted`` is raised (`raise_if_requested`)."""
    _state.deferring += 1
    try:
        yield
    finally:
        _state.deferring -= 1
    raise_if_requested()


def requested() -> bool:
    """Whether a signal arrived while deferred: the cancel check of a search."""
    return _state.received is not None


def raise_if_requested() -> None:
    """Raise the ``Interrupted`` of a signal that arrived while deferred."""
    if _state.received is not None and not _state.deferring:
        signum, _state.received = _state.received, None
        raise EXCEPTIONS.get(signum, Interrupted)()


def interrupt_of(exc: BaseException) -> KeyboardInterrupt | None:
    """The interrupt behind ``exc``: ``exc`` itself, or a ``KeyboardInterrupt`` a
    ``SystemError`` wraps (raised inside a compiled kernel's call, "returned a result
    with an exception set"); None for any other exception."""
    seen = 0
    e: BaseException | None = exc
    while e is not None and seen < 10:
        if isinstance(e, KeyboardInterrupt):
            return e
        if not isinstance(e, SystemError):
            return None
        e = e.__cause__ or e.__context__
        seen += 1
    return None


def exit_code(interrupt: BaseException) -> int:
    """The exit code of an interrupt: 129 for SIGHUP, else 130."""
    return EXIT_CODES.get(getattr(interrupt, "signum", signal.SIGINT), 130)
