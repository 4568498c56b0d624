"""A stop asked of a process ek owns, SIGTERM (``kill PID``, a supervisor ending the job) or SIGINT (Ctrl-C): both
end a run through the same cleanup, SIGTERM with status 143, SIGINT with 130.

:func:`install` (a command run as its own process; never a library call) makes SIGTERM raise :class:`Terminated`
and SIGINT :class:`Interrupted` (a ``KeyboardInterrupt``, as Python's own handler raises) in whatever Python code
runs when the signal arrives. Some code swallows what it raises: the callbacks a fork runs (``logging`` releases
its lock in the parent after each ``--jobs`` worker is forked), a ``__del__`` or a weakref callback print the
exception and go on. So the request is also recorded, and a loop that runs long asks :func:`stop_if_asked` where
it can stop (the ``--jobs`` runner, before each chunk it merges; the command, when its run returns): a request
swallowed where it was raised still ends the run. Where a raise would break the state of the code it lands in
(starting a pool of workers), the signal is :func:`deferred` to the end of that block.
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


class Interrupted(KeyboardInterrupt):
    """SIGINT (Ctrl-C) to a command run as its own process, raised by ek's handler: a ``KeyboardInterrupt`` as
    Python's own handler raises, which ek's handler also records and defers (see the module's docstring)."""


#: the stop asked, the first signal's exception class (None: none came); a forked worker inherits it
_asked: type[KeyboardInterrupt] | None = None
#: how many :func:`deferred` blocks the process is in: a signal is then recorded, and raised when the last ends
_deferring = 0
_RAISES: dict[int, type[KeyboardInterrupt]] = {signal.SIGTERM: Terminated, signal.SIGINT: Interrupted}


def _stop(signum: int, _frame: Any) -> None:
    global _asked
    if _asked is None:  # the first stop asked is the one the run ends with (its status, its message)
        _asked = _RAISES[signum]
    if not _deferring:
        raise _RAISES[signum]


@contextmanager
def deferred() -> Iterator[None]:
    """A block that SIGTERM and SIGINT do not interrupt: code whose state a raise in its middle would break
    (starting a pool of workers: a thread created but not started, which its shutdown then cannot join). A signal
    that comes in it is recorded and raised when the block ends (unless the block raises something else first).
    Without :func:`install` (a library call), SIGINT keeps the handler its caller gave it."""
    global _deferring
    _deferring += 1
    try:
        yield
    finally:
        _deferring -= 1
    if not _deferring:
        stop_if_asked()


def asked() -> bool:
    """Whether SIGTERM or SIGINT came (a forked worker inherits the answer: one forked while its parent deferred
    the signal ends at once, as the signal would have ended it)."""
    return _asked is not None


def _quiet_unraisable(unraisable: Any, *, default: Any = sys.unraisablehook) -> None:
    """``sys.unraisablehook`` while ek's handlers raise: a raise of theirs swallowed where it landed is recorded
    (the run stops at its next :func:`stop_if_asked`), so it is not printed as an error; any other swallowed
    exception is reported as Python reports it."""
    if isinstance(unraisable.exc_value, (Terminated, Interrupted)):
        return
    default(unraisable)


def install() -> None:
    """From now on SIGTERM raises :class:`Terminated` and SIGINT :class:`Interrupted` (a command run as its own
    process; never a library call). SIGINT is taken over only from Python's own handler: one started with SIGINT
    ignored (``nohup``, a shell's background job) goes on ignoring it."""
    signal.signal(signal.SIGTERM, _stop)
    if signal.getsignal(signal.SIGINT) is signal.default_int_handler:
        signal.signal(signal.SIGINT, _stop)
    sys.unraisablehook = _quiet_unraisable


def restore_in_worker() -> None:
    """In a worker process forked from a command (a ``--jobs`` worker): SIGTERM ends it at once, as the executor
    means when it stops its workers, and SIGINT raises ``KeyboardInterrupt`` as Python's own handler does (the
    worker inherits the command's handlers, and may have been forked inside a :func:`deferred` block that never
    ends in it). A SIGINT its starter ignored stays ignored."""
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    if signal.getsignal(signal.SIGINT) is _stop:
        signal.signal(signal.SIGINT, signal.default_int_handler)


def stop_if_asked() -> None:
    """Raise :class:`Terminated` or :class:`Interrupted` if SIGTERM or SIGINT came (its first raise may have been
    swallowed where it landed)."""
    if _asked is not None:
        raise _asked


__all__ = ["Interrupted", "Terminated", "asked", "deferred", "install", "restore_in_worker", "stop_if_asked"]
