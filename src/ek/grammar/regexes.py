"""A schema's regex matched against its own defaults, without letting a backtracking regex hang the check.

Python's ``re`` backtracks: ``/(a+)+b/`` against thirty ``a`` takes hours. The
checker only needs a yes or no for a default, so each match gets a time limit
(a timer signal in the main thread, a child process elsewhere) and a regex that
runs past it is reported instead of hanging ``ek lint``.
"""

from __future__ import annotations

import importlib
import json
import re
import signal
import subprocess
import sys
import threading
from typing import Any

from ek.limits import DEFAULT_MATCH_SECONDS

# The regex parser's private modules (re._parser since 3.11, sre_parse before): Any-typed.
_sre_constants: Any = importlib.import_module("re._constants" if sys.version_info >= (3, 11) else "sre_constants")
_sre_parser: Any = importlib.import_module("re._parser" if sys.version_info >= (3, 11) else "sre_parse")

_REPEATS = (_sre_constants.MAX_REPEAT, _sre_constants.MIN_REPEAT, getattr(_sre_constants, "POSSESSIVE_REPEAT", None))
_BRANCH = _sre_constants.BRANCH
_ATOMIC = getattr(_sre_constants, "ATOMIC_GROUP", None)
_SUBPATTERN = _sre_constants.SUBPATTERN
_GROUPED = tuple(getattr(_sre_constants, name) for name in ("ASSERT", "ASSERT_NOT", "ATOMIC_GROUP") if hasattr(_sre_constants, name))

MATCH_SECONDS = DEFAULT_MATCH_SECONDS

_CHILD = "import json, re, sys; p, v = json.load(sys.stdin); print(int(re.fullmatch(p, v) is not None))"


class _TimedOut(Exception):
    pass


def fullmatch_within(pattern: str, value: str, seconds: float = MATCH_SECONDS) -> bool | None:
    """Does ``value`` match all of ``pattern``? None when matching took longer than ``seconds``.

    >>> fullmatch_within("[A-Z]{3}", "JFK"), fullmatch_within("[A-Z]{3}", "JFKX")
    (True, False)
    >>> fullmatch_within("(a+)+b", "a" * 40, seconds=0.05) is None
    True
    """
    if _timer_available():
        return _with_timer(pattern, value, seconds)
    if may_backtrack(pattern):
        return _in_child(pattern, value, seconds)
    return re.fullmatch(pattern, value) is not None


def may_backtrack(pattern: str) -> bool:
    """Could ``pattern`` take exponential or high polynomial time: a repetition of something that
    itself varies (``(a+)+``, ``(a|ab)*``), or three or more variable repetitions (``a*a*a*b``)?

    >>> may_backtrack("(a+)+b"), may_backtrack("(a|ab)*c"), may_backtrack("a*a*a*b")
    (True, True, True)
    >>> may_backtrack("[A-Z]{3}"), may_backtrack(r"\\w+@\\w+"), may_backtrack("([a-z]{2})+")
    (False, False, False)
    """
    try:
        tree = _sre_parser.parse(pattern)
    except (re.error, ValueError, TypeError, RecursionError, OverflowError):  # compiled by the caller already
        return True
    variable = 0
    stack: list[tuple[Any, bool]] = [(item, False) for item in tree]
    while stack:
        node, inside_repeat = stack.pop()
        op: Any = node[0]
        arg: Any = node[1]
        if op in _REPEATS:
            low, high, body = arg
            if low != high:
                variable += 1
                if inside_repeat:
                    return True
            stack.extend((item, inside_repeat or high > 1) for item in body)
        elif op is _BRANCH:
            if inside_repeat:
                return True
            stack.extend((item, inside_repeat) for alternative in arg[1] for item in alternative)
        elif op is _SUBPATTERN:
            stack.extend((item, inside_repeat) for item in arg[-1])
        elif op in _GROUPED:  # lookarounds hold (direction, pattern); an atomic group is the pattern
            body = arg if op is _ATOMIC else arg[-1]
            stack.extend((item, inside_repeat) for item in body)
    return variable >= 3


def _timer_available() -> bool:
    """A timer signal can bound the match: main thread, a Unix timer, and no timer of the caller's running."""
    return (
        hasattr(signal, "setitimer")
        and threading.current_thread() is threading.main_thread()
        and signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)
    )


def _on_alarm(signum: int, frame: object) -> None:
    raise _TimedOut


def _with_timer(pattern: str, value: str, seconds: float) -> bool | None:
    # ``re`` checks for signals while it backtracks, so the alarm interrupts even a C-level match.
    previous = signal.signal(signal.SIGALRM, _on_alarm)
    try:
        signal.setitimer(signal.ITIMER_REAL, seconds)
        try:
            return re.fullmatch(pattern, value) is not None
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
    except _TimedOut:
        return None
    finally:
        signal.signal(signal.SIGALRM, previous)


def _in_child(pattern: str, value: str, seconds: float) -> bool | None:
    """Off the main thread no signal can interrupt ``re``: match in a child process that can be killed."""
    try:
        done = subprocess.run(
            [sys.executable, "-I", "-c", _CHILD],
            input=json.dumps([pattern, value]),
            capture_output=True,
            text=True,
            timeout=seconds + 2.0,  # plus the child's start-up
            check=True,
        )
    except subprocess.TimeoutExpired:
        return None
    return done.stdout.strip() == "1"
