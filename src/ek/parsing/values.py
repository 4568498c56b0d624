"""Argument values from already-decoded objects, checked and made JSON-like.

A caller may hand ek a dict built in Python rather than decoded from JSON. Its
values are accepted when they are what JSON or a Python literal could have
said: ``str``, ``int``, finite ``float``, ``bool``, ``None``, lists (tuples
become lists) and dicts with ``str`` keys. Anything else (sets, bytes,
objects, NaN) is a :class:`ParseError` at its JSON path.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from ek.parsing.errors import ParseError
from ek.parsing.limits import Limits


class _Budget:
    """Counts size units (one per value, plus string lengths) against ``max_size``."""

    __slots__ = ("left", "limit")

    def __init__(self, limit: int) -> None:
        self.left = limit
        self.limit = limit

    def spend(self, units: int, path: str, fmt: str) -> None:
        self.left -= units
        if self.left < 0:
            raise ParseError(f"output is larger than the limit of {self.limit:,} units (max_size)", path, fmt)


def plain_args(args: object, path: str, limits: Limits, fmt: str) -> dict[str, Any]:
    """Check a decoded argument mapping and return it as a plain ``dict``.

    >>> plain_args({"x": (1, 2.5), "y": {"k": None}}, "$", Limits(), "json")
    {'x': [1, 2.5], 'y': {'k': None}}
    >>> plain_args({"x": {1, 2}}, "$.arguments", Limits(), "json")
    Traceback (most recent call last):
    ...
    ek.parsing.errors.ParseError: json: $.arguments.x: a set is not a JSON-like value (accepted: str, int, float, bool, None, list, dict)
    """
    if not isinstance(args, Mapping):
        raise ParseError(f"arguments must be an object (mapping), got {type(args).__name__}", path, fmt)
    budget = _Budget(limits.max_size)
    return _mapping(args, path, 1, limits.max_depth, budget, fmt)


def _mapping(value: Mapping[Any, Any], path: str, depth: int, limit: int, budget: _Budget, fmt: str) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, item in value.items():
        if not isinstance(key, str):
            raise ParseError(f"object keys must be strings, got {type(key).__name__} {key!r:.60}", path, fmt)
        sub = f"{path}.{key}" if key.isidentifier() else f"{path}[{key!r}]"
        budget.spend(1 + len(key), sub, fmt)
        out[key] = _value(item, sub, depth, limit, budget, fmt)
    return out


def _value(value: Any, path: str, depth: int, limit: int, budget: _Budget, fmt: str) -> Any:
    if value is None or isinstance(value, (bool, int)):
        budget.spend(1, path, fmt)
        return value
    if isinstance(value, str):
        budget.spend(1 + len(value), path, fmt)
        return value
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ParseError(f"{value!r} is not accepted: NaN and infinities are not JSON numbers", path, fmt)
        budget.spend(1, path, fmt)
        return value
    if isinstance(value, (list, tuple, Mapping)):
        if depth >= limit:
            raise ParseError(f"nesting deeper than {limit} levels (limit max_depth={limit})", path, fmt)
        budget.spend(1, path, fmt)
        if isinstance(value, Mapping):
            return _mapping(value, path, depth + 1, limit, budget, fmt)
        return [_value(item, f"{path}[{i}]", depth + 1, limit, budget, fmt) for i, item in enumerate(value)]
    raise ParseError(
        f"a {type(value).__name__} is not a JSON-like value (accepted: str, int, float, bool, None, list, dict)",
        path,
        fmt,
    )
