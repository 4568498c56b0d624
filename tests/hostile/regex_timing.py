"""CPU time of full matches on long adversarial values, measured in a child process (``python regex_timing.py``
reads ``{pattern: [prefixes]}`` as JSON on stdin and prints ``{pattern: seconds}``).

A backtracking match is slow on values that pump a text two parts of the pattern both accept and then
fail at the end. The values here pump every character and pair of characters the pattern's text names
(after any hand-made prefix that leads into its repetitions), ended by nothing, ``!`` or a newline. Each
is first tried at :data:`SHORT` characters; the slowest few are timed again at :data:`LONG`, where a
linear match takes milliseconds and a quadratic one many seconds. Every match runs under a CPU-time alarm,
so an exponential pattern costs one alarm, not hours.
"""

from __future__ import annotations

import json
import re
import signal
import sys
import time
from collections.abc import Iterator

SHORT = 10_000
LONG = 200_000
#: CPU seconds a single match may take before it is stopped and reported at this value.
CAP_SHORT = 0.5
CAP_LONG = 3.0
_META = set("\\[](){}?*+|^$.")
_GENERIC = "a0 \n!"


class _Alarm(Exception):
    pass


def _on_alarm(signum: int, frame: object) -> None:
    raise _Alarm


def alphabet(pattern: str) -> list[str]:
    """Characters the pattern's text names (``\\d`` gives ``d``, harmless), then a few generic ones."""
    chars: list[str] = []
    for ch in pattern + _GENERIC:
        if ch not in _META and ch not in chars:
            chars.append(ch)
    return chars[:9]


def values(pattern: str, prefixes: list[str], length: int) -> Iterator[str]:
    letters = alphabet(pattern)
    pumps = letters + [a + b for a in letters for b in letters if a != b]
    for prefix in ["", *prefixes]:
        for pump in pumps:
            body = (prefix + pump * (length // len(pump) + 1))[:length]
            for suffix in ("", "!", "\n"):
                yield body + suffix


def cpu_seconds(compiled: re.Pattern[str], value: str, cap: float) -> float:
    """CPU time of one full match, at most ``cap`` (the match is stopped there)."""
    start = time.process_time()
    signal.setitimer(signal.ITIMER_PROF, cap)
    try:
        compiled.fullmatch(value)
    except _Alarm:
        return cap
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
    return time.process_time() - start


def slowest(pattern: str, prefixes: list[str]) -> float:
    """CPU seconds of the slowest of the pattern's adversarial values at :data:`LONG` characters (a value
    that already hits the alarm at :data:`SHORT` is the only one timed again)."""
    compiled = re.compile(pattern)
    timed = []
    for i, value in enumerate(values(pattern, prefixes, SHORT)):
        timed.append((cpu_seconds(compiled, value, CAP_SHORT), i))
        if timed[-1][0] >= CAP_SHORT:
            timed = [timed[-1]]
            break
    worst = {i for _, i in sorted(timed, reverse=True)[:3]}
    most = 0.0
    for i, value in enumerate(values(pattern, prefixes, LONG)):
        if i in worst:
            most = max(most, cpu_seconds(compiled, value, CAP_LONG))
            if most >= CAP_LONG:
                break
    return most


def main() -> None:
    signal.signal(signal.SIGPROF, _on_alarm)
    patterns: dict[str, list[str]] = json.load(sys.stdin)
    json.dump({pattern: slowest(pattern, prefixes) for pattern, prefixes in patterns.items()}, sys.stdout)


if __name__ == "__main__":
    main()
