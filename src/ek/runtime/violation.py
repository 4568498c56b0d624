"""What a validator reports: a located violation, and the error ``from_args`` raises."""

from __future__ import annotations

from functools import partial
from typing import NamedTuple


class Violation(NamedTuple):
    """One broken rule: a JSON-path-like ``path`` (``$.passenger_names[2]``) and a ``reason``.

    >>> str(Violation("$.passengers", "must be <= 9, got 12"))
    '$.passengers: must be <= 9, got 12'
    """

    path: str
    reason: str

    def __str__(self) -> str:
        return f"{self.path}: {self.reason}"


#: ``make_violation((path, reason))``: builds a Violation without NamedTuple's Python-level ``__new__``
#: (generated validators use it on their error paths).
make_violation = partial(tuple.__new__, Violation)


class ArgumentsError(ValueError):
    """Arguments that do not fit a tool's schema; ``violations`` lists every problem.

    >>> err = ArgumentsError("get_weather", [Violation("$.location", "missing required argument")])
    >>> print(err)
    invalid arguments for tool 'get_weather': $.location: missing required argument
    """

    def __init__(self, tool: str, violations: list[Violation]) -> None:
        self.tool = tool
        self.violations = list(violations)
        listed = "; ".join(str(v) for v in self.violations)
        super().__init__(f"invalid arguments for tool {tool!r}: {listed}")
