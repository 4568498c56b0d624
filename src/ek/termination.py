"""A stop asked of a process ek owns (SIGTERM: ``kill PID``, a supervisor ending the job), which ends a run as
Ctrl-C ends it.

:func:`install_sigterm` makes SIGTERM raise :class:`Terminated` in whatever Python code runs when the signal
arrives. Some code swallows what it raises: the callbacks a fork runs (``logging`` releases its lock in the parent
after each ``--jobs`` worker is forked), a ``__del__`` or a weakref callback print the exception and go on. So
the request is also recorded, and a loop that runs long asks :func:`stop_if_asked` where it can stop (the
``--jobs`` runner, before each chunk it merges; the command, when its run returns): a request swallowed where it
was raised still ends the run. Where a raise would break the state of the code it lands in (starting a
pool of workers), the signal is :func:`deferred` to the end of that block.
"""

from __future__ import annotations

import signal
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any


class Terminated(KeyboardInterrupt):
    """SIGTERM to a command run as its own process: it ends as Ctrl-C ends it, through the same cleanup
    (``--jobs`` workers stopped, no report or temporary file left), with status 143 instead of the kernel's kill
    of this process alone."""


_asked = False
#: how many :func:`deferred` blocks the process is in: SIGTERM is then recorded, and raised when the last ends
_deferring = 0


def _terminate(_signum: int, _frame: Any) -> None:
    global _asked
    _asked = True
    if not _deferring:
        raise Terminated


@contextmanager
def deferred() -> Iterator[None]:
    """A block that SIGTERM does not interrupt: code whose state a raise in its middle would break (starting a
    pool of workers: a thread created but not started, which its shutdown then cannot join). A SIGTERM that comes
    in it is recorded and raised when the block ends (unless the block raises something else first)."""
    global _deferring
    _deferring += 1
    try:
        yield
    finally:
        _deferring -= 1
    if not _deferring:
        stop_if_asked()


def asked() -> bool:
    """Whether SIGTERM came (a forked worker inherits the answer: one forked while its parent deferred the
    signal ends at once, as the signal would have ended it)."""
    return _asked


def _quiet_unraisable(unraisable: Any, *, default: Any = sys.unraisablehook) -> None:
    """``sys.unraisablehook`` while SIGTERM raises :class:`Terminated`: a raise swallowed where it landed is
    recorded (the run stops at its next :func:`stop_if_asked`), so it is not printed as an error; any other
    swallowed exception is reported as Python reports it."""
    if isinstance(unraisable.exc_value, Terminated):
        return
    default(unraisable)


def install_sigterm() -> None:
    """From now on SIGTERM raises :class:`Terminated` (a command run as its own process; never a library call)."""
    signal.signal(signal.SIGTERM, _terminate)
    sys.unraisablehook = _quiet_unraisable


def stop_if_asked() -> None:
    """Raise :class:`Terminated` if SIGTERM came (its first raise may have been swallowed where it landed)."""
    if _asked:
        raise Terminated


__all__ = ["Terminated", "asked", "deferred", "install_sigterm", "stop_if_asked"]
